// pairs_probe.cu: occupancy probes (kind `probe` in pairs.tsv).  A probe is
// a pair that decides a rule rather than tests a verdict: the original runs
// with k blocks per SM (a dynamic shared memory request the kernel never
// reads, the residency knob of seed 002), the changed kernel with none (8
// blocks of 256 threads: 100% occupancy).  The rule "occupancy is the
// verdict only with evidence" is right on a probe when perfcheck names
// occupancy exactly when dropping the request pays (>= 1.2x).  Three
// kernels, so that the probes cover memory-bound kernels with one and with
// four loads in flight per thread (seed 002's tlp1 and ilp4) and a
// compute-bound one (seed 000's FMA chains), at 1, 2, 3, 4 and 6 blocks per
// SM: the busiest unit of the originals spans the band between idle and
// the roof where the seeds and NVIDIA's guide disagree (60% against 80%).
#include "advice.h"

namespace advice {
namespace probe {

constexpr unsigned kB = 256;
constexpr size_t kStream = size_t(64) << 20;  // 64 Mi floats, 256 MiB a buffer
constexpr size_t kChainN = size_t(16) << 20;
constexpr int kChainIters = 256;
constexpr int kDistinct = 1024;
constexpr float kA = 1.75f, kMul = 0.999f, kAdd = 0.001f;

__global__ void probe_tlp1(float a, const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out,
                           size_t n) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = fmaf(a, x[i], y[i]);
}

// Four elements a thread, every load issued before the first use.
__global__ void probe_ilp4(float a, const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out,
                           size_t n) {
  const size_t step = gridDim.x * static_cast<size_t>(blockDim.x);
  const size_t base = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  float xv[4], yv[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const size_t i = base + static_cast<size_t>(j) * step;
    xv[j] = i < n ? x[i] : 0.0f;
    yv[j] = i < n ? y[i] : 0.0f;
  }
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const size_t i = base + static_cast<size_t>(j) * step;
    if (i < n) out[i] = fmaf(a, xv[j], yv[j]);
  }
}

__host__ __device__ inline float chains(float x, int iters) {
  float c0 = x, c1 = x + 1.0f, c2 = x + 2.0f, c3 = x + 3.0f;
  for (int k = 0; k < iters; ++k) {
    c0 = fmaf(c0, kMul, kAdd);
    c1 = fmaf(c1, kMul, kAdd);
    c2 = fmaf(c2, kMul, kAdd);
    c3 = fmaf(c3, kMul, kAdd);
  }
  return (c0 + c1) + (c2 + c3);
}

__global__ void probe_fma(const float* __restrict__ in, float* __restrict__ out, size_t n, int iters) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  const float x = i < n ? in[i] : 0.0f;
  const float y = chains(x, iters);
  if (i < n) out[i] = y;
}

// The smallest whole-KiB dynamic shared memory request with which exactly
// `want` blocks of `func` fit on an SM (the driver's occupancy answer).
cudaError_t reserveForBlocks(const void* func, int block, int want, size_t* bytes) {
  int dev = 0;
  ADV_TRY(cudaGetDevice(&dev));
  cudaDeviceProp prop;
  ADV_TRY(cudaGetDeviceProperties(&prop, dev));
  cudaFuncAttributes fa;
  ADV_TRY(cudaFuncGetAttributes(&fa, func));
  const size_t maxDyn = prop.sharedMemPerBlockOptin - fa.sharedSizeBytes;
  ADV_TRY(cudaFuncSetAttribute(func, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(maxDyn)));
  for (size_t dyn = 0; dyn <= maxDyn; dyn += 1024) {
    int blocks = 0;
    ADV_TRY(blocksPerSm(func, block, dyn, &blocks));
    if (blocks <= want) {
      if (blocks != want) {
        std::fprintf(stderr, "FAIL: no dynamic shared memory request leaves exactly %d blocks per SM (%d at %zu B)\n",
                     want, blocks, dyn);
        return cudaErrorInvalidConfiguration;
      }
      *bytes = dyn;
      return cudaSuccess;
    }
  }
  return cudaErrorInvalidConfiguration;
}

enum Kernel { kTlp1, kIlp4, kFma };

const void* funcOf(Kernel k) {
  switch (k) {
    case kTlp1: return reinterpret_cast<const void*>(probe_tlp1);
    case kIlp4: return reinterpret_cast<const void*>(probe_ilp4);
    default: return reinterpret_cast<const void*>(probe_fma);
  }
}

class OccProbe : public Pair {
  const Kernel kernel_;
  const int blocks_;
  size_t reserve_ = 0;
  DevBuf<float> x_, y_, out_;
  const GenUniform gx_{91, 0.0f, 1.0f}, gy_{93, -10.0f, 20.0f};
  std::vector<float> ref_;

