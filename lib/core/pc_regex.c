/* The regex guard and ncu's kernel-filter vocabulary (pc_regex.h says why
 * and what).  The guard reads the pattern the way glibc's regcomp reads a
 * POSIX extended regex: alternation, concatenation, pieces (an atom and its
 * repetition operators), groups, bracket expressions, escapes. */
#include "pc_regex.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sizes saturate here: far above every limit, far below overflow. */
#define PC_RX_SAT ((size_t)1 << 40)

typedef struct pc_rx {
  const char *p;
  size_t n, i;
  const char *rule; /* the refusal, or NULL */
  char detail[96];
  size_t at;
} pc_rx;

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static void pc_rx_refuse(pc_rx *x, size_t at, const char *rule, const char *fmt, ...) {
  if (x->rule) return; /* the first refusal stands */
  x->rule = rule;
  x->at = at;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(x->detail, sizeof x->detail, fmt, ap);
  va_end(ap);
}

static size_t pc_rx_mul(size_t a, size_t b) {
  if (a == 0 || b == 0) return 0;
  return a > PC_RX_SAT / b ? PC_RX_SAT : a * b;
}

static size_t pc_rx_add(size_t a, size_t b) { return a + b > PC_RX_SAT ? PC_RX_SAT : a + b; }

/* A bracket expression starting at x->i ('['); leaves x->i after its ']'
 * (or at the end when it is not closed: regcomp then says so). */
static void pc_rx_bracket(pc_rx *x) {
  size_t j = x->i + 1;
  if (j < x->n && x->p[j] == '^') j++;
  if (j < x->n && x->p[j] == ']') j++; /* a ']' first is literal */
  while (j < x->n && x->p[j] != ']') {
    if (x->p[j] == '[' && j + 1 < x->n && (x->p[j + 1] == ':' || x->p[j + 1] == '.' || x->p[j + 1] == '=')) {
      const char close[3] = {x->p[j + 1], ']', '\0'};
      const char *end = strstr(x->p + j + 2, close);
      j = end ? (size_t)(end - x->p) + 2 : x->n;
      continue;
    }
    j++;
  }
  x->i = j < x->n ? j + 1 : x->n;
}

/* "{m}", "{m,}", "{m,n}" at x->i: returns 1 and the counts (n = -1 for no
 * upper bound) with x->i after '}'; 0 when it is not an interval (glibc then
 * takes '{' literally or refuses it; either way regcomp decides). */
static int pc_rx_interval(pc_rx *x, long *m, long *n) {
  size_t j = x->i + 1;
  long a = 0, b = -1;
  int digits = 0;
  while (j < x->n && x->p[j] >= '0' && x->p[j] <= '9') {
    if (a < 100000) a = a * 10 + (x->p[j] - '0');
    j++, digits++;
  }
  if (!digits) return 0;
  if (j < x->n && x->p[j] == ',') {
    j++;
    int d2 = 0;
    long v = 0;
    while (j < x->n && x->p[j] >= '0' && x->p[j] <= '9') {
      if (v < 100000) v = v * 10 + (x->p[j] - '0');
      j++, d2++;
    }
    b = d2 ? v : -1;
  } else {
    b = a;
  }
  if (j >= x->n || x->p[j] != '}') return 0;
  x->i = j + 1;
  *m = a;
  *n = b;
  return 1;
}

static size_t pc_rx_alternation(pc_rx *x, int depth_parens, int *nesting);

/* One atom at x->i; its expanded size, and the counted-repetition nesting
 * inside it.  Returns 0 with x->i unchanged when there is no atom here
 * ('|', ')' or the end). */
