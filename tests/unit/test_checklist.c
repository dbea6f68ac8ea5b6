/* The checklist (pc_checklist.c): thresholds, derived values, the walk, on
 * seed 000's T4 numbers and on edge cases. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "model/pc_core.h"
#include "write/pc_html.h"
#include "check/pc_check.h"

#define assert_near(a, b, eps)                                                                  \
  do {                                                                                          \
    double a_ = (a), b_ = (b);                                                                  \
    if (!(fabs(a_ - b_) <= (eps))) fail_msg("%s = %.9g, expected %.9g (+-%g)", #a, a_, b_, (double)(eps)); \
  } while (0)

#define SPR_LD "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum / l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
#define SPR_ST "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum / l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"
#define TPI "smsp__average_thread_inst_executed_per_inst_executed.ratio"
#define ACHIEVED "sm__warps_active.avg.pct_of_peak_sustained_active"
#define SM_SOL "sm__throughput.avg.pct_of_peak_sustained_elapsed"

/* ---- the T4 of seed 000 ------------------------------------------------------ */

/* Seed 003 gives 40 SMs, 1024 threads and 16 blocks per SM; seed 002 65,536
 * registers and 64 KiB of shared memory per SM; seed 000 the ridge point day
 * 30 measured, 33.09 FLOP per byte.  The peaks themselves are not in the
 * seeds: left unknown. */
static pc_device t4(void) {
  pc_device d;
  pc_device_init(&d);
  snprintf(d.name, sizeof d.name, "Tesla T4");
  d.cc_major = 7, d.cc_minor = 5, d.sm_count = 40, d.warp_size = 32;
  d.max_threads_per_sm = 1024, d.max_threads_per_block = 1024, d.max_blocks_per_sm = 16;
  d.max_regs_per_sm = 65536, d.max_regs_per_block = 65536;
  d.max_smem_per_sm = 65536, d.max_smem_per_block = 49152, d.max_smem_per_block_optin = 65536;
  pc_device_fill_granularities(&d);
  d.ridge_flop_per_byte = 33.09;
  return d;
}

/* The four launches of seed 000's mystery.cu.  What the seed states:
 *   4,194,304 elements, one thread each; blocks of 256 threads (Part 1: 4
 *   blocks = 32 warps per SM), so 16,384 blocks; one float in, one out.
 *   mysteryA: one fmaf per element; mysteryB/C: 1024 FMAs per thread.
 *   FLOP/byte (Part 2): 0.250 and 256.000, which these counts reproduce:
 *   A: 2 x 4,194,304 / (2 x 4 x 4,194,304) = 0.25; B/C: 1024 x that = 256.
 *   Part 1 (registers, shared memory, blocks/SM, warps/SM, occupancy), the
 *   report numbers (sectors per request, threads per instruction, achieved
 *   occupancy), and mysteryC 0 B at 99.24% compute throughput.
 * Requests are one per warp-wide load (4,194,304 / 32 = 131,072) and
 * sectors are the seed's ratio times that.  Everything else stays NaN. */
enum { MYSTERY_A, MYSTERY_B, MYSTERY_C48000, MYSTERY_C0 };

static const double kElements = 4194304.0;
static const double kRequests = 4194304.0 / 32;

static void mystery(pc_kernel *k, int which, int with_intensity) {
  pc_kernel_init(k);
  k->grid[0] = 16384, k->grid[1] = 1, k->grid[2] = 1;
  k->block[0] = 256, k->block[1] = 1, k->block[2] = 1;
  k->launches = 1;
  k->attr.static_smem = 0;
  k->attr.blocks_per_sm = 4;
  k->attr.warps_per_sm = 32;
  k->attr.theoretical_occupancy_pct = 100.0;
  k->dynamic_smem = 0;
  k->attr.dynamic_smem = 0;
  double spr_ld = 4.00, spr_st = 4.00, tpi = 32, achieved = 0, fma_per_thread = 1024;
  switch (which) {
    case MYSTERY_A:
      k->attr.registers_per_thread = 8;
      spr_ld = 31.91, spr_st = 32.00, achieved = 81.90, fma_per_thread = 1;
      break;
    case MYSTERY_B:
      k->attr.registers_per_thread = 14;
      tpi = 16.21, achieved = 98.18;
      break;
    case MYSTERY_C48000:
      k->attr.registers_per_thread = 14;
      k->dynamic_smem = k->attr.dynamic_smem = 48000;
      k->attr.blocks_per_sm = 1, k->attr.warps_per_sm = 8, k->attr.theoretical_occupancy_pct = 25.0;
      achieved = 24.82;
      break;
    case MYSTERY_C0:
      k->attr.registers_per_thread = 14;
      achieved = 86.29;
      k->metric[PC_M_SM_THROUGHPUT_PCT] = 99.24;
      break;
  }
  k->metric[PC_M_LD_REQUESTS] = kRequests;
  k->metric[PC_M_LD_SECTORS] = spr_ld * kRequests;
  k->metric[PC_M_ST_REQUESTS] = kRequests;
  k->metric[PC_M_ST_SECTORS] = spr_st * kRequests;
  k->metric[PC_M_THREAD_INST_PER_INST] = tpi;
  k->metric[PC_M_WARPS_ACTIVE_PCT] = achieved;
  if (with_intensity) {
    k->metric[PC_M_FFMA] = fma_per_thread * kElements;
    k->metric[PC_M_FADD] = k->metric[PC_M_FMUL] = 0; /* fmaf only */
    k->metric[PC_M_DRAM_BYTES_READ] = 4 * kElements;
    k->metric[PC_M_DRAM_BYTES_WRITE] = 4 * kElements;
  }
}

static const pc_finding *find_cause(const pc_kernel *k, perfcheck_cause cause) {
  for (size_t i = 0; i < k->diag.nfindings; i++)
    if (k->diag.findings[i].cause == cause) return &k->diag.findings[i];
  return NULL;
}

static int count_cause(const pc_kernel *k, perfcheck_cause cause) {
  int n = 0;
  for (size_t i = 0; i < k->diag.nfindings; i++) n += k->diag.findings[i].cause == cause;
  return n;
}

/* Findings are ordered: hits, then notes, then not_assessed. */
static void check_finding_order(const pc_diagnosis *dg) {
  int seen_missing = 0;
  for (size_t i = 0; i < dg->nfindings; i++) {
    if (dg->findings[i].cause == PERFCHECK_CAUSE_NOT_ASSESSED)
      seen_missing = 1;
    else if (seen_missing)
      fail_msg("finding %zu (%s) after a not_assessed one", i, perfcheck_cause_name(dg->findings[i].cause));
    assert_true(strlen(dg->findings[i].advice) > 0);
    assert_true(dg->findings[i].step >= 1 && dg->findings[i].step <= 5);
  }
}

/* ---- thresholds ------------------------------------------------------------ */

static void test_thresholds_table(void **state) {
  (void)state;
  size_t n = 0;
  const pc_threshold *t = pc_thresholds(&n);
  assert_non_null(t);
  assert_true(n >= 10);
  for (size_t i = 0; i < n; i++) {
    assert_non_null(t[i].key);
    assert_true(strlen(t[i].meaning) > 10);
    assert_true(strlen(t[i].source) > 3);
    assert_false(isnan(t[i].value));
    for (size_t j = i + 1; j < n; j++)
      if (strcmp(t[i].key, t[j].key) == 0) fail_msg("threshold key %s twice", t[i].key);
    assert_near(pc_threshold_value(t[i].key), t[i].value, 0);
  }
  assert_near(pc_threshold_value("sectors_per_request_max"), 4, 0);
  assert_near(pc_threshold_value("threads_per_instruction_min"), 24, 0);
  assert_near(pc_threshold_value("achieved_occupancy_low_pct"), 60, 0);
  assert_near(pc_threshold_value("kernel_share_min"), 0.5, 0);
  assert_near(pc_threshold_value("at_roof_pct"), 80, 0);
  assert_near(pc_threshold_value("bank_conflict_share_max"), 0.10, 0);
  assert_near(pc_threshold_value("waves_min"), 1, 0);
  assert_true(isnan(pc_threshold_value("no_such_threshold")));
  assert_true(isnan(pc_threshold_value(NULL)));
  assert_non_null(pc_thresholds(NULL));
}

/* ---- derived values --------------------------------------------------------- */

static void test_derive_ratios(void **state) {
  (void)state;
  pc_device d = t4();
  pc_kernel k;
  pc_kernel_init(&k);
  k.metric[PC_M_LD_SECTORS] = 400;
  k.metric[PC_M_LD_REQUESTS] = 100;
  k.metric[PC_M_ST_SECTORS] = 0;
  k.metric[PC_M_ST_REQUESTS] = 0; /* no stores: 0 / 0 is not a number */
  pc_derive(&k, &d);
  assert_near(k.derived.sectors_per_request_ld, 4.0, 0);
  assert_true(isnan(k.derived.sectors_per_request_st));

  k.metric[PC_M_LD_SECTORS] = -5; /* an impossible count is unknown */
  k.metric[PC_M_ST_SECTORS] = 300;
  k.metric[PC_M_ST_REQUESTS] = -1;
  k.metric[PC_M_WARPS_ACTIVE_PCT] = -3;
  k.metric[PC_M_THREAD_INST_PER_INST] = -1;
  pc_derive(&k, &d);
  assert_true(isnan(k.derived.sectors_per_request_ld));
  assert_true(isnan(k.derived.sectors_per_request_st));
  assert_true(isnan(k.derived.achieved_occupancy_pct));
  assert_true(isnan(k.derived.threads_per_instruction));

  /* Shared and local. */
  k.metric[PC_M_SHARED_BANK_CONFLICTS_LD] = 50;
  k.metric[PC_M_SHARED_WAVEFRONTS_LD] = 200;
  k.metric[PC_M_LOCAL_LD_SECTORS] = 7;
  pc_derive(&k, &d);
  assert_near(k.derived.bank_conflict_share, 0.25, 0);
  assert_near(k.derived.local_sectors, 7, 0); /* the measured term only */
  k.metric[PC_M_LOCAL_ST_SECTORS] = 3;
  pc_derive(&k, &d);
  assert_near(k.derived.local_sectors, 10, 0);

  /* Atomics: (atom + red) / (ld + st requests + atom + red). */
  k.metric[PC_M_LD_REQUESTS] = 600;
  k.metric[PC_M_ST_REQUESTS] = 200;
  k.metric[PC_M_L2_ATOM_REQUESTS] = 150;
  pc_derive(&k, &d);
  assert_true(isnan(k.derived.atomic_share)); /* red not measured */
  k.metric[PC_M_L2_RED_REQUESTS] = 50;
  pc_derive(&k, &d);
  assert_near(k.derived.atomic_share, 200.0 / 1000.0, 1e-12);
  pc_kernel_free(&k);
}

