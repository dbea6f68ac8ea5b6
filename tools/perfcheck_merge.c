/* perfcheck merge: reads reports (perfcheck JSON reports, one per process of
 * an MPI run or a fork, written through PERFCHECK_OUTPUT=...%p / %q{RANK};
 * or ncu exports; plain or gzip, "-" for stdin: perfcheck_report_read) and
 * prints them as one report, diagnosed again.  The public API
 * (perfcheck_report_merge_files: one input in memory at a time), and
 * lib/core/base/pc_output.c for --output (a temporary file renamed into place).
 *
 *   perfcheck merge [--format text|json|csv|html] [--output FILE] [--quiet] [--verbose] A.json B.json ...
 *
 * Exit status: 0 done; 2 bad input or usage (a file that cannot be read or
 * is not a perfcheck JSON report, named on stderr), or an output that could
 * not be written (pc_cli_write); 1 any other failure (out of memory). */
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
    "Each input may also be an ncu raw export; plain or gzip (told by content),\n"
    "or - for stdin.\n"
    "Kernel entries with the same launch signature, device model and region are\n"
    "merged: launches summed, duration min and max over all; a median that would\n"
    "mix several processes is null (a median of medians is not a measurement).\n"
    "Counters are the first profiled ones.  Regions are listed per process (per\n"
    "rank), names unchanged.  Each rank of 0..world_size-1 that no input holds\n"
    "is named in a warning (\"merge: rank 1 of world size 2 is missing\").\n"
    "Differences (devices, metric sets) are warnings in the report.\n"
    "\n"
    "options:\n"
    "  -f, --format FMT    text (default), json (schema perfcheck-report/2), csv or html\n"
    "  -o, --output FILE   write the report to FILE instead of stdout (a regular\n"
    "                      file, replaced whole through a temporary file; - stdout);\n"
    "                      the format follows the name (.json, .csv, .html, .txt)\n"
    "                      unless --format gives it (a name and a format that\n"
    "                      disagree are refused); FILE may be one of the inputs\n"
    "                      only when written as JSON (merge -o all.json all.json new.json)\n"
    "  -q, --quiet         no warnings from the reader on stderr (the default)\n"
    "  -v, --verbose       the readers' warnings on stderr too (PERFCHECK_VERBOSE=1)\n"
    "  -h, --help          this text\n"
    "\n"
    "exit status: 0 done, 2 bad input or usage or an output that could not be\n"
    "written, 1 other failures.\n";

int pc_cli_merge(int argc, char **argv) {
  perfcheck_format format = PERFCHECK_FORMAT_TEXT;
  pc_cli_out_spec out;
  pc_cli_out_init(&out);
  int quiet = 0;
  /* The files are argv entries: at most argc of them. */
  const char **paths = calloc((size_t)(argc > 0 ? argc : 1), sizeof *paths);
  if (!paths) {
    fputs("perfcheck merge: out of memory\n", stderr);
    return MERGE_FAILED;
  }
  size_t npaths = 0;
  int rc = MERGE_DONE;
  static const struct option longopts[] = {{"format", required_argument, NULL, 'f'},
                                           {"output", required_argument, NULL, 'o'},
                                           {"quiet", no_argument, NULL, 'q'},
                                           {"verbose", no_argument, NULL, 'v'},
                                           {"help", no_argument, NULL, 'h'},
                                           {NULL, 0, NULL, 0}};
  pc_cli_getopt_reset();
  int c;
  while (rc == MERGE_DONE && (c = getopt_long(argc, argv, ":f:o:qvh", longopts, NULL)) != -1) {
    switch (c) {
      case 'v':
        pc_cli_set_verbose();
        break;
      case 'h':
        fputs(pc_cli_merge_usage, stdout);
        free(paths);
        return MERGE_DONE;
      case 'q':
        quiet = 1;
        break;
      case 'f': {
        int fm = pc_cli_format(optarg);
        if (fm < 0)
          rc = pc_cli_usage_error("merge", MERGE_USAGE, "unknown format '%s' (text, json, csv or html)", optarg);
        else if ((rc = pc_cli_out_format(&out, "merge", "--format", fm)) < 0)
          rc = MERGE_DONE;
        break;
      }
      case 'o':
        if ((rc = pc_cli_out_path(&out, "merge", "--output", optarg)) < 0) rc = MERGE_DONE;
        break;
      case ':':
        rc = strncmp(argv[optind - 1], "--output", 8) == 0 || strcmp(argv[optind - 1], "-o") == 0
                 ? pc_cli_usage_error("merge", MERGE_USAGE, "%s needs a file name", argv[optind - 1])
                 : pc_cli_getopt_error("merge", c, argv, MERGE_USAGE);
        break;
      default:
        rc = pc_cli_getopt_error("merge", c, argv, MERGE_USAGE);
        break;
    }
  }
  if (rc == MERGE_DONE)
    for (int i = optind; i < argc; i++) paths[npaths++] = argv[i];
  if (rc == MERGE_DONE && npaths == 0)
    rc = pc_cli_usage_error("merge", MERGE_USAGE, "%s", "merge needs at least one report: perfcheck merge A.json B.json ...");
  if (rc == MERGE_DONE && pc_cli_stdin_twice(paths, npaths))
    rc = pc_cli_usage_error("merge", MERGE_USAGE, "%s", "stdin (-) can be read once only");
  if (rc == MERGE_DONE && (rc = pc_cli_out_resolve(&out, "merge", PC_CLI_FORMATS_ALL, &format)) < 0) rc = MERGE_DONE;
  /* merge -o all.json all.json new.json folds a report into itself: JSON
   * reads back; any other format over an input is refused. */
  if (rc == MERGE_DONE &&
      (rc = pc_cli_out_not_input("merge", out.path, format == PERFCHECK_FORMAT_JSON, paths, npaths)) < 0)
    rc = MERGE_DONE;
  if (rc != MERGE_DONE) {
    free(paths);
    return rc;
  }

  /* The inputs are read and folded in one at a time (memory: the largest
   * input and the merged report). */
  perfcheck_report *merged = NULL;
  perfcheck_status st = perfcheck_report_merge_files(paths, npaths, quiet, &merged);
  if (st != PERFCHECK_OK) {
    const char *detail = perfcheck_last_error_message();
    fprintf(stderr, "perfcheck merge: %s\n", detail && *detail ? detail : perfcheck_strerror(st));
    rc = st == PERFCHECK_ERROR_OUT_OF_MEMORY ? MERGE_FAILED : MERGE_USAGE;
  }
  /* The output is written only now, through the one output function
   * (pc_cli_write: a temporary file renamed into place, or stdout), so that
   * bad input or a failed write leaves an existing file as it was. */
  if (rc == MERGE_DONE) rc = pc_cli_write_report("merge", out.path, merged, format);
  perfcheck_report_destroy(merged);
  free(paths);
  return rc;
}
