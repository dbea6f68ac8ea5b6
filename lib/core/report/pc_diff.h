/*
 * pc_diff.h: comparing two reports (pc_diff.c) and writing the comparison
 * (pc_write_diff.c: text, JSON, HTML).  The public API is perfcheck_diff_*
 * in perfcheck.h; this header exposes the model to the writers and tests.
 *
 * Kernel entries pair by display name and launch signature (grid, block,
 * dynamic shared memory): with the same full name first (two instances of a
 * template can share a display name), in the same region first, then in
 * any region.
 * For each pair the diff holds:
 *   - the time change of the median duration, judged against the
 *     expectations' band for durations (pc_expect_default_band_pct) and the
 *     launches' spread: slower only when the after median exceeds the before
 *     median by more than the band AND the after run's fastest launch is
 *     slower than the before median (faster: the same with the roles
 *     swapped), so one cold launch cannot make a kernel slower or faster;
 *   - the verdict change (an earlier checklist step catching it, a new
 *     catch, or a different cause at the same step is worse);
 *   - every metric and derived value that moved beyond the expectations'
 *     band for two runs (pc_expect_rerun_band_pct); the checklist's numbers
 *     (sectors per request, bytes per sector, threads per instruction,
 *     occupancy, local sectors, bank conflict and atomic shares) have a
 *     direction, and moving the wrong way is worse; total time and share
 *     are listed as moved;
 *   - the busiest pipe and memory level, when another one is now the
 *     busiest (moved);
 *   - kernels that appear or disappear (listed, not worse by themselves: a
 *     region's wall clock says whether the new work costs time).
 * Regions pair by name, parent and depth; a wall clock slower beyond the
 * duration band, or a worse step-1 verdict, is worse.
 */
#ifndef PC_DIFF_H
#define PC_DIFF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/pc_core.h"

typedef enum pc_change {
  PC_CHANGE_SAME = 0,       /* within tolerance */
  PC_CHANGE_BETTER = 1,
  PC_CHANGE_WORSE = 2,
  PC_CHANGE_MOVED = 3,      /* beyond tolerance, neither better nor worse */
  PC_CHANGE_NOT_COMPARABLE = 4 /* not measured (or not assessed) on a side */
} pc_change;

/* "same", "better", "worse", "moved", "not_comparable". */
const char *pc_change_name(pc_change c);

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

/* Compares `a` (before) with `b` (after) into a new diff (the caller frees it
 * with pc_diff_free).  Names may be NULL ("before", "after").  Returns
 * PERFCHECK_OK or PERFCHECK_ERROR_OUT_OF_MEMORY (*out NULL). */
perfcheck_status pc_diff_reports(const pc_report *a, const pc_report *b, const char *name_a, const char *name_b,
                                 pc_diff **out);
void pc_diff_free(pc_diff *d);

/* pc_write_diff.c */
perfcheck_status pc_diff_write_text(const pc_diff *d, FILE *f, pc_err *err);
perfcheck_status pc_diff_write_json(const pc_diff *d, FILE *f, pc_err *err);
perfcheck_status pc_diff_write_html(const pc_diff *d, FILE *f, pc_err *err);

#endif /* PC_DIFF_H */
