/* pc_cli.h: option parsing shared by the `perfcheck` subcommands.
 *
 * Every subcommand parses with glibc's getopt_long (`+` mode for run, whose
 * PROGRAM's own options must not be taken), and a short option means the
 * same thing in every subcommand that has it:
 *   -h --help   -f --format   -q --quiet   -o --output   -e --expect
 *   -d --device   -p --passes   -k --kernels   -s --launch-skip   -c --launch-count
 * (-k, -s and -c are ncu's; the other options are long only.) */
#ifndef PC_CLI_H
#define PC_CLI_H

#include <getopt.h>
#include <stdio.h>

#include "perfcheck.h"

/* Resets getopt for a subcommand's argv (argv[0] is the subcommand). */
void pc_cli_getopt_reset(void);

/* After getopt_long returned '?' (unknown option) or ':' (a missing value):
 * prints the usage error naming the option as the user wrote it, e.g.
 * "unknown option '--frobnicate'" or "--output needs a value", and returns
 * `status`. */
int pc_cli_getopt_error(const char *cmd, int c, char **argv, int status);

/* Prints "perfcheck CMD: <message>" and a pointer to CMD's help on stderr;
 * returns `status` (the usage exit status). */
int pc_cli_usage_error(const char *cmd, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* "text", "json", "csv", "html" -> 0, 1, 2, 3 (perfcheck_format); -1 otherwise. */
int pc_cli_format(const char *v);

/* Every output of a subcommand goes through here (lib/core/pc_output.c's
 * pc_output_write_file, the one output function): `output` NULL or "-" is
 * stdout, else a regular file replaced whole (a device, FIFO or folder at the
 * name is refused).  Returns 0; else prints "perfcheck CMD: cannot write
 * OUTPUT: why" and returns PC_CLI_EXIT_OUTPUT. */
#define PC_CLI_EXIT_OUTPUT 2 /* the same in every subcommand, never "worse" (1) */
int pc_cli_write(const char *cmd, const char *output, int (*write)(FILE *f, void *ctx), void *ctx);

/* pc_cli_write of a report or a diff in a format. */
int pc_cli_write_report(const char *cmd, const char *output, const perfcheck_report *r, perfcheck_format format);
int pc_cli_write_diff(const char *cmd, const char *output, const perfcheck_diff *d, perfcheck_format format);

#endif /* PC_CLI_H */
