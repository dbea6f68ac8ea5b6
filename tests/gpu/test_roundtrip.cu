// test_roundtrip: 256 MiB to the device (pageable), a kernel over 1024
// elements, 256 MiB back, in one region: step 1 catches the region as
// not_the_slow_part, and its copy time exceeds its kernel time.
#include <vector>

#include "gpu_test.h"
#include "roundtrip_kernels.cuh"

int main() {
  gt_require_gpu();
  perfcheck_session* s = gt_session(PERFCHECK_MODE_TIMING);

  const size_t bytes = kRoundtripN * sizeof(float);
  std::vector<float> host(kRoundtripN), back(kRoundtripN, std::nanf(""));
  for (size_t i = 0; i < kRoundtripN; ++i) host[i] = roundtripInput(i);
  float* dev = nullptr;
  GT_CUDA(cudaMalloc(&dev, bytes));
  GT_CUDA(launchScaleHead(dev));  // outside the region: pays the first launch's setup
  GT_CUDA(cudaDeviceSynchronize());

  GT_OK(perfcheck_session_begin(s, "roundtrip"));
  GT_CUDA(cudaMemcpy(dev, host.data(), bytes, cudaMemcpyHostToDevice));
  GT_CUDA(launchScaleHead(dev));
  GT_CUDA(cudaMemcpy(back.data(), dev, bytes, cudaMemcpyDeviceToHost));
  GT_OK(perfcheck_session_end(s));

  const perfcheck_report* r = gt_report(s);
  perfcheck_region_info g = {};
  GT_REQUIRE(gt_find_region(r, "roundtrip", &g), "no region \"roundtrip\" in the report");
  std::printf("region roundtrip: wall %.0f ns, memcpy %.0f ns, kernel %.0f ns, %llu launches, step %d, cause %s\n",
              g.wall_ns, g.memcpy_ns, g.kernel_ns, static_cast<unsigned long long>(g.launches), g.step,
              perfcheck_cause_name(g.cause));
  GT_EXPECT(g.cause == PERFCHECK_CAUSE_NOT_THE_SLOW_PART, "cause %s, want not_the_slow_part",
            perfcheck_cause_name(g.cause));
  GT_EXPECT(g.step == 1, "step %d, want 1", g.step);
  GT_EXPECT(g.memcpy_ns > g.kernel_ns, "memcpy %.0f ns not above kernel %.0f ns", g.memcpy_ns, g.kernel_ns);
  GT_EXPECT(g.kernel_ns > 0.0, "kernel %.0f ns", g.kernel_ns);
  GT_EXPECT(g.memcpy_ns <= g.wall_ns, "memcpy %.0f ns longer than wall %.0f ns", g.memcpy_ns, g.wall_ns);
  GT_EXPECT(g.launches == 1, "launches %llu, want 1", static_cast<unsigned long long>(g.launches));

  for (size_t i = 0; i < kRoundtripN; ++i)
    if (!(back[i] == roundtripRef(i))) {
      GT_EXPECT(back[i] == roundtripRef(i), "back[%zu] = %g, want %g", i, double(back[i]), double(roundtripRef(i)));
      break;
    }
  if (gt_failures) gt_print_report(r);
  perfcheck_session_destroy(s);
  GT_CUDA(cudaFree(dev));
  return gt_finish("test_roundtrip");
}
