/*
 * pc_ceilings.c: measured ceilings (perfcheck_measure_ceilings) and their
 * per-device cache.
 *
 * Step 2 compares a kernel with the device's ceilings.  The clock-based peaks
 * (pc_device_ceilings_from_clocks) are what the hardware could do on paper;
 * what a real kernel can reach is lower (DRAM refresh, protocol overhead,
 * boost clocks), so `perfcheck ceilings` measures both once and caches them:
 *   DRAM: a device-to-device copy of >= 1 GiB, 16-byte vector loads and
 *         stores in a grid-stride loop; bytes read + written / time.
 *   FP32: 16 independent FMA chains per thread, 64 FMAs per loop trip, one
 *         full wave of resident blocks; 2 FLOP per FMA.
 * Each is timed with driver events: warm-up runs first, then the median of
 * PC_CEIL_RUNS runs.
 *
 * The kernels are PTX embedded here and JIT-compiled by cuModuleLoadData, so
 * the library needs no CUDA C++ and runs on any architecture the driver
 * knows (tests/nogpu checks the PTX with `ptxas -arch=sm_90`).  Our own
 * launches are hidden from the launch capture (pc_capture_internal).
 *
 * Cache: pc_ceilings_cache.c (the reader, below pc_funcinfo.c, which loads
 * it into every pc_device it builds); this file writes it.  The benchmark
 * sits above the capture (it hides its own launches from it) and above
 * pc_funcinfo (device facts), so the three files form no loop.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pc_call.h"
#include "pc_capture.h"
#include "pc_ceilings.h"
#include "pc_cuda.h"
#include "pc_funcinfo.h"
#include "base/pc_util.h"

#define PC_CEIL_RUNS 7
#define PC_CEIL_WARMUP 2
#define PC_CEIL_COPY_BYTES ((size_t)1 << 30)
#define PC_CEIL_FMA_TARGET_S 0.02 /* each FMA run lasts about this long */

/* ---- the kernels ------------------------------------------------------------------- */

#define PC_FMA1(i) "\tfma.rn.f32 \t%f" #i ", %f" #i ", %f16, %f17;\n"
#define PC_FMA16                                                                                          \
  PC_FMA1(0) PC_FMA1(1) PC_FMA1(2) PC_FMA1(3) PC_FMA1(4) PC_FMA1(5) PC_FMA1(6) PC_FMA1(7) PC_FMA1(8) \
  PC_FMA1(9) PC_FMA1(10) PC_FMA1(11) PC_FMA1(12) PC_FMA1(13) PC_FMA1(14) PC_FMA1(15)
#define PC_FMA_PER_TRIP 64 /* four rounds of the 16 chains */

