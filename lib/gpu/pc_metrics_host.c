/*
 * pc_metrics_host.c: the host side of the counter layer.  Metric plans
 * (parsing "default", "sol", "full" and lists), name validation, config
 * images and pass counts through CUPTI's Profiler Host API, which needs no GPU
 * when given a chip name; and perfcheck_metric_passes().
 *
 * Which counters a set collects, and in which order CUPTI gets them: the
 * unique counter names, sorted (pc_rp_plan_sources).  CUPTI's pass
 * scheduling depends on the order (200 random orders of the old 4-pass
 * default set on GH100: 4 passes in 177, 5 in 23; the table's order gave 5,
 * sorted gives 4).  Passes measured with the host API (CUDA 13.0 Update 1,
 * no availability image; tests/unit/test_passes.c checks every number):
 *
 *   passes                    GH100  GB100  AD102  GA100  TU102
 *   default                     8      8      8      7      7
 *   default, l1tex requests     8      8      8      7      7
 *   sol                        14     13     12     10     10
 *   full                       17     15     14     13     12
 *   rotation groups, default    9      8     10      8      9
 *
 * `default` and `sol` collect two quantities through substitutes (the SASS
 * counts of pc_metrics.c's table: ld/st instruction counts for the L1TEX
 * request counters, and the local sectors): they ride in the instrumented
 * pass that the flop counts need anyway.  Since the default set holds every
 * pipe its SM counters bound the pass count, and the L1TEX request counters
 * no longer add a pass; the substitutes still keep L1TEX counters (23 ms a
 * pass on the H200, docs/cupti.md section 17) out of the SM passes.  `full`
 * collects every
 * metric as ncu spells it, so that a full run can be compared with ncu
 * counter for counter.  A list can choose either way: naming the ncu metric
 * collects it, naming the substitute collects the substitute.
 */
#define _GNU_SOURCE /* dlinfo, RTLD_DI_LINKMAP */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include "pc_cuda.h"
#include "pc_rp_internal.h"
#include "base/pc_buf.h"
#include "base/pc_util.h"

/* ==== libnvperf_host.so ==================================================== */

/* The load's one result, written inside its pthread_once. */
static struct {
  pthread_once_t once;
  pc_err why; /* status PERFCHECK_OK: loaded */
} pc_nvperf = {PTHREAD_ONCE_INIT, {PERFCHECK_ERROR_CUPTI_UNAVAILABLE, ""}};

/* libcupti dlopens libnvperf_host.so with RTLD_DEEPBIND, and the
 * sanitizers' dlopen interceptor aborts the whole process on that flag
 * (google/sanitizers#611), already-loaded copy or not: the name of the
 * sanitizer runtime loaded, or NULL. */
static const char *pc_nvperf_sanitizer(void) {
  static const char *const sanitizers[] = {"__asan_init", "__tsan_init", "__msan_init", "__hwasan_init"};
  for (size_t i = 0; i < sizeof sanitizers / sizeof sanitizers[0]; i++)
    if (dlsym(RTLD_DEFAULT, sanitizers[i])) return sanitizers[i];
  return NULL;
}

/* libcupti dlopens "libnvperf_host.so" by that name at its first host-API
 * call.  The toolkit's ld.so.conf entry usually makes it resolve; where it
 * does not (no ldconfig entry, no LD_LIBRARY_PATH, a pip-installed CUPTI),
 * loading it here by full path first makes libcupti's own dlopen find the
 * loaded copy by its SONAME.  The copy next to libcupti (`cupti_path`) comes
 * first: it is the one of the same toolkit.  The handle is never closed.
 * No lock and no once of ours: pc_nvperf_load_once and the preload thread
 * both call it, and the loader's own lock orders them (so a thread that
 * holds the loader's lock, inside a library's constructor, never waits for
 * the preload thread).  PERFCHECK_OK, or PERFCHECK_ERROR_CUPTI_UNAVAILABLE
 * when neither loads, with *err saying why. */
static perfcheck_status pc_nvperf_open(const char *cupti_path, pc_err *err) {
  pc_err_clear(err);
  void *h = dlopen("libnvperf_host.so", RTLD_NOW | RTLD_NOLOAD);
  if (h) return PERFCHECK_OK;
  char dir[400] = "";
  snprintf(dir, sizeof dir, "%s", cupti_path);
  {
    char *slash = strrchr(dir, '/');
    if (slash)
      *slash = '\0';
    else
      dir[0] = '\0';
  }
  char first_err[200] = "";
  if (dir[0]) {
    char path[512];
    snprintf(path, sizeof path, "%s/libnvperf_host.so", dir);
    h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    if (h) return PERFCHECK_OK;
    const char *e = dlerror();
    snprintf(first_err, sizeof first_err, "%s", e ? e : "not found");
  }
  h = dlopen("libnvperf_host.so", RTLD_NOW | RTLD_GLOBAL);
  if (h) return PERFCHECK_OK;
  const char *e = dlerror();
  return pc_err_set(err, PERFCHECK_ERROR_CUPTI_UNAVAILABLE,
                    "libnvperf_host.so (CUPTI's profiler host library) was found neither next to libcupti (%s: %s) "
                    "nor on the loader path (%s)",
                    dir[0] ? dir : "libcupti's folder unknown", first_err[0] ? first_err : "-", e ? e : "not found");
}

static void pc_nvperf_load_once(void) {
  const char *san = pc_nvperf_sanitizer();
  if (san) { /* refuse instead of letting CUPTI's dlopen abort the process */
    pc_err_set(&pc_nvperf.why, PERFCHECK_ERROR_CUPTI_UNAVAILABLE,
               "a sanitizer runtime is loaded (%s): CUPTI opens libnvperf_host.so with RTLD_DEEPBIND, which the "
               "sanitizer answers by aborting the process, so CUPTI's profiler host API is not used",
               san);
    return;
  }
  pc_err le;
  if (pc_cupti_load(&le) != PERFCHECK_OK) {
    pc_err_set(&pc_nvperf.why, PERFCHECK_ERROR_CUPTI_UNAVAILABLE, "%s", le.msg);
    return;
  }
  if (pc_nvperf_open(pc_cupti_path(), &le) != PERFCHECK_OK)
    pc_nvperf.why = le;
  else
    pc_err_clear(&pc_nvperf.why);
}

