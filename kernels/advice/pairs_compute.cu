// pairs_compute.cu: pairs whose limit is in the SM: seed 000's FMA chains
// (divergence, partial warps, occupancy, grid, the FMA roof), special
// functions, local memory, barriers over uneven warps, and counter-example b
// (a launch bound that raises occupancy and spills).
#include "advice.h"

#include "../kcommon.cuh"

namespace advice {
namespace compute {

constexpr unsigned kBlock = 256;

// ---- seed 000's chains --------------------------------------------------------------------------------
constexpr int kIters = 1024;  // FMAs per element, four chains of 256
constexpr float kMulA = 0.999f, kAddA = 0.001f, kMulB = 0.998f, kAddB = 0.004f;
constexpr int kDistinct = 1021;  // distinct inputs: the check computes each chain once per value

// Four independent chains: one thread keeps the FMA pipe busy without help
// from other warps.  fmaf on both sides: the reference agrees bit for bit.
__host__ __device__ inline float runChains(float x, float mul, float add, int iters) {
  float a = x, b = x + 0.25f, c = x + 0.5f, d = x + 0.75f;
  for (int k = 0; k < iters; k += 4) {
    a = fmaf(a, mul, add);
    b = fmaf(b, mul, add);
    c = fmaf(c, mul, add);
    d = fmaf(d, mul, add);
  }
  return (a + b) + (c + d);
}
struct GenChainInput {
  __host__ __device__ float operator()(size_t i) const {
    return fmaf(static_cast<float>(i % kDistinct), 1.0f / 1024.0f, 0.5f);  // exact either way; fmaf says so
  }
};
__host__ __device__ inline float lightPath(float x) { return fmaf(x, 2.0f, 1.0f); }

// mysteryC: the chains on one element a thread.
__global__ void chain_fma(const float* __restrict__ in, float* __restrict__ out, size_t n, int iters) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  const float x = i < n ? in[i] : 0.0f;
  const float y = runChains(x, kMulA, kAddA, iters);
  if (i < n) out[i] = y;
}
// The same over a grid-stride loop, for any grid.
__global__ void chain_fma_gs(const float* __restrict__ in, float* __restrict__ out, size_t n, int iters) {
  const size_t step = gridDim.x * static_cast<size_t>(blockDim.x);
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += step)
    out[i] = runChains(in[i], kMulA, kAddA, iters);
}
// mysteryB: even and odd lanes run different chains, so every warp runs both.
__global__ void chain_parity(const float* __restrict__ in, float* __restrict__ out, size_t n, int iters) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  const float x = i < n ? in[i] : 0.0f;
  float y;
  if ((threadIdx.x & 1u) == 0u)
    y = runChains(x, kMulA, kAddA, iters);
  else
    y = runChains(x, kMulB, kAddB, iters);
  if (i < n) out[i] = y;
}
// The same work regrouped: in each 256-element block, threads 0-127 (warps
// 0-3) take the even elements and threads 128-255 the odd ones, so every
// warp takes one path.  Element i still takes path (i & 1).
__global__ void chain_parity_grouped(const float* __restrict__ in, float* __restrict__ out, size_t n, int iters) {
  const unsigned t = threadIdx.x, half = blockDim.x / 2;
  const unsigned e = t < half ? 2 * t : 2 * (t - half) + 1;
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + e;
  const float x = i < n ? in[i] : 0.0f;
  float y;
  if ((e & 1u) == 0u)
    y = runChains(x, kMulA, kAddA, iters);
  else
    y = runChains(x, kMulB, kAddB, iters);
  if (i < n) out[i] = y;
}
// Every fourth element needs the chains, the others one FMA: 8 lanes of each
// warp work through the chains while 24 wait.
__global__ void chain_quarter(const float* __restrict__ in, float* __restrict__ out, size_t n, int iters) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const float x = in[i];
  out[i] = (i & 3u) == 0u ? runChains(x, kMulA, kAddA, iters) : lightPath(x);
}
// Regrouped: in each 256-element block, threads 0-63 (two warps) take the 64
// heavy elements 4t, threads 64-255 the 192 others, in order.
__global__ void chain_quarter_grouped(const float* __restrict__ in, float* __restrict__ out, size_t n, int iters) {
  const unsigned t = threadIdx.x;
  unsigned e;
  if (t < 64) {
    e = 4 * t;
  } else {
    const unsigned k = t - 64;
    e = 4 * (k / 3) + 1 + k % 3;
  }
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + e;
  if (i >= n) return;
  const float x = in[i];
  out[i] = (e & 3u) == 0u ? runChains(x, kMulA, kAddA, iters) : lightPath(x);
}

