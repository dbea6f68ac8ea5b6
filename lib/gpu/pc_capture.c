/*
 * pc_capture.c: the one CUPTI subscriber ("libperfcheck") and its callbacks,
 * which record into the session's collector (pc_collector.h), reached
 * through the subscriber's userdata (the global struct pc_gpu_proc).
 *
 * What is subscribed, and why no more (docs/cupti.md §4, §11):
 *   driver  cuLaunchKernel(_ptsz), cuLaunchKernelEx(_ptsz),
 *           cuLaunchCooperativeKernel(_ptsz), cuGraphLaunch(_ptsz), ENTER+EXIT;
 *           cuStreamBeginCapture*(_ptsz), cuStreamEndCapture(_ptsz): a launch
 *           into a stream being captured only adds a graph node (it is not a
 *           launch of the region, and profiling it broke the capture on the
 *           H200), and no launch is profiled while any capture is open;
 *   resource CONTEXT_CREATED, CONTEXT_DESTROY_STARTING, MODULE_UNLOAD_STARTING;
 *   state   FATAL_ERROR;
 *   nvtx    range push/pop, only when the injection library asks
 *           (pc_gpu_nvtx_enable): its NVTX ranges become regions.
 * The runtime launch ids (cudaLaunchKernel*, __cudaLaunchKernel_v13000, ...)
 * are left off on purpose: on the H200 every runtime launch reached the
 * driver's cuLaunchKernel callback with the same correlation id (§11), so
 * subscribing to them would only add host time to every launch (callbacks on
 * whole domains cost +1.1 us per launch there, launch ids only +0.4 us).
 *
 * The hot path.  While no session is active a launch costs one atomic load.
 * Inside a session the ENTER callback reads the parameters (no CUDA call:
 * CUDA calls inside callbacks are unsupported), maps (function, context,
 * grid, block, dynamic smem) to a signature id through two small hash maps
 * (the kernel name is copied from symbolName the first time a handle is
 * seen), and, inside a region, appends a 16-byte launch record
 * {correlation id, signature, region, flags} to the launch log, a hash table
 * keyed by correlation id that the activity decoder empties as kernel records
 * arrive.  EXIT does nothing for a plain launch that succeeded: ENTER leaves
 * it a word in CUPTI's correlationData slot saying so.
 *
 * `f` in cuLaunchKernel's parameters is a CUkernel, not a CUfunction, for
 * <<<>>> launches (§11); it is kept as an opaque handle here and resolved
 * by pc_funcinfo at region end.
 *
 * Graph launches get a record {correlation id, graph signature, region,
 * GRAPH}: the graph exec is a signature of its own (pc_sigtab_graph, keyed by
 * CUPTI's exec id), whose report entry holds the graph's counters.  The
 * graph's kernels arrive as activity records that all carry that one
 * correlation id and are matched by name and geometry; their function
 * handle comes from the name table filled by earlier launch callbacks
 * (stream capture included).
 *
 * Counters.  The range profiler is context-level: while one launch is being
 * range-profiled with kernel replay no other kernel may run, or it would be
 * auto-ranged too.  The collector's launch gate enforces it: a profiled
 * launch holds it exclusively from ENTER to EXIT, every other launch holds
 * it shared from ENTER to EXIT, and only while counters are on.  A
 * thread-local depth keeps a launch nested inside one of ours (e.g. issued
 * by a library from our own call) from taking it twice.  A graph launch is
 * never kernel-replayed (auto range + kernel replay left a graph kernel
 * unwritten on the H200, docs/cupti.md §11): whatever the replay mode, the
 * k-th profiled launch of a graph exec collects one-pass group k under a
 * user range around the whole launch (pc_rp_on_launch_enter with graph 1;
 * docs/cupti.md §16), holding the gate exclusively like any profiled
 * launch.  The groups are split at the first such launch in kernel-replay
 * mode (pc_collector_graph_groups).
 *
 * Teardown safety.  Callbacks count themselves in pc_gpu_g.inflight while
 * they touch the collector; pc_gpu_stop uninstalls the collector, takes its
 * gate once exclusively (so every profiled launch finished its EXIT), waits
 * for inflight to drain, and only then frees it.  Thread-locals: the launch
 * depth, the ENTER time of a profiled launch, the "our own launch" flag.
 */
#define _GNU_SOURCE
#include "pc_capture.h"

#include <cupti.h> /* brings generated_cuda_meta.h: the launch parameter structs */
#include <stdlib.h>
/* nvtx3's header-only loader (brought by generated_nvtx_meta.h) reads
 * NVTX_INJECTION64_PATH with getenv: in a privileged process (AT_SECURE) no
 * variable may name a library to load. */
