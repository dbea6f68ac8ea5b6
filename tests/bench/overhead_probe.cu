// overhead_probe MODE: where a launch's host cost goes under CUPTI.
// Times ROUNDS rounds (environment, 16) of 4096 launches of a 4096-thread
// kernel (seed 003's add_one) after a warm-up, in one of these modes, each in
// its own process:
//   plain     nothing attached (also the mode to run under nsys)
//   cb        CUPTI subscriber with the driver launch callbacks (empty body)
//   act       CONCURRENT_KERNEL activity only (buffers recycled, not decoded)
//   actz      act with buffers the probe zeroes (calloc) and
//             CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER=1, so CUPTI does
//             not zero them on the launching thread
//   actpin    act with CUPTI's device-side record buffers in pinned host
//             memory (CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED=1)
//   cbact     cb and act
//   perfcheck a perfcheck timing session with a region around the launches
// The rounds are timed one by one; the figure is their median, which a slow
// round (a buffer handed over, the host busy) does not move.
// Prints: RESULT mode=<m> us_per_launch=<median> min_us=<x> max_us=<x>
//         rounds=<n> sync_ms=<x>
#include <cuda_runtime.h>
#include <cupti.h>
#include <perfcheck.h>

#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <ctime>
#include <vector>

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
static void CUPTIAPI buf_req_zeroed(uint8_t **b, size_t *size, size_t *max) {
  *size = 4u << 20;
  *b = (uint8_t *)calloc(1, *size);
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
  const char *re = getenv("ROUNDS");
  const int rounds = re && atoi(re) > 0 ? atoi(re) : 16;
  const bool act = !strcmp(mode, "act") || !strcmp(mode, "actz") || !strcmp(mode, "actpin") || !strcmp(mode, "cbact");
  const bool cb = !strcmp(mode, "cb") || !strcmp(mode, "cbact");
  if (!act && !cb && strcmp(mode, "plain") && strcmp(mode, "perfcheck")) {
    fprintf(stderr, "overhead_probe: unknown mode %s\n", mode);
    return 64;
  }
  // Attributes that apply to buffers and contexts made later: before CUDA.
  if (!strcmp(mode, "actpin")) {
    uint8_t one = 1;
    size_t sz = sizeof one;
    CK(cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED, &sz, &one));
  }
  if (!strcmp(mode, "actz")) {
    uint8_t one = 1;
    size_t sz = sizeof one;
    CK(cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &sz, &one));
  }
  float *x;
  CK(cudaMalloc(&x, N * sizeof(float)));
  CK(cudaMemset(x, 0, N * sizeof(float)));
  perfcheck_session *s = nullptr;
  if (cb) {
    CUpti_SubscriberHandle h;
    CK(cuptiSubscribe(&h, (CUpti_CallbackFunc)empty_cb, nullptr));
    CK(cuptiEnableCallback(1, h, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel));
  }
  if (act) {
    CK(cuptiActivityRegisterCallbacks(!strcmp(mode, "actz") ? buf_req_zeroed : buf_req, buf_done));
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
  std::vector<double> us(rounds);
  double sync_ms = 0;
  for (int r = 0; r < rounds; r++) {
    double t0 = now_ms();
    for (int p = 0; p < PIECES; p++) add_one<<<P / 256, 256>>>(x, p * P, P);
    double t1 = now_ms();
    CK(cudaDeviceSynchronize());  // each round starts from an idle GPU
    sync_ms += now_ms() - t1;
    us[r] = (t1 - t0) * 1e3 / PIECES;
  }
  if (s) CK(perfcheck_session_end(s));
  std::vector<double> sorted = us;
  std::sort(sorted.begin(), sorted.end());
  const double med = rounds % 2 ? sorted[rounds / 2] : (sorted[rounds / 2 - 1] + sorted[rounds / 2]) / 2;
  printf("RESULT mode=%s us_per_launch=%.3f min_us=%.3f max_us=%.3f rounds=%d sync_ms=%.3f\n", mode, med, sorted[0],
         sorted[rounds - 1], rounds, sync_ms / rounds);
  perfcheck_session_destroy(s);
  CK(cudaFree(x));
  return 0;
}
