/* The text report, in the layout of the checklist page (seed 000): what the
 * launch configuration decides, what the kernels did, the three numbers the
 * checklist steps read, the regions, then one verdict line per kernel.
 * A value that was not measured prints as "-", never as a number. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/pc_core.h"
#include "base/pc_fmt.h"
#include "base/pc_hash.h"
#include "write/pc_words.h"
#include "write/pc_write.h"

#define PC_TEXT_NAME_MIN 26 /* the seed's kernel column */
#define PC_TEXT_NAME_MAX 60 /* longer labels are cut with "..." in the tables */


static int pc_str_eq(const char *a, const char *b) {
  if (!a || !b) return a == b;
  return strcmp(a, b) == 0;
}

static int pc_same_double(double a, double b) {
  return (isnan(a) && isnan(b)) || a == b;
}

typedef struct pc_name_index {
  const char *name;
  size_t index;
} pc_name_index;

static int pc_cmp_name_index(const void *x, const void *y) {
  const pc_name_index *a = x, *b = y;
  int c = strcmp(a->name, b->name);
  if (c) return c;
  return (a->index > b->index) - (a->index < b->index); /* keep report order in a group */
}

/* The name tables print and diff pairs by: the display name
 * (pc_kernel_display_name in pc_names.c made it), else the name. */
const char *pc_kernel_label_name(const pc_kernel *k) {
  if (!k) return "";
  if (k->display_name && *k->display_name) return k->display_name;
  return k->name ? k->name : "";
}

