// pairs_shared.cu: pairs about shared memory: transposes (coalescing through
// a shared tile, bank conflicts), a row-per-thread layout, the textbook tiled
// matrix multiply (at the shared-memory roof), a block tree reduction, and
// two of seed 000's counter-examples (a stencil staged through shared memory,
// the occupancy API's block size for a block-wide scan).
#include "advice.h"

#include "../kcommon.cuh"

namespace advice {
namespace shmem {

// ---- transposes: transpose_ld, transpose_st, smem_transpose_pad ----------------------------------------
constexpr int kTD = 8192;  // 8192 x 8192 floats: 256 MiB per matrix
constexpr size_t kTN = size_t(kTD) * kTD;
constexpr int kTile = 32, kTileRows = 8;

// out = in^T, one element a thread, 256 threads along a row of out: the
// stores are coalesced, each lane's load is 8192 floats from its neighbour's.
__global__ void transpose_read_strided(const float* __restrict__ in, float* __restrict__ out) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;  // column of out = row of in
  const int r = blockIdx.y;                              // row of out = column of in
  out[static_cast<size_t>(r) * kTD + c] = in[static_cast<size_t>(c) * kTD + r];
}
// The same along a row of in: coalesced loads, strided stores.
__global__ void transpose_write_strided(const float* __restrict__ in, float* __restrict__ out) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;  // column of in
  const int r = blockIdx.y;                              // row of in
  out[static_cast<size_t>(c) * kTD + r] = in[static_cast<size_t>(r) * kTD + c];
}
// Through a 32 x 32 shared tile (32 x 8 threads): rows in, columns out, both
// coalesced.  kPad = 0: a warp reads one column of the tile, 32 floats 128 B
// apart in one bank (a 32-way conflict on every shared load); kPad = 1 shifts
// each row by a bank.
template <int kPad>
__global__ void transpose_tile(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float tile[kTile][kTile + kPad];
  const int tx = threadIdx.x, ty = threadIdx.y;
  int x = blockIdx.x * kTile + tx, y = blockIdx.y * kTile + ty;
  for (int j = 0; j < kTile; j += kTileRows) tile[ty + j][tx] = in[static_cast<size_t>(y + j) * kTD + x];
  __syncthreads();
  x = blockIdx.y * kTile + tx;
  y = blockIdx.x * kTile + ty;
  for (int j = 0; j < kTile; j += kTileRows) out[static_cast<size_t>(y + j) * kTD + x] = tile[tx][ty + j];
}

enum TransposeKind { kReadStrided, kWriteStrided, kTileConflicts, kTilePadded };

class Transpose : public Pair {
  DevBuf<float> in_, out_;
  const GenUniform g_{211, -100.0f, 200.0f};
  const TransposeKind kind_[2];

