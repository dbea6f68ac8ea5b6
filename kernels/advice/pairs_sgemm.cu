// pairs_sgemm.cu: a published tutorial's progression of hand-written SGEMM
// kernels, each step a timed change (Simon Boehm, "How to Optimize a CUDA
// Matmul Kernel for cuBLAS-like Performance", 2022: kernels 1 to 6, written
// here again from the article's description), and the register cap the
// occupancy question tempts a user to put on its register-tiled steps.
//
//   1 naive          one output a thread, threadIdx.x along a column of C:
//                    a warp's loads of A are K floats apart
//   2 coalesced      threadIdx.x along a row of C
//   3 shared         32x32 tiles of A and B staged in shared memory
//   4 1D tiling      64x64 block tile, BK 8, eight outputs a thread (a column)
//   5 2D tiling      128x128 block tile, BK 8, 8x8 outputs a thread
//   6 vectorized     5 with 16-byte global loads and A's tile transposed
//
// Pairs: each step against the next (kind fault: the change should pay, and
// the verdict on the step should name it), and steps 5 and 6 against the
// same kernel under __launch_bounds__(256, 3) (kind probe: more occupancy by
// fewer registers; the register tile is the kernel's design, so it should
// not pay).  Inputs are small integers: every dot product is exact in fp32,
// in any order, so the checks are exact.
#include "advice.h"

