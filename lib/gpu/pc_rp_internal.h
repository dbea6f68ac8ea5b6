/*
 * pc_rp_internal.h: what pc_metrics_host.c (host side: plans, validation,
 * config images, pass counts) shares with pc_rangeprof.c (target side).
 * Private to lib/gpu; nothing here is exported.
 */
#ifndef PC_RP_INTERNAL_H
#define PC_RP_INTERNAL_H

#include <cupti_profiler_host.h>
#include <cupti_result.h>

#include "pc_call.h"
#include "pc_cupti.h"
#include "pc_rangeprof.h"

/* A CUPTI parameter struct: structSize set, everything else (pPriv
 * included) zero, as the profiler API requires. */
#define PC_PARAMS(type) {.structSize = type##_STRUCT_SIZE}

/* Every CUPTI call of the counter layer goes through PC_CUPTI (pc_call.h). */

/* ---- Loading and the profiler's lifetime ---------------------------------- */

/* Makes sure libnvperf_host.so (which libcupti dlopens for the host API) is
 * loaded: the copy next to the loaded libcupti first (same toolkit), then the
 * loader path.  Once per process.  PERFCHECK_OK or
 * PERFCHECK_ERROR_CUPTI_UNAVAILABLE (err says where it looked). */
perfcheck_status pc_rp_nvperf_load(pc_err *err);

/* ---- Host objects and config images --------------------------------------- */

/* Host object for a chip; avail may be NULL (no counter availability image).
 * PERFCHECK_ERROR_UNSUPPORTED for a chip CUPTI does not know. */
perfcheck_status pc_rp_host_open(const char *chip, const uint8_t *avail, CUpti_Profiler_Host_Object **out,
                                 pc_err *err);
void pc_rp_host_close(CUpti_Profiler_Host_Object *host);

/* Checks every name the plan collects with cuptiProfilerHostGetMetricProperties
 * on `host`; a substitute CUPTI does not know falls back to its primary name;
 * every other invalid name is moved to plan->rejected with the reason (an
 * extra is also removed from plan->extra when remove_extras, else it stays
 * and pc_rp_plan_counter_names skips it).  Returns PERFCHECK_OK or the status
 * of a CUPTI failure other than an invalid name. */
perfcheck_status pc_rp_plan_validate(CUpti_Profiler_Host_Object *host, const char *chip, pc_rp_plan *plan,
                                     int remove_extras, pc_err *err);

/* Builds the config image for the plan's counter names on `chip` (with the
 * availability image, may be NULL): a fresh host object, AddMetrics, the
 * image, the pass count.  A name AddMetrics refuses (a counter the
 * availability image lacks) is found by trying each name alone and is
 * rejected like an invalid one.  On success *host_out (if not NULL) keeps the
 * host object that built the image (evaluation needs it; close it with
 * pc_rp_host_close), *config is malloc'd (NULL with 0 names: *passes 0). */
perfcheck_status pc_rp_plan_configure(const char *chip, const uint8_t *avail, pc_rp_plan *plan,
                                      int remove_extras, CUpti_Profiler_Host_Object **host_out,
                                      uint8_t **config, size_t *config_size, int *passes, pc_err *err);


/* Where each value comes from: the unique counter names handed to CUPTI
 * (sorted by name: CUPTI's pass scheduling depends on the order, and on
 * GH100 the sorted 4-pass default set of an earlier table needed 5 in the
 * table's order), and for each table metric the name it is read from (a),
 * for each extra its name. */
typedef struct pc_rp_sources {
  size_t n;
  const char **names;           /* static table strings or the plan's extras */
  int a[PC_M_COUNT];            /* indexes into names; -1 none */
  unsigned char via[PC_M_COUNT];    /* 1: a substitute fills it */
  size_t nextra;
  int *xsrc;                        /* per extra: index into names, -1 none */
} pc_rp_sources;
/* The sources of the plan's metrics, restricted to want[] (NULL: all the
 * plan wants) and xwant[] (NULL: every extra not rejected).  PERFCHECK_OK or
 * PERFCHECK_ERROR_OUT_OF_MEMORY. */
perfcheck_status pc_rp_plan_sources(const pc_rp_plan *plan, const unsigned char *want, const unsigned char *xwant,
                                    pc_rp_sources *out, pc_err *err);
void pc_rp_sources_free(pc_rp_sources *s);
/* values[PC_M_COUNT] and extra[nextra] (may be NULL) from the evaluated
 * vals[n]; slots without a source are left as they are. */
void pc_rp_sources_apply(const pc_rp_sources *s, const double *vals, double *values, double *extra);

/* ---- Rotation groups ------------------------------------------------------- */

/* A rotation group: metrics whose counters fit one pass, collected by one
 * launch of a signature (pc_rangeprof.c). */
typedef struct pc_rp_group {
  unsigned char want[PC_M_COUNT];   /* the table metrics it collects */
  unsigned char *xwant;             /* the plan's extras it collects (nextra), or NULL */
  int cold;                         /* it holds the DRAM counters: its launches start from a flushed L2 */
} pc_rp_group;
/* Splits the plan's valid metrics into groups of one pass each on chip
 * (with the availability image avail, may be NULL): first fit, the DRAM
 * metrics first, then the table's order, then the extras; a metric that does
 * not fit one pass alone gets a group of its own.  Host API only.  *out is
 * malloc'd (pc_rp_groups_free).  PERFCHECK_OK or the host API's status. */
perfcheck_status pc_rp_plan_groups(const char *chip, const uint8_t *avail, const pc_rp_plan *plan, pc_rp_group **out,
                                   size_t *n, pc_err *err);
void pc_rp_groups_free(pc_rp_group *g, size_t n);
/* The same, read from the cache of an earlier process when there is one
 * (pc_config_cache.c; a validated plan: its extras all valid), else split
 * now and cached for the next. */
perfcheck_status pc_rp_groups_load(const char *chip, const pc_rp_plan *plan, pc_rp_group **out, size_t *n,
                                   pc_err *err);
/* The counter availability image of device `ordinal` (chip `chip`), cached
 * across processes next to the ceilings (pc_config_cache.c): its key, from
 * the driver (device name, PCI location and UUID, a MIG instance's own under
 * MIG), the kernel driver's version line and the CUPTI version; computed at
 * create, outside any callback (0 ok, -1 none: no cache then). */
int pc_rp_avail_key(int ordinal, const char *chip, uint64_t *key);
/* The cached image for (chip, key) (malloc'd into *img, *size), or -1. */
int pc_rp_avail_read(const char *chip, uint64_t key, uint8_t **img, size_t *size);
/* Caches an image for (chip, key); not in a privileged process.  A cache:
 * failing is fine. */
void pc_rp_avail_write(const char *chip, uint64_t key, const uint8_t *img, size_t size);

/* A config image for exactly these counter names (a rotation group's): a
 * fresh host object (kept in *host_out when not NULL, for evaluation).
 * PERFCHECK_OK or the host API's status. */
perfcheck_status pc_rp_build_config(const char *chip, const uint8_t *avail, const char **names, size_t n,
                                    CUpti_Profiler_Host_Object **host_out, uint8_t **config, size_t *config_size,
                                    int *passes, pc_err *err);

#endif /* PC_RP_INTERNAL_H */
