/* perfcheck: the command-line tool.  It uses the public API of libperfcheck
 * only (perfcheck.h).
 *
 *   perfcheck diagnose [--format text|json|csv] [--quiet] FILE.csv
 *   perfcheck metrics [--set default|sol|full]
 *   perfcheck metrics --passes [--set S] [--chip NAME]
 *   perfcheck check --expect SPEC ... FILE   (perfcheck_check.c)
 *   perfcheck run [options] -- PROGRAM [ARGS...]   (perfcheck_run.c)
 *   perfcheck merge [--format F] [--output FILE] A.json B.json ...   (perfcheck_merge.c)
 *   perfcheck ceilings [--device N] [--output FILE]
 *   perfcheck report [--format F] [--html FILE] REPORT   (perfcheck_diff.c)
 *   perfcheck diff [--format text|json|html] BEFORE AFTER   (perfcheck_diff.c)
 *
 * Exit status: 0 done; 2 bad input or usage (the message on stderr names the
 * problem), or an output that could not be written (pc_cli_write); 1 any
 * other failure. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfcheck.h"
#include "pc_cli.h"
#include "perfcheck_check.h"
#include "perfcheck_run.h"
#include "perfcheck_merge.h"
#include "perfcheck_diff.h"

enum { EXIT_DONE = 0, EXIT_FAILED = 1, EXIT_USAGE = 2 };

static const char usage_main[] =
    "usage: perfcheck <command> [options]\n"
    "\n"
    "Tells you, kernel by kernel, why CUDA code is slow: the five-step checklist\n"
    "(is the kernel the slow part, which ceiling, is the traffic real, are the\n"
    "lanes working, is occupancy the limit) and one verdict per kernel.\n"
    "\n"
    "commands:\n"
    "  diagnose FILE.csv   walk the checklist over an `ncu --csv --page raw` export\n"
    "  metrics             print a metric set, comma-separated, for `ncu --metrics`\n"
    "  check               check performance expectations, for CI scripts\n"
    "  run -- PROGRAM      run a program built without perfcheck and report its kernels\n"
    "  merge A.json ...    combine the JSON reports of several processes into one\n"
    "  report REPORT       write a report again: --html OUT.html for the HTML page\n"
    "  diff BEFORE AFTER   what got worse between two runs (exit 1 if anything did)\n"
    "  ceilings            measure the GPU's DRAM bandwidth and FP32 rate (step 2)\n"
    "  help [COMMAND]      this text, or a command's\n"
    "\n"
    "options:\n"
    "  -h, --help          this text\n"
    "  -V, --version       the version\n"
    "\n"
    "exit status: 0 done, 2 bad input or usage or an output that could not be\n"
    "written, 1 other failures (check and diff: an expectation that does not hold,\n"
    "something that got worse).\n";

static const char usage_diagnose[] =
    "usage: perfcheck diagnose [--format text|json|csv|html] [--quiet] FILE.csv\n"
    "\n"
    "Reads an Nsight Compute raw export (ncu --csv --page raw ... > FILE.csv,\n"
    "or ncu --import REPORT.ncu-rep --csv --page raw) and prints the checklist\n"
    "and one verdict per kernel signature.  No GPU is needed.  Step 1 (is the\n"
    "kernel the slow part?) needs a wall clock that an export lacks: it is\n"
    "reported as not assessed.\n"
    "\n"
    "options:\n"
    "  -f, --format FMT    text (default), json (schema perfcheck-report/1), csv or\n"
    "                      html (one self-contained page)\n"
    "  -q, --quiet         no warnings on stderr (they stay in the report)\n"
    "  -h, --help          this text\n";

static const char usage_metrics[] =
    "usage: perfcheck metrics [--set default|sol|full]\n"
    "       perfcheck metrics --passes [--set SET|--metrics LIST] [--chip NAME]\n"
    "\n"
    "Prints the metrics of a set, comma-separated, ready for ncu's --metrics:\n"
    "  ncu --csv --page raw --metrics $(perfcheck metrics) ./app > app.csv\n"
    "With --passes, prints how many replay passes CUPTI needs to collect them\n"
    "on a chip as CUPTI names it (GH100, AD102, TU104, ...); without --chip,\n"
    "on this machine's device 0 (needs a driver).\n"
    "\n"
    "options:\n"
    "      --set SET       default (every question, fewest passes), sol (adds the\n"
    "                      two speed-of-light percentages) or full\n"
    "      --metrics LIST  with --passes: a list as perfcheck_options.metrics takes\n"
    "  -p, --passes        print the pass count instead of the list\n"
    "      --chip NAME     with --passes: the chip\n"
    "  -h, --help          this text\n";

static int usage_error(const char *usage, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static int usage_error(const char *usage, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("perfcheck: ", stderr);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputs("\n\n", stderr);
  fputs(usage, stderr);
  return EXIT_USAGE;
}

/* Statuses that mean "your input or your request" get exit status 2. */
static int exit_for(perfcheck_status st) {
  switch (st) {
    case PERFCHECK_OK:
      return EXIT_DONE;
    case PERFCHECK_ERROR_INVALID_ARGUMENT:
    case PERFCHECK_ERROR_IO:
    case PERFCHECK_ERROR_PARSE:
    case PERFCHECK_ERROR_NOT_FOUND:
    case PERFCHECK_ERROR_UNSUPPORTED:
      return EXIT_USAGE;
    default:
      return EXIT_FAILED;
  }
}

