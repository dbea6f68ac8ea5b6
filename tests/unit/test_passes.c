/* Metric plans and CUPTI pass counts (pc_metrics_host.c).
 *
 * The parsing tests need nothing.  The pass-count tests call CUPTI's host API
 * with chip names, which needs libcupti and libnvperf_host but no GPU; where
 * they cannot load, the program says why and exits 77 (skipped) after the
 * parsing tests pass.  The expected pass counts are those measured with the
 * CUDA 13.0 Update 1 toolkit (table in pc_metrics_host.c); a new toolkit that
 * changes them fails here, on purpose: re-measure and update both. */
#define _GNU_SOURCE /* RTLD_DEFAULT, RTLD_NOLOAD */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pc_cuda.h"
#include "pc_cupti.h"
#include "pc_rangeprof.h"
#include "pc_rp_internal.h"

static int count_set(unsigned flag) {
  int n = 0;
  for (int i = 0; i < PC_M_COUNT; i++) n += (pc_metric_table()[i].sets & flag) != 0;
  return n;
}

static int has_name(const char **names, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(names[i], name) == 0) return 1;
  return 0;
}

/* ==== Parsing =============================================================== */

static void check_set(const char *spec, const char *set_name, unsigned flag, int substitutes) {
  pc_rp_plan plan;
  pc_err errv = {PERFCHECK_OK, ""};
  assert_int_equal(pc_rp_plan_parse(spec, &plan, &errv), PERFCHECK_OK);
  assert_string_equal(plan.set_name, set_name);
  const pc_metric_def *t = pc_metric_table();
  for (int i = 0; i < PC_M_COUNT; i++) {
    assert_int_equal(plan.want[i], (t[i].sets & flag) != 0);
    assert_int_equal(plan.use_substitute[i], substitutes && plan.want[i] && t[i].substitute != NULL);
  }
  assert_int_equal(plan.nextra, 0);
  assert_int_equal(plan.nrejected, 0);
  assert_true(plan.cap_rejected >= PC_M_COUNT);

  const char *names[PC_M_COUNT + 8];
  size_t n = pc_rp_plan_counter_names(&plan, names, PC_M_COUNT + 8);
  assert_int_equal(n, count_set(flag)); /* one counter per metric, substitute or not */
  /* Unique and sorted: the order CUPTI schedules passes by. */
  for (size_t i = 1; i < n; i++) assert_true(strcmp(names[i - 1], names[i]) < 0);
  assert_true(has_name(names, n, "gpu__time_duration.sum"));
  /* ncu's own threads-per-instruction ratio and shared-load wavefronts in
   * every set (the SASS counts read differently on TMA and tensor-core
   * kernels: pc_metrics.c). */
  assert_true(has_name(names, n, "smsp__average_thread_inst_executed_per_inst_executed.ratio"));
  assert_true(has_name(names, n, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"));
  assert_false(has_name(names, n, "smsp__sass_thread_inst_executed.sum"));
  assert_int_equal(has_name(names, n, "smsp__sass_inst_executed_op_global_ld.sum"), substitutes);
  assert_int_equal(has_name(names, n, "smsp__sass_inst_executed_op_global_st.sum"), substitutes);
  assert_int_equal(has_name(names, n, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"), !substitutes);
  assert_int_equal(has_name(names, n, "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"), !substitutes);
  assert_true(has_name(names, n, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"));
  pc_rp_plan_free(&plan);
  assert_null(plan.extra);
  assert_null(plan.rejected);
}

static void test_parse_sets(void **state) {
  (void)state;
  check_set(NULL, "default", PC_SET_DEFAULT, 1);
  check_set("default", "default", PC_SET_DEFAULT, 1);
  check_set(" default ", "default", PC_SET_DEFAULT, 1);
  check_set("default,default", "default", PC_SET_DEFAULT, 1);
  check_set("sol", "sol", PC_SET_SOL, 1);
  check_set("full", "full", PC_SET_FULL, 0);
  /* ncu's set names: the report names the set as given. */
  check_set("detailed", "detailed", PC_SET_SOL, 1);
  pc_rp_plan plan;
  pc_err errv = {PERFCHECK_OK, ""};
  assert_int_equal(pc_rp_plan_parse("basic", &plan, &errv), PERFCHECK_OK);
  assert_string_equal(plan.set_name, "basic");
  for (int i = 0; i < PC_M_COUNT; i++) assert_int_equal(plan.want[i], (pc_metric_table()[i].sets & PC_SET_BASIC) != 0);
  pc_rp_plan_free(&plan);
  assert_int_equal(count_set(PC_SET_BASIC), 7);
  /* The table's sets as pc_metrics.c defines them: default holds every
   * pipe and six of L2's sub-units, sol adds ncu's four SOL rows and three
   * stall reasons. */
  assert_int_equal(count_set(PC_SET_DEFAULT), 56);
  assert_int_equal(count_set(PC_SET_SOL), 61);
  static const pc_metric_id every_unit[] = {
      PC_M_PIPE_TENSOR_PCT, PC_M_PIPE_TENSOR_GMMA_PCT, PC_M_PIPE_FMA_PCT, PC_M_PIPE_ALU_PCT, PC_M_PIPE_FP64_PCT,
      PC_M_PIPE_LSU_PCT,    PC_M_PIPE_XU_PCT,          PC_M_PIPE_UNIFORM_PCT, PC_M_DRAM_THROUGHPUT_PCT,
      PC_M_L2_SECTORS_PCT,  PC_M_L2_FABRIC_PCT,        PC_M_L2_TAG_PCT,   PC_M_L2_XBAR2LTS_PCT, PC_M_L2_LTS2XBAR_PCT,
      PC_M_L2_FILL_PCT,     PC_M_L1_WAVEFRONTS_PCT,    PC_M_L1_WAVEFRONTS_ACTIVE_PCT};
  for (size_t i = 0; i < sizeof every_unit / sizeof every_unit[0]; i++)
    assert_true(pc_metric_by_id(every_unit[i])->sets & PC_SET_DEFAULT);
  /* ncu's L2 and L1 rows take more than one pass alone: never in a set that
   * rotation splits into one-pass groups by default. */
  assert_false(pc_metric_by_id(PC_M_L2_THROUGHPUT_PCT)->sets & PC_SET_DEFAULT);
  assert_false(pc_metric_by_id(PC_M_L1_THROUGHPUT_PCT)->sets & PC_SET_DEFAULT);
  assert_int_equal(count_set(PC_SET_FULL), PC_M_COUNT);
}

static void test_parse_list_extras_and_duplicates(void **state) {
  (void)state;
  pc_rp_plan plan;
  pc_err errv = {PERFCHECK_OK, ""};
  assert_int_equal(pc_rp_plan_parse("default, smsp__inst_executed.sum ,smsp__inst_executed.sum,default,"
                                    "gpu__time_duration.sum,sm__cycles_active.avg",
                                    &plan, &errv),
                   PERFCHECK_OK);
  assert_string_equal(plan.set_name, "custom");
  assert_int_equal(plan.nextra, 2);
  assert_string_equal(plan.extra[0], "smsp__inst_executed.sum");
  assert_string_equal(plan.extra[1], "sm__cycles_active.avg");
  assert_true(plan.want[PC_M_DURATION]);
  assert_false(plan.want[PC_M_SM_THROUGHPUT_PCT]);
  assert_true(plan.cap_rejected >= PC_M_COUNT + 2);
  const char *names[PC_M_COUNT + 8];
  size_t n = pc_rp_plan_counter_names(&plan, names, PC_M_COUNT + 8);
  assert_int_equal(n, count_set(PC_SET_DEFAULT) + 2); /* and the two extras */
  assert_true(has_name(names, n, "smsp__inst_executed.sum"));
  assert_true(has_name(names, n, "sm__cycles_active.avg"));
  /* A short array: the count is still the total, only cap are written. */
  const char *few[3] = {NULL, NULL, NULL};
  assert_int_equal(pc_rp_plan_counter_names(&plan, few, 2), n);
  assert_string_equal(few[0], names[0]);
  assert_string_equal(few[1], names[1]);
  assert_null(few[2]);
  assert_int_equal(pc_rp_plan_counter_names(&plan, NULL, 0), n);
  pc_rp_plan_free(&plan);

  /* Plain names only: no set at all. */
  assert_int_equal(pc_rp_plan_parse("dram__bytes_read.sum,dram__bytes_write.sum", &plan, &errv),
                   PERFCHECK_OK);
  assert_string_equal(plan.set_name, "custom");
  n = pc_rp_plan_counter_names(&plan, names, 64);
  assert_int_equal(n, 2);
  assert_string_equal(names[0], "dram__bytes_read.sum");
  assert_string_equal(names[1], "dram__bytes_write.sum");
  pc_rp_plan_free(&plan);
}

static void test_parse_substitutes_and_aliases(void **state) {
  (void)state;
  pc_rp_plan plan;
  pc_err errv = {PERFCHECK_OK, ""};
  const char *names[64];
  /* Naming the L1TEX counter collects it, the other one stays substituted. */
  assert_int_equal(pc_rp_plan_parse("default,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", &plan, &errv),
                   PERFCHECK_OK);
  assert_int_equal(plan.use_substitute[PC_M_LD_REQUESTS], 0);
  assert_int_equal(plan.use_substitute[PC_M_ST_REQUESTS], 1);
  assert_int_equal(plan.nextra, 0);
  pc_rp_plan_free(&plan);

  /* Naming the substitute collects the substitute, even under full. */
  assert_int_equal(pc_rp_plan_parse("full,smsp__sass_inst_executed_op_global_ld.sum", &plan, &errv),
                   PERFCHECK_OK);
  assert_int_equal(plan.use_substitute[PC_M_LD_REQUESTS], 1);
  assert_int_equal(plan.use_substitute[PC_M_ST_REQUESTS], 0);
  pc_rp_plan_free(&plan);

  /* Both names given: the ncu counter itself wins. */
  assert_int_equal(pc_rp_plan_parse("smsp__sass_inst_executed_op_global_st.sum,"
                                    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
                                    &plan, &errv),
                   PERFCHECK_OK);
  assert_int_equal(pc_rp_plan_counter_names(&plan, names, 64), 1);
  assert_string_equal(names[0], "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum");
  pc_rp_plan_free(&plan);

  /* The older spelling is read as the metric, collected by its new name. */
  assert_int_equal(pc_rp_plan_parse("smsp__thread_inst_executed_per_inst_executed.ratio", &plan, &errv),
                   PERFCHECK_OK);
  assert_true(plan.want[PC_M_THREAD_INST_PER_INST]);
  assert_int_equal(plan.nextra, 0);
  assert_int_equal(pc_rp_plan_counter_names(&plan, names, 64), 1);
  assert_string_equal(names[0], "smsp__average_thread_inst_executed_per_inst_executed.ratio");
  pc_rp_plan_free(&plan);
}

static void test_parse_errors(void **state) {
  (void)state;
  const char *bad[] = {"", ",", "default,", ",default", "default,,gpu__time_duration.sum", "  ", "default, ,sol",
                       "defualt", "Default", "default,fast"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    pc_rp_plan plan;
    pc_err errv = {PERFCHECK_OK, ""};
  const char *err = errv.msg;
    assert_int_equal(pc_rp_plan_parse(bad[i], &plan, &errv), PERFCHECK_ERROR_INVALID_ARGUMENT);
    assert_true(strlen(err) > 0);
    assert_int_equal(plan.nextra, 0);
    assert_null(plan.extra);
    assert_null(plan.rejected);
  }
  pc_err errv = {PERFCHECK_OK, ""};
  const char *err = errv.msg;
  pc_rp_plan plan;
  assert_int_equal(pc_rp_plan_parse("default,,x__y.sum", &plan, &errv), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_non_null(strstr(err, "item 2 is empty"));
  assert_int_equal(pc_rp_plan_parse("defualt", &plan, &errv), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_non_null(strstr(err, "defualt"));
  assert_int_equal(pc_rp_plan_parse("default", NULL, &errv), PERFCHECK_ERROR_INVALID_ARGUMENT);
}

/* ==== Pass counts (host API) ================================================== */

/* Passes for a spec on a chip; every name must be valid there unless the
 * chip lacks some of the table's counters (older or newer than Hopper). */
static int passes_for_ex(const char *spec, const char *chip, size_t max_rejected) {
  pc_rp_plan plan;
  pc_err errv = {PERFCHECK_OK, ""};
  const char *err = errv.msg;
  assert_int_equal(pc_rp_plan_parse(spec, &plan, &errv), PERFCHECK_OK);
  int passes = -1;
  perfcheck_status st = pc_rp_count_passes(chip, &plan, &passes, &errv);
  if (st != PERFCHECK_OK) print_error("%s on %s: %s\n", spec, chip, err);
  assert_int_equal(st, PERFCHECK_OK);
  if (plan.nrejected > max_rejected) fail_msg("%s on %s: %zu metrics rejected, first %s", spec, chip, plan.nrejected,
                                              plan.rejected[0]);
  for (size_t i = 0; i < plan.nrejected; i++) assert_non_null(pc_metric_lookup(plan.rejected[i], NULL));
  pc_rp_plan_free(&plan);
  return passes;
}
static int passes_for(const char *spec, const char *chip) { return passes_for_ex(spec, chip, 0); }

#define L1TEX_REQUESTS "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"

static void test_passes_gh100(void **state) {
  (void)state;
  /* Measured with CUDA 13.0 Update 1's host API, names sorted: one
   * instrumented pass (flops, ld/st instructions, bytes per sector, local
   * sectors) and seven hardware passes, whose SM counters hold the warp
   * states, seven stall reasons, the eight pipes and the threads-per-
   * instruction ratios, whose L2 counters hold six sub-units of
   * lts__throughput in two passes and whose L1 counters (the local L1 hits
   * among them) take three.  The previous default (warp states, five stall
   * reasons, tensor and ALU pipes, L2 by its sectors and fabric, the ratios
   * from SASS counts) was 4: the six pipes cost 3 passes, ncu's ratios 1,
   * the memory sub-units, L1 hits and the `wait` and `not_selected` stalls
   * none. */
  int def = passes_for("default", "GH100");
  assert_int_equal(def, 8);
  /* The L1TEX request counters no longer cost a pass on GH100 (the SM
   * counters bound it), but they would spread L1TEX counters over the SM
   * passes: the substitutes stay. */
  assert_int_equal(passes_for("default," L1TEX_REQUESTS, "GH100"), 8);
  assert_int_equal(passes_for("default,"
                              "smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,"
                              "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,"
                              "smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio",
                              "GH100"),
                   9);
  /* ncu's L2 and L1 rows: no pass more (L2) or one (L1) for kernel replay
   * on GH100, but four and five passes alone, so never one rotation group
   * (pc_metrics.c). */
  assert_int_equal(passes_for("default,lts__throughput.avg.pct_of_peak_sustained_elapsed", "GH100"), 8);
  assert_int_equal(passes_for("default,l1tex__throughput.avg.pct_of_peak_sustained_active", "GH100"), 9);
  assert_int_equal(passes_for("l1tex__throughput.avg.pct_of_peak_sustained_active", "GH100"), 5);
  assert_int_equal(passes_for("lts__throughput.avg.pct_of_peak_sustained_elapsed", "GH100"), 4);
  /* The FMA pipe's cycles counter never shares a pass with the issue
   * slots; its instruction count does (it would save a pass, at up to 9.8
   * points below ncu's cycles row: not taken, pc_metrics.c). */
  assert_int_equal(passes_for("sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,"
                              "smsp__issue_active.avg.per_cycle_active",
                              "GH100"),
                   2);
  assert_int_equal(passes_for("sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,"
                              "smsp__issue_active.avg.per_cycle_active",
                              "GH100"),
                   1);
  assert_int_equal(passes_for("sol", "GH100"), 14);
  /* full: the FP64/FP16 siblings and every warp-state row. */
  assert_int_equal(passes_for("full", "GH100"), 17);
  /* ncu's names (host API counts on GH100, no GPU): basic's speed-of-light
   * rows cost more than perfcheck's default; detailed is sol. */
  assert_int_equal(passes_for("basic", "GH100"), 9);
  assert_int_equal(passes_for("detailed", "GH100"), passes_for("sol", "GH100"));
  assert_int_equal(passes_for("full,smsp__sass_inst_executed_op_global_ld.sum,"
                              "smsp__sass_inst_executed_op_global_st.sum",
                              "GH100"),
                   17);
  /* The SOL pair alone (docs/cupti.md §9: 9 passes). */
  assert_int_equal(passes_for("sm__throughput.avg.pct_of_peak_sustained_elapsed,"
                              "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
                              "GH100"),
                   9);
  assert_int_equal(passes_for("gpu__time_duration.sum", "GH100"), 1);
}

static void test_passes_other_chips(void **state) {
  (void)state;
  static const struct {
    const char *chip;
    int def, def_l1tex, sol, full;
    size_t lacks; /* table counters the chip does not have (TMA, GMMA, LDGSTS, L2's fabric and realtime port) */
  } want[] = {{"TU102", 7, 7, 10, 12, 7}, {"GA100", 7, 7, 10, 13, 4}, {"AD102", 8, 8, 12, 14, 4},
              {"GB100", 8, 8, 13, 15, 4}}; /* the GMMA rows are Hopper's; one L2 fabric on GH100 and GA100 */
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    assert_int_equal(passes_for_ex("default", want[i].chip, want[i].lacks), want[i].def);
    assert_int_equal(passes_for_ex("default," L1TEX_REQUESTS, want[i].chip, want[i].lacks), want[i].def_l1tex);
    assert_int_equal(passes_for_ex("sol", want[i].chip, want[i].lacks), want[i].sol);
    assert_int_equal(passes_for_ex("full", want[i].chip, want[i].lacks), want[i].full);
  }
}


/* Rotation: the set split into groups of one pass each, one group per
 * launch of a signature.  Every group's own config is one pass (a metric
 * that needs more alone, one of ncu's SOL rows, is a group of its own),
 * every metric is in exactly one group, and the DRAM counters are together
 * in the first group, whose launches start from a flushed L2. */
static void check_groups(const char *spec, const char *chip, size_t lacks, size_t *ngroups, int *nduration,
                         int *nmulti, int *nl2) {
  pc_rp_plan plan;
  pc_err e = {PERFCHECK_OK, ""};
  assert_int_equal(pc_rp_plan_parse(spec, &plan, &e), PERFCHECK_OK);
  int passes = 0;
  assert_int_equal(pc_rp_count_passes(chip, &plan, &passes, &e), PERFCHECK_OK);
  assert_true(plan.nrejected <= lacks);
  pc_rp_group *g = NULL;
  size_t n = 0;
  assert_int_equal(pc_rp_plan_groups(chip, NULL, &plan, &g, &n, &e), PERFCHECK_OK);
  assert_true(n >= (size_t)passes); /* never fewer groups than CUPTI's passes */
  int seen[PC_M_COUNT] = {0};
  *nmulti = 0;
  *nl2 = 0;
  for (size_t k = 0; k < n; k++) {
    pc_rp_sources src;
    assert_int_equal(pc_rp_plan_sources(&plan, g[k].want, g[k].xwant, &src, &e), PERFCHECK_OK);
    assert_true(src.n > 0);
    int gp = 0;
    uint8_t *config = NULL;
    size_t size = 0;
    assert_int_equal(pc_rp_build_config(chip, NULL, src.names, src.n, NULL, &config, &size, &gp, &e), PERFCHECK_OK);
    free(config);
    int count = 0; /* a metric that needs more than one pass alone (the SOL rows) is a group of its own */
    for (int i = 0; i < PC_M_COUNT; i++)
      if (g[k].want[i]) {
        seen[i]++;
        count++;
      }
    assert_true(gp == 1 || count == 1);
    if (gp > 1) ++*nmulti;
    for (size_t j = 0; j < src.n; j++)
      if (strncmp(src.names[j], "lts__", 5) == 0) {
        ++*nl2; /* a group that reads L2 (each costs L2's time again: pc_metrics_host.c) */
        break;
      }
    assert_int_equal(g[k].cold, k == 0);
    pc_rp_sources_free(&src);
  }
  /* Every metric in one group, but the duration: in each group where it
   * fits the one pass, so each launch's counts stand beside its own time
   * (and launches that did different work show in counter_spread). */
  for (int i = 0; i < PC_M_COUNT; i++)
    if (i != PC_M_DURATION) assert_int_equal(seen[i], plan.want[i] ? 1 : 0);
  if (plan.want[PC_M_DURATION]) assert_true(seen[PC_M_DURATION] >= 1);
  assert_true(g[0].want[PC_M_DRAM_BYTES_READ] && g[0].want[PC_M_DRAM_BYTES_WRITE]);
  print_message("%s on %s: %d passes under kernel replay, %zu rotation groups, the duration in %d, L2 in %d\n", spec,
                chip, passes, n, seen[PC_M_DURATION], *nl2);
  *nduration = seen[PC_M_DURATION];
  *ngroups = n;
  pc_rp_groups_free(g, n);
  pc_rp_plan_free(&plan);
}

static void test_rotation_groups(void **state) {
  (void)state;
  size_t n = 0;
  /* Each group carries its own denominators (a stall ratio needs the issue
   * count in its own pass), so rotation can take more launches than kernel
   * replay takes passes; on GH100 the default set's 8 passes make 9 groups
   * (host API, CUDA 13.0U1), every one a single pass (L2's sub-units, unlike
   * ncu's lts__throughput, fit one each).  The split tries three orders
   * and keeps the fewest groups, then the fewest reads of a memory unit
   * (pc_metrics_host.c). */
  int nd = 0, multi = 0, nl2 = 0;
  check_groups("default", "GH100", 0, &n, &nd, &multi, &nl2);
  assert_int_equal(n, 9);
  assert_int_equal(multi, 0);
  /* L2's counters need 2 passes; the split puts them in 2 groups (the
   * cold one and one more). */
  assert_int_equal(nl2, 2);
  assert_int_equal(nd, 8); /* gpu__time_duration.sum fits 8 of the default set's 9 groups */
  check_groups("default", "GB100", 2, &n, &nd, &multi, &nl2); /* no lts__ltcfabric2ltc, no GMMA on GB100 */
  assert_int_equal(n, 8);
  assert_int_equal(multi, 0);
  check_groups("default", "GA100", 3, &n, &nd, &multi, &nl2);
  assert_int_equal(n, 8);
  assert_int_equal(multi, 0);
  check_groups("default", "AD102", 4, &n, &nd, &multi, &nl2);
  assert_int_equal(n, 10);
  assert_int_equal(multi, 0);
  check_groups("full", "GH100", 0, &n, &nd, &multi, &nl2);
  assert_int_equal(n, 18);
  assert_int_equal(multi, 4); /* ncu's four SOL rows, each a group of its own */
}

static void test_rejected_names(void **state) {
  (void)state;
  pc_rp_plan plan;
  pc_err errv = {PERFCHECK_OK, ""};
  assert_int_equal(pc_rp_plan_parse("default,bogus__metric.sum,launch__grid_size,smsp__inst_executed.sum", &plan, &errv),
                   PERFCHECK_OK);
  assert_int_equal(plan.nextra, 3);
  int passes = 0;
  assert_int_equal(pc_rp_count_passes("GH100", &plan, &passes, &errv), PERFCHECK_OK);
  /* The invalid names are rejected with a reason, never dropped silently;
   * the valid extra stays and the count covers what remains. */
  assert_int_equal(plan.nrejected, 2);
  assert_string_equal(plan.rejected[0], "bogus__metric.sum");
  assert_non_null(strstr(plan.rejected_reason[0], "GH100"));
  assert_non_null(strstr(plan.rejected_reason[0], "CUPTI_ERROR_INVALID_METRIC_NAME"));
  assert_string_equal(plan.rejected[1], "launch__grid_size");
  assert_non_null(strstr(plan.rejected_reason[1], "not a CUPTI metric"));
  assert_int_equal(plan.nextra, 1);
  assert_string_equal(plan.extra[0], "smsp__inst_executed.sum");
  assert_int_equal(passes, 8); /* the default set's 8 on GH100, and the valid extra fits them */
  const char *names[PC_M_COUNT + 8];
  size_t n = pc_rp_plan_counter_names(&plan, names, PC_M_COUNT + 8);
  assert_int_equal(n, count_set(PC_SET_DEFAULT) + 1); /* and the valid extra */
  assert_false(has_name(names, n, "bogus__metric.sum"));
  pc_rp_plan_free(&plan);

  /* Nothing valid left: 0 passes, and the names are still listed. */
  assert_int_equal(pc_rp_plan_parse("sm__maximum_warps_per_active_cycle_pct", &plan, &errv), PERFCHECK_OK);
  passes = -1;
  assert_int_equal(pc_rp_count_passes("GH100", &plan, &passes, &errv), PERFCHECK_OK);
  assert_int_equal(passes, 0);
  assert_int_equal(plan.nrejected, 1);
  assert_int_equal(pc_rp_plan_counter_names(&plan, NULL, 0), 0);
  pc_rp_plan_free(&plan);
}

static void test_unknown_chip(void **state) {
  (void)state;
  pc_rp_plan plan;
  pc_err errv = {PERFCHECK_OK, ""};
  const char *err = errv.msg;
  assert_int_equal(pc_rp_plan_parse("default", &plan, &errv), PERFCHECK_OK);
  int passes = -1;
  assert_int_equal(pc_rp_count_passes("GX999", &plan, &passes, &errv), PERFCHECK_ERROR_UNSUPPORTED);
  assert_int_equal(passes, 0);
  assert_non_null(strstr(err, "GX999"));
  assert_non_null(strstr(err, "GH100")); /* the chips CUPTI knows are listed */
  pc_rp_plan_free(&plan);
}

static void test_public_metric_passes(void **state) {
  (void)state;
  int passes = -1;
  assert_int_equal(perfcheck_metric_passes("default", "GH100", &passes), PERFCHECK_OK);
  assert_int_equal(passes, 8);
  assert_string_equal(perfcheck_last_error_message(), "");
  passes = -1;
  assert_int_equal(perfcheck_metric_passes(NULL, "GH100", &passes), PERFCHECK_OK);
  assert_int_equal(passes, 8);
  assert_int_equal(perfcheck_metric_passes("full", "GH100", &passes), PERFCHECK_OK);
  assert_int_equal(passes, 17);
  assert_int_equal(perfcheck_metric_passes("sol", "GH100", &passes), PERFCHECK_OK);
  assert_int_equal(passes, 14);
  /* A table counter the chip lacks is left out (Turing has no TMA); a name
   * the caller added that the chip lacks is an error. */
  assert_int_equal(perfcheck_metric_passes("default", "TU102", &passes), PERFCHECK_OK);
  assert_int_equal(passes, 7);
  assert_int_equal(perfcheck_metric_passes("default,l1tex__m_xbar2l1tex_read_bytes_pipe_tma.sum", "TU102", &passes),
                   PERFCHECK_ERROR_NOT_FOUND);
  assert_non_null(strstr(perfcheck_last_error_message(), "l1tex__m_xbar2l1tex_read_bytes_pipe_tma.sum"));

  assert_int_equal(perfcheck_metric_passes("default,bogus__metric.sum", "GH100", &passes), PERFCHECK_ERROR_NOT_FOUND);
  assert_int_equal(passes, 8); /* the valid names still counted */
  assert_non_null(strstr(perfcheck_last_error_message(), "bogus__metric.sum"));

  assert_int_equal(perfcheck_metric_passes("default", "GX999", &passes), PERFCHECK_ERROR_UNSUPPORTED);
  assert_int_equal(passes, 0);
  assert_int_equal(perfcheck_metric_passes("defualt", "GH100", &passes), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_int_equal(perfcheck_metric_passes("default", "GH100", NULL), PERFCHECK_ERROR_INVALID_ARGUMENT);

  /* Device 0's chip needs a driver: without one (CI), the driver's status,
   * and no CUPTI call was made (CUPTI 13.0 crashes there). */
  pc_err msgv = {PERFCHECK_OK, ""};
  perfcheck_status drv = pc_cuda_load(&msgv);
  perfcheck_status st = perfcheck_metric_passes("default", NULL, &passes);
  if (drv != PERFCHECK_OK) {
    assert_int_equal(st, drv);
    assert_int_equal(passes, 0);
    assert_true(strlen(perfcheck_last_error_message()) > 0);
  } else {
    assert_int_equal(st, PERFCHECK_OK);
    assert_true(passes >= 1);
  }
}

/* ==== The availability-image cache (pc_config_cache.c) ====================== */

/* Written and read back byte for byte under a temporary XDG_CACHE_HOME; a
 * file of another key, a truncated one and one with a byte too many are not
 * used. */
static void test_avail_cache(void **state) {
  (void)state;
  char dir[] = "/tmp/pc-avail-XXXXXX";
  assert_non_null(mkdtemp(dir));
  const char *old = getenv("XDG_CACHE_HOME");
  char *saved = old ? strdup(old) : NULL;
  setenv("XDG_CACHE_HOME", dir, 1);

  uint8_t img[9184];
  for (size_t i = 0; i < sizeof img; i++) img[i] = (uint8_t)(i * 131u + 7u); /* NUL and newline bytes among them */
  uint8_t *got = NULL;
  size_t n = 0;
  assert_int_equal(pc_rp_avail_read("GH100", 0x1234, &got, &n), -1); /* nothing yet */
  pc_rp_avail_write("GH100", 0x1234, img, sizeof img);
  assert_int_equal(pc_rp_avail_read("GH100", 0x1234, &got, &n), 0);
  assert_int_equal(n, sizeof img);
  assert_memory_equal(got, img, sizeof img);
  free(got);
  got = NULL;
  assert_int_equal(pc_rp_avail_read("GH100", 0x1235, &got, &n), -1); /* another device or driver */
  assert_int_equal(pc_rp_avail_read("GB100", 0x1234, &got, &n), -1);

  char path[1200];
  snprintf(path, sizeof path, "%s/perfcheck/avail-GH100-%016llx.bin", dir, 0x1234ull);
  assert_int_equal(truncate(path, 40 + 9000), 0); /* cut short */
  assert_int_equal(pc_rp_avail_read("GH100", 0x1234, &got, &n), -1);
  pc_rp_avail_write("GH100", 0x1234, img, sizeof img); /* rewritten */
  FILE *f = fopen(path, "ab");
  assert_non_null(f);
  fputc('x', f);
  fclose(f);
  assert_int_equal(pc_rp_avail_read("GH100", 0x1234, &got, &n), -1); /* a byte too many */
  assert_null(got);

  assert_int_equal(unlink(path), 0);
  char sub[1100];
  snprintf(sub, sizeof sub, "%s/perfcheck", dir);
  assert_int_equal(rmdir(sub), 0);
  assert_int_equal(rmdir(dir), 0);
  if (saved) {
    setenv("XDG_CACHE_HOME", saved, 1);
    free(saved);
  } else {
    unsetenv("XDG_CACHE_HOME");
  }
}

/* ==== perfcheck run's preload (pc_rp_preload) ============================== */

/* 1: the preload thread alone loaded libnvperf_host.so (main, before anything
 * else asked for it); 0: it did not within 10 s; -1: not tried (no CUPTI, a
 * sanitizer, or the library already loaded). */
static int preload_result = -1;

static void try_preload(void) {
  pc_err e;
  if (pc_cupti_load(&e) != PERFCHECK_OK || dlsym(RTLD_DEFAULT, "__asan_init") || dlsym(RTLD_DEFAULT, "__tsan_init") ||
      dlsym(RTLD_DEFAULT, "__msan_init") || dlsym(RTLD_DEFAULT, "__hwasan_init") ||
      dlopen("libnvperf_host.so", RTLD_NOW | RTLD_NOLOAD))
    return;
  pc_rp_preload();
  pc_rp_preload(); /* once a process: the second does nothing */
  preload_result = 0;
  for (int i = 0; i < 1000 && !preload_result; i++) {
    if (dlopen("libnvperf_host.so", RTLD_NOW | RTLD_NOLOAD))
      preload_result = 1;
    else
      usleep(10000);
  }
}

/* The thread loaded the library by itself, and the counter layer's own load
 * then finds it (no wait on the thread, no second copy). */
static void test_preload(void **state) {
  (void)state;
  if (preload_result < 0) skip();
  assert_int_equal(preload_result, 1);
  pc_err e;
  assert_int_equal(pc_rp_nvperf_load(&e), PERFCHECK_OK);
}

int main(void) {
  const struct CMUnitTest parsing[] = {
      cmocka_unit_test(test_parse_sets),
      cmocka_unit_test(test_parse_list_extras_and_duplicates),
      cmocka_unit_test(test_parse_substitutes_and_aliases),
      cmocka_unit_test(test_parse_errors),
      cmocka_unit_test(test_avail_cache),
  };
  int failed = cmocka_run_group_tests_name("plan parsing", parsing, NULL, NULL);
  if (failed) return failed;

  try_preload(); /* before anything else loads libnvperf_host.so */

  /* Can the host API run here at all? */
  pc_rp_plan plan;
  pc_err errv = {PERFCHECK_OK, ""};
  const char *err = errv.msg;
  int passes = 0;
  pc_rp_plan_parse("gpu__time_duration.sum", &plan, &errv);
  perfcheck_status st = pc_rp_count_passes("GH100", &plan, &passes, &errv);
  pc_rp_plan_free(&plan);
  if (st == PERFCHECK_ERROR_CUPTI_UNAVAILABLE) {
    printf("SKIP: CUPTI's profiler host API cannot run here: %s\n", err);
    return 77;
  }

  const struct CMUnitTest host[] = {
      cmocka_unit_test(test_passes_gh100),       cmocka_unit_test(test_passes_other_chips),
      cmocka_unit_test(test_rotation_groups),
      cmocka_unit_test(test_rejected_names),     cmocka_unit_test(test_unknown_chip),
      cmocka_unit_test(test_public_metric_passes),
      cmocka_unit_test(test_preload),
  };
  return cmocka_run_group_tests_name("pass counts (CUPTI host API)", host, NULL, NULL);
}
