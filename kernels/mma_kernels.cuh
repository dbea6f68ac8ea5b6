// mma_kernels.cuh: bf16 tensor-core kernels built on mma.sync m16n8k16
// (fp32 accumulate): a register-resident chain that keeps the tensor pipe
// busy and nothing else, and a shared-memory tiled GEMM (shared by
// kernels/mma.cu and the GPU tests).  mma.sync runs on sm_80 and newer; the
// program is built for sm_90.
//
// Fragment layouts are the PTX ISA's for .m16n8k16 with .bf16 operands
// (groupID g = lane / 4, t = lane % 4):
//   A (16 x 16, row major), 4 registers of 2 bf16 each:
//     r0 = A[g][2t..2t+1], r1 = A[g+8][2t..2t+1], r2 = A[g][2t+8..2t+9], r3 = A[g+8][2t+8..2t+9]
//   B (16 x 8, "col": stored here as Bt[n][k]), 2 registers:
//     r0 = Bt[g][2t..2t+1], r1 = Bt[g][2t+8..2t+9]
//   C, D (16 x 8 fp32), 4 registers:
//     d0, d1 = D[g][2t..2t+1], d2, d3 = D[g+8][2t..2t+1]
// The lower half of a register holds the element with the smaller index.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

__device__ inline void mma16816Bf16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// Two consecutive bf16 in memory as one register (4-byte aligned).
__device__ inline uint32_t ldPair(const __nv_bfloat16* p) { return *reinterpret_cast<const uint32_t*>(p); }

// ---- the chain: one 16x16 A tile and one 16x8 B tile per warp, loaded once
constexpr int kChainIters = 8192;  // mma per warp, four accumulators of 2048
constexpr unsigned kChainBlock = 128;  // 4 warps

// Small integers (-2..2), distinct per warp: D = iters * A Bt^T is exact in fp32.
__host__ __device__ inline float chainA(size_t w, int m, int k) {
  return static_cast<float>(static_cast<int>((w * 7 + static_cast<size_t>(m) * 3 + static_cast<size_t>(k) * 5) % 5) - 2);
}
__host__ __device__ inline float chainB(size_t w, int n, int k) {
  return static_cast<float>(static_cast<int>((w * 11 + static_cast<size_t>(n) * 13 + static_cast<size_t>(k) * 7) % 5) - 2);
}

// a: [warps][16][16], bt: [warps][8][16], d: [warps][16][8].
__global__ void mma_bf16_chain(const __nv_bfloat16* __restrict__ a, const __nv_bfloat16* __restrict__ bt,
                               float* __restrict__ d, int iters) {
  const unsigned lane = threadIdx.x & 31u;
  const size_t warp = (blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x) >> 5;
  const unsigned g = lane >> 2, t = lane & 3u;
  const __nv_bfloat16* aw = a + warp * 256;
  const __nv_bfloat16* bw = bt + warp * 128;
  const uint32_t af[4] = {ldPair(aw + g * 16 + 2 * t), ldPair(aw + (g + 8) * 16 + 2 * t),
                          ldPair(aw + g * 16 + 2 * t + 8), ldPair(aw + (g + 8) * 16 + 2 * t + 8)};
  const uint32_t bf[2] = {ldPair(bw + g * 16 + 2 * t), ldPair(bw + g * 16 + 2 * t + 8)};
  float acc[4][4] = {};
  for (int k = 0; k < iters; k += 4) {
    mma16816Bf16(acc[0], af, bf);
    mma16816Bf16(acc[1], af, bf);
    mma16816Bf16(acc[2], af, bf);
    mma16816Bf16(acc[3], af, bf);
  }
  float* dw = d + warp * 128;
  float r[4];
  for (int i = 0; i < 4; ++i) r[i] = (acc[0][i] + acc[1][i]) + (acc[2][i] + acc[3][i]);
  dw[g * 8 + 2 * t] = r[0];
  dw[g * 8 + 2 * t + 1] = r[1];
  dw[(g + 8) * 8 + 2 * t] = r[2];
  dw[(g + 8) * 8 + 2 * t + 1] = r[3];
}

