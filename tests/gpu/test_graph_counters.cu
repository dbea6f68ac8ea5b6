// test_graph_counters: counters for the kernels of a CUDA graph, in the
// DEFAULT mode (kernel replay for ordinary kernels), or with
// PERFCHECK_REPLAY=rotate (argument "rotate").
//
// A hand-captured graph of three different kernels, in this order:
//   ffmaNode   65536 threads, each 64 dependent FFMAs on x[i] (x += 64 a launch):
//              exactly 4,194,304 FFMA thread instructions, 8192 load and
//              8192 store sectors a launch;
//   readSum    reads a 16 MiB buffer of ones (524,288 load sectors) and
//              writes one float per block (256 store sectors);
//   fillNode   writes y[i] = 3 + i over 1 Mi floats (131,072 store sectors),
//              loads nothing;
// launched 16 times in region "graphs" (more than the default set's one-pass
// groups).  Two ordinary kernels (directA before the loop, directB after the
// third graph launch) keep kernel replay, so the counter layer switches its
// profiler object between kernel replay and a user range both ways.
// What must hold (PASS/FAIL lines with the figures):
//   1. the program's output is right: x = 16 * 64, every block's sum, every
//      y: every node of every launch ran once (nothing replayed, nothing
//      skipped);
//   2. one graph entry: graph_launch with 3 kernels of 3 signatures, 16
//      launches, replay "rotate", every group collected (none missing),
//      one profiled launch per group;
//   3. its counters, exact sums over the three kernels of one launch:
//      FFMA null (a user range counts no SASS-patched metric: 0 on the
//      H200), load sectors 532,480 exactly, store sectors 139,520 to
//      139,528 (the H200 gave 139,523 in all five runs of one session: three
//      sectors none of the three kernels stores, constant, unexplained;
//      waiting for the context between Start and PushRange did not remove
//      them; docs/cupti.md §15); DRAM
//      bytes read from the cold group within 10% of 16.25 MiB (dram_cold);
//      every hardware metric the ordinary kernel-replayed kernel got is
//      non-null there too (every group came back);
//   4. the three kernels' entries: 16 launches each, their graph's id, three
//      different nodes, "entry" naming the graph entry, no counters of their
//      own and a reason that points to it;
//   5. directA and directB: replay "kernel" (default mode), directA's FFMA
//      exactly its threads x 64;
//   6. the snapshot (PERFCHECK_SNAPSHOT_DIR): the profiled launches in order
//      are directA (no group), graph groups 0, 1, 2, directB (no group),
//      then groups 3 .. G-1: the k-th graph launch collected group k.
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gpu_test.h"
#include "report_json.h"

__global__ void ffmaNode(float* x, int iters, float m, float c) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float a = x[i];
  for (int k = 0; k < iters; ++k) a = fmaf(a, m, c);  // m, c runtime values: one FFMA each
  x[i] = a;
}

__global__ void readSum(const float4* big, size_t n4, float* out) {
  float acc = 0.f;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x) {
    const float4 v = big[i];
    acc += v.x + v.y + v.z + v.w;
  }
  __shared__ float s[256];
  s[threadIdx.x] = acc;
  __syncthreads();
  for (int k = 128; k > 0; k >>= 1) {
    if ((int)threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

__global__ void fillNode(float* y, float v) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = v + (float)i;
}

__global__ void directKernel(float* x, int iters, float m, float c) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float a = x[i];
  for (int k = 0; k < iters; ++k) a = fmaf(a, m, c);
  x[i] = a;
}

enum { kThreads = 65536, kIters = 64, kBlocks = 256, kFill = 1 << 20, kLaunches = 16 };
static const size_t kBig = (size_t)16 << 20;  // bytes readSum reads

static std::string slurp(const std::string& path) {
  std::string s;
  if (FILE* f = std::fopen(path.c_str(), "r")) {
    char buf[65536];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
    std::fclose(f);
  }
  return s;
}

static double num(const std::string& obj, const char* key) {
  const std::vector<double> v = rj_numbers(obj, key);
  return v.empty() ? std::nan("") : v[0];
}

