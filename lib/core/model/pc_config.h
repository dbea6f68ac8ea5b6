/*
 * pc_config.h: configuration by environment, for programs that were not
 * built with perfcheck (the injection library, `perfcheck run`).
 *
 * pc_config_from_env() reads the variables below into a perfcheck_options
 * (plus the two settings that have no field there).  A bad value is never
 * fatal: it gives ONE warning line naming the variable, the value and the
 * default used, e.g.
 *
 *   perfcheck: PERFCHECK_LAUNCH_COUNT="abc" is not a non-negative integer; using 0 (no limit)
 *
 * and the program runs on with that variable's default.  A variable that is
 * unset or set to the empty string takes its default silently.  Words
 * (timing, json, sol, ...) are matched exactly, lowercase, as ncu and the
 * library spell them.
 *
 * | Variable                  | Values                                                      | Default                         |
 * |---------------------------|-------------------------------------------------------------|---------------------------------|
 * | `PERFCHECK_MODE`          | `timing` \| `counters`                                      | counters, falling back to timing with a one-line note when the GPU refuses them |
 * | `PERFCHECK_METRICS`       | `default` \| `sol` \| `full` \| comma list of ncu metric names, may start with a set (`default,smsp__inst_executed.sum`) | `default` |
 * | `PERFCHECK_KERNELS`       | ncu's `-k`: a function name, matched exactly (no namespace, template arguments or parameters), or `regex:EXPR`, a POSIX extended regex searched in the demangled name | every kernel |
 * | `PERFCHECK_LAUNCH_SKIP`   | non-negative integer: matching launches to skip before profiling (ncu's `-s`) | `0`           |
 * | `PERFCHECK_LAUNCH_COUNT`  | non-negative integer: matching launches to profile at most; `0` no limit (ncu's `-c`) | `0` (no limit) |
 * | `PERFCHECK_PER_SIGNATURE` | positive integer: profiled launches per distinct kernel signature | `1`                    |
 * | `PERFCHECK_NVTX`          | an NVTX range name, exactly, or `regex:EXPR`: profile only inside such ranges (as the include `NAME/`) | everywhere |
 * | `PERFCHECK_NVTX_INCLUDE`  | ncu's `--nvtx-include` configurations, one a line: push/pop (`A/`, `A/B/`, `[A/`, `B]`, `A/` + `*` + `/B/`, `regex:EXPR` elements) or start/end (`A`, `A,B`): counters only where one holds | everywhere |
 * | `PERFCHECK_NVTX_EXCLUDE`  | ncu's `--nvtx-exclude`, the same syntax: no counters where one holds | nowhere |
 * | `PERFCHECK_OUTPUT`        | a file path; `%p` pid, `%h` host name, `%q{VAR}` the value of environment variable VAR (an MPI rank; unset or empty: the pid, with a warning), `%%` a percent sign; `-` stdout, `stderr` stderr; written by pc_output.h's rules | `perfcheck-%p.txt` (`.json`, `.csv`, `.html` by format) in the current folder |
 * | `PERFCHECK_FORMAT`        | `text` \| `json` \| `csv` \| `html`; unset: the format PERFCHECK_OUTPUT's name says (`.json`, `.csv`, `.html`, `.txt`; pc_output_format_of_name); one the name contradicts: a warning, the name's | `text` |
 * | `PERFCHECK_PROGRESS`      | `0` \| `1` \| `2`: "pass k/n, kernel i/m" lines on stderr    | `0`                             |
 * | `PERFCHECK_VERBOSE`, `PERFCHECK_ROTATE_SESSION`, `_FLUSH`, `_REENABLE` | `0` \| `1` (read where they act; checked here) | VERBOSE off, the others on |
 * | `PERFCHECK_ROTATE_RANGE`, `PERFCHECK_REPLAY` | `kernel` \| `user`; `kernel` \| `rotate` (read where they act; checked here) | `kernel` |
 *
 * What counts as bad: a word not in the list; a metric list with an empty
 * item, a character outside [A-Za-z0-9_.] or an item that is neither a set
 * nor an ncu name (ncu names have a "__"); a regex (regex:EXPR) that the
 * regex guard (pc_regex.h) or regcomp refuses, or a kernel name with a
 * control character; an
 * integer with a sign, a space, any non-digit, or too large for its field
 * (PERFCHECK_PER_SIGNATURE also 0); an output pattern with a `%` not
 * followed by p, h, q{...} or %, or a `%q{` without its `}` or with an
 * empty name.  Metric names are checked for syntax only; the library checks
 * them against the chip when the session starts.
 */
#ifndef PC_CONFIG_H
#define PC_CONFIG_H

