/* perfcheck report: a report (JSON, or an ncu export) written in another
 * format, the HTML page above all; perfcheck diff: two reports compared.
 * Public API only (perfcheck.h).
 *
 *   perfcheck report [--format text|json|csv|html] [--output FILE] [--html FILE] [--quiet] REPORT
 *   perfcheck diff [--format text|json|html] [--output FILE] [--quiet] BEFORE AFTER
 *
 * Exit status of report: 0 written; 2 bad input or usage, or an output that
 * could not be written; 1 other failures.
 * Exit status of diff: 0 nothing got worse beyond tolerance; 1 something
 * did; 2 anything else: bad input or usage, an output that could not be
 * written, out of memory (never 1: a lost diff is no verdict). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pc_cli.h"
#include "perfcheck.h"
#include "perfcheck_diff.h"

enum { CLI_DONE = 0, CLI_WORSE = 1, CLI_USAGE = 2 };

const char pc_cli_report_usage[] =
    "usage: perfcheck report [--format text|json|csv|html] [--output FILE] [--quiet] REPORT\n"
    "       perfcheck report --html OUT.html REPORT\n"
    "\n"
    "Writes a report again in another format.  REPORT is a perfcheck JSON report\n"
    "(perfcheck run --format json, perfcheck merge --format json), an ncu raw\n"
    "export (ncu --csv --page raw), which is diagnosed first, or an nsys stats CSV;\n"
    "plain or gzip (told by its content), or - for stdin.  The HTML page is one\n"
    "self-contained file (no network): the roofline with the device's ceilings,\n"
    "the five questions per kernel, the regions' timelines, the kernel table.\n"
    "\n"
    "options:\n"
    "  -f, --format FMT    text (default), json, csv or html\n"
    "  -o, --output FILE   write to FILE instead of stdout (a regular file, replaced\n"
    "                      whole through a temporary file; - stdout); the format\n"
    "                      follows the name (.json, .csv, .html, .txt) unless\n"
    "                      --format gives it; a name and a format that disagree,\n"
    "                      or FILE naming REPORT (unless written as JSON), are refused\n"
    "  --html FILE         short for --format html --output FILE (not with either)\n"
    "  -q, --quiet         no warnings from the reader on stderr (the default)\n"
    "  -v, --verbose       the reader's warnings on stderr too (PERFCHECK_VERBOSE=1)\n"
    "  -h, --help          this text\n"
    "\n"
    "exit status: 0 done, 2 bad input or usage or an output that could not be\n"
    "written, 1 other failures.\n";

const char pc_cli_diff_usage[] =
    "usage: perfcheck diff [--format text|json|html] [--output FILE] [--quiet] BEFORE AFTER\n"
    "\n"
    "Compares two reports (perfcheck JSON reports or ncu raw exports, plain or\n"
    "gzip; - for stdin) of the same program.  Kernels pair by display name and launch signature (the same full\n"
    "name first).  For each pair: the time change of the median duration against\n"
    "a noise band (durations 10%, and the after run's fastest launch must be\n"
    "slower than the before median) with total time and share beside it, the\n"
    "verdict change, a new busiest pipe or memory level, and every metric that\n"
    "moved beyond the expectations' tolerance (throughputs and rates 5%, counts\n"
    "and ratios 1%); kernels that appear or disappear are listed.  Worse:\n"
    "slower, a worse verdict, or a checklist number (sectors per request, bytes\n"
    "per sector, threads per instruction, occupancy, local memory, bank\n"
    "conflicts, atomics) moving the wrong way; a region whose wall clock grew\n"
    "beyond 10%.\n"
    "\n"
    "options:\n"
    "  -f, --format FMT    text (default), json (schema perfcheck-diff/1) or html\n"
    "  -o, --output FILE   write to FILE instead of stdout (a regular file, replaced\n"
    "                      whole through a temporary file; - stdout); the format\n"
    "                      follows the name (.json, .html, .txt) unless --format\n"
    "                      gives it; a name and a format that disagree, or FILE\n"
    "                      naming BEFORE or AFTER, are refused\n"
    "  -q, --quiet         no warnings from the readers on stderr (the default)\n"
    "  -v, --verbose       the readers' warnings on stderr too (PERFCHECK_VERBOSE=1)\n"
    "  -h, --help          this text\n"
    "\n"
    "exit status: 0 nothing got worse beyond tolerance, 1 something did, 2 bad\n"
    "input or usage, or a failure (an output that could not be written, out of\n"
    "memory).  In CI: perfcheck diff base.json new.json (or perfcheck check\n"
    "--baseline base.json new.json).\n";

/* Region snapshots (PERFCHECK_SNAPSHOT_DIR): a folder, or a file that opens
 * with the snapshot schema; read by perfcheck_report_from_snapshots, which
 * walks the checklist with this build's rules. */