static size_t pc_rx_atom(pc_rx *x, int depth_parens, int *nesting) {
  *nesting = 0;
  char c = x->p[x->i];
  if (c == '(') {
    if (depth_parens > 255) {
      pc_rx_refuse(x, x->i, "length", "groups nested more than 255 deep");
      x->i = x->n;
      return 1;
    }
    x->i++;
    size_t s = pc_rx_alternation(x, depth_parens + 1, nesting);
    if (x->i < x->n && x->p[x->i] == ')') x->i++; /* unclosed: regcomp says so */
    return s ? s : 1;
  }
  if (c == '[') {
    pc_rx_bracket(x);
    return 1;
  }
  if (c == '\\') {
    if (x->i + 1 < x->n && x->p[x->i + 1] >= '1' && x->p[x->i + 1] <= '9') {
      pc_rx_refuse(x, x->i, "backref",
                   "back-reference \\%c (it makes matching backtrack, exponentially in the name's length)",
                   x->p[x->i + 1]);
      x->i = x->n;
      return 1;
    }
    x->i += x->i + 1 < x->n ? 2 : 1;
    return 1;
  }
  x->i++; /* a character, '.', '^', '$', or an operator glibc takes literally */
  return 1;
}

/* One branch: pieces up to '|', ')' or the end. */
static size_t pc_rx_branch(pc_rx *x, int depth_parens, int *nesting) {
  size_t total = 0;
  *nesting = 0;
  while (x->i < x->n && !x->rule) {
    char c = x->p[x->i];
    if (c == '|' || (c == ')' && depth_parens > 0)) break;
    int inner = 0;
    size_t size;
    if (c == '*' || c == '+' || c == '?' || c == '{') {
      /* An operator with nothing before it in this branch (glibc takes it
       * literally or refuses it): a one-character atom for the size. */
      size = 1;
      x->i++;
    } else {
      size = pc_rx_atom(x, depth_parens, &inner);
    }
    /* The repetition operators after the atom. */
    int ops = 0;
    while (x->i < x->n && !x->rule) {
      char o = x->p[x->i];
      size_t op_at = x->i;
      long m = 0, n = 0;
      if (o == '*' || o == '?') {
        x->i++;
      } else if (o == '+') {
        x->i++;
        size = pc_rx_mul(size, 2); /* glibc writes a+ as aa* */
      } else if (o == '{' && pc_rx_interval(x, &m, &n)) {
        long top = n >= 0 ? n : m + 1;
        if (m > PC_REGEX_MAX_COUNT || n > PC_REGEX_MAX_COUNT) {
          pc_rx_refuse(x, op_at, "count", "a repetition count above %d (%.*s)", PC_REGEX_MAX_COUNT,
                       (int)(x->i - op_at), x->p + op_at);
          break;
        }
        if (inner + 1 > PC_REGEX_MAX_NESTING) {
          pc_rx_refuse(x, op_at, "nesting", "counted repetition nested more than %d deep", PC_REGEX_MAX_NESTING);
          break;
        }
        inner++;
        size = pc_rx_mul(size, top > 0 ? (size_t)top : 1);
      } else {
        break;
      }
      if (ops++ > 0) {
        pc_rx_refuse(x, op_at, "stacked",
                     "stacked repetition operators (POSIX leaves them undefined; group instead: (a+)+)");
        break;
      }
    }
    if (inner > *nesting) *nesting = inner;
    total = pc_rx_add(total, size);
  }
  return total;
}

static size_t pc_rx_alternation(pc_rx *x, int depth_parens, int *nesting) {
  size_t total = 0;
  *nesting = 0;
  for (;;) {
    int inner = 0;
    total = pc_rx_add(total, pc_rx_branch(x, depth_parens, &inner));
    if (inner > *nesting) *nesting = inner;
    if (x->rule || x->i >= x->n || x->p[x->i] != '|') break;
    x->i++;
  }
  return total;
}

