// gpu_test.h: checks and skip logic shared by the GPU tests (tests/gpu/*.cu).
// A test exits 0 on success, 1 on a failure (each one printed with its file
// and line), and 77 with "SKIP: <reason>" when there is no GPU to run on.
#pragma once

#include <cuda_runtime.h>
#include <execinfo.h>
#include <signal.h>
#include <unistd.h>

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "perfcheck.h"

enum { GT_SKIP = 77 };

static int gt_failures = 0;

// A CUDA call that must succeed for the test to mean anything: fatal.
#define GT_CUDA(call)                                                                       \
  do {                                                                                      \
    const cudaError_t gt_e_ = (call);                                                       \
    if (gt_e_ != cudaSuccess) {                                                             \
      std::fprintf(stderr, "FAIL %s:%d: %s: %s (%s)\n", __FILE__, __LINE__, #call,          \
                   cudaGetErrorName(gt_e_), cudaGetErrorString(gt_e_));                     \
      std::exit(EXIT_FAILURE);                                                              \
    }                                                                                       \
  } while (0)

// A perfcheck call expected to return `want` (a perfcheck_status).
#define GT_STATUS(call, want)                                                               \
  do {                                                                                      \
    const perfcheck_status gt_s_ = (call);                                                  \
    if (gt_s_ != (want)) {                                                                  \
      std::fprintf(stderr, "FAIL %s:%d: %s returned %d (%s), want %d (%s); detail: %s\n",   \
                   __FILE__, __LINE__, #call, static_cast<int>(gt_s_),                      \
                   perfcheck_strerror(gt_s_), static_cast<int>(want),                       \
                   perfcheck_strerror(want), perfcheck_last_error_message());               \
      ++gt_failures;                                                                        \
    }                                                                                       \
  } while (0)

// A perfcheck call that must succeed for the rest of the test: fatal.
#define GT_OK(call)                                                                         \
  do {                                                                                      \
    const perfcheck_status gt_s_ = (call);                                                  \
    if (gt_s_ != PERFCHECK_OK) {                                                            \
      std::fprintf(stderr, "FAIL %s:%d: %s returned %d (%s); detail: %s\n", __FILE__,       \
                   __LINE__, #call, static_cast<int>(gt_s_), perfcheck_strerror(gt_s_),     \
                   perfcheck_last_error_message());                                         \
      std::exit(EXIT_FAILURE);                                                              \
    }                                                                                       \
  } while (0)

// A check: printed with the values (printf-style message) and counted.
#define GT_EXPECT(cond, ...)                                                                \
  do {                                                                                      \
    if (!(cond)) {                                                                          \
      std::fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                  \
      std::fprintf(stderr, __VA_ARGS__);                                                    \
      std::fputc('\n', stderr);                                                             \
      ++gt_failures;                                                                        \
    }                                                                                       \
  } while (0)

// The same, but the test cannot go on without it.
#define GT_REQUIRE(cond, ...)                                                               \
  do {                                                                                      \
    const int gt_before_ = gt_failures;                                                     \
    GT_EXPECT(cond, __VA_ARGS__);                                                           \
    if (gt_failures != gt_before_) std::exit(EXIT_FAILURE);                                 \
  } while (0)

[[noreturn]] inline void gt_skip(const char* fmt, ...) {
  std::va_list ap;
  va_start(ap, fmt);
  std::printf("SKIP: ");
  std::vprintf(fmt, ap);
  std::printf("\n");
  va_end(ap);
  std::fflush(stdout);
  std::exit(GT_SKIP);
}

// Skips (exit 77) when no CUDA device can be used.
// On SIGSEGV, SIGBUS, SIGFPE or SIGABRT: the stack (glibc's backtrace, which
// unwinds through libraries without frame pointers) on stderr, then the signal
// again with its default action.  Frames in libperfcheck read
// "libperfcheck.so.N(+0xOFFSET)" (its symbols are hidden): scripts/device/bench
// turns them into function and line with addr2line.  A debugger is no help
// here: cuda-gdb holds CUPTI, and perfcheck then refuses the session.
inline void gt_crash_handler(int sig) {
  void* frames[64];
  const int n = backtrace(frames, 64);
  char head[64];
  const int len = snprintf(head, sizeof head, "CRASH: signal %d, %d frames:\n", sig, n);
  if (len > 0) (void)!write(2, head, (size_t)len);
  backtrace_symbols_fd(frames, n, 2);
  signal(sig, SIG_DFL);
  raise(sig);
}