static void test_derive_flops_and_ceilings(void **state) {
  (void)state;
  pc_device d = t4();
  d.peak_dram_bytes_per_s = 320e9;
  d.peak_fp32_flop_per_s = 8e12;
  pc_kernel k;
  pc_kernel_init(&k);
  /* No FP32 counter: flops unknown even with an FP64 one. */
  k.metric[PC_M_DFMA] = 100;
  pc_derive(&k, &d);
  assert_true(isnan(k.derived.flops));
  /* FMA = 2.  The three FP32 counts are all needed: FFMA alone, or FADD
   * and FMUL without FFMA, is a smaller number than the kernel's FLOPs,
   * never a measurement. */
  k.metric[PC_M_FFMA] = 1000;
  pc_derive(&k, &d);
  assert_true(isnan(k.derived.flops));
  k.metric[PC_M_FFMA] = PC_NULL, k.metric[PC_M_FADD] = 10, k.metric[PC_M_FMUL] = 20;
  pc_derive(&k, &d);
  assert_true(isnan(k.derived.flops));
  /* All three, with an FP64 triple measured in part (DFMA only): unknown. */
  k.metric[PC_M_FFMA] = 1000;
  pc_derive(&k, &d);
  assert_true(isnan(k.derived.flops));
  /* Each of FP64 and FP16 added when measured whole, left out when none of
   * it was (the default set collects neither), never in part. */
  k.metric[PC_M_DFMA] = PC_NULL;
  pc_derive(&k, &d);
  assert_near(k.derived.flops, 2000 + 10 + 20, 0);
  k.metric[PC_M_DFMA] = 100, k.metric[PC_M_DADD] = 0, k.metric[PC_M_DMUL] = 0;
  k.metric[PC_M_HADD] = 5, k.metric[PC_M_HFMA] = 1;
  pc_derive(&k, &d);
  assert_true(isnan(k.derived.flops)); /* HMUL missing */
  k.metric[PC_M_HMUL] = 0;
  pc_derive(&k, &d);
  assert_near(k.derived.flops, 2000 + 10 + 20 + 200 + 5 + 2, 0);
  /* A NaN or negative FP32 count is no count. */
  k.metric[PC_M_FFMA] = -1;
  pc_derive(&k, &d);
  assert_true(isnan(k.derived.flops) && isnan(k.derived.gflops) && isnan(k.derived.arithmetic_intensity));
  k.metric[PC_M_FFMA] = 1000;
  /* DRAM bytes need both directions. */
  k.metric[PC_M_DRAM_BYTES_READ] = 1000;
  pc_derive(&k, &d);
  assert_true(isnan(k.derived.dram_bytes));
  assert_true(isnan(k.derived.arithmetic_intensity));
  k.metric[PC_M_DRAM_BYTES_WRITE] = 1000;
  pc_derive(&k, &d);
  assert_near(k.derived.dram_bytes, 2000, 0);
  assert_near(k.derived.arithmetic_intensity, 2237.0 / 2000, 1e-12);
  /* No duration: no rates, no rate-based percentages. */
  assert_true(isnan(k.derived.dram_gbps));
  assert_true(isnan(k.derived.memory_pct));
  assert_true(isnan(k.derived.compute_pct));
  /* 2000 bytes in 10 ns = 200 GB/s = 62.5% of 320 GB/s. */
  k.metric[PC_M_DURATION] = 10;
  pc_derive(&k, &d);
  assert_near(k.derived.dram_gbps, 200, 1e-9);
  assert_near(k.derived.gflops, 223.7, 1e-9);
  assert_near(k.derived.memory_pct, 62.5, 1e-9);
  assert_near(k.derived.compute_pct, 223.7e9 / 8e12 * 100, 1e-9);
  /* The largest measured percentage wins. */
  k.metric[PC_M_DRAM_THROUGHPUT_PCT] = 70;
  k.metric[PC_M_MEM_THROUGHPUT_PCT] = 65;
  k.metric[PC_M_ISSUE_ACTIVE] = 0.45;
  pc_derive(&k, &d);
  assert_near(k.derived.memory_pct, 70, 0);
  assert_near(k.derived.compute_pct, 45, 1e-9);
  /* A rate above throughput_pct_trusted_max (105%) is left out like a
   * counter's: 2237 FLOP in 0.1 ns is 280% of 8 TFLOP/s (a count and a
   * duration from launches that did different work, as rotation can mix). */
  k.metric[PC_M_ISSUE_ACTIVE] = PC_NULL;
  k.metric[PC_M_DURATION] = 0.1;
  pc_derive(&k, &d);
  assert_near(k.derived.gflops, 22370, 1e-6);
  assert_true(isnan(k.derived.compute_pct));
  k.metric[PC_M_ISSUE_ACTIVE] = 0.45;
  pc_derive(&k, &d);
  assert_near(k.derived.compute_pct, 45, 1e-9); /* the issue slots, not 280% */
  /* Zero duration or zero bytes: no division by zero. */
  k.metric[PC_M_DURATION] = 0;
  k.metric[PC_M_DRAM_BYTES_READ] = k.metric[PC_M_DRAM_BYTES_WRITE] = 0;
  pc_derive(&k, &d);
  assert_true(isnan(k.derived.dram_gbps));
  assert_true(isnan(k.derived.arithmetic_intensity));
  pc_kernel_free(&k);
}

static void test_derive_occupancy_and_waves(void **state) {
  (void)state;
  pc_device d = t4();
  pc_kernel k;
  mystery(&k, MYSTERY_C48000, 1);
  pc_derive(&k, &d);
  assert_near(k.derived.theoretical_occupancy_pct, 25, 0);
  assert_near(k.derived.waves_per_sm, 16384.0 / 40, 1e-9);
  assert_near(k.derived.arithmetic_intensity, 256, 1e-9);
  /* Without the attributes' occupancy, the model answers. */
  k.attr.blocks_per_sm = PC_NULL;
  k.attr.theoretical_occupancy_pct = PC_NULL;
  pc_derive(&k, &d);
  assert_near(k.derived.theoretical_occupancy_pct, 25, 0);
  assert_near(k.derived.waves_per_sm, 16384.0 / 40, 1e-9);
  /* The attributes' waves win. */
  k.attr.waves_per_sm = 3.5;
  pc_derive(&k, &d);
  assert_near(k.derived.waves_per_sm, 3.5, 0);
  pc_kernel_free(&k);
  mystery(&k, MYSTERY_A, 1);
  pc_derive(&k, &d);
  assert_near(k.derived.arithmetic_intensity, 0.25, 1e-12);
  assert_near(k.derived.waves_per_sm, 16384.0 / (4 * 40), 1e-9);
  /* In process over one pass the DRAM bytes are one run's: kept. */
  k.passes = 1;
  k.metric[PC_M_DURATION] = 100000;
  pc_derive(&k, &d);
  assert_near(k.derived.arithmetic_intensity, 0.25, 1e-12);
  assert_true(k.derived.dram_gbps > 0);
  /* Over six (the default set on GH100) later passes see a warm L2 and the
   * restore's write-backs: intensity and bandwidth unknown, FLOP/s kept. */
  k.passes = 6;
  pc_derive(&k, &d);
  assert_true(isnan(k.derived.arithmetic_intensity));
  assert_true(isnan(k.derived.dram_gbps));
  assert_true(k.derived.gflops > 0);
  /* The roofline still places it, from those warm bytes, hollow and said so. */
  pc_roof_point pt;
  pc_roof_point_set(&pt, 0, "mysteryA", &k);
  assert_true(pc_roof_point_drawn(&pt));
  assert_true(pt.approx && pt.note);
  assert_near(pt.ai, k.derived.flops / k.derived.dram_bytes, 1e-12);
  assert_near(pt.gflops, k.derived.flops / 100000, 1e-12);
  assert_non_null(strstr(pt.why, "approximate: DRAM bytes of a 6-pass kernel replay, not a cold run"));
  pc_kernel_free(&k);
}

/* ---- seed 000 ---------------------------------------------------------------- */

static void test_seed000_mysteryA(void **state) {
  (void)state;
  pc_device d = t4();
  for (int ai = 1; ai >= 0; ai--) {
    pc_kernel k;
    mystery(&k, MYSTERY_A, ai);
    pc_checklist_kernel(&k, &d, NULL);
    const pc_finding *v = &k.diag.verdict;
    assert_int_equal(v->step, 3);
    assert_int_equal(v->cause, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS);
    assert_string_equal(v->metric, SPR_LD);
    assert_near(v->value, 31.91, 1e-9);
    /* The seed's export has no bytes per sector: sectors per request decide,
     * and 31.91 is above what any coalesced width needs (16 for 16-byte
     * lanes), so the kernel is uncoalesced whatever its access width. */
    assert_near(v->threshold, 16, 0);
    assert_non_null(strstr(v->advice, "consecutive addresses"));
    assert_non_null(strstr(v->advice, "sectors_per_request_vector_max"));
    /* 0.25 FLOP/byte is left of the 33.09 ridge: memory; without the
     * intensity nothing decides step 2, and step 3 still runs. */
    assert_int_equal(k.diag.bound, ai ? PERFCHECK_BOUND_MEMORY : PERFCHECK_BOUND_UNKNOWN);
    const pc_finding *st = find_cause(&k, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_STORES);
    assert_non_null(st);
    assert_int_equal(st->step, 3);
    assert_string_equal(st->metric, SPR_ST);
    assert_near(st->value, 32.0, 1e-9);
    assert_ptr_equal(&k.diag.findings[0], st); /* the most important finding first */
    /* Local, shared and atomic counters are not in the seed. */
    assert_true(count_cause(&k, PERFCHECK_CAUSE_NOT_ASSESSED) >= 3);
    assert_null(find_cause(&k, PERFCHECK_CAUSE_DIVERGENT_WARPS));
    assert_null(find_cause(&k, PERFCHECK_CAUSE_GRID_TOO_SMALL));
    check_finding_order(&k.diag);
    pc_kernel_free(&k);
  }
}

/* mysteryA with the counter that ncu's rule rests on: lanes 2048 floats
 * apart use 4 bytes of each 32-byte sector they fetch (and store). */
static void test_mysteryA_bytes_per_sector(void **state) {
  (void)state;
  pc_device d = t4();
  pc_kernel k;
  mystery(&k, MYSTERY_A, 1);
  k.metric[PC_M_LD_BYTES_PER_SECTOR] = 4.0;
  k.metric[PC_M_ST_BYTES_PER_SECTOR] = 4.0;
  pc_checklist_kernel(&k, &d, NULL);
  const pc_finding *v = &k.diag.verdict;
  assert_int_equal(v->step, 3);
  assert_int_equal(v->cause, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS);
  assert_string_equal(v->metric, "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio");
  assert_near(v->value, 4.0, 0);
  assert_near(v->threshold, 16, 0);
  assert_non_null(strstr(v->advice, "only 4.0 of every 32 bytes"));
  const pc_finding *st = find_cause(&k, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_STORES);
  assert_non_null(st);
  assert_string_equal(st->metric, "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio");
  pc_kernel_free(&k);
}

