/* perfcheck check: checks expectations ("mysteryA:sectors_per_request_ld<=4.5")
 * against an ncu export or a perfcheck JSON report, for CI scripts.  The
 * public API (perfcheck.h), and lib/core/base/pc_output.c to write --junit's file
 * (pc_cli_write: a temporary file renamed into place).
 *
 *   perfcheck check --expect SPEC [--expect SPEC ...] [--baseline BASE] [--junit FILE]
 *                   [--suite NAME] [--quiet] (FILE.csv | FILE.json | -- PROGRAM ARGS...)
 *
 * --baseline compares the report with a stored one as `perfcheck diff`
 * does (perfcheck_diff.c): anything worse beyond tolerance is a failure.
 * Every result judged, the expectations', the baseline's (one per kernel
 * entry and region: perfcheck_expectations_add_diff) and PROGRAM's exit
 * status (perfcheck_expectations_add_result), is one set of results: the
 * PASS/FAIL lines, the summary line's count, --junit's testcases and the
 * exit status all come from it, so they always agree.
 *
 * With `-- PROGRAM`, the program runs under the injection library as with
 * `perfcheck run` (perfcheck_run.c; the PERFCHECK_* variables apply), its
 * JSON report goes to a temporary folder, and that is checked.
 *
 * Exit status: 0 every expectation holds; 1 an expectation
 * read correctly does not hold (the messages on stdout: a value out of
 * bounds, a kernel not in the report, a quantity not measured), or PROGRAM
 * exited non-zero; 2 bad input (a malformed expectation, with its column; an
 * unknown cause word or bound word; an unknown quantity, with at most three
 * nearest names; a file that cannot be read; a usage
 * error; a PROGRAM that cannot run or wrote no report; a --junit file that
 * names the report), or results that could not be written (stdout, --junit's
 * file): never 1, which says an expectation was read and does not hold. */
#include <dirent.h>
#include <errno.h>
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
    "                       [--junit FILE] [--suite NAME] [--quiet] [--verbose] REPORT\n"
    "       perfcheck check --expect SPEC ... -- PROGRAM [ARGS...]\n"
    "       perfcheck check --baseline BASE.json (NEW.json | -- PROGRAM [ARGS...])\n"
    "\n"
    "Checks performance expectations against an `ncu --csv --page raw` export or a\n"
    "perfcheck JSON report (REPORT, plain or gzip, - for stdin), or against a run of\n"
    "PROGRAM under the injection library\n"
    "(as `perfcheck run -- PROGRAM`; PERFCHECK_MODE and the other variables apply).\n"
    "\n"
    "SPEC is KERNEL:QUANTITY OP VALUE, for example\n"
    "  mysteryA:sectors_per_request_ld<=4.5\n"
    "  mysteryB:cause!=divergent_warps\n"
    "  regex:^mystery[BC]$:threads_per_instruction>=24\n"
    "  'mysteryC:gpu__time_duration.sum within 10% of 1.2e6'\n"
    "KERNEL is a name or regex:PATTERN (POSIX extended, every match is checked).\n"
    "QUANTITY is any number of the JSON report's kernel entry under its JSON name\n"
    "(derived: bytes_per_sector_ld, sectors_per_request_ld, threads_per_instruction,\n"
    "achieved_occupancy_pct, ...; attributes: registers_per_thread, ...; metrics by\n"
    "ncu name; total_ns, kernel_time_share, duration_ns.median, busiest_pipe.pct),\n"
    "a launch__ value, step, cause or bound.  OP is <, <=, ==, !=, >=, >, `within N% of` or `within`.  Durations get\n"
    "a 10% band and throughputs a 5% band by default; `+-N%` after VALUE sets\n"
    "another (`+-0%`: exact).  A kernel not in the report or a quantity not\n"
    "measured is a failure (exit 1); a malformed SPEC, an unknown cause word or an\n"
    "unknown quantity is bad input (exit 2, with at most three nearest names).\n"
    "\n"
    "options:\n"
    "  -e, --expect SPEC   an expectation (repeatable; this or --baseline at least)\n"
    "  -b, --baseline BASE also compare with the stored report BASE as `perfcheck\n"
    "                      diff BASE FILE` does: anything worse beyond tolerance fails\n"
    "      --junit FILE    also write every result (expectations, baseline, PROGRAM's\n"
    "                      exit status) as JUnit XML to FILE (a regular file,\n"
    "                      replaced whole through a temporary file; never REPORT)\n"
    "      --suite NAME    the JUnit suite and class name (default: perfcheck)\n"
    "  -q, --quiet         print failures only; no warnings from the reader\n"
    "  -v, --verbose       the reader's warnings on stderr too (PERFCHECK_VERBOSE=1)\n"
    "  -h, --help          this text\n"
    "\n"
    "The summary line counts every result: the expectations', one per kernel entry\n"
    "and region compared with BASE, and PROGRAM's exit status; the JUnit file holds\n"
    "the same results, so that it says a failure whenever the exit status is 1.\n"
    "\n"
    "exit status: 0 all hold; 1 some failed, or PROGRAM exited non-zero; 2 bad\n"
    "input or usage (a malformed SPEC, an unknown quantity or cause word), PROGRAM\n"
    "could not run or wrote no report, or the results could not be written (stdout\n"
    "or the JUnit file).\n";

