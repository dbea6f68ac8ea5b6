/* The ncu CSV reader: `ncu --csv --page raw` exports into a pc_report.
 *
 * The format, as ncu 2024.x and 2025.x write it:
 *   row 1   the column names, quoted: "ID","Process ID",...,"Kernel Name",...,
 *           "Block Size","Grid Size",...,"device__attribute_...",
 *           "dram__bytes_read.sum",...,"launch__block_size",...
 *   row 2   the units: "" for the non-metric columns, then "byte", "nsecond",
 *           "%", "Kbyte", "usecond", "register/thread", ...
 *   then    one row per profiled launch.
 * ncu prints numbers with thousands separators ("1,234,567") and, unless run
 * with --print-units base, scales them into the unit it names on row 2
 * ("49.15" "Kbyte"); values are converted back to base units here (bytes, ns,
 * Hz, %).  Columns are found by name, never by position: the leading columns
 * change between ncu versions.  Lines before the header (the program's own
 * output, ==PROF== lines when ncu wrote to stdout) are skipped, and so are
 * ==PROF==/==WARNING==/==ERROR== lines between rows.
 *
 * Robustness: the reader takes any bytes.  It is one linear pass over the
 * input (no rescans of a long line), streamed: a file or pipe is read in
 * chunks into a window that holds one record at a time, so memory grows
 * with the distinct signatures (and 8 bytes per launch for the medians),
 * not with the file.  A row that cannot be read (a wrong number of fields,
 * a quoted field cut by the end of the file) is dropped and counted; with at
 * least one usable launch the report stands with one warning naming the
 * first bad line ("file:line: what") and how many rows were dropped, else
 * the failure is PERFCHECK_ERROR_PARSE with "file:line: what".  An unusable
 * value inside a good export (a ',' outside a thousands group, a decimal
 * comma, a NUL byte, an exponent outside the double range, "n/a") becomes
 * NaN with a warning that names the kernel, the metric and the reason.
 *
 * Units (never a silent base unit): each header row starts a
 * section whose units row says what its columns' numbers are in.  A column
 * that is read is unusable in a section without a units row, or whose unit
 * is not one ncu writes (pc_parse_unit: "", "%", a time word, or an SI
 * prefix and a word of pc_unit_word, optionally "/" another), or is of
 * another kind than the column (a time for gpu__time_duration.sum, bytes
 * for dram__bytes_* and shared-memory sizes, "%" for .pct_of_peak_*), or
 * whose units cell is empty under such a column (device__attribute_*
 * excepted: CUDA's attributes, which ncu writes without a unit): one
 * warning names it and none of its values is read.  A second header row
 * whose columns differ from the first is PERFCHECK_ERROR_PARSE at its line.
 * A launch without a usable duration is counted: its kernel's total_ns is
 * null and one warning says how many of its launches were untimed.
 */
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "base/pc_buf.h"
#include "base/pc_map.h"
#include "model/pc_core.h"
#include "base/pc_fmt.h"
#include "base/pc_hash.h"
#include "check/pc_check.h"
#include "read/pc_ncu.h"
#include "base/pc_util.h"

/* The export is streamed: memory holds one chunk and one record, never the
 * file, so there is no cap on the file's size.  One record (one launch row)
 * may take up to 64 MiB (ncu's widest rows are ~100 KiB). */
#define PC_NCU_CHUNK_BYTES ((size_t)1 << 20)
#define PC_NCU_MAX_RECORD_BYTES ((size_t)64 << 20)
#define PC_NCU_MAX_COLUMNS ((size_t)100000)     /* ncu's --set full has ~2000 */
#define PC_NCU_MAX_WARNINGS 200                 /* then one line says how many more */
#define PC_NCU_MAX_NUMBER_CHARS 64
/* How far the header row is looked for: ncu writing to stdout puts the
 * program's own output before it; input that has no header in the first
 * 64 MiB is not an export (`yes | perfcheck diagnose -` would be read
 * forever). */
#define PC_NCU_MAX_PREAMBLE_BYTES ((size_t)64 << 20)

/* ==== The input, streamed ==================================================== */

/* A window onto the export: win[pos..end) is read and not yet consumed.  A
 * file is read in chunks; the window grows only while one record (or, before
 * the header, one line) does not fit, up to PC_NCU_MAX_RECORD_BYTES, so memory
 * does not grow with the file.  An export in memory is its own window. */
typedef struct pc_src {
  FILE *f;          /* NULL: in memory */
  char *win;        /* owned when f */
  size_t cap, pos, end;
  int eof;
  int read_errno;   /* a read error (errno), 0 if none */
  size_t line;      /* 1-based line number of win[pos] */
} pc_src;

enum { PC_SRC_OK = 0, PC_SRC_EOF = 1, PC_SRC_OOM = -1, PC_SRC_TOO_LONG = -2, PC_SRC_IO = -3 };

/* Reads more: keeps win[pos..end), moved to the front; grows the window
 * when it is full of it.  PC_SRC_OK when bytes came, PC_SRC_EOF at the end. */
static int pc_src_fill(pc_src *s) {
  if (!s->f || s->eof) return PC_SRC_EOF;
  if (s->pos > 0) {
    memmove(s->win, s->win + s->pos, s->end - s->pos);
    s->end -= s->pos;
    s->pos = 0;
  }
  if (s->end == s->cap) {
    if (s->cap >= PC_NCU_MAX_RECORD_BYTES) return PC_SRC_TOO_LONG;
    size_t cap = s->cap ? s->cap * 2 : PC_NCU_CHUNK_BYTES;
    char *w = realloc(s->win, cap);
    if (!w) return PC_SRC_OOM;
    s->win = w;
    s->cap = cap;
  }
  size_t got = fread(s->win + s->end, 1, s->cap - s->end, s->f);
  s->end += got;
  if (got == 0) {
    if (ferror(s->f)) {
      s->read_errno = errno ? errno : EIO;
      s->eof = 1;
      return PC_SRC_IO;
    }
    s->eof = 1;
    return PC_SRC_EOF;
  }
  return PC_SRC_OK;
}

/* At least `want` bytes at pos, or all there are.  Returns the count there. */
static size_t pc_src_peek(pc_src *s, size_t want, int *rc) {
  *rc = PC_SRC_OK;
  while (s->end - s->pos < want && !s->eof) {
    int r = pc_src_fill(s);
    if (r < 0 && r != PC_SRC_IO) {
      *rc = r;
      break;
    }
    if (r == PC_SRC_IO) *rc = r;
  }
  return s->end - s->pos;
}

/* The line at pos: its length without the '\n' (*has_nl set when there is
 * one).  Returns PC_SRC_OK, or an error (the line does not fit). */
static int pc_src_line(pc_src *s, size_t *len, int *has_nl) {
  size_t scanned = 0;
  for (;;) {
    const size_t avail = s->end - s->pos - scanned;
    const char *nl = avail ? memchr(s->win + s->pos + scanned, '\n', avail) : NULL;
    if (nl) {
      *len = (size_t)(nl - (s->win + s->pos));
      *has_nl = 1;
      return PC_SRC_OK;
    }
    scanned = s->end - s->pos;
    if (s->eof) {
      *len = scanned;
      *has_nl = 0;
      return PC_SRC_OK;
    }
    int r = pc_src_fill(s);
    if (r == PC_SRC_OOM || r == PC_SRC_TOO_LONG) return r;
  }
}

/* Consumes `n` bytes of which `lines` were newlines. */
static void pc_src_skip(pc_src *s, size_t n, size_t lines) {
  s->pos += n;
  s->line += lines;
}

/* ==== CSV records ========================================================== */

typedef struct pc_csv {
  char *buf;    /* the current record's fields, unescaped, each NUL-terminated */
  size_t len, cap;
  size_t *off;  /* field i starts at buf + off[i] */
  size_t n, cap_off;
} pc_csv;

enum {
  PC_CSV_EOF = 0,
  PC_CSV_RECORD = 1,
  PC_CSV_NEED_MORE = 2,
  PC_CSV_UNTERMINATED = -1,
  PC_CSV_OOM = -2,
  PC_CSV_TOO_WIDE = -3,
  PC_CSV_TOO_LONG = -4,
  PC_CSV_IO = -5
};

static int pc_csv_reserve(pc_csv *c, size_t more) {
  if (c->len + more + 1 <= c->cap) return 0;
  size_t cap = c->cap ? c->cap : 4096;
  while (cap < c->len + more + 1) {
    if (cap > SIZE_MAX / 2) return -1;
    cap *= 2;
  }
  char *b = realloc(c->buf, cap);
  if (!b) return -1;
  c->buf = b;
  c->cap = cap;
  return 0;
}

static int pc_csv_push_field(pc_csv *c) {
  if (c->n == c->cap_off) {
    size_t cap = c->cap_off ? c->cap_off * 2 : 512;
    size_t *o = realloc(c->off, cap * sizeof *o);
    if (!o) return -1;
    c->off = o;
    c->cap_off = cap;
  }
  c->off[c->n++] = c->len;
  return 0;
}

/* One record from s[0..n) (RFC 4180, with ncu's habits: every field quoted,
 * LF or CRLF; quoted fields may hold commas, doubled quotes and newlines;
 * bytes after a closing quote are kept (lenient), as is a lone quote inside
 * an unquoted field).  One pass, no rescans.  Returns PC_CSV_RECORD with
 * *used bytes (the '\n' included); PC_CSV_NEED_MORE when the record runs past
 * n and more input may come (`eof` 0); PC_CSV_UNTERMINATED at the end inside
 * a quoted field; PC_CSV_TOO_WIDE past max_fields; PC_CSV_OOM. */
static int pc_csv_record(pc_csv *c, const char *s, size_t n, int eof, size_t max_fields, size_t *used) {
  c->n = 0;
  c->len = 0;
  size_t i = 0;
  for (;;) {
    if (c->n >= max_fields) return PC_CSV_TOO_WIDE;
    if (pc_csv_push_field(c)) return PC_CSV_OOM;
    if (i < n && s[i] == '"') {
      i++;
      for (;;) {
        size_t j = i;
        while (j < n && s[j] != '"') j++;
        if (j >= n) return eof ? PC_CSV_UNTERMINATED : PC_CSV_NEED_MORE;
        if (pc_csv_reserve(c, j - i + 1)) return PC_CSV_OOM;
        memcpy(c->buf + c->len, s + i, j - i);
        c->len += j - i;
        i = j + 1;
        if (i < n && s[i] == '"') { /* a doubled quote */
          c->buf[c->len++] = '"';
          i++;
          continue;
        }
        if (i >= n && !eof) return PC_CSV_NEED_MORE; /* a doubled quote may follow */
        break;
      }
    }
    /* The unquoted field, or what follows a closing quote, up to , or LF. */
    size_t j = i;
    while (j < n && s[j] != ',' && s[j] != '\n') j++;
    if (j >= n && !eof) return PC_CSV_NEED_MORE;
    size_t l = j - i;
    if (j < n && s[j] == '\n' && l > 0 && s[i + l - 1] == '\r') l--;
    if (pc_csv_reserve(c, l + 1)) return PC_CSV_OOM;
    memcpy(c->buf + c->len, s + i, l);
    c->len += l;
    c->buf[c->len++] = '\0';
    if (j < n && s[j] == ',') {
      i = j + 1;
      continue;
    }
    *used = j < n ? j + 1 : j;
    return PC_CSV_RECORD;
  }
}

static const char *pc_csv_field(const pc_csv *c, size_t i) { return c->buf + c->off[i]; }

/* Field i's length in bytes: more than strlen when it holds a NUL byte. */
static size_t pc_csv_field_len(const pc_csv *c, size_t i) {
  return (i + 1 < c->n ? c->off[i + 1] : c->len) - c->off[i] - 1;
}

/* Nonzero when field i holds a NUL byte ("96\0384" would read as 96). */
static int pc_csv_field_has_nul(const pc_csv *c, size_t i) {
  return strlen(pc_csv_field(c, i)) != pc_csv_field_len(c, i);
}

/* The next record of the source: PC_CSV_RECORD (and *line its first line),
 * PC_CSV_EOF, or an error. */
