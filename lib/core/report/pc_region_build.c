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

#include "base/pc_buf.h"
#include "model/pc_snapshot.h"
#include "check/pc_check.h"
#include "report/pc_timeline.h"
#include "report/pc_region_build.h"
#include "base/pc_util.h"

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
      return "launched by a CUDA graph: a graph launch is measured as a whole (a user range around cuGraphLaunch; "
             "the range profiler cannot split it by node), and this snapshot lists no graph launch to hold its "
             "counters (a snapshot from before graph counters); launch the kernel on a stream for counters of "
             "its own";
    case PC_NP_GRAPH_GROUPS:
      return "graph launches were not profiled: a graph launch carries one one-pass group of the metric set (it is "
             "never replayed), and the set could not be split into one-pass groups (see warnings)";
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

/* A profiled launch that was not replayed (a rotation group or a graph
 * launch under a user range) and the span of the kernel rows it ran, from
 * their activity records: [lo, hi], hi 0 when none is timed. */
typedef struct pc_run_span {
  uint32_t corr;
  uint64_t lo, hi;
} pc_run_span;

static int pc_run_span_cmp(const void *a, const void *b) {
  const uint32_t x = ((const pc_run_span *)a)->corr, y = ((const pc_run_span *)b)->corr;
  return x < y ? -1 : x > y;
}

static pc_run_span *pc_run_span_find(pc_run_span *v, size_t n, uint32_t corr) {
  const pc_run_span key = {corr, 0, 0};
  return n ? bsearch(&key, v, n, sizeof *v, pc_run_span_cmp) : NULL;
}

static void pc_add_cut(pc_cut *c, size_t *n, const pc_snapshot *s, uint64_t a, uint64_t end) {
  if (s->begin_ts && a < s->begin_ts) a = s->begin_ts;
  if (s->end_ts && end > s->end_ts) end = s->end_ts;
  if (end > a) c[(*n)++] = (pc_cut){a, end, 0};
}

/* The cuts of the region: every profiled launch's host interval but its
 * kernel's run, clipped to the region.  Under kernel replay the kernel's
 * records have no timestamps and its run is its counted duration, placed
 * at EXIT; a launch that was not replayed (rotation, a graph launch) ran
 * once, when its records say: the cuts are the interval before its first
 * kernel started and after its last one ended (the synchronize, the L2
 * flush and SetConfig before; Stop, Decode and Evaluate after), so its
 * kernels keep their own times.  Returns the count (*out malloc'd). */
