/*
 * pc_funcinfo.c: launch attributes and device facts from the driver, always
 * outside launch callbacks (CUDA calls inside them are unsupported).
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

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "pc_cuda.h"

CUresult pc_ctx_synchronize(CUcontext ctx) {
  if (!pc_cu.cuCtxSynchronize) return CUDA_ERROR_NOT_INITIALIZED;
  return pc_cu.cuCtxSynchronize(ctx);
}

CUresult pc_ctx_get_device(CUcontext ctx, CUdevice *dev) {
  if (!pc_cu.cuCtxGetDevice) return CUDA_ERROR_NOT_INITIALIZED;
  return pc_cu.cuCtxGetDevice(dev, ctx);
}

/* ---- caches --------------------------------------------------------------------- */

#define PC_MAX_DEVICES 64
#define PC_MAX_CTX 64

static pthread_mutex_t pc_fi_mu = PTHREAD_MUTEX_INITIALIZER;
static pc_device pc_fi_dev[PC_MAX_DEVICES];
static int pc_fi_dev_ok[PC_MAX_DEVICES];
static struct {
  CUcontext ctx;
  int ordinal;
} pc_fi_ctx[PC_MAX_CTX];
static size_t pc_fi_nctx;

void pc_funcinfo_reset(void) {
  pthread_mutex_lock(&pc_fi_mu);
  memset(pc_fi_dev_ok, 0, sizeof pc_fi_dev_ok);
  pc_fi_nctx = 0;
  pthread_mutex_unlock(&pc_fi_mu);
}

int pc_funcinfo_device_cached(int ordinal, pc_device *out) {
  int ok = 0;
  if (ordinal < 0 || ordinal >= PC_MAX_DEVICES) return 0;
  pthread_mutex_lock(&pc_fi_mu);
  if (pc_fi_dev_ok[ordinal]) {
    *out = pc_fi_dev[ordinal];
    ok = 1;
  }
  pthread_mutex_unlock(&pc_fi_mu);
  return ok;
}

static int pc_attr(CUdevice dev, CUdevice_attribute a) {
  int v = -1;
  if (pc_cu.cuDeviceGetAttribute(&v, a, dev) != CUDA_SUCCESS) return -1;
  return v;
}

perfcheck_status pc_funcinfo_device(int ordinal, pc_device *out, char *msg, size_t msglen) {
  if (msg && msglen) msg[0] = '\0';
  if (ordinal < 0 || ordinal >= PC_MAX_DEVICES) {
    if (msg) snprintf(msg, msglen, "device %d: out of range", ordinal);
    return PERFCHECK_ERROR_INVALID_ARGUMENT;
  }
  if (pc_funcinfo_device_cached(ordinal, out)) return PERFCHECK_OK;
  char m[256];
  perfcheck_status st = pc_cuda_load(m, sizeof m);
  if (st != PERFCHECK_OK) {
    if (msg) snprintf(msg, msglen, "%s", m);
    return st;
  }
  CUdevice dev;
  CUresult r = pc_cu.cuDeviceGet(&dev, ordinal);
  if (r != CUDA_SUCCESS) {
    char e[128];
    if (msg) snprintf(msg, msglen, "cuDeviceGet(%d): %s", ordinal, pc_cuda_error_text(r, e, sizeof e));
    return PERFCHECK_ERROR_NO_DEVICE;
  }
  pc_device d;
  pc_device_init(&d);
  if (pc_cu.cuDeviceGetName(d.name, (int)sizeof d.name, dev) != CUDA_SUCCESS) d.name[0] = '\0';
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

  pthread_mutex_lock(&pc_fi_mu);
  pc_fi_dev[ordinal] = d;
  pc_fi_dev_ok[ordinal] = 1;
  pthread_mutex_unlock(&pc_fi_mu);
  *out = d;
  return PERFCHECK_OK;
}

int pc_funcinfo_ctx_ordinal_cached(CUcontext ctx) {
  int ord = -1;
  pthread_mutex_lock(&pc_fi_mu);
  for (size_t i = 0; i < pc_fi_nctx; i++)
    if (pc_fi_ctx[i].ctx == ctx) ord = pc_fi_ctx[i].ordinal;
  pthread_mutex_unlock(&pc_fi_mu);
  return ord;
}

