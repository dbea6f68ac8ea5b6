/* Comparing two reports: pairing, the time, verdict and metric changes, and
 * the public perfcheck_diff_* calls.  The rules are in pc_diff.h; the
 * tolerance of every value is the expectations' policy (pc_expect.c), not a
 * second copy of it. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pc_buf.h"
#include "model/pc_core.h"
#include "base/pc_fmt.h"
#include "report/pc_diff.h"
#include "expect/pc_expect.h"
#include "write/pc_write.h"
#include "write/pc_write_diff.h"
#include "model/pc_diff_model.h"
#include "base/pc_util.h"

/* ---- Pairing -------------------------------------------------------------------- */

typedef struct pc_entry {
  const pc_kernel *k;
  size_t index;
  int used;
} pc_entry;

static int pc_cmp_str(const char *a, const char *b) {
  if (!a || !b) return (a != NULL) - (b != NULL);
  return strcmp(a, b);
}

static int pc_cmp_dbl(double a, double b) {
  if (pc_is_null(a) || pc_is_null(b)) return pc_is_null(b) - pc_is_null(a);
  return (a > b) - (a < b);
}

/* The signature: display name, grid, block, dynamic shared memory. */
static int pc_cmp_signature(const pc_kernel *a, const pc_kernel *b) {
  int c = strcmp(pc_kernel_label_name(a), pc_kernel_label_name(b));
  if (c) return c;
  for (int i = 0; i < 3; i++) {
    if (a->grid[i] != b->grid[i]) return a->grid[i] < b->grid[i] ? -1 : 1;
    if (a->block[i] != b->block[i]) return a->block[i] < b->block[i] ? -1 : 1;
  }
  return pc_cmp_dbl(a->dynamic_smem, b->dynamic_smem);
}

/* The keys a pairing pass compares after the signature. */
enum { PC_KEY_NAME = 1, PC_KEY_REGION = 2 };

/* What the pairing passes compare, in sort order: the signature, then (for
 * the name-first order) the full name, then the region, then the name.  A
 * pass's keys are always a prefix of its list's sort order. */
static int pc_cmp_keys(const pc_kernel *a, const pc_kernel *b, int keys, int name_first) {
  int c = pc_cmp_signature(a, b);
  if (!c && name_first && (keys & PC_KEY_NAME)) c = pc_cmp_str(a->name, b->name);
  if (!c && (keys & PC_KEY_REGION)) c = pc_cmp_str(a->region, b->region);
  if (!c && !name_first && (keys & PC_KEY_NAME)) c = pc_cmp_str(a->name, b->name);
  return c;
}

/* Sort orders: signature, name, region (name first) or signature, region,
 * name; then report order inside a group. */
static int pc_cmp_name_first(const void *x, const void *y) {
  const pc_entry *a = x, *b = y;
  int c = pc_cmp_keys(a->k, b->k, PC_KEY_NAME | PC_KEY_REGION, 1);
  return c ? c : (a->index > b->index) - (a->index < b->index);
}

static int pc_cmp_region_first(const void *x, const void *y) {
  const pc_entry *a = x, *b = y;
  int c = pc_cmp_keys(a->k, b->k, PC_KEY_NAME | PC_KEY_REGION, 0);
  return c ? c : (a->index > b->index) - (a->index < b->index);
}

/* One merge walk over two lists sorted alike: entries whose `keys` are equal
 * pair in order.  pair_b[j] gets the index in a of b's partner. */
static void pc_pair_walk(pc_entry *ea, size_t na, pc_entry *eb, size_t nb, int keys, int name_first,
                         size_t *pair_b) {
  size_t i = 0, j = 0;
  while (i < na && j < nb) {
    if (ea[i].used) {
      i++;
      continue;
    }
    if (eb[j].used) {
      j++;
      continue;
    }
    int c = pc_cmp_keys(ea[i].k, eb[j].k, keys, name_first);
    if (c < 0) {
      i++;
    } else if (c > 0) {
      j++;
    } else {
      pair_b[eb[j].index] = ea[i].index;
      ea[i].used = eb[j].used = 1;
      i++, j++;
    }
  }
}

/* ---- Changes ---------------------------------------------------------------------- */

/* -1 not comparable, 0 nothing to fix, 1 read the stall reasons, 2 a catch. */
static int pc_cause_rank(perfcheck_cause c) {
  switch (c) {
    case PERFCHECK_CAUSE_NOT_ASSESSED: return -1;
    case PERFCHECK_CAUSE_NONE:
    case PERFCHECK_CAUSE_AT_ROOF: return 0;
    case PERFCHECK_CAUSE_LATENCY_BOUND: return 1;
    default: return 2;
  }
}