 public:
  Transpose(TransposeKind orig, TransposeKind changed) : kind_{orig, changed} {}
  cudaError_t setup() override {
    ADV_TRY(in_.alloc(kTN));
    ADV_TRY(out_.alloc(kTN));
    return fill(in_.get(), kTN, g_);
  }
  cudaError_t poison(int) override { return out_.poison(); }
  cudaError_t launch(int v) override {
    switch (kind_[v]) {
      case kReadStrided: transpose_read_strided<<<dim3(kTD / 256, kTD), 256>>>(in_.get(), out_.get()); break;
      case kWriteStrided: transpose_write_strided<<<dim3(kTD / 256, kTD), 256>>>(in_.get(), out_.get()); break;
      case kTileConflicts:
        transpose_tile<0><<<dim3(kTD / kTile, kTD / kTile), dim3(kTile, kTileRows)>>>(in_.get(), out_.get());
        break;
      case kTilePadded:
        transpose_tile<1><<<dim3(kTD / kTile, kTD / kTile), dim3(kTile, kTileRows)>>>(in_.get(), out_.get());
        break;
    }
    return cudaGetLastError();
  }
  bool check(int, std::string& why) override {
    // out[r][c] = in[c][r]
    return checkDevice("out", out_, [&](size_t j) { return g_((j % kTD) * kTD + j / kTD); }, 0, 0, 1, why);
  }
  Shape shape(int v) const override {
    switch (kind_[v]) {
      case kReadStrided: return {reinterpret_cast<const void*>(transpose_read_strided), 256, 0, (kTD / 256ull) * kTD};
      case kWriteStrided: return {reinterpret_cast<const void*>(transpose_write_strided), 256, 0, (kTD / 256ull) * kTD};
      case kTileConflicts:
        return {reinterpret_cast<const void*>(transpose_tile<0>), kTile * kTileRows, 0,
                (kTD / kTile) * static_cast<unsigned long long>(kTD / kTile)};
      default:
        return {reinterpret_cast<const void*>(transpose_tile<1>), kTile * kTileRows, 0,
                (kTD / kTile) * static_cast<unsigned long long>(kTD / kTile)};
    }
  }
};
class TransposeLd : public Transpose {
 public:
  TransposeLd() : Transpose(kReadStrided, kTilePadded) {}
};
ADVICE_PAIR("transpose_ld", TransposeLd);
class TransposeSt : public Transpose {
 public:
  TransposeSt() : Transpose(kWriteStrided, kTilePadded) {}
};
ADVICE_PAIR("transpose_st", TransposeSt);
class SmemTransposePad : public Transpose {
 public:
  SmemTransposePad() : Transpose(kTileConflicts, kTilePadded) {}
};
ADVICE_PAIR("smem_transpose_pad", SmemTransposePad);

// ---- smem_rows_pad: each thread reads its own row of a shared tile ----------------------------------------
// A block stages 256 rows of 32 floats (coalesced: 32 KiB) and each thread
// takes the dot product of its row with w.  Row stride 32: at every k the 32
// lanes of a warp read 32 addresses 128 B apart, all in bank k (a 32-way
// conflict); stride 33 puts lane t's element in bank (t + k) mod 32.
constexpr int kRowsLen = 32;
constexpr size_t kRowsN = size_t(2) << 20;  // 2M rows of 32 floats: 256 MiB
__constant__ float cRowW[kRowsLen];

template <int kStride>
__global__ void __launch_bounds__(256) row_dot(const float* __restrict__ m, float* __restrict__ out) {
  __shared__ float rows[256 * kStride];
  const unsigned t = threadIdx.x;
  const size_t base = static_cast<size_t>(blockIdx.x) * 256 * kRowsLen;
#pragma unroll 4
  for (int j = 0; j < kRowsLen; ++j) {
    const unsigned e = j * 256 + t;  // element e of the block's 8192: row e / 32, column e % 32
    rows[(e / kRowsLen) * kStride + e % kRowsLen] = m[base + e];
  }
  __syncthreads();
  float acc = 0.0f;
#pragma unroll
  for (int k = 0; k < kRowsLen; ++k) acc = fmaf(rows[t * kStride + k], cRowW[k], acc);
  out[static_cast<size_t>(blockIdx.x) * 256 + t] = acc;
}

class SmemRowsPad : public Pair {
  DevBuf<float> m_, out_;
  const GenSmallInt g_{223, -8, 17};
  float w_[kRowsLen];

