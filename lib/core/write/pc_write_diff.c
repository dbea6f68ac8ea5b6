/* Writing a diff (pc_diff.h): text (what got worse first, one line per
 * change), JSON (schema "perfcheck-diff/1", docs/report-contract.md) and one
 * HTML page (the table of pairs and the roofline's moves). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/pc_core.h"
#include "base/pc_json_emit.h"
#include "expect/pc_expect.h"
#include "base/pc_fmt.h"
#include "write/pc_html.h"
#include "write/pc_write_diff.h"
#include "model/pc_diff_model.h"

/* The change and presence words of the diff contract. */
const char *pc_change_name(pc_change c) {
  switch (c) {
    case PC_CHANGE_SAME: return "same";
    case PC_CHANGE_BETTER: return "better";
    case PC_CHANGE_WORSE: return "worse";
    case PC_CHANGE_MOVED: return "moved";
    default: return "not_comparable";
  }
}

static const char *pc_presence_name(pc_presence p) { /* "paired", "added", "removed" */
  return p == PC_ADDED ? "added" : p == PC_REMOVED ? "removed" : "paired";
}


/* ---- Shared words --------------------------------------------------------------- */

/* The tolerance of each kind of value, from the one policy the diff judges
 * by (pc_expect_rerun_band_pct): per unit of the metric table, with the
 * metrics that differ from the rest of their unit named, then the derived
 * values that are not 1%.  "durations 10%; 5%: % ... ; 1%: ..." */
static void pc_tolerance_text(char *buf, size_t len, double time_band) {
  const pc_metric_def *t = pc_metric_table();
  const char *units[24];
  size_t nunits = 0;
  for (int i = 0; i < PC_M_COUNT; i++) {
    size_t u = 0;
    while (u < nunits && strcmp(units[u], t[i].unit) != 0) u++;
    if (u == nunits && nunits < sizeof units / sizeof units[0]) units[nunits++] = t[i].unit;
  }
  static const double bands[] = {5, 1};
  size_t n = 0;
#define PC_PUT(...)                                                         \
  do {                                                                      \
    if (n < len) {                                                          \
      int w_ = snprintf(buf + n, len - n, __VA_ARGS__);                     \
      n += w_ > 0 ? (size_t)w_ : 0;                                         \
    }                                                                       \
  } while (0)
  PC_PUT("durations (ns) %g%% (and the after run's fastest launch beyond the before median)", time_band);
  for (size_t b = 0; b < sizeof bands / sizeof bands[0]; b++) {
    PC_PUT("; %g%%: ", bands[b]);
    int first = 1;
    for (size_t u = 0; u < nunits; u++) {
      if (strcmp(units[u], "ns") == 0) continue;
      size_t in = 0, all = 0;
      for (int i = 0; i < PC_M_COUNT; i++)
        if (strcmp(t[i].unit, units[u]) == 0) all++, in += pc_expect_rerun_band_pct(t[i].name) == bands[b];
      if (in == all) {
        PC_PUT("%sunit %s", first ? "" : ", ", units[u]);
        first = 0;
      } else if (in > 0) { /* name the few of this unit that take this band */
        for (int i = 0; i < PC_M_COUNT; i++)
          if (strcmp(t[i].unit, units[u]) == 0 && pc_expect_rerun_band_pct(t[i].name) == bands[b] && in * 2 <= all) {
            PC_PUT("%s%s", first ? "" : ", ", t[i].name);
            first = 0;
          }
        if (in * 2 > all) {
          PC_PUT("%sunit %s (the others)", first ? "" : ", ", units[u]);
          first = 0;
        }
      }
    }
    for (size_t i = 0; i < pc_nderived_fields; i++)
      if (pc_expect_rerun_band_pct(pc_derived_fields[i].key) == bands[b] && bands[b] != 1) {
        PC_PUT("%s%s", first ? "" : ", ", pc_derived_fields[i].key);
        first = 0;
      }
    if (bands[b] == 1) PC_PUT("%severy other derived value (sectors per request, bytes per sector, shares, ...)", first ? "" : ", ");
  }
#undef PC_PUT
}

/* The metrics measured on one side only for every paired kernel (a metric
 * set that differs): named once, not once per kernel.  Returns how many of
 * k's one-side metrics are among them. */
static int pc_one_side_everywhere(const pc_diff *d, const char *name) {
  size_t paired = 0;
  for (size_t i = 0; i < d->nkernels; i++) {
    const pc_diff_kernel *k = &d->kernels[i];
    if (k->presence != PC_PAIRED) continue;
    paired++;
    int found = 0;
    for (size_t j = 0; j < k->nmetrics && !found; j++)
      found = k->metrics[j].change == PC_CHANGE_NOT_COMPARABLE && strcmp(k->metrics[j].name, name) == 0;
    if (!found) return 0;
  }
  return paired > 1;
}