static int pc_cli_is_snapshot(const char *path) {
  struct stat sb;
  if (strcmp(path, "-") == 0 || stat(path, &sb) != 0) return 0;
  if (S_ISDIR(sb.st_mode)) return 1;
  FILE *f = S_ISREG(sb.st_mode) ? fopen(path, "rb") : NULL;
  if (!f) return 0;
  char head[64] = "";
  const size_t n = fread(head, 1, sizeof head - 1, f);
  fclose(f);
  head[n] = '\0';
  return strstr(head, "\"schema\": \"perfcheck-snapshot/") != NULL;
}

/* Any report perfcheck reads, told by its content (perfcheck_report_read):
 * a perfcheck JSON report, an ncu export or an nsys stats CSV, plain or
 * gzip, a path or "-" for stdin. */
perfcheck_status pc_cli_read_report(const char *path, int quiet, perfcheck_report **out) {
  if (pc_cli_is_snapshot(path)) return perfcheck_report_from_snapshots(path, quiet, out);
  return perfcheck_report_read(path, quiet, out);
}

/* Prints why a report could not be read; returns the exit status for it. */
static int pc_cli_read_failed(const char *cmd, const char *path, perfcheck_status st) {
  const char *detail = perfcheck_last_error_message();
  if (detail && *detail && strstr(detail, path))
    fprintf(stderr, "perfcheck %s: %s\n", cmd, detail);
  else
    fprintf(stderr, "perfcheck %s: %s: %s\n", cmd, path, detail && *detail ? detail : perfcheck_strerror(st));
  return st == PERFCHECK_ERROR_OUT_OF_MEMORY ? CLI_WORSE : CLI_USAGE;
}

/* Parses the options both commands share (getopt_long, pc_cli.h's
 * letters); the operands go to paths[]; the output and its format are
 * resolved (pc_cli_out_resolve: the format follows the name, conflicting
 * flags are refused).  report writes csv too, and has --html.  Returns -1
 * to go on, else the exit status. */
static int pc_cli_parse(const char *cmd, const char *usage, int argc, char **argv, int allow_csv,
                        perfcheck_format *format, const char **output, int *quiet, const char **paths,
                        size_t max_paths, size_t *npaths) {
  pc_cli_out_spec out;
  pc_cli_out_init(&out);
  const unsigned allowed = allow_csv ? PC_CLI_FORMATS_ALL : PC_CLI_FORMATS_ALL & ~(1u << PERFCHECK_FORMAT_CSV);
  int rc = -1;
  static const struct option longopts[] = {{"format", required_argument, NULL, 'f'},
                                           {"output", required_argument, NULL, 'o'},
                                           {"html", required_argument, NULL, 'H'},
                                           {"quiet", no_argument, NULL, 'q'},
                                           {"verbose", no_argument, NULL, 'v'},
                                           {"help", no_argument, NULL, 'h'},
                                           {NULL, 0, NULL, 0}};
  *npaths = 0;
  pc_cli_getopt_reset();
  int c;
  while ((c = getopt_long(argc, argv, ":f:o:qvh", longopts, NULL)) != -1) {
    if (pc_cli_value_is_option(c, longopts)) return pc_cli_value_error(cmd, argv, CLI_USAGE);
    switch (c) {
      case 'v':
        pc_cli_set_verbose();
        break;
      case 'h':
        fputs(usage, stdout);
        return CLI_DONE;
      case 'q':
        *quiet = 1;
        break;
      case 'f': {
        const int f = pc_cli_format(optarg);
        if (f < 0 || !(allowed & (1u << f)))
          return pc_cli_usage_error(cmd, CLI_USAGE, "unknown format '%s' (%s)", optarg,
                                    allow_csv ? "text, json, csv or html" : "text, json or html");
        rc = pc_cli_out_format(&out, cmd, "--format", f);
        break;
      }
      case 'o':
        rc = pc_cli_out_path(&out, cmd, "--output", optarg);
        break;
      case 'H':
        if (!allow_csv) return pc_cli_usage_error(cmd, CLI_USAGE, "unknown option '--html'");
        if (!*optarg) return pc_cli_usage_error(cmd, CLI_USAGE, "--html needs a file name (OUT.html)");
        rc = pc_cli_out_path(&out, cmd, "--html", optarg);
        if (rc < 0) rc = pc_cli_out_format(&out, cmd, "--html", PERFCHECK_FORMAT_HTML);
        break;
      default:
        return pc_cli_getopt_error(cmd, c, argv, CLI_USAGE);
    }
    if (rc >= 0) return rc;
  }
  for (int i = optind; i < argc; i++) {
    if (*npaths == max_paths) return pc_cli_usage_error(cmd, CLI_USAGE, "too many files (also got '%s')", argv[i]);
    paths[(*npaths)++] = argv[i];
  }
  if (pc_cli_stdin_twice(paths, *npaths)) return pc_cli_usage_error(cmd, CLI_USAGE, "%s", "stdin (-) can be read once only");
  if ((rc = pc_cli_out_resolve(&out, cmd, allowed, format)) >= 0) return rc;
  *output = out.path;
  /* A report written as JSON reads back; a diff, in any format, does not. */
  return pc_cli_out_not_input(cmd, out.path, allow_csv && *format == PERFCHECK_FORMAT_JSON, paths, *npaths);
}

