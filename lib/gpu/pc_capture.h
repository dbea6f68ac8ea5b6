/*
 * pc_capture.h: the process's one CUPTI subscriber, the launch callbacks, and
 * the tables they fill (kernel names, launch signatures, contexts, the launch
 * log), plus the region id that launches are tagged with.
 *
 * Layers: pc_capture (callbacks, tables) <- pc_activity (decodes activity
 * records and joins them to the launch log through pc_capture_join_kernel)
 * <- lib/session.c (regions, report).  pc_funcinfo answers the driver
 * questions (attributes, occupancy, device facts) outside callbacks.
 *
 * Locks.  One mutex, the "gpu lock" (pc_gpu_lock), guards every table here
 * and pc_activity's store.  It is held only around memory work: never across
 * a CUPTI or driver call (CUPTI may call our buffer-request callback from any
 * CUDA call, and that callback decodes under this lock).  A process-wide
 * rwlock orders launches against range-profiled launches (see pc_capture.c).
 */
#ifndef PC_CAPTURE_H
#define PC_CAPTURE_H

#include <cuda.h>
#include <cupti.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/pc_core.h"
#include "../core/pc_regex.h"
#include "../core/pc_regions.h"
#include "../core/pc_sigtab.h"
#include "../core/pc_snapshot.h"
#include "pc_rangeprof.h"

/* ---- the gpu lock -------------------------------------------------------- */
void pc_gpu_lock(void);
void pc_gpu_unlock(void);
/* Nonzero when this thread holds the gpu lock (the buffer-request callback
 * must not decode then). */
int pc_gpu_lock_held(void);

/* ---- CUPTI availability --------------------------------------------------- */

/* Nonzero once CUPTI answered 39 (MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) in
 * this process: another tool (ncu, nsys, compute-sanitizer, a framework
 * profiler) holds CUPTI, and any further CUPTI call may crash the host
 * program (docs/cupti.md §11: cuptiDeviceGetChipName segfaults).  Every module
 * must check this before its first CUPTI call.  `holder` (may be NULL) gets
 * the holder's name as CUPTI gave it. */
int pc_capture_cupti_unusable(char *holder, size_t len);

/* ---- start and stop -------------------------------------------------------- */

/* Subscribes ("libperfcheck") and enables the launch, resource and state
 * callbacks.  Call only after pc_cuda_load() succeeded.  Capture starts
 * inactive (pc_capture_set_active).  Returns PERFCHECK_OK,
 * PERFCHECK_ERROR_CUPTI_IN_USE (the holder named in msg; CUPTI is then
 * unusable for the process), PERFCHECK_ERROR_CUPTI_UNAVAILABLE,
 * PERFCHECK_ERROR_OUT_OF_MEMORY.  On failure nothing stays subscribed. */
perfcheck_status pc_capture_start(pc_err *err);

/* Counter selection (ncu's -k -s -c, plus per-signature).  rp NULL: timing
 * only.  The regex is borrowed until pc_capture_stop. */
typedef struct pc_capture_counters {
  pc_rp *rp;
  const pc_regex *kernel_regex;
  uint64_t launch_skip;
  uint64_t launch_count;        /* 0: no limit */
  unsigned per_signature;       /* >= 1 */
} pc_capture_counters;
void pc_capture_set_counters(const pc_capture_counters *c);

/* Callbacks do nothing while inactive (one atomic load per launch). */
void pc_capture_set_active(int on);

/* Deactivates, waits until no callback is inside our code and no profiled
 * launch is running, unsubscribes, and frees every table.  Safe to call
 * after a failed start.  Does not touch the counter layer (the caller
 * destroys it afterwards). */
void pc_capture_stop(void);

/* Our own kernels (the ceilings benchmarks) are not captured: call around
 * them on the launching thread.  (The one "our own launch" flag.) */
void pc_capture_internal(int on);

/* The subscriber's callback, as pc_capture_start registers it; declared so
 * that tests drive it with hand-made CUPTI callback data. */
void CUPTIAPI pc_capture_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                  const void *data);
/* The region launches are tagged with now (0: none), the stream captures
 * open in the process, and this thread's depth of launch callbacks of ours
 * (0 outside a launch call). */
uint32_t pc_capture_current_region(void);
int pc_capture_captures_open(void);
int pc_capture_thread_depth(void);

/* ---- state noticed in callbacks ------------------------------------------- */

/* Nonzero once CUPTI reported a fatal error (it finalizes itself then);
 * msg gets CUPTI's text. */
int pc_capture_fatal(char *msg, size_t len);
/* Stops asking for counters (e.g. the session goes inert). */
void pc_capture_counters_off(void);
/* Returns 1 once after counters were refused in a launch callback (the
 * caller writes the note and the warning), else 0. */
