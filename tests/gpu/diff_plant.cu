// diff_plant [--planted]: two kernels for `perfcheck diff` across a planted change.
//
// scale_copy reads 16M floats and writes them scaled.  By default lane i of a
// warp reads element i (coalesced: a warp's 128-byte request touches 4 sectors,
// all 32 bytes of each used).  With --planted the same kernel (same name, grid,
// block) reads element (i % 32) * (n / 32) + i / 32: the 32 lanes of a warp are
// n/32 floats (2 MiB) apart, so each lane fetches a sector of its own and uses
// 4 of its 32 bytes (32 sectors per request, 4 bytes per sector).  Every element
// is still read once: the output is a permutation of the scaled input, checked
// on the host.  axpy_steady is the same in both runs.
//
// Each kernel is launched 20 times (one profiled in counters mode, the others
// timed), so a report has a duration band for each.  Exit 0 when the results
// check, 1 otherwise.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); return 1; } } while (0)

__global__ void scale_copy(const float* __restrict__ in, float* __restrict__ out, unsigned n, int planted) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned j = planted ? (i % 32u) * (n / 32u) + i / 32u : i;
  out[i] = 2.0f * in[j];
}

__global__ void axpy_steady(const float* __restrict__ x, float* __restrict__ y, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 0.5f * x[i] + y[i];
}

int main(int argc, char** argv) {
  const int planted = argc > 1 && std::strcmp(argv[1], "--planted") == 0;
  const unsigned n = 1u << 24;
  std::vector<float> h(n);
  for (unsigned i = 0; i < n; i++) h[i] = (float)(i % 1000);
  float *in, *out, *y;
  CK(cudaMalloc(&in, n * sizeof(float)));
  CK(cudaMalloc(&out, n * sizeof(float)));
  CK(cudaMalloc(&y, n * sizeof(float)));
  CK(cudaMemcpy(in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemset(y, 0, n * sizeof(float)));
  const unsigned block = 256, grid = n / block;
  for (int r = 0; r < 20; r++) {
    scale_copy<<<grid, block>>>(in, out, n, planted);
    axpy_steady<<<grid, block>>>(in, y, n);
  }
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<float> o(n), yy(n);
  CK(cudaMemcpy(o.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(yy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost));
  unsigned bad = 0;
  for (unsigned i = 0; i < n; i++) {
    unsigned j = planted ? (i % 32u) * (n / 32u) + i / 32u : i;
    if (o[i] != 2.0f * h[j] || yy[i] != 10.0f * h[i]) bad++;
  }
  std::printf("diff_plant: %s, %u of %u elements wrong\n", planted ? "planted (uncoalesced scale_copy)" : "coalesced", bad, n);
  cudaFree(in); cudaFree(out); cudaFree(y);
  return bad ? 1 : 0;
}
