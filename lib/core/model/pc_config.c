/* Configuration by environment (pc_config.h has the table of variables).
 *
 * Every variable is read by one small function that either stores a good
 * value or leaves the default and says why in one line.  The checks mirror
 * what the library would refuse later (pc_rp_plan_parse for metric lists,
 * pc_regex.c for the kernel filter, pc_output.c for output
 * patterns), so that a typo costs a warning, not the whole session. */
#define _GNU_SOURCE /* secure_getenv */
#include "model/pc_config.h"

#include <limits.h>
#include <regex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/pc_core.h"
#include "base/pc_nvtx_filter.h"
#include "base/pc_output.h"
#include "base/pc_regex.h"
#include "base/pc_util.h"

/* The options' defaults, one place for the library and the environment. */
PERFCHECK_API void perfcheck_options_init(perfcheck_options *options) {
  if (!options) return;
  memset(options, 0, sizeof *options);
  options->size = sizeof *options;
  options->mode = PERFCHECK_MODE_AUTO;
  options->metrics = NULL; /* "default" */
  options->per_signature = 1;
  options->emit_nvtx = 1;
  options->output_format = PERFCHECK_FORMAT_TEXT;
}

/* ---- storage for the strings handed out ------------------------------------ */

/* Copies are never freed, so a pointer handed out stays valid for the
 * process; an equal value reuses its copy. */
static char **pc_cfg_kept;
static size_t pc_cfg_nkept;

static const char *pc_config_keep(const char *s) {
  for (size_t i = 0; i < pc_cfg_nkept; i++)
    if (strcmp(pc_cfg_kept[i], s) == 0) return pc_cfg_kept[i];
  char **grown = realloc(pc_cfg_kept, (pc_cfg_nkept + 1) * sizeof *grown);
  if (!grown) return NULL;
  pc_cfg_kept = grown;
  char *copy = pc_strdup(s);
  if (!copy) return NULL;
  pc_cfg_kept[pc_cfg_nkept++] = copy;
  return copy;
}

/* ---- warnings --------------------------------------------------------------- */

/* The value as it appears between quotes in a warning: backslash, quote and
 * control characters escaped, cut after 120 bytes so that the line stays a
 * line. */
static void pc_config_escape(const char *v, char *out, size_t outlen) {
  size_t n = 0;
  const size_t keep = 120;
  for (size_t i = 0; v[i]; i++) {
    char tmp[8];
    unsigned char c = (unsigned char)v[i];
    if (i == keep) {
      snprintf(tmp, sizeof tmp, "...");
    } else if (c == '\\' || c == '"') {
      snprintf(tmp, sizeof tmp, "\\%c", c);
    } else if (c == '\n') {
      snprintf(tmp, sizeof tmp, "\\n");
    } else if (c == '\t') {
      snprintf(tmp, sizeof tmp, "\\t");
    } else if (c == '\r') {
      snprintf(tmp, sizeof tmp, "\\r");
    } else if (c < 0x20 || c == 0x7f) {
      snprintf(tmp, sizeof tmp, "\\x%02x", c);
    } else {
      tmp[0] = (char)c;
      tmp[1] = '\0';
    }
    size_t len = strlen(tmp);
    if (n + len + 1 > outlen) break;
    memcpy(out + n, tmp, len);
    n += len;
    if (i == keep) break;
  }
  out[n] = '\0';
}

/* One line: perfcheck: VAR="VALUE" WHY; using DEFAULT (pc_say_to: one
 * write, so that lines of several processes do not interleave mid-line). */
static void pc_config_warn(FILE *warn, const char *var, const char *value, const char *why, const char *dflt) {
  if (!warn) return;
  char esc[512];
  pc_config_escape(value, esc, sizeof esc);
  pc_say_to(warn, "%s=\"%s\" %s; using %s", var, esc, why, dflt);
}

/* The variable's value, or NULL when unset or empty (both mean "default").
 * secure_getenv: a setuid/setgid or file-capability process (AT_SECURE) is
 * configured by nobody's environment; it gets every default. */
static const char *pc_config_get(const char *var) {
  const char *v = secure_getenv(var);
  return (v && v[0]) ? v : NULL;
}

/* ---- checks ----------------------------------------------------------------- */

/* Digits only (no sign, no space), and at most `max`.  Returns 0 and *out,
 * -1 for junk, -2 for too large. */
