#define _GNU_SOURCE /* secure_getenv */
/* The checklist: derived values and the five-step walk (seed 000's order,
 * seed 004's triage guide for what the five questions do not name).
 *
 *   Step 1  (region) is the kernel the slow part?  launch_overhead,
 *           not_the_slow_part.  A kernel of a caught region takes the
 *           region's verdict; its own walk still runs and becomes findings.
 *   Step 2  which ceiling?  memory, compute, latency or unknown.  Never a
 *           verdict by itself: it decides which of steps 3 and 4 run.
 *   Step 3  (memory side) is the traffic real?  uncoalesced loads, stores,
 *           local memory, shared bank conflicts, atomics.
 *   Step 4  (compute side) are the lanes working?  divergent_warps.
 *   Step 5  is occupancy the limit?  grid_too_small, occupancy_<limiter>.
 *   Step 0  nothing caught: at_roof or latency_bound, or not_assessed when an
 *           input a step needed was not measured (never at_roof on missing
 *           data).
 *
 * Every number the walk compares against is in pc_threshold_table below. */
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "model/pc_core.h"
#include "base/pc_fmt.h"
#include "base/pc_hash.h"
#include "base/pc_map.h"
#include "check/pc_library.h"
#include "check/pc_check.h"

/* ==== Thresholds ========================================================== */

enum {
  PC_T_LAUNCH_MIN_LAUNCHES,
  PC_T_LAUNCH_MAX_MEDIAN_NS,
  PC_T_LAUNCH_IDLE_SHARE,
  PC_T_KERNEL_SHARE_MIN,
  PC_T_CEILING_HIGH_PCT,
  PC_T_AT_ROOF_PCT,
  PC_T_BPS_MIN,
  PC_T_COALESCING_SHARE_MIN,
  PC_T_PCT_TRUSTED_MAX,
  PC_T_SPR_MAX,
  PC_T_SPR_VECTOR_MAX,
  PC_T_SPR_SLACK,
  PC_T_LOCAL_SECTORS_MAX,
  PC_T_LOCAL_SHARE_MAX,
  PC_T_BANK_CONFLICT_SHARE_MAX,
  PC_T_ATOMIC_SHARE_MAX,
  PC_T_TPI_MIN,
  PC_T_TPI_PRED_ON_MIN,
  PC_T_LANE_USE_MIN,
  PC_T_TENSOR_ACTIVE_PCT,
  PC_T_TENSOR_DOMINATED_PCT,
  PC_T_WAVES_MIN,
  PC_T_ACHIEVED_LOW_PCT,
  PC_T_THEORETICAL_FULL_PCT,
  PC_T_OCC_CAP_SHARE,
  PC_T_ELIGIBLE_STARVED,
  PC_T_STALL_DOMINANT_SHARE,
  PC_T_COMMUNICATION_SHARE_MAX,
  PC_T_COUNT_
};

#define PT PC_NUDGE_POINTS
#define RL PC_NUDGE_RELATIVE
#define NO PC_NUDGE_NONE

/* ONE table of every threshold of the walk (the README reproduces it, and
 * docs/checklist.md gives each one's source). */
static const pc_threshold pc_threshold_table[PC_T_COUNT_] = {
    [PC_T_LAUNCH_MIN_LAUNCHES] = {"launch_overhead_min_launches", 100,
                                  "step 1 (region): launch_overhead needs at least this many kernel launches in the "
                                  "region",
                                  "chosen here: between the regions measured on either side, mystery's 4 launches "
                                  "(tests/data/snapshots/mystery-counters: the slow part, no launch overhead) and seed "
                                  "003's 4096 (tests/data/snapshots/loop-*: launch_overhead); no region nearer 100 "
                                  "was measured", RL},
    [PC_T_LAUNCH_MAX_MEDIAN_NS] = {"launch_overhead_max_median_kernel_ns", 10000,
                                   "step 1 (region): launch_overhead needs a median kernel shorter than this (ns)",
                                   "chosen here: between seed 003's median small kernel, 2.2-3.0 us of mostly fixed "
                                   "cost (loop-*: about 2 us on the H200), and mystery's 150-300 us kernels (no "
                                   "launch overhead); no median nearer 10 us was measured", RL},
    [PC_T_LAUNCH_IDLE_SHARE] = {"launch_overhead_idle_share", 0.5,
                                "step 1 (region): launch_overhead needs the GPU idle between kernels, or running "
                                "kernels shorter than the median threshold, for more than this share of the region's "
                                "wall clock ((gpu_idle_ns + short_kernel_ns) / wall_ns)",
                                "seed 000 step 1 (\"if your kernels are under half the wall time, every step below "
                                "is the wrong page\": the same half, for the time the GPU spends idle or in the fixed "
                                "cost of tiny kernels); seed 004 Decision 2A flags idle periods above ~10% of a "
                                "profiled range, a finding here, not a region verdict",
                                RL},
    [PC_T_KERNEL_SHARE_MIN] = {"kernel_share_min", 0.5,
                               "step 1 (region): kernels busy for less than this share of the region's wall clock "
                               "make the region not_the_slow_part (kernel_ns / wall_ns); its kernels keep their own "
                               "verdicts",
                               "seed 000 step 1 (\"under half the wall time\")", RL},
    [PC_T_CEILING_HIGH_PCT] = {"ceiling_high_pct", 60,
                               "step 2: memory or compute throughput at or above this % of peak names the bound; "
                               "both measured and below it: latency",
                               "seed 004 Decision 2 (below ~60%: low); ncu SpeedOfLight.py (latency_bound_threshold 60)", PT},
    [PC_T_AT_ROOF_PCT] = {"at_roof_pct", 80,
                          "a unit (pipe, memory level, SM, issue slots) at or above this % of its peak is near its "
                          "roof: with nothing else caught the kernel is at_roof (below it, latency_bound), and no "
                          "occupancy or grid verdict is given while one is",
                          "seed 004 Decision 2 (above ~80%: high, near-limit regime) and its occupancy-vs-utilization "
                          "quadrant (low occupancy + high utilization: more warps add nothing); seed 002; ncu "
                          "SpeedOfLight.py (no_bound_threshold 80)",
                          PT},
    [PC_T_BPS_MIN] = {"bytes_per_sector_uncoalesced", 16,
                      "step 3: a warp using at most this many bytes of each 32-byte sector it fetches (loads, "
                      "stores, cp.async alike; smsp__sass_average_data_bytes_per_sector_mem_global_op_*) is "
                      "uncoalesced; right for every access width.  For loads, what L1 serves again (the sectors' "
                      "L1 hit share h) costs nothing more: they are judged at bytes / (1 - h), capped at 32, "
                      "unless L1 is the busiest memory level at at_roof_pct or more (then every lookup counts)",
                      "seed 004 Decision 5 (\"below ~16 bytes per sector\": fetched sectors carry useful data for "
                      "less than half their capacity); seed 000 step 3",
                      RL},
    [PC_T_COALESCING_SHARE_MIN] = {"coalescing_traffic_share_min", 0.1,
                                   "step 3: uncoalesced loads (stores) are the verdict only when they are at least "
                                   "this share of the kernel's global load + store sectors; below it, a finding (at "
                                   "most this share of the traffic could be saved)",
                                   "chosen here, at seed 004's ~10% for bank conflicts (Decision 5): in the H200 "
                                   "exports uncoalesced accesses that are the verdict carry 15.8% to 99% of the "
                                   "kernel's sectors, those that are a finding at most 5.9% (a GEMM's 16-byte "
                                   "epilogue stores) and 1.2% (reductions' result stores); scripts/threshold_evidence.py",
                                   RL},
    [PC_T_PCT_TRUSTED_MAX] = {"throughput_pct_trusted_max", 105,
                              "step 2: a utilization above this % is not a measurement to judge by (ncu reports "
                              "162% and 170% for 2 us kernels): it is left out",
                              "chosen here: seed 004 Decision 0 keeps values slightly above 100% (multi-pass "
                              "artifacts) and distrusts a large overshoot; the smallest overshoot in the H200 "
                              "exports is 162% (scripts/threshold_evidence.py)",
                              PT},
    [PC_T_SPR_MAX] = {"sectors_per_request_max", 4,
                      "step 3, when bytes per sector were not measured: global load/store sectors per request at or "
                      "below this are coalesced (4: a warp's 32 floats in 128 bytes)",
                      "seed 000 step 3 (a definition: 32 lanes x 4 bytes = 4 sectors; not nudged); seed 004 Decision 5",
                      NO},
    [PC_T_SPR_VECTOR_MAX] = {"sectors_per_request_vector_max", 16,
                             "step 3, when bytes per sector were not measured: above this many sectors per request "
                             "no access width is coalesced (16: 32 lanes of 16-byte loads); between "
                             "sectors_per_request_max and this the width decides, and the step is not_assessed",
                             "seed 000 step 3, extended to 8- and 16-byte accesses (a definition: 32 lanes x 16 bytes "
                             "= 16 sectors; not nudged)",
                             NO},
    [PC_T_SPR_SLACK] = {"sectors_per_request_slack", 0.1,
                        "step 3: sectors per request must exceed sectors_per_request_max by more than this to count "
                        "(an extra sector on at least 1 request in 10)",
                        "chosen here: coalesced 4-byte kernels in the H200 exports read 4.005 sectors per request "
                        "(CUB's Onesweep, 32 bytes used per sector); seed 000 step 3 (4 is the floor)", RL},
    [PC_T_LOCAL_SECTORS_MAX] = {"local_sectors_max", 0,
                                "step 3, when the share (local_share_max) cannot be computed: local-memory sectors "
                                "(ld + st) above this mean spills or local arrays",
                                "seed 004 Decision 5 (local traffic present)", NO},
    [PC_T_LOCAL_SHARE_MAX] = {"local_share_max", 0.05,
                              "step 3: local-memory sectors above this share of all traffic (local sectors over "
                              "local + max(L2 sectors, global ld + st sectors)) are local_memory_spills; any less "
                              "is a finding",
                              "chosen here: the spill pairs that paid unrolled carry 7.0% (spill_bubble, its L1 "
                              "misses) and 38.6% (spill_ring) of their kernel's sectors; flash-attention's L1-resident "
                              "spills 0.7% (scripts/threshold_evidence.py); seed 004 Decision 5 (local traffic)",
                              RL},
    [PC_T_BANK_CONFLICT_SHARE_MAX] = {"bank_conflict_share_max", 0.10,
                                      "step 3: shared-memory bank conflicts above this share of shared load "
                                      "wavefronts; the verdict only when L1/shared memory is at ceiling_high_pct or "
                                      "more (else the conflicts cost nothing the kernel waits on: a finding)",
                                      "seed 004 Decision 5 (~10% of shared-memory wavefronts); ncu "
                                      "SharedMemoryConflicts.py (10%)",
                                      RL},
    [PC_T_ATOMIC_SHARE_MAX] = {"atomic_share_max", 0.10,
                               "step 3: L2 atom + red requests above this share of every L2 request (lts__t_requests; "
                               "in exports without it, of global ld + st requests + atom + red)",
                               "chosen here: kernels whose atomics are the verdict carry 15.2% (CUB's radix "
                               "histogram) to 96.6% of their L2 requests as atomics, the others at most 3.7% "
                               "(scripts/threshold_evidence.py); seed 004 Decision 5 (\"relative to total L2 "
                               "requests\")", RL},
    [PC_T_TPI_MIN] = {"threads_per_instruction_min", 24,
                      "step 4: threads per executed instruction below this (of 32) is divergence",
                      "seed 000 step 4 (32 ceiling, 16 = half masked); seed 004 Decision 3 (below ~24); ncu "
                      "ThreadDivergence.py (24)",
                      RL},
    [PC_T_TPI_PRED_ON_MIN] = {"threads_per_instruction_pred_on_min", 24,
                              "step 4: predicated-on threads per instruction below this (a finding only)",
                              "seed 004 Decision 3 (predication, below ~24)", RL},
    [PC_T_LANE_USE_MIN] = {"lane_use_min", 0.75,
                           "step 4: threads per instruction below this share of the lanes the launch allows "
                           "(block threads / warps per block) is divergence; a launch that allows fewer than "
                           "threads_per_instruction_min lanes is partial_warps",
                           "seed 004 Decision 3 (\"below ~24 (warp size is 32)\": 24 of 32 = 0.75)", RL},
    [PC_T_TENSOR_ACTIVE_PCT] = {"tensor_active_pct", 1,
                                "step 2: a tensor pipe busier than this % and busier than the FMA pipe means the "
                                "kernel's FLOPs are mostly tensor-core FLOPs, which are not among the counters: "
                                "arithmetic intensity and FLOP/s are left unknown",
                                "chosen here: kernels with no tensor-core instruction read 0 to 5.3% on the tensor "
                                "pipe in the H200 exports, which the second test (busier than the FMA pipe; for "
                                "step 5, than every CUDA-core pipe) separates; 1% keeps an idle pipe's noise out",
                                PT},
    [PC_T_TENSOR_DOMINATED_PCT] = {"tensor_dominated_pct", 60,
                                   "step 5: with the tensor pipe at or above this %, low occupancy is by design (the "
                                   "tiles live in registers and shared memory) and is a finding",
                                   "seed 004 Decision 1 (low achieved occupancy matters \"unless the workload is "
                                   "dominated by Tensor Core usage\"), its high-utilization bound (~60%)",
                                   PT},
    [PC_T_WAVES_MIN] = {"waves_min", 1,
                        "step 5: a grid of fewer waves than this leaves SMs idle: grid_too_small when no unit is near "
                        "its roof; judged before step 3 when the grid has fewer blocks than the GPU has SMs; a "
                        "finding when every SM has a block and achieved occupancy reaches achieved_occupancy_low_pct",
                        "seed 004 Decision 1 (launch__waves_per_multiprocessor < 1); ncu SpeedOfLight.py "
                        "(waves_threshold 1)",
                        RL},
    [PC_T_ACHIEVED_LOW_PCT] = {"achieved_occupancy_low_pct", 60, "step 5: achieved occupancy below this % is low",
                               "seed 004 Decision 1 and practical thresholds (< 60% achieved occupancy is low)", PT},
    [PC_T_THEORETICAL_FULL_PCT] = {"theoretical_occupancy_full_pct", 100,
                                   "step 5: theoretical occupancy below this % lets a resource limit be the cause",
                                   "seed 000 step 5; seed 004 Decision 3 (a definition: full; not nudged)", NO},
    [PC_T_OCC_CAP_SHARE] = {"occupancy_cap_share", 0.5,
                            "step 5: the resource limit is the cause only when achieved occupancy reaches this share "
                            "of the theoretical: well below it, the launch leaves warp slots empty (a tail, uneven "
                            "blocks) and raising the limit would not fill them (a finding)",
                            "chosen here, below seed 003's 31.9% of a 50% theoretical (0.64), which paid 2.9x with "
                            "256-thread blocks; seed 004 Decision 3 (\"if achieved occupancy is well below "
                            "theoretical: investigate imbalance/tail\") gives no number",
                            RL},
    [PC_T_ELIGIBLE_STARVED] = {"warps_eligible_starved", 4,
                               "step 5: a resource limit is the cause only when the schedulers are starved: fewer "
                               "than this many eligible warps per scheduler per cycle "
                               "(smsp__warps_eligible.avg.per_cycle_active), when measured",
                               "seed 004 Investigation 3.8.4 (\"if average eligible warps per cycle drops below about "
                               "4, the scheduler is frequently starved\")",
                               RL},
    [PC_T_STALL_DOMINANT_SHARE] = {"stall_dominant_share", 0.30,
                                   "step 5 and latency_bound: a stall reason above this share of the stall cycles "
                                   "dominates; a dominant throttle (math_pipe, mio, lg, tex: a full queue) rules out "
                                   "an occupancy verdict, and latency_bound names the dominant stall (or the two "
                                   "largest when none dominates)",
                                   "seed 004 Symptom 3.8.2 (\"flag any single stall category accounting for more "
                                   "than ~30% of total stall cycles\"); ncu CPIStall.py (ratio_threshold 0.3)",
                                   RL},
    [PC_T_COMMUNICATION_SHARE_MAX] = {"communication_share_max", 0.5,
                                      "step 1: communication kernels (NCCL's, named nccl*) for more than this share "
                                      "of a region's summed kernel time make communication the region's verdict when "
                                      "its kernels are the slow part; any smaller share is a finding.  Such kernels "
                                      "are never replayed for counters and get the verdict communication themselves",
                                      "seed 000 step 1 (the slow part first) applied to a region's kernel time: "
                                      "more than half of it waiting on peers is the region's cause",
                                      RL},
};

#undef PT
#undef RL
#undef NO

/* The values in force: the table's, or PERFCHECK_THRESHOLDS's overrides,
 * read once (pthread_once) through secure_getenv: a privileged process
 * keeps the built-in rules. */
static double pc_threshold_live[PC_T_COUNT_];
static char pc_threshold_override_text[512];
static pthread_once_t pc_threshold_once = PTHREAD_ONCE_INIT;

static void pc_threshold_load(void) {
  for (size_t i = 0; i < PC_T_COUNT_; i++) pc_threshold_live[i] = pc_threshold_table[i].value;
  const char *env = secure_getenv("PERFCHECK_THRESHOLDS");
  if (!env || !*env) return;
  char buf[512];
  snprintf(buf, sizeof buf, "%s", env);
  size_t used = 0;
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(tok, '=');
    if (!eq) continue;
    *eq = '\0';
    char *end = NULL;
    const double v = strtod(eq + 1, &end);
    if (!end || *end || !isfinite(v)) continue;
    for (size_t i = 0; i < PC_T_COUNT_; i++)
      if (strcmp(pc_threshold_table[i].key, tok) == 0) {
        pc_threshold_live[i] = v;
        int n = snprintf(pc_threshold_override_text + used, sizeof pc_threshold_override_text - used, "%s%s=%g",
                         used ? "," : "", tok, v);
        if (n > 0 && (size_t)n < sizeof pc_threshold_override_text - used) used += (size_t)n;
      }
  }
}

static const double *pc_rules(void) {
  pthread_once(&pc_threshold_once, pc_threshold_load);
  return pc_threshold_live;
}

/* The borderline test re-walks a kernel under nudged thresholds and reads
 * only the verdict's cause: it sets these for the re-walk (this thread only)
 * so that the walk reads the nudged rules and skips formatting the advice. */
