/* perfcheck: the command-line tool.  It uses the public API of libperfcheck
 * only (perfcheck.h).
 *
 *   perfcheck diagnose [--format text|json|csv|html] [-o FILE] [-k FILTER] [--wall-time T] FILE [FILE2]
 *   perfcheck metrics [--set default|sol|full|basic|detailed]
 *   perfcheck metrics --passes [--set S] [--chip NAME]
 *   perfcheck metrics --list-sets [--chip NAME]
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
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfcheck.h"
#include "pc_cli.h"
#include "pc_cli_docs.h"
#include "base/pc_output.h"
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
    "  diagnose FILE       walk the checklist over an `ncu --csv --page raw` export\n"
    "  metrics             print a metric set, comma-separated, for `ncu --metrics`\n"
    "  check               check performance expectations, for CI scripts\n"
    "  run -- PROGRAM      run a program built without perfcheck and report its kernels\n"
    "  merge A.json ...    combine the JSON reports of several processes into one\n"
    "  report REPORT       write a report again: --html OUT.html for the HTML page\n"
    "  diff BEFORE AFTER   what got worse between two runs (exit 1 if anything did)\n"
    "  ceilings            measure the GPU's DRAM bandwidth and FP32 rate (step 2)\n"
    "  help [COMMAND]      this text, or a command's (man perfcheck: all of them)\n"
    "\n"
    "options:\n"
    "  -h, --help          this text\n"
    "  -V, --version       the version\n"
    "\n"
    "exit status: 0 done, 2 bad input or usage or an output that could not be\n"
    "written (stdout too: `perfcheck --help > /dev/full` is 2), 1 other failures\n"
    "(check and diff: an expectation that does not hold, something that got worse).\n";

static const char usage_diagnose[] =
    "usage: perfcheck diagnose [options] FILE\n"
    "       perfcheck diagnose [options] --wall-time T KERN.csv [MEM.csv]\n"
    "\n"
    "Reads an Nsight Compute raw export (ncu --csv --page raw ... > FILE.csv,\n"
    "or ncu --import REPORT.ncu-rep --csv --page raw) and prints the checklist\n"
    "and one verdict per kernel signature.  No GPU is needed.  Step 1 (is the\n"
    "kernel the slow part?) needs a wall clock that an export lacks: it is\n"
    "reported as not assessed.  FILE may be gzip-compressed (told by its\n"
    "content, not its name) or - for stdin, and may also be a perfcheck JSON\n"
    "report.\n"
    "\n"
    "Step 1 from Nsight Systems: FILE may be the CSV of `nsys stats --report\n"
    "cuda_gpu_kern_sum [--report cuda_gpu_mem_time_sum] --format csv\n"
    "REPORT.nsys-rep` (one file or two): the kernels' time against the wall\n"
    "clock given with --wall-time, and the copies beside it.\n"
    "\n"
    "options:\n"
    "  -f, --format FMT        text (default), json (schema perfcheck-report/2), csv or\n"
    "                          html (one self-contained page)\n"
    "      --csv               the same as --format csv (ncu's --csv)\n"
    "  -o, --output FILE       write the report to FILE (a temporary file renamed into\n"
    "                          place) instead of stdout; --export is ncu's spelling.\n"
    "                          The format follows the name (.json, .csv, .html,\n"
    "                          .txt) unless --format gives it; a name and a format\n"
    "                          that disagree are refused, as is FILE naming the\n"
    "                          input (unless written as JSON)\n"
    "  -k, --kernel-name FILTER  only these kernels, as ncu's -k: a function name,\n"
    "                          exactly, or regex:EXPR (--kernels is the same)\n"
    "      --wall-time T       the run's wall clock for an nsys summary: 2.5s, 340ms,\n"
    "                          120us, 5000ns (a bare number is seconds)\n"
    "  -q, --quiet             never print the reader's warnings on stderr (they stay\n"
    "                          in the report; this is the default)\n"
    "  -v, --verbose           also print each warning on stderr (PERFCHECK_VERBOSE=1)\n"
    "  -h, --help              this text\n"
    "\n"
    "exit status: 0 done, 2 bad input or usage (the file and the format expected\n"
    "are named) or an output (stdout too) that could not be written, 1 other\n"
    "failures.\n";

static const char usage_metrics[] =
    "usage: perfcheck metrics [--set SET]\n"
    "       perfcheck metrics --passes [--set SET|--metrics LIST] [--chip NAME]\n"
    "       perfcheck metrics --list-sets [--chip NAME]\n"
    "\n"
    "Prints the metrics of a set, comma-separated, ready for ncu's --metrics:\n"
    "  ncu --csv --page raw --metrics $(perfcheck metrics) ./app > app.csv\n"
    "With --passes, prints how many replay passes CUPTI needs to collect them\n"
    "under kernel replay: with --chip, one number for that chip as CUPTI names\n"
    "it (GH100, AD102, TU104, ...); without, one line \"CHIP PASSES\" for each\n"
    "of GH100, GB100, AD102 and GA100, then \"device0 PASSES\" for this\n"
    "machine's device 0 when a driver answers.  CUPTI's host API counts them;\n"
    "no GPU is needed for a named chip.\n"
    "\n"
    "The sets: perfcheck's default (every question of the checklist, every\n"
    "pipe and memory level), sol (default, ncu's speed-of-light rows and L2\n"
    "row, one more stall reason) and full; and\n"
    "ncu's basic, detailed and full as far as CUPTI collects them and\n"
    "perfcheck's metric table holds them: basic the speed-of-light rows, the\n"
    "duration and achieved occupancy; detailed the same as sol; full everything,\n"
    "with the stall reasons and the FP64/FP16 counts.\n"
    "\n"
    "options:\n"
    "      --set SET       default, sol, full, basic or detailed\n"
    "      --metrics LIST  with --passes: a list as perfcheck_options.metrics takes\n"
    "  -p, --passes        print the pass count instead of the list\n"
    "      --list-sets     each set: its metrics and, with --chip, its passes\n"
    "      --chip NAME     with --passes or --list-sets: the chip\n"
    "  -h, --help          this text\n"
    "\n"
    "exit status: 0 done, 2 bad input or usage or stdout that could not be\n"
    "written, 1 other failures.\n";

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
  pc_cli_out_spec out;
  pc_cli_out_init(&out);
  int quiet = 0, rc = -1;
  const char *paths[16], *kernels = NULL;
  size_t npaths = 0;
  double wall_ns = 0;
  static const struct option longopts[] = {{"format", required_argument, NULL, 'f'},
                                           {"csv", no_argument, NULL, 'C'},
                                           {"output", required_argument, NULL, 'o'},
                                           {"export", required_argument, NULL, 'o'},
                                           {"kernel-name", required_argument, NULL, 'k'},
                                           {"kernels", required_argument, NULL, 'k'},
                                           {"wall-time", required_argument, NULL, 'W'},
                                           {"quiet", no_argument, NULL, 'q'},
                                           {"verbose", no_argument, NULL, 'v'},
                                           {"help", no_argument, NULL, 'h'},
                                           {NULL, 0, NULL, 0}};
  pc_cli_getopt_reset();
  int c;
  while ((c = getopt_long(argc, argv, ":f:o:k:qvh", longopts, NULL)) != -1) {
    if (pc_cli_value_is_option(c, longopts)) return pc_cli_value_error("diagnose", argv, EXIT_USAGE);
    switch (c) {
      case 'h':
        fputs(usage_diagnose, stdout);
        return EXIT_DONE;
      case 'q':
        quiet = 1;
        break;
      case 'v':
        pc_cli_set_verbose();
        break;
      case 'C':
        rc = pc_cli_out_format(&out, "diagnose", "--csv", PERFCHECK_FORMAT_CSV);
        break;
      case 'f': {
        int fm = pc_cli_format(optarg);
        if (fm < 0) return usage_error(usage_diagnose, "unknown format '%s' (text, json, csv or html)", optarg);
        rc = pc_cli_out_format(&out, "diagnose", "--format", fm);
        break;
      }
      case 'o':
        if (!*optarg) return usage_error(usage_diagnose, "%s", "--output needs a file name");
        rc = pc_cli_out_path(&out, "diagnose", "--output", optarg);
        break;
      case 'k':
        kernels = optarg;
        break;
      case 'W':
        if (pc_cli_duration_ns(optarg, &wall_ns) != 0)
          return usage_error(usage_diagnose, "bad --wall-time '%s' (a duration such as 2.5s, 340ms, 120us, 5000ns)",
                             optarg);
        break;
      default:
        return pc_cli_getopt_error("diagnose", c, argv, EXIT_USAGE);
    }
    if (rc >= 0) return rc;
  }
  for (int i = optind; i < argc; i++) {
    if (npaths == sizeof paths / sizeof paths[0]) return usage_error(usage_diagnose, "too many files (also got '%s')", argv[i]);
    paths[npaths++] = argv[i];
  }
  if (!npaths) return usage_error(usage_diagnose, "%s", "diagnose needs an ncu export: perfcheck diagnose FILE.csv");
  if (pc_cli_stdin_twice(paths, npaths)) return usage_error(usage_diagnose, "%s", "stdin (-) can be read once only");
  if (npaths > 2)
    return usage_error(usage_diagnose, "%s",
                       "one export at a time (two files only as an nsys kernel summary and its memory summary; "
                       "perfcheck merge combines exports and reports)");
  if ((rc = pc_cli_out_resolve(&out, "diagnose", PC_CLI_FORMATS_ALL, &format)) >= 0) return rc;
  if ((rc = pc_cli_out_not_input("diagnose", out.path, format == PERFCHECK_FORMAT_JSON, paths, npaths)) >= 0) return rc;

  perfcheck_report *report = NULL;
  perfcheck_status st;
  if (npaths > 1 || wall_ns > 0)
    st = perfcheck_report_from_nsys_csv(paths, npaths, wall_ns, quiet, &report);
  else
    st = perfcheck_report_read(paths[0], quiet, &report);
  if (st != PERFCHECK_OK) {
    rc = report_failure(st, paths[0]);
    if (npaths > 1)
      fputs("perfcheck: diagnose reads one export at a time; two files are read only as an nsys stats CSV pair "
            "(cuda_gpu_kern_sum and cuda_gpu_mem_time_sum); perfcheck merge A B combines two ncu exports or "
            "reports\n",
            stderr);
    else if (wall_ns > 0)
      fputs("perfcheck: --wall-time is for an nsys stats CSV (cuda_gpu_kern_sum, with cuda_gpu_mem_time_sum)\n",
            stderr);
    return rc;
  }
  if (kernels) {
    perfcheck_report *sel = NULL;
    st = perfcheck_report_select(report, kernels, &sel);
    perfcheck_report_destroy(report);
    if (st != PERFCHECK_OK) return report_failure(st, kernels);
    report = sel;
  }
  rc = pc_cli_write_report("diagnose", out.path, report, format); /* a failure is exit 2 */
  perfcheck_report_destroy(report);
  return rc;
}

