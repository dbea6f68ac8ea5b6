/*
 * perfcheck.h: the one public header of libperfcheck.
 *
 * libperfcheck tells a CUDA programmer, kernel by kernel, why the code is
 * slow, in the order an expert asks:
 *   1. Is the kernel the slow part?            (kernel time against wall clock)
 *   2. Which ceiling is it under?              (compute vs memory)
 *   3. If memory bound, is the traffic real?   (sectors per request)
 *   4. If compute bound, are the lanes busy?   (threads per instruction)
 *   5. Is occupancy the limit?                 (achieved vs theoretical)
 * and gives one verdict per kernel.
 *
 * This header is the reference.  It is C11 and usable from C++; it names no
 * CUDA type.  Every function says what it returns, who owns what, and whether
 * it may be called from several threads.
 *
 * ABI promise: the status, cause, bound, mode and format enums only grow;
 * values never move.  Public structs begin with a `size` field that the
 * caller sets to sizeof(struct) (the *_init functions do it), so that a newer
 * library can tell how much of the struct an older caller knows.
 *
 * Thread-safety, once for all: perfcheck_strerror, perfcheck_cause_name,
 * perfcheck_bound_name, perfcheck_version_* and the *_init functions are
 * safe from any thread.  A session may be used from several threads (every
 * session function takes the session's lock), and kernels launched from any
 * host thread are attributed to the open region.  A report is immutable once
 * returned: any number of threads may read it.
 */
#ifndef PERFCHECK_H
#define PERFCHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ==== Version ============================================================ */

#define PERFCHECK_VERSION_MAJOR 0
#define PERFCHECK_VERSION_MINOR 1
#define PERFCHECK_VERSION_PATCH 0
/* major * 10000 + minor * 100 + patch */
#define PERFCHECK_VERSION_NUMBER \
  (PERFCHECK_VERSION_MAJOR * 10000 + PERFCHECK_VERSION_MINOR * 100 + PERFCHECK_VERSION_PATCH)
#define PERFCHECK_VERSION_STRING "0.1.0"

/* ==== Export ============================================================= */

#if defined(PERFCHECK_BUILDING) && defined(__GNUC__)
#define PERFCHECK_API __attribute__((visibility("default")))
#else
#define PERFCHECK_API
#endif

/* ==== Status codes ======================================================= */

/* X(name, value, message).  Append only; never renumber. */
#define PERFCHECK_STATUS_LIST(X)                                                        \
  X(OK, 0, "success")                                                                   \
  X(ERROR_INVALID_ARGUMENT, 1, "invalid argument")                                      \
  X(ERROR_OUT_OF_MEMORY, 2, "out of host memory")                                       \
  X(ERROR_NO_DRIVER, 3, "no usable NVIDIA driver (libcuda.so.1 missing, a stub, or failed to initialize)") \
  X(ERROR_NO_DEVICE, 4, "no CUDA device is visible")                                    \
  X(ERROR_DRIVER_TOO_OLD, 5, "the NVIDIA driver is too old for this CUDA 13 CUPTI")     \
  X(ERROR_CUPTI_UNAVAILABLE, 6, "CUPTI could not be loaded or initialized")             \
  X(ERROR_CUPTI_IN_USE, 7, "another CUPTI client (a profiler, a debugger or a framework profiler) holds this process") \
  X(ERROR_COUNTERS_NOT_PERMITTED, 8, "GPU performance counters are restricted to admin users (ERR_NVGPUCTRPERM)") \
  X(ERROR_COUNTERS_BUSY, 9, "GPU performance counters are busy (DCGM profiling or another profiler)") \
  X(ERROR_SESSION_EXISTS, 10, "another perfcheck session is already active in this process") \
  X(ERROR_NO_REGION, 11, "no region is open")                                           \
  X(ERROR_REGION_OPEN, 12, "a region is still open")                                    \
  X(ERROR_INERT, 13, "the session stopped collecting after an earlier failure")         \
  X(ERROR_IO, 14, "a file could not be read or written")                                \
  X(ERROR_PARSE, 15, "the input could not be parsed")                                   \
  X(ERROR_NOT_FOUND, 16, "no such kernel, region, metric or field")                     \
  X(ERROR_NOT_MEASURED, 17, "the quantity was not measured")                            \
  X(ERROR_UNSUPPORTED, 18, "not supported on this device, driver or build")             \
  X(ERROR_KERNEL_FAULT, 19, "a kernel faulted; collection stopped and what was collected is kept") \
  X(ERROR_INTERNAL, 20, "internal error in perfcheck")                                  \
  X(ERROR_EXPECTATION_FAILED, 21, "one or more expectations failed")

