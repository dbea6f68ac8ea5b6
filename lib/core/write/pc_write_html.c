/* The HTML report: one self-contained page (pc_html.h says how it is drawn).
 *
 *   the device and its ceilings, the report's warnings
 *   the roofline: one point per kernel with measured intensity and FLOP/s,
 *     its area the kernel's share of its region's kernel time
 *   per region: the wall clock split into kernel busy time, copies and the
 *     rest, with the step-1 verdict
 *   the kernel table, sortable, each name a link to its kernel, with its
 *     time, share and busiest pipe and memory level
 *   per kernel: the five questions as a row of bands (seed 000's diagram),
 *     each its step's number against its threshold (pc_thresholds): green
 *     passes, red catches, grey not assessed; the verdict and advice beside
 *     it; every metric one click away
 *
 * The bands are not a second checklist: pc_checklist_steps runs the walk's
 * own rules on the kernel and says how each step ended, and the numbers
 * shown are the ones those rules read (pc_checklist_ceiling,
 * pc_checklist_divergence_threshold, pc_checklist_near_roof).
 *
 * Nothing unmeasured is drawn or printed as a number: it is "-", or the
 * legend says why it is missing. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/pc_core.h"
#include "base/pc_fmt.h"
#include "write/pc_html.h"
#include "write/pc_words.h"
#include "check/pc_check.h"
#include "write/pc_write.h"

/* ---- The five bands ---------------------------------------------------------- */

enum { PC_BAND_PASS = 0, PC_BAND_CATCH = 1, PC_BAND_NA = 2 };

typedef struct pc_band {
  int step;
  int state;
  char line1[64];     /* the step's numbers ("bytes/sector ld 4") */
  char line2[64];
  char decision[64];  /* against its threshold ("< 16 B: uncoalesced loads") */
  char detail[PC_ADVICE_MAX + PC_METRIC_NAME_MAX + 160]; /* hover: metric, value, threshold, advice */
  /* A linear gauge [lo, hi] with the threshold tick, a dot (v1) and a hollow
   * diamond (v2); off when `on` is 0, a mark left out when its value is
   * unknown. */
  int on;
  double lo, hi, thr, v1, v2;
} pc_band;

static const char *const pc_band_question[6] = {"", "1 Is it the slow part?", "2 Which ceiling?",
                                                "3 Is the traffic real?", "4 Are lanes working?",
                                                "5 Is occupancy it?"};

static double pc_t(const char *key) { return pc_threshold_value(key); }

static void pc_band_gauge(pc_band *b, double lo, double hi, double thr, double v1, double v2) {
  b->on = pc_has(thr) && hi > lo;
  b->lo = lo, b->hi = hi, b->thr = thr, b->v1 = v1, b->v2 = v2;
}

static int pc_band_state(pc_step_state s) {
  return s == PC_STEP_CATCHES ? PC_BAND_CATCH : s == PC_STEP_PASSES ? PC_BAND_PASS : PC_BAND_NA;
}

/* The hover text of a finding: the metric as ncu spells it, its value and
 * threshold (the advice is in the verdict and findings beside the bands). */
static void pc_band_detail(pc_band *b, const pc_finding *f) {
  char v[48], t[48];
  snprintf(b->detail, sizeof b->detail, "%s = %s (threshold %s)", f->metric[0] ? f->metric : "-",
           pc_html_num(v, sizeof v, f->value), pc_html_num(t, sizeof t, f->threshold));
}

/* The detail of a step that passed or was not assessed: what it checked,
 * then the input it missed, or that a finding remains. */
static void pc_band_detail_view(pc_band *b, const pc_step_view *v, const char *passed) {
  if (v->state == PC_STEP_CATCHES && v->has_hit)
    pc_band_detail(b, &v->hit);
  else if (v->has_missing && v->state == PC_STEP_NOT_ASSESSED)
    snprintf(b->detail, sizeof b->detail, "Not measured: %s.", v->missing.metric[0] ? v->missing.metric : "an input");
  else if (v->has_note)
    snprintf(b->detail, sizeof b->detail, "%s A finding remains (below): %s.", passed, perfcheck_cause_name(v->note.cause));
  else
    snprintf(b->detail, sizeof b->detail, "%s", passed);
}

static const char *pc_limiter_words(perfcheck_cause c) {
  switch (c) {
    case PERFCHECK_CAUSE_OCCUPANCY_REGISTERS: return "registers";
    case PERFCHECK_CAUSE_OCCUPANCY_SHARED_MEMORY: return "shared memory";
    case PERFCHECK_CAUSE_OCCUPANCY_WARPS: return "block size";
    case PERFCHECK_CAUSE_OCCUPANCY_BLOCKS: return "block limit";
    default: return "occupancy";
  }
}

/* "fma 45.2%", "memory SOL 75.28%", or "-". */
static const char *pc_unit_text(char *buf, size_t len, const pc_unit_load *u) {
  char p[32];
  if (!u->name || pc_is_null(u->pct)) {
    snprintf(buf, len, "-");
    return buf;
  }
  const char *name = u->name;
  if (strcmp(name, "memory") == 0) name = "mem SOL"; /* ncu's aggregates: not a unit of their own */
  else if (strcmp(name, "sm") == 0) name = "SM SOL";
  else if (strcmp(name, "fp32") == 0) name = "FP32 rate";
  snprintf(buf, len, "%s %s%%", name, pc_html_num(p, sizeof p, u->pct));
  return buf;
}

/* Step 1 beside the kernel: its share of its region's kernel time and its
 * rank there (never its verdict: step 1 is the region's), and its region's
 * own step 1 (kernels busy against kernel_share_min, or launch overhead). */
static void pc_band_step1(pc_band *b, const pc_report *r, const pc_kernel *k, const pc_region *g) {
  char x[48], y[48], z[48];
  const double rmin = pc_t("kernel_share_min");
  const double share = k->time_share;
  size_t peers = 0;
  for (size_t i = 0; i < r->nkernels; i++)
    if ((!k->region && !r->kernels[i].region) ||
        (k->region && r->kernels[i].region && strcmp(k->region, r->kernels[i].region) == 0))
      peers++;
  /* The band shows the region's answer: caught when the region is. */
  const int caught = g && g->diag.verdict.step == 1 && g->diag.verdict.cause != PERFCHECK_CAUSE_NONE &&
                     g->diag.verdict.cause != PERFCHECK_CAUSE_NOT_ASSESSED;
  b->state = !r->step1_assessed || !g ? PC_BAND_NA : caught ? PC_BAND_CATCH : PC_BAND_PASS;
  if (k->rank > 0 && pc_has(share))
    snprintf(b->line1, sizeof b->line1, "rank %d/%zu, %s%%", k->rank, peers, pc_html_num(x, sizeof x, share * 100));
  else if (pc_has(share))
    snprintf(b->line1, sizeof b->line1, "%s%% of %s time", pc_html_num(x, sizeof x, share * 100),
             k->time_share_from_timeline ? "kernel" : "export");
  else
    snprintf(b->line1, sizeof b->line1, "share of kernel time -");
  pc_band_gauge(b, 0, 100, PC_NULL, share * 100, PC_NULL);
  if (!r->step1_assessed)
    snprintf(b->line2, sizeof b->line2, "no wall clock (export)");
  else if (!g)
    snprintf(b->line2, sizeof b->line2, "outside every region");
  else if (g->diag.verdict.step == 1 && g->diag.verdict.cause == PERFCHECK_CAUSE_LAUNCH_OVERHEAD)
    snprintf(b->line2, sizeof b->line2, "region idle+short %s%%", pc_html_num(y, sizeof y, g->diag.verdict.value * 100));
  else
    snprintf(b->line2, sizeof b->line2, "region busy %s%%", pc_html_num(y, sizeof y, g->kernel_share * 100));
  if (!r->step1_assessed || !g)
    snprintf(b->decision, sizeof b->decision, "step 1: the region's");
  else if (caught)
    snprintf(b->decision, sizeof b->decision, "%s",
             g->diag.verdict.cause == PERFCHECK_CAUSE_LAUNCH_OVERHEAD ? "region: launch overhead"
             : g->diag.verdict.cause == PERFCHECK_CAUSE_COMMUNICATION ? "region: communication"
                                                                       : "region not the slow part");
  else
    snprintf(b->decision, sizeof b->decision, "region \xE2\x89\xA5 %s%%: passes", pc_html_num(z, sizeof z, rmin * 100));
  snprintf(b->detail, sizeof b->detail,
           "The kernel takes %s%% of its %s kernel time (rank %d of %zu); step 1 is asked of the region: its kernels "
           "are busy %s%% of its wall clock (threshold %s%%).  The kernel's verdict comes from steps 2 to 5 either "
           "way.",
           pc_html_num(x, sizeof x, share * 100), k->time_share_from_timeline ? "region's" : "export's", k->rank,
           peers, pc_html_num(y, sizeof y, g ? g->kernel_share * 100 : PC_NULL), pc_html_num(z, sizeof z, rmin * 100));
}

