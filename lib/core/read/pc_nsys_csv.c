/* The nsys stats reader: step 1 of a run from Nsight Systems' summaries.
 *
 * Seed 000's number for question 1 is `nsys stats --report cuda_gpu_kern_sum`
 * totalled against the wall clock.  This reads the CSV form of two of
 * nsys stats' reports, as NVIDIA's Nsight Systems documentation ("Post-
 * Collection Analysis Guide", the standard reports) describes them:
 *
 *   cuda_gpu_kern_sum   one row per kernel name: "Time (%)", "Total Time
 *                       (ns)", "Instances", "Avg (ns)", "Med (ns)", "Min
 *                       (ns)", "Max (ns)", "StdDev (ns)", "Name"
 *   cuda_gpu_mem_time_sum  one row per memory operation: the same times,
 *                       "Count", and "Operation" ("[CUDA memcpy
 *                       Host-to-Device]", "[CUDA memset]", ...)
 *
 * (`nsys stats --report cuda_gpu_kern_sum --report cuda_gpu_mem_time_sum
 * --format csv REPORT.nsys-rep`, to stdout or with --output one file per
 * report).  Columns are found by name; the unit in parentheses may be ns,
 * us, ms or s (nsys stats --timeunit).  nsys's own lines before a table
 * ("Generating SQLite file ...", "Processing [...] with [...]...") and
 * between tables are skipped; both tables may come in one stream.
 *
 * What it gives: one region for the run, with the kernels' summed time
 * against the wall clock when the caller knows it (an nsys summary holds no
 * wall clock: --wall-time), copies and memsets beside it, and one entry per
 * kernel name with its launches, total, median, min and max time, and its
 * share of the kernel time.  No counters: steps 2 to 5 are not assessed and
 * each entry says how to measure them.  The kernels' time is a sum over
 * streams, not the union of their intervals: when kernels overlap it can
 * exceed the wall clock, and a warning says so. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/pc_core.h"
#include "base/pc_hash.h"
#include "base/pc_map.h"
#include "read/pc_nsys.h"
#include "check/pc_check.h"
#include "base/pc_util.h"

#define PC_NSYS_MAX_FIELDS 64
#define PC_NSYS_MAX_LINE ((size_t)1 << 20)
/* How far the first table's header is looked for (nsys's own lines come
 * first): input without one in the first 64 MiB is no nsys stats CSV, and
 * `yes | perfcheck diagnose --wall-time 1s -` must end. */
#define PC_NSYS_MAX_PREAMBLE ((size_t)64 << 20)

/* One line of f into *buf (NUL-terminated, '\n' kept), at most `max`
 * bytes: getline without its unbounded growth.  Returns the length (a NUL
 * byte inside counts: strlen then differs), -1 at the end, -2 when the line
 * is longer than max (the rest of it is not read), -3 out of memory. */
static ssize_t pc_nsys_getline(FILE *f, char **buf, size_t *cap, size_t max) {
  size_t n = 0;
  int c = EOF;
  while ((c = getc(f)) != EOF) {
    if (n + 2 > *cap) {
      if (n >= max) return -2;
      size_t nc = *cap ? *cap * 2 : 256;
      char *b = realloc(*buf, nc);
      if (!b) return -3;
      *buf = b;
      *cap = nc;
    }
    (*buf)[n++] = (char)c;
    if (c == '\n') break;
  }
  if (n == 0 && c == EOF) return -1;
  (*buf)[n] = '\0';
  return (ssize_t)n;
}

enum { PC_NSYS_NONE = 0, PC_NSYS_KERN, PC_NSYS_MEM };

typedef struct pc_nsys_cols {
  int table;                                   /* PC_NSYS_KERN or _MEM */
  int total, count, avg, med, min, max, name;  /* column index, -1 when absent */
  size_t nfields;
  double scale[PC_NSYS_MAX_FIELDS];            /* to ns, per column */
} pc_nsys_cols;

/* Splits one CSV line (RFC 4180 quotes, "" inside quotes) in place.
 * Returns the number of fields, or -1 (an unclosed quote, too many). */