int pc_regex_check(const char *pattern, size_t *at, char *why, size_t whylen) {
  size_t dummy;
  if (!at) at = &dummy;
  *at = 0;
  if (why && whylen) why[0] = '\0';
  if (!pattern) {
    if (why && whylen) snprintf(why, whylen, "no pattern");
    return -1;
  }
  pc_rx x;
  memset(&x, 0, sizeof x);
  x.p = pattern;
  x.n = strlen(pattern);
  if (x.n > PC_REGEX_MAX_LEN) {
    pc_rx_refuse(&x, PC_REGEX_MAX_LEN, "length", "the pattern is longer than %d characters", PC_REGEX_MAX_LEN);
  } else {
    int nesting = 0;
    size_t size = 0;
    for (;;) { /* an unmatched ')' at top level is literal to glibc: go on after it */
      size = pc_rx_add(size, pc_rx_alternation(&x, 0, &nesting));
      if (x.rule || x.i >= x.n) break;
      x.i++;
      size = pc_rx_add(size, 1);
    }
    if (!x.rule && size > PC_REGEX_MAX_EXPANSION)
      pc_rx_refuse(&x, 0, "expansion",
                   "%s%zu atoms once its repetitions are written out, more than %d",
                   size >= PC_RX_SAT ? "over " : "", size >= PC_RX_SAT ? PC_RX_SAT : size, PC_REGEX_MAX_EXPANSION);
  }
  if (!x.rule) return 0;
  *at = x.at;
  if (why && whylen) snprintf(why, whylen, "refused by the regex guard (rule \"%s\"): %s", x.rule, x.detail);
  return -1;
}

int pc_regex_compile(regex_t *re, const char *pattern, size_t *at, char *why, size_t whylen) {
  size_t dummy;
  if (!at) at = &dummy;
  if (pc_regex_check(pattern, at, why, whylen) != 0) return -1;
  int rc = regcomp(re, pattern, REG_EXTENDED | REG_NOSUB);
  if (rc == 0) return 0;
  *at = 0;
  if (why && whylen) regerror(rc, re, why, whylen);
  return -1;
}

char *pc_kernel_filter_regex(const char *spec, size_t *at, char *why, size_t whylen) {
  size_t dummy;
  if (!at) at = &dummy;
  *at = 0;
  if (why && whylen) why[0] = '\0';
  if (!spec || !*spec) {
    if (why && whylen) snprintf(why, whylen, "an empty kernel filter (give a function name or regex:EXPR)");
    return NULL;
  }
  if (strncmp(spec, "regex:", 6) == 0) {
    const char *expr = spec + 6;
    if (!*expr) {
      if (why && whylen) snprintf(why, whylen, "\"regex:\" needs an expression after it");
      *at = 6;
      return NULL;
    }
    regex_t re;
    if (pc_regex_compile(&re, expr, at, why, whylen) != 0) {
      *at += 6;
      return NULL;
    }
    regfree(&re);
    char *out = strdup(expr);
    if (!out && why && whylen) snprintf(why, whylen, "out of memory");
    return out;
  }
  /* An exact function name: escaped, then anchored.  Built by us from
   * literal characters only, so it needs no guard (its DFA is a chain). */
  size_t n = strlen(spec);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)spec[i];
    if (c < 0x20 || c == 0x7f) {
      *at = i;
      if (why && whylen) snprintf(why, whylen, "a control character (0x%02x) in the kernel name", c);
      return NULL;
    }
  }
  const int templated = strchr(spec, '<') != NULL;
  static const char head[] = "^(.*::)?", tail_plain[] = "(<.*)?$", tail_templated[] = "$";
  const char *tail = templated ? tail_templated : tail_plain;
  char *out = malloc(sizeof head + 2 * n + sizeof tail_plain);
  if (!out) {
    if (why && whylen) snprintf(why, whylen, "out of memory");
    return NULL;
  }
  size_t o = 0;
  memcpy(out, head, sizeof head - 1);
  o = sizeof head - 1;
  for (size_t i = 0; i < n; i++) {
    if (strchr("\\.[]()*+?{}|^$", spec[i])) out[o++] = '\\';
    out[o++] = spec[i];
  }
  memcpy(out + o, tail, strlen(tail) + 1);
  regex_t re;
  int rc = regcomp(&re, out, REG_EXTENDED | REG_NOSUB);
  if (rc != 0) { /* not expected: every special character is escaped */
    if (why && whylen) regerror(rc, &re, why, whylen);
    free(out);
    return NULL;
  }
  regfree(&re);
  return out;
}
