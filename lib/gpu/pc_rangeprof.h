/*
 * pc_rangeprof.h: hardware counters through the CUPTI Range Profiler and
 * Profiler Host APIs (auto range + kernel replay), the contract between the
 * launch capture (pc_capture.c) and the counter layer (pc_rangeprof.c,
 * pc_metrics_host.c).  No CUDA type appears here: contexts are void *.
 *
 * Threading: every pc_rp_* call is serialized by the caller (the capture
 * layer holds its launch lock around the launch hooks; the session holds its
 * lock around create/collect/destroy).  The launch hooks run inside CUPTI
 * launch callbacks on the launching thread: they may call range-profiler
 * functions (as NVIDIA's own injection sample does) and nothing else of CUDA.
 */
#ifndef PC_RANGEPROF_H
#define PC_RANGEPROF_H

#include <stddef.h>
#include <stdint.h>

#include "../core/pc_core.h"

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
} pc_rp_plan;

/* Parses a metric spec into a plan (no CUPTI call).  Returns PERFCHECK_OK or
 * PERFCHECK_ERROR_INVALID_ARGUMENT (empty item, bad set name). */
perfcheck_status pc_rp_plan_parse(const char *spec, pc_rp_plan *plan, char *err, size_t errlen);
void pc_rp_plan_free(pc_rp_plan *plan);
/* The counter names a plan collects, in order (PC_M_* first, then extras);
 * *n receives the count.  The array and strings are owned by the plan's
 * caller until pc_rp_plan_free. */
size_t pc_rp_plan_counter_names(const pc_rp_plan *plan, const char **names, size_t cap);

/* Host API only, no GPU needed: validates the plan's names for `chip`
 * ("GH100"), moving invalid ones to plan->rejected, and returns the number of
 * passes CUPTI needs.  Returns PERFCHECK_OK, PERFCHECK_ERROR_CUPTI_UNAVAILABLE,
 * PERFCHECK_ERROR_UNSUPPORTED (unknown chip). */
perfcheck_status pc_rp_count_passes(const char *chip, pc_rp_plan *plan, int *passes, char *err,
                                    size_t errlen);

/* Creates the counter layer for the current process: initializes the CUPTI
 * profiler, and per device reached later, the host object.  `plan` is moved
 * in (the caller's copy is zeroed).  Returns PERFCHECK_OK,
 * PERFCHECK_ERROR_COUNTERS_NOT_PERMITTED, PERFCHECK_ERROR_COUNTERS_BUSY,
 * PERFCHECK_ERROR_UNSUPPORTED, PERFCHECK_ERROR_CUPTI_UNAVAILABLE; msg says
 * which call failed and the fix. */
perfcheck_status pc_rp_create(pc_rp_plan *plan, int progress, pc_rp **out, char *msg, size_t msglen);

/* Launch hook, from the driver launch ENTER callback, before the launch
 * runs.  profile != 0: this launch is to be profiled (filters already
 * applied by the caller); the profiler is enabled on `ctx` if needed and
 * started.  profile == 0: the profiler is stopped on ctx if it was running,
 * so the launch runs unprofiled.  `correlation_id` identifies the launch. */
void pc_rp_on_launch(pc_rp *rp, void *ctx, uint32_t correlation_id, int profile);

/* Graph launches must never run under auto range + kernel replay (it left a
 * graph's second kernel unwritten on the H200, cupti-notes §11): stops the
 * profiler on ctx. */
void pc_rp_on_graph_launch(pc_rp *rp, void *ctx);

/* Context destruction (CONTEXT_DESTROY_STARTING): collect what is pending
 * for ctx (pc_rp_collect semantics for that context), then disable. */
void pc_rp_on_context_destroy(pc_rp *rp, void *ctx);

/* Result of one profiled launch. values[] is indexed by pc_metric_id (NaN
 * for metrics not in the plan or not evaluated); extra[] follows the plan's
 * extra names. */
typedef struct pc_rp_result {
  uint32_t correlation_id;
  void *ctx;
  int passes;
  const double *values;
  const double *extra;
  size_t nextra;
} pc_rp_result;

typedef void (*pc_rp_result_fn)(void *user, const pc_rp_result *res);

/* Stops the profiler on every context, decodes, evaluates and calls fn for
 * every profiled launch since the last collect, in launch order.  Must not be
 * called from a CUPTI callback.  Returns PERFCHECK_OK or an error status (msg
 * filled); ranges CUPTI dropped are counted in *dropped. */
perfcheck_status pc_rp_collect(pc_rp *rp, pc_rp_result_fn fn, void *user, uint64_t *dropped,
                               char *msg, size_t msglen);

/* Passes per profiled launch for the plan on the devices seen (0 before any
 * launch). */
int pc_rp_passes(const pc_rp *rp);
const pc_rp_plan *pc_rp_get_plan(const pc_rp *rp);
/* Host time spent in range-profiler calls (start/stop/decode), nanoseconds. */
uint64_t pc_rp_overhead_ns(const pc_rp *rp);

void pc_rp_destroy(pc_rp *rp);

#endif /* PC_RANGEPROF_H */
