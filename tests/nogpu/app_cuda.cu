/* The CUDA version of app.c: a program with a <<<>>> launch that links
 * libperfcheck.  Without a GPU (or with the stub driver) it runs to its own
 * exit code (42); with one, it also checks that the session saw its launch. */
#include <cuda_runtime.h>
#include <stdio.h>

#include "perfcheck.h"

__global__ void app_scale(float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

int main(void) {
  perfcheck_options o;
  perfcheck_options_init(&o);
  o.quiet = 1;
  o.mode = PERFCHECK_MODE_TIMING;
  perfcheck_session *s = NULL;
  perfcheck_status st = perfcheck_session_create(&o, &s);
  if (st != PERFCHECK_OK)
    fprintf(stderr, "app: perfcheck unavailable (%s): %s; running without it\n", perfcheck_strerror(st),
            perfcheck_last_error_message());
  const int n = 1 << 20;
  float *x = NULL;
  cudaError_t err = cudaMalloc(&x, n * sizeof(float));
  if (err != cudaSuccess) {
    fprintf(stderr, "app: no usable GPU (%s): CPU only\n", cudaGetErrorString(err));
    perfcheck_session_destroy(s);
    return 42;
  }
  perfcheck_session_begin(s, "scale");
  app_scale<<<(n + 255) / 256, 256>>>(x, 2.0f, n);
  err = cudaDeviceSynchronize();
  perfcheck_session_end(s);
  cudaFree(x);
  if (err != cudaSuccess) {
    fprintf(stderr, "app: kernel failed: %s\n", cudaGetErrorString(err));
    return 1;
  }
  if (s) {
    const perfcheck_report *r = NULL;
    perfcheck_kernel_info k;
    k.size = sizeof k;
    if (perfcheck_session_report(s, &r) != PERFCHECK_OK || perfcheck_report_kernel_count(r) != 1 ||
        perfcheck_report_kernel(r, 0, &k) != PERFCHECK_OK || k.launches != 1) {
      fprintf(stderr, "app: the session did not see exactly one launch of app_scale\n");
      perfcheck_session_destroy(s);
      return 1;
    }
  }
  perfcheck_session_destroy(s);
  return 42;
}
