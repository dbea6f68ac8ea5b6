/* Expectations: the spec grammar and its errors, every operator, the
 * tolerance policy, regex matching several kernels, missing kernels,
 * unmeasured quantities, cause/bound words, the parts API, the messages and
 * the XML escaping of the JUnit writer.
 *
 * The report is built in memory with the seed's T4 numbers (seed 000:
 * mysteryA 31.91 / 32.00 sectors per request, mysteryB 16.21 threads per
 * instruction, mysteryC launched twice, at 24.82% and 86.29% achieved
 * occupancy).  When tests/data/t4_seed000.csv exists, the same expectations
 * are also checked on the real export.
 *
 * `test_expect --write-junit FILE` writes a JUnit file with hostile names
 * for tests/unit/validate_junit.py (ctest unit.expect_junit_xml). */
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
#include "expect/pc_expect.h"
#include "base/pc_util.h"

/* ---- The fixture ------------------------------------------------------------ */

static pc_kernel *add_kernel(pc_report *r, const char *name, unsigned grid, unsigned block, double dyn_smem) {
  pc_kernel *k = pc_report_add_kernel(r);
  assert_non_null(k);
  k->name = pc_strdup(name);
  k->grid[0] = grid, k->grid[1] = k->grid[2] = 1;
  k->block[0] = block, k->block[1] = k->block[2] = 1;
  k->dynamic_smem = dyn_smem;
  k->launches = 1;
  return k;
}

static void set_verdict(pc_kernel *k, int step, perfcheck_cause cause, perfcheck_bound bound, const char *metric,
                        double value, double threshold, const char *advice) {
  k->diag.verdict.step = step;
  k->diag.verdict.cause = cause;
  snprintf(k->diag.verdict.metric, sizeof k->diag.verdict.metric, "%s", metric);
  k->diag.verdict.value = value;
  k->diag.verdict.threshold = threshold;
  snprintf(k->diag.verdict.advice, sizeof k->diag.verdict.advice, "%s", advice);
  k->diag.bound = bound;
}

#define ADVICE_A "Make consecutive threads read consecutive addresses."
#define ADVICE_B "Make the branch warp-uniform."
#define ADVICE_C48 "Ask for less dynamic shared memory per block."

/* Seed 000's T4 numbers, as the checklist would leave them. */
static pc_report *seed_report(void) {
  pc_report *r = pc_report_new();
  assert_non_null(r);
  pc_kernel *a = add_kernel(r, "mysteryA", 16384, 256, 0);
  a->metric[PC_M_DURATION] = 449000;
  a->metric[PC_M_LD_SECTORS] = 66924544;
  a->metric[PC_M_LD_REQUESTS] = 2097152;
  a->metric[PC_M_WARPS_ACTIVE_PCT] = 81.90;
  a->derived.sectors_per_request_ld = 31.91;
  a->derived.sectors_per_request_st = 32.00;
  a->derived.threads_per_instruction = 32;
  a->derived.achieved_occupancy_pct = 81.90;
  a->derived.theoretical_occupancy_pct = 100;
  a->attr.registers_per_thread = 8;
  set_verdict(a, 3, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS, PERFCHECK_BOUND_MEMORY,
              "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum / l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 31.91,
              8, ADVICE_A);

  pc_kernel *b = add_kernel(r, "mysteryB", 16384, 256, 0);
  b->metric[PC_M_DURATION] = 2145000;
  b->derived.sectors_per_request_ld = 4.0;
  b->derived.sectors_per_request_st = 4.0;
  b->derived.threads_per_instruction = 16.21;
  b->derived.achieved_occupancy_pct = 98.18;
  b->derived.theoretical_occupancy_pct = 100;
  set_verdict(b, 4, PERFCHECK_CAUSE_DIVERGENT_WARPS, PERFCHECK_BOUND_COMPUTE,
              "smsp__average_thread_inst_executed_per_inst_executed.ratio", 16.21, 24, ADVICE_B);

  pc_kernel *c1 = add_kernel(r, "mysteryC", 16384, 256, 48000);
  c1->metric[PC_M_DURATION] = 1414000;
  c1->derived.sectors_per_request_ld = 4.0;
  c1->derived.threads_per_instruction = 32;
  c1->derived.achieved_occupancy_pct = 24.82;
  c1->derived.theoretical_occupancy_pct = 25;
  set_verdict(c1, 5, PERFCHECK_CAUSE_OCCUPANCY_SHARED_MEMORY, PERFCHECK_BOUND_COMPUTE, "sm__warps_active.avg.pct_of_peak_sustained_active",
              24.82, 50, ADVICE_C48);

  pc_kernel *c2 = add_kernel(r, "mysteryC", 16384, 256, 0);
  c2->metric[PC_M_DURATION] = 1200000;
  c2->derived.sectors_per_request_ld = 4.0;
  c2->derived.threads_per_instruction = 32;
  c2->derived.achieved_occupancy_pct = 86.29;
  c2->derived.theoretical_occupancy_pct = 100;
  set_verdict(c2, 0, PERFCHECK_CAUSE_AT_ROOF, PERFCHECK_BOUND_COMPUTE, "sm__throughput.avg.pct_of_peak_sustained_elapsed",
              99.24, 80, "At its roof: stop reading counters.");
  return r;
}

/* Checks one spec; returns the set (caller destroys) and the status. */
static perfcheck_expectations *check1(const pc_report *r, const char *spec, perfcheck_status *st, size_t *failures) {
  perfcheck_expectations *set = NULL;
  assert_int_equal(perfcheck_expectations_create(&set), PERFCHECK_OK);
  perfcheck_status a = perfcheck_expectations_add(set, spec);
  if (a != PERFCHECK_OK) fail_msg("add(%s): %s", spec, perfcheck_last_error_message());
  *st = perfcheck_expectations_check(set, r, failures);
  return set;
}

/* Does spec hold on r?  (1 pass, 0 fail; every result must agree.) */
static int holds(const pc_report *r, const char *spec) {
  perfcheck_status st;
  size_t failures = 99;
  perfcheck_expectations *set = check1(r, spec, &st, &failures);
  assert_true(st == PERFCHECK_OK || st == PERFCHECK_ERROR_EXPECTATION_FAILED);
  assert_int_equal(st == PERFCHECK_OK, failures == 0);
  perfcheck_expectations_destroy(set);
  return failures == 0;
}

static perfcheck_expectation_result result(const perfcheck_expectations *set, size_t i) {
  perfcheck_expectation_result res;
  memset(&res, 0, sizeof res);
  res.size = sizeof res;
  assert_int_equal(perfcheck_expectations_result(set, i, &res), PERFCHECK_OK);
  return res;
}

