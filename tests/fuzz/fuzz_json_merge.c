/* libFuzzer target: the JSON report reader, the three writers, and merge.
 *
 * Any input must give PERFCHECK_OK or a clean error (no crash, leak or
 * undefined behaviour: -fsanitize=fuzzer,address,undefined).  A report that
 * reads is written in the three formats, merged with itself and with a
 * report read back from its own JSON, and the merge written again; the
 * checklist runs over every merged report.
 *
 *   CC=clang cmake -S . -B build-fuzz -DPERFCHECK_FUZZ=ON -DPERFCHECK_BUILD_CUDA=OFF
 *   cmake --build build-fuzz --target fuzz_json_merge
 *   mkdir -p corpus-json && for f in tests/data/t4_seed000.csv tests/data/h200/mystery.csv; do
 *     build/bin/perfcheck diagnose -q -f json "$f" > corpus-json/$(basename "$f").json; done
 *   build-fuzz/tests/fuzz/fuzz_json_merge -dict=tests/fuzz/json.dict -max_total_time=180 corpus-json
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/pc_core.h"
#include "read/pc_json.h"
#include "write/pc_write.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *sink(void) {
  static FILE *f;
  if (!f) f = fopen("/dev/null", "w");
  return f;
}

static void write_all(const pc_report *r) {
  if (!sink()) return;
  pc_write_text(r, sink(), NULL);
  pc_write_json(r, sink(), NULL);
  pc_write_csv(r, sink(), NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  pc_report *r = NULL;
  pc_err err;
  perfcheck_status st = pc_report_from_json_text((const char *)data, size, "fuzz.json", 1, &r, &err);
  if (st != PERFCHECK_OK) {
    if (r) __builtin_trap();
    if (err.msg[0] == '\0' && st == PERFCHECK_ERROR_PARSE) __builtin_trap();
    return 0;
  }
  write_all(r);
  /* Its own JSON reads back. */
  char *text = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  pc_report *back = NULL;
  if (m) {
    pc_write_json(r, m, NULL);
    fclose(m);
    if (pc_report_from_json_text(text, len, "back.json", 1, &back, &err) != PERFCHECK_OK) __builtin_trap();
  }
  const perfcheck_report *in[3] = {r, r, back ? back : r};
  perfcheck_report *merged = NULL;
  if (perfcheck_report_merge(in, 3, &merged) == PERFCHECK_OK) {
    write_all(merged);
    perfcheck_report_destroy(merged);
  }
  pc_report_free(back);
  free(text);
  pc_report_free(r);
  return 0;
}
