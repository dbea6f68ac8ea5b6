// roundtrip_kernels.cuh: a tiny kernel between two 256 MiB copies (shared by
// kernels/roundtrip.cu and the GPU tests).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

constexpr size_t kRoundtripN = (size_t(256) << 20) / sizeof(float);  // 256 MiB of floats
constexpr int kRoundtripHead = 1024;  // elements the kernel touches
constexpr int kRoundtripBlock = 256;
constexpr float kRoundtripFactor = 2.0f;  // a power of two: the product is exact

__global__ void scale_head(float* x, int n, float factor) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= factor;
}

inline cudaError_t launchScaleHead(float* x, cudaStream_t s = 0) {
  scale_head<<<kRoundtripHead / kRoundtripBlock, kRoundtripBlock, 0, s>>>(x, kRoundtripHead,
                                                                          kRoundtripFactor);
  return cudaGetLastError();
}

inline float roundtripInput(size_t i) { return static_cast<float>(i % 4096) + 0.5f; }
inline float roundtripRef(size_t i) {
  return i < size_t(kRoundtripHead) ? roundtripInput(i) * kRoundtripFactor : roundtripInput(i);
}
