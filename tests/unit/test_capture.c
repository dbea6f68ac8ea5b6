/* The launch capture (lib/gpu/pc_capture.c) and the collector it records
 * into (pc_collector.c), without a GPU: the callbacks are driven with
 * hand-made CUPTI callback data through pc_capture_callback, so the launch
 * log, signatures, regions, graph launches, stream capture, failed and
 * nested launches, the join with activity records and a region's harvest
 * (pc_harvest.c, pc_collector_take_region) are checked on a CPU.  Each test
 * installs a fresh collector, as pc_gpu_start does, and frees it after.  No
 * CUPTI call is made (nothing is subscribed).  The pure tables under it are
 * tested alone by test_sigtab.c. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pc_activity.h"
#include "pc_capture.h"
#include "pc_collector.h"
#include "pc_gpu.h"

#include <generated_nvtx_meta.h> /* the NVTX callbacks' parameter structs */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "report/pc_region_build.h"

/* ---- the installed collector, and short names for what the tests ask of it ---------- */

static pc_collector *C;

static int setup(void **state) {
  (void)state;
  C = pc_collector_new();
  if (!C) return -1;
  pc_collector_set_active(C, 1);
  pc_collector_install(C);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  pc_collector_install(NULL);
  pc_collector_free(C);
  C = NULL;
  return 0;
}

static void pc_capture_set_active(int on) { pc_collector_set_active(C, on); }
static uint32_t pc_capture_region_push(const char *name, unsigned flags, const pc_region_marks *b) {
  return pc_collector_region_push(C, name, flags, b);
}
static void pc_capture_region_pop(uint32_t id, const pc_region_marks *e) { pc_collector_region_pop(C, id, e); }
static size_t pc_capture_pending(uint32_t id) { return pc_collector_pending(C, id); }
static size_t pc_capture_contexts_since(uint64_t since, CUcontext *out, size_t cap) {
  return pc_collector_contexts_since(C, since, out, cap);
}
static uint64_t pc_capture_region_launches(void) {
  uint64_t l, f;
  pc_collector_launch_counts(C, &l, &f);
  return l;
}
static uint64_t pc_capture_failed_launches(void) {
  uint64_t l, f;
  pc_collector_launch_counts(C, &l, &f);
  return f;
}
static uint32_t pc_capture_current_region(void) { return pc_collector_region_current(C); }
static int pc_capture_captures_open(void) { return pc_collector_captures_open(C); }
/* What pc_collector_take_region does first: the region leaves the stack. */
static void retire(uint32_t id) { pc_collector_region_retire(C, id); }
static size_t purge(uint32_t id) { return pc_collector_region_purge(C, id); }
static int any_region(void) { return pc_collector_regions_open(C) > 0; }

/* A copy of one signature of the collector's table. */
typedef pc_sig_info sig_info;
static int sig_get(uint32_t sig, sig_info *si) { return pc_collector_sig_info(C, sig, si); }

/* ---- launches driven through the real callback -------------------------------------- */

static const char *const NAME_A = "_Z8mysteryAPKfPfm";
static const char *const NAME_G = "_Z11graph_onlyPf";
#define CTX ((CUcontext)(uintptr_t)0xC0)

static CUresult ok_result = CUDA_SUCCESS, bad_result = CUDA_ERROR_INVALID_VALUE;

/* One cuLaunchKernel, ENTER and EXIT.  Returns the correlation id. */
static uint32_t launch(uint32_t corr, void *f, const char *name, unsigned gx, unsigned bx, unsigned smem, int fail) {
  cuLaunchKernel_params p;
  memset(&p, 0, sizeof p);
  p.f = (CUfunction)f;
  p.gridDimX = gx, p.gridDimY = 1, p.gridDimZ = 1;
  p.blockDimX = bx, p.blockDimY = 1, p.blockDimZ = 1;
  p.sharedMemBytes = smem;
  uint64_t cd = 0xdeadbeefdeadbeefull; /* CUPTI's slot holds anything before ENTER */
  CUpti_CallbackData cb;
  memset(&cb, 0, sizeof cb);
  cb.functionParams = &p;
  cb.symbolName = name;
  cb.context = CTX;
  cb.contextUid = 1;
  cb.correlationId = corr;
  cb.correlationData = &cd;
  cb.callbackSite = CUPTI_API_ENTER;
  pc_capture_callback(NULL, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &cb);
  cb.callbackSite = CUPTI_API_EXIT;
  cb.functionReturnValue = fail ? &bad_result : &ok_result;
  pc_capture_callback(NULL, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &cb);
  return corr;
}

#define EXEC ((CUgraphExec)(uintptr_t)0xE0) /* no CUPTI here: the handle is the exec's key */

/* The correlation ids of graph launches: their kernels' activity records
 * carry a graph id (GRAPH_ID), as CUPTI's do for every kernel node. */
