/* What the writers say alike about a kernel (pc_words.h): units, the
 * verdicts' order, worth changing, the borderline runner-up's evidence. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/pc_core.h"
#include "write/pc_words.h"
#include "check/pc_check.h"

/* ---- Units -------------------------------------------------------------------------- */

/* How a metric's value reads.  scale: the finding's value is the metric's
 * times scale (the issue slots: % of peak), so the metric's own value is
 * value / scale; share: a 0..1 fraction, said as a percentage of `of`. */
typedef struct pc_unit_words {
  const char *unit; /* after the number; "" none */
  double scale;
  const char *of;   /* a share: what it is a share of; NULL when not a share */
  int pct_of_peak;  /* the value is a % of a peak (a rate perfcheck computes) */
} pc_unit_words;

static int pc_ends_with(const char *s, const char *tail) {
  const size_t n = strlen(s), m = strlen(tail);
  return n >= m && strcmp(s + n - m, tail) == 0;
}

/* The quantities perfcheck computes from two counts (the checklist's own
 * spellings, docs/checklist.md), by a piece of their spelling. */
static const struct {
  const char *has;
  pc_unit_words w;
} pc_formulas[] = {
    {"kernel_ns / wall_ns", {"", 1, "the wall clock", 0}},
    {"/ wall_ns", {"", 1, "the wall clock", 0}},
    {"total_ns / sum of total_ns", {"", 1, "the region's kernel time", 0}},
    {"/ peak_dram_bytes_per_s", {"", 1, NULL, 1}},
    {"/ peak_fp32_flop_per_s", {"", 1, NULL, 1}},
    {"flops / (dram__bytes_read.sum", {"FLOP/byte", 1, NULL, 0}},
    {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum / ", {"conflicts/wavefront", 1, NULL, 0}},
    {"local sectors / (local sectors", {"", 1, "the sectors moved", 0}},
    {"lts__t_requests_op_red.sum) / ", {"", 1, "the requests", 0}},
    {"_op_ld.sum / l1tex__t_requests_", {"sectors/request", 1, NULL, 0}},
    {"_op_st.sum / l1tex__t_requests_", {"sectors/request", 1, NULL, 0}},
    {"_local_op_ld.sum + ", {"sectors", 1, NULL, 0}},
    {"launch__block_size / ceil(", {"lanes/warp", 1, NULL, 0}},
};

static pc_unit_words pc_unit_of(const char *metric) {
  pc_unit_words w = {"", 1, NULL, 0};
  if (!metric || !*metric) return w;
  for (size_t i = 0; i < sizeof pc_formulas / sizeof pc_formulas[0]; i++)
    if (strstr(metric, pc_formulas[i].has)) return pc_formulas[i].w;
  /* A metric step 2 compares as a % of its peak: its value x scale. */
  size_t nunits = 0;
  const pc_unit_def *units = pc_units(&nunits);
  for (size_t i = 0; i < nunits; i++)
    if (strcmp(units[i].metric, metric) == 0 && units[i].scale != 1 && units[i].scale > 0) {
      w.scale = units[i].scale;
      w.pct_of_peak = 1;
      w.unit = strstr(metric, "issue_active") ? "inst/cycle" : "";
      return w;
    }
  if (pc_ends_with(metric, "_pct") || strstr(metric, ".pct_of_peak_")) {
    w.unit = "%";
    return w;
  }
  if (strstr(metric, "bytes_per_sector")) w.unit = "bytes/sector";
  else if (strstr(metric, "thread_inst_executed") && strstr(metric, "per_inst_executed")) w.unit = "threads/inst";
  else if (strstr(metric, "warps_issue_stalled_")) w.unit = "warps/issue";
  else if (strstr(metric, "warps_eligible") || strstr(metric, "warps_active.avg.per_cycle")) w.unit = "warps/cycle";
  else if (strcmp(metric, "launch__waves_per_multiprocessor") == 0) w.unit = "waves";
  else if (strncmp(metric, "launch__occupancy_limit_", 24) == 0) w.unit = "blocks/SM";
  else if (strcmp(metric, "launch__registers_per_thread") == 0) w.unit = "registers/thread";
  else if (strcmp(metric, "launch__block_size") == 0) w.unit = "threads";
  else if (pc_ends_with(metric, "_ns") || strstr(metric, "time_duration")) w.unit = "ns";
  else {
    const pc_metric_def *m = pc_metric_lookup(metric, NULL);
    if (m && m->unit) {
      if (strcmp(m->unit, "byte") == 0) w.unit = "bytes";
      else if (strcmp(m->unit, "sector") == 0) w.unit = "sectors";
      else if (strcmp(m->unit, "request") == 0) w.unit = "requests";
      else if (strcmp(m->unit, "inst") == 0) w.unit = "inst";
      else if (strcmp(m->unit, "ns") == 0) w.unit = "ns";
      else if (strcmp(m->unit, "%") == 0) w.unit = "%";
    }
  }
  return w;
}

/* A number in a sentence: 4 significant digits, integers as integers. */
static void pc_num(char *buf, size_t len, double v) {
  if (!isfinite(v))
    snprintf(buf, len, "-");
  else if (fabs(v) >= 1e4 || v == floor(v))
    snprintf(buf, len, "%.0f", v);
  else
    snprintf(buf, len, "%.4g", v);
}

/* The number in its unit; `threshold`: said after "threshold ", where a
 * second number joins with ": " rather than a parenthesis. */
static void pc_say_number(char *buf, size_t len, const char *metric, double v, int threshold) {
  const pc_unit_words w = pc_unit_of(metric);
  const char *open = threshold ? ": " : " (", *close = threshold ? "" : ")";
  char a[48], b[48];
  if (!isfinite(v)) {
    snprintf(buf, len, "-");
    return;
  }
  const char *unit = w.unit;
  if (strcmp(unit, "waves") == 0 && v == 1) unit = "wave";
  if (w.scale != 1) {
    pc_num(a, sizeof a, v / w.scale);
    pc_num(b, sizeof b, v);
    snprintf(buf, len, "%s%s%s%s%s%% of peak%s", a, *unit ? " " : "", unit, open, b, close);
  } else if (w.pct_of_peak) {
    pc_num(a, sizeof a, v);
    snprintf(buf, len, "%s%% of peak", a);
  } else if (w.of) {
    pc_num(a, sizeof a, v);
    pc_num(b, sizeof b, v * 100.0);
    snprintf(buf, len, "%s%s%s%% of %s%s", a, open, b, w.of, close);
  } else if (strcmp(unit, "%") == 0) {
    pc_num(a, sizeof a, v);
    snprintf(buf, len, "%s%%", a);
  } else {
    pc_num(a, sizeof a, v);
    snprintf(buf, len, "%s%s%s", a, *unit ? " " : "", unit);
  }
}

void pc_words_value(char *buf, size_t len, const char *metric, double value) {
  if (!isfinite(value)) {
    snprintf(buf, len, "%s not measured", metric ? metric : "");
    return;
  }
  char n[160];
  pc_say_number(n, sizeof n, metric, value, 0);
  snprintf(buf, len, "%s = %s", metric ? metric : "", n);
}

void pc_words_threshold(char *buf, size_t len, const char *metric, double threshold) {
  if (!isfinite(threshold)) {
    snprintf(buf, len, "%s", "");
    return;
  }
  char n[160];
  pc_say_number(n, sizeof n, metric, threshold, 1);
  snprintf(buf, len, "threshold %s", n);
}

/* ---- Worth changing, and the order of the verdicts ---------------------------------- */

int pc_kernel_worth_changing(const pc_kernel *k) {
  if (!k) return -1;
  if (k->worth_changing == 0 || k->worth_changing == 1) return k->worth_changing;
  if (!isfinite(k->time_share) || k->time_share < 0) return -1;
  return k->time_share >= PC_WORTH_CHANGING_MIN_SHARE;
}

typedef struct pc_rank_key {
  int group;       /* 0 worth changing, 1 unknown, 2 not worth changing */
  double share, total;
  size_t i;
} pc_rank_key;

static int pc_cmp_rank(const void *x, const void *y) {
  const pc_rank_key *a = x, *b = y;
  if (a->group != b->group) return a->group - b->group;
  if (a->share != b->share) return a->share > b->share ? -1 : 1;
  if (a->total != b->total) return a->total > b->total ? -1 : 1;
  return (a->i > b->i) - (a->i < b->i);
}

int pc_kernel_verdict_order(const pc_report *r, size_t *order) {
  const size_t n = r->nkernels;
  pc_rank_key *keys = malloc((n ? n : 1) * sizeof *keys);
  if (!keys) return -1;
  for (size_t i = 0; i < n; i++) {
    const pc_kernel *k = &r->kernels[i];
    const int w = pc_kernel_worth_changing(k);
    keys[i].group = w == 1 ? 0 : w == 0 ? 2 : 1;
    keys[i].share = isfinite(k->time_share) ? k->time_share : -1.0;
    keys[i].total = isfinite(k->total_ns) ? k->total_ns : -1.0;
    keys[i].i = i;
  }
  qsort(keys, n, sizeof *keys, pc_cmp_rank);
  for (size_t i = 0; i < n; i++) order[i] = keys[i].i;
  free(keys);
  return 0;
}

/* ---- The runner-up's evidence ------------------------------------------------------- */

/* Whether a value sits within the nudge of its threshold: 5 points of a
 * percentage, 10% of anything else (docs/checklist.md, borderline). */
static int pc_within_nudge(const char *metric, double value, double threshold) {
  if (!isfinite(value) || !isfinite(threshold)) return 0;
  const pc_unit_words w = pc_unit_of(metric);
  const int pct = w.unit[0] == '%' || w.pct_of_peak || w.scale != 1;
  return fabs(value - threshold) <= (pct ? 5.0 : 0.1 * fabs(threshold)) + 1e-12;
}

int pc_runner_up_evidence(const pc_kernel *k, const pc_device *d, const char **metric, double *value,
                          double *threshold) {
  const pc_diagnosis *dg = &k->diag;
  *metric = NULL;
  *value = *threshold = PC_NULL;
  if (!dg->borderline) return 0;
  if (dg->runner_up_metric[0]) {
    *metric = dg->runner_up_metric;
    *value = dg->runner_up_value;
    *threshold = dg->runner_up_threshold;
    return 1;
  }
  /* The verdict's own number near its threshold: its rule is the one a
   * nudge turns. */
  const pc_finding *v = &dg->verdict;
  if (v->metric[0] && pc_within_nudge(v->metric, v->value, v->threshold)) {
    *metric = v->metric;
    *value = v->value;
    *threshold = v->threshold;
    return 1;
  }
  /* at_roof against latency_bound (either way): the walk's last step, where
   * the busiest unit against at_roof_pct decides between the two. */
  const perfcheck_cause a = dg->runner_up, b = v->cause;
  if ((a == PERFCHECK_CAUSE_AT_ROOF && b == PERFCHECK_CAUSE_LATENCY_BOUND) ||
      (a == PERFCHECK_CAUSE_LATENCY_BOUND && b == PERFCHECK_CAUSE_AT_ROOF)) {
    pc_unit_load top;
    (void)pc_checklist_near_roof(k, d, &top);
    if (top.metric && isfinite(top.pct)) {
      *metric = top.metric;
      *value = top.pct;
      *threshold = pc_threshold_value("at_roof_pct"); /* both as the findings carry them: % of peak */
      return 1;
    }
  }
  /* A finding of the runner-up's cause whose number is near its threshold. */
  for (size_t i = 0; i < dg->nfindings && i < PC_MAX_FINDINGS; i++) {
    const pc_finding *x = &dg->findings[i];
    if (x->cause == a && x->metric[0] && pc_within_nudge(x->metric, x->value, x->threshold)) {
      *metric = x->metric;
      *value = x->value;
      *threshold = x->threshold;
      return 1;
    }
  }
  return 0;
}

int pc_gain_known(const pc_gain *g) { return g && isfinite(g->speedup) && g->speedup > 0; }

const char *pc_words_ns(char *buf, size_t len, double ns) {
  if (!isfinite(ns))
    snprintf(buf, len, "-");
  else if (ns < 1e3)
    snprintf(buf, len, "%.0f ns", ns);
  else if (ns < 1e6)
    snprintf(buf, len, "%.4g us", ns / 1e3);
  else if (ns < 1e9)
    snprintf(buf, len, "%.4g ms", ns / 1e6);
  else
    snprintf(buf, len, "%.4g s", ns / 1e9);
  return buf;
}
