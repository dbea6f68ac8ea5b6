/*
 * pc_buf.h: growing memory, one of each (pc_buf.c): the string builder and
 * the array grow helper.
 *
 * The array grow helper, pc_grow: room for `need` elements in an array that
 * keeps its capacity beside it, doubling (at least PC_GROW_MIN); every array
 * of lib grows through it:
 *
 *   if (pc_grow((void **)&t->v, &t->cap, t->n + 1, sizeof *t->v)) return -1;
 *   t->v[t->n++] = x;
 *
 * The string builder:
 *
 *   pc_buf b = PC_BUF_INIT;
 *   pc_buf_puts(&b, "name");
 *   pc_buf_printf(&b, " %d", 3);
 *   char *s = pc_buf_take(&b);      malloc'd, or NULL when memory ran out
 *
 * The text is NUL-terminated after every call that added to it.  Running out
 * of memory is sticky: the call returns -1, every later one does nothing and
 * returns -1, and pc_buf_take frees what there was and returns NULL, so a
 * builder checks once at the end (or at each call, as it likes).
 *
 * Why not open_memstream: the builders read and cut what they built (a
 * qualifier dropped from a kernel name, a pid put before the extension of an
 * output path), which a FILE hides behind its position and fflush, and the
 * JSON reader builds one per string value, where a FILE per string costs
 * more than the string.  open_memstream stays where a FILE writer's output
 * is wanted as a string (perfcheck_report_to_string, the diff's lines).
 */
#ifndef PC_BUF_H
#define PC_BUF_H

#include <stddef.h>

typedef struct pc_buf {
  char *p;    /* the text (NULL until something was added) */
  size_t n;   /* its length */
  size_t cap; /* bytes allocated at p */
  int oom;    /* memory ran out: sticky */
} pc_buf;

#define PC_BUF_INIT {NULL, 0, 0, 0}

#define PC_GROW_MIN 16
/* Room for `need` elements of `size` bytes in *arr, whose capacity is *cap:
 * 0, or -1 on overflow or out of memory (*arr and *cap unchanged). */
int pc_grow(void **arr, size_t *cap, size_t need, size_t size);

int pc_buf_putn(pc_buf *b, const char *s, size_t n);
int pc_buf_puts(pc_buf *b, const char *s);
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
int pc_buf_printf(pc_buf *b, const char *fmt, ...);
/* Cuts the text to its first n bytes (n <= b->n). */
void pc_buf_truncate(pc_buf *b, size_t n);
/* The text ("" when nothing was added), which the caller frees; NULL (and
 * nothing leaked) when memory ran out.  The builder is empty afterwards. */
char *pc_buf_take(pc_buf *b);
void pc_buf_free(pc_buf *b);

#endif
