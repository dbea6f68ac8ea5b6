// edge: kernels that put zeros where the checklist divides.
//
// Diagnosis a correct tool should reach (and no division by zero anywhere):
//   no_global_traffic (store never taken)  32768 FMAs per thread from the
//       thread index, one wave of 8 blocks of 256 per SM (a few hundred
//       microseconds on an H200).  Global requests, sectors and DRAM bytes
//       are all zero: bytes per sector, sectors per request and the atomic /
//       local shares have no measurement (null, step 3 not_assessed with the
//       reason, or not reached), never 0/0.  Compute bound on the FMA pipe
//       with 32 threads per instruction: at_roof.
//   all_predicated_off  a full grid (8 blocks of 256 per SM) launched with
//       n = 0: every thread exits at its first branch.  A few microseconds,
//       no global traffic, almost no instructions: nothing to fix in the
//       kernel; whatever step 1 says about so short a kernel, steps 2 to 4
//       must not divide by zero.
//   one_element  one thread reads and writes one float, launched alone:
//       tiny (about 2 us, all fixed cost).  grid_too_small (far under one
//       wave) is true but it is not the slow part of anything.
//   no_global_traffic (storeIndex = 12345)  the same kernel with one thread
//       storing, to check its arithmetic; one 4-byte store in all.
//
// Checks: after the first three launches the output buffers must still hold
// their poison bytes where nothing was to be written (a store that should not
// happen fails), one_element's value and the fourth launch's value are
// compared bit for bit with the CPU.  Those four launches are the first four
// kernel launches: `--profile` stops after them (ncu --launch-count 4); the
// default also times each (median of 11).
#include "edge_kernels.cuh"
#include "kcommon.cuh"

static bool checkPoisoned(const char* what, const float* dev, size_t n) {
  std::vector<unsigned char> b(n * sizeof(float));
  KCHECK(cudaMemcpy(b.data(), dev, b.size(), cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < b.size(); ++i)
    if (b[i] != 0xFF) {
      std::fprintf(stderr, "FAIL %s: byte %zu was written (0x%02x), nothing should have been\n", what, i, b[i]);
      return false;
    }
  return true;
}

int main(int argc, char** argv) {
  const bool profile = kParseProfileFlag(argc, argv);
  kPrintDevice();
  int dev = 0, sms = 0;
  KCHECK(cudaGetDevice(&dev));
  KCHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const unsigned blocks = static_cast<unsigned>(sms) * 8u;  // one wave of 2048 threads per SM
  const size_t n = static_cast<size_t>(blocks) * kEdgeBlock;
  const unsigned probe = 12345u;  // the one storing thread of the fourth launch
  if (probe >= n) {
    std::fprintf(stderr, "FAIL: the grid of %zu threads has no thread %u\n", n, probe);
    return EXIT_FAILURE;
  }

  float *dIn = nullptr, *dOut = nullptr, *dOne = nullptr;
  KCHECK(cudaMalloc(&dIn, n * sizeof(float)));
  KCHECK(cudaMalloc(&dOut, n * sizeof(float)));
  KCHECK(cudaMalloc(&dOne, sizeof(float)));
  std::vector<float> in(n);
  for (size_t i = 0; i < n; ++i) in[i] = static_cast<float>(i % 4096u);
  KCHECK(cudaMemcpy(dIn, in.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  auto noTraffic = [&](unsigned storeIndex) {
    no_global_traffic<<<blocks, kEdgeBlock>>>(dOut, storeIndex, kEdgeIters);
    return cudaGetLastError();
  };
  auto predOff = [&] {
    all_predicated_off<<<blocks, kEdgeBlock>>>(dIn, dOut, 0);
    return cudaGetLastError();
  };
  auto one = [&] {
    one_element<<<1, 1>>>(dIn + 7, dOne);
    return cudaGetLastError();
  };

  // The checked launches: the only ones under --profile.
  KCHECK(kPoison(dOut, n * sizeof(float)));
  KCHECK(kPoison(dOne, sizeof(float)));
  KCHECK(noTraffic(0xFFFFFFFFu));
  KCHECK(cudaDeviceSynchronize());
  if (!checkPoisoned("no_global_traffic (no store)", dOut, n)) return EXIT_FAILURE;
  KCHECK(predOff());
  KCHECK(cudaDeviceSynchronize());
  if (!checkPoisoned("all_predicated_off", dOut, n)) return EXIT_FAILURE;
  KCHECK(one());
  KCHECK(cudaDeviceSynchronize());
  float v = 0.0f;
  KCHECK(cudaMemcpy(&v, dOne, sizeof v, cudaMemcpyDeviceToHost));
  if (!kCheckEach("one_element", &v, 1, [&](size_t) { return 2.0f * in[7] + 1.0f; })) return EXIT_FAILURE;
  KCHECK(noTraffic(probe));
  KCHECK(cudaDeviceSynchronize());
  KCHECK(cudaMemcpy(&v, dOut, sizeof v, cudaMemcpyDeviceToHost));
  if (!kCheckEach("no_global_traffic (thread 12345 stores)", &v, 1, [&](size_t) { return edgeChains(probe, kEdgeIters); }))
    return EXIT_FAILURE;
  if (!checkPoisoned("no_global_traffic (only element 0 written)", dOut + 1, n - 1)) return EXIT_FAILURE;
  std::printf("all 4 launches checked: no stray stores, both values match the CPU reference\n");
  std::printf("grid: %u blocks of %u threads (no_global_traffic, all_predicated_off); one_element: 1 x 1\n", blocks,
              kEdgeBlock);

  if (profile) {
    std::printf("\n--profile: the 4 checked launches above were the only launches\n");
  } else {
    std::printf("\nmedian of 11 runs after 3 warm-ups\n");
    std::printf("%-20s %10s\n", "kernel", "time ms");
    std::printf("%-20s %10.4f\n", "no_global_traffic", kMedianMs([&] { return noTraffic(0xFFFFFFFFu); }));
    std::printf("%-20s %10.4f\n", "all_predicated_off", kMedianMs(predOff));
    std::printf("%-20s %10.4f\n", "one_element", kMedianMs(one));
  }
  KCHECK(cudaFree(dIn));
  KCHECK(cudaFree(dOut));
  KCHECK(cudaFree(dOne));
  return EXIT_SUCCESS;
}
