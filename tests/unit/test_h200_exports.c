/* The checklist on real data: the ncu 2025.3.1 exports of the kernels/
 * programs made on the H200 (tests/data/h200, both --cache-control modes)
 * must give the verdicts each program opens with, and the numbers behind
 * them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "model/pc_core.h"

typedef struct want {
  const char *name;
  double dyn_smem; /* < 0: any */
  unsigned grid_x; /* 0: any */
  int step;
  perfcheck_cause cause;
} want;

static const pc_kernel *find(const pc_report *r, const want *w) {
  for (size_t i = 0; i < r->nkernels; i++) {
    const pc_kernel *k = &r->kernels[i];
    if (strcmp(k->name, w->name) != 0) continue;
    if (w->dyn_smem >= 0 && k->dynamic_smem != w->dyn_smem) continue;
    if (w->grid_x && k->grid[0] != w->grid_x) continue;
    return k;
  }
  return NULL;
}

static pc_report *load(const char *program, const char *variant) {
  char path[512];
  snprintf(path, sizeof path, "%s/h200/%s%s.csv", PERFCHECK_TEST_DATA, program, variant);
  perfcheck_report *r = NULL;
  perfcheck_status st = perfcheck_report_from_ncu_csv(path, 1, &r);
  if (st != PERFCHECK_OK) fail_msg("%s: %s", path, perfcheck_last_error_message());
  return r;
}

static void check(const char *program, const want *w, size_t n) {
  const char *variants[] = {"", ".cache-none"};
  for (size_t v = 0; v < 2; v++) {
    pc_report *r = load(program, variants[v]);
    assert_int_equal(r->nkernels, n);
    for (size_t i = 0; i < n; i++) {
      const pc_kernel *k = find(r, &w[i]);
      if (!k) fail_msg("%s%s: no kernel %s", program, variants[v], w[i].name);
      if (k->diag.verdict.step != w[i].step || k->diag.verdict.cause != w[i].cause)
        fail_msg("%s%s: %s: step %d %s, expected step %d %s", program, variants[v], w[i].name, k->diag.verdict.step,
                 perfcheck_cause_name(k->diag.verdict.cause), w[i].step, perfcheck_cause_name(w[i].cause));
    }
    pc_report_free(r);
  }
}

static void test_mystery(void **state) {
  (void)state;
  const want w[] = {
      {"mysteryA", 0, 0, 3, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS},
      {"mysteryB", 0, 0, 4, PERFCHECK_CAUSE_DIVERGENT_WARPS},
      {"mysteryC", 116736, 0, 5, PERFCHECK_CAUSE_OCCUPANCY_SHARED_MEMORY},
      {"mysteryC", 0, 0, 0, PERFCHECK_CAUSE_AT_ROOF},
  };
  check("mystery", w, 4);
  /* The numbers behind the verdicts, exact where the kernels fix them. */
  pc_report *r = load("mystery", "");
  const pc_kernel *a = find(r, &w[0]), *b = find(r, &w[1]), *c = find(r, &w[2]), *c0 = find(r, &w[3]);
  assert_float_equal(a->derived.sectors_per_request_ld, 32.0, 1e-9);
  assert_true(a->derived.sectors_per_request_st > 31.5); /* 31.90: a few stores share a sector */
  assert_float_equal(b->derived.sectors_per_request_ld, 4.0, 1e-9);
  assert_true(b->derived.threads_per_instruction > 16.0 && b->derived.threads_per_instruction < 17.0);
  assert_float_equal(c0->derived.threads_per_instruction, 32.0, 1e-9);
  assert_float_equal(c->attr.blocks_per_sm, 1.0, 0);
  assert_int_equal(c->attr.binding, PC_LIMIT_SHARED_MEMORY);
  assert_float_equal(c->derived.theoretical_occupancy_pct, 12.5, 1e-9);
  /* The model agrees with ncu's own limit rows on every kernel. */
  for (size_t i = 0; i < r->nkernels; i++) assert_true(pc_is_null(r->kernels[i].attr.model_blocks_per_sm));
  pc_report_free(r);
}

static void test_occupancy(void **state) {
  (void)state;
  const want w[] = {
      {"scaleAdd<1>", 0, 0, 0, PERFCHECK_CAUSE_LATENCY_BOUND},
      {"scaleAdd<1>", 116736, 0, 5, PERFCHECK_CAUSE_OCCUPANCY_SHARED_MEMORY},
      {"scaleAdd<4>", 116736, 0, 5, PERFCHECK_CAUSE_OCCUPANCY_SHARED_MEMORY},
  };
  check("occupancy", w, 3);
}

