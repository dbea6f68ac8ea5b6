/*
 * pc_cuda.h: the driver API, reached without linking libcuda.so.1.
 *
 * libperfcheck must load on a machine with no NVIDIA driver (CI has none), so
 * it never links libcuda: pc_cuda_load() dlopens libcuda.so.1 and resolves
 * every entry point through cuGetProcAddress at the CUDA version of the
 * headers we compiled against.  It also probes the driver (cuInit, devices)
 * before anything calls CUPTI: CUPTI 13.0 returns 999 or crashes without a
 * usable driver (docs/cupti.md §5.4).
 */
#ifndef PC_CUDA_H
#define PC_CUDA_H

#include <cuda.h>
#include <stddef.h>

#include "model/pc_core.h"

/* One pointer per driver function we use; the member names are the cuda.h
 * names (macro-expanded to their versioned symbols, so the prototypes match
 * the headers). */
#define PC_CU_FUNCTIONS(X)                        \
  X(cuInit)                                       \
  X(cuDriverGetVersion)                           \
  X(cuGetErrorName)                               \
  X(cuGetErrorString)                             \
  X(cuDeviceGetCount)                             \
  X(cuDeviceGet)                                  \
  X(cuDeviceGetName)                              \
  X(cuDeviceGetAttribute)                         \
  X(cuDeviceGetUuid)                              \
  X(cuDevicePrimaryCtxRetain)                     \
  X(cuDevicePrimaryCtxRelease)                    \
  X(cuCtxGetCurrent)                              \
  X(cuCtxSetCurrent)                              \
  X(cuCtxPushCurrent)                             \
  X(cuCtxPopCurrent)                              \
  X(cuFuncGetAttribute)                           \
  X(cuFuncGetName)                                \
  X(cuKernelGetFunction)                          \
  X(cuKernelGetName)                              \
  X(cuKernelGetAttribute)                         \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags) \
  X(cuModuleLoadData)                             \
  X(cuModuleGetFunction)                          \
  X(cuModuleUnload)                               \
  X(cuLaunchKernel)                               \
  X(cuMemAlloc)                                   \
  X(cuMemFree)                                    \
  X(cuMemsetD8)                                   \
  X(cuEventCreate)                                \
  X(cuEventRecord)                                \
  X(cuEventSynchronize)                           \
  X(cuEventElapsedTime)                           \
  X(cuEventDestroy)

/* Entry points whose CUDA 13 ABI is not the prototype cuda.h gives the plain
 * name: asked for at CUDA_VERSION 13000, cuGetProcAddress hands out the _v2
 * functions (cudaTypedefs.h: PFN_cuCtxSynchronize_v13000(CUcontext),
 * PFN_cuCtxGetDevice_v13000(CUdevice *, CUcontext)), so the member takes the
 * _v2 prototype: X(name, prototype). */
#define PC_CU_FUNCTIONS_V2(X)                     \
  X(cuCtxGetDevice, cuCtxGetDevice_v2)            \
  X(cuCtxSynchronize, cuCtxSynchronize_v2)

typedef struct pc_cuda_api {
#define PC_CU_MEMBER_(name) __typeof__(&name) name;
  PC_CU_FUNCTIONS(PC_CU_MEMBER_)
#undef PC_CU_MEMBER_
#define PC_CU_MEMBER_V2_(name, proto) __typeof__(&proto) name;
  PC_CU_FUNCTIONS_V2(PC_CU_MEMBER_V2_)
#undef PC_CU_MEMBER_V2_
} pc_cuda_api;

/* The resolved functions; valid after pc_cuda_load() returned PERFCHECK_OK. */
extern pc_cuda_api pc_cu;

/* Loads libcuda.so.1 (an already-loaded copy first), resolves pc_cu, calls
 * cuInit(0) and counts devices.  Idempotent and thread-safe; the first
 * result is kept.  Returns PERFCHECK_OK, PERFCHECK_ERROR_NO_DRIVER (absent,
 * the toolkit's stub, cuInit failed), PERFCHECK_ERROR_NO_DEVICE,
 * PERFCHECK_ERROR_DRIVER_TOO_OLD; *err gets one line saying why. */
perfcheck_status pc_cuda_load(pc_err *err);

/* Driver calls go through PC_CU (pc_call.h), which writes a failure's
 * error name and text into the caller's pc_err. */

#endif /* PC_CUDA_H */
