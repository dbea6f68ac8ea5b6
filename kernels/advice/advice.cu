// advice: the "advice that pays" corpus.  Pairs of CUDA
// kernels, an original and the same kernel with one named change, listed in
// kernels/advice/pairs.tsv (embedded here at build time).
//
//   advice --list
//       the manifest: id, kind, the verdicts that name the change, the change
//   advice --time [--pair ID[,ID...]] [--runs N]
//       per pair: every variant checked against a CPU reference (outputs
//       poisoned first), then 3 warm-ups and N (default 11, at least 10)
//       event-timed launches per variant, the variants interleaved.  One TSV
//       row per variant on stdout after '#' header lines: median, min and max
//       ms, the speedup (original median / this median) and the launch's
//       registers, local bytes, blocks per SM and occupancy.  A pair that
//       fails is reported (status column) and the run goes on.
//   advice --profile [--pair ID[,ID...]] [--variant orig|changed|both]
//       each variant launched once inside the NVTX range advice:<id>:<variant>
//       (setup launches, and one untimed launch that loads the module,
//       outside any range), for `ncu --nvtx --nvtx-include
//       regex:advice:.*/` and perfcheck's regions.  Default: both variants.
//
// Exit status: 0 every selected pair ran (and checked) cleanly, 1 one failed,
// 2 bad usage or a manifest that disagrees with the code.
#include <getopt.h>
#include <nvtx3/nvToolsExt.h>

#include <ctime>
#include <map>
#include <sstream>

#include "advice.h"
#include "advice_manifest.h"  // kAdviceManifest: pairs.tsv

namespace {

using advice::kChanged;
using advice::kOrig;

struct Row {
  std::string id, kind, names, change;
  bool hasChanged() const { return change != "-"; }
};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else if (c != '\r') {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

// The embedded manifest, checked against the registry: every row has code,
// every piece of code a row.  Returns false (and says why) otherwise.
bool loadManifest(std::vector<Row>& rows) {
  std::istringstream in(kAdviceManifest);
  std::string line;
  std::vector<std::string> header;
  int lineNo = 0;
  while (std::getline(in, line)) {
    ++lineNo;
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f = split(line, '\t');
    if (header.empty()) {
      header = f;
      if (header.size() < 4 || header[0] != "id" || header[1] != "kind" || header[2] != "names" || header[3] != "change") {
        std::fprintf(stderr, "advice: pairs.tsv line %d: the header must start id, kind, names, change\n", lineNo);
        return false;
      }
      continue;
    }
    if (f.size() != header.size()) {
      std::fprintf(stderr, "advice: pairs.tsv line %d: %zu fields, the header has %zu\n", lineNo, f.size(), header.size());
      return false;
    }
    Row r{f[0], f[1], f[2], f[3]};
    if (r.kind != "fault" && r.kind != "at_roof" && r.kind != "counterexample" && r.kind != "probe") {
      std::fprintf(stderr, "advice: pairs.tsv line %d: kind '%s' is not fault, at_roof, counterexample or probe\n", lineNo,
                   r.kind.c_str());
      return false;
    }
    for (const Row& o : rows)
      if (o.id == r.id) {
        std::fprintf(stderr, "advice: pairs.tsv line %d: id '%s' appears twice\n", lineNo, r.id.c_str());
        return false;
      }
    rows.push_back(r);
  }
  bool ok = !rows.empty();
  for (const Row& r : rows) {
    int n = 0;
    for (const advice::Impl& i : advice::registry()) n += r.id == i.id;
    if (n != 1) {
      std::fprintf(stderr, "advice: pairs.tsv names '%s', which has %d implementations (want 1)\n", r.id.c_str(), n);
      ok = false;
    }
  }
  for (const advice::Impl& i : advice::registry()) {
    bool found = false;
    for (const Row& r : rows) found = found || r.id == i.id;
    if (!found) {
      std::fprintf(stderr, "advice: pair '%s' is implemented but not in pairs.tsv\n", i.id);
      ok = false;
    }
  }
  return ok;
}

advice::Factory factoryOf(const std::string& id) {
  for (const advice::Impl& i : advice::registry())
    if (id == i.id) return i.make;
  return nullptr;
}

const char* variantName(int v) { return v == kOrig ? "orig" : "changed"; }

// After a failure: clear a non-sticky error; if the context is broken (a
// sticky error such as an illegal address), reset the device so the next
// pair starts clean.
void recover() {
  (void)cudaGetLastError();
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::fprintf(stderr, "advice: the context is broken (%s): resetting the device for the next pair\n",
                 cudaGetErrorName(e));
    cudaDeviceReset();
  }
}

std::string errText(const char* what, cudaError_t e) {
  return std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
}

// What the launch configuration alone decides, from the driver.
struct Attrs {
  bool known = false;
  int regs = 0;
  size_t local = 0;
  int blocksPerSm = 0;
  double occPct = 0;
};
Attrs attrsOf(const advice::Shape& s) {
  Attrs a;
  if (!s.func || s.block == 0) return a;
  cudaFuncAttributes fa;
  int blocks = 0, dev = 0, maxThreads = 0;
  if (cudaFuncGetAttributes(&fa, s.func) != cudaSuccess ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, s.func, static_cast<int>(s.block), s.dynSmem) != cudaSuccess ||
      cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&maxThreads, cudaDevAttrMaxThreadsPerMultiProcessor, dev) != cudaSuccess) {
    (void)cudaGetLastError();
    return a;
  }
  a.known = true;
  a.regs = fa.numRegs;
  a.local = fa.localSizeBytes;
  a.blocksPerSm = blocks;
  const int warpsPerBlock = static_cast<int>((s.block + 31) / 32);
  a.occPct = maxThreads > 0 ? 100.0 * blocks * warpsPerBlock / (maxThreads / 32) : 0.0;
  return a;
}