  size_t n() const { return kernel_ == kFma ? kChainN : kStream; }
  unsigned grid() const {
    const size_t perBlock = kernel_ == kIlp4 ? 4 * kB : kB;
    return static_cast<unsigned>((n() + perBlock - 1) / perBlock);
  }

 public:
  OccProbe(Kernel k, int blocks) : kernel_(k), blocks_(blocks) {}
  cudaError_t setup() override {
    ADV_TRY(reserveForBlocks(funcOf(kernel_), kB, blocks_, &reserve_));
    ADV_TRY(x_.alloc(n()));
    ADV_TRY(out_.alloc(n()));
    if (kernel_ == kFma) {
      ref_.resize(kDistinct);
      for (int d = 0; d < kDistinct; ++d) ref_[d] = chains(gx_(static_cast<size_t>(d)), kChainIters);
      // in[i] = gx(i % kDistinct): a check needs only kDistinct references.
      std::vector<float> h(n());
      for (size_t i = 0; i < h.size(); ++i) h[i] = gx_(i % kDistinct);
      return cudaMemcpy(x_.get(), h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice);
    }
    ADV_TRY(y_.alloc(n()));
    ADV_TRY(fill(x_.get(), n(), gx_));
    return fill(y_.get(), n(), gy_);
  }
  cudaError_t poison(int) override { return out_.poison(); }
  cudaError_t launch(int v) override {
    const size_t smem = v == kOrig ? reserve_ : 0;
    switch (kernel_) {
      case kTlp1: probe_tlp1<<<grid(), kB, smem>>>(kA, x_.get(), y_.get(), out_.get(), n()); break;
      case kIlp4: probe_ilp4<<<grid(), kB, smem>>>(kA, x_.get(), y_.get(), out_.get(), n()); break;
      case kFma: probe_fma<<<grid(), kB, smem>>>(x_.get(), out_.get(), n(), kChainIters); break;
    }
    return cudaGetLastError();
  }
  bool check(int, std::string& why) override {
    if (kernel_ == kFma)
      return checkDevice("out", out_, [&](size_t i) { return ref_[i % kDistinct]; }, 0, 1e-6, 1, why);
    return checkDevice("out", out_, [&](size_t i) { return std::fmaf(kA, gx_(i), gy_(i)); }, 0, 0, 1, why);
  }
  Shape shape(int v) const override { return {funcOf(kernel_), kB, v == kOrig ? reserve_ : 0, grid()}; }
  std::string note() const override {
    return "orig reserves " + std::to_string(reserve_) + " B of dynamic shared memory it never uses (" +
           std::to_string(blocks_) + " blocks per SM)";
  }
};

#define ADV_PROBE(id, cls, kernel, blocks)        \
  class cls : public OccProbe {                   \
   public:                                        \
    cls() : OccProbe(kernel, blocks) {}           \
  };                                              \
  ADVICE_PAIR(id, cls)

ADV_PROBE("occ_probe_tlp1_b1", ProbeTlp1B1, kTlp1, 1);
ADV_PROBE("occ_probe_tlp1_b2", ProbeTlp1B2, kTlp1, 2);
ADV_PROBE("occ_probe_tlp1_b3", ProbeTlp1B3, kTlp1, 3);
ADV_PROBE("occ_probe_tlp1_b4", ProbeTlp1B4, kTlp1, 4);
ADV_PROBE("occ_probe_tlp1_b6", ProbeTlp1B6, kTlp1, 6);
ADV_PROBE("occ_probe_ilp4_b1", ProbeIlp4B1, kIlp4, 1);
ADV_PROBE("occ_probe_ilp4_b2", ProbeIlp4B2, kIlp4, 2);
ADV_PROBE("occ_probe_ilp4_b3", ProbeIlp4B3, kIlp4, 3);
ADV_PROBE("occ_probe_ilp4_b4", ProbeIlp4B4, kIlp4, 4);
ADV_PROBE("occ_probe_ilp4_b6", ProbeIlp4B6, kIlp4, 6);
ADV_PROBE("occ_probe_fma_b1", ProbeFmaB1, kFma, 1);
ADV_PROBE("occ_probe_fma_b2", ProbeFmaB2, kFma, 2);
ADV_PROBE("occ_probe_fma_b3", ProbeFmaB3, kFma, 3);
ADV_PROBE("occ_probe_fma_b4", ProbeFmaB4, kFma, 4);
ADV_PROBE("occ_probe_fma_b6", ProbeFmaB6, kFma, 6);

}  // namespace probe
}  // namespace advice
