/*
 * pc_collector.h: what a session measures on the GPU side, as one object
 * with one lock, and the one documented global struct of lib/gpu.
 *
 * The collector.  pc_gpu_start creates it and pc_gpu_stop destroys it.  Its
 * struct is pc_collector.c's: every other file reaches it through the
 * methods below, each of which takes the lock itself (no caller holds it).
 * It owns, under its one mutex `mu`:
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
 * callback stores decoded records under `mu`).  No other lock is taken
 * under it.
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

#include "model/pc_core.h"
#include "capture/pc_launchlog.h"
#include "capture/pc_regions.h"
#include "capture/pc_sigtab.h"
#include "model/pc_snapshot.h"
#include "pc_gpu.h"
#include "pc_rangeprof.h"

/* A kernel record's group: (signature << PC_KSPAN_SHIFT) | PC_SNAP_* flags
 * (PROFILED, INHERITED, NOTIME, GRAPH, CAPTURED). */
#define PC_KSPAN_SHIFT 5
#define PC_KSPAN_SIG(group) ((group) >> PC_KSPAN_SHIFT)
#define PC_KSPAN_FLAGS(group) ((group) & ((1u << PC_KSPAN_SHIFT) - 1u))
/* The id goes into the group shifted by PC_KSPAN_SHIFT. */
#define PC_SIG_MAX (1u << (32 - PC_KSPAN_SHIFT))

/* The collector: its fields are pc_collector.c's; everything else reaches
 * them through the methods below, each of which takes the lock itself. */
typedef struct pc_collector pc_collector;

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
/* Frees it with its counter layer: the caller made sure no callback can
 * reach it any more (pc_collector_retire). */
void pc_collector_free(pc_collector *c);
/* Makes c the one the callbacks reach (NULL: none); returns the previous. */
pc_collector *pc_collector_install(pc_collector *c);
/* The installed collector, or NULL. */
static inline pc_collector *pc_collector_current(void) { return atomic_load(&pc_gpu_g.col); }
/* Uninstalls c and waits until no callback can reach it: recording and
 * counters off, the launch gate taken once (every profiled launch ran its
 * EXIT), the in-flight count drained.  Then pc_collector_free may run. */
void pc_collector_retire(pc_collector *c);

/* ---- state the callbacks read without the lock (atomics) ---------------------------- */

int pc_collector_active(const pc_collector *c);      /* callbacks record anything at all */
void pc_collector_set_active(pc_collector *c, int on);
int pc_collector_counting(const pc_collector *c);    /* launches are profiled */
/* Counters off for the rest of the session (quiesce, fork, exit). */
void pc_collector_counters_off(pc_collector *c);
/* The counter layer refused inside a callback: counters off, the refusal
 * noted for the next poll (pc_collector_poll_refusal). */
void pc_collector_counters_refused(pc_collector *c);
/* Returns 1 once after a refusal, with the counter layer's reason in *why
 * (may be NULL), which also becomes the collector's note ("counters
 * refused (...): ..."). */
int pc_collector_poll_refusal(pc_collector *c, pc_err *why);
/* CUPTI's fatal error: recording and counters stop, the message is kept. */
void pc_collector_set_fatal(pc_collector *c, int result, const char *message);
/* 1 after a fatal error, with its message copied into *why (may be NULL). */
int pc_collector_fatal(pc_collector *c, pc_err *why);
/* Innermost open region (0: none) and stream captures in progress. */
uint32_t pc_collector_region_current(const pc_collector *c);
int pc_collector_captures_open(const pc_collector *c);
/* Activity records lost (CUPTI's count and ours), and unprofiled kernel
 * records without timestamps, counted since the collector's creation. */
void pc_collector_add_dropped(pc_collector *c, uint64_t n);
void pc_collector_record_counts(const pc_collector *c, uint64_t *dropped, uint64_t *zero_ts);

/* ---- lib/gpu's own set-up times, said at teardown ----------------------------------- */

enum { PC_SU_CHECK, PC_SU_DEVICE, PC_SU_CAPTURE, PC_SU_ACTIVITY, PC_SU_COUNTERS, PC_SU_COUNT };
/* The progress level (0 off, 1 phase lines, 2 also a line per profiled
 * launch) and where lines go. */
void pc_collector_set_progress(pc_collector *c, int level, void (*say)(const char *line));
void pc_collector_add_setup_time(pc_collector *c, int phase, uint64_t ns);
/* The one progress line of lib/gpu's set-up times and `teardown`. */
void pc_collector_say_times(const pc_collector *c, const char *teardown);

/* ---- counters ------------------------------------------------------------------------ */

/* Creates the counter layer over the collector's lock (pc_rp_create: the
 * plan moves in on success; *replay_why says why rotation is off although
 * asked for). */
perfcheck_status pc_collector_counters_create(pc_collector *c, pc_rp_plan *plan, const pc_rp_config *cfg,
                                              pc_err *replay_why, pc_err *err);
/* The counter layer (NULL: timing only).  Alive until pc_collector_free. */
pc_rp *pc_collector_rp(const pc_collector *c);
/* Counter selection (ncu's -k -s -c, plus per-signature).  The regex is
 * borrowed until the collector is freed. */