/* Kernel names come from the report: keep terminal control sequences out. */
static void put_printable(const char *s, FILE *f) {
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p < 0x20 || *p == 0x7F)
      fprintf(f, "\\x%02x", *p);
    else
      fputc(*p, f);
  }
}

/* For the JUnit file (pc_cli_write). */
static int write_junit(FILE *f, void *ctx) {
  const void *const *c = ctx;
  return perfcheck_expectations_write_junit(c[0], c[1], f) == PERFCHECK_OK ? 0 : -1;
}

/* An expectation whose quantity no kernel of the report knows is bad input
 * (a typo), not a failed check: the library marks its results
 * PERFCHECK_ERROR_INVALID_ARGUMENT (their message names the nearest
 * quantities).  Prints each expectation once and returns how many. */
static size_t unknown_quantities(const perfcheck_expectations *set) {
  size_t n = perfcheck_expectations_result_count(set), bad = 0;
  const char *last_spec = NULL;
  for (size_t i = 0; i < n; i++) {
    perfcheck_expectation_result res;
    res.size = sizeof res;
    if (perfcheck_expectations_result(set, i, &res) != PERFCHECK_OK || res.status != PERFCHECK_ERROR_INVALID_ARGUMENT)
      continue;
    if (last_spec && strcmp(last_spec, res.spec) == 0) continue; /* one line per expectation */
    last_spec = res.spec;
    bad++;
    fputs("perfcheck check: bad expectation \"", stderr);
    put_printable(res.spec ? res.spec : "", stderr);
    fputs("\": unknown quantity: ", stderr);
    put_printable(res.message ? res.message : res.quantity, stderr);
    fputc('\n', stderr);
  }
  return bad;
}

/* Removes the folder of `-- PROGRAM`'s report and what the run left in it
 * (the reports of its other processes, REPORT.PID.json). */
static void remove_report_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      char p[4200];
      snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
      unlink(p);
    }
    closedir(d);
  }
  rmdir(dir);
}