// ---- the GEMM: C (M x N, fp32) = A (M x K, bf16, row major) x Bt^T, Bt (N x K,
// bf16, row major), the layout of x W^T in a linear layer.
constexpr int kGemmM = 4096, kGemmN = 4096, kGemmK = 4096;
constexpr int kGemmBM = 128, kGemmBN = 128, kGemmBK = 32;
constexpr int kGemmPad = 8;  // bf16 per shared row: 80-byte rows, conflict-free fragment loads
constexpr unsigned kGemmBlock = 256;  // 8 warps: 2 along M x 4 along N, 64 x 32 outputs each

// Small integers: A's rows repeat every 13 rows and Bt's every 9, so C[i][j]
// depends on (i mod 13, j mod 9) only and every dot product is exact.
__host__ __device__ inline float gemmA(int m, int k) { return static_cast<float>((3 * m + 7 * k) % 13 - 6); }
__host__ __device__ inline float gemmB(int n, int k) { return static_cast<float>((5 * n + 11 * k) % 9 - 4); }
constexpr int kGemmPeriodA = 13, kGemmPeriodB = 9;

__global__ void __launch_bounds__(kGemmBlock)
    mma_bf16_gemm(const __nv_bfloat16* __restrict__ a, const __nv_bfloat16* __restrict__ bt, float* __restrict__ c,
                  int m, int n, int k) {
  __shared__ alignas(16) __nv_bfloat16 as[kGemmBM][kGemmBK + kGemmPad];
  __shared__ alignas(16) __nv_bfloat16 bs[kGemmBN][kGemmBK + kGemmPad];
  const unsigned tid = threadIdx.x, lane = tid & 31u, warp = tid >> 5;
  const unsigned g = lane >> 2, t = lane & 3u;
  const int wm = static_cast<int>(warp >> 2), wn = static_cast<int>(warp & 3u);
  const int bm = blockIdx.y * kGemmBM, bn = blockIdx.x * kGemmBN;
  float acc[4][4][4] = {};
  for (int k0 = 0; k0 < k; k0 += kGemmBK) {
    // 128 rows x 32 bf16 = 512 chunks of 16 bytes per tile, two per thread.
    for (unsigned ch = tid; ch < 512u; ch += kGemmBlock) {
      const int r = static_cast<int>(ch >> 2), q = static_cast<int>(ch & 3u) * 8;
      *reinterpret_cast<uint4*>(&as[r][q]) =
          *reinterpret_cast<const uint4*>(a + static_cast<size_t>(bm + r) * k + k0 + q);
      *reinterpret_cast<uint4*>(&bs[r][q]) =
          *reinterpret_cast<const uint4*>(bt + static_cast<size_t>(bn + r) * k + k0 + q);
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kGemmBK; kk += 16) {
      uint32_t af[4][4], bf[4][2];
#pragma unroll
      for (int mi = 0; mi < 4; ++mi) {
        const int r0 = wm * 64 + mi * 16 + static_cast<int>(g);
        af[mi][0] = ldPair(&as[r0][kk + 2 * t]);
        af[mi][1] = ldPair(&as[r0 + 8][kk + 2 * t]);
        af[mi][2] = ldPair(&as[r0][kk + 2 * t + 8]);
        af[mi][3] = ldPair(&as[r0 + 8][kk + 2 * t + 8]);
      }
#pragma unroll
      for (int ni = 0; ni < 4; ++ni) {
        const int n0 = wn * 32 + ni * 8 + static_cast<int>(g);
        bf[ni][0] = ldPair(&bs[n0][kk + 2 * t]);
        bf[ni][1] = ldPair(&bs[n0][kk + 2 * t + 8]);
      }
#pragma unroll
      for (int mi = 0; mi < 4; ++mi)
#pragma unroll
        for (int ni = 0; ni < 4; ++ni) mma16816Bf16(acc[mi][ni], af[mi], bf[ni]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int mi = 0; mi < 4; ++mi)
#pragma unroll
    for (int ni = 0; ni < 4; ++ni) {
      const size_t row = static_cast<size_t>(bm + wm * 64 + mi * 16 + static_cast<int>(g));
      const size_t col = static_cast<size_t>(bn + wn * 32 + ni * 8 + 2 * static_cast<int>(t));
      c[row * n + col] = acc[mi][ni][0];
      c[row * n + col + 1] = acc[mi][ni][1];
      c[(row + 8) * n + col] = acc[mi][ni][2];
      c[(row + 8) * n + col + 1] = acc[mi][ni][3];
    }
}
