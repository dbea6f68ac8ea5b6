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
 * Thread-safety, once for all (and on each function): perfcheck_strerror,
 * perfcheck_cause_name, perfcheck_bound_name, perfcheck_version_* and the
 * *_init functions are safe from any thread.  A session may be used from
 * several threads (every session function takes the session's lock), and
 * kernels launched from any host thread are attributed to the open region.
 * A report made by perfcheck_report_from_ncu_csv, _from_json or
 * perfcheck_report_merge is immutable: any number of threads may read it.
 * A session's report (perfcheck_session_report) is the session's own, not a
 * copy: each perfcheck_session_end adds to it, so it may be read only while
 * no thread begins, ends or destroys that session.
 * perfcheck_metric_passes may be called from any thread: CUPTI's host API
 * runs behind one lock inside perfcheck.  An expectations set is used by one
 * thread at a time.  Error messages are per thread.
 *
 * Exports: libperfcheck.so exports the perfcheck_* functions below and two
 * more, pc_inject_initialize and pc_inject_nvtx_initialize.  Those two are
 * not API: they are how libperfcheck_inject.so (the injection library of
 * `perfcheck run`) starts the runtime inside this library, so that a process
 * has one copy of the session state; they are declared in
 * lib/inject/pc_inject.h, may change with every release, and must not be
 * called by programs.
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

/* PERFCHECK_DISABLE, defined before this header is included, compiles
 * perfcheck out: every function below becomes a static inline stub with the
 * same signature (sessions and readers answer PERFCHECK_ERROR_UNSUPPORTED,
 * counts are 0, names and messages stay static text), so a program needs no
 * libperfcheck to build and run.  The stubs are at the end of this header. */
#if defined(PERFCHECK_DISABLE)
#define PERFCHECK_API static inline
#elif defined(PERFCHECK_BUILDING) && defined(__GNUC__)
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
 * gives "unknown perfcheck status".
 * Thread-safe. */
PERFCHECK_API const char *perfcheck_strerror(perfcheck_status status);

/* The detail of the last call that failed on this thread ("cuptiSubscribe_v2:
 * CUPTI is in use by Nsight Compute", "mystery.csv:3: ..."), or "" if none.
 * The text is thread-local and valid until the next perfcheck call on this
 * thread.
 * Thread-safe (the text is this thread's own). */
PERFCHECK_API const char *perfcheck_last_error_message(void);

/* ==== Version calls ====================================================== */

/* The library's version, as PERFCHECK_VERSION_STRING/NUMBER were when it was
 * built; compare with the macros to detect a header/library mismatch.
 * Thread-safe. */
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
  X(NOT_ASSESSED, 16, "not_assessed")             \
  X(PARTIAL_WARPS, 17, "partial_warps")            \
  X(COMMUNICATION, 18, "communication")

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

/* The cause word as the JSON report spells it ("divergent_warps"); static.
 * Thread-safe. */
PERFCHECK_API const char *perfcheck_cause_name(perfcheck_cause cause);
/* "memory", "compute", "latency" or "unknown"; static.
 * Thread-safe. */
PERFCHECK_API const char *perfcheck_bound_name(perfcheck_bound bound);

/* ==== Options ============================================================ */

typedef enum perfcheck_format {
  PERFCHECK_FORMAT_TEXT = 0, /* the verdicts, most time first, then the checklist tables */
  PERFCHECK_FORMAT_JSON = 1, /* schema "perfcheck-report/1" (report-contract.md) */
  PERFCHECK_FORMAT_CSV = 2,  /* one row per kernel */
  /* One self-contained HTML page (no network, no script needed to see it):
   * the roofline with the device's ceilings, the five questions per kernel
   * as bands, the regions' timelines, the kernel table. */
  PERFCHECK_FORMAT_HTML = 3
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
  /* "default", "sol", "full", ncu's "basic" or "detailed" (as far as CUPTI
   * collects them: perfcheck metrics --list-sets), or a comma-separated list of ncu metric names,
   * optionally starting with a set name ("default,smsp__inst_executed.sum").
   * NULL means "default".  Copied at create. */
  const char *metrics;
  /* POSIX extended regex searched in the demangled kernel name without its
   * return type and parameters; NULL: all.  The program's own pattern is
   * compiled as given, through the regex guard (at most 512 characters,
   * bounded repetition, no back-references); PERFCHECK_KERNELS and `perfcheck run --kernels` take
   * ncu's -k vocabulary (a function name matched exactly, or regex:EXPR
   * through the regex guard that bounds compile and match cost) and arrive
   * here as such a regex. */
  const char *kernel_regex;
  uint64_t launch_skip;     /* matching launches to skip before profiling (ncu's -s) */
  uint64_t launch_count;    /* matching launches to profile at most; 0: no limit (ncu's -c) */
  unsigned per_signature;   /* profiled launches per distinct kernel signature in each region name
                               (all runs of one name share them); 0 means 1 */
  int progress;             /* nonzero: "pass k/n, kernel i/m" lines on stderr and the host
                               time by phase at the end; 2: also each profiled launch's phases */
  int emit_nvtx;            /* nonzero (default): regions also open an NVTX range */
  int quiet;                /* nonzero: no notes on stderr even with PERFCHECK_VERBOSE=1 (notes
                               are in the report and perfcheck_session_message; without
                               PERFCHECK_VERBOSE=1 the library prints none anyway) */
  /* When set, the report is also written to this path when the session is
   * destroyed (and, under the injection library, at exit).  `%p` is the pid,
   * `%h` the host name, `%q{VAR}` an environment value (unset, empty or
   * longer than 128 bytes: the pid, with a one-line warning), `%%` a
   * percent sign; values of %h and %q{VAR} are made one path component ('/'
   * and control characters become '_').  "-" is stdout, "stderr" is stderr.
   * NULL: not written.  The file is written as perfcheck_file_write writes
   * (a device, FIFO or folder at the name is refused; a temporary file in
   * its folder renamed into place, so a planted symlink is never followed
   * and a reader never sees half a report); when it cannot be written the
   * report goes to stderr after one line saying why.  A process of a
   * `perfcheck run` that is not the run's root writes PATH with ".PID"
   * before its extension when the pattern has no %p.  A privileged process
   * (setuid, setgid, file capabilities) writes no file: one line on stderr
   * says so. */
  const char *output;
  perfcheck_format output_format;
} perfcheck_options;

/* Fills *options with the defaults and sets options->size.  NULL is ignored.
 * Thread-safe (it writes *options only). */
PERFCHECK_API void perfcheck_options_init(perfcheck_options *options);

/* Fills *options as perfcheck_options_init does, then from the PERFCHECK_*
 * environment variables that `perfcheck run` sets (PERFCHECK_MODE,
 * PERFCHECK_METRICS, PERFCHECK_KERNELS, PERFCHECK_LAUNCH_SKIP,
 * PERFCHECK_LAUNCH_COUNT, PERFCHECK_PER_SIGNATURE, PERFCHECK_OUTPUT,
 * PERFCHECK_FORMAT, PERFCHECK_PROGRESS; the README's table), so that a
 * program or a language binding that creates its own session honours the
 * same settings.  PERFCHECK_NVTX, PERFCHECK_NVTX_INCLUDE and
 * PERFCHECK_NVTX_EXCLUDE (ncu's --nvtx-include/--nvtx-exclude: push/pop
 * ranges "A/", start/end ranges "A" and "A,B") have no field here: they
 * select the launches of the injection library's session, which sees the
 * program's NVTX ranges.  A bad value is never fatal: it gives one warning
 * line on stderr naming the variable and the default used, and that field
 * keeps its default.  The strings stored in *options are owned by the
 * library and stay valid for the life of the process.  *bad_values (may be
 * NULL) is the number of bad values.  Returns PERFCHECK_OK, or
 * PERFCHECK_ERROR_INVALID_ARGUMENT (options NULL).  Not thread-safe: call it
 * from one thread at a time (at start-up, or under the caller's lock). */
PERFCHECK_API perfcheck_status perfcheck_options_from_env(perfcheck_options *options, unsigned *bad_values);

/* Checks options as perfcheck_session_create will, without a session or a
 * GPU, so that a bad value is refused where it is given: the mode and the
 * output format are known values, metrics is a set name or a list of ncu
 * metric names (syntax only: the chip checks the names at create),
 * kernel_regex passes the regex guard, output's % placeholders are %p, %h,
 * %q{VAR} or %%, and an output named ".json", ".csv", ".html" or ".txt"
 * has that output_format.  Returns PERFCHECK_OK, or
 * PERFCHECK_ERROR_INVALID_ARGUMENT (perfcheck_last_error_message() names
 * the field and what is wrong).  Thread-safe (it reads *options only). */
PERFCHECK_API perfcheck_status perfcheck_options_check(const perfcheck_options *options);

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

/* Number of kernel entries / regions in a report; 0 for NULL.
 * Thread-safe: a report is only read, by any number of threads at once (a
 * session's borrowed report only while no thread begins, ends or destroys that
 * session). */
PERFCHECK_API size_t perfcheck_report_kernel_count(const perfcheck_report *report);
PERFCHECK_API size_t perfcheck_report_region_count(const perfcheck_report *report);

/* Copies entry `index` into *out (up to out->size bytes).
 * Returns PERFCHECK_OK, PERFCHECK_ERROR_INVALID_ARGUMENT (NULL, or out->size
 * too small for the `size` field), PERFCHECK_ERROR_NOT_FOUND (index out of
 * range).  The strings stay owned by the report.
 * Thread-safe: a report is only read, by any number of threads at once (a
 * session's borrowed report only while no thread begins, ends or destroys that
 * session). */
PERFCHECK_API perfcheck_status perfcheck_report_kernel(const perfcheck_report *report, size_t index,
                                                       perfcheck_kernel_info *out);
PERFCHECK_API perfcheck_status perfcheck_report_region(const perfcheck_report *report, size_t index,
                                                       perfcheck_region_info *out);

/* A kernel's value by name, in the expectations' vocabulary (banner
 * "Expectations": every number of the JSON kernel entry under its JSON name,
 * derived and attributes keys, ncu metric names with their aliases such as
 * smsp__thread_inst_executed_per_inst_executed.ratio, launch__* values,
 * total_ns, kernel_time_share, duration_ns.median, ...).
 * Returns PERFCHECK_OK with *out set; PERFCHECK_ERROR_NOT_FOUND for an unknown
 * name or index; PERFCHECK_ERROR_NOT_MEASURED when the name is known but no
 * value was measured (*out is NaN then).
 * Thread-safe: a report is only read, by any number of threads at once (a
 * session's borrowed report only while no thread begins, ends or destroys that
 * session). */
PERFCHECK_API perfcheck_status perfcheck_report_kernel_value(const perfcheck_report *report, size_t index,
                                                             const char *name, double *out);

/* Writes the report to an open stream.  Returns PERFCHECK_OK,
 * PERFCHECK_ERROR_INVALID_ARGUMENT, or PERFCHECK_ERROR_IO on a write error.
 * Thread-safe (the report is only read); threads writing to one stream at once
 * interleave their output. */
PERFCHECK_API perfcheck_status perfcheck_report_write(const perfcheck_report *report,
                                                      perfcheck_format format, FILE *stream);

/* The report as perfcheck_report_write would write it, in memory (for
 * callers that have no FILE*, such as language bindings).  On success *out
 * is a new NUL-terminated string, owned by the caller (free it with
 * perfcheck_free), and *len (may be NULL) its length without the NUL; on
 * failure *out is NULL and *len 0.  Returns PERFCHECK_OK;
 * PERFCHECK_ERROR_INVALID_ARGUMENT (report or out NULL, unknown format);
 * PERFCHECK_ERROR_OUT_OF_MEMORY.  Thread-safe: reports are immutable (a
 * session's borrowed report until that session's next begin, end or
 * destroy). */
PERFCHECK_API perfcheck_status perfcheck_report_to_string(const perfcheck_report *report, perfcheck_format format,
                                                          char **out, size_t *len);

/* Writes `size` bytes at `data` to the file `path` the way every perfcheck
 * writer writes (the `perfcheck` command, PERFCHECK_OUTPUT, snapshots, the
 * ceilings cache, the Python package's Report.save):
 *   - "-" is stdout;
 *   - an existing `path` that is not a regular file (a device such as
 *     /dev/full, a FIFO, a socket, a folder) is refused and left alone;
 *   - the bytes go to a temporary file in the same folder (created with
 *     O_EXCL | O_NOFOLLOW), flushed and synced, then renamed over `path`: a
 *     reader sees the old file or the new one, never part of one; a symlink
 *     at `path` is replaced, never followed; on any failure (no such folder,
 *     disk full, a file size limit) `path` is as it was and nothing is left;
 *   - an existing file keeps its mode; a new one gets 0666 less the umask
 *     (0600 in a setuid, setgid or file-capability process).
 * A report: perfcheck_report_to_string, then this.  Returns PERFCHECK_OK;
 * PERFCHECK_ERROR_INVALID_ARGUMENT (path NULL or empty, data NULL with size
 * > 0); PERFCHECK_ERROR_IO (the detail, naming the path and why, in
 * perfcheck_last_error_message).  Thread-safe (the file system decides
 * between two threads writing one path: one of the two files wins whole). */
PERFCHECK_API perfcheck_status perfcheck_file_write(const char *path, const void *data, size_t size);

/* Frees memory that a perfcheck function handed to the caller
 * (perfcheck_report_to_string's string).  NULL is a no-op. */
PERFCHECK_API void perfcheck_free(void *memory);

/* Reads an `ncu --csv --page raw` export and diagnoses every launch in it;
 * no GPU is needed.  `path` is a file, a pipe, or "-" for stdin; gzip is
 * recognised by its content (not its name) and decompressed as it is read
 * (zlib), so a committed `.csv.gz` is read as it is.  The file (or pipe) is streamed: memory holds one chunk,
 * one row and the distinct launch signatures (plus 8 bytes per launch for
 * the median durations), never the whole export, and there is no size
 * limit.  On success *out owns a new report (free it with
 * perfcheck_report_destroy).  Unusable values become NaN with a warning in the
 * report (and on stderr only when PERFCHECK_VERBOSE=1 and not `quiet`: the
 * library writes nothing to stderr otherwise): a ',' that is not a thousands
 * separator between groups of three ("96,384000"), an exponent outside the
 * range of a double ("1e-400"), "n/a", NaN.  A damaged export (a row with
 * the wrong number of fields, the last row cut short when ncu was stopped)
 * keeps every complete row: PERFCHECK_OK with one warning naming the first
 * bad line and how many rows were dropped, when at least one launch is
 * usable.  Returns PERFCHECK_OK,
 * PERFCHECK_ERROR_INVALID_ARGUMENT, PERFCHECK_ERROR_IO (cannot open/read),
 * PERFCHECK_ERROR_PARSE (not an ncu raw export; perfcheck_last_error_message()
 * names the file and line), PERFCHECK_ERROR_OUT_OF_MEMORY.
 * Thread-safe. */
PERFCHECK_API perfcheck_status perfcheck_report_from_ncu_csv(const char *path, int quiet,
                                                             perfcheck_report **out);

/* Reads a perfcheck JSON report (schema "perfcheck-report/1", as
 * perfcheck_report_write(..., PERFCHECK_FORMAT_JSON, ...) writes it) back
 * into a report (`path` a file or "-" for stdin, plain or gzip): device, regions, kernels with their metrics by name,
 * attributes, derived values and diagnosis, exactly as written (the
 * checklist is not run again; null stays "not measured").  Fields it does
 * not know are ignored, so newer writers stay readable.  The file (or pipe)
 * is streamed: the report object member by member, its kernels, regions and
 * warnings element by element, so memory holds one chunk, the largest
 * element and the report built (less than the file for what the writer
 * writes), and there is no size limit.  A value outside its invariants is
 * refused (docs/report-contract.md: times, counts and shares below 0, a
 * median outside [min, max], more profiled launches than launches).  On
 * success *out owns a new report (free it with perfcheck_report_destroy).
 * `quiet`: nonzero, no warnings on stderr even with
 * PERFCHECK_VERBOSE=1.  Returns PERFCHECK_OK,
 * PERFCHECK_ERROR_INVALID_ARGUMENT, PERFCHECK_ERROR_IO (cannot open/read),
 * PERFCHECK_ERROR_PARSE (not JSON, nested deeper than 64, a number outside
 * the range of a double such as 1e999 or 1e-400, a value outside its
 * invariants, or not a perfcheck report; perfcheck_last_error_message() says
 * "FILE:LINE:COLUMN: what", with the path to the field),
 * PERFCHECK_ERROR_OUT_OF_MEMORY.  Thread-safe. */
PERFCHECK_API perfcheck_status perfcheck_report_from_json(const char *path, int quiet, perfcheck_report **out);

/* Reads whatever perfcheck reads, told by its content, not its name: a
 * perfcheck JSON report (as perfcheck_report_from_json), an `ncu --csv
 * --page raw` export (as perfcheck_report_from_ncu_csv, diagnosed), or an
 * nsys stats CSV (as perfcheck_report_from_nsys_csv with no wall clock);
 * each plain or gzip, from a file, a pipe or "-" (stdin).  Returns as those
 * functions; a file of none of these kinds is PERFCHECK_ERROR_PARSE, and
 * perfcheck_last_error_message() names the file and the formats expected
 * (or what it is: "an Nsight Compute report (.ncu-rep), not a CSV export:
 * export it with ncu --import ...").  Thread-safe. */
PERFCHECK_API perfcheck_status perfcheck_report_read(const char *path, int quiet, perfcheck_report **out);

/* A new report with only the kernel entries that `kernels` selects, in
 * ncu's -k vocabulary (as perfcheck_options.kernel_regex's PERFCHECK_KERNELS):
 * a function name, matched exactly (no namespace, template arguments or
 * parameters: "gemm" selects ns::gemm<128>(...), not gemm2), or regex:EXPR,
 * a POSIX extended regex searched in the name.  The rest of the report
 * (device, regions, warnings; each kept entry's numbers, share and verdict)
 * is copied unchanged.  On success *out owns the new report.  Returns
 * PERFCHECK_OK; PERFCHECK_ERROR_INVALID_ARGUMENT (NULL, a bad filter: the
 * message names the rule); PERFCHECK_ERROR_NOT_FOUND (no entry matches: the
 * message lists the report's kernels); PERFCHECK_ERROR_OUT_OF_MEMORY.
 * Thread-safe (the report is only read). */
PERFCHECK_API perfcheck_status perfcheck_report_select(const perfcheck_report *report, const char *kernels,
                                                       perfcheck_report **out);

/* Step 1 of a run from Nsight Systems' summaries: reads the CSV of `nsys
 * stats --report cuda_gpu_kern_sum [--report cuda_gpu_mem_time_sum]
 * --format csv` (NVIDIA's documented columns: "Time (%)", "Total Time
 * (ns)", "Instances" or "Count", "Avg", "Med", "Min", "Max", "StdDev",
 * "Name" or "Operation"; any time unit), from 1 to 16 inputs (each a file,
 * a pipe or "-", plain or gzip, holding one table or both, with nsys's own
 * lines around them).  The report has one region, "run": its kernel time is
 * the kernels' summed total (a sum over streams, not their union: a warning
 * says when it exceeds the wall clock), its copies and memsets from
 * cuda_gpu_mem_time_sum, and `wall_ns` (> 0; NaN or 0: unknown, and step 1
 * of the run is not assessed) as its wall clock.  One entry per kernel name
 * with its launches, total, median, min and max; no counters (steps 2 to 5
 * not assessed, not_measured_reason says how to measure them); the
 * checklist's step 1 then judges the run and each kernel's share.  Returns
 * PERFCHECK_OK; PERFCHECK_ERROR_INVALID_ARGUMENT; PERFCHECK_ERROR_IO;
 * PERFCHECK_ERROR_PARSE (an input without either table, or no kernel table
 * at all: the message names it and the header expected);
 * PERFCHECK_ERROR_OUT_OF_MEMORY.  Thread-safe. */
PERFCHECK_API perfcheck_status perfcheck_report_from_nsys_csv(const char *const *paths, size_t n, double wall_ns,
                                                              int quiet, perfcheck_report **out);

/* In-process verdicts again, on any machine: a report from region snapshots
 * that a session recorded under PERFCHECK_SNAPSHOT_DIR (schema
 * "perfcheck-snapshot/1").  `path` is one snapshot file, or a folder whose
 * *.json files are all snapshots (read in name order; other files are
 * skipped).  Each snapshot goes through the builder a session uses, then
 * the checklist walks every kernel with this library's rules: the verdicts
 * are those this build would have given in process.  Returns PERFCHECK_OK;
 * PERFCHECK_ERROR_INVALID_ARGUMENT; PERFCHECK_ERROR_IO (a path that cannot
 * be read); PERFCHECK_ERROR_PARSE (a file that is not a snapshot, or a
 * folder with none: the message names the file); PERFCHECK_ERROR_OUT_OF_MEMORY.
 * Thread-safe. */
PERFCHECK_API perfcheck_status perfcheck_report_from_snapshots(const char *path, int quiet, perfcheck_report **out);

/* The same from memory: `text` holds `len` bytes of a JSON report (no NUL
 * needed; it is only read), `name` is what messages call it (a file name;
 * NULL: "<json>").  Returns as perfcheck_report_from_json, without
 * PERFCHECK_ERROR_IO.  Thread-safe. */
PERFCHECK_API perfcheck_status perfcheck_report_from_json_text(const char *text, size_t len, const char *name,
                                                               int quiet, perfcheck_report **out);

/* Combines the reports of several processes (MPI ranks, forks, each written
 * through PERFCHECK_OUTPUT's %p / %q{VAR}) into one new report, then walks
 * the checklist again over it:
 *   device    the first report's; a report whose device or ceilings differ
 *             gives a warning.  Likewise source, metric set and passes.
 *   regions   every report's, appended in order, names unchanged (so a name
 *             can appear once per process), each keeping its rank (the
 *             report's rank when the region has none).  A kernel's step 1 is
 *             judged against the first region of its name, i.e. the first
 *             report's that has it.
 *   ranks     the merged report's world_size is the largest of the inputs'
 *             (a warning when they disagree), its rank null unless every
 *             input has the same one; each rank of
 *             0..world_size-1 that no input holds is named in a warning, and
 *             so is a rank given twice or a report without a rank.
 *   kernels   entries with the same signature (name, and mangled name when
 *             both know it; grid; block; dynamic shared memory), the same
 *             device model (the report's device name) and the same
 *             region name are merged across reports (the k-th such entry of
 *             one report with the k-th of another, when a region ran more
 *             than once): launches and profiled_launches are summed,
 *             duration min is the least min and max the greatest max.  A
 *             median cannot be recomputed from medians, so when the timed
 *             launches of an entry come from more than one report its median
 *             is NaN (null) and one warning lists such entries.  Counters,
 *             attributes and passes are those of the first report that
 *             profiled the signature (as a session keeps the first profiled
 *             launch), or of the first report when none did.
 *   warnings  every report's, in order, then the merge's own.
 * The warnings are kept in the report, not printed.  Merging one report
 * gives a copy of it, diagnosed again.  The inputs are only read (a report
 * borrowed from a session may be passed).  On success *out owns the new
 * report (free it with perfcheck_report_destroy).  Returns PERFCHECK_OK;
 * PERFCHECK_ERROR_INVALID_ARGUMENT (out or reports NULL, n 0, or a NULL
 * report); PERFCHECK_ERROR_OUT_OF_MEMORY.  Thread-safe. */
PERFCHECK_API perfcheck_status perfcheck_report_merge(const perfcheck_report *const *reports, size_t n,
                                                      perfcheck_report **out);

/* perfcheck_report_merge of the perfcheck JSON reports in the files
 * paths[0..n), read and folded in one at a time: memory holds the largest
 * input and the merged report, never every input (`perfcheck merge` uses
 * it).  Each file is read as perfcheck_report_from_json reads it (streamed,
 * no size limit); `quiet` as there.  Returns PERFCHECK_OK with *out owned
 * by the caller; PERFCHECK_ERROR_INVALID_ARGUMENT (out or paths NULL, n 0,
 * a NULL path); a file's PERFCHECK_ERROR_IO or PERFCHECK_ERROR_PARSE (the
 * detail names the file, line and column); PERFCHECK_ERROR_OUT_OF_MEMORY.
 * Thread-safe. */
PERFCHECK_API perfcheck_status perfcheck_report_merge_files(const char *const *paths, size_t n, int quiet,
                                                            perfcheck_report **out);

/* Frees a report obtained from perfcheck_report_from_ncu_csv (or another
 * function that says it transfers ownership).  NULL is a no-op.  Never pass a
 * report borrowed from a session.
 * Not while another thread still reads the report. */
PERFCHECK_API void perfcheck_report_destroy(perfcheck_report *report);

/* ==== Comparing two reports (perfcheck diff) ============================= */

/* A comparison of two reports: what got slower, which verdicts changed,
 * which metrics moved beyond their tolerance, which kernels appeared or
 * disappeared.  Opaque and immutable once made; any number of threads may
 * read it.
 *
 * Kernel entries pair by display name and launch signature (grid, block,
 * dynamic shared memory), in the same region first.  Tolerances are the
 * expectations' (banner "Expectations"): durations 10%, throughputs and
 * rates 5%; counts and ratios, exact in an expectation, get 1% between two
 * runs (an H200 repeated store sector counts only to 0.22%).  A kernel is
 * slower only when its
 * median duration grew beyond the band AND the after run's fastest launch
 * is slower than the before run's median (one slow launch is noise); faster
 * the other way round.  A verdict is worse when an earlier checklist step
 * now catches the kernel, when a problem appears where there was none, or
 * when another problem takes the same step.  Sectors per request, local
 * sectors, bank conflict and atomic shares getting higher, and threads per
 * instruction or occupancy getting lower, are worse; other values that
 * moved are listed.  A region whose wall clock grew beyond the band, or
 * whose step-1 verdict got worse, is worse.  Kernels that appear or
 * disappear are listed, not counted as worse.  docs/report-contract.md has
 * the JSON form ("perfcheck-diff/1"). */
typedef struct perfcheck_diff perfcheck_diff;

/* Compares `before` with `after` (both only read; they may be freed once
 * this returns).  The names say what the two are in the output ("base.json";
 * NULL gives "before" and "after"); they are copied.  On success *out owns
 * the diff (free it with perfcheck_diff_destroy).  Returns PERFCHECK_OK;
 * PERFCHECK_ERROR_INVALID_ARGUMENT (a NULL report or out);
 * PERFCHECK_ERROR_OUT_OF_MEMORY. */
PERFCHECK_API perfcheck_status perfcheck_diff_create(const perfcheck_report *before, const perfcheck_report *after,
                                                     const char *before_name, const char *after_name,
                                                     perfcheck_diff **out);

/* How many kernel entries and regions got worse beyond tolerance: 0 means
 * nothing did (what `perfcheck diff` exits 0 on).  0 for NULL. */
PERFCHECK_API size_t perfcheck_diff_worse_count(const perfcheck_diff *diff);

/* Writes the diff: PERFCHECK_FORMAT_TEXT (what got worse first),
 * PERFCHECK_FORMAT_JSON (schema "perfcheck-diff/1") or PERFCHECK_FORMAT_HTML
 * (one self-contained page with the roofline's moves).  Returns
 * PERFCHECK_OK; PERFCHECK_ERROR_INVALID_ARGUMENT (NULL, or another format);
 * PERFCHECK_ERROR_IO on a write error. */
PERFCHECK_API perfcheck_status perfcheck_diff_write(const perfcheck_diff *diff, perfcheck_format format,
                                                    FILE *stream);

/* Frees a diff.  NULL is a no-op. */
PERFCHECK_API void perfcheck_diff_destroy(perfcheck_diff *diff);

/* ==== Metric sets ======================================================== */

/* The ncu metric names of a set ("default", "sol", "full", or ncu's "basic"
 * or "detailed"; "detailed" is "sol"), comma-separated,
 * ready for `ncu --metrics`; static text, NULL for an unknown set.
 * Thread-safe (static text). */
PERFCHECK_API const char *perfcheck_metric_list(const char *set);

/* How many replay passes CUPTI needs to collect `metrics` (a set name or a
 * list, as perfcheck_options.metrics) on the chip `chip` as CUPTI spells it
 * ("GH100", "AD102"); chip NULL means the current process's device 0, which
 * needs a driver.  Uses CUPTI's host API: no GPU is needed with a chip name.
 * Metrics of perfcheck's own table that the chip lacks (TMA and GMMA
 * counters before Hopper, say) are left out of the count, as a session
 * leaves them out of its collection (its report names them).
 * Returns PERFCHECK_OK with *passes set; PERFCHECK_ERROR_INVALID_ARGUMENT (bad
 * list); PERFCHECK_ERROR_NOT_FOUND (a metric the caller added by name that is
 * unknown on that chip; the message names it; *passes counts the rest);
 * PERFCHECK_ERROR_UNSUPPORTED (unknown chip);
 * PERFCHECK_ERROR_CUPTI_UNAVAILABLE; PERFCHECK_ERROR_NO_DRIVER /
 * PERFCHECK_ERROR_NO_DEVICE (chip NULL without a GPU).
 * Thread-safe: CUPTI's host API keeps process-wide state, so perfcheck
 * serialises its host-API calls (these and a session's metric configuration)
 * behind one lock; calls from several threads take turns. */
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
 * opened); PERFCHECK_ERROR_OUT_OF_MEMORY.
 * Thread-safe (takes the session's lock). */
PERFCHECK_API perfcheck_status perfcheck_session_begin(perfcheck_session *session, const char *region);

/* Closes the innermost open region: waits for its GPU work, collects its
 * timing and counters and diagnoses its kernels.  Returns PERFCHECK_OK;
 * PERFCHECK_ERROR_INVALID_ARGUMENT; PERFCHECK_ERROR_NO_REGION (end without
 * begin); PERFCHECK_ERROR_KERNEL_FAULT (a kernel faulted: the region is closed
 * with what was collected, and the session goes inert);
 * PERFCHECK_ERROR_INERT.
 * Thread-safe (takes the session's lock); kernels of every thread belong to the
 * region it ends. */
PERFCHECK_API perfcheck_status perfcheck_session_end(perfcheck_session *session);

/* The session's report so far (every region ended so far).  The report is
 * borrowed: valid until the next begin, end or destroy on this session; do not
 * destroy it.  Returns PERFCHECK_OK or PERFCHECK_ERROR_INVALID_ARGUMENT.
 * Thread-safe (takes the session's lock); the report it gives is valid only
 * until another thread begins, ends or destroys the session. */
PERFCHECK_API perfcheck_status perfcheck_session_report(perfcheck_session *session,
                                                        const perfcheck_report **out);

/* Detail of the session's last failure or note, "" if none.
 * Thread-safe: the text is copied under the session's lock into a buffer of
 * the calling thread, valid until that thread calls
 * perfcheck_session_message again (other threads' calls do not touch it). */
PERFCHECK_API const char *perfcheck_session_message(const perfcheck_session *session);

/* Detaches from CUDA and frees the session.  Regions still open are closed
 * first; when options->output was set, the report (those regions included)
 * is written there, else it is gone with the session: read it before.  NULL
 * is a no-op.
 * Not while another thread still uses the session or its report. */
PERFCHECK_API void perfcheck_session_destroy(perfcheck_session *session);

/* ==== Ceilings =========================================================== */

/* Measures what device `device` (a CUDA ordinal) really reaches, for step
 * 2's roofline: DRAM bandwidth with a device-to-device copy of 1 GiB (bytes
 * read + written per second) and FP32 throughput with an FMA kernel (FLOP per
 * second, an FMA counting 2); each the median of 7 timed runs after warm-up.
 * Takes about a second; run it on an idle GPU, outside any session.  The
 * result is written as a ceilings file to `cache_path`, or, when cache_path
 * is NULL, to the device's cache file ($XDG_CACHE_HOME/perfcheck/ or
 * ~/.cache/perfcheck/, one file per device name and PCI location), which
 * every session created afterwards loads in place of the clock-based peaks
 * (the report's device says ceilings_source "measured").  The out pointers
 * may be NULL; on failure they are NaN.
 * Returns PERFCHECK_OK; PERFCHECK_ERROR_INVALID_ARGUMENT (no such device);
 * PERFCHECK_ERROR_NO_DRIVER, PERFCHECK_ERROR_NO_DEVICE,
 * PERFCHECK_ERROR_DRIVER_TOO_OLD; PERFCHECK_ERROR_OUT_OF_MEMORY (device
 * memory); PERFCHECK_ERROR_UNSUPPORTED (the benchmark could not be loaded or
 * launched); PERFCHECK_ERROR_KERNEL_FAULT; PERFCHECK_ERROR_IO (the file);
 * perfcheck_last_error_message() names the failing call.  Needs no CUPTI, so
 * it also works under another profiler.  Thread-safe, but do not run it
 * while another thread's kernels are being timed or profiled. */
PERFCHECK_API perfcheck_status perfcheck_measure_ceilings(int device, const char *cache_path,
                                                          double *dram_bytes_per_s, double *fp32_flop_per_s);

/* ==== Expectations ======================================================= */

/* Performance assertions for test suites and CI scripts: "mysteryA must stay
 * at 4 sectors per request".  Counters count what the hardware did, so they
 * make steady tests where wall-clock thresholds make flaky ones.
 *
 * An expectation names a kernel, a quantity, a comparison and a value:
 *   kernel    the name as the report spells it ("mysteryA", "scaleAdd<4>",
 *             "ns::k"); every entry of that name is checked (one entry per
 *             launch signature); or "regex:PATTERN", a POSIX extended
 *             regular expression searched in the name (anchor it with ^ and
 *             $), and every entry it matches is checked (a CUDA graph's
 *             entry, "graph 3 (2 kernels: a, b)", is seen by a regex as
 *             "graph 3", so that a pattern for kernel names never catches
 *             it; its exact name is matched whole).  PATTERN goes
 *             through the regex guard: at most 512 characters, counts up to
 *             255, counted repetition nested at most 2 deep, at most 512
 *             atoms once repetitions are written out, no back-references,
 *             no stacked operators; a refusal names the rule.
 *   quantity  any name perfcheck_report_kernel_value accepts (an ncu metric
 *             of the contract, a launch__* value, a derived name such as
 *             sectors_per_request_ld, threads_per_instruction,
 *             achieved_occupancy_pct, theoretical_occupancy_pct), `step`
 *             (the verdict's step, 0..5), or the words `cause` (a cause word
 *             of perfcheck_cause_name) and `bound` (memory, compute, latency,
 *             unknown), which take == and != only.
 *
 * Spec strings:   KERNEL ":" QUANTITY OP VALUE [ "+-" N "%" ]
 *   "mysteryA:sectors_per_request_ld<=4.5"
 *   "mysteryB:cause!=divergent_warps"
 *   "regex:^mystery[BC]$:threads_per_instruction>=24"
 *   "mysteryC:gpu__time_duration.sum within 10% of 1.2e6"
 *   "mysteryC:gpu__time_duration.sum <= 1.2e6 +-0%"    (exact: no band)
 * OP is <, <=, ==, !=, >=, >, "within N% of" or "within" (the quantity's
 * default band, below).  KERNEL runs to the last ':' of the spec, so names
 * with "::" need no quoting.  Spaces around OP, VALUE and the tolerance are
 * allowed.  A malformed spec is refused with the column of the first wrong
 * character; so is a number outside the range of a double (1e999, 1e-400:
 * never read as infinity or 0).
 *
 * Tolerance policy, so that nobody writes a flaky test by accident:
 *   exact      counts, ratios (sectors per request, threads per
 *              instruction), launch__* values, registers, theoretical
 *              occupancy, step, cause, bound.  "Exact" forgives a relative
 *              1e-9, so a value that went through text compares equal.
 *   10% band   durations: gpu__time_duration.sum, duration_ns_*, any *_ns.
 *   5% band    throughput percentages and rates: *throughput*, *pct_of_peak*,
 *              achieved occupancy (sm__warps_active..., achieved_occupancy_pct),
 *              issue activity, DRAM bytes and everything computed from them
 *              (dram_gbps, arithmetic_intensity), gflops, memory_pct,
 *              compute_pct.
 * The band is relative to VALUE and is applied, not merely warned about: a
 * warning in a passing test is never read, and the run that then fails is
 * the one on a busier machine.  It widens the bound in the lenient
 * direction: "gpu__time_duration.sum<=1e6" holds up to 1.1e6, a throughput
 * ">=80" holds down to 76, == holds inside the band and != outside it.
 * Every message of a banded check names the band and the effective bound;
 * "+-N%" after the value (or perfcheck_expectation.tolerance_pct) sets
 * another band, "+-0%" none.
 *
 * Never a silent pass: a kernel that is not in the report, a quantity that
 * was not measured (NaN), and a cause or bound expectation on a kernel whose
 * verdict is not_assessed / unknown are failures, each with its own message.
 *
 * One vocabulary: a quantity is any number of the JSON report's kernel
 * entry under its JSON name: each key of `derived` (bytes_per_sector_ld,
 * sectors_per_request_ld, threads_per_instruction, ...) and of
 * `attributes`, each metric of `metrics` by its ncu name, total_ns,
 * kernel_time_share, launches, duration_ns.min/.median/.max,
 * busiest_pipe.pct, busiest_memory.pct, the launch__ values, step; a block's
 * path may be written too ("derived.bytes_per_sector_ld",
 * "metrics.dram__bytes_read.sum").  The words: cause and bound, with the
 * cause words the report writes.  The JSON writer and this lookup read the
 * same tables, so a field the report gains is a quantity at once.  A
 * misspelt quantity is a mistake in the expectation, never a failed check:
 * a name that is no quantity of any report is refused when the expectation
 * is added (PERFCHECK_ERROR_PARSE, the message names at most three nearest
 * quantities); an ncu metric's name (it has a "__") that no kernel of the
 * report holds gives results with status PERFCHECK_ERROR_INVALID_ARGUMENT
 * (with the same suggestions).  `perfcheck check` exits 2 on either; the
 * Python package raises ValueError.
 *
 * Thread-safety: a set is used by one thread at a time (checking stores its
 * results in the set); different sets are independent.  perfcheck_expect is
 * safe from any thread. */

typedef struct perfcheck_expectations perfcheck_expectations; /* opaque */

/* The comparison of an expectation.  Append only. */
typedef enum perfcheck_comparison {
  PERFCHECK_CMP_LT = 0,    /* <  */
  PERFCHECK_CMP_LE = 1,    /* <= */
  PERFCHECK_CMP_EQ = 2,    /* == */
  PERFCHECK_CMP_NE = 3,    /* != */
  PERFCHECK_CMP_GE = 4,    /* >= */
  PERFCHECK_CMP_GT = 5,    /* >  */
  PERFCHECK_CMP_WITHIN = 6 /* within tolerance_pct % of value */
} perfcheck_comparison;

/* An expectation from parts (perfcheck_expectations_add_parts).  The strings
 * are copied. */
typedef struct perfcheck_expectation {
  size_t size;                     /* sizeof(perfcheck_expectation); set by _init */
  const char *kernel;              /* a kernel name, or a POSIX ERE when kernel_is_regex */
  int kernel_is_regex;
  const char *quantity;            /* as in the spec strings */
  perfcheck_comparison comparison;
  double value;                    /* the number (ignored when word is set) */
  const char *word;                /* the word for cause / bound; NULL for numbers */
  /* Percent.  NaN (the _init default): the policy's band for the quantity;
   * 0: exact; for PERFCHECK_CMP_WITHIN the N of "within N% of". */
  double tolerance_pct;
} perfcheck_expectation;

/* One check of one expectation against one kernel entry (or against none,
 * when no kernel matched).  Strings are owned by the set, valid until its
 * next add, check or destroy. */
typedef struct perfcheck_expectation_result {
  size_t size;                     /* sizeof(perfcheck_expectation_result); caller sets */
  const char *spec;                /* the expectation as written (or built from parts) */
  const char *kernel;              /* the entry checked: its name, plus its launch
                                      signature when several entries share the name,
                                      plus " in region R" when in a region; the
                                      kernel part of the spec when none matched */
  const char *quantity;
  /* PERFCHECK_OK: holds.  PERFCHECK_ERROR_EXPECTATION_FAILED: measured and
   * outside the bound.  PERFCHECK_ERROR_NOT_FOUND: no such kernel, or the
   * kernel lacks a metric other kernels of the report have.
   * PERFCHECK_ERROR_INVALID_ARGUMENT: no kernel of the report has the
   * quantity (a typo; the message names the nearest quantities).
   * PERFCHECK_ERROR_NOT_MEASURED: the quantity (or the verdict) was not
   * measured. */
  perfcheck_status status;
  double measured;                 /* NaN when not measured, and for words */
  const char *measured_word;       /* cause / bound words; NULL for numbers */
  const char *expected;            /* "<= 4.5", "within 10% of 1200000" */
  /* One line: kernel, quantity, measured value, expected bound (and band),
   * and the verdict's step, cause and advice for that kernel. */
  const char *message;
  const char *advice;              /* the kernel's verdict advice; "" when none */
} perfcheck_expectation_result;

/* Fills *e with the defaults (comparison <=, tolerance NaN) and sets e->size.
 * NULL is ignored.
 * Thread-safe (it writes *e only). */
PERFCHECK_API void perfcheck_expectation_init(perfcheck_expectation *e);

/* Creates an empty set.  Returns PERFCHECK_OK (*out owns the set),
 * PERFCHECK_ERROR_INVALID_ARGUMENT (out NULL) or
 * PERFCHECK_ERROR_OUT_OF_MEMORY.
 * Thread-safe. */
PERFCHECK_API perfcheck_status perfcheck_expectations_create(perfcheck_expectations **out);

/* Frees a set and its results.  NULL is a no-op.
 * Not thread-safe on one set: a set is used by one thread at a time (different
 * sets are independent). */
PERFCHECK_API void perfcheck_expectations_destroy(perfcheck_expectations *set);

/* Adds an expectation from a spec string (copied).  Returns PERFCHECK_OK;
 * PERFCHECK_ERROR_INVALID_ARGUMENT (NULL); PERFCHECK_ERROR_PARSE (malformed:
 * perfcheck_last_error_message() says `expectation "SPEC": column N: what`;
 * nothing is added); PERFCHECK_ERROR_OUT_OF_MEMORY.
 * Not thread-safe on one set: a set is used by one thread at a time (different
 * sets are independent). */
PERFCHECK_API perfcheck_status perfcheck_expectations_add(perfcheck_expectations *set, const char *spec);

/* Adds an expectation from parts (copied).  Returns PERFCHECK_OK;
 * PERFCHECK_ERROR_INVALID_ARGUMENT (NULL, e->size too small, empty kernel or
 * quantity, unknown comparison, non-finite value or negative tolerance, a
 * word for a number or a number for cause/bound, an unknown word, an order
 * comparison on a word, a bad regex; the message says which);
 * PERFCHECK_ERROR_OUT_OF_MEMORY.
 * Not thread-safe on one set: a set is used by one thread at a time (different
 * sets are independent). */
PERFCHECK_API perfcheck_status perfcheck_expectations_add_parts(perfcheck_expectations *set,
                                                                const perfcheck_expectation *e);

/* Number of expectations in the set; 0 for NULL.
 * Not thread-safe on one set: a set is used by one thread at a time (different
 * sets are independent). */
PERFCHECK_API size_t perfcheck_expectations_count(const perfcheck_expectations *set);

/* Checks every expectation against `report` (borrowed for the call only):
 * one result per expectation and matching kernel entry, one failed result
 * for an expectation that matches no kernel.  The results replace those of
 * the previous check.  *failures (may be NULL) is the number of failed
 * results; on an error it is at least 1, so that a caller who reads only the
 * count never passes by accident.  Returns PERFCHECK_OK (all hold),
 * PERFCHECK_ERROR_EXPECTATION_FAILED (some failed),
 * PERFCHECK_ERROR_INVALID_ARGUMENT (set or report NULL),
 * PERFCHECK_ERROR_OUT_OF_MEMORY.
 * Not thread-safe on one set: a set is used by one thread at a time (different
 * sets are independent). The report is only read. */
PERFCHECK_API perfcheck_status perfcheck_expectations_check(perfcheck_expectations *set,
                                                            const perfcheck_report *report, size_t *failures);

/* Results of the last check: their number (0 for NULL or before a check),
 * and result `index` copied into *out (up to out->size bytes).  Returns
 * PERFCHECK_OK, PERFCHECK_ERROR_INVALID_ARGUMENT (NULL, out->size too small)
 * or PERFCHECK_ERROR_NOT_FOUND (index out of range).
 * Not thread-safe on one set: a set is used by one thread at a time (different
 * sets are independent). */
PERFCHECK_API size_t perfcheck_expectations_result_count(const perfcheck_expectations *set);
PERFCHECK_API perfcheck_status perfcheck_expectations_result(const perfcheck_expectations *set, size_t index,
                                                             perfcheck_expectation_result *out);

/* The messages of the last check's failures, one a line (no final newline);
 * "" when none failed or for NULL.  Owned by the set, valid until its next
 * add, check or destroy.
 * Not thread-safe on one set: a set is used by one thread at a time (different
 * sets are independent). */
PERFCHECK_API const char *perfcheck_expectations_failures_text(const perfcheck_expectations *set);

/* Writes the last check as a JUnit XML document: one <testcase> per result
 * (classname `suite`, name "KERNEL: QUANTITY EXPECTED"), a <failure> with
 * the message for each failed one.  Every string is escaped, and characters
 * that XML 1.0 cannot hold (control characters, bytes that are not UTF-8)
 * are replaced by U+FFFD.  suite NULL means "perfcheck".  Returns
 * PERFCHECK_OK, PERFCHECK_ERROR_INVALID_ARGUMENT or PERFCHECK_ERROR_IO.
 * Not thread-safe on one set: a set is used by one thread at a time (different
 * sets are independent). */
PERFCHECK_API perfcheck_status perfcheck_expectations_write_junit(const perfcheck_expectations *set,
                                                                  const char *suite, FILE *stream);

/* Adds what `diff` judged (a comparison with a stored report, `perfcheck
 * check --baseline`) to the set's results, after those of the last check
 * (perfcheck_expectations_check starts them afresh; a set never checked
 * has none): one result per kernel entry and region of the diff, failed
 * (PERFCHECK_ERROR_EXPECTATION_FAILED) when it got worse beyond tolerance,
 * its message saying what (slower, a worse verdict, a checklist number the
 * wrong way), passed otherwise (an entry only one report holds passes: it
 * is not worse by itself).  Their spec is "baseline BEFORE" (the before
 * report's name given to perfcheck_diff_create), their quantity "baseline";
 * the JUnit failure type "worse_than_baseline".  _result_count, _result,
 * _failures_text and _write_junit then count and write them with the
 * expectations' own, so that a CI file and an exit status agree.
 * *failures (may be NULL) is the set's failed results in all, at least 1 on
 * an error.  Returns PERFCHECK_OK (no result failed),
 * PERFCHECK_ERROR_EXPECTATION_FAILED (some did, these or earlier ones),
 * PERFCHECK_ERROR_INVALID_ARGUMENT (NULL), PERFCHECK_ERROR_OUT_OF_MEMORY.
 * Not thread-safe on one set; the diff is only read. */
PERFCHECK_API perfcheck_status perfcheck_expectations_add_diff(perfcheck_expectations *set, const perfcheck_diff *diff,
                                                               size_t *failures);

/* Adds one result judged outside the set (a program's exit status, a check
 * of the caller's own) to its results, as perfcheck_expectations_add_diff
 * does: `name` is its JUnit testcase name (spec and kernel of the result),
 * `passed` nonzero for a pass, `message` its line (NULL: the name).  Its
 * quantity and expected are "", its JUnit failure type "failed".  *failures, the
 * return value and thread-safety as perfcheck_expectations_add_diff
 * (PERFCHECK_ERROR_INVALID_ARGUMENT also for a NULL or empty name). */
PERFCHECK_API perfcheck_status perfcheck_expectations_add_result(perfcheck_expectations *set, const char *name,
                                                                 int passed, const char *message, size_t *failures);

/* One expectation, checked at once: parses `spec`, checks it against
 * `report` and returns the number of failures (a malformed spec, a NULL
 * argument or no memory count as one).  When `stream` is not NULL each
 * failure is also written to it as "perfcheck: expectation failed: MESSAGE"
 * lines.  The failure messages stay readable through
 * perfcheck_expect_message().  This is what perfcheck_test.h's macros call.
 * Thread-safe. */
PERFCHECK_API size_t perfcheck_expect(const perfcheck_report *report, const char *spec, FILE *stream);

/* The failure messages of this thread's last perfcheck_expect, one a line
 * ("" when it passed): the thread's last error, as
 * perfcheck_last_error_message() returns it (a call that passes clears it),
 * valid until the next failing call on this thread; a text longer than
 * 1 KiB is cut with "...".  Thread-safe (the text is this thread's own). */
PERFCHECK_API const char *perfcheck_expect_message(void);

/* Session conveniences.  perfcheck_session_expect records an expectation on
 * the session (the spec is parsed now: PERFCHECK_ERROR_PARSE as
 * perfcheck_expectations_add; PERFCHECK_ERROR_INVALID_ARGUMENT for NULL;
 * PERFCHECK_ERROR_OUT_OF_MEMORY).  perfcheck_session_check checks every
 * recorded expectation against the session's report so far (call it after
 * perfcheck_session_end) and returns as perfcheck_expectations_check.
 * Expectations stay recorded: check again after later regions.
 * perfcheck_session_expectations gives the session's set (borrowed, valid
 * until the session is destroyed; NULL before the first expect) for the
 * results, perfcheck_expectations_failures_text and
 * perfcheck_expectations_write_junit.  Thread-safe, but do not check while
 * another thread ends a region of the same session. */
PERFCHECK_API perfcheck_status perfcheck_session_expect(perfcheck_session *session, const char *spec);
PERFCHECK_API perfcheck_status perfcheck_session_check(perfcheck_session *session, size_t *failures);
PERFCHECK_API const perfcheck_expectations *perfcheck_session_expectations(const perfcheck_session *session);

/* ==== The compile-out stubs (PERFCHECK_DISABLE) ========================== */

#if defined(PERFCHECK_DISABLE)
#define PERFCHECK_UNUSED_(x) ((void)(x))
#define PERFCHECK_OFF_ "perfcheck is compiled out (PERFCHECK_DISABLE)"
PERFCHECK_API const char *perfcheck_strerror(perfcheck_status status) {
  switch (status) {
#define PERFCHECK_STATUS_CASE_(name, value, msg) \
  case PERFCHECK_##name:                         \
    return msg;
    PERFCHECK_STATUS_LIST(PERFCHECK_STATUS_CASE_)
#undef PERFCHECK_STATUS_CASE_
    default:
      return "unknown perfcheck status";
  }
}
PERFCHECK_API const char *perfcheck_last_error_message(void) { return PERFCHECK_OFF_; }
PERFCHECK_API const char *perfcheck_version_string(void) { return PERFCHECK_VERSION_STRING; }
PERFCHECK_API unsigned perfcheck_version_number(void) { return PERFCHECK_VERSION_NUMBER; }
PERFCHECK_API const char *perfcheck_cause_name(perfcheck_cause cause) {
  switch (cause) {
#define PERFCHECK_CAUSE_CASE_(name, value, word) \
  case PERFCHECK_CAUSE_##name:                   \
    return word;
    PERFCHECK_CAUSE_LIST(PERFCHECK_CAUSE_CASE_)
#undef PERFCHECK_CAUSE_CASE_
    default:
      return "unknown";
  }
}
PERFCHECK_API const char *perfcheck_bound_name(perfcheck_bound bound) {
  return bound == PERFCHECK_BOUND_MEMORY    ? "memory"
         : bound == PERFCHECK_BOUND_COMPUTE ? "compute"
         : bound == PERFCHECK_BOUND_LATENCY ? "latency"
                                            : "unknown";
}
PERFCHECK_API void perfcheck_options_init(perfcheck_options *options) {
  if (!options) return;
  perfcheck_options zero = {0, PERFCHECK_MODE_AUTO, NULL, NULL, 0, 0, 1, 0, 1, 0, NULL, PERFCHECK_FORMAT_TEXT};
  *options = zero;
  options->size = sizeof *options;
}
PERFCHECK_API perfcheck_status perfcheck_options_from_env(perfcheck_options *options, unsigned *bad_values) {
  perfcheck_options_init(options);
  if (bad_values) *bad_values = 0;
  return options ? PERFCHECK_OK : PERFCHECK_ERROR_INVALID_ARGUMENT;
}
PERFCHECK_API perfcheck_status perfcheck_options_check(const perfcheck_options *options) {
  PERFCHECK_UNUSED_(options);
  return PERFCHECK_ERROR_UNSUPPORTED;
}
PERFCHECK_API size_t perfcheck_report_kernel_count(const perfcheck_report *report) {
  PERFCHECK_UNUSED_(report);
  return 0;
}
PERFCHECK_API size_t perfcheck_report_region_count(const perfcheck_report *report) {
  PERFCHECK_UNUSED_(report);
  return 0;
}
PERFCHECK_API perfcheck_status perfcheck_report_kernel(const perfcheck_report *report, size_t index,
                                                       perfcheck_kernel_info *out) {
  PERFCHECK_UNUSED_(report), PERFCHECK_UNUSED_(index), PERFCHECK_UNUSED_(out);
  return PERFCHECK_ERROR_UNSUPPORTED;
}
PERFCHECK_API perfcheck_status perfcheck_report_region(const perfcheck_report *report, size_t index,
                                                       perfcheck_region_info *out) {
  PERFCHECK_UNUSED_(report), PERFCHECK_UNUSED_(index), PERFCHECK_UNUSED_(out);
  return PERFCHECK_ERROR_UNSUPPORTED;
}
PERFCHECK_API perfcheck_status perfcheck_report_kernel_value(const perfcheck_report *report, size_t index,
                                                             const char *name, double *out) {
  PERFCHECK_UNUSED_(report), PERFCHECK_UNUSED_(index), PERFCHECK_UNUSED_(name), PERFCHECK_UNUSED_(out);
  return PERFCHECK_ERROR_UNSUPPORTED;
}
PERFCHECK_API perfcheck_status perfcheck_report_write(const perfcheck_report *report, perfcheck_format format,
                                                      FILE *stream) {
  PERFCHECK_UNUSED_(report), PERFCHECK_UNUSED_(format), PERFCHECK_UNUSED_(stream);
  return PERFCHECK_ERROR_UNSUPPORTED;
}
PERFCHECK_API perfcheck_status perfcheck_report_to_string(const perfcheck_report *report, perfcheck_format format,
                                                          char **out, size_t *len) {
  PERFCHECK_UNUSED_(report), PERFCHECK_UNUSED_(format);
  if (out) *out = NULL;
  if (len) *len = 0;
  return PERFCHECK_ERROR_UNSUPPORTED;
}
PERFCHECK_API perfcheck_status perfcheck_file_write(const char *path, const void *data, size_t size) {
  PERFCHECK_UNUSED_(path), PERFCHECK_UNUSED_(data), PERFCHECK_UNUSED_(size);
  return PERFCHECK_ERROR_UNSUPPORTED;
}
PERFCHECK_API void perfcheck_free(void *memory) { PERFCHECK_UNUSED_(memory); }
PERFCHECK_API perfcheck_status perfcheck_report_from_ncu_csv(const char *path, int quiet, perfcheck_report **out) {
  PERFCHECK_UNUSED_(path), PERFCHECK_UNUSED_(quiet);
  if (out) *out = NULL;
  return PERFCHECK_ERROR_UNSUPPORTED;
}
PERFCHECK_API perfcheck_status perfcheck_report_from_json(const char *path, int quiet, perfcheck_report **out) {
  PERFCHECK_UNUSED_(path), PERFCHECK_UNUSED_(quiet);
  if (out) *out = NULL;
  return PERFCHECK_ERROR_UNSUPPORTED;
}
PERFCHECK_API perfcheck_status perfcheck_report_read(const char *path, int quiet, perfcheck_report **out) {
  PERFCHECK_UNUSED_(path), PERFCHECK_UNUSED_(quiet);
  if (out) *out = NULL;
  return PERFCHECK_ERROR_UNSUPPORTED;
}
PERFCHECK_API perfcheck_status perfcheck_report_select(const perfcheck_report *report, const char *kernels,
                                                       perfcheck_report **out) {
  PERFCHECK_UNUSED_(report), PERFCHECK_UNUSED_(kernels);
  if (out) *out = NULL;
  return PERFCHECK_ERROR_UNSUPPORTED;
}
PERFCHECK_API perfcheck_status perfcheck_report_from_nsys_csv(const char *const *paths, size_t n, double wall_ns,
                                                              int quiet, perfcheck_report **out) {
  PERFCHECK_UNUSED_(paths), PERFCHECK_UNUSED_(n), PERFCHECK_UNUSED_(wall_ns), PERFCHECK_UNUSED_(quiet);
  if (out) *out = NULL;
  return PERFCHECK_ERROR_UNSUPPORTED;
}
PERFCHECK_API perfcheck_status perfcheck_report_from_snapshots(const char *path, int quiet, perfcheck_report **out) {
  PERFCHECK_UNUSED_(path), PERFCHECK_UNUSED_(quiet);
  if (out) *out = NULL;
  return PERFCHECK_ERROR_UNSUPPORTED;
}
PERFCHECK_API perfcheck_status perfcheck_report_from_json_text(const char *text, size_t len, const char *name,
                                                               int quiet, perfcheck_report **out) {
  PERFCHECK_UNUSED_(text), PERFCHECK_UNUSED_(len), PERFCHECK_UNUSED_(name), PERFCHECK_UNUSED_(quiet);
  if (out) *out = NULL;
  return PERFCHECK_ERROR_UNSUPPORTED;
}
PERFCHECK_API perfcheck_status perfcheck_report_merge(const perfcheck_report *const *reports, size_t n,
                                                      perfcheck_report **out) {
  PERFCHECK_UNUSED_(reports), PERFCHECK_UNUSED_(n);
  if (out) *out = NULL;
  return PERFCHECK_ERROR_UNSUPPORTED;
}
PERFCHECK_API perfcheck_status perfcheck_report_merge_files(const char *const *paths, size_t n, int quiet,
                                                            perfcheck_report **out) {
  PERFCHECK_UNUSED_(paths), PERFCHECK_UNUSED_(n), PERFCHECK_UNUSED_(quiet);
  if (out) *out = NULL;
  return PERFCHECK_ERROR_UNSUPPORTED;
}
PERFCHECK_API void perfcheck_report_destroy(perfcheck_report *report) { PERFCHECK_UNUSED_(report); }
PERFCHECK_API perfcheck_status perfcheck_diff_create(const perfcheck_report *before, const perfcheck_report *after,
                                                     const char *before_name, const char *after_name,
                                                     perfcheck_diff **out) {
  PERFCHECK_UNUSED_(before), PERFCHECK_UNUSED_(after), PERFCHECK_UNUSED_(before_name), PERFCHECK_UNUSED_(after_name);
  if (out) *out = NULL;
  return PERFCHECK_ERROR_UNSUPPORTED;
}
PERFCHECK_API size_t perfcheck_diff_worse_count(const perfcheck_diff *diff) {
  PERFCHECK_UNUSED_(diff);
  return 0;
}
PERFCHECK_API perfcheck_status perfcheck_diff_write(const perfcheck_diff *diff, perfcheck_format format,
                                                    FILE *stream) {
  PERFCHECK_UNUSED_(diff), PERFCHECK_UNUSED_(format), PERFCHECK_UNUSED_(stream);
  return PERFCHECK_ERROR_UNSUPPORTED;
}
PERFCHECK_API void perfcheck_diff_destroy(perfcheck_diff *diff) { PERFCHECK_UNUSED_(diff); }
PERFCHECK_API const char *perfcheck_metric_list(const char *set) {
  PERFCHECK_UNUSED_(set);
  return NULL;
}
PERFCHECK_API perfcheck_status perfcheck_metric_passes(const char *metrics, const char *chip, int *passes) {
  PERFCHECK_UNUSED_(metrics), PERFCHECK_UNUSED_(chip), PERFCHECK_UNUSED_(passes);
  return PERFCHECK_ERROR_UNSUPPORTED;
}
PERFCHECK_API perfcheck_status perfcheck_session_create(const perfcheck_options *options, perfcheck_session **out) {
  PERFCHECK_UNUSED_(options);
  if (out) *out = NULL;
  return PERFCHECK_ERROR_UNSUPPORTED;
}
PERFCHECK_API perfcheck_status perfcheck_session_begin(perfcheck_session *session, const char *region) {
  PERFCHECK_UNUSED_(session), PERFCHECK_UNUSED_(region);
  return PERFCHECK_ERROR_UNSUPPORTED;
}
PERFCHECK_API perfcheck_status perfcheck_session_end(perfcheck_session *session) {
  PERFCHECK_UNUSED_(session);
  return PERFCHECK_ERROR_UNSUPPORTED;
}
PERFCHECK_API perfcheck_status perfcheck_session_report(perfcheck_session *session, const perfcheck_report **out) {
  PERFCHECK_UNUSED_(session);
  if (out) *out = NULL;
  return PERFCHECK_ERROR_UNSUPPORTED;
}
PERFCHECK_API const char *perfcheck_session_message(const perfcheck_session *session) {
  PERFCHECK_UNUSED_(session);
  return PERFCHECK_OFF_;
}
PERFCHECK_API void perfcheck_session_destroy(perfcheck_session *session) { PERFCHECK_UNUSED_(session); }
PERFCHECK_API perfcheck_status perfcheck_measure_ceilings(int device, const char *cache_path,
                                                          double *dram_bytes_per_s, double *fp32_flop_per_s) {
  PERFCHECK_UNUSED_(device), PERFCHECK_UNUSED_(cache_path), PERFCHECK_UNUSED_(dram_bytes_per_s),
      PERFCHECK_UNUSED_(fp32_flop_per_s);
  return PERFCHECK_ERROR_UNSUPPORTED;
}
PERFCHECK_API void perfcheck_expectation_init(perfcheck_expectation *e) {
  if (!e) return;
  perfcheck_expectation zero = {0, NULL, 0, NULL, PERFCHECK_CMP_LE, 0.0, NULL, 0.0};
  *e = zero;
  e->size = sizeof *e;
  e->value = e->tolerance_pct = 0.0 / 0.0;
}
PERFCHECK_API perfcheck_status perfcheck_expectations_create(perfcheck_expectations **out) {
  if (out) *out = NULL;
  return PERFCHECK_ERROR_UNSUPPORTED;
}
PERFCHECK_API void perfcheck_expectations_destroy(perfcheck_expectations *set) { PERFCHECK_UNUSED_(set); }
PERFCHECK_API perfcheck_status perfcheck_expectations_add(perfcheck_expectations *set, const char *spec) {
  PERFCHECK_UNUSED_(set), PERFCHECK_UNUSED_(spec);
  return PERFCHECK_ERROR_UNSUPPORTED;
}
PERFCHECK_API perfcheck_status perfcheck_expectations_add_parts(perfcheck_expectations *set,
                                                                const perfcheck_expectation *e) {
  PERFCHECK_UNUSED_(set), PERFCHECK_UNUSED_(e);
  return PERFCHECK_ERROR_UNSUPPORTED;
}
PERFCHECK_API size_t perfcheck_expectations_count(const perfcheck_expectations *set) {
  PERFCHECK_UNUSED_(set);
  return 0;
}
PERFCHECK_API perfcheck_status perfcheck_expectations_check(perfcheck_expectations *set,
                                                            const perfcheck_report *report, size_t *failures) {
  PERFCHECK_UNUSED_(set), PERFCHECK_UNUSED_(report);
  if (failures) *failures = 0;
  return PERFCHECK_ERROR_UNSUPPORTED;
}
PERFCHECK_API size_t perfcheck_expectations_result_count(const perfcheck_expectations *set) {
  PERFCHECK_UNUSED_(set);
  return 0;
}
PERFCHECK_API perfcheck_status perfcheck_expectations_result(const perfcheck_expectations *set, size_t index,
                                                             perfcheck_expectation_result *out) {
  PERFCHECK_UNUSED_(set), PERFCHECK_UNUSED_(index), PERFCHECK_UNUSED_(out);
  return PERFCHECK_ERROR_UNSUPPORTED;
}
PERFCHECK_API const char *perfcheck_expectations_failures_text(const perfcheck_expectations *set) {
  PERFCHECK_UNUSED_(set);
  return "";
}
PERFCHECK_API perfcheck_status perfcheck_expectations_write_junit(const perfcheck_expectations *set,
                                                                  const char *suite, FILE *stream) {
  PERFCHECK_UNUSED_(set), PERFCHECK_UNUSED_(suite), PERFCHECK_UNUSED_(stream);
  return PERFCHECK_ERROR_UNSUPPORTED;
}
PERFCHECK_API perfcheck_status perfcheck_expectations_add_diff(perfcheck_expectations *set, const perfcheck_diff *diff,
                                                               size_t *failures) {
  PERFCHECK_UNUSED_(set), PERFCHECK_UNUSED_(diff);
  if (failures) *failures = 0;
  return PERFCHECK_ERROR_UNSUPPORTED;
}
PERFCHECK_API perfcheck_status perfcheck_expectations_add_result(perfcheck_expectations *set, const char *name,
                                                                 int passed, const char *message, size_t *failures) {
  PERFCHECK_UNUSED_(set), PERFCHECK_UNUSED_(name), PERFCHECK_UNUSED_(passed), PERFCHECK_UNUSED_(message);
  if (failures) *failures = 0;
  return PERFCHECK_ERROR_UNSUPPORTED;
}
PERFCHECK_API size_t perfcheck_expect(const perfcheck_report *report, const char *spec, FILE *stream) {
  PERFCHECK_UNUSED_(report), PERFCHECK_UNUSED_(spec), PERFCHECK_UNUSED_(stream);
  return 0;
}
PERFCHECK_API const char *perfcheck_expect_message(void) { return ""; }
PERFCHECK_API perfcheck_status perfcheck_session_expect(perfcheck_session *session, const char *spec) {
  PERFCHECK_UNUSED_(session), PERFCHECK_UNUSED_(spec);
  return PERFCHECK_ERROR_UNSUPPORTED;
}
PERFCHECK_API perfcheck_status perfcheck_session_check(perfcheck_session *session, size_t *failures) {
  PERFCHECK_UNUSED_(session);
  if (failures) *failures = 0;
  return PERFCHECK_ERROR_UNSUPPORTED;
}
PERFCHECK_API const perfcheck_expectations *perfcheck_session_expectations(const perfcheck_session *session) {
  PERFCHECK_UNUSED_(session);
  return NULL;
}
#undef PERFCHECK_UNUSED_
#undef PERFCHECK_OFF_
#endif /* PERFCHECK_DISABLE */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* PERFCHECK_H */
