/* Names and values (pc_values.c): short kernel names, value lookup by name,
 * and the public report accessors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "model/pc_core.h"
#include "check/pc_check.h"

#define assert_near(a, b, eps)                                                                  \
  do {                                                                                          \
    double a_ = (a), b_ = (b);                                                                  \
    if (!(fabs(a_ - b_) <= (eps))) fail_msg("%s = %.9g, expected %.9g (+-%g)", #a, a_, b_, (double)(eps)); \
  } while (0)

static void check_short(const char *in, const char *want) {
  char out[256];
  memset(out, 'x', sizeof out);
  assert_ptr_equal(pc_kernel_short_name(in, out, sizeof out), out);
  if (strcmp(out, want) != 0) fail_msg("short name of \"%s\" is \"%s\", expected \"%s\"", in, out, want);
}

static void test_short_names(void **state) {
  (void)state;
  /* ncu's spellings (report-contract.md, seed 000, seed 003). */
  check_short("void scaleAdd<4>(float, const float *, const float *, float *, unsigned long)", "scaleAdd<4>");
  check_short("mysteryA(const float *, float *, unsigned long)", "mysteryA");
  check_short("scale(const float *, float *, int)", "scale");
  check_short("add_one(float *, int, int)", "add_one");
  /* Plain names. */
  check_short("mysteryA", "mysteryA");
  check_short("  mysteryB  ", "mysteryB");
  check_short("ns::k<int, 4>", "ns::k<int, 4>");
  /* Templates holding parentheses, namespaces, function-pointer parameters. */
  check_short("void ns::k<(int)2>(float *)", "ns::k<(int)2>");
  check_short("void ns::inner::k<(int)2, (bool)1>(const float *, int)", "ns::inner::k<(int)2, (bool)1>");
  check_short("void apply(void (*)(int), int)", "apply");
  check_short("void (anonymous namespace)::fill<float>(float *, float)", "(anonymous namespace)::fill<float>");
  check_short("std::pair<int, int> ns::f<std::pair<int, int>>(int)", "ns::f<std::pair<int, int>>");
  check_short("void cutlass::Kernel<cutlass::gemm::kernel::Gemm<(int)128, (int)64>>(T1::Params)",
              "cutlass::Kernel<cutlass::gemm::kernel::Gemm<(int)128, (int)64>>");
  /* operator() and other operator names. */
  check_short("void Functor::operator()(int)", "Functor::operator()");
  check_short("void ns::Op<(int)1>::operator()(float *) ", "ns::Op<(int)1>::operator()");
  check_short("void ns::operator<<(int)", "ns::operator<<");
  check_short("void my_operator(int)", "my_operator");
  /* Nothing to strip, or nothing left. */
  check_short("", "");
  check_short("   ", "");
  check_short("k()", "k");
  check_short("(int)", "(int)");
}

static void test_short_names_truncation(void **state) {
  (void)state;
  char out[6];
  pc_kernel_short_name("void scaleAdd<4>(float)", out, sizeof out);
  assert_string_equal(out, "scale");
  char one[1] = {'x'};
  pc_kernel_short_name("mysteryA", one, 1);
  assert_int_equal(one[0], '\0');
  assert_null(pc_kernel_short_name("mysteryA", NULL, 8));
  char buf[8] = "zzz";
  pc_kernel_short_name(NULL, buf, sizeof buf);
  assert_string_equal(buf, "");
  /* A long name (heap scratch path). */
  char longname[1200], want[1200], got[1200];
  strcpy(longname, "void ");
  strcpy(want, "");
  for (int i = 0; i < 100; i++) strcat(want, "ns::");
  strcat(want, "k<1>");
  strcat(longname, want);
  strcat(longname, "(int)");
  pc_kernel_short_name(longname, got, sizeof got);
  assert_string_equal(got, want);
}