#define getenv secure_getenv
#include <generated_nvtx_meta.h>
#undef getenv
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

#include "pc_call.h"
#include "pc_cuda.h"
#include "pc_funcinfo.h"

static _Thread_local int pc_tl_depth;         /* launch callbacks of ours open on this thread */
static _Thread_local uint64_t pc_tl_enter_ts; /* ENTER time of this thread's profiled launch */
static _Thread_local int pc_tl_internal;      /* our own benchmark launches */
static _Thread_local pc_collector *pc_tl_col; /* whose gate this thread's outer launch holds */
static _Atomic(int (*)(void)) pc_gate_fn;     /* PERFCHECK_NVTX's counter gate (injection only) */

/* correlationData from ENTER to EXIT: a magic in the high half, so that EXIT
 * acts only on launches whose ENTER it saw, and what ENTER did. */
#define PC_CD_MAGIC 0x7063686b00000000ull /* "pchk" */
#define PC_CD_MAGIC_MASK 0xffffffff00000000ull
/* PC_CD_NOTED: a launch that is not profiled joined a session spanning
 * launches as a range to drop (pc_rp_window_note). */
enum { PC_CD_HOLD = 1u, PC_CD_PROFILED = 2u, PC_CD_RECORDED = 4u, PC_CD_NOTED = 8u };

perfcheck_status pc_capture_cupti_usable(pc_err *err) {
  if (!pc_cupti_blocked()) return PERFCHECK_OK;
  return pc_err_set(err, PERFCHECK_ERROR_CUPTI_IN_USE,
                    "CUPTI is in use by %s; perfcheck makes no further CUPTI call in this process", pc_cupti_holder());
}

void pc_capture_internal(int on) { pc_tl_internal = on; }
int pc_capture_thread_depth(void) { return pc_tl_depth; }
void pc_capture_set_counter_gate(int (*gate)(void)) { atomic_store(&pc_gate_fn, gate); }

/* The collector a callback may use, counted in inflight; NULL when none
 * (then nothing was counted).  pc_leave undoes it. */
static pc_collector *pc_enter(void) {
  atomic_fetch_add(&pc_gpu_g.inflight, 1);
  pc_collector *c = atomic_load(&pc_gpu_g.col);
  if (!c || !pc_collector_active(c)) {
    atomic_fetch_sub(&pc_gpu_g.inflight, 1);
    return NULL;
  }
  return c;
}
static void pc_leave(void) { atomic_fetch_sub(&pc_gpu_g.inflight, 1); }

/* ---- launch callbacks ------------------------------------------------------------- */

/* Reads what we need from the parameter struct of each launch cbid; 0 if
 * the cbid is not ours or the parameters are missing. */
static int pc_read_params(CUpti_CallbackId cbid, const void *params, pc_launch_call *p) {
  memset(p, 0, sizeof *p);
  p->cluster[0] = p->cluster[1] = p->cluster[2] = 1;
  if (!params) return 0;
#define PC_CLASSIC_(T)                                                 \
  do {                                                                 \
    const T *q = params;                                               \
    p->f = (void *)q->f;                                               \
    p->grid[0] = q->gridDimX, p->grid[1] = q->gridDimY, p->grid[2] = q->gridDimZ; \
    p->block[0] = q->blockDimX, p->block[1] = q->blockDimY, p->block[2] = q->blockDimZ; \
    p->smem = q->sharedMemBytes;                                       \
    p->stream = q->hStream;                                            \
  } while (0)
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
      PC_CLASSIC_(cuLaunchKernel_params);
      return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
      PC_CLASSIC_(cuLaunchKernel_ptsz_params);
      return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
      PC_CLASSIC_(cuLaunchCooperativeKernel_params);
      return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
      PC_CLASSIC_(cuLaunchCooperativeKernel_ptsz_params);
      return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
      /* The two parameter structs have the same layout. */
      const cuLaunchKernelEx_params *q = params;
      const CUlaunchConfig *c = q->config;
      if (!c) return 0;
      p->f = (void *)q->f;
      p->grid[0] = c->gridDimX, p->grid[1] = c->gridDimY, p->grid[2] = c->gridDimZ;
      p->block[0] = c->blockDimX, p->block[1] = c->blockDimY, p->block[2] = c->blockDimZ;
      p->smem = c->sharedMemBytes;
      p->stream = c->hStream;
      for (unsigned i = 0; c->attrs && i < c->numAttrs; i++)
        if (c->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
          p->cluster[0] = c->attrs[i].value.clusterDim.x;
          p->cluster[1] = c->attrs[i].value.clusterDim.y;
          p->cluster[2] = c->attrs[i].value.clusterDim.z;
        }
      return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz:
      p->graph = 1;
      p->f = (void *)((const cuGraphLaunch_params *)params)->hGraph;
      p->stream = ((const cuGraphLaunch_params *)params)->hStream;
      return 1;
    default:
      return 0;
  }