typedef enum perfcheck_status {
#define PERFCHECK_STATUS_ENUM_(name, value, msg) PERFCHECK_##name = value,
  PERFCHECK_STATUS_LIST(PERFCHECK_STATUS_ENUM_)
#undef PERFCHECK_STATUS_ENUM_
  PERFCHECK_STATUS_LIMIT_ /* not a status: one past the largest */
} perfcheck_status;

/* Static text for a status; never NULL, never allocated.  An unknown value
 * gives "unknown perfcheck status". */
PERFCHECK_API const char *perfcheck_strerror(perfcheck_status status);

/* The detail of the last call that failed on this thread ("cuptiSubscribe_v2:
 * CUPTI is in use by Nsight Compute", "mystery.csv:3: ..."), or "" if none.
 * The text is thread-local and valid until the next perfcheck call on this
 * thread. */
PERFCHECK_API const char *perfcheck_last_error_message(void);

/* ==== Version calls ====================================================== */

/* The library's version, as PERFCHECK_VERSION_STRING/NUMBER were when it was
 * built; compare with the macros to detect a header/library mismatch. */
PERFCHECK_API const char *perfcheck_version_string(void);
PERFCHECK_API unsigned perfcheck_version_number(void);

/* ==== Checklist vocabulary =============================================== */

/* The verdict's cause word (report-contract.md).  Append only. */
#define PERFCHECK_CAUSE_LIST(X)                     \
  X(NONE, 0, "none")                                \
  X(NOT_THE_SLOW_PART, 1, "not_the_slow_part")      \
  X(LAUNCH_OVERHEAD, 2, "launch_overhead")          \
  X(UNCOALESCED_GLOBAL_LOADS, 3, "uncoalesced_global_loads") \
  X(UNCOALESCED_GLOBAL_STORES, 4, "uncoalesced_global_stores") \
  X(LOCAL_MEMORY_SPILLS, 5, "local_memory_spills")  \
  X(SHARED_BANK_CONFLICTS, 6, "shared_bank_conflicts") \
  X(ATOMIC_CONTENTION, 7, "atomic_contention")      \
  X(DIVERGENT_WARPS, 8, "divergent_warps")          \
  X(OCCUPANCY_REGISTERS, 9, "occupancy_registers")  \
  X(OCCUPANCY_SHARED_MEMORY, 10, "occupancy_shared_memory") \
  X(OCCUPANCY_WARPS, 11, "occupancy_warps")         \
  X(OCCUPANCY_BLOCKS, 12, "occupancy_blocks")       \
  X(GRID_TOO_SMALL, 13, "grid_too_small")           \
  X(AT_ROOF, 14, "at_roof")                         \
  X(LATENCY_BOUND, 15, "latency_bound")             \
  X(NOT_ASSESSED, 16, "not_assessed")

typedef enum perfcheck_cause {
#define PERFCHECK_CAUSE_ENUM_(name, value, word) PERFCHECK_CAUSE_##name = value,
  PERFCHECK_CAUSE_LIST(PERFCHECK_CAUSE_ENUM_)
#undef PERFCHECK_CAUSE_ENUM_
  PERFCHECK_CAUSE_LIMIT_
} perfcheck_cause;

/* Step 2's answer. */
typedef enum perfcheck_bound {
  PERFCHECK_BOUND_UNKNOWN = 0,
  PERFCHECK_BOUND_MEMORY = 1,
  PERFCHECK_BOUND_COMPUTE = 2,
  PERFCHECK_BOUND_LATENCY = 3
} perfcheck_bound;

