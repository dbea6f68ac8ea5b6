/*
 * pc_regions.h: the one region stack of a process (pc_regions.c).
 *
 * Every open region lives here, however it was opened: by
 * perfcheck_session_begin, by the injection library's whole-program region,
 * or by an NVTX range pushed inside a CUPTI callback on any thread.  An entry
 * holds what the region's end needs: its name, its parent (the region that
 * was current when it was pushed), its depth, how it was opened, its begin
 * marks and, once ended in a callback, its end marks.  The launch capture
 * (lib/gpu/pc_capture.c) owns the stack under its gpu lock and tags every
 * launch with the current region; the session ends regions by id.
 *
 * A region is "closing" once its end has begun (perfcheck_session_end, or
 * an NVTX pop): launches go to its parent from then on, but its kernel
 * records are still accepted until it is retired (its end has collected
 * them).  Ids are never reused in a process, so a late record cannot land
 * in a new region.  Pure: no lock, no CUDA.
 */
#ifndef PC_REGIONS_H
#define PC_REGIONS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* What a region's end subtracts from its begin: a timestamp (CUPTI's clock,
 * 0 if unknown) and the capture's running counts. */
typedef struct pc_region_marks {
  uint64_t ts;
  uint64_t launches, failed, dropped, zero_ts;
} pc_region_marks;

enum {
  PC_RG_PROGRAM = 1u,           /* the injection library's whole-program region */
  PC_RG_RECORDED = 2u,          /* an NVTX range, recorded in a callback */
  PC_RG_NVTX = 4u               /* the session pushed an NVTX range for it on nvtx_thread */
};

typedef struct pc_open_region {
  uint32_t id;
  uint32_t key;                 /* the id of the first region pushed with this name in the session: the
                                   selection's budget (per_signature launches of a signature) is per key,
                                   so a loop of regions of one name profiles each signature once */
  uint32_t parent;              /* the region current at its push; 0 none */
  int depth;                    /* the parent's depth + 1; 0 at top level */
  unsigned flags;               /* PC_RG_* */
  pthread_t nvtx_thread;        /* with PC_RG_NVTX */
  char *name;
  int closing;
  int has_end;                  /* end holds the marks of an end made in a callback */
  pc_region_marks begin, end;
} pc_open_region;

typedef struct pc_regions {
  pc_open_region *v;            /* in push order */
  size_t n, cap;
  uint32_t last_id;             /* never reset: ids are unique in the process */
  char **names;                 /* every name pushed since the last clear, and its key */
  uint32_t *keys;
  size_t nnames, capnames;
} pc_regions;

/* Pushes a region named `name` (copied) whose parent is the current region.
 * Returns its id, 0 on out of memory. */
uint32_t pc_regions_push(pc_regions *t, const char *name, unsigned flags, const pc_region_marks *begin);
/* The region launches are tagged with: the last pushed that is not closing;
 * 0 when none. */
uint32_t pc_regions_current(const pc_regions *t);
/* Starts ending region id: closing from now on; `end` (may be NULL) records
 * an end made now, in a callback.  Returns 0, -1 for an unknown id. */
int pc_regions_close(pc_regions *t, uint32_t id, const pc_region_marks *end);
/* The entry of region id (open or closing), or NULL. */
const pc_open_region *pc_regions_find(const pc_regions *t, uint32_t id);
/* The region perfcheck_session_end ends: the last pushed that is not
 * closing and was not recorded in a callback; 0 when none. */
uint32_t pc_regions_innermost(const pc_regions *t);
/* The region to end next when every region ends (exit): the first pushed
 * that no other region names as its parent, so children end before their
 * parents and siblings in push order; 0 when the stack is empty. */
uint32_t pc_regions_next_to_end(const pc_regions *t);
/* The begin time of the oldest region other than `except`; UINT64_MAX none. */
uint64_t pc_regions_oldest_begin(const pc_regions *t, uint32_t except);
/* Removes region id (its end collected everything).  Its children, if any
 * are left, take its parent as theirs. */
void pc_regions_retire(pc_regions *t, uint32_t id);
/* The key of region id (pc_open_region.key), 0 for an unknown id. */
uint32_t pc_regions_key(const pc_regions *t, uint32_t id);
/* Frees every entry and the names' keys; last_id is kept (ids stay unique). */
void pc_regions_clear(pc_regions *t);

#endif /* PC_REGIONS_H */
