// test_rotation: PERFCHECK_REPLAY=rotate on the H200.
//
// readAll reads a 16 MiB buffer (it fits in the 50 MB L2, so every launch
// after the first finds it there) and writes one float per block; it is
// launched 20 times in region "rot": a loop of one kernel collects a group
// every second launch, so 2G - 1 launches collect the default set's G
// groups (9 on GH100, 10 on AD102).
// once is launched once.  What must hold:
//   1. readAll, launched back to back, moved the config on at every second
//      launch (a loop of one kernel: the step's head back twice in a row):
//      the snapshot (PERFCHECK_SNAPSHOT_DIR) lists its profiled launches
//      with groups 0, 1, ..., G-1 in launch order, then once's G-1 (the
//      current config, which once lacks: no config change for it);
//   2. readAll's entry: replay "rotate", rotation {groups G, collected G},
//      G profiled launches, every default metric but those the chip lacks;
//   3. DRAM bytes from a flushed L2: dram__bytes_read.sum within 10% of the
//      16 MiB the kernel reads (a warm L2 would give almost 0), dram_cold
//      true, and the arithmetic intensity not null;
//   4. once's entry: rotation {G, 1}; the
//      report warns; a second run of "rot" finishes it by kernel replay
//      (its entry there: replay "kernel", G passes... the whole set);
//   5. the results are right (rotation replays nothing, flushes only L2).
// Prints PASS/FAIL lines with the figures.
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <string>
#include <vector>

#include "gpu_test.h"
#include "report_json.h"

