/* Expectations: parsing spec strings, the tolerance policy, checking a
 * report, the messages, and the JUnit writer.  The policy and the grammar
 * are documented in perfcheck.h (banner "Expectations"). */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "model/pc_core.h"
#include "expect/pc_expect.h"
#include "base/pc_fmt.h"
#include "base/pc_buf.h"
#include "base/pc_map.h"
#include "base/pc_hash.h"
#include "base/pc_regex.h"
#include "base/pc_util.h"

static const char *pc_num(char *buf, size_t len, double v) {
  pc_fmt_double(buf, len, v);
  return buf;
}

/* A measured value for a message: six significant digits ("31.91", not
 * "31.910003662109375"), unless that would print it equal to the bound it
 * is compared with. */
static const char *pc_num_measured(char *buf, size_t len, double m, double bound) {
  if (m == floor(m) && fabs(m) < 9007199254740992.0) return pc_num(buf, len, m);
  snprintf(buf, len, "%.6g", m);
  if (m != bound && strtod(buf, NULL) == bound) pc_fmt_double(buf, len, m);
  return buf;
}

/* ---- Vocabulary -------------------------------------------------------------- */

static const char *const pc_cmp_text[] = {"<", "<=", "==", "!=", ">=", ">", "within"};

static int pc_cause_from_word(const char *w, size_t n) {
  for (int c = 0; c < PERFCHECK_CAUSE_LIMIT_; c++) {
    const char *name = perfcheck_cause_name((perfcheck_cause)c);
    if (strlen(name) == n && strncmp(name, w, n) == 0) return c;
  }
  return -1;
}

static int pc_bound_from_word(const char *w, size_t n) {
  for (int b = PERFCHECK_BOUND_UNKNOWN; b <= PERFCHECK_BOUND_LATENCY; b++) {
    const char *name = perfcheck_bound_name((perfcheck_bound)b);
    if (strlen(name) == n && strncmp(name, w, n) == 0) return b;
  }
  return -1;
}

static pc_expect_kind pc_kind_of(const char *q) {
  if (strcmp(q, "cause") == 0) return PC_EXPECT_CAUSE;
  if (strcmp(q, "bound") == 0) return PC_EXPECT_BOUND;
  if (strcmp(q, "step") == 0) return PC_EXPECT_STEP;
  return PC_EXPECT_NUMBER;
}

static const char *pc_word_name(const pc_expectation *e, int w) {
  return e->kind == PC_EXPECT_CAUSE ? perfcheck_cause_name((perfcheck_cause)w) : perfcheck_bound_name((perfcheck_bound)w);
}

/* ---- Tolerance policy ---------------------------------------------------------- */

static int pc_ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

pc_expect_class pc_expect_quantity_class(const char *q) {
  if (!q) return PC_EXPECT_EXACT;
  const pc_metric_def *m = pc_metric_lookup(q, NULL);
  if (m) {
    if (strcmp(m->unit, "ns") == 0) return PC_EXPECT_TIME;
    if (strcmp(m->unit, "%") == 0) return PC_EXPECT_RATE; /* every throughput / utilization percentage */
    switch (m->id) {
      case PC_M_SM_THROUGHPUT_PCT:
      case PC_M_MEM_THROUGHPUT_PCT:
      case PC_M_DRAM_THROUGHPUT_PCT:
      case PC_M_DRAM_BYTES_READ:  /* what stays in L2 between runs varies */
      case PC_M_DRAM_BYTES_WRITE:
      case PC_M_ISSUE_ACTIVE:
      case PC_M_WARPS_ACTIVE_PCT: /* achieved occupancy: a scheduler outcome */
        return PC_EXPECT_RATE;
      default:
        return PC_EXPECT_EXACT;   /* instruction, sector and request counts, ratios */
    }
  }
  if (pc_ends_with(q, "_ns") || strstr(q, "duration") || strstr(q, "time_")) return PC_EXPECT_TIME;
  static const char *const rates[] = {"achieved_occupancy_pct", "dram_bytes", "dram_gbps", "gflops",
                                      "memory_pct", "compute_pct", "arithmetic_intensity"};
  for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++)
    if (strcmp(q, rates[i]) == 0) return PC_EXPECT_RATE;
  /* A metric outside the contract (added by name): judge by ncu's naming. */
  if (strstr(q, "throughput") || strstr(q, "pct_of_peak") || strstr(q, "per_second") ||
      strstr(q, ".per_cycle") || strncmp(q, "dram__", 6) == 0)
    return PC_EXPECT_RATE;
  return PC_EXPECT_EXACT;
}

double pc_expect_default_band_pct(const char *q) {
  switch (pc_expect_quantity_class(q)) {
    case PC_EXPECT_TIME:
      return PC_EXPECT_BAND_TIME_PCT;
    case PC_EXPECT_RATE:
      return PC_EXPECT_BAND_RATE_PCT;
    default:
      return 0.0;
  }
}

double pc_expect_rerun_band_pct(const char *q) {
  return pc_expect_quantity_class(q) == PC_EXPECT_EXACT ? PC_EXPECT_RERUN_EXACT_PCT : pc_expect_default_band_pct(q);
}

static const char *pc_class_noun(pc_expect_class c) {
  return c == PC_EXPECT_TIME ? "durations" : c == PC_EXPECT_RATE ? "throughputs and rates" : "this quantity";
}

/* ---- Parsing ---------------------------------------------------------------- */

void pc_expectation_free(pc_expectation *e) {
  if (!e) return;
  if (e->is_regex) pc_regex_free(&e->re);
  free(e->spec);
  free(e->kernel);
  free(e->quantity);
  memset(e, 0, sizeof *e);
}

/* After an unknown quantity: at most three nearest known names (the
 * vocabulary's, pc_values.c), so that a typo is fixed from the message
 * alone; never the whole list. */
static void pc_quantity_hint(pc_buf *b, const char *q) {
  const char *near[3];
  size_t n = pc_quantity_nearest(q, near, 3);
  if (n == 0) {
    pc_buf_puts(b, " (the quantities are the JSON report's derived and attributes names, its metrics by ncu name, "
                  "launch__ values, step, cause and bound: perfcheck check --help)");
    return;
  }
  pc_buf_puts(b, "; did you mean ");
  for (size_t i = 0; i < n; i++) pc_buf_printf(b, "%s\"%s\"", i == 0 ? "" : i + 1 == n ? " or " : ", ", near[i]);
  pc_buf_puts(b, "?");
}

/* Whether a quantity can be one of some report's: a known one, or an ncu
 * metric's spelling (a user may collect any). */
static int pc_quantity_usable(pc_expect_kind kind, const char *q) {
  return kind != PC_EXPECT_NUMBER || pc_quantity_known(q) || strstr(q, "__") != NULL;
}