perfcheck_status pc_rp_nvperf_load(pc_err *err) {
  pthread_once(&pc_nvperf.once, pc_nvperf_load_once);
  if (pc_nvperf.why.status != PERFCHECK_OK && err) *err = pc_nvperf.why;
  return pc_nvperf.why.status;
}

/* The preload thread: loads the library and ends (pc_rp_create's
 * pc_rp_nvperf_load then finds it loaded, or loads it itself meanwhile). */
static void *pc_nvperf_preload_main(void *arg) {
  (void)pthread_setname_np(pthread_self(), "perfcheck-load");
  (void)pc_nvperf_open((const char *)arg, NULL); /* pc_rp_create reports its own */
  free(arg);
  return NULL;
}

void pc_rp_preload(void) {
  static atomic_int started;
  if (atomic_exchange(&started, 1)) return;
  /* CUPTI is loaded by now (pc_gpu_inject_start), so its path is known; the
   * thread gets a copy and reads nothing of ours. */
  const char *cupti = pc_cupti_path();
  if (!cupti[0] || pc_nvperf_sanitizer()) return;
  char *arg = strdup(cupti);
  if (!arg) return;
  pthread_attr_t a;
  if (pthread_attr_init(&a) != 0) {
    free(arg);
    return;
  }
  (void)pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
  /* Every signal blocked in the new thread: the program's handlers run on
   * its own threads only. */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_t t;
  if (pthread_create(&t, &a, pc_nvperf_preload_main, arg) != 0) free(arg); /* pc_rp_create loads it itself */
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  pthread_attr_destroy(&a);
}


/* ==== Profiler initialize / de-initialize ================================== */

/* ==== Plans ================================================================= */


static int pc_plan_add_extra(pc_rp_plan *plan, const char *name, size_t len) {
  for (size_t i = 0; i < plan->nextra; i++)
    if (strlen(plan->extra[i]) == len && strncmp(plan->extra[i], name, len) == 0) return 0; /* duplicate */
  char **grown = realloc(plan->extra, (plan->nextra + 1) * sizeof *grown);
  if (!grown) return -1;
  plan->extra = grown;
  char *copy = malloc(len + 1);
  if (!copy) return -1;
  memcpy(copy, name, len);
  copy[len] = '\0';
  plan->extra[plan->nextra++] = copy;
  return 0;
}

perfcheck_status pc_rp_plan_parse(const char *spec, pc_rp_plan *plan, pc_err *err) {
  pc_err_clear(err);
  if (!plan) return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "no plan to fill");
  memset(plan, 0, sizeof *plan);
  if (!spec) spec = "default";

  unsigned sets = 0;          /* PC_SET_* named in the spec */
  int nset_items = 0, nnamed = 0;
  char one_set[16] = "";      /* the set's name when the spec is one set */
  unsigned char named_primary[PC_M_COUNT] = {0}, named_substitute[PC_M_COUNT] = {0};
  const char *p = spec;
  for (int item = 1;; item++) {
    const char *end = strchr(p, ',');
    const char *stop = end ? end : p + strlen(p);
    const char *a = p, *b = stop;
    while (a < b && (*a == ' ' || *a == '\t' || *a == '\n')) a++;
    while (b > a && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '\n')) b--;
    size_t len = (size_t)(b - a);
    if (len == 0) {
      pc_rp_plan_free(plan);
      return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "metric list \"%s\": item %d is empty", spec, item);
    }
    /* The set names are lib/core's (pc_metric_set_bit): perfcheck's and ncu's. */
    const unsigned bit = pc_metric_set_bit(a, len);
    const int is_set = bit != 0;
    if (is_set) {
      if (!(sets & bit)) nset_items++;
      sets |= bit;
      if (len < sizeof one_set) snprintf(one_set, sizeof one_set, "%.*s", (int)len, a);
    }
    if (!is_set) {
      char name[PC_METRIC_NAME_MAX];
      /* Every ncu metric name has a "__" after its unit; a word without
       * one can only be a misspelt set name. */
      int looks_metric = 0;
      for (size_t i = 0; i + 1 < len; i++)
        if (a[i] == '_' && a[i + 1] == '_') looks_metric = 1;
      if (!looks_metric) {
        pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT,
                   "metric list \"%s\": \"%.*s\" is neither a set (%s) nor a metric name", spec, (int)len, a,
                   pc_metric_set_names);
        pc_rp_plan_free(plan);
        return PERFCHECK_ERROR_INVALID_ARGUMENT;
      }
      nnamed++;
      const pc_metric_def *m = NULL;
      int via_sub = 0;
      if (len < sizeof name) {
        memcpy(name, a, len);
        name[len] = '\0';
        m = pc_metric_lookup(name, &via_sub);
      }
      if (m) {
        plan->want[m->id] = 1;
        if (via_sub)
          named_substitute[m->id] = 1;
        else
          named_primary[m->id] = 1;
      } else if (pc_plan_add_extra(plan, a, len) != 0) {
        pc_rp_plan_free(plan);
        return pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "out of memory");
      }
    }
    if (!end) break;
    p = end + 1;
  }

  const pc_metric_def *t = pc_metric_table();
  for (int i = 0; i < PC_M_COUNT; i++) {
    int from_set = (t[i].sets & sets) != 0;
    if (from_set) plan->want[i] = 1;
    if (!plan->want[i] || !t[i].substitute) continue;
    /* A name given explicitly wins; between the two, the ncu counter itself.
     * `full` means every metric as ncu spells it. */
    if (named_primary[i])
      plan->use_substitute[i] = 0;
    else if (named_substitute[i])
      plan->use_substitute[i] = 1;
    else
      plan->use_substitute[i] = !(sets & PC_SET_FULL);
  }

  if (nset_items == 1 && nnamed == 0)
    snprintf(plan->set_name, sizeof plan->set_name, "%s", one_set);
  else
    snprintf(plan->set_name, sizeof plan->set_name, "custom");

  /* Room for every name to be rejected once, allocated now so that the
   * arrays never move while a session reads them. */
  plan->cap_rejected = PC_M_COUNT + plan->nextra;
  plan->rejected = calloc(plan->cap_rejected, sizeof *plan->rejected);
  plan->rejected_reason = calloc(plan->cap_rejected, sizeof *plan->rejected_reason);
  if (!plan->rejected || !plan->rejected_reason) {
    pc_rp_plan_free(plan);
    return pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "out of memory");
  }
  return PERFCHECK_OK;
}