#undef PC_CLASSIC_
}

/* What the parameters leave to find out before the collector's call: a
 * graph exec's identity (CUPTI's id, never reused in the process where the
 * handle's address may be), the set's one-pass groups for a graph launch
 * that may be profiled (split once, host API, under the exclusive gate,
 * before the lock), and whether PERFCHECK_NVTX's gate closes counters. */
static void pc_launch_identify(pc_collector *c, pc_launch_call *call) {
  const int counters = pc_collector_counting(c);
  call->exec_key = (uint64_t)(uintptr_t)call->f;
  uint32_t exec_id = 0;
  if (call->graph && call->f && pc_cupti.cuptiGetGraphExecId &&
      PC_CUPTI(NULL, cuptiGetGraphExecId, (CUgraphExec)call->f, &exec_id) == CUPTI_SUCCESS)
    call->exec_key = exec_id;
  if (call->graph && counters && pc_collector_region_current(c) && pc_collector_graph_groups_pending(c))
    pc_collector_graph_groups(c);
  int (*gate)(void) = counters ? atomic_load(&pc_gate_fn) : NULL;
  call->closed = gate && !gate() ? PC_NP_NVTX : PC_NP_NONE;
}

/* The counter layer's ENTER of a profiled launch, under the exclusive gate
 * (held from here to EXIT).  Returns the correlationData flags. */
static uint32_t pc_profiled_enter(pc_collector *c, const CUpti_CallbackData *cb, const pc_launch_plan *lp, int graph) {
  pc_collector_gate_exclusive(c);
  /* Everything from here to EXIT is perfcheck's cost but the kernel's own
   * run: the session cuts it out of the region's clock. */
  if (PC_CUPTI(NULL, cuptiGetTimestamp, &pc_tl_enter_ts) != CUPTI_SUCCESS) pc_tl_enter_ts = 0;
  /* Re-checked under the exclusive gate: pc_gpu_stop turns counters off
   * before it takes the gate, so the counter layer is still alive here.
   * Counted as one of our launches meanwhile: the L2 flush that a rotated
   * launch runs first is ours, not the program's. */
  pc_rp *rp = pc_collector_rp(c);
  pc_tl_depth++;
  const int refused = !pc_collector_counting(c) ||
                      pc_rp_on_launch_enter(rp, cb->context, cb->correlationId, lp->profile_name, lp->turn, graph);
  pc_tl_depth--;
  /* A session spanning launches that this launch closed left its launches'
   * values to store. */
  (void)pc_rp_drain(rp, pc_collector_prof_store_cb, c);
  if (!refused) return PC_CD_HOLD | PC_CD_PROFILED;
  pc_collector_counters_refused(c); /* stop asking, note it once */
  pc_collector_launch_unprofile(c, cb->correlationId);
  return PC_CD_HOLD;
}

/* A launch that is not profiled while counters are on holds the gate
 * shared.  A session spanning launches (rotation's cold group) makes every
 * kernel of its context a range, in launch order: launches then go one at a
 * time, and this one is noted as a range to drop (or closes the session
 * first: a graph launch, a collective).  Checked under the gate: no session
 * opens while we hold it.  Returns the correlationData flags. */
static uint32_t pc_plain_enter(pc_collector *c, const CUpti_CallbackData *cb, const pc_launch_plan *lp) {
  pc_collector_gate_shared(c);
  pc_rp *rp = pc_collector_rp(c);
  if (!pc_rp_window_active(rp)) return PC_CD_HOLD;
  pc_collector_gate_release(c);
  pc_collector_gate_exclusive(c);
  uint64_t cut[2] = {0, 0};
  const int w = pc_collector_counting(c) ? pc_rp_window_note(rp, cb->context, cb->correlationId, lp->closes, cut) : 0;
  (void)pc_rp_drain(rp, pc_collector_prof_store_cb, c);
  /* It closed the session (Stop, Decode) inside the program's launch:
   * perfcheck's time, cut from the region's clock. */
  if (w == 2) pc_collector_host_cut(c, lp->region ? lp->region : pc_collector_region_current(c), cut[0], cut[1]);
  return PC_CD_HOLD | (w == 1 ? PC_CD_NOTED : 0u);
}

