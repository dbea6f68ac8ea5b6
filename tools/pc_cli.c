/* Option parsing shared by the `perfcheck` subcommands (pc_cli.h). */
#include "pc_cli.h"
#include "base/pc_output.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void pc_cli_getopt_reset(void) {
  optind = 0; /* glibc: full re-initialisation */
  opterr = 0; /* our messages, not getopt's */
}

int pc_cli_getopt_error(const char *cmd, int c, char **argv, int status) {
  const char *arg = optind > 0 ? argv[optind - 1] : "?";
  char name[128];
  if (strncmp(arg, "--", 2) == 0 || !optopt) {
    snprintf(name, sizeof name, "%s", arg); /* "--output" as written */
    char *eq = strchr(name, '=');
    if (eq && c == ':') *eq = '\0';
  } else {
    snprintf(name, sizeof name, "-%c", optopt); /* one letter of "-qx" */
  }
  if (c == ':') return pc_cli_usage_error(cmd, status, "%s needs a value", name);
  return pc_cli_usage_error(cmd, status, "unknown option '%s'", name);
}

int pc_cli_usage_error(const char *cmd, int status, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "perfcheck %s: %s\n(perfcheck %s --help for the usage)\n", cmd, msg, cmd);
  return status;
}

int pc_cli_format(const char *v) {
  if (!v) return -1;
  if (strcmp(v, "text") == 0) return 0;
  if (strcmp(v, "json") == 0) return 1;
  if (strcmp(v, "csv") == 0) return 2;
  if (strcmp(v, "html") == 0) return 3;
  return -1;
}

int pc_cli_value_is_option(int c, const struct option *longopts) {
  (void)longopts;
  if (c == '?' || c == ':' || !optarg) return 0;
  return optarg[0] == '-' && optarg[1] != '\0'; /* "-" alone is stdin or stdout */
}

int pc_cli_value_error(const char *cmd, char **argv, int status) {
  /* The option is argv[optind - 2] when its value was the next word, else
   * the value was glued on ("--kernels=--x", "-k-x"). */
  const char *opt = optind >= 2 ? argv[optind - 2] : "?";
  if (optind >= 1 && argv[optind - 1] != optarg) opt = argv[optind - 1];
  if (strcmp(optarg, "--") == 0)
    return pc_cli_usage_error(cmd, status, "%s needs a value before '--'", opt);
  if (strcmp(opt, "-f") == 0) /* ncu's -f is --force-overwrite, a switch */
    return pc_cli_usage_error(cmd, status, "-f needs a value, not the option '%s' (-f is --format here; ncu's -f, "
                                           "--force-overwrite, is accepted as --force-overwrite)",
                              optarg);
  return pc_cli_usage_error(cmd, status, "%s needs a value, not the option '%s' (a value never starts with '-': "
                                         "write ./%s for such a file)",
                            opt, optarg, optarg);
}

void pc_cli_set_verbose(void) { setenv("PERFCHECK_VERBOSE", "1", 1); }

int pc_cli_stdin_twice(const char *const *paths, size_t n) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) k += strcmp(paths[i], "-") == 0;
  return k > 1;
}

int pc_cli_duration_ns(const char *s, double *ns) {
  if (!s || !*s) return -1;
  char *end = NULL;
  double v = strtod(s, &end);
  if (!end || end == s || !(v > 0) || v > 1e15) return -1;
  double scale;
  if (!*end || strcmp(end, "s") == 0) scale = 1e9;
  else if (strcmp(end, "ms") == 0) scale = 1e6;
  else if (strcmp(end, "us") == 0) scale = 1e3;
  else if (strcmp(end, "ns") == 0) scale = 1;
  else if (strcmp(end, "min") == 0) scale = 60e9;
  else return -1;
  *ns = v * scale;
  return 0;
}

/* ncu's options that perfcheck does not implement, with the value they take
 * (so that the value is never taken for PROGRAM) and what to use instead.
 * Written from NVIDIA's Nsight Compute CLI reference ("Command Line
 * Options"); tests/unit/check_ncu_flags.py checks every option of ncu's
 * --help text against this table and `perfcheck run`. */
