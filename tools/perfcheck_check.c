/* perfcheck check: checks expectations ("mysteryA:sectors_per_request_ld<=4.5")
 * against an ncu export or a perfcheck JSON report, for CI scripts.  Public
 * API only (perfcheck.h).
 *
 *   perfcheck check --expect SPEC [--expect SPEC ...] [--baseline BASE] [--junit FILE]
 *                   [--suite NAME] [--quiet] (FILE.csv | FILE.json | -- PROGRAM ARGS...)
 *
 * --baseline compares the report with a stored one as `perfcheck diff`
 * does (perfcheck_diff.c): anything worse beyond tolerance is a failure.
 *
 * With `-- PROGRAM`, the program runs under the injection library as with
 * `perfcheck run` (perfcheck_run.c; the PERFCHECK_* variables apply), its
 * JSON report goes to a temporary file, and that is checked.
 *
 * Exit status: 0 every expectation holds; 1 one or more failed (the
 * messages on stdout), or PROGRAM exited non-zero; 2 bad input (a malformed
 * expectation, with its column; a file that cannot be read; a usage error;
 * a PROGRAM that cannot run or wrote no report). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perfcheck.h"
#include "pc_cli.h"
#include "perfcheck_check.h"
#include "perfcheck_diff.h"
#include "perfcheck_run.h"

enum { CHECK_PASS = 0, CHECK_FAIL = 1, CHECK_USAGE = 2 };

const char pc_cli_check_usage[] =
    "usage: perfcheck check --expect SPEC [--expect SPEC ...] [--baseline BASE]\n"
    "                       [--junit FILE] [--suite NAME] [--quiet] FILE.csv|FILE.json\n"
    "       perfcheck check --expect SPEC ... -- PROGRAM [ARGS...]\n"
    "       perfcheck check --baseline BASE.json (NEW.json | -- PROGRAM [ARGS...])\n"
    "\n"
    "Checks performance expectations against an `ncu --csv --page raw` export or a\n"
    "perfcheck JSON report, or against a run of PROGRAM under the injection library\n"
    "(as `perfcheck run -- PROGRAM`; PERFCHECK_MODE and the other variables apply).\n"
    "\n"
    "SPEC is KERNEL:QUANTITY OP VALUE, for example\n"
    "  mysteryA:sectors_per_request_ld<=4.5\n"
    "  mysteryB:cause!=divergent_warps\n"
    "  regex:^mystery[BC]$:threads_per_instruction>=24\n"
    "  'mysteryC:gpu__time_duration.sum within 10% of 1.2e6'\n"
    "KERNEL is a name or regex:PATTERN (POSIX extended, every match is checked).\n"
    "QUANTITY is an ncu metric, a launch__ value, a derived name, step, cause or\n"
    "bound.  OP is <, <=, ==, !=, >=, >, `within N% of` or `within`.  Durations get\n"
    "a 10% band and throughputs a 5% band by default; `+-N%` after VALUE sets\n"
    "another (`+-0%`: exact).  A kernel not in the report or a quantity not\n"
    "measured is a failure.\n"
    "\n"
    "options:\n"
    "  -e, --expect SPEC   an expectation (repeatable; this or --baseline at least)\n"
    "  -b, --baseline BASE also compare with the stored report BASE as `perfcheck\n"
    "                      diff BASE FILE` does: anything worse beyond tolerance fails\n"
    "  --junit FILE        also write the results as JUnit XML to FILE\n"
    "  --suite NAME        the JUnit suite and class name (default: perfcheck)\n"
    "  -q, --quiet         print failures only; no warnings from the reader\n"
    "  -h, --help          this text\n"
    "\n"
    "exit status: 0 all hold; 1 some failed, or PROGRAM exited non-zero; 2 bad input\n"
    "or usage, or PROGRAM could not run or wrote no report (no GPU).\n";

/* Kernel names come from the report: keep terminal control sequences out. */
static void put_printable(const char *s, FILE *f) {
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p < 0x20 || *p == 0x7F)
      fprintf(f, "\\x%02x", *p);
    else
      fputc(*p, f);
  }
}

/* A perfcheck JSON report starts with '{'; anything else is taken for an
 * ncu export (whose reader says so clearly when it is not one either). */
