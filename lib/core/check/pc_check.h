/*
 * pc_check.h: what check/ exports: the occupancy model (pc_occupancy.c) and
 * the checklist (pc_checklist.c): its thresholds, the units step 2 compares,
 * the derived values, the five steps and what the writers draw the walk
 * with.  The model it fills (pc_kernel, pc_region, pc_diagnosis, ...) is
 * model/pc_core.h's.
 */
#ifndef PC_CHECK_H
#define PC_CHECK_H

#include <stddef.h>
#include "model/pc_core.h"

/* ==== Occupancy model (pc_occupancy.c) =================================== */

const char *pc_limiter_name(pc_limiter l); /* "warps", "blocks", "registers", "shared_memory", "none" */

typedef struct pc_occupancy_input {
  int block_threads;            /* threads per block */
  int registers_per_thread;
  int static_smem;              /* bytes */
  int dynamic_smem;             /* bytes */
} pc_occupancy_input;

typedef struct pc_occupancy {
  int limit_warps;              /* blocks per SM allowed by each resource;
                                   INT_MAX: the kernel uses none of it */
  int limit_blocks;
  int limit_registers;
  int limit_shared_mem;
  int blocks_per_sm;            /* min of the four */
  pc_limiter binding;           /* the one that sets the min (first in the
                                   order blocks, warps, registers, shared
                                   memory when several tie; see
                                   pc_occupancy.c) */
  int warps_per_sm;
  double theoretical_pct;
} pc_occupancy;

/* Returns 0 on success, -1 when the device limits needed are unknown or the
 * input is impossible (block larger than the SM, etc.; all limits 0 then). */
int pc_occupancy_compute(const pc_device *d, const pc_occupancy_input *in, pc_occupancy *out);

/* Launch attributes of a configuration (pc_occupancy.c): registers, static
 * and dynamic shared memory, local bytes and max threads per block as given
 * (max_threads <= 0: unknown), the model's four limits and the binding one,
 * blocks per SM (the driver's answer driver_blocks when >= 0, else the
 * model's; model_blocks_per_sm keeps the model's when the two differ), warps
 * per SM, theoretical occupancy and waves per SM.  d may be NULL (then only
 * the given values are filled). */
void pc_attributes_compute(const pc_device *d, int regs, int static_smem, int local, int max_threads,
                           int driver_blocks, const unsigned grid[3], const unsigned block[3], unsigned dyn,
                           pc_attributes *a);

/* The units step 2 compares (pc_checklist.c): each a name and the metric that
 * measures it.  kind 0: pipe, 1: memory level, 2: an aggregate (ncu's SOL
 * rows, issue slots, the FP32 flop rate, DRAM bytes per second). */
typedef struct pc_unit_def {
  const char *name;
  int kind;
  const char *metric;
  double scale;                 /* the metric's value x scale = its % of peak (100 for
                                   smsp__issue_active.avg.per_cycle_active, else 1) */
} pc_unit_def;
const pc_unit_def *pc_units(size_t *count);
/* The unit a metric (as the table spells it) measures, for the JSON reader;
 * NULL if unknown. */
const pc_unit_def *pc_unit_lookup(const char *metric);

/* ==== Derived values and the checklist (pc_checklist.c) ================== */

/* Every threshold of the walk, in one table (the README reproduces it). */
/* How a threshold is nudged by the borderline test and by
 * scripts/threshold_sensitivity.py: by 5 points (a percentage), by 10% of
 * its value (a ratio, share or count), or not at all (a definition, such as
 * "any local sector"). */
typedef enum pc_nudge { PC_NUDGE_NONE = 0, PC_NUDGE_POINTS = 1, PC_NUDGE_RELATIVE = 2 } pc_nudge;

typedef struct pc_threshold {
  const char *key;              /* "spr_uncoalesced" */
  double value;                 /* the built-in value */
  const char *meaning;          /* one line for the README */
  const char *source;           /* "seed 000", "seed 004 Decision 5", ... */
  pc_nudge nudge;
} pc_threshold;