// The "metrics" object of a kernel entry, as (name, value) pairs.
static std::vector<std::pair<std::string, double>> metrics_of(const std::string& obj) {
  std::vector<std::pair<std::string, double>> out;
  const size_t at = obj.find("\"metrics\": {");
  if (at == std::string::npos) return out;
  const size_t end = obj.find('}', at);
  for (size_t p = obj.find('"', at + 12); p != std::string::npos && p < end; p = obj.find('"', p)) {
    const size_t q = obj.find('"', p + 1);
    const std::string name = obj.substr(p + 1, q - p - 1);
    const char* v = obj.c_str() + q + 2;
    while (*v == ' ') ++v;
    char* e = nullptr;
    const double d = std::strtod(v, &e);
    out.push_back({name, e == v ? std::nan("") : d});
    p = obj.find('\n', q);
  }
  return out;
}

// Whether the report says metric `name` of this entry came through a
// SASS-patched counter (kernels[].metric_sources), or is a thread-per-
// instruction ratio: neither is measured under a user range (0 and NaN on
// the H200).
static bool sass_sourced(const std::string& obj, const std::string& name) {
  if (name.find("__sass_") != std::string::npos || name.find("thread_inst_executed") != std::string::npos) return true;
  const size_t at = obj.find("\"metric_sources\": {");
  if (at == std::string::npos) return false;
  const size_t end = obj.find('}', at);
  const size_t p = obj.find("\"" + name + "\": \"", at);
  if (p == std::string::npos || p > end) return false;
  const size_t q = obj.find('\n', p);
  return obj.substr(p, q - p).find("__sass_") != std::string::npos;
}

