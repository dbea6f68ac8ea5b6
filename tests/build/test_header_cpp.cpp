// include/perfcheck_test.h as C++17, enabled and with -DPERFCHECK_DISABLE
// (ctest build.test_header_cxx17*), with the GoogleTest macros when
// GoogleTest's headers are installed.
#include <cstddef>

#include <perfcheck_test.h>

#if __has_include(<gtest/gtest.h>)
#include <gtest/gtest.h>

TEST(PerfcheckTestHeader, Compiles) {
  const perfcheck_report *report = nullptr;
  PERFCHECK_EXPECT_GTEST(report, "mysteryA:sectors_per_request_ld<=4.5");
  if (report) PERFCHECK_ASSERT_GTEST(report, "mysteryB:cause!=divergent_warps");
  else PERFCHECK_EXPECT_GTEST(report, "mysteryC:step==0");
}
#endif

int plain_style(const perfcheck_report *report);
int plain_style(const perfcheck_report *report) {
  std::size_t failures = PERFCHECK_CHECK(report, "mysteryA:step==3");
  PERFCHECK_CHECK(report, "mysteryB:step==4");
  return static_cast<int>(failures);
}
