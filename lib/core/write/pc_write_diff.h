/*
 * pc_write_diff.h: a comparison of two reports (model/pc_diff_model.h)
 * written as text, JSON or HTML (pc_write_diff.c).
 */
#ifndef PC_WRITE_DIFF_H
#define PC_WRITE_DIFF_H

#include <stdio.h>

#include "model/pc_diff_model.h"

/* "same", "better", "worse", "moved", "not_comparable". */
const char *pc_change_name(pc_change c);

/* Each returns PERFCHECK_OK, or an error status with err set. */
perfcheck_status pc_diff_write_text(const pc_diff *d, FILE *f, pc_err *err);
perfcheck_status pc_diff_write_json(const pc_diff *d, FILE *f, pc_err *err);
perfcheck_status pc_diff_write_html(const pc_diff *d, FILE *f, pc_err *err);

#endif /* PC_WRITE_DIFF_H */
