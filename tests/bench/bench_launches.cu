/*
 * bench_launches: one workload, one mode, one process; prints one RESULT line.
 *
 *   bench_launches MODE WORKLOAD [--json PATH]
 *     MODE:     plain             no perfcheck call at all (no session)
 *               timing            a PERFCHECK_MODE_TIMING session, one region
 *               counters-default  PERFCHECK_MODE_COUNTERS, metrics "default"
 *               counters-sol      PERFCHECK_MODE_COUNTERS, metrics "sol"
 *     WORKLOAD: tiny        4096 launches of add_one (4096 threads each)
 *               bound       50 launches of a ~2 ms FMA kernel
 *               million     1,000,000 launches of add_one
 *               distinct    10,000 launches of 20 distinct kernels
 *               distinct20  20 launches: each of the same 20 kernels once
 *               hundred     100 launches: each of 100 distinct kernels once,
 *                           with no warm-up launch (a profiler run over the
 *                           whole process profiles each of them once)
 *               mystery     kernels/mystery.cu's four launches (A, B, C with
 *                           one block per SM, C with no dynamic shared memory)
 *               fifty       50 launches of 5 kernels
 *   bench_launches info WORKLOAD     warm-up launches, pre_launches (warm-ups + prime), launches
 *   bench_launches metric-list SET   perfcheck_metric_list(SET), for ncu --metrics
 *   bench_launches passes SET        perfcheck_metric_passes(SET) on device 0
 *   bench_launches env               device, CUDA runtime and driver versions
 *
 * Every run does, in this order: allocate and fill inputs (fresh random values
 * from a printed seed; mystery takes kernels/mystery_kernels.cuh's inputs and
 * reference); warm-up launches (one of each kernel, five for bound: module loading
 * stays out of the figures, the SM clock leaves idle); [perfcheck modes:
 * perfcheck_session_create];
 * one launch of `prime_kernel` outside any region (CUPTI's first-launch cost
 * after enabling activity stays out of the region; the same launch runs in
 * plain mode); then the timed part:
 *
 *   t0 = clock_gettime(CLOCK_MONOTONIC)
 *   [perfcheck_session_begin(s, "bench")]
 *   the workload's launches
 *   cudaDeviceSynchronize()
 *   [perfcheck_session_end(s)]
 *   t1 = clock_gettime(CLOCK_MONOTONIC)          wall_ms = t1 - t0
 *
 * VmRSS is read just before t0 and just after t1 (and VmHWM, the peak, after t1).  Then every output is
 * checked against a CPU reference (outputs poisoned with NaN before the timed
 * part, so an unwritten element fails).  Session creation and destruction are
 * timed separately (create_ms, destroy_ms); the script also times the whole
 * process, which is what the ncu comparison uses.
 *
 * Exit status: 0 ok; 1 wrong results; 2 CUDA error; 3 perfcheck error;
 * 64 usage.  Only numbers that were measured are printed.
 */
#include <cuda_runtime.h>
#include <perfcheck.h>

// The reference programs' kernels (kernels/): seed 003's add_one and seed
// 000's mystery kernels with their CPU reference and launch helper.
#include "kcommon.cuh"
#include "launches_kernels.cuh"
#include "mystery_kernels.cuh"

