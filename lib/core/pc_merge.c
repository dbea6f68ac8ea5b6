/* perfcheck_report_merge: the reports of several processes (MPI ranks,
 * forks) as one, diagnosed again.  perfcheck.h states the rules; the one
 * that needs a reason is the median: the median of several medians is not
 * the median of the launches, and a number that was not measured is never
 * printed, so such a median is null. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pc_core.h"
#include "pc_fmt.h"

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

static uint64_t pc_merge_mix(uint64_t h, const void *p, size_t n) {
  const unsigned char *c = p;
  for (size_t i = 0; i < n; i++) {
    h ^= c[i];
    h *= 1099511628211ull; /* FNV-1a */
  }
  return h;
}

/* A hash of what pc_merge_same_key always compares (not the mangled name,
 * which it compares only when both entries know it). */
static uint64_t pc_merge_hash(pc_mk m) {
  const pc_kernel *k = m.k;
  uint64_t h = 1469598103934665603ull;
  h = pc_merge_mix(h, m.model, strlen(m.model) + 1);
  if (k->name) h = pc_merge_mix(h, k->name, strlen(k->name));
  h = pc_merge_mix(h, "\x1f", 1);
  if (k->region) h = pc_merge_mix(h, k->region, strlen(k->region));
  h = pc_merge_mix(h, k->grid, sizeof k->grid);
  h = pc_merge_mix(h, k->block, sizeof k->block);
  double d = pc_is_null(k->dynamic_smem) ? -1.0 : k->dynamic_smem == 0 ? 0.0 : k->dynamic_smem; /* -0 is 0 */
  h = pc_merge_mix(h, &d, sizeof d);
  return h;
}

/* A key seen in the current report, and how often so far. */
typedef struct pc_moccur {
  pc_mk k;
  uint64_t hash;
  size_t count;
} pc_moccur;

