/* The metric table: every quantity perfcheck reads from CUPTI or an ncu
 * export, spelled as Nsight Compute spells it (report-contract.md), and the
 * three metric sets.
 *
 * The table is one X-macro list so that the table and the comma-separated
 * set lists are built from the same rows at compile time: the lists are
 * string literals, so perfcheck_metric_list needs no lock and no
 * initialization, and they cannot drift from the table. */
#include <string.h>

#include "model/pc_core.h"

/* Set membership, in ONE place: the SET column below.
 *   DEF   in default, sol and full
 *   SOL   in sol and full only
 *   FULL  in full only
 *   BDEF, BSOL  as DEF, SOL, and in basic too
 * The pass budget (CUPTI's host API, kernel replay, names handed over
 * sorted; tests/unit/test_passes.c checks every count): `default` is 8
 * passes on GH100, GB100 and AD102, 7 on GA100 and TU102
 * (docs/cupti.md section 21 says what each pass costs).  It measures every
 * unit step 2 reads on each side: all eight pipes of ncu's
 * ComputeWorkloadAnalysis, spelled as that section spells them; DRAM; L1 by
 * the sub-unit of ncu's l1tex__throughput that was its value on the
 * committed exports (below); L2 by six of the ten sub-units ncu's
 * lts__throughput takes its maximum over (the sector and tag throughputs,
 * the fabric, both crossbar ports and the DRAM fills).
 * On every one of the 402 kernels of the committed H200 exports, no other
 * sub-unit was busier than the busiest of those six, and lts__throughput
 * was that maximum within 1.8 points (docs/cupti.md section 21); the other
 * four (data-bank sectors, atomics, decompression, system-memory fills)
 * would cost two passes more, each with L2 counters (about 20 ms a pass),
 * and ncu's row itself takes four passes alone (the L1 row five), which no
 * rotation group of one pass can hold: both stay in `sol`.  One
 * instrumented pass holds every SASS count; the hardware passes are bounded
 * by the SM's counters (about three per pass: warp states, stall reasons,
 * threads-per-instruction ratios and pipe percentages share them;
 * sm__pipe_fma_cycles_active and smsp__issue_active never share a pass) and
 * by L2's (the sub-units above fill two passes).  So `default` carries the
 * warp states, seven stall reasons, the pipes and the memory levels; the
 * next stall reason, lg_throttle,
 * and ncu's speed-of-light rows (sm__throughput,
 * gpu__compute_memory_throughput, lts__throughput, l1tex__throughput) are
 * in `sol`; the rest of the stall reasons in `full`.
 * ncu's set names map onto these rows as far as CUPTI collects them and the
 * table holds them: basic (ncu: SpeedOfLight, LaunchStats, Occupancy,
 * WorkloadDistribution) is the speed-of-light rows, the duration and
 * achieved occupancy (LaunchStats and theoretical occupancy are computed
 * from the launch, not collected); detailed (ncu adds ComputeWorkloadAnalysis,
 * MemoryWorkloadAnalysis, SourceCounters) is sol, the pipes, memory levels,
 * sectors, requests and bytes per sector the checklist reads plus the SOL
 * rows; full (ncu adds WarpStateStats, InstructionStats, SchedulerStats,
 * the memory tables) is full, with the stall reasons and the FP64/FP16
 * instruction counts.  Rows of ncu's sections that no step reads are not in
 * the table, so not in the sets.
 *
 * Substitutes (docs/cupti.md, the box "Measured since"): a cheaper counter
 * collected in the metric's stead by default and sol (`full` collects every
 * metric as ncu spells it): the SASS global ld/st instruction counts for the
 * L1TEX request counters (equal on all 16 reference launches on the H200;
 * 12% below them on CUB's Onesweep sort, where the requests only stand in
 * for bytes per sector, which the SASS pass measures anyway) and the
 * SASS-instrumented local sectors.  They ride in the instrumented pass the
 * flop counts need, which keeps L1TEX counters (23 ms a pass on the H200)
 * out of the SM passes.  The report still names the quantity by the ncu
 * metric.
 *
 * X(ID, name, alias, substitute, unit, step, SET, additive) */
