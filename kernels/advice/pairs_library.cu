// pairs_library.cu: library kernels with no edit of ours, listed as at_roof
// entries without a changed variant: cuBLAS GEMMs at the tensor roof (bf16,
// and fp32 through TF32) and CUB's DeviceReduce and DeviceRadixSort from the
// toolkit's CCCL.  Built with CCCL_DISABLE_NVTX (CMakeLists.txt) so that
// CUB's own NVTX ranges do not become the innermost region of its kernels.
#include "advice.h"

#include <cublas_v2.h>
#include <cuda_bf16.h>

#include <type_traits>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>

namespace advice {
namespace library {

// cuBLAS status to a CUDA error the driver can print, keeping cuBLAS's name.
inline cudaError_t fromCublas(cublasStatus_t s, std::string& last) {
  if (s == CUBLAS_STATUS_SUCCESS) return cudaSuccess;
  last = std::string("cuBLAS: ") + cublasGetStatusName(s) + ": " + cublasGetStatusString(s);
  std::fprintf(stderr, "advice: %s\n", last.c_str());
  return cudaErrorUnknown;
}

// C (M x N, fp32, column major) = A (M x K) B (K x N), small integers whose
// products sum exactly: A(i, q) repeats every 13 rows, B(q, j) every 9
// columns, so C(i, j) depends on (i mod 13, j mod 9) and the check compares
// every element with one of 117 dot products.
__host__ __device__ inline float libA(int i, int q) { return static_cast<float>((3 * i + 7 * q) % 13 - 6); }
__host__ __device__ inline float libB(int q, int j) { return static_cast<float>((5 * q + 11 * j) % 9 - 4); }
template <class T, int kRows, int kCols, bool kIsA>
struct GenColMajor {  // element e = r + c * kRows
  __host__ __device__ T operator()(size_t e) const {
    const int r = static_cast<int>(e % kRows), c = static_cast<int>(e / kRows);
    return static_cast<T>(kIsA ? libA(r, c) : libB(r, c));
  }
};
template <int kRows, int kCols, bool kIsA>
struct GenColMajorBf16 {
  __host__ __device__ __nv_bfloat16 operator()(size_t e) const {
    return __float2bfloat16(GenColMajor<float, kRows, kCols, kIsA>{}(e));
  }
};

template <int kM, int kN, int kK, bool kBf16>
class CublasGemm : public Pair {
  using In = typename std::conditional<kBf16, __nv_bfloat16, float>::type;
  cublasHandle_t h_ = nullptr;
  DevBuf<In> a_, b_;
  DevBuf<float> c_;
  std::vector<float> ref_;
  std::string last_;

 public:
  ~CublasGemm() override {
    if (h_) cublasDestroy(h_);
  }
  cudaError_t setup() override {
    ADV_TRY(fromCublas(cublasCreate(&h_), last_));
    ADV_TRY(a_.alloc(size_t(kM) * kK));
    ADV_TRY(b_.alloc(size_t(kK) * kN));
    ADV_TRY(c_.alloc(size_t(kM) * kN));
    if constexpr (kBf16) {
      ADV_TRY(fill(a_.get(), a_.size(), GenColMajorBf16<kM, kK, true>{}));
      ADV_TRY(fill(b_.get(), b_.size(), GenColMajorBf16<kK, kN, false>{}));
    } else {
      ADV_TRY(fill(a_.get(), a_.size(), GenColMajor<float, kM, kK, true>{}));
      ADV_TRY(fill(b_.get(), b_.size(), GenColMajor<float, kK, kN, false>{}));
    }
    ref_.assign(13 * 9, 0.0f);
    for (int i = 0; i < 13; ++i)
      for (int j = 0; j < 9; ++j) {
        double s = 0;
        for (int q = 0; q < kK; ++q) s += static_cast<double>(libA(i, q)) * libB(q, j);
        ref_[i * 9 + j] = static_cast<float>(s);
      }
    // One call outside every range and timing: cuBLAS's first call loads
    // its kernels and picks one.
    ADV_TRY(launch(kOrig));
    return cudaDeviceSynchronize();
  }
  cudaError_t poison(int) override { return c_.poison(); }
  cudaError_t launch(int v) override {
    if (v != kOrig) return cudaErrorNotSupported;
    const float alpha = 1.0f, beta = 0.0f;
    const cudaDataType_t t = kBf16 ? CUDA_R_16BF : CUDA_R_32F;
    const cublasComputeType_t ct = kBf16 ? CUBLAS_COMPUTE_32F : CUBLAS_COMPUTE_32F_FAST_TF32;
    return fromCublas(cublasGemmEx(h_, CUBLAS_OP_N, CUBLAS_OP_N, kM, kN, kK, &alpha, a_.get(), t, kM, b_.get(), t, kK,
                                   &beta, c_.get(), CUDA_R_32F, kM, ct, CUBLAS_GEMM_DEFAULT),
                      last_);
  }
  bool check(int, std::string& why) override {
    return checkDevice("c", c_, [&](size_t e) { return ref_[(e % kM) % 13 * 9 + (e / kM) % 9]; }, 0, 0, 1, why);
  }
};
class CublasBf16 : public CublasGemm<8192, 8192, 8192, true> {};
ADVICE_PAIR("cublas_bf16", CublasBf16);
class CublasTf32 : public CublasGemm<8192, 8192, 4096, false> {};
ADVICE_PAIR("cublas_tf32", CublasTf32);

// ---- CUB DeviceReduce::Sum over 256M ints (1 GiB) ---------------------------------------------------
constexpr int kCubReduceN = 256 << 20;
struct GenSmallU {
  __host__ __device__ int operator()(size_t i) const { return static_cast<int>(hashAt(i, 503) & 3u); }
};
class CubReduce : public Pair {
  DevBuf<int> in_, out_;
  DevBuf<unsigned char> temp_;
  size_t tempBytes_ = 0;

