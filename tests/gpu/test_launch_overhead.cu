// test_launch_overhead: the launches program's 4096 small launches (grid
// 16 x 256, 4096 threads each) in a region: step 1 catches the region as
// launch_overhead, and it counts 4096 launches.
#include <vector>

#include "gpu_test.h"
#include "launches_kernels.cuh"

int main() {
  gt_require_gpu();
  perfcheck_session* s = gt_session(PERFCHECK_MODE_TIMING);

  const size_t bytes = size_t(kLaunchN) * sizeof(float);
  float* x = nullptr;
  GT_CUDA(cudaMalloc(&x, bytes));
  GT_CUDA(cudaMemset(x, 0, bytes));
  GT_CUDA(launchAddOneAll(x));  // outside the region: pays the first launch's setup
  GT_CUDA(cudaDeviceSynchronize());

  GT_OK(perfcheck_session_begin(s, "pieces"));
  GT_CUDA(launchAddOnePieces(x));
  GT_OK(perfcheck_session_end(s));

  const perfcheck_report* r = gt_report(s);
  perfcheck_region_info g = {};
  GT_REQUIRE(gt_find_region(r, "pieces", &g), "no region \"pieces\" in the report");
  std::printf("region pieces: wall %.0f ns, kernel %.0f ns, idle %.0f ns, share %.3f, %llu launches, "
              "step %d, cause %s\n", g.wall_ns, g.kernel_ns, g.gpu_idle_ns, g.kernel_share,
              static_cast<unsigned long long>(g.launches), g.step, perfcheck_cause_name(g.cause));
  GT_EXPECT(g.launches == kLaunchPieces, "launches %llu, want %d", static_cast<unsigned long long>(g.launches),
            kLaunchPieces);
  GT_EXPECT(g.cause == PERFCHECK_CAUSE_LAUNCH_OVERHEAD, "cause %s, want launch_overhead",
            perfcheck_cause_name(g.cause));
  GT_EXPECT(g.step == 1, "step %d, want 1", g.step);
  GT_EXPECT(g.kernel_ns > 0.0 && g.kernel_ns <= g.wall_ns, "kernel %.0f ns, wall %.0f ns", g.kernel_ns, g.wall_ns);

  perfcheck_kernel_info k = {};
  GT_EXPECT(gt_find_kernel(r, "add_one", "pieces", &k), "no add_one entry in region pieces");
  GT_EXPECT(k.launches == kLaunchPieces && k.grid[0] == kLaunchPiece / kLaunchBlock && k.block[0] == kLaunchBlock,
            "add_one: %llu launches of %u x %u", static_cast<unsigned long long>(k.launches), k.grid[0], k.block[0]);

  std::vector<float> h(kLaunchN);
  GT_CUDA(cudaMemcpy(h.data(), x, bytes, cudaMemcpyDeviceToHost));
  for (int i = 0; i < kLaunchN; ++i)
    if (h[i] != 2.0f) {
      GT_EXPECT(h[i] == 2.0f, "x[%d] = %g, want 2", i, double(h[i]));
      break;
    }
  if (gt_failures) gt_print_report(r);
  perfcheck_session_destroy(s);
  GT_CUDA(cudaFree(x));
  return gt_finish("test_launch_overhead");
}
