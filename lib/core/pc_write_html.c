/* The HTML report: one self-contained page (pc_html.h says how it is drawn).
 *
 *   the device and its ceilings, the report's warnings
 *   the roofline: one point per kernel with measured intensity and FLOP/s
 *   per region: the wall clock split into kernel busy time, copies and the
 *     rest, with the step-1 verdict
 *   the kernel table, sortable, each name a link to its kernel
 *   per kernel: the five questions as a row of bands (seed 000's diagram),
 *     each its step's number against its threshold (pc_thresholds): green
 *     passes, red catches, grey not assessed; the verdict and advice beside
 *     it; every metric one click away
 *
 * Nothing unmeasured is drawn or printed as a number: it is "-", or the
 * legend says why it is missing. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pc_core.h"
#include "pc_fmt.h"
#include "pc_html.h"

/* ---- The five bands ---------------------------------------------------------- */

enum { PC_BAND_PASS = 0, PC_BAND_CATCH = 1, PC_BAND_NA = 2 };

typedef struct pc_band {
  int step;
  int state;
  char value[64];     /* the step's number ("sectors/req ld 32.0") */
  char decision[64];  /* against its threshold ("> 4: uncoalesced loads") */
  char detail[PC_ADVICE_MAX + PC_METRIC_NAME_MAX + 96]; /* hover: metric, value, threshold, advice */
  /* A linear gauge [lo, hi] with the threshold tick and one or two marks; off
   * when `on` is 0 or a value is unknown. */
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

/* Is `c` a cause that step `step` catches (a finding of that step, not a
 * missing input)? */
static int pc_is_catch(int step, perfcheck_cause c) {
  switch (step) {
    case 1: return c == PERFCHECK_CAUSE_NOT_THE_SLOW_PART || c == PERFCHECK_CAUSE_LAUNCH_OVERHEAD;
    case 3:
      return c == PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS || c == PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_STORES ||
             c == PERFCHECK_CAUSE_LOCAL_MEMORY_SPILLS || c == PERFCHECK_CAUSE_SHARED_BANK_CONFLICTS ||
             c == PERFCHECK_CAUSE_ATOMIC_CONTENTION;
    case 4: return c == PERFCHECK_CAUSE_DIVERGENT_WARPS;
    case 5:
      return c == PERFCHECK_CAUSE_OCCUPANCY_REGISTERS || c == PERFCHECK_CAUSE_OCCUPANCY_SHARED_MEMORY ||
             c == PERFCHECK_CAUSE_OCCUPANCY_WARPS || c == PERFCHECK_CAUSE_OCCUPANCY_BLOCKS ||
             c == PERFCHECK_CAUSE_GRID_TOO_SMALL;
    default: return 0;
  }
}

/* The verdict, or else the first finding, that step `step` caught; NULL if
 * none.  *missing is set when that step has an input that was not measured. */
static const pc_finding *pc_step_finding(const pc_diagnosis *dg, int step, int *missing) {
  *missing = 0;
  const pc_finding *hit = NULL;
  if (dg->verdict.step == step) {
    if (pc_is_catch(step, dg->verdict.cause)) hit = &dg->verdict;
    if (dg->verdict.cause == PERFCHECK_CAUSE_NOT_ASSESSED) *missing = 1;
  }
  size_t nf = dg->nfindings < PC_MAX_FINDINGS ? dg->nfindings : PC_MAX_FINDINGS;
  for (size_t i = 0; i < nf; i++) {
    const pc_finding *f = &dg->findings[i];
    if (f->step != step) continue;
    if (!hit && pc_is_catch(step, f->cause)) hit = f;
    if (f->cause == PERFCHECK_CAUSE_NOT_ASSESSED) *missing = 1;
  }
  return hit;
}

/* The hover text of a band that caught: the metric as ncu spells it (the
 * advice is in the verdict and findings beside the bands). */
static void pc_band_detail(pc_band *b, const pc_finding *f) {
  char v[48], t[48];
  snprintf(b->detail, sizeof b->detail, "%s = %s (threshold %s)", f->metric[0] ? f->metric : "-",
           pc_html_num(v, sizeof v, f->value), pc_html_num(t, sizeof t, f->threshold));
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

static void pc_band_step1(pc_band *b, const pc_report *r, const pc_region *g) {
  char v[48], t[48];
  const double min_share = pc_t("kernel_share_min");
  if (!r->step1_assessed || !g) {
    b->state = PC_BAND_NA;
    snprintf(b->value, sizeof b->value, "%s", r->step1_assessed ? "outside any region" : "no wall clock");
    snprintf(b->decision, sizeof b->decision, "not assessed");
    snprintf(b->detail, sizeof b->detail, "%s",
             r->step1_assessed ? "The kernel ran outside every region: no wall clock to compare it with."
                               : "An ncu export has no wall clock: step 1 is not assessed (time the program with "
                                 "a perfcheck region or Nsight Systems).");
    return;
  }
  const pc_finding *vd = &g->diag.verdict;
  if (vd->step == 1 && vd->cause == PERFCHECK_CAUSE_LAUNCH_OVERHEAD) {
    b->state = PC_BAND_CATCH;
    snprintf(b->value, sizeof b->value, "idle+short %s%% of wall", pc_html_num(v, sizeof v, vd->value * 100));
    snprintf(b->decision, sizeof b->decision, "> %s%%: launch overhead", pc_html_num(t, sizeof t, vd->threshold * 100));
    pc_band_gauge(b, 0, 100, vd->threshold * 100, vd->value * 100, PC_NULL);
    pc_band_detail(b, vd);
    return;
  }
  if (vd->cause == PERFCHECK_CAUSE_NOT_ASSESSED || pc_is_null(g->kernel_share)) {
    b->state = PC_BAND_NA;
    snprintf(b->value, sizeof b->value, "kernels - of wall");
    snprintf(b->decision, sizeof b->decision, "not assessed");
    snprintf(b->detail, sizeof b->detail, "%s", vd->advice[0] ? vd->advice : "The region has no wall clock.");
    return;
  }
  const double share = g->kernel_share * 100;
  snprintf(b->value, sizeof b->value, "kernels %s%% of wall", pc_html_num(v, sizeof v, share));
  pc_band_gauge(b, 0, 100, min_share * 100, share, PC_NULL);
  if (vd->step == 1 && vd->cause == PERFCHECK_CAUSE_NOT_THE_SLOW_PART) {
    b->state = PC_BAND_CATCH;
    snprintf(b->decision, sizeof b->decision, "< %s%%: not the slow part", pc_html_num(t, sizeof t, min_share * 100));
    pc_band_detail(b, vd);
  } else {
    b->state = PC_BAND_PASS;
    snprintf(b->decision, sizeof b->decision, "\xE2\x89\xA5 %s%%: passes", pc_html_num(t, sizeof t, min_share * 100));
    snprintf(b->detail, sizeof b->detail, "kernel_ns / wall_ns = %s of region %s (threshold %s).",
             pc_html_num(v, sizeof v, g->kernel_share), g->name ? g->name : "", pc_html_num(t, sizeof t, min_share));
  }
}

static void pc_band_step2(pc_band *b, const pc_kernel *k, const pc_device *d) {
  char m[32], c[32], t[32];
  const double mem = k->derived.memory_pct, comp = k->derived.compute_pct, hi = pc_t("ceiling_high_pct");
  const perfcheck_bound bound = k->diag.bound;
  snprintf(b->value, sizeof b->value, "mem %s%% comp %s%%", pc_html_num(m, sizeof m, mem), pc_html_num(c, sizeof c, comp));
  pc_band_gauge(b, 0, 100, hi, mem, comp);
  if (bound == PERFCHECK_BOUND_UNKNOWN) {
    b->state = PC_BAND_NA;
    snprintf(b->decision, sizeof b->decision, "not assessed");
    snprintf(b->detail, sizeof b->detail, "Neither throughput percentage nor the roofline (intensity and ridge) "
                                          "was measured.");
    return;
  }
  b->state = PC_BAND_PASS;
  if (pc_has(mem) || pc_has(comp)) {
    if (bound == PERFCHECK_BOUND_LATENCY)
      snprintf(b->decision, sizeof b->decision, "both < %s%%: latency", pc_html_num(t, sizeof t, hi));
    else
      snprintf(b->decision, sizeof b->decision, "\xE2\x89\xA5 %s%%: %s", pc_html_num(t, sizeof t, hi),
               perfcheck_bound_name(bound));
    snprintf(b->detail, sizeof b->detail,
             "Memory throughput %s%% and compute throughput %s%% of peak (the largest measured of each); %s%% or "
             "more names the bound: %s.",
             m, c, t, perfcheck_bound_name(bound));
  } else {
    b->on = 0;
    snprintf(b->value, sizeof b->value, "FLOP/byte %s", pc_html_num(m, sizeof m, k->derived.arithmetic_intensity));
    snprintf(b->decision, sizeof b->decision, "%s ridge %s: %s", bound == PERFCHECK_BOUND_MEMORY ? "<" : "\xE2\x89\xA5",
             pc_html_num(c, sizeof c, d->ridge_flop_per_byte), perfcheck_bound_name(bound));
    snprintf(b->detail, sizeof b->detail,
             "No throughput percentage was measured: arithmetic intensity %s against the ridge point %s FLOP/byte "
             "says %s.",
             m, c, perfcheck_bound_name(bound));
  }
}

static void pc_band_step3(pc_band *b, const pc_kernel *k, int runs) {
  char v[32], w[32], t[32];
  const pc_derived *dv = &k->derived;
  const double spr_max = pc_t("sectors_per_request_max");
  if (!runs) {
    b->state = PC_BAND_NA;
    snprintf(b->value, sizeof b->value, "ld %s st %s", pc_html_num(v, sizeof v, dv->sectors_per_request_ld),
             pc_html_num(w, sizeof w, dv->sectors_per_request_st));
    snprintf(b->decision, sizeof b->decision, "skipped: %s bound", perfcheck_bound_name(k->diag.bound));
    snprintf(b->detail, sizeof b->detail, "Step 2 sent the walk to the compute side: step 3 was not run.");
    return;
  }
  int missing;
  const pc_finding *f = pc_step_finding(&k->diag, 3, &missing);
  if (f) {
    b->state = PC_BAND_CATCH;
    pc_band_detail(b, f);
    switch (f->cause) {
      case PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS:
      case PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_STORES: {
        int ld = f->cause == PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS;
        snprintf(b->value, sizeof b->value, "sectors/req %s %s", ld ? "ld" : "st", pc_html_num(v, sizeof v, f->value));
        snprintf(b->decision, sizeof b->decision, "> %s: uncoalesced %s", pc_html_num(t, sizeof t, f->threshold),
                 ld ? "loads" : "stores");
        pc_band_gauge(b, 0, 32, f->threshold, f->value, PC_NULL);
        break;
      }
      case PERFCHECK_CAUSE_LOCAL_MEMORY_SPILLS:
        snprintf(b->value, sizeof b->value, "local sectors %s", pc_html_num(v, sizeof v, f->value));
        snprintf(b->decision, sizeof b->decision, "> %s: local memory", pc_html_num(t, sizeof t, f->threshold));
        break;
      case PERFCHECK_CAUSE_SHARED_BANK_CONFLICTS:
        snprintf(b->value, sizeof b->value, "bank conflicts %s", pc_html_num(v, sizeof v, f->value));
        snprintf(b->decision, sizeof b->decision, "> %s: bank conflicts", pc_html_num(t, sizeof t, f->threshold));
        pc_band_gauge(b, 0, 1, f->threshold, fmin(f->value, 1), PC_NULL);
        break;
      default:
        snprintf(b->value, sizeof b->value, "atomic share %s", pc_html_num(v, sizeof v, f->value));
        snprintf(b->decision, sizeof b->decision, "> %s: atomics", pc_html_num(t, sizeof t, f->threshold));
        pc_band_gauge(b, 0, 1, f->threshold, fmin(f->value, 1), PC_NULL);
        break;
    }
    return;
  }
  snprintf(b->value, sizeof b->value, "sectors/req %s %s", pc_html_num(v, sizeof v, dv->sectors_per_request_ld),
           pc_html_num(w, sizeof w, dv->sectors_per_request_st));
  pc_band_gauge(b, 0, 32, spr_max, dv->sectors_per_request_ld, dv->sectors_per_request_st);
  if (missing) {
    b->state = PC_BAND_NA;
    snprintf(b->decision, sizeof b->decision, "not measured");
    snprintf(b->detail, sizeof b->detail, "An input of step 3 was not measured (the findings name it).");
  } else {
    b->state = PC_BAND_PASS;
    snprintf(b->decision, sizeof b->decision, "\xE2\x89\xA4 %s: passes", pc_html_num(t, sizeof t, spr_max));
    snprintf(b->detail, sizeof b->detail,
             "Global load / store sectors per request %s / %s (threshold %s); local memory, bank conflicts and "
             "atomics below their thresholds.",
             v, w, t);
  }
}

static void pc_band_step4(pc_band *b, const pc_kernel *k, int runs) {
  char v[32], t[32];
  const double tpi = k->derived.threads_per_instruction, min = pc_t("threads_per_instruction_min");
  snprintf(b->value, sizeof b->value, "threads/inst %s", pc_html_num(v, sizeof v, tpi));
  pc_band_gauge(b, 0, 32, min, tpi, PC_NULL);
  if (!runs) {
    b->state = PC_BAND_NA;
    snprintf(b->decision, sizeof b->decision, "skipped: %s bound", perfcheck_bound_name(k->diag.bound));
    snprintf(b->detail, sizeof b->detail, "Step 2 sent the walk to the memory side: step 4 was not run.");
    return;
  }
  int missing;
  const pc_finding *f = pc_step_finding(&k->diag, 4, &missing);
  if (f) {
    b->state = PC_BAND_CATCH;
    int pred = strstr(f->metric, "pred_on") != NULL;
    snprintf(b->value, sizeof b->value, "%s %s", pred ? "pred-on thr/inst" : "threads/inst",
             pc_html_num(v, sizeof v, f->value));
    snprintf(b->decision, sizeof b->decision, "< %s: divergent warps", pc_html_num(t, sizeof t, f->threshold));
    pc_band_gauge(b, 0, 32, f->threshold, f->value, PC_NULL);
    pc_band_detail(b, f);
  } else if (missing || pc_is_null(tpi)) {
    b->state = PC_BAND_NA;
    snprintf(b->decision, sizeof b->decision, "not measured");
    snprintf(b->detail, sizeof b->detail, "smsp__average_thread_inst_executed_per_inst_executed.ratio was not measured.");
  } else {
    b->state = PC_BAND_PASS;
    snprintf(b->decision, sizeof b->decision, "\xE2\x89\xA5 %s: passes", pc_html_num(t, sizeof t, min));
    snprintf(b->detail, sizeof b->detail, "%s threads per executed instruction of 32 (threshold %s).", v, t);
  }
}

static void pc_band_step5(pc_band *b, const pc_kernel *k) {
  char v[32], w[32], t[32];
  const double ach = k->derived.achieved_occupancy_pct, theo = k->derived.theoretical_occupancy_pct;
  const double low = pc_t("achieved_occupancy_low_pct");
  int missing;
  const pc_finding *f = pc_step_finding(&k->diag, 5, &missing);
  if (f) {
    b->state = PC_BAND_CATCH;
    pc_band_detail(b, f);
    if (f->cause == PERFCHECK_CAUSE_GRID_TOO_SMALL) {
      snprintf(b->value, sizeof b->value, "waves/SM %s", pc_html_num(v, sizeof v, f->value));
      snprintf(b->decision, sizeof b->decision, "< %s: grid too small", pc_html_num(t, sizeof t, f->threshold));
      pc_band_gauge(b, 0, 2, f->threshold, fmin(f->value, 2), PC_NULL);
    } else if (strcmp(f->metric, "launch__block_size") == 0) {
      snprintf(b->value, sizeof b->value, "block size %s", pc_html_num(v, sizeof v, f->value));
      snprintf(b->decision, sizeof b->decision, "not a multiple of %s", pc_html_num(t, sizeof t, f->threshold));
    } else {
      snprintf(b->value, sizeof b->value, "achieved %s%% of %s%%", pc_html_num(v, sizeof v, f->value),
               pc_html_num(w, sizeof w, theo));
      snprintf(b->decision, sizeof b->decision, "< %s%%: %s", pc_html_num(t, sizeof t, f->threshold),
               pc_limiter_words(f->cause));
      pc_band_gauge(b, 0, 100, f->threshold, f->value, theo);
    }
    return;
  }
  snprintf(b->value, sizeof b->value, "achieved %s%% of %s%%", pc_html_num(v, sizeof v, ach), pc_html_num(w, sizeof w, theo));
  pc_band_gauge(b, 0, 100, low, ach, theo);
  if (missing) {
    b->state = PC_BAND_NA;
    snprintf(b->decision, sizeof b->decision, "not measured");
    snprintf(b->detail, sizeof b->detail, "An input of step 5 was not measured (the findings name it).");
  } else {
    b->state = PC_BAND_PASS;
    snprintf(b->decision, sizeof b->decision, "passes");
    snprintf(b->detail, sizeof b->detail,
             "Achieved occupancy %s%% of a theoretical %s%% (threshold %s%% when a resource limits it); the grid "
             "fills at least one wave.",
             v, w, pc_html_num(t, sizeof t, low));
  }
}

#define PC_BAND_W 172.0
#define PC_BAND_H 72.0
#define PC_BAND_GAP 6.0

static double pc_gauge_x(const pc_band *b, double x0, double w, double v) {
  double t = (v - b->lo) / (b->hi - b->lo);
  if (t < 0) t = 0;
  if (t > 1) t = 1;
  return x0 + t * w;
}

static void pc_band_svg(FILE *f, const pc_band *b, double x) {
  static const char *const cls[3] = {"pass", "catch", "na"};
  static const char *const word[3] = {"passes", "catches", "not assessed"};
  const size_t chars = pc_html_chars_for(PC_BAND_W - 10);
  fprintf(f, "<g class=\"band box %s\" data-step=\"%d\" data-state=\"%s\"><title>step %d %s: ", cls[b->state], b->step,
          word[b->state], b->step, word[b->state]);
  pc_html_text(f, b->detail);
  fprintf(f, "</title><rect class=\"b\" x=\"%.1f\" y=\"0.5\" width=\"%.1f\" height=\"%.1f\" rx=\"3\"/>", x, PC_BAND_W,
          PC_BAND_H - 1);
  fprintf(f, "<text x=\"%.1f\" y=\"14\" font-weight=\"bold\">", x + 5);
  pc_html_text_cut(f, pc_band_question[b->step], chars);
  fprintf(f, "</text><text x=\"%.1f\" y=\"30\">", x + 5);
  pc_html_text_cut(f, b->value, chars);
  fprintf(f, "</text><text x=\"%.1f\" y=\"45\">", x + 5);
  pc_html_text_cut(f, b->decision, chars);
  fputs("</text>", f);
  if (b->on) {
    const double gx = x + 6, gw = PC_BAND_W - 12, gy = 53, gh = 8;
    fprintf(f, "<rect class=\"gauge\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>", gx, gy, gw, gh);
    double tx = pc_gauge_x(b, gx, gw, b->thr);
    fprintf(f, "<line class=\"tick\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", tx, gy - 3, tx, gy + gh + 3);
    if (pc_has(b->v2)) /* the second value: a hollow diamond */
      fprintf(f, "<path d=\"M%.1f %.1fl4 4l-4 4l-4 -4z\" fill=\"none\" stroke=\"#222\"/>", pc_gauge_x(b, gx, gw, b->v2),
              gy);
    if (pc_has(b->v1))
      fprintf(f, "<circle class=\"mark\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.2\"/>", pc_gauge_x(b, gx, gw, b->v1), gy + gh / 2);
  }
  fputs("</g>\n", f);
}

/* The region a kernel's step 1 comes from: the first of its name, as
 * pc_checklist_report takes it. */
static const pc_region *pc_kernel_region(const pc_report *r, const pc_kernel *k) {
  if (!r->step1_assessed || !k->region) return NULL;
  for (size_t j = 0; j < r->nregions; j++)
    if (r->regions[j].name && strcmp(r->regions[j].name, k->region) == 0) return &r->regions[j];
  return NULL;
}

static void pc_html_bands(FILE *f, const pc_report *r, const pc_kernel *k) {
  pc_band b[5];
  memset(b, 0, sizeof b);
  for (int i = 0; i < 5; i++) b[i].step = i + 1, b[i].v1 = b[i].v2 = b[i].thr = PC_NULL;
  int mem_side, comp_side;
  pc_checklist_sides(k, &r->device, &mem_side, &comp_side);
  pc_band_step1(&b[0], r, pc_kernel_region(r, k));
  pc_band_step2(&b[1], k, &r->device);
  pc_band_step3(&b[2], k, mem_side);
  pc_band_step4(&b[3], k, comp_side);
  pc_band_step5(&b[4], k);
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
          cls, x, w, PC_TL_H - 4, what, pc_html_ns(a, sizeof a, ns), pc_html_num(p, sizeof p, ns / wall * 100));
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
            pc_html_ns(a, sizeof a, g->kernel_ns), pc_html_num(b, sizeof b, g->kernel_share * 100),
            pc_html_ns(c, sizeof c, copies), pc_html_ns(d, sizeof d, rest), pc_html_ns(e, sizeof e, wall), g->launches,
            g->launches == 1 ? "" : "es");
    if (pc_has(g->gpu_idle_ns)) fprintf(f, "; gaps between kernels %s", pc_html_ns(a, sizeof a, g->gpu_idle_ns));
    if (copies > copies_drawn + 0.5)
      fprintf(f, "; copies overlapping kernels %s (not drawn twice)", pc_html_ns(a, sizeof a, copies - copies_drawn));
    if (g->dropped_records) fprintf(f, "; %" PRIu64 " activity records dropped", g->dropped_records);
    fputs(".</p>\n", f);
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

static void pc_td_num(FILE *f, double v, const char *shown) {
  char buf[40];
  if (pc_has(v)) {
    pc_fmt_double(buf, sizeof buf, v);
    fprintf(f, "<td class=\"n\" data-v=\"%s\">%s</td>", buf, shown);
  } else {
    fputs("<td class=\"n\" data-v=\"\">-</td>", f);
  }
}

static void pc_html_kernel_table(FILE *f, const pc_report *r, const pc_label *labels) {
  char a[40];
  fputs("<section id=\"kernels\">\n<h2>Kernels</h2>\n<p class=\"note\">Click a column to sort (time: the median "
        "duration of the launches); a kernel's name leads to its five questions and metrics.</p>\n"
        "<table class=\"kernels\"><thead><tr><th data-sort=\"num\">#</th><th data-sort=\"text\">kernel</th>"
        "<th data-sort=\"text\">region</th><th data-sort=\"num\">launches</th><th data-sort=\"num\">median</th>"
        "<th data-sort=\"num\">min</th><th data-sort=\"num\">max</th><th data-sort=\"num\">FLOP/byte</th>"
        "<th data-sort=\"num\">GFLOP/s</th><th data-sort=\"num\">GB/s</th><th data-sort=\"num\">step</th>"
        "<th data-sort=\"text\">verdict</th></tr></thead><tbody>\n",
        f);
  for (size_t i = 0; i < r->nkernels; i++) {
    const pc_kernel *k = &r->kernels[i];
    fprintf(f, "<tr><td class=\"n\" data-v=\"%zu\">%zu</td><td class=\"name\"><a href=\"#k%zu\">", i, i + 1, i);
    pc_html_text(f, labels[i].text);
    fputs("</a></td><td>", f);
    pc_html_text(f, k->region ? k->region : "-");
    fprintf(f, "</td><td class=\"n\" data-v=\"%" PRIu64 "\">%" PRIu64 "</td>", k->launches, k->launches);
    pc_td_num(f, k->dur_median_ns, pc_html_ns(a, sizeof a, k->dur_median_ns));
    pc_td_num(f, k->dur_min_ns, pc_html_ns(a, sizeof a, k->dur_min_ns));
    pc_td_num(f, k->dur_max_ns, pc_html_ns(a, sizeof a, k->dur_max_ns));
    pc_td_num(f, k->derived.arithmetic_intensity, pc_html_num(a, sizeof a, k->derived.arithmetic_intensity));
    pc_td_num(f, k->derived.gflops, pc_html_num(a, sizeof a, k->derived.gflops));
    pc_td_num(f, k->derived.dram_gbps, pc_html_num(a, sizeof a, k->derived.dram_gbps));
    fprintf(f, "<td class=\"n\" data-v=\"%d\">%d</td><td><span class=\"sw\" style=\"background:%s\"></span>%s</td></tr>\n",
            k->diag.verdict.step, k->diag.verdict.step, pc_html_cause_color(k->diag.verdict.cause),
            perfcheck_cause_name(k->diag.verdict.cause));
  }
  fputs("</tbody></table>\n</section>\n", f);
}

static void pc_html_finding(FILE *f, const pc_finding *v) {
  char a[40], b[40];
  fprintf(f, "step %d <b>%s</b>", v->step, perfcheck_cause_name(v->cause));
  if (v->metric[0]) {
    fputs(": <span class=\"mono\">", f);
    pc_html_text(f, v->metric);
    fprintf(f, "</span> = %s", pc_html_num(a, sizeof a, v->value));
    if (pc_has(v->threshold)) fprintf(f, " (threshold %s)", pc_html_num(b, sizeof b, v->threshold));
  }
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

static void pc_html_metrics(FILE *f, const pc_kernel *k) {
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
  if (unmeasured) {
    fputs("<p class=\"why\">Not measured: ", f);
    size_t j = 0;
    for (int i = 0; i < PC_M_COUNT; i++)
      if (pc_is_null(k->metric[i])) {
        if (j++) fputs(", ", f);
        pc_html_text(f, table[i].name);
      }
    fputs(".</p>\n", f);
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
  for (size_t i = 0; i < sizeof dv / sizeof dv[0]; i++) pc_metric_row(f, dv[i].n, dv[i].v);
  fprintf(f, "</tbody></table>\n<p class=\"note\">grid %u x %u x %u, block %u x %u x %u; %d counter pass%s</p>\n",
          k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2], k->passes,
          k->passes == 1 ? "" : "es");
  fputs("</details>\n", f);
}

static void pc_html_kernel(FILE *f, const pc_report *r, const pc_kernel *k, size_t i, const pc_label *label) {
  fprintf(f, "<article id=\"k%zu\">\n<h3>%zu. ", i, i + 1);
  pc_html_text(f, label->text);
  fputs("</h3>\n<div style=\"display:flex;flex-wrap:wrap;gap:10px;align-items:flex-start\">\n", f);
  pc_html_bands(f, r, k);
  fputs("<div style=\"flex:1;min-width:240px\"><p><b>Verdict:</b> ", f);
  pc_html_finding(f, &k->diag.verdict);
  fprintf(f, "</p><p>Step 2's bound: %s.</p></div>\n</div>\n", perfcheck_bound_name(k->diag.bound));
  size_t nf = k->diag.nfindings < PC_MAX_FINDINGS ? k->diag.nfindings : PC_MAX_FINDINGS;
  if (nf) {
    fputs("<ul class=\"findings\">\n", f);
    for (size_t j = 0; j < nf; j++) {
      fputs("<li>", f);
      pc_html_finding(f, &k->diag.findings[j]);
      fputs("</li>\n", f);
    }
    fputs("</ul>\n", f);
  }
  pc_html_metrics(f, k);
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
  fprintf(f, "; perfcheck %s.</p>\n", PERFCHECK_VERSION_STRING);
  fprintf(f, "<p class=\"meta\">Ceilings: DRAM %s GB/s, FP32 %s GFLOP/s, ridge %s FLOP/byte (",
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
  fputs("<p class=\"meta\"><a href=\"#roofline\">roofline</a> &middot; <a href=\"#regions\">regions</a> &middot; "
        "<a href=\"#kernels\">kernels</a> &middot; <a href=\"#checklist\">the five questions</a></p>\n</header>\n",
        f);
  if (r->nwarnings) {
    fprintf(f, "<div class=\"warnings\"><b>Warnings (%zu)</b><ul>\n", r->nwarnings);
    for (size_t i = 0; i < r->nwarnings; i++) {
      if (i == 5) fprintf(f, "</ul><details><summary>%zu more</summary><ul>\n", r->nwarnings - 5);
      fputs("<li>", f);
      pc_html_text(f, r->warnings[i]);
      fputs("</li>\n", f);
    }
    fputs(r->nwarnings > 5 ? "</ul></details></div>\n" : "</ul></div>\n", f);
  }
}

perfcheck_status pc_write_html(const pc_report *r, FILE *f) {
  if (!r || !f) return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "pc_write_html: NULL argument");
  pc_locale_guard lg;
  pc_locale_begin(&lg);
  const size_t n = r->nkernels;
  pc_label *labels = calloc(n ? n : 1, sizeof *labels);
  pc_roof_point *pts = calloc(n ? n : 1, sizeof *pts);
  if (!labels || !pts || pc_kernel_labels(r, labels) != 0) {
    free(labels);
    free(pts);
    pc_locale_end(&lg);
    return pc_fail(PERFCHECK_ERROR_OUT_OF_MEMORY, "pc_write_html: out of memory");
  }
  char title[200];
  snprintf(title, sizeof title, "perfcheck: %s, %zu kernel%s", r->device.name[0] ? r->device.name : "unknown device",
           n, n == 1 ? "" : "s");
  pc_html_begin(f, title);
  pc_html_header(f, r);

  for (size_t i = 0; i < n; i++) pc_roof_point_set(&pts[i], i, labels[i].text, &r->kernels[i]);
  int roof = pc_html_roofline(f, "roofline", &r->device, pts, n);

  fputs("<section id=\"regions\">\n<h2>Regions: is the kernel the slow part? (step 1)</h2>\n", f);
  if (r->nregions == 0)
    fprintf(f, "<p class=\"why\">No regions%s: step 1 is not assessed.</p>\n",
            r->step1_assessed ? "" : " (an ncu export has no wall clock)");
  for (size_t i = 0; i < r->nregions; i++) pc_html_region(f, &r->regions[i]);
  fputs("</section>\n", f);

  pc_html_kernel_table(f, r, labels);

  fputs("<section id=\"checklist\">\n<h2>The five questions, per kernel</h2>\n<p class=\"note\">Each band holds its "
        "step's number against its threshold (the README's table): <span class=\"sw\" style=\"background:#dcefdc\">"
        "</span>passes, <span class=\"sw\" style=\"background:#f9d6d5\"></span>catches, <span class=\"sw\" "
        "style=\"background:#ececec\"></span>not assessed.  On a gauge the bar is the threshold, the dot the value "
        "and the diamond the second value (stores; compute; theoretical occupancy).  Hover a band for the metric "
        "as ncu spells it.</p>\n",
        f);
  if (n == 0) fputs("<p>No kernels.</p>\n", f);
  for (size_t i = 0; i < n; i++) pc_html_kernel(f, r, &r->kernels[i], i, &labels[i]);
  fputs("</section>\n", f);
  pc_html_end(f);

  for (size_t i = 0; i < n; i++) free(labels[i].text);
  free(labels);
  free(pts);
  pc_locale_end(&lg);
  if (roof != 0) return pc_fail(PERFCHECK_ERROR_OUT_OF_MEMORY, "pc_write_html: out of memory");
  if (fflush(f) != 0 || ferror(f)) return pc_fail(PERFCHECK_ERROR_IO, "writing the HTML report failed");
  return PERFCHECK_OK;
}
