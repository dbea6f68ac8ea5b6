/* The report writers (pc_write*.c): string escaping, number formatting, the
 * null rule (never 0 for "not measured"), the text layout and its labels,
 * and write errors.  The JSON is also parsed by a real parser in the CLI
 * tests (tests/unit/check_json.py). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/pc_core.h"
#include "base/pc_json_emit.h"
#include "base/pc_fmt.h"
#include "write/pc_write.h"
#include "base/pc_util.h"

/* Captures what fn writes to a stream. */
typedef struct capture {
  char *buf;
  size_t len;
  FILE *f;
} capture;

static FILE *cap_open(capture *c) {
  c->buf = NULL;
  c->len = 0;
  c->f = open_memstream(&c->buf, &c->len);
  assert_non_null(c->f);
  return c->f;
}

static char *cap_close(capture *c) {
  fclose(c->f);
  return c->buf; /* caller frees */
}

static char *json_string(const char *s) {
  capture c;
  pc_json_string(cap_open(&c), s);
  return cap_close(&c);
}

static char *csv_field(const char *s) {
  capture c;
  pc_csv_write_field(cap_open(&c), s);
  return cap_close(&c);
}

#define check_json(in, want)               \
  do {                                     \
    char *got_ = json_string(in);          \
    assert_string_equal(got_, want);       \
    free(got_);                            \
  } while (0)

#define check_csv(in, want)                \
  do {                                     \
    char *got_ = csv_field(in);            \
    assert_string_equal(got_, want);       \
    free(got_);                            \
  } while (0)

