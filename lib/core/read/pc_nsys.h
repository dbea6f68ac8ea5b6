/*
 * pc_nsys.h: nsys stats CSV (cuda_gpu_kern_sum, cuda_gpu_mem_time_sum) into
 * a report that answers step 1 of a run (pc_nsys_csv.c says what is read).
 *
 *   pc_nsys *x = pc_nsys_new("run", quiet);
 *   pc_nsys_read(x, f, "kern.csv", &err);          once per input
 *   pc_nsys_finish(x, wall_ns, &report, &err);      the report, diagnosed
 *   pc_nsys_free(x);
 */
#ifndef PC_NSYS_H
#define PC_NSYS_H

#include <stdio.h>

#include "model/pc_core.h"

typedef struct pc_nsys pc_nsys;

/* A reader whose report has one region, `region` (NULL: "run").  NULL when
 * out of memory. */
pc_nsys *pc_nsys_new(const char *region, int quiet);

/* Reads one stream (one or both tables, with nsys's own lines around them).
 * Returns PERFCHECK_OK; PERFCHECK_ERROR_PARSE (no table of either kind: err
 * names the input and the header expected); PERFCHECK_ERROR_IO;
 * PERFCHECK_ERROR_OUT_OF_MEMORY. */
perfcheck_status pc_nsys_read(pc_nsys *x, FILE *f, const char *name, pc_err *err);

/* The report, with wall_ns (<= 0 or NaN: unknown) as the region's wall
 * clock, diagnosed; *out is the caller's.  PERFCHECK_ERROR_PARSE when no
 * input held a kernel table. */
perfcheck_status pc_nsys_finish(pc_nsys *x, double wall_ns, pc_report **out, pc_err *err);

void pc_nsys_free(pc_nsys *x);

#endif /* PC_NSYS_H */
