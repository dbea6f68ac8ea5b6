// pairs_stream.cu: pairs whose traffic is DRAM streaming: access patterns
// (coalescing, layout, access width), bytes in flight (ILP, occupancy, block
// size, grid size) and kernels already at the DRAM roof.  Every buffer is
// several times the H200's 50 MB L2.  README.md says why each should pay.
#include "advice.h"

#include <cuda/ptx>

#include "../kcommon.cuh"

namespace advice {
namespace stream {

constexpr unsigned kBlock = 256;

__host__ __device__ inline float scaleOne(float x) { return fmaf(x, 2.0f, 1.0f); }
__host__ __device__ inline float4 scaleFour(float4 v) {
  return make_float4(scaleOne(v.x), scaleOne(v.y), scaleOne(v.z), scaleOne(v.w));
}

// ---- index_swap: seed 000's mysteryA --------------------------------------------------------
constexpr int kSwapLog = 13;
constexpr size_t kSwapDim = size_t(1) << kSwapLog;  // 8192 x 8192 floats, 256 MiB
constexpr size_t kSwapN = kSwapDim * kSwapDim;

// Each thread scales one element j.  kRowFromLowBits: the row comes from the
// low bits of the thread index, so a warp's 32 elements are 8192 floats apart
// (one sector per lane, loads and stores); otherwise from the high bits: 32
// consecutive floats.  Both visit every j exactly once.
template <bool kRowFromLowBits>
__global__ void index_map_scale(const float* __restrict__ in, float* __restrict__ out) {
  const size_t t = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (t >= kSwapN) return;
  const size_t row = kRowFromLowBits ? (t & (kSwapDim - 1)) : (t >> kSwapLog);
  const size_t col = kRowFromLowBits ? (t >> kSwapLog) : (t & (kSwapDim - 1));
  const size_t j = row * kSwapDim + col;
  out[j] = fmaf(in[j], 1.5f, 0.25f);
}

class IndexSwap : public Pair {
  DevBuf<float> in_, out_;
  const GenUniform g_{11, -1.0f, 2.0f};

 public:
  cudaError_t setup() override {
    ADV_TRY(in_.alloc(kSwapN));
    ADV_TRY(out_.alloc(kSwapN));
    return fill(in_.get(), kSwapN, g_);
  }
  cudaError_t poison(int) override { return out_.poison(); }
  cudaError_t launch(int v) override {
    const unsigned grid = kBlocksFor(kSwapN, kBlock);
    if (v == kOrig)
      index_map_scale<true><<<grid, kBlock>>>(in_.get(), out_.get());
    else
      index_map_scale<false><<<grid, kBlock>>>(in_.get(), out_.get());
    return cudaGetLastError();
  }
  bool check(int, std::string& why) override {
    return checkDevice("out", out_, [&](size_t j) { return std::fmaf(g_(j), 1.5f, 0.25f); }, 0, 0, 1, why);
  }
  Shape shape(int v) const override {
    return {v == kOrig ? reinterpret_cast<const void*>(index_map_scale<true>)
                       : reinterpret_cast<const void*>(index_map_scale<false>),
            kBlock, 0, kBlocksFor(kSwapN, kBlock)};
  }
};
ADVICE_PAIR("index_swap", IndexSwap);

// ---- aos_soa: one field of a 32-byte struct ---------------------------------------------------
struct alignas(16) Particle {
  float x, y, z, vx, vy, vz, m, q;
};
static_assert(sizeof(Particle) == 32, "one particle per 32-byte sector");
constexpr size_t kParticles = size_t(32) << 20;  // 32M particles: 1 GiB of structs

__global__ void particles_aos(const Particle* __restrict__ p, float* __restrict__ out, size_t n) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = scaleOne(p[i].x);
}
__global__ void particles_soa(const float* __restrict__ x, float* __restrict__ out, size_t n) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = scaleOne(x[i]);
}
// Every field of particle i from one generator; x is field 0.
struct GenParticleField {
  uint32_t seed;
  __host__ __device__ float operator()(size_t k) const {
    return uniform24(hashAt(k, seed), -4.0f, 8.0f);
  }
};
struct GenParticleX {
  GenParticleField f;
  __host__ __device__ float operator()(size_t i) const { return f(i * 8); }
};

class AosSoa : public Pair {
  DevBuf<Particle> aos_;
  DevBuf<float> x_, out_;
  const GenParticleField field_{23};

