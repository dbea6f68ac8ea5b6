/* perfcheck_report_merge: the reports of several processes (MPI ranks,
 * forks) as one, diagnosed again.  perfcheck.h states the rules; the one
 * that needs a reason is the median: the median of several medians is not
 * the median of the launches, and a number that was not measured is never
 * printed, so such a median is null.
 *
 * The reports are folded in one at a time (pc_merger), keeping
 * only what later steps need (the merged report, one group per merged
 * entry, each report's rank), so perfcheck_report_merge_files holds one
 * input at a time: memory is the largest input and the merged report, not
 * the sum of the inputs (3.25 GB for 100k distinct entries before). */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pc_buf.h"
#include "base/pc_map.h"
#include "model/pc_core.h"
#include "base/pc_fmt.h"
#include "base/pc_hash.h"
#include "read/pc_json.h"
#include "check/pc_check.h"
#include "base/pc_util.h"

typedef struct pc_merger pc_merger;
static void pc_merger_free(pc_merger *m);

/* Equal, NaN counting as equal to NaN ("both unknown"). */
static int pc_same_double(double a, double b) { return (pc_is_null(a) && pc_is_null(b)) || a == b; }

static int pc_same_str(const char *a, const char *b) { return (!a && !b) || (a && b && strcmp(a, b) == 0); }

/* A kernel entry of one input report, with that report's device model
 * (kernels merge by signature and device model: two GPU models' counters of
 * one kernel are not one measurement). */
typedef struct pc_mk {
  const pc_kernel *k;
  const char *model;
} pc_mk;

/* Same signature, same region name, same device model. */
static int pc_merge_same_key(pc_mk ma, pc_mk mb) {
  const pc_kernel *a = ma.k, *b = mb.k;
  if (strcmp(ma.model, mb.model) != 0) return 0;
  if (!pc_same_str(a->name, b->name)) return 0;
  if (a->mangled && b->mangled && strcmp(a->mangled, b->mangled) != 0) return 0;
  return memcmp(a->grid, b->grid, sizeof a->grid) == 0 && memcmp(a->block, b->block, sizeof a->block) == 0 &&
         pc_same_double(a->dynamic_smem, b->dynamic_smem) && pc_same_str(a->region, b->region);
}

/* The same key, the mangled names compared exactly (NULL only with NULL):
 * what counts a kernel's occurrences within one report. */
static int pc_merge_same_key_exact(pc_mk a, pc_mk b) {
  return pc_merge_same_key(a, b) && pc_same_str(a.k->mangled, b.k->mangled);
}

/* A hash of what pc_merge_same_key always compares (not the mangled name,
 * which it compares only when both entries know it). */
static uint64_t pc_merge_hash(pc_mk m) {
  const pc_kernel *k = m.k;
  uint64_t h = PC_FNV1A_BASIS;
  h = pc_fnv1a(h, m.model, strlen(m.model) + 1);
  if (k->name) h = pc_fnv1a(h, k->name, strlen(k->name));
  h = pc_fnv1a(h, "\x1f", 1);
  if (k->region) h = pc_fnv1a(h, k->region, strlen(k->region));
  h = pc_fnv1a(h, k->grid, sizeof k->grid);
  h = pc_fnv1a(h, k->block, sizeof k->block);
  double d = pc_is_null(k->dynamic_smem) ? -1.0 : k->dynamic_smem == 0 ? 0.0 : k->dynamic_smem; /* -0 is 0 */
  h = pc_fnv1a(h, &d, sizeof d);
  return h;
}

/* A key seen in the current report, and how often so far. */
typedef struct pc_moccur {
  pc_mk k;
  size_t count;
} pc_moccur;

/* A copy of src into dst (dst overwritten; freed with pc_kernel_free),
 * without its diagnosis: the merged report is diagnosed again, and the
 * findings[] it does not write are never touched (they stay out of the
 * resident set: pc_report.c). */
static int pc_merge_copy_kernel(pc_kernel *dst, const pc_kernel *src) { return pc_kernel_copy_head(dst, src); }