/* "unknown quantity \"X\"; did you mean ...?", malloc'd (NULL: no memory). */
static char *pc_unknown_quantity_text(const char *q) {
  pc_buf b = PC_BUF_INIT;
  pc_buf_printf(&b, "unknown quantity \"%s\"", q);
  pc_quantity_hint(&b, q);
  return pc_buf_take(&b);
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static perfcheck_status pc_perr(pc_err *err, size_t col, const char *fmt, ...) {
  char at[32];
  snprintf(at, sizeof at, "column %zu: ", col);
  va_list ap;
  va_start(ap, fmt);
  perfcheck_status st = pc_err_vset(err, PERFCHECK_ERROR_PARSE, at, fmt, ap);
  va_end(ap);
  return st;
}

static int pc_is_qchar(char c) { return isalnum((unsigned char)c) || c == '_' || c == '.'; }
static int pc_is_wchar(char c) { return isalnum((unsigned char)c) || c == '_'; }

static size_t pc_skip_ws(const char *s, size_t i) {
  while (s[i] == ' ' || s[i] == '\t') i++;
  return i;
}

/* A decimal number (sign, digits, point, exponent; no hex, inf or nan) at
 * s + i.  Returns its length, 0 if there is none; *v set under the C locale. */
static size_t pc_scan_number(const char *s, size_t i, double *v) {
  size_t j = i, digits = 0;
  if (s[j] == '+' || s[j] == '-') j++;
  while (isdigit((unsigned char)s[j])) j++, digits++;
  if (s[j] == '.') {
    j++;
    while (isdigit((unsigned char)s[j])) j++, digits++;
  }
  if (digits == 0) return 0;
  if (s[j] == 'e' || s[j] == 'E') {
    size_t k = j + 1;
    if (s[k] == '+' || s[k] == '-') k++;
    if (isdigit((unsigned char)s[k])) {
      while (isdigit((unsigned char)s[k])) k++;
      j = k;
    }
  }
  char buf[64];
  size_t len = j - i;
  if (len >= sizeof buf) return 0;
  memcpy(buf, s + i, len);
  buf[len] = '\0';
  errno = 0;
  *v = strtod(buf, NULL);
  /* Outside the range of a double: 1e999 is infinite, and 1e-400 must not
   * become 0 (NaN here: the caller says "out of range"). */
  if (errno == ERANGE && fabs(*v) < DBL_MIN) {
    int nonzero = 0;
    for (size_t k = 0; k < len && buf[k] != 'e' && buf[k] != 'E'; k++) nonzero |= buf[k] >= '1' && buf[k] <= '9';
    if (nonzero) *v = PC_NULL;
  }
  return len;
}

static char *pc_strndup(const char *s, size_t n) {
  char *d = malloc(n + 1);
  if (!d) return NULL;
  memcpy(d, s, n);
  d[n] = '\0';
  return d;
}

/* Lists the words a cause or bound expectation accepts. */
static void pc_word_list(pc_expect_kind kind, char *buf, size_t len) {
  size_t n = 0;
  buf[0] = '\0';
  int last = kind == PC_EXPECT_CAUSE ? PERFCHECK_CAUSE_LIMIT_ - 1 : PERFCHECK_BOUND_LATENCY;
  for (int w = 0; w <= last; w++) {
    const char *name = kind == PC_EXPECT_CAUSE ? perfcheck_cause_name((perfcheck_cause)w)
                                               : perfcheck_bound_name((perfcheck_bound)w);
    int wr = snprintf(buf + n, len - n, "%s%s", w ? ", " : "", name);
    if (wr < 0 || (size_t)wr >= len - n) break;
    n += (size_t)wr;
  }
}

static perfcheck_status pc_parse_locked(const char *spec, pc_expectation *out, pc_err *err) {
  pc_expectation e;
  memset(&e, 0, sizeof e);
  e.tolerance_pct = PC_NULL;
  size_t n = strlen(spec);

  /* The kernel part runs to the last ':' (values and quantities never hold one). */
  const char *colon = strrchr(spec, ':');
  if (!colon)
    return pc_perr(err, n + 1, "expected KERNEL:QUANTITY OP VALUE (no ':' after the kernel name)");
  size_t qstart = (size_t)(colon - spec) + 1;
  size_t ks = pc_skip_ws(spec, 0), ke = (size_t)(colon - spec);
  while (ke > ks && (spec[ke - 1] == ' ' || spec[ke - 1] == '\t')) ke--;
  if (ke - ks >= 6 && strncmp(spec + ks, "regex:", 6) == 0) {
    e.is_regex = 1;
    ks += 6;
    if (ke <= ks)
      return pc_perr(err, ks + 1, "expected a pattern after \"regex:\" (regex:PATTERN:QUANTITY OP VALUE)");
  } else if (ke - ks == 5 && strncmp(spec + ks, "regex", 5) == 0) {
    return pc_perr(err, ks + 1, "\"regex:\" needs a pattern and then the quantity: regex:PATTERN:QUANTITY OP VALUE");
  }
  if (ke <= ks) return pc_perr(err, ks + 1, "expected a kernel name before ':'");
  e.kernel = pc_strndup(spec + ks, ke - ks);
  if (!e.kernel) return PERFCHECK_ERROR_OUT_OF_MEMORY;
  if (e.is_regex) {
    size_t at;
    pc_err re;
    if (pc_regex_check(e.kernel, &at, &re) != PERFCHECK_OK) { /* pc_regex.h: the one guard */
      free(e.kernel);
      return pc_perr(err, ks + at + 1, "bad regular expression: %s", re.msg);
    }
    if (pc_regex_compile(&e.re, e.kernel, &at, &re) != PERFCHECK_OK) { /* regcomp's syntax check and the matcher */
      free(e.kernel);
      return pc_perr(err, ks + 1, "bad regular expression \"%.*s\": %s", (int)(ke - ks), spec + ks, re.msg);
    }
  }

  perfcheck_status st = PERFCHECK_ERROR_PARSE;
  size_t i = pc_skip_ws(spec, qstart);
  size_t q0 = i;
  if (isalpha((unsigned char)spec[i]) || spec[i] == '_')
    while (pc_is_qchar(spec[i])) i++;
  if (i == q0) {
    st = pc_perr(err, q0 + 1,
                 "expected a quantity after ':' (an ncu metric, a launch__ value, a derived name such as "
                 "sectors_per_request_ld, or step, cause, bound)");
    goto fail;
  }
  e.quantity = pc_strndup(spec + q0, i - q0);
  if (!e.quantity) {
    st = PERFCHECK_ERROR_OUT_OF_MEMORY;
    goto fail;
  }
  e.kind = pc_kind_of(e.quantity);
  i = pc_skip_ws(spec, i);
  size_t opcol = i + 1;
  if (strncmp(spec + i, "<=", 2) == 0) e.cmp = PERFCHECK_CMP_LE, i += 2;
  else if (strncmp(spec + i, ">=", 2) == 0) e.cmp = PERFCHECK_CMP_GE, i += 2;
  else if (strncmp(spec + i, "==", 2) == 0) e.cmp = PERFCHECK_CMP_EQ, i += 2;
  else if (strncmp(spec + i, "!=", 2) == 0) e.cmp = PERFCHECK_CMP_NE, i += 2;
  else if (spec[i] == '<') e.cmp = PERFCHECK_CMP_LT, i += 1;
  else if (spec[i] == '>') e.cmp = PERFCHECK_CMP_GT, i += 1;
  else if (strncmp(spec + i, "within", 6) == 0 && !pc_is_wchar(spec[i + 6])) e.cmp = PERFCHECK_CMP_WITHIN, i += 6;
  else if (spec[i] == '=') {
    st = pc_perr(err, opcol, "'=' is not a comparison: write ==");
    goto fail;
  } else {
    st = pc_perr(err, opcol, "expected a comparison (<, <=, ==, !=, >=, >, within) after \"%s\"", e.quantity);
    goto fail;
  }
  i = pc_skip_ws(spec, i);

  if (e.kind == PC_EXPECT_CAUSE || e.kind == PC_EXPECT_BOUND) {
    if (e.cmp != PERFCHECK_CMP_EQ && e.cmp != PERFCHECK_CMP_NE) {
      st = pc_perr(err, opcol, "%s is a word: compare it with == or != only", e.quantity);
      goto fail;
    }
    size_t w0 = i;
    while (pc_is_wchar(spec[i])) i++;
    char words[512];
    pc_word_list(e.kind, words, sizeof words);
    if (i == w0) {
      st = pc_perr(err, w0 + 1, "expected a %s word (one of: %s)", e.quantity, words);
      goto fail;
    }
    e.word = e.kind == PC_EXPECT_CAUSE ? pc_cause_from_word(spec + w0, i - w0) : pc_bound_from_word(spec + w0, i - w0);
    if (e.word < 0) {
      st = pc_perr(err, w0 + 1, "unknown %s word \"%.*s\" (one of: %s)", e.quantity, (int)(i - w0), spec + w0,
                   words);
      goto fail;
    }
    e.value = PC_NULL;
  } else {
    size_t v0 = i;
    double v = PC_NULL;
    size_t len = pc_scan_number(spec, i, &v);
    if (len == 0) {
      st = pc_perr(err, v0 + 1, "expected a number after %s", pc_cmp_text[e.cmp]);
      goto fail;
    }
    i += len;
    if (e.cmp == PERFCHECK_CMP_WITHIN) {
      size_t j = pc_skip_ws(spec, i);
      if (spec[j] == '%') { /* "within N% of V" */
        if (!(v >= 0) || !isfinite(v)) {
          st = pc_perr(err, v0 + 1, "the band of \"within\" must be a percentage >= 0");
          goto fail;
        }
        e.tolerance_pct = v;
        j = pc_skip_ws(spec, j + 1);
        if (strncmp(spec + j, "of", 2) != 0 || pc_is_wchar(spec[j + 2])) {
          st = pc_perr(err, j + 1, "expected \"of\" after \"within %.*s%%\"", (int)len, spec + v0);
          goto fail;
        }
        j = pc_skip_ws(spec, j + 2);
        v0 = j;
        len = pc_scan_number(spec, j, &v);
        if (len == 0) {
          st = pc_perr(err, j + 1, "expected a number after \"of\"");
          goto fail;
        }
        i = j + len;
      }
    }
    if (!isfinite(v)) {
      st = pc_perr(err, v0 + 1, "the number \"%.*s\" is out of range", (int)(i - v0), spec + v0);
      goto fail;
    }
    e.value = v;
  }

  i = pc_skip_ws(spec, i);
  if (strncmp(spec + i, "+-", 2) == 0 || strncmp(spec + i, "\xC2\xB1", 2) == 0) { /* "+-" or U+00B1 */
    size_t tcol = i + 1;
    if (e.cmp == PERFCHECK_CMP_WITHIN) {
      st = pc_perr(err, tcol, "\"within\" has its band already (within N%% of V)");
      goto fail;
    }
    if (e.kind == PC_EXPECT_CAUSE || e.kind == PC_EXPECT_BOUND) {
      st = pc_perr(err, tcol, "a word takes no tolerance");
      goto fail;
    }
    i = pc_skip_ws(spec, i + 2);
    double t = PC_NULL;
    size_t len = pc_scan_number(spec, i, &t);
    if (len == 0 || !(t >= 0) || !isfinite(t) || spec[i] == '-') {
      st = pc_perr(err, i + 1, "expected a tolerance percentage >= 0 after \"+-\"");
      goto fail;
    }
    i = pc_skip_ws(spec, i + len);
    if (spec[i] != '%') {
      st = pc_perr(err, i + 1, "expected '%%' after the tolerance");
      goto fail;
    }
    e.tolerance_pct = t;
    i = pc_skip_ws(spec, i + 1);
  }
  if (spec[i] != '\0') {
    st = pc_perr(err, i + 1, "unexpected \"%.20s\" after the value", spec + i);
    goto fail;
  }
  /* One vocabulary: a name that is no quantity of any report (not in the
   * tables, and not an ncu metric's spelling, which has a "__" and may be
   * one a user added to the collection) is refused, with the nearest names.
   * Checked once the spec reads well, so that a syntax error is named first. */
  if (!pc_quantity_usable(e.kind, e.quantity)) {
    char *msg = pc_unknown_quantity_text(e.quantity);
    st = pc_perr(err, q0 + 1, "%s", msg ? msg : "unknown quantity");
    free(msg);
    goto fail;
  }
  e.spec = pc_strdup(spec);
  if (!e.spec) {
    st = PERFCHECK_ERROR_OUT_OF_MEMORY;
    goto fail;
  }
  *out = e;
  return PERFCHECK_OK;

fail:
  pc_expectation_free(&e);
  return st;
}

perfcheck_status pc_expect_parse(const char *spec, pc_expectation *out, pc_err *err) {
  pc_err_clear(err);
  if (!spec || !out) return PERFCHECK_ERROR_INVALID_ARGUMENT;
  pc_locale_guard lg;
  pc_locale_begin(&lg);
  perfcheck_status st = pc_parse_locked(spec, out, err);
  pc_locale_end(&lg);
  return st;
}

/* ---- Checking ------------------------------------------------------------ */

static void pc_result_free(pc_expect_result *r) {
  free(r->spec);
  free(r->quantity);
  free(r->kernel);
  free(r->expected);
  free(r->message);
  free(r->advice);
}

static void pc_results_clear(pc_expectations *set) {
  for (size_t i = 0; i < set->nresults; i++) pc_result_free(&set->results[i]);
  set->nresults = 0;
  set->failures = 0;
  free(set->failures_text);
  set->failures_text = NULL;
}

static pc_expect_result *pc_result_add(pc_expectations *set) {
  if (pc_grow((void **)&set->results, &set->cap_results, set->nresults + 1, sizeof *set->results)) return NULL;
  pc_expect_result *r = &set->results[set->nresults++];
  memset(r, 0, sizeof *r);
  r->measured = PC_NULL;
  return r;
}

static int pc_kernel_matches(const pc_expectation *e, const pc_kernel *k) {
  const char *name = k->name ? k->name : "";
  if (e->is_regex && k->is_graph) {
    /* A graph's entry names its kernels ("graph 3 (2 kernels: gemm, relu)"):
     * a pattern written for kernel names must not catch it, so a regex sees
     * it as "graph 3" (docs/report-contract.md, "Graph entries"). */
    char head[64];
    const char *paren = strstr(name, " (");
    snprintf(head, sizeof head, "%.*s", paren ? (int)(paren - name) : (int)strlen(name), name);
    return pc_regex_match(&e->re, head) == 1;
  }
  if (e->is_regex) return pc_regex_match(&e->re, name) == 1;
  return strcmp(name, e->kernel) == 0 || (k->mangled && strcmp(k->mangled, e->kernel) == 0);
}

/* How many entries of the report bear each name: built once per check, so
 * that labelling every matched entry stays linear (a scan per entry made
 * `regex:.` over 20k kernels quadratic). */
typedef struct pc_name_counts {
  const char **names; /* each distinct name once (the report's strings) */
  size_t *counts;
  size_t n, capn, capc;
  pc_map by_name;     /* hash of the name -> index into names */
} pc_name_counts;

typedef struct pc_name_probe {
  const pc_name_counts *c;
  const char *name;
} pc_name_probe;
static int pc_name_eq(uint32_t i, const void *arg) {
  const pc_name_probe *p = arg;
  return strcmp(p->c->names[i], p->name) == 0;
}

static int pc_name_counts_build(pc_name_counts *c, const pc_report *r) {
  memset(c, 0, sizeof *c);
  for (size_t i = 0; i < r->nkernels; i++) {
    const pc_name_probe p = {c, r->kernels[i].name ? r->kernels[i].name : ""};
    const uint64_t h = pc_hash_str(p.name);
    const uint32_t at = pc_map_find(&c->by_name, h, pc_name_eq, &p);
    if (at != PC_NONE) {
      c->counts[at]++;
      continue;
    }
    if (c->n >= PC_NONE || pc_grow((void **)&c->names, &c->capn, c->n + 1, sizeof *c->names) ||
        pc_grow((void **)&c->counts, &c->capc, c->n + 1, sizeof *c->counts) ||
        pc_map_insert(&c->by_name, h, (uint32_t)c->n))
      return -1;
    c->names[c->n] = p.name;
    c->counts[c->n++] = 1;
  }
  return 0;
}

static size_t pc_name_count(const pc_name_counts *c, const char *name) {
  const pc_name_probe p = {c, name};
  const uint32_t at = pc_map_find(&c->by_name, pc_hash_str(name), pc_name_eq, &p);
  return at == PC_NONE ? 0 : c->counts[at];
}

static void pc_name_counts_free(pc_name_counts *c) {
  free(c->names);
  free(c->counts);
  pc_map_free(&c->by_name);
}

/* The kernel's name, its launch signature when several entries share the
 * name, and its region. */
static char *pc_kernel_label(const pc_name_counts *counts, const pc_kernel *k) {
  const char *name = k->name ? k->name : "";
  size_t same = pc_name_count(counts, name);
  pc_buf b = PC_BUF_INIT;
  pc_buf_puts(&b, name);
  if (same > 1) {
    pc_buf_printf(&b, " [grid %u,%u,%u block %u,%u,%u", k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1],
                  k->block[2]);
    double smem = pc_has(k->dynamic_smem) ? k->dynamic_smem : k->attr.dynamic_smem;
    if (pc_has(smem)) {
      char nb[40];
      pc_buf_printf(&b, " dynamic smem %s B", pc_num(nb, sizeof nb, smem));
    }
    pc_buf_puts(&b, "]");
  }
  if (k->region) pc_buf_printf(&b, " in region %s", k->region);
  return pc_buf_take(&b);
}

