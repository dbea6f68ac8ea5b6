/* The public calls made for callers that have no FILE* and build their own
 * session (the Python package, other language bindings):
 * perfcheck_report_to_string / perfcheck_free, perfcheck_report_from_json_text
 * and perfcheck_options_from_env.  Fixture: the committed H200 export of the
 * seed's mystery program. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/pc_core.h"

#define assert_contains(hay, needle)                                                                  \
  do {                                                                                                \
    const char *h_ = (hay);                                                                           \
    if (!h_ || !strstr(h_, (needle))) fail_msg("\"%s\" does not contain \"%s\"", h_ ? h_ : "(null)", (needle)); \
  } while (0)

static perfcheck_report *mystery(void) {
  perfcheck_report *r = NULL;
  perfcheck_status st = perfcheck_report_from_ncu_csv(PERFCHECK_TEST_DATA "/h200/mystery.csv", 1, &r);
  if (st != PERFCHECK_OK) fail_msg("mystery.csv: %s: %s", perfcheck_strerror(st), perfcheck_last_error_message());
  assert_int_equal(perfcheck_report_kernel_count(r), 4);
  return r;
}

/* What perfcheck_report_write puts in a stream, for comparison. */
static char *written(const perfcheck_report *r, perfcheck_format fmt, size_t *len) {
  char *buf = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&buf, &n);
  assert_non_null(f);
  assert_int_equal(perfcheck_report_write(r, fmt, f), PERFCHECK_OK);
  fclose(f);
  *len = n;
  return buf;
}

/* ---- perfcheck_report_to_string -------------------------------------------------- */

static void test_to_string_equals_write(void **state) {
  (void)state;
  perfcheck_report *r = mystery();
  const perfcheck_format fmts[] = {PERFCHECK_FORMAT_TEXT, PERFCHECK_FORMAT_JSON, PERFCHECK_FORMAT_CSV};
  for (size_t i = 0; i < 3; i++) {
    size_t wlen = 0, slen = 12345;
    char *w = written(r, fmts[i], &wlen);
    char *s = NULL;
    assert_int_equal(perfcheck_report_to_string(r, fmts[i], &s, &slen), PERFCHECK_OK);
    assert_non_null(s);
    assert_true(wlen > 100);
    assert_int_equal(slen, wlen);
    assert_int_equal(strlen(s), slen); /* NUL-terminated, no NUL inside */
    assert_memory_equal(s, w, wlen);
    perfcheck_free(s);
    free(w);
  }
  /* The content itself: the four seed verdicts. */
  char *text = NULL;
  assert_int_equal(perfcheck_report_to_string(r, PERFCHECK_FORMAT_TEXT, &text, NULL), PERFCHECK_OK);
  assert_contains(text, "mysteryA: step 3 uncoalesced_global_loads");
  assert_contains(text, "mysteryB: step 4 divergent_warps");
  assert_contains(text, "mysteryC, 116736 B dynamic: step 5 occupancy_shared_memory");
  assert_contains(text, "mysteryC, 0 B dynamic: step 0 at_roof");
  perfcheck_free(text);
  perfcheck_report_destroy(r);
}