namespace advice {
namespace sgemm {

constexpr int kDim = 2048;  // M = N = K

__global__ void k1_naive(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                         float* __restrict__ C) {
  const unsigned x = blockIdx.x * blockDim.x + threadIdx.x;  // a row of C
  const unsigned y = blockIdx.y * blockDim.y + threadIdx.y;  // a column of C
  if (x < static_cast<unsigned>(M) && y < static_cast<unsigned>(N)) {
    float acc = 0.0f;
    for (int i = 0; i < K; ++i) acc += A[static_cast<size_t>(x) * K + i] * B[static_cast<size_t>(i) * N + y];
    C[static_cast<size_t>(x) * N + y] = acc;
  }
}

template <int BS>
__global__ void k2_coalesced(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                             float* __restrict__ C) {
  const unsigned x = blockIdx.x * BS + threadIdx.x / BS;
  const unsigned y = blockIdx.y * BS + threadIdx.x % BS;
  if (x < static_cast<unsigned>(M) && y < static_cast<unsigned>(N)) {
    float acc = 0.0f;
    for (int i = 0; i < K; ++i) acc += A[static_cast<size_t>(x) * K + i] * B[static_cast<size_t>(i) * N + y];
    C[static_cast<size_t>(x) * N + y] = acc;
  }
}

template <int BS>
__global__ void k3_shared(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                          float* __restrict__ C) {
  __shared__ float As[BS * BS], Bs[BS * BS];
  const unsigned row = threadIdx.x / BS, col = threadIdx.x % BS;
  const size_t cRow = blockIdx.x, cCol = blockIdx.y;
  A += cRow * BS * K;
  B += cCol * BS;
  C += cRow * BS * N + cCol * BS;
  float acc = 0.0f;
  for (int bk = 0; bk < K; bk += BS) {
    As[row * BS + col] = A[static_cast<size_t>(row) * K + col];
    Bs[row * BS + col] = B[static_cast<size_t>(row) * N + col];
    __syncthreads();
    A += BS;
    B += static_cast<size_t>(BS) * N;
    for (int i = 0; i < BS; ++i) acc += As[row * BS + i] * Bs[i * BS + col];
    __syncthreads();
  }
  (void)M;
  C[static_cast<size_t>(row) * N + col] = acc;
}

template <int BM, int BN, int BK, int TM>
__global__ void k4_tile1d(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                          float* __restrict__ C) {
  __shared__ float As[BM * BK], Bs[BK * BN];
  const size_t cRow = blockIdx.y, cCol = blockIdx.x;
  const int tCol = threadIdx.x % BN, tRow = threadIdx.x / BN;
  A += cRow * BM * K;
  B += cCol * BN;
  C += cRow * BM * N + cCol * BN;
  const int aCol = threadIdx.x % BK, aRow = threadIdx.x / BK;
  const int bCol = threadIdx.x % BN, bRow = threadIdx.x / BN;
  float acc[TM] = {0.0f};
  for (int bk = 0; bk < K; bk += BK) {
    As[aRow * BK + aCol] = A[static_cast<size_t>(aRow) * K + aCol];
    Bs[bRow * BN + bCol] = B[static_cast<size_t>(bRow) * N + bCol];
    __syncthreads();
    A += BK;
    B += static_cast<size_t>(BK) * N;
    for (int d = 0; d < BK; ++d) {
      const float b = Bs[d * BN + tCol];
#pragma unroll
      for (int r = 0; r < TM; ++r) acc[r] += As[(tRow * TM + r) * BK + d] * b;
    }
    __syncthreads();
  }
  (void)M;
#pragma unroll
  for (int r = 0; r < TM; ++r) C[static_cast<size_t>(tRow * TM + r) * N + tCol] = acc[r];
}

template <int BM, int BN, int BK, int TM, int TN, int kMinBlocks>
__global__ void __launch_bounds__((BM * BN) / (TM * TN), kMinBlocks)
    k5_tile2d(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C) {
  constexpr int kThreads = (BM * BN) / (TM * TN);
  __shared__ float As[BM * BK], Bs[BK * BN];
  const size_t cRow = blockIdx.y, cCol = blockIdx.x;
  const int tCol = threadIdx.x % (BN / TN), tRow = threadIdx.x / (BN / TN);
  A += cRow * BM * K;
  B += cCol * BN;
  C += cRow * BM * N + cCol * BN;
  const int aCol = threadIdx.x % BK, aRow = threadIdx.x / BK;
  const int bCol = threadIdx.x % BN, bRow = threadIdx.x / BN;
  constexpr int aStride = kThreads / BK, bStride = kThreads / BN;
  float acc[TM * TN] = {0.0f};
  float regM[TM], regN[TN];
  for (int bk = 0; bk < K; bk += BK) {
    for (int o = 0; o < BM; o += aStride) As[(aRow + o) * BK + aCol] = A[static_cast<size_t>(aRow + o) * K + aCol];
    for (int o = 0; o < BK; o += bStride) Bs[(bRow + o) * BN + bCol] = B[static_cast<size_t>(bRow + o) * N + bCol];
    __syncthreads();
    A += BK;
    B += static_cast<size_t>(BK) * N;
    for (int d = 0; d < BK; ++d) {
#pragma unroll
      for (int i = 0; i < TM; ++i) regM[i] = As[(tRow * TM + i) * BK + d];
#pragma unroll
      for (int i = 0; i < TN; ++i) regN[i] = Bs[d * BN + tCol * TN + i];
#pragma unroll
      for (int m = 0; m < TM; ++m)
#pragma unroll
        for (int n = 0; n < TN; ++n) acc[m * TN + n] += regM[m] * regN[n];
    }
    __syncthreads();
  }
  (void)M;
#pragma unroll
  for (int m = 0; m < TM; ++m)
#pragma unroll
    for (int n = 0; n < TN; ++n) C[static_cast<size_t>(tRow * TM + m) * N + tCol * TN + n] = acc[m * TN + n];
}

template <int BM, int BN, int BK, int TM, int TN, int kMinBlocks>
__global__ void __launch_bounds__((BM * BN) / (TM * TN), kMinBlocks)
    k6_vectorized(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                  float* __restrict__ C) {
  __shared__ float As[BM * BK], Bs[BK * BN];  // As transposed: As[k * BM + m]
  const size_t cRow = blockIdx.y, cCol = blockIdx.x;
  const int tCol = threadIdx.x % (BN / TN), tRow = threadIdx.x / (BN / TN);
  A += cRow * BM * K;
  B += cCol * BN;
  C += cRow * BM * N + cCol * BN;
  const int aRow = threadIdx.x / (BK / 4), aCol = threadIdx.x % (BK / 4);
  const int bRow = threadIdx.x / (BN / 4), bCol = threadIdx.x % (BN / 4);
  float acc[TM * TN] = {0.0f};
  float regM[TM], regN[TN];
  for (int bk = 0; bk < K; bk += BK) {
    const float4 a = reinterpret_cast<const float4*>(&A[static_cast<size_t>(aRow) * K + aCol * 4])[0];
    As[(aCol * 4 + 0) * BM + aRow] = a.x;
    As[(aCol * 4 + 1) * BM + aRow] = a.y;
    As[(aCol * 4 + 2) * BM + aRow] = a.z;
    As[(aCol * 4 + 3) * BM + aRow] = a.w;
    reinterpret_cast<float4*>(&Bs[bRow * BN + bCol * 4])[0] =
        reinterpret_cast<const float4*>(&B[static_cast<size_t>(bRow) * N + bCol * 4])[0];
    __syncthreads();
    A += BK;
    B += static_cast<size_t>(BK) * N;
    for (int d = 0; d < BK; ++d) {
#pragma unroll
      for (int i = 0; i < TM; ++i) regM[i] = As[d * BM + tRow * TM + i];
#pragma unroll
      for (int i = 0; i < TN; ++i) regN[i] = Bs[d * BN + tCol * TN + i];
#pragma unroll
      for (int m = 0; m < TM; ++m)
#pragma unroll
        for (int n = 0; n < TN; ++n) acc[m * TN + n] += regM[m] * regN[n];
    }
    __syncthreads();
  }
  (void)M;
#pragma unroll
  for (int m = 0; m < TM; ++m)
#pragma unroll
    for (int n = 0; n < TN; n += 4) {
      float4 c = make_float4(acc[m * TN + n], acc[m * TN + n + 1], acc[m * TN + n + 2], acc[m * TN + n + 3]);
      reinterpret_cast<float4*>(&C[static_cast<size_t>(tRow * TM + m) * N + tCol * TN + n])[0] = c;
    }
}

enum Step { kNaive, kCoalesced, kShared, kTile1d, kTile2d, kTile2dCap, kVec, kVecCap };

// Step 6 loads one float4 of A and of B a thread per BK step: BM * BK / 4 =
// 256 threads, BK * BN / 4 = 256 threads.
constexpr int k5BM = 128, k5BN = 128, k5BK = 8, k5T = 8, k6BK = 8;
constexpr int kCapBlocks = 3;

struct Launch {
  const void* func;
  dim3 grid, block;
};

Launch launchOf(Step s) {
  const unsigned d = kDim;
  switch (s) {
    case kNaive: return {reinterpret_cast<const void*>(k1_naive), dim3(d / 32, d / 32), dim3(32, 32)};
    case kCoalesced: return {reinterpret_cast<const void*>(k2_coalesced<32>), dim3(d / 32, d / 32), dim3(1024)};
    case kShared: return {reinterpret_cast<const void*>(k3_shared<32>), dim3(d / 32, d / 32), dim3(1024)};
    case kTile1d: return {reinterpret_cast<const void*>(k4_tile1d<64, 64, 8, 8>), dim3(d / 64, d / 64), dim3(512)};
    case kTile2d:
      return {reinterpret_cast<const void*>(k5_tile2d<k5BM, k5BN, k5BK, k5T, k5T, 1>), dim3(d / 128, d / 128),
              dim3(256)};
    case kTile2dCap:
      return {reinterpret_cast<const void*>(k5_tile2d<k5BM, k5BN, k5BK, k5T, k5T, kCapBlocks>),
              dim3(d / 128, d / 128), dim3(256)};
    case kVec:
      return {reinterpret_cast<const void*>(k6_vectorized<k5BM, k5BN, k6BK, k5T, k5T, 1>), dim3(d / 128, d / 128),
              dim3(256)};
    default:
      return {reinterpret_cast<const void*>(k6_vectorized<k5BM, k5BN, k6BK, k5T, k5T, kCapBlocks>),
              dim3(d / 128, d / 128), dim3(256)};
  }
}

cudaError_t run(Step s, const float* A, const float* B, float* C) {
  const Launch l = launchOf(s);
  const int n = kDim;
  switch (s) {
    case kNaive: k1_naive<<<l.grid, l.block>>>(n, n, n, A, B, C); break;
    case kCoalesced: k2_coalesced<32><<<l.grid, l.block>>>(n, n, n, A, B, C); break;
    case kShared: k3_shared<32><<<l.grid, l.block>>>(n, n, n, A, B, C); break;
    case kTile1d: k4_tile1d<64, 64, 8, 8><<<l.grid, l.block>>>(n, n, n, A, B, C); break;
    case kTile2d: k5_tile2d<k5BM, k5BN, k5BK, k5T, k5T, 1><<<l.grid, l.block>>>(n, n, n, A, B, C); break;
    case kTile2dCap: k5_tile2d<k5BM, k5BN, k5BK, k5T, k5T, kCapBlocks><<<l.grid, l.block>>>(n, n, n, A, B, C); break;
    case kVec: k6_vectorized<k5BM, k5BN, k6BK, k5T, k5T, 1><<<l.grid, l.block>>>(n, n, n, A, B, C); break;
    case kVecCap:
      k6_vectorized<k5BM, k5BN, k6BK, k5T, k5T, kCapBlocks><<<l.grid, l.block>>>(n, n, n, A, B, C);
      break;
  }
  return cudaGetLastError();
}

class SgemmPair : public Pair {
  const Step steps_[2];
  DevBuf<float> a_, b_, c_;
  std::vector<float> ha_, hb_;

