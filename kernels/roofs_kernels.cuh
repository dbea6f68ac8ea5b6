// roofs_kernels.cuh: three kernels, each at the roof of one unit that the
// default metric set measures by a counter of its own: the FP64 pipe, the XU
// (transcendental) pipe and L2 (shared by kernels/roofs.cu and the GPU
// check tests/gpu/metric_set_check.py).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

constexpr int kRoofsBlock = 256;
constexpr int kRoofsBlocksPerSm = 8;  // 2048 threads per SM where registers allow
constexpr int kRoofsChains = 4;       // independent dependency chains per thread
constexpr int kRoofsPeriod = 64;      // every result depends on (thread index mod 64) only
constexpr int kDfmaIters = 16384;
constexpr int kXuIters = 4096;
constexpr size_t kL2Int4 = size_t{1} << 19;  // 8 MiB of int4: well inside L2 (50 MB on an H200)

// A thread's starting values: exactly representable, different per chain.
__host__ __device__ inline double dfmaStart(unsigned t, int j) {
  return 1.0 + static_cast<double>(t % kRoofsPeriod) / 1024.0 + 0.25 * j;
}
__host__ __device__ inline float xuStart(unsigned t, int j) {
  return 1.0f + static_cast<float>(t % kRoofsPeriod) / 64.0f + 0.125f * static_cast<float>(j);
}
// The L2 buffer's contents: small integers.
__host__ __device__ inline int l2Value(size_t i, int lane) { return static_cast<int>((i * 7 + lane * 3) % 11) - 5; }

// FP64 pipe: four independent DFMA chains per thread, nothing else in the
// loop, so the FP64 pipe (sm__pipe_fp64_cycles_active) is the unit at its
// peak.  fma(a, m, c) is correctly rounded on the GPU and in std::fma, so the
// CPU reproduces every result bit for bit.
__global__ void dfma_chain(double* __restrict__ out, int iters, double m, double c) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  double a[kRoofsChains];
#pragma unroll
  for (int j = 0; j < kRoofsChains; ++j) a[j] = dfmaStart(t, j);
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < kRoofsChains; ++j) a[j] = fma(a[j], m, c);
  }
  double s = 0.0;
#pragma unroll
  for (int j = 0; j < kRoofsChains; ++j) s += a[j];
  out[t] = s;
}

// XU pipe: four independent chains of x = rsqrtf(x + c) and y = __sinf(y) + c
// per thread (MUFU.RSQ and MUFU.SIN, the transcendental unit, whose peak is a
// fraction of the FP32 pipe's), so sm__inst_executed_pipe_xu is the unit at
// its peak.  Both maps are contractions near their fixed points; the
// hardware's approximations are not reproducible on the CPU, so the check
// there is relative (1e-4) against the same iteration in double.
__global__ void xu_chain(float* __restrict__ out, int iters, float c) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  float x[kRoofsChains / 2], y[kRoofsChains / 2];
#pragma unroll
  for (int j = 0; j < kRoofsChains / 2; ++j) {
    x[j] = xuStart(t, j);
    y[j] = xuStart(t, j + kRoofsChains / 2);
  }
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < kRoofsChains / 2; ++j) {
      x[j] = rsqrtf(x[j] + c);
      y[j] = __sinf(y[j]) + c;
    }
  }
  float s = 0.0f;
#pragma unroll
  for (int j = 0; j < kRoofsChains / 2; ++j) s += x[j] + y[j];
  out[t] = s;
}

// L2: every block reads the whole 8 MiB buffer once with ld.global.cg (cached
// in L2, not in L1), 16 bytes a thread, so after the first touch every load
// is an L2 hit and DRAM idles: L2's throughput (ncu's lts__throughput and
// its sub-units) is the unit at its peak.  Each block starts at its own
// offset so that blocks do not read the same lines at the same time; thread
// t of every block reads the same elements {t + 256 m} in another order, so
// its sum depends on t only (integer sums, exact in any order).
__global__ void l2_read(const int4* __restrict__ buf, size_t n4, unsigned* __restrict__ out) {
  const size_t mask = n4 - 1;  // n4 is a power of two
  const size_t start = static_cast<size_t>(blockIdx.x) * blockDim.x * 37;
  unsigned s = 0;
  for (size_t k = threadIdx.x; k < n4; k += blockDim.x) {
    const int4 v = __ldcg(buf + ((k + start) & mask));
    s += static_cast<unsigned>(v.x + v.y + v.z + v.w);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
