/* pc_cli_docs.h: perfcheck(1) and its bash completion, written from the
 * commands' --help texts (pc_cli_docs.c). */
#ifndef PC_CLI_DOCS_H
#define PC_CLI_DOCS_H

#include <stddef.h>
#include <stdio.h>

/* One subcommand: its name, one line for the list, and its --help text. */
typedef struct pc_cli_command {
  const char *name;
  const char *summary;
  const char *usage;
} pc_cli_command;

/* The man page (roff): the main --help text as DESCRIPTION, each command's
 * --help text under COMMANDS.  Returns 0, or -1 on a write error. */
int pc_cli_write_man(FILE *f, const char *version, const char *main_usage, const pc_cli_command *cmds, size_t n);

/* A bash completion script: the subcommands, each one's options as its
 * --help text lists them, the words of --format and --set (NULL-ended
 * lists), files otherwise, and the program's own words after `run --`.
 * Returns 0, or -1 on a write error. */
int pc_cli_write_bash_completion(FILE *f, const pc_cli_command *cmds, size_t n, const char *const *sets,
                                 const char *const *formats);

#endif /* PC_CLI_DOCS_H */
