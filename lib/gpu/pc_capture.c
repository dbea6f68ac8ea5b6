/*
 * pc_capture.c: the one CUPTI subscriber ("libperfcheck") and its callbacks.
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
 *           (pc_capture_set_nvtx_hook): its NVTX ranges become regions.
 * The runtime launch ids (cudaLaunchKernel*, __cudaLaunchKernel_v13000, ...)
 * are left off on purpose: on the H200 every runtime launch reached the
 * driver's cuLaunchKernel callback with the same correlation id (§11), so
 * subscribing to them would only add host time to every launch (callbacks on
 * whole domains cost +1.1 us per launch there, launch ids only +0.4 us).
 * TO VERIFY ON THE GPU: every <<<>>> launch is counted exactly once.
 *
 * What lives where.  This file holds the subscription, the callbacks, the
 * locks and the region list; the tables they fill are pure C in lib/core,
 * tested on a CPU: the launch log and its hash map (pc_launchlog.c), the
 * names, signatures and contexts (pc_sigtab.c) and the selection policy
 * (pc_select.c).  This file owns one of each (pc_cap) under the gpu lock.
 *
 * The hot path.  While no session is active a launch costs one atomic load.
 * Inside a session the ENTER callback reads the parameters (no CUDA call:
 * CUDA calls inside callbacks are unsupported), maps (function, context,
 * grid, block, dynamic smem) to a signature id through two small hash maps
 * (the kernel name is copied from symbolName the first time a handle is
 * seen), and, inside a region, appends a 16-byte launch record
 * {correlation id, signature, region, flags} to the launch log, a hash table
 * keyed by correlation id that the activity decoder empties as kernel records
 * arrive.  So the log holds only launches whose kernel has not been decoded
 * yet, and stays small however many launches a region makes.
 *
 * `f` in cuLaunchKernel's parameters is a CUkernel, not a CUfunction, for
 * <<<>>> launches (§11); it is kept as an opaque handle here and resolved
 * by pc_funcinfo at region end.
 *
 * Graph launches get a record {correlation id, GRAPH, region}; the graph's
 * kernels arrive as activity records that all carry that one correlation id
 * and are matched by name and geometry; their function handle comes from the
 * name table filled by earlier launch callbacks (stream capture included).
 *
 * Counters.  The range profiler is context-level: while one launch is being
 * range-profiled no other kernel may run, or it would be auto-ranged too.  A
 * process-wide rwlock (writer-preferring) enforces it: a profiled launch
 * holds it exclusively from ENTER to EXIT, every other launch holds it shared
 * from ENTER to EXIT, and only while counters are on.  A thread-local depth
 * keeps a launch nested inside one of ours (e.g. issued by a library from our
 * own call) from taking the lock twice.  Graph launches are never profiled
 * (auto range + kernel replay left a graph kernel unwritten on the H200).
 *
 * Locks owned here, in the order they are taken (after the session lock):
 *   1. pc_launch_rw, the launch rwlock: a profiled launch holds it
 *      exclusively from ENTER to EXIT (across the counter layer's CUPTI calls:
 *      that is its purpose), every other launch shared, only while counters
 *      are on;
 *   2. pc_gpu_mu, the gpu lock: every table here (pc_cap) and pc_activity.c's
 *      store.  Memory work only: never held across a CUPTI or driver call
 *      (CUPTI may call the buffer-request callback from any CUDA call, and
 *      that callback decodes under this lock).  Leaves taken under it: none.
 * Everything else shared is an atomic (pc_active, pc_counters, ...) or
 * thread-local (the launch depth, the ENTER time, the "our own launch" flag).
 *
 * Teardown safety.  Callbacks count themselves in `pc_inflight` while they
 * touch shared state; pc_capture_stop clears `pc_active`, takes the rwlock
 * once exclusively (so every profiled launch finished its EXIT and no later
 * launch starts profiling), waits for `pc_inflight` to drain, and only then
 * unsubscribes and frees.
 */
#define _GNU_SOURCE /* RTLD_DEFAULT, pthread_rwlockattr_setkind_np */
#include "pc_capture.h"

#include <cupti.h> /* brings generated_cuda_meta.h: the launch parameter structs */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/pc_launchlog.h"
#include "../core/pc_regions.h"
#include "../core/pc_sigtab.h"
#include "pc_cuda.h"
#include "pc_funcinfo.h"
#include "pc_call.h"

/* The id goes into pc_kspan.group shifted by PC_KSPAN_SHIFT. */
#define PC_SIG_MAX (1u << (32 - PC_KSPAN_SHIFT))

/* ---- locks and flags --------------------------------------------------------- */

static pthread_mutex_t pc_gpu_mu = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local int pc_gpu_held;

void pc_gpu_lock(void) {
  pthread_mutex_lock(&pc_gpu_mu);
  pc_gpu_held = 1;
}
void pc_gpu_unlock(void) {
  pc_gpu_held = 0;
  pthread_mutex_unlock(&pc_gpu_mu);
}
int pc_gpu_lock_held(void) { return pc_gpu_held; }

static pthread_rwlock_t pc_launch_rw;
static pthread_once_t pc_launch_rw_once = PTHREAD_ONCE_INIT;
static void pc_launch_rw_init(void) {
  pthread_rwlockattr_t a;
  pthread_rwlockattr_init(&a);
  /* Writer preference: a launch waiting to be profiled must not starve
   * behind a stream of launches from other threads. */
  pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
  pthread_rwlock_init(&pc_launch_rw, &a);
  pthread_rwlockattr_destroy(&a);
}

static atomic_int pc_active;        /* callbacks do anything at all */
static atomic_int pc_counters;      /* profile launches */
static atomic_int pc_refusal;       /* counters were refused in a callback: note it */
static atomic_int pc_fatal;         /* CUPTI reported a fatal error */
static atomic_int pc_inflight;      /* callbacks inside our code */
static atomic_uint pc_cur_region;   /* innermost open region, 0: none */

