// kcommon.cuh: helpers shared by the reference programs in kernels/ (and
// usable from the GPU tests): a checked-call macro for programs, argument
// parsing, poisoning, comparison, event timing, launch attributes and the
// dynamic shared memory reservation that leaves room for one block per SM.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

// Programs only: print the failing call and leave with EXIT_FAILURE.
#define KCHECK(call) kcheck_((call), #call, __FILE__, __LINE__)
inline void kcheck_(cudaError_t e, const char* what, const char* file, int line) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "FAIL %s:%d: %s: %s (%s)\n", file, line, what, cudaGetErrorName(e),
                 cudaGetErrorString(e));
    std::exit(EXIT_FAILURE);
  }
}

// Accepts no argument or `--profile`; anything else is a usage error.
// --profile: run only the checked launches (one of each configuration), so
// that `ncu --launch-count N` or a perfcheck region sees exactly them.
inline bool kParseProfileFlag(int argc, char** argv) {
  if (argc == 1) return false;
  if (argc == 2 && std::strcmp(argv[1], "--profile") == 0) return true;
  std::fprintf(stderr, "usage: %s [--profile]\n", argv[0]);
  std::exit(EXIT_FAILURE);
}

// Fills a device buffer with 0xFF bytes: a NaN for a float, 0xFFFFFFFF for an
// unsigned, so an element a kernel forgets to write fails the comparison.
inline cudaError_t kPoison(void* p, size_t bytes) { return cudaMemset(p, 0xFF, bytes); }

// Compares every element; |got - want| <= rtol * |want| (rtol 0: bit-equal
// values, and NaN never passes).  Prints the first mismatch.
inline bool kCheckFloats(const char* what, const float* got, const float* want, size_t n,
                         float rtol) {
  for (size_t i = 0; i < n; ++i) {
    if (!(std::fabs(got[i] - want[i]) <= rtol * std::fabs(want[i]))) {
      uint32_t bits = 0;
      std::memcpy(&bits, &got[i], sizeof bits);
      std::fprintf(stderr, "FAIL %s: index %zu: got %.9g (bits 0x%08x), want %.9g\n", what, i,
                   static_cast<double>(got[i]), bits, static_cast<double>(want[i]));
      return false;
    }
  }
  return true;
}

// Median of `runs` event-timed calls of enqueue() on `stream`, in ms, after
// `warmups` untimed calls.  enqueue() returns the launch's cudaError_t.
// Exits on a CUDA failure or a non-positive time (the time is a denominator).
template <class F>
float kMedianMs(F&& enqueue, cudaStream_t stream = 0, int warmups = 3, int runs = 11) {
  cudaEvent_t start, stop;
  KCHECK(cudaEventCreate(&start));
  KCHECK(cudaEventCreate(&stop));
  for (int w = 0; w < warmups; ++w) KCHECK(enqueue());
  KCHECK(cudaStreamSynchronize(stream));
  std::vector<float> ms(static_cast<size_t>(runs));
  for (float& t : ms) {
    KCHECK(cudaEventRecord(start, stream));
    KCHECK(enqueue());
    KCHECK(cudaEventRecord(stop, stream));
    KCHECK(cudaEventSynchronize(stop));
    KCHECK(cudaEventElapsedTime(&t, start, stop));
  }
  KCHECK(cudaEventDestroy(start));
  KCHECK(cudaEventDestroy(stop));
  std::sort(ms.begin(), ms.end());
  const size_t mid = ms.size() / 2;
  const float median = ms.size() % 2 ? ms[mid] : 0.5f * (ms[mid - 1] + ms[mid]);
  if (!(median > 0.0f)) {
    std::fprintf(stderr, "FAIL: a median time of %g ms cannot be a denominator\n",
                 static_cast<double>(median));
    std::exit(EXIT_FAILURE);
  }
  return median;
}

// What the launch configuration alone decides (seed 000, Part 1), from the
// driver: cudaFuncGetAttributes and the occupancy calculator.
struct KLaunchAttrs {
  int regs;           // registers per thread
  size_t staticSmem;  // static shared memory per block, bytes
  int blocksPerSm;    // the driver's occupancy answer
  int warpsPerSm;     // blocksPerSm * warps per block
  int maxWarpsPerSm;  // the device's warp slots per SM
  double occPct;      // theoretical occupancy, percent
};

inline cudaError_t kLaunchAttrs(const void* func, int blockThreads, size_t dynSmem,
                                KLaunchAttrs* out) {
  int dev = 0, maxThreads = 0, warp = 0;
  cudaError_t e = cudaGetDevice(&dev);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&maxThreads, cudaDevAttrMaxThreadsPerMultiProcessor, dev);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, dev);
  cudaFuncAttributes fa;
  if (e == cudaSuccess) e = cudaFuncGetAttributes(&fa, func);
  int blocks = 0;
  if (e == cudaSuccess) e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, func, blockThreads, dynSmem);
  if (e != cudaSuccess) return e;
  if (warp <= 0 || maxThreads < warp) return cudaErrorInvalidValue;
  out->regs = fa.numRegs;
  out->staticSmem = fa.sharedSizeBytes;
  out->blocksPerSm = blocks;
  out->warpsPerSm = blocks * ((blockThreads + warp - 1) / warp);
  out->maxWarpsPerSm = maxThreads / warp;
  out->occPct = 100.0 * out->warpsPerSm / out->maxWarpsPerSm;
  return cudaSuccess;
}

