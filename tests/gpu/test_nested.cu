// test_nested: outer { inner { k1 } k2 }: k1 belongs to inner, k2 to outer,
// inner's parent is outer, and outer counts both launches.
#include "gpu_test.h"

__global__ void nestedInner(int* x) { x[threadIdx.x] += 1; }
__global__ void nestedOuter(int* x) { x[threadIdx.x] += 10; }

int main() {
  gt_require_gpu();
  perfcheck_session* s = gt_session(PERFCHECK_MODE_TIMING);
  int* x = nullptr;
  GT_CUDA(cudaMalloc(&x, 256 * sizeof(int)));
  GT_CUDA(cudaMemset(x, 0, 256 * sizeof(int)));

  GT_OK(perfcheck_session_begin(s, "outer"));
  GT_OK(perfcheck_session_begin(s, "inner"));
  nestedInner<<<1, 256>>>(x);
  GT_CUDA(cudaGetLastError());
  GT_OK(perfcheck_session_end(s));
  nestedOuter<<<1, 256>>>(x);
  GT_CUDA(cudaGetLastError());
  GT_OK(perfcheck_session_end(s));

  const perfcheck_report* r = gt_report(s);
  perfcheck_region_info outer = {}, inner = {};
  perfcheck_kernel_info k1 = {}, k2 = {};
  GT_REQUIRE(gt_find_region(r, "outer", &outer), "no region \"outer\"");
  GT_REQUIRE(gt_find_region(r, "inner", &inner), "no region \"inner\"");
  GT_EXPECT(outer.parent == nullptr, "outer's parent is %s, want none", outer.parent);
  GT_EXPECT(gt_streq(inner.parent, "outer"), "inner's parent is %s, want outer", inner.parent ? inner.parent : "(none)");
  GT_EXPECT(outer.launches == 2, "outer launches %llu, want 2", static_cast<unsigned long long>(outer.launches));
  GT_EXPECT(inner.launches == 1, "inner launches %llu, want 1", static_cast<unsigned long long>(inner.launches));
  GT_EXPECT(gt_find_kernel(r, "nestedInner", "inner", &k1), "nestedInner is not in region inner");
  GT_EXPECT(gt_find_kernel(r, "nestedOuter", "outer", &k2), "nestedOuter is not in region outer");
  GT_EXPECT(!gt_find_kernel(r, "nestedInner", "outer", &k1), "nestedInner also listed in region outer");
  GT_EXPECT(!gt_find_kernel(r, "nestedOuter", "inner", &k2), "nestedOuter listed in region inner");
  GT_EXPECT(outer.wall_ns >= inner.wall_ns, "outer wall %.0f ns shorter than inner %.0f ns", outer.wall_ns,
            inner.wall_ns);

  int h[256];
  GT_CUDA(cudaMemcpy(h, x, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 256; ++i)
    if (h[i] != 11) {
      GT_EXPECT(h[i] == 11, "x[%d] = %d, want 11", i, h[i]);
      break;
    }
  if (gt_failures) gt_print_report(r);
  perfcheck_session_destroy(s);
  GT_CUDA(cudaFree(x));
  return gt_finish("test_nested");
}
