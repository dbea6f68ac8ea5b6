/* Configuration by environment (pc_config.c): every variable with good
 * values; each kind of bad value gives exactly one warning line that names
 * the variable, the value and the default, and changes nothing else; unset
 * and empty mean the defaults, perfcheck_options_init's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/pc_config.h"
#include "model/pc_core.h"
#include "base/pc_nvtx_filter.h"

static const char *const all_vars[] = {
    "PERFCHECK_MODE",          "PERFCHECK_METRICS", "PERFCHECK_KERNELS", "PERFCHECK_LAUNCH_SKIP",
    "PERFCHECK_LAUNCH_COUNT",  "PERFCHECK_PER_SIGNATURE", "PERFCHECK_NVTX", "PERFCHECK_OUTPUT",
    "PERFCHECK_FORMAT",        "PERFCHECK_PROGRESS", "PERFCHECK_NVTX_INCLUDE", "PERFCHECK_NVTX_EXCLUDE",
    "PERFCHECK_VERBOSE",       "PERFCHECK_ROTATE_SESSION", "PERFCHECK_ROTATE_FLUSH", "PERFCHECK_ROTATE_REENABLE",
    "PERFCHECK_ROTATE_RANGE",  "PERFCHECK_REPLAY",
};

static int clear_env(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof all_vars / sizeof all_vars[0]; i++) unsetenv(all_vars[i]);
  return 0;
}

/* The result of one pc_config_from_env call with its warnings captured. */
typedef struct run {
  int bad;
  perfcheck_options opt;
  pc_env_config extra;
  char *warn;  /* everything written to the warning stream */
  size_t lines;
} run;

static void run_config(run *r) {
  size_t len = 0;
  r->warn = NULL;
  FILE *f = open_memstream(&r->warn, &len);
  assert_non_null(f);
  memset(&r->extra, 0x5a, sizeof r->extra); /* garbage: the call must fill it */
  memset(&r->opt, 0x5a, sizeof r->opt);
  r->bad = pc_config_from_env(&r->opt, &r->extra, f);
  assert_int_equal(fclose(f), 0);
  r->lines = 0;
  for (const char *p = r->warn; *p; p++)
    if (*p == '\n') r->lines++;
  if (len) assert_true(r->warn[len - 1] == '\n'); /* whole lines only */
}

static void done(run *r) { free(r->warn); }

static void assert_str_or_null(const char *a, const char *b) {
  if (!a || !b)
    assert_ptr_equal(a, b);
  else
    assert_string_equal(a, b);
}

/* Every field of two option structs. */
static void assert_options_equal(const perfcheck_options *a, const perfcheck_options *b) {
  assert_int_equal(a->size, b->size);
  assert_int_equal(a->mode, b->mode);
  assert_str_or_null(a->metrics, b->metrics);
  assert_str_or_null(a->kernel_regex, b->kernel_regex);
  assert_int_equal(a->launch_skip, b->launch_skip);
  assert_int_equal(a->launch_count, b->launch_count);
  assert_int_equal(a->per_signature, b->per_signature);
  assert_int_equal(a->progress, b->progress);
  assert_int_equal(a->emit_nvtx, b->emit_nvtx);
  assert_int_equal(a->quiet, b->quiet);
  assert_str_or_null(a->output, b->output);
  assert_int_equal(a->output_format, b->output_format);
}

static void defaults(perfcheck_options *o) { perfcheck_options_init(o); }

/* A good value: no warning, the field set, every other field the default. */
#define GOOD(var, value, field_check)                 \
  do {                                                \
    clear_env(NULL);                                  \
    setenv(var, value, 1);                            \
    run r_;                                           \
    run_config(&r_);                                  \
    assert_int_equal(r_.bad, 0);                      \
    assert_string_equal(r_.warn, "");                 \
    perfcheck_options want_;                          \
    defaults(&want_);                                 \
    perfcheck_options *o = &r_.opt;                   \
    pc_env_config *x = &r_.extra;                     \
    (void)o;                                          \
    (void)x;                                          \
    field_check;                                      \
    assert_options_equal(&r_.opt, &want_);            \
    done(&r_);                                        \
  } while (0)

/* A bad value: exactly one line, naming the variable and the default, and
 * every field the default.  `why` is a fragment of the reason. */