/* Injection hooks (pc_capture.h); NULL in a linked program. */
static _Atomic(pc_capture_ctx_fn) pc_ctx_created_fn, pc_ctx_destroying_fn;
static _Atomic(pc_capture_nvtx_fn) pc_nvtx_fn;
static _Atomic(int (*)(void)) pc_gate_fn;

static _Thread_local int pc_tl_depth;    /* launch callbacks of ours open on this thread */
static _Thread_local uint64_t pc_tl_enter_ts; /* ENTER time of this thread's profiled launch */
static _Thread_local int pc_tl_internal; /* our own benchmark launches */

/* correlationData from ENTER to EXIT: a magic in the high half, so that EXIT
 * acts only on launches whose ENTER it saw, and what ENTER did. */
#define PC_CD_MAGIC 0x7063686b00000000ull /* "pchk" */
#define PC_CD_MAGIC_MASK 0xffffffff00000000ull
enum { PC_CD_HOLD = 1u, PC_CD_PROFILED = 2u, PC_CD_RECORDED = 4u };

static char pc_fatal_msg[256];

/* CUPTI answered 39 once (here, or in the counter layer: the one flag of
 * pc_call.h): no further CUPTI call in this process. */
int pc_capture_cupti_unusable(char *holder, size_t len) {
  const int dead = pc_cupti_blocked();
  if (dead && holder && len) snprintf(holder, len, "%s", pc_cupti_holder());
  return dead;
}

/* ---- tables ----------------------------------------------------------------------- */

/* A profiled launch, from its ENTER until its region (or, once handed up,
 * the outermost region it counts for) ends. */
typedef struct pc_prof {
  uint32_t corr, sig, region;
  uint32_t inherited;   /* handed up by a nested region: its interval only */
  uint64_t enter_ts;    /* cuptiGetTimestamp before the counter layer's ENTER work */
  uint64_t exit_ts;     /* cuptiGetTimestamp after the launch (and its replay) */
  pc_snap_profiled *res; /* the counter result, once collected (values, extra) */
} pc_prof;

/* A stream being captured into a graph: launches into it do not run.  The
 * per-thread default stream (handles 0 and 2) is one stream per thread. */
typedef struct pc_capstream {
  CUstream stream;
  pthread_t thread;
  int per_thread;
} pc_capstream;

static struct {
  CUpti_SubscriberHandle sub;
  int subscribed;
  pc_sigtab tab;         /* names, signatures, contexts (pc_sigtab.h) */
  pc_ltab launches;      /* the launch log (pc_launchlog.h) */
  pc_prof *prof;
  size_t nprof, capprof;
  pc_regions regions;    /* the one region stack (pc_regions.h) */
  pc_capstream *caps;
  size_t ncaps, capcaps;
  uint64_t launch_seq;   /* launches made inside regions */
  uint64_t failed;       /* of those, launches that returned an error */
  pc_rp *rp;             /* the counter layer, NULL: timing only */
  pc_select sel;         /* which launches are profiled (pc_sigtab.h) */
} pc_cap;

static int pc_region_is_open(uint32_t id) { return pc_regions_find(&pc_cap.regions, id) != NULL; }

static void pc_update_current_region(void) { atomic_store(&pc_cur_region, pc_regions_current(&pc_cap.regions)); }

static int pc_is_per_thread_stream(CUstream s) {
  return s == NULL || s == CU_STREAM_PER_THREAD || s == CU_STREAM_LEGACY;
}

static int pc_stream_captured(CUstream s) {
  const int pt = pc_is_per_thread_stream(s);
  for (size_t i = 0; i < pc_cap.ncaps; i++)
    if (pc_cap.caps[i].stream == s && (!pt || pthread_equal(pc_cap.caps[i].thread, pthread_self()))) return 1;
  return 0;
}

static atomic_int pc_capturing; /* stream captures in progress in the process */

static void pc_prof_free_result(pc_prof *p) {
  if (p->res) free(p->res->extra);
  free(p->res);
  p->res = NULL;
}

static void pc_prof_forget(uint32_t corr) {
  for (size_t i = pc_cap.nprof; i-- > 0;)
    if (pc_cap.prof[i].corr == corr) {
      pc_prof_free_result(&pc_cap.prof[i]);
      pc_cap.prof[i] = pc_cap.prof[--pc_cap.nprof];
      return;
    }
}

/* ---- launch callbacks ------------------------------------------------------------- */

typedef struct pc_launch_params {
  void *f;
  CUstream stream;
  unsigned grid[3], block[3], smem;
  unsigned cluster[3];
  int graph;
} pc_launch_params;

/* Reads what we need from the parameter struct of each launch cbid; 0 if
 * the cbid is not ours or the parameters are missing. */
static int pc_read_params(CUpti_CallbackId cbid, const void *params, pc_launch_params *p) {
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
      p->stream = ((const cuGraphLaunch_params *)params)->hStream;
      return 1;
    default:
      return 0;
  }
#undef PC_CLASSIC_
}