static const char *pc_dn(char *buf, size_t len, double v) { return pc_html_num(buf, len, v); }

static void pc_signature_text(char *buf, size_t len, const pc_diff_kernel *k) {
  char s[40];
  int n = snprintf(buf, len, "grid %ux%ux%u block %ux%ux%u", k->grid[0], k->grid[1], k->grid[2], k->block[0],
                   k->block[1], k->block[2]);
  if (n > 0 && (size_t)n < len && pc_has(k->dynamic_smem) && k->dynamic_smem > 0)
    snprintf(buf + n, len - (size_t)n, " dynamic smem %s B", pc_dn(s, sizeof s, k->dynamic_smem));
}

/* "+35.2% (12.3 us -> 16.65 us)" */
static void pc_time_text(char *buf, size_t len, const pc_diff_kernel *k) {
  char a[32], b[32], p[32];
  if (pc_is_null(k->time_change_pct)) {
    snprintf(buf, len, "time not measured on both sides (%s -> %s)", pc_words_ns(a, sizeof a, k->a.dur_median),
             pc_words_ns(b, sizeof b, k->b.dur_median));
    return;
  }
  snprintf(p, sizeof p, "%+.1f%%", k->time_change_pct);
  snprintf(buf, len, "time %s (median %s -> %s", p, pc_words_ns(a, sizeof a, k->a.dur_median),
           pc_words_ns(b, sizeof b, k->b.dur_median));
  size_t n = strlen(buf);
  if (n < len && (k->a.launches > 1 || k->b.launches > 1)) {
    char a0[32], a1[32], b0[32], b1[32];
    snprintf(buf + n, len - n, "; launches %s..%s -> %s..%s", pc_words_ns(a0, sizeof a0, k->a.dur_min),
             pc_words_ns(a1, sizeof a1, k->a.dur_max), pc_words_ns(b0, sizeof b0, k->b.dur_min),
             pc_words_ns(b1, sizeof b1, k->b.dur_max));
    n = strlen(buf);
  }
  if (n < len) snprintf(buf + n, len - n, "; band %s%%)", pc_dn(p, sizeof p, k->time_band_pct));
  n = strlen(buf);
  if (n < len && (pc_has(k->a.total) || pc_has(k->b.total))) {
    char t0[32], t1[32], s0[32], s1[32];
    snprintf(buf + n, len - n, ", total %s -> %s", pc_words_ns(t0, sizeof t0, k->a.total), pc_words_ns(t1, sizeof t1, k->b.total));
    n = strlen(buf);
    if (n < len && (pc_has(k->a.share) || pc_has(k->b.share)))
      snprintf(buf + n, len - n, ", share %s%% -> %s%%", pc_dn(s0, sizeof s0, k->a.share * 100),
               pc_dn(s1, sizeof s1, k->b.share * 100));
  }
}

static const char *pc_time_word(pc_change c) {
  switch (c) {
    case PC_CHANGE_WORSE: return "slower";
    case PC_CHANGE_BETTER: return "faster";
    case PC_CHANGE_SAME: return "within noise";
    default: return "not compared";
  }
}

/* "fma 45.2%", or "-". */
static const char *pc_unit_words(char *buf, size_t len, const pc_unit_load *u) {
  char p[32];
  if (!u->name) snprintf(buf, len, "-");
  else snprintf(buf, len, "%s %s%%", u->name, pc_dn(p, sizeof p, u->pct));
  return buf;
}

static void pc_put_printable(FILE *f, const char *s) {
  char buf[1024];
  pc_fmt_printable(buf, sizeof buf, s, 300);
  fputs(buf, f);
}

/* ---- Text ------------------------------------------------------------------------ */

/* "  LABEL [SIGNATURE in REGION": a kernel's first text line, without its end. */
static void pc_text_kernel_head(FILE *f, const pc_diff_kernel *k) {
  char sig[160];
  pc_signature_text(sig, sizeof sig, k);
  fputs("  ", f);
  pc_put_printable(f, k->label);
  fprintf(f, " [%s", sig);
  if (k->region) {
    fputs(" in ", f);
    pc_put_printable(f, k->region);
  }
}

