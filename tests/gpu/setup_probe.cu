// setup_probe: what does a process pay before its first profiled launch, and
// can that be paid off the launch's path?  (issue 21, item 5: "first enable
// off the critical path"; docs/cupti.md §19.)  No test: scripts/device/bench
// counters runs it, one mode a process, and keeps its output.
//
// perfcheck's first profiled launch on the H200 (2026-12-02) paid "chip
// setup" 137 ms (the counter availability image, the host object and the
// config image) and a first Start of 141 ms.  This program drives CUPTI
// directly (no perfcheck), one one-pass config (DRAM, L2, L1TEX and the
// duration), and times each step in a fresh process:
//   order    context, cuptiProfilerInitialize, GetCounterAvailability (twice),
//            the host object and config image, Enable, SetConfig, the first
//            Start, a profiled launch, Stop, Decode; then a second session on
//            the same object and one on a fresh object;
//   noavail  the same without the availability image (the config built with
//            none): does Enable or the first Start then pay what it cost?
//   early    the availability image, config, Enable, SetConfig and a
//            Start/Stop with no launch done on a second thread right after
//            the context exists, while the main thread does 300 ms of host
//            work; then the main thread's first profiled launch: did the
//            work overlap, and is the object then warm?
// Lines: "SETUP <mode> <step> <ms>", "SETUP <mode> avail_hash <hex> <bytes>"
// (is the image the same in every process?) and "VALUES <mode> ...".
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "cupti_probe.cuh"

using Clock = std::chrono::steady_clock;

static const char* g_mode = "order";
static void say(const char* step, double ms) { std::printf("SETUP %s %s %.2f\n", g_mode, step, ms); }

struct Setup {
  CUcontext ctx = nullptr;
  char chip[64] = "";
  std::vector<uint8_t> avail, config, image;
  CUpti_Profiler_Host_Object* host = nullptr;
  CUpti_RangeProfiler_Object* obj = nullptr;