void pc_rp_plan_free(pc_rp_plan *plan) {
  if (!plan) return;
  for (size_t i = 0; i < plan->nextra; i++) free(plan->extra[i]);
  free(plan->extra);
  for (size_t i = 0; i < plan->nrejected; i++) {
    free(plan->rejected[i]);
    free(plan->rejected_reason[i]);
  }
  free(plan->rejected);
  free(plan->rejected_reason);
  memset(plan, 0, sizeof *plan);
}

static int pc_rp_plan_is_rejected(const pc_rp_plan *plan, const char *name) {
  for (size_t i = 0; i < plan->nrejected; i++)
    if (strcmp(plan->rejected[i], name) == 0) return 1;
  return 0;
}

static void pc_rp_plan_reject(pc_rp_plan *plan, const char *name, const char *reason) {
  if (pc_rp_plan_is_rejected(plan, name) || plan->nrejected >= plan->cap_rejected) return;
  char *n = pc_strdup(name), *r = pc_strdup(reason);
  if (!n || !r) { /* out of memory: the name is still not collected */
    free(n);
    free(r);
    return;
  }
  plan->rejected[plan->nrejected] = n;
  plan->rejected_reason[plan->nrejected] = r;
  plan->nrejected++;
}

/* The counter name metric `id` is collected from under the plan: the
 * metric's own or its substitute. */
static const char *pc_plan_metric_name(const pc_rp_plan *plan, int id) {
  const pc_metric_def *m = pc_metric_by_id((pc_metric_id)id);
  return plan->use_substitute[id] && m->substitute ? m->substitute : m->name;
}

static int pc_cmp_name(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The unique counter names of the plan, sorted (the order CUPTI gets them
 * in).  Returns the count; *out is malloc'd (NULL with 0 names), -1 on out
 * of memory.  `want` (may be NULL: the plan's own) restricts the table
 * metrics; `xwant` (may be NULL: all) the extras. */
static long pc_plan_names(const pc_rp_plan *plan, const unsigned char *want, const unsigned char *xwant,
                          const char ***out) {
  *out = NULL;
  size_t cap = PC_M_COUNT + plan->nextra, n = 0;
  const char **v = malloc((cap ? cap : 1) * sizeof *v);
  if (!v) return -1;
  for (int i = 0; i < PC_M_COUNT; i++) {
    if (!plan->want[i] || (want && !want[i])) continue;
    v[n++] = pc_plan_metric_name(plan, i);
  }
  for (size_t i = 0; i < plan->nextra; i++)
    if (!pc_rp_plan_is_rejected(plan, plan->extra[i]) && (!xwant || xwant[i])) v[n++] = plan->extra[i];
  qsort(v, n, sizeof *v, pc_cmp_name);
  size_t u = 0;
  for (size_t i = 0; i < n; i++)
    if (u == 0 || strcmp(v[u - 1], v[i]) != 0) v[u++] = v[i];
  if (u == 0) {
    free(v);
    return 0;
  }
  *out = v;
  return (long)u;
}

static int pc_name_index(const char **names, size_t n, const char *name) {
  const char **hit = bsearch(&name, names, n, sizeof *names, pc_cmp_name);
  return hit ? (int)(hit - names) : -1;
}

void pc_rp_sources_free(pc_rp_sources *s) {
  if (!s) return;
  free(s->names);
  free(s->xsrc);
  memset(s, 0, sizeof *s);
}

perfcheck_status pc_rp_plan_sources(const pc_rp_plan *plan, const unsigned char *want, const unsigned char *xwant,
                                    pc_rp_sources *out, pc_err *err) {
  memset(out, 0, sizeof *out);
  for (int i = 0; i < PC_M_COUNT; i++) out->a[i] = -1;
  const long n = pc_plan_names(plan, want, xwant, &out->names);
  if (n < 0 || (plan->nextra && !(out->xsrc = malloc(plan->nextra * sizeof *out->xsrc)))) {
    pc_rp_sources_free(out);
    return pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "out of memory");
  }
  out->n = (size_t)n;
  out->nextra = plan->nextra;
  for (int i = 0; i < PC_M_COUNT; i++) {
    if (!plan->want[i] || (want && !want[i])) continue;
    out->a[i] = pc_name_index(out->names, out->n, pc_plan_metric_name(plan, i));
    out->via[i] = plan->use_substitute[i];
  }
  for (size_t i = 0; i < plan->nextra; i++)
    out->xsrc[i] = (!pc_rp_plan_is_rejected(plan, plan->extra[i]) && (!xwant || xwant[i]))
                       ? pc_name_index(out->names, out->n, plan->extra[i])
                       : -1;
  return PERFCHECK_OK;
}

void pc_rp_sources_apply(const pc_rp_sources *s, const double *vals, double *values, double *extra) {
  for (int i = 0; i < PC_M_COUNT; i++)
    if (s->a[i] >= 0) values[i] = vals[s->a[i]];
  for (size_t i = 0; extra && i < s->nextra; i++)
    if (s->xsrc[i] >= 0) extra[i] = vals[s->xsrc[i]];
}

size_t pc_rp_plan_counter_names(const pc_rp_plan *plan, const char **names, size_t cap) {
  if (!plan) return 0;
  const char **v = NULL;
  const long n = pc_plan_names(plan, NULL, NULL, &v);
  if (n <= 0) return 0;
  for (long k = 0; names && k < n && (size_t)k < cap; k++) names[k] = v[k];
  free(v);
  return (size_t)n;
}

/* ==== The host-API lock ====================================================== */

/* CUPTI's Profiler Host API keeps process-wide state of its own (helgrind
 * saw 1,000 races inside it with perfcheck_metric_passes called from 8
 * threads), so every host-API sequence of this file runs under the loader's
 * lock (pc_proc_lock, pc_cupti.h), recursive because validation and
 * configuration nest.  The host API calls nothing back, so holding it across
 * a CUPTI call cannot deadlock.  The profiler's initialize count above is
 * guarded by the same lock. */

/* ==== Host objects, validation, config images =============================== */

static void pc_list_chips(char *buf, size_t len) {
  buf[0] = '\0';
  CUpti_Profiler_Host_GetSupportedChips_Params p = PC_PARAMS(CUpti_Profiler_Host_GetSupportedChips_Params);
  if (PC_CUPTI(NULL, cuptiProfilerHostGetSupportedChips, &p) != CUPTI_SUCCESS) return;
  size_t used = 0;
  for (size_t i = 0; i < p.numChips && used + 1 < len; i++) {
    int w = snprintf(buf + used, len - used, "%s%s", i ? " " : "", p.ppChipNames[i]);
    if (w < 0) break;
    used += (size_t)w;
  }
}

static perfcheck_status pc_rp_host_open_u(const char *chip, const uint8_t *avail, CUpti_Profiler_Host_Object **out,
                                          pc_err *err) {
  *out = NULL;
  if (!chip || !chip[0]) return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "no chip name");
  perfcheck_status st = pc_rp_nvperf_load(err);
  if (st != PERFCHECK_OK) return st;
  CUpti_Profiler_Host_Initialize_Params p = PC_PARAMS(CUpti_Profiler_Host_Initialize_Params);
  p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  p.pChipName = chip;
  p.pCounterAvailabilityImage = avail;
  pc_err e;
  CUptiResult r = PC_CUPTI(&e, cuptiProfilerHostInitialize, &p);
  if (r == CUPTI_ERROR_INVALID_CHIP_NAME) {
    char chips[400];
    pc_list_chips(chips, sizeof chips);
    return pc_err_set(err, PERFCHECK_ERROR_UNSUPPORTED, "CUPTI's host API does not know the chip \"%s\" (%s)%s%s",
                      chip, e.msg, chips[0] ? "; it knows: " : "", chips);
  }
  if (r != CUPTI_SUCCESS) {
    st = pc_cupti_status(r);
    return pc_err_set(err, st == PERFCHECK_ERROR_NOT_FOUND ? PERFCHECK_ERROR_CUPTI_UNAVAILABLE : st, "%s (chip %s)",
                      e.msg, chip);
  }
  *out = p.pHostObject;
  return PERFCHECK_OK;
}