static int pc_config_parse_uint(const char *s, uint64_t max, uint64_t *out) {
  uint64_t v = 0;
  if (!*s) return -1;
  for (const char *p = s; *p; p++)
    if (*p < '0' || *p > '9') return -1;
  for (const char *p = s; *p; p++) {
    unsigned d = (unsigned)(*p - '0');
    if (v > (max - d) / 10) return -2;
    v = v * 10 + d;
  }
  *out = v;
  return 0;
}

static int pc_config_metric_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

static int pc_config_space(char c) { return c == ' ' || c == '\t' || c == '\n'; }

/* A set name or a comma list of ncu names, items trimmed as pc_rp_plan_parse
 * trims them.  Returns PERFCHECK_OK, or PERFCHECK_ERROR_INVALID_ARGUMENT with
 * the reason in err. */
static perfcheck_status pc_config_check_metrics(const char *spec, pc_err *err) {
  const char *p = spec;
  for (int item = 1;; item++) {
    const char *end = strchr(p, ',');
    const char *a = p, *b = end ? end : p + strlen(p);
    while (a < b && pc_config_space(*a)) a++;
    while (b > a && pc_config_space(b[-1])) b--;
    size_t len = (size_t)(b - a);
    if (len == 0) return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "is not a metric list (item %d is empty)", item);
    if (!pc_metric_set_bit(a, len)) { /* pc_metrics.c: the set names */
      int has_unit_sep = 0;
      for (size_t i = 0; i < len; i++) {
        if (!pc_config_metric_char(a[i]))
          return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT,
                            "is not a metric list (item %d has a character not allowed in a metric name)", item);
        if (i + 1 < len && a[i] == '_' && a[i + 1] == '_') has_unit_sep = 1;
      }
      if (!has_unit_sep)
        return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT,
                          "is not a metric list (item %d is neither a set (%s) nor an ncu metric name)", item,
                          pc_metric_set_names);
    }
    if (!end) return PERFCHECK_OK;
    p = end + 1;
  }
}

/* The placeholders pc_output_expand knows (pc_output.h).  Returns
 * PERFCHECK_OK, or PERFCHECK_ERROR_INVALID_ARGUMENT with the reason in err. */
static perfcheck_status pc_config_check_output(const char *pat, pc_err *err) {
  pc_err e;
  perfcheck_status st = pc_output_check_pattern(pat, &e);
  if (st == PERFCHECK_OK) return PERFCHECK_OK;
  return pc_err_set(err, st, "is not an output pattern (%s)", e.msg);
}

/* Keeps a copy of v; on failure warns and returns NULL (counted as bad). */
static const char *pc_config_store(FILE *warn, const char *var, const char *v, const char *dflt, int *bad) {
  const char *kept = pc_config_keep(v);
  if (!kept) {
    pc_config_warn(warn, var, v, "could not be stored (out of memory)", dflt);
    (*bad)++;
  }
  return kept;
}

/* PERFCHECK_NVTX=regex:EXPR, compiled once through the guard and kept for
 * the process (like the strings); NULL with one warning when refused. */
static const pc_regex *pc_config_nvtx_regex(const char *expr, FILE *warn, int *bad) {
  static pc_regex kept[8];
  static char *kept_expr[8];
  static size_t nkept;
  for (size_t i = 0; i < nkept; i++)
    if (strcmp(kept_expr[i], expr) == 0) return &kept[i];
  char why[300];
  size_t at = 0;
  pc_regex re;
  pc_err e;
  if (!*expr || pc_regex_compile(&re, expr, &at, &e) != PERFCHECK_OK) {
    snprintf(why, sizeof why, "is not a usable POSIX extended regex (%.239s)", *expr ? e.msg : "empty after regex:");
    pc_config_warn(warn, "PERFCHECK_NVTX", expr - 6, why, "every range");
    (*bad)++;
    return NULL;
  }
  char *copy = nkept < sizeof kept / sizeof kept[0] ? pc_strdup(expr) : NULL;
  if (!copy) {
    pc_regex_free(&re);
    pc_config_warn(warn, "PERFCHECK_NVTX", expr - 6, "could not be stored", "every range");
    (*bad)++;
    return NULL;
  }
  kept[nkept] = re;
  kept_expr[nkept] = copy;
  return &kept[nkept++];
}

/* ---- the variables ---------------------------------------------------------- */

