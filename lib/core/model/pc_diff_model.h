/*
 * pc_diff_model.h: the comparison of two reports, as report/pc_diff.c builds
 * it (report/pc_diff.h says how entries pair and what is judged) and
 * write/pc_write_diff.c writes it.  The public opaque perfcheck_diff is
 * pc_diff.
 */
#ifndef PC_DIFF_MODEL_H
#define PC_DIFF_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "model/pc_core.h"

typedef enum pc_change {
  PC_CHANGE_SAME = 0,       /* within tolerance */
  PC_CHANGE_BETTER = 1,
  PC_CHANGE_WORSE = 2,
  PC_CHANGE_MOVED = 3,      /* beyond tolerance, neither better nor worse */
  PC_CHANGE_NOT_COMPARABLE = 4 /* not measured (or not assessed) on a side */
} pc_change;


typedef enum pc_presence {
  PC_PAIRED = 0,
  PC_ADDED = 1,   /* only in the after report */
  PC_REMOVED = 2  /* only in the before report */
} pc_presence;


typedef struct pc_diff_metric {
  char *name;          /* as ncu spells it, or a derived name */
  double before, after;
  double tolerance_pct;/* the band between two runs (pc_expect_rerun_band_pct) */
  pc_change change;    /* MOVED, WORSE, BETTER, or NOT_COMPARABLE (one side unmeasured) */
} pc_diff_metric;

/* What the diff keeps of one side of a pair (a copy: the reports may go). */
typedef struct pc_diff_side {
  uint64_t launches;
  double dur_min, dur_median, dur_max;
  double total, share;   /* total_ns and kernel_time_share */
  double ai, gflops;
  pc_unit_load busiest_pipe, busiest_memory; /* names and metrics are static text */
  pc_finding verdict;
  perfcheck_bound bound;
} pc_diff_side;

typedef struct pc_diff_kernel {
  char *name;            /* display name */
  char *label;           /* the report's label for the entry (after's, else before's) */
  char *region;          /* NULL when none */
  unsigned grid[3], block[3];
  double dynamic_smem;
  pc_presence presence;
  pc_diff_side a, b;     /* before, after (the absent side is all NaN) */
  double time_change_pct;/* 100 (b - a) / a of the medians; NaN when one is unmeasured */
  double time_band_pct;  /* the band the change is judged against */
  pc_change time;
  pc_change verdict;
  pc_change busiest_pipe, busiest_memory; /* MOVED when another unit is now the busiest */
  pc_diff_metric *metrics; /* beyond tolerance or measured on one side only */
  size_t nmetrics;
  size_t moved;          /* metrics beyond tolerance (any direction) */
  pc_change overall;     /* WORSE if anything is worse; else BETTER, MOVED or SAME */
} pc_diff_kernel;

typedef struct pc_diff_region {
  char *name;
  char *parent;
  int depth;
  pc_presence presence;
  double wall_a, wall_b, kernel_a, kernel_b, copies_a, copies_b, share_a, share_b;
  uint64_t launches_a, launches_b;
  double time_change_pct;
  pc_change time;
  int replay_dominated; /* time not compared: counter replay cut out was more than the band of the wall */
  pc_finding verdict_a, verdict_b;
  pc_change verdict;
  pc_change overall;
} pc_diff_region;

/* The public opaque perfcheck_diff is this struct. */
typedef struct perfcheck_diff {
  char *name_a, *name_b; /* what the two reports are called ("before", a file name) */
  pc_device device_a, device_b;
  char source_a[32], source_b[32];
  pc_diff_kernel *kernels;
  size_t nkernels;
  pc_diff_region *regions;
  size_t nregions;
  char **notes;          /* what makes the comparison weaker (other device, ...) */
  size_t nnotes;
  double time_band_pct;  /* the expectations' band for durations */
  size_t worse;          /* kernel entries and regions that got worse */
  size_t count[5];       /* kernel entries by overall change (pc_change) */
  size_t added, removed; /* kernel entries */
} pc_diff;

#endif /* PC_DIFF_MODEL_H */