static void bad(const char *var, const char *value, const char *why, const char *dflt) {
  clear_env(NULL);
  setenv(var, value, 1);
  run r;
  run_config(&r);
  assert_int_equal(r.bad, 1);
  if (r.lines != 1) fail_msg("%s=%s: %zu warning lines: %s", var, value, r.lines, r.warn);
  char head[128], tail[160];
  snprintf(head, sizeof head, "perfcheck: %s=\"", var);
  snprintf(tail, sizeof tail, "; using %s\n", dflt);
  if (strncmp(r.warn, head, strlen(head)) != 0) fail_msg("warning does not start with %s: %s", head, r.warn);
  size_t n = strlen(r.warn);
  if (n < strlen(tail) || strcmp(r.warn + n - strlen(tail), tail) != 0)
    fail_msg("warning does not end with \"%s\": %s", tail, r.warn);
  if (!strstr(r.warn, why)) fail_msg("warning lacks \"%s\": %s", why, r.warn);
  perfcheck_options want;
  defaults(&want);
  assert_options_equal(&r.opt, &want);
  assert_null(r.extra.nvtx_include);
  assert_int_equal(r.extra.progress, 0);
  done(&r);
}

/* ---- unset and empty ---------------------------------------------------------- */

static void test_unset_is_default(void **state) {
  (void)state;
  run r;
  run_config(&r);
  assert_int_equal(r.bad, 0);
  assert_string_equal(r.warn, "");
  perfcheck_options want;
  perfcheck_options_init(&want);
  assert_options_equal(&r.opt, &want);
  /* The values the table in pc_config.h promises. */
  assert_int_equal(r.opt.mode, PERFCHECK_MODE_AUTO);
  assert_null(r.opt.metrics);
  assert_null(r.opt.kernel_regex);
  assert_int_equal(r.opt.launch_skip, 0);
  assert_int_equal(r.opt.launch_count, 0);
  assert_int_equal(r.opt.per_signature, 1);
  assert_null(r.opt.output);
  assert_int_equal(r.opt.output_format, PERFCHECK_FORMAT_TEXT);
  assert_int_equal(r.opt.progress, 0);
  assert_null(r.extra.nvtx_include);
  assert_int_equal(r.extra.progress, 0);
  done(&r);
}

static void test_empty_is_default(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof all_vars / sizeof all_vars[0]; i++) setenv(all_vars[i], "", 1);
  run r;
  run_config(&r);
  assert_int_equal(r.bad, 0);
  assert_string_equal(r.warn, "");
  perfcheck_options want;
  perfcheck_options_init(&want);
  assert_options_equal(&r.opt, &want);
  assert_null(r.extra.nvtx_include);
  done(&r);
}

static void test_null_arguments(void **state) {
  (void)state;
  assert_int_equal(pc_config_from_env(NULL, NULL, stderr), -1);
  setenv("PERFCHECK_FORMAT", "xml", 1);
  setenv("PERFCHECK_MODE", "timing", 1);
  perfcheck_options o;
  /* No extra, no warning stream: still counted, still applied. */
  assert_int_equal(pc_config_from_env(&o, NULL, NULL), 1);
  assert_int_equal(o.mode, PERFCHECK_MODE_TIMING);
  assert_int_equal(o.output_format, PERFCHECK_FORMAT_TEXT);
}

/* ---- each variable ------------------------------------------------------------ */

static void test_mode(void **state) {
  (void)state;
  GOOD("PERFCHECK_MODE", "timing", want_.mode = PERFCHECK_MODE_TIMING; assert_int_equal(o->mode, PERFCHECK_MODE_TIMING));
  GOOD("PERFCHECK_MODE", "counters",
       want_.mode = PERFCHECK_MODE_COUNTERS; assert_int_equal(o->mode, PERFCHECK_MODE_COUNTERS));
  const char *dflt = "counters (timing where the GPU refuses counters)";
  bad("PERFCHECK_MODE", "Timing", "is not one of timing, counters", dflt);
  bad("PERFCHECK_MODE", "auto", "is not one of timing, counters", dflt);
  bad("PERFCHECK_MODE", "timing ", "is not one of timing, counters", dflt);
  bad("PERFCHECK_MODE", "counter", "is not one of timing, counters", dflt);
}