/* "<= 4.5", "within 10% of 1200000", "!= divergent_warps"; sep goes between
 * an operator symbol and its value ("" gives the spec form "<=4.5"). */
static char *pc_expected_text_sep(const pc_expectation *e, const char *sep) {
  pc_buf b = PC_BUF_INIT;
  char nb[40], tb[40];
  if (e->kind == PC_EXPECT_CAUSE || e->kind == PC_EXPECT_BOUND) {
    pc_buf_printf(&b, "%s%s%s", pc_cmp_text[e->cmp], sep, pc_word_name(e, e->word));
  } else if (e->cmp == PERFCHECK_CMP_WITHIN) {
    if (pc_has(e->tolerance_pct))
      pc_buf_printf(&b, "within %s%% of %s", pc_num(tb, sizeof tb, e->tolerance_pct), pc_num(nb, sizeof nb, e->value));
    else
      pc_buf_printf(&b, "within %s", pc_num(nb, sizeof nb, e->value));
  } else {
    pc_buf_printf(&b, "%s%s%s", pc_cmp_text[e->cmp], sep, pc_num(nb, sizeof nb, e->value));
    if (pc_has(e->tolerance_pct)) pc_buf_printf(&b, " +-%s%%", pc_num(tb, sizeof tb, e->tolerance_pct));
  }
  return pc_buf_take(&b);
}

