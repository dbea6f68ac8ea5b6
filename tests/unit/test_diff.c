/* perfcheck diff's core (pc_diff.c, pc_write_diff.c): pairing, the time
 * change against its noise band, verdict changes, metrics beyond the
 * expectations' tolerance, kernels that appear or disappear, regions; on
 * real H200 exports (one run against itself in other units, two runs of the
 * same program, a planted uncoalesced kernel) and on made-up reports for the
 * edges; the three writers and the public API. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/pc_core.h"
#include "report/pc_diff.h"
#include "read/pc_json.h"
#include "check/pc_check.h"
#include "write/pc_write_diff.h"
#include "model/pc_diff_model.h"
#include "base/pc_util.h"

static pc_report *load(const char *file) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", PERFCHECK_TEST_DATA, file);
  perfcheck_report *r = NULL;
  if (perfcheck_report_from_ncu_csv(path, 1, &r) != PERFCHECK_OK) fail_msg("%s: %s", path, perfcheck_last_error_message());
  return r;
}

static pc_diff *diff(const pc_report *a, const pc_report *b) {
  pc_diff *d = NULL;
  assert_int_equal(pc_diff_reports(a, b, "A", "B", &d), PERFCHECK_OK);
  assert_non_null(d);
  return d;
}

static const pc_diff_kernel *find(const pc_diff *d, const char *label) {
  for (size_t i = 0; i < d->nkernels; i++)
    if (strcmp(d->kernels[i].label, label) == 0) return &d->kernels[i];
  fail_msg("no kernel %s in the diff", label);
  return NULL;
}

static const pc_diff_metric *metric(const pc_diff_kernel *k, const char *name) {
  for (size_t i = 0; i < k->nmetrics; i++)
    if (strcmp(k->metrics[i].name, name) == 0) return &k->metrics[i];
  return NULL;
}

static size_t count_of(const char *s, const char *needle) {
  size_t n = 0;
  for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle)) n++;
  return n;
}

static char *written(const pc_diff *d, perfcheck_format fmt) {
  /* Static, not local: gcc 12 -O3's -Wdangling-pointer reads open_memstream's
   * hold on a local's address as a dangling pointer in the callers. */
  static char *buf;
  static size_t len;
  buf = NULL;
  len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  assert_int_equal(perfcheck_diff_write(d, fmt, f), PERFCHECK_OK);
  fclose(f);
  return buf;
}

/* The same H200 run, exported in ncu's units and in base units: nothing may
 * move, so unit conversion and pairing are exact. */
static void test_same_run_other_units(void **state) {
  (void)state;
  pc_report *a = load("h200/mystery.csv"), *b = load("h200/mystery.base-units.csv");
  pc_diff *d = diff(a, b);
  assert_int_equal(d->nkernels, 4);
  assert_int_equal(d->worse, 0);
  assert_int_equal(d->count[PC_CHANGE_SAME], 4);
  assert_int_equal(d->added + d->removed, 0);
  for (size_t i = 0; i < d->nkernels; i++) {
    assert_int_equal(d->kernels[i].presence, PC_PAIRED);
    assert_int_equal(d->kernels[i].time, PC_CHANGE_SAME);
    assert_int_equal(d->kernels[i].verdict, PC_CHANGE_SAME);
    assert_int_equal(d->kernels[i].moved, 0);
  }
  /* The two mysteryC launches pair with their own signature. */
  assert_true(find(d, "mysteryC, 116736 B dynamic")->a.verdict.cause == PERFCHECK_CAUSE_OCCUPANCY_SHARED_MEMORY);
  assert_true(find(d, "mysteryC, 0 B dynamic")->a.verdict.cause == PERFCHECK_CAUSE_AT_ROOF);
  pc_diff_free(d);
  pc_report_free(a);
  pc_report_free(b);
}

/* Two runs of each reference program (cache control all, then none):
 * nothing got worse.  DRAM bytes move with the cache mode (listed as moved,
 * never as worse); store sectors differ by 0.2% between the runs, inside
 * the 1% a count gets between runs. */
static size_t faster_kernels(const pc_diff *d) {
  size_t n = 0;
  for (size_t i = 0; i < d->nkernels; i++) n += d->kernels[i].time == PC_CHANGE_BETTER;
  return n;
}

