// test_threads: kernels launched from a second host thread between begin and
// end land in the open region; one launched by that thread before begin
// does not.  And the header's two rules on threads: perfcheck_session_message
// is safe to call from a thread while another ends regions and takes notes
// (each caller gets its own copy), and the session's report is the session's
// own (not a copy): a later end adds to it.
#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "gpu_test.h"

__global__ void bumpFromThread(int* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1;
}
__global__ void bumpFromMain(int* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 100;
}

enum { kN = 1 << 16, kThreadLaunches = 8, kMainLaunches = 2 };

// Launches from a std::thread; returns the first error.
static cudaError_t launchFromThread(int* x, int count) {
  cudaError_t result = cudaSuccess;
  std::thread t([&] {
    for (int k = 0; k < count && result == cudaSuccess; ++k) {
      bumpFromThread<<<kN / 256, 256>>>(x, kN);
      result = cudaGetLastError();
    }
    if (result == cudaSuccess) result = cudaStreamSynchronize(0);
  });
  t.join();
  return result;
}

int main() {
  gt_require_gpu();
  perfcheck_session* s = gt_session(PERFCHECK_MODE_TIMING);
  int* x = nullptr;
  GT_CUDA(cudaMalloc(&x, kN * sizeof(int)));
  GT_CUDA(cudaMemset(x, 0, kN * sizeof(int)));

  GT_CUDA(launchFromThread(x, 1));  // before begin: in no region
  GT_OK(perfcheck_session_begin(s, "threads"));
  GT_CUDA(launchFromThread(x, kThreadLaunches));
  for (int k = 0; k < kMainLaunches; ++k) {
    bumpFromMain<<<kN / 256, 256>>>(x, kN);
    GT_CUDA(cudaGetLastError());
  }
  GT_OK(perfcheck_session_end(s));

  const perfcheck_report* r = gt_report(s);
  perfcheck_region_info g = {};
  perfcheck_kernel_info kt = {}, km = {};
  GT_REQUIRE(gt_find_region(r, "threads", &g), "no region \"threads\"");
  GT_EXPECT(g.launches == kThreadLaunches + kMainLaunches, "region launches %llu, want %d",
            static_cast<unsigned long long>(g.launches), kThreadLaunches + kMainLaunches);
  GT_EXPECT(gt_find_kernel(r, "bumpFromThread", "threads", &kt), "no bumpFromThread entry in region threads");
  GT_EXPECT(kt.launches == kThreadLaunches, "bumpFromThread: %llu launches in the region, want %d",
            static_cast<unsigned long long>(kt.launches), int(kThreadLaunches));
  GT_EXPECT(gt_find_kernel(r, "bumpFromMain", "threads", &km), "no bumpFromMain entry in region threads");
  GT_EXPECT(km.launches == kMainLaunches, "bumpFromMain: %llu launches, want %d",
            static_cast<unsigned long long>(km.launches), int(kMainLaunches));

  std::vector<int> h(kN);
  GT_CUDA(cudaMemcpy(h.data(), x, kN * sizeof(int), cudaMemcpyDeviceToHost));
  const int want = 1 + kThreadLaunches + 100 * kMainLaunches;
  for (int i = 0; i < kN; ++i)
    if (h[i] != want) {
      GT_EXPECT(h[i] == want, "x[%d] = %d, want %d", i, h[i], want);
      break;
    }
  // The session's report is its own: the next end adds to the same report.
  const size_t before = perfcheck_report_region_count(r);
  GT_OK(perfcheck_session_begin(s, "more"));
  bumpFromMain<<<1, 32>>>(x, 32);
  GT_CUDA(cudaGetLastError());
  GT_OK(perfcheck_session_end(s));
  GT_EXPECT(gt_report(s) == r, "perfcheck_session_report gave another report after an end");
  GT_EXPECT(perfcheck_report_region_count(r) == before + 1, "the session's report has %zu regions after one more end, want %zu",
            perfcheck_report_region_count(r), before + 1);

  // perfcheck_session_message from another thread while this thread ends
  // regions: each thread reads its own copy, made under the session lock.
  std::atomic<int> stop(0), differ(0), reads(0);
  const char* mine = perfcheck_session_message(s);
  std::string want_msg = mine;
  const char* theirs = nullptr;
  std::thread reader([&] {
    while (!stop.load()) {
      theirs = perfcheck_session_message(s);
      if (want_msg != theirs) differ++;
      reads++;
    }
  });
  for (int k = 0; k < 200; ++k) {
    GT_OK(perfcheck_session_begin(s, "loop"));
    GT_OK(perfcheck_session_end(s));
  }
  stop.store(1);
  reader.join();
  GT_EXPECT(theirs != nullptr && theirs != mine, "perfcheck_session_message gave two threads one buffer");
  GT_EXPECT(differ.load() == 0, "%d of %d reads of perfcheck_session_message saw another text", differ.load(), reads.load());

  if (gt_failures) gt_print_report(r);
  perfcheck_session_destroy(s);
  GT_CUDA(cudaFree(x));
  return gt_finish("test_threads");
}