/* Step 2: the busiest pipe and memory level by name and %, and the bound,
 * with the unit that set each side's load (an aggregate such as ncu's SOL
 * or the issue slots where no pipe or level was measured). */
static void pc_band_step2(pc_band *b, const pc_kernel *k, const pc_device *d, const pc_step_view *v) {
  char u[48], t[32], m[32], c[32];
  const double hi = pc_t("ceiling_high_pct");
  const perfcheck_bound bound = k->diag.bound;
  b->state = pc_band_state(v->state);
  snprintf(b->line1, sizeof b->line1, "pipe %s", pc_unit_text(u, sizeof u, &k->busiest_pipe));
  snprintf(b->line2, sizeof b->line2, "memory %s", pc_unit_text(u, sizeof u, &k->busiest_memory));
  pc_band_gauge(b, 0, 100, hi, k->derived.memory_pct, k->derived.compute_pct);
  const pc_unit_load mem = pc_checklist_ceiling(k, d, 1), comp = pc_checklist_ceiling(k, d, 0);
  pc_html_num(t, sizeof t, hi);
  pc_html_num(m, sizeof m, k->derived.memory_pct);
  pc_html_num(c, sizeof c, k->derived.compute_pct);
  if (bound == PERFCHECK_BOUND_UNKNOWN) {
    snprintf(b->decision, sizeof b->decision, "not assessed");
    snprintf(b->detail, sizeof b->detail,
             "Neither a throughput percentage nor the roofline (intensity and ridge) was measured.");
  } else if (pc_has(k->derived.memory_pct) || pc_has(k->derived.compute_pct)) {
    const pc_unit_load *top = bound == PERFCHECK_BOUND_MEMORY ? &mem : &comp;
    if (bound == PERFCHECK_BOUND_LATENCY)
      snprintf(b->decision, sizeof b->decision, "latency: both < %s%%", t);
    else
      snprintf(b->decision, sizeof b->decision, "%s: %s", perfcheck_bound_name(bound), pc_unit_text(u, sizeof u, top));
    snprintf(b->detail, sizeof b->detail, "%s = %s%%, %s = %s%%; %s%% or more names the bound",
             mem.metric ? mem.metric : "memory side", m, comp.metric ? comp.metric : "compute side", c, t);
  } else {
    b->on = 0;
    snprintf(b->decision, sizeof b->decision, "FLOP/B %s ridge: %s", bound == PERFCHECK_BOUND_MEMORY ? "<" : "\xE2\x89\xA5",
             perfcheck_bound_name(bound));
    snprintf(b->detail, sizeof b->detail,
             "No throughput percentage was measured: arithmetic intensity %s against the ridge point %s FLOP/byte "
             "says %s.",
             pc_html_num(m, sizeof m, k->derived.arithmetic_intensity), pc_html_num(c, sizeof c, d->ridge_flop_per_byte),
             perfcheck_bound_name(bound));
  }
}

/* One side of coalescing, as the checklist reads it: bytes per sector when
 * measured, else sectors per request. */
static void pc_coalescing_text(char *buf, size_t len, const pc_kernel *k, int ld, int *by_bytes) {
  char v[32];
  const double bps = ld ? k->derived.bytes_per_sector_ld : k->derived.bytes_per_sector_st;
  const double spr = ld ? k->derived.sectors_per_request_ld : k->derived.sectors_per_request_st;
  const double req = k->metric[ld ? PC_M_LD_REQUESTS : PC_M_ST_REQUESTS];
  *by_bytes = 0;
  if (req == 0)
    snprintf(buf, len, "no global %s", ld ? "loads" : "stores");
  else if (pc_has(bps) && bps > 0)
    *by_bytes = 1, snprintf(buf, len, "bytes/sector %s %s", ld ? "ld" : "st", pc_html_num(v, sizeof v, bps));
  else
    snprintf(buf, len, "sectors/req %s %s", ld ? "ld" : "st", pc_html_num(v, sizeof v, spr));
}

/* Step 3: bytes used per fetched sector against bytes_per_sector_uncoalesced, or,
 * where that was not measured, sectors per request at its two ends; or the
 * local-memory, bank-conflict or atomic number that caught the kernel. */