/* ENTER: decode CUPTI's parameters, one collector call, the counter layer. */
static void pc_launch_enter(CUpti_CallbackId cbid, const CUpti_CallbackData *cb) {
  if (pc_tl_internal) return;
  uint64_t *cd = cb->correlationData;
  if (pc_tl_depth > 0) { /* nested inside one of our launches: not recorded, no lock */
    pc_tl_depth++;
    if (cd) *cd = PC_CD_MAGIC;
    return;
  }
  pc_collector *c = pc_enter();
  if (!c) return;
  uint32_t flags = 0;
  pc_launch_call call;
  if (pc_read_params(cbid, cb->functionParams, &call)) {
    call.corr = cb->correlationId;
    call.ctx = cb->context;
    call.ctx_uid = cb->contextUid;
    call.symbol = cb->symbolName;
    pc_launch_identify(c, &call);
    pc_launch_plan lp;
    pc_collector_launch_enter(c, &call, &lp);
    if (lp.recorded) flags |= PC_CD_RECORDED;
    if (lp.counters && !lp.captured)
      flags |= lp.profile ? pc_profiled_enter(c, cb, &lp, call.graph) : pc_plain_enter(c, cb, &lp);
  }
  pc_tl_depth++;
  if (flags & PC_CD_HOLD) pc_tl_col = c; /* the gate keeps it alive until EXIT */
  if (cd) *cd = PC_CD_MAGIC | flags;
  pc_leave();
}

/* EXIT of a profiled launch: the counter layer's result goes straight into
 * the collector (in a session spanning launches, later: pc_rp_drain), with
 * the launch's host interval. */
static void pc_profiled_exit(pc_collector *c, const CUpti_CallbackData *cb, int ok) {
  pc_rp_result_store res;
  uint64_t dropped = 0, ts = 0;
  const int have = pc_rp_on_launch_exit(pc_collector_rp(c), cb->context, cb->correlationId, ok, &res, &dropped);
  if (have && pc_collector_prof_store(c, cb->correlationId, &res) != 0) pc_rp_result_store_free(&res);
  /* Under kernel replay the activity record of this launch carries no
   * timestamps: the session places the kernel, with its counted duration,
   * just before this moment (nothing else ran: we hold the gate). */
  if (!ok || !pc_collector_active(c) || PC_CUPTI(NULL, cuptiGetTimestamp, &ts) != CUPTI_SUCCESS) ts = 0;
  pc_collector_launch_profiled(c, cb->correlationId, pc_tl_enter_ts, ts, dropped);
}

static void pc_launch_exit(const CUpti_CallbackData *cb) {
  if (pc_tl_depth == 0 || !cb->correlationData) return;
  uint64_t v = *cb->correlationData;
  if ((v & PC_CD_MAGIC_MASK) != PC_CD_MAGIC) return;
  *cb->correlationData = 0;
  pc_tl_depth--;
  const int ok = cb->functionReturnValue && *(const CUresult *)cb->functionReturnValue == CUDA_SUCCESS;
  /* The timing path: a recorded launch that succeeded needs nothing at EXIT
   * (no atomic, no lock): ENTER did all there is. */
  if (!(v & (PC_CD_HOLD | PC_CD_PROFILED)) && (ok || !(v & PC_CD_RECORDED))) return;
  /* The collector is alive while we hold its gate (HOLD: pc_gpu_stop takes
   * the gate before it frees it); a recorded launch without the gate finds
   * the installed one, counted in inflight like any callback. */
  atomic_fetch_add(&pc_gpu_g.inflight, 1);
  pc_collector *c = (v & PC_CD_HOLD) ? pc_tl_col : atomic_load(&pc_gpu_g.col);
  if (!c) {
    atomic_fetch_sub(&pc_gpu_g.inflight, 1);
    return;
  }
  if ((v & PC_CD_NOTED) && !ok) pc_rp_window_unnote(pc_collector_rp(c), cb->context, cb->correlationId);
  if (v & PC_CD_PROFILED) pc_profiled_exit(c, cb, ok);
  /* A failed launch runs no kernel: no record will come for it. */
  if (!ok && (v & PC_CD_RECORDED)) pc_collector_launch_failed(c, cb->correlationId);
  if (v & PC_CD_HOLD) pc_collector_gate_release(c);
  atomic_fetch_sub(&pc_gpu_g.inflight, 1);
}

/* ---- resource and state callbacks ------------------------------------------------- */

/* A module is about to go: its CUfunctions die with it, and a later module
 * may reuse their addresses.  We cannot tell which handles are its (the
 * callback names the module by CUPTI's id only), so:
 *  1. signatures still needed by an open region whose attributes are not
 *     read yet are asked now, with no context call (cuFuncGetAttribute and
 *     cuOccupancy* on the handle only; a CUkernel answers INVALID_HANDLE and
 *     is kept: it belongs to a library, not to this module);
 *  2. every handle is forgotten (the next launch of a live kernel re-adds it
 *     from its name), except CUkernels in signatures that still need them.
 * Usually nothing is pending here (modules go at exit, after the regions
 * ended), so no driver call is made in this callback at all.
 * TO VERIFY ON THE GPU: cuModuleUnload inside an open region. */
