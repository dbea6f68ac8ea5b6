// multigpu_contexts.cu: two contexts on one device in one process, kernels
// on both inside one perfcheck region (test_multigpu.sh part
// contexts).  The driver's own context (cuCtxCreate) and the device's
// primary context (the runtime's) each run mg_ctx_scale, with different
// grids so that their entries tell them apart; the runtime launches into
// whichever context is current.  The report is written as JSON to argv[1]
// for multigpu_check.py; the session is destroyed before the driver context,
// and the process exits normally (no crash at exit).
//
// The driver API is reached with dlopen("libcuda.so.1"), not linked, so the
// program starts (and skips with 77) on a machine without a driver.
#include <cuda.h>
#include <dlfcn.h>

#include "gpu_test.h"

__global__ void mg_ctx_scale(const float* x, float* y, int n, float a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + 1.0f;
}

typedef CUresult (*fn_get_t)(CUdevice*, int);
typedef CUresult (*fn_retain_t)(CUcontext*, CUdevice);
typedef CUresult (*fn_release_t)(CUdevice);
typedef CUresult (*fn_set_t)(CUcontext);
typedef CUresult (*fn_destroy_t)(CUcontext);
typedef CUresult (*fn_create4_t)(CUcontext*, void*, unsigned, CUdevice);  // cuCtxCreate_v4 (CUDA 12.5+)
typedef CUresult (*fn_create2_t)(CUcontext*, unsigned, CUdevice);         // cuCtxCreate_v2

// One kernel on the current context: n floats, grid blocks of 256 threads.
static void run_on_current(int blocks, float a) {
  const int n = blocks * 256;
  float *x = nullptr, *y = nullptr;
  GT_CUDA(cudaMalloc(&x, n * sizeof(float)));
  GT_CUDA(cudaMalloc(&y, n * sizeof(float)));
  GT_CUDA(cudaMemset(x, 0, n * sizeof(float)));
  mg_ctx_scale<<<blocks, 256>>>(x, y, n, a);
  GT_CUDA(cudaGetLastError());
  GT_CUDA(cudaDeviceSynchronize());
  float h = 0;
  GT_CUDA(cudaMemcpy(&h, y, sizeof h, cudaMemcpyDeviceToHost));
  GT_EXPECT(h == 1.0f, "mg_ctx_scale wrote %g, want 1", h);
  GT_CUDA(cudaFree(x));
  GT_CUDA(cudaFree(y));
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s REPORT.json\n", argv[0]);
    return 2;
  }
  gt_require_gpu();
  void* cu = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!cu) gt_skip("libcuda.so.1: %s", dlerror());
  auto get = (fn_get_t)dlsym(cu, "cuDeviceGet");
  auto retain = (fn_retain_t)dlsym(cu, "cuDevicePrimaryCtxRetain");
  auto release = (fn_release_t)dlsym(cu, "cuDevicePrimaryCtxRelease_v2");
  auto set = (fn_set_t)dlsym(cu, "cuCtxSetCurrent");
  auto destroy = (fn_destroy_t)dlsym(cu, "cuCtxDestroy_v2");
  auto create4 = (fn_create4_t)dlsym(cu, "cuCtxCreate_v4");
  auto create2 = (fn_create2_t)dlsym(cu, "cuCtxCreate_v2");
  GT_REQUIRE(get && retain && release && set && destroy && (create4 || create2), "driver entry points missing");

  perfcheck_session* s = gt_session(PERFCHECK_MODE_COUNTERS);
  CUdevice dev = 0;
  GT_REQUIRE(get(&dev, 0) == CUDA_SUCCESS, "cuDeviceGet(0)");
  CUcontext primary = nullptr, own = nullptr;
  GT_REQUIRE(retain(&primary, dev) == CUDA_SUCCESS, "cuDevicePrimaryCtxRetain");
  // cuCtxCreate_v4 with empty parameters (no affinity, no CIG); NULL
  // parameters, then the CUDA 12.4 entry point, should a driver refuse it.
  CUresult cr = CUDA_ERROR_NOT_SUPPORTED;
  if (create4) {
    CUctxCreateParams params;
    std::memset(&params, 0, sizeof params);
    cr = create4(&own, &params, 0, dev);
    if (cr != CUDA_SUCCESS) cr = create4(&own, nullptr, 0, dev);
  }
  if (cr != CUDA_SUCCESS && create2) cr = create2(&own, 0, dev);
  GT_REQUIRE(cr == CUDA_SUCCESS && own, "cuCtxCreate: %d", (int)cr);
  GT_REQUIRE(own != primary, "cuCtxCreate gave the primary context");

  GT_OK(perfcheck_session_begin(s, "two_contexts"));
  GT_REQUIRE(set(own) == CUDA_SUCCESS, "cuCtxSetCurrent(own)");
  run_on_current(64, 2.0f);
  GT_REQUIRE(set(primary) == CUDA_SUCCESS, "cuCtxSetCurrent(primary)");
  run_on_current(128, 3.0f);
  GT_REQUIRE(set(own) == CUDA_SUCCESS, "cuCtxSetCurrent(own)");
  run_on_current(64, 4.0f);  // back on the first context: its second launch
  GT_OK(perfcheck_session_end(s));

  const perfcheck_report* r = gt_report(s);
  FILE* f = std::fopen(argv[1], "w");
  GT_REQUIRE(f != nullptr, "cannot write %s", argv[1]);
  GT_OK(perfcheck_report_write(r, PERFCHECK_FORMAT_JSON, f));
  std::fclose(f);
  perfcheck_report_write(r, PERFCHECK_FORMAT_TEXT, stdout);
  perfcheck_session_destroy(s);

  GT_EXPECT(set(primary) == CUDA_SUCCESS, "cuCtxSetCurrent(primary) after the session");
  GT_EXPECT(destroy(own) == CUDA_SUCCESS, "cuCtxDestroy(own)");
  GT_EXPECT(release(dev) == CUDA_SUCCESS, "cuDevicePrimaryCtxRelease");
  std::printf("multigpu_contexts: %s\n", gt_failures ? "FAILED" : "ok");
  return gt_failures ? 1 : 0;
}