static void pc_band_step3(pc_band *b, const pc_kernel *k, const pc_step_view *v) {
  char x[32], t[32];
  const pc_derived *dv = &k->derived;
  const double bmin = pc_t("bytes_per_sector_uncoalesced"), smax = pc_t("sectors_per_request_max");
  const double svec = pc_t("sectors_per_request_vector_max");
  int bytes_ld, bytes_st;
  b->state = pc_band_state(v->state);
  pc_coalescing_text(b->line1, sizeof b->line1, k, 1, &bytes_ld);
  pc_coalescing_text(b->line2, sizeof b->line2, k, 0, &bytes_st);
  if (bytes_ld || bytes_st)
    pc_band_gauge(b, 0, 32, bmin, bytes_ld ? dv->bytes_per_sector_ld : PC_NULL, bytes_st ? dv->bytes_per_sector_st : PC_NULL);
  else
    pc_band_gauge(b, 0, 32, smax, dv->sectors_per_request_ld, dv->sectors_per_request_st);
  if (v->state == PC_STEP_SKIPPED) {
    snprintf(b->decision, sizeof b->decision, "skipped: %s bound", perfcheck_bound_name(k->diag.bound));
    snprintf(b->detail, sizeof b->detail, "Step 2 sent the walk to the compute side: step 3 was not run.");
    return;
  }
  if (v->state == PC_STEP_CATCHES) {
    const pc_finding *f = &v->hit;
    pc_band_detail(b, f);
    const int ld = f->cause == PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS;
    switch (f->cause) {
      case PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS:
      case PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_STORES:
        if (strstr(f->metric, "ldgsts")) {
          snprintf(b->line1, sizeof b->line1, "cp.async B/sector %s", pc_html_num(x, sizeof x, f->value));
          snprintf(b->decision, sizeof b->decision, "< %s B: uncoalesced", pc_html_num(t, sizeof t, f->threshold));
          pc_band_gauge(b, 0, 32, f->threshold, f->value, PC_NULL);
        } else if (strstr(f->metric, "bytes_per_sector")) {
          snprintf(b->decision, sizeof b->decision, "< %s B: uncoalesced %s", pc_html_num(t, sizeof t, f->threshold),
                   ld ? "ld" : "st");
        } else { /* sectors per request beyond any access width */
          snprintf(b->decision, sizeof b->decision, "> %s: uncoalesced %s", pc_html_num(t, sizeof t, f->threshold),
                   ld ? "loads" : "stores");
          pc_band_gauge(b, 0, 32, f->threshold, dv->sectors_per_request_ld, dv->sectors_per_request_st);
        }
        break;
      case PERFCHECK_CAUSE_LOCAL_MEMORY_SPILLS:
        snprintf(b->line1, sizeof b->line1, "local sectors %s", pc_html_num(x, sizeof x, f->value));
        snprintf(b->decision, sizeof b->decision, "> %s: local memory", pc_html_num(t, sizeof t, f->threshold));
        b->on = 0;
        break;
      case PERFCHECK_CAUSE_SHARED_BANK_CONFLICTS:
        snprintf(b->line1, sizeof b->line1, "bank conflicts %s", pc_html_num(x, sizeof x, f->value));
        snprintf(b->decision, sizeof b->decision, "> %s: bank conflicts", pc_html_num(t, sizeof t, f->threshold));
        pc_band_gauge(b, 0, 1, f->threshold, fmin(f->value, 1), PC_NULL);
        break;
      default:
        snprintf(b->line1, sizeof b->line1, "atomic share %s", pc_html_num(x, sizeof x, f->value));
        snprintf(b->decision, sizeof b->decision, "> %s: atomics", pc_html_num(t, sizeof t, f->threshold));
        pc_band_gauge(b, 0, 1, f->threshold, fmin(f->value, 1), PC_NULL);
        break;
    }
    return;
  }
  if (v->state == PC_STEP_NOT_ASSESSED) {
    /* Sectors per request between the two ends: the access width decides. */
    if (v->has_missing && strstr(v->missing.metric, "bytes_per_sector"))
      snprintf(b->decision, sizeof b->decision, "%s-%s/req: width unknown", pc_html_num(x, sizeof x, smax),
               pc_html_num(t, sizeof t, svec));
    else
      snprintf(b->decision, sizeof b->decision, "not measured");
    pc_band_detail_view(b, v, "");
    return;
  }
  if (bytes_ld || bytes_st)
    snprintf(b->decision, sizeof b->decision, "> %s B/sector: passes", pc_html_num(t, sizeof t, bmin));
  else
    snprintf(b->decision, sizeof b->decision, "\xE2\x89\xA4 %s sectors/req: passes", pc_html_num(t, sizeof t, smax));
  char passed[300];
  snprintf(passed, sizeof passed,
           "Coalesced (more than %s bytes per sector, or at most %s sectors per request where bytes per sector were not "
           "measured); local memory, bank conflicts and atomics below their thresholds.",
           pc_html_num(x, sizeof x, bmin), pc_html_num(t, sizeof t, smax));
  pc_band_detail_view(b, v, passed);
}

/* Step 4: threads per instruction against the lanes the launch allows
 * (partial_warps when fewer than threads_per_instruction_min). */
static void pc_band_step4(pc_band *b, const pc_kernel *k, const pc_step_view *v) {
  char x[32], t[32], y[32];
  const double tpi = k->derived.threads_per_instruction, lanes = k->derived.lanes_per_warp_max;
  const double line = pc_checklist_divergence_threshold(k);
  b->state = pc_band_state(v->state);
  snprintf(b->line1, sizeof b->line1, "threads/inst %s", pc_html_num(x, sizeof x, tpi));
  snprintf(b->line2, sizeof b->line2, "lanes allowed %s", pc_html_num(x, sizeof x, lanes));
  pc_band_gauge(b, 0, 32, line, tpi, lanes);
  pc_html_num(t, sizeof t, line);
  if (v->state == PC_STEP_SKIPPED) {
    snprintf(b->decision, sizeof b->decision, "skipped: %s bound", perfcheck_bound_name(k->diag.bound));
    snprintf(b->detail, sizeof b->detail, "Step 2 sent the walk to the memory side: step 4 was not run.");
    return;
  }
  if (v->state == PC_STEP_CATCHES) {
    const pc_finding *f = &v->hit;
    if (f->cause == PERFCHECK_CAUSE_PARTIAL_WARPS)
      snprintf(b->decision, sizeof b->decision, "partial warps (< %s)", pc_html_num(t, sizeof t, f->threshold));
    else
      snprintf(b->decision, sizeof b->decision, "< %s: divergent warps", t);
    pc_band_detail(b, f);
    return;
  }
  if (v->state == PC_STEP_NOT_ASSESSED)
    snprintf(b->decision, sizeof b->decision, "not measured");
  else
    snprintf(b->decision, sizeof b->decision, "\xE2\x89\xA5 %s: passes", t);
  char passed[200];
  snprintf(passed, sizeof passed,
           "%s threads per executed instruction of the %s lanes the launch allows (divergence below %s).",
           pc_html_num(x, sizeof x, tpi), pc_html_num(y, sizeof y, lanes), t);
  pc_band_detail_view(b, v, passed);
}

/* Step 5: waves and occupancy, with the near-roof rule (a unit at
 * at_roof_pct makes low occupancy a finding, not the verdict). */
static void pc_band_step5(pc_band *b, const pc_kernel *k, const pc_device *d, const pc_step_view *v) {
  char x[32], t[32], u[48], y[32];
  const double ach = k->derived.achieved_occupancy_pct, theo = k->derived.theoretical_occupancy_pct;
  const double low = pc_t("achieved_occupancy_low_pct");
  b->state = pc_band_state(v->state);
  snprintf(b->line1, sizeof b->line1, "achieved %s%%", pc_html_num(x, sizeof x, ach));
  snprintf(b->line2, sizeof b->line2, "theoretical %s%%", pc_html_num(x, sizeof x, theo));
  pc_band_gauge(b, 0, 100, low, ach, theo);
  pc_unit_load top;
  const int near_roof = pc_checklist_near_roof(k, d, &top);
  if (v->state == PC_STEP_CATCHES) {
    const pc_finding *f = &v->hit;
    pc_band_detail(b, f);
    if (f->cause == PERFCHECK_CAUSE_GRID_TOO_SMALL) {
      snprintf(b->line1, sizeof b->line1, "waves/SM %s", pc_html_num(x, sizeof x, f->value));
      snprintf(b->decision, sizeof b->decision, "< %s wave: grid too small", pc_html_num(t, sizeof t, f->threshold));
      pc_band_gauge(b, 0, 2, f->threshold, fmin(f->value, 2), PC_NULL);
    } else {
      snprintf(b->decision, sizeof b->decision, "< %s%%: %s", pc_html_num(t, sizeof t, f->threshold),
               pc_limiter_words(f->cause));
    }
    return;
  }
  if (v->state == PC_STEP_NOT_ASSESSED) {
    snprintf(b->decision, sizeof b->decision, "not measured");
    pc_band_detail_view(b, v, "");
    return;
  }
  const int low_noted = v->has_note && pc_has(ach) && ach < low;
  if (low_noted && near_roof)
    snprintf(b->decision, sizeof b->decision, "low; %s at roof", pc_unit_text(u, sizeof u, &top));
  else if (low_noted)
    snprintf(b->decision, sizeof b->decision, "low, no evidence: passes");
  else
    snprintf(b->decision, sizeof b->decision, "passes");
  char passed[300];
  snprintf(passed, sizeof passed,
           "At least one wave; achieved %s%% of %s%% (a limit is the verdict below %s%% only with no unit at %s%% "
           "and warps starved, not throttled).",
           pc_html_num(x, sizeof x, ach), pc_html_num(u, sizeof u, theo), pc_html_num(t, sizeof t, low),
           pc_html_num(y, sizeof y, pc_t("at_roof_pct")));
  pc_band_detail_view(b, v, passed);
}

#define PC_BAND_W 172.0
#define PC_BAND_H 84.0
#define PC_BAND_GAP 6.0
#define PC_GAUGE_X 6.0  /* the gauge inside a band */
#define PC_GAUGE_Y 66.0
#define PC_GAUGE_H 8.0

