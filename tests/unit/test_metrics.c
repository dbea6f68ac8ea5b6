/* The metric table and the metric sets (pc_metrics.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "model/pc_core.h"

/* The speed-of-light rows: in sol and full only (4 to 8 extra passes each on
 * Hopper).  docs/report-contract.md's table is compared with the code's
 * table by unit.contract. */
static int is_sol_pair(pc_metric_id id) {
  return id == PC_M_SM_THROUGHPUT_PCT || id == PC_M_MEM_THROUGHPUT_PCT || id == PC_M_L1_THROUGHPUT_PCT;
}
static int is_d_or_h(pc_metric_id id) { return id >= PC_M_DFMA && id <= PC_M_HMUL; }
/* The pass budget: the default set carries the warp states, the first five
 * stall reasons of the rules, every pipe and every memory level by the
 * sub-units one-pass rotation groups can hold, and seven stall reasons (8
 * passes on GH100); ncu's L2
 * row (4 passes alone) and lg_throttle are in sol; the
 * rest of the stall reasons in full only. */
static int is_sol_extra(pc_metric_id id) {
  switch (id) {
    case PC_M_L2_THROUGHPUT_PCT:
    case PC_M_STALL_LG_THROTTLE:
      return 1;
    default:
      return 0;
  }
}
static int is_full_only(pc_metric_id id) {
  return is_d_or_h(id) || id >= PC_M_STALL_SELECTED;
}

static void test_table_is_in_enum_order(void **state) {
  (void)state;
  const pc_metric_def *t = pc_metric_table();
  assert_non_null(t);
  for (int i = 0; i < PC_M_COUNT; i++) {
    assert_int_equal(t[i].id, i);
    assert_ptr_equal(pc_metric_by_id((pc_metric_id)i), &t[i]);
    assert_non_null(t[i].name);
    assert_non_null(t[i].unit);
    assert_true(t[i].step >= 0 && t[i].step <= 5);
    assert_true(t[i].sets & PC_SET_FULL); /* full is all of them */
  }
  assert_null(pc_metric_by_id(PC_M_COUNT));
  assert_null(pc_metric_by_id((pc_metric_id)-1));
}

static void test_table_spot_checks(void **state) {
  (void)state;
  int sub = -1;
  /* Spot checks of the header's comments. */
  assert_string_equal(pc_metric_by_id(PC_M_DURATION)->name, "gpu__time_duration.sum");
  assert_string_equal(pc_metric_by_id(PC_M_LD_BYTES_PER_SECTOR)->name,
                      "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio");
  assert_string_equal(pc_metric_by_id(PC_M_PIPE_TENSOR_PCT)->name,
                      "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active");
  assert_null(pc_metric_lookup("", NULL));
  assert_null(pc_metric_lookup(NULL, &sub));
  assert_null(pc_metric_lookup("GPU__TIME_DURATION.SUM", NULL)); /* names are exact */
  assert_null(pc_metric_lookup("launch__grid_size", NULL));     /* not a CUPTI metric */
}

static void test_names_unique(void **state) {
  (void)state;
  const pc_metric_def *t = pc_metric_table();
  const char *all[3 * PC_M_COUNT];
  size_t n = 0;
  for (int i = 0; i < PC_M_COUNT; i++) {
    all[n++] = t[i].name;
    if (t[i].alias) all[n++] = t[i].alias;
    if (t[i].substitute) all[n++] = t[i].substitute;
  }
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++)
      if (strcmp(all[i], all[j]) == 0) fail_msg("%s appears twice", all[i]);
}