int pc_cli_check(int argc, char **argv) {
  const char *junit = NULL, *suite = "perfcheck", *path = NULL, *label = NULL, *baseline = NULL;
  int quiet = 0, program = -1, program_status = 0;
  char report_dir[4096] = "", report_path[4200] = ""; /* `-- PROGRAM`'s report, removed at the end */
  perfcheck_expectations *set = NULL;
  if (perfcheck_expectations_create(&set) != PERFCHECK_OK) {
    fprintf(stderr, "perfcheck check: out of memory\n");
    return CHECK_USAGE;
  }
  int rc = CHECK_USAGE;
  /* Options stop at the first "--": what follows is the program. */
  int nopt = argc;
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--") == 0) {
      nopt = i;
      program = i + 1;
      break;
    }
  static const struct option longopts[] = {{"expect", required_argument, NULL, 'e'},
                                           {"baseline", required_argument, NULL, 'b'},
                                           {"junit", required_argument, NULL, 'J'},
                                           {"suite", required_argument, NULL, 'S'},
                                           {"quiet", no_argument, NULL, 'q'},
                                           {"verbose", no_argument, NULL, 'v'},
                                           {"help", no_argument, NULL, 'h'},
                                           {NULL, 0, NULL, 0}};
  pc_cli_getopt_reset();
  int c;
  while ((c = getopt_long(nopt, argv, ":e:b:qvh", longopts, NULL)) != -1) {
    switch (c) {
      case 'v':
        pc_cli_set_verbose();
        break;
      case 'h':
        fputs(pc_cli_check_usage, stdout);
        rc = CHECK_PASS;
        goto done;
      case 'e':
        if (perfcheck_expectations_add(set, optarg) != PERFCHECK_OK) {
          fprintf(stderr, "perfcheck check: bad %s\n", perfcheck_last_error_message());
          goto done;
        }
        break;
      case 'b':
        baseline = optarg;
        if (!*baseline) {
          rc = pc_cli_usage_error("check", CHECK_USAGE, "--baseline needs a stored report (BASE.json)");
          goto done;
        }
        break;
      case 'J':
        junit = optarg;
        if (!*junit) {
          rc = pc_cli_usage_error("check", CHECK_USAGE, "--junit needs a file name");
          goto done;
        }
        break;
      case 'S':
        suite = optarg;
        break;
      case 'q':
        quiet = 1;
        break;
      default:
        rc = pc_cli_getopt_error("check", c, argv, CHECK_USAGE);
        goto done;
    }
  }
  for (int i = optind; i < nopt; i++) {
    if (path) {
      rc = pc_cli_usage_error("check", CHECK_USAGE, "one report at a time (got '%s' and '%s')", path, argv[i]);
      goto done;
    }
    path = argv[i];
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
    if (pc_cli_no_cuda("perfcheck check")) goto done; /* rc stays 2, PC_CLI_EXIT_NO_CUDA */
    /* The program runs under the injection library, which writes its JSON
     * report into a folder of ours at exit (its other processes write
     * report.PID.json beside it; all go when we are done). */
    const char *tmp = getenv("TMPDIR");
    snprintf(report_dir, sizeof report_dir, "%s/perfcheck-check-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(report_dir)) {
      fprintf(stderr, "perfcheck check: cannot create a temporary folder in %s: %s\n", tmp && *tmp ? tmp : "/tmp",
              strerror(errno));
      report_dir[0] = '\0';
      goto done;
    }
    snprintf(report_path, sizeof report_path, "%s/report.json", report_dir);
    setenv("PERFCHECK_OUTPUT", report_path, 1);
    setenv("PERFCHECK_FORMAT", "json", 1);
    int ran = 0;
    program_status = pc_run_program("perfcheck check", argv + program, &ran);
    if (!ran) goto done; /* the message is out; rc stays 2 */
    struct stat st;
    if (stat(report_path, &st) != 0 || st.st_size == 0) {
      /* Two reasons, and only one of them prints a line: a program that
       * never initialised CUDA is left entirely alone (no line), while
       * profiling turned off prints "perfcheck: profiling off: ...". */
      fprintf(stderr,
              "perfcheck check: %s wrote no perfcheck report (exit status %d): either it never used CUDA (perfcheck "
              "leaves such a program alone and says nothing), or profiling was off, which a \"perfcheck: profiling "
              "off\" line above then says\n",
              argv[program], program_status);
      goto done;
    }
    path = report_path;
    label = argv[program];
  }
  if (!path) {
    rc = pc_cli_usage_error("check", CHECK_USAGE, "%s", "which report? give FILE.csv (an ncu raw export) or FILE.json (a perfcheck report)");
    goto done;
  }

  if (!label) label = path;
  {
    const char *inputs[2] = {path, baseline};
    int bad = pc_cli_out_not_input("check", junit, 0, inputs, 2);
    if (bad >= 0) {
      rc = bad;
      goto done;
    }
  }
  perfcheck_report *report = NULL;
  perfcheck_status st = perfcheck_report_read(path, quiet, &report);
  if (st != PERFCHECK_OK) {
    const char *detail = perfcheck_last_error_message();
    fprintf(stderr, "perfcheck check: %s\n", detail && *detail ? detail : perfcheck_strerror(st));
    rc = st == PERFCHECK_ERROR_OUT_OF_MEMORY ? CHECK_FAIL : CHECK_USAGE;
    goto done;
  }
  /* The expectations first (their check starts the results afresh), then
   * the baseline's results, then PROGRAM's exit status: one set. */
  size_t failures = 0;
  st = perfcheck_expectations_check(set, report, &failures);
  if (st != PERFCHECK_OK && st != PERFCHECK_ERROR_EXPECTATION_FAILED) {
    perfcheck_report_destroy(report);
    fprintf(stderr, "perfcheck check: %s\n", perfcheck_last_error_message());
    rc = CHECK_FAIL;
    goto done;
  }
  /* A typo in a quantity is bad input (2), never a regression (1). */
  if (unknown_quantities(set)) {
    perfcheck_report_destroy(report);
    rc = CHECK_USAGE;
    goto done;
  }
  size_t compared = 0;
  if (baseline) {
    const size_t before = perfcheck_expectations_result_count(set);
    int bad = pc_cli_baseline(baseline, report, label, quiet, stdout, set);
    if (bad) {
      perfcheck_report_destroy(report);
      rc = bad;
      goto done;
    }
    compared = perfcheck_expectations_result_count(set) - before;
  }
  perfcheck_report_destroy(report);
  if (program >= 0) {
    char name[300], msg[400];
    snprintf(name, sizeof name, "%s: exit status", argv[program]);
    snprintf(msg, sizeof msg, "%s exited with status %d%s", argv[program], program_status,
             program_status ? ": the check fails whatever the expectations say" : "");
    if (perfcheck_expectations_add_result(set, name, program_status == 0, msg, NULL) == PERFCHECK_ERROR_OUT_OF_MEMORY) {
      fprintf(stderr, "perfcheck check: out of memory\n");
      rc = CHECK_FAIL;
      goto done;
    }
  }
  size_t n = perfcheck_expectations_result_count(set);
  failures = 0;
  for (size_t i = 0; i < n; i++) {
    perfcheck_expectation_result res;
    res.size = sizeof res;
    if (perfcheck_expectations_result(set, i, &res) != PERFCHECK_OK) continue;
    failures += res.status != PERFCHECK_OK;
    if (quiet && res.status == PERFCHECK_OK) continue;
    fputs(res.status == PERFCHECK_OK ? "PASS " : "FAIL ", stdout);
    put_printable(res.message, stdout);
    fputc('\n', stdout);
  }
  printf("perfcheck check: %zu of %zu check%s failed (%zu expectation%s", failures, n, n == 1 ? "" : "s",
         perfcheck_expectations_count(set), perfcheck_expectations_count(set) == 1 ? "" : "s");
  if (baseline) {
    printf(", %zu compared with ", compared);
    put_printable(baseline, stdout);
  }
  if (program >= 0) fputs(", the program's exit status", stdout);
  fputs(", ", stdout);
  put_printable(label, stdout);
  printf(")\n");
  rc = failures ? CHECK_FAIL : CHECK_PASS;
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "perfcheck check: writing the results to stdout failed: %s\n", strerror(errno));
    rc = PC_CLI_EXIT_OUTPUT; /* a lost result is no pass, and no "fail" either */
  }

  if (junit) {
    const void *ctx[2] = {set, suite};
    if (pc_cli_write("check", junit, write_junit, (void *)ctx) != 0) rc = PC_CLI_EXIT_OUTPUT;
  }
done:
  fflush(stdout);
  if (report_dir[0]) remove_report_dir(report_dir);
  perfcheck_expectations_destroy(set);
  return rc;
}