/* A kernel as the core would hold it after a diagnosis. */
static void fill_kernel(pc_kernel *k) {
  pc_kernel_init(k);
  k->name = strdup("mysteryA");
  k->mangled = strdup("_Z8mysteryAPKfPfm");
  k->region = strdup("step");
  k->grid[0] = 16384, k->grid[1] = 1, k->grid[2] = 1;
  k->block[0] = 256, k->block[1] = 1, k->block[2] = 1;
  k->dynamic_smem = 0;
  k->launches = 3;
  k->dur_min_ns = 440000, k->dur_median_ns = 449000, k->dur_max_ns = 460000;
  k->attr.registers_per_thread = 8;
  k->attr.static_smem = 0;
  k->attr.dynamic_smem = 0;
  k->attr.blocks_per_sm = 4;
  k->attr.warps_per_sm = 32;
  k->attr.theoretical_occupancy_pct = 100;
  k->attr.limit_warps = 4, k->attr.limit_blocks = 16, k->attr.limit_registers = 32, k->attr.limit_shared_mem = 16;
  k->metric[PC_M_LD_SECTORS] = 4182507.52; /* 31.91 per request */
  k->metric[PC_M_LD_REQUESTS] = 131072;
  k->metric_via_substitute[PC_M_LD_REQUESTS] = 1;
  k->metric[PC_M_ST_SECTORS] = 4194304; /* 32 per request */
  k->metric[PC_M_ST_REQUESTS] = 131072;
  k->metric[PC_M_THREAD_INST_PER_INST] = 32;
  k->metric[PC_M_WARPS_ACTIVE_PCT] = 81.90;
  k->nextra = 1;
  k->extra_names = calloc(1, sizeof *k->extra_names);
  k->extra_values = calloc(1, sizeof *k->extra_values);
  k->extra_names[0] = strdup("smsp__inst_executed.sum");
  k->extra_values[0] = 1234;
}

static pc_device t4(void) {
  pc_device d;
  pc_device_init(&d);
  d.cc_major = 7, d.cc_minor = 5, d.sm_count = 40, d.warp_size = 32;
  d.max_threads_per_sm = 1024, d.max_threads_per_block = 1024, d.max_blocks_per_sm = 16;
  d.max_regs_per_sm = 65536, d.max_regs_per_block = 65536;
  d.max_smem_per_sm = 65536, d.max_smem_per_block = 49152, d.max_smem_per_block_optin = 65536;
  pc_device_fill_granularities(&d);
  d.ridge_flop_per_byte = 33.09;
  return d;
}

static void check_value(const pc_kernel *k, const char *name, perfcheck_status st, double want) {
  double v = -12345;
  perfcheck_status got = pc_kernel_value(k, name, &v);
  if (got != st) fail_msg("%s: status %d, expected %d", name, got, st);
  if (st == PERFCHECK_OK)
    assert_near(v, want, 1e-9 * (fabs(want) + 1));
  else
    assert_true(isnan(v));
}