static pc_change pc_verdict_change(const pc_finding *a, const pc_finding *b) {
  if (a->cause == b->cause) return PC_CHANGE_SAME;
  int ra = pc_cause_rank(a->cause), rb = pc_cause_rank(b->cause);
  if (ra < 0 || rb < 0) return PC_CHANGE_NOT_COMPARABLE;
  if (rb != ra) return rb > ra ? PC_CHANGE_WORSE : PC_CHANGE_BETTER;
  if (ra == 2) {
    /* Both caught: an earlier step catching it now is a new problem; a later
     * one means the earlier catch was fixed (the walk goes on from there). */
    if (b->step != a->step) return b->step < a->step ? PC_CHANGE_WORSE : PC_CHANGE_BETTER;
    return PC_CHANGE_WORSE; /* the same step, another problem */
  }
  return PC_CHANGE_MOVED;
}

/* Slower (faster) only beyond the band and beyond the other run's median
 * with the fastest launch: see pc_diff.h. */
static pc_change pc_time_change(double min_a, double med_a, double min_b, double med_b, double band, double *pct) {
  *pct = PC_NULL;
  if (!(med_a > 0) || !(med_b > 0)) return PC_CHANGE_NOT_COMPARABLE;
  *pct = 100.0 * (med_b - med_a) / med_a;
  const double fast_a = pc_has(min_a) ? min_a : med_a, fast_b = pc_has(min_b) ? min_b : med_b;
  if (med_b > med_a && !pc_expect_within_band(med_a, med_b, band) && fast_b > med_a) return PC_CHANGE_WORSE;
  if (med_a > med_b && !pc_expect_within_band(med_b, med_a, band) && fast_a > med_b) return PC_CHANGE_BETTER;
  return PC_CHANGE_SAME;
}

/* The derived values a diff compares, and which way is worse for the
 * checklist (+1 higher is worse, -1 lower is worse, 0 no direction). */
typedef struct pc_derived_def {
  const char *name;
  size_t offset;
  int worse_when;
} pc_derived_def;

static const pc_derived_def pc_diff_derived[] = {
    {"sectors_per_request_ld", offsetof(pc_derived, sectors_per_request_ld), +1},
    {"sectors_per_request_st", offsetof(pc_derived, sectors_per_request_st), +1},
    /* Bytes used of each fetched sector: fewer is worse (the coalescing rule). */
    {"bytes_per_sector_ld", offsetof(pc_derived, bytes_per_sector_ld), -1},
    {"bytes_per_sector_st", offsetof(pc_derived, bytes_per_sector_st), -1},
    {"bytes_per_sector_ldgsts", offsetof(pc_derived, bytes_per_sector_ldgsts), -1},
    {"threads_per_instruction", offsetof(pc_derived, threads_per_instruction), -1},
    {"threads_per_instruction_pred_on", offsetof(pc_derived, threads_per_instruction_pred_on), -1},
    {"achieved_occupancy_pct", offsetof(pc_derived, achieved_occupancy_pct), -1},
    {"theoretical_occupancy_pct", offsetof(pc_derived, theoretical_occupancy_pct), -1},
    {"local_sectors", offsetof(pc_derived, local_sectors), +1},
    {"bank_conflict_share", offsetof(pc_derived, bank_conflict_share), +1},
    {"atomic_share", offsetof(pc_derived, atomic_share), +1},
    {"flops", offsetof(pc_derived, flops), 0},
    {"dram_bytes", offsetof(pc_derived, dram_bytes), 0},
    {"arithmetic_intensity", offsetof(pc_derived, arithmetic_intensity), 0},
    {"waves_per_sm", offsetof(pc_derived, waves_per_sm), 0},
    {"dram_gbps", offsetof(pc_derived, dram_gbps), 0},
    {"gflops", offsetof(pc_derived, gflops), 0},
    {"memory_pct", offsetof(pc_derived, memory_pct), 0},
    {"compute_pct", offsetof(pc_derived, compute_pct), 0},
};

static double pc_derived_at(const pc_derived *d, size_t offset) { return *(const double *)((const char *)d + offset); }

typedef struct pc_mlist {
  pc_diff_metric *v;
  size_t n, cap;
  int oom;
} pc_mlist;

/* Compares one value; adds it to the list when it moved or is measured on
 * one side only.  Returns its change. */
