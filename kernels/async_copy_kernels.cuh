// async_copy_kernels.cuh: y = 2x + 1 (and a plain copy) whose global loads
// go through cp.async (LDGSTS) or the Tensor Memory Accelerator (TMA bulk
// copies), not LSU loads (shared by kernels/async_copy.cu and the GPU tests).
// sm_90 only: build with -arch=sm_90 or newer.
//
// The PTX comes from libcu++'s cuda::ptx wrappers (CCCL, part of the CUDA
// toolkit), and cp.async from cuda_pipeline.h's primitives, rather than
// hand-written inline assembly: both are NVIDIA's own spelling of the
// instructions, checked by the compiler for the target architecture.
#pragma once

#include <cuda/ptx>
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

constexpr size_t kAsyncBytes = size_t(512) << 20;  // 512 MiB per buffer
constexpr size_t kAsyncN4 = kAsyncBytes / sizeof(float4);
constexpr unsigned kLdgstsBlock = 256;
constexpr unsigned kTmaTile4 = 2048;  // float4s per block and bulk copy: 32 KiB
constexpr uint32_t kTmaTileBytes = kTmaTile4 * sizeof(float4);
constexpr unsigned kTmaBlock = 256;  // threads of the TMA kernels that compute
constexpr unsigned kTmaCopyBlock = 32;  // tma_copy: one warp, one thread issues

// Small integer-valued floats, so every result is exact.
__host__ __device__ inline float asyncPattern(size_t w) {
  return static_cast<float>((static_cast<uint32_t>(w) * 2246822519u) >> 20);
}
__host__ __device__ inline float4 asyncTwoXPlusOne(float4 v) {
  return make_float4(2.0f * v.x + 1.0f, 2.0f * v.y + 1.0f, 2.0f * v.z + 1.0f, 2.0f * v.w + 1.0f);
}

// cp.async: every thread copies its own 16 bytes global -> shared
// (LDGSTS, no register round trip), two stages deep over a grid-stride loop,
// then computes from shared memory and stores with an LSU store.  A thread
// reads back only what it copied itself, so its own pipeline wait is enough.
__global__ void ldgsts_scale(const float4* __restrict__ in, float4* __restrict__ out, size_t n4) {
  __shared__ float4 stage[2][kLdgstsBlock];
  const size_t step = gridDim.x * static_cast<size_t>(blockDim.x);
  size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n4) __pipeline_memcpy_async(&stage[0][threadIdx.x], &in[i], sizeof(float4));
  __pipeline_commit();
  unsigned s = 0;
  for (; i < n4; i += step) {
    const size_t next = i + step;
    if (next < n4) __pipeline_memcpy_async(&stage[s ^ 1u][threadIdx.x], &in[next], sizeof(float4));
    __pipeline_commit();
    __pipeline_wait_prior(1);  // the copy into stage[s] has landed
    out[i] = asyncTwoXPlusOne(stage[s][threadIdx.x]);
    s ^= 1u;
  }
  __pipeline_wait_prior(0);
}

// One 32 KiB tile per block: thread 0 arms an mbarrier with the byte count
// and issues one bulk copy global -> shared; every thread waits on the
// barrier's phase 0.
__device__ inline void tmaLoadTile(float4* tile, const float4* src, uint64_t* bar) {
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_init(bar, 1);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    const uint32_t bytes = kTmaTileBytes;  // the wrappers take a reference: a local, not the constant
    (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                               cuda::ptx::space_shared, bar, bytes);
    cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, tile, src, bytes, bar);
  }
  while (!cuda::ptx::mbarrier_try_wait_parity(bar, 0u)) {
  }
}

// Thread 0 stores the tile back with one bulk copy shared -> global and
// waits for it; the caller has made its shared-memory writes visible to the
// async proxy (fence.proxy.async) and synchronized the block.
__device__ inline void tmaStoreTile(float4* dst, const float4* tile) {
  if (threadIdx.x == 0) {
    const uint32_t bytes = kTmaTileBytes;
    cuda::ptx::cp_async_bulk(cuda::ptx::space_global, cuda::ptx::space_shared, dst, tile, bytes);
    cuda::ptx::cp_async_bulk_commit_group();
    cuda::ptx::cp_async_bulk_wait_group(cuda::ptx::n32_t<0>());
  }
}

// TMA loads, LSU stores: the threads read the tile from shared memory and
// store the results with ordinary global stores.
__global__ void tma_load_scale(const float4* __restrict__ in, float4* __restrict__ out) {
  __shared__ alignas(128) float4 tile[kTmaTile4];
  __shared__ uint64_t bar;
  const size_t base = blockIdx.x * static_cast<size_t>(kTmaTile4);
  tmaLoadTile(tile, in + base, &bar);
  for (unsigned k = threadIdx.x; k < kTmaTile4; k += blockDim.x) out[base + k] = asyncTwoXPlusOne(tile[k]);
}

// Global traffic by TMA only: bulk load, the threads compute in shared
// memory, bulk store.  No LSU global load or store at all.
__global__ void tma_scale(const float4* __restrict__ in, float4* __restrict__ out) {
  __shared__ alignas(128) float4 tile[kTmaTile4];
  __shared__ uint64_t bar;
  const size_t base = blockIdx.x * static_cast<size_t>(kTmaTile4);
  tmaLoadTile(tile, in + base, &bar);
  for (unsigned k = threadIdx.x; k < kTmaTile4; k += blockDim.x) tile[k] = asyncTwoXPlusOne(tile[k]);
  cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
  __syncthreads();
  tmaStoreTile(out + base, tile);
}

// TMA only, and no thread touches the data: bulk load, bulk store.
__global__ void tma_copy(const float4* __restrict__ in, float4* __restrict__ out) {
  __shared__ alignas(128) float4 tile[kTmaTile4];
  __shared__ uint64_t bar;
  const size_t base = blockIdx.x * static_cast<size_t>(kTmaTile4);
  tmaLoadTile(tile, in + base, &bar);
  tmaStoreTile(out + base, tile);
}
