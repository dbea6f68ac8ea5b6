/* perfcheck_report_merge (pc_merge.c).  What is checked:
 *   - two built reports: entries of one signature and region merged
 *     (launches and profiled launches summed, min of mins, max of maxes, the
 *     median null with one warning naming the kernel), an entry present in
 *     one report only kept with its median, a different grid kept apart,
 *     regions appended with names unchanged, warnings concatenated;
 *   - the counters of the first report that profiled the signature, and the
 *     verdicts walked again (the inputs carry stale verdicts on purpose);
 *   - devices, sources and metric sets that differ give warnings;
 *   - a region that ran twice in one report: its entries are paired with the
 *     other report's in order, never merged with each other;
 *   - merging one report (the T4 seed export, the H200 mystery export and
 *     its JSON read back) gives byte-identical JSON; merging a report with
 *     itself doubles every count and nulls every measured median;
 *   - bad arguments, and that the inputs are not changed. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "model/pc_core.h"
#include "read/pc_json.h"
#include "write/pc_write.h"
#include "base/pc_util.h"

static char *to_json(const pc_report *r) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  assert_int_equal(pc_write_json(r, f, NULL), PERFCHECK_OK);
  fclose(f);
  return buf;
}

static pc_device h200(void) {
  pc_device d;
  pc_device_init(&d);
  snprintf(d.name, sizeof d.name, "NVIDIA H200");
  d.cc_major = 9, d.cc_minor = 0, d.sm_count = 132, d.warp_size = 32;
  d.max_threads_per_sm = 2048, d.max_threads_per_block = 1024, d.max_blocks_per_sm = 32;
  d.max_regs_per_sm = 65536, d.max_regs_per_block = 65536;
  d.max_smem_per_sm = 233472, d.max_smem_per_block = 49152, d.max_smem_per_block_optin = 232448;
  pc_device_fill_granularities(&d);
  return d;
}

static pc_region *add_region(pc_report *r, const char *name, double wall, double kernel, uint64_t launches) {
  pc_region *g = pc_report_add_region(r);
  assert_non_null(g);
  g->name = pc_strdup(name);
  g->wall_ns = wall;
  g->kernel_ns = kernel;
  g->launches = launches;
  return g;
}

/* A kernel entry with its global-load coalescing and its lanes per
 * instruction measured (NaN: not profiled), and a stale verdict that the
 * merge must replace. */
static pc_kernel *add_kernel(pc_report *r, const char *name, const char *region, unsigned grid, uint64_t launches,
                             uint64_t profiled, double dmin, double dmed, double dmax, double spr_ld, double tpi) {
  pc_kernel *k = pc_report_add_kernel(r);
  assert_non_null(k);
  k->name = pc_strdup(name);
  k->region = region ? pc_strdup(region) : NULL;
  k->grid[0] = grid, k->grid[1] = 1, k->grid[2] = 1;
  k->block[0] = 256, k->block[1] = 1, k->block[2] = 1;
  k->dynamic_smem = 0;
  k->launches = launches;
  k->profiled_launches = profiled;
  k->dur_min_ns = dmin, k->dur_median_ns = dmed, k->dur_max_ns = dmax;
  k->attr.registers_per_thread = 16;
  k->attr.static_smem = 0;
  k->attr.dynamic_smem = 0;
  k->attr.blocks_per_sm = 8;
  k->attr.warps_per_sm = 64;
  k->attr.theoretical_occupancy_pct = 100;
  k->attr.waves_per_sm = 4;
  if (profiled) {
    k->metric[PC_M_LD_REQUESTS] = 131072;
    k->metric[PC_M_LD_SECTORS] = 131072 * spr_ld;
    k->metric[PC_M_ST_REQUESTS] = 131072;
    k->metric[PC_M_ST_SECTORS] = 131072 * 4.0;
    k->metric[PC_M_THREAD_INST_PER_INST] = tpi;
    k->metric[PC_M_WARPS_ACTIVE_PCT] = 90;
    k->passes = 2;
  } else {
    k->not_measured_reason = pc_strdup("not profiled (PERFCHECK_LAUNCH_COUNT)");
  }
  k->diag.verdict.step = 0; /* stale, on purpose */
  k->diag.verdict.cause = PERFCHECK_CAUSE_AT_ROOF;
  return k;
}