#define assert_contains(hay, needle)                                                         \
  do {                                                                                       \
    const char *h_ = (hay);                                                                  \
    if (!h_ || !strstr(h_, (needle))) fail_msg("\"%s\" does not contain \"%s\"", h_ ? h_ : "(null)", (needle)); \
  } while (0)

/* ---- Grammar ---------------------------------------------------------------- */

static void test_parse_forms(void **state) {
  (void)state;
  pc_expectation e;
  pc_err err;
  assert_int_equal(pc_expect_parse("mysteryA:sectors_per_request_ld<=4.5", &e, &err), PERFCHECK_OK);
  assert_string_equal(e.kernel, "mysteryA");
  assert_string_equal(e.quantity, "sectors_per_request_ld");
  assert_int_equal(e.cmp, PERFCHECK_CMP_LE);
  assert_true(e.value == 4.5);
  assert_false(e.is_regex);
  assert_true(isnan(e.tolerance_pct));
  pc_expectation_free(&e);

  assert_int_equal(pc_expect_parse("  mysteryB : cause != divergent_warps ", &e, &err), PERFCHECK_OK);
  assert_string_equal(e.kernel, "mysteryB");
  assert_int_equal(e.kind, PC_EXPECT_CAUSE);
  assert_int_equal(e.cmp, PERFCHECK_CMP_NE);
  assert_int_equal(e.word, PERFCHECK_CAUSE_DIVERGENT_WARPS);
  pc_expectation_free(&e);

  assert_int_equal(pc_expect_parse("regex:^mystery[BC]$:threads_per_instruction>=24", &e, &err),
                   PERFCHECK_OK);
  assert_true(e.is_regex);
  assert_string_equal(e.kernel, "^mystery[BC]$");
  assert_int_equal(e.cmp, PERFCHECK_CMP_GE);
  assert_true(e.value == 24);
  pc_expectation_free(&e);

  assert_int_equal(pc_expect_parse("mysteryC:gpu__time_duration.sum within 10% of 1.2e6", &e, &err),
                   PERFCHECK_OK);
  assert_int_equal(e.cmp, PERFCHECK_CMP_WITHIN);
  assert_true(e.tolerance_pct == 10);
  assert_true(e.value == 1.2e6);
  pc_expectation_free(&e);

  assert_int_equal(pc_expect_parse("mysteryC:gpu__time_duration.sum within 1.2e6", &e, &err), PERFCHECK_OK);
  assert_int_equal(e.cmp, PERFCHECK_CMP_WITHIN);
  assert_true(isnan(e.tolerance_pct));
  pc_expectation_free(&e);

  assert_int_equal(pc_expect_parse("mysteryC:gpu__time_duration.sum<=1.2e6 +-0%", &e, &err), PERFCHECK_OK);
  assert_true(e.tolerance_pct == 0);
  pc_expectation_free(&e);

  assert_int_equal(pc_expect_parse("k:dram_gbps>=-1.5e+2\xC2\xB1" "2.5%", &e, &err), PERFCHECK_OK);
  assert_true(e.value == -150 && e.tolerance_pct == 2.5);
  pc_expectation_free(&e);

  /* Kernel names with "::" and templates: the kernel part runs to the last ':'. */
  assert_int_equal(pc_expect_parse("ns::scaleAdd<4>:step==0", &e, &err), PERFCHECK_OK);
  assert_string_equal(e.kernel, "ns::scaleAdd<4>");
  assert_int_equal(e.kind, PC_EXPECT_STEP);
  assert_int_equal(e.cmp, PERFCHECK_CMP_EQ);
  pc_expectation_free(&e);

  static const struct {
    const char *spec;
    perfcheck_comparison cmp;
  } ops[] = {{"k:flops<1", PERFCHECK_CMP_LT},  {"k:flops<=1", PERFCHECK_CMP_LE}, {"k:flops==1", PERFCHECK_CMP_EQ},
             {"k:flops!=1", PERFCHECK_CMP_NE}, {"k:flops>=1", PERFCHECK_CMP_GE}, {"k:flops>1", PERFCHECK_CMP_GT}};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    assert_int_equal(pc_expect_parse(ops[i].spec, &e, &err), PERFCHECK_OK);
    assert_int_equal(e.cmp, ops[i].cmp);
    pc_expectation_free(&e);
  }
}

