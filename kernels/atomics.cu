// atomics: 4M threads hammering global atomics.
//
// Diagnosis perfcheck should reach:
//   histogram16  step 3  atomic_contention  (lts__t_requests_op_atom.sum: one
//                ATOM per thread on 16 addresses; the returned ticket is used)
//   sumAll       step 3  atomic_contention expected too (lts__t_requests_op_red.sum:
//                the result is unused, so atomicAdd compiles to RED on one address)
//
// Checks are exact (integers): every bin count; every ticket, which must be a
// distinct number in [0, count) within its bin (tickets poisoned to 0xFFFFFFFF
// beforehand); the 64-bit sum.  The two checked launches are the first two:
// `--profile` stops after them (ncu --launch-count 2); the default also times
// both (CUDA events, 3 warm-ups, median of 11) and checks the totals again.
#include "atomics_kernels.cuh"
#include "kcommon.cuh"

static bool checkHistogram(const std::vector<unsigned>& in, const std::vector<unsigned>& bins,
                           const std::vector<unsigned>& ticket, unsigned rounds) {
  std::vector<unsigned> count(kAtomicsBins, 0u);
  for (unsigned v : in) ++count[v % kAtomicsBins];
  for (int b = 0; b < kAtomicsBins; ++b) {
    if (bins[b] != rounds * count[b]) {
      std::fprintf(stderr, "FAIL histogram16: bin %d: got %u, want %u\n", b, bins[b], rounds * count[b]);
      return false;
    }
  }
  if (ticket.empty()) return true;
  std::vector<std::vector<bool>> seen(kAtomicsBins);
  for (int b = 0; b < kAtomicsBins; ++b) seen[b].assign(count[b], false);
  for (size_t i = 0; i < in.size(); ++i) {
    const unsigned b = in[i] % kAtomicsBins, t = ticket[i];
    if (t >= count[b] || seen[b][t]) {
      std::fprintf(stderr, "FAIL histogram16: index %zu: ticket %u in bin %u, want a ticket below %u "
                   "not taken before\n", i, t, b, count[b]);
      return false;
    }
    seen[b][t] = true;
  }
  return true;
}

static bool checkSum(const std::vector<unsigned>& in, unsigned long long got, unsigned rounds) {
  unsigned long long want = 0;
  for (unsigned v : in) want += v;
  want *= rounds;
  if (got != want) {
    std::fprintf(stderr, "FAIL sumAll: got %llu, want %llu\n", got, want);
    return false;
  }
  return true;
}

int main(int argc, char** argv) {
  const bool profile = kParseProfileFlag(argc, argv);
  kPrintDevice();

  std::vector<unsigned> in(kAtomicsN), bins(kAtomicsBins), ticket(kAtomicsN);
  for (int i = 0; i < kAtomicsN; ++i) in[i] = atomicsInput(static_cast<uint32_t>(i));
  unsigned *dIn = nullptr, *dBins = nullptr, *dTicket = nullptr;
  unsigned long long* dSum = nullptr;
  const size_t bytes = size_t(kAtomicsN) * sizeof(unsigned);
  KCHECK(cudaMalloc(&dIn, bytes));
  KCHECK(cudaMalloc(&dTicket, bytes));
  KCHECK(cudaMalloc(&dBins, kAtomicsBins * sizeof(unsigned)));
  KCHECK(cudaMalloc(&dSum, sizeof(unsigned long long)));
  KCHECK(cudaMemcpy(dIn, in.data(), bytes, cudaMemcpyHostToDevice));
  KCHECK(cudaMemset(dBins, 0, kAtomicsBins * sizeof(unsigned)));
  KCHECK(cudaMemset(dSum, 0, sizeof(unsigned long long)));
  KCHECK(kPoison(dTicket, bytes));

  // The two checked launches: the only ones under --profile.
  KCHECK(launchHistogram16(dIn, dBins, dTicket));
  KCHECK(launchSumAll(dIn, dSum));
  KCHECK(cudaDeviceSynchronize());
  unsigned long long sum = 0;
  KCHECK(cudaMemcpy(bins.data(), dBins, kAtomicsBins * sizeof(unsigned), cudaMemcpyDeviceToHost));
  KCHECK(cudaMemcpy(ticket.data(), dTicket, bytes, cudaMemcpyDeviceToHost));
  KCHECK(cudaMemcpy(&sum, dSum, sizeof sum, cudaMemcpyDeviceToHost));
  if (!checkHistogram(in, bins, ticket, 1) || !checkSum(in, sum, 1)) return EXIT_FAILURE;
  std::printf("histogram16 (16 bins, %d tickets) and sumAll (%llu) checked exactly\n", kAtomicsN, sum);

  if (profile) {
    std::printf("--profile: those 2 launches were the only launches\n");
  } else {
    // The counters keep adding up: 1 + 3 warm-ups + 11 timed rounds each.
    const float hist = kMedianMs([&] { return launchHistogram16(dIn, dBins, dTicket); });
    const float red = kMedianMs([&] { return launchSumAll(dIn, dSum); });
    KCHECK(cudaMemcpy(bins.data(), dBins, kAtomicsBins * sizeof(unsigned), cudaMemcpyDeviceToHost));
    KCHECK(cudaMemcpy(&sum, dSum, sizeof sum, cudaMemcpyDeviceToHost));
    if (!checkHistogram(in, bins, {}, 15) || !checkSum(in, sum, 15)) return EXIT_FAILURE;
    std::printf("\nmedian of 11 runs after 3 warm-ups\n");
    std::printf("%-12s %10s %10s %12s %12s\n", "kernel", "atomics", "addresses", "ms", "Gatomic/s");
    std::printf("%-12s %10d %10d %12.3f %12.2f\n", "histogram16", kAtomicsN, kAtomicsBins, hist,
                kAtomicsN / (hist * 1e6));
    std::printf("%-12s %10d %10d %12.3f %12.2f\n", "sumAll", kAtomicsN, 1, red, kAtomicsN / (red * 1e6));
  }
  KCHECK(cudaFree(dIn));
  KCHECK(cudaFree(dTicket));
  KCHECK(cudaFree(dBins));
  KCHECK(cudaFree(dSum));
  return EXIT_SUCCESS;
}
