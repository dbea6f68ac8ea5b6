/*
 * pc_region_build.c: a region's snapshot (pc_snapshot.h) into report entries
 * and their verdicts.  Pure: no CUDA, no clock, no global state; what it
 * remembers between regions is in the caller's pc_build_state.
 *
 * The region:
 *   1. Profiled launches have no timestamps under kernel replay: each is
 *      placed where its launch call returned (EXIT), with its counted
 *      duration (gpu__time_duration.sum of one pass): nothing else ran
 *      meanwhile (the launch lock and kernel replay serialize).
 *   2. perfcheck's own cost is cut out of the clock: a profiled launch's host
 *      interval, ENTER to EXIT, holds the first enable of the profiler on its
 *      context, SetConfig and Start, every replay pass with its memory save
 *      and restore, Stop, Decode and Evaluate; it shrinks to the kernel's own
 *      run.  Every time of the region (its ends, kernels, transfers) is
 *      mapped onto that clock (pc_cut_map), so the wall clock AND the gaps
 *      between kernels are the program's, and a program gets the same step-1
 *      verdict in timing and counters mode.  Nested regions' profiled
 *      launches are cut too (the snapshot lists them as inherited).
 *   3. Busy time is the union of the kernel intervals over every stream
 *      (pc_timeline), with the nested regions' kernels; step 1 reads it
 *      against that wall clock (pc_checklist_region).
 * The kernels: one entry per signature launched directly in the region
 * (function, context, grid, block, dynamic shared memory), in signature
 * order: durations (unprofiled launches when there are any: a profiled
 * launch's duration is one pass under replay), total time, counter averages
 * over its profiled launches, names, attributes, then steps 2 to 5
 * (pc_checklist_kernel).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/pc_snapshot.h"

void pc_build_state_init(pc_build_state *st, int quiet) {
  memset(st, 0, sizeof *st);
  st->quiet = quiet;
  st->device_ordinal = -1;
  st->rank = -1;
}

/* ---- the cut clock ------------------------------------------------------------------- */

static int pc_cut_cmp(const void *a, const void *b) {
  const pc_cut *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start ? 1 : 0;
}

size_t pc_cuts_normalize(pc_cut *c, size_t n) {
  if (!c || n == 0) return 0;
  qsort(c, n, sizeof *c, pc_cut_cmp); /* a handful: one per profiled launch */
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    if (c[i].end <= c[i].start) continue;
    if (m && c[i].start <= c[m - 1].end) {
      if (c[i].end > c[m - 1].end) c[m - 1].end = c[i].end;
    } else {
      c[m++] = c[i];
    }
  }
  uint64_t before = 0;
  for (size_t i = 0; i < m; i++) {
    c[i].before = before;
    before += c[i].end - c[i].start;
  }
  return m;
}

uint64_t pc_cut_map(const pc_cut *c, size_t n, uint64_t t) {
  /* The last cut that starts at or before t. */
  size_t lo = 0, hi = n;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (c[mid].start <= t)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0) return t;
  const pc_cut *x = &c[lo - 1];
  if (t < x->end) return x->start - x->before;
  return t - x->before - (x->end - x->start);
}

/* ---- small helpers ---------------------------------------------------------------------- */

