// setup_probe: what does a process pay before its first profiled launch, and
// can that be paid off the launch's path, or once for every process?
// (docs/cupti.md §19.)  No test: scripts/device/bench counters and
// scripts/device/timing_probe.sh run it, one mode a process, and keep its
// output.
//
// This program drives CUPTI directly (no perfcheck), one one-pass config
// (DRAM, L2, L1TEX and the duration) unless PROBE_METRICS names a list, and
// times each step in a fresh process:
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
//   cfgsave FILE  the host object, AddMetrics and the config image of the
//            metric list (PROBE_METRICS, comma-separated; names CUPTI does
//            not know are dropped and counted), each step timed; the image,
//            the list and a counter data image fresh from Initialize written
//            to FILE; one profiled launch (kernel replay), its values;
//   cfgload FILE  the config image read from FILE (another process's), a host
//            object made with no AddMetrics; one profiled launch with that
//            image; evaluated on the bare host object (does evaluation need
//            AddMetrics?), and, if that is refused, after AddMetrics; then a
//            second launch whose counter data image is FILE's copy, not
//            initialized here (can that be cached too?).  Compare its VALUES
//            with cfgsave's: the same kernel, so the same counts.
// Lines: "SETUP <mode> <step> <ms>", "SETUP <mode> avail_hash <hex> <bytes>"
// (is the image the same in every process?), "SETUP <mode> <what>_rc <n>"
// (a CUPTI result where a refusal is an answer) and "VALUES <mode> ...".
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
  std::vector<const char*> names{kNames, kNames + kN};  // the metric list

  void availability() {
    P(CUpti_Profiler_GetCounterAvailability_Params);
    p.ctx = ctx;
    CK(cuptiProfilerGetCounterAvailability(&p));
    avail.assign(p.counterAvailabilityImageSize, 0);
    p.pCounterAvailabilityImage = avail.data();
    CK(cuptiProfilerGetCounterAvailability(&p));
  }
  // AddMetrics on the host object, and the config image's size.
  void build_on_host() {
    {
      P(CUpti_Profiler_Host_ConfigAddMetrics_Params);
      p.pHostObject = host;
      p.ppMetricNames = names.data();
      p.numMetrics = names.size();
      CK(cuptiProfilerHostConfigAddMetrics(&p));
    }
    P(CUpti_Profiler_Host_GetConfigImageSize_Params);
    p.pHostObject = host;
    CK(cuptiProfilerHostGetConfigImageSize(&p));
    config.assign(p.configImageSize, 0);
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
    build_on_host();
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
      p.pMetricNames = names.data();
      p.numMetrics = names.size();
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
  // Evaluates range 0 on the host object; prints VALUES unless refused.
  CUptiResult try_values(const char* what) {
    std::vector<double> v(names.size(), 0.0);
    P(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
    p.pHostObject = host;
    p.pCounterDataImage = image.data();
    p.counterDataImageSize = image.size();
    p.rangeIndex = 0;
    p.ppMetricNames = names.data();
    p.numMetrics = names.size();
    p.pMetricValues = v.data();
    CUptiResult r = cuptiProfilerHostEvaluateToGpuValues(&p);
    if (r != CUPTI_SUCCESS) return r;
    if (names.size() == kN && names[0] == kNames[0]) {
      std::printf("VALUES %s %s: dram_read %.0f lts_sectors %.0f l1tex_ld_sectors %.0f duration_ns %.0f\n", g_mode, what,
                  v[0], v[1], v[2], v[3]);
    } else {
      std::printf("VALUES %s %s:", g_mode, what);
      for (size_t i = 0; i < names.size(); i++) std::printf(" %s=%.6g", names[i], v[i]);
      std::printf("\n");
    }
    return r;
  }
  void values(const char* what) { CK(try_values(what)); }
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

// ---- cfgsave / cfgload: can the config image cross processes? --------------------

// PROBE_METRICS (comma-separated) or the one-pass list.
static std::vector<std::string> metric_list() {
  std::vector<std::string> v;
  const char* e = std::getenv("PROBE_METRICS");
  if (!e || !*e) return std::vector<std::string>(kNames, kNames + kN);
  std::string cur;
  for (const char* c = e;; c++) {
    if (*c == ',' || *c == '\0') {
      if (!cur.empty()) v.push_back(cur);
      cur.clear();
      if (!*c) break;
    } else if (*c != ' ' && *c != '\n') {
      cur += *c;
    }
  }
  return v;
}

static void host_init(Setup& s) {
  P(CUpti_Profiler_Host_Initialize_Params);
  p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  p.pChipName = s.chip;
  p.pCounterAvailabilityImage = s.avail.empty() ? nullptr : s.avail.data();
  CK(cuptiProfilerHostInitialize(&p));
  s.host = p.pHostObject;
}

static size_t num_passes(Setup& s) {
  P(CUpti_Profiler_Host_GetNumOfPasses_Params);
  p.configImageSize = s.config.size();
  p.pConfigImage = s.config.data();
  CK(cuptiProfilerHostGetNumOfPasses(&p));
  return p.numOfPasses;
}

// One kernel-replayed launch with the config and counter data image in s
// (initialized here unless `cached_image`); the CUPTI result of the first
// call refused, else SUCCESS.
static CUptiResult profiled_launch(Setup& s, bool cached_image, const float4* x, size_t n4, float* out) {
  if (!cached_image) s.layout();
  s.setconfig();
  s.start();
  readAll<<<264, 256>>>(x, n4, out);
  CU(cudaGetLastError());
  {
    P(CUpti_RangeProfiler_Stop_Params);
    p.pRangeProfilerObject = s.obj;
    CUptiResult r = cuptiRangeProfilerStop(&p);
    if (r != CUPTI_SUCCESS) return r;
  }
  P(CUpti_RangeProfiler_DecodeData_Params);
  p.pRangeProfilerObject = s.obj;
  return cuptiRangeProfilerDecodeData(&p);
}

static int config_cache(Setup& s, bool save, const char* file, const float4* x, size_t n4, float* out) {
  auto t = Clock::now();
  s.availability();
  say("availability", ms_since(t));
  std::vector<std::string> list;
  std::vector<uint8_t> cd_copy;
  if (save) {
    list = metric_list();
    t = Clock::now();
    host_init(s);
    say("host_init", ms_since(t));
    t = Clock::now();
    std::vector<std::string> ok;
    for (const std::string& m : list) {
      P(CUpti_Profiler_Host_GetMetricProperties_Params);
      p.pHostObject = s.host;
      p.pMetricName = m.c_str();
      if (cuptiProfilerHostGetMetricProperties(&p) == CUPTI_SUCCESS) ok.push_back(m);
    }
    say("validate", ms_since(t));
    std::printf("SETUP %s metrics %zu dropped %zu\n", g_mode, ok.size(), list.size() - ok.size());
    list = ok;
    s.names.clear();
    for (const std::string& m : list) s.names.push_back(m.c_str());
    t = Clock::now();
    s.build_on_host();
    say("add_metrics", ms_since(t));
    t = Clock::now();
    s.image_config();
    say("config_image", ms_since(t));
  } else {
    t = Clock::now();
    FILE* f = std::fopen(file, "rb");
    size_t nm = 0, ncfg = 0, ncd = 0;
    char chip[64] = "";
    if (!f || std::fscanf(f, "PCPROBECFG %63s %zu %zu %zu\n", chip, &nm, &ncfg, &ncd) != 4) {
      std::printf("FAIL %s: not a cfgsave file\n", file);
      return 1;
    }
    if (std::strcmp(chip, s.chip) != 0) {
      std::printf("FAIL %s: made for %s, this GPU is %s\n", file, chip, s.chip);
      return 1;
    }
    char line[512];
    for (size_t i = 0; i < nm && std::fgets(line, sizeof line, f); i++) {
      line[std::strcspn(line, "\n")] = '\0';
      list.push_back(line);
    }
    s.config.assign(ncfg, 0);
    cd_copy.assign(ncd, 0);
    if (list.size() != nm || std::fread(s.config.data(), 1, ncfg, f) != ncfg ||
        std::fread(cd_copy.data(), 1, ncd, f) != ncd) {
      std::printf("FAIL %s: cut short\n", file);
      return 1;
    }
    std::fclose(f);
    s.names.clear();
    for (const std::string& m : list) s.names.push_back(m.c_str());
    say("read_file", ms_since(t));
    t = Clock::now();
    host_init(s);
    say("host_init", ms_since(t));
  }
  t = Clock::now();
  const size_t passes = num_passes(s);
  say("num_passes", ms_since(t));
  std::printf("SETUP %s passes %zu metrics %zu config_bytes %zu\n", g_mode, passes, s.names.size(), s.config.size());
  t = Clock::now();
  s.enable();
  say("enable", ms_since(t));
  t = Clock::now();
  s.layout();
  say("layout", ms_since(t));
  std::printf("SETUP %s counter_data_bytes %zu\n", g_mode, s.image.size());
  if (save) {
    t = Clock::now();
    FILE* f = std::fopen(file, "wb");
    if (!f) {
      std::printf("FAIL cannot write %s\n", file);
      return 1;
    }
    std::fprintf(f, "PCPROBECFG %s %zu %zu %zu\n", s.chip, s.names.size(), s.config.size(), s.image.size());
    for (const char* m : s.names) std::fprintf(f, "%s\n", m);
    std::fwrite(s.config.data(), 1, s.config.size(), f);
    std::fwrite(s.image.data(), 1, s.image.size(), f);
    std::fclose(f);
    say("write_file", ms_since(t));
  }
  t = Clock::now();
  CUptiResult r = profiled_launch(s, true, x, n4, out);
  say("profiled_launch", ms_since(t));
  std::printf("SETUP %s launch_rc %d\n", g_mode, (int)r);
  if (r != CUPTI_SUCCESS) return 1;
  t = Clock::now();
  r = s.try_values(save ? "after_add_metrics" : "bare_host_object");
  say("evaluate", ms_since(t));
  std::printf("SETUP %s evaluate_rc %d\n", g_mode, (int)r);
  if (r != CUPTI_SUCCESS && !save) {  // evaluation needs AddMetrics after all?
    t = Clock::now();
    s.build_on_host();
    say("add_metrics", ms_since(t));
    r = s.try_values("after_add_metrics");
    std::printf("SETUP %s evaluate_after_add_rc %d\n", g_mode, (int)r);
  }
  if (!save && cd_copy.size() == s.image.size()) {
    // The counter data image as another process's Initialize left it.
    s.image = cd_copy;
    t = Clock::now();
    r = profiled_launch(s, true, x, n4, out);
    say("profiled_launch_cached_image", ms_since(t));
    std::printf("SETUP %s cached_image_launch_rc %d\n", g_mode, (int)r);
    if (r == CUPTI_SUCCESS) std::printf("SETUP %s cached_image_evaluate_rc %d\n", g_mode, (int)s.try_values("cached_counter_data_image"));
  }
  std::printf("SETUP %s done\n", g_mode);
  return 0;
}

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IONBF, 0);
  if (argc > 1) g_mode = argv[1];
  const bool early = std::strcmp(g_mode, "early") == 0;
  const bool noavail = std::strcmp(g_mode, "noavail") == 0;
  const bool cfgsave = std::strcmp(g_mode, "cfgsave") == 0, cfgload = std::strcmp(g_mode, "cfgload") == 0;
  if (!early && !noavail && std::strcmp(g_mode, "order") != 0 && !((cfgsave || cfgload) && argc > 2)) {
    std::printf("usage: gpu_setup_probe order|noavail|early|cfgsave FILE|cfgload FILE\n");
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

  if (cfgsave || cfgload) {
    app_work();
    return config_cache(s, cfgsave, argv[2], x, bytes / sizeof(float4), out);
  }
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
