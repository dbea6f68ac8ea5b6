/*
 * pc_gpu.h: everything the rest of libperfcheck asks of lib/gpu, and nothing
 * else: lib/session.c and the injection runtime (lib/inject) include no
 * other lib/gpu header (ctest build.gpu_front_door checks it).
 *
 *   lifecycle   pc_gpu_start, pc_gpu_stop (pc_gpu.c): the driver probe, the
 *               CUPTI subscriber, activity, the counter layer and the
 *               collector (pc_collector.h), in that order, and their undoing;
 *   state       pc_gpu_poll (a fatal CUPTI error, counters refused in a
 *               callback), pc_gpu_quiesce (stop collecting), pc_gpu_marks;
 *   regions     pc_gpu_region_open, and at a region's end
 *               pc_gpu_region_harvest (pc_harvest.c): one owned plain-C
 *               snapshot of what the region collected (pc_snapshot.h), which
 *               lib/core turns into report entries (pc_region_build);
 *               pc_gpu_region_drop forgets a region without collecting;
 *   injection   pc_gpu_inject_start (inside cuInit), pc_gpu_nvtx_*,
 *               pc_gpu_set_counter_gate, pc_gpu_fork_child,
 *               pc_gpu_flush_activity: what the injection runtime needs.
 *
 * Data crosses by copy: no pointer returned here points into lib/gpu's
 * tables.  Every call here is made with the session lock held (the session
 * serializes them) and never from a CUPTI callback, except pc_gpu_marks,
 * pc_gpu_region_open and pc_gpu_region_mark_end, which the injection
 * library also calls inside NVTX callbacks.
 *
 * Errors (docs/architecture.md, "Errors"): a fallible call returns a
 * perfcheck_status and fills the caller's pc_err (status and message, one
 * helper: pc_err_set); nothing here prints.  Lines meant for the program's
 * stderr (the progress line) go through the session's `say` function.
 */
#ifndef PC_GPU_H
#define PC_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "model/pc_core.h"
#include "base/pc_regex.h"
#include "capture/pc_regions.h"
#include "model/pc_snapshot.h"

/* ---- lifecycle ------------------------------------------------------------------------ */

typedef struct pc_gpu_config {
  perfcheck_mode mode;
  const char *metrics;          /* NULL: "default" */
  const pc_regex *kernel_regex;  /* NULL: every kernel; borrowed until pc_gpu_stop */
  uint64_t launch_skip, launch_count;
  unsigned per_signature;       /* >= 1 */
  int progress;
  /* Where lib/gpu's lines for the program's stderr go (the progress line,
   * one per profiled launch when progress is on); NULL: nowhere.  Called
   * inside CUPTI callbacks: it must take no session lock. */
  void (*say)(const char *line);
} pc_gpu_config;

typedef struct pc_gpu_started {
  int device0_ok;               /* device 0's facts below are the driver's */
  pc_device device0;
  pc_err device0_why;           /* why not, when !device0_ok */
  char metric_set[32];          /* the counter set in use, "" when counters are off */
  pc_err counters_why;          /* why counters are off although asked for (empty message otherwise) */
  unsigned rotate_groups;       /* PERFCHECK_REPLAY=rotate: launches per set; 0 kernel replay */
  pc_err replay_why;            /* why rotation was asked for and is off, or why it is on unasked */
} pc_gpu_started;

/* Starts the GPU side: the metric list is parsed first (a typo is an error in
 * every mode, GPU or not), then the driver is probed (CUPTI crashes without
 * one), then the subscriber, activity and, unless in timing mode, the counter
 * layer (its refusal is not an error: counters_why says why, timing goes
 * on).  On failure everything started is undone.  Returns PERFCHECK_OK,
 * PERFCHECK_ERROR_INVALID_ARGUMENT (metrics), PERFCHECK_ERROR_NO_DRIVER,
 * PERFCHECK_ERROR_NO_DEVICE, PERFCHECK_ERROR_DRIVER_TOO_OLD,
 * PERFCHECK_ERROR_CUPTI_IN_USE, PERFCHECK_ERROR_CUPTI_UNAVAILABLE,
 * PERFCHECK_ERROR_OUT_OF_MEMORY, with the detail in *err. */
