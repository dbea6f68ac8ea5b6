/* perfcheck check: performance assertions for CI scripts (perfcheck_check.c). */
#ifndef PERFCHECK_CHECK_H
#define PERFCHECK_CHECK_H

/* `perfcheck check ...`: argv[0] is "check", the options follow.  Returns
 * the exit status: 0 all expectations hold, 1 some failed, 2 bad input. */
int pc_cli_check(int argc, char **argv);

/* Its help text, for `perfcheck help check`. */
extern const char pc_cli_check_usage[];

#endif /* PERFCHECK_CHECK_H */
