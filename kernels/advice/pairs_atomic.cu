// pairs_atomic.cu: global atomics on few addresses (a 16-bin and a 256-bin
// histogram, a float sum), each against the same loop with the updates
// aggregated first (per warp in registers, per block in shared memory).  Both
// variants of a pair run the same grid-stride loop on the same grid.
#include "advice.h"

#include "../kcommon.cuh"

namespace advice {
namespace atomic {

constexpr unsigned kBlock = 256;

// ---- atomic_hist16: 16 bins ---------------------------------------------------------------------
constexpr size_t kH16N = size_t(32) << 20;  // 32M values: 128 MiB
constexpr int kH16Bins = 16;

__global__ void hist16_global(const uint32_t* __restrict__ in, unsigned* bins, size_t n) {
  const size_t step = gridDim.x * static_cast<size_t>(blockDim.x);
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += step)
    atomicAdd(&bins[in[i] & (kH16Bins - 1)], 1u);
}
// Each thread counts in 16 registers (constant indices: a compare and an add
// per bin), then each warp sums every bin over its lanes and lane 0 adds the
// 16 totals: one atomic per bin per warp instead of one per element.
__global__ void hist16_warp(const uint32_t* __restrict__ in, unsigned* bins, size_t n) {
  unsigned cnt[kH16Bins];
#pragma unroll
  for (int b = 0; b < kH16Bins; ++b) cnt[b] = 0;
  const size_t step = gridDim.x * static_cast<size_t>(blockDim.x);
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += step) {
    const unsigned v = in[i] & (kH16Bins - 1);
#pragma unroll
    for (int b = 0; b < kH16Bins; ++b) cnt[b] += v == static_cast<unsigned>(b) ? 1u : 0u;
  }
#pragma unroll
  for (int b = 0; b < kH16Bins; ++b) {
    const unsigned total = __reduce_add_sync(0xffffffffu, cnt[b]);
    if ((threadIdx.x & 31u) == 0 && total != 0) atomicAdd(&bins[b], total);
  }
}

// Counts of f(i) over i < n on the host, in parallel.
template <class F>
std::vector<unsigned long long> hostHistogram(size_t n, int bins, F&& binOf) {
  std::vector<std::atomic<unsigned long long>> acc(bins);
  for (auto& a : acc) a = 0;
  parallelFor(n, [&](size_t b, size_t e) {
    std::vector<unsigned long long> local(bins, 0);
    for (size_t i = b; i < e; ++i) ++local[binOf(i)];
    for (int k = 0; k < bins; ++k) acc[k] += local[k];
  });
  std::vector<unsigned long long> out(bins);
  for (int k = 0; k < bins; ++k) out[k] = acc[k];
  return out;
}

class Histogram : public Pair {
 protected:
  DevBuf<uint32_t> in_;
  DevBuf<unsigned> bins_;
  const GenU32 g_;
  const size_t n_;
  const int nbins_;
  unsigned grid_ = 0;
  const void* func_[2];

 public:
  Histogram(uint32_t seed, size_t n, int nbins, const void* orig, const void* changed)
      : g_{seed}, n_(n), nbins_(nbins), func_{orig, changed} {}
  virtual unsigned binOf(uint32_t v) const = 0;
  cudaError_t setup() override {
    ADV_TRY(residentGrid(func_[kChanged], kBlock, 0, &grid_));
    ADV_TRY(in_.alloc(n_));
    ADV_TRY(bins_.alloc(nbins_));
    return fill(in_.get(), n_, g_);
  }
  cudaError_t poison(int) override { return cudaSuccess; }  // prepare() zeroes the bins before every launch
  cudaError_t prepare(int) override { return bins_.zero(); }
  bool check(int, std::string& why) override {
    const std::vector<unsigned long long> want = hostHistogram(n_, nbins_, [&](size_t i) { return binOf(g_(i)); });
    return checkDevice("bins", bins_, [&](size_t b) { return static_cast<unsigned>(want[b]); }, 0, 0, 1, why);
  }
  Shape shape(int v) const override { return {func_[v], kBlock, 0, grid_}; }
};

class AtomicHist16 : public Histogram {
 public:
  AtomicHist16()
      : Histogram(401, kH16N, kH16Bins, reinterpret_cast<const void*>(hist16_global),
                  reinterpret_cast<const void*>(hist16_warp)) {}
  unsigned binOf(uint32_t v) const override { return v & (kH16Bins - 1); }
  cudaError_t launch(int v) override {
    if (v == kOrig)
      hist16_global<<<grid_, kBlock>>>(in_.get(), bins_.get(), n_);
    else
      hist16_warp<<<grid_, kBlock>>>(in_.get(), bins_.get(), n_);
    return cudaGetLastError();
  }
};
ADVICE_PAIR("atomic_hist16", AtomicHist16);

