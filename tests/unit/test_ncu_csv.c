#define _GNU_SOURCE /* fopencookie */
/* The ncu CSV reader (pc_ncu_csv.c): real layouts, unit conversion, merging
 * of launches, unusable values, hostile names, and bad input of every kind
 * (each a clear PERFCHECK_ERROR_PARSE naming the file and line, in linear
 * time). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "model/pc_core.h"
#include "check/pc_check.h"
#include "read/pc_ncu.h"

#define DATA(f) PERFCHECK_TEST_DATA "/" f

#define assert_near(a, b, eps)                                                                   \
  do {                                                                                           \
    double a_ = (a), b_ = (b);                                                                   \
    if (!(fabs(a_ - b_) <= (eps)))                                                               \
      fail_msg("%s = %.12g, expected %.12g (+-%g)", #a, a_, b_, (double)(eps));                  \
  } while (0)

#define assert_nan(v)                                                      \
  do {                                                                      \
    double v_ = (v);                                                        \
    if (!isnan(v_)) fail_msg("%s = %.12g, expected not measured", #v, v_);  \
  } while (0)

static pc_report *load(const char *path) {
  pc_report *r = NULL;
  perfcheck_status st = perfcheck_report_from_ncu_csv(path, 1, &r);
  if (st != PERFCHECK_OK) fail_msg("%s: %s (%s)", path, perfcheck_strerror(st), perfcheck_last_error_message());
  assert_non_null(r);
  return r;
}

static perfcheck_status parse_str(const char *text, pc_report **r, pc_err *err) {
  return pc_ncu_csv_parse(text, strlen(text), "mem.csv", 1, r, err);
}

static const pc_kernel *find_kernel(const pc_report *r, const char *name, double dyn) {
  for (size_t i = 0; i < r->nkernels; i++) {
    const pc_kernel *k = &r->kernels[i];
    if (strcmp(k->name, name) == 0 && (isnan(dyn) || k->dynamic_smem == dyn)) return k;
  }
  fail_msg("no kernel %s (dynamic smem %g)", name, dyn);
  return NULL;
}

static int has_warning(const pc_report *r, const char *a, const char *b, const char *c) {
  for (size_t i = 0; i < r->nwarnings; i++) {
    const char *w = r->warnings[i];
    if (strstr(w, a) && (!b || strstr(w, b)) && (!c || strstr(w, c))) return 1;
  }
  return 0;
}

static void print_warnings(const pc_report *r) {
  for (size_t i = 0; i < r->nwarnings; i++) print_message("warning: %s\n", r->warnings[i]);
}

/* ---- seed 000 on the T4 --------------------------------------------------- */

static void test_t4_seed000_values(void **state) {
  (void)state;
  pc_report *r = load(DATA("t4_seed000.csv"));
  assert_string_equal(r->source, "ncu-export");
  assert_string_equal(r->metric_set, "ncu-export");
  assert_int_equal(r->step1_assessed, 0);
  assert_int_equal(r->nkernels, 4);

  const pc_device *d = &r->device;
  assert_string_equal(d->name, "Tesla T4");
  assert_int_equal(d->cc_major, 7);
  assert_int_equal(d->cc_minor, 5);
  assert_int_equal(d->sm_count, 40);
  assert_int_equal(d->max_threads_per_sm, 1024);
  assert_int_equal(d->max_blocks_per_sm, 16);
  assert_int_equal(d->max_smem_per_sm, 65536);
  assert_int_equal(d->max_smem_per_block, 49152);
  assert_int_equal(d->reserved_smem_per_block, 0);
  /* 2 x 5001 MHz x 256 bit / 8; 40 SMs x 64 lanes x 2 x 1590 MHz. */
  assert_near(d->peak_dram_bytes_per_s, 320.064e9, 1);
  assert_near(d->peak_fp32_flop_per_s, 8140.8e9, 1);
  assert_string_equal(d->ceilings_source, "ncu-export");

  const pc_kernel *a = find_kernel(r, "mysteryA", NAN);
  assert_int_equal(a->grid[0], 16384);
  assert_int_equal(a->grid[1], 1);
  assert_int_equal(a->block[0], 256);
  assert_int_equal(a->launches, 1);
  assert_null(a->mangled);
  assert_near(a->metric[PC_M_DURATION], 449000, 0);
  assert_near(a->dur_median_ns, 449000, 0);
  assert_near(a->metric[PC_M_LD_SECTORS], 4182508, 0);
  assert_near(a->metric[PC_M_LD_REQUESTS], 131072, 0);
  /* The older spelling of threads per instruction (the seed's) is read. */
  assert_near(a->metric[PC_M_THREAD_INST_PER_INST], 32, 0);
  assert_int_equal(a->metric_via_substitute[PC_M_THREAD_INST_PER_INST], 0);
  assert_near(a->attr.registers_per_thread, 8, 0);
  assert_near(a->attr.blocks_per_sm, 4, 0);
  assert_near(a->attr.warps_per_sm, 32, 0);
  assert_int_equal(a->attr.binding, PC_LIMIT_WARPS);
  assert_nan(a->attr.model_blocks_per_sm); /* the model agrees with ncu */
  /* Seed 000's three checklist numbers and Part 2. */
  assert_near(a->derived.sectors_per_request_ld, 31.91, 0.005);
  assert_near(a->derived.sectors_per_request_st, 32.00, 0.005);
  assert_near(a->derived.achieved_occupancy_pct, 81.90, 1e-9);
  assert_near(a->derived.arithmetic_intensity, 0.25, 1e-12);
  assert_near(a->derived.dram_gbps, 74.7, 0.05);
  assert_near(a->derived.gflops, 18.7, 0.05);

  const pc_kernel *b = find_kernel(r, "mysteryB", NAN);
  assert_near(b->derived.threads_per_instruction, 16.21, 1e-9);
  assert_near(b->derived.sectors_per_request_ld, 4, 0);
  assert_near(b->derived.achieved_occupancy_pct, 98.18, 1e-9);
  /* The seed's times carry 4 digits (2.145 ms): a few GFLOP/s of slack. */
  assert_near(b->derived.gflops, 4004.9, 2.0);

  const pc_kernel *c48 = find_kernel(r, "mysteryC", 48000);
  const pc_kernel *c0 = find_kernel(r, "mysteryC", 0);
  assert_ptr_not_equal(c48, c0);
  assert_near(c48->attr.blocks_per_sm, 1, 0);
  assert_near(c48->attr.warps_per_sm, 8, 0);
  assert_near(c48->attr.theoretical_occupancy_pct, 25, 0);
  assert_int_equal(c48->attr.binding, PC_LIMIT_SHARED_MEMORY);
  assert_near(c48->derived.achieved_occupancy_pct, 24.82, 1e-9);
  assert_near(c48->dur_median_ns, 1414000, 0);
  assert_near(c0->derived.achieved_occupancy_pct, 86.29, 1e-9);
  assert_near(c0->metric[PC_M_SM_THROUGHPUT_PCT], 99.24, 1e-9);
  assert_near(c0->derived.gflops, 7256.5, 3.5);
  /* The seed prints no sm__throughput for the other three: not measured. */
  assert_nan(c48->metric[PC_M_SM_THROUGHPUT_PCT]);
  pc_report_free(r);
}

