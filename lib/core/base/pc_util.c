/* Small utilities shared by the core: strings, medians, whole files.
 * (Output paths: pc_output.c.) */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/pc_util.h"

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

/* Reads a whole file (a pipe too), refusing more than max_bytes (a message
 * naming `what`, e.g. "an ncu export").  *data is malloc'd; not
 * NUL-terminated.  Failures fill err. */
perfcheck_status pc_read_file(const char *path, size_t max_bytes, const char *what, char **data, size_t *len,
                              pc_err *err) {
  pc_err_clear(err);
  *data = NULL;
  *len = 0;
  FILE *f = fopen(path, "rb");
  if (!f) return pc_err_set(err, PERFCHECK_ERROR_IO, "%s: cannot open: %s", path, strerror(errno));
  struct stat sb;
  memset(&sb, 0, sizeof sb);
  if (fstat(fileno(f), &sb) == 0) {
    if (S_ISDIR(sb.st_mode)) {
      fclose(f);
      return pc_err_set(err, PERFCHECK_ERROR_IO, "%s: is a directory", path);
    }
    if (S_ISREG(sb.st_mode) && (unsigned long long)sb.st_size > max_bytes) {
      fclose(f);
      return pc_err_set(err, PERFCHECK_ERROR_PARSE, "%s:1: %llu bytes; %s larger than %llu MiB is refused", path,
                        (unsigned long long)sb.st_size, what, (unsigned long long)(max_bytes >> 20));
    }
  }
  size_t cap = (S_ISREG(sb.st_mode) && sb.st_size > 0) ? (size_t)sb.st_size + 1 : 65536;
  char *buf = malloc(cap);
  if (!buf) {
    fclose(f);
    return pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
  }
  size_t n = 0;
  for (;;) {
    if (n == cap) {
      if (cap > max_bytes) break;
      size_t nc = cap * 2;
      char *b = realloc(buf, nc);
      if (!b) {
        free(buf);
        fclose(f);
        return pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
      }
      buf = b;
      cap = nc;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
  }
  int failed = ferror(f);
  int saved = errno;
  fclose(f);
  if (failed) {
    free(buf);
    return pc_err_set(err, PERFCHECK_ERROR_IO, "%s: read error: %s", path, strerror(saved));
  }
  if (n > max_bytes) {
    free(buf);
    return pc_err_set(err, PERFCHECK_ERROR_PARSE, "%s:1: more than %llu MiB; %s that large is refused", path,
                      (unsigned long long)(max_bytes >> 20), what);
  }
  *data = buf;
  *len = n;
  return PERFCHECK_OK;
}

