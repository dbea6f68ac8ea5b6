// kernel_structs: read a report's per-kernel entries as structs and by name.
// Two launch shapes of one kernel make two entries.
#include <cmath>
#include <cstdio>

#include <cuda_runtime.h>

#include "perfcheck.h"

__global__ void saxpy(float a, const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

static void printNumber(const char* label, double v) {
  if (std::isnan(v)) std::printf("  %-22s not measured\n", label);
  else std::printf("  %-22s %.6g\n", label, v);
}

int main() {
  perfcheck_session* s = nullptr;
  const perfcheck_status st = perfcheck_session_create(nullptr, &s);
  if (st != PERFCHECK_OK)
    std::fprintf(stderr, "perfcheck: %s: %s; running without it\n", perfcheck_strerror(st),
                 perfcheck_last_error_message());

  const int n = 1 << 22;
  float *x = nullptr, *y = nullptr;
  if (cudaMalloc(&x, n * sizeof(float)) != cudaSuccess || cudaMalloc(&y, n * sizeof(float)) != cudaSuccess ||
      cudaMemset(x, 0, n * sizeof(float)) != cudaSuccess || cudaMemset(y, 0, n * sizeof(float)) != cudaSuccess) {
    std::fprintf(stderr, "CUDA setup failed: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  if (s) perfcheck_session_begin(s, "saxpy");
  saxpy<<<n / 256, 256>>>(2.0f, x, y, n);
  saxpy<<<n / 1024, 1024>>>(2.0f, x, y, n);
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::fprintf(stderr, "saxpy failed: %s\n", cudaGetErrorString(e));
    return 1;
  }
  if (s) perfcheck_session_end(s);
  const perfcheck_report* r = nullptr;
  if (s) perfcheck_session_report(s, &r);
  for (size_t i = 0; i < perfcheck_report_kernel_count(r); ++i) {
    perfcheck_kernel_info k;
    k.size = sizeof k;  // tells the library how much of the struct this program knows
    if (perfcheck_report_kernel(r, i, &k) != PERFCHECK_OK) continue;
    std::printf("%s in %s: grid %u, block %u, %llu launch(es)\n", k.name, k.region ? k.region : "(none)",
                k.grid[0], k.block[0], static_cast<unsigned long long>(k.launches));
    printNumber("median duration ns", k.duration_ns_median);
    printNumber("registers per thread", k.registers_per_thread);
    printNumber("blocks per SM", k.blocks_per_sm);
    printNumber("theoretical occ %", k.theoretical_occupancy_pct);
    double ld = NAN;  // by name: NOT_MEASURED when counters were not collected
    const perfcheck_status vs = perfcheck_report_kernel_value(r, i, "sectors_per_request_ld", &ld);
    if (vs == PERFCHECK_OK) printNumber("sectors per request ld", ld);
    else std::printf("  %-22s %s\n", "sectors per request ld", perfcheck_strerror(vs));
    std::printf("  verdict: step %d, %s (%s bound)\n", k.step, perfcheck_cause_name(k.cause),
                perfcheck_bound_name(k.bound));
  }
  perfcheck_session_destroy(s);
  cudaFree(x);
  cudaFree(y);
  return 0;
}