const pc_ncu_flag pc_ncu_unsupported[] = {
    /* general and launch */
    {"hostname", 1, "perfcheck run launches the program itself and attaches to nothing; leave it out"},
    {"max-connections", 1, "perfcheck run launches the program itself and attaches to nothing; leave it out"},
    {"port", 1, "perfcheck run launches the program itself and attaches to nothing; leave it out"},
    {"config-file", 1, "use PERFCHECK_* variables (perfcheck run --help)"},
    {"config-file-path", 1, "use PERFCHECK_* variables (perfcheck run --help)"},
    {"check-exit-code", 1, "perfcheck run exits with the program's own status; leave it out"},
    {"injection-path-32", 1, "use PERFCHECK_INJECT_LIB for perfcheck's injection library"},
    {"injection-path-64", 1, "use PERFCHECK_INJECT_LIB for perfcheck's injection library"},
    {"preload-library", 1, "use LD_PRELOAD (perfcheck run keeps what it holds)"},
    {"call-stack", 0, "perfcheck records no call stacks; leave it out"},
    {"call-stack-type", 1, "perfcheck records no call stacks; leave it out"},
    {"target-processes", 1, "perfcheck profiles every CUDA process of the run (the others write FILE.PID); leave it out"},
    {"target-processes-filter", 1, "perfcheck profiles every CUDA process of the run; leave it out"},
    {"null-stdin", 0, "use </dev/null (perfcheck run leaves the program's stdin alone)"},
    /* profile */
    {"devices", 1, "use CUDA_VISIBLE_DEVICES"},
    {"filter-mode", 1, "use --per-signature N (N profiled launches per kernel signature and region)"},
    {"kernel-id", 1, "use -k NAME with -s N and -c N"},
    {"launch-skip-before-match", 1, "use -s N (it counts the launches -k selects)"},
    {"range-filter", 1, "use --nvtx-include RANGE/ (NVTX push/pop ranges)"},
    {"range-replay-options", 1, "perfcheck replays single kernels only (ncu's kernel replay); leave it out"},
    {"replay-mode", 1, "perfcheck replays single kernels only (ncu's kernel replay); leave it out"},
    {"app-replay-buffer", 1, "perfcheck replays single kernels only (ncu's kernel replay); leave it out"},
    {"app-replay-match", 1, "perfcheck replays single kernels only (ncu's kernel replay); leave it out"},
    {"app-replay-mode", 1, "perfcheck replays single kernels only (ncu's kernel replay); leave it out"},
    {"graph-profiling", 1, "perfcheck measures each CUDA graph launch as a whole, as ncu's --graph-profiling graph "
                           "does (one entry per graph, its counters summed over its kernels; per node is not "
                           "possible in process); leave it out"},
    {"kill", 1, "the program runs to its end under perfcheck; use -c N to bound the profiled launches"},
    {"section", 1, "use --set basic|detailed|full or --metrics LIST"},
    {"section-folder", 1, "use --set basic|detailed|full or --metrics LIST"},
    {"section-folder-recursive", 1, "use --set basic|detailed|full or --metrics LIST"},
    {"section-folder-restore", 0, "use --set basic|detailed|full or --metrics LIST"},
    {"list-sets", 0, "use perfcheck metrics --list-sets"},
    {"list-sections", 0, "use perfcheck metrics --list-sets"},
    {"list-rules", 0, "perfcheck's rules are its checklist (docs/checklist.md); leave it out"},
    {"list-metrics", 0, "use perfcheck metrics --set SET"},
    {"query-metrics", 0, "use ncu --query-metrics itself (perfcheck metrics --set SET lists perfcheck's)"},
    {"query-metrics-mode", 1, "use ncu --query-metrics itself"},
    {"query-metrics-collection", 1, "use ncu --query-metrics itself"},
    {"chip", 1, "use perfcheck metrics --passes --chip NAME"},
    {"chips", 1, "use perfcheck metrics --passes --chip NAME"},
    {"disable-extra-suffixes", 0, "use --metrics with the full ncu names"},
    {"rule", 1, "perfcheck's rules are its checklist (docs/checklist.md); leave it out"},
    {"apply-rules", 1, "perfcheck's rules are its checklist (docs/checklist.md); leave it out"},
    {"import-source", 1, "perfcheck reads no source; leave it out"},
    {"source-folders", 1, "perfcheck reads no source; leave it out"},
    {"cache-control", 1, "perfcheck neither flushes caches nor locks clocks (ncu does both by default); leave it out"},
    {"clock-control", 1, "perfcheck neither flushes caches nor locks clocks (ncu does both by default); leave it out"},
    {"profile-from-start", 1, "use --nvtx-include RANGE/, or perfcheck_session_begin in the program"},
    {"pm-sampling-interval", 1, "perfcheck collects no PM samples; leave it out"},
    {"pm-sampling-buffer-size", 1, "perfcheck collects no PM samples; leave it out"},
    {"pm-sampling-max-passes", 1, "perfcheck collects no PM samples; leave it out"},
    {"warp-sampling-interval", 1, "use --set full (the stall reasons per kernel; no warp samples)"},
    {"warp-sampling-max-passes", 1, "use --set full (the stall reasons per kernel; no warp samples)"},
    {"warp-sampling-buffer-size", 1, "use --set full (the stall reasons per kernel; no warp samples)"},
    /* output */
    {"import", 1, "use perfcheck diagnose EXPORT.csv (made with ncu --import REPORT --csv --page raw)"},
    {"open-in-ui", 0, "use perfcheck report --html OUT.html REPORT"},
    {"page", 1, "use --format text|json|csv|html"},
    {"print-units", 1, "use --format json (values in base units)"},
    {"print-fp", 0, "use --format json"},
    {"print-kernel-base", 1, "use --format json (name, demangled and mangled are all there)"},
    {"print-metric-instances", 1, "use --format json"},
    {"print-metric-name", 1, "use --format json"},
    {"print-metric-attribution", 0, "use --format json"},
    {"print-nvtx-rename", 1, "use --format json"},
    {"print-rule-details", 0, "use --format text (each verdict's advice)"},
    {"print-details", 1, "use --format text"},
    {"print-summary", 1, "use --format text (the kernels longest first)"},
    {"print-session", 0, "use --format json (device and tool)"},
    {"log-file", 1, "use --output FILE (the program's own output is left as it is)"},
    /* in ncu 2025.3.1's --help (the H200's, tests/data/ncu/ncu-help-2025.3.1.txt) */
    {"quiet", 0, "perfcheck run adds at most one line to the program's stderr already; leave it out"},
    {"disable-profiler-start-stop", 0, "perfcheck does not follow cuProfilerStart/Stop; use --nvtx-include RANGE/"},
    {"forward-signals", 0, "signals reach the program as they would without perfcheck; leave it out"},
    {"support-32bit", 0, "perfcheck profiles 64-bit processes only; leave it out"},
    {"list-chips", 0, "use perfcheck metrics --passes (GH100, GB100, AD102, GA100)"},
    {"mps", 1, "perfcheck profiles each MPS client process in its own right; leave it out"},
    {"mps-num-clients", 1, "perfcheck profiles each MPS client process in its own right; leave it out"},
    {"mps-timeout", 1, "perfcheck profiles each MPS client process in its own right; leave it out"},
    {"nvtx-push-pop-scope", 1, "perfcheck's --nvtx-include holds on any thread (process scope); leave it out"},
    {"pipeline-boost-state", 1, "perfcheck leaves the clocks and boost state as they are; leave it out"},
    {"native-include", 1, "perfcheck samples no CPU call stacks; leave it out"},
    {"native-exclude", 1, "perfcheck samples no CPU call stacks; leave it out"},
    {"python-include", 1, "perfcheck samples no CPU call stacks; leave it out"},
    {"python-exclude", 1, "perfcheck samples no CPU call stacks; leave it out"},
    {"import-sass", 1, "perfcheck reads no SASS; leave it out"},
    {"print-source", 1, "perfcheck reads no source; leave it out"},
    {"resolve-source-file", 1, "perfcheck reads no source; leave it out"},
    {"rename-kernels", 1, "perfcheck names kernels by their demangled base name (--format json has all three names)"},
    {"rename-kernels-export", 1, "perfcheck names kernels by their demangled base name; leave it out"},
    {"rename-kernels-path", 1, "perfcheck names kernels by their demangled base name; leave it out"},
    {NULL, 0, NULL},
};