static _Thread_local const double *pc_walk_rules;
static _Thread_local int pc_walk_dry;
#define PC_T(id) ((pc_walk_rules ? pc_walk_rules : pc_rules())[id])

const pc_threshold *pc_thresholds(size_t *count) {
  if (count) *count = PC_T_COUNT_;
  return pc_threshold_table;
}

double pc_threshold_value(const char *key) {
  if (!key) return PC_NULL;
  for (size_t i = 0; i < PC_T_COUNT_; i++)
    if (strcmp(pc_threshold_table[i].key, key) == 0) return pc_rules()[i];
  return PC_NULL;
}

/* A threshold nudged up (dir 1) or down (dir -1) as the borderline test and
 * the sensitivity study do: 5 points, or 10% of its value. */
#define PC_NUDGE_POINTS_BY 5.0
#define PC_NUDGE_RELATIVE_BY 0.10
static double pc_nudged(size_t id, double v, int dir) {
  switch (pc_threshold_table[id].nudge) {
    case PC_NUDGE_POINTS:
      return v + dir * PC_NUDGE_POINTS_BY;
    case PC_NUDGE_RELATIVE:
      return v * (1.0 + dir * PC_NUDGE_RELATIVE_BY);
    default:
      return v;
  }
}

/* ==== Metric spellings used in findings ==================================== */

#define PC_NAME(id) (pc_metric_by_id(id)->name)
#define PC_SPR_LD                                                                   \
  "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum / l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
#define PC_SPR_ST                                                                   \
  "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum / l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"
#define PC_LOCAL "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum + l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum"
#define PC_LOCAL_SHARE                                                                            \
  "local sectors / (local sectors + max(lts__t_sectors.sum, global ld + st sectors))"
#define PC_BANK                                                                                   \
  "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum / "                                   \
  "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
#define PC_ATOMIC \
  "(lts__t_requests_op_atom.sum + lts__t_requests_op_red.sum) / (global ld + st requests + atom + red)"
#define PC_AI "flops / (dram__bytes_read.sum + dram__bytes_write.sum)"
#define PC_DRAM_RATE "(dram__bytes_read.sum + dram__bytes_write.sum) / gpu__time_duration.sum / peak_dram_bytes_per_s"
#define PC_FLOP_RATE "flops / gpu__time_duration.sum / peak_fp32_flop_per_s"
/* Step 1 has no ncu metric (ncu profiles kernels, not wall clocks): these
 * name the region quantities of the report instead. */
#define PC_SHARE "kernel_ns / wall_ns"
#define PC_KSHARE "total_ns / sum of total_ns over the region's kernels"
/* Not ncu metrics: step 1 is measured with the Activity API, and these name
 * the region fields the ratio is made of. */
#define PC_IDLE "(gpu_idle_ns + short_kernel_ns) / wall_ns"
#define PC_WAVES "launch__waves_per_multiprocessor"
#define PC_THEORETICAL "sm__maximum_warps_per_active_cycle_pct"

/* ==== Derived values ======================================================= */

/* A count or percentage: negative (or infinite) is impossible, so it becomes
 * "unknown". */
static double pc_nonneg(double v) { return (isfinite(v) && v >= 0) ? v : PC_NULL; }

/* The larger of two measured values of a kernel (one unit's two metrics);
 * either alone when the other was not measured. */
static double pc_larger(const pc_kernel *k, pc_metric_id a, pc_metric_id b) {
  const double x = pc_nonneg(k->metric[a]), y = pc_nonneg(k->metric[b]);
  return pc_has(x) ? (pc_has(y) ? fmax(x, y) : x) : y;
}

/* a / b for counts; NaN when either is unknown or negative, or b is 0. */
static double pc_ratio(double a, double b) {
  a = pc_nonneg(a);
  b = pc_nonneg(b);
  if (pc_is_null(a) || pc_is_null(b) || b <= 0) return PC_NULL;
  return a / b;
}

/* Sum of the terms that were measured (weights w); NaN when none was. */
static double pc_sum_measured(const double *v, const double *w, size_t n) {
  double s = 0;
  int any = 0;
  for (size_t i = 0; i < n; i++) {
    double x = pc_nonneg(v[i]);
    if (pc_has(x)) {
      s += w[i] * x;
      any = 1;
    }
  }
  return any ? s : PC_NULL;
}

/* FLOPs: an FMA is two.  The three FP32 counts (FFMA, FADD, FMUL) must all
 * be measured, or flops are unknown: a sum without one of them is a smaller
 * number, never a measurement (a NaN FFMA made a compute-bound kernel's
 * flops 0, or hundreds of times too low).  The FP64 and FP16 triples are
 * added when each is measured whole, left out when none of a triple is
 * (the default set does not collect them), and make flops unknown when a
 * triple is measured in part.  The readers say which count was missing. */
static double pc_flops(const double *m) {
  static const pc_metric_id ids[3][3] = {{PC_M_FFMA, PC_M_FADD, PC_M_FMUL},
                                         {PC_M_DFMA, PC_M_DADD, PC_M_DMUL},
                                         {PC_M_HFMA, PC_M_HADD, PC_M_HMUL}};
  static const double w[3] = {2, 1, 1};
  double flops = 0;
  for (int t = 0; t < 3; t++) {
    double sum = 0;
    int have = 0;
    for (int i = 0; i < 3; i++) {
      const double v = pc_nonneg(m[ids[t][i]]);
      if (pc_has(v)) sum += w[i] * v, have++;
    }
    if (have == 3)
      flops += sum;
    else if (t == 0 || have > 0)
      return PC_NULL;
  }
  return flops;
}

static double pc_dims(const unsigned v[3]) {
  if (v[0] == 0 || v[1] == 0 || v[2] == 0) return PC_NULL;
  return (double)v[0] * (double)v[1] * (double)v[2];
}

/* ==== Step 2's units: pipes, memory levels, aggregates ====================== */

#define PC_BPS_LD "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio"
#define PC_BPS_ST "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio"
#define PC_BPS_LDGSTS "smsp__sass_average_data_bytes_per_sector_mem_global_op_ldgsts.ratio"
#define PC_ATOMIC_L2 "(lts__t_requests_op_atom.sum + lts__t_requests_op_red.sum) / lts__t_requests.sum"

enum { PC_UNIT_PIPE = 0, PC_UNIT_MEMORY = 1, PC_UNIT_AGGREGATE = 2 };

/* Every unit step 2 reads, with the metric that measures it (a metric id, or
 * a rate perfcheck computes from counts).  Order matters only for ties: the
 * first listed wins.  X(name, kind, metric, id, scale): value * scale = %. */
enum { PC_RATE_DRAM = -2, PC_RATE_FP32 = -3 };
#define PC_UNIT_ROWS(X)                                                                                      \
  X("tensor", PC_UNIT_PIPE, "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", PC_M_PIPE_TENSOR_PCT, 1) \
  X("tensor", PC_UNIT_PIPE, "sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_active",          \
    PC_M_PIPE_TENSOR_GMMA_PCT, 1)                                                                              \
  X("fma", PC_UNIT_PIPE, "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", PC_M_PIPE_FMA_PCT, 1)   \
  X("alu", PC_UNIT_PIPE, "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active", PC_M_PIPE_ALU_PCT, 1)   \
  X("fp64", PC_UNIT_PIPE, "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active", PC_M_PIPE_FP64_PCT, 1) \
  X("lsu", PC_UNIT_PIPE, "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active", PC_M_PIPE_LSU_PCT, 1)   \
  X("xu", PC_UNIT_PIPE, "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active", PC_M_PIPE_XU_PCT, 1)      \
  X("uniform", PC_UNIT_PIPE, "sm__inst_executed_pipe_uniform.avg.pct_of_peak_sustained_active",                \
    PC_M_PIPE_UNIFORM_PCT, 1)                                                                                  \
  X("dram", PC_UNIT_MEMORY, "dram__throughput.avg.pct_of_peak_sustained_elapsed", PC_M_DRAM_THROUGHPUT_PCT, 1)  \
  X("dram", PC_UNIT_MEMORY, PC_DRAM_RATE, PC_RATE_DRAM, 1)                                                     \
  X("l2", PC_UNIT_MEMORY, "lts__throughput.avg.pct_of_peak_sustained_elapsed", PC_M_L2_THROUGHPUT_PCT, 1)       \
  X("l2", PC_UNIT_MEMORY, "lts__t_sectors.avg.pct_of_peak_sustained_elapsed", PC_M_L2_SECTORS_PCT, 1)           \
  X("l2", PC_UNIT_MEMORY, "lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed",              \
    PC_M_L2_FABRIC_PCT, 1)                                                                                     \
  X("l2", PC_UNIT_MEMORY, "lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed", PC_M_L2_TAG_PCT, 1)        \
  X("l2", PC_UNIT_MEMORY, "lts__xbar2lts_cycles_active.avg.pct_of_peak_sustained_elapsed", PC_M_L2_XBAR2LTS_PCT, \
    1)                                                                                                         \
  X("l2", PC_UNIT_MEMORY, "lts__lts2xbar_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed",          \
    PC_M_L2_LTS2XBAR_PCT, 1)                                                                                   \
  X("l2", PC_UNIT_MEMORY, "lts__d_sectors_fill_device.avg.pct_of_peak_sustained_elapsed", PC_M_L2_FILL_PCT, 1)  \
  X("l1", PC_UNIT_MEMORY, "l1tex__throughput.avg.pct_of_peak_sustained_active", PC_M_L1_THROUGHPUT_PCT, 1)      \
  X("l1", PC_UNIT_MEMORY, "l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed",                 \
    PC_M_L1_WAVEFRONTS_PCT, 1)                                                                                 \
  X("l1", PC_UNIT_MEMORY, "l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_active",                  \
    PC_M_L1_WAVEFRONTS_ACTIVE_PCT, 1)                                                                          \
  X("memory", PC_UNIT_AGGREGATE, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",           \
    PC_M_MEM_THROUGHPUT_PCT, 1)                                                                                \
  X("sm", PC_UNIT_AGGREGATE, "sm__throughput.avg.pct_of_peak_sustained_elapsed", PC_M_SM_THROUGHPUT_PCT, 1)     \
  X("issue", PC_UNIT_AGGREGATE, "smsp__issue_active.avg.per_cycle_active", PC_M_ISSUE_ACTIVE, 100)              \
  X("fp32", PC_UNIT_AGGREGATE, PC_FLOP_RATE, PC_RATE_FP32, 1)

#define PC_UNIT_DEF_(name, kind, metric, id, scale) {name, kind, metric, scale},
static const pc_unit_def pc_unit_defs[] = {PC_UNIT_ROWS(PC_UNIT_DEF_)};
#undef PC_UNIT_DEF_
typedef struct pc_unit_src {
  int id;
  double scale;
} pc_unit_src;
#define PC_UNIT_SRC_(name, kind, metric, id, scale) {id, scale},
static const pc_unit_src pc_unit_srcs[] = {PC_UNIT_ROWS(PC_UNIT_SRC_)};
#undef PC_UNIT_SRC_
#define PC_NUNITS (sizeof pc_unit_defs / sizeof pc_unit_defs[0])

/* The aggregates that belong to the memory side (the rest are compute). */
static int pc_unit_is_memory(size_t i) {
  return pc_unit_defs[i].kind == PC_UNIT_MEMORY || pc_unit_srcs[i].id == PC_M_MEM_THROUGHPUT_PCT;
}

const pc_unit_def *pc_units(size_t *count) {
  if (count) *count = PC_NUNITS;
  return pc_unit_defs;
}

const pc_unit_def *pc_unit_lookup(const char *metric) {
  if (!metric) return NULL;
  for (size_t i = 0; i < PC_NUNITS; i++)
    if (strcmp(pc_unit_defs[i].metric, metric) == 0) return &pc_unit_defs[i];
  return NULL;
}

/* A unit's load in % of its peak; NaN when not measured. */
static double pc_unit_pct(size_t i, const pc_kernel *k, const pc_device *d) {
  const pc_unit_src *u = &pc_unit_srcs[i];
  if (u->id >= 0) {
    double v = pc_nonneg(k->metric[u->id]);
    v = pc_has(v) ? v * u->scale : PC_NULL;
    return (pc_has(v) && v > PC_T(PC_T_PCT_TRUSTED_MAX)) ? PC_NULL : v;
  }
  /* A rate (bytes or FLOPs over the duration) above the trusted maximum is
   * left out like a counter's: under rotation its count and its duration can
   * come from launches that did different work (a signature's forward and
   * backward GEMM: 247% of the FP32 peak,
   * docs/measurements/2026-12-02-h200-b). */
  double v = PC_NULL;
  if (u->id == PC_RATE_DRAM)
    v = (d && pc_has(k->derived.dram_gbps) && pc_has(d->peak_dram_bytes_per_s) && d->peak_dram_bytes_per_s > 0)
            ? k->derived.dram_gbps * 1e9 / d->peak_dram_bytes_per_s * 100.0
            : PC_NULL;
  else if (u->id == PC_RATE_FP32)
    v = (d && pc_has(k->derived.gflops) && pc_has(d->peak_fp32_flop_per_s) && d->peak_fp32_flop_per_s > 0)
            ? k->derived.gflops * 1e9 / d->peak_fp32_flop_per_s * 100.0
            : PC_NULL;
  return (pc_has(v) && v > PC_T(PC_T_PCT_TRUSTED_MAX)) ? PC_NULL : v;
}

/* The busiest unit of a side (memory_side 1: memory levels; 0: compute);
 * levels_only: pipes or levels alone, without the aggregates. */
static pc_unit_load pc_busiest(const pc_kernel *k, const pc_device *d, int memory_side, int levels_only) {
  pc_unit_load best = {NULL, PC_NULL, NULL};
  for (size_t i = 0; i < PC_NUNITS; i++) {
    if (pc_unit_is_memory(i) != memory_side) continue;
    if (levels_only && pc_unit_defs[i].kind == PC_UNIT_AGGREGATE) continue;
    const double v = pc_unit_pct(i, k, d);
    if (pc_has(v) && (pc_is_null(best.pct) || v > best.pct)) {
      best.name = pc_unit_defs[i].name;
      best.pct = v;
      best.metric = pc_unit_defs[i].metric;
    }
  }
  return best;
}

/* % of the memory ceiling: the busiest memory level or ncu's memory SOL. */
static double pc_memory_pct(const pc_kernel *k, const pc_device *d, const char **name) {
  pc_unit_load b = pc_busiest(k, d, 1, 0);
  if (name) *name = b.metric;
  return b.pct;
}

/* % of the compute ceiling: the busiest pipe, ncu's SM SOL, issue slots or
 * the FP32 flop rate. */
static double pc_compute_pct(const pc_kernel *k, const pc_device *d, const char **name) {
  pc_unit_load b = pc_busiest(k, d, 0, 0);
  if (name) *name = b.metric;
  return b.pct;
}

pc_unit_load pc_checklist_ceiling(const pc_kernel *k, const pc_device *d, int memory_side) {
  return pc_busiest(k, d, memory_side ? 1 : 0, 0);
}

/* The larger of the two sides' loads (memory on a tie). */
int pc_checklist_near_roof(const pc_kernel *k, const pc_device *d, pc_unit_load *top) {
  const pc_unit_load mem = pc_busiest(k, d, 1, 0), comp = pc_busiest(k, d, 0, 0);
  const int mem_top = pc_has(mem.pct) && (pc_is_null(comp.pct) || mem.pct >= comp.pct);
  const pc_unit_load t = mem_top ? mem : comp;
  if (top) *top = t;
  if (pc_has(t.pct) && t.pct >= PC_T(PC_T_AT_ROOF_PCT)) return 1;
  /* A tensor-core kernel keeps its tiles in registers and shared memory by
   * design: with the tensor pipe high (tensor_dominated_pct), its few
   * resident warps are feeding it, and a resource limit is a finding too
   * (seed 004 Decision 1: "unless the workload is dominated by Tensor Core
   * usage"). */
  const double t1 = pc_nonneg(k->metric[PC_M_PIPE_TENSOR_PCT]);
  const double tp = pc_larger(k, PC_M_PIPE_TENSOR_PCT, PC_M_PIPE_TENSOR_GMMA_PCT);
  if (pc_has(tp) && tp >= PC_T(PC_T_TENSOR_DOMINATED_PCT) && tp <= PC_T(PC_T_PCT_TRUSTED_MAX)) {
    if (top) {
      top->name = "tensor";
      top->pct = tp;
      top->metric = pc_has(t1) && tp == t1 ? PC_NAME(PC_M_PIPE_TENSOR_PCT) : PC_NAME(PC_M_PIPE_TENSOR_GMMA_PCT);
    }
    return 1;
  }
  return 0;
}

/* "the tensor pipe", "L2", ...: how a unit is named in advice. */
static const char *pc_unit_words(const char *metric) {
  const pc_unit_def *u = pc_unit_lookup(metric);
  if (!u) return "the busiest unit";
  if (strcmp(u->name, "tensor") == 0) return "the tensor pipe";
  if (strcmp(u->name, "fma") == 0) return "the FMA pipe";
  if (strcmp(u->name, "alu") == 0) return "the ALU pipe";
  if (strcmp(u->name, "fp64") == 0) return "the FP64 pipe";
  if (strcmp(u->name, "lsu") == 0) return "the load/store (LSU) pipe";
  if (strcmp(u->name, "xu") == 0) return "the XU (transcendental) pipe";
  if (strcmp(u->name, "uniform") == 0) return "the uniform pipe";
  if (strcmp(u->name, "dram") == 0) return "DRAM";
  if (strcmp(u->name, "l2") == 0) return "L2";
  if (strcmp(u->name, "l1") == 0) return "L1/shared memory";
  if (strcmp(u->name, "memory") == 0) return "the memory system";
  if (strcmp(u->name, "sm") == 0) return "the SM";
  if (strcmp(u->name, "issue") == 0) return "the issue slots";
  if (strcmp(u->name, "fp32") == 0) return "FP32 arithmetic";
  return "the busiest unit";
}

/* The load of the levels global memory traffic crosses beyond L1: DRAM and
 * L2 (ncu's L2 row, its sector throughput or its fabric, whichever is
 * measured and larger), in % of their peaks; NaN when none was measured. */
static double pc_global_path_pct(const pc_kernel *k) {
  static const pc_metric_id ids[] = {PC_M_DRAM_THROUGHPUT_PCT, PC_M_L2_THROUGHPUT_PCT, PC_M_L2_SECTORS_PCT,
                                     PC_M_L2_FABRIC_PCT};
  double best = PC_NULL;
  for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
    const double v = pc_nonneg(k->metric[ids[i]]);
    if (pc_has(v) && v <= PC_T(PC_T_PCT_TRUSTED_MAX) && (pc_is_null(best) || v > best)) best = v;
  }
  return best;
}

