/* Driver loading and probing; see pc_cuda.h. */
#include "pc_cuda.h"

#include "pc_call.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

pc_cuda_api pc_cu;

static pthread_once_t pc_cuda_once = PTHREAD_ONCE_INIT;
static perfcheck_status pc_cuda_status = PERFCHECK_ERROR_NO_DRIVER;
static char pc_cuda_msg[256];
static int pc_cuda_version;

typedef CUresult (*pc_get_proc_fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);

static void pc_cuda_load_once(void) {
  /* Reuse the copy the program already loaded, if any. */
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  if (!h) h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *e = dlerror();
    snprintf(pc_cuda_msg, sizeof pc_cuda_msg, "cannot load libcuda.so.1 (%s): no NVIDIA driver on this machine",
             e ? e : "not found");
    pc_cuda_status = PERFCHECK_ERROR_NO_DRIVER;
    return;
  }
  pc_get_proc_fn get_proc = (pc_get_proc_fn)dlsym(h, "cuGetProcAddress_v2");
  if (!get_proc) {
    snprintf(pc_cuda_msg, sizeof pc_cuda_msg, "libcuda.so.1 has no cuGetProcAddress_v2: driver older than CUDA 12");
    pc_cuda_status = PERFCHECK_ERROR_DRIVER_TOO_OLD;
    return;
  }
  /* cuInit first, through dlsym: on the toolkit's stub library every call
   * answers CUDA_ERROR_STUB_LIBRARY, which is how we tell the stub apart. */
  CUresult (*init)(unsigned) = (CUresult(*)(unsigned))dlsym(h, "cuInit");
  if (!init) {
    snprintf(pc_cuda_msg, sizeof pc_cuda_msg, "libcuda.so.1 has no cuInit");
    pc_cuda_status = PERFCHECK_ERROR_NO_DRIVER;
    return;
  }
  CUresult r = init(0);
  if (r == CUDA_ERROR_STUB_LIBRARY) {
    snprintf(pc_cuda_msg, sizeof pc_cuda_msg, "libcuda.so.1 is the CUDA toolkit's stub, not a driver");
    pc_cuda_status = PERFCHECK_ERROR_NO_DRIVER;
    return;
  }
  if (r == CUDA_ERROR_NO_DEVICE) {
    snprintf(pc_cuda_msg, sizeof pc_cuda_msg, "cuInit: no CUDA device is visible");
    pc_cuda_status = PERFCHECK_ERROR_NO_DEVICE;
    return;
  }
  if (r == CUDA_ERROR_SYSTEM_DRIVER_MISMATCH || r == CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE) {
    snprintf(pc_cuda_msg, sizeof pc_cuda_msg, "cuInit failed with error %d: driver and kernel module mismatch", (int)r);
    pc_cuda_status = PERFCHECK_ERROR_NO_DRIVER;
    return;
  }
  if (r != CUDA_SUCCESS) {
    snprintf(pc_cuda_msg, sizeof pc_cuda_msg, "cuInit failed with error %d", (int)r);
    pc_cuda_status = PERFCHECK_ERROR_NO_DRIVER;
    return;
  }
  const char *missing = NULL;
  CUdriverProcAddressQueryResult q;
#define PC_CU_RESOLVE_(name)                                                              \
  if (get_proc(#name, (void **)&pc_cu.name, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &q) != \
          CUDA_SUCCESS ||                                                                 \
      !pc_cu.name) {                                                                      \
    pc_cu.name = NULL;                                                                    \
    if (!missing) missing = #name;                                                        \
  }
  PC_CU_FUNCTIONS(PC_CU_RESOLVE_)
#define PC_CU_RESOLVE_V2_(name, proto) PC_CU_RESOLVE_(name)
  PC_CU_FUNCTIONS_V2(PC_CU_RESOLVE_V2_)
#undef PC_CU_RESOLVE_V2_
#undef PC_CU_RESOLVE_
  if (missing) {
    snprintf(pc_cuda_msg, sizeof pc_cuda_msg, "the driver lacks %s for CUDA %d: driver too old", missing,
             CUDA_VERSION);
    pc_cuda_status = PERFCHECK_ERROR_DRIVER_TOO_OLD;
    return;
  }
  PC_CU(NULL, cuDriverGetVersion, &pc_cuda_version);
  if (pc_cuda_version < 13000) {
    snprintf(pc_cuda_msg, sizeof pc_cuda_msg, "driver supports CUDA %d.%d; CUPTI 13 needs a CUDA 13 driver (R580+)",
             pc_cuda_version / 1000, (pc_cuda_version % 1000) / 10);
    pc_cuda_status = PERFCHECK_ERROR_DRIVER_TOO_OLD;
    return;
  }
  int n = 0;
  r = PC_CU(NULL, cuDeviceGetCount, &n);
  if (r != CUDA_SUCCESS || n == 0) {
    snprintf(pc_cuda_msg, sizeof pc_cuda_msg, "no CUDA device is visible (cuDeviceGetCount: %d devices, error %d)", n,
             (int)r);
    pc_cuda_status = PERFCHECK_ERROR_NO_DEVICE;
    return;
  }
  pc_cuda_status = PERFCHECK_OK;
}

perfcheck_status pc_cuda_load(pc_err *err) {
  pthread_once(&pc_cuda_once, pc_cuda_load_once);
  if (pc_cuda_status != PERFCHECK_OK) pc_err_set(err, pc_cuda_status, "%s", pc_cuda_msg);
  return pc_cuda_status;
}

/* "CUDA_ERROR_INVALID_HANDLE (invalid resource handle)" into buf. */
static const char *pc_cuda_error_text(CUresult r, char *buf, size_t len) {
  const char *name = NULL, *str = NULL;
  if (pc_cu.cuGetErrorName) pc_cu.cuGetErrorName(r, &name);
  if (pc_cu.cuGetErrorString) pc_cu.cuGetErrorString(r, &str);
  snprintf(buf, len, "%s (%s)", name ? name : "CUDA error", str ? str : "no description");
  if (!name) snprintf(buf, len, "CUDA error %d", (int)r);
  return buf;
}

CUresult pc_cu_checked(pc_err *err, const char *fn, CUresult r) {
  if (r == CUDA_SUCCESS) return r;
  char e[200];
  pc_err_set(err, PERFCHECK_ERROR_INTERNAL, "%s: %s", fn, pc_cuda_error_text(r, e, sizeof e));
  return r;
}

