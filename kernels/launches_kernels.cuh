// launches_kernels.cuh: seed 003's add_one, as one launch over 16M floats or
// as 4096 launches of 4096 threads (shared by kernels/launches.cu and the GPU
// tests).
#pragma once

#include <cuda_runtime.h>

constexpr int kLaunchN = 1 << 24;                  // 16,777,216 floats
constexpr int kLaunchPieces = 4096;                // small launches
constexpr int kLaunchPiece = kLaunchN / kLaunchPieces;  // 4096 threads each
constexpr int kLaunchBlock = 256;                  // grid 16 x 256 for a piece

__global__ void add_one(float* x, int offset, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[offset + i] += 1.0f;
}

// One launch over all kLaunchN elements.
inline cudaError_t launchAddOneAll(float* x, cudaStream_t s = 0) {
  add_one<<<kLaunchN / kLaunchBlock, kLaunchBlock, 0, s>>>(x, 0, kLaunchN);
  return cudaGetLastError();
}

// Pieces [first, first + count) of the same work, one launch each.
inline cudaError_t launchAddOnePieces(float* x, int first = 0, int count = kLaunchPieces,
                                      cudaStream_t s = 0) {
  for (int p = first; p < first + count; ++p) {
    add_one<<<kLaunchPiece / kLaunchBlock, kLaunchBlock, 0, s>>>(x, p * kLaunchPiece, kLaunchPiece);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}
