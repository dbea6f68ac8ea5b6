// session_probe: is the memory units' pass cost paid once per range-profiler
// session or once per range? (docs/cupti.md §10 question 5, §17.)  No test:
// scripts/device/bench passes runs it and keeps its output.
//
// On the H200 one pass of DRAM, L2 and L1TEX counters cost
// about 55 ms a profiled launch, each launch its own session (Start, the
// launch, Stop, Decode); under user replay that cost sat in Start.  This
// program drives CUPTI directly (no perfcheck), with one one-pass config of
// such counters, on one kernel that reads 16 MiB:
//   A  8 sessions of one launch each (auto range, kernel replay), as
//      perfcheck profiles a launch now;
//   B  one session of 8 launches (auto range, kernel replay, 8 ranges a
//      pass), as NVIDIA's injection sample keeps 10;
//   D  one session of 8 launches under auto range and user replay;
//   E  one user-replay session of 12 launches: a flush before each read,
//      and a second stream (range order, a cold DRAM pass inside a session);
//   C  one session: a launch, DecodeData before Stop (does it decode
//      mid-session?), a second launch, Stop, DecodeData.
// Each mode gets a fresh profiler object and a warm-up session first (the
// first Start on an object costs ~140 ms).  Prints each mode's host times
// (Start, each launch, Stop, Decode) and each range's values, which must be
// the same in every mode: the kernel reads 524288 sectors through L1TEX.
// Lines: "PROBE <mode> ..." and "VALUES <mode> range <i>: ...".
#include <chrono>
#include <vector>

#include "cupti_probe.cuh"

enum { kLaunches = 8, kMaxRanges = 16 };

struct Probe {
  CUcontext ctx = nullptr;
  CUpti_Profiler_Host_Object* host = nullptr;
  std::vector<uint8_t> config, image;
  CUpti_RangeProfiler_Object* obj = nullptr;
  const float4* x = nullptr;
  size_t n4 = 0;
  float* out = nullptr;