static void test_seed000_mysteryB(void **state) {
  (void)state;
  pc_device d = t4();
  for (int ai = 1; ai >= 0; ai--) {
    pc_kernel k;
    mystery(&k, MYSTERY_B, ai);
    pc_checklist_kernel(&k, &d, NULL);
    const pc_finding *v = &k.diag.verdict;
    assert_int_equal(v->step, 4);
    assert_int_equal(v->cause, PERFCHECK_CAUSE_DIVERGENT_WARPS);
    assert_string_equal(v->metric, TPI);
    assert_near(v->value, 16.21, 1e-12);
    assert_near(v->threshold, 24, 0);
    assert_int_equal(k.diag.bound, ai ? PERFCHECK_BOUND_COMPUTE : PERFCHECK_BOUND_UNKNOWN);
    /* Sectors per request are at their floor of 4: never a finding. */
    assert_null(find_cause(&k, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS));
    assert_null(find_cause(&k, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_STORES));
    /* Compute bound: step 3 is skipped, so its missing counters are not
     * asked for; and step 1 is the region's, never a kernel's finding. */
    if (ai) assert_int_equal(count_cause(&k, PERFCHECK_CAUSE_NOT_ASSESSED), 0);
    check_finding_order(&k.diag);
    pc_kernel_free(&k);
  }
}

static void test_seed000_mysteryC_48000(void **state) {
  (void)state;
  pc_device d = t4();
  for (int ai = 1; ai >= 0; ai--) {
    pc_kernel k;
    mystery(&k, MYSTERY_C48000, ai);
    pc_checklist_kernel(&k, &d, NULL);
    const pc_finding *v = &k.diag.verdict;
    assert_int_equal(v->step, 5);
    assert_int_equal(v->cause, PERFCHECK_CAUSE_OCCUPANCY_SHARED_MEMORY);
    assert_string_equal(v->metric, ACHIEVED);
    assert_near(v->value, 24.82, 1e-12);
    assert_near(v->threshold, 60, 0);
    assert_non_null(strstr(v->advice, "1 block(s) per SM"));
    assert_non_null(strstr(v->advice, "25%"));
    assert_null(find_cause(&k, PERFCHECK_CAUSE_DIVERGENT_WARPS));
    check_finding_order(&k.diag);
    pc_kernel_free(&k);
  }
  /* The binding limiter from the attributes' own limits (as ncu exports). */
  pc_kernel k;
  mystery(&k, MYSTERY_C48000, 1);
  k.attr.limit_warps = 4, k.attr.limit_blocks = 16, k.attr.limit_registers = 16, k.attr.limit_shared_mem = 1;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_OCCUPANCY_SHARED_MEMORY);
  /* ... and from the attributes' named limiter. */
  k.attr.binding = PC_LIMIT_REGISTERS;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_OCCUPANCY_REGISTERS);
  pc_kernel_free(&k);
  /* The driver says 2 blocks per SM, the model 1, nothing names the limiter:
   * the mismatch is said, never guessed over. */
  mystery(&k, MYSTERY_C48000, 1);
  k.attr.blocks_per_sm = 2, k.attr.theoretical_occupancy_pct = 50;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_NOT_ASSESSED);
  assert_int_equal(k.diag.verdict.step, 5);
  assert_string_equal(k.diag.verdict.metric, "launch__occupancy_limit_*");
  const pc_finding *f = NULL;
  for (size_t i = 0; i < k.diag.nfindings; i++)
    if (k.diag.findings[i].cause == PERFCHECK_CAUSE_NOT_ASSESSED && k.diag.findings[i].step == 5) f = &k.diag.findings[i];
  assert_non_null(f);
  assert_non_null(strstr(f->advice, "model disagrees"));
  pc_kernel_free(&k);
}

static void test_seed000_mysteryC_0(void **state) {
  (void)state;
  pc_device d = t4();
  for (int ai = 1; ai >= 0; ai--) {
    pc_kernel k;
    mystery(&k, MYSTERY_C0, ai);
    pc_checklist_kernel(&k, &d, NULL);
    const pc_finding *v = &k.diag.verdict;
    assert_int_equal(v->step, 0);
    assert_int_equal(v->cause, PERFCHECK_CAUSE_AT_ROOF);
    assert_string_equal(v->metric, SM_SOL);
    assert_near(v->value, 99.24, 1e-12);
    assert_near(v->threshold, 80, 0);
    assert_int_equal(k.diag.bound, PERFCHECK_BOUND_COMPUTE);
    assert_null(find_cause(&k, PERFCHECK_CAUSE_OCCUPANCY_SHARED_MEMORY));
    check_finding_order(&k.diag);
    pc_kernel_free(&k);
  }
  /* Without the 99.24% the walk passes every step but cannot tell at_roof
   * from latency_bound: it must not claim at_roof. */
  pc_kernel k;
  mystery(&k, MYSTERY_C0, 1);
  k.metric[PC_M_SM_THROUGHPUT_PCT] = PC_NULL;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.bound, PERFCHECK_BOUND_COMPUTE); /* from the roofline */
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_NOT_ASSESSED);
  assert_int_equal(k.diag.verdict.step, 2);
  assert_non_null(strstr(k.diag.verdict.advice, "dram__throughput"));
  pc_kernel_free(&k);
}

/* ---- the contract's two traps ----------------------------------------------- */

static void test_trap_divergent_at_96_percent(void **state) {
  (void)state;
  pc_device d = t4();
  pc_kernel k;
  mystery(&k, MYSTERY_B, 0);
  k.metric[PC_M_SM_THROUGHPUT_PCT] = 96.0;
  k.metric[PC_M_DRAM_THROUGHPUT_PCT] = 3.0;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.bound, PERFCHECK_BOUND_COMPUTE);
  assert_int_equal(k.diag.verdict.step, 4);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_DIVERGENT_WARPS);
  pc_kernel_free(&k);
}

static void test_trap_one_block_grid(void **state) {
  (void)state;
  pc_device d = t4();
  pc_kernel k;
  mystery(&k, MYSTERY_C0, 1);
  k.grid[0] = 1; /* achieved occupancy still reads well: only one SM was active */
  /* ncu's SM speed of light is of elapsed cycles over every SM: one busy SM
   * of 40 reads 2.5%; its FMA pipe, normalized by its active cycles, 99%. */
  k.metric[PC_M_SM_THROUGHPUT_PCT] = 99.24 / 40;
  k.metric[PC_M_PIPE_FMA_PCT] = 99.0;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.step, 5);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_GRID_TOO_SMALL);
  assert_string_equal(k.diag.verdict.metric, "launch__waves_per_multiprocessor");
  assert_near(k.diag.verdict.value, 1.0 / 160, 1e-12);
  assert_near(k.diag.verdict.threshold, 1, 0);
  pc_kernel_free(&k);

  /* The grid is judged after the roofs: 38 blocks on 40 SMs whose GPU-wide
   * SM throughput is at 88% (a cuDNN weight-gradient kernel ran 126 blocks
   * on 132 SMs at 88% of its tensor pipe) is at its roof, not too small;
   * the small grid is a note. */
  mystery(&k, MYSTERY_C0, 1);
  k.grid[0] = 38;
  k.metric[PC_M_SM_THROUGHPUT_PCT] = 88;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_AT_ROOF);
  assert_non_null(find_cause(&k, PERFCHECK_CAUSE_GRID_TOO_SMALL));
  /* The same with only an active-cycle pipe metric: 99% of the FMA pipe on
   * 38 of 40 SMs is 94% of the GPU's, at its roof. */
  k.metric[PC_M_SM_THROUGHPUT_PCT] = PC_NULL;
  k.metric[PC_M_PIPE_FMA_PCT] = 99;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_AT_ROOF);
  /* On 10 of 40 SMs the same pipe is a quarter of the GPU's: too small. */
  k.grid[0] = 10;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_GRID_TOO_SMALL);
  pc_kernel_free(&k);
  /* ncu's own waves value is used when present: 80 blocks on the T4's 40
   * SMs in half a wave, 30% achieved. */
  mystery(&k, MYSTERY_C0, 1);
  k.grid[0] = 80;
  k.attr.waves_per_sm = 0.5;
  k.metric[PC_M_WARPS_ACTIVE_PCT] = 30;
  k.metric[PC_M_SM_THROUGHPUT_PCT] = 45; /* half a wave: no unit near its roof */
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_GRID_TOO_SMALL);
  assert_near(k.diag.verdict.value, 0.5, 0);
  /* A block on every SM and a healthy achieved occupancy in that one wave
   * (torch's top-k: 1024 blocks, 0.97 waves, 90.6%): not too small, a note. */
  k.attr.waves_per_sm = 0.97;
  k.metric[PC_M_WARPS_ACTIVE_PCT] = 90.6;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_not_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_GRID_TOO_SMALL);
  const pc_finding *gn = find_cause(&k, PERFCHECK_CAUSE_GRID_TOO_SMALL);
  assert_non_null(gn);
  assert_near(gn->value, 0.97, 0);
  pc_kernel_free(&k);
  /* Fewer blocks than SMs comes before step 3: torch's nll_loss forward,
   * one block of 512 threads reading 9.6 bytes a sector, is grid_too_small. */
  mystery(&k, MYSTERY_A, 1);
  k.grid[0] = 1, k.block[0] = 512;
  k.metric[PC_M_LD_BYTES_PER_SECTOR] = 9.6, k.metric[PC_M_ST_BYTES_PER_SECTOR] = 4;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_GRID_TOO_SMALL);
  assert_non_null(find_cause(&k, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS));
  pc_kernel_free(&k);
}

/* ---- other verdicts ----------------------------------------------------------- */

/* A kernel that passes steps 3-5 with every counter measured. */
static void clean_kernel(pc_kernel *k) {
  mystery(k, MYSTERY_C0, 1);
  k->metric[PC_M_LOCAL_LD_SECTORS] = 0;
  k->metric[PC_M_LOCAL_ST_SECTORS] = 0;
  k->metric[PC_M_SHARED_BANK_CONFLICTS_LD] = 0;
  k->metric[PC_M_SHARED_WAVEFRONTS_LD] = 0;
  k->metric[PC_M_L2_ATOM_REQUESTS] = 0;
  k->metric[PC_M_L2_RED_REQUESTS] = 0;
  k->metric[PC_M_THREAD_INST_PRED_ON_PER_INST] = 31.5;
  k->metric[PC_M_DRAM_THROUGHPUT_PCT] = 5;
}

