/*
 * pc_words.h: what the text, HTML and CSV writers say alike about a kernel
 * (pc_words.c): a value in its metric's own unit, the order of the
 * verdicts, whether a kernel is worth changing, and the runner-up of a
 * borderline verdict.
 *
 * Units.  A finding's value is written in the unit ncu gives its metric
 * (ncu's raw page: "%", "byte", "sector", none for a ratio), with the unit
 * named: "4 bytes/sector", "0.1269 waves", "85.68%".  Where the checklist
 * compares a metric as a percentage of its peak (the issue slots:
 * smsp__issue_active.avg.per_cycle_active is 0..1 per cycle, compared as
 * 0..100%), the metric's own value is written and the percentage beside it:
 * "0.9612 inst/cycle (96.1% of peak)".  A ratio perfcheck computes from
 * two counts says what it is a share of: "0.1 (10% of the wall clock)".
 */
#ifndef PC_WORDS_H
#define PC_WORDS_H

#include <stddef.h>

#include "model/pc_core.h"

/* A finding's metric and value, "metric = value unit" ("metric not
 * measured" for NaN), into buf; the
 * threshold the same way ("threshold 0.8 inst/cycle (80% of peak)") into
 * thr when thr is not NULL and the threshold is known (else thr = ""). */
void pc_words_value(char *buf, size_t len, const char *metric, double value);
void pc_words_threshold(char *buf, size_t len, const char *metric, double threshold);

/* 1: the kernel holds at least 1% of its region's kernel time (worth
 * changing), 0: less (its verdict stands, the work would not pay), -1:
 * its share is unknown.  kernels[].worth_changing when the report carries
 * it, else from kernel_time_share. */
int pc_kernel_worth_changing(const pc_kernel *k);
#define PC_WORTH_CHANGING_MIN_SHARE 0.01

/* The kernel entries in the order their verdicts are read: worth changing
 * first, then those of unknown share, then those not worth changing; in
 * each, the larger share (then total time) first, report order on ties.
 * Fills order[0 .. r->nkernels); returns 0, -1 on OOM. */
int pc_kernel_verdict_order(const pc_report *r, size_t *order);

/* The runner-up of a borderline verdict, as the report says it: the
 * metric whose nudged threshold gives the runner-up, its value and that
 * threshold.  diagnosis.runner_up_metric when the report carries it, else
 * the finding of the runner-up's cause, else (at_roof or latency_bound)
 * the busiest unit against at_roof_pct.  Returns 0 when none is known. */
int pc_runner_up_evidence(const pc_kernel *k, const pc_device *d, const char **metric, double *value,
                          double *threshold);

/* 1 when the diagnosis carries an estimated gain (diagnosis.gain). */
int pc_gain_known(const pc_gain *g);

/* A duration for people: "850 ns", "12.3 us", "1.184 ms", "2.31 s"; "-"
 * when not measured. */
const char *pc_words_ns(char *buf, size_t len, double ns);

#endif /* PC_WORDS_H */
