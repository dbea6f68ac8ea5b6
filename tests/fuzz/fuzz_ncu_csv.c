/* libFuzzer target for the ncu CSV reader and the three report writers.
 *
 * Any input must give PERFCHECK_OK or a clean error: no crash, no leak, no
 * undefined behaviour (built with -fsanitize=fuzzer,address,undefined), and,
 * when it parses, the checklist and every writer must run over the report.
 *
 *   CC=clang cmake -S . -B build-fuzz -DPERFCHECK_FUZZ=ON -DPERFCHECK_BUILD_CUDA=OFF
 *   cmake --build build-fuzz --target fuzz_ncu_csv
 *   mkdir -p corpus && find tests/data -type f -name '*.csv' -exec cp {} corpus \;
 *   build-fuzz/tests/fuzz/fuzz_ncu_csv -dict=tests/fuzz/ncu_csv.dict \
 *       -max_total_time=180 corpus
 */
#include <stdint.h>
#include <stdio.h>

#include "model/pc_core.h"
#include "check/pc_check.h"
#include "write/pc_write.h"
#include "read/pc_ncu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static FILE *sink;
  if (!sink) sink = fopen("/dev/null", "w");
  pc_report *r = NULL;
  pc_err err;
  perfcheck_status st = pc_ncu_csv_parse((const char *)data, size, "fuzz.csv", 1, &r, &err);
  if (st != PERFCHECK_OK) {
    if (r) __builtin_trap();        /* a failure leaves *out NULL */
    if (err.msg[0] == '\0') __builtin_trap(); /* and says why */
    return 0;
  }
  pc_checklist_report(r);
  if (sink) {
    pc_write_text(r, sink, NULL);
    pc_write_json(r, sink, NULL);
    pc_write_csv(r, sink, NULL);
  }
  pc_report_free(r);
  return 0;
}
