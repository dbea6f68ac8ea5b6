/* include/perfcheck_test.h as strict C11, enabled and with -DPERFCHECK_DISABLE
 * (ctest build.test_header_c11*): the same macro names and arguments both
 * ways, each usable where its framework expects it, without warnings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <perfcheck_test.h>

static void cmocka_style(void **state) {
  const perfcheck_report *report = *state;
  PERFCHECK_ASSERT_CMOCKA(report, "mysteryA:sectors_per_request_ld<=4.5");
  if (report) PERFCHECK_ASSERT_CMOCKA(report, "mysteryB:cause!=divergent_warps");
  else PERFCHECK_ASSERT_CMOCKA(report, "mysteryC:step==0");
}

static int plain_style(const perfcheck_report *report) {
  size_t failures = 0;
  PERFCHECK_CHECK(report, "mysteryA:step==3"); /* as a statement */
  failures += PERFCHECK_CHECK(report, "mysteryB:cause!=divergent_warps");
  if (PERFCHECK_CHECK(report, "regex:^mystery[BC]$:threads_per_instruction>=24")) return 1;
  return (int)failures;
}

int main(void) {
  void (*t)(void **) = cmocka_style;
  (void)t;
  return plain_style(NULL);
}