/* The cause word as the JSON report spells it ("divergent_warps"); static. */
PERFCHECK_API const char *perfcheck_cause_name(perfcheck_cause cause);
/* "memory", "compute", "latency" or "unknown"; static. */
PERFCHECK_API const char *perfcheck_bound_name(perfcheck_bound bound);

/* ==== Options ============================================================ */

typedef enum perfcheck_format {
  PERFCHECK_FORMAT_TEXT = 0, /* the checklist tables and a verdict line per kernel */
  PERFCHECK_FORMAT_JSON = 1, /* schema "perfcheck-report/1" (report-contract.md) */
  PERFCHECK_FORMAT_CSV = 2   /* one row per kernel */
} perfcheck_format;


typedef enum perfcheck_mode {
  /* Counters where the GPU allows them, else timing with a one-line note. */
  PERFCHECK_MODE_AUTO = 0,
  /* Activity timing and launch attributes only (steps 1 and 5's theory). */
  PERFCHECK_MODE_TIMING = 1,
  /* Hardware counters too; falls back to timing with a note when refused. */
  PERFCHECK_MODE_COUNTERS = 2
} perfcheck_mode;

typedef struct perfcheck_options {
  size_t size;              /* sizeof(perfcheck_options); set by _init */
  perfcheck_mode mode;      /* default PERFCHECK_MODE_AUTO */
  /* "default", "sol", "full", or a comma-separated list of ncu metric names,
   * optionally starting with a set name ("default,smsp__inst_executed.sum").
   * NULL means "default".  Copied at create. */
  const char *metrics;
  /* POSIX extended regex on the demangled kernel name (ncu's -k); NULL: all. */
  const char *kernel_regex;
  uint64_t launch_skip;     /* matching launches to skip before profiling (ncu's -s) */
  uint64_t launch_count;    /* matching launches to profile at most; 0: no limit (ncu's -c) */
  unsigned per_signature;   /* profiled launches per distinct kernel signature; 0 means 1 */
  int progress;             /* nonzero: "pass k/n, kernel i/m" lines on stderr */
  int emit_nvtx;            /* nonzero (default): regions also open an NVTX range */
  int quiet;                /* nonzero: no one-line notes on stderr (they stay in the report) */
  /* When set, the report is also written to this path when the session is
   * destroyed (and, under the injection library, at exit).  `%p` is the pid,
   * `%h` the host name, `%q{VAR}` an environment value, `%%` a percent sign.
   * "-" is stdout, "stderr" is stderr.  NULL: not written. */
  const char *output;
  perfcheck_format output_format;
} perfcheck_options;

/* Fills *options with the defaults and sets options->size.  NULL is ignored. */
PERFCHECK_API void perfcheck_options_init(perfcheck_options *options);

/* ==== Reports ============================================================ */

typedef struct perfcheck_report perfcheck_report; /* opaque, immutable */

/* One kernel entry: one per distinct launch signature (function, grid, block,
 * dynamic shared memory) and region.  Strings are owned by the report.
 * Doubles that were not measured are NaN (isnan); the JSON writes null. */
typedef struct perfcheck_kernel_info {
  size_t size;                    /* sizeof(perfcheck_kernel_info); caller sets */
  const char *name;               /* demangled, without return type or parameters */
  const char *mangled;            /* NULL when unknown (offline) */
  const char *region;             /* NULL outside any region (offline) */
  unsigned grid[3];
  unsigned block[3];
  double dynamic_smem_bytes;
  uint64_t launches;
  double duration_ns_min, duration_ns_median, duration_ns_max;
  double registers_per_thread;
  double static_smem_bytes;
  double local_bytes_per_thread;
  double blocks_per_sm;           /* the driver's occupancy answer */
  double waves_per_sm;
  double sectors_per_request_ld;
  double sectors_per_request_st;
  double threads_per_instruction;
  double achieved_occupancy_pct;
  double theoretical_occupancy_pct;
  double arithmetic_intensity;    /* FLOP per DRAM byte */
  /* The verdict. */
  int step;                       /* 0..5 */
  perfcheck_cause cause;
  perfcheck_bound bound;
  const char *metric;             /* as ncu spells it; "" when none */
  double value;
  double threshold;
  const char *advice;             /* one sentence */
} perfcheck_kernel_info;

