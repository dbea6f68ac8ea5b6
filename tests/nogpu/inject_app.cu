/* inject_app [EXIT_CODE]: a CUDA program that knows nothing of perfcheck
 * (plain nvcc, static cudart, no link to libperfcheck), for the injection
 * library's no-GPU tests (inject_test.sh).  It prints what it does on stdout
 * and exits with EXIT_CODE (default 0) whether or not a GPU was usable, so
 * that the test can check that the injection library changes neither. */
#include <cstdio>
#include <cstdlib>

__global__ void inject_app_scale(float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

int main(int argc, char **argv) {
  const int code = argc > 1 ? std::atoi(argv[1]) : 0;
  std::printf("inject_app: start\n");
  const int n = 1 << 16;
  float *x = nullptr;
  cudaError_t e = cudaMalloc(&x, n * sizeof(float));
  if (e == cudaSuccess) {
    inject_app_scale<<<(n + 255) / 256, 256>>>(x, 2.0f, n);
    e = cudaDeviceSynchronize();
    cudaFree(x);
    std::printf("inject_app: kernel %s\n", e == cudaSuccess ? "ran" : "failed");
  } else {
    std::printf("inject_app: no usable GPU\n");
  }
  std::printf("inject_app: exit %d\n", code);
  return code;
}