 public:
  cudaError_t setup() override {
    ADV_TRY(aos_.alloc(kParticles));
    ADV_TRY(x_.alloc(kParticles));
    ADV_TRY(out_.alloc(kParticles));
    ADV_TRY(fill(reinterpret_cast<float*>(aos_.get()), kParticles * 8, field_));
    return fill(x_.get(), kParticles, GenParticleX{field_});
  }
  cudaError_t poison(int) override { return out_.poison(); }
  cudaError_t launch(int v) override {
    const unsigned grid = kBlocksFor(kParticles, kBlock);
    if (v == kOrig)
      particles_aos<<<grid, kBlock>>>(aos_.get(), out_.get(), kParticles);
    else
      particles_soa<<<grid, kBlock>>>(x_.get(), out_.get(), kParticles);
    return cudaGetLastError();
  }
  bool check(int, std::string& why) override {
    const GenParticleX gx{field_};
    return checkDevice("out", out_, [&](size_t i) { return scaleOne(gx(i)); }, 0, 0, 1, why);
  }
  Shape shape(int v) const override {
    return {v == kOrig ? reinterpret_cast<const void*>(particles_aos) : reinterpret_cast<const void*>(particles_soa),
            kBlock, 0, kBlocksFor(kParticles, kBlock)};
  }
};
ADVICE_PAIR("aos_soa", AosSoa);

// ---- lg_u8_vec: one byte a thread against sixteen --------------------------------------------
constexpr size_t kBytesN = size_t(512) << 20;  // 512 MiB

__host__ __device__ inline uint8_t byteOp(uint8_t b) { return static_cast<uint8_t>(b * 3u + 1u); }
__global__ void bytes_u8(const uint8_t* __restrict__ in, uint8_t* __restrict__ out, size_t n) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = byteOp(in[i]);
}
// 3b + 1 on each byte of a word, with no carry between bytes (__vadd4 wraps
// each byte mod 256, as uint8_t arithmetic does).
__device__ inline unsigned byteOp4(unsigned w) { return __vadd4(__vadd4(__vadd4(w, w), w), 0x01010101u); }
__global__ void bytes_u8x16(const uint4* __restrict__ in, uint4* __restrict__ out, size_t n16) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n16) {
    const uint4 v = in[i];
    out[i] = make_uint4(byteOp4(v.x), byteOp4(v.y), byteOp4(v.z), byteOp4(v.w));
  }
}

class LgU8Vec : public Pair {
  DevBuf<uint8_t> in_, out_;
  const GenU8 g_{31};

 public:
  cudaError_t setup() override {
    ADV_TRY(in_.alloc(kBytesN));
    ADV_TRY(out_.alloc(kBytesN));
    return fill(in_.get(), kBytesN, g_);
  }
  cudaError_t poison(int) override { return out_.poison(); }
  cudaError_t launch(int v) override {
    if (v == kOrig)
      bytes_u8<<<kBlocksFor(kBytesN, kBlock), kBlock>>>(in_.get(), out_.get(), kBytesN);
    else
      bytes_u8x16<<<kBlocksFor(kBytesN / 16, kBlock), kBlock>>>(reinterpret_cast<const uint4*>(in_.get()),
                                                                reinterpret_cast<uint4*>(out_.get()), kBytesN / 16);
    return cudaGetLastError();
  }
  bool check(int, std::string& why) override {
    return checkDevice("out", out_, [&](size_t i) { return byteOp(g_(i)); }, 0, 0, 1, why);
  }
  Shape shape(int v) const override {
    if (v == kOrig) return {reinterpret_cast<const void*>(bytes_u8), kBlock, 0, kBlocksFor(kBytesN, kBlock)};
    return {reinterpret_cast<const void*>(bytes_u8x16), kBlock, 0, kBlocksFor(kBytesN / 16, kBlock)};
  }
};
ADVICE_PAIR("lg_u8_vec", LgU8Vec);

// ---- vec_f32: one float a thread against one float4 ---------------------------------------------
constexpr size_t kVecN = size_t(128) << 20;  // 128M floats: 512 MiB

__global__ void scale_f32(const float* __restrict__ in, float* __restrict__ out, size_t n) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = scaleOne(in[i]);
}
__global__ void scale_f32x4(const float4* __restrict__ in, float4* __restrict__ out, size_t n4) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n4) out[i] = scaleFour(in[i]);
}

class VecF32 : public Pair {
  DevBuf<float> in_, out_;
  const GenUniform g_{41, -8.0f, 16.0f};

 public:
  cudaError_t setup() override {
    ADV_TRY(in_.alloc(kVecN));
    ADV_TRY(out_.alloc(kVecN));
    return fill(in_.get(), kVecN, g_);
  }
  cudaError_t poison(int) override { return out_.poison(); }
  cudaError_t launch(int v) override {
    if (v == kOrig)
      scale_f32<<<kBlocksFor(kVecN, kBlock), kBlock>>>(in_.get(), out_.get(), kVecN);
    else
      scale_f32x4<<<kBlocksFor(kVecN / 4, kBlock), kBlock>>>(reinterpret_cast<const float4*>(in_.get()),
                                                             reinterpret_cast<float4*>(out_.get()), kVecN / 4);
    return cudaGetLastError();
  }
  bool check(int, std::string& why) override {
    return checkDevice("out", out_, [&](size_t i) { return scaleOne(g_(i)); }, 0, 0, 1, why);
  }
  Shape shape(int v) const override {
    if (v == kOrig) return {reinterpret_cast<const void*>(scale_f32), kBlock, 0, kBlocksFor(kVecN, kBlock)};
    return {reinterpret_cast<const void*>(scale_f32x4), kBlock, 0, kBlocksFor(kVecN / 4, kBlock)};
  }
};
ADVICE_PAIR("vec_f32", VecF32);