static const char pc_ptx[] =
    ".version 7.0\n"
    ".target sm_52\n"
    ".address_size 64\n"
    "\n"
    /* dst[i] = src[i] over n16 16-byte elements, grid-stride, four loads in
     * flight per thread before their stores, then the tail one by one. */
    ".visible .entry pc_copy(\n"
    "\t.param .u64 pc_copy_dst,\n"
    "\t.param .u64 pc_copy_src,\n"
    "\t.param .u64 pc_copy_n16\n"
    ")\n"
    "{\n"
    "\t.reg .pred \t%p<4>;\n"
    "\t.reg .b32 \t%r<24>;\n"
    "\t.reg .b64 \t%rd<24>;\n"
    "\tld.param.u64 \t%rd1, [pc_copy_dst];\n"
    "\tld.param.u64 \t%rd2, [pc_copy_src];\n"
    "\tld.param.u64 \t%rd3, [pc_copy_n16];\n"
    "\tcvta.to.global.u64 \t%rd1, %rd1;\n"
    "\tcvta.to.global.u64 \t%rd2, %rd2;\n"
    "\tmov.u32 \t%r1, %ctaid.x;\n"
    "\tmov.u32 \t%r2, %ntid.x;\n"
    "\tmov.u32 \t%r3, %tid.x;\n"
    "\tmov.u32 \t%r4, %nctaid.x;\n"
    "\tmul.wide.u32 \t%rd4, %r1, %r2;\n"
    "\tcvt.u64.u32 \t%rd5, %r3;\n"
    "\tadd.s64 \t%rd4, %rd4, %rd5;\n"   /* i */
    "\tmul.wide.u32 \t%rd6, %r4, %r2;\n"  /* stride (elements) */
    "\tshl.b64 \t%rd10, %rd6, 4;\n"      /* stride in bytes */
    "\tmul.lo.s64 \t%rd11, %rd6, 3;\n"   /* 3 strides */
    "\tshl.b64 \t%rd12, %rd6, 2;\n"      /* 4 strides */
    "PC_COPY_LOOP4:\n"
    "\tadd.s64 \t%rd13, %rd4, %rd11;\n"
    "\tsetp.ge.u64 \t%p3, %rd13, %rd3;\n"
    "\t@%p3 bra \tPC_COPY_TAIL;\n"
    "\tshl.b64 \t%rd7, %rd4, 4;\n"
    "\tadd.s64 \t%rd14, %rd2, %rd7;\n"
    "\tadd.s64 \t%rd15, %rd14, %rd10;\n"
    "\tadd.s64 \t%rd16, %rd15, %rd10;\n"
    "\tadd.s64 \t%rd17, %rd16, %rd10;\n"
    "\tld.global.v4.u32 \t{%r5, %r6, %r7, %r8}, [%rd14];\n"
    "\tld.global.v4.u32 \t{%r9, %r10, %r11, %r12}, [%rd15];\n"
    "\tld.global.v4.u32 \t{%r13, %r14, %r15, %r16}, [%rd16];\n"
    "\tld.global.v4.u32 \t{%r17, %r18, %r19, %r20}, [%rd17];\n"
    "\tadd.s64 \t%rd18, %rd1, %rd7;\n"
    "\tadd.s64 \t%rd19, %rd18, %rd10;\n"
    "\tadd.s64 \t%rd20, %rd19, %rd10;\n"
    "\tadd.s64 \t%rd21, %rd20, %rd10;\n"
    "\tst.global.v4.u32 \t[%rd18], {%r5, %r6, %r7, %r8};\n"
    "\tst.global.v4.u32 \t[%rd19], {%r9, %r10, %r11, %r12};\n"
    "\tst.global.v4.u32 \t[%rd20], {%r13, %r14, %r15, %r16};\n"
    "\tst.global.v4.u32 \t[%rd21], {%r17, %r18, %r19, %r20};\n"
    "\tadd.s64 \t%rd4, %rd4, %rd12;\n"
    "\tbra.uni \tPC_COPY_LOOP4;\n"
    "PC_COPY_TAIL:\n"
    "\tsetp.ge.u64 \t%p1, %rd4, %rd3;\n"
    "\t@%p1 bra \tPC_COPY_DONE;\n"
    "PC_COPY_LOOP:\n"
    "\tshl.b64 \t%rd7, %rd4, 4;\n"
    "\tadd.s64 \t%rd8, %rd2, %rd7;\n"
    "\tld.global.v4.u32 \t{%r5, %r6, %r7, %r8}, [%rd8];\n"
    "\tadd.s64 \t%rd9, %rd1, %rd7;\n"
    "\tst.global.v4.u32 \t[%rd9], {%r5, %r6, %r7, %r8};\n"
    "\tadd.s64 \t%rd4, %rd4, %rd6;\n"
    "\tsetp.lt.u64 \t%p2, %rd4, %rd3;\n"
    "\t@%p2 bra \tPC_COPY_LOOP;\n"
    "PC_COPY_DONE:\n"
    "\tret;\n"
    "}\n"
    "\n"
    /* 16 chains f = f * a + b, `iters` trips of 64 FMAs; the sum is stored so
     * that nothing is dead code.  a and b are parameters (no constant
     * folding); distinct start values keep the chains from being merged. */
    ".visible .entry pc_fma(\n"
    "\t.param .u64 pc_fma_out,\n"
    "\t.param .u32 pc_fma_iters,\n"
    "\t.param .f32 pc_fma_a,\n"
    "\t.param .f32 pc_fma_b\n"
    ")\n"
    "{\n"
    "\t.reg .pred \t%p<2>;\n"
    "\t.reg .b32 \t%r<8>;\n"
    "\t.reg .f32 \t%f<20>;\n"
    "\t.reg .b64 \t%rd<5>;\n"
    "\tld.param.u64 \t%rd1, [pc_fma_out];\n"
    "\tld.param.u32 \t%r1, [pc_fma_iters];\n"
    "\tld.param.f32 \t%f16, [pc_fma_a];\n"
    "\tld.param.f32 \t%f17, [pc_fma_b];\n"
    "\tcvta.to.global.u64 \t%rd1, %rd1;\n"
    "\tmov.u32 \t%r2, %ctaid.x;\n"
    "\tmov.u32 \t%r3, %ntid.x;\n"
    "\tmov.u32 \t%r4, %tid.x;\n"
    "\tmad.lo.s32 \t%r5, %r2, %r3, %r4;\n"
    "\tcvt.rn.f32.u32 \t%f0, %r5;\n"
    "\tadd.f32 \t%f1, %f0, 0f3F900000;\n"
    "\tadd.f32 \t%f2, %f0, 0f3FA00000;\n"
    "\tadd.f32 \t%f3, %f0, 0f3FB00000;\n"
    "\tadd.f32 \t%f4, %f0, 0f3FC00000;\n"
    "\tadd.f32 \t%f5, %f0, 0f3FD00000;\n"
    "\tadd.f32 \t%f6, %f0, 0f3FE00000;\n"
    "\tadd.f32 \t%f7, %f0, 0f3FF00000;\n"
    "\tadd.f32 \t%f8, %f0, 0f40000000;\n"
    "\tadd.f32 \t%f9, %f0, 0f40100000;\n"
    "\tadd.f32 \t%f10, %f0, 0f40200000;\n"
    "\tadd.f32 \t%f11, %f0, 0f40300000;\n"
    "\tadd.f32 \t%f12, %f0, 0f40400000;\n"
    "\tadd.f32 \t%f13, %f0, 0f40500000;\n"
    "\tadd.f32 \t%f14, %f0, 0f40600000;\n"
    "\tadd.f32 \t%f15, %f0, 0f40700000;\n"
    "\tmov.u32 \t%r6, 0;\n"
    "\tsetp.eq.u32 \t%p1, %r1, 0;\n"
    "\t@%p1 bra \tPC_FMA_DONE;\n"
    "PC_FMA_LOOP:\n" PC_FMA16 PC_FMA16 PC_FMA16 PC_FMA16
    "\tadd.s32 \t%r6, %r6, 1;\n"
    "\tsetp.lt.u32 \t%p1, %r6, %r1;\n"
    "\t@%p1 bra \tPC_FMA_LOOP;\n"
    "PC_FMA_DONE:\n"
    "\tadd.f32 \t%f0, %f0, %f1;\n"
    "\tadd.f32 \t%f0, %f0, %f2;\n"
    "\tadd.f32 \t%f0, %f0, %f3;\n"
    "\tadd.f32 \t%f0, %f0, %f4;\n"
    "\tadd.f32 \t%f0, %f0, %f5;\n"
    "\tadd.f32 \t%f0, %f0, %f6;\n"
    "\tadd.f32 \t%f0, %f0, %f7;\n"
    "\tadd.f32 \t%f0, %f0, %f8;\n"
    "\tadd.f32 \t%f0, %f0, %f9;\n"
    "\tadd.f32 \t%f0, %f0, %f10;\n"
    "\tadd.f32 \t%f0, %f0, %f11;\n"
    "\tadd.f32 \t%f0, %f0, %f12;\n"
    "\tadd.f32 \t%f0, %f0, %f13;\n"
    "\tadd.f32 \t%f0, %f0, %f14;\n"
    "\tadd.f32 \t%f0, %f0, %f15;\n"
    "\tmul.wide.u32 \t%rd2, %r5, 4;\n"
    "\tadd.s64 \t%rd3, %rd1, %rd2;\n"
    "\tst.global.f32 \t[%rd3], %f0;\n"
    "\tret;\n"
    "}\n";

