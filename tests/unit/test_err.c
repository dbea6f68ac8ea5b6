/* The one error channel and the one line to stderr (lib/core/base/pc_err.h):
 * pc_err_set / pc_err_vset / pc_err_clear, and pc_say / pc_say_to, through
 * which every line the libraries print reaches the program's stderr (a
 * verbose warning from pc_report_warn included). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/pc_core.h"
#include "base/pc_err.h"

static perfcheck_status vset(pc_err *e, perfcheck_status st, const char *prefix, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  perfcheck_status r = pc_err_vset(e, st, prefix, fmt, ap);
  va_end(ap);
  return r;
}

static void test_set_and_clear(void **state) {
  (void)state;
  pc_err e;
  assert_int_equal(pc_err_set(&e, PERFCHECK_ERROR_IO, "%s: cannot open: %s", "a.csv", "No such file"),
                   PERFCHECK_ERROR_IO);
  assert_int_equal(e.status, PERFCHECK_ERROR_IO);
  assert_string_equal(e.msg, "a.csv: cannot open: No such file");
  /* NULL: the detail is dropped, the status still returned. */
  assert_int_equal(pc_err_set(NULL, PERFCHECK_ERROR_PARSE, "x"), PERFCHECK_ERROR_PARSE);
  assert_int_equal(vset(&e, PERFCHECK_ERROR_PARSE, "f.json:3:7: ", "expected %s", "':'"), PERFCHECK_ERROR_PARSE);
  assert_string_equal(e.msg, "f.json:3:7: expected ':'");
  assert_int_equal(vset(&e, PERFCHECK_ERROR_PARSE, NULL, "column %d", 4), PERFCHECK_ERROR_PARSE);
  assert_string_equal(e.msg, "column 4");
  pc_err_clear(&e);
  assert_int_equal(e.status, PERFCHECK_OK);
  assert_string_equal(e.msg, "");
  pc_err_clear(NULL);
  /* A long message is cut to fit, NUL-terminated. */
  char big[2000];
  memset(big, 'x', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  pc_err_set(&e, PERFCHECK_ERROR_INTERNAL, "%s", big);
  assert_int_equal(strlen(e.msg), sizeof e.msg - 1);
  vset(&e, PERFCHECK_ERROR_INTERNAL, big, "%s", "tail");
  assert_int_equal(strlen(e.msg), sizeof e.msg - 1);
}

/* What f() writes to fd 2, read back from a temporary file. */
static char *capture_stderr(void (*f)(void)) {
  char path[] = "/tmp/pc_test_err_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  unlink(path);
  fflush(stderr);
  int saved = dup(2);
  assert_true(saved >= 0);
  assert_int_equal(dup2(fd, 2), 2);
  f();
  fflush(stderr);
  assert_int_equal(dup2(saved, 2), 2);
  close(saved);
  off_t n = lseek(fd, 0, SEEK_END);
  assert_true(n >= 0);
  char *buf = calloc(1, (size_t)n + 1);
  assert_non_null(buf);
  assert_int_equal(pread(fd, buf, (size_t)n, 0), (ssize_t)n);
  close(fd);
  return buf;
}

static char long_text[5000];

static void say_two(void) {
  pc_say("profiling off: %s", "no driver");
  pc_say("%s", long_text); /* longer than pc_say's stack buffer: allocated, one line all the same */
}

static void warn_three(void) {
  pc_report *r = pc_report_new();
  assert_non_null(r);
  unsetenv("PERFCHECK_VERBOSE");
  pc_report_warn(r, 0, "not verbose: %d", 1);
  setenv("PERFCHECK_VERBOSE", "1", 1);
  pc_report_warn(r, 0, "verbose: %d", 2);
  pc_report_warn(r, 1, "verbose but quiet: %d", 3);
  unsetenv("PERFCHECK_VERBOSE");
  assert_int_equal(r->nwarnings, 3); /* all three in the report */
  pc_report_free(r);
}

static void test_say(void **state) {
  (void)state;
  memset(long_text, 'y', sizeof long_text - 1);
  long_text[sizeof long_text - 1] = '\0';
  char *got = capture_stderr(say_two);
  const char *first = "perfcheck: profiling off: no driver\n";
  assert_true(strncmp(got, first, strlen(first)) == 0);
  const char *second = got + strlen(first);
  assert_true(strncmp(second, "perfcheck: ", 11) == 0);
  assert_int_equal(strspn(second + 11, "y"), sizeof long_text - 1);
  assert_string_equal(second + 11 + sizeof long_text - 1, "\n");
  free(got);
  /* A warning reaches stderr only with PERFCHECK_VERBOSE=1, never when
   * quiet, and through pc_say. */
  got = capture_stderr(warn_three);
  assert_string_equal(got, "perfcheck: warning: verbose: 2\n");
  free(got);
  /* The same line on the caller's stream (the configuration's and a
   * delivery's lines); NULL writes nothing. */
  char *mem = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&mem, &len);
  assert_non_null(f);
  pc_say_to(f, "%s=\"%s\" %s; using %s", "PERFCHECK_MODE", "fast", "is not one of timing, counters", "counters");
  pc_say_to(NULL, "dropped");
  fclose(f);
  assert_string_equal(mem, "perfcheck: PERFCHECK_MODE=\"fast\" is not one of timing, counters; using counters\n");
  free(mem);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_set_and_clear), cmocka_unit_test(test_say)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
