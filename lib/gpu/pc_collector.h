/*
 * pc_collector.h: what a session measures on the GPU side, as one object
 * with one lock (issue 23), and the one documented global struct of lib/gpu.
 *
 * The collector.  pc_gpu_start creates it and pc_gpu_stop destroys it.  It
 * owns, under its one mutex `mu`:
 *   - the region stack (pc_regions.h): every open region, whoever opened it;
 *   - the launch log (pc_launchlog.h): launches whose kernel record has not
 *     arrived yet, keyed by correlation id;
 *   - the kernel names, launch signatures and contexts (pc_sigtab.h), and
 *     the selection policy (which launches get counters);
 *   - the profiled launches, each with its host interval and, once the
 *     counter layer's EXIT evaluated it, its counter values (stored there
 *     directly: counters make no round trip);
 *   - the activity store: kernel records and transfer spans decoded from
 *     CUPTI's buffers, and the queue and pool of those buffers;
 *   - the stream captures in progress, the state the callbacks noticed
 *     (CUPTI's fatal error, counters refused), the counter layer (pc_rp,
 *     which borrows `mu` for its own lists) and its note.
 * `mu` is held only around memory work: never across a CUPTI or driver call
 * (CUPTI may call the buffer-request callback from any CUDA call, and that
 * callback decodes under `mu`).  No other lock is taken under it.
 *
 * Beside it, the launch gate `gate` (a rwlock that guards no data): the
 * range profiler is context-level, so while a launch is profiled with kernel
 * replay no other kernel may be launched, or CUPTI would range it instead.
 * A profiled launch holds the gate exclusively from ENTER to EXIT (across
 * the counter layer's CUPTI calls: that is its purpose), every other launch
 * holds it shared, and only while counters are on.  Order: gate, then mu.
 *
 * A region's end is one call, pc_collector_take_region: in one locked
 * section the region leaves the stack and everything it collected is copied
 * into a new snapshot, field by field (pc_snapshot.h), and handed to the
 * parent where the parent needs it (busy time, the profiling cut).
 *
 * The global struct (pc_gpu_proc): what must outlive a collector.  CUPTI
 * allows one subscriber per process and the injection library subscribes
 * inside cuInit, before any session; the activity buffer callbacks take no
 * user data; the injection library's hooks stay set across sessions.  Its
 * fields are atomics, set once or swapped whole; the callbacks reach the
 * collector through it (the subscriber's userdata points at it).
 */
#ifndef PC_COLLECTOR_H
#define PC_COLLECTOR_H

#include <cuda.h>
#include <cupti.h>
#include <pthread.h>
#include "base/pc_regex.h"
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "base/pc_core.h"
#include "capture/pc_launchlog.h"
#include "capture/pc_regions.h"
#include "capture/pc_sigtab.h"
#include "report/pc_snapshot.h"
#include "pc_gpu.h"
#include "pc_rangeprof.h"

/* A kernel record's group: (signature << PC_KSPAN_SHIFT) | PC_SNAP_* flags
 * (PROFILED, INHERITED, NOTIME, GRAPH, CAPTURED). */
#define PC_KSPAN_SHIFT 5
#define PC_KSPAN_SIG(group) ((group) >> PC_KSPAN_SHIFT)
#define PC_KSPAN_FLAGS(group) ((group) & ((1u << PC_KSPAN_SHIFT) - 1u))
/* The id goes into pc_kspan.group shifted by PC_KSPAN_SHIFT. */
#define PC_SIG_MAX (1u << (32 - PC_KSPAN_SHIFT))

/* One kernel record in the store: 32 bytes. */
typedef struct pc_kspan {
  uint64_t start, end;          /* 0 and 0 with PC_SNAP_NOTIME */
  uint32_t group, region;
  uint32_t corr;                /* correlation id */
  uint32_t stream;              /* CUPTI's stream id */
} pc_kspan;

/* A profiled launch, from its ENTER until its region (or, once handed up,
 * the outermost region it counts for) ends. */
typedef struct pc_prof {
  uint32_t corr, sig, region;
  uint32_t inherited;           /* handed up by a nested region: its interval only */
  uint32_t cut_only;            /* not a launch: perfcheck's host time inside the program's
                                   call (pc_collector_host_cut); corr 0, sig unused */
  uint64_t enter_ts, exit_ts;   /* cuptiGetTimestamp around the counter layer's work */
  int has_result;
  pc_rp_result_store res;       /* the counter result, once the EXIT evaluated it */
} pc_prof;