static pc_change pc_compare_value(pc_mlist *l, const char *name, double a, double b, int worse_when) {
  if (pc_is_null(a) && pc_is_null(b)) return PC_CHANGE_SAME;
  const double band = pc_expect_rerun_band_pct(name);
  pc_change c;
  if (pc_is_null(a) || pc_is_null(b))
    c = PC_CHANGE_NOT_COMPARABLE;
  else if (pc_expect_within_band(a, b, band))
    return PC_CHANGE_SAME;
  else if (worse_when == 0)
    c = PC_CHANGE_MOVED;
  else
    c = ((b > a) == (worse_when > 0)) ? PC_CHANGE_WORSE : PC_CHANGE_BETTER;
  if (l->oom) return c;
  if (pc_grow((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v)) {
    l->oom = 1;
    return c;
  }
  pc_diff_metric *m = &l->v[l->n];
  m->name = pc_strdup(name);
  if (!m->name) {
    l->oom = 1;
    return c;
  }
  m->before = a, m->after = b, m->tolerance_pct = band, m->change = c;
  l->n++;
  return c;
}

static void pc_side_fill(pc_diff_side *s, const pc_kernel *k) {
  if (!k) {
    s->launches = 0;
    s->dur_min = s->dur_median = s->dur_max = s->ai = s->gflops = s->total = s->share = PC_NULL;
    s->busiest_pipe.name = s->busiest_pipe.metric = s->busiest_memory.name = s->busiest_memory.metric = NULL;
    s->busiest_pipe.pct = s->busiest_memory.pct = PC_NULL;
    memset(&s->verdict, 0, sizeof s->verdict);
    s->verdict.cause = PERFCHECK_CAUSE_NONE;
    s->verdict.value = s->verdict.threshold = PC_NULL;
    s->bound = PERFCHECK_BOUND_UNKNOWN;
    return;
  }
  s->launches = k->launches;
  s->dur_min = k->dur_min_ns, s->dur_median = k->dur_median_ns, s->dur_max = k->dur_max_ns;
  s->total = k->total_ns, s->share = k->time_share;
  s->ai = k->derived.arithmetic_intensity, s->gflops = k->derived.gflops;
  s->busiest_pipe = k->busiest_pipe, s->busiest_memory = k->busiest_memory; /* static names */
  s->verdict = k->diag.verdict;
  s->bound = k->diag.bound;
}

/* A busiest unit that changed name (measured on both sides): moved. */
static pc_change pc_unit_change(const pc_unit_load *a, const pc_unit_load *b) {
  if (!a->name || !b->name) return PC_CHANGE_SAME;
  return strcmp(a->name, b->name) == 0 ? PC_CHANGE_SAME : PC_CHANGE_MOVED;
}

/* Folds one change into a pair's overall change. */
static void pc_fold(pc_change *overall, pc_change c) {
  if (c == PC_CHANGE_WORSE) *overall = PC_CHANGE_WORSE;
  else if (c == PC_CHANGE_BETTER && *overall != PC_CHANGE_WORSE) *overall = PC_CHANGE_BETTER;
  else if (c == PC_CHANGE_MOVED && *overall == PC_CHANGE_SAME) *overall = PC_CHANGE_MOVED;
}

static int pc_diff_kernel_fill(pc_diff_kernel *dk, const pc_kernel *ka, const pc_kernel *kb, const char *label,
                               double band) {
  const pc_kernel *k = kb ? kb : ka;
  dk->name = pc_strdup(pc_kernel_label_name(k));
  dk->label = pc_strdup(label ? label : pc_kernel_label_name(k));
  dk->region = k->region ? pc_strdup(k->region) : NULL;
  if (!dk->name || !dk->label || (k->region && !dk->region)) return -1;
  memcpy(dk->grid, k->grid, sizeof dk->grid);
  memcpy(dk->block, k->block, sizeof dk->block);
  dk->dynamic_smem = k->dynamic_smem;
  dk->presence = ka && kb ? PC_PAIRED : kb ? PC_ADDED : PC_REMOVED;
  pc_side_fill(&dk->a, ka);
  pc_side_fill(&dk->b, kb);
  dk->time_band_pct = band;
  dk->time_change_pct = PC_NULL;
  dk->time = dk->verdict = PC_CHANGE_NOT_COMPARABLE;
  dk->busiest_pipe = dk->busiest_memory = PC_CHANGE_SAME;
  dk->overall = PC_CHANGE_SAME;
  if (dk->presence != PC_PAIRED) return 0;

  dk->time = pc_time_change(ka->dur_min_ns, ka->dur_median_ns, kb->dur_min_ns, kb->dur_median_ns, band,
                            &dk->time_change_pct);
  dk->verdict = pc_verdict_change(&ka->diag.verdict, &kb->diag.verdict);
  pc_fold(&dk->overall, dk->time);
  pc_fold(&dk->overall, dk->verdict);

  dk->busiest_pipe = pc_unit_change(&ka->busiest_pipe, &kb->busiest_pipe);
  dk->busiest_memory = pc_unit_change(&ka->busiest_memory, &kb->busiest_memory);
  pc_fold(&dk->overall, dk->busiest_pipe);
  pc_fold(&dk->overall, dk->busiest_memory);

  pc_mlist l = {0};
  const pc_metric_def *table = pc_metric_table();
  pc_fold(&dk->overall, pc_compare_value(&l, "launches", (double)ka->launches, (double)kb->launches, 0));
  /* total_ns and kernel_time_share are not compared: the median against its
   * noise band is the time verdict, launches are compared above, and a
   * share moves whenever another kernel's time does.  The sides keep both
   * and the writers show them. */
  for (int i = 0; i < PC_M_COUNT; i++) {
    if (i == PC_M_DURATION) continue; /* the time change above, with its noise band */
    pc_fold(&dk->overall, pc_compare_value(&l, table[i].name, ka->metric[i], kb->metric[i], 0));
  }
  for (size_t i = 0; i < sizeof pc_diff_derived / sizeof pc_diff_derived[0]; i++) {
    const pc_derived_def *dd = &pc_diff_derived[i];
    pc_fold(&dk->overall, pc_compare_value(&l, dd->name, pc_derived_at(&ka->derived, dd->offset),
                                           pc_derived_at(&kb->derived, dd->offset), dd->worse_when));
  }
  /* Metrics added by name: by name on both sides. */
  for (size_t i = 0; i < ka->nextra; i++) {
    if (!ka->extra_names || !ka->extra_names[i]) continue;
    double vb = PC_NULL;
    for (size_t j = 0; j < kb->nextra; j++)
      if (kb->extra_names && kb->extra_names[j] && strcmp(kb->extra_names[j], ka->extra_names[i]) == 0)
        vb = kb->extra_values ? kb->extra_values[j] : PC_NULL;
    pc_fold(&dk->overall,
            pc_compare_value(&l, ka->extra_names[i], ka->extra_values ? ka->extra_values[i] : PC_NULL, vb, 0));
  }
  for (size_t j = 0; j < kb->nextra; j++) {
    if (!kb->extra_names || !kb->extra_names[j]) continue;
    int seen = 0;
    for (size_t i = 0; i < ka->nextra && !seen; i++)
      seen = ka->extra_names && ka->extra_names[i] && strcmp(ka->extra_names[i], kb->extra_names[j]) == 0;
    if (!seen) pc_compare_value(&l, kb->extra_names[j], PC_NULL, kb->extra_values ? kb->extra_values[j] : PC_NULL, 0);
  }
  dk->metrics = l.v;
  dk->nmetrics = l.n;
  for (size_t i = 0; i < l.n; i++) dk->moved += l.v[i].change != PC_CHANGE_NOT_COMPARABLE;
  return l.oom ? -1 : 0;
}

/* ---- Regions ----------------------------------------------------------------------- */

static int pc_region_same(const pc_region *a, const pc_region *b) {
  return a->depth == b->depth && pc_cmp_str(a->name, b->name) == 0 && pc_cmp_str(a->parent, b->parent) == 0;
}

static double pc_copies(const pc_region *g) {
  if (pc_is_null(g->memcpy_ns) && pc_is_null(g->memset_ns)) return PC_NULL;
  return (pc_has(g->memcpy_ns) ? g->memcpy_ns : 0) + (pc_has(g->memset_ns) ? g->memset_ns : 0);
}

static int pc_diff_region_fill(pc_diff_region *dr, const pc_region *a, const pc_region *b, double band) {
  const pc_region *g = b ? b : a;
  dr->name = pc_strdup(g->name ? g->name : "");
  dr->parent = g->parent ? pc_strdup(g->parent) : NULL;
  if (!dr->name || (g->parent && !dr->parent)) return -1;
  dr->depth = g->depth;
  dr->presence = a && b ? PC_PAIRED : b ? PC_ADDED : PC_REMOVED;
  dr->wall_a = a ? a->wall_ns : PC_NULL, dr->wall_b = b ? b->wall_ns : PC_NULL;
  dr->kernel_a = a ? a->kernel_ns : PC_NULL, dr->kernel_b = b ? b->kernel_ns : PC_NULL;
  dr->copies_a = a ? pc_copies(a) : PC_NULL, dr->copies_b = b ? pc_copies(b) : PC_NULL;
  dr->share_a = a ? a->kernel_share : PC_NULL, dr->share_b = b ? b->kernel_share : PC_NULL;
  dr->launches_a = a ? a->launches : 0, dr->launches_b = b ? b->launches : 0;
  memset(&dr->verdict_a, 0, sizeof dr->verdict_a);
  memset(&dr->verdict_b, 0, sizeof dr->verdict_b);
  if (a) dr->verdict_a = a->diag.verdict;
  if (b) dr->verdict_b = b->diag.verdict;
  dr->time_change_pct = PC_NULL;
  dr->time = dr->verdict = PC_CHANGE_NOT_COMPARABLE;
  dr->overall = PC_CHANGE_SAME;
  if (dr->presence != PC_PAIRED) return 0;
  /* A region's wall clock has no spread: the band alone.  Counter replay is
   * cut out of it (pc_region_build.c), but CUPTI's work outside the cut
   * windows is not: where the cut is more than the band's share of the
   * wall, what is left can move by more than the band between two runs of
   * one program (the same program's region, replay cut out: 123 ms, then
   * 163.5 ms; gpu.diff_runs, docs/measurements/2026-12-02-h200-d), so the
   * two walls are not compared; the kernels' own times still are. */
  const double cut_a = pc_has(a->profiling_ns) ? a->profiling_ns : 0.0;
  const double cut_b = pc_has(b->profiling_ns) ? b->profiling_ns : 0.0;
  const double cut = cut_a > cut_b ? cut_a : cut_b;
  const double wall_min = a->wall_ns < b->wall_ns ? a->wall_ns : b->wall_ns;
  dr->time = pc_time_change(PC_NULL, a->wall_ns, PC_NULL, b->wall_ns, band, &dr->time_change_pct);
  if (pc_has(wall_min) && wall_min > 0 && cut > wall_min * band / 100.0) {
    dr->time = PC_CHANGE_NOT_COMPARABLE; /* the change is still shown */
    dr->replay_dominated = 1;
  }
  dr->verdict = pc_verdict_change(&a->diag.verdict, &b->diag.verdict);
  pc_fold(&dr->overall, dr->time);
  pc_fold(&dr->overall, dr->verdict);
  return 0;
}

/* ---- The diff ------------------------------------------------------------------------ */

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int pc_diff_note(pc_diff *d, const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  const int len = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *buf = len < 0 ? NULL : malloc((size_t)len + 1);
  if (buf) vsnprintf(buf, (size_t)len + 1, fmt, ap2);
  va_end(ap2);
  if (!buf) return -1;
  char **p = realloc(d->notes, (d->nnotes + 1) * sizeof *p);
  if (!p) {
    free(buf);
    return -1;
  }
  d->notes = p;
  d->notes[d->nnotes++] = buf;
  return 0;
}

static void pc_device_words(const pc_device *d, char *out, size_t len) {
  if (d->cc_major >= 0)
    snprintf(out, len, "%s (sm_%d%d, %d SMs)", d->name[0] ? d->name : "unknown device", d->cc_major, d->cc_minor,
             d->sm_count);
  else
    snprintf(out, len, "%s", d->name[0] ? d->name : "unknown device");
}

void pc_diff_free(pc_diff *d) {
  if (!d) return;
  for (size_t i = 0; i < d->nkernels; i++) {
    pc_diff_kernel *k = &d->kernels[i];
    free(k->name);
    free(k->label);
    free(k->region);
    for (size_t j = 0; j < k->nmetrics; j++) free(k->metrics[j].name);
    free(k->metrics);
  }
  free(d->kernels);
  for (size_t i = 0; i < d->nregions; i++) {
    free(d->regions[i].name);
    free(d->regions[i].parent);
  }
  free(d->regions);
  for (size_t i = 0; i < d->nnotes; i++) free(d->notes[i]);
  free(d->notes);
  free(d->name_a);
  free(d->name_b);
  free(d);
}

static perfcheck_status pc_diff_build(pc_diff *d, const pc_report *a, const pc_report *b) {
  const size_t na = a->nkernels, nb = b->nkernels;
  pc_entry *ea = calloc(na ? na : 1, sizeof *ea), *eb = calloc(nb ? nb : 1, sizeof *eb);
  size_t *pair_b = malloc((nb ? nb : 1) * sizeof *pair_b);
  int *a_used = calloc(na ? na : 1, sizeof *a_used);
  pc_label *la = calloc(na ? na : 1, sizeof *la), *lb = calloc(nb ? nb : 1, sizeof *lb);
  int labels_ok = 0;
  perfcheck_status st = PERFCHECK_ERROR_OUT_OF_MEMORY;
  if (!ea || !eb || !pair_b || !a_used || !la || !lb) goto done;
  if (pc_kernel_labels(a, la) != 0) goto done;
  if (pc_kernel_labels(b, lb) != 0) {
    for (size_t i = 0; i < na; i++) free(la[i].text);
    goto done;
  }
  labels_ok = 1;
  for (size_t i = 0; i < na; i++) ea[i].k = &a->kernels[i], ea[i].index = i;
  for (size_t j = 0; j < nb; j++) eb[j].k = &b->kernels[j], eb[j].index = j, pair_b[j] = (size_t)-1;
  /* Display name and signature always; the same full name first (two
   * template instances can share a display name, and the reports order
   * kernels by time, which two runs need not agree on), then in the same
   * region first. */
  qsort(ea, na, sizeof *ea, pc_cmp_name_first);
  qsort(eb, nb, sizeof *eb, pc_cmp_name_first);
  pc_pair_walk(ea, na, eb, nb, PC_KEY_NAME | PC_KEY_REGION, 1, pair_b);
  pc_pair_walk(ea, na, eb, nb, PC_KEY_NAME, 1, pair_b);
  qsort(ea, na, sizeof *ea, pc_cmp_region_first);
  qsort(eb, nb, sizeof *eb, pc_cmp_region_first);
  pc_pair_walk(ea, na, eb, nb, PC_KEY_REGION, 0, pair_b);
  pc_pair_walk(ea, na, eb, nb, 0, 0, pair_b);

  d->kernels = calloc(na + nb ? na + nb : 1, sizeof *d->kernels);
  if (!d->kernels) goto done;
  /* The after report's order, then what it lost in the before report's. */
  for (size_t j = 0; j < nb; j++) {
    const pc_kernel *ka = pair_b[j] != (size_t)-1 ? &a->kernels[pair_b[j]] : NULL;
    if (ka) a_used[pair_b[j]] = 1;
    if (pc_diff_kernel_fill(&d->kernels[d->nkernels++], ka, &b->kernels[j], lb[j].text, d->time_band_pct) != 0) goto done;
  }
  for (size_t i = 0; i < na; i++)
    if (!a_used[i] && pc_diff_kernel_fill(&d->kernels[d->nkernels++], &a->kernels[i], NULL, la[i].text,
                                          d->time_band_pct) != 0)
      goto done;

  /* Regions: by name, parent and depth, in order. */
  d->regions = calloc(a->nregions + b->nregions ? a->nregions + b->nregions : 1, sizeof *d->regions);
  int *ra_used = calloc(a->nregions ? a->nregions : 1, sizeof *ra_used);
  if (!d->regions || !ra_used) {
    free(ra_used);
    goto done;
  }
  int fail = 0;
  for (size_t j = 0; j < b->nregions && !fail; j++) {
    const pc_region *ga = NULL;
    for (size_t i = 0; i < a->nregions && !ga; i++)
      if (!ra_used[i] && pc_region_same(&a->regions[i], &b->regions[j])) ga = &a->regions[i], ra_used[i] = 1;
    fail = pc_diff_region_fill(&d->regions[d->nregions++], ga, &b->regions[j], d->time_band_pct) != 0;
  }
  for (size_t i = 0; i < a->nregions && !fail; i++)
    if (!ra_used[i]) fail = pc_diff_region_fill(&d->regions[d->nregions++], &a->regions[i], NULL, d->time_band_pct) != 0;
  free(ra_used);
  if (fail) goto done;
  size_t nreplay = 0;
  for (size_t i = 0; i < d->nregions; i++) nreplay += d->regions[i].replay_dominated;
  if (nreplay) {
    if (pc_diff_note(d, "%zu region%s: wall clocks not compared (counter replay, cut out of them, was more than the "
                        "noise band of the wall, and what CUPTI does outside the cut can move them by more): "
                        "compare regions with --mode timing runs.", nreplay, nreplay == 1 ? "" : "s") != 0)
      goto done;
  }

  for (size_t i = 0; i < d->nkernels; i++) {
    const pc_diff_kernel *k = &d->kernels[i];
    if (k->presence == PC_ADDED) d->added++;
    else if (k->presence == PC_REMOVED) d->removed++;
    else d->count[k->overall]++;
    if (k->overall == PC_CHANGE_WORSE) d->worse++;
  }
  for (size_t i = 0; i < d->nregions; i++) d->worse += d->regions[i].overall == PC_CHANGE_WORSE;

  char x[200], y[200];
  pc_device_words(&a->device, x, sizeof x);
  pc_device_words(&b->device, y, sizeof y);
  if (strcmp(x, y) != 0 && pc_diff_note(d, "The reports come from different devices (%s, then %s): times and rates "
                                           "compare two machines, not two versions of the code.", x, y) != 0)
    goto done;
  if (strcmp(a->source, b->source) != 0 &&
      pc_diff_note(d, "The reports were made differently (%s, then %s).", a->source, b->source) != 0)
    goto done;
  if (strcmp(a->metric_set, b->metric_set) != 0 &&
      pc_diff_note(d, "The metric sets differ (%s, then %s): a value measured on one side only is not compared.",
                   a->metric_set, b->metric_set) != 0)
    goto done;
  st = PERFCHECK_OK;
done:
  if (labels_ok) {
    for (size_t i = 0; i < na; i++) free(la[i].text);
    for (size_t j = 0; j < nb; j++) free(lb[j].text);
  }
  free(la);
  free(lb);
  free(ea);
  free(eb);
  free(pair_b);
  free(a_used);
  return st;
}

perfcheck_status pc_diff_reports(const pc_report *a, const pc_report *b, const char *name_a, const char *name_b,
                                 pc_diff **out) {
  *out = NULL;
  pc_diff *d = calloc(1, sizeof *d);
  if (!d) return PERFCHECK_ERROR_OUT_OF_MEMORY;
  d->name_a = pc_strdup(name_a ? name_a : "before");
  d->name_b = pc_strdup(name_b ? name_b : "after");
  d->device_a = a->device, d->device_b = b->device;
  snprintf(d->source_a, sizeof d->source_a, "%s", a->source);
  snprintf(d->source_b, sizeof d->source_b, "%s", b->source);
  d->time_band_pct = pc_expect_rerun_band_pct(pc_metric_by_id(PC_M_DURATION)->name);
  if (!d->name_a || !d->name_b || pc_diff_build(d, a, b) != PERFCHECK_OK) {
    pc_diff_free(d);
    return PERFCHECK_ERROR_OUT_OF_MEMORY;
  }
  *out = d;
  return PERFCHECK_OK;
}

/* ---- Public API ------------------------------------------------------------------------- */

PERFCHECK_API perfcheck_status perfcheck_diff_create(const perfcheck_report *before, const perfcheck_report *after,
                                                     const char *before_name, const char *after_name,
                                                     perfcheck_diff **out) {
  if (out) *out = NULL;
  if (!before || !after || !out)
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_diff_create: %s is NULL",
                   !before ? "before" : !after ? "after" : "out");
  perfcheck_status st = pc_diff_reports(before, after, before_name, after_name, out);
  if (st != PERFCHECK_OK) return pc_fail(st, "perfcheck_diff_create: out of memory");
  return PERFCHECK_OK;
}

