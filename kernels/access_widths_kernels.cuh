// access_widths_kernels.cuh: copy-and-scale kernels that read and write one
// element per thread at 1, 2, 4, 8 and 16 bytes, a mixed-width one, and two
// strided ones (shared by kernels/access_widths.cu and the GPU tests).
//
// Every kernel computes y = 2x + 1 in its element type.  The input is one
// buffer of small integer-valued floats (0..4095), read through each type's
// view, so every result is exactly representable and the CPU reference
// compares bit for bit: 2x is exact, so a fused multiply-add and a separate
// multiply and add round the same way.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

constexpr size_t kWidthBytes = size_t(512) << 20;  // 512 MiB per buffer
constexpr unsigned kWidthBlock = 256;
// The strided kernels: a warp's lanes are this many elements apart.
constexpr size_t kStride16 = 4;   // 16-byte elements 64 B apart: 16 of each 32-byte sector used
constexpr size_t kStride1 = 32;   // 1-byte elements 32 B apart: 1 byte of each sector used

// The input pattern: word w of the buffer holds this float.
__host__ __device__ inline float widthPattern(size_t w) {
  return static_cast<float>((static_cast<uint32_t>(w) * 2654435761u) >> 20);
}

__host__ __device__ inline uint8_t twoXPlusOne(uint8_t x) { return static_cast<uint8_t>(2u * x + 1u); }
__host__ __device__ inline uint16_t twoXPlusOne(uint16_t x) { return static_cast<uint16_t>(2u * x + 1u); }
__host__ __device__ inline float twoXPlusOne(float x) { return 2.0f * x + 1.0f; }
__host__ __device__ inline double twoXPlusOne(double x) { return 2.0 * x + 1.0; }
__host__ __device__ inline float4 twoXPlusOne(float4 v) {
  return make_float4(twoXPlusOne(v.x), twoXPlusOne(v.y), twoXPlusOne(v.z), twoXPlusOne(v.w));
}

template <class T>
__device__ inline void copyScaleBody(const T* __restrict__ in, T* __restrict__ out, size_t n) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = twoXPlusOne(in[i]);
}

// Coalesced: lane k of a warp touches element base + k, so a warp request
// covers 32 * sizeof(T) contiguous bytes and uses every byte of every sector
// it fetches (1, 2, 4, 8 or 16 sectors per request).
__global__ void scale_u8(const uint8_t* __restrict__ in, uint8_t* __restrict__ out, size_t n) {
  copyScaleBody(in, out, n);
}
__global__ void scale_u16(const uint16_t* __restrict__ in, uint16_t* __restrict__ out, size_t n) {
  copyScaleBody(in, out, n);
}
__global__ void scale_f32(const float* __restrict__ in, float* __restrict__ out, size_t n) {
  copyScaleBody(in, out, n);
}
__global__ void scale_f64(const double* __restrict__ in, double* __restrict__ out, size_t n) {
  copyScaleBody(in, out, n);
}
__global__ void scale_f32x4(const float4* __restrict__ in, float4* __restrict__ out, size_t n) {
  copyScaleBody(in, out, n);
}

// Mixed widths, both coalesced: a 16-byte load and a 4-byte store per lane.
__host__ __device__ inline float sum4TwoXPlusOne(float4 v) { return twoXPlusOne((v.x + v.y) + (v.z + v.w)); }
__global__ void sum4_f32x4_to_f32(const float4* __restrict__ in, float* __restrict__ out, size_t n) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = sum4TwoXPlusOne(in[i]);
}

// Uncoalesced loads (the stores stay coalesced): lane k reads element
// (base + k) * stride, so each lane's bytes sit alone in their sector.
__global__ void strided_f32x4(const float4* __restrict__ in, float4* __restrict__ out, size_t n) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = twoXPlusOne(in[i * kStride16]);
}
__global__ void strided_u8(const uint8_t* __restrict__ in, uint8_t* __restrict__ out, size_t n) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = twoXPlusOne(in[i * kStride1]);
}
