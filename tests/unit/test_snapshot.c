/* The snapshot boundary on a CPU: pc_region_build turns region snapshots into
 * report entries and verdicts, and snapshots survive a JSON file.
 *
 * The snapshots here are synthetic but built the way the GPU layer builds
 * them: one row per kernel record, profiled launches without timestamps and
 * with their host interval (ENTER..EXIT) and counted values, attributes as
 * the driver answers them.  Their numbers come from measurements: the
 * counter values and launch attributes of the mystery kernels are those of
 * the H200 ncu export (tests/data/h200/mystery.csv), and the launch loop
 * uses the H200's ~2 us add_one kernels every ~3.4 us with a first profiler
 * enable of ~370 ms (docs/measurements/2026-11-30-h200).  Snapshots recorded
 * in process on the H200 are tested by test_recorded_snapshots.c. */
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
#include "read/pc_json.h"
#include "model/pc_snapshot.h"
#include "write/pc_write.h"
#include "report/pc_snapshot_json.h"
#include "report/pc_region_build.h"
#include "base/pc_util.h"

#define T0 1764500000000000000ull /* a CUPTI timestamp of late 2025 */
#define US 1000ull
#define MS 1000000ull

static pc_snapshot *new_snap(const char *name, int counters) {
  pc_snapshot *s = pc_snapshot_new();
  assert_non_null(s);
  s->name = strdup(name);
  s->counters = counters;
  if (counters) snprintf(s->metric_set, sizeof s->metric_set, "%s", "default");
  s->first_device = 0;
  pc_snap_context *c = pc_snapshot_add_context(s);
  c->device = 0;
  snprintf(c->pci_bus_id, sizeof c->pci_bus_id, "%s", "0000:19:00.0");
  pc_snap_device *d = pc_snapshot_add_device(s);
  d->ordinal = 0;
  snprintf(d->pci_bus_id, sizeof d->pci_bus_id, "%s", "0000:19:00.0");
  pc_device_init(&d->facts);
  snprintf(d->facts.name, sizeof d->facts.name, "%s", "NVIDIA H200");
  d->facts.cc_major = 9, d->facts.cc_minor = 0, d->facts.sm_count = 132, d->facts.warp_size = 32;
  d->facts.max_threads_per_sm = 2048, d->facts.max_threads_per_block = 1024, d->facts.max_blocks_per_sm = 32;
  d->facts.max_regs_per_sm = 65536, d->facts.max_regs_per_block = 65536, d->facts.max_smem_per_sm = 233472;
  d->facts.max_smem_per_block = 49152, d->facts.max_smem_per_block_optin = 232448;
  d->facts.reserved_smem_per_block = 1024;
  pc_device_fill_granularities(&d->facts);
  return s;
}

static uint32_t add_sig(pc_snapshot *s, const char *mangled, unsigned gx, unsigned bx, unsigned smem) {
  pc_snap_sig *g = pc_snapshot_add_sig(s);
  assert_non_null(g);
  g->mangled = mangled ? strdup(mangled) : NULL;
  g->context = 0;
  g->grid[0] = gx, g->grid[1] = g->grid[2] = 1;
  g->block[0] = bx, g->block[1] = g->block[2] = 1;
  g->dynamic_smem = smem;
  g->not_profiled = s->counters ? PC_NP_NONE : PC_NP_TIMING;
  g->attr_from = PC_SNAP_ATTR_RECORD;
  g->rec_valid = 1;
  g->rec_registers = 10;
  return (uint32_t)(s->nsigs - 1);
}

static void add_launch(pc_snapshot *s, uint32_t sig, uint64_t start, uint64_t end, uint32_t corr, uint32_t flags) {
  pc_snap_launch *l = pc_snapshot_add_launch(s);
  assert_non_null(l);
  if (flags & PC_SNAP_NOTIME) start = end = 0;
  *l = (pc_snap_launch){start, end, sig, corr, 7, flags};
}

static pc_snap_profiled *add_profiled(pc_snapshot *s, uint32_t sig, uint32_t corr, uint64_t enter, uint64_t exit,
                                      double dur_ns) {
  pc_snap_profiled *p = pc_snapshot_add_profiled(s);
  assert_non_null(p);
  p->correlation_id = corr;
  p->sig = sig;
  p->flags = PC_SNAP_PROF_RESULT;
  p->enter_ts = enter;
  p->exit_ts = exit;
  p->passes = 4;
  p->values[PC_M_DURATION] = dur_ns;
  return p;
}

static const pc_region *region(const pc_report *r, const char *name) {
  for (size_t i = 0; i < r->nregions; i++)
    if (strcmp(r->regions[i].name, name) == 0) return &r->regions[i];
  fail_msg("no region %s", name);
  return NULL;
}

static const pc_kernel *kernel(const pc_report *r, const char *name, double smem) {
  for (size_t i = 0; i < r->nkernels; i++)
    if (strcmp(r->kernels[i].name, name) == 0 && (smem < 0 || r->kernels[i].dynamic_smem == smem))
      return &r->kernels[i];
  fail_msg("no kernel %s (%.0f B)", name, smem);
  return NULL;
}

static pc_report *build(const pc_snapshot *s) {
  pc_report *r = pc_report_new();
  assert_non_null(r);
  pc_build_state st;
  pc_build_state_init(&st, 1);
  assert_int_equal(pc_region_build(s, r, &st), PERFCHECK_OK);
  return r;
}

/* ---- the cut clock ------------------------------------------------------------------ */

static void test_cut_clock(void **state) {
  (void)state;
  pc_cut c[] = {{300, 400, 0}, {100, 150, 0}, {120, 200, 0}, {500, 500, 0}};
  const size_t n = pc_cuts_normalize(c, 4);
  assert_int_equal(n, 2); /* [100,200) merged, [300,400), the empty one dropped */
  assert_int_equal(c[0].start, 100);
  assert_int_equal(c[0].end, 200);
  assert_int_equal(c[1].before, 100);
  assert_int_equal(pc_cut_map(c, n, 50), 50);
  assert_int_equal(pc_cut_map(c, n, 100), 100);
  assert_int_equal(pc_cut_map(c, n, 170), 100); /* inside a cut: its start */
  assert_int_equal(pc_cut_map(c, n, 200), 100);
  assert_int_equal(pc_cut_map(c, n, 250), 150);
  assert_int_equal(pc_cut_map(c, n, 350), 200);
  assert_int_equal(pc_cut_map(c, n, 1000), 800);
  assert_int_equal(pc_cut_map(NULL, 0, 1000), 1000);
}

/* ---- step 1: the same verdict in timing and counters mode -------------------------------- */

#define LOOP_N 4096
#define LOOP_PERIOD (3400ull)
#define LOOP_DUR (2000ull)
#define FIRST_ENABLE (370ull * MS)

/* The 4096-launch loop of tests/gpu/test_launch_overhead.cu: add_one on 16
 * blocks of 256.  In counters mode its first launch is profiled: the first
 * enable, four replay passes and their memory save/restore sit between its
 * ENTER and EXIT, and every later launch comes that much later. */
static pc_snapshot *launch_loop(int counters, int know_enter) {
  pc_snapshot *s = new_snap("pieces", counters);
  const uint32_t sig = add_sig(s, "_Z7add_onePfi", 16, 256, 0);
  s->begin_ts = T0;
  uint64_t t = T0 + 20 * US, shift = 0;
  for (uint32_t i = 0; i < LOOP_N; i++) {
    if (counters && i == 0) {
      const uint64_t enter = t, exit = t + FIRST_ENABLE;
      add_launch(s, sig, 0, 0, 100 + i, PC_SNAP_PROFILED | PC_SNAP_NOTIME);
      pc_snap_profiled *p = add_profiled(s, sig, 100 + i, know_enter ? enter : 0, exit, (double)LOOP_DUR);
      p->values[PC_M_SM_THROUGHPUT_PCT] = 1.5;
      shift = FIRST_ENABLE - LOOP_DUR;
    } else {
      add_launch(s, sig, t + shift, t + shift + LOOP_DUR, 100 + i, 0);
    }
    t += LOOP_PERIOD;
  }
  s->end_ts = t + shift + 30 * US;
  s->launch_calls = LOOP_N;
  return s;
}

