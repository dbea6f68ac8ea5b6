// test_modules: one kernel source compiled twice by NVRTC (with NVRTC's
// defaults and with --maxrregcount=32), loaded as two modules and launched
// with the same grid and block in one region, is two report entries of the
// one name, each with its own module's registers (cuFuncGetAttribute) and
// its own `function_id` in the JSON.  A <<<>>> kernel launched again through
// its per-context CUfunction (cudaGetFuncBySymbol, cuLaunchKernel) after a
// region that read its attributes stays one entry with both launches.
#include <cuda.h>
#include <nvrtc.h>

#include <string>
#include <vector>

#include "gpu_test.h"
#include "report_json.h"

static const char kSource[] = R"(
extern "C" __global__ void heavy(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float a[40];
#pragma unroll
  for (int k = 0; k < 40; ++k) a[k] = x[(i + 97 * k) % n];
  for (int it = 0; it < 16; ++it) {
#pragma unroll
    for (int k = 0; k < 40; ++k) a[k] = fmaf(a[k], a[(k + 7) % 40], 0.5f);
  }
  float s = 0.f;
#pragma unroll
  for (int k = 0; k < 40; ++k) s += a[k];
  if (i < n) y[i] = s;
}
)";

__global__ void twin(float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += 1.f;
}

// Driver calls through the runtime's entry points: a test binary linked to
// libcuda.so.1 would not load (exit 77) on a machine without a driver.
#define PC_DRV(name) static decltype(&name) p_##name = nullptr
PC_DRV(cuModuleLoadData);
PC_DRV(cuModuleGetFunction);
PC_DRV(cuModuleUnload);
PC_DRV(cuFuncGetAttribute);
PC_DRV(cuLaunchKernel);
#undef PC_DRV