const pc_ncu_flag *pc_ncu_flag_find(const char *name) {
  for (const pc_ncu_flag *f = pc_ncu_unsupported; f->name; f++)
    if (strcmp(f->name, name) == 0) return f;
  return NULL;
}

int pc_cli_ncu_refused(const char *cmd, const pc_ncu_flag *f, int status) {
  return pc_cli_usage_error(cmd, status, "ncu's --%s is not supported here: %s", f->name, f->use);
}

int pc_cli_no_cuda(const char *who) {
#if PERFCHECK_CLI_CUDA
  (void)who;
  return 0;
#else
  fprintf(stderr,
          "%s: built without the CUDA toolkit: in-process profiling is not available (diagnose, report, merge, diff "
          "and check FILE work offline)\n",
          who);
  return PC_CLI_EXIT_NO_CUDA;
#endif
}

int pc_cli_write(const char *cmd, const char *output, int (*write)(FILE *f, void *ctx), void *ctx) {
  pc_err why;
  if (!output) output = "-";
  if (pc_output_write_file(output, write, ctx, &why) == PERFCHECK_OK) return 0;
  if (strcmp(output, "-") == 0)
    fprintf(stderr, "perfcheck %s: %s\n", cmd, why.msg);
  else
    fprintf(stderr, "perfcheck %s: cannot write %s: %s\n", cmd, output, why.msg);
  return PC_CLI_EXIT_OUTPUT;
}