static int pc_nsys_split(char *line, char **f, int max) {
  int n = 0;
  char *p = line;
  for (;;) {
    if (n == max) return -1;
    if (*p == '"') {
      char *w = ++p;
      f[n++] = w;
      for (;;) {
        if (!*p) return -1;
        if (*p == '"') {
          if (p[1] == '"') {
            *w++ = '"';
            p += 2;
            continue;
          }
          p++;
          break;
        }
        *w++ = *p++;
      }
      *w = '\0';
      while (*p && *p != ',') p++; /* anything after the closing quote */
    } else {
      f[n++] = p;
      while (*p && *p != ',') p++;
    }
    if (!*p) return n;
    *p++ = '\0';
  }
}

/* "Total Time (ns)" -> 1, "(us)" -> 1e3, "(ms)" -> 1e6, "(s)" -> 1e9; 0 when
 * the header is not `prefix` with a time unit. */
static double pc_nsys_time_col(const char *h, const char *prefix) {
  size_t n = strlen(prefix);
  if (strncmp(h, prefix, n) != 0 || h[n] != ' ' || h[n + 1] != '(') return 0;
  const char *u = h + n + 2;
  if (strcmp(u, "ns)") == 0) return 1;
  if (strcmp(u, "us)") == 0 || strcmp(u, "\xC2\xB5s)") == 0) return 1e3;
  if (strcmp(u, "ms)") == 0) return 1e6;
  if (strcmp(u, "s)") == 0 || strcmp(u, "sec)") == 0) return 1e9;
  return 0;
}

/* A header row of one of the two tables, or 0. */
static int pc_nsys_header(char **f, int n, pc_nsys_cols *c) {
  memset(c, 0, sizeof *c);
  c->total = c->count = c->avg = c->med = c->min = c->max = c->name = -1;
  int has_pct = 0, kern = 0, mem = 0;
  for (int i = 0; i < n; i++) {
    const char *h = f[i];
    double s;
    if (strcmp(h, "Time (%)") == 0) has_pct = 1;
    else if ((s = pc_nsys_time_col(h, "Total Time")) > 0) c->total = i, c->scale[i] = s;
    else if ((s = pc_nsys_time_col(h, "Avg")) > 0) c->avg = i, c->scale[i] = s;
    else if ((s = pc_nsys_time_col(h, "Med")) > 0) c->med = i, c->scale[i] = s;
    else if ((s = pc_nsys_time_col(h, "Min")) > 0) c->min = i, c->scale[i] = s;
    else if ((s = pc_nsys_time_col(h, "Max")) > 0) c->max = i, c->scale[i] = s;
    else if (strcmp(h, "Instances") == 0) c->count = i, kern = 1;
    else if (strcmp(h, "Count") == 0 || strcmp(h, "Operations") == 0) c->count = i, mem = 1;
    else if (strcmp(h, "Name") == 0) c->name = i, kern = 1;
    else if (strcmp(h, "Operation") == 0) c->name = i, mem = 1;
  }
  if (!has_pct || c->total < 0 || c->count < 0 || c->name < 0 || kern == mem) return 0;
  c->table = kern ? PC_NSYS_KERN : PC_NSYS_MEM;
  c->nfields = (size_t)n;
  return 1;
}

/* A number as nsys stats writes it ("182400", "45600.0"; thousands
 * separators tolerated only between groups of three). */
static int pc_nsys_number(const char *s, double *out) {
  char buf[64];
  size_t n = 0, digits_since_comma = 0;
  int seen_comma = 0, seen_dot = 0;
  while (*s == ' ') s++;
  if (!*s) return 0;
  for (; *s && *s != ' '; s++) {
    if (*s == ',') {
      if (seen_dot || (seen_comma && digits_since_comma != 3) || n == 0) return 0;
      seen_comma = 1;
      digits_since_comma = 0;
      continue;
    }
    if (*s == '.') {
      if (seen_comma && digits_since_comma != 3) return 0;
      seen_dot = 1;
    } else if (*s >= '0' && *s <= '9') {
      digits_since_comma++;
    }
    if (n + 1 >= sizeof buf) return 0;
    buf[n++] = *s;
  }
  if (seen_comma && !seen_dot && digits_since_comma != 3) return 0;
  buf[n] = '\0';
  char *end = NULL;
  errno = 0;
  double v = strtod(buf, &end);
  if (!end || *end || errno == ERANGE || !(v >= 0)) return 0;
  *out = v;
  return 1;
}