/* One merged kernel entry while the reports are folded in.  Its key is the
 * first entry's: the fields of its copy in the merged report (every
 * entry of a group has the same ones) and the first entry's mangled name,
 * kept apart because the copy is replaced by a later report's entry that
 * profiled the signature (whose mangled name may be known where the
 * first's was not). */
typedef struct pc_mgroup {
  size_t kidx;             /* its entry in the merged report */
  size_t model;            /* its device model: pc_merger.models[model] */
  char *key_mangled;       /* the first entry's mangled name, NULL unknown */
  size_t occ;              /* k-th entry of its key within its report */
  size_t timed;            /* contributing entries with a measured median */
  double median;           /* the one measured median while timed <= 1 */
  uint64_t launches, profiled;
  double dmin, dmax;
} pc_mgroup;

static int pc_same_device(const pc_device *a, const pc_device *b) {
  return strcmp(a->name, b->name) == 0 && a->cc_major == b->cc_major && a->cc_minor == b->cc_minor &&
         a->sm_count == b->sm_count && pc_same_double(a->peak_dram_bytes_per_s, b->peak_dram_bytes_per_s) &&
         pc_same_double(a->peak_fp32_flop_per_s, b->peak_fp32_flop_per_s);
}

static void pc_device_label(const pc_device *d, char *out, size_t len) {
  snprintf(out, len, "%s, cc %d.%d, %d SMs, DRAM %.4g B/s, FP32 %.4g FLOP/s", d->name[0] ? d->name : "unknown",
           d->cc_major, d->cc_minor, d->sm_count, d->peak_dram_bytes_per_s, d->peak_fp32_flop_per_s);
}

/* The merge, one report at a time (pc_merger): what every later step needs
 * from the reports already folded in, never the reports themselves. */
typedef struct pc_merge_input {
  int rank, world_size, local_rank;
} pc_merge_input;

struct pc_merger {
  pc_report *r;                /* the merged report, growing */
  pc_mgroup *grp;
  size_t ngrp, capgrp;
  pc_map groups;               /* hash of key and occurrence -> group index */
  char **models;               /* device names seen */
  size_t nmodels;
  pc_merge_input *in;          /* per report folded in */
  size_t nin, capin;
  pc_device first_device;      /* report 1's, and how it was made */
  char first_source[32], first_metric_set[64];
  int first_passes;
  char **later;                /* the merge's own warnings, after every report's */
  size_t nlater;
  pc_map occ_of;               /* per report: hash of key -> index into occ */
  pc_moccur *occ;              /* per report: each key and its occurrences so far */
  size_t nocc, capocc;
};