/* The occupancy picture of a kernel: the attributes where known, else the
 * model (pc_occupancy.c) on the device's limits. */
typedef struct pc_occ_view {
  double blocks_per_sm;
  double theoretical_pct;
  pc_limiter binding;
  double binding_limit; /* blocks per SM the binding resource allows */
  int mismatch;         /* the model disagrees with the attributes' blocks/SM */
} pc_occ_view;

static double pc_attr_limit(const pc_attributes *a, pc_limiter l) {
  switch (l) {
    case PC_LIMIT_REGISTERS:
      return a->limit_registers;
    case PC_LIMIT_SHARED_MEMORY:
      return a->limit_shared_mem;
    case PC_LIMIT_WARPS:
      return a->limit_warps;
    case PC_LIMIT_BLOCKS:
      return a->limit_blocks;
    default:
      return PC_NULL;
  }
}

static int pc_int_value(double v, int *out) {
  if (pc_is_null(v) || v < 0 || v > INT_MAX || v != floor(v)) return 0;
  *out = (int)v;
  return 1;
}

static void pc_occ_resolve(const pc_kernel *k, const pc_device *d, pc_occ_view *v) {
  const pc_attributes *a = &k->attr;
  v->blocks_per_sm = pc_nonneg(a->blocks_per_sm);
  v->theoretical_pct = pc_nonneg(a->theoretical_occupancy_pct);
  v->binding = PC_LIMIT_NONE;
  v->binding_limit = PC_NULL;
  v->mismatch = 0;

  pc_occupancy model;
  int model_ok = 0;
  pc_occupancy_input in;
  double block = pc_dims(k->block);
  double dyn = pc_has(a->dynamic_smem) ? a->dynamic_smem : k->dynamic_smem;
  if (d && pc_int_value(block, &in.block_threads) && pc_int_value(a->registers_per_thread, &in.registers_per_thread) &&
      pc_int_value(a->static_smem, &in.static_smem) && pc_int_value(dyn, &in.dynamic_smem))
    model_ok = pc_occupancy_compute(d, &in, &model) == 0;
  int agrees = model_ok && (pc_is_null(v->blocks_per_sm) || v->blocks_per_sm == model.blocks_per_sm);
  if (model_ok && !agrees) v->mismatch = 1;

  if (pc_is_null(v->blocks_per_sm) && model_ok) v->blocks_per_sm = model.blocks_per_sm;
  if (pc_is_null(v->theoretical_pct)) {
    if (agrees) {
      v->theoretical_pct = model.theoretical_pct;
    } else if (d && pc_has(v->blocks_per_sm) && pc_has(block) && d->warp_size > 0 && d->max_threads_per_sm > 0) {
      double warps = ceil(block / d->warp_size);
      v->theoretical_pct = v->blocks_per_sm * warps / (d->max_threads_per_sm / d->warp_size) * 100.0;
    }
  }

  /* The binding limiter: the attributes' own, else the min of their four
   * limits (tie rule of pc_occupancy.c), else the model's when it agrees. */
  if (a->binding != PC_LIMIT_NONE) {
    v->binding = a->binding;
    v->binding_limit = pc_attr_limit(a, a->binding);
  } else if (pc_has(a->limit_registers) && pc_has(a->limit_shared_mem) && pc_has(a->limit_warps) &&
             pc_has(a->limit_blocks)) {
    /* Ties go to the per-SM block limit first: ncu prints that limit for a
     * resource the kernel does not use (32-thread blocks with no shared
     * memory read blocks 32 and shared memory 32 on the H200). */
    const pc_limiter order[4] = {PC_LIMIT_BLOCKS, PC_LIMIT_WARPS, PC_LIMIT_REGISTERS, PC_LIMIT_SHARED_MEMORY};
    for (int i = 0; i < 4; i++) {
      double lim = pc_attr_limit(a, order[i]);
      if (pc_is_null(v->binding_limit) || lim < v->binding_limit) v->binding = order[i], v->binding_limit = lim;
    }
  } else if (agrees) {
    v->binding = model.binding;
    v->binding_limit = model.blocks_per_sm;
  }
  if (pc_is_null(v->binding_limit) && v->binding != PC_LIMIT_NONE) v->binding_limit = v->blocks_per_sm;
}

void pc_derive(pc_kernel *k, const pc_device *d) {
  if (!k) return;
  pc_derived *o = &k->derived;
  const double *m = k->metric;

  o->sectors_per_request_ld = pc_ratio(m[PC_M_LD_SECTORS], m[PC_M_LD_REQUESTS]);
  o->sectors_per_request_st = pc_ratio(m[PC_M_ST_SECTORS], m[PC_M_ST_REQUESTS]);
  o->bytes_per_sector_ld = pc_nonneg(m[PC_M_LD_BYTES_PER_SECTOR]);
  o->bytes_per_sector_st = pc_nonneg(m[PC_M_ST_BYTES_PER_SECTOR]);
  o->bytes_per_sector_ldgsts = pc_nonneg(m[PC_M_LDGSTS_BYTES_PER_SECTOR]);
  {
    const double hit = pc_ratio(m[PC_M_LD_SECTORS_HIT], m[PC_M_LD_SECTORS]);
    o->ld_sector_hit_share = pc_has(hit) ? fmin(1.0, hit) : PC_NULL;
  }
  {
    /* The lanes a warp can have: a block of fewer than 32 threads, or a
     * partial last warp, caps threads per instruction with no branch at all. */
    const double threads = pc_dims(k->block);
    const int warp = (d && d->warp_size > 0) ? d->warp_size : 32;
    o->lanes_per_warp_max = pc_has(threads) && threads > 0 ? threads / ceil(threads / warp) : PC_NULL;
  }
  o->threads_per_instruction = pc_nonneg(m[PC_M_THREAD_INST_PER_INST]);
  o->threads_per_instruction_pred_on = pc_nonneg(m[PC_M_THREAD_INST_PRED_ON_PER_INST]);
  o->achieved_occupancy_pct = pc_nonneg(m[PC_M_WARPS_ACTIVE_PCT]);

  pc_occ_view occ;
  pc_occ_resolve(k, d, &occ);
  o->theoretical_occupancy_pct = occ.theoretical_pct;

  o->flops = pc_flops(m);
  double rd = pc_nonneg(m[PC_M_DRAM_BYTES_READ]), wr = pc_nonneg(m[PC_M_DRAM_BYTES_WRITE]);
  o->dram_bytes = (pc_has(rd) && pc_has(wr)) ? rd + wr : PC_NULL;
  o->arithmetic_intensity = pc_ratio(o->flops, o->dram_bytes);
  /* bytes per ns is GB/s; flops per ns is GFLOP/s. */
  o->dram_gbps = pc_ratio(o->dram_bytes, m[PC_M_DURATION]);
  o->gflops = pc_ratio(o->flops, m[PC_M_DURATION]);
  {
    /* Tensor-core FLOPs are not counted: with the tensor pipe busy, the
     * CUDA-core FLOPs are not the kernel's, so intensity and FLOP/s stay
     * unknown rather than wrong. */
    const double tp = pc_larger(k, PC_M_PIPE_TENSOR_PCT, PC_M_PIPE_TENSOR_GMMA_PCT);
    const double fma = pc_nonneg(k->metric[PC_M_PIPE_FMA_PCT]);
    /* A kernel whose FMA pipe is busier than its tensor pipe does its FLOPs
     * on the CUDA cores (mysteryB and C: tensor 1.5-2.9%, FMA 60-88%); the
     * few tensor instructions beside them do not make the count wrong. */
    if (pc_has(tp) && tp > PC_T(PC_T_TENSOR_ACTIVE_PCT) && !(pc_has(fma) && fma > tp))
      o->arithmetic_intensity = o->gflops = PC_NULL;
  }
  /* DRAM bytes of a multi-pass kernel replay are not one cold run's: CUPTI
   * 13.0 neither flushes nor controls caches between passes, so a later pass
   * finds the data in L2 (reads 62-86% low against ncu --cache-control all on
   * the H200) and the replay's memory restore adds write-backs (writes up to
   * 31 times ncu's); a 1-pass collection matched ncu to 0.01%
   * (docs/measurements/2026-11-30-h200/accuracy.md, docs/cupti.md).  Their
   * intensity and bandwidth would put the kernel in the wrong place on a
   * roofline: unknown instead.  Offline exports (passes 0) keep theirs. */
  if (k->passes > 1 && !k->dram_cold) o->arithmetic_intensity = o->dram_gbps = PC_NULL;
  o->memory_pct = pc_memory_pct(k, d, NULL);
  o->compute_pct = pc_compute_pct(k, d, NULL);
  k->busiest_pipe = pc_busiest(k, d, 0, 1);
  k->busiest_memory = pc_busiest(k, d, 1, 1);

  const double local[2] = {m[PC_M_LOCAL_LD_SECTORS], m[PC_M_LOCAL_ST_SECTORS]};
  const double w2[2] = {1, 1};
  o->local_sectors = pc_sum_measured(local, w2, 2);
  {
    /* Local traffic against all traffic: the L2's sectors (TMA and cp.async
     * included) or the LSU's global sectors, whichever is larger. */
    const double ldsec = pc_nonneg(m[PC_M_LD_SECTORS]), stsec = pc_nonneg(m[PC_M_ST_SECTORS]);
    const double l2sec = pc_nonneg(m[PC_M_L2_SECTORS]);
    double global = (pc_has(ldsec) && pc_has(stsec)) ? ldsec + stsec : PC_NULL;
    if (pc_has(l2sec) && (pc_is_null(global) || l2sec > global)) global = l2sec;
    /* What L1 serves again crosses to L2 no more than a shared-memory
     * access does: where the hits were measured (an ncu --set full export),
     * only the local sectors that missed L1 are traffic (a stack array whose
     * loads hit L1 99.98%, ncu counting no spilled request, is not spilling
     * to memory; the spill pairs of kernels/advice miss L1 on 19% to 25% of
     * their local loads and pay 1.5x to 1.7x unrolled). */
    double lmiss = o->local_sectors;
    const double lh[2] = {m[PC_M_LOCAL_LD_SECTORS_HIT], m[PC_M_LOCAL_ST_SECTORS_HIT]};
    const double hits = pc_sum_measured(lh, w2, 2);
    if (pc_has(lmiss) && pc_has(hits) && pc_has(pc_nonneg(lh[0])) && pc_has(pc_nonneg(lh[1])))
      lmiss = fmax(0.0, lmiss - hits);
    o->local_share = (pc_has(lmiss) && pc_has(global) && lmiss + global > 0) ? lmiss / (lmiss + global) : PC_NULL;
  }
  o->bank_conflict_share = pc_ratio(m[PC_M_SHARED_BANK_CONFLICTS_LD], m[PC_M_SHARED_WAVEFRONTS_LD]);
  double atom = pc_nonneg(m[PC_M_L2_ATOM_REQUESTS]), red = pc_nonneg(m[PC_M_L2_RED_REQUESTS]);
  double ldr = pc_nonneg(m[PC_M_LD_REQUESTS]), str = pc_nonneg(m[PC_M_ST_REQUESTS]);
  const double l2req = pc_nonneg(m[PC_M_L2_REQUESTS]);
  /* Seed 004 Decision 5: relative to every L2 request (LSU, cp.async, TMA
   * alike).  Older exports lack lts__t_requests: the LSU requests then. */
  if (pc_has(l2req))
    o->atomic_share = (pc_has(atom) && pc_has(red)) ? (l2req > 0 ? fmin(1.0, (atom + red) / l2req) : 0.0) : PC_NULL;
  else
    o->atomic_share = pc_ratio(atom + red, ldr + str + atom + red); /* NaN propagates */

  o->issue_active = pc_nonneg(m[PC_M_ISSUE_ACTIVE]);
  o->warps_active = pc_nonneg(m[PC_M_WARPS_ACTIVE]);
  o->warps_eligible = pc_nonneg(m[PC_M_WARPS_ELIGIBLE]);

  o->waves_per_sm = pc_nonneg(k->attr.waves_per_sm);
  if (pc_is_null(o->waves_per_sm) && d && d->sm_count > 0 && pc_has(occ.blocks_per_sm) && occ.blocks_per_sm > 0)
    o->waves_per_sm = pc_dims(k->grid) / (occ.blocks_per_sm * d->sm_count);
}

/* ==== The walk ============================================================= */

enum { PC_PRIO_HIT = 0, PC_PRIO_NOTE = 1, PC_PRIO_MISSING = 2 };
#define PC_WALK_MAX 32

typedef struct pc_walk {
  pc_finding f[PC_WALK_MAX];
  int prio[PC_WALK_MAX];
  int eligible[PC_WALK_MAX]; /* may be the verdict */
  size_t n;
  int missing_step;          /* first step 2-5 with a missing input, 0 if none */
  char missing[PC_ADVICE_MAX]; /* missing metric names, comma-separated */
  int nmissing;              /* names in `missing` */
  int missing_more;          /* names that did not fit */
} pc_walk;

/* Room the not_assessed verdict's sentence needs around the names. */
#define PC_MISSING_LIST_MAX (PC_ADVICE_MAX - 130)

static void pc_finding_vset(pc_finding *f, int step, perfcheck_cause cause, const char *metric, double value,
                            double threshold, const char *fmt, va_list ap) {
  memset(f, 0, sizeof *f);
  f->step = step;
  f->cause = cause;
  snprintf(f->metric, sizeof f->metric, "%s", metric ? metric : "");
  f->value = value;
  f->threshold = threshold;
  if (fmt && !pc_walk_dry) vsnprintf(f->advice, sizeof f->advice, fmt, ap);
}

static void pc_finding_set(pc_finding *f, int step, perfcheck_cause cause, const char *metric, double value,
                           double threshold, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  pc_finding_vset(f, step, cause, metric, value, threshold, fmt, ap);
  va_end(ap);
}

static pc_finding *pc_walk_add(pc_walk *w, int prio, int eligible) {
  if (w->n >= PC_WALK_MAX) return NULL;
  w->prio[w->n] = prio;
  w->eligible[w->n] = eligible;
  return &w->f[w->n++];
}

/* A hit: a cause the step caught; the first eligible hit is the verdict. */
static void pc_hit(pc_walk *w, int step, perfcheck_cause cause, const char *metric, double value, double threshold,
                   const char *fmt, ...) {
  pc_finding *f = pc_walk_add(w, PC_PRIO_HIT, 1);
  if (!f) return;
  va_list ap;
  va_start(ap, fmt);
  pc_finding_vset(f, step, cause, metric, value, threshold, fmt, ap);
  va_end(ap);
}

/* A note: worth saying, never the verdict. */
static void pc_note(pc_walk *w, int step, perfcheck_cause cause, const char *metric, double value, double threshold,
                    const char *fmt, ...) {
  pc_finding *f = pc_walk_add(w, PC_PRIO_NOTE, 0);
  if (!f) return;
  va_list ap;
  va_start(ap, fmt);
  pc_finding_vset(f, step, cause, metric, value, threshold, fmt, ap);
  va_end(ap);
}

/* A check whose input was not measured.  `metric` names what is missing. */
static void pc_missing(pc_walk *w, int step, const char *metric, const char *check) {
  pc_finding *f = pc_walk_add(w, PC_PRIO_MISSING, 0);
  if (f)
    pc_finding_set(f, step, PERFCHECK_CAUSE_NOT_ASSESSED, metric, PC_NULL, PC_NULL,
                   "Not assessed (%s): %s was not measured.", check, metric);
  if (step < 2) return; /* step 1 is a finding only: the walk starts at step 2 */
  if (w->missing_step == 0) w->missing_step = step;
  if (strstr(w->missing, metric)) return;
  size_t used = strlen(w->missing), need = strlen(metric) + (used ? 2 : 0);
  if (!w->missing_more && used + need < PC_MISSING_LIST_MAX) { /* names stay in walk order */
    snprintf(w->missing + used, sizeof w->missing - used, "%s%s", used ? ", " : "", metric);
    w->nmissing++;
  } else {
    w->missing_more++;
  }
}

/* The name of the missing input of a ratio a / b (both, or the one). */
static const char *pc_which_missing(double a, double b, const char *ratio, const char *na, const char *nb) {
  int ma = pc_is_null(pc_nonneg(a)), mb = pc_is_null(pc_nonneg(b));
  if (ma && mb) return ratio;
  return ma ? na : nb;
}

static perfcheck_bound pc_walk_step2(const pc_kernel *k, const pc_device *d) {
  const double mem = k->derived.memory_pct, comp = k->derived.compute_pct, hi = PC_T(PC_T_CEILING_HIGH_PCT);
  const double ai = k->derived.arithmetic_intensity, ridge = d ? d->ridge_flop_per_byte : PC_NULL;
  if (pc_has(mem) && mem >= hi && (pc_is_null(comp) || mem >= comp)) return PERFCHECK_BOUND_MEMORY;
  if (pc_has(comp) && comp >= hi && (pc_is_null(mem) || comp > mem)) return PERFCHECK_BOUND_COMPUTE;
  if (pc_has(mem) && pc_has(comp)) return PERFCHECK_BOUND_LATENCY;
  /* No usable percentages: the roofline.  Below the ridge a kernel is memory
   * bound whatever its arithmetic looks like (seed 000 step 2). */
  if (pc_has(ai) && pc_has(ridge)) return ai < ridge ? PERFCHECK_BOUND_MEMORY : PERFCHECK_BOUND_COMPUTE;
  return PERFCHECK_BOUND_UNKNOWN;
}

