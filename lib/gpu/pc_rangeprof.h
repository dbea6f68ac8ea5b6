/*
 * pc_rangeprof.h: hardware counters through the CUPTI Range Profiler and
 * Profiler Host APIs (auto range + kernel replay), the contract between the
 * launch capture (pc_capture.c) and the counter layer (pc_rangeprof.c,
 * pc_metrics_host.c).  No CUDA type appears here: contexts are void *.
 *
 * Threading: pc_rp's lists and status are guarded by a borrowed lock (the
 * collector's); the launch hooks additionally rely on the collector's launch
 * gate (see below).  The launch hooks run inside CUPTI
 * launch callbacks on the launching thread: they may call range-profiler
 * functions (as NVIDIA's own injection sample does) and nothing else of CUDA.
 */
#ifndef PC_RANGEPROF_H
#define PC_RANGEPROF_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "model/pc_core.h"

typedef struct pc_rp pc_rp;

/* A parsed metric request: the PC_M_* metrics to collect (by their collected
 * counter name: the substitute where the set uses one) and the user's extra
 * names.  Built by pc_rp_plan from "default", "sol", "full" or a list. */
typedef struct pc_rp_plan {
  char set_name[32];                  /* "default", "sol", "full" or "custom" */
  unsigned char want[PC_M_COUNT];     /* 1: collect this PC_M_* metric */
  unsigned char use_substitute[PC_M_COUNT];
  size_t nextra;
  char **extra;                       /* user metric names not in the table */
  /* Names that failed validation, with the reason ("unknown metric", "not
   * supported on GH100"); they are reported not_assessed, never dropped. */
  size_t nrejected;
  char **rejected;
  char **rejected_reason;
  /* Room allocated in rejected[] (every table metric and extra can be
   * rejected once): the arrays never move after parsing, so a reader of
   * pc_rp_get_plan() never sees them reallocated. */
  size_t cap_rejected;
} pc_rp_plan;

/* Parses a metric spec into a plan (no CUPTI call).  Returns PERFCHECK_OK or
 * PERFCHECK_ERROR_INVALID_ARGUMENT (empty item, bad set name). */
perfcheck_status pc_rp_plan_parse(const char *spec, pc_rp_plan *plan, pc_err *err);
void pc_rp_plan_free(pc_rp_plan *plan);
/* The counter names a plan collects, in order (PC_M_* first, then extras;
 * rejected names are skipped), into names[0..cap-1]; returns the count, which
 * may exceed cap.  The strings are static or owned by the plan (valid until
 * pc_rp_plan_free).  Duplicates never occur: parsing removes them. */
size_t pc_rp_plan_counter_names(const pc_rp_plan *plan, const char **names, size_t cap);

/* Host API only, no GPU needed: validates the plan's names for `chip`
 * ("GH100"), moving invalid ones to plan->rejected, and returns the number of
 * passes CUPTI needs.  Returns PERFCHECK_OK, PERFCHECK_ERROR_CUPTI_UNAVAILABLE,
 * PERFCHECK_ERROR_UNSUPPORTED (unknown chip). */
perfcheck_status pc_rp_count_passes(const char *chip, pc_rp_plan *plan, int *passes, pc_err *err);

/* The counter result of one profiled launch, kept with the launch in the
 * collector (pc_collector.h) until its region ends. */
typedef struct pc_rp_result_store {
  int passes;                   /* passes behind these values */
  int group;                    /* the rotation group these values are, -1 the whole set */
  int ngroups;                  /* groups of the set with rotation, 0 without */
  int cold;                     /* the DRAM counters of this launch started from a flushed L2 */
  int skipped;                  /* a graph launch whose group needs more than one pass: nothing measured */
  double values[PC_M_COUNT];    /* NaN: not measured */
  double *extra;                /* the plan's nextra values (malloc'd), or NULL */
  char *note;                   /* why values are missing or doubtful, or NULL */
} pc_rp_result_store;
void pc_rp_result_store_free(pc_rp_result_store *r);

/* How the counter layer runs. */
typedef struct pc_rp_config {
  int progress;                 /* 1: a line per profiled launch and the phases at the end (PERFCHECK_PROGRESS=1);
                                   2: also each launch's phases at its EXIT (PERFCHECK_PROGRESS=2) */
  void (*say)(const char *line); /* where that line goes; NULL: nowhere */
  /* Rotation (PERFCHECK_REPLAY=rotate): the metric set is split into groups
   * of one pass each (pc_rp_plan_groups), and each profiled launch of a
   * signature collects one group it lacks, the current config first
   * (pc_select_turn), by auto range and kernel replay of that one pass
   * (PERFCHECK_ROTATE_RANGE=user: a user range); the group holding the DRAM
   * counters starts from an L2 flushed by perfcheck's own read of twice the
   * L2 size. */
  int rotate;
} pc_rp_config;

