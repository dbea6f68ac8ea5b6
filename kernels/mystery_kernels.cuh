// mystery_kernels.cuh: seed 000's three mystery kernels, their launch helper
// and their CPU reference (shared by kernels/mystery.cu, the examples and the
// GPU tests).
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>
#include <vector>

constexpr int kMysteryDimLog2 = 11;
constexpr size_t kMysteryDim = size_t(1) << kMysteryDimLog2;  // 2048
constexpr size_t kMysteryN = kMysteryDim * kMysteryDim;        // 4,194,304
constexpr int kMysteryBlock = 256;
constexpr int kMysteryIters = 1024;  // FMAs per thread, four chains of 256
constexpr float kMysteryScale = 1.5f, kMysteryBias = 0.25f;
// Both pairs pull every chain towards a fixed point near 1, so results stay finite.
constexpr float kMysteryMulA = 0.999f, kMysteryAddA = 0.001f;
constexpr float kMysteryMulB = 0.998f, kMysteryAddB = 0.004f;
// Inputs take this many distinct values, so the CPU reference computes each
// chain once per value instead of 4M times.
constexpr size_t kMysteryDistinct = 1021;

// Four independent chains of fused multiply-adds, `iters` FMAs in all: four
// chains let one thread keep the FMA pipe busy without help from other warps.
// fmaf rounds once on both sides, so the CPU reference agrees bit for bit.
__host__ __device__ inline float runChains(float x, float mul, float add, int iters) {
  float a = x, b = x + 0.25f, c = x + 0.5f, d = x + 0.75f;
  for (int k = 0; k < iters; k += 4) {
    a = fmaf(a, mul, add);
    b = fmaf(b, mul, add);
    c = fmaf(c, mul, add);
    d = fmaf(d, mul, add);
  }
  return (a + b) + (c + d);
}

// Row from the low bits of the thread index: a warp's 32 addresses are 2048
// floats apart, one sector per lane.
__global__ void mysteryA(const float* __restrict__ in, float* __restrict__ out, size_t n) {
  const size_t t = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (t < n) {
    const size_t row = t & (kMysteryDim - 1);
    const size_t col = t >> kMysteryDimLog2;
    const size_t j = row * kMysteryDim + col;
    out[j] = fmaf(in[j], kMysteryScale, kMysteryBias);
  }
}

// Even and odd lanes run different chains: every warp runs both, half masked.
__global__ void mysteryB(const float* __restrict__ in, float* __restrict__ out, size_t n,
                         int iters) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  const float x = (i < n) ? in[i] : 0.0f;
  float y = 0.0f;
  if ((threadIdx.x & 1u) == 0u) {
    y = runChains(x, kMysteryMulA, kMysteryAddA, iters);
  } else {
    y = runChains(x, kMysteryMulB, kMysteryAddB, iters);
  }
  if (i < n) out[i] = y;
}

// The same work without the branch; launched with and without a dynamic
// shared memory request it never reads.
__global__ void mysteryC(const float* __restrict__ in, float* __restrict__ out, size_t n,
                         int iters) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  const float x = (i < n) ? in[i] : 0.0f;
  const float y = runChains(x, kMysteryMulA, kMysteryAddA, iters);
  if (i < n) out[i] = y;
}

enum MysteryKernel { kMysteryA, kMysteryB, kMysteryC };

inline const void* mysteryFunc(MysteryKernel k) {
  switch (k) {
    case kMysteryA: return reinterpret_cast<const void*>(mysteryA);
    case kMysteryB: return reinterpret_cast<const void*>(mysteryB);
    default: return reinterpret_cast<const void*>(mysteryC);
  }
}

inline const char* mysteryName(MysteryKernel k) {
  return k == kMysteryA ? "mysteryA" : k == kMysteryB ? "mysteryB" : "mysteryC";
}

constexpr unsigned kMysteryGrid = static_cast<unsigned>(kMysteryN / kMysteryBlock);

// One launch over all kMysteryN elements; returns the launch's error.
inline cudaError_t launchMystery(MysteryKernel k, const float* in, float* out, size_t dynSmem,
                                 cudaStream_t s = 0) {
  switch (k) {
    case kMysteryA: mysteryA<<<kMysteryGrid, kMysteryBlock, dynSmem, s>>>(in, out, kMysteryN); break;
    case kMysteryB: mysteryB<<<kMysteryGrid, kMysteryBlock, dynSmem, s>>>(in, out, kMysteryN, kMysteryIters); break;
    case kMysteryC: mysteryC<<<kMysteryGrid, kMysteryBlock, dynSmem, s>>>(in, out, kMysteryN, kMysteryIters); break;
  }
  return cudaGetLastError();
}

inline float mysteryInput(size_t i) {
  return static_cast<float>(i % kMysteryDistinct) / static_cast<float>(kMysteryDistinct);
}

inline std::vector<float> mysteryInputs() {
  std::vector<float> in(kMysteryN);
  for (size_t i = 0; i < kMysteryN; ++i) in[i] = mysteryInput(i);
  return in;
}

// The expected output of kernel k at every element, for mysteryInputs().
inline std::vector<float> mysteryReference(MysteryKernel k) {
  std::vector<float> chainA(kMysteryDistinct), chainB(kMysteryDistinct);
  for (size_t v = 0; v < kMysteryDistinct; ++v) {
    chainA[v] = runChains(mysteryInput(v), kMysteryMulA, kMysteryAddA, kMysteryIters);
    chainB[v] = runChains(mysteryInput(v), kMysteryMulB, kMysteryAddB, kMysteryIters);
  }
  std::vector<float> ref(kMysteryN);
  for (size_t i = 0; i < kMysteryN; ++i) {
    const size_t v = i % kMysteryDistinct;
    switch (k) {
      case kMysteryA: ref[i] = fmaf(mysteryInput(i), kMysteryScale, kMysteryBias); break;
      // threadIdx.x parity is i's parity because the block size is even
      case kMysteryB: ref[i] = (i & 1u) == 0u ? chainA[v] : chainB[v]; break;
      case kMysteryC: ref[i] = chainA[v]; break;
    }
  }
  return ref;
}