/* A stream being captured into a graph: launches into it do not run. */
typedef struct pc_capstream {
  CUstream stream;
  pthread_t thread;
  int per_thread;
} pc_capstream;

typedef struct pc_span_array {
  pc_span *v;
  size_t n, cap;
} pc_span_array;

/* An activity buffer CUPTI handed back, waiting to be decoded. */
typedef struct pc_qbuf {
  uint8_t *buf;
  size_t valid;
} pc_qbuf;
#define PC_ACT_POOL_MAX 4

typedef struct pc_collector {
  pthread_mutex_t mu;           /* the one lock: every field below but the atomics and `gate` */
  pthread_rwlock_t gate;        /* the launch gate (see above) */

  atomic_int active;            /* callbacks record anything at all */
  atomic_int counters;          /* launches are profiled */
  atomic_int refusal;           /* counters were refused in a callback: note it once */
  atomic_int fatal;             /* CUPTI reported a fatal error */
  atomic_uint cur_region;       /* innermost open region, 0: none */
  atomic_int capturing;         /* stream captures in progress in the process */
  /* Graph launches' one-pass groups (sel.graph_groups): 0 not asked yet
   * (they are split at the first graph launch that could be profiled, under
   * the exclusive gate), 1 known, -1 not to be had (graph_note says why). */
  atomic_int graph_groups_state;
  atomic_ullong dropped;        /* activity records lost (CUPTI's count and ours) */
  atomic_ullong zero_ts;        /* unprofiled kernel records without timestamps */

  pc_sigtab tab;                /* names, signatures, contexts */
  pc_ltab launches;             /* the launch log */
  pc_prof *prof;
  size_t nprof, capprof;
  pc_regions regions;           /* the one region stack */
  pc_capstream *caps;
  size_t ncaps, capcaps;
  uint64_t launch_seq;          /* launches made inside regions */
  uint64_t failed;              /* of those, launches that returned an error */
  pc_select sel;                /* which launches are profiled */
  pc_rp *rp;                    /* the counter layer; NULL: timing only */
  int counters_asked;           /* counters were asked for (not timing mode) */
  char note[900];               /* why counters are off although asked for */
  char fatal_msg[300];
  char graph_note[600];         /* why graph launches get no counters ("" none) */
  int graph_note_given;         /* it went into a snapshot's notes */
  uint64_t rp_dropped;          /* ranges the counter layer lost */
  uint64_t tool_kernels;        /* kernel records a tool launched inside a graph launch's callback, dropped */

  /* The activity store. */
  pc_kspan *kernels;
  size_t nkernels, capkernels;
  pc_span_array memcpys, memsets;
  pc_qbuf *queue;
  size_t nqueue, capqueue;
  uint8_t *pool[PC_ACT_POOL_MAX];
  size_t npool;
  size_t nbuffers;              /* handed out and not freed */
} pc_collector;

/* ---- the global struct ------------------------------------------------------------ */

typedef struct pc_gpu_proc {
  _Atomic(pc_collector *) col;  /* the session's collector; NULL between sessions */
  atomic_int inflight;          /* callbacks inside our code (teardown waits for 0) */
  atomic_int subscribed;
  CUpti_SubscriberHandle sub;   /* written once, before `subscribed` */
  atomic_int registered;        /* activity buffer callbacks registered */
  atomic_int kinds_on;          /* the activity kinds are enabled */
  atomic_int keep;              /* process exit under injection: never unsubscribe */
  atomic_int exiting;           /* pc_gpu_mark_exit */
  pc_gpu_inject_hooks hooks;    /* set once by the injection library, before subscribing */
  atomic_int nvtx_on;           /* NVTX callbacks enabled and forwarded to hooks */
} pc_gpu_proc;

extern pc_gpu_proc pc_gpu_g;

/* ---- the collector's life --------------------------------------------------------- */

/* A new collector (inactive, no counters); NULL on out of memory. */
pc_collector *pc_collector_new(void);
/* Frees it: the caller made sure no callback can reach it any more
 * (pc_gpu_g.col cleared, the gate taken once, inflight drained). */