#include "base/pc_regex.h"
#include <stdio.h>

#include "perfcheck.h"

/* The settings that perfcheck_options has no field for. */
typedef struct pc_env_config {
  const char *nvtx_include;  /* PERFCHECK_NVTX or NULL */
  const pc_regex *nvtx_regex; /* compiled when PERFCHECK_NVTX is regex:EXPR, else NULL */
  /* PERFCHECK_NVTX (as the include "NAME/"), PERFCHECK_NVTX_INCLUDE and
   * PERFCHECK_NVTX_EXCLUDE (ncu's --nvtx-include/--nvtx-exclude push/pop and
   * start/end syntax, pc_nvtx_filter.h; several configurations one a line) as one
   * filter, kept by this module; NULL when none is set. */
  const struct pc_nvtx_filter *nvtx_filter;
  int progress;
} pc_env_config;

/* Fills *opt from perfcheck_options_init's defaults, then from the
 * environment; fills *extra (may be NULL): nvtx_include (NULL when unset or
 * empty) and progress (as opt->progress).
 *
 * opt->output is left NULL when PERFCHECK_OUTPUT is unset, empty or bad:
 * the caller's default destination (pc_config_default_output for the
 * injection library and `perfcheck run`).  The pattern is validated, not expanded: expand it with
 * pc_output_expand() (pc_output.h) when writing, in the writing process (each
 * process of an MPI run or a fork gets its own %p).
 *
 * Each bad value writes one line to `warn` (nothing when warn is NULL).
 * Returns the number of bad values (0 when all were good or unset), or -1
 * when opt is NULL.
 *
 * Strings stored in *opt and *extra (metrics, kernel_regex, output,
 * nvtx_include) are copies owned by this module, never freed: they stay
 * valid for the life of the process, even if the environment changes or
 * this function is called again (an equal value reuses its copy, so repeated
 * calls do not grow memory).  Not thread-safe: call it from one thread at a
 * time (start-up). */
int pc_config_from_env(perfcheck_options *opt, pc_env_config *extra, FILE *warn);

/* The injection library's report file when PERFCHECK_OUTPUT is unset:
 * "perfcheck-%p.txt" (.json, .csv, .html for those formats), in the current
 * folder, so that a run adds one line to the program's stderr, not the
 * report. */
const char *pc_config_default_output(perfcheck_format f);

/* Whether an NVTX range named `name` is one PERFCHECK_NVTX selects: the name
 * exactly, or, for regex:EXPR, EXPR found in it.  0 when c has none. */
int pc_config_nvtx_match(const pc_env_config *c, const char *name);

/* The counter layer's replay mode from PERFCHECK_REPLAY (`env`, NULL when
 * unset) and whether XLA's CUDA plugin (JAX) is loaded in the process:
 * 1 rotation, 0 kernel replay.  "rotate" and "kernel" are obeyed.  Unset,
 * empty or another value: kernel replay, except with XLA loaded, where
 * kernel replay of the default set crashed inside CUPTI on XLA's GEMM
 * autotuning (H200, CUPTI 13.0, 3 of 3 runs) and rotation ran clean (3 of
 * 3; docs/cupti.md §18).  *why (may be NULL) gets the sentence the report
 * shows for another value (PERFCHECK_ERROR_INVALID_ARGUMENT) or for the XLA
 * choice (PERFCHECK_OK), an empty message otherwise. */
int pc_config_replay_rotate(const char *env, int xla_loaded, pc_err *why);

/* The process's place in a parallel job, from its launcher's variables:
 * the rank from RANK (torchrun, torch.distributed), else
 * OMPI_COMM_WORLD_RANK (Open MPI), else PMI_RANK (MPICH, Intel MPI, Slurm);
 * the world size from WORLD_SIZE, OMPI_COMM_WORLD_SIZE, PMI_SIZE; the local
 * rank from LOCAL_RANK, else OMPI_COMM_WORLD_LOCAL_RANK.  `get` reads one
 * variable (the session passes secure_getenv).  Each is -1 when unset; a
 * value that is not a decimal number (a size of at least 1), or a rank not
 * below the world size (then the size is dropped), is ignored.  Returns
 * PERFCHECK_OK, or PERFCHECK_ERROR_INVALID_ARGUMENT when a value was ignored,
 * with err naming each ("RANK=one, WORLD_SIZE=0"); the place is filled
 * either way. */
typedef char *(*pc_env_get)(const char *name);
perfcheck_status pc_job_place(pc_env_get get, int *rank, int *world_size, int *local_rank, pc_err *err);

#endif /* PC_CONFIG_H */
