/*
 * pc_err.h: the library's one error channel and its one way to the
 * program's stderr (pc_err.c).
 *
 * A fallible internal call returns a perfcheck_status and fills the caller's
 * pc_err: the status and one message, set by pc_err_set (pc_err_vset for a
 * helper that puts a position in front: "FILE:LINE:COL: ").  NULL is allowed
 * where the caller wants no detail.  At the public API the status is
 * returned and the message kept on the handle or, for calls without one, as
 * the thread's last error (pc_fail, base/pc_util.h).
 *
 * pc_say writes one "perfcheck: ..." line to stderr in one write(2), so
 * that lines of several processes do not interleave.  Every line the
 * libraries write to the program's stderr goes through it: the session's
 * `say` (lib/gpu's progress line), a warning with PERFCHECK_VERBOSE=1
 * (pc_report_warn), the injection's "profiling off" lines and its summary
 * line.  pc_say_to is the same line to a stream the caller gives, for the
 * two writers whose callers choose (the library gives stderr, tests a memory
 * stream): the configuration's bad-value lines (pc_config_from_env) and a
 * report's delivery lines (pc_output_deliver, pc_output_expand).
 *
 * libc only and no state: the `perfcheck` command and the injection loader
 * (libperfcheck_inject.so) compile this file too.
 */
#ifndef PC_ERR_H
#define PC_ERR_H

#include <stdarg.h>
#include <stdio.h>

#include "perfcheck.h"

/* The one message size: a pc_err's, the thread's last error, a session's
 * message and an expectation's failure text.  A longer message is cut at a
 * UTF-8 character's boundary and ends in "...". */
#define PC_MSG_MAX 1024

typedef struct pc_err {
  perfcheck_status status; /* PERFCHECK_OK: nothing failed */
  char msg[PC_MSG_MAX];
} pc_err;

/* Formats into dst (cap bytes, at most PC_MSG_MAX meant), cut as above. */
void pc_msg_vformat(char *dst, size_t cap, const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 0)))
#endif
    ;

/* Sets *e (NULL is allowed: the detail is dropped) and returns st. */
perfcheck_status pc_err_set(pc_err *e, perfcheck_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* The same from a va_list, the text after `prefix` (NULL: none), e.g. the
 * "file:line:col: " of a parse error; the whole cut to fit msg. */
perfcheck_status pc_err_vset(pc_err *e, perfcheck_status st, const char *prefix, const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 0)))
#endif
    ;
static inline void pc_err_clear(pc_err *e) {
  if (e) e->status = PERFCHECK_OK, e->msg[0] = '\0';
}

/* "perfcheck: " + the text + "\n" on stderr, in one write, then flushed. */
void pc_say(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* The same line on `f` (NULL: nothing). */
void pc_say_to(FILE *f, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif /* PC_ERR_H */