typedef struct perfcheck_region_info {
  size_t size;                    /* sizeof(perfcheck_region_info); caller sets */
  const char *name;
  const char *parent;             /* enclosing region, NULL at top level */
  double wall_ns;
  double kernel_ns;               /* union of kernel intervals over streams */
  double memcpy_ns;
  double memset_ns;
  double gpu_idle_ns;             /* gaps between kernels inside the kernel span */
  uint64_t launches;
  uint64_t dropped_records;
  double kernel_share;            /* kernel_ns / wall_ns */
  int step;                       /* 1 when step 1 catches the region, else 0 */
  perfcheck_cause cause;
  const char *advice;
} perfcheck_region_info;

/* Number of kernel entries / regions in a report; 0 for NULL. */
PERFCHECK_API size_t perfcheck_report_kernel_count(const perfcheck_report *report);
PERFCHECK_API size_t perfcheck_report_region_count(const perfcheck_report *report);

/* Copies entry `index` into *out (up to out->size bytes).
 * Returns PERFCHECK_OK, PERFCHECK_ERROR_INVALID_ARGUMENT (NULL, or out->size
 * too small for the `size` field), PERFCHECK_ERROR_NOT_FOUND (index out of
 * range).  The strings stay owned by the report. */
PERFCHECK_API perfcheck_status perfcheck_report_kernel(const perfcheck_report *report, size_t index,
                                                       perfcheck_kernel_info *out);
PERFCHECK_API perfcheck_status perfcheck_report_region(const perfcheck_report *report, size_t index,
                                                       perfcheck_region_info *out);

/* A kernel's value by name: any ncu metric of the contract (an alias such as
 * smsp__thread_inst_executed_per_inst_executed.ratio is accepted), any
 * launch__* value, or a derived name of the contract (sectors_per_request_ld,
 * threads_per_instruction, achieved_occupancy_pct, ...).
 * Returns PERFCHECK_OK with *out set; PERFCHECK_ERROR_NOT_FOUND for an unknown
 * name or index; PERFCHECK_ERROR_NOT_MEASURED when the name is known but no
 * value was measured (*out is NaN then). */
PERFCHECK_API perfcheck_status perfcheck_report_kernel_value(const perfcheck_report *report, size_t index,
                                                             const char *name, double *out);

/* Writes the report to an open stream.  Returns PERFCHECK_OK,
 * PERFCHECK_ERROR_INVALID_ARGUMENT, or PERFCHECK_ERROR_IO on a write error. */
PERFCHECK_API perfcheck_status perfcheck_report_write(const perfcheck_report *report,
                                                      perfcheck_format format, FILE *stream);

/* Reads an `ncu --csv --page raw` export and diagnoses every launch in it;
 * no GPU is needed.  On success *out owns a new report (free it with
 * perfcheck_report_destroy).  Unusable values become NaN with a warning in the
 * report and on stderr (unless `quiet`).  Returns PERFCHECK_OK,
 * PERFCHECK_ERROR_INVALID_ARGUMENT, PERFCHECK_ERROR_IO (cannot open/read),
 * PERFCHECK_ERROR_PARSE (not an ncu raw export; perfcheck_last_error_message()
 * names the file and line), PERFCHECK_ERROR_OUT_OF_MEMORY. */
PERFCHECK_API perfcheck_status perfcheck_report_from_ncu_csv(const char *path, int quiet,
                                                             perfcheck_report **out);

/* Frees a report obtained from perfcheck_report_from_ncu_csv (or another
 * function that says it transfers ownership).  NULL is a no-op.  Never pass a
 * report borrowed from a session. */
PERFCHECK_API void perfcheck_report_destroy(perfcheck_report *report);

/* ==== Metric sets ======================================================== */

/* The ncu metric names of a set ("default", "sol" or "full"), comma-separated,
 * ready for `ncu --metrics`; static text, NULL for an unknown set. */
PERFCHECK_API const char *perfcheck_metric_list(const char *set);