static int pc_csv_next(pc_csv *c, pc_src *s, size_t max_fields, size_t *line) {
  *line = s->line;
  for (;;) {
    if (s->pos >= s->end && s->eof) return PC_CSV_EOF;
    size_t used = 0;
    int rc = pc_csv_record(c, s->win + s->pos, s->end - s->pos, s->eof, max_fields, &used);
    if (rc == PC_CSV_RECORD) {
      size_t lines = 0;
      for (const char *t = s->win + s->pos, *e = t + used; (t = memchr(t, '\n', (size_t)(e - t))) != NULL; t++)
        lines++;
      pc_src_skip(s, used, lines);
      return rc;
    }
    if (rc != PC_CSV_NEED_MORE) {
      if (rc == PC_CSV_UNTERMINATED) { /* the rest of the input, consumed */
        size_t lines = 0;
        for (const char *t = s->win + s->pos, *e = s->win + s->end; (t = memchr(t, '\n', (size_t)(e - t))) != NULL; t++)
          lines++;
        pc_src_skip(s, s->end - s->pos, lines);
      }
      return rc;
    }
    int r = pc_src_fill(s);
    if (r == PC_SRC_OOM) return PC_CSV_OOM;
    if (r == PC_SRC_TOO_LONG) return PC_CSV_TOO_LONG;
    if (r == PC_SRC_IO) return PC_CSV_IO;
  }
}

/* memmem for a short needle; linear in hlen. */
static const char *pc_find(const char *h, size_t hlen, const char *needle, size_t nlen) {
  if (nlen == 0 || hlen < nlen) return NULL;
  const char *end = h + hlen - nlen + 1;
  while (h < end) {
    const char *x = memchr(h, needle[0], (size_t)(end - h));
    if (!x) return NULL;
    if (memcmp(x, needle, nlen) == 0) return x;
    h = x + 1;
  }
  return NULL;
}

/* ==== Numbers and units ==================================================== */

typedef enum pc_num_status {
  PC_NUM_OK = 0,
  PC_NUM_EMPTY,
  PC_NUM_NA,
  PC_NUM_NAN,
  PC_NUM_NONFINITE,
  PC_NUM_NOT_A_NUMBER,
  PC_NUM_BAD_GROUPING, /* a ',' that is not a thousands separator */
  PC_NUM_DECIMAL_COMMA, /* "0,500": a decimal comma (a German 0.5), never 500 */
  PC_NUM_RANGE,        /* outside the range of a double (1e-400) */
  PC_NUM_NUL,          /* a NUL byte inside the cell ("96\0384") */
  PC_NUM_UNIT,         /* the column's unit is unknown or missing (its one warning says so) */
  PC_NUM_CONFLICT      /* another column of the same name holds another value in this row */
} pc_num_status;

/* Parses an ncu number: [+-]digits, optional fraction and exponent; ','
 * separates thousands only as ncu writes them, between groups of three in
 * the integer part ("1,234,567", "12,345.5"); "96,384000" or "1,23" is
 * PC_NUM_BAD_GROUPING, never 96384000; "0,500" (a first group of 0, which
 * a thousands separator never follows) is PC_NUM_DECIMAL_COMMA, never 500.  An exponent outside the range of a
 * double is PC_NUM_RANGE (1e-400 is not 0) or PC_NUM_NONFINITE (1e400).
 * *decimals is the number of digits after the point (how precise a scaled
 * value was printed).  Call under the C locale (strtod). */
static pc_num_status pc_parse_number(const char *s, double *out, int *decimals) {
  *out = PC_NULL;
  *decimals = 0;
  while (*s == ' ' || *s == '\t') s++;
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
  if (n == 0) return PC_NUM_EMPTY;
  if (n == 3 && strncasecmp(s, "n/a", 3) == 0) return PC_NUM_NA;
  {
    const char *t = (*s == '+' || *s == '-') ? s + 1 : s;
    size_t tn = n - (size_t)(t - s);
    if (tn == 3 && strncasecmp(t, "nan", 3) == 0) return PC_NUM_NAN;
    if ((tn == 3 && strncasecmp(t, "inf", 3) == 0) || (tn == 8 && strncasecmp(t, "infinity", 8) == 0))
      return PC_NUM_NONFINITE;
  }
  char buf[PC_NCU_MAX_NUMBER_CHARS + 4];
  size_t o = 0, i = 0;
  int digits = 0, in_frac = 0, in_exp = 0, exp_digits = 0, mantissa_nonzero = 0;
  int grouped = 0, group = 0, bad_group = 0; /* thousands groups of the integer part */
  int lead_zero = 0;                          /* the integer part starts with '0' */
  if (s[i] == '+' || s[i] == '-') buf[o++] = s[i++];
  for (; i < n; i++) {
    char ch = s[i];
    if (o >= PC_NCU_MAX_NUMBER_CHARS) return PC_NUM_NOT_A_NUMBER;
    if (ch >= '0' && ch <= '9') {
      buf[o++] = ch;
      if (in_exp) {
        exp_digits++;
      } else {
        if (digits == 0 && ch == '0' && !in_frac) lead_zero = 1;
        digits++;
        if (ch != '0') mantissa_nonzero = 1;
        if (in_frac)
          (*decimals)++;
        else
          group++;
      }
    } else if (ch == ',' && !in_frac && !in_exp) {
      /* 1 to 3 digits before the first separator, exactly 3 between; a
       * thousands group never follows a leading 0 ("0,500" is a decimal
       * comma). */
      if (!grouped && lead_zero) return PC_NUM_DECIMAL_COMMA;
      if (group == 0 || group > 3 || (grouped && group != 3)) bad_group = 1;
      grouped = 1;
      group = 0;
    } else if (ch == '.' && !in_frac && !in_exp) {
      if (grouped && group != 3) bad_group = 1;
      grouped = 0;
      in_frac = 1;
      buf[o++] = ch;
    } else if ((ch == 'e' || ch == 'E') && !in_exp && digits > 0) {
      if (grouped && group != 3) bad_group = 1;
      grouped = 0;
      in_exp = 1;
      buf[o++] = ch;
      if (i + 1 < n && (s[i + 1] == '+' || s[i + 1] == '-')) buf[o++] = s[++i];
    } else {
      return PC_NUM_NOT_A_NUMBER;
    }
  }
  if (grouped && group != 3) bad_group = 1;
  if (digits == 0 || (in_exp && exp_digits == 0)) return PC_NUM_NOT_A_NUMBER;
  if (bad_group) return PC_NUM_BAD_GROUPING;
  buf[o] = '\0';
  char *end = NULL;
  errno = 0;
  double v = strtod(buf, &end);
  if (!end || *end != '\0') return PC_NUM_NOT_A_NUMBER;
  if (!isfinite(v)) return PC_NUM_NONFINITE;
  if (errno == ERANGE && (v == 0 || fabs(v) < DBL_MIN) && mantissa_nonzero) return PC_NUM_RANGE;
  *out = v;
  return PC_NUM_OK;
}

/* A unit as ncu names it on row 2. */
typedef struct pc_unit {
  double factor;     /* multiply to get base units (ns, byte, Hz, 1/s) */
  int is_time;       /* nsecond, usecond, msecond, second */
  int is_bytes;      /* [K|M|G|T]byte, possibly per something */
  int is_frequency;  /* [K|M|G]hz, or cycle per time unit */
  int is_rate;       /* something per unit of time */
  int is_percent;    /* "%" */
  int known;         /* a unit ncu writes: "" (none), "%", a time, or an SI-prefixed word of
                        pc_unit_words, optionally "/" another; anything else ("µs", "usec",
                        "furlong") makes its column unusable, never a silent base unit */
} pc_unit;

/* The words ncu's units are made of (its raw page: "sector", "Kbyte/block",
 * "register/thread", "cycle/nsecond", "Ghz", ...). */
static int pc_unit_word(const char *w, size_t n) {
  static const char *const words[] = {"byte",  "bit",    "sector",  "request", "inst",      "instruction",
                                      "cycle", "warp",   "thread",  "block",   "register",  "SM",
                                      "cluster", "pass", "wavefront", "transaction", "hz", "Hz", "HZ",
                                      "fraction", "ratio", "count", "event", "CTA", "lane"};
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
    if (strlen(words[i]) == n && memcmp(words[i], w, n) == 0) return 1;
  return 0;
}

static double pc_time_word_ns(const char *w, size_t n) {
  static const struct {
    const char *word;
    double ns;
  } words[] = {{"psecond", 1e-3}, {"nsecond", 1.0}, {"ns", 1.0},   {"usecond", 1e3},
               {"us", 1e3},       {"msecond", 1e6}, {"ms", 1e6},   {"second", 1e9},
               {"s", 1e9},        {"sec", 1e9},     {"ps", 1e-3}};
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
    if (strlen(words[i].word) == n && memcmp(words[i].word, w, n) == 0) return words[i].ns;
  return 0.0;
}

static pc_unit pc_parse_unit(const char *u) {
  pc_unit r = {1.0, 0, 0, 0, 0, 0, 1};
  if (!u) return r;
  while (*u == ' ') u++;
  if (!*u) return r; /* ncu's "no unit": the number as written */
  if (strcmp(u, "%") == 0) {
    r.is_percent = 1;
    return r;
  }
  const char *slash = strchr(u, '/');
  size_t nlen = slash ? (size_t)(slash - u) : strlen(u);
  while (nlen > 0 && u[nlen - 1] == ' ') nlen--;
  double t = pc_time_word_ns(u, nlen);
  const char *base = u;
  size_t blen = nlen;
  if (t > 0) {
    r.factor = t;
    r.is_time = 1;
  } else if (nlen >= 2 && strchr("KkMGTP", u[0]) && !pc_unit_word(u, nlen) &&
             (pc_unit_word(u + 1, nlen - 1) || (nlen >= 3 && u[1] == 'i' && pc_unit_word(u + 2, nlen - 2)))) {
    /* An SI prefix ("Kbyte", "Mhz", "Ksector"); ncu uses powers of 1000.
     * "Kibyte"-style binary prefixes are powers of 1024. */
    static const char prefixes[] = "KMGTP";
    const char *pp = strchr(prefixes, u[0] == 'k' ? 'K' : u[0]);
    int power = pp ? (int)(pp - prefixes) + 1 : 0;
    int binary = !pc_unit_word(u + 1, nlen - 1);
    r.factor = pow(binary ? 1024.0 : 1000.0, power);
    base = u + (binary ? 2 : 1);
    blen = nlen - (binary ? 2 : 1);
  }
  if (!r.is_time) {
    r.known = pc_unit_word(base, blen);
    if (blen == 4 && memcmp(base, "byte", 4) == 0) r.is_bytes = 1;
    if (blen == 2 && strncasecmp(base, "hz", 2) == 0) r.is_frequency = 1;
  }
  if (slash) {
    const char *d = slash + 1;
    while (*d == ' ') d++;
    size_t dlen = strlen(d);
    while (dlen > 0 && d[dlen - 1] == ' ') dlen--;
    double dt = pc_time_word_ns(d, dlen);
    if (dt > 0) { /* a rate: per second */
      r.factor *= 1e9 / dt;
      r.is_rate = 1;
      if (blen == 5 && memcmp(base, "cycle", 5) == 0) r.is_frequency = 1;
    } else if (!pc_unit_word(d, dlen)) {
      r.known = 0;
    }
  }
  return r;
}

/* ==== Columns ============================================================== */

typedef enum pc_launch_col {
  PC_L_REGS,
  PC_L_SMEM_STATIC,
  PC_L_SMEM_DYNAMIC,
  PC_L_SMEM_DRIVER,
  PC_L_LIMIT_WARPS,
  PC_L_LIMIT_BLOCKS,
  PC_L_LIMIT_REGS,
  PC_L_LIMIT_SMEM,
  PC_L_WAVES,
  PC_L_GRID_SIZE,
  PC_L_BLOCK_SIZE,
  PC_L_GRID_X,
  PC_L_GRID_Y,
  PC_L_GRID_Z,
  PC_L_BLOCK_X,
  PC_L_BLOCK_Y,
  PC_L_BLOCK_Z,
  PC_L_THEORETICAL_PCT, /* sm__maximum_warps_per_active_cycle_pct (ncu computes it) */
  PC_L_THEORETICAL_WARPS,
  PC_L_COUNT
} pc_launch_col;

static const char *const pc_launch_names[PC_L_COUNT] = {
    "launch__registers_per_thread",
    "launch__shared_mem_per_block_static",
    "launch__shared_mem_per_block_dynamic",
    "launch__shared_mem_per_block_driver",
    "launch__occupancy_limit_warps",
    "launch__occupancy_limit_blocks",
    "launch__occupancy_limit_registers",
    "launch__occupancy_limit_shared_mem",
    "launch__waves_per_multiprocessor",
    "launch__grid_size",
    "launch__block_size",
    "launch__grid_dim_x",
    "launch__grid_dim_y",
    "launch__grid_dim_z",
    "launch__block_dim_x",
    "launch__block_dim_y",
    "launch__block_dim_z",
    "sm__maximum_warps_per_active_cycle_pct",
    "sm__maximum_warps_avg_per_active_cycle",
};