static void pc_on_module_unload(pc_collector *c) {
  size_t ntodo = 0;
  pc_pending_attr *todo = pc_collector_attrs_pending(c, &ntodo);
  for (size_t i = 0; i < ntodo; i++) {
    pc_device d;
    int ord = pc_funcinfo_ctx_ordinal_cached(todo[i].ctx);
    if (!pc_funcinfo_device_cached(ord >= 0 ? ord : 0, &d)) pc_device_init(&d);
    pc_attributes a;
    int is_kernel = 0;
    pc_err why;
    perfcheck_status st = pc_funcinfo_attributes(todo[i].ctx, todo[i].f, 0, todo[i].grid, todo[i].block,
                                                 todo[i].smem, &d, &a, &is_kernel, NULL, &why);
    pc_collector_sig_unload_attr(c, todo[i].sig, st == PERFCHECK_OK ? &a : NULL, is_kernel);
  }
  free(todo);
  pc_collector_forget_handles(c);
}

static void pc_on_resource(CUpti_CallbackId cbid, const void *data) {
  const CUpti_ResourceData *rd = data;
  if (!rd) return;
  if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED && pc_gpu_g.hooks.context_created) {
    /* Outside the in-flight count: the injection library starts its session
     * here, and a failed start stops the capture, which waits for it. */
    pc_gpu_g.hooks.context_created();
  }
  pc_collector *c = pc_enter();
  if (!c) return;
  switch (cbid) {
    case CUPTI_CBID_RESOURCE_CONTEXT_CREATED:
      /* A new context at the address of a destroyed one must not inherit
       * its entry. */
      pc_collector_context_dead(c, rd->context);
      break;
    case CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING:
      /* The injection library collects what the context still holds. */
      if (pc_gpu_g.hooks.context_destroying) pc_gpu_g.hooks.context_destroying();
      pc_collector_context_dead(c, rd->context);
      /* The counter layer frees its per-context images (under mu, briefly). */
      if (pc_collector_rp(c)) pc_rp_on_context_destroy(pc_collector_rp(c), rd->context);
      break;
    case CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING:
      pc_on_module_unload(c);
      break;
    default:
      break;
  }
  pc_leave();
}

static void pc_on_state(CUpti_CallbackId cbid, const void *data) {
  if (cbid != CUPTI_CBID_STATE_FATAL_ERROR) return;
  const CUpti_StateData *sd = data;
  atomic_fetch_add(&pc_gpu_g.inflight, 1);
  pc_collector *c = atomic_load(&pc_gpu_g.col);
  if (c)
    pc_collector_set_fatal(c, sd ? (int)sd->notification.result : -1, sd ? sd->notification.message : NULL);
  pc_leave();
}

/* Stream capture begins and ends (EXIT only). */
static int pc_capture_cbid(CUpti_CallbackId cbid, int *begin) {
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz:
      *begin = 1;
      return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz:
      *begin = 0;
      return 1;
    default:
      return 0;
  }
}

static void pc_on_capture(int begin, const CUpti_CallbackData *cb) {
  if (cb->callbackSite != CUPTI_API_EXIT || !cb->functionParams) return;
  const int ok = cb->functionReturnValue && *(const CUresult *)cb->functionReturnValue == CUDA_SUCCESS;
  if (begin && !ok) return;
  /* Every parameter struct of these calls starts with the stream. */
  const CUstream st = *(const CUstream *)cb->functionParams;
  pc_collector *c = pc_enter();
  if (!c) return;
  if (begin) /* the capture ends whatever EndCapture returns */
    pc_collector_capture_begin(c, st);
  else
    pc_collector_capture_end(c, st);
  /* No session spanning launches stays open through a capture (the range
   * profiler broke a capture on the H200; nothing is profiled while one is
   * open, so none opens again until it ends). */
  pc_rp *rp = pc_collector_rp(c);
  if (begin && rp && pc_rp_window_active(rp)) {
    uint64_t cut[2] = {0, 0};
    pc_collector_gate_exclusive(c);
    pc_rp_window_close_all(rp, cut);
    pc_collector_gate_release(c);
    (void)pc_rp_drain(rp, pc_collector_prof_store_cb, c);
    pc_collector_host_cut(c, pc_collector_region_current(c), cut[0], cut[1]); /* inside the program's BeginCapture */
  }
  pc_leave();
}

/* ---- NVTX ranges (the injection library's regions) -------------------------------- */

