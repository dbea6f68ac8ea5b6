// mystery_region: the mystery program's four launches in one perfcheck region,
// then the text report.  The program runs the same with or without perfcheck:
// when no session can be created it says why and carries on.
#include <cstdio>

#include "kcommon.cuh"
#include "mystery_kernels.cuh"
#include "perfcheck.h"

int main() {
  perfcheck_session* s = nullptr;
  const perfcheck_status st = perfcheck_session_create(nullptr, &s);
  if (st != PERFCHECK_OK)
    std::fprintf(stderr, "perfcheck: %s (status %d): %s; running without it\n", perfcheck_strerror(st),
                 static_cast<int>(st), perfcheck_last_error_message());

  size_t reserve = 0;  // one block per SM for the third launch
  KCHECK(kReserveOneBlockPerSm(mysteryFunc(kMysteryC), kMysteryBlock, &reserve));
  const std::vector<float> in = mysteryInputs();
  float *dIn = nullptr, *dOut = nullptr;
  KCHECK(cudaMalloc(&dIn, kMysteryN * sizeof(float)));
  KCHECK(cudaMalloc(&dOut, kMysteryN * sizeof(float)));
  KCHECK(cudaMemcpy(dIn, in.data(), kMysteryN * sizeof(float), cudaMemcpyHostToDevice));

  if (s) perfcheck_session_begin(s, "mystery");
  KCHECK(launchMystery(kMysteryA, dIn, dOut, 0));
  KCHECK(launchMystery(kMysteryB, dIn, dOut, 0));
  KCHECK(launchMystery(kMysteryC, dIn, dOut, reserve));
  KCHECK(launchMystery(kMysteryC, dIn, dOut, 0));
  if (s) {
    const perfcheck_status end = perfcheck_session_end(s);
    if (end != PERFCHECK_OK) std::fprintf(stderr, "perfcheck_session_end: %s\n", perfcheck_strerror(end));
    const perfcheck_report* report = nullptr;
    if (perfcheck_session_report(s, &report) == PERFCHECK_OK)
      perfcheck_report_write(report, PERFCHECK_FORMAT_TEXT, stdout);
    perfcheck_session_destroy(s);
  }
  KCHECK(cudaDeviceSynchronize());
  KCHECK(cudaFree(dIn));
  KCHECK(cudaFree(dOut));
  return 0;
}
