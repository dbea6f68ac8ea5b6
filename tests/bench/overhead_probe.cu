// overhead_probe MODE: where a launch's host cost goes under CUPTI, and
// which way of attributing kernel records to launches costs least.
// Times ROUNDS rounds (environment, 16) of 4096 launches of a 4096-thread
// kernel (seed 003's add_one) after a warm-up, in one of these modes, each in
// its own process:
//   plain     nothing attached (also the mode to run under nsys)
//   cb        CUPTI subscriber with the driver cuLaunchKernel callback (empty body)
//   act       CONCURRENT_KERNEL activity only (buffers decoded and counted)
//   actz      act with buffers the probe zeroes (calloc) and
//             CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER=1, so CUPTI does
//             not zero them on the launching thread
//   actpin    act with CUPTI's device-side record buffers in pinned host
//             memory (CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED=1)
//   cbact     cb and act
//   ext       act, plus EXTERNAL_CORRELATION records and one external id
//             pushed and popped per round (a region), as Kineto does per op
//   api       act, plus driver API records of the launch calls only
//             (cuptiActivityEnableDriverApi on perfcheck's launch ids): each
//             launch's return value and host interval, with no callback
//   extapi    ext and api together (Kineto's set: API records carry the
//             external ids)
//   cball     act, plus ENTER and EXIT callbacks on every launch id perfcheck
//             subscribes (the launch callbacks as perfcheck has them), with a
//             body that reads the parameters and looks the signature up
//   cbuntil   cball until the signatures are known: after SIG_QUIET (64)
//             launches in a row with no new signature, the EXIT callback turns
//             the launch callbacks off (cuptiEnableCallback(0, ...)); the
//             activity decoder turns them on again when a kernel record
//             names a kernel the callbacks never saw (checked at the end
//             with a second kernel)
//   cbwarm    cball with the callbacks turned off by the main thread after
//             the warm-up (cbuntil's answer if turning them off inside a
//             callback is refused or hangs)
//   fence     cbwarm, and a region's bounds as correlation ids: a callback
//             on cuDriverGetVersion only, which the probe calls before and
//             after each round; are a round's kernel records exactly those
//             whose correlation id lies between its two (fenced=)?  Then a
//             region needs no callback per launch to claim its kernels,
//             whatever thread launched them
//   perfcheck a perfcheck timing session with a region around the launches
// The rounds are timed one by one; the figure is their median, which a slow
// round (a buffer handed over, the host busy) does not move.  After the
// rounds every mode launches one kernel that must fail (1025 threads a
// block) and says whether it saw that launch fail.
// Prints: RESULT mode=<m> us_per_launch=<median> min_us=<x> max_us=<x>
//         rounds=<n> sync_ms=<x> kernels=<kernel records> api=<API records>
//         ext=<external correlation records> matched=<kernel records whose
//         correlation id has an API record (api modes) or an external id
//         (ext modes)> fences=<fence callbacks> fenced=<kernel records
//         between a round's fences; 65536 expected> callbacks=<launch callbacks> failed_seen=<0|1>
//         cb_off_rc=<cuptiEnableCallback(0) result, cbuntil> cb_off_us=<its
//         time> cb_on_again=<times the decoder turned callbacks on again>
// scripts/device/timing_probe.sh runs every mode, alternated, and prints the
// table.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <perfcheck.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <unordered_map>
#include <vector>

__global__ void add_one(float *x, int offset, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[offset + i] += 1.0f;
}
__global__ void add_two(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 2.0f;
}

static double now_ms() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

// ---- what the modes count ------------------------------------------------------
static const CUpti_CallbackId kLaunchIds[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,           CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,         CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,            CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
};
static const size_t kNumLaunchIds = sizeof kLaunchIds / sizeof kLaunchIds[0];

