/*
 * pc_core.h: the report model, the data every room of lib/core fills or
 * reads (no CUDA header anywhere in lib/core/):
 *
 *   pc_device   the device's limits and ceilings (from the driver, a file or
 *               an ncu export's device__attribute_* columns)
 *   pc_kernel   one launch signature: launch config, attributes, measured
 *               metric values (by ncu name), derived values, diagnosis
 *   pc_region   one ended region: wall clock, busy time, step-1 verdict
 *   pc_report   all of the above, plus warnings; what the writers print
 *
 * with what every room needs to build them: the metric table, the device's
 * ceilings, the kernel names, one vocabulary of values by name, and the
 * report's own constructors.  What the rooms do with the model is in their
 * own headers (check/pc_check.h, read/pc_ncu.h, write/pc_write.h,
 * report/pc_timeline.h, ...).
 *
 * A value that was not measured is NaN (PC_NULL) and is written as null.
 * Internal names are pc_<module>_...; nothing here is exported.
 */
#ifndef PC_CORE_H
#define PC_CORE_H

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "perfcheck.h"
#include "base/pc_err.h" /* the one error channel: pc_err */
#include "base/pc_util.h" /* pc_strdup, pc_median, pc_fail */

/* PC_NULL, pc_is_null and pc_has: base/pc_util.h. */

/* ==== Metric table (pc_metrics.c) ======================================== */

/* Every quantity perfcheck reads from CUPTI or an ncu export, by ncu's name.
 * Order is the order of the contract's table. */
