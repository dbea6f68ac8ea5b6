// lanes: one FMA-chain body (32768 fused multiply-adds per thread) launched
// with blocks of 1, 40, 48 and 256 threads.
//
// Diagnosis a correct tool should reach:
//   lanes_block1    step 4: threads per instruction capped by the launch, not
//       divergence.  A 1-thread block runs one warp with one lane, so
//       smsp__average_thread_inst_executed_per_inst_executed.ratio reads 1 of
//       the 1 the launch allows.  The FMA pipe still issues every cycle it
//       can (sm__pipe_fma_cycles_active / sm__inst_executed_pipe_fma high,
//       compute bound by instruction issue) while doing 1/32 of the work: the
//       verdict is the launch configuration (blocks of at least 32 threads).
//       Theoretical occupancy is 50% (32 one-warp blocks per SM): a finding.
//   lanes_block40   the same cap: a full warp and an 8-lane warp per block
//       average (32 + 8) / 2 = 20 threads per instruction, of the 20 the
//       launch allows; a fixed 24-of-32 divergence threshold would call it
//       divergent_warps, wrongly (no branch depends on the lane).
//   lanes_block48   (32 + 16) / 2 = 24 threads per instruction, of 24 allowed
//       (the partial last warp of the brief; 24 sits exactly on the old
//       threshold, so it tells less than lanes_block40).
//   lanes_block256  the warp-uniform control: 32 threads per instruction,
//       compute bound (FMA pipe), full occupancy: at_roof.
//
// Grids are sized from the device: block1 two waves of 32 blocks per SM,
// block40 and block48 one wave of 32 blocks per SM (all 64 warp slots),
// block256 one wave of 8 blocks per SM; each runs a few hundred microseconds
// on an H200.  Every launch is checked bit for bit against a CPU reference at
// every element, output poisoned (NaN) first.  The four checked launches are
// the first four kernel launches: `--profile` stops after them (ncu
// --launch-count 4); the default also times each (median of 11).
#include "kcommon.cuh"
#include "lanes_kernels.cuh"

namespace {

struct Row {
  const char* name;
  void (*kernel)(const float*, float*, size_t, int);
  unsigned block;
  unsigned blocks;
  size_t n() const { return static_cast<size_t>(block) * blocks; }
};

}  // namespace

int main(int argc, char** argv) {
  const bool profile = kParseProfileFlag(argc, argv);
  kPrintDevice();
  int dev = 0;
  KCHECK(cudaGetDevice(&dev));
  cudaDeviceProp p;
  KCHECK(cudaGetDeviceProperties(&p, dev));
  const unsigned sms = static_cast<unsigned>(p.multiProcessorCount);
  const unsigned blocksPerSm = static_cast<unsigned>(p.maxBlocksPerMultiProcessor);
  const unsigned block256PerSm = static_cast<unsigned>(p.maxThreadsPerMultiProcessor) / 256u;

  const Row rows[4] = {{"lanes_block1", lanes_block1, 1, 2 * sms * blocksPerSm},
                       {"lanes_block40", lanes_block40, 40, sms * blocksPerSm},
                       {"lanes_block48", lanes_block48, 48, sms * blocksPerSm},
                       {"lanes_block256", lanes_block256, 256, sms * block256PerSm}};
  size_t nMax = 0;
  for (const Row& r : rows) nMax = std::max(nMax, r.n());

  std::vector<float> in(nMax);
  for (size_t i = 0; i < nMax; ++i) in[i] = lanesInput(i);
  const std::vector<float> table = lanesReferenceTable();
  float *dIn = nullptr, *dOut = nullptr;
  KCHECK(cudaMalloc(&dIn, nMax * sizeof(float)));
  KCHECK(cudaMalloc(&dOut, nMax * sizeof(float)));
  KCHECK(cudaMemcpy(dIn, in.data(), nMax * sizeof(float), cudaMemcpyHostToDevice));
  std::vector<float> got(nMax);

  auto launch = [&](const Row& r) {
    r.kernel<<<r.blocks, r.block>>>(dIn, dOut, r.n(), kLanesIters);
    return cudaGetLastError();
  };

  // The checked launches: the only ones under --profile.
  for (const Row& r : rows) {
    KCHECK(kPoison(dOut, nMax * sizeof(float)));
    KCHECK(launch(r));
    KCHECK(cudaDeviceSynchronize());
    KCHECK(cudaMemcpy(got.data(), dOut, r.n() * sizeof(float), cudaMemcpyDeviceToHost));
    if (!kCheckEach(r.name, got.data(), r.n(), [&](size_t i) { return table[i % kLanesDistinct]; }))
      return EXIT_FAILURE;
  }
  std::printf("all 4 launches match the CPU reference at every element\n\n");

  std::printf("%-16s %6s %8s %9s %11s %18s\n", "kernel", "block", "blocks", "threads", "warps/block",
              "lanes/instr (max)");
  for (const Row& r : rows) {
    const unsigned warps = (r.block + 31) / 32;
    std::printf("%-16s %6u %8u %9zu %11u %18.1f\n", r.name, r.block, r.blocks, r.n(), warps,
                static_cast<double>(r.block) / warps);
  }

  if (profile) {
    std::printf("\n--profile: the 4 checked launches above were the only launches\n");
  } else {
    std::printf("\nmedian of 11 runs after 3 warm-ups\n");
    std::printf("%-16s %10s %12s\n", "kernel", "time ms", "GFLOP/s");
    for (const Row& r : rows) {
      const float ms = kMedianMs([&] { return launch(r); });
      std::printf("%-16s %10.3f %12.1f\n", r.name, ms, 2.0 * kLanesIters * r.n() / (ms * 1e6));
    }
  }
  KCHECK(cudaFree(dIn));
  KCHECK(cudaFree(dOut));
  return EXIT_SUCCESS;
}
