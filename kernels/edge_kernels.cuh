// edge_kernels.cuh: kernels at the edges of the checklist's arithmetic (no
// global traffic, nothing executed, one element) (shared by kernels/edge.cu
// and the GPU tests).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

constexpr int kEdgeIters = 32768;  // FMAs per thread in no_global_traffic
constexpr unsigned kEdgeBlock = 256;
constexpr float kEdgeMul = 0.9995f, kEdgeAdd = 0.0005f;

// Four chains from the thread index alone: no load feeds them.  The start
// value divides (IEEE on both sides) rather than multiplies, so the compiler
// cannot fuse it into an FMA on one side only.
__host__ __device__ inline float edgeChains(unsigned i, int iters) {
  const float x = 0.5f + static_cast<float>(i % 997u) / 997.0f;
  float a = x, b = x + 0.25f, c = x + 0.5f, d = x + 0.75f;
  for (int k = 0; k < iters; k += 4) {
    a = fmaf(a, kEdgeMul, kEdgeAdd);
    b = fmaf(b, kEdgeMul, kEdgeAdd);
    c = fmaf(c, kEdgeMul, kEdgeAdd);
    d = fmaf(d, kEdgeMul, kEdgeAdd);
  }
  return (a + b) + (c + d);
}

// Pure register arithmetic.  The result stays alive through a store that
// only the thread numbered storeIndex makes; launched with storeIndex = -1
// (0xFFFFFFFF) no thread stores and the kernel has no global traffic at all.
__global__ void no_global_traffic(float* __restrict__ out, unsigned storeIndex, int iters) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const float r = edgeChains(i, iters);
  if (i == storeIndex) out[0] = r;
}

// Launched with n = 0: every thread leaves at the first branch.
__global__ void all_predicated_off(const float* __restrict__ in, float* __restrict__ out, size_t n) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  out[i] = 2.0f * in[i] + 1.0f;
}

// One thread, one element.
__global__ void one_element(const float* __restrict__ in, float* __restrict__ out) { out[0] = 2.0f * in[0] + 1.0f; }