static void test_launches(void **state) {
  (void)state;
  /* Offline there is no wall clock, so no launch_overhead (step 1); the
   * small launch's 16 blocks are 0.02 of a wave. */
  const want w[] = {
      {"add_one", -1, 65536, 0, PERFCHECK_CAUSE_LATENCY_BOUND},
      {"add_one", -1, 16, 5, PERFCHECK_CAUSE_GRID_TOO_SMALL},
  };
  check("launches", w, 2);
}

static void test_roundtrip_and_atomics(void **state) {
  (void)state;
  const want rt[] = {{"scale_head", -1, 0, 5, PERFCHECK_CAUSE_GRID_TOO_SMALL}};
  check("roundtrip", rt, 1);
  const want at[] = {
      {"histogram16", -1, 0, 3, PERFCHECK_CAUSE_ATOMIC_CONTENTION},
      {"sumAll", -1, 0, 3, PERFCHECK_CAUSE_ATOMIC_CONTENTION},
  };
  check("atomics", at, 2);
}

/* What a verdict's change is worth (an estimate), whose kernel it is, and what
 * makes a borderline verdict so: mystery's four and two torch kernels. */
static void test_gain_owner_runner_up(void **state) {
  (void)state;
  pc_report *r = load("mystery", "");
  const want a = {"mysteryA", -1, 0, 3, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS};
  const want b = {"mysteryB", -1, 0, 4, PERFCHECK_CAUSE_DIVERGENT_WARPS};
  const want c0 = {"mysteryC", 0, 0, 0, PERFCHECK_CAUSE_AT_ROOF};
  const pc_kernel *ka = find(r, &a), *kb = find(r, &b), *kc = find(r, &c0);
  assert_non_null(ka), assert_non_null(kb), assert_non_null(kc);
  /* mysteryB: 16.2 of 32 lanes with the issue slots 97% busy: about 1.9x. */
  assert_true(kb->diag.gain.speedup > 1.8 && kb->diag.gain.speedup < 2.0);
  assert_true(kb->diag.gain.saved_ns > 0 && kb->diag.gain.saved_ns < kb->total_ns);
  assert_non_null(strstr(kb->diag.gain.basis, "estimate: 16.2 of 32 lanes"));
  assert_true(ka->diag.gain.speedup > 1.0);
  assert_true(pc_is_null(kc->diag.gain.speedup)); /* at_roof: no change, no gain */
  for (size_t i = 0; i < r->nkernels; i++) {
    assert_int_equal(r->kernels[i].worth_changing, 1); /* four kernels, each well over 1% */
    assert_string_equal(r->kernels[i].library, "");   /* the user's own code */
    assert_string_equal(r->kernels[i].diag.library_advice, "");
  }
  pc_report_free(r);

  char path[512];
  snprintf(path, sizeof path, "%s/corpus/h200-2026-12-01/torch_ops.csv.gz", PERFCHECK_TEST_DATA);
  perfcheck_report *t = NULL;
  assert_int_equal(perfcheck_report_from_ncu_csv(path, 1, &t), PERFCHECK_OK);
  const pc_kernel *gemm = NULL, *fmha = NULL;
  for (size_t i = 0; i < t->nkernels; i++) {
    const pc_kernel *k = &t->kernels[i];
    if (!gemm && strncmp(k->name, "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", 46) == 0) gemm = k;
    if (!fmha && strncmp(k->name, "fmha_cutlassF_bf16_aligned_64x128_rf_sm80", 41) == 0) fmha = k;
  }
  assert_non_null(gemm), assert_non_null(fmha);
  assert_string_equal(gemm->library, "cuBLAS");
  assert_non_null(strstr(gemm->diag.library_advice, "cuBLAS") ? gemm->diag.library_advice : strstr(gemm->diag.library_advice, "GEMM"));
  assert_null(strstr(gemm->diag.library_advice, "launch_bounds"));
  /* The CUTLASS attention kernel: latency_bound, borderline with occupancy as
   * the runner-up: its wait stalls are 29.4% of the stall cycles, against the
   * 30% that makes a stall dominant. */
  assert_int_equal(fmha->diag.verdict.cause, PERFCHECK_CAUSE_LATENCY_BOUND);
  assert_true(fmha->diag.borderline);
  assert_int_equal(fmha->diag.runner_up, PERFCHECK_CAUSE_OCCUPANCY_REGISTERS);
  assert_string_equal(fmha->diag.runner_up_metric, "share of the stall cycles of the largest stall reason");
  assert_true(fabs(fmha->diag.runner_up_value - 0.2943) < 0.001);
  assert_true(fabs(fmha->diag.runner_up_threshold - 0.3) < 1e-9);
  pc_report_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_mystery),
      cmocka_unit_test(test_occupancy),
      cmocka_unit_test(test_launches),
      cmocka_unit_test(test_roundtrip_and_atomics),
      cmocka_unit_test(test_gain_owner_runner_up),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
