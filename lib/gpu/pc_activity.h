/*
 * pc_activity.h: kernel, memcpy and memset timing through the CUPTI Activity
 * API, decoded into the installed collector's store (pc_collector.h), which
 * a region's end reads.  Private to lib/gpu.
 */
#ifndef PC_ACTIVITY_H
#define PC_ACTIVITY_H

#include "model/pc_core.h"

/* Registers the buffer callbacks and enables CONCURRENT_KERNEL, MEMCPY,
 * MEMSET and MEMCPY2.  Call after pc_capture_start succeeded.  Returns
 * PERFCHECK_OK or PERFCHECK_ERROR_CUPTI_UNAVAILABLE (*err says which call);
 * on failure every kind it enabled is disabled again.  A call while all are
 * on does nothing. */
perfcheck_status pc_activity_start(pc_err *err);

/* cuptiActivityFlushAll(forced ? FLUSH_FORCED : 0), then decodes every
 * queued buffer into the installed collector.  Not with its lock held. */
void pc_activity_flush(int forced);

/* Disables the kinds, force-flushes and decodes what is left (no region is
 * open by then: it is dropped).  Safe after a failed start. */
void pc_activity_stop(void);

#endif /* PC_ACTIVITY_H */