static void test_metrics(void **state) {
  (void)state;
  static const char *const good[] = {
      "default", "sol", "full", "default,smsp__inst_executed.sum",
      "dram__bytes_read.sum, dram__bytes_write.sum", "sol,full", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
  };
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    const char *v = good[i];
    GOOD("PERFCHECK_METRICS", v, want_.metrics = v; assert_string_equal(o->metrics, v));
  }
  bad("PERFCHECK_METRICS", "default,,sol", "item 2 is empty", "default");
  bad("PERFCHECK_METRICS", "sol,", "item 2 is empty", "default");
  bad("PERFCHECK_METRICS", ",sol", "item 1 is empty", "default");
  bad("PERFCHECK_METRICS", " , ", "item 1 is empty", "default");
  bad("PERFCHECK_METRICS", "dram__bytes;rm", "character not allowed in a metric name", "default");
  bad("PERFCHECK_METRICS", "dram__bytes read.sum", "character not allowed in a metric name", "default");
  bad("PERFCHECK_METRICS", "fastest", "item 1 is neither a set", "default");
  bad("PERFCHECK_METRICS", "default,Sol", "item 2 is neither a set", "default");
}

static void test_kernels(void **state) {
  (void)state;
  /* ncu's vocabulary: regex:EXPR is a regex; the inputs of
   * these four checks gained the "regex:" prefix, their results are as before. */
  GOOD("PERFCHECK_KERNELS", "regex:^mystery[AB]$", want_.kernel_regex = "^mystery[AB]$";
       assert_string_equal(o->kernel_regex, "^mystery[AB]$"));
  GOOD("PERFCHECK_KERNELS", "regex:gemm|conv(2d)?", want_.kernel_regex = "gemm|conv(2d)?";
       assert_string_equal(o->kernel_regex, "gemm|conv(2d)?"));
  bad("PERFCHECK_KERNELS", "regex:(", "is not a usable POSIX extended regex (", "every kernel");
  bad("PERFCHECK_KERNELS", "regex:mystery[AB", "is not a usable POSIX extended regex (", "every kernel");
  bad("PERFCHECK_KERNELS", "regex:a{2,1}", "is not a usable POSIX extended regex (", "every kernel");
  /* A bare name is the function name, exactly, as ncu's -k NAME. */
  GOOD("PERFCHECK_KERNELS", "mysteryA", want_.kernel_regex = "^(.*::)?mysteryA(<.*)?$";
       assert_string_equal(o->kernel_regex, "^(.*::)?mysteryA(<.*)?$"));
  GOOD("PERFCHECK_KERNELS", "scaleAdd<4>", want_.kernel_regex = "^(.*::)?scaleAdd<4>$";
       assert_string_equal(o->kernel_regex, "^(.*::)?scaleAdd<4>$"));
  GOOD("PERFCHECK_KERNELS", "(", want_.kernel_regex = "^(.*::)?\\((<.*)?$";
       assert_string_equal(o->kernel_regex, "^(.*::)?\\((<.*)?$"));
  bad("PERFCHECK_KERNELS", "regex:", "needs an expression", "every kernel");
  bad("PERFCHECK_KERNELS", "bad\tname", "is not a kernel name (a control character", "every kernel");
  /* The regex guard (pc_regex.h), the same rules as expectations'. */
  bad("PERFCHECK_KERNELS", "regex:((a{255}){255}){255}", "rule \"nesting\"", "every kernel");
  bad("PERFCHECK_KERNELS", "regex:(a{255}){255}", "rule \"expansion\"", "every kernel");
  bad("PERFCHECK_KERNELS", "regex:(x|xx)+\\1y", "rule \"backref\"", "every kernel");
  bad("PERFCHECK_KERNELS", "regex:a{256}", "rule \"count\"", "every kernel");
}

