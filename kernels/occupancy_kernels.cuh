// occupancy_kernels.cuh: seed 002's scaleAdd<kItems> (shared by
// kernels/occupancy.cu and the GPU tests).
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>

constexpr size_t kScaleAddN = (size_t(64) << 20) / sizeof(float);  // 64 MiB per array
constexpr int kScaleAddBlock = 256;
constexpr float kScaleAddA = 1.75f;

// Each thread handles kItems elements one grid apart.  The two loops are
// separate on purpose: every load issues before the first multiply, so a warp
// holds 2 * kItems requests at once (instruction-level parallelism).
// #pragma unroll with a literal j keeps xv and yv in registers.
template <int kItems>
__global__ void scaleAdd(float a, const float* __restrict__ x, const float* __restrict__ y,
                         float* __restrict__ out, size_t n) {
  const size_t step = gridDim.x * static_cast<size_t>(blockDim.x);
  const size_t base = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  float xv[kItems];
  float yv[kItems];
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const size_t i = base + static_cast<size_t>(j) * step;
    xv[j] = (i < n) ? x[i] : 0.0f;
    yv[j] = (i < n) ? y[i] : 0.0f;
  }
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const size_t i = base + static_cast<size_t>(j) * step;
    if (i < n) out[i] = fmaf(a, xv[j], yv[j]);  // fmaf: the CPU reference is bit-exact
  }
}

template <int kItems>
constexpr unsigned scaleAddGrid() {
  return static_cast<unsigned>((kScaleAddN + size_t(kScaleAddBlock) * kItems - 1) /
                               (size_t(kScaleAddBlock) * kItems));
}

template <int kItems>
inline const void* scaleAddFunc() {
  return reinterpret_cast<const void*>(scaleAdd<kItems>);
}

// One launch over all kScaleAddN elements; returns the launch's error.
template <int kItems>
inline cudaError_t launchScaleAdd(const float* x, const float* y, float* out, size_t dynSmem,
                                  cudaStream_t s = 0) {
  scaleAdd<kItems><<<scaleAddGrid<kItems>(), kScaleAddBlock, dynSmem, s>>>(kScaleAddA, x, y, out,
                                                                         kScaleAddN);
  return cudaGetLastError();
}

inline float scaleAddX(size_t i) { return static_cast<float>(i % 1000) * 0.001f; }
inline float scaleAddY(size_t i) { return static_cast<float>(i % 997) * 0.5f; }
inline float scaleAddRef(size_t i) { return fmaf(kScaleAddA, scaleAddX(i), scaleAddY(i)); }
