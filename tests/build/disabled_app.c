/* With PERFCHECK_DISABLE the program builds and runs with no libperfcheck at
 * all: every call is a stub that says so (ctest build.disabled_app). */
#include <perfcheck.h>
#include <perfcheck_test.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  int bad = 0;
  perfcheck_options o;
  perfcheck_options_init(&o);
  bad |= o.size != sizeof o || o.per_signature != 1 || o.emit_nvtx != 1;
  perfcheck_session *s = (perfcheck_session *)&o; /* must be overwritten */
  bad |= perfcheck_session_create(&o, &s) != PERFCHECK_ERROR_UNSUPPORTED || s != NULL;
  bad |= perfcheck_session_begin(s, "r") != PERFCHECK_ERROR_UNSUPPORTED;
  bad |= perfcheck_session_end(s) != PERFCHECK_ERROR_UNSUPPORTED;
  perfcheck_session_destroy(s);
  perfcheck_report *r = NULL;
  bad |= perfcheck_report_from_ncu_csv("x.csv", 1, &r) != PERFCHECK_ERROR_UNSUPPORTED || r != NULL;
  bad |= perfcheck_report_kernel_count(r) != 0;
  char *text = (char *)&o; /* must be overwritten */
  size_t len = 1;
  bad |= perfcheck_report_to_string(r, PERFCHECK_FORMAT_JSON, &text, &len) != PERFCHECK_ERROR_UNSUPPORTED ||
         text != NULL || len != 0;
  perfcheck_free(text);
  bad |= perfcheck_report_from_json_text("{}", 2, NULL, 1, &r) != PERFCHECK_ERROR_UNSUPPORTED || r != NULL;
  unsigned nbad = 1;
  bad |= perfcheck_options_from_env(&o, &nbad) != PERFCHECK_OK || nbad != 0 || o.size != sizeof o;
  bad |= PERFCHECK_CHECK(r, "mysteryA:sectors_per_request_ld<=4.5") != 0;
  bad |= strcmp(perfcheck_cause_name(PERFCHECK_CAUSE_DIVERGENT_WARPS), "divergent_warps") != 0;
  bad |= strcmp(perfcheck_strerror(PERFCHECK_OK), "success") != 0;
  bad |= perfcheck_version_number() != PERFCHECK_VERSION_NUMBER;
  printf("%s: %s\n", bad ? "FAILED" : "ok", perfcheck_last_error_message());
  return bad;
}
