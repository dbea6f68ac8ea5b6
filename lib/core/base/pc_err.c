/* The one error channel and the one line to stderr (pc_err.h). */
#include "base/pc_err.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pc_msg_vformat(char *dst, size_t cap, const char *fmt, va_list ap) {
  if (!dst || cap == 0) return;
  va_list ap2;
  va_copy(ap2, ap);
  const int n = vsnprintf(dst, cap, fmt, ap2);
  va_end(ap2);
  if (n < 0) {
    dst[0] = '\0';
    return;
  }
  if ((size_t)n < cap || cap < 4) return;
  /* Cut: "..." at the end, never half a UTF-8 sequence before it. */
  size_t keep = cap - 4;
  while (keep > 0 && ((unsigned char)dst[keep] & 0xC0) == 0x80) keep--;
  memcpy(dst + keep, "...", 4);
}

perfcheck_status pc_err_set(pc_err *e, perfcheck_status st, const char *fmt, ...) {
  if (!e) return st;
  va_list ap;
  va_start(ap, fmt);
  pc_msg_vformat(e->msg, sizeof e->msg, fmt, ap);
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
  pc_msg_vformat(e->msg + w, sizeof e->msg - w, fmt, ap);
  e->status = st;
  return st;
}

static void pc_vsay(FILE *f, const char *fmt, va_list ap) {
  static const char head[] = "perfcheck: ";
  char small[1024];
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0) return;
  const size_t need = sizeof head - 1 + (size_t)n + 2; /* text, '\n', '\0' */
  char *line = need <= sizeof small ? small : malloc(need);
  if (!line) { /* out of memory: the line in pieces rather than not at all */
    fputs(head, f);
    vfprintf(f, fmt, ap);
    fputs("\n", f);
    fflush(f);
    return;
  }
  memcpy(line, head, sizeof head - 1);
  vsnprintf(line + sizeof head - 1, need - (sizeof head - 1), fmt, ap);
  line[need - 2] = '\n';
  line[need - 1] = '\0';
  fputs(line, f); /* one write: stderr is unbuffered, and the flush sends the line whole */
  fflush(f);
  if (line != small) free(line);
}

void pc_say(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  pc_vsay(stderr, fmt, ap);
  va_end(ap);
}

void pc_say_to(FILE *f, const char *fmt, ...) {
  if (!f) return;
  va_list ap;
  va_start(ap, fmt);
  pc_vsay(f, fmt, ap);
  va_end(ap);
}
