/*
 * session_off.c: the session, ceilings and pass-count API of a build made
 * without the CUDA toolkit (CMake found no CUDAToolkit; see the README,
 * "A build without CUDA").  Such a libperfcheck.so holds everything offline
 * (ncu CSV and JSON readers, the checklist, writers, merge, expectations)
 * and exports the same symbols as a CUDA build, so a program or a Python
 * binding never sees a missing symbol: the calls below answer
 * PERFCHECK_ERROR_UNSUPPORTED and say why.
 */
#include <stdio.h>

#include "model/pc_core.h"
#include "base/pc_util.h"

#define PC_OFF_WHY "this libperfcheck was built without the CUDA toolkit: in-process profiling is not available"

PERFCHECK_API perfcheck_status perfcheck_session_create(const perfcheck_options *options, perfcheck_session **out) {
  (void)options;
  if (!out) return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_session_create: out is NULL");
  *out = NULL;
  return pc_fail(PERFCHECK_ERROR_UNSUPPORTED, "perfcheck_session_create: %s", PC_OFF_WHY);
}

PERFCHECK_API perfcheck_status perfcheck_session_begin(perfcheck_session *session, const char *region) {
  (void)region;
  if (!session) return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_session_begin: session is NULL");
  return pc_fail(PERFCHECK_ERROR_UNSUPPORTED, "perfcheck_session_begin: %s", PC_OFF_WHY);
}

PERFCHECK_API perfcheck_status perfcheck_session_end(perfcheck_session *session) {
  if (!session) return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_session_end: session is NULL");
  return pc_fail(PERFCHECK_ERROR_UNSUPPORTED, "perfcheck_session_end: %s", PC_OFF_WHY);
}

PERFCHECK_API perfcheck_status perfcheck_session_report(perfcheck_session *session, const perfcheck_report **out) {
  if (out) *out = NULL;
  if (!session || !out)
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_session_report: %s is NULL", session ? "out" : "session");
  return pc_fail(PERFCHECK_ERROR_UNSUPPORTED, "perfcheck_session_report: %s", PC_OFF_WHY);
}

PERFCHECK_API const char *perfcheck_session_message(const perfcheck_session *session) {
  return session ? PC_OFF_WHY : "";
}

PERFCHECK_API void perfcheck_session_destroy(perfcheck_session *session) { (void)session; }

/* No session can exist here, so none has expectations. */
PERFCHECK_API perfcheck_status perfcheck_session_expect(perfcheck_session *session, const char *spec) {
  (void)spec;
  if (!session) return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_session_expect: session is NULL");
  return pc_fail(PERFCHECK_ERROR_UNSUPPORTED, "perfcheck_session_expect: %s", PC_OFF_WHY);
}

PERFCHECK_API perfcheck_status perfcheck_session_check(perfcheck_session *session, size_t *failures) {
  if (failures) *failures = 1;
  if (!session) return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_session_check: session is NULL");
  return pc_fail(PERFCHECK_ERROR_UNSUPPORTED, "perfcheck_session_check: %s", PC_OFF_WHY);
}

PERFCHECK_API const perfcheck_expectations *perfcheck_session_expectations(const perfcheck_session *session) {
  (void)session;
  return NULL;
}

PERFCHECK_API perfcheck_status perfcheck_metric_passes(const char *metrics, const char *chip, int *passes) {
  (void)metrics, (void)chip;
  if (passes) *passes = 0;
  return pc_fail(PERFCHECK_ERROR_UNSUPPORTED,
                 "perfcheck_metric_passes: pass counts come from CUPTI's profiler host library, and %s", PC_OFF_WHY);
}

PERFCHECK_API perfcheck_status perfcheck_measure_ceilings(int device, const char *cache_path, double *dram_bytes_per_s,
                                                          double *fp32_flop_per_s) {
  (void)cache_path;
  if (dram_bytes_per_s) *dram_bytes_per_s = PC_NULL;
  if (fp32_flop_per_s) *fp32_flop_per_s = PC_NULL;
  if (device < 0) return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_measure_ceilings: no device %d", device);
  return pc_fail(PERFCHECK_ERROR_UNSUPPORTED, "perfcheck_measure_ceilings: %s", PC_OFF_WHY);
}

/* The injection library's entries (lib/inject/pc_inject.h): the program
 * runs on unprofiled, with one line. */
__attribute__((visibility("default"))) int pc_inject_initialize(int abi);
__attribute__((visibility("default"))) int pc_inject_nvtx_initialize(int abi, int nvtx_version, void *get_export_table);

int pc_inject_initialize(int abi) {
  (void)abi;
  pc_say("profiling off: %s", PC_OFF_WHY);
  return 1;
}

int pc_inject_nvtx_initialize(int abi, int nvtx_version, void *get_export_table) {
  (void)abi, (void)nvtx_version, (void)get_export_table;
  return 0;
}