static void pc_launch_enter(CUpti_CallbackId cbid, const CUpti_CallbackData *cb) {
  if (pc_tl_internal) return;
  uint64_t *cd = cb->correlationData;
  if (pc_tl_depth > 0) { /* nested inside one of our launches: not recorded, no lock */
    pc_tl_depth++;
    if (cd) *cd = PC_CD_MAGIC;
    return;
  }
  atomic_fetch_add(&pc_inflight, 1);
  if (!atomic_load(&pc_active)) {
    atomic_fetch_sub(&pc_inflight, 1);
    return;
  }
  pc_launch_params p;
  uint32_t flags = 0;
  int profile = 0;
  const char *profile_name = NULL; /* stable until pc_capture_stop, which waits for us */
  const uint32_t corr = cb->correlationId;
  if (pc_read_params(cbid, cb->functionParams, &p)) {
    const int counters = atomic_load(&pc_counters);
    pc_gpu_lock();
    /* A launch into a stream being captured only adds a graph node: it runs
     * at cuGraphLaunch.  Its name is kept (the graph's kernel records find
     * their function by it); it is neither a launch of the region nor
     * profiled. */
    const int captured = pc_cap.ncaps && pc_stream_captured(p.stream);
    const uint32_t region = captured ? 0 : atomic_load(&pc_cur_region);
    const uint32_t ci = pc_sigtab_ctx(&pc_cap.tab, cb->context, cb->contextUid);
    if (ci != PC_NONE) {
      pc_launch rec = {corr, ci, region, PC_L_USED};
      if (p.graph) {
        rec.flags |= PC_L_GRAPH;
      } else {
        uint32_t name = pc_sigtab_handle(&pc_cap.tab, p.f, cb->symbolName);
        uint32_t sig = name == PC_NONE ? PC_NONE : pc_sigtab_sig(&pc_cap.tab, name, ci, p.grid, p.block, p.smem, PC_SIG_MAX);
        if (sig == PC_NONE) {
          rec.flags = 0; /* out of memory: the launch goes unrecorded */
        } else {
          pc_sig *s = &pc_cap.tab.sigs[sig];
          s->f = p.f;
          s->seen_direct = 1;
          if (captured) s->seen_captured = 1;
          if (p.cluster[0] * p.cluster[1] * p.cluster[2] > 1) memcpy(s->cluster, p.cluster, sizeof s->cluster);
          rec.a = sig;
          if (region) {
            s->seen_run = region;
            if (counters) {
              /* No profiling while any stream capture is open, nor outside
               * PERFCHECK_NVTX's ranges (the gate is asked only then). */
              int (*gate)(void) = atomic_load(&pc_gate_fn);
              const pc_not_profiled closed = atomic_load(&pc_capturing) > 0 ? PC_NP_CAPTURE
                                             : (gate && !gate())             ? PC_NP_NVTX
                                                                             : PC_NP_NONE;
              profile = pc_select_decide(&pc_cap.sel, &pc_cap.tab, sig, region,
                                         pc_regions_key(&pc_cap.regions, region), closed);
            } else {
              pc_select_enter_region(s, pc_regions_key(&pc_cap.regions, region));
              if (!s->prof_count) s->np = PC_NP_TIMING;
            }
            if (profile) {
              profile_name = pc_cap.tab.names[name].mangled;
              rec.flags |= PC_L_PROFILED;
              pc_prof pr = {corr, sig, region, 0, 0, 0, NULL};
              if (pc_table_grow((void **)&pc_cap.prof, &pc_cap.capprof, pc_cap.nprof, sizeof *pc_cap.prof) == 0)
                pc_cap.prof[pc_cap.nprof++] = pr;
            }
          }
        }
      }
      if (region && (rec.flags & PC_L_USED) && pc_ltab_put(&pc_cap.launches, &rec) == 0) {
        flags |= PC_CD_RECORDED;
        pc_cap.launch_seq++;
        pc_cap.tab.ctxs[ci].last_launch = pc_cap.launch_seq;
      } else if (profile) { /* unrecorded launches are not profiled */
        pc_cap.tab.sigs[rec.a].prof_count--;
        pc_cap.sel.profiled--;
        pc_prof_forget(corr);
        profile = 0;
      }
    }
    pc_gpu_unlock();

    if (counters && !captured) {
      pthread_once(&pc_launch_rw_once, pc_launch_rw_init);
      if (profile) {
        pthread_rwlock_wrlock(&pc_launch_rw);
        flags |= PC_CD_HOLD;
        /* Everything from here to EXIT is perfcheck's cost but the kernel's
         * own run: the session cuts it out of the region's clock. */
        if (PC_CUPTI(NULL, cuptiGetTimestamp, &pc_tl_enter_ts) != CUPTI_SUCCESS) pc_tl_enter_ts = 0;
        /* Re-check under the exclusive lock: pc_capture_stop clears pc_counters
         * before it takes the lock, so the counter layer is still alive here. */
        if (atomic_load(&pc_counters) &&
            pc_rp_on_launch_enter(pc_cap.rp, cb->context, corr, profile_name) == 0) {
          flags |= PC_CD_PROFILED;
        } else {
          if (atomic_load(&pc_counters)) { /* refused: stop asking, note it once */
            atomic_store(&pc_counters, 0);
            atomic_store(&pc_refusal, 1);
          }
          pc_gpu_lock();
          size_t at = pc_ltab_find(&pc_cap.launches, corr);
          if (at != SIZE_MAX) pc_cap.launches.e[at].flags &= ~PC_L_PROFILED;
          pc_prof_forget(corr);
          uint32_t sig = at != SIZE_MAX ? pc_cap.launches.e[at].a : PC_NONE;
          if (sig != PC_NONE && sig < pc_cap.tab.nsigs) {
            if (pc_cap.tab.sigs[sig].prof_count) pc_cap.tab.sigs[sig].prof_count--;
            if (!pc_cap.tab.sigs[sig].prof_count) pc_cap.tab.sigs[sig].np = PC_NP_TIMING;
          }
          pc_gpu_unlock();
        }
      } else {
        pthread_rwlock_rdlock(&pc_launch_rw);
        flags |= PC_CD_HOLD;
      }
    }
  }
  pc_tl_depth++;
  if (cd) *cd = PC_CD_MAGIC | flags;
  atomic_fetch_sub(&pc_inflight, 1);
}