/* One merged kernel entry while the reports are walked. */
typedef struct pc_mgroup {
  pc_mk key;               /* the first entry of the group: its key */
  const pc_kernel *rep;    /* whose counters and attributes the entry keeps */
  size_t occ;              /* k-th entry of its key within its report */
  uint64_t hash;           /* of the key and occ */
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

/* The ranks of the inputs: the merged report's world size, and a warning
 * for each rank of 0..world_size-1 that no input holds (at most 32 by
 * number, then how many more), for a rank given twice, and for inputs
 * that disagree on the world size.  Returns -1 on OOM. */
static int pc_merge_ranks(const pc_report *const *in, size_t n, pc_report *r) {
  int world = -1, disagree = 0;
  for (size_t i = 0; i < n; i++) {
    if (in[i]->world_size <= 0) continue;
    if (world > 0 && in[i]->world_size != world) disagree = 1;
    if (in[i]->world_size > world) world = in[i]->world_size;
  }
  /* One rank (one report, or copies of one): the merged report is that
   * rank's; several: no rank of its own. */
  r->rank = in[0]->rank;
  r->local_rank = in[0]->local_rank;
  for (size_t i = 1; i < n; i++) {
    if (in[i]->rank != r->rank) r->rank = -1;
    if (in[i]->local_rank != r->local_rank) r->local_rank = -1;
  }
  r->world_size = world;
  if (disagree && pc_report_warn(r, 1, "merge: the reports disagree on the world size; the merged report takes the "
                                       "largest, %d", world))
    return -1;
  if (world <= 0) return 0;
  size_t *from = calloc((size_t)world, sizeof *from); /* report index + 1 holding each rank */
  if (!from) return -1;
  for (size_t i = 0; i < n; i++) {
    const int k = in[i]->rank;
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

static perfcheck_status pc_merge_into(const pc_report *const *in, size_t n, pc_report *r) {
  const pc_report *first = in[0];
  r->device = first->device;
  memcpy(r->source, first->source, sizeof r->source);
  memcpy(r->metric_set, first->metric_set, sizeof r->metric_set);
  r->passes = first->passes;
  r->step1_assessed = 0;

  /* Regions and warnings, in report order. */
  for (size_t i = 0; i < n; i++) {
    const pc_report *s = in[i];
    if (s->step1_assessed) r->step1_assessed = 1; /* kernels of offline reports have no region anyway */
    for (size_t j = 0; j < s->nregions; j++) {
      pc_region *g = pc_report_add_region(r);
      if (!g || pc_region_copy(g, &s->regions[j])) return PERFCHECK_ERROR_OUT_OF_MEMORY;
      if (g->rank < 0) g->rank = s->rank; /* each rank's regions stay its own */
    }
    for (size_t j = 0; j < s->nwarnings; j++)
      if (pc_report_warn(r, 1, "%s", s->warnings[j])) return PERFCHECK_ERROR_OUT_OF_MEMORY;
  }

  /* Kernels: group, then copy each group's representative and fill in the
   * sums.  The groups hold pointers into the inputs, which are not changed.
   * Hash tables keep it linear: a kernel's occurrence number within its
   * report, and its group, are found in expected constant time (100k entries
   * took 92 s and 2.9 GB when both were scans). */
  size_t total = 0;
  for (size_t i = 0; i < n; i++) total += in[i]->nkernels;
  pc_mgroup *grp = total ? calloc(total, sizeof *grp) : NULL;
  size_t nslots = 16;
  while (nslots < 2 * total + 2) nslots *= 2;
  size_t *gslots = calloc(nslots, sizeof *gslots);   /* group index + 1 */
  pc_moccur *oslots = calloc(nslots, sizeof *oslots); /* per report: key -> count */
  if ((total && !grp) || !gslots || !oslots) {
    free(grp);
    free(gslots);
    free(oslots);
    return PERFCHECK_ERROR_OUT_OF_MEMORY;
  }
  size_t ngrp = 0;
  for (size_t i = 0; i < n; i++) {
    const pc_report *s = in[i];
    size_t oslots_n = 16; /* this report's table: its own size, so that many small reports stay linear */
    while (oslots_n < 2 * s->nkernels + 2) oslots_n *= 2;
    memset(oslots, 0, oslots_n * sizeof *oslots);
    for (size_t j = 0; j < s->nkernels; j++) {
      const pc_kernel *k = &s->kernels[j];
      const pc_mk mk = {k, s->device.name};
      uint64_t h = pc_merge_hash(mk);
      /* k-th entry of its key within its report. */
      size_t o = (size_t)h & (oslots_n - 1);
      while (oslots[o].k.k && !(oslots[o].hash == h && pc_merge_same_key_exact(oslots[o].k, mk)))
        o = (o + 1) & (oslots_n - 1);
      if (!oslots[o].k.k) {
        oslots[o].k = mk;
        oslots[o].hash = h;
      }
      size_t occ = oslots[o].count++;
      /* Its group: the first one of the same key and occurrence. */
      uint64_t gh = h ^ (0x9E3779B97F4A7C15ull * (occ + 1));
      size_t q = (size_t)gh & (nslots - 1);
      pc_mgroup *g = NULL;
      for (; gslots[q]; q = (q + 1) & (nslots - 1)) {
        pc_mgroup *c = &grp[gslots[q] - 1];
        if (c->hash == gh && c->occ == occ && pc_merge_same_key(c->key, mk)) {
          g = c;
          break;
        }
      }
      if (!g) {
        g = &grp[ngrp++];
        gslots[q] = ngrp;
        g->key = mk;
        g->rep = k;
        g->occ = occ;
        g->hash = gh;
        g->median = PC_NULL;
        g->dmin = g->dmax = PC_NULL;
      } else if (g->profiled == 0 && k->profiled_launches > 0) {
        g->rep = k; /* the first report that profiled the signature */
      }
      g->launches += k->launches;
      g->profiled += k->profiled_launches;
      g->dmin = fmin(g->dmin, k->dur_min_ns); /* fmin/fmax skip a NaN operand */
      g->dmax = fmax(g->dmax, k->dur_max_ns);
      if (pc_has(k->dur_median_ns) && g->timed++ == 0) g->median = k->dur_median_ns;
    }
  }
  free(gslots);
  free(oslots);

  /* The entries' array in one allocation (a kernel entry is ~9 KiB: growing
   * it by doubling would touch twice the memory). */
  if (ngrp > r->cap_kernels) {
    pc_kernel *ks = realloc(r->kernels, ngrp * sizeof *ks);
    if (!ks) {
      free(grp);
      return PERFCHECK_ERROR_OUT_OF_MEMORY;
    }
    r->kernels = ks;
    r->cap_kernels = ngrp;
  }
  size_t nmedian_lost = 0;
  char lost_names[256] = "";
  perfcheck_status st = PERFCHECK_OK;
  for (size_t q = 0; q < ngrp; q++) {
    pc_kernel *k = pc_report_add_kernel(r);
    if (!k) {
      st = PERFCHECK_ERROR_OUT_OF_MEMORY;
      break;
    }
    if (pc_kernel_copy(k, grp[q].rep)) {
      st = PERFCHECK_ERROR_OUT_OF_MEMORY;
      break;
    }
    k->launches = grp[q].launches;
    k->profiled_launches = grp[q].profiled;
    k->dur_min_ns = grp[q].dmin;
    k->dur_max_ns = grp[q].dmax;
    k->dur_median_ns = grp[q].timed <= 1 ? grp[q].median : PC_NULL;
    if (grp[q].timed > 1) {
      if (nmedian_lost++ < 3) {
        size_t used = strlen(lost_names);
        snprintf(lost_names + used, sizeof lost_names - used, "%s%.60s", used ? ", " : "", k->name ? k->name : "?");
      }
    }
  }
  free(grp);
  if (st != PERFCHECK_OK) return st;

  char la[256], lb[256];
  for (size_t i = 1; i < n; i++) {
    if (!pc_same_device(&first->device, &in[i]->device)) {
      pc_device_label(&in[i]->device, la, sizeof la);
      pc_device_label(&first->device, lb, sizeof lb);
      if (pc_report_warn(r, 1,
                         "merge: report %zu's device (%s) differs from report 1's (%s); the merged report uses "
                         "report 1's limits and ceilings for every kernel",
                         i + 1, la, lb))
        return PERFCHECK_ERROR_OUT_OF_MEMORY;
    }
    const pc_report *s = in[i];
    if (strcmp(s->source, first->source) != 0 || strcmp(s->metric_set, first->metric_set) != 0 ||
        s->passes != first->passes) {
      if (pc_report_warn(r, 1,
                         "merge: report %zu was made differently (source %s, metric set %s, %d passes) from report 1 "
                         "(source %s, metric set %s, %d passes); the merged report's header shows report 1's, each "
                         "kernel keeps its own counters",
                         i + 1, s->source, s->metric_set, s->passes, first->source, first->metric_set, first->passes))
        return PERFCHECK_ERROR_OUT_OF_MEMORY;
    }
  }
  if (pc_merge_ranks(in, n, r)) return PERFCHECK_ERROR_OUT_OF_MEMORY;
  if (nmedian_lost &&
      pc_report_warn(r, 1,
                     "merge: %zu kernel entr%s (%s%s) combine timed launches of several reports: the median duration "
                     "cannot be recomputed from their medians and is null; min and max are exact",
                     nmedian_lost, nmedian_lost == 1 ? "y" : "ies", lost_names, nmedian_lost > 3 ? ", ..." : ""))
    return PERFCHECK_ERROR_OUT_OF_MEMORY;

  pc_checklist_report(r);
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
  pc_report *r = pc_report_new();
  if (!r) return pc_fail(PERFCHECK_ERROR_OUT_OF_MEMORY, "perfcheck_report_merge: out of memory");
  pc_locale_guard lg; /* the warnings' numbers, whatever the host's LC_NUMERIC */
  pc_locale_begin(&lg);
  perfcheck_status st = pc_merge_into(reports, n, r);
  pc_locale_end(&lg);
  if (st != PERFCHECK_OK) {
    pc_report_free(r);
    return pc_fail(st, "perfcheck_report_merge: out of memory");
  }
  *out = r;
  return PERFCHECK_OK;
}