typedef struct pc_collector_counters {
  int asked;                    /* counters were asked for */
  const char *note;             /* why they are off although asked for */
  const pc_regex *kernel_regex;
  uint64_t launch_skip;
  uint64_t launch_count;        /* 0: no limit */
  unsigned per_signature;       /* >= 1 */
  unsigned rotate_groups;       /* rotation: profiled launches per set (pc_rp_groups); 0 kernel replay */
} pc_collector_counters;
/* Sets the selection; counters go on when a counter layer exists. */
void pc_collector_set_counters(pc_collector *c, const pc_collector_counters *cc);
/* Whether counters were asked for, and why they are off (copied into *why;
 * an empty message: they are not). */
int pc_collector_counters_note(pc_collector *c, pc_err *why);

/* ---- the launch gate ------------------------------------------------------------------- */

/* No data: a profiled launch holds it exclusively from ENTER to EXIT, every
 * other launch shared, while counters are on; a session spanning launches
 * makes every launch exclusive.  Taken before the lock, never under it. */
void pc_collector_gate_shared(pc_collector *c);
void pc_collector_gate_exclusive(pc_collector *c);
void pc_collector_gate_release(pc_collector *c);

/* ---- launches (the launch callbacks) --------------------------------------------------- */

/* One launch call as CUPTI's parameters describe it. */
typedef struct pc_launch_call {
  uint32_t corr;                /* CUPTI's correlation id */
  CUcontext ctx;
  uint32_t ctx_uid;
  void *f;                      /* CUfunction or CUkernel; a graph launch: its CUgraphExec */
  const char *symbol;           /* CUPTI's symbolName, or NULL */
  CUstream stream;
  unsigned grid[3], block[3], smem, cluster[3];
  int graph;                    /* a cuGraphLaunch */
  uint64_t exec_key;            /* a graph launch: CUPTI's exec id, else the handle */
  int closed;                   /* counters closed for it (a pc_not_profiled: capture, NVTX gate) */
} pc_launch_call;
/* What the collector decided for it. */
typedef struct pc_launch_plan {
  uint32_t region;              /* the region current at ENTER (0: none, or captured) */
  int recorded;                 /* in the launch log: EXIT must see a failure */
  int captured;                 /* into a stream being captured: it does not run */
  int counters;                 /* counters were on at ENTER */
  int profile;                  /* to be profiled (the counter layer's ENTER follows) */
  long turn;                    /* the rotation turn (pc_select_turn), -1 none */
  const char *profile_name;     /* the kernel's mangled name ("CUDA graph"); stable until free */
  int closes;                   /* must not run inside a session spanning launches (graph, collective) */
} pc_launch_plan;
/* ENTER: signature, selection and the launch log, in one locked section. */
void pc_collector_launch_enter(pc_collector *c, const pc_launch_call *call, pc_launch_plan *out);
/* The counter layer refused launch corr: it is not profiled after all. */
void pc_collector_launch_unprofile(pc_collector *c, uint32_t corr);
/* EXIT of profiled launch corr: its host interval (0s: untimed) and the
 * ranges the counter layer lost. */
void pc_collector_launch_profiled(pc_collector *c, uint32_t corr, uint64_t enter_ts, uint64_t exit_ts,
                                  uint64_t dropped);
/* EXIT of recorded launch corr that failed: no record will come for it. */
void pc_collector_launch_failed(pc_collector *c, uint32_t corr);
/* Graph launches rotate over the set's one-pass groups in every replay
 * mode: with rotation on they are known at creation; in kernel-replay mode
 * they are split at the first graph launch that could be profiled
 * (pc_rp_graph_groups: host API, cached across processes), here, under the
 * exclusive launch gate.  Call without the lock, before ENTER's. */
void pc_collector_graph_groups(pc_collector *c);
int pc_collector_graph_groups_pending(const pc_collector *c);

/* ---- stream captures, contexts, modules ------------------------------------------------ */

void pc_collector_capture_begin(pc_collector *c, CUstream stream);
void pc_collector_capture_end(pc_collector *c, CUstream stream);
/* A context going (or a new one at a dead one's address): its entry dies. */
void pc_collector_context_dead(pc_collector *c, CUcontext ctx);
/* Signatures still needed by an open region whose attributes are not read
 * yet (a module is about to go): a malloc'd array, *n entries. */
typedef struct pc_pending_attr {
  uint32_t sig;
  void *f;
  CUcontext ctx;
  unsigned grid[3], block[3], smem;
} pc_pending_attr;
pc_pending_attr *pc_collector_attrs_pending(pc_collector *c, size_t *n);
/* Every handle forgotten (a later module may reuse their addresses), but
 * CUkernels in signatures that still need them. */
void pc_collector_forget_handles(pc_collector *c);

/* ---- regions ------------------------------------------------------------------------------ */

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
  size_t nsigs, capsigs;
  CUcontext *ctxs;              /* one per snapshot context */
  size_t capctxs;
} pc_taken;
perfcheck_status pc_collector_take_region(pc_collector *c, const pc_region_view *g, uint64_t end_ts,
                                          pc_snapshot *snap, pc_taken *tk, pc_err *err);
