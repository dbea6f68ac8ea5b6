// inject_nvtx [--term | --exit-in-range | --fork | --fault]: a CUDA program with NVTX
// ranges that knows nothing of perfcheck (plain nvcc, static cudart, no link
// to libperfcheck), for tests/gpu/test_inject.sh.  Under the injection
// library each range becomes a region:
//   nvtx_fill (grid 64)   outside any range       -> kernel entry, no region
//   "first"   nvtxRangePushA / nvtxRangePop        -> nvtx_fill (grid 128)
//   "second"  nvtx3::scoped_range, i.e. nvtxDomainRangePushEx / Pop in the
//             global domain                        -> nvtx_scale
//   "outer" { "inner" }  nested nvtxRangePushA     -> nvtx_fill (grid 256) in inner
//   "phase"   nvtxRangeStartEx / nvtxRangeEnd, a start/end range ended on
//             another thread                       -> nvtx_scale (grid 512)
// Every kernel's output is checked on the host; the program exits 3, which
// must pass through the injection library unchanged.
//   --term           raise(SIGTERM) inside "second", after its kernel: the
//                    report is written anyway, then the process dies of it
//   --exit-in-range  exit(5) inside "second", after its kernel
//   --fork           fork after the ranges; the child exits 0 through exit()
//                    and must write no report of its own
//   --fault          a kernel writes through a null pointer inside "second":
//                    the program fails (exit 1); the report keeps what ran
#include <nvtx3/nvToolsExt.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nvtx3/nvtx3.hpp>
#include <thread>
#include <vector>

#define CHECK(call)                                                                             \
  do {                                                                                          \
    cudaError_t e_ = (call);                                                                    \
    if (e_ != cudaSuccess) {                                                                    \
      std::fprintf(stderr, "inject_nvtx: %s: %s\n", #call, cudaGetErrorString(e_));             \
      std::exit(1);                                                                             \
    }                                                                                           \
  } while (0)

constexpr int kN = 1 << 16, kBlock = 256;

__global__ void nvtx_fill(float* x, int n, float v) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) x[i] = v;
}
__global__ void nvtx_scale(float* x, int n, float a) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) x[i] *= a;
}
__global__ void nvtx_fault(float* x) { x[threadIdx.x] = 1.0f; }

static void expect(float* d, float want, const char* what) {
  std::vector<float> h(kN);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(h.data(), d, kN * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < kN; ++i)
    if (h[i] != want) {
      std::fprintf(stderr, "inject_nvtx: FAIL %s: x[%d] = %g, want %g\n", what, i, double(h[i]), double(want));
      std::exit(1);
    }
  std::printf("inject_nvtx: %s checked\n", what);
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  float* d = nullptr;
  CHECK(cudaMalloc(&d, kN * sizeof(float)));
  nvtx_fill<<<64, kBlock>>>(d, kN, 1.0f);
  expect(d, 1.0f, "fill outside the ranges");

  nvtxRangePushA("first");
  nvtx_fill<<<128, kBlock>>>(d, kN, 2.0f);
  expect(d, 2.0f, "fill in first");
  nvtxRangePop();

  {
    nvtx3::scoped_range second{"second"};
    nvtx_scale<<<128, kBlock>>>(d, kN, 3.0f);
    expect(d, 6.0f, "scale in second");
    if (std::strcmp(mode, "--term") == 0) {
      std::fflush(stdout);
      raise(SIGTERM);
      sleep(30);  // the injection library's watcher writes the report, then the signal ends us
      std::fprintf(stderr, "inject_nvtx: FAIL still alive 30 s after SIGTERM\n");
      return 1;
    }
    if (std::strcmp(mode, "--fault") == 0) {
      nvtx_fault<<<1, 32>>>(nullptr);
      CHECK(cudaDeviceSynchronize());  // the illegal address: exit(1)
    }
    if (std::strcmp(mode, "--exit-in-range") == 0) {
      std::fflush(stdout);
      std::exit(5);
    }
  }

  nvtxRangePushA("outer");
  nvtxRangePushA("inner");
  nvtx_fill<<<256, kBlock>>>(d, kN, 4.0f);
  expect(d, 4.0f, "fill in inner");
  nvtxRangePop();
  nvtxRangePop();

  {
    nvtxEventAttributes_t a{};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = "phase";
    const nvtxRangeId_t id = nvtxRangeStartEx(&a);
    nvtx_scale<<<512, kBlock>>>(d, kN, 0.5f);
    expect(d, 2.0f, "scale in phase");
    std::thread([id] { nvtxRangeEnd(id); }).join();  // a start/end range belongs to the process
  }

  if (std::strcmp(mode, "--fork") == 0) {
    std::fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) std::exit(0);  // atexit handlers run in the child too
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
      std::fprintf(stderr, "inject_nvtx: FAIL the forked child did not exit 0\n");
      return 1;
    }
  }
  CHECK(cudaFree(d));
  std::printf("inject_nvtx: done\n");
  return 3;
}