typedef enum pc_metric_id {
  PC_M_DURATION = 0,            /* gpu__time_duration.sum (ns) */
  PC_M_SM_THROUGHPUT_PCT,       /* sm__throughput.avg.pct_of_peak_sustained_elapsed */
  PC_M_MEM_THROUGHPUT_PCT,      /* gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed */
  PC_M_DRAM_THROUGHPUT_PCT,     /* dram__throughput.avg.pct_of_peak_sustained_elapsed */
  PC_M_DRAM_BYTES_READ,         /* dram__bytes_read.sum */
  PC_M_DRAM_BYTES_WRITE,        /* dram__bytes_write.sum */
  PC_M_FFMA,                    /* smsp__sass_thread_inst_executed_op_ffma_pred_on.sum */
  PC_M_FADD,
  PC_M_FMUL,
  PC_M_DFMA,
  PC_M_DADD,
  PC_M_DMUL,
  PC_M_HFMA,
  PC_M_HADD,
  PC_M_HMUL,
  PC_M_LD_SECTORS,              /* l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum */
  PC_M_LD_REQUESTS,             /* l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum */
  PC_M_ST_SECTORS,
  PC_M_ST_REQUESTS,
  PC_M_LOCAL_LD_SECTORS,        /* l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum */
  PC_M_LOCAL_ST_SECTORS,
  PC_M_SHARED_BANK_CONFLICTS_LD,/* l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum */
  PC_M_SHARED_WAVEFRONTS_LD,    /* l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum */
  PC_M_L2_ATOM_REQUESTS,        /* lts__t_requests_op_atom.sum */
  PC_M_L2_RED_REQUESTS,         /* lts__t_requests_op_red.sum */
  PC_M_THREAD_INST_PER_INST,    /* smsp__average_thread_inst_executed_per_inst_executed.ratio */
  PC_M_THREAD_INST_PRED_ON_PER_INST, /* smsp__average_thread_inst_executed_pred_on_per_inst_executed.ratio */
  PC_M_ISSUE_ACTIVE,            /* smsp__issue_active.avg.per_cycle_active */
  PC_M_WARPS_ACTIVE_PCT,        /* sm__warps_active.avg.pct_of_peak_sustained_active */
  /* Bytes used per fetched sector, every kind of global traffic,
   * and step 2 across every pipe and memory level. */
  PC_M_LD_BYTES_PER_SECTOR,     /* smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio */
  PC_M_ST_BYTES_PER_SECTOR,     /* ..._op_st.ratio */
  PC_M_LDGSTS_BYTES_PER_SECTOR, /* ..._op_ldgsts.ratio (cp.async) */
  PC_M_LDGSTS_INST,             /* smsp__sass_inst_executed_op_ldgsts.sum */
  PC_M_TMA_INST,                /* sm__sass_inst_executed_op_tma.sum */
  PC_M_L2_REQUESTS,             /* lts__t_requests.sum: every L2 request, any source */
  PC_M_L2_SECTORS_PCT,          /* lts__t_sectors.avg.pct_of_peak_sustained_elapsed */
  PC_M_L2_FABRIC_PCT,           /* lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed */
  PC_M_L2_TAG_PCT,              /* lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed */
  PC_M_L2_XBAR2LTS_PCT,         /* lts__xbar2lts_cycles_active.avg.pct_of_peak_sustained_elapsed */
  PC_M_L2_LTS2XBAR_PCT,         /* lts__lts2xbar_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed */
  PC_M_L2_FILL_PCT,             /* lts__d_sectors_fill_device.avg.pct_of_peak_sustained_elapsed */
  PC_M_L1_WAVEFRONTS_PCT,       /* l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed */
  PC_M_L1_WAVEFRONTS_ACTIVE_PCT,/* l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_active */
  PC_M_L2_THROUGHPUT_PCT,       /* lts__throughput.avg.pct_of_peak_sustained_elapsed */
  PC_M_L1_THROUGHPUT_PCT,       /* l1tex__throughput.avg.pct_of_peak_sustained_active */
  PC_M_PIPE_TENSOR_PCT,         /* sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active */
  PC_M_PIPE_TENSOR_GMMA_PCT,    /* sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_active */
  PC_M_PIPE_FMA_PCT,            /* sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active */
  PC_M_PIPE_ALU_PCT,            /* sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active */
  PC_M_PIPE_FP64_PCT,           /* sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active */
  PC_M_PIPE_LSU_PCT,            /* sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active */
  PC_M_PIPE_XU_PCT,             /* sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active */
  PC_M_PIPE_UNIFORM_PCT,        /* sm__inst_executed_pipe_uniform.avg.pct_of_peak_sustained_active */
  PC_M_LD_SECTORS_HIT,          /* l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum */
  PC_M_LOCAL_LD_SECTORS_HIT,    /* l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_hit.sum */
  PC_M_LOCAL_ST_SECTORS_HIT,    /* l1tex__t_sectors_pipe_lsu_mem_local_op_st_lookup_hit.sum */
  PC_M_L2_SECTORS,              /* lts__t_sectors.sum */
  PC_M_WARPS_ELIGIBLE,          /* smsp__warps_eligible.avg.per_cycle_active */
  PC_M_WARPS_ACTIVE,            /* smsp__warps_active.avg.per_cycle_active */
  PC_M_STALL_LONG_SCOREBOARD,
  PC_M_STALL_BARRIER,
  PC_M_STALL_MIO_THROTTLE,
  PC_M_STALL_SHORT_SCOREBOARD,
  PC_M_STALL_MATH_PIPE_THROTTLE,
  PC_M_STALL_LG_THROTTLE,
  PC_M_STALL_WAIT,
  PC_M_STALL_NOT_SELECTED,
  PC_M_STALL_SELECTED,
  PC_M_STALL_DRAIN,
  PC_M_STALL_IMC_MISS,
  PC_M_STALL_NO_INSTRUCTION,
  PC_M_STALL_BRANCH_RESOLVING,
  PC_M_STALL_DISPATCH_STALL,
  PC_M_STALL_MEMBAR,
  PC_M_STALL_SLEEPING,
  PC_M_STALL_TEX_THROTTLE,
  PC_M_STALL_MISC,
  PC_M_STALL_GMMA,
  PC_M_COUNT
} pc_metric_id;

/* Which metric set a metric belongs to (bit flags).  PC_SET_BASIC: the rows
 * of ncu's `--set basic` sections (SpeedOfLight, Occupancy; LaunchStats'
 * launch__ values are computed, not collected). */
enum { PC_SET_DEFAULT = 1u, PC_SET_SOL = 2u, PC_SET_FULL = 4u, PC_SET_BASIC = 8u };

/* The set names, perfcheck's and ncu's (pc_metrics.c): "default", "sol",
 * "full", "basic", "detailed" (ncu's detailed: the sol set), each with its
 * PC_SET_ bit; the one table the library's parsers (pc_config.c, lib/gpu's
 * plans), perfcheck_metric_list and the CLI read.  pc_metric_set_bit:
 * the bit of a name of `len` bytes, 0 when it is none. */
unsigned pc_metric_set_bit(const char *name, size_t len);
/* "default, sol, full, basic, detailed": for messages. */
extern const char pc_metric_set_names[];