static void pc_launch_exit(const CUpti_CallbackData *cb) {
  if (pc_tl_depth == 0 || !cb->correlationData) return;
  uint64_t v = *cb->correlationData;
  if ((v & PC_CD_MAGIC_MASK) != PC_CD_MAGIC) return;
  *cb->correlationData = 0;
  pc_tl_depth--;
  if (!(v & (PC_CD_HOLD | PC_CD_PROFILED | PC_CD_RECORDED))) return;
  const int ok = cb->functionReturnValue && *(const CUresult *)cb->functionReturnValue == CUDA_SUCCESS;
  atomic_fetch_add(&pc_inflight, 1);
  /* The counter layer stays alive while we hold the exclusive lock. */
  if (v & PC_CD_PROFILED) {
    pc_rp_on_launch_exit(pc_cap.rp, cb->context, cb->correlationId, ok);
    /* Under kernel replay the activity record of this launch carries no
     * timestamps: the session places the kernel, with its counted duration,
     * just before this moment (nothing else ran: we hold the launch lock). */
    uint64_t ts = 0;
    if (ok && atomic_load(&pc_active) && PC_CUPTI(NULL, cuptiGetTimestamp, &ts) == CUPTI_SUCCESS) {
      pc_gpu_lock();
      for (size_t i = pc_cap.nprof; i-- > 0;)
        if (pc_cap.prof[i].corr == cb->correlationId) {
          pc_cap.prof[i].enter_ts = pc_tl_enter_ts;
          pc_cap.prof[i].exit_ts = ts;
          break;
        }
      pc_gpu_unlock();
    }
  }
  if (!ok && (v & PC_CD_RECORDED) && atomic_load(&pc_active)) {
    /* A failed launch runs no kernel: no record will come for it. */
    pc_gpu_lock();
    size_t at = pc_ltab_find(&pc_cap.launches, cb->correlationId);
    if (at != SIZE_MAX) {
      pc_launch e = pc_cap.launches.e[at];
      pc_ltab_erase(&pc_cap.launches, at);
      pc_cap.failed++;
      if ((e.flags & PC_L_PROFILED) && e.a < pc_cap.tab.nsigs) {
        pc_prof_forget(e.corr);
        pc_sig *s = &pc_cap.tab.sigs[e.a];
        if (s->prof_count) s->prof_count--;
        if (!s->prof_count) s->np = PC_NP_FAILED;
      }
    }
    pc_gpu_unlock();
  }
  if (v & PC_CD_HOLD) pthread_rwlock_unlock(&pc_launch_rw);
  atomic_fetch_sub(&pc_inflight, 1);
}

/* ---- resource and state callbacks ------------------------------------------------- */

typedef struct pc_pending_attr {
  uint32_t sig;
  void *f;
  CUcontext ctx;
  unsigned grid[3], block[3], smem;
} pc_pending_attr;

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
static void pc_on_module_unload(void) {
  pc_pending_attr *todo = NULL;
  size_t ntodo = 0, cap = 0;
  pc_gpu_lock();
  for (size_t i = 0; i < pc_cap.tab.nsigs; i++) {
    pc_sig *s = &pc_cap.tab.sigs[i];
    if (s->attr_state != PC_ATTR_NONE || !s->f || !pc_region_is_open(s->seen_run)) continue;
    if (pc_table_grow((void **)&todo, &cap, ntodo, sizeof *todo)) break;
    pc_pending_attr *t = &todo[ntodo++];
    t->sig = (uint32_t)i;
    t->f = s->f;
    t->ctx = s->ctx < pc_cap.tab.nctxs ? pc_cap.tab.ctxs[s->ctx].ctx : NULL;
    memcpy(t->grid, s->grid, sizeof t->grid);
    memcpy(t->block, s->block, sizeof t->block);
    t->smem = s->smem;
  }
  pc_gpu_unlock();

  for (size_t i = 0; i < ntodo; i++) {
    pc_device d;
    int ord = pc_funcinfo_ctx_ordinal_cached(todo[i].ctx);
    if (!pc_funcinfo_device_cached(ord >= 0 ? ord : 0, &d)) pc_device_init(&d);
    pc_attributes a;
    int is_kernel = 0;
    pc_err why;
    perfcheck_status st = pc_funcinfo_attributes(todo[i].ctx, todo[i].f, 0, todo[i].grid, todo[i].block,
                                                 todo[i].smem, &d, &a, &is_kernel, &why);
    pc_gpu_lock();
    pc_sig *s = &pc_cap.tab.sigs[todo[i].sig];
    if (st == PERFCHECK_OK) {
      s->attr = a;
      s->attr_state = PC_ATTR_OK;
      s->is_kernel = 0;
    } else if (is_kernel) {
      s->is_kernel = 1;
    }
    pc_gpu_unlock();
  }
  free(todo);

  pc_gpu_lock();
  pc_sigtab_forget_handles(&pc_cap.tab);
  pc_gpu_unlock();
}

static void pc_on_resource(CUpti_CallbackId cbid, const void *data) {
  const CUpti_ResourceData *rd = data;
  if (!rd) return;
  if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
    /* Outside the in-flight count: the injection library starts its session
     * here, and a failed start stops the capture, which waits for it. */
    pc_capture_ctx_fn created = atomic_load(&pc_ctx_created_fn);
    if (created) created(rd->context);
  }
  atomic_fetch_add(&pc_inflight, 1);
  if (!atomic_load(&pc_active)) {
    atomic_fetch_sub(&pc_inflight, 1);
    return;
  }
  switch (cbid) {
    case CUPTI_CBID_RESOURCE_CONTEXT_CREATED:
      /* A new context at the address of a destroyed one must not inherit
       * its entry. */
      pc_gpu_lock();
      pc_sigtab_ctx_dead(&pc_cap.tab, rd->context);
      pc_gpu_unlock();
      break;
    case CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING: {
      /* The injection library collects what the context still holds. */
      pc_capture_ctx_fn destroying = atomic_load(&pc_ctx_destroying_fn);
      if (destroying) destroying(rd->context);
      pc_gpu_lock();
      pc_sigtab_ctx_dead(&pc_cap.tab, rd->context);
      pc_gpu_unlock();
      /* The counter layer frees its per-context images (its own lock). */
      if (pc_cap.rp) pc_rp_on_context_destroy(pc_cap.rp, rd->context);
      break;
    }
    case CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING:
      pc_on_module_unload();
      break;
    default:
      break;
  }
  atomic_fetch_sub(&pc_inflight, 1);
}