 public:
  cudaError_t setup() override {
    for (int k = 0; k < kRowsLen; ++k) w_[k] = static_cast<float>(k % 7 - 3);
    ADV_TRY(cudaMemcpyToSymbol(cRowW, w_, sizeof w_));
    ADV_TRY(m_.alloc(kRowsN * kRowsLen));
    ADV_TRY(out_.alloc(kRowsN));
    return fill(m_.get(), m_.size(), g_);
  }
  cudaError_t poison(int) override { return out_.poison(); }
  cudaError_t launch(int v) override {
    const unsigned grid = static_cast<unsigned>(kRowsN / 256);
    if (v == kOrig)
      row_dot<kRowsLen><<<grid, 256>>>(m_.get(), out_.get());
    else
      row_dot<kRowsLen + 1><<<grid, 256>>>(m_.get(), out_.get());
    return cudaGetLastError();
  }
  bool check(int, std::string& why) override {
    return checkDevice("out", out_,
                       [&](size_t r) {
                         float acc = 0.0f;
                         for (int k = 0; k < kRowsLen; ++k) acc = std::fmaf(g_(r * kRowsLen + k), w_[k], acc);
                         return acc;
                       },
                       0, 0, 1, why);
  }
  Shape shape(int v) const override {
    return {v == kOrig ? reinterpret_cast<const void*>(row_dot<kRowsLen>)
                       : reinterpret_cast<const void*>(row_dot<kRowsLen + 1>),
            256, 0, kRowsN / 256};
  }
};
ADVICE_PAIR("smem_rows_pad", SmemRowsPad);

// ---- smem_matmul_tile16: the textbook tiled multiply, at the shared-memory roof ---------------------------
// One output a thread, kT x kT tiles: every FMA reads one operand from each
// tile, so shared memory, not DRAM or the FMA pipe, is the limit whatever kT.
constexpr int kMmN = 2048;
template <int kT>
__global__ void smem_matmul(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c) {
  __shared__ float as[kT][kT];
  __shared__ float bs[kT][kT];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kT + ty, col = blockIdx.x * kT + tx;
  float acc = 0.0f;
  for (int t = 0; t < kMmN; t += kT) {
    as[ty][tx] = a[static_cast<size_t>(row) * kMmN + t + tx];
    bs[ty][tx] = b[static_cast<size_t>(t + ty) * kMmN + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kT; ++k) acc = fmaf(as[ty][k], bs[k][tx], acc);
    __syncthreads();
  }
  c[static_cast<size_t>(row) * kMmN + col] = acc;
}
// Small integers whose products sum exactly in any order; A's rows repeat
// every 13, B's columns every 9, so the check computes 117 dot products.
__host__ __device__ inline float mmA(int i, int k) { return static_cast<float>((3 * i + 7 * k) % 13 - 6); }
__host__ __device__ inline float mmB(int k, int j) { return static_cast<float>((5 * k + 11 * j) % 9 - 4); }
struct GenMmA {
  __host__ __device__ float operator()(size_t e) const { return mmA(static_cast<int>(e / kMmN), static_cast<int>(e % kMmN)); }
};
struct GenMmB {
  __host__ __device__ float operator()(size_t e) const { return mmB(static_cast<int>(e / kMmN), static_cast<int>(e % kMmN)); }
};

class SmemMatmulTile16 : public Pair {
  DevBuf<float> a_, b_, c_;
  std::vector<float> ref_;  // [13][9]

 public:
  cudaError_t setup() override {
    const size_t n = size_t(kMmN) * kMmN;
    ADV_TRY(a_.alloc(n));
    ADV_TRY(b_.alloc(n));
    ADV_TRY(c_.alloc(n));
    ref_.assign(13 * 9, 0.0f);
    for (int i = 0; i < 13; ++i)
      for (int j = 0; j < 9; ++j) {
        double s = 0;
        for (int k = 0; k < kMmN; ++k) s += static_cast<double>(mmA(i, k)) * mmB(k, j);
        ref_[i * 9 + j] = static_cast<float>(s);
      }
    ADV_TRY(fill(a_.get(), n, GenMmA{}));
    return fill(b_.get(), n, GenMmB{});
  }
  cudaError_t poison(int) override { return c_.poison(); }
  cudaError_t launch(int v) override {
    if (v == kOrig)
      smem_matmul<32><<<dim3(kMmN / 32, kMmN / 32), dim3(32, 32)>>>(a_.get(), b_.get(), c_.get());
    else
      smem_matmul<16><<<dim3(kMmN / 16, kMmN / 16), dim3(16, 16)>>>(a_.get(), b_.get(), c_.get());
    return cudaGetLastError();
  }
  bool check(int, std::string& why) override {
    return checkDevice("c", c_, [&](size_t e) { return ref_[(e / kMmN) % 13 * 9 + (e % kMmN) % 9]; }, 0, 0, 1, why);
  }
  Shape shape(int v) const override {
    if (v == kOrig)
      return {reinterpret_cast<const void*>(smem_matmul<32>), 1024, 0, (kMmN / 32ull) * (kMmN / 32)};
    return {reinterpret_cast<const void*>(smem_matmul<16>), 256, 0, (kMmN / 16ull) * (kMmN / 16)};
  }
};
ADVICE_PAIR("smem_matmul_tile16", SmemMatmulTile16);