typedef struct pc_metric_def {
  pc_metric_id id;
  const char *name;        /* as ncu spells it */
  const char *alias;       /* older spelling accepted on input, or NULL */
  const char *substitute;  /* a cheaper counter collected in its stead by
                              default (same quantity, shown equal on real
                              exports), or NULL */
  const char *unit;        /* "ns", "byte", "%", "sector", "request", "inst", "ratio" */
  int step;                /* the checklist step that reads it (0: duration) */
  unsigned sets;           /* PC_SET_* */
  int additive;            /* 1: a count that sums over launches */
} pc_metric_def;

const pc_metric_def *pc_metric_table(void);                 /* PC_M_COUNT entries */
const pc_metric_def *pc_metric_by_id(pc_metric_id id);
/* Finds a metric by name, alias or substitute name; NULL if unknown.
 * *via_substitute (may be NULL) is set to 1 when `name` was the substitute. */
const pc_metric_def *pc_metric_lookup(const char *name, int *via_substitute);

/* ==== Device and ceilings (pc_device.c) =================================== */

typedef struct pc_device {
  char name[128];               /* "" when unknown */
  int cc_major, cc_minor;       /* -1 when unknown */
  int sm_count;                 /* -1 when unknown (so for every int below) */
  int warp_size;
  int max_threads_per_sm;
  int max_threads_per_block;
  int max_blocks_per_sm;
  int max_regs_per_sm;
  int max_regs_per_block;
  int max_smem_per_sm;          /* bytes */
  int max_smem_per_block;       /* default per-block limit (48 KiB) */
  int max_smem_per_block_optin;
  int reserved_smem_per_block;  /* driver-reserved (1 KiB on sm_8x/9x) */
  int reg_alloc_unit;           /* registers per warp, allocation unit (256) */
  int warp_alloc_granularity;   /* warps (4) */
  int smem_alloc_unit;          /* bytes (128) */
  /* Ceilings.  NaN when unknown. */
  double peak_dram_bytes_per_s;
  double peak_fp32_flop_per_s;
  double ridge_flop_per_byte;   /* peak_fp32 / peak_dram */
  char ceilings_source[64];     /* "attributes", "measured", "file", "ncu-export", "" */
} pc_device;

/* All fields unknown (-1 / NaN / ""). */
void pc_device_init(pc_device *d);
/* Fills the allocation granularities that the driver does not report, from
 * the compute capability (256 regs/warp unit, 4 warps; 256 B smem unit and
 * no reserved smem to sm_7x, 128 B and 1 KiB reserved from sm_8x, as in
 * cuda_occupancy.h).  Only unknown (-1) fields are filled. */
void pc_device_fill_granularities(pc_device *d);
/* FP32 lanes (FMA units) per SM for a compute capability (sm_75: 64,
 * sm_80: 64, sm_86/89: 128, sm_90: 128, sm_10x/12x: 128); -1 when unknown. */
int pc_fp32_lanes_per_sm(int cc_major, int cc_minor);
/* Fills the two peaks from clock attributes: DRAM = 2 x memory clock x bus
 * width / 8 (double data rate), FP32 = SMs x lanes x 2 FLOP x SM clock; then
 * the ridge.  Leaves a peak NaN when an input is missing or not positive.
 * Sets ceilings_source to "attributes". */
void pc_device_ceilings_from_clocks(pc_device *d, double mem_clock_khz, double bus_width_bits,
                                    double sm_clock_khz);
/* The compute roofs a roofline draws: FP32 (the device's own peak), and
 * FP64, XU (transcendentals, in results per second) and the tensor cores
 * (dense FP16/BF16 FLOP per second), each from the FP32 peak by the ratio
 * of the per-SM, per-cycle rates NVIDIA documents for the compute
 * capability (pc_device.c names the source of each; a rate not documented
 * for it gives no roof).  Fills out[] (at most PC_PIPE_PEAKS) and returns
 * how many; 0 without an FP32 peak. */
#define PC_PIPE_PEAKS 4
typedef struct pc_pipe_peak {
  const char *pipe;      /* "fp32", "fp64", "xu", "tensor" */
  const char *unit;      /* "FLOP/s", or "results/s" for the XU */
  double per_s;
  char source[200];      /* where the number comes from, in words */
} pc_pipe_peak;
size_t pc_device_pipe_peaks(const pc_device *d, pc_pipe_peak *out);
/* Where a device's ceilings came from, in words ("from the device's
 * clocks, not measured"), for ceilings_source. */
const char *pc_device_ceilings_origin(const char *ceilings_source);
/* Recomputes ridge_flop_per_byte from the two peaks (NaN if either is). */
void pc_device_update_ridge(pc_device *d);
/* Reads a ceilings file ("key = value" lines: peak_dram_bytes_per_s,
 * peak_fp32_flop_per_s, and optional device limits).  Returns PERFCHECK_OK,
 * PERFCHECK_ERROR_IO or PERFCHECK_ERROR_PARSE (err says where). */
