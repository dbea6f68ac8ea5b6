/* pc_cli.h: option parsing shared by the `perfcheck` subcommands.
 *
 * Every subcommand parses with glibc's getopt_long (`+` mode for run, whose
 * PROGRAM's own options must not be taken), and a short option means the
 * same thing in every subcommand that has it:
 *   -h --help   -f --format   -q --quiet   -v --verbose   -o --output   -e --expect
 *   -d --device   -p --passes   -k --kernel-name   -s --launch-skip   -c --launch-count
 * (-k, -s, -c and -o are ncu's; the other options are long only.  ncu's -v
 * is --version and its -f --force-overwrite: `perfcheck run` takes both by
 * their long names.) */
#ifndef PC_CLI_H
#define PC_CLI_H

#include <getopt.h>
#include <stddef.h>
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

/* After getopt_long returned option c: nonzero when c took a value that is
 * itself an option ("--kernels --set", "--nvtx-include --", "-k -x"): a
 * value is never taken from the next option. */
int pc_cli_value_is_option(int c, const struct option *longopts);
/* The usage error for it, naming the option; returns `status`. */
int pc_cli_value_error(const char *cmd, char **argv, int status);

/* -v / --verbose: PERFCHECK_VERBOSE=1 for the library (its warnings on
 * stderr too) and for a program run under perfcheck. */
void pc_cli_set_verbose(void);

/* Nonzero when "-" (stdin) is given more than once. */
int pc_cli_stdin_twice(const char *const *paths, size_t n);

/* "2.5s", "340ms", "120us", "5000ns", "1min"; a bare number is seconds.
 * 0 with *ns set, -1 when it is not a positive duration. */
int pc_cli_duration_ns(const char *s, double *ns);

/* ncu's options that perfcheck does not implement (pc_cli.c): its long
 * name, whether it takes a value, and what to use instead.  `perfcheck run`
 * knows them all, so that their value is consumed and the option refused
 * by name: "ncu's --replay-mode is not supported here: use ...". */
typedef struct pc_ncu_flag {
  const char *name; /* without "--"; NULL ends the table */
  int has_arg;
  const char *use;
} pc_ncu_flag;
extern const pc_ncu_flag pc_ncu_unsupported[];
const pc_ncu_flag *pc_ncu_flag_find(const char *name);
/* Prints the refusal; returns `status`. */
int pc_cli_ncu_refused(const char *cmd, const pc_ncu_flag *f, int status);

/* Where a subcommand's report goes and in which format, from its flags
 * (-o/--output FILE, --html FILE, -f/--format F, --csv), each recorded as it
 * comes.  The format follows the output name (FILE.json JSON, .csv CSV,
 * .html HTML, .txt text; pc_output_format_of_name) unless a flag gives it;
 * two outputs (-o a -o b, --html with --output), two formats (--csv with
 * -f json) or a format the name contradicts (-f csv -o r.json) are refused,
 * never one silently taken. */
typedef struct pc_cli_out_spec {
  const char *path;        /* NULL or "-": stdout */
  const char *path_flag;   /* the flag that named it ("--output", "--html") */
  int format;              /* perfcheck_format, -1 until a flag gives one */
  const char *format_flag; /* "--format", "--csv", "--html" */
} pc_cli_out_spec;

void pc_cli_out_init(pc_cli_out_spec *o);
/* Record one flag.  Each returns -1 to go on, else the usage exit status
 * (the refusal is printed). */
int pc_cli_out_path(pc_cli_out_spec *o, const char *cmd, const char *flag, const char *path);
int pc_cli_out_format(pc_cli_out_spec *o, const char *cmd, const char *flag, int format);
/* The format to write: the flags', else the name's, else text.  `allowed`
 * has bit 1 << F for each format F the command writes.  Returns -1 with
 * *format set, else the usage exit status (a name that contradicts a flag,
 * or names a format the command does not write). */
int pc_cli_out_resolve(pc_cli_out_spec *o, const char *cmd, unsigned allowed, perfcheck_format *format);
#define PC_CLI_FORMATS_ALL 0xFu
/* No command replaces one of its inputs with a file perfcheck cannot read
 * back: an output that is one of the inputs (the same file, by device and
 * inode) is refused unless `readable` (a JSON report, which every command
 * reads).  Returns -1 to go on, else the usage exit status. */
int pc_cli_out_not_input(const char *cmd, const char *output, int readable, const char *const *inputs, size_t n);

/* Every output of a subcommand goes through here (lib/core/base/pc_output.c's
 * pc_output_write_file, the one output function): `output` NULL or "-" is
 * stdout, else a regular file replaced whole (a device, FIFO or folder at the
 * name is refused).  Returns 0; else prints "perfcheck CMD: cannot write
 * OUTPUT: why" and returns PC_CLI_EXIT_OUTPUT. */
#define PC_CLI_EXIT_OUTPUT 2 /* the same in every subcommand, never "worse" (1) */
int pc_cli_write(const char *cmd, const char *output, int (*write)(FILE *f, void *ctx), void *ctx);

/* A build without the CUDA toolkit has no in-process half, and every command
 * whose exit status is perfcheck's own and that needs it (check -- PROGRAM,
 * ceilings; metrics --passes through the library's status) answers the same
 * way (docs/cli.md, "Built without CUDA"): in such a build, prints "WHO:
 * built without the CUDA toolkit: ..." and returns PC_CLI_EXIT_NO_CUDA;
 * else 0.  `perfcheck run` keeps the program's exit status: the program
 * runs unprofiled, as on a machine without a GPU. */
#define PC_CLI_EXIT_NO_CUDA 2 /* the same in every subcommand */
int pc_cli_no_cuda(const char *who);

/* pc_cli_write of a report or a diff in a format. */
int pc_cli_write_report(const char *cmd, const char *output, const perfcheck_report *r, perfcheck_format format);
int pc_cli_write_diff(const char *cmd, const char *output, const perfcheck_diff *d, perfcheck_format format);

#endif /* PC_CLI_H */