/* What every band's gauge draws, once per page: its frame, the dot at x = 0
 * and the diamond at x = 0 (a <use> moves them). */
static void pc_html_band_defs(FILE *f) {
  fprintf(f,
          "<svg width=\"0\" height=\"0\" style=\"position:absolute\" aria-hidden=\"true\"><defs>"
          "<rect id=\"pc-gauge\" class=\"gauge\" x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\"/>"
          "<circle id=\"pc-mark\" class=\"mark\" cx=\"0\" cy=\"%g\" r=\"3.2\"/>"
          "<path id=\"pc-dia\" class=\"dia\" d=\"M0 %gl4 4l-4 4l-4-4z\"/></defs></svg>\n",
          PC_GAUGE_X, PC_GAUGE_Y, PC_BAND_W - 2 * PC_GAUGE_X, PC_GAUGE_H, PC_GAUGE_Y + PC_GAUGE_H / 2, PC_GAUGE_Y);
}

static double pc_gauge_x(const pc_band *b, double x0, double w, double v) {
  double t = (v - b->lo) / (b->hi - b->lo);
  if (t < 0) t = 0;
  if (t > 1) t = 1;
  return x0 + t * w;
}

/* A band at x, in its own coordinates (short numbers: 100 kernels draw 500). */
static void pc_band_svg(FILE *f, const pc_band *b, double x) {
  static const char *const cls[3] = {"pass", "catch", "na"};
  static const char *const word[3] = {"passes", "catches", "not assessed"};
  const size_t chars = pc_html_chars_for(PC_BAND_W - 10);
  fprintf(f, "<g class=\"band box %s\" data-step=\"%d\" data-state=\"%s\" transform=\"translate(%g)\"><title>step %d %s: ",
          cls[b->state], b->step, word[b->state], x, b->step, word[b->state]);
  pc_html_text(f, b->detail);
  fprintf(f, "</title><rect class=\"b\" x=\"0\" y=\".5\" width=\"%g\" height=\"%g\" rx=\"3\"/>", PC_BAND_W, PC_BAND_H - 1);
  const char *lines[4] = {pc_band_question[b->step], b->line1, b->line2, b->decision};
  for (int i = 0; i < 4; i++) {
    fprintf(f, "<text%s x=\"5\" y=\"%d\">", i == 0 ? " class=\"q\"" : "", 14 + 14 * i);
    pc_html_text_cut(f, lines[i], chars);
    fputs("</text>", f);
  }
  if (b->on) { /* the shapes are defined once (pc_html_band_defs) */
    const double gx = PC_GAUGE_X, gw = PC_BAND_W - 2 * PC_GAUGE_X;
    fprintf(f, "<use href=\"#pc-gauge\"/><path class=\"tick\" d=\"M%.1f %gv%g\"/>", pc_gauge_x(b, gx, gw, b->thr),
            PC_GAUGE_Y - 3, PC_GAUGE_H + 6);
    if (pc_has(b->v2)) /* the second value: a hollow diamond */
      fprintf(f, "<use href=\"#pc-dia\" x=\"%.1f\"/>", pc_gauge_x(b, gx, gw, b->v2));
    if (pc_has(b->v1)) fprintf(f, "<use href=\"#pc-mark\" x=\"%.1f\"/>", pc_gauge_x(b, gx, gw, b->v1));
  }
  fputs("</g>\n", f);
}

static void pc_html_bands(FILE *f, const pc_report *r, const pc_kernel *k) {
  pc_band b[5];
  memset(b, 0, sizeof b);
  for (int i = 0; i < 5; i++) b[i].step = i + 1, b[i].v1 = b[i].v2 = b[i].thr = PC_NULL;
  const pc_region *g = pc_report_kernel_region(r, k);
  pc_step_view v[6];
  pc_checklist_steps(k, &r->device, g, v);
  pc_band_step1(&b[0], r, k, g);
  pc_band_step2(&b[1], k, &r->device, &v[2]);
  pc_band_step3(&b[2], k, &v[3]);
  pc_band_step4(&b[3], k, &v[4]);
  pc_band_step5(&b[4], k, &r->device, &v[5]);
  const double w = 5 * PC_BAND_W + 4 * PC_BAND_GAP;
  fprintf(f,
          "<svg class=\"bands\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f "
          "%.0f\" role=\"img\" aria-label=\"the five questions\">\n",
          w, PC_BAND_H, w, PC_BAND_H);
  for (int i = 0; i < 5; i++) pc_band_svg(f, &b[i], i * (PC_BAND_W + PC_BAND_GAP));
  fputs("</svg>\n", f);
}

/* ---- Regions ------------------------------------------------------------------- */

#define PC_TL_W 884.0
#define PC_TL_H 26.0

static void pc_html_segment(FILE *f, const char *cls, double x, double w, const char *what, double ns, double wall) {
  if (!(w > 0)) return;
  char a[32], p[32];
  fprintf(f, "<rect class=\"%s\" x=\"%.2f\" y=\"2\" width=\"%.2f\" height=\"%.0f\"><title>%s %s (%s%% of the wall "
             "clock)</title></rect>",
          cls, x, w, PC_TL_H - 4, what, pc_words_ns(a, sizeof a, ns), pc_html_num(p, sizeof p, ns / wall * 100));
}

/* Step 1 of each device, when the region's kernels ran on more than one:
 * a bar of its kernel busy time against the region's wall clock, and its
 * verdict.  Devices without launches have no entry (pc_region_build). */
static void pc_html_region_devices(FILE *f, const pc_region *g) {
  if (g->ndevices < 2) return;
  const double wall = g->wall_ns;
  fputs("<ul class=\"devices\">\n", f);
  for (size_t i = 0; i < g->ndevices; i++) {
    const pc_region_device *d = &g->devices[i];
    char a[32], b[32];
    fputs("<li>", f);
    if (pc_has(wall) && wall > 0 && pc_has(d->kernel_ns)) {
      const double kern = fmin(d->kernel_ns, wall);
      fprintf(f,
              "<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
              "viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"device timeline\">"
              "<rect class=\"seg-i\" x=\"0\" y=\"2\" width=\"%.0f\" height=\"%.0f\"/>",
              PC_TL_W, PC_TL_H, PC_TL_W, PC_TL_H, PC_TL_W, PC_TL_H - 4);
      pc_html_segment(f, "seg-k", 0, kern / wall * PC_TL_W, "this device's kernels busy", kern, wall);
      fputs("</svg><br>", f);
    }
    fprintf(f, "device %d", d->ordinal);
    if (d->pci_bus_id[0]) {
      fputs(" (", f);
      pc_html_text(f, d->pci_bus_id);
      fputs(")", f);
    }
    fprintf(f, ": kernels busy %s (%s%% of the wall clock), %" PRIu64 " launch%s; step 1: ",
            pc_words_ns(a, sizeof a, d->kernel_ns), pc_html_num(b, sizeof b, d->kernel_share * 100), d->launches,
            d->launches == 1 ? "" : "es");
    const pc_finding *v = &d->diag.verdict;
    if (v->step == 1 && v->cause != PERFCHECK_CAUSE_NONE)
      fprintf(f, "%s", perfcheck_cause_name(v->cause));
    else if (v->cause == PERFCHECK_CAUSE_NOT_ASSESSED)
      fputs("not assessed", f);
    else
      fputs("passes", f);
    fputs("</li>\n", f);
  }
  fputs("</ul>\n", f);
}