// ---- ilp_kreduce: out[i] = sum over k of in[k][i] ---------------------------------------------------
constexpr int kKrN = 1 << 20;  // outputs: 4096 blocks of 256, 3.9 waves at full occupancy
constexpr int kKrK = 128;      // terms: 512 MiB of input

// One accumulator in k order in both; the loads are independent of it.
// `#pragma unroll 1`: the next load issues only after the add that waits for
// this one, so a thread has one 4-byte load in flight.
__global__ void k_reduce_serial(const float* __restrict__ in, float* __restrict__ out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= kKrN) return;
  float acc = 0.0f;
#pragma unroll 1
  for (int k = 0; k < kKrK; ++k) acc += in[static_cast<size_t>(k) * kKrN + i];
  out[i] = acc;
}
// Unrolled by 8: the eight loads are issued before the first add, eight in
// flight per thread; the adds keep the same order, so the sums are the same.
__global__ void k_reduce_unrolled(const float* __restrict__ in, float* __restrict__ out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= kKrN) return;
  float acc = 0.0f;
#pragma unroll 8
  for (int k = 0; k < kKrK; ++k) acc += in[static_cast<size_t>(k) * kKrN + i];
  out[i] = acc;
}

class IlpKreduce : public Pair {
  DevBuf<float> in_, out_;
  const GenSmallInt g_{53, 0, 8};

 public:
  cudaError_t setup() override {
    ADV_TRY(in_.alloc(size_t(kKrN) * kKrK));
    ADV_TRY(out_.alloc(kKrN));
    return fill(in_.get(), in_.size(), g_);
  }
  cudaError_t poison(int) override { return out_.poison(); }
  cudaError_t launch(int v) override {
    if (v == kOrig)
      k_reduce_serial<<<kKrN / kBlock, kBlock>>>(in_.get(), out_.get());
    else
      k_reduce_unrolled<<<kKrN / kBlock, kBlock>>>(in_.get(), out_.get());
    return cudaGetLastError();
  }
  bool check(int, std::string& why) override {
    return checkDevice("out", out_,
                       [&](size_t i) {
                         float acc = 0.0f;
                         for (int k = 0; k < kKrK; ++k) acc += g_(static_cast<size_t>(k) * kKrN + i);
                         return acc;
                       },
                       0, 0, 1, why);
  }
  Shape shape(int v) const override {
    return {v == kOrig ? reinterpret_cast<const void*>(k_reduce_serial)
                       : reinterpret_cast<const void*>(k_reduce_unrolled),
            kBlock, 0, kKrN / kBlock};
  }
};
ADVICE_PAIR("ilp_kreduce", IlpKreduce);

// ---- grid-stride streams: grid_small_mem, occ_blocks32, occ_warps704 ---------------------------------
constexpr size_t kStreamN = size_t(64) << 20;  // 64M floats: 256 MiB in, 256 MiB out

// Four float4 in flight per thread: enough bytes that the SMs it runs on
// stream at full speed, so only the number of SMs in use decides.
__global__ void stream_f4_ilp4(const float4* __restrict__ in, float4* __restrict__ out, size_t n4) {
  const size_t step = gridDim.x * static_cast<size_t>(blockDim.x);
  for (size_t base = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; base < n4; base += 4 * step) {
    float4 v[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      const size_t i = base + u * step;
      if (i < n4) v[u] = in[i];
    }
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      const size_t i = base + u * step;
      if (i < n4) out[i] = scaleFour(v[u]);
    }
  }
}

// One 4-byte load in flight per thread (`#pragma unroll 1`): the loop is
// latency bound, so its speed is the number of resident threads.
__global__ void stream_f1_serial(const float* __restrict__ in, float* __restrict__ out, size_t n) {
  const size_t step = gridDim.x * static_cast<size_t>(blockDim.x);
#pragma unroll 1
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += step) out[i] = scaleOne(in[i]);
}

class GridSmallMem : public Pair {
  DevBuf<float> in_, out_;
  const GenUniform g_{61, -2.0f, 4.0f};
  unsigned fullGrid_ = 0;
  static constexpr unsigned kFewBlocks = 16;