// ---- reduce_smem_tree: four block statistics by a shared-memory tree ---------------------------------------
// Each 1024-thread block reduces 1024 elements to (sum, sum of squares, min,
// max).  The original is the textbook tree with interleaved addressing
// (index = 2 * s * tid): at step s the active lanes hit addresses 2s words
// apart, a 2s-way bank conflict up to 32-way, with a __syncthreads per step.
// The change: warp shuffles within each warp, one barrier, shuffles again.
// Small integers: every sum is exact in any order.
constexpr int kRedBlock = 1024;
constexpr size_t kRedN = size_t(64) << 20;  // 256 MiB, 65536 blocks

struct Stats {
  float sum, sq, mn, mx;
};
__device__ inline Stats statsOf(float x) { return {x, x * x, x, x}; }
__device__ inline Stats combine(Stats a, Stats b) {
  return {a.sum + b.sum, a.sq + b.sq, fminf(a.mn, b.mn), fmaxf(a.mx, b.mx)};
}

__global__ void __launch_bounds__(kRedBlock) block_stats_tree(const float* __restrict__ in, float4* __restrict__ out) {
  __shared__ float s0[kRedBlock], s1[kRedBlock], s2[kRedBlock], s3[kRedBlock];
  const unsigned tid = threadIdx.x;
  const Stats v = statsOf(in[static_cast<size_t>(blockIdx.x) * kRedBlock + tid]);
  s0[tid] = v.sum;
  s1[tid] = v.sq;
  s2[tid] = v.mn;
  s3[tid] = v.mx;
  __syncthreads();
  for (unsigned s = 1; s < kRedBlock; s *= 2) {
    const unsigned index = 2 * s * tid;
    if (index < kRedBlock) {
      s0[index] += s0[index + s];
      s1[index] += s1[index + s];
      s2[index] = fminf(s2[index], s2[index + s]);
      s3[index] = fmaxf(s3[index], s3[index + s]);
    }
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = make_float4(s0[0], s1[0], s2[0], s3[0]);
}

__device__ inline Stats warpReduce(Stats v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    const Stats w = {__shfl_down_sync(0xffffffffu, v.sum, o), __shfl_down_sync(0xffffffffu, v.sq, o),
                     __shfl_down_sync(0xffffffffu, v.mn, o), __shfl_down_sync(0xffffffffu, v.mx, o)};
    v = combine(v, w);
  }
  return v;
}
__global__ void __launch_bounds__(kRedBlock) block_stats_shfl(const float* __restrict__ in, float4* __restrict__ out) {
  __shared__ float4 partial[kRedBlock / 32];
  const unsigned tid = threadIdx.x, lane = tid & 31u, warp = tid >> 5;
  Stats v = warpReduce(statsOf(in[static_cast<size_t>(blockIdx.x) * kRedBlock + tid]));
  if (lane == 0) partial[warp] = make_float4(v.sum, v.sq, v.mn, v.mx);
  __syncthreads();
  if (warp == 0) {
    const float4 p = partial[lane];  // 32 warps: one partial per lane
    v = warpReduce(Stats{p.x, p.y, p.z, p.w});
    if (lane == 0) out[blockIdx.x] = make_float4(v.sum, v.sq, v.mn, v.mx);
  }
}