static void test_launch_loop_both_modes(void **state) {
  (void)state;
  pc_snapshot *tm = launch_loop(0, 1), *cm = launch_loop(1, 1);
  pc_report *rt = build(tm), *rc = build(cm);
  const pc_region *gt = region(rt, "pieces"), *gc = region(rc, "pieces");
  assert_int_equal(gt->diag.verdict.step, 1);
  assert_int_equal(gt->diag.verdict.cause, PERFCHECK_CAUSE_LAUNCH_OVERHEAD);
  assert_int_equal(gc->diag.verdict.step, 1);
  assert_int_equal(gc->diag.verdict.cause, PERFCHECK_CAUSE_LAUNCH_OVERHEAD);
  assert_int_equal(gt->launches, LOOP_N);
  assert_int_equal(gc->launches, LOOP_N);
  /* The program's wall clock in both modes: the first enable is cut out. */
  assert_true(gt->wall_ns > 13.9e6 && gt->wall_ns < 14.0e6);
  assert_float_equal(gc->wall_ns, gt->wall_ns, 1.0);
  assert_float_equal(gc->gpu_idle_ns, gt->gpu_idle_ns, 1.0);
  assert_float_equal(gc->kernel_ns, gt->kernel_ns, 1.0);
  assert_float_equal(gc->profiling_ns, (double)(FIRST_ENABLE - LOOP_DUR), 0.5);
  assert_float_equal(gt->profiling_ns, 0.0, 0);
  /* The kernel entry: every launch counted, the profiled one by its counted duration. */
  const pc_kernel *kt = kernel(rt, "add_one", 0), *kc = kernel(rc, "add_one", 0);
  assert_int_equal(kt->launches, LOOP_N);
  assert_int_equal(kc->launches, LOOP_N);
  assert_int_equal(kc->profiled_launches, 1);
  assert_float_equal(kt->total_ns, LOOP_N * (double)LOOP_DUR, 0);
  assert_float_equal(kc->total_ns, LOOP_N * (double)LOOP_DUR, 0);
  assert_float_equal(kc->dur_median_ns, (double)LOOP_DUR, 0);
  assert_float_equal(kc->metric[PC_M_SM_THROUGHPUT_PCT], 1.5, 0);
  assert_non_null(kt->not_measured_reason);
  assert_string_equal(kt->not_measured_reason, "timing mode: counters were not requested");
  assert_null(kc->not_measured_reason);
  pc_report_free(rt);
  pc_report_free(rc);
  pc_snapshot_free(tm);
  pc_snapshot_free(cm);

  /* Without the ENTER time the cost cannot be cut: the region's wall clock
   * then holds the first enable, and step 1 no longer sees launch overhead
   * (what counters mode read when it did not cut it). */
  pc_snapshot *blind = launch_loop(1, 0);
  pc_report *rb = build(blind);
  const pc_region *gb = region(rb, "pieces");
  assert_true(gb->wall_ns > 380e6);
  assert_int_not_equal(gb->diag.verdict.cause, PERFCHECK_CAUSE_LAUNCH_OVERHEAD);
  pc_report_free(rb);
  pc_snapshot_free(blind);
}

/* ---- seed 000's four verdicts from counter values measured on the H200 -------------------- */

static const char *mystery_mangled(const char *name) {
  if (strcmp(name, "mysteryA") == 0) return "_Z8mysteryAPKfPfm";
  if (strcmp(name, "mysteryB") == 0) return "_Z8mysteryBPKfPfmi";
  return "_Z8mysteryCPKfPfmi";
}

/* The mystery region as the GPU layer records it in counters mode: four
 * profiled launches, each with the values ncu measured for that launch. */
static pc_snapshot *mystery_snapshot(pc_report **export_out) {
  char path[512];
  snprintf(path, sizeof path, "%s/h200/mystery.csv", PERFCHECK_TEST_DATA);
  perfcheck_report *x = NULL;
  if (perfcheck_report_from_ncu_csv(path, 1, &x) != PERFCHECK_OK) fail_msg("%s: %s", path, perfcheck_last_error_message());
  assert_int_equal(x->nkernels, 4);
  pc_snapshot *s = new_snap("mystery", 1);
  s->devices[0].facts = x->device;
  s->begin_ts = T0;
  uint64_t t = T0 + 10 * US;
  for (size_t i = 0; i < x->nkernels; i++) {
    const pc_kernel *k = &x->kernels[i];
    const uint32_t sig = add_sig(s, mystery_mangled(k->name), k->grid[0], k->block[0], (unsigned)k->dynamic_smem);
    s->sigs[sig].grid[1] = k->grid[1], s->sigs[sig].grid[2] = k->grid[2];
    s->sigs[sig].block[1] = k->block[1], s->sigs[sig].block[2] = k->block[2];
    s->sigs[sig].attr_from = PC_SNAP_ATTR_DRIVER;
    s->sigs[sig].attr = k->attr;
    const double dur = k->metric[PC_M_DURATION];
    assert_true(pc_has(dur) && dur > 0);
    const uint64_t enter = t, exit = t + 40 * MS + (uint64_t)dur; /* 40 ms of replay around each */
    add_launch(s, sig, 0, 0, (uint32_t)(10 + i), PC_SNAP_PROFILED | PC_SNAP_NOTIME);
    pc_snap_profiled *p = add_profiled(s, sig, (uint32_t)(10 + i), enter, exit, dur);
    memcpy(p->values, k->metric, sizeof p->values);
    t = exit + 5 * US;
  }
  s->end_ts = t + 20 * US;
  s->launch_calls = x->nkernels;
  s->passes = 4;
  *export_out = x;
  return s;
}

static void test_mystery_verdicts(void **state) {
  (void)state;
  pc_report *x = NULL;
  pc_snapshot *s = mystery_snapshot(&x);
  pc_report *r = build(s);
  const pc_region *g = region(r, "mystery");
  /* Step 1 passes: the kernels fill the region once the replays are cut. */
  assert_int_equal(g->diag.verdict.step, 0);
  assert_true(g->kernel_share > 0.5);
  assert_true(g->profiling_ns > 159e6 && g->profiling_ns < 161e6);
  struct {
    const char *name;
    double smem;
    int step;
    perfcheck_cause cause;
  } want[] = {
      {"mysteryA", 0, 3, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS},
      {"mysteryB", 0, 4, PERFCHECK_CAUSE_DIVERGENT_WARPS},
      {"mysteryC", 116736, 5, PERFCHECK_CAUSE_OCCUPANCY_SHARED_MEMORY},
      {"mysteryC", 0, 0, PERFCHECK_CAUSE_AT_ROOF},
  };
  assert_int_equal(r->nkernels, 4);
  for (size_t i = 0; i < 4; i++) {
    const pc_kernel *k = kernel(r, want[i].name, want[i].smem);
    if (k->diag.verdict.step != want[i].step || k->diag.verdict.cause != want[i].cause)
      fail_msg("%s (%.0f B): step %d %s, want step %d %s", want[i].name, want[i].smem, k->diag.verdict.step,
               perfcheck_cause_name(k->diag.verdict.cause), want[i].step, perfcheck_cause_name(want[i].cause));
    assert_string_equal(k->region, "mystery");
    assert_int_equal(k->profiled_launches, 1);
    assert_int_equal(k->passes, 4);
    assert_int_equal(k->device_ordinal, 0);
    /* Names: full demangled, mangled, and the table's display name. */
    assert_non_null(k->mangled);
    assert_string_equal(k->mangled, mystery_mangled(want[i].name));
    assert_non_null(k->demangled);
    assert_true(strncmp(k->demangled, want[i].name, strlen(want[i].name)) == 0 && strchr(k->demangled, '('));
    assert_string_equal(k->display_name, want[i].name);
    /* One launch: its total is its counted duration. */
    assert_float_equal(k->total_ns, k->metric[PC_M_DURATION], 0.5);
  }
  assert_string_equal(r->device.name, x->device.name);
  pc_report_free(r);
  pc_report_free(x);
  pc_snapshot_free(s);
}

/* ---- nesting, graphs, missing results ------------------------------------------------------- */

/* perfcheck's host time inside a launch that profiled nothing (rotation's
 * session closed there: Stop and Decode) comes as an inherited profiled
 * launch of no signature: cut from the wall clock like a profiled launch's,
 * with no entry and no kernel of its own; the same through the file. */
static void round_trip(pc_snapshot *s);