/* Creates the counter layer for the current process: initializes the CUPTI
 * profiler, and per device reached later, the host object; with rotation,
 * splits the set into its groups for device 0's chip (host API, outside any
 * callback).  `plan` is moved in (the caller's copy is zeroed).  `lock` is
 * borrowed (the collector's one lock, pc_collector.h): it guards the layer's
 * lists and status, is a leaf and is never held across a CUPTI call.
 * Returns PERFCHECK_OK, PERFCHECK_ERROR_COUNTERS_NOT_PERMITTED,
 * PERFCHECK_ERROR_COUNTERS_BUSY, PERFCHECK_ERROR_UNSUPPORTED,
 * PERFCHECK_ERROR_CUPTI_UNAVAILABLE; the detail (which call failed and the
 * fix) in *err.  When rotation was asked for but cannot be had, the layer
 * runs with kernel replay and *replay_why (may be NULL) says why (else an
 * empty message). */
perfcheck_status pc_rp_create(pc_rp_plan *plan, const pc_rp_config *cfg, pthread_mutex_t *lock, pc_rp **out,
                              pc_err *replay_why, pc_err *err);

/* Starts loading CUPTI's profiler host library (libnvperf_host.so, 58-89 ms
 * on the H200, docs/cupti.md §19) on a thread of its own, so that a later
 * pc_rp_create finds it loaded.  Nothing waits for that thread: a
 * pc_rp_create that comes first loads the library itself, and the loader's
 * own lock orders the two.  Once a process; nothing else runs on that
 * thread.  CUPTI must be loaded already (its path names the copy to load). */
void pc_rp_preload(void);

/* The number of rotation groups (0: rotation off): a signature needs that
 * many profiled launches for its whole set. */
size_t pc_rp_groups(const pc_rp *rp);

/* Graph launches (issue 21 item 4) rotate over the same groups in every
 * replay mode: a graph launch cannot be kernel-replayed (auto range broke a
 * graph on the H200, docs/cupti.md §11), so the k-th profiled launch of a
 * graph exec collects group k under a user range, as a rotated kernel does.
 * Returns the number of groups, splitting the set now for device 0's chip
 * when rotation did not at creation (host API; the split is cached across
 * processes, pc_config_cache.c); 0 when it cannot be split, with the reason
 * in *why (may be NULL).  The caller holds the collector's launch gate exclusively (the
 * groups are published here) and not its lock. */
size_t pc_rp_graph_groups(pc_rp *rp, pc_err *why);

/* Launch hooks, from the driver launch callbacks of a launch the capture
 * layer decided to profile (filters already applied).  Each profiled launch
 * is its own short profiler session, so ranges never need mapping back.
 * `turn` says how: -1 kernel replay of the whole set (auto range, every pass
 * replayed inside the launch call, CUPTI saving and restoring memory); k >= 0
 * with rotation on: group k % pc_rp_groups, one pass, a user range around
 * this one launch (a group that needs more than one pass alone, a SOL row,
 * is kernel-replayed by itself).
 *   ENTER: enable the profiler on `ctx` if needed (host object, availability
 *          image, config images, counter data images), for a user range
 *          synchronize the context first (so no earlier kernel runs inside
 *          the range) and flush the L2 when the group holds the DRAM
 *          counters, then SetConfig and Start (and PushRange).
 *   EXIT:  (PopRange,) Stop, Decode, evaluate the one range into *out,
 *          reset the counter data image.  launch_ok == 0 (the launch
 *          failed): Stop and discard.  Returns 1 when *out was filled (the
 *          caller owns it), 0 when not; *dropped gets the ranges CUPTI
 *          dropped.
 * The capture layer guarantees that no other launch runs on any thread
 * between a profiled launch's ENTER and EXIT (the collector's launch gate),
 * because the range profiler is context-level and would range a concurrent
 * kernel too; the caller also counts ENTER as a launch of its own, so the
 * flush kernel launched inside it is not captured.  kernel_name (may be NULL
 * or mangled) names the kernel in the progress line.  ENTER returns nonzero
 * if the launch will not be profiled after all (counters were refused: the
 * message is kept for pc_rp_status). */
/* graph: a cuGraphLaunch (turn >= 0 required): always a user range with
 * user replay around the whole graph launch, never kernel replay, whatever
 * PERFCHECK_ROTATE_RANGE says; a turn that falls on a group needing more
 * than one pass alone (a SOL row) measures nothing: ENTER returns 0 and
 * EXIT returns a result marked `skipped` (the graph launch is not replayed).
 * EXIT of a user range synchronizes the context before PopRange, so that
 * the range holds every kernel the launch queued (a graph's kernels run on
 * its stream after cuGraphLaunch returned). */