static void pc_config_mode(perfcheck_options *o, FILE *warn, int *bad) {
  const char *v = pc_config_get("PERFCHECK_MODE");
  if (!v) return;
  if (strcmp(v, "timing") == 0) {
    o->mode = PERFCHECK_MODE_TIMING;
  } else if (strcmp(v, "counters") == 0) {
    o->mode = PERFCHECK_MODE_COUNTERS;
  } else {
    pc_config_warn(warn, "PERFCHECK_MODE", v, "is not one of timing, counters",
                   "counters (timing where the GPU refuses counters)");
    (*bad)++;
  }
}

static void pc_config_metrics(perfcheck_options *o, FILE *warn, int *bad) {
  const char *v = pc_config_get("PERFCHECK_METRICS");
  if (!v) return;
  pc_err why;
  if (pc_config_check_metrics(v, &why) != PERFCHECK_OK) {
    pc_config_warn(warn, "PERFCHECK_METRICS", v, why.msg, "default");
    (*bad)++;
    return;
  }
  o->metrics = pc_config_store(warn, "PERFCHECK_METRICS", v, "default", bad);
}

/* ncu's -k vocabulary (pc_regex.h): a function name, exactly, or
 * regex:EXPR through the regex guard; the session gets a POSIX ERE. */
static void pc_config_kernels(perfcheck_options *o, FILE *warn, int *bad) {
  const char *v = pc_config_get("PERFCHECK_KERNELS");
  if (!v) return;
  char why[300];
  size_t at = 0;
  char *re = NULL;
  pc_err e;
  if (pc_kernel_filter_regex(v, &re, &at, &e) != PERFCHECK_OK) {
    if (strncmp(v, "regex:", 6) == 0)
      snprintf(why, sizeof why, "is not a usable POSIX extended regex (%.239s)", e.msg);
    else
      snprintf(why, sizeof why, "is not a kernel name (%.239s)", e.msg);
    pc_config_warn(warn, "PERFCHECK_KERNELS", v, why, "every kernel");
    (*bad)++;
    return;
  }
  o->kernel_regex = pc_config_store(warn, "PERFCHECK_KERNELS", re, "every kernel", bad);
  free(re);
}

static void pc_config_u64(const char *var, uint64_t *field, const char *dflt, FILE *warn, int *bad) {
  const char *v = pc_config_get(var);
  if (!v) return;
  uint64_t x;
  int rc = pc_config_parse_uint(v, UINT64_MAX, &x);
  if (rc != 0) {
    pc_config_warn(warn, var, v, rc == -2 ? "is too large" : "is not a non-negative integer", dflt);
    (*bad)++;
    return;
  }
  *field = x;
}

static void pc_config_per_signature(perfcheck_options *o, FILE *warn, int *bad) {
  const char *v = pc_config_get("PERFCHECK_PER_SIGNATURE");
  if (!v) return;
  uint64_t x;
  int rc = pc_config_parse_uint(v, UINT_MAX, &x);
  if (rc != 0 || x == 0) {
    pc_config_warn(warn, "PERFCHECK_PER_SIGNATURE", v, rc == -2 ? "is too large" : "is not a positive integer", "1");
    (*bad)++;
    return;
  }
  o->per_signature = (unsigned)x;
}

static void pc_config_output(perfcheck_options *o, FILE *warn, int *bad) {
  const char *v = pc_config_get("PERFCHECK_OUTPUT");
  if (!v) return;
  pc_err why;
  if (pc_config_check_output(v, &why) != PERFCHECK_OK) {
    pc_config_warn(warn, "PERFCHECK_OUTPUT", v, why.msg, "the default (perfcheck-PID.txt)");
    (*bad)++;
    return;
  }
  o->output = pc_config_store(warn, "PERFCHECK_OUTPUT", v, "the default (perfcheck-PID.txt)", bad);
}

const char *pc_config_default_output(perfcheck_format f) {
  switch (f) {
    case PERFCHECK_FORMAT_JSON:
      return "perfcheck-%p.json";
    case PERFCHECK_FORMAT_CSV:
      return "perfcheck-%p.csv";
    case PERFCHECK_FORMAT_HTML:
      return "perfcheck-%p.html";
    default:
      return "perfcheck-%p.txt";
  }
}

static void pc_config_format(perfcheck_options *o, FILE *warn, int *bad) {
  const char *v = pc_config_get("PERFCHECK_FORMAT");
  if (!v) return;
  if (strcmp(v, "text") == 0) {
    o->output_format = PERFCHECK_FORMAT_TEXT;
  } else if (strcmp(v, "json") == 0) {
    o->output_format = PERFCHECK_FORMAT_JSON;
  } else if (strcmp(v, "csv") == 0) {
    o->output_format = PERFCHECK_FORMAT_CSV;
  } else if (strcmp(v, "html") == 0) {
    o->output_format = PERFCHECK_FORMAT_HTML;
  } else {
    pc_config_warn(warn, "PERFCHECK_FORMAT", v, "is not one of text, json, csv, html", "text");
    (*bad)++;
  }
}