typedef enum pc_dev_col {
  PC_D_NAME,
  PC_D_CC_MAJOR,
  PC_D_CC_MINOR,
  PC_D_SM_COUNT,
  PC_D_MAX_THREADS_SM,
  PC_D_MAX_WARPS_SM,
  PC_D_MAX_THREADS_BLOCK,
  PC_D_MAX_BLOCKS_SM,
  PC_D_MAX_REGS_SM,
  PC_D_MAX_REGS_BLOCK,
  PC_D_MAX_SMEM_SM,
  PC_D_MAX_SMEM_BLOCK,
  PC_D_MAX_SMEM_OPTIN,
  PC_D_RESERVED_SMEM,
  PC_D_WARP_SIZE,
  PC_D_MEM_CLOCK,
  PC_D_BUS_WIDTH,
  PC_D_CLOCK,
  PC_D_COUNT
} pc_dev_col;

static const char *const pc_dev_names[PC_D_COUNT] = {
    "device__attribute_display_name",
    "device__attribute_compute_capability_major",
    "device__attribute_compute_capability_minor",
    "device__attribute_multiprocessor_count",
    "device__attribute_max_threads_per_multiprocessor",
    "device__attribute_max_warps_per_multiprocessor",
    "device__attribute_max_threads_per_block",
    "device__attribute_max_blocks_per_multiprocessor",
    "device__attribute_max_registers_per_multiprocessor",
    "device__attribute_max_registers_per_block",
    "device__attribute_max_shared_memory_per_multiprocessor",
    "device__attribute_max_shared_memory_per_block",
    "device__attribute_max_shared_memory_per_block_optin",
    "device__attribute_reserved_shared_memory_per_block",
    "device__attribute_warp_size",
    "device__attribute_memory_clock_rate",
    "device__attribute_global_memory_bus_width",
    "device__attribute_clock_rate",
};

/* A raw kernel name and its short name (pc_kernel_short_name), remembered. */
typedef struct pc_name_memo {
  char *raw, *shortname;
} pc_name_memo;
#define PC_NCU_MAX_MEMO 65536

/* The parser's state.  Column indexes are -1 when the export lacks them. */
typedef struct pc_sig {
  char *key;       /* short name, grid, block, dynamic smem */
  double *dur;     /* every usable gpu__time_duration.sum of the signature */
  size_t ndur, cap_dur;
  /* Launches whose duration cell could not be read (empty, "n/a", not a
   * number, negative): counted, never silently dropped; the first named. */
  size_t nbad;
  size_t bad_line;
  pc_num_status bad_st;
  char bad_val[24];
} pc_sig;

/* Stand-ins: an export of ncu's --set full alone lacks
 * some counters of perfcheck's list but holds what answers the same
 * question.  Used only when the table's own column is absent, and said once
 * in the report's warnings:
 *   - FP32/FP64/FP16 instruction counts: ncu's roofline carries each as
 *     X.sum.per_cycle_elapsed, and X.sum = that x smsp__cycles_elapsed.avg
 *     (equal to 1e-9 on every H200 corpus row that has both);
 *   - L2 atomics and reductions: the requests from the SMs
 *     (lts__t_requests_srcunit_tex_op_atom_dot_alu/_cas, _op_red) among the
 *     SMs' requests (lts__t_requests_srcunit_tex): the same share, without
 *     the L2 fabric's second count of a request that crosses partitions. */
enum {
  PC_SI_CYCLES,
  PC_SI_FFMA, PC_SI_FADD, PC_SI_FMUL, PC_SI_DFMA, PC_SI_DADD, PC_SI_DMUL, PC_SI_HFMA, PC_SI_HADD, PC_SI_HMUL,
  PC_SI_TEX_ATOM_ALU, PC_SI_TEX_ATOM_CAS, PC_SI_TEX_RED, PC_SI_TEX_REQUESTS,
  PC_SI_COUNT
};
static const char *const pc_standin_names[PC_SI_COUNT] = {
    [PC_SI_CYCLES] = "smsp__cycles_elapsed.avg",
    [PC_SI_FFMA] = "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed",
    [PC_SI_FADD] = "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum.per_cycle_elapsed",
    [PC_SI_FMUL] = "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum.per_cycle_elapsed",
    [PC_SI_DFMA] = "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum.per_cycle_elapsed",
    [PC_SI_DADD] = "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum.per_cycle_elapsed",
    [PC_SI_DMUL] = "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum.per_cycle_elapsed",
    [PC_SI_HFMA] = "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum.per_cycle_elapsed",
    [PC_SI_HADD] = "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum.per_cycle_elapsed",
    [PC_SI_HMUL] = "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum.per_cycle_elapsed",
    [PC_SI_TEX_ATOM_ALU] = "lts__t_requests_srcunit_tex_op_atom_dot_alu.sum",
    [PC_SI_TEX_ATOM_CAS] = "lts__t_requests_srcunit_tex_op_atom_dot_cas.sum",
    [PC_SI_TEX_RED] = "lts__t_requests_srcunit_tex_op_red.sum",
    [PC_SI_TEX_REQUESTS] = "lts__t_requests_srcunit_tex.sum",
};
/* The instruction counts a per-cycle rate stands in for. */
static const struct {
  int si;
  pc_metric_id id;
} pc_standin_rates[] = {{PC_SI_FFMA, PC_M_FFMA}, {PC_SI_FADD, PC_M_FADD}, {PC_SI_FMUL, PC_M_FMUL},
                        {PC_SI_DFMA, PC_M_DFMA}, {PC_SI_DADD, PC_M_DADD}, {PC_SI_DMUL, PC_M_DMUL},
                        {PC_SI_HFMA, PC_M_HFMA}, {PC_SI_HADD, PC_M_HADD}, {PC_SI_HMUL, PC_M_HMUL}};

typedef struct pc_ncu {
  const char *name;
  int quiet;
  pc_err *err;
  pc_report *r;
  pc_src src;
  pc_csv csv;
  size_t ncols;
  size_t header_line;
  char **header; /* the column names, to recognize a repeated header row */
  char **units;  /* per column; NULL when empty */
  int units_read;
  unsigned char *reads;  /* per column: 1 when numbers of it are read (metric, launch__, device__) */
  unsigned char *usable; /* per column: its unit, in this section, is known and fits the column */
  /* Columns of one name (a metric listed twice): per column, the next
   * column of its name, -1 at the end; and whether a disagreement of the
   * two was said. */
  long *dup_next;
  unsigned char *dup_said;
  long col_kernel, col_grid, col_block, col_device, col_cc;
  long col_metric[PC_M_COUNT];
  int metric_rank[PC_M_COUNT]; /* 3 name, 2 alias, 1 substitute */
  long col_launch[PC_L_COUNT];
  long col_dev[PC_D_COUNT];
  long col_standin[PC_SI_COUNT]; /* --set full's stand-ins (pc_standin_names) */
  size_t metric_columns;       /* columns named like ncu metrics (a "__" in them) */
  int standins_said;           /* stand-in kinds already said in the warnings */
  int flops_said;              /* the export's missing FLOP count column, said once */
  int has_metric_name_column;  /* the long format of --page details */
  /* Signatures, parallel to r->kernels. */
  pc_sig *sigs;
  size_t nsigs, cap_sigs;
  pc_map sig_of; /* hash of the key -> index into sigs */
  char *scratch;
  size_t scratch_cap;
  char *key;
  size_t key_cap;
  int device_read;
  size_t warnings;    /* warnings issued by the reader */
  size_t suppressed;  /* warnings not listed past PC_NCU_MAX_WARNINGS */
  size_t empty_names; /* rows without a kernel name */
  /* Damage: rows that could not be read, and the first of them. */
  size_t bad_rows;
  size_t first_bad_line;
  char first_bad[240];
  int rest_unreadable; /* reading stopped there: the rest of the file is not CSV */
  size_t launch_rows;  /* rows read as launches (merged or not) */
  size_t row_line;     /* the line of the row being read, for messages */
  /* Units of each column, parsed once (factor 1 when none). */
  pc_unit *unit;
  /* Demangled short names by raw kernel name (rows repeat a few names). */
  pc_name_memo *memo;
  size_t nmemo, cap_memo;
  pc_map memo_of; /* hash of the raw name -> index into memo */
} pc_ncu;