int pc_rp_on_launch_enter(pc_rp *rp, void *ctx, uint32_t correlation_id, const char *kernel_name, long turn,
                          int graph);
int pc_rp_on_launch_exit(pc_rp *rp, void *ctx, uint32_t correlation_id, int launch_ok, pc_rp_result_store *out,
                         uint64_t *dropped);

/* Sessions spanning launches (rotation's cold group, issue 21): a
 * rotated launch of a one-pass group without SASS-patched metrics joins an
 * auto-range, user-replay session of its group on its context, opened at
 * the first such launch and closed when a launch cannot join it (another
 * group, the whole set, a graph launch) or it is full.  Every kernel
 * launched on that context while it is open is one range, in launch order,
 * so the capture layer launches one at a time meanwhile (the launch gate,
 * exclusively) and tells the layer of each launch it does not profile:
 *   pc_rp_window_active: a session is open on some context (a hint; the
 *     caller re-checks under the gate);
 *   pc_rp_window_note: a launch on ctx that is not profiled: 1 when it
 *     joined the open session as a range to drop, 0 when none is open; with
 *     `closes` (a graph launch, a collective) or no room, the session is
 *     closed first (Stop, Decode: perfcheck's time inside the program's
 *     launch, which the caller cuts from the region's clock: cut[0] and
 *     cut[1], cuptiGetTimestamp around it, both 0 when unknown) and 2
 *     returned;
 *   pc_rp_window_unnote: that launch failed (no kernel, no range);
 *   pc_rp_window_close_all: closes every open session (a region's end, a
 *     stream capture's begin), timed into cut as above when cut is not NULL
 *     (cut[0] 0 and cut[1] 0 on entry: the first close's start, the last
 *     one's end);
 *   pc_rp_drain: hands over the results of closed sessions, each with the
 *     correlation id of its launch, to store() (which takes the result and
 *     returns 0, or returns nonzero and the result is freed here).
 * A profiled launch in a session gets no result at its EXIT (0 returned);
 * its result comes through pc_rp_drain after the session closes.  All but
 * pc_rp_window_active and pc_rp_drain need the launch gate exclusively. */
int pc_rp_window_active(const pc_rp *rp);
int pc_rp_window_note(pc_rp *rp, void *ctx, uint32_t corr, int closes, uint64_t cut[2]);
void pc_rp_window_unnote(pc_rp *rp, void *ctx, uint32_t corr);
void pc_rp_window_close_all(pc_rp *rp, uint64_t cut[2]);
size_t pc_rp_drain(pc_rp *rp, int (*store)(void *arg, uint32_t corr, pc_rp_result_store *res), void *arg);

/* PERFCHECK_OK while counters work; after a refusal at enable time
 * (privileges, busy, unsupported) the status, with a one-line message with
 * the fix in *err.  The capture layer stops asking for profiles then. */
perfcheck_status pc_rp_status(const pc_rp *rp, pc_err *err);

/* The name of perfcheck's own L2 flush kernel (rotation's cold group).  Its
 * activity records are dropped: launched inside a graph launch's callback,
 * CUPTI gave it the graph launch's correlation id and the graph entry
 * counted it as a fifth kernel (H200, 2026-12-02). */
#define PC_RP_FLUSH_KERNEL "__perfcheck_l2_flush"

/* Graph launches must never run under auto range + kernel replay (it left a
 * graph's second kernel unwritten on the H200, docs/cupti.md §11): a graph
 * launch is profiled only as above (graph != 0: a user range, one one-pass
 * group a launch), and its counters are the whole graph launch's. */

/* Context destruction (CONTEXT_DESTROY_STARTING): disable the profiler on
 * ctx and free its images; results already evaluated are kept. */
void pc_rp_on_context_destroy(pc_rp *rp, void *ctx);

/* Passes per profiled launch for the plan on the devices seen (0 before any
 * launch). */
int pc_rp_passes(const pc_rp *rp);
const pc_rp_plan *pc_rp_get_plan(const pc_rp *rp);

void pc_rp_destroy(pc_rp *rp);

/* With PERFCHECK_PROGRESS (or the progress option): one line through the
 * session's `say`, the host time of each phase of the profiled launches so
 * far (issue 21, where a counter run's time goes).  Called at teardown,
 * before the injection runtime's process-exit path skips the rest. */
void pc_rp_say_phases(pc_rp *rp);

#endif /* PC_RANGEPROF_H */