static void pc_on_state(CUpti_CallbackId cbid, const void *data) {
  if (cbid != CUPTI_CBID_STATE_FATAL_ERROR) return;
  const CUpti_StateData *sd = data;
  if (!atomic_load(&pc_fatal)) {
    snprintf(pc_fatal_msg, sizeof pc_fatal_msg, "CUPTI reported a fatal error (%d): %s",
             sd ? (int)sd->notification.result : -1,
             sd && sd->notification.message ? sd->notification.message : "no detail");
    atomic_store(&pc_fatal, 1);
  }
  /* CUPTI finalizes itself after this: stop recording. */
  atomic_store(&pc_active, 0);
  atomic_store(&pc_counters, 0);
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
  atomic_fetch_add(&pc_inflight, 1);
  if (atomic_load(&pc_active)) {
    pc_gpu_lock();
    if (begin) {
      if (pc_table_grow((void **)&pc_cap.caps, &pc_cap.capcaps, pc_cap.ncaps, sizeof *pc_cap.caps) == 0) {
        pc_capstream *c = &pc_cap.caps[pc_cap.ncaps++];
        c->stream = st;
        c->thread = pthread_self();
        c->per_thread = pc_is_per_thread_stream(st);
      }
      atomic_fetch_add(&pc_capturing, 1);
    } else { /* the capture ends whatever EndCapture returns */
      for (size_t i = 0; i < pc_cap.ncaps; i++)
        if (pc_cap.caps[i].stream == st &&
            (!pc_cap.caps[i].per_thread || pthread_equal(pc_cap.caps[i].thread, pthread_self()))) {
          pc_cap.caps[i] = pc_cap.caps[--pc_cap.ncaps];
          break;
        }
      if (atomic_load(&pc_capturing) > 0) atomic_fetch_sub(&pc_capturing, 1);
    }
    pc_gpu_unlock();
  }
  atomic_fetch_sub(&pc_inflight, 1);
}

void CUPTIAPI pc_capture_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                  const void *data) {
  (void)userdata;
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    const CUpti_CallbackData *cb = data;
    int begin;
    if (pc_capture_cbid(cbid, &begin)) {
      pc_on_capture(begin, cb);
      return;
    }
    if (cb->callbackSite == CUPTI_API_ENTER) {
      if (!atomic_load_explicit(&pc_active, memory_order_relaxed)) return; /* the one load */
      pc_launch_enter(cbid, cb);
    } else {
      pc_launch_exit(cb);
    }
  } else if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    pc_on_resource(cbid, data);
  } else if (domain == CUPTI_CB_DOMAIN_STATE) {
    pc_on_state(cbid, data);
  } else if (domain == CUPTI_CB_DOMAIN_NVTX) {
    atomic_fetch_add(&pc_inflight, 1);
    pc_capture_nvtx_fn fn = atomic_load(&pc_nvtx_fn);
    if (fn && atomic_load(&pc_active)) fn((uint32_t)cbid, data);
    atomic_fetch_sub(&pc_inflight, 1);
  }
}

/* ---- start, stop, state -------------------------------------------------------------- */

static void pc_tables_free(void) {
  pc_sigtab_free(&pc_cap.tab);
  pc_ltab_free(&pc_cap.launches);
  for (size_t i = 0; i < pc_cap.nprof; i++) pc_prof_free_result(&pc_cap.prof[i]);
  free(pc_cap.prof);
  pc_regions_clear(&pc_cap.regions);
  free(pc_cap.caps);
  CUpti_SubscriberHandle sub = pc_cap.sub;
  int subscribed = pc_cap.subscribed;
  const uint32_t last_id = pc_cap.regions.last_id; /* ids stay unique in the process */
  memset(&pc_cap, 0, sizeof pc_cap);
  pc_cap.sub = sub;
  pc_cap.subscribed = subscribed;
  pc_cap.regions.last_id = last_id;
}

perfcheck_status pc_capture_start(pc_err *err) {
  pc_err_clear(err);
  char holder[128];
  if (pc_capture_cupti_unusable(holder, sizeof holder))
    return pc_err_set(err, PERFCHECK_ERROR_CUPTI_IN_USE,
                      "CUPTI is in use by %s; perfcheck makes no further CUPTI call in this process", holder);
  if (pc_cap.subscribed) return PERFCHECK_OK; /* idempotent */
  if (pc_cupti_load(err) != PERFCHECK_OK) return PERFCHECK_ERROR_CUPTI_UNAVAILABLE;
  (void)pc_demangler(); /* looked up once, outside callbacks */
  atomic_store(&pc_active, 0);
  atomic_store(&pc_counters, 0);
  atomic_store(&pc_refusal, 0);
  atomic_store(&pc_cur_region, 0);
  atomic_store(&pc_capturing, 0);
  pc_gpu_lock();
  pc_tables_free();
  pc_gpu_unlock();

  char old[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN * 2] = "";
  CUpti_SubscriberParams sp;
  memset(&sp, 0, sizeof sp);
  sp.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
  sp.subscriberName = "libperfcheck";
  sp.oldSubscriberName = old;
  sp.oldSubscriberSize = sizeof old;
  CUpti_SubscriberHandle sub = NULL;
  pc_err e;
  CUptiResult r = PC_CUPTI(&e, cuptiSubscribe_v2, &sub, pc_capture_callback, NULL, &sp);
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
  pc_cap.sub = sub;
  pc_cap.subscribed = 1;
  return PERFCHECK_OK;
}

