// The public header alone, as strict C++ (ctest build.header_cpp*).
#include <perfcheck.h>

int main() {
  perfcheck_options o;
  perfcheck_options_init(&o);
  perfcheck_session *s = nullptr;
  (void)s;
  return (perfcheck_strerror(PERFCHECK_OK)[0] != '\0' && o.size == sizeof o) ? 0 : 1;
}