int pc_capture_take_refusal(void);

/* ---- regions ---------------------------------------------------------------- */

/* The one region stack (pc_regions.h) lives here, under the gpu lock.
 * Opens a region named `name` (copied), child of the current one: a new id
 * (never 0, never reused in the process) becomes the region of every launch
 * from now on, from any thread.  flags: PC_RG_*; with PC_RG_NVTX the calling
 * thread is recorded as the one whose NVTX range to pop.  Safe in a CUPTI
 * callback.  Returns 0 on OOM. */
uint32_t pc_capture_region_push(const char *name, unsigned flags, const pc_region_marks *begin);
/* Starts closing region `id`: launches go to its parent from now on, but
 * kernel records of its launches are still accepted (the region's end
 * flushes them in) until pc_capture_region_retire_locked.  `end` (may be
 * NULL) records the marks of an end made now (an NVTX pop).  Safe in a
 * CUPTI callback. */
void pc_capture_region_pop(uint32_t id, const pc_region_marks *end);
/* Removes region `id` from the stack and stops accepting its records (gpu
 * lock held): call in the same locked section that takes the region's
 * records out of the store, so no late record is left behind. */
void pc_capture_region_retire_locked(uint32_t id);

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
/* Returns 0, -1 for an unknown id, -2 on out of memory. */
int pc_capture_region_view(uint32_t id, pc_region_view *out);
void pc_region_view_free(pc_region_view *v);
/* The region perfcheck_session_end ends (pc_regions_innermost), and the one
 * to end next when all end (pc_regions_next_to_end); 0 when none. */
uint32_t pc_capture_region_innermost(void);
uint32_t pc_capture_region_next_to_end(void);
/* Launch calls made inside any region so far (a counter: take differences). */
uint64_t pc_capture_region_launches(void);
/* Contexts that launched inside a region since region-launch count `since`
 * and are still alive; returns how many (at most cap written). */
size_t pc_capture_contexts_since(uint64_t since, CUcontext *out, size_t cap);
/* Marks a context dead (its synchronization failed as destroyed). */
void pc_capture_context_dead(CUcontext ctx);
/* Launches of region `id` whose kernel record has not arrived (graph launches
 * not counted: their kernel count is unknown). */
size_t pc_capture_pending(uint32_t id);
/* Forgets every launch-log entry of region `id`; returns how many non-graph
 * launches never got a kernel record. */
size_t pc_capture_purge(uint32_t id);
/* Launch calls of region `id`'s lifetime that returned an error (not
 * counted as launches). */
uint64_t pc_capture_failed_launches(void);

/* ---- the activity join (caller holds the gpu lock) ------------------------ */

typedef struct pc_kernel_record {
  uint32_t correlation_id;
  const char *name;             /* mangled; CUPTI's string */
  unsigned grid[3], block[3];
  unsigned dynamic_smem, static_smem;
  unsigned registers;
  unsigned local_per_thread;
} pc_kernel_record;

/* A kernel record's group: (signature << PC_KSPAN_SHIFT) | PC_SNAP_* flags
 * (pc_snapshot.h: PROFILED, INHERITED, NOTIME, GRAPH, CAPTURED). */
#define PC_KSPAN_SHIFT 5
#define PC_KSPAN_SIG(group) ((group) >> PC_KSPAN_SHIFT)
#define PC_KSPAN_FLAGS(group) ((group) & ((1u << PC_KSPAN_SHIFT) - 1u))

/* Finds the launch of a kernel record.  Returns 1 with *group (signature and
 * the PROFILED, GRAPH and CAPTURED flags) and *region set when the launch was
 * made inside a region whose records are still accepted; 0 when the record
 * is to be dropped (launched outside regions, before the session, or its
 * region retired). */
int pc_capture_join_kernel(const pc_kernel_record *rec, uint32_t *group, uint32_t *region);
/* Nonzero when any region is open (gpu lock held). */
int pc_capture_any_region_locked(void);

/* ---- signatures (take the gpu lock themselves) ------------------------------ */

/* Why a signature's launches were not profiled: pc_not_profiled
 * (pc_snapshot.h). */

/* Attribute states: pc_attr_state (pc_sigtab.h). */