void pc_collector_free(pc_collector *c);
/* Makes c the one the callbacks reach (NULL: none); returns the previous. */
pc_collector *pc_collector_install(pc_collector *c);
/* The installed collector, or NULL. */
static inline pc_collector *pc_collector_current(void) { return atomic_load(&pc_gpu_g.col); }

static inline void pc_col_lock(pc_collector *c) { pthread_mutex_lock(&c->mu); }
static inline void pc_col_unlock(pc_collector *c) { pthread_mutex_unlock(&c->mu); }

/* Counter selection (ncu's -k -s -c, plus per-signature).  rp NULL: timing
 * only.  The regex is borrowed until the collector is freed. */
typedef struct pc_collector_counters {
  pc_rp *rp;
  int asked;                    /* counters were asked for */
  const char *note;             /* why they are off although asked for */
  const pc_regex *kernel_regex;
  uint64_t launch_skip;
  uint64_t launch_count;        /* 0: no limit */
  unsigned per_signature;       /* >= 1 */
  unsigned rotate_groups;       /* rotation: profiled launches per set (pc_rp_groups); 0 kernel replay */
} pc_collector_counters;
/* Graph launches rotate over the set's one-pass groups in every replay
 * mode (issue 21 item 4): with rotation on they are known at creation; in
 * kernel-replay mode they are split at the first graph launch that could be
 * profiled (pc_rp_graph_groups: host API, cached across processes), here,
 * under the exclusive launch gate.  Call without the collector's lock. */
void pc_collector_graph_groups(pc_collector *c);
void pc_collector_set_counters(pc_collector *c, const pc_collector_counters *cc);

/* ---- regions (each takes mu) ------------------------------------------------------- */

uint32_t pc_collector_region_push(pc_collector *c, const char *name, unsigned flags, const pc_region_marks *begin);
/* Launches go to the parent from now on; records of the region's launches
 * are still accepted until it is taken.  end (may be NULL): the marks of an
 * end made now (an NVTX pop). */
void pc_collector_region_pop(pc_collector *c, uint32_t id, const pc_region_marks *end);

/* A copy of a region's entry, with what its end needs. */
typedef struct pc_region_view {
  uint32_t id, parent;          /* parent: 0 when none is still open */
  int depth;
  unsigned flags;               /* PC_RG_* */
  int nvtx_here;                /* the session pushed an NVTX range for it on this thread */
  int has_end;
  pc_region_marks begin, end;
  uint64_t keep_transfers_from; /* the oldest other open region's begin; UINT64_MAX none */
  char *name, *parent_name;     /* the caller's (pc_region_view_free) */
} pc_region_view;
/* PERFCHECK_OK, PERFCHECK_ERROR_NO_REGION, PERFCHECK_ERROR_OUT_OF_MEMORY. */
perfcheck_status pc_collector_region_view(pc_collector *c, uint32_t id, pc_region_view *out, pc_err *err);
void pc_region_view_free(pc_region_view *v);
uint32_t pc_collector_region_innermost(pc_collector *c);
uint32_t pc_collector_region_next_to_end(pc_collector *c);
/* Launch calls made inside any region so far, and of those the failed ones
 * (counters: take differences). */
void pc_collector_launch_counts(pc_collector *c, uint64_t *launches, uint64_t *failed);
/* Contexts that launched inside a region since region-launch count `since`
 * and are still alive; returns how many (at most cap written). */
size_t pc_collector_contexts_since(pc_collector *c, uint64_t since, CUcontext *out, size_t cap);
void pc_collector_context_dead(pc_collector *c, CUcontext ctx);
/* Launches of region `id` whose kernel record has not arrived (graph
 * launches not counted: their kernel count is unknown). */
size_t pc_collector_pending(pc_collector *c, uint32_t id);

/* The one locked section of a region's end: the region leaves the stack;
 * its launch-log entries are purged (the count of launches that never got a
 * record goes to snap->missing_records); its kernel records, the transfers
 * overlapping [begin, end_ts], its profiled launches (with their counter
 * values; snap->nextra must be set) and copies of the signatures they name
 * (names, configuration, cached attributes or the activity record's facts)
 * and of their contexts (device -1) are copied into *snap, field by field;
 * the kernel records and profiled launches are handed to the parent
 * (flagged inherited) when there is one.  What needs the driver is left to
 * the caller, outside the lock, in *tk: each snapshot signature's handle and
 * whether its attributes are still to be read, each snapshot context's
 * handle.  Returns PERFCHECK_OK or PERFCHECK_ERROR_OUT_OF_MEMORY (the region
 * is gone either way; snap->spans_lost is set). */