static void pc_rp_host_close_u(CUpti_Profiler_Host_Object *host) {
  if (!host) return;
  CUpti_Profiler_Host_Deinitialize_Params p = PC_PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
  p.pHostObject = host;
  (void)PC_CUPTI(NULL, cuptiProfilerHostDeinitialize, &p);
}

static CUptiResult pc_metric_props(CUpti_Profiler_Host_Object *host, const char *name, pc_err *e) {
  CUpti_Profiler_Host_GetMetricProperties_Params p = PC_PARAMS(CUpti_Profiler_Host_GetMetricProperties_Params);
  p.pHostObject = host;
  p.pMetricName = name;
  return PC_CUPTI(e, cuptiProfilerHostGetMetricProperties, &p);
}

/* The reason written next to a rejected name. */
static void pc_reject_reason(char *buf, size_t len, const char *name, const char *chip, const char *what) {
  if (strncmp(name, "launch__", 8) == 0 || strcmp(name, "sm__maximum_warps_per_active_cycle_pct") == 0)
    snprintf(buf, len,
             "not a CUPTI metric (ncu computes it; perfcheck computes it from the launch attributes and reports "
             "it anyway)");
  else
    snprintf(buf, len, "not collectable on %.40s (%.200s)", chip, what); /* CUPTI's message, cut to fit */
}

static void pc_remove_extra(pc_rp_plan *plan, size_t i) {
  free(plan->extra[i]);
  memmove(&plan->extra[i], &plan->extra[i + 1], (plan->nextra - i - 1) * sizeof plan->extra[0]);
  plan->nextra--;
}

static perfcheck_status pc_rp_plan_validate_u(CUpti_Profiler_Host_Object *host, const char *chip, pc_rp_plan *plan,
                                              int remove_extras, pc_err *err) {
  char reason[320];
  pc_err e;
  for (int i = 0; i < PC_M_COUNT; i++) {
    if (!plan->want[i]) continue;
    const char *name = pc_plan_metric_name(plan, i);
    CUptiResult r = pc_metric_props(host, name, &e);
    if (r == CUPTI_SUCCESS) continue;
    if (r != CUPTI_ERROR_INVALID_METRIC_NAME && r != CUPTI_ERROR_INVALID_PARAMETER) {
      perfcheck_status st = pc_cupti_status(r);
      return pc_err_set(err, st == PERFCHECK_ERROR_NOT_FOUND ? PERFCHECK_ERROR_CUPTI_UNAVAILABLE : st,
                        "%s (validating %s on %s)", e.msg, name, chip);
    }
    if (plan->use_substitute[i]) {
      /* The substitute is only a cheaper way: fall back to the metric. */
      const pc_metric_def *m = pc_metric_by_id((pc_metric_id)i);
      pc_err e2;
      CUptiResult r2 = pc_metric_props(host, m->name, &e2);
      if (r2 == CUPTI_SUCCESS) {
        plan->use_substitute[i] = 0;
        continue;
      }
    }
    pc_reject_reason(reason, sizeof reason, name, chip, e.msg);
    pc_rp_plan_reject(plan, name, reason);
    plan->want[i] = 0;
    plan->use_substitute[i] = 0;
  }
  for (size_t i = 0; i < plan->nextra;) {
    const char *name = plan->extra[i];
    if (pc_rp_plan_is_rejected(plan, name)) {
      i++;
      continue;
    }
    CUptiResult r = pc_metric_props(host, name, &e);
    if (r == CUPTI_SUCCESS) {
      i++;
      continue;
    }
    if (r != CUPTI_ERROR_INVALID_METRIC_NAME && r != CUPTI_ERROR_INVALID_PARAMETER) {
      perfcheck_status st = pc_cupti_status(r);
      return pc_err_set(err, st == PERFCHECK_ERROR_NOT_FOUND ? PERFCHECK_ERROR_CUPTI_UNAVAILABLE : st,
                        "%s (validating %s on %s)", e.msg, name, chip);
    }
    pc_reject_reason(reason, sizeof reason, name, chip, e.msg);
    pc_rp_plan_reject(plan, name, reason);
    if (remove_extras)
      pc_remove_extra(plan, i);
    else
      i++;
  }
  return PERFCHECK_OK;
}

/* Config image for names on a fresh host object.  *bad_name is set when
 * AddMetrics refused the list (the caller then looks for the culprit). */
