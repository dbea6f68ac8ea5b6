/* The public header alone, as strict C11 (ctest build.header_c*). */
#include <perfcheck.h>

int main(void) {
  perfcheck_options o;
  perfcheck_options_init(&o);
  return perfcheck_strerror(PERFCHECK_OK)[0] != '\0' && o.size == sizeof o ? 0 : 1;
}
