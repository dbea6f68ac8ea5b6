/* Consumer of the installed perfcheck: prints the version, and on a machine
 * without a GPU shows that create fails cleanly.  Exit 0 unless the header
 * and the library disagree. */
#include <perfcheck.h>
#include <stdio.h>

int main(void) {
  if (perfcheck_version_number() != PERFCHECK_VERSION_NUMBER) {
    fprintf(stderr, "header %s, library %s\n", PERFCHECK_VERSION_STRING, perfcheck_version_string());
    return 1;
  }
  perfcheck_session *s = NULL;
  perfcheck_status st = perfcheck_session_create(NULL, &s);
  printf("perfcheck %s: create: %s%s%s\n", perfcheck_version_string(), perfcheck_strerror(st),
         st == PERFCHECK_OK ? "" : ": ", st == PERFCHECK_OK ? "" : perfcheck_last_error_message());
  perfcheck_session_destroy(s);
  return 0;
}