perfcheck_status pc_device_read_ceilings(pc_device *d, const char *path, pc_err *err);
/* Writes d's ceilings file at path (pc_output_write_file).  Returns
 * PERFCHECK_OK, or PERFCHECK_ERROR_IO ("PATH: why"), _INVALID_ARGUMENT,
 * _OUT_OF_MEMORY with err set. */
perfcheck_status pc_device_write_ceilings(const pc_device *d, const char *path, pc_err *err);

/* ==== Occupancy limiter ================================================== */

/* The resource that limits blocks per SM (the occupancy model and
 * pc_limiter_name: check/pc_check.h). */
typedef enum pc_limiter {
  PC_LIMIT_NONE = 0,
  PC_LIMIT_WARPS,
  PC_LIMIT_BLOCKS,
  PC_LIMIT_REGISTERS,
  PC_LIMIT_SHARED_MEMORY
} pc_limiter;

/* ==== Kernels, regions, reports (pc_report.c; names and values: pc_values.c) */

/* Launch attributes: measured by the driver in process, read from launch__*
 * columns offline.  NaN when unknown. */
typedef struct pc_attributes {
  double registers_per_thread;
  double static_smem;
  double dynamic_smem;
  double local_bytes_per_thread;
  double max_threads_per_block;
  double blocks_per_sm;         /* the driver's (or ncu's) answer */
  double warps_per_sm;
  double theoretical_occupancy_pct;
  double limit_warps, limit_blocks, limit_registers, limit_shared_mem;
  pc_limiter binding;
  double waves_per_sm;
  /* The model's answer when it disagrees with the driver's (else NaN): a
   * mismatch is reported, never hidden. */
  double model_blocks_per_sm;
} pc_attributes;

void pc_attributes_init(pc_attributes *a);

typedef struct pc_derived {
  double sectors_per_request_ld;
  double sectors_per_request_st;
  double bytes_per_sector_ld;   /* bytes a warp uses of each 32-byte sector it fetches (32: all) */
  double bytes_per_sector_st;
  double bytes_per_sector_ldgsts;
  double ld_sector_hit_share;   /* global load sectors that hit in L1, of all (0..1) */
  double lanes_per_warp_max;    /* threads per block / warps per block: what the launch allows */
  double threads_per_instruction;
  double threads_per_instruction_pred_on;
  double achieved_occupancy_pct;
  double theoretical_occupancy_pct;
  double flops;                 /* FP32 (+FP64, FP16 when measured) FLOPs, FMA = 2 */
  double dram_bytes;
  double arithmetic_intensity;  /* flops / dram_bytes */
  double waves_per_sm;
  double dram_gbps;             /* dram_bytes / duration */
  double gflops;                /* flops / duration */
  double memory_pct;            /* % of the memory ceiling (see pc_derive) */
  double compute_pct;           /* % of the compute ceiling */
  double local_sectors;         /* local ld + st sectors */
  double local_share;           /* local sectors / (local + max(L2 sectors, global ld + st sectors)) */
  double bank_conflict_share;   /* conflicts / wavefronts */
  double atomic_share;          /* (atom + red) / every L2 request (lts__t_requests), or, in exports
                                   without it, / (global ld + st requests + atom + red) */
  /* Warp states per scheduler (smsp__*.avg.per_cycle_active). */
  double issue_active;          /* instructions issued per cycle (0..1) */
  double warps_active;          /* resident warps */
  double warps_eligible;        /* warps ready to issue */
} pc_derived;

/* The busiest unit of one kind (step 2): a pipe, or a memory level.  name and
 * metric are static text ("tensor", "sm__pipe_tensor_cycles_active..."),
 * NULL with pct NaN when none was measured. */
typedef struct pc_unit_load {
  const char *name;
  double pct;
  const char *metric;
} pc_unit_load;


/* Room for the longest advice the checklist writes (about 480 bytes: the
 * latency_bound sentence with the longest stall clause); tests/unit/
 * test_writers.c checks that none is cut and that the longest reaches every
 * writer whole. */
#define PC_ADVICE_MAX 640
#define PC_METRIC_NAME_MAX 160
#define PC_MAX_FINDINGS 16

typedef struct pc_finding {
  int step;
  perfcheck_cause cause;
  char metric[PC_METRIC_NAME_MAX]; /* ncu spelling; a ratio as "a / b" */
  double value;
  double threshold;
  char advice[PC_ADVICE_MAX];
} pc_finding;