static void test_host_cut(void **state) {
  (void)state;
  pc_snapshot *s = new_snap("step", 1);
  s->begin_ts = T0;
  const uint32_t a = add_sig(s, "_Z4stepPf", 1024, 256, 0);
  add_launch(s, a, T0 + 1 * MS, T0 + 2 * MS, 1, 0);
  add_launch(s, a, T0 + 16 * MS, T0 + 17 * MS, 3, 0);
  pc_snap_profiled *p = pc_snapshot_add_profiled(s);
  assert_non_null(p);
  p->correlation_id = 0;
  p->sig = UINT32_MAX;
  p->flags = PC_SNAP_PROF_INHERITED;
  p->enter_ts = T0 + 3 * MS; /* the close inside the program's launch of corr 3 */
  p->exit_ts = T0 + 15 * MS;
  p->group = -1;
  for (int m = 0; m < PC_M_COUNT; m++) p->values[m] = PC_NULL;
  s->end_ts = T0 + 18 * MS;
  s->launch_calls = 2;
  pc_report *r = build(s);
  const pc_region *g = region(r, "step");
  assert_float_equal(g->profiling_ns, (double)(12 * MS), 0.5);
  assert_float_equal(g->wall_ns, (double)(6 * MS), 0.5); /* 18 ms less the 12 ms close */
  assert_float_equal(g->kernel_ns, (double)(2 * MS), 0.5);
  assert_int_equal(r->nkernels, 1);
  assert_int_equal(r->kernels[0].launches, 2);
  assert_int_equal(r->kernels[0].profiled_launches, 0);
  pc_report_free(r);
  round_trip(s);
  pc_snapshot_free(s);
}

static void test_nested_and_graph(void **state) {
  (void)state;
  /* The inner region ended first: its kernels come to the outer one as
   * inherited (busy time only), and so does its profiled launch's interval. */
  pc_snapshot *s = new_snap("outer", 1);
  s->begin_ts = T0;
  const uint32_t a = add_sig(s, "_Z5outerPf", 1024, 256, 0);
  const uint32_t b = add_sig(s, "_Z5innerPf", 1024, 256, 0);
  const uint32_t gsig = add_sig(s, "_Z10graph_nodePf", 64, 128, 0);
  s->sigs[gsig].not_profiled = PC_NP_GRAPH;
  s->sigs[gsig].attr_new = 1;
  s->sigs[gsig].attr_note = strdup("no function handle: launched only by a CUDA graph");
  add_launch(s, a, T0 + 10 * US, T0 + 110 * US, 1, 0);
  add_launch(s, b, 0, 0, 2, PC_SNAP_INHERITED | PC_SNAP_PROFILED | PC_SNAP_NOTIME);
  pc_snap_profiled *p = add_profiled(s, b, 2, T0 + 200 * US, T0 + 50 * MS, 100e3);
  p->flags = PC_SNAP_PROF_INHERITED | PC_SNAP_PROF_RESULT;
  add_launch(s, gsig, T0 + 50 * MS + 10 * US, T0 + 50 * MS + 40 * US, 3, PC_SNAP_GRAPH | PC_SNAP_CAPTURED);
  add_launch(s, gsig, T0 + 50 * MS + 40 * US, T0 + 50 * MS + 70 * US, 3, PC_SNAP_GRAPH | PC_SNAP_CAPTURED);
  s->end_ts = T0 + 50 * MS + 100 * US;
  s->launch_calls = 3;
  pc_report *r = build(s);
  const pc_region *g = region(r, "outer");
  /* Wall: 50.1 ms less the inner launch's 49.8 ms - 100 us of profiling. */
  assert_float_equal(g->profiling_ns, (double)(50 * MS - 200 * US) - 100e3, 0.5);
  assert_float_equal(g->wall_ns, (double)(50 * MS + 100 * US) - g->profiling_ns, 0.5);
  /* Busy: outer 100 us + inner 100 us (placed, counted) + graph 60 us. */
  assert_float_equal(g->kernel_ns, 260e3, 0.5);
  assert_int_equal(g->launches, 3);
  assert_int_equal(r->nkernels, 2); /* the inherited kernel has its own region's entry */
  const pc_kernel *ko = kernel(r, "outer", -1), *kg = kernel(r, "graph_node", -1);
  assert_int_equal(ko->launches, 1);
  assert_int_equal(kg->launches, 2);
  assert_float_equal(kg->total_ns, 60e3, 0);
  assert_non_null(kg->not_measured_reason);
  assert_true(strstr(kg->not_measured_reason, "CUDA graph") != NULL);
  /* Its attributes: from the activity record through the model, said once. */
  assert_float_equal(kg->attr.registers_per_thread, 10, 0);
  assert_float_equal(kg->attr.blocks_per_sm, 16, 0); /* 2048 threads per SM / 128 */
  int said = 0;
  for (size_t i = 0; i < r->nwarnings; i++) said += strstr(r->warnings[i], "kernel graph_node: launch attributes from its activity record") != NULL;
  assert_int_equal(said, 1);
  pc_report_free(r);
  pc_snapshot_free(s);
}

static void test_profiled_without_result(void **state) {
  (void)state;
  pc_snapshot *s = new_snap("lost", 1);
  s->begin_ts = T0;
  const uint32_t a = add_sig(s, "_Z4lostv", 1, 32, 0);
  add_launch(s, a, 0, 0, 1, PC_SNAP_PROFILED | PC_SNAP_NOTIME);
  s->end_ts = T0 + MS;
  s->launch_calls = 1;
  s->zero_ts_records = 0;
  pc_snapshot_add_note(s, "counters of region \"lost\": CUPTI dropped 1 ranges");
  pc_report *r = build(s);
  const pc_kernel *k = kernel(r, "lost", -1);
  assert_int_equal(k->launches, 1);
  assert_int_equal(k->profiled_launches, 0);
  assert_true(pc_is_null(k->total_ns)); /* no launch with a duration: not measured */
  assert_true(pc_is_null(k->dur_median_ns));
  assert_true(strstr(k->not_measured_reason, "returned no result") != NULL);
  assert_int_equal(r->nwarnings >= 1, 1);
  assert_string_equal(r->warnings[0], "counters of region \"lost\": CUPTI dropped 1 ranges");
  const pc_region *g = region(r, "lost");
  assert_float_equal(g->kernel_ns, 0.0, 0); /* nothing timed ran: measured zero */
  pc_report_free(r);
  pc_snapshot_free(s);
}

/* Builds into r (with st) a region `name` from T0 to T0 + 1 ms whose one
 * kernel `mangled` (gx x 256) had its one launch profiled: ld_sectors load
 * sectors over ld_requests requests, 20 us. */
static void build_profiled_region(pc_report *r, pc_build_state *st, const char *name, const char *mangled,
                                  unsigned gx, double ld_sectors, double ld_requests) {
  pc_snapshot *s = new_snap(name, 1);
  s->begin_ts = T0;
  const uint32_t a = add_sig(s, mangled, gx, 256, 0);
  add_launch(s, a, 0, 0, 1, PC_SNAP_PROFILED | PC_SNAP_NOTIME);
  pc_snap_profiled *p = add_profiled(s, a, 1, T0 + US, T0 + 300 * US, 20000);
  p->values[PC_M_LD_SECTORS] = ld_sectors, p->values[PC_M_LD_REQUESTS] = ld_requests;
  s->end_ts = T0 + MS;
  assert_int_equal(pc_region_build(s, r, st), PERFCHECK_OK);
  pc_snapshot_free(s);
}

/* Two runs of one region name: the first profiles the kernel, the second
 * (np earlier_run, as the selection leaves it) carries the first's counters
 * with profiled_launches 0 and its own times; a kernel of another shape gets
 * none. */
static void test_earlier_run_counters(void **state) {
  (void)state;
  pc_report *r = pc_report_new();
  pc_build_state st;
  pc_build_state_init(&st, 1);
  build_profiled_region(r, &st, "train_step", "_Z4stepPf", 132, 4096, 1024);

  pc_snapshot *s = new_snap("train_step", 1);
  s->begin_ts = T0 + 2 * MS;
  uint32_t a = add_sig(s, "_Z4stepPf", 132, 256, 0);
  s->sigs[a].not_profiled = PC_NP_EARLIER_RUN;
  const uint32_t b = add_sig(s, "_Z4stepPf", 264, 256, 0);
  s->sigs[b].not_profiled = PC_NP_EARLIER_RUN;
  add_launch(s, a, T0 + 2 * MS + US, T0 + 2 * MS + 21 * US, 2, 0);
  add_launch(s, b, T0 + 2 * MS + 30 * US, T0 + 2 * MS + 50 * US, 3, 0);
  s->end_ts = T0 + 3 * MS;
  assert_int_equal(pc_region_build(s, r, &st), PERFCHECK_OK);
  pc_snapshot_free(s);

  /* A third run finds the second's copy (the nearest run with counters). */
  s = new_snap("train_step", 1);
  s->begin_ts = T0 + 4 * MS;
  a = add_sig(s, "_Z4stepPf", 132, 256, 0);
  s->sigs[a].not_profiled = PC_NP_EARLIER_RUN;
  add_launch(s, a, T0 + 4 * MS + US, T0 + 4 * MS + 22 * US, 4, 0);
  s->end_ts = T0 + 5 * MS;
  assert_int_equal(pc_region_build(s, r, &st), PERFCHECK_OK);
  pc_snapshot_free(s);
  assert_int_equal(r->nkernels, 4);
  assert_float_equal(r->kernels[3].metric[PC_M_LD_SECTORS], 4096, 0);
  assert_float_equal(r->kernels[3].dur_median_ns, 21 * US, 0);

  const pc_kernel *first = &r->kernels[0], *later = &r->kernels[1], *other = &r->kernels[2];
  assert_int_equal(first->profiled_launches, 1);
  assert_int_equal(later->profiled_launches, 0);
  assert_int_equal(later->launches, 1);
  assert_float_equal(later->metric[PC_M_LD_SECTORS], 4096, 0);
  assert_float_equal(later->derived.sectors_per_request_ld, 4, 0);
  assert_int_equal(later->passes, 4);
  assert_null(later->not_measured_reason);
  assert_float_equal(later->dur_median_ns, 20 * US, 0); /* its own timing, not the profiled pass's */
  assert_int_equal(other->grid[0], 264);
  assert_true(pc_is_null(other->metric[PC_M_LD_SECTORS]));
  assert_non_null(strstr(other->not_measured_reason, "earlier run"));
  int said = 0;
  for (size_t i = 0; i < r->nwarnings; i++) said += strstr(r->warnings[i], "later runs carry the counters") != NULL;
  assert_int_equal(said, 1);
  pc_report_free(r);
}