const char *pc_ceilings_ptx(void) { return pc_ptx; }

/* mkdir -p for the cache directory. */
static int pc_mkdirs(const char *path) {
  char p[1024];
  if (snprintf(p, sizeof p, "%s", path) >= (int)sizeof p) return -1;
  for (char *s = p + 1; *s; s++) {
    if (*s != '/') continue;
    *s = '\0';
    if (mkdir(p, 0755) != 0 && errno != EEXIST) return -1;
    *s = '/';
  }
  if (mkdir(p, 0755) != 0 && errno != EEXIST) return -1;
  return 0;
}

/* ---- the measurement ------------------------------------------------------------------ */

typedef struct pc_bench {
  CUmodule mod;
  CUfunction copy, fma;
  CUevent start, stop;
  CUdeviceptr src, dst, out;
  size_t bytes;
  pc_err err;                   /* the failed call, from PC_CU */
} pc_bench;

/* The status of a failed call whose text PC_CU already wrote into b->err. */
static perfcheck_status pc_bench_fail(pc_bench *b, perfcheck_status st) {
  b->err.status = st;
  return st;
}

/* Median time of PC_CEIL_RUNS launches, in seconds, after warm-up. */
static perfcheck_status pc_bench_time(pc_bench *b, CUfunction f, unsigned grid, unsigned block, void **args,
                                      double *seconds) {
  double t[PC_CEIL_RUNS];
  CUresult r;
  for (int i = 0; i < PC_CEIL_WARMUP + PC_CEIL_RUNS; i++) {
    if ((r = PC_CU(&b->err, cuEventRecord, b->start, NULL)) != CUDA_SUCCESS) return pc_bench_fail(b, PERFCHECK_ERROR_INTERNAL);
    if ((r = PC_CU(&b->err, cuLaunchKernel, f, grid, 1, 1, block, 1, 1, 0, NULL, args, NULL)) != CUDA_SUCCESS)
      return pc_bench_fail(b, PERFCHECK_ERROR_UNSUPPORTED);
    if ((r = PC_CU(&b->err, cuEventRecord, b->stop, NULL)) != CUDA_SUCCESS) return pc_bench_fail(b, PERFCHECK_ERROR_INTERNAL);
    if ((r = PC_CU(&b->err, cuEventSynchronize, b->stop)) != CUDA_SUCCESS)
      return pc_bench_fail(b, PERFCHECK_ERROR_KERNEL_FAULT);
    float ms = 0.0f;
    if ((r = PC_CU(&b->err, cuEventElapsedTime, &ms, b->start, b->stop)) != CUDA_SUCCESS)
      return pc_bench_fail(b, PERFCHECK_ERROR_INTERNAL);
    if (i >= PC_CEIL_WARMUP) t[i - PC_CEIL_WARMUP] = ms * 1e-3;
  }
  *seconds = pc_median(t, PC_CEIL_RUNS);
  if (!(*seconds > 0.0)) {
    return pc_err_set(&b->err, PERFCHECK_ERROR_INTERNAL, "the benchmark kernel took no measurable time");
  }
  return PERFCHECK_OK;
}