static perfcheck_status pc_build_config(const char *chip, const uint8_t *avail, const char **names, size_t n,
                                        CUpti_Profiler_Host_Object **host_out, uint8_t **config,
                                        size_t *config_size, int *passes, int *add_refused, pc_err *err) {
  CUpti_Profiler_Host_Object *host = NULL;
  uint8_t *img = NULL;
  *add_refused = 0;
  pc_err e;
  perfcheck_status st = pc_rp_host_open(chip, avail, &host, err);
  if (st != PERFCHECK_OK) return st;
  CUptiResult r;
  CUpti_Profiler_Host_ConfigAddMetrics_Params ap = PC_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params);
  ap.pHostObject = host;
  ap.ppMetricNames = names;
  ap.numMetrics = n;
  r = PC_CUPTI(&e, cuptiProfilerHostConfigAddMetrics, &ap);
  if (r != CUPTI_SUCCESS) {
    *add_refused = (r == CUPTI_ERROR_INVALID_PARAMETER || r == CUPTI_ERROR_INVALID_METRIC_NAME ||
                    r == CUPTI_ERROR_NOT_SUPPORTED);
    goto fail;
  }
  CUpti_Profiler_Host_GetConfigImageSize_Params sp = PC_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params);
  sp.pHostObject = host;
  r = PC_CUPTI(&e, cuptiProfilerHostGetConfigImageSize, &sp);
  if (r != CUPTI_SUCCESS) goto fail;
  img = malloc(sp.configImageSize ? sp.configImageSize : 1);
  if (!img) {
    pc_rp_host_close(host);
    return pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "out of memory for a %zu-byte config image",
                      sp.configImageSize);
  }
  CUpti_Profiler_Host_GetConfigImage_Params gp = PC_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params);
  gp.pHostObject = host;
  gp.configImageSize = sp.configImageSize;
  gp.pConfigImage = img;
  r = PC_CUPTI(&e, cuptiProfilerHostGetConfigImage, &gp);
  if (r != CUPTI_SUCCESS) goto fail;
  CUpti_Profiler_Host_GetNumOfPasses_Params np = PC_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params);
  np.configImageSize = sp.configImageSize;
  np.pConfigImage = img;
  r = PC_CUPTI(&e, cuptiProfilerHostGetNumOfPasses, &np);
  if (r != CUPTI_SUCCESS) goto fail;
  *config = img;
  *config_size = sp.configImageSize;
  *passes = (int)np.numOfPasses;
  if (host_out)
    *host_out = host;
  else
    pc_rp_host_close(host);
  return PERFCHECK_OK;
fail:
  free(img);
  pc_rp_host_close(host);
  st = pc_cupti_status(r);
  return pc_err_set(err, st == PERFCHECK_ERROR_NOT_FOUND ? PERFCHECK_ERROR_CUPTI_UNAVAILABLE : st,
                    "%s (chip %s, %zu metrics)", e.msg, chip, n);
}

static perfcheck_status pc_rp_plan_configure_u(const char *chip, const uint8_t *avail, pc_rp_plan *plan,
                                               int remove_extras, CUpti_Profiler_Host_Object **host_out,
                                               uint8_t **config, size_t *config_size, int *passes, pc_err *err) {
  if (host_out) *host_out = NULL;
  *config = NULL;
  *config_size = 0;
  *passes = 0;
  for (int attempt = 0; attempt < 2; attempt++) {
    size_t n = pc_rp_plan_counter_names(plan, NULL, 0);
    if (n == 0) return PERFCHECK_OK;
    const char **names = malloc(n * sizeof *names);
    if (!names) return pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "out of memory");
    pc_rp_plan_counter_names(plan, names, n);
    int refused = 0;
    perfcheck_status st =
        pc_build_config(chip, avail, names, n, host_out, config, config_size, passes, &refused, err);
    if (st == PERFCHECK_OK || !refused || attempt == 1) {
      free(names);
      return st;
    }
    /* AddMetrics refused the list although every name passed validation:
     * with a real availability image (MIG, vGPU) a counter can be missing.
     * Try each name alone; reject those that fail, then try once more. */
    char why[sizeof err->msg];
    snprintf(why, sizeof why, "%s", err ? err->msg : "AddMetrics refused the list");
    size_t nrej = 0;
    for (size_t k = 0; k < n; k++) {
      uint8_t *img1 = NULL;
      size_t size1 = 0;
      int p1 = 0, refused1 = 0;
      pc_err e1;
      pc_err_clear(&e1);
      perfcheck_status s1 = pc_build_config(chip, avail, &names[k], 1, NULL, &img1, &size1, &p1, &refused1, &e1);
      free(img1);
      if (s1 == PERFCHECK_OK) continue;
      if (!refused1) {
        free(names);
        return pc_err_set(err, s1, "%s", e1.msg);
      }
      char reason[320];
      snprintf(reason, sizeof reason, "not available on this %s device (%s)", chip, e1.msg);
      const char *name = names[k];
      pc_rp_plan_reject(plan, name, reason);
      nrej++;
      int table = 0; /* the table metrics collected from this name */
      for (int id = 0; id < PC_M_COUNT; id++) {
        if (!plan->want[id]) continue;
        if (strcmp(pc_plan_metric_name(plan, id), name) == 0) {
          plan->want[id] = 0;
          plan->use_substitute[id] = 0;
          table = 1;
        }
      }
      if (!table && remove_extras) {
        for (size_t i = 0; i < plan->nextra; i++)
          if (strcmp(plan->extra[i], name) == 0) {
            pc_remove_extra(plan, i);
            break;
          }
      }
    }
    free(names);
    if (nrej == 0)
      return pc_err_set(err, PERFCHECK_ERROR_CUPTI_UNAVAILABLE,
                        "%s (chip %s): every metric alone is accepted, the list is not", why, chip);
  }
  return PERFCHECK_ERROR_INTERNAL; /* not reached */
}

/* ==== Pass counts ============================================================ */

static perfcheck_status pc_rp_count_passes_u(const char *chip, pc_rp_plan *plan, int *passes, pc_err *err) {
  pc_err_clear(err);
  if (!plan || !passes || !chip) return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "pc_rp_count_passes: NULL argument");
  *passes = 0;
  CUpti_Profiler_Host_Object *host = NULL;
  perfcheck_status st = pc_rp_host_open(chip, NULL, &host, err);
  if (st != PERFCHECK_OK) return st;
  st = pc_rp_plan_validate(host, chip, plan, 1, err);
  pc_rp_host_close(host);
  if (st != PERFCHECK_OK) return st;
  uint8_t *config = NULL;
  size_t size = 0;
  st = pc_rp_plan_configure(chip, NULL, plan, 1, NULL, &config, &size, passes, err);
  free(config);
  return st;
}