static void pc_wide_name(const wchar_t *w, char *out, size_t len) {
  size_t n = 0;
  for (; w && *w && n + 4 < len; w++) {
    unsigned long ch = (unsigned long)*w;
    if (ch < 0x80) {
      out[n++] = (char)ch;
    } else if (ch < 0x800) {
      out[n++] = (char)(0xC0 | (ch >> 6));
      out[n++] = (char)(0x80 | (ch & 0x3F));
    } else if (ch < 0x10000) {
      out[n++] = (char)(0xE0 | (ch >> 12));
      out[n++] = (char)(0x80 | ((ch >> 6) & 0x3F));
      out[n++] = (char)(0x80 | (ch & 0x3F));
    } else if (ch < 0x110000) {
      out[n++] = (char)(0xF0 | (ch >> 18));
      out[n++] = (char)(0x80 | ((ch >> 12) & 0x3F));
      out[n++] = (char)(0x80 | ((ch >> 6) & 0x3F));
      out[n++] = (char)(0x80 | (ch & 0x3F));
    } else {
      out[n++] = '?';
    }
  }
  out[n] = '\0';
}

static void pc_attr_name(const nvtxEventAttributes_t *a, char *out, size_t len) {
  if (!a) {
    snprintf(out, len, "%s", "(unnamed range)");
  } else if (a->messageType == NVTX_MESSAGE_TYPE_ASCII && a->message.ascii) {
    snprintf(out, len, "%s", a->message.ascii);
  } else if (a->messageType == NVTX_MESSAGE_TYPE_UNICODE && a->message.unicode) {
    pc_wide_name(a->message.unicode, out, len);
  } else if (a->messageType == NVTX_MESSAGE_TYPE_REGISTERED) {
    snprintf(out, len, "%s", "(registered string)"); /* the handle's text is not tracked */
  } else {
    snprintf(out, len, "%s", "(unnamed range)");
  }
}

/* Ranges of the default domain only: named domains (libraries annotate
 * themselves that way, on their own stacks) are not regions.  Push/pop
 * ranges are a thread's; start/end ranges the process's, matched by the id
 * NVTX returned at their start (CUpti_NvtxData.functionReturnValue). */
static void pc_on_nvtx(CUpti_CallbackId cbid, const void *data) {
  const CUpti_NvtxData *d = data;
  const void *p = d ? d->functionParams : NULL;
  char name[256];
  enum { PC_NV_PUSH, PC_NV_POP, PC_NV_START, PC_NV_END } what = PC_NV_PUSH;
  uint64_t id = 0;
  switch (cbid) {
    case CUPTI_CBID_NVTX_nvtxRangePushA: {
      const nvtxRangePushA_params *q = p;
      snprintf(name, sizeof name, "%s", q && q->message ? q->message : "(unnamed range)");
      break;
    }
    case CUPTI_CBID_NVTX_nvtxRangePushW: {
      const nvtxRangePushW_params *q = p;
      if (q && q->message)
        pc_wide_name(q->message, name, sizeof name);
      else
        snprintf(name, sizeof name, "%s", "(unnamed range)");
      break;
    }
    case CUPTI_CBID_NVTX_nvtxRangePushEx: {
      const nvtxRangePushEx_params *q = p;
      pc_attr_name(q ? q->eventAttrib : NULL, name, sizeof name);
      break;
    }
    case CUPTI_CBID_NVTX_nvtxDomainRangePushEx: {
      const nvtxDomainRangePushEx_params *q = p;
      if (!q || q->domain) return;
      pc_attr_name(q->core.eventAttrib, name, sizeof name);
      break;
    }
    case CUPTI_CBID_NVTX_nvtxRangePop:
      what = PC_NV_POP;
      break;
    case CUPTI_CBID_NVTX_nvtxDomainRangePop: {
      const nvtxDomainRangePop_params *q = p;
      if (q && q->domain) return;
      what = PC_NV_POP;
      break;
    }
    case CUPTI_CBID_NVTX_nvtxRangeStartA: {
      const nvtxRangeStartA_params *q = p;
      snprintf(name, sizeof name, "%s", q && q->message ? q->message : "(unnamed range)");
      what = PC_NV_START;
      break;
    }
    case CUPTI_CBID_NVTX_nvtxRangeStartW: {
      const nvtxRangeStartW_params *q = p;
      if (q && q->message)
        pc_wide_name(q->message, name, sizeof name);
      else
        snprintf(name, sizeof name, "%s", "(unnamed range)");
      what = PC_NV_START;
      break;
    }
    case CUPTI_CBID_NVTX_nvtxRangeStartEx: {
      const nvtxRangeStartEx_params *q = p;
      pc_attr_name(q ? q->eventAttrib : NULL, name, sizeof name);
      what = PC_NV_START;
      break;
    }
    case CUPTI_CBID_NVTX_nvtxDomainRangeStartEx: {
      const nvtxDomainRangeStartEx_params *q = p;
      if (!q || q->domain) return;
      pc_attr_name(q->core.eventAttrib, name, sizeof name);
      what = PC_NV_START;
      break;
    }
    case CUPTI_CBID_NVTX_nvtxRangeEnd: {
      const nvtxRangeEnd_params *q = p;
      if (!q) return;
      id = (uint64_t)q->id;
      what = PC_NV_END;
      break;
    }
    case CUPTI_CBID_NVTX_nvtxDomainRangeEnd: {
      const nvtxDomainRangeEnd_params *q = p;
      if (!q || q->domain) return;
      id = (uint64_t)q->core.id;
      what = PC_NV_END;
      break;
    }
    default:
      return;
  }
  if (what == PC_NV_START && d->functionReturnValue) id = (uint64_t) * (const nvtxRangeId_t *)d->functionReturnValue;
  if (what == PC_NV_PUSH && pc_gpu_g.hooks.range_push)
    pc_gpu_g.hooks.range_push(name);
  else if (what == PC_NV_POP && pc_gpu_g.hooks.range_pop)
    pc_gpu_g.hooks.range_pop();
  else if (what == PC_NV_START && pc_gpu_g.hooks.range_start)
    pc_gpu_g.hooks.range_start(id, name);
  else if (what == PC_NV_END && pc_gpu_g.hooks.range_end)
    pc_gpu_g.hooks.range_end(id);
}

