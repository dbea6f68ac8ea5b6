/* In-process verdicts on a CPU, from region snapshots recorded on the H200
 * (tests/data/snapshots/, made by scripts/device/bench snapshots:
 * each program ran under PERFCHECK_SNAPSHOT_DIR from the device's source
 * build; env.txt says on what).  Each snapshot goes through the same
 * pc_region_build the session uses, and the verdicts are asserted.
 *
 * The expected verdicts come from what the programs are and from what ncu
 * measured for the same kernels, never from perfcheck's own output:
 *   mystery-counters  examples/mystery_region: seed 000's four launches, with
 *                     the verdicts seed 000 gives and the H200 export
 *                     (tests/data/h200/mystery.csv) measures: mysteryA
 *                     uncoalesced (31.9 sectors per request), mysteryB
 *                     divergent (16.2 threads per instruction), mysteryC with
 *                     a one-block-per-SM shared memory request occupancy-
 *                     limited by shared memory, mysteryC without it at its
 *                     roof; the kernels fill the region (step 1 passes).
 *   loop-*            bench_launches tiny: 4096 launches of a 4096-thread
 *                     add_one, ~2 us each (tests/data/h200/launches.csv, the
 *                     16-block launch): launch_overhead in timing AND
 *                     counters mode.
 *   streams-counters  tests/gpu/record_regions.cu streams: two FMA-chain
 *                     kernels, one block on half the SMs each (half a wave:
 *                     grid_too_small), on two streams.
 *   graph-counters    record_regions graph: a captured two-kernel graph
 *                     launched 3 times; graph kernels are never profiled,
 *                     and their 21.3 us fill a fifth of the region
 *                     (not_the_slow_part, from the recorded timestamps).
 *   torch-counters    tests/gpu/torch_train_step.py: one training step of a
 *                     small MLP under `perfcheck run`, microsecond kernels
 *                     between Python's launches: host-bound, not_the_slow_part.
 * A snapshot missing from the folder fails its test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/pc_core.h"
#include "model/pc_snapshot.h"
#include "write/pc_write.h"
#include "report/pc_snapshot_json.h"
#include "report/pc_region_build.h"

typedef struct recorded {
  pc_snapshot *snap;
  pc_report *report;
} recorded;

static recorded load(const char *run, const char *region) {
  char path[1024];
  pc_err err = {0};
  snprintf(path, sizeof path, "%s/snapshots/%s/%s.json", PERFCHECK_TEST_DATA, run, region);
  recorded x = {NULL, NULL};
  if (pc_snapshot_load(path, &x.snap, &err) != PERFCHECK_OK) fail_msg("%s", err.msg[0] ? err.msg : path);
  x.report = pc_report_new();
  assert_non_null(x.report);
  pc_build_state st;
  pc_build_state_init(&st, 1);
  assert_int_equal(pc_region_build(x.snap, x.report, &st), PERFCHECK_OK);
  assert_int_equal(x.report->nregions, 1);
  return x;
}

static void unload(recorded *x) {
  pc_report_free(x->report);
  pc_snapshot_free(x->snap);
}

static const pc_kernel *find(const pc_report *r, const char *name, int smem_zero) {
  for (size_t i = 0; i < r->nkernels; i++) {
    const pc_kernel *k = &r->kernels[i];
    if (strcmp(k->name, name) == 0 && (smem_zero < 0 || (k->dynamic_smem == 0) == smem_zero)) return k;
  }
  fail_msg("no kernel %s%s in the recorded region", name, smem_zero == 1 ? " (0 B)" : smem_zero == 0 ? " (> 0 B)" : "");
  return NULL;
}

static void expect_verdict(const pc_kernel *k, int step, perfcheck_cause cause) {
  if (k->diag.verdict.step != step || k->diag.verdict.cause != cause)
    fail_msg("%s (%.0f B): step %d %s, expected step %d %s", k->name, k->dynamic_smem, k->diag.verdict.step,
             perfcheck_cause_name(k->diag.verdict.cause), step, perfcheck_cause_name(cause));
}

static void test_mystery(void **state) {
  (void)state;
  recorded x = load("mystery-counters", "mystery");
  const pc_region *g = &x.report->regions[0];
  assert_int_equal(g->launches, 4);
  assert_int_equal(g->diag.verdict.step, 0); /* step 1 passes: the kernels fill the region */
  assert_int_equal(x.report->nkernels, 4);
  expect_verdict(find(x.report, "mysteryA", -1), 3, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS);
  expect_verdict(find(x.report, "mysteryB", -1), 4, PERFCHECK_CAUSE_DIVERGENT_WARPS);
  expect_verdict(find(x.report, "mysteryC", 0), 5, PERFCHECK_CAUSE_OCCUPANCY_SHARED_MEMORY);
  expect_verdict(find(x.report, "mysteryC", 1), 0, PERFCHECK_CAUSE_AT_ROOF);
  for (size_t i = 0; i < x.report->nkernels; i++) {
    const pc_kernel *k = &x.report->kernels[i];
    assert_int_equal(k->profiled_launches, 1);
    assert_non_null(k->mangled);
    assert_non_null(k->demangled); /* demangled in every process */
    assert_int_equal(k->device_ordinal, 0);
    assert_true(pc_has(k->total_ns) && k->total_ns > 0);
  }
  /* Step 1 per kernel in process: each entry's share of the region's summed
   * kernel time, from the timeline (the four kernels' totals), known before
   * the walk runs. */
  double sum = 0;
  for (size_t i = 0; i < x.report->nkernels; i++) sum += x.report->kernels[i].total_ns;
  for (size_t i = 0; i < x.report->nkernels; i++) {
    const pc_kernel *k = &x.report->kernels[i];
    assert_true(pc_has(k->time_share));
    assert_int_equal(k->time_share_from_timeline, 1);
    assert_true(fabs(k->time_share - k->total_ns / sum) < 1e-12);
  }
  /* Every profiled launch has its host interval, so step 1 saw the cut. */
  assert_int_equal(x.snap->nprofiled, 4);
  for (size_t i = 0; i < x.snap->nprofiled; i++)
    assert_true(x.snap->profiled[i].enter_ts && x.snap->profiled[i].exit_ts > x.snap->profiled[i].enter_ts);
  assert_true(g->profiling_ns > 0);
  unload(&x);
}