static void pc_text_kernel(FILE *f, const pc_diff *d, const pc_diff_kernel *k) {
  char t[400], a[40], b[40], c[40];
  pc_text_kernel_head(f, k);
  fputs("]\n", f);
  pc_time_text(t, sizeof t, k);
  fprintf(f, "    %s: %s\n", t, pc_time_word(k->time));
  if (k->verdict != PC_CHANGE_SAME)
    fprintf(f, "    verdict: step %d %s -> step %d %s: %s\n", k->a.verdict.step, perfcheck_cause_name(k->a.verdict.cause),
            k->b.verdict.step, perfcheck_cause_name(k->b.verdict.cause), pc_change_name(k->verdict));
  else
    fprintf(f, "    verdict: step %d %s (unchanged)\n", k->b.verdict.step, perfcheck_cause_name(k->b.verdict.cause));
  if (k->busiest_pipe != PC_CHANGE_SAME)
    fprintf(f, "    busiest pipe %s -> %s: %s\n", pc_unit_words(a, sizeof a, &k->a.busiest_pipe),
            pc_unit_words(b, sizeof b, &k->b.busiest_pipe), pc_change_name(k->busiest_pipe));
  if (k->busiest_memory != PC_CHANGE_SAME)
    fprintf(f, "    busiest memory level %s -> %s: %s\n", pc_unit_words(a, sizeof a, &k->a.busiest_memory),
            pc_unit_words(b, sizeof b, &k->b.busiest_memory), pc_change_name(k->busiest_memory));
  size_t one_side = 0;
  static const pc_change order[] = {PC_CHANGE_WORSE, PC_CHANGE_BETTER, PC_CHANGE_MOVED};
  for (size_t i = 0; i < k->nmetrics; i++)
    one_side += k->metrics[i].change == PC_CHANGE_NOT_COMPARABLE && !pc_one_side_everywhere(d, k->metrics[i].name);
  for (size_t o = 0; o < 3; o++) { /* worse first */
    for (size_t i = 0; i < k->nmetrics; i++) {
      const pc_diff_metric *m = &k->metrics[i];
      if (m->change != order[o]) continue;
      fputs("    ", f);
      pc_put_printable(f, m->name);
      fprintf(f, " %s -> %s", pc_dn(a, sizeof a, m->before), pc_dn(b, sizeof b, m->after));
      if (m->before != 0) fprintf(f, " (%+.1f%%", 100.0 * (m->after - m->before) / fabs(m->before));
      else fputs(" (from 0", f);
      fprintf(f, ", tolerance %s%%): %s\n", pc_dn(c, sizeof c, m->tolerance_pct), pc_change_name(m->change));
    }
  }
  if (one_side) {
    fprintf(f, "    measured on one side only (%zu): ", one_side);
    size_t j = 0;
    for (size_t i = 0; i < k->nmetrics; i++)
      if (k->metrics[i].change == PC_CHANGE_NOT_COMPARABLE && !pc_one_side_everywhere(d, k->metrics[i].name)) {
        if (j++) fputs(", ", f);
        pc_put_printable(f, k->metrics[i].name);
      }
    fputc('\n', f);
  }
}

static void pc_text_presence(FILE *f, const pc_diff_kernel *k) {
  char a[32];
  const pc_diff_side *s = k->presence == PC_ADDED ? &k->b : &k->a;
  pc_text_kernel_head(f, k);
  fprintf(f, "]: %" PRIu64 " launch%s, median %s, step %d %s\n", s->launches, s->launches == 1 ? "" : "es",
          pc_words_ns(a, sizeof a, s->dur_median), s->verdict.step, perfcheck_cause_name(s->verdict.cause));
}

static void pc_text_region(FILE *f, const pc_diff_region *g) {
  char a[32], b[32];
  fputs("  region ", f);
  pc_put_printable(f, g->name);
  if (g->presence != PC_PAIRED) {
    fprintf(f, ": %s\n", pc_presence_name(g->presence));
    return;
  }
  fprintf(f, ": wall %s -> %s", pc_words_ns(a, sizeof a, g->wall_a), pc_words_ns(b, sizeof b, g->wall_b));
  if (pc_has(g->time_change_pct)) fprintf(f, " (%+.1f%%)", g->time_change_pct);
  fprintf(f, ": %s%s", pc_time_word(g->time), g->replay_dominated ? " (counter replay, see the notes)" : "");
  if (g->verdict != PC_CHANGE_SAME)
    fprintf(f, "; step 1 %s -> %s: %s", perfcheck_cause_name(g->verdict_a.cause), perfcheck_cause_name(g->verdict_b.cause),
            pc_change_name(g->verdict));
  fputc('\n', f);
}

/* One line for the metrics measured on one side only in every pair. */
static void pc_text_one_side_everywhere(FILE *f, const pc_diff *d) {
  const pc_diff_kernel *k0 = NULL;
  for (size_t i = 0; i < d->nkernels && !k0; i++)
    if (d->kernels[i].presence == PC_PAIRED) k0 = &d->kernels[i];
  if (!k0) return;
  size_t n = 0;
  for (size_t i = 0; i < k0->nmetrics; i++)
    n += k0->metrics[i].change == PC_CHANGE_NOT_COMPARABLE && pc_one_side_everywhere(d, k0->metrics[i].name);
  if (!n) return;
  fprintf(f, "measured on one side only, in every pair (%zu, not compared; the metric sets differ): ", n);
  size_t j = 0;
  for (size_t i = 0; i < k0->nmetrics && j < 8; i++)
    if (k0->metrics[i].change == PC_CHANGE_NOT_COMPARABLE && pc_one_side_everywhere(d, k0->metrics[i].name)) {
      if (j++) fputs(", ", f);
      pc_put_printable(f, k0->metrics[i].name);
    }
  if (n > j) fprintf(f, " and %zu more (the JSON form lists each pair's)", n - j);
  fputc('\n', f);
}