static void test_kernel_value(void **state) {
  (void)state;
  pc_kernel k;
  fill_kernel(&k);
  pc_device d = t4();
  pc_checklist_kernel(&k, &d, NULL);

  /* ncu names, the older alias, the substitute. */
  check_value(&k, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", PERFCHECK_OK, 131072);
  check_value(&k, "smsp__sass_inst_executed_op_global_ld.sum", PERFCHECK_OK, 131072);
  check_value(&k, "smsp__average_thread_inst_executed_per_inst_executed.ratio", PERFCHECK_OK, 32);
  check_value(&k, "smsp__thread_inst_executed_per_inst_executed.ratio", PERFCHECK_OK, 32);
  check_value(&k, "gpu__time_duration.sum", PERFCHECK_ERROR_NOT_MEASURED, 0);
  check_value(&k, "sm__throughput.avg.pct_of_peak_sustained_elapsed", PERFCHECK_ERROR_NOT_MEASURED, 0);
  /* launch__* values. */
  check_value(&k, "launch__registers_per_thread", PERFCHECK_OK, 8);
  check_value(&k, "launch__shared_mem_per_block_static", PERFCHECK_OK, 0);
  check_value(&k, "launch__shared_mem_per_block_dynamic", PERFCHECK_OK, 0);
  check_value(&k, "launch__occupancy_limit_warps", PERFCHECK_OK, 4);
  check_value(&k, "launch__occupancy_limit_blocks", PERFCHECK_OK, 16);
  check_value(&k, "launch__occupancy_limit_registers", PERFCHECK_OK, 32);
  check_value(&k, "launch__occupancy_limit_shared_mem", PERFCHECK_OK, 16);
  check_value(&k, "launch__waves_per_multiprocessor", PERFCHECK_OK, 16384.0 / (4 * 40));
  check_value(&k, "launch__grid_size", PERFCHECK_OK, 16384);
  check_value(&k, "launch__block_size", PERFCHECK_OK, 256);
  check_value(&k, "launch__thread_count", PERFCHECK_OK, 16384.0 * 256);
  check_value(&k, "sm__maximum_warps_per_active_cycle_pct", PERFCHECK_OK, 100);
  /* Derived names. */
  check_value(&k, "sectors_per_request_ld", PERFCHECK_OK, 31.91);
  check_value(&k, "sectors_per_request_st", PERFCHECK_OK, 32);
  check_value(&k, "threads_per_instruction", PERFCHECK_OK, 32);
  check_value(&k, "achieved_occupancy_pct", PERFCHECK_OK, 81.90);
  check_value(&k, "theoretical_occupancy_pct", PERFCHECK_OK, 100);
  check_value(&k, "waves_per_sm", PERFCHECK_OK, 102.4);
  check_value(&k, "arithmetic_intensity", PERFCHECK_ERROR_NOT_MEASURED, 0);
  check_value(&k, "step", PERFCHECK_OK, 3);
  check_value(&k, "duration_ns_median", PERFCHECK_OK, 449000);
  check_value(&k, "launches", PERFCHECK_OK, 3);
  /* Known, not measured (no metric measured twice), then measured. */
  check_value(&k, "counter_spread", PERFCHECK_ERROR_NOT_MEASURED, 0);
  k.counter_spread = 0.13;
  check_value(&k, "counter_spread", PERFCHECK_OK, 0.13);
  /* A metric the user added by name. */
  check_value(&k, "smsp__inst_executed.sum", PERFCHECK_OK, 1234);
  /* Unknown. */
  check_value(&k, "dram__bytes.sum", PERFCHECK_ERROR_NOT_FOUND, 0);
  check_value(&k, "", PERFCHECK_ERROR_NOT_FOUND, 0);
  double v;
  assert_int_equal(pc_kernel_value(NULL, "step", &v), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_int_equal(pc_kernel_value(&k, NULL, &v), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_int_equal(pc_kernel_value(&k, "step", NULL), PERFCHECK_ERROR_INVALID_ARGUMENT);
  pc_kernel_free(&k);
}

static pc_report *make_report(void) {
  pc_report *r = pc_report_new();
  assert_non_null(r);
  r->device = t4();
  pc_region *g = pc_report_add_region(r);
  assert_non_null(g);
  g->name = strdup("step");
  g->wall_ns = 10e6;
  g->kernel_ns = 2e6;
  g->memcpy_ns = 7e6;
  g->launches = 3;
  pc_kernel *k = pc_report_add_kernel(r);
  assert_non_null(k);
  fill_kernel(k);
  pc_checklist_report(r);
  return r;
}

static void test_report_kernel_info(void **state) {
  (void)state;
  pc_report *r = make_report();
  assert_int_equal(perfcheck_report_kernel_count(r), 1);
  assert_int_equal(perfcheck_report_region_count(r), 1);
  assert_int_equal(perfcheck_report_kernel_count(NULL), 0);
  assert_int_equal(perfcheck_report_region_count(NULL), 0);

  perfcheck_kernel_info info;
  memset(&info, 0, sizeof info);
  info.size = sizeof info;
  assert_int_equal(perfcheck_report_kernel(r, 0, &info), PERFCHECK_OK);
  assert_int_equal(info.size, sizeof info);
  assert_string_equal(info.name, "mysteryA");
  assert_string_equal(info.mangled, "_Z8mysteryAPKfPfm");
  assert_string_equal(info.region, "step");
  assert_int_equal(info.grid[0], 16384);
  assert_int_equal(info.block[0], 256);
  assert_int_equal(info.launches, 3);
  assert_near(info.duration_ns_median, 449000, 0);
  assert_near(info.registers_per_thread, 8, 0);
  assert_near(info.blocks_per_sm, 4, 0);
  assert_near(info.sectors_per_request_ld, 31.91, 1e-9);
  assert_near(info.achieved_occupancy_pct, 81.90, 1e-9);
  assert_true(isnan(info.arithmetic_intensity));
  /* The region (20% kernel time) was caught at step 1, but the kernel keeps
   * its own verdict from steps 2-5: uncoalesced loads. */
  assert_int_equal(info.step, 3);
  assert_int_equal(info.cause, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS);
  assert_string_equal(info.metric, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum / "
                                   "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum");
  assert_near(info.value, 31.91, 1e-9);
  assert_true(strlen(info.advice) > 20);

  perfcheck_region_info ri;
  memset(&ri, 0, sizeof ri);
  ri.size = sizeof ri;
  assert_int_equal(perfcheck_report_region(r, 0, &ri), PERFCHECK_OK);
  assert_string_equal(ri.name, "step");
  assert_null(ri.parent);
  assert_near(ri.kernel_share, 0.2, 1e-12);
  assert_near(ri.memcpy_ns, 7e6, 0);
  assert_int_equal(ri.step, 1);
  assert_int_equal(ri.cause, PERFCHECK_CAUSE_NOT_THE_SLOW_PART);
  assert_true(strlen(ri.advice) > 20);

  assert_int_equal(perfcheck_report_kernel(r, 1, &info), PERFCHECK_ERROR_NOT_FOUND);
  assert_non_null(strstr(perfcheck_last_error_message(), "no kernel 1"));
  assert_int_equal(perfcheck_report_region(r, 5, &ri), PERFCHECK_ERROR_NOT_FOUND);
  assert_int_equal(perfcheck_report_kernel(NULL, 0, &info), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_int_equal(perfcheck_report_kernel(r, 0, NULL), PERFCHECK_ERROR_INVALID_ARGUMENT);
  perfcheck_report_destroy(r);
  perfcheck_report_destroy(NULL);
}

/* An older caller's struct: only its prefix is written. */
static void test_report_kernel_small_size(void **state) {
  (void)state;
  pc_report *r = make_report();
  unsigned char buf[sizeof(perfcheck_kernel_info) + 16];

  /* Too small even for the size field. */
  memset(buf, 0xab, sizeof buf);
  perfcheck_kernel_info *info = (perfcheck_kernel_info *)(void *)buf;
  info->size = sizeof(size_t) - 1;
  assert_int_equal(perfcheck_report_kernel(r, 0, info), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_int_equal(info->size, sizeof(size_t) - 1);
  for (size_t i = sizeof(size_t); i < sizeof buf; i++) assert_int_equal(buf[i], 0xab);
  info->size = 0;
  assert_int_equal(perfcheck_report_kernel(r, 0, info), PERFCHECK_ERROR_INVALID_ARGUMENT);

  /* Just the size field: OK, nothing else written. */
  memset(buf, 0xab, sizeof buf);
  info->size = sizeof(size_t);
  assert_int_equal(perfcheck_report_kernel(r, 0, info), PERFCHECK_OK);
  assert_int_equal(info->size, sizeof(size_t));
  for (size_t i = sizeof(size_t); i < sizeof buf; i++) assert_int_equal(buf[i], 0xab);

  /* A struct that ends after grid[]: name, mangled, region, grid only. */
  memset(buf, 0xab, sizeof buf);
  const size_t upto = offsetof(perfcheck_kernel_info, block);
  info->size = upto;
  assert_int_equal(perfcheck_report_kernel(r, 0, info), PERFCHECK_OK);
  assert_string_equal(info->name, "mysteryA");
  assert_int_equal(info->grid[0], 16384);
  for (size_t i = upto; i < sizeof buf; i++) assert_int_equal(buf[i], 0xab);

  /* A newer caller's bigger struct: only what we know is written. */
  memset(buf, 0xab, sizeof buf);
  info->size = sizeof buf;
  assert_int_equal(perfcheck_report_kernel(r, 0, info), PERFCHECK_OK);
  assert_int_equal(info->size, sizeof buf);
  for (size_t i = sizeof(perfcheck_kernel_info); i < sizeof buf; i++) assert_int_equal(buf[i], 0xab);

  /* Regions the same way. */
  unsigned char rbuf[sizeof(perfcheck_region_info) + 8];
  memset(rbuf, 0xcd, sizeof rbuf);
  perfcheck_region_info *ri = (perfcheck_region_info *)(void *)rbuf;
  ri->size = 3;
  assert_int_equal(perfcheck_report_region(r, 0, ri), PERFCHECK_ERROR_INVALID_ARGUMENT);
  ri->size = offsetof(perfcheck_region_info, parent);
  assert_int_equal(perfcheck_report_region(r, 0, ri), PERFCHECK_OK);
  assert_string_equal(ri->name, "step");
  for (size_t i = offsetof(perfcheck_region_info, parent); i < sizeof rbuf; i++) assert_int_equal(rbuf[i], 0xcd);
  perfcheck_report_destroy(r);
}

static void test_report_kernel_value(void **state) {
  (void)state;
  pc_report *r = make_report();
  double v = 0;
  assert_int_equal(perfcheck_report_kernel_value(r, 0, "sectors_per_request_ld", &v), PERFCHECK_OK);
  assert_near(v, 31.91, 1e-9);
  assert_int_equal(perfcheck_report_kernel_value(r, 0, "smsp__thread_inst_executed_per_inst_executed.ratio", &v),
                   PERFCHECK_OK);
  assert_near(v, 32, 0);
  assert_int_equal(perfcheck_report_kernel_value(r, 0, "step", &v), PERFCHECK_OK);
  assert_near(v, 3, 0);
  v = 0;
  assert_int_equal(perfcheck_report_kernel_value(r, 0, "dram__bytes_read.sum", &v), PERFCHECK_ERROR_NOT_MEASURED);
  assert_true(isnan(v));
  assert_non_null(strstr(perfcheck_last_error_message(), "dram__bytes_read.sum"));
  assert_int_equal(perfcheck_report_kernel_value(r, 0, "no_such_value", &v), PERFCHECK_ERROR_NOT_FOUND);
  assert_int_equal(perfcheck_report_kernel_value(r, 1, "step", &v), PERFCHECK_ERROR_NOT_FOUND);
  assert_int_equal(perfcheck_report_kernel_value(NULL, 0, "step", &v), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_int_equal(perfcheck_report_kernel_value(r, 0, NULL, &v), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_int_equal(perfcheck_report_kernel_value(r, 0, "step", NULL), PERFCHECK_ERROR_INVALID_ARGUMENT);
  perfcheck_report_destroy(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_short_names),
      cmocka_unit_test(test_short_names_truncation),
      cmocka_unit_test(test_kernel_value),
      cmocka_unit_test(test_report_kernel_info),
      cmocka_unit_test(test_report_kernel_small_size),
      cmocka_unit_test(test_report_kernel_value),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
