// multigpu_prog.cu: a plain CUDA program (no link to perfcheck, built like
// kernels/) for the multi-process GPU tests (test_multigpu.sh parts ranks
// and visible): 20 launches of one saxpy over 1M floats on device 0 (as
// the process numbers it: CUDA_VISIBLE_DEVICES picks which GPU that is),
// checked on the host.  Exit 0 when the result is right, 1 otherwise.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

__global__ void mg_saxpy(float a, const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

int main() {
  const int n = 1 << 20, launches = 20;
  std::vector<float> hx(n, 1.0f), hy(n, 0.0f);
  float *x = nullptr, *y = nullptr;
  if (cudaSetDevice(0) != cudaSuccess || cudaMalloc(&x, n * sizeof(float)) != cudaSuccess ||
      cudaMalloc(&y, n * sizeof(float)) != cudaSuccess) {
    std::fprintf(stderr, "multigpu_prog: no usable device: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(y, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  for (int i = 0; i < launches; i++) mg_saxpy<<<(n + 255) / 256, 256>>>(2.0f, x, y, n);
  cudaMemcpy(hy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost);
  const cudaError_t e = cudaDeviceSynchronize();
  cudaFree(x);
  cudaFree(y);
  if (e != cudaSuccess || hy[0] != 2.0f * launches || hy[n - 1] != 2.0f * launches) {
    std::fprintf(stderr, "multigpu_prog: wrong result %g (%s)\n", hy[0], cudaGetErrorString(e));
    return 1;
  }
  std::printf("multigpu_prog: %d launches of mg_saxpy on device 0: ok\n", launches);
  return 0;
}