static void test_launch_loop_both_modes(void **state) {
  (void)state;
  recorded t = load("loop-timing", "bench"), c = load("loop-counters", "bench");
  const pc_region *gt = &t.report->regions[0], *gc = &c.report->regions[0];
  assert_int_equal(gt->launches, 4096);
  assert_int_equal(gc->launches, 4096);
  assert_int_equal(gt->diag.verdict.step, 1);
  assert_int_equal(gt->diag.verdict.cause, PERFCHECK_CAUSE_LAUNCH_OVERHEAD);
  assert_int_equal(gc->diag.verdict.step, 1);
  assert_int_equal(gc->diag.verdict.cause, PERFCHECK_CAUSE_LAUNCH_OVERHEAD);
  /* Counters mode profiled the first launch; its cost (first enable and
   * replays: hundreds of ms) is out of the program's wall clock. */
  assert_true(gc->profiling_ns > 0);
  assert_true(gt->profiling_ns == 0);
  assert_true(gc->wall_ns < 2.0 * gt->wall_ns);
  const pc_kernel *kt = find(t.report, "add_one", -1), *kc = find(c.report, "add_one", -1);
  assert_int_equal(kt->launches, 4096);
  assert_int_equal(kc->launches, 4096);
  assert_int_equal(kc->profiled_launches, 1);
  unload(&t);
  unload(&c);
}

static void test_streams(void **state) {
  (void)state;
  recorded x = load("streams-counters", "streams");
  const pc_region *g = &x.report->regions[0];
  assert_int_equal(g->launches, 2);
  assert_int_equal(g->diag.verdict.step, 0);
  assert_int_equal(x.report->nkernels, 2);
  expect_verdict(find(x.report, "streamChainsA", -1), 5, PERFCHECK_CAUSE_GRID_TOO_SMALL);
  expect_verdict(find(x.report, "streamChainsB", -1), 5, PERFCHECK_CAUSE_GRID_TOO_SMALL);
  /* grid_too_small rests on "no unit is near its roof": this recording's
   * set measured every pipe and L2's lts__throughput, but L1
   * only by its LSU wavefronts, not l1tex__throughput, and no speed-of-light
   * row: the diagnosis names that one unit in a step-2 note, and the verdict
   * stands. */
  for (int i = 0; i < 2; i++) {
    const pc_kernel *k = find(x.report, i ? "streamChainsB" : "streamChainsA", -1);
    const pc_finding *note = NULL;
    for (size_t j = 0; j < k->diag.nfindings; j++)
      if (k->diag.findings[j].step == 2 && k->diag.findings[j].cause == PERFCHECK_CAUSE_NOT_ASSESSED) note = &k->diag.findings[j];
    assert_non_null(note);
    assert_string_equal(note->metric, "l1tex__throughput.avg.pct_of_peak_sustained_active");
    assert_non_null(strstr(note->advice, ": L1/shared memory (in part) was not measured"));
    assert_null(strstr(note->advice, "pipe"));
    assert_non_null(strstr(note->advice, "--set sol"));
  }
  /* The text report prints it under each verdict it qualifies. */
  {
    char *text = NULL;
    size_t len = 0;
    FILE *mf = open_memstream(&text, &len);
    assert_non_null(mf);
    pc_err err = {0};
    assert_int_equal(pc_write_text(x.report, mf, &err), PERFCHECK_OK);
    fclose(mf);
    int lines = 0;
    for (const char *p = text; (p = strstr(p, "\n  not measured: \"No unit near its roof\" covers")) != NULL; p++) lines++;
    assert_int_equal(lines, 2);
    free(text);
  }
  /* Two streams, one context, as the program launched them. */
  assert_int_equal(x.snap->nlaunches, 2);
  assert_int_not_equal(x.snap->launches[0].stream, x.snap->launches[1].stream);
  assert_int_equal(x.snap->ncontexts, 1);
  assert_int_equal(x.snap->contexts[0].device, 0);
  assert_true(x.snap->contexts[0].pci_bus_id[0] != '\0');
  unload(&x);
}