/* Whether what global memory does can be what a kernel waits on: its
 * memory side is busy (ceiling_high_pct), or its warps stall mostly waiting
 * on global memory (long_scoreboard for loads, drain for stores, the
 * local/global and texture queues), or the stall reasons were not measured
 * (then no evidence clears it).  A traffic defect -- uncoalesced accesses,
 * as bank conflicts with an idle L1 -- costs nothing the kernel waits on
 * otherwise: a pointer chase whose warps wait at a barrier with L2 at 4%
 * ran 3.1x faster without the barrier, and coalescing could not have
 * helped (kernels/advice barrier_uneven, H200).  Seed 004 Decision 5 is the
 * memory-heavy branch; its Decision 3 lists coalescing among the changes
 * for long_scoreboard.  When it returns 0, `why` says what the kernel does
 * instead. */
static int pc_waits_on_memory(const pc_kernel *k, char *why, size_t n) { /* one-channel-ok: a verdict's reason */
  /* The levels uncoalesced sectors load are L2 and DRAM (ncu's
   * UncoalescedAccess.py weighs the gain by L2's load); L1/shared memory busy
   * with shared-memory traffic is not waiting on them (the tutorial's 2D
   * register-tiled SGEMM: L1 at 85% with its shared loads, L2 at 12%, its
   * scattered epilogue stores 4 bytes a sector). */
  double mem = pc_global_path_pct(k);
  if (pc_is_null(mem)) mem = k->derived.memory_pct;
  if (pc_has(mem) && mem >= PC_T(PC_T_CEILING_HIGH_PCT)) return 1;
  const pc_stall *st = &k->diag.stall;
  if (!st->reason) return 1;
  static const char *const memory_stalls[] = {"long_scoreboard", "drain", "lg_throttle", "tex_throttle"};
  for (size_t i = 0; i < sizeof memory_stalls / sizeof memory_stalls[0]; i++)
    if (strcmp(st->reason, memory_stalls[i]) == 0) return 1;
  snprintf(why, n, "L2 and DRAM are at %.1f%% of their peaks at most and warps stall mostly on %s (%.0f%% of stall "
           "cycles)",
           pc_has(mem) ? mem : 0.0, st->reason, st->share * 100.0);
  return 0;
}

/* Coalescing of global loads (ld = 1) or stores (ld = 0).  The rule is
 * bytes used per fetched sector, right for every access width: 32 when every
 * fetched byte is used, 4 for 4-byte lanes a sector apart.  Exports without
 * that counter fall back to sectors per request, which only settles the
 * question at its ends: at most 4 is coalesced whatever the width, above 16
 * is not coalesced for any width (32 lanes of 16-byte loads need 16); in
 * between it depends on the access width, which the export does not give,
 * so the step is not assessed (a vector kernel is never called uncoalesced
 * on sectors per request alone). */
static void pc_walk_coalescing(pc_walk *w, const pc_kernel *k, int ld) {
  const pc_derived *dv = &k->derived;
  const double bps = ld ? dv->bytes_per_sector_ld : dv->bytes_per_sector_st;
  const double spr = ld ? dv->sectors_per_request_ld : dv->sectors_per_request_st;
  const pc_metric_id sid = ld ? PC_M_LD_SECTORS : PC_M_ST_SECTORS, rid = ld ? PC_M_LD_REQUESTS : PC_M_ST_REQUESTS;
  const char *ratio = ld ? PC_SPR_LD : PC_SPR_ST;
  const char *bname = ld ? PC_BPS_LD : PC_BPS_ST;
  const perfcheck_cause cause = ld ? PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS : PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_STORES;
  const double requests = pc_nonneg(k->metric[rid]);
  const double bmax = PC_T(PC_T_BPS_MIN), smax = PC_T(PC_T_SPR_MAX), svec = PC_T(PC_T_SPR_VECTOR_MAX);
  const double slack = PC_T(PC_T_SPR_SLACK);
  if (requests == 0) return; /* no global loads (stores) at all: nothing to coalesce */
  /* A warp of one lane (a block of one thread) uses what it loads, and no
   * access pattern can change that: step 4 says so (partial_warps). */
  if (pc_has(dv->lanes_per_warp_max) && dv->lanes_per_warp_max < 2) return;
  /* This kind's share of the kernel's traffic: a few scattered stores of a
   * reduction's results are not its traffic, nor a TMA GEMM's one scattered
   * epilogue sector among its 343 million L2 sectors (cuBLAS TF32 on the
   * H200): the denominator is the LSU's global sectors or every L2 sector,
   * whichever is larger (as local memory's share). */
  const double mine = pc_nonneg(k->metric[sid]);
  const double ldsec = pc_nonneg(k->metric[PC_M_LD_SECTORS]), stsec = pc_nonneg(k->metric[PC_M_ST_SECTORS]);
  const double l2sec = pc_nonneg(k->metric[PC_M_L2_SECTORS]);
  double all = (pc_has(ldsec) && pc_has(stsec)) ? ldsec + stsec : PC_NULL;
  if (pc_has(all) && pc_has(l2sec) && l2sec > all) all = l2sec;
  const double share = (pc_has(mine) && pc_has(all) && all > 0) ? mine / all : PC_NULL;
  const int minor = pc_has(share) && share < PC_T(PC_T_COALESCING_SHARE_MIN);
  char idle[200] = "";
  const int waits = pc_waits_on_memory(k, idle, sizeof idle);
  if (pc_has(bps)) {
    if (bps == 0) return; /* no LDG (STG) bytes: the requests were cp.async or atomics */
    /* What L1 serves again costs nothing more at L2, but every sector is
     * still an L1 lookup: when L1 is the busiest memory level at its roof,
     * the hits are the traffic it waits on (lanes 2 MiB apart re-read by the
     * next warps: 88% L1 hits, L1 at 88%, 42% slower than coalesced; H200,
     * tests/gpu/diff_plant.cu). */
    double eff = bps;
    const pc_unit_load *mem = &k->busiest_memory;
    const int l1_roof = mem->name && strcmp(mem->name, "l1") == 0 && pc_has(mem->pct) &&
                        mem->pct >= PC_T(PC_T_AT_ROOF_PCT);
    const double h = ld && !l1_roof ? dv->ld_sector_hit_share : PC_NULL;
    if (pc_has(h)) eff = h >= 1.0 ? 32.0 : fmin(32.0, bps / (1.0 - h));
    if (eff <= bmax + 1e-9) {
      char why[96] = "";
      if (pc_has(h) && h > 0) snprintf(why, sizeof why, " (%.1f counting its %.0f%% L1 hits)", eff, h * 100.0);
      if (minor)
        pc_note(w, 3, cause, bname, bps, bmax,
                "%s are uncoalesced (%.1f of every 32 bytes used%s) but only %.1f%% of the kernel's global "
                "sectors: not what it waits on.",
                ld ? "Global loads" : "Global stores", bps, why, share * 100.0);
      else if (!waits)
        pc_note(w, 3, cause, bname, bps, bmax, "%s are uncoalesced (%.1f of every 32 bytes used%s) but %s: not what it "
                "waits on.",
                ld ? "Global loads" : "Global stores", bps, why, idle);
      else
        pc_hit(w, 3, cause, bname, bps, bmax,
               ld ? "Make a warp's lanes read consecutive addresses (transpose the index or stage the tile through "
                    "shared memory): the warp uses only %.1f of every 32 bytes it fetches%s."
                  : "Make a warp's lanes write consecutive addresses (swap the index roles or stage the tile through "
                    "shared memory): the warp uses only %.1f of every 32 bytes it writes%s.",
               bps, why);
    }
    /* Many sectors per request with every fetched byte used are wide
     * accesses, nothing to fix: no note. */
    if (pc_has(spr) && spr > smax + slack && eff <= bmax)
      pc_note(w, 3, cause, ratio, spr, smax, "%.1f sectors per request with %.1f of 32 bytes used per sector: the "
              "accesses are scattered.", spr, bps);
    return;
  }
  if (pc_has(spr)) {
    if (spr > svec + slack) {
      if (minor)
        pc_note(w, 3, cause, ratio, spr, svec,
                "%s touch %.1f sectors per request, more than any coalesced width needs, but they are only %.1f%% of "
                "the kernel's global sectors.",
                ld ? "Global loads" : "Global stores", spr, share * 100.0);
      else if (!waits)
        pc_note(w, 3, cause, ratio, spr, svec,
                "%s touch %.1f sectors per request, more than any coalesced width needs, but %s: not what it waits on.",
                ld ? "Global loads" : "Global stores", spr, idle);
      else
        pc_hit(w, 3, cause, ratio, spr, svec,
               ld ? "Make a warp's lanes read consecutive addresses (transpose the index or stage the tile through "
                    "shared memory): each load request fetches %.1f sectors, more than any coalesced access width "
                    "needs (bytes per sector were not measured: rule sectors_per_request_vector_max)."
                  : "Make a warp's lanes write consecutive addresses (swap the index roles or stage the tile through "
                    "shared memory): each store request touches %.1f sectors, more than any coalesced access width "
                    "needs (bytes per sector were not measured: rule sectors_per_request_vector_max).",
               spr);
    } else if (spr > smax + slack && !minor) {
      pc_missing(w, 3, bname,
                 ld ? "coalescing of global loads: sectors per request alone cannot tell wide accesses from "
                      "scattered ones"
                    : "coalescing of global stores: sectors per request alone cannot tell wide accesses from "
                      "scattered ones");
    }
    return;
  }
  pc_missing(w, 3, pc_which_missing(k->metric[sid], k->metric[rid], ratio, PC_NAME(sid), PC_NAME(rid)),
             ld ? "coalescing of global loads" : "coalescing of global stores");
}

/* cp.async (LDGSTS) loads: their own bytes per sector. */
static void pc_walk_ldgsts(pc_walk *w, const pc_kernel *k) {
  const double n = pc_nonneg(k->metric[PC_M_LDGSTS_INST]), bps = k->derived.bytes_per_sector_ldgsts;
  const double bmin = PC_T(PC_T_BPS_MIN);
  if (pc_is_null(n) || n == 0) return; /* no cp.async (or not measured: older exports know none) */
  char idle[200] = "";
  if (pc_has(bps) && bps > 0 && bps <= bmin + 1e-9) {
    if (pc_waits_on_memory(k, idle, sizeof idle))
      pc_hit(w, 3, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS, PC_BPS_LDGSTS, bps, bmin,
             "Make the cp.async copies of a warp cover consecutive addresses (align each tile row to 32 bytes and "
             "copy 16 bytes a lane): the warp uses only %.1f of every 32 bytes it fetches.",
             bps);
    else
      pc_note(w, 3, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS, PC_BPS_LDGSTS, bps, bmin,
              "cp.async copies use %.1f of every 32 bytes they fetch, but %s: not what the kernel waits on.", bps,
              idle);
  }
}

/* Local memory (step 3, whatever the bound): spills and dynamically indexed
 * arrays cost an LSU instruction and an L1 round trip on every access, so
 * they slow a compute-bound kernel as much as a memory-bound one (a FIR
 * filter whose ring buffer lived in local memory ran 1.7x faster unrolled,
 * with its ALU pipe at 66% and issue slots at 81%: kernels/advice
 * spill_ring, H200; seed 004: "a spilling kernel can be both
 * occupancy-limited and memory-bound").  A share of the traffic above
 * local_share_max is the verdict, less a finding; without the share, any
 * sector is the verdict; passing needs both counters on the memory side
 * (off it, counters that were not measured are not asked for, as step 3's
 * others are not). */
static void pc_walk_local(pc_walk *w, const pc_kernel *k, int memory_side) {
  const double *m = k->metric;
  const pc_derived *dv = &k->derived;
  const double lld = pc_nonneg(m[PC_M_LOCAL_LD_SECTORS]), lst = pc_nonneg(m[PC_M_LOCAL_ST_SECTORS]);
  const double lthr = PC_T(PC_T_LOCAL_SECTORS_MAX), lshare = PC_T(PC_T_LOCAL_SHARE_MAX);
  static const char spill_advice[] =
      "Keep thread-private data in registers: index local arrays only with compile-time constants and cut "
      "register pressure until -Xptxas -warn-spills reports no spills.";
  if (pc_has(dv->local_sectors) && dv->local_sectors > lthr) {
    if (pc_has(dv->local_share) && dv->local_share <= lshare)
      pc_note(w, 3, PERFCHECK_CAUSE_LOCAL_MEMORY_SPILLS, PC_LOCAL_SHARE, dv->local_share, lshare,
              "Local memory carries %.2f%% of the kernel's sectors (%.0f sectors): present, but not what it "
              "waits on.",
              dv->local_share * 100.0, dv->local_sectors);
    else if (pc_has(dv->local_share))
      pc_hit(w, 3, PERFCHECK_CAUSE_LOCAL_MEMORY_SPILLS, PC_LOCAL_SHARE, dv->local_share, lshare, "%s", spill_advice);
    else
      pc_hit(w, 3, PERFCHECK_CAUSE_LOCAL_MEMORY_SPILLS, PC_LOCAL, dv->local_sectors, lthr, "%s", spill_advice);
  } else if (memory_side && (pc_is_null(lld) || pc_is_null(lst))) {
    pc_missing(w, 3, pc_which_missing(lld, lst, PC_LOCAL, PC_NAME(PC_M_LOCAL_LD_SECTORS), PC_NAME(PC_M_LOCAL_ST_SECTORS)),
               "local-memory traffic");
  }
}

static void pc_walk_step3(pc_walk *w, const pc_kernel *k) {
  const double *m = k->metric;
  const pc_derived *dv = &k->derived;
  pc_walk_coalescing(w, k, 1);
  pc_walk_coalescing(w, k, 0);
  pc_walk_ldgsts(w, k);
  pc_walk_local(w, k, 1);

  /* Shared-memory bank conflicts: the verdict only when L1/shared memory is
   * busy (or its load was not measured); else the replays cost nothing the
   * kernel waits on. */
  const double bthr = PC_T(PC_T_BANK_CONFLICT_SHARE_MAX);
  if (pc_has(dv->bank_conflict_share)) {
    const double l1 = pc_larger(k, PC_M_L1_THROUGHPUT_PCT, PC_M_L1_WAVEFRONTS_PCT);
    const int busy = pc_is_null(l1) || l1 >= PC_T(PC_T_CEILING_HIGH_PCT);
    if (dv->bank_conflict_share > bthr && busy)
      pc_hit(w, 3, PERFCHECK_CAUSE_SHARED_BANK_CONFLICTS, PC_BANK, dv->bank_conflict_share, bthr,
             "Pad or remap shared-memory indices so the 32 lanes of a warp hit 32 different banks (for example "
             "tile[32][33] instead of tile[32][32]).");
    else if (dv->bank_conflict_share > bthr)
      pc_note(w, 3, PERFCHECK_CAUSE_SHARED_BANK_CONFLICTS, PC_BANK, dv->bank_conflict_share, bthr,
              "%.0f%% of shared-memory load wavefronts are bank-conflict replays, but L1/shared memory is only at "
              "%.1f%% of its peak: not what the kernel waits on.",
              dv->bank_conflict_share * 100.0, l1);
  } else if (pc_nonneg(m[PC_M_SHARED_WAVEFRONTS_LD]) == 0 && pc_has(pc_nonneg(m[PC_M_SHARED_BANK_CONFLICTS_LD]))) {
    /* No shared-memory loads. */
  } else {
    pc_missing(w, 3,
               pc_which_missing(m[PC_M_SHARED_BANK_CONFLICTS_LD], m[PC_M_SHARED_WAVEFRONTS_LD], PC_BANK,
                                PC_NAME(PC_M_SHARED_BANK_CONFLICTS_LD), PC_NAME(PC_M_SHARED_WAVEFRONTS_LD)),
               "shared-memory bank conflicts");
  }

  /* Atomics: seed 004's "relative to total L2 requests": atom + red among
   * every L2 request the kernel made (LSU, cp.async and TMA alike), or among
   * its LSU requests in exports without lts__t_requests. */
  const double athr = PC_T(PC_T_ATOMIC_SHARE_MAX);
  const int l2 = pc_has(pc_nonneg(m[PC_M_L2_REQUESTS]));
  if (pc_has(dv->atomic_share)) {
    if (dv->atomic_share > athr)
      pc_hit(w, 3, PERFCHECK_CAUSE_ATOMIC_CONTENTION, l2 ? PC_ATOMIC_L2 : PC_ATOMIC, dv->atomic_share, athr,
             "Aggregate atomics before they reach L2: combine within the warp (__reduce_add_sync or shuffles) and "
             "the block (shared memory), then issue one global atomic per block.");
  } else {
    /* All inputs measured means no traffic at all: nothing to contend. */
    const pc_metric_id aid[4] = {PC_M_L2_ATOM_REQUESTS, PC_M_L2_RED_REQUESTS, PC_M_LD_REQUESTS, PC_M_ST_REQUESTS};
    const char *miss = NULL;
    for (int i = 0; i < (l2 ? 2 : 4); i++)
      if (pc_is_null(pc_nonneg(m[aid[i]]))) miss = miss ? (l2 ? PC_ATOMIC_L2 : PC_ATOMIC) : PC_NAME(aid[i]);
    if (miss) pc_missing(w, 3, miss, "atomic contention");
  }
}

/* Step 4, against the lanes the launch allows: a block of fewer than 32
 * threads, or a partial last warp, caps threads per instruction without any
 * branch diverging.  Then the launch configuration is the verdict
 * (partial_warps), and divergence is judged against what is possible. */
double pc_checklist_divergence_threshold(const pc_kernel *k) {
  const double lanes = k->derived.lanes_per_warp_max;
  const double possible = pc_has(lanes) ? fmin(lanes, 32.0) : 32.0;
  return fmin(PC_T(PC_T_TPI_MIN), PC_T(PC_T_LANE_USE_MIN) * possible);
}

