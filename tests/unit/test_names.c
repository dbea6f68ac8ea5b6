/* Kernel names (lib/core/model/pc_names.c): demangling in a C program that has no
 * C++ runtime of its own (this test is C, linked with -Wl,--as-needed), the
 * short name and the display name.  The mangled names are real: g++ 12's
 * symbols for the same templates PyTorch instantiates (nm m.o), and their
 * demangled forms are binutils' c++filt's. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/pc_core.h"

static const char k_vec_mangled[] =
    "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_15CUDAFunctor_addIfEESt5arrayIPcLm2EEEEviT0_T1_";
static const char k_vec_demangled[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 2ul> >"
    "(int, at::native::CUDAFunctor_add<float>, std::array<char*, 2ul>)";

static void test_demangle_without_host_runtime(void **state) {
  (void)state;
  /* The point of the test: nothing in this process brought __cxa_demangle.
   * A sanitizer build is the one exception: libubsan links libstdc++, so
   * the C++ runtime is in the global scope there, and the demangler must be
   * found as the process's own. */
  const int host_has_runtime = dlsym(RTLD_DEFAULT, "__cxa_demangle") != NULL;
  if (host_has_runtime && !dlsym(RTLD_DEFAULT, "__ubsan_handle_add_overflow")) {
    print_message("this test binary has a C++ runtime in its global scope; it must be linked as C only\n");
    fail();
  }
  char *d = pc_demangle("_Z8mysteryAPKfPfm");
  assert_non_null(d);
  assert_string_equal(d, "mysteryA(float const*, float*, unsigned long)");
  free(d);
  if (host_has_runtime) {
    assert_string_equal(pc_demangler(), "__cxa_demangle of the process");
  } else {
    assert_string_equal(pc_demangler(), "libstdc++.so.6, loaded by perfcheck");
    /* Loaded RTLD_LOCAL: the host's global scope is unchanged. */
    assert_null(dlsym(RTLD_DEFAULT, "__cxa_demangle"));
  }
  d = pc_demangle(k_vec_mangled);
  assert_non_null(d);
  assert_string_equal(d, k_vec_demangled);
  free(d);
  /* nvcc's name of a file-static kernel: __nv_static_..._ then the _Z part
   * (NCCL's oneRankReduce on the H200, torch 2.11). */
  d = pc_demangle("__nv_static_32__b4148644_10_onerank_cu_fdf47990__ZN43_GLOBAL__N__b4148644_10_onerank_cu_"
                  "fdf4799013oneRankReduceI13FuncPreMulSumIfEEEvPvm");
  assert_non_null(d);
  assert_string_equal(d, "void (anonymous namespace)::oneRankReduce<FuncPreMulSum<float> >(void*, unsigned long)");
  free(d);
}

static void test_demangle_refuses(void **state) {
  (void)state;
  assert_null(pc_demangle(NULL));
  assert_null(pc_demangle("mysteryA"));          /* extern "C": not mangled */
  assert_null(pc_demangle("_Z"));                /* not a valid mangling */
  assert_null(pc_demangle("_Zjunk(((("));
}

static void check_display(const char *demangled, const char *want) {
  char *got = pc_kernel_display_name(demangled, PC_DISPLAY_NAME_MAX);
  assert_non_null(got);
  if (strcmp(got, want) != 0) fail_msg("display name of \"%s\":\n  got  \"%s\"\n  want \"%s\"", demangled, got, want);
  assert_true(strlen(got) <= PC_DISPLAY_NAME_MAX);
  free(got);
}

static void test_display_names(void **state) {
  (void)state;
  /* Namespaces go; the third template argument is elided to fit 64. */
  check_display(k_vec_demangled, "vectorized_elementwise_kernel<4, CUDAFunctor_add<float>, ...>");
  check_display("mysteryA(float const*, float*, unsigned long)", "mysteryA");
  check_display("mysteryA", "mysteryA");
  check_display("void scaleAdd<4>(float, const float *, float *)", "scaleAdd<4>");
  check_display("void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, false, false>(float*, "
                "float const*, int, int, int, bool const*, int, bool)",
                "softmax_warp_forward<float, float, float, 10, false, false>");
  check_display("void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>("
                "cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4::Params)",
                "Kernel2<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>");
  /* A lambda inside a template argument: its enclosing function is a qualifier. */
  check_display("void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::"
                "BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> > >(at::"
                "TensorIteratorBase&, at::native::BinaryFunctor<float, float, float, at::native::binary_internal::"
                "MulFunctor<float> > const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::"
                "BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> > >(at::"
                "TensorIteratorBase&, at::native::BinaryFunctor<float, float, float, at::native::binary_internal::"
                "MulFunctor<float> > const&)::{lambda(int)#1})",
                "elementwise_kernel<128, 2, {lambda(int)#1}>");
  /* Operators keep their symbols. */
  check_display("void ns::Functor::operator()(int)", "operator()");
  /* One argument too long on its own: its deepest nesting is cut first, until it fits. */
  check_display("void k<ns::A<ns::B<ns::C<int, int, int, int, int, int, int, int, int, int, int, int, int, int, "
                "int> > > >(int)",
                "k<A<B<C<...>>>>");
  /* A bare identifier longer than the limit is cut with "...". */
  char longid[200];
  memset(longid, 'x', 150);
  longid[150] = '\0';
  char *got = pc_kernel_display_name(longid, PC_DISPLAY_NAME_MAX);
  assert_non_null(got);
  assert_int_equal(strlen(got), PC_DISPLAY_NAME_MAX);
  assert_string_equal(got + PC_DISPLAY_NAME_MAX - 3, "...");
  free(got);
  assert_null(pc_kernel_display_name(NULL, 64));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_demangle_without_host_runtime),
      cmocka_unit_test(test_demangle_refuses),
      cmocka_unit_test(test_display_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