/* The dominant warp stall of a kernel (step 5 and latency_bound): the stall
 * reason with the largest share of the stall cycles (every
 * smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio measured,
 * selected and not_selected left out: they are not stalls, seed 004). */
typedef struct pc_stall {
  const char *reason;    /* "long_scoreboard", ... (static); NULL when no reason was measured */
  const char *metric;    /* its ncu metric (static) */
  double per_issue;      /* the metric's value: warps stalled for it per issued instruction */
  double share;          /* of all stall cycles measured (0..1) */
  const char *second;    /* the next largest reason, or NULL */
  double second_share;
  int reasons_measured;  /* how many stall reasons the kernel has values for */
} pc_stall;

/* An estimate of what a change saves: speedup (x) and time saved in the
 * region (ns), with the one sentence it rests on; NaN when not estimated. */
typedef struct pc_gain {
  double speedup;
  double saved_ns;
  char basis[256];
} pc_gain;

typedef struct pc_diagnosis {
  pc_finding verdict;
  perfcheck_bound bound;
  /* 1 when the value that decided the verdict sits within the nudge of its
   * threshold (5 points of a percentage, 10% of a ratio: docs/checklist.md),
   * so a small change of the rule would give runner_up instead. */
  int borderline;
  perfcheck_cause runner_up;    /* PERFCHECK_CAUSE_NONE when not borderline */
  /* When borderline: the metric whose threshold, nudged, gives runner_up,
   * its value and that threshold ("" and NaN otherwise). */
  char runner_up_metric[PC_METRIC_NAME_MAX];
  double runner_up_value, runner_up_threshold;
  /* An estimate of what the verdict's change saves (speedup NaN: none). */
  pc_gain gain;
  /* A library's kernel (pc_kernel.library): the change the user controls
   * (shape, dtype, layout, the library call or its configuration); "" else. */
  char library_advice[PC_ADVICE_MAX];
  pc_stall stall;               /* the dominant stall (measured or not) */
  size_t nfindings;
  pc_finding findings[PC_MAX_FINDINGS]; /* most important first */
} pc_diagnosis;

typedef struct pc_kernel {
  char *name;                   /* demangled, no return type or parameters */
  char *mangled;                /* NULL when unknown */
  char *demangled;              /* the full demangled name (with parameters); NULL when unknown */
  char *display_name;           /* the short name for tables (pc_kernel_display_name) */
  char *region;                 /* NULL when none */
  int device_ordinal;           /* the CUDA ordinal it ran on; -1 when unknown (offline) */
  char pci_bus_id[16];          /* its device's PCI bus id ("0000:19:00.0"); "" when unknown (offline) */
  unsigned grid[3];
  unsigned block[3];
  double dynamic_smem;
  uint64_t launches;
  uint64_t profiled_launches;   /* launches whose counters were collected */
  double dur_min_ns, dur_median_ns, dur_max_ns;
  /* The kernel's time in its region: the sum of its launches' durations
   * (profiled launches by their counted duration), and that sum's share of
   * the region's summed kernel time (step 1 per kernel).  NaN when unknown. */
  double total_ns;
  double time_share;
  /* 1: time_share >= 1% (worth changing), 0: under 1% (its verdict kept, not
   * worth the work), -1: time_share unknown. */
  int worth_changing;
  /* The library that owns the kernel ("cuBLAS", "cuDNN", "CUTLASS", "CUB",
   * "NCCL", "cuFFT", "Triton", "PyTorch", ...); "" for the user's own code. */
  char library[32];
  /* 1: time_share is of a region's whole timeline (in process: every launch
   * timed); 0: of an export's profiled launches only (a sample: ncu -c /
   * -k).  Either way it sits beside the verdict, never replaces it: step 1
   * belongs to the region. */
  int time_share_from_timeline;
  /* 1-based rank of total_ns among its region's kernels (its export's,
   * offline); 0 when unknown. */
  int rank;
  pc_attributes attr;
  double metric[PC_M_COUNT];    /* NaN: not measured */
  unsigned char metric_via_substitute[PC_M_COUNT];
  /* Metrics the user added by name (not in the table), in request order. */
  size_t nextra;
  char **extra_names;
  double *extra_values;
  char *not_measured_reason;    /* why the counters are missing (graph launch,
                                   permissions, filter, ...), NULL if none */
  int passes;                   /* counter passes, 0 when none */
  /* How the counters were collected: "kernel" (kernel replay,
   * every pass in one launch), "rotate" (one group per launch, PERFCHECK_REPLAY
   * =rotate), "rotate+kernel" (a rotation an earlier run left short, finished
   * by kernel replay); "" without counters. */
  char replay[16];
  int groups;                   /* rotation: the set's groups (launches it takes); 0 otherwise */
  int groups_collected;         /* of those, collected for this entry */
  /* The largest relative range ((max - min) / |mean|) of one metric over the
   * profiled launches that collected it twice or more: how far launches of
   * one signature disagree; NaN when no metric was collected twice. */
  double counter_spread;
  int dram_cold;                /* its DRAM counters came from a launch that started from a flushed L2 */
  uint32_t graph_id;            /* launched by a CUDA graph: CUPTI's graph id and the node of its first launch; 0 none
                                   (a graph entry: its graph's id, node 0) */
  uint64_t graph_node;
  /* In process: which compiled function (the snapshot's signature
   * "function"): entries of one name with different ids are different
   * kernels (two modules, two compilations); 0 unknown (offline, a graph). */
  uint32_t function_id;
  char *graph_entry;            /* a graph kernel: the name of its graph's entry, which holds the counters; NULL none */
  /* Rotation: bit g set when group g fed this entry (groups < 64),
   * and why the missing ones are missing (NULL when none is). */
  uint64_t groups_seen;
  char *rotation_note;
  /* A graph entry: not a kernel but a CUDA graph exec's
   * launches in the region.  Its counters are each graph launch's, summed
   * over all of its kernels (a user range around cuGraphLaunch, one group a
   * launch); its kernels keep entries of their own with their timings.
   * docs/report-contract.md, "Graph entries", says what it holds. */
  int is_graph;
  uint64_t graph_exec;          /* CUPTI's graph exec id */
  uint32_t graph_kernels;       /* kernels per graph launch (the most one launch ran) */
  uint32_t graph_signatures;    /* distinct kernel signatures among them */
  size_t ngraph_names;
  char **graph_names;           /* their short names, in the order they first ran */
  pc_derived derived;
  pc_unit_load busiest_pipe;    /* step 2: the busiest pipe (tensor, fma, alu, fp64, lsu, xu, uniform) */
  pc_unit_load busiest_memory;  /* step 2: the busiest memory level (dram, l2, l1) */
  pc_diagnosis diag;
} pc_kernel;