/* A launch outside the counter gate (PC_NP_NVTX), e.g. the whole program's
 * entry of a kernel whose profiled launch was inside an NVTX range (the
 * advice corpus under perfcheck run --nvtx-include, H200: 55
 * such entries said only "counters were not collected"): it carries the
 * counters of the same signature's entry in the other region, with
 * profiled_launches 0, said once; a kernel profiled nowhere keeps the
 * gate's reason. */
static void test_counters_from_another_region(void **state) {
  (void)state;
  pc_report *r = pc_report_new();
  pc_build_state st;
  pc_build_state_init(&st, 1);
  build_profiled_region(r, &st, "advice:transpose_ld:orig", "_Z9transposePf", 32, 8192, 256);

  pc_snapshot *s = new_snap("program", 1);
  s->program = 1;
  s->begin_ts = T0 - MS;
  const uint32_t a = add_sig(s, "_Z9transposePf", 32, 256, 0);
  s->sigs[a].not_profiled = PC_NP_NVTX;
  const uint32_t b = add_sig(s, "_Z5otherPf", 32, 256, 0);
  s->sigs[b].not_profiled = PC_NP_NVTX;
  add_launch(s, a, T0 - MS + US, T0 - MS + 21 * US, 2, 0);
  add_launch(s, b, T0 - MS + 30 * US, T0 - MS + 50 * US, 3, 0);
  s->end_ts = T0 + 2 * MS;
  assert_int_equal(pc_region_build(s, r, &st), PERFCHECK_OK);
  pc_snapshot_free(s);

  const pc_kernel *gated = NULL, *other = NULL;
  for (size_t i = 0; i < r->nkernels; i++) {
    if (r->kernels[i].region) continue; /* the whole program's entries carry no region */
    if (strstr(r->kernels[i].mangled, "transpose")) gated = &r->kernels[i];
    if (strstr(r->kernels[i].mangled, "other")) other = &r->kernels[i];
  }
  assert_non_null(gated);
  assert_non_null(other);
  assert_int_equal(gated->profiled_launches, 0);
  assert_float_equal(gated->metric[PC_M_LD_SECTORS], 8192, 0);
  assert_float_equal(gated->derived.sectors_per_request_ld, 32, 0);
  assert_null(gated->not_measured_reason);
  assert_float_equal(gated->dur_median_ns, 20 * US, 0); /* its own launch's time */
  assert_true(pc_is_null(other->metric[PC_M_LD_SECTORS]));
  assert_non_null(strstr(other->not_measured_reason, "NVTX range filter"));
  int said = 0;
  for (size_t i = 0; i < r->nwarnings; i++) said += strstr(r->warnings[i], "profiled in another region") != NULL;
  assert_int_equal(said, 1);
  pc_report_free(r);
}

/* The report's device is the first region's; a kernel on another device
 * keeps its own device's facts and ordinal. */
static void test_devices(void **state) {
  (void)state;
  pc_snapshot *s = new_snap("two", 0);
  pc_snap_context *c = pc_snapshot_add_context(s);
  c->device = 1;
  pc_snap_device *d = pc_snapshot_add_device(s);
  d->ordinal = 1;
  d->facts = s->devices[0].facts;
  snprintf(d->facts.name, sizeof d->facts.name, "%s", "second");
  d->facts.sm_count = 66;
  s->begin_ts = T0;
  const uint32_t a = add_sig(s, "_Z1av", 132, 256, 0);
  const uint32_t b = add_sig(s, "_Z1bv", 132, 256, 0);
  s->sigs[b].context = 1;
  add_launch(s, a, T0 + US, T0 + 2 * US, 1, 0);
  add_launch(s, b, T0 + US, T0 + 3 * US, 2, 0);
  s->end_ts = T0 + 10 * US;
  pc_report *r = pc_report_new();
  pc_build_state st;
  pc_build_state_init(&st, 1);
  assert_int_equal(pc_region_build(s, r, &st), PERFCHECK_OK);
  assert_string_equal(r->device.name, "NVIDIA H200");
  assert_int_equal(st.device_ordinal, 0);
  const pc_kernel *ka = kernel(r, "a", -1), *kb = kernel(r, "b", -1);
  assert_int_equal(ka->device_ordinal, 0);
  assert_int_equal(kb->device_ordinal, 1);
  assert_float_equal(ka->attr.waves_per_sm, 132.0 / (8 * 132), 1e-12);
  assert_float_equal(kb->attr.waves_per_sm, 132.0 / (8 * 66), 1e-12);
  /* A later region first on device 1: one warning, the report keeps device 0. */
  free(s->name);
  s->name = strdup("later");
  s->first_device = 1;
  assert_int_equal(pc_region_build(s, r, &st), PERFCHECK_OK);
  assert_string_equal(r->device.name, "NVIDIA H200");
  int said = 0;
  for (size_t i = 0; i < r->nwarnings; i++) said += strstr(r->warnings[i], "more than one device") != NULL;
  assert_int_equal(said, 1);
  pc_report_free(r);
  pc_snapshot_free(s);
}

/* ---- files ------------------------------------------------------------------------------------- */

static char *to_json(const pc_snapshot *s, size_t *len) {
  /* Static, not local: gcc 12's -Wdangling-pointer reads open_memstream's hold
   * on a local's address as a dangling pointer in the callers. */
  static char *buf;
  static size_t n;
  buf = NULL;
  n = 0;
  FILE *f = open_memstream(&buf, &n);
  assert_non_null(f);
  assert_int_equal(pc_snapshot_write_json(s, f, NULL), PERFCHECK_OK);
  fclose(f);
  *len = n;
  return buf;
}

/* The text report, malloc'd. */
static char *report_text(const pc_report *r) {
  char *buf = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&buf, &n);
  assert_non_null(f);
  assert_int_equal(pc_write_text(r, f, NULL), PERFCHECK_OK);
  assert_int_equal(fclose(f), 0);
  return buf;
}

static char *report_json(const pc_report *r) {
  /* Static, not local: gcc 12's -Wdangling-pointer reads open_memstream's hold
   * on a local's address as a dangling pointer in the callers. */
  static char *buf;
  static size_t n;
  buf = NULL;
  n = 0;
  FILE *f = open_memstream(&buf, &n);
  assert_non_null(f);
  assert_int_equal(pc_write_json(r, f, NULL), PERFCHECK_OK);
  fclose(f);
  return buf;
}

static void round_trip(pc_snapshot *s) {
  s->cupti_version = 130001;
  snprintf(s->cupti_path, sizeof s->cupti_path, "%s", "/usr/local/cuda/lib64/libcupti.so.13");
  s->cupti_preloaded = 0;
  size_t n1 = 0, n2 = 0;
  char *j1 = to_json(s, &n1);
  pc_snapshot *back = NULL;
  pc_err err = {0};
  if (pc_snapshot_from_json_text(j1, n1, "snap.json", &back, &err) != PERFCHECK_OK) fail_msg("%s", err.msg);
  char *j2 = to_json(back, &n2);
  assert_int_equal(n1, n2);
  assert_string_equal(j1, j2);
  /* The same report from the snapshot and from its file. */
  pc_report *a = build(s), *b = build(back);
  char *ra = report_json(a), *rb = report_json(b);
  assert_string_equal(ra, rb);
  free(ra), free(rb), free(j1), free(j2);
  pc_report_free(a), pc_report_free(b);
  pc_snapshot_free(back);
}

