/* libFuzzer target: the expectation parser, the check, and the JUnit writer.
 *
 * The input is split at newlines: each line is a spec for
 * perfcheck_expectations_add (a malformed one must be a clean PARSE error
 * with a column), then the set is checked against a fixed report (the T4
 * seed export, built in at the first call) and written as JUnit XML.
 * Regexes in specs go through the regex guard: every accepted one must stay
 * cheap, which the fuzzer's time limit (-timeout) enforces.
 *
 *   CC=clang cmake -S . -B build-fuzz -DPERFCHECK_FUZZ=ON -DPERFCHECK_BUILD_CUDA=OFF
 *   cmake --build build-fuzz --target fuzz_expect
 *   mkdir -p corpus-expect && printf '%s\n' 'mysteryA:sectors_per_request_ld<=4.5' \
 *     'regex:^mystery[BC]$:threads_per_instruction>=24' > corpus-expect/seed
 *   build-fuzz/tests/fuzz/fuzz_expect -dict=tests/fuzz/expect.dict -timeout=10 -max_total_time=180 corpus-expect
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/pc_core.h"
#include "expect/pc_expect.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static pc_report *report(void) {
  static pc_report *r;
  if (!r) {
    if (perfcheck_report_from_ncu_csv(PERFCHECK_FUZZ_DATA "/t4_seed000.csv", 1, &r) != PERFCHECK_OK) __builtin_trap();
  }
  return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 65536) return 0;
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  perfcheck_expectations *set = NULL;
  if (perfcheck_expectations_create(&set) != PERFCHECK_OK) __builtin_trap();
  for (char *line = text, *next; line; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = '\0';
    perfcheck_status st = perfcheck_expectations_add(set, line);
    /* The internal parser says the same, and a refusal names its column
     * (the public message quotes the spec first and may be cut). */
    pc_expectation e;
    pc_err err = {0};
    perfcheck_status st2 = pc_expect_parse(line, &e, &err);
    if (st2 == PERFCHECK_OK) pc_expectation_free(&e);
    if (st2 != st) __builtin_trap();
    if (st2 == PERFCHECK_ERROR_PARSE && strncmp(err.msg, "column ", 7) != 0) __builtin_trap();
  }
  size_t failures = 0;
  perfcheck_status st = perfcheck_expectations_check(set, report(), &failures);
  if (st != PERFCHECK_OK && st != PERFCHECK_ERROR_EXPECTATION_FAILED) __builtin_trap();
  if ((st == PERFCHECK_OK) != (failures == 0)) __builtin_trap();
  FILE *f = fopen("/dev/null", "w");
  if (f) {
    perfcheck_expectations_write_junit(set, "fuzz", f);
    fclose(f);
  }
  (void)perfcheck_expectations_failures_text(set);
  perfcheck_expectations_destroy(set);
  free(text);
  return 0;
}