static void pc_walk_step4(pc_walk *w, const pc_kernel *k) {
  const double tpi = k->derived.threads_per_instruction, pred = k->derived.threads_per_instruction_pred_on;
  const double thr = PC_T(PC_T_TPI_MIN), pthr = PC_T(PC_T_TPI_PRED_ON_MIN), use = PC_T(PC_T_LANE_USE_MIN);
  const double lanes = k->derived.lanes_per_warp_max;
  const double possible = pc_has(lanes) ? fmin(lanes, 32.0) : 32.0;
  if (pc_has(lanes) && lanes < thr) {
    const double threads = pc_dims(k->block);
    pc_hit(w, 4, PERFCHECK_CAUSE_PARTIAL_WARPS, "launch__block_size / ceil(launch__block_size / 32)", lanes, thr,
           "Launch blocks whose size is a multiple of 32 threads: with %.0f threads a block, a warp has at most "
           "%.1f of its 32 lanes to work with, whatever the code does (put several items per block, or more "
           "threads per item).",
           threads, lanes);
  }
  if (pc_has(tpi)) {
    if (tpi < pc_checklist_divergence_threshold(k)) /* below 24, and below 3/4 of the lanes allowed */
      pc_hit(w, 4, PERFCHECK_CAUSE_DIVERGENT_WARPS, PC_NAME(PC_M_THREAD_INST_PER_INST), tpi, thr,
             "Regroup the work so that all lanes of a warp take the same path (branch on the warp index, not "
             "the lane): only %.1f of the %.0f lanes the launch allows do work per instruction.",
             tpi, possible);
  } else {
    pc_missing(w, 4, PC_NAME(PC_M_THREAD_INST_PER_INST), "warp divergence");
  }
  if (pc_has(pred) && pred < pthr && pred < use * possible)
    pc_note(w, 4, PERFCHECK_CAUSE_DIVERGENT_WARPS, PC_NAME(PC_M_THREAD_INST_PRED_ON_PER_INST), pred, pthr,
            "Predicated-off lanes waste issue slots: only %.1f of 32 lanes are predicated on per instruction, so "
            "hoist guards out of inner loops or regroup the work so lanes agree.",
            pred);
}

static perfcheck_cause pc_occupancy_cause(pc_limiter l) {
  switch (l) {
    case PC_LIMIT_REGISTERS:
      return PERFCHECK_CAUSE_OCCUPANCY_REGISTERS;
    case PC_LIMIT_SHARED_MEMORY:
      return PERFCHECK_CAUSE_OCCUPANCY_SHARED_MEMORY;
    case PC_LIMIT_WARPS:
      return PERFCHECK_CAUSE_OCCUPANCY_WARPS;
    case PC_LIMIT_BLOCKS:
      return PERFCHECK_CAUSE_OCCUPANCY_BLOCKS;
    default:
      return PERFCHECK_CAUSE_NONE;
  }
}

static const char *pc_occupancy_advice(pc_limiter l) {
  switch (l) {
    case PC_LIMIT_REGISTERS:
      return "Registers per thread cap residency at %.0f block(s) per SM (%.0f%% theoretical occupancy) while %s: "
             "keep fewer values live or set __launch_bounds__, and check that no spills appear.";
    case PC_LIMIT_SHARED_MEMORY:
      return "Shared memory per block (static + dynamic) caps residency at %.0f block(s) per SM (%.0f%% theoretical "
             "occupancy) while %s: request less shared memory per block.";
    case PC_LIMIT_WARPS:
      return "The block size caps residency at %.0f block(s) per SM (%.0f%% theoretical occupancy) while %s: choose a "
             "block size whose warp count divides the SM's warp slots.";
    default:
      return "The per-SM block limit is reached first, at %.0f block(s) per SM (%.0f%% theoretical occupancy), while "
             "%s: use larger blocks so the warp slots fill.";
  }
}

/* ==== Warp stalls ========================================================== */

/* Each stall reason ncu reports, what kind of wait it is, and the change
 * NVIDIA's triage guide gives for it (seed 004, Symptom 3.8.2).  A latency
 * stall waits on a result (more warps or more independent work hide it); a
 * throttle waits on a full queue or a busy pipe (more warps only queue up
 * behind it); a synchronization stall waits on sibling warps or on memory
 * ordering (seed 004: "caused by diverging code paths before the barrier";
 * ncu's barrier rule: smaller blocks "increase eligible warps without
 * affecting occupancy"), so more resident warps add waiters. */
typedef enum { PC_STALL_LATENCY = 0, PC_STALL_THROTTLE = 1, PC_STALL_OTHER = 2, PC_STALL_SYNC = 3 } pc_stall_kind;

typedef struct pc_stall_def {
  const char *reason;
  pc_metric_id id;
  pc_stall_kind kind;
  const char *change; /* the one change, a clause */
} pc_stall_def;

static const pc_stall_def pc_stall_defs[] = {
    {"long_scoreboard", PC_M_STALL_LONG_SCOREBOARD, PC_STALL_LATENCY,
     "keep more bytes in flight per thread: issue several independent loads before using them (unroll, several "
     "elements a thread), load 16 bytes at a time, or prefetch into shared memory (cp.async, TMA)"},
    {"barrier", PC_M_STALL_BARRIER, PC_STALL_SYNC,
     "make the work between __syncthreads() even across the block's warps, or synchronize less often (fewer "
     "barriers, warp-level sync, smaller blocks)"},
    {"short_scoreboard", PC_M_STALL_SHORT_SCOREBOARD, PC_STALL_LATENCY,
     "wait less on shared memory and special functions: remove bank conflicts, use fewer and wider shared-memory "
     "accesses, cheaper math (fewer transcendentals)"},
    {"wait", PC_M_STALL_WAIT, PC_STALL_LATENCY,
     "give each thread more independent instructions between dependent ones (unroll, interleave independent chains): "
     "back-to-back dependencies wait out fixed pipeline latencies"},
    {"math_pipe_throttle", PC_M_STALL_MATH_PIPE_THROTTLE, PC_STALL_THROTTLE,
     "do less work on the busiest math pipe (fewer or cheaper instructions, another pipe or precision): more warps "
     "would only queue for it"},
    {"mio_throttle", PC_M_STALL_MIO_THROTTLE, PC_STALL_THROTTLE,
     "issue fewer, wider shared-memory accesses (16 bytes a lane) and fewer special-function calls: the MIO queue is "
     "full"},
    {"lg_throttle", PC_M_STALL_LG_THROTTLE, PC_STALL_THROTTLE,
     "combine narrow global loads and stores into 16-byte vector accesses and remove local-memory spills: the "
     "local/global queue is full"},
    {"tex_throttle", PC_M_STALL_TEX_THROTTLE, PC_STALL_THROTTLE,
     "issue fewer texture fetches, or read through plain global loads: the texture queue is full"},
    {"gmma", PC_M_STALL_GMMA, PC_STALL_THROTTLE,
     "keep the tensor cores fed: balance the TMA and wgmma pipeline stages (warps wait on warpgroup MMA)"},
    {"drain", PC_M_STALL_DRAIN, PC_STALL_OTHER,
     "store less at the kernel's end (reduce before storing): warps wait for their writes to drain before exiting"},
    {"membar", PC_M_STALL_MEMBAR, PC_STALL_SYNC, "use fewer memory fences (__threadfence), or narrower scopes"},
    {"imc_miss", PC_M_STALL_IMC_MISS, PC_STALL_OTHER,
     "read constant memory with the same address across a warp: the immediate-constant cache misses"},
    {"no_instruction", PC_M_STALL_NO_INSTRUCTION, PC_STALL_OTHER,
     "fuse this kernel with its neighbours or shrink its code: warps wait for instructions (a very short kernel, or "
     "jumps across large code)"},
    {"branch_resolving", PC_M_STALL_BRANCH_RESOLVING, PC_STALL_OTHER, "branch less, and warp-uniformly"},
    {"dispatch_stall", PC_M_STALL_DISPATCH_STALL, PC_STALL_OTHER,
     "expect little from latency hiding: ready instructions wait for the dispatcher (near the issue limit)"},
    {"sleeping", PC_M_STALL_SLEEPING, PC_STALL_OTHER, "sleep and yield less (nanosleep, spin-waits)"},
    {"misc", PC_M_STALL_MISC, PC_STALL_OTHER, "look at the source view: a miscellaneous hardware reason dominates"},
};
#define PC_NSTALLS (sizeof pc_stall_defs / sizeof pc_stall_defs[0])

static const pc_stall_def *pc_stall_def_of(const char *reason) {
  for (size_t i = 0; reason && i < PC_NSTALLS; i++)
    if (strcmp(pc_stall_defs[i].reason, reason) == 0) return &pc_stall_defs[i];
  return NULL;
}

const char *pc_stall_reason_canonical(const char *word, const char **metric) {
  const pc_stall_def *d = (word && *word) ? pc_stall_def_of(word) : NULL;
  if (metric) *metric = d ? pc_metric_by_id(d->id)->name : NULL;
  return d ? d->reason : NULL;
}

/* The dominant stall of a kernel from its measured stall reasons. */
static void pc_stall_compute(const pc_kernel *k, pc_stall *st) {
  memset(st, 0, sizeof *st);
  st->per_issue = st->share = st->second_share = PC_NULL;
  double sum = 0, top = -1, second = -1;
  size_t ti = 0, si = 0;
  for (size_t i = 0; i < PC_NSTALLS; i++) {
    const double v = pc_nonneg(k->metric[pc_stall_defs[i].id]);
    if (pc_is_null(v)) continue;
    st->reasons_measured++;
    sum += v;
    if (v > top) {
      second = top, si = ti;
      top = v, ti = i;
    } else if (v > second) {
      second = v, si = i;
    }
  }
  if (st->reasons_measured == 0 || !(sum > 0)) return;
  /* Shares are of every stall cycle (seed 004 3.8.2: "more than ~30% of
   * total stall cycles").  A set that measures some reasons (perfcheck's
   * default: five) takes the total from the warp states: every active warp
   * is in one state each cycle, so the reasons, `selected` (one warp per
   * issue) and `not_selected` add up to warps active per issue (ncu's "warp
   * cycles per issued instruction"; within 1% on the H200 exports where all
   * 19 are measured).  Over the five alone, a 29% math_pipe_throttle (ncu,
   * torch.randn) read as dominant. */
  double total = sum;
  if ((size_t)st->reasons_measured < PC_NSTALLS) {
    const double wa = pc_nonneg(k->metric[PC_M_WARPS_ACTIVE]), ia = pc_nonneg(k->metric[PC_M_ISSUE_ACTIVE]);
    const double ns = pc_nonneg(k->metric[PC_M_STALL_NOT_SELECTED]);
    if (pc_has(wa) && pc_has(ia) && ia > 0) {
      const double all = wa / ia - 1.0 - (pc_has(ns) ? ns : 0.0);
      if (all > total) total = all;
    }
  }
  st->reason = pc_stall_defs[ti].reason;
  st->metric = pc_metric_by_id(pc_stall_defs[ti].id)->name;
  st->per_issue = top;
  st->share = top / total;
  if (second > 0) {
    st->second = pc_stall_defs[si].reason;
    st->second_share = second / total;
  }
}

/* grid_too_small, the hit. */
static void pc_walk_grid_hit(pc_walk *w, double waves) {
  pc_hit(w, 5, PERFCHECK_CAUSE_GRID_TOO_SMALL, PC_WAVES, waves, PC_T(PC_T_WAVES_MIN),
         "Launch more blocks: the grid fills only %.2f of one wave of the GPU's SMs and no unit is near its roof, "
         "so spread independent work (an outer loop) across more blocks.",
         waves);
}

/* A grid of fewer blocks than the GPU has SMs leaves SMs idle, and every
 * percentage the other steps read is of a GPU mostly idle: NVIDIA's triage
 * guide asks this first (seed 004 Decision 1), so it comes before step 3 --
 * after the roofs: a kernel with a unit at its roof is not held back by its
 * idle SMs (a cuDNN weight-gradient kernel on 126 of 132 SMs at 88% tensor). */
/* Whether a kernel of a small grid has a unit at its roof across the GPU.
 * A metric normalized by active cycles (pct_of_peak_sustained_active: the
 * pipes, issue slots, L1) reads the SMs that had work, so it counts in
 * proportion to them (a one-thread kernel reads 85% of L1 on its one SM);
 * one normalized by elapsed cycles is the GPU's already (seed 004 §3.9.1:
 * elapsed for limiter classification). */
static int pc_grid_at_roof(const pc_kernel *k, const pc_device *d) {
  const double blocks = pc_dims(k->grid);
  const double fill = (d && d->sm_count > 0 && pc_has(blocks)) ? fmin(1.0, blocks / d->sm_count) : 1.0;
  for (size_t i = 0; i < PC_NUNITS; i++) {
    double v = pc_unit_pct(i, k, d);
    if (pc_is_null(v)) continue;
    const char *metric = pc_unit_defs[i].metric;
    if (strstr(metric, "pct_of_peak_sustained_active") || strstr(metric, "per_cycle_active")) v *= fill;
    if (v >= PC_T(PC_T_AT_ROOF_PCT)) return 1;
  }
  const double tp = pc_larger(k, PC_M_PIPE_TENSOR_PCT, PC_M_PIPE_TENSOR_GMMA_PCT);
  return pc_has(tp) && tp <= PC_T(PC_T_PCT_TRUSTED_MAX) && tp * fill >= PC_T(PC_T_TENSOR_DOMINATED_PCT);
}

static int pc_grid_idles_sms(const pc_kernel *k, const pc_device *d) {
  const double waves = k->derived.waves_per_sm, blocks = pc_dims(k->grid);
  return pc_has(waves) && waves < PC_T(PC_T_WAVES_MIN) && d && d->sm_count > 0 && pc_has(blocks) &&
         blocks < d->sm_count && !pc_grid_at_roof(k, d);
}

/* Step 5's resource limit, with evidence (seed 002: occupancy is not the
 * goal; seed 004 Decisions 1 and 3): theoretical occupancy below full caps
 * an achieved occupancy that is low and reaches the cap, no unit is near its
 * roof, and the warp states show schedulers with idle issue slots for want
 * of eligible warps -- few eligible warps, and no full queue (a throttle) as
 * the dominant stall.  Otherwise low occupancy is a finding. */
static void pc_walk_occupancy(pc_walk *w, const pc_kernel *k, const pc_device *d, const pc_stall *st) {
  const double theo = k->derived.theoretical_occupancy_pct, ach = k->derived.achieved_occupancy_pct;
  const double low = PC_T(PC_T_ACHIEVED_LOW_PCT), full = PC_T(PC_T_THEORETICAL_FULL_PCT);
  const char *ach_name = PC_NAME(PC_M_WARPS_ACTIVE_PCT);
  pc_occ_view occ;
  pc_occ_resolve(k, d, &occ);
  if (!(pc_has(theo) && theo < full - 1e-6)) {
    if (pc_has(theo)) {
      if (pc_has(ach) && ach < low)
        pc_note(w, 5, PERFCHECK_CAUSE_LATENCY_BOUND, ach_name, ach, low,
                "Achieved occupancy (%.1f%%) is well below the theoretical %.0f%%: look for a tail (a last wave "
                "with few blocks) or uneven work across blocks.",
                ach, theo);
      else if (pc_is_null(ach))
        pc_missing(w, 5, ach_name, "achieved occupancy");
    } else if (!(pc_has(ach) && ach >= low)) {
      /* Theoretical unknown: only a healthy achieved value clears the step. */
      pc_missing(w, 5, pc_is_null(ach) ? ach_name : PC_THEORETICAL, "occupancy");
    }
    return;
  }
  if (pc_is_null(ach)) {
    pc_missing(w, 5, ach_name, "occupancy");
    return;
  }
  if (ach >= low) return;
  if (occ.binding == PC_LIMIT_NONE) {
    pc_missing(w, 5, "launch__occupancy_limit_*",
               occ.mismatch ? "the occupancy limiter; perfcheck's model disagrees with the blocks per SM reported"
                            : "the occupancy limiter");
    return;
  }
  const perfcheck_cause cause = pc_occupancy_cause(occ.binding);
  pc_unit_load top;
  const int near_roof = pc_checklist_near_roof(k, d, &top);
  const double cap = PC_T(PC_T_OCC_CAP_SHARE) * theo;
  const double elig = k->derived.warps_eligible, starved = PC_T(PC_T_ELIGIBLE_STARVED);
  const pc_stall_def *sd = pc_stall_def_of(st->reason);
  /* A tensor-core kernel does its work on the tensor pipe (busier than
   * tensor_active_pct and than the FMA pipe): its tiles live in registers
   * and shared memory by design, so its few resident warps are not the
   * limit whatever the pipe's load (seed 004 Decision 1: low occupancy
   * matters "unless the workload is dominated by Tensor Core usage"; the
   * mma.sync GEMM of advice pair mma_cpasync, tensor 24% against FMA 4% and
   * ALU 7%, ran 1.44x with cp.async at the same occupancy). */
  const double tp = pc_larger(k, PC_M_PIPE_TENSOR_PCT, PC_M_PIPE_TENSOR_GMMA_PCT);
  int tensor_work = pc_has(tp) && tp <= PC_T(PC_T_PCT_TRUSTED_MAX) && tp > PC_T(PC_T_TENSOR_ACTIVE_PCT);
  /* ... and busier than every CUDA-core arithmetic pipe measured (FMA, ALU,
   * FP64): a stencil with 1.2% of tensor activity beside its ALU at 23% does
   * its work on the CUDA cores. */
  static const pc_metric_id cuda_core[] = {PC_M_PIPE_FMA_PCT, PC_M_PIPE_ALU_PCT, PC_M_PIPE_FP64_PCT};
  for (size_t i = 0; tensor_work && i < sizeof cuda_core / sizeof cuda_core[0]; i++) {
    const double v = pc_nonneg(k->metric[cuda_core[i]]);
    if (pc_has(v) && v >= tp) tensor_work = 0;
  }
  /* More resident warps are the change for a latency only when warps wait
   * on results other warps' work can overlap: the dominant stall (above
   * stall_dominant_share of the stall cycles) is long_scoreboard (seed 004:
   * the bytes-in-flight model, whose two tools are resident warps and
   * independent loads) or wait ("hide latency with more active warps").  A
   * full queue or busy pipe (a throttle), warps waiting on each other
   * (barrier, membar: CUB's Onesweep sort, barrier the largest stall, ran
   * 0.95x at twice the occupancy; advice pair occ_cold_barrier 1.12x), a
   * shared-memory or special-function scoreboard, or no dominant stall at
   * all name other changes (latency_bound). */
  const int dominant = sd && st->share > PC_T(PC_T_STALL_DOMINANT_SHARE);
  const int hideable = dominant && (strcmp(sd->reason, "long_scoreboard") == 0 || strcmp(sd->reason, "wait") == 0);
  if (near_roof) {
    pc_note(w, 5, cause, ach_name, ach, low,
            "Occupancy is low (%.1f%% achieved, %.0f%% theoretical) but %s is at %.1f%% of its peak: more resident "
            "warps would add nothing, so leave it.",
            ach, theo, pc_unit_words(top.metric), top.pct);
  } else if (tensor_work) {
    pc_note(w, 5, cause, PC_NAME(PC_M_PIPE_TENSOR_PCT), tp, PC_T(PC_T_TENSOR_ACTIVE_PCT),
            "Occupancy is low (%.1f%% achieved, %.0f%% theoretical) but the kernel's work is on the tensor pipe "
            "(%.1f%%): its tiles live in registers and shared memory by design, so leave its occupancy.",
            ach, theo, tp);
  } else if (ach < cap) {
    pc_note(w, 5, cause, ach_name, ach, cap,
            "Achieved occupancy (%.1f%%) is well below the %.0f%% the resources allow: the launch leaves warp slots "
            "empty (a tail, uneven blocks), so raising the limit would not fill them.",
            ach, theo);
  } else if (pc_has(elig) && elig >= starved) {
    pc_note(w, 5, cause, "smsp__warps_eligible.avg.per_cycle_active", elig, starved,
            "Occupancy is low (%.1f%% achieved) but each scheduler has %.1f eligible warps a cycle: it is not "
            "starved of warps, so more would add nothing.",
            ach, elig);
  } else if (st->reason && !hideable) {
    char what[160];
    if (!dominant)
      snprintf(what, sizeof what, "no stall reason dominates (the largest, %s, is %.0f%% of stall cycles)",
               st->reason, st->share * 100.0);
    else if (sd->kind == PC_STALL_THROTTLE)
      snprintf(what, sizeof what, "warps stall mostly on %s (%.0f%% of stall cycles), a full queue or busy pipe",
               st->reason, st->share * 100.0);
    else if (sd->kind == PC_STALL_SYNC)
      snprintf(what, sizeof what, "warps stall mostly on %s (%.0f%% of stall cycles): they wait on each other",
               st->reason, st->share * 100.0);
    else
      snprintf(what, sizeof what, "warps stall mostly on %s (%.0f%% of stall cycles), which more warps do not hide",
               st->reason, st->share * 100.0);
    pc_note(w, 5, cause, st->metric, st->per_issue, PC_NULL,
            "Occupancy is low (%.1f%% achieved) but %s: more resident warps are not the change.", ach, what);
  } else {
    char why[160];
    if (!st->reason || pc_is_null(elig))
      snprintf(why, sizeof why, "no unit is near its roof (warp stalls not measured: collect the full set)");
    else
      snprintf(why, sizeof why,
               "no unit is near its roof, warps stall mostly on %s and each scheduler has only %.1f eligible warps "
               "a cycle",
               st->reason, elig);
    pc_hit(w, 5, cause, ach_name, ach, low, pc_occupancy_advice(occ.binding), occ.binding_limit, theo, why);
  }
}

