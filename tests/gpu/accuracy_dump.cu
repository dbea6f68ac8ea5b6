// accuracy_dump OUT_DIR [PROGRAM...]: perfcheck's in-process counters for the
// launches that ncu profiled in tests/data/h200 (scripts/device/ncu_exports.sh),
// one JSON report per kernels/ program, for scripts/device/accuracy.py.
//
// For each program (mystery, occupancy, launches, roundtrip, atomics; all of
// them when none is named) it creates a PERFCHECK_MODE_COUNTERS session with
// the "full" metric set (so that the L1TEX request counters themselves are
// collected, not their SASS substitutes), runs exactly the launches of the
// program's `--profile` mode with the kernels/ launch helpers (same sizes,
// same order, same poisoning, each output checked against its CPU reference)
// inside a region named after the program, writes OUT_DIR/<program>.json and
// destroys the session.  Sessions follow one another in this process; name
// one program per run to give each its own process instead, as ncu had.
//
// "launches" runs the big launch and the first small one: the two launches
// `ncu --launch-count 2` profiled.
//
// When counters are refused with "full" (the session falls back to timing),
// the program runs again with "default" and says so; a "full" run in which
// some metrics came back unmeasured is kept (it still has more than
// "default") and the names are listed.
// Exit status: 0 when every program's outputs were right and its kernels got
// counters; 1 otherwise (reports are still written); 2 on a usage error.
#include <sys/stat.h>

#include <string>
#include <vector>

#include "atomics_kernels.cuh"
#include "kcommon.cuh"
#include "launches_kernels.cuh"
#include "mystery_kernels.cuh"
#include "occupancy_kernels.cuh"
#include "perfcheck.h"
#include "report_json.h"
#include "roundtrip_kernels.cuh"

// A region call that must succeed: on failure the run of this program is void.
#define DCHECK(call)                                                                                  \
  do {                                                                                                \
    const perfcheck_status dc_s_ = (call);                                                            \
    if (dc_s_ != PERFCHECK_OK) {                                                                      \
      std::fprintf(stderr, "FAIL %s:%d: %s: %s: %s\n", __FILE__, __LINE__, #call, perfcheck_strerror(dc_s_), \
                   perfcheck_last_error_message());                                                   \
      return false;                                                                                   \
    }                                                                                                 \
  } while (0)

// ---- the programs' --profile launches ------------------------------------------
// Each returns true when every output matched; the region is named after the
// program.

static bool runMystery(perfcheck_session* s) {
  size_t reserve = 0;
  KCHECK(kReserveOneBlockPerSm(mysteryFunc(kMysteryC), kMysteryBlock, &reserve));
  struct Row {
    const char* label;
    MysteryKernel kernel;
    size_t dynSmem;
  } rows[4] = {{"mysteryA", kMysteryA, 0},
               {"mysteryB", kMysteryB, 0},
               {"mysteryC (one block per SM)", kMysteryC, reserve},
               {"mysteryC (0 B dynamic)", kMysteryC, 0}};
  const std::vector<float> in = mysteryInputs();
  std::vector<float> got(kMysteryN);
  const size_t bytes = kMysteryN * sizeof(float);
  float *dIn = nullptr, *dOut = nullptr;
  KCHECK(cudaMalloc(&dIn, bytes));
  KCHECK(cudaMalloc(&dOut, bytes));
  KCHECK(cudaMemcpy(dIn, in.data(), bytes, cudaMemcpyHostToDevice));
  bool ok = true;
  DCHECK(perfcheck_session_begin(s, "mystery"));
  for (const Row& r : rows) {  // as kernels/mystery.cu: poison, launch, copy back, check
    KCHECK(kPoison(dOut, bytes));
    KCHECK(launchMystery(r.kernel, dIn, dOut, r.dynSmem));
    KCHECK(cudaDeviceSynchronize());
    KCHECK(cudaMemcpy(got.data(), dOut, bytes, cudaMemcpyDeviceToHost));
    const std::vector<float> ref = mysteryReference(r.kernel);
    ok = kCheckFloats(r.label, got.data(), ref.data(), kMysteryN, r.kernel == kMysteryA ? 0.0f : 1e-6f) && ok;
  }
  DCHECK(perfcheck_session_end(s));
  KCHECK(cudaFree(dIn));
  KCHECK(cudaFree(dOut));
  return ok;
}

