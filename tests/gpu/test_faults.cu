// test_faults: misuse and failures that must not take the host program down.
//   - end without begin returns PERFCHECK_ERROR_NO_REGION;
//   - begin twice (nested) is fine;
//   - destroy with a region open does not crash, and a new session can follow;
//   - a kernel that faults: end returns PERFCHECK_ERROR_KERNEL_FAULT, the
//     session goes inert, and the report keeps what was collected before.
// The fault leaves a sticky error in the CUDA context, so it runs in a child:
// fork, then exec of this program with --fault-child (a fresh process, since a
// forked child cannot use CUDA once the parent has).
#include <sys/wait.h>
#include <unistd.h>

#include "gpu_test.h"

__global__ void faultOk(float* x) { x[threadIdx.x] = 1.0f; }
__global__ void faultWrite(float* bad) { bad[threadIdx.x] = 1.0f; }

static int faultChild() {
  gt_require_gpu();
  perfcheck_session* s = gt_session(PERFCHECK_MODE_TIMING);
  float* x = nullptr;
  GT_CUDA(cudaMalloc(&x, 256 * sizeof(float)));

  GT_OK(perfcheck_session_begin(s, "before"));
  faultOk<<<1, 256>>>(x);
  GT_CUDA(cudaGetLastError());
  GT_OK(perfcheck_session_end(s));

  GT_OK(perfcheck_session_begin(s, "faulty"));
  faultOk<<<1, 256>>>(x);
  GT_CUDA(cudaGetLastError());
  GT_CUDA(cudaDeviceSynchronize());
  faultWrite<<<1, 256>>>(reinterpret_cast<float*>(uintptr_t(16)));  // unmapped: illegal address
  GT_CUDA(cudaGetLastError());  // the launch itself is fine; the fault comes when it runs
  GT_STATUS(perfcheck_session_end(s), PERFCHECK_ERROR_KERNEL_FAULT);
  std::printf("end after the fault: message \"%s\"\n", perfcheck_session_message(s));
  const cudaError_t sticky = cudaDeviceSynchronize();
  GT_EXPECT(sticky == cudaErrorIllegalAddress, "the fault kernel gave %s, want cudaErrorIllegalAddress",
            cudaGetErrorName(sticky));
  GT_STATUS(perfcheck_session_begin(s, "after"), PERFCHECK_ERROR_INERT);

  const perfcheck_report* r = gt_report(s);
  perfcheck_region_info before = {}, faulty = {};
  perfcheck_kernel_info k = {};
  GT_EXPECT(gt_find_region(r, "before", &before), "region \"before\" lost after the fault");
  GT_EXPECT(before.launches == 1, "region before: %llu launches, want 1", static_cast<unsigned long long>(before.launches));
  GT_EXPECT(gt_find_kernel(r, "faultOk", "before", &k), "faultOk (region before) lost after the fault");
  GT_EXPECT(k.launches == 1, "faultOk: %llu launches, want 1", static_cast<unsigned long long>(k.launches));
  GT_EXPECT(gt_find_region(r, "faulty", &faulty), "region \"faulty\" not closed into the report");
  std::printf("faultOk in region faulty %s\n", gt_find_kernel(r, "faultOk", "faulty", &k) ? "kept" : "not kept");
  if (gt_failures) gt_print_report(r);
  perfcheck_session_destroy(s);  // must not crash on a faulted context
  return gt_finish("test_faults (child)");
}

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--fault-child") == 0) return faultChild();
  gt_require_gpu();

  perfcheck_session* s = gt_session(PERFCHECK_MODE_TIMING);
  GT_STATUS(perfcheck_session_end(s), PERFCHECK_ERROR_NO_REGION);
  GT_STATUS(perfcheck_session_end(nullptr), PERFCHECK_ERROR_INVALID_ARGUMENT);
  GT_STATUS(perfcheck_session_begin(s, nullptr), PERFCHECK_ERROR_INVALID_ARGUMENT);

  float* x = nullptr;
  GT_CUDA(cudaMalloc(&x, 256 * sizeof(float)));
  GT_STATUS(perfcheck_session_begin(s, "a"), PERFCHECK_OK);
  GT_STATUS(perfcheck_session_begin(s, "a"), PERFCHECK_OK);  // nested, same name
  faultOk<<<1, 256>>>(x);
  GT_CUDA(cudaGetLastError());
  GT_STATUS(perfcheck_session_end(s), PERFCHECK_OK);
  GT_STATUS(perfcheck_session_end(s), PERFCHECK_OK);
  GT_STATUS(perfcheck_session_end(s), PERFCHECK_ERROR_NO_REGION);

  GT_STATUS(perfcheck_session_begin(s, "left open"), PERFCHECK_OK);
  faultOk<<<1, 256>>>(x);
  GT_CUDA(cudaGetLastError());
  perfcheck_session_destroy(s);  // with a region open
  GT_CUDA(cudaDeviceSynchronize());
  s = gt_session(PERFCHECK_MODE_TIMING);  // the process is free for a new session
  GT_STATUS(perfcheck_session_begin(s, "again"), PERFCHECK_OK);
  GT_STATUS(perfcheck_session_end(s), PERFCHECK_OK);
  perfcheck_session_destroy(s);
  GT_CUDA(cudaFree(x));

  std::fflush(nullptr);
  const pid_t pid = fork();
  GT_REQUIRE(pid >= 0, "fork failed");
  if (pid == 0) {
    execl("/proc/self/exe", argv[0], "--fault-child", static_cast<char*>(nullptr));
    std::perror("execl /proc/self/exe");
    _exit(127);
  }
  int status = 0;
  GT_REQUIRE(waitpid(pid, &status, 0) == pid, "waitpid failed");
  if (WIFEXITED(status) && WEXITSTATUS(status) == GT_SKIP) gt_skip("the fault child skipped");
  GT_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0, "fault child %s %d",
            WIFSIGNALED(status) ? "died of signal" : "exited with",
            WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
  return gt_finish("test_faults");
}
