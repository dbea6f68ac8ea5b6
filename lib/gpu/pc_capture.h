/*
 * pc_capture.h: the process's one CUPTI subscriber and its callbacks
 * (launches, stream captures, contexts, modules, CUPTI's fatal error, NVTX
 * ranges), which record into the installed collector (pc_collector.h).
 * Private to lib/gpu.
 */
#ifndef PC_CAPTURE_H
#define PC_CAPTURE_H

#include <cuda.h>
#include <cupti.h>
#include <stddef.h>
#include <stdint.h>

#include "model/pc_core.h"
#include "pc_collector.h"

/* PERFCHECK_ERROR_CUPTI_IN_USE, with the holder CUPTI named in *err, once
 * CUPTI answered 39 (MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) in this process:
 * another tool (ncu, nsys, compute-sanitizer, a framework profiler) holds
 * CUPTI, and any further CUPTI call may crash the host program
 * (docs/cupti.md §11: cuptiDeviceGetChipName segfaults).  PERFCHECK_OK
 * otherwise. */
perfcheck_status pc_capture_cupti_usable(pc_err *err);

/* Subscribes ("libperfcheck", userdata &pc_gpu_g) and enables the launch,
 * resource and state callbacks.  Call only after pc_cuda_load() succeeded,
 * or inside cuInit.  Idempotent.  Returns PERFCHECK_OK,
 * PERFCHECK_ERROR_CUPTI_IN_USE (the holder named; CUPTI is then unusable for
 * the process), PERFCHECK_ERROR_CUPTI_UNAVAILABLE,
 * PERFCHECK_ERROR_DRIVER_TOO_OLD.  On failure nothing stays subscribed. */
perfcheck_status pc_capture_start(pc_err *err);
/* Unsubscribes (the collector is uninstalled and drained first). */
void pc_capture_unsubscribe(void);
/* NVTX range callbacks on or off (pc_gpu_nvtx_enable). */
perfcheck_status pc_capture_nvtx_enable(int on, pc_err *err);
/* PERFCHECK_NVTX's gate (pc_gpu_set_counter_gate). */
void pc_capture_set_counter_gate(int (*gate)(void));

/* Our own kernels (the ceilings benchmarks) are not captured: call around
 * them on the launching thread.  (The one "our own launch" flag.) */
void pc_capture_internal(int on);

/* The subscriber's callback, as pc_capture_start registers it; declared so
 * that tests drive it with hand-made CUPTI callback data. */
void CUPTIAPI pc_capture_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                  const void *data);
/* This thread's depth of launch callbacks of ours (0 outside a launch call). */
int pc_capture_thread_depth(void);

#endif /* PC_CAPTURE_H */
