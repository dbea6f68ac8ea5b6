/* perfcheck report and perfcheck diff (perfcheck_diff.c), and the baseline
 * comparison behind `perfcheck check --baseline`. */
#ifndef PERFCHECK_DIFF_H
#define PERFCHECK_DIFF_H

#include <stdio.h>

#include "perfcheck.h"

/* `perfcheck report ...` and `perfcheck diff ...`: argv[0] is the command
 * name, the options follow.  Return the exit status. */
int pc_cli_report(int argc, char **argv);
int pc_cli_diff(int argc, char **argv);
extern const char pc_cli_report_usage[];
extern const char pc_cli_diff_usage[];

/* Reads a perfcheck JSON report, or an ncu raw export (diagnosed), telling
 * them apart by the first character.  As perfcheck_report_from_json. */
perfcheck_status pc_cli_read_report(const char *path, int quiet, perfcheck_report **out);

/* `perfcheck check --baseline BASE`: compares `after` (called after_label)
 * with the report in baseline_path, writes the diff as text to out (not when
 * quiet and nothing got worse) and adds what it judged to `set`'s results
 * (perfcheck_expectations_add_diff: one per kernel entry and region).
 * Returns 0; 2 when the baseline cannot be read or compared (the message is
 * on stderr); 1 out of memory. */
int pc_cli_baseline(const char *baseline_path, const perfcheck_report *after, const char *after_label, int quiet,
                    FILE *out, perfcheck_expectations *set);

#endif /* PERFCHECK_DIFF_H */
