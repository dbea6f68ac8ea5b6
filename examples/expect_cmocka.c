/* Performance expectations in a cmocka suite.
 *
 * PERFCHECK_ASSERT_CMOCKA(report, spec) fails the test with perfcheck's
 * message (kernel, quantity, measured value, bound, advice) when the
 * expectation does not hold.  The report is a recorded Nsight Compute export
 * of seed 000's mystery kernels, so the suite runs without a GPU.
 *
 *   ./example_expect_cmocka tests/data/t4_seed000.csv */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <perfcheck.h>
#include <perfcheck_test.h>

#ifndef PERFCHECK_EXAMPLE_DATA
#define PERFCHECK_EXAMPLE_DATA "tests/data/t4_seed000.csv"
#endif

static const char *data_path = PERFCHECK_EXAMPLE_DATA;

static int load_report(void **state) {
  perfcheck_report *report = NULL;
  if (perfcheck_report_from_ncu_csv(data_path, 1, &report) != PERFCHECK_OK) {
    print_error("%s\n", perfcheck_last_error_message());
    return -1;
  }
  *state = report;
  return 0;
}

static int free_report(void **state) {
  perfcheck_report_destroy(*state);
  return 0;
}

static void good_kernels_are_coalesced(void **state) {
  const perfcheck_report *report = *state;
  PERFCHECK_ASSERT_CMOCKA(report, "regex:^mystery[BC]$:sectors_per_request_ld<=4.5");
  PERFCHECK_ASSERT_CMOCKA(report, "regex:^mystery[BC]$:sectors_per_request_st<=4.5");
}

static void mysteryC_lanes_are_busy(void **state) {
  const perfcheck_report *report = *state;
  PERFCHECK_ASSERT_CMOCKA(report, "mysteryC:threads_per_instruction>=24");
  PERFCHECK_ASSERT_CMOCKA(report, "mysteryC:cause!=divergent_warps");
}

/* An expectation known to fail: PERFCHECK_ASSERT_CMOCKA would stop the test
 * here, so this test calls perfcheck_expect itself and checks the message. */
static void mysteryA_fails_with_its_advice(void **state) {
  const perfcheck_report *report = *state;
  assert_int_equal(perfcheck_expect(report, "mysteryA:sectors_per_request_ld<=4.5", NULL), 1);
  const char *msg = perfcheck_expect_message();
  print_message("expected failure: %s\n", msg);
  assert_non_null(strstr(msg, "mysteryA: sectors_per_request_ld is 31.9"));
  assert_non_null(strstr(msg, "step 3, uncoalesced_global_loads"));
}

int main(int argc, char **argv) {
  if (argc > 1) data_path = argv[1];
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(good_kernels_are_coalesced),
      cmocka_unit_test(mysteryC_lanes_are_busy),
      cmocka_unit_test(mysteryA_fails_with_its_advice),
  };
  return cmocka_run_group_tests(tests, load_report, free_report);
}