perfcheck_status pc_gpu_start(const pc_gpu_config *c, pc_gpu_started *out, pc_err *err);
/* Undoes pc_gpu_start (deactivates the callbacks, stops activity,
 * unsubscribes, destroys the counter layer, forgets the driver caches). */
void pc_gpu_stop(void);
/* From now on pc_gpu_stop only deactivates the callbacks and flushes
 * activity: CUPTI stays subscribed and nothing a callback could touch is
 * freed.  For the injection library at process exit: libraries still emit
 * NVTX ranges and launch kernels while they tear down, and CUPTI's handlers
 * must not run without a subscriber (a PyTorch script died in libcupti at
 * exit on the H200 when perfcheck unsubscribed first). */
void pc_gpu_keep_cupti(void);
/* The process is exiting (the injection library's exit handler or signal
 * watcher): regions harvested from now on read no function attributes from
 * the driver.  C++ destructors that ran before our exit handler have unloaded
 * the program's CUDA libraries, and a CUkernel handle of theirs dangles
 * (cuKernelGetFunction crashed inside libcuda at exit of a PyTorch script on
 * the H200, 2026-12-01): such signatures take registers and shared memory
 * from their activity record, and say so. */
void pc_gpu_mark_exit(void);
int pc_gpu_exiting(void);

/* ---- state ----------------------------------------------------------------------------- */

typedef struct pc_gpu_events {
  int fatal;                    /* CUPTI reported a fatal error: no further CUPTI call */
  pc_err fatal_why;
  int refused;                  /* counters were refused in a launch callback (once) */
  pc_err refused_why;           /* "counters refused (STATUS): why and the fix" */
} pc_gpu_events;
/* What the callbacks noticed since the last poll. */
void pc_gpu_poll(pc_gpu_events *ev);
/* Nonzero once CUPTI reported a fatal error. */
int pc_gpu_fatal(void);
/* Stops collecting (the session went inert): launches are no longer
 * recorded or profiled. */
void pc_gpu_quiesce(void);

/* The marks now (pc_region_marks, pc_regions.h).  Safe inside a CUPTI callback (no CUDA call but
 * cuptiGetTimestamp; the gpu lock is taken briefly). */
void pc_gpu_marks(pc_region_marks *out);

/* Where the numbers come from: the loaded CUPTI ("" / 0 / -1 before a
 * successful load) and the demangler (pc_demangler()). */
void pc_gpu_tool(char *cupti_path, size_t len, unsigned *cupti_version, int *cupti_preloaded);

/* ---- regions ------------------------------------------------------------------------------ */

/* Regions live on the one region stack of the capture (pc_regions.h); the
 * session and the injection library name them by id. */

/* Takes the marks, then opens a region named `name` (copied), child of the
 * current one (flags: PC_RG_PROGRAM, PC_RG_RECORDED, PC_RG_NVTX): a new id
 * (never 0, never reused in the process) tags every launch from now on, from
 * any thread.  Safe in a CUPTI callback.  Returns 0 on out of memory. */
uint32_t pc_gpu_region_open(const char *name, unsigned flags);
/* An NVTX pop, inside a callback: region id ends now (its marks are taken)
 * and launches go to its parent; the rest of its end waits for
 * pc_gpu_region_harvest. */
void pc_gpu_region_mark_end(uint32_t id);
/* The region perfcheck_session_end ends (the innermost one the session
 * opened and has not ended): its id, 0 when none; *nvtx_here is set when
 * the session pushed an NVTX range for it on this thread. */
uint32_t pc_gpu_region_innermost(int *nvtx_here);
/* The region to end next when every region ends (destroy, exit): children
 * before their parents, siblings in the order they began; 0 when none.
 * *nvtx_here as for pc_gpu_region_innermost. */
uint32_t pc_gpu_region_next_to_end(int *nvtx_here);

/* Ends region id: launches go to its parent from now on; the contexts that
 * launched in it are synchronized (a kernel fault shows here), activity is
 * flushed, counter results collected; then everything the region collected
 * is copied into a new snapshot (*out), its kernels and profiled launches
 * are handed to the parent region (for its busy time and its profiling cut),
 * and the region leaves the stack.  Returns PERFCHECK_OK,
 * PERFCHECK_ERROR_KERNEL_FAULT (the snapshot is still made, with `fault`
 * set), PERFCHECK_ERROR_NO_REGION (unknown id), PERFCHECK_ERROR_OUT_OF_MEMORY
 * (no snapshot; the region is dropped); detail in *err. */