int pc_cli_report(int argc, char **argv) {
  perfcheck_format format = PERFCHECK_FORMAT_TEXT;
  const char *output = NULL, *paths[1];
  int quiet = 0;
  size_t n = 0;
  int rc = pc_cli_parse("report", pc_cli_report_usage, argc, argv, 1, &format, &output, &quiet, paths, 1, &n);
  if (rc >= 0) return rc;
  if (n != 1)
    return pc_cli_usage_error("report", CLI_USAGE, "%s", "which report? perfcheck report --html OUT.html REPORT.json");
  perfcheck_report *r = NULL;
  perfcheck_status st = pc_cli_read_report(paths[0], quiet, &r);
  if (st != PERFCHECK_OK) return pc_cli_read_failed("report", paths[0], st);
  /* Written only now, so that bad input leaves an existing file as it was. */
  rc = pc_cli_write_report("report", output, r, format);
  perfcheck_report_destroy(r);
  return rc;
}

int pc_cli_diff(int argc, char **argv) {
  perfcheck_format format = PERFCHECK_FORMAT_TEXT;
  const char *output = NULL, *paths[2];
  int quiet = 0;
  size_t n = 0;
  int rc = pc_cli_parse("diff", pc_cli_diff_usage, argc, argv, 0, &format, &output, &quiet, paths, 2, &n);
  if (rc >= 0) return rc;
  if (n != 2) return pc_cli_usage_error("diff", CLI_USAGE, "%s", "diff needs two reports: perfcheck diff BEFORE AFTER");
  perfcheck_report *a = NULL, *b = NULL;
  perfcheck_diff *d = NULL;
  /* Every failure is 2 here (out of memory too): 1 means "worse" only. */
  perfcheck_status st = pc_cli_read_report(paths[0], quiet, &a);
  if (st != PERFCHECK_OK) {
    pc_cli_read_failed("diff", paths[0], st);
    return CLI_USAGE;
  }
  st = pc_cli_read_report(paths[1], quiet, &b);
  if (st != PERFCHECK_OK) {
    perfcheck_report_destroy(a);
    pc_cli_read_failed("diff", paths[1], st);
    return CLI_USAGE;
  }
  st = perfcheck_diff_create(a, b, paths[0], paths[1], &d);
  perfcheck_report_destroy(a);
  perfcheck_report_destroy(b);
  if (st != PERFCHECK_OK) {
    fprintf(stderr, "perfcheck diff: %s\n", perfcheck_last_error_message());
    return CLI_USAGE;
  }
  /* A failed write is exit 2, never 1 ("worse"). */
  rc = pc_cli_write_diff("diff", output, d, format);
  if (rc == CLI_DONE && perfcheck_diff_worse_count(d)) rc = CLI_WORSE;
  perfcheck_diff_destroy(d);
  return rc;
}

int pc_cli_baseline(const char *baseline_path, const perfcheck_report *after, const char *after_label, int quiet,
                    FILE *out, perfcheck_expectations *set) {
  perfcheck_report *base = NULL;
  perfcheck_status st = pc_cli_read_report(baseline_path, quiet, &base);
  if (st != PERFCHECK_OK) return pc_cli_read_failed("check", baseline_path, st) == CLI_WORSE ? CLI_WORSE : CLI_USAGE;
  perfcheck_diff *d = NULL;
  st = perfcheck_diff_create(base, after, baseline_path, after_label, &d);
  perfcheck_report_destroy(base);
  if (st != PERFCHECK_OK) {
    fprintf(stderr, "perfcheck check: %s\n", perfcheck_last_error_message());
    return CLI_WORSE;
  }
  if (!quiet || perfcheck_diff_worse_count(d)) perfcheck_diff_write(d, PERFCHECK_FORMAT_TEXT, out);
  st = perfcheck_expectations_add_diff(set, d, NULL);
  perfcheck_diff_destroy(d);
  if (st != PERFCHECK_OK && st != PERFCHECK_ERROR_EXPECTATION_FAILED) {
    fprintf(stderr, "perfcheck check: %s\n", perfcheck_last_error_message());
    return CLI_WORSE;
  }
  return 0;
}
