/*
 * pc_gpu_internal.h: what pc_gpu.c (lifecycle) shares with pc_harvest.c (a
 * region's end).  Private to lib/gpu.
 */
#ifndef PC_GPU_INTERNAL_H
#define PC_GPU_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "pc_rangeprof.h"

/* The counter layer, or NULL (timing mode, refused at start, stopped). */
pc_rp *pc_gpu_rp(void);
/* Copies why counters are off although asked for ("" when on or not asked)
 * into out; returns nonzero when counters were asked for (not timing mode). */
int pc_gpu_counters_note(char *out, size_t len);
/* cuptiGetTimestamp, 0 when unavailable. */
uint64_t pc_gpu_timestamp(void);

#endif /* PC_GPU_INTERNAL_H */