PERFCHECK_API size_t perfcheck_diff_worse_count(const perfcheck_diff *diff) { return diff ? diff->worse : 0; }

PERFCHECK_API perfcheck_status perfcheck_diff_write(const perfcheck_diff *diff, perfcheck_format format,
                                                    FILE *stream) {
  if (!diff || !stream)
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_diff_write: %s is NULL", diff ? "stream" : "diff");
  pc_err e;
  perfcheck_status st;
  switch (format) {
    case PERFCHECK_FORMAT_TEXT:
      st = pc_diff_write_text(diff, stream, &e);
      break;
    case PERFCHECK_FORMAT_JSON:
      st = pc_diff_write_json(diff, stream, &e);
      break;
    case PERFCHECK_FORMAT_HTML:
      st = pc_diff_write_html(diff, stream, &e);
      break;
    default:
      return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT,
                     "perfcheck_diff_write: a diff is written as text, json or html (format %d)", (int)format);
  }
  return st == PERFCHECK_OK ? st : pc_fail(st, "%s", e.msg); /* the boundary: the thread's last error */
}

PERFCHECK_API void perfcheck_diff_destroy(perfcheck_diff *diff) { pc_diff_free(diff); }

/* ---- What a diff judged, as results of an expectations set ----------------------------- */

/* "96.4 us": a duration for a one-line message. */
static const char *pc_diff_ns(char *buf, size_t len, double ns) {
  static const struct {
    double scale;
    const char *unit;
  } u[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "us"}, {1, "ns"}};
  if (pc_is_null(ns)) {
    snprintf(buf, len, "-");
    return buf;
  }
  size_t i = 0;
  while (i + 1 < sizeof u / sizeof u[0] && fabs(ns) < u[i].scale) i++;
  snprintf(buf, len, "%.4g %s", ns / u[i].scale, u[i].unit);
  return buf;
}