static void test_graph(void **state) {
  (void)state;
  recorded x = load("graph-counters", "graph");
  const pc_region *g = &x.report->regions[0];
  assert_int_equal(g->launches, 3); /* three cuGraphLaunch calls */
  assert_int_equal(x.snap->nlaunches, 6);
  for (size_t i = 0; i < x.snap->nlaunches; i++)
    assert_int_equal(x.snap->launches[i].flags & (PC_SNAP_GRAPH | PC_SNAP_CAPTURED), PC_SNAP_GRAPH | PC_SNAP_CAPTURED);
  const char *names[] = {"graphAddOne", "graphAccumulate"};
  for (int i = 0; i < 2; i++) {
    const pc_kernel *k = find(x.report, names[i], -1);
    assert_int_equal(k->launches, 3);
    assert_int_equal(k->profiled_launches, 0);
    assert_non_null(k->not_measured_reason);
    assert_non_null(strstr(k->not_measured_reason, "CUDA graph"));
    /* The recording's six kernel intervals (3.3 to 3.8 us each, 21.3 us in
     * all) fill a fifth of the region's 98.9 us (graph instantiation is in
     * it): step 1 catches the region; the kernels keep their own verdicts,
     * and the counters a graph launch never gets leave steps 2-5 not
     * assessed. */
    assert_int_equal(k->diag.verdict.cause, PERFCHECK_CAUSE_NOT_ASSESSED);
    assert_true(k->diag.verdict.step >= 2);
    assert_true(k->rank == 1 || k->rank == 2);
  }
  assert_int_equal(g->diag.verdict.cause, PERFCHECK_CAUSE_NOT_THE_SLOW_PART);
  assert_true(g->kernel_share > 0.15 && g->kernel_share < 0.3);
  unload(&x);
}

static void test_torch_step(void **state) {
  (void)state;
  recorded x = load("torch-counters", "train_step");
  const pc_region *g = &x.report->regions[0];
  assert_int_equal(g->diag.verdict.step, 1);
  assert_int_equal(g->diag.verdict.cause, PERFCHECK_CAUSE_NOT_THE_SLOW_PART);
  assert_true(x.report->nkernels >= 5);
  /* Readable names in a Python process: demangled without the host's help. */
  assert_true(x.snap->demangler[0] != '\0');
  for (size_t i = 0; i < x.report->nkernels; i++) {
    const pc_kernel *k = &x.report->kernels[i];
    assert_non_null(k->display_name);
    if (k->mangled && strncmp(k->mangled, "_Z", 2) == 0) {
      assert_non_null(k->demangled);
      assert_true(strncmp(k->display_name, "_Z", 2) != 0);
    }
    assert_int_equal(k->device_ordinal, 0);
  }
  unload(&x);
}

/* The public reader of recorded snapshots: a folder and one file give the
 * verdicts the builder gives (mystery's four), and what is not a snapshot is
 * refused with the file named. */
static void test_report_from_snapshots(void **state) {
  (void)state;
  char dir[1024], file[1100];
  snprintf(dir, sizeof dir, "%s/snapshots/mystery-counters", PERFCHECK_TEST_DATA);
  snprintf(file, sizeof file, "%s/mystery.json", dir);
  for (int i = 0; i < 2; i++) {
    perfcheck_report *r = NULL;
    assert_int_equal(perfcheck_report_from_snapshots(i ? file : dir, 1, &r), PERFCHECK_OK);
    assert_int_equal(r->nregions, 1);
    assert_int_equal(r->nkernels, 4);
    expect_verdict(find(r, "mysteryA", -1), 3, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS);
    expect_verdict(find(r, "mysteryB", -1), 4, PERFCHECK_CAUSE_DIVERGENT_WARPS);
    expect_verdict(find(r, "mysteryC", 0), 5, PERFCHECK_CAUSE_OCCUPANCY_SHARED_MEMORY);
    expect_verdict(find(r, "mysteryC", 1), 0, PERFCHECK_CAUSE_AT_ROOF);
    perfcheck_report_destroy(r);
  }
  char notsnap[1100];
  snprintf(notsnap, sizeof notsnap, "%s/h200/mystery.csv", PERFCHECK_TEST_DATA);
  perfcheck_report *r = (perfcheck_report *)1;
  assert_int_equal(perfcheck_report_from_snapshots(notsnap, 1, &r), PERFCHECK_ERROR_PARSE);
  assert_null(r);
  assert_non_null(strstr(perfcheck_last_error_message(), "mystery.csv"));
  assert_int_equal(perfcheck_report_from_snapshots("/nonexistent/snapshots", 1, &r), PERFCHECK_ERROR_IO);
  assert_int_equal(perfcheck_report_from_snapshots(NULL, 1, &r), PERFCHECK_ERROR_INVALID_ARGUMENT);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_mystery), cmocka_unit_test(test_launch_loop_both_modes), cmocka_unit_test(test_streams),
      cmocka_unit_test(test_graph),   cmocka_unit_test(test_torch_step), cmocka_unit_test(test_report_from_snapshots),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
