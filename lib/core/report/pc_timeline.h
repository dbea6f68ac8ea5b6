/*
 * pc_timeline.h: timelines (pc_timeline.c): the busy time, gaps and
 * durations of a set of spans (pc_span, model/pc_core.h) over any number of
 * streams.
 */
#ifndef PC_TIMELINE_H
#define PC_TIMELINE_H

#include <stddef.h>
#include <stdint.h>
#include "model/pc_core.h"

/* ==== Timelines (pc_timeline.c) ========================================== */

typedef enum pc_span_order {
  PC_SPAN_BY_START = 0,         /* start, then end */
  PC_SPAN_BY_DURATION,          /* end - start */
  PC_SPAN_BY_GROUP_DURATION     /* group, then end - start */
} pc_span_order;

/* Sorts in place; allocates nothing (a region of a million kernels must not
 * need a second copy of its spans). */
void pc_span_sort(pc_span *v, size_t n, pc_span_order order);
/* Moves the spans whose tag is `tag` to the end of v (order not kept) and
 * returns how many there are: they are v[n - count .. n-1]. */
size_t pc_span_partition_tag(pc_span *v, size_t n, uint32_t tag);

typedef struct pc_timeline {
  size_t count;
  double busy_ns;               /* length of the union of the intervals */
  double sum_ns;                /* plain sum of durations */
  double span_ns;               /* last end - first start; NaN when count 0 */
  double idle_ns;               /* span - busy: the gaps; NaN when count 0 */
  double median_ns, min_ns, max_ns; /* of the durations; NaN when count 0 */
} pc_timeline;

/* Fills *out from n spans over any number of streams.  Reorders v.  With
 * n == 0, busy and sum are 0 (nothing ran) and the rest NaN. */
void pc_timeline_compute(pc_span *v, size_t n, pc_timeline *out);
/* The sum over spans of the part of each that lies inside [begin, end]
 * (a transfer that straddles a region boundary counts only inside). */
double pc_timeline_clipped_sum(const pc_span *v, size_t n, uint64_t begin, uint64_t end);

#endif /* PC_TIMELINE_H */