static pc_report *base_report(void) {
  pc_report *r = pc_report_new();
  assert_non_null(r);
  r->device = h200();
  snprintf(r->metric_set, sizeof r->metric_set, "default");
  r->passes = 2;
  return r;
}

/* Rank 0 and rank 1 of the same program. */
static void two_ranks(pc_report **a, pc_report **b, int rank0_profiled) {
  *a = base_report();
  add_region(*a, "main", 1e6, 9e5, 4);
  add_kernel(*a, "mysteryA", "main", 16384, 3, rank0_profiled ? 1 : 0, 100, 150, 200, 31.91, 32);
  add_kernel(*a, "mysteryB", "main", 16384, 1, 1, 5000, 5000, 5000, 4, 16.21);
  assert_int_equal(pc_report_warn(*a, 1, "rank 0 note"), 0);

  *b = base_report();
  add_region(*b, "main", 2e6, 1.8e6, 7);
  add_kernel(*b, "mysteryA", "main", 16384, 5, 1, 80, 120, 300, 4, 16.21); /* other counters */
  add_kernel(*b, "mysteryA", "main", 8192, 1, 1, 60, 60, 60, 31.91, 32);   /* another grid */
  add_kernel(*b, "mysteryC", "main", 16384, 1, 1, 7000, 7000, 7000, 4, 32); /* rank 1 only */
  assert_int_equal(pc_report_warn(*b, 1, "rank 1 note"), 0);
}

static const pc_kernel *find(const pc_report *r, const char *name, unsigned grid) {
  for (size_t i = 0; i < r->nkernels; i++)
    if (strcmp(r->kernels[i].name, name) == 0 && r->kernels[i].grid[0] == grid) return &r->kernels[i];
  fail_msg("no kernel %s with grid %u", name, grid);
  return NULL;
}

static int has_warning(const pc_report *r, const char *needle) {
  for (size_t i = 0; i < r->nwarnings; i++)
    if (strstr(r->warnings[i], needle)) return 1;
  return 0;
}

