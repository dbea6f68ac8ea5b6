// test_streams: two kernels of about 2 ms each on two streams, running at the
// same time.  The region's kernel_ns is the union of kernel intervals, so it
// is below 0.8 x the sum of the two durations and at least the longer one.
//
// Each kernel has half an SM's worth of blocks per SM at most, so both fit on
// the device together.  Before any perfcheck session the test checks with
// events that the device does overlap them, and skips if it does not (MPS
// limits, a shared GPU); with the session it requires the overlap again, so a
// library that serialised kernels (CUPTI's serial kernel activity) fails.
#include "gpu_test.h"
#include "mystery_kernels.cuh"

__global__ void overlapA(float* out, int iters) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = runChains(static_cast<float>(i & 255) / 256.0f, kMysteryMulA, kMysteryAddA, iters);
}
__global__ void overlapB(float* out, int iters) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = runChains(static_cast<float>(i & 255) / 256.0f, kMysteryMulB, kMysteryAddB, iters);
}

struct Pair {
  cudaStream_t a, b;
  cudaEvent_t start, doneB, end, aStart, aEnd, bStart, bEnd;
  unsigned grid;
  float *outA, *outB;
};

// Both kernels, B's stream forked from and joined to A's; returns the span in ms.
static float runPair(Pair& p, int iters, float* aMs, float* bMs) {
  GT_CUDA(cudaEventRecord(p.start, p.a));
  GT_CUDA(cudaStreamWaitEvent(p.b, p.start, 0));
  GT_CUDA(cudaEventRecord(p.aStart, p.a));
  overlapA<<<p.grid, 256, 0, p.a>>>(p.outA, iters);
  GT_CUDA(cudaGetLastError());
  GT_CUDA(cudaEventRecord(p.aEnd, p.a));
  GT_CUDA(cudaEventRecord(p.bStart, p.b));
  overlapB<<<p.grid, 256, 0, p.b>>>(p.outB, iters);
  GT_CUDA(cudaGetLastError());
  GT_CUDA(cudaEventRecord(p.bEnd, p.b));
  GT_CUDA(cudaEventRecord(p.doneB, p.b));
  GT_CUDA(cudaStreamWaitEvent(p.a, p.doneB, 0));
  GT_CUDA(cudaEventRecord(p.end, p.a));
  GT_CUDA(cudaEventSynchronize(p.end));
  float span = 0.0f;
  GT_CUDA(cudaEventElapsedTime(&span, p.start, p.end));
  GT_CUDA(cudaEventElapsedTime(aMs, p.aStart, p.aEnd));
  GT_CUDA(cudaEventElapsedTime(bMs, p.bStart, p.bEnd));
  return span;
}