perfcheck_status pc_diff_write_text(const pc_diff *d, FILE *f, pc_err *err) {
  pc_err_clear(err);
  if (!d || !f) return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "pc_diff_write_text: NULL argument");
  pc_locale_guard lg;
  pc_locale_begin(&lg);
  char p[32];
  fputs("perfcheck diff: before ", f);
  pc_put_printable(f, d->name_a);
  fputs(", after ", f);
  pc_put_printable(f, d->name_b);
  fputc('\n', f);
  char tol[2048];
  pc_tolerance_text(tol, sizeof tol, d->time_band_pct);
  fprintf(f, "tolerances: %s\n", tol);
  (void)p;
  for (size_t i = 0; i < d->nnotes; i++) fprintf(f, "note: %s\n", d->notes[i]);
  pc_text_one_side_everywhere(f, d);

  static const pc_change order[] = {PC_CHANGE_WORSE, PC_CHANGE_BETTER, PC_CHANGE_MOVED};
  static const char *const heads[] = {"Worse", "Better", "Moved (beyond tolerance, no better or worse)"};
  for (int o = 0; o < 3; o++) {
    if (!d->count[order[o]]) continue;
    fprintf(f, "\n%s (%zu)\n", heads[o], d->count[order[o]]);
    for (size_t i = 0; i < d->nkernels; i++)
      if (d->kernels[i].presence == PC_PAIRED && d->kernels[i].overall == order[o]) pc_text_kernel(f, d, &d->kernels[i]);
  }
  if (d->count[PC_CHANGE_SAME]) {
    fprintf(f, "\nUnchanged within tolerance (%zu): ", d->count[PC_CHANGE_SAME]);
    size_t j = 0;
    for (size_t i = 0; i < d->nkernels; i++)
      if (d->kernels[i].presence == PC_PAIRED && d->kernels[i].overall == PC_CHANGE_SAME) {
        if (j++) fputs("; ", f);
        pc_put_printable(f, d->kernels[i].label);
      }
    fputc('\n', f);
  }
  for (int pr = PC_ADDED; pr <= PC_REMOVED; pr++) {
    size_t n = pr == PC_ADDED ? d->added : d->removed;
    if (!n) continue;
    fprintf(f, "\n%s (%zu): only in the %s report\n", pr == PC_ADDED ? "Added" : "Removed", n,
            pr == PC_ADDED ? "after" : "before");
    for (size_t i = 0; i < d->nkernels; i++)
      if ((int)d->kernels[i].presence == pr) pc_text_presence(f, &d->kernels[i]);
  }
  if (d->nregions) {
    fputs("\nRegions\n", f);
    for (size_t i = 0; i < d->nregions; i++) pc_text_region(f, &d->regions[i]);
  }
  size_t rw = 0;
  for (size_t i = 0; i < d->nregions; i++) rw += d->regions[i].overall == PC_CHANGE_WORSE;
  fprintf(f,
          "\nperfcheck diff: %zu kernel%s worse, %zu better, %zu moved, %zu unchanged, %zu added, %zu removed; "
          "%zu region%s worse\n",
          d->count[PC_CHANGE_WORSE], d->count[PC_CHANGE_WORSE] == 1 ? "" : "s", d->count[PC_CHANGE_BETTER],
          d->count[PC_CHANGE_MOVED], d->count[PC_CHANGE_SAME], d->added, d->removed, rw, rw == 1 ? "" : "s");
  pc_locale_end(&lg);
  if (fflush(f) != 0 || ferror(f)) return pc_err_set(err, PERFCHECK_ERROR_IO, "writing the diff failed");
  return PERFCHECK_OK;
}

/* ---- JSON ------------------------------------------------------------------------- */

static void pc_jverdict(FILE *f, const pc_finding *v) {
  fprintf(f, "{\"step\": %d, \"cause\": \"%s\", \"metric\": ", v->step, perfcheck_cause_name(v->cause));
  pc_json_string(f, v->metric[0] ? v->metric : NULL);
  fputs(", \"value\": ", f);
  pc_json_number(f, v->value);
  fputs("}", f);
}

static void pc_junit(FILE *f, const pc_unit_load *u) {
  if (!u->name) {
    fputs("null", f);
    return;
  }
  fputs("{\"name\": ", f);
  pc_json_string(f, u->name);
  fputs(", \"pct\": ", f);
  pc_json_number(f, u->pct);
  fputs(", \"metric\": ", f);
  pc_json_string(f, u->metric);
  fputs("}", f);
}