static bool runOccupancy(perfcheck_session* s) {
  struct Row {
    const char* label;
    int items;
    size_t dynSmem;
  } rows[3] = {{"tlp1", 1, 0}, {"tlp1-b1", 1, 0}, {"ilp4-b1", 4, 0}};
  KCHECK(kReserveOneBlockPerSm(scaleAddFunc<1>(), kScaleAddBlock, &rows[1].dynSmem));
  KCHECK(kReserveOneBlockPerSm(scaleAddFunc<4>(), kScaleAddBlock, &rows[2].dynSmem));
  const size_t n = kScaleAddN, bytes = n * sizeof(float);
  std::vector<float> x(n), y(n), ref(n), got(n);
  for (size_t i = 0; i < n; ++i) {
    x[i] = scaleAddX(i);
    y[i] = scaleAddY(i);
    ref[i] = scaleAddRef(i);
  }
  float *dx = nullptr, *dy = nullptr, *dout = nullptr;
  KCHECK(cudaMalloc(&dx, bytes));
  KCHECK(cudaMalloc(&dy, bytes));
  KCHECK(cudaMalloc(&dout, bytes));
  KCHECK(cudaMemcpy(dx, x.data(), bytes, cudaMemcpyHostToDevice));
  KCHECK(cudaMemcpy(dy, y.data(), bytes, cudaMemcpyHostToDevice));
  bool ok = true;
  DCHECK(perfcheck_session_begin(s, "occupancy"));
  for (const Row& r : rows) {  // as kernels/occupancy.cu
    KCHECK(kPoison(dout, bytes));
    KCHECK(r.items == 1 ? launchScaleAdd<1>(dx, dy, dout, r.dynSmem) : launchScaleAdd<4>(dx, dy, dout, r.dynSmem));
    KCHECK(cudaDeviceSynchronize());
    KCHECK(cudaMemcpy(got.data(), dout, bytes, cudaMemcpyDeviceToHost));
    ok = kCheckFloats(r.label, got.data(), ref.data(), n, 0.0f) && ok;
  }
  DCHECK(perfcheck_session_end(s));
  KCHECK(cudaFree(dx));
  KCHECK(cudaFree(dy));
  KCHECK(cudaFree(dout));
  return ok;
}

static bool runLaunches(perfcheck_session* s) {
  const size_t bytes = size_t(kLaunchN) * sizeof(float);
  float* dx = nullptr;
  KCHECK(cudaMalloc(&dx, bytes));
  KCHECK(cudaMemset(dx, 0, bytes));  // the kernel adds to what is there
  std::vector<float> x(kLaunchN);
  DCHECK(perfcheck_session_begin(s, "launches"));
  KCHECK(launchAddOneAll(dx));
  KCHECK(launchAddOnePieces(dx, 0, 1));  // the first small launch: piece 0
  KCHECK(cudaDeviceSynchronize());
  DCHECK(perfcheck_session_end(s));
  KCHECK(cudaMemcpy(x.data(), dx, bytes, cudaMemcpyDeviceToHost));
  KCHECK(cudaFree(dx));
  for (int i = 0; i < kLaunchN; ++i) {
    const float want = i < kLaunchPiece ? 2.0f : 1.0f;
    if (x[i] != want) {
      std::fprintf(stderr, "FAIL launches: index %d: got %.9g, want %.9g\n", i, double(x[i]), double(want));
      return false;
    }
  }
  return true;
}

static bool runRoundtrip(perfcheck_session* s) {
  const size_t bytes = kRoundtripN * sizeof(float);
  std::vector<float> host(kRoundtripN), back(kRoundtripN);  // pageable, as in the program
  for (size_t i = 0; i < kRoundtripN; ++i) host[i] = roundtripInput(i);
  float* dev = nullptr;
  KCHECK(cudaMalloc(&dev, bytes));
  std::memset(back.data(), 0xFF, bytes);  // NaN
  DCHECK(perfcheck_session_begin(s, "roundtrip"));
  KCHECK(cudaMemcpy(dev, host.data(), bytes, cudaMemcpyHostToDevice));
  KCHECK(launchScaleHead(dev));
  KCHECK(cudaMemcpy(back.data(), dev, bytes, cudaMemcpyDeviceToHost));
  KCHECK(cudaDeviceSynchronize());
  DCHECK(perfcheck_session_end(s));
  KCHECK(cudaFree(dev));
  for (size_t i = 0; i < kRoundtripN; ++i) {
    if (!(back[i] == roundtripRef(i))) {
      std::fprintf(stderr, "FAIL roundtrip: index %zu: got %.9g, want %.9g\n", i, double(back[i]),
                   double(roundtripRef(i)));
      return false;
    }
  }
  return true;
}

