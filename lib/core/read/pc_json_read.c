/* Reading JSON: a small strict parser (depth-limited recursive descent) and
 * the mapping of a "perfcheck-report/2" (or /1) document (pc_write_json.c's output,
 * docs/report-contract.md) back into a pc_report.  Needed by
 * `perfcheck check FILE.json` and `perfcheck merge`. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/pc_core.h"
#include "base/pc_buf.h"
#include "base/pc_map.h"
#include "base/pc_fmt.h"
#include "read/pc_json.h"
#include "base/pc_hash.h"
#include "check/pc_check.h"
#include "base/pc_util.h"

/* ---- Parser ---------------------------------------------------------------- */

typedef struct pc_jp {
  const char *s;
  size_t len, i;
  const char *name;
  pc_err *err;
  size_t line0, col0; /* the position of s[0] in the document (a streamed piece: pc_js) */
  int depth0;         /* the nesting depth s[0] is at */
} pc_jp;

void pc_json_position(const char *data, size_t len, size_t offset, size_t *line, size_t *col) {
  size_t l = 1, c = 1;
  if (offset > len) offset = len;
  for (size_t i = 0; i < offset; i++) {
    if (data[i] == '\n') {
      l++;
      c = 1;
    } else {
      c++;
    }
  }
  *line = l;
  *col = c;
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static perfcheck_status pc_jp_fail(pc_jp *p, size_t at, const char *fmt, ...) {
  if (!p->err) return PERFCHECK_ERROR_PARSE;
  size_t line, col;
  pc_json_position(p->s, p->len, at, &line, &col);
  if (p->line0) {
    col = line == 1 ? p->col0 + col - 1 : col;
    line = p->line0 + line - 1;
  }
  char where[sizeof p->err->msg];
  snprintf(where, sizeof where, "%s:%zu:%zu: ", p->name ? p->name : "<json>", line, col);
  va_list ap;
  va_start(ap, fmt);
  perfcheck_status st = pc_err_vset(p->err, PERFCHECK_ERROR_PARSE, where, fmt, ap);
  va_end(ap);
  return st;
}

/* The character at `at`, shown safely in a message. */
static const char *pc_jp_show(const pc_jp *p, size_t at, char buf[8]) {
  if (at >= p->len) return "end of input";
  unsigned char c = (unsigned char)p->s[at];
  if (c >= 0x21 && c < 0x7F)
    snprintf(buf, 8, "'%c'", c);
  else
    snprintf(buf, 8, "0x%02X", c);
  return buf;
}

static void pc_jp_ws(pc_jp *p) {
  while (p->i < p->len) {
    char c = p->s[p->i];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
    p->i++;
  }
}

void pc_json_free(pc_json *v) {
  if (!v) return;
  free(v->string);
  for (size_t i = 0; i < v->n; i++) {
    pc_json_free(&v->items[i]);
    if (v->keys) free(v->keys[i]);
  }
  free(v->items);
  free(v->keys);
  memset(v, 0, sizeof *v);
}

static int pc_hex4(const char *s, unsigned *out) {
  unsigned v = 0;
  for (int k = 0; k < 4; k++) {
    char c = s[k];
    v <<= 4;
    if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
    else return -1;
  }
  *out = v;
  return 0;
}

static size_t pc_utf8_encode(unsigned cp, char out[4]) {
  if (cp < 0x80) {
    out[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (char)(0xC0 | (cp >> 6));
    out[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = (char)(0xE0 | (cp >> 12));
    out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = (char)(0xF0 | (cp >> 18));
  out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
  out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
  out[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

/* At the opening quote.  *out is a new NUL-terminated string. */
static perfcheck_status pc_jp_string(pc_jp *p, char **out) {
  size_t start = p->i++;
  /* The common string, printable ASCII without escapes, in one allocation
   * (a report of 100k kernels holds tens of millions of them). */
  {
    size_t j = p->i;
    while (j < p->len && (unsigned char)p->s[j] >= 0x20 && (unsigned char)p->s[j] < 0x80 && p->s[j] != '"' &&
           p->s[j] != '\\')
      j++;
    if (j < p->len && p->s[j] == '"') {
      char *q = malloc(j - p->i + 1);
      if (!q) return PERFCHECK_ERROR_OUT_OF_MEMORY;
      memcpy(q, p->s + p->i, j - p->i);
      q[j - p->i] = '\0';
      p->i = j + 1;
      *out = q;
      return PERFCHECK_OK;
    }
  }
  pc_buf b = PC_BUF_INIT;
  perfcheck_status st = PERFCHECK_OK;
  if (pc_buf_putn(&b, "", 0)) return PERFCHECK_ERROR_OUT_OF_MEMORY;
  for (;;) {
    if (p->i >= p->len) {
      st = pc_jp_fail(p, start, "unterminated string");
      break;
    }
    unsigned char c = (unsigned char)p->s[p->i];
    if (c == '"') {
      p->i++;
      break;
    }
    if (c < 0x20) {
      st = pc_jp_fail(p, p->i, "control character 0x%02X in a string (JSON needs it escaped)", c);
      break;
    }
    if (c == '\\') {
      size_t at = p->i;
      if (p->i + 1 >= p->len) {
        st = pc_jp_fail(p, start, "unterminated string");
        break;
      }
      char e = p->s[p->i + 1];
      const char *rep = NULL;
      switch (e) {
        case '"': rep = "\""; break;
        case '\\': rep = "\\"; break;
        case '/': rep = "/"; break;
        case 'b': rep = "\b"; break;
        case 'f': rep = "\f"; break;
        case 'n': rep = "\n"; break;
        case 'r': rep = "\r"; break;
        case 't': rep = "\t"; break;
        case 'u': break;
        default:
          st = pc_jp_fail(p, at, "invalid escape \"\\%c\" in a string", (e >= 0x21 && e < 0x7F) ? e : '?');
          break;
      }
      if (st != PERFCHECK_OK) break;
      if (rep) {
        if (pc_buf_putn(&b, rep, 1)) st = PERFCHECK_ERROR_OUT_OF_MEMORY;
        p->i += 2;
        if (st != PERFCHECK_OK) break;
        continue;
      }
      unsigned cp;
      if (p->i + 6 > p->len || pc_hex4(p->s + p->i + 2, &cp)) {
        st = pc_jp_fail(p, at, "\\u needs four hex digits");
        break;
      }
      p->i += 6;
      if (cp >= 0xDC00 && cp <= 0xDFFF) {
        st = pc_jp_fail(p, at, "lone low surrogate \\u%04X", cp);
        break;
      }
      if (cp >= 0xD800 && cp <= 0xDBFF) {
        unsigned lo;
        if (p->i + 6 > p->len || p->s[p->i] != '\\' || p->s[p->i + 1] != 'u' || pc_hex4(p->s + p->i + 2, &lo) ||
            lo < 0xDC00 || lo > 0xDFFF) {
          st = pc_jp_fail(p, at, "high surrogate \\u%04X without its low surrogate", cp);
          break;
        }
        p->i += 6;
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
      }
      if (cp == 0) {
        st = pc_jp_fail(p, at, "\\u0000 is not supported (names are C strings)");
        break;
      }
      char u[4];
      size_t un = pc_utf8_encode(cp, u);
      if (pc_buf_putn(&b, u, un)) {
        st = PERFCHECK_ERROR_OUT_OF_MEMORY;
        break;
      }
      continue;
    }
    if (c < 0x80) {
      if (pc_buf_putn(&b, (const char *)&c, 1)) {
        st = PERFCHECK_ERROR_OUT_OF_MEMORY;
        break;
      }
      p->i++;
      continue;
    }
    /* Multi-byte UTF-8: validate on a NUL-terminated copy (the data need not be). */
    unsigned char tmp[5] = {0};
    for (size_t k = 0; k < 4 && p->i + k < p->len; k++) tmp[k] = (unsigned char)p->s[p->i + k];
    size_t n = pc_utf8_seq_len(tmp);
    if (n == 0) {
      st = pc_jp_fail(p, p->i, "invalid UTF-8 byte 0x%02X in a string", c);
      break;
    }
    if (pc_buf_putn(&b, p->s + p->i, n)) {
      st = PERFCHECK_ERROR_OUT_OF_MEMORY;
      break;
    }
    p->i += n;
  }
  if (st != PERFCHECK_OK) {
    pc_buf_free(&b);
    return st;
  }
  *out = pc_buf_take(&b); /* never NULL here: no memory ran out */
  return PERFCHECK_OK;
}

static int pc_isdigit(char c) { return c >= '0' && c <= '9'; }

static perfcheck_status pc_jp_number(pc_jp *p, double *out) {
  size_t start = p->i, i = p->i;
  if (i < p->len && p->s[i] == '-') i++;
  if (i < p->len && p->s[i] == '0') {
    i++;
  } else if (i < p->len && p->s[i] >= '1' && p->s[i] <= '9') {
    while (i < p->len && pc_isdigit(p->s[i])) i++;
  } else {
    return pc_jp_fail(p, i, "invalid number (expected a digit)");
  }
  if (i < p->len && p->s[i] == '.') {
    i++;
    if (i >= p->len || !pc_isdigit(p->s[i])) return pc_jp_fail(p, i, "invalid number (expected a digit after '.')");
    while (i < p->len && pc_isdigit(p->s[i])) i++;
  }
  if (i < p->len && (p->s[i] == 'e' || p->s[i] == 'E')) {
    i++;
    if (i < p->len && (p->s[i] == '+' || p->s[i] == '-')) i++;
    if (i >= p->len || !pc_isdigit(p->s[i])) return pc_jp_fail(p, i, "invalid number (expected an exponent)");
    while (i < p->len && pc_isdigit(p->s[i])) i++;
  }
  char buf[128];
  if (i - start >= sizeof buf) return pc_jp_fail(p, start, "number too long (%zu characters)", i - start);
  memcpy(buf, p->s + start, i - start);
  buf[i - start] = '\0';
  errno = 0;
  double v = strtod(buf, NULL); /* the caller holds the C locale */
  if (!isfinite(v)) return pc_jp_fail(p, start, "number %s is out of range", buf);
  const char *exp = strpbrk(buf, "eE"), *nonzero = strpbrk(buf, "123456789");
  if (errno == ERANGE && fabs(v) < DBL_MIN && nonzero && (!exp || nonzero < exp)) /* 1e-400 is not 0 */
    return pc_jp_fail(p, start, "number %s is out of range (it would read as 0)", buf);
  *out = v;
  p->i = i;
  return PERFCHECK_OK;
}

static int pc_key_cmp(const void *a, const void *b) {
  return strcmp(**(char *const *const *)a, **(char *const *const *)b);
}

static perfcheck_status pc_jp_value(pc_jp *p, pc_json *v, int depth);

/* Members are appended only once complete, so pc_json_free always sees a
 * consistent tree. */
static perfcheck_status pc_jp_container(pc_jp *p, pc_json *v, int depth) {
  int obj = p->s[p->i] == '{';
  char close = obj ? '}' : ']';
  size_t cap = 0;
  v->type = obj ? PC_JSON_OBJECT : PC_JSON_ARRAY;
  if (depth >= PC_JSON_MAX_DEPTH) return pc_jp_fail(p, p->i, "nested deeper than %d levels", PC_JSON_MAX_DEPTH);
  p->i++;
  pc_jp_ws(p);
  if (p->i < p->len && p->s[p->i] == close) {
    p->i++;
    return PERFCHECK_OK;
  }
  for (;;) {
    char *key = NULL;
    char sh[8];
    pc_jp_ws(p);
    if (obj) {
      if (p->i >= p->len || p->s[p->i] != '"')
        return pc_jp_fail(p, p->i, "expected a string key, found %s", pc_jp_show(p, p->i, sh));
      perfcheck_status st = pc_jp_string(p, &key);
      if (st != PERFCHECK_OK) return st;
      pc_jp_ws(p);
      if (p->i >= p->len || p->s[p->i] != ':') {
        free(key);
        return pc_jp_fail(p, p->i, "expected ':' after the key, found %s", pc_jp_show(p, p->i, sh));
      }
      p->i++;
    }
    if (v->n == cap) {
      size_t nc = cap ? cap * 2 : 8;
      pc_json *items = realloc(v->items, nc * sizeof *items);
      if (!items) {
        free(key);
        return PERFCHECK_ERROR_OUT_OF_MEMORY;
      }
      v->items = items;
      if (obj) {
        char **keys = realloc(v->keys, nc * sizeof *keys);
        if (!keys) {
          free(key);
          return PERFCHECK_ERROR_OUT_OF_MEMORY;
        }
        v->keys = keys;
      }
      cap = nc;
    }
    pc_json item;
    memset(&item, 0, sizeof item);
    perfcheck_status st = pc_jp_value(p, &item, depth + 1);
    if (st != PERFCHECK_OK) {
      pc_json_free(&item);
      free(key);
      return st;
    }
    v->items[v->n] = item;
    if (obj) v->keys[v->n] = key;
    v->n++;
    pc_jp_ws(p);
    if (p->i < p->len && p->s[p->i] == ',') {
      p->i++;
      continue;
    }
    if (p->i < p->len && p->s[p->i] == close) {
      p->i++;
      break;
    }
    return pc_jp_fail(p, p->i, "expected ',' or '%c', found %s", close, pc_jp_show(p, p->i, sh));
  }
  if (obj && v->n > 1) { /* duplicate keys: sort pointers to the keys, compare neighbours */
    char ***sorted = malloc(v->n * sizeof *sorted);
    if (!sorted) return PERFCHECK_ERROR_OUT_OF_MEMORY;
    for (size_t k = 0; k < v->n; k++) sorted[k] = &v->keys[k];
    qsort(sorted, v->n, sizeof *sorted, pc_key_cmp);
    for (size_t k = 1; k < v->n; k++) {
      if (strcmp(*sorted[k - 1], *sorted[k]) == 0) {
        size_t a = (size_t)(sorted[k - 1] - v->keys), b = (size_t)(sorted[k] - v->keys);
        size_t at = v->items[a > b ? a : b].offset; /* the second occurrence */
        char dup[96];
        snprintf(dup, sizeof dup, "%s", *sorted[k]);
        free(sorted);
        return pc_jp_fail(p, at, "duplicate key \"%s\"", dup);
      }
    }
    free(sorted);
  }
  return PERFCHECK_OK;
}

static perfcheck_status pc_jp_value(pc_jp *p, pc_json *v, int depth) {
  pc_jp_ws(p);
  v->offset = p->i;
  if (p->i >= p->len) return pc_jp_fail(p, p->i, "unexpected end of input (expected a value)");
  char c = p->s[p->i];
  switch (c) {
    case '{':
    case '[':
      return pc_jp_container(p, v, depth);
    case '"':
      v->type = PC_JSON_STRING;
      return pc_jp_string(p, &v->string);
    case 't':
    case 'f':
    case 'n': {
      static const struct {
        const char *word;
        pc_json_type type;
      } lits[] = {{"true", PC_JSON_TRUE}, {"false", PC_JSON_FALSE}, {"null", PC_JSON_NULL}};
      for (size_t k = 0; k < 3; k++) {
        size_t n = strlen(lits[k].word);
        if (lits[k].word[0] == c && p->len - p->i >= n && memcmp(p->s + p->i, lits[k].word, n) == 0) {
          v->type = lits[k].type;
          p->i += n;
          return PERFCHECK_OK;
        }
      }
      return pc_jp_fail(p, p->i, "invalid literal (expected true, false or null)");
    }
    default:
      if (c == '-' || pc_isdigit(c)) {
        v->type = PC_JSON_NUMBER;
        return pc_jp_number(p, &v->number);
      }
      {
        char sh[8];
        return pc_jp_fail(p, p->i, "unexpected %s (expected a value)", pc_jp_show(p, p->i, sh));
      }
  }
}

/* One value in p->s[0..len), at depth p->depth0 (the caller holds the C
 * locale). */
static perfcheck_status pc_jp_document(pc_jp *p, pc_json *out) {
  memset(out, 0, sizeof *out);
  perfcheck_status st = pc_jp_value(p, out, p->depth0);
  if (st == PERFCHECK_OK) {
    pc_jp_ws(p);
    if (p->i < p->len) st = pc_jp_fail(p, p->i, "unexpected text after the JSON value");
  }
  if (st == PERFCHECK_ERROR_OUT_OF_MEMORY) pc_err_set(p->err, st, "%s: out of memory", p->name ? p->name : "<json>");
  if (st != PERFCHECK_OK) pc_json_free(out);
  return st;
}

perfcheck_status pc_json_parse(const char *data, size_t len, const char *name, pc_json *out, pc_err *err) {
  pc_err_clear(err);
  if (!data || !out) return PERFCHECK_ERROR_INVALID_ARGUMENT;
  memset(out, 0, sizeof *out);
  pc_jp p = {data, len, 0, name, err, 0, 0, 0};
  if (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0) p.i = 3; /* a UTF-8 byte order mark */
  pc_locale_guard lg;
  pc_locale_begin(&lg);
  perfcheck_status st = pc_jp_value(&p, out, 0);
  pc_locale_end(&lg);
  if (st == PERFCHECK_OK) {
    pc_jp_ws(&p);
    if (p.i < p.len) st = pc_jp_fail(&p, p.i, "unexpected text after the JSON value");
  }
  if (st == PERFCHECK_ERROR_OUT_OF_MEMORY) pc_err_set(err, st, "%s: out of memory", name ? name : "<json>");
  if (st != PERFCHECK_OK) pc_json_free(out);
  return st;
}

const pc_json *pc_json_get(const pc_json *v, const char *key) {
  if (!v || v->type != PC_JSON_OBJECT) return NULL;
  for (size_t i = 0; i < v->n; i++)
    if (strcmp(v->keys[i], key) == 0) return &v->items[i];
  return NULL;
}

/* ---- the number fields of pc_device and pc_attributes (pc_json.h) ---------- */

const pc_json_field pc_json_device_ints[] = {
    {"sm_count", offsetof(pc_device, sm_count)},
    {"warp_size", offsetof(pc_device, warp_size)},
    {"max_threads_per_sm", offsetof(pc_device, max_threads_per_sm)},
    {"max_threads_per_block", offsetof(pc_device, max_threads_per_block)},
    {"max_blocks_per_sm", offsetof(pc_device, max_blocks_per_sm)},
    {"max_registers_per_sm", offsetof(pc_device, max_regs_per_sm)},
    {"max_registers_per_block", offsetof(pc_device, max_regs_per_block)},
    {"max_shared_memory_per_sm", offsetof(pc_device, max_smem_per_sm)},
    {"max_shared_memory_per_block", offsetof(pc_device, max_smem_per_block)},
    {"max_shared_memory_per_block_optin", offsetof(pc_device, max_smem_per_block_optin)},
    {"reserved_shared_memory_per_block", offsetof(pc_device, reserved_smem_per_block)},
    {"register_allocation_unit", offsetof(pc_device, reg_alloc_unit)},
    {"warp_allocation_granularity", offsetof(pc_device, warp_alloc_granularity)},
    {"shared_memory_allocation_unit", offsetof(pc_device, smem_alloc_unit)},
};
const size_t pc_json_ndevice_ints = sizeof pc_json_device_ints / sizeof pc_json_device_ints[0];

const pc_json_field pc_json_device_doubles[] = {
    {"peak_dram_bytes_per_s", offsetof(pc_device, peak_dram_bytes_per_s)},
    {"peak_fp32_flop_per_s", offsetof(pc_device, peak_fp32_flop_per_s)},
    {"ridge_flop_per_byte", offsetof(pc_device, ridge_flop_per_byte)},
};
const size_t pc_json_ndevice_doubles = sizeof pc_json_device_doubles / sizeof pc_json_device_doubles[0];

/* pc_json_attributes: in pc_values.c, the vocabulary's tables. */

/* ---- perfcheck-report/2 (and /1) -> pc_report ------------------------------------- */

typedef struct pc_jm {
  pc_jp *p; /* for positions and the error buffer: the piece being mapped */
  int quiet;
  pc_report *r;
  int schema_ok, schema_v1, kernels_seen;
} pc_jm;

static perfcheck_status pc_jm_element(pc_jm *m, char array, const pc_json *v, size_t index);

#define PC_TRY(x)                              \
  do {                                         \
    perfcheck_status st_ = (x);                \
    if (st_ != PERFCHECK_OK) return st_;       \
  } while (0)

static perfcheck_status pc_jm_type(pc_jm *m, const pc_json *v, const char *key, const char *want) {
  return pc_jp_fail(m->p, v->offset, "\"%s\": expected %s", key, want);
}

/* Missing keys leave *out as it is (the report's "unknown"); null is NaN. */
static perfcheck_status pc_jm_num(pc_jm *m, const pc_json *obj, const char *key, double *out) {
  const pc_json *v = pc_json_get(obj, key);
  if (!v) return PERFCHECK_OK;
  if (v->type == PC_JSON_NULL) {
    *out = PC_NULL;
    return PERFCHECK_OK;
  }
  if (v->type != PC_JSON_NUMBER) return pc_jm_type(m, v, key, "a number or null");
  *out = v->number;
  return PERFCHECK_OK;
}

/* An integer in [lo, hi]; null gives null_value. */
static perfcheck_status pc_jm_intrange(pc_jm *m, const pc_json *obj, const char *key, double lo, double hi,
                                       double null_value, double *out) {
  const pc_json *v = pc_json_get(obj, key);
  if (!v) return PERFCHECK_OK;
  if (v->type == PC_JSON_NULL) {
    *out = null_value;
    return PERFCHECK_OK;
  }
  if (v->type != PC_JSON_NUMBER || v->number != floor(v->number) || v->number < lo || v->number > hi)
    return pc_jm_type(m, v, key, "an integer in range");
  *out = v->number;
  return PERFCHECK_OK;
}

static perfcheck_status pc_jm_int(pc_jm *m, const pc_json *obj, const char *key, int null_value, int *out) {
  double d = *out;
  PC_TRY(pc_jm_intrange(m, obj, key, -2147483648.0, 2147483647.0, null_value, &d));
  *out = (int)d;
  return PERFCHECK_OK;
}

static perfcheck_status pc_jm_u64(pc_jm *m, const pc_json *obj, const char *key, uint64_t *out) {
  double d = (double)*out;
  PC_TRY(pc_jm_intrange(m, obj, key, 0.0, 18446744073709549568.0, 0.0, &d));
  *out = (uint64_t)d;
  return PERFCHECK_OK;
}

/* A new copy of a string member; null (or missing) gives NULL. */
static perfcheck_status pc_jm_strdup(pc_jm *m, const pc_json *obj, const char *key, char **out) {
  const pc_json *v = pc_json_get(obj, key);
  if (!v || v->type == PC_JSON_NULL) return PERFCHECK_OK;
  if (v->type != PC_JSON_STRING) return pc_jm_type(m, v, key, "a string or null");
  free(*out);
  *out = pc_strdup(v->string);
  return *out ? PERFCHECK_OK : PERFCHECK_ERROR_OUT_OF_MEMORY;
}

/* Into a fixed buffer (cut to fit); null gives "". */
static perfcheck_status pc_jm_strbuf(pc_jm *m, const pc_json *obj, const char *key, char *buf, size_t len) { /* one-channel-ok: the string read is its result */
  const pc_json *v = pc_json_get(obj, key);
  if (!v) return PERFCHECK_OK;
  if (v->type == PC_JSON_NULL) {
    buf[0] = '\0';
    return PERFCHECK_OK;
  }
  if (v->type != PC_JSON_STRING) return pc_jm_type(m, v, key, "a string or null");
  size_t n = strlen(v->string);
  if (n >= len) {
    n = len - 1;
    while (n > 0 && ((unsigned char)v->string[n] & 0xC0) == 0x80) n--; /* keep UTF-8 whole */
  }
  memcpy(buf, v->string, n);
  buf[n] = '\0';
  return PERFCHECK_OK;
}

static perfcheck_status pc_jm_dim3(pc_jm *m, const pc_json *obj, const char *key, unsigned out[3]) {
  const pc_json *v = pc_json_get(obj, key);
  if (!v) return PERFCHECK_OK;
  if (v->type != PC_JSON_ARRAY || v->n != 3) return pc_jm_type(m, v, key, "an array of three integers");
  for (size_t i = 0; i < 3; i++) {
    const pc_json *x = &v->items[i];
    if (x->type != PC_JSON_NUMBER || x->number != floor(x->number) || x->number < 0 || x->number > 4294967295.0)
      return pc_jm_type(m, x, key, "an array of three integers");
    out[i] = (unsigned)x->number;
  }
  return PERFCHECK_OK;
}

static const pc_json *pc_jm_object(pc_jm *m, const pc_json *obj, const char *key, perfcheck_status *st) {
  const pc_json *v = pc_json_get(obj, key);
  *st = PERFCHECK_OK;
  if (!v || v->type == PC_JSON_NULL) return NULL;
  if (v->type != PC_JSON_OBJECT) {
    *st = pc_jm_type(m, v, key, "an object");
    return NULL;
  }
  return v;
}

static const pc_json *pc_jm_array(pc_jm *m, const pc_json *obj, const char *key, perfcheck_status *st) {
  const pc_json *v = pc_json_get(obj, key);
  *st = PERFCHECK_OK;
  if (!v || v->type == PC_JSON_NULL) return NULL;
  if (v->type != PC_JSON_ARRAY) {
    *st = pc_jm_type(m, v, key, "an array");
    return NULL;
  }
  return v;
}

typedef pc_json_field pc_jfield;

static perfcheck_status pc_jm_doubles(pc_jm *m, const pc_json *obj, void *base, const pc_jfield *f, size_t n) {
  for (size_t i = 0; i < n; i++) PC_TRY(pc_jm_num(m, obj, f[i].key, (double *)((char *)base + f[i].offset)));
  return PERFCHECK_OK;
}

/* The invariants of a report's numbers: times, counts, sizes,
 * shares and rates are never below 0, and min <= median <= max.  A value
 * outside them is refused with the path to it ("kernels[3].total_ns"), so
 * that no reader, merge or diff works with it (a negative total made diff
 * say "same").  null and missing keys are fine. */
static perfcheck_status pc_jm_nonneg(pc_jm *m, const pc_json *obj, const char *where, const char *key) {
  const pc_json *v = pc_json_get(obj, key);
  if (v && v->type == PC_JSON_NUMBER && v->number < 0)
    return pc_jp_fail(m->p, v->offset, "%s.%s: %.17g is below 0 (a time, count, size or share never is)", where, key,
                      v->number);
  return PERFCHECK_OK;
}

/* Every number member of obj (an object of such values: attributes, the
 * device's limits and ceilings). */
static perfcheck_status pc_jm_nonneg_all(pc_jm *m, const pc_json *obj, const char *where) {
  for (size_t i = 0; obj && obj->type == PC_JSON_OBJECT && i < obj->n; i++)
    if (obj->items[i].type == PC_JSON_NUMBER) PC_TRY(pc_jm_nonneg(m, obj, where, obj->keys[i]));
  return PERFCHECK_OK;
}

static perfcheck_status pc_jm_finding(pc_jm *m, const pc_json *obj, pc_finding *f) {
  char word[64] = "";
  PC_TRY(pc_jm_int(m, obj, "step", 0, &f->step));
  if (f->step < 0 || f->step > 5) return pc_jm_type(m, pc_json_get(obj, "step"), "step", "a step from 0 to 5");
  const pc_json *c = pc_json_get(obj, "cause");
  if (c) {
    PC_TRY(pc_jm_strbuf(m, obj, "cause", word, sizeof word));
    int found = -1;
    for (int k = 0; k < PERFCHECK_CAUSE_LIMIT_; k++)
      if (strcmp(perfcheck_cause_name((perfcheck_cause)k), word) == 0) found = k;
    if (found < 0) return pc_jp_fail(m->p, c->offset, "\"cause\": unknown cause word \"%s\"", word);
    f->cause = (perfcheck_cause)found;
  }
  PC_TRY(pc_jm_strbuf(m, obj, "metric", f->metric, sizeof f->metric));
  PC_TRY(pc_jm_num(m, obj, "value", &f->value));
  PC_TRY(pc_jm_num(m, obj, "threshold", &f->threshold));
  PC_TRY(pc_jm_strbuf(m, obj, "advice", f->advice, sizeof f->advice));
  return PERFCHECK_OK;
}

static perfcheck_status pc_jm_diagnosis(pc_jm *m, const pc_json *parent, pc_diagnosis *d) {
  perfcheck_status st;
  const pc_json *obj = pc_jm_object(m, parent, "diagnosis", &st);
  if (!obj) return st;
  PC_TRY(pc_jm_finding(m, obj, &d->verdict));
  const pc_json *b = pc_json_get(obj, "bound");
  if (b) {
    char word[32] = "";
    PC_TRY(pc_jm_strbuf(m, obj, "bound", word, sizeof word));
    int found = -1;
    for (int k = PERFCHECK_BOUND_UNKNOWN; k <= PERFCHECK_BOUND_LATENCY; k++)
      if (strcmp(perfcheck_bound_name((perfcheck_bound)k), word) == 0) found = k;
    if (found < 0) return pc_jp_fail(m->p, b->offset, "\"bound\": unknown bound word \"%s\"", word);
    d->bound = (perfcheck_bound)found;
  }
  const pc_json *bl = pc_json_get(obj, "borderline");
  if (bl && bl->type != PC_JSON_NULL) {
    if (bl->type != PC_JSON_TRUE && bl->type != PC_JSON_FALSE) return pc_jm_type(m, bl, "borderline", "true or false");
    d->borderline = bl->type == PC_JSON_TRUE;
  }
  const pc_json *ru = pc_json_get(obj, "runner_up");
  if (ru && ru->type != PC_JSON_NULL) {
    if (ru->type != PC_JSON_STRING) return pc_jm_type(m, ru, "runner_up", "a cause word or null");
    int found = -1;
    for (int k = 0; k < PERFCHECK_CAUSE_LIMIT_; k++)
      if (strcmp(perfcheck_cause_name((perfcheck_cause)k), ru->string) == 0) found = k;
    if (found < 0) return pc_jp_fail(m->p, ru->offset, "\"runner_up\": unknown cause word \"%s\"", ru->string);
    d->runner_up = (perfcheck_cause)found;
  }
  PC_TRY(pc_jm_strbuf(m, obj, "runner_up_metric", d->runner_up_metric, sizeof d->runner_up_metric));
  PC_TRY(pc_jm_num(m, obj, "runner_up_value", &d->runner_up_value));
  PC_TRY(pc_jm_num(m, obj, "runner_up_threshold", &d->runner_up_threshold));
  PC_TRY(pc_jm_strbuf(m, obj, "library_advice", d->library_advice, sizeof d->library_advice));
  const pc_json *eg = pc_jm_object(m, obj, "estimated_gain", &st);
  PC_TRY(st);
  if (eg) {
    PC_TRY(pc_jm_num(m, eg, "speedup", &d->gain.speedup));
    PC_TRY(pc_jm_num(m, eg, "saved_ns", &d->gain.saved_ns));
    PC_TRY(pc_jm_strbuf(m, eg, "basis", d->gain.basis, sizeof d->gain.basis));
    if (pc_has(d->gain.speedup) && d->gain.speedup < 1.0)
      return pc_jm_type(m, pc_json_get(eg, "speedup"), "estimated_gain.speedup", "a speedup of 1 or more, or null");
  }
  const pc_json *sv = pc_jm_object(m, obj, "stall", &st);
  PC_TRY(st);
  if (sv) {
    char word[48] = "", second[48] = "";
    PC_TRY(pc_jm_strbuf(m, sv, "reason", word, sizeof word));
    PC_TRY(pc_jm_strbuf(m, sv, "second", second, sizeof second));
    d->stall.reason = pc_stall_reason_canonical(word, &d->stall.metric);
    if (word[0] && !d->stall.reason)
      return pc_jp_fail(m->p, sv->offset, "\"stall\": unknown stall reason \"%s\"", word);
    d->stall.second = pc_stall_reason_canonical(second, NULL);
    PC_TRY(pc_jm_num(m, sv, "per_issue", &d->stall.per_issue));
    PC_TRY(pc_jm_num(m, sv, "share", &d->stall.share));
    PC_TRY(pc_jm_num(m, sv, "second_share", &d->stall.second_share));
    PC_TRY(pc_jm_int(m, sv, "reasons_measured", 0, &d->stall.reasons_measured));
  }
  const pc_json *fs = pc_jm_array(m, obj, "findings", &st);
  if (st != PERFCHECK_OK) return st;
  if (!fs) return PERFCHECK_OK;
  for (size_t i = 0; i < fs->n; i++) {
    if (fs->items[i].type != PC_JSON_OBJECT) return pc_jm_type(m, &fs->items[i], "findings", "an array of objects");
    if (d->nfindings == PC_MAX_FINDINGS) {
      pc_report_warn(m->r, m->quiet, "%s: %zu findings of one diagnosis; the first %d are kept",
                     m->p->name ? m->p->name : "<json>", fs->n, PC_MAX_FINDINGS);
      break;
    }
    pc_finding *f = &d->findings[d->nfindings++];
    memset(f, 0, sizeof *f);
    f->value = f->threshold = PC_NULL;
    PC_TRY(pc_jm_finding(m, &fs->items[i], f));
  }
  return PERFCHECK_OK;
}

static perfcheck_status pc_jm_device(pc_jm *m, const pc_json *root) {
  perfcheck_status st;
  const pc_json *d = pc_jm_object(m, root, "device", &st);
  if (!d) return st;
  pc_device *dev = &m->r->device;
  PC_TRY(pc_jm_strbuf(m, d, "name", dev->name, sizeof dev->name));
  const pc_json *cc = pc_json_get(d, "compute_capability");
  if (cc && cc->type != PC_JSON_NULL) {
    int maj, min, used = 0;
    if (cc->type != PC_JSON_STRING || sscanf(cc->string, "%d.%d%n", &maj, &min, &used) != 2 ||
        cc->string[used] != '\0' || maj < 0 || min < 0)
      return pc_jm_type(m, cc, "compute_capability", "a string \"MAJOR.MINOR\" or null");
    dev->cc_major = maj;
    dev->cc_minor = min;
  }
  PC_TRY(pc_jm_nonneg_all(m, d, "device")); /* its limits and ceilings; null when unknown */
  for (size_t i = 0; i < pc_json_ndevice_ints; i++)
    PC_TRY(pc_jm_int(m, d, pc_json_device_ints[i].key, -1, (int *)((char *)dev + pc_json_device_ints[i].offset)));
  PC_TRY(pc_jm_doubles(m, d, dev, pc_json_device_doubles, pc_json_ndevice_doubles));
  PC_TRY(pc_jm_strbuf(m, d, "ceilings_source", dev->ceilings_source, sizeof dev->ceilings_source));
  return PERFCHECK_OK;
}

/* tool.cupti and tool.demangler (in-process reports; null offline). */
static perfcheck_status pc_jm_tool(pc_jm *m, const pc_json *root) {
  perfcheck_status st;
  const pc_json *t = pc_jm_object(m, root, "tool", &st);
  if (!t) return st;
  pc_report *r = m->r;
  PC_TRY(pc_jm_strbuf(m, t, "demangler", r->demangler, sizeof r->demangler));
  const pc_json *c = pc_jm_object(m, t, "cupti", &st);
  PC_TRY(st);
  if (!c) return PERFCHECK_OK;
  r->cupti_known = 1;
  PC_TRY(pc_jm_strbuf(m, c, "path", r->cupti_path, sizeof r->cupti_path));
  double v = 0;
  PC_TRY(pc_jm_intrange(m, c, "version", 0, 4294967295.0, 0, &v));
  r->cupti_version = (unsigned)v;
  const pc_json *p = pc_json_get(c, "preloaded");
  if (p && p->type != PC_JSON_NULL && p->type != PC_JSON_TRUE && p->type != PC_JSON_FALSE)
    return pc_jm_type(m, p, "preloaded", "true, false or null");
  r->cupti_preloaded = (!p || p->type == PC_JSON_NULL) ? -1 : p->type == PC_JSON_TRUE;
  return PERFCHECK_OK;
}

static perfcheck_status pc_jm_region(pc_jm *m, const pc_json *o, size_t index) {
  if (o->type != PC_JSON_OBJECT) return pc_jm_type(m, o, "regions", "an array of objects");
  char where[48];
  snprintf(where, sizeof where, "regions[%zu]", index);
  pc_region *g = pc_report_add_region(m->r);
  if (!g) return PERFCHECK_ERROR_OUT_OF_MEMORY;
  PC_TRY(pc_jm_strdup(m, o, "name", &g->name));
  if (!g->name) return pc_jp_fail(m->p, o->offset, "a region without a \"name\"");
  PC_TRY(pc_jm_strdup(m, o, "parent", &g->parent));
  PC_TRY(pc_jm_int(m, o, "depth", 0, &g->depth));
  static const pc_jfield f[] = {
      {"wall_ns", offsetof(pc_region, wall_ns)},
      {"kernel_ns", offsetof(pc_region, kernel_ns)},
      {"kernel_sum_ns", offsetof(pc_region, kernel_sum_ns)},
      {"memcpy_ns", offsetof(pc_region, memcpy_ns)},
      {"memset_ns", offsetof(pc_region, memset_ns)},
      {"gpu_idle_ns", offsetof(pc_region, gpu_idle_ns)},
      {"kernel_span_ns", offsetof(pc_region, kernel_span_ns)},
      {"median_kernel_ns", offsetof(pc_region, median_kernel_ns)},
      {"short_kernel_ns", offsetof(pc_region, short_kernel_ns)},
      {"profiling_ns", offsetof(pc_region, profiling_ns)},
      {"kernel_share", offsetof(pc_region, kernel_share)},
      {"communication_ns", offsetof(pc_region, communication_ns)},
      {"compute_ns", offsetof(pc_region, compute_ns)},
      {"communication_share", offsetof(pc_region, communication_share)},
  };
  PC_TRY(pc_jm_doubles(m, o, g, f, sizeof f / sizeof f[0]));
  for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) PC_TRY(pc_jm_nonneg(m, o, where, f[i].key));
  PC_TRY(pc_jm_u64(m, o, "launches", &g->launches));
  PC_TRY(pc_jm_u64(m, o, "dropped_records", &g->dropped_records));
  PC_TRY(pc_jm_int(m, o, "rank", -1, &g->rank));
  if (g->rank < -1) return pc_jm_type(m, pc_json_get(o, "rank"), "rank", "a rank (0 or more) or null");
  perfcheck_status st;
  const pc_json *devs = pc_jm_array(m, o, "devices", &st);
  PC_TRY(st);
  if (devs && devs->n) {
    if (!(g->devices = calloc(devs->n, sizeof *g->devices))) return PERFCHECK_ERROR_OUT_OF_MEMORY;
    for (size_t i = 0; i < devs->n; i++) {
      const pc_json *d = &devs->items[i];
      if (d->type != PC_JSON_OBJECT) return pc_jm_type(m, d, "devices", "an array of objects");
      pc_region_device *e = &g->devices[g->ndevices++];
      e->ordinal = -1;
      e->kernel_ns = e->kernel_sum_ns = e->gpu_idle_ns = e->median_kernel_ns = e->short_kernel_ns = PC_NULL;
      e->kernel_share = PC_NULL;
      e->diag.verdict.value = e->diag.verdict.threshold = PC_NULL;
      e->diag.bound = PERFCHECK_BOUND_UNKNOWN;
      PC_TRY(pc_jm_int(m, d, "ordinal", -1, &e->ordinal));
      if (e->ordinal < -1) return pc_jm_type(m, pc_json_get(d, "ordinal"), "ordinal", "a CUDA ordinal or null");
      PC_TRY(pc_jm_strbuf(m, d, "pci_bus_id", e->pci_bus_id, sizeof e->pci_bus_id));
      static const pc_jfield df[] = {
          {"kernel_ns", offsetof(pc_region_device, kernel_ns)},
          {"kernel_sum_ns", offsetof(pc_region_device, kernel_sum_ns)},
          {"gpu_idle_ns", offsetof(pc_region_device, gpu_idle_ns)},
          {"median_kernel_ns", offsetof(pc_region_device, median_kernel_ns)},
          {"short_kernel_ns", offsetof(pc_region_device, short_kernel_ns)},
          {"kernel_share", offsetof(pc_region_device, kernel_share)},
      };
      PC_TRY(pc_jm_doubles(m, d, e, df, sizeof df / sizeof df[0]));
      char dwhere[80];
      snprintf(dwhere, sizeof dwhere, "%s.devices[%zu]", where, i);
      for (size_t j = 0; j < sizeof df / sizeof df[0]; j++) PC_TRY(pc_jm_nonneg(m, d, dwhere, df[j].key));
      PC_TRY(pc_jm_u64(m, d, "launches", &e->launches));
      PC_TRY(pc_jm_diagnosis(m, d, &e->diag));
    }
  }
  return pc_jm_diagnosis(m, o, &g->diag);
}

static perfcheck_status pc_jm_extra(pc_kernel *k, const char *name, double v) {
  char **names = realloc(k->extra_names, (k->nextra + 1) * sizeof *names);
  if (!names) return PERFCHECK_ERROR_OUT_OF_MEMORY;
  k->extra_names = names;
  double *values = realloc(k->extra_values, (k->nextra + 1) * sizeof *values);
  if (!values) return PERFCHECK_ERROR_OUT_OF_MEMORY;
  k->extra_values = values;
  names[k->nextra] = pc_strdup(name);
  if (!names[k->nextra]) return PERFCHECK_ERROR_OUT_OF_MEMORY;
  values[k->nextra] = v;
  k->nextra++;
  return PERFCHECK_OK;
}

/* A busiest unit {"name", "pct", "metric"}: the metric must be one step 2
 * knows (pc_unit_lookup), whose static strings the kernel then points to. */
static perfcheck_status pc_jm_unit(pc_jm *m, const pc_json *obj, const char *key, pc_unit_load *out) {
  out->name = out->metric = NULL;
  out->pct = PC_NULL;
  const pc_json *v = pc_json_get(obj, key);
  if (!v || v->type == PC_JSON_NULL) return PERFCHECK_OK;
  if (v->type != PC_JSON_OBJECT) return pc_jm_type(m, v, key, "an object or null");
  const pc_json *metric = pc_json_get(v, "metric");
  if (!metric || metric->type == PC_JSON_NULL) return PERFCHECK_OK;
  if (metric->type != PC_JSON_STRING) return pc_jm_type(m, metric, "metric", "a string");
  const pc_unit_def *u = pc_unit_lookup(metric->string);
  if (!u) return PERFCHECK_OK; /* a unit of a newer writer: not ours to judge, left unknown */
  out->name = u->name;
  out->metric = u->metric;
  return pc_jm_num(m, v, "pct", &out->pct);
}

static perfcheck_status pc_jm_kernel(pc_jm *m, const pc_json *o, size_t index) {
  perfcheck_status st;
  if (o->type != PC_JSON_OBJECT) return pc_jm_type(m, o, "kernels", "an array of objects");
  char where[48], sub[80];
  snprintf(where, sizeof where, "kernels[%zu]", index);
  pc_kernel *k = pc_report_add_kernel(m->r);
  if (!k) return PERFCHECK_ERROR_OUT_OF_MEMORY;
  PC_TRY(pc_jm_strdup(m, o, "name", &k->name));
  if (!k->name) return pc_jp_fail(m->p, o->offset, "a kernel without a \"name\"");
  PC_TRY(pc_jm_strdup(m, o, "mangled", &k->mangled));
  PC_TRY(pc_jm_strdup(m, o, "demangled", &k->demangled));
  PC_TRY(pc_jm_strdup(m, o, "display_name", &k->display_name));
  if (!k->display_name && !(k->display_name = pc_kernel_display_name(k->demangled ? k->demangled : k->name,
                                                                       PC_DISPLAY_NAME_MAX)))
    return PERFCHECK_ERROR_OUT_OF_MEMORY;
  PC_TRY(pc_jm_strdup(m, o, "region", &k->region));
  PC_TRY(pc_jm_int(m, o, "device_ordinal", -1, &k->device_ordinal));
  if (k->device_ordinal < -1) return pc_jm_type(m, pc_json_get(o, "device_ordinal"), "device_ordinal", "a CUDA ordinal or null");
  PC_TRY(pc_jm_strbuf(m, o, "pci_bus_id", k->pci_bus_id, sizeof k->pci_bus_id));
  PC_TRY(pc_jm_dim3(m, o, "grid", k->grid));
  PC_TRY(pc_jm_dim3(m, o, "block", k->block));
  PC_TRY(pc_jm_num(m, o, "dynamic_smem_bytes", &k->dynamic_smem));
  PC_TRY(pc_jm_nonneg(m, o, where, "dynamic_smem_bytes"));
  PC_TRY(pc_jm_u64(m, o, "launches", &k->launches));
  PC_TRY(pc_jm_u64(m, o, "profiled_launches", &k->profiled_launches));
  if (k->profiled_launches > k->launches)
    return pc_jp_fail(m->p, pc_json_get(o, "profiled_launches")->offset,
                      "%s.profiled_launches: %llu is more than its launches (%llu)", where,
                      (unsigned long long)k->profiled_launches, (unsigned long long)k->launches);
  const pc_json *dur = pc_jm_object(m, o, "duration_ns", &st);
  PC_TRY(st);
  if (dur) {
    snprintf(sub, sizeof sub, "%s.duration_ns", where);
    PC_TRY(pc_jm_num(m, dur, "min", &k->dur_min_ns));
    PC_TRY(pc_jm_num(m, dur, "median", &k->dur_median_ns));
    PC_TRY(pc_jm_num(m, dur, "max", &k->dur_max_ns));
    static const char *const order[3] = {"min", "median", "max"};
    const double v[3] = {k->dur_min_ns, k->dur_median_ns, k->dur_max_ns};
    for (int i = 0; i < 3; i++) PC_TRY(pc_jm_nonneg(m, dur, sub, order[i]));
    for (int i = 0; i < 3; i++)
      for (int j = i + 1; j < 3; j++)
        if (pc_has(v[i]) && pc_has(v[j]) && v[i] > v[j])
          return pc_jp_fail(m->p, pc_json_get(dur, order[j])->offset, "%s.%s: %.17g is below %s.%s (%.17g)", sub,
                            order[j], v[j], sub, order[i], v[i]);
  }
  PC_TRY(pc_jm_doubles(m, o, k, pc_kernel_fields, pc_nkernel_fields)); /* total_ns, kernel_time_share, ... */
  PC_TRY(pc_jm_int(m, o, "rank", 0, &k->rank));
  if (k->rank < 0) return pc_jm_type(m, pc_json_get(o, "rank"), "rank", "a rank (1 or more) or null");
  const pc_json *wc = pc_json_get(o, "worth_changing");
  k->worth_changing = -1;
  if (wc && wc->type != PC_JSON_NULL) {
    if (wc->type != PC_JSON_TRUE && wc->type != PC_JSON_FALSE)
      return pc_jm_type(m, wc, "worth_changing", "true, false or null");
    k->worth_changing = wc->type == PC_JSON_TRUE;
  }
  PC_TRY(pc_jm_strbuf(m, o, "library", k->library, sizeof k->library));
  PC_TRY(pc_jm_nonneg(m, o, where, "total_ns"));
  PC_TRY(pc_jm_nonneg(m, o, where, "kernel_time_share"));

  const pc_json *a = pc_jm_object(m, o, "attributes", &st);
  PC_TRY(st);
  if (a) {
    snprintf(sub, sizeof sub, "%s.attributes", where);
    PC_TRY(pc_jm_nonneg_all(m, a, sub));
    PC_TRY(pc_jm_doubles(m, a, &k->attr, pc_json_attributes, pc_json_nattributes));
    const pc_json *bl = pc_json_get(a, "binding_limit");
    if (bl && bl->type != PC_JSON_NULL) {
      if (bl->type != PC_JSON_STRING) return pc_jm_type(m, bl, "binding_limit", "a string or null");
      int found = -1;
      for (int l = PC_LIMIT_NONE; l <= PC_LIMIT_SHARED_MEMORY; l++)
        if (strcmp(pc_limiter_name((pc_limiter)l), bl->string) == 0) found = l;
      if (found < 0) return pc_jp_fail(m->p, bl->offset, "\"binding_limit\": unknown limiter \"%s\"", bl->string);
      k->attr.binding = (pc_limiter)found;
    }
  }

  const pc_json *mt = pc_jm_object(m, o, "metrics", &st);
  PC_TRY(st);
  for (size_t i = 0; mt && i < mt->n; i++) {
    const pc_json *v = &mt->items[i];
    if (v->type != PC_JSON_NUMBER && v->type != PC_JSON_NULL) return pc_jm_type(m, v, mt->keys[i], "a number or null");
    double x = v->type == PC_JSON_NUMBER ? v->number : PC_NULL;
    int via = 0;
    const pc_metric_def *def = pc_metric_lookup(mt->keys[i], &via);
    if (def) {
      if (x < 0) /* every metric of the table is a count, a percentage or a ratio */
        return pc_jp_fail(m->p, v->offset, "%s.metrics.%s: %.17g is below 0 (a count, percentage or ratio never is)",
                          where, mt->keys[i], x);
      k->metric[def->id] = x;
      if (via) k->metric_via_substitute[def->id] = 1;
    } else {
      PC_TRY(pc_jm_extra(k, mt->keys[i], x));
    }
  }
  const pc_json *src = pc_jm_object(m, o, "metric_sources", &st);
  PC_TRY(st);
  for (size_t i = 0; src && i < src->n; i++) {
    const pc_metric_def *def = pc_metric_lookup(src->keys[i], NULL);
    if (def && src->items[i].type == PC_JSON_STRING) k->metric_via_substitute[def->id] = 1;
  }
  PC_TRY(pc_jm_strdup(m, o, "not_measured_reason", &k->not_measured_reason));
  PC_TRY(pc_jm_int(m, o, "passes", 0, &k->passes));
  PC_TRY(pc_jm_strbuf(m, o, "replay", k->replay, sizeof k->replay));
  const pc_json *rot = pc_json_get(o, "rotation");
  if (rot && rot->type == PC_JSON_OBJECT) {
    PC_TRY(pc_jm_int(m, rot, "groups", 0, &k->groups));
    PC_TRY(pc_jm_int(m, rot, "collected", 0, &k->groups_collected));
    /* Which groups: "missing" (optional: older reports lack it); without it the first
     * `collected` groups stand for the ones collected. */
    const pc_json *miss = pc_jm_array(m, rot, "missing", &st);
    PC_TRY(st);
    k->groups_seen = 0;
    for (int g = 0; g < k->groups && g < 64; g++)
      if (miss || g < k->groups_collected) k->groups_seen |= (uint64_t)1 << g;
    for (size_t i = 0; miss && i < miss->n; i++) {
      const pc_json *e = &miss->items[i];
      if (e->type != PC_JSON_NUMBER || e->number != (double)(int)e->number || e->number < 1 || e->number > k->groups)
        return pc_jm_type(m, e, "rotation.missing", "group numbers from 1 to rotation.groups");
      if (e->number <= 64) k->groups_seen &= ~((uint64_t)1 << ((int)e->number - 1));
    }
    PC_TRY(pc_jm_strdup(m, rot, "missing_reason", &k->rotation_note));
  } else if (rot && rot->type != PC_JSON_NULL) {
    return pc_jm_type(m, rot, "rotation", "an object or null");
  }
  PC_TRY(pc_jm_num(m, o, "counter_spread", &k->counter_spread));
  double fid = 0;
  PC_TRY(pc_jm_intrange(m, o, "function_id", 1, 4294967295.0, 0, &fid));
  k->function_id = (uint32_t)fid;
  const pc_json *gr = pc_json_get(o, "graph");
  if (gr && gr->type == PC_JSON_OBJECT) {
    double gid = 0, node = 0;
    PC_TRY(pc_jm_intrange(m, gr, "id", 1, 4294967295.0, 0, &gid));
    PC_TRY(pc_jm_intrange(m, gr, "node", 0, 9007199254740992.0, 0, &node));
    k->graph_id = (uint32_t)gid;
    k->graph_node = (uint64_t)node;
    PC_TRY(pc_jm_strdup(m, gr, "entry", &k->graph_entry));
  } else if (gr && gr->type != PC_JSON_NULL) {
    return pc_jm_type(m, gr, "graph", "an object or null");
  }
  const pc_json *gl = pc_json_get(o, "graph_launch"); /* a graph entry (optional: older reports lack it) */
  if (gl && gl->type == PC_JSON_OBJECT) {
    double gid = 0, kn = 0, sg = 0;
    k->is_graph = 1;
    PC_TRY(pc_jm_intrange(m, gl, "graph_id", 1, 4294967295.0, 0, &gid));
    PC_TRY(pc_jm_u64(m, gl, "exec_id", &k->graph_exec));
    PC_TRY(pc_jm_intrange(m, gl, "kernels", 0, 4294967295.0, 0, &kn));
    PC_TRY(pc_jm_intrange(m, gl, "signatures", 0, 4294967295.0, 0, &sg));
    k->graph_id = (uint32_t)gid;
    k->graph_node = 0;
    k->graph_kernels = (uint32_t)kn;
    k->graph_signatures = (uint32_t)sg;
    const pc_json *names = pc_jm_array(m, gl, "kernel_names", &st);
    PC_TRY(st);
    if (names && names->n) {
      if (!(k->graph_names = calloc(names->n, sizeof *k->graph_names))) return PERFCHECK_ERROR_OUT_OF_MEMORY;
      for (size_t i = 0; i < names->n; i++) {
        if (names->items[i].type != PC_JSON_STRING)
          return pc_jm_type(m, &names->items[i], "graph_launch.kernel_names", "an array of strings");
        if (!(k->graph_names[i] = pc_strdup(names->items[i].string))) return PERFCHECK_ERROR_OUT_OF_MEMORY;
        k->ngraph_names = i + 1;
      }
    }
  } else if (gl && gl->type != PC_JSON_NULL) {
    return pc_jm_type(m, gl, "graph_launch", "an object or null");
  }
  const pc_json *cold = pc_json_get(o, "dram_cold");
  if (cold && cold->type != PC_JSON_TRUE && cold->type != PC_JSON_FALSE) return pc_jm_type(m, cold, "dram_cold", "true or false");
  k->dram_cold = cold && cold->type == PC_JSON_TRUE;

  const pc_json *d = pc_jm_object(m, o, "derived", &st);
  PC_TRY(st);
  if (d) {
    snprintf(sub, sizeof sub, "%s.derived", where);
    for (size_t i = 0; i < pc_nderived_fields; i++) PC_TRY(pc_jm_nonneg(m, d, sub, pc_derived_fields[i].key));
    PC_TRY(pc_jm_doubles(m, d, &k->derived, pc_derived_fields, pc_nderived_fields)); /* the vocabulary's table */
    PC_TRY(pc_jm_unit(m, d, "busiest_pipe", &k->busiest_pipe));
    PC_TRY(pc_jm_unit(m, d, "busiest_memory", &k->busiest_memory));
  }
  return pc_jm_diagnosis(m, o, &k->diag);
}

/* ---- one top-level member, and the elements of the three arrays ----------- */

/* A member of the report object other than regions, kernels and warnings
 * streamed element by element; obj holds that member only. */
static perfcheck_status pc_jm_member(pc_jm *m, const pc_json *obj, const char *key) {
  pc_report *r = m->r;
  perfcheck_status st;
  if (strcmp(key, "schema") == 0) {
    const pc_json *schema = pc_json_get(obj, "schema");
    /* /1 (no rank, borderline or stall) reads as /2 with
     * those fields unknown, and its verdicts are derived again at the end. */
    if (schema->type != PC_JSON_STRING ||
        (strcmp(schema->string, "perfcheck-report/2") != 0 && strcmp(schema->string, "perfcheck-report/1") != 0))
      return pc_jp_fail(m->p, schema->offset,
                        "not a perfcheck report (\"schema\" must be \"perfcheck-report/2\" or \"perfcheck-report/1\")");
    m->schema_ok = 1;
    m->schema_v1 = strcmp(schema->string, "perfcheck-report/1") == 0;
    return PERFCHECK_OK;
  }
  if (strcmp(key, "source") == 0) return pc_jm_strbuf(m, obj, "source", r->source, sizeof r->source);
  if (strcmp(key, "metric_set") == 0) return pc_jm_strbuf(m, obj, "metric_set", r->metric_set, sizeof r->metric_set);
  if (strcmp(key, "passes") == 0) return pc_jm_int(m, obj, "passes", 0, &r->passes);
  if (strcmp(key, "rows_left_out") == 0) {
    uint64_t n = 0;
    PC_TRY(pc_jm_u64(m, obj, "rows_left_out", &n));
    r->rows_left_out = (size_t)n;
    return PERFCHECK_OK;
  }
  if (strcmp(key, "step1_assessed") == 0) {
    const pc_json *s1 = pc_json_get(obj, "step1_assessed");
    if (s1->type != PC_JSON_TRUE && s1->type != PC_JSON_FALSE)
      return pc_jm_type(m, s1, "step1_assessed", "true or false");
    r->step1_assessed = s1->type == PC_JSON_TRUE;
    return PERFCHECK_OK;
  }
  static const char *const places[] = {"rank", "world_size", "local_rank"};
  int *const place_of[] = {&r->rank, &r->world_size, &r->local_rank};
  for (size_t i = 0; i < 3; i++) {
    if (strcmp(key, places[i]) != 0) continue;
    PC_TRY(pc_jm_int(m, obj, places[i], -1, place_of[i]));
    if (*place_of[i] < -1 || (i == 1 && *place_of[i] == 0))
      return pc_jm_type(m, pc_json_get(obj, places[i]), places[i],
                        i == 1 ? "a world size (1 or more) or null" : "a rank (0 or more) or null");
    return PERFCHECK_OK;
  }
  if (strcmp(key, "tool") == 0) return pc_jm_tool(m, obj);
  if (strcmp(key, "device") == 0) return pc_jm_device(m, obj);
  /* regions, kernels or warnings that are not an array (null, or the wrong
   * type: pc_jm_array says so); any other key is a newer writer's: ignored. */
  if (strcmp(key, "regions") == 0 || strcmp(key, "kernels") == 0 || strcmp(key, "warnings") == 0) {
    const pc_json *a = pc_jm_array(m, obj, key, &st);
    PC_TRY(st);
    if (strcmp(key, "kernels") == 0) {
      if (!a) return pc_jp_fail(m->p, pc_json_get(obj, key)->offset, "not a perfcheck report (no \"kernels\" array)");
      m->kernels_seen = 1;
    }
    for (size_t i = 0; a && i < a->n; i++) PC_TRY(pc_jm_element(m, key[0], &a->items[i], i));
  }
  return PERFCHECK_OK;
}

/* An element of regions ('r'), kernels ('k') or warnings ('w'). */
static perfcheck_status pc_jm_element(pc_jm *m, char array, const pc_json *v, size_t index) {
  if (array == 'r') return pc_jm_region(m, v, index);
  if (array == 'k') return pc_jm_kernel(m, v, index);
  if (v->type != PC_JSON_STRING) return pc_jm_type(m, v, "warnings", "an array of strings");
  /* Printed when the report was made: kept, not printed again. */
  return pc_report_warn(m->r, 1, "%s", v->string) ? PERFCHECK_ERROR_OUT_OF_MEMORY : PERFCHECK_OK;
}

/* ---- the document, streamed ---------------------------------------------------------- */

/* The report object is read member by member, and the kernels, regions
 * and warnings arrays element by element: each piece is parsed (strictly,
 * pc_jp) and mapped, then its text and tree are dropped.  Memory holds one
 * chunk, the largest piece and the report being built, never the file
 * (a 1 GB report took 6.2 GB; there is no size limit now). */
#define PC_JS_CHUNK ((size_t)1 << 20)
#define PC_JS_MAX_PIECE ((size_t)1 << 30) /* one kernel entry: a 64 MiB name escaped 6 ways fits */

typedef struct pc_js {
  FILE *f;           /* NULL: the document is in memory, all of it in win */
  const char *name;
  char *win;         /* owned when f */
  size_t cap, pos, end;
  int eof, read_errno, too_big;
  size_t line, col;  /* of win[pos] */
  pc_err *err;
} pc_js;

/* More input: win[pos..end) kept, moved to the front.  0 at the end. */
static size_t pc_js_fill(pc_js *js) {
  if (!js->f || js->eof) return 0;
  if (js->pos > 0) {
    memmove(js->win, js->win + js->pos, js->end - js->pos);
    js->end -= js->pos;
    js->pos = 0;
  }
  if (js->end == js->cap) {
    if (js->cap > PC_JS_MAX_PIECE) {
      js->too_big = 1;
      return 0;
    }
    char *w = realloc(js->win, js->cap * 2);
    if (!w) return 0; /* the caller reports it as cut; out of memory is rare enough */
    js->win = w;
    js->cap *= 2;
  }
  size_t got = fread(js->win + js->end, 1, js->cap - js->end, js->f);
  js->end += got;
  if (got == 0) {
    if (ferror(js->f)) js->read_errno = errno ? errno : EIO;
    js->eof = 1;
  }
  return got;
}

/* The byte at pos (after reading more when needed), or -1 at the end. */
static int pc_js_peek(pc_js *js) {
  if (js->pos >= js->end && !pc_js_fill(js)) return -1;
  return (unsigned char)js->win[js->pos];
}

static void pc_js_advance(pc_js *js, size_t n) {
  for (size_t k = 0; k < n; k++) {
    if (js->win[js->pos + k] == '\n') {
      js->line++;
      js->col = 1;
    } else {
      js->col++;
    }
  }
  js->pos += n;
}

static void pc_js_ws(pc_js *js) {
  for (int c; (c = pc_js_peek(js)) == ' ' || c == '\t' || c == '\n' || c == '\r';) pc_js_advance(js, 1);
}

/* A byte shown safely in a message (as pc_jp_show). */
static const char *pc_js_show(int c, char buf[8]) {
  if (c >= 0x21 && c < 0x7F)
    snprintf(buf, 8, "'%c'", c);
  else
    snprintf(buf, 8, "0x%02X", (unsigned)c & 0xFFu);
  return buf;
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static perfcheck_status pc_js_fail(pc_js *js, const char *fmt, ...) {
  if (!js->err) return PERFCHECK_ERROR_PARSE;
  char where[sizeof js->err->msg];
  snprintf(where, sizeof where, "%s:%zu:%zu: ", js->name ? js->name : "<json>", js->line, js->col);
  va_list ap;
  va_start(ap, fmt);
  perfcheck_status st = pc_err_vset(js->err, PERFCHECK_ERROR_PARSE, where, fmt, ap);
  va_end(ap);
  return st;
}

/* The length of the value at pos: a container to its matching bracket, a
 * string to its closing quote, a number or literal to the next delimiter;
 * at the end of the input, what there is (the parser then says what is
 * missing).  The brackets' kinds and everything else are the parser's. */
static size_t pc_js_extent(pc_js *js) {
  size_t k = 0;
  int depth = 0, str = 0, esc = 0;
  for (;;) {
    for (; js->pos + k < js->end; k++) {
      const char c = js->win[js->pos + k];
      if (str) {
        if (esc)
          esc = 0;
        else if (c == '\\')
          esc = 1;
        else if (c == '"' && (str = 0, depth == 0))
          return k + 1;
        continue;
      }
      if (c == '"') {
        str = 1;
      } else if (c == '{' || c == '[') {
        depth++;
      } else if (c == '}' || c == ']') {
        if (depth == 0) return k ? k : 1; /* a lone '}': one byte for the parser to refuse */
        if (--depth == 0) return k + 1;
      } else if (depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
        return k;
      }
    }
    if (!pc_js_fill(js)) return k;
  }
}

/* The value at pos, parsed into *v (the piece stays in win until
 * pc_js_advance(js, *len)); p is set to read positions in it. */
static perfcheck_status pc_js_value(pc_js *js, int depth, pc_jp *p, pc_json *v, size_t *len) {
  *len = pc_js_extent(js);
  if (js->too_big)
    return pc_js_fail(js, "one value longer than %zu MiB (a kernel entry so large is not a perfcheck report)",
                      PC_JS_MAX_PIECE >> 20);
  if (js->read_errno)
    return pc_err_set(js->err, PERFCHECK_ERROR_IO, "%s: read error: %s", js->name, strerror(js->read_errno));
  pc_jp q = {js->win + js->pos, *len, 0, js->name, js->err, js->line, js->col, depth};
  *p = q;
  return pc_jp_document(p, v);
}

/* A key of the report object seen already?  (A set over the one table.) */
typedef struct pc_js_keys {
  char **keys;
  size_t n, cap;
  pc_map of;                    /* hash of the key -> index into keys */
} pc_js_keys;

typedef struct pc_js_key_probe {
  const pc_js_keys *k;
  const char *key;
} pc_js_key_probe;
static int pc_js_key_eq(uint32_t i, const void *arg) {
  const pc_js_key_probe *p = arg;
  return strcmp(p->k->keys[i], p->key) == 0;
}

static int pc_js_key_seen(pc_js_keys *k, const char *key, int *oom) {
  const pc_js_key_probe p = {k, key};
  const uint64_t h = pc_hash_str(key);
  if (pc_map_find(&k->of, h, pc_js_key_eq, &p) != PC_NONE) return 1;
  char *copy = pc_strdup(key);
  if (!copy || k->n >= PC_NONE || pc_grow((void **)&k->keys, &k->cap, k->n + 1, sizeof *k->keys) ||
      pc_map_insert(&k->of, h, (uint32_t)k->n)) {
    free(copy);
    *oom = 1;
    return 0;
  }
  k->keys[k->n++] = copy;
  return 0;
}

static void pc_js_keys_free(pc_js_keys *k) {
  for (size_t i = 0; i < k->n; i++) free(k->keys[i]);
  free(k->keys);
  pc_map_free(&k->of);
}

/* The elements of the array at pos, each mapped by pc_jm_element. */
static perfcheck_status pc_js_array(pc_jm *m, pc_js *js, char array) {
  pc_js_advance(js, 1); /* '[' */
  pc_js_ws(js);
  if (pc_js_peek(js) == ']') {
    pc_js_advance(js, 1);
    return PERFCHECK_OK;
  }
  for (size_t index = 0;; index++) {
    pc_js_ws(js);
    pc_jp p;
    pc_json v;
    size_t len;
    perfcheck_status st = pc_js_value(js, 2, &p, &v, &len);
    if (st != PERFCHECK_OK) return st;
    m->p = &p;
    st = pc_jm_element(m, array, &v, index);
    pc_json_free(&v);
    if (st != PERFCHECK_OK) return st;
    pc_js_advance(js, len);
    pc_js_ws(js);
    int c = pc_js_peek(js);
    if (c == ',') {
      pc_js_advance(js, 1);
      continue;
    }
    if (c == ']') {
      pc_js_advance(js, 1);
      return PERFCHECK_OK;
    }
    char sh[8];
    if (c < 0) return pc_js_fail(js, "unexpected end of input (expected ',' or ']')");
    return pc_js_fail(js, "expected ',' or ']', found %s", pc_js_show(c, sh));
  }
}

static perfcheck_status pc_jm_stream(pc_jm *m, pc_js *js) {
  if (pc_js_peek(js) == 0xEF && js->end - js->pos >= 3 && memcmp(js->win + js->pos, "\xEF\xBB\xBF", 3) == 0)
    pc_js_advance(js, 3); /* a UTF-8 byte order mark */
  pc_js_ws(js);
  if (pc_js_peek(js) != '{') {
    /* Not an object: the whole value, for the parser's or our message. */
    pc_jp p;
    pc_json v;
    size_t len;
    perfcheck_status st = pc_js_value(js, 0, &p, &v, &len);
    if (st != PERFCHECK_OK) return st;
    pc_json_free(&v);
    return pc_jp_fail(&p, 0, "not a perfcheck report (the document is not a JSON object)");
  }
  const size_t root_line = js->line, root_col = js->col;
  pc_js_advance(js, 1);
  pc_js_keys keys;
  memset(&keys, 0, sizeof keys);
  perfcheck_status st = PERFCHECK_OK;
  pc_js_ws(js);
  int first = 1;
  while (st == PERFCHECK_OK) {
    pc_js_ws(js);
    int c = pc_js_peek(js);
    if (first && c == '}') {
      pc_js_advance(js, 1);
      break;
    }
    first = 0;
    if (c != '"') {
      char sh[8];
      st = c < 0 ? pc_js_fail(js, "unexpected end of input (expected a string key)")
                 : pc_js_fail(js, "expected a string key, found %s", pc_js_show(c, sh));
      break;
    }
    pc_jp kp;
    pc_json kv;
    size_t len;
    if ((st = pc_js_value(js, 1, &kp, &kv, &len)) != PERFCHECK_OK) break;
    const size_t key_line = js->line, key_col = js->col;
    char *key = kv.string;
    kv.string = NULL;
    pc_json_free(&kv);
    pc_js_advance(js, len);
    int oom = 0;
    if (pc_js_key_seen(&keys, key, &oom) || oom) {
      js->line = key_line, js->col = key_col; /* (only for the message: the document ends here) */
      st = oom ? PERFCHECK_ERROR_OUT_OF_MEMORY : pc_js_fail(js, "duplicate key \"%.80s\"", key);
      free(key);
      break;
    }
    pc_js_ws(js);
    if ((c = pc_js_peek(js)) != ':') {
      char sh[8];
      st = c < 0 ? pc_js_fail(js, "unexpected end of input (expected ':' after the key)")
                 : pc_js_fail(js, "expected ':' after the key, found %s", pc_js_show(c, sh));
      free(key);
      break;
    }
    pc_js_advance(js, 1);
    pc_js_ws(js);
    const char array = strcmp(key, "kernels") == 0 ? 'k' : strcmp(key, "regions") == 0 ? 'r'
                       : strcmp(key, "warnings") == 0 ? 'w' : 0;
    if (array && pc_js_peek(js) == '[') {
      if (array == 'k') m->kernels_seen = 1;
      st = pc_js_array(m, js, array);
    } else {
      pc_jp p;
      pc_json v;
      if ((st = pc_js_value(js, 1, &p, &v, &len)) == PERFCHECK_OK) {
        /* The member alone, as an object, for pc_jm_member. */
        char *kptr = key;
        pc_json obj;
        memset(&obj, 0, sizeof obj);
        obj.type = PC_JSON_OBJECT;
        obj.n = 1;
        obj.items = &v;
        obj.keys = &kptr;
        m->p = &p;
        st = pc_jm_member(m, &obj, key);
        pc_json_free(&v);
        if (st == PERFCHECK_OK) pc_js_advance(js, len);
      }
    }
    free(key);
    if (st != PERFCHECK_OK) break;
    pc_js_ws(js);
    c = pc_js_peek(js);
    if (c == ',') {
      pc_js_advance(js, 1);
      continue;
    }
    if (c == '}') {
      pc_js_advance(js, 1);
      break;
    }
    char sh[8];
    st = c < 0 ? pc_js_fail(js, "unexpected end of input (expected ',' or '}')")
               : pc_js_fail(js, "expected ',' or '}', found %s", pc_js_show(c, sh));
  }
  pc_js_keys_free(&keys);
  if (st != PERFCHECK_OK) return st;
  pc_js_ws(js);
  if (pc_js_peek(js) >= 0) return pc_js_fail(js, "unexpected text after the JSON value");
  if (js->read_errno)
    return pc_err_set(js->err, PERFCHECK_ERROR_IO, "%s: read error: %s", js->name, strerror(js->read_errno));
  js->line = root_line, js->col = root_col;
  if (!m->schema_ok)
    return pc_js_fail(js, "not a perfcheck report (\"schema\" must be \"perfcheck-report/2\" or \"perfcheck-report/1\")");
  if (!m->kernels_seen) return pc_js_fail(js, "not a perfcheck report (no \"kernels\" array)");
  /* Not a JSON field: the shares are of a timeline exactly when step 1 was
   * assessed (pc_checklist_report). */
  for (size_t i = 0; i < m->r->nkernels; i++) m->r->kernels[i].time_share_from_timeline = m->r->step1_assessed;
  /* A /1 report's kernel verdicts may be step 1's, which /2 gives regions
   * only: its verdicts are derived again from its measurements under the
   * current rules, and a warning says so. */
  if (m->schema_v1) {
    pc_checklist_report(m->r);
    if (pc_report_warn(m->r, 1, "%s: a perfcheck-report/1 report; its verdicts were derived again from its "
                                "measurements under the current rules (perfcheck-report/2)", js->name))
      return PERFCHECK_ERROR_OUT_OF_MEMORY;
  }
  return PERFCHECK_OK;
}

/* Reads a report from f (streamed) or data[0..len) (f NULL). */
static perfcheck_status pc_report_json_read(FILE *f, const char *data, size_t len, const char *name, int quiet,
                                            pc_report **out, pc_err *err) {
  pc_err_clear(err);
  *out = NULL;
  pc_js js;
  memset(&js, 0, sizeof js);
  js.f = f;
  js.name = name ? name : "<json>";
  js.line = js.col = 1;
  js.err = err;
  if (f) {
    if (!(js.win = malloc(PC_JS_CHUNK))) {
      return pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "%s: out of memory", js.name);
    }
    js.cap = PC_JS_CHUNK;
  } else {
    js.win = (char *)(uintptr_t)data; /* read only: an in-memory document never fills */
    js.cap = js.end = len;
    js.eof = 1;
  }
  pc_report *r = pc_report_new();
  perfcheck_status st = PERFCHECK_ERROR_OUT_OF_MEMORY;
  if (r) {
    pc_jm m;
    memset(&m, 0, sizeof m);
    m.quiet = quiet;
    m.r = r;
    pc_locale_guard lg;
    pc_locale_begin(&lg);
    st = pc_jm_stream(&m, &js);
    pc_locale_end(&lg);
  }
  if (f) free(js.win);
  if (st != PERFCHECK_OK) {
    if (st == PERFCHECK_ERROR_OUT_OF_MEMORY) pc_err_set(err, st, "%s: out of memory", js.name);
    pc_report_free(r);
    return st;
  }
  *out = r;
  return PERFCHECK_OK;
}

/* Reads a report from a stream (an input of pc_input.c: a file, a pipe,
 * gzip decompressed), with no size limit. */
perfcheck_status pc_report_from_json_stream(FILE *f, const char *name, int quiet, pc_report **out, pc_err *err) {
  pc_err_clear(err);
  if (!f || !out) return PERFCHECK_ERROR_INVALID_ARGUMENT;
  return pc_report_json_read(f, NULL, 0, name, quiet, out, err);
}

perfcheck_status pc_report_from_json_text(const char *data, size_t len, const char *name, int quiet,
                                          pc_report **out, pc_err *err) {
  pc_err_clear(err);
  if (!data || !out) return PERFCHECK_ERROR_INVALID_ARGUMENT;
  return pc_report_json_read(NULL, data, len, name, quiet, out, err);
}

perfcheck_status pc_report_from_json_file(const char *path, int quiet, pc_report **out, pc_err *err) {
  pc_err_clear(err);
  if (!path || !out) return PERFCHECK_ERROR_INVALID_ARGUMENT;
  *out = NULL;
  FILE *f = fopen(path, "rb");
  if (!f) return pc_err_set(err, PERFCHECK_ERROR_IO, "%s: cannot open: %s", path, strerror(errno));
  perfcheck_status st = pc_report_json_read(f, NULL, 0, path, quiet, out, err);
  fclose(f);
  return st;
}

/* perfcheck_report_from_json opens its input in pc_read.c (gzip, stdin). */

PERFCHECK_API perfcheck_status perfcheck_report_from_json_text(const char *text, size_t len, const char *name,
                                                               int quiet, perfcheck_report **out) {
  if (out) *out = NULL;
  if (!text || !out)
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_report_from_json_text: %s is NULL",
                   text ? "out" : "text");
  pc_err err;
  pc_report *r = NULL;
  perfcheck_status st = pc_report_from_json_text(text, len, name, quiet, &r, &err);
  if (st != PERFCHECK_OK) return pc_fail(st, "%s", err.msg[0] ? err.msg : perfcheck_strerror(st));
  *out = r;
  return PERFCHECK_OK;
}
