// test_expect: performance expectations on in-process counters.
//
// The mystery program's four launches in a counters session, then the kind
// of test suite expectations are for: expectations that the good kernels pass
// (mysteryB and both mysteryC launches stay coalesced; mysteryC's lanes all
// work; the 0 B mysteryC stays at its roof) and one on mysteryA that must FAIL
// with the step-3 message, through perfcheck_session_expect/check and the
// plain-C macro of perfcheck_test.h.
#include <perfcheck_test.h>

#include <cstring>
#include <vector>

#include "gpu_test.h"
#include "kcommon.cuh"
#include "mystery_kernels.cuh"

int main() {
  gt_require_gpu();
  perfcheck_options o;
  perfcheck_options_init(&o);
  o.mode = PERFCHECK_MODE_COUNTERS;
  perfcheck_session* s = nullptr;
  const perfcheck_status cst = perfcheck_session_create(&o, &s);
  if (cst == PERFCHECK_ERROR_NO_DRIVER || cst == PERFCHECK_ERROR_NO_DEVICE || cst == PERFCHECK_ERROR_CUPTI_IN_USE)
    gt_skip("perfcheck_session_create: %s: %s", perfcheck_strerror(cst), perfcheck_last_error_message());
  GT_REQUIRE(cst == PERFCHECK_OK && s, "perfcheck_session_create: %s", perfcheck_last_error_message());

  size_t reserve = 0;
  GT_CUDA(kReserveOneBlockPerSm(mysteryFunc(kMysteryC), kMysteryBlock, &reserve));
  const MysteryKernel ks[4] = {kMysteryA, kMysteryB, kMysteryC, kMysteryC};
  const size_t smem[4] = {0, 0, reserve, 0};
  const size_t bytes = kMysteryN * sizeof(float);
  const std::vector<float> in = mysteryInputs();
  float *dIn = nullptr, *dOut = nullptr;
  GT_CUDA(cudaMalloc(&dIn, bytes));
  GT_CUDA(cudaMalloc(&dOut, bytes));
  GT_CUDA(cudaMemcpy(dIn, in.data(), bytes, cudaMemcpyHostToDevice));
  for (int k = 0; k < 4; ++k) GT_CUDA(launchMystery(ks[k], dIn, dOut, smem[k]));  // warm-up, outside regions
  GT_CUDA(cudaDeviceSynchronize());

  GT_OK(perfcheck_session_begin(s, "mystery"));
  for (int k = 0; k < 4; ++k) GT_CUDA(launchMystery(ks[k], dIn, dOut, smem[k]));
  GT_OK(perfcheck_session_end(s));

  // The suite: these hold.
  const char* good[] = {
      "regex:^mystery[BC]$:sectors_per_request_ld<=4.5",
      "regex:^mystery[BC]$:sectors_per_request_st<=4.5",
      "mysteryC:threads_per_instruction>=24",
      "mysteryB:cause==divergent_warps",
  };
  for (const char* spec : good) GT_OK(perfcheck_session_expect(s, spec));
  size_t failures = 99;
  const perfcheck_status chk = perfcheck_session_check(s, &failures);
  if (chk != PERFCHECK_OK || failures != 0) {
    std::fprintf(stderr, "FAIL: the good kernels' expectations: %s, %zu failure(s)\n%s", perfcheck_strerror(chk),
                 failures, perfcheck_expectations_failures_text(perfcheck_session_expectations(s)));
    ++gt_failures;
  } else {
    std::printf("ok: %zu expectations on the good kernels hold\n", sizeof good / sizeof good[0]);
  }

  // And this one must fail, naming mysteryA, the value and the step-3 advice.
  const perfcheck_report* r = nullptr;
  GT_OK(perfcheck_session_report(s, &r));
  std::printf("expected to fail (mysteryA is uncoalesced):\n");
  std::fflush(stdout);
  const size_t bad = PERFCHECK_CHECK(r, "mysteryA:sectors_per_request_ld<=4.5");
  const char* msg = perfcheck_expect_message();
  if (bad != 1 || !std::strstr(msg, "mysteryA") || !std::strstr(msg, "uncoalesced_global_loads") ||
      !std::strstr(msg, "32")) {
    std::fprintf(stderr, "FAIL: mysteryA should fail with its value and the step-3 advice; got %zu: %s\n", bad, msg);
    ++gt_failures;
  } else {
    std::printf("ok: mysteryA fails as it should: %s\n", msg);
  }

  perfcheck_session_destroy(s);
  GT_CUDA(cudaFree(dIn));
  GT_CUDA(cudaFree(dOut));
  return gt_finish("test_expect");
}