#define PC_METRIC_ROWS(X)                                                                          \
  X(DURATION, "gpu__time_duration.sum", NULL, NULL, "ns", 0, BDEF, 1)                               \
  X(SM_THROUGHPUT_PCT, "sm__throughput.avg.pct_of_peak_sustained_elapsed", NULL, NULL, "%", 2, BSOL, 0) \
  X(MEM_THROUGHPUT_PCT, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", NULL, NULL, \
    "%", 2, BSOL, 0)                                                                                \
  /* ncu's --set full spells it gpu__dram_throughput (the same value on every \
   * row of the H200 corpus, tests/data/corpus). */                            \
  X(DRAM_THROUGHPUT_PCT, "dram__throughput.avg.pct_of_peak_sustained_elapsed",                      \
    "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", NULL, "%", 2, BDEF, 0) \
  X(DRAM_BYTES_READ, "dram__bytes_read.sum", NULL, NULL, "byte", 2, DEF, 1)                        \
  X(DRAM_BYTES_WRITE, "dram__bytes_write.sum", NULL, NULL, "byte", 2, DEF, 1)                      \
  X(FFMA, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", NULL, NULL, "inst", 2, DEF, 1)    \
  X(FADD, "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", NULL, NULL, "inst", 2, DEF, 1)    \
  X(FMUL, "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", NULL, NULL, "inst", 2, DEF, 1)    \
  X(DFMA, "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum", NULL, NULL, "inst", 2, FULL, 1)   \
  X(DADD, "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum", NULL, NULL, "inst", 2, FULL, 1)   \
  X(DMUL, "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum", NULL, NULL, "inst", 2, FULL, 1)   \
  X(HFMA, "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum", NULL, NULL, "inst", 2, FULL, 1)   \
  X(HADD, "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum", NULL, NULL, "inst", 2, FULL, 1)   \
  X(HMUL, "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum", NULL, NULL, "inst", 2, FULL, 1)   \
  X(LD_SECTORS, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", NULL, NULL, "sector", 3, DEF, 1) \
  X(LD_REQUESTS, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", NULL,                         \
    "smsp__sass_inst_executed_op_global_ld.sum", "request", 3, DEF, 1)                             \
  X(ST_SECTORS, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", NULL, NULL, "sector", 3, DEF, 1) \
  X(ST_REQUESTS, "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", NULL,                         \
    "smsp__sass_inst_executed_op_global_st.sum", "request", 3, DEF, 1)                             \
  X(LOCAL_LD_SECTORS, "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", NULL, "smsp__sass_l1tex_t_sectors_pipe_lsu_mem_local_op_ld.sum", "sector", 3, DEF, 1) \
  X(LOCAL_ST_SECTORS, "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", NULL, "smsp__sass_l1tex_t_sectors_pipe_lsu_mem_local_op_st.sum", "sector", 3, DEF, 1) \
  /* A bank conflict is one extra wavefront (seed 004 §3.5.3), hence the unit. */                 \
  X(SHARED_BANK_CONFLICTS_LD, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", NULL, NULL, \
    "wavefront", 3, DEF, 1)                                                                        \
  /* The hardware count, not the SASS-instrumented one: on cuBLAS's tensor-core \
   * GEMMs the SASS count read 1.7 million shared-load wavefronts where the   \
   * L1 counted 43 million (BF16) and 134 against 234 million (TF32), while   \
   * the conflicts are the L1's own count (H200 advice corpus).  In the L1     \
   * pass that the L1 rows take anyway: no pass more. */                       \
  X(SHARED_WAVEFRONTS_LD, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", NULL, NULL, "wavefront", 3, DEF, \
    1)                                                                                             \
  X(L2_ATOM_REQUESTS, "lts__t_requests_op_atom.sum", NULL, NULL, "request", 3, DEF, 1)             \
  X(L2_RED_REQUESTS, "lts__t_requests_op_red.sum", NULL, NULL, "request", 3, DEF, 1)               \
  /* ncu's ratios, not ratios of SASS counts: on a TMA kernel the SASS counts \
   * gave 17.3 threads per instruction where ncu's ratio read 18.3 (13.3      \
   * against 14.5 predicated on; H200 advice corpus), and under a user range  \
   * (graph launches) SASS counts come back 0.  One SM pass more on GH100. */ \
  X(THREAD_INST_PER_INST, "smsp__average_thread_inst_executed_per_inst_executed.ratio",            \
    "smsp__thread_inst_executed_per_inst_executed.ratio", NULL, "ratio", 4, DEF, 0)                \
  X(THREAD_INST_PRED_ON_PER_INST, "smsp__average_thread_inst_executed_pred_on_per_inst_executed.ratio", \
    "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio", NULL, "ratio", 4, DEF, 0)        \
  X(ISSUE_ACTIVE, "smsp__issue_active.avg.per_cycle_active", NULL, NULL, "ratio", 4, DEF, 0)       \
  X(WARPS_ACTIVE_PCT, "sm__warps_active.avg.pct_of_peak_sustained_active", NULL, NULL, "%", 5, BDEF, 0) \
  /* Bytes used per fetched sector (32 = every byte used; what ncu's   \
   * uncoalesced-access rule rests on), for every access width. */                \
  X(LD_BYTES_PER_SECTOR, "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio", NULL, NULL, \
    "byte/sector", 3, DEF, 0)                                                                      \
  X(ST_BYTES_PER_SECTOR, "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio", NULL, NULL, \
    "byte/sector", 3, DEF, 0)                                                                      \
  X(LDGSTS_BYTES_PER_SECTOR, "smsp__sass_average_data_bytes_per_sector_mem_global_op_ldgsts.ratio", NULL, \
    NULL, "byte/sector", 3, DEF, 0)                                                                \
  X(LDGSTS_INST, "smsp__sass_inst_executed_op_ldgsts.sum", NULL, NULL, "inst", 3, DEF, 1)          \
  X(TMA_INST, "sm__sass_inst_executed_op_tma.sum", NULL, NULL, "inst", 3, DEF, 1)                  \
  X(L2_REQUESTS, "lts__t_requests.sum", NULL, NULL, "request", 3, DEF, 1)                          \
  /* Memory levels: ncu's sub-units by default, ncu's SOL rows in sol. */        \
  X(L2_SECTORS_PCT, "lts__t_sectors.avg.pct_of_peak_sustained_elapsed", NULL, NULL, "%", 2, DEF, 0) \
  /* The fabric between the two L2 halves (GH100, GA100): the sub-unit that   \
   * ncu's lts__throughput took its 86-92% from on torch's gather, softmax and \
   * float add while lts__t_sectors read 38-44% (ncu breakdown,              \
   * docs/measurements/2026-12-02-h200-d).  No pass of its own on              \
   * GH100 or GA100; GB100 and AD102 lack it (left out there, as TMA is       \
   * before Hopper). */                                                         \
  X(L2_FABRIC_PCT, "lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed", NULL, NULL, "%", 2, \
    DEF, 0)                                                                                        \
  /* L2's other sub-units of ncu's lts__throughput breakdown that the       \
   * default set holds (above): the tag lookups (95-97% on torch's scatter,  \
   * gather and transposes), the crossbar into L2 (requests and write data:  \
   * 91% on a spilling sort) and out of it (reads: the largest after the     \
   * fabric on GEMMs), the fills from DRAM (89% on a CUB reduction).  The     \
   * crossbar-out port as ncu's breakdown spells it, _realtime: the other     \
   * spelling read up to 1.8 points above lts__throughput on cuBLAS's TF32    \
   * GEMM; GA100 and TU102 lack it (left out there). */                       \
  X(L2_TAG_PCT, "lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed", NULL, NULL, "%", 2, DEF, 0) \
  X(L2_XBAR2LTS_PCT, "lts__xbar2lts_cycles_active.avg.pct_of_peak_sustained_elapsed", NULL, NULL, "%", 2, \
    DEF, 0)                                                                                        \
  X(L2_LTS2XBAR_PCT, "lts__lts2xbar_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed", NULL, NULL, "%", \
    2, DEF, 0)                                                                                     \
  X(L2_FILL_PCT, "lts__d_sectors_fill_device.avg.pct_of_peak_sustained_elapsed", NULL, NULL, "%", 2, DEF, 0) \
  X(L1_WAVEFRONTS_PCT, "l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed", NULL, NULL, \
    "%", 2, DEF, 0)                                                                                \
  /* L1's row, ncu's l1tex__throughput (active cycles), is the maximum of its \
   * sub-units; on the committed H200 exports the LSU wavefronts were its    \
   * value within 1.3 points wherever it reached 60% (docs/cupti.md section  \
   * 21).  Normalized by L1's active cycles as ncu's row is: a kernel whose  \
   * SMs idle part of the time reads 61.9% there and 59.9% over elapsed      \
   * cycles (torch's layer norm). */                                          \
  X(L1_WAVEFRONTS_ACTIVE_PCT, "l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_active", NULL, NULL, \
    "%", 2, DEF, 0)                                                                                \
  /* ncu's L2 speed-of-light row, in sol: 4 passes alone on GH100, so no     \
   * one-pass rotation group holds it; the default set reads its sub-units    \
   * (above).  lts__t_sectors alone reads 44% where it reads 92% for torch's  \
   * float add (H200 corpus), the fabric 92%. */                              \
  X(L2_THROUGHPUT_PCT, "lts__throughput.avg.pct_of_peak_sustained_elapsed", NULL, NULL, "%", 2, BSOL, 0) \
  X(L1_THROUGHPUT_PCT, "l1tex__throughput.avg.pct_of_peak_sustained_active", NULL, NULL, "%", 2, BSOL, 0) \
  /* Pipes: as ncu's ComputeWorkloadAnalysis section spells each (its        \
   * "% of active cycles" chart for tensor, FMA, ALU and FP64, its "% of      \
   * peak instructions executed" chart for GMMA, LSU, XU and uniform).        \
   * sm__inst_executed_pipe_fma would save a pass and a rotation group on    \
   * GH100 (the cycles counter never shares a pass with smsp__issue_active),  \
   * but it reads up to 9.8 points below sm__pipe_fma_cycles_active (24.9    \
   * against 34.7 on torch's Philox kernel: instructions that hold the pipe \
   * two cycles), within 0.1 at 60% or more: not taken. */                    \
  X(PIPE_TENSOR_PCT, "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", NULL, NULL, "%", 2, \
    DEF, 0)                                                                                        \
  X(PIPE_TENSOR_GMMA_PCT, "sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_active", NULL, \
    NULL, "%", 2, DEF, 0)                                                                          \
  X(PIPE_FMA_PCT, "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", NULL, NULL, "%", 2, DEF, 0) \
  X(PIPE_ALU_PCT, "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active", NULL, NULL, "%", 2, DEF, 0) \
  X(PIPE_FP64_PCT, "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active", NULL, NULL, "%", 2, DEF, \
    0)                                                                                             \
  X(PIPE_LSU_PCT, "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active", NULL, NULL, "%", 2, DEF, 0) \
  X(PIPE_XU_PCT, "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active", NULL, NULL, "%", 2, DEF, 0) \
  X(PIPE_UNIFORM_PCT, "sm__inst_executed_pipe_uniform.avg.pct_of_peak_sustained_active", NULL, NULL, "%", 2, \
    DEF, 0)                                                                                        \
  /* The L1 hits of global loads: a sector a load half uses but the next      \
   * instruction finds in L1 costs nothing more at L2 (vectorized casts read    \
   * two 16-byte halves of each sector, 16 bytes per sector, 50% hits). */      \
  X(LD_SECTORS_HIT, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum", NULL, NULL, "sector", 3, DEF, \
    1)                                                                                             \
  /* The L1 hits of local loads and stores: a local array that stays in L1  \
   * costs an LSU instruction and an L1 round trip, not the L2 and DRAM     \
   * traffic local memory's share weighs (torch's RowwiseMoments: 99.98%    \
   * of its local load sectors hit).  In the default set: without them, three \
   * register-capped kernels of the H200 advice corpus and torch's group norm \
   * (every local load and 63-99% of local stores hit L1) were                \
   * local_memory_spills in process and not offline.  No pass more. */         \
  X(LOCAL_LD_SECTORS_HIT, "l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_hit.sum", NULL, NULL, "sector", 3, \
    DEF, 1)                                                                                        \
  X(LOCAL_ST_SECTORS_HIT, "l1tex__t_sectors_pipe_lsu_mem_local_op_st_lookup_hit.sum", NULL, NULL, "sector", 3, \
    DEF, 1)                                                                                        \
  /* Every L2 sector: the denominator of local memory's share. */             \
  X(L2_SECTORS, "lts__t_sectors.sum", NULL, NULL, "sector", 3, DEF, 1) \
  /* Warp states: warps a scheduler holds and how many of them could issue,  \
   * and each stall reason per issued instruction (seed 004 Decision 3 and    \
   * "Warp stall breakdown"), as ncu's --set full spells them.  `wait` and   \
   * `not_selected` are in the default set: torch's random-number kernels     \
   * stall mostly on `wait` (32% of stall cycles; H200 validation set), and   \
   * the stall shares of a set that lacks `not_selected` count its cycles as  \
   * stalls (the same kernels' `wait` read 20% so).  No pass more on GH100. */ \
  X(WARPS_ELIGIBLE, "smsp__warps_eligible.avg.per_cycle_active", NULL, NULL, "warp", 5, DEF, 0)    \
  X(WARPS_ACTIVE, "smsp__warps_active.avg.per_cycle_active", NULL, NULL, "warp", 5, DEF, 0) \
  X(STALL_LONG_SCOREBOARD, "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio", NULL, NULL, "ratio", 5, DEF, 0) \
  X(STALL_BARRIER, "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio", NULL, NULL, "ratio", 5, DEF, 0) \
  X(STALL_MIO_THROTTLE, "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio", NULL, NULL, "ratio", 5, DEF, 0) \
  X(STALL_SHORT_SCOREBOARD, "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio", NULL, NULL, "ratio", 5, DEF, 0) \
  X(STALL_MATH_PIPE_THROTTLE, "smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio", NULL, NULL, "ratio", 5, DEF, 0) \
  X(STALL_LG_THROTTLE, "smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio", NULL, NULL, "ratio", 5, SOL, 0) \
  X(STALL_WAIT, "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio", NULL, NULL, "ratio", 5, DEF, 0) \
  X(STALL_NOT_SELECTED, "smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio", NULL, NULL, "ratio", 5, DEF, 0) \
  X(STALL_SELECTED, "smsp__average_warps_issue_stalled_selected_per_issue_active.ratio", NULL, NULL, "ratio", 5, FULL, 0) \
  X(STALL_DRAIN, "smsp__average_warps_issue_stalled_drain_per_issue_active.ratio", NULL, NULL, "ratio", 5, FULL, 0) \
  X(STALL_IMC_MISS, "smsp__average_warps_issue_stalled_imc_miss_per_issue_active.ratio", NULL, NULL, "ratio", 5, FULL, 0) \
  X(STALL_NO_INSTRUCTION, "smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio", NULL, NULL, "ratio", 5, FULL, 0) \
  X(STALL_BRANCH_RESOLVING, "smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio", NULL, NULL, "ratio", 5, FULL, 0) \
  X(STALL_DISPATCH_STALL, "smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio", NULL, NULL, "ratio", 5, FULL, 0) \
  X(STALL_MEMBAR, "smsp__average_warps_issue_stalled_membar_per_issue_active.ratio", NULL, NULL, "ratio", 5, FULL, 0) \
  X(STALL_SLEEPING, "smsp__average_warps_issue_stalled_sleeping_per_issue_active.ratio", NULL, NULL, "ratio", 5, FULL, 0) \
  X(STALL_TEX_THROTTLE, "smsp__average_warps_issue_stalled_tex_throttle_per_issue_active.ratio", NULL, NULL, "ratio", 5, FULL, 0) \
  X(STALL_MISC, "smsp__average_warps_issue_stalled_misc_per_issue_active.ratio", NULL, NULL, "ratio", 5, FULL, 0) \
  X(STALL_GMMA, "smsp__average_warps_issue_stalled_gmma_per_issue_active.ratio", NULL, NULL, "ratio", 5, FULL, 0)