static void test_latency_bound(void **state) {
  (void)state;
  pc_device d = t4();
  pc_kernel k;
  clean_kernel(&k);
  k.metric[PC_M_SM_THROUGHPUT_PCT] = 40;
  k.metric[PC_M_DRAM_THROUGHPUT_PCT] = 30;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.bound, PERFCHECK_BOUND_LATENCY);
  assert_int_equal(k.diag.verdict.step, 0);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_LATENCY_BOUND);
  assert_near(k.diag.verdict.value, 40, 0);
  assert_string_equal(k.diag.verdict.metric, SM_SOL);
  assert_non_null(strstr(k.diag.verdict.advice, "stall reasons"));
  /* Every step's counters were there; the roofs were not all: ncu's SM row
   * covers the pipes, but of the memory levels only DRAM was measured, so
   * "no unit near its roof" did not see L2 or L1: one step-2 note names them
   * (the verdict stands).  Nothing else is not assessed but step 1. */
  const pc_finding *note = NULL;
  for (size_t i = 0; i < k.diag.nfindings; i++) {
    if (k.diag.findings[i].cause != PERFCHECK_CAUSE_NOT_ASSESSED) continue;
    if (k.diag.findings[i].step == 2) {
      assert_null(note);
      note = &k.diag.findings[i];
    } else {
      assert_int_equal(k.diag.findings[i].step, 1);
    }
  }
  assert_non_null(note);
  assert_string_equal(note->metric, "lts__throughput.avg.pct_of_peak_sustained_elapsed");
  assert_non_null(strstr(note->advice, ": L2, L1/shared memory were not measured, so a roof there would not show"));
  /* With ncu's memory row measured too, every roof is covered: no note. */
  pc_kernel_free(&k);
  clean_kernel(&k);
  k.metric[PC_M_SM_THROUGHPUT_PCT] = 40;
  k.metric[PC_M_DRAM_THROUGHPUT_PCT] = 30;
  k.metric[PC_M_MEM_THROUGHPUT_PCT] = 35;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_LATENCY_BOUND);
  for (size_t i = 0; i < k.diag.nfindings; i++)
    if (k.diag.findings[i].cause == PERFCHECK_CAUSE_NOT_ASSESSED) assert_int_equal(k.diag.findings[i].step, 1);
  pc_kernel_free(&k);
}

/* The in-process default set on the H200 (Triton's layer_norm,
 * docs/measurements/2026-12-02-h200 section 3): DRAM 78.6%, L2 by its
 * sectors 50.9%, L1 by its LSU wavefronts 50.4%, the ALU and tensor pipes,
 * issue 43%, no speed-of-light row.  ncu's lts__throughput was 87.7%.  The
 * verdict (latency_bound, borderline) comes with a note naming every roof
 * the set did not measure. */
static void test_unmeasured_roofs_default_set(void **state) {
  (void)state;
  pc_device d = t4();
  pc_kernel k;
  clean_kernel(&k);
  k.metric[PC_M_SM_THROUGHPUT_PCT] = PC_NULL;
  k.metric[PC_M_DRAM_THROUGHPUT_PCT] = 78.6;
  k.metric[PC_M_L2_SECTORS_PCT] = 50.9;
  k.metric[PC_M_L1_WAVEFRONTS_PCT] = 50.4;
  k.metric[PC_M_PIPE_ALU_PCT] = 30.3;
  k.metric[PC_M_PIPE_TENSOR_PCT] = 0.94;
  k.metric[PC_M_ISSUE_ACTIVE] = 0.43;
  k.metric[PC_M_DRAM_BYTES_READ] = PC_NULL; /* no intensity: no FP32 rate row */
  k.metric[PC_M_DRAM_BYTES_WRITE] = PC_NULL;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_LATENCY_BOUND);
  const pc_finding *note = NULL;
  for (size_t i = 0; i < k.diag.nfindings; i++)
    if (k.diag.findings[i].step == 2 && k.diag.findings[i].cause == PERFCHECK_CAUSE_NOT_ASSESSED) note = &k.diag.findings[i];
  assert_non_null(note);
  assert_string_equal(note->metric, "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active");
  assert_non_null(strstr(note->advice, ": the FMA pipe, the FP64 pipe, the load/store (LSU) pipe, the XU "
                                       "(transcendental) pipe, the uniform pipe, L2 (in part), L1/shared memory (in "
                                       "part) were not measured"));
  pc_kernel_free(&k);
}

static void test_memory_at_roof(void **state) {
  (void)state;
  pc_device d = t4();
  pc_kernel k;
  clean_kernel(&k);
  k.metric[PC_M_SM_THROUGHPUT_PCT] = 20;
  k.metric[PC_M_DRAM_THROUGHPUT_PCT] = 91;
  k.metric[PC_M_FFMA] = kElements; /* 0.25 FLOP/byte */
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.bound, PERFCHECK_BOUND_MEMORY);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_AT_ROOF);
  assert_string_equal(k.diag.verdict.metric, "dram__throughput.avg.pct_of_peak_sustained_elapsed");
  assert_non_null(strstr(k.diag.verdict.advice, "DRAM, the busiest unit, is at 91.0% of its peak"));
  assert_string_equal(k.busiest_memory.name, "dram");
  pc_kernel_free(&k);
}

static void test_step3_causes(void **state) {
  (void)state;
  pc_device d = t4();
  pc_kernel k;
  /* Local memory: spills. */
  clean_kernel(&k);
  k.metric[PC_M_DRAM_THROUGHPUT_PCT] = 85;
  k.metric[PC_M_SM_THROUGHPUT_PCT] = 30;
  /* 4096 local sectors beside 1048576 global ones: 0.39% of the traffic, a
   * finding only (local_share_max 0.05). */
  k.metric[PC_M_LOCAL_ST_SECTORS] = 4096;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_AT_ROOF);
  const pc_finding *lf = find_cause(&k, PERFCHECK_CAUSE_LOCAL_MEMORY_SPILLS);
  assert_non_null(lf);
  assert_near(lf->value, 4096.0 / (4096.0 + 8 * kRequests), 1e-12);
  assert_near(k.derived.local_share, 4096.0 / (4096.0 + 8 * kRequests), 1e-12);
  /* 262144 of them: 20% of the traffic, the verdict. */
  k.metric[PC_M_LOCAL_ST_SECTORS] = 262144;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.step, 3);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_LOCAL_MEMORY_SPILLS);
  assert_near(k.diag.verdict.value, 0.2, 1e-12);
  assert_near(k.diag.verdict.threshold, 0.05, 0);
  /* Without the global sectors there is no share: any local sector is the
   * verdict, judged on the count. */
  k.metric[PC_M_LOCAL_ST_SECTORS] = 4096;
  k.metric[PC_M_ST_SECTORS] = PC_NULL;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_LOCAL_MEMORY_SPILLS);
  assert_near(k.diag.verdict.value, 4096, 0);
  assert_near(k.diag.verdict.threshold, 0, 0);
  k.metric[PC_M_ST_SECTORS] = 4 * kRequests;
  /* Bank conflicts at 25% of wavefronts, and atomics at half the requests:
   * the first in step-3 order is the verdict, the other a finding. */
  k.metric[PC_M_LOCAL_ST_SECTORS] = 0;
  k.metric[PC_M_SHARED_BANK_CONFLICTS_LD] = 250;
  k.metric[PC_M_SHARED_WAVEFRONTS_LD] = 1000;
  k.metric[PC_M_L2_RED_REQUESTS] = 2 * kRequests;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_SHARED_BANK_CONFLICTS);
  assert_near(k.diag.verdict.value, 0.25, 1e-12);
  const pc_finding *at = find_cause(&k, PERFCHECK_CAUSE_ATOMIC_CONTENTION);
  assert_non_null(at);
  assert_near(at->value, 0.5, 1e-12);
  assert_near(at->threshold, 0.1, 0);
  /* Exactly 10% is not above the threshold. */
  k.metric[PC_M_SHARED_BANK_CONFLICTS_LD] = 100;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_ATOMIC_CONTENTION);
  /* An atomicAdd whose result is unused counts only in `red`; zero requests
   * of any kind is no contention and not "missing". */
  k.metric[PC_M_L2_RED_REQUESTS] = 0;
  k.metric[PC_M_LD_REQUESTS] = k.metric[PC_M_ST_REQUESTS] = 0;
  k.metric[PC_M_LD_SECTORS] = k.metric[PC_M_ST_SECTORS] = 0;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_AT_ROOF);
  assert_int_equal(count_cause(&k, PERFCHECK_CAUSE_NOT_ASSESSED), 0); /* step 1 is the region's */
  pc_kernel_free(&k);
}

static void test_step5_occupancy_and_notes(void **state) {
  (void)state;
  pc_device d = t4();
  pc_kernel k;
  /* Registers: 128 per thread, 256 threads: 2 blocks, 50%. */
  clean_kernel(&k);
  k.metric[PC_M_SM_THROUGHPUT_PCT] = 50;
  k.metric[PC_M_DRAM_THROUGHPUT_PCT] = 40;
  k.attr.registers_per_thread = 128;
  k.attr.blocks_per_sm = PC_NULL, k.attr.warps_per_sm = PC_NULL, k.attr.theoretical_occupancy_pct = PC_NULL;
  k.metric[PC_M_WARPS_ACTIVE_PCT] = 45;
  pc_checklist_kernel(&k, &d, NULL);
  assert_near(k.derived.theoretical_occupancy_pct, 50, 0);
  assert_int_equal(k.diag.verdict.step, 5);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_OCCUPANCY_REGISTERS);
  assert_non_null(strstr(k.diag.verdict.advice, "2 block(s) per SM"));
  /* Achieved 60% or more at 50% theoretical: occupancy is not the limit. */
  k.metric[PC_M_WARPS_ACTIVE_PCT] = 49.5;
  k.attr.theoretical_occupancy_pct = 50;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_OCCUPANCY_REGISTERS);
  k.metric[PC_M_WARPS_ACTIVE_PCT] = 60;
  k.attr.theoretical_occupancy_pct = 75;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_LATENCY_BOUND);
  pc_kernel_free(&k);

  /* Blocks: 32-thread blocks on the T4 (seed 003's 50%). */
  clean_kernel(&k);
  k.metric[PC_M_SM_THROUGHPUT_PCT] = 50;
  k.metric[PC_M_DRAM_THROUGHPUT_PCT] = 40;
  k.block[0] = 32, k.grid[0] = 131072;
  k.attr.blocks_per_sm = 16, k.attr.theoretical_occupancy_pct = 50;
  k.metric[PC_M_WARPS_ACTIVE_PCT] = 31.91; /* seed 003's ncu reading */
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_OCCUPANCY_BLOCKS);
  pc_kernel_free(&k);

  /* Full theoretical, low achieved: a note, not a verdict; and a block size
   * that is not a multiple of 32. */
  clean_kernel(&k);
  k.metric[PC_M_SM_THROUGHPUT_PCT] = 50;
  k.metric[PC_M_DRAM_THROUGHPUT_PCT] = 40;
  k.block[0] = 250;
  k.metric[PC_M_WARPS_ACTIVE_PCT] = 41;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_LATENCY_BOUND);
  assert_int_equal(k.diag.verdict.step, 0);
  const pc_finding *tail = NULL, *bs = NULL;
  for (size_t i = 0; i < k.diag.nfindings; i++) {
    if (k.diag.findings[i].cause == PERFCHECK_CAUSE_LATENCY_BOUND) tail = &k.diag.findings[i];
    if (k.diag.findings[i].cause == PERFCHECK_CAUSE_OCCUPANCY_WARPS) bs = &k.diag.findings[i];
  }
  assert_non_null(tail);
  assert_int_equal(tail->step, 5);
  assert_non_null(strstr(tail->advice, "well below the theoretical"));
  assert_non_null(bs);
  assert_string_equal(bs->metric, "launch__block_size");
  assert_near(bs->value, 250, 0);
  assert_near(bs->threshold, 32, 0);
  check_finding_order(&k.diag);
  pc_kernel_free(&k);
}