static char *pc_expected_text(const pc_expectation *e) { return pc_expected_text_sep(e, " "); }

static double pc_band_pct(const pc_expectation *e) {
  if (e->kind != PC_EXPECT_NUMBER) return 0.0;
  return pc_has(e->tolerance_pct) ? e->tolerance_pct : pc_expect_default_band_pct(e->quantity);
}

int pc_expect_within_band(double expected, double measured, double band_pct) {
  double tol = fabs(expected) * band_pct / 100.0;
  double eps = PC_EXPECT_EXACT_REL * fmax(fabs(expected), fabs(measured));
  return fabs(measured - expected) <= tol + eps;
}

/* Does measured m satisfy e with the band?  The band widens the bound in the
 * lenient direction; the tiny exact-epsilon forgives text round trips. */
static int pc_holds(const pc_expectation *e, double m, double band_pct) {
  double v = e->value;
  double tol = fabs(v) * band_pct / 100.0;
  double eps = PC_EXPECT_EXACT_REL * fmax(fabs(v), fabs(m));
  switch (e->cmp) {
    case PERFCHECK_CMP_LT:
      return m < v + tol;
    case PERFCHECK_CMP_LE:
      return m <= v + tol + eps;
    case PERFCHECK_CMP_GT:
      return m > v - tol;
    case PERFCHECK_CMP_GE:
      return m >= v - tol - eps;
    case PERFCHECK_CMP_NE:
      return !(fabs(m - v) <= tol + eps);
    case PERFCHECK_CMP_EQ:
    case PERFCHECK_CMP_WITHIN:
    default:
      return pc_expect_within_band(v, m, band_pct);
  }
}