/* How many replay passes CUPTI needs to collect `metrics` (a set name or a
 * list, as perfcheck_options.metrics) on the chip `chip` as CUPTI spells it
 * ("GH100", "AD102"); chip NULL means the current process's device 0, which
 * needs a driver.  Uses CUPTI's host API: no GPU is needed with a chip name.
 * Returns PERFCHECK_OK with *passes set; PERFCHECK_ERROR_INVALID_ARGUMENT (bad
 * list); PERFCHECK_ERROR_NOT_FOUND (a metric unknown on that chip; the
 * message names it); PERFCHECK_ERROR_UNSUPPORTED (unknown chip);
 * PERFCHECK_ERROR_CUPTI_UNAVAILABLE; PERFCHECK_ERROR_NO_DRIVER /
 * PERFCHECK_ERROR_NO_DEVICE (chip NULL without a GPU). */
PERFCHECK_API perfcheck_status perfcheck_metric_passes(const char *metrics, const char *chip, int *passes);

/* ==== Sessions =========================================================== */

typedef struct perfcheck_session perfcheck_session; /* opaque */

/* Creates the process's profiling session and attaches to CUDA through CUPTI.
 * options: NULL for defaults (copied; the caller's strings may be freed).
 * On success *out is a new session.  On failure *out is NULL, nothing was
 * changed in the process, and perfcheck_last_error_message() says why.
 * Returns PERFCHECK_OK; PERFCHECK_ERROR_INVALID_ARGUMENT (out NULL, bad
 * options->size, bad metric list or regex); PERFCHECK_ERROR_NO_DRIVER;
 * PERFCHECK_ERROR_NO_DEVICE; PERFCHECK_ERROR_DRIVER_TOO_OLD;
 * PERFCHECK_ERROR_CUPTI_UNAVAILABLE; PERFCHECK_ERROR_CUPTI_IN_USE (the holder
 * is named in the message); PERFCHECK_ERROR_SESSION_EXISTS;
 * PERFCHECK_ERROR_OUT_OF_MEMORY.  When counters are refused (permissions,
 * DCGM) the session is still created, in timing mode, and says so once.
 * Thread-safe. */
PERFCHECK_API perfcheck_status perfcheck_session_create(const perfcheck_options *options,
                                                        perfcheck_session **out);

/* Opens a region named `region` (copied).  Regions nest; kernels launched from
 * any host thread into any stream between begin and the matching end belong
 * to the innermost open region.  Also opens an NVTX range of the same name.
 * Returns PERFCHECK_OK; PERFCHECK_ERROR_INVALID_ARGUMENT (NULL session or
 * name); PERFCHECK_ERROR_INERT (collection stopped earlier; the region is not
 * opened); PERFCHECK_ERROR_OUT_OF_MEMORY. */
PERFCHECK_API perfcheck_status perfcheck_session_begin(perfcheck_session *session, const char *region);

/* Closes the innermost open region: waits for its GPU work, collects its
 * timing and counters and diagnoses its kernels.  Returns PERFCHECK_OK;
 * PERFCHECK_ERROR_INVALID_ARGUMENT; PERFCHECK_ERROR_NO_REGION (end without
 * begin); PERFCHECK_ERROR_KERNEL_FAULT (a kernel faulted: the region is closed
 * with what was collected, and the session goes inert);
 * PERFCHECK_ERROR_INERT. */
PERFCHECK_API perfcheck_status perfcheck_session_end(perfcheck_session *session);

/* The session's report so far (every region ended so far).  The report is
 * borrowed: valid until the next begin, end or destroy on this session; do not
 * destroy it.  Returns PERFCHECK_OK or PERFCHECK_ERROR_INVALID_ARGUMENT. */
PERFCHECK_API perfcheck_status perfcheck_session_report(perfcheck_session *session,
                                                        const perfcheck_report **out);

/* Detail of the session's last failure or note, "" if none; valid until the
 * next call on the session. */
PERFCHECK_API const char *perfcheck_session_message(const perfcheck_session *session);

/* Detaches from CUDA and frees the session.  Regions still open are closed
 * first (their data is kept in no report once destroyed: read the report
 * before).  NULL is a no-op. */
PERFCHECK_API void perfcheck_session_destroy(perfcheck_session *session);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* PERFCHECK_H */