static void test_pred_on_finding(void **state) {
  (void)state;
  pc_device d = t4();
  pc_kernel k;
  clean_kernel(&k);
  k.metric[PC_M_THREAD_INST_PRED_ON_PER_INST] = 20;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_AT_ROOF); /* a finding, not the verdict */
  const pc_finding *f = find_cause(&k, PERFCHECK_CAUSE_DIVERGENT_WARPS);
  assert_non_null(f);
  assert_string_equal(f->metric, "smsp__average_thread_inst_executed_pred_on_per_inst_executed.ratio");
  assert_near(f->value, 20, 0);
  pc_kernel_free(&k);
}

/* ---- missing data -------------------------------------------------------------- */

static void test_nan_everywhere(void **state) {
  (void)state;
  pc_kernel k;
  pc_kernel_init(&k);
  pc_checklist_kernel(&k, NULL, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_NOT_ASSESSED);
  assert_int_equal(k.diag.bound, PERFCHECK_BOUND_UNKNOWN);
  assert_true(k.diag.verdict.step >= 2);
  assert_true(strlen(k.diag.verdict.metric) > 0);
  assert_non_null(strstr(k.diag.verdict.advice, "not measured"));
  assert_true(k.diag.nfindings > 3);
  for (size_t i = 0; i < k.diag.nfindings; i++)
    assert_int_equal(k.diag.findings[i].cause, PERFCHECK_CAUSE_NOT_ASSESSED);
  double *dv = (double *)&k.derived;
  for (size_t i = 0; i < sizeof k.derived / sizeof(double); i++) assert_true(isnan(dv[i]));
  pc_kernel_free(&k);

  /* With a device but no data at all: the same. */
  pc_device d = t4();
  pc_kernel_init(&k);
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_NOT_ASSESSED);
  pc_kernel_free(&k);

  /* Infinite and negative inputs are handled as not measured. */
  pc_kernel_init(&k);
  for (int i = 0; i < PC_M_COUNT; i++) k.metric[i] = (i % 2) ? -1 : INFINITY;
  k.attr.waves_per_sm = -2;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_NOT_ASSESSED);
  for (size_t i = 0; i < sizeof k.derived / sizeof(double); i++) assert_true(isnan(((double *)&k.derived)[i]));
  pc_kernel_free(&k);
}

static void test_missing_never_at_roof(void **state) {
  (void)state;
  pc_device d = t4();
  pc_kernel k;
  /* 99% compute throughput, but threads per instruction not measured: step 4
   * was not read, so no at_roof. */
  mystery(&k, MYSTERY_C0, 1);
  k.metric[PC_M_THREAD_INST_PER_INST] = PC_NULL;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_NOT_ASSESSED);
  assert_int_equal(k.diag.verdict.step, 4);
  assert_string_equal(k.diag.verdict.metric, TPI);
  assert_non_null(strstr(k.diag.verdict.advice, TPI));
  pc_kernel_free(&k);
  /* A caught step still wins over what is missing elsewhere. */
  mystery(&k, MYSTERY_B, 1);
  k.metric[PC_M_WARPS_ACTIVE_PCT] = PC_NULL;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_DIVERGENT_WARPS);
  assert_non_null(find_cause(&k, PERFCHECK_CAUSE_NOT_ASSESSED));
  pc_kernel_free(&k);
  /* Sectors measured, requests not: names the missing counter. */
  mystery(&k, MYSTERY_A, 1);
  k.metric[PC_M_LD_REQUESTS] = PC_NULL;
  k.metric[PC_M_ST_SECTORS] = k.metric[PC_M_ST_REQUESTS] = PC_NULL;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_NOT_ASSESSED);
  assert_int_equal(k.diag.verdict.step, 3);
  assert_string_equal(k.diag.verdict.metric, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum");
  int saw_ratio = 0;
  for (size_t i = 0; i < k.diag.nfindings; i++) saw_ratio |= strcmp(k.diag.findings[i].metric, SPR_ST) == 0;
  assert_true(saw_ratio);
  pc_kernel_free(&k);
}

/* ---- step 1 ------------------------------------------------------------------- */

static pc_region region(double wall, double kernel, uint64_t launches, double median, double idle, double span) {
  pc_region g;
  pc_region_init(&g);
  g.wall_ns = wall, g.kernel_ns = kernel, g.launches = launches;
  g.median_kernel_ns = median, g.gpu_idle_ns = idle, g.kernel_span_ns = span;
  /* Test regions have kernels of one length: all short or none. */
  g.short_kernel_ns = (pc_has(median) && median < 10000) ? kernel : (pc_has(median) ? 0 : PC_NULL);
  return g;
}

static void test_step1_region(void **state) {
  (void)state;
  /* Seed 000 day 9: 0.786 ms of kernel in a 45.822 ms round trip. */
  pc_region g = region(45.822e6, 0.786e6, 1, 0.786e6, 0, 0.786e6);
  pc_checklist_region(&g);
  assert_int_equal(g.diag.verdict.step, 1);
  assert_int_equal(g.diag.verdict.cause, PERFCHECK_CAUSE_NOT_THE_SLOW_PART);
  assert_string_equal(g.diag.verdict.metric, "kernel_ns / wall_ns");
  assert_near(g.diag.verdict.value, 0.786 / 45.822, 1e-12);
  assert_near(g.kernel_share, 0.786 / 45.822, 1e-12);
  assert_near(g.diag.verdict.threshold, 0.5, 0);

  /* Launch overhead, the H200's shape of seed 003's loop (synthetic,
   * consistent numbers): 4096 kernels of 2 us = 8.192 ms busy, launched every
   * 3.4 us: a 13.93 ms span with 5.74 ms idle, 14 ms wall.  Idle gaps alone
   * are 41% of the span, but idle plus short-kernel time is 99.8% of the wall:
   * launch overhead.  The kernels are 58% of the wall, so not "not the slow
   * part". */
  g = region(14e6, 8.192e6, 4096, 2000, 5.74e6, 13.93e6);
  pc_checklist_region(&g);
  assert_int_equal(g.diag.verdict.step, 1);
  assert_int_equal(g.diag.verdict.cause, PERFCHECK_CAUSE_LAUNCH_OVERHEAD);
  assert_string_equal(g.diag.verdict.metric, "(gpu_idle_ns + short_kernel_ns) / wall_ns");
  assert_near(g.diag.verdict.value, (5.74 + 8.192) / 14.0, 1e-12);
  assert_near(g.diag.verdict.threshold, 0.5, 0);
  assert_non_null(strstr(g.diag.verdict.advice, "CUDA graph"));
  assert_int_equal(g.diag.nfindings, 0);
  /* Fewer, busier short kernels with a slow host: both said. */
  g = region(26e6, 10e6, 5000, 2000, 15e6, 25e6);
  pc_checklist_region(&g);
  assert_int_equal(g.diag.verdict.cause, PERFCHECK_CAUSE_LAUNCH_OVERHEAD);
  assert_near(g.diag.verdict.value, 25.0 / 26.0, 1e-12);
  assert_int_equal(g.diag.nfindings, 1);
  assert_int_equal(g.diag.findings[0].cause, PERFCHECK_CAUSE_NOT_THE_SLOW_PART);
  assert_near(g.diag.findings[0].value, 10.0 / 26.0, 1e-12);

  /* Many launches, but long kernels: not launch overhead. */
  g = region(100e6, 90e6, 5000, 18000, 8e6, 98e6);
  pc_checklist_region(&g);
  assert_int_equal(g.diag.verdict.cause, PERFCHECK_CAUSE_NONE);
  assert_int_equal(g.diag.verdict.step, 0);
  assert_near(g.diag.verdict.value, 0.9, 1e-12);
  /* Idle plus short-kernel time exactly half the wall: not above it. */
  g = region(100e6, 50e6, 5000, 2000, 30e6, 100e6);
  g.short_kernel_ns = 20e6; /* the other 30 ms of kernels are long */
  pc_checklist_region(&g);
  assert_int_equal(g.diag.verdict.cause, PERFCHECK_CAUSE_NONE);
  /* 99 launches: too few for launch overhead; still not the slow part. */
  g = region(100e6, 10e6, 99, 2000, 90e6, 100e6);
  pc_checklist_region(&g);
  assert_int_equal(g.diag.verdict.cause, PERFCHECK_CAUSE_NOT_THE_SLOW_PART);

  /* Passes at exactly half. */
  g = region(10e6, 5e6, 3, 1e6, 0, 5e6);
  pc_checklist_region(&g);
  assert_int_equal(g.diag.verdict.cause, PERFCHECK_CAUSE_NONE);
  assert_int_equal(g.diag.verdict.step, 0);

  /* No wall clock: not assessed; a zero wall clock is no division. */
  g = region(PC_NULL, 5e6, 3, 1e6, 0, 5e6);
  pc_checklist_region(&g);
  assert_int_equal(g.diag.verdict.cause, PERFCHECK_CAUSE_NOT_ASSESSED);
  assert_int_equal(g.diag.verdict.step, 1);
  g = region(0, 0, 0, PC_NULL, PC_NULL, PC_NULL);
  pc_checklist_region(&g);
  assert_int_equal(g.diag.verdict.cause, PERFCHECK_CAUSE_NOT_ASSESSED);
  /* A region with no kernel at all is not the slow part. */
  g = region(10e6, 0, 0, PC_NULL, PC_NULL, PC_NULL);
  pc_checklist_region(&g);
  assert_int_equal(g.diag.verdict.cause, PERFCHECK_CAUSE_NOT_THE_SLOW_PART);
  /* Many launches without a timeline: said, and step 1 still decides. */
  g = region(10e6, 9e6, 500, 2000, PC_NULL, PC_NULL);
  pc_checklist_region(&g);
  assert_int_equal(g.diag.verdict.cause, PERFCHECK_CAUSE_NONE);
  assert_int_equal(g.diag.nfindings, 1);
  assert_int_equal(g.diag.findings[0].cause, PERFCHECK_CAUSE_NOT_ASSESSED);
}

/* Step 1 belongs to the region: a kernel of a region its kernels
 * barely keep busy keeps its own verdict from steps 2 to 5, with its time
 * share and rank beside it, and no step-1 finding. */