static void test_lookup(void **state) {
  (void)state;
  int sub = -1;
  const pc_metric_def *m = pc_metric_lookup("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", &sub);
  assert_non_null(m);
  assert_int_equal(m->id, PC_M_LD_REQUESTS);
  assert_int_equal(sub, 0);

  /* The older spellings the seeds use. */
  m = pc_metric_lookup("smsp__thread_inst_executed_per_inst_executed.ratio", &sub);
  assert_non_null(m);
  assert_int_equal(m->id, PC_M_THREAD_INST_PER_INST);
  assert_int_equal(sub, 0);
  m = pc_metric_lookup("smsp__thread_inst_executed_pred_on_per_inst_executed.ratio", &sub);
  assert_non_null(m);
  assert_int_equal(m->id, PC_M_THREAD_INST_PRED_ON_PER_INST);
  assert_string_equal(m->name, "smsp__average_thread_inst_executed_pred_on_per_inst_executed.ratio");

  /* The substitutes of the request counters. */
  m = pc_metric_lookup("smsp__sass_inst_executed_op_global_ld.sum", &sub);
  assert_non_null(m);
  assert_int_equal(m->id, PC_M_LD_REQUESTS);
  assert_int_equal(sub, 1);
  m = pc_metric_lookup("smsp__sass_inst_executed_op_global_st.sum", &sub);
  assert_non_null(m);
  assert_int_equal(m->id, PC_M_ST_REQUESTS);
  assert_int_equal(sub, 1);
  m = pc_metric_lookup("smsp__sass_inst_executed_op_global_st.sum", NULL); /* NULL out is fine */
  assert_non_null(m);

  sub = -1;
  assert_null(pc_metric_lookup("dram__bytes.sum", &sub));
  assert_int_equal(sub, 0);
  assert_null(pc_metric_lookup("", NULL));
  assert_null(pc_metric_lookup(NULL, &sub));
  assert_null(pc_metric_lookup("GPU__TIME_DURATION.SUM", NULL)); /* names are exact */
  assert_null(pc_metric_lookup("launch__grid_size", NULL));     /* not a CUPTI metric */
}

static void test_set_membership(void **state) {
  (void)state;
  const pc_metric_def *t = pc_metric_table();
  for (int i = 0; i < PC_M_COUNT; i++) {
    pc_metric_id id = (pc_metric_id)i;
    int in_default = (t[i].sets & PC_SET_DEFAULT) != 0, in_sol = (t[i].sets & PC_SET_SOL) != 0;
    assert_int_equal(in_default, !is_sol_pair(id) && !is_sol_extra(id) && !is_full_only(id));
    assert_int_equal(in_sol, !is_full_only(id));
  }
}

/* Splits a list into a fresh array of names; checks its shape. */
static size_t split(const char *list, char ***out) {
  assert_non_null(list);
  assert_null(strchr(list, ' '));
  assert_true(list[0] != ',' && list[0] != '\0');
  assert_true(list[strlen(list) - 1] != ',');
  assert_null(strstr(list, ",,"));
  char *copy = strdup(list);
  char **names = calloc(PC_M_COUNT + 1, sizeof *names);
  size_t n = 0;
  for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    assert_true(n < (size_t)PC_M_COUNT);
    names[n++] = strdup(tok);
  }
  free(copy);
  *out = names;
  return n;
}

static void free_names(char **names, size_t n) {
  for (size_t i = 0; i < n; i++) free(names[i]);
  free(names);
}

static void check_list(const char *set, unsigned bit) {
  char **names;
  size_t n = split(perfcheck_metric_list(set), &names);
  size_t expected = 0;
  for (int i = 0; i < PC_M_COUNT; i++)
    if (pc_metric_table()[i].sets & bit) expected++;
  assert_int_equal(n, expected);
  for (size_t i = 0; i < n; i++) {
    int sub = 0;
    const pc_metric_def *m = pc_metric_lookup(names[i], &sub);
    if (!m) fail_msg("%s list: unknown name %s", set, names[i]);
    assert_string_equal(m->name, names[i]); /* contract names, not aliases or substitutes */
    assert_true(m->sets & bit);
    /* In table order. */
    if (i > 0) assert_true(pc_metric_lookup(names[i - 1], NULL)->id < m->id);
  }
  free_names(names, n);
}

