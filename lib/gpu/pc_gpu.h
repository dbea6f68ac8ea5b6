/*
 * pc_gpu.h: everything lib/session.c asks of lib/gpu, and nothing else.
 *
 *   lifecycle   pc_gpu_start, pc_gpu_stop (pc_gpu.c): the driver probe, the
 *               CUPTI subscriber, activity, the counter layer, in that order,
 *               and their undoing;
 *   state       pc_gpu_poll (a fatal CUPTI error, counters refused in a
 *               callback), pc_gpu_quiesce (stop collecting), pc_gpu_marks;
 *   regions     pc_gpu_region_open, and at a region's end
 *               pc_gpu_region_harvest (pc_harvest.c): one owned plain-C
 *               snapshot of what the region collected (pc_snapshot.h), which
 *               lib/core turns into report entries (pc_region_build);
 *               pc_gpu_region_drop forgets a region without collecting.
 *
 * Data crosses by copy: no pointer returned here points into lib/gpu's
 * tables.  Every call here is made with the session lock held (the session
 * serializes them) and never from a CUPTI callback, except pc_gpu_marks and
 * pc_gpu_region_open, which the injection library also calls inside NVTX
 * callbacks.
 */
#ifndef PC_GPU_H
#define PC_GPU_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/pc_core.h"
#include "../core/pc_snapshot.h"

/* ---- lifecycle ------------------------------------------------------------------------ */

typedef struct pc_gpu_config {
  perfcheck_mode mode;
  const char *metrics;          /* NULL: "default" */
  const regex_t *kernel_regex;  /* NULL: every kernel; borrowed until pc_gpu_stop */
  uint64_t launch_skip, launch_count;
  unsigned per_signature;       /* >= 1 */
  int progress;
} pc_gpu_config;

typedef struct pc_gpu_started {
  int device0_ok;               /* device 0's facts below are the driver's */
  pc_device device0;
  char device0_msg[800];        /* why not, when !device0_ok */
  char metric_set[32];          /* the counter set in use, "" when counters are off */
  char counters_note[900];      /* why counters are off although asked for, "" otherwise */
} pc_gpu_started;

/* Starts the GPU side: the metric list is parsed first (a typo is an error in
 * every mode, GPU or not), then the driver is probed (CUPTI crashes without
 * one), then the subscriber, activity and, unless in timing mode, the counter
 * layer (its refusal is not an error: counters_note says why, timing goes
 * on).  On failure everything started is undone.  Returns PERFCHECK_OK,
 * PERFCHECK_ERROR_INVALID_ARGUMENT (metrics), PERFCHECK_ERROR_NO_DRIVER,
 * PERFCHECK_ERROR_NO_DEVICE, PERFCHECK_ERROR_DRIVER_TOO_OLD,
 * PERFCHECK_ERROR_CUPTI_IN_USE, PERFCHECK_ERROR_CUPTI_UNAVAILABLE,
 * PERFCHECK_ERROR_OUT_OF_MEMORY, with the detail in *err. */
perfcheck_status pc_gpu_start(const pc_gpu_config *c, pc_gpu_started *out, pc_err *err);
/* Undoes pc_gpu_start (deactivates the callbacks, stops activity,
 * unsubscribes, destroys the counter layer, forgets the driver caches). */
void pc_gpu_stop(void);

/* ---- state ----------------------------------------------------------------------------- */

typedef struct pc_gpu_events {
  int fatal;                    /* CUPTI reported a fatal error: no further CUPTI call */
  char fatal_msg[300];
  int refused;                  /* counters were refused in a launch callback (once) */
  char refused_msg[900];        /* "counters refused (STATUS): why and the fix" */
} pc_gpu_events;
/* What the callbacks noticed since the last poll. */
void pc_gpu_poll(pc_gpu_events *ev);
/* Nonzero once CUPTI reported a fatal error. */
int pc_gpu_fatal(void);
/* Stops collecting (the session went inert): launches are no longer
 * recorded or profiled. */
void pc_gpu_quiesce(void);

/* What a region's end subtracts from its begin: a timestamp
 * (cuptiGetTimestamp, 0 if unavailable) and the capture's running counts. */
typedef struct pc_region_marks {
  uint64_t ts;
  uint64_t launches, failed, dropped, zero_ts;
} pc_region_marks;
/* The marks now.  Safe inside a CUPTI callback (no CUDA call but
 * cuptiGetTimestamp; the gpu lock is taken briefly). */
void pc_gpu_marks(pc_region_marks *out);

/* Where the numbers come from: the loaded CUPTI ("" / 0 / -1 before a
 * successful load) and the demangler (pc_demangler()). */
void pc_gpu_tool(char *cupti_path, size_t len, unsigned *cupti_version, int *cupti_preloaded);

/* ---- regions ------------------------------------------------------------------------------ */

/* Takes the marks, then opens a region: a new id (never 0, never reused in
 * the process) tags every launch from now on, from any thread.  Returns 0 on
 * out of memory. */
uint32_t pc_gpu_region_open(pc_region_marks *begin);

/* A region being ended. */
typedef struct pc_gpu_region {
  uint32_t id;
  uint32_t parent_id;           /* the region its kernels go to for busy time; 0 none */
  const char *name, *parent;    /* copied into the snapshot */
  int depth;
  int program;                  /* the injection library's whole-program region */
  pc_region_marks begin;
  const pc_region_marks *end;   /* recorded earlier (NVTX); NULL: now */
  uint64_t keep_transfers_from; /* transfers ending before this are no use to any open region */
} pc_gpu_region;

/* Ends region g: launches go to its parent from now on; the contexts that
 * launched in it are synchronized (a kernel fault shows here), activity is
 * flushed, counter results collected; then everything the region collected
 * is copied into a new snapshot (*out), and its kernels and profiled launches
 * are handed to the parent region for its busy time.  Returns PERFCHECK_OK,
 * PERFCHECK_ERROR_KERNEL_FAULT (the snapshot is still made, with `fault`
 * set), PERFCHECK_ERROR_OUT_OF_MEMORY (no snapshot); detail in *err. */
perfcheck_status pc_gpu_region_harvest(const pc_gpu_region *g, pc_snapshot **out, pc_err *err);

/* Ends region g without collecting (an inert session, or destroy without an
 * output): what it recorded is forgotten, nothing is synchronized. */
void pc_gpu_region_drop(const pc_gpu_region *g);

#endif /* PC_GPU_H */
