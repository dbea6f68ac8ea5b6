/* The array grow helper and the one string builder (pc_buf.h says why not
 * open_memstream). */
#include "base/pc_buf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pc_grow(void **arr, size_t *cap, size_t need, size_t size) {
  if (need <= *cap) return 0;
  if (size == 0) return -1;
  size_t nc = *cap > PC_GROW_MIN / 2 ? *cap * 2 : PC_GROW_MIN;
  while (nc < need) {
    if (nc > SIZE_MAX / 2) return -1;
    nc *= 2;
  }
  if (nc > SIZE_MAX / size) return -1;
  void *p = realloc(*arr, nc * size);
  if (!p) return -1;
  *arr = p;
  *cap = nc;
  return 0;
}

/* Room for `more` bytes and the NUL after them. */
static int pc_buf_reserve(pc_buf *b, size_t more) {
  if (b->oom) return -1;
  if (more > (size_t)-1 - b->n - 1) {
    b->oom = 1;
    return -1;
  }
  size_t need = b->n + more + 1;
  if (need <= b->cap) return 0;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < need) cap = cap > (size_t)-1 / 2 ? need : cap * 2;
  char *p = realloc(b->p, cap);
  if (!p) {
    b->oom = 1;
    return -1;
  }
  b->p = p;
  b->cap = cap;
  return 0;
}

int pc_buf_putn(pc_buf *b, const char *s, size_t n) {
  if (pc_buf_reserve(b, n)) return -1;
  if (n) memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = '\0';
  return 0;
}

int pc_buf_puts(pc_buf *b, const char *s) { return pc_buf_putn(b, s, strlen(s)); }

int pc_buf_printf(pc_buf *b, const char *fmt, ...) {
  if (b->oom) return -1;
  for (;;) {
    size_t room = b->cap - b->n;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? room : 0, fmt, ap);
    va_end(ap);
    if (w < 0) {
      b->oom = 1;
      return -1;
    }
    if (b->p && (size_t)w < room) {
      b->n += (size_t)w;
      return 0;
    }
    if (pc_buf_reserve(b, (size_t)w)) return -1;
  }
}

void pc_buf_truncate(pc_buf *b, size_t n) {
  if (n > b->n) return;
  b->n = n;
  if (b->p) b->p[n] = '\0';
}

char *pc_buf_take(pc_buf *b) {
  if (!b->oom && !b->p) pc_buf_putn(b, "", 0);
  char *p = b->oom ? NULL : b->p;
  if (!p) free(b->p);
  b->p = NULL;
  b->n = b->cap = 0;
  b->oom = 0;
  return p;
}

void pc_buf_free(pc_buf *b) {
  free(b->p);
  b->p = NULL;
  b->n = b->cap = 0;
  b->oom = 0;
}