/* " (10% band for durations: up to 1100000)" when a band applies. */
static void pc_band_note(pc_buf *b, const pc_expectation *e, double band_pct) {
  if (band_pct <= 0) return;
  double v = e->value, tol = fabs(v) * band_pct / 100.0;
  char lo[40], hi[40], bp[40];
  pc_num(lo, sizeof lo, v - tol);
  pc_num(hi, sizeof hi, v + tol);
  pc_num(bp, sizeof bp, band_pct);
  int dflt = !pc_has(e->tolerance_pct);
  if (e->cmp == PERFCHECK_CMP_WITHIN) {
    if (dflt)
      pc_buf_printf(b, " (%s%% default band for %s: between %s and %s)", bp,
                    pc_class_noun(pc_expect_quantity_class(e->quantity)), lo, hi);
    else
      pc_buf_printf(b, " (between %s and %s)", lo, hi);
    return;
  }
  pc_buf_printf(b, " (%s%% %sband%s%s: ", bp, dflt ? "default " : "", dflt ? " for " : "",
                dflt ? pc_class_noun(pc_expect_quantity_class(e->quantity)) : "");
  switch (e->cmp) {
    case PERFCHECK_CMP_LT:
    case PERFCHECK_CMP_LE:
      pc_buf_printf(b, "up to %s", hi);
      break;
    case PERFCHECK_CMP_GT:
    case PERFCHECK_CMP_GE:
      pc_buf_printf(b, "down to %s", lo);
      break;
    case PERFCHECK_CMP_EQ:
      pc_buf_printf(b, "between %s and %s", lo, hi);
      break;
    default:
      pc_buf_printf(b, "outside %s to %s", lo, hi);
      break;
  }
  pc_buf_puts(b, dflt ? "; +-0% for an exact bound)" : ")");
}

static void pc_verdict_note(pc_buf *b, const pc_kernel *k) {
  const pc_finding *v = &k->diag.verdict;
  pc_buf_printf(b, "; verdict: step %d, %s", v->step, perfcheck_cause_name(v->cause));
  if (v->advice[0]) pc_buf_printf(b, ": %s", v->advice);
}

/* Checks e against kernel k and fills res. */
static void pc_check_one(const pc_expectation *e, const pc_kernel *k, pc_expect_result *res) {
  pc_buf b = PC_BUF_INIT;
  const char *label = res->kernel;
  const pc_finding *v = &k->diag.verdict;
  char nb[40];
  res->advice = pc_strdup(v->advice);
  res->expected = pc_expected_text(e);
  const char *expected = res->expected ? res->expected : "?";

  if (e->kind == PC_EXPECT_CAUSE || e->kind == PC_EXPECT_BOUND) {
    int have = e->kind == PC_EXPECT_CAUSE ? (int)v->cause : (int)k->diag.bound;
    int missing = e->kind == PC_EXPECT_CAUSE ? PERFCHECK_CAUSE_NOT_ASSESSED : PERFCHECK_BOUND_UNKNOWN;
    res->measured_word = pc_word_name(e, have);
    /* A verdict that could not be reached is not a pass of "!= X". */
    if (have == missing && e->word != missing) {
      res->status = PERFCHECK_ERROR_NOT_MEASURED;
      pc_buf_printf(&b, "%s: %s was not assessed (%s), expected %s", label, e->quantity,
                    v->advice[0] ? v->advice : "the report has no verdict for it", expected);
    } else {
      int eq = have == e->word;
      int ok = e->cmp == PERFCHECK_CMP_EQ ? eq : !eq;
      res->status = ok ? PERFCHECK_OK : PERFCHECK_ERROR_EXPECTATION_FAILED;
      pc_buf_printf(&b, "%s: %s is %s, expected %s", label, e->quantity, res->measured_word, expected);
      if (ok)
        pc_buf_puts(&b, ": holds");
      else
        pc_verdict_note(&b, k);
    }
    res->message = pc_buf_take(&b);
    return;
  }

  double m = PC_NULL;
  perfcheck_status st;
  if (e->kind == PC_EXPECT_STEP) {
    st = v->cause == PERFCHECK_CAUSE_NOT_ASSESSED ? PERFCHECK_ERROR_NOT_MEASURED : PERFCHECK_OK;
    if (st == PERFCHECK_OK) m = (double)v->step;
  } else {
    st = pc_kernel_value(k, e->quantity, &m);
    if (st == PERFCHECK_OK && !isfinite(m)) st = PERFCHECK_ERROR_NOT_MEASURED;
  }
  double band = pc_band_pct(e);
  if (st == PERFCHECK_ERROR_NOT_FOUND) {
    res->status = PERFCHECK_ERROR_NOT_FOUND;
    pc_buf_printf(&b, "%s: no quantity named \"%s\" in the report", label, e->quantity);
    pc_quantity_hint(&b, e->quantity);
  } else if (st != PERFCHECK_OK) {
    res->status = PERFCHECK_ERROR_NOT_MEASURED;
    const char *why = e->kind == PC_EXPECT_STEP ? (v->advice[0] ? v->advice : "the verdict was not assessed")
                      : k->not_measured_reason ? k->not_measured_reason
                                               : "null in the report";
    pc_buf_printf(&b, "%s: %s was not measured (%s), expected %s", label, e->quantity, why, expected);
    pc_verdict_note(&b, k);
  } else {
    res->measured = m;
    int ok = pc_holds(e, m, band);
    res->status = ok ? PERFCHECK_OK : PERFCHECK_ERROR_EXPECTATION_FAILED;
    pc_buf_printf(&b, "%s: %s is %s, expected %s", label, e->quantity, pc_num_measured(nb, sizeof nb, m, e->value),
                  expected);
    pc_band_note(&b, e, band);
    if (ok)
      pc_buf_puts(&b, ": holds");
    else
      pc_verdict_note(&b, k);
  }
  res->message = pc_buf_take(&b);
}

static void pc_check_missing(const pc_expectation *e, const pc_report *r, pc_expect_result *res) {
  pc_buf b = PC_BUF_INIT;
  res->status = PERFCHECK_ERROR_NOT_FOUND;
  res->kernel = pc_strdup(e->kernel);
  res->expected = pc_expected_text(e);
  res->advice = pc_strdup("");
  if (e->is_regex)
    pc_buf_printf(&b, "regex:%s: no kernel in the report matches /%s/", e->kernel, e->kernel);
  else
    pc_buf_printf(&b, "%s: no kernel named \"%s\" in the report (never launched, or filtered out)", e->kernel,
                  e->kernel);
  pc_buf_printf(&b, ", so %s %s cannot hold", e->quantity, res->expected ? res->expected : "");
  if (r->nkernels == 0) {
    pc_buf_puts(&b, "; the report has no kernels");
  } else {
    pc_buf_puts(&b, "; the report has: ");
    size_t shown = 0;
    const char *listed[8];
    for (size_t i = 0; i < r->nkernels && shown < 8; i++) {
      const char *name = r->kernels[i].name ? r->kernels[i].name : "";
      int dup = 0;
      for (size_t j = 0; j < shown && !dup; j++) dup = strcmp(listed[j], name) == 0; /* at most 8: linear */
      if (dup) continue;
      listed[shown] = name;
      pc_buf_printf(&b, "%s%s", shown ? ", " : "", name);
      shown++;
    }
    if (shown == 8) pc_buf_puts(&b, ", ...");
  }
  res->message = pc_buf_take(&b);
}

/* Counts the failed results and writes their messages, one a line, into
 * set->failures_text.  0, or -1 when out of memory. */
static int pc_failures_count(pc_expectations *set) {
  set->failures = 0;
  free(set->failures_text);
  pc_buf text = PC_BUF_INIT;
  pc_buf_puts(&text, "");
  for (size_t i = 0; i < set->nresults; i++) {
    const pc_expect_result *res = &set->results[i];
    if (res->status == PERFCHECK_OK) continue;
    pc_buf_printf(&text, "%s%s", set->failures ? "\n" : "", res->message ? res->message : "(no memory for the message)");
    set->failures++;
  }
  set->failures_text = pc_buf_take(&text);
  return set->failures_text ? 0 : -1;
}