__global__ void readAll(const float4* x, size_t n4, float* out) {
  float acc = 0.f;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x) {
    const float4 v = x[i];
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

__global__ void once(float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.f * y[i] + 1.f;
}

enum { kBlocks = 264, kLaunches = 20, kSmall = 1 << 16 };
static const size_t kBytes = (size_t)16 << 20;

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

// The k-th kernel's value of `key` in the report JSON (kernels in order).
static double kernel_num(const std::string& js, const char* key, size_t k) {
  std::vector<double> v = rj_numbers(js, key);
  return k < v.size() ? v[k] : NAN;
}

int main() {
  // Unbuffered, and a line at each step: a crash inside the library still
  // shows how far the test got.  PERFCHECK_PROGRESS: the counter layer says
  // one line on stderr at the end of each profiled launch's ENTER (after
  // SetConfig, Start and PushRange), so a crash between two lines is in that
  // launch's EXIT or the next one's ENTER (its flush, layout or SetConfig).
  setvbuf(stdout, NULL, _IONBF, 0);
  gt_require_gpu();
  char dir[] = "/tmp/pc-rotation-XXXXXX";
  GT_REQUIRE(mkdtemp(dir) != nullptr, "mkdtemp failed");
  setenv("PERFCHECK_REPLAY", "rotate", 1);
  setenv("PERFCHECK_SNAPSHOT_DIR", dir, 1);
  setenv("PERFCHECK_PROGRESS", "1", 1);
  std::printf("step: creating the session (rotation groups split here)\n");
  perfcheck_session* s = gt_session(PERFCHECK_MODE_COUNTERS);
  std::printf("step: session created\n");

  const size_t n4 = kBytes / sizeof(float4);
  float4* x = nullptr;
  float *out = nullptr, *y = nullptr;
  GT_CUDA(cudaMalloc(&x, kBytes));
  GT_CUDA(cudaMalloc(&out, kBlocks * sizeof(float)));
  GT_CUDA(cudaMalloc(&y, kSmall * sizeof(float)));
  std::vector<float> ones(kBytes / sizeof(float), 1.f);
  GT_CUDA(cudaMemcpy(x, ones.data(), kBytes, cudaMemcpyHostToDevice));
  GT_CUDA(cudaMemset(y, 0, kSmall * sizeof(float)));
  GT_CUDA(cudaDeviceSynchronize());

  GT_OK(perfcheck_session_begin(s, "rot"));
  for (int k = 0; k < kLaunches; ++k) {
    std::printf("step: readAll launch %d\n", k);
    readAll<<<kBlocks, 256>>>(x, n4, out);
    GT_CUDA(cudaGetLastError());
  }
  std::printf("step: once launch (run 1)\n");
  once<<<kSmall / 256, 256>>>(y, kSmall);
  GT_CUDA(cudaGetLastError());
  std::printf("step: ending run 1\n");
  GT_OK(perfcheck_session_end(s));
  // A second run of the region name: once again, the rest of its set.
  std::printf("step: run 2 (once: the rest of its set by kernel replay)\n");
  GT_OK(perfcheck_session_begin(s, "rot"));
  once<<<kSmall / 256, 256>>>(y, kSmall);
  GT_CUDA(cudaGetLastError());
  GT_OK(perfcheck_session_end(s));
  std::printf("step: run 2 ended\n");

  // 5. results.
  std::vector<float> hout(kBlocks), hy(kSmall);
  GT_CUDA(cudaMemcpy(hout.data(), out, kBlocks * sizeof(float), cudaMemcpyDeviceToHost));
  GT_CUDA(cudaMemcpy(hy.data(), y, kSmall * sizeof(float), cudaMemcpyDeviceToHost));
  double total = 0;
  for (float v : hout) total += v;
  GT_EXPECT(total == (double)(kBytes / sizeof(float)), "readAll sums to %.0f, want %.0f", total,
            (double)(kBytes / sizeof(float)));
  GT_EXPECT(hy[0] == 3.f, "once ran %s (y = %g, want 3 after two launches)", hy[0] == 1.f ? "once" : "oddly", hy[0]);
  std::printf("%s results: readAll sum %.0f, once y[0] %g\n", total == (double)(kBytes / sizeof(float)) && hy[0] == 3.f ? "PASS" : "FAIL",
              total, hy[0]);

  std::printf("step: building the report\n");
  const perfcheck_report* r = gt_report(s);
  const std::string js = rj_text(r);
  // The kernels in report order: region "rot" run 1 (readAll, once), run 2 (once).
  perfcheck_kernel_info ka = {};
  GT_REQUIRE(gt_find_kernel(r, "readAll", "rot", &ka), "no readAll entry");
  std::vector<std::string> replay = rj_strings(js, "replay");
  std::vector<double> groups = rj_numbers(js, "groups"), collected = rj_numbers(js, "collected");
  std::vector<double> profiled = rj_numbers(js, "profiled_launches");
  GT_REQUIRE(replay.size() >= 3 && groups.size() >= 2, "want 3 kernel entries with replay and 2 with rotation, got %zu, %zu",
             replay.size(), groups.size());
  const int G = (int)groups[0];

  // 2.
  const bool ok2 = replay[0] == "rotate" && G >= 2 && collected[0] == G && profiled[0] == G;
  GT_EXPECT(ok2, "readAll: replay %s, rotation %d of %d, %g profiled launches", replay[0].c_str(), (int)collected[0], G,
            profiled[0]);
  std::printf("%s rotation entry: readAll replay=%s groups=%d collected=%d profiled_launches=%g (launched %d times)\n",
              ok2 ? "PASS" : "FAIL", replay[0].c_str(), G, (int)collected[0], profiled[0], kLaunches);

  // 2b. every group's metrics came back: one metric of each kind (a SASS
  // ratio, a SASS count, an L1TEX count, a warp ratio), each in some group.
  {
    const char* names[] = {"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio",
                           "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
                           "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                           "smsp__average_thread_inst_executed_per_inst_executed.ratio",
                           "sm__warps_active.avg.pct_of_peak_sustained_active"};
    std::string got;
    bool all = true;
    for (const char* nm : names) {
      const double v = kernel_num(js, nm, 0);
      all = all && !std::isnan(v);
      char b[160];
      std::snprintf(b, sizeof b, "%s%s=%g", got.empty() ? "" : ", ", nm, v);
      got += b;
    }
    GT_EXPECT(all, "readAll under rotation: a metric is null: %s", got.c_str());
    std::printf("%s every group's values: readAll %s\n", all ? "PASS" : "FAIL", got.c_str());
  }

  // 3.
  const double dram = kernel_num(js, "dram__bytes_read.sum", 0);
  const double ai = kernel_num(js, "arithmetic_intensity", 0);
  const std::string cold = js.find("\"dram_cold\": true") != std::string::npos ? "true" : "false";
  const bool ok3 = std::fabs(dram - (double)kBytes) <= 0.10 * (double)kBytes && cold == "true" && !std::isnan(ai);
  GT_EXPECT(ok3, "readAll: dram__bytes_read.sum %.0f, want %zu +-10%% (dram_cold %s, arithmetic intensity %g)", dram,
            kBytes, cold.c_str(), ai);
  std::printf("%s dram from a flushed L2: readAll dram__bytes_read.sum %.0f B against %zu B read (%.1f%%), dram_cold %s, "
              "arithmetic_intensity %g\n",
              ok3 ? "PASS" : "FAIL", dram, kBytes, 100.0 * (dram - (double)kBytes) / (double)kBytes, cold.c_str(), ai);

  // 4.
  const bool ok4 = replay[1] == "rotate" && collected[1] == 1 && replay[2] == "kernel" && profiled[2] == 1 &&
                   js.find("rotation: some kernels ran fewer") != std::string::npos;
  GT_EXPECT(ok4, "once: run 1 replay %s collected %g; run 2 replay %s profiled %g", replay[1].c_str(), collected[1],
            replay[2].c_str(), profiled[2]);
  std::printf("%s fallback: once run 1 replay=%s %d of %d groups (warned), run 2 replay=%s profiled_launches=%g\n",
              ok4 ? "PASS" : "FAIL", replay[1].c_str(), (int)collected[1], G, replay[2].c_str(), profiled[2]);

  // 1. the snapshot of run 1: groups in launch order.
  std::string snap;
  if (DIR* d = opendir(dir)) {
    while (dirent* e = readdir(d))
      if (std::strcmp(e->d_name, "rot.json") == 0) snap = slurp(std::string(dir) + "/rot.json");
    closedir(d);
  }
  std::vector<double> g = rj_numbers(snap, "group");
  std::string seq;
  bool ok1 = (int)g.size() == G + 1;
  for (size_t i = 0; i < g.size(); ++i) {
    seq += (i ? "," : "") + std::to_string((int)g[i]);
    ok1 = ok1 && (int)g[i] == (i < (size_t)G ? (int)i : G - 1);
  }
  GT_EXPECT(ok1, "snapshot groups in launch order: %s (want 0..%d then %d)", seq.c_str(), G - 1, G - 1);
  std::printf("%s back-to-back launches move the config on, a new kernel keeps it: snapshot groups %s\n",
              ok1 ? "PASS" : "FAIL", seq.c_str());

  if (gt_failures) gt_print_report(r);
  std::printf("step: destroying the session\n");
  perfcheck_session_destroy(s);
  GT_CUDA(cudaFree(x));
  GT_CUDA(cudaFree(out));
  GT_CUDA(cudaFree(y));
  return gt_finish("test_rotation");
}
