/*
 * pc_funcinfo.c: launch attributes and device facts from the driver, always
 * outside launch callbacks (CUDA calls inside them are unsupported).
 *
 * State owned here: the device facts and context-ordinal caches, guarded by
 * the loader's lock (pc_proc_lock, pc_cupti.h); no driver call is made with it held here.
 *
 * The launch__* values and theoretical occupancy are not CUPTI metrics
 * (docs/cupti.md §2.4): they come from cuFuncGetAttribute, the driver's
 * cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags and the device limits.
 * The driver's blocks per SM is the answer; perfcheck's own model
 * (pc_occupancy_compute) names the limiting resource, and when the two
 * disagree the model's number is kept beside the driver's so that the
 * session reports the mismatch rather than hiding it.
 *
 * CUkernel vs CUfunction (docs/cupti.md §11): for <<<>>> launches the handle in
 * cuLaunchKernel's parameters is a CUkernel.  cuFuncGetAttribute answers
 * CUDA_ERROR_INVALID_HANDLE on it; cuKernelGetFunction, with the launch's
 * context current, gives the CUfunction.
 *
 * cuCtxSynchronize and cuCtxGetDevice are the CUDA 13 _v2 functions, which
 * take the context (pc_cuda.h, PC_CU_FUNCTIONS_V2).
 */
#include "pc_funcinfo.h"
#include "pc_cupti.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "pc_call.h"
#include "pc_ceilings.h"
#include "pc_cuda.h"
#include "check/pc_check.h"

CUresult pc_ctx_synchronize(CUcontext ctx, pc_err *err) {
  if (!pc_cu.cuCtxSynchronize) return CUDA_ERROR_NOT_INITIALIZED;
  return PC_CU(err, cuCtxSynchronize, ctx);
}

static CUresult pc_ctx_get_device(CUcontext ctx, CUdevice *dev) {
  if (!pc_cu.cuCtxGetDevice) return CUDA_ERROR_NOT_INITIALIZED;
  return PC_CU(NULL, cuCtxGetDevice, dev, ctx);
}

/* ---- caches --------------------------------------------------------------------- */

void pc_funcinfo_reset(void) { pc_proc_cache_reset(); }

int pc_funcinfo_device_cached(int ordinal, pc_device *out) { return pc_proc_device_get(ordinal, out); }

static int pc_attr(CUdevice dev, CUdevice_attribute a) {
  int v = -1;
  if (PC_CU(NULL, cuDeviceGetAttribute, &v, a, dev) != CUDA_SUCCESS) return -1;
  return v;
}

