// async_copy (sm_90): 512 MiB of float4s through cp.async and TMA.
//
// Diagnosis a correct tool should reach (each kernel streams 512 MiB in and
// out, a few hundred microseconds on an H200, memory bound):
//   ldgsts_scale    global loads by cp.async (LDGSTS): smsp__sass_inst_executed_op_ldgsts.sum
//       counts them, l1tex__t_requests/sectors_pipe_lsu_mem_global_op_ldgsts_cache_access
//       16 sectors per request with every byte used
//       (smsp__sass_average_data_bytes_per_sector_mem_global_op_ldgsts 32).
//       LSU global loads are zero; the stores are coalesced 16-byte LSU stores.
//       NOT uncoalesced; a tool that counts only LSU loads sees a kernel that
//       "loads nothing" and must still judge it from the traffic it has.
//   tma_load_scale  global loads by TMA bulk copies (one 32 KiB
//       cp.async.bulk per block, completed through an mbarrier):
//       l1tex__m_xbar2l1tex_read_bytes_pipe_tma.sum = 512 MiB; no LSU global
//       loads; coalesced 16-byte LSU stores.  NOT uncoalesced.
//   tma_scale       global traffic by TMA only (bulk load, compute in shared
//       memory, bulk store: l1tex__m_l1tex2xbar_write_bytes_pipe_tma.sum =
//       512 MiB).  Zero LSU global requests: every share with LSU requests
//       as denominator divides by zero unless TMA traffic is counted.
//   tma_copy        TMA only and no thread touches the data (one warp per
//       block, one thread issues): the instruction counts are tiny, the
//       memory system is busy.
//
// Every launch is checked bit for bit against a CPU reference at every
// element, output poisoned (0xFF) first.  The four checked launches are the
// first four kernel launches: `--profile` stops after them (ncu
// --launch-count 4); the default also times each (median of 11).  On a GPU
// older than sm_90 the program prints "skipped: ..." and exits 77.
#include "async_copy_kernels.cuh"
#include "kcommon.cuh"

#include <functional>

int main(int argc, char** argv) {
  const bool profile = kParseProfileFlag(argc, argv);
  kPrintDevice();
  kRequireComputeCapability(9, 0, "async_copy (cp.async.bulk with mbarrier transaction counts)");
  int dev = 0;
  KCHECK(cudaGetDevice(&dev));
  int sms = 0;
  KCHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));

  std::vector<float> in(kAsyncBytes / sizeof(float));
  for (size_t w = 0; w < in.size(); ++w) in[w] = asyncPattern(w);
  float4 *dIn = nullptr, *dOut = nullptr;
  KCHECK(cudaMalloc(&dIn, kAsyncBytes));
  KCHECK(cudaMalloc(&dOut, kAsyncBytes));
  KCHECK(cudaMemcpy(dIn, in.data(), kAsyncBytes, cudaMemcpyHostToDevice));
  const float4* in4 = reinterpret_cast<const float4*>(in.data());

  static_assert(kAsyncN4 % kTmaTile4 == 0, "whole tiles");
  const unsigned tiles = static_cast<unsigned>(kAsyncN4 / kTmaTile4);
  // ldgsts_scale: a resident grid (2048 threads per SM) looping over the data.
  const unsigned ldgstsBlocks = static_cast<unsigned>(sms) * (2048u / kLdgstsBlock);

  struct Row {
    const char* name;
    bool scaled;  // out = 2 in + 1 (else out = in)
    std::function<cudaError_t()> launch;
  };
  const Row rows[4] = {
      {"ldgsts_scale", true,
       [&] { ldgsts_scale<<<ldgstsBlocks, kLdgstsBlock>>>(dIn, dOut, kAsyncN4); return cudaGetLastError(); }},
      {"tma_load_scale", true, [&] { tma_load_scale<<<tiles, kTmaBlock>>>(dIn, dOut); return cudaGetLastError(); }},
      {"tma_scale", true, [&] { tma_scale<<<tiles, kTmaBlock>>>(dIn, dOut); return cudaGetLastError(); }},
      {"tma_copy", false, [&] { tma_copy<<<tiles, kTmaCopyBlock>>>(dIn, dOut); return cudaGetLastError(); }},
  };

  // The checked launches: the only ones under --profile.
  std::vector<float4> got(kAsyncN4);
  for (const Row& r : rows) {
    KCHECK(kPoison(dOut, kAsyncBytes));
    KCHECK(r.launch());
    KCHECK(cudaDeviceSynchronize());
    KCHECK(cudaMemcpy(got.data(), dOut, kAsyncBytes, cudaMemcpyDeviceToHost));
    const bool ok = r.scaled ? kCheckEach(r.name, got.data(), kAsyncN4, [&](size_t i) { return asyncTwoXPlusOne(in4[i]); })
                             : kCheckEach(r.name, got.data(), kAsyncN4, [&](size_t i) { return in4[i]; });
    if (!ok) return EXIT_FAILURE;
  }
  std::printf("all 4 launches match the CPU reference at every element\n\n");
  std::printf("%-16s %8s %7s  %s\n", "kernel", "blocks", "block", "global loads / stores by");
  std::printf("%-16s %8u %7u  %s\n", "ldgsts_scale", ldgstsBlocks, kLdgstsBlock, "cp.async (LDGSTS) / LSU");
  std::printf("%-16s %8u %7u  %s\n", "tma_load_scale", tiles, kTmaBlock, "TMA bulk copy / LSU");
  std::printf("%-16s %8u %7u  %s\n", "tma_scale", tiles, kTmaBlock, "TMA bulk copy / TMA bulk copy");
  std::printf("%-16s %8u %7u  %s\n", "tma_copy", tiles, kTmaCopyBlock, "TMA bulk copy / TMA bulk copy");

  if (profile) {
    std::printf("\n--profile: the 4 checked launches above were the only launches\n");
  } else {
    std::printf("\nmedian of 11 runs after 3 warm-ups (bytes read + written)\n");
    std::printf("%-16s %10s %10s\n", "kernel", "time ms", "GB/s");
    for (const Row& r : rows) {
      const float ms = kMedianMs(r.launch);
      std::printf("%-16s %10.3f %10.1f\n", r.name, ms, 2.0 * kAsyncBytes / (ms * 1e6));
    }
  }
  KCHECK(cudaFree(dIn));
  KCHECK(cudaFree(dOut));
  return EXIT_SUCCESS;
}