/* The output's format follows its name (pc_output_format_of_name) when
 * PERFCHECK_FORMAT is unset; a PERFCHECK_FORMAT that the name contradicts
 * (PERFCHECK_OUTPUT=r.json PERFCHECK_FORMAT=csv) is one warning, and the
 * name decides: a file called r.json holds JSON. */
static void pc_config_format_of_output(perfcheck_options *o, FILE *warn, int *bad) {
  static const char *const names[] = {"text", "json", "csv", "html"};
  const int by_name = pc_output_format_of_name(o->output);
  if (by_name < 0) return;
  const char *v = pc_config_get("PERFCHECK_FORMAT");
  if (v && (int)o->output_format != by_name) {
    char why[160];
    snprintf(why, sizeof why, "contradicts PERFCHECK_OUTPUT, whose name says %s", names[by_name]);
    pc_config_warn(warn, "PERFCHECK_FORMAT", v, why, names[by_name]);
    (*bad)++;
  }
  o->output_format = (perfcheck_format)by_name;
}

/* Switches (diagnostics of the counter layer, PERFCHECK_VERBOSE): the
 * library reads them where they act, as on unless "0" (PERFCHECK_ROTATE_RANGE:
 * kernel unless "user"); a value that is not one of the words is said here,
 * like every other bad value, and acts as the default. */
static void pc_config_switches(FILE *warn, int *bad) {
  static const struct {
    const char *var, *a, *b, *why, *dflt;
  } sw[] = {
      {"PERFCHECK_VERBOSE", "0", "1", "is not 0 or 1", "1 (warnings on stderr)"},
      {"PERFCHECK_ROTATE_SESSION", "0", "1", "is not 0 or 1", "1"},
      {"PERFCHECK_ROTATE_FLUSH", "0", "1", "is not 0 or 1", "1"},
      {"PERFCHECK_ROTATE_REENABLE", "0", "1", "is not 0 or 1", "1"},
      {"PERFCHECK_ROTATE_RANGE", "kernel", "user", "is not kernel or user", "kernel"},
      {"PERFCHECK_REPLAY", "kernel", "rotate", "is not kernel or rotate", "kernel (rotate with XLA's CUDA plugin)"},
  };
  for (size_t i = 0; i < sizeof sw / sizeof sw[0]; i++) {
    const char *v = pc_config_get(sw[i].var);
    if (!v || strcmp(v, sw[i].a) == 0 || strcmp(v, sw[i].b) == 0) continue;
    pc_config_warn(warn, sw[i].var, v, sw[i].why, sw[i].dflt);
    (*bad)++;
  }
}

static void pc_config_progress(perfcheck_options *o, FILE *warn, int *bad) {
  const char *v = pc_config_get("PERFCHECK_PROGRESS");
  if (!v) return;
  if (strcmp(v, "0") == 0 || strcmp(v, "1") == 0 || strcmp(v, "2") == 0) {
    o->progress = v[0] - '0'; /* 2: also each profiled launch's phases */
  } else {
    pc_config_warn(warn, "PERFCHECK_PROGRESS", v, "is not 0, 1 or 2", "0");
    (*bad)++;
  }
}

/* The process's NVTX filter (pc_nvtx_filter.h), rebuilt at each call. */
static pc_nvtx_filter pc_cfg_nvtx;

/* PERFCHECK_NVTX_INCLUDE / _EXCLUDE: configurations one a line.  A bad one
 * is one warning; the variable is then left out (the others stand). */
static void pc_config_nvtx_configs(const char *var, int include, FILE *warn, int *bad) {
  const char *v = pc_config_get(var);
  if (!v) return;
  pc_nvtx_filter trial = pc_cfg_nvtx; /* added on a copy: all or nothing */
  const size_t before = trial.n;
  char item[1024];
  pc_err why;
  for (const char *p = v; *p;) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    if (len && len < sizeof item) {
      memcpy(item, p, len);
      item[len] = '\0';
      if (pc_nvtx_filter_add(&trial, include, item, &why) != PERFCHECK_OK) {
        for (size_t i = before; i < trial.n; i++) { /* undo this variable's */
          pc_nvtx_filter one = {0};
          one.n = 1;
          one.p[0] = trial.p[i];
          pc_nvtx_filter_free(&one);
        }
        pc_config_warn(warn, var, v, why.msg, include ? "everywhere" : "nowhere");
        (*bad)++;
        return;
      }
    }
    if (!nl) break;
    p = nl + 1;
  }
  pc_cfg_nvtx = trial;
}