static void test_launch_skip(void **state) {
  (void)state;
  GOOD("PERFCHECK_LAUNCH_SKIP", "0", assert_int_equal(o->launch_skip, 0));
  GOOD("PERFCHECK_LAUNCH_SKIP", "12", want_.launch_skip = 12; assert_int_equal(o->launch_skip, 12));
  GOOD("PERFCHECK_LAUNCH_SKIP", "007", want_.launch_skip = 7; assert_int_equal(o->launch_skip, 7));
  GOOD("PERFCHECK_LAUNCH_SKIP", "18446744073709551615", want_.launch_skip = UINT64_MAX;
       assert_true(o->launch_skip == UINT64_MAX));
  static const char *const junk[] = {"-1", "+5", "abc", " 5", "5 ", "1e3", "0x10", "5k", "\t"};
  for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++)
    bad("PERFCHECK_LAUNCH_SKIP", junk[i], "is not a non-negative integer", "0");
  bad("PERFCHECK_LAUNCH_SKIP", "18446744073709551616", "is too large", "0");
  bad("PERFCHECK_LAUNCH_SKIP", "99999999999999999999999", "is too large", "0");
}

static void test_launch_count(void **state) {
  (void)state;
  GOOD("PERFCHECK_LAUNCH_COUNT", "1", want_.launch_count = 1; assert_int_equal(o->launch_count, 1));
  GOOD("PERFCHECK_LAUNCH_COUNT", "4096", want_.launch_count = 4096; assert_int_equal(o->launch_count, 4096));
  bad("PERFCHECK_LAUNCH_COUNT", "-3", "is not a non-negative integer", "0 (no limit)");
  bad("PERFCHECK_LAUNCH_COUNT", "3.5", "is not a non-negative integer", "0 (no limit)");
  bad("PERFCHECK_LAUNCH_COUNT", "18446744073709551616", "is too large", "0 (no limit)");

  /* The exact line of the brief. */
  clear_env(NULL);
  setenv("PERFCHECK_LAUNCH_COUNT", "abc", 1);
  run r;
  run_config(&r);
  assert_string_equal(r.warn,
                      "perfcheck: PERFCHECK_LAUNCH_COUNT=\"abc\" is not a non-negative integer; using 0 (no limit)\n");
  done(&r);
}

static void test_per_signature(void **state) {
  (void)state;
  GOOD("PERFCHECK_PER_SIGNATURE", "1", assert_int_equal(o->per_signature, 1));
  GOOD("PERFCHECK_PER_SIGNATURE", "5", want_.per_signature = 5; assert_int_equal(o->per_signature, 5));
  GOOD("PERFCHECK_PER_SIGNATURE", "4294967295", want_.per_signature = 4294967295u;
       assert_true(o->per_signature == 4294967295u));
  bad("PERFCHECK_PER_SIGNATURE", "0", "is not a positive integer", "1");
  bad("PERFCHECK_PER_SIGNATURE", "000", "is not a positive integer", "1");
  bad("PERFCHECK_PER_SIGNATURE", "-2", "is not a positive integer", "1");
  bad("PERFCHECK_PER_SIGNATURE", "two", "is not a positive integer", "1");
  bad("PERFCHECK_PER_SIGNATURE", "4294967296", "is too large", "1");
}

static void test_nvtx(void **state) {
  (void)state;
  GOOD("PERFCHECK_NVTX", "train step", assert_string_equal(x->nvtx_include, "train step"));
  GOOD("PERFCHECK_NVTX", "forward/layer1", assert_string_equal(x->nvtx_include, "forward/layer1");
       assert_null(x->nvtx_regex); assert_true(pc_config_nvtx_match(x, "forward/layer1"));
       assert_false(pc_config_nvtx_match(x, "forward/layer12")));
  /* regex:EXPR, through the regex guard. */
  GOOD("PERFCHECK_NVTX", "regex:^step [0-9]+$", assert_string_equal(x->nvtx_include, "regex:^step [0-9]+$");
       assert_non_null(x->nvtx_regex); assert_true(pc_config_nvtx_match(x, "step 12"));
       assert_false(pc_config_nvtx_match(x, "step x")); assert_false(pc_config_nvtx_match(x, NULL)));
  bad("PERFCHECK_NVTX", "regex:(x|xx)+\\1y", "rule \"backref\"", "every range");
  bad("PERFCHECK_NVTX", "regex:[a", "is not a usable POSIX extended regex", "every range");
  bad("PERFCHECK_NVTX", "regex:", "empty after regex:", "every range");
  assert_false(pc_config_nvtx_match(NULL, "x"));
  /* ncu's --nvtx-include / --nvtx-exclude: push/pop
   * configurations one a line, one filter with PERFCHECK_NVTX's name. */
  GOOD("PERFCHECK_NVTX_INCLUDE", "train/\n[outer/inner]", assert_non_null(x->nvtx_filter);
       assert_int_equal(x->nvtx_filter->n, 2); assert_int_equal(x->nvtx_filter->ninclude, 2));
  GOOD("PERFCHECK_NVTX_EXCLUDE", "warmup/", assert_non_null(x->nvtx_filter); assert_int_equal(x->nvtx_filter->ninclude, 0));
  /* Start/end configurations too: "A" while A is open, "A,B" both. */
  GOOD("PERFCHECK_NVTX_INCLUDE", "train/\ntrain_step\nfwd,bwd", assert_non_null(x->nvtx_filter);
       assert_int_equal(x->nvtx_filter->n, 3); assert_int_equal(x->nvtx_filter->nstartend, 2));
  bad("PERFCHECK_NVTX_INCLUDE", "train/\nD@train_step", "names the NVTX domain \"D\"", "everywhere");
  bad("PERFCHECK_NVTX_EXCLUDE", "D@warmup/", "names the NVTX domain \"D\"", "nowhere");
}