static void test_parse_errors(void **state) {
  (void)state;
  static const struct {
    const char *spec;
    size_t column;
    const char *says;
  } bad[] = {
      {"mysteryA", 9, "no ':'"},
      {":sectors_per_request_ld<=4", 1, "kernel name"},
      {"   :q<=4", 4, "kernel name"},
      {"mysteryA:<=4", 10, "expected a quantity"},
      {"mysteryA:4x<=4", 10, "expected a quantity"},
      {"mysteryA:sectors_per_request_ld 4.5", 33, "expected a comparison"},
      {"mysteryA:sectors_per_request_ld=4.5", 32, "write =="},
      {"mysteryA:sectors_per_request_ld<=", 34, "expected a number"},
      {"mysteryA:sectors_per_request_ld<=abc", 34, "expected a number"},
      {"mysteryA:sectors_per_request_ld<=4.5x", 37, "unexpected \"x\""},
      {"mysteryA:sectors_per_request_ld<=0x10", 35, "unexpected"},
      {"mysteryA:sectors_per_request_ld<=inf", 34, "expected a number"},
      {"mysteryA:sectors_per_request_ld<=nan", 34, "expected a number"},
      {"mysteryA:sectors_per_request_ld<=1e999", 34, "out of range"},
      {"mysteryA:sectors_per_request_ld<=1e-400", 34, "out of range"}, /* not 0 */
      {"mysteryA:gpu__time_duration.sum within 5% of 2e-330", 46, "out of range"},
      {"mysteryA:sectors_per_request_ld<=4 5", 36, "unexpected"},
      {"mysteryB:cause<divergent_warps", 15, "== or != only"},
      {"mysteryB:cause!=divergent", 17, "unknown cause word \"divergent\""},
      {"mysteryB:cause!=", 17, "expected a cause word"},
      {"mysteryB:bound==fast", 17, "unknown bound word"},
      {"mysteryB:cause==divergent_warps +-5%", 33, "no tolerance"},
      {"regex:x<=1", 1, "needs a pattern"},
      {"regex::x<=1", 7, "expected a pattern"},
      {"regex:[a:x<=1", 7, "bad regular expression"},
      {"regex:^k++:x<=1", 10, "stacked repetition operators"},
      {"regex:a*{2}:x<=1", 9, "stacked repetition operators"},
      {"regex:a{1,2}?:x<=1", 13, "stacked repetition operators"},
      {"k:gpu__time_duration.sum within 10% 1.2e6", 37, "expected \"of\""},
      {"k:gpu__time_duration.sum within 10% of", 39, "expected a number after \"of\""},
      {"k:gpu__time_duration.sum within -5% of 1", 33, "percentage >= 0"},
      {"k:gpu__time_duration.sum within 5% of 1 +-1%", 41, "has its band already"},
      {"k:q<=1 +-5", 11, "expected '%'"},
      {"k:q<=1 +-x%", 10, "tolerance percentage"},
      {"k:q<=1 +--5%", 10, "tolerance percentage"},
      {"", 1, "no ':'"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    pc_expectation e;
    pc_err err = {0};
    perfcheck_status st = pc_expect_parse(bad[i].spec, &e, &err);
    if (st != PERFCHECK_ERROR_PARSE) fail_msg("\"%s\" parsed (status %d)", bad[i].spec, (int)st);
    char col[32];
    snprintf(col, sizeof col, "column %zu: ", bad[i].column);
    if (strncmp(err.msg, col, strlen(col)) != 0) fail_msg("\"%s\": wanted \"%s\", got \"%s\"", bad[i].spec, col, err.msg);
    assert_contains(err.msg, bad[i].says);
    assert_int_equal(err.status, PERFCHECK_ERROR_PARSE);
  }

  /* The public call names the spec too, and adds nothing. */
  perfcheck_expectations *set = NULL;
  assert_int_equal(perfcheck_expectations_create(&set), PERFCHECK_OK);
  assert_int_equal(perfcheck_expectations_add(set, "mysteryA:sectors_per_request_ld=<4.5"), PERFCHECK_ERROR_PARSE);
  assert_contains(perfcheck_last_error_message(), "expectation \"mysteryA:sectors_per_request_ld=<4.5\": column 32:");
  assert_int_equal(perfcheck_expectations_count(set), 0);
  assert_int_equal(perfcheck_expectations_add(set, NULL), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_int_equal(perfcheck_expectations_add(NULL, "k:q<1"), PERFCHECK_ERROR_INVALID_ARGUMENT);
  perfcheck_expectations_destroy(set);
}

/* ---- Operators and the tolerance policy ------------------------------------ */

static void test_operators_exact(void **state) {
  (void)state;
  pc_report *r = seed_report();
  /* mysteryB loads at exactly 4 sectors per request: an exact quantity. */
  assert_false(holds(r, "mysteryB:sectors_per_request_ld<4"));
  assert_true(holds(r, "mysteryB:sectors_per_request_ld<4.0001"));
  assert_true(holds(r, "mysteryB:sectors_per_request_ld<=4"));
  assert_false(holds(r, "mysteryB:sectors_per_request_ld<=3.99"));
  assert_true(holds(r, "mysteryB:sectors_per_request_ld==4"));
  assert_false(holds(r, "mysteryB:sectors_per_request_ld==4.01"));
  assert_false(holds(r, "mysteryB:sectors_per_request_ld!=4"));
  assert_true(holds(r, "mysteryB:sectors_per_request_ld!=4.01"));
  assert_true(holds(r, "mysteryB:sectors_per_request_ld>=4"));
  assert_false(holds(r, "mysteryB:sectors_per_request_ld>=4.01"));
  assert_false(holds(r, "mysteryB:sectors_per_request_ld>4"));
  assert_true(holds(r, "mysteryB:sectors_per_request_ld>3.99"));
  /* Exact still forgives a text round trip (1e-9 relative), no more. */
  assert_true(holds(r, "mysteryB:sectors_per_request_ld==4.000000000001"));
  assert_false(holds(r, "mysteryB:sectors_per_request_ld==4.00001"));
  /* within on an exact quantity: the given band, or none by default. */
  assert_true(holds(r, "mysteryB:threads_per_instruction within 2% of 16"));
  assert_false(holds(r, "mysteryB:threads_per_instruction within 1% of 16"));
  assert_false(holds(r, "mysteryB:threads_per_instruction within 16.2"));
  assert_true(holds(r, "mysteryB:threads_per_instruction within 16.21"));
  /* ncu metric names and launch values go through pc_kernel_value. */
  assert_true(holds(r, "mysteryA:l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum==2097152"));
  assert_true(holds(r, "mysteryA:launch__registers_per_thread<=8"));
  assert_false(holds(r, "mysteryA:launch__registers_per_thread<8"));
  pc_report_free(r);
}

static void test_tolerance_policy(void **state) {
  (void)state;
  assert_int_equal(pc_expect_quantity_class("gpu__time_duration.sum"), PC_EXPECT_TIME);
  assert_int_equal(pc_expect_quantity_class("duration_ns_median"), PC_EXPECT_TIME);
  assert_int_equal(pc_expect_quantity_class("sm__throughput.avg.pct_of_peak_sustained_elapsed"), PC_EXPECT_RATE);
  assert_int_equal(pc_expect_quantity_class("sm__warps_active.avg.pct_of_peak_sustained_active"), PC_EXPECT_RATE);
  assert_int_equal(pc_expect_quantity_class("achieved_occupancy_pct"), PC_EXPECT_RATE);
  assert_int_equal(pc_expect_quantity_class("dram__bytes_read.sum"), PC_EXPECT_RATE);
  assert_int_equal(pc_expect_quantity_class("lts__t_sectors.sum.per_second"), PC_EXPECT_RATE);
  assert_int_equal(pc_expect_quantity_class("theoretical_occupancy_pct"), PC_EXPECT_EXACT);
  assert_int_equal(pc_expect_quantity_class("sm__maximum_warps_per_active_cycle_pct"), PC_EXPECT_EXACT);
  assert_int_equal(pc_expect_quantity_class("sectors_per_request_ld"), PC_EXPECT_EXACT);
  assert_int_equal(pc_expect_quantity_class("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"), PC_EXPECT_EXACT);
  assert_int_equal(pc_expect_quantity_class("smsp__average_thread_inst_executed_per_inst_executed.ratio"),
                   PC_EXPECT_EXACT);
  assert_int_equal(pc_expect_quantity_class("launch__registers_per_thread"), PC_EXPECT_EXACT);
  assert_true(pc_expect_default_band_pct("gpu__time_duration.sum") == PC_EXPECT_BAND_TIME_PCT);
  assert_true(pc_expect_default_band_pct("achieved_occupancy_pct") == PC_EXPECT_BAND_RATE_PCT);
  assert_true(pc_expect_default_band_pct("step") == 0);

  pc_report *r = seed_report();
  /* Duration of mysteryC (0 B launch): 1200000 ns.  A 10% band by default. */
  assert_true(holds(r, "regex:^mysteryC$:gpu__time_duration.sum<=1.5e6"));
  perfcheck_status st;
  size_t failures;
  perfcheck_expectations *set = check1(r, "mysteryC:gpu__time_duration.sum<=1.1e6", &st, &failures);
  assert_int_equal(failures, 1); /* 1414000 > 1210000; 1200000 <= 1210000 */
  perfcheck_expectation_result a = result(set, 0), b = result(set, 1);
  assert_int_equal(a.status, PERFCHECK_ERROR_EXPECTATION_FAILED);
  assert_int_equal(b.status, PERFCHECK_OK);
  assert_contains(b.message, "10% default band for durations: up to 1210000");
  assert_contains(b.message, "+-0% for an exact bound");
  perfcheck_expectations_destroy(set);
  /* +-0% turns the band off; +-20% widens it. */
  assert_false(holds(r, "mysteryC:gpu__time_duration.sum<=1.1e6 +-0%"));
  assert_true(holds(r, "mysteryC:gpu__time_duration.sum<=1.2e6 +-20%"));
  assert_false(holds(r, "mysteryB:gpu__time_duration.sum>=2.4e6"));  /* down to 2160000 */
  assert_true(holds(r, "mysteryB:gpu__time_duration.sum>=2.3e6"));   /* down to 2070000 */
  assert_true(holds(r, "mysteryB:gpu__time_duration.sum==2.3e6"));   /* inside 2.07e6..2.53e6 */
  assert_false(holds(r, "mysteryB:gpu__time_duration.sum!=2.3e6"));
  assert_true(holds(r, "mysteryB:gpu__time_duration.sum!=2.4e6 +-5%"));
  assert_true(holds(r, "mysteryB:gpu__time_duration.sum>2.2e6"));    /* > 1980000 */

  /* within N% of V, and within V (the default band). */
  assert_true(holds(r, "mysteryB:gpu__time_duration.sum within 10% of 2e6"));  /* 1.8e6..2.2e6 */
  assert_false(holds(r, "mysteryB:gpu__time_duration.sum within 5% of 2e6"));  /* 1.9e6..2.1e6 */
  assert_true(holds(r, "mysteryB:gpu__time_duration.sum within 2e6"));         /* default 10% */
  assert_false(holds(r, "mysteryB:gpu__time_duration.sum within 1.9e6"));      /* 1.71e6..2.09e6 */
  assert_true(holds(r, "mysteryB:gpu__time_duration.sum within 0% of 2145000"));
  set = check1(r, "mysteryB:gpu__time_duration.sum within 5% of 2e6", &st, &failures);
  assert_contains(result(set, 0).message, "expected within 5% of 2000000 (between 1900000 and 2100000); verdict:");
  perfcheck_expectations_destroy(set);
  set = check1(r, "mysteryB:gpu__time_duration.sum within 2e6", &st, &failures);
  assert_contains(result(set, 0).message, "expected within 2000000 (10% default band for durations: between 1800000 and 2200000): holds");
  perfcheck_expectations_destroy(set);

  /* Six digits in messages, unless that would hide why a check failed. */
  r->kernels[1].derived.threads_per_instruction = 24.0000001;
  set = check1(r, "mysteryB:threads_per_instruction<=24", &st, &failures);
  assert_contains(result(set, 0).message, "threads_per_instruction is 24.0000001, expected <= 24;");
  perfcheck_expectations_destroy(set);
  r->kernels[1].derived.threads_per_instruction = 16.2123456789;
  set = check1(r, "mysteryB:threads_per_instruction>=24", &st, &failures);
  assert_contains(result(set, 0).message, "threads_per_instruction is 16.2123, expected >= 24;");
  perfcheck_expectations_destroy(set);
  r->kernels[1].derived.threads_per_instruction = 16.21;

  /* A 5% band on rates: mysteryA's achieved occupancy is 81.9%. */
  assert_true(holds(r, "mysteryA:achieved_occupancy_pct>=85"));  /* down to 80.75 */
  assert_false(holds(r, "mysteryA:achieved_occupancy_pct>=87")); /* down to 82.65 */
  assert_true(holds(r, "mysteryA:sm__warps_active.avg.pct_of_peak_sustained_active>=86"));
  /* Exact quantities get no band: theoretical occupancy is a launch value. */
  assert_false(holds(r, "mysteryB:theoretical_occupancy_pct>=101"));
  pc_report_free(r);
}

/* ---- Kernels: regex, duplicates, missing ------------------------------------ */

static void test_regex_several(void **state) {
  (void)state;
  pc_report *r = seed_report();
  perfcheck_status st;
  size_t failures = 0;
  perfcheck_expectations *set = check1(r, "regex:^mystery[BC]$:threads_per_instruction>=24", &st, &failures);
  assert_int_equal(st, PERFCHECK_ERROR_EXPECTATION_FAILED);
  assert_int_equal(perfcheck_expectations_result_count(set), 3);
  assert_int_equal(failures, 1);
  perfcheck_expectation_result b = result(set, 0), c1 = result(set, 1), c2 = result(set, 2);
  assert_string_equal(b.kernel, "mysteryB");
  assert_int_equal(b.status, PERFCHECK_ERROR_EXPECTATION_FAILED);
  assert_true(b.measured == 16.21);
  assert_string_equal(b.expected, ">= 24");
  assert_contains(b.message, "mysteryB: threads_per_instruction is 16.21, expected >= 24");
  assert_contains(b.message, "step 4, divergent_warps: " ADVICE_B);
  assert_string_equal(b.advice, ADVICE_B);
  assert_string_equal(b.spec, "regex:^mystery[BC]$:threads_per_instruction>=24");
  assert_string_equal(b.quantity, "threads_per_instruction");
  /* Two entries share the name mysteryC: the label says which launch. */
  assert_int_equal(c1.status, PERFCHECK_OK);
  assert_int_equal(c2.status, PERFCHECK_OK);
  assert_contains(c1.kernel, "mysteryC [grid 16384,1,1 block 256,1,1 dynamic smem 48000 B]");
  assert_contains(c2.kernel, "dynamic smem 0 B]");
  assert_contains(c1.message, ": holds");
  assert_string_equal(perfcheck_expectations_failures_text(set), b.message);
  perfcheck_expectations_destroy(set);

  /* An exact name matching two entries checks both. */
  set = check1(r, "mysteryC:achieved_occupancy_pct>=50", &st, &failures);
  assert_int_equal(perfcheck_expectations_result_count(set), 2);
  assert_int_equal(failures, 1);
  assert_int_equal(result(set, 0).status, PERFCHECK_ERROR_EXPECTATION_FAILED);
  assert_contains(result(set, 0).message, ADVICE_C48);
  perfcheck_expectations_destroy(set);

  /* Unanchored regexes search: "mystery" matches all four entries. */
  set = check1(r, "regex:mystery:step>=0", &st, &failures);
  assert_int_equal(perfcheck_expectations_result_count(set), 4);
  assert_int_equal(failures, 0);
  assert_int_equal(st, PERFCHECK_OK);
  perfcheck_expectations_destroy(set);

  /* What is not stacked repetition: escapes, brackets, groups. */
  assert_true(holds(r, "regex:^myster\\y?[A+*]$:step==3"));
  assert_true(holds(r, "regex:^(myst(e)+r)+yA$:step==3"));
  assert_true(holds(r, "regex:^[[:alpha:]]+A$:step==3"));

  /* A graph's entry lists its kernels in its name: a regex written for
   * kernel names does not catch it (it sees "graph 3"), its exact name
   * and ^graph do. */
  pc_kernel *g = add_kernel(r, "graph 3 (2 kernels: mysteryA, mysteryB)", 0, 0, 0);
  g->is_graph = 1;
  g->graph_id = 3;
  set_verdict(g, 2, PERFCHECK_CAUSE_NOT_ASSESSED, PERFCHECK_BOUND_MEMORY, "graph_launch.signatures", 2, 1, "Summed.");
  set = check1(r, "regex:mystery:step>=0", &st, &failures);
  assert_int_equal(perfcheck_expectations_result_count(set), 4);
  perfcheck_expectations_destroy(set);
  set = check1(r, "regex:^graph 3$:cause==not_assessed", &st, &failures);
  assert_int_equal(perfcheck_expectations_result_count(set), 1);
  assert_int_equal(failures, 0);
  assert_string_equal(result(set, 0).kernel, "graph 3 (2 kernels: mysteryA, mysteryB)");
  perfcheck_expectations_destroy(set);
  assert_true(holds(r, "graph 3 (2 kernels: mysteryA, mysteryB):cause==not_assessed"));
  r->nkernels--;
  pc_kernel_free(&r->kernels[r->nkernels]);

  /* Regions are named in the label. */
  r->kernels[0].region = pc_strdup("solver");
  set = check1(r, "mysteryA:step==3", &st, &failures);
  assert_string_equal(result(set, 0).kernel, "mysteryA in region solver");
  perfcheck_expectations_destroy(set);
  pc_report_free(r);
}

static void test_missing_kernel(void **state) {
  (void)state;
  pc_report *r = seed_report();
  perfcheck_status st;
  size_t failures = 0;
  perfcheck_expectations *set = check1(r, "mysteryD:step==0", &st, &failures);
  assert_int_equal(st, PERFCHECK_ERROR_EXPECTATION_FAILED);
  assert_int_equal(failures, 1);
  perfcheck_expectation_result res = result(set, 0);
  assert_int_equal(res.status, PERFCHECK_ERROR_NOT_FOUND);
  assert_string_equal(res.kernel, "mysteryD");
  assert_true(isnan(res.measured));
  assert_contains(res.message, "no kernel named \"mysteryD\"");
  assert_contains(res.message, "the report has: mysteryA, mysteryB, mysteryC");
  perfcheck_expectations_destroy(set);

  set = check1(r, "regex:^gemm:sectors_per_request_ld<=4", &st, &failures);
  assert_int_equal(failures, 1);
  assert_int_equal(result(set, 0).status, PERFCHECK_ERROR_NOT_FOUND);
  assert_contains(result(set, 0).message, "no kernel in the report matches /^gemm/");
  perfcheck_expectations_destroy(set);

  /* An empty report: still a failure, never a pass. */
  pc_report *empty = pc_report_new();
  set = check1(empty, "mysteryA:step==3", &st, &failures);
  assert_int_equal(failures, 1);
  assert_contains(result(set, 0).message, "the report has no kernels");
  perfcheck_expectations_destroy(set);
  pc_report_free(empty);

  /* A NULL report is an error that still counts as a failure. */
  assert_int_equal(perfcheck_expectations_create(&set), PERFCHECK_OK);
  assert_int_equal(perfcheck_expectations_add(set, "mysteryA:step==3"), PERFCHECK_OK);
  failures = 0;
  assert_int_equal(perfcheck_expectations_check(set, NULL, &failures), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_true(failures >= 1);
  perfcheck_expectations_destroy(set);
  pc_report_free(r);
}

static void test_unmeasured(void **state) {
  (void)state;
  pc_report *r = seed_report();
  r->kernels[0].metric[PC_M_DURATION] = PC_NULL;
  r->kernels[0].not_measured_reason = pc_strdup("launched inside a CUDA graph");
  perfcheck_status st;
  size_t failures = 0;
  /* NaN is never a pass, whatever the comparison. */
  static const char *const specs[] = {"mysteryA:gpu__time_duration.sum<=1e12", "mysteryA:gpu__time_duration.sum!=5",
                                      "mysteryA:gpu__time_duration.sum within 100% of 1"};
  for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
    perfcheck_expectations *set = check1(r, specs[i], &st, &failures);
    assert_int_equal(failures, 1);
    perfcheck_expectation_result res = result(set, 0);
    assert_int_equal(res.status, PERFCHECK_ERROR_NOT_MEASURED);
    assert_true(isnan(res.measured));
    assert_contains(res.message, "mysteryA: gpu__time_duration.sum was not measured (launched inside a CUDA graph)");
    perfcheck_expectations_destroy(set);
  }
  /* Without a reason, the message still says so. */
  perfcheck_expectations *set = check1(r, "mysteryB:dram__bytes_read.sum<=1", &st, &failures);
  assert_int_equal(failures, 1);
  assert_contains(result(set, 0).message, "was not measured (null in the report)");
  perfcheck_expectations_destroy(set);

  /* An unknown quantity: refused when added, with at most three
   * nearest names; an ncu metric's spelling that no kernel of the report
   * has is a mistake too (INVALID_ARGUMENT results), not a failed check. */
  perfcheck_expectations *bad = NULL;
  assert_int_equal(perfcheck_expectations_create(&bad), PERFCHECK_OK);
  assert_int_equal(perfcheck_expectations_add(bad, "mysteryA:sector_per_request_ld<=4"), PERFCHECK_ERROR_PARSE);
  assert_string_equal(perfcheck_last_error_message(),
                      "expectation \"mysteryA:sector_per_request_ld<=4\": column 10: unknown quantity "
                      "\"sector_per_request_ld\"; did you mean \"sectors_per_request_ld\" or "
                      "\"sectors_per_request_st\"?");
  assert_int_equal(perfcheck_expectations_count(bad), 0);
  perfcheck_expectations_destroy(bad);
  set = check1(r, "mysteryA:dram__bytes_reed.sum<=4", &st, &failures);
  assert_int_equal(failures, 1);
  assert_int_equal(result(set, 0).status, PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_contains(result(set, 0).message,
                  "no quantity named \"dram__bytes_reed.sum\" in the report; did you mean \"dram__bytes_read.sum\"");
  perfcheck_expectations_destroy(set);
  /* Every number of the JSON derived block is a quantity by its key, and so
   * is the headline of step 3, bytes_per_sector_ld (refused before). */
  for (size_t i = 0; i < pc_nderived_fields; i++) {
    char spec[128];
    snprintf(spec, sizeof spec, "mysteryA:%s>=0", pc_derived_fields[i].key);
    perfcheck_expectations *one = NULL;
    assert_int_equal(perfcheck_expectations_create(&one), PERFCHECK_OK);
    if (perfcheck_expectations_add(one, spec) != PERFCHECK_OK) fail_msg("%s: %s", spec, perfcheck_last_error_message());
    snprintf(spec, sizeof spec, "mysteryA:derived.%s>=0", pc_derived_fields[i].key);
    assert_int_equal(perfcheck_expectations_add(one, spec), PERFCHECK_OK);
    perfcheck_expectations_destroy(one);
  }
  r->kernels[0].derived.bytes_per_sector_ld = 4;
  assert_true(holds(r, "mysteryA:bytes_per_sector_ld<=4"));
  assert_false(holds(r, "mysteryA:bytes_per_sector_ld>=28"));
  pc_report_free(r);
}

static void test_words_and_step(void **state) {
  (void)state;
  pc_report *r = seed_report();
  assert_true(holds(r, "mysteryA:cause==uncoalesced_global_loads"));
  assert_false(holds(r, "mysteryA:cause!=uncoalesced_global_loads"));
  assert_true(holds(r, "mysteryB:cause==divergent_warps"));
  assert_true(holds(r, "mysteryA:bound==memory"));
  assert_true(holds(r, "mysteryB:bound!=memory"));
  assert_true(holds(r, "mysteryA:step==3"));
  assert_false(holds(r, "mysteryA:step<=2"));
  assert_true(holds(r, "regex:^mysteryC$:step>=0"));

  perfcheck_status st;
  size_t failures = 0;
  perfcheck_expectations *set = check1(r, "mysteryB:cause!=divergent_warps", &st, &failures);
  assert_int_equal(failures, 1);
  perfcheck_expectation_result res = result(set, 0);
  assert_int_equal(res.status, PERFCHECK_ERROR_EXPECTATION_FAILED);
  assert_string_equal(res.measured_word, "divergent_warps");
  assert_true(isnan(res.measured));
  assert_string_equal(res.message,
                      "mysteryB: cause is divergent_warps, expected != divergent_warps; verdict: step 4, "
                      "divergent_warps: " ADVICE_B);
  perfcheck_expectations_destroy(set);

  /* A verdict that was not reached is not a pass of "!=". */
  set_verdict(&r->kernels[1], 0, PERFCHECK_CAUSE_NOT_ASSESSED, PERFCHECK_BOUND_UNKNOWN, "", PC_NULL, PC_NULL,
              "No counters: run with counter access.");
  set = check1(r, "mysteryB:cause!=divergent_warps", &st, &failures);
  assert_int_equal(failures, 1);
  assert_int_equal(result(set, 0).status, PERFCHECK_ERROR_NOT_MEASURED);
  assert_contains(result(set, 0).message, "cause was not assessed (No counters: run with counter access.)");
  perfcheck_expectations_destroy(set);
  assert_false(holds(r, "mysteryB:bound!=memory"));
  assert_false(holds(r, "mysteryB:step==0"));
  assert_true(holds(r, "mysteryB:cause==not_assessed"));
  assert_true(holds(r, "mysteryB:bound==unknown"));
  pc_report_free(r);
}

/* ---- Parts API -------------------------------------------------------------- */

static void test_parts(void **state) {
  (void)state;
  pc_report *r = seed_report();
  perfcheck_expectations *set = NULL;
  assert_int_equal(perfcheck_expectations_create(&set), PERFCHECK_OK);
  perfcheck_expectation e;
  perfcheck_expectation_init(&e);
  assert_int_equal(e.size, sizeof e);
  assert_true(isnan(e.tolerance_pct));
  e.kernel = "mysteryA";
  e.quantity = "sectors_per_request_ld";
  e.comparison = PERFCHECK_CMP_LE;
  e.value = 4.5;
  assert_int_equal(perfcheck_expectations_add_parts(set, &e), PERFCHECK_OK);
  e.kernel = "^mystery[BC]$";
  e.kernel_is_regex = 1;
  e.quantity = "cause";
  e.comparison = PERFCHECK_CMP_NE;
  e.word = "divergent_warps";
  assert_int_equal(perfcheck_expectations_add_parts(set, &e), PERFCHECK_OK);
  perfcheck_expectation w;
  perfcheck_expectation_init(&w);
  w.kernel = "mysteryC";
  w.quantity = "gpu__time_duration.sum";
  w.comparison = PERFCHECK_CMP_WITHIN;
  w.value = 1.2e6;
  w.tolerance_pct = 10;
  assert_int_equal(perfcheck_expectations_add_parts(set, &w), PERFCHECK_OK);
  w.comparison = PERFCHECK_CMP_LE;
  w.tolerance_pct = 0;
  assert_int_equal(perfcheck_expectations_add_parts(set, &w), PERFCHECK_OK);
  assert_int_equal(perfcheck_expectations_count(set), 4);

  size_t failures = 0;
  assert_int_equal(perfcheck_expectations_check(set, r, &failures), PERFCHECK_ERROR_EXPECTATION_FAILED);
  /* A: fails; B: fails; C x2: pass (cause); C within: 1414000 fails, 1200000 passes; <= exact: 1414000 fails. */
  assert_int_equal(perfcheck_expectations_result_count(set), 1 + 3 + 2 + 2);
  assert_int_equal(failures, 1 + 1 + 1 + 1);
  assert_string_equal(result(set, 0).spec, "mysteryA:sectors_per_request_ld<=4.5");
  assert_string_equal(result(set, 1).spec, "regex:^mystery[BC]$:cause!=divergent_warps");
  assert_string_equal(result(set, 4).spec, "mysteryC:gpu__time_duration.sum within 10% of 1200000");
  assert_string_equal(result(set, 6).spec, "mysteryC:gpu__time_duration.sum<=1200000 +-0%");
  /* The generated specs parse back. */
  for (size_t i = 0; i < perfcheck_expectations_result_count(set); i++) {
    pc_expectation back;
    pc_err err;
    assert_int_equal(pc_expect_parse(result(set, i).spec, &back, &err), PERFCHECK_OK);
    pc_expectation_free(&back);
  }
  /* The failures text holds one line per failure, in order. */
  const char *text = perfcheck_expectations_failures_text(set);
  size_t lines = 1;
  for (const char *p = text; *p; p++) lines += *p == '\n';
  assert_int_equal(lines, 4);
  assert_true(strncmp(text, "mysteryA: sectors_per_request_ld is 31.91, expected <= 4.5; verdict: step 3, "
                            "uncoalesced_global_loads: " ADVICE_A, strlen("mysteryA: sectors_per_request_ld is 31.91")) == 0);
  assert_contains(text, ADVICE_A);

  /* Bad parts, each refused with a message. */
  perfcheck_expectation bad;
  perfcheck_expectation_init(&bad);
  bad.kernel = "k";
  bad.quantity = "cause";
  bad.comparison = PERFCHECK_CMP_LT;
  bad.word = "divergent_warps";
  assert_int_equal(perfcheck_expectations_add_parts(set, &bad), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_contains(perfcheck_last_error_message(), "== or != only");
  bad.comparison = PERFCHECK_CMP_EQ;
  bad.word = "slow";
  assert_int_equal(perfcheck_expectations_add_parts(set, &bad), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_contains(perfcheck_last_error_message(), "unknown cause word");
  bad.word = NULL;
  assert_int_equal(perfcheck_expectations_add_parts(set, &bad), PERFCHECK_ERROR_INVALID_ARGUMENT);
  bad.quantity = "sectors_per_request_ld";
  bad.word = "x";
  assert_int_equal(perfcheck_expectations_add_parts(set, &bad), PERFCHECK_ERROR_INVALID_ARGUMENT);
  bad.word = NULL;
  bad.value = PC_NULL;
  assert_int_equal(perfcheck_expectations_add_parts(set, &bad), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_contains(perfcheck_last_error_message(), "finite");
  bad.value = 1;
  bad.tolerance_pct = -1;
  assert_int_equal(perfcheck_expectations_add_parts(set, &bad), PERFCHECK_ERROR_INVALID_ARGUMENT);
  bad.tolerance_pct = PC_NULL;
  bad.kernel = "[";
  bad.kernel_is_regex = 1;
  assert_int_equal(perfcheck_expectations_add_parts(set, &bad), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_contains(perfcheck_last_error_message(), "bad regular expression");
  bad.kernel = "";
  assert_int_equal(perfcheck_expectations_add_parts(set, &bad), PERFCHECK_ERROR_INVALID_ARGUMENT);
  bad.kernel = "k";
  bad.kernel_is_regex = 0;
  bad.quantity = "a b";
  assert_int_equal(perfcheck_expectations_add_parts(set, &bad), PERFCHECK_ERROR_INVALID_ARGUMENT);
  bad.quantity = "q"; /* no quantity of any report (refused at once) */
  assert_int_equal(perfcheck_expectations_add_parts(set, &bad), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_contains(perfcheck_last_error_message(), "unknown quantity \"q\"");
  bad.quantity = "flops";
  bad.comparison = (perfcheck_comparison)42;
  assert_int_equal(perfcheck_expectations_add_parts(set, &bad), PERFCHECK_ERROR_INVALID_ARGUMENT);
  bad.comparison = PERFCHECK_CMP_EQ;
  bad.size = 8;
  assert_int_equal(perfcheck_expectations_add_parts(set, &bad), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_int_equal(perfcheck_expectations_count(set), 4);

  /* Adding drops the old results (they would point at moved memory). */
  assert_int_equal(perfcheck_expectations_add(set, "mysteryA:step==3"), PERFCHECK_OK);
  assert_int_equal(perfcheck_expectations_result_count(set), 0);
  assert_string_equal(perfcheck_expectations_failures_text(set), "");
  perfcheck_expectation_result out;
  out.size = sizeof out;
  assert_int_equal(perfcheck_expectations_result(set, 0, &out), PERFCHECK_ERROR_NOT_FOUND);
  out.size = 0;
  assert_int_equal(perfcheck_expectations_result(set, 0, &out), PERFCHECK_ERROR_INVALID_ARGUMENT);
  perfcheck_expectations_destroy(set);
  perfcheck_expectations_destroy(NULL);
  assert_int_equal(perfcheck_expectations_count(NULL), 0);
  assert_string_equal(perfcheck_expectations_failures_text(NULL), "");
  pc_report_free(r);
}

/* ---- The one-shot call ------------------------------------------------------ */

static void test_expect_once(void **state) {
  (void)state;
  pc_report *r = seed_report();
  assert_int_equal(perfcheck_expect(r, "mysteryB:sectors_per_request_ld<=4.5", NULL), 0);
  assert_string_equal(perfcheck_expect_message(), "");
  assert_int_equal(perfcheck_expect(r, "mysteryA:sectors_per_request_ld<=4.5", NULL), 1);
  assert_contains(perfcheck_expect_message(), "mysteryA: sectors_per_request_ld is 31.91, expected <= 4.5");
  assert_contains(perfcheck_expect_message(), ADVICE_A);
  assert_int_equal(perfcheck_expect(r, "regex:mystery:sectors_per_request_ld<=4", NULL), 1);
  assert_int_equal(perfcheck_expect(r, "regex:mystery[AB]:threads_per_instruction>=33", NULL), 2);
  assert_int_equal(perfcheck_expect(r, "mysteryA:sectors_per_request_ld<=", NULL), 1);
  assert_contains(perfcheck_expect_message(), "column 34: expected a number");
  assert_int_equal(perfcheck_expect(NULL, "mysteryA:step==3", NULL), 1);
  assert_contains(perfcheck_expect_message(), "no report");
  assert_int_equal(perfcheck_expect(r, NULL, NULL), 1);

  /* With a stream: one line per failure. */
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  assert_int_equal(perfcheck_expect(r, "regex:mystery[AB]:threads_per_instruction>=33", f), 2);
  fclose(f);
  assert_contains(buf, "perfcheck: expectation failed: mysteryB: threads_per_instruction is 16.21");
  size_t lines = 0;
  for (const char *p = buf; *p; p++) lines += *p == '\n';
  assert_int_equal(lines, 2);
  free(buf);
  pc_report_free(r);
}

/* ---- XML escaping ------------------------------------------------------------ */

static char *escaped(const char *s, int attribute) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  pc_xml_write_escaped(f, s, attribute);
  fclose(f);
  return buf;
}

static void test_xml_escape(void **state) {
  (void)state;
  static const struct {
    const char *in;
    int attr;
    const char *out;
  } cases[] = {
      {"a<b>&c", 0, "a&lt;b&gt;&amp;c"},
      {"say \"hi\" 'x'", 0, "say \"hi\" 'x'"},
      {"say \"hi\" 'x'", 1, "say &quot;hi&quot; &apos;x&apos;"},
      {"]]>", 0, "]]&gt;"},
      {"t\tn\nr\r", 0, "t\tn\nr&#13;"},
      {"t\tn\nr\r", 1, "t&#9;n&#10;r&#13;"},
      {"bell\x07 esc\x1b", 0, "bell\xEF\xBF\xBD esc\xEF\xBF\xBD"},
      {"bad \xff\xfe end", 0, "bad \xEF\xBF\xBD\xEF\xBF\xBD end"},
      {"cut \xE2\x82", 0, "cut \xEF\xBF\xBD\xEF\xBF\xBD"},
      {"nonchar \xEF\xBF\xBF \xEF\xBF\xBE", 0, "nonchar \xEF\xBF\xBD \xEF\xBF\xBD"},
      {"surrogate \xED\xA0\x80", 0, "surrogate \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"},
      {"ok \xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80", 0, "ok \xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"},
      {"del\x7f", 0, "del\x7f"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *out = escaped(cases[i].in, cases[i].attr);
    if (strcmp(out, cases[i].out) != 0) fail_msg("case %zu: got \"%s\"", i, out);
    free(out);
  }
}

/* A report whose names hold everything XML must not see raw. */
static pc_report *hostile_report(void) {
  pc_report *r = seed_report();
  pc_kernel *k = add_kernel(r, "evil<&>\"'\x01\x1f\xff\xfe]]>\t\n\xEF\xBF\xBF", 1, 32, 0);
  k->derived.sectors_per_request_ld = 9;
  set_verdict(k, 3, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS, PERFCHECK_BOUND_MEMORY, "m", 9, 8,
              "advice with <tags> & \"quotes\" and a \x02 control");
  return r;
}

static void write_hostile_junit(FILE *f) {
  pc_report *r = hostile_report();
  perfcheck_expectations *set = NULL;
  assert_int_equal(perfcheck_expectations_create(&set), PERFCHECK_OK);
  assert_int_equal(perfcheck_expectations_add(set, "regex:.:sectors_per_request_ld<=4.5"), PERFCHECK_OK);
  assert_int_equal(perfcheck_expectations_add(set, "mysteryB:cause!=divergent_warps"), PERFCHECK_OK);
  assert_int_equal(perfcheck_expectations_add(set, "mysteryD:step==0"), PERFCHECK_OK);
  size_t failures = 0;
  assert_int_equal(perfcheck_expectations_check(set, r, &failures), PERFCHECK_ERROR_EXPECTATION_FAILED);
  assert_int_equal(failures, 4); /* mysteryA, the evil one, mysteryB, mysteryD */
  assert_int_equal(perfcheck_expectations_write_junit(set, "suite <1>", f), PERFCHECK_OK);
  perfcheck_expectations_destroy(set);
  pc_report_free(r);
}

static void test_junit(void **state) {
  (void)state;
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  write_hostile_junit(f);
  fclose(f);
  assert_contains(buf, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>");
  assert_contains(buf, "<testsuite name=\"suite &lt;1&gt;\" tests=\"7\" failures=\"4\"");
  assert_contains(buf, "name=\"mysteryB: cause != divergent_warps\"");
  assert_contains(buf, "<failure type=\"not_found\"");
  assert_contains(buf, "<failure type=\"expectation_failed\"");
  assert_contains(buf, "evil&lt;&amp;&gt;&quot;&apos;\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD]]&gt;&#9;&#10;\xEF\xBF\xBD");
  /* No raw control character anywhere but tab and newline. */
  for (const unsigned char *p = (const unsigned char *)buf; *p; p++)
    if (*p < 0x20 && *p != '\n' && *p != '\t') fail_msg("raw control character 0x%02x at %zu", *p, (size_t)(p - (const unsigned char *)buf));
  free(buf);

  perfcheck_expectations *set = NULL;
  assert_int_equal(perfcheck_expectations_create(&set), PERFCHECK_OK);
  assert_int_equal(perfcheck_expectations_write_junit(set, NULL, NULL), PERFCHECK_ERROR_INVALID_ARGUMENT);
  perfcheck_expectations_destroy(set);
}

/* ---- The real export, when it is there ------------------------------------- */

static void test_seed_export(void **state) {
  (void)state;
  const char *path = PERFCHECK_TEST_DATA "/t4_seed000.csv";
  /* The fixture is committed: its absence is a failure, never a pass. */
  if (access(path, R_OK) != 0) fail_msg("fixture %s is missing", path);
  perfcheck_report *r = NULL;
  assert_int_equal(perfcheck_report_from_ncu_csv(path, 1, &r), PERFCHECK_OK);
  /* The good kernels pass; mysteryA fails step 3, as seed 000 says. */
  assert_int_equal(perfcheck_expect(r, "regex:^mystery[BC]$:sectors_per_request_ld<=4.5", NULL), 0);
  assert_int_equal(perfcheck_expect(r, "mysteryC:threads_per_instruction>=24", NULL), 0);
  assert_int_equal(perfcheck_expect(r, "mysteryC:cause!=divergent_warps", NULL), 0);
  assert_int_equal(perfcheck_expect(r, "mysteryA:threads_per_instruction>=24", NULL), 0);
  assert_int_equal(perfcheck_expect(r, "mysteryA:sectors_per_request_ld<=4.5", NULL), 1);
  assert_contains(perfcheck_expect_message(), "mysteryA: sectors_per_request_ld is 31.9");
  assert_contains(perfcheck_expect_message(), "uncoalesced_global_loads");
  assert_int_equal(perfcheck_expect(r, "mysteryA:cause==uncoalesced_global_loads", NULL), 0);
  assert_int_equal(perfcheck_expect(r, "mysteryB:cause==divergent_warps", NULL), 0);
  assert_int_equal(perfcheck_expect(r, "mysteryB:threads_per_instruction>=24", NULL), 1);
  perfcheck_report_destroy(r);
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--write-junit") == 0) {
    FILE *f = fopen(argv[2], "w");
    if (!f) return 1;
    write_hostile_junit(f);
    return fclose(f) == 0 ? 0 : 1;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parse_forms),    cmocka_unit_test(test_parse_errors),
      cmocka_unit_test(test_operators_exact), cmocka_unit_test(test_tolerance_policy),
      cmocka_unit_test(test_regex_several),  cmocka_unit_test(test_missing_kernel),
      cmocka_unit_test(test_unmeasured),     cmocka_unit_test(test_words_and_step),
      cmocka_unit_test(test_parts),          cmocka_unit_test(test_expect_once),
      cmocka_unit_test(test_xml_escape),     cmocka_unit_test(test_junit),
      cmocka_unit_test(test_seed_export),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
