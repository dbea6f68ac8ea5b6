/* Step 1 of a run from Nsight Systems' summaries (lib/core/read/pc_nsys_csv.c).
 * The fixture tests/data/nsys/mystery_kern_mem.hand-made.csv is HAND-MADE in
 * the format NVIDIA documents for `nsys stats --report cuda_gpu_kern_sum
 * --report cuda_gpu_mem_time_sum --format csv` (its header says so): not
 * nsys output.  The other inputs are written here, in the same format. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/pc_core.h"

#define FIXTURE PERFCHECK_TEST_DATA "/nsys/mystery_kern_mem.hand-made.csv"
/* A real export: `nsys stats --report cuda_gpu_kern_sum --report
 * cuda_gpu_mem_time_sum --format csv --output -` of kernels/mystery
 * --profile on the H200 (Nsight Systems 2025.3.1, driver
 * 580.159.04; the device script's nsys stage, now scripts/device/bench tools), saved as it came, with
 * nsys's own "Generating SQLite" and "Processing" lines. */
#define REAL PERFCHECK_TEST_DATA "/nsys/mystery_kern_mem.h200-2026-12-02.csv"

static const pc_kernel *find(const pc_report *r, const char *name) {
  for (size_t i = 0; i < r->nkernels; i++)
    if (strcmp(r->kernels[i].name, name) == 0) return &r->kernels[i];
  fail_msg("no kernel %s", name);
  return NULL;
}

