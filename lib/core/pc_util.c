/* Small utilities shared by the core: strings, medians, output paths. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pc_core.h"

char *pc_strdup(const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

static int pc_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double pc_median(const double *v, size_t n) {
  if (n == 0) return PC_NULL;
  double *c = malloc(n * sizeof *c);
  if (!c) return PC_NULL;
  memcpy(c, v, n * sizeof *c);
  qsort(c, n, sizeof *c, pc_cmp_double);
  double m = (n % 2) ? c[n / 2] : 0.5 * (c[n / 2 - 1] + c[n / 2]);
  free(c);
  return m;
}

/* A growing string buffer for pc_expand_output_path. */
typedef struct pc_sbuf {
  char *p;
  size_t n, cap;
  int oom;
} pc_sbuf;

static void pc_sbuf_add(pc_sbuf *b, const char *s, size_t len) {
  if (b->oom) return;
  if (b->n + len + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->n + len + 1) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
      b->oom = 1;
      return;
    }
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->n, s, len);
  b->n += len;
  b->p[b->n] = '\0';
}

char *pc_expand_output_path(const char *pattern) {
  if (!pattern) return NULL;
  pc_sbuf b = {0};
  pc_sbuf_add(&b, "", 0);
  for (const char *s = pattern; *s; s++) {
    if (*s != '%') {
      pc_sbuf_add(&b, s, 1);
      continue;
    }
    char tmp[256];
    switch (s[1]) {
      case 'p':
        snprintf(tmp, sizeof tmp, "%ld", (long)getpid());
        pc_sbuf_add(&b, tmp, strlen(tmp));
        s++;
        break;
      case 'h':
        if (gethostname(tmp, sizeof tmp) != 0) strcpy(tmp, "unknown-host");
        tmp[sizeof tmp - 1] = '\0';
        pc_sbuf_add(&b, tmp, strlen(tmp));
        s++;
        break;
      case '%':
        pc_sbuf_add(&b, "%", 1);
        s++;
        break;
      case 'q': {
        const char *close = (s[2] == '{') ? strchr(s + 3, '}') : NULL;
        if (!close) { /* not a placeholder: keep it as written */
          pc_sbuf_add(&b, s, 1);
          break;
        }
        size_t len = (size_t)(close - (s + 3));
        if (len < sizeof tmp) {
          memcpy(tmp, s + 3, len);
          tmp[len] = '\0';
          const char *v = getenv(tmp);
          if (v) pc_sbuf_add(&b, v, strlen(v));
        }
        s = close;
        break;
      }
      default:
        pc_sbuf_add(&b, s, 1);
        break;
    }
  }
  if (b.oom) {
    free(b.p);
    return NULL;
  }
  return b.p;
}