static double pc_nsys_cell(char **f, const pc_nsys_cols *c, int col) {
  double v;
  if (col < 0 || !pc_nsys_number(f[col], &v)) return PC_NULL;
  return v * c->scale[col];
}

struct pc_nsys {
  pc_report *r;
  pc_region *g;
  int quiet;
  size_t kern_tables, mem_tables;
  double kernel_sum_ns, memcpy_ns, memset_ns;
  uint64_t launches;
  size_t bad_rows;
  pc_map by_name; /* kernel name -> index into r->kernels (a table: a scan per row grew as the square) */
};

pc_nsys *pc_nsys_new(const char *region, int quiet) {
  pc_nsys *x = calloc(1, sizeof *x);
  if (!x) return NULL;
  x->quiet = quiet;
  x->r = pc_report_new();
  if (!x->r || !(x->g = pc_report_add_region(x->r)) || !(x->g->name = pc_strdup(region ? region : "run"))) {
    pc_report_free(x->r);
    free(x);
    return NULL;
  }
  snprintf(x->r->source, sizeof x->r->source, "nsys-export");
  snprintf(x->r->metric_set, sizeof x->r->metric_set, "none");
  x->r->step1_assessed = 1; /* the run's kernels, all of them: not a sample */
  return x;
}

void pc_nsys_free(pc_nsys *x) {
  if (!x) return;
  pc_map_free(&x->by_name);
  pc_report_free(x->r);
  free(x);
}

/* pc_map's check of a candidate: entry `val` has the probe's name. */
typedef struct pc_nsys_probe {
  const pc_report *r;
  const char *name;
} pc_nsys_probe;

static int pc_nsys_same_name(uint32_t val, const void *arg) {
  const pc_nsys_probe *p = arg;
  const char *d = p->r->kernels[val].demangled;
  return d && strcmp(d, p->name) == 0;
}

static perfcheck_status pc_nsys_kernel_row(pc_nsys *x, char **f, const pc_nsys_cols *c, const char *name,
                                           size_t line) {
  const char *kname = f[c->name];
  double total = pc_nsys_cell(f, c, c->total), count;
  if (!*kname || pc_is_null(total) || !pc_nsys_number(f[c->count], &count) || count != (double)(uint64_t)count) {
    if (x->bad_rows++ < 5)
      pc_report_warn(x->r, x->quiet, "%s:%zu: a kernel row without a name, a total time or a count is skipped", name,
                     line);
    x->r->rows_left_out++;
    return PERFCHECK_OK;
  }
  /* nsys sums per name: a second row of one name (two tables, two files)
   * adds to it. */
  const uint64_t h = pc_hash_str(kname);
  const pc_nsys_probe probe = {x->r, kname};
  const uint32_t at = pc_map_find(&x->by_name, h, pc_nsys_same_name, &probe);
  pc_kernel *k = at != PC_NONE ? &x->r->kernels[at] : NULL;
  if (k) {
    k->launches += (uint64_t)count;
    k->total_ns += total;
    k->dur_median_ns = PC_NULL; /* a median of two medians is no measurement */
    double mn = pc_nsys_cell(f, c, c->min), mx = pc_nsys_cell(f, c, c->max);
    k->dur_min_ns = pc_has(mn) && pc_has(k->dur_min_ns) ? fmin(mn, k->dur_min_ns) : PC_NULL;
    k->dur_max_ns = pc_has(mx) && pc_has(k->dur_max_ns) ? fmax(mx, k->dur_max_ns) : PC_NULL;
  } else {
    if (x->r->nkernels >= PC_NONE || pc_map_insert(&x->by_name, h, (uint32_t)x->r->nkernels) != 0 ||
        !(k = pc_report_add_kernel(x->r)))
      return PERFCHECK_ERROR_OUT_OF_MEMORY;
    const int mangled = kname[0] == '_' && kname[1] == 'Z';
    if (pc_kernel_set_names(k, mangled ? kname : NULL, mangled ? NULL : kname) != 0 ||
        !(k->region = pc_strdup(x->g->name)) ||
        !(k->not_measured_reason = pc_strdup("an nsys summary holds timings only: for counters, profile the kernel "
                                             "with ncu (--metrics $(perfcheck metrics)) or perfcheck run")))
      return PERFCHECK_ERROR_OUT_OF_MEMORY;
    if (!k->demangled && !(k->demangled = pc_strdup(kname))) return PERFCHECK_ERROR_OUT_OF_MEMORY;
    k->launches = (uint64_t)count;
    k->profiled_launches = 0;
    k->total_ns = total;
    k->dur_median_ns = pc_nsys_cell(f, c, c->med);
    k->dur_min_ns = pc_nsys_cell(f, c, c->min);
    k->dur_max_ns = pc_nsys_cell(f, c, c->max);
    if (pc_is_null(k->dur_median_ns) && count == 1) k->dur_median_ns = total;
  }
  x->kernel_sum_ns += total;
  x->launches += (uint64_t)count;
  return PERFCHECK_OK;
}