static std::mutex g_mu;  // the decoder's tables (CUPTI's buffer thread, then main)
static std::unordered_map<uint32_t, uint64_t> g_ext;  // correlation id -> external id
static std::unordered_map<uint32_t, int> g_api;       // correlation id -> driver return value
static std::vector<uint32_t> g_kernel_corr;
static std::vector<uint32_t> g_fences;  // fence: correlation ids of cuDriverGetVersion, two a round
static long g_kernels, g_api_records, g_ext_records;
static std::atomic<long> g_callbacks{0}, g_failed_cb{0}, g_on_again{0};
static CUpti_SubscriberHandle g_sub;
static bool g_until;                     // cbuntil, cbwarm
static bool g_warm;                      // cbwarm
static std::atomic<int> g_cb_on{0};      // launch callbacks enabled
static int g_quiet;                      // launches in a row with a known signature (launching thread)
static int g_off_rc = -1;
static double g_off_us = -1;
static const int SIG_QUIET = 64;

// A small signature table: (function, grid, block, smem) keys, linear probing.
struct SigKey {
  void *f;
  unsigned g[3], b[3], smem;
};
static SigKey g_sigs[256];
static bool g_used[256];
static bool sig_lookup_insert(const SigKey &k) {  // true when it was known
  uint64_t h = 1469598103934665603ull;
  const unsigned char *p = (const unsigned char *)&k;
  for (size_t i = 0; i < sizeof k; i++) h = (h ^ p[i]) * 1099511628211ull;
  for (size_t i = 0; i < 256; i++) {
    size_t s = (h + i) & 255;
    if (!g_used[s]) {
      g_used[s] = true;
      g_sigs[s] = k;
      return false;
    }
    if (!memcmp(&g_sigs[s], &k, sizeof k)) return true;
  }
  return true;
}

static int set_launch_callbacks(int on) {
  int rc = 0;
  for (size_t i = 0; i < kNumLaunchIds; i++) {
    CUptiResult r = cuptiEnableCallback(on, g_sub, CUPTI_CB_DOMAIN_DRIVER_API, kLaunchIds[i]);
    if (r != CUPTI_SUCCESS) rc = (int)r;
  }
  if (!rc) g_cb_on.store(on);
  return rc;
}

static void CUPTIAPI empty_cb(void *, CUpti_CallbackDomain, CUpti_CallbackId, const void *) {}

// The launch callback of cball and cbuntil: ENTER reads the parameters and
// looks the signature up; EXIT reads the return value.
static void CUPTIAPI launch_cb(void *, CUpti_CallbackDomain dom, CUpti_CallbackId cbid, const void *data) {
  if (dom != CUPTI_CB_DOMAIN_DRIVER_API) return;
  const CUpti_CallbackData *cb = (const CUpti_CallbackData *)data;
  if (cbid == CUPTI_DRIVER_TRACE_CBID_cuDriverGetVersion) {
    if (cb->callbackSite == CUPTI_API_ENTER) {
      std::lock_guard<std::mutex> l(g_mu);
      g_fences.push_back(cb->correlationId);
    }
    return;
  }
  if (cb->callbackSite == CUPTI_API_ENTER) {
    g_callbacks++;
    SigKey k;
    memset(&k, 0, sizeof k);
    if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel && cb->functionParams) {
      const cuLaunchKernel_params *q = (const cuLaunchKernel_params *)cb->functionParams;
      k.f = (void *)q->f;
      k.g[0] = q->gridDimX, k.g[1] = q->gridDimY, k.g[2] = q->gridDimZ;
      k.b[0] = q->blockDimX, k.b[1] = q->blockDimY, k.b[2] = q->blockDimZ;
      k.smem = q->sharedMemBytes;
    }
    g_quiet = sig_lookup_insert(k) ? g_quiet + 1 : 0;
    if (cb->correlationData) *cb->correlationData = 1;
    return;
  }
  if (cb->functionReturnValue && *(const CUresult *)cb->functionReturnValue != CUDA_SUCCESS) g_failed_cb++;
  if (g_until && !g_warm && g_quiet >= SIG_QUIET && g_cb_on.load()) {
    double t0 = now_ms();
    g_off_rc = set_launch_callbacks(0);
    g_off_us = (now_ms() - t0) * 1e3;
  }
}

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
static void CUPTIAPI buf_done(CUcontext, uint32_t, uint8_t *b, size_t, size_t valid) {
  CUpti_Activity *rec = nullptr;
  bool unseen_kernel = false;
  {
    std::lock_guard<std::mutex> l(g_mu);
    while (cuptiActivityGetNextRecord(b, valid, &rec) == CUPTI_SUCCESS) {
      switch (rec->kind) {
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        case CUPTI_ACTIVITY_KIND_KERNEL: {
          const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)rec;
          g_kernels++;
          g_kernel_corr.push_back(k->correlationId);
          if (k->name && !strstr(k->name, "add_one")) unseen_kernel = true;
          break;
        }
        case CUPTI_ACTIVITY_KIND_DRIVER:
        case CUPTI_ACTIVITY_KIND_RUNTIME: {
          const CUpti_ActivityAPI *a = (const CUpti_ActivityAPI *)rec;
          g_api_records++;
          g_api[a->correlationId] = (int)a->returnValue;
          break;
        }
        case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
          const CUpti_ActivityExternalCorrelation *e = (const CUpti_ActivityExternalCorrelation *)rec;
          g_ext_records++;
          g_ext[e->correlationId] = e->externalId;
          break;
        }
        default:
          break;
      }
    }
  }
  // cbuntil: a kernel the callbacks never saw turns them on again (here, on
  // CUPTI's buffer thread, not inside an API callback).
  if (g_until && unseen_kernel && !g_cb_on.load() && set_launch_callbacks(1) == 0) g_on_again++;
  free(b);
}