enum ChainKind { kPlain, kPlainGs, kParity, kParityGrouped, kQuarter, kQuarterGrouped };
const void* chainFunc(ChainKind k) {
  switch (k) {
    case kPlain: return reinterpret_cast<const void*>(chain_fma);
    case kPlainGs: return reinterpret_cast<const void*>(chain_fma_gs);
    case kParity: return reinterpret_cast<const void*>(chain_parity);
    case kParityGrouped: return reinterpret_cast<const void*>(chain_parity_grouped);
    case kQuarter: return reinterpret_cast<const void*>(chain_quarter);
    default: return reinterpret_cast<const void*>(chain_quarter_grouped);
  }
}

// One configuration of a chain kernel: which kernel, block, grid (0: enough
// blocks for one element a thread; kResident: as many blocks as fit on the
// GPU at once), dynamic shared memory (kOneBlockPerSm: the reservation that
// leaves one block per SM).
struct ChainLaunch {
  ChainKind kind;
  unsigned block;
  unsigned grid;
  size_t dynSmem;
};
constexpr size_t kOneBlockPerSm = SIZE_MAX;
constexpr unsigned kResident = 0xFFFFFFFFu;

class ChainPair : public Pair {
  DevBuf<float> in_, out_;
  const size_t n_;
  ChainLaunch l_[2];
  std::vector<float> refA_, refB_;
  std::string note_;

 public:
  ChainPair(size_t n, ChainLaunch orig, ChainLaunch changed) : n_(n), l_{orig, changed} {}
  cudaError_t setup() override {
    for (ChainLaunch& l : l_) {
      if (l.dynSmem == kOneBlockPerSm) {
        ADV_TRY(kReserveOneBlockPerSm(chainFunc(l.kind), static_cast<int>(l.block), &l.dynSmem));
        note_ = "reserves " + std::to_string(l.dynSmem) + " B of dynamic shared memory it never uses (one block per SM)";
      }
      if (l.grid == 0) l.grid = kBlocksFor(n_, l.block);
      if (l.grid == kResident) ADV_TRY(residentGrid(chainFunc(l.kind), static_cast<int>(l.block), l.dynSmem, &l.grid));
    }
    ADV_TRY(in_.alloc(n_));
    ADV_TRY(out_.alloc(n_));
    refA_.resize(kDistinct);
    refB_.resize(kDistinct);
    const GenChainInput g;
    for (int d = 0; d < kDistinct; ++d) {
      refA_[d] = runChains(g(d), kMulA, kAddA, kIters);
      refB_[d] = runChains(g(d), kMulB, kAddB, kIters);
    }
    return fill(in_.get(), n_, g);
  }
  cudaError_t poison(int) override { return out_.poison(); }
  cudaError_t launch(int v) override {
    const ChainLaunch& l = l_[v];
    switch (l.kind) {
      case kPlain: chain_fma<<<l.grid, l.block, l.dynSmem>>>(in_.get(), out_.get(), n_, kIters); break;
      case kPlainGs: chain_fma_gs<<<l.grid, l.block, l.dynSmem>>>(in_.get(), out_.get(), n_, kIters); break;
      case kParity: chain_parity<<<l.grid, l.block, l.dynSmem>>>(in_.get(), out_.get(), n_, kIters); break;
      case kParityGrouped:
        chain_parity_grouped<<<l.grid, l.block, l.dynSmem>>>(in_.get(), out_.get(), n_, kIters);
        break;
      case kQuarter: chain_quarter<<<l.grid, l.block, l.dynSmem>>>(in_.get(), out_.get(), n_, kIters); break;
      case kQuarterGrouped:
        chain_quarter_grouped<<<l.grid, l.block, l.dynSmem>>>(in_.get(), out_.get(), n_, kIters);
        break;
    }
    return cudaGetLastError();
  }
  bool check(int v, std::string& why) override {
    const ChainKind k = l_[v].kind;
    const GenChainInput g;
    return checkDevice("out", out_,
                       [&](size_t i) {
                         const size_t d = i % kDistinct;
                         if (k == kParity || k == kParityGrouped) return (i & 1u) ? refB_[d] : refA_[d];
                         if (k == kQuarter || k == kQuarterGrouped) return (i & 3u) ? lightPath(g(i)) : refA_[d];
                         return refA_[d];
                       },
                       0, 1e-6, 1, why);
  }
  Shape shape(int v) const override { return {chainFunc(l_[v].kind), l_[v].block, l_[v].dynSmem, l_[v].grid}; }
  std::string note() const override { return note_; }
};