static void pc_html_region(FILE *f, const pc_region *g) {
  char a[32], b[32], c[32], d[32], e[32];
  fprintf(f, "<div class=\"region\" style=\"margin-left:%dpx\"><h3>", 16 * (g->depth > 0 ? (g->depth < 8 ? g->depth : 8) : 0));
  pc_html_text(f, g->name);
  fputs("</h3>\n", f);
  const double wall = g->wall_ns;
  if (!(pc_has(wall) && wall > 0)) {
    fputs("<p class=\"why\">No wall clock for this region: no timeline.</p>\n", f);
  } else {
    const double kern = pc_has(g->kernel_ns) ? fmin(g->kernel_ns, wall) : 0;
    double copies = (pc_has(g->memcpy_ns) ? g->memcpy_ns : 0) + (pc_has(g->memset_ns) ? g->memset_ns : 0);
    /* Copies that ran while kernels ran would count twice: the bar shows at
     * most what is left of the wall clock, the text says the rest. */
    const double copies_drawn = fmin(copies, wall - kern);
    const double rest = wall - kern - copies_drawn;
    const double kw = kern / wall * PC_TL_W, cw = copies_drawn / wall * PC_TL_W;
    fprintf(f,
            "<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"region timeline\">"
            "<rect class=\"seg-i\" x=\"0\" y=\"2\" width=\"%.0f\" height=\"%.0f\"/>",
            PC_TL_W, PC_TL_H, PC_TL_W, PC_TL_H, PC_TL_W, PC_TL_H - 4);
    pc_html_segment(f, "seg-k", 0, kw, "kernels busy", kern, wall);
    pc_html_segment(f, "seg-c", kw, cw, "copies and memsets", copies_drawn, wall);
    pc_html_segment(f, "seg-i", kw + cw, PC_TL_W - kw - cw, "neither (host, launch gaps, idle)", rest, wall);
    fputs("</svg>\n", f);
    fprintf(f,
            "<p><span class=\"sw\" style=\"background:#3f6fb5;border-radius:0\"></span>kernels %s (%s%%) "
            "<span class=\"sw\" style=\"background:#e39b2d;border-radius:0\"></span>copies %s "
            "<span class=\"sw\" style=\"background:#d9d9d9;border-radius:0\"></span>neither %s, of a wall clock of %s; "
            "%" PRIu64 " launch%s",
            pc_words_ns(a, sizeof a, g->kernel_ns), pc_html_num(b, sizeof b, g->kernel_share * 100),
            pc_words_ns(c, sizeof c, copies), pc_words_ns(d, sizeof d, rest), pc_words_ns(e, sizeof e, wall), g->launches,
            g->launches == 1 ? "" : "es");
    if (pc_has(g->gpu_idle_ns)) fprintf(f, "; gaps between kernels %s", pc_words_ns(a, sizeof a, g->gpu_idle_ns));
    if (copies > copies_drawn + 0.5)
      fprintf(f, "; copies overlapping kernels %s (not drawn twice)", pc_words_ns(a, sizeof a, copies - copies_drawn));
    if (g->dropped_records) fprintf(f, "; %" PRIu64 " activity records dropped", g->dropped_records);
    if (pc_has(g->communication_share) && g->communication_share > 0)
      fprintf(f, "; communication kernels %s%% of kernel time (%s of communication against %s of compute)",
              pc_html_num(a, sizeof a, g->communication_share * 100), pc_words_ns(b, sizeof b, g->communication_ns),
              pc_words_ns(c, sizeof c, g->compute_ns));
    fputs(".</p>\n", f);
    pc_html_region_devices(f, g);
  }
  const pc_finding *v = &g->diag.verdict;
  fputs("<p><b>Step 1:</b> ", f);
  if (v->step == 1 && v->cause != PERFCHECK_CAUSE_NONE) {
    fprintf(f, "%s", perfcheck_cause_name(v->cause));
    if (v->advice[0]) {
      fputs(": ", f);
      pc_html_text(f, v->advice);
    }
  } else if (v->cause == PERFCHECK_CAUSE_NOT_ASSESSED) {
    fputs("not assessed", f);
  } else {
    fprintf(f, "passes: kernels busy %s%% of the wall clock (threshold %s%%).", pc_html_num(a, sizeof a, g->kernel_share * 100),
            pc_html_num(b, sizeof b, pc_t("kernel_share_min") * 100));
  }
  fputs("</p></div>\n", f);
}

/* ---- Kernels ---------------------------------------------------------------------- */

/* A number cell: data-v is the value to sort by (9 digits: 100 rows add up),
 * the CSS aligns every td[data-v] to the right. */
static void pc_td_num(FILE *f, double v, const char *shown) {
  if (pc_has(v))
    fprintf(f, "<td data-v=\"%.9g\">%s</td>", v, shown);
  else
    fputs("<td data-v=\"\">-</td>", f);
}

/* A cell with a busiest unit: "fma 45.2%" sorted by its %. */
static void pc_td_unit(FILE *f, const pc_unit_load *u) {
  char buf[64];
  pc_td_num(f, u->name ? u->pct : PC_NULL, pc_unit_text(buf, sizeof buf, u));
}

static void pc_html_kernel_table(FILE *f, const pc_report *r, const pc_label *labels, const size_t *ord,
                                 const int *num) {
  char a[40];
  int regions = 0; /* a region column only when some entry ran in one */
  for (size_t i = 0; i < r->nkernels && !regions; i++) regions = r->kernels[i].region != NULL;
  fputs("<section id=\"kernels\">\n<h2>Kernels</h2>\n<p class=\"note\">Click a column to sort (#: the kernel's place among the verdicts; median: the median "
        "duration of the launches; total: their sum; share and rank: of the region's kernel time, of the export's offline; "
        "verdict: by step); a kernel's name leads to its five questions and metrics.  Busiest: the pipe and the "
        "memory level nearest their peak (step 2).</p>\n"
        "<table class=\"kernels\"><thead><tr><th data-sort=\"num\">#</th><th data-sort=\"text\">kernel</th>",
        f);
  if (regions) fputs("<th data-sort=\"text\">region</th>", f);
  fputs("<th data-sort=\"num\">launches</th><th data-sort=\"num\">median</th><th data-sort=\"num\">total</th>"
        "<th data-sort=\"num\">share</th><th data-sort=\"num\">rank</th><th data-sort=\"num\">FLOP/byte</th><th data-sort=\"num\">GFLOP/s</th>"
        "<th data-sort=\"num\">GB/s</th><th data-sort=\"num\">busiest pipe</th><th data-sort=\"num\">busiest "
        "memory</th><th data-sort=\"num\">verdict</th></tr></thead><tbody>\n",
        f);
  for (size_t j = 0; j < r->nkernels; j++) {
    const size_t i = ord[j];
    const pc_kernel *k = &r->kernels[i];
    fprintf(f, "<tr><td data-v=\"%d\">%d</td><td class=\"name\"><a href=\"#k%zu\">", num[i], num[i], i);
    pc_html_text(f, labels[i].text);
    fputs("</a></td>", f);
    if (regions) {
      fputs("<td>", f);
      pc_html_text(f, k->region ? k->region : "-");
      fputs("</td>", f);
    }
    fprintf(f, "<td data-v=\"%" PRIu64 "\">%" PRIu64 "</td>", k->launches, k->launches);
    pc_td_num(f, k->dur_median_ns, pc_words_ns(a, sizeof a, k->dur_median_ns));
    pc_td_num(f, k->total_ns, pc_words_ns(a, sizeof a, k->total_ns));
    char sh[40];
    snprintf(sh, sizeof sh, "%s%%", pc_html_num(a, sizeof a, k->time_share * 100));
    pc_td_num(f, k->time_share, pc_has(k->time_share) ? sh : "-");
    snprintf(sh, sizeof sh, "%d", k->rank);
    pc_td_num(f, k->rank > 0 ? k->rank : PC_NULL, k->rank > 0 ? sh : "-");
    pc_td_num(f, k->derived.arithmetic_intensity, pc_html_num(a, sizeof a, k->derived.arithmetic_intensity));
    pc_td_num(f, k->derived.gflops, pc_html_num(a, sizeof a, k->derived.gflops));
    pc_td_num(f, k->derived.dram_gbps, pc_html_num(a, sizeof a, k->derived.dram_gbps));
    pc_td_unit(f, &k->busiest_pipe);
    pc_td_unit(f, &k->busiest_memory);
    /* The verdict sorts by its step; its text is left-aligned (class t). */
    fprintf(f, "<td class=\"t\" data-v=\"%d\"><span class=\"sw\" style=\"background:%s\"></span>%d %s</td></tr>\n",
            k->diag.verdict.step, pc_html_cause_color(k->diag.verdict.cause), k->diag.verdict.step,
            perfcheck_cause_name(k->diag.verdict.cause));
  }
  fputs("</tbody></table>\n</section>\n", f);
}

