// test_attributes: for the kernels of every kernels/ program, launched in one
// region, the report's registers per thread, static shared memory and blocks
// per SM equal what the runtime says for that (kernel, block, dynamic shared
// memory), and theoretical occupancy equals blocks * warps per block / the
// device's warp slots * 100 (64 slots on an H200).
#include "atomics_kernels.cuh"
#include "gpu_test.h"
#include "kcommon.cuh"
#include "launches_kernels.cuh"
#include "mystery_kernels.cuh"
#include "occupancy_kernels.cuh"
#include "roundtrip_kernels.cuh"

struct Expected {
  const char* name;  // as the report spells it: demangled, no parameters
  const void* func;
  unsigned grid;
  int block;
  size_t dynSmem;
  int matched;
};

template <class T>
static T* deviceZeros(size_t n) {
  T* p = nullptr;
  GT_CUDA(cudaMalloc(&p, n * sizeof(T)));
  GT_CUDA(cudaMemset(p, 0, n * sizeof(T)));
  return p;
}

int main() {
  gt_require_gpu();
  perfcheck_session* s = gt_session(PERFCHECK_MODE_TIMING);

  int dev = 0, maxThreads = 0, warp = 0;
  GT_CUDA(cudaGetDevice(&dev));
  GT_CUDA(cudaDeviceGetAttribute(&maxThreads, cudaDevAttrMaxThreadsPerMultiProcessor, dev));
  GT_CUDA(cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, dev));
  const int maxWarps = maxThreads / warp;

  size_t smemC = 0, smem1 = 0, smem4 = 0;
  GT_CUDA(kReserveOneBlockPerSm(mysteryFunc(kMysteryC), kMysteryBlock, &smemC));
  GT_CUDA(kReserveOneBlockPerSm(scaleAddFunc<1>(), kScaleAddBlock, &smem1));
  GT_CUDA(kReserveOneBlockPerSm(scaleAddFunc<4>(), kScaleAddBlock, &smem4));

  float* mIn = deviceZeros<float>(kMysteryN);
  float* mOut = deviceZeros<float>(kMysteryN);
  float* sx = deviceZeros<float>(kScaleAddN);
  float* sy = deviceZeros<float>(kScaleAddN);
  float* sout = deviceZeros<float>(kScaleAddN);
  float* lx = deviceZeros<float>(kLaunchN);
  float* head = deviceZeros<float>(kRoundtripHead);
  unsigned* aIn = deviceZeros<unsigned>(kAtomicsN);
  unsigned* bins = deviceZeros<unsigned>(kAtomicsBins);
  unsigned* ticket = deviceZeros<unsigned>(kAtomicsN);
  unsigned long long* sum = deviceZeros<unsigned long long>(1);

  const void* addOne = reinterpret_cast<const void*>(add_one);
  Expected want[] = {
      {"mysteryA", mysteryFunc(kMysteryA), kMysteryGrid, kMysteryBlock, 0, 0},
      {"mysteryB", mysteryFunc(kMysteryB), kMysteryGrid, kMysteryBlock, 0, 0},
      {"mysteryC", mysteryFunc(kMysteryC), kMysteryGrid, kMysteryBlock, smemC, 0},
      {"mysteryC", mysteryFunc(kMysteryC), kMysteryGrid, kMysteryBlock, 0, 0},
      {"scaleAdd<1>", scaleAddFunc<1>(), scaleAddGrid<1>(), kScaleAddBlock, 0, 0},
      {"scaleAdd<1>", scaleAddFunc<1>(), scaleAddGrid<1>(), kScaleAddBlock, smem1, 0},
      {"scaleAdd<4>", scaleAddFunc<4>(), scaleAddGrid<4>(), kScaleAddBlock, smem4, 0},
      {"add_one", addOne, kLaunchN / kLaunchBlock, kLaunchBlock, 0, 0},
      {"add_one", addOne, kLaunchPiece / kLaunchBlock, kLaunchBlock, 0, 0},
      {"scale_head", reinterpret_cast<const void*>(scale_head), kRoundtripHead / kRoundtripBlock,
       kRoundtripBlock, 0, 0},
      {"histogram16", reinterpret_cast<const void*>(histogram16), kAtomicsGrid, kAtomicsBlock, 0, 0},
      {"sumAll", reinterpret_cast<const void*>(sumAll), kAtomicsGrid, kAtomicsBlock, 0, 0},
  };
  const size_t nWant = sizeof want / sizeof want[0];

  GT_OK(perfcheck_session_begin(s, "attributes"));
  GT_CUDA(launchMystery(kMysteryA, mIn, mOut, 0));
  GT_CUDA(launchMystery(kMysteryB, mIn, mOut, 0));
  GT_CUDA(launchMystery(kMysteryC, mIn, mOut, smemC));
  GT_CUDA(launchMystery(kMysteryC, mIn, mOut, 0));
  GT_CUDA(launchScaleAdd<1>(sx, sy, sout, 0));
  GT_CUDA(launchScaleAdd<1>(sx, sy, sout, smem1));
  GT_CUDA(launchScaleAdd<4>(sx, sy, sout, smem4));
  GT_CUDA(launchAddOneAll(lx));
  GT_CUDA(launchAddOnePieces(lx, 0, 4));
  GT_CUDA(launchScaleHead(head));
  GT_CUDA(launchHistogram16(aIn, bins, ticket));
  GT_CUDA(launchSumAll(aIn, sum));
  GT_OK(perfcheck_session_end(s));
  GT_CUDA(cudaDeviceSynchronize());

  const perfcheck_report* r = gt_report(s);
  size_t inRegion = 0;
  for (size_t i = 0; i < perfcheck_report_kernel_count(r); ++i) {
    perfcheck_kernel_info k;
    std::memset(&k, 0, sizeof k);
    k.size = sizeof k;
    GT_OK(perfcheck_report_kernel(r, i, &k));
    if (!gt_streq(k.region, "attributes")) continue;
    ++inRegion;
    Expected* e = nullptr;
    for (Expected& w : want)
      if (gt_streq(k.name, w.name) && k.grid[0] == w.grid && k.block[0] == unsigned(w.block) &&
          k.dynamic_smem_bytes == double(w.dynSmem))
        e = &w;
    GT_EXPECT(e != nullptr, "unexpected entry %s grid %u block %u dynamic %.0f B",
              k.name ? k.name : "(null)", k.grid[0], k.block[0], k.dynamic_smem_bytes);
    if (!e) continue;
    ++e->matched;
    cudaFuncAttributes fa;
    GT_CUDA(cudaFuncGetAttributes(&fa, e->func));
    int blocks = 0;
    GT_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, e->func, e->block, e->dynSmem));
    const double occ = 100.0 * blocks * ((e->block + warp - 1) / warp) / maxWarps;
    std::printf("%-12s dyn %6zu B: regs %g/%d static %g/%zu blk/SM %g/%d occ %g/%g %%\n", e->name,
                e->dynSmem, k.registers_per_thread, fa.numRegs, k.static_smem_bytes, fa.sharedSizeBytes,
                k.blocks_per_sm, blocks, k.theoretical_occupancy_pct, occ);
    GT_EXPECT(k.launches == (e->grid == kLaunchPiece / kLaunchBlock ? 4u : 1u), "%s launches %llu",
              e->name, static_cast<unsigned long long>(k.launches));
    GT_EXPECT(k.registers_per_thread == fa.numRegs, "%s registers %g, runtime %d", e->name,
              k.registers_per_thread, fa.numRegs);
    GT_EXPECT(k.static_smem_bytes == double(fa.sharedSizeBytes), "%s static smem %g, runtime %zu",
              e->name, k.static_smem_bytes, fa.sharedSizeBytes);
    GT_EXPECT(k.blocks_per_sm == blocks, "%s dyn %zu: blocks/SM %g, runtime %d", e->name, e->dynSmem,
              k.blocks_per_sm, blocks);
    GT_EXPECT(std::fabs(k.theoretical_occupancy_pct - occ) < 1e-6, "%s dyn %zu: occupancy %g %%, want %g %%",
              e->name, e->dynSmem, k.theoretical_occupancy_pct, occ);
  }
  for (const Expected& w : want)
    GT_EXPECT(w.matched == 1, "%s grid %u dynamic %zu B: %d entries, want 1", w.name, w.grid, w.dynSmem,
              w.matched);
  GT_EXPECT(inRegion == nWant, "%zu entries in region \"attributes\", want %zu", inRegion, nWant);
  if (gt_failures) gt_print_report(r);

  perfcheck_session_destroy(s);
  for (void* p : {(void*)mIn, (void*)mOut, (void*)sx, (void*)sy, (void*)sout, (void*)lx, (void*)head,
                  (void*)aIn, (void*)bins, (void*)ticket, (void*)sum})
    GT_CUDA(cudaFree(p));
  return gt_finish("test_attributes");
}