#define GRAPH_ID 5u
static uint32_t graph_corrs[8];
static size_t ngraph_corrs;
static uint32_t graph_id_of(uint32_t corr) {
  for (size_t i = 0; i < ngraph_corrs; i++)
    if (graph_corrs[i] == corr) return GRAPH_ID;
  return 0;
}

static void graph_launch(uint32_t corr) {
  if (ngraph_corrs < sizeof graph_corrs / sizeof graph_corrs[0]) graph_corrs[ngraph_corrs++] = corr;
  cuGraphLaunch_params p;
  memset(&p, 0, sizeof p);
  p.hGraph = EXEC;
  uint64_t cd = 0;
  CUpti_CallbackData cb;
  memset(&cb, 0, sizeof cb);
  cb.functionParams = &p;
  cb.context = CTX;
  cb.contextUid = 1;
  cb.correlationId = corr;
  cb.correlationData = &cd;
  cb.callbackSite = CUPTI_API_ENTER;
  pc_capture_callback(NULL, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, &cb);
  cb.callbackSite = CUPTI_API_EXIT;
  cb.functionReturnValue = &ok_result;
  pc_capture_callback(NULL, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, &cb);
}

/* The activity record of a launch, joined as the decoder does. */
static int join(uint32_t corr, const char *name, unsigned gx, unsigned bx, unsigned smem, uint32_t *sig,
                uint32_t *region) {
  pc_kernel_record kr;
  memset(&kr, 0, sizeof kr);
  kr.correlation_id = corr;
  kr.name = name;
  kr.grid[0] = gx, kr.grid[1] = kr.grid[2] = 1;
  kr.block[0] = bx, kr.block[1] = kr.block[2] = 1;
  kr.dynamic_smem = smem;
  kr.registers = 32;
  kr.static_smem = 1024;
  kr.graph_id = graph_id_of(corr);
  uint32_t group = 0;
  int ok = pc_collector_join_kernel(C, &kr, &group, region);
  *sig = PC_KSPAN_SIG(group);
  return ok;
}