static int pc_cmp_str(const void *x, const void *y) {
  return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* How many distinct strings v[0 .. m) holds (sorts v). */
static size_t pc_distinct(const char **v, size_t m) {
  qsort(v, m, sizeof *v, pc_cmp_str);
  size_t d = m ? 1 : 0;
  for (size_t i = 1; i < m; i++) d += strcmp(v[i], v[i - 1]) != 0;
  return d;
}

/* The full name that tells two kernels apart: the demangled name with its
 * parameters when known, else the name. */
static const char *pc_kernel_full_name(const pc_kernel *k) {
  if (k->demangled && *k->demangled) return k->demangled;
  return k->name ? k->name : "";
}

/* The names entries are labelled by: the display name, except where
 * entries of different kernels share it (the display name elided the
 * template arguments that tell them apart): then the shortest longer form
 * of their names that tells every one apart, else the display name with a
 * short hash of the full name ("{3fa2}").  base[i] is malloc'd where it was
 * extended, else NULL (the display name stands).  Returns 0, -1 on OOM. */
static int pc_label_bases(const pc_report *r, const pc_name_index *sorted, char **base) {
  const size_t n = r->nkernels;
  const char **fulls = malloc((n ? n : 1) * sizeof *fulls), **exts = malloc((n ? n : 1) * sizeof *exts);
  if (!fulls || !exts) {
    free(fulls);
    free(exts);
    return -1;
  }
  int rc = 0;
  for (size_t g = 0; g < n && rc == 0;) {
    size_t e = g + 1;
    while (e < n && strcmp(sorted[e].name, sorted[g].name) == 0) e++;
    const size_t m = e - g;
    int differ = 0;
    for (size_t j = g + 1; j < e && !differ; j++)
      differ = strcmp(pc_kernel_full_name(&r->kernels[sorted[j].index]),
                      pc_kernel_full_name(&r->kernels[sorted[g].index])) != 0;
    if (differ) {
      for (size_t j = 0; j < m; j++) fulls[j] = pc_kernel_full_name(&r->kernels[sorted[g + j].index]);
      const size_t want = pc_distinct(fulls, m);
      static const size_t widths[] = {96, 160, 4000};
      int done = 0;
      for (size_t w = 0; w < sizeof widths / sizeof widths[0] && !done && rc == 0; w++) {
        for (size_t j = 0; j < m && rc == 0; j++) {
          const size_t at = sorted[g + j].index;
          free(base[at]);
          base[at] = pc_kernel_display_name(pc_kernel_full_name(&r->kernels[at]), widths[w]);
          if (!base[at]) rc = -1;
          exts[j] = base[at];
        }
        if (rc == 0) done = pc_distinct(exts, m) == want;
      }
      for (size_t j = 0; j < m && rc == 0 && !done; j++) { /* names apart only in what the display drops */
        const size_t at = sorted[g + j].index;
        const char *disp = pc_kernel_label_name(&r->kernels[at]);
        char *b = malloc(strlen(disp) + 16);
        if (!b) {
          rc = -1;
          break;
        }
        snprintf(b, strlen(disp) + 16, "%s {%04x}", disp,
                 (unsigned)(pc_hash_str(pc_kernel_full_name(&r->kernels[at])) & 0xffffu));
        free(base[at]);
        base[at] = b;
      }
    }
    g = e;
  }
  free(fulls);
  free(exts);
  return rc;
}

int pc_kernel_labels(const pc_report *r, pc_label *labels) {
  size_t n = r->nkernels;
  pc_name_index *sorted = malloc((n ? n : 1) * sizeof *sorted);
  size_t *order = malloc((n ? n : 1) * sizeof *order);
  char **base = calloc(n ? n : 1, sizeof *base);
  if (!sorted || !order || !base) {
    free(sorted);
    free(order);
    free(base);
    return -1;
  }
  for (size_t i = 0; i < n; i++) {
    sorted[i].name = pc_kernel_label_name(&r->kernels[i]);
    sorted[i].index = i;
  }
  /* Sorting by name puts entries that share a name side by side: the writer
   * stays O(n log n) on an export with many signatures. */
  qsort(sorted, n, sizeof *sorted, pc_cmp_name_index);
  int rc = pc_label_bases(r, sorted, base);
  if (rc == 0) {
    for (size_t i = 0; i < n; i++)
      if (base[sorted[i].index]) sorted[i].name = base[sorted[i].index];
    qsort(sorted, n, sizeof *sorted, pc_cmp_name_index);
  }
  for (size_t i = 0; i < n; i++) order[i] = sorted[i].index;

  for (size_t g = 0; g < n && rc == 0;) {
    size_t e = g + 1;
    const pc_kernel *first = &r->kernels[order[g]];
    while (e < n && strcmp(sorted[e].name, sorted[g].name) == 0) e++;
    /* Which properties differ inside this group? */
    int diff_smem = 0, diff_grid = 0, diff_block = 0, diff_region = 0;
    for (size_t j = g + 1; j < e; j++) {
      const pc_kernel *k = &r->kernels[order[j]];
      diff_smem |= !pc_same_double(k->dynamic_smem, first->dynamic_smem);
      diff_grid |= memcmp(k->grid, first->grid, sizeof k->grid) != 0;
      diff_block |= memcmp(k->block, first->block, sizeof k->block) != 0;
      diff_region |= !pc_str_eq(k->region, first->region);
    }
    for (size_t j = g; j < e && rc == 0; j++) {
      const pc_kernel *k = &r->kernels[order[j]];
      char extra[256];
      size_t o = 0;
      extra[0] = '\0';
      if (diff_smem) {
        if (pc_has(k->dynamic_smem))
          o += (size_t)snprintf(extra + o, sizeof extra - o, ", %.0f B dynamic", k->dynamic_smem);
        else
          o += (size_t)snprintf(extra + o, sizeof extra - o, ", ? B dynamic");
      }
      if (diff_grid && o < sizeof extra)
        o += (size_t)snprintf(extra + o, sizeof extra - o, ", grid %ux%ux%u", k->grid[0],
                              k->grid[1], k->grid[2]);
      if (diff_block && o < sizeof extra)
        o += (size_t)snprintf(extra + o, sizeof extra - o, ", block %ux%ux%u", k->block[0],
                              k->block[1], k->block[2]);
      if (diff_region && o < sizeof extra)
        snprintf(extra + o, sizeof extra - o, ", in %s", k->region ? k->region : "no region");
      if (e - g > 1 && !diff_smem && !diff_grid && !diff_block && !diff_region)
        snprintf(extra, sizeof extra, ", #%zu", j - g + 1);
      /* Make the name printable first, then add the (ASCII or region) suffix. */
      const char *nm = sorted[j].name;
      const size_t cap = strlen(nm) * 4 + strlen(extra) * 4 + 16; /* escapes can grow a name */
      char *name = malloc(cap), *text = malloc(cap);
      if (!name || !text) {
        free(name);
        free(text);
        rc = -1;
        break;
      }
      pc_fmt_printable(name, cap, nm, 4000);
      const size_t nl = strlen(name);
      snprintf(name + nl, cap - nl, "%s", extra);
      labels[order[j]].width = pc_fmt_printable(text, cap, name, (size_t)-1);
      labels[order[j]].text = text;
      free(name);
    }
    g = e;
  }
  for (size_t i = 0; i < n; i++) free(base[i]);
  free(base);
  free(order);
  free(sorted);
  if (rc) {
    for (size_t i = 0; i < n; i++) free(labels[i].text), labels[i].text = NULL;
  }
  return rc;
}

/* Prints the label cut or padded to `width` characters.  A label cut keeps
 * its head and its tail ("multi_tensor_apply_kernel<Tens...Sqrt<float>>,
 * grid 67x1x1"): what tells two entries apart is often at the end. */
static void pc_put_label(FILE *f, const pc_label *l, size_t width) {
  if (l->width <= width) {
    fputs(l->text, f);
    for (size_t i = l->width; i < width; i++) fputc(' ', f);
    return;
  }
  /* Character offsets of the head's end and the tail's start. */
  const size_t tail_chars = width >= 12 ? (width - 3) * 2 / 5 : 0, head_chars = width - 3 - tail_chars;
  const unsigned char *p = (const unsigned char *)l->text;
  size_t off = 0, chars = 0, head_end = 0, tail_start = 0;
  while (p[off]) {
    if (chars == head_chars) head_end = off;
    if (chars == l->width - tail_chars) tail_start = off;
    size_t q = pc_utf8_seq_len(p + off);
    off += q ? q : 1;
    chars++;
  }
  if (tail_chars == 0) tail_start = off;
  fwrite(l->text, 1, head_end, f);
  fputs("...", f);
  fputs(l->text + tail_start, f);
}

/* A right-aligned number with `prec` decimals, or "-" when not measured. */
static void pc_put_num(FILE *f, int width, int prec, double v) {
  if (!isfinite(v))
    fprintf(f, " %*s", width, "-");
  else
    fprintf(f, " %*.*f", width, prec, v);
}

/* A number in a sentence: 4 significant digits, integers as integers. */
static void pc_fmt_short(char *buf, size_t len, double v) {
  if (!isfinite(v))
    snprintf(buf, len, "-");
  else if (fabs(v) >= 1e4 || v == floor(v))
    snprintf(buf, len, "%.0f", v);
  else
    snprintf(buf, len, "%.4g", v);
}

static void pc_put_pair(FILE *f, int width, int prec, double a, double b) {
  char as[32], bs[32], both[72];
  if (isfinite(a))
    snprintf(as, sizeof as, "%.*f", prec, a);
  else
    snprintf(as, sizeof as, "-");
  if (isfinite(b))
    snprintf(bs, sizeof bs, "%.*f", prec, b);
  else
    snprintf(bs, sizeof bs, "-");
  snprintf(both, sizeof both, "%s / %s", as, bs);
  fprintf(f, " %*s", width, both);
}

static void pc_put_rule(FILE *f, size_t name_width, const int *widths, size_t n) {
  for (size_t i = 0; i < name_width; i++) fputc('-', f);
  for (size_t j = 0; j < n; j++) {
    fputc(' ', f);
    for (int i = 0; i < widths[j]; i++) fputc('-', f);
  }
  fputc('\n', f);
}

static void pc_put_header(FILE *f, const char *first, size_t name_width, const char *const *cols,
                          const int *widths, size_t n) {
  fprintf(f, "%-*s", (int)name_width, first);
  for (size_t j = 0; j < n; j++) fprintf(f, " %*s", widths[j], cols[j]);
  fputc('\n', f);
  pc_put_rule(f, name_width, widths, n);
}

/* "step 3 uncoalesced_global_loads: METRIC = 4 bytes/sector (threshold 16
 * bytes/sector)": a finding's cause and the evidence that decided it, each
 * number in its metric's own unit (pc_words.h). */
static void pc_put_evidence(FILE *f, const pc_finding *v) {
  char metric[PC_METRIC_NAME_MAX * 4 + 8], val[PC_METRIC_NAME_MAX * 4 + 200], thr[200];
  fprintf(f, "step %d %s", v->step, perfcheck_cause_name(v->cause));
  pc_fmt_printable(metric, sizeof metric, v->metric, (size_t)-1);
  if (!metric[0]) return;
  pc_words_value(val, sizeof val, metric, v->value);
  fprintf(f, ": %s", val);
  pc_words_threshold(thr, sizeof thr, v->metric, v->threshold);
  if (thr[0]) fprintf(f, " (%s)", thr);
}

static void pc_put_advice(FILE *f, const char *lead, const char *advice) {
  if (!advice || !advice[0]) return;
  char *a = malloc(strlen(advice) * 4 + 8);
  if (!a) return;
  pc_fmt_printable(a, strlen(advice) * 4 + 8, advice, (size_t)-1);
  fprintf(f, "%s%s\n", lead, a);
  free(a);
}

/* A finding on one line, "LABEL: step N cause: evidence: advice" (the
 * regions' step 1, where the label leads). */
static void pc_put_finding(FILE *f, const char *label, const pc_finding *v) {
  fprintf(f, "%s: ", label);
  pc_put_evidence(f, v);
  if (v->advice[0]) pc_put_advice(f, ": ", v->advice);
  else fputc('\n', f);
}

/* The borderline mark: the runner-up a small change of one threshold would
 * give, and the number that sits near its threshold. */
static void pc_put_borderline(FILE *f, const char *indent, const pc_diagnosis *d, const pc_kernel *k,
                              const pc_device *dev) {
  if (!d->borderline) return;
  fprintf(f, "%sborderline: nudging one threshold by 5 points (10%% of a ratio) gives %s instead", indent,
          perfcheck_cause_name(d->runner_up));
  const char *metric = NULL;
  double value = PC_NULL, threshold = PC_NULL;
  if (k && pc_runner_up_evidence(k, dev, &metric, &value, &threshold) && metric) {
    char m[PC_METRIC_NAME_MAX * 4 + 8], val[PC_METRIC_NAME_MAX * 4 + 200], thr[200];
    pc_fmt_printable(m, sizeof m, metric, (size_t)-1);
    pc_words_value(val, sizeof val, m, value);
    pc_words_threshold(thr, sizeof thr, metric, threshold);
    fprintf(f, ": %s%s%s%s", val, thr[0] ? " (" : "", thr, thr[0] ? ")" : "");
  }
  fputc('\n', f);
}

/* A region's step-1 verdict in the verdicts. */
static void pc_put_verdict(FILE *f, const char *label, const pc_diagnosis *d) {
  pc_put_finding(f, label, &d->verdict);
  pc_put_borderline(f, "  ", d, NULL, NULL);
}

/* Where a kernel's counters came from, under its verdict, when more than one
 * launch fed them (pc_kernel_counters_note), and rotation's groups still
 * missing.  Graph entries say it in their own section. */
static void pc_put_counters_note(FILE *f, const pc_kernel *k) {
  char line[2048];
  if (!pc_kernel_counters_note(k, line, sizeof line)) return;
  fprintf(f, "  counters: %s\n", line);
  if (strncmp(k->replay, "rotate", 6) == 0 && k->rotation_note) {
    pc_fmt_printable(line, sizeof line, k->rotation_note, 500);
    fprintf(f, "  missing: %s\n", line);
  }
}

/* A share as a percentage: 3 significant digits under 10% ("0.996%", never
 * a rounded "1.0%" beside "under 1%"), one decimal above. */
static void pc_fmt_share(char *buf, size_t len, double share) {
  const double p = share * 100.0;
  if (p < 10.0)
    snprintf(buf, len, "%.3g%%", p);
  else
    snprintf(buf, len, "%.1f%%", p);
}

/* How many kernel entries share k's region (its rank's denominator). */
static size_t pc_region_peers(const pc_report *r, const pc_kernel *k) {
  size_t n = 0;
  for (size_t i = 0; i < r->nkernels; i++) n += pc_str_eq(r->kernels[i].region, k->region);
  return n;
}

/* One kernel's verdict block: its share of the time, the verdict with the
 * evidence that decided it, the advice (a library's kernel: the change the
 * user controls first), the borderline runner-up, an estimated gain, then
 * every other finding. */
static void pc_put_kernel_verdict(FILE *f, const pc_report *r, const pc_kernel *k, const pc_label *l) {
  const pc_diagnosis *d = &k->diag;
  char a[64], b[64], region[200];
  fprintf(f, "%s: ", l->text);
  pc_put_evidence(f, &d->verdict);
  fputc('\n', f);
  fputs("  time: ", f);
  pc_fmt_printable(region, sizeof region, k->region ? k->region : "", 80);
  if (pc_has(k->time_share)) {
    pc_fmt_share(a, sizeof a, k->time_share);
    if (!k->time_share_from_timeline)
      fprintf(f, "%s of the export's profiled kernel time", a);
    else if (k->region)
      fprintf(f, "%s of region %s's kernel time", a, region);
    else
      fprintf(f, "%s of the kernel time outside NVTX ranges", a);
    if (k->rank > 0) fprintf(f, " (rank %d of %zu)", k->rank, pc_region_peers(r, k));
  } else {
    fputs("share of kernel time unknown", f);
  }
  fprintf(f, ", %s in %llu launch%s", pc_words_ns(a, sizeof a, k->total_ns), (unsigned long long)k->launches,
          k->launches == 1 ? "" : "es");
  if (pc_has(k->dur_median_ns)) fprintf(f, ", median %s", pc_words_ns(b, sizeof b, k->dur_median_ns));
  if (pc_kernel_worth_changing(k) == 0) fputs("; not worth changing: under 1% of the kernel time", f);
  fputc('\n', f);
  if (k->library[0]) {
    pc_fmt_printable(a, sizeof a, k->library, 31);
    fprintf(f, "  library: %s\n", a);
  }
  if (k->library[0] && d->library_advice[0]) {
    pc_put_advice(f, "  advice: ", d->library_advice);
    if (d->verdict.advice[0]) {
      fprintf(f, "  inside the kernel (for %s's authors): ", a);
      pc_put_advice(f, "", d->verdict.advice);
    }
  } else if (k->library[0] && d->verdict.advice[0]) {
    fprintf(f, "  inside the kernel (for %s's authors; no change of the call is known): ", a);
    pc_put_advice(f, "", d->verdict.advice);
  } else {
    pc_put_advice(f, "  advice: ", d->verdict.advice);
  }
  pc_put_borderline(f, "  ", d, k, &r->device);
  if (pc_gain_known(&d->gain)) {
    char basis[sizeof d->gain.basis * 4 + 8];
    pc_fmt_printable(basis, sizeof basis, d->gain.basis, (size_t)-1);
    fprintf(f, "  estimated gain (an estimate, not a measurement): %.3gx faster", d->gain.speedup);
    if (pc_has(d->gain.saved_ns)) fprintf(f, ", about %s saved", pc_words_ns(b, sizeof b, d->gain.saved_ns));
    if (basis[0]) fprintf(f, ": %s", basis);
    fputc('\n', f);
  }
  for (size_t i = 0; i < d->nfindings && i < PC_MAX_FINDINGS; i++) {
    const pc_finding *x = &d->findings[i];
    /* Offline, step 1's "no wall clock" is the same for every kernel: the
     * header says it once. */
    if (!r->step1_assessed && x->step == 1 && x->cause == PERFCHECK_CAUSE_NOT_ASSESSED) continue;
    if (x->cause == PERFCHECK_CAUSE_NOT_ASSESSED) {
      if (x->advice[0]) {
        pc_put_advice(f, "  not measured: ", x->advice);
      } else {
        fputs("  not measured: ", f);
        pc_put_evidence(f, x);
        fputc('\n', f);
      }
      continue;
    }
    fputs("  also: ", f);
    pc_put_evidence(f, x);
    if (x->advice[0]) pc_put_advice(f, ": ", x->advice);
    else fputc('\n', f);
  }
  if (d->stall.reason) {
    fprintf(f, "  warp stalls: %s %.0f%% of the stall cycles", d->stall.reason, d->stall.share * 100.0);
    if (d->stall.second) fprintf(f, ", then %s %.0f%%", d->stall.second, d->stall.second_share * 100.0);
    fputc('\n', f);
  }
  pc_put_counters_note(f, k);
}

static void pc_put_device(FILE *f, const pc_report *r) {
  const pc_device *d = &r->device;
  char name[256];
  pc_fmt_printable(name, sizeof name, d->name[0] ? d->name : "unknown device", 120);
  fprintf(f, "perfcheck %s: %s", PERFCHECK_VERSION_STRING, name);
  if (d->cc_major >= 0) fprintf(f, ", compute capability %d.%d", d->cc_major, d->cc_minor);
  if (d->sm_count > 0) fprintf(f, ", %d SMs", d->sm_count);
  fputc('\n', f);
  fprintf(f, "source: %s, metric set %s", r->source, r->metric_set);
  if (r->passes > 0) fprintf(f, ", %d passes", r->passes);
  fputc('\n', f);
  if (r->rank >= 0 || r->world_size > 0) {
    if (r->rank >= 0)
      fprintf(f, "rank %d", r->rank);
    else
      fputs("ranks merged", f);
    if (r->world_size > 0) fprintf(f, " of world size %d", r->world_size);
    if (r->local_rank >= 0) fprintf(f, ", local rank %d", r->local_rank);
    fputc('\n', f);
  }
  char a[32], b[32], c[32];
  pc_fmt_short(a, sizeof a, pc_has(d->peak_dram_bytes_per_s) ? d->peak_dram_bytes_per_s / 1e9 : PC_NULL);
  pc_fmt_short(b, sizeof b, pc_has(d->peak_fp32_flop_per_s) ? d->peak_fp32_flop_per_s / 1e9 : PC_NULL);
  pc_fmt_short(c, sizeof c, d->ridge_flop_per_byte);
  fprintf(f, "ceilings: DRAM %s GB/s, FP32 %s GFLOP/s, ridge %s FLOP/byte", a, b, c);
  if (d->ceilings_source[0]) fprintf(f, " (%s)", d->ceilings_source);
  fputc('\n', f);
  if (!r->step1_assessed)
    fputs("step 1 (is the kernel the slow part?) is not assessed: an ncu export has no wall "
          "clock; the walk starts at step 2.\n",
          f);
}

/* A step-1 verdict in the regions' table. */
static void pc_put_step1(FILE *f, const pc_diagnosis *dg) {
  if (dg->verdict.step == 1)
    fprintf(f, "  %s\n", perfcheck_cause_name(dg->verdict.cause));
  else if (dg->verdict.cause == PERFCHECK_CAUSE_NOT_ASSESSED)
    fputs("  not_assessed\n", f);
  else
    fputs("  passes\n", f);
}

static void pc_put_regions(FILE *f, const pc_report *r) {
  if (r->nregions == 0) return;
  size_t width = 20;
  char name[256];
  /* A merged report of several ranks: each region says whose it is. */
  int ranks = 0;
  for (size_t i = 1; i < r->nregions && !ranks; i++) ranks = r->regions[i].rank != r->regions[0].rank;
  for (size_t i = 0; i < r->nregions; i++) {
    size_t w = pc_fmt_printable(name, sizeof name, r->regions[i].name, 60) +
               2 * (size_t)(r->regions[i].depth > 0 ? r->regions[i].depth : 0) + (ranks ? 12 : 0);
    if (r->regions[i].ndevices > 1 && w < 27 + 2 * (size_t)(r->regions[i].depth > 0 ? r->regions[i].depth : 0))
      w = 27 + 2 * (size_t)(r->regions[i].depth > 0 ? r->regions[i].depth : 0); /* "  device N (0000:19:00.0)" */
    if (w > width) width = w;
  }
  static const char *const cols[] = {"wall ms", "kernel ms", "memcpy ms", "kernel %", "launches"};
  static const int widths[] = {10, 10, 10, 9, 9};
  fputs("\nRegions: is the kernel the slow part? (step 1)\n", f);
  fprintf(f, "%-*s", (int)width, "region");
  for (size_t j = 0; j < 5; j++) fprintf(f, " %*s", widths[j], cols[j]);
  fputs("  step 1\n", f);
  pc_put_rule(f, width, widths, 5);
  for (size_t i = 0; i < r->nregions; i++) {
    const pc_region *g = &r->regions[i];
    int depth = g->depth > 0 ? (g->depth < 10 ? g->depth : 10) : 0;
    size_t w = pc_fmt_printable(name, sizeof name, g->name, 60);
    if (ranks) {
      char rk[24];
      if (g->rank >= 0)
        snprintf(rk, sizeof rk, " [rank %d]", g->rank);
      else
        snprintf(rk, sizeof rk, "%s", " [rank -]");
      snprintf(name + strlen(name), sizeof name - strlen(name), "%s", rk);
      w += strlen(rk);
    }
    fprintf(f, "%*s%s", 2 * depth, "", name);
    for (size_t p = w + 2 * (size_t)depth; p < width; p++) fputc(' ', f);
    pc_put_num(f, 10, 3, pc_has(g->wall_ns) ? g->wall_ns / 1e6 : PC_NULL);
    pc_put_num(f, 10, 3, pc_has(g->kernel_ns) ? g->kernel_ns / 1e6 : PC_NULL);
    pc_put_num(f, 10, 3, pc_has(g->memcpy_ns) ? g->memcpy_ns / 1e6 : PC_NULL);
    pc_put_num(f, 9, 1, pc_has(g->kernel_share) ? g->kernel_share * 100.0 : PC_NULL);
    fprintf(f, " %9" PRIu64, g->launches);
    pc_put_step1(f, &g->diag);
    /* Step 1 per device, when the region's kernels ran on more than one. */
    for (size_t d = 0; g->ndevices > 1 && d < g->ndevices; d++) {
      const pc_region_device *e = &g->devices[d];
      char dev[64], pci[32];
      pc_fmt_printable(pci, sizeof pci, e->pci_bus_id[0] ? e->pci_bus_id : "-", 16);
      if (e->ordinal >= 0)
        snprintf(dev, sizeof dev, "device %d (%s)", e->ordinal, pci);
      else
        snprintf(dev, sizeof dev, "device - (%s)", pci);
      const size_t dl = strlen(dev);
      fprintf(f, "%*s%s", 2 * depth + 2, "", dev);
      for (size_t p = dl + 2 * (size_t)depth + 2; p < width; p++) fputc(' ', f);
      fprintf(f, " %10s", "");
      pc_put_num(f, 10, 3, pc_has(e->kernel_ns) ? e->kernel_ns / 1e6 : PC_NULL);
      fprintf(f, " %10s", "");
      pc_put_num(f, 9, 1, pc_has(e->kernel_share) ? e->kernel_share * 100.0 : PC_NULL);
      fprintf(f, " %9" PRIu64, e->launches);
      pc_put_step1(f, &e->diag);
    }
  }
}

/* The regions' step-1 verdicts, and their time in communication kernels,
 * at the head of the verdicts (step 1 comes first in the walk). */
static void pc_put_region_verdicts(FILE *f, const pc_report *r) {
  char name[256];
  for (size_t i = 0; i < r->nregions; i++) {
    const pc_region *g = &r->regions[i];
    if (g->diag.verdict.step != 1 && g->diag.verdict.cause != PERFCHECK_CAUSE_NOT_ASSESSED) continue;
    pc_fmt_printable(name, sizeof name, g->name, 120);
    char label[300];
    snprintf(label, sizeof label, "region %s", name);
    pc_put_verdict(f, label, &g->diag);
  }
  /* Time in communication kernels, where there was any. */
  for (size_t i = 0; i < r->nregions; i++) {
    const pc_region *g = &r->regions[i];
    for (size_t j = 0; j < g->diag.nfindings && j < PC_MAX_FINDINGS; j++) {
      if (g->diag.findings[j].cause != PERFCHECK_CAUSE_COMMUNICATION) continue;
      pc_fmt_printable(name, sizeof name, g->name, 120);
      char label[300];
      snprintf(label, sizeof label, "region %s (finding)", name);
      pc_put_finding(f, label, &g->diag.findings[j]);
    }
  }
}

/* The CUDA graphs: each graph entry, what its counters
 * cover and which groups are missing; its kernels' entries point to it. */
static void pc_put_graphs(FILE *f, const pc_report *r, const pc_label *labels) {
  size_t n = 0;
  for (size_t i = 0; i < r->nkernels; i++) n += r->kernels[i].is_graph != 0;
  if (!n) return;
  fputs("\nCUDA graphs: counters per graph launch, summed over its kernels (one range around each launch; CUPTI "
        "cannot split it by node); its kernels' rows above keep their own times\n",
        f);
  char line[2048];
  for (size_t i = 0; i < r->nkernels; i++) {
    const pc_kernel *k = &r->kernels[i];
    if (!k->is_graph) continue;
    fprintf(f, "  %s: %llu launch%s, %u kernel%s a launch (%u distinct)", labels[i].text,
            (unsigned long long)k->launches, k->launches == 1 ? "" : "es", (unsigned)k->graph_kernels,
            k->graph_kernels == 1 ? "" : "s", (unsigned)k->graph_signatures);
    if (k->groups > 0)
      fprintf(f, "; counters: %d of %d groups, %llu profiled launch%s", k->groups_collected, k->groups,
              (unsigned long long)k->profiled_launches, k->profiled_launches == 1 ? "" : "es");
    fputc('\n', f);
    if (k->rotation_note) {
      pc_fmt_printable(line, sizeof line, k->rotation_note, 500);
      fprintf(f, "    missing: %s\n", line);
    } else if (k->not_measured_reason) {
      pc_fmt_printable(line, sizeof line, k->not_measured_reason, 500);
      fprintf(f, "    no counters: %s\n", line);
    }
  }
}

perfcheck_status pc_write_text(const pc_report *r, FILE *f, pc_err *err) {
  pc_err_clear(err);
  if (!r || !f) return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "pc_write_text: NULL argument");
  pc_locale_guard lg;
  pc_locale_begin(&lg);
  const size_t n = r->nkernels;
  pc_label *labels = calloc(n ? n : 1, sizeof *labels);
  size_t *ord = malloc((n ? n : 1) * sizeof *ord);
  if (!labels || !ord || pc_kernel_labels(r, labels) != 0 || pc_kernel_verdict_order(r, ord) != 0) {
    if (labels)
      for (size_t i = 0; i < n; i++) free(labels[i].text);
    free(labels);
    free(ord);
    pc_locale_end(&lg);
    return pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "pc_write_text: out of memory");
  }
  size_t width = PC_TEXT_NAME_MIN;
  for (size_t i = 0; i < n; i++)
    if (labels[i].width > width) width = labels[i].width;
  if (width > PC_TEXT_NAME_MAX) width = PC_TEXT_NAME_MAX;

  pc_put_device(f, r);

  /* The verdicts first: the regions' step 1, then each kernel's, the
   * kernels that hold the time first; those under 1% of their region's
   * kernel time keep their verdicts, after the others. */
  fputs("\nVerdicts, the kernels that hold the most time first\n", f);
  pc_put_region_verdicts(f, r);
  if (n == 0) fputs("No kernels.\n", f);
  int said_not_worth = 0;
  for (size_t j = 0; j < n; j++) {
    const size_t i = ord[j];
    if (!said_not_worth && pc_kernel_worth_changing(&r->kernels[i]) == 0) {
      said_not_worth = 1;
      fputs("\nNot worth changing: each of these takes under 1% of its region's kernel time (verdicts kept, "
            "for the record)\n",
            f);
    }
    pc_put_kernel_verdict(f, r, &r->kernels[i], &labels[i]);
  }

  if (n == 0) {
    pc_put_regions(f, r);
  } else {
    fputs("\nThe numbers behind the verdicts, kernels in the same order\n", f);
    static const char *const c1[] = {"regs", "static B", "dynamic B", "blk/SM", "warps/SM", "occ %"};
    static const int w1[] = {5, 10, 11, 7, 8, 8};
    fputs("\nPart 1: what the launch configuration alone decides\n", f);
    pc_put_header(f, "kernel", width, c1, w1, 6);
    for (size_t j = 0; j < n; j++) {
      const size_t i = ord[j];
      const pc_kernel *k = &r->kernels[i];
      pc_put_label(f, &labels[i], width);
      pc_put_num(f, 5, 0, k->attr.registers_per_thread);
      pc_put_num(f, 10, 0, k->attr.static_smem);
      pc_put_num(f, 11, 0, k->dynamic_smem);
      pc_put_num(f, 7, 0, k->attr.blocks_per_sm);
      pc_put_num(f, 8, 0, k->attr.warps_per_sm);
      pc_put_num(f, 8, 1, k->attr.theoretical_occupancy_pct);
      fputc('\n', f);
    }

    /* In process: the device each kernel ran on (ordinal and PCI bus id). */
    int devices_known = 0;
    for (size_t i = 0; i < n; i++) devices_known |= r->kernels[i].device_ordinal >= 0 || r->kernels[i].pci_bus_id[0];
    if (devices_known) {
      static const char *const cd[] = {"device", "PCI bus id"};
      static const int wd[] = {6, 12};
      fputs("\nDevices: where each kernel ran\n", f);
      pc_put_header(f, "kernel", width, cd, wd, 2);
      for (size_t j = 0; j < n; j++) {
        const size_t i = ord[j];
        const pc_kernel *k = &r->kernels[i];
        pc_put_label(f, &labels[i], width);
        pc_put_num(f, 6, 0, k->device_ordinal >= 0 ? (double)k->device_ordinal : PC_NULL);
        char pci[32];
        pc_fmt_printable(pci, sizeof pci, k->pci_bus_id[0] ? k->pci_bus_id : "-", 16);
        fprintf(f, " %12s\n", pci);
      }
    }

    static const char *const c2[] = {"FLOP/byte", "time ms", "GB/s", "GFLOP/s"};
    static const int w2[] = {10, 10, 9, 10};
    fputs("\nPart 2: what the kernels did (median duration of the profiled launches)\n", f);
    pc_put_header(f, "kernel", width, c2, w2, 4);
    for (size_t j = 0; j < n; j++) {
      const size_t i = ord[j];
      const pc_kernel *k = &r->kernels[i];
      pc_put_label(f, &labels[i], width);
      pc_put_num(f, 10, 3, k->derived.arithmetic_intensity);
      pc_put_num(f, 10, 3, pc_has(k->dur_median_ns) ? k->dur_median_ns / 1e6 : PC_NULL);
      pc_put_num(f, 9, 1, k->derived.dram_gbps);
      pc_put_num(f, 10, 1, k->derived.gflops);
      fputc('\n', f);
    }

    static const char *const c12[] = {"total ms", "share %", "rank", "busiest pipe", "%", "busiest memory", "%"};
    static const int w12[] = {10, 8, 5, 13, 6, 15, 6};
    fputs("\nBeside each verdict: the kernel's share of its region's kernel time and its rank there (step 1 is the "
          "region's), and step 2: its busiest pipe and memory level (% of peak)\n",
          f);
    pc_put_header(f, "kernel", width, c12, w12, 7);
    for (size_t j = 0; j < n; j++) {
      const size_t i = ord[j];
      const pc_kernel *k = &r->kernels[i];
      pc_put_label(f, &labels[i], width);
      pc_put_num(f, 10, 3, pc_has(k->total_ns) ? k->total_ns / 1e6 : PC_NULL);
      pc_put_num(f, 8, 1, pc_has(k->time_share) ? k->time_share * 100.0 : PC_NULL);
      if (k->rank > 0)
        fprintf(f, " %5d", k->rank);
      else
        fprintf(f, " %5s", "-");
      fprintf(f, " %13s", k->busiest_pipe.name ? k->busiest_pipe.name : "-");
      pc_put_num(f, 6, 1, k->busiest_pipe.pct);
      fprintf(f, " %15s", k->busiest_memory.name ? k->busiest_memory.name : "-");
      pc_put_num(f, 6, 1, k->busiest_memory.pct);
      fputc('\n', f);
    }

    static const char *const c3[] = {"bytes/sector ld / st", "sectors/request ld / st", "threads/instruction",
                                     "achieved / theoretical occ %"};
    static const int w3[] = {20, 23, 19, 28};
    fputs("\nThe numbers the checklist steps read (3, 4 and 5)\n", f);
    pc_put_header(f, "kernel", width, c3, w3, 4);
    for (size_t j = 0; j < n; j++) {
      const size_t i = ord[j];
      const pc_derived *d = &r->kernels[i].derived;
      pc_put_label(f, &labels[i], width);
      pc_put_pair(f, 20, 1, d->bytes_per_sector_ld, d->bytes_per_sector_st);
      pc_put_pair(f, 23, 2, d->sectors_per_request_ld, d->sectors_per_request_st);
      pc_put_num(f, 19, 2, d->threads_per_instruction);
      pc_put_pair(f, 28, 2, d->achieved_occupancy_pct, d->theoretical_occupancy_pct);
      fputc('\n', f);
    }

    pc_put_graphs(f, r, labels);
    pc_put_regions(f, r);
  }

  if (r->nwarnings) {
    fprintf(f, "\nWarnings (%zu)\n", r->nwarnings);
    char line[2048];
    for (size_t i = 0; i < r->nwarnings; i++) {
      pc_fmt_printable(line, sizeof line, r->warnings[i], 500);
      fprintf(f, "  %s\n", line);
    }
  }

  for (size_t i = 0; i < n; i++) free(labels[i].text);
  free(labels);
  free(ord);
  pc_locale_end(&lg);
  if (fflush(f) != 0 || ferror(f)) return pc_err_set(err, PERFCHECK_ERROR_IO, "writing the text report failed");
  return PERFCHECK_OK;
}