static void pc_walk_step5(pc_walk *w, const pc_kernel *k, const pc_device *d, int grid_done, const pc_stall *st) {
  const double waves = k->derived.waves_per_sm, ach = k->derived.achieved_occupancy_pct;
  const double low = PC_T(PC_T_ACHIEVED_LOW_PCT);
  /* Achieved occupancy averages only over the SMs that were active, so a
   * small grid can look well occupied: waves per SM tells the truth.  But a
   * grid with a block on every SM whose one wave reaches a healthy achieved
   * occupancy is not too small, and a grid whose kernel keeps a unit at its
   * roof is not held back by its idle SMs: notes. */
  const double blocks = pc_dims(k->grid);
  const int small = pc_has(waves) && waves < PC_T(PC_T_WAVES_MIN);
  const int full_enough = small && d && d->sm_count > 0 && pc_has(blocks) && blocks >= d->sm_count && pc_has(ach) &&
                          ach >= low;
  pc_unit_load top;
  const int near_roof = small ? pc_grid_at_roof(k, d) : 0;
  if (near_roof) pc_checklist_near_roof(k, d, &top);
  if (small && !full_enough && !near_roof) {
    if (!grid_done) pc_walk_grid_hit(w, waves);
  } else {
    if (small && near_roof)
      pc_note(w, 5, PERFCHECK_CAUSE_GRID_TOO_SMALL, PC_WAVES, waves, PC_T(PC_T_WAVES_MIN),
              "The grid fills %.2f of one wave, but %s is at %.1f%% of its peak: more blocks would not make it "
              "faster.",
              waves, pc_unit_words(top.metric), top.pct);
    else if (full_enough)
      pc_note(w, 5, PERFCHECK_CAUSE_GRID_TOO_SMALL, PC_WAVES, waves, PC_T(PC_T_WAVES_MIN),
              "The grid fills %.2f of one wave, with a block on every SM and %.1f%% achieved occupancy: a few more "
              "blocks would fill the last slots, not more.",
              waves, ach);
    if (pc_is_null(waves)) pc_missing(w, 5, PC_WAVES, "grid size against the SMs");
    pc_walk_occupancy(w, k, d, st);
  }

  const double block = pc_dims(k->block);
  const int warp = (d && d->warp_size > 0) ? d->warp_size : 32;
  if (pc_has(block) && fmod(block, warp) != 0)
    pc_note(w, 5, PERFCHECK_CAUSE_OCCUPANCY_WARPS, "launch__block_size", block, warp,
            "Use a block size that is a multiple of %d: the last warp of every block runs with idle lanes.", warp);
}

/* Step 0, when no step caught the kernel: at_roof with a unit near its
 * roof, else latency_bound, naming the dominant stall and its change. */
static void pc_walk_step0(const pc_walk *w, const pc_kernel *k, const pc_device *d, const pc_stall *st,
                          pc_finding *v) {
  if (w->missing_step) {
    char more[32] = "";
    if (w->missing_more) snprintf(more, sizeof more, " and %d more", w->missing_more);
    pc_finding_set(v, w->missing_step, PERFCHECK_CAUSE_NOT_ASSESSED, "", PC_NULL, PC_NULL,
                   "Not assessed: %s%s %s not measured; collect the default metric set (`perfcheck metrics`) to "
                   "finish the walk.",
                   w->missing, more, w->nmissing + w->missing_more > 1 ? "were" : "was");
    /* The first missing name, as the metric. */
    for (size_t i = 0; i < w->n; i++)
      if (w->f[i].cause == PERFCHECK_CAUSE_NOT_ASSESSED && w->f[i].step >= 2) {
        memcpy(v->metric, w->f[i].metric, sizeof v->metric);
        break;
      }
    return;
  }
  const char *mem_name = NULL, *comp_name = NULL;
  const double mem = pc_memory_pct(k, d, &mem_name), comp = pc_compute_pct(k, d, &comp_name);
  const double roof = PC_T(PC_T_AT_ROOF_PCT);
  const int mem_top = pc_has(mem) && (pc_is_null(comp) || mem >= comp);
  const double top = mem_top ? mem : comp;
  const char *top_name = mem_top ? mem_name : comp_name;
  if (pc_has(top) && top >= roof) {
    /* What "less work there" means on each pipe (seed 004 Decision 4:
     * avoidable slow-path arithmetic, faster-path forms). */
    const pc_unit_def *u = pc_unit_lookup(top_name);
    const char *less = "a different algorithm or data type";
    if (u && strcmp(u->name, "xu") == 0)
      less = "fewer special-function instructions: sin, exp, rsqrt and division as a recurrence or a polynomial on "
             "the FMA pipe";
    else if (u && strcmp(u->name, "fp64") == 0)
      less = "FP32 where the precision allows, or fewer FP64 operations";
    else if (u && strcmp(u->name, "tensor") == 0)
      less = "a lower precision (bf16, fp8) or fewer FLOPs: a different algorithm";
    else if (u && strcmp(u->name, "lsu") == 0)
      less = "fewer, wider memory instructions (16 bytes a lane)";
    pc_finding_set(v, 0, PERFCHECK_CAUSE_AT_ROOF, top_name, top, roof,
                   mem_top ? "Finished as written: %s, the busiest unit, is at %.1f%% of its peak, so making the "
                             "kernel faster means moving fewer bytes (a different algorithm or data type), not tuning "
                             "this one."
                           : "Finished as written: %s, the busiest unit, is at %.1f%% of its peak, so making the "
                             "kernel faster means doing less work there (%s), not tuning this one.",
                   pc_unit_words(top_name), top, less);
  } else if (pc_has(mem) && pc_has(comp)) {
    const pc_stall_def *sd = pc_stall_def_of(st->reason);
    if (sd && st->share > PC_T(PC_T_STALL_DOMINANT_SHARE)) {
      pc_finding_set(v, 0, PERFCHECK_CAUSE_LATENCY_BOUND, top_name, top, roof,
                     "No unit is near its roof (%s is the busiest, at %.1f%%) and warps stall mostly on %s (%.0f%% "
                     "of stall cycles): %s.",
                     pc_unit_words(top_name), top, st->reason, st->share * 100.0, sd->change);
    } else if (sd) {
      const pc_stall_def *s2 = pc_stall_def_of(st->second);
      pc_finding_set(v, 0, PERFCHECK_CAUSE_LATENCY_BOUND, top_name, top, roof,
                     "No unit is near its roof (%s is the busiest, at %.1f%%) and no stall dominates: %s %.0f%%, %s "
                     "%.0f%% of stall cycles; first %s.",
                     pc_unit_words(top_name), top, st->reason, st->share * 100.0, s2 ? s2->reason : "-",
                     pc_has(st->second_share) ? st->second_share * 100.0 : 0.0, sd->change);
    } else {
      pc_finding_set(v, 0, PERFCHECK_CAUSE_LATENCY_BOUND, top_name, top, roof,
                     "No unit is near its roof (%s is the busiest, at %.1f%%); the stall reasons that say what warps "
                     "wait on were not measured: collect them (perfcheck metrics --set full, or ncu --set full).",
                     pc_unit_words(top_name), top);
    }
  } else {
    /* One percentage, below the roof: the other ceiling may be the near one. */
    const char *miss = pc_is_null(mem) ? PC_NAME(PC_M_DRAM_THROUGHPUT_PCT) : PC_NAME(PC_M_SM_THROUGHPUT_PCT);
    pc_finding_set(v, 2, PERFCHECK_CAUSE_NOT_ASSESSED, miss, PC_NULL, roof,
                   "Not assessed: every step passed, but %s was not measured, so at_roof cannot be told from "
                   "latency_bound; collect it to finish the walk.",
                   miss);
  }
}

/* Moves the walk's findings into the diagnosis: the verdict is the first
 * eligible hit (steps run in the order 3, 4, 5, with an idle grid first);
 * the others go to findings, hits first, then notes, then what was not
 * assessed. */
static void pc_walk_finish(pc_walk *w, const pc_kernel *k, const pc_device *d, const pc_stall *st,
                           pc_diagnosis *dg) {
  size_t vi = (size_t)-1;
  for (size_t i = 0; i < w->n; i++)
    if (w->eligible[i]) {
      vi = i;
      break;
    }
  if (vi != (size_t)-1)
    dg->verdict = w->f[vi];
  else
    pc_walk_step0(w, k, d, st, &dg->verdict);
  dg->nfindings = 0;
  for (int p = PC_PRIO_HIT; p <= PC_PRIO_MISSING; p++)
    for (size_t i = 0; i < w->n && dg->nfindings < PC_MAX_FINDINGS; i++)
      if (i != vi && w->prio[i] == p) dg->findings[dg->nfindings++] = w->f[i];
}

static void pc_diag_reset(pc_diagnosis *dg) {
  memset(dg, 0, sizeof *dg);
  dg->verdict.cause = PERFCHECK_CAUSE_NONE;
  dg->verdict.value = dg->verdict.threshold = PC_NULL;
  dg->runner_up_value = dg->runner_up_threshold = PC_NULL;
  dg->gain.speedup = dg->gain.saved_ns = PC_NULL;
  dg->bound = PERFCHECK_BOUND_UNKNOWN;
  dg->runner_up = PERFCHECK_CAUSE_NONE;
  dg->stall.per_issue = dg->stall.share = dg->stall.second_share = PC_NULL;
}

static void pc_sides_of(const pc_kernel *k, const pc_device *d, perfcheck_bound bound, int *memory_side,
                        int *compute_side) {
  const double ai = k->derived.arithmetic_intensity, ridge = d ? d->ridge_flop_per_byte : PC_NULL;
  const int roofline = pc_has(ai) && pc_has(ridge);
  *memory_side = bound == PERFCHECK_BOUND_MEMORY || bound == PERFCHECK_BOUND_LATENCY ||
                 bound == PERFCHECK_BOUND_UNKNOWN || (roofline && ai < ridge);
  *compute_side = bound == PERFCHECK_BOUND_COMPUTE || bound == PERFCHECK_BOUND_LATENCY ||
                  bound == PERFCHECK_BOUND_UNKNOWN || (roofline && ai >= ridge);
}

/* Steps 3, 4 and 5 of a kernel whose derived values are filled, with step
 * 2's bound given, into w; *memory_side / *compute_side say which of 3 and
 * 4 ran.  Step 1 is the region's: a kernel's time share and rank sit beside
 * its verdict and never replace it. */
static void pc_walk_run(pc_walk *w, const pc_kernel *k, const pc_device *d, perfcheck_bound bound,
                        const pc_stall *st, int *memory_side, int *compute_side) {
  memset(w, 0, sizeof *w);
  pc_sides_of(k, d, bound, memory_side, compute_side);
  const int idle = pc_grid_idles_sms(k, d);
  if (idle) pc_walk_grid_hit(w, k->derived.waves_per_sm);
  if (*memory_side)
    pc_walk_step3(w, k);
  else
    pc_walk_local(w, k, 0); /* step 3's local memory, whatever the bound */
  /* Both sides at their roofs (seed 004 Decision 2: "both high: are you
   * close to hardware limits?"): a memory mechanism removed would run into
   * the compute roof right behind it (cuBLAS's TF32 GEMM: L1 at 88% with
   * 29% of its shared wavefronts conflicts, tensor pipe at 85%), so step
   * 3's hits stay findings and the verdict is at_roof. */
  const double mem = k->derived.memory_pct, comp = k->derived.compute_pct;
  if (pc_has(mem) && pc_has(comp) && mem >= PC_T(PC_T_AT_ROOF_PCT) && comp >= PC_T(PC_T_AT_ROOF_PCT))
    for (size_t i = 0; i < w->n; i++)
      if (w->f[i].step == 3 && w->prio[i] == PC_PRIO_HIT && w->f[i].cause != PERFCHECK_CAUSE_LOCAL_MEMORY_SPILLS)
        w->prio[i] = PC_PRIO_NOTE, w->eligible[i] = 0;
  /* Step 4 runs before any at_roof: a divergent kernel can show 96% compute
   * throughput (report-contract.md, the second trap). */
  if (*compute_side) pc_walk_step4(w, k);
  pc_walk_step5(w, k, d, idle, st);
}

/* A communication kernel (NCCL's): its time is mostly waiting for peers,
 * so steps 2 to 5 do not judge it; step 1 names it with its time share. */
static int pc_kernel_is_communication(const pc_kernel *k) {
  return pc_name_is_communication(k->display_name ? k->display_name : k->name) ||
         (k->name && pc_name_is_communication(k->name));
}

static void pc_communication_verdict(const pc_kernel *k, pc_finding *v) {
  char share[48] = "an unmeasured share";
  if (pc_has(k->time_share)) snprintf(share, sizeof share, "%.1f%%", k->time_share * 100.0);
  pc_finding_set(v, 1, PERFCHECK_CAUSE_COMMUNICATION, PC_KSHARE, k->time_share, PC_NULL,
                 "Communication kernel (NCCL), %s of the region's kernel time: never replayed for counters and not "
                 "judged by steps 2 to 5 (its time is mostly waiting for its peers); overlap it with compute (a "
                 "separate stream, bucketed all-reduce) or communicate less often, in larger messages.",
                 share);
}

/* The verdict's cause under the rules in force (pc_walk_rules), no advice
 * formatted. */
static perfcheck_cause pc_kernel_cause_under(const pc_kernel *k, const pc_device *d, const pc_stall *st,
                                             pc_finding *out) { /* out: the verdict's finding, or NULL */
  pc_walk w;
  int memory_side, compute_side;
  pc_finding v;
  const perfcheck_bound bound = pc_walk_step2(k, d);
  pc_walk_run(&w, k, d, bound, st, &memory_side, &compute_side);
  for (size_t i = 0; i < w.n; i++)
    if (w.eligible[i]) {
      if (out) *out = w.f[i];
      return w.f[i].cause;
    }
  pc_walk_step0(&w, k, d, st, &v);
  if (out) *out = v;
  return v.cause;
}

/* The kernel's own value of the quantity threshold i is compared with, and
 * its name (ncu's metric, or the derived value's name); NaN when the
 * threshold is not one a kernel's value meets directly. */
static double pc_threshold_quantity(const pc_kernel *k, const pc_device *d, size_t i, const pc_stall *st,
                                    const char **name) {
  const pc_derived *dv = &k->derived;
  *name = NULL;
  switch (i) {
    case PC_T_CEILING_HIGH_PCT:
    case PC_T_AT_ROOF_PCT: {
      pc_unit_load top;
      pc_checklist_near_roof(k, d, &top);
      *name = top.metric;
      return top.pct;
    }
    case PC_T_TENSOR_ACTIVE_PCT:
    case PC_T_TENSOR_DOMINATED_PCT:
      *name = PC_NAME(PC_M_PIPE_TENSOR_PCT);
      return pc_larger(k, PC_M_PIPE_TENSOR_PCT, PC_M_PIPE_TENSOR_GMMA_PCT);
    case PC_T_BPS_MIN: {
      const double ld = dv->bytes_per_sector_ld, st2 = dv->bytes_per_sector_st;
      const int use_st = pc_has(st2) && (pc_is_null(ld) || st2 < ld);
      *name = use_st ? PC_BPS_ST : PC_BPS_LD;
      return use_st ? st2 : ld;
    }
    case PC_T_LOCAL_SHARE_MAX: *name = "local_share"; return dv->local_share;
    case PC_T_BANK_CONFLICT_SHARE_MAX: *name = "bank_conflict_share"; return dv->bank_conflict_share;
    case PC_T_ATOMIC_SHARE_MAX: *name = "atomic_share"; return dv->atomic_share;
    case PC_T_TPI_MIN: *name = PC_NAME(PC_M_THREAD_INST_PER_INST); return dv->threads_per_instruction;
    case PC_T_LANE_USE_MIN:
      *name = "lane_use";
      return pc_ratio(dv->threads_per_instruction, dv->lanes_per_warp_max);
    case PC_T_WAVES_MIN: *name = PC_WAVES; return dv->waves_per_sm;
    case PC_T_ACHIEVED_LOW_PCT: *name = PC_NAME(PC_M_WARPS_ACTIVE_PCT); return dv->achieved_occupancy_pct;
    case PC_T_OCC_CAP_SHARE:
      *name = "achieved occupancy / theoretical occupancy";
      return pc_ratio(dv->achieved_occupancy_pct, dv->theoretical_occupancy_pct);
    case PC_T_ELIGIBLE_STARVED: *name = "smsp__warps_eligible.avg.per_cycle_active"; return dv->warps_eligible;
    case PC_T_STALL_DOMINANT_SHARE:
      *name = st->reason ? "share of the stall cycles of the largest stall reason" : NULL;
      return st->reason ? st->share : PC_NULL;
    default: return PC_NULL;
  }
}

