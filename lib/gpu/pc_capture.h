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
#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/pc_core.h"
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
perfcheck_status pc_capture_start(char *msg, size_t msglen);

/* Counter selection (ncu's -k -s -c, plus per-signature).  rp NULL: timing
 * only.  The regex is borrowed until pc_capture_stop. */
typedef struct pc_capture_counters {
  pc_rp *rp;
  const regex_t *kernel_regex;
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
 * them on the launching thread. */
void pc_capture_internal(int on);

/* ---- state noticed in callbacks ------------------------------------------- */

/* Nonzero once CUPTI reported a fatal error (it finalizes itself then);
 * msg gets CUPTI's text. */
int pc_capture_fatal(char *msg, size_t len);
/* Nonzero while counters are being collected. */
int pc_capture_counters_on(void);
/* Stops asking for counters (e.g. the session goes inert). */
void pc_capture_counters_off(void);
/* Returns 1 once after counters were refused in a launch callback (the
 * caller writes the note and the warning), else 0. */
int pc_capture_take_refusal(void);

/* ---- regions ---------------------------------------------------------------- */

/* Opens a region: a new id (never 0, never reused in the process) becomes
 * the region of every launch from now on, from any thread.  Returns 0 on
 * OOM. */
uint32_t pc_capture_region_push(void);
/* Starts closing region `id`: launches go to its parent from now on, but
 * kernel records of its launches are still accepted (the region's end
 * flushes them in) until pc_capture_region_retire_locked. */
void pc_capture_region_pop(uint32_t id);
/* Stops accepting records for region `id` (gpu lock held): call in the
 * same locked section that takes the region's spans out of the store, so no
 * late record is left behind. */
void pc_capture_region_retire_locked(uint32_t id);
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

/* Bits of pc_span.group for kernel spans: (signature << 3) | bits.
 * NOTIME: the record had no timestamps (start = end = 0): the launch counts,
 * its time does not (under kernel replay a profiled launch's record has
 * none, seen on the H200). */
enum { PC_SPAN_PROFILED = 1u, PC_SPAN_INHERITED = 2u, PC_SPAN_NOTIME = 4u, PC_SPAN_BITS = 7u };
#define PC_SPAN_SIG(group) ((group) >> 3)

/* Finds the launch of a kernel record.  Returns 1 with *group (signature and
 * PC_SPAN_PROFILED) and *region set when the launch was made inside a region
 * whose records are still accepted; 0 when the record is to be dropped
 * (launched outside regions, before the session, or its region retired). */
int pc_capture_join_kernel(const pc_kernel_record *rec, uint32_t *group, uint32_t *region);
/* Nonzero when region `id` is open (gpu lock held). */
int pc_capture_region_open_locked(uint32_t id);
/* Nonzero when any region is open (gpu lock held). */
int pc_capture_any_region_locked(void);

/* ---- signatures (take the gpu lock themselves) ------------------------------ */

/* Why a signature's launches in a region were not profiled. */
typedef enum pc_not_profiled {
  PC_NP_NONE = 0,
  PC_NP_TIMING,                 /* counters off (timing mode or refused) */
  PC_NP_GRAPH,                  /* launched by a CUDA graph */
  PC_NP_FILTERED,               /* kernel_regex did not match */
  PC_NP_SKIPPED,                /* inside launch_skip */
  PC_NP_LIMIT,                  /* launch_count reached */
  PC_NP_FAILED,                 /* the profiled launch failed */
  PC_NP_CAPTURE,                /* a stream capture was in progress */
  PC_NP_NVTX                    /* outside the NVTX ranges of the counter gate (PERFCHECK_NVTX) */
} pc_not_profiled;

typedef enum pc_attr_state { PC_ATTR_NONE = 0, PC_ATTR_OK, PC_ATTR_UNAVAILABLE } pc_attr_state;

typedef struct pc_sig_info {
  const char *mangled;          /* NULL when unknown; valid until pc_capture_stop */
  const char *name;             /* demangled short name (computed here, outside callbacks) */
  void *f;                      /* CUfunction or CUkernel of the latest launch; NULL for a
                                   graph kernel never launched directly */
  CUcontext ctx;
  unsigned grid[3], block[3], cluster[3];
  unsigned dynamic_smem;
  int seen_direct, seen_graph;
  pc_not_profiled not_profiled; /* for the region it was last launched in */
  /* From the activity record, for kernels without a function handle. */
  int rec_valid;
  unsigned rec_registers, rec_static_smem, rec_local;
  pc_attr_state attr_state;
  pc_attributes attr;
  const char *attr_reason;      /* why unavailable; static or owned here */
} pc_sig_info;

/* Copies signature `sig` into *out.  Returns 0, or -1 for an unknown id. */
int pc_capture_sig_get(uint32_t sig, pc_sig_info *out);
/* Stores the attributes of a signature (state OK or UNAVAILABLE with a
 * reason, copied). */
void pc_capture_sig_set_attr(uint32_t sig, pc_attr_state st, const pc_attributes *a, const char *reason);
/* Sets the mangled name of a signature whose launch gave none. */
void pc_capture_sig_set_name(uint32_t sig, const char *mangled);
/* The signature of profiled launch `correlation_id` of region `region`, or
 * UINT32_MAX; *exit_ts (may be NULL) gets cuptiGetTimestamp at the launch's
 * EXIT, after its replay (0 if unknown). */
uint32_t pc_capture_profiled_sig(uint32_t correlation_id, uint32_t region, uint64_t *exit_ts);
/* Forgets profiled launches of region `region`. */
void pc_capture_profiled_purge(uint32_t region);

/* Demangles (pc_demangle: the C++ runtime's __cxa_demangle, found or loaded
 * at capture start), else copies; then cuts to the short name ("scaleAdd<4>").
 * Not for use inside a launch callback except once per function. */
void pc_capture_short_name(const char *mangled, char *out, size_t len);

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
 * PERFCHECK_ERROR_CUPTI_UNAVAILABLE (msg says which call).  pc_capture_stop
 * clears it.  NVTX calls reach CUPTI only when NVTX_INJECTION64_PATH names
 * libcupti or a library forwarding to cuptiNvtxInitialize2. */
typedef void (*pc_capture_nvtx_fn)(uint32_t cbid, const void *nvtx_data);
perfcheck_status pc_capture_set_nvtx_hook(pc_capture_nvtx_fn fn, char *msg, size_t msglen);

/* Counters only while gate() returns nonzero (PERFCHECK_NVTX: a range of
 * that name is open); launches outside are not profiled and say
 * PC_NP_NVTX.  NULL: no gate.  Called inside launch callbacks.
 * pc_capture_stop clears it. */
void pc_capture_set_counter_gate(int (*gate)(void));

/* Nonzero when `correlation_id` is a profiled launch of a region whose
 * profiled launches were not purged yet: its counter result belongs to a
 * region that has not ended (the session keeps it for that region). */
int pc_capture_profiled_known(uint32_t correlation_id);

#endif /* PC_CAPTURE_H */
