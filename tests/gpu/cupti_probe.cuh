// cupti_probe.cuh: what the CUPTI-only probes share (session_probe.cu,
// setup_probe.cu): the params and error macros, the one kernel they profile
// (it reads 16 MiB: 524288 L1TEX load sectors), the one-pass metric list, a
// host clock, and loading the libnvperf_host.so next to libcupti.  No
// perfcheck in them: they ask CUPTI itself.
#ifndef CUPTI_PROBE_CUH
#define CUPTI_PROBE_CUH

#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <dlfcn.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

// A CUPTI params struct named p, zeroed, its size set.
#define P(type) \
  type p;       \
  std::memset(&p, 0, sizeof p); \
  p.structSize = type##_STRUCT_SIZE
#define CK(call)                                                                  \
  do {                                                                            \
    CUptiResult r_ = (call);                                                      \
    if (r_ != CUPTI_SUCCESS) {                                                    \
      const char* s_ = "?";                                                       \
      cuptiGetResultString(r_, &s_);                                              \
      std::printf("FAIL %s:%d %s: %d %s\n", __FILE__, __LINE__, #call, (int)r_, s_); \
      std::exit(1);                                                               \
    }                                                                             \
  } while (0)
#define CU(call)                                                                        \
  do {                                                                                  \
    cudaError_t e_ = (call);                                                            \
    if (e_ != cudaSuccess) {                                                            \
      std::printf("FAIL %s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)

__global__ void readAll(const float4* x, size_t n4, float* out) {
  float acc = 0.f;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x) {
    const float4 v = x[i];
    acc += v.x + v.y + v.z + v.w;
  }
  if (acc == -1.f) out[blockIdx.x] = acc;  // never: keeps the loads
}

// DRAM, L2 and L1TEX counters and the duration: one pass on GH100.
static const char* kNames[] = {"dram__bytes_read.sum", "lts__t_sectors.sum",
                               "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "gpu__time_duration.sum"};
static const size_t kN = sizeof kNames / sizeof kNames[0];

static double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// libcupti opens libnvperf_host.so by name: load the copy next to it.
static void load_nvperf_host() {
  Dl_info di;
  if (dladdr((void*)&cuptiProfilerInitialize, &di) && di.dli_fname) {
    std::string dir(di.dli_fname);
    dir = dir.substr(0, dir.rfind('/'));
    if (!dlopen((dir + "/libnvperf_host.so").c_str(), RTLD_NOW | RTLD_GLOBAL))
      std::printf("note: %s/libnvperf_host.so: %s\n", dir.c_str(), dlerror());
  }
}

#endif  // CUPTI_PROBE_CUH