static void test_launch_flow(void **state) {
  (void)state;
  void *fa = (void *)(uintptr_t)0x1000;
  pc_capture_set_active(1);
  uint32_t sig, reg, sig2;

  /* Outside any region: nothing recorded. */
  launch(1, fa, NAME_A, 4, 128, 0, 0);
  assert_int_equal(pc_capture_region_launches(), 0);
  assert_int_equal(join(1, NAME_A, 4, 128, 0, &sig, &reg), 0);

  const uint32_t r1 = pc_capture_region_push("r", 0, NULL);
  assert_true(r1 != 0);
  launch(10, fa, NAME_A, 4, 128, 0, 0);
  launch(11, fa, NAME_A, 4, 128, 0, 0);
  launch(12, fa, NAME_A, 8, 128, 0, 0); /* another grid: another signature */
  assert_int_equal(pc_capture_region_launches(), 3);
  assert_int_equal(pc_capture_pending(r1), 3);
  CUcontext ctxs[4];
  assert_int_equal(pc_capture_contexts_since(0, ctxs, 4), 1);
  assert_ptr_equal(ctxs[0], CTX);
  assert_int_equal(pc_capture_contexts_since(3, ctxs, 4), 0);

  assert_int_equal(join(10, NAME_A, 4, 128, 0, &sig, &reg), 1);
  assert_int_equal(reg, r1);
  assert_int_equal(join(11, NAME_A, 4, 128, 0, &sig2, &reg), 1);
  assert_int_equal(sig, sig2);
  assert_int_equal(join(12, NAME_A, 8, 128, 0, &sig2, &reg), 1);
  assert_int_not_equal(sig, sig2);
  assert_int_equal(pc_capture_pending(r1), 0);
  assert_int_equal(join(10, NAME_A, 4, 128, 0, &sig2, &reg), 0); /* one record per launch */

  sig_info si;
  assert_int_equal(sig_get(sig, &si), 0);
  assert_string_equal(si.mangled, NAME_A);
  assert_ptr_equal(si.f, fa);
  assert_ptr_equal(si.ctx, CTX);
  assert_int_equal(si.grid[0], 4);
  assert_int_equal(si.block[0], 128);
  assert_int_equal(si.seen_direct, 1);
  assert_int_equal(si.seen_graph, 0);
  assert_int_equal(si.rec_valid, 1);
  assert_int_equal(si.rec_registers, 32);
  assert_int_equal(si.not_profiled, PC_NP_TIMING); /* counters off */
  assert_int_equal(sig_get(999999, &si), -1);

  /* A failed launch leaves no pending entry and is counted. */
  uint64_t failed0 = pc_capture_failed_launches();
  launch(13, fa, NAME_A, 4, 128, 0, 1);
  assert_int_equal(pc_capture_pending(r1), 0);
  assert_int_equal(pc_capture_failed_launches(), failed0 + 1);

  /* Nested region: the innermost gets the launch; popping returns to r1. */
  const uint32_t r2 = pc_capture_region_push("r", 0, NULL);
  launch(20, fa, NAME_A, 4, 128, 0, 0);
  launch(22, fa, NAME_A, 4, 128, 0, 0);
  assert_int_equal(pc_capture_pending(r2), 2);
  assert_int_equal(pc_capture_pending(r1), 0);
  pc_capture_region_pop(r2, NULL);
  launch(21, fa, NAME_A, 4, 128, 0, 0);
  assert_int_equal(pc_capture_pending(r1), 1);
  /* A closing region still takes its records (its end flushes them in)... */
  assert_int_equal(join(20, NAME_A, 4, 128, 0, &sig2, &reg), 1);
  assert_int_equal(reg, r2);
  /* ...until it is retired: then a late record is dropped. */
  retire(r2);
  assert_int_equal(join(22, NAME_A, 4, 128, 0, &sig2, &reg), 0);
  assert_int_equal(join(21, NAME_A, 4, 128, 0, &sig2, &reg), 1);
  assert_int_equal(reg, r1);

  /* A graph: one correlation id, two kernels found by name; the one
   * launched directly before keeps its handle. */
  graph_launch(30);
  assert_int_equal(pc_capture_pending(r1), 0); /* graph launches are not "pending" */
  assert_int_equal(join(30, NAME_A, 4, 128, 0, &sig2, &reg), 1);
  assert_int_equal(sig2, sig); /* same name, context, geometry: same signature */
  assert_int_equal(join(30, NAME_G, 2, 64, 0, &sig2, &reg), 1);
  assert_int_equal(join(30, NAME_G, 2, 64, 0, &sig2, &reg), 1); /* a second kernel record */
  /* A tool's kernel launched inside the graph launch's callback (CUPTI's
   * WaitNs on the H200): the graph launch's correlation id, no graph id.
   * Not a node of the graph: dropped. */
  {
    pc_kernel_record kr;
    memset(&kr, 0, sizeof kr);
    kr.correlation_id = 30;
    kr.name = "WaitNs";
    kr.grid[0] = kr.grid[1] = kr.grid[2] = 1;
    kr.block[0] = 32, kr.block[1] = kr.block[2] = 1;
    uint32_t group = 0, region = 0;
    assert_int_equal(pc_collector_join_kernel(C, &kr, &group, &region), 0);
    assert_int_equal(pc_collector_tool_kernels(C), 1);
  }
  assert_int_equal(sig_get(sig2, &si), 0);
  assert_int_equal(si.seen_graph, 1);
  assert_int_equal(si.seen_direct, 0);
  assert_null(si.f);
  assert_int_equal(si.not_profiled, PC_NP_GRAPH);
  assert_int_equal(sig_get(sig, &si), 0);
  assert_int_equal(si.seen_graph, 1);
  assert_ptr_equal(si.f, fa);

  /* Region end: what never got a record is purged and counted. */
  launch(40, fa, NAME_A, 4, 128, 0, 0);
  assert_int_equal(purge(r1), 1);
  assert_int_equal(join(30, NAME_A, 4, 128, 0, &sig2, &reg), 0); /* the graph entry went too */
  pc_capture_region_pop(r1, NULL);
  retire(r1);

  /* Inactive: one atomic load, nothing recorded. */
  const uint32_t r3 = pc_capture_region_push("r", 0, NULL);
  pc_capture_set_active(0);
  uint64_t before = pc_capture_region_launches();
  launch(50, fa, NAME_A, 4, 128, 0, 0);
  assert_int_equal(pc_capture_region_launches(), before);
  pc_capture_set_active(1);
  pc_capture_region_pop(r3, NULL);

}

/* A launch issued from inside one of ours on the same thread is not
 * recorded and takes no lock (no self-deadlock on the launch rwlock). */
static void test_nested_launch(void **state) {
  (void)state;
  pc_capture_set_active(1);
  const uint32_t r = pc_capture_region_push("r", 0, NULL);
  cuLaunchKernel_params p;
  memset(&p, 0, sizeof p);
  p.f = (CUfunction)(uintptr_t)0x2000;
  p.gridDimX = p.gridDimY = p.gridDimZ = 1;
  p.blockDimX = p.blockDimY = p.blockDimZ = 32;
  uint64_t cd_outer = 0, cd_inner = 0;
  CUpti_CallbackData outer, inner;
  memset(&outer, 0, sizeof outer);
  outer.functionParams = &p;
  outer.symbolName = NAME_A;
  outer.context = CTX;
  outer.correlationId = 60;
  outer.correlationData = &cd_outer;
  inner = outer;
  inner.correlationId = 61;
  inner.correlationData = &cd_inner;
  outer.callbackSite = inner.callbackSite = CUPTI_API_ENTER;
  pc_capture_callback(NULL, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &outer);
  pc_capture_callback(NULL, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &inner);
  assert_int_equal(pc_capture_pending(r), 1);
  outer.callbackSite = inner.callbackSite = CUPTI_API_EXIT;
  outer.functionReturnValue = inner.functionReturnValue = &ok_result;
  pc_capture_callback(NULL, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &inner);
  pc_capture_callback(NULL, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &outer);
  assert_int_equal(pc_capture_thread_depth(), 0);
  uint32_t sig, reg;
  assert_int_equal(join(60, NAME_A, 1, 32, 0, &sig, &reg), 1);
  assert_int_equal(join(61, NAME_A, 1, 32, 0, &sig, &reg), 0);
  /* An EXIT whose ENTER we did not see (CUPTI's slot holds garbage) is ignored. */
  uint64_t junk = 0x1234;
  outer.correlationData = &junk;
  pc_capture_callback(NULL, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &outer);
  assert_int_equal(pc_capture_thread_depth(), 0);
  pc_capture_region_pop(r, NULL);
}