/* One line: what got worse in a kernel entry (time, verdict, the checklist
 * numbers), or that nothing did. */
static void pc_diff_kernel_message(pc_buf *b, const pc_diff *d, const pc_diff_kernel *k) {
  char x[40], y[40], z[40];
  pc_buf_printf(b, "%s: ", k->label);
  if (k->presence != PC_PAIRED) {
    pc_buf_printf(b, "only in %s (%s kernel: not worse by itself)", k->presence == PC_ADDED ? d->name_b : d->name_a,
                  k->presence == PC_ADDED ? "a new" : "a removed");
    return;
  }
  if (k->overall != PC_CHANGE_WORSE) {
    pc_buf_printf(b, "no worse than %s (median %s -> %s%s)", d->name_a, pc_diff_ns(x, sizeof x, k->a.dur_median),
                  pc_diff_ns(y, sizeof y, k->b.dur_median),
                  k->overall == PC_CHANGE_BETTER ? ", better" : k->overall == PC_CHANGE_MOVED ? ", values moved" : "");
    return;
  }
  pc_buf_printf(b, "worse than %s:", d->name_a);
  const char *sep = " ";
  if (k->time == PC_CHANGE_WORSE) {
    pc_fmt_double(z, sizeof z, k->time_band_pct);
    pc_buf_printf(b, "%sslower, median %s -> %s (%+.1f%%, band %s%%)", sep, pc_diff_ns(x, sizeof x, k->a.dur_median),
                  pc_diff_ns(y, sizeof y, k->b.dur_median), k->time_change_pct, z);
    sep = "; ";
  }
  if (k->verdict == PC_CHANGE_WORSE) {
    pc_buf_printf(b, "%sverdict step %d %s -> step %d %s", sep, k->a.verdict.step, perfcheck_cause_name(k->a.verdict.cause),
                  k->b.verdict.step, perfcheck_cause_name(k->b.verdict.cause));
    sep = "; ";
  }
  for (size_t i = 0; i < k->nmetrics; i++) {
    const pc_diff_metric *m = &k->metrics[i];
    if (m->change != PC_CHANGE_WORSE) continue;
    pc_fmt_double(x, sizeof x, m->before);
    pc_fmt_double(y, sizeof y, m->after);
    pc_buf_printf(b, "%s%s %s -> %s", sep, m->name, x, y);
    sep = "; ";
  }
}