void CUPTIAPI pc_capture_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                  const void *data) {
  (void)userdata; /* &pc_gpu_g: the callbacks reach the collector through it */
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    const CUpti_CallbackData *cb = data;
    int begin;
    if (pc_capture_cbid(cbid, &begin)) {
      pc_on_capture(begin, cb);
      return;
    }
    if (cb->callbackSite == CUPTI_API_ENTER) {
      if (!atomic_load_explicit(&pc_gpu_g.col, memory_order_relaxed)) return; /* the one load */
      pc_launch_enter(cbid, cb);
    } else {
      pc_launch_exit(cb);
    }
  } else if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    pc_on_resource(cbid, data);
  } else if (domain == CUPTI_CB_DOMAIN_STATE) {
    pc_on_state(cbid, data);
  } else if (domain == CUPTI_CB_DOMAIN_NVTX) {
    if (!atomic_load(&pc_gpu_g.nvtx_on)) return;
    pc_collector *c = pc_enter();
    if (!c) return;
    pc_on_nvtx(cbid, data);
    pc_leave();
  }
}

/* ---- subscribing ------------------------------------------------------------------------ */

perfcheck_status pc_capture_start(pc_err *err) {
  pc_err_clear(err);
  perfcheck_status st = pc_capture_cupti_usable(err);
  if (st != PERFCHECK_OK) return st;
  if (atomic_load(&pc_gpu_g.subscribed)) return PERFCHECK_OK; /* idempotent */
  if (pc_cupti_load(err) != PERFCHECK_OK) return PERFCHECK_ERROR_CUPTI_UNAVAILABLE;
  (void)pc_demangler(); /* looked up once, outside callbacks */

  char old[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN * 2] = "";
  CUpti_SubscriberParams sp;
  memset(&sp, 0, sizeof sp);
  sp.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
  sp.subscriberName = "libperfcheck";
  sp.oldSubscriberName = old;
  sp.oldSubscriberSize = sizeof old;
  CUpti_SubscriberHandle sub = NULL;
  pc_err e;
  CUptiResult r = PC_CUPTI(&e, cuptiSubscribe_v2, &sub, pc_capture_callback, &pc_gpu_g, &sp);
  if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED || r == CUPTI_ERROR_MAX_LIMIT_REACHED) {
    /* No further CUPTI call in this process, not even for the error text:
     * after a 39 a later CUPTI call crashed the host program (§11). */
    old[sizeof old - 1] = '\0';
    pc_cupti_poison(old[0] ? old : NULL);
    return pc_err_set(err, PERFCHECK_ERROR_CUPTI_IN_USE,
                      "cuptiSubscribe_v2: CUPTI is in use by %s (error %d): run without the other tool "
                      "(ncu, nsys, compute-sanitizer, cuda-gdb) or disable the framework's profiler",
                      pc_cupti_holder(), (int)r);
  }
  if (r != CUPTI_SUCCESS)
    return pc_err_set(err, r == CUPTI_ERROR_NOT_INITIALIZED ? PERFCHECK_ERROR_DRIVER_TOO_OLD : PERFCHECK_ERROR_CUPTI_UNAVAILABLE,
                      "%s (%d)", e.msg, (int)r);

  static const CUpti_CallbackId driver_ids[] = {
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,           CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,         CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,            CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
      /* Stream capture: launches into a capturing stream do not run. */
      CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture,     CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2,  CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph, CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture,       CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz,
  };
  static const CUpti_CallbackId resource_ids[] = {
      CUPTI_CBID_RESOURCE_CONTEXT_CREATED,
      CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING,
      CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING,
  };
  const char *what = NULL;
  for (size_t i = 0; !what && i < sizeof driver_ids / sizeof driver_ids[0]; i++)
    if ((r = PC_CUPTI(&e, cuptiEnableCallback, 1, sub, CUPTI_CB_DOMAIN_DRIVER_API, driver_ids[i])) != CUPTI_SUCCESS)
      what = "driver launch callback";
  for (size_t i = 0; !what && i < sizeof resource_ids / sizeof resource_ids[0]; i++)
    if ((r = PC_CUPTI(&e, cuptiEnableCallback, 1, sub, CUPTI_CB_DOMAIN_RESOURCE, resource_ids[i])) != CUPTI_SUCCESS)
      what = "resource callback";
  if (!what && (r = PC_CUPTI(&e, cuptiEnableCallback, 1, sub, CUPTI_CB_DOMAIN_STATE, CUPTI_CBID_STATE_FATAL_ERROR)) !=
                   CUPTI_SUCCESS)
    what = "state callback";
  if (what) {
    pc_err_set(err, PERFCHECK_ERROR_CUPTI_UNAVAILABLE, "%s (%s, %d)", e.msg, what, (int)r);
    (void)PC_CUPTI(NULL, cuptiUnsubscribe, sub);
    return PERFCHECK_ERROR_CUPTI_UNAVAILABLE;
  }
  pc_gpu_g.sub = sub;
  atomic_store(&pc_gpu_g.subscribed, 1);
  return PERFCHECK_OK;
}