class ReduceSmemTree : public Pair {
  DevBuf<float> in_;
  DevBuf<float4> out_;
  const GenSmallInt g_{229, -3, 7};

 public:
  cudaError_t setup() override {
    ADV_TRY(in_.alloc(kRedN));
    ADV_TRY(out_.alloc(kRedN / kRedBlock));
    return fill(in_.get(), kRedN, g_);
  }
  cudaError_t poison(int) override { return out_.poison(); }
  cudaError_t launch(int v) override {
    const unsigned grid = static_cast<unsigned>(kRedN / kRedBlock);
    if (v == kOrig)
      block_stats_tree<<<grid, kRedBlock>>>(in_.get(), out_.get());
    else
      block_stats_shfl<<<grid, kRedBlock>>>(in_.get(), out_.get());
    return cudaGetLastError();
  }
  bool check(int, std::string& why) override {
    std::vector<float4> h;
    cudaError_t e = out_.toHost(h);
    if (e != cudaSuccess) {
      why = std::string("copy failed: ") + cudaGetErrorString(e);
      return false;
    }
    std::vector<float> flat(h.size() * 4), want(h.size() * 4);
    std::memcpy(flat.data(), h.data(), flat.size() * sizeof(float));
    parallelFor(h.size(), [&](size_t b0, size_t b1) {
      for (size_t b = b0; b < b1; ++b) {
        float s = 0, q = 0, mn = 1e30f, mx = -1e30f;
        for (int t = 0; t < kRedBlock; ++t) {
          const float x = g_(b * kRedBlock + t);
          s += x;
          q += x * x;
          mn = std::min(mn, x);
          mx = std::max(mx, x);
        }
        want[4 * b] = s;
        want[4 * b + 1] = q;
        want[4 * b + 2] = mn;
        want[4 * b + 3] = mx;
      }
    });
    return checkEach("stats (sum, sum of squares, min, max per block)", flat, [&](size_t k) { return want[k]; }, 0, 0,
                     1, why);
  }
  Shape shape(int v) const override {
    return {v == kOrig ? reinterpret_cast<const void*>(block_stats_tree)
                       : reinterpret_cast<const void*>(block_stats_shfl),
            kRedBlock, 0, kRedN / kRedBlock};
  }
};
ADVICE_PAIR("reduce_smem_tree", ReduceSmemTree);

// ---- stencil_smem (counter-example a): a 5-point stencil through L1 or a shared tile --------------------------
// out = c0 * centre + c1 * ((left + right) + (up + down)), edges clamped.
// The original reads its five neighbours from global memory (L1 and L2 serve
// the reuse); the change stages a 34 x 10 tile with its halo (340 cells for
// 256 outputs: 1.328 global reads per cell, seed 000's day 34) in shared
// memory behind a __syncthreads.  On the T4 of seed 000 the change was 1.64x
// slower; perfcheck must not advise it on the original.
constexpr int kStW = 8192, kStH = 8192;  // 256 MiB in, 256 MiB out
constexpr int kStBX = 32, kStBY = 8;
__host__ __device__ inline float stencil5(float c, float l, float r, float u, float d) {
  return fmaf(0.125f, (l + r) + (u + d), 0.5f * c);
}
__device__ inline int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