 public:
  cudaError_t setup() override {
    ADV_TRY(in_.alloc(kStreamN));
    ADV_TRY(out_.alloc(kStreamN));
    ADV_TRY(residentGrid(reinterpret_cast<const void*>(stream_f4_ilp4), kBlock, 0, &fullGrid_));
    return fill(in_.get(), kStreamN, g_);
  }
  cudaError_t poison(int) override { return out_.poison(); }
  cudaError_t launch(int v) override {
    stream_f4_ilp4<<<v == kOrig ? kFewBlocks : fullGrid_, kBlock>>>(
        reinterpret_cast<const float4*>(in_.get()), reinterpret_cast<float4*>(out_.get()), kStreamN / 4);
    return cudaGetLastError();
  }
  bool check(int, std::string& why) override {
    return checkDevice("out", out_, [&](size_t i) { return scaleOne(g_(i)); }, 0, 0, 1, why);
  }
  Shape shape(int v) const override {
    return {reinterpret_cast<const void*>(stream_f4_ilp4), kBlock, 0, v == kOrig ? kFewBlocks : fullGrid_};
  }
  std::string note() const override { return "changed grid " + std::to_string(fullGrid_) + " blocks (all resident)"; }
};
ADVICE_PAIR("grid_small_mem", GridSmallMem);

// A persistent launch of stream_f1_serial with two block sizes: each grid is
// exactly what fits on the GPU, so the resident warps are what differs.
class SerialStreamBlocks : public Pair {
  DevBuf<float> in_, out_;
  const GenUniform g_{67, -2.0f, 4.0f};
  const unsigned block_[2];
  unsigned grid_[2] = {0, 0};

 public:
  SerialStreamBlocks(unsigned origBlock, unsigned changedBlock) : block_{origBlock, changedBlock} {}
  cudaError_t setup() override {
    ADV_TRY(in_.alloc(kStreamN));
    ADV_TRY(out_.alloc(kStreamN));
    for (int v = 0; v < 2; ++v)
      ADV_TRY(residentGrid(reinterpret_cast<const void*>(stream_f1_serial), block_[v], 0, &grid_[v]));
    return fill(in_.get(), kStreamN, g_);
  }
  cudaError_t poison(int) override { return out_.poison(); }
  cudaError_t launch(int v) override {
    stream_f1_serial<<<grid_[v], block_[v]>>>(in_.get(), out_.get(), kStreamN);
    return cudaGetLastError();
  }
  bool check(int, std::string& why) override {
    return checkDevice("out", out_, [&](size_t i) { return scaleOne(g_(i)); }, 0, 0, 1, why);
  }
  Shape shape(int v) const override { return {reinterpret_cast<const void*>(stream_f1_serial), block_[v], 0, grid_[v]}; }
  std::string note() const override {
    return "grids " + std::to_string(grid_[0]) + " x " + std::to_string(block_[0]) + " and " +
           std::to_string(grid_[1]) + " x " + std::to_string(block_[1]) + " (all resident)";
  }
};
// 32-thread blocks: 32 blocks (the per-SM block limit) hold 32 of 64 warps.
class OccBlocks32 : public SerialStreamBlocks {
 public:
  OccBlocks32() : SerialStreamBlocks(32, 256) {}
};
ADVICE_PAIR("occ_blocks32", OccBlocks32);
// 704-thread blocks: 22 warps, two blocks fit (44 of 64 warp slots), a third does not.
class OccWarps704 : public SerialStreamBlocks {
 public:
  OccWarps704() : SerialStreamBlocks(704, 256) {}
};
ADVICE_PAIR("occ_warps704", OccWarps704);

// ---- occ_smem_stream: seed 002's tlp1-b1 against tlp1 --------------------------------------------------
constexpr float kSaA = 1.75f;
__global__ void scale_add(float a, const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out,
                          size_t n) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = fmaf(a, x[i], y[i]);
}

class OccSmemStream : public Pair {
  DevBuf<float> x_, y_, out_;
  const GenUniform gx_{71, 0.0f, 1.0f}, gy_{73, -10.0f, 20.0f};
  size_t reserve_ = 0;

 public:
  cudaError_t setup() override {
    ADV_TRY(x_.alloc(kStreamN));
    ADV_TRY(y_.alloc(kStreamN));
    ADV_TRY(out_.alloc(kStreamN));
    ADV_TRY(kReserveOneBlockPerSm(reinterpret_cast<const void*>(scale_add), kBlock, &reserve_));
    ADV_TRY(fill(x_.get(), kStreamN, gx_));
    return fill(y_.get(), kStreamN, gy_);
  }
  cudaError_t poison(int) override { return out_.poison(); }
  cudaError_t launch(int v) override {
    scale_add<<<kBlocksFor(kStreamN, kBlock), kBlock, v == kOrig ? reserve_ : 0>>>(kSaA, x_.get(), y_.get(),
                                                                                   out_.get(), kStreamN);
    return cudaGetLastError();
  }
  bool check(int, std::string& why) override {
    return checkDevice("out", out_, [&](size_t i) { return std::fmaf(kSaA, gx_(i), gy_(i)); }, 0, 0, 1, why);
  }
  Shape shape(int v) const override {
    return {reinterpret_cast<const void*>(scale_add), kBlock, v == kOrig ? reserve_ : 0, kBlocksFor(kStreamN, kBlock)};
  }
  std::string note() const override {
    return "orig reserves " + std::to_string(reserve_) + " B of dynamic shared memory it never uses";
  }
};
ADVICE_PAIR("occ_smem_stream", OccSmemStream);