perfcheck_status pc_expect_add_result(pc_expectations *set, const char *spec, const char *kernel,
                                      const char *quantity, const char *expected, perfcheck_status status,
                                      const char *type, const char *message) {
  if (!set) return PERFCHECK_ERROR_INVALID_ARGUMENT;
  pc_expect_result *res = pc_result_add(set);
  if (!res) return PERFCHECK_ERROR_OUT_OF_MEMORY;
  res->status = status == PERFCHECK_OK ? PERFCHECK_OK : PERFCHECK_ERROR_EXPECTATION_FAILED;
  res->type = type;
  res->spec = pc_strdup(spec ? spec : "");
  res->quantity = pc_strdup(quantity ? quantity : "");
  res->kernel = pc_strdup(kernel ? kernel : "");
  res->expected = pc_strdup(expected ? expected : "");
  res->message = pc_strdup(message ? message : "");
  res->advice = pc_strdup("");
  if (!res->spec || !res->quantity || !res->kernel || !res->expected || !res->message || !res->advice) {
    pc_result_free(res);
    set->nresults--;
    return PERFCHECK_ERROR_OUT_OF_MEMORY;
  }
  return pc_failures_count(set) == 0 ? PERFCHECK_OK : PERFCHECK_ERROR_OUT_OF_MEMORY;
}

/* Checks every expectation against every matching kernel of r (results
 * replace the previous ones).  Returns PERFCHECK_OK, _EXPECTATION_FAILED or
 * _OUT_OF_MEMORY; *failures (may be NULL) counts failed results. */
static perfcheck_status pc_expect_check(pc_expectations *set, const pc_report *r, size_t *failures) {
  if (failures) *failures = set ? (set->n ? set->n : 1) : 1;
  if (!set || !r) return PERFCHECK_ERROR_INVALID_ARGUMENT;
  pc_results_clear(set);
  pc_name_counts counts;
  if (pc_name_counts_build(&counts, r) != 0) {
    pc_name_counts_free(&counts);
    return PERFCHECK_ERROR_OUT_OF_MEMORY;
  }
  pc_locale_guard lg;
  pc_locale_begin(&lg);
  perfcheck_status st = PERFCHECK_OK;
  for (size_t i = 0; i < set->n && st == PERFCHECK_OK; i++) {
    const pc_expectation *e = &set->items[i];
    size_t matched = 0;
    for (size_t j = 0; j < r->nkernels; j++) {
      const pc_kernel *k = &r->kernels[j];
      if (!pc_kernel_matches(e, k)) continue;
      matched++;
      pc_expect_result *res = pc_result_add(set);
      if (!res) {
        st = PERFCHECK_ERROR_OUT_OF_MEMORY;
        break;
      }
      res->e = e;
      res->kernel = pc_kernel_label(&counts, k);
      if (res->kernel) pc_check_one(e, k, res);
      if (!res->kernel || !res->message || !res->expected || !res->advice) st = PERFCHECK_ERROR_OUT_OF_MEMORY;
    }
    /* A quantity no kernel of the report has is a mistake in the
     * expectation (a typo), not a failed check: its results say so with
     * PERFCHECK_ERROR_INVALID_ARGUMENT (`perfcheck check` exits 2 on it,
     * Python raises ValueError). */
    if (matched > 0 && st == PERFCHECK_OK && e->kind == PC_EXPECT_NUMBER) {
      int known = 0;
      for (size_t j = 0; j < r->nkernels && !known; j++) {
        double v;
        known = pc_kernel_value(&r->kernels[j], e->quantity, &v) != PERFCHECK_ERROR_NOT_FOUND;
      }
      for (size_t j = set->nresults - matched; !known && j < set->nresults; j++)
        if (set->results[j].status == PERFCHECK_ERROR_NOT_FOUND) set->results[j].status = PERFCHECK_ERROR_INVALID_ARGUMENT;
    }
    if (matched == 0 && st == PERFCHECK_OK) {
      pc_expect_result *res = pc_result_add(set);
      if (!res) {
        st = PERFCHECK_ERROR_OUT_OF_MEMORY;
        break;
      }
      res->e = e;
      pc_check_missing(e, r, res);
      if (!res->kernel || !res->message || !res->expected || !res->advice) st = PERFCHECK_ERROR_OUT_OF_MEMORY;
    }
  }
  pc_locale_end(&lg);
  pc_name_counts_free(&counts);

  if (pc_failures_count(set) != 0) st = PERFCHECK_ERROR_OUT_OF_MEMORY;
  if (st != PERFCHECK_OK) {
    if (failures) *failures = set->failures ? set->failures : 1;
    return st;
  }
  if (failures) *failures = set->failures;
  return set->failures ? PERFCHECK_ERROR_EXPECTATION_FAILED : PERFCHECK_OK;
}

/* ---- JUnit XML ------------------------------------------------------------- */

void pc_xml_write_escaped(FILE *f, const char *s, int attribute) {
  if (!s) return;
  const unsigned char *p = (const unsigned char *)s;
  while (*p) {
    unsigned c = *p;
    if (c < 0x80) {
      switch (c) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break; /* also keeps "]]>" out of text */
        case '"': fputs(attribute ? "&quot;" : "\"", f); break;
        case '\'': fputs(attribute ? "&apos;" : "'", f); break;
        case '\t': fputs(attribute ? "&#9;" : "\t", f); break;
        case '\n': fputs(attribute ? "&#10;" : "\n", f); break;
        case '\r': fputs("&#13;", f); break; /* a raw CR would become LF */
        default:
          if (c < 0x20)
            fputs("\xEF\xBF\xBD", f); /* not allowed in XML 1.0, not even as &#N; */
          else
            fputc((int)c, f);
      }
      p++;
      continue;
    }
    size_t n = pc_utf8_seq_len(p);
    if (n == 0) {
      fputs("\xEF\xBF\xBD", f);
      p++;
    } else if (n == 3 && p[0] == 0xEF && p[1] == 0xBF && (p[2] == 0xBE || p[2] == 0xBF)) {
      fputs("\xEF\xBF\xBD", f); /* U+FFFE, U+FFFF: not XML characters */
      p += 3;
    } else {
      fwrite(p, 1, n, f);
      p += n;
    }
  }
}

static const char *pc_failure_type(perfcheck_status st) {
  switch (st) {
    case PERFCHECK_ERROR_NOT_FOUND:
      return "not_found";
    case PERFCHECK_ERROR_NOT_MEASURED:
      return "not_measured";
    default:
      return "expectation_failed";
  }
}