static void test_output(void **state) {
  (void)state;
  static const char *const good[] = {
      "report.json", "report.%p.json", "/tmp/r-%h-%q{OMPI_COMM_WORLD_RANK}-%%.json", "-", "stderr",
      "%q{_X1}%p%h%%", "100%%.txt", "r.CSV", "page.htm", "r.json.bak",
  };
  /* The format follows the name when PERFCHECK_FORMAT is unset. */
  static const perfcheck_format by_name[] = {
      PERFCHECK_FORMAT_JSON, PERFCHECK_FORMAT_JSON, PERFCHECK_FORMAT_JSON, PERFCHECK_FORMAT_TEXT,
      PERFCHECK_FORMAT_TEXT, PERFCHECK_FORMAT_TEXT, PERFCHECK_FORMAT_TEXT, PERFCHECK_FORMAT_CSV,
      PERFCHECK_FORMAT_HTML, PERFCHECK_FORMAT_TEXT,
  };
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    const char *v = good[i];
    GOOD("PERFCHECK_OUTPUT", v, want_.output = v; want_.output_format = by_name[i];
         assert_string_equal(o->output, v));
  }
  /* A PERFCHECK_FORMAT that the name contradicts: one warning, the name
   * decides (a file called r.json holds JSON); one that agrees: none. */
  setenv("PERFCHECK_OUTPUT", "r.json", 1);
  setenv("PERFCHECK_FORMAT", "csv", 1);
  run r;
  run_config(&r);
  assert_int_equal(r.bad, 1);
  assert_int_equal(r.lines, 1);
  assert_string_equal(r.warn, "perfcheck: PERFCHECK_FORMAT=\"csv\" contradicts PERFCHECK_OUTPUT, whose name says "
                              "json; using json\n");
  assert_int_equal(r.opt.output_format, PERFCHECK_FORMAT_JSON);
  done(&r);
  setenv("PERFCHECK_FORMAT", "json", 1);
  run_config(&r);
  assert_int_equal(r.bad, 0);
  assert_string_equal(r.warn, "");
  done(&r);
  clear_env(NULL);
  const char *dflt = "the default (perfcheck-PID.txt)";
  bad("PERFCHECK_OUTPUT", "r.%x.json", "unknown %x", dflt);
  bad("PERFCHECK_OUTPUT", "r.%d.json", "unknown %d", dflt);
  bad("PERFCHECK_OUTPUT", "r.%q{RANK.json", "%q{ without its closing }", dflt);
  bad("PERFCHECK_OUTPUT", "r.%qRANK", "%q must be followed by {VAR}", dflt);
  bad("PERFCHECK_OUTPUT", "r.%q{}", "must hold an environment variable name", dflt);
  bad("PERFCHECK_OUTPUT", "r.%q{1X}", "must hold an environment variable name", dflt);
  bad("PERFCHECK_OUTPUT", "r.%q{A-B}", "must hold an environment variable name", dflt);
  bad("PERFCHECK_OUTPUT", "100%", "a lone % at the end", dflt);
  bad("PERFCHECK_OUTPUT", "r.%\x01", "unknown % sequence", dflt);
}