// ---- occ_regs_live: live registers, not work, cap residency --------------------------------------------
// A grid-stride float4 stream (one load in flight per thread) that also
// evaluates a per-thread polynomial of its running sum at the end.  The
// original loads the 80 coefficients before the loop, so they stay live in
// registers across it (about 100 registers: two 256-thread blocks per SM);
// the change loads them after the loop, one at a time.  `w` and `out` are not
// __restrict__: a store to `out` might change `w`, so the compiler may not
// move the loads across the loop on its own.
constexpr int kLiveCoef = 80;
constexpr int kLiveTable = 1024;  // per-thread coefficient rows, reused every 1024 threads (320 KiB, in L2)
constexpr size_t kLiveN4 = size_t(32) << 20;  // 32M float4: 512 MiB in, 512 MiB out
// A thread's sum is at most 496 values of magnitude 9; scaled by 2^-14 it
// stays below 0.3, so the degree-79 polynomial stays near 1 (no overflow).
constexpr float kLiveScale = 1.0f / 16384.0f;

__device__ inline float liveStream(const float4* __restrict__ in, float4* out, size_t n4) {
  const size_t step = gridDim.x * static_cast<size_t>(blockDim.x);
  float s = 0.0f;
#pragma unroll 1
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n4; i += step) {
    const float4 r = scaleFour(in[i]);
    out[i] = r;
    s += (r.x + r.y) + (r.z + r.w);
  }
  return s;
}
__global__ void __launch_bounds__(256) live_coef_hoisted(const float4* __restrict__ in, float4* out, size_t n4,
                                                         const float* w, float* tail) {
  const size_t t = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  const float* wt = w + (t % kLiveTable);
  float c[kLiveCoef];
#pragma unroll
  for (int k = 0; k < kLiveCoef; ++k) c[k] = wt[static_cast<size_t>(k) * kLiveTable];
  const float s = liveStream(in, out, n4) * kLiveScale;
  float e = 0.0f;
#pragma unroll
  for (int k = 0; k < kLiveCoef; ++k) e = fmaf(e, s, c[k]);
  tail[t] = e;
}
__global__ void __launch_bounds__(256) live_coef_late(const float4* __restrict__ in, float4* out, size_t n4,
                                                      const float* w, float* tail) {
  const size_t t = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  const float* wt = w + (t % kLiveTable);
  const float s = liveStream(in, out, n4) * kLiveScale;
  float e = 0.0f;
#pragma unroll 1
  for (int k = 0; k < kLiveCoef; ++k) e = fmaf(e, s, wt[static_cast<size_t>(k) * kLiveTable]);
  tail[t] = e;
}

class OccRegsLive : public Pair {
  DevBuf<float> in_, out_, w_, tail_;
  const GenSmallInt gin_{79, -4, 9};
  const GenUniform gw_{83, -1.0f, 2.0f};
  unsigned grid_ = 0;

 public:
  cudaError_t setup() override {
    ADV_TRY(in_.alloc(kLiveN4 * 4));
    ADV_TRY(out_.alloc(kLiveN4 * 4));
    ADV_TRY(w_.alloc(size_t(kLiveCoef) * kLiveTable));
    // Both variants get the grid that fills the GPU at the changed kernel's
    // residency, so the original runs it in several waves.
    ADV_TRY(residentGrid(reinterpret_cast<const void*>(live_coef_late), kBlock, 0, &grid_));
    ADV_TRY(tail_.alloc(size_t(grid_) * kBlock));
    ADV_TRY(fill(in_.get(), in_.size(), gin_));
    return fill(w_.get(), w_.size(), gw_);
  }
  cudaError_t poison(int) override {
    ADV_TRY(out_.poison());
    return tail_.poison();
  }
  cudaError_t launch(int v) override {
    const float4* in = reinterpret_cast<const float4*>(in_.get());
    float4* out = reinterpret_cast<float4*>(out_.get());
    if (v == kOrig)
      live_coef_hoisted<<<grid_, kBlock>>>(in, out, kLiveN4, w_.get(), tail_.get());
    else
      live_coef_late<<<grid_, kBlock>>>(in, out, kLiveN4, w_.get(), tail_.get());
    return cudaGetLastError();
  }
  bool check(int, std::string& why) override {
    if (!checkDevice("out", out_, [&](size_t i) { return scaleOne(gin_(i)); }, 0, 0, 1, why)) return false;
    // Each thread's sum is of small integers (exact in any order); Horner in k order.
    const size_t threads = size_t(grid_) * kBlock;
    return checkDevice("tail", tail_,
                       [&](size_t t) {
                         float s = 0.0f;
                         for (size_t i = t; i < kLiveN4; i += threads)
                           for (int c = 0; c < 4; ++c) s += scaleOne(gin_(4 * i + c));
                         s *= kLiveScale;
                         float e = 0.0f;
                         for (int k = 0; k < kLiveCoef; ++k)
                           e = std::fmaf(e, s, gw_(static_cast<size_t>(k) * kLiveTable + t % kLiveTable));
                         return e;
                       },
                       0, 0, 61, why);
  }
  Shape shape(int v) const override {
    return {v == kOrig ? reinterpret_cast<const void*>(live_coef_hoisted) : reinterpret_cast<const void*>(live_coef_late),
            kBlock, 0, grid_};
  }
};
ADVICE_PAIR("occ_regs_live", OccRegsLive);