constexpr size_t k16M = size_t(16) << 20, k8M = size_t(8) << 20;
class DivergentParity : public ChainPair {
 public:
  DivergentParity() : ChainPair(k16M, {kParity, kBlock, 0, 0}, {kParityGrouped, kBlock, 0, 0}) {}
};
ADVICE_PAIR("divergent_parity", DivergentParity);
class DivergentQuarter : public ChainPair {
 public:
  DivergentQuarter() : ChainPair(k16M, {kQuarter, kBlock, 0, 0}, {kQuarterGrouped, kBlock, 0, 0}) {}
};
ADVICE_PAIR("divergent_quarter", DivergentQuarter);
class PartialWarps8 : public ChainPair {
 public:
  PartialWarps8() : ChainPair(k8M, {kPlain, 8, 0, 0}, {kPlain, kBlock, 0, 0}) {}
};
ADVICE_PAIR("partial_warps8", PartialWarps8);
class OccSmemFma : public ChainPair {
 public:
  OccSmemFma() : ChainPair(k16M, {kPlain, kBlock, 0, kOneBlockPerSm}, {kPlain, kBlock, 0, 0}) {}
};
ADVICE_PAIR("occ_smem_fma", OccSmemFma);
class FmaChainsBlock : public ChainPair {
 public:
  FmaChainsBlock() : ChainPair(k16M, {kPlain, kBlock, 0, 0}, {kPlain, 128, 0, 0}) {}
};
ADVICE_PAIR("fma_chains_block", FmaChainsBlock);
// Seed 000's own request: 48000 B it never reads.  On the H200 (228 KiB per
// SM) four such blocks still fit: 32 of 64 warps.
class FmaSmem48000 : public ChainPair {
 public:
  FmaSmem48000() : ChainPair(k16M, {kPlain, kBlock, 0, 48000}, {kPlain, kBlock, 0, 0}) {}
};
ADVICE_PAIR("fma_smem48000", FmaSmem48000);
// grid_small_fma: 64 blocks (half the SMs, one block each) over a grid-stride
// loop, against the grid that fills every SM.
class GridSmallFma : public ChainPair {
 public:
  GridSmallFma() : ChainPair(k8M, {kPlainGs, kBlock, 64, 0}, {kPlainGs, kBlock, kResident, 0}) {}
};
ADVICE_PAIR("grid_small_fma", GridSmallFma);

// ---- sfu_recurrence: sum of sin(k x), k = 1..64 --------------------------------------------------------
// The original calls __sinf 64 times (MUFU.SIN on the XU pipe, 16 lanes a
// clock per SM: an eighth of the issue rate).  The change computes sin(k x)
// by the recurrence sin((k+1)x) = 2 cos(x) sin(kx) - sin((k-1)x): one FMA a
// term, one __sincosf in all.  x in [0.5, 2.5] keeps the recurrence stable.
constexpr int kSfuTerms = 64;
constexpr size_t kSfuN = size_t(16) << 20;
__global__ void sin_sum_mufu(const float* __restrict__ in, float* __restrict__ out, size_t n) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const float x = in[i];
  float s = 0.0f;
#pragma unroll 8
  for (int k = 1; k <= kSfuTerms; ++k) s += __sinf(x * static_cast<float>(k));
  out[i] = s;
}
__global__ void sin_sum_recurrence(const float* __restrict__ in, float* __restrict__ out, size_t n) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const float x = in[i];
  float sn, cs;
  __sincosf(x, &sn, &cs);
  const float twoC = 2.0f * cs;
  float prev = 0.0f, cur = sn, s = 0.0f;
#pragma unroll 8
  for (int k = 1; k <= kSfuTerms; ++k) {
    s += cur;
    const float nxt = fmaf(twoC, cur, -prev);
    prev = cur;
    cur = nxt;
  }
  out[i] = s;
}

class SfuRecurrence : public Pair {
  DevBuf<float> in_, out_;
  const GenUniform g_{307, 0.5f, 2.0f};