std::string clean(std::string s) {  // one TSV field
  for (char& c : s)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  return s.empty() ? "-" : s;
}

void printTimeHeader(int runs, int warmups) {
  int dev = 0, drv = 0, rt = 0, clk = 0, memClk = 0;
  cudaDeviceProp p;
  std::memset(&p, 0, sizeof p);
  cudaGetDevice(&dev);
  cudaGetDeviceProperties(&p, dev);
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, dev);
  cudaDeviceGetAttribute(&memClk, cudaDevAttrMemoryClockRate, dev);
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  std::printf("# advice --time %s\n", date);
  std::printf("# gpu=%s cc=%d.%d sms=%d l2_bytes=%d driver_api=%d runtime=%d sm_clock_max_mhz=%d mem_clock_max_mhz=%d\n",
              p.name, p.major, p.minor, p.multiProcessorCount, p.l2CacheSize, drv, rt, clk / 1000, memClk / 1000);
  std::printf("# warmups=%d runs=%d (variants interleaved, CUDA events on the default stream; speedup = orig "
              "median / this median)\n",
              warmups, runs);
  std::printf("pair\tkind\tvariant\tstatus\tmedian_ms\tmin_ms\tmax_ms\truns\tspeedup\tregs\tlocal_bytes\t"
              "blocks_per_sm\toccupancy_pct\tgrid\tblock\tdyn_smem\tnote\n");
  std::fflush(stdout);
}

void printRow(const Row& r, int v, const std::string& status, const std::vector<float>& ms, double speedup,
              const advice::Shape& s, const std::string& note) {
  std::printf("%s\t%s\t%s\t%s\t", r.id.c_str(), r.kind.c_str(), variantName(v), clean(status).c_str());
  if (ms.empty()) {
    std::printf("-\t-\t-\t0\t-\t");
  } else {
    std::vector<float> x(ms);
    std::sort(x.begin(), x.end());
    const size_t mid = x.size() / 2;
    const double med = x.size() % 2 ? x[mid] : 0.5 * (x[mid - 1] + x[mid]);
    std::printf("%.5f\t%.5f\t%.5f\t%zu\t", med, static_cast<double>(x.front()), static_cast<double>(x.back()), x.size());
    if (speedup > 0)
      std::printf("%.3f\t", speedup);
    else
      std::printf("-\t");
  }
  const Attrs a = attrsOf(s);
  if (a.known)
    std::printf("%d\t%zu\t%d\t%.1f\t%llu\t%u\t%zu\t", a.regs, a.local, a.blocksPerSm, a.occPct, s.grid, s.block, s.dynSmem);
  else
    std::printf("-\t-\t-\t-\t-\t-\t-\t");
  std::printf("%s\n", clean(note).c_str());
  std::fflush(stdout);
}

double median(std::vector<float> x) {
  std::sort(x.begin(), x.end());
  const size_t mid = x.size() / 2;
  return x.size() % 2 ? x[mid] : 0.5 * (x[mid - 1] + x[mid]);
}