#define PC_SETS_DEF (PC_SET_DEFAULT | PC_SET_SOL | PC_SET_FULL)
#define PC_SETS_SOL (PC_SET_SOL | PC_SET_FULL)
#define PC_SETS_FULL (PC_SET_FULL)
#define PC_SETS_BDEF (PC_SETS_DEF | PC_SET_BASIC)
#define PC_SETS_BSOL (PC_SETS_SOL | PC_SET_BASIC)

#define PC_METRIC_DEF_(ID, name, alias, sub, unit, step, set, add) \
  {PC_M_##ID, name, alias, sub, unit, step, PC_SETS_##set, add},
static const pc_metric_def pc_metric_defs[] = {PC_METRIC_ROWS(PC_METRIC_DEF_)};
#undef PC_METRIC_DEF_

_Static_assert(sizeof pc_metric_defs / sizeof pc_metric_defs[0] == PC_M_COUNT,
               "one metric row per pc_metric_id");

/* The set lists: each row adds ",name" to the lists it belongs to; the
 * functions return the literal past its leading comma. */
#define PC_IN_DEFAULT_DEF(name) "," name
#define PC_IN_DEFAULT_BDEF(name) "," name
#define PC_IN_DEFAULT_SOL(name)
#define PC_IN_DEFAULT_BSOL(name)
#define PC_IN_DEFAULT_FULL(name)
#define PC_IN_SOL_DEF(name) "," name
#define PC_IN_SOL_BDEF(name) "," name
#define PC_IN_SOL_SOL(name) "," name
#define PC_IN_SOL_BSOL(name) "," name
#define PC_IN_SOL_FULL(name)
#define PC_IN_FULL_DEF(name) "," name
#define PC_IN_FULL_BDEF(name) "," name
#define PC_IN_FULL_SOL(name) "," name
#define PC_IN_FULL_BSOL(name) "," name
#define PC_IN_FULL_FULL(name) "," name
#define PC_IN_BASIC_DEF(name)
#define PC_IN_BASIC_BDEF(name) "," name
#define PC_IN_BASIC_SOL(name)
#define PC_IN_BASIC_BSOL(name) "," name
#define PC_IN_BASIC_FULL(name)
#define PC_LIST_DEFAULT_(ID, name, alias, sub, unit, step, set, add) PC_IN_DEFAULT_##set(name)
#define PC_LIST_SOL_(ID, name, alias, sub, unit, step, set, add) PC_IN_SOL_##set(name)
#define PC_LIST_FULL_(ID, name, alias, sub, unit, step, set, add) PC_IN_FULL_##set(name)
#define PC_LIST_BASIC_(ID, name, alias, sub, unit, step, set, add) PC_IN_BASIC_##set(name)
static const char pc_list_default[] = "" PC_METRIC_ROWS(PC_LIST_DEFAULT_);
static const char pc_list_sol[] = "" PC_METRIC_ROWS(PC_LIST_SOL_);
static const char pc_list_full[] = "" PC_METRIC_ROWS(PC_LIST_FULL_);
static const char pc_list_basic[] = "" PC_METRIC_ROWS(PC_LIST_BASIC_);

/* The set names: perfcheck's three and ncu's (detailed is sol). */
static const struct {
  const char *name;
  unsigned bit;
  const char *list; /* with its leading comma */
} pc_sets[] = {{"default", PC_SET_DEFAULT, pc_list_default}, {"sol", PC_SET_SOL, pc_list_sol},
               {"full", PC_SET_FULL, pc_list_full},          {"basic", PC_SET_BASIC, pc_list_basic},
               {"detailed", PC_SET_SOL, pc_list_sol}};
const char pc_metric_set_names[] = "default, sol, full, or ncu's basic, detailed, full";

unsigned pc_metric_set_bit(const char *name, size_t len) {
  if (!name) return 0;
  for (size_t i = 0; i < sizeof pc_sets / sizeof pc_sets[0]; i++)
    if (strlen(pc_sets[i].name) == len && strncmp(pc_sets[i].name, name, len) == 0) return pc_sets[i].bit;
  return 0;
}

const pc_metric_def *pc_metric_table(void) { return pc_metric_defs; }

const pc_metric_def *pc_metric_by_id(pc_metric_id id) {
  if ((int)id < 0 || id >= PC_M_COUNT) return NULL;
  return &pc_metric_defs[id];
}

const pc_metric_def *pc_metric_lookup(const char *name, int *via_substitute) {
  if (via_substitute) *via_substitute = 0;
  if (!name) return NULL;
  for (int i = 0; i < PC_M_COUNT; i++) {
    const pc_metric_def *m = &pc_metric_defs[i];
    if (strcmp(m->name, name) == 0 || (m->alias && strcmp(m->alias, name) == 0)) return m;
  }
  for (int i = 0; i < PC_M_COUNT; i++) {
    const pc_metric_def *m = &pc_metric_defs[i];
    if (m->substitute && strcmp(m->substitute, name) == 0) {
      if (via_substitute) *via_substitute = 1;
      return m;
    }
  }
  return NULL;
}

PERFCHECK_API const char *perfcheck_metric_list(const char *set) {
  if (!set) return NULL;
  for (size_t i = 0; i < sizeof pc_sets / sizeof pc_sets[0]; i++)
    if (strcmp(pc_sets[i].name, set) == 0) return pc_sets[i].list + 1;
  return NULL;
}