 public:
  cudaError_t setup() override {
    ADV_TRY(in_.alloc(kSfuN));
    ADV_TRY(out_.alloc(kSfuN));
    return fill(in_.get(), kSfuN, g_);
  }
  cudaError_t poison(int) override { return out_.poison(); }
  cudaError_t launch(int v) override {
    if (v == kOrig)
      sin_sum_mufu<<<kBlocksFor(kSfuN, kBlock), kBlock>>>(in_.get(), out_.get(), kSfuN);
    else
      sin_sum_recurrence<<<kBlocksFor(kSfuN, kBlock), kBlock>>>(in_.get(), out_.get(), kSfuN);
    return cudaGetLastError();
  }
  bool check(int, std::string& why) override {
    // Against the sum in double: both variants approximate it (__sinf's
    // argument scaling, the recurrence's rounding), within 1e-2 absolute on
    // sums of magnitude below 4.1.
    return checkDevice("out", out_,
                       [&](size_t i) {
                         const double x = g_(i);
                         double s = 0.0;
                         for (int k = 1; k <= kSfuTerms; ++k) s += std::sin(x * k);
                         return static_cast<float>(s);
                       },
                       1e-2, 0, 3, why);
  }
  Shape shape(int v) const override {
    return {v == kOrig ? reinterpret_cast<const void*>(sin_sum_mufu)
                       : reinterpret_cast<const void*>(sin_sum_recurrence),
            kBlock, 0, kBlocksFor(kSfuN, kBlock)};
  }
};
ADVICE_PAIR("sfu_recurrence", SfuRecurrence);

// ---- spill_ring: a 32-tap FIR filter over a ring buffer ----------------------------------------------------
// Each thread filters one stream (sample j of stream s at j * kRingS + s:
// coalesced across threads) through a 32-entry ring of its last samples.  The
// original indexes the ring with (j - k) & 31, a value known only at run
// time, so the ring lives in local memory (128 B a thread; at 2048 threads an
// SM that is more than L1 holds).  The change unrolls the sample loop by 32,
// which makes every index a constant: the ring lives in registers.  The FMAs
// and their order are the same.
constexpr int kTaps = 32;
constexpr int kRingS = 1 << 19;  // streams: 2048 blocks
constexpr int kRingL = 128;      // samples a stream: 256 MiB in, 256 MiB out
__constant__ float cTaps[kTaps];

__global__ void fir_ring_local(const float* __restrict__ x, float* __restrict__ y) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  float win[kTaps];
#pragma unroll
  for (int k = 0; k < kTaps; ++k) win[k] = 0.0f;
#pragma unroll 1
  for (int j = 0; j < kRingL; ++j) {
    win[j & (kTaps - 1)] = x[static_cast<size_t>(j) * kRingS + s];
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < kTaps; ++k) acc = fmaf(cTaps[k], win[(j - k) & (kTaps - 1)], acc);
    y[static_cast<size_t>(j) * kRingS + s] = acc;
  }
}
__global__ void fir_ring_registers(const float* __restrict__ x, float* __restrict__ y) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  float win[kTaps];
#pragma unroll
  for (int k = 0; k < kTaps; ++k) win[k] = 0.0f;
#pragma unroll 1
  for (int j0 = 0; j0 < kRingL; j0 += kTaps) {
#pragma unroll
    for (int u = 0; u < kTaps; ++u) {
      const int j = j0 + u;
      win[u] = x[static_cast<size_t>(j) * kRingS + s];
      float acc = 0.0f;
#pragma unroll
      for (int k = 0; k < kTaps; ++k) acc = fmaf(cTaps[k], win[(u - k) & (kTaps - 1)], acc);
      y[static_cast<size_t>(j) * kRingS + s] = acc;
    }
  }
}

class SpillRing : public Pair {
  DevBuf<float> x_, y_;
  const GenUniform g_{311, -1.0f, 2.0f};
  float taps_[kTaps];