void pc_capture_unsubscribe(void) {
  atomic_store(&pc_gpu_g.nvtx_on, 0);
  atomic_store(&pc_gate_fn, NULL);
  if (atomic_exchange(&pc_gpu_g.subscribed, 0)) (void)PC_CUPTI(NULL, cuptiUnsubscribe, pc_gpu_g.sub); /* refused after a 39 */
  pc_gpu_g.sub = NULL;
}

/* Push/pop and start/end ranges (pc_on_nvtx). */
static const CUpti_CallbackId pc_nvtx_ids[] = {
    CUPTI_CBID_NVTX_nvtxRangePushA,        CUPTI_CBID_NVTX_nvtxRangePushW,     CUPTI_CBID_NVTX_nvtxRangePushEx,
    CUPTI_CBID_NVTX_nvtxRangePop,          CUPTI_CBID_NVTX_nvtxDomainRangePushEx,
    CUPTI_CBID_NVTX_nvtxDomainRangePop,    CUPTI_CBID_NVTX_nvtxRangeStartA,    CUPTI_CBID_NVTX_nvtxRangeStartW,
    CUPTI_CBID_NVTX_nvtxRangeStartEx,      CUPTI_CBID_NVTX_nvtxRangeEnd,       CUPTI_CBID_NVTX_nvtxDomainRangeStartEx,
    CUPTI_CBID_NVTX_nvtxDomainRangeEnd,
};

perfcheck_status pc_capture_nvtx_enable(int on, pc_err *err) {
  pc_err_clear(err);
  if (!atomic_load(&pc_gpu_g.subscribed) || pc_cupti_blocked())
    return pc_err_set(err, PERFCHECK_ERROR_CUPTI_UNAVAILABLE, "NVTX callbacks: the capture is not started");
  pc_err e;
  if (!on) atomic_store(&pc_gpu_g.nvtx_on, 0);
  for (size_t i = 0; i < sizeof pc_nvtx_ids / sizeof pc_nvtx_ids[0]; i++) {
    CUptiResult r = PC_CUPTI(&e, cuptiEnableCallback, on ? 1 : 0, pc_gpu_g.sub, CUPTI_CB_DOMAIN_NVTX, pc_nvtx_ids[i]);
    if (r != CUPTI_SUCCESS && on) {
      for (size_t j = 0; j < i; j++)
        (void)PC_CUPTI(NULL, cuptiEnableCallback, 0, pc_gpu_g.sub, CUPTI_CB_DOMAIN_NVTX, pc_nvtx_ids[j]);
      return pc_err_set(err, PERFCHECK_ERROR_CUPTI_UNAVAILABLE, "%s (NVTX, %d)", e.msg, (int)r);
    }
  }
  if (on) atomic_store(&pc_gpu_g.nvtx_on, 1);
  return PERFCHECK_OK;
}