/* The static spelling of a stall reason word ("long_scoreboard"), with its
 * ncu metric in *metric (may be NULL); NULL for "" or an unknown word. */
const char *pc_stall_reason_canonical(const char *word, const char **metric);

const pc_threshold *pc_thresholds(size_t *count);
/* The value in force: the built-in one, or PERFCHECK_THRESHOLDS's
 * ("key=value,key=value": for sensitivity studies; read once, through
 * secure_getenv).  NaN if unknown key. */
double pc_threshold_value(const char *key);

/* Fills k->derived, busiest_pipe and busiest_memory from k->metric, k->attr
 * and the device. */
void pc_derive(pc_kernel *k, const pc_device *d);
/* Each kernel's share of the summed time (total_ns) of the n entries, which
 * are one region's (or one export's): k->time_share (NaN where unknown) and
 * k->time_share_from_timeline = from_timeline. */
void pc_kernel_time_shares(pc_kernel *k, size_t n, int from_timeline);
/* Step 1 for a region: fills g->diag. */
void pc_checklist_region(pc_region *g);
/* Steps 2-5 (and step 1 from the kernel's region when `region` is non-NULL
 * and was assessed): fills k->diag. Calls pc_derive first. */
void pc_checklist_kernel(pc_kernel *k, const pc_device *d, const pc_region *region);
/* Diagnoses every kernel and region of a report. */
void pc_checklist_report(pc_report *r);
/* The region a kernel's step 1 comes from, as pc_checklist_report takes it:
 * the first ended region of its name when the report's step 1 is assessed;
 * NULL otherwise. */
const pc_region *pc_report_kernel_region(const pc_report *r, const pc_kernel *k);

/* What the writers draw the walk with: the rules' own inputs, from the
 * rules' own code.
 *
 * The unit that sets a side's load (derived.memory_pct for memory_side 1,
 * compute_pct for 0): the busiest memory level or pipe, or an aggregate
 * (ncu's SOL rows, issue slots, the FP32 or DRAM rate); name NULL when none
 * was measured. */
pc_unit_load pc_checklist_ceiling(const pc_kernel *k, const pc_device *d, int memory_side);
/* Step 5's near-roof rule: 1 when the larger of the two sides' loads is at
 * at_roof_pct or more, or the tensor pipe at tensor_dominated_pct or more
 * (then low occupancy is a finding, not the verdict).  *top (may be
 * NULL) gets that unit. */
int pc_checklist_near_roof(const pc_kernel *k, const pc_device *d, pc_unit_load *top);
/* Step 4's line: threads per instruction below this is divergent_warps
 * (threads_per_instruction_min, or lane_use_min of the lanes the launch
 * allows when that is lower). */
double pc_checklist_divergence_threshold(const pc_kernel *k);

/* How one step of the walk ended for a kernel. */
typedef enum pc_step_state {
  PC_STEP_PASSES = 0,       /* nothing caught, every input measured (notes may remain) */
  PC_STEP_CATCHES = 1,      /* a rule of the step caught the kernel (the verdict or a finding) */
  PC_STEP_NOT_ASSESSED = 2, /* an input was not measured (and nothing caught) */
  PC_STEP_SKIPPED = 3       /* step 3 or 4 not run: step 2 sent the walk to the other side */
} pc_step_state;

typedef struct pc_step_view {
  pc_step_state state;
  int has_hit, has_note, has_missing;
  pc_finding hit;               /* the step's first catch */
  pc_finding note;              /* its first finding that is never a verdict */
  pc_finding missing;           /* its first input not measured */
} pc_step_view;

/* Runs the walk of pc_checklist_kernel again, without changing anything, on
 * a kernel whose derived values and diag.bound are filled (a diagnosed
 * kernel, or one read from a report), and says how each step 1-5 ended:
 * steps[1..5] (steps[0] is unused).  region as for pc_checklist_kernel. */
void pc_checklist_steps(const pc_kernel *k, const pc_device *d, const pc_region *region, pc_step_view steps[6]);

#endif /* PC_CHECK_H */