 public:
  cudaError_t setup() override {
    for (int k = 0; k < kTaps; ++k) taps_[k] = 1.0f / static_cast<float>(k + 2);
    ADV_TRY(cudaMemcpyToSymbol(cTaps, taps_, sizeof taps_));
    ADV_TRY(x_.alloc(size_t(kRingS) * kRingL));
    ADV_TRY(y_.alloc(size_t(kRingS) * kRingL));
    return fill(x_.get(), x_.size(), g_);
  }
  cudaError_t poison(int) override { return y_.poison(); }
  cudaError_t launch(int v) override {
    if (v == kOrig)
      fir_ring_local<<<kRingS / kBlock, kBlock>>>(x_.get(), y_.get());
    else
      fir_ring_registers<<<kRingS / kBlock, kBlock>>>(x_.get(), y_.get());
    return cudaGetLastError();
  }
  bool check(int, std::string& why) override {
    std::vector<float> h;
    cudaError_t e = y_.toHost(h);
    if (e != cudaSuccess) {
      why = std::string("copy failed: ") + cudaGetErrorString(e);
      return false;
    }
    // Every 13th stream in full, the same FMAs in the same order.
    std::atomic<size_t> bad{SIZE_MAX};
    std::atomic<float> wantBad{0.0f};
    const size_t streams = (kRingS + 12) / 13;
    parallelFor(streams, [&](size_t b, size_t end) {
      for (size_t q = b; q < end; ++q) {
        const size_t s = q * 13;
        float win[kTaps] = {};
        for (int j = 0; j < kRingL; ++j) {
          win[j & (kTaps - 1)] = g_(static_cast<size_t>(j) * kRingS + s);
          float acc = 0.0f;
          for (int k = 0; k < kTaps; ++k) acc = std::fmaf(taps_[k], win[(j - k) & (kTaps - 1)], acc);
          const size_t i = static_cast<size_t>(j) * kRingS + s;
          if (std::memcmp(&h[i], &acc, sizeof acc) != 0) {
            size_t cur = bad.load();
            while (i < cur && !bad.compare_exchange_weak(cur, i)) {
            }
            if (bad.load() == i) wantBad = acc;
            return;
          }
        }
      }
    });
    if (bad.load() == SIZE_MAX) return true;
    why = "y: index " + std::to_string(bad.load()) + ": got " + fmtValue(h[bad.load()]) + ", want " +
          fmtValue(wantBad.load());
    return false;
  }
  Shape shape(int v) const override {
    return {v == kOrig ? reinterpret_cast<const void*>(fir_ring_local)
                       : reinterpret_cast<const void*>(fir_ring_registers),
            kBlock, 0, kRingS / kBlock};
  }
};
ADVICE_PAIR("spill_ring", SpillRing);

// ---- spill_bubble: each thread sorts 32 floats --------------------------------------------------------------
// Bubble sort with fixed trip counts.  The original keeps the loops rolled
// (`#pragma unroll 1`), so a[j] has a run-time index and the array lives in
// local memory; the change unrolls both loops, every index is a constant and
// the array lives in registers (a sorting network of fminf/fmaxf).
constexpr int kSortLen = 32;
constexpr int kSortT = 1 << 21;  // threads: 64M floats, 256 MiB in, 256 MiB out
template <bool kUnrolled>
__global__ void sort32(const float* __restrict__ in, float* __restrict__ out) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  float a[kSortLen];
#pragma unroll
  for (int k = 0; k < kSortLen; ++k) a[k] = in[static_cast<size_t>(k) * kSortT + t];
  if (kUnrolled) {
#pragma unroll
    for (int i = 0; i < kSortLen - 1; ++i)
#pragma unroll
      for (int j = 0; j < kSortLen - 1 - i; ++j) {
        const float lo = fminf(a[j], a[j + 1]), hi = fmaxf(a[j], a[j + 1]);
        a[j] = lo;
        a[j + 1] = hi;
      }
  } else {
#pragma unroll 1
    for (int i = 0; i < kSortLen - 1; ++i)
#pragma unroll 1
      for (int j = 0; j < kSortLen - 1 - i; ++j) {
        const float lo = fminf(a[j], a[j + 1]), hi = fmaxf(a[j], a[j + 1]);
        a[j] = lo;
        a[j + 1] = hi;
      }
  }
#pragma unroll
  for (int k = 0; k < kSortLen; ++k) out[static_cast<size_t>(k) * kSortT + t] = a[k];
}

class SpillBubble : public Pair {
  DevBuf<float> in_, out_;
  const GenSmallInt g_{313, 0, 1000};