/* ==== Rotation groups ========================================================== */

void pc_rp_groups_free(pc_rp_group *g, size_t n) {
  for (size_t i = 0; g && i < n; i++) free(g[i].xwant);
  free(g);
}

static int pc_is_dram(int id) {
  return id == PC_M_DRAM_BYTES_READ || id == PC_M_DRAM_BYTES_WRITE || id == PC_M_DRAM_THROUGHPUT_PCT;
}

/* The passes of what the host object holds now. */
static int pc_host_passes(CUpti_Profiler_Host_Object *h, pc_err *e) {
  CUpti_Profiler_Host_GetConfigImageSize_Params sp = PC_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params);
  sp.pHostObject = h;
  if (PC_CUPTI(e, cuptiProfilerHostGetConfigImageSize, &sp) != CUPTI_SUCCESS) return -1;
  uint8_t *img = malloc(sp.configImageSize ? sp.configImageSize : 1);
  if (!img) return -1;
  CUpti_Profiler_Host_GetConfigImage_Params gp = PC_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params);
  gp.pHostObject = h;
  gp.configImageSize = sp.configImageSize;
  gp.pConfigImage = img;
  int passes = -1;
  if (PC_CUPTI(e, cuptiProfilerHostGetConfigImage, &gp) == CUPTI_SUCCESS) {
    CUpti_Profiler_Host_GetNumOfPasses_Params np = PC_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params);
    np.configImageSize = sp.configImageSize;
    np.pConfigImage = img;
    if (PC_CUPTI(e, cuptiProfilerHostGetNumOfPasses, &np) == CUPTI_SUCCESS) passes = (int)np.numOfPasses;
  }
  free(img);
  return passes;
}

static int pc_host_add(CUpti_Profiler_Host_Object *h, const char **names, size_t n, pc_err *e) {
  CUpti_Profiler_Host_ConfigAddMetrics_Params ap = PC_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params);
  ap.pHostObject = h;
  ap.ppMetricNames = names;
  ap.numMetrics = n;
  return PC_CUPTI(e, cuptiProfilerHostConfigAddMetrics, &ap) == CUPTI_SUCCESS ? 0 : -1;
}

/* One group under construction: its counter names, and the memory units
 * they read (pc_name_unit). */
typedef struct pc_gbuild {
  const char **names;
  size_t n, cap;
  unsigned units;
} pc_gbuild;

/* The memory unit a counter name reads, as a bit: DRAM 1, L2 2, L1TEX 4;
 * 0 for the SM's counters, the SASS counts and the duration.  A pass costs
 * what its units cost, and the costs add (H200, docs/cupti.md section 17: an
 * SM counter about 4 ms a profiled launch, DRAM 13, L2 18-23, L1TEX 13-23),
 * so a group that already pays for a unit is the cheap place for another
 * counter of it. */
static unsigned pc_name_unit(const char *name) {
  if (strstr(name, "__sass_")) return 0;
  if (strncmp(name, "dram__", 6) == 0) return 1u;
  if (strncmp(name, "lts__", 5) == 0) return 2u;
  if (strncmp(name, "l1tex__", 7) == 0) return 4u;
  return 0;
}

/* The counter name of an item of the split: a table metric id, or
 * PC_M_COUNT + an extra's index. */
static const char *pc_item_name(const pc_rp_plan *plan, int item) {
  return item < PC_M_COUNT ? pc_plan_metric_name(plan, item) : plan->extra[item - PC_M_COUNT];
}

/* Whether the group's names and `more` fit one pass: one fresh host object
 * and one AddMetrics call (names added in two calls are scheduled apart: a
 * second AddMetrics on one host object always added passes, measured).
 * 1 yes, 0 no, -1 the host API failed (*err). */
static int pc_fits_one_pass(const char *chip, const uint8_t *avail, const pc_gbuild *g, const char *more,
                            pc_err *err) {
  const char *v[PC_M_COUNT + 256];
  const char **names = g->n + 1 <= sizeof v / sizeof v[0] ? v : malloc((g->n + 1) * sizeof *names);
  if (!names) return -1;
  memcpy(names, g->names, g->n * sizeof *names);
  names[g->n] = more;
  CUpti_Profiler_Host_Object *h = NULL;
  int fits = -1;
  pc_err e;
  if (pc_rp_host_open_u(chip, avail, &h, err) == PERFCHECK_OK) {
    if (pc_host_add(h, names, g->n + 1, &e) == 0) {
      const int p = pc_host_passes(h, &e);
      fits = p < 0 ? -1 : p == 1;
    } else {
      fits = 0; /* refused together (the names alone were validated) */
    }
    if (fits < 0) pc_err_set(err, PERFCHECK_ERROR_CUPTI_UNAVAILABLE, "%s (rotation groups on %s)", e.msg, chip);
    pc_rp_host_close_u(h);
  }
  if (names != v) free(names);
  return fits;
}

/* First fit of items[0..nitems) in that order into one-pass groups (gb,
 * groups: nitems slots each, zeroed); *ng the groups made.  A counter of a
 * memory unit tries the groups that already read that unit first, then the
 * others in order, so that the memory units' counters share groups. */