perfcheck_status pc_funcinfo_device(int ordinal, pc_device *out, pc_err *err) {
  pc_err_clear(err);
  if (ordinal < 0 || ordinal >= 64)
    return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "device %d: out of range", ordinal);
  if (pc_funcinfo_device_cached(ordinal, out)) return PERFCHECK_OK;
  perfcheck_status st = pc_cuda_load(err);
  if (st != PERFCHECK_OK) return st;
  CUdevice dev;
  pc_err e;
  if (PC_CU(&e, cuDeviceGet, &dev, ordinal) != CUDA_SUCCESS)
    return pc_err_set(err, PERFCHECK_ERROR_NO_DEVICE, "%s (device %d)", e.msg, ordinal);
  pc_device d;
  pc_device_init(&d);
  if (PC_CU(NULL, cuDeviceGetName, d.name, (int)sizeof d.name, dev) != CUDA_SUCCESS) d.name[0] = '\0';
  d.name[sizeof d.name - 1] = '\0';
  d.cc_major = pc_attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  d.cc_minor = pc_attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  d.sm_count = pc_attr(dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  d.warp_size = pc_attr(dev, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  d.max_threads_per_sm = pc_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  d.max_threads_per_block = pc_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  d.max_blocks_per_sm = pc_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
  d.max_regs_per_sm = pc_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
  d.max_regs_per_block = pc_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
  d.max_smem_per_sm = pc_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
  d.max_smem_per_block = pc_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  d.max_smem_per_block_optin = pc_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  d.reserved_smem_per_block = pc_attr(dev, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);
  pc_device_fill_granularities(&d);
  /* Peak ceilings from clocks (the marketing peak; a measured file, when
   * `perfcheck ceilings` cached one for this device, replaces them). */
  const int mem_khz = pc_attr(dev, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
  const int bus_bits = pc_attr(dev, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  const int sm_khz = pc_attr(dev, CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
  pc_device_ceilings_from_clocks(&d, mem_khz > 0 ? mem_khz : PC_NULL, bus_bits > 0 ? bus_bits : PC_NULL,
                                 sm_khz > 0 ? sm_khz : PC_NULL);
  pc_ceilings_load_cached(ordinal, &d); /* no file: the clock ceilings stay */

  pc_proc_device_put(ordinal, &d);
  *out = d;
  return PERFCHECK_OK;
}

int pc_funcinfo_pci_bus_id(int ordinal, char *out, size_t len) { /* one-channel-ok: the bus id is its result */
  CUdevice dev;
  if (!pc_cu.cuDeviceGet || PC_CU(NULL, cuDeviceGet, &dev, ordinal) != CUDA_SUCCESS) return -1;
  const int dom = pc_attr(dev, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID), bus = pc_attr(dev, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID),
            slot = pc_attr(dev, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID);
  if (dom < 0 || bus < 0 || slot < 0) return -1;
  return snprintf(out, len, "%04x:%02x:%02x.0", (unsigned)dom, (unsigned)bus, (unsigned)slot) < (int)len ? 0 : -1;
}

int pc_funcinfo_ctx_ordinal_cached(CUcontext ctx) { return pc_proc_ctx_ordinal_get(ctx); }

int pc_funcinfo_ctx_ordinal(CUcontext ctx) {
  if (!ctx || !pc_cu.cuCtxPushCurrent) return -1;
  int ord = pc_funcinfo_ctx_ordinal_cached(ctx);
  if (ord >= 0) return ord;
  if (PC_CU(NULL, cuCtxPushCurrent, ctx) != CUDA_SUCCESS) return -1;
  CUdevice dev = -1;
  if (pc_ctx_get_device(ctx, &dev) != CUDA_SUCCESS) dev = -1;
  CUcontext popped;
  (void)PC_CU(NULL, cuCtxPopCurrent, &popped);
  if (dev < 0) return -1;
  pc_proc_ctx_ordinal_put(ctx, (int)dev);
  return (int)dev;
}

/* ---- attributes ---------------------------------------------------------------------- */

perfcheck_status pc_funcinfo_attributes(CUcontext ctx, void *f, int push, const unsigned grid[3],
                                        const unsigned block[3], unsigned dynamic_smem, const pc_device *d,
                                        pc_attributes *a, int *is_kernel, void **canon, pc_err *why) {
  pc_attributes_init(a);
  if (is_kernel) *is_kernel = 0;
  if (canon) *canon = NULL;
  pc_err_clear(why);
  if (!f) return pc_err_set(why, PERFCHECK_ERROR_NOT_FOUND, "no function handle");
  if (!pc_cu.cuFuncGetAttribute || !pc_cu.cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags)
    return pc_err_set(why, PERFCHECK_ERROR_UNSUPPORTED, "the driver is not loaded");
  int pushed = 0;
  if (push && ctx) {
    if (PC_CU(why, cuCtxPushCurrent, ctx) != CUDA_SUCCESS) {
      why->status = PERFCHECK_ERROR_UNSUPPORTED;
      return PERFCHECK_ERROR_UNSUPPORTED;
    }
    pushed = 1;
  }
  perfcheck_status st = PERFCHECK_OK;
  CUfunction fn = (CUfunction)f;
  int regs = 0, stat = 0, local = 0, maxt = 0, nb = -1;
  pc_err e;
  CUresult r = PC_CU(&e, cuFuncGetAttribute, &regs, CU_FUNC_ATTRIBUTE_NUM_REGS, fn);
  if (r == CUDA_ERROR_INVALID_HANDLE) {
    /* A CUkernel (<<<>>> launches): its CUfunction in the current context. */
    if (is_kernel) *is_kernel = 1;
    if (!pushed) {
      st = pc_err_set(why, PERFCHECK_ERROR_NOT_FOUND, "%s (a CUkernel; needs its context)", e.msg);
      goto out;
    }
    CUfunction kf = NULL;
    r = PC_CU(why, cuKernelGetFunction, &kf, (CUkernel)f);
    if (r != CUDA_SUCCESS || !kf) {
      st = PERFCHECK_ERROR_UNSUPPORTED;
      goto out;
    }
    fn = kf;
    r = PC_CU(&e, cuFuncGetAttribute, &regs, CU_FUNC_ATTRIBUTE_NUM_REGS, fn);
  }
  if (r != CUDA_SUCCESS) {
    st = pc_err_set(why, PERFCHECK_ERROR_UNSUPPORTED, "%s (NUM_REGS)", e.msg);
    goto out;
  }
  if (PC_CU(why, cuFuncGetAttribute, &stat, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn) != CUDA_SUCCESS ||
      PC_CU(why, cuFuncGetAttribute, &local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fn) != CUDA_SUCCESS ||
      PC_CU(why, cuFuncGetAttribute, &maxt, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fn) != CUDA_SUCCESS) {
    st = PERFCHECK_ERROR_UNSUPPORTED;
    goto out;
  }
  {
    const unsigned long long threads = (unsigned long long)block[0] * block[1] * block[2];
    int n = 0;
    /* Attributes without the driver's occupancy: the model answers, and
     * the reason is kept in *why (the call still succeeds). */
    if (PC_CU(why, cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, &n, fn,
              (int)(threads > INT_MAX ? INT_MAX : threads), dynamic_smem, CU_OCCUPANCY_DEFAULT) == CUDA_SUCCESS)
      nb = n;
  }
  pc_attributes_compute(d, regs, stat, local, maxt, nb, grid, block, dynamic_smem, a);
  if (canon) *canon = (void *)fn;
out: /* the one cleanup path */
  if (pushed) {
    CUcontext popped;
    (void)PC_CU(NULL, cuCtxPopCurrent, &popped);
  }
  if (st != PERFCHECK_OK && why) why->status = st;
  return st;
}

int pc_funcinfo_name(void *f, char *out, size_t len) { /* one-channel-ok: the name is its result */
  if (!f || !out || !len || !pc_cu.cuFuncGetName || !pc_cu.cuKernelGetName) return -1;
  const char *name = NULL;
  if (PC_CU(NULL, cuFuncGetName, (const char **)&name, (CUfunction)f) != CUDA_SUCCESS || !name) {
    name = NULL;
    if (PC_CU(NULL, cuKernelGetName, (const char **)&name, (CUkernel)f) != CUDA_SUCCESS || !name) return -1;
  }
  snprintf(out, len, "%s", name);
  return 0;
}