int pc_config_from_env(perfcheck_options *opt, pc_env_config *extra, FILE *warn) {
  if (!opt) return -1;
  int bad = 0;
  perfcheck_options_init(opt);
  pc_config_mode(opt, warn, &bad);
  pc_config_metrics(opt, warn, &bad);
  pc_config_kernels(opt, warn, &bad);
  pc_config_u64("PERFCHECK_LAUNCH_SKIP", &opt->launch_skip, "0", warn, &bad);
  pc_config_u64("PERFCHECK_LAUNCH_COUNT", &opt->launch_count, "0 (no limit)", warn, &bad);
  pc_config_per_signature(opt, warn, &bad);
  pc_config_output(opt, warn, &bad);
  pc_config_format(opt, warn, &bad);
  pc_config_format_of_output(opt, warn, &bad);
  pc_config_progress(opt, warn, &bad);
  pc_config_switches(warn, &bad);

  /* Any name is a valid NVTX range name; regex:EXPR goes through the guard. */
  const char *nvtx = pc_config_get("PERFCHECK_NVTX");
  const char *nvtx_kept = NULL;
  const pc_regex *nvtx_re = NULL;
  if (nvtx && strncmp(nvtx, "regex:", 6) == 0) {
    nvtx_re = pc_config_nvtx_regex(nvtx + 6, warn, &bad);
    if (nvtx_re) nvtx_kept = pc_config_store(warn, "PERFCHECK_NVTX", nvtx, "every range", &bad);
    if (!nvtx_kept) nvtx_re = NULL;
  } else if (nvtx) {
    nvtx_kept = pc_config_store(warn, "PERFCHECK_NVTX", nvtx, "every range", &bad);
  }
  pc_nvtx_filter_free(&pc_cfg_nvtx);
  pc_err why;
  if (nvtx_kept && pc_nvtx_filter_add_name(&pc_cfg_nvtx, nvtx_kept, &why) != PERFCHECK_OK) {
    pc_config_warn(warn, "PERFCHECK_NVTX", nvtx_kept, why.msg, "every range");
    bad++;
  }
  pc_config_nvtx_configs("PERFCHECK_NVTX_INCLUDE", 1, warn, &bad);
  pc_config_nvtx_configs("PERFCHECK_NVTX_EXCLUDE", 0, warn, &bad);
  if (extra) {
    extra->nvtx_include = nvtx_kept;
    extra->nvtx_regex = nvtx_re;
    extra->nvtx_filter = pc_cfg_nvtx.n ? &pc_cfg_nvtx : NULL;
    extra->progress = opt->progress;
  }
  return bad;
}

PERFCHECK_API perfcheck_status perfcheck_options_from_env(perfcheck_options *options, unsigned *bad_values) {
  if (bad_values) *bad_values = 0;
  if (!options) return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_options_from_env: options is NULL");
  int bad = pc_config_from_env(options, NULL, stderr);
  if (bad_values && bad > 0) *bad_values = (unsigned)bad;
  return PERFCHECK_OK;
}

PERFCHECK_API perfcheck_status perfcheck_options_check(const perfcheck_options *o) {
  if (!o) return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_options_check: options is NULL");
  if (o->size < sizeof(size_t) + sizeof(perfcheck_mode))
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_options_check: options->size %zu is too small", o->size);
  perfcheck_options x;
  perfcheck_options_init(&x);
  memcpy(&x, o, o->size < sizeof x ? o->size : sizeof x);
  if (x.mode != PERFCHECK_MODE_AUTO && x.mode != PERFCHECK_MODE_TIMING && x.mode != PERFCHECK_MODE_COUNTERS)
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "mode %d is not one of auto, timing, counters", (int)x.mode);
  pc_err why;
  if (x.metrics && pc_config_check_metrics(x.metrics, &why) != PERFCHECK_OK)
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "metrics \"%.200s\" %s", x.metrics, why.msg);
  if (x.kernel_regex) {
    pc_regex re;
    size_t at = 0;
    if (pc_regex_compile(&re, x.kernel_regex, &at, &why) != PERFCHECK_OK)
      return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "kernel_regex \"%.200s\" (at character %zu): %s",
                     x.kernel_regex, at + 1, why.msg);
    pc_regex_free(&re);
  }
  if ((unsigned)x.output_format > PERFCHECK_FORMAT_HTML)
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "output_format %d is not one of text, json, csv, html",
                   (int)x.output_format);
  if (x.output) {
    if (pc_config_check_output(x.output, &why) != PERFCHECK_OK)
      return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "output \"%.200s\" %s", x.output, why.msg);
    static const char *const names[] = {"text", "json", "csv", "html"};
    const int by_name = pc_output_format_of_name(x.output);
    if (by_name >= 0 && by_name != (int)x.output_format)
      return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "output \"%.200s\" is named for %s, but output_format is %s",
                     x.output, names[by_name], names[x.output_format]);
  }
  return PERFCHECK_OK;
}