// ---- at the DRAM roof: copy, saxpy, float loads with ILP ---------------------------------------------------
constexpr size_t kRoofN4 = size_t(32) << 20;  // 32M float4: 512 MiB per buffer

__global__ void copy_f4(const float4* __restrict__ in, float4* __restrict__ out, size_t n4) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n4) out[i] = in[i];
}
// Two float4 a thread, half the array apart (both loads coalesced).
__global__ void copy_f4_x2(const float4* __restrict__ in, float4* __restrict__ out, size_t n4) {
  const size_t half = n4 / 2;
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < half) {
    const float4 a = in[i], b = in[i + half];
    out[i] = a;
    out[i + half] = b;
  }
}

class CopyF4Ilp : public Pair {
  DevBuf<float> in_, out_;
  const GenUniform g_{89, -3.0f, 6.0f};

 public:
  cudaError_t setup() override {
    ADV_TRY(in_.alloc(kRoofN4 * 4));
    ADV_TRY(out_.alloc(kRoofN4 * 4));
    return fill(in_.get(), in_.size(), g_);
  }
  cudaError_t poison(int) override { return out_.poison(); }
  cudaError_t launch(int v) override {
    const float4* in = reinterpret_cast<const float4*>(in_.get());
    float4* out = reinterpret_cast<float4*>(out_.get());
    if (v == kOrig)
      copy_f4<<<kBlocksFor(kRoofN4, kBlock), kBlock>>>(in, out, kRoofN4);
    else
      copy_f4_x2<<<kBlocksFor(kRoofN4 / 2, kBlock), kBlock>>>(in, out, kRoofN4);
    return cudaGetLastError();
  }
  bool check(int, std::string& why) override { return checkDevice("out", out_, g_, 0, 0, 1, why); }
  Shape shape(int v) const override {
    if (v == kOrig) return {reinterpret_cast<const void*>(copy_f4), kBlock, 0, kBlocksFor(kRoofN4, kBlock)};
    return {reinterpret_cast<const void*>(copy_f4_x2), kBlock, 0, kBlocksFor(kRoofN4 / 2, kBlock)};
  }
};
ADVICE_PAIR("copy_f4_ilp", CopyF4Ilp);

constexpr size_t kSaxpyN4 = size_t(16) << 20;  // 16M float4: 256 MiB per array, three arrays
__global__ void saxpy_f4(float a, const float4* __restrict__ x, const float4* __restrict__ y, float4* __restrict__ out,
                         size_t n4) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n4) {
    const float4 p = x[i], q = y[i];
    out[i] = make_float4(fmaf(a, p.x, q.x), fmaf(a, p.y, q.y), fmaf(a, p.z, q.z), fmaf(a, p.w, q.w));
  }
}

class SaxpyF4Block : public Pair {
  DevBuf<float> x_, y_, out_;
  const GenUniform gx_{97, -1.0f, 2.0f}, gy_{101, -1.0f, 2.0f};
  static constexpr unsigned kBlocks[2] = {256, 1024};

