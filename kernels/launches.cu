// launches: seed 003's add_one, the same 16M additions as 1 launch and as
// 4096 launches of 4096 threads (grid 16 x 256).
//
// Diagnosis perfcheck should reach: a region around the 4096 small launches
// gets step 1 launch_overhead (each launch does 32 KB of work, far less than
// the fixed cost of a launch, so the GPU idles between kernels).  The one big
// launch is memory bound and needs nothing.
//
// Checked sequence (and, with --profile, the only kernel launches): one launch
// over everything, then the 4096 pieces, so every element is 2 afterwards.
// ncu profiles one of each configuration with --launch-count 2.  The default
// then times both (CUDA events, 3 warm-ups, median of 11) and checks every
// element again against the number of additions made.
#include "kcommon.cuh"
#include "launches_kernels.cuh"

static bool checkAll(const std::vector<float>& x, float want) {
  for (size_t i = 0; i < x.size(); ++i) {
    if (x[i] != want) {
      std::fprintf(stderr, "FAIL: index %zu: got %.9g, want %.9g\n", i, static_cast<double>(x[i]),
                   static_cast<double>(want));
      return false;
    }
  }
  return true;
}

int main(int argc, char** argv) {
  const bool profile = kParseProfileFlag(argc, argv);
  kPrintDevice();

  const size_t bytes = size_t(kLaunchN) * sizeof(float);
  float* dx = nullptr;
  KCHECK(cudaMalloc(&dx, bytes));
  // The kernel adds to what is there, so the buffer starts at 0, not poisoned.
  KCHECK(cudaMemset(dx, 0, bytes));
  std::vector<float> x(kLaunchN);

  KCHECK(launchAddOneAll(dx));
  KCHECK(launchAddOnePieces(dx));
  KCHECK(cudaDeviceSynchronize());
  KCHECK(cudaMemcpy(x.data(), dx, bytes, cudaMemcpyDeviceToHost));
  if (!checkAll(x, 2.0f)) return EXIT_FAILURE;
  std::printf("1 + %d launches checked: every element is 2\n", kLaunchPieces);

  if (profile) {
    std::printf("--profile: those 1 + %d launches were the only launches\n", kLaunchPieces);
  } else {
    const float one = kMedianMs([&] { return launchAddOneAll(dx); });
    const float many = kMedianMs([&] { return launchAddOnePieces(dx); });
    KCHECK(cudaMemcpy(x.data(), dx, bytes, cudaMemcpyDeviceToHost));
    // 2 so far, then 3 warm-ups + 11 timed runs of each way
    const float want = 2.0f + 2.0f * (3 + 11);
    if (!checkAll(x, want)) return EXIT_FAILURE;
    std::printf("\nmedian of 11 runs after 3 warm-ups\n");
    std::printf("%-22s %8s %14s %10s %12s\n", "configuration", "launches", "threads/launch", "ms",
                "us/launch");
    std::printf("%-22s %8d %14d %10.3f %12.2f\n", "one launch", 1, kLaunchN, one, one * 1e3);
    std::printf("%-22s %8d %14d %10.3f %12.2f\n", "4096 small launches", kLaunchPieces,
                kLaunchPiece, many, many * 1e3 / kLaunchPieces);
    std::printf("x[N-1] = %.0f (every element added %.0f times)\n", static_cast<double>(x[kLaunchN - 1]),
                static_cast<double>(want));
  }
  KCHECK(cudaFree(dx));
  return EXIT_SUCCESS;
}