static perfcheck_status pc_first_fit(const char *chip, const uint8_t *avail, const pc_rp_plan *plan, const int *item,
                                     size_t nitems, pc_gbuild *gb, pc_rp_group *groups, size_t *ng_out, pc_err *err) {
  size_t ng = 0;
  perfcheck_status st = PERFCHECK_OK;
  for (size_t k = 0; st == PERFCHECK_OK && k < nitems; k++) {
    const char *name = pc_item_name(plan, item[k]);
    const unsigned units = pc_name_unit(name);
    size_t g = ng;
    for (int round = units ? 0 : 1; round < 2 && g == ng && st == PERFCHECK_OK; round++)
      for (g = 0; g < ng; g++) {
        if ((round == 0) != ((gb[g].units & units) != 0)) continue; /* round 0: its units' groups; 1: the rest */
        const int fits = pc_fits_one_pass(chip, avail, &gb[g], name, err);
        if (fits < 0) st = err && err->status != PERFCHECK_OK ? err->status : PERFCHECK_ERROR_CUPTI_UNAVAILABLE;
        if (fits != 0) break;
      }
    if (g == ng) ng++; /* a group of its own (one pass or not: alone it is what it is) */
    if (st != PERFCHECK_OK) break;
    if (pc_grow((void **)&gb[g].names, &gb[g].cap, gb[g].n + 1, sizeof *gb[g].names)) {
      st = pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "out of memory");
      break;
    }
    gb[g].names[gb[g].n++] = name;
    gb[g].units |= units;
    if (!groups[g].xwant && plan->nextra && !(groups[g].xwant = calloc(plan->nextra, 1))) {
      st = pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "out of memory");
      break;
    }
    if (item[k] < PC_M_COUNT) {
      groups[g].want[item[k]] = 1;
      if (pc_is_dram(item[k])) groups[g].cold = 1;
    } else {
      groups[g].xwant[item[k] - PC_M_COUNT] = 1;
    }
  }
  *ng_out = ng;
  return st;
}

static void pc_gbuild_free(pc_gbuild *gb, size_t n) {
  for (size_t g = 0; gb && g < n; g++) free(gb[g].names);
  free(gb);
}

static perfcheck_status pc_rp_plan_groups_u(const char *chip, const uint8_t *avail, const pc_rp_plan *plan,
                                            pc_rp_group **out, size_t *nout, pc_err *err) {
  *out = NULL;
  *nout = 0;
  /* The items, DRAM first (the group that holds them starts its launches
   * from a flushed L2, and one such group is enough), then the table's
   * order, then the extras. */
  size_t nitems = 0, ndram = 0, cap = PC_M_COUNT + plan->nextra;
  int *item = malloc((cap ? cap : 1) * sizeof *item); /* id, or PC_M_COUNT + extra index */
  if (!item) return pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "out of memory");
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < PC_M_COUNT; i++)
      if (plan->want[i] && pc_is_dram(i) == (pass == 0)) item[nitems++] = i;
    if (pass == 0) ndram = nitems;
  }
  for (size_t i = 0; i < plan->nextra; i++)
    if (!pc_rp_plan_is_rejected(plan, plan->extra[i])) item[nitems++] = PC_M_COUNT + (int)i;

  /* Three first fits: the table's order; its reverse after the DRAM items;
   * and that reverse with the memory units' counters (L2, L1TEX, in the
   * table's order) moved ahead of the rest.  The fewest groups win, then the
   * fewest reads of a memory unit summed over the groups (each costs its
   * unit's time again, pc_name_unit), then the earlier order.  The table
   * ends with the counters the SM has few of (warp states, stall reasons,
   * pipes): placed first, they spread over the groups instead of filling
   * small ones of their own; the memory counters placed first share the
   * cold group and one more.  Host API on CUDA 13.0 (unit.passes), the
   * three orders: the default set 10, 9 and 9 groups on GH100, L2 in 2 of
   * them each way; sol 14, 13 and 13; full 19, 18 and 18 groups reading a
   * memory unit 10, 11 and 10 times (so on GB100, GA100 and AD102).  One group fewer is one profiled launch and one config
   * change fewer per signature under rotation.  The split is cached per chip
   * and list (pc_config_cache.c). */
  perfcheck_status st = PERFCHECK_OK;
  pc_gbuild *best_gb = NULL;
  pc_rp_group *best = NULL;
  size_t best_n = 0;
  int best_reads = 0;
  for (int order = 0; order < 3 && st == PERFCHECK_OK; order++) {
    if (order == 1) /* reverse the items after the DRAM ones */
      for (size_t i = ndram, j = nitems ? nitems - 1 : 0; i < j; i++, j--) {
        const int t = item[i];
        item[i] = item[j];
        item[j] = t;
      }
    if (order == 2) { /* the memory units' items first in the table's order, then the rest reversed */
      int *tmp = malloc((nitems ? nitems : 1) * sizeof *tmp);
      if (!tmp) {
        st = pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "out of memory");
        break;
      }
      size_t n = 0;
      for (size_t i = nitems; i-- > ndram;) /* the memory items in the table's order */
        if (pc_name_unit(pc_item_name(plan, item[i])) != 0) tmp[n++] = item[i];
      for (size_t i = ndram; i < nitems; i++)
        if (pc_name_unit(pc_item_name(plan, item[i])) == 0) tmp[n++] = item[i];
      memcpy(item + ndram, tmp, (nitems - ndram) * sizeof *item);
      free(tmp);
    }
    pc_gbuild *gb = calloc(nitems ? nitems : 1, sizeof *gb);
    pc_rp_group *groups = calloc(nitems ? nitems : 1, sizeof *groups);
    size_t ng = 0;
    st = (gb && groups) ? pc_first_fit(chip, avail, plan, item, nitems, gb, groups, &ng, err)
                        : pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "out of memory");
    int reads = 0;
    for (size_t g = 0; gb && g < ng; g++)
      for (unsigned u = gb[g].units; u; u &= u - 1) reads++;
    if (st == PERFCHECK_OK && (!best || ng < best_n || (ng == best_n && reads < best_reads))) {
      pc_gbuild_free(best_gb, nitems);
      pc_rp_groups_free(best, nitems);
      best_gb = gb, best = groups, best_n = ng, best_reads = reads;
    } else {
      pc_gbuild_free(gb, nitems);
      pc_rp_groups_free(groups, nitems);
    }
  }
  /* The cold group first: the DRAM items are the first placed in either
   * order, so group 0 holds them. */
  /* The duration in every group where it still fits the one pass: the
   * launches that fed an entry then carry their own durations, so
   * counter_spread shows launches of one signature that did different work
   * (a forward and a backward GEMM with one grid: 41 to 364 us on the H200,
   * 2026-12-02), and each group's counts stand beside their own time. */
  if (st == PERFCHECK_OK && plan->want[PC_M_DURATION]) {
    const char *duration = pc_plan_metric_name(plan, PC_M_DURATION);
    for (size_t g = 0; g < best_n && st == PERFCHECK_OK; g++) {
      if (best[g].want[PC_M_DURATION]) continue;
      const int fits = pc_fits_one_pass(chip, avail, &best_gb[g], duration, err);
      if (fits < 0) st = err && err->status != PERFCHECK_OK ? err->status : PERFCHECK_ERROR_CUPTI_UNAVAILABLE;
      if (fits == 1) best[g].want[PC_M_DURATION] = 1;
    }
  }
  pc_gbuild_free(best_gb, nitems);
  free(item);
  if (st != PERFCHECK_OK) {
    pc_rp_groups_free(best, nitems);
    return st;
  }
  *out = best;
  *nout = best_n;
  return PERFCHECK_OK;
}