/* Borderline: a verdict that one threshold nudged by 5 points (10% of a
 * ratio) would change.  The runner-up is the verdict under the first such
 * nudge, in the table's order.  Step 1's region verdicts are tested the
 * same way (pc_region_borderline). */
static void pc_kernel_borderline(const pc_kernel *k, const pc_device *d, pc_diagnosis *dg) {
  const perfcheck_cause base = dg->verdict.cause;
  if (base == PERFCHECK_CAUSE_NOT_ASSESSED || base == PERFCHECK_CAUSE_COMMUNICATION) return;
  double t[PC_T_COUNT_];
  memcpy(t, pc_rules(), sizeof t);
  pc_walk_dry = 1;
  for (size_t i = 0; i < PC_T_COUNT_ && !dg->borderline; i++) {
    if (pc_threshold_table[i].nudge == PC_NUDGE_NONE) continue;
    const double keep = t[i];
    for (int dir = -1; dir <= 1 && !dg->borderline; dir += 2) {
      t[i] = pc_nudged(i, keep, dir);
      pc_walk_rules = t;
      const perfcheck_cause c = pc_kernel_cause_under(k, d, &dg->stall, NULL);
      pc_walk_rules = NULL;
      if (c != base && c != PERFCHECK_CAUSE_NOT_ASSESSED) {
        dg->borderline = 1;
        dg->runner_up = c;
        /* The value that makes it so: the kernel's value of what the nudged
         * threshold weighs, against the threshold in force. */
        const char *name = NULL;
        pc_walk_rules = NULL;
        const double v = pc_threshold_quantity(k, d, i, &dg->stall, &name);
        snprintf(dg->runner_up_metric, sizeof dg->runner_up_metric, "%s",
                 name ? name : pc_threshold_table[i].key);
        dg->runner_up_value = v;
        dg->runner_up_threshold = keep;
      }
    }
    t[i] = keep;
  }
  pc_walk_dry = 0;
}

/* The roofs a verdict that rests on "no unit is near its roof" could not
 * see: a unit whose own throughput row (the first row of its name in
 * PC_UNIT_ROWS, ncu's) was not measured, either at all (the FMA, FP64, LSU,
 * XU and uniform pipes in the 4-pass default set) or only in part (L2 by its
 * sector throughput and, on GH100 and GA100, its fabric; L1 by its LSU
 * wavefronts).  Measured on the H200
 * (docs/measurements/2026-12-02-h200 section 3): five production kernels
 * with L2's lts__throughput at 87-88% read 38-51% by lts__t_sectors in
 * process and got latency_bound where ncu's row is at_roof.  A note in the
 * findings, with the flag that measures them; the verdict is unchanged.
 * Writes the list ("the FMA, XU pipes; L2 (in part)") and returns how many
 * units it names. */
static int pc_roofs_unmeasured(const pc_kernel *k, const pc_device *d, char *buf, size_t len, const char **first) { /* one-channel-ok: verdict text, its result */
  size_t n = 0, at = 0;
  int count = 0;
  *first = NULL;
  buf[0] = '\0';
  /* ncu's two speed-of-light rows take the max over their side's units: a
   * measured one covers that side (sm__throughput the pipes,
   * gpu__compute_memory_throughput the memory levels). */
  const int pipes_covered = pc_has(pc_nonneg(k->metric[PC_M_SM_THROUGHPUT_PCT]));
  const int memory_covered = pc_has(pc_nonneg(k->metric[PC_M_MEM_THROUGHPUT_PCT]));
  for (size_t i = 0; i < PC_NUNITS; i++) {
    if (pc_unit_defs[i].kind == PC_UNIT_AGGREGATE) continue;
    if (pc_unit_defs[i].kind == PC_UNIT_PIPE ? pipes_covered : memory_covered) continue;
    if (i > 0 && strcmp(pc_unit_defs[i - 1].name, pc_unit_defs[i].name) == 0) continue; /* not the first row */
    /* tensor: either of its two rows is its own measure; dram: the rate
     * computed from its bytes is the same quantity. */
    const int whole_if_any = strcmp(pc_unit_defs[i].name, "tensor") == 0 || strcmp(pc_unit_defs[i].name, "dram") == 0;
    int own = pc_has(pc_unit_pct(i, k, d)), part = 0;
    for (size_t j = i + 1; j < PC_NUNITS && strcmp(pc_unit_defs[j].name, pc_unit_defs[i].name) == 0; j++)
      if (pc_has(pc_unit_pct(j, k, d))) {
        if (whole_if_any)
          own = 1;
        else
          part = 1;
      }
    if (own) continue;
    if (!*first) *first = pc_unit_defs[i].metric;
    const int w = snprintf(buf + at, at < len ? len - at : 0, "%s%s%s", n ? ", " : "", pc_unit_words(pc_unit_defs[i].metric),
                           part ? " (in part)" : "");
    if (w > 0) at += (size_t)w;
    if (at >= len) at = len - 1;
    n++;
    count++;
  }
  return count;
}

static void pc_note_unmeasured_roofs(pc_kernel *k, const pc_device *d) {
  pc_diagnosis *dg = &k->diag;
  const perfcheck_cause c = dg->verdict.cause;
  if (c != PERFCHECK_CAUSE_LATENCY_BOUND && c != PERFCHECK_CAUSE_GRID_TOO_SMALL &&
      c != PERFCHECK_CAUSE_OCCUPANCY_REGISTERS && c != PERFCHECK_CAUSE_OCCUPANCY_SHARED_MEMORY &&
      c != PERFCHECK_CAUSE_OCCUPANCY_WARPS && c != PERFCHECK_CAUSE_OCCUPANCY_BLOCKS)
    return;
  if (dg->nfindings >= PC_MAX_FINDINGS) return;
  char list[200];
  const char *first = NULL;
  const int n = pc_roofs_unmeasured(k, d, list, sizeof list, &first);
  if (n == 0 || !first) return;
  pc_finding_set(&dg->findings[dg->nfindings++], 2, PERFCHECK_CAUSE_NOT_ASSESSED, first, PC_NULL, PC_T(PC_T_AT_ROOF_PCT),
                 "\"No unit near its roof\" covers the units measured: %s %s not measured, so a roof there would not "
                 "show (perfcheck metrics --set sol, or ncu --set full, measures %s).",
                 list, n > 1 ? "were" : "was", n > 1 ? "them" : "it");
}

/* A graph entry whose launches ran more than one kernel
 * signature: its counters are the sum over all of them (one range around
 * each graph launch), so ratios and percentages are averages over kernels
 * of different shapes and no launch configuration is its own.  Steps 3 to
 * 5 would judge a kernel that does not exist: no verdict, the reason
 * instead.  Step 2's bound still says which ceiling the graph as a whole
 * was nearest.  A graph of one kernel signature (however many nodes) is
 * that kernel's launches summed: judged like a kernel. */
static int pc_kernel_is_mixed_graph(const pc_kernel *k) { return k->is_graph && k->graph_signatures != 1; }

static void pc_mixed_graph_verdict(const pc_kernel *k, pc_finding *v) {
  pc_finding_set(v, 2, PERFCHECK_CAUSE_NOT_ASSESSED, "graph_launch.signatures", (double)k->graph_signatures, 1,
                 "A CUDA graph of %u kernels (%u distinct): its counters are each launch's sum over all of them (CUPTI "
                 "measures a graph launch as one range and cannot split it by node), so no per-kernel verdict; each "
                 "kernel's entry keeps its own timing, and a kernel launched on a stream (or ncu --graph-profiling "
                 "node) gets a verdict of its own.",
                 (unsigned)k->graph_kernels, (unsigned)k->graph_signatures);
}

/* ==== What the change is worth, and who makes it =========================== */

/* An estimate of the speedup the verdict's change gives, from the kernel's
 * measured numbers: the share of the work the defect wastes, times how busy
 * the unit that pays for it is (ncu's rules weigh their estimated gains the
 * same way: UncoalescedAccess.py by L2's load), or, for a latency or
 * occupancy verdict, the bound Little's law gives (more in flight helps until
 * the busiest unit saturates).  An upper estimate, never a measurement:
 * basis says what it rests on.  NaN when the verdict names no change or a
 * number it needs was not measured. */
static double pc_gain_busy(const pc_kernel *k, double pct) {
  if (pc_has(pct)) return fmin(1.0, fmax(0.0, pct / 100.0));
  (void)k;
  return PC_NULL;
}

