/* pc_cli.h: option parsing shared by the `perfcheck` subcommands. */
#ifndef PC_CLI_H
#define PC_CLI_H

/* Matches "--name", the short form "-n" (may be NULL) and "--name=VALUE";
 * *inline_value gets VALUE for the last form, else NULL. */
int pc_cli_opt(const char *arg, const char *longname, const char *shortname, const char **inline_value);

/* The option's value: the inline one, else the next argument (advancing *i);
 * NULL when there is none. */
const char *pc_cli_opt_value(int argc, char **argv, int *i, const char *inline_value);

/* Prints "perfcheck CMD: <message>" and a pointer to CMD's help on stderr;
 * returns `status` (the usage exit status). */
int pc_cli_usage_error(const char *cmd, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif /* PC_CLI_H */
