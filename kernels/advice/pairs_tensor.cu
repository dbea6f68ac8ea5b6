// pairs_tensor.cu: tensor-core (mma.sync m16n8k16 bf16) kernels: a tiled GEMM
// whose shared-memory layout conflicts against the padded one, the padded
// GEMM with synchronous loads against a cp.async double buffer, and the
// register-resident mma chain at the tensor roof.  The mma helpers, the exact
// small-integer patterns and the chain kernel come from kernels/mma_kernels.cuh.
#include "advice.h"

#include <cuda_pipeline.h>

#include "../kcommon.cuh"
#include "../mma_kernels.cuh"

namespace advice {
namespace tensor {

// C (4096 x 4096 fp32) = A (bf16, row major) x Bt^T (Bt: N x K bf16, row
// major), 128 x 128 x 32 tiles, 8 warps of 64 x 32 outputs (mma_kernels.cuh's
// layout).  kPad bf16 at the end of each shared row: with 0 a row is 64 B and
// the fragment loads of rows g and g + 2 hit the same banks (4-way
// conflicts); with 8 (80-byte rows) they are conflict-free.  kAsync: tiles
// are fetched with cp.async (LDGSTS) into a second buffer while the first is
// multiplied, instead of loaded through registers between two barriers.
template <int kPad, bool kAsync>
__global__ void __launch_bounds__(kGemmBlock)
    gemm_bf16(const __nv_bfloat16* __restrict__ a, const __nv_bfloat16* __restrict__ bt, float* __restrict__ c, int m,
              int n, int k) {
  constexpr int kStages = kAsync ? 2 : 1;
  __shared__ alignas(16) __nv_bfloat16 as[kStages][kGemmBM][kGemmBK + kPad];
  __shared__ alignas(16) __nv_bfloat16 bs[kStages][kGemmBN][kGemmBK + kPad];
  (void)m;
  const unsigned tid = threadIdx.x, lane = tid & 31u, warp = tid >> 5;
  const unsigned g = lane >> 2, t = lane & 3u;
  const int wm = static_cast<int>(warp >> 2), wn = static_cast<int>(warp & 3u);
  const int bm = blockIdx.y * kGemmBM, bn = blockIdx.x * kGemmBN;
  float acc[4][4][4] = {};

  // 128 rows x 32 bf16 = 512 chunks of 16 bytes per tile, two per thread.
  auto loadTile = [&](int stage, int k0) {
    for (unsigned ch = tid; ch < 512u; ch += kGemmBlock) {
      const int r = static_cast<int>(ch >> 2), q = static_cast<int>(ch & 3u) * 8;
      const __nv_bfloat16* ga = a + static_cast<size_t>(bm + r) * k + k0 + q;
      const __nv_bfloat16* gb = bt + static_cast<size_t>(bn + r) * k + k0 + q;
      if (kAsync) {
        __pipeline_memcpy_async(&as[stage][r][q], ga, 16);
        __pipeline_memcpy_async(&bs[stage][r][q], gb, 16);
      } else {
        *reinterpret_cast<uint4*>(&as[stage][r][q]) = *reinterpret_cast<const uint4*>(ga);
        *reinterpret_cast<uint4*>(&bs[stage][r][q]) = *reinterpret_cast<const uint4*>(gb);
      }
    }
  };
  auto computeTile = [&](int stage) {
#pragma unroll
    for (int kk = 0; kk < kGemmBK; kk += 16) {
      uint32_t af[4][4], bf[4][2];
#pragma unroll
      for (int mi = 0; mi < 4; ++mi) {
        const int r0 = wm * 64 + mi * 16 + static_cast<int>(g);
        af[mi][0] = ldPair(&as[stage][r0][kk + 2 * t]);
        af[mi][1] = ldPair(&as[stage][r0 + 8][kk + 2 * t]);
        af[mi][2] = ldPair(&as[stage][r0][kk + 2 * t + 8]);
        af[mi][3] = ldPair(&as[stage][r0 + 8][kk + 2 * t + 8]);
      }
#pragma unroll
      for (int ni = 0; ni < 4; ++ni) {
        const int n0 = wn * 32 + ni * 8 + static_cast<int>(g);
        bf[ni][0] = ldPair(&bs[stage][n0][kk + 2 * t]);
        bf[ni][1] = ldPair(&bs[stage][n0][kk + 2 * t + 8]);
      }
#pragma unroll
      for (int mi = 0; mi < 4; ++mi)
#pragma unroll
        for (int ni = 0; ni < 4; ++ni) mma16816Bf16(acc[mi][ni], af[mi], bf[ni]);
    }
  };

  const int tiles = k / kGemmBK;
  if (!kAsync) {
    for (int kt = 0; kt < tiles; ++kt) {
      loadTile(0, kt * kGemmBK);
      __syncthreads();
      computeTile(0);
      __syncthreads();
    }
  } else {
    loadTile(0, 0);
    __pipeline_commit();
    for (int kt = 0; kt < tiles; ++kt) {
      if (kt + 1 < tiles) loadTile((kt + 1) & 1, (kt + 1) * kGemmBK);
      __pipeline_commit();        // (an empty group on the last tile keeps the count)
      __pipeline_wait_prior(1);   // this thread's copies of tile kt have landed
      __syncthreads();            // ...and everyone's
      computeTile(kt & 1);
      __syncthreads();            // before tile kt + 2 overwrites this buffer
    }
  }
#pragma unroll
  for (int mi = 0; mi < 4; ++mi)
#pragma unroll
    for (int ni = 0; ni < 4; ++ni) {
      const size_t row = static_cast<size_t>(bm + wm * 64 + mi * 16 + static_cast<int>(g));
      const size_t col = static_cast<size_t>(bn + wn * 32 + ni * 8 + 2 * static_cast<int>(t));
      c[row * n + col] = acc[mi][ni][0];
      c[row * n + col + 1] = acc[mi][ni][1];
      c[(row + 8) * n + col] = acc[mi][ni][2];
      c[(row + 8) * n + col + 1] = acc[mi][ni][3];
    }
}

struct GenGemmA {
  __host__ __device__ __nv_bfloat16 operator()(size_t e) const {
    return __float2bfloat16(gemmA(static_cast<int>(e / kGemmK), static_cast<int>(e % kGemmK)));
  }
};
struct GenGemmBt {
  __host__ __device__ __nv_bfloat16 operator()(size_t e) const {
    return __float2bfloat16(gemmB(static_cast<int>(e / kGemmK), static_cast<int>(e % kGemmK)));
  }
};

enum GemmKind { kConflicts, kPadded, kPaddedAsync };
const void* gemmFunc(GemmKind g) {
  switch (g) {
    case kConflicts: return reinterpret_cast<const void*>(gemm_bf16<0, false>);
    case kPadded: return reinterpret_cast<const void*>(gemm_bf16<kGemmPad, false>);
    default: return reinterpret_cast<const void*>(gemm_bf16<kGemmPad, true>);
  }
}

class Gemm : public Pair {
  DevBuf<__nv_bfloat16> a_, bt_;
  DevBuf<float> c_;
  std::vector<float> ref_;  // [13][9]
  const GemmKind kind_[2];