static void test_step1_is_the_regions(void **state) {
  (void)state;
  pc_device d = t4();
  pc_region g = region(45.822e6, 0.786e6, 1, 0.786e6, 0, 0.786e6);
  pc_checklist_region(&g);
  assert_int_equal(g.diag.verdict.cause, PERFCHECK_CAUSE_NOT_THE_SLOW_PART);
  pc_kernel k;
  mystery(&k, MYSTERY_A, 1);
  pc_checklist_kernel(&k, &d, &g);
  assert_int_equal(k.diag.verdict.step, 3);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS);
  assert_int_equal(k.diag.findings[0].cause, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_STORES);
  assert_int_equal(k.diag.bound, PERFCHECK_BOUND_MEMORY);
  for (size_t i = 0; i < k.diag.nfindings; i++) assert_true(k.diag.findings[i].step >= 2);
  pc_kernel_free(&k);

  /* A region that passes: the same. */
  g = region(10e6, 9e6, 3, 3e6, 0, 9e6);
  pc_checklist_region(&g);
  mystery(&k, MYSTERY_B, 1);
  pc_checklist_kernel(&k, &d, &g);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_DIVERGENT_WARPS);
  pc_kernel_free(&k);

  /* A kernel with 1% of its region's time keeps its verdict; the share and
   * the rank are fields. */
  pc_kernel ks[3];
  for (int i = 0; i < 3; i++) mystery(&ks[i], MYSTERY_B, 1);
  ks[0].total_ns = 98, ks[1].total_ns = 1, ks[2].total_ns = 1;
  pc_kernel_time_shares(ks, 3, 1);
  assert_near(ks[1].time_share, 0.01, 1e-12);
  assert_int_equal(ks[0].rank, 1);
  assert_int_equal(ks[1].rank, 2); /* a tie shares the better rank */
  assert_int_equal(ks[2].rank, 2);
  pc_checklist_kernel(&ks[1], &d, &g);
  assert_int_equal(ks[1].diag.verdict.cause, PERFCHECK_CAUSE_DIVERGENT_WARPS);
  for (int i = 0; i < 3; i++) pc_kernel_free(&ks[i]);
}

static void test_report_offline_and_regions(void **state) {
  (void)state;
  pc_report *r = pc_report_new();
  r->device = t4();
  r->step1_assessed = 0; /* an ncu export */
  pc_kernel *k = pc_report_add_kernel(r);
  mystery(k, MYSTERY_C48000, 1);
  k->name = strdup("mysteryC");
  k->total_ns = 1.414e6; /* seed 000's time */
  pc_checklist_report(r);
  assert_int_equal(k->diag.verdict.cause, PERFCHECK_CAUSE_OCCUPANCY_SHARED_MEMORY);
  /* Offline there is no wall clock: the report says so once (its step1
   * flag), not each kernel. */
  for (size_t i = 0; i < k->diag.nfindings; i++) assert_true(k->diag.findings[i].step >= 2);
  assert_int_equal(k->rank, 1);
  pc_report_free(r);

  /* In process: kernels find their region by name. */
  r = pc_report_new();
  r->device = t4();
  pc_region *g1 = pc_report_add_region(r);
  g1->name = strdup("setup");
  g1->wall_ns = 100e6, g1->kernel_ns = 1e6;
  pc_region *g2 = pc_report_add_region(r);
  g2->name = strdup("solve");
  g2->wall_ns = 10e6, g2->kernel_ns = 9e6;
  pc_kernel *a = pc_report_add_kernel(r);
  mystery(a, MYSTERY_B, 1);
  a->region = strdup("setup");
  pc_kernel *b = pc_report_add_kernel(r);
  mystery(b, MYSTERY_B, 1);
  b->region = strdup("solve");
  pc_checklist_report(r);
  assert_int_equal(r->regions[0].diag.verdict.cause, PERFCHECK_CAUSE_NOT_THE_SLOW_PART);
  assert_int_equal(r->regions[1].diag.verdict.cause, PERFCHECK_CAUSE_NONE);
  /* Each kernel keeps its own verdict, whatever its region's step 1. */
  assert_int_equal(r->kernels[0].diag.verdict.cause, PERFCHECK_CAUSE_DIVERGENT_WARPS);
  assert_int_equal(r->kernels[1].diag.verdict.cause, PERFCHECK_CAUSE_DIVERGENT_WARPS);
  pc_report_free(r);
  pc_checklist_report(NULL);
  pc_checklist_kernel(NULL, NULL, NULL);
  pc_checklist_region(NULL);
  pc_derive(NULL, NULL);
}

/* ---- rules refined on the H200 corpus (ncu 2025.3 --set full
 * exports in tests/data/corpus/): each case is a real kernel's numbers. ---- */

static pc_device h200(void) {
  pc_device d;
  pc_device_init(&d);
  snprintf(d.name, sizeof d.name, "NVIDIA H200");
  d.cc_major = 9, d.cc_minor = 0, d.sm_count = 132, d.warp_size = 32;
  d.max_threads_per_sm = 2048, d.max_threads_per_block = 1024, d.max_blocks_per_sm = 32;
  d.max_regs_per_sm = 65536, d.max_regs_per_block = 65536;
  d.max_smem_per_sm = 233472, d.max_smem_per_block = 49152, d.max_smem_per_block_optin = 232448;
  pc_device_fill_granularities(&d);
  return d;
}

/* A kernel from an export row: the step 3 counters, the ceilings, a full
 * theoretical occupancy; everything else measured and clean. */
static void corpus_kernel(pc_kernel *k, double dram_pct, double sm_pct, double ld_sec, double ld_req, double st_sec,
                          double st_req, double bps_ld, double bps_st, double ld_hit) {
  clean_kernel(k);
  k->grid[0] = 65536, k->block[0] = 128;
  k->metric[PC_M_DRAM_THROUGHPUT_PCT] = dram_pct;
  k->metric[PC_M_SM_THROUGHPUT_PCT] = sm_pct;
  k->metric[PC_M_LD_SECTORS] = ld_sec, k->metric[PC_M_LD_REQUESTS] = ld_req;
  k->metric[PC_M_ST_SECTORS] = st_sec, k->metric[PC_M_ST_REQUESTS] = st_req;
  k->metric[PC_M_LD_BYTES_PER_SECTOR] = bps_ld, k->metric[PC_M_ST_BYTES_PER_SECTOR] = bps_st;
  k->metric[PC_M_LD_SECTORS_HIT] = ld_hit;
  k->metric[PC_M_WARPS_ACTIVE_PCT] = 85;
}

static void test_corpus_refinements(void **state) {
  (void)state;
  pc_device d = h200();
  pc_kernel k;

  /* torch's bf16 cast (vectorized_elementwise_kernel<8>, bfloat16_copy):
   * 16 bytes of each sector per load instruction, but the next instruction
   * reads the other half from L1 (8388608 of 16777216 sectors hit), and
   * DRAM is at 87.7%: at its roof, not uncoalesced. */
  corpus_kernel(&k, 87.741989, 9.048201, 16777216, 524288, 4194304, 262144, 16, 32, 8388608);
  pc_checklist_kernel(&k, &d, NULL);
  assert_near(k.derived.ld_sector_hit_share, 0.5, 1e-12);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_AT_ROOF);
  assert_int_equal(count_cause(&k, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS), 0); /* wide accesses, well used: no note */
  /* Without the hit counter, 16 bytes a sector is the seed's limit: uncoalesced. */
  k.metric[PC_M_LD_SECTORS_HIT] = PC_NULL;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS);
  assert_near(k.diag.verdict.value, 16, 0);
  pc_kernel_free(&k);

  /* access_widths' strided_f32x4: 16 bytes a sector and no L1 hit at all
   * (every other 16-byte chunk is skipped): uncoalesced, whatever DRAM says. */
  corpus_kernel(&k, 80, 10, 8388608, 524288, 4194304, 262144, 16, 32, 0);
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS);
  pc_kernel_free(&k);

  /* tests/gpu/diff_plant.cu --planted (H200, in process): lanes
   * 2 MiB apart, 4 bytes of each sector used; the next warps re-read the
   * sectors from L1 (14680064 of 16777216 hit), so L2 and DRAM see no waste,
   * but L1 is the busiest level at 88% of its wavefronts and the kernel runs
   * 42% slower than the coalesced one: every lookup counts, uncoalesced. */
  corpus_kernel(&k, 35.745200, 15.346336, 16777216, 524288, 2097152, 524288, 4, 32, 14680064);
  k.metric[PC_M_L1_WAVEFRONTS_PCT] = 88.044910;
  k.metric[PC_M_L2_THROUGHPUT_PCT] = 52.181844;
  pc_checklist_kernel(&k, &d, NULL);
  assert_string_equal(k.busiest_memory.name, "l1");
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS);
  assert_near(k.diag.verdict.value, 4, 0);
  /* The same hits with L1 far from its roof: they cost nothing, judged at 32. */
  k.metric[PC_M_L1_WAVEFRONTS_PCT] = 30;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_not_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS);
  pc_kernel_free(&k);

  /* vectorized_layer_norm_kernel: 12.8 bytes a sector, 67683360 of
   * 83886080 sectors from L1 (81%): judged at 32, not uncoalesced. */
  corpus_kernel(&k, 72.503424, 39.092771, 83886080, 5242880, 8421397, 557056, 12.8, 31.891051, 67683360);
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_not_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS);
  pc_kernel_free(&k);

  /* reduce_kernel<512, 1> (sum over rows): its 8192 result stores use 4
   * bytes a sector but are 0.1% of its sectors: a finding; DRAM at 71% is
   * below the roof, so latency_bound. */
  corpus_kernel(&k, 71.245994, 44.694344, 8388608, 524288, 8179, 8192, 32, 4, 0);
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_LATENCY_BOUND);
  const pc_finding *st = find_cause(&k, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_STORES);
  assert_non_null(st);
  assert_near(st->value, 4, 0);
  /* The same stores as the kernel's main traffic are the verdict. */
  k.metric[PC_M_ST_SECTORS] = 4194304;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_STORES);
  pc_kernel_free(&k);

  /* A tensor-core GEMM that reads through TMA: its LSU bytes per sector
   * are 0 (no LDG at all), which says nothing about coalescing. */
  corpus_kernel(&k, 30, 95, 0, 0, 1, 1, 0, 4, 0);
  k.metric[PC_M_LD_REQUESTS] = 0;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(count_cause(&k, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS), 0);
  pc_kernel_free(&k);

  /* lanes_block1: a block of one thread uses 4 bytes a sector, and only the
   * launch can change that: partial_warps, not uncoalesced. */
  corpus_kernel(&k, 1, 20, 8448, 8448, 8449, 8449, 4, 4, 0);
  k.block[0] = 1, k.grid[0] = 8448;
  k.metric[PC_M_THREAD_INST_PER_INST] = 1;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_PARTIAL_WARPS);
  assert_int_equal(count_cause(&k, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS), 0);
  pc_kernel_free(&k);

  /* flash_fwd_kernel (torch SDPA, bf16): 17922172 + 15135844 local sectors
   * against 91445579 L2 sectors: 26.6% of the traffic is local memory. */
  corpus_kernel(&k, 7.19731, 53.953262, 69206016, 4325376, 2130187, 163840, 0, 32, 0);
  k.metric[PC_M_LOCAL_LD_SECTORS] = 17922172, k.metric[PC_M_LOCAL_ST_SECTORS] = 15135844;
  k.metric[PC_M_L2_SECTORS] = 91445579;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_LOCAL_MEMORY_SPILLS);
  assert_near(k.diag.verdict.value, 33058016.0 / (33058016.0 + 91445579.0), 1e-12);
  pc_kernel_free(&k);

  /* Bank conflicts: transpose_conflicts replays 97% of its wavefronts with
   * L1 at 90%, the verdict; the same share with L1 at 30% is a finding. */
  corpus_kernel(&k, 40, 45, 4194304, 131072, 4194304, 131072, 32, 32, 0);
  k.metric[PC_M_SHARED_BANK_CONFLICTS_LD] = 969, k.metric[PC_M_SHARED_WAVEFRONTS_LD] = 1000;
  k.metric[PC_M_L1_WAVEFRONTS_PCT] = 90;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_SHARED_BANK_CONFLICTS);
  k.metric[PC_M_L1_WAVEFRONTS_PCT] = 30;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_LATENCY_BOUND);
  assert_non_null(find_cause(&k, PERFCHECK_CAUSE_SHARED_BANK_CONFLICTS));
  /* ... and with L1's load not measured, the verdict as before. */
  k.metric[PC_M_L1_WAVEFRONTS_PCT] = PC_NULL;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_SHARED_BANK_CONFLICTS);
  pc_kernel_free(&k);

  /* A utilization above 105% is no measurement (ncu's 162% on a 2 us
   * kernel): left out of step 2. */
  corpus_kernel(&k, 30, 40, 4194304, 131072, 4194304, 131072, 32, 32, 0);
  k.metric[PC_M_L1_WAVEFRONTS_PCT] = 162;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_LATENCY_BOUND);
  assert_near(k.diag.verdict.value, 40, 0);
  assert_string_not_equal(k.busiest_memory.name, "l1");
  pc_kernel_free(&k);

  /* cudnn's SDPA forward (sm90 flash fprop): 168 registers a thread hold
   * one block of 12 warps per SM (18.75% theoretical, 14.1% achieved), but
   * the tensor pipe is at 73.7%: that is the design, so the register limit
   * is a finding and the verdict is latency_bound. */
  corpus_kernel(&k, 12.691906, 70.932041, 0, 0, 0, 0, 0, 0, 0);
  k.grid[0] = 132, k.block[0] = 384;
  k.attr.registers_per_thread = 168, k.dynamic_smem = k.attr.dynamic_smem = 232448;
  k.attr.blocks_per_sm = 1, k.attr.warps_per_sm = 12, k.attr.theoretical_occupancy_pct = 18.75;
  k.attr.waves_per_sm = 1;
  k.attr.limit_registers = 1, k.attr.limit_shared_mem = 1, k.attr.limit_warps = 5, k.attr.limit_blocks = 32;
  k.attr.binding = PC_LIMIT_REGISTERS;
  k.metric[PC_M_WARPS_ACTIVE_PCT] = 14.064957;
  k.metric[PC_M_PIPE_TENSOR_PCT] = 73.677406, k.metric[PC_M_PIPE_TENSOR_GMMA_PCT] = 4.604838;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_LATENCY_BOUND);
  const pc_finding *occ = find_cause(&k, PERFCHECK_CAUSE_OCCUPANCY_REGISTERS);
  assert_non_null(occ);
  assert_non_null(strstr(occ->advice, "tensor pipe"));
  /* The same kernel with the tensor pipe at 40%: its work is still on the
   * tensor pipe, and its tiles are its design: no occupancy verdict. */
  k.metric[PC_M_PIPE_TENSOR_PCT] = 40;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_LATENCY_BOUND);
  assert_non_null(strstr(find_cause(&k, PERFCHECK_CAUSE_OCCUPANCY_REGISTERS)->advice, "work is on the tensor pipe"));
  /* With its FMA pipe busier (45%), the kernel's work is on the CUDA cores:
   * occupancy is the verdict. */
  k.metric[PC_M_PIPE_FMA_PCT] = 45;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_OCCUPANCY_REGISTERS);
  pc_kernel_free(&k);
}