static void pc_gain_set(pc_gain *g, double f, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void pc_gain_set(pc_gain *g, double f, const char *fmt, ...) {
  if (!pc_has(f) || f <= 0.0) return;
  f = fmin(f, 0.95);
  g->speedup = 1.0 / (1.0 - f);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(g->basis, sizeof g->basis, fmt, ap);
  va_end(ap);
}

static void pc_gain_bound(pc_gain *g, double bound, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void pc_gain_bound(pc_gain *g, double bound, const char *fmt, ...) {
  if (!pc_has(bound) || bound <= 1.0) return;
  g->speedup = fmin(bound, 20.0);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(g->basis, sizeof g->basis, fmt, ap);
  va_end(ap);
}

static void pc_gain_estimate(pc_kernel *k, const pc_device *d) {
  pc_diagnosis *dg = &k->diag;
  pc_gain *g = &dg->gain;
  const pc_derived *dv = &k->derived;
  const pc_finding *v = &dg->verdict;
  const double busiest = fmax(pc_has(dv->memory_pct) ? dv->memory_pct : 0.0, pc_has(dv->compute_pct) ? dv->compute_pct : 0.0);
  const double roof_bound = busiest > 0 ? 100.0 / busiest : PC_NULL;
  switch (v->cause) {
    case PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS:
    case PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_STORES: {
      const int ld = v->cause == PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS;
      const double bps = ld ? dv->bytes_per_sector_ld : dv->bytes_per_sector_st;
      const double spr = ld ? dv->sectors_per_request_ld : dv->sectors_per_request_st;
      const double waste = pc_has(bps) && bps > 0 ? 1.0 - fmin(32.0, bps) / 32.0
                           : pc_has(spr) && spr > 0 ? 1.0 - fmin(1.0, 4.0 / spr) : PC_NULL;
      const double mine = pc_nonneg(k->metric[ld ? PC_M_LD_SECTORS : PC_M_ST_SECTORS]);
      const double lds = pc_nonneg(k->metric[PC_M_LD_SECTORS]), sts = pc_nonneg(k->metric[PC_M_ST_SECTORS]);
      const double l2s = pc_nonneg(k->metric[PC_M_L2_SECTORS]);
      double all = pc_has(lds) && pc_has(sts) ? lds + sts : PC_NULL;
      if (pc_has(all) && pc_has(l2s) && l2s > all) all = l2s;
      const double share = pc_has(mine) && pc_has(all) && all > 0 ? mine / all : PC_NULL;
      /* How busy what the extra sectors load is: the busiest memory level
       * (each sector is an L1TEX lookup and, missing it, an L2 one), or the
       * share of stall cycles spent waiting on global memory. */
      double busy = pc_gain_busy(k, dv->memory_pct);
      const pc_stall *st = &dg->stall;
      if (st->reason && pc_has(st->share) &&
          (strcmp(st->reason, "long_scoreboard") == 0 || strcmp(st->reason, "lg_throttle") == 0 ||
           strcmp(st->reason, "drain") == 0 || strcmp(st->reason, "tex_throttle") == 0) &&
          (pc_is_null(busy) || st->share > busy))
        busy = st->share;
      pc_gain_set(g, share * waste * busy,
                  "estimate: %.0f%% of the kernel's sectors are these %s, %.0f%% of each fetched for nothing, with "
                  "the memory path %.0f%% busy",
                  share * 100.0, ld ? "loads" : "stores", waste * 100.0, busy * 100.0);
      break;
    }
    case PERFCHECK_CAUSE_LOCAL_MEMORY_SPILLS:
      pc_gain_set(g, dv->local_share, "estimate: local memory carries %.0f%% of the kernel's sectors",
                  dv->local_share * 100.0);
      break;
    case PERFCHECK_CAUSE_SHARED_BANK_CONFLICTS: {
      const double l1 = pc_larger(k, PC_M_L1_THROUGHPUT_PCT, PC_M_L1_WAVEFRONTS_PCT);
      const double busy = pc_gain_busy(k, l1);
      pc_gain_set(g, dv->bank_conflict_share * (pc_has(busy) ? busy : 1.0),
                  "estimate: %.0f%% of the shared-memory wavefronts are conflict replays, with L1/shared memory "
                  "%.0f%% busy",
                  dv->bank_conflict_share * 100.0, pc_has(l1) ? l1 : 100.0);
      break;
    }
    case PERFCHECK_CAUSE_ATOMIC_CONTENTION: {
      const double l2 = pc_global_path_pct(k);
      const double busy = pc_gain_busy(k, l2);
      pc_gain_set(g, dv->atomic_share * (pc_has(busy) ? busy : 1.0),
                  "estimate: %.0f%% of the L2 requests are atomics, with L2 and DRAM %.0f%% busy (same-address "
                  "atomics serialize: the gain can be far larger)",
                  dv->atomic_share * 100.0, pc_has(l2) ? l2 : 100.0);
      break;
    }
    case PERFCHECK_CAUSE_DIVERGENT_WARPS:
    case PERFCHECK_CAUSE_PARTIAL_WARPS: {
      const double lanes = v->cause == PERFCHECK_CAUSE_PARTIAL_WARPS ? dv->lanes_per_warp_max : dv->threads_per_instruction;
      const double issue = pc_has(dv->issue_active) ? fmin(1.0, dv->issue_active) : PC_NULL;
      if (pc_has(lanes) && lanes > 0 && pc_has(issue))
        pc_gain_set(g, (1.0 - fmin(32.0, lanes) / 32.0) * issue,
                    "estimate: %.1f of 32 lanes work in each instruction, with the issue slots %.0f%% busy", lanes,
                    issue * 100.0);
      break;
    }
    case PERFCHECK_CAUSE_OCCUPANCY_REGISTERS:
    case PERFCHECK_CAUSE_OCCUPANCY_SHARED_MEMORY:
    case PERFCHECK_CAUSE_OCCUPANCY_WARPS:
    case PERFCHECK_CAUSE_OCCUPANCY_BLOCKS: {
      const double ach = dv->achieved_occupancy_pct;
      if (pc_has(ach) && ach > 0 && pc_has(roof_bound))
        pc_gain_bound(g, fmin(100.0 / ach, roof_bound),
                      "estimate: at most the smaller of full occupancy over the %.0f%% achieved and the busiest "
                      "unit's headroom (%.0f%% busy): more warps help until a unit saturates",
                      ach, busiest);
      break;
    }
    case PERFCHECK_CAUSE_GRID_TOO_SMALL: {
      const double waves = dv->waves_per_sm, blocks = pc_dims(k->grid);
      double fill = pc_has(waves) && waves > 0 ? 1.0 / waves : PC_NULL;
      if (d && d->sm_count > 0 && pc_has(blocks) && blocks > 0 && blocks < d->sm_count)
        fill = pc_has(fill) ? fmin(fill, d->sm_count / blocks) : d->sm_count / blocks;
      pc_gain_bound(g, fill, "estimate: at most the share of the GPU the grid leaves idle (%.2f of a wave)",
                    pc_has(waves) ? waves : 0.0);
      break;
    }
    case PERFCHECK_CAUSE_LATENCY_BOUND: {
      const double sh = dg->stall.share;
      if (dg->stall.reason && pc_has(sh) && sh > PC_T(PC_T_STALL_DOMINANT_SHARE) && sh < 1.0 && pc_has(roof_bound))
        pc_gain_bound(g, fmin(1.0 / (1.0 - sh), roof_bound),
                      "estimate: at most the smaller of removing the %s stalls (%.0f%% of stall cycles) and the "
                      "busiest unit's headroom (%.0f%% busy)",
                      dg->stall.reason, sh * 100.0, busiest);
      break;
    }
    default:
      break;
  }
  if (pc_has(g->speedup) && pc_has(k->total_ns)) g->saved_ns = k->total_ns * (1.0 - 1.0 / g->speedup);
}

/* Whose kernel it is, its knob advice, and whether its share of the region
 * makes it worth changing (1% of the region's kernel time: a kernel under it
 * keeps its verdict, listed after the ones that matter). */
static void pc_kernel_owner(pc_kernel *k) {
  const char *lib = pc_library_of(k->name);
  snprintf(k->library, sizeof k->library, "%s", lib ? lib : "");
  pc_library_advice(lib, k->diag.verdict.cause, k->diag.library_advice, sizeof k->diag.library_advice);
  k->worth_changing = pc_is_null(k->time_share) ? -1 : k->time_share >= 0.01;
}

static void pc_checklist_kernel_c(pc_kernel *k, const pc_device *d) {
  if (!k) return;
  pc_derive(k, d);
  pc_diag_reset(&k->diag);
  pc_stall_compute(k, &k->diag.stall);
  if (pc_kernel_is_communication(k)) {
    pc_communication_verdict(k, &k->diag.verdict);
    pc_kernel_owner(k);
    return;
  }
  if (pc_kernel_is_mixed_graph(k)) {
    k->diag.bound = pc_walk_step2(k, d);
    pc_mixed_graph_verdict(k, &k->diag.verdict);
    pc_kernel_owner(k);
    return;
  }
  k->diag.bound = pc_walk_step2(k, d);
  pc_walk w;
  int memory_side, compute_side;
  pc_walk_run(&w, k, d, k->diag.bound, &k->diag.stall, &memory_side, &compute_side);
  pc_walk_finish(&w, k, d, &k->diag.stall, &k->diag);
  pc_kernel_borderline(k, d, &k->diag);
  pc_note_unmeasured_roofs(k, d);
  pc_gain_estimate(k, d);
  pc_kernel_owner(k);
}

void pc_checklist_steps(const pc_kernel *k, const pc_device *d, const pc_region *region, pc_step_view steps[6]) {
  (void)region; /* step 1 is the region's; a kernel's walk starts at step 2 */
  memset(steps, 0, 6 * sizeof *steps);
  if (!k) return;
  if (pc_kernel_is_communication(k)) { /* step 1 names it; nothing else judges it */
    pc_locale_guard lg;
    pc_locale_begin(&lg);
    pc_communication_verdict(k, &steps[1].hit);
    pc_locale_end(&lg);
    steps[1].has_hit = 1;
    steps[1].state = PC_STEP_CATCHES;
    for (int st = 2; st <= 5; st++) steps[st].state = PC_STEP_SKIPPED;
    return;
  }
  if (pc_kernel_is_mixed_graph(k)) { /* summed over kernels of several shapes: steps 3-5 do not apply */
    pc_locale_guard lg;
    pc_locale_begin(&lg);
    pc_mixed_graph_verdict(k, &steps[2].missing);
    pc_locale_end(&lg);
    steps[2].has_missing = 1;
    steps[1].state = PC_STEP_SKIPPED;
    for (int st = 2; st <= 5; st++) steps[st].state = PC_STEP_NOT_ASSESSED;
    return;
  }
  pc_walk w;
  int memory_side, compute_side;
  pc_stall stall;
  pc_stall_compute(k, &stall);
  pc_locale_guard lg; /* the findings' advice, as pc_checklist_kernel writes it */
  pc_locale_begin(&lg);
  pc_walk_run(&w, k, d, k->diag.bound, &stall, &memory_side, &compute_side);
  pc_locale_end(&lg);
  for (size_t i = 0; i < w.n; i++) {
    const int st = w.f[i].step;
    if (st < 2 || st > 5) continue;
    pc_step_view *v = &steps[st];
    if (w.prio[i] == PC_PRIO_HIT && !v->has_hit) v->hit = w.f[i], v->has_hit = 1;
    if (w.prio[i] == PC_PRIO_NOTE && !v->has_note) v->note = w.f[i], v->has_note = 1;
    if (w.prio[i] == PC_PRIO_MISSING && !v->has_missing) v->missing = w.f[i], v->has_missing = 1;
  }
  for (int st = 2; st <= 5; st++) {
    pc_step_view *v = &steps[st];
    v->state = v->has_hit ? PC_STEP_CATCHES : v->has_missing ? PC_STEP_NOT_ASSESSED : PC_STEP_PASSES;
  }
  /* Step 1 is the region's (its own line in the report). */
  steps[1].state = PC_STEP_SKIPPED;
  /* Step 2 names the bound and catches nothing. */
  steps[2].state = k->diag.bound == PERFCHECK_BOUND_UNKNOWN ? PC_STEP_NOT_ASSESSED : PC_STEP_PASSES;
  if (!memory_side) steps[3].state = PC_STEP_SKIPPED;
  if (!compute_side) steps[4].state = PC_STEP_SKIPPED;
}

static void pc_region_step1(pc_region *g) {
  pc_diag_reset(&g->diag);
  pc_diagnosis *dg = &g->diag;
  if (pc_is_null(g->kernel_share)) g->kernel_share = pc_ratio(g->kernel_ns, g->wall_ns);
  const double share = g->kernel_share, min_share = PC_T(PC_T_KERNEL_SHARE_MIN);
  /* Launch overhead is time the GPU spends idle between launches or running
   * kernels so short that their fixed start/finish cost is most of their
   * duration (seed 003: a 4096-thread add took ~2.9 us of GPU time for 0.13 us
   * of memory traffic).  On the H200 such a loop runs ~2 us kernels every
   * ~3.4 us, so idle gaps alone are under half the span although nearly all
   * of the wall clock is fixed cost: both parts are counted. */
  const double idle = pc_has(g->gpu_idle_ns) && pc_has(g->short_kernel_ns) && pc_has(g->wall_ns) && g->wall_ns > 0
                          ? fmin(1.0, (g->gpu_idle_ns + g->short_kernel_ns) / g->wall_ns)
                          : PC_NULL;
  const double median = pc_nonneg(g->median_kernel_ns);
  const int many = (double)g->launches >= PC_T(PC_T_LAUNCH_MIN_LAUNCHES);
  const int short_kernels = pc_has(median) && median < PC_T(PC_T_LAUNCH_MAX_MEDIAN_NS);

  if (many && short_kernels && pc_has(idle) && idle > PC_T(PC_T_LAUNCH_IDLE_SHARE)) {
    pc_finding_set(&dg->verdict, 1, PERFCHECK_CAUSE_LAUNCH_OVERHEAD, PC_IDLE, idle, PC_T(PC_T_LAUNCH_IDLE_SHARE),
                   "Launch fewer, larger kernels (fuse them, or capture the sequence in a CUDA graph): %llu launches "
                   "of a %.1f us median kernel keep the GPU idle or in fixed launch costs for %.0f%% of the wall "
                   "clock.",
                   (unsigned long long)g->launches, median / 1000.0, idle * 100.0);
    if (pc_has(share) && share < min_share && dg->nfindings < PC_MAX_FINDINGS)
      pc_finding_set(&dg->findings[dg->nfindings++], 1, PERFCHECK_CAUSE_NOT_THE_SLOW_PART, PC_SHARE, share,
                     min_share, "The kernels are busy for only %.0f%% of the region's wall clock.", share * 100.0);
    return;
  }
  if (many && (pc_is_null(median) || (short_kernels && pc_is_null(idle))) && dg->nfindings < PC_MAX_FINDINGS)
    pc_finding_set(&dg->findings[dg->nfindings++], 1, PERFCHECK_CAUSE_NOT_ASSESSED, PC_IDLE, PC_NULL,
                   PC_T(PC_T_LAUNCH_IDLE_SHARE),
                   "Not assessed (launch overhead): the kernel timeline (median duration, idle gaps) is missing.");
  if (pc_is_null(share)) {
    pc_finding_set(&dg->verdict, 1, PERFCHECK_CAUSE_NOT_ASSESSED, PC_SHARE, PC_NULL, min_share,
                   "Step 1 was not assessed: the region has no wall clock or kernel time (an ncu export has none), "
                   "so time the program with Nsight Systems to see whether the kernels are the slow part.");
  } else if (share < min_share) {
    pc_finding_set(&dg->verdict, 1, PERFCHECK_CAUSE_NOT_THE_SLOW_PART, PC_SHARE, share, min_share,
                   "Look outside the kernels first: they keep the GPU busy for only %.0f%% of the region's wall "
                   "clock, so host code, copies and synchronization take the rest.",
                   share * 100.0);
  } else {
    pc_finding_set(&dg->verdict, 0, PERFCHECK_CAUSE_NONE, PC_SHARE, share, min_share, "%s", "");
  }
}

/* Communication kernels' share of the region's summed kernel time: the
 * verdict when the region's kernels are the slow part and it is above
 * communication_share_max, else a finding. */
static void pc_region_communication(pc_region *g) {
  pc_diagnosis *dg = &g->diag;
  const double share = g->communication_share, max = PC_T(PC_T_COMMUNICATION_SHARE_MAX);
  if (!pc_has(share) || !(g->communication_ns > 0)) return;
  pc_finding f;
  if (share > max && dg->verdict.cause == PERFCHECK_CAUSE_NONE) {
    pc_finding_set(&f, 1, PERFCHECK_CAUSE_COMMUNICATION, "communication_ns / (communication_ns + compute_ns)", share,
                   max,
                   "Communication first: NCCL kernels take %.0f%% of the region's kernel time (%.3g ms, compute "
                   "kernels %.3g ms), so the GPU mostly waits for its peers; overlap communication with compute, or "
                   "communicate less often in larger messages, before tuning the compute kernels.",
                   share * 100.0, g->communication_ns / 1e6, g->compute_ns / 1e6);
    if (dg->nfindings < PC_MAX_FINDINGS) dg->findings[dg->nfindings++] = dg->verdict;
    dg->verdict = f;
    return;
  }
  pc_finding_set(&f, 1, PERFCHECK_CAUSE_COMMUNICATION, "communication_ns / (communication_ns + compute_ns)", share,
                 max, "NCCL kernels take %.0f%% of the region's kernel time (%.3g ms; compute kernels %.3g ms).",
                 share * 100.0, g->communication_ns / 1e6, g->compute_ns / 1e6);
  if (dg->nfindings < PC_MAX_FINDINGS) dg->findings[dg->nfindings++] = f;
}

/* A region's verdict that one threshold nudged by 5 points (10% of a ratio)
 * would change: borderline, with the runner-up (as pc_kernel_borderline). */
static void pc_region_borderline(pc_region *g) {
  const perfcheck_cause base = g->diag.verdict.cause;
  if (base == PERFCHECK_CAUSE_NOT_ASSESSED) return;
  double t[PC_T_COUNT_];
  memcpy(t, pc_rules(), sizeof t);
  pc_region *c = malloc(sizeof *c);
  if (!c) return; /* no memory: no borderline mark, the verdict stands */
  pc_walk_dry = 1;
  for (size_t i = 0; i < PC_T_COUNT_ && !g->diag.borderline; i++) {
    if (pc_threshold_table[i].nudge == PC_NUDGE_NONE) continue;
    const double keep = t[i];
    for (int dir = -1; dir <= 1 && !g->diag.borderline; dir += 2) {
      t[i] = pc_nudged(i, keep, dir);
      pc_walk_rules = t;
      *c = *g; /* shallow: only the diagnosis is written */
      pc_region_step1(c);
      pc_region_communication(c);
      pc_walk_rules = NULL;
      const perfcheck_cause got = c->diag.verdict.cause;
      if (got != base && got != PERFCHECK_CAUSE_NOT_ASSESSED) {
        g->diag.borderline = 1;
        g->diag.runner_up = got;
      }
    }
    t[i] = keep;
  }
  pc_walk_dry = 0;
  free(c);
}

static void pc_checklist_region_c(pc_region *g) {
  if (!g) return;
  /* Step 1 per device: the device's own busy time against the region's
   * wall clock, by the region's rules. */
  for (size_t i = 0; i < g->ndevices; i++) {
    pc_region_device *e = &g->devices[i];
    pc_region t;
    pc_region_init(&t);
    t.wall_ns = g->wall_ns;
    t.kernel_ns = e->kernel_ns;
    t.kernel_sum_ns = e->kernel_sum_ns;
    t.gpu_idle_ns = e->gpu_idle_ns;
    t.median_kernel_ns = e->median_kernel_ns;
    t.short_kernel_ns = e->short_kernel_ns;
    t.launches = e->launches;
    pc_region_step1(&t);
    e->kernel_share = t.kernel_share;
    e->diag = t.diag;
  }
  pc_region_step1(g);
  pc_region_communication(g);
  pc_region_borderline(g);
}

/* Rank order: longest total first. */
typedef struct pc_rank_key {
  double total;
  size_t index;
} pc_rank_key;

static int pc_rank_cmp(const void *pa, const void *pb) {
  const pc_rank_key *a = pa, *b = pb;
  if (a->total != b->total) return a->total > b->total ? -1 : 1;
  return a->index < b->index ? -1 : (a->index > b->index);
}

/* A graph entry's time is its kernels' time, which their own entries
 * hold: it takes no share and no rank, and is not counted in the sum. */
void pc_kernel_time_shares(pc_kernel *k, size_t n, int from_timeline) {
  if (!k) return;
  double sum = 0;
  size_t known = 0, counted = 0;
  for (size_t i = 0; i < n; i++) {
    if (k[i].is_graph) continue;
    counted++;
    if (pc_has(pc_nonneg(k[i].total_ns))) sum += k[i].total_ns, known++;
  }
  for (size_t i = 0; i < n; i++) {
    k[i].time_share_from_timeline = from_timeline;
    k[i].rank = 0;
    if (k[i].is_graph) {
      k[i].time_share = PC_NULL;
      continue;
    }
    k[i].time_share = (known == counted && sum > 0 && pc_has(pc_nonneg(k[i].total_ns))) ? k[i].total_ns / sum : PC_NULL;
  }
  /* Rank by total time, longest first; ties share the better rank: one
   * sort (qsort), not a scan of the others per entry. */
  pc_rank_key *order = known ? malloc(known * sizeof *order) : NULL;
  if (!order) return; /* none known, or no memory: ranks stay unknown (0) */
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (!k[i].is_graph && pc_has(pc_nonneg(k[i].total_ns))) order[m++] = (pc_rank_key){k[i].total_ns, i};
  qsort(order, m, sizeof *order, pc_rank_cmp);
  int rank = 0;
  for (size_t p = 0; p < m; p++) {
    if (p == 0 || order[p].total != order[p - 1].total) rank = p < (size_t)INT_MAX ? (int)p + 1 : INT_MAX;
    k[order[p].index].rank = rank;
  }
  free(order);
}

static int pc_same_region(const char *a, const char *b) { return (!a && !b) || (a && b && strcmp(a, b) == 0); }

/* pc_map's check of a candidate: entry `val` is in the probe's region. */
typedef struct pc_region_probe {
  const pc_kernel *kernels;
  const char *region;
} pc_region_probe;

static int pc_region_eq(uint32_t val, const void *arg) {
  const pc_region_probe *p = arg;
  return pc_same_region(p->kernels[val].region, p->region);
}

/* Sort key: the region's first index among the kernels, then time. */
typedef struct pc_korder {
  size_t group, index;
  double total;
} pc_korder;

static int pc_korder_cmp(const void *pa, const void *pb) {
  const pc_korder *a = pa, *b = pb;
  if (a->group != b->group) return a->group < b->group ? -1 : 1;
  const int ua = pc_is_null(a->total), ub = pc_is_null(b->total);
  if (ua != ub) return ua ? 1 : -1;
  if (!ua && a->total != b->total) return a->total > b->total ? -1 : 1;
  return a->index < b->index ? -1 : (a->index > b->index);
}

/* Orders a report's kernels: by region (in the order the regions first
 * appear among the kernels), then by total time, longest first (unknown
 * last); stable. */
static void pc_report_sort_kernels(pc_report *r) {
  if (!r || r->nkernels < 2) return;
  const size_t n = r->nkernels;
  pc_korder *o = malloc(n * sizeof *o);
  pc_kernel *tmp = malloc(n * sizeof *tmp);
  if (!o || !tmp) { /* no memory: the order stays as it was */
    free(o), free(tmp);
    return;
  }
  /* Each region's first index, through one table (pc_map) of the region
   * names seen: linear, where a scan of the earlier entries per entry grew
   * as the square of the entries. */
  pc_map seen = {0};
  for (size_t i = 0; i < n; i++) {
    const char *region = r->kernels[i].region;
    const uint64_t h = region ? pc_hash_str(region) : 0;
    const pc_region_probe probe = {r->kernels, region};
    const uint32_t first = pc_map_find(&seen, h, pc_region_eq, &probe);
    size_t g = i;
    if (first != PC_NONE)
      g = first;
    else if (i >= PC_NONE || pc_map_insert(&seen, h, (uint32_t)i) != 0) { /* no memory: the order stays */
      pc_map_free(&seen);
      free(o), free(tmp);
      return;
    }
    o[i] = (pc_korder){g, i, r->kernels[i].total_ns};
  }
  pc_map_free(&seen);
  qsort(o, n, sizeof *o, pc_korder_cmp);
  for (size_t i = 0; i < n; i++) tmp[i] = r->kernels[o[i].index];
  memcpy(r->kernels, tmp, n * sizeof *tmp);
  free(tmp);
  free(o);
}

static void pc_checklist_report_c(pc_report *r) {
  if (!r) return;
  for (size_t i = 0; i < r->nregions; i++) pc_checklist_region_c(&r->regions[i]);
  /* Time shares within each region's entries (the export's, offline). */
  pc_report_sort_kernels(r);
  for (size_t i = 0; i < r->nkernels;) {
    size_t j = i + 1;
    while (j < r->nkernels && pc_same_region(r->kernels[j].region, r->kernels[i].region)) j++;
    pc_kernel_time_shares(r->kernels + i, j - i, r->step1_assessed);
    i = j;
  }
  /* Rows of the input that no entry holds: shares and ranks over the rest
   * would be wrong, so they are unknown (the reader's warning says why). */
  for (size_t i = 0; r->rows_left_out && i < r->nkernels; i++) {
    r->kernels[i].time_share = PC_NULL;
    r->kernels[i].rank = 0;
  }
  for (size_t i = 0; i < r->nkernels; i++) {
    pc_kernel *k = &r->kernels[i];
    pc_checklist_kernel_c(k, &r->device);
  }
}

const pc_region *pc_report_kernel_region(const pc_report *r, const pc_kernel *k) {
  /* Kernels name their region; when several ended regions share a name, the
   * first is taken. */
  if (!r || !k || !r->step1_assessed || !k->region) return NULL;
  for (size_t j = 0; j < r->nregions; j++)
    if (r->regions[j].name && strcmp(r->regions[j].name, k->region) == 0) return &r->regions[j];
  return NULL;
}

/* The advice is text with numbers in it ("16.2 of 32 lanes"): written under
 * the C locale, whatever the host program's LC_NUMERIC (a German program
 * printed "16,2"). */
void pc_checklist_kernel(pc_kernel *k, const pc_device *d, const pc_region *region) {
  pc_locale_guard lg;
  pc_locale_begin(&lg);
  (void)region; /* step 1 is the region's */
  pc_checklist_kernel_c(k, d);
  pc_locale_end(&lg);
}

void pc_checklist_region(pc_region *g) {
  pc_locale_guard lg;
  pc_locale_begin(&lg);
  pc_checklist_region_c(g);
  pc_locale_end(&lg);
}

void pc_checklist_report(pc_report *r) {
  pc_locale_guard lg;
  pc_locale_begin(&lg);
  pc_checklist_report_c(r);
  pc_locale_end(&lg);
}