 public:
  cudaError_t setup() override {
    ADV_TRY(in_.alloc(size_t(kSortT) * kSortLen));
    ADV_TRY(out_.alloc(size_t(kSortT) * kSortLen));
    return fill(in_.get(), in_.size(), g_);
  }
  cudaError_t poison(int) override { return out_.poison(); }
  cudaError_t launch(int v) override {
    if (v == kOrig)
      sort32<false><<<kSortT / kBlock, kBlock>>>(in_.get(), out_.get());
    else
      sort32<true><<<kSortT / kBlock, kBlock>>>(in_.get(), out_.get());
    return cudaGetLastError();
  }
  bool check(int, std::string& why) override {
    std::vector<float> h;
    cudaError_t e = out_.toHost(h);
    if (e != cudaSuccess) {
      why = std::string("copy failed: ") + cudaGetErrorString(e);
      return false;
    }
    std::atomic<size_t> bad{SIZE_MAX};
    parallelFor(kSortT, [&](size_t b, size_t end) {
      for (size_t t = b; t < end; ++t) {
        float a[kSortLen];
        for (int k = 0; k < kSortLen; ++k) a[k] = g_(static_cast<size_t>(k) * kSortT + t);
        std::sort(a, a + kSortLen);
        for (int k = 0; k < kSortLen; ++k) {
          const size_t i = static_cast<size_t>(k) * kSortT + t;
          if (!(h[i] == a[k])) {
            size_t cur = bad.load();
            while (t < cur && !bad.compare_exchange_weak(cur, t)) {
            }
            return;
          }
        }
      }
    });
    if (bad.load() == SIZE_MAX) return true;
    why = "out: thread " + std::to_string(bad.load()) + "'s 32 values are not its inputs in ascending order";
    return false;
  }
  Shape shape(int v) const override {
    return {v == kOrig ? reinterpret_cast<const void*>(sort32<false>) : reinterpret_cast<const void*>(sort32<true>),
            kBlock, 0, kSortT / kBlock};
  }
};
ADVICE_PAIR("spill_bubble", SpillBubble);

// ---- barrier_uneven: a __syncthreads per iteration over warps with uneven work --------------------------------
// Each warp follows its own chain through a 16 MiB table in L2 (all 32 lanes
// read the same entry: one sector a step): per iteration 1 step, or 16 for one
// iteration in eight (warp-uniform, so no divergence).  The original ends
// every iteration with a __syncthreads although the warps share nothing, so
// each iteration costs the slowest of the block's 32 warps; the change drops
// it.  The result is the same: nothing is shared.
constexpr int kChaseIters = 256;
constexpr uint32_t kChaseM = 1u << 22;  // entries: 16 MiB
__host__ __device__ inline uint32_t chaseNext(uint32_t i) { return hashAt(i, 0x3e57u) & (kChaseM - 1); }
__host__ __device__ inline int chaseSteps(uint32_t warp, int it) {
  return (hashAt(static_cast<size_t>(warp) * kChaseIters + it, 0x77u) & 7u) == 0 ? 16 : 1;
}
struct GenChase {
  __host__ __device__ uint32_t operator()(size_t i) const { return chaseNext(static_cast<uint32_t>(i)); }
};
template <bool kBarrier>
__global__ void __launch_bounds__(1024) chase_uneven(const uint32_t* __restrict__ next, uint32_t* __restrict__ out) {
  const uint32_t gt = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t warp = gt >> 5, lane = gt & 31u;
  uint32_t idx = hashAt(warp, 0x51u) & (kChaseM - 1);
  uint32_t acc = 0;
  for (int it = 0; it < kChaseIters; ++it) {
    const int steps = chaseSteps(warp, it);
    for (int s = 0; s < steps; ++s) idx = next[idx];
    acc += idx ^ lane;
    if (kBarrier) __syncthreads();
  }
  out[gt] = acc;
}

class BarrierUneven : public Pair {
  DevBuf<uint32_t> next_, out_;
  unsigned grid_ = 0;