static int report_failure(perfcheck_status st, const char *what) {
  const char *detail = perfcheck_last_error_message();
  if (detail && *detail)
    fprintf(stderr, "perfcheck: %s\n", detail);
  else
    fprintf(stderr, "perfcheck: %s: %s\n", what, perfcheck_strerror(st));
  return exit_for(st);
}

static int cmd_diagnose(int argc, char **argv) {
  perfcheck_format format = PERFCHECK_FORMAT_TEXT;
  int quiet = 0;
  const char *path = NULL;
  static const struct option longopts[] = {{"format", required_argument, NULL, 'f'},
                                           {"quiet", no_argument, NULL, 'q'},
                                           {"help", no_argument, NULL, 'h'},
                                           {NULL, 0, NULL, 0}};
  pc_cli_getopt_reset();
  int c;
  while ((c = getopt_long(argc, argv, ":f:qh", longopts, NULL)) != -1) {
    switch (c) {
      case 'h':
        fputs(usage_diagnose, stdout);
        return EXIT_DONE;
      case 'q':
        quiet = 1;
        break;
      case 'f': {
        int fm = pc_cli_format(optarg);
        if (fm < 0) return usage_error(usage_diagnose, "unknown format '%s' (text, json, csv or html)", optarg);
        format = (perfcheck_format)fm;
        break;
      }
      default:
        return pc_cli_getopt_error("diagnose", c, argv, EXIT_USAGE);
    }
  }
  for (int i = optind; i < argc; i++) {
    if (path) return usage_error(usage_diagnose, "one FILE.csv at a time (also got '%s')", argv[i]);
    path = argv[i];
  }
  if (!path) return usage_error(usage_diagnose, "%s", "diagnose needs an ncu export: perfcheck diagnose FILE.csv");

  perfcheck_report *report = NULL;
  perfcheck_status st = perfcheck_report_from_ncu_csv(path, quiet, &report);
  if (st != PERFCHECK_OK) return report_failure(st, path);
  int rc = pc_cli_write_report("diagnose", NULL, report, format); /* stdout; a failure is exit 2 */
  perfcheck_report_destroy(report);
  return rc;
}

static int cmd_metrics(int argc, char **argv) {
  const char *set = NULL, *list = NULL, *chip = NULL;
  int passes = 0;
  static const struct option longopts[] = {{"set", required_argument, NULL, 'S'},
                                           {"metrics", required_argument, NULL, 'M'},
                                           {"chip", required_argument, NULL, 'C'},
                                           {"passes", no_argument, NULL, 'p'},
                                           {"help", no_argument, NULL, 'h'},
                                           {NULL, 0, NULL, 0}};
  pc_cli_getopt_reset();
  int c;
  while ((c = getopt_long(argc, argv, ":ph", longopts, NULL)) != -1) {
    switch (c) {
      case 'h':
        fputs(usage_metrics, stdout);
        return EXIT_DONE;
      case 'p':
        passes = 1;
        break;
      case 'S':
        set = optarg;
        break;
      case 'M':
        list = optarg;
        break;
      case 'C':
        chip = optarg;
        break;
      default:
        return pc_cli_getopt_error("metrics", c, argv, EXIT_USAGE);
    }
  }
  if (optind < argc) return usage_error(usage_metrics, "unexpected argument '%s'", argv[optind]);
  if (set && list) return usage_error(usage_metrics, "%s", "give --set or --metrics, not both");
  if (!passes && (list || chip))
    return usage_error(usage_metrics, "%s", "--metrics and --chip go with --passes");
  if (set && !perfcheck_metric_list(set))
    return usage_error(usage_metrics, "unknown metric set '%s' (default, sol or full)", set);

  if (!passes) {
    fputs(perfcheck_metric_list(set ? set : "default"), stdout);
    fputc('\n', stdout);
  } else {
    int n = 0;
    const char *what = list ? list : set ? set : "default";
    perfcheck_status st = perfcheck_metric_passes(what, chip, &n);
    if (st != PERFCHECK_OK) return report_failure(st, "counting passes");
    printf("%d\n", n);
  }
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fputs("perfcheck: writing to stdout failed\n", stderr);
    return EXIT_FAILED;
  }
  return EXIT_DONE;
}

static const char usage_ceilings[] =
    "usage: perfcheck ceilings [--device N] [--output FILE]\n"
    "\n"
    "Measures the device's two ceilings with small built-in kernels: DRAM\n"
    "bandwidth (a 1 GiB device-to-device copy, bytes read + written per second)\n"
    "and FP32 FMA throughput; each the median of 7 timed runs after 2 warm-ups.\n"
    "The result is cached per device (~/.cache/perfcheck/ or\n"
    "$XDG_CACHE_HOME/perfcheck/), where every later session reads it for step 2\n"
    "(ceilings_source \"measured\").  Needs a GPU and a driver; no counters.\n"
    "\n"
    "options:\n"
    "  -d, --device N      the CUDA device ordinal (default 0)\n"
    "  -o, --output FILE   write the ceilings there instead of the cache\n"
    "  -h, --help          this text\n";

