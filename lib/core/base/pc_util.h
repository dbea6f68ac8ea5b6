/*
 * pc_util.h: the thread's last error (pc_status.c) and the small utilities
 * (pc_util.c): a string copy, a whole file read, a median.
 */
#ifndef PC_UTIL_H
#define PC_UTIL_H

#include <math.h>
#include <stddef.h>

#include "perfcheck.h"
#include "base/pc_err.h"

/* A value that was not measured: NaN, written as null. */
#define PC_NULL ((double)NAN)
static inline int pc_is_null(double v) { return isnan(v); }
static inline int pc_has(double v) { return !isnan(v); }

/* Sets this thread's last error message (printf-style) and returns status. */
perfcheck_status pc_fail(perfcheck_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void pc_clear_error(void);

/* The internal error channel, pc_err (pc_err_set, pc_err_vset,
 * pc_err_clear), is in base/pc_err.h: a failure's status and
 * its detail, carried by the caller's pc_err; the session turns the first
 * that matters into its message and the thread's last error (pc_fail) at the
 * API boundary. */

char *pc_strdup(const char *s);       /* NULL for NULL or OOM */
/* Reads a whole file into malloc'd memory (not NUL-terminated), refusing more
 * than max_bytes; errors in err naming the path (and `what`, e.g. "an ncu
 * export").  Returns PERFCHECK_OK, _IO, _PARSE (too large), _OUT_OF_MEMORY. */
perfcheck_status pc_read_file(const char *path, size_t max_bytes, const char *what, char **data, size_t *len,
                              pc_err *err);
/* Median of n doubles (sorts a copy); NaN for n == 0. */
double pc_median(const double *v, size_t n);

#endif /* PC_UTIL_H */