/* A module unload forgets every handle (a later module may reuse the
 * address).  A function is its handle and name: a module loaded elsewhere
 * is another function (it may be another compilation of the same source),
 * a relaunch of the old handle with the same name finds its signature
 * again, and a new module's kernel of another name at the old address is
 * another function. */
static void test_module_unload(void **state) {
  (void)state;
  pc_capture_set_active(1);
  void *fa = (void *)(uintptr_t)0x3000;
  const uint32_t r = pc_capture_region_push("r", 0, NULL);
  launch(70, fa, NAME_A, 4, 128, 0, 0);
  uint32_t sig, reg, sig2;
  assert_int_equal(join(70, NAME_A, 4, 128, 0, &sig, &reg), 1);
  CUpti_ResourceData rd;
  memset(&rd, 0, sizeof rd);
  rd.context = CTX;
  /* No driver here: the pending signature's attribute query fails cleanly. */
  pc_capture_callback(NULL, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING, &rd);
  sig_info si;
  assert_int_equal(sig_get(sig, &si), 0);
  assert_null(si.f);
  assert_int_equal(si.attr_state, PC_ATTR_NONE);
  void *fb = (void *)(uintptr_t)0x4000; /* loaded elsewhere */
  launch(71, fb, NAME_A, 4, 128, 0, 0);
  assert_int_equal(join(71, NAME_A, 4, 128, 0, &sig2, &reg), 1);
  assert_int_not_equal(sig2, sig);
  assert_int_equal(sig_get(sig2, &si), 0);
  assert_ptr_equal(si.f, fb);
  assert_string_equal(si.mangled, NAME_A);
  launch(73, fa, NAME_A, 4, 128, 0, 0);
  assert_int_equal(join(73, NAME_A, 4, 128, 0, &sig2, &reg), 1);
  assert_int_equal(sig2, sig);
  assert_int_equal(sig_get(sig, &si), 0);
  assert_ptr_equal(si.f, fa);
  /* A new module's kernel of another name at the old address. */
  launch(72, fa, "_Z5otherv", 4, 128, 0, 0);
  assert_int_equal(join(72, "_Z5otherv", 4, 128, 0, &sig2, &reg), 1);
  assert_int_not_equal(sig2, sig);
  assert_int_equal(sig_get(sig2, &si), 0);
  assert_string_equal(si.mangled, "_Z5otherv");
  /* Context destruction: not synchronized at region end any more. */
  CUcontext ctxs[2];
  assert_int_equal(pc_capture_contexts_since(0, ctxs, 2), 1);
  pc_capture_callback(NULL, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING, &rd);
  assert_int_equal(pc_capture_contexts_since(0, ctxs, 2), 0);
  pc_capture_region_pop(r, NULL);

}

/* Region id is on the stack (open or closing). */
static int region_open(uint32_t id) {
  pc_region_view v;
  const perfcheck_status st = pc_collector_region_view(C, id, &v, NULL);
  if (st == PERFCHECK_OK) pc_region_view_free(&v);
  return st == PERFCHECK_OK;
}

/* Region ids are never reused, so a late record cannot land in a new region. */
static void test_region_ids(void **state) {
  (void)state;
  uint32_t a = pc_capture_region_push("r", 0, NULL);
  pc_capture_region_pop(a, NULL);
  assert_int_equal(region_open(a), 1); /* closing: still accepts records */
  assert_int_equal(pc_capture_current_region(), 0);      /* but launches go nowhere */
  retire(a);
  uint32_t b = pc_capture_region_push("r", 0, NULL);
  assert_true(b > a);
  assert_int_equal(region_open(a), 0);
  assert_int_equal(region_open(b), 1);
  assert_int_equal(any_region(), 1);
  pc_capture_region_pop(b, NULL);
  retire(b);
  assert_int_equal(any_region(), 0);
}

