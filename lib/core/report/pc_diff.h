/*
 * pc_diff.h: comparing two reports (pc_diff.c) into the comparison model
 * (model/pc_diff_model.h), which write/pc_write_diff.h writes as text, JSON
 * and HTML.  The public API is perfcheck_diff_* in perfcheck.h.
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

#include "model/pc_diff_model.h"

/* Compares `a` (before) with `b` (after) into a new diff (the caller frees it
 * with pc_diff_free).  Names may be NULL ("before", "after").  Returns
 * PERFCHECK_OK or PERFCHECK_ERROR_OUT_OF_MEMORY (*out NULL). */
perfcheck_status pc_diff_reports(const pc_report *a, const pc_report *b, const char *name_a, const char *name_b,
                                 pc_diff **out);
void pc_diff_free(pc_diff *d);

#endif /* PC_DIFF_H */
