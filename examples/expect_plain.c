/* Performance expectations in a plain C test, no framework.
 *
 * PERFCHECK_CHECK(report, spec) is the number of failures (0 when the
 * expectation holds) and prints each failure on stderr with the kernel, the
 * quantity, the measured value, the bound and the checklist's advice.  Here
 * the report is a recorded Nsight Compute export (the seed's T4 run of the
 * three mystery kernels), so the test runs anywhere, GPU or not; in a test
 * that runs the kernels, take the report from perfcheck_session_report.
 *
 *   ./example_expect_plain tests/data/t4_seed000.csv
 *
 * Exit 0 when everything behaves as seed 000 says: the good kernels pass,
 * and the expectation on mysteryA (uncoalesced loads) fails as it must. */
#include <perfcheck.h>
#include <perfcheck_test.h>
#include <stdio.h>
#include <string.h>

#ifndef PERFCHECK_EXAMPLE_DATA
#define PERFCHECK_EXAMPLE_DATA "tests/data/t4_seed000.csv"
#endif

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : PERFCHECK_EXAMPLE_DATA;
  perfcheck_report *report = NULL;
  if (perfcheck_report_from_ncu_csv(path, 1, &report) != PERFCHECK_OK) {
    fprintf(stderr, "%s\n", perfcheck_last_error_message());
    return 2;
  }

  size_t failures = 0;
  /* mysteryB and mysteryC load 4 sectors per request: keep them coalesced. */
  failures += PERFCHECK_CHECK(report, "regex:^mystery[BC]$:sectors_per_request_ld<=4.5");
  /* mysteryC's lanes all work; its verdict must never become divergence. */
  failures += PERFCHECK_CHECK(report, "mysteryC:threads_per_instruction>=24");
  failures += PERFCHECK_CHECK(report, "mysteryC:cause!=divergent_warps");

  /* mysteryA reads a column of a row-major matrix: 32 sectors per request.
   * This expectation must fail, and its message must say why. */
  printf("expected to fail (mysteryA is uncoalesced):\n");
  fflush(stdout);
  if (PERFCHECK_CHECK(report, "mysteryA:sectors_per_request_ld<=4.5") != 1 ||
      !strstr(perfcheck_expect_message(), "uncoalesced_global_loads")) {
    fprintf(stderr, "mysteryA should fail its coalescing expectation with the step-3 advice\n");
    failures++;
  }

  perfcheck_report_destroy(report);
  printf("%s\n", failures ? "FAILED" : "ok: the good kernels pass, mysteryA fails as it should");
  return failures ? 1 : 0;
}
