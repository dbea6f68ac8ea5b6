/*
 * pc_rp_internal.h: what pc_metrics_host.c (host side: plans, validation,
 * config images, pass counts) shares with pc_rangeprof.c (target side).
 * Private to lib/gpu; nothing here is exported.
 */
#ifndef PC_RP_INTERNAL_H
#define PC_RP_INTERNAL_H

#include <cupti_profiler_host.h>
#include <cupti_result.h>

#include "pc_cupti.h"
#include "pc_rangeprof.h"

/* A CUPTI parameter struct: structSize set, everything else (pPriv
 * included) zero, as the profiler API requires. */
#define PC_PARAMS(type) {.structSize = type##_STRUCT_SIZE}

/* ---- The one CUPTI call wrapper ------------------------------------------
 * Every CUPTI call of the counter layer goes through PC_CUPTI(fn, args...).
 * On failure it records "fn: CUPTI_ERROR_..." for this thread
 * (pc_cupti_last()).  After a 39 (MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED: ncu or
 * compute-sanitizer holds the process) every later call is refused without
 * reaching CUPTI: on the H200 a CUPTI call after a 39 segfaulted
 * (docs/cupti.md §11). */
CUptiResult pc_cupti_note(CUptiResult r, const char *fn);
int pc_cupti_blocked(void);
CUptiResult pc_cupti_refuse(const char *fn);
#define PC_CUPTI(fn, ...) (pc_cupti_blocked() ? pc_cupti_refuse(#fn) : pc_cupti_note(pc_cupti.fn(__VA_ARGS__), #fn))

/* "cuptiRangeProfilerEnable: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES", the last
 * failure recorded on this thread ("" if none). */
const char *pc_cupti_last(void);
/* The perfcheck status for a CUPTI result. */
perfcheck_status pc_cupti_status(CUptiResult r);
/* One sentence: how to fix a refusal (privileges, busy, in use), or "". */
const char *pc_cupti_fix(CUptiResult r);

/* ---- Loading and the profiler's lifetime ---------------------------------- */

/* Makes sure libnvperf_host.so (which libcupti dlopens for the host API) is
 * loaded: the copy next to the loaded libcupti first (same toolkit), then the
 * loader path.  Once per process.  PERFCHECK_OK or
 * PERFCHECK_ERROR_CUPTI_UNAVAILABLE (err says where it looked). */
perfcheck_status pc_rp_nvperf_load(char *err, size_t errlen);
/* The path it was loaded from ("" before). */
const char *pc_rp_nvperf_path(void);

/* cuptiProfilerInitialize on the first acquire, cuptiProfilerDeInitialize on
 * the last release (a process-wide count, so perfcheck_metric_passes never
 * de-initializes a live session's profiler).  Needs a driver. */
perfcheck_status pc_rp_profiler_acquire(char *err, size_t errlen);
void pc_rp_profiler_release(void);

/* ---- Host objects and config images --------------------------------------- */

/* Host object for a chip; avail may be NULL (no counter availability image).
 * PERFCHECK_ERROR_UNSUPPORTED for a chip CUPTI does not know. */
perfcheck_status pc_rp_host_open(const char *chip, const uint8_t *avail, CUpti_Profiler_Host_Object **out,
                                 char *err, size_t errlen);
void pc_rp_host_close(CUpti_Profiler_Host_Object *host);

/* Checks every name the plan collects with cuptiProfilerHostGetMetricProperties
 * on `host`; a substitute CUPTI does not know falls back to its primary name;
 * every other invalid name is moved to plan->rejected with the reason (an
 * extra is also removed from plan->extra when remove_extras, else it stays
 * and pc_rp_plan_counter_names skips it).  Returns PERFCHECK_OK or the status
 * of a CUPTI failure other than an invalid name. */
perfcheck_status pc_rp_plan_validate(CUpti_Profiler_Host_Object *host, const char *chip, pc_rp_plan *plan,
                                     int remove_extras, char *err, size_t errlen);

/* Builds the config image for the plan's counter names on `chip` (with the
 * availability image, may be NULL): a fresh host object, AddMetrics, the
 * image, the pass count.  A name AddMetrics refuses (a counter the
 * availability image lacks) is found by trying each name alone and is
 * rejected like an invalid one.  On success *host_out (if not NULL) keeps the
 * host object that built the image (evaluation needs it; close it with
 * pc_rp_host_close), *config is malloc'd (NULL with 0 names: *passes 0). */
perfcheck_status pc_rp_plan_configure(const char *chip, const uint8_t *avail, pc_rp_plan *plan,
                                      int remove_extras, CUpti_Profiler_Host_Object **host_out,
                                      uint8_t **config, size_t *config_size, int *passes, char *err,
                                      size_t errlen);

/* Adds name to plan->rejected (once) with reason; see pc_rp_plan.cap_rejected. */
void pc_rp_plan_reject(pc_rp_plan *plan, const char *name, const char *reason);
/* 1 if name is in plan->rejected. */
int pc_rp_plan_is_rejected(const pc_rp_plan *plan, const char *name);

/* The slot each counter name of the plan fills, in pc_rp_plan_counter_names
 * order: a pc_metric_id, or PC_M_COUNT + i for plan->extra[i].  Returns the
 * count (at most cap filled). */
size_t pc_rp_plan_slots(const pc_rp_plan *plan, size_t *slots, size_t cap);

#endif /* PC_RP_INTERNAL_H */
