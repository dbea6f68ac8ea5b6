// roundtrip: 256 MiB host to device (pageable memory), one tiny kernel over
// 1024 elements, 256 MiB back.
//
// Diagnosis perfcheck should reach: a region around the round trip gets
// step 1 not_the_slow_part: the copies take tens of milliseconds, the kernel
// a few microseconds, so no kernel change can matter.
//
// Checked sequence (and, with --profile, the only one): copy in, one kernel
// launch, copy back into a host buffer poisoned with NaN, every element
// compared.  The default then times 11 more round trips after 3 warm-ups
// (CUDA events around each phase, medians) and checks the last one again.
#include "kcommon.cuh"
#include "roundtrip_kernels.cuh"

// One round trip; events (if given) bracket the three phases.
static void roundTrip(const float* host, float* dev, float* back, cudaEvent_t* ev) {
  const size_t bytes = kRoundtripN * sizeof(float);
  std::memset(back, 0xFF, bytes);  // NaN: an element the copy misses fails
  if (ev) KCHECK(cudaEventRecord(ev[0]));
  KCHECK(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice));
  if (ev) KCHECK(cudaEventRecord(ev[1]));
  KCHECK(launchScaleHead(dev));
  if (ev) KCHECK(cudaEventRecord(ev[2]));
  KCHECK(cudaMemcpy(back, dev, bytes, cudaMemcpyDeviceToHost));
  if (ev) KCHECK(cudaEventRecord(ev[3]));
  KCHECK(cudaDeviceSynchronize());
}

static bool checkAll(const float* back) {
  for (size_t i = 0; i < kRoundtripN; ++i) {
    const float want = roundtripRef(i);
    if (!(back[i] == want)) {
      std::fprintf(stderr, "FAIL: index %zu: got %.9g, want %.9g\n", i, static_cast<double>(back[i]),
                   static_cast<double>(want));
      return false;
    }
  }
  return true;
}

static float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char** argv) {
  const bool profile = kParseProfileFlag(argc, argv);
  kPrintDevice();

  const size_t bytes = kRoundtripN * sizeof(float);
  std::vector<float> host(kRoundtripN), back(kRoundtripN);  // pageable on purpose
  for (size_t i = 0; i < kRoundtripN; ++i) host[i] = roundtripInput(i);
  float* dev = nullptr;
  KCHECK(cudaMalloc(&dev, bytes));

  roundTrip(host.data(), dev, back.data(), nullptr);
  if (!checkAll(back.data())) return EXIT_FAILURE;
  std::printf("round trip of %zu MiB checked at every element\n", bytes >> 20);

  if (profile) {
    std::printf("--profile: that round trip (1 kernel launch) was the only one\n");
  } else {
    cudaEvent_t ev[4];
    for (cudaEvent_t& e : ev) KCHECK(cudaEventCreate(&e));
    std::vector<float> phase[3];
    for (int run = 0; run < 3 + 11; ++run) {
      roundTrip(host.data(), dev, back.data(), ev);
      for (int p = 0; p < 3 && run >= 3; ++p) {
        float ms = 0.0f;
        KCHECK(cudaEventElapsedTime(&ms, ev[p], ev[p + 1]));
        phase[p].push_back(ms);
      }
    }
    if (!checkAll(back.data())) return EXIT_FAILURE;
    const char* names[3] = {"copy host to device", "kernel (1024 elements)", "copy device to host"};
    const double moved[3] = {double(bytes), 2.0 * kRoundtripHead * sizeof(float), double(bytes)};
    float ms[3], total = 0.0f;
    for (int p = 0; p < 3; ++p) total += ms[p] = median(phase[p]);
    if (!(total > 0.0f)) {
      std::fprintf(stderr, "FAIL: a total time of %g ms cannot be a denominator\n", double(total));
      return EXIT_FAILURE;
    }
    std::printf("\nmedian of 11 round trips after 3 warm-ups\n");
    std::printf("%-24s %12s %10s %9s %8s\n", "phase", "bytes", "ms", "GB/s", "share %");
    for (int p = 0; p < 3; ++p) {
      char rate[32] = "n/a";  // a 0 ms median has no rate
      if (ms[p] > 0.0f) std::snprintf(rate, sizeof rate, "%.1f", moved[p] / (ms[p] * 1e6));
      std::printf("%-24s %12.0f %10.3f %9s %8.2f\n", names[p], moved[p], ms[p], rate,
                  100.0 * ms[p] / total);
    }
    for (cudaEvent_t e : ev) KCHECK(cudaEventDestroy(e));
  }
  KCHECK(cudaFree(dev));
  return EXIT_SUCCESS;
}