int main() {
  gt_require_gpu();
  int dev = 0, sms = 0;
  GT_CUDA(cudaGetDevice(&dev));
  GT_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));

  Pair p;
  GT_CUDA(cudaStreamCreateWithFlags(&p.a, cudaStreamNonBlocking));
  GT_CUDA(cudaStreamCreateWithFlags(&p.b, cudaStreamNonBlocking));
  for (cudaEvent_t* e : {&p.start, &p.doneB, &p.end, &p.aStart, &p.aEnd, &p.bStart, &p.bEnd})
    GT_CUDA(cudaEventCreate(e));
  p.grid = static_cast<unsigned>(sms > 1 ? sms / 2 : 1);  // one block of 256 on half the SMs each
  const int n = static_cast<int>(p.grid) * 256;
  GT_CUDA(cudaMalloc(&p.outA, n * sizeof(float)));
  GT_CUDA(cudaMalloc(&p.outB, n * sizeof(float)));

  // Calibrate to about 2 ms a kernel, then check the device overlaps them.
  float aMs = 0.0f, bMs = 0.0f;
  int iters = 1 << 16;
  runPair(p, iters, &aMs, &bMs);
  runPair(p, iters, &aMs, &bMs);
  GT_REQUIRE(aMs > 0.0f, "calibration time %g ms", double(aMs));
  iters = static_cast<int>(std::min(double(1 << 28), std::max(4.0, iters * 2.0 / aMs)));
  iters -= iters % 4;
  float span = runPair(p, iters, &aMs, &bMs);
  std::printf("without perfcheck: iters %d, A %.3f ms, B %.3f ms, both %.3f ms\n", iters, double(aMs),
              double(bMs), double(span));
  if (span > 0.8f * (aMs + bMs))
    gt_skip("this device ran the two streams one after the other (%.3f ms for %.3f + %.3f ms) "
            "before any perfcheck session", double(span), double(aMs), double(bMs));

  perfcheck_session* s = gt_session(PERFCHECK_MODE_TIMING);
  overlapA<<<p.grid, 256, 0, p.a>>>(p.outA, 4);  // outside the region: first launch's setup
  GT_CUDA(cudaGetLastError());
  GT_CUDA(cudaDeviceSynchronize());
  GT_OK(perfcheck_session_begin(s, "streams"));
  span = runPair(p, iters, &aMs, &bMs);
  GT_OK(perfcheck_session_end(s));
  std::printf("with perfcheck: A %.3f ms, B %.3f ms, both %.3f ms (events)\n", double(aMs), double(bMs),
              double(span));
  GT_EXPECT(span < 0.8f * (aMs + bMs), "with a session the kernels no longer overlap: %.3f ms for %.3f + %.3f ms",
            double(span), double(aMs), double(bMs));

  const perfcheck_report* r = gt_report(s);
  perfcheck_region_info g = {};
  perfcheck_kernel_info ka = {}, kb = {};
  GT_REQUIRE(gt_find_region(r, "streams", &g), "no region \"streams\"");
  GT_REQUIRE(gt_find_kernel(r, "overlapA", "streams", &ka), "no overlapA entry in region streams");
  GT_REQUIRE(gt_find_kernel(r, "overlapB", "streams", &kb), "no overlapB entry in region streams");
  const double sum = ka.duration_ns_median + kb.duration_ns_median;
  const double longer = std::max(ka.duration_ns_median, kb.duration_ns_median);
  std::printf("report: A %.0f ns, B %.0f ns, region kernel_ns %.0f ns, %llu launches\n", ka.duration_ns_median,
              kb.duration_ns_median, g.kernel_ns, static_cast<unsigned long long>(g.launches));
  GT_EXPECT(ka.launches == 1 && kb.launches == 1, "launches A %llu B %llu, want 1 each",
            static_cast<unsigned long long>(ka.launches), static_cast<unsigned long long>(kb.launches));
  GT_EXPECT(g.launches == 2, "region launches %llu, want 2", static_cast<unsigned long long>(g.launches));
  GT_EXPECT(ka.duration_ns_median > 0.5e6 && kb.duration_ns_median > 0.5e6, "durations %.0f and %.0f ns: not ~2 ms",
            ka.duration_ns_median, kb.duration_ns_median);
  GT_EXPECT(g.kernel_ns < 0.8 * sum, "kernel_ns %.0f not below 0.8 x %.0f ns: overlap counted twice", g.kernel_ns, sum);
  GT_EXPECT(g.kernel_ns >= longer * (1.0 - 1e-9), "kernel_ns %.0f below the longer kernel %.0f ns", g.kernel_ns,
            longer);

  float a0 = 0.0f, b0 = 0.0f;
  GT_CUDA(cudaMemcpy(&a0, p.outA, sizeof a0, cudaMemcpyDeviceToHost));
  GT_CUDA(cudaMemcpy(&b0, p.outB, sizeof b0, cudaMemcpyDeviceToHost));
  const float wantA = runChains(0.0f, kMysteryMulA, kMysteryAddA, iters);
  const float wantB = runChains(0.0f, kMysteryMulB, kMysteryAddB, iters);
  GT_EXPECT(std::fabs(a0 - wantA) <= 1e-6f * std::fabs(wantA), "overlapA out[0] %.9g, want %.9g", double(a0), double(wantA));
  GT_EXPECT(std::fabs(b0 - wantB) <= 1e-6f * std::fabs(wantB), "overlapB out[0] %.9g, want %.9g", double(b0), double(wantB));
  if (gt_failures) gt_print_report(r);
  perfcheck_session_destroy(s);
  GT_CUDA(cudaFree(p.outA));
  GT_CUDA(cudaFree(p.outB));
  return gt_finish("test_streams");
}