static void pc_jside(FILE *f, const pc_diff_side *s) {
  fprintf(f, "{\"launches\": %" PRIu64 ", \"duration_ns\": {\"min\": ", s->launches);
  pc_json_number(f, s->dur_min);
  fputs(", \"median\": ", f);
  pc_json_number(f, s->dur_median);
  fputs(", \"max\": ", f);
  pc_json_number(f, s->dur_max);
  fputs("}, \"total_ns\": ", f);
  pc_json_number(f, s->total);
  fputs(", \"kernel_time_share\": ", f);
  pc_json_number(f, s->share);
  fputs(", \"busiest_pipe\": ", f);
  pc_junit(f, &s->busiest_pipe);
  fputs(", \"busiest_memory\": ", f);
  pc_junit(f, &s->busiest_memory);
  fputs(", \"arithmetic_intensity\": ", f);
  pc_json_number(f, s->ai);
  fputs(", \"gflops\": ", f);
  pc_json_number(f, s->gflops);
  fputs(", \"verdict\": ", f);
  pc_jverdict(f, &s->verdict);
  fprintf(f, ", \"bound\": \"%s\"}", perfcheck_bound_name(s->bound));
}

static void pc_jdevice(FILE *f, const pc_device *d, const char *source) {
  fputs("{\"device\": ", f);
  pc_json_string(f, d->name[0] ? d->name : NULL);
  fputs(", \"source\": ", f);
  pc_json_string(f, source);
  fputs(", \"peak_dram_bytes_per_s\": ", f);
  pc_json_number(f, d->peak_dram_bytes_per_s);
  fputs(", \"peak_fp32_flop_per_s\": ", f);
  pc_json_number(f, d->peak_fp32_flop_per_s);
  fputs("}", f);
}