static void test_two_runs(void **state) {
  (void)state;
  const char *programs[] = {"mystery", "occupancy", "launches", "atomics", "roundtrip"};
  for (size_t p = 0; p < 5; p++) {
    char fa[64], fb[64];
    snprintf(fa, sizeof fa, "h200/%s.csv", programs[p]);
    snprintf(fb, sizeof fb, "h200/%s.cache-none.csv", programs[p]);
    pc_report *a = load(fa), *b = load(fb);
    pc_diff *d = diff(a, b);
    if (d->worse) fail_msg("%s: %zu worse between two runs", programs[p], d->worse);
    assert_int_equal(faster_kernels(d), strcmp(programs[p], "roundtrip") == 0 ? 1 : 0);
    assert_int_equal(d->added + d->removed, 0);
    /* Not slower; one 2 us kernel of roundtrip ran 12% faster in the second
     * run (a single launch each: no spread to widen the band). */
    for (size_t i = 0; i < d->nkernels; i++) assert_int_not_equal(d->kernels[i].time, PC_CHANGE_WORSE);
    pc_diff_free(d);
    pc_report_free(a);
    pc_report_free(b);
  }
  /* mysteryA's store sectors: 4181465 then 4190490, within 1%. */
  pc_report *a = load("h200/mystery.csv"), *b = load("h200/mystery.cache-none.csv");
  pc_diff *d = diff(a, b);
  const pc_diff_kernel *k = find(d, "mysteryA");
  assert_null(metric(k, "sectors_per_request_st"));
  const pc_diff_metric *w = metric(k, "dram__bytes_write.sum");
  assert_non_null(w);
  assert_int_equal(w->change, PC_CHANGE_MOVED);
  assert_true(w->tolerance_pct == 5.0);
  pc_diff_free(d);
  pc_report_free(a);
  pc_report_free(b);
}

/* scaleAdd<1> made uncoalesced in the after report, as
 * tests/html/plant_uncoalesced.py does to the CSV. */
static void plant(pc_report *r, const char *name) {
  for (size_t i = 0; i < r->nkernels; i++) {
    pc_kernel *k = &r->kernels[i];
    if (strcmp(k->name, name) != 0) continue;
    k->metric[PC_M_LD_SECTORS] *= 8;
    k->metric[PC_M_ST_SECTORS] *= 8;
    k->metric[PC_M_DURATION] *= 3;
    k->dur_min_ns *= 3, k->dur_median_ns *= 3, k->dur_max_ns *= 3, k->total_ns *= 3;
    k->metric[PC_M_MEM_THROUGHPUT_PCT] = 92;
    k->metric[PC_M_DRAM_THROUGHPUT_PCT] /= 3;
  }
  pc_checklist_report(r);
}