static void test_format(void **state) {
  (void)state;
  GOOD("PERFCHECK_FORMAT", "text", assert_int_equal(o->output_format, PERFCHECK_FORMAT_TEXT));
  GOOD("PERFCHECK_FORMAT", "json",
       want_.output_format = PERFCHECK_FORMAT_JSON; assert_int_equal(o->output_format, PERFCHECK_FORMAT_JSON));
  GOOD("PERFCHECK_FORMAT", "csv",
       want_.output_format = PERFCHECK_FORMAT_CSV; assert_int_equal(o->output_format, PERFCHECK_FORMAT_CSV));
  GOOD("PERFCHECK_FORMAT", "html",
       want_.output_format = PERFCHECK_FORMAT_HTML; assert_int_equal(o->output_format, PERFCHECK_FORMAT_HTML));
  bad("PERFCHECK_FORMAT", "xml", "is not one of text, json, csv, html", "text");
  bad("PERFCHECK_FORMAT", "JSON", "is not one of text, json, csv, html", "text");
}

/* The on/off switches the library reads where they act (lib/gpu, the
 * verbose switch): a value that is none of their words gets the same one
 * line as every other bad value. */
static void test_switches(void **state) {
  (void)state;
  static const char *const onoff[] = {"PERFCHECK_VERBOSE", "PERFCHECK_ROTATE_SESSION", "PERFCHECK_ROTATE_FLUSH",
                                      "PERFCHECK_ROTATE_REENABLE"};
  for (size_t i = 0; i < sizeof onoff / sizeof onoff[0]; i++) {
    GOOD(onoff[i], "0", (void)0);
    GOOD(onoff[i], "1", (void)0);
    bad(onoff[i], "2", "is not 0 or 1", i == 0 ? "1 (warnings on stderr)" : "1");
    bad(onoff[i], "yes", "is not 0 or 1", i == 0 ? "1 (warnings on stderr)" : "1");
  }
  GOOD("PERFCHECK_ROTATE_RANGE", "user", (void)0);
  bad("PERFCHECK_ROTATE_RANGE", "range", "is not kernel or user", "kernel");
  GOOD("PERFCHECK_REPLAY", "rotate", (void)0);
  bad("PERFCHECK_REPLAY", "application", "is not kernel or rotate", "kernel (rotate with XLA's CUDA plugin)");
}

/* perfcheck_options_check: what perfcheck_session_create would refuse,
 * refused without a session, naming the field. */
static void test_options_check(void **state) {
  (void)state;
  perfcheck_options o;
  perfcheck_options_init(&o);
  assert_int_equal(perfcheck_options_check(&o), PERFCHECK_OK);
  assert_int_equal(perfcheck_options_check(NULL), PERFCHECK_ERROR_INVALID_ARGUMENT);
  static const struct {
    const char *kernels, *output, *metrics;
    perfcheck_format format;
    const char *why; /* NULL: accepted */
  } t[] = {
      {"^gemm", NULL, NULL, PERFCHECK_FORMAT_TEXT, NULL},
      {"regex:(", NULL, NULL, PERFCHECK_FORMAT_TEXT, "kernel_regex \"regex:(\" (at character"},
      {"(x|xx)+\\1y", NULL, NULL, PERFCHECK_FORMAT_TEXT, "rule \"backref\""},
      {NULL, "x%z", NULL, PERFCHECK_FORMAT_TEXT, "output \"x%z\" is not an output pattern (unknown %z"},
      {NULL, "r.%p.json", NULL, PERFCHECK_FORMAT_JSON, NULL},
      {NULL, "r.json", NULL, PERFCHECK_FORMAT_CSV, "is named for json, but output_format is csv"},
      {NULL, "r.%q{RANK}", NULL, PERFCHECK_FORMAT_CSV, NULL},
      {NULL, NULL, "default,smsp__inst_executed.sum", PERFCHECK_FORMAT_TEXT, NULL},
      {NULL, NULL, "sol,,x", PERFCHECK_FORMAT_TEXT, "metrics \"sol,,x\" is not a metric list (item 2 is empty)"},
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    perfcheck_options_init(&o);
    o.kernel_regex = t[i].kernels;
    o.output = t[i].output;
    o.metrics = t[i].metrics;
    o.output_format = t[i].format;
    perfcheck_status st = perfcheck_options_check(&o);
    if (!t[i].why) {
      if (st != PERFCHECK_OK) fail_msg("case %zu refused: %s", i, perfcheck_last_error_message());
      continue;
    }
    assert_int_equal(st, PERFCHECK_ERROR_INVALID_ARGUMENT);
    if (!strstr(perfcheck_last_error_message(), t[i].why))
      fail_msg("case %zu: \"%s\" lacks \"%s\"", i, perfcheck_last_error_message(), t[i].why);
  }
  perfcheck_options_init(&o);
  o.mode = (perfcheck_mode)7;
  assert_int_equal(perfcheck_options_check(&o), PERFCHECK_ERROR_INVALID_ARGUMENT);
  perfcheck_options_init(&o);
  o.output_format = (perfcheck_format)9;
  assert_int_equal(perfcheck_options_check(&o), PERFCHECK_ERROR_INVALID_ARGUMENT);
}