static size_t pc_region_cuts(const pc_snapshot *s, pc_cut **out, int *oom) {
  *out = NULL;
  if (!s->nprofiled) return 0;
  pc_cut *c = malloc(2 * s->nprofiled * sizeof *c);
  size_t nrun = 0;
  for (size_t i = 0; i < s->nprofiled; i++) nrun += s->profiled[i].group >= 0;
  pc_run_span *run = nrun ? malloc(nrun * sizeof *run) : NULL;
  if (!c || (nrun && !run)) {
    free(c), free(run);
    *oom = 1;
    return 0;
  }
  nrun = 0;
  for (size_t i = 0; i < s->nprofiled; i++)
    if (s->profiled[i].group >= 0) run[nrun++] = (pc_run_span){s->profiled[i].correlation_id, 0, 0};
  if (nrun) {
    qsort(run, nrun, sizeof *run, pc_run_span_cmp);
    for (size_t i = 0; i < s->nlaunches; i++) {
      const pc_snap_launch *l = &s->launches[i];
      pc_run_span *x;
      if ((l->flags & PC_SNAP_NOTIME) || !(x = pc_run_span_find(run, nrun, l->correlation_id))) continue;
      if (!x->hi || l->start < x->lo) x->lo = l->start;
      if (l->end > x->hi) x->hi = l->end;
    }
  }
  size_t n = 0;
  for (size_t i = 0; i < s->nprofiled; i++) {
    const pc_snap_profiled *p = &s->profiled[i];
    if (!p->enter_ts || !p->exit_ts || p->exit_ts <= p->enter_ts) continue;
    const pc_run_span *x = p->group >= 0 ? pc_run_span_find(run, nrun, p->correlation_id) : NULL;
    if (x && x->hi && x->lo >= p->enter_ts && x->hi <= p->exit_ts) {
      pc_add_cut(c, &n, s, p->enter_ts, x->lo);
      pc_add_cut(c, &n, s, x->hi, p->exit_ts);
      continue;
    }
    uint64_t dur = 0, end = p->exit_ts;
    if (pc_prof_duration(p, &dur)) {
      if (dur >= p->exit_ts - p->enter_ts) continue; /* no host cost to cut */
      end = p->exit_ts - dur;
    }
    pc_add_cut(c, &n, s, p->enter_ts, end);
  }
  free(run);
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
  /* How the values were collected. */
  int whole;                    /* a launch collected the whole set (kernel replay) */
  int rotated;                  /* a launch collected one rotation group */
  int groups;                   /* the set's groups with rotation */
  unsigned char seen[256];      /* rotation groups collected */
  int skip_passes[256];         /* a graph launch's group that needs this many passes alone: not collected */
  uint32_t skipped;             /* launches whose group was skipped so */
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
    if (p->flags & PC_SNAP_PROF_SKIPPED) { /* a graph launch on a multi-pass group: nothing measured */
      a->skipped++;
      if (p->groups > a->groups) a->groups = p->groups;
      if (p->group >= 0 && p->group < (int)(sizeof a->skip_passes / sizeof a->skip_passes[0]))
        a->skip_passes[p->group] = p->passes;
      continue;
    }
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
/* any_region 0: the nearest earlier entry of k's region name and signature
 * (an earlier run of the name); 1: of k's signature in any region (a
 * launch outside the counter gate, e.g. the whole program's entry of a
 * kernel profiled inside an NVTX range). */
static int pc_counters_from_earlier_run(pc_report *r, pc_build_state *st, pc_kernel *k, int any_region) {
  for (size_t i = r->nkernels; i-- > 0;) {
    const pc_kernel *e = &r->kernels[i];
    /* passes > 0: counters of its own or copied, so the nearest earlier run
     * answers (a long loop never scans back to the first run). */
    if (e == k || e->passes <= 0 || e->is_graph || (!any_region && !pc_same_str(e->region, k->region)) ||
        !pc_same_str(e->mangled, k->mangled) || !pc_same_str(e->name, k->name) ||
        (e->function_id && k->function_id && e->function_id != k->function_id) ||
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
    k->groups_seen = e->groups_seen;
    free(k->rotation_note);
    k->rotation_note = e->rotation_note ? pc_strdup(e->rotation_note) : NULL;
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
    if (any_region) {
      if (!st->other_region_noted) {
        st->other_region_noted = 1;
        pc_report_warn(r, 1,
                       "kernels not profiled in their own region (launched outside the counter gate: "
                       "--nvtx-include, --nvtx-exclude, PERFCHECK_NVTX) carry the counters of the same kernel "
                       "signature profiled in another region (profiled_launches 0 there)");
      }
    } else if (!st->earlier_run_noted) {
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

/* The groups of a rotation that did not feed entry k, and why: "groups 4,
 * 5 and 6 of 6 not collected: ...".  A kernel's come at the next run of its
 * region name, by kernel replay; a graph's never do (a graph launch is not
 * replayed: each launch carries one group).  NULL when none is missing. */
static char *pc_rotation_note(const pc_kernel *k, const pc_acc *a, uint64_t launches) {
  int missing = 0, skipped = 0, maxpass = 0;
  for (int g = 0; g < k->groups && g < 64; g++)
    if (!((k->groups_seen >> g) & 1u)) {
      missing++;
      if (g < (int)(sizeof a->skip_passes / sizeof a->skip_passes[0]) && a->skip_passes[g] > 1) {
        skipped++;
        if (a->skip_passes[g] > maxpass) maxpass = a->skip_passes[g];
      }
    }
  if (!missing) return NULL;
  pc_buf b = PC_BUF_INIT;
  pc_buf_puts(&b, missing > 1 ? "groups " : "group ");
  for (int g = 0, n = 0; g < k->groups && g < 64; g++)
    if (!((k->groups_seen >> g) & 1u)) {
      n++;
      pc_buf_printf(&b, "%s%d", n == 1 ? "" : n == missing ? " and " : ", ", g + 1);
    }
  pc_buf_printf(&b, " of %d not collected: ", k->groups);
  if (k->is_graph) {
    if (skipped)
      pc_buf_printf(&b, "%d need%s up to %d passes alone, and a graph launch is never replayed; ", skipped,
                    skipped > 1 ? "" : "s", maxpass);
    if (missing > skipped)
      pc_buf_printf(&b,
                    "the graph was launched %llu time%s in this region and each launch carries one group (a graph "
                    "launch is never replayed); launch it at least %d times in one region for every group",
                    (unsigned long long)launches, launches == 1 ? "" : "s", k->groups);
    else
      pc_buf_puts(&b, "the metric set's SOL rows cannot be measured on a graph launch");
  } else {
    pc_buf_printf(&b,
                  "the kernel was launched %llu time%s, fewer than the set's %d groups; the next run of the same "
                  "region name collects the rest by kernel replay at its first launch",
                  (unsigned long long)launches, launches == 1 ? "" : "s", k->groups);
  }
  return pc_buf_take(&b);
}

static void pc_kernel_counters(const pc_snapshot *s, pc_report *r, pc_build_state *st, pc_kernel *k, const pc_acc *a,
                               uint64_t profiled_spans, pc_not_profiled np) {
  if (!a->n && !profiled_spans && np == PC_NP_EARLIER_RUN && pc_counters_from_earlier_run(r, st, k, 0)) return;
  /* Outside the counter gate (or left unprofiled with no recorded reason:
   * a signature's reason is its latest region's, so the whole program's
   * entry can lose it): the signature's counters from another region. */
  if (!a->n && !profiled_spans && !k->is_graph && s->counters && (np == PC_NP_NVTX || np == PC_NP_NONE) &&
      pc_counters_from_earlier_run(r, st, k, 1))
    return;
  if (!a->n) {
    k->not_measured_reason =
        pc_strdup(a->skipped ? "each profiled launch of this graph fell on a group of the metric set that needs more "
                               "than one pass alone (a SOL row), and a graph launch is never replayed: use the "
                               "default set, or launch the graph more often in one region"
                  : profiled_spans ? "the range profiler returned no result for this kernel's profiled launch (see "
                                     "warnings)"
                  : (k->is_graph && np == PC_NP_FILTERED)
                      ? "not selected for counters: kernel_regex selects kernels by name, and a graph launch's "
                        "counters are all of its kernels', so graph launches are not profiled under a kernel filter"
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
    k->groups_seen = 0;
    for (int g = 0; g < a->groups && g < (int)sizeof a->seen; g++) {
      const int got = a->whole || a->seen[g];
      k->groups_collected += got;
      if (got && g < 64) k->groups_seen |= (uint64_t)1 << g;
    }
    free(k->rotation_note);
    k->rotation_note = pc_rotation_note(k, a, k->launches);
    if (k->groups_collected < k->groups && k->is_graph && !st->graph_rotation_warned) {
      st->graph_rotation_warned = 1;
      pc_report_warn(r, 1,
                     "graphs: some graphs ran fewer times than the metric set has groups, or hit a group that needs "
                     "more than one pass (kernels[].rotation says which groups are missing and why): the metrics of "
                     "the missing groups are null; a graph launch is never replayed, so only more launches of the "
                     "graph in one region collect them");
    } else if (k->groups_collected < k->groups && !k->is_graph && !st->rotation_warned) {
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
  k->function_id = si->function;
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

/* ---- graph entries ---------------------------------------------------------- */

/* One graph launch of the region, with what its kernel rows say. */
typedef struct pc_glaunch {
  uint32_t corr, sig;           /* sig: the graph signature */
  uint32_t nrows;               /* its kernel rows (the region's own) */
  uint32_t untimed;             /* of those, rows without timestamps */
  uint64_t lo, hi;              /* its timed rows' first start and last end, on the cut clock */
} pc_glaunch;

static int pc_glaunch_cmp(const void *a, const void *b) {
  const uint32_t x = ((const pc_glaunch *)a)->corr, y = ((const pc_glaunch *)b)->corr;
  return x < y ? -1 : x > y;
}

/* A graph kernel row: its graph launch, its signature, its start. */
typedef struct pc_graph_row {
  uint32_t launch;              /* index into the sorted launches */
  uint32_t sig;
  uint64_t start;
} pc_graph_row;

static int pc_graph_row_cmp(const void *a, const void *b) {
  const pc_graph_row *x = a, *y = b;
  if (x->launch != y->launch) return x->launch < y->launch ? -1 : 1;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  return x->sig < y->sig ? -1 : x->sig > y->sig;
}

static int pc_double_cmp(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The graph entry's name: "graph 3 (5 kernels: a, b, c, ...)", up to `most`
 * kernel names. */
static char *pc_graph_name(uint32_t graph_id, uint64_t exec, uint32_t nk, char *const *names, size_t nnames,
                           size_t most) {
  pc_buf b = PC_BUF_INIT;
  if (graph_id)
    pc_buf_printf(&b, "graph %u (", (unsigned)graph_id);
  else
    pc_buf_printf(&b, "graph exec %llu (", (unsigned long long)exec);
  pc_buf_printf(&b, "%u kernel%s", (unsigned)nk, nk == 1 ? "" : "s");
  for (size_t i = 0; i < nnames && i < most; i++) pc_buf_printf(&b, "%s%s", i ? ", " : ": ", names[i]);
  if (nnames > most) pc_buf_puts(&b, ", ...");
  pc_buf_puts(&b, ")");
  return pc_buf_take(&b);
}

/* A graph kernel's entry: where its counters are. */
static void pc_link_graph_kernel(pc_kernel *k, const pc_kernel *gk) {
  if (k->graph_entry) return; /* a kernel in several graphs names the first */
  k->graph_entry = pc_strdup(gk->name);
  if (k->passes > 0 || k->profiled_launches) return; /* counters of its own (a stream launch too) */
  char *why = NULL;
  pc_buf b = PC_BUF_INIT;
  if (gk->passes > 0)
    pc_buf_printf(&b,
                  "launched by CUDA graph %u: a graph launch is measured as a whole (a user range around "
                  "cuGraphLaunch; the range profiler cannot split it by node), so its counters are in the entry "
                  "\"%s\", summed over the graph's %u kernels; launch the kernel on a stream for counters of its own",
                  (unsigned)gk->graph_id, gk->name, (unsigned)gk->graph_kernels);
  else
    pc_buf_printf(&b, "launched by CUDA graph %u, whose entry \"%s\" has no counters: %s", (unsigned)gk->graph_id,
                  gk->name, gk->not_measured_reason ? gk->not_measured_reason : "not measured");
  why = pc_buf_take(&b);
  if (why) {
    free(k->not_measured_reason);
    k->not_measured_reason = why;
  }
}

/* One entry per graph signature launched in the region: its launches' kernel
 * rows (those carrying a graph launch's correlation id) give its kernel
 * count, names and per-launch time (first kernel start to last kernel end);
 * its profiled launches give the counters, each the whole graph launch's.
 * The graph's kernels' entries (kernels[first..], signatures in ksig) are
 * pointed at it.  Appends each entry's device signature to *esig. */
static void pc_region_graphs(const pc_snapshot *s, pc_report *r, pc_build_state *st, const pc_region *g,
                             const pc_cut *cuts, size_t ncuts, size_t first, uint32_t *esig) {
  const size_t nl = s->ngraph_launches;
  if (!nl) return;
  pc_glaunch *L = calloc(nl, sizeof *L);
  size_t nrows = 0;
  for (size_t i = 0; i < s->nlaunches; i++)
    nrows += (s->launches[i].flags & (PC_SNAP_GRAPH | PC_SNAP_INHERITED)) == PC_SNAP_GRAPH;
  pc_graph_row *rows = nrows ? malloc(nrows * sizeof *rows) : NULL;
  if (!L || (nrows && !rows)) {
    free(L), free(rows);
    pc_warn(r, st, "out of memory: the graph entries of region \"%s\" were dropped", g->name);
    return;
  }
  for (size_t i = 0; i < nl; i++) L[i] = (pc_glaunch){s->graph_launches[i].correlation_id, s->graph_launches[i].sig, 0, 0, 0, 0};
  qsort(L, nl, sizeof *L, pc_glaunch_cmp);
  size_t nr = 0;
  for (size_t i = 0; i < s->nlaunches; i++) {
    const pc_snap_launch *l = &s->launches[i];
    if ((l->flags & (PC_SNAP_GRAPH | PC_SNAP_INHERITED)) != PC_SNAP_GRAPH) continue;
    const pc_glaunch key = {l->correlation_id, 0, 0, 0, 0, 0};
    pc_glaunch *x = bsearch(&key, L, nl, sizeof *L, pc_glaunch_cmp);
    if (!x) continue;
    x->nrows++;
    uint64_t t = 0;
    if (l->flags & PC_SNAP_NOTIME) {
      x->untimed++;
    } else {
      const uint64_t a = pc_cut_map(cuts, ncuts, l->start), e = pc_cut_map(cuts, ncuts, l->end);
      if (!x->hi || a < x->lo) x->lo = a;
      if (e > x->hi) x->hi = e;
      t = a;
    }
    rows[nr++] = (pc_graph_row){(uint32_t)(x - L), l->sig, t};
  }
  qsort(rows, nr, sizeof *rows, pc_graph_row_cmp);

  for (uint32_t gs = 0; gs < s->nsigs; gs++) {
    const pc_snap_sig *gsi = &s->sigs[gs];
    if (!gsi->is_graph) continue;
    uint64_t launches = 0, with_rows = 0, timed = 0;
    uint32_t kmin = UINT32_MAX, kmax = 0;
    for (size_t i = 0; i < nl; i++) {
      if (L[i].sig != gs) continue;
      launches++;
      if (!L[i].nrows) continue;
      with_rows++;
      if (L[i].nrows < kmin) kmin = L[i].nrows;
      if (L[i].nrows > kmax) kmax = L[i].nrows;
      timed += !L[i].untimed && L[i].hi;
    }
    if (!launches) continue;
    if (!with_rows) {
      pc_warn(r, st, "region \"%s\": %llu launch%s of a CUDA graph got no kernel activity record: no entry for it",
              g->name, (unsigned long long)launches, launches == 1 ? "" : "es");
      continue;
    }
    /* Its kernels: distinct signatures in the order they first ran. */
    uint32_t *ks = malloc(nr * sizeof *ks);
    size_t nks = 0;
    for (size_t i = 0; ks && i < nr; i++) {
      if (L[rows[i].launch].sig != gs) continue;
      size_t j = 0;
      while (j < nks && ks[j] != rows[i].sig) j++;
      if (j == nks) ks[nks++] = rows[i].sig;
    }
    /* Per-launch time: first kernel start to last kernel end. */
    double *span = timed ? malloc(timed * sizeof *span) : NULL;
    size_t nspan = 0;
    for (size_t i = 0; span && i < nl; i++)
      if (L[i].sig == gs && L[i].nrows && !L[i].untimed && L[i].hi) span[nspan++] = (double)(L[i].hi - L[i].lo);
    char **names = nks ? calloc(nks, sizeof *names) : NULL;
    pc_kernel *k = (ks && (!timed || span) && (!nks || names)) ? pc_report_add_kernel(r) : NULL;
    if (!k) {
      free(ks), free(span), free(names);
      pc_warn(r, st, "out of memory: a graph entry of region \"%s\" was dropped", g->name);
      continue;
    }
    const size_t at = (size_t)(k - r->kernels);
    uint32_t graph_id = gsi->graph_id;
    for (size_t j = 0; j < nks; j++) {
      const pc_snap_sig *ksi = &s->sigs[ks[j]];
      if (!graph_id) graph_id = ksi->graph_id;
      const pc_kernel *ke = NULL; /* the kernel's own entry, for its short name */
      for (size_t e = first; esig && e < at && !ke; e++)
        if (esig[e - first] == ks[j] && !r->kernels[e].is_graph) ke = &r->kernels[e];
      const char *nm = ke && ke->display_name ? ke->display_name : ksi->mangled ? ksi->mangled : "(unknown)";
      names[j] = pc_strdup(nm);
    }
    k->is_graph = 1;
    k->graph_id = graph_id;
    k->graph_exec = gsi->graph_exec;
    k->graph_kernels = kmax;
    k->graph_signatures = (uint32_t)nks;
    k->graph_names = names;
    k->ngraph_names = nks;
    k->name = pc_graph_name(graph_id, gsi->graph_exec, kmax, names, nks, 3);
    k->display_name = pc_graph_name(graph_id, gsi->graph_exec, kmax, names, nks, 1);
    k->region = s->program ? NULL : pc_strdup(g->name);
    k->device_ordinal = gsi->context < s->ncontexts ? s->contexts[gsi->context].device : -1;
    if (gsi->context < s->ncontexts)
      snprintf(k->pci_bus_id, sizeof k->pci_bus_id, "%s", s->contexts[gsi->context].pci_bus_id);
    k->launches = launches;
    if (nspan) {
      qsort(span, nspan, sizeof *span, pc_double_cmp);
      k->dur_min_ns = span[0];
      k->dur_max_ns = span[nspan - 1];
      k->dur_median_ns = (nspan % 2) ? span[nspan / 2] : 0.5 * (span[nspan / 2 - 1] + span[nspan / 2]);
      if (nspan == launches) {
        double total = 0;
        for (size_t i = 0; i < nspan; i++) total += span[i];
        k->total_ns = total;
      }
    }
    /* One kernel signature: its launch and attributes are the entry's, and
     * the sum is that kernel's (over its launches in the graph), which the
     * checklist can judge.  Several: no launch configuration of its own. */
    if (nks == 1) {
      const pc_snap_sig *ksi = &s->sigs[ks[0]];
      memcpy(k->grid, ksi->grid, sizeof k->grid);
      memcpy(k->block, ksi->block, sizeof k->block);
      k->dynamic_smem = ksi->dynamic_smem;
      for (size_t e = first; esig && e < at; e++)
        if (esig[e - first] == ks[0] && !r->kernels[e].is_graph) k->attr = r->kernels[e].attr;
    }
    if (kmin != kmax)
      pc_warn(r, st, "%s: its launches ran between %u and %u kernels (conditional nodes, or records lost): its "
              "counters are averages over launches that differ", k->name, (unsigned)kmin, (unsigned)kmax);
    pc_acc a;
    if (pc_accumulate(s, gs, &a) == 0) {
      pc_kernel_counters(s, r, st, k, &a, 0, gsi->not_profiled);
    } else {
      k->not_measured_reason = pc_strdup("out of memory adding up the counters");
    }
    free(a.xsum);
    free(a.xcnt);
    if (nks > 1 && k->passes > 0 && !st->graph_mixed_warned) {
      st->graph_mixed_warned = 1;
      pc_report_warn(r, 1,
                     "graphs: a graph entry's counters are summed over all of its kernels (CUPTI's range profiler "
                     "measures a graph launch as one range; it cannot split it by node), so a graph of several "
                     "kernels gets no per-kernel verdict (not_assessed); its kernels' entries keep their own "
                     "timings and point to it (kernels[].graph.entry)");
    }
    if (esig) esig[at - first] = gs;
    for (size_t e = first; esig && e < at; e++)
      for (size_t j = 0; j < nks; j++)
        if (esig[e - first] == ks[j] && !r->kernels[e].is_graph) {
          pc_link_graph_kernel(&r->kernels[e], k);
          break;
        }
    free(ks);
    free(span);
  }
  free(L);
  free(rows);
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
                              pc_span *v, size_t n, const pc_cut *cuts, size_t ncuts) {
  /* Sort key: signature, then the flags that matter, then duration. */
  for (size_t i = 0; i < n; i++) v[i].group = (v[i].group << 3) | (v[i].tag & 7u);
  pc_span_sort(v, n, PC_SPAN_BY_GROUP_DURATION);
  const size_t first = r->nkernels;
  size_t ngraphs = 0;
  for (size_t i = 0; i < s->nsigs; i++) ngraphs += s->sigs[i].is_graph != 0;
  uint32_t *sigs = malloc((n + ngraphs + 1) * sizeof *sigs); /* each entry's signature */
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
  /* The graphs launched in the region: one entry each, after their kernels'. */
  pc_region_graphs(s, r, st, g, cuts, ncuts, first, sigs);
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
    if (p->sig < s->nsigs && s->sigs[p->sig].is_graph) continue; /* its rows are its kernels' (pc_region_graphs) */
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
  pc_region_kernels(s, r, st, g, work, nd, cuts, ncuts);
  free(cuts), free(spans), free(work);
  return PERFCHECK_OK;
}