int main(int argc, char** argv) {
  const bool rotate = argc == 2 && std::strcmp(argv[1], "rotate") == 0;
  if (argc > 2 || (argc == 2 && !rotate)) {
    std::fprintf(stderr, "usage: %s [rotate]\n", argv[0]);
    return EXIT_FAILURE;
  }
  setvbuf(stdout, NULL, _IONBF, 0);  // a crash inside the library still shows how far it got
  gt_require_gpu();
  char dir[] = "/tmp/pc-graphs-XXXXXX";
  GT_REQUIRE(mkdtemp(dir) != nullptr, "mkdtemp failed");
  if (rotate)
    setenv("PERFCHECK_REPLAY", "rotate", 1);
  else
    unsetenv("PERFCHECK_REPLAY");  // the default: kernel replay
  setenv("PERFCHECK_SNAPSHOT_DIR", dir, 1);
  setenv("PERFCHECK_PROGRESS", "1", 1);
  std::printf("step: creating the session (%s)\n", rotate ? "PERFCHECK_REPLAY=rotate" : "default replay mode");
  perfcheck_session* s = gt_session(PERFCHECK_MODE_COUNTERS);

  float *x = nullptr, *out = nullptr, *y = nullptr, *dx = nullptr;
  float4* big = nullptr;
  GT_CUDA(cudaMalloc(&x, kThreads * sizeof(float)));
  GT_CUDA(cudaMalloc(&dx, kThreads * sizeof(float)));
  GT_CUDA(cudaMalloc(&out, kBlocks * sizeof(float)));
  GT_CUDA(cudaMalloc(&y, kFill * sizeof(float)));
  GT_CUDA(cudaMalloc(&big, kBig));
  GT_CUDA(cudaMemset(x, 0, kThreads * sizeof(float)));
  GT_CUDA(cudaMemset(dx, 0, kThreads * sizeof(float)));
  GT_CUDA(cudaMemset(out, 0, kBlocks * sizeof(float)));
  GT_CUDA(cudaMemset(y, 0xff, kFill * sizeof(float)));  // NaN: a y never written shows
  {
    std::vector<float> ones(kBig / sizeof(float), 1.f);
    GT_CUDA(cudaMemcpy(big, ones.data(), kBig, cudaMemcpyHostToDevice));
  }

  cudaStream_t st;
  GT_CUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  GT_CUDA(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
  ffmaNode<<<kThreads / 256, 256, 0, st>>>(x, kIters, 1.f, 1.f);
  readSum<<<kBlocks, 256, 0, st>>>(big, kBig / sizeof(float4), out);
  fillNode<<<kFill / 256, 256, 0, st>>>(y, 3.f);
  GT_CUDA(cudaStreamEndCapture(st, &graph));
  GT_CUDA(cudaGetLastError());
  GT_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  GT_CUDA(cudaDeviceSynchronize());

  GT_OK(perfcheck_session_begin(s, "graphs"));
  std::printf("step: directA (kernel replay)\n");
  directKernel<<<kThreads / 256, 256, 0, st>>>(dx, kIters, 1.f, 1.f);
  GT_CUDA(cudaGetLastError());
  for (int k = 0; k < kLaunches; ++k) {
    std::printf("step: graph launch %d\n", k);
    GT_CUDA(cudaGraphLaunch(exec, st));
    if (k == 2) {
      std::printf("step: directB (kernel replay, after a user range)\n");
      directKernel<<<kThreads / 512, 512, 0, st>>>(dx, kIters, 1.f, 1.f);
      GT_CUDA(cudaGetLastError());
    }
  }
  std::printf("step: ending the region\n");
  GT_OK(perfcheck_session_end(s));
  GT_CUDA(cudaStreamSynchronize(st));

  // 1. results.
  {
    std::vector<float> hx(kThreads), hout(kBlocks), hy(kFill), hdx(kThreads);
    GT_CUDA(cudaMemcpy(hx.data(), x, kThreads * sizeof(float), cudaMemcpyDeviceToHost));
    GT_CUDA(cudaMemcpy(hout.data(), out, kBlocks * sizeof(float), cudaMemcpyDeviceToHost));
    GT_CUDA(cudaMemcpy(hy.data(), y, kFill * sizeof(float), cudaMemcpyDeviceToHost));
    GT_CUDA(cudaMemcpy(hdx.data(), dx, kThreads * sizeof(float), cudaMemcpyDeviceToHost));
    int bad_x = 0, bad_y = 0, bad_dx = 0;
    double total = 0;
    for (int i = 0; i < kThreads; ++i) bad_x += hx[i] != (float)(kLaunches * kIters);
    for (int i = 0; i < kThreads; ++i) bad_dx += hdx[i] != (float)(2 * kIters);
    for (int i = 0; i < kFill; ++i) bad_y += hy[i] != 3.f + (float)i;
    for (float v : hout) total += v;
    const bool ok = !bad_x && !bad_y && !bad_dx && total == (double)(kBig / sizeof(float));
    GT_EXPECT(ok, "results: %d x wrong (want %d), %d y wrong, %d directKernel x wrong, readSum total %.0f (want %zu)",
              bad_x, kLaunches * kIters, bad_y, bad_dx, total, kBig / sizeof(float));
    std::printf("%s results: x[0] %g (want %d), readSum total %.0f, y[5] %g, wrong x/y/dx %d/%d/%d\n", ok ? "PASS" : "FAIL",
                hx[0], kLaunches * kIters, total, hy[5], bad_x, bad_y, bad_dx);
  }

  std::printf("step: building the report\n");
  const perfcheck_report* r = gt_report(s);
  const std::string js = rj_text(r);
  const std::vector<std::string> ks = rj_objects(js, "kernels");
  std::string gobj, fobj, robj, lobj, aobj, bobj;
  int ngraph = 0;
  for (const std::string& k : ks) {
    const std::string name = rj_string(k, "name");
    if (k.find("\"graph_launch\": {") != std::string::npos) {
      gobj = k;
      ++ngraph;
    } else if (name == "ffmaNode") {
      fobj = k;
    } else if (name == "readSum") {
      robj = k;
    } else if (name == "fillNode") {
      lobj = k;
    } else if (name == "directKernel") {  // directA: blocks of 256 threads, directB: of 512
      if (k.find("\"block\": [256, 1, 1]") != std::string::npos)
        aobj = k;
      else
        bobj = k;
    }
  }
  GT_REQUIRE(ngraph == 1 && !fobj.empty() && !robj.empty() && !lobj.empty(),
             "want one graph entry and the three kernels' entries: %d graph entries, ffmaNode %s, readSum %s, "
             "fillNode %s (%zu entries)",
             ngraph, fobj.empty() ? "missing" : "found", robj.empty() ? "missing" : "found",
             lobj.empty() ? "missing" : "found", ks.size());
  const std::string gname = rj_string(gobj, "name");

  // 2. the graph entry.
  const double G = num(gobj, "groups"), collected = num(gobj, "collected"), profiled = num(gobj, "profiled_launches");
  const std::string missing_reason = rj_string(gobj, "missing_reason");
  const bool ok2 = num(gobj, "kernels") == 3 && num(gobj, "signatures") == 3 && num(gobj, "launches") == kLaunches &&
                   rj_string(gobj, "replay") == "rotate" && G >= 2 && G <= kLaunches && collected == G &&
                   profiled == G && missing_reason == "null" && gobj.find("\"missing\": []") != std::string::npos;
  GT_EXPECT(ok2, "graph entry %s: kernels %g, signatures %g, launches %g, replay %s, groups %g, collected %g, "
            "profiled %g, missing_reason %s", gname.c_str(), num(gobj, "kernels"), num(gobj, "signatures"),
            num(gobj, "launches"), rj_string(gobj, "replay").c_str(), G, collected, profiled, missing_reason.c_str());
  std::printf("%s graph entry: \"%s\": %g launches, %g kernels of %g signatures, replay %s, %g of %g groups, %g "
              "profiled launches\n",
              ok2 ? "PASS" : "FAIL", gname.c_str(), num(gobj, "launches"), num(gobj, "kernels"), num(gobj, "signatures"),
              rj_string(gobj, "replay").c_str(), collected, G, profiled);

  // 3. exact sums over one launch's three kernels.
  {
    const double ffma = num(gobj, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum");
    const double ld = num(gobj, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
    const double stv = num(gobj, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum");
    const double dram = num(gobj, "dram__bytes_read.sum");
    const double want_ffma = (double)kThreads * kIters, want_ld = kThreads * 4.0 / 32 + kBig / 32.0,
                 want_st = kThreads * 4.0 / 32 + kBlocks + kFill * 4.0 / 32, want_dram = kBig + kThreads * 4.0;
    const bool cold = gobj.find("\"dram_cold\": true") != std::string::npos;
    // A user range returns no SASS-patched counts (they came back 0 on the
    // H200): the FFMA count must be null, never 0.
    const bool ok3 = std::isnan(ffma) && ld == want_ld && stv >= want_st && stv <= want_st + 8 &&
                     std::fabs(dram - want_dram) <= 0.1 * want_dram && cold;
    GT_EXPECT(ok3, "graph counters: ffma %.0f (want null; %.0f ran), ld sectors %.0f (want %.0f), st sectors %.0f (want %.0f to +8), "
              "dram read %.0f (want %.0f +-10%%), dram_cold %d", ffma, want_ffma, ld, want_ld, stv, want_st, dram,
              want_dram, cold);
    std::printf("%s graph sums: ffma %.0f (null wanted; %.0f ran), ld sectors %.0f / %.0f, st sectors %.0f / %.0f, dram read %.0f B / "
                "%.0f B (%+.1f%%), dram_cold %s\n",
                ok3 ? "PASS" : "FAIL", ffma, want_ffma, ld, want_ld, stv, want_st, dram, want_dram,
                100.0 * (dram - want_dram) / want_dram, cold ? "true" : "false");
  }
  // 3b. every group came back: what kernel replay measured for directA is
  // measured for the graph too.
  if (!aobj.empty()) {
    std::string null_in_graph;
    int compared = 0;
    const std::vector<std::pair<std::string, double>> am = metrics_of(aobj), gm = metrics_of(gobj);
    for (const auto& m : am) {
      if (std::isnan(m.second) || sass_sourced(aobj, m.first)) continue;  // SASS: null under a user range
      ++compared;
      for (const auto& g : gm)
        if (g.first == m.first && std::isnan(g.second)) null_in_graph += (null_in_graph.empty() ? "" : ", ") + m.first;
    }
    GT_EXPECT(compared > 10 && null_in_graph.empty(), "metrics directA has and the graph entry lacks: %s (%d compared)",
              null_in_graph.c_str(), compared);
    std::printf("%s every group: %d metrics measured for directA, null for the graph: %s\n",
                compared > 10 && null_in_graph.empty() ? "PASS" : "FAIL", compared,
                null_in_graph.empty() ? "none" : null_in_graph.c_str());
  }

  // 4. the kernels' entries point to it.
  {
    const std::string* objs[3] = {&fobj, &robj, &lobj};
    const char* names[3] = {"ffmaNode", "readSum", "fillNode"};
    const double gid = num(gobj, "graph_id");
    std::vector<double> nodes;
    bool ok4 = true;
    std::string got;
    for (int i = 0; i < 3; ++i) {
      const std::string& o = *objs[i];
      const double id = num(o, "id"), node = num(o, "node");
      const std::string entry = rj_string(o, "entry"), why = rj_string(o, "not_measured_reason");
      const bool ok = num(o, "launches") == kLaunches && id == gid && id > 0 && entry == gname &&
                      num(o, "passes") == 0 && why.find("counters are in the entry") != std::string::npos;
      ok4 = ok4 && ok;
      for (double n : nodes) ok4 = ok4 && n != node;
      nodes.push_back(node);
      char b[300];
      std::snprintf(b, sizeof b, "%s%s: graph %g node %g, %g launches%s", i ? "; " : "", names[i], id, node,
                    num(o, "launches"), ok ? "" : " (entry or reason wrong)");
      got += b;
    }
    GT_EXPECT(ok4, "graph kernels: %s", got.c_str());
    std::printf("%s graph kernels name graph and node and point to \"%s\": %s\n", ok4 ? "PASS" : "FAIL", gname.c_str(),
                got.c_str());
  }

  // 5. ordinary kernels keep their own mode.
  if (!rotate) {
    const double ffma = num(aobj, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum");
    const bool ok5 = !aobj.empty() && !bobj.empty() && rj_string(aobj, "replay") == "kernel" &&
                     rj_string(bobj, "replay") == "kernel" && ffma == (double)kThreads * kIters;
    GT_EXPECT(ok5, "directA replay %s ffma %.0f (want %.0f), directB replay %s", rj_string(aobj, "replay").c_str(),
              ffma, (double)kThreads * kIters, rj_string(bobj, "replay").c_str());
    std::printf("%s ordinary kernels: directA replay=%s passes=%g ffma %.0f, directB replay=%s\n", ok5 ? "PASS" : "FAIL",
                rj_string(aobj, "replay").c_str(), num(aobj, "passes"), ffma, rj_string(bobj, "replay").c_str());
  }

  // 6. the snapshot: graph launch k collected group k.
  {
    const std::string snap = slurp(std::string(dir) + "/graphs.json");
    const std::vector<std::string> prof = rj_objects(snap, "profiled");
    std::string seq;
    std::vector<int> groups;
    int cuts = 0;
    for (const std::string& p : prof) {
      // perfcheck's host time in a launch that profiled nothing (a session
      // closed there): no signature, correlation 0, an interval to cut.
      if (std::isnan(num(p, "signature")) && num(p, "correlation") == 0) {
        ++cuts;
        continue;
      }
      const double g = num(p, "group");
      groups.push_back(std::isnan(g) ? -1 : (int)g);
      seq += (seq.empty() ? "" : ",") + (std::isnan(g) ? std::string("-") : std::to_string((int)g));
    }
    bool ok6 = (int)groups.size() == (int)G + 2;
    for (size_t i = 0; ok6 && i < groups.size(); ++i) {
      const int want = i == 0 || i == 4 ? -1 : i < 4 ? (int)i - 1 : (int)i - 2;
      ok6 = rotate ? (i == 0 || i == 4 || groups[i] == want) : groups[i] == want;
    }
    GT_EXPECT(ok6, "snapshot profiled launches' groups: %s (want -,0,1,2,-,3..%d)", seq.c_str(), (int)G - 1);
    std::printf("%s k-th graph launch collects group k: snapshot groups %s (%d host cut%s beside them)\n",
                ok6 ? "PASS" : "FAIL", seq.c_str(), cuts, cuts == 1 ? "" : "s");
  }

  if (gt_failures) {
    gt_print_report(r);
    std::printf("%s\n", js.c_str());
  }
  std::printf("step: destroying the session\n");
  perfcheck_session_destroy(s);
  GT_CUDA(cudaGraphExecDestroy(exec));
  GT_CUDA(cudaGraphDestroy(graph));
  GT_CUDA(cudaStreamDestroy(st));
  GT_CUDA(cudaFree(x));
  GT_CUDA(cudaFree(dx));
  GT_CUDA(cudaFree(out));
  GT_CUDA(cudaFree(y));
  GT_CUDA(cudaFree(big));
  return gt_finish(rotate ? "test_graph_counters (rotate)" : "test_graph_counters");
}
