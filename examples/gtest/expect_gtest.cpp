// Performance expectations in a GoogleTest suite.
//
// PERFCHECK_EXPECT_GTEST(report, spec) adds a non-fatal failure with
// perfcheck's message (kernel, quantity, measured value, bound, advice);
// PERFCHECK_ASSERT_GTEST ends the test there, like ASSERT_*.  The report is a
// recorded Nsight Compute export of seed 000's mystery kernels, so the suite
// runs without a GPU; in a test that runs kernels, take the report from
// perfcheck_session_report after perfcheck_session_end.
#include <cstdio>

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <perfcheck.h>
#include <perfcheck_test.h>

class SeedExport : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (perfcheck_report_from_ncu_csv(PERFCHECK_EXAMPLE_DATA, 1, &report_) != PERFCHECK_OK)
      report_ = nullptr;
  }
  static void TearDownTestSuite() {
    perfcheck_report_destroy(report_);
    report_ = nullptr;
  }
  void SetUp() override { ASSERT_NE(report_, nullptr) << perfcheck_last_error_message(); }

  static perfcheck_report *report_;
};

perfcheck_report *SeedExport::report_ = nullptr;

TEST_F(SeedExport, GoodKernelsAreCoalesced) {
  PERFCHECK_EXPECT_GTEST(report_, "regex:^mystery[BC]$:sectors_per_request_ld<=4.5");
  PERFCHECK_EXPECT_GTEST(report_, "regex:^mystery[BC]$:sectors_per_request_st<=4.5");
}

TEST_F(SeedExport, MysteryCLanesAreBusy) {
  PERFCHECK_ASSERT_GTEST(report_, "mysteryC:threads_per_instruction>=24");
  PERFCHECK_ASSERT_GTEST(report_, "mysteryC:cause!=divergent_warps");
}

// Expectations known to fail: gtest-spi checks that each macro reports
// exactly one failure, and that its message names the cause.
TEST_F(SeedExport, MysteryAFailsWithItsAdvice) {
  EXPECT_NONFATAL_FAILURE(PERFCHECK_EXPECT_GTEST(report_, "mysteryA:sectors_per_request_ld<=4.5"),
                          "step 3, uncoalesced_global_loads");
  std::printf("expected failure: %s\n", perfcheck_expect_message());
  EXPECT_FATAL_FAILURE(PERFCHECK_ASSERT_GTEST(report_, "mysteryB:cause!=divergent_warps"),
                       "mysteryB: cause is divergent_warps, expected != divergent_warps");
}