void pc_capture_set_counters(const pc_capture_counters *c) {
  pc_gpu_lock();
  memset(&pc_cap.sel, 0, sizeof pc_cap.sel);
  pc_cap.rp = c ? c->rp : NULL;
  if (c) {
    pc_cap.sel.kernel_regex = c->kernel_regex;
    pc_cap.sel.launch_skip = c->launch_skip;
    pc_cap.sel.launch_count = c->launch_count;
    pc_cap.sel.per_signature = c->per_signature;
  }
  if (pc_cap.sel.per_signature == 0) pc_cap.sel.per_signature = 1;
  atomic_store(&pc_counters, pc_cap.rp != NULL);
  pc_gpu_unlock();
}

void pc_capture_set_active(int on) { atomic_store(&pc_active, on ? 1 : 0); }

void pc_capture_stop(void) {
  atomic_store(&pc_active, 0);
  atomic_store(&pc_counters, 0);
  atomic_store(&pc_nvtx_fn, NULL);
  atomic_store(&pc_gate_fn, NULL);
  /* Every profiled launch has run its EXIT once we get the lock; later
   * launches see pc_counters == 0 and do not profile. */
  pthread_once(&pc_launch_rw_once, pc_launch_rw_init);
  pthread_rwlock_wrlock(&pc_launch_rw);
  pthread_rwlock_unlock(&pc_launch_rw);
  while (atomic_load(&pc_inflight) > 0) {
    struct timespec ts = {0, 50000};
    nanosleep(&ts, NULL);
  }
  if (pc_cap.subscribed) (void)PC_CUPTI(NULL, cuptiUnsubscribe, pc_cap.sub); /* refused after a 39 */
  pc_gpu_lock();
  pc_tables_free();
  pc_cap.sub = NULL;
  pc_cap.subscribed = 0;
  pc_gpu_unlock();
  atomic_store(&pc_cur_region, 0);
}

void pc_capture_internal(int on) { pc_tl_internal = on; }

uint32_t pc_capture_current_region(void) { return atomic_load(&pc_cur_region); }
int pc_capture_captures_open(void) { return atomic_load(&pc_capturing); }
int pc_capture_thread_depth(void) { return pc_tl_depth; }

int pc_capture_fatal(char *msg, size_t len) {
  int f = atomic_load(&pc_fatal);
  if (f && msg && len) snprintf(msg, len, "%s", pc_fatal_msg);
  return f;
}

void pc_capture_counters_off(void) { atomic_store(&pc_counters, 0); }
int pc_capture_take_refusal(void) { return atomic_exchange(&pc_refusal, 0); }

/* ---- regions --------------------------------------------------------------------------- */

uint32_t pc_capture_region_push(const char *name, unsigned flags, const pc_region_marks *begin) {
  pc_gpu_lock();
  const uint32_t id = pc_regions_push(&pc_cap.regions, name, flags, begin);
  if (id && (flags & PC_RG_NVTX)) pc_cap.regions.v[pc_cap.regions.n - 1].nvtx_thread = pthread_self();
  pc_update_current_region();
  pc_gpu_unlock();
  return id;
}

void pc_capture_region_pop(uint32_t id, const pc_region_marks *end) {
  pc_gpu_lock();
  pc_regions_close(&pc_cap.regions, id, end);
  pc_update_current_region();
  pc_gpu_unlock();
}

void pc_capture_region_retire_locked(uint32_t id) {
  pc_regions_retire(&pc_cap.regions, id);
  pc_update_current_region();
}

void pc_region_view_free(pc_region_view *v) {
  free(v->name);
  free(v->parent_name);
  v->name = v->parent_name = NULL;
}

int pc_capture_region_view(uint32_t id, pc_region_view *out) {
  memset(out, 0, sizeof *out);
  pc_gpu_lock();
  const pc_open_region *r = pc_regions_find(&pc_cap.regions, id);
  const pc_open_region *up = r && r->parent ? pc_regions_find(&pc_cap.regions, r->parent) : NULL;
  int rc = -1;
  if (r) {
    out->id = r->id;
    out->parent = up ? up->id : 0;
    out->depth = r->depth;
    out->flags = r->flags;
    out->nvtx_here = (r->flags & PC_RG_NVTX) && pthread_equal(r->nvtx_thread, pthread_self());
    out->has_end = r->has_end;
    out->begin = r->begin;
    out->end = r->end;
    out->keep_transfers_from = pc_regions_oldest_begin(&pc_cap.regions, id);
    out->name = pc_strdup(r->name);
    out->parent_name = up ? pc_strdup(up->name) : NULL;
    rc = (!out->name || (up && !out->parent_name)) ? -2 : 0;
  }
  pc_gpu_unlock();
  if (rc == -2) pc_region_view_free(out);
  return rc;
}

uint32_t pc_capture_region_innermost(void) {
  pc_gpu_lock();
  const uint32_t id = pc_regions_innermost(&pc_cap.regions);
  pc_gpu_unlock();
  return id;
}

uint32_t pc_capture_region_next_to_end(void) {
  pc_gpu_lock();
  const uint32_t id = pc_regions_next_to_end(&pc_cap.regions);
  pc_gpu_unlock();
  return id;
}

uint64_t pc_capture_region_launches(void) {
  pc_gpu_lock();
  uint64_t n = pc_cap.launch_seq;
  pc_gpu_unlock();
  return n;
}

uint64_t pc_capture_failed_launches(void) {
  pc_gpu_lock();
  uint64_t n = pc_cap.failed;
  pc_gpu_unlock();
  return n;
}

size_t pc_capture_contexts_since(uint64_t since, CUcontext *out, size_t cap) {
  size_t n = 0;
  pc_gpu_lock();
  for (size_t i = 0; i < pc_cap.tab.nctxs; i++) {
    const pc_ctxent *c = &pc_cap.tab.ctxs[i];
    if (!c->alive || c->last_launch <= since) continue;
    int dup = 0; /* one context may have several entries (new uid) */
    for (size_t j = 0; j < n && j < cap; j++) dup |= out[j] == c->ctx;
    if (dup) continue;
    if (n < cap) out[n] = c->ctx;
    n++;
  }
  pc_gpu_unlock();
  return n;
}