/* The seed's four verdicts (seed 000, "Solution"). */
static void test_t4_seed000_verdicts(void **state) {
  (void)state;
  pc_report *r = load(DATA("t4_seed000.csv"));
  const pc_finding *va = &find_kernel(r, "mysteryA", NAN)->diag.verdict;
  const pc_finding *vb = &find_kernel(r, "mysteryB", NAN)->diag.verdict;
  const pc_finding *vc48 = &find_kernel(r, "mysteryC", 48000)->diag.verdict;
  const pc_finding *vc0 = &find_kernel(r, "mysteryC", 0)->diag.verdict;
  assert_int_equal(va->step, 3);
  assert_string_equal(perfcheck_cause_name(va->cause), "uncoalesced_global_loads");
  assert_near(va->value, 31.91, 0.005);
  assert_non_null(strstr(va->metric, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"));
  assert_int_equal(vb->step, 4);
  assert_string_equal(perfcheck_cause_name(vb->cause), "divergent_warps");
  assert_near(vb->value, 16.21, 1e-9);
  assert_int_equal(vc48->step, 5);
  assert_string_equal(perfcheck_cause_name(vc48->cause), "occupancy_shared_memory");
  assert_int_equal(vc0->step, 0);
  assert_string_equal(perfcheck_cause_name(vc0->cause), "at_roof");
  /* Step 1 is the region's, and offline there is none: the report says so
   * (step1_assessed 0), no kernel carries it; each has its export rank. */
  assert_int_equal(r->step1_assessed, 0);
  const pc_kernel *ka = find_kernel(r, "mysteryA", NAN);
  for (size_t i = 0; i < ka->diag.nfindings; i++) assert_true(ka->diag.findings[i].step >= 2);
  assert_true(ka->rank >= 1 && ka->rank <= 4);
  pc_report_free(r);
}

/* ---- a hand-made export in ncu's auto-scaled units -------------------------- */

static void test_valid_units_and_merging(void **state) {
  (void)state;
  pc_report *r = load(DATA("ncu_raw_valid.csv"));
  print_warnings(r);
  assert_int_equal(r->nkernels, 3);
  const pc_device *d = &r->device;
  assert_string_equal(d->name, "NVIDIA H200");
  assert_int_equal(d->cc_major, 9);
  assert_int_equal(d->cc_minor, 0);
  assert_int_equal(d->sm_count, 132);
  /* "49.15" Kbyte, "232.45", "233.47", "1.02": the KiB sizes they round from. */
  assert_int_equal(d->max_smem_per_block, 49152);
  assert_int_equal(d->max_smem_per_block_optin, 232448);
  assert_int_equal(d->max_smem_per_sm, 233472);
  assert_int_equal(d->reserved_smem_per_block, 1024);
  /* "3.20" Ghz memory clock, 6144 bit; "1.98" Ghz SM clock, 132 x 128 lanes. */
  assert_near(d->peak_dram_bytes_per_s, 2.0 * 3.2e9 * 6144 / 8, 1);
  assert_near(d->peak_fp32_flop_per_s, 132.0 * 128 * 2 * 1.98e9, 1);

  const pc_kernel *s = find_kernel(r, "scaleAdd<4>", NAN);
  assert_int_equal(s->launches, 3);
  assert_int_equal(s->profiled_launches, 3);
  /* "10.50", "12.00", "11.00" usecond. */
  assert_near(s->dur_min_ns, 10500, 1e-6);
  assert_near(s->dur_median_ns, 11000, 1e-6);
  assert_near(s->dur_max_ns, 12000, 1e-6);
  assert_near(s->metric[PC_M_DURATION], 10500, 1e-6); /* the first launch's */
  /* Metrics are the first launch's (88.10), not a later one's (11.00). */
  assert_near(s->metric[PC_M_WARPS_ACTIVE_PCT], 88.10, 1e-9);
  assert_near(s->metric[PC_M_DRAM_BYTES_READ], 16.78e6, 1e-3);
  assert_near(s->metric[PC_M_DRAM_BYTES_WRITE], 640e3, 1e-6);
  assert_near(s->metric[PC_M_FFMA], 1048576, 0);
  assert_near(s->attr.static_smem, 4096, 0);   /* "4.10" Kbyte/block */
  assert_near(s->dynamic_smem, 0, 0);
  assert_near(s->attr.waves_per_sm, 0.97, 1e-12);
  /* Loads: only the substitute column, which fills the metric and says so. */
  assert_near(s->metric[PC_M_LD_REQUESTS], 32768, 0);
  assert_int_equal(s->metric_via_substitute[PC_M_LD_REQUESTS], 1);
  /* Stores: both columns; the L1TEX one wins (32768, not 99999). */
  assert_near(s->metric[PC_M_ST_REQUESTS], 32768, 0);
  assert_int_equal(s->metric_via_substitute[PC_M_ST_REQUESTS], 0);
  /* Both spellings of threads per instruction: the current one wins. */
  assert_near(s->metric[PC_M_THREAD_INST_PER_INST], 31.5, 1e-12);
  assert_near(s->derived.sectors_per_request_ld, 4, 0);
  /* No limits in the export: the model fills them (32 regs, 256 threads,
   * 4 KiB + 1 KiB reserved on the H200: 8 blocks by warps). */
  assert_near(s->attr.blocks_per_sm, 8, 0);
  assert_near(s->attr.theoretical_occupancy_pct, 100, 1e-9);

  const pc_kernel *c48 = find_kernel(r, "mysteryC", 48000); /* "48.00" Kbyte: not snapped */
  const pc_kernel *c0 = find_kernel(r, "mysteryC", 0);
  assert_int_equal(c48->grid[0], 512);
  assert_int_equal(c48->grid[1], 2);
  assert_int_equal(c48->block[0], 128);
  assert_near(c48->dur_median_ns, 1414000, 1e-6); /* "1,414.00" usecond */
  assert_near(c0->dur_median_ns, 1184000, 1e-6);
  assert_int_equal(c48->launches, 1);
  /* The model: 4096 + 48000 + 1024 reserved = 53120 B a block, 4 per SM. */
  assert_near(c48->attr.blocks_per_sm, 4, 0);
  assert_int_equal(c48->attr.binding, PC_LIMIT_SHARED_MEMORY);
  assert_near(c48->attr.theoretical_occupancy_pct, 25, 0);
  pc_report_free(r);
}

/* ---- real exports: ncu 2025.3.1 on the H200 (tests/data/h200) ------------- */

/* The same launches exported in ncu's default units ("us", "Mbyte" with six
 * decimals, "Kbyte/block") and with --print-units base must read the same:
 * bytes, times and counts exactly, percentages to the two decimals that the
 * base-units export prints. */
static void test_h200_units_agree(void **state) {
  (void)state;
  static const char *const programs[] = {"mystery", "occupancy", "launches", "roundtrip", "atomics"};
  for (size_t p = 0; p < sizeof programs / sizeof programs[0]; p++) {
    char auto_path[512], base_path[512];
    snprintf(auto_path, sizeof auto_path, "%s/h200/%s.csv", PERFCHECK_TEST_DATA, programs[p]);
    snprintf(base_path, sizeof base_path, "%s/h200/%s.base-units.csv", PERFCHECK_TEST_DATA, programs[p]);
    if (access(auto_path, R_OK) != 0 || access(base_path, R_OK) != 0) {
      print_message("%s: not present, skipped\n", auto_path);
      continue;
    }
    pc_report *a = load(auto_path), *b = load(base_path);
    print_warnings(a);
    /* A complete export reads without a warning, but for one line per
     * default-set column the export lacks (tests/data/h200/metrics.txt says
     * which list each was recorded with); no other warning. */
    for (size_t w = 0; w < a->nwarnings; w++)
      if (!strstr(a->warnings[w], ": no column ") || !strstr(a->warnings[w], "not measured for any kernel"))
        fail_msg("%s: unexpected warning: %s", auto_path, a->warnings[w]);
    assert_int_equal(a->nkernels, b->nkernels);
    assert_true(a->nkernels > 0);
    assert_string_equal(a->device.name, "NVIDIA H200");
    assert_int_equal(a->device.sm_count, 132);
    assert_int_equal(a->device.max_smem_per_sm, 233472);
    assert_int_equal(a->device.reserved_smem_per_block, 1024);
    assert_near(a->device.peak_dram_bytes_per_s, b->device.peak_dram_bytes_per_s, 0);
    assert_near(a->device.peak_fp32_flop_per_s, b->device.peak_fp32_flop_per_s, 0);
    for (size_t i = 0; i < a->nkernels; i++) {
      const pc_kernel *x = &a->kernels[i], *y = &b->kernels[i];
      assert_string_equal(x->name, y->name);
      assert_memory_equal(x->grid, y->grid, sizeof x->grid);
      assert_memory_equal(x->block, y->block, sizeof x->block);
      assert_near(x->dynamic_smem, y->dynamic_smem, 0);
      assert_int_equal(x->launches, y->launches);
      assert_near(x->dur_median_ns, y->dur_median_ns, 1e-6);
      assert_near(x->attr.blocks_per_sm, y->attr.blocks_per_sm, 0);
      assert_nan(x->attr.model_blocks_per_sm); /* the model agrees with ncu */
      assert_int_equal(x->attr.binding, y->attr.binding);
      const pc_metric_def *table = pc_metric_table();
      for (int m = 0; m < PC_M_COUNT; m++) {
        double u = x->metric[m], v = y->metric[m];
        if (isnan(u) || isnan(v)) {
          assert_true(isnan(u) && isnan(v));
          continue;
        }
        double tol = strcmp(table[m].unit, "%") == 0 || strcmp(table[m].unit, "ratio") == 0 ? 0.005 : 1e-9 * fabs(v);
        if (!(fabs(u - v) <= tol)) fail_msg("%s: %s: %.9g vs %.9g", programs[p], table[m].name, u, v);
      }
    }
    pc_report_free(a);
    pc_report_free(b);
  }
}

/* ---- good exports with unusable values ------------------------------------ */

static void test_unusable_values(void **state) {
  (void)state;
  pc_report *r = load(DATA("ncu_unusable_values.csv"));
  print_warnings(r);
  assert_int_equal(r->nkernels, 3);
  const pc_kernel *n = find_kernel(r, "nanKernel", NAN);
  const pc_kernel *g = find_kernel(r, "negKernel", NAN);
  const pc_kernel *z = find_kernel(r, "zeroReq", NAN);

  assert_nan(n->metric[PC_M_DRAM_BYTES_READ]);
  assert_true(has_warning(r, "nanKernel", "dram__bytes_read.sum", "NaN"));
  assert_nan(n->metric[PC_M_WARPS_ACTIVE_PCT]);
  assert_nan(n->derived.achieved_occupancy_pct);
  assert_true(has_warning(r, "nanKernel", "sm__warps_active.avg.pct_of_peak_sustained_active", "n/a"));
  assert_nan(n->derived.dram_bytes); /* read is unknown, so the sum is too */
  assert_near(n->metric[PC_M_DRAM_BYTES_WRITE], 640e3, 1e-6); /* the rest is produced */
  assert_near(n->metric[PC_M_DURATION], 5000, 1e-6);

  assert_nan(g->metric[PC_M_LD_SECTORS]);
  assert_nan(g->derived.sectors_per_request_ld);
  assert_true(has_warning(r, "negKernel", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "negative"));
  assert_nan(g->metric[PC_M_FFMA]);
  assert_true(has_warning(r, "negKernel", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "not a number"));

  assert_nan(z->metric[PC_M_LD_REQUESTS]);
  assert_nan(z->derived.sectors_per_request_ld);
  assert_true(has_warning(r, "zeroReq", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "0 requests"));
  assert_nan(z->metric[PC_M_DURATION]);
  assert_nan(z->dur_median_ns);
  assert_true(has_warning(r, "zeroReq", "gpu__time_duration.sum", "finite"));

  /* The missing column: the metric is unknown for every kernel. */
  for (size_t i = 0; i < r->nkernels; i++) {
    assert_nan(r->kernels[i].metric[PC_M_ST_SECTORS]);
    assert_nan(r->kernels[i].derived.sectors_per_request_st);
  }
  assert_true(has_warning(r, "no column l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", NULL, NULL));
  pc_report_free(r);
}

/* ---- hostile kernel names ------------------------------------------------- */

static void test_hostile_names(void **state) {
  (void)state;
  pc_report *r = load(DATA("ncu_hostile_names.csv"));
  static const char *const want[] = {"quote\"Kernel", "comma,kernel<1, 2>", "newline\nkernel",
                                     "ctrl\x01\x1b[31mkernel(int)", "bad\xffutf8\xc3", "tab\tkernel",
                                     "Name"};
  assert_int_equal(r->nkernels, sizeof want / sizeof want[0]);
  /* The names go through pc_kernel_short_name: an unbalanced '[' keeps the
   * parameter list (the name is left whole rather than guessed), and in
   * "Kernel Name" the word before the space reads as a return type. */
  for (size_t i = 0; i < r->nkernels; i++) assert_string_equal(r->kernels[i].name, want[i]);
  pc_report_free(r);
}

/* ---- bad input -------------------------------------------------------------- */

static void expect_parse_error(const char *path, perfcheck_status want, const char *where, const char *what) {
  pc_report *r = (pc_report *)1;
  perfcheck_status st = perfcheck_report_from_ncu_csv(path, 1, &r);
  const char *msg = perfcheck_last_error_message();
  print_message("%s -> %s\n", path, msg);
  assert_int_equal(st, want);
  assert_null(r); /* *out is NULL on failure */
  assert_non_null(strstr(msg, where));
  if (what) assert_non_null(strstr(msg, what));
}

/* A damaged export: the complete rows kept, one warning naming the first bad
 * line and the count of dropped rows. */
static void expect_damaged(const char *path, const char *where, const char *what, size_t kernels, size_t dropped) {
  pc_report *r = NULL;
  perfcheck_status st = perfcheck_report_from_ncu_csv(path, 1, &r);
  if (st != PERFCHECK_OK) fail_msg("%s: %s", path, perfcheck_last_error_message());
  assert_int_equal(r->nkernels, kernels);
  char count[64];
  snprintf(count, sizeof count, "; %zu row%s dropped", dropped, dropped == 1 ? "" : "s");
  if (!has_warning(r, where, what, count)) {
    print_warnings(r);
    fail_msg("%s: no warning with \"%s\", \"%s\", \"%s\"", path, where, what, count);
  }
  pc_report_free(r);
}

static void test_bad_inputs(void **state) {
  (void)state;
  expect_parse_error(DATA("bad/empty.csv"), PERFCHECK_ERROR_PARSE, "bad/empty.csv:1: ", "empty");
  expect_parse_error(DATA("bad/not_ncu.csv"), PERFCHECK_ERROR_PARSE, "bad/not_ncu.csv:1: ", "Kernel Name");
  expect_parse_error(DATA("bad/random.bin"), PERFCHECK_ERROR_PARSE, "bad/random.bin:1: ", "binary data, not text; expected an ncu raw export");
  /* Header on line 1, units on 2, launches on 3 and 4: the cut one is 4.
   * The complete row is kept (status OK, not PARSE) and the
   * warning names the cut one, with the same text the error had. */
  expect_damaged(DATA("bad/truncated_quote.csv"), "bad/truncated_quote.csv:4: ", "not closed", 1, 1);
  expect_damaged(DATA("bad/truncated_row.csv"), "bad/truncated_row.csv:4: ", "fields where the header", 1, 1);
  expect_parse_error(DATA("bad/header_only.csv"), PERFCHECK_ERROR_PARSE, "bad/header_only.csv:3: ", "no launch");
  expect_parse_error(DATA("bad/details_page.csv"), PERFCHECK_ERROR_PARSE, "bad/details_page.csv:1: ",
                     "--page raw");
  expect_parse_error(DATA("bad/no_such_file.csv"), PERFCHECK_ERROR_IO, "no_such_file.csv", "cannot open");
  expect_parse_error(DATA("bad"), PERFCHECK_ERROR_IO, "bad", "directory");

  pc_report *r = NULL;
  assert_int_equal(perfcheck_report_from_ncu_csv(NULL, 1, &r), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_int_equal(perfcheck_report_from_ncu_csv(DATA("t4_seed000.csv"), 1, NULL), PERFCHECK_ERROR_INVALID_ARGUMENT);
}

/* In-memory variations a real export can take. */
static void test_layout_variations(void **state) {
  (void)state;
  pc_err err;
  pc_report *r = NULL;

  /* CRLF, no ID column, columns in another order. */
  const char *crlf =
      "\"gpu__time_duration.sum\",\"Kernel Name\",\"launch__grid_size\",\"launch__block_size\"\r\n"
      "\"nsecond\",\"\",\"\",\"\"\r\n"
      "\"1,234,567\",\"k(int)\",\"10\",\"64\"\r\n";
  assert_int_equal(parse_str(crlf, &r, &err), PERFCHECK_OK);
  assert_int_equal(r->nkernels, 1);
  assert_string_equal(r->kernels[0].name, "k");
  assert_near(r->kernels[0].metric[PC_M_DURATION], 1234567, 0);
  assert_int_equal(r->kernels[0].grid[0], 10); /* from launch__grid_size */
  assert_int_equal(r->kernels[0].grid[1], 1);
  assert_int_equal(r->kernels[0].block[0], 64);
  pc_report_free(r);

  /* msecond and an exponent; an ==ERROR== line between rows becomes a warning. */
  const char *ms =
      "\"Kernel Name\",\"gpu__time_duration.sum\"\n"
      "\"\",\"msecond\"\n"
      "\"a\",\"1.5\"\n"
      "==ERROR== something failed\n"
      "\"b\",\"2e-3\"\n";
  assert_int_equal(parse_str(ms, &r, &err), PERFCHECK_OK);
  assert_int_equal(r->nkernels, 2);
  assert_near(r->kernels[0].metric[PC_M_DURATION], 1.5e6, 1e-6);
  assert_near(r->kernels[1].metric[PC_M_DURATION], 2000, 1e-9);
  assert_true(has_warning(r, "mem.csv:4", "something failed", NULL));
  pc_report_free(r);

  /* A second header and units row (one per profiled process) start a new
   * section, whose units row is its own (ncu scales each process's export). */
  const char *two =
      "\"Kernel Name\",\"gpu__time_duration.sum\"\n\"\",\"usecond\"\n\"a\",\"1\"\n"
      "\"Kernel Name\",\"gpu__time_duration.sum\"\n\"\",\"nsecond\"\n\"a\",\"3000\"\n";
  assert_int_equal(parse_str(two, &r, &err), PERFCHECK_OK);
  assert_int_equal(r->nkernels, 1);
  assert_int_equal(r->kernels[0].launches, 2);
  assert_near(r->kernels[0].dur_median_ns, 2000, 1e-9);
  assert_near(r->kernels[0].total_ns, 4000, 1e-9);
  pc_report_free(r);

  /* A quoted newline in a kernel name counts as a line for later messages. */
  const char *nl =
      "\"Kernel Name\",\"gpu__time_duration.sum\"\n"
      "\"\",\"nsecond\"\n"
      "\"two\nlines\",\"5\"\n"
      "\"short\"\n";
  /* (the bad row is dropped with a warning, the good one kept.) */
  assert_int_equal(parse_str(nl, &r, &err), PERFCHECK_OK);
  assert_int_equal(r->nkernels, 1);
  assert_true(has_warning(r, "mem.csv:5: 1 fields where the header (line 1) has 2", "1 row dropped", NULL));
  pc_report_free(r);

  /* A header with "Kernel Name" but no metric column. */
  assert_int_equal(parse_str("\"ID\",\"Kernel Name\"\n\"0\",\"k\"\n", &r, &err), PERFCHECK_ERROR_PARSE);
  assert_non_null(strstr(err.msg, "mem.csv:1: "));
  assert_non_null(strstr(err.msg, "no metric column"));

  /* Only blank lines. */
  assert_int_equal(parse_str("\n\r\n\n", &r, &err), PERFCHECK_ERROR_PARSE);
  assert_non_null(strstr(err.msg, "mem.csv:1: empty"));

  /* A name that is only a parameter list; a NUL byte in a name drops the
   * row (read as "a" it would join another kernel's launches), counted. */
  const char nul[] = "\"Kernel Name\",\"gpu__time_duration.sum\"\n\"\",\"nsecond\"\n\"(x)\",\"1\"\n\"a\0b\",\"2\"\n";
  assert_int_equal(pc_ncu_csv_parse(nul, sizeof nul - 1, "nul.csv", 1, &r, &err), PERFCHECK_OK);
  assert_int_equal(r->nkernels, 1);
  assert_string_equal(r->kernels[0].name, "(x)");
  assert_true(has_warning(r, "nul.csv:4: a NUL byte inside the kernel name", "1 row dropped", NULL));
  pc_report_free(r);

  /* No launch__occupancy_limit_* columns: the model fills them, and a
   * resource the kernel does not use shows the SM's block limit, as ncu does. */
  const char *model =
      "\"Kernel Name\",\"gpu__time_duration.sum\",\"launch__block_size\",\"launch__registers_per_thread\","
      "\"device__attribute_compute_capability_major\",\"device__attribute_compute_capability_minor\","
      "\"device__attribute_max_threads_per_multiprocessor\",\"device__attribute_max_blocks_per_multiprocessor\","
      "\"device__attribute_max_registers_per_multiprocessor\",\"device__attribute_max_shared_memory_per_multiprocessor\","
      "\"device__attribute_warp_size\"\n"
      "\"\",\"nsecond\",\"\",\"register/thread\",\"\",\"\",\"\",\"\",\"\",\"byte\",\"\"\n"
      "\"k(int)\",\"1\",\"256\",\"14\",\"7\",\"5\",\"1024\",\"16\",\"65536\",\"65536\",\"32\"\n";
  assert_int_equal(parse_str(model, &r, &err), PERFCHECK_OK);
  assert_near(r->kernels[0].attr.limit_shared_mem, 16, 0);
  assert_near(r->kernels[0].attr.limit_registers, 16, 0);
  assert_near(r->kernels[0].attr.limit_warps, 4, 0);
  assert_near(r->kernels[0].attr.blocks_per_sm, 4, 0);
  assert_int_equal(r->kernels[0].attr.binding, PC_LIMIT_WARPS);
  assert_near(r->kernels[0].attr.theoretical_occupancy_pct, 100, 1e-9);
  pc_report_free(r);

  /* A mangled name (ncu --print-kernel-base mangled) is kept as such. */
  assert_int_equal(parse_str("\"Kernel Name\",\"gpu__time_duration.sum\"\n\"_Z8mysteryAPKfPfm\",\"1\"\n", &r, &err),
                   PERFCHECK_OK);
  assert_string_equal(r->kernels[0].mangled, "_Z8mysteryAPKfPfm");
  pc_report_free(r);
}

/* Many one-line "kernels": every one is kept (no cap: shares and ranks over
 * every row), in time linear in the rows. */
static void test_many_signatures(void **state) {
  (void)state;
  const size_t rows = 25000;
  size_t cap = 64 + rows * 32, n = 0;
  char *text = malloc(cap);
  assert_non_null(text);
  n += (size_t)snprintf(text + n, cap - n, "\"Kernel Name\",\"gpu__time_duration.sum\"\n\"\",\"nsecond\"\n");
  for (size_t i = 0; i < rows; i++) n += (size_t)snprintf(text + n, cap - n, "\"k%zu\",\"%zu\"\n", i, i + 1);
  pc_report *r = NULL;
  pc_err err;
  assert_int_equal(pc_ncu_csv_parse(text, n, "many.csv", 1, &r, &err), PERFCHECK_OK);
  assert_int_equal(r->nkernels, rows);
  assert_int_equal(r->rows_left_out, 0);
  pc_checklist_report(r); /* as perfcheck_report_read does: sorted, shares, ranks */
  assert_false(has_warning(r, "distinct kernel signatures", NULL, NULL));
  /* Sorted longest first: k24999 (25000 ns) ranks 1 of the 25000 entries
   * and has its share of them all, sum(1..25000) ns. */
  const double sum = (double)rows * (rows + 1) / 2;
  assert_string_equal(r->kernels[0].name, "k24999");
  assert_int_equal(r->kernels[0].rank, 1);
  assert_near(r->kernels[0].time_share, 25000 / sum, 1e-15);
  assert_string_equal(r->kernels[rows - 1].name, "k0");
  assert_int_equal(r->kernels[rows - 1].rank, (int)rows);
  assert_near(r->kernels[rows - 1].time_share, 1 / sum, 1e-15);
  pc_report_free(r);
  free(text);
}

/* A row that cannot be read (a field short) or has no kernel name: the rest
 * is kept, and the time shares and ranks are null, since over the rows kept
 * they would be too large; with every row read they are there. */
static void test_rows_left_out(void **state) {
  (void)state;
  static const char head[] = "\"Kernel Name\",\"gpu__time_duration.sum\",\"launch__grid_size\"\n\"\",\"nsecond\",\"\"\n";
  static const char *const bodies[] = {
      "\"a\",\"100\",\"1\"\n\"b\",\"300\"\n\"c\",\"200\",\"1\"\n", /* b: one field short */
      "\"a\",\"100\",\"1\"\n\"\",\"300\",\"1\"\n\"c\",\"200\",\"1\"\n", /* no name */
      "\"a\",\"100\",\"1\"\n\"c\",\"200\",\"1\"\n",                       /* whole */
  };
  for (size_t i = 0; i < 3; i++) {
    char text[512];
    int n = snprintf(text, sizeof text, "%s%s", head, bodies[i]);
    pc_report *r = NULL;
    pc_err err;
    assert_int_equal(pc_ncu_csv_parse(text, (size_t)n, "left.csv", 1, &r, &err), PERFCHECK_OK);
    assert_int_equal(r->nkernels, 2);
    assert_int_equal(r->rows_left_out, i < 2 ? 1 : 0);
    pc_checklist_report(r);
    for (size_t k = 0; k < 2; k++) {
      const int c = strcmp(r->kernels[k].name, "c") == 0;
      if (i < 2) {
        assert_true(isnan(r->kernels[k].time_share));
        assert_int_equal(r->kernels[k].rank, 0);
      } else {
        assert_near(r->kernels[k].time_share, c ? 200.0 / 300 : 100.0 / 300, 1e-12);
        assert_int_equal(r->kernels[k].rank, c ? 1 : 2);
      }
    }
    assert_int_equal(has_warning(r, "time shares and ranks are null: 1 launch row of the export was not read", NULL,
                                 NULL),
                     i < 2);
    pc_report_free(r);
  }
}

/* Writes `size` bytes of junk produced by `fill` to a temporary file. */
static char *temp_file(size_t size, void (*fill)(char *, size_t)) {
  const char *dir = getenv("TMPDIR");
  char *path = malloc(4096);
  assert_non_null(path);
  snprintf(path, 4096, "%s/perfcheck_junk_XXXXXX", dir && *dir ? dir : "/tmp");
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  char *buf = malloc(size);
  assert_non_null(buf);
  fill(buf, size);
  FILE *f = fdopen(fd, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(buf, 1, size, f), size);
  assert_int_equal(fclose(f), 0);
  free(buf);
  return path;
}

static void fill_random(char *b, size_t n) {
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (size_t i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    b[i] = (char)(x >> 24);
  }
}

/* Every line looks like a header candidate and opens a quote on the next. */
static void fill_header_lookalikes(char *b, size_t n) {
  static const char line[] = "\"Kernel Namex\",\"a\n";
  for (size_t i = 0; i < n; i++) b[i] = line[i % (sizeof line - 1)];
}

/* A good header, then one enormous line of commas. */
static void fill_wide_row(char *b, size_t n) {
  static const char head[] = "\"Kernel Name\",\"gpu__time_duration.sum\"\n\"k\"";
  memset(b, ',', n);
  memcpy(b, head, sizeof head - 1);
}

static double seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void check_junk(size_t size, void (*fill)(char *, size_t), const char *what) {
  char *path = temp_file(size, fill);
  double t0 = seconds();
  pc_report *r = NULL;
  perfcheck_status st = perfcheck_report_from_ncu_csv(path, 1, &r);
  double dt = seconds() - t0;
  print_message("%zu MB of %s: %s in %.2f s: %s\n", size >> 20, what, perfcheck_strerror(st), dt,
                perfcheck_last_error_message());
  unlink(path);
  assert_int_equal(st, PERFCHECK_ERROR_PARSE);
  assert_null(r);
  assert_non_null(strstr(perfcheck_last_error_message(), path));
  /* Linear: a quadratic scan of 100 MB would take hours, not seconds.  The
   * bound is loose for sanitizer builds and a loaded machine. */
  assert_true(dt < 60.0);
  free(path);
}

static void test_junk_100mb(void **state) {
  (void)state;
  check_junk((size_t)100 << 20, fill_random, "random bytes");
  check_junk((size_t)20 << 20, fill_header_lookalikes, "header look-alikes");
  check_junk((size_t)20 << 20, fill_wide_row, "one wide row");
}


/* ---- numbers ---------------------------------------------- */

static double one_duration(const char *value, pc_report **keep) {
  char text[256];
  pc_err err;
  snprintf(text, sizeof text, "\"Kernel Name\",\"gpu__time_duration.sum\"\n\"\",\"nsecond\"\n\"k\",\"%s\"\n", value);
  pc_report *r = NULL;
  if (parse_str(text, &r, &err) != PERFCHECK_OK) fail_msg("%s: %s", value, err.msg);
  double v = r->kernels[0].metric[PC_M_DURATION];
  if (keep)
    *keep = r;
  else
    pc_report_free(r);
  return v;
}

static void test_numbers(void **state) {
  (void)state;
  /* Thousands separators in groups of three, as ncu writes them. */
  assert_near(one_duration("1,234,567", NULL), 1234567, 0);
  assert_near(one_duration("12,345.5", NULL), 12345.5, 0);
  assert_near(one_duration("+1,000", NULL), 1000, 0);
  assert_near(one_duration("999", NULL), 999, 0);
  assert_near(one_duration("1.5e3", NULL), 1500, 0);
  /* Anything else is a bad value: null and a warning, never a guess. */
  static const char *const bad_group[] = {"96,384000", "1,23", ",123", "1,2345", "1234,567", "1,234,56", "12,34.5",
                                          "1,,234"};
  for (size_t i = 0; i < sizeof bad_group / sizeof bad_group[0]; i++) {
    pc_report *r = NULL;
    assert_nan(one_duration(bad_group[i], &r));
    char shown[64];
    snprintf(shown, sizeof shown, "\"%s\" is not a number (a ',' outside a group of three digits)", bad_group[i]);
    if (!has_warning(r, "mem.csv:3: kernel k: gpu__time_duration.sum: ", shown, "not measured")) {
      print_warnings(r);
      fail_msg("no warning for %s", bad_group[i]);
    }
    pc_report_free(r);
  }
  /* Exponents outside the double range: an error, not 0 or infinity. */
  static const char *const range[] = {"1e-400", "2.5e-320", "-3e-330"};
  for (size_t i = 0; i < sizeof range / sizeof range[0]; i++) {
    pc_report *r = NULL;
    assert_nan(one_duration(range[i], &r));
    assert_true(has_warning(r, "gpu__time_duration.sum", "is outside the range of a double", NULL));
    pc_report_free(r);
  }
  pc_report *r = NULL;
  assert_nan(one_duration("1e400", &r));
  assert_true(has_warning(r, "gpu__time_duration.sum", "not a finite number", NULL));
  pc_report_free(r);
  assert_near(one_duration("0e-400", NULL), 0, 0); /* zero is zero */
  assert_near(one_duration("0.000", NULL), 0, 0);

  /* The case: a duration written with a decimal comma in an H200
   * export is not read as 96 billion; the step that needs it is not assessed
   * rather than judged on a made-up number. */
  FILE *f = fopen(DATA("h200/mystery.csv"), "rb");
  assert_non_null(f);
  char *text = calloc(1, 1 << 16);
  size_t n = fread(text, 1, (1 << 16) - 1, f);
  fclose(f);
  text[n] = '\0';
  /* gpu__time_duration.avg, .max, .min and .sum of the one launch. */
  size_t replaced = 0;
  for (char *hit = text; (hit = strstr(hit, "\"96.384000\"")) != NULL; hit += 3, replaced++) hit[3] = ',';
  assert_int_equal(replaced, 4);
  pc_err err;
  assert_int_equal(pc_ncu_csv_parse(text, n, "comma.csv", 1, &r, &err), PERFCHECK_OK);
  const pc_kernel *a = find_kernel(r, "mysteryA", NAN);
  assert_nan(a->metric[PC_M_DURATION]);
  assert_nan(a->dur_median_ns);
  assert_true(has_warning(r, "comma.csv:3: kernel mysteryA: gpu__time_duration.sum: \"96,384000\"", NULL, NULL));
  pc_report_free(r);
  free(text);
}

/* ---- streaming and damaged exports ------------------------ */

static char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) fail_msg("cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  assert_non_null(buf);
  assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  buf[n] = '\0';
  *len = (size_t)n;
  return buf;
}

/* The same report from memory and from a stream that delivers 1 byte at a
 * time through a pipe-like FILE (fopencookie: every record crosses reads). */
typedef struct trickle {
  const char *p;
  size_t n, at, step;
} trickle;

static ssize_t trickle_read(void *c, char *buf, size_t size) {
  trickle *t = c;
  size_t k = t->n - t->at;
  if (k > t->step) k = t->step;
  if (k > size) k = size;
  memcpy(buf, t->p + t->at, k);
  t->at += k;
  return (ssize_t)k;
}

static void assert_same_report(const pc_report *a, const pc_report *b) {
  assert_int_equal(a->nkernels, b->nkernels);
  assert_int_equal(a->nwarnings, b->nwarnings);
  for (size_t i = 0; i < a->nkernels; i++) {
    assert_string_equal(a->kernels[i].name, b->kernels[i].name);
    assert_int_equal(a->kernels[i].launches, b->kernels[i].launches);
    for (int m = 0; m < PC_M_COUNT; m++) {
      double x = a->kernels[i].metric[m], y = b->kernels[i].metric[m];
      if (!((isnan(x) && isnan(y)) || x == y)) fail_msg("kernel %zu metric %d: %g vs %g", i, m, x, y);
    }
  }
  for (size_t i = 0; i < a->nwarnings; i++) assert_string_equal(a->warnings[i], b->warnings[i]);
}

static void test_streamed_equals_memory(void **state) {
  (void)state;
  static const char *const files[] = {"h200/mystery.csv", "h200/occupancy.base-units.csv", "t4_seed000.csv",
                                      "ncu_hostile_names.csv", "ncu_unusable_values.csv", "bad/truncated_quote.csv"};
  static const size_t steps[] = {1, 7, 4096};
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", PERFCHECK_TEST_DATA, files[i]);
    size_t n;
    char *text = read_all(path, &n);
    pc_report *mem = NULL;
    pc_err err;
    assert_int_equal(pc_ncu_csv_parse(text, n, "x.csv", 1, &mem, &err), PERFCHECK_OK);
    for (size_t s = 0; s < sizeof steps / sizeof steps[0]; s++) {
      trickle t = {text, n, 0, steps[s]};
      cookie_io_functions_t io = {trickle_read, NULL, NULL, NULL};
      FILE *f = fopencookie(&t, "r", io);
      assert_non_null(f);
      setvbuf(f, NULL, _IONBF, 0);
      pc_report *st = NULL;
      assert_int_equal(pc_ncu_csv_read(f, "x.csv", 1, &st, &err), PERFCHECK_OK);
      fclose(f);
      assert_same_report(mem, st);
      pc_report_free(st);
    }
    pc_report_free(mem);
    free(text);
  }
}

/* A record larger than the first read chunk (1 MiB): a 3 MiB kernel name. */
static void test_big_record(void **state) {
  (void)state;
  const size_t big = (size_t)3 << 20;
  size_t cap = big + 256, n = 0;
  char *text = malloc(cap);
  assert_non_null(text);
  n += (size_t)snprintf(text, cap, "\"Kernel Name\",\"gpu__time_duration.sum\"\n\"");
  memset(text + n, 'k', big);
  n += big;
  n += (size_t)snprintf(text + n, cap - n, "\",\"5\"\n\"small\",\"7\"\n");
  trickle t = {text, n, 0, 65536};
  cookie_io_functions_t io = {trickle_read, NULL, NULL, NULL};
  FILE *f = fopencookie(&t, "r", io);
  pc_report *r = NULL;
  pc_err err;
  assert_int_equal(pc_ncu_csv_read(f, "big.csv", 1, &r, &err), PERFCHECK_OK);
  fclose(f);
  assert_int_equal(r->nkernels, 2);
  assert_int_equal(strlen(r->kernels[0].name), big);
  assert_string_equal(r->kernels[1].name, "small");
  pc_report_free(r);
  free(text);
}

/* ncu killed mid-run: the export cut at any byte.  Every cut that leaves a
 * complete launch row gives those rows (and says what was dropped when a row
 * was cut); a cut before the first one is a parse error naming the file. */
static void test_cut_anywhere(void **state) {
  (void)state;
  size_t n;
  char *text = read_all(DATA("h200/mystery.csv"), &n);
  /* Where each launch row ends (rows 3..6; the units row is line 2). */
  size_t ends[8], nends = 0, line = 1;
  for (size_t i = 0; i < n; i++)
    if (text[i] == '\n' && ++line >= 4 && nends < 8) ends[nends++] = i + 1;
  assert_int_equal(nends, 4);
  size_t ok = 0, errors = 0;
  for (size_t cut = 1; cut <= n; cut += 37) {
    size_t complete = 0;
    for (size_t k = 0; k < nends; k++)
      if (ends[k] <= cut) complete++;
    pc_report *r = NULL;
    pc_err err;
    perfcheck_status st = pc_ncu_csv_parse(text, cut, "cut.csv", 1, &r, &err);
    if (complete == 0) {
      /* Nothing usable yet (or the cut row alone, which may read as a row
       * with fewer fields): a clean error. */
      if (st == PERFCHECK_OK) {
        /* A row cut exactly at a field boundary still has the wrong count. */
        fail_msg("cut at %zu: no complete row, yet OK with %zu kernels", cut, r->nkernels);
      }
      assert_null(r);
      assert_non_null(strstr(err.msg, "cut.csv:"));
      errors++;
      continue;
    }
    if (st != PERFCHECK_OK) fail_msg("cut at %zu (%zu complete rows): %s", cut, complete, err.msg);
    size_t launches = 0;
    for (size_t k = 0; k < r->nkernels; k++) launches += r->kernels[k].launches;
    assert_int_equal(launches, complete);
    int at_boundary = cut == ends[complete - 1];
    if (!at_boundary && !has_warning(r, "cut.csv:", "1 row dropped", NULL)) {
      print_warnings(r);
      fail_msg("cut at %zu: no warning about the cut row", cut);
    }
    pc_report_free(r);
    ok++;
  }
  print_message("%zu cuts kept rows, %zu had none\n", ok, errors);
  assert_true(ok > 100 && errors > 100);
  free(text);
}

/* One damaged row in the middle: the rows before and after are kept. */
static void test_damaged_middle(void **state) {
  (void)state;
  const char *text =
      "\"Kernel Name\",\"gpu__time_duration.sum\",\"launch__grid_size\"\n"
      "\"\",\"nsecond\",\"\"\n"
      "\"a\",\"1\",\"1\"\n"
      "\"b\",\"2\"\n"                  /* a missing field */
      "\"c\",\"3\",\"1\",\"extra\"\n" /* one too many */
      "\"d\",\"4\",\"1\"\n";
  pc_report *r = NULL;
  pc_err err;
  assert_int_equal(parse_str(text, &r, &err), PERFCHECK_OK);
  assert_int_equal(r->nkernels, 2);
  assert_string_equal(r->kernels[0].name, "a");
  assert_string_equal(r->kernels[1].name, "d");
  assert_true(has_warning(r, "mem.csv:4: 2 fields where the header (line 1) has 3; 2 rows dropped, 2 launch rows kept",
                          NULL, NULL));
  pc_report_free(r);
  /* Only damaged rows: exit 2's error, with the first bad line. */
  assert_int_equal(parse_str("\"Kernel Name\",\"gpu__time_duration.sum\"\n\"a\"\n\"b\",\"1\",\"2\"\n", &r, &err),
                   PERFCHECK_ERROR_PARSE);
  assert_non_null(strstr(err.msg, "mem.csv:2: 1 fields where the header (line 1) has 2; 2 rows could not be read"));
}

/* ---- units, decimal commas, NUL bytes, repeats, headers ---- */

static size_t count_warnings(const pc_report *r, const char *a) {
  size_t n = 0;
  for (size_t i = 0; i < r->nwarnings; i++) n += strstr(r->warnings[i], a) != NULL;
  return n;
}

static void test_units_never_silent(void **state) {
  (void)state;
  pc_err err;
  pc_report *r = NULL;
  /* No units row: 96.384 could be us or ns; nothing is read, one warning
   * names the columns (the launch counts stay). */
  assert_int_equal(parse_str("\"Kernel Name\",\"gpu__time_duration.sum\",\"dram__bytes_read.sum\"\n"
                             "\"a\",\"96.384\",\"17\"\n\"a\",\"96.384\",\"17\"\n",
                             &r, &err),
                   PERFCHECK_OK);
  assert_int_equal(r->nkernels, 1);
  assert_int_equal(r->kernels[0].launches, 2);
  assert_true(isnan(r->kernels[0].metric[PC_M_DURATION]));
  assert_true(isnan(r->kernels[0].metric[PC_M_DRAM_BYTES_READ]));
  assert_true(isnan(r->kernels[0].dur_median_ns));
  assert_int_equal(count_warnings(r, "no units row"), 1);
  assert_true(has_warning(r, "mem.csv:1: no units row after the header", "2 columns",
                          "gpu__time_duration.sum, dram__bytes_read.sum"));
  pc_report_free(r);

  /* Unknown units: the column is unusable, one warning each naming it. */
  static const char *const unknown[] = {"\xc2\xb5s", "usec", "furlong", "Kfurlong", "byte/furlong"};
  for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
    char text[400];
    snprintf(text, sizeof text,
             "\"Kernel Name\",\"gpu__time_duration.sum\",\"dram__bytes_read.sum\"\n\"\",\"%s\",\"%s\"\n"
             "\"a\",\"96.384\",\"17\"\n\"b\",\"1\",\"2\"\n",
             unknown[i], unknown[i]);
    assert_int_equal(parse_str(text, &r, &err), PERFCHECK_OK);
    for (size_t k = 0; k < 2; k++) {
      assert_true(isnan(r->kernels[k].metric[PC_M_DURATION]));
      assert_true(isnan(r->kernels[k].metric[PC_M_DRAM_BYTES_READ]));
    }
    assert_int_equal(count_warnings(r, "unknown unit"), 2);
    assert_true(has_warning(r, "mem.csv:2: column gpu__time_duration.sum: unknown unit", "not read", NULL));
    assert_true(has_warning(r, "mem.csv:2: column dram__bytes_read.sum: unknown unit", "not read", NULL));
    assert_int_equal(count_warnings(r, "kernel a:"), 0); /* no warning per cell on top */
    pc_report_free(r);
  }
  /* A known unit of another kind. */
  assert_int_equal(parse_str("\"Kernel Name\",\"gpu__time_duration.sum\",\"dram__bytes_read.sum\"\n"
                             "\"\",\"Kinst\",\"nsecond\"\n\"a\",\"5\",\"17\"\n",
                             &r, &err),
                   PERFCHECK_OK);
  assert_true(isnan(r->kernels[0].metric[PC_M_DURATION]));
  assert_true(isnan(r->kernels[0].metric[PC_M_DRAM_BYTES_READ]));
  assert_true(has_warning(r, "column gpu__time_duration.sum: unit \"Kinst\" is not a time", NULL, NULL));
  assert_true(has_warning(r, "column dram__bytes_read.sum: unit \"nsecond\" is not a byte count", NULL, NULL));
  pc_report_free(r);
  /* The units ncu writes still scale: 96.384 usecond is 96,384 ns, 17 Mbyte
   * 17,000,000 bytes. */
  assert_int_equal(parse_str("\"Kernel Name\",\"gpu__time_duration.sum\",\"dram__bytes_read.sum\",\"lts__t_sectors.sum\"\n"
                             "\"\",\"usecond\",\"Mbyte\",\"Ksector\"\n\"a\",\"96.384\",\"17\",\"2\"\n",
                             &r, &err),
                   PERFCHECK_OK);
  assert_near(r->kernels[0].metric[PC_M_DURATION], 96384, 1e-6);
  assert_near(r->kernels[0].metric[PC_M_DRAM_BYTES_READ], 17e6, 1e-3);
  assert_near(r->kernels[0].metric[PC_M_L2_SECTORS], 2000, 1e-9);
  assert_int_equal(count_warnings(r, "unit \""), 0);
  pc_report_free(r);
}