int pc_config_replay_rotate(const char *env, int xla_loaded, pc_err *why) {
  pc_err_clear(why);
  if (env && strcmp(env, "rotate") == 0) return 1;
  if (env && strcmp(env, "kernel") == 0) return 0;
  static const char xla[] =
      "rotation, not kernel replay, because XLA's CUDA plugin (JAX) is loaded: kernel replay of the default set "
      "crashed inside CUPTI on XLA's GEMM autotuning (H200, CUPTI 13.0; docs/cupti.md section 18); "
      "PERFCHECK_REPLAY=kernel asks for kernel replay";
  if (env && *env)
    pc_err_set(why, PERFCHECK_ERROR_INVALID_ARGUMENT, "PERFCHECK_REPLAY=%s is neither kernel nor rotate: %s", env,
               xla_loaded ? xla : "kernel replay");
  else if (xla_loaded)
    pc_err_set(why, PERFCHECK_OK, "%s", xla);
  return xla_loaded ? 1 : 0;
}

int pc_config_nvtx_match(const pc_env_config *c, const char *name) {
  if (!c || !c->nvtx_include || !name) return 0;
  if (c->nvtx_regex) return pc_regex_match(c->nvtx_regex, name) == 1;
  return strcmp(name, c->nvtx_include) == 0;
}

/* ---- the process's place in a parallel job ------------------------------------------- */

/* A rank or size as the launchers write it: decimal digits only, in range. */
static int pc_job_int(const char *v, long min, int *out) {
  if (!v || !*v) return 0;
  long x = 0;
  for (const char *p = v; *p; p++) {
    if (*p < '0' || *p > '9') return -1;
    x = x * 10 + (*p - '0');
    if (x > 16777216) return -1; /* no job has more ranks */
  }
  if (x < min) return -1;
  *out = (int)x;
  return 1;
}

perfcheck_status pc_job_place(pc_env_get get, int *rank, int *world_size, int *local_rank, pc_err *err) {
  static const char *const ranks[] = {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK"};
  static const char *const sizes[] = {"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE"};
  static const char *const locals[] = {"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK"};
  *rank = *world_size = *local_rank = -1;
  pc_err_clear(err);
  char *bad = err ? err->msg : NULL; /* the names of the values ignored, one list */
  const size_t badlen = err ? sizeof err->msg : 0;
  size_t used = 0;
  int ignored = 0;
  const struct {
    const char *const *names;
    size_t n;
    long min;
    int *out;
  } groups[] = {{ranks, 3, 0, rank}, {sizes, 3, 1, world_size}, {locals, 2, 0, local_rank}};
  for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++)
    for (size_t i = 0; i < groups[g].n && *groups[g].out < 0; i++) {
      const char *v = get ? get(groups[g].names[i]) : NULL;
      if (pc_job_int(v, groups[g].min, groups[g].out) >= 0) continue;
      ignored = 1;
      if (bad && used + 1 < badlen) {
        int k = snprintf(bad + used, badlen - used, "%s%s=%.40s", used ? ", " : "", groups[g].names[i], v);
        if (k > 0) used += (size_t)k < badlen - used ? (size_t)k : badlen - used - 1;
      }
    }
  if (*rank >= 0 && *world_size > 0 && *rank >= *world_size) {
    ignored = 1;
    if (bad && used + 1 < badlen)
      snprintf(bad + used, badlen - used, "%srank %d is not below the world size %d", used ? ", " : "", *rank,
               *world_size);
    *world_size = -1;
  }
  if (!ignored) return PERFCHECK_OK;
  if (err) err->status = PERFCHECK_ERROR_INVALID_ARGUMENT;
  return PERFCHECK_ERROR_INVALID_ARGUMENT;
}