__global__ void stencil_global(const float* __restrict__ in, float* __restrict__ out) {
  const int x = blockIdx.x * kStBX + threadIdx.x, y = blockIdx.y * kStBY + threadIdx.y;
  const size_t row = static_cast<size_t>(y) * kStW;
  const size_t up = static_cast<size_t>(clampi(y - 1, 0, kStH - 1)) * kStW;
  const size_t dn = static_cast<size_t>(clampi(y + 1, 0, kStH - 1)) * kStW;
  out[row + x] = stencil5(in[row + x], in[row + clampi(x - 1, 0, kStW - 1)], in[row + clampi(x + 1, 0, kStW - 1)],
                          in[up + x], in[dn + x]);
}
__global__ void stencil_shared(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float tile[kStBY + 2][kStBX + 2];
  const int tid = threadIdx.y * kStBX + threadIdx.x;
  const int x0 = blockIdx.x * kStBX - 1, y0 = blockIdx.y * kStBY - 1;
  for (int c = tid; c < (kStBY + 2) * (kStBX + 2); c += kStBX * kStBY) {
    const int r = c / (kStBX + 2), q = c % (kStBX + 2);
    const int gy = clampi(y0 + r, 0, kStH - 1), gx = clampi(x0 + q, 0, kStW - 1);
    tile[r][q] = in[static_cast<size_t>(gy) * kStW + gx];
  }
  __syncthreads();
  const int tx = threadIdx.x + 1, ty = threadIdx.y + 1;
  const int x = blockIdx.x * kStBX + threadIdx.x, y = blockIdx.y * kStBY + threadIdx.y;
  out[static_cast<size_t>(y) * kStW + x] =
      stencil5(tile[ty][tx], tile[ty][tx - 1], tile[ty][tx + 1], tile[ty - 1][tx], tile[ty + 1][tx]);
}

class StencilSmem : public Pair {
  DevBuf<float> in_, out_;
  const GenUniform g_{233, 0.0f, 1.0f};

 public:
  cudaError_t setup() override {
    ADV_TRY(in_.alloc(size_t(kStW) * kStH));
    ADV_TRY(out_.alloc(size_t(kStW) * kStH));
    return fill(in_.get(), in_.size(), g_);
  }
  cudaError_t poison(int) override { return out_.poison(); }
  cudaError_t launch(int v) override {
    const dim3 grid(kStW / kStBX, kStH / kStBY), block(kStBX, kStBY);
    if (v == kOrig)
      stencil_global<<<grid, block>>>(in_.get(), out_.get());
    else
      stencil_shared<<<grid, block>>>(in_.get(), out_.get());
    return cudaGetLastError();
  }
  bool check(int, std::string& why) override {
    auto at = [&](long y, long x) {
      y = std::min<long>(std::max<long>(y, 0), kStH - 1);
      x = std::min<long>(std::max<long>(x, 0), kStW - 1);
      return g_(static_cast<size_t>(y) * kStW + static_cast<size_t>(x));
    };
    return checkDevice("out", out_,
                       [&](size_t e) {
                         const long y = static_cast<long>(e / kStW), x = static_cast<long>(e % kStW);
                         return stencil5(at(y, x), at(y, x - 1), at(y, x + 1), at(y - 1, x), at(y + 1, x));
                       },
                       0, 0, 1, why);
  }
  Shape shape(int v) const override {
    return {v == kOrig ? reinterpret_cast<const void*>(stencil_global) : reinterpret_cast<const void*>(stencil_shared),
            kStBX * kStBY, 0, (kStW / kStBX) * static_cast<unsigned long long>(kStH / kStBY)};
  }
};
ADVICE_PAIR("stencil_smem", StencilSmem);