 public:
  Gemm(GemmKind orig, GemmKind changed) : kind_{orig, changed} {}
  cudaError_t setup() override {
    ADV_TRY(a_.alloc(size_t(kGemmM) * kGemmK));
    ADV_TRY(bt_.alloc(size_t(kGemmN) * kGemmK));
    ADV_TRY(c_.alloc(size_t(kGemmM) * kGemmN));
    ref_.assign(kGemmPeriodA * kGemmPeriodB, 0.0f);
    for (int i = 0; i < kGemmPeriodA; ++i)
      for (int j = 0; j < kGemmPeriodB; ++j) {
        double s = 0;
        for (int q = 0; q < kGemmK; ++q) s += static_cast<double>(gemmA(i, q)) * gemmB(j, q);
        ref_[i * kGemmPeriodB + j] = static_cast<float>(s);
      }
    ADV_TRY(fill(a_.get(), a_.size(), GenGemmA{}));
    return fill(bt_.get(), bt_.size(), GenGemmBt{});
  }
  cudaError_t poison(int) override { return c_.poison(); }
  cudaError_t launch(int v) override {
    const dim3 grid(kGemmN / kGemmBN, kGemmM / kGemmBM);
    switch (kind_[v]) {
      case kConflicts:
        gemm_bf16<0, false><<<grid, kGemmBlock>>>(a_.get(), bt_.get(), c_.get(), kGemmM, kGemmN, kGemmK);
        break;
      case kPadded:
        gemm_bf16<kGemmPad, false><<<grid, kGemmBlock>>>(a_.get(), bt_.get(), c_.get(), kGemmM, kGemmN, kGemmK);
        break;
      case kPaddedAsync:
        gemm_bf16<kGemmPad, true><<<grid, kGemmBlock>>>(a_.get(), bt_.get(), c_.get(), kGemmM, kGemmN, kGemmK);
        break;
    }
    return cudaGetLastError();
  }
  bool check(int, std::string& why) override {
    return checkDevice("c", c_,
                       [&](size_t e) {
                         return ref_[(e / kGemmN) % kGemmPeriodA * kGemmPeriodB + (e % kGemmN) % kGemmPeriodB];
                       },
                       0, 0, 1, why);
  }
  Shape shape(int v) const override {
    return {gemmFunc(kind_[v]), kGemmBlock, 0, (kGemmN / kGemmBN) * static_cast<unsigned long long>(kGemmM / kGemmBM)};
  }
};
class MmaSmemPad : public Gemm {
 public:
  MmaSmemPad() : Gemm(kConflicts, kPadded) {}
};
ADVICE_PAIR("mma_smem_pad", MmaSmemPad);
class MmaCpasync : public Gemm {
 public:
  MmaCpasync() : Gemm(kPadded, kPaddedAsync) {}
};
ADVICE_PAIR("mma_cpasync", MmaCpasync);

// ---- mma_chain_warps: the register-resident chain at the tensor roof -------------------------------
// 16 blocks of 4 warps per SM (mma.cu's launch), against 8 blocks of 8 warps:
// the same warps, more of them per block.
struct GenChainA {
  __host__ __device__ __nv_bfloat16 operator()(size_t e) const {
    return __float2bfloat16(chainA(e / 256, static_cast<int>(e % 256 / 16), static_cast<int>(e % 16)));
  }
};
struct GenChainBt {
  __host__ __device__ __nv_bfloat16 operator()(size_t e) const {
    return __float2bfloat16(chainB(e / 128, static_cast<int>(e % 128 / 16), static_cast<int>(e % 16)));
  }
};

class MmaChainWarps : public Pair {
  DevBuf<__nv_bfloat16> a_, bt_;
  DevBuf<float> d_;
  size_t warps_ = 0;
  unsigned grid_[2] = {0, 0};
  static constexpr unsigned kBlocks[2] = {kChainBlock, 2 * kChainBlock};