static void test_cells_rejected(void **state) {
  (void)state;
  pc_report *r = NULL;
  /* A decimal comma is not a thousands separator: "0,500" is no 500. */
  assert_true(isnan(one_duration("0,500", &r)));
  assert_true(has_warning(r, "gpu__time_duration.sum: \"0,500\" is not a number (a decimal comma", NULL, NULL));
  pc_report_free(r);
  assert_true(isnan(one_duration("00,500", NULL)));
  assert_true(isnan(one_duration("-0,5", NULL)));
  assert_near(one_duration("1,500", NULL), 1500, 0); /* ncu's thousands */
  assert_near(one_duration("0.500", NULL), 0.5, 0);
  assert_near(one_duration("0", NULL), 0, 0);
  /* A NUL byte in a cell rejects it ("96\0384" read as 96 before). */
  pc_err err;
  const char nul[] = "\"Kernel Name\",\"gpu__time_duration.sum\"\n\"\",\"nsecond\"\n\"k\",\"96\0" "384\"\n";
  assert_int_equal(pc_ncu_csv_parse(nul, sizeof nul - 1, "nul.csv", 1, &r, &err), PERFCHECK_OK);
  assert_true(isnan(r->kernels[0].metric[PC_M_DURATION]));
  if (!has_warning(r, "nul.csv:3: kernel k: gpu__time_duration.sum: \"96\" (then a NUL byte) is not a number", NULL,
                   NULL)) {
    print_warnings(r);
    fail();
  }
  pc_report_free(r);
}

