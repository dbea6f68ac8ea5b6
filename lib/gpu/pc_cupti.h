/*
 * pc_cupti.h: CUPTI, reached without linking libcupti.
 *
 * libperfcheck.so has no NEEDED entry for libcupti (issue "A fresh machine"):
 * a program that links us for offline diagnosis, or a Python environment
 * built for another CUDA, must not need CUPTI 13 to load.  pc_cupti_load()
 * opens it at run time, the first time a session, the injection library or
 * a pass count needs it, and resolves every entry point we call into the
 * table pc_cupti.  Every CUPTI call in lib/ goes through that table.
 *
 * One CUPTI per process.  A Python process may already hold a libcupti
 * (PyTorch's nvidia-cuda-cupti wheel, JAX's): a copy of the same major
 * version already loaded is used as it is (dlopen RTLD_NOLOAD); a copy of
 * another major version refuses us (two CUPTIs in one process conflict).
 * Otherwise the search order is: PERFCHECK_CUPTI_LIBRARY (a full path), the
 * loader's own path (LD_LIBRARY_PATH, ld.so.conf), the toolkit we were built
 * against, then /usr/local/cuda's usual folders.
 */
#ifndef PC_CUPTI_H
#define PC_CUPTI_H

#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <stddef.h>

#include "model/pc_core.h"

/* Every CUPTI function lib/ calls; the member names are the header names. */
#define PC_CUPTI_FUNCTIONS(X)                     \
  X(cuptiGetVersion)                              \
  X(cuptiGetResultString)                         \
  X(cuptiGetTimestamp)                            \
  X(cuptiGetDeviceId)                             \
  X(cuptiGetGraphExecId)                          \
  X(cuptiSubscribe_v2)                            \
  X(cuptiUnsubscribe)                             \
  X(cuptiEnableCallback)                          \
  X(cuptiActivityEnable)                          \
  X(cuptiActivityDisable)                         \
  X(cuptiActivityFlushAll)                        \
  X(cuptiActivityRegisterCallbacks)               \
  X(cuptiActivityGetNextRecord)                   \
  X(cuptiActivityGetNumDroppedRecords)            \
  X(cuptiDeviceGetChipName)                       \
  X(cuptiProfilerInitialize)                      \
  X(cuptiProfilerDeInitialize)                    \
  X(cuptiProfilerDeviceSupported)                 \
  X(cuptiProfilerGetCounterAvailability)          \
  X(cuptiProfilerHostInitialize)                  \
  X(cuptiProfilerHostDeinitialize)                \
  X(cuptiProfilerHostGetSupportedChips)           \
  X(cuptiProfilerHostGetMetricProperties)         \
  X(cuptiProfilerHostConfigAddMetrics)            \
  X(cuptiProfilerHostGetConfigImageSize)          \
  X(cuptiProfilerHostGetConfigImage)              \
  X(cuptiProfilerHostGetNumOfPasses)              \
  X(cuptiProfilerHostEvaluateToGpuValues)         \
  X(cuptiRangeProfilerEnable)                     \
  X(cuptiRangeProfilerDisable)                    \
  X(cuptiRangeProfilerGetCounterDataSize)         \
  X(cuptiRangeProfilerCounterDataImageInitialize) \
  X(cuptiRangeProfilerSetConfig)                  \
  X(cuptiRangeProfilerStart)                      \
  X(cuptiRangeProfilerStop)                       \
  X(cuptiRangeProfilerPushRange)                  \
  X(cuptiRangeProfilerPopRange)                   \
  X(cuptiRangeProfilerDecodeData)                 \
  X(cuptiRangeProfilerGetCounterDataInfo)

typedef struct pc_cupti_api {
#define PC_CUPTI_MEMBER_(name) __typeof__(&name) name;
  PC_CUPTI_FUNCTIONS(PC_CUPTI_MEMBER_)
#undef PC_CUPTI_MEMBER_
  /* NVTX's tool entry points: libcupti exports them, no header declares
   * them (NULL when absent: NVTX ranges then stay no-ops). */
  int (*cuptiNvtxInitialize2)(void *get_export_table);
  int (*cuptiNvtxInitialize)(void *get_export_table);
} pc_cupti_api;

/* The resolved functions; valid after pc_cupti_load() returned PERFCHECK_OK. */
extern pc_cupti_api pc_cupti;

/* Opens libcupti (see the search order above), checks that it is CUPTI 13
 * and has every function of the table.  Idempotent and thread-safe; the
 * first result is kept.  Needs no driver.  Returns PERFCHECK_OK or
 * PERFCHECK_ERROR_CUPTI_UNAVAILABLE with one line in *err saying what was
 * looked for and why it failed.  Calls go through PC_CUPTI (pc_call.h). */
perfcheck_status pc_cupti_load(pc_err *err);

/* The loader's lock: lib/gpu's one process-wide lock besides the collector's
 * (pc_collector.h), beside the state that outlives sessions (pc_cupti.c's
 * struct pc_proc): the profiler's initialize count and the driver-fact
 * caches, reached through the pc_proc_* calls below; it also serializes
 * CUPTI's profiler host API (which keeps process-wide state of its own:
 * helgrind saw races inside it with perfcheck_metric_passes called from 8
 * threads; pc_metrics_host.c takes it around each host-API sequence).
 * Recursive, because host-API sequences nest (a pass count opens a host
 * object, validates, configures).  May be held across CUPTI host-API and
 * cuptiProfilerInitialize calls, which call nothing back; never across a
 * launch or a synchronization; never taken with the collector's lock held. */
void pc_proc_lock(void);
void pc_proc_unlock(void);

/* cuptiProfilerInitialize on the first acquire, cuptiProfilerDeInitialize on
 * the last release (a process-wide count, so perfcheck_metric_passes never
 * de-initializes a live session's profiler).  Needs a driver. */
perfcheck_status pc_proc_profiler_acquire(pc_err *err);
void pc_proc_profiler_release(void);

/* The driver facts of a device (by ordinal) and of a context (its device
 * ordinal), cached for the process: get returns 1 (or the ordinal) when
 * cached, 0 (-1) when not; reset empties both (a session's teardown). */
int pc_proc_device_get(int ordinal, pc_device *out);
void pc_proc_device_put(int ordinal, const pc_device *d);
int pc_proc_ctx_ordinal_get(CUcontext ctx);
void pc_proc_ctx_ordinal_put(CUcontext ctx, int ordinal);
void pc_proc_cache_reset(void);

/* After a successful load: the file it came from ("" if unknown), whether it
 * was already in the process before us, and cuptiGetVersion's answer. */
const char *pc_cupti_path(void);
int pc_cupti_was_loaded(void);
unsigned pc_cupti_version(void);


#endif /* PC_CUPTI_H */