/* A finding: its cause, and the metric, value and threshold that decided
 * it, each number in its metric's own unit (pc_words.h), then its advice. */
static void pc_html_evidence(FILE *f, const pc_finding *v) {
  char val[PC_METRIC_NAME_MAX + 200], thr[200];
  fprintf(f, "step %d <b>%s</b>", v->step, perfcheck_cause_name(v->cause));
  if (v->metric[0]) {
    fputs(": <span class=\"mono\">", f);
    pc_html_text(f, v->metric);
    pc_words_value(val, sizeof val, v->metric, v->value);
    fputs("</span>", f);
    pc_html_text(f, val + strlen(v->metric));
    pc_words_threshold(thr, sizeof thr, v->metric, v->threshold);
    if (thr[0]) {
      fputs(" (", f);
      pc_html_text(f, thr);
      fputs(")", f);
    }
  }
}

static void pc_html_finding(FILE *f, const pc_finding *v) {
  pc_html_evidence(f, v);
  if (v->advice[0]) {
    fputs(". ", f);
    pc_html_text(f, v->advice);
  }
}

/* A row of a metrics table (class m: the CSS sets the fonts; HTML lets the
 * closing tags go, which keeps 100 kernels' metrics small). */
static void pc_metric_row(FILE *f, const char *name, double v) {
  char buf[40];
  fputs("<tr><td>", f);
  pc_html_text(f, name);
  fprintf(f, "<td>%s\n", pc_has(v) ? (pc_fmt_double(buf, sizeof buf, v), buf) : "-");
}

/* everywhere[i]: metric i was measured for no kernel of the report (the
 * page says so once, not per kernel). */
static void pc_html_metrics(FILE *f, const pc_kernel *k, const unsigned char *everywhere) {
  const pc_metric_def *table = pc_metric_table();
  fputs("<details class=\"metrics\"><summary>metrics, derived values and launch attributes</summary>\n"
        "<table class=\"m\"><thead><tr><th>metric (as ncu spells it)</th><th>value</th></tr></thead><tbody>\n",
        f);
  size_t unmeasured = 0;
  for (int i = 0; i < PC_M_COUNT; i++) {
    if (pc_is_null(k->metric[i])) {
      unmeasured++;
      continue;
    }
    pc_metric_row(f, table[i].name, k->metric[i]);
    if (k->metric_via_substitute[i] && table[i].substitute) {
      fputs("<tr><td colspan=\"2\" class=\"note\">measured by ", f);
      pc_html_text(f, table[i].substitute);
      fputs("\n", f);
    }
  }
  for (size_t i = 0; i < k->nextra; i++)
    if (k->extra_names && k->extra_names[i]) pc_metric_row(f, k->extra_names[i], k->extra_values ? k->extra_values[i] : PC_NULL);
  fputs("</tbody></table>\n", f);
  size_t shared = 0;
  for (int i = 0; i < PC_M_COUNT; i++) shared += pc_is_null(k->metric[i]) && everywhere[i];
  if (unmeasured > shared) {
    fputs("<p class=\"why\">Not measured: ", f);
    size_t j = 0;
    for (int i = 0; i < PC_M_COUNT; i++)
      if (pc_is_null(k->metric[i]) && !everywhere[i]) {
        if (j++) fputs(", ", f);
        pc_html_text(f, table[i].name);
      }
    fprintf(f, "%s.</p>\n", shared ? "; and the metrics no kernel has (above the kernels)" : "");
  } else if (shared) {
    fputs("<p class=\"why\">Not measured: the metrics no kernel has (above the kernels).</p>\n", f);
  }
  if (k->not_measured_reason) {
    fputs("<p class=\"why\">", f);
    pc_html_text(f, k->not_measured_reason);
    fputs("</p>\n", f);
  }
  const pc_derived *d = &k->derived;
  const pc_attributes *a = &k->attr;
  fputs("<table class=\"m\"><thead><tr><th>derived and launch values</th><th>value</th></tr></thead><tbody>\n", f);
  const struct {
    const char *n;
    double v;
  } dv[] = {{"sectors_per_request_ld", d->sectors_per_request_ld},
            {"sectors_per_request_st", d->sectors_per_request_st},
            {"bytes_per_sector_ld", d->bytes_per_sector_ld},
            {"bytes_per_sector_st", d->bytes_per_sector_st},
            {"bytes_per_sector_ldgsts", d->bytes_per_sector_ldgsts},
            {"lanes_per_warp_max", d->lanes_per_warp_max},
            {"threads_per_instruction", d->threads_per_instruction},
            {"threads_per_instruction_pred_on", d->threads_per_instruction_pred_on},
            {"achieved_occupancy_pct", d->achieved_occupancy_pct},
            {"theoretical_occupancy_pct", d->theoretical_occupancy_pct},
            {"flops", d->flops},
            {"dram_bytes", d->dram_bytes},
            {"arithmetic_intensity", d->arithmetic_intensity},
            {"waves_per_sm", d->waves_per_sm},
            {"dram_gbps", d->dram_gbps},
            {"gflops", d->gflops},
            {"memory_pct", d->memory_pct},
            {"compute_pct", d->compute_pct},
            {"local_sectors", d->local_sectors},
            {"bank_conflict_share", d->bank_conflict_share},
            {"atomic_share", d->atomic_share},
            {"busiest_pipe.pct", k->busiest_pipe.pct},
            {"busiest_memory.pct", k->busiest_memory.pct},
            {"total_ns", k->total_ns},
            {"kernel_time_share", k->time_share},
            {"registers_per_thread", a->registers_per_thread},
            {"static_smem_bytes", a->static_smem},
            {"dynamic_smem_bytes", pc_has(a->dynamic_smem) ? a->dynamic_smem : k->dynamic_smem},
            {"local_bytes_per_thread", a->local_bytes_per_thread},
            {"blocks_per_sm", a->blocks_per_sm},
            {"warps_per_sm", a->warps_per_sm},
            {"occupancy_limit_registers", a->limit_registers},
            {"occupancy_limit_shared_mem", a->limit_shared_mem},
            {"occupancy_limit_warps", a->limit_warps},
            {"occupancy_limit_blocks", a->limit_blocks}};
  size_t nd = sizeof dv / sizeof dv[0], dmissing = 0;
  for (size_t i = 0; i < nd; i++) {
    if (pc_is_null(dv[i].v)) {
      dmissing++;
      continue;
    }
    fputs("<tr><td>", f);
    pc_html_text(f, dv[i].n);
    fprintf(f, "<td>%.9g\n", dv[i].v); /* derived: 9 digits are plenty (the JSON has all) */
  }
  fputs("</tbody></table>\n", f);
  if (dmissing) {
    fputs("<p class=\"why\">Not measured: ", f);
    for (size_t i = 0, j = 0; i < nd; i++)
      if (pc_is_null(dv[i].v)) fprintf(f, "%s%s", j++ ? ", " : "", dv[i].n);
    fputs(".</p>\n", f);
  }
  fprintf(f, "<p class=\"note\">grid %u x %u x %u, block %u x %u x %u; %d counter pass%s</p>\n",
          k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2], k->passes,
          k->passes == 1 ? "" : "es");
  fputs("</details>\n", f);
}

