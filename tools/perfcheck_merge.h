/* perfcheck merge: one report from the reports of several processes
 * (perfcheck_merge.c). */
#ifndef PERFCHECK_MERGE_H
#define PERFCHECK_MERGE_H

/* `perfcheck merge ...`: argv[0] is "merge", the options and files follow.
 * Returns the exit status: 0 done, 2 bad input or usage, 1 other failures. */
int pc_cli_merge(int argc, char **argv);

/* Its help text, for `perfcheck help merge`. */
extern const char pc_cli_merge_usage[];

#endif /* PERFCHECK_MERGE_H */