void pc_capture_context_dead(CUcontext ctx) {
  pc_gpu_lock();
  pc_sigtab_ctx_dead(&pc_cap.tab, ctx);
  pc_gpu_unlock();
}

size_t pc_capture_pending(uint32_t id) {
  pc_gpu_lock();
  const size_t n = pc_ltab_pending(&pc_cap.launches, id);
  pc_gpu_unlock();
  return n;
}

size_t pc_capture_purge(uint32_t id) {
  pc_gpu_lock();
  const size_t missing = pc_ltab_purge(&pc_cap.launches, id);
  pc_gpu_unlock();
  return missing;
}

/* ---- activity join ------------------------------------------------------------------------- */

int pc_capture_any_region_locked(void) { return pc_cap.regions.n > 0; }

int pc_capture_join_kernel(const pc_kernel_record *rec, uint32_t *group, uint32_t *region) {
  size_t at = pc_ltab_find(&pc_cap.launches, rec->correlation_id);
  if (at == SIZE_MAX) return 0;
  const pc_launch e = pc_cap.launches.e[at];
  if (!pc_region_is_open(e.region)) {
    pc_ltab_erase(&pc_cap.launches, at);
    return 0;
  }
  uint32_t sig, bits = 0;
  if (e.flags & PC_L_GRAPH) {
    bits |= PC_SNAP_GRAPH;
    /* One correlation id for all of the graph's kernels: keep the entry
     * until the region ends, and find each kernel's signature by name. */
    if (!rec->name) return 0;
    uint32_t name = pc_sigtab_intern(&pc_cap.tab, rec->name);
    if (name == PC_NONE) return 0;
    sig = pc_sigtab_sig(&pc_cap.tab, name, e.a, rec->grid, rec->block, rec->dynamic_smem, PC_SIG_MAX);
    if (sig == PC_NONE) return 0;
    pc_sig *s = &pc_cap.tab.sigs[sig];
    s->seen_graph = 1;
    if (!s->f) s->f = pc_cap.tab.names[name].f_last;
    pc_select_enter_region(s, pc_regions_key(&pc_cap.regions, e.region));
    s->seen_run = e.region;
    if (!s->prof_count) s->np = PC_NP_GRAPH;
    if (s->seen_captured) bits |= PC_SNAP_CAPTURED;
  } else {
    sig = e.a;
    if (e.flags & PC_L_PROFILED) bits |= PC_SNAP_PROFILED;
    pc_ltab_erase(&pc_cap.launches, at);
    if (sig >= pc_cap.tab.nsigs) return 0;
  }
  pc_sig *s = &pc_cap.tab.sigs[sig];
  if (!s->rec_valid) {
    s->rec_valid = 1;
    s->rec_regs = rec->registers;
    s->rec_static = rec->static_smem;
    s->rec_local = rec->local_per_thread;
  }
  *group = (sig << PC_KSPAN_SHIFT) | bits;
  *region = e.region;
  return 1;
}

/* ---- signatures ---------------------------------------------------------------------------- */

void pc_sig_info_free(pc_sig_info *si) {
  if (!si) return;
  free(si->mangled);
  free(si->attr_reason);
  si->mangled = si->attr_reason = NULL;
}

int pc_capture_sig_get(uint32_t sig, pc_sig_info *out) {
  memset(out, 0, sizeof *out);
  pc_gpu_lock();
  if (sig >= pc_cap.tab.nsigs) {
    pc_gpu_unlock();
    return -1;
  }
  const pc_sig *s = &pc_cap.tab.sigs[sig];
  const pc_name *n = &pc_cap.tab.names[s->name];
  /* Copies: the tables may change (a module unload, a later name) once the
   * lock is released. */
  out->mangled = n->mangled ? pc_strdup(n->mangled) : NULL;
  out->attr_reason = s->attr_reason ? pc_strdup(s->attr_reason) : NULL;
  const int oom = (n->mangled && !out->mangled) || (s->attr_reason && !out->attr_reason);
  out->f = s->f;
  out->ctx_index = s->ctx;
  out->ctx = s->ctx < pc_cap.tab.nctxs ? pc_cap.tab.ctxs[s->ctx].ctx : NULL;
  memcpy(out->grid, s->grid, sizeof out->grid);
  memcpy(out->block, s->block, sizeof out->block);
  for (int i = 0; i < 3; i++) out->cluster[i] = s->cluster[i] ? s->cluster[i] : 1;
  out->dynamic_smem = s->smem;
  out->seen_direct = s->seen_direct;
  out->seen_graph = s->seen_graph;
  out->seen_captured = s->seen_captured;
  out->not_profiled = (pc_not_profiled)s->np;
  out->rec_valid = s->rec_valid;
  out->rec_registers = s->rec_regs;
  out->rec_static_smem = s->rec_static;
  out->rec_local = s->rec_local;
  out->attr_state = (pc_attr_state)s->attr_state;
  out->attr = s->attr;
  pc_gpu_unlock();
  if (oom) {
    pc_sig_info_free(out);
    return -1;
  }
  return 0;
}

void pc_capture_sig_set_attr(uint32_t sig, pc_attr_state st, const pc_attributes *a, const char *reason) {
  char *r = reason ? pc_strdup(reason) : NULL;
  pc_gpu_lock();
  if (sig < pc_cap.tab.nsigs) {
    pc_sig *s = &pc_cap.tab.sigs[sig];
    s->attr_state = (uint8_t)st;
    if (a) s->attr = *a;
    free(s->attr_reason);
    s->attr_reason = r;
    r = NULL;
  }
  pc_gpu_unlock();
  free(r);
}