static void loadDriver() {
#define PC_GET(name)                                                                                    \
  do {                                                                                                  \
    cudaDriverEntryPointQueryResult q_;                                                                 \
    GT_CUDA(cudaGetDriverEntryPointByVersion(#name, reinterpret_cast<void**>(&p_##name), 12000,         \
                                             cudaEnableDefault, &q_));                                 \
    GT_REQUIRE(q_ == cudaDriverEntryPointSuccess && p_##name, "driver entry point %s not found", #name); \
  } while (0)
  PC_GET(cuModuleLoadData);
  PC_GET(cuModuleGetFunction);
  PC_GET(cuModuleUnload);
  PC_GET(cuFuncGetAttribute);
  PC_GET(cuLaunchKernel);
#undef PC_GET
}

#define GT_CU(call)                                                                             \
  do {                                                                                          \
    CUresult r_ = (call);                                                                       \
    GT_REQUIRE(r_ == CUDA_SUCCESS, "%s:%d: %s: CUresult %d", __FILE__, __LINE__, #call, int(r_)); \
  } while (0)

static std::vector<char> compile(const char* opt) {
  nvrtcProgram p;
  GT_REQUIRE(nvrtcCreateProgram(&p, kSource, "heavy.cu", 0, nullptr, nullptr) == NVRTC_SUCCESS, "nvrtcCreateProgram");
  int dev = 0, major = 0, minor = 0;
  GT_CUDA(cudaGetDevice(&dev));
  GT_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  GT_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
  const std::string arch = "--gpu-architecture=sm_" + std::to_string(major * 10 + minor);
  std::vector<const char*> opts = {arch.c_str()};
  if (opt) opts.push_back(opt);
  const nvrtcResult rc = nvrtcCompileProgram(p, int(opts.size()), opts.data());
  if (rc != NVRTC_SUCCESS) {
    size_t n = 0;
    nvrtcGetProgramLogSize(p, &n);
    std::string log(n, '\0');
    nvrtcGetProgramLog(p, &log[0]);
    GT_REQUIRE(false, "nvrtcCompileProgram: %s", log.c_str());
  }
  size_t n = 0;
  GT_REQUIRE(nvrtcGetCUBINSize(p, &n) == NVRTC_SUCCESS && n, "nvrtcGetCUBINSize");
  std::vector<char> cubin(n);
  GT_REQUIRE(nvrtcGetCUBIN(p, cubin.data()) == NVRTC_SUCCESS, "nvrtcGetCUBIN");
  nvrtcDestroyProgram(&p);
  return cubin;
}

int main() {
  gt_require_gpu();
  loadDriver();
  perfcheck_session* s = gt_session(PERFCHECK_MODE_TIMING);
  const int n = 1 << 16, block = 128;
  float *x = nullptr, *y = nullptr;
  GT_CUDA(cudaMalloc(&x, n * sizeof(float)));
  GT_CUDA(cudaMalloc(&y, n * sizeof(float)));
  GT_CUDA(cudaMemset(x, 0, n * sizeof(float)));

  const std::vector<char> c0 = compile(nullptr), c1 = compile("--maxrregcount=32");
  CUmodule m[2];
  CUfunction f[2];
  int regs[2];
  GT_CU(p_cuModuleLoadData(&m[0], c0.data()));
  GT_CU(p_cuModuleLoadData(&m[1], c1.data()));
  for (int i = 0; i < 2; ++i) {
    GT_CU(p_cuModuleGetFunction(&f[i], m[i], "heavy"));
    GT_CU(p_cuFuncGetAttribute(&regs[i], CU_FUNC_ATTRIBUTE_NUM_REGS, f[i]));
  }
  std::printf("heavy: %d registers by default, %d with --maxrregcount=32\n", regs[0], regs[1]);
  GT_REQUIRE(regs[0] > 32 && regs[1] <= 32, "the two compilations do not differ in registers (%d, %d)", regs[0],
             regs[1]);

  int nn = n;
  void* args[] = {&x, &y, &nn};
  GT_OK(perfcheck_session_begin(s, "modules"));
  GT_CU(p_cuLaunchKernel(f[0], n / block, 1, 1, block, 1, 1, 0, nullptr, args, nullptr));
  GT_CU(p_cuLaunchKernel(f[1], n / block, 1, 1, block, 1, 1, 0, nullptr, args, nullptr));
  GT_CU(p_cuLaunchKernel(f[0], n / block, 1, 1, block, 1, 1, 0, nullptr, args, nullptr));
  twin<<<n / block, block>>>(y, n);
  GT_CUDA(cudaGetLastError());
  GT_OK(perfcheck_session_end(s));

  // The <<<>>> kernel again, and through its CUfunction in this context.
  cudaFunction_t tf = nullptr;
  GT_CUDA(cudaGetFuncBySymbol(&tf, reinterpret_cast<const void*>(twin)));
  void* targs[] = {&y, &nn};
  GT_OK(perfcheck_session_begin(s, "twin"));
  twin<<<n / block, block>>>(y, n);
  GT_CUDA(cudaGetLastError());
  GT_CU(p_cuLaunchKernel(reinterpret_cast<CUfunction>(tf), n / block, 1, 1, block, 1, 1, 0, nullptr, targs, nullptr));
  GT_OK(perfcheck_session_end(s));
  GT_CUDA(cudaDeviceSynchronize());

  const perfcheck_report* r = gt_report(s);
  const std::string js = rj_text(r);
  const std::vector<double> fid = rj_numbers(js, "function_id");
  GT_REQUIRE(fid.size() == perfcheck_report_kernel_count(r), "%zu function_id values for %zu kernels", fid.size(),
             perfcheck_report_kernel_count(r));
  int seen[2] = {0, 0}, twins = 0;
  double ids[2] = {0, 0}, twin_id[2] = {0, 0};
  for (size_t i = 0; i < perfcheck_report_kernel_count(r); ++i) {
    perfcheck_kernel_info k;
    std::memset(&k, 0, sizeof k);
    k.size = sizeof k;
    GT_OK(perfcheck_report_kernel(r, i, &k));
    std::printf("%-8s %-6s regs %3g launches %llu function_id %g\n", k.region ? k.region : "-", k.name,
                k.registers_per_thread, static_cast<unsigned long long>(k.launches), fid[i]);
    GT_EXPECT(std::isfinite(fid[i]) && fid[i] >= 1, "%s: function_id %g", k.name, fid[i]);
    if (gt_streq(k.name, "twin")) {
      if (gt_streq(k.region, "twin")) {
        GT_EXPECT(k.launches == 2, "twin: %llu launches in region twin, want 2 (one entry for both handles)",
                  static_cast<unsigned long long>(k.launches));
        twin_id[1] = fid[i];
      } else {
        twin_id[0] = fid[i];
      }
      ++twins;
      continue;
    }
    if (!gt_streq(k.name, "heavy") || !gt_streq(k.region, "modules")) continue;
    const int which = k.registers_per_thread == regs[0] ? 0 : k.registers_per_thread == regs[1] ? 1 : -1;
    GT_EXPECT(which >= 0, "heavy: %g registers, neither module's (%d, %d)", k.registers_per_thread, regs[0], regs[1]);
    if (which < 0) continue;
    ++seen[which];
    ids[which] = fid[i];
    GT_EXPECT(k.launches == (which == 0 ? 2u : 1u), "heavy (%d registers): %llu launches", regs[which],
              static_cast<unsigned long long>(k.launches));
  }
  GT_EXPECT(seen[0] == 1 && seen[1] == 1, "heavy entries: %d with %d registers, %d with %d, want one each", seen[0],
            regs[0], seen[1], regs[1]);
  GT_EXPECT(ids[0] != ids[1], "both heavy entries have function_id %g", ids[0]);
  GT_EXPECT(twins == 2, "%d twin entries, want 2 (one a region)", twins);
  GT_EXPECT(twin_id[0] == twin_id[1], "twin: function_id %g then %g", twin_id[0], twin_id[1]);
  if (gt_failures) gt_print_report(r);

  perfcheck_session_destroy(s);
  GT_CU(p_cuModuleUnload(m[0]));
  GT_CU(p_cuModuleUnload(m[1]));
  GT_CUDA(cudaFree(x));
  GT_CUDA(cudaFree(y));
  return gt_finish("test_modules");
}