static int looks_like_json(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  int c;
  do c = fgetc(f);
  while (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0xEF || c == 0xBB || c == 0xBF);
  fclose(f);
  return c == '{';
}

int pc_cli_check(int argc, char **argv) {
  const char *junit = NULL, *suite = "perfcheck", *path = NULL, *label = NULL, *baseline = NULL;
  int quiet = 0, program = -1, program_status = 0;
  char report_path[4096] = ""; /* the JSON report of `-- PROGRAM`, removed at the end */
  perfcheck_expectations *set = NULL;
  if (perfcheck_expectations_create(&set) != PERFCHECK_OK) {
    fprintf(stderr, "perfcheck check: out of memory\n");
    return CHECK_USAGE;
  }
  int rc = CHECK_USAGE;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *inl;
    if (strcmp(a, "--") == 0) {
      program = i + 1;
      break;
    }
    if (pc_cli_opt(a, "--help", "-h", &inl)) {
      fputs(pc_cli_check_usage, stdout);
      rc = CHECK_PASS;
      goto done;
    } else if (pc_cli_opt(a, "--expect", "-e", &inl)) {
      const char *spec = pc_cli_opt_value(argc, argv, &i, inl);
      if (!spec) {
        rc = pc_cli_usage_error("check", CHECK_USAGE, "%s needs an expectation, e.g. 'mysteryA:sectors_per_request_ld<=4.5'", a);
        goto done;
      }
      if (perfcheck_expectations_add(set, spec) != PERFCHECK_OK) {
        fprintf(stderr, "perfcheck check: bad %s\n", perfcheck_last_error_message());
        goto done;
      }
    } else if (pc_cli_opt(a, "--baseline", "-b", &inl)) {
      baseline = pc_cli_opt_value(argc, argv, &i, inl);
      if (!baseline || !*baseline) {
        rc = pc_cli_usage_error("check", CHECK_USAGE, "%s needs a stored report (BASE.json)", a);
        goto done;
      }
    } else if (pc_cli_opt(a, "--junit", NULL, &inl)) {
      junit = pc_cli_opt_value(argc, argv, &i, inl);
      if (!junit || !*junit) {
        rc = pc_cli_usage_error("check", CHECK_USAGE, "%s needs a file name", a);
        goto done;
      }
    } else if (pc_cli_opt(a, "--suite", NULL, &inl)) {
      suite = pc_cli_opt_value(argc, argv, &i, inl);
      if (!suite) {
        rc = pc_cli_usage_error("check", CHECK_USAGE, "%s needs a name", a);
        goto done;
      }
    } else if (pc_cli_opt(a, "--quiet", "-q", &inl) && !inl) {
      quiet = 1;
    } else if (a[0] == '-' && a[1] != '\0') {
      rc = pc_cli_usage_error("check", CHECK_USAGE, "unknown option '%s'", a);
      goto done;
    } else if (path) {
      rc = pc_cli_usage_error("check", CHECK_USAGE, "one report at a time (got '%s' and '%s')", path, a);
      goto done;
    } else {
      path = a;
    }
  }
  if (perfcheck_expectations_count(set) == 0 && !baseline) {
    rc = pc_cli_usage_error("check", CHECK_USAGE, "%s", "nothing to check: give at least one --expect SPEC or --baseline BASE");
    goto done;
  }
  if (program >= 0) {
    if (path) {
      rc = pc_cli_usage_error("check", CHECK_USAGE, "give a report file or `-- PROGRAM`, not both (got '%s')", path);
      goto done;
    }
    if (program >= argc) {
      rc = pc_cli_usage_error("check", CHECK_USAGE, "%s", "`--` must be followed by the program to run");
      goto done;
    }
    /* The program runs under the injection library, which writes its JSON
     * report to a file of ours at exit. */
    const char *tmp = getenv("TMPDIR");
    snprintf(report_path, sizeof report_path, "%s/perfcheck-check-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemp(report_path);
    if (fd < 0) {
      fprintf(stderr, "perfcheck check: cannot create a temporary file in %s: ", tmp && *tmp ? tmp : "/tmp");
      perror(NULL);
      report_path[0] = '\0';
      goto done;
    }
    close(fd);
    setenv("PERFCHECK_OUTPUT", report_path, 1);
    setenv("PERFCHECK_FORMAT", "json", 1);
    int ran = 0;
    program_status = pc_run_program("perfcheck check", argv + program, &ran);
    if (!ran) goto done; /* the message is out; rc stays 2 */
    struct stat st;
    if (stat(report_path, &st) != 0 || st.st_size == 0) {
      fprintf(stderr,
              "perfcheck check: %s wrote no perfcheck report (exit status %d); a \"perfcheck: profiling off\" line "
              "above says why\n",
              argv[program], program_status);
      goto done;
    }
    if (program_status != 0)
      fprintf(stderr, "perfcheck check: %s exited with status %d: the check fails whatever the expectations say\n",
              argv[program], program_status);
    path = report_path;
    label = argv[program];
  }
  if (!path) {
    rc = pc_cli_usage_error("check", CHECK_USAGE, "%s", "which report? give FILE.csv (an ncu raw export) or FILE.json (a perfcheck report)");
    goto done;
  }

  if (!label) label = path;
  perfcheck_report *report = NULL;
  perfcheck_status st = looks_like_json(path) ? perfcheck_report_from_json(path, quiet, &report)
                                              : perfcheck_report_from_ncu_csv(path, quiet, &report);
  if (st != PERFCHECK_OK) {
    const char *detail = perfcheck_last_error_message();
    fprintf(stderr, "perfcheck check: %s\n", detail && *detail ? detail : perfcheck_strerror(st));
    rc = st == PERFCHECK_ERROR_OUT_OF_MEMORY ? CHECK_FAIL : CHECK_USAGE;
    goto done;
  }
  long worse = 0;
  if (baseline) {
    worse = pc_cli_baseline(baseline, report, label, quiet, stdout);
    if (worse < 0) {
      perfcheck_report_destroy(report);
      goto done; /* rc stays 2 */
    }
    if (perfcheck_expectations_count(set) == 0) {
      perfcheck_report_destroy(report);
      rc = worse || program_status != 0 ? CHECK_FAIL : CHECK_PASS;
      goto done;
    }
  }
  size_t failures = 0;
  st = perfcheck_expectations_check(set, report, &failures);
  perfcheck_report_destroy(report);
  if (st != PERFCHECK_OK && st != PERFCHECK_ERROR_EXPECTATION_FAILED) {
    fprintf(stderr, "perfcheck check: %s\n", perfcheck_last_error_message());
    rc = CHECK_FAIL;
    goto done;
  }
  size_t n = perfcheck_expectations_result_count(set);
  for (size_t i = 0; i < n; i++) {
    perfcheck_expectation_result res;
    res.size = sizeof res;
    if (perfcheck_expectations_result(set, i, &res) != PERFCHECK_OK) continue;
    if (quiet && res.status == PERFCHECK_OK) continue;
    fputs(res.status == PERFCHECK_OK ? "PASS " : "FAIL ", stdout);
    put_printable(res.message, stdout);
    fputc('\n', stdout);
  }
  printf("perfcheck check: %zu of %zu check%s failed (%zu expectation%s, ", failures, n, n == 1 ? "" : "s",
         perfcheck_expectations_count(set), perfcheck_expectations_count(set) == 1 ? "" : "s");
  put_printable(label, stdout);
  printf(")\n");
  rc = failures || worse || program_status != 0 ? CHECK_FAIL : CHECK_PASS;

  if (junit) {
    FILE *f = fopen(junit, "w");
    if (!f) {
      fprintf(stderr, "perfcheck check: cannot write %s: ", junit);
      perror(NULL);
      rc = CHECK_USAGE;
      goto done;
    }
    st = perfcheck_expectations_write_junit(set, suite, f);
    if (fclose(f) != 0 || st != PERFCHECK_OK) {
      fprintf(stderr, "perfcheck check: writing %s failed\n", junit);
      rc = CHECK_USAGE;
    }
  }
done:
  fflush(stdout);
  if (report_path[0]) unlink(report_path);
  perfcheck_expectations_destroy(set);
  return rc;
}