/* Step 1 of a region on one device: that device's kernel busy time against
 * the region's wall clock (pc_region_build; a device with no kernel in the
 * region has no entry). */
typedef struct pc_region_device {
  int ordinal;                  /* CUDA ordinal; -1 unknown */
  char pci_bus_id[16];          /* "" unknown */
  double kernel_ns;             /* union of this device's kernel intervals */
  double kernel_sum_ns;
  double gpu_idle_ns;           /* gaps between its kernels within their span */
  double median_kernel_ns;
  double short_kernel_ns;
  uint64_t launches;            /* its kernel executions in the region */
  double kernel_share;          /* kernel_ns / the region's wall_ns */
  pc_diagnosis diag;            /* step 1 for this device (pc_checklist_region) */
} pc_region_device;

typedef struct pc_region {
  char *name;
  char *parent;                 /* NULL at top level */
  int depth;
  double wall_ns;
  double kernel_ns;             /* union of kernel intervals */
  double kernel_sum_ns;         /* plain sum (can exceed wall) */
  double memcpy_ns;
  double memset_ns;
  double gpu_idle_ns;           /* gaps between kernels within [first start, last end] */
  double kernel_span_ns;        /* last kernel end - first kernel start */
  double median_kernel_ns;
  double short_kernel_ns;       /* summed durations of kernels shorter than
                                   the launch_overhead_max_median_kernel_ns
                                   threshold: time that is mostly a kernel's
                                   fixed start/finish cost (seed 003) */
  double profiling_ns;          /* host time spent in perfcheck's counter replay */
  uint64_t launches;
  uint64_t dropped_records;
  double kernel_share;          /* kernel_ns / wall_ns */
  /* Communication (NCCL) kernels against the others, from the activity
   * records: summed durations, and the first's share of both. */
  double communication_ns;
  double compute_ns;
  double communication_share;   /* communication_ns / (communication_ns + compute_ns) */
  int rank;                     /* the rank of the process it ran in; -1 unknown */
  size_t ndevices;
  pc_region_device *devices;    /* step 1 per device, by ordinal */
  pc_diagnosis diag;            /* step-1 verdict (step 0, cause NONE when it passes) */
} pc_region;

