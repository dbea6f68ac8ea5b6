/* A helper for the fault matrix (run.sh): the library's own code paths that
 * need no GPU, driven from the command line.
 *
 *   fault_helper deliver PATTERN FORMAT EXPORT.csv
 *       reads the export and writes its report where PATTERN says, by the
 *       rules a session's output follows (pc_report_deliver): exit 0 written,
 *       1 written to stderr instead, 3 not written, 2 bad arguments.
 *   fault_helper config
 *       reads the PERFCHECK_* environment as the injection library does and
 *       prints the options it got (warnings on stderr).
 *   fault_helper ceilings PATH
 *       writes a device's ceilings file to PATH as `perfcheck ceilings` and
 *       the ceilings cache do (pc_device_write_ceilings): exit 0 written, 1
 *       not (the reason on stderr). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/pc_config.h"
#include "model/pc_core.h"
#include "base/pc_output.h"
#include "write/pc_write.h"

/* Writes 1 MiB, then dies of the signal *ctx with its default action. */
static int write_then_die(FILE *f, void *ctx) {
  static char chunk[1 << 16];
  memset(chunk, 'x', sizeof chunk);
  for (int i = 0; i < 16; i++)
    if (fwrite(chunk, 1, sizeof chunk, f) != sizeof chunk) return -1;
  fflush(f);
  signal(*(int *)ctx, SIG_DFL);
  raise(*(int *)ctx);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 5 && strcmp(argv[1], "deliver") == 0) {
    perfcheck_format fmt = strcmp(argv[3], "json") == 0 ? PERFCHECK_FORMAT_JSON
                           : strcmp(argv[3], "csv") == 0 ? PERFCHECK_FORMAT_CSV
                                                         : PERFCHECK_FORMAT_TEXT;
    perfcheck_report *r = NULL;
    if (perfcheck_report_from_ncu_csv(argv[4], 1, &r) != PERFCHECK_OK) {
      fprintf(stderr, "fault_helper: %s\n", perfcheck_last_error_message());
      return 2;
    }
    int rc = pc_report_deliver(r, fmt, argv[2], 0);
    perfcheck_report_destroy(r);
    return rc == 0 ? 0 : rc == 1 ? 1 : 3;
  }
  if (argc == 2 && strcmp(argv[1], "config") == 0) {
    perfcheck_options o;
    pc_env_config x;
    int bad = pc_config_from_env(&o, &x, stderr);
    printf("bad=%d kernel_regex=%s output=%s nvtx=%s\n", bad, o.kernel_regex ? o.kernel_regex : "(none)",
           o.output ? o.output : "(none)", x.nvtx_include ? x.nvtx_include : "(none)");
    return 0;
  }
  if (argc == 3 && strcmp(argv[1], "ceilings") == 0) {
    pc_device d;
    pc_device_init(&d);
    snprintf(d.name, sizeof d.name, "NVIDIA H200");
    d.peak_dram_bytes_per_s = 4.0e12;
    d.peak_fp32_flop_per_s = 6.0e13;
    pc_err err;
    if (pc_device_write_ceilings(&d, argv[2], &err) != PERFCHECK_OK) {
      fprintf(stderr, "fault_helper: %s\n", err.msg);
      return 1;
    }
    return 0;
  }
  if (argc == 4 && strcmp(argv[1], "interrupt") == 0) {
    static const struct {
      const char *name;
      int sig;
    } sigs[] = {{"TERM", SIGTERM}, {"INT", SIGINT}, {"HUP", SIGHUP}, {"QUIT", SIGQUIT}, {"XFSZ", SIGXFSZ}};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
      if (strcmp(argv[3], sigs[i].name) == 0) {
        int sig = sigs[i].sig;
        pc_err err;
        pc_output_write_file(argv[2], write_then_die, &sig, &err);
        fprintf(stderr, "fault_helper: the write returned (%s)\n", err.msg);
        return 1;
      }
  }
  fprintf(stderr, "usage: fault_helper deliver PATTERN FORMAT EXPORT.csv | fault_helper config | "
                  "fault_helper ceilings PATH | fault_helper interrupt PATH SIGNAL\n");
  return 2;
}