/* JUnit XML: one testcase per result. */
static perfcheck_status pc_expect_write_junit(const pc_expectations *set, const char *suite, FILE *f,
                                              pc_err *err) {
  pc_err_clear(err);
  if (!set || !f) return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "pc_expect_write_junit: NULL argument");
  if (!suite) suite = "perfcheck";
  size_t n = set->nresults, nf = set->failures;
  fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
  fprintf(f, "<testsuites tests=\"%zu\" failures=\"%zu\" errors=\"0\">\n", n, nf);
  fputs("  <testsuite name=\"", f);
  pc_xml_write_escaped(f, suite, 1);
  fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\" time=\"0\">\n", n, nf);
  for (size_t i = 0; i < n; i++) {
    const pc_expect_result *r = &set->results[i];
    fputs("    <testcase classname=\"", f);
    pc_xml_write_escaped(f, suite, 1);
    fputs("\" name=\"", f);
    pc_xml_write_escaped(f, r->kernel, 1);
    if (r->e || *r->quantity) { /* a result of the caller's own is its name alone */
      fputs(": ", f);
      pc_xml_write_escaped(f, r->e ? r->e->quantity : r->quantity, 1);
      fputs(" ", f);
      pc_xml_write_escaped(f, r->expected, 1);
    }
    fputs("\" time=\"0\"", f);
    if (r->status == PERFCHECK_OK) {
      fputs("/>\n", f);
      continue;
    }
    fputs(">\n      <failure type=\"", f);
    fputs(r->type ? r->type : pc_failure_type(r->status), f);
    fputs("\" message=\"", f);
    pc_xml_write_escaped(f, r->message, 1);
    fputs("\">", f);
    pc_xml_write_escaped(f, r->e ? r->e->spec : r->spec, 0);
    fputs("\n", f);
    pc_xml_write_escaped(f, r->message, 0);
    fputs("</failure>\n    </testcase>\n", f);
  }
  fputs("  </testsuite>\n</testsuites>\n", f);
  if (fflush(f) != 0 || ferror(f)) return pc_err_set(err, PERFCHECK_ERROR_IO, "writing the JUnit XML failed");
  return PERFCHECK_OK;
}

/* ---- Public API ---------------------------------------------------------- */

PERFCHECK_API void perfcheck_expectation_init(perfcheck_expectation *e) {
  if (!e) return;
  memset(e, 0, sizeof *e);
  e->size = sizeof *e;
  e->comparison = PERFCHECK_CMP_LE;
  e->value = PC_NULL;
  e->tolerance_pct = PC_NULL;
}

PERFCHECK_API perfcheck_status perfcheck_expectations_create(perfcheck_expectations **out) {
  if (!out) return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_expectations_create: out is NULL");
  *out = calloc(1, sizeof **out);
  if (!*out) return pc_fail(PERFCHECK_ERROR_OUT_OF_MEMORY, "perfcheck_expectations_create: out of memory");
  return PERFCHECK_OK;
}

PERFCHECK_API void perfcheck_expectations_destroy(perfcheck_expectations *set) {
  if (!set) return;
  pc_results_clear(set);
  free(set->results);
  for (size_t i = 0; i < set->n; i++) pc_expectation_free(&set->items[i]);
  free(set->items);
  free(set);
}

/* Takes ownership of *e on success. */
static perfcheck_status pc_set_append(pc_expectations *set, pc_expectation *e) {
  if (pc_grow((void **)&set->items, &set->cap, set->n + 1, sizeof *set->items)) return PERFCHECK_ERROR_OUT_OF_MEMORY;
  /* Results point into items, which may have moved: drop them. */
  pc_results_clear(set);
  set->items[set->n++] = *e;
  return PERFCHECK_OK;
}

PERFCHECK_API perfcheck_status perfcheck_expectations_add(perfcheck_expectations *set, const char *spec) {
  if (!set || !spec) return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_expectations_add: NULL argument");
  pc_expectation e;
  pc_err err;
  perfcheck_status st = pc_expect_parse(spec, &e, &err);
  if (st == PERFCHECK_ERROR_PARSE) return pc_fail(st, "expectation \"%s\": %s", spec, err.msg);
  if (st != PERFCHECK_OK) return pc_fail(st, "expectation \"%s\": out of memory", spec);
  st = pc_set_append(set, &e);
  if (st != PERFCHECK_OK) {
    pc_expectation_free(&e);
    return pc_fail(st, "perfcheck_expectations_add: out of memory");
  }
  return PERFCHECK_OK;
}

PERFCHECK_API perfcheck_status perfcheck_expectations_add_parts(perfcheck_expectations *set,
                                                                const perfcheck_expectation *p) {
  const char *fn = "perfcheck_expectations_add_parts";
  if (!set || !p) return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "%s: NULL argument", fn);
  if (p->size < sizeof(perfcheck_expectation))
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "%s: e->size %zu is too small (call perfcheck_expectation_init)",
                   fn, p->size);
  if (!p->kernel || !p->kernel[0]) return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "%s: no kernel", fn);
  if (!p->quantity || !(isalpha((unsigned char)p->quantity[0]) || p->quantity[0] == '_'))
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "%s: no quantity, or it does not start with a letter", fn);
  for (const char *q = p->quantity; *q; q++)
    if (!pc_is_qchar(*q))
      return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "%s: quantity \"%s\" holds '%c' (letters, digits, _ and . only)",
                     fn, p->quantity, *q);
  if ((int)p->comparison < PERFCHECK_CMP_LT || (int)p->comparison > PERFCHECK_CMP_WITHIN)
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "%s: unknown comparison %d", fn, (int)p->comparison);
  if (pc_has(p->tolerance_pct) && !(p->tolerance_pct >= 0 && isfinite(p->tolerance_pct)))
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "%s: tolerance_pct must be NaN or a finite value >= 0", fn);

  pc_expectation e;
  memset(&e, 0, sizeof e);
  e.kind = pc_kind_of(p->quantity);
  e.cmp = p->comparison;
  e.tolerance_pct = p->tolerance_pct;
  e.value = PC_NULL;
  if (e.kind == PC_EXPECT_CAUSE || e.kind == PC_EXPECT_BOUND) {
    if (!p->word)
      return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "%s: %s needs a word (e->word), not a number", fn, p->quantity);
    if (e.cmp != PERFCHECK_CMP_EQ && e.cmp != PERFCHECK_CMP_NE)
      return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "%s: %s is a word: compare it with == or != only", fn,
                     p->quantity);
    if (pc_has(p->tolerance_pct))
      return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "%s: a word takes no tolerance", fn);
    e.word = e.kind == PC_EXPECT_CAUSE ? pc_cause_from_word(p->word, strlen(p->word))
                                       : pc_bound_from_word(p->word, strlen(p->word));
    if (e.word < 0)
      return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "%s: unknown %s word \"%s\"", fn, p->quantity, p->word);
  } else {
    if (p->word)
      return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "%s: %s is a number; e->word must be NULL", fn, p->quantity);
    if (!isfinite(p->value))
      return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "%s: the value must be a finite number", fn);
    e.value = p->value;
  }

  if (!pc_quantity_usable(e.kind, p->quantity)) {
    char *msg = pc_unknown_quantity_text(p->quantity);
    perfcheck_status st = pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "%s: %s", fn, msg ? msg : "unknown quantity");
    free(msg);
    return st;
  }
  e.is_regex = p->kernel_is_regex != 0;
  e.kernel = pc_strdup(p->kernel);
  e.quantity = pc_strdup(p->quantity);
  if (!e.kernel || !e.quantity) {
    free(e.kernel);
    free(e.quantity);
    return pc_fail(PERFCHECK_ERROR_OUT_OF_MEMORY, "%s: out of memory", fn);
  }
  if (e.is_regex) {
    size_t at;
    pc_err re;
    if (pc_regex_compile(&e.re, e.kernel, &at, &re) != PERFCHECK_OK) { /* pc_regex.h: the one guard */
      e.is_regex = 0; /* nothing compiled to free */
      pc_expectation_free(&e);
      return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "%s: bad regular expression \"%s\": %s", fn, p->kernel,
                     re.msg);
    }
  }

  /* The spec as one would write it, for messages and JUnit names. */
  pc_locale_guard lg;
  pc_locale_begin(&lg);
  char *value = pc_expected_text_sep(&e, "");
  pc_buf b = PC_BUF_INIT;
  pc_buf_printf(&b, "%s%s:%s%s%s", e.is_regex ? "regex:" : "", e.kernel, e.quantity,
                e.cmp == PERFCHECK_CMP_WITHIN ? " " : "", value ? value : "");
  pc_locale_end(&lg);
  e.spec = value ? pc_buf_take(&b) : NULL;
  pc_buf_free(&b);
  free(value);
  perfcheck_status st = e.spec ? pc_set_append(set, &e) : PERFCHECK_ERROR_OUT_OF_MEMORY;
  if (st != PERFCHECK_OK) {
    pc_expectation_free(&e);
    return pc_fail(st, "%s: out of memory", fn);
  }
  return PERFCHECK_OK;
}