static void pc_nsys_mem_row(pc_nsys *x, char **f, const pc_nsys_cols *c, const char *name, size_t line) {
  double total = pc_nsys_cell(f, c, c->total);
  if (pc_is_null(total)) {
    if (x->bad_rows++ < 5)
      pc_report_warn(x->r, x->quiet, "%s:%zu: a memory row without a total time is skipped", name, line);
    return;
  }
  if (strstr(f[c->name], "memset"))
    x->memset_ns = (pc_has(x->memset_ns) ? x->memset_ns : 0) + total;
  else
    x->memcpy_ns = (pc_has(x->memcpy_ns) ? x->memcpy_ns : 0) + total;
}

perfcheck_status pc_nsys_read(pc_nsys *x, FILE *f, const char *name, pc_err *err) {
  pc_err_clear(err);
  if (!x || !f) return PERFCHECK_ERROR_INVALID_ARGUMENT;
  if (!name) name = "(nsys stats)";
  char *line = NULL;
  size_t cap = 0, lineno = 0, tables = 0, preamble = 0;
  pc_nsys_cols c;
  memset(&c, 0, sizeof c); /* c.table PC_NSYS_NONE */
  perfcheck_status st = PERFCHECK_OK;
  ssize_t got;
  errno = 0;
  while ((got = pc_nsys_getline(f, &line, &cap, PC_NSYS_MAX_LINE)) != -1) {
    lineno++;
    if (got == -3) {
      st = pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "%s: out of memory", name);
      break;
    }
    if (got == -2) {
      st = pc_err_set(err, PERFCHECK_ERROR_PARSE, "%s:%zu: a line longer than 1 MiB: not an nsys stats CSV", name,
                      lineno);
      break;
    }
    if (!tables && (preamble += (size_t)got) > PC_NSYS_MAX_PREAMBLE) {
      st = pc_err_set(err, PERFCHECK_ERROR_PARSE,
                      "%s:%zu: no table header in the first %zu MiB: not an nsys stats CSV (make it with `nsys stats "
                      "--report cuda_gpu_kern_sum --format csv REPORT.nsys-rep`)",
                      name, lineno, PC_NSYS_MAX_PREAMBLE >> 20);
      break;
    }
    while (got > 0 && (line[got - 1] == '\n' || line[got - 1] == '\r')) line[--got] = '\0';
    char *p = line;
    if (lineno == 1 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF)
      p += 3;
    if (!*p && got == 0) continue;
    if (strlen(line) != (size_t)got) { /* a NUL byte: this row only is spoilt */
      if (c.table != PC_NSYS_NONE && x->bad_rows++ < 5)
        pc_report_warn(x->r, x->quiet, "%s:%zu: a row with a NUL byte in it is skipped", name, lineno);
      if (c.table == PC_NSYS_KERN) x->r->rows_left_out++;
      continue;
    }
    char *fields[PC_NSYS_MAX_FIELDS];
    int n = pc_nsys_split(p, fields, PC_NSYS_MAX_FIELDS);
    pc_nsys_cols h;
    if (n > 0 && pc_nsys_header(fields, n, &h)) {
      c = h;
      tables++;
      if (c.table == PC_NSYS_KERN)
        x->kern_tables++;
      else
        x->mem_tables++;
      continue;
    }
    if (c.table == PC_NSYS_NONE) continue; /* nsys's own lines before a table */
    if (n != (int)c.nfields) {             /* the table ended (nsys's next notice) */
      c.table = PC_NSYS_NONE;
      continue;
    }
    if (c.table == PC_NSYS_KERN) {
      st = pc_nsys_kernel_row(x, fields, &c, name, lineno);
      if (st != PERFCHECK_OK) {
        pc_err_set(err, st, "%s: out of memory", name);
        break;
      }
    } else {
      pc_nsys_mem_row(x, fields, &c, name, lineno);
    }
  }
  if (st == PERFCHECK_OK && ferror(f)) {
    st = pc_err_set(err, PERFCHECK_ERROR_IO, "%s: read error: %s", name, strerror(errno ? errno : EIO));
  }
  free(line);
  if (st == PERFCHECK_OK && tables == 0) {
    st = pc_err_set(err, PERFCHECK_ERROR_PARSE,
               "%s: not an nsys stats CSV: no header row of cuda_gpu_kern_sum (\"Time (%%)\",\"Total Time (ns)\","
               "\"Instances\",...,\"Name\") or cuda_gpu_mem_time_sum (...,\"Count\",...,\"Operation\"); make it with "
               "`nsys stats --report cuda_gpu_kern_sum --format csv REPORT.nsys-rep`",
               name);
  }
  return st;
}