/* A copy of one signature: the strings are the caller's (pc_sig_info_free). */
typedef struct pc_sig_info {
  char *mangled;                /* NULL when unknown */
  void *f;                      /* CUfunction or CUkernel of the latest launch; NULL for a
                                   graph kernel never launched directly */
  CUcontext ctx;
  uint32_t ctx_index;           /* the capture's context entry (a context re-created at one
                                   address gets a new one) */
  unsigned grid[3], block[3], cluster[3];
  unsigned dynamic_smem;
  int seen_direct, seen_graph, seen_captured;
  pc_not_profiled not_profiled; /* for the region it was last launched in */
  /* From the activity record, for kernels without a function handle. */
  int rec_valid;
  unsigned rec_registers, rec_static_smem, rec_local;
  pc_attr_state attr_state;
  pc_attributes attr;
  char *attr_reason;            /* why unavailable, or NULL */
} pc_sig_info;

/* Copies signature `sig` into *out.  Returns 0, or -1 for an unknown id (or
 * out of memory); free the copy with pc_sig_info_free. */
int pc_capture_sig_get(uint32_t sig, pc_sig_info *out);
void pc_sig_info_free(pc_sig_info *si);
/* Stores the attributes of a signature (state OK or UNAVAILABLE with a
 * reason, copied). */
void pc_capture_sig_set_attr(uint32_t sig, pc_attr_state st, const pc_attributes *a, const char *reason);
/* Sets the mangled name of a signature whose launch gave none. */
void pc_capture_sig_set_name(uint32_t sig, const char *mangled);

/* ---- profiled launches (take the gpu lock themselves) ------------------------ */

/* Keeps the counter result of profiled launch `corr` (values: PC_M_COUNT,
 * extra: nextra; both copied) with the launch until its region ends.
 * Returns 0, -1 when no profiled launch has that id, -2 on out of memory. */
int pc_capture_prof_store(uint32_t corr, int passes, const double *values, const double *extra, size_t nextra);
/* Copies out the profiled launches of `region` (its own and those handed up
 * from its nested regions, flagged PC_SNAP_PROF_INHERITED), with their host
 * interval (ENTER before the counter layer's work, EXIT after it) and their
 * result if stored; `sig` is the capture's signature id.  Then hands them to
 * `parent` (flagged inherited: the parent's clock loses their cost too), or
 * forgets them when parent is 0.  Returns the count (*out malloc'd, each
 * extra array of nextra values); *oom set when a copy failed. */
size_t pc_capture_prof_take(uint32_t region, uint32_t parent, size_t nextra, pc_snap_profiled **out, int *oom);

/* ---- injection hooks (lib/inject) --------------------------------------------
 * Used by the injection library only; a linked program sets none of them, and
 * then nothing below changes what the capture does. */

typedef void (*pc_capture_ctx_fn)(CUcontext ctx);
/* `created` is called from every CONTEXT_CREATED callback, first, whether
 * capture is active or not: the injection library starts its session in the
 * first one, where the driver is initialized (InitializeInjection runs
 * inside cuInit, where it is not).  Called before the capture counts itself
 * in flight, so it may start the session (not stop it).  `destroying` is
 * called from CONTEXT_DESTROY_STARTING while capture is active, before the
 * context is marked dead and before the counter layer frees its images.
 * Either may be NULL.  They stay set across pc_capture_stop. */
void pc_capture_set_context_hooks(pc_capture_ctx_fn created, pc_capture_ctx_fn destroying);

/* NVTX ranges: `fn` receives CUPTI's NVTX callbacks for nvtxRangePushA,
 * nvtxRangePushW, nvtxRangePushEx, nvtxRangePop, nvtxDomainRangePushEx and
 * nvtxDomainRangePop (cbid as in cupti_nvtx_cbid.h, data a CUpti_NvtxData)
 * while capture is active.  It runs inside a CUPTI callback: no session
 * lock, no CUDA call but cuptiGetTimestamp; the gpu lock may be taken.
 * Enables those callbacks on the subscriber (call after pc_capture_start);
 * NULL disables them.  Returns PERFCHECK_OK or
 * PERFCHECK_ERROR_CUPTI_UNAVAILABLE (*err says which call).  pc_capture_stop
 * clears it.  NVTX calls reach CUPTI only when NVTX_INJECTION64_PATH names
 * libcupti or a library forwarding to cuptiNvtxInitialize2. */
typedef void (*pc_capture_nvtx_fn)(uint32_t cbid, const void *nvtx_data);
perfcheck_status pc_capture_set_nvtx_hook(pc_capture_nvtx_fn fn, pc_err *err);

/* Counters only while gate() returns nonzero (PERFCHECK_NVTX: a range of
 * that name is open); launches outside are not profiled and say
 * PC_NP_NVTX.  NULL: no gate.  Called inside launch callbacks.
 * pc_capture_stop clears it. */
void pc_capture_set_counter_gate(int (*gate)(void));

#endif /* PC_CAPTURE_H */
