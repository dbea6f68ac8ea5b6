/*
 * pc_activity.h: kernel, memcpy and memset timing through the CUPTI Activity
 * API, decoded into compact spans (pc_span) that the session reads at region
 * end.
 *
 * Kernel spans: group = (signature << 3) | PC_SPAN_* bits, tag = region id
 * (pc_capture_join_kernel); a record without timestamps gives a span
 * [0, 0] flagged PC_SPAN_NOTIME.  Transfer spans: group = copy kind (memcpy) or 0
 * (memset), tag unused; they are kept only while a region is open and are
 * attributed by time, clipped to the region.
 *
 * Everything in the store is guarded by the gpu lock (pc_capture.h).
 */
#ifndef PC_ACTIVITY_H
#define PC_ACTIVITY_H

#include <stddef.h>
#include <stdint.h>

#include "../core/pc_core.h"

/* Registers the buffer callbacks and enables CONCURRENT_KERNEL, MEMCPY and
 * MEMSET.  Call after pc_capture_start succeeded.  Returns PERFCHECK_OK or
 * PERFCHECK_ERROR_CUPTI_UNAVAILABLE (msg says which call); on failure every
 * kind it enabled is disabled again.  A call while all are on does nothing. */
perfcheck_status pc_activity_start(char *msg, size_t msglen);

/* cuptiActivityFlushAll(forced ? FLUSH_FORCED : 0), then decodes every
 * queued buffer.  Must not be called with the gpu lock held. */
void pc_activity_flush(int forced);

/* Decodes the buffers CUPTI has completed so far (no flush). */
void pc_activity_decode(void);

/* Disables the kinds, force-flushes, decodes (and drops) what is left, and
 * frees the buffers and the store.  Safe after a failed start. */
void pc_activity_stop(void);

/* Records CUPTI dropped so far (a counter: take differences), and kernel
 * records of unprofiled launches that came without timestamps. */
uint64_t pc_activity_dropped(void);
uint64_t pc_activity_zero_timestamps(void);

/* ---- the store (caller holds the gpu lock) ---------------------------------- */

typedef struct pc_span_array {
  pc_span *v;
  size_t n, cap;
} pc_span_array;

/* The kernel, memcpy and memset spans decoded so far. */
pc_span_array *pc_activity_kernels_locked(void);
pc_span_array *pc_activity_memcpys_locked(void);
pc_span_array *pc_activity_memsets_locked(void);
/* Appends n spans; returns 0, or -1 on OOM (the spans are then lost and
 * counted as dropped). */
int pc_span_array_append(pc_span_array *a, const pc_span *v, size_t n);
/* Drops transfer spans that ended before `t` (no open region can use them). */
void pc_activity_prune_transfers_locked(uint64_t t);

#endif /* PC_ACTIVITY_H */