typedef struct pc_cli_out {
  const perfcheck_report *r;
  const perfcheck_diff *d;
  perfcheck_format format;
} pc_cli_out;

static int pc_cli_put(FILE *f, void *ctx) {
  const pc_cli_out *o = ctx;
  perfcheck_status st = o->r ? perfcheck_report_write(o->r, o->format, f) : perfcheck_diff_write(o->d, o->format, f);
  return st == PERFCHECK_OK ? 0 : -1;
}

int pc_cli_write_report(const char *cmd, const char *output, const perfcheck_report *r, perfcheck_format format) {
  pc_cli_out o = {r, NULL, format};
  return pc_cli_write(cmd, output, pc_cli_put, &o);
}

int pc_cli_write_diff(const char *cmd, const char *output, const perfcheck_diff *d, perfcheck_format format) {
  pc_cli_out o = {NULL, d, format};
  return pc_cli_write(cmd, output, pc_cli_put, &o);
}

/* ---- the output's name and format ------------------------------------------------- */

static const char *const pc_cli_format_names[] = {"text", "json", "csv", "html"};

void pc_cli_out_init(pc_cli_out_spec *o) {
  o->path = o->path_flag = o->format_flag = NULL;
  o->format = -1;
}

int pc_cli_out_path(pc_cli_out_spec *o, const char *cmd, const char *flag, const char *path) {
  if (!path || !*path) return pc_cli_usage_error(cmd, 2, "%s needs a file name", flag);
  if (o->path && strcmp(o->path, path) != 0)
    return pc_cli_usage_error(cmd, 2, "%s %s and %s %s name two outputs: give one", o->path_flag, o->path, flag, path);
  o->path = path;
  o->path_flag = flag;
  return -1;
}

int pc_cli_out_format(pc_cli_out_spec *o, const char *cmd, const char *flag, int format) {
  if (o->format >= 0 && o->format != format)
    return pc_cli_usage_error(cmd, 2, "%s asks for %s and %s for %s: give one format", o->format_flag,
                              pc_cli_format_names[o->format], flag, pc_cli_format_names[format]);
  o->format = format;
  o->format_flag = flag;
  return -1;
}

int pc_cli_out_resolve(pc_cli_out_spec *o, const char *cmd, unsigned allowed, perfcheck_format *format) {
  const int by_name = o->path && strcmp(o->path, "-") != 0 ? pc_output_format_of_name(o->path) : -1;
  if (by_name >= 0 && o->format >= 0 && by_name != o->format)
    return pc_cli_usage_error(cmd, 2,
                              "%s asks for %s, but the output name %s says %s: give one (the format follows the name "
                              "when no format is given)",
                              o->format_flag, pc_cli_format_names[o->format], o->path, pc_cli_format_names[by_name]);
  const int f = o->format >= 0 ? o->format : by_name >= 0 ? by_name : PERFCHECK_FORMAT_TEXT;
  if (!(allowed & (1u << f))) {
    char list[64] = "";
    for (int i = 0; i < 4; i++)
      if (allowed & (1u << i))
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", list[0] ? ", " : "", pc_cli_format_names[i]);
    return pc_cli_usage_error(cmd, 2, "the output name %s says %s, which %s does not write (%s)", o->path,
                              pc_cli_format_names[f], cmd, list);
  }
  *format = (perfcheck_format)f;
  return -1;
}

int pc_cli_out_not_input(const char *cmd, const char *output, int readable, const char *const *inputs, size_t n) {
  struct stat out;
  if (readable || !output || strcmp(output, "-") == 0 || stat(output, &out) != 0) return -1;
  for (size_t i = 0; i < n; i++) {
    struct stat in;
    if (!inputs[i] || strcmp(inputs[i], "-") == 0 || stat(inputs[i], &in) != 0) continue;
    if (in.st_dev == out.st_dev && in.st_ino == out.st_ino)
      return pc_cli_usage_error(cmd, 2,
                                "the output %s is also an input (%s): writing it would replace that input with a file "
                                "perfcheck cannot read back; give another name%s",
                                output, inputs[i], strcmp(cmd, "check") == 0 ? "" : " (or write JSON there)");
  }
  return -1;
}