// ---- occ_api_block (counter-example c): the block size the occupancy API recommends ---------------------------
// An inclusive scan of each 4096-float row, one block a row, in chunks of
// blockDim.x: a Hillis-Steele scan in shared memory (log2(block) steps, a
// barrier each) plus the running carry.  The original uses 256 threads; the
// change takes cudaOccupancyMaxPotentialBlockSizeVariableSMem's answer (the
// largest block that reaches the best occupancy: 1024 on an H200), whose
// scan has more steps per element and whose barriers wait for 32 warps.
constexpr int kScanLen = 4096;
constexpr int kScanRows = 16384;  // 256 MiB in, 256 MiB out
__global__ void row_scan(const float* __restrict__ in, float* __restrict__ out) {
  extern __shared__ float sbuf[];  // two buffers of blockDim.x
  const int b = blockDim.x, t = threadIdx.x;
  const size_t row = static_cast<size_t>(blockIdx.x) * kScanLen;
  float carry = 0.0f;
  for (int c0 = 0; c0 < kScanLen; c0 += b) {
    const int c = c0 + t;
    float* cur = sbuf;
    float* nxt = sbuf + b;
    cur[t] = c < kScanLen ? in[row + c] : 0.0f;
    __syncthreads();
    for (int off = 1; off < b; off <<= 1) {
      float x = cur[t];
      if (t >= off) x += cur[t - off];
      nxt[t] = x;
      __syncthreads();
      float* tmp = cur;
      cur = nxt;
      nxt = tmp;
    }
    if (c < kScanLen) out[row + c] = carry + cur[t];
    carry += cur[b - 1];
    __syncthreads();
  }
}
struct ScanSmem {
  __host__ __device__ size_t operator()(int block) const { return 2 * static_cast<size_t>(block) * sizeof(float); }
};

class OccApiBlock : public Pair {
  DevBuf<float> in_, out_;
  const GenSmallInt g_{239, 0, 4};
  int block_[2] = {256, 0};

 public:
  cudaError_t setup() override {
    int minGrid = 0;
    ADV_TRY(cudaOccupancyMaxPotentialBlockSizeVariableSMem(&minGrid, &block_[1], row_scan, ScanSmem{}));
    ADV_TRY(in_.alloc(size_t(kScanRows) * kScanLen));
    ADV_TRY(out_.alloc(size_t(kScanRows) * kScanLen));
    return fill(in_.get(), in_.size(), g_);
  }
  cudaError_t poison(int) override { return out_.poison(); }
  cudaError_t launch(int v) override {
    row_scan<<<kScanRows, block_[v], ScanSmem{}(block_[v])>>>(in_.get(), out_.get());
    return cudaGetLastError();
  }
  bool check(int, std::string& why) override {
    std::vector<float> h;
    cudaError_t e = out_.toHost(h);
    if (e != cudaSuccess) {
      why = std::string("copy failed: ") + cudaGetErrorString(e);
      return false;
    }
    // Row by row, each element the running sum (exact: integers below 2^24).
    std::atomic<size_t> bad{SIZE_MAX};
    parallelFor(kScanRows, [&](size_t r0, size_t r1) {
      for (size_t r = r0; r < r1; ++r) {
        float s = 0.0f;
        for (int c = 0; c < kScanLen; ++c) {
          const size_t i = r * kScanLen + c;
          s += g_(i);
          if (!(h[i] == s)) {
            size_t cur = bad.load();
            while (i < cur && !bad.compare_exchange_weak(cur, i)) {
            }
            return;
          }
        }
      }
    });
    if (bad.load() == SIZE_MAX) return true;
    const size_t i = bad.load();
    float s = 0.0f;
    for (size_t k = i - i % kScanLen; k <= i; ++k) s += g_(k);
    why = "out: index " + std::to_string(i) + ": got " + fmtValue(h[i]) + ", want " + fmtValue(s);
    return false;
  }
  Shape shape(int v) const override {
    return {reinterpret_cast<const void*>(row_scan), static_cast<unsigned>(block_[v]), ScanSmem{}(block_[v]),
            kScanRows};
  }
  std::string note() const override {
    return "cudaOccupancyMaxPotentialBlockSizeVariableSMem recommends " + std::to_string(block_[1]) +
           " threads a block";
  }
};
ADVICE_PAIR("occ_api_block", OccApiBlock);

}  // namespace shmem
}  // namespace advice
