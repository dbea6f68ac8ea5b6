/* perfcheck merge: reads perfcheck JSON reports (one per process of an MPI
 * run or a fork, written through PERFCHECK_OUTPUT=...%p / %q{RANK}) and
 * prints them as one report, diagnosed again.  Public API only.
 *
 *   perfcheck merge [--format text|json|csv|html] [--output FILE] [--quiet] A.json B.json ...
 *
 * Exit status: 0 done; 2 bad input or usage (a file that cannot be read or
 * is not a perfcheck JSON report, named on stderr; an output file that
 * cannot be opened); 1 any other failure (out of memory, a failed write). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfcheck.h"
#include "pc_cli.h"
#include "perfcheck_merge.h"

enum { MERGE_DONE = 0, MERGE_FAILED = 1, MERGE_USAGE = 2 };

const char pc_cli_merge_usage[] =
    "usage: perfcheck merge [--format text|json|csv|html] [--output FILE] [--quiet] A.json B.json ...\n"
    "\n"
    "Combines perfcheck JSON reports of several processes (MPI ranks, forks; each\n"
    "written with PERFCHECK_OUTPUT=report.%q{OMPI_COMM_WORLD_RANK}.json and\n"
    "PERFCHECK_FORMAT=json) into one and walks the checklist again over it.\n"
    "Kernel entries with the same launch signature and region are merged:\n"
    "launches summed, duration min and max over all; a median that would mix\n"
    "several processes is null (a median of medians is not a measurement).\n"
    "Counters are the first profiled ones.  Regions are listed per process,\n"
    "names unchanged.  Differences (devices, metric sets) are warnings in the\n"
    "report.\n"
    "\n"
    "options:\n"
    "  -f, --format FMT    text (default), json (schema perfcheck-report/1), csv or html\n"
    "  -o, --output FILE   write the report to FILE instead of stdout\n"
    "  -q, --quiet         no warnings from the reader on stderr\n"
    "  -h, --help          this text\n"
    "\n"
    "exit status: 0 done, 2 bad input or usage, 1 other failures.\n";

int pc_cli_merge(int argc, char **argv) {
  perfcheck_format format = PERFCHECK_FORMAT_TEXT;
  const char *output = NULL;
  int quiet = 0, options_done = 0;
  /* The files are argv entries: at most argc of them. */
  const char **paths = calloc((size_t)(argc > 0 ? argc : 1), sizeof *paths);
  if (!paths) {
    fputs("perfcheck merge: out of memory\n", stderr);
    return MERGE_FAILED;
  }
  size_t npaths = 0;
  int rc = MERGE_DONE;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *inl;
    if (!options_done && strcmp(a, "--") == 0) {
      options_done = 1;
    } else if (!options_done && pc_cli_opt(a, "--help", "-h", &inl) && !inl) {
      fputs(pc_cli_merge_usage, stdout);
      free(paths);
      return MERGE_DONE;
    } else if (!options_done && pc_cli_opt(a, "--quiet", "-q", &inl) && !inl) {
      quiet = 1;
    } else if (!options_done && pc_cli_opt(a, "--format", "-f", &inl)) {
      const char *v = pc_cli_opt_value(argc, argv, &i, inl);
      if (v && strcmp(v, "text") == 0) {
        format = PERFCHECK_FORMAT_TEXT;
      } else if (v && strcmp(v, "json") == 0) {
        format = PERFCHECK_FORMAT_JSON;
      } else if (v && strcmp(v, "csv") == 0) {
        format = PERFCHECK_FORMAT_CSV;
      } else if (v && strcmp(v, "html") == 0) {
        format = PERFCHECK_FORMAT_HTML;
      } else {
        rc = v ? pc_cli_usage_error("merge", MERGE_USAGE, "unknown format '%s' (text, json, csv or html)", v)
               : pc_cli_usage_error("merge", MERGE_USAGE, "%s needs a value: text, json, csv or html", a);
        break;
      }
    } else if (!options_done && pc_cli_opt(a, "--output", "-o", &inl)) {
      output = pc_cli_opt_value(argc, argv, &i, inl);
      if (!output || !*output) {
        rc = pc_cli_usage_error("merge", MERGE_USAGE, "%s needs a file name", a);
        break;
      }
    } else if (!options_done && a[0] == '-' && a[1] != '\0') {
      rc = pc_cli_usage_error("merge", MERGE_USAGE, "unknown option '%s'", a);
      break;
    } else {
      paths[npaths++] = a;
    }
  }
  if (rc == MERGE_DONE && npaths == 0)
    rc = pc_cli_usage_error("merge", MERGE_USAGE, "%s", "merge needs at least one perfcheck JSON report: perfcheck merge A.json B.json ...");
  if (rc != MERGE_DONE) {
    free(paths);
    return rc;
  }

  perfcheck_report **in = calloc(npaths, sizeof *in);
  perfcheck_report *merged = NULL;
  if (!in) {
    free(paths);
    fputs("perfcheck merge: out of memory\n", stderr);
    return MERGE_FAILED;
  }
  for (size_t i = 0; i < npaths && rc == MERGE_DONE; i++) {
    perfcheck_status st = perfcheck_report_from_json(paths[i], quiet, &in[i]);
    if (st != PERFCHECK_OK) {
      const char *detail = perfcheck_last_error_message();
      /* The reader's message names the file (and line and column); say it
       * ourselves when it does not. */
      if (detail && strstr(detail, paths[i]))
        fprintf(stderr, "perfcheck merge: %s\n", detail);
      else
        fprintf(stderr, "perfcheck merge: %s: %s\n", paths[i], detail && *detail ? detail : perfcheck_strerror(st));
      rc = st == PERFCHECK_ERROR_OUT_OF_MEMORY ? MERGE_FAILED : MERGE_USAGE;
    }
  }
  if (rc == MERGE_DONE) {
    perfcheck_status st = perfcheck_report_merge((const perfcheck_report *const *)in, npaths, &merged);
    if (st != PERFCHECK_OK) {
      fprintf(stderr, "perfcheck merge: %s\n", perfcheck_last_error_message());
      rc = MERGE_FAILED;
    }
  }
  /* The output is opened only now, so that bad input leaves an existing
   * file as it was. */
  if (rc == MERGE_DONE) {
    FILE *f = output ? fopen(output, "w") : stdout;
    if (!f) {
      fprintf(stderr, "perfcheck merge: cannot write %s: ", output);
      perror(NULL);
      rc = MERGE_USAGE;
    } else {
      perfcheck_status st = perfcheck_report_write(merged, format, f);
      int closed = output ? fclose(f) : fflush(f);
      if (st != PERFCHECK_OK || closed != 0) {
        fprintf(stderr, "perfcheck merge: writing the report to %s failed\n", output ? output : "stdout");
        rc = MERGE_FAILED;
      }
    }
  }
  perfcheck_report_destroy(merged);
  for (size_t i = 0; i < npaths; i++) perfcheck_report_destroy(in[i]);
  free(in);
  free(paths);
  return rc;
}