static int pc_merger_later(pc_merger *m, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static int pc_merger_later(pc_merger *m, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  char **l = realloc(m->later, (m->nlater + 1) * sizeof *l);
  if (!l) return -1;
  m->later = l;
  if (!(l[m->nlater] = pc_strdup(buf))) return -1;
  m->nlater++;
  return 0;
}

/* The ranks of the inputs: the merged report's world size, and a warning
 * for each rank of 0..world_size-1 that no input holds (at most 32 by
 * number, then how many more), for a rank given twice, and for inputs
 * that disagree on the world size.  Returns -1 on OOM. */
static int pc_merge_ranks(const pc_merge_input *in, size_t n, pc_report *r) {
  int world = -1, disagree = 0;
  for (size_t i = 0; i < n; i++) {
    if (in[i].world_size <= 0) continue;
    if (world > 0 && in[i].world_size != world) disagree = 1;
    if (in[i].world_size > world) world = in[i].world_size;
  }
  /* One rank (one report, or copies of one): the merged report is that
   * rank's; several: no rank of its own. */
  r->rank = in[0].rank;
  r->local_rank = in[0].local_rank;
  for (size_t i = 1; i < n; i++) {
    if (in[i].rank != r->rank) r->rank = -1;
    if (in[i].local_rank != r->local_rank) r->local_rank = -1;
  }
  r->world_size = world;
  if (disagree && pc_report_warn(r, 1, "merge: the reports disagree on the world size; the merged report takes the "
                                       "largest, %d", world))
    return -1;
  if (world <= 0) return 0;
  size_t *from = calloc((size_t)world, sizeof *from); /* report index + 1 holding each rank */
  if (!from) return -1;
  for (size_t i = 0; i < n; i++) {
    const int k = in[i].rank;
    if (k < 0 || k >= world) {
      if (pc_report_warn(r, 1, "merge: report %zu has %s; its regions are not counted for any rank", i + 1,
                         k < 0 ? "no rank (RANK, OMPI_COMM_WORLD_RANK or PMI_RANK was unset)" : "a rank outside the world size")) {
        free(from);
        return -1;
      }
      continue;
    }
    if (from[k]) {
      if (pc_report_warn(r, 1, "merge: rank %d is in report %zu and again in report %zu", k, from[k], i + 1)) {
        free(from);
        return -1;
      }
      continue;
    }
    from[k] = i + 1;
  }
  int named = 0, more = 0;
  for (int k = 0; k < world; k++) {
    if (from[k]) continue;
    if (named < 32) {
      named++;
      if (pc_report_warn(r, 1, "merge: rank %d of world size %d is missing: no input report holds it", k, world)) {
        free(from);
        return -1;
      }
    } else {
      more++;
    }
  }
  free(from);
  if (more && pc_report_warn(r, 1, "merge: %d more ranks of world size %d are missing", more, world)) return -1;
  return 0;
}

static pc_merger *pc_merger_new(void) {
  pc_merger *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->r = pc_report_new();
  if (!m->r) {
    pc_merger_free(m);
    return NULL;
  }
  m->r->step1_assessed = 0;
  return m;
}

static void pc_merger_free(pc_merger *m) {
  if (!m) return;
  pc_report_free(m->r);
  for (size_t i = 0; i < m->ngrp; i++) free(m->grp[i].key_mangled);
  free(m->grp);
  pc_map_free(&m->groups);
  for (size_t i = 0; i < m->nmodels; i++) free(m->models[i]);
  free(m->models);
  free(m->in);
  for (size_t i = 0; i < m->nlater; i++) free(m->later[i]);
  free(m->later);
  pc_map_free(&m->occ_of);
  free(m->occ);
  free(m);
}

/* The index of a device model (its name), added when new; SIZE_MAX on OOM. */
static size_t pc_merger_model(pc_merger *m, const char *name) {
  for (size_t i = m->nmodels; i-- > 0;)
    if (strcmp(m->models[i], name) == 0) return i;
  char **mm = realloc(m->models, (m->nmodels + 1) * sizeof *mm);
  if (!mm) return SIZE_MAX;
  m->models = mm;
  if (!(mm[m->nmodels] = pc_strdup(name))) return SIZE_MAX;
  return m->nmodels++;
}

/* Whether entry k (of model `model`) belongs to group g (pc_merge_same_key
 * against the group's first entry). */
static int pc_merger_in_group(const pc_merger *m, const pc_mgroup *g, const pc_kernel *b, size_t model) {
  const pc_kernel *a = &m->r->kernels[g->kidx];
  if (g->model != model || !pc_same_str(a->name, b->name)) return 0;
  if (g->key_mangled && b->mangled && strcmp(g->key_mangled, b->mangled) != 0) return 0;
  return memcmp(a->grid, b->grid, sizeof a->grid) == 0 && memcmp(a->block, b->block, sizeof a->block) == 0 &&
         pc_same_double(a->dynamic_smem, b->dynamic_smem) && pc_same_str(a->region, b->region);
}

/* The tables' eq callbacks (pc_map.h): the candidate really is this key. */
typedef struct pc_merge_probe {
  const pc_merger *m;
  const pc_kernel *k;
  pc_mk mk;
  size_t model, occ;
} pc_merge_probe;
static int pc_merge_occ_eq(uint32_t i, const void *arg) {
  const pc_merge_probe *p = arg;
  return pc_merge_same_key_exact(p->m->occ[i].k, p->mk);
}
static int pc_merge_group_eq(uint32_t i, const void *arg) {
  const pc_merge_probe *p = arg;
  const pc_mgroup *c = &p->m->grp[i];
  return c->occ == p->occ && pc_merger_in_group(p->m, c, p->k, p->model);
}

/* The occurrence number of key p->mk (hash h) within the current report:
 * 0 for its first entry.  SIZE_MAX on out of memory. */
static size_t pc_merger_occurrence(pc_merger *m, const pc_merge_probe *p, uint64_t h) {
  const uint32_t i = pc_map_find(&m->occ_of, h, pc_merge_occ_eq, p);
  if (i != PC_NONE) return m->occ[i].count++;
  if (m->nocc >= PC_NONE || pc_grow((void **)&m->occ, &m->capocc, m->nocc + 1, sizeof *m->occ) ||
      pc_map_insert(&m->occ_of, h, (uint32_t)m->nocc))
    return SIZE_MAX;
  m->occ[m->nocc++] = (pc_moccur){p->mk, 1};
  return 0;
}

static perfcheck_status pc_merger_add(pc_merger *m, const pc_report *s) {
  pc_report *r = m->r;
  if (pc_grow((void **)&m->in, &m->capin, m->nin + 1, sizeof *m->in)) return PERFCHECK_ERROR_OUT_OF_MEMORY;
  m->in[m->nin] = (pc_merge_input){s->rank, s->world_size, s->local_rank};
  const size_t index = m->nin++;
  if (index == 0) {
    r->device = s->device;
    memcpy(r->source, s->source, sizeof r->source);
    memcpy(r->metric_set, s->metric_set, sizeof r->metric_set);
    r->passes = s->passes;
    m->first_device = s->device;
    memcpy(m->first_source, s->source, sizeof m->first_source);
    memcpy(m->first_metric_set, s->metric_set, sizeof m->first_metric_set);
    m->first_passes = s->passes;
  } else {
    char la[256], lb[256];
    if (!pc_same_device(&m->first_device, &s->device)) {
      pc_device_label(&s->device, la, sizeof la);
      pc_device_label(&m->first_device, lb, sizeof lb);
      if (pc_merger_later(m,
                          "merge: report %zu's device (%s) differs from report 1's (%s); the merged report uses "
                          "report 1's limits and ceilings for every kernel",
                          index + 1, la, lb))
        return PERFCHECK_ERROR_OUT_OF_MEMORY;
    }
    if (strcmp(s->source, m->first_source) != 0 || strcmp(s->metric_set, m->first_metric_set) != 0 ||
        s->passes != m->first_passes) {
      if (pc_merger_later(m,
                          "merge: report %zu was made differently (source %s, metric set %s, %d passes) from report 1 "
                          "(source %s, metric set %s, %d passes); the merged report's header shows report 1's, each "
                          "kernel keeps its own counters",
                          index + 1, s->source, s->metric_set, s->passes, m->first_source, m->first_metric_set,
                          m->first_passes))
        return PERFCHECK_ERROR_OUT_OF_MEMORY;
    }
  }

  /* Regions and warnings, in report order. */
  if (s->step1_assessed) r->step1_assessed = 1; /* kernels of offline reports have no region anyway */
  r->rows_left_out += s->rows_left_out;         /* an input's shares were null: the merged ones are too */
  for (size_t j = 0; j < s->nregions; j++) {
    pc_region *g = pc_report_add_region(r);
    if (!g || pc_region_copy(g, &s->regions[j])) return PERFCHECK_ERROR_OUT_OF_MEMORY;
    if (g->rank < 0) g->rank = s->rank; /* each rank's regions stay its own */
  }
  for (size_t j = 0; j < s->nwarnings; j++)
    if (pc_report_warn(r, 1, "%s", s->warnings[j])) return PERFCHECK_ERROR_OUT_OF_MEMORY;

  /* Kernels: each into its group (hash tables keep it linear: an entry's
   * occurrence number within its report, and its group, are found in
   * expected constant time). */
  const size_t model = pc_merger_model(m, s->device.name);
  if (model == SIZE_MAX) return PERFCHECK_ERROR_OUT_OF_MEMORY;
  pc_map_clear(&m->occ_of); /* occurrences count within one report */
  m->nocc = 0;
  for (size_t j = 0; j < s->nkernels; j++) {
    const pc_kernel *k = &s->kernels[j];
    pc_merge_probe p = {m, k, {k, s->device.name}, model, 0};
    const uint64_t h = pc_merge_hash(p.mk);
    /* k-th entry of its key within its report. */
    if ((p.occ = pc_merger_occurrence(m, &p, h)) == SIZE_MAX) return PERFCHECK_ERROR_OUT_OF_MEMORY;
    /* Its group: the first one of the same key and occurrence. */
    const uint64_t gh = h ^ (0x9E3779B97F4A7C15ull * (p.occ + 1));
    const uint32_t gi = pc_map_find(&m->groups, gh, pc_merge_group_eq, &p);
    pc_mgroup *g = gi == PC_NONE ? NULL : &m->grp[gi];
    const size_t occ = p.occ;
    if (!g) {
      if (pc_grow((void **)&m->grp, &m->capgrp, m->ngrp + 1, sizeof *m->grp)) return PERFCHECK_ERROR_OUT_OF_MEMORY;
      pc_kernel *copy = pc_report_add_kernel(r);
      if (!copy) return PERFCHECK_ERROR_OUT_OF_MEMORY;
      g = &m->grp[m->ngrp];
      memset(g, 0, sizeof *g);
      g->kidx = r->nkernels - 1;
      g->model = model;
      g->occ = occ;
      g->median = PC_NULL;
      g->dmin = g->dmax = PC_NULL;
      m->ngrp++;
      if (pc_merge_copy_kernel(copy, k) || (k->mangled && !(g->key_mangled = pc_strdup(k->mangled))))
        return PERFCHECK_ERROR_OUT_OF_MEMORY; /* (the copy is freed with the report) */
      if (pc_map_insert(&m->groups, gh, (uint32_t)(m->ngrp - 1))) return PERFCHECK_ERROR_OUT_OF_MEMORY;
    } else if (g->profiled == 0 && k->profiled_launches > 0) {
      /* The first report that profiled the signature gives the counters. */
      pc_kernel *copy = &r->kernels[g->kidx];
      pc_kernel_free(copy);
      if (pc_merge_copy_kernel(copy, k)) return PERFCHECK_ERROR_OUT_OF_MEMORY;
    }
    g->launches += k->launches;
    g->profiled += k->profiled_launches;
    g->dmin = fmin(g->dmin, k->dur_min_ns); /* fmin/fmax skip a NaN operand */
    g->dmax = fmax(g->dmax, k->dur_max_ns);
    if (pc_has(k->dur_median_ns) && g->timed++ == 0) g->median = k->dur_median_ns;
  }
  return PERFCHECK_OK;
}

static perfcheck_status pc_merger_finish(pc_merger *m, pc_report **out) {
  *out = NULL;
  pc_report *r = m->r;
  if (m->nin == 0) return PERFCHECK_ERROR_INVALID_ARGUMENT;
  size_t nmedian_lost = 0;
  char lost_names[256] = "";
  for (size_t q = 0; q < m->ngrp; q++) {
    const pc_mgroup *g = &m->grp[q];
    pc_kernel *k = &r->kernels[g->kidx];
    k->launches = g->launches;
    k->profiled_launches = g->profiled;
    k->dur_min_ns = g->dmin;
    k->dur_max_ns = g->dmax;
    k->dur_median_ns = g->timed <= 1 ? g->median : PC_NULL;
    if (g->timed > 1 && nmedian_lost++ < 3) {
      size_t used = strlen(lost_names);
      snprintf(lost_names + used, sizeof lost_names - used, "%s%.60s", used ? ", " : "", k->name ? k->name : "?");
    }
  }
  for (size_t i = 0; i < m->nlater; i++)
    if (pc_report_warn(r, 1, "%s", m->later[i])) return PERFCHECK_ERROR_OUT_OF_MEMORY;
  if (pc_merge_ranks(m->in, m->nin, r)) return PERFCHECK_ERROR_OUT_OF_MEMORY;
  if (nmedian_lost &&
      pc_report_warn(r, 1,
                     "merge: %zu kernel entr%s (%s%s) combine timed launches of several reports: the median duration "
                     "cannot be recomputed from their medians and is null; min and max are exact",
                     nmedian_lost, nmedian_lost == 1 ? "y" : "ies", lost_names, nmedian_lost > 3 ? ", ..." : ""))
    return PERFCHECK_ERROR_OUT_OF_MEMORY;
  pc_checklist_report(r);
  *out = r;
  m->r = NULL;
  return PERFCHECK_OK;
}

PERFCHECK_API perfcheck_status perfcheck_report_merge(const perfcheck_report *const *reports, size_t n,
                                                      perfcheck_report **out) {
  if (out) *out = NULL;
  if (!out || !reports || n == 0)
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_report_merge: %s",
                   !out ? "out is NULL" : !reports ? "reports is NULL" : "no reports (n is 0)");
  for (size_t i = 0; i < n; i++)
    if (!reports[i])
      return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_report_merge: report %zu of %zu is NULL", i + 1, n);
  pc_merger *m = pc_merger_new();
  if (!m) return pc_fail(PERFCHECK_ERROR_OUT_OF_MEMORY, "perfcheck_report_merge: out of memory");
  pc_locale_guard lg; /* the warnings' numbers, whatever the host's LC_NUMERIC */
  pc_locale_begin(&lg);
  perfcheck_status st = PERFCHECK_OK;
  for (size_t i = 0; i < n && st == PERFCHECK_OK; i++) st = pc_merger_add(m, reports[i]);
  if (st == PERFCHECK_OK) st = pc_merger_finish(m, out);
  pc_locale_end(&lg);
  pc_merger_free(m);
  if (st != PERFCHECK_OK) return pc_fail(st, "perfcheck_report_merge: out of memory");
  return PERFCHECK_OK;
}