typedef struct pc_sig_handle {
  uint32_t gid;                 /* the collector's signature id */
  void *f;                      /* CUfunction or CUkernel; NULL none */
  CUcontext ctx;
  uint32_t ctx_index;           /* the collector's context entry */
  int direct;                   /* launched in the region itself */
  pc_attr_state attr_state;     /* the cache's state when taken */
} pc_sig_handle;
typedef struct pc_taken {
  pc_sig_handle *sigs;          /* one per snapshot signature */
  size_t nsigs;
  CUcontext *ctxs;              /* one per snapshot context */
} pc_taken;
perfcheck_status pc_collector_take_region(pc_collector *c, const pc_region_view *g, uint64_t end_ts,
                                          pc_snapshot *snap, pc_taken *tk, pc_err *err);
void pc_taken_free(pc_taken *tk);
/* Forgets region id without collecting anything. */
void pc_collector_drop_region(pc_collector *c, uint32_t id);

/* ---- signatures (each takes mu) ------------------------------------------------------ */

/* Stores the attributes of a signature (state OK or UNAVAILABLE with a
 * reason, copied), and a name for one whose launch gave none. */
void pc_collector_sig_set_attr(pc_collector *c, uint32_t gid, pc_attr_state st, const pc_attributes *a,
                               const char *reason);
void pc_collector_sig_set_name(pc_collector *c, uint32_t gid, const char *mangled);

/* ---- the activity join and store (mu held by the caller) ----------------------------- */

typedef struct pc_kernel_record {
  uint32_t correlation_id;
  const char *name;             /* mangled; CUPTI's string */
  unsigned grid[3], block[3];
  unsigned dynamic_smem, static_smem;
  unsigned registers;
  unsigned local_per_thread;
  uint32_t graph_id;            /* a graph kernel's graph and node (activity record); 0: none */
  uint64_t graph_node;
} pc_kernel_record;

/* Finds the launch of a kernel record.  Returns 1 with *group and *region
 * set when the launch was made inside a region whose records are still
 * accepted; 0 when the record is to be dropped.  A graph launch's entry
 * (PC_L_GRAPH) names the graph signature (pc_sigtab_graph), whose context
 * is its kernels'; it stays until the region ends (one correlation id for
 * all of the graph's kernels). */
int pc_collector_join_kernel_locked(pc_collector *c, const pc_kernel_record *rec, uint32_t *group,
                                    uint32_t *region);
/* Appends one kernel record, or one transfer span (memsets: 1 for a memset,
 * 0 for a copy; kept only while a region is open).  -1 on out of memory. */
int pc_collector_store_kernel_locked(pc_collector *c, const pc_kspan *k);
int pc_collector_store_transfer_locked(pc_collector *c, int memsets, const pc_span *s);

/* ---- profiled launches (each takes mu) ------------------------------------------------ */

/* Stores the counter layer's result for profiled launch corr (moved in: the
 * caller's copy is emptied).  -1 when no profiled launch has that id. */
int pc_collector_prof_store(pc_collector *c, uint32_t corr, pc_rp_result_store *res);
/* The same, as pc_rp_drain's store (arg: the collector). */
int pc_collector_prof_store_cb(void *c, uint32_t corr, pc_rp_result_store *res);
/* perfcheck's own host time [t0, t1] (cuptiGetTimestamp) inside a call of
 * the program that profiled nothing: a session spanning launches closed in
 * a launch that is not profiled, at a stream capture's begin, or at a
 * nested region's end (Stop, Decode: 10-14 ms on the H200).  It is cut from
 * the clock of `region` and of the regions around it, as a profiled
 * launch's host time is: the region's snapshot lists it as a profiled
 * launch of no signature, inherited (correlation 0).  Nothing for region 0,
 * an empty interval or out of memory. */
void pc_collector_host_cut(pc_collector *c, uint32_t region, uint64_t t0, uint64_t t1);

#endif /* PC_COLLECTOR_H */