/* cuStreamBeginCapture / EndCapture as the driver callbacks report them. */
static void capture_call(CUpti_CallbackId cbid, CUstream st, CUresult *ret) {
  struct {
    CUstream s;
    void *rest[4];
  } params = {st, {0}};
  CUpti_CallbackData cb;
  memset(&cb, 0, sizeof cb);
  cb.functionParams = &params;
  cb.callbackSite = CUPTI_API_ENTER;
  pc_capture_callback(NULL, CUPTI_CB_DOMAIN_DRIVER_API, cbid, &cb);
  cb.callbackSite = CUPTI_API_EXIT;
  cb.functionReturnValue = ret;
  pc_capture_callback(NULL, CUPTI_CB_DOMAIN_DRIVER_API, cbid, &cb);
}

static uint32_t launch_on(uint32_t corr, CUstream st) {
  cuLaunchKernel_params p;
  memset(&p, 0, sizeof p);
  p.f = (CUfunction)(uintptr_t)0x5000;
  p.gridDimX = p.gridDimY = p.gridDimZ = 1;
  p.blockDimX = p.blockDimY = p.blockDimZ = 64;
  p.hStream = st;
  uint64_t cd = 0;
  CUpti_CallbackData cb;
  memset(&cb, 0, sizeof cb);
  cb.functionParams = &p;
  cb.symbolName = NAME_G;
  cb.context = CTX;
  cb.correlationId = corr;
  cb.correlationData = &cd;
  cb.callbackSite = CUPTI_API_ENTER;
  pc_capture_callback(NULL, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &cb);
  cb.callbackSite = CUPTI_API_EXIT;
  cb.functionReturnValue = &ok_result;
  pc_capture_callback(NULL, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &cb);
  return corr;
}

static void *capture_default_stream(void *ret) {
  capture_call(CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz, NULL, ret);
  return NULL;
}

static void *end_default_stream_capture(void *ret) {
  capture_call(CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz, NULL, ret);
  return NULL;
}

/* Launches into a stream being captured add graph nodes and run later:
 * they are not launches of the region (but their name is learned). */
static void test_stream_capture(void **state) {
  (void)state;
  pc_capture_set_active(1);
  const uint32_t r = pc_capture_region_push("r", 0, NULL);
  CUstream s1 = (CUstream)(uintptr_t)0x7100, s2 = (CUstream)(uintptr_t)0x7200;
  capture_call(CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2, s1, &bad_result); /* failed: no capture */
  launch_on(80, s1);
  assert_int_equal(pc_capture_pending(r), 1);
  capture_call(CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2, s1, &ok_result);
  assert_int_equal(pc_capture_captures_open(), 1);
  launch_on(81, s1); /* captured */
  launch_on(82, s2); /* another stream: a real launch */
  assert_int_equal(pc_capture_pending(r), 2);
  uint32_t sig, reg;
  assert_int_equal(join(81, NAME_G, 1, 64, 0, &sig, &reg), 0);
  assert_int_equal(join(82, NAME_G, 1, 64, 0, &sig, &reg), 1);
  capture_call(CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture, s1, &bad_result); /* ends it anyway */
  assert_int_equal(pc_capture_captures_open(), 0);
  launch_on(83, s1);
  assert_int_equal(join(83, NAME_G, 1, 64, 0, &sig, &reg), 1);
  /* The per-thread default stream is per thread: a capture of it on
   * another thread leaves this thread's launches on it alone... */
  pthread_t other;
  assert_int_equal(pthread_create(&other, NULL, capture_default_stream, (void *)&ok_result), 0);
  pthread_join(other, NULL);
  assert_int_equal(pc_capture_captures_open(), 1);
  launch_on(84, NULL);
  assert_int_equal(join(84, NAME_G, 1, 64, 0, &sig, &reg), 1);
  /* ...while on this thread it captures them. */
  capture_call(CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz, NULL, &ok_result);
  assert_int_equal(pc_capture_captures_open(), 2);
  launch_on(85, NULL);
  assert_int_equal(join(85, NAME_G, 1, 64, 0, &sig, &reg), 0);
  capture_call(CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz, NULL, &ok_result);
  assert_int_equal(pthread_create(&other, NULL, end_default_stream_capture, (void *)&ok_result), 0);
  pthread_join(other, NULL);
  assert_int_equal(pc_capture_captures_open(), 0);
  pc_capture_region_pop(r, NULL);
}

/* ---- a region's end (pc_harvest.c) on hand-made records ---------------------------- */

/* A kernel record as the activity decoder hands it over: joined to its
 * launch, then placed in the store (the join checked first). */
