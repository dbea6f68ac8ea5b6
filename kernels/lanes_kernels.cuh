// lanes_kernels.cuh: the same FMA work launched with 1-, 40-, 48- and
// 256-thread blocks (shared by kernels/lanes.cu and the GPU tests).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <vector>

constexpr int kLanesIters = 32768;  // FMAs per thread, four chains of 8192
constexpr float kLanesMul = 0.999f, kLanesAdd = 0.001f;  // pulls every chain towards 1
// Inputs take this many distinct values, so the CPU reference computes each
// chain once per value.
constexpr size_t kLanesDistinct = 1021;

__host__ __device__ inline float lanesInput(size_t i) {
  return 0.5f + static_cast<float>(i % kLanesDistinct) / static_cast<float>(kLanesDistinct);
}

// Four independent chains of fused multiply-adds; fmaf rounds once on both
// sides, so the CPU reference agrees bit for bit.
__host__ __device__ inline float lanesChains(float x, int iters) {
  float a = x, b = x + 0.25f, c = x + 0.5f, d = x + 0.75f;
  for (int k = 0; k < iters; k += 4) {
    a = fmaf(a, kLanesMul, kLanesAdd);
    b = fmaf(b, kLanesMul, kLanesAdd);
    c = fmaf(c, kLanesMul, kLanesAdd);
    d = fmaf(d, kLanesMul, kLanesAdd);
  }
  return (a + b) + (c + d);
}

__device__ inline void lanesBody(const float* __restrict__ in, float* __restrict__ out, size_t n, int iters) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = lanesChains(in[i], iters);
}

// One body, four launch shapes.  No branch depends on the lane: every
// instruction runs with all the lanes the block gives its warp.
__global__ void lanes_block1(const float* __restrict__ in, float* __restrict__ out, size_t n, int iters) {
  lanesBody(in, out, n, iters);
}
__global__ void lanes_block40(const float* __restrict__ in, float* __restrict__ out, size_t n, int iters) {
  lanesBody(in, out, n, iters);
}
__global__ void lanes_block48(const float* __restrict__ in, float* __restrict__ out, size_t n, int iters) {
  lanesBody(in, out, n, iters);
}
__global__ void lanes_block256(const float* __restrict__ in, float* __restrict__ out, size_t n, int iters) {
  lanesBody(in, out, n, iters);
}

// The CPU reference of element i (one chain per distinct input, cached).
inline std::vector<float> lanesReferenceTable() {
  std::vector<float> t(kLanesDistinct);
  for (size_t v = 0; v < kLanesDistinct; ++v) t[v] = lanesChains(lanesInput(v), kLanesIters);
  return t;
}
