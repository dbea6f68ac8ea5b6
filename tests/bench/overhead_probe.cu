// overhead_probe MODE: where a launch's host cost goes under CUPTI.
// Times 4096 launches of a 4096-thread kernel (seed 003's add_one) after a
// warm-up, in one of these modes, each in its own process:
//   plain     nothing attached
//   cb        CUPTI subscriber with the driver launch callbacks (empty body)
//   act       CONCURRENT_KERNEL activity only (buffers recycled, not decoded)
//   cbact     both
//   perfcheck a perfcheck timing session with a region around the launches
// Prints: RESULT mode=<m> us_per_launch=<x>
#include <cuda_runtime.h>
#include <cupti.h>
#include <perfcheck.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

__global__ void add_one(float *x, int offset, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[offset + i] += 1.0f;
}

static void CUPTIAPI empty_cb(void *, CUpti_CallbackDomain, CUpti_CallbackId, const void *) {}
static void CUPTIAPI buf_req(uint8_t **b, size_t *size, size_t *max) {
  *size = 4u << 20;
  *b = (uint8_t *)aligned_alloc(8, *size);
  *max = 0;
}
static void CUPTIAPI buf_done(CUcontext, uint32_t, uint8_t *b, size_t, size_t) { free(b); }

static double now_ms() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

#define CK(x)                                                              \
  do {                                                                     \
    if ((x) != 0) {                                                        \
      fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #x);      \
      return 2;                                                            \
    }                                                                      \
  } while (0)

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "plain";
  const int N = 1 << 24, PIECES = 4096, P = N / PIECES;
  float *x;
  CK(cudaMalloc(&x, N * sizeof(float)));
  CK(cudaMemset(x, 0, N * sizeof(float)));
  perfcheck_session *s = nullptr;
  if (!strcmp(mode, "cb") || !strcmp(mode, "cbact")) {
    CUpti_SubscriberHandle h;
    CK(cuptiSubscribe(&h, (CUpti_CallbackFunc)empty_cb, nullptr));
    CK(cuptiEnableCallback(1, h, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel));
  }
  if (!strcmp(mode, "act") || !strcmp(mode, "cbact")) {
    CK(cuptiActivityRegisterCallbacks(buf_req, buf_done));
    CK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  }
  if (!strcmp(mode, "perfcheck")) {
    perfcheck_options o;
    perfcheck_options_init(&o);
    o.mode = PERFCHECK_MODE_TIMING;
    CK(perfcheck_session_create(&o, &s));
  }
  for (int w = 0; w < 64; w++) add_one<<<P / 256, 256>>>(x, 0, P);  // warm-up, first-launch costs
  CK(cudaDeviceSynchronize());
  if (s) CK(perfcheck_session_begin(s, "tiny"));
  double t0 = now_ms();
  for (int p = 0; p < PIECES; p++) add_one<<<P / 256, 256>>>(x, p * P, P);
  double t1 = now_ms();
  CK(cudaDeviceSynchronize());
  double t2 = now_ms();
  if (s) CK(perfcheck_session_end(s));
  printf("RESULT mode=%s us_per_launch=%.3f sync_ms=%.3f\n", mode, (t1 - t0) * 1e3 / PIECES, t2 - t1);
  perfcheck_session_destroy(s);
  CK(cudaFree(x));
  return 0;
}