#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#define CUDA_CHECK(call)                                                                      \
  do {                                                                                        \
    cudaError_t e_ = (call);                                                                  \
    if (e_ != cudaSuccess) {                                                                  \
      fprintf(stderr, "bench_launches: %s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call, \
              cudaGetErrorName(e_), cudaGetErrorString(e_));                                  \
      exit(2);                                                                                \
    }                                                                                         \
  } while (0)

static void pc_check(perfcheck_status st, const char *what) {
  if (st != PERFCHECK_OK) {
    fprintf(stderr, "bench_launches: %s: %s (%s)\n", what, perfcheck_strerror(st),
            perfcheck_last_error_message());
    exit(3);
  }
}

static double now_ms() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

// A /proc/self/status field in MiB ("VmRSS": resident now, "VmHWM": its peak
// so far; both in kB there); NaN if unreadable.
static double status_mib(const char *field) {
  FILE *f = fopen("/proc/self/status", "r");
  if (!f) return NAN;
  char line[256];
  double mib = NAN;
  const size_t len = strlen(field);
  while (fgets(line, sizeof line, f)) {
    long kb = 0;
    if (strncmp(line, field, len) == 0 && line[len] == ':' && sscanf(line + len + 1, "%ld", &kb) == 1) {
      mib = (double)kb / 1024.0;
      break;
    }
  }
  fclose(f);
  return mib;
}

// Fresh random inputs every run (METHOD.md): a splitmix64 stream from a seed
// printed in the RESULT line.
static uint64_t g_rng;
static uint64_t next_u64() {
  uint64_t z = (g_rng += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static float rand_unit() { return (float)(next_u64() >> 40) / 16777216.0f; }  // [0, 1)
static float rand_int1000() { return (float)(next_u64() % 1000); }            // exact integers

static bool close_enough(float got, float want, float rel) {
  if (!(got == got)) return false;  // NaN: an unwritten (poisoned) element
  return fabsf(got - want) <= rel * fmaxf(1.0f, fabsf(want));
}

static int g_errors = 0;
static void mismatch(const char *what, size_t i, double got, double want) {
  if (g_errors < 5)
    fprintf(stderr, "bench_launches: WRONG %s[%zu] = %.9g, expected %.9g\n", what, i, got, want);
  ++g_errors;
}

// ---- kernels --------------------------------------------------------------

__global__ void prime_kernel(float *scratch) {
  if (blockIdx.x == 0 && threadIdx.x == 0) scratch[0] = 42.0f;
}

// Four independent FMA chains (seed 000's runChains); host and device run the
// same code, so the CPU reference matches to the last bit.
__host__ __device__ inline float run_chains(float x, float mul, float add, int iters) {
  float c0 = x, c1 = x + 0.25f, c2 = x + 0.5f, c3 = x + 0.75f;
  for (int k = 0; k < iters; ++k) {
    c0 = fmaf(c0, mul, add);
    c1 = fmaf(c1, mul, add);
    c2 = fmaf(c2, mul, add);
    c3 = fmaf(c3, mul, add);
  }
  return (c0 + c1) + (c2 + c3);
}

constexpr float kMulA = 0.9990f, kAddA = 0.0010f;
constexpr float kMulB = 0.9995f, kAddB = 0.0020f;

__global__ void bound_kernel(const float *__restrict__ in, float *__restrict__ out, int n, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = run_chains(in[i], kMulA, kAddA, iters);
}

// distinct and hundred: kernel K adds K+1 to its own slice of 4096 floats.
constexpr int kDistinctKernels = 20;
constexpr int kHundredKernels = 100;
constexpr int kDistinctSlice = 4096;
template <int K>
__global__ void distinct_kernel(float *x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kDistinctSlice) x[K * kDistinctSlice + i] += (float)(K + 1);
}

// fifty: five kernels of different kinds.
__global__ void fifty_inc(float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] += 1.0f;
}
__global__ void fifty_axpy(const float *__restrict__ x, const float *__restrict__ y, float *__restrict__ out,
                           float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fmaf(a, x[i], y[i]);
}
constexpr int kGatherStride = 2053;  // odd, so i * stride mod 2^k is a permutation
__global__ void fifty_gather(const float *__restrict__ x, float *__restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[(int)(((unsigned)i * (unsigned)kGatherStride) & (unsigned)(n - 1))];
}
constexpr int kReduceBlock = 256;
__global__ void fifty_reduce(const float *__restrict__ x, float *__restrict__ sums, int n) {
  __shared__ float s[kReduceBlock];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = (i < n) ? x[i] : 0.0f;
  __syncthreads();
  for (int h = kReduceBlock / 2; h > 0; h >>= 1) {
    if ((int)threadIdx.x < h) s[threadIdx.x] += s[threadIdx.x + h];
    __syncthreads();
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = s[0];
}
__global__ void fifty_diverge(const float *__restrict__ x, float *__restrict__ out, int n, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (threadIdx.x & 1u) ? run_chains(x[i], kMulB, kAddB, iters) : run_chains(x[i], kMulA, kAddA, iters);
}

// ---- workloads ------------------------------------------------------------
// Each workload: setup (allocate, fill, warm up: untimed), run (timed), verify.

constexpr int kBoundWarmups = 5;  // also brings the SM clock up from idle

struct Workload {
  const char *name;
  int warmups;      // launches in setup (the prime launch comes after them)
  long launches;    // launches in the timed part
};

static const Workload kWorkloads[] = {
    {"tiny", 1, 4096},
    {"bound", kBoundWarmups, 50},
    {"million", 1, 1000000},
    {"distinct", kDistinctKernels, 10000},
    {"distinct20", kDistinctKernels, kDistinctKernels},
    {"mystery", 4, 4},
    {"fifty", 5, 50},
    {"hundred", 0, kHundredKernels},
};

static const Workload *find_workload(const char *name) {
  for (const Workload &w : kWorkloads)
    if (strcmp(w.name, name) == 0) return &w;
  return nullptr;
}

template <typename T>
static T *dev_alloc(size_t count) {
  T *p = nullptr;
  CUDA_CHECK(cudaMalloc(&p, count * sizeof(T)));
  return p;
}
static void poison(void *p, size_t bytes) { CUDA_CHECK(cudaMemset(p, 0xFF, bytes)); }  // all-ones floats are NaN

// -- tiny / million: 2^24 floats in 4096 pieces of 4096, one piece per launch.
constexpr int kTinyN = kLaunchN;          // 2^24
constexpr int kPiece = kLaunchPiece;      // 4096 threads a launch
constexpr int kPieces = kLaunchPieces;    // 4096 pieces
struct Tiny {
  std::vector<float> init;
  float *x = nullptr;
  void setup() {
    init.resize(kTinyN);
    for (float &v : init) v = rand_int1000();
    x = dev_alloc<float>(kTinyN);
    CUDA_CHECK(cudaMemcpy(x, init.data(), kTinyN * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(launchAddOneAll(x));  // warm-up: +1 everywhere
  }
  void run(long launches) {
    for (long j = 0; j < launches; ++j)
      add_one<<<kPiece / kLaunchBlock, kLaunchBlock>>>(x, (int)(j % kPieces) * kPiece, kPiece);
  }
  void verify(long launches) {
    std::vector<float> got(kTinyN);
    CUDA_CHECK(cudaMemcpy(got.data(), x, kTinyN * sizeof(float), cudaMemcpyDeviceToHost));
    for (int p = 0; p < kPieces; ++p) {
      // warm-up + the launches that landed on piece p (all exact integers in float)
      float adds = 1.0f + (float)(launches / kPieces) + ((p < launches % kPieces) ? 1.0f : 0.0f);
      for (int i = p * kPiece; i < (p + 1) * kPiece; ++i)
        if (got[i] != init[i] + adds) mismatch("x", (size_t)i, got[i], init[i] + adds);
    }
    CUDA_CHECK(cudaFree(x));
  }
};

// -- bound: 2^20 threads x 64,000 FMAs (16,000 iterations of 4 chains): about
// 2 ms at the H200's FP32 rate.
constexpr int kBoundN = 1 << 20;
constexpr int kBoundIters = 16000;
struct Bound {
  std::vector<float> in;
  float *d_in = nullptr, *d_out = nullptr;
  void setup() {
    in.resize(kBoundN);
    for (float &v : in) v = rand_unit();
    d_in = dev_alloc<float>(kBoundN);
    d_out = dev_alloc<float>(kBoundN);
    CUDA_CHECK(cudaMemcpy(d_in, in.data(), kBoundN * sizeof(float), cudaMemcpyHostToDevice));
    for (int j = 0; j < kBoundWarmups; ++j) bound_kernel<<<kBoundN / 256, 256>>>(d_in, d_out, kBoundN, kBoundIters);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    poison(d_out, kBoundN * sizeof(float));
  }
  void run(long launches) {
    for (long j = 0; j < launches; ++j) bound_kernel<<<kBoundN / 256, 256>>>(d_in, d_out, kBoundN, kBoundIters);
  }
  void verify() {
    std::vector<float> got(kBoundN);
    CUDA_CHECK(cudaMemcpy(got.data(), d_out, kBoundN * sizeof(float), cudaMemcpyDeviceToHost));
    // Every element must be written; 256 evenly spaced ones (and the last) are recomputed on the CPU.
    for (int i = 0; i < kBoundN; ++i)
      if (!(got[i] == got[i])) mismatch("bound.out (unwritten)", (size_t)i, got[i], 0.0);
    for (int i = 0; i < kBoundN; i += kBoundN / 256) {
      float want = run_chains(in[i], kMulA, kAddA, kBoundIters);
      if (!close_enough(got[i], want, 1e-5f)) mismatch("bound.out", (size_t)i, got[i], want);
    }
    int last = kBoundN - 1;
    float want = run_chains(in[last], kMulA, kAddA, kBoundIters);
    if (!close_enough(got[last], want, 1e-5f)) mismatch("bound.out", (size_t)last, got[last], want);
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
  }
};

// -- distinct / distinct20: 20 kernels, launch j runs kernel j % 20.
struct Distinct {
  std::vector<float> init;
  float *x = nullptr;
  static void launch(int k, float *x) {
    const int g = kDistinctSlice / 256, b = 256;
    switch (k) {
#define BENCH_DK(K) \
  case K:           \
    distinct_kernel<K><<<g, b>>>(x); \
    break;
      BENCH_DK(0) BENCH_DK(1) BENCH_DK(2) BENCH_DK(3) BENCH_DK(4)
      BENCH_DK(5) BENCH_DK(6) BENCH_DK(7) BENCH_DK(8) BENCH_DK(9)
      BENCH_DK(10) BENCH_DK(11) BENCH_DK(12) BENCH_DK(13) BENCH_DK(14)
      BENCH_DK(15) BENCH_DK(16) BENCH_DK(17) BENCH_DK(18) BENCH_DK(19)
#undef BENCH_DK
      default:
        break;
    }
  }
  void setup() {
    const int n = kDistinctKernels * kDistinctSlice;
    init.resize(n);
    for (float &v : init) v = rand_int1000();
    x = dev_alloc<float>(n);
    CUDA_CHECK(cudaMemcpy(x, init.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    for (int k = 0; k < kDistinctKernels; ++k) launch(k, x);  // warm-up: one of each
    CUDA_CHECK(cudaGetLastError());
  }
  void run(long launches) {
    for (long j = 0; j < launches; ++j) launch((int)(j % kDistinctKernels), x);
  }
  void verify(long launches) {
    const int n = kDistinctKernels * kDistinctSlice;
    std::vector<float> got(n);
    CUDA_CHECK(cudaMemcpy(got.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int k = 0; k < kDistinctKernels; ++k) {
      long times = 1 + launches / kDistinctKernels + ((k < launches % kDistinctKernels) ? 1 : 0);
      float add = (float)(times * (k + 1));
      for (int i = k * kDistinctSlice; i < (k + 1) * kDistinctSlice; ++i)
        if (got[i] != init[i] + add) mismatch("distinct.x", (size_t)i, got[i], init[i] + add);
    }
    CUDA_CHECK(cudaFree(x));
  }
};

// -- hundred: distinct_kernel<0> to <99>, each launched once, none before the
// timed part.  The kernels are reached through a table of their addresses,
// built from an index sequence, and launched with cudaLaunchKernel.
using DistinctFn = void (*)(float *);
template <int... K>
static std::vector<DistinctFn> distinct_table(std::integer_sequence<int, K...>) {
  return {&distinct_kernel<K>...};
}
struct Hundred {
  std::vector<float> init;
  std::vector<DistinctFn> fn = distinct_table(std::make_integer_sequence<int, kHundredKernels>{});
  float *x = nullptr;
  void setup() {
    const int n = kHundredKernels * kDistinctSlice;
    init.resize(n);
    for (float &v : init) v = rand_int1000();
    x = dev_alloc<float>(n);
    CUDA_CHECK(cudaMemcpy(x, init.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  }
  void run() {
    void *args[] = {&x};
    for (int k = 0; k < kHundredKernels; ++k)
      CUDA_CHECK(cudaLaunchKernel((const void *)fn[k], dim3(kDistinctSlice / 256), dim3(256), args, 0, nullptr));
  }
  void verify() {
    const int n = kHundredKernels * kDistinctSlice;
    std::vector<float> got(n);
    CUDA_CHECK(cudaMemcpy(got.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int k = 0; k < kHundredKernels; ++k)
      for (int i = k * kDistinctSlice; i < (k + 1) * kDistinctSlice; ++i)
        if (got[i] != init[i] + (float)(k + 1)) mismatch("hundred.x", (size_t)i, got[i], init[i] + (float)(k + 1));
    CUDA_CHECK(cudaFree(x));
  }
};

// -- mystery: kernels/mystery.cu's four launches (A; B; C with the dynamic
// shared memory that leaves one block per SM, 116736 B on an H200; C with
// none), each into its own poisoned output, checked at every element.
struct Mystery {
  const MysteryKernel kind[4] = {kMysteryA, kMysteryB, kMysteryC, kMysteryC};
  size_t smem[4] = {0, 0, 0, 0};
  float *d_in = nullptr;
  float *d_out[4] = {nullptr, nullptr, nullptr, nullptr};
  void launch_all() {
    for (int k = 0; k < 4; ++k) CUDA_CHECK(launchMystery(kind[k], d_in, d_out[k], smem[k]));
  }
  void setup() {
    CUDA_CHECK(kReserveOneBlockPerSm(mysteryFunc(kMysteryC), kMysteryBlock, &smem[2]));
    const std::vector<float> in = mysteryInputs();
    d_in = dev_alloc<float>(kMysteryN);
    CUDA_CHECK(cudaMemcpy(d_in, in.data(), kMysteryN * sizeof(float), cudaMemcpyHostToDevice));
    for (float *&o : d_out) o = dev_alloc<float>(kMysteryN);
    launch_all();  // warm-up: one of each
    CUDA_CHECK(cudaDeviceSynchronize());
    for (float *o : d_out) poison(o, kMysteryN * sizeof(float));
  }
  void verify() {
    std::vector<float> got(kMysteryN);
    static const char *names[4] = {"mysteryA.out", "mysteryB.out", "mysteryC(one block/SM).out", "mysteryC(0 B).out"};
    std::vector<float> ref;
    for (int k = 0; k < 4; ++k) {
      if (k < 3) ref = mysteryReference(kind[k]);  // launches 2 and 3 share mysteryC's reference
      CUDA_CHECK(cudaMemcpy(got.data(), d_out[k], kMysteryN * sizeof(float), cudaMemcpyDeviceToHost));
      for (size_t i = 0; i < kMysteryN; ++i)
        if (!close_enough(got[i], ref[i], 1e-6f)) mismatch(names[k], i, got[i], ref[i]);
    }
    CUDA_CHECK(cudaFree(d_in));
    for (float *o : d_out) CUDA_CHECK(cudaFree(o));
  }
};

// -- fifty: 10 rounds of 5 kernels.
constexpr int kFiftyN = 1 << 20;
constexpr int kFiftyKernels = 5;
constexpr int kFiftyIters = 16;
constexpr float kAxpyA = 1.75f;
struct Fifty {
  std::vector<float> x, y, cinit;
  float *d_x = nullptr, *d_y = nullptr, *d_c = nullptr, *d_axpy = nullptr, *d_gather = nullptr,
        *d_sums = nullptr, *d_div = nullptr;
  void launch(int k) {
    const int g = kFiftyN / 256, b = 256;
    switch (k) {
      case 0: fifty_inc<<<g, b>>>(d_c, kFiftyN); break;
      case 1: fifty_axpy<<<g, b>>>(d_x, d_y, d_axpy, kAxpyA, kFiftyN); break;
      case 2: fifty_gather<<<g, b>>>(d_x, d_gather, kFiftyN); break;
      case 3: fifty_reduce<<<kFiftyN / kReduceBlock, kReduceBlock>>>(d_x, d_sums, kFiftyN); break;
      default: fifty_diverge<<<g, b>>>(d_x, d_div, kFiftyN, kFiftyIters); break;
    }
  }
  void setup() {
    x.resize(kFiftyN);
    y.resize(kFiftyN);
    cinit.resize(kFiftyN);
    for (int i = 0; i < kFiftyN; ++i) {
      x[i] = rand_unit();
      y[i] = rand_unit();
      cinit[i] = rand_int1000();
    }
    d_x = dev_alloc<float>(kFiftyN);
    d_y = dev_alloc<float>(kFiftyN);
    d_c = dev_alloc<float>(kFiftyN);
    d_axpy = dev_alloc<float>(kFiftyN);
    d_gather = dev_alloc<float>(kFiftyN);
    d_sums = dev_alloc<float>(kFiftyN / kReduceBlock);
    d_div = dev_alloc<float>(kFiftyN);
    CUDA_CHECK(cudaMemcpy(d_x, x.data(), kFiftyN * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_y, y.data(), kFiftyN * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_c, cinit.data(), kFiftyN * sizeof(float), cudaMemcpyHostToDevice));
    for (int k = 0; k < kFiftyKernels; ++k) launch(k);  // warm-up: one of each
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    poison(d_axpy, kFiftyN * sizeof(float));
    poison(d_gather, kFiftyN * sizeof(float));
    poison(d_sums, kFiftyN / kReduceBlock * sizeof(float));
    poison(d_div, kFiftyN * sizeof(float));
  }
  void run(long launches) {
    for (long j = 0; j < launches; ++j) launch((int)(j % kFiftyKernels));
  }
  void verify(long launches) {
    std::vector<float> got(kFiftyN);
    long inc_times = 1 + launches / kFiftyKernels + ((launches % kFiftyKernels) > 0 ? 1 : 0);
    CUDA_CHECK(cudaMemcpy(got.data(), d_c, kFiftyN * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < kFiftyN; ++i)
      if (got[i] != cinit[i] + (float)inc_times) mismatch("fifty_inc", (size_t)i, got[i], cinit[i] + (float)inc_times);
    CUDA_CHECK(cudaMemcpy(got.data(), d_axpy, kFiftyN * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < kFiftyN; ++i) {
      float want = fmaf(kAxpyA, x[i], y[i]);
      if (!close_enough(got[i], want, 1e-6f)) mismatch("fifty_axpy", (size_t)i, got[i], want);
    }
    CUDA_CHECK(cudaMemcpy(got.data(), d_gather, kFiftyN * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < kFiftyN; ++i) {
      float want = x[((unsigned)i * (unsigned)kGatherStride) & (unsigned)(kFiftyN - 1)];
      if (got[i] != want) mismatch("fifty_gather", (size_t)i, got[i], want);
    }
    const int nb = kFiftyN / kReduceBlock;
    CUDA_CHECK(cudaMemcpy(got.data(), d_sums, nb * sizeof(float), cudaMemcpyDeviceToHost));
    for (int blk = 0; blk < nb; ++blk) {
      double want = 0.0;
      for (int t = 0; t < kReduceBlock; ++t) want += x[blk * kReduceBlock + t];
      if (!close_enough(got[blk], (float)want, 1e-5f)) mismatch("fifty_reduce", (size_t)blk, got[blk], want);
    }
    CUDA_CHECK(cudaMemcpy(got.data(), d_div, kFiftyN * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < kFiftyN; ++i) {
      if (!(got[i] == got[i])) mismatch("fifty_diverge (unwritten)", (size_t)i, got[i], 0.0);
      if (i % 3 != 0 && i != kFiftyN - 1) continue;  // the CPU reference for a third is enough
      float want = (i & 1) ? run_chains(x[i], kMulB, kAddB, kFiftyIters) : run_chains(x[i], kMulA, kAddA, kFiftyIters);
      if (!close_enough(got[i], want, 1e-5f)) mismatch("fifty_diverge", (size_t)i, got[i], want);
    }
    for (float *p : {d_x, d_y, d_c, d_axpy, d_gather, d_sums, d_div}) CUDA_CHECK(cudaFree(p));
  }
};

// ---- perfcheck report figures ----------------------------------------------

struct ReportFigures {
  bool region_found = false;
  uint64_t region_launches = 0;
  uint64_t dropped = 0;
  double region_wall_ms = NAN, kernel_ms = NAN;
  size_t kernel_entries = 0;
  uint64_t kernel_launches = 0;  // sum over the region's kernel entries
  size_t with_counters = 0;      // entries with at least one counter-derived value
};

static ReportFigures read_report(perfcheck_session *s) {
  ReportFigures f;
  const perfcheck_report *r = nullptr;
  pc_check(perfcheck_session_report(s, &r), "perfcheck_session_report");
  for (size_t i = 0; i < perfcheck_report_region_count(r); ++i) {
    perfcheck_region_info ri;
    memset(&ri, 0, sizeof ri);
    ri.size = sizeof ri;
    if (perfcheck_report_region(r, i, &ri) != PERFCHECK_OK || !ri.name || strcmp(ri.name, "bench") != 0) continue;
    f.region_found = true;
    f.region_launches = ri.launches;
    f.dropped = ri.dropped_records;
    f.region_wall_ms = ri.wall_ns / 1e6;
    f.kernel_ms = ri.kernel_ns / 1e6;
  }
  for (size_t i = 0; i < perfcheck_report_kernel_count(r); ++i) {
    perfcheck_kernel_info ki;
    memset(&ki, 0, sizeof ki);
    ki.size = sizeof ki;
    if (perfcheck_report_kernel(r, i, &ki) != PERFCHECK_OK) continue;
    if (!ki.region || strcmp(ki.region, "bench") != 0) continue;
    ++f.kernel_entries;
    f.kernel_launches += ki.launches;
    if (!std::isnan(ki.achieved_occupancy_pct) || !std::isnan(ki.threads_per_instruction) ||
        !std::isnan(ki.sectors_per_request_ld) || !std::isnan(ki.sectors_per_request_st))
      ++f.with_counters;
  }
  return f;
}

// ---- subcommands ------------------------------------------------------------

static int usage() {
  fprintf(stderr,
          "usage: bench_launches plain|timing|counters-default|counters-sol WORKLOAD [--json PATH]\n"
          "       bench_launches info WORKLOAD | metric-list SET | passes SET | env\n"
          "WORKLOAD: tiny bound million distinct distinct20 mystery fifty hundred\n");
  return 64;
}

static int cmd_env() {
  int dev = 0, rt = 0, drv = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  cudaDeviceProp p;
  CUDA_CHECK(cudaGetDeviceProperties(&p, dev));
  CUDA_CHECK(cudaRuntimeGetVersion(&rt));
  CUDA_CHECK(cudaDriverGetVersion(&drv));
  printf("ENV device=\"%s\" cc=%d.%d sms=%d cuda_runtime=%d.%d cuda_driver_api=%d.%d perfcheck=%s\n", p.name, p.major,
         p.minor, p.multiProcessorCount, rt / 1000, (rt % 1000) / 10, drv / 1000, (drv % 1000) / 10,
         perfcheck_version_string());
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) return usage();
  const std::string cmd = argv[1];
  if (cmd == "env") return cmd_env();
  if (argc < 3) return usage();
  if (cmd == "metric-list") {
    const char *list = perfcheck_metric_list(argv[2]);
    if (!list) {
      fprintf(stderr, "bench_launches: unknown metric set '%s'\n", argv[2]);
      return 3;
    }
    printf("%s\n", list);
    return 0;
  }
  if (cmd == "passes") {
    int passes = 0;
    perfcheck_status st = perfcheck_metric_passes(argv[2], nullptr, &passes);
    if (st != PERFCHECK_OK) {
      fprintf(stderr, "bench_launches: perfcheck_metric_passes(%s): %s (%s)\n", argv[2], perfcheck_strerror(st),
              perfcheck_last_error_message());
      return 3;
    }
    printf("PASSES set=%s passes=%d\n", argv[2], passes);
    return 0;
  }
  const Workload *w = find_workload(argv[2]);
  if (!w) return usage();
  if (cmd == "info") {
    printf("INFO workload=%s warmups=%d pre_launches=%d launches=%ld\n", w->name, w->warmups, w->warmups + 1,
           w->launches);
    return 0;
  }

  perfcheck_mode pmode = PERFCHECK_MODE_TIMING;
  const char *metrics = nullptr;
  bool use_pc = true;
  if (cmd == "plain") {
    use_pc = false;
  } else if (cmd == "timing") {
    pmode = PERFCHECK_MODE_TIMING;
  } else if (cmd == "counters-default") {
    pmode = PERFCHECK_MODE_COUNTERS;
    metrics = "default";
  } else if (cmd == "counters-sol") {
    pmode = PERFCHECK_MODE_COUNTERS;
    metrics = "sol";
  } else {
    return usage();
  }
  const char *json_path = nullptr;
  for (int i = 3; i < argc; ++i) {
    if (strcmp(argv[i], "--json") == 0 && i + 1 < argc) {
      json_path = argv[++i];
    } else {
      return usage();
    }
  }

  const uint64_t seed = (uint64_t)time(nullptr) ^ ((uint64_t)getpid() << 32);
  g_rng = seed;
  const std::string wl = w->name;

  // Setup: context, inputs, one warm-up launch of each kernel.  Untimed.
  CUDA_CHECK(cudaFree(nullptr));
  float *scratch = dev_alloc<float>(1);
  Tiny tiny;
  Bound bound;
  Distinct distinct;
  Mystery mystery;
  Fifty fifty;
  Hundred hundred;
  if (wl == "tiny" || wl == "million") tiny.setup();
  else if (wl == "bound") bound.setup();
  else if (wl == "distinct" || wl == "distinct20") distinct.setup();
  else if (wl == "mystery") mystery.setup();
  else if (wl == "hundred") hundred.setup();
  else fifty.setup();
  CUDA_CHECK(cudaDeviceSynchronize());

  perfcheck_session *s = nullptr;
  double create_ms = NAN;
  if (use_pc) {
    perfcheck_options o;
    perfcheck_options_init(&o);
    o.mode = pmode;
    o.metrics = metrics;
    double c0 = now_ms();
    pc_check(perfcheck_session_create(&o, &s), "perfcheck_session_create");
    create_ms = now_ms() - c0;
    const char *note = perfcheck_session_message(s);
    if (note && *note) fprintf(stderr, "bench_launches: NOTE (session): %s\n", note);
  }
  prime_kernel<<<1, 32>>>(scratch);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());

  // The timed part.
  const double rss_before = status_mib("VmRSS");
  const double t0 = now_ms();
  if (use_pc) pc_check(perfcheck_session_begin(s, "bench"), "perfcheck_session_begin");
  if (wl == "tiny" || wl == "million") tiny.run(w->launches);
  else if (wl == "bound") bound.run(w->launches);
  else if (wl == "distinct" || wl == "distinct20") distinct.run(w->launches);
  else if (wl == "mystery") mystery.launch_all();
  else if (wl == "hundred") hundred.run();
  else fifty.run(w->launches);
  CUDA_CHECK(cudaDeviceSynchronize());
  double end_ms = NAN;
  if (use_pc) {
    double e0 = now_ms();
    pc_check(perfcheck_session_end(s), "perfcheck_session_end");
    end_ms = now_ms() - e0;
  }
  const double t1 = now_ms();
  const double rss_after = status_mib("VmRSS");
  const double hwm_after = status_mib("VmHWM");
  CUDA_CHECK(cudaGetLastError());  // sticky until read: catches a failed launch in the loop

  ReportFigures fig;
  if (use_pc) {
    fig = read_report(s);
    const char *note = perfcheck_session_message(s);
    if (note && *note) fprintf(stderr, "bench_launches: NOTE (after end): %s\n", note);
    if (json_path) {
      FILE *jf = fopen(json_path, "w");
      if (!jf) {
        fprintf(stderr, "bench_launches: cannot write %s: %s\n", json_path, strerror(errno));
      } else {
        const perfcheck_report *r = nullptr;
        perfcheck_status st = perfcheck_session_report(s, &r);
        if (st == PERFCHECK_OK) st = perfcheck_report_write(r, PERFCHECK_FORMAT_JSON, jf);
        if (fclose(jf) != 0 && st == PERFCHECK_OK) st = PERFCHECK_ERROR_IO;
        if (st != PERFCHECK_OK)  // the figures stand without the JSON copy: say so, go on
          fprintf(stderr, "bench_launches: writing %s: %s (%s)\n", json_path, perfcheck_strerror(st),
                  perfcheck_last_error_message());
      }
    }
  }

  // Verify (untimed).
  float prime_value = 0.0f;
  CUDA_CHECK(cudaMemcpy(&prime_value, scratch, sizeof prime_value, cudaMemcpyDeviceToHost));
  if (prime_value != 42.0f) mismatch("prime", 0, prime_value, 42.0);
  if (wl == "tiny" || wl == "million") tiny.verify(w->launches);
  else if (wl == "bound") bound.verify();
  else if (wl == "distinct" || wl == "distinct20") distinct.verify(w->launches);
  else if (wl == "mystery") mystery.verify();
  else if (wl == "hundred") hundred.verify();
  else fifty.verify(w->launches);
  CUDA_CHECK(cudaFree(scratch));

  double destroy_ms = NAN;
  if (use_pc) {
    double d0 = now_ms();
    perfcheck_session_destroy(s);
    destroy_ms = now_ms() - d0;
  }

  printf("RESULT mode=%s workload=%s wall_ms=%.3f launches_expected=%ld", cmd.c_str(), wl.c_str(), t1 - t0,
         w->launches);
  if (!std::isnan(rss_before) && !std::isnan(rss_after))
    printf(" rss_before_mib=%.1f rss_after_mib=%.1f rss_growth_mib=%.1f", rss_before, rss_after,
           rss_after - rss_before);
  // The peak inside the region, as an upper bound: VmHWM after end - VmRSS before begin
  // (exact when the region set a new peak, which a leak or a growing buffer does).
  if (!std::isnan(rss_before) && !std::isnan(hwm_after))
    printf(" peak_growth_mib=%.1f", hwm_after - rss_before);
  if (use_pc) {
    printf(" create_ms=%.3f end_ms=%.3f destroy_ms=%.3f", create_ms, end_ms, destroy_ms);
    if (fig.region_found) {
      printf(" launches_counted=%llu dropped_records=%llu", (unsigned long long)fig.region_launches,
             (unsigned long long)fig.dropped);
      if (!std::isnan(fig.region_wall_ms)) printf(" pc_region_wall_ms=%.3f", fig.region_wall_ms);
      if (!std::isnan(fig.kernel_ms)) printf(" pc_kernel_ms=%.3f", fig.kernel_ms);
    } else {
      fprintf(stderr, "bench_launches: the report has no region named \"bench\"\n");
    }
    printf(" kernel_entries=%zu kernel_launches=%llu entries_with_counters=%zu", fig.kernel_entries,
           (unsigned long long)fig.kernel_launches, fig.with_counters);
  }
  printf(" seed=%llu verified=%s\n", (unsigned long long)seed, g_errors ? "no" : "yes");
  if (g_errors) {
    fprintf(stderr, "bench_launches: %d wrong values in %s/%s\n", g_errors, cmd.c_str(), wl.c_str());
    return 1;
  }
  return 0;
}