#define CK(x)                                                              \
  do {                                                                     \
    if ((x) != 0) {                                                        \
      fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #x);      \
      return 2;                                                            \
    }                                                                      \
  } while (0)

static bool is(const char *mode, const char *a) { return !strcmp(mode, a); }

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "plain";
  const int N = 1 << 24, PIECES = 4096, P = N / PIECES;
  const char *re = getenv("ROUNDS");
  const int rounds = re && atoi(re) > 0 ? atoi(re) : 16;
  const bool ext = is(mode, "ext") || is(mode, "extapi");
  const bool api = is(mode, "api") || is(mode, "extapi");
  const bool fence = is(mode, "fence");
  const bool cball = is(mode, "cball") || is(mode, "cbuntil") || is(mode, "cbwarm") || fence;
  const bool act = is(mode, "act") || is(mode, "actz") || is(mode, "actpin") || is(mode, "cbact") || ext || api || cball;
  const bool cb = is(mode, "cb") || is(mode, "cbact");
  g_until = is(mode, "cbuntil") || is(mode, "cbwarm");
  g_warm = is(mode, "cbwarm") || fence;
  if (!act && !cb && !is(mode, "plain") && !is(mode, "perfcheck")) {
    fprintf(stderr, "overhead_probe: unknown mode %s\n", mode);
    return 64;
  }
  // Attributes that apply to buffers and contexts made later: before CUDA.
  if (is(mode, "actpin")) {
    uint8_t one = 1;
    size_t sz = sizeof one;
    CK(cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED, &sz, &one));
  }
  if (is(mode, "actz")) {
    uint8_t one = 1;
    size_t sz = sizeof one;
    CK(cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &sz, &one));
  }
  float *x;
  CK(cudaMalloc(&x, N * sizeof(float)));
  CK(cudaMemset(x, 0, N * sizeof(float)));
  perfcheck_session *s = nullptr;
  if (cb) {
    CK(cuptiSubscribe(&g_sub, (CUpti_CallbackFunc)empty_cb, nullptr));
    CK(cuptiEnableCallback(1, g_sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel));
  }
  if (cball) {
    CK(cuptiSubscribe(&g_sub, (CUpti_CallbackFunc)launch_cb, nullptr));
    CK(set_launch_callbacks(1));
    if (fence) CK(cuptiEnableCallback(1, g_sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuDriverGetVersion));
  }
  if (act) {
    CK(cuptiActivityRegisterCallbacks(is(mode, "actz") ? buf_req_zeroed : buf_req, buf_done));
    CK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  }
  if (ext) CK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION));
  if (api)
    for (size_t i = 0; i < kNumLaunchIds; i++) CK(cuptiActivityEnableDriverApi(kLaunchIds[i], 1));
  if (is(mode, "perfcheck")) {
    perfcheck_options o;
    perfcheck_options_init(&o);
    o.mode = PERFCHECK_MODE_TIMING;
    CK(perfcheck_session_create(&o, &s));
  }
  for (int w = 0; w < 64; w++) add_one<<<P / 256, 256>>>(x, 0, P);  // warm-up, first-launch costs
  CK(cudaDeviceSynchronize());
  if (g_warm) {
    double t0 = now_ms();
    g_off_rc = set_launch_callbacks(0);
    g_off_us = (now_ms() - t0) * 1e3;
  }
  if (s) CK(perfcheck_session_begin(s, "tiny"));
  std::vector<double> us(rounds);
  double sync_ms = 0;
  for (int r = 0; r < rounds; r++) {
    double t0 = now_ms();
    int drv = 0;
    if (fence) CK(cuDriverGetVersion(&drv));
    if (ext) CK(cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, (uint64_t)r + 1));
    for (int p = 0; p < PIECES; p++) add_one<<<P / 256, 256>>>(x, p * P, P);
    if (ext) CK(cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, nullptr));
    if (fence) CK(cuDriverGetVersion(&drv));
    double t1 = now_ms();
    CK(cudaDeviceSynchronize());  // each round starts from an idle GPU
    sync_ms += now_ms() - t1;
    us[r] = (t1 - t0) * 1e3 / PIECES;
  }
  // A launch that fails (more threads a block than any GPU allows): who saw it?
  add_one<<<1, 1025>>>(x, 0, 1);
  const bool failed = cudaGetLastError() != cudaSuccess;
  // A second kernel: the activity decoder of cbuntil turns callbacks on again.
  add_two<<<P / 256, 256>>>(x, P);
  CK(cudaDeviceSynchronize());
  if (s) CK(perfcheck_session_end(s));
  if (act) CK(cuptiActivityFlushAll(1));
  long matched = 0, fenced = -1;
  bool failed_seen = false;
  {
    std::lock_guard<std::mutex> l(g_mu);
    if (fence) {  // kernel records inside some round's pair of fences
      fenced = 0;
      for (uint32_t c : g_kernel_corr)
        for (size_t i = 0; i + 1 < g_fences.size(); i += 2)
          if (g_fences[i] < c && c < g_fences[i + 1]) {
            fenced++;
            break;
          }
    }
    for (uint32_t c : g_kernel_corr)
      if ((api && g_api.count(c)) || (!api && ext && g_ext.count(c))) matched++;
    for (auto &kv : g_api)
      if (kv.second != 0) failed_seen = true;
  }
  if (g_failed_cb.load() > 0) failed_seen = true;
  std::vector<double> sorted = us;
  std::sort(sorted.begin(), sorted.end());
  const double med = rounds % 2 ? sorted[rounds / 2] : (sorted[rounds / 2 - 1] + sorted[rounds / 2]) / 2;
  printf("RESULT mode=%s us_per_launch=%.3f min_us=%.3f max_us=%.3f rounds=%d sync_ms=%.3f kernels=%ld api=%ld ext=%ld "
         "matched=%ld fences=%zu fenced=%ld callbacks=%ld failed_launch=%d failed_seen=%d cb_off_rc=%d cb_off_us=%.1f cb_on_again=%ld\n",
         mode, med, sorted[0], sorted[rounds - 1], rounds, sync_ms / rounds, g_kernels, g_api_records, g_ext_records,
         matched, g_fences.size(), fenced, g_callbacks.load(), failed ? 1 : 0, failed_seen ? 1 : 0, g_off_rc, g_off_us, g_on_again.load());
  perfcheck_session_destroy(s);
  CK(cudaFree(x));
  return 0;
}
