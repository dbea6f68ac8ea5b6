/* Option parsing shared by the `perfcheck` subcommands (pc_cli.h). */
#include "pc_cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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

int pc_cli_value_is_option(int c, const struct option *longopts) {
  (void)longopts;
  if (c == '?' || c == ':' || !optarg) return 0;
  return optarg[0] == '-' && optarg[1] != '\0'; /* "-" alone is stdin or stdout */
}

int pc_cli_value_error(const char *cmd, char **argv, int status) {
  /* The option is argv[optind - 2] when its value was the next word, else
   * the value was glued on ("--kernels=--x", "-k-x"). */
  const char *opt = optind >= 2 ? argv[optind - 2] : "?";
  if (optind >= 1 && argv[optind - 1] != optarg) opt = argv[optind - 1];
  if (strcmp(optarg, "--") == 0)
    return pc_cli_usage_error(cmd, status, "%s needs a value before '--'", opt);
  return pc_cli_usage_error(cmd, status, "%s needs a value, not the option '%s' (a value that starts with '-' is "
                                         "refused: write ./%s for a file)",
                            opt, optarg, optarg);
}

void pc_cli_set_verbose(void) { setenv("PERFCHECK_VERBOSE", "1", 1); }

int pc_cli_stdin_twice(const char *const *paths, size_t n) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) k += strcmp(paths[i], "-") == 0;
  return k > 1;
}

int pc_cli_duration_ns(const char *s, double *ns) {
  if (!s || !*s) return -1;
  char *end = NULL;
  double v = strtod(s, &end);
  if (!end || end == s || !(v > 0) || v > 1e15) return -1;
  double scale;
  if (!*end || strcmp(end, "s") == 0) scale = 1e9;
  else if (strcmp(end, "ms") == 0) scale = 1e6;
  else if (strcmp(end, "us") == 0) scale = 1e3;
  else if (strcmp(end, "ns") == 0) scale = 1;
  else if (strcmp(end, "min") == 0) scale = 60e9;
  else return -1;
  *ns = v * scale;
  return 0;
}