perfcheck_status pc_diff_write_json(const pc_diff *d, FILE *f, pc_err *err) {
  pc_err_clear(err);
  if (!d || !f) return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "pc_diff_write_json: NULL argument");
  pc_locale_guard lg;
  pc_locale_begin(&lg);
  fputs("{\n  \"schema\": \"perfcheck-diff/1\",\n  \"tool\": {\"name\": \"perfcheck\", \"version\": \"" PERFCHECK_VERSION_STRING
        "\"},\n  \"before\": ",
        f);
  pc_json_string(f, d->name_a);
  fputs(",\n  \"after\": ", f);
  pc_json_string(f, d->name_b);
  fputs(",\n  \"before_device\": ", f);
  pc_jdevice(f, &d->device_a, d->source_a);
  fputs(",\n  \"after_device\": ", f);
  pc_jdevice(f, &d->device_b, d->source_b);
  fputs(",\n  \"tolerance\": {\"duration_pct\": ", f);
  pc_json_number(f, d->time_band_pct);
  fputs(", \"rate_pct\": 5, \"count_pct\": 1},\n", f);
  fprintf(f, "  \"worse\": %zu,\n  \"summary\": {\"worse\": %zu, \"better\": %zu, \"moved\": %zu, \"same\": %zu, "
             "\"added\": %zu, \"removed\": %zu},\n  \"notes\": [",
          d->worse, d->count[PC_CHANGE_WORSE], d->count[PC_CHANGE_BETTER], d->count[PC_CHANGE_MOVED],
          d->count[PC_CHANGE_SAME], d->added, d->removed);
  for (size_t i = 0; i < d->nnotes; i++) {
    if (i) fputs(", ", f);
    pc_json_string(f, d->notes[i]);
  }
  fputs("],\n  \"kernels\": [", f);
  for (size_t i = 0; i < d->nkernels; i++) {
    const pc_diff_kernel *k = &d->kernels[i];
    fputs(i ? ",\n    {" : "\n    {", f);
    fputs("\"name\": ", f);
    pc_json_string(f, k->name);
    fputs(", \"label\": ", f);
    pc_json_string(f, k->label);
    fputs(", \"region\": ", f);
    pc_json_string(f, k->region);
    fprintf(f, ", \"grid\": [%u, %u, %u], \"block\": [%u, %u, %u], \"dynamic_smem_bytes\": ", k->grid[0], k->grid[1],
            k->grid[2], k->block[0], k->block[1], k->block[2]);
    pc_json_number(f, k->dynamic_smem);
    fprintf(f, ",\n     \"presence\": \"%s\", \"change\": \"%s\",\n     \"before\": ", pc_presence_name(k->presence),
            k->presence == PC_PAIRED ? pc_change_name(k->overall) : pc_presence_name(k->presence));
    if (k->presence == PC_ADDED) fputs("null", f);
    else pc_jside(f, &k->a);
    fputs(",\n     \"after\": ", f);
    if (k->presence == PC_REMOVED) fputs("null", f);
    else pc_jside(f, &k->b);
    fputs(",\n     \"time\": {\"change_pct\": ", f);
    pc_json_number(f, k->time_change_pct);
    fputs(", \"band_pct\": ", f);
    pc_json_number(f, k->time_band_pct);
    fprintf(f,
            ", \"change\": \"%s\"}, \"verdict_change\": \"%s\",\n     \"busiest_change\": {\"pipe\": \"%s\", "
            "\"memory\": \"%s\"},\n     \"metrics\": [",
            pc_change_name(k->time), pc_change_name(k->verdict),
            k->presence == PC_PAIRED ? pc_change_name(k->busiest_pipe) : "not_comparable",
            k->presence == PC_PAIRED ? pc_change_name(k->busiest_memory) : "not_comparable");
    for (size_t j = 0; j < k->nmetrics; j++) {
      const pc_diff_metric *m = &k->metrics[j];
      fputs(j ? ", {\"name\": " : "{\"name\": ", f);
      pc_json_string(f, m->name);
      fputs(", \"before\": ", f);
      pc_json_number(f, m->before);
      fputs(", \"after\": ", f);
      pc_json_number(f, m->after);
      fputs(", \"tolerance_pct\": ", f);
      pc_json_number(f, m->tolerance_pct);
      fprintf(f, ", \"change\": \"%s\"}", pc_change_name(m->change));
    }
    fputs("]}", f);
  }
  fputs(d->nkernels ? "\n  ],\n  \"regions\": [" : "],\n  \"regions\": [", f);
  for (size_t i = 0; i < d->nregions; i++) {
    const pc_diff_region *g = &d->regions[i];
    fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
    pc_json_string(f, g->name);
    fputs(", \"parent\": ", f);
    pc_json_string(f, g->parent);
    fprintf(f, ", \"depth\": %d, \"presence\": \"%s\", \"change\": \"%s\",\n     \"wall_ns\": {\"before\": ", g->depth,
            pc_presence_name(g->presence),
            g->presence == PC_PAIRED ? pc_change_name(g->overall) : pc_presence_name(g->presence));
    pc_json_number(f, g->wall_a);
    fputs(", \"after\": ", f);
    pc_json_number(f, g->wall_b);
    fputs("}, \"kernel_ns\": {\"before\": ", f);
    pc_json_number(f, g->kernel_a);
    fputs(", \"after\": ", f);
    pc_json_number(f, g->kernel_b);
    fputs("}, \"time\": {\"change_pct\": ", f);
    pc_json_number(f, g->time_change_pct);
    fprintf(f, ", \"change\": \"%s\"}, \"verdict\": {\"before\": \"%s\", \"after\": \"%s\", \"change\": \"%s\"}}",
            pc_change_name(g->time), perfcheck_cause_name(g->verdict_a.cause), perfcheck_cause_name(g->verdict_b.cause),
            pc_change_name(g->verdict));
  }
  fputs(d->nregions ? "\n  ]\n}\n" : "]\n}\n", f);
  pc_locale_end(&lg);
  if (fflush(f) != 0 || ferror(f)) return pc_err_set(err, PERFCHECK_ERROR_IO, "writing the JSON diff failed");
  return PERFCHECK_OK;
}

/* ---- HTML -------------------------------------------------------------------------- */

static const char *pc_row_class(const pc_diff_kernel *k) {
  if (k->presence == PC_ADDED) return "added";
  if (k->presence == PC_REMOVED) return "removed";
  return k->overall == PC_CHANGE_WORSE ? "worse" : k->overall == PC_CHANGE_BETTER ? "better" : "";
}

static void pc_html_metric_moves(FILE *f, const pc_diff *d, const pc_diff_kernel *k) {
  char a[40], b[40];
  size_t shown = 0, one_side = 0;
  if (k->busiest_pipe != PC_CHANGE_SAME)
    fprintf(f, "%sbusiest pipe %s &#8594; %s <b>%s</b>", shown++ ? "<br>" : "", pc_unit_words(a, sizeof a, &k->a.busiest_pipe),
            pc_unit_words(b, sizeof b, &k->b.busiest_pipe), pc_change_name(k->busiest_pipe));
  if (k->busiest_memory != PC_CHANGE_SAME)
    fprintf(f, "%sbusiest memory %s &#8594; %s <b>%s</b>", shown++ ? "<br>" : "",
            pc_unit_words(a, sizeof a, &k->a.busiest_memory), pc_unit_words(b, sizeof b, &k->b.busiest_memory),
            pc_change_name(k->busiest_memory));
  static const pc_change order[] = {PC_CHANGE_WORSE, PC_CHANGE_BETTER, PC_CHANGE_MOVED};
  for (size_t i = 0; i < k->nmetrics; i++)
    one_side += k->metrics[i].change == PC_CHANGE_NOT_COMPARABLE && !pc_one_side_everywhere(d, k->metrics[i].name);
  for (size_t o = 0; o < 3; o++) { /* worse first */
    for (size_t i = 0; i < k->nmetrics; i++) {
      const pc_diff_metric *m = &k->metrics[i];
      if (m->change != order[o]) continue;
      fputs(shown++ ? "<br>" : "", f);
      fprintf(f, "<span class=\"mono\">");
      pc_html_text(f, m->name);
      fprintf(f, "</span> %s &#8594; %s <b>%s</b>", pc_dn(a, sizeof a, m->before), pc_dn(b, sizeof b, m->after),
              pc_change_name(m->change));
    }
  }
  if (one_side) fprintf(f, "%s<span class=\"why\">%zu measured on one side only</span>", shown ? "<br>" : "", one_side);
  if (!shown && !one_side) fputs("-", f);
}