static void test_repeat_durations_counted(void **state) {
  (void)state;
  pc_err err;
  pc_report *r = NULL;
  /* 3 launches, one of them untimed: never 3 launches with 2 launches' time
   * as the total. */
  static const char *const bad[] = {"abc", "-5", "", "n/a", "0,5"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char text[300];
    snprintf(text, sizeof text,
             "\"Kernel Name\",\"gpu__time_duration.sum\"\n\"\",\"nsecond\"\n\"k\",\"100\"\n\"k\",\"%s\"\n\"k\",\"300\"\n",
             bad[i]);
    assert_int_equal(parse_str(text, &r, &err), PERFCHECK_OK);
    const pc_kernel *k = &r->kernels[0];
    assert_int_equal(k->launches, 3);
    assert_near(k->dur_min_ns, 100, 0);
    assert_near(k->dur_max_ns, 300, 0);
    assert_near(k->dur_median_ns, 200, 0);
    assert_true(isnan(k->total_ns));
    if (!has_warning(r, "mem.csv:4: kernel k: 1 of 3 launches have no usable gpu__time_duration.sum",
                     "over the 2 timed launches and total_ns is null", NULL)) {
      print_warnings(r);
      fail_msg("no warning for \"%s\"", bad[i]);
    }
    pc_report_free(r);
  }
  /* Every launch timed: the total is the sum. */
  assert_int_equal(parse_str("\"Kernel Name\",\"gpu__time_duration.sum\"\n\"\",\"nsecond\"\n\"k\",\"100\"\n\"k\",\"300\"\n",
                             &r, &err),
                   PERFCHECK_OK);
  assert_near(r->kernels[0].total_ns, 400, 0);
  assert_int_equal(count_warnings(r, "launches have no usable"), 0);
  pc_report_free(r);
}