 public:
  cudaError_t setup() override {
    ADV_TRY(residentGrid(reinterpret_cast<const void*>(chase_uneven<false>), 1024, 0, &grid_));
    ADV_TRY(next_.alloc(kChaseM));
    ADV_TRY(out_.alloc(size_t(grid_) * 1024));
    return fill(next_.get(), kChaseM, GenChase{});
  }
  cudaError_t poison(int) override { return out_.poison(); }
  cudaError_t launch(int v) override {
    if (v == kOrig)
      chase_uneven<true><<<grid_, 1024>>>(next_.get(), out_.get());
    else
      chase_uneven<false><<<grid_, 1024>>>(next_.get(), out_.get());
    return cudaGetLastError();
  }
  bool check(int, std::string& why) override {
    return checkDevice("out", out_,
                       [&](size_t gt) {
                         const uint32_t warp = static_cast<uint32_t>(gt >> 5), lane = gt & 31u;
                         uint32_t idx = hashAt(warp, 0x51u) & (kChaseM - 1), acc = 0;
                         for (int it = 0; it < kChaseIters; ++it) {
                           for (int s = chaseSteps(warp, it); s > 0; --s) idx = chaseNext(idx);
                           acc += idx ^ lane;
                         }
                         return acc;
                       },
                       0, 0, 1, why);
  }
  Shape shape(int v) const override {
    return {v == kOrig ? reinterpret_cast<const void*>(chase_uneven<true>)
                       : reinterpret_cast<const void*>(chase_uneven<false>),
            1024, 0, grid_};
  }
};
ADVICE_PAIR("barrier_uneven", BarrierUneven);

// ---- launch_bounds_spill (counter-example b): a launch bound that raises occupancy and spills ------------------
// Seed 000's chains, 32 of them a thread instead of 4 (32 steps of 32
// independent FMAs: 1024 a thread).  Without a bound ptxas gives it 39
// registers: six 256-thread blocks an SM, 75% occupancy, registers the limit,
// and the FMA pipe is busy from the chains alone.  __launch_bounds__(256, 8)
// buys 100% occupancy with at most 32 registers, fewer than the 32 chains
// need: ptxas spills chains to local memory inside the step loop.
constexpr int kWide = 32;
constexpr int kWideSteps = 32;
constexpr float kWideMul = 0.999f, kWideAdd = 0.001f;
__host__ __device__ inline float wideInit(float x, int k) { return x + 0.03125f * static_cast<float>(k); }
template <int kMinBlocks>
__global__ void __launch_bounds__(256, kMinBlocks)
    chains_wide(const float* __restrict__ in, float* __restrict__ out, size_t n, int steps) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  const float x = i < n ? in[i] : 0.0f;
  float c[kWide];
#pragma unroll
  for (int k = 0; k < kWide; ++k) c[k] = wideInit(x, k);
#pragma unroll 1
  for (int s = 0; s < steps; ++s) {
#pragma unroll
    for (int k = 0; k < kWide; ++k) c[k] = fmaf(c[k], kWideMul, kWideAdd);
  }
  float t = 0.0f;
#pragma unroll
  for (int k = 0; k < kWide; ++k) t += c[k];
  if (i < n) out[i] = t;
}

class LaunchBoundsSpill : public Pair {
  DevBuf<float> in_, out_;
  std::vector<float> ref_;

 public:
  cudaError_t setup() override {
    ADV_TRY(in_.alloc(k16M));
    ADV_TRY(out_.alloc(k16M));
    const GenChainInput g;
    ref_.resize(kDistinct);
    for (int d = 0; d < kDistinct; ++d) {
      float c[kWide];
      for (int k = 0; k < kWide; ++k) c[k] = wideInit(g(d), k);
      for (int s = 0; s < kWideSteps; ++s)
        for (int k = 0; k < kWide; ++k) c[k] = std::fmaf(c[k], kWideMul, kWideAdd);
      float t = 0.0f;
      for (int k = 0; k < kWide; ++k) t += c[k];
      ref_[d] = t;
    }
    return fill(in_.get(), k16M, g);
  }
  cudaError_t poison(int) override { return out_.poison(); }
  cudaError_t launch(int v) override {
    const unsigned grid = kBlocksFor(k16M, kBlock);
    if (v == kOrig)
      chains_wide<1><<<grid, kBlock>>>(in_.get(), out_.get(), k16M, kWideSteps);
    else
      chains_wide<8><<<grid, kBlock>>>(in_.get(), out_.get(), k16M, kWideSteps);
    return cudaGetLastError();
  }
  bool check(int, std::string& why) override {
    return checkDevice("out", out_, [&](size_t i) { return ref_[i % kDistinct]; }, 0, 1e-6, 1, why);
  }
  Shape shape(int v) const override {
    return {v == kOrig ? reinterpret_cast<const void*>(chains_wide<1>) : reinterpret_cast<const void*>(chains_wide<8>),
            kBlock, 0, kBlocksFor(k16M, kBlock)};
  }
};
ADVICE_PAIR("launch_bounds_spill", LaunchBoundsSpill);

}  // namespace compute
}  // namespace advice