static void test_metric_lists(void **state) {
  (void)state;
  check_list("default", PC_SET_DEFAULT);
  check_list("sol", PC_SET_SOL);
  check_list("full", PC_SET_FULL);
  /* ncu's set names: basic is its speed-of-light, launch and
   * occupancy sections as far as the table goes; detailed is sol. */
  check_list("basic", PC_SET_BASIC);
  assert_ptr_equal(perfcheck_metric_list("detailed"), perfcheck_metric_list("sol"));
  assert_string_equal(perfcheck_metric_list("basic"),
                      "gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,"
                      "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,"
                      "dram__throughput.avg.pct_of_peak_sustained_elapsed,"
                      "sm__warps_active.avg.pct_of_peak_sustained_active,"
                      "lts__throughput.avg.pct_of_peak_sustained_elapsed,"
                      "l1tex__throughput.avg.pct_of_peak_sustained_active");
  assert_int_equal(pc_metric_set_bit("basic", 5), PC_SET_BASIC);
  assert_int_equal(pc_metric_set_bit("detailed", 8), PC_SET_SOL);
  assert_int_equal(pc_metric_set_bit("basics", 6), 0);
  /* Exact counts: 78 metrics; default drops three SOL rows, four more of
   * sol (ncu's L2 row, lg_throttle), six FP64/FP16 siblings and
   * eleven stall reasons; sol the siblings and those eleven. */
  char **names;
  size_t n = split(perfcheck_metric_list("full"), &names);
  assert_int_equal(n, 78);
  free_names(names, n);
  n = split(perfcheck_metric_list("default"), &names);
  assert_int_equal(n, 56);
  free_names(names, n);
  n = split(perfcheck_metric_list("sol"), &names);
  assert_int_equal(n, 61);
  free_names(names, n);
  /* The default list starts with the duration and names no SOL metric. */
  const char *def = perfcheck_metric_list("default");
  assert_int_equal(strncmp(def, "gpu__time_duration.sum,", 23), 0);
  assert_null(strstr(def, "sm__throughput"));
  assert_null(strstr(def, "gpu__compute_memory_throughput"));
  assert_null(strstr(def, "dfma"));
  assert_non_null(strstr(perfcheck_metric_list("sol"), "sm__throughput.avg.pct_of_peak_sustained_elapsed,"));
  /* Static text: the same pointer every time. */
  assert_ptr_equal(perfcheck_metric_list("full"), perfcheck_metric_list("full"));
  assert_null(perfcheck_metric_list("fast"));
  assert_null(perfcheck_metric_list("Default"));
  assert_null(perfcheck_metric_list(""));
  assert_null(perfcheck_metric_list(NULL));
}

static void test_units_and_additivity(void **state) {
  (void)state;
  assert_string_equal(pc_metric_by_id(PC_M_DURATION)->unit, "ns");
  assert_string_equal(pc_metric_by_id(PC_M_DRAM_BYTES_READ)->unit, "byte");
  assert_string_equal(pc_metric_by_id(PC_M_LD_SECTORS)->unit, "sector");
  assert_string_equal(pc_metric_by_id(PC_M_LD_REQUESTS)->unit, "request");
  assert_string_equal(pc_metric_by_id(PC_M_WARPS_ACTIVE_PCT)->unit, "%");
  /* Counts sum over launches; percentages and ratios do not (docs/cupti.md
   * §1.6: never average .pct or .ratio values across ranges). */
  for (int i = 0; i < PC_M_COUNT; i++) {
    const pc_metric_def *m = pc_metric_by_id((pc_metric_id)i);
    int ratio_like = strcmp(m->unit, "%") == 0 || strcmp(m->unit, "ratio") == 0 || strcmp(m->unit, "byte/sector") == 0 ||
                     strcmp(m->unit, "warp") == 0;
    assert_int_equal(m->additive, !ratio_like);
  }
  assert_int_equal(pc_metric_by_id(PC_M_LD_SECTORS)->step, 3);
  assert_int_equal(pc_metric_by_id(PC_M_THREAD_INST_PER_INST)->step, 4);
  assert_int_equal(pc_metric_by_id(PC_M_WARPS_ACTIVE_PCT)->step, 5);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_table_is_in_enum_order),
      cmocka_unit_test(test_table_spot_checks),
      cmocka_unit_test(test_names_unique),
      cmocka_unit_test(test_lookup),
      cmocka_unit_test(test_set_membership),
      cmocka_unit_test(test_metric_lists),
      cmocka_unit_test(test_units_and_additivity),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
