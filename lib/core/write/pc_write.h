/*
 * pc_write.h: what write/ exports: a report written as text, JSON, CSV or
 * HTML, the kernel labels the writers share, and a report to its
 * destination (pc_report_out.c).  The diff's writers are in
 * write/pc_write_diff.h.
 */
#ifndef PC_WRITE_H
#define PC_WRITE_H

#include <stddef.h>
#include <stdio.h>
#include "model/pc_core.h"

/* ==== Writers (pc_write_text.c, pc_write_json.c, pc_write_csv.c) ========= */

/* Each returns PERFCHECK_OK; else PERFCHECK_ERROR_INVALID_ARGUMENT (r or f
 * NULL), _OUT_OF_MEMORY or _IO (the stream failed), with err set. */
perfcheck_status pc_write_text(const pc_report *r, FILE *f, pc_err *err);
perfcheck_status pc_write_json(const pc_report *r, FILE *f, pc_err *err);
perfcheck_status pc_write_csv(const pc_report *r, FILE *f, pc_err *err);
perfcheck_status pc_write_html(const pc_report *r, FILE *f, pc_err *err);

/* The name a kernel is shown and paired by: its display name when the report
 * carries one, else `name` (never NULL). */
const char *pc_kernel_label_name(const pc_kernel *k);

/* A label per kernel entry (pc_write_text.c): the display name, plus what
 * tells apart entries that share it ("mysteryC, 48000 B dynamic"), made
 * printable for a terminal. */
typedef struct pc_label {
  char *text;   /* printable, malloc'd */
  size_t width; /* characters */
} pc_label;
/* Fills labels[0 .. r->nkernels) (zeroed by the caller); returns 0, or -1 on
 * OOM (then nothing is left allocated).  The caller frees each text. */
int pc_kernel_labels(const pc_report *r, pc_label *labels);
/* CSV field quoting (RFC 4180). */
void pc_csv_write_field(FILE *f, const char *s);

/* Writes a report in `format` where the output pattern says (%p %h %q{VAR}
 * %%, "-", "stderr"), by the rules of pc_output.h: a temporary file and a
 * rename, the report on stderr with one line when the file cannot be
 * written, no file in a privileged process.  Returns 0 written, 1 written to
 * stderr instead, -1 not written. */
int pc_report_deliver(const pc_report *r, perfcheck_format format, const char *pattern, int quiet);

#endif /* PC_WRITE_H */