perfcheck_status pc_diff_write_html(const pc_diff *d, FILE *f, pc_err *err) {
  pc_err_clear(err);
  if (!d || !f) return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "pc_diff_write_html: NULL argument");
  pc_locale_guard lg;
  pc_locale_begin(&lg);
  pc_roof_point *pts = calloc(d->nkernels ? d->nkernels : 1, sizeof *pts);
  if (!pts) {
    pc_locale_end(&lg);
    return pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "pc_diff_write_html: out of memory");
  }
  char a[64], b[64], t[400];
  pc_html_begin(f, "perfcheck diff");
  fputs("<header>\n<h1>perfcheck diff</h1>\n<p class=\"meta\">before <b>", f);
  pc_html_text(f, d->name_a);
  fputs("</b> (", f);
  pc_html_text(f, d->device_a.name[0] ? d->device_a.name : "unknown device");
  fputs(", ", f);
  pc_html_text(f, d->source_a);
  fputs("), after <b>", f);
  pc_html_text(f, d->name_b);
  fputs("</b> (", f);
  pc_html_text(f, d->device_b.name[0] ? d->device_b.name : "unknown device");
  fputs(", ", f);
  pc_html_text(f, d->source_b);
  char tol[2048];
  pc_tolerance_text(tol, sizeof tol, d->time_band_pct);
  fputs(").</p>\n<p class=\"meta\">Tolerances: ", f);
  pc_html_text(f, tol);
  fputs(".</p>\n", f);
  {
    /* The metrics measured on one side only in every pair: once, here. */
    char *line = NULL;
    size_t linelen = 0;
    FILE *m = open_memstream(&line, &linelen);
    if (m) {
      pc_text_one_side_everywhere(m, d);
      fclose(m);
      if (line && *line) {
        fputs("<p class=\"meta\">", f);
        pc_html_text(f, line);
        fputs("</p>\n", f);
      }
      free(line);
    }
  }
  fprintf(f, "<p class=\"meta\"><b>%zu worse</b>, %zu better, %zu moved, %zu unchanged, %zu added, %zu removed "
             "kernel entr%s.</p>\n",
          d->count[PC_CHANGE_WORSE], d->count[PC_CHANGE_BETTER], d->count[PC_CHANGE_MOVED], d->count[PC_CHANGE_SAME],
          d->added, d->removed, d->nkernels == 1 ? "y" : "ies");
  for (size_t i = 0; i < d->nnotes; i++) {
    fputs("<p class=\"warnings\">", f);
    pc_html_text(f, d->notes[i]);
    fputs("</p>\n", f);
  }
  fputs("</header>\n<section id=\"pairs\">\n<h2>Kernels</h2>\n<table class=\"kernels\"><thead><tr>"
        "<th data-sort=\"text\">change</th><th data-sort=\"text\">kernel</th><th data-sort=\"num\">before</th>"
        "<th data-sort=\"num\">after</th><th data-sort=\"num\">time change</th><th>time</th><th>verdict</th>"
        "<th>moved beyond tolerance</th></tr></thead><tbody>\n",
        f);
  for (size_t i = 0; i < d->nkernels; i++) {
    const pc_diff_kernel *k = &d->kernels[i];
    char sig[160];
    pc_signature_text(sig, sizeof sig, k);
    fprintf(f, "<tr id=\"k%zu\" class=\"%s\"><td>%s</td><td class=\"name\">", i, pc_row_class(k),
            k->presence == PC_PAIRED ? pc_change_name(k->overall) : pc_presence_name(k->presence));
    pc_html_text(f, k->label);
    fputs("<br><span class=\"why\">", f);
    pc_html_text(f, sig);
    if (k->region) {
      fputs(" in ", f);
      pc_html_text(f, k->region);
    }
    fputs("</span></td>", f);
    const double ma = k->a.dur_median, mb = k->b.dur_median;
    char v[40];
    fprintf(f, "<td class=\"n\" data-v=\"%s\">%s</td>", pc_has(ma) ? (pc_fmt_double(v, sizeof v, ma), v) : "",
            pc_words_ns(a, sizeof a, ma));
    fprintf(f, "<td class=\"n\" data-v=\"%s\">%s</td>", pc_has(mb) ? (pc_fmt_double(v, sizeof v, mb), v) : "",
            pc_words_ns(b, sizeof b, mb));
    if (pc_has(k->time_change_pct))
      fprintf(f, "<td class=\"n\" data-v=\"%.6g\">%+.1f%%</td>", k->time_change_pct, k->time_change_pct);
    else
      fputs("<td class=\"n\" data-v=\"\">-</td>", f);
    if (k->presence == PC_PAIRED) {
      pc_time_text(t, sizeof t, k);
      fprintf(f, "<td><b>%s</b><br><span class=\"why\">", pc_time_word(k->time));
      pc_html_text(f, t);
      fputs("</span></td>", f);
      fprintf(f, "<td>step %d %s &#8594; step %d %s<br><b>%s</b></td><td>", k->a.verdict.step,
              perfcheck_cause_name(k->a.verdict.cause), k->b.verdict.step, perfcheck_cause_name(k->b.verdict.cause),
              pc_change_name(k->verdict));
      pc_html_metric_moves(f, d, k);
      fputs("</td></tr>\n", f);
    } else {
      const pc_diff_side *s = k->presence == PC_ADDED ? &k->b : &k->a;
      fprintf(f, "<td>only %s</td><td>step %d %s</td><td>-</td></tr>\n",
              k->presence == PC_ADDED ? "after" : "before", s->verdict.step, perfcheck_cause_name(s->verdict.cause));
    }
    /* The roofline: where the kernel is after, and where it was. */
    pc_roof_point *p = &pts[i];
    p->index = i;
    p->label = k->label;
    p->ai = k->b.ai, p->gflops = k->b.gflops;
    p->from_ai = k->a.ai, p->from_gflops = k->a.gflops;
    p->share = k->presence == PC_REMOVED ? PC_NULL : k->b.share; /* the after run's share */
    p->cause = k->presence == PC_REMOVED ? k->a.verdict.cause : k->b.verdict.cause;
    p->cause_before = k->presence == PC_PAIRED ? perfcheck_cause_name(k->a.verdict.cause) : NULL;
    if (k->presence == PC_REMOVED)
      snprintf(p->why, sizeof p->why, "removed: only in the before report");
    else if (!pc_roof_point_drawn(p))
      snprintf(p->why, sizeof p->why, "intensity or FLOP/s not measured in the after report");
  }
  fputs("</tbody></table>\n</section>\n", f);
  if (d->nregions) {
    fputs("<section id=\"regions\">\n<h2>Regions</h2>\n<table><thead><tr><th>change</th><th>region</th>"
          "<th>wall before</th><th>wall after</th><th>change</th><th>step 1</th></tr></thead><tbody>\n",
          f);
    for (size_t i = 0; i < d->nregions; i++) {
      const pc_diff_region *g = &d->regions[i];
      fprintf(f, "<tr class=\"%s\"><td>%s</td><td>", g->overall == PC_CHANGE_WORSE ? "worse" : "",
              g->presence == PC_PAIRED ? pc_change_name(g->overall) : pc_presence_name(g->presence));
      pc_html_text(f, g->name);
      fprintf(f, "</td><td class=\"n\">%s</td><td class=\"n\">%s</td>", pc_words_ns(a, sizeof a, g->wall_a),
              pc_words_ns(b, sizeof b, g->wall_b));
      if (pc_has(g->time_change_pct))
        fprintf(f, "<td class=\"n\">%+.1f%% %s</td>", g->time_change_pct, pc_time_word(g->time));
      else
        fputs("<td class=\"n\">-</td>", f);
      fprintf(f, "<td>%s &#8594; %s: %s</td></tr>\n", perfcheck_cause_name(g->verdict_a.cause),
              perfcheck_cause_name(g->verdict_b.cause), pc_change_name(g->verdict));
    }
    fputs("</tbody></table>\n</section>\n", f);
  }
  fputs("<p class=\"note\">On the roofline a hollow circle is where a kernel was before and the arrow points to "
        "where it is after; a kernel whose point did not move has no arrow.</p>\n",
        f);
  int roof = pc_html_roofline(f, "roofline", &d->device_b, pts, d->nkernels);
  pc_html_end(f);
  free(pts);
  pc_locale_end(&lg);
  if (roof != 0) return pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "pc_diff_write_html: out of memory");
  if (fflush(f) != 0 || ferror(f)) return pc_err_set(err, PERFCHECK_ERROR_IO, "writing the HTML diff failed");
  return PERFCHECK_OK;
}