static int has_warning(const pc_report *r, const char *text) {
  for (size_t i = 0; i < r->nwarnings; i++)
    if (strstr(r->warnings[i], text)) return 1;
  return 0;
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

/* Both tables in one stream, with nsys's notices around them, and the
 * run's wall clock: step 1 for the run, each kernel's share. */
static void test_kern_and_mem(void **state) {
  (void)state;
  const char *paths[] = {FIXTURE};
  perfcheck_report *r = NULL;
  assert_int_equal(perfcheck_report_from_nsys_csv(paths, 1, 450e6, 1, &r), PERFCHECK_OK);
  assert_string_equal(r->source, "nsys-export");
  assert_int_equal(r->nregions, 1);
  const pc_region *g = &r->regions[0];
  assert_string_equal(g->name, "run");
  assert_float_equal(g->wall_ns, 450e6, 0);
  assert_float_equal(g->kernel_ns, 384405 + 296123 + 96210, 0);
  assert_float_equal(g->memcpy_ns, 6012340 + 1641204, 0);
  assert_float_equal(g->memset_ns, 31552, 0);
  assert_int_equal(g->launches, 4);
  /* 0.78 ms of kernels in 450 ms: not the slow part (seed 000's step 1). */
  assert_int_equal(g->diag.verdict.step, 1);
  assert_int_equal(g->diag.verdict.cause, PERFCHECK_CAUSE_NOT_THE_SLOW_PART);
  assert_float_equal(g->kernel_share, (384405.0 + 296123 + 96210) / 450e6, 1e-12);
  assert_int_equal(r->nkernels, 3);
  const pc_kernel *c = find(r, "mysteryC");
  assert_int_equal(c->launches, 2);
  assert_float_equal(c->total_ns, 384405, 0);
  assert_float_equal(c->dur_median_ns, 192202.5, 0);
  assert_float_equal(c->dur_min_ns, 150987, 0);
  assert_float_equal(c->dur_max_ns, 233418, 0);
  assert_float_equal(c->time_share, 384405.0 / (384405 + 296123 + 96210), 1e-12);
  assert_string_equal(c->demangled, "mysteryC(const float *, float *, unsigned long, int)");
  /* No counters: steps 2 to 5 cannot be judged, and the entry says how. */
  assert_true(pc_is_null(c->metric[PC_M_LD_SECTORS]));
  assert_non_null(strstr(c->not_measured_reason, "ncu"));
  /* Step 1 is the region's; a kernel without counters gets no verdict of its own. */
  assert_int_equal(find(r, "mysteryA")->diag.verdict.cause, PERFCHECK_CAUSE_NOT_ASSESSED);
  assert_int_equal(find(r, "mysteryA")->rank, 3); /* the smallest of the three */
  assert_false(has_warning(r, "wall clock"));
  perfcheck_report_destroy(r);
}

/* The real export, with the plain run's wall clock measured beside it
 * (506.755682 ms for the whole process, CUDA's start included): the
 * kernels' 0.76 ms are 0.15% of it, the copies 8.03 ms; memsets apart. */
static void test_real_export(void **state) {
  (void)state;
  const char *paths[] = {REAL};
  perfcheck_report *r = NULL;
  assert_int_equal(perfcheck_report_from_nsys_csv(paths, 1, 506755682.0, 1, &r), PERFCHECK_OK);
  assert_int_equal(r->nregions, 1);
  const pc_region *g = &r->regions[0];
  assert_float_equal(g->kernel_ns, 369149 + 296478 + 94015, 0);
  assert_float_equal(g->memcpy_ns, 6036730 + 1997363, 0);
  assert_float_equal(g->memset_ns, 19040, 0);
  assert_int_equal(g->launches, 4);
  assert_int_equal(g->diag.verdict.cause, PERFCHECK_CAUSE_NOT_THE_SLOW_PART);
  assert_float_equal(g->kernel_share, (369149.0 + 296478 + 94015) / 506755682.0, 1e-12);
  assert_int_equal(r->nkernels, 3);
  const pc_kernel *c = find(r, "mysteryC");
  assert_int_equal(c->launches, 2);
  assert_float_equal(c->dur_median_ns, 184574.5, 0);
  assert_float_equal(c->dur_min_ns, 152159, 0);
  assert_float_equal(c->dur_max_ns, 216990, 0);
  assert_int_equal(c->rank, 1);
  assert_int_equal(find(r, "mysteryB")->rank, 2);
  assert_float_equal(find(r, "mysteryA")->total_ns, 94015, 0);
  assert_false(has_warning(r, "wall clock"));
  perfcheck_report_destroy(r);
}

/* Without a wall clock: step 1 of the run is not assessed, one warning
 * says how to give it; perfcheck_report_read finds the format itself. */
static void test_no_wall_clock(void **state) {
  (void)state;
  perfcheck_report *r = NULL;
  assert_int_equal(perfcheck_report_read(FIXTURE, 1, &r), PERFCHECK_OK);
  assert_string_equal(r->source, "nsys-export");
  assert_int_equal(r->regions[0].diag.verdict.cause, PERFCHECK_CAUSE_NOT_ASSESSED);
  assert_true(has_warning(r, "step 1 needs the run's wall clock, which an nsys summary does not hold: give it with "
                             "--wall-time"));
  assert_int_equal(r->nkernels, 3);
  perfcheck_report_destroy(r);
}

/* The two reports as two files (nsys stats --output writes one per
 * report), in microseconds (--timeunit usec), kernels overlapping on
 * streams: their sum exceeds the wall clock, and a warning says so. */
static void test_two_files_other_unit(void **state) {
  (void)state;
  char dir[] = "/tmp/perfcheck_nsys_XXXXXX";
  assert_non_null(mkdtemp(dir));
  char kern[128], mem[128];
  snprintf(kern, sizeof kern, "%s/r_cuda_gpu_kern_sum.csv", dir);
  snprintf(mem, sizeof mem, "%s/r_cuda_gpu_mem_time_sum.csv", dir);
  write_file(kern, "\"Time (%)\",\"Total Time (us)\",\"Instances\",\"Avg (us)\",\"Med (us)\",\"Min (us)\",\"Max (us)\","
                   "\"StdDev (us)\",\"Name\"\n"
                   "\"75.0\",\"900.0\",\"3\",\"300.0\",\"300.0\",\"290.0\",\"310.0\",\"10.0\",\"gemm<128>(float*, int)\"\n"
                   "\"25.0\",\"300.0\",\"1\",\"300.0\",\"300.0\",\"300.0\",\"300.0\",\"0.0\",\"void reduce(float*)\"\n");
  write_file(mem, "\"Time (%)\",\"Total Time (us)\",\"Count\",\"Avg (us)\",\"Med (us)\",\"Min (us)\",\"Max (us)\","
                  "\"StdDev (us)\",\"Operation\"\n"
                  "\"100.0\",\"50.0\",\"2\",\"25.0\",\"25.0\",\"20.0\",\"30.0\",\"7.1\",\"[CUDA memcpy Host-to-Device]\"\n");
  const char *paths[] = {kern, mem};
  perfcheck_report *r = NULL;
  assert_int_equal(perfcheck_report_from_nsys_csv(paths, 2, 1.0e6, 1, &r), PERFCHECK_OK);
  assert_float_equal(r->regions[0].kernel_ns, 1.2e6, 1e-6);
  assert_float_equal(r->regions[0].memcpy_ns, 50e3, 1e-6);
  assert_float_equal(find(r, "gemm<128>")->dur_median_ns, 300e3, 1e-6);
  assert_float_equal(find(r, "reduce")->total_ns, 300e3, 1e-6);
  assert_true(has_warning(r, "exceeds the wall clock"));
  assert_int_equal(r->regions[0].diag.verdict.cause, PERFCHECK_CAUSE_NONE); /* the kernels are the slow part */
  perfcheck_report_destroy(r);
  /* No kernel table at all: refused, the input named. */
  const char *only_mem[] = {mem};
  assert_int_equal(perfcheck_report_from_nsys_csv(only_mem, 1, 1.0e6, 1, &r), PERFCHECK_ERROR_PARSE);
  assert_non_null(strstr(perfcheck_last_error_message(), "no cuda_gpu_kern_sum table"));
  /* An ncu export given as an nsys summary: named as what it is. */
  const char *ncu[] = {PERFCHECK_TEST_DATA "/h200/mystery.csv"};
  assert_int_equal(perfcheck_report_from_nsys_csv(ncu, 1, 1.0e6, 1, &r), PERFCHECK_ERROR_PARSE);
  assert_non_null(strstr(perfcheck_last_error_message(), "mystery.csv:1: an ncu export, not an nsys stats CSV"));
  unlink(kern);
  unlink(mem);
  rmdir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_kern_and_mem), cmocka_unit_test(test_real_export),
                                     cmocka_unit_test(test_no_wall_clock),
                                     cmocka_unit_test(test_two_files_other_unit)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
