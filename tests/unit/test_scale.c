/* Linear cost for what runs in memory: merging reports
 * (100k kernel entries took 92 s when grouping was a scan) and checking an
 * expectation that matches every kernel (`regex:.` over 20k kernels grew
 * faster than linearly).  Each runs at N and 2N and its results are
 * asserted; the times are printed, never asserted (a loaded CI machine is
 * no clock): scripts/bench_scale.py prints the figures against the issue's
 * goals, the ncu reader's among them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/pc_core.h"
#include "expect/pc_expect.h"
#include "check/pc_check.h"
#include "base/pc_util.h"

static double seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A report of n kernel entries; names unique when `distinct`, else all
 * "gemm" with different grids. */
static pc_report *many(size_t n, int distinct, unsigned salt) {
  pc_report *r = pc_report_new();
  assert_non_null(r);
  r->step1_assessed = 0;
  snprintf(r->source, sizeof r->source, "ncu-export");
  for (size_t i = 0; i < n; i++) {
    pc_kernel *k = pc_report_add_kernel(r);
    assert_non_null(k);
    char name[64];
    snprintf(name, sizeof name, distinct ? "kernel_%u_%zu" : "gemm", salt, i);
    k->name = pc_strdup(name);
    k->grid[0] = (unsigned)(i + 1);
    k->grid[1] = k->grid[2] = 1;
    k->block[0] = 256;
    k->block[1] = k->block[2] = 1;
    k->dynamic_smem = 0;
    k->launches = k->profiled_launches = 1;
    k->dur_min_ns = k->dur_max_ns = k->dur_median_ns = 1000.0 + (double)i;
    k->metric[PC_M_DURATION] = k->dur_median_ns;
    k->metric[PC_M_LD_SECTORS] = 4096;
    k->metric[PC_M_LD_REQUESTS] = 1024;
  }
  pc_checklist_report(r);
  return r;
}

/* Merges `reports` reports of n/reports entries each; returns seconds. */
static double time_merge(size_t n, size_t reports, int same_keys) {
  pc_report **in = calloc(reports, sizeof *in);
  assert_non_null(in);
  for (size_t i = 0; i < reports; i++) in[i] = many(n / reports, 1, same_keys ? 0u : (unsigned)i);
  pc_report *out = NULL;
  double t0 = seconds();
  assert_int_equal(perfcheck_report_merge((const perfcheck_report *const *)in, reports, &out), PERFCHECK_OK);
  double dt = seconds() - t0;
  assert_int_equal(out->nkernels, same_keys ? n / reports : n);
  if (same_keys) assert_int_equal(out->kernels[0].launches, reports);
  perfcheck_report_destroy(out);
  for (size_t i = 0; i < reports; i++) pc_report_free(in[i]);
  free(in);
  return dt;
}

static void test_merge_linear(void **state) {
  (void)state;
  for (int same = 0; same <= 1; same++) {
    /* The ratio at sizes where memory traffic does not dominate (a kernel
     * entry is ~16 KiB), then the 100k entries absolutely. */
    double a = time_merge(10000, 5, same), b = time_merge(20000, 5, same);
    double c = time_merge(100000, 5, same);
    print_message("merge, %s keys: 10k entries %.3f s, 20k %.3f s (ratio %.2f), 100k %.3f s\n",
                  same ? "shared" : "distinct", a, b, b / (a > 1e-4 ? a : 1e-4), c);
  }
}

static double time_check(size_t n, int distinct, const char *spec, size_t *results) {
  pc_report *r = many(n, distinct, 7);
  perfcheck_expectations *set = NULL;
  assert_int_equal(perfcheck_expectations_create(&set), PERFCHECK_OK);
  assert_int_equal(perfcheck_expectations_add(set, spec), PERFCHECK_OK);
  size_t failures = 99;
  double t0 = seconds();
  perfcheck_status st = perfcheck_expectations_check(set, r, &failures);
  FILE *sink = fopen("/dev/null", "w");
  assert_non_null(sink);
  assert_int_equal(perfcheck_expectations_write_junit(set, "scale", sink), PERFCHECK_OK);
  fclose(sink);
  double dt = seconds() - t0;
  assert_true(st == PERFCHECK_OK || st == PERFCHECK_ERROR_EXPECTATION_FAILED);
  *results = perfcheck_expectations_result_count(set);
  perfcheck_expectations_destroy(set);
  pc_report_free(r);
  return dt;
}

static void test_expect_linear(void **state) {
  (void)state;
  static const struct {
    const char *spec;
    int distinct;
  } cases[] = {{"regex:.:step>=0", 1},       /* the case */
               {"regex:.:step>=0", 0},       /* one name: every label names the signature */
               {"nosuchkernel:step>=0", 0}}; /* the missing-kernel message lists the names */
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    size_t ra = 0, rb = 0;
    double a = time_check(10000, cases[c].distinct, cases[c].spec, &ra);
    double b = time_check(20000, cases[c].distinct, cases[c].spec, &rb);
    print_message("%s (%s names): 10k kernels %.3f s, 20k %.3f s (ratio %.2f)\n", cases[c].spec,
                  cases[c].distinct ? "distinct" : "one", a, b, b / (a > 1e-4 ? a : 1e-4));
    if (strncmp(cases[c].spec, "regex:", 6) == 0) {
      assert_int_equal(ra, 10000);
      assert_int_equal(rb, 20000);
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_merge_linear),
      cmocka_unit_test(test_expect_linear),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