/* ---- the locked entry points (pc_rp_internal.h) ------------------------------ */

perfcheck_status pc_rp_host_open(const char *chip, const uint8_t *avail, CUpti_Profiler_Host_Object **out,
                                 pc_err *err) {
  pc_proc_lock();
  perfcheck_status st = pc_rp_host_open_u(chip, avail, out, err);
  pc_proc_unlock();
  return st;
}

void pc_rp_host_close(CUpti_Profiler_Host_Object *host) {
  pc_proc_lock();
  pc_rp_host_close_u(host);
  pc_proc_unlock();
}

perfcheck_status pc_rp_plan_validate(CUpti_Profiler_Host_Object *host, const char *chip, pc_rp_plan *plan,
                                     int remove_extras, pc_err *err) {
  pc_proc_lock();
  perfcheck_status st = pc_rp_plan_validate_u(host, chip, plan, remove_extras, err);
  pc_proc_unlock();
  return st;
}

perfcheck_status pc_rp_plan_configure(const char *chip, const uint8_t *avail, pc_rp_plan *plan,
                                      int remove_extras, CUpti_Profiler_Host_Object **host_out,
                                      uint8_t **config, size_t *config_size, int *passes, pc_err *err) {
  pc_proc_lock();
  perfcheck_status st =
      pc_rp_plan_configure_u(chip, avail, plan, remove_extras, host_out, config, config_size, passes, err);
  pc_proc_unlock();
  return st;
}

perfcheck_status pc_rp_build_config(const char *chip, const uint8_t *avail, const char **names, size_t n,
                                    CUpti_Profiler_Host_Object **host_out, uint8_t **config, size_t *config_size,
                                    int *passes, pc_err *err) {
  int refused = 0;
  pc_proc_lock();
  perfcheck_status st = pc_build_config(chip, avail, names, n, host_out, config, config_size, passes, &refused, err);
  pc_proc_unlock();
  return st;
}

perfcheck_status pc_rp_plan_groups(const char *chip, const uint8_t *avail, const pc_rp_plan *plan, pc_rp_group **out,
                                   size_t *n, pc_err *err) {
  pc_proc_lock();
  perfcheck_status st = pc_rp_plan_groups_u(chip, avail, plan, out, n, err);
  pc_proc_unlock();
  return st;
}

perfcheck_status pc_rp_count_passes(const char *chip, pc_rp_plan *plan, int *passes, pc_err *err) {
  pc_proc_lock();
  perfcheck_status st = pc_rp_count_passes_u(chip, plan, passes, err);
  pc_proc_unlock();
  return st;
}

/* The chip of device 0, through CUPTI; the driver must be loaded first
 * (CUPTI 13.0 segfaults in cuptiDeviceGetChipName without one). */
static perfcheck_status pc_chip_of_device0(char *chip, size_t chiplen, pc_err *err) { /* one-channel-ok: the chip name is its result */
  perfcheck_status st = pc_cuda_load(err);
  if (st != PERFCHECK_OK) return st;
  st = pc_rp_nvperf_load(err);
  if (st != PERFCHECK_OK) return st;
  st = pc_proc_profiler_acquire(err);
  if (st != PERFCHECK_OK) return st;
  CUpti_Device_GetChipName_Params p = PC_PARAMS(CUpti_Device_GetChipName_Params);
  p.deviceIndex = 0;
  pc_err e;
  CUptiResult r = PC_CUPTI(&e, cuptiDeviceGetChipName, &p);
  if (r == CUPTI_SUCCESS && p.pChipName) snprintf(chip, chiplen, "%s", p.pChipName);
  pc_proc_profiler_release();
  if (r != CUPTI_SUCCESS || !p.pChipName) {
    st = pc_cupti_status(r);
    return pc_err_set(err, (st == PERFCHECK_OK || st == PERFCHECK_ERROR_NOT_FOUND) ? PERFCHECK_ERROR_CUPTI_UNAVAILABLE : st,
                      "%s", r != CUPTI_SUCCESS ? e.msg : "no chip name for device 0");
  }
  return PERFCHECK_OK;
}

PERFCHECK_API perfcheck_status perfcheck_metric_passes(const char *metrics, const char *chip, int *passes) {
  pc_err err;
  pc_err_clear(&err);
  if (!passes) return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_metric_passes: passes is NULL");
  *passes = 0;
  pc_rp_plan plan;
  perfcheck_status st = pc_rp_plan_parse(metrics, &plan, &err);
  if (st != PERFCHECK_OK) return pc_fail(st, "%s", err.msg);
  char chipbuf[64];
  if (!chip) {
    st = pc_chip_of_device0(chipbuf, sizeof chipbuf, &err);
    if (st != PERFCHECK_OK) {
      pc_rp_plan_free(&plan);
      return pc_fail(st, "%s", err.msg);
    }
    chip = chipbuf;
  }
  int n = 0;
  st = pc_rp_count_passes(chip, &plan, &n, &err);
  if (st != PERFCHECK_OK) {
    pc_rp_plan_free(&plan);
    return pc_fail(st, "%s", err.msg);
  }
  *passes = n;
  /* Metrics of the table that this chip lacks (no TMA before Hopper, no
   * GMMA after it) are left out, as a session leaves them out; a name the
   * caller added that the chip does not know is an error.  The count stands
   * for the names that are valid either way. */
  for (size_t i = 0; i < plan.nrejected; i++) {
    if (pc_metric_lookup(plan.rejected[i], NULL)) continue;
    st = pc_fail(PERFCHECK_ERROR_NOT_FOUND, "%s: %s", plan.rejected[i], plan.rejected_reason[i]);
    pc_rp_plan_free(&plan);
    return st;
  }
  pc_rp_plan_free(&plan);
  pc_clear_error();
  return PERFCHECK_OK;
}
