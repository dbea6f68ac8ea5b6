// advice.h: what every pair of the "advice that pays" corpus shares: the
// Pair interface the driver runs, the registry that maps a manifest id
// (pairs.tsv) to its code, device buffers, deterministic inputs that the
// host can recompute element by element, and the host-side checks.
//
// A pair is an original kernel and the same kernel with one named change.
// The driver (advice.cu) runs every pair the same way: setup() once; per
// variant poison(), prepare(), launch(), a synchronize and check(); then the
// timed launches (prepare() untimed, launch() between two events).  Errors
// are returned, never fatal: a failing pair is reported and the run goes on.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace advice {

enum { kOrig = 0, kChanged = 1 };

// Inside a function returning cudaError_t: return the first failure.
#define ADV_TRY(call)                        \
  do {                                       \
    const cudaError_t adv_e_ = (call);       \
    if (adv_e_ != cudaSuccess) return adv_e_; \
  } while (0)

// The kernel a variant launches and its shape, for the attribute columns of
// `advice --time` (registers, local memory, blocks per SM, occupancy).
// func == nullptr: a library call or several kernels (no columns); a pair of
// library calls may name the one kernel its change is about (cub_sort: the
// Onesweep kernel, launched once per digit) with that kernel's grid.
struct Shape {
  const void* func = nullptr;
  unsigned block = 0;
  size_t dynSmem = 0;
  unsigned long long grid = 0;
};

class Pair {
 public:
  virtual ~Pair() = default;
  // Allocates and fills the inputs (on the device; outside every timing and
  // NVTX range).
  virtual cudaError_t setup() = 0;
  // Fills the outputs of variant v with a pattern no correct run leaves
  // (0xFF bytes: NaN for floats), before the checked launch.
  virtual cudaError_t poison(int v) = 0;
  // Untimed work before each launch of v (zero an accumulator); default none.
  virtual cudaError_t prepare(int v) {
    (void)v;
    return cudaSuccess;
  }
  // The measured work of v: one kernel launch or one library call, on the
  // default stream, asynchronous.
  virtual cudaError_t launch(int v) = 0;
  // After launch(v) and a synchronize: true when the output is right; else
  // `why` names the first failing index with the value found and expected.
  virtual bool check(int v, std::string& why) = 0;
  virtual Shape shape(int v) const {
    (void)v;
    return Shape{};
  }
  // A line of what setup measured that the pair's premise rests on (the
  // reservation that leaves one block per SM, the block size the occupancy
  // API chose); empty when none.
  virtual std::string note() const { return std::string(); }
};

using Factory = std::unique_ptr<Pair> (*)();
struct Impl {
  const char* id;
  Factory make;
};
inline std::vector<Impl>& registry() {
  static std::vector<Impl> r;
  return r;
}
struct Registrar {
  Registrar(const char* id, Factory f) { registry().push_back({id, f}); }
};
// ADVICE_PAIR(id, Class): Class implements the manifest row `id`.
#define ADVICE_PAIR(id, cls)                                                                         \
  static const ::advice::Registrar adv_reg_##cls(id, []() -> std::unique_ptr<::advice::Pair> { \
    return std::unique_ptr<::advice::Pair>(new cls());                                             \
  })

// ---- device buffers ------------------------------------------------------------
template <class T>
class DevBuf {
 public:
  DevBuf() = default;
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  ~DevBuf() {
    if (p_) cudaFree(p_);
  }
  cudaError_t alloc(size_t n) {
    if (p_) cudaFree(p_);
    p_ = nullptr;
    n_ = n;
    return cudaMalloc(reinterpret_cast<void**>(&p_), n * sizeof(T));
  }
  T* get() const { return p_; }
  size_t size() const { return n_; }
  size_t bytes() const { return n_ * sizeof(T); }
  cudaError_t poison() const { return cudaMemset(p_, 0xFF, bytes()); }
  cudaError_t zero() const { return cudaMemset(p_, 0, bytes()); }
  cudaError_t toHost(std::vector<T>& h) const {
    h.resize(n_);
    return cudaMemcpy(h.data(), p_, bytes(), cudaMemcpyDeviceToHost);
  }

 private:
  T* p_ = nullptr;
  size_t n_ = 0;
};

// ---- deterministic inputs ---------------------------------------------------------
// splitmix64's finalizer: a well-mixed 32-bit value of (index, seed), the same
// on host and device, so a check recomputes any input without copying it.
__host__ __device__ inline uint32_t hash32(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  x ^= x >> 31;
  return static_cast<uint32_t>(x >> 32);
}
__host__ __device__ inline uint32_t hashAt(size_t i, uint32_t seed) {
  return hash32(static_cast<uint64_t>(i) * 0x2545F4914F6CDD1Dull + seed);
}

// Small integers lo .. lo + count - 1 as floats: sums of them are exact in any
// order (as long as they stay below 2^24), so a check can be bit-exact.
struct GenSmallInt {
  uint32_t seed;
  int lo, count;
  __host__ __device__ float operator()(size_t i) const {
    return static_cast<float>(lo + static_cast<int>(hashAt(i, seed) % static_cast<uint32_t>(count)));
  }
};
// Uniform in [lo, lo + span), 24 random bits.  The arithmetic is written so
// that host and device round alike: u is exact (a 24-bit integer times a
// power of two) and the one rounding is an explicit fmaf.  Written as
// lo + span * u, nvcc would fuse it on the device and the host would not,
// and a check that regenerates inputs could be one ulp off.
__host__ __device__ inline float uniform24(uint32_t h, float lo, float span) {
  const float u = static_cast<float>(h >> 8) * (1.0f / 16777216.0f);
  return fmaf(span, u, lo);
}
struct GenUniform {
  uint32_t seed;
  float lo, span;
  __host__ __device__ float operator()(size_t i) const { return uniform24(hashAt(i, seed), lo, span); }
};
struct GenU32 {
  uint32_t seed;
  __host__ __device__ uint32_t operator()(size_t i) const { return hashAt(i, seed); }
};
struct GenU8 {
  uint32_t seed;
  __host__ __device__ uint8_t operator()(size_t i) const { return static_cast<uint8_t>(hashAt(i, seed) >> 24); }
};