static void test_json_round_trip(void **state) {
  (void)state;
  pc_report *x = NULL;
  pc_snapshot *m = mystery_snapshot(&x);
  m->nextra = 1;
  m->extra_names = calloc(1, sizeof *m->extra_names);
  m->extra_names[0] = strdup("smsp__inst_executed.sum");
  m->profiled[0].extra = malloc(sizeof(double));
  m->profiled[0].extra[0] = 123456.0;
  m->via_substitute[PC_M_LD_REQUESTS] = 1;
  m->nrejected = 1;
  m->rejected = calloc(1, sizeof *m->rejected);
  m->rejected_reason = calloc(1, sizeof *m->rejected_reason);
  m->rejected[0] = strdup("bogus__metric.sum");
  m->rejected_reason[0] = strdup("unknown metric");
  pc_snapshot_add_transfer(m, 0, T0 + 5 * US, T0 + 9 * US, 1);
  pc_snapshot_add_transfer(m, 1, T0 + 2 * US, T0 + 3 * US, 0);
  round_trip(m);
  pc_snapshot_free(m);
  pc_report_free(x);
  pc_snapshot *l = launch_loop(1, 1);
  round_trip(l);
  pc_snapshot_free(l);
}

static void expect_parse_error(const char *text, const char *needle) {
  pc_snapshot *s = NULL;
  pc_err err = {0};
  assert_int_equal(pc_snapshot_from_json_text(text, strlen(text), "bad.json", &s, &err), PERFCHECK_ERROR_PARSE);
  assert_null(s);
  if (!strstr(err.msg, needle)) fail_msg("error \"%s\" does not say \"%s\"", err.msg, needle);
  assert_true(strncmp(err.msg, "bad.json:", 9) == 0);
}

