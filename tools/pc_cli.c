/* Option parsing shared by the `perfcheck` subcommands (pc_cli.h). */
#include "pc_cli.h"
#include "pc_output.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void pc_cli_getopt_reset(void) {
  optind = 0; /* glibc: full re-initialisation */
  opterr = 0; /* our messages, not getopt's */
}

int pc_cli_getopt_error(const char *cmd, int c, char **argv, int status) {
  const char *arg = optind > 0 ? argv[optind - 1] : "?";
  char name[128];
  if (strncmp(arg, "--", 2) == 0 || !optopt) {
    snprintf(name, sizeof name, "%s", arg); /* "--output" as written */
    char *eq = strchr(name, '=');
    if (eq && c == ':') *eq = '\0';
  } else {
    snprintf(name, sizeof name, "-%c", optopt); /* one letter of "-qx" */
  }
  if (c == ':') return pc_cli_usage_error(cmd, status, "%s needs a value", name);
  return pc_cli_usage_error(cmd, status, "unknown option '%s'", name);
}

int pc_cli_usage_error(const char *cmd, int status, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "perfcheck %s: %s\n(perfcheck %s --help for the usage)\n", cmd, msg, cmd);
  return status;
}

int pc_cli_format(const char *v) {
  if (!v) return -1;
  if (strcmp(v, "text") == 0) return 0;
  if (strcmp(v, "json") == 0) return 1;
  if (strcmp(v, "csv") == 0) return 2;
  if (strcmp(v, "html") == 0) return 3;
  return -1;
}

int pc_cli_write(const char *cmd, const char *output, int (*write)(FILE *f, void *ctx), void *ctx) {
  char why[900];
  if (!output) output = "-";
  if (pc_output_write_file(output, write, ctx, why, sizeof why) == 0) return 0;
  if (strcmp(output, "-") == 0)
    fprintf(stderr, "perfcheck %s: %s\n", cmd, why);
  else
    fprintf(stderr, "perfcheck %s: cannot write %s: %s\n", cmd, output, why);
  return PC_CLI_EXIT_OUTPUT;
}

typedef struct pc_cli_out {
  const perfcheck_report *r;
  const perfcheck_diff *d;
  perfcheck_format format;
} pc_cli_out;

static int pc_cli_put(FILE *f, void *ctx) {
  const pc_cli_out *o = ctx;
  perfcheck_status st = o->r ? perfcheck_report_write(o->r, o->format, f) : perfcheck_diff_write(o->d, o->format, f);
  return st == PERFCHECK_OK ? 0 : -1;
}

int pc_cli_write_report(const char *cmd, const char *output, const perfcheck_report *r, perfcheck_format format) {
  pc_cli_out o = {r, NULL, format};
  return pc_cli_write(cmd, output, pc_cli_put, &o);
}

int pc_cli_write_diff(const char *cmd, const char *output, const perfcheck_diff *d, perfcheck_format format) {
  pc_cli_out o = {NULL, d, format};
  return pc_cli_write(cmd, output, pc_cli_put, &o);
}