static void test_planted_uncoalesced(void **state) {
  (void)state;
  pc_report *a = load("h200/occupancy.csv"), *b = load("h200/occupancy.csv");
  plant(b, "scaleAdd<1>");
  pc_diff *d = diff(a, b);
  assert_int_equal(d->worse, 2);
  assert_int_equal(d->count[PC_CHANGE_WORSE], 2);
  assert_int_equal(d->count[PC_CHANGE_SAME], 1);
  const pc_diff_kernel *k = find(d, "scaleAdd<1>, 0 B dynamic");
  assert_int_equal(k->overall, PC_CHANGE_WORSE);
  assert_int_equal(k->time, PC_CHANGE_WORSE);
  assert_true(fabs(k->time_change_pct - 200.0) < 1e-9);
  assert_int_equal(k->verdict, PC_CHANGE_WORSE);
  assert_int_equal(k->a.verdict.cause, PERFCHECK_CAUSE_LATENCY_BOUND);
  assert_int_equal(k->b.verdict.cause, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS);
  const pc_diff_metric *m = metric(k, "sectors_per_request_ld");
  assert_non_null(m);
  assert_int_equal(m->change, PC_CHANGE_WORSE);
  assert_true(m->before == 4 && m->after == 32);
  m = metric(k, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
  assert_non_null(m);
  assert_int_equal(m->change, PC_CHANGE_MOVED);
  assert_int_equal(find(d, "scaleAdd<4>")->overall, PC_CHANGE_SAME);

  /* The writers name it, its verdict change and its time change. */
  char *text = written(d, PERFCHECK_FORMAT_TEXT);
  /* Worse entries in the after report's order (by total time: the planted
   * 116736 B launch first), each with its time, total and share. */
  assert_non_null(strstr(text, "\nWorse (2)\n  scaleAdd<1>, 116736 B dynamic [grid 65536x1x1 block 256x1x1 dynamic "
                               "smem 116736 B]\n"));
  assert_non_null(strstr(text, "\n  scaleAdd<1>, 0 B dynamic [grid 65536x1x1 block 256x1x1]\n"
                               "    time +200.0% (median 58.14 us -> 174.4 us; band 10%), total 58.14 us -> 174.4 us, "
                               "share 11.27% -> 13.29%: slower\n"
                               "    verdict: step 0 latency_bound -> step 3 uncoalesced_global_loads: worse\n"));
  assert_non_null(strstr(text, "    sectors_per_request_ld 4 -> 32 (+700.0%, tolerance 1%): worse\n"));
  assert_non_null(strstr(text, "\nUnchanged within tolerance (1): scaleAdd<4>\n"));
  assert_non_null(strstr(text, "perfcheck diff: 2 kernels worse, 0 better, 0 moved, 1 unchanged, 0 added, 0 removed"));
  free(text);

  char *json = written(d, PERFCHECK_FORMAT_JSON);
  pc_json root;
  pc_err err;
  if (pc_json_parse(json, strlen(json), "diff.json", &root, &err) != PERFCHECK_OK) fail_msg("%s", err.msg);
  assert_string_equal(pc_json_get(&root, "schema")->string, "perfcheck-diff/1");
  assert_true(pc_json_get(&root, "worse")->number == 2);
  const pc_json *ks = pc_json_get(&root, "kernels");
  assert_int_equal(ks->n, 3);
  const pc_json *k0 = NULL;
  for (size_t i = 0; i < ks->n; i++)
    if (strcmp(pc_json_get(&ks->items[i], "label")->string, "scaleAdd<1>, 0 B dynamic") == 0) k0 = &ks->items[i];
  assert_non_null(k0);
  assert_string_equal(pc_json_get(k0, "name")->string, "scaleAdd<1>"); /* the display name */
  assert_string_equal(pc_json_get(k0, "change")->string, "worse");
  /* Each side's time in the export, share of it and busiest units. */
  const pc_json *before = pc_json_get(k0, "before"), *after = pc_json_get(k0, "after");
  assert_true(pc_json_get(before, "total_ns")->number == 58144);
  assert_true(pc_json_get(after, "total_ns")->number == 174432);
  assert_true(fabs(pc_json_get(before, "kernel_time_share")->number - 58144.0 / 516000.0) < 1e-9);
  assert_int_equal(pc_json_get(before, "busiest_pipe")->type, PC_JSON_NULL);
  assert_string_equal(pc_json_get(pc_json_get(before, "busiest_memory"), "name")->string, "dram");
  assert_true(pc_json_get(pc_json_get(before, "busiest_memory"), "pct")->number == 67.642424);
  assert_string_equal(pc_json_get(pc_json_get(k0, "busiest_change"), "memory")->string, "same");
  assert_string_equal(pc_json_get(k0, "verdict_change")->string, "worse");
  assert_string_equal(pc_json_get(pc_json_get(pc_json_get(k0, "after"), "verdict"), "cause")->string,
                      "uncoalesced_global_loads");
  assert_true(pc_json_get(pc_json_get(k0, "time"), "change_pct")->number == 200);
  pc_json_free(&root);
  free(json);

  char *html = written(d, PERFCHECK_FORMAT_HTML);
  size_t points = 0, froms = 0;
  for (const char *p = strstr(html, "<circle class=\"point\""); p; p = strstr(p + 1, "<circle class=\"point\"")) points++;
  for (const char *p = strstr(html, "<circle class=\"from\""); p; p = strstr(p + 1, "<circle class=\"from\"")) froms++;
  assert_int_equal(points, 3);
  assert_int_equal(froms, 3);
  assert_non_null(strstr(html, "<tr id=\"k0\" class=\"worse\"><td>worse</td>"));
  /* The after run's shares size the points. */
  assert_non_null(strstr(html, "a point's area is proportional to the kernel's share"));
  assert_int_equal(count_of(html, "data-share=\""), 3);
  assert_non_null(strstr(html, "latency_bound &#8594; uncoalesced_global_loads"));
  free(html);
  pc_diff_free(d);
  pc_report_free(a);
  pc_report_free(b);
}

/* ---- Made-up reports for the edges ----------------------------------------------- */

static pc_kernel *add(pc_report *r, const char *name, unsigned grid, double min, double med, double max) {
  pc_kernel *k = pc_report_add_kernel(r);
  assert_non_null(k);
  k->name = pc_strdup(name);
  k->grid[0] = grid, k->grid[1] = k->grid[2] = 1;
  k->block[0] = 256, k->block[1] = k->block[2] = 1;
  k->dynamic_smem = 0;
  k->launches = 10;
  k->dur_min_ns = min, k->dur_median_ns = med, k->dur_max_ns = max;
  k->diag.verdict.cause = PERFCHECK_CAUSE_AT_ROOF;
  return k;
}

static void set_verdict(pc_kernel *k, int step, perfcheck_cause cause) {
  k->diag.verdict.step = step;
  k->diag.verdict.cause = cause;
}

static void test_time_band(void **state) {
  (void)state;
  pc_report *a = pc_report_new(), *b = pc_report_new();
  add(a, "slower", 1, 95, 100, 120);
  add(b, "slower", 1, 112, 115, 130); /* +15%, fastest after launch above 100 */
  add(a, "noise", 1, 95, 100, 120);
  add(b, "noise", 1, 95, 115, 300); /* +15%, but an after launch ran at 95 */
  add(a, "inside", 1, 100, 100, 100);
  add(b, "inside", 1, 109, 109, 109); /* +9% */
  add(a, "faster", 1, 200, 200, 200);
  add(b, "faster", 1, 150, 150, 150);
  add(a, "unmeasured", 1, PC_NULL, PC_NULL, PC_NULL);
  add(b, "unmeasured", 1, 1, 1, 1);
  pc_diff *d = diff(a, b);
  assert_int_equal(find(d, "slower")->time, PC_CHANGE_WORSE);
  assert_true(fabs(find(d, "slower")->time_change_pct - 15.0) < 1e-9);
  assert_int_equal(find(d, "noise")->time, PC_CHANGE_SAME);
  assert_int_equal(find(d, "inside")->time, PC_CHANGE_SAME);
  assert_int_equal(find(d, "faster")->time, PC_CHANGE_BETTER);
  assert_int_equal(find(d, "faster")->overall, PC_CHANGE_BETTER);
  assert_int_equal(find(d, "unmeasured")->time, PC_CHANGE_NOT_COMPARABLE);
  assert_true(pc_is_null(find(d, "unmeasured")->time_change_pct));
  assert_int_equal(d->worse, 1);
  pc_diff_free(d);
  pc_report_free(a);
  pc_report_free(b);
}

static void test_verdicts(void **state) {
  (void)state;
  const struct {
    int sa;
    perfcheck_cause ca;
    int sb;
    perfcheck_cause cb;
    pc_change want;
  } cases[] = {
      {0, PERFCHECK_CAUSE_AT_ROOF, 3, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS, PC_CHANGE_WORSE},
      {3, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS, 0, PERFCHECK_CAUSE_AT_ROOF, PC_CHANGE_BETTER},
      {3, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS, 5, PERFCHECK_CAUSE_OCCUPANCY_REGISTERS, PC_CHANGE_BETTER},
      {4, PERFCHECK_CAUSE_DIVERGENT_WARPS, 3, PERFCHECK_CAUSE_LOCAL_MEMORY_SPILLS, PC_CHANGE_WORSE},
      {3, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS, 3, PERFCHECK_CAUSE_SHARED_BANK_CONFLICTS, PC_CHANGE_WORSE},
      {0, PERFCHECK_CAUSE_AT_ROOF, 0, PERFCHECK_CAUSE_LATENCY_BOUND, PC_CHANGE_WORSE},
      {0, PERFCHECK_CAUSE_LATENCY_BOUND, 0, PERFCHECK_CAUSE_AT_ROOF, PC_CHANGE_BETTER},
      {0, PERFCHECK_CAUSE_AT_ROOF, 1, PERFCHECK_CAUSE_NOT_THE_SLOW_PART, PC_CHANGE_WORSE},
      {0, PERFCHECK_CAUSE_AT_ROOF, 2, PERFCHECK_CAUSE_NOT_ASSESSED, PC_CHANGE_NOT_COMPARABLE},
      {4, PERFCHECK_CAUSE_DIVERGENT_WARPS, 4, PERFCHECK_CAUSE_DIVERGENT_WARPS, PC_CHANGE_SAME},
  };
  pc_report *a = pc_report_new(), *b = pc_report_new();
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char name[16];
    snprintf(name, sizeof name, "k%zu", i);
    set_verdict(add(a, name, 1, 100, 100, 100), cases[i].sa, cases[i].ca);
    set_verdict(add(b, name, 1, 100, 100, 100), cases[i].sb, cases[i].cb);
  }
  pc_diff *d = diff(a, b);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char name[16];
    snprintf(name, sizeof name, "k%zu", i);
    if (find(d, name)->verdict != cases[i].want)
      fail_msg("%s -> %s: %s, expected %s", perfcheck_cause_name(cases[i].ca), perfcheck_cause_name(cases[i].cb),
               pc_change_name(find(d, name)->verdict), pc_change_name(cases[i].want));
  }
  pc_diff_free(d);
  pc_report_free(a);
  pc_report_free(b);
}