void pc_capture_sig_set_name(uint32_t sig, const char *mangled) {
  if (!mangled) return;
  char *m = pc_strdup(mangled);
  pc_gpu_lock();
  if (sig < pc_cap.tab.nsigs) {
    pc_name *n = &pc_cap.tab.names[pc_cap.tab.sigs[sig].name];
    if (!n->mangled) {
      n->mangled = m;
      m = NULL;
    }
  }
  pc_gpu_unlock();
  free(m);
}

/* ---- profiled launches ---------------------------------------------------------------------- */

int pc_capture_prof_store(uint32_t corr, int passes, const double *values, const double *extra, size_t nextra) {
  pc_snap_profiled *res = calloc(1, sizeof *res);
  double *x = (extra && nextra) ? malloc(nextra * sizeof *x) : NULL;
  if (!res || (extra && nextra && !x)) {
    free(res);
    free(x);
    return -2;
  }
  res->passes = passes;
  for (int i = 0; i < PC_M_COUNT; i++) res->values[i] = values ? values[i] : PC_NULL;
  if (x) memcpy(x, extra, nextra * sizeof *x);
  res->extra = x;
  int found = -1;
  pc_gpu_lock();
  for (size_t i = 0; i < pc_cap.nprof; i++)
    if (pc_cap.prof[i].corr == corr) {
      pc_prof_free_result(&pc_cap.prof[i]);
      pc_cap.prof[i].res = res;
      res = NULL;
      found = 0;
      break;
    }
  pc_gpu_unlock();
  if (res) {
    free(res->extra);
    free(res);
  }
  return found;
}

size_t pc_capture_prof_take(uint32_t region, uint32_t parent, size_t nextra, pc_snap_profiled **out, int *oom) {
  *out = NULL;
  *oom = 0;
  pc_gpu_lock();
  size_t n = 0;
  for (size_t i = 0; i < pc_cap.nprof; i++) n += pc_cap.prof[i].region == region;
  pc_snap_profiled *v = n ? calloc(n, sizeof *v) : NULL;
  if (n && !v) *oom = 1;
  size_t k = 0, keep = 0;
  for (size_t i = 0; i < pc_cap.nprof; i++) {
    pc_prof *p = &pc_cap.prof[i];
    if (p->region != region) {
      pc_cap.prof[keep++] = *p;
      continue;
    }
    if (v) {
      pc_snap_profiled *d = &v[k++];
      d->correlation_id = p->corr;
      d->sig = p->sig; /* the capture's id: the harvest renumbers it */
      d->flags = p->inherited ? PC_SNAP_PROF_INHERITED : 0;
      d->enter_ts = p->enter_ts;
      d->exit_ts = p->exit_ts;
      for (int m = 0; m < PC_M_COUNT; m++) d->values[m] = PC_NULL;
      if (p->res) {
        d->flags |= PC_SNAP_PROF_RESULT;
        d->passes = p->res->passes;
        memcpy(d->values, p->res->values, sizeof d->values);
        if (p->res->extra && nextra && (d->extra = malloc(nextra * sizeof *d->extra)))
          memcpy(d->extra, p->res->extra, nextra * sizeof *d->extra);
      }
    }
    if (parent) { /* the parent's clock must lose this launch's cost too */
      p->region = parent;
      p->inherited = 1;
      pc_cap.prof[keep++] = *p;
    } else {
      pc_prof_free_result(p);
    }
  }
  pc_cap.nprof = keep;
  pc_gpu_unlock();
  *out = v;
  return v ? k : 0;
}

/* ---- injection hooks ---------------------------------------------------------------------- */

void pc_capture_set_context_hooks(pc_capture_ctx_fn created, pc_capture_ctx_fn destroying) {
  atomic_store(&pc_ctx_created_fn, created);
  atomic_store(&pc_ctx_destroying_fn, destroying);
}

/* Push/pop ranges only; start/end ranges (nvtxRangeStart*, which may end on
 * another thread) are not regions. */
static const CUpti_CallbackId pc_nvtx_ids[] = {
    CUPTI_CBID_NVTX_nvtxRangePushA,        CUPTI_CBID_NVTX_nvtxRangePushW,     CUPTI_CBID_NVTX_nvtxRangePushEx,
    CUPTI_CBID_NVTX_nvtxRangePop,          CUPTI_CBID_NVTX_nvtxDomainRangePushEx,
    CUPTI_CBID_NVTX_nvtxDomainRangePop,
};

perfcheck_status pc_capture_set_nvtx_hook(pc_capture_nvtx_fn fn, pc_err *err) {
  pc_err_clear(err);
  if (!pc_cap.subscribed || pc_cupti_blocked())
    return pc_err_set(err, PERFCHECK_ERROR_CUPTI_UNAVAILABLE, "NVTX callbacks: the capture is not started");
  pc_err e;
  if (!fn) atomic_store(&pc_nvtx_fn, NULL);
  for (size_t i = 0; i < sizeof pc_nvtx_ids / sizeof pc_nvtx_ids[0]; i++) {
    CUptiResult r = PC_CUPTI(&e, cuptiEnableCallback, fn ? 1 : 0, pc_cap.sub, CUPTI_CB_DOMAIN_NVTX, pc_nvtx_ids[i]);
    if (r != CUPTI_SUCCESS && fn) {
      for (size_t j = 0; j < i; j++) (void)PC_CUPTI(NULL, cuptiEnableCallback, 0, pc_cap.sub, CUPTI_CB_DOMAIN_NVTX, pc_nvtx_ids[j]);
      return pc_err_set(err, PERFCHECK_ERROR_CUPTI_UNAVAILABLE, "%s (NVTX, %d)", e.msg, (int)r);
    }
  }
  if (fn) atomic_store(&pc_nvtx_fn, fn);
  return PERFCHECK_OK;
}

void pc_capture_set_counter_gate(int (*gate)(void)) { atomic_store(&pc_gate_fn, gate); }