static void pc_warn(pc_report *r, const pc_build_state *st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void pc_warn(pc_report *r, const pc_build_state *st, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  pc_report_warn(r, st->quiet, "%s", buf);
}

/* The counted duration of a profiled launch when it can place the kernel:
 * positive and shorter than the time stamp it is placed before. */
static int pc_prof_duration(const pc_snap_profiled *p, uint64_t *dur) {
  const double d = p->values[PC_M_DURATION];
  if (!pc_has(d) || d <= 0 || !p->exit_ts || d >= (double)p->exit_ts) return 0;
  *dur = (uint64_t)d;
  return 1;
}

/* A correlation id is never reused in a process: own and inherited records
 * are found alike (a nested region's profiled kernels count for busy time). */
static const pc_snap_profiled *pc_find_profiled(const pc_snapshot *s, uint32_t corr) {
  for (size_t i = 0; i < s->nprofiled; i++)
    if (s->profiled[i].correlation_id == corr) return &s->profiled[i];
  return NULL;
}

static const char *pc_np_reason(const pc_snapshot *s, pc_not_profiled np) {
  switch (np) {
    case PC_NP_GRAPH:
      return "launched by a CUDA graph: graph launches are never range-profiled (auto range with kernel replay "
             "corrupted a graph's output on the H200); use a stream launch of the kernel for counters";
    case PC_NP_FILTERED:
      return "not selected for counters: kernel_regex does not match its name";
    case PC_NP_SKIPPED:
      return "not selected for counters: within launch_skip";
    case PC_NP_LIMIT:
      return "not selected for counters: launch_count was reached";
    case PC_NP_FAILED:
      return "the launch chosen for counters failed";
    case PC_NP_CAPTURE:
      return "not profiled: a stream capture was in progress (the range profiler would break the capture)";
    case PC_NP_NVTX:
      return "not selected for counters: launched outside what the NVTX range filter selects (--nvtx-include, "
             "--nvtx-exclude: PERFCHECK_NVTX_INCLUDE, PERFCHECK_NVTX_EXCLUDE, PERFCHECK_NVTX)";
    case PC_NP_EARLIER_RUN:
      return "profiled in an earlier run of a region of this name, whose entry is not in this report";
    case PC_NP_COMMUNICATION:
      return "communication kernel: not replayed (a collective waits for its peers, and kernel replay would run it "
             "again without them); its time is from the activity records";
    default:
      break;
  }
  if (s->counters_note && s->counters_note[0]) return s->counters_note;
  if (!s->counters) return "timing mode: counters were not requested";
  return "counters were not collected for this kernel";
}

/* Every kernel execution of the region as a timeline span on the cut clock:
 * group = signature, tag = PC_SNAP_* flags (profiled launches placed, and
 * their NOTIME cleared).  Timed spans first; *ntimed of them. */
static pc_span *pc_region_spans(const pc_snapshot *s, const pc_cut *cuts, size_t ncuts, size_t *ntimed) {
  pc_span *v = s->nlaunches ? malloc(s->nlaunches * sizeof *v) : NULL;
  *ntimed = 0;
  if (s->nlaunches && !v) return NULL;
  for (size_t i = 0; i < s->nlaunches; i++) {
    const pc_snap_launch *l = &s->launches[i];
    pc_span x = {l->start, l->end, l->sig, l->flags};
    uint64_t dur;
    const pc_snap_profiled *p;
    if ((x.tag & (PC_SNAP_PROFILED | PC_SNAP_NOTIME)) == (PC_SNAP_PROFILED | PC_SNAP_NOTIME) &&
        (p = pc_find_profiled(s, l->correlation_id)) && pc_prof_duration(p, &dur)) {
      x.end = p->exit_ts;
      x.start = p->exit_ts - dur;
      x.tag &= ~(uint32_t)PC_SNAP_NOTIME;
    }
    if (!(x.tag & PC_SNAP_NOTIME)) {
      x.start = pc_cut_map(cuts, ncuts, x.start);
      x.end = pc_cut_map(cuts, ncuts, x.end);
      if (x.end < x.start) x.end = x.start;
    }
    v[i] = x;
  }
  /* Spans without time go to the end: the timeline reads the timed ones. */
  size_t n = s->nlaunches;
  for (size_t i = 0; i < n;) {
    if (v[i].tag & PC_SNAP_NOTIME) {
      pc_span t = v[i];
      v[i] = v[--n];
      v[n] = t;
    } else {
      i++;
    }
  }
  *ntimed = n;
  return v;
}

/* Transfers on the cut clock, clipped to the region. */
static double pc_transfer_ns(const pc_span *v, size_t n, const pc_cut *cuts, size_t ncuts, uint64_t begin,
                             uint64_t end) {
  double sum = 0.0;
  for (size_t i = 0; i < n; i++) {
    pc_span x = {pc_cut_map(cuts, ncuts, v[i].start), pc_cut_map(cuts, ncuts, v[i].end), 0, 0};
    sum += pc_timeline_clipped_sum(&x, 1, begin, end);
  }
  return sum;
}

/* ---- the region --------------------------------------------------------------------------- */

static void pc_pick_device(const pc_snapshot *s, pc_report *r, pc_build_state *st) {
  const int first = s->first_device;
  if (first < 0 || first == st->device_ordinal) return;
  if (st->device_ordinal >= 0 && !st->multi_device_warned) {
    st->multi_device_warned = 1;
    pc_warn(r, st,
            "kernels ran on more than one device; the report's device is device %d's, each kernel's attributes "
            "are its own device's",
            r->nregions ? st->device_ordinal : first);
  }
  const pc_device *d = pc_snapshot_device(s, first);
  if (r->nregions == 0 && d) {
    r->device = *d;
    st->device_ordinal = first;
  }
}

/* The cuts of the region: every profiled launch's host interval but its
 * kernel's run, clipped to the region.  Returns the count (*out malloc'd). */
static size_t pc_region_cuts(const pc_snapshot *s, pc_cut **out, int *oom) {
  *out = NULL;
  if (!s->nprofiled) return 0;
  pc_cut *c = malloc(s->nprofiled * sizeof *c);
  if (!c) {
    *oom = 1;
    return 0;
  }
  size_t n = 0;
  for (size_t i = 0; i < s->nprofiled; i++) {
    const pc_snap_profiled *p = &s->profiled[i];
    if (!p->enter_ts || !p->exit_ts || p->exit_ts <= p->enter_ts) continue;
    uint64_t dur = 0, end = p->exit_ts;
    if (pc_prof_duration(p, &dur)) {
      if (dur >= p->exit_ts - p->enter_ts) continue; /* no host cost to cut */
      end = p->exit_ts - dur;
    }
    uint64_t a = p->enter_ts;
    if (s->begin_ts && a < s->begin_ts) a = s->begin_ts;
    if (s->end_ts && end > s->end_ts) end = s->end_ts;
    if (end > a) c[n++] = (pc_cut){a, end, 0};
  }
  n = pc_cuts_normalize(c, n);
  *out = c;
  return n;
}

static void pc_region_numbers(const pc_snapshot *s, pc_region *g, const pc_span *spans, size_t ntimed,
                              const pc_cut *cuts, size_t ncuts, pc_span *work) {
  const int have_clock = s->begin_ts && s->end_ts >= s->begin_ts;
  const uint64_t b = pc_cut_map(cuts, ncuts, s->begin_ts), e = pc_cut_map(cuts, ncuts, s->end_ts);
  g->wall_ns = have_clock ? (double)(e - b) : PC_NULL;
  memcpy(work, spans, ntimed * sizeof *work); /* the timeline reorders its input */
  pc_timeline t;
  pc_timeline_compute(work, ntimed, &t);
  g->kernel_ns = t.busy_ns;
  g->kernel_sum_ns = t.sum_ns;
  g->kernel_span_ns = t.span_ns;
  g->gpu_idle_ns = t.idle_ns;
  g->median_kernel_ns = t.median_ns;
  const double cut = pc_threshold_value("launch_overhead_max_median_kernel_ns");
  double short_ns = 0.0;
  for (size_t i = 0; i < ntimed; i++) {
    const double d = (double)(spans[i].end - spans[i].start);
    if (d < cut) short_ns += d;
  }
  g->short_kernel_ns = short_ns;
  g->memcpy_ns = pc_transfer_ns(s->memcpys, s->nmemcpys, cuts, ncuts, b, e);
  g->memset_ns = pc_transfer_ns(s->memsets, s->nmemsets, cuts, ncuts, b, e);
  g->launches = s->launch_calls >= s->failed_calls ? s->launch_calls - s->failed_calls : 0;
  g->dropped_records = s->dropped_records;
  double cut_ns = 0.0;
  for (size_t i = 0; i < ncuts; i++) cut_ns += (double)(cuts[i].end - cuts[i].start);
  g->profiling_ns = cut_ns;
  g->kernel_share = (pc_has(g->wall_ns) && g->wall_ns > 0) ? g->kernel_ns / g->wall_ns : PC_NULL;
}

/* The device ordinal and PCI bus id a signature's context ran on. */
static int pc_sig_ordinal(const pc_snapshot *s, uint32_t sig, const char **pci) {
  const pc_snap_sig *si = sig < s->nsigs ? &s->sigs[sig] : NULL;
  const pc_snap_context *c = si && si->context < s->ncontexts ? &s->contexts[si->context] : NULL;
  if (pci) *pci = c ? c->pci_bus_id : "";
  return c ? c->device : -1;
}

/* Step 1 per device: each device's kernels (the nested regions' too, as
 * the region's busy time has them) as a timeline of their own, against the
 * region's wall clock.  `spans` as pc_region_spans made them (group =
 * signature), the timed ones first; a device with no kernel has no entry.
 * Communication kernels' summed durations against the others' as well. */
static int pc_region_devices(const pc_snapshot *s, pc_region *g, const pc_span *spans, size_t ntimed,
                             const unsigned char *comm, pc_span *work) {
  double comm_ns = 0.0, compute_ns = 0.0;
  for (size_t i = 0; i < ntimed; i++) {
    const double d = (double)(spans[i].end - spans[i].start);
    if (spans[i].group < s->nsigs && comm && comm[spans[i].group])
      comm_ns += d;
    else
      compute_ns += d;
  }
  if (ntimed) {
    g->communication_ns = comm_ns;
    g->compute_ns = compute_ns;
    g->communication_share = comm_ns + compute_ns > 0 ? comm_ns / (comm_ns + compute_ns) : PC_NULL;
  }
  if (!s->nlaunches) return 0;
  int *ords = malloc(s->nlaunches * sizeof *ords);
  if (!ords) return -1;
  size_t nord = 0;
  for (size_t i = 0; i < s->nlaunches; i++) {
    const int o = pc_sig_ordinal(s, spans[i].group, NULL);
    size_t j = 0;
    while (j < nord && ords[j] != o) j++;
    if (j == nord) {
      /* by ordinal: insertion keeps them sorted */
      size_t at = nord++;
      while (at > 0 && ords[at - 1] > o) ords[at] = ords[at - 1], at--;
      ords[at] = o;
    }
  }
  g->devices = calloc(nord, sizeof *g->devices);
  if (!g->devices) {
    free(ords);
    return -1;
  }
  g->ndevices = nord;
  const double cut = pc_threshold_value("launch_overhead_max_median_kernel_ns");
  for (size_t d = 0; d < nord; d++) {
    pc_region_device *e = &g->devices[d];
    e->ordinal = ords[d];
    size_t n = 0;
    uint64_t launches = 0;
    double short_ns = 0.0;
    for (size_t i = 0; i < s->nlaunches; i++) {
      const char *pci = "";
      if (pc_sig_ordinal(s, spans[i].group, &pci) != ords[d]) continue;
      if (!e->pci_bus_id[0] && pci[0]) snprintf(e->pci_bus_id, sizeof e->pci_bus_id, "%s", pci);
      launches++;
      if (i >= ntimed) continue;
      work[n++] = spans[i];
      const double du = (double)(spans[i].end - spans[i].start);
      if (du < cut) short_ns += du;
    }
    pc_timeline t;
    pc_timeline_compute(work, n, &t);
    e->kernel_ns = t.busy_ns;
    e->kernel_sum_ns = t.sum_ns;
    e->gpu_idle_ns = t.idle_ns;
    e->median_kernel_ns = t.median_ns;
    e->short_kernel_ns = short_ns;
    e->launches = launches;
    e->kernel_share = PC_NULL; /* pc_checklist_region: against the region's wall clock */
    e->diag.verdict.cause = PERFCHECK_CAUSE_NONE;
    e->diag.verdict.value = e->diag.verdict.threshold = PC_NULL;
  }
  free(ords);
  return 0;
}

/* ---- one kernel entry ---------------------------------------------------------------------- */

typedef struct pc_acc {
  uint32_t n;
  int passes;
  double sum[PC_M_COUNT];
  uint32_t cnt[PC_M_COUNT];
  double lo[PC_M_COUNT], hi[PC_M_COUNT]; /* for the counter spread */
  double *xsum;
  uint32_t *xcnt;
  /* How the values were collected (issue 21). */
  int whole;                    /* a launch collected the whole set (kernel replay) */
  int rotated;                  /* a launch collected one rotation group */
  int groups;                   /* the set's groups with rotation */
  unsigned char seen[256];      /* rotation groups collected */
  int cold;                     /* DRAM values from launches that started from a flushed L2 */
} pc_acc;

static int pc_is_dram_metric(int m) {
  return m == PC_M_DRAM_BYTES_READ || m == PC_M_DRAM_BYTES_WRITE || m == PC_M_DRAM_THROUGHPUT_PCT;
}

/* Averages over the signature's profiled launches of this region.  The DRAM
 * metrics average over the launches that started from a flushed L2 when
 * there are any (rotation's DRAM group): a warm pass reads them low. */
static int pc_accumulate(const pc_snapshot *s, uint32_t sig, pc_acc *a) {
  memset(a, 0, sizeof *a);
  if (s->nextra) {
    a->xsum = calloc(s->nextra, sizeof *a->xsum);
    a->xcnt = calloc(s->nextra, sizeof *a->xcnt);
    if (!a->xsum || !a->xcnt) return -1;
  }
  for (size_t i = 0; i < s->nprofiled; i++) {
    const pc_snap_profiled *p = &s->profiled[i];
    if (p->sig == sig && !(p->flags & PC_SNAP_PROF_INHERITED) && (p->flags & PC_SNAP_PROF_COLD) &&
        (p->flags & PC_SNAP_PROF_RESULT) && pc_has(p->values[PC_M_DRAM_BYTES_READ]))
      a->cold = 1;
  }
  for (size_t i = 0; i < s->nprofiled; i++) {
    const pc_snap_profiled *p = &s->profiled[i];
    if (p->sig != sig || (p->flags & PC_SNAP_PROF_INHERITED) || !(p->flags & PC_SNAP_PROF_RESULT)) continue;
    a->n++;
    if (p->passes > a->passes) a->passes = p->passes;
    if (p->group >= 0 && p->groups > 0) {
      a->rotated = 1;
      if (p->groups > a->groups) a->groups = p->groups;
      if (p->group < (int)sizeof a->seen) a->seen[p->group] = 1;
    } else {
      a->whole = 1;
    }
    for (int m = 0; m < PC_M_COUNT; m++) {
      if (!pc_has(p->values[m])) continue;
      if (a->cold && pc_is_dram_metric(m) && !(p->flags & PC_SNAP_PROF_COLD)) continue;
      const double v = p->values[m];
      if (!a->cnt[m] || v < a->lo[m]) a->lo[m] = v;
      if (!a->cnt[m] || v > a->hi[m]) a->hi[m] = v;
      a->sum[m] += v;
      a->cnt[m]++;
    }
    for (size_t x = 0; p->extra && x < s->nextra; x++)
      if (pc_has(p->extra[x])) {
        a->xsum[x] += p->extra[x];
        a->xcnt[x]++;
      }
  }
  return 0;
}

static int pc_same_str(const char *a, const char *b) { return a && b ? strcmp(a, b) == 0 : a == b; }

/* A kernel not profiled in this run because an earlier run of a region of
 * the same name profiled its signature: that run's counters (the last
 * entry of the same region name, names, grid, block, shared memory and
 * device that has counters, its own or copied).  Returns 1 when copied. */
static int pc_counters_from_earlier_run(pc_report *r, pc_build_state *st, pc_kernel *k) {
  for (size_t i = r->nkernels; i-- > 0;) {
    const pc_kernel *e = &r->kernels[i];
    /* passes > 0: counters of its own or copied, so the nearest earlier run
     * answers (a long loop never scans back to the first run). */
    if (e == k || e->passes <= 0 || !pc_same_str(e->region, k->region) ||
        !pc_same_str(e->mangled, k->mangled) || !pc_same_str(e->name, k->name) ||
        memcmp(e->grid, k->grid, sizeof k->grid) || memcmp(e->block, k->block, sizeof k->block) ||
        !(e->dynamic_smem == k->dynamic_smem || (pc_is_null(e->dynamic_smem) && pc_is_null(k->dynamic_smem))) ||
        e->device_ordinal != k->device_ordinal)
      continue;
    memcpy(k->metric, e->metric, sizeof k->metric);
    memcpy(k->metric_via_substitute, e->metric_via_substitute, sizeof k->metric_via_substitute);
    k->passes = e->passes;
    memcpy(k->replay, e->replay, sizeof k->replay);
    k->groups = e->groups;
    k->groups_collected = e->groups_collected;
    k->counter_spread = e->counter_spread;
    k->dram_cold = e->dram_cold;
    if (e->nextra) {
      k->extra_names = calloc(e->nextra, sizeof *k->extra_names);
      k->extra_values = calloc(e->nextra, sizeof *k->extra_values);
      if (k->extra_names && k->extra_values) {
        k->nextra = e->nextra;
        for (size_t x = 0; x < e->nextra; x++) {
          k->extra_names[x] = pc_strdup(e->extra_names[x]);
          k->extra_values[x] = e->extra_values[x];
        }
      } else {
        free(k->extra_names);
        free(k->extra_values);
        k->extra_names = NULL;
        k->extra_values = NULL;
      }
    }
    if (!st->earlier_run_noted) {
      st->earlier_run_noted = 1;
      pc_report_warn(r, 1,
                     "kernels of a region's later runs carry the counters of the run that profiled them "
                     "(profiled_launches 0 in the later runs): every run of one region name shares "
                     "per_signature profiled launches per kernel signature");
    }
    return 1;
  }
  return 0;
}

static void pc_kernel_counters(const pc_snapshot *s, pc_report *r, pc_build_state *st, pc_kernel *k, const pc_acc *a,
                               uint64_t profiled_spans, pc_not_profiled np) {
  if (!a->n && !profiled_spans && np == PC_NP_EARLIER_RUN && pc_counters_from_earlier_run(r, st, k)) return;
  if (!a->n) {
    k->not_measured_reason =
        pc_strdup(profiled_spans ? "the range profiler returned no result for this kernel's profiled launch (see "
                                   "warnings)"
                                 : pc_np_reason(s, np));
    return;
  }
  k->profiled_launches = a->n;
  k->passes = a->passes;
  k->counter_spread = PC_NULL;
  for (int m = 0; m < PC_M_COUNT; m++) {
    if (a->cnt[m]) k->metric[m] = a->sum[m] / a->cnt[m];
    if (s->via_substitute[m]) k->metric_via_substitute[m] = 1;
    /* Two launches or more measured it: how far they disagree. */
    const double mean = a->cnt[m] ? a->sum[m] / a->cnt[m] : 0;
    if (a->cnt[m] >= 2 && mean != 0) {
      const double sp = (a->hi[m] - a->lo[m]) / (mean < 0 ? -mean : mean);
      if (!pc_has(k->counter_spread) || sp > k->counter_spread) k->counter_spread = sp;
    }
  }
  k->dram_cold = a->cold;
  snprintf(k->replay, sizeof k->replay, "%s", a->rotated ? (a->whole ? "rotate+kernel" : "rotate") : "kernel");
  if (a->rotated) {
    k->groups = a->groups;
    k->groups_collected = 0;
    for (int g = 0; g < a->groups && g < (int)sizeof a->seen; g++) k->groups_collected += a->whole || a->seen[g];
    if (k->groups_collected < k->groups && !st->rotation_warned) {
      st->rotation_warned = 1;
      pc_report_warn(r, 1,
                     "rotation: some kernels ran fewer times than the metric set has groups (kernels[].rotation "
                     "says how many of how many): the metrics of the missing groups are null; the next run of the "
                     "same region name collects the rest of the set by kernel replay at the kernel's first launch");
    }
  }
  if (!st->dram_replay_warned && k->passes > 1 && !k->dram_cold &&
      (pc_has(k->metric[PC_M_DRAM_BYTES_READ]) || pc_has(k->metric[PC_M_DRAM_BYTES_WRITE]))) {
    /* Measured on the H200 against ncu (docs/measurements/2026-11-30-h200):
     * counts match exactly, DRAM bytes do not. */
    st->dram_replay_warned = 1;
    pc_report_warn(r, 1,
                   "DRAM bytes come from a multi-pass kernel replay: reads can be low (a later pass finds the data "
                   "in L2; CUPTI 13.0 does not flush caches between passes) and writes high (write-backs of the "
                   "replay's memory restore), so arithmetic intensity and DRAM GB/s are left null (no roofline point) "
                   "and DRAM throughput percentages are approximate; instruction, request and sector counts are "
                   "exact; a metric list that fits one pass keeps them");
  }
  if (!s->nextra) return;
  k->extra_names = calloc(s->nextra, sizeof *k->extra_names);
  k->extra_values = calloc(s->nextra, sizeof *k->extra_values);
  if (!k->extra_names || !k->extra_values) {
    free(k->extra_names);
    free(k->extra_values);
    k->extra_names = NULL;
    k->extra_values = NULL;
    return;
  }
  k->nextra = s->nextra;
  for (size_t x = 0; x < s->nextra; x++) {
    k->extra_names[x] = pc_strdup(s->extra_names[x]);
    k->extra_values[x] = a->xcnt[x] ? a->xsum[x] / a->xcnt[x] : PC_NULL;
  }
}

static void pc_kernel_attributes(const pc_snapshot *s, pc_report *r, const pc_build_state *st, pc_kernel *k,
                                 const pc_snap_sig *g, const pc_device *dev) {
  const char *note = g->attr_note && g->attr_note[0] ? g->attr_note : NULL;
  int ok = 1;
  pc_attributes a;
  if (g->attr_from == PC_SNAP_ATTR_DRIVER) {
    a = g->attr;
    /* The occupancy call alone may have failed: the model answered then. */
    if (g->attr_new && note) pc_warn(r, st, "kernel %s: %s; blocks per SM is perfcheck's model's answer", k->name, note);
  } else if (g->attr_from == PC_SNAP_ATTR_RECORD && g->rec_valid) {
    /* A kernel seen only through a graph (or whose handle went away): its
     * activity record carries registers and shared memory; occupancy from
     * the model. */
    pc_attributes_compute(dev, (int)g->rec_registers, (int)g->rec_static_smem, (int)g->rec_local, -1, -1, g->grid,
                          g->block, g->dynamic_smem, &a);
    if (g->attr_new)
      pc_warn(r, st,
              "kernel %s: launch attributes from its activity record, blocks per SM from perfcheck's occupancy model "
              "(%s)",
              k->name, note ? note : "no function handle");
  } else {
    ok = 0;
  }
  (void)s;
  if (ok) {
    k->attr = a;
    if (pc_has(k->attr.model_blocks_per_sm))
      pc_warn(r, st,
              "kernel %s (block %ux%ux%u, %u B dynamic shared memory): the driver allows %.0f blocks per SM, "
              "perfcheck's occupancy model %.0f; the report uses the driver's answer",
              k->name, g->block[0], g->block[1], g->block[2], g->dynamic_smem, k->attr.blocks_per_sm,
              k->attr.model_blocks_per_sm);
  } else {
    k->attr.dynamic_smem = g->dynamic_smem;
    pc_warn(r, st, "kernel %s: launch attributes unavailable: %s", k->name, note ? note : "unknown reason");
  }
  if (g->cluster[0] * g->cluster[1] * g->cluster[2] > 1)
    pc_warn(r, st, "kernel %s runs in clusters of %ux%ux%u blocks: theoretical occupancy ignores cluster scheduling",
            k->name, g->cluster[0], g->cluster[1], g->cluster[2]);
}

/* One signature's direct launches of the region: `un` timed unprofiled and
 * `pr` timed profiled spans, each sorted by duration. */
typedef struct pc_sig_spans {
  const pc_span *un, *pr;
  size_t nun, npr;
  uint64_t launches, profiled;
} pc_sig_spans;

/* The device a signature ran on: the report's, or its context's. */
static pc_device pc_sig_device(const pc_snapshot *s, const pc_report *r, const pc_build_state *st, uint32_t sig) {
  const pc_snap_sig *si = &s->sigs[sig];
  const int ord = si->context < s->ncontexts ? s->contexts[si->context].device : -1;
  pc_device dev = r->device;
  if (ord >= 0 && ord != st->device_ordinal) {
    const pc_device *d = pc_snapshot_device(s, ord);
    if (d) dev = *d;
  }
  return dev;
}

static void pc_add_kernel(const pc_snapshot *s, pc_report *r, pc_build_state *st, const pc_region *g, uint32_t sig,
                          const pc_sig_spans *sp) {
  const pc_snap_sig *si = &s->sigs[sig];
  const int ord = si->context < s->ncontexts ? s->contexts[si->context].device : -1;
  pc_device dev = pc_sig_device(s, r, st, sig);
  pc_acc a;
  pc_kernel *k = pc_accumulate(s, sig, &a) == 0 ? pc_report_add_kernel(r) : NULL;
  if (!k || (si->mangled ? pc_kernel_set_names(k, si->mangled, NULL) : pc_kernel_set_names(k, NULL, "(unknown)"))) {
    if (k) r->nkernels--, pc_kernel_free(k);
    pc_warn(r, st, "out of memory: kernel entry dropped");
    free(a.xsum);
    free(a.xcnt);
    return;
  }
  /* The whole-program region answers step 1 for the program; its kernels
   * carry no region, so that it does not mask their own steps. */
  k->region = s->program ? NULL : pc_strdup(g->name);
  k->device_ordinal = ord;
  if (si->context < s->ncontexts)
    snprintf(k->pci_bus_id, sizeof k->pci_bus_id, "%s", s->contexts[si->context].pci_bus_id);
  memcpy(k->grid, si->grid, sizeof k->grid);
  k->graph_id = si->graph_id;
  k->graph_node = si->graph_node;
  memcpy(k->block, si->block, sizeof k->block);
  k->dynamic_smem = si->dynamic_smem;
  k->launches = sp->launches;
  /* A profiled launch runs once per pass under kernel replay, with memory
   * saved and restored around it, and its activity record has no
   * timestamps (H200): its duration is the counted gpu__time_duration.sum of
   * one pass, not a timing of the program's run.  Profiled launches are
   * therefore left out of min/median/max whenever the signature has timed
   * unprofiled launches. */
  const pc_span *d = sp->nun ? sp->un : sp->pr;
  const size_t nd = sp->nun ? sp->nun : sp->npr;
  if (nd) {
    k->dur_min_ns = (double)(d[0].end - d[0].start);
    k->dur_max_ns = (double)(d[nd - 1].end - d[nd - 1].start);
    k->dur_median_ns = (nd % 2) ? (double)(d[nd / 2].end - d[nd / 2].start)
                                : 0.5 * ((double)(d[nd / 2 - 1].end - d[nd / 2 - 1].start) +
                                         (double)(d[nd / 2].end - d[nd / 2].start));
  }
  /* Its time in the region: every launch that has a duration, profiled ones
   * by their counted duration (step 1 per kernel). */
  if (sp->nun + sp->npr) {
    double total = 0.0;
    for (size_t i = 0; i < sp->nun; i++) total += (double)(sp->un[i].end - sp->un[i].start);
    for (size_t i = 0; i < sp->npr; i++) total += (double)(sp->pr[i].end - sp->pr[i].start);
    k->total_ns = total;
  }
  pc_kernel_attributes(s, r, st, k, si, &dev);
  pc_kernel_counters(s, r, st, k, &a, sp->profiled, si->not_profiled);
  free(a.xsum);
  free(a.xcnt);
  /* The walk runs once the region's time shares are known (pc_region_kernels). */
}

/* ---- the whole region -------------------------------------------------------------------------- */

static void pc_region_warnings(const pc_snapshot *s, pc_report *r, const pc_build_state *st, const pc_region *g) {
  if (g->dropped_records)
    pc_warn(r, st, "region \"%s\": CUPTI dropped %llu activity records: its timing is incomplete", g->name,
            (unsigned long long)g->dropped_records);
  if (s->missing_records)
    pc_warn(r, st, "region \"%s\": %llu launches got no kernel activity record", g->name,
            (unsigned long long)s->missing_records);
  if (s->failed_calls)
    pc_warn(r, st, "region \"%s\": %llu launches failed and are not counted", g->name,
            (unsigned long long)s->failed_calls);
  if (s->zero_ts_records)
    pc_warn(r, st, "region \"%s\": %llu kernel records had no timestamps: counted as launches, not in the timing",
            g->name, (unsigned long long)s->zero_ts_records);
  if (s->spans_lost) pc_warn(r, st, "region \"%s\": out of memory, kernel timings lost", g->name);
}

/* The kernel entries: the spans grouped by signature (sorting by group puts
 * each signature's together; within it, in runs by flags, each by
 * duration). */
static void pc_region_kernels(const pc_snapshot *s, pc_report *r, pc_build_state *st, const pc_region *g,
                              pc_span *v, size_t n) {
  /* Sort key: signature, then the flags that matter, then duration. */
  for (size_t i = 0; i < n; i++) v[i].group = (v[i].group << 3) | (v[i].tag & 7u);
  pc_span_sort(v, n, PC_SPAN_BY_GROUP_DURATION);
  const size_t first = r->nkernels;
  uint32_t *sigs = malloc((n ? n : 1) * sizeof *sigs); /* each entry's signature */
  for (size_t i = 0; i < n;) {
    const uint32_t sig = v[i].group >> 3;
    size_t off[8] = {0}, cnt[8] = {0};
    size_t j = i;
    for (; j < n && (v[j].group >> 3) == sig; j++) {
      const uint32_t b = v[j].group & 7u;
      if (cnt[b]++ == 0) off[b] = j;
    }
    enum { P = PC_SNAP_PROFILED, N = PC_SNAP_NOTIME };
    pc_sig_spans sp = {v + off[0], v + off[P], cnt[0], cnt[P], cnt[0] + cnt[P] + cnt[N] + cnt[N | P], cnt[P] + cnt[N | P]};
    const size_t before = r->nkernels;
    if (sp.launches && sig < s->nsigs) pc_add_kernel(s, r, st, g, sig, &sp);
    if (r->nkernels > before && sigs) sigs[r->nkernels - 1 - first] = sig;
    i = j;
  }
  /* Step 1 per kernel needs every entry's time: the shares of the region's
   * summed kernel time (from the timeline: in process), then the walk. */
  pc_kernel_time_shares(r->kernels + first, r->nkernels - first, 1);
  for (size_t i = first; i < r->nkernels; i++) {
    pc_kernel *k = &r->kernels[i];
    const pc_device dev = sigs ? pc_sig_device(s, r, st, sigs[i - first]) : r->device;
    pc_checklist_kernel(k, &dev, s->program ? NULL : g);
  }
  free(sigs);
  /* Signatures profiled in this region whose kernels left no span. */
  for (size_t i = 0; i < s->nprofiled; i++) {
    const pc_snap_profiled *p = &s->profiled[i];
    if ((p->flags & PC_SNAP_PROF_INHERITED) || !(p->flags & PC_SNAP_PROF_RESULT)) continue;
    int seen = 0, first = 1;
    for (size_t q = 0; q < i && first; q++) /* once per signature */
      first = !(s->profiled[q].sig == p->sig && !(s->profiled[q].flags & PC_SNAP_PROF_INHERITED) &&
                (s->profiled[q].flags & PC_SNAP_PROF_RESULT));
    for (size_t q = 0; q < n && !seen; q++) seen = (v[q].group >> 3) == p->sig;
    if (!seen && first)
      pc_warn(r, st, "region \"%s\": counters of a launch whose kernel record never arrived were dropped", g->name);
  }
}

perfcheck_status pc_region_build(const pc_snapshot *s, pc_report *r, pc_build_state *st) {
  if (!s || !r || !st) return PERFCHECK_ERROR_INVALID_ARGUMENT;
  pc_pick_device(s, r, st);
  for (size_t i = 0; i < s->nnotes; i++) pc_warn(r, st, "%s", s->notes[i]);
  for (; st->rejected_warned < s->nrejected; st->rejected_warned++)
    pc_warn(r, st, "metric %s is not collected: %s", s->rejected[st->rejected_warned],
            s->rejected_reason && s->rejected_reason[st->rejected_warned] ? s->rejected_reason[st->rejected_warned]
                                                                          : "rejected");
  if (s->passes > r->passes) r->passes = s->passes;

  int oom = 0;
  pc_cut *cuts = NULL;
  const size_t ncuts = pc_region_cuts(s, &cuts, &oom);
  size_t ntimed = 0;
  pc_span *spans = pc_region_spans(s, cuts, ncuts, &ntimed);
  pc_span *work = s->nlaunches ? malloc(s->nlaunches * sizeof *work) : NULL;
  pc_region *g = (oom || (s->nlaunches && (!spans || !work))) ? NULL : pc_report_add_region(r);
  if (g && !(g->name = pc_strdup(s->name ? s->name : "(unnamed)"))) {
    r->nregions--;
    pc_region_free(g);
    g = NULL;
  }
  if (!g) {
    free(cuts), free(spans), free(work);
    pc_warn(r, st, "out of memory: region \"%s\" dropped", s->name ? s->name : "(unnamed)");
    return PERFCHECK_ERROR_OUT_OF_MEMORY;
  }
  g->parent = s->parent ? pc_strdup(s->parent) : NULL;
  g->depth = s->depth;
  g->rank = st->rank;
  pc_region_numbers(s, g, spans, ntimed, cuts, ncuts, work);
  unsigned char *comm = s->nsigs ? calloc(s->nsigs, 1) : NULL;
  for (size_t i = 0; comm && i < s->nsigs; i++) comm[i] = (unsigned char)pc_symbol_is_communication(s->sigs[i].mangled);
  if ((s->nsigs && !comm) || pc_region_devices(s, g, spans, ntimed, comm, work))
    pc_warn(r, st, "out of memory: region \"%s\" has no step 1 per device", g->name);
  free(comm);
  pc_checklist_region(g);
  pc_region_warnings(s, r, st, g);

  /* Only the region's own launches make entries; inherited ones were
   * reported with their own region. */
  size_t nd = 0;
  for (size_t i = 0; i < s->nlaunches; i++)
    if (!(spans[i].tag & PC_SNAP_INHERITED)) work[nd++] = spans[i];
  pc_region_kernels(s, r, st, g, work, nd);
  free(cuts), free(spans), free(work);
  return PERFCHECK_OK;
}
