/* The real libperfcheck.so on a machine without a usable driver: every
 * session call answers with a clear status and message, nothing crashes,
 * nothing is left behind (run also under valgrind by ctest).
 *
 * Environment (set by tests/nogpu/CMakeLists.txt):
 *   PC_EXPECT_STATUS  the status create must return ("3" = NO_DRIVER)
 *   PC_EXPECT_MSG     a word its message must contain ("libcuda", "stub")
 *   PC_NEED_NO_DRIVER 1: skip the driver tests when a real libcuda.so.1
 *                     loads here (the test would then see a GPU). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfcheck.h"

static void test_strerror_every_status(void **state) {
  (void)state;
  for (int st = 0; st < PERFCHECK_STATUS_LIMIT_; st++) {
    const char *a = perfcheck_strerror((perfcheck_status)st);
    assert_non_null(a);
    assert_true(strlen(a) > 0);
    if (strcmp(a, "unknown perfcheck status") == 0) fail_msg("status %d has no text", st);
    /* Static text: the same pointer every time, nothing allocated. */
    assert_ptr_equal(a, perfcheck_strerror((perfcheck_status)st));
  }
  assert_string_equal(perfcheck_strerror(PERFCHECK_STATUS_LIMIT_), "unknown perfcheck status");
  assert_string_equal(perfcheck_strerror((perfcheck_status)-1), "unknown perfcheck status");
  assert_string_equal(perfcheck_strerror(PERFCHECK_OK), "success");
}

static void test_null_arguments(void **state) {
  (void)state;
  perfcheck_session_destroy(NULL); /* a no-op */
  assert_int_equal(perfcheck_session_begin(NULL, "r"), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_true(strlen(perfcheck_last_error_message()) > 0);
  assert_int_equal(perfcheck_session_begin(NULL, NULL), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_int_equal(perfcheck_session_end(NULL), PERFCHECK_ERROR_INVALID_ARGUMENT);
  const perfcheck_report *r = NULL;
  assert_int_equal(perfcheck_session_report(NULL, &r), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_int_equal(perfcheck_session_report(NULL, NULL), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_string_equal(perfcheck_session_message(NULL), "");
  assert_int_equal(perfcheck_session_create(NULL, NULL), PERFCHECK_ERROR_INVALID_ARGUMENT);
  double a = 0, b = 0;
  assert_int_equal(perfcheck_measure_ceilings(-1, NULL, &a, &b), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_true(isnan(a) && isnan(b));
}

static void test_options_defaults(void **state) {
  (void)state;
  perfcheck_options o;
  memset(&o, 0x5a, sizeof o);
  perfcheck_options_init(&o);
  assert_int_equal(o.size, sizeof o);
  assert_int_equal(o.mode, PERFCHECK_MODE_AUTO);
  assert_null(o.metrics);
  assert_null(o.kernel_regex);
  assert_null(o.output);
  assert_int_equal(o.per_signature, 1);
  assert_int_equal(o.emit_nvtx, 1);
  assert_int_equal(o.quiet, 0);
  assert_int_equal(o.launch_skip, 0);
  assert_int_equal(o.launch_count, 0);
  assert_int_equal(o.output_format, PERFCHECK_FORMAT_TEXT);
  perfcheck_options_init(NULL); /* ignored */
}

/* Bad options are refused before the driver is touched. */
static void test_bad_options(void **state) {
  (void)state;
  perfcheck_session *s = (perfcheck_session *)&s;
  perfcheck_options o;
  if (getenv("PC_NOCUDA_BUILD")) { /* a build without CUDA refuses every session the same way */
    perfcheck_options_init(&o);
    o.size = 3;
    assert_int_equal(perfcheck_session_create(&o, &s), PERFCHECK_ERROR_UNSUPPORTED);
    assert_null(s);
    assert_non_null(strstr(perfcheck_last_error_message(), "without the CUDA toolkit"));
    return;
  }

  perfcheck_options_init(&o);
  o.size = 3;
  assert_int_equal(perfcheck_session_create(&o, &s), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_null(s);
  assert_non_null(strstr(perfcheck_last_error_message(), "size"));

  perfcheck_options_init(&o);
  o.kernel_regex = "mystery(";
  assert_int_equal(perfcheck_session_create(&o, &s), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_null(s);
  assert_non_null(strstr(perfcheck_last_error_message(), "kernel_regex"));

  perfcheck_options_init(&o);
  o.metrics = "default,,sol";
  assert_int_equal(perfcheck_session_create(&o, &s), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_null(s);
  assert_non_null(strstr(perfcheck_last_error_message(), "metrics"));

  perfcheck_options_init(&o);
  o.mode = (perfcheck_mode)7;
  assert_int_equal(perfcheck_session_create(&o, &s), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_null(s);
}

static int real_driver_here(void) {
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) return 0;
  /* The toolkit's stub answers every call with CUDA_ERROR_STUB_LIBRARY (34). */
  int (*init)(unsigned) = (int (*)(unsigned))dlsym(h, "cuInit");
  int real = init && init(0) != 34;
  dlclose(h);
  return real;
}

static void test_create_without_driver(void **state) {
  (void)state;
  const char *need = getenv("PC_NEED_NO_DRIVER");
  if (need && *need == '1' && real_driver_here()) {
    print_message("a real NVIDIA driver loads here: the no-driver case cannot be shown\n");
    skip();
  }
  const char *want_s = getenv("PC_EXPECT_STATUS");
  const char *want_m = getenv("PC_EXPECT_MSG");
  assert_non_null(want_s);
  assert_non_null(want_m);
  const perfcheck_status want = (perfcheck_status)atoi(want_s);
  for (int round = 0; round < 3; round++) { /* a failure leaves nothing behind */
    perfcheck_options o;
    perfcheck_options_init(&o);
    o.mode = round == 1 ? PERFCHECK_MODE_TIMING : PERFCHECK_MODE_AUTO;
    o.kernel_regex = "^mystery[AB]$";
    o.quiet = 1;
    perfcheck_session *s = (perfcheck_session *)&o;
    perfcheck_status st = perfcheck_session_create(round == 2 ? NULL : &o, &s);
    if (st != want)
      fail_msg("create: %d (%s), expected %d; message: %s", (int)st, perfcheck_strerror(st), (int)want,
               perfcheck_last_error_message());
    assert_null(s);
    const char *msg = perfcheck_last_error_message();
    if (!strstr(msg, want_m)) fail_msg("message \"%s\" does not mention \"%s\"", msg, want_m);
  }
  double a = 0, b = 0;
  perfcheck_status st = perfcheck_measure_ceilings(0, NULL, &a, &b);
  assert_int_equal(st, want);
  assert_true(isnan(a) && isnan(b));
  assert_non_null(strstr(perfcheck_last_error_message(), want_m));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_strerror_every_status), cmocka_unit_test(test_null_arguments),
      cmocka_unit_test(test_options_defaults),      cmocka_unit_test(test_bad_options),
      cmocka_unit_test(test_create_without_driver),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