static void record(uint32_t corr, const char *name, unsigned gx, unsigned bx, uint64_t start, uint64_t end,
                   uint32_t stream) {
  pc_kernel_record kr;
  memset(&kr, 0, sizeof kr);
  kr.correlation_id = corr;
  kr.name = name;
  kr.grid[0] = gx, kr.grid[1] = kr.grid[2] = 1;
  kr.block[0] = bx, kr.block[1] = kr.block[2] = 1;
  kr.registers = 16;
  kr.graph_id = graph_id_of(corr);
  kr.start = start;
  kr.end = end;
  kr.stream = stream;
  pc_act_record r;
  memset(&r, 0, sizeof r);
  r.kind = PC_ACT_KERNEL;
  r.k = kr;
  uint64_t dropped0, dropped1, zero;
  pc_collector_record_counts(C, &dropped0, &zero);
  pc_collector_add_activity(C, &r, 1);
  pc_collector_record_counts(C, &dropped1, &zero);
  assert_int_equal(dropped1, dropped0);
}

static const pc_snap_sig *snap_sig(const pc_snapshot *s, const char *mangled) {
  for (size_t i = 0; i < s->nsigs; i++)
    if (s->sigs[i].mangled && strcmp(s->sigs[i].mangled, mangled) == 0) return &s->sigs[i];
  fail_msg("no signature %s in the snapshot", mangled);
  return NULL;
}

/* Without a driver nothing is synchronized and no attribute can be asked
 * for; everything else of a region's end runs as on the GPU: the records
 * move into the snapshot with their signature, stream and flags, nested
 * regions hand theirs up, graph kernels keep their flags, the launch log's
 * leftovers are counted, and the builder makes entries of it. */