template <class T, class G>
__global__ void advFillKernel(T* __restrict__ p, size_t n, G g) {
  const size_t step = gridDim.x * static_cast<size_t>(blockDim.x);
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += step) p[i] = g(i);
}
// p[i] = g(i) for every i < n, on the device.
template <class T, class G>
cudaError_t fill(T* p, size_t n, G g) {
  advFillKernel<<<1024, 256>>>(p, n, g);
  return cudaGetLastError();
}

// ---- occupancy helpers -----------------------------------------------------------------
// Blocks of `block` threads (and dynSmem bytes) the driver fits on one SM.
inline cudaError_t blocksPerSm(const void* func, int block, size_t dynSmem, int* out) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(out, func, block, dynSmem);
}
inline int smCount() {
  int dev = 0, n = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) return 0;
  if (cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) return 0;
  return n;
}
// A persistent grid: as many blocks as fit on all SMs at once.
inline cudaError_t residentGrid(const void* func, int block, size_t dynSmem, unsigned* grid) {
  int b = 0;
  ADV_TRY(blocksPerSm(func, block, dynSmem, &b));
  const int sms = smCount();
  if (b < 1 || sms < 1) return cudaErrorInvalidConfiguration;
  *grid = static_cast<unsigned>(b * sms);
  return cudaSuccess;
}

// ---- host-side checks ----------------------------------------------------------------------
// f(begin, end) over [0, n) in parallel chunks on the host's cores.
template <class F>
void parallelFor(size_t n, F&& f) {
  unsigned t = std::thread::hardware_concurrency();
  if (t == 0) t = 1;
  if (t > 32) t = 32;
  if (n < (1u << 16)) t = 1;
  const size_t chunk = (n + t - 1) / t;
  std::vector<std::thread> pool;
  for (unsigned k = 1; k < t; ++k) {
    const size_t b = k * chunk, e = std::min(n, b + chunk);
    if (b < e) pool.emplace_back([&f, b, e] { f(b, e); });
  }
  f(0, std::min(n, chunk));
  for (std::thread& th : pool) th.join();
}

inline std::string fmtValue(float v) {
  char b[64];
  uint32_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  std::snprintf(b, sizeof b, "%.9g (bits 0x%08x)", static_cast<double>(v), bits);
  return b;
}
inline std::string fmtValue(double v) {
  char b[48];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}
template <class T>
inline std::string fmtValue(T v) {
  return std::to_string(static_cast<unsigned long long>(v));
}

// Compares got[i] with want(i) at every `stride`-th index (and the last one):
// exactly when atol == rtol == 0 (a NaN never passes), else within
// atol + rtol * |want|.  On failure `why` names the smallest failing index
// and both values.
template <class T, class W>
bool checkEach(const char* what, const std::vector<T>& got, W&& want, double atol, double rtol, size_t stride,
               std::string& why) {
  const size_t n = got.size();
  if (stride < 1) stride = 1;
  std::atomic<size_t> bad{SIZE_MAX};
  const size_t steps = n == 0 ? 0 : (n - 1) / stride + 1;
  parallelFor(steps, [&](size_t b, size_t e) {
    for (size_t s = b; s < e && s * stride < bad.load(std::memory_order_relaxed); ++s) {
      const size_t i = s * stride;
      const T w = want(i);
      bool ok;
      if (atol == 0.0 && rtol == 0.0) {
        ok = std::memcmp(&got[i], &w, sizeof(T)) == 0;
      } else {
        const double g = static_cast<double>(got[i]), x = static_cast<double>(w);
        ok = std::fabs(g - x) <= atol + rtol * std::fabs(x);
      }
      if (!ok) {
        size_t cur = bad.load();
        while (i < cur && !bad.compare_exchange_weak(cur, i)) {
        }
        return;
      }
    }
  });
  if (n > 0 && bad.load() == SIZE_MAX && (n - 1) % stride != 0) {  // the last element too
    const size_t i = n - 1;
    const T w = want(i);
    const double g = static_cast<double>(got[i]), x = static_cast<double>(w);
    const bool ok = (atol == 0.0 && rtol == 0.0) ? std::memcmp(&got[i], &w, sizeof(T)) == 0
                                                   : std::fabs(g - x) <= atol + rtol * std::fabs(x);
    if (!ok) bad = i;
  }
  const size_t i = bad.load();
  if (i == SIZE_MAX) return true;
  why = std::string(what) + ": index " + std::to_string(i) + " of " + std::to_string(n) + ": got " +
        fmtValue(got[i]) + ", want " + fmtValue(want(i));
  return false;
}

// Copies a device buffer to the host and checks it with checkEach.
template <class T, class W>
bool checkDevice(const char* what, const DevBuf<T>& buf, W&& want, double atol, double rtol, size_t stride,
                 std::string& why) {
  std::vector<T> h;
  const cudaError_t e = buf.toHost(h);
  if (e != cudaSuccess) {
    why = std::string(what) + ": copy to the host failed: " + cudaGetErrorString(e);
    return false;
  }
  return checkEach(what, h, want, atol, rtol, stride, why);
}

}  // namespace advice