static void pc_html_kernel(FILE *f, const pc_report *r, const pc_kernel *k, size_t i, int num, const pc_label *label,
                           const unsigned char *everywhere) {
  const int worth = pc_kernel_worth_changing(k);
  fprintf(f, "<article id=\"k%zu\" data-num=\"%d\"%s>\n<h3>%d. ", i, num, worth == 0 ? " class=\"not-worth\"" : "", num);
  pc_html_text(f, label->text);
  if (k->library[0]) {
    fputs(" <span class=\"lib\">", f);
    pc_html_text(f, k->library);
    fputs("</span>", f);
  }
  fputs("</h3>\n", f);
  {
    char a[40], b[40], c[40], d[40], e[40];
    fputs("<p class=\"meta\">", f);
    if (pc_has(k->time_share))
      fprintf(f, "<b>%s%% of the %s kernel time</b>", pc_html_num(e, sizeof e, k->time_share * 100),
              k->time_share_from_timeline ? (k->region ? "region's" : "unregioned") : "export's");
    else
      fputs("<b>share of the kernel time unknown</b>", f);
    if (k->rank > 0) fprintf(f, " (rank %d)", k->rank);
    if (worth == 0) fputs(": <b>not worth changing</b> (under 1%; the verdict stands)", f);
    fprintf(f, "; %" PRIu64 " launch%s, duration min / median / max %s / %s / %s, total %s", k->launches,
            k->launches == 1 ? "" : "es", pc_words_ns(a, sizeof a, k->dur_min_ns), pc_words_ns(b, sizeof b, k->dur_median_ns),
            pc_words_ns(c, sizeof c, k->dur_max_ns), pc_words_ns(d, sizeof d, k->total_ns));
    if (k->region) {
      fputs("; region ", f);
      pc_html_text(f, k->region);
    }
    fputs(".</p>\n", f);
  }
  fputs("<div style=\"display:flex;flex-wrap:wrap;gap:10px;align-items:flex-start\">\n", f);
  pc_html_bands(f, r, k);
  fputs("<div style=\"flex:1;min-width:240px\"><p class=\"verdict\"><b>Verdict:</b> ", f);
  pc_html_evidence(f, &k->diag.verdict);
  fputs("</p>", f);
  const pc_diagnosis *dg = &k->diag;
  if (k->library[0] && dg->library_advice[0]) {
    fputs("<p class=\"advice\"><b>Advice:</b> ", f);
    pc_html_text(f, dg->library_advice);
    fputs("</p>", f);
    if (dg->verdict.advice[0]) {
      fputs("<p class=\"advice-inside\">Inside the kernel (for ", f);
      pc_html_text(f, k->library);
      fputs("'s authors): ", f);
      pc_html_text(f, dg->verdict.advice);
      fputs("</p>", f);
    }
  } else if (dg->verdict.advice[0]) {
    if (k->library[0]) {
      fputs("<p class=\"advice-inside\">Inside the kernel (for ", f);
      pc_html_text(f, k->library);
      fputs("'s authors; no change of the call is known): ", f);
    } else {
      fputs("<p class=\"advice\"><b>Advice:</b> ", f);
    }
    pc_html_text(f, dg->verdict.advice);
    fputs("</p>", f);
  }
  if (dg->borderline) {
    fprintf(f, "<p class=\"borderline\"><b>Borderline:</b> nudging one threshold by 5 points (10%% of a ratio) gives <b>%s</b> "
               "instead",
            perfcheck_cause_name(dg->runner_up));
    const char *m = NULL;
    double v = PC_NULL, t = PC_NULL;
    if (pc_runner_up_evidence(k, &r->device, &m, &v, &t) && m) {
      char val[PC_METRIC_NAME_MAX + 200], thr[200];
      pc_words_value(val, sizeof val, m, v);
      pc_words_threshold(thr, sizeof thr, m, t);
      fputs(": ", f);
      pc_html_text(f, val);
      if (thr[0]) {
        fputs(" (", f);
        pc_html_text(f, thr);
        fputs(")", f);
      }
    }
    fputs(".</p>", f);
  }
  if (pc_gain_known(&dg->gain)) {
    char a[40];
    fprintf(f, "<p class=\"gain\"><b>Estimated gain</b> (an estimate, not a measurement): %.3gx faster", dg->gain.speedup);
    if (pc_has(dg->gain.saved_ns)) fprintf(f, ", about %s saved", pc_words_ns(a, sizeof a, dg->gain.saved_ns));
    if (dg->gain.basis[0]) {
      fputs(": ", f);
      pc_html_text(f, dg->gain.basis);
    }
    fputs(".</p>", f);
  }
  char note[2048];
  if (pc_kernel_counters_note(k, note, sizeof note)) { /* the text report's "counters:" line */
    fputs("<p><b>Counters:</b> ", f);
    pc_html_text(f, note);
    fputs(".</p>", f);
    if (strncmp(k->replay, "rotate", 6) == 0 && k->rotation_note) {
      fputs("<p>Missing: ", f);
      pc_html_text_cut(f, k->rotation_note, 500);
      fputs("</p>", f);
    }
  }
  if (dg->stall.reason) {
    char sa[40], sb[40];
    fprintf(f, "<p>Warp stalls: <span class=\"mono\">%s</span> %s%% of stall cycles", dg->stall.reason,
            pc_html_num(sa, sizeof sa, dg->stall.share * 100));
    if (dg->stall.second)
      fprintf(f, ", then <span class=\"mono\">%s</span> %s%%", dg->stall.second,
              pc_html_num(sb, sizeof sb, dg->stall.second_share * 100));
    fputs(".</p>", f);
  }
  fprintf(f, "<p>Step 2's bound: %s.</p></div>\n</div>\n", perfcheck_bound_name(dg->bound));
  size_t nf = dg->nfindings < PC_MAX_FINDINGS ? dg->nfindings : PC_MAX_FINDINGS, shown = 0;
  for (size_t j = 0; j < nf; j++) {
    const pc_finding *fd = &dg->findings[j];
    /* Offline, step 1's "no wall clock" is the same for every kernel: the
     * header says it once. */
    if (!r->step1_assessed && fd->step == 1 && fd->cause == PERFCHECK_CAUSE_NOT_ASSESSED) continue;
    fputs(shown++ ? "<li>" : "<ul class=\"findings\">\n<li>", f);
    pc_html_finding(f, fd);
    fputs("</li>\n", f);
  }
  if (shown) fputs("</ul>\n", f);
  if (k->demangled && *k->demangled) {
    fputs("<p class=\"meta mono\">", f);
    pc_html_text(f, k->demangled);
    fputs("</p>\n", f);
  }
  pc_html_metrics(f, k, everywhere);
  fputs("</article>\n", f);
}

/* ---- The page --------------------------------------------------------------------- */

