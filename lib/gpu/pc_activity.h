/*
 * pc_activity.h: kernel, memcpy and memset timing through the CUPTI Activity
 * API, decoded into compact spans (pc_span) that the session reads at region
 * end.
 *
 * Kernel records (pc_kspan): signature and flags from the launch
 * (pc_capture_join_kernel), region id, correlation id, stream; a record
 * without timestamps gives [0, 0] flagged PC_SNAP_NOTIME.  Transfer spans:
 * group = copy kind (memcpy) or 0 (memset), tag unused; they are kept only
 * while a region is open and are attributed by time.
 *
 * This file owns the store; the gpu lock (pc_capture.h) guards it, so that
 * decoding joins a record to its launch and stores it in one step.
 */
#ifndef PC_ACTIVITY_H
#define PC_ACTIVITY_H

#include <stddef.h>
#include <stdint.h>

#include "../core/pc_core.h"

/* Registers the buffer callbacks and enables CONCURRENT_KERNEL, MEMCPY and
 * MEMSET.  Call after pc_capture_start succeeded.  Returns PERFCHECK_OK or
 * PERFCHECK_ERROR_CUPTI_UNAVAILABLE (*err says which call); on failure every
 * kind it enabled is disabled again.  A call while all are on does nothing. */
perfcheck_status pc_activity_start(pc_err *err);

/* cuptiActivityFlushAll(forced ? FLUSH_FORCED : 0), then decodes every
 * queued buffer.  Must not be called with the gpu lock held. */
void pc_activity_flush(int forced);

/* Disables the kinds, force-flushes, decodes (and drops) what is left, and
 * frees the buffers and the store.  Safe after a failed start. */
void pc_activity_stop(void);

/* Records CUPTI dropped so far (a counter: take differences), and kernel
 * records of unprofiled launches that came without timestamps. */
uint64_t pc_activity_dropped(void);
uint64_t pc_activity_zero_timestamps(void);

/* ---- the store (owned here, guarded by the gpu lock: the caller holds it) -- */

/* One kernel record: 32 bytes.  group = (signature << PC_KSPAN_SHIFT) |
 * PC_SNAP_* flags (pc_capture.h), region = the region id of its launch. */
typedef struct pc_kspan {
  uint64_t start, end;          /* 0 and 0 with PC_SNAP_NOTIME */
  uint32_t group, region;
  uint32_t corr;                /* correlation id */
  uint32_t stream;              /* CUPTI's stream id */
} pc_kspan;

/* Moves the kernel records of `region` out of the store into *out (the
 * caller's; the whole array without a copy when they are all of it).
 * Returns their count; *lost is set when a copy failed (they are dropped). */
size_t pc_activity_take_locked(uint32_t region, pc_kspan **out, int *lost);
/* Appends n records (a nested region's, re-tagged for its parent).  Returns
 * 0, or -1 on out of memory (they are lost, and counted as dropped). */
int pc_activity_give_locked(const pc_kspan *v, size_t n);
/* Copies the memcpy (memsets 0) or memset (memsets 1) spans that overlap
 * [begin, end] into *out (malloc'd; group = copy kind).  Returns the count;
 * *lost set on out of memory. */
size_t pc_activity_transfers_locked(int memsets, uint64_t begin, uint64_t end, pc_span **out, int *lost);
/* Drops transfer spans that ended before `t` (no open region can use them). */
void pc_activity_prune_transfers_locked(uint64_t t);

#endif /* PC_ACTIVITY_H */
