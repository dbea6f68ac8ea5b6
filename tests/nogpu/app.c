/* A host program that links libperfcheck and uses it as documented, on a
 * machine that may have no GPU: when the session cannot be created it runs
 * without one, and whatever happens it ends with its own exit code (42).
 * tests/nogpu checks that exit code, also under valgrind and with the
 * toolkit's stub driver. */
#include <stdio.h>
#include <stdlib.h>

#include "perfcheck.h"

int main(void) {
  perfcheck_options o;
  perfcheck_options_init(&o);
  o.quiet = 1;
  perfcheck_session *s = NULL;
  perfcheck_status st = perfcheck_session_create(&o, &s);
  if (st != PERFCHECK_OK)
    fprintf(stderr, "app: perfcheck unavailable (%s): %s; running without it\n", perfcheck_strerror(st),
            perfcheck_last_error_message());
  /* The calls stay harmless without a session. */
  perfcheck_status b = perfcheck_session_begin(s, "work");
  double sum = 0;
  for (int i = 1; i <= 1000; i++) sum += 1.0 / ((double)i * i);
  perfcheck_status e = perfcheck_session_end(s);
  if (!s && (b != PERFCHECK_ERROR_INVALID_ARGUMENT || e != PERFCHECK_ERROR_INVALID_ARGUMENT)) {
    fprintf(stderr, "app: begin/end without a session: %d %d\n", (int)b, (int)e);
    return 1;
  }
  if (s) {
    const perfcheck_report *r = NULL;
    if (perfcheck_session_report(s, &r) != PERFCHECK_OK || perfcheck_report_region_count(r) != 1) {
      fprintf(stderr, "app: expected one region in the report\n");
      return 1;
    }
  }
  perfcheck_session_destroy(s);
  if (sum < 1.64 || sum > 1.65) return 1;
  return 42;
}
