/*
 * perfcheck_test.h: performance expectations as test-framework failures.
 *
 * Macros over perfcheck_expect() (perfcheck.h, banner "Expectations") that
 * turn an expectation that does not hold into a failure of the test
 * framework you already use:
 *
 *   plain C     PERFCHECK_CHECK(report, spec)
 *                 an expression: the number of failures (size_t, 0 when the
 *                 expectation holds); each failure is printed to stderr as
 *                 "perfcheck: expectation failed: MESSAGE".  A test does
 *                 `if (PERFCHECK_CHECK(r, "mysteryA:sectors_per_request_ld<=4.5")) return 1;`
 *                 or sums them and returns the total.
 *   cmocka      PERFCHECK_ASSERT_CMOCKA(report, spec)
 *                 a statement: fail_msg() with the message (the test stops
 *                 there, like cmocka's assert_*).  Include <cmocka.h> first.
 *   GoogleTest  PERFCHECK_EXPECT_GTEST(report, spec)
 *                 a statement: ADD_FAILURE() << message (the test goes on).
 *               PERFCHECK_ASSERT_GTEST(report, spec)
 *                 a statement: GTEST_FAIL() << message (returns from the
 *                 current void function, like ASSERT_*).
 *                 Include <gtest/gtest.h> first.
 *
 * `report` is a const perfcheck_report * (from perfcheck_session_report,
 * perfcheck_report_from_ncu_csv or perfcheck_report_from_json); `spec` is
 * an expectation string ("mysteryB:cause!=divergent_warps").  A malformed
 * spec, a kernel missing from the report and a quantity that was not
 * measured are failures, with their own messages.  Each macro evaluates
 * each argument once.
 *
 * PERFCHECK_DISABLE: when defined (the compile-out switch of the whole
 * library), every macro keeps its name and its two arguments but evaluates
 * neither (they sit in sizeof, so they must still compile) and succeeds:
 * PERFCHECK_CHECK gives 0, the others do nothing.  Nothing of libperfcheck
 * is called, so a disabled test needs no library at link time.
 *
 * Thread-safety: the same as perfcheck_expect (any thread; the message is
 * thread-local).
 */
#ifndef PERFCHECK_TEST_H
#define PERFCHECK_TEST_H

#include <stddef.h>
#include <stdio.h>

#include "perfcheck.h"

#ifndef PERFCHECK_DISABLE

#define PERFCHECK_CHECK(report, spec) perfcheck_expect((report), (spec), stderr)

#define PERFCHECK_ASSERT_CMOCKA(report, spec)                           \
  do {                                                                  \
    if (perfcheck_expect((report), (spec), NULL) != 0)                  \
      fail_msg("perfcheck: expectation failed: %s", perfcheck_expect_message()); \
  } while (0)

#define PERFCHECK_EXPECT_GTEST(report, spec)                            \
  do {                                                                  \
    if (perfcheck_expect((report), (spec), NULL) != 0)                  \
      ADD_FAILURE() << "perfcheck: expectation failed: " << perfcheck_expect_message(); \
  } while (0)

#define PERFCHECK_ASSERT_GTEST(report, spec)                            \
  do {                                                                  \
    if (perfcheck_expect((report), (spec), NULL) != 0)                  \
      GTEST_FAIL() << "perfcheck: expectation failed: " << perfcheck_expect_message(); \
  } while (0)

#else /* PERFCHECK_DISABLE: same names, same arguments, nothing evaluated */

/* A function call, not a bare 0, so that `PERFCHECK_CHECK(r, s);` as a
 * statement draws no "statement with no effect" warning. */
static inline size_t perfcheck_test_disabled_(size_t report_size, size_t spec_size) {
  (void)report_size;
  (void)spec_size;
  return 0;
}

#define PERFCHECK_CHECK(report, spec) perfcheck_test_disabled_(sizeof(report), sizeof(spec))
#define PERFCHECK_ASSERT_CMOCKA(report, spec) \
  do {                                        \
    (void)sizeof(report);                     \
    (void)sizeof(spec);                       \
  } while (0)
#define PERFCHECK_EXPECT_GTEST(report, spec) PERFCHECK_ASSERT_CMOCKA(report, spec)
#define PERFCHECK_ASSERT_GTEST(report, spec) PERFCHECK_ASSERT_CMOCKA(report, spec)

#endif /* PERFCHECK_DISABLE */

#endif /* PERFCHECK_TEST_H */