 public:
  cudaError_t setup() override {
    ADV_TRY(x_.alloc(kSaxpyN4 * 4));
    ADV_TRY(y_.alloc(kSaxpyN4 * 4));
    ADV_TRY(out_.alloc(kSaxpyN4 * 4));
    ADV_TRY(fill(x_.get(), x_.size(), gx_));
    return fill(y_.get(), y_.size(), gy_);
  }
  cudaError_t poison(int) override { return out_.poison(); }
  cudaError_t launch(int v) override {
    saxpy_f4<<<kBlocksFor(kSaxpyN4, kBlocks[v]), kBlocks[v]>>>(kSaA, reinterpret_cast<const float4*>(x_.get()),
                                                               reinterpret_cast<const float4*>(y_.get()),
                                                               reinterpret_cast<float4*>(out_.get()), kSaxpyN4);
    return cudaGetLastError();
  }
  bool check(int, std::string& why) override {
    return checkDevice("out", out_, [&](size_t i) { return std::fmaf(kSaA, gx_(i), gy_(i)); }, 0, 0, 1, why);
  }
  Shape shape(int v) const override {
    return {reinterpret_cast<const void*>(saxpy_f4), kBlocks[v], 0, kBlocksFor(kSaxpyN4, kBlocks[v])};
  }
};
ADVICE_PAIR("saxpy_f4_block", SaxpyF4Block);

// Four floats a thread, 256 apart within the block's 1024 (every load
// instruction coalesced, four in flight), against one float4 a thread.
constexpr size_t kIlpN = size_t(128) << 20;  // 512 MiB
__global__ void scale_f32_ilp4(const float* __restrict__ in, float* __restrict__ out, size_t n) {
  const size_t base = blockIdx.x * static_cast<size_t>(blockDim.x) * 4 + threadIdx.x;
  float v[4];
#pragma unroll
  for (int u = 0; u < 4; ++u) {
    const size_t i = base + static_cast<size_t>(u) * blockDim.x;
    v[u] = i < n ? in[i] : 0.0f;
  }
#pragma unroll
  for (int u = 0; u < 4; ++u) {
    const size_t i = base + static_cast<size_t>(u) * blockDim.x;
    if (i < n) out[i] = scaleOne(v[u]);
  }
}

class ScaleF32Ilp4 : public Pair {
  DevBuf<float> in_, out_;
  const GenUniform g_{103, -8.0f, 16.0f};

 public:
  cudaError_t setup() override {
    ADV_TRY(in_.alloc(kIlpN));
    ADV_TRY(out_.alloc(kIlpN));
    return fill(in_.get(), kIlpN, g_);
  }
  cudaError_t poison(int) override { return out_.poison(); }
  cudaError_t launch(int v) override {
    if (v == kOrig)
      scale_f32_ilp4<<<kBlocksFor(kIlpN, kBlock * 4), kBlock>>>(in_.get(), out_.get(), kIlpN);
    else
      scale_f32x4<<<kBlocksFor(kIlpN / 4, kBlock), kBlock>>>(reinterpret_cast<const float4*>(in_.get()),
                                                             reinterpret_cast<float4*>(out_.get()), kIlpN / 4);
    return cudaGetLastError();
  }
  bool check(int, std::string& why) override {
    return checkDevice("out", out_, [&](size_t i) { return scaleOne(g_(i)); }, 0, 0, 1, why);
  }
  Shape shape(int v) const override {
    if (v == kOrig) return {reinterpret_cast<const void*>(scale_f32_ilp4), kBlock, 0, kBlocksFor(kIlpN, kBlock * 4)};
    return {reinterpret_cast<const void*>(scale_f32x4), kBlock, 0, kBlocksFor(kIlpN / 4, kBlock)};
  }
};
ADVICE_PAIR("scale_f32_ilp4", ScaleF32Ilp4);

// ---- colsum_grid: a coalesced column sum at the DRAM roof on fewer blocks than SMs --------------------------
constexpr int kColRows = 2048;
constexpr int kColCols4 = 32768;  // float4 columns: 131072 floats a row, 1 GiB in all
constexpr unsigned kColBlocks = kColCols4 / kBlock;  // 128 blocks on 132 SMs

// Each thread sums one float4 column over rows [r0, r0 + rows), eight rows in
// flight (32 KiB a block), and adds its partial sums to out (zeroed first; with
// one or two partial sums per element, 0 + a + b is the same in any order).
__global__ void col_sum_f4(const float4* __restrict__ in, float* out, int rowsPerBlock) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int r0 = blockIdx.y * rowsPerBlock;
  float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll 8
  for (int r = r0; r < r0 + rowsPerBlock; ++r) {
    const float4 v = in[static_cast<size_t>(r) * kColCols4 + c];
    acc.x += v.x;
    acc.y += v.y;
    acc.z += v.z;
    acc.w += v.w;
  }
  atomicAdd(&out[4 * c + 0], acc.x);
  atomicAdd(&out[4 * c + 1], acc.y);
  atomicAdd(&out[4 * c + 2], acc.z);
  atomicAdd(&out[4 * c + 3], acc.w);
}

class ColsumGrid : public Pair {
  DevBuf<float> in_, out_;
  const GenSmallInt g_{107, 0, 4};