 public:
  cudaError_t setup() override {
    const unsigned sms = static_cast<unsigned>(smCount());
    if (sms == 0) return cudaErrorNoDevice;
    grid_[0] = sms * 16;
    grid_[1] = sms * 8;
    warps_ = size_t(grid_[0]) * (kChainBlock / 32);
    ADV_TRY(a_.alloc(warps_ * 256));
    ADV_TRY(bt_.alloc(warps_ * 128));
    ADV_TRY(d_.alloc(warps_ * 128));
    ADV_TRY(fill(a_.get(), a_.size(), GenChainA{}));
    return fill(bt_.get(), bt_.size(), GenChainBt{});
  }
  cudaError_t poison(int) override { return d_.poison(); }
  cudaError_t launch(int v) override {
    mma_bf16_chain<<<grid_[v], kBlocks[v]>>>(a_.get(), bt_.get(), d_.get(), kChainIters);
    return cudaGetLastError();
  }
  bool check(int, std::string& why) override {
    // d[w][m][n] = iters * sum_k A_w[m][k] B_w[n][k]: small integers, exact.
    return checkDevice("d", d_,
                       [&](size_t e) {
                         const size_t w = e / 128;
                         const int m = static_cast<int>(e % 128 / 8), nn = static_cast<int>(e % 8);
                         float dot = 0.0f;
                         for (int q = 0; q < 16; ++q) dot += chainA(w, m, q) * chainB(w, nn, q);
                         return dot * static_cast<float>(kChainIters);
                       },
                       0, 0, 1, why);
  }
  Shape shape(int v) const override { return {reinterpret_cast<const void*>(mma_bf16_chain), kBlocks[v], 0, grid_[v]}; }
};
ADVICE_PAIR("mma_chain_warps", MmaChainWarps);

}  // namespace tensor
}  // namespace advice