int pc_funcinfo_ctx_ordinal(CUcontext ctx) {
  if (!ctx || !pc_cu.cuCtxPushCurrent) return -1;
  int ord = pc_funcinfo_ctx_ordinal_cached(ctx);
  if (ord >= 0) return ord;
  if (pc_cu.cuCtxPushCurrent(ctx) != CUDA_SUCCESS) return -1;
  CUdevice dev = -1;
  if (pc_ctx_get_device(ctx, &dev) != CUDA_SUCCESS) dev = -1;
  CUcontext popped;
  pc_cu.cuCtxPopCurrent(&popped);
  if (dev < 0) return -1;
  pthread_mutex_lock(&pc_fi_mu);
  if (pc_fi_nctx < PC_MAX_CTX) {
    pc_fi_ctx[pc_fi_nctx].ctx = ctx;
    pc_fi_ctx[pc_fi_nctx].ordinal = (int)dev;
    pc_fi_nctx++;
  }
  pthread_mutex_unlock(&pc_fi_mu);
  return (int)dev;
}

/* ---- attributes ---------------------------------------------------------------------- */

static double pc_limit(int v) { return v == INT_MAX ? PC_NULL : (double)v; }

/* The common part: the model, the driver's blocks per SM (< 0: none, the
 * model's answer stands), and what follows from them. */
static void pc_fill(const pc_device *d, int regs, int static_smem, int local, int max_threads, int driver_blocks,
                    const unsigned grid[3], const unsigned block[3], unsigned dyn, pc_attributes *a) {
  pc_attributes_init(a);
  a->registers_per_thread = regs;
  a->static_smem = static_smem;
  a->dynamic_smem = dyn;
  a->local_bytes_per_thread = local;
  a->max_threads_per_block = max_threads > 0 ? max_threads : PC_NULL;
  const double threads = (double)block[0] * block[1] * block[2];
  pc_occupancy_input in = {(int)(threads > INT_MAX ? INT_MAX : threads), regs, static_smem, (int)dyn};
  pc_occupancy m;
  const int model_ok = d && pc_occupancy_compute(d, &in, &m) == 0;
  if (model_ok) {
    /* A resource the kernel does not use limits nothing (INT_MAX): null. */
    a->limit_warps = pc_limit(m.limit_warps);
    a->limit_blocks = pc_limit(m.limit_blocks);
    a->limit_registers = pc_limit(m.limit_registers);
    a->limit_shared_mem = pc_limit(m.limit_shared_mem);
    a->binding = m.binding;
  }
  int blocks = driver_blocks >= 0 ? driver_blocks : (model_ok ? m.blocks_per_sm : -1);
  if (driver_blocks >= 0 && model_ok && m.blocks_per_sm != driver_blocks) a->model_blocks_per_sm = m.blocks_per_sm;
  if (blocks < 0) return;
  a->blocks_per_sm = blocks;
  const int warp = d && d->warp_size > 0 ? d->warp_size : 32;
  const double warps_per_block = (threads + warp - 1) / warp;
  const double wpb = (double)(long long)warps_per_block; /* ceil, as an integer */
  a->warps_per_sm = blocks * wpb;
  if (d && d->max_threads_per_sm > 0) a->theoretical_occupancy_pct = 100.0 * a->warps_per_sm / (d->max_threads_per_sm / warp);
  const double grid_blocks = (double)grid[0] * grid[1] * grid[2];
  if (blocks > 0 && d && d->sm_count > 0) a->waves_per_sm = grid_blocks / ((double)blocks * d->sm_count);
}

void pc_funcinfo_model_attributes(const pc_device *d, unsigned registers, unsigned static_smem,
                                  unsigned local_per_thread, const unsigned grid[3], const unsigned block[3],
                                  unsigned dynamic_smem, pc_attributes *a) {
  pc_fill(d, (int)registers, (int)static_smem, (int)local_per_thread, -1, -1, grid, block, dynamic_smem, a);
}

static void pc_why(char *why, size_t len, const char *call, CUresult r) {
  char e[128];
  if (why && len) snprintf(why, len, "%s: %s", call, pc_cuda_error_text(r, e, sizeof e));
}