// ---- hist256_privatize: 256 bins, privatized per block in shared memory ---------------------------
constexpr size_t kH256N = size_t(64) << 20;  // 64M values: 256 MiB
__global__ void hist256_global(const uint32_t* __restrict__ in, unsigned* bins, size_t n) {
  const size_t step = gridDim.x * static_cast<size_t>(blockDim.x);
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += step)
    atomicAdd(&bins[in[i] >> 24], 1u);
}
__global__ void hist256_shared(const uint32_t* __restrict__ in, unsigned* bins, size_t n) {
  __shared__ unsigned local[256];
  for (unsigned b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
  __syncthreads();
  const size_t step = gridDim.x * static_cast<size_t>(blockDim.x);
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += step)
    atomicAdd(&local[in[i] >> 24], 1u);
  __syncthreads();
  for (unsigned b = threadIdx.x; b < 256; b += blockDim.x)
    if (local[b] != 0) atomicAdd(&bins[b], local[b]);
}

class Hist256Privatize : public Histogram {
 public:
  Hist256Privatize()
      : Histogram(409, kH256N, 256, reinterpret_cast<const void*>(hist256_global),
                  reinterpret_cast<const void*>(hist256_shared)) {}
  unsigned binOf(uint32_t v) const override { return v >> 24; }
  cudaError_t launch(int v) override {
    if (v == kOrig)
      hist256_global<<<grid_, kBlock>>>(in_.get(), bins_.get(), n_);
    else
      hist256_shared<<<grid_, kBlock>>>(in_.get(), bins_.get(), n_);
    return cudaGetLastError();
  }
};
ADVICE_PAIR("hist256_privatize", Hist256Privatize);

// ---- reduce_atomic: a float sum ----------------------------------------------------------------------
// Values 0 or 1 and fewer than 2^24 of them: every partial sum is an integer
// below 2^24, exact in any order, so both variants give the same float.
constexpr size_t kRaN = size_t(4) << 20;
__global__ void sum_atomic_each(const float* __restrict__ in, float* sum, size_t n) {
  const size_t step = gridDim.x * static_cast<size_t>(blockDim.x);
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += step) atomicAdd(sum, in[i]);
}
__global__ void sum_warp_shuffle(const float* __restrict__ in, float* sum, size_t n) {
  const size_t step = gridDim.x * static_cast<size_t>(blockDim.x);
  float s = 0.0f;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += step) s += in[i];
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  if ((threadIdx.x & 31u) == 0) atomicAdd(sum, s);
}

class ReduceAtomic : public Pair {
  DevBuf<float> in_, sum_;
  const GenSmallInt g_{419, 0, 2};
  unsigned grid_ = 0;

 public:
  cudaError_t setup() override {
    ADV_TRY(residentGrid(reinterpret_cast<const void*>(sum_warp_shuffle), kBlock, 0, &grid_));
    ADV_TRY(in_.alloc(kRaN));
    ADV_TRY(sum_.alloc(1));
    return fill(in_.get(), kRaN, g_);
  }
  cudaError_t poison(int) override { return cudaSuccess; }  // prepare() zeroes the sum
  cudaError_t prepare(int) override { return sum_.zero(); }
  cudaError_t launch(int v) override {
    if (v == kOrig)
      sum_atomic_each<<<grid_, kBlock>>>(in_.get(), sum_.get(), kRaN);
    else
      sum_warp_shuffle<<<grid_, kBlock>>>(in_.get(), sum_.get(), kRaN);
    return cudaGetLastError();
  }
  bool check(int, std::string& why) override {
    const std::vector<unsigned long long> ones = hostHistogram(kRaN, 2, [&](size_t i) { return g_(i) != 0.0f ? 1 : 0; });
    return checkDevice("sum", sum_, [&](size_t) { return static_cast<float>(ones[1]); }, 0, 0, 1, why);
  }
  Shape shape(int v) const override {
    return {v == kOrig ? reinterpret_cast<const void*>(sum_atomic_each)
                       : reinterpret_cast<const void*>(sum_warp_shuffle),
            kBlock, 0, grid_};
  }
};
ADVICE_PAIR("reduce_atomic", ReduceAtomic);

}  // namespace atomic
}  // namespace advice