static void test_two_ranks(void **state) {
  (void)state;
  pc_report *a, *b, *m = NULL;
  two_ranks(&a, &b, 1);
  char *a_before = to_json(a), *b_before = to_json(b);
  const pc_report *in[] = {a, b};
  assert_int_equal(perfcheck_report_merge(in, 2, &m), PERFCHECK_OK);
  assert_non_null(m);

  /* Kernels: first-appearance order, one entry per signature and region. */
  assert_int_equal(m->nkernels, 4);
  assert_string_equal(m->kernels[0].name, "mysteryA");
  assert_int_equal(m->kernels[0].grid[0], 16384);
  assert_string_equal(m->kernels[1].name, "mysteryB");
  assert_string_equal(m->kernels[2].name, "mysteryA");
  assert_int_equal(m->kernels[2].grid[0], 8192);
  assert_string_equal(m->kernels[3].name, "mysteryC");

  const pc_kernel *ka = find(m, "mysteryA", 16384);
  assert_int_equal(ka->launches, 8);
  assert_int_equal(ka->profiled_launches, 2);
  assert_true(ka->dur_min_ns == 80);
  assert_true(ka->dur_max_ns == 300);
  assert_true(isnan(ka->dur_median_ns)); /* two reports timed it */
  assert_string_equal(ka->region, "main");
  /* Rank 0's counters (the first profiled), diagnosed again. */
  assert_true(ka->metric[PC_M_LD_SECTORS] == 131072 * 31.91);
  assert_true(fabs(ka->derived.sectors_per_request_ld - 31.91) < 1e-9);
  assert_int_equal(ka->diag.verdict.step, 3);
  assert_int_equal(ka->diag.verdict.cause, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS);
  assert_int_equal(ka->passes, 2);

  const pc_kernel *kb = find(m, "mysteryB", 16384); /* rank 0 only: its median stays */
  assert_int_equal(kb->launches, 1);
  assert_true(kb->dur_median_ns == 5000);
  assert_int_equal(kb->diag.verdict.step, 4);
  assert_int_equal(kb->diag.verdict.cause, PERFCHECK_CAUSE_DIVERGENT_WARPS);
  const pc_kernel *kc = find(m, "mysteryC", 16384);
  assert_true(kc->dur_median_ns == 7000);
  assert_int_not_equal(kc->diag.verdict.cause, PERFCHECK_CAUSE_AT_ROOF); /* not the stale verdict */
  const pc_kernel *ka2 = find(m, "mysteryA", 8192);
  assert_int_equal(ka2->launches, 1);
  assert_true(ka2->dur_median_ns == 60);

  /* Regions appended, names unchanged, diagnosed (0.9 busy: step 1 passes). */
  assert_int_equal(m->nregions, 2);
  assert_string_equal(m->regions[0].name, "main");
  assert_string_equal(m->regions[1].name, "main");
  assert_true(m->regions[0].wall_ns == 1e6);
  assert_true(m->regions[1].wall_ns == 2e6);
  assert_true(fabs(m->regions[1].kernel_share - 0.9) < 1e-12);
  assert_int_equal(m->regions[1].diag.verdict.cause, PERFCHECK_CAUSE_NONE);

  /* Warnings: rank 0's, rank 1's, then one about the median. */
  assert_int_equal(m->nwarnings, 3);
  assert_string_equal(m->warnings[0], "rank 0 note");
  assert_string_equal(m->warnings[1], "rank 1 note");
  assert_non_null(strstr(m->warnings[2], "1 kernel entry (mysteryA)"));
  assert_non_null(strstr(m->warnings[2], "median duration"));
  assert_string_equal(m->device.name, "NVIDIA H200");
  assert_string_equal(m->metric_set, "default");

  /* The JSON says null for the median and reads back. */
  char *json = to_json(m);
  assert_non_null(strstr(json, "\"median\": null"));
  pc_report *back = NULL;
  pc_err err;
  assert_int_equal(pc_report_from_json_text(json, strlen(json), "merged", 1, &back, &err), PERFCHECK_OK);
  assert_int_equal(back->nkernels, 4);
  pc_report_free(back);
  free(json);

  /* The inputs are untouched. */
  char *a_after = to_json(a), *b_after = to_json(b);
  assert_string_equal(a_before, a_after);
  assert_string_equal(b_before, b_after);
  free(a_before), free(b_before), free(a_after), free(b_after);
  pc_report_free(m);
  pc_report_free(a);
  pc_report_free(b);
}

/* Rank 0 did not profile mysteryA (launch count reached): rank 1's counters. */
static void test_first_profiled_counters(void **state) {
  (void)state;
  pc_report *a, *b, *m = NULL;
  two_ranks(&a, &b, 0);
  const pc_report *in[] = {a, b};
  assert_int_equal(perfcheck_report_merge(in, 2, &m), PERFCHECK_OK);
  const pc_kernel *ka = find(m, "mysteryA", 16384);
  assert_int_equal(ka->launches, 8);
  assert_int_equal(ka->profiled_launches, 1);
  assert_true(ka->metric[PC_M_LD_SECTORS] == 131072 * 4.0);
  assert_true(ka->metric[PC_M_THREAD_INST_PER_INST] == 16.21);
  assert_null(ka->not_measured_reason);
  assert_int_equal(ka->diag.verdict.step, 4);
  assert_int_equal(ka->diag.verdict.cause, PERFCHECK_CAUSE_DIVERGENT_WARPS);
  pc_report_free(m);

  /* In the other order, rank 1 comes first and profiled: its counters too. */
  const pc_report *in2[] = {b, a};
  assert_int_equal(perfcheck_report_merge(in2, 2, &m), PERFCHECK_OK);
  ka = find(m, "mysteryA", 16384);
  assert_true(ka->metric[PC_M_THREAD_INST_PER_INST] == 16.21);
  pc_report_free(m);
  pc_report_free(a);
  pc_report_free(b);
}

