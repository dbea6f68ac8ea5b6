/* Driver loading and probing; see pc_cuda.h. */
#include "pc_cuda.h"

#include "pc_call.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

pc_cuda_api pc_cu;

/* The probe's one result, written inside its pthread_once: status
 * PERFCHECK_OK when the driver is usable, else why not. */
static struct {
  pthread_once_t once;
  pc_err why;
  int version;                  /* cuDriverGetVersion */
} pc_cuda = {PTHREAD_ONCE_INIT, {PERFCHECK_ERROR_NO_DRIVER, ""}, 0};

typedef CUresult (*pc_get_proc_fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);

/* libcuda.so.1 opened (the program's copy first) and cuInit called through
 * dlsym: on the toolkit's stub library every call answers
 * CUDA_ERROR_STUB_LIBRARY, which is how the stub is told apart.  *get_proc
 * gets cuGetProcAddress_v2. */
static perfcheck_status pc_cuda_open_init(pc_get_proc_fn *get_proc, pc_err *err) {
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  if (!h) h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *e = dlerror();
    return pc_err_set(err, PERFCHECK_ERROR_NO_DRIVER, "cannot load libcuda.so.1 (%s): no NVIDIA driver on this machine",
                      e ? e : "not found");
  }
  *get_proc = (pc_get_proc_fn)dlsym(h, "cuGetProcAddress_v2");
  if (!*get_proc)
    return pc_err_set(err, PERFCHECK_ERROR_DRIVER_TOO_OLD,
                      "libcuda.so.1 has no cuGetProcAddress_v2: driver older than CUDA 12");
  CUresult (*init)(unsigned) = (CUresult(*)(unsigned))dlsym(h, "cuInit");
  if (!init) return pc_err_set(err, PERFCHECK_ERROR_NO_DRIVER, "libcuda.so.1 has no cuInit");
  const CUresult r = init(0);
  if (r == CUDA_ERROR_STUB_LIBRARY)
    return pc_err_set(err, PERFCHECK_ERROR_NO_DRIVER, "libcuda.so.1 is the CUDA toolkit's stub, not a driver");
  if (r == CUDA_ERROR_NO_DEVICE) return pc_err_set(err, PERFCHECK_ERROR_NO_DEVICE, "cuInit: no CUDA device is visible");
  if (r == CUDA_ERROR_SYSTEM_DRIVER_MISMATCH || r == CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE)
    return pc_err_set(err, PERFCHECK_ERROR_NO_DRIVER, "cuInit failed with error %d: driver and kernel module mismatch",
                      (int)r);
  if (r != CUDA_SUCCESS) return pc_err_set(err, PERFCHECK_ERROR_NO_DRIVER, "cuInit failed with error %d", (int)r);
  return PERFCHECK_OK;
}

static perfcheck_status pc_cuda_probe(pc_err *err) {
  pc_get_proc_fn get_proc = NULL;
  const perfcheck_status st = pc_cuda_open_init(&get_proc, err);
  if (st != PERFCHECK_OK) return st;
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
  if (missing)
    return pc_err_set(err, PERFCHECK_ERROR_DRIVER_TOO_OLD, "the driver lacks %s for CUDA %d: driver too old", missing,
                      CUDA_VERSION);
  PC_CU(NULL, cuDriverGetVersion, &pc_cuda.version);
  if (pc_cuda.version < 13000)
    return pc_err_set(err, PERFCHECK_ERROR_DRIVER_TOO_OLD,
                      "driver supports CUDA %d.%d; CUPTI 13 needs a CUDA 13 driver (R580+)", pc_cuda.version / 1000,
                      (pc_cuda.version % 1000) / 10);
  int n = 0;
  const CUresult r = PC_CU(NULL, cuDeviceGetCount, &n);
  if (r != CUDA_SUCCESS || n == 0)
    return pc_err_set(err, PERFCHECK_ERROR_NO_DEVICE, "no CUDA device is visible (cuDeviceGetCount: %d devices, error %d)",
                      n, (int)r);
  pc_err_clear(err);
  return PERFCHECK_OK;
}

static void pc_cuda_load_once(void) { (void)pc_cuda_probe(&pc_cuda.why); }

perfcheck_status pc_cuda_load(pc_err *err) {
  pthread_once(&pc_cuda.once, pc_cuda_load_once);
  if (pc_cuda.why.status != PERFCHECK_OK && err) *err = pc_cuda.why;
  return pc_cuda.why.status;
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