static int cmd_metrics(int argc, char **argv) {
  const char *set = NULL, *list = NULL, *chip = NULL;
  int passes = 0, list_sets = 0;
  static const struct option longopts[] = {{"set", required_argument, NULL, 'S'},
                                           {"metrics", required_argument, NULL, 'M'},
                                           {"chip", required_argument, NULL, 'C'},
                                           {"passes", no_argument, NULL, 'p'},
                                           {"list-sets", no_argument, NULL, 'L'},
                                           {"help", no_argument, NULL, 'h'},
                                           {NULL, 0, NULL, 0}};
  pc_cli_getopt_reset();
  int c;
  while ((c = getopt_long(argc, argv, ":ph", longopts, NULL)) != -1) {
    if (pc_cli_value_is_option(c, longopts)) return pc_cli_value_error("metrics", argv, EXIT_USAGE);
    switch (c) {
      case 'h':
        fputs(usage_metrics, stdout);
        return EXIT_DONE;
      case 'p':
        passes = 1;
        break;
      case 'L':
        list_sets = 1;
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
  if (!passes && !list_sets && (list || chip))
    return usage_error(usage_metrics, "%s", "--metrics and --chip go with --passes (--chip also with --list-sets)");
  if (set && !perfcheck_metric_list(set))
    return usage_error(usage_metrics, "unknown metric set '%s' (default, sol, full, or ncu's basic, detailed, full)", set);

  if (list_sets) {
    /* One line a set: its name, where it comes from, its metric count, and
     * with a chip its passes. */
    static const struct {
      const char *name, *what;
    } sets[] = {{"basic", "ncu's basic: speed-of-light rows, duration, achieved occupancy"},
                {"default", "perfcheck's: every question of the checklist, every pipe and memory level"},
                {"sol", "perfcheck's: default, ncu's speed-of-light rows and L2 row, lg_throttle"},
                {"detailed", "ncu's detailed, as far as CUPTI and the table go: the same as sol"},
                {"full", "ncu's full, as far as CUPTI and the table go: sol, stall reasons, FP64/FP16"}};
    printf("%-9s %8s %7s  %s\n", "set", "metrics", "passes", "what");
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
      const char *l = perfcheck_metric_list(sets[i].name);
      size_t n = l && *l ? 1 : 0;
      for (const char *q = l; q && *q; q++) n += *q == ',';
      char p[32] = "-";
      int np = 0;
      if (chip && perfcheck_metric_passes(sets[i].name, chip, &np) == PERFCHECK_OK) snprintf(p, sizeof p, "%d", np);
      printf("%-9s %8zu %7s  %s\n", sets[i].name, n, p, sets[i].what);
    }
    if (!chip) printf("(passes: give --chip NAME, e.g. --chip GH100; CUPTI's host API counts them, no GPU needed)\n");
  } else if (!passes) {
    fputs(perfcheck_metric_list(set ? set : "default"), stdout);
    fputc('\n', stdout);
  } else {
    int n = 0;
    const char *what = list ? list : set ? set : "default";
    if (chip) {
      perfcheck_status st = perfcheck_metric_passes(what, chip, &n);
      if (st != PERFCHECK_OK) return report_failure(st, "counting passes");
      printf("%d\n", n);
    } else {
      /* The reference chips (Hopper, Blackwell, Ada, Ampere), then this
       * machine's device 0 when there is one. */
      static const char *const chips[] = {"GH100", "GB100", "AD102", "GA100"};
      for (size_t i = 0; i < sizeof chips / sizeof chips[0]; i++) {
        perfcheck_status st = perfcheck_metric_passes(what, chips[i], &n);
        if (st != PERFCHECK_OK) return report_failure(st, "counting passes");
        printf("%s %d\n", chips[i], n);
      }
      if (perfcheck_metric_passes(what, NULL, &n) == PERFCHECK_OK) printf("device0 %d\n", n);
    }
  }
  return EXIT_DONE; /* a failed write to stdout: main's check, exit 2 */
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
  int no_cuda = pc_cli_no_cuda("perfcheck ceilings");
  if (no_cuda) return no_cuda;
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

/* The subcommands and their --help texts: `help COMMAND`, the man page and
 * the bash completion are all written from this table. */
static const pc_cli_command commands[] = {
    {"diagnose", "the checklist over an ncu export (plain or gzip), or step 1 from an nsys stats CSV", usage_diagnose},
    {"metrics", "a metric set for ncu --metrics, or its CUPTI pass count", usage_metrics},
    {"check", "performance expectations, for CI (exit 0 all hold, 1 one fails, 2 bad input)", pc_cli_check_usage},
    {"run", "run an unmodified program under perfcheck and report its kernels", pc_cli_run_usage},
    {"merge", "combine the reports of several processes into one", pc_cli_merge_usage},
    {"report", "write a report again, as the HTML page above all", pc_cli_report_usage},
    {"diff", "what got worse between two runs (exit 1 when anything did)", pc_cli_diff_usage},
    {"ceilings", "measure the GPU's DRAM bandwidth and FP32 rate for step 2", usage_ceilings},
};
enum { NCOMMANDS = sizeof commands / sizeof commands[0] };

/* `help --man FILE`, `help --bash-completion FILE` (the build's; "-": stdout),
 * written through the one output function (pc_cli_write). */
static int write_docs_to(FILE *f, void *ctx) {
  static const char *const sets[] = {"default", "sol", "full", "basic", "detailed", NULL};
  static const char *const formats[] = {"text", "json", "csv", "html", NULL};
  return strcmp((const char *)ctx, "--man") == 0
             ? pc_cli_write_man(f, PERFCHECK_VERSION_STRING, usage_main, commands, NCOMMANDS)
             : pc_cli_write_bash_completion(f, commands, NCOMMANDS, sets, formats);
}

static int write_docs(const char *what, const char *path) {
  return pc_cli_write("help", path, write_docs_to, (void *)what) == 0 ? EXIT_DONE : PC_CLI_EXIT_OUTPUT;
}

/* What is left in stdout's buffer, written, and whether all of it got
 * there: any output that could not be written is exit 2, as the help says
 * (`perfcheck --help > /dev/full`, `perfcheck metrics > /dev/full`).  A
 * command that already reported its failed write keeps its status. */
static int finish(int rc) {
  errno = 0;
  if ((fflush(stdout) != 0 || ferror(stdout)) && rc != EXIT_USAGE) {
    fprintf(stderr, "perfcheck: writing to stdout failed: %s\n", errno ? strerror(errno) : "write error");
    rc = EXIT_USAGE;
  }
  return rc;
}

static int dispatch(int argc, char **argv);

int main(int argc, char **argv) { return finish(dispatch(argc, argv)); }

static int dispatch(int argc, char **argv) {
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
    if (strcmp(argv[2], "--man") == 0 || strcmp(argv[2], "--bash-completion") == 0)
      return write_docs(argv[2], argc > 3 ? argv[3] : "-");
    for (size_t i = 0; i < NCOMMANDS; i++)
      if (strcmp(argv[2], commands[i].name) == 0) {
        fputs(commands[i].usage, stdout);
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