void pc_taken_free(pc_taken *tk);
/* Forgets region id without collecting anything. */
void pc_collector_drop_region(pc_collector *c, uint32_t id);

/* ---- signatures ---------------------------------------------------------------------------- */

/* Stores the attributes of a signature (state OK or UNAVAILABLE with a
 * reason, copied), and a name for one whose launch gave none. */
void pc_collector_sig_set_attr(pc_collector *c, uint32_t gid, pc_attr_state st, const pc_attributes *a,
                               const char *reason);
void pc_collector_sig_set_name(pc_collector *c, uint32_t gid, const char *mangled);
/* The driver resolved signature gid's handle to CUfunction canon
 * (pc_sigtab_func_resolved); returns its function id now (the snapshot's
 * pc_snap_sig.function). */
uint32_t pc_collector_sig_resolved(pc_collector *c, uint32_t gid, void *canon);
/* What a module's unload learned of signature gid: its attributes (NULL:
 * none), or that its handle is a CUkernel (kept: a library's). */
void pc_collector_sig_unload_attr(pc_collector *c, uint32_t gid, const pc_attributes *a, int is_kernel);

/* ---- activity records ------------------------------------------------------------------------ */

/* One decoded activity record: a kernel, or a transfer span. */
typedef enum { PC_ACT_KERNEL, PC_ACT_MEMCPY, PC_ACT_MEMSET } pc_act_kind;
typedef struct pc_kernel_record {
  uint32_t correlation_id;
  const char *name;             /* mangled; CUPTI's string, valid while its buffer is */
  unsigned grid[3], block[3];
  unsigned dynamic_smem, static_smem;
  unsigned registers;
  unsigned local_per_thread;
  uint32_t graph_id;            /* a graph kernel's graph and node (activity record); 0: none */
  uint64_t graph_node;
  uint64_t start, end;          /* 0 and 0: no timestamps */
  uint32_t stream;              /* CUPTI's stream id */
} pc_kernel_record;
typedef struct pc_act_record {
  pc_act_kind kind;
  pc_kernel_record k;           /* PC_ACT_KERNEL */
  pc_span span;                 /* PC_ACT_MEMCPY, PC_ACT_MEMSET */
} pc_act_record;
/* Stores a batch of records in one locked section: each kernel record is
 * joined to its launch (dropped when its launch was made outside every
 * region whose records are still accepted), transfers are kept while a
 * region is open; what did not fit in memory is counted as dropped. */
void pc_collector_add_activity(pc_collector *c, const pc_act_record *v, size_t n);
/* The join alone, for one kernel record (tests): 1 with its group
 * (signature << PC_KSPAN_SHIFT | flags) and region, 0 when dropped. */
int pc_collector_join_kernel(pc_collector *c, const pc_kernel_record *rec, uint32_t *group, uint32_t *region);

/* The activity buffers: CUPTI's buffer callbacks take no user data and keep
 * a handful of 4 MiB buffers alive, pooled and queued here. */
#define PC_ACT_POOL_MAX 4
/* A buffer of `size` bytes for CUPTI (from the pool, or new, with room in
 * the queue reserved for it); NULL: none (CUPTI drops and counts). */
uint8_t *pc_collector_buffer_get(pc_collector *c, size_t size);
/* A buffer CUPTI completed: queued (valid bytes) or pooled (empty); returns
 * 0 when the collector kept it, -1 when the caller must free it. */
int pc_collector_buffer_done(pc_collector *c, uint8_t *buf, size_t valid);
/* The next queued buffer (1), or 0 when none waits; its buffer goes back
 * through pc_collector_buffer_recycle once decoded. */
int pc_collector_buffer_next(pc_collector *c, uint8_t **buf, size_t *valid);
void pc_collector_buffer_recycle(pc_collector *c, uint8_t *buf);
size_t pc_collector_buffers_queued(pc_collector *c);

/* ---- profiled launches ----------------------------------------------------------------------- */

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

/* ---- inspection (the unit tests') ---------------------------------------------------------- */

/* A copy of one signature's entry; -1 when there is none. */
typedef struct pc_sig_info {
  char mangled[256];
  void *f;
  CUcontext ctx;
  unsigned grid[3], block[3];
  int seen_direct, seen_graph, rec_valid;
  unsigned rec_registers;
  pc_not_profiled not_profiled;
  pc_attr_state attr_state;
} pc_sig_info;
int pc_collector_sig_info(pc_collector *c, uint32_t sig, pc_sig_info *out);
/* Open regions on the stack; kernel records a tool launched inside a graph
 * launch's callback (dropped). */
size_t pc_collector_regions_open(pc_collector *c);
uint64_t pc_collector_tool_kernels(pc_collector *c);
/* What pc_collector_take_region does first: the region leaves the stack;
 * and its launch-log entries purged (returns how many never got a record). */
void pc_collector_region_retire(pc_collector *c, uint32_t id);
size_t pc_collector_region_purge(pc_collector *c, uint32_t id);

#endif /* PC_COLLECTOR_H */