static void test_harvest(void **state) {
  (void)state;
  void *fa = (void *)(uintptr_t)0x6000;
  pc_capture_set_active(1);
  const uint32_t outer = pc_gpu_region_open("outer", 0);
  launch(100, fa, NAME_A, 4, 128, 0, 0);
  launch(101, fa, NAME_A, 4, 128, 0, 0);
  record(100, NAME_A, 4, 128, 1000, 3000, 13);
  record(101, NAME_A, 4, 128, 4000, 6000, 14);
  const uint32_t inner = pc_gpu_region_open("inner", 0);
  int nvtx_here = 1;
  assert_int_equal(pc_gpu_region_innermost(&nvtx_here), inner);
  assert_int_equal(nvtx_here, 0);
  pc_region_view v;
  assert_int_equal(pc_collector_region_view(C, inner, &v, NULL), PERFCHECK_OK);
  assert_int_equal(v.parent, outer);
  assert_int_equal(v.depth, 1);
  assert_string_equal(v.parent_name, "outer");
  assert_int_equal(v.begin.launches, 2);
  pc_region_view_free(&v);
  launch(110, fa, NAME_A, 8, 128, 0, 0);
  record(110, NAME_A, 8, 128, 7000, 8000, 13);
  launch(111, fa, NAME_A, 8, 128, 0, 0); /* its record never comes */
  /* perfcheck's host time inside a launch that profiled nothing (a session
   * closed there): a cut of the inner region's clock, and of the outer's;
   * none without a region or with an empty interval. */
  pc_collector_host_cut(C, inner, 6200, 6800); /* between kernels: busy time stays */
  pc_collector_host_cut(C, 0, 6200, 6800);
  pc_collector_host_cut(C, inner, 6800, 6800);
  pc_collector_host_cut(C, inner, 0, 6800);

  pc_snapshot *si = NULL;
  pc_err e;
  assert_int_equal(pc_gpu_region_harvest(inner, &si, &e), PERFCHECK_OK);
  assert_non_null(si);
  /* Listed as an inherited profiled launch of no signature: its interval only. */
  assert_int_equal(si->nprofiled, 1);
  assert_int_equal(si->profiled[0].sig, UINT32_MAX);
  assert_int_equal(si->profiled[0].correlation_id, 0);
  assert_int_equal(si->profiled[0].flags, PC_SNAP_PROF_INHERITED);
  assert_int_equal(si->profiled[0].enter_ts, 6200);
  assert_int_equal(si->profiled[0].exit_ts, 6800);
  pc_snapshot *none = NULL;
  assert_int_equal(pc_gpu_region_harvest(inner, &none, &e), PERFCHECK_ERROR_NO_REGION); /* it left the stack */
  assert_null(none);
  assert_int_equal(pc_gpu_region_innermost(&nvtx_here), outer);
  pc_snapshot_free(si);

  /* A graph in the outer region after the inner one ended. */
  graph_launch(120);
  record(120, NAME_G, 2, 64, 9000, 9500, 15);
  record(120, NAME_G, 2, 64, 9500, 9900, 15);
  pc_collector_host_cut(C, outer, 8500, 8700);
  pc_snapshot *so = NULL;
  assert_int_equal(pc_gpu_region_next_to_end(&nvtx_here), outer);
  assert_int_equal(pc_gpu_region_harvest(outer, &so, &e), PERFCHECK_OK);
  assert_int_equal(pc_gpu_region_next_to_end(&nvtx_here), 0);
  assert_int_equal(so->launch_calls, 5); /* 2 + the inner region's 2 + the graph launch */
  /* The inner region's cut, handed up, and the outer's own. */
  assert_int_equal(so->nprofiled, 2);
  for (size_t i = 0; i < so->nprofiled; i++) {
    assert_int_equal(so->profiled[i].sig, UINT32_MAX);
    assert_true(so->profiled[i].flags & PC_SNAP_PROF_INHERITED);
    assert_true(so->profiled[i].enter_ts == 6200 || so->profiled[i].enter_ts == 8500);
  }
  assert_int_equal(so->nlaunches, 5);
  assert_int_equal(so->nsigs, 4); /* mysteryA 4x128 and 8x128, graph_only, and the graph exec */
  /* The graph exec is a signature of its own, and its one launch is listed. */
  size_t gexec = so->nsigs;
  for (size_t i = 0; i < so->nsigs; i++)
    if (so->sigs[i].is_graph) gexec = i;
  assert_true(gexec < so->nsigs);
  assert_int_equal(so->sigs[gexec].graph_exec, 0xE0);
  assert_null(so->sigs[gexec].mangled);
  assert_int_equal(so->sigs[gexec].not_profiled, PC_NP_TIMING);
  assert_int_equal(so->ngraph_launches, 1);
  assert_int_equal(so->graph_launches[0].correlation_id, 120);
  assert_int_equal(so->graph_launches[0].sig, gexec);
  size_t inherited = 0, graph = 0;
  for (size_t i = 0; i < so->nlaunches; i++) {
    inherited += (so->launches[i].flags & PC_SNAP_INHERITED) != 0;
    graph += (so->launches[i].flags & PC_SNAP_GRAPH) != 0;
    assert_true(so->launches[i].sig < so->nsigs);
  }
  assert_int_equal(inherited, 1);
  assert_int_equal(graph, 2);
  const pc_snap_sig *gg = snap_sig(so, NAME_G);
  assert_int_equal(gg->not_profiled, PC_NP_GRAPH);
  /* The inner signature's attributes were read at the inner end: known now. */
  for (size_t i = 0; i < so->nsigs; i++)
    if (so->sigs[i].grid[0] == 8) assert_int_equal(so->sigs[i].attr_from, PC_SNAP_ATTR_DRIVER);

  pc_report *r = pc_report_new();
  pc_build_state bs;
  pc_build_state_init(&bs, 1);
  assert_int_equal(pc_region_build(so, r, &bs), PERFCHECK_OK);
  assert_int_equal(r->nregions, 1);
  assert_int_equal(r->nkernels, 3); /* mysteryA 4x128 (2 launches), graph_only (2), the graph (1) */
  assert_true(r->regions[0].kernel_ns == 2000.0 + 2000.0 + 1000.0 + 900.0);
  const pc_kernel *gk = NULL, *go = NULL;
  for (size_t i = 0; i < r->nkernels; i++) {
    const pc_kernel *k = &r->kernels[i];
    assert_int_equal(k->launches, k->is_graph ? 1 : 2);
    assert_int_equal(k->device_ordinal, -1);
    if (k->is_graph) gk = k;
    if (k->mangled && strcmp(k->mangled, NAME_G) == 0) go = k;
  }
  assert_non_null(gk);
  assert_non_null(go);
  /* Its two kernels are one signature: 2 a launch, 9000 to 9900 ns. */
  char want[256]; /* the kernel's short name, demangled where a demangler is loaded */
  /* Named by the graph id its kernels' records carry (GRAPH_ID). */
  snprintf(want, sizeof want, "graph %u (2 kernels: %s)", GRAPH_ID, go->display_name);
  assert_string_equal(gk->name, want);
  assert_int_equal(gk->graph_kernels, 2);
  assert_int_equal(gk->graph_signatures, 1);
  assert_true(gk->dur_median_ns == 900.0 && gk->total_ns == 900.0);
  assert_true(pc_is_null(gk->time_share) && gk->rank == 0); /* its time is its kernels' */
  assert_int_equal(gk->grid[0], 2);
  assert_int_equal(gk->block[0], 64);
  assert_non_null(gk->not_measured_reason);
  assert_non_null(strstr(gk->not_measured_reason, "timing mode"));
  /* The kernel points to it, and says why its counters are not its own. */
  assert_string_equal(go->graph_entry, gk->name);
  assert_non_null(strstr(go->not_measured_reason, want));
  assert_true(go->time_share == 900.0 / (4000.0 + 900.0));
  pc_report_free(r);
  pc_snapshot_free(so);
  pc_activity_stop();
}

/* ---- NVTX callbacks: push/pop and start/end, decoded for the injection's hooks ---- */

static struct {
  int pushes, pops, starts, ends;
  uint64_t start_id, end_id;
  char name[64];
} nv;
static void nv_push(const char *n) { nv.pushes++, snprintf(nv.name, sizeof nv.name, "%s", n); }
static void nv_pop(void) { nv.pops++; }
static void nv_start(uint64_t id, const char *n) { nv.starts++, nv.start_id = id, snprintf(nv.name, sizeof nv.name, "%s", n); }
static void nv_end(uint64_t id) { nv.ends++, nv.end_id = id; }

