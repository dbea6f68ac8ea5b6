// conflict_probe: what perfcheck does when it cannot have CUPTI; driven by
// tests/gpu/test_conflicts.sh.
//
//   conflict_probe ok                 no other tool: the session works (the
//                                     control run; exit 77 without a GPU)
//   conflict_probe in-use HOLDER      under ncu or compute-sanitizer:
//                                     perfcheck_session_create returns
//                                     PERFCHECK_ERROR_CUPTI_IN_USE and its
//                                     message contains HOLDER, twice (the
//                                     second call must make no CUPTI call:
//                                     after a CUPTI 39 a later call crashed the
//                                     host program, docs/cupti.md §11)
//   conflict_probe no-device          with CUDA_VISIBLE_DEVICES=-1:
//                                     PERFCHECK_ERROR_NO_DEVICE
//
// In the first two the program's own kernel must still run and be right, and
// the probe prints "conflict_probe: PASS" and exits 0 when all held.
#include <string_view>
#include <vector>

#include "gpu_test.h"

__global__ void probeKernel(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = 2.0f * static_cast<float>(i) + 1.0f;
}

enum { kProbeN = 1 << 16 };

// The program's own work: one launch, every element checked.
static void runKernel() {
  float* d = nullptr;
  GT_CUDA(cudaMalloc(&d, kProbeN * sizeof(float)));
  GT_CUDA(cudaMemset(d, 0xFF, kProbeN * sizeof(float)));  // NaN
  probeKernel<<<kProbeN / 256, 256>>>(d, kProbeN);
  GT_CUDA(cudaGetLastError());
  GT_CUDA(cudaDeviceSynchronize());
  std::vector<float> h(kProbeN);
  GT_CUDA(cudaMemcpy(h.data(), d, kProbeN * sizeof(float), cudaMemcpyDeviceToHost));
  GT_CUDA(cudaFree(d));
  for (int i = 0; i < kProbeN; ++i)
    if (h[i] != 2.0f * static_cast<float>(i) + 1.0f) {
      GT_EXPECT(h[i] == 2.0f * static_cast<float>(i) + 1.0f, "probeKernel: x[%d] = %g, want %d", i, double(h[i]),
                2 * i + 1);
      break;
    }
}

static perfcheck_session* create(perfcheck_mode mode, perfcheck_status* st) {
  perfcheck_options o;
  perfcheck_options_init(&o);
  o.mode = mode;
  perfcheck_session* s = nullptr;
  *st = perfcheck_session_create(&o, &s);
  std::printf("perfcheck_session_create (mode %d): %s: \"%s\"\n", int(mode), perfcheck_strerror(*st),
              perfcheck_last_error_message());
  return s;
}

static int usage(const char* argv0) {
  std::fprintf(stderr, "usage: %s ok | in-use HOLDER | no-device\n", argv0);
  return 2;
}

int main(int argc, char** argv) {
  if (argc < 2) return usage(argv[0]);
  const std::string_view what = argv[1];
  perfcheck_status st = PERFCHECK_OK;

  if (what == "ok" && argc == 2) {
    perfcheck_session* s = create(PERFCHECK_MODE_AUTO, &st);
    if (st == PERFCHECK_ERROR_NO_DRIVER || st == PERFCHECK_ERROR_NO_DEVICE)
      gt_skip("no GPU: %s", perfcheck_last_error_message());
    GT_REQUIRE(st == PERFCHECK_OK && s, "the control run needs a working session: %s (%s)", perfcheck_strerror(st),
               perfcheck_last_error_message());
    GT_OK(perfcheck_session_begin(s, "probe"));
    runKernel();
    GT_OK(perfcheck_session_end(s));
    const perfcheck_report* r = gt_report(s);
    perfcheck_kernel_info k = {};
    GT_EXPECT(gt_find_kernel(r, "probeKernel", "probe", &k), "no probeKernel entry in region probe");
    GT_EXPECT(k.launches == 1, "probeKernel: %llu launches, want 1", static_cast<unsigned long long>(k.launches));
    perfcheck_session_destroy(s);
  } else if (what == "in-use" && argc == 3) {
    const char* holder = argv[2];
    perfcheck_session* s = create(PERFCHECK_MODE_AUTO, &st);
    GT_EXPECT(st == PERFCHECK_ERROR_CUPTI_IN_USE && !s, "first create: %s, want %s", perfcheck_strerror(st),
              perfcheck_strerror(PERFCHECK_ERROR_CUPTI_IN_USE));
    GT_EXPECT(std::strstr(perfcheck_last_error_message(), holder) != nullptr,
              "first create: the message \"%s\" does not name the holder \"%s\"", perfcheck_last_error_message(),
              holder);
    perfcheck_session_destroy(s);  // NULL-safe; a session made by mistake must not stay attached
    // Again, asking for counters: the same answer, and no crash.
    s = create(PERFCHECK_MODE_COUNTERS, &st);
    GT_EXPECT(st == PERFCHECK_ERROR_CUPTI_IN_USE && !s, "second create: %s, want %s", perfcheck_strerror(st),
              perfcheck_strerror(PERFCHECK_ERROR_CUPTI_IN_USE));
    GT_EXPECT(std::strstr(perfcheck_last_error_message(), holder) != nullptr,
              "second create: the message \"%s\" does not name the holder \"%s\"", perfcheck_last_error_message(),
              holder);
    perfcheck_session_destroy(s);
    runKernel();  // the program itself is unaffected
  } else if (what == "no-device" && argc == 2) {
    perfcheck_session* s = create(PERFCHECK_MODE_COUNTERS, &st);
    GT_EXPECT(st == PERFCHECK_ERROR_NO_DEVICE && !s, "create: %s, want %s", perfcheck_strerror(st),
              perfcheck_strerror(PERFCHECK_ERROR_NO_DEVICE));
    perfcheck_session_destroy(s);
  } else {
    return usage(argv[0]);
  }
  if (gt_failures) {
    std::fprintf(stderr, "conflict_probe %s: %d check(s) failed\n", argv[1], gt_failures);
    return EXIT_FAILURE;
  }
  std::printf("conflict_probe: PASS (%s)\n", argv[1]);
  return EXIT_SUCCESS;
}
