/* Option parsing shared by the `perfcheck` subcommands (pc_cli.h). */
#include "pc_cli.h"

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