static bool runAtomics(perfcheck_session* s) {
  std::vector<unsigned> in(kAtomicsN), bins(kAtomicsBins), ticket(kAtomicsN);
  for (int i = 0; i < kAtomicsN; ++i) in[i] = atomicsInput(static_cast<uint32_t>(i));
  unsigned *dIn = nullptr, *dBins = nullptr, *dTicket = nullptr;
  unsigned long long* dSum = nullptr;
  const size_t bytes = size_t(kAtomicsN) * sizeof(unsigned);
  KCHECK(cudaMalloc(&dIn, bytes));
  KCHECK(cudaMalloc(&dTicket, bytes));
  KCHECK(cudaMalloc(&dBins, kAtomicsBins * sizeof(unsigned)));
  KCHECK(cudaMalloc(&dSum, sizeof(unsigned long long)));
  KCHECK(cudaMemcpy(dIn, in.data(), bytes, cudaMemcpyHostToDevice));
  KCHECK(cudaMemset(dBins, 0, kAtomicsBins * sizeof(unsigned)));
  KCHECK(cudaMemset(dSum, 0, sizeof(unsigned long long)));
  KCHECK(kPoison(dTicket, bytes));
  DCHECK(perfcheck_session_begin(s, "atomics"));
  KCHECK(launchHistogram16(dIn, dBins, dTicket));
  KCHECK(launchSumAll(dIn, dSum));
  KCHECK(cudaDeviceSynchronize());
  DCHECK(perfcheck_session_end(s));
  unsigned long long sum = 0;
  KCHECK(cudaMemcpy(bins.data(), dBins, kAtomicsBins * sizeof(unsigned), cudaMemcpyDeviceToHost));
  KCHECK(cudaMemcpy(ticket.data(), dTicket, bytes, cudaMemcpyDeviceToHost));
  KCHECK(cudaMemcpy(&sum, dSum, sizeof sum, cudaMemcpyDeviceToHost));
  for (void* p : {(void*)dIn, (void*)dTicket, (void*)dBins, (void*)dSum}) KCHECK(cudaFree(p));

  // Exact, as kernels/atomics.cu: one execution's worth whatever the passes.
  std::vector<unsigned> count(kAtomicsBins, 0u);
  unsigned long long want = 0;
  for (unsigned v : in) {
    ++count[v % kAtomicsBins];
    want += v;
  }
  bool ok = true;
  for (int b = 0; b < kAtomicsBins; ++b) {
    if (bins[b] != count[b]) {
      std::fprintf(stderr, "FAIL histogram16: bin %d: got %u, want %u\n", b, bins[b], count[b]);
      ok = false;
    }
  }
  std::vector<std::vector<bool>> seen(kAtomicsBins);
  for (int b = 0; b < kAtomicsBins; ++b) seen[b].assign(count[b], false);
  for (size_t i = 0; i < in.size() && ok; ++i) {
    const unsigned b = in[i] % kAtomicsBins, t = ticket[i];
    if (t >= count[b] || seen[b][t]) {
      std::fprintf(stderr, "FAIL histogram16: index %zu: ticket %u in bin %u, want a ticket below %u not taken "
                   "before\n", i, t, b, count[b]);
      ok = false;
    } else {
      seen[b][t] = true;
    }
  }
  if (sum != want) {
    std::fprintf(stderr, "FAIL sumAll: got %llu, want %llu\n", sum, want);
    ok = false;
  }
  return ok;
}

struct Program {
  const char* name;
  bool (*run)(perfcheck_session*);
};

static const Program kPrograms[] = {{"mystery", runMystery},
                                    {"occupancy", runOccupancy},
                                    {"launches", runLaunches},
                                    {"roundtrip", runRoundtrip},
                                    {"atomics", runAtomics}};

// ---- one program under one session ----------------------------------------------

enum Outcome { kDone, kRetry, kFailed };

