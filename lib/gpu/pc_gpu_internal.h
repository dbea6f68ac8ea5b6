/*
 * pc_gpu_internal.h: what pc_gpu.c shares with pc_harvest.c.  Private to
 * lib/gpu.
 */
#ifndef PC_GPU_INTERNAL_H
#define PC_GPU_INTERNAL_H

#include <stdint.h>

/* cuptiGetTimestamp, 0 when unavailable. */
uint64_t pc_gpu_timestamp(void);

#endif /* PC_GPU_INTERNAL_H */