static void test_differences_warned(void **state) {
  (void)state;
  pc_report *a, *b, *m = NULL;
  two_ranks(&a, &b, 1);
  b->device.sm_count = 114;
  snprintf(b->device.name, sizeof b->device.name, "NVIDIA H100 PCIe");
  snprintf(b->metric_set, sizeof b->metric_set, "sol");
  b->passes = 8;
  const pc_report *in[] = {a, b};
  assert_int_equal(perfcheck_report_merge(in, 2, &m), PERFCHECK_OK);
  assert_true(has_warning(m, "report 2's device (NVIDIA H100 PCIe, cc 9.0, 114 SMs"));
  assert_true(has_warning(m, "differs from report 1's (NVIDIA H200, cc 9.0, 132 SMs"));
  assert_true(has_warning(m, "report 2 was made differently (source in-process, metric set sol, 8 passes)"));
  assert_string_equal(m->device.name, "NVIDIA H200");
  assert_int_equal(m->device.sm_count, 132);
  assert_string_equal(m->metric_set, "default");
  assert_int_equal(m->passes, 2);
  pc_report_free(m);

  /* Same devices: no such warnings. */
  b->device = a->device;
  snprintf(b->metric_set, sizeof b->metric_set, "default");
  b->passes = 2;
  assert_int_equal(perfcheck_report_merge(in, 2, &m), PERFCHECK_OK);
  assert_false(has_warning(m, "device"));
  assert_false(has_warning(m, "made differently"));
  pc_report_free(m);
  pc_report_free(a);
  pc_report_free(b);
}

/* A region that ran twice in one process gives two entries of one key; they
 * pair with the other process's in order and never merge with each other. */
static void test_repeated_region(void **state) {
  (void)state;
  pc_report *a = base_report(), *m = NULL;
  add_region(a, "iter", 1e6, 9e5, 2);
  add_region(a, "iter", 1e6, 9e5, 3);
  add_kernel(a, "step", "iter", 64, 2, 1, 10, 10, 10, 4, 32);
  add_kernel(a, "step", "iter", 64, 3, 0, 20, 25, 30, 4, 32);
  const pc_report *in1[] = {a};
  assert_int_equal(perfcheck_report_merge(in1, 1, &m), PERFCHECK_OK);
  assert_int_equal(m->nkernels, 2);
  assert_int_equal(m->kernels[0].launches, 2);
  assert_int_equal(m->kernels[1].launches, 3);
  assert_true(m->kernels[1].dur_median_ns == 25);
  pc_report_free(m);

  const pc_report *in2[] = {a, a};
  assert_int_equal(perfcheck_report_merge(in2, 2, &m), PERFCHECK_OK);
  assert_int_equal(m->nkernels, 2);
  assert_int_equal(m->nregions, 4);
  assert_int_equal(m->kernels[0].launches, 4);
  assert_int_equal(m->kernels[1].launches, 6);
  assert_int_equal(m->kernels[1].profiled_launches, 0);
  assert_true(m->kernels[1].dur_min_ns == 20 && m->kernels[1].dur_max_ns == 30);
  assert_true(isnan(m->kernels[1].dur_median_ns));
  assert_true(has_warning(m, "2 kernel entries (step, step)"));
  pc_report_free(m);
  pc_report_free(a);
}