static void pc_diff_region_message(pc_buf *b, const pc_diff *d, const pc_diff_region *g) {
  char x[40], y[40];
  pc_buf_printf(b, "region %s: ", g->name ? g->name : "(none)");
  if (g->presence != PC_PAIRED) {
    pc_buf_printf(b, "only in %s (not worse by itself)", g->presence == PC_ADDED ? d->name_b : d->name_a);
    return;
  }
  if (g->overall != PC_CHANGE_WORSE) {
    pc_buf_printf(b, "no worse than %s (wall clock %s -> %s)", d->name_a, pc_diff_ns(x, sizeof x, g->wall_a),
                  pc_diff_ns(y, sizeof y, g->wall_b));
    return;
  }
  pc_buf_printf(b, "worse than %s:", d->name_a);
  const char *sep = " ";
  if (g->time == PC_CHANGE_WORSE) {
    pc_buf_printf(b, "%swall clock %s -> %s (%+.1f%%)", sep, pc_diff_ns(x, sizeof x, g->wall_a),
                  pc_diff_ns(y, sizeof y, g->wall_b), g->time_change_pct);
    sep = "; ";
  }
  if (g->verdict == PC_CHANGE_WORSE)
    pc_buf_printf(b, "%sstep 1 %s -> %s", sep, perfcheck_cause_name(g->verdict_a.cause),
                  perfcheck_cause_name(g->verdict_b.cause));
}

