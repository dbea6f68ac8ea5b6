/* Prints, as JSON, the layout of the structs the Python package mirrors with
 * ctypes (python/perfcheck/_lib.py), the status list and the version, as
 * perfcheck.h defines them; tests/python/test_abi.py compares. */
#include <stddef.h>
#include <stdio.h>

#include "perfcheck.h"

static int first;
#define FIELD(T, f)                                                                                 \
  printf("%s[\"%s\", %zu, %zu]", first ? "" : ", ", #f, offsetof(T, f), sizeof(((T *)0)->f)); \
  first = 0

int main(void) {
  printf("{\"options\": {\"size\": %zu, \"fields\": [", sizeof(perfcheck_options));
  first = 1;
  FIELD(perfcheck_options, size);
  FIELD(perfcheck_options, mode);
  FIELD(perfcheck_options, metrics);
  FIELD(perfcheck_options, kernel_regex);
  FIELD(perfcheck_options, launch_skip);
  FIELD(perfcheck_options, launch_count);
  FIELD(perfcheck_options, per_signature);
  FIELD(perfcheck_options, progress);
  FIELD(perfcheck_options, emit_nvtx);
  FIELD(perfcheck_options, quiet);
  FIELD(perfcheck_options, output);
  FIELD(perfcheck_options, output_format);
  printf("]},\n \"expectation_result\": {\"size\": %zu, \"fields\": [", sizeof(perfcheck_expectation_result));
  first = 1;
  FIELD(perfcheck_expectation_result, size);
  FIELD(perfcheck_expectation_result, spec);
  FIELD(perfcheck_expectation_result, kernel);
  FIELD(perfcheck_expectation_result, quantity);
  FIELD(perfcheck_expectation_result, status);
  FIELD(perfcheck_expectation_result, measured);
  FIELD(perfcheck_expectation_result, measured_word);
  FIELD(perfcheck_expectation_result, expected);
  FIELD(perfcheck_expectation_result, message);
  FIELD(perfcheck_expectation_result, advice);
  printf("]},\n \"status\": [");
  first = 1;
#define STATUS_(name, value, msg) \
  printf("%s[\"%s\", %d]", first ? "" : ", ", #name, value); \
  first = 0;
  PERFCHECK_STATUS_LIST(STATUS_)
#undef STATUS_
  printf("],\n \"causes\": [");
  first = 1;
#define CAUSE_(name, value, word) \
  printf("%s\"%s\"", first ? "" : ", ", word); \
  first = 0;
  PERFCHECK_CAUSE_LIST(CAUSE_)
#undef CAUSE_
  printf("],\n \"formats\": [%d, %d, %d], \"modes\": [%d, %d, %d],\n", PERFCHECK_FORMAT_TEXT, PERFCHECK_FORMAT_JSON,
         PERFCHECK_FORMAT_CSV, PERFCHECK_MODE_AUTO, PERFCHECK_MODE_TIMING, PERFCHECK_MODE_COUNTERS);
  printf(" \"version_number\": %d, \"version_string\": \"%s\"}\n", PERFCHECK_VERSION_NUMBER, PERFCHECK_VERSION_STRING);
  return 0;
}
