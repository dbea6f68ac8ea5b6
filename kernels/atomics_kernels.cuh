// atomics_kernels.cuh: two global-atomic kernels (shared by kernels/atomics.cu
// and the GPU tests).  histogram16 uses the value atomicAdd returns, so it
// compiles to ATOM (lts__t_requests_op_atom); sumAll ignores it, so it
// compiles to RED (lts__t_requests_op_red).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

constexpr int kAtomicsN = 1 << 22;  // 4,194,304 elements
constexpr int kAtomicsBins = 16;
constexpr int kAtomicsBlock = 256;
constexpr unsigned kAtomicsGrid = kAtomicsN / kAtomicsBlock;

// Every thread takes a ticket from one of 16 global counters and keeps it:
// 4M threads on 16 addresses.
__global__ void histogram16(const unsigned* __restrict__ in, unsigned* bins,
                            unsigned* __restrict__ ticket, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) ticket[i] = atomicAdd(&bins[in[i] % kAtomicsBins], 1u);
}

// Every thread adds its element to one global sum and never reads it back.
__global__ void sumAll(const unsigned* __restrict__ in, unsigned long long* sum, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(sum, static_cast<unsigned long long>(in[i]));
}

inline cudaError_t launchHistogram16(const unsigned* in, unsigned* bins, unsigned* ticket,
                                     cudaStream_t s = 0) {
  histogram16<<<kAtomicsGrid, kAtomicsBlock, 0, s>>>(in, bins, ticket, kAtomicsN);
  return cudaGetLastError();
}

inline cudaError_t launchSumAll(const unsigned* in, unsigned long long* sum, cudaStream_t s = 0) {
  sumAll<<<kAtomicsGrid, kAtomicsBlock, 0, s>>>(in, sum, kAtomicsN);
  return cudaGetLastError();
}

// Pseudo-random values below 2^20 (a multiplicative hash of the index).
inline unsigned atomicsInput(uint32_t i) { return (i * 2654435761u) >> 12; }
