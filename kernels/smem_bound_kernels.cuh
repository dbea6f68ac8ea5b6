// smem_bound_kernels.cuh: a tiled matrix multiply whose limit is shared
// memory bandwidth, and a shared-memory transpose with and without bank
// conflicts (shared by kernels/smem_bound.cu and the GPU tests).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

constexpr int kTile = 32;
constexpr int kMatmulN = 2048;         // C = A B, all 2048 x 2048 floats
constexpr int kTransposeN = 8192;      // 8192 x 8192 floats: 256 MiB per matrix
constexpr int kTransposeRows = 8;      // transpose blocks are 32 x 8 threads

// Small integers, so every dot product is exact in any order.  A's rows repeat
// every 13 rows and B's columns every 9 columns: C[i][j] depends on (i mod 13,
// j mod 9) only, which lets the CPU check every element from 117 dot products.
__host__ __device__ inline float matA(int i, int k) { return static_cast<float>((3 * i + 7 * k) % 13 - 6); }
__host__ __device__ inline float matB(int k, int j) { return static_cast<float>((5 * k + 11 * j) % 9 - 4); }
constexpr int kPeriodA = 13, kPeriodB = 9;

// The textbook shared-memory tiling, one output per thread (32 x 32 blocks):
// every fused multiply-add reads one operand from each tile, so the kernel
// issues about one shared load per FMA and shared memory (the L1/shared
// unit), not DRAM or the FMA pipe, is the limit.  Inner loop in k order with
// fmaf, the same order the CPU uses.
__global__ void smem_matmul(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  __shared__ float as[kTile][kTile];
  __shared__ float bs[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty, col = blockIdx.x * kTile + tx;
  float acc = 0.0f;
  for (int t = 0; t < n; t += kTile) {
    as[ty][tx] = a[static_cast<size_t>(row) * n + t + tx];
    bs[ty][tx] = b[static_cast<size_t>(t + ty) * n + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTile; ++k) acc = fmaf(as[ty][k], bs[k][tx], acc);
    __syncthreads();
  }
  c[static_cast<size_t>(row) * n + col] = acc;
}

// out = in^T through a 32 x 32 shared tile.  Rows go in (conflict-free) and
// columns come out: with kPad = 0 the 32 lanes of a warp read one column, 32
// floats 128 B apart, all in the same bank: a 32-way bank conflict on every
// shared load.  kPad = 1 shifts each row by one bank: conflict-free.
template <int kPad>
__device__ inline void transposeBody(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[kTile][kTile + kPad];
  const int tx = threadIdx.x, ty = threadIdx.y;
  int x = blockIdx.x * kTile + tx, y = blockIdx.y * kTile + ty;
  for (int j = 0; j < kTile; j += kTransposeRows) tile[ty + j][tx] = in[static_cast<size_t>(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * kTile + tx;
  y = blockIdx.x * kTile + ty;
  for (int j = 0; j < kTile; j += kTransposeRows) out[static_cast<size_t>(y + j) * n + x] = tile[tx][ty + j];
}
__global__ void transpose_conflicts(const float* __restrict__ in, float* __restrict__ out, int n) {
  transposeBody<0>(in, out, n);
}
__global__ void transpose_padded(const float* __restrict__ in, float* __restrict__ out, int n) {
  transposeBody<1>(in, out, n);
}