PERFCHECK_API perfcheck_status perfcheck_report_merge_files(const char *const *paths, size_t n, int quiet,
                                                            perfcheck_report **out) {
  if (out) *out = NULL;
  if (!out || !paths || n == 0)
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_report_merge_files: %s",
                   !out ? "out is NULL" : !paths ? "paths is NULL" : "no files (n is 0)");
  for (size_t i = 0; i < n; i++)
    if (!paths[i])
      return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_report_merge_files: path %zu of %zu is NULL", i + 1,
                     n);
  pc_merger *m = pc_merger_new();
  if (!m) return pc_fail(PERFCHECK_ERROR_OUT_OF_MEMORY, "perfcheck_report_merge_files: out of memory");
  perfcheck_status st = PERFCHECK_OK;
  char err[600] = "";
  /* One input at a time: read, folded in, freed. */
  for (size_t i = 0; i < n && st == PERFCHECK_OK; i++) {
    pc_report *in = NULL;
    st = perfcheck_report_read(paths[i], quiet, &in); /* any format perfcheck reads, plain or gzip */
    if (st != PERFCHECK_OK) {
      snprintf(err, sizeof err, "%s", perfcheck_last_error_message());
      break;
    }
    pc_locale_guard lg;
    pc_locale_begin(&lg);
    st = pc_merger_add(m, in);
    pc_locale_end(&lg);
    pc_report_free(in);
    if (st != PERFCHECK_OK) snprintf(err, sizeof err, "perfcheck_report_merge_files: out of memory");
  }
  if (st == PERFCHECK_OK) {
    pc_locale_guard lg;
    pc_locale_begin(&lg);
    st = pc_merger_finish(m, out);
    pc_locale_end(&lg);
    if (st != PERFCHECK_OK) snprintf(err, sizeof err, "perfcheck_report_merge_files: out of memory");
  }
  pc_merger_free(m);
  if (st != PERFCHECK_OK) return pc_fail(st, "%s", err[0] ? err : perfcheck_strerror(st));
  return PERFCHECK_OK;
}
