/*
 * pc_rangewin.h: the launches of a range-profiler session that spans
 * launches (rotation's cold group, lib/gpu/pc_rangeprof.c), in launch
 * order: under auto range each kernel launched on the session's context is
 * one range, so slot i is range i.  Pure bookkeeping, no CUDA.
 */
#ifndef PC_RANGEWIN_H
#define PC_RANGEWIN_H

#include <stddef.h>
#include <stdint.h>

enum {
  PC_RW_DROP = 0, /* a range to drop: a launch not profiled, perfcheck's flush */
  PC_RW_KEEP = 1, /* a profiled launch: its values are kept */
  PC_RW_COLD = 2  /* a profiled launch after perfcheck's L2 flush */
};

typedef struct pc_rangewin {
  size_t n, cap;
  uint32_t *corr;      /* the launch's correlation id (0: perfcheck's own) */
  unsigned char *keep; /* PC_RW_* */
} pc_rangewin;

/* Room for cap slots; 0, or -1 out of memory.  A zeroed struct is empty. */
int pc_rangewin_init(pc_rangewin *w, size_t cap);
void pc_rangewin_free(pc_rangewin *w);
/* Whether k more slots fit. */
int pc_rangewin_room(const pc_rangewin *w, size_t k);
/* Appends a slot; 0, or -1 when full (nothing appended). */
int pc_rangewin_add(pc_rangewin *w, uint32_t corr, unsigned char keep);
/* A launch that failed runs no kernel and makes no range: its slot goes,
 * when it is the last one.  1 removed, 0 not. */
int pc_rangewin_pop(pc_rangewin *w, uint32_t corr);
/* Whether the ranges decoded can be read as the slots in order: as many
 * ranges as slots, none dropped, every pass submitted. */
int pc_rangewin_matches(const pc_rangewin *w, size_t ranges, size_t dropped, int all_passes);
void pc_rangewin_clear(pc_rangewin *w);

#endif /* PC_RANGEWIN_H */