static void test_second_header(void **state) {
  (void)state;
  pc_err err;
  pc_report *r = NULL;
  /* Swapped columns: an error at its line, never a phantom kernel nor rows
   * read through the first header's columns. */
  assert_int_equal(parse_str("\"Kernel Name\",\"gpu__time_duration.sum\",\"dram__bytes_read.sum\"\n"
                             "\"\",\"nsecond\",\"byte\"\n\"a\",\"1\",\"2\"\n"
                             "\"Kernel Name\",\"dram__bytes_read.sum\",\"gpu__time_duration.sum\"\n"
                             "\"\",\"byte\",\"nsecond\"\n\"a\",\"2\",\"1\"\n",
                             &r, &err),
                   PERFCHECK_ERROR_PARSE);
  assert_null(r);
  assert_non_null(strstr(err.msg, "mem.csv:4: a second header row whose column 2 is \"dram__bytes_read.sum\""));
  /* Swapped with the name column. */
  assert_int_equal(parse_str("\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n\"\",\"\",\"nsecond\"\n\"0\",\"a\",\"1\"\n"
                             "\"Kernel Name\",\"ID\",\"gpu__time_duration.sum\"\n\"\",\"\",\"nsecond\"\n\"b\",\"1\",\"3\"\n",
                             &r, &err),
                   PERFCHECK_ERROR_PARSE);
  assert_non_null(strstr(err.msg, "mem.csv:4: a second header row"));
  /* Another column count. */
  assert_int_equal(parse_str("\"Kernel Name\",\"gpu__time_duration.sum\"\n\"\",\"nsecond\"\n\"a\",\"1\"\n"
                             "\"Kernel Name\",\"gpu__time_duration.sum\",\"dram__bytes_read.sum\"\n",
                             &r, &err),
                   PERFCHECK_ERROR_PARSE);
  assert_non_null(strstr(err.msg, "mem.csv:4: a second header row with 3 columns where the first (line 1) has 2"));
  /* A kernel called "Kernel Name" is a kernel. */
  assert_int_equal(parse_str("\"Kernel Name\",\"gpu__time_duration.sum\"\n\"\",\"nsecond\"\n\"Kernel Name\",\"7\"\n",
                             &r, &err),
                   PERFCHECK_OK);
  assert_int_equal(r->nkernels, 1);
  assert_string_equal(r->kernels[0].demangled, "Kernel Name"); /* name: "Name" ("Kernel" reads as a return type) */
  assert_near(r->kernels[0].metric[PC_M_DURATION], 7, 0);
  pc_report_free(r);
  /* A second section without a units row: its values are not read. */
  assert_int_equal(parse_str("\"Kernel Name\",\"gpu__time_duration.sum\"\n\"\",\"nsecond\"\n\"a\",\"1\"\n"
                             "\"Kernel Name\",\"gpu__time_duration.sum\"\n\"b\",\"96.384\"\n",
                             &r, &err),
                   PERFCHECK_OK);
  assert_near(find_kernel(r, "a", NAN)->metric[PC_M_DURATION], 1, 0);
  assert_true(isnan(find_kernel(r, "b", NAN)->metric[PC_M_DURATION]));
  assert_true(has_warning(r, "mem.csv:4: no units row after the header", NULL, NULL));
  pc_report_free(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_t4_seed000_values), cmocka_unit_test(test_t4_seed000_verdicts),
      cmocka_unit_test(test_valid_units_and_merging), cmocka_unit_test(test_h200_units_agree),
      cmocka_unit_test(test_unusable_values),
      cmocka_unit_test(test_hostile_names),     cmocka_unit_test(test_bad_inputs),
      cmocka_unit_test(test_layout_variations), cmocka_unit_test(test_many_signatures),
      cmocka_unit_test(test_rows_left_out),
      cmocka_unit_test(test_junk_100mb),
      cmocka_unit_test(test_numbers),
      cmocka_unit_test(test_units_never_silent),
      cmocka_unit_test(test_cells_rejected),
      cmocka_unit_test(test_repeat_durations_counted),
      cmocka_unit_test(test_second_header),
      cmocka_unit_test(test_streamed_equals_memory),
      cmocka_unit_test(test_big_record),
      cmocka_unit_test(test_cut_anywhere),
      cmocka_unit_test(test_damaged_middle),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