perfcheck_status pc_gpu_region_harvest(uint32_t id, pc_snapshot **out, pc_err *err);

/* Ends region id without collecting (an inert session, or destroy without
 * an output): what it recorded is forgotten, nothing is synchronized. */
void pc_gpu_region_drop(uint32_t id);

/* ---- injection (lib/inject) ------------------------------------------------------------
 * A linked program sets none of these, and then nothing below changes what
 * lib/gpu does. */

typedef struct pc_gpu_inject_hooks {
  /* From every CONTEXT_CREATED callback, first, whether a session runs or
   * not: the injection library starts its session in the first one, where
   * the driver is initialized (InitializeInjection runs inside cuInit, where
   * it is not).  It may start the session (not stop it). */
  void (*context_created)(void);
  /* From CONTEXT_DESTROY_STARTING while a session runs, before the context
   * is marked dead and before the counter layer frees its images. */
  void (*context_destroying)(void);
  /* NVTX push/pop ranges of the default domain (nvtxRangePushA/W/Ex,
   * nvtxRangePop, nvtxDomainRangePushEx/Pop with the NULL domain), once
   * pc_gpu_nvtx_enable turned them on, while a session runs; the name is
   * decoded (UTF-8) and valid during the call.  Inside a CUPTI callback: no
   * session lock, no CUDA call. */
  void (*range_push)(const char *name);
  void (*range_pop)(void);
  /* NVTX start/end ranges of the default domain (nvtxRangeStartA/W/Ex,
   * nvtxRangeEnd, nvtxDomainRangeStartEx/End with the NULL domain), as the
   * push/pop ones: NVTX's range id (0 when CUPTI gave none) and the name.
   * A range belongs to the process: it may end on another thread. */
  void (*range_start)(uint64_t id, const char *name);
  void (*range_end)(uint64_t id);
} pc_gpu_inject_hooks;

/* Inside cuInit (the loader's InitializeInjection): keeps the hooks (copied),
 * loads CUPTI, subscribes and enables activity, before any context exists,
 * as NVIDIA's injection samples do; the session's pc_gpu_start later finds
 * both on.  Idempotent.  On failure nothing stays subscribed.  Returns
 * PERFCHECK_OK or pc_gpu_start's CUPTI statuses, with the detail in *err. */
perfcheck_status pc_gpu_inject_start(const pc_gpu_inject_hooks *hooks, pc_err *err);

/* Inside cuInit too, when the session will want counters: starts loading
 * the counter layer's host library on a thread of its own while the driver
 * creates the first context (pc_rp_preload), off the first launch's path. */
void pc_gpu_counters_preload(void);

/* Turns the NVTX range callbacks on (or off), forwarded to the hooks.
 * PERFCHECK_OK or PERFCHECK_ERROR_CUPTI_UNAVAILABLE (*err says which call).
 * NVTX calls reach CUPTI only when NVTX_INJECTION64_PATH names libcupti or a
 * library forwarding to cuptiNvtxInitialize2 (pc_gpu_nvtx_initialize). */
perfcheck_status pc_gpu_nvtx_enable(int on, pc_err *err);
/* NVTX's tool initialization (nvtx_version 2 or 1), forwarded to the CUPTI
 * this library loads (it links none): returns 1 when CUPTI took NVTX's
 * export table, 0 when NVTX stays without a tool. */
int pc_gpu_nvtx_initialize(int nvtx_version, void *get_export_table);
/* Counters only while gate() returns nonzero (PERFCHECK_NVTX: a range of
 * that name is open); launches outside say PC_NP_NVTX.  NULL: no gate.
 * Called inside launch callbacks. */
void pc_gpu_set_counter_gate(int (*gate)(void));
/* In a fork child: stop recording at once (no lock is taken). */
void pc_gpu_fork_child(void);
/* Force-flushes activity and decodes it (a context is about to go: its
 * kernel records must be in first).  Not with a lib/gpu lock held. */
void pc_gpu_flush_activity(void);

#endif /* PC_GPU_H */