// --time for one pair; false when it failed.
bool timePair(const Row& r, int runs, int warmups) {
  std::unique_ptr<advice::Pair> p = factoryOf(r.id)();
  const int nv = r.hasChanged() ? 2 : 1;
  std::string fail;
  cudaError_t e = p->setup();
  if (e != cudaSuccess) fail = errText("setup", e);
  (void)cudaDeviceSynchronize();
  // Correctness first, each variant on poisoned outputs.
  for (int v = 0; v < nv && fail.empty(); ++v) {
    std::string why;
    if ((e = p->poison(v)) != cudaSuccess || (e = p->prepare(v)) != cudaSuccess || (e = p->launch(v)) != cudaSuccess ||
        (e = cudaDeviceSynchronize()) != cudaSuccess) {
      fail = errText(variantName(v), e);
    } else if (!p->check(v, why)) {
      fail = std::string("FAIL ") + variantName(v) + ": " + why;
    }
  }
  std::vector<float> ms[2];
  cudaEvent_t start = nullptr, stop = nullptr;
  if (fail.empty() && ((e = cudaEventCreate(&start)) != cudaSuccess || (e = cudaEventCreate(&stop)) != cudaSuccess))
    fail = errText("events", e);
  for (int w = 0; w < warmups && fail.empty(); ++w)
    for (int v = 0; v < nv && fail.empty(); ++v)
      if ((e = p->prepare(v)) != cudaSuccess || (e = p->launch(v)) != cudaSuccess) fail = errText("warm-up", e);
  if (fail.empty() && (e = cudaDeviceSynchronize()) != cudaSuccess) fail = errText("warm-up", e);
  for (int k = 0; k < runs && fail.empty(); ++k)
    for (int v = 0; v < nv && fail.empty(); ++v) {
      float t = 0;
      if ((e = p->prepare(v)) != cudaSuccess || (e = cudaEventRecord(start)) != cudaSuccess ||
          (e = p->launch(v)) != cudaSuccess || (e = cudaEventRecord(stop)) != cudaSuccess ||
          (e = cudaEventSynchronize(stop)) != cudaSuccess || (e = cudaEventElapsedTime(&t, start, stop)) != cudaSuccess) {
        fail = errText("timed run", e);
      } else if (!(t > 0.0f)) {
        fail = "a timed run measured " + std::to_string(t) + " ms";
      } else {
        ms[v].push_back(t);
      }
    }
  if (start) cudaEventDestroy(start);
  if (stop) cudaEventDestroy(stop);
  const std::string note = p->note();
  if (!fail.empty()) {
    std::fprintf(stderr, "advice: %s: %s\n", r.id.c_str(), fail.c_str());
    for (int v = 0; v < nv; ++v) printRow(r, v, fail, {}, 0, p->shape(v), note);
    p.reset();
    recover();
    return false;
  }
  const double orig = median(ms[kOrig]);
  for (int v = 0; v < nv; ++v) printRow(r, v, "ok", ms[v], orig / median(ms[v]), p->shape(v), note);
  p.reset();
  (void)cudaDeviceSynchronize();
  return true;
}

// --profile for one pair; false when it failed.
bool profilePair(const Row& r, const std::vector<int>& variants) {
  std::unique_ptr<advice::Pair> p = factoryOf(r.id)();
  cudaError_t e = p->setup();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  bool ok = e == cudaSuccess;
  if (!ok) std::fprintf(stderr, "advice: %s: %s\n", r.id.c_str(), errText("setup", e).c_str());
  for (int v : variants) {
    if (!ok) break;
    if (v == kChanged && !r.hasChanged()) continue;
    // One launch outside the range first (CUDA loads a module at its first
    // launch: that host time stays out of the region), then prepare again.
    if ((e = p->prepare(v)) != cudaSuccess || (e = p->launch(v)) != cudaSuccess ||
        (e = cudaDeviceSynchronize()) != cudaSuccess || (e = p->prepare(v)) != cudaSuccess ||
        (e = cudaDeviceSynchronize()) != cudaSuccess) {
      std::fprintf(stderr, "advice: %s: %s\n", r.id.c_str(), errText("warm-up", e).c_str());
      ok = false;
      break;
    }
    const std::string range = "advice:" + r.id + ":" + variantName(v);
    nvtxRangePushA(range.c_str());
    e = p->launch(v);
    const cudaError_t s = cudaDeviceSynchronize();
    nvtxRangePop();
    if (e == cudaSuccess) e = s;
    if (e != cudaSuccess) {
      std::fprintf(stderr, "advice: %s: %s\n", range.c_str(), errText("launch", e).c_str());
      ok = false;
      break;
    }
    const advice::Shape sh = p->shape(v);
    if (sh.func)
      std::printf("%s: grid %llu, block %u, %zu B dynamic shared memory\n", range.c_str(), sh.grid, sh.block, sh.dynSmem);
    else
      std::printf("%s: library call\n", range.c_str());
  }
  p.reset();
  if (!ok) recover();
  return ok;
}