 public:
  SgemmPair(Step orig, Step changed) : steps_{orig, changed} {}
  cudaError_t setup() override {
    const size_t n = size_t(kDim) * kDim;
    ADV_TRY(a_.alloc(n));
    ADV_TRY(b_.alloc(n));
    ADV_TRY(c_.alloc(n));
    ADV_TRY(fill(a_.get(), n, GenSmallInt{41, -2, 5}));
    ADV_TRY(fill(b_.get(), n, GenSmallInt{43, -2, 5}));
    ADV_TRY(a_.toHost(ha_));
    return b_.toHost(hb_);
  }
  cudaError_t poison(int) override { return c_.poison(); }
  cudaError_t launch(int v) override { return run(steps_[v], a_.get(), b_.get(), c_.get()); }
  bool check(int, std::string& why) override {
    auto want = [&](size_t idx) {
      const size_t r = idx / kDim, c = idx % kDim;
      float acc = 0.0f;
      for (int i = 0; i < kDim; ++i) acc += ha_[r * kDim + i] * hb_[static_cast<size_t>(i) * kDim + c];
      return acc;
    };
    return checkDevice("C", c_, want, 0, 0, 4099, why);
  }
  Shape shape(int v) const override {
    const Launch l = launchOf(steps_[v]);
    return {l.func, l.block.x * l.block.y * l.block.z, 0,
            static_cast<unsigned long long>(l.grid.x) * l.grid.y * l.grid.z};
  }
};

#define ADV_SGEMM(id, cls, a, b)              \
  class cls : public SgemmPair {              \
   public:                                    \
    cls() : SgemmPair(a, b) {}                \
  };                                          \
  ADVICE_PAIR(id, cls)

ADV_SGEMM("sgemm_1_coalesce", Sgemm1Coalesce, kNaive, kCoalesced);
ADV_SGEMM("sgemm_2_shared", Sgemm2Shared, kCoalesced, kShared);
ADV_SGEMM("sgemm_3_tile1d", Sgemm3Tile1d, kShared, kTile1d);
ADV_SGEMM("sgemm_4_tile2d", Sgemm4Tile2d, kTile1d, kTile2d);
ADV_SGEMM("sgemm_5_vectorize", Sgemm5Vectorize, kTile2d, kVec);
ADV_SGEMM("occ_sgemm_tile2d_cap", OccSgemmTile2dCap, kTile2d, kTile2dCap);
ADV_SGEMM("occ_sgemm_vec_cap", OccSgemmVecCap, kVec, kVecCap);

}  // namespace sgemm
}  // namespace advice
