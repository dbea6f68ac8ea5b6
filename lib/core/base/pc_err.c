/* The one error channel (pc_err.h). */
#include "base/pc_err.h"

#include <stdarg.h>
#include <stdio.h>

perfcheck_status pc_err_set(pc_err *e, perfcheck_status st, const char *fmt, ...) {
  if (!e) return st;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e->msg, sizeof e->msg, fmt, ap);
  va_end(ap);
  e->status = st;
  return st;
}

perfcheck_status pc_err_vset(pc_err *e, perfcheck_status st, const char *prefix, const char *fmt, va_list ap) {
  if (!e) return st;
  size_t w = 0;
  if (prefix) {
    int n = snprintf(e->msg, sizeof e->msg, "%s", prefix);
    w = n < 0 ? 0 : (size_t)n < sizeof e->msg ? (size_t)n : sizeof e->msg - 1;
  }
  vsnprintf(e->msg + w, sizeof e->msg - w, fmt, ap);
  e->status = st;
  return st;
}