 public:
  cudaError_t setup() override {
    ADV_TRY(in_.alloc(size_t(kColRows) * kColCols4 * 4));
    ADV_TRY(out_.alloc(size_t(kColCols4) * 4));
    return fill(in_.get(), in_.size(), g_);
  }
  cudaError_t poison(int) override { return cudaSuccess; }  // prepare() zeroes it before every launch
  cudaError_t prepare(int) override { return out_.zero(); }
  cudaError_t launch(int v) override {
    const unsigned parts = v == kOrig ? 1 : 2;
    col_sum_f4<<<dim3(kColBlocks, parts), kBlock>>>(reinterpret_cast<const float4*>(in_.get()), out_.get(),
                                                    kColRows / static_cast<int>(parts));
    return cudaGetLastError();
  }
  bool check(int, std::string& why) override {
    const size_t cols = size_t(kColCols4) * 4;
    return checkDevice("out", out_,
                       [&](size_t col) {
                         float s = 0.0f;
                         for (int r = 0; r < kColRows; ++r) s += g_(static_cast<size_t>(r) * cols + col);
                         return s;
                       },
                       0, 0, 7, why);
  }
  Shape shape(int v) const override {
    return {reinterpret_cast<const void*>(col_sum_f4), kBlock, 0, kColBlocks * (v == kOrig ? 1ull : 2ull)};
  }
};
ADVICE_PAIR("colsum_grid", ColsumGrid);

// ---- tma_copy_tile: a bulk (TMA) copy at the DRAM roof -----------------------------------------------------
// One warp a block; thread 0 arms an mbarrier and issues one bulk copy global
// -> shared of a whole tile, every thread waits on the barrier, thread 0
// copies the tile back with one bulk store (kernels/async_copy_kernels.cuh's
// tma_copy, with the tile size a parameter).  32 KiB tiles leave 6 blocks an
// SM (6 of 64 warps: 9% occupancy) with 192 KiB in flight; the usual edit for
// "low occupancy" halves the tile (13 blocks, 20%).
constexpr size_t kTmaN4 = size_t(32) << 20;  // 32M float4: 512 MiB
template <unsigned kTile4>
__global__ void tma_copy_tiles(const float4* __restrict__ in, float4* __restrict__ out) {
  __shared__ alignas(128) float4 tile[kTile4];
  __shared__ uint64_t bar;
  const size_t base = blockIdx.x * static_cast<size_t>(kTile4);
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_init(&bar, 1);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();
  const uint32_t bytes = kTile4 * sizeof(float4);  // the wrappers take a reference
  if (threadIdx.x == 0) {
    (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                               &bar, bytes);
    cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, tile, in + base, bytes, &bar);
  }
  while (!cuda::ptx::mbarrier_try_wait_parity(&bar, 0u)) {
  }
  if (threadIdx.x == 0) {
    cuda::ptx::cp_async_bulk(cuda::ptx::space_global, cuda::ptx::space_shared, out + base, tile, bytes);
    cuda::ptx::cp_async_bulk_commit_group();
    cuda::ptx::cp_async_bulk_wait_group(cuda::ptx::n32_t<0>());
  }
}

class TmaCopyTile : public Pair {
  DevBuf<float4> in_, out_;
  static constexpr unsigned kBig = 2048, kSmall = 1024;  // float4 per tile: 32 KiB, 16 KiB

 public:
  cudaError_t setup() override {
    ADV_TRY(in_.alloc(kTmaN4));
    ADV_TRY(out_.alloc(kTmaN4));
    return fill(reinterpret_cast<float*>(in_.get()), kTmaN4 * 4, GenUniform{113, -1.0f, 2.0f});
  }
  cudaError_t poison(int) override { return out_.poison(); }
  cudaError_t launch(int v) override {
    if (v == kOrig)
      tma_copy_tiles<kBig><<<kTmaN4 / kBig, 32>>>(in_.get(), out_.get());
    else
      tma_copy_tiles<kSmall><<<kTmaN4 / kSmall, 32>>>(in_.get(), out_.get());
    return cudaGetLastError();
  }
  bool check(int, std::string& why) override {
    std::vector<float4> h;
    cudaError_t e = out_.toHost(h);
    if (e != cudaSuccess) {
      why = std::string("copy failed: ") + cudaGetErrorString(e);
      return false;
    }
    std::vector<float> flat(h.size() * 4);
    std::memcpy(flat.data(), h.data(), flat.size() * sizeof(float));
    return checkEach("out", flat, GenUniform{113, -1.0f, 2.0f}, 0, 0, 1, why);
  }
  Shape shape(int v) const override {
    if (v == kOrig) return {reinterpret_cast<const void*>(tma_copy_tiles<kBig>), 32, 0, kTmaN4 / kBig};
    return {reinterpret_cast<const void*>(tma_copy_tiles<kSmall>), 32, 0, kTmaN4 / kSmall};
  }
};
ADVICE_PAIR("tma_copy_tile", TmaCopyTile);

}  // namespace stream
}  // namespace advice