static void test_metric_directions(void **state) {
  (void)state;
  pc_report *a = pc_report_new(), *b = pc_report_new();
  pc_kernel *ka = add(a, "k", 1, 100, 100, 100), *kb = add(b, "k", 1, 100, 100, 100);
  ka->derived.sectors_per_request_ld = 4, kb->derived.sectors_per_request_ld = 4.03; /* +0.75%: same */
  ka->derived.sectors_per_request_st = 4, kb->derived.sectors_per_request_st = 4.2;  /* +5%: worse */
  ka->derived.threads_per_instruction = 32, kb->derived.threads_per_instruction = 16; /* worse */
  ka->derived.achieved_occupancy_pct = 50, kb->derived.achieved_occupancy_pct = 80;   /* better */
  ka->derived.dram_bytes = 1e6, kb->derived.dram_bytes = 1.04e6;                       /* +4%: same (5%) */
  ka->derived.gflops = 100, kb->derived.gflops = 150;                                  /* moved */
  ka->metric[PC_M_LD_REQUESTS] = 1000, kb->metric[PC_M_LD_REQUESTS] = PC_NULL;        /* one side */
  ka->metric[PC_M_DURATION] = 100, kb->metric[PC_M_DURATION] = 1000;                   /* the time, not a metric */
  pc_diff *d = diff(a, b);
  const pc_diff_kernel *k = find(d, "k");
  assert_null(metric(k, "sectors_per_request_ld"));
  assert_int_equal(metric(k, "sectors_per_request_st")->change, PC_CHANGE_WORSE);
  assert_int_equal(metric(k, "threads_per_instruction")->change, PC_CHANGE_WORSE);
  assert_int_equal(metric(k, "achieved_occupancy_pct")->change, PC_CHANGE_BETTER);
  assert_null(metric(k, "dram_bytes"));
  assert_int_equal(metric(k, "gflops")->change, PC_CHANGE_MOVED);
  assert_int_equal(metric(k, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum")->change, PC_CHANGE_NOT_COMPARABLE);
  assert_null(metric(k, "gpu__time_duration.sum"));
  assert_int_equal(k->moved, 4);
  assert_int_equal(k->overall, PC_CHANGE_WORSE);
  pc_diff_free(d);
  pc_report_free(a);
  pc_report_free(b);
}

static void test_pairing(void **state) {
  (void)state;
  pc_report *a = pc_report_new(), *b = pc_report_new();
  add(a, "kept", 64, 10, 10, 10);
  add(a, "regrid", 64, 10, 10, 10);
  add(a, "gone", 64, 10, 10, 10);
  pc_kernel *r1 = add(a, "moved_region", 64, 10, 10, 10);
  r1->region = pc_strdup("phase1");
  add(b, "new", 64, 10, 10, 10);
  add(b, "regrid", 128, 10, 10, 10); /* another signature: removed + added */
  add(b, "kept", 64, 10, 10, 10);
  pc_kernel *r2 = add(b, "moved_region", 64, 10, 10, 10);
  r2->region = pc_strdup("phase2"); /* pairs in a second pass */
  /* Two entries of one signature in two regions pair region by region. */
  add(a, "twice", 1, 10, 10, 10)->region = pc_strdup("x");
  add(a, "twice", 1, 50, 50, 50)->region = pc_strdup("y");
  add(b, "twice", 1, 50, 50, 50)->region = pc_strdup("y");
  add(b, "twice", 1, 10, 10, 10)->region = pc_strdup("x");
  pc_diff *d = diff(a, b);
  assert_int_equal(d->added, 2);
  assert_int_equal(d->removed, 2);
  size_t paired = 0;
  for (size_t i = 0; i < d->nkernels; i++) {
    const pc_diff_kernel *k = &d->kernels[i];
    if (k->presence != PC_PAIRED) continue;
    paired++;
    assert_int_equal(k->time, PC_CHANGE_SAME);
  }
  assert_int_equal(paired, 4);
  assert_int_equal(d->worse, 0);
  assert_int_equal(find(d, "new")->presence, PC_ADDED);
  assert_int_equal(find(d, "gone")->presence, PC_REMOVED);
  assert_int_equal(find(d, "moved_region")->presence, PC_PAIRED);
  char *text = written(d, PERFCHECK_FORMAT_TEXT);
  assert_non_null(strstr(text, "\nAdded (2): only in the after report\n  new [grid 64x1x1 block 256x1x1]: 10 launches"));
  assert_non_null(strstr(text, "\nRemoved (2): only in the before report\n  regrid [grid 64x1x1 block 256x1x1]"));
  assert_non_null(strstr(text, "\n  gone [grid 64x1x1 block 256x1x1]: 10 launches, median 10 ns, step 0 at_roof\n"));
  free(text);
  pc_diff_free(d);
  pc_report_free(a);
  pc_report_free(b);
}

static void test_regions(void **state) {
  (void)state;
  pc_report *a = pc_report_new(), *b = pc_report_new();
  a->step1_assessed = b->step1_assessed = 1;
  pc_region *ga = pc_report_add_region(a), *gb = pc_report_add_region(b);
  ga->name = pc_strdup("step");
  gb->name = pc_strdup("step");
  ga->wall_ns = 100e6, gb->wall_ns = 125e6;
  ga->kernel_ns = 90e6, gb->kernel_ns = 40e6;
  ga->kernel_share = 0.9, gb->kernel_share = 0.32;
  ga->diag.verdict.cause = PERFCHECK_CAUSE_NONE;
  gb->diag.verdict.step = 1, gb->diag.verdict.cause = PERFCHECK_CAUSE_NOT_THE_SLOW_PART;
  pc_region *only = pc_report_add_region(a);
  only->name = pc_strdup("warmup");
  pc_diff *d = diff(a, b);
  assert_int_equal(d->nregions, 2);
  assert_int_equal(d->regions[0].time, PC_CHANGE_WORSE);
  assert_int_equal(d->regions[0].verdict, PC_CHANGE_WORSE);
  assert_int_equal(d->regions[1].presence, PC_REMOVED);
  assert_int_equal(d->worse, 1);
  char *text = written(d, PERFCHECK_FORMAT_TEXT);
  assert_non_null(strstr(text, "  region step: wall 100 ms -> 125 ms (+25.0%): slower; step 1 none -> not_the_slow_part: "
                               "worse\n"));
  assert_non_null(strstr(text, "; 1 region worse\n"));
  assert_null(strstr(text, "wall clocks not compared"));
  free(text);
  pc_diff_free(d);

  /* Counter replay cut out of a wall (profiling_ns) beyond the band's share
   * of it: the walls are not compared, and a note says why.  At the band's
   * share or below, they are. */
  ga->profiling_ns = 50e6; /* half of a 100 ms wall, against a 10% band */
  d = diff(a, b);
  assert_int_equal(d->regions[0].time, PC_CHANGE_NOT_COMPARABLE);
  assert_int_equal(d->regions[0].replay_dominated, 1);
  assert_int_equal(d->regions[0].verdict, PC_CHANGE_WORSE);
  text = written(d, PERFCHECK_FORMAT_TEXT);
  assert_non_null(strstr(text, "  region step: wall 100 ms -> 125 ms (+25.0%): not compared (counter replay, see the notes)"));
  assert_non_null(strstr(text, "1 region: wall clocks not compared"));
  free(text);
  pc_diff_free(d);
  ga->profiling_ns = 0.0, gb->profiling_ns = 9e6; /* under 10% of the smaller wall */
  d = diff(a, b);
  assert_int_equal(d->regions[0].time, PC_CHANGE_WORSE);
  assert_int_equal(d->regions[0].replay_dominated, 0);
  pc_diff_free(d);
  pc_report_free(a);
  pc_report_free(b);
}

static void test_notes_and_api(void **state) {
  (void)state;
  pc_report *a = load("h200/mystery.csv"), *b = load("t4_seed000.csv");
  perfcheck_diff *d = NULL;
  assert_int_equal(perfcheck_diff_create(a, b, NULL, NULL, &d), PERFCHECK_OK);
  assert_string_equal(d->name_a, "before");
  assert_true(d->nnotes >= 1);
  assert_non_null(strstr(d->notes[0], "different devices (NVIDIA H200"));
  /* mysteryC's two signatures differ between the T4 (48000 B) and the H200
   * (116736 B): one removed and one added, the rest paired. */
  assert_int_equal(d->added, 1);
  assert_int_equal(d->removed, 1);
  FILE *f = fopen("/dev/null", "w");
  assert_int_equal(perfcheck_diff_write(d, PERFCHECK_FORMAT_CSV, f), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_int_equal(perfcheck_diff_write(NULL, PERFCHECK_FORMAT_TEXT, f), PERFCHECK_ERROR_INVALID_ARGUMENT);
  fclose(f);
  f = fopen("/dev/full", "w");
  if (f) {
    assert_int_equal(perfcheck_diff_write(d, PERFCHECK_FORMAT_HTML, f), PERFCHECK_ERROR_IO);
    fclose(f);
  }
  perfcheck_diff_destroy(d);
  perfcheck_diff_destroy(NULL);
  assert_int_equal(perfcheck_diff_create(NULL, b, NULL, NULL, &d), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_null(d);
  assert_int_equal(perfcheck_diff_worse_count(NULL), 0);
  pc_report_free(a);
  pc_report_free(b);
}

/* Bytes used per fetched sector falling is worse (the coalescing rule);
 * another unit becoming the busiest is listed as moved. */
static void test_bytes_per_sector_and_busiest(void **state) {
  (void)state;
  pc_report *a = pc_report_new(), *b = pc_report_new();
  pc_kernel *ka = add(a, "k", 1, 100, 100, 100), *kb = add(b, "k", 1, 100, 100, 100);
  ka->derived.bytes_per_sector_ld = 32, kb->derived.bytes_per_sector_ld = 4;  /* worse */
  ka->derived.bytes_per_sector_st = 8, kb->derived.bytes_per_sector_st = 32;  /* better */
  ka->derived.bytes_per_sector_ldgsts = 16, kb->derived.bytes_per_sector_ldgsts = 16.1; /* +0.6%: same */
  const pc_unit_def *units = pc_units(NULL);
  ka->busiest_pipe = (pc_unit_load){units[2].name, 45, units[2].metric}; /* fma */
  kb->busiest_pipe = (pc_unit_load){units[0].name, 93, units[0].metric}; /* tensor */
  ka->busiest_memory = (pc_unit_load){"dram", 80, "dram__throughput.avg.pct_of_peak_sustained_elapsed"};
  kb->busiest_memory = (pc_unit_load){"dram", 81, "dram__throughput.avg.pct_of_peak_sustained_elapsed"};
  ka->total_ns = 1000, kb->total_ns = 1000;
  pc_diff *d = diff(a, b);
  const pc_diff_kernel *k = find(d, "k");
  assert_int_equal(metric(k, "bytes_per_sector_ld")->change, PC_CHANGE_WORSE);
  assert_true(metric(k, "bytes_per_sector_ld")->tolerance_pct == 1);
  assert_int_equal(metric(k, "bytes_per_sector_st")->change, PC_CHANGE_BETTER);
  assert_null(metric(k, "bytes_per_sector_ldgsts"));
  assert_null(metric(k, "total_ns")); /* not a metric: shown with the time */
  assert_string_equal(units[2].name, "fma");
  assert_string_equal(units[0].name, "tensor");
  assert_int_equal(k->busiest_pipe, PC_CHANGE_MOVED);
  assert_int_equal(k->busiest_memory, PC_CHANGE_SAME);
  assert_int_equal(k->overall, PC_CHANGE_WORSE);
  assert_int_equal(d->worse, 1);
  char *text = written(d, PERFCHECK_FORMAT_TEXT);
  assert_non_null(strstr(text, "    bytes_per_sector_ld 32 -> 4 (-87.5%, tolerance 1%): worse\n"));
  assert_non_null(strstr(text, "    busiest pipe fma 45% -> tensor 93%: moved\n"));
  assert_null(strstr(text, "busiest memory level"));
  free(text);
  char *json = written(d, PERFCHECK_FORMAT_JSON);
  assert_non_null(strstr(json, "\"busiest_change\": {\"pipe\": \"moved\", \"memory\": \"same\"}"));
  assert_non_null(strstr(json, "\"busiest_pipe\": {\"name\": \"tensor\", \"pct\": 93, \"metric\": "
                               "\"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active\"}"));
  free(json);
  char *html = written(d, PERFCHECK_FORMAT_HTML);
  assert_non_null(strstr(html, "busiest pipe fma 45% &#8594; tensor 93% <b>moved</b>"));
  free(html);
  pc_diff_free(d);
  pc_report_free(a);
  pc_report_free(b);
}

/* Pairing by display name: an entry whose name changed but whose display
 * name did not still pairs; two template instances that share a display
 * name pair by their full names, whatever order the reports put them in. */
/* The header states the tolerance the diff judges each unit by
 * (DRAM bytes at 5%, as dram__bytes_write.sum is judged, not "counts 1%"),
 * and metrics measured on one side only in every pair (another metric set)
 * are named once, not once per kernel. */
static void test_tolerance_header_and_one_side(void **state) {
  (void)state;
  pc_report *a = load("h200/mystery.csv"), *b = load("corpus/h200-2026-12-01/mystery.csv.gz");
  pc_diff *d = diff(a, b);
  char *text = written(d, PERFCHECK_FORMAT_TEXT);
  assert_non_null(strstr(text, "\ntolerances: durations (ns) 10% (and the after run's fastest launch beyond the before "
                               "median); 5%: unit %, unit byte, smsp__issue_active.avg.per_cycle_active, "));
  assert_non_null(strstr(text, "; 1%: unit inst, unit sector, unit request,"));
  const pc_diff_metric *w = metric(find(d, "mysteryB"), "dram__bytes_write.sum");
  assert_non_null(w);
  assert_float_equal(w->tolerance_pct, 5, 0); /* what the header says for unit byte */
  assert_int_equal(count_of(text, "measured on one side only, in every pair (49, not compared"), 1);
  assert_int_equal(count_of(text, "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio"), 1);
  /* Per kernel, only what is one-sided for that pair alone: none here since
   * the intensity of an FMA kernel with a little tensor activity is kept on
   * both sides (it was one-sided for all three pairs before). */
  assert_int_equal(count_of(text, "    measured on one side only ("), 0);
  free(text);
  char *html = written(d, PERFCHECK_FORMAT_HTML);
  assert_int_equal(count_of(html, "measured on one side only, in every pair (49"), 1);
  assert_non_null(strstr(html, "Tolerances: durations (ns) 10%"));
  free(html);
  pc_diff_free(d);
  pc_report_free(a);
  pc_report_free(b);
}

static void test_pairing_display_name(void **state) {
  (void)state;
  pc_report *a = pc_report_new(), *b = pc_report_new();
  pc_kernel *x = add(a, "ns::gemm<float, ns::tile<128> >", 1, 100, 100, 100);
  x->display_name = pc_strdup("gemm<float, ...>");
  pc_kernel *y = add(a, "ns::gemm<float, ns::tile<64> >", 1, 200, 200, 200);
  y->display_name = pc_strdup("gemm<float, ...>");
  /* After: the reports order by time, so the two swap places; 64 became
   * 3x slower. */
  pc_kernel *y2 = add(b, "ns::gemm<float, ns::tile<64> >", 1, 600, 600, 600);
  y2->display_name = pc_strdup("gemm<float, ...>");
  pc_kernel *x2 = add(b, "ns::gemm<float, ns::tile<128> >", 1, 100, 100, 100);
  x2->display_name = pc_strdup("gemm<float, ...>");
  /* Same display name, another full name (a rebuild renamed a namespace). */
  pc_kernel *z = add(a, "old::scale<4>", 1, 50, 50, 50);
  z->display_name = pc_strdup("scale<4>");
  pc_kernel *z2 = add(b, "v2::scale<4>", 1, 50, 50, 50);
  z2->display_name = pc_strdup("scale<4>");
  pc_diff *d = diff(a, b);
  assert_int_equal(d->added + d->removed, 0);
  size_t slower = 0;
  for (size_t i = 0; i < d->nkernels; i++) {
    const pc_diff_kernel *k = &d->kernels[i];
    assert_int_equal(k->presence, PC_PAIRED);
    if (k->time == PC_CHANGE_WORSE) {
      slower++;
      assert_true(k->a.dur_median == 200 && k->b.dur_median == 600); /* tile<64> with tile<64> */
    } else {
      assert_int_equal(k->time, PC_CHANGE_SAME);
    }
  }
  assert_int_equal(slower, 1);
  assert_int_equal(d->worse, 1);
  assert_string_equal(d->kernels[2].name, "scale<4>");
  pc_diff_free(d);
  pc_report_free(a);
  pc_report_free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_same_run_other_units), cmocka_unit_test(test_two_runs),
      cmocka_unit_test(test_planted_uncoalesced),  cmocka_unit_test(test_time_band),
      cmocka_unit_test(test_verdicts),             cmocka_unit_test(test_metric_directions),
      cmocka_unit_test(test_pairing),              cmocka_unit_test(test_regions),
      cmocka_unit_test(test_notes_and_api),        cmocka_unit_test(test_bytes_per_sector_and_busiest),
      cmocka_unit_test(test_pairing_display_name), cmocka_unit_test(test_tolerance_header_and_one_side),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
