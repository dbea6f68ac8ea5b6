/*
 * pc_region_build.h: a region's snapshot (model/pc_snapshot.h) into report
 * entries (pc_region_build.c).
 */
#ifndef PC_REGION_BUILD_H
#define PC_REGION_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "model/pc_snapshot.h"

/* What the builder remembers from one region to the next of a session. */
typedef struct pc_build_state {
  int quiet;                    /* no warning lines on stderr (they stay in the report) */
  int device_ordinal;           /* whose facts report->device holds; -1 none yet */
  int rank;                     /* the process's rank (regions[].rank); -1 unknown */
  int multi_device_warned;
  int earlier_run_noted;        /* the note on counters from an earlier run is in the report */
  int other_region_noted;       /* the note on counters from another region's entry is in the report */
  int dram_replay_warned;
  int rotation_warned;          /* the note on rotations left short is in the report */
  int graph_rotation_warned;    /* the same for graph entries (never finished by replay) */
  int graph_mixed_warned;       /* the note on graph entries that are not judged is in the report */
  size_t rejected_warned;       /* rejected metrics said so far */
} pc_build_state;

void pc_build_state_init(pc_build_state *st, int quiet);

/* Adds the snapshot's region and one kernel entry per signature launched
 * directly in it to `r`, with their checklist verdicts, and the warnings the
 * snapshot calls for.  Step 1 in counters mode reads the wall clock and the
 * gaps with perfcheck's profiling cut out (each profiled launch's host
 * interval, ENTER to EXIT, shrinks to its kernel's counted duration), so
 * that a program gets the same step-1 verdict in timing and counters mode.
 * The report's device is the first region's device.  Returns PERFCHECK_OK
 * or PERFCHECK_ERROR_OUT_OF_MEMORY (then a warning says what was dropped). */
perfcheck_status pc_region_build(const pc_snapshot *snap, pc_report *r, pc_build_state *st);

/* The clock with perfcheck's profiling cut out (step 1 of pc_region_build):
 * cuts are [start, end) intervals of the region's clock.  pc_cuts_normalize
 * sorts them, merges overlaps, drops empty ones and fills `before` (the cut
 * time ahead of each); it returns the new count.  pc_cut_map maps a time
 * onto the cut clock: a time inside a cut maps to the cut's start. */
typedef struct pc_cut {
  uint64_t start, end;
  uint64_t before;
} pc_cut;
size_t pc_cuts_normalize(pc_cut *cuts, size_t n);
uint64_t pc_cut_map(const pc_cut *cuts, size_t n, uint64_t t);

#endif /* PC_REGION_BUILD_H */