inline void gt_require_gpu() {
  {
    void* warm[1];
    (void)backtrace(warm, 1);  // loads libgcc_s now, not inside the handler
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGABRT}) signal(sig, gt_crash_handler);
  }
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) gt_skip("cudaGetDeviceCount: %s (%s)", cudaGetErrorName(e), cudaGetErrorString(e));
  if (n == 0) gt_skip("no CUDA device");
}

// A session in `mode`; skips when perfcheck finds no driver or device, or when
// another CUPTI client (ncu, nsys, a sanitizer) holds the process.
inline perfcheck_session* gt_session(perfcheck_mode mode) {
  perfcheck_options o;
  perfcheck_options_init(&o);
  o.mode = mode;
  perfcheck_session* s = nullptr;
  const perfcheck_status st = perfcheck_session_create(&o, &s);
  if (st == PERFCHECK_ERROR_NO_DRIVER || st == PERFCHECK_ERROR_NO_DEVICE ||
      st == PERFCHECK_ERROR_CUPTI_IN_USE)
    gt_skip("perfcheck_session_create: %s: %s", perfcheck_strerror(st), perfcheck_last_error_message());
  if (st != PERFCHECK_OK || s == nullptr) {
    std::fprintf(stderr, "FAIL: perfcheck_session_create returned %d (%s): %s\n", static_cast<int>(st),
                 perfcheck_strerror(st), perfcheck_last_error_message());
    std::exit(EXIT_FAILURE);
  }
  return s;
}

inline const perfcheck_report* gt_report(perfcheck_session* s) {
  const perfcheck_report* r = nullptr;
  GT_OK(perfcheck_session_report(s, &r));
  if (r == nullptr) {
    std::fprintf(stderr, "FAIL: perfcheck_session_report gave a NULL report\n");
    std::exit(EXIT_FAILURE);
  }
  return r;
}

inline bool gt_streq(const char* a, const char* b) { return a && b && std::strcmp(a, b) == 0; }

// The region called `name`; false when there is none.
inline bool gt_find_region(const perfcheck_report* r, const char* name, perfcheck_region_info* out) {
  const size_t n = perfcheck_report_region_count(r);
  for (size_t i = 0; i < n; ++i) {
    perfcheck_region_info info;
    std::memset(&info, 0, sizeof info);
    info.size = sizeof info;
    if (perfcheck_report_region(r, i, &info) == PERFCHECK_OK && gt_streq(info.name, name)) {
      *out = info;
      return true;
    }
  }
  return false;
}

// The first kernel entry called `name` in region `region` (NULL: any region).
inline bool gt_find_kernel(const perfcheck_report* r, const char* name, const char* region,
                           perfcheck_kernel_info* out) {
  const size_t n = perfcheck_report_kernel_count(r);
  for (size_t i = 0; i < n; ++i) {
    perfcheck_kernel_info info;
    std::memset(&info, 0, sizeof info);
    info.size = sizeof info;
    if (perfcheck_report_kernel(r, i, &info) == PERFCHECK_OK && gt_streq(info.name, name) &&
        (region == nullptr || gt_streq(info.region, region))) {
      *out = info;
      return true;
    }
  }
  return false;
}

// The whole report as text on stdout, for the log of a failing run.
inline void gt_print_report(const perfcheck_report* r) {
  if (perfcheck_report_write(r, PERFCHECK_FORMAT_TEXT, stdout) != PERFCHECK_OK)
    std::printf("(perfcheck_report_write failed: %s)\n", perfcheck_last_error_message());
  std::fflush(stdout);
}

// Exit status of a test: prints PASS or the number of failures.
inline int gt_finish(const char* test) {
  if (gt_failures) {
    std::fprintf(stderr, "%s: %d check(s) failed\n", test, gt_failures);
    return EXIT_FAILURE;
  }
  std::printf("%s: PASS\n", test);
  return EXIT_SUCCESS;
}

inline double gt_median(double* v, size_t n) {
  for (size_t i = 1; i < n; ++i)  // insertion sort: n is small
    for (size_t j = i; j > 0 && v[j - 1] > v[j]; --j) {
      const double t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
