/* Whose kernel it is, from names that ran on the H200 (the advice corpus,
 * the production corpus and the held-out kernels: tests/data), and the knob
 * advice each library gets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "model/pc_core.h"
#include "check/pc_library.h"

static void expect_lib(const char *name, const char *lib) {
  const char *got = pc_library_of(name);
  if (!lib) {
    if (got) fail_msg("%s: %s, expected the user's own code", name ? name : "(null)", got);
    return;
  }
  if (!got || strcmp(got, lib) != 0) fail_msg("%s: %s, expected %s", name ? name : "(null)", got ? got : "(none)", lib);
}

static void test_names(void **state) {
  (void)state;
  expect_lib("nvjet_sm90_tst_128x256_64x4_2x1_v_ssched_bz_coopA_TNN", "cuBLAS");
  expect_lib("sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize64x128x32_warpgroupsize1x1x1_execute_segment_k_off_kernel",
             "cuBLAS");
  expect_lib("sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize256x128x8_stage3_warpsize4x2x1_ffma_aligna4_alignc4",
             "cuBLAS");
  expect_lib("sm90_xmma_fprop_implicit_gemm_f32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize128x128x32", "cuDNN");
  expect_lib("cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 128, true, 1, true>", "cuDNN");
  expect_lib("elemWiseRNNcell<float, float, float, (cudnnRNNMode_t)2, (cudnnRNNBiasMode_t)2>", "cuDNN");
  expect_lib("at_cuda_detail::cub::detail::radix_sort::DeviceRadixSortOnesweepKernel<Policy1000>", "CUB");
  expect_lib("cub::DeviceReduceKernel<Policy1000, int *, unsigned int>", "CUB");
  expect_lib("fmha_cutlassF_bf16_aligned_64x128_rf_sm80", "CUTLASS");
  expect_lib("regular_fft<1024u, EPT<16u>, 8u, 0u, (padding_t)14>", "cuFFT");
  expect_lib("vector_fft_symm_r2c<1024u, EPT<16u>, 1u, 0u>", "cuFFT");
  expect_lib("cusparse::csrmm_alg2_kernel<false, false, false, long, long, long, long, float>", "cuSPARSE");
  expect_lib("potrf_syrk_nc_kernel<float, 5, 6, 3, 3, 4>", "cuSOLVER");
  expect_lib("ncclDevKernel_AllReduce_Sum_f32_RING_LL", "NCCL");
  expect_lib("triton_red_fused_gelu_native_layer_norm_0", "Triton (torch.compile)");
  expect_lib("cupyx_scipy_ndimage_correlate_2d_reflect_w25_1", "CuPy");
  expect_lib("at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>", "PyTorch");
  expect_lib("at::native::<unnamed>::multi_tensor_apply_kernel<FusedOptimizerTensorListMetadata<4>>", "PyTorch");
  expect_lib("pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128>>", "PyTorch");
  expect_lib("input_reduce_fusion", "XLA");
  /* ncu prints some namespaces short: PyTorch's as native::, CUB's as
   * radix_sort::; and a template argument never names the owner. */
  expect_lib("native::<unnamed>::cunn_SoftMaxForward<4, float, float, float>", "PyTorch");
  expect_lib("radix_sort::DeviceRadixSortOnesweepKernel<radix::policy_hub<float, cub::OpaqueType<4>>>", "CUB");
  expect_lib("pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t>>",
             "PyTorch");
  /* The user's own kernels, and a CuPy RawKernel's (its own source). */
  expect_lib("mysteryA", NULL);
  expect_lib("advice::occ::chase<64, 1>", NULL);
  expect_lib("poly_eval", NULL);
  expect_lib("matmul_kernel", NULL);
  expect_lib("", NULL);
  expect_lib(NULL, NULL);
}

static void test_advice(void **state) {
  (void)state;
  char out[PC_ADVICE_MAX];
  assert_int_equal(pc_library_advice(NULL, PERFCHECK_CAUSE_AT_ROOF, out, sizeof out), 0);
  assert_string_equal(out, "");
  assert_int_equal(pc_library_advice("cuBLAS", PERFCHECK_CAUSE_LATENCY_BOUND, out, sizeof out), 1);
  assert_non_null(strstr(out, "multiples of 16"));
  assert_int_equal(pc_library_advice("cuBLAS", PERFCHECK_CAUSE_AT_ROOF, out, sizeof out), 1);
  assert_non_null(strstr(out, "lower precision"));
  assert_int_equal(pc_library_advice("PyTorch", PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS, out, sizeof out), 1);
  assert_non_null(strstr(out, ".contiguous()"));
  assert_int_equal(pc_library_advice("PyTorch", PERFCHECK_CAUSE_ATOMIC_CONTENTION, out, sizeof out), 1);
  assert_non_null(strstr(out, "sort or deduplicate the indices"));
  assert_int_equal(pc_library_advice("cuDNN", PERFCHECK_CAUSE_OCCUPANCY_REGISTERS, out, sizeof out), 1);
  assert_non_null(strstr(out, "channels_last"));
  /* No library advice says __launch_bounds__: the kernel is not the user's. */
  static const char *const libs[] = {"cuBLAS", "cuDNN", "CUB", "cuFFT", "cuSPARSE", "cuSOLVER", "CUTLASS", "NCCL",
                                     "cuRAND", "Triton (torch.compile)", "XLA", "CuPy", "PyTorch"};
  for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++)
    for (int c = 0; c < PERFCHECK_CAUSE_LIMIT_; c++) {
      assert_int_equal(pc_library_advice(libs[i], (perfcheck_cause)c, out, sizeof out), 1);
      assert_null(strstr(out, "launch_bounds"));
      assert_true(strlen(out) > 40);
    }
  assert_int_equal(pc_library_advice("cuBLAS", PERFCHECK_CAUSE_AT_ROOF, out, 0), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_names), cmocka_unit_test(test_advice)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