// Runs `p` under a counters session with metric set `set` and writes its
// report.  kRetry: counters were refused with this set (nothing written).
static Outcome runProgram(const Program& p, const char* set, const std::string& dir, bool lastTry) {
  perfcheck_options o;
  perfcheck_options_init(&o);
  o.mode = PERFCHECK_MODE_COUNTERS;
  o.metrics = set;
  perfcheck_session* s = nullptr;
  const perfcheck_status st = perfcheck_session_create(&o, &s);
  if (st != PERFCHECK_OK) {
    std::fprintf(stderr, "%s: perfcheck_session_create with metrics \"%s\": %s: %s\n", p.name, set,
                 perfcheck_strerror(st), perfcheck_last_error_message());
    // A set the library refuses outright (an invalid name in it) may work smaller.
    return (!lastTry && st == PERFCHECK_ERROR_INVALID_ARGUMENT) ? kRetry : kFailed;
  }
  const bool resultsOk = p.run(s);
  if (!resultsOk) std::fprintf(stderr, "%s: FAIL: an output does not match its CPU reference\n", p.name);

  const perfcheck_report* r = nullptr;
  if (perfcheck_session_report(s, &r) != PERFCHECK_OK || r == nullptr) {
    std::fprintf(stderr, "%s: no report: %s\n", p.name, perfcheck_last_error_message());
    perfcheck_session_destroy(s);
    return kFailed;
  }
  const std::string js = rj_text(r);
  const std::vector<double> profiled = rj_numbers(js, "profiled_launches");
  const std::vector<std::string> reasons = rj_strings(js, "not_measured_reason");
  const std::vector<double> passes = rj_numbers(js, "passes");  // [0] is the report's
  const std::string gotSet = rj_string(js, "metric_set");
  const size_t nk = perfcheck_report_kernel_count(r);
  bool countersOk = nk > 0 && profiled.size() == nk && gotSet != "none";
  for (size_t i = 0; i < profiled.size(); ++i) countersOk = countersOk && profiled[i] >= 1.0;
  if (!countersOk && !lastTry) {
    std::printf("%s: NOTE: counters were not collected with metric set \"%s\" (%s); trying \"default\"\n", p.name,
                set, perfcheck_session_message(s));
    perfcheck_session_destroy(s);
    return kRetry;
  }

  std::printf("%s: metric set %s, %s passes, %zu kernel entries\n", p.name, gotSet.c_str(),
              passes.empty() || std::isnan(passes[0]) ? "?" : std::to_string(int(passes[0])).c_str(), nk);
  const char* full = perfcheck_metric_list(set);  // NULL for a custom list
  for (size_t i = 0; i < nk; ++i) {
    perfcheck_kernel_info k;
    std::memset(&k, 0, sizeof k);
    k.size = sizeof k;
    if (perfcheck_report_kernel(r, i, &k) != PERFCHECK_OK) continue;
    const double np = i < profiled.size() ? profiled[i] : 0.0;
    std::printf("  %-12s grid %u block %u dyn %6.0f B: %llu launch(es), %g profiled; step %d %s\n", k.name, k.grid[0],
                k.block[0], k.dynamic_smem_bytes, static_cast<unsigned long long>(k.launches), np, k.step,
                perfcheck_cause_name(k.cause));
    if (!(np >= 1.0)) {
      std::printf("    NOT PROFILED: %s\n", i < reasons.size() ? reasons[i].c_str() : "?");
      continue;
    }
    // Which metrics of the set came back unmeasured (rejected by CUPTI for
    // this chip, or not evaluated): listed, never silently missing.
    std::string missing;
    for (const char* m = full; m && *m;) {
      const char* comma = std::strchr(m, ',');
      const std::string name = comma ? std::string(m, size_t(comma - m)) : std::string(m);
      double v = 0.0;
      if (perfcheck_report_kernel_value(r, i, name.c_str(), &v) != PERFCHECK_OK) missing += " " + name;
      m = comma ? comma + 1 : nullptr;
    }
    if (!missing.empty()) std::printf("    NOTE: not measured:%s\n", missing.c_str());
  }
  if (!countersOk)
    std::fprintf(stderr, "%s: FAIL: counters were not collected for every kernel: %s\n", p.name,
                 perfcheck_session_message(s));

  const std::string path = dir + "/" + p.name + ".json";
  bool written = false;
  if (FILE* f = std::fopen(path.c_str(), "w")) {
    written = perfcheck_report_write(r, PERFCHECK_FORMAT_JSON, f) == PERFCHECK_OK;
    written = (std::fclose(f) == 0) && written;
  }
  std::printf("%s: %s %s\n", p.name, written ? "wrote" : "FAILED to write", path.c_str());
  perfcheck_session_destroy(s);
  return resultsOk && countersOk && written ? kDone : kFailed;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR [mystery|occupancy|launches|roundtrip|atomics ...]\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  mkdir(dir.c_str(), 0777);  // may exist already; fopen says if it is unusable
  std::vector<const Program*> todo;
  for (int a = 2; a < argc; ++a) {
    const Program* found = nullptr;
    for (const Program& p : kPrograms)
      if (std::strcmp(p.name, argv[a]) == 0) found = &p;
    if (!found) {
      std::fprintf(stderr, "%s: unknown program \"%s\"\n", argv[0], argv[a]);
      return 2;
    }
    todo.push_back(found);
  }
  if (todo.empty())
    for (const Program& p : kPrograms) todo.push_back(&p);

  kPrintDevice();
  int failed = 0;
  for (const Program* p : todo) {
    Outcome o = runProgram(*p, "full", dir, false);
    if (o == kRetry) {
      std::printf("%s: NOTE: metric set \"full\" refused; this report uses \"default\" (request counts from their "
                  "SASS substitutes, see metric_sources)\n", p->name);
      o = runProgram(*p, "default", dir, true);
    }
    if (o != kDone) ++failed;
  }
  if (failed) {
    std::fprintf(stderr, "accuracy_dump: %d of %zu program(s) FAILED\n", failed, todo.size());
    return 1;
  }
  std::printf("accuracy_dump: %zu report(s) in %s\n", todo.size(), dir.c_str());
  return 0;
}