 public:
  cudaError_t setup() override {
    ADV_TRY(in_.alloc(kCubReduceN));
    ADV_TRY(out_.alloc(1));
    ADV_TRY(cub::DeviceReduce::Sum(nullptr, tempBytes_, in_.get(), out_.get(), kCubReduceN));
    ADV_TRY(temp_.alloc(tempBytes_ > 0 ? tempBytes_ : 1));
    return fill(in_.get(), kCubReduceN, GenSmallU{});
  }
  cudaError_t poison(int) override { return out_.poison(); }
  cudaError_t launch(int v) override {
    if (v != kOrig) return cudaErrorNotSupported;
    return cub::DeviceReduce::Sum(temp_.get(), tempBytes_, in_.get(), out_.get(), kCubReduceN);
  }
  bool check(int, std::string& why) override {
    std::atomic<long long> total{0};
    parallelFor(kCubReduceN, [&](size_t b, size_t e) {
      long long s = 0;
      for (size_t i = b; i < e; ++i) s += GenSmallU{}(i);
      total += s;
    });
    const int want = static_cast<int>(total.load());
    return checkDevice("sum", out_, [&](size_t) { return want; }, 0, 0, 1, why);
  }
};
ADVICE_PAIR("cub_reduce", CubReduce);

// ---- CUB DeviceRadixSort::SortKeys over 32M uint32 keys -------------------------------------------------
constexpr int kCubSortN = 32 << 20;
class CubSort : public Pair {
  DevBuf<uint32_t> in_, out_;
  DevBuf<unsigned char> temp_;
  size_t tempBytes_ = 0;
  const GenU32 g_{509};

 public:
  cudaError_t setup() override {
    ADV_TRY(in_.alloc(kCubSortN));
    ADV_TRY(out_.alloc(kCubSortN));
    ADV_TRY(cub::DeviceRadixSort::SortKeys(nullptr, tempBytes_, in_.get(), out_.get(), kCubSortN));
    ADV_TRY(temp_.alloc(tempBytes_ > 0 ? tempBytes_ : 1));
    return fill(in_.get(), kCubSortN, g_);
  }
  cudaError_t poison(int) override { return out_.poison(); }
  cudaError_t launch(int v) override {
    if (v != kOrig) return cudaErrorNotSupported;
    return cub::DeviceRadixSort::SortKeys(temp_.get(), tempBytes_, in_.get(), out_.get(), kCubSortN);
  }
  bool check(int, std::string& why) override {
    std::vector<uint32_t> h;
    cudaError_t e = out_.toHost(h);
    if (e != cudaSuccess) {
      why = std::string("copy failed: ") + cudaGetErrorString(e);
      return false;
    }
    // Ascending, and the same multiset as the input (sum and sum of squares mod 2^64).
    std::atomic<size_t> bad{SIZE_MAX};
    std::atomic<uint64_t> s1{0}, s2{0}, t1{0}, t2{0};
    parallelFor(kCubSortN, [&](size_t b, size_t end) {
      uint64_t a1 = 0, a2 = 0, c1 = 0, c2 = 0;
      for (size_t i = b; i < end; ++i) {
        if (i > 0 && h[i - 1] > h[i] && i < bad.load()) bad = i;
        a1 += h[i];
        a2 += uint64_t(h[i]) * h[i];
        const uint32_t x = g_(i);
        c1 += x;
        c2 += uint64_t(x) * x;
      }
      s1 += a1;
      s2 += a2;
      t1 += c1;
      t2 += c2;
    });
    if (bad.load() != SIZE_MAX) {
      const size_t i = bad.load();
      why = "keys: index " + std::to_string(i) + " (" + std::to_string(h[i]) + ") is below index " +
            std::to_string(i - 1) + " (" + std::to_string(h[i - 1]) + ")";
      return false;
    }
    if (s1.load() != t1.load() || s2.load() != t2.load()) {
      why = "keys: sorted, but not the input's keys (sums differ)";
      return false;
    }
    return true;
  }
};
ADVICE_PAIR("cub_sort", CubSort);

}  // namespace library
}  // namespace advice