/* A deep copy of src into dst (dst overwritten; pc_region_free frees it).
 * Returns 0, -1 on OOM (dst then holds what was copied, for pc_region_free). */
int pc_region_copy(pc_region *dst, const pc_region *src);

/* The public opaque perfcheck_report is this struct. */
typedef struct perfcheck_report {
  pc_device device;
  char source[32];              /* "in-process", "ncu-export" or "nsys-export" */
  char metric_set[64];          /* "default", "sol", "full", "ncu-export", "none" */
  int passes;                   /* CUPTI passes per profiled launch, 0 if none */
  pc_region *regions;
  size_t nregions, cap_regions;
  pc_kernel *kernels;
  size_t nkernels, cap_kernels;
  char **warnings;
  size_t nwarnings, cap_warnings;
  int step1_assessed;           /* 0 offline: step 1 is not_assessed */
  /* Launch rows of the input that no entry holds (damaged rows, rows
   * without a kernel name): the kernels' time shares and ranks would be
   * over the rows kept, so they are null (pc_checklist_report).  Summed by
   * merge; JSON "rows_left_out". */
  size_t rows_left_out;
  /* The process's place in a parallel job (RANK/WORLD_SIZE, Open MPI's,
   * PMI's; LOCAL_RANK), read by the session; -1 unknown. */
  int rank, world_size, local_rank;
  /* Where an in-process report's numbers came from (JSON tool.cupti and
   * tool.demangler; null offline). */
  int cupti_known;              /* 0: tool.cupti is null */
  char cupti_path[512];         /* the libcupti loaded, "" unknown */
  unsigned cupti_version;       /* cuptiGetVersion's API version (130001 for CUDA 13.0 Update 1) */
  int cupti_preloaded;          /* 1: it was in the process before perfcheck; -1 unknown */
  char demangler[96];           /* where __cxa_demangle came from (pc_demangler()), "" none */
} pc_report;

pc_report *pc_report_new(void);
void pc_report_free(pc_report *r);
/* Append a zeroed kernel/region (metrics NaN, attributes unknown); NULL on OOM. */
pc_kernel *pc_report_add_kernel(pc_report *r);
pc_region *pc_report_add_region(pc_report *r);
/* printf-style; also printed to stderr "perfcheck: warning: ..." when
 * verbose (pc_verbose: PERFCHECK_VERBOSE=1) and not quiet. */