/* ---- verdicts that pay (each case from an H200 measurement) ------------------ */

/* Stall reasons as ncu's --set full gives them (warps stalled per issued
 * instruction), the rest measured 0. */
static void set_stalls(pc_kernel *k, double long_sb, double barrier, double wait, double math, double mio) {
  for (int i = PC_M_STALL_LONG_SCOREBOARD; i <= PC_M_STALL_GMMA; i++) k->metric[i] = 0;
  k->metric[PC_M_STALL_LONG_SCOREBOARD] = long_sb;
  k->metric[PC_M_STALL_BARRIER] = barrier;
  k->metric[PC_M_STALL_WAIT] = wait;
  k->metric[PC_M_STALL_MATH_PIPE_THROTTLE] = math;
  k->metric[PC_M_STALL_MIO_THROTTLE] = mio;
}

/* Seed 000's mysteryC with one block per SM on the H200 (corpus export):
 * SM 61.6%, issue 0.68, 1.26 eligible warps a scheduler, long_scoreboard 55%
 * of the stalls: occupancy, and dropping the request ran 232.5 -> 151.4 us.
 * The same kernel with a throttle dominating, or with eligible warps to
 * spare, or a unit at its roof, keeps occupancy as a finding. */
static void test_occupancy_needs_evidence(void **state) {
  (void)state;
  pc_device d = h200();
  pc_kernel k;
  mystery(&k, MYSTERY_C48000, 1);
  k.grid[0] = 16384;
  k.attr.theoretical_occupancy_pct = 12.5, k.attr.blocks_per_sm = 1, k.attr.warps_per_sm = 8;
  k.attr.binding = PC_LIMIT_SHARED_MEMORY;
  k.metric[PC_M_WARPS_ACTIVE_PCT] = 12.35;
  k.metric[PC_M_SM_THROUGHPUT_PCT] = 61.6;
  k.metric[PC_M_DRAM_THROUGHPUT_PCT] = 1.6;
  k.metric[PC_M_ISSUE_ACTIVE] = 0.68;
  k.metric[PC_M_WARPS_ELIGIBLE] = 1.26;
  k.metric[PC_M_WARPS_ACTIVE] = 1.99;
  set_stalls(&k, 0.59, 0.0, 0.32, 0.02, 0.0);
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_OCCUPANCY_SHARED_MEMORY);
  assert_non_null(strstr(k.diag.verdict.advice, "1.3 eligible warps"));
  assert_string_equal(k.diag.stall.reason, "long_scoreboard");
  assert_near(k.diag.stall.share, 0.59 / (0.59 + 0.32 + 0.02), 1e-9);
  /* A throttle dominates: a full queue, more warps would queue behind it. */
  set_stalls(&k, 0.1, 0.0, 0.1, 0.9, 0.0);
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_LATENCY_BOUND);
  assert_string_equal(k.diag.stall.reason, "math_pipe_throttle");
  assert_non_null(find_cause(&k, PERFCHECK_CAUSE_OCCUPANCY_SHARED_MEMORY));
  assert_non_null(strstr(k.diag.verdict.advice, "math_pipe_throttle"));
  /* Schedulers with eligible warps to spare (4 or more): not starved. */
  set_stalls(&k, 0.59, 0.0, 0.32, 0.02, 0.0);
  k.metric[PC_M_WARPS_ELIGIBLE] = 4.5;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_LATENCY_BOUND);
  /* A unit at its roof (80%): more warps add nothing. */
  k.metric[PC_M_WARPS_ELIGIBLE] = 1.26;
  k.metric[PC_M_SM_THROUGHPUT_PCT] = 85;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_AT_ROOF);
  /* Achieved far below what the resources allow: a tail, not the limit. */
  k.metric[PC_M_SM_THROUGHPUT_PCT] = 61.6;
  k.metric[PC_M_WARPS_ACTIVE_PCT] = 5;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_LATENCY_BOUND);
  /* Without the warp states (an older export): occupancy stands on the
   * roofs alone, and says the stalls were not measured. */
  k.metric[PC_M_WARPS_ACTIVE_PCT] = 12.35;
  for (int i = PC_M_WARPS_ELIGIBLE; i <= PC_M_STALL_GMMA; i++) k.metric[i] = PC_NULL;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_OCCUPANCY_SHARED_MEMORY);
  assert_non_null(strstr(k.diag.verdict.advice, "warp stalls not measured"));
  assert_null(k.diag.stall.reason);
  pc_kernel_free(&k);
}

/* CUB's Onesweep radix sort on the H200, in process (advice pair
 * cub_sort): registers cap it at 2 blocks (37.5%), achieved 36.6%, no unit
 * above 43%, 0.80 eligible warps a scheduler -- and barrier the largest
 * stall (36% of the five measured reasons, long_scoreboard 30%).  Raising
 * occupancy ran 0.95x (512x10, 75%: barrier stalls per issue 3.0 to 8.1)
 * and 0.69x (256x7, 100%): warps waiting on each other are not hidden by
 * more warps.  Low occupancy is a finding; the verdict names the barrier.
 * With long_scoreboard the largest instead, the same kernel is occupancy. */