perfcheck_status pc_funcinfo_attributes(CUcontext ctx, void *f, int push, const unsigned grid[3],
                                        const unsigned block[3], unsigned dynamic_smem, const pc_device *d,
                                        pc_attributes *a, int *is_kernel, char *why, size_t whylen) {
  pc_attributes_init(a);
  if (is_kernel) *is_kernel = 0;
  if (why && whylen) why[0] = '\0';
  if (!f) {
    if (why) snprintf(why, whylen, "no function handle");
    return PERFCHECK_ERROR_NOT_FOUND;
  }
  if (!pc_cu.cuFuncGetAttribute || !pc_cu.cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags) {
    if (why) snprintf(why, whylen, "the driver is not loaded");
    return PERFCHECK_ERROR_UNSUPPORTED;
  }
  int pushed = 0;
  if (push && ctx) {
    CUresult r = pc_cu.cuCtxPushCurrent(ctx);
    if (r != CUDA_SUCCESS) {
      pc_why(why, whylen, "cuCtxPushCurrent", r);
      return PERFCHECK_ERROR_UNSUPPORTED;
    }
    pushed = 1;
  }
  perfcheck_status st = PERFCHECK_OK;
  CUfunction fn = (CUfunction)f;
  int regs = 0, stat = 0, local = 0, maxt = 0, nb = -1;
  CUresult r = pc_cu.cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, fn);
  if (r == CUDA_ERROR_INVALID_HANDLE) {
    /* A CUkernel (<<<>>> launches): its CUfunction in the current context. */
    if (is_kernel) *is_kernel = 1;
    if (!pushed) {
      pc_why(why, whylen, "cuFuncGetAttribute (a CUkernel; needs its context)", r);
      st = PERFCHECK_ERROR_NOT_FOUND;
      goto out;
    }
    CUfunction kf = NULL;
    r = pc_cu.cuKernelGetFunction(&kf, (CUkernel)f);
    if (r != CUDA_SUCCESS || !kf) {
      pc_why(why, whylen, "cuKernelGetFunction", r);
      st = PERFCHECK_ERROR_UNSUPPORTED;
      goto out;
    }
    fn = kf;
    r = pc_cu.cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, fn);
  }
  if (r != CUDA_SUCCESS) {
    pc_why(why, whylen, "cuFuncGetAttribute(NUM_REGS)", r);
    st = PERFCHECK_ERROR_UNSUPPORTED;
    goto out;
  }
  if ((r = pc_cu.cuFuncGetAttribute(&stat, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn)) != CUDA_SUCCESS ||
      (r = pc_cu.cuFuncGetAttribute(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fn)) != CUDA_SUCCESS ||
      (r = pc_cu.cuFuncGetAttribute(&maxt, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fn)) != CUDA_SUCCESS) {
    pc_why(why, whylen, "cuFuncGetAttribute", r);
    st = PERFCHECK_ERROR_UNSUPPORTED;
    goto out;
  }
  {
    const unsigned long long threads = (unsigned long long)block[0] * block[1] * block[2];
    int n = 0;
    r = pc_cu.cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, fn, (int)(threads > INT_MAX ? INT_MAX : threads),
                                                                   dynamic_smem, CU_OCCUPANCY_DEFAULT);
    if (r == CUDA_SUCCESS) {
      nb = n;
    } else {
      /* Attributes without the driver's occupancy: the model answers, and
       * the reason is kept. */
      pc_why(why, whylen, "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", r);
    }
  }
  pc_fill(d, regs, stat, local, maxt, nb, grid, block, dynamic_smem, a);
out:
  if (pushed) {
    CUcontext popped;
    pc_cu.cuCtxPopCurrent(&popped);
  }
  return st;
}

int pc_funcinfo_name(void *f, char *out, size_t len) {
  if (!f || !out || !len || !pc_cu.cuFuncGetName || !pc_cu.cuKernelGetName) return -1;
  const char *name = NULL;
  if (pc_cu.cuFuncGetName((const char **)&name, (CUfunction)f) != CUDA_SUCCESS || !name) {
    name = NULL;
    if (pc_cu.cuKernelGetName((const char **)&name, (CUkernel)f) != CUDA_SUCCESS || !name) return -1;
  }
  snprintf(out, len, "%s", name);
  return 0;
}