static void pc_html_header(FILE *f, const pc_report *r) {
  const pc_device *d = &r->device;
  char a[40], b[40], c[40];
  fputs("<header>\n<h1>perfcheck report</h1>\n<p class=\"meta\">", f);
  pc_html_text(f, d->name[0] ? d->name : "unknown device");
  if (d->cc_major >= 0) fprintf(f, ", compute capability %d.%d", d->cc_major, d->cc_minor);
  if (d->sm_count > 0) fprintf(f, ", %d SMs", d->sm_count);
  fputs("; source ", f);
  pc_html_text(f, r->source);
  fputs(", metric set ", f);
  pc_html_text(f, r->metric_set);
  if (r->passes > 0) fprintf(f, ", %d passes", r->passes);
  fprintf(f, "; perfcheck %s.  Ceilings: DRAM %s GB/s, FP32 %s GFLOP/s, ridge %s FLOP/byte (", PERFCHECK_VERSION_STRING,
          pc_html_num(a, sizeof a, pc_has(d->peak_dram_bytes_per_s) ? d->peak_dram_bytes_per_s / 1e9 : PC_NULL),
          pc_html_num(b, sizeof b, pc_has(d->peak_fp32_flop_per_s) ? d->peak_fp32_flop_per_s / 1e9 : PC_NULL),
          pc_html_num(c, sizeof c, d->ridge_flop_per_byte));
  pc_html_text(f, d->ceilings_source[0] ? d->ceilings_source : "source unknown");
  fprintf(f, ").  %zu kernel entr%s, %zu region%s.</p>\n", r->nkernels, r->nkernels == 1 ? "y" : "ies", r->nregions,
          r->nregions == 1 ? "" : "s");
  if (!r->step1_assessed)
    fputs("<p class=\"meta\">Step 1 (is the kernel the slow part?) is not assessed: an ncu export has no wall "
          "clock; the walk starts at step 2.</p>\n",
          f);
  fputs("<p class=\"meta\"><a href=\"#checklist\">verdicts</a> &middot; ", f);
  if (r->nwarnings) fprintf(f, "<a href=\"#warnings\">%zu warning%s</a> &middot; ", r->nwarnings, r->nwarnings == 1 ? "" : "s");
  fputs("<a href=\"#roofline\">roofline</a> &middot; <a href=\"#regions\">regions</a> &middot; "
        "<a href=\"#kernels\">kernels</a></p>\n</header>\n",
        f);
}

static void pc_html_warnings(FILE *f, const pc_report *r) {
  if (!r->nwarnings) return;
  fprintf(f, "<div class=\"warnings\" id=\"warnings\"><b>Warnings (%zu)</b><ul>\n", r->nwarnings);
  for (size_t i = 0; i < r->nwarnings; i++) {
    if (i == 5) fprintf(f, "</ul><details><summary>%zu more</summary><ul>\n", r->nwarnings - 5);
    fputs("<li>", f);
    pc_html_text(f, r->warnings[i]);
    fputs("</li>\n", f);
  }
  fputs(r->nwarnings > 5 ? "</ul></details></div>\n" : "</ul></div>\n", f);
}

/* The regions' step-1 verdicts, one line each, above the kernels'. */
static void pc_html_region_verdicts(FILE *f, const pc_report *r) {
  for (size_t i = 0; i < r->nregions; i++) {
    const pc_region *g = &r->regions[i];
    const pc_finding *v = &g->diag.verdict;
    if (v->step != 1 || v->cause == PERFCHECK_CAUSE_NONE) continue;
    fputs("<p class=\"region-verdict\"><b>Region ", f);
    pc_html_text(f, g->name);
    fputs(":</b> ", f);
    pc_html_finding(f, v);
    fputs(" <a href=\"#regions\">(regions)</a></p>\n", f);
  }
}

perfcheck_status pc_write_html(const pc_report *r, FILE *f, pc_err *err) {
  pc_err_clear(err);
  if (!r || !f) return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "pc_write_html: NULL argument");
  pc_locale_guard lg;
  pc_locale_begin(&lg);
  const size_t n = r->nkernels;
  pc_label *labels = calloc(n ? n : 1, sizeof *labels);
  pc_roof_point *pts = calloc(n ? n : 1, sizeof *pts);
  size_t *ord = malloc((n ? n : 1) * sizeof *ord);
  int *num = malloc((n ? n : 1) * sizeof *num);
  if (!labels || !pts || !ord || !num || pc_kernel_labels(r, labels) != 0 || pc_kernel_verdict_order(r, ord) != 0) {
    if (labels)
      for (size_t i = 0; i < n; i++) free(labels[i].text);
    free(labels);
    free(pts);
    free(ord);
    free(num);
    pc_locale_end(&lg);
    return pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "pc_write_html: out of memory");
  }
  for (size_t j = 0; j < n; j++) num[ord[j]] = (int)j + 1;
  char title[200];
  snprintf(title, sizeof title, "perfcheck: %s, %zu kernel%s", r->device.name[0] ? r->device.name : "unknown device",
           n, n == 1 ? "" : "s");
  pc_html_begin(f, title);
  pc_html_header(f, r);

  /* The verdicts first, the kernels that hold the most time first, each
   * with its five questions; those under 1% of their region's kernel time
   * after the others. */
  fputs("<section id=\"checklist\">\n<h2>Verdicts, the kernels that hold the most time first</h2>\n<p class=\"note\">"
        "Each kernel's five questions as a row of bands, each its step's number against its threshold (the "
        "README's table): <span class=\"sw\" style=\"background:#dcefdc\"></span>passes, <span class=\"sw\" "
        "style=\"background:#f9d6d5\"></span>catches, <span class=\"sw\" style=\"background:#ececec\"></span>not "
        "assessed; on a gauge the bar is the threshold, the dot the value and the diamond the second value (stores; "
        "compute; theoretical occupancy).  Hover a band for the metric as ncu spells it.</p>\n",
        f);
  pc_html_region_verdicts(f, r);
  if (n == 0) fputs("<p>No kernels.</p>\n", f);
  pc_html_band_defs(f);
  unsigned char everywhere[PC_M_COUNT];
  size_t neverywhere = 0;
  for (int m = 0; m < PC_M_COUNT; m++) {
    everywhere[m] = n > 0;
    for (size_t i = 0; i < n && everywhere[m]; i++) everywhere[m] = pc_is_null(r->kernels[i].metric[m]);
    neverywhere += everywhere[m];
  }
  int said_not_worth = 0;
  for (size_t j = 0; j < n; j++) {
    const size_t i = ord[j];
    if (!said_not_worth && pc_kernel_worth_changing(&r->kernels[i]) == 0) {
      said_not_worth = 1;
      fputs("<h3 class=\"not-worth-head\">Not worth changing: each of these takes under 1% of its region's kernel "
            "time (verdicts kept, for the record)</h3>\n",
            f);
    }
    pc_html_kernel(f, r, &r->kernels[i], i, num[i], &labels[i], everywhere);
  }
  if (neverywhere) {
    const pc_metric_def *table = pc_metric_table();
    fprintf(f, "<p class=\"why\">Not measured for any kernel (%zu metric%s): ", neverywhere, neverywhere == 1 ? "" : "s");
    size_t j = 0;
    for (int m = 0; m < PC_M_COUNT; m++)
      if (everywhere[m]) {
        if (j++) fputs(", ", f);
        pc_html_text(f, table[m].name);
      }
    fputs(".</p>\n", f);
  }
  fputs("</section>\n", f);

  pc_html_warnings(f, r);

  for (size_t i = 0; i < n; i++) {
    pc_roof_point_set(&pts[i], i, labels[i].text, &r->kernels[i]);
    pts[i].num = num[i];
  }
  int roof = pc_html_roofline(f, "roofline", &r->device, pts, n);

  fputs("<section id=\"regions\">\n<h2>Regions: is the kernel the slow part? (step 1)</h2>\n", f);
  if (r->nregions == 0)
    fprintf(f, "<p class=\"why\">No regions%s: step 1 is not assessed.</p>\n",
            r->step1_assessed ? "" : " (an ncu export has no wall clock)");
  for (size_t i = 0; i < r->nregions; i++) pc_html_region(f, &r->regions[i]);
  fputs("</section>\n", f);

  pc_html_kernel_table(f, r, labels, ord, num);
  pc_html_end(f);

  for (size_t i = 0; i < n; i++) free(labels[i].text);
  free(labels);
  free(pts);
  free(ord);
  free(num);
  pc_locale_end(&lg);
  if (roof != 0) return pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "pc_write_html: out of memory");
  if (fflush(f) != 0 || ferror(f)) return pc_err_set(err, PERFCHECK_ERROR_IO, "writing the HTML report failed");
  return PERFCHECK_OK;
}