void usage(FILE* f, const char* argv0) {
  std::fprintf(f,
               "usage: %s --list\n"
               "       %s --time [--pair ID[,ID...]] [--runs N]\n"
               "       %s --profile [--pair ID[,ID...]] [--variant orig|changed|both]\n"
               "The pairs and their changes are in kernels/advice/pairs.tsv (--list prints it);\n"
               "kernels/advice/README.md says what each should show.\n",
               argv0, argv0, argv0);
}

}  // namespace

int main(int argc, char** argv) {
  enum { kNone, kList, kTime, kProfile } mode = kNone;
  std::vector<std::string> only;
  std::string variant = "both";
  bool variantGiven = false;
  int runs = 11;
  const int warmups = 3;
  static const option opts[] = {{"list", no_argument, nullptr, 'l'},      {"time", no_argument, nullptr, 't'},
                                {"profile", no_argument, nullptr, 'p'},   {"pair", required_argument, nullptr, 'P'},
                                {"variant", required_argument, nullptr, 'v'}, {"runs", required_argument, nullptr, 'r'},
                                {"help", no_argument, nullptr, 'h'},      {nullptr, 0, nullptr, 0}};
  for (int c; (c = getopt_long(argc, argv, "h", opts, nullptr)) != -1;) {
    switch (c) {
      case 'l': mode = kList; break;
      case 't': mode = kTime; break;
      case 'p': mode = kProfile; break;
      case 'P':
        for (const std::string& s : split(optarg, ','))
          if (!s.empty()) only.push_back(s);
        break;
      case 'v':
        variant = optarg;
        variantGiven = true;
        break;
      case 'r': {
        char* end = nullptr;
        const long n = std::strtol(optarg, &end, 10);
        if (!end || *end || n < 10 || n > 1000) {
          std::fprintf(stderr, "advice: --runs takes a number from 10 to 1000, not '%s'\n", optarg);
          return 2;
        }
        runs = static_cast<int>(n);
        break;
      }
      case 'h': usage(stdout, argv[0]); return 0;
      default: usage(stderr, argv[0]); return 2;
    }
  }
  if (optind != argc || mode == kNone || (variantGiven && mode != kProfile)) {
    usage(stderr, argv[0]);
    return 2;
  }
  std::vector<Row> rows;
  if (!loadManifest(rows)) return 2;
  if (mode == kList) {
    std::fputs(kAdviceManifest, stdout);
    return 0;
  }
  std::vector<Row> sel;
  for (const std::string& id : only) {
    bool found = false;
    for (const Row& r : rows) found = found || r.id == id;
    if (!found) {
      std::fprintf(stderr, "advice: no pair '%s' (advice --list names them)\n", id.c_str());
      return 2;
    }
  }
  for (const Row& r : rows)
    if (only.empty() || std::find(only.begin(), only.end(), r.id) != only.end()) sel.push_back(r);
  std::vector<int> variants;
  if (variant == "orig" || variant == "both") variants.push_back(kOrig);
  if (variant == "changed" || variant == "both") variants.push_back(kChanged);
  if (variants.empty()) {
    std::fprintf(stderr, "advice: --variant takes orig, changed or both, not '%s'\n", variant.c_str());
    return 2;
  }
  int dev = 0;
  cudaError_t e = cudaGetDevice(&dev);
  if (e == cudaSuccess) e = cudaFree(nullptr);
  if (e != cudaSuccess) {
    std::fprintf(stderr, "advice: no usable CUDA device: %s\n", cudaGetErrorString(e));
    return 1;
  }
  int failed = 0;
  if (mode == kTime) {
    printTimeHeader(runs, warmups);
    for (const Row& r : sel) failed += !timePair(r, runs, warmups);
  } else {
    for (const Row& r : sel) failed += !profilePair(r, variants);
    std::printf("advice --profile: %zu pair(s), %d failed\n", sel.size(), failed);
  }
  if (failed) std::fprintf(stderr, "advice: %d of %zu pair(s) failed\n", failed, sel.size());
  return failed ? 1 : 0;
}