static void test_json_string(void **state) {
  (void)state;
  check_json(NULL, "null");
  check_json("", "\"\"");
  check_json("mysteryA", "\"mysteryA\"");
  check_json("a\"b\\c/d", "\"a\\\"b\\\\c/d\"");
  check_json("\n\r\t\b\f", "\"\\n\\r\\t\\b\\f\"");
  check_json("\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\"");
  /* Valid UTF-8 passes through: é, €, U+1F600. */
  check_json("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
  /* Each byte that is not UTF-8 becomes U+FFFD: a stray FF, a lone
   * continuation, a cut sequence, an overlong '/', a surrogate, > U+10FFFF. */
  check_json("a\xff" "b", "\"a\\ufffdb\"");
  check_json("\x80", "\"\\ufffd\"");
  check_json("x\xc3", "\"x\\ufffd\"");
  check_json("\xc0\xaf", "\"\\ufffd\\ufffd\"");
  check_json("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");
  check_json("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
  check_json("\xe2\x82", "\"\\ufffd\\ufffd\"");
  /* Line and paragraph separators end a line in JavaScript: escaped. */
  check_json("\xe2\x80\xa8\xe2\x80\xa9", "\"\\u2028\\u2029\"");
}

static void test_csv_field(void **state) {
  (void)state;
  check_csv(NULL, "");
  check_csv("", "");
  check_csv("mysteryA", "mysteryA");
  check_csv("scaleAdd<4>", "scaleAdd<4>");
  check_csv("a,b", "\"a,b\"");
  check_csv("say \"hi\"", "\"say \"\"hi\"\"\"");
  /* Control characters are written visibly, never raw (a kernel
   * name's ESC reached the terminal, a newline split the row); these two
   * expected a quoted raw newline and CR before. */
  check_csv("two\nlines", "two\\nlines");
  check_csv("cr\r", "cr\\r");
  check_csv("ctrl\x01\x1b[31mk\t\x7f", "ctrl\\x01\\x1b[31mk\\t\\x7f");
  check_csv("a,\nb", "\"a,\\nb\"");
  check_csv("bad\xff", "bad\xef\xbf\xbd");
}

static void test_fmt_double(void **state) {
  (void)state;
  char buf[40];
  pc_locale_guard g;
  pc_locale_begin(&g);
  pc_fmt_double(buf, sizeof buf, 4194304);
  assert_string_equal(buf, "4194304");
  pc_fmt_double(buf, sizeof buf, 0.25);
  assert_string_equal(buf, "0.25");
  pc_fmt_double(buf, sizeof buf, 0.1);
  assert_string_equal(buf, "0.1");
  pc_fmt_double(buf, sizeof buf, 81.9);
  assert_string_equal(buf, "81.9");
  pc_fmt_double(buf, sizeof buf, -3);
  assert_string_equal(buf, "-3");
  pc_fmt_double(buf, sizeof buf, 1.0 / 3.0);
  assert_string_equal(buf, "0.3333333333333333"); /* 16 digits read back */
  pc_fmt_double(buf, sizeof buf, 9007199254740993.0 * 2); /* above 2^53: %g */
  assert_true(strtod(buf, NULL) == 9007199254740993.0 * 2);
  pc_fmt_double(buf, sizeof buf, 1e300);
  assert_string_equal(buf, "1e+300");
  pc_fmt_double(buf, sizeof buf, 5e-324);
  assert_true(strtod(buf, NULL) == 5e-324);
  /* Every value reads back exactly. */
  uint64_t x = 88172645463325252ull;
  for (int i = 0; i < 100000; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    double v;
    memcpy(&v, &x, sizeof v);
    if (!isfinite(v)) continue;
    pc_fmt_double(buf, sizeof buf, v);
    if (strtod(buf, NULL) != v) fail_msg("%.17g printed as %s", v, buf);
  }
  pc_locale_end(&g);
}

static void test_printable(void **state) {
  (void)state;
  char out[64];
  assert_int_equal(pc_fmt_printable(out, sizeof out, "mysteryA", 60), 8);
  assert_string_equal(out, "mysteryA");
  assert_int_equal(pc_fmt_printable(out, sizeof out, "a\nb\x01", 60), 8);
  assert_string_equal(out, "a\\nb\\x01");
  assert_int_equal(pc_fmt_printable(out, sizeof out, "\xc3\xa9t\xff", 60), 3);
  assert_string_equal(out, "\xc3\xa9t\xef\xbf\xbd");
  assert_int_equal(pc_fmt_printable(out, sizeof out, "abcdefghij", 8), 8);
  assert_string_equal(out, "abcde...");
  char tiny[6];
  pc_fmt_printable(tiny, sizeof tiny, "abcdefghij", 60);
  assert_true(strlen(tiny) < sizeof tiny);
}

/* ---- whole reports ------------------------------------------------------- */

static pc_kernel *add_kernel(pc_report *r, const char *name, unsigned gx, double dyn) {
  pc_kernel *k = pc_report_add_kernel(r);
  assert_non_null(k);
  k->name = pc_strdup(name);
  k->grid[0] = gx;
  k->grid[1] = k->grid[2] = 1;
  k->block[0] = 256;
  k->block[1] = k->block[2] = 1;
  k->dynamic_smem = dyn;
  k->launches = k->profiled_launches = 1;
  return k;
}

/* A report with one measured kernel, one measured nowhere, and a region. */
static pc_report *sample_report(void) {
  pc_report *r = pc_report_new();
  assert_non_null(r);
  snprintf(r->device.name, sizeof r->device.name, "Tesla T4");
  r->device.cc_major = 7;
  r->device.cc_minor = 5;
  r->device.sm_count = 40;
  r->device.peak_dram_bytes_per_s = 320.064e9;
  r->device.peak_fp32_flop_per_s = 8140.8e9;
  r->device.ridge_flop_per_byte = 8140.8 / 320.064;
  snprintf(r->device.ceilings_source, sizeof r->device.ceilings_source, "attributes");

  pc_kernel *a = add_kernel(r, "mysteryA", 16384, 0);
  a->region = pc_strdup("solve");
  a->dur_min_ns = a->dur_median_ns = a->dur_max_ns = 449000;
  a->metric[PC_M_DURATION] = 449000;
  a->metric[PC_M_LD_SECTORS] = 4182508;
  a->metric[PC_M_LD_REQUESTS] = 131072;
  a->metric_via_substitute[PC_M_LD_REQUESTS] = 1;
  a->attr.registers_per_thread = 8;
  a->attr.static_smem = 0;
  a->attr.blocks_per_sm = 4;
  a->attr.warps_per_sm = 32;
  a->attr.theoretical_occupancy_pct = 100;
  a->attr.binding = PC_LIMIT_WARPS;
  a->derived.sectors_per_request_ld = 4182508.0 / 131072.0;
  a->derived.arithmetic_intensity = 0.25;
  a->derived.dram_gbps = 74.7;
  a->derived.gflops = 18.7;
  a->diag.bound = PERFCHECK_BOUND_MEMORY;
  a->diag.verdict.step = 3;
  a->diag.verdict.cause = PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS;
  snprintf(a->diag.verdict.metric, sizeof a->diag.verdict.metric, "a / b");
  a->diag.verdict.value = 4182508.0 / 131072.0;
  a->diag.verdict.threshold = 4;
  snprintf(a->diag.verdict.advice, sizeof a->diag.verdict.advice, "Coalesce the loads.");
  a->diag.nfindings = 1;
  a->diag.findings[0].step = 1;
  a->diag.findings[0].cause = PERFCHECK_CAUSE_NOT_ASSESSED;
  a->diag.findings[0].value = PC_NULL;
  a->diag.findings[0].threshold = 0.5;

  /* Same name, other dynamic shared memory / grid: labels must differ. */
  pc_kernel *c1 = add_kernel(r, "mysteryC", 16384, 48000);
  pc_kernel *c2 = add_kernel(r, "mysteryC", 16384, 0);
  pc_kernel *c3 = add_kernel(r, "mysteryC", 8, 0);
  (void)c1;
  (void)c2;
  (void)c3;
  pc_kernel *n = add_kernel(r, "nothing", 1, PC_NULL);
  n->not_measured_reason = pc_strdup("launched inside a CUDA graph");
  n->diag.verdict.cause = PERFCHECK_CAUSE_NOT_ASSESSED;
  n->diag.verdict.step = 2;

  pc_region *g = pc_report_add_region(r);
  assert_non_null(g);
  g->name = pc_strdup("solve");
  g->wall_ns = 10e6;
  g->kernel_ns = 1e6;
  g->memcpy_ns = 8e6;
  g->kernel_share = 0.1;
  g->launches = 5;
  g->diag.verdict.step = 1;
  g->diag.verdict.cause = PERFCHECK_CAUSE_NOT_THE_SLOW_PART;
  snprintf(g->diag.verdict.metric, sizeof g->diag.verdict.metric, "kernel_ns / wall_ns");
  g->diag.verdict.value = 0.1;
  g->diag.verdict.threshold = 0.5;
  snprintf(g->diag.verdict.advice, sizeof g->diag.verdict.advice, "Look outside the kernels.");
  pc_report_warn(r, 1, "a warning with \"quotes\"\nand a newline");
  return r;
}

static char *write_report(const pc_report *r, perfcheck_format fmt) {
  capture c;
  assert_int_equal(perfcheck_report_write(r, fmt, cap_open(&c)), PERFCHECK_OK);
  return cap_close(&c);
}

static void test_json_report(void **state) {
  (void)state;
  pc_report *r = sample_report();
  char *j = write_report(r, PERFCHECK_FORMAT_JSON);
  assert_non_null(strstr(j, "\"schema\": \"perfcheck-report/2\""));
  assert_non_null(strstr(j, "\"version\": \"" PERFCHECK_VERSION_STRING "\""));
  assert_non_null(strstr(j, "\"compute_capability\": \"7.5\""));
  assert_non_null(strstr(j, "\"sm_count\": 40"));
  assert_non_null(strstr(j, "\"peak_dram_bytes_per_s\": 320064000000"));
  assert_non_null(strstr(j, "\"grid\": [16384, 1, 1]"));
  assert_non_null(strstr(j, "\"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum\": 4182508"));
  /* Not measured is null, never 0. */
  assert_non_null(strstr(j, "\"sm__warps_active.avg.pct_of_peak_sustained_active\": null"));
  assert_non_null(strstr(j, "\"dynamic_smem_bytes\": null"));
  assert_null(strstr(j, "\"sm__warps_active.avg.pct_of_peak_sustained_active\": 0"));
  /* The substitute is named, and only for the metric it produced. */
  assert_non_null(strstr(j, "\"metric_sources\": {\n        \"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum\": "
                            "\"smsp__sass_inst_executed_op_global_ld.sum\"\n      }"));
  assert_non_null(strstr(j, "\"not_measured_reason\": \"launched inside a CUDA graph\""));
  assert_non_null(strstr(j, "\"cause\": \"uncoalesced_global_loads\""));
  assert_non_null(strstr(j, "\"value\": 31.910003662109375"));
  assert_non_null(strstr(j, "\"bound\": \"memory\""));
  assert_non_null(strstr(j, "\"binding_limit\": \"warps\""));
  assert_non_null(strstr(j, "\"cause\": \"not_the_slow_part\""));
  assert_non_null(strstr(j, "\"a warning with \\\"quotes\\\"\\nand a newline\""));
  free(j);
  pc_report_free(r);
}

static void test_csv_report(void **state) {
  (void)state;
  pc_report *r = sample_report();
  /* In process, a kernel names its device; offline it is empty. */
  for (size_t i = 0; i < r->nkernels; i++)
    if (strcmp(r->kernels[i].name, "mysteryA") == 0) {
      r->kernels[i].device_ordinal = 1;
      snprintf(r->kernels[i].pci_bus_id, sizeof r->kernels[i].pci_bus_id, "%s", "0000:2A:00.0");
    }
  char *c = write_report(r, PERFCHECK_FORMAT_CSV);
  const char *header =
      "name,region,grid,block,dynamic_smem_bytes,launches,duration_ns_median,sectors_per_request_ld,"
      "sectors_per_request_st,threads_per_instruction,threads_per_instruction_pred_on,achieved_occupancy_pct,"
      "theoretical_occupancy_pct,flops,dram_bytes,arithmetic_intensity,waves_per_sm,dram_gbps,gflops,memory_pct,"
      "compute_pct,local_sectors,bank_conflict_share,atomic_share,step,cause,bound,metric,value,threshold,advice,"
      "display_name,total_ns,kernel_time_share,bytes_per_sector_ld,bytes_per_sector_st,bytes_per_sector_ldgsts,"
      "busiest_pipe,busiest_pipe_pct,busiest_memory,busiest_memory_pct,device_ordinal,pci_bus_id,rank,borderline,"
      "runner_up,stall,stall_share,label,worth_changing,library,library_advice,runner_up_metric,runner_up_value,"
      "runner_up_threshold,estimated_speedup,estimated_saved_ns,estimated_basis\n";
  assert_memory_equal(c, header, strlen(header));
  assert_non_null(strstr(c, "\nmysteryA,solve,16384x1x1,256x1x1,0,1,449000,31.910003662109375,,,,,,,,0.25,,74.7,18.7,"
                            ",,,,,3,uncoalesced_global_loads,memory,a / b,31.910003662109375,4,Coalesce the loads.,"
                            "mysteryA,,,,,,,,,,1,0000:2A:00.0,,0,,,,mysteryA,,,,,,,,,\n"));
  /* The label tells apart entries that share a name, as in the text report. */
  assert_non_null(strstr(c, ",\"mysteryC, 48000 B dynamic, grid 16384x1x1\",,,,,,,,,\n"));
  /* Unmeasured: empty fields, never 0. */
  assert_non_null(
      strstr(c, "\nnothing,,1x1x1,256x1x1,,1,,,,,,,,,,,,,,,,,,,2,not_assessed,unknown,,,,,nothing,,,,,,,,,,,,,0,,,,nothing,,,,,,,,,\n"));
  /* One line per kernel plus the header. */
  size_t lines = 0;
  for (const char *p = c; *p; p++) lines += *p == '\n';
  assert_int_equal(lines, r->nkernels + 1);
  free(c);
  pc_report_free(r);
}

static void test_text_report(void **state) {
  (void)state;
  pc_report *r = sample_report();
  char *t = write_report(r, PERFCHECK_FORMAT_TEXT);
  print_message("%s", t);
  /* The kernel column widens to the longest label (41 here). */
  assert_non_null(strstr(t, "Part 1: what the launch configuration alone decides\n"
                            "kernel                                     regs   static B   dynamic B  blk/SM warps/SM    occ %\n"
                            "----------------------------------------- ----- ---------- ----------- ------- -------- "
                            "--------\n"
                            "mysteryA                                      8          0           0       4       32    100.0\n"));
  /* Labels tell apart entries that share a name: only what differs. */
  assert_non_null(strstr(t, "\nmysteryC, 48000 B dynamic, grid 16384x1x1     -"));
  assert_non_null(strstr(t, "\nmysteryC, 0 B dynamic, grid 16384x1x1         -"));
  assert_non_null(strstr(t, "\nmysteryC, 0 B dynamic, grid 8x1x1             -"));
  /* Unmeasured values print as "-". */
  assert_non_null(strstr(t, "\nnothing                                       -          -           -       -        -        -\n"));
  assert_non_null(strstr(t, "\nmysteryA                                       0.250      0.449      74.7       18.7\n"));
  char row[256];
  snprintf(row, sizeof row, "\n%-41s %20s %23s %19s %28s\n", "mysteryA", "- / -", "31.91 / -", "-", "- / -");
  assert_non_null(strstr(t, row));
  /* Share, rank and step 2 per kernel: nothing measured in this sample, so "-". */
  snprintf(row, sizeof row, "\n%-41s %10s %8s %5s %13s %6s %15s %6s\n", "mysteryA", "-", "-", "-", "-", "-", "-", "-");
  assert_non_null(strstr(t, row));
  /* The verdict: the deciding metric, its value and threshold, then the
   * advice on a line of its own. */
  assert_non_null(strstr(t, "\nmysteryA: step 3 uncoalesced_global_loads: a / b = 31.91 (threshold 4)\n"));
  assert_non_null(strstr(t, "\n  advice: Coalesce the loads.\n"));
  assert_non_null(strstr(t, "\nnothing: step 2 not_assessed\n"));
  /* The verdicts first; the regions' table after the kernels' tables. */
  const char *verdicts = strstr(t, "\nVerdicts, the kernels that hold the most time first\n");
  assert_non_null(verdicts);
  assert_true(verdicts < strstr(t, "Part 1"));
  const char *reg = strstr(t, "\nsolve                    10.000      1.000      8.000      10.0         5  not_the_slow_part\n");
  assert_non_null(reg);
  assert_true(reg > strstr(t, "Part 2"));
  /* The region's step 1 heads the verdicts, each number with its unit. */
  const char *rv = strstr(t, "\nregion solve: step 1 not_the_slow_part: kernel_ns / wall_ns = 0.1 (10% of the wall clock) "
                             "(threshold 0.5: 50% of the wall clock): Look outside the kernels.\n");
  assert_non_null(rv);
  assert_true(rv > verdicts && rv < strstr(t, "\nmysteryA: step 3"));
  /* The warning's newline does not break the line structure. */
  assert_non_null(strstr(t, "  a warning with \"quotes\"\\nand a newline\n"));
  free(t);
  pc_report_free(r);
}

/* The seed's layout: a 26-character kernel column when the names fit. */
static void test_text_seed_layout(void **state) {
  (void)state;
  pc_report *r = pc_report_new();
  pc_kernel *k = add_kernel(r, "mysteryB", 16384, 0);
  k->attr.registers_per_thread = 14;
  k->attr.static_smem = 0;
  k->attr.blocks_per_sm = 4;
  k->attr.warps_per_sm = 32;
  k->attr.theoretical_occupancy_pct = 100;
  k->derived.arithmetic_intensity = 256;
  k->dur_median_ns = 2145000;
  k->derived.dram_gbps = 15.6;
  k->derived.gflops = 4004.9;
  char *t = write_report(r, PERFCHECK_FORMAT_TEXT);
  /* Seed 000, Part 1 and Part 2, character for character. */
  assert_non_null(strstr(t, "kernel                      regs   static B   dynamic B  blk/SM warps/SM    occ %\n"
                            "-------------------------- ----- ---------- ----------- ------- -------- --------\n"
                            "mysteryB                      14          0           0       4       32    100.0\n"));
  assert_non_null(strstr(t, "kernel                      FLOP/byte    time ms      GB/s    GFLOP/s\n"
                            "-------------------------- ---------- ---------- --------- ----------\n"
                            "mysteryB                      256.000      2.145      15.6     4004.9\n"));
  free(t);
  pc_report_free(r);
}

/* No regions, no kernels: still a well-formed report. */
static void test_empty_report(void **state) {
  (void)state;
  pc_report *r = pc_report_new();
  char *t = write_report(r, PERFCHECK_FORMAT_TEXT);
  assert_non_null(strstr(t, "unknown device"));
  assert_non_null(strstr(t, "No kernels."));
  assert_null(strstr(t, "Regions"));
  free(t);
  char *j = write_report(r, PERFCHECK_FORMAT_JSON);
  assert_non_null(strstr(j, "\"kernels\": []"));
  assert_non_null(strstr(j, "\"compute_capability\": null"));
  assert_non_null(strstr(j, "\"sm_count\": null"));
  free(j);
  pc_report_free(r);
}

/* ---- what the verdicts say --------------------------------------------------------- */

static void set_verdict(pc_finding *v, int step, perfcheck_cause cause, const char *metric, double value,
                        double threshold, const char *advice) {
  v->step = step;
  v->cause = cause;
  snprintf(v->metric, sizeof v->metric, "%s", metric);
  v->value = value;
  v->threshold = threshold;
  snprintf(v->advice, sizeof v->advice, "%s", advice);
}

/* Four kernels of one region: the verdicts come first, the kernels that
 * hold the time first and the one under 1% after them; each verdict says
 * its metric, value and threshold in the metric's unit, its runner-up's
 * number when borderline, every secondary finding, a library kernel's
 * advice in two parts, and an estimated gain as an estimate. */
static pc_report *verdicts_report(void) {
  pc_report *r = pc_report_new();
  assert_non_null(r);
  r->step1_assessed = 1;
  const struct {
    const char *name;
    double share;
  } ks[] = {{"tiny_init", 0.005}, {"mid_issue", 0.195}, {"big_l2", 0.5}, {"gemm_lib", 0.3}};
  for (size_t i = 0; i < 4; i++) {
    pc_kernel *k = add_kernel(r, ks[i].name, 64, 0);
    k->region = pc_strdup("step");
    k->time_share = ks[i].share;
    k->time_share_from_timeline = 1;
    k->total_ns = ks[i].share * 1e7;
    k->rank = 0;
  }
  pc_kernel *tiny = &r->kernels[0], *mid = &r->kernels[1], *big = &r->kernels[2], *lib = &r->kernels[3];
  set_verdict(&tiny->diag.verdict, 5, PERFCHECK_CAUSE_GRID_TOO_SMALL, "launch__waves_per_multiprocessor", 0.0076, 1,
              "Launch more blocks.");
  /* The issue slots: compared as a % of peak, printed as ncu's value. */
  set_verdict(&mid->diag.verdict, 0, PERFCHECK_CAUSE_AT_ROOF, "smsp__issue_active.avg.per_cycle_active", 96, 80,
              "Finished as written.");
  /* "No unit near its roof", borderline: the 79% that makes it so is said. */
  set_verdict(&big->diag.verdict, 0, PERFCHECK_CAUSE_LATENCY_BOUND, "lts__throughput.avg.pct_of_peak_sustained_elapsed",
              79, 80, "No unit is near its roof (L2 is the busiest, at 79.0%).");
  big->metric[PC_M_L2_THROUGHPUT_PCT] = 79;
  big->diag.borderline = 1;
  big->diag.runner_up = PERFCHECK_CAUSE_AT_ROOF;
  big->diag.nfindings = 1;
  set_verdict(&big->diag.findings[0], 3, PERFCHECK_CAUSE_SHARED_BANK_CONFLICTS,
              "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum / "
              "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
              0.97, 0.1, "Pad the shared tile by one word.");
  snprintf(lib->library, sizeof lib->library, "%s", "cuBLAS");
  set_verdict(&lib->diag.verdict, 5, PERFCHECK_CAUSE_GRID_TOO_SMALL, "launch__waves_per_multiprocessor", 0.48, 1,
              "Launch more blocks.");
  snprintf(lib->diag.library_advice, sizeof lib->diag.library_advice, "%s", "Batch the 6 small GEMMs in one call.");
  lib->diag.gain.speedup = 1.5;
  lib->diag.gain.saved_ns = 1e6;
  snprintf(lib->diag.gain.basis, sizeof lib->diag.gain.basis, "%s", "one wave of the SMs instead of half of one");
  return r;
}

static void test_text_verdicts(void **state) {
  (void)state;
  pc_report *r = verdicts_report();
  char *t = write_report(r, PERFCHECK_FORMAT_TEXT);
  print_message("%s", t);
  const char *big = strstr(t, "\nbig_l2: step 0 latency_bound: lts__throughput.avg.pct_of_peak_sustained_elapsed = 79% "
                              "(threshold 80%)\n");
  const char *lib = strstr(t, "\ngemm_lib: step 5 grid_too_small: launch__waves_per_multiprocessor = 0.48 waves "
                              "(threshold 1 wave)\n");
  const char *mid = strstr(t, "\nmid_issue: step 0 at_roof: smsp__issue_active.avg.per_cycle_active = 0.96 inst/cycle "
                              "(96% of peak) (threshold 0.8 inst/cycle: 80% of peak)\n");
  const char *not_worth = strstr(t, "\nNot worth changing: each of these takes under 1% of its region's kernel time");
  const char *tiny = strstr(t, "\ntiny_init: step 5 grid_too_small: launch__waves_per_multiprocessor = 0.0076 waves");
  assert_non_null(big);
  assert_non_null(lib);
  assert_non_null(mid);
  assert_non_null(not_worth);
  assert_non_null(tiny);
  /* By share, the one under 1% after the heading that says so; all before
   * the tables. */
  assert_true(big < lib && lib < mid && mid < not_worth && not_worth < tiny && tiny < strstr(t, "Part 1"));
  assert_null(strstr(t, "per_cycle_active = 96"));
  assert_non_null(strstr(t, "  time: 0.5% of region step's kernel time, 50 us in 1 launch; not worth changing: under 1% "
                            "of the kernel time\n"));
  assert_non_null(strstr(t, "  time: 50.0% of region step's kernel time, 5 ms in 1 launch\n"));
  /* The borderline verdict names the number that makes it so. */
  assert_non_null(strstr(big, "\n  borderline: nudging one threshold by 5 points (10% of a ratio) gives at_roof instead: "
                              "lts__throughput.avg.pct_of_peak_sustained_elapsed = 79% (threshold 80%)\n"));
  /* The secondary finding under it. */
  assert_non_null(strstr(big, "\n  also: step 3 shared_bank_conflicts: l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
                              " / l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum = 0.97 conflicts/wavefront "
                              "(threshold 0.1 conflicts/wavefront): Pad the shared tile by one word.\n"));
  /* A library's kernel: the change the user controls, then the library's. */
  assert_non_null(strstr(lib, "\n  library: cuBLAS\n  advice: Batch the 6 small GEMMs in one call.\n"
                              "  inside the kernel (for cuBLAS's authors): Launch more blocks.\n"));
  assert_non_null(strstr(lib, "\n  estimated gain (an estimate, not a measurement): 1.5x faster, about 1 ms saved: one wave "
                              "of the SMs instead of half of one\n"));
  free(t);
  /* The report's own worth_changing wins over the share when it carries one. */
  r->kernels[0].worth_changing = 1;
  t = write_report(r, PERFCHECK_FORMAT_TEXT);
  assert_null(strstr(t, "Not worth changing"));
  free(t);
  r->kernels[0].worth_changing = -1;
  char *c = write_report(r, PERFCHECK_FORMAT_CSV);
  assert_non_null(strstr(c, ",tiny_init,false,,,,,,,,\n"));
  assert_non_null(strstr(c, ",gemm_lib,true,cuBLAS,Batch the 6 small GEMMs in one call.,,,,1.5,1000000,one wave of the SMs "
                            "instead of half of one\n"));
  assert_non_null(strstr(c, ",big_l2,true,,,lts__throughput.avg.pct_of_peak_sustained_elapsed,79,80,,,\n"));
  free(c);
  pc_report_free(r);
}

/* Two different kernels whose display names are one ("...": the template
 * arguments that tell them apart elided) get labels that tell them apart,
 * in the text, the HTML and the CSV alike. */
static void test_labels_apart(void **state) {
  (void)state;
  static const char *const names[] = {
      "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
      "namespace)::TensorListMetadata<2>, at::native::(anonymous namespace)::TernaryOpScalarFunctor<float, 2, 2, 0>, "
      "at::native::LerpFunctor<float>, float>(at::native::(anonymous namespace)::TensorListMetadata<2>, int)",
      "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
      "namespace)::TensorListMetadata<2>, at::native::(anonymous namespace)::UnaryOpFunctor<float, 2, 1, 1>, "
      "at::native::Sqrt<float> >(at::native::(anonymous namespace)::TensorListMetadata<2>, int)"};
  pc_report *r = pc_report_new();
  for (int i = 0; i < 2; i++) {
    pc_kernel *k = add_kernel(r, "x", 67, 0);
    free(k->name);
    k->name = NULL;
    assert_int_equal(pc_kernel_set_names(k, NULL, names[i]), 0);
  }
  /* The display names are one: the case this is about. */
  assert_string_equal(pc_kernel_label_name(&r->kernels[0]), pc_kernel_label_name(&r->kernels[1]));
  pc_label labels[2] = {{0}};
  assert_int_equal(pc_kernel_labels(r, labels), 0);
  print_message("%s\n%s\n", labels[0].text, labels[1].text);
  assert_string_not_equal(labels[0].text, labels[1].text);
  assert_non_null(strstr(labels[0].text, "TernaryOpScalarFunctor"));
  assert_non_null(strstr(labels[1].text, "Sqrt<float>"));
  char *t = write_report(r, PERFCHECK_FORMAT_TEXT), *h = write_report(r, PERFCHECK_FORMAT_HTML),
       *c = write_report(r, PERFCHECK_FORMAT_CSV);
  for (int i = 0; i < 2; i++) {
    char want[512];
    snprintf(want, sizeof want, "\n%s: step", labels[i].text);
    assert_non_null(strstr(t, want));
    char esc[512];
    size_t o = 0;
    for (const char *q = labels[i].text; *q && o + 5 < sizeof esc; q++)
      o += (size_t)snprintf(esc + o, sizeof esc - o, "%s", *q == '<' ? "&lt;" : *q == '>' ? "&gt;" : (char[2]){*q, 0});
    assert_non_null(strstr(h, esc));
    snprintf(want, sizeof want, "\"%s\"", labels[i].text);
    assert_non_null(strstr(c, want));
  }
  free(t);
  free(h);
  free(c);
  free(labels[0].text);
  free(labels[1].text);
  pc_report_free(r);
}

/* Advice is never cut: every advice of every recorded report fits its
 * field with room to spare, and the longest one reaches the text, JSON,
 * CSV and HTML reports whole. */
static void scan_advice(const pc_report *r, size_t *longest, char *keep, size_t keep_len) {
  for (size_t i = 0; i < r->nkernels; i++) {
    const pc_diagnosis *d = &r->kernels[i].diag;
    for (size_t j = 0; j <= d->nfindings && j <= PC_MAX_FINDINGS; j++) {
      const pc_finding *f = j == 0 ? &d->verdict : &d->findings[j - 1];
      const size_t n = strlen(f->advice);
      assert_true(n + 1 < PC_ADVICE_MAX); /* strictly shorter than the field: nothing was cut */
      if (n > *longest) {
        *longest = n;
        snprintf(keep, keep_len, "%s", f->advice);
      }
    }
  }
}

static void test_longest_advice(void **state) {
  (void)state;
  static const char *const files[] = {
      "nsys/mystery_kern_mem.hand-made.csv",          "corpus/h200-2026-12-01/torch_ops.csv.gz",
      "corpus/h200-2026-12-01/access_widths.csv.gz",  "advice/h200-2026-12-01-b/advice.csv.gz",
      "advice/h200-2026-12-02-c/inproc.json.gz",     "h200-torch/torch_step.perfcheck-run.json",
      "ncu_raw_valid.csv",                            "t4_seed000.csv"};
  size_t longest = 0;
  char keep[PC_ADVICE_MAX] = "";
  const char *from = NULL;
  pc_report *best = NULL;
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", PERFCHECK_TEST_DATA, files[i]);
    perfcheck_report *r = NULL;
    assert_int_equal(perfcheck_report_read(path, 1, &r), PERFCHECK_OK);
    const size_t before = longest;
    scan_advice(r, &longest, keep, sizeof keep);
    if (longest > before) {
      pc_report_free(best);
      best = r;
      from = files[i];
    } else {
      pc_report_free(r);
    }
  }
  print_message("longest advice: %zu bytes, from %s: %s\n", longest, from, keep);
  assert_true(longest > 320); /* longer than the old field: the case this is about */
  /* The stall clause that used to be cut ("... (cp.async, TMA)") reads whole. */
  {
    char path[1024];
    snprintf(path, sizeof path, "%s/corpus/h200-2026-12-01/torch_ops.csv.gz", PERFCHECK_TEST_DATA);
    perfcheck_report *r = NULL;
    assert_int_equal(perfcheck_report_read(path, 1, &r), PERFCHECK_OK);
    char *j = write_report(r, PERFCHECK_FORMAT_JSON);
    assert_non_null(strstr(j, "prefetch into shared memory (cp.async, TMA).\""));
    free(j);
    pc_report_free(r);
  }
  for (int fmt = PERFCHECK_FORMAT_TEXT; fmt <= PERFCHECK_FORMAT_HTML; fmt++) {
    char *out = write_report(best, (perfcheck_format)fmt);
    if (!strstr(out, keep)) fail_msg("format %d lost the longest advice", fmt);
    free(out);
  }
  pc_report_free(best);
}

static void test_write_errors(void **state) {
  (void)state;
  pc_report *r = sample_report();
  assert_int_equal(perfcheck_report_write(NULL, PERFCHECK_FORMAT_JSON, stdout), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_int_equal(perfcheck_report_write(r, PERFCHECK_FORMAT_JSON, NULL), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_int_equal(perfcheck_report_write(r, (perfcheck_format)99, stdout), PERFCHECK_ERROR_INVALID_ARGUMENT);
  FILE *full = fopen("/dev/full", "w");
  if (full) {
    for (int f = PERFCHECK_FORMAT_TEXT; f <= PERFCHECK_FORMAT_CSV; f++)
      assert_int_equal(perfcheck_report_write(r, (perfcheck_format)f, full), PERFCHECK_ERROR_IO);
    /* The public call leaves the detail as the thread's last error; the
     * internal writer fills the caller's pc_err and leaves that alone. */
    clearerr(full);
    assert_int_equal(perfcheck_report_write(r, PERFCHECK_FORMAT_HTML, full), PERFCHECK_ERROR_IO);
    assert_string_equal(perfcheck_last_error_message(), "writing the HTML report failed");
    pc_clear_error();
    clearerr(full);
    pc_err err;
    assert_int_equal(pc_write_text(r, full, &err), PERFCHECK_ERROR_IO);
    assert_int_equal(err.status, PERFCHECK_ERROR_IO);
    assert_string_equal(err.msg, "writing the text report failed");
    assert_string_equal(perfcheck_last_error_message(), "");
    assert_int_equal(pc_write_json(NULL, full, &err), PERFCHECK_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.msg, "pc_write_json: NULL argument");
    fclose(full);
  } else {
    print_message("no /dev/full: the write-error case is not exercised\n");
  }
  pc_report_free(r);
}

/* A process whose locale writes "0,25" still gets JSON numbers with a point. */
static void test_locale(void **state) {
  (void)state;
  static const char *const comma_locales[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8", "nl_NL.UTF-8"};
  const char *got = NULL;
  for (size_t i = 0; i < sizeof comma_locales / sizeof comma_locales[0] && !got; i++)
    got = setlocale(LC_NUMERIC, comma_locales[i]);
  if (!got) {
    print_message("no locale with a decimal comma installed: the locale case is not exercised\n");
    return;
  }
  pc_report *r = sample_report();
  char *j = write_report(r, PERFCHECK_FORMAT_JSON);
  assert_non_null(strstr(j, "\"arithmetic_intensity\": 0.25"));
  free(j);
  pc_report_free(r);
  setlocale(LC_NUMERIC, "C");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_json_string), cmocka_unit_test(test_csv_field),    cmocka_unit_test(test_fmt_double),
      cmocka_unit_test(test_printable),   cmocka_unit_test(test_json_report),  cmocka_unit_test(test_csv_report),
      cmocka_unit_test(test_text_report), cmocka_unit_test(test_text_seed_layout),
      cmocka_unit_test(test_empty_report), cmocka_unit_test(test_write_errors),
      cmocka_unit_test(test_locale),      cmocka_unit_test(test_text_verdicts), cmocka_unit_test(test_labels_apart),
      cmocka_unit_test(test_longest_advice),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