PERFCHECK_API size_t perfcheck_expectations_count(const perfcheck_expectations *set) { return set ? set->n : 0; }

PERFCHECK_API perfcheck_status perfcheck_expectations_check(perfcheck_expectations *set,
                                                            const perfcheck_report *report, size_t *failures) {
  perfcheck_status st = pc_expect_check(set, report, failures);
  if (st == PERFCHECK_ERROR_INVALID_ARGUMENT)
    return pc_fail(st, "perfcheck_expectations_check: %s is NULL", set ? "the report" : "the set");
  if (st == PERFCHECK_ERROR_OUT_OF_MEMORY) return pc_fail(st, "perfcheck_expectations_check: out of memory");
  if (st == PERFCHECK_ERROR_EXPECTATION_FAILED)
    return pc_fail(st, "%zu expectation check%s failed", set->failures, set->failures == 1 ? "" : "s");
  return st;
}

PERFCHECK_API size_t perfcheck_expectations_result_count(const perfcheck_expectations *set) {
  return set ? set->nresults : 0;
}

PERFCHECK_API perfcheck_status perfcheck_expectations_result(const perfcheck_expectations *set, size_t index,
                                                             perfcheck_expectation_result *out) {
  if (!set || !out)
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_expectations_result: NULL argument");
  if (out->size < sizeof(size_t))
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_expectations_result: out->size %zu is too small",
                   out->size);
  if (index >= set->nresults)
    return pc_fail(PERFCHECK_ERROR_NOT_FOUND, "perfcheck_expectations_result: no result %zu (there are %zu)", index,
                   set->nresults);
  const pc_expect_result *r = &set->results[index];
  perfcheck_expectation_result info;
  memset(&info, 0, sizeof info);
  info.size = out->size;
  info.spec = r->e ? r->e->spec : r->spec;
  info.kernel = r->kernel;
  info.quantity = r->e ? r->e->quantity : r->quantity;
  info.status = r->status;
  info.measured = r->measured;
  info.measured_word = r->measured_word;
  info.expected = r->expected;
  info.message = r->message;
  info.advice = r->advice;
  memcpy(out, &info, out->size < sizeof info ? out->size : sizeof info);
  return PERFCHECK_OK;
}

PERFCHECK_API const char *perfcheck_expectations_failures_text(const perfcheck_expectations *set) {
  return set && set->failures_text ? set->failures_text : "";
}

PERFCHECK_API perfcheck_status perfcheck_expectations_add_result(perfcheck_expectations *set, const char *name,
                                                                 int passed, const char *message, size_t *failures) {
  if (failures) *failures = set ? set->failures : 1;
  if (!set || !name || !*name)
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_expectations_add_result: %s",
                   set ? "no name" : "the set is NULL");
  perfcheck_status st = pc_expect_add_result(set, name, name, "", "",
                                             passed ? PERFCHECK_OK : PERFCHECK_ERROR_EXPECTATION_FAILED, "failed",
                                             message && *message ? message : name);
  if (failures) *failures = st == PERFCHECK_OK ? set->failures : set->failures + 1;
  if (st != PERFCHECK_OK) return pc_fail(st, "perfcheck_expectations_add_result: out of memory");
  return set->failures ? PERFCHECK_ERROR_EXPECTATION_FAILED : PERFCHECK_OK;
}

PERFCHECK_API perfcheck_status perfcheck_expectations_write_junit(const perfcheck_expectations *set,
                                                                  const char *suite, FILE *stream) {
  if (!set || !stream)
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_expectations_write_junit: NULL argument");
  pc_err e;
  perfcheck_status st = pc_expect_write_junit(set, suite, stream, &e);
  return st == PERFCHECK_OK ? st : pc_fail(st, "%s", e.msg);
}

/* ---- One expectation at once (the test macros) --------------------------- */

/* The failure text of this thread's last perfcheck_expect is the thread's
 * last error (pc_fail): "" after one that passed. */
PERFCHECK_API const char *perfcheck_expect_message(void) { return perfcheck_last_error_message(); }

PERFCHECK_API size_t perfcheck_expect(const perfcheck_report *report, const char *spec, FILE *stream) {
  size_t failures = 1;
  perfcheck_expectations *set = NULL;
  perfcheck_status st = perfcheck_expectations_create(&set);
  if (st == PERFCHECK_OK && !spec) st = pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_expect: spec is NULL");
  if (st == PERFCHECK_OK) st = perfcheck_expectations_add(set, spec);
  if (st == PERFCHECK_OK && !report)
    st = pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "expectation \"%s\": no report to check (NULL)", spec);
  if (st == PERFCHECK_OK) {
    st = perfcheck_expectations_check(set, report, &failures);
    if (st == PERFCHECK_ERROR_EXPECTATION_FAILED) st = PERFCHECK_OK;
  }
  if (st != PERFCHECK_OK) {
    failures = 1; /* the thread's last error says why */
  } else if (failures) {
    (void)pc_fail(PERFCHECK_ERROR_EXPECTATION_FAILED, "%s", perfcheck_expectations_failures_text(set));
  } else {
    pc_clear_error();
  }
  if (stream && failures) {
    if (st != PERFCHECK_OK) {
      fprintf(stream, "perfcheck: expectation failed: %s\n", perfcheck_last_error_message());
    } else {
      const char *t = perfcheck_expectations_failures_text(set);
      while (*t) {
        const char *nl = strchr(t, '\n');
        size_t len = nl ? (size_t)(nl - t) : strlen(t);
        fprintf(stream, "perfcheck: expectation failed: %.*s\n", (int)len, t);
        t += len + (nl ? 1 : 0);
      }
    }
  }
  perfcheck_expectations_destroy(set);
  return failures;
}