static perfcheck_status pc_bench_run(pc_bench *b, const pc_device *d, double *dram, double *fp32) {
  CUresult r = PC_CU(&b->err, cuModuleLoadData, &b->mod, pc_ptx);
  if (r != CUDA_SUCCESS) return pc_bench_fail(b, PERFCHECK_ERROR_UNSUPPORTED);
  if ((r = PC_CU(&b->err, cuModuleGetFunction, &b->copy, b->mod, "pc_copy")) != CUDA_SUCCESS ||
      (r = PC_CU(&b->err, cuModuleGetFunction, &b->fma, b->mod, "pc_fma")) != CUDA_SUCCESS)
    return pc_bench_fail(b, PERFCHECK_ERROR_INTERNAL);
  if ((r = PC_CU(&b->err, cuEventCreate, &b->start, CU_EVENT_DEFAULT)) != CUDA_SUCCESS ||
      (r = PC_CU(&b->err, cuEventCreate, &b->stop, CU_EVENT_DEFAULT)) != CUDA_SUCCESS)
    return pc_bench_fail(b, PERFCHECK_ERROR_INTERNAL);

  const int sms = d->sm_count > 0 ? d->sm_count : 1;
  const unsigned block = 256;

  /* DRAM: 1 GiB each way; smaller only when the device cannot hold it. */
  for (b->bytes = PC_CEIL_COPY_BYTES; b->bytes >= ((size_t)256 << 20); b->bytes /= 2) {
    if (PC_CU(&b->err, cuMemAlloc, &b->src, b->bytes) != CUDA_SUCCESS) {
      b->src = 0;
      continue;
    }
    if (PC_CU(&b->err, cuMemAlloc, &b->dst, b->bytes) == CUDA_SUCCESS) break;
    (void)PC_CU(NULL, cuMemFree, b->src);
    b->src = b->dst = 0;
  }
  if (!b->src || !b->dst) {
    return pc_err_set(&b->err, PERFCHECK_ERROR_OUT_OF_MEMORY,
                      "cuMemAlloc: cannot allocate two buffers of 256 MiB for the copy benchmark");
  }
  if ((r = PC_CU(&b->err, cuMemsetD8, b->src, 0x5a, b->bytes)) != CUDA_SUCCESS) return pc_bench_fail(b, PERFCHECK_ERROR_INTERNAL);
  {
    unsigned long long n16 = b->bytes / 16;
    const int per_sm = d->max_threads_per_sm > 0 ? d->max_threads_per_sm / (int)block : 8;
    unsigned grid = (unsigned)(sms * (per_sm > 0 ? per_sm : 1) * 2);
    void *args[] = {&b->dst, &b->src, &n16};
    double s;
    perfcheck_status st = pc_bench_time(b, b->copy, grid, block, args, &s);
    if (st != PERFCHECK_OK) return st;
    *dram = 2.0 * (double)b->bytes / s;
  }

  /* FP32: exactly one wave of resident blocks, sized to run ~20 ms. */
  {
    int per_sm = 0;
    r = PC_CU(NULL, cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, &per_sm, b->fma, (int)block, 0,
              CU_OCCUPANCY_DEFAULT);
    if (r != CUDA_SUCCESS || per_sm <= 0) per_sm = 1;
    unsigned grid = (unsigned)(sms * per_sm);
    const double threads = (double)grid * block;
    if ((r = PC_CU(&b->err, cuMemAlloc, &b->out, (size_t)threads * sizeof(float))) != CUDA_SUCCESS)
      return pc_bench_fail(b, PERFCHECK_ERROR_OUT_OF_MEMORY);
    double guess = pc_has(d->peak_fp32_flop_per_s) ? d->peak_fp32_flop_per_s : 1e13;
    double it = PC_CEIL_FMA_TARGET_S * guess / (threads * PC_FMA_PER_TRIP * 2.0);
    unsigned iters = it < 256 ? 256u : it > (double)(1u << 22) ? (1u << 22) : (unsigned)it;
    float a = 0.999f, c = 0.001f;
    void *args[] = {&b->out, &iters, &a, &c};
    double s;
    perfcheck_status st = pc_bench_time(b, b->fma, grid, block, args, &s);
    if (st != PERFCHECK_OK) return st;
    *fp32 = threads * (double)iters * PC_FMA_PER_TRIP * 2.0 / s;
  }
  return PERFCHECK_OK;
}