int pc_verbose(void); /* PERFCHECK_VERBOSE=1: the library may write warnings to stderr */
int pc_report_warn(pc_report *r, int quiet, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void pc_kernel_init(pc_kernel *k);
void pc_kernel_free(pc_kernel *k);
/* Where k's counters came from, when more than one launch could feed them,
 * as the report writers print it under the verdict:
 * "rotation, 3 of 5 groups, 4 profiled launches; the launches that measured
 * a metric twice or more differ by up to 19.0% of its mean (counter_spread
 * 0.190)".  Returns 1 with the sentence in buf, 0 when there is nothing to
 * say (kernel replay without a spread, a graph entry: its own section). */
int pc_kernel_counters_note(const pc_kernel *k, char *buf, size_t len); /* one-channel-ok: report text, its result */
/* A deep copy of src into dst (dst overwritten; pc_kernel_free frees it).
 * Returns 0, -1 on OOM (dst then holds what was copied, for pc_kernel_free). */
int pc_kernel_copy(pc_kernel *dst, const pc_kernel *src);
/* The same without the findings (findings[] left untouched, nfindings 0):
 * the verdict and bound only, for a report that is diagnosed again (merge). */
int pc_kernel_copy_head(pc_kernel *dst, const pc_kernel *src);
void pc_region_init(pc_region *g);
void pc_region_free(pc_region *g);

/* ---- Kernel names (pc_names.c) ---- */

/* "void scaleAdd<4>(float, const float *, ...)" -> "scaleAdd<4>";
 * "mysteryA(const float *, float *, unsigned long)" -> "mysteryA".
 * Writes at most outlen-1 chars; returns out. */
char *pc_kernel_short_name(const char *demangled, char *out, size_t outlen);
/* The demangled form of an Itanium-mangled name ("_Z..."), malloc'd; NULL
 * when the name is not mangled, cannot be demangled, or no demangler is
 * found (pc_demangler() is "" then). */
/* The _Z part of an nvcc __nv_static_..._ symbol (a file-static kernel), else mangled itself. */
const char *pc_symbol_core(const char *mangled);
char *pc_demangle(const char *mangled);
/* Where the demangler came from ("__cxa_demangle of the process",
 * "libstdc++.so.6, loaded by perfcheck", ...), "" when there is none. */
const char *pc_demangler(void);
/* The display name of a demangled kernel name (malloc'd, at most `max`
 * characters, max >= 16): the short name with every namespace and class
 * qualifier dropped, "> >" closed up, and, when still longer than max, the
 * trailing top-level template arguments replaced by "..." (then deeper
 * template arguments by "<...>"):
 *   "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>,
 *    std::array<char*, 2ul> >(int, ...)"  -> "vectorized_elementwise_kernel<4, CUDAFunctor_add<float>, ...>"
 * NULL on OOM. */
char *pc_kernel_display_name(const char *demangled, size_t max);
#define PC_DISPLAY_NAME_MAX 64

/* Sets a kernel's names from what is known: the mangled symbol (may be NULL)
 * and the demangled name (may be NULL: then pc_demangle(mangled), else the
 * mangled name).  Fills name, mangled, demangled and display_name with
 * copies (replacing earlier ones).  Returns 0, -1 on OOM. */
int pc_kernel_set_names(pc_kernel *k, const char *mangled, const char *demangled);

/* Communication kernels (NCCL's: ncclDevKernel_*, ncclKernel_*): never
 * replayed for counters, not judged by steps 2 to 5, and counted apart in
 * a region's step 1.  pc_name_is_communication takes a short or display
 * name ("ncclDevKernel_AllReduce_Sum_f32_RING_LL", namespaces allowed);
 * pc_symbol_is_communication a mangled symbol (or an extern "C" name). */
int pc_name_is_communication(const char *name);
int pc_symbol_is_communication(const char *mangled);

/* ---- One vocabulary (pc_values.c) ----
 * A number of a kernel entry by its JSON key, at an offset into a struct.
 * The tables below are what the JSON writer writes, what the JSON reader
 * reads back and what pc_kernel_value answers (perfcheck_report_kernel_value,
 * the expectations of `perfcheck check`, Python's report.expect), so a
 * field added to one of them is all of these at once:
 *   pc_derived_fields   every member of pc_derived, the JSON `derived`
 *                       block (a static assertion keeps the two the same
 *                       size: a new member without its name does not build)
 *   pc_kernel_fields    the plain numbers at the top of a kernel entry
 *                       (offsets into pc_kernel): total_ns, kernel_time_share
 * The JSON `metrics` block is the metric table (pc_metrics.c) plus the
 * metrics a user added by name (pc_kernel.extra_names): both are
 * quantities too, and so are `attributes` (pc_json_attributes) and the
 * busiest units' percentages (busiest_pipe.pct, busiest_memory.pct). */
typedef struct pc_field {
  const char *key;
  size_t offset;
} pc_field;
extern const pc_field pc_derived_fields[];
extern const size_t pc_nderived_fields;
extern const pc_field pc_kernel_fields[];
extern const size_t pc_nkernel_fields;

/* The JSON keys of the pc_attributes fields that are plain numbers, with
 * their offsets (pc_values.c): the `attributes` block the JSON writer
 * writes and the readers read back (read/pc_json.h has pc_device's). */
typedef pc_field pc_json_field;
extern const pc_json_field pc_json_attributes[];     /* double members of pc_attributes */
extern const size_t pc_json_nattributes;

/* Value lookup for the public API and expectations: ncu names, aliases,
 * launch__* names, derived names, JSON paths ("derived.bytes_per_sector_ld",
 * "attributes.blocks_per_sm", "duration_ns.median", "busiest_pipe.pct").
 * Returns PERFCHECK_OK, _NOT_FOUND or _NOT_MEASURED (and *out NaN). */
perfcheck_status pc_kernel_value(const pc_kernel *k, const char *name, double *out);
/* Nonzero when `name` is a quantity of every report: a metric of the
 * table (or its alias), a name pc_kernel_value_names lists, one of their
 * JSON paths, or step, cause, bound.  (A metric a user added by name is a
 * quantity only of the reports that have it.) */
int pc_quantity_known(const char *name);
/* The (at most) `max` known quantities nearest to `name` by edit distance
 * among those close enough to be a typo of it; returns how many. */
size_t pc_quantity_nearest(const char *name, const char **out, size_t max);

/* ==== Spans (what timelines are made of: report/pc_timeline.h) =========== */

/* One interval of GPU work on CUPTI's clock (ns), with two tags its producer
 * assigns (the session: group = signature key, tag = region id). */
typedef struct pc_span {
  uint64_t start, end;          /* end >= start */
  uint32_t group, tag;
} pc_span;


#endif /* PC_CORE_H */