static void test_to_string_errors(void **state) {
  (void)state;
  perfcheck_report *r = mystery();
  char *s = (char *)"sentinel";
  size_t len = 99;
  assert_int_equal(perfcheck_report_to_string(NULL, PERFCHECK_FORMAT_JSON, &s, &len),
                   PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_null(s);
  assert_int_equal(len, 0);
  assert_contains(perfcheck_last_error_message(), "report is NULL");
  len = 99;
  assert_int_equal(perfcheck_report_to_string(r, PERFCHECK_FORMAT_JSON, NULL, &len),
                   PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_int_equal(len, 0);
  s = (char *)"sentinel";
  assert_int_equal(perfcheck_report_to_string(r, (perfcheck_format)7, &s, &len), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_null(s);
  assert_int_equal(len, 0);
  assert_contains(perfcheck_last_error_message(), "unknown format 7");
  perfcheck_free(NULL); /* a no-op */
  perfcheck_report_destroy(r);
}

/* ---- perfcheck_report_from_json_text ---------------------------------------------- */

static void test_json_text_round_trip(void **state) {
  (void)state;
  perfcheck_report *r = mystery();
  char *json = NULL;
  size_t len = 0;
  assert_int_equal(perfcheck_report_to_string(r, PERFCHECK_FORMAT_JSON, &json, &len), PERFCHECK_OK);
  /* An exact-size copy with no NUL after it: the reader must stay inside len. */
  char *exact = malloc(len);
  assert_non_null(exact);
  memcpy(exact, json, len);
  perfcheck_report *back = NULL;
  assert_int_equal(perfcheck_report_from_json_text(exact, len, "copy.json", 1, &back), PERFCHECK_OK);
  assert_non_null(back);
  assert_int_equal(perfcheck_report_kernel_count(back), 4);
  int found_b = 0;
  for (size_t i = 0; i < 4; i++) { /* the writer orders kernels by time: find mysteryB by name */
    perfcheck_kernel_info k;
    k.size = sizeof k;
    assert_int_equal(perfcheck_report_kernel(back, i, &k), PERFCHECK_OK);
    if (strcmp(k.name, "mysteryB") != 0) continue;
    found_b++;
    assert_int_equal(k.cause, PERFCHECK_CAUSE_DIVERGENT_WARPS);
    assert_true(k.threads_per_instruction > 16.2 && k.threads_per_instruction < 16.3);
  }
  assert_int_equal(found_b, 1);
  char *again = NULL;
  size_t len2 = 0;
  assert_int_equal(perfcheck_report_to_string(back, PERFCHECK_FORMAT_JSON, &again, &len2), PERFCHECK_OK);
  assert_int_equal(len2, len);
  assert_memory_equal(again, json, len); /* byte for byte */
  perfcheck_free(again);
  perfcheck_report_destroy(back);
  free(exact);
  perfcheck_free(json);
  perfcheck_report_destroy(r);
}

static void test_json_text_errors(void **state) {
  (void)state;
  perfcheck_report *out = (perfcheck_report *)&out; /* not NULL: must be cleared */
  const char *bad = "{\"schema\": \"perfcheck-report/1\",\n \"kernels\": [1,]}";
  assert_int_equal(perfcheck_report_from_json_text(bad, strlen(bad), "mine.json", 1, &out), PERFCHECK_ERROR_PARSE);
  assert_null(out);
  assert_contains(perfcheck_last_error_message(), "mine.json:2:");
  assert_int_equal(perfcheck_report_from_json_text(bad, strlen(bad), NULL, 1, &out), PERFCHECK_ERROR_PARSE);
  assert_contains(perfcheck_last_error_message(), "<json>:2:");
  const char *notreport = "{\"a\": 1}";
  assert_int_equal(perfcheck_report_from_json_text(notreport, strlen(notreport), "x", 1, &out), PERFCHECK_ERROR_PARSE);
  assert_contains(perfcheck_last_error_message(), "x:");
  /* len cuts the text: only what len covers is read. */
  const char *ok_then_junk = "{\"schema\": \"perfcheck-report/1\", \"kernels\": []}GARBAGE";
  size_t cut = strlen(ok_then_junk) - strlen("GARBAGE");
  assert_int_equal(perfcheck_report_from_json_text(ok_then_junk, cut, "cut", 1, &out), PERFCHECK_OK);
  assert_non_null(out);
  assert_int_equal(perfcheck_report_kernel_count(out), 0);
  perfcheck_report_destroy(out);
  assert_int_equal(perfcheck_report_from_json_text(ok_then_junk, strlen(ok_then_junk), "cut", 1, &out),
                   PERFCHECK_ERROR_PARSE);
  assert_int_equal(perfcheck_report_from_json_text(NULL, 0, "n", 1, &out), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_int_equal(perfcheck_report_from_json_text("{}", 2, "n", 1, NULL), PERFCHECK_ERROR_INVALID_ARGUMENT);
}

/* ---- perfcheck_options_from_env ---------------------------------------------------- */

static const char *const env_vars[] = {"PERFCHECK_MODE",          "PERFCHECK_METRICS",     "PERFCHECK_KERNELS",
                                       "PERFCHECK_LAUNCH_SKIP",   "PERFCHECK_LAUNCH_COUNT", "PERFCHECK_PER_SIGNATURE",
                                       "PERFCHECK_NVTX",          "PERFCHECK_OUTPUT",      "PERFCHECK_FORMAT",
                                       "PERFCHECK_PROGRESS"};

static void clear_env(void) {
  for (size_t i = 0; i < sizeof env_vars / sizeof env_vars[0]; i++) unsetenv(env_vars[i]);
}

static void test_options_from_env(void **state) {
  (void)state;
  clear_env();
  perfcheck_options o, d;
  unsigned bad = 99;
  perfcheck_options_init(&d);
  memset(&o, 0x5A, sizeof o);
  assert_int_equal(perfcheck_options_from_env(&o, &bad), PERFCHECK_OK);
  assert_int_equal(bad, 0);
  assert_int_equal(o.size, sizeof o);
  assert_int_equal(o.mode, d.mode);
  assert_null(o.metrics);
  assert_null(o.kernel_regex);
  assert_null(o.output);
  assert_int_equal(o.per_signature, 1);
  assert_int_equal(o.emit_nvtx, 1);

  setenv("PERFCHECK_MODE", "timing", 1);
  setenv("PERFCHECK_METRICS", "sol", 1);
  setenv("PERFCHECK_KERNELS", "regex:^gemm", 1); /* ncu's -k vocabulary: regex:EXPR is EXPR */
  setenv("PERFCHECK_LAUNCH_SKIP", "3", 1);
  setenv("PERFCHECK_LAUNCH_COUNT", "7", 1);
  setenv("PERFCHECK_PER_SIGNATURE", "2", 1);
  setenv("PERFCHECK_OUTPUT", "report-%p.json", 1);
  setenv("PERFCHECK_FORMAT", "json", 1);
  setenv("PERFCHECK_PROGRESS", "1", 1);
  assert_int_equal(perfcheck_options_from_env(&o, &bad), PERFCHECK_OK);
  assert_int_equal(bad, 0);
  assert_int_equal(o.mode, PERFCHECK_MODE_TIMING);
  assert_string_equal(o.metrics, "sol");
  assert_string_equal(o.kernel_regex, "^gemm");
  assert_int_equal(o.launch_skip, 3);
  assert_int_equal(o.launch_count, 7);
  assert_int_equal(o.per_signature, 2);
  assert_string_equal(o.output, "report-%p.json");
  assert_int_equal(o.output_format, PERFCHECK_FORMAT_JSON);
  assert_int_equal(o.progress, 1);

  /* Two bad values: both counted, their fields keep the defaults, the good
   * ones are still read.  bad_values may be NULL. */
  setenv("PERFCHECK_MODE", "fast", 1);
  setenv("PERFCHECK_LAUNCH_COUNT", "-1", 1);
  assert_int_equal(perfcheck_options_from_env(&o, &bad), PERFCHECK_OK);
  assert_int_equal(bad, 2);
  assert_int_equal(o.mode, PERFCHECK_MODE_AUTO);
  assert_int_equal(o.launch_count, 0);
  assert_int_equal(o.launch_skip, 3);
  assert_int_equal(perfcheck_options_from_env(&o, NULL), PERFCHECK_OK);

  bad = 5;
  assert_int_equal(perfcheck_options_from_env(NULL, &bad), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_int_equal(bad, 0);
  clear_env();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_to_string_equals_write), cmocka_unit_test(test_to_string_errors),
      cmocka_unit_test(test_json_text_round_trip),   cmocka_unit_test(test_json_text_errors),
      cmocka_unit_test(test_options_from_env),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