  void enable() {
    if (obj) {
      P(CUpti_RangeProfiler_Disable_Params);
      p.pRangeProfilerObject = obj;
      CK(cuptiRangeProfilerDisable(&p));
      obj = nullptr;
    }
    {
      P(CUpti_RangeProfiler_Enable_Params);
      p.ctx = ctx;
      CK(cuptiRangeProfilerEnable(&p));
      obj = p.pRangeProfilerObject;
    }
    P(CUpti_RangeProfiler_GetCounterDataSize_Params);
    p.pRangeProfilerObject = obj;
    p.pMetricNames = kNames;
    p.numMetrics = kN;
    p.maxNumOfRanges = kMaxRanges;
    p.maxNumRangeTreeNodes = kMaxRanges;
    CK(cuptiRangeProfilerGetCounterDataSize(&p));
    image.assign(p.counterDataSize, 0);
    reset();
  }
  void reset() {
    P(CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
    p.pRangeProfilerObject = obj;
    p.counterDataSize = image.size();
    p.pCounterData = image.data();
    CK(cuptiRangeProfilerCounterDataImageInitialize(&p));
  }
  void setconfig(bool user_replay, size_t ranges) {
    P(CUpti_RangeProfiler_SetConfig_Params);
    p.pRangeProfilerObject = obj;
    p.configSize = config.size();
    p.pConfig = config.data();
    p.counterDataImageSize = image.size();
    p.pCounterDataImage = image.data();
    p.range = CUPTI_AutoRange;
    p.replayMode = user_replay ? CUPTI_UserReplay : CUPTI_KernelReplay;
    p.maxRangesPerPass = ranges;
    p.numNestingLevels = 1;
    p.minNestingLevel = 1;
    p.passIndex = 0;
    p.targetNestingLevel = 1;
    CK(cuptiRangeProfilerSetConfig(&p));
  }
  double start() {
    auto t0 = std::chrono::steady_clock::now();
    P(CUpti_RangeProfiler_Start_Params);
    p.pRangeProfilerObject = obj;
    CK(cuptiRangeProfilerStart(&p));
    return ms_since(t0);
  }
  double stop(int* all) {
    auto t0 = std::chrono::steady_clock::now();
    P(CUpti_RangeProfiler_Stop_Params);
    p.pRangeProfilerObject = obj;
    CK(cuptiRangeProfilerStop(&p));
    if (all) *all = (int)p.isAllPassSubmitted;
    return ms_since(t0);
  }
  // Returns the result code (no exit): mode C asks whether it works mid-session.
  CUptiResult decode(double* ms, size_t* dropped) {
    auto t0 = std::chrono::steady_clock::now();
    P(CUpti_RangeProfiler_DecodeData_Params);
    p.pRangeProfilerObject = obj;
    CUptiResult r = cuptiRangeProfilerDecodeData(&p);
    *ms = ms_since(t0);
    if (dropped) *dropped = p.numOfRangeDropped;
    return r;
  }
  double launch() {
    auto t0 = std::chrono::steady_clock::now();
    readAll<<<264, 256>>>(x, n4, out);
    CU(cudaGetLastError());
    return ms_since(t0);
  }
  size_t ranges() {
    P(CUpti_RangeProfiler_GetCounterDataInfo_Params);
    p.pCounterDataImage = image.data();
    p.counterDataImageSize = image.size();
    CK(cuptiRangeProfilerGetCounterDataInfo(&p));
    return p.numTotalRanges;
  }
  void values(const char* mode) {
    const size_t n = ranges();
    for (size_t i = 0; i < n; ++i) {
      double v[kN];
      P(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
      p.pHostObject = host;
      p.pCounterDataImage = image.data();
      p.counterDataImageSize = image.size();
      p.rangeIndex = i;
      p.ppMetricNames = kNames;
      p.numMetrics = kN;
      p.pMetricValues = v;
      CK(cuptiProfilerHostEvaluateToGpuValues(&p));
      std::printf("VALUES %s range %zu: dram_read %.0f lts_sectors %.0f l1tex_ld_sectors %.0f duration_ns %.0f\n", mode, i,
                  v[0], v[1], v[2], v[3]);
    }
  }
};

static std::string join(const std::vector<double>& v) {
  std::string s;
  char b[32];
  for (double d : v) {
    std::snprintf(b, sizeof b, "%s%.2f", s.empty() ? "" : " ", d);
    s += b;
  }
  return s;
}

int main() {
  setvbuf(stdout, nullptr, _IONBF, 0);
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
    std::printf("SKIP: no GPU\n");
    return 77;
  }
  Probe pr;
  const size_t bytes = (size_t)16 << 20;
  pr.n4 = bytes / sizeof(float4);
  float4* x = nullptr;
  CU(cudaMalloc(&x, bytes));
  CU(cudaMemset(x, 0, bytes));
  CU(cudaMalloc(&pr.out, 264 * sizeof(float)));
  CU(cudaDeviceSynchronize());
  pr.x = x;
  if (cuCtxGetCurrent(&pr.ctx) != CUDA_SUCCESS || !pr.ctx) {
    std::printf("FAIL no current context\n");
    return 1;
  }
  load_nvperf_host();
  {
    P(CUpti_Profiler_Initialize_Params);
    CK(cuptiProfilerInitialize(&p));
  }
  char chip[64] = "";
  {
    P(CUpti_Device_GetChipName_Params);
    p.deviceIndex = 0;
    CK(cuptiDeviceGetChipName(&p));
    std::snprintf(chip, sizeof chip, "%s", p.pChipName);
  }
  {
    P(CUpti_Profiler_Host_Initialize_Params);
    p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    p.pChipName = chip;
    CK(cuptiProfilerHostInitialize(&p));
    pr.host = p.pHostObject;
  }
  {
    P(CUpti_Profiler_Host_ConfigAddMetrics_Params);
    p.pHostObject = pr.host;
    p.ppMetricNames = kNames;
    p.numMetrics = kN;
    CK(cuptiProfilerHostConfigAddMetrics(&p));
  }
  {
    P(CUpti_Profiler_Host_GetConfigImageSize_Params);
    p.pHostObject = pr.host;
    CK(cuptiProfilerHostGetConfigImageSize(&p));
    pr.config.assign(p.configImageSize, 0);
  }
  {
    P(CUpti_Profiler_Host_GetConfigImage_Params);
    p.pHostObject = pr.host;
    p.configImageSize = pr.config.size();
    p.pConfigImage = pr.config.data();
    CK(cuptiProfilerHostGetConfigImage(&p));
  }
  {
    P(CUpti_Profiler_Host_GetNumOfPasses_Params);
    p.pConfigImage = pr.config.data();
    p.configImageSize = pr.config.size();
    CK(cuptiProfilerHostGetNumOfPasses(&p));
    std::printf("PROBE chip %s, %zu metrics, %zu pass(es)\n", chip, kN, p.numOfPasses);
    if (p.numOfPasses != 1) {
      std::printf("FAIL the config needs %zu passes, the probe wants 1\n", p.numOfPasses);
      return 1;
    }
  }

  // A warm-up session on a fresh object: the first Start's cost goes here.
  auto warm = [&](bool user, size_t ranges) {
    pr.enable();
    pr.setconfig(user, ranges);
    const double s = pr.start();
    pr.launch();
    int all = 0;
    pr.stop(&all);
    double d;
    CK(pr.decode(&d, nullptr));
    pr.reset();
    std::printf("PROBE warm-up (%s replay): first Start %.2f ms\n", user ? "user" : "kernel", s);
  };

  // A: one session a launch.
  warm(false, 1);
  std::vector<double> st, la, sp, de;
  for (int i = 0; i < kLaunches; ++i) {
    pr.setconfig(false, 1);
    st.push_back(pr.start());
    la.push_back(pr.launch());
    sp.push_back(pr.stop(nullptr));
    double d;
    size_t dropped = 0;
    CK(pr.decode(&d, &dropped));
    de.push_back(d);
    char m[16];
    std::snprintf(m, sizeof m, "A%d", i);
    pr.values(m);
    pr.reset();
  }
  std::printf("PROBE A one session a launch: start %s | launch %s | stop %s | decode %s ms\n", join(st).c_str(),
              join(la).c_str(), join(sp).c_str(), join(de).c_str());

  // One session on a fresh object (after its warm-up session): SetConfig,
  // Start, launches() (it returns each launch's host time), Stop, Decode,
  // then the figures and every range's values.
  auto session = [&](const char* mode, const char* what, bool user, auto&& launches) {
    warm(user, kMaxRanges);
    pr.setconfig(user, kMaxRanges);
    const double s0 = pr.start();
    const std::vector<double> times = launches();
    int all = 0;
    const double sp0 = pr.stop(&all);
    double d0;
    size_t drop = 0;
    CK(pr.decode(&d0, &drop));
    std::printf("PROBE %s %s: start %.2f | launch %s | stop %.2f | decode %.2f ms, all passes %d, %zu ranges, %zu "
                "dropped\n",
                mode, what, s0, join(times).c_str(), sp0, d0, all, pr.ranges(), drop);
    pr.values(mode);
    pr.reset();
  };
  auto eight = [&]() {
    std::vector<double> t;
    for (int i = 0; i < kLaunches; ++i) t.push_back(pr.launch());
    return t;
  };

  // B: one session, 8 launches, kernel replay.
  session("B", "one session of 8 launches (kernel replay)", false, eight);

  // D: one session, 8 launches, user replay (one pass: nothing replayed).
  session("D", "one session of 8 launches (user replay)", true, eight);

  // E: what a session spanning a loop step would meet (user replay, one
  // session of 12 launches): before each kernel a flush (a read of 128 MiB,
  // more than twice the L2), then readAll on the default stream and a read
  // of half the buffer on a second stream.  Ranges must come in launch
  // order (4194304 L1TEX sectors for the flush, 524288, then 262144),
  // and each readAll's DRAM reads must be a cold run's (about 16.8 MB).
  {
    const size_t fbytes = (size_t)128 << 20;
    float4* fbuf = nullptr;
    CU(cudaMalloc(&fbuf, fbytes));
    CU(cudaMemset(fbuf, 0, fbytes));
    cudaStream_t s2;
    CU(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    CU(cudaDeviceSynchronize());
    session("E", "one session, 4 x (flush, readAll, half read on a second stream), user replay (3 launches each)", true,
            [&]() {
              std::vector<double> t;
              for (int i = 0; i < 4; ++i) {
                auto t0 = std::chrono::steady_clock::now();
                readAll<<<1056, 256>>>(fbuf, fbytes / sizeof(float4), pr.out);
                readAll<<<264, 256>>>(pr.x, pr.n4, pr.out);
                readAll<<<132, 256, 0, s2>>>(pr.x, pr.n4 / 2, pr.out);
                CU(cudaGetLastError());
                t.push_back(ms_since(t0));
              }
              return t;
            });
    CU(cudaStreamDestroy(s2));
    CU(cudaFree(fbuf));
  }

  // C (last: it may leave the object in a state of CUPTI's own): DecodeData
  // before Stop, on a fresh object.
  warm(false, kMaxRanges);
  pr.setconfig(false, kMaxRanges);
  pr.start();
  pr.launch();
  double cd1;
  const CUptiResult rc1 = pr.decode(&cd1, nullptr);
  const char* s1 = "?";
  cuptiGetResultString(rc1, &s1);
  pr.launch();
  CUptiResult rcs;
  {
    P(CUpti_RangeProfiler_Stop_Params);
    p.pRangeProfilerObject = pr.obj;
    rcs = cuptiRangeProfilerStop(&p);
  }
  double cd2;
  size_t cdrop = 0;
  const CUptiResult rc2 = pr.decode(&cd2, &cdrop);
  std::printf("PROBE C decode before Stop: %d (%s) in %.2f ms; Stop %d; decode after Stop: %d, %zu ranges, %zu dropped\n",
              (int)rc1, s1, cd1, (int)rcs, (int)rc2, rc2 == CUPTI_SUCCESS ? pr.ranges() : (size_t)0, cdrop);
  if (rc2 == CUPTI_SUCCESS) pr.values("C");
  pr.reset();

  {
    P(CUpti_RangeProfiler_Disable_Params);
    p.pRangeProfilerObject = pr.obj;
    CK(cuptiRangeProfilerDisable(&p));
  }
  {
    P(CUpti_Profiler_Host_Deinitialize_Params);
    p.pHostObject = pr.host;
    CK(cuptiProfilerHostDeinitialize(&p));
  }
  {
    P(CUpti_Profiler_DeInitialize_Params);
    CK(cuptiProfilerDeInitialize(&p));
  }
  std::printf("PROBE done\n");
  return 0;
}
