// record_regions: regions whose snapshots tests/unit/test_recorded_snapshots.c
// reads (scripts/device/bench snapshots runs it under
// PERFCHECK_SNAPSHOT_DIR, which writes each region's snapshot when it ends).
//
//   record_regions streams timing|counters|plain
//     region "streams": two kernels of FMA chains, one block of 256 threads
//     on half the SMs each (so a wave is half a device: grid_too_small), on
//     two non-blocking streams, launched together so that they overlap when
//     nothing serializes them (~2 ms each).
//   record_regions graph timing|counters|plain
//     region "graph": a stream-captured graph of two elementwise kernels
//     (2^20 floats, blocks of 256) launched 3 times: graph kernels are never
//     range-profiled.
//
// "plain" runs the same launches without a session (for ncu, which holds
// CUPTI itself).  Each checks its results, so a recording of a wrong run
// fails.  Exit 0, 1 on a failure, 77 without a GPU.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gpu_test.h"

__global__ void streamChainsA(float* out, int iters) {
  float x = threadIdx.x * 1e-3f, y = 1.0f, z = 2.0f, w = 3.0f;
  for (int i = 0; i < iters; i += 4) {
    x = fmaf(x, 0.9999f, 1e-4f);
    y = fmaf(y, 0.9998f, 2e-4f);
    z = fmaf(z, 0.9997f, 3e-4f);
    w = fmaf(w, 0.9996f, 4e-4f);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x + y + z + w;
}

__global__ void streamChainsB(float* out, int iters) {
  float x = threadIdx.x * 2e-3f, y = 1.5f, z = 2.5f, w = 3.5f;
  for (int i = 0; i < iters; i += 4) {
    x = fmaf(x, 0.9995f, 5e-4f);
    y = fmaf(y, 0.9994f, 6e-4f);
    z = fmaf(z, 0.9993f, 7e-4f);
    w = fmaf(w, 0.9992f, 8e-4f);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x + y + z + w;
}

__global__ void graphAddOne(float* a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += 1.0f;
}

__global__ void graphAccumulate(const float* a, float* b, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] += a[i];
}

/* Region begin and end; no-ops without a session (plain). */
static void begin(perfcheck_session* s, const char* name) {
  if (s) GT_OK(perfcheck_session_begin(s, name));
}
static void end(perfcheck_session* s) {
  if (s) GT_OK(perfcheck_session_end(s));
}

static int streams(perfcheck_session* s) {
  int dev = 0, sms = 0;
  GT_CUDA(cudaGetDevice(&dev));
  GT_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const unsigned grid = static_cast<unsigned>(sms > 1 ? sms / 2 : 1);
  const int n = static_cast<int>(grid) * 256;
  float *a = nullptr, *b = nullptr;
  GT_CUDA(cudaMalloc(&a, n * sizeof(float)));
  GT_CUDA(cudaMalloc(&b, n * sizeof(float)));
  cudaStream_t sa, sb;
  GT_CUDA(cudaStreamCreateWithFlags(&sa, cudaStreamNonBlocking));
  GT_CUDA(cudaStreamCreateWithFlags(&sb, cudaStreamNonBlocking));
  // Calibrate to ~2 ms a kernel (outside the region, which also pays the first launch's setup).
  cudaEvent_t e0, e1;
  GT_CUDA(cudaEventCreate(&e0));
  GT_CUDA(cudaEventCreate(&e1));
  int iters = 1 << 16;
  float ms = 0.0f;
  for (int k = 0; k < 2; ++k) {
    GT_CUDA(cudaEventRecord(e0, sa));
    streamChainsA<<<grid, 256, 0, sa>>>(a, iters);
    GT_CUDA(cudaEventRecord(e1, sa));
    GT_CUDA(cudaEventSynchronize(e1));
    GT_CUDA(cudaEventElapsedTime(&ms, e0, e1));
  }
  GT_REQUIRE(ms > 0.0f, "calibration time %g ms", double(ms));
  iters = static_cast<int>(std::fmin(double(1 << 28), std::fmax(4.0, iters * 2.0 / ms)));
  iters -= iters % 4;
  streamChainsB<<<grid, 256, 0, sb>>>(b, 4);
  GT_CUDA(cudaDeviceSynchronize());

  begin(s, "streams");
  streamChainsA<<<grid, 256, 0, sa>>>(a, iters);
  streamChainsB<<<grid, 256, 0, sb>>>(b, iters);
  GT_CUDA(cudaGetLastError());
  end(s);
  GT_CUDA(cudaDeviceSynchronize());

  std::vector<float> ha(n), hb(n);
  GT_CUDA(cudaMemcpy(ha.data(), a, n * sizeof(float), cudaMemcpyDeviceToHost));
  GT_CUDA(cudaMemcpy(hb.data(), b, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    if (!std::isfinite(ha[i]) || !std::isfinite(hb[i]) || ha[i] == 0.0f || hb[i] == 0.0f) {
      GT_EXPECT(false, "out[%d] = %g, %g: a kernel did not run", i, double(ha[i]), double(hb[i]));
      break;
    }
  std::printf("streams: %u blocks of 256 per kernel on %d SMs, %d FMAs per thread\n", grid, sms, iters);
  GT_CUDA(cudaFree(a));
  GT_CUDA(cudaFree(b));
  return 0;
}

static int graph(perfcheck_session* s) {
  enum { kN = 1 << 20, kLaunches = 3 };
  float *a = nullptr, *b = nullptr;
  GT_CUDA(cudaMalloc(&a, kN * sizeof(float)));
  GT_CUDA(cudaMalloc(&b, kN * sizeof(float)));
  GT_CUDA(cudaMemset(a, 0, kN * sizeof(float)));
  GT_CUDA(cudaMemset(b, 0, kN * sizeof(float)));
  cudaStream_t st;
  GT_CUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  cudaGraph_t g;
  cudaGraphExec_t exec;
  GT_CUDA(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
  graphAddOne<<<kN / 256, 256, 0, st>>>(a, kN);
  graphAccumulate<<<kN / 256, 256, 0, st>>>(a, b, kN);
  GT_CUDA(cudaStreamEndCapture(st, &g));
  GT_CUDA(cudaGraphInstantiate(&exec, g, 0));
  begin(s, "graph");
  for (int k = 0; k < kLaunches; ++k) GT_CUDA(cudaGraphLaunch(exec, st));
  end(s);
  GT_CUDA(cudaStreamSynchronize(st));
  std::vector<float> hb(kN);
  GT_CUDA(cudaMemcpy(hb.data(), b, kN * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < kN; ++i)
    if (hb[i] != 6.0f) {  // 1 + 2 + 3
      GT_EXPECT(hb[i] == 6.0f, "b[%d] = %g, want 6", i, double(hb[i]));
      break;
    }
  GT_CUDA(cudaGraphExecDestroy(exec));
  GT_CUDA(cudaGraphDestroy(g));
  GT_CUDA(cudaFree(a));
  GT_CUDA(cudaFree(b));
  return 0;
}

int main(int argc, char** argv) {
  const bool plain = argc == 3 && std::strcmp(argv[2], "plain") == 0;
  if (argc != 3 || (!plain && std::strcmp(argv[2], "timing") != 0 && std::strcmp(argv[2], "counters") != 0) ||
      (std::strcmp(argv[1], "streams") != 0 && std::strcmp(argv[1], "graph") != 0)) {
    std::fprintf(stderr, "usage: %s streams|graph timing|counters|plain\n", argv[0]);
    return EXIT_FAILURE;
  }
  gt_require_gpu();
  perfcheck_session* s = nullptr;
  if (!plain) {
    s = gt_session(std::strcmp(argv[2], "timing") == 0 ? PERFCHECK_MODE_TIMING : PERFCHECK_MODE_COUNTERS);
    const char* note = perfcheck_session_message(s);
    if (note && *note) std::printf("session: %s\n", note);
  }
  if (std::strcmp(argv[1], "streams") == 0)
    streams(s);
  else
    graph(s);
  if (s && gt_failures) gt_print_report(gt_report(s));
  perfcheck_session_destroy(s);
  return gt_finish(argv[1]);
}