static void pc_bench_free(pc_bench *b) {
  if (b->out) PC_CU(NULL, cuMemFree, b->out);
  if (b->dst) PC_CU(NULL, cuMemFree, b->dst);
  if (b->src) PC_CU(NULL, cuMemFree, b->src);
  if (b->start) PC_CU(NULL, cuEventDestroy, b->start);
  if (b->stop) PC_CU(NULL, cuEventDestroy, b->stop);
  if (b->mod) PC_CU(NULL, cuModuleUnload, b->mod);
}

PERFCHECK_API perfcheck_status perfcheck_measure_ceilings(int device, const char *cache_path, double *dram_bytes_per_s,
                                                          double *fp32_flop_per_s) {
  pc_clear_error();
  if (dram_bytes_per_s) *dram_bytes_per_s = PC_NULL;
  if (fp32_flop_per_s) *fp32_flop_per_s = PC_NULL;
  if (device < 0) return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_measure_ceilings: device %d", device);
  pc_err e;
  perfcheck_status st = pc_cuda_load(&e);
  if (st != PERFCHECK_OK) return pc_fail(st, "%s", e.msg);
  int count = 0;
  if (PC_CU(NULL, cuDeviceGetCount, &count) != CUDA_SUCCESS || device >= count)
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_measure_ceilings: no device %d (%d visible)", device,
                   count);
  pc_device d;
  st = pc_funcinfo_device(device, &d, &e);
  if (st != PERFCHECK_OK) return pc_fail(st, "%s", e.msg);

  CUdevice dev;
  CUcontext ctx = NULL;
  CUresult r = PC_CU(&e, cuDeviceGet, &dev, device);
  if (r == CUDA_SUCCESS) r = PC_CU(&e, cuDevicePrimaryCtxRetain, &ctx, dev);
  if (r != CUDA_SUCCESS) return pc_fail(PERFCHECK_ERROR_NO_DEVICE, "%s", e.msg);
  if (PC_CU(&e, cuCtxPushCurrent, ctx) != CUDA_SUCCESS) {
    (void)PC_CU(NULL, cuDevicePrimaryCtxRelease, dev);
    return pc_fail(PERFCHECK_ERROR_INTERNAL, "%s", e.msg);
  }
  pc_bench b;
  memset(&b, 0, sizeof b);
  double dram = PC_NULL, fp32 = PC_NULL;
  pc_capture_internal(1);
  st = pc_bench_run(&b, &d, &dram, &fp32);
  pc_capture_internal(0);
  pc_bench_free(&b);
  CUcontext popped;
  (void)PC_CU(NULL, cuCtxPopCurrent, &popped);
  (void)PC_CU(NULL, cuDevicePrimaryCtxRelease, dev);
  if (st != PERFCHECK_OK) return pc_fail(st, "perfcheck_measure_ceilings: %s", b.err.msg);

  d.peak_dram_bytes_per_s = dram;
  d.peak_fp32_flop_per_s = fp32;
  pc_device_update_ridge(&d);
  snprintf(d.ceilings_source, sizeof d.ceilings_source, "%s", "measured");
  if (dram_bytes_per_s) *dram_bytes_per_s = dram;
  if (fp32_flop_per_s) *fp32_flop_per_s = fp32;

  char path[1280], dir[1024];
  if (cache_path) {
    snprintf(path, sizeof path, "%s", cache_path);
  } else {
    if (pc_ceilings_cache_dir(NULL, dir, sizeof dir) || pc_ceilings_cache_path(device, NULL, path, sizeof path))
      return pc_fail(PERFCHECK_ERROR_IO, "perfcheck_measure_ceilings: no cache directory (set XDG_CACHE_HOME or HOME)");
    if (pc_mkdirs(dir))
      return pc_fail(PERFCHECK_ERROR_IO, "perfcheck_measure_ceilings: cannot create %s: %s", dir, strerror(errno));
  }
  pc_err werr;
  st = pc_device_write_ceilings(&d, path, &werr);
  if (st != PERFCHECK_OK) return pc_fail(st, "%s", werr.msg);
  pc_funcinfo_reset(); /* later sessions read the new file */
  return PERFCHECK_OK;
}