static void test_occupancy_not_behind_barriers(void **state) {
  (void)state;
  pc_device d = h200();
  pc_kernel k;
  pc_kernel_init(&k);
  k.grid[0] = 4370, k.grid[1] = 1, k.grid[2] = 1;
  k.block[0] = 384, k.block[1] = 1, k.block[2] = 1;
  k.attr.registers_per_thread = 74;
  k.attr.static_smem = 31744;
  k.attr.theoretical_occupancy_pct = 37.5, k.attr.blocks_per_sm = 2, k.attr.warps_per_sm = 24;
  k.attr.binding = PC_LIMIT_REGISTERS;
  /* Every metric the in-process report measured (the default set, 4 passes):
   * tests/data/advice/h200-2026-12-02-cub_sort/inproc.json.gz, region
   * advice:cub_sort:orig, its DeviceRadixSortOnesweepKernel entry. */
  static const struct {
    const char *name;
    double value;
  } measured[] = {
      {"gpu__time_duration.sum", 192288},
      {"dram__throughput.avg.pct_of_peak_sustained_elapsed", 29.158116848620075},
      {"dram__bytes_read.sum", 134331904},
      {"dram__bytes_write.sum", 135442688},
      {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", 0},
      {"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", 0},
      {"smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", 0},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 5950040},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 1318387},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 6335240},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", 1118496},
      {"l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", 0},
      {"l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", 0},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", 84228},
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", 3180912},
      {"lts__t_requests_op_atom.sum", 6529},
      {"lts__t_requests_op_red.sum", 0},
      {"smsp__average_thread_inst_executed_per_inst_executed.ratio", 31.469606509772113},
      {"smsp__average_thread_inst_executed_pred_on_per_inst_executed.ratio", 28.831292140550804},
      {"smsp__issue_active.avg.per_cycle_active", 0.41075064233063163},
      {"sm__warps_active.avg.pct_of_peak_sustained_active", 36.56114394031588},
      {"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio", 32},
      {"smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio", 22.598589477273158},
      {"smsp__sass_average_data_bytes_per_sector_mem_global_op_ldgsts.ratio", 0},
      {"smsp__sass_inst_executed_op_ldgsts.sum", 0},
      {"sm__sass_inst_executed_op_tma.sum", 0},
      {"lts__t_requests.sum", 7375034},
      {"lts__t_sectors.avg.pct_of_peak_sustained_elapsed", 18.465222051485426},
      {"l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed", 43.274103365442571},
      {"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", 0},
      {"sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active", 41.142486723035418},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum", 103244},
      {"lts__t_sectors.sum", 17094224},
      {"smsp__warps_eligible.avg.per_cycle_active", 0.79755219579322068},
      {"smsp__warps_active.avg.per_cycle_active", 5.8472964594513224},
      {"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio", 2.5795200591919474},
      {"smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio", 3.0543895656957956},
      {"smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio", 0.46862268536741214},
      {"smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio", 1.8216416724555848},
      {"smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio", 0.65812668614338443},
  };
  for (size_t i = 0; i < sizeof measured / sizeof measured[0]; i++) {
    const pc_metric_def *m = pc_metric_lookup(measured[i].name, NULL);
    assert_non_null(m);
    k.metric[m->id] = measured[i].value;
  }
  pc_derive(&k, &d);
  pc_checklist_kernel(&k, &d, NULL);
  assert_string_equal(k.diag.stall.reason, "barrier");
  /* 23% of every stall cycle (warps active per issue, less the selected
   * one: 5.847 / 0.411 - 1), 36% of the five reasons measured. */
  assert_near(k.diag.stall.share, 3.054 / (5.847 / 0.411 - 1.0), 1e-3);
  assert_int_not_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_OCCUPANCY_REGISTERS);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_LATENCY_BOUND);
  assert_non_null(strstr(k.diag.verdict.advice, "barrier"));
  const pc_finding *f = find_cause(&k, PERFCHECK_CAUSE_OCCUPANCY_REGISTERS);
  assert_non_null(f);
  assert_non_null(strstr(f->advice, "no stall reason dominates (the largest, barrier, is 23%"));
  /* The same numbers with long_scoreboard the largest at 23%: still no
   * dominant stall, no occupancy verdict. */
  const double barrier = k.metric[PC_M_STALL_BARRIER];
  k.metric[PC_M_STALL_BARRIER] = k.metric[PC_M_STALL_LONG_SCOREBOARD];
  k.metric[PC_M_STALL_LONG_SCOREBOARD] = barrier;
  pc_checklist_kernel(&k, &d, NULL);
  assert_string_equal(k.diag.stall.reason, "long_scoreboard");
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_LATENCY_BOUND);
  /* long_scoreboard at 6 warps per issue, 45% of every stall cycle: a
   * dominant stall more resident warps hide, and occupancy is the verdict. */
  k.metric[PC_M_STALL_LONG_SCOREBOARD] = 6.0;
  pc_checklist_kernel(&k, &d, NULL);
  assert_true(k.diag.stall.share > 0.30);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_OCCUPANCY_REGISTERS);
  /* A math_pipe_throttle of 6.5 warps per issue, the largest (37% of the
   * stall cycles): a busy pipe more warps would queue for. */
  k.metric[PC_M_STALL_MATH_PIPE_THROTTLE] = 6.5;
  pc_checklist_kernel(&k, &d, NULL);
  assert_string_equal(k.diag.stall.reason, "math_pipe_throttle");
  assert_true(k.diag.stall.share > 0.30);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_LATENCY_BOUND);
  k.metric[PC_M_STALL_MATH_PIPE_THROTTLE] = 3.5;
  k.metric[PC_M_STALL_LONG_SCOREBOARD] = barrier;
  /* Without the warp states, the shares are of the reasons measured: 31%,
   * a dominant throttle, and occupancy is a finding. */
  k.metric[PC_M_WARPS_ACTIVE] = PC_NULL;
  pc_checklist_kernel(&k, &d, NULL);
  assert_true(k.diag.stall.share > 0.30);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_LATENCY_BOUND);
  pc_kernel_free(&k);
}

/* Seed 000's counter-example of day 17: 75% occupancy limited by registers,
 * where __launch_bounds__ reached 100% and ran slower.  Achieved 70% is not
 * low: no occupancy verdict (the advice corpus's launch_bounds_spill: 0.17x). */
static void test_seed000_day17_not_advised(void **state) {
  (void)state;
  pc_device d = h200();
  pc_kernel k;
  clean_kernel(&k);
  k.attr.theoretical_occupancy_pct = 75, k.attr.binding = PC_LIMIT_REGISTERS;
  k.metric[PC_M_WARPS_ACTIVE_PCT] = 69.8;
  k.metric[PC_M_SM_THROUGHPUT_PCT] = 96;
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_not_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_OCCUPANCY_REGISTERS);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_AT_ROOF);
  pc_kernel_free(&k);
}

/* latency_bound names the dominant stall and its change, or the two largest
 * when none is above 30% of the stall cycles. */
static void test_latency_bound_names_the_stall(void **state) {
  (void)state;
  pc_device d = h200();
  pc_kernel k;
  clean_kernel(&k);
  k.metric[PC_M_SM_THROUGHPUT_PCT] = 25;
  k.metric[PC_M_DRAM_THROUGHPUT_PCT] = 55.7; /* scale_f32: 16-byte loads ran 1.57x faster */
  set_stalls(&k, 37.7, 0, 2.3, 0, 0);
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_LATENCY_BOUND);
  assert_string_equal(k.diag.stall.reason, "long_scoreboard");
  assert_non_null(strstr(k.diag.verdict.advice, "more bytes in flight"));
  set_stalls(&k, 2.5, 3.0, 2.4, 1.5, 1.5); /* CUB onesweep-like: no stall dominates */
  pc_checklist_kernel(&k, &d, NULL);
  assert_string_equal(k.diag.stall.reason, "barrier");
  assert_true(k.diag.stall.share < 0.40);
  assert_non_null(strstr(k.diag.verdict.advice, "no stall dominates"));
  pc_kernel_free(&k);
}

/* Uncoalesced accesses are the verdict only when the kernel can be waiting
 * on them: a pointer chase whose warps wait at a barrier with L2 at 4% ran
 * 3.1x faster without the barrier (barrier_uneven); the same loads with
 * warps waiting on long_scoreboard stay the verdict. */
static void test_uncoalesced_needs_memory_waits(void **state) {
  (void)state;
  pc_device d = h200();
  pc_kernel k;
  clean_kernel(&k);
  k.metric[PC_M_LD_BYTES_PER_SECTOR] = 4;
  k.metric[PC_M_ST_BYTES_PER_SECTOR] = 32;
  k.metric[PC_M_SM_THROUGHPUT_PCT] = 15;
  k.metric[PC_M_DRAM_THROUGHPUT_PCT] = 0.3;
  k.metric[PC_M_L2_THROUGHPUT_PCT] = 4.3;
  set_stalls(&k, 12, 74.8, 3, 0, 0);
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_LATENCY_BOUND);
  assert_string_equal(k.diag.stall.reason, "barrier");
  const pc_finding *u = find_cause(&k, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS);
  assert_non_null(u);
  assert_non_null(strstr(u->advice, "not what it waits on"));
  set_stalls(&k, 74.8, 12, 3, 0, 0);
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS);
  pc_kernel_free(&k);
}

/* A value within the nudge of its threshold is borderline and names the
 * runner-up: L2 at 79.1% (torch's column sum) against at_roof_pct 80. */
static void test_borderline_runner_up(void **state) {
  (void)state;
  pc_device d = h200();
  pc_kernel k;
  clean_kernel(&k);
  k.metric[PC_M_SM_THROUGHPUT_PCT] = 11.4;
  k.metric[PC_M_DRAM_THROUGHPUT_PCT] = 75.8;
  k.metric[PC_M_L2_THROUGHPUT_PCT] = 79.1;
  set_stalls(&k, 56.7, 2.0, 1.5, 0, 0);
  pc_checklist_kernel(&k, &d, NULL);
  assert_int_equal(k.diag.verdict.cause, PERFCHECK_CAUSE_LATENCY_BOUND);
  assert_true(k.diag.borderline);
  assert_int_equal(k.diag.runner_up, PERFCHECK_CAUSE_AT_ROOF);
  /* Far from every threshold: not borderline. */
  k.metric[PC_M_L2_THROUGHPUT_PCT] = 40, k.metric[PC_M_DRAM_THROUGHPUT_PCT] = 35;
  pc_checklist_kernel(&k, &d, NULL);
  assert_false(k.diag.borderline);
  assert_int_equal(k.diag.runner_up, PERFCHECK_CAUSE_NONE);
  pc_kernel_free(&k);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_thresholds_table),
      cmocka_unit_test(test_derive_ratios),
      cmocka_unit_test(test_derive_flops_and_ceilings),
      cmocka_unit_test(test_derive_occupancy_and_waves),
      cmocka_unit_test(test_seed000_mysteryA),
      cmocka_unit_test(test_mysteryA_bytes_per_sector),
      cmocka_unit_test(test_seed000_mysteryB),
      cmocka_unit_test(test_seed000_mysteryC_48000),
      cmocka_unit_test(test_seed000_mysteryC_0),
      cmocka_unit_test(test_trap_divergent_at_96_percent),
      cmocka_unit_test(test_trap_one_block_grid),
      cmocka_unit_test(test_latency_bound), cmocka_unit_test(test_unmeasured_roofs_default_set),
      cmocka_unit_test(test_memory_at_roof),
      cmocka_unit_test(test_step3_causes),
      cmocka_unit_test(test_step5_occupancy_and_notes),
      cmocka_unit_test(test_pred_on_finding),
      cmocka_unit_test(test_nan_everywhere),
      cmocka_unit_test(test_missing_never_at_roof),
      cmocka_unit_test(test_step1_region),
      cmocka_unit_test(test_step1_is_the_regions),
      cmocka_unit_test(test_report_offline_and_regions),
      cmocka_unit_test(test_corpus_refinements),
      cmocka_unit_test(test_occupancy_needs_evidence),
      cmocka_unit_test(test_occupancy_not_behind_barriers), cmocka_unit_test(test_seed000_day17_not_advised),
      cmocka_unit_test(test_latency_bound_names_the_stall),
      cmocka_unit_test(test_uncoalesced_needs_memory_waits),
      cmocka_unit_test(test_borderline_runner_up),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