static void merge_one_is_identity(const char *path) {
  /* The fixture is committed: its absence is a failure, never a pass. */
  if (access(path, R_OK) != 0) fail_msg("fixture %s is missing", path);
  perfcheck_report *r = NULL, *m = NULL, *back = NULL, *mback = NULL;
  assert_int_equal(perfcheck_report_from_ncu_csv(path, 1, &r), PERFCHECK_OK);
  assert_true(r->nkernels >= 3);
  const pc_report *in[] = {r};
  assert_int_equal(perfcheck_report_merge(in, 1, &m), PERFCHECK_OK);
  char *want = to_json(r), *got = to_json(m);
  assert_string_equal(got, want);

  /* The same through the JSON reader, as `perfcheck merge` reads it. */
  pc_err err;
  assert_int_equal(pc_report_from_json_text(want, strlen(want), path, 1, &back, &err), PERFCHECK_OK);
  const pc_report *in_back[] = {back};
  assert_int_equal(perfcheck_report_merge(in_back, 1, &mback), PERFCHECK_OK);
  char *got_back = to_json(mback);
  assert_string_equal(got_back, want);

  /* With itself: counts doubled, medians null, min/max and verdicts kept. */
  pc_report *twice = NULL;
  const pc_report *in2[] = {r, r};
  assert_int_equal(perfcheck_report_merge(in2, 2, &twice), PERFCHECK_OK);
  assert_int_equal(twice->nkernels, r->nkernels);
  size_t nulled = 0;
  for (size_t i = 0; i < r->nkernels; i++) {
    const pc_kernel *k = &r->kernels[i], *t = &twice->kernels[i];
    assert_string_equal(t->name, k->name);
    assert_int_equal(t->launches, 2 * k->launches);
    assert_int_equal(t->profiled_launches, 2 * k->profiled_launches);
    assert_true((isnan(k->dur_min_ns) && isnan(t->dur_min_ns)) || t->dur_min_ns == k->dur_min_ns);
    assert_true((isnan(k->dur_max_ns) && isnan(t->dur_max_ns)) || t->dur_max_ns == k->dur_max_ns);
    assert_true(isnan(t->dur_median_ns));
    nulled += !isnan(k->dur_median_ns);
    assert_int_equal(t->diag.verdict.cause, k->diag.verdict.cause);
    assert_int_equal(t->diag.verdict.step, k->diag.verdict.step);
  }
  assert_true(nulled > 0);
  assert_int_equal(twice->nwarnings, 2 * r->nwarnings + 1);
  char expect[64];
  snprintf(expect, sizeof expect, "merge: %zu kernel entr", nulled);
  assert_true(has_warning(twice, expect));

  free(want), free(got), free(got_back);
  perfcheck_report_destroy(twice);
  perfcheck_report_destroy(mback);
  perfcheck_report_destroy(back);
  perfcheck_report_destroy(m);
  perfcheck_report_destroy(r);
}

static void test_identity_t4_seed(void **state) {
  (void)state;
  merge_one_is_identity(PERFCHECK_TEST_DATA "/t4_seed000.csv");
}

static void test_identity_h200_mystery(void **state) {
  (void)state;
  merge_one_is_identity(PERFCHECK_TEST_DATA "/h200/mystery.csv");
}

static void test_bad_arguments(void **state) {
  (void)state;
  pc_report *a = base_report();
  perfcheck_report *m = (perfcheck_report *)a; /* must be reset to NULL */
  const pc_report *in[] = {a, NULL};
  assert_int_equal(perfcheck_report_merge(in, 0, &m), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_null(m);
  assert_int_equal(perfcheck_report_merge(NULL, 1, &m), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_int_equal(perfcheck_report_merge(in, 1, NULL), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_int_equal(perfcheck_report_merge(in, 2, &m), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_null(m);
  assert_non_null(strstr(perfcheck_last_error_message(), "report 2 of 2 is NULL"));
  pc_report_free(a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_two_ranks),        cmocka_unit_test(test_first_profiled_counters),
      cmocka_unit_test(test_differences_warned), cmocka_unit_test(test_repeated_region),
      cmocka_unit_test(test_identity_t4_seed), cmocka_unit_test(test_identity_h200_mystery),
      cmocka_unit_test(test_bad_arguments),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
