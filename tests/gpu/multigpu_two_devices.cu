// multigpu_two_devices.cu: one process, two GPUs, one region
// (test_multigpu.sh part two_devices; skips with 77 below two devices).
// Inside region "both": mg_dev0 on device 0, cudaSetDevice(1) and mg_dev1
// on device 1, a peer copy device 0 -> device 1 (cudaMemcpyPeer: a copy),
// then cudaSetDevice(0) and mg_dev0 again.  Counters mode: each device's
// context gets its own range profiler.  The report goes to argv[1] as JSON
// for multigpu_check.py.
#include "gpu_test.h"

__global__ void mg_dev0(float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = y[i] * 2.0f + 1.0f;
}

__global__ void mg_dev1(float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = y[i] + 3.0f;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s REPORT.json\n", argv[0]);
    return 2;
  }
  gt_require_gpu();
  int ndev = 0;
  GT_CUDA(cudaGetDeviceCount(&ndev));
  if (ndev < 2) gt_skip("%d CUDA device(s): this test needs 2", ndev);
  const int n = 1 << 22;
  const size_t bytes = n * sizeof(float);
  float *a = nullptr, *b = nullptr;
  GT_CUDA(cudaSetDevice(0));
  GT_CUDA(cudaMalloc(&a, bytes));
  GT_CUDA(cudaMemset(a, 0, bytes));
  GT_CUDA(cudaSetDevice(1));
  GT_CUDA(cudaMalloc(&b, bytes));
  GT_CUDA(cudaMemset(b, 0, bytes));
  GT_CUDA(cudaSetDevice(0));

  perfcheck_session* s = gt_session(PERFCHECK_MODE_COUNTERS);
  GT_OK(perfcheck_session_begin(s, "both"));
  mg_dev0<<<n / 256, 256>>>(a, n);  // a = 1
  GT_CUDA(cudaGetLastError());
  GT_CUDA(cudaSetDevice(1));
  mg_dev1<<<n / 256, 256>>>(b, n);  // b = 3
  GT_CUDA(cudaGetLastError());
  GT_CUDA(cudaDeviceSynchronize());
  GT_CUDA(cudaMemcpyPeer(b, 1, a, 0, bytes));  // b = 1
  GT_CUDA(cudaDeviceSynchronize());
  GT_CUDA(cudaSetDevice(0));
  GT_CUDA(cudaDeviceSynchronize());
  mg_dev0<<<n / 256, 256>>>(a, n);  // a = 3
  GT_CUDA(cudaDeviceSynchronize());
  GT_OK(perfcheck_session_end(s));

  float ha = 0, hb = 0;
  GT_CUDA(cudaMemcpy(&ha, a + n - 1, sizeof ha, cudaMemcpyDeviceToHost));
  GT_CUDA(cudaSetDevice(1));
  GT_CUDA(cudaMemcpy(&hb, b + n - 1, sizeof hb, cudaMemcpyDeviceToHost));
  GT_EXPECT(ha == 3.0f && hb == 1.0f, "results a=%g (want 3) b=%g (want 1)", ha, hb);

  const perfcheck_report* r = gt_report(s);
  FILE* f = std::fopen(argv[1], "w");
  GT_REQUIRE(f != nullptr, "cannot write %s", argv[1]);
  GT_OK(perfcheck_report_write(r, PERFCHECK_FORMAT_JSON, f));
  std::fclose(f);
  perfcheck_report_write(r, PERFCHECK_FORMAT_TEXT, stdout);
  perfcheck_session_destroy(s);
  GT_CUDA(cudaFree(b));
  GT_CUDA(cudaSetDevice(0));
  GT_CUDA(cudaFree(a));
  std::printf("multigpu_two_devices: %s\n", gt_failures ? "FAILED" : "ok");
  return gt_failures ? 1 : 0;
}