// The dynamic shared memory request that lets exactly one block of `func`
// reside per SM on the current device: the smallest whole KiB for which two
// blocks (request + static shared memory + the per-block reservation each)
// no longer fit in the SM's shared memory.  On an H200 that is 116736 B
// (114 KiB), above the 48 KiB default, so the function's dynamic limit is
// raised first.  The occupancy calculator must then answer exactly 1.
// Returns cudaSuccess with *bytes set, a CUDA error, or
// cudaErrorInvalidConfiguration (with a printed reason) when the device
// cannot be brought to exactly one block.
inline cudaError_t kReserveOneBlockPerSm(const void* func, int blockThreads, size_t* bytes) {
  int dev = 0;
  cudaError_t e = cudaGetDevice(&dev);
  cudaDeviceProp prop;
  if (e == cudaSuccess) e = cudaGetDeviceProperties(&prop, dev);
  cudaFuncAttributes fa;
  if (e == cudaSuccess) e = cudaFuncGetAttributes(&fa, func);
  if (e != cudaSuccess) return e;
  const size_t perSm = prop.sharedMemPerMultiprocessor;
  const size_t fixed = fa.sharedSizeBytes + prop.reservedSharedMemPerBlock;
  const size_t half = perSm / 2 + 1;  // two blocks of this size overflow the SM
  size_t want = half > fixed ? half - fixed : 1;
  want = (want + 1023) / 1024 * 1024;
  const size_t maxDyn = prop.sharedMemPerBlockOptin > fa.sharedSizeBytes
                            ? prop.sharedMemPerBlockOptin - fa.sharedSizeBytes
                            : 0;
  if (want > maxDyn) {
    std::fprintf(stderr,
                 "FAIL: %zu B of dynamic shared memory needed for one block per SM exceeds "
                 "the %zu B a block may opt in to on %s\n",
                 want, maxDyn, prop.name);
    return cudaErrorInvalidConfiguration;
  }
  e = cudaFuncSetAttribute(func, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(want));
  int blocks = 0;
  if (e == cudaSuccess) e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, func, blockThreads, want);
  if (e != cudaSuccess) return e;
  if (blocks != 1) {
    std::fprintf(stderr,
                 "FAIL: with %zu B of dynamic shared memory the driver fits %d blocks of %d "
                 "threads per SM on %s, not exactly 1 (SM shared memory %zu B, reserved %zu B "
                 "per block, static %zu B)\n",
                 want, blocks, blockThreads, prop.name, perSm, prop.reservedSharedMemPerBlock,
                 fa.sharedSizeBytes);
    return cudaErrorInvalidConfiguration;
  }
  *bytes = want;
  return cudaSuccess;
}

// One line naming the device and the limits the tables depend on.
inline void kPrintDevice() {
  int dev = 0;
  KCHECK(cudaGetDevice(&dev));
  cudaDeviceProp p;
  KCHECK(cudaGetDeviceProperties(&p, dev));
  std::printf("device %d: %s, sm_%d%d, %d SMs, %d threads/SM, %d blocks/SM, %zu B shared/SM, "
              "%zu B opt-in/block, %zu B reserved/block\n",
              dev, p.name, p.major, p.minor, p.multiProcessorCount, p.maxThreadsPerMultiProcessor,
              p.maxBlocksPerMultiProcessor, p.sharedMemPerMultiprocessor, p.sharedMemPerBlockOptin,
              p.reservedSharedMemPerBlock);
}

// Programs that need a newer GPU than the one present (TMA, wgmma: sm_90)
// print one "skipped:" line with the reason and leave with 77, the exit
// status ctest and the GPU tests read as "skipped", rather than fail on a
// missing kernel image.
inline void kRequireComputeCapability(int major, int minor, const char* what) {
  int dev = 0;
  KCHECK(cudaGetDevice(&dev));
  cudaDeviceProp p;
  KCHECK(cudaGetDeviceProperties(&p, dev));
  if (p.major < major || (p.major == major && p.minor < minor)) {
    std::printf("skipped: %s needs compute capability %d.%d or newer; %s is %d.%d\n", what, major, minor,
                p.name, p.major, p.minor);
    std::exit(77);
  }
}

// Compares every element with want(i), bit for bit (the reference programs
// compute exactly representable values, so equality is the right test and a
// NaN never passes).  Prints the first mismatch with both values' bytes.
template <class T, class Want>
bool kCheckEach(const char* what, const T* got, size_t n, Want&& want) {
  for (size_t i = 0; i < n; ++i) {
    const T w = want(i);
    if (std::memcmp(&got[i], &w, sizeof(T)) != 0) {
      unsigned char gb[sizeof(T)], wb[sizeof(T)];
      std::memcpy(gb, &got[i], sizeof(T));
      std::memcpy(wb, &w, sizeof(T));
      std::fprintf(stderr, "FAIL %s: index %zu of %zu: got bytes", what, i, n);
      for (size_t b = 0; b < sizeof(T); ++b) std::fprintf(stderr, " %02x", gb[b]);
      std::fprintf(stderr, ", want");
      for (size_t b = 0; b < sizeof(T); ++b) std::fprintf(stderr, " %02x", wb[b]);
      std::fprintf(stderr, "\n");
      return false;
    }
  }
  return true;
}

// The number of blocks of `block` threads that covers n items.
inline unsigned kBlocksFor(size_t n, unsigned block) {
  const size_t b = (n + block - 1) / block;
  if (b > 0x7fffffffu) {
    std::fprintf(stderr, "FAIL: %zu blocks exceed the grid limit\n", b);
    std::exit(EXIT_FAILURE);
  }
  return static_cast<unsigned>(b);
}