static void nvtx_call(CUpti_CallbackId cbid, const char *fn, const void *params, const void *ret) {
  CUpti_NvtxData d = {fn, params, ret};
  pc_capture_callback(NULL, CUPTI_CB_DOMAIN_NVTX, cbid, &d);
}

static void test_nvtx_ranges(void **state) {
  (void)state;
  const pc_gpu_inject_hooks saved = pc_gpu_g.hooks;
  pc_gpu_g.hooks = (pc_gpu_inject_hooks){NULL, NULL, nv_push, nv_pop, nv_start, nv_end};
  atomic_store(&pc_gpu_g.nvtx_on, 1);
  memset(&nv, 0, sizeof nv);
  /* nvtxRangeStartEx: the name from its attributes, the id NVTX returns. */
  nvtxEventAttributes_t a;
  memset(&a, 0, sizeof a);
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = "phase";
  const nvtxRangeStartEx_params sx = {&a};
  nvtxRangeId_t id = 42;
  nvtx_call(CUPTI_CBID_NVTX_nvtxRangeStartEx, "nvtxRangeStartEx", &sx, &id);
  assert_int_equal(nv.starts, 1);
  assert_int_equal(nv.start_id, 42);
  assert_string_equal(nv.name, "phase");
  /* nvtxRangeStartA, and the end of the first (any thread may end it). */
  const nvtxRangeStartA_params sa = {"load"};
  id = 43;
  nvtx_call(CUPTI_CBID_NVTX_nvtxRangeStartA, "nvtxRangeStartA", &sa, &id);
  assert_int_equal(nv.starts, 2);
  assert_int_equal(nv.start_id, 43);
  assert_string_equal(nv.name, "load");
  const nvtxRangeEnd_params e = {42};
  nvtx_call(CUPTI_CBID_NVTX_nvtxRangeEnd, "nvtxRangeEnd", &e, NULL);
  assert_int_equal(nv.ends, 1);
  assert_int_equal(nv.end_id, 42);
  /* A named domain's ranges are a library's: not followed.  The default
   * domain's (NULL) are. */
  const nvtxDomainRangeStartEx_params ds = {(nvtxDomainHandle_t)&a, {&a}};
  id = 44;
  nvtx_call(CUPTI_CBID_NVTX_nvtxDomainRangeStartEx, "nvtxDomainRangeStartEx", &ds, &id);
  assert_int_equal(nv.starts, 2);
  const nvtxDomainRangeStartEx_params d0 = {NULL, {&a}};
  nvtx_call(CUPTI_CBID_NVTX_nvtxDomainRangeStartEx, "nvtxDomainRangeStartEx", &d0, &id);
  assert_int_equal(nv.starts, 3);
  assert_int_equal(nv.start_id, 44);
  const nvtxDomainRangeEnd_params de = {NULL, {44}}, dn = {(nvtxDomainHandle_t)&a, {44}};
  nvtx_call(CUPTI_CBID_NVTX_nvtxDomainRangeEnd, "nvtxDomainRangeEnd", &dn, NULL);
  assert_int_equal(nv.ends, 1);
  nvtx_call(CUPTI_CBID_NVTX_nvtxDomainRangeEnd, "nvtxDomainRangeEnd", &de, NULL);
  assert_int_equal(nv.ends, 2);
  assert_int_equal(nv.end_id, 44);
  /* No return value from CUPTI: the id is 0, and the runtime says so. */
  nvtx_call(CUPTI_CBID_NVTX_nvtxRangeStartA, "nvtxRangeStartA", &sa, NULL);
  assert_int_equal(nv.starts, 4);
  assert_int_equal(nv.start_id, 0);
  /* Push/pop still reach their own hooks. */
  const nvtxRangePushA_params pa = {"step"};
  nvtx_call(CUPTI_CBID_NVTX_nvtxRangePushA, "nvtxRangePushA", &pa, NULL);
  nvtx_call(CUPTI_CBID_NVTX_nvtxRangePop, "nvtxRangePop", NULL, NULL);
  assert_int_equal(nv.pushes, 1);
  assert_int_equal(nv.pops, 1);
  assert_string_equal(nv.name, "step");
  atomic_store(&pc_gpu_g.nvtx_on, 0);
  pc_gpu_g.hooks = saved;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_launch_flow, setup, teardown),
      cmocka_unit_test_setup_teardown(test_nested_launch, setup, teardown),
      cmocka_unit_test_setup_teardown(test_module_unload, setup, teardown),
      cmocka_unit_test_setup_teardown(test_region_ids, setup, teardown),
      cmocka_unit_test_setup_teardown(test_stream_capture, setup, teardown),
      cmocka_unit_test_setup_teardown(test_harvest, setup, teardown),
      cmocka_unit_test_setup_teardown(test_nvtx_ranges, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