static void test_progress(void **state) {
  (void)state;
  GOOD("PERFCHECK_PROGRESS", "0", assert_int_equal(o->progress, 0); assert_int_equal(x->progress, 0));
  GOOD("PERFCHECK_PROGRESS", "1", want_.progress = 1; assert_int_equal(o->progress, 1);
       assert_int_equal(x->progress, 1));
  GOOD("PERFCHECK_PROGRESS", "2", want_.progress = 2; assert_int_equal(o->progress, 2);
       assert_int_equal(x->progress, 2));
  bad("PERFCHECK_PROGRESS", "yes", "is not 0, 1 or 2", "0");
  bad("PERFCHECK_PROGRESS", "3", "is not 0, 1 or 2", "0");
  bad("PERFCHECK_PROGRESS", "01", "is not 0, 1 or 2", "0");
}

/* ---- warnings: escaping, length, several at once ------------------------------- */

static void test_escaped_value(void **state) {
  (void)state;
  setenv("PERFCHECK_FORMAT", "a\nb\tc\x01\"q\\", 1);
  run r;
  run_config(&r);
  assert_int_equal(r.lines, 1);
  assert_string_equal(r.warn,
                      "perfcheck: PERFCHECK_FORMAT=\"a\\nb\\tc\\x01\\\"q\\\\\" is not one of text, json, csv, html; using text\n");
  done(&r);

  char long_value[400];
  memset(long_value, 'z', sizeof long_value - 1);
  long_value[sizeof long_value - 1] = '\0';
  setenv("PERFCHECK_FORMAT", long_value, 1);
  run_config(&r);
  assert_int_equal(r.lines, 1);
  char want[300];
  snprintf(want, sizeof want, "perfcheck: PERFCHECK_FORMAT=\"%.120s...\" is not", long_value);
  assert_memory_equal(r.warn, want, strlen(want));
  done(&r);
}

static void test_several_bad(void **state) {
  (void)state;
  setenv("PERFCHECK_MODE", "fast", 1);
  setenv("PERFCHECK_LAUNCH_SKIP", "-1", 1);
  setenv("PERFCHECK_FORMAT", "json", 1); /* good: applied */
  setenv("PERFCHECK_OUTPUT", "r.%z", 1);
  run r;
  run_config(&r);
  assert_int_equal(r.bad, 3);
  assert_int_equal(r.lines, 3);
  assert_non_null(strstr(r.warn, "PERFCHECK_MODE=\"fast\""));
  assert_non_null(strstr(r.warn, "PERFCHECK_LAUNCH_SKIP=\"-1\""));
  assert_non_null(strstr(r.warn, "PERFCHECK_OUTPUT=\"r.%z\""));
  assert_int_equal(r.opt.output_format, PERFCHECK_FORMAT_JSON);
  assert_int_equal(r.opt.mode, PERFCHECK_MODE_AUTO);
  assert_null(r.opt.output);
  done(&r);
}

/* ---- string lifetime ------------------------------------------------------------ */

