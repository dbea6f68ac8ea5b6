/* The host program's locale does not reach perfcheck's text: a
 * program that called setlocale(LC_ALL, "") in a German locale got advice
 * saying "16,2 of 32 lanes".  The locale is built with localedef when the
 * machine has none (a container usually has only C and POSIX); without
 * localedef the test is skipped, saying so. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/pc_core.h"
#include "check/pc_check.h"
#include "write/pc_write.h"

#define DATA(f) PERFCHECK_TEST_DATA "/" f

/* The folder localedef writes into, when the test builds a locale; removed
 * by main when the tests are done (nothing is left in TMPDIR). */
static char locale_dir[512];

static int german(void) {
  static const char *const names[] = {"de_DE.UTF-8", "de_DE.utf8", "de_DE"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (setlocale(LC_ALL, names[i])) return 1;
  /* Build one: localedef writes it under a folder of ours, LOCPATH finds it. */
  const char *t = getenv("TMPDIR");
  char *dir = locale_dir, cmd[1200];
  snprintf(locale_dir, sizeof locale_dir, "%s/pc_locale_%ld", t && *t ? t : "/tmp", (long)getpid());
  snprintf(cmd, sizeof cmd, "mkdir -p '%s' && localedef -i de_DE -f UTF-8 '%s/de_DE.UTF-8' >/dev/null 2>&1", dir, dir);
  if (system(cmd) != 0) return 0;
  setenv("LOCPATH", dir, 1);
  return setlocale(LC_ALL, "de_DE.UTF-8") != NULL;
}

static void test_advice_in_c_locale(void **state) {
  (void)state;
  if (!german()) {
    print_message("skipped: no German locale and no localedef to build one\n");
    skip();
  }
  char probe[32];
  snprintf(probe, sizeof probe, "%.1f", 16.2);
  assert_string_equal(probe, "16,2"); /* the host program's own printf is German */

  pc_report *r = NULL;
  assert_int_equal(perfcheck_report_from_ncu_csv(DATA("t4_seed000.csv"), 1, &r), PERFCHECK_OK);
  const pc_kernel *b = NULL;
  for (size_t i = 0; i < r->nkernels; i++)
    if (strcmp(r->kernels[i].name, "mysteryB") == 0) b = &r->kernels[i];
  assert_non_null(b);
  print_message("advice: %s\n", b->diag.verdict.advice);
  assert_non_null(strstr(b->diag.verdict.advice, "only 16.2 of the 32 lanes"));
  /* The same after the checklist runs again in process (a merge, a region end). */
  pc_checklist_report(r); /* it sorts the kernels by time: find mysteryB again */
  b = NULL;
  for (size_t i = 0; i < r->nkernels; i++)
    if (strcmp(r->kernels[i].name, "mysteryB") == 0) b = &r->kernels[i];
  assert_non_null(b);
  assert_non_null(strstr(b->diag.verdict.advice, "only 16.2 of the 32 lanes"));
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  assert_int_equal(pc_write_text(r, f, NULL), PERFCHECK_OK);
  fclose(f);
  assert_non_null(strstr(text, "= 16.21 threads/inst (threshold 24 threads/inst)"));
  assert_null(strstr(text, "16,2"));
  free(text);
  pc_report_free(r);
  setlocale(LC_ALL, "C");
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_advice_in_c_locale)};
  int failed = cmocka_run_group_tests(tests, NULL, NULL);
  if (locale_dir[0]) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", locale_dir);
    if (system(cmd) != 0) fprintf(stderr, "test_locale: could not remove %s\n", locale_dir);
  }
  return failed;
}