PERFCHECK_API perfcheck_status perfcheck_expectations_add_diff(perfcheck_expectations *set, const perfcheck_diff *diff,
                                                               size_t *failures) {
  if (failures) *failures = set ? set->failures + (diff ? 0 : 1) : 1;
  if (!set || !diff)
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_expectations_add_diff: %s is NULL",
                   set ? "the diff" : "the set");
  const pc_diff *d = diff;
  pc_buf spec = PC_BUF_INIT, expected = PC_BUF_INIT;
  pc_buf_printf(&spec, "baseline %s", d->name_a);
  pc_buf_printf(&expected, "no worse than %s", d->name_a);
  perfcheck_status st = spec.oom || expected.oom ? PERFCHECK_ERROR_OUT_OF_MEMORY : PERFCHECK_OK;
  pc_locale_guard lg;
  pc_locale_begin(&lg);
  const size_t n = d->nkernels + d->nregions;
  for (size_t i = 0; i < n && st == PERFCHECK_OK; i++) {
    pc_buf msg = PC_BUF_INIT, name = PC_BUF_INIT;
    int worse;
    if (i < d->nkernels) {
      const pc_diff_kernel *k = &d->kernels[i];
      worse = k->overall == PC_CHANGE_WORSE && k->presence == PC_PAIRED;
      pc_diff_kernel_message(&msg, d, k);
      pc_buf_printf(&name, "%s [grid %ux%ux%u block %ux%ux%u]%s%s", k->label, k->grid[0], k->grid[1], k->grid[2],
                    k->block[0], k->block[1], k->block[2], k->region ? " in " : "", k->region ? k->region : "");
    } else {
      const pc_diff_region *g = &d->regions[i - d->nkernels];
      worse = g->overall == PC_CHANGE_WORSE && g->presence == PC_PAIRED;
      pc_diff_region_message(&msg, d, g);
      pc_buf_printf(&name, "region %s", g->name ? g->name : "(none)");
    }
    if (msg.oom || name.oom)
      st = PERFCHECK_ERROR_OUT_OF_MEMORY;
    else
      st = pc_expect_add_result(set, spec.p, name.p, "baseline", expected.p,
                                worse ? PERFCHECK_ERROR_EXPECTATION_FAILED : PERFCHECK_OK,
                                worse ? "worse_than_baseline" : NULL, msg.p);
    pc_buf_free(&msg);
    pc_buf_free(&name);
  }
  pc_locale_end(&lg);
  pc_buf_free(&spec);
  pc_buf_free(&expected);
  if (failures) *failures = set->failures + (st == PERFCHECK_OK ? 0 : 1);
  if (st != PERFCHECK_OK) return pc_fail(st, "perfcheck_expectations_add_diff: out of memory");
  return set->failures ? PERFCHECK_ERROR_EXPECTATION_FAILED : PERFCHECK_OK;
}