static void test_strings_outlive_environment(void **state) {
  (void)state;
  setenv("PERFCHECK_KERNELS", "regex:^abc$", 1);
  setenv("PERFCHECK_NVTX", "step", 1);
  setenv("PERFCHECK_METRICS", "sol", 1);
  setenv("PERFCHECK_OUTPUT", "o.%p", 1);
  run r1;
  run_config(&r1);
  assert_ptr_not_equal(r1.opt.kernel_regex, getenv("PERFCHECK_KERNELS")); /* a copy */
  /* The environment changes and the config is read again. */
  setenv("PERFCHECK_KERNELS", "regex:^xyz$", 1);
  setenv("PERFCHECK_NVTX", "other", 1);
  unsetenv("PERFCHECK_METRICS");
  setenv("PERFCHECK_OUTPUT", "o.%p", 1);
  run r2;
  run_config(&r2);
  assert_string_equal(r1.opt.kernel_regex, "^abc$");
  assert_string_equal(r1.extra.nvtx_include, "step");
  assert_string_equal(r1.opt.metrics, "sol");
  assert_string_equal(r2.opt.kernel_regex, "^xyz$");
  assert_string_equal(r2.extra.nvtx_include, "other");
  assert_null(r2.opt.metrics);
  assert_ptr_equal(r1.opt.output, r2.opt.output); /* an equal value reuses its copy */
  done(&r1);
  done(&r2);
}

/* PERFCHECK_REPLAY and XLA: the named modes are obeyed; unset, empty or
 * another value is kernel replay, or rotation with XLA loaded, and the
 * note says which and why. */
static void test_replay_choice(void **state) {
  (void)state;
  pc_err why;
  assert_int_equal(pc_config_replay_rotate("rotate", 0, &why), 1);
  assert_string_equal(why.msg, "");
  assert_int_equal(pc_config_replay_rotate("kernel", 1, &why), 0); /* asked for: obeyed, no note */
  assert_string_equal(why.msg, "");
  assert_int_equal(pc_config_replay_rotate(NULL, 0, &why), 0);
  assert_string_equal(why.msg, "");
  assert_int_equal(pc_config_replay_rotate("", 0, &why), 0);
  assert_string_equal(why.msg, "");
  assert_int_equal(pc_config_replay_rotate(NULL, 1, &why), 1);
  assert_int_equal(why.status, PERFCHECK_OK); /* a choice, not an error */
  assert_non_null(strstr(why.msg, "rotation, not kernel replay, because XLA's CUDA plugin (JAX) is loaded"));
  assert_non_null(strstr(why.msg, "PERFCHECK_REPLAY=kernel asks for kernel replay"));
  assert_int_equal(pc_config_replay_rotate("", 1, &why), 1);
  assert_non_null(strstr(why.msg, "because XLA's CUDA plugin"));
  assert_int_equal(pc_config_replay_rotate("application", 0, &why), 0);
  assert_int_equal(why.status, PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_string_equal(why.msg, "PERFCHECK_REPLAY=application is neither kernel nor rotate: kernel replay");
  assert_int_equal(pc_config_replay_rotate("application", 1, &why), 1);
  assert_non_null(strstr(why.msg, "PERFCHECK_REPLAY=application is neither kernel nor rotate: rotation, not kernel"));
  assert_int_equal(pc_config_replay_rotate(NULL, 1, NULL), 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_unset_is_default, clear_env),
      cmocka_unit_test_setup(test_empty_is_default, clear_env),
      cmocka_unit_test_setup(test_null_arguments, clear_env),
      cmocka_unit_test_setup(test_mode, clear_env),
      cmocka_unit_test_setup(test_metrics, clear_env),
      cmocka_unit_test_setup(test_kernels, clear_env),
      cmocka_unit_test_setup(test_launch_skip, clear_env),
      cmocka_unit_test_setup(test_launch_count, clear_env),
      cmocka_unit_test_setup(test_per_signature, clear_env),
      cmocka_unit_test_setup(test_nvtx, clear_env),
      cmocka_unit_test_setup(test_output, clear_env),
      cmocka_unit_test_setup(test_format, clear_env),
      cmocka_unit_test_setup(test_progress, clear_env),
      cmocka_unit_test_setup(test_switches, clear_env),
      cmocka_unit_test_setup(test_options_check, clear_env),
      cmocka_unit_test_setup(test_escaped_value, clear_env),
      cmocka_unit_test_setup(test_several_bad, clear_env),
      cmocka_unit_test_setup(test_strings_outlive_environment, clear_env),
      cmocka_unit_test(test_replay_choice),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