  void availability() {
    P(CUpti_Profiler_GetCounterAvailability_Params);
    p.ctx = ctx;
    CK(cuptiProfilerGetCounterAvailability(&p));
    avail.assign(p.counterAvailabilityImageSize, 0);
    p.pCounterAvailabilityImage = avail.data();
    CK(cuptiProfilerGetCounterAvailability(&p));
  }
  void build(bool with_avail) {
    {
      P(CUpti_Profiler_Host_Initialize_Params);
      p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
      p.pChipName = chip;
      p.pCounterAvailabilityImage = with_avail && !avail.empty() ? avail.data() : nullptr;
      CK(cuptiProfilerHostInitialize(&p));
      host = p.pHostObject;
    }
    {
      P(CUpti_Profiler_Host_ConfigAddMetrics_Params);
      p.pHostObject = host;
      p.ppMetricNames = kNames;
      p.numMetrics = kN;
      CK(cuptiProfilerHostConfigAddMetrics(&p));
    }
    P(CUpti_Profiler_Host_GetConfigImageSize_Params);
    p.pHostObject = host;
    CK(cuptiProfilerHostGetConfigImageSize(&p));
    config.assign(p.configImageSize, 0);
  }
  void image_config() {
    P(CUpti_Profiler_Host_GetConfigImage_Params);
    p.pHostObject = host;
    p.configImageSize = config.size();
    p.pConfigImage = config.data();
    CK(cuptiProfilerHostGetConfigImage(&p));
  }
  void enable() {
    if (obj) {
      P(CUpti_RangeProfiler_Disable_Params);
      p.pRangeProfilerObject = obj;
      CK(cuptiRangeProfilerDisable(&p));
      obj = nullptr;
    }
    P(CUpti_RangeProfiler_Enable_Params);
    p.ctx = ctx;
    CK(cuptiRangeProfilerEnable(&p));
    obj = p.pRangeProfilerObject;
  }
  void layout() {
    {
      P(CUpti_RangeProfiler_GetCounterDataSize_Params);
      p.pRangeProfilerObject = obj;
      p.pMetricNames = kNames;
      p.numMetrics = kN;
      p.maxNumOfRanges = 1;
      p.maxNumRangeTreeNodes = 1;
      CK(cuptiRangeProfilerGetCounterDataSize(&p));
      image.assign(p.counterDataSize, 0);
    }
    P(CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
    p.pRangeProfilerObject = obj;
    p.counterDataSize = image.size();
    p.pCounterData = image.data();
    CK(cuptiRangeProfilerCounterDataImageInitialize(&p));
  }
  void setconfig() {
    P(CUpti_RangeProfiler_SetConfig_Params);
    p.pRangeProfilerObject = obj;
    p.configSize = config.size();
    p.pConfig = config.data();
    p.counterDataImageSize = image.size();
    p.pCounterDataImage = image.data();
    p.range = CUPTI_AutoRange;
    p.replayMode = CUPTI_KernelReplay;
    p.maxRangesPerPass = 1;
    p.numNestingLevels = 1;
    p.minNestingLevel = 1;
    p.passIndex = 0;
    p.targetNestingLevel = 1;
    CK(cuptiRangeProfilerSetConfig(&p));
  }
  void start() {
    P(CUpti_RangeProfiler_Start_Params);
    p.pRangeProfilerObject = obj;
    CK(cuptiRangeProfilerStart(&p));
  }
  void stop_decode() {
    {
      P(CUpti_RangeProfiler_Stop_Params);
      p.pRangeProfilerObject = obj;
      CK(cuptiRangeProfilerStop(&p));
    }
    P(CUpti_RangeProfiler_DecodeData_Params);
    p.pRangeProfilerObject = obj;
    CK(cuptiRangeProfilerDecodeData(&p));
  }
  void values(const char* what) {
    double v[kN];
    P(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
    p.pHostObject = host;
    p.pCounterDataImage = image.data();
    p.counterDataImageSize = image.size();
    p.rangeIndex = 0;
    p.ppMetricNames = kNames;
    p.numMetrics = kN;
    p.pMetricValues = v;
    CK(cuptiProfilerHostEvaluateToGpuValues(&p));
    std::printf("VALUES %s %s: dram_read %.0f lts_sectors %.0f l1tex_ld_sectors %.0f duration_ns %.0f\n", g_mode, what,
                v[0], v[1], v[2], v[3]);
  }
};

// The steps before the first launch, each timed (on whichever thread runs it).
static void prepare(Setup& s, bool with_avail, bool start_stop) {
  auto t = Clock::now();
  if (with_avail) {
    s.availability();
    say("availability", ms_since(t));
    t = Clock::now();
    s.availability();
    say("availability_again", ms_since(t));
    uint64_t h = 1469598103934665603ull;
    for (uint8_t b : s.avail) h = (h ^ b) * 1099511628211ull;
    std::printf("SETUP %s avail_hash %016llx %zu\n", g_mode, (unsigned long long)h, s.avail.size());
  }
  t = Clock::now();
  s.build(with_avail);
  s.image_config();
  say("host_config", ms_since(t));
  t = Clock::now();
  s.enable();
  say("enable", ms_since(t));
  t = Clock::now();
  s.layout();
  say("layout", ms_since(t));
  t = Clock::now();
  s.setconfig();
  say("setconfig", ms_since(t));
  if (start_stop) {
    t = Clock::now();
    s.start();
    say("first_start", ms_since(t));
    t = Clock::now();
    s.stop_decode();
    say("stop_decode_empty", ms_since(t));
  }
}

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IONBF, 0);
  if (argc > 1) g_mode = argv[1];
  const bool early = std::strcmp(g_mode, "early") == 0;
  const bool noavail = std::strcmp(g_mode, "noavail") == 0;
  if (!early && !noavail && std::strcmp(g_mode, "order") != 0) {
    std::printf("usage: gpu_setup_probe order|noavail|early\n");
    return 2;
  }
  auto t = Clock::now();
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
    std::printf("SKIP: no GPU\n");
    return 77;
  }
  CU(cudaFree(0));
  say("context", ms_since(t));
  Setup s;
  if (cuCtxGetCurrent(&s.ctx) != CUDA_SUCCESS || !s.ctx) {
    std::printf("FAIL no current context\n");
    return 1;
  }
  t = Clock::now();
  load_nvperf_host();
  say("load_nvperf_host", ms_since(t));
  t = Clock::now();
  {
    P(CUpti_Profiler_Initialize_Params);
    CK(cuptiProfilerInitialize(&p));
  }
  {
    P(CUpti_Device_GetChipName_Params);
    p.deviceIndex = 0;
    CK(cuptiDeviceGetChipName(&p));
    std::snprintf(s.chip, sizeof s.chip, "%s", p.pChipName);
  }
  say("profiler_initialize", ms_since(t));

  const size_t bytes = (size_t)16 << 20;
  float4* x = nullptr;
  float* out = nullptr;
  auto app_work = [&]() {  // what a program does before its first kernel
    CU(cudaMalloc(&x, bytes));
    CU(cudaMemset(x, 0, bytes));
    CU(cudaMalloc(&out, 264 * sizeof(float)));
    CU(cudaDeviceSynchronize());
  };

  if (early) {
    auto t0 = Clock::now();
    std::thread bg([&]() {
      cuCtxSetCurrent(s.ctx);
      prepare(s, true, true);
    });
    app_work();
    const auto spin_until = t0 + std::chrono::milliseconds(300);
    volatile double sink = 0;  // host work, not a sleep: the core stays busy
    while (Clock::now() < spin_until) sink = sink + 1.0;
    say("main_thread_work", ms_since(t0));
    auto tj = Clock::now();
    bg.join();
    say("join_wait", ms_since(tj));
  } else {
    app_work();
    prepare(s, !noavail, false);
  }

  // One profiled launch: (Enable,) layout, config, Start timed as
  // start_label; the launch and Stop/Decode timed too when `timed`.
  auto profiled = [&](const char* start_label, const char* what, bool enable, bool relayout, bool timed) {
    auto t = Clock::now();
    if (enable) s.enable();
    if (relayout) s.layout();
    s.setconfig();
    s.start();
    say(start_label, ms_since(t));
    t = Clock::now();
    readAll<<<264, 256>>>(x, bytes / sizeof(float4), out);
    CU(cudaGetLastError());
    if (timed) say("launch_replay", ms_since(t));
    t = Clock::now();
    s.stop_decode();
    if (timed) say("stop_decode", ms_since(t));
    s.values(what);
  };
  // The first profiled launch (the object's first Start, unless early), a
  // second session on the same object, then one on a fresh object.
  profiled(early ? "start_after_early" : "first_start", "first", false, early, true);
  profiled("second_start", "second", false, true, false);
  profiled("fresh_object_start", "fresh", true, true, false);
  {
    P(CUpti_RangeProfiler_Disable_Params);
    p.pRangeProfilerObject = s.obj;
    CK(cuptiRangeProfilerDisable(&p));
  }
  {
    P(CUpti_Profiler_Host_Deinitialize_Params);
    p.pHostObject = s.host;
    CK(cuptiProfilerHostDeinitialize(&p));
  }
  std::printf("SETUP %s done\n", g_mode);
  return 0;
}