static void pc_ncu_warn(pc_ncu *x, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void pc_ncu_warn(pc_ncu *x, const char *fmt, ...) {
  if (x->warnings >= PC_NCU_MAX_WARNINGS) {
    x->suppressed++;
    return;
  }
  x->warnings++;
  char buf[900];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  pc_report_warn(x->r, x->quiet, "%s", buf);
}

static perfcheck_status pc_ncu_error(pc_ncu *x, perfcheck_status st, size_t line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static perfcheck_status pc_ncu_error(pc_ncu *x, perfcheck_status st, size_t line, const char *fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (line) return pc_err_set(x->err, st, "%s:%zu: %s", x->name, line, msg);
  return pc_err_set(x->err, st, "%s: %s", x->name, msg);
}

/* A kernel name made safe for a one-line message. */
static const char *pc_ncu_printable(char *buf, size_t len, const char *s) {
  pc_fmt_printable(buf, len, s, 80);
  return buf;
}

static const char *pc_num_reason(pc_num_status st) {
  switch (st) {
    case PC_NUM_EMPTY: return "empty value";
    case PC_NUM_NA: return "\"n/a\" (ncu could not collect it)";
    case PC_NUM_NAN: return "NaN";
    case PC_NUM_NONFINITE: return "not a finite number";
    case PC_NUM_NOT_A_NUMBER: return "not a number";
    case PC_NUM_BAD_GROUPING: return "a ',' that is not a thousands separator (groups of three)";
    case PC_NUM_DECIMAL_COMMA: return "a decimal comma (ncu writes a '.')";
    case PC_NUM_RANGE: return "outside the range of a double";
    case PC_NUM_NUL: return "a NUL byte inside the value";
    case PC_NUM_UNIT: return "its column's unit is unknown";
    case PC_NUM_CONFLICT: return "two columns of this name disagree in this row";
    default: return "unusable";
  }
}

/* Sort key of the columns named like metrics, to find names that repeat. */
typedef struct pc_col_name {
  const char *name;
  size_t index;
} pc_col_name;

static int pc_col_name_cmp(const void *pa, const void *pb) {
  const pc_col_name *a = pa, *b = pb;
  const int c = strcmp(a->name, b->name);
  if (c) return c;
  return a->index < b->index ? -1 : (a->index > b->index);
}

/* Links the columns that share a name (x->dup_next), by one sort of the
 * names (qsort): a reader takes a name's first column, and pc_ncu_cell
 * checks the others against it in each row. */
static perfcheck_status pc_ncu_map_duplicates(pc_ncu *x) {
  x->dup_next = malloc(x->ncols * sizeof *x->dup_next);
  x->dup_said = calloc(x->ncols, 1);
  pc_col_name *names = malloc(x->ncols * sizeof *names);
  if (!x->dup_next || !x->dup_said || !names) {
    free(names);
    return pc_ncu_error(x, PERFCHECK_ERROR_OUT_OF_MEMORY, 0, "out of memory");
  }
  size_t n = 0;
  for (size_t i = 0; i < x->ncols; i++) {
    x->dup_next[i] = -1;
    if (strstr(x->header[i], "__")) names[n++] = (pc_col_name){x->header[i], i};
  }
  qsort(names, n, sizeof *names, pc_col_name_cmp);
  for (size_t i = 1; i < n; i++)
    if (strcmp(names[i].name, names[i - 1].name) == 0) x->dup_next[names[i - 1].index] = (long)names[i].index;
  free(names);
  return PERFCHECK_OK;
}

/* Maps the header's columns.  A metric of the table is read from its ncu
 * name, else its older alias, else its substitute counter: a substitute fills
 * the metric only when neither spelling of the metric itself is a column. */
static perfcheck_status pc_ncu_map_header(pc_ncu *x) {
  pc_csv *c = &x->csv;
  x->ncols = c->n;
  x->col_kernel = x->col_grid = x->col_block = x->col_device = x->col_cc = -1;
  for (int i = 0; i < PC_M_COUNT; i++) {
    x->col_metric[i] = -1;
    x->metric_rank[i] = 0;
  }
  for (int i = 0; i < PC_L_COUNT; i++) x->col_launch[i] = -1;
  for (int i = 0; i < PC_D_COUNT; i++) x->col_dev[i] = -1;
  for (int i = 0; i < PC_SI_COUNT; i++) x->col_standin[i] = -1;

  for (size_t i = 0; i < c->n; i++) {
    const char *h = pc_csv_field(c, i);
    long col = (long)i;
    if (strcmp(h, "Kernel Name") == 0 && x->col_kernel < 0) x->col_kernel = col;
    else if (strcmp(h, "Grid Size") == 0 && x->col_grid < 0) x->col_grid = col;
    else if (strcmp(h, "Block Size") == 0 && x->col_block < 0) x->col_block = col;
    else if (strcmp(h, "Device") == 0 && x->col_device < 0) x->col_device = col;
    else if (strcmp(h, "CC") == 0 && x->col_cc < 0) x->col_cc = col;
    else if (strcmp(h, "Metric Name") == 0 || strcmp(h, "Metric Value") == 0)
      x->has_metric_name_column = 1;
    if (!strstr(h, "__")) continue;
    x->metric_columns++;

    int via_sub = 0;
    const pc_metric_def *def = pc_metric_lookup(h, &via_sub);
    if (def && def->id >= 0 && def->id < PC_M_COUNT) {
      int rank = via_sub ? 1 : (def->name && strcmp(h, def->name) == 0) ? 3 : 2;
      if (rank > x->metric_rank[def->id]) {
        x->metric_rank[def->id] = rank;
        x->col_metric[def->id] = col;
      }
      continue;
    }
    for (int j = 0; j < PC_L_COUNT; j++)
      if (x->col_launch[j] < 0 && strcmp(h, pc_launch_names[j]) == 0) x->col_launch[j] = col;
    for (int j = 0; j < PC_D_COUNT; j++)
      if (x->col_dev[j] < 0 && strcmp(h, pc_dev_names[j]) == 0) x->col_dev[j] = col;
    for (int j = 0; j < PC_SI_COUNT; j++)
      if (x->col_standin[j] < 0 && strcmp(h, pc_standin_names[j]) == 0) x->col_standin[j] = col;
  }

  if (x->col_kernel < 0)
    return pc_ncu_error(x, PERFCHECK_ERROR_PARSE, x->header_line,
                        "the header row has no \"Kernel Name\" column");
  if (x->metric_columns == 0) {
    if (x->has_metric_name_column)
      return pc_ncu_error(x, PERFCHECK_ERROR_PARSE, x->header_line,
                          "this is the long format of `ncu --page details` (\"Metric Name\", "
                          "\"Metric Value\" columns); export with `ncu --csv --page raw`");
    return pc_ncu_error(x, PERFCHECK_ERROR_PARSE, x->header_line,
                        "the header row has no metric column (names such as "
                        "gpu__time_duration.sum); not an `ncu --csv --page raw` export");
  }
  x->units = calloc(x->ncols, sizeof *x->units);
  x->header = calloc(x->ncols, sizeof *x->header);
  x->unit = malloc(x->ncols * sizeof *x->unit);
  x->reads = calloc(x->ncols, 1);
  x->usable = calloc(x->ncols, 1); /* nothing is read before a units row says how */
  if (!x->units || !x->header || !x->unit || !x->reads || !x->usable)
    return pc_ncu_error(x, PERFCHECK_ERROR_OUT_OF_MEMORY, 0, "out of memory");
  for (size_t i = 0; i < x->ncols; i++) x->unit[i] = pc_parse_unit(NULL);
  for (int i = 0; i < PC_M_COUNT; i++)
    if (x->col_metric[i] >= 0) x->reads[x->col_metric[i]] = 1;
  for (int i = 0; i < PC_L_COUNT; i++)
    if (x->col_launch[i] >= 0) x->reads[x->col_launch[i]] = 1;
  for (int i = PC_D_NAME + 1; i < PC_D_COUNT; i++)
    if (x->col_dev[i] >= 0) x->reads[x->col_dev[i]] = 1;
  for (size_t i = 0; i < x->ncols; i++)
    if (!(x->header[i] = pc_strdup(pc_csv_field(c, i))))
      return pc_ncu_error(x, PERFCHECK_ERROR_OUT_OF_MEMORY, 0, "out of memory");
  return pc_ncu_map_duplicates(x);
}

/* What a read column measures, so that a known unit of another kind is
 * caught ("Kinst" on gpu__time_duration.sum): 't' a time, 'b' bytes, '%' a
 * percentage, 0 anything.  ncu's "no unit" ("") fits a column of kind 0,
 * and the device__attribute_* columns, which are CUDA's device attributes
 * in CUDA's own units (bytes, kHz: ncu writes their units cell empty); under
 * a duration, a byte count or a percentage an empty cell says nothing (96.384
 * could be us or ns), so that column is not read (pc_ncu_keep_units). */
static char pc_ncu_col_kind(const char *name) {
  if (strstr(name, "__time_duration")) return 't';
  if (strstr(name, ".pct_of_peak")) return '%';
  if (strncmp(name, "dram__bytes", 11) == 0 || strstr(name, "shared_mem_per") || strstr(name, "shared_memory_per"))
    return 'b';
  return 0;
}

static int pc_unit_fits(const pc_unit *u, const char *unit_text, char kind, int device_attribute) {
  if (!unit_text || !*unit_text) return kind == 0 || device_attribute;
  switch (kind) {
    case 't': return u->is_time && !u->is_rate;
    case 'b': return u->is_bytes && !u->is_rate;
    case '%': return u->is_percent;
    default: return 1;
  }
}

/* A units row (the row after a header, with an empty kernel name): the
 * units of this section's columns.  A read column whose unit is not one ncu
 * writes ("µs", "usec", "furlong"), or is of another kind, is unusable in
 * this section, with one warning naming it: its values are never taken as
 * base units. */
static perfcheck_status pc_ncu_keep_units(pc_ncu *x, size_t line) {
  pc_csv *c = &x->csv;
  for (size_t i = 0; i < x->ncols; i++) {
    free(x->units[i]);
    x->units[i] = NULL;
    const char *u = i < c->n ? pc_csv_field(c, i) : "";
    if (*u && !(x->units[i] = pc_strdup(u)))
      return pc_ncu_error(x, PERFCHECK_ERROR_OUT_OF_MEMORY, 0, "out of memory");
    x->unit[i] = pc_parse_unit(u);
    const char kind = pc_ncu_col_kind(x->header[i]);
    const int nul = i < c->n && pc_csv_field_has_nul(c, i);
    const int attribute = strncmp(x->header[i], "device__attribute_", 18) == 0;
    x->usable[i] = !nul && x->unit[i].known && pc_unit_fits(&x->unit[i], u, kind, attribute);
    if (!x->reads[i] || x->usable[i]) continue;
    char shown[80], col[160];
    pc_fmt_printable(shown, sizeof shown, u, 40);
    pc_fmt_printable(col, sizeof col, x->header[i], 120);
    if (!*u && !nul)
      pc_ncu_warn(x,
                  "%s:%zu: column %s: no unit (its units cell is empty) where %s needs one: its values are not read "
                  "(never taken as base units)",
                  x->name, line, col, kind == 't' ? "a time" : kind == 'b' ? "a byte count" : "a percentage");
    else if (!x->unit[i].known || nul)
      pc_ncu_warn(x, "%s:%zu: column %s: unknown unit \"%s\"%s: its values are not read (never taken as base units)",
                  x->name, line, col, shown, nul ? " (with a NUL byte)" : "");
    else
      pc_ncu_warn(x, "%s:%zu: column %s: unit \"%s\" is not %s: its values are not read", x->name, line, col, shown,
                  kind == 't' ? "a time" : kind == 'b' ? "a byte count" : "a percentage");
  }
  x->units_read = 1;
  return PERFCHECK_OK;
}

/* A header followed by a launch row, not a units row: nothing says what the
 * numbers are in (96.384 could be us or ns), so no read column is usable in
 * this section; one warning names them. */
static void pc_ncu_no_units(pc_ncu *x, size_t header_line) {
  char names[400] = "";
  size_t n = 0, used = 0;
  for (size_t i = 0; i < x->ncols; i++) {
    x->usable[i] = 0;
    x->unit[i] = pc_parse_unit(NULL);
    free(x->units[i]);
    x->units[i] = NULL;
    n += x->reads[i];
  }
  /* Named: the first metrics of the table that are columns (the duration
   * first), then how many in all. */
  size_t named = 0;
  for (int m = 0; m < PC_M_COUNT && named < 4; m++) {
    if (x->col_metric[m] < 0 || used >= sizeof names - 1) continue;
    char col[120];
    pc_fmt_printable(col, sizeof col, x->header[x->col_metric[m]], 100);
    int w = snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "", col);
    if (w > 0) used += (size_t)w < sizeof names - used ? (size_t)w : sizeof names - used - 1;
    named++;
  }
  if (n)
    pc_ncu_warn(x,
                "%s:%zu: no units row after the header: the values of %zu column%s (%s%s) cannot be read in their "
                "units and are not read (ncu --csv --page raw writes the units row)",
                x->name, header_line, n, n == 1 ? "" : "s", names[0] ? names : "launch__ and device__ columns",
                n > named ? ", ..." : "");
}

/* A numeric cell in base units.  Byte sizes that ncu printed scaled and
 * rounded ("49.15" Kbyte) are snapped to the multiple of 1 KiB they round
 * from when `snap_kib` is set (shared-memory sizes are such multiples;
 * 48000 B printed "48.00" Kbyte is kept, since 48128 is not within 5 B). */
static pc_num_status pc_ncu_scaled(const pc_ncu *x, long col, double *out, int *decimals) {
  *out = PC_NULL;
  *decimals = 0;
  if (!x->usable[col]) return PC_NUM_UNIT;
  if (pc_csv_field_has_nul(&x->csv, (size_t)col)) return PC_NUM_NUL;
  double v;
  pc_num_status st = pc_parse_number(pc_csv_field(&x->csv, (size_t)col), &v, decimals);
  if (st != PC_NUM_OK) return st;
  *out = v * x->unit[col].factor;
  return isfinite(*out) ? PC_NUM_OK : PC_NUM_NONFINITE;
}

/* Whether the other columns of col's name (a metric listed twice) hold
 * another value than `v` (col's, in base units) in this row; the first
 * disagreement of each column is said once. */
static int pc_ncu_disagree(pc_ncu *x, long col, pc_num_status st_col, double v, size_t line) {
  for (long d = x->dup_next[col]; d >= 0; d = x->dup_next[d]) {
    double w;
    int decimals;
    if (!x->usable[d]) continue; /* not read at all (its unit's warning said so) */
    const pc_num_status st = pc_ncu_scaled(x, d, &w, &decimals);
    if ((st == PC_NUM_OK) != (st_col == PC_NUM_OK)) { /* a value against none */
    } else if (st != PC_NUM_OK || w == v || fabs(w - v) <= 1e-9 * fmax(fabs(w), fabs(v))) {
      continue;
    }
    if (!x->dup_said[col]) {
      x->dup_said[col] = 1;
      char name[160], a[40], b[40];
      pc_fmt_printable(name, sizeof name, x->header[col], 120);
      pc_fmt_printable(a, sizeof a, pc_csv_field(&x->csv, (size_t)col), 24);
      pc_fmt_printable(b, sizeof b, pc_csv_field(&x->csv, (size_t)d), 24);
      pc_ncu_warn(x,
                  "%s:%zu: columns %ld and %ld are both %s and disagree (\"%s\" and \"%s\"): its value is not read "
                  "where they differ, never the first one taken",
                  x->name, line, col + 1, d + 1, name, a, b);
    }
    return 1;
  }
  return 0;
}

static pc_num_status pc_ncu_cell(pc_ncu *x, long col, int snap_kib, double *out) {
  *out = PC_NULL;
  if (col < 0) return PC_NUM_EMPTY;
  int decimals = 0;
  double scaled;
  pc_num_status st = pc_ncu_scaled(x, col, &scaled, &decimals);
  if (st == PC_NUM_UNIT) return st;
  if (x->dup_next[col] >= 0 && pc_ncu_disagree(x, col, st, scaled, x->row_line)) return PC_NUM_CONFLICT;
  if (st != PC_NUM_OK) return st;
  pc_unit u = x->unit[col];
  if (snap_kib && u.is_bytes && u.factor > 1.0) {
    double resolution = u.factor * pow(10.0, -decimals);
    double kib = round(scaled / 1024.0) * 1024.0;
    if (resolution > 1.0 && fabs(kib - scaled) <= resolution / 2.0 + 1e-9) scaled = kib;
    else if (resolution > 1.0) scaled = round(scaled);
  }
  *out = scaled;
  return PC_NUM_OK;
}

/* A launch or device value that must be a non-negative number; NaN else. */
static double pc_ncu_count(pc_ncu *x, long col, int snap_kib) {
  double v;
  if (pc_ncu_cell(x, col, snap_kib, &v) != PC_NUM_OK || v < 0) return PC_NULL;
  return v;
}

/* "(256, 1, 1)" -> 256 1 1.  Returns 0 when three numbers were read. */
static int pc_parse_dim3(const char *s, unsigned out[3]) {
  int got = 0;
  while (*s && got < 3) {
    while (*s == ' ' || *s == '(' || *s == ',' || *s == '\t') s++;
    if (*s < '0' || *s > '9') break;
    unsigned long long v = 0;
    while (*s >= '0' && *s <= '9') {
      v = v * 10 + (unsigned)(*s - '0');
      if (v > UINT_MAX) return -1;
      s++;
    }
    out[got++] = (unsigned)v;
  }
  while (*s == ' ' || *s == ')') s++;
  return (got == 3 && *s == '\0') ? 0 : -1;
}

static unsigned pc_to_unsigned(double v) {
  if (!(v >= 0) || v > (double)UINT_MAX) return 0;
  return (unsigned)llround(v);
}

/* Launch configuration of the current row: the "(x, y, z)" columns, else the
 * launch__*_dim_* columns, else launch__*_size as a 1-D shape. */
static void pc_ncu_dims(pc_ncu *x, long tuple_col, int dim_x, int size_col, unsigned out[3]) {
  out[0] = out[1] = out[2] = 0;
  if (tuple_col >= 0 && pc_parse_dim3(pc_csv_field(&x->csv, (size_t)tuple_col), out) == 0) return;
  out[0] = out[1] = out[2] = 0;
  double d[3];
  int have = 1;
  for (int i = 0; i < 3; i++) {
    d[i] = pc_ncu_count(x, x->col_launch[dim_x + i], 0);
    if (pc_is_null(d[i])) have = 0;
  }
  if (have) {
    for (int i = 0; i < 3; i++) out[i] = pc_to_unsigned(d[i]);
    return;
  }
  double total = pc_ncu_count(x, x->col_launch[size_col], 0);
  if (pc_has(total)) {
    out[0] = pc_to_unsigned(total);
    out[1] = out[2] = 1;
  }
}

static int pc_is_integer_text(const char *s) {
  if (!*s) return 0;
  for (; *s; s++)
    if (*s < '0' || *s > '9') return 0;
  return 1;
}

static int pc_int_or_unknown(double v) {
  if (!(v >= 0) || v > (double)INT_MAX) return -1;
  return (int)llround(v);
}

/* The device, from the first launch row's device__attribute_* columns. */
static void pc_ncu_read_device(pc_ncu *x) {
  pc_device *d = &x->r->device;
  const pc_csv *c = &x->csv;
  if (x->col_dev[PC_D_NAME] >= 0) {
    snprintf(d->name, sizeof d->name, "%s", pc_csv_field(c, (size_t)x->col_dev[PC_D_NAME]));
  } else if (x->col_device >= 0) {
    /* Some exports put the device's name, others its ordinal, in "Device". */
    const char *dev = pc_csv_field(c, (size_t)x->col_device);
    if (!pc_is_integer_text(dev)) snprintf(d->name, sizeof d->name, "%s", dev);
  }
  double v[PC_D_COUNT];
  int any = 0;
  for (int i = PC_D_CC_MAJOR; i < PC_D_COUNT; i++) {
    int smem = i == PC_D_MAX_SMEM_SM || i == PC_D_MAX_SMEM_BLOCK || i == PC_D_MAX_SMEM_OPTIN ||
               i == PC_D_RESERVED_SMEM;
    v[i] = pc_ncu_count(x, x->col_dev[i], smem);
    if (x->col_dev[i] >= 0) any = 1;
  }
  d->cc_major = pc_int_or_unknown(v[PC_D_CC_MAJOR]);
  d->cc_minor = pc_int_or_unknown(v[PC_D_CC_MINOR]);
  if ((d->cc_major < 0 || d->cc_minor < 0) && x->col_cc >= 0) {
    int ma, mi;
    char tail;
    if (sscanf(pc_csv_field(c, (size_t)x->col_cc), "%d.%d%c", &ma, &mi, &tail) == 2 && ma >= 0 &&
        mi >= 0) {
      d->cc_major = ma;
      d->cc_minor = mi;
    }
  }
  d->sm_count = pc_int_or_unknown(v[PC_D_SM_COUNT]);
  d->warp_size = pc_int_or_unknown(v[PC_D_WARP_SIZE]);
  d->max_threads_per_sm = pc_int_or_unknown(v[PC_D_MAX_THREADS_SM]);
  if (d->max_threads_per_sm < 0 && pc_has(v[PC_D_MAX_WARPS_SM]) && d->warp_size > 0)
    d->max_threads_per_sm = pc_int_or_unknown(v[PC_D_MAX_WARPS_SM] * d->warp_size);
  d->max_threads_per_block = pc_int_or_unknown(v[PC_D_MAX_THREADS_BLOCK]);
  d->max_blocks_per_sm = pc_int_or_unknown(v[PC_D_MAX_BLOCKS_SM]);
  d->max_regs_per_sm = pc_int_or_unknown(v[PC_D_MAX_REGS_SM]);
  d->max_regs_per_block = pc_int_or_unknown(v[PC_D_MAX_REGS_BLOCK]);
  d->max_smem_per_sm = pc_int_or_unknown(v[PC_D_MAX_SMEM_SM]);
  d->max_smem_per_block = pc_int_or_unknown(v[PC_D_MAX_SMEM_BLOCK]);
  d->max_smem_per_block_optin = pc_int_or_unknown(v[PC_D_MAX_SMEM_OPTIN]);
  d->reserved_smem_per_block = pc_int_or_unknown(v[PC_D_RESERVED_SMEM]);
  if (d->reserved_smem_per_block < 0) {
    double drv = pc_ncu_count(x, x->col_launch[PC_L_SMEM_DRIVER], 1);
    d->reserved_smem_per_block = pc_int_or_unknown(drv);
  }
  if (d->cc_major >= 0) pc_device_fill_granularities(d);

  /* Clocks: the CUDA attributes are in kHz; ncu may print them scaled into
   * Hz units ("1.59" Ghz) or as cycles per time; an empty unit means kHz. */
  double khz[2] = {PC_NULL, PC_NULL};
  const long clock_cols[2] = {x->col_dev[PC_D_MEM_CLOCK], x->col_dev[PC_D_CLOCK]};
  for (int i = 0; i < 2; i++) {
    double raw;
    if (pc_ncu_cell(x, clock_cols[i], 0, &raw) != PC_NUM_OK || !(raw > 0)) continue;
    pc_unit u = pc_parse_unit(clock_cols[i] >= 0 ? x->units[clock_cols[i]] : NULL);
    khz[i] = u.is_frequency ? raw / 1000.0 : raw;
  }
  pc_device_ceilings_from_clocks(d, khz[0], v[PC_D_BUS_WIDTH], khz[1]);
  if (pc_has(d->peak_dram_bytes_per_s) || pc_has(d->peak_fp32_flop_per_s))
    snprintf(d->ceilings_source, sizeof d->ceilings_source, "ncu-export");
  else
    d->ceilings_source[0] = '\0';

  if (!any)
    pc_ncu_warn(x,
                "%s: no device__attribute_* columns: the device's limits and ceilings are "
                "unknown, so the occupancy model and the ridge point are not available",
                x->name);
}

static uint64_t pc_hash(const char *s, size_t n) { return pc_fnv1a(PC_FNV1A_BASIS, s, n); }

/* The tables' eq callbacks (pc_map.h): the candidate really is this key. */
typedef struct pc_ncu_probe {
  const pc_ncu *x;
  const char *key;
  size_t len;
} pc_ncu_probe;
static int pc_ncu_sig_eq(uint32_t i, const void *arg) {
  const pc_ncu_probe *p = arg;
  const char *k = p->x->sigs[i].key;
  return strlen(k) == p->len && memcmp(k, p->key, p->len) == 0;
}
static int pc_ncu_memo_eq(uint32_t i, const void *arg) {
  const pc_ncu_probe *p = arg;
  return strcmp(p->x->memo[i].raw, p->key) == 0;
}

static int pc_ensure(char **buf, size_t *cap, size_t need) {
  if (need <= *cap) return 0;
  size_t n = *cap ? *cap : 256;
  while (n < need) {
    if (n > SIZE_MAX / 2) return -1;
    n *= 2;
  }
  char *b = realloc(*buf, n);
  if (!b) return -1;
  *buf = b;
  *cap = n;
  return 0;
}

static int pc_sig_add_duration(pc_sig *s, double v) {
  if (pc_grow((void **)&s->dur, &s->cap_dur, s->ndur + 1, sizeof *s->dur)) return -1;
  s->dur[s->ndur++] = v;
  return 0;
}

/* Occupancy's binding limit: the smallest of the four, ties going to the
 * first in the order blocks, warps, registers, shared memory: ncu prints the
 * per-SM block limit for a resource the kernel does not use (32-thread
 * blocks with no shared memory read 32 and 32 on the H200), so a tie with
 * the block limit is that limit. */
static pc_limiter pc_binding(const pc_attributes *a) {
  const double v[4] = {a->limit_blocks, a->limit_warps, a->limit_registers, a->limit_shared_mem};
  const pc_limiter l[4] = {PC_LIMIT_BLOCKS, PC_LIMIT_WARPS, PC_LIMIT_REGISTERS, PC_LIMIT_SHARED_MEMORY};
  pc_limiter best = PC_LIMIT_NONE;
  double bv = INFINITY;
  for (int i = 0; i < 4; i++)
    if (pc_has(v[i]) && v[i] < bv) {
      bv = v[i];
      best = l[i];
    }
  return best;
}

/* A model limit as ncu would print it: a resource the kernel does not use
 * (the model's INT_MAX) limits nothing, and ncu shows the SM's block limit. */
static double pc_ncu_model_limit(int v, const pc_device *d) {
  if (v == INT_MAX) return d->max_blocks_per_sm > 0 ? (double)d->max_blocks_per_sm : PC_NULL;
  return v;
}

/* Launch attributes of a new signature from its first row: what ncu computed,
 * checked against perfcheck's occupancy model. */
static void pc_ncu_attributes(pc_ncu *x, pc_kernel *k, size_t line, const char *label) {
  pc_attributes *a = &k->attr;
  const pc_device *d = &x->r->device;
  a->registers_per_thread = pc_ncu_count(x, x->col_launch[PC_L_REGS], 0);
  a->static_smem = pc_ncu_count(x, x->col_launch[PC_L_SMEM_STATIC], 1);
  a->dynamic_smem = k->dynamic_smem;
  a->limit_warps = pc_ncu_count(x, x->col_launch[PC_L_LIMIT_WARPS], 0);
  a->limit_blocks = pc_ncu_count(x, x->col_launch[PC_L_LIMIT_BLOCKS], 0);
  a->limit_registers = pc_ncu_count(x, x->col_launch[PC_L_LIMIT_REGS], 0);
  a->limit_shared_mem = pc_ncu_count(x, x->col_launch[PC_L_LIMIT_SMEM], 0);
  a->waves_per_sm = pc_ncu_count(x, x->col_launch[PC_L_WAVES], 0);
  a->theoretical_occupancy_pct = pc_ncu_count(x, x->col_launch[PC_L_THEORETICAL_PCT], 0);
  a->warps_per_sm = pc_ncu_count(x, x->col_launch[PC_L_THEORETICAL_WARPS], 0);
  if (pc_has(a->limit_warps) && pc_has(a->limit_blocks) && pc_has(a->limit_registers) &&
      pc_has(a->limit_shared_mem)) {
    a->blocks_per_sm = fmin(fmin(a->limit_warps, a->limit_blocks),
                            fmin(a->limit_registers, a->limit_shared_mem));
    a->binding = pc_binding(a);
  }
  uint64_t threads = (uint64_t)k->block[0] * k->block[1] * k->block[2];
  int warp = d->warp_size > 0 ? d->warp_size : 32;
  if (pc_is_null(a->warps_per_sm) && pc_has(a->blocks_per_sm) && threads > 0)
    a->warps_per_sm = a->blocks_per_sm * (double)((threads + (uint64_t)warp - 1) / (uint64_t)warp);
  if (pc_is_null(a->theoretical_occupancy_pct) && pc_has(a->warps_per_sm) &&
      d->max_threads_per_sm >= warp)
    a->theoretical_occupancy_pct = 100.0 * a->warps_per_sm / (double)(d->max_threads_per_sm / warp);

  /* The model: fills what ncu did not say, and flags a disagreement. */
  if (pc_is_null(a->registers_per_thread) || threads == 0 || threads > INT_MAX) return;
  pc_occupancy_input in;
  in.block_threads = (int)threads;
  in.registers_per_thread = pc_int_or_unknown(a->registers_per_thread);
  in.static_smem = pc_has(a->static_smem) ? pc_int_or_unknown(a->static_smem) : 0;
  in.dynamic_smem = pc_has(k->dynamic_smem) ? pc_int_or_unknown(k->dynamic_smem) : 0;
  if (in.registers_per_thread < 0 || in.static_smem < 0 || in.dynamic_smem < 0) return;
  pc_occupancy occ;
  if (pc_occupancy_compute(d, &in, &occ) != 0) return;
  if (pc_is_null(a->blocks_per_sm)) {
    a->limit_warps = pc_ncu_model_limit(occ.limit_warps, d);
    a->limit_blocks = pc_ncu_model_limit(occ.limit_blocks, d);
    a->limit_registers = pc_ncu_model_limit(occ.limit_registers, d);
    a->limit_shared_mem = pc_ncu_model_limit(occ.limit_shared_mem, d);
    a->blocks_per_sm = occ.blocks_per_sm;
    a->binding = occ.binding;
    if (pc_is_null(a->warps_per_sm)) a->warps_per_sm = occ.warps_per_sm;
    if (pc_is_null(a->theoretical_occupancy_pct)) a->theoretical_occupancy_pct = occ.theoretical_pct;
  } else if ((double)occ.blocks_per_sm != a->blocks_per_sm) {
    a->model_blocks_per_sm = occ.blocks_per_sm;
    pc_ncu_warn(x,
                "%s:%zu: kernel %s: ncu's occupancy limits give %.0f blocks per SM, perfcheck's "
                "model %d; the report keeps ncu's and shows both",
                x->name, line, label, a->blocks_per_sm, occ.blocks_per_sm);
  }
}

/* A stand-in column's value in the current row, or NaN. */
static double pc_ncu_standin(pc_ncu *x, int si) {
  double v;
  if (x->col_standin[si] < 0 || pc_ncu_cell(x, x->col_standin[si], 0, &v) != PC_NUM_OK || !(v >= 0)) return PC_NULL;
  return v;
}

/* Fills, from --set full's stand-ins, what the table's own columns did not
 * give: the header lacked them, or (the L2 atomics) this row's value was
 * unusable: ncu wrote lts__t_requests_op_red.sum = -1 for a cuBLAS BF16 GEMM
 * (nvjet, advice corpus; docs/measurements/2026-12-02-h200-c), which left
 * step 3 not_assessed, while lts__t_requests_srcunit_tex_op_red.sum in the
 * same row read 0.  The
 * three L2 counts are replaced together, so the share the rule reads comes
 * from one source.  The first use in an export is said once. */
static void pc_ncu_standins(pc_ncu *x, pc_kernel *k, size_t line, const char *label) {
  const double cycles = pc_ncu_standin(x, PC_SI_CYCLES);
  int used = 0;
  for (size_t i = 0; i < sizeof pc_standin_rates / sizeof pc_standin_rates[0]; i++) {
    const pc_metric_id id = pc_standin_rates[i].id;
    if (x->col_metric[id] >= 0) continue;
    const double rate = pc_ncu_standin(x, pc_standin_rates[i].si);
    if (pc_has(rate) && pc_has(cycles)) k->metric[id] = nearbyint(rate * cycles), used |= 1;
  }
  const int absent = x->col_metric[PC_M_L2_ATOM_REQUESTS] < 0 && x->col_metric[PC_M_L2_RED_REQUESTS] < 0;
  const int unusable = !absent && (!pc_has(k->metric[PC_M_L2_ATOM_REQUESTS]) ||
                                   !pc_has(k->metric[PC_M_L2_RED_REQUESTS]) || !pc_has(k->metric[PC_M_L2_REQUESTS]));
  if (absent || unusable) {
    const double alu = pc_ncu_standin(x, PC_SI_TEX_ATOM_ALU), cas = pc_ncu_standin(x, PC_SI_TEX_ATOM_CAS);
    const double red = pc_ncu_standin(x, PC_SI_TEX_RED), req = pc_ncu_standin(x, PC_SI_TEX_REQUESTS);
    if (pc_has(alu) && pc_has(red) && pc_has(req)) {
      k->metric[PC_M_L2_ATOM_REQUESTS] = alu + (pc_has(cas) ? cas : 0);
      k->metric[PC_M_L2_RED_REQUESTS] = red;
      k->metric[PC_M_L2_REQUESTS] = req;
      if (absent) {
        used |= 2;
      } else {
        pc_ncu_warn(x, "%s:%zu: kernel %s: L2 atomics and reductions from the SMs' L2 requests "
                       "(lts__t_requests_srcunit_tex_op_atom_dot_alu/_cas, _op_red, lts__t_requests_srcunit_tex): "
                       "ncu's lts__t_requests_op_atom/_op_red or lts__t_requests value was unusable",
                    x->name, line, label);
      }
    }
  }
  if ((used & 1) && !(x->standins_said & 1)) {
    x->standins_said |= 1;
    pc_ncu_warn(x, "%s: FP32/FP64/FP16 instruction counts from ncu's roofline rates (X.sum.per_cycle_elapsed x "
                   "smsp__cycles_elapsed.avg): the export has no X.sum column",
                x->name);
  }
  if ((used & 2) && !(x->standins_said & 2)) {
    x->standins_said |= 2;
    pc_ncu_warn(x, "%s: atomics from the SMs' L2 requests (lts__t_requests_srcunit_tex_op_atom_dot_alu/_cas and "
                   "_op_red among lts__t_requests_srcunit_tex): the export has no lts__t_requests_op_atom/red column",
                x->name);
  }
}

static int pc_ncu_has_standin(const pc_ncu *x, pc_metric_id id);

/* FLOPs are 2 FMA + ADD + MUL over whole FP32 (and FP64, FP16) counts, never
 * a partial sum (pc_checklist.c): when a count the sum needs is missing, its
 * derived flops, gflops and arithmetic_intensity are null, and this says
 * why: once for the export when it has no column for the count, else for
 * the kernel whose value could not be read. */
static void pc_ncu_flops_note(pc_ncu *x, const pc_kernel *k, size_t line, const char *label) {
  static const pc_metric_id ids[3][3] = {{PC_M_FFMA, PC_M_FADD, PC_M_FMUL},
                                         {PC_M_DFMA, PC_M_DADD, PC_M_DMUL},
                                         {PC_M_HFMA, PC_M_HADD, PC_M_HMUL}};
  const pc_metric_def *table = pc_metric_table();
  for (int t = 0; t < 3; t++) {
    int have = 0, missing = -1;
    for (int i = 0; i < 3; i++) {
      if (pc_has(k->metric[ids[t][i]]))
        have++;
      else if (missing < 0)
        missing = ids[t][i];
    }
    if (have == 3 || (t > 0 && have == 0)) continue;
    const int column = x->col_metric[missing] >= 0 || pc_ncu_has_standin(x, (pc_metric_id)missing);
    if (!column) {
      if (!x->flops_said)
        pc_ncu_warn(x,
                    "%s: flops, gflops and arithmetic_intensity are null for every kernel: the export has no column "
                    "%s (FLOPs are 2 FMA + ADD + MUL over whole FP32, FP64 and FP16 counts, never a partial sum)",
                    x->name, table[missing].name);
      x->flops_said = 1;
    } else {
      pc_ncu_warn(x,
                  "%s:%zu: kernel %s: flops, gflops and arithmetic_intensity are null: %s was not read (FLOPs are 2 "
                  "FMA + ADD + MUL over whole FP32, FP64 and FP16 counts, never a partial sum)",
                  x->name, line, label, table[missing].name);
    }
    return;
  }
}

/* Metric values of a new signature, from its first row. */
static void pc_ncu_metrics(pc_ncu *x, pc_kernel *k, size_t line, const char *label) {
  const pc_metric_def *table = pc_metric_table();
  for (int i = 0; i < PC_M_COUNT; i++) {
    long col = x->col_metric[i];
    if (col < 0) continue;
    double v;
    pc_num_status st = pc_ncu_cell(x, col, 0, &v);
    if (st == PC_NUM_UNIT) continue; /* the column's one warning said so */
    if (st != PC_NUM_OK) {
      char shown[200];
      if (st == PC_NUM_NOT_A_NUMBER || st == PC_NUM_BAD_GROUPING || st == PC_NUM_RANGE ||
          st == PC_NUM_DECIMAL_COMMA || st == PC_NUM_NUL) {
        char val[64];
        pc_fmt_printable(val, sizeof val, pc_csv_field(&x->csv, (size_t)col), 20);
        snprintf(shown, sizeof shown, "\"%s\"%s is %s", val, st == PC_NUM_NUL ? " (then a NUL byte)" : "",
                 st == PC_NUM_NOT_A_NUMBER  ? "not a number"
                 : st == PC_NUM_RANGE       ? "outside the range of a double"
                 : st == PC_NUM_DECIMAL_COMMA ? "not a number (a decimal comma: ncu writes 0.5, never 0,5)"
                 : st == PC_NUM_NUL         ? "not a number"
                                            : "not a number (a ',' outside a group of three digits)");
      } else {
        snprintf(shown, sizeof shown, "%s", pc_num_reason(st));
      }
      pc_ncu_warn(x, "%s:%zu: kernel %s: %s: %s; not measured", x->name, line, label,
                  table[i].name, shown);
      continue;
    }
    if (v < 0) {
      pc_ncu_warn(x, "%s:%zu: kernel %s: %s: negative value %g; not measured", x->name, line,
                  label, table[i].name, v);
      continue;
    }
    k->metric[i] = v;
    k->metric_via_substitute[i] = x->metric_rank[i] == 1;
  }
  pc_ncu_standins(x, k, line, label);
  /* Sectors without requests cannot be right: the ratio step 3 reads would
   * divide by zero.  (No requests and no sectors is a kernel without such
   * accesses; its ratio is simply undefined.) */
  static const pc_metric_id pairs[2][2] = {{PC_M_LD_SECTORS, PC_M_LD_REQUESTS},
                                           {PC_M_ST_SECTORS, PC_M_ST_REQUESTS}};
  for (int p = 0; p < 2; p++) {
    double sectors = k->metric[pairs[p][0]], requests = k->metric[pairs[p][1]];
    if (requests == 0 && sectors > 0) {
      pc_ncu_warn(x,
                  "%s:%zu: kernel %s: %s: 0 requests but %.0f sectors; sectors per request "
                  "not measured",
                  x->name, line, label, table[pairs[p][1]].name, sectors);
      k->metric[pairs[p][1]] = PC_NULL;
    }
  }
  pc_ncu_flops_note(x, k, line, label);
}

/* The short name of a raw kernel name, remembered (a million rows repeat a
 * few hundred names).  NULL when out of memory. */
static const char *pc_ncu_short_name(pc_ncu *x, const char *kname, size_t klen) {
  uint64_t h = pc_hash(kname, klen);
  const pc_ncu_probe probe = {x, kname, klen};
  const uint32_t seen = pc_map_find(&x->memo_of, h, pc_ncu_memo_eq, &probe);
  if (seen != PC_NONE) return x->memo[seen].shortname;
  if (pc_ensure(&x->scratch, &x->scratch_cap, klen + 1)) return NULL;
  pc_kernel_short_name(kname, x->scratch, klen + 1);
  const char *shortname = x->scratch[0] ? x->scratch : kname;
  if (x->nmemo >= PC_NCU_MAX_MEMO) return shortname; /* hostile: no more memory for names */
  if (pc_grow((void **)&x->memo, &x->cap_memo, x->nmemo + 1, sizeof *x->memo)) return NULL;
  pc_name_memo *m = &x->memo[x->nmemo];
  m->raw = pc_strdup(kname);
  m->shortname = pc_strdup(shortname);
  if (!m->raw || !m->shortname) {
    free(m->raw);
    free(m->shortname);
    return NULL;
  }
  if (pc_map_insert(&x->memo_of, h, (uint32_t)x->nmemo)) {
    free(m->raw);
    free(m->shortname);
    return NULL;
  }
  x->nmemo++;
  return m->shortname;
}

/* A launch of signature s whose duration cell (column col) could not be
 * read; st is why (PC_NUM_NOT_A_NUMBER standing for a negative value). */
static void pc_sig_bad_duration(pc_ncu *x, pc_sig *s, size_t line, pc_num_status st, long col) {
  if (s->nbad++ > 0) return;
  s->bad_line = line;
  s->bad_st = st;
  pc_fmt_printable(s->bad_val, sizeof s->bad_val, pc_csv_field(&x->csv, (size_t)col), 12);
}

/* Out of memory for one more signature: how many there were, and what
 * each takes. */
static perfcheck_status pc_ncu_oom_signatures(pc_ncu *x, size_t line) {
  return pc_ncu_error(x, PERFCHECK_ERROR_OUT_OF_MEMORY, line,
                      "out of memory after %zu distinct kernel signatures (each takes about %zu KiB; narrow the "
                      "export with ncu --kernel-name or --launch-count)",
                      x->nsigs, (sizeof(pc_kernel) + 1023) / 1024);
}

/* One launch row. */
static perfcheck_status pc_ncu_row(pc_ncu *x, size_t line) {
  const char *kname = pc_csv_field(&x->csv, (size_t)x->col_kernel);
  if (!*kname) {
    if (x->empty_names++ == 0)
      pc_ncu_warn(x, "%s:%zu: a launch row without a kernel name; such rows are skipped", x->name,
                  line);
    return PERFCHECK_OK;
  }
  size_t klen = strlen(kname);
  const char *shortname = pc_ncu_short_name(x, kname, klen);
  if (!shortname) return pc_ncu_error(x, PERFCHECK_ERROR_OUT_OF_MEMORY, 0, "out of memory");
  x->launch_rows++;

  unsigned grid[3], block[3];
  pc_ncu_dims(x, x->col_grid, PC_L_GRID_X, PC_L_GRID_SIZE, grid);
  pc_ncu_dims(x, x->col_block, PC_L_BLOCK_X, PC_L_BLOCK_SIZE, block);
  double dyn = pc_ncu_count(x, x->col_launch[PC_L_SMEM_DYNAMIC], 1);

  /* The signature: short name, grid, block, dynamic shared memory. */
  size_t slen = strlen(shortname);
  if (pc_ensure(&x->key, &x->key_cap, slen + 96))
    return pc_ncu_error(x, PERFCHECK_ERROR_OUT_OF_MEMORY, 0, "out of memory");
  memcpy(x->key, shortname, slen);
  int tail = snprintf(x->key + slen, 96, "\x1f%u,%u,%u\x1f%u,%u,%u\x1f%.0f", grid[0], grid[1],
                      grid[2], block[0], block[1], block[2], pc_has(dyn) ? dyn : -1.0);
  size_t keylen = slen + (size_t)(tail > 0 ? tail : 0);
  uint64_t h = pc_hash(x->key, keylen);

  double dur;
  const long dcol = x->col_metric[PC_M_DURATION];
  const pc_num_status dst = pc_ncu_cell(x, dcol, 0, &dur);
  const int dur_ok = dst == PC_NUM_OK && dur >= 0;
  /* A launch whose duration should be there and is not (the column is
   * usable): counted against its signature (pc_ncu_finish says so). */
  const int dur_bad = !dur_ok && dcol >= 0 && dst != PC_NUM_UNIT;

  const pc_ncu_probe probe = {x, x->key, keylen};
  const uint32_t seen = pc_map_find(&x->sig_of, h, pc_ncu_sig_eq, &probe);
  if (seen != PC_NONE) {
    pc_sig *s = &x->sigs[seen];
    pc_kernel *k = &x->r->kernels[seen];
    k->launches++;
    k->profiled_launches++;
    if (dur_ok && pc_sig_add_duration(s, dur))
      return pc_ncu_error(x, PERFCHECK_ERROR_OUT_OF_MEMORY, 0, "out of memory");
    if (dur_bad) pc_sig_bad_duration(x, s, line, dst == PC_NUM_OK ? PC_NUM_NOT_A_NUMBER : dst, dcol);
    return PERFCHECK_OK;
  }

  /* A new signature: every one is kept (memory: the report entry with its
   * diagnosis, sizeof(pc_kernel), about 16 KiB a signature; 100,000 distinct
   * kernels take about 1.6 GB), so that shares and ranks are over every row. */
  if (pc_grow((void **)&x->sigs, &x->cap_sigs, x->nsigs + 1, sizeof *x->sigs)) return pc_ncu_oom_signatures(x, line);
  pc_sig *s = &x->sigs[x->nsigs];
  memset(s, 0, sizeof *s);
  s->key = malloc(keylen + 1);
  pc_kernel *k = pc_report_add_kernel(x->r);
  if (!s->key || !k) {
    free(s->key);
    return pc_ncu_oom_signatures(x, line);
  }
  memcpy(s->key, x->key, keylen);
  s->key[keylen] = '\0';
  if (pc_map_insert(&x->sig_of, h, (uint32_t)x->nsigs))
    return pc_ncu_error(x, PERFCHECK_ERROR_OUT_OF_MEMORY, 0, "out of memory");
  x->nsigs++;
  if (dur_ok && pc_sig_add_duration(s, dur))
    return pc_ncu_error(x, PERFCHECK_ERROR_OUT_OF_MEMORY, 0, "out of memory");
  if (dur_bad) pc_sig_bad_duration(x, s, line, dst == PC_NUM_OK ? PC_NUM_NOT_A_NUMBER : dst, dcol);

  /* ncu --print-kernel-base mangled writes the symbol itself; by default it
   * writes the demangled name. */
  const int is_mangled = klen > 2 && kname[0] == '_' && kname[1] == 'Z';
  if (pc_kernel_set_names(k, is_mangled ? kname : NULL, is_mangled ? NULL : kname) != 0 || !k->name)
    return pc_ncu_error(x, PERFCHECK_ERROR_OUT_OF_MEMORY, 0, "out of memory");

  memcpy(k->grid, grid, sizeof grid);
  memcpy(k->block, block, sizeof block);
  k->dynamic_smem = dyn;
  k->launches = 1;
  k->profiled_launches = 1;

  char label[400];
  pc_ncu_printable(label, sizeof label, shortname);
  pc_ncu_metrics(x, k, line, label);
  pc_ncu_attributes(x, k, line, label);
  return PERFCHECK_OK;
}

/* Durations over every launch of a signature; the metrics stay those of the
 * first launch.  Why the first: perfcheck in process profiles the first
 * launch of each signature by default (options.per_signature = 1), so an
 * export read here and a run measured in process report the same launch; the
 * later launches of a signature are usually the same work, and averaging
 * counters of different launches would give a launch that never ran. */
static void pc_ncu_finish(pc_ncu *x) {
  for (size_t i = 0; i < x->nsigs && i < x->r->nkernels; i++) {
    pc_kernel *k = &x->r->kernels[i];
    pc_sig *s = &x->sigs[i];
    if (s->nbad && k->launches > 1) { /* (one launch: the metric's own warning said it) */
      /* N launches with N-1 launches' time would be a total too small, and
       * a share too: total_ns is null, the durations are the timed ones'. */
      char label[200];
      pc_ncu_printable(label, sizeof label, k->name ? k->name : "?");
      pc_ncu_warn(x,
                  "%s:%zu: kernel %s: %zu of %llu launches have no usable gpu__time_duration.sum (this one: \"%s\", "
                  "%s): duration_ns is over the %zu timed launch%s and total_ns is null",
                  x->name, s->bad_line, label, s->nbad, (unsigned long long)k->launches, s->bad_val,
                  s->bad_st == PC_NUM_OK || s->bad_st == PC_NUM_NOT_A_NUMBER ? "not a non-negative number"
                                                                            : pc_num_reason(s->bad_st),
                  s->ndur, s->ndur == 1 ? "" : "es");
    }
    if (s->ndur == 0) continue;
    double mn = s->dur[0], mx = s->dur[0];
    for (size_t j = 1; j < s->ndur; j++) {
      if (s->dur[j] < mn) mn = s->dur[j];
      if (s->dur[j] > mx) mx = s->dur[j];
    }
    double sum = 0;
    for (size_t j = 0; j < s->ndur; j++) sum += s->dur[j];
    k->dur_min_ns = mn;
    k->dur_max_ns = mx;
    k->dur_median_ns = pc_median(s->dur, s->ndur);
    k->total_ns = s->nbad ? PC_NULL : sum;
  }
}

/* Whether the header gives a stand-in for metric `id`. */
static int pc_ncu_has_standin(const pc_ncu *x, pc_metric_id id) {
  for (size_t i = 0; i < sizeof pc_standin_rates / sizeof pc_standin_rates[0]; i++)
    if (pc_standin_rates[i].id == id) return x->col_standin[pc_standin_rates[i].si] >= 0 && x->col_standin[PC_SI_CYCLES] >= 0;
  /* ncu's L2 row is the busiest L2 sub-unit, those the default set reads
   * among them. */
  if (id == PC_M_L2_FABRIC_PCT || id == PC_M_L2_TAG_PCT || id == PC_M_L2_XBAR2LTS_PCT || id == PC_M_L2_LTS2XBAR_PCT ||
      id == PC_M_L2_FILL_PCT)
    return x->col_metric[PC_M_L2_THROUGHPUT_PCT] >= 0;
  /* So is L1's the busiest of its sub-units (ncu's --set full exports the
   * wavefronts over elapsed cycles, the default set over active ones too). */
  if (id == PC_M_L1_WAVEFRONTS_ACTIVE_PCT) return x->col_metric[PC_M_L1_THROUGHPUT_PCT] >= 0;
  if (id == PC_M_L2_ATOM_REQUESTS || id == PC_M_L2_RED_REQUESTS)
    return x->col_standin[PC_SI_TEX_ATOM_ALU] >= 0 && x->col_standin[PC_SI_TEX_RED] >= 0 &&
           x->col_standin[PC_SI_TEX_REQUESTS] >= 0;
  return 0;
}

/* Warns once per metric of the default set that the export lacks. */
static void pc_ncu_warn_missing(pc_ncu *x) {
  const pc_metric_def *table = pc_metric_table();
  for (int i = 0; i < PC_M_COUNT; i++) {
    if (x->col_metric[i] >= 0 || !(table[i].sets & PC_SET_DEFAULT)) continue;
    if (pc_ncu_has_standin(x, (pc_metric_id)i)) continue;
    pc_ncu_warn(x, "%s: no column %s: not measured for any kernel (collect it with ncu --metrics)",
                x->name, table[i].name);
  }
}

static void pc_ncu_free(pc_ncu *x) {
  for (size_t i = 0; i < x->ncols; i++) {
    if (x->units) free(x->units[i]);
    if (x->header) free(x->header[i]);
  }
  free(x->units);
  free(x->header);
  free(x->unit);
  free(x->reads);
  free(x->usable);
  free(x->dup_next);
  free(x->dup_said);
  for (size_t i = 0; i < x->nsigs; i++) {
    free(x->sigs[i].key);
    free(x->sigs[i].dur);
  }
  free(x->sigs);
  pc_map_free(&x->sig_of);
  for (size_t i = 0; i < x->nmemo; i++) {
    free(x->memo[i].raw);
    free(x->memo[i].shortname);
  }
  free(x->memo);
  pc_map_free(&x->memo_of);
  free(x->scratch);
  free(x->key);
  free(x->csv.buf);
  free(x->csv.off);
  if (x->src.f) free(x->src.win);
}

/* What a record-level failure means, for a message. */
static const char *pc_ncu_csv_what(int rc, char *buf, size_t len) {
  switch (rc) {
    case PC_CSV_UNTERMINATED:
      return "a quoted field opened here is not closed before the end of the file (truncated export?)";
    case PC_CSV_TOO_WIDE:
      snprintf(buf, len, "more than %zu columns", PC_NCU_MAX_COLUMNS);
      return buf;
    case PC_CSV_TOO_LONG:
      snprintf(buf, len, "a record longer than %zu MiB", PC_NCU_MAX_RECORD_BYTES >> 20);
      return buf;
    case PC_CSV_IO:
      return "read error";
    default:
      return "out of memory";
  }
}

static perfcheck_status pc_ncu_csv_error(pc_ncu *x, int rc, size_t line) {
  char buf[96];
  if (rc == PC_CSV_OOM) return pc_ncu_error(x, PERFCHECK_ERROR_OUT_OF_MEMORY, 0, "out of memory");
  if (rc == PC_CSV_IO)
    return pc_ncu_error(x, PERFCHECK_ERROR_IO, line, "read error: %s", strerror(x->src.read_errno));
  return pc_ncu_error(x, PERFCHECK_ERROR_PARSE, line, "%s", pc_ncu_csv_what(rc, buf, sizeof buf));
}

/* A row that cannot be read: dropped and counted; the first one is named. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void pc_ncu_bad_row(pc_ncu *x, size_t line, const char *fmt, ...) {
  if (x->bad_rows++ == 0) {
    x->first_bad_line = line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->first_bad, sizeof x->first_bad, fmt, ap);
    va_end(ap);
  }
}

/* Skips blank lines and ncu's own message lines (==PROF==, ==WARNING==,
 * ==ERROR==) at the start of a record; an ==ERROR== line becomes a warning
 * (the first ten).  Returns 0, or a PC_CSV_ error. */
static int pc_ncu_skip_noise(pc_ncu *x, size_t *error_lines) {
  pc_src *s = &x->src;
  for (;;) {
    int rc;
    size_t have = pc_src_peek(s, 9, &rc);
    if (rc == PC_SRC_OOM) return PC_CSV_OOM;
    if (have == 0) return 0;
    const char *p = s->win + s->pos;
    if (p[0] == '\n') {
      pc_src_skip(s, 1, 1);
      continue;
    }
    if (p[0] == '\r' && have >= 2 && p[1] == '\n') {
      pc_src_skip(s, 2, 1);
      continue;
    }
    if (have >= 2 && p[0] == '=' && p[1] == '=') {
      int is_error = have >= 9 && memcmp(p, "==ERROR==", 9) == 0;
      size_t len;
      int has_nl;
      rc = pc_src_line(s, &len, &has_nl);
      if (rc == PC_SRC_OOM) return PC_CSV_OOM;
      if (rc == PC_SRC_TOO_LONG) return PC_CSV_TOO_LONG;
      if (is_error && (*error_lines)++ < 10) {
        char text[200], raw[160];
        size_t n = len < sizeof raw - 1 ? len : sizeof raw - 1;
        memcpy(raw, s->win + s->pos, n);
        raw[n] = '\0';
        pc_fmt_printable(text, sizeof text, raw, 150);
        pc_ncu_warn(x, "%s:%zu: ncu reported: %s", x->name, s->line, text);
      }
      pc_src_skip(s, len + (has_nl ? 1 : 0), has_nl ? 1 : 0);
      continue;
    }
    return 0;
  }
}

/* The header: the first record with a "Kernel Name" field.  Lines without
 * that text are skipped without being parsed (the program's own output). */
static perfcheck_status pc_ncu_find_header(pc_ncu *x) {
  pc_src *s = &x->src;
  pc_csv *c = &x->csv;
  size_t first_line = 0, skipped = 0;
  for (;;) {
    size_t len;
    int has_nl;
    if (skipped > PC_NCU_MAX_PREAMBLE_BYTES)
      return pc_ncu_error(x, PERFCHECK_ERROR_PARSE, first_line ? first_line : 1,
                          "no header row in the first %zu MiB (%zu lines): not an ncu export; an export has a header "
                          "row with a \"Kernel Name\" column (`ncu --csv --page raw --log-file FILE` keeps the "
                          "program's own output out of it)",
                          PC_NCU_MAX_PREAMBLE_BYTES >> 20, s->line - 1);
    int rc = pc_src_line(s, &len, &has_nl);
    if (rc == PC_SRC_OOM) return pc_ncu_error(x, PERFCHECK_ERROR_OUT_OF_MEMORY, 0, "out of memory");
    if (rc == PC_SRC_TOO_LONG)
      return pc_ncu_error(x, PERFCHECK_ERROR_PARSE, s->line, "a line longer than %zu MiB: not an ncu export",
                          PC_NCU_MAX_RECORD_BYTES >> 20);
    if (len == 0 && !has_nl) break; /* the end */
    const char *p = s->win + s->pos;
    if (!first_line && len > 0 && !(len == 1 && p[0] == '\r')) first_line = s->line;
    if (!pc_find(p, len, "Kernel Name", 11)) {
      pc_src_skip(s, len + (has_nl ? 1 : 0), has_nl ? 1 : 0);
      skipped += len + 1;
      continue;
    }
    skipped += len + 1;
    size_t line;
    int r = pc_csv_next(c, s, PC_NCU_MAX_COLUMNS, &line);
    if (r == PC_CSV_EOF) break;
    if (r < 0) return pc_ncu_csv_error(x, r, line);
    for (size_t i = 0; i < c->n; i++)
      if (strcmp(pc_csv_field(c, i), "Kernel Name") == 0) {
        x->header_line = line;
        return PERFCHECK_OK;
      }
  }
  if (s->read_errno) return pc_ncu_csv_error(x, PC_CSV_IO, s->line);
  if (!first_line)
    return pc_ncu_error(x, PERFCHECK_ERROR_PARSE, 1, "empty file; expected an `ncu --csv --page raw` export");
  return pc_ncu_error(x, PERFCHECK_ERROR_PARSE, first_line,
                      "not an ncu export: no header row with a \"Kernel Name\" column (export "
                      "with `ncu --csv --page raw`)");
}

/* Whether the record just read is a header row: a "Kernel Name" field and
 * another that names a metric column (a launch row's numbers never do). */
static int pc_ncu_header_like(const pc_ncu *x) {
  const pc_csv *c = &x->csv;
  int kernel_name = 0, metric_name = 0;
  for (size_t i = 0; i < c->n && !(kernel_name && metric_name); i++) {
    const char *f = pc_csv_field(c, i);
    if (strcmp(f, "Kernel Name") == 0) {
      kernel_name = 1;
      continue;
    }
    if (!strstr(f, "__")) continue;
    int plain = 1;
    for (const char *p = f; *p && plain; p++)
      plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' ||
              *p == '.';
    metric_name = plain && f[0] != '_';
  }
  return kernel_name && metric_name;
}

static perfcheck_status pc_ncu_parse(pc_ncu *x) {
  pc_csv *c = &x->csv;
  perfcheck_status st = pc_ncu_find_header(x);
  if (st != PERFCHECK_OK) return st;
  st = pc_ncu_map_header(x);
  if (st != PERFCHECK_OK) return st;

  size_t error_lines = 0;
  size_t section_line = x->header_line; /* the header of the rows being read */
  int first = 1;
  for (;;) {
    int rc = pc_ncu_skip_noise(x, &error_lines);
    if (rc < 0) {
      if (rc == PC_CSV_OOM) return pc_ncu_csv_error(x, rc, x->src.line);
      char buf[96];
      pc_ncu_bad_row(x, x->src.line, "%s", pc_ncu_csv_what(rc, buf, sizeof buf));
      x->rest_unreadable = 1;
      break;
    }
    size_t line;
    rc = pc_csv_next(c, &x->src, PC_NCU_MAX_COLUMNS, &line);
    if (rc == PC_CSV_EOF) break;
    if (rc == PC_CSV_OOM) return pc_ncu_csv_error(x, rc, line);
    if (rc < 0) {
      /* A cut-short or damaged tail: what was read before it is kept. */
      char buf[96];
      pc_ncu_bad_row(x, line, "%s", pc_ncu_csv_what(rc, buf, sizeof buf));
      if (rc != PC_CSV_UNTERMINATED) x->rest_unreadable = 1;
      break;
    }
    if (pc_ncu_header_like(x)) {
      /* The header again (ncu writes one per profiled process): a new
       * section, with its own units row, when it names the same columns in
       * the same order; anything else would read the rows after it through
       * the wrong columns, so it is an error at its line.  (A kernel may well
       * be called "Kernel Name": a header row also names a metric column.) */
      size_t i = 0;
      while (c->n == x->ncols && i < x->ncols && strcmp(pc_csv_field(c, i), x->header[i]) == 0) i++;
      if (c->n != x->ncols || i < x->ncols) {
        char got[160];
        pc_fmt_printable(got, sizeof got, c->n == x->ncols && i < c->n ? pc_csv_field(c, i) : "", 60);
        if (c->n != x->ncols)
          return pc_ncu_error(x, PERFCHECK_ERROR_PARSE, line,
                              "a second header row with %zu columns where the first (line %zu) has %zu: the rows "
                              "after it cannot be read through the first header's columns",
                              c->n, x->header_line, x->ncols);
        char want[160];
        pc_fmt_printable(want, sizeof want, x->header[i], 60);
        return pc_ncu_error(x, PERFCHECK_ERROR_PARSE, line,
                            "a second header row whose column %zu is \"%s\" where the first header (line %zu) has "
                            "\"%s\": the rows after it cannot be read through the first header's columns",
                            i + 1, got, x->header_line, want);
      }
      section_line = line;
      first = 1;
      continue;
    }
    if (c->n != x->ncols) {
      pc_ncu_bad_row(x, line, "%zu fields where the header (line %zu) has %zu", c->n, x->header_line, x->ncols);
      continue;
    }
    const char *kname = pc_csv_field(c, (size_t)x->col_kernel);
    if (first) {
      first = 0;
      /* The row after a header holds the units when its kernel name is
       * empty; each section (header) has its own. */
      if (kname[0] == '\0') {
        st = pc_ncu_keep_units(x, line);
        if (st != PERFCHECK_OK) return st;
        continue;
      }
      pc_ncu_no_units(x, section_line);
    }
    if (pc_csv_field_has_nul(c, (size_t)x->col_kernel)) {
      pc_ncu_bad_row(x, line, "a NUL byte inside the kernel name");
      continue;
    }
    x->row_line = line;
    if (!x->device_read && kname[0] != '\0') {
      pc_ncu_read_device(x);
      x->device_read = 1;
    }
    st = pc_ncu_row(x, line);
    if (st != PERFCHECK_OK) return st;
  }
  if (x->src.read_errno) return pc_ncu_csv_error(x, PC_CSV_IO, x->src.line);
  if (x->r->nkernels == 0) {
    if (x->bad_rows)
      return pc_ncu_error(x, PERFCHECK_ERROR_PARSE, x->first_bad_line,
                          "%s; %zu row%s could not be read and none before %s was a complete launch row",
                          x->first_bad, x->bad_rows, x->bad_rows == 1 ? "" : "s",
                          x->bad_rows == 1 ? "it" : "them");
    return pc_ncu_error(x, PERFCHECK_ERROR_PARSE, x->src.line,
                        "the header (line %zu) is followed by no launch: ncu profiled no kernel "
                        "(check its --kernel-name filter)",
                        x->header_line);
  }
  if (x->bad_rows)
    pc_report_warn(x->r, x->quiet,
                   "%s:%zu: %s; %zu row%s dropped%s, %zu launch row%s kept (a damaged or cut-short export: was "
                   "ncu stopped before it finished?)",
                   x->name, x->first_bad_line, x->first_bad, x->bad_rows, x->bad_rows == 1 ? "" : "s",
                   x->rest_unreadable ? " and the rest of the file not read" : "", x->launch_rows,
                   x->launch_rows == 1 ? "" : "s");
  pc_ncu_finish(x);
  pc_ncu_warn_missing(x);
  if (x->empty_names > 1)
    pc_ncu_warn(x, "%s: %zu launch rows without a kernel name were skipped", x->name, x->empty_names);
  x->r->rows_left_out = x->bad_rows + x->empty_names;
  if (x->r->rows_left_out)
    pc_report_warn(x->r, x->quiet,
                   "%s: the kernels' time shares and ranks are null: %zu launch row%s of the export %s not read, so "
                   "a share of the rest would be too large",
                   x->name, x->r->rows_left_out, x->r->rows_left_out == 1 ? "" : "s",
                   x->r->rows_left_out == 1 ? "was" : "were");
  if (x->suppressed)
    pc_report_warn(x->r, x->quiet, "%s: %zu more warnings like these are not listed", x->name,
                   x->suppressed);
  return PERFCHECK_OK;
}

/* Reads from `f` (streamed) or from data[0..len) (f NULL). */
static perfcheck_status pc_ncu_run(FILE *f, const char *data, size_t len, const char *name, int quiet,
                                   pc_report **out, pc_err *err) {
  pc_err_clear(err);
  if (!out || (!f && !data && len))
    return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "pc_ncu_csv_parse: NULL argument");
  *out = NULL;
  pc_ncu x;
  memset(&x, 0, sizeof x);
  x.name = name ? name : "(ncu export)";
  x.quiet = quiet;
  x.err = err;
  x.src.line = 1;
  if (f) {
    x.src.f = f;
    x.src.win = malloc(PC_NCU_CHUNK_BYTES); /* never NULL: pointers into it are formed before the first read */
    if (!x.src.win) {
      return pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "%s: out of memory", x.name);
    }
    x.src.cap = PC_NCU_CHUNK_BYTES;
  } else {
    x.src.win = (char *)(uintptr_t)(data ? data : ""); /* read only: an in-memory source never fills */
    x.src.cap = x.src.end = len;
    x.src.eof = 1;
  }
  x.r = pc_report_new();
  if (!x.r) {
    if (f) free(x.src.win);
    return pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "%s: out of memory", x.name);
  }
  snprintf(x.r->source, sizeof x.r->source, "ncu-export");
  snprintf(x.r->metric_set, sizeof x.r->metric_set, "ncu-export");
  x.r->step1_assessed = 0; /* an export has no wall clock */

  pc_locale_guard lg;
  pc_locale_begin(&lg);
  perfcheck_status st = pc_ncu_parse(&x);
  pc_locale_end(&lg);
  pc_ncu_free(&x);
  if (st != PERFCHECK_OK) {
    pc_report_free(x.r);
    return st;
  }
  *out = x.r;
  return PERFCHECK_OK;
}

perfcheck_status pc_ncu_csv_parse(const char *data, size_t len, const char *name, int quiet,
                                  pc_report **out, pc_err *err) {
  return pc_ncu_run(NULL, data, len, name, quiet, out, err);
}

perfcheck_status pc_ncu_csv_read(FILE *f, const char *name, int quiet, pc_report **out, pc_err *err) {
  if (!f) {
    if (out) *out = NULL;
    return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "pc_ncu_csv_read: NULL stream");
  }
  return pc_ncu_run(f, NULL, 0, name, quiet, out, err);
}

/* perfcheck_report_from_ncu_csv opens its input in pc_read.c (gzip, stdin). */
