/* Option parsing shared by the `perfcheck` subcommands (pc_cli.h). */
#include "pc_cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int pc_cli_opt(const char *arg, const char *longname, const char *shortname, const char **inline_value) {
  *inline_value = NULL;
  if (shortname && strcmp(arg, shortname) == 0) return 1;
  size_t n = strlen(longname);
  if (strncmp(arg, longname, n) != 0) return 0;
  if (arg[n] == '\0') return 1;
  if (arg[n] == '=') {
    *inline_value = arg + n + 1;
    return 1;
  }
  return 0;
}

const char *pc_cli_opt_value(int argc, char **argv, int *i, const char *inline_value) {
  if (inline_value) return inline_value;
  if (*i + 1 >= argc) return NULL;
  return argv[++*i];
}

int pc_cli_usage_error(const char *cmd, int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "perfcheck %s: ", cmd);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\n(perfcheck %s --help for the usage)\n", cmd);
  return status;
}