perfcheck_status pc_nsys_finish(pc_nsys *x, double wall_ns, pc_report **out, pc_err *err) {
  *out = NULL;
  pc_err_clear(err);
  if (x->kern_tables == 0)
    return pc_err_set(err, PERFCHECK_ERROR_PARSE,
                      "no cuda_gpu_kern_sum table: step 1 needs the kernels' time (nsys stats --report "
                      "cuda_gpu_kern_sum --format csv)");
  pc_report *r = x->r;
  pc_region *g = x->g;
  g->wall_ns = wall_ns > 0 ? wall_ns : PC_NULL;
  g->kernel_ns = x->kernel_sum_ns;
  g->kernel_sum_ns = x->kernel_sum_ns;
  g->launches = x->launches;
  g->memcpy_ns = x->mem_tables ? (pc_has(x->memcpy_ns) ? x->memcpy_ns : 0) : PC_NULL;
  g->memset_ns = x->mem_tables ? (pc_has(x->memset_ns) ? x->memset_ns : 0) : PC_NULL;
  if (r->nkernels == 0)
    pc_report_warn(r, x->quiet, "the nsys summary lists no kernel: the run launched none (or nsys did not trace "
                                "CUDA: nsys profile --trace cuda)");
  if (pc_is_null(g->wall_ns))
    pc_report_warn(r, x->quiet,
                   "step 1 needs the run's wall clock, which an nsys summary does not hold: give it with --wall-time "
                   "(the time the program ran, e.g. from `time`)");
  else if (x->kernel_sum_ns > g->wall_ns)
    pc_report_warn(r, x->quiet,
                   "the kernels' summed time (%.3f ms) exceeds the wall clock (%.3f ms): kernels overlapped on several "
                   "streams (nsys sums them), so the kernel share is an upper bound",
                   x->kernel_sum_ns / 1e6, g->wall_ns / 1e6);
  if (!x->mem_tables)
    pc_report_warn(r, x->quiet, "no cuda_gpu_mem_time_sum table: copies and memsets are not known (add "
                                "--report cuda_gpu_mem_time_sum)");
  pc_checklist_report(r);
  *out = r;
  x->r = NULL;
  return PERFCHECK_OK;
}