static void test_reader_rejects(void **state) {
  (void)state;
  expect_parse_error("[]", "not a perfcheck snapshot");
  expect_parse_error("{\"schema\": \"perfcheck-report/1\"}", "perfcheck-snapshot/1");
  expect_parse_error("{\"schema\": \"perfcheck-snapshot/1\", \"origin_ns\": \"-5\"}", "origin_ns");
  /* A real snapshot, then damaged in one place at a time. */
  pc_snapshot *l = launch_loop(1, 1);
  size_t n = 0;
  char *j = to_json(l, &n);
  pc_snapshot_free(l);
  struct {
    const char *from, *to, *needle;
  } cases[] = {
      {"\"PN\"", "\"PX\"", "unknown launch flag 'X'"},
      {"\"not_profiled\": \"none\"", "\"not_profiled\": \"why\"", "unknown reason \"why\""},
      {"\"launch_calls\": 4096", "\"launch_calls\": -1", "launch_calls"},
      {"\"context\": 0", "\"context\": 3", "no such context"},
      {"\"attributes_from\": \"record\"", "\"attributes_from\": \"guess\"", "attributes_from"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *at = strstr(j, cases[i].from);
    assert_non_null(at);
    size_t pre = (size_t)(at - j), fl = strlen(cases[i].from), tl = strlen(cases[i].to);
    char *bad = malloc(n - fl + tl + 1);
    memcpy(bad, j, pre);
    memcpy(bad + pre, cases[i].to, tl);
    memcpy(bad + pre + tl, at + fl, n - pre - fl + 1);
    expect_parse_error(bad, cases[i].needle);
    free(bad);
  }
  free(j);
  /* A file that cannot be read: pc_read_file's status and text reach the
   * caller's pc_err, and the thread's last error is not touched (one
   * channel). */
  pc_snapshot *s = NULL;
  pc_err err = {0};
  pc_clear_error();
  assert_int_equal(pc_snapshot_load("/nonexistent/snap.json", &s, &err), PERFCHECK_ERROR_IO);
  assert_null(s);
  assert_int_equal(err.status, PERFCHECK_ERROR_IO);
  assert_string_equal(err.msg, "/nonexistent/snap.json: cannot open: No such file or directory");
  assert_string_equal(perfcheck_last_error_message(), "");
  assert_int_equal(pc_snapshot_load("/", &s, &err), PERFCHECK_ERROR_IO);
  assert_string_equal(err.msg, "/: is a directory");
}

/* An in-process report carries tool.cupti, tool.demangler and each kernel's
 * device ordinal; the JSON reader gets them back. */
static void test_report_tool_fields(void **state) {
  (void)state;
  pc_report *x = NULL;
  pc_snapshot *s = mystery_snapshot(&x);
  pc_report *r = build(s);
  r->cupti_known = 1;
  snprintf(r->cupti_path, sizeof r->cupti_path, "%s", "/opt/venv/nvidia/cuda_cupti/lib/libcupti.so.13");
  r->cupti_version = 130001;
  r->cupti_preloaded = 1;
  snprintf(r->demangler, sizeof r->demangler, "%s", "libstdc++.so.6, loaded by perfcheck");
  char *j = report_json(r);
  assert_non_null(strstr(j, "\"cupti\": {"));
  assert_non_null(strstr(j, "\"device_ordinal\": 0"));
  pc_report *back = NULL;
  pc_err err = {0};
  if (pc_report_from_json_text(j, strlen(j), "r.json", 1, &back, &err) != PERFCHECK_OK) fail_msg("%s", err.msg);
  assert_int_equal(back->cupti_known, 1);
  assert_string_equal(back->cupti_path, r->cupti_path);
  assert_int_equal(back->cupti_version, 130001);
  assert_int_equal(back->cupti_preloaded, 1);
  assert_string_equal(back->demangler, r->demangler);
  assert_int_equal(back->nkernels, 4);
  for (size_t i = 0; i < back->nkernels; i++) {
    assert_int_equal(back->kernels[i].device_ordinal, 0);
    assert_string_equal(back->kernels[i].display_name, r->kernels[i].display_name);
    assert_string_equal(back->kernels[i].demangled, r->kernels[i].demangled);
    assert_string_equal(back->kernels[i].mangled, r->kernels[i].mangled);
    assert_float_equal(back->kernels[i].total_ns, r->kernels[i].total_ns, 0);
  }
  /* Offline (an ncu export): both null. */
  char *jx = report_json(x);
  assert_non_null(strstr(jx, "\"cupti\": null"));
  assert_non_null(strstr(jx, "\"demangler\": null"));
  free(j), free(jx);
  pc_report_free(back);
  pc_report_free(r);
  pc_report_free(x);
  pc_snapshot_free(s);
}

static void test_file_names(void **state) {
  (void)state;
  char p[64];
  assert_int_equal(pc_snapshot_file_name("/d", "mystery", 1, p, sizeof p), 0);
  assert_string_equal(p, "/d/mystery.json");
  assert_int_equal(pc_snapshot_file_name("/d", "train step/fwd+bwd", 2, p, sizeof p), 0);
  assert_string_equal(p, "/d/train_step_fwd_bwd.2.json");
  assert_int_equal(pc_snapshot_file_name("/d", "../x", 1, p, sizeof p), 0);
  assert_string_equal(p, "/d/_._x.json");
  assert_int_equal(pc_snapshot_file_name("/d", "", 1, p, sizeof p), 0);
  assert_string_equal(p, "/d/region.json");
  assert_int_equal(pc_snapshot_file_name("/a/long/dir", "mystery", 1, p, 8), -1);
}


/* ---- rotation: one group of the set per launch ------------------------------- */

/* A kernel launched 4 times under rotation with a set of 3 groups: launches
 * 1-3 collect groups 0 (the DRAM group, from a flushed L2), 1, 2, launch 4
 * group 0 again.  The entry carries every group's metrics, the DRAM bytes of
 * the cold launches only, the spread of the metric measured twice, and says
 * how it was collected; a second kernel launched once has one group of 3. */
static pc_snapshot *rotation_snapshot(void) {
  pc_snapshot *s = new_snap("rot", 1);
  const uint32_t a = add_sig(s, "_Z5scalePf", 64, 256, 0), b = add_sig(s, "_Z4oncePf", 8, 128, 0);
  uint64_t t = T0;
  for (uint32_t i = 0; i < 4; i++) {
    add_launch(s, a, t + 10 * US, t + 20 * US, 100 + i, PC_SNAP_PROFILED);
    pc_snap_profiled *p = add_profiled(s, a, 100 + i, t, t + 2 * MS, 10000.0);
    p->passes = 1;
    p->groups = 3;
    p->group = (int)(i % 3);
    for (int m = 0; m < PC_M_COUNT; m++) p->values[m] = PC_NULL;
    p->values[PC_M_DURATION] = i == 3 ? 12000.0 : 10000.0; /* every group carries the duration */
    if (p->group == 0) {
      p->flags |= PC_SNAP_PROF_COLD;
      p->values[PC_M_DRAM_BYTES_READ] = i == 3 ? 8.4e6 : 8.0e6;
      p->values[PC_M_DRAM_BYTES_WRITE] = 4.0e6;
    } else if (p->group == 1) {
      p->values[PC_M_LD_SECTORS] = 262144;
    } else {
      p->values[PC_M_STALL_LONG_SCOREBOARD] = 3.5;
    }
    t += 3 * MS;
  }
  add_launch(s, b, t + 10 * US, t + 20 * US, 200, PC_SNAP_PROFILED);
  pc_snap_profiled *p = add_profiled(s, b, 200, t, t + 2 * MS, 5000.0);
  p->passes = 1, p->groups = 3, p->group = 0, p->flags |= PC_SNAP_PROF_COLD;
  p->values[PC_M_DRAM_BYTES_READ] = 1.0e6;
  s->begin_ts = T0 - MS;
  s->end_ts = t + 3 * MS;
  s->passes = 1;
  return s;
}

static void test_rotation_entries(void **state) {
  (void)state;
  pc_snapshot *s = rotation_snapshot();
  pc_report *r = build(s);
  const pc_kernel *a = kernel(r, "scale", -1), *b = kernel(r, "once", -1);
  assert_string_equal(a->replay, "rotate");
  assert_int_equal(a->groups, 3);
  assert_int_equal(a->groups_collected, 3);
  assert_int_equal(a->profiled_launches, 4);
  assert_int_equal(a->passes, 1);
  assert_true(a->dram_cold);
  assert_true(a->metric[PC_M_DRAM_BYTES_READ] == 8.2e6); /* the two cold launches */
  assert_true(a->metric[PC_M_LD_SECTORS] == 262144);
  assert_true(a->metric[PC_M_STALL_LONG_SCOREBOARD] == 3.5);
  assert_true(a->metric[PC_M_DURATION] == 10500.0);
  /* Spread: the duration over 4 launches (2000 / 10500), above the DRAM
   * bytes over 2 (0.4e6 / 8.2e6). */
  assert_true(fabs(a->counter_spread - 2000.0 / 10500.0) < 1e-12);
  /* One launch: one group of three, the rest null, and a warning says so. */
  assert_string_equal(b->replay, "rotate");
  assert_int_equal(b->groups_collected, 1);
  assert_true(isnan(b->metric[PC_M_LD_SECTORS]));
  assert_true(isnan(b->counter_spread));
  int warned = 0;
  for (size_t i = 0; i < r->nwarnings; i++) warned |= strstr(r->warnings[i], "rotation: some kernels ran fewer") != NULL;
  assert_true(warned);
  /* Written and read back. */
  char *j = report_json(r);
  assert_non_null(strstr(j, "\"replay\": \"rotate\""));
  assert_non_null(strstr(j, "\"collected\": 1"));
  assert_non_null(strstr(j, "\"dram_cold\": true"));
  perfcheck_report *back = NULL;
  assert_int_equal(perfcheck_report_from_json_text(j, strlen(j), "rot.json", 1, &back), PERFCHECK_OK);
  char *j2 = report_json((const pc_report *)back);
  assert_string_equal(j, j2);
  free(j), free(j2);
  perfcheck_report_destroy(back);
  /* The text report says under each verdict where the counters came from. */
  char *txt = report_text(r);
  assert_non_null(strstr(txt, "  counters: rotation, 3 of 3 groups, 4 profiled launches; the launches that measured a "
                              "metric twice or more differ by up to 19.0% of its mean (counter_spread 0.190)\n"));
  assert_non_null(strstr(txt, "  counters: rotation, 1 of 3 groups, 1 profiled launch\n  missing: "));
  free(txt);
  /* The HTML page says the same under each verdict. */
  size_t hn = 0;
  FILE *hf = open_memstream(&txt, &hn);
  assert_int_equal(perfcheck_report_write((const perfcheck_report *)r, PERFCHECK_FORMAT_HTML, hf), PERFCHECK_OK);
  fclose(hf);
  assert_non_null(strstr(txt, "<p><b>Counters:</b> rotation, 3 of 3 groups, 4 profiled launches; the launches that "
                              "measured a metric twice or more differ by up to 19.0% of its mean (counter_spread "
                              "0.190).</p>"));
  assert_non_null(strstr(txt, "<p><b>Counters:</b> rotation, 1 of 3 groups, 1 profiled launch.</p><p>Missing: "));
  free(txt);
  pc_report_free(r);

  /* A later run of the region name finished b by kernel replay: rotate+kernel. */
  pc_snap_profiled *q = add_profiled(s, 1, 201, s->end_ts, s->end_ts + MS, 5100.0);
  q->passes = 4, q->group = -1, q->groups = 0;
  q->values[PC_M_LD_SECTORS] = 4096;
  q->values[PC_M_DRAM_BYTES_READ] = 0.3e6; /* warm: not averaged with the cold 1e6 */
  add_launch(s, 1, s->end_ts + 10 * US, s->end_ts + 20 * US, 201, PC_SNAP_PROFILED);
  s->end_ts += 2 * MS;
  r = build(s);
  b = kernel(r, "once", -1);
  assert_string_equal(b->replay, "rotate+kernel");
  assert_int_equal(b->groups_collected, 3);
  assert_true(b->metric[PC_M_LD_SECTORS] == 4096);
  assert_true(b->metric[PC_M_DRAM_BYTES_READ] == 1.0e6);
  txt = report_text(r);
  assert_non_null(strstr(txt, "  counters: rotation finished by kernel replay in a later run of the region, 3 of 3 groups, "
                              "2 profiled launches; the launches that measured a metric twice or more differ by up to "
                              "2.0% of its mean (counter_spread 0.020)\n")); /* the duration, 5000 and 5100 ns */
  free(txt);
  pc_report_free(r);
  round_trip(s); /* group, groups and cold survive the file */
  pc_snapshot_free(s);
}

/* A graph kernel's entry names its graph and node, in the
 * report's JSON and through the snapshot's file. */
static void test_graph_node(void **state) {
  (void)state;
  pc_snapshot *s = new_snap("g", 0);
  const uint32_t a = add_sig(s, "_Z4nodePf", 8, 128, 0);
  s->sigs[a].graph_id = 7;
  s->sigs[a].graph_node = 4294967301ull;
  add_launch(s, a, T0 + 10 * US, T0 + 20 * US, 300, PC_SNAP_GRAPH);
  s->begin_ts = T0;
  s->end_ts = T0 + MS;
  pc_report *r = build(s);
  const pc_kernel *k = kernel(r, "node", -1);
  assert_int_equal(k->graph_id, 7);
  assert_true(k->graph_node == 4294967301ull);
  char *j = report_json(r);
  assert_non_null(strstr(j, "\"id\": 7"));
  assert_non_null(strstr(j, "\"node\": 4294967301"));
  perfcheck_report *back = NULL;
  assert_int_equal(perfcheck_report_from_json_text(j, strlen(j), "g.json", 1, &back), PERFCHECK_OK);
  char *j2 = report_json((const pc_report *)back);
  assert_string_equal(j, j2);
  free(j), free(j2);
  perfcheck_report_destroy(back);
  pc_report_free(r);
  round_trip(s);
  pc_snapshot_free(s);
}

/* ---- graph entries: counters per graph launch ---------------------------- */

/* A graph exec's signature, as the collector makes it: no name, grid 0. */
static uint32_t add_graph_sig(pc_snapshot *s, uint64_t exec, uint32_t graph_id) {
  pc_snap_sig *g = pc_snapshot_add_sig(s);
  assert_non_null(g);
  g->context = 0;
  g->is_graph = 1;
  g->graph_exec = exec;
  g->graph_id = graph_id;
  g->not_profiled = s->counters ? PC_NP_NONE : PC_NP_TIMING;
  return (uint32_t)(s->nsigs - 1);
}

static void add_graph_launch(pc_snapshot *s, uint32_t corr, uint32_t sig) {
  pc_snap_graph_launch *g = pc_snapshot_add_graph_launch(s);
  assert_non_null(g);
  g->correlation_id = corr;
  g->sig = sig;
}

/* A graph of two kernels (first: 64 blocks of 256 threads, each one FFMA a
 * thread, so 16384 a launch; second: reads 1 MiB) launched twice under a
 * set of 3 one-pass groups: launch 1 collects group 0 (the DRAM group, from
 * a flushed L2), launch 2 group 1 (the FFMA count); group 3 is never
 * collected.  Each launch is profiled as the collector hands it over: a host
 * interval of 2 ms (sync, flush, SetConfig before; Stop, Decode after), its
 * kernels' records with their own times inside it. */
static pc_snapshot *graph_snapshot(void) {
  pc_snapshot *s = new_snap("step", 1);
  const uint32_t a = add_sig(s, "_Z5firstPf", 64, 256, 0), b = add_sig(s, "_Z6secondPKfPf", 64, 256, 0);
  const uint32_t g = add_graph_sig(s, 41, 3);
  s->sigs[a].not_profiled = s->sigs[b].not_profiled = PC_NP_GRAPH;
  s->sigs[a].graph_id = s->sigs[b].graph_id = 3;
  s->sigs[a].graph_node = 11, s->sigs[b].graph_node = 12;
  uint64_t t = T0;
  for (uint32_t i = 0; i < 2; i++) {
    const uint32_t corr = 500 + i;
    add_graph_launch(s, corr, g);
    add_launch(s, a, t + 100 * US, t + 120 * US, corr, PC_SNAP_GRAPH | PC_SNAP_CAPTURED);
    add_launch(s, b, t + 121 * US, t + 141 * US, corr, PC_SNAP_GRAPH | PC_SNAP_CAPTURED);
    pc_snap_profiled *p = add_profiled(s, g, corr, t, t + 2 * MS, PC_NULL);
    p->passes = 1, p->groups = 3, p->group = (int)i;
    p->values[PC_M_DURATION] = 41000.0; /* the range: first start to last end */
    if (i == 0) {
      p->flags |= PC_SNAP_PROF_COLD;
      p->values[PC_M_DRAM_BYTES_READ] = 1048576.0 + 65536.0;
    } else {
      p->values[PC_M_FFMA] = 16384.0;
      p->values[PC_M_WARPS_ACTIVE_PCT] = 40.0;
    }
    t += 3 * MS;
  }
  s->begin_ts = T0 - MS;
  s->end_ts = t;
  s->launch_calls = 2;
  s->passes = 1;
  return s;
}

static const pc_kernel *graph_entry(const pc_report *r) {
  for (size_t i = 0; i < r->nkernels; i++)
    if (r->kernels[i].is_graph) return &r->kernels[i];
  fail_msg("no graph entry");
  return NULL;
}

static int warned(const pc_report *r, const char *needle) {
  int n = 0;
  for (size_t i = 0; i < r->nwarnings; i++) n += strstr(r->warnings[i], needle) != NULL;
  return n;
}

static void test_graph_entries(void **state) {
  (void)state;
  pc_snapshot *s = graph_snapshot();
  pc_report *r = build(s);
  assert_int_equal(r->nkernels, 3);
  const pc_kernel *k = graph_entry(r), *a = kernel(r, "first", -1), *b = kernel(r, "second", -1);
  /* The entry: named for the user, two launches of two kernels. */
  assert_string_equal(k->name, "graph 3 (2 kernels: first, second)");
  assert_string_equal(k->display_name, "graph 3 (2 kernels: first, ...)");
  assert_null(k->mangled);
  assert_int_equal(k->graph_id, 3);
  assert_true(k->graph_exec == 41);
  assert_int_equal(k->graph_kernels, 2);
  assert_int_equal(k->graph_signatures, 2);
  assert_int_equal(k->ngraph_names, 2);
  assert_string_equal(k->graph_names[1], "second");
  assert_int_equal(k->launches, 2);
  assert_string_equal(k->region, "step");
  assert_int_equal(k->device_ordinal, 0);
  /* Per launch: first kernel start to last kernel end (41 us); its time is
   * its kernels', so no share and no rank of its own. */
  assert_true(k->dur_median_ns == 41000.0 && k->total_ns == 82000.0);
  assert_true(isnan(k->time_share) && k->rank == 0);
  assert_int_equal(k->grid[0], 0); /* several kernels: no launch configuration */
  /* Its counters: each group from the launch that collected it. */
  assert_int_equal(k->profiled_launches, 2);
  assert_string_equal(k->replay, "rotate");
  assert_int_equal(k->passes, 1);
  assert_int_equal(k->groups, 3);
  assert_int_equal(k->groups_collected, 2);
  assert_true(k->groups_seen == 3u);
  assert_true(k->metric[PC_M_FFMA] == 16384.0);
  assert_true(k->metric[PC_M_DRAM_BYTES_READ] == 1048576.0 + 65536.0);
  assert_true(k->dram_cold);
  assert_true(isnan(k->metric[PC_M_STALL_LONG_SCOREBOARD])); /* group 3's: never collected */
  assert_null(k->not_measured_reason);
  assert_non_null(k->rotation_note);
  assert_non_null(strstr(k->rotation_note, "group 3 of 3 not collected"));
  assert_non_null(strstr(k->rotation_note, "launched 2 times"));
  /* Summed over two different kernels: no per-kernel verdict. */
  assert_int_equal(k->diag.verdict.cause, PERFCHECK_CAUSE_NOT_ASSESSED);
  assert_int_equal(k->diag.verdict.step, 2);
  assert_string_equal(k->diag.verdict.metric, "graph_launch.signatures");
  assert_true(k->diag.verdict.value == 2.0);
  assert_non_null(strstr(k->diag.verdict.advice, "cannot split it by node"));
  /* Its kernels keep their own times (the cuts are the host interval
   * around them, not over them) and point to it for counters. */
  assert_true(a->dur_median_ns == 20000.0 && a->total_ns == 40000.0);
  assert_true(b->dur_median_ns == 20000.0);
  assert_true(a->time_share == 0.5 && a->rank == 1);
  assert_string_equal(a->graph_entry, k->name);
  assert_string_equal(b->graph_entry, k->name);
  assert_int_equal(a->graph_id, 3);
  assert_true(a->graph_node == 11 && b->graph_node == 12);
  assert_non_null(strstr(a->not_measured_reason, "counters are in the entry \"graph 3 (2 kernels: first, second)\""));
  assert_int_equal(a->passes, 0);
  /* The region: busy 80 us; the profiling cut is each launch's 2 ms but
   * its kernels' 41 us. */
  const pc_region *g = region(r, "step");
  assert_float_equal(g->kernel_ns, 80e3, 0.5);
  assert_float_equal(g->profiling_ns, 2.0 * (2 * MS - 41 * US), 0.5);
  assert_int_equal(warned(r, "graphs: some graphs ran fewer times"), 1);
  assert_int_equal(warned(r, "graphs: a graph entry's counters are summed"), 1);
  assert_int_equal(warned(r, "counters of a launch whose kernel record never arrived"), 0);

  /* The report's JSON: the entry, its kernels' pointers, read back whole. */
  char *j = report_json(r);
  assert_non_null(strstr(j, "\"graph_launch\": {"));
  assert_non_null(strstr(j, "\"exec_id\": 41"));
  assert_non_null(strstr(j, "\"signatures\": 2"));
  assert_non_null(strstr(j, "\"entry\": \"graph 3 (2 kernels: first, second)\""));
  assert_non_null(strstr(j, "\"missing\": [\n"));
  perfcheck_report *back = NULL;
  assert_int_equal(perfcheck_report_from_json_text(j, strlen(j), "g.json", 1, &back), PERFCHECK_OK);
  const pc_report *rb = (const pc_report *)back;
  const pc_kernel *kb = graph_entry(rb);
  assert_true(kb->groups_seen == 3u && kb->graph_kernels == 2 && kb->graph_signatures == 2);
  assert_string_equal(kb->rotation_note, k->rotation_note);
  char *j2 = report_json(rb);
  assert_string_equal(j, j2);
  free(j), free(j2);
  perfcheck_report_destroy(back);
  /* The text report lists the graph with what is missing. */
  char *txt = NULL;
  size_t tn = 0;
  FILE *f = open_memstream(&txt, &tn);
  assert_int_equal(pc_write_text(r, f, NULL), PERFCHECK_OK);
  fclose(f);
  assert_non_null(strstr(txt, "CUDA graphs: counters per graph launch"));
  assert_non_null(strstr(txt, "2 launches, 2 kernels a launch (2 distinct); counters: 2 of 3 groups"));
  assert_non_null(strstr(txt, "    missing: group 3 of 3 not collected"));
  free(txt);
  /* The HTML page draws no roofline point for the graph: its legend says why. */
  f = open_memstream(&txt, &tn);
  assert_int_equal(perfcheck_report_write((const perfcheck_report *)r, PERFCHECK_FORMAT_HTML, f), PERFCHECK_OK);
  fclose(f);
  assert_non_null(strstr(txt, "its counters are every launch's sum over its 2 kernels"));
  free(txt);
  pc_report_free(r);
  round_trip(s); /* the graph signature and its launches survive the file */
  pc_snapshot_free(s);
}

/* A graph of one kernel signature in three nodes (a layer's three identical
 * GEMV kernels, say), launched three times: the sum is that kernel's over
 * its three launches, so the checklist judges it with the kernel's launch
 * configuration.  The second launch's turn fell on a group that needs 8
 * passes alone (a SOL row): never replayed, so not collected, and said. */
static void test_graph_one_kernel(void **state) {
  (void)state;
  pc_snapshot *s = new_snap("layer", 1);
  const uint32_t c = add_sig(s, "_Z4gemvPKfS0_Pf", 132, 128, 0);
  const uint32_t g = add_graph_sig(s, 9, 5);
  s->sigs[c].not_profiled = PC_NP_GRAPH;
  s->sigs[c].graph_id = 5;
  uint64_t t = T0;
  for (uint32_t i = 0; i < 3; i++) {
    const uint32_t corr = 700 + i;
    add_graph_launch(s, corr, g);
    for (uint32_t n = 0; n < 3; n++)
      add_launch(s, c, t + (100 + 30 * n) * US, t + (125 + 30 * n) * US, corr, PC_SNAP_GRAPH | PC_SNAP_CAPTURED);
    pc_snap_profiled *p = add_profiled(s, g, corr, t, t + MS, PC_NULL);
    p->passes = i == 1 ? 8 : 1, p->groups = 3, p->group = (int)i;
    if (i == 1) p->flags |= PC_SNAP_PROF_SKIPPED;
    if (i == 0) {
      p->values[PC_M_DRAM_BYTES_READ] = 3 * 67108864.0; /* three 64 MiB matrices */
      p->values[PC_M_DRAM_THROUGHPUT_PCT] = 91.0;
      p->flags |= PC_SNAP_PROF_COLD;
    }
    if (i == 2) { /* 3 x 64 MiB read coalesced, 3 x 528 B written */
      p->values[PC_M_ISSUE_ACTIVE] = 0.2;
      p->values[PC_M_WARPS_ACTIVE_PCT] = 60.0;
      p->values[PC_M_LD_SECTORS] = 3 * 2097152.0;
      p->values[PC_M_LD_REQUESTS] = 3 * 524288.0;
      p->values[PC_M_LD_BYTES_PER_SECTOR] = 32.0;
      p->values[PC_M_ST_SECTORS] = 3 * 17.0;
      p->values[PC_M_ST_REQUESTS] = 3 * 17.0;
      p->values[PC_M_ST_BYTES_PER_SECTOR] = 31.1;
      p->values[PC_M_LOCAL_LD_SECTORS] = p->values[PC_M_LOCAL_ST_SECTORS] = 0;
      p->values[PC_M_SHARED_BANK_CONFLICTS_LD] = 0;
      p->values[PC_M_SHARED_WAVEFRONTS_LD] = 3 * 4224.0;
      p->values[PC_M_L2_ATOM_REQUESTS] = p->values[PC_M_L2_RED_REQUESTS] = 0;
      p->values[PC_M_L2_REQUESTS] = 3 * 1572915.0;
      p->values[PC_M_THREAD_INST_PER_INST] = p->values[PC_M_THREAD_INST_PRED_ON_PER_INST] = 31.9;
    }
    t += 2 * MS;
  }
  s->begin_ts = T0 - MS;
  s->end_ts = t;
  s->launch_calls = 3;
  pc_report *r = build(s);
  const pc_kernel *k = graph_entry(r), *kc = kernel(r, "gemv", -1);
  assert_string_equal(k->name, "graph 5 (3 kernels: gemv)");
  assert_int_equal(k->graph_kernels, 3);
  assert_int_equal(k->graph_signatures, 1);
  /* One signature: its configuration and attributes are the entry's. */
  assert_int_equal(k->grid[0], 132);
  assert_int_equal(k->block[0], 128);
  assert_true(k->attr.registers_per_thread == kc->attr.registers_per_thread);
  assert_int_equal(k->profiled_launches, 2); /* the skipped one measured nothing */
  assert_int_equal(k->groups_collected, 2);
  assert_true(k->groups_seen == 5u); /* groups 1 and 3 */
  assert_non_null(strstr(k->rotation_note, "group 2 of 3 not collected"));
  assert_non_null(strstr(k->rotation_note, "1 needs up to 8 passes alone"));
  assert_null(strstr(k->rotation_note, "launched 3 times")); /* launches were not what was missing */
  assert_true(k->metric[PC_M_DRAM_BYTES_READ] == 3 * 67108864.0);
  /* Judged as that kernel: DRAM at 91% is its roof. */
  assert_int_equal(k->diag.verdict.cause, PERFCHECK_CAUSE_AT_ROOF);
  assert_int_equal(k->diag.bound, PERFCHECK_BOUND_MEMORY);
  assert_true(k->dur_median_ns == 85000.0); /* 100 to 185 us */
  assert_non_null(strstr(kc->not_measured_reason, "summed over the graph's 3 kernels"));
  assert_int_equal(kc->launches, 9);
  pc_report_free(r);
  round_trip(s); /* the skipped flag survives the file */

  /* Counters asked, but the set could not be split into one-pass groups:
   * the entry says why, and so do its kernels. */
  for (size_t i = 0; i < s->nprofiled; i++) free(s->profiled[i].extra);
  s->nprofiled = 0;
  s->sigs[g].not_profiled = PC_NP_GRAPH_GROUPS;
  r = build(s);
  k = graph_entry(r);
  kc = kernel(r, "gemv", -1);
  assert_int_equal(k->passes, 0);
  assert_non_null(strstr(k->not_measured_reason, "could not be split into one-pass groups"));
  assert_non_null(strstr(kc->not_measured_reason, "whose entry \"graph 5 (3 kernels: gemv)\" has no counters"));
  pc_report_free(r);
  round_trip(s); /* "graph_groups" is a reason the file knows */
  pc_snapshot_free(s);
}

/* The snapshot reader checks what a graph launch names. */
static void test_graph_reader(void **state) {
  (void)state;
  pc_snapshot *s = graph_snapshot();
  size_t n = 0;
  char *j = to_json(s, &n);
  assert_non_null(strstr(j, "\"graph_exec\": \"41\""));
  assert_non_null(strstr(j, "\"graph_launches\": [[500, 2], [501, 2]]"));
  /* A graph launch naming a kernel signature is refused. */
  char *bad = strdup(j);
  char *at = strstr(bad, "[[500, 2]");
  at[7] = '0';
  pc_snapshot *x = NULL;
  pc_err err = {0};
  assert_int_equal(pc_snapshot_from_json_text(bad, strlen(bad), "bad.json", &x, &err), PERFCHECK_ERROR_PARSE);
  assert_non_null(strstr(err.msg, "names no listed graph signature"));
  free(bad);
  /* A file from before graph counters (no graph_launches): no graph entry,
   * its kernels say why they have no counters. */
  char *old = strdup(j);
  char *gl = strstr(old, ",\n  \"graph_launches\": [");
  char *end = strstr(gl, "]],") + 2;
  memmove(gl, end, strlen(end) + 1);
  assert_int_equal(pc_snapshot_from_json_text(old, strlen(old), "old.json", &x, &err), PERFCHECK_OK);
  assert_int_equal(x->ngraph_launches, 0);
  pc_report *r = build(x);
  assert_int_equal(r->nkernels, 2);
  assert_non_null(strstr(kernel(r, "first", -1)->not_measured_reason, "lists no graph launch"));
  pc_report_free(r);
  pc_snapshot_free(x);
  free(old);
  free(j);
  pc_snapshot_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cut_clock),          cmocka_unit_test(test_launch_loop_both_modes),
      cmocka_unit_test(test_mystery_verdicts),   cmocka_unit_test(test_nested_and_graph),
      cmocka_unit_test(test_profiled_without_result), cmocka_unit_test(test_devices),
      cmocka_unit_test(test_earlier_run_counters),
      cmocka_unit_test(test_counters_from_another_region),
      cmocka_unit_test(test_json_round_trip),    cmocka_unit_test(test_reader_rejects),
      cmocka_unit_test(test_report_tool_fields), cmocka_unit_test(test_file_names),
      cmocka_unit_test(test_rotation_entries),   cmocka_unit_test(test_host_cut),   cmocka_unit_test(test_graph_node),
      cmocka_unit_test(test_graph_entries),      cmocka_unit_test(test_graph_one_kernel),
      cmocka_unit_test(test_graph_reader),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