static int cmd_ceilings(int argc, char **argv) {
  int device = 0;
  const char *output = NULL;
  static const struct option longopts[] = {{"device", required_argument, NULL, 'd'},
                                           {"output", required_argument, NULL, 'o'},
                                           {"help", no_argument, NULL, 'h'},
                                           {NULL, 0, NULL, 0}};
  pc_cli_getopt_reset();
  int c;
  while ((c = getopt_long(argc, argv, ":d:o:h", longopts, NULL)) != -1) {
    switch (c) {
      case 'h':
        fputs(usage_ceilings, stdout);
        return EXIT_DONE;
      case 'd': {
        char *end = NULL;
        long v = strtol(optarg, &end, 10);
        if (!*optarg || !end || *end || v < 0 || v > 1024) return usage_error(usage_ceilings, "bad device '%s'", optarg);
        device = (int)v;
        break;
      }
      case 'o':
        output = optarg;
        break;
      default:
        return pc_cli_getopt_error("ceilings", c, argv, EXIT_USAGE);
    }
  }
  if (optind < argc) return usage_error(usage_ceilings, "unexpected argument '%s'", argv[optind]);
  double bw = 0, fl = 0;
  perfcheck_status st = perfcheck_measure_ceilings(device, output, &bw, &fl);
  if (st != PERFCHECK_OK) {
    fprintf(stderr, "perfcheck ceilings: %s: %s\n", perfcheck_strerror(st), perfcheck_last_error_message());
    return st == PERFCHECK_ERROR_INVALID_ARGUMENT ? EXIT_USAGE : EXIT_FAILED;
  }
  printf("device %d: DRAM %.0f GB/s, FP32 %.0f GFLOP/s, ridge %.2f FLOP/byte\n", device, bw / 1e9, fl / 1e9,
         fl / bw);
  return EXIT_DONE;
}

static int print_version(void) {
  printf("perfcheck %s", PERFCHECK_VERSION_STRING);
  if (perfcheck_version_number() != PERFCHECK_VERSION_NUMBER)
    printf(" (library %s)", perfcheck_version_string());
  printf("\n");
  return EXIT_DONE;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs(usage_main, stderr);
    return EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
    fputs(usage_main, stdout);
    return EXIT_DONE;
  }
  if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0 || strcmp(cmd, "version") == 0)
    return print_version();
  if (strcmp(cmd, "help") == 0) {
    if (argc < 3) {
      fputs(usage_main, stdout);
      return EXIT_DONE;
    }
    if (strcmp(argv[2], "diagnose") == 0) {
      fputs(usage_diagnose, stdout);
      return EXIT_DONE;
    }
    if (strcmp(argv[2], "metrics") == 0) {
      fputs(usage_metrics, stdout);
      return EXIT_DONE;
    }
    if (strcmp(argv[2], "check") == 0) {
      fputs(pc_cli_check_usage, stdout);
      return EXIT_DONE;
    }
    if (strcmp(argv[2], "run") == 0) {
      fputs(pc_cli_run_usage, stdout);
      return EXIT_DONE;
    }
    if (strcmp(argv[2], "merge") == 0) {
      fputs(pc_cli_merge_usage, stdout);
      return EXIT_DONE;
    }
    if (strcmp(argv[2], "ceilings") == 0) {
      fputs(usage_ceilings, stdout);
      return EXIT_DONE;
    }
    if (strcmp(argv[2], "report") == 0 || strcmp(argv[2], "diff") == 0) {
      fputs(argv[2][0] == 'r' ? pc_cli_report_usage : pc_cli_diff_usage, stdout);
      return EXIT_DONE;
    }
    return usage_error(usage_main, "no command '%s'", argv[2]);
  }
  if (strcmp(cmd, "diagnose") == 0) return cmd_diagnose(argc - 1, argv + 1);
  if (strcmp(cmd, "metrics") == 0) return cmd_metrics(argc - 1, argv + 1);
  if (strcmp(cmd, "check") == 0) return pc_cli_check(argc - 1, argv + 1);
  if (strcmp(cmd, "run") == 0) return pc_cli_run(argc - 1, argv + 1);
  if (strcmp(cmd, "merge") == 0) return pc_cli_merge(argc - 1, argv + 1);
  if (strcmp(cmd, "ceilings") == 0) return cmd_ceilings(argc - 1, argv + 1);
  if (strcmp(cmd, "report") == 0) return pc_cli_report(argc - 1, argv + 1);
  if (strcmp(cmd, "diff") == 0) return pc_cli_diff(argc - 1, argv + 1);
  if (cmd[0] == '-') return usage_error(usage_main, "unknown option '%s'", cmd);
  return usage_error(usage_main, "unknown command '%s'", cmd);
}
