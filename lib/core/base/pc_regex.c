/* The regex guard and ncu's kernel-filter vocabulary (pc_regex.h says why
 * and what).  The guard reads the pattern the way glibc's regcomp reads a
 * POSIX extended regex: alternation, concatenation, pieces (an atom and its
 * repetition operators), groups, bracket expressions, escapes. */
#include "base/pc_buf.h"
#include "base/pc_map.h"
#include "base/pc_regex.h"

#include <regex.h>
#include <stdarg.h>
#include <stdint.h>
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

/* "{m}", "{m,}", "{m,n}" or glibc's "{,n}" (= {0,n}) at x->i: returns 1 and
 * the counts (n = -1 for no upper bound) with x->i after '}'; 0 when it is
 * not an interval (glibc then refuses it; regcomp decides). */
static int pc_rx_interval(pc_rx *x, long *m, long *n) {
  size_t j = x->i + 1;
  long a = 0, b = -1;
  int digits = 0;
  while (j < x->n && x->p[j] >= '0' && x->p[j] <= '9') {
    if (a < 100000) a = a * 10 + (x->p[j] - '0');
    j++, digits++;
  }
  if (!digits && !(j < x->n && x->p[j] == ',')) return 0;
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
    if (x->i + 1 < x->n && strchr("bB<>", x->p[x->i + 1])) {
      pc_rx_refuse(x, x->i, "boundary",
                   "word-boundary assertion \\%c (not supported: write the bytes around it, [^[:alnum:]_], or ^ $)",
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

perfcheck_status pc_regex_check(const char *pattern, size_t *at, pc_err *err) {
  size_t dummy;
  if (!at) at = &dummy;
  *at = 0;
  pc_err_clear(err);
  if (!pattern) return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "no pattern");
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
  if (!x.rule) return PERFCHECK_OK;
  *at = x.at;
  return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "refused by the regex guard (rule \"%s\"): %s", x.rule,
                    x.detail);
}

/* ==== The matcher (pc_regex.h): pattern -> NFA program -> lazy DFA ========== */

/* The parse tree of a pattern the guard and regcomp accepted. */
enum { PC_RN_EMPTY, PC_RN_SET, PC_RN_BOL, PC_RN_EOL, PC_RN_CAT, PC_RN_ALT, PC_RN_REP };

typedef struct pc_rn {
  unsigned char kind;
  uint32_t a, b;     /* children (CAT, ALT), child (REP), set index (SET) */
  int min, max;      /* REP: max -1 for no bound */
} pc_rn;

/* NFA instructions (Thompson/Pike): CLASS consumes a byte of its set. */
enum { PC_RI_CLASS, PC_RI_SPLIT, PC_RI_JMP, PC_RI_BOL, PC_RI_EOL, PC_RI_MATCH };

typedef struct pc_ri {
  unsigned char op;
  uint32_t x, y; /* CLASS: x the set; SPLIT: x then y; JMP: x */
} pc_ri;

typedef struct pc_rset {
  unsigned char bits[32];
} pc_rset;

struct pc_rx_prog {
  pc_ri *code;
  uint32_t ncode;
  size_t capcode;
  pc_rset *sets;
  uint32_t nsets;
  size_t capsets;
  unsigned char byteclass[256]; /* byte -> its class: bytes no set tells apart share one */
  uint32_t nbc;
  unsigned char *set_has;       /* [set * nbc + class]: the set holds the class's bytes */
  uint32_t *start0, nstart0;    /* the closure of pc 0 at the name's start (^ passes) */
  uint32_t *startn, nstartn;    /* the closure of pc 0 anywhere else */
};

typedef struct pc_rp {
  const unsigned char *p;
  size_t n, i;
  pc_rn *nodes;
  uint32_t nnodes;
  size_t capnodes;
  struct pc_rx_prog *prog;
  int oom, bad;
} pc_rp;

static int pc_rs_has(const pc_rset *s, unsigned c) { return (s->bits[c >> 3] >> (c & 7)) & 1; }
static void pc_rs_add(pc_rset *s, unsigned c) { s->bits[c >> 3] |= (unsigned char)(1u << (c & 7)); }

static uint32_t pc_rp_node(pc_rp *r, unsigned char kind, uint32_t a, uint32_t b) {
  if (pc_grow((void **)&r->nodes, &r->capnodes, (size_t)r->nnodes + 1, sizeof *r->nodes)) {
    r->oom = 1;
    return 0;
  }
  pc_rn *n = &r->nodes[r->nnodes];
  n->kind = kind;
  n->a = a;
  n->b = b;
  n->min = n->max = 0;
  return r->nnodes++;
}

static uint32_t pc_rp_set(pc_rp *r, const pc_rset *s) {
  struct pc_rx_prog *g = r->prog;
  for (uint32_t i = 0; i < g->nsets; i++)
    if (memcmp(g->sets[i].bits, s->bits, 32) == 0) return pc_rp_node(r, PC_RN_SET, i, 0);
  if (pc_grow((void **)&g->sets, &g->capsets, (size_t)g->nsets + 1, sizeof *g->sets)) {
    r->oom = 1;
    return 0;
  }
  g->sets[g->nsets] = *s;
  return pc_rp_node(r, PC_RN_SET, g->nsets++, 0);
}

/* The ASCII classes, as the C locale has them. */
static int pc_rs_class(pc_rset *s, const char *name, size_t len, int add) {
  static const char *const names[] = {"alpha", "digit", "alnum", "upper", "lower",  "space",
                                      "blank", "punct", "xdigit", "print", "graph", "cntrl"};
  int k = -1;
  for (int i = 0; i < 12; i++)
    if (strlen(names[i]) == len && memcmp(names[i], name, len) == 0) k = i;
  if (k < 0) return -1;
  for (unsigned c = 0; c < 128; c++) {
    int up = c >= 'A' && c <= 'Z', lo = c >= 'a' && c <= 'z', dg = c >= '0' && c <= '9';
    int sp = c == ' ' || (c >= '\t' && c <= '\r');
    int pr = c >= 0x20 && c < 0x7f;
    int in = 0;
    switch (k) {
      case 0: in = up || lo; break;
      case 1: in = dg; break;
      case 2: in = up || lo || dg; break;
      case 3: in = up; break;
      case 4: in = lo; break;
      case 5: in = sp; break;
      case 6: in = c == ' ' || c == '\t'; break;
      case 7: in = pr && c != ' ' && !up && !lo && !dg; break;
      case 8: in = dg || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); break;
      case 9: in = pr; break;
      case 10: in = pr && c != ' '; break;
      default: in = c < 0x20 || c == 0x7f; break;
    }
    if (in && add) pc_rs_add(s, c);
  }
  return 0;
}

/* One element of a bracket expression at r->i: a byte (also [=c=] and
 * [.c.]), or a [:class:] added to s (*is_class set). -1: not understood. */
static int pc_rp_bracket_elem(pc_rp *r, pc_rset *s, int *is_class) {
  *is_class = 0;
  if (r->i + 1 < r->n && r->p[r->i] == '[' && (r->p[r->i + 1] == ':' || r->p[r->i + 1] == '=' || r->p[r->i + 1] == '.')) {
    const unsigned char kind = r->p[r->i + 1];
    size_t j = r->i + 2;
    while (j + 1 < r->n && !(r->p[j] == kind && r->p[j + 1] == ']')) j++;
    if (j + 1 >= r->n) return -1;
    const unsigned char *name = r->p + r->i + 2;
    size_t len = j - (r->i + 2);
    r->i = j + 2;
    if (kind == ':') {
      *is_class = 1;
      return pc_rs_class(s, (const char *)name, len, 1) == 0 ? 0 : -1;
    }
    return len == 1 ? name[0] : -1;
  }
  return r->p[r->i++];
}

static uint32_t pc_rp_bracket(pc_rp *r) {
  pc_rset s;
  memset(&s, 0, sizeof s);
  r->i++; /* '[' */
  int neg = 0;
  if (r->i < r->n && r->p[r->i] == '^') {
    neg = 1;
    r->i++;
  }
  int first = 1;
  while (r->i < r->n && (first || r->p[r->i] != ']')) {
    first = 0;
    int is_class;
    int lo = pc_rp_bracket_elem(r, &s, &is_class);
    if (lo < 0) {
      r->bad = 1;
      return 0;
    }
    if (is_class) continue;
    if (r->i + 1 < r->n && r->p[r->i] == '-' && r->p[r->i + 1] != ']') {
      r->i++;
      int hi = pc_rp_bracket_elem(r, &s, &is_class);
      if (hi < 0 || is_class || hi < lo) {
        r->bad = 1;
        return 0;
      }
      for (int c = lo; c <= hi; c++) pc_rs_add(&s, (unsigned)c);
    } else {
      pc_rs_add(&s, (unsigned)lo);
    }
  }
  if (r->i >= r->n) {
    r->bad = 1;
    return 0;
  }
  r->i++; /* ']' */
  if (neg)
    for (int k = 0; k < 32; k++) s.bits[k] = (unsigned char)~s.bits[k];
  s.bits[0] &= (unsigned char)~1u; /* a name never holds a NUL */
  return pc_rp_set(r, &s);
}

static uint32_t pc_rp_alt(pc_rp *r, int depth);

static uint32_t pc_rp_atom(pc_rp *r, int depth) {
  unsigned char c = r->p[r->i];
  pc_rset s;
  memset(&s, 0, sizeof s);
  if (c == '(') {
    r->i++;
    uint32_t inner = pc_rp_alt(r, depth + 1);
    if (r->i < r->n && r->p[r->i] == ')')
      r->i++;
    else
      r->bad = 1;
    return inner;
  }
  if (c == '[') return pc_rp_bracket(r);
  if (c == '.') {
    r->i++;
    memset(s.bits, 0xff, sizeof s.bits);
    s.bits[0] &= (unsigned char)~1u;
    return pc_rp_set(r, &s);
  }
  if (c == '^' || c == '$') {
    r->i++;
    return pc_rp_node(r, c == '^' ? PC_RN_BOL : PC_RN_EOL, 0, 0);
  }
  if (c == '\\') {
    if (r->i + 1 >= r->n) {
      r->bad = 1;
      return 0;
    }
    unsigned char e = r->p[r->i + 1];
    r->i += 2;
    switch (e) {
      case 'w':
      case 'W':
        pc_rs_class(&s, "alnum", 5, 1);
        pc_rs_add(&s, '_');
        break;
      case 's':
      case 'S':
        pc_rs_class(&s, "space", 5, 1);
        break;
      case '`':
        return pc_rp_node(r, PC_RN_BOL, 0, 0);
      case '\'':
        return pc_rp_node(r, PC_RN_EOL, 0, 0);
      default:
        if ((e >= '1' && e <= '9') || strchr("bB<>", e)) { /* the guard refuses these */
          r->bad = 1;
          return 0;
        }
        pc_rs_add(&s, e);
        return pc_rp_set(r, &s);
    }
    if (e == 'W' || e == 'S') {
      for (int k = 0; k < 32; k++) s.bits[k] = (unsigned char)~s.bits[k];
      s.bits[0] &= (unsigned char)~1u;
    }
    return pc_rp_set(r, &s);
  }
  r->i++; /* a literal byte, ')' at the top level included */
  pc_rs_add(&s, c);
  return pc_rp_set(r, &s);
}

/* {m}, {m,}, {m,n}, {,n} at r->i (the guard and regcomp checked it). */
static int pc_rp_interval(pc_rp *r, int *min, int *max) {
  size_t j = r->i + 1;
  long a = 0, b = -1;
  while (j < r->n && r->p[j] >= '0' && r->p[j] <= '9') a = a * 10 + (r->p[j++] - '0');
  if (j < r->n && r->p[j] == ',') {
    j++;
    if (j < r->n && r->p[j] >= '0' && r->p[j] <= '9') {
      b = 0;
      while (j < r->n && r->p[j] >= '0' && r->p[j] <= '9') b = b * 10 + (r->p[j++] - '0');
    }
  } else {
    b = a;
  }
  if (j >= r->n || r->p[j] != '}' || a > PC_REGEX_MAX_COUNT || b > PC_REGEX_MAX_COUNT) return -1;
  r->i = j + 1;
  *min = (int)a;
  *max = (int)b;
  return 0;
}

static uint32_t pc_rp_branch(pc_rp *r, int depth) {
  uint32_t acc = pc_rp_node(r, PC_RN_EMPTY, 0, 0);
  int empty = 1;
  while (r->i < r->n && !r->bad && !r->oom) {
    unsigned char c = r->p[r->i];
    if (c == '|' || (c == ')' && depth > 0)) break;
    uint32_t atom = pc_rp_atom(r, depth);
    if (r->i < r->n && !r->bad) {
      unsigned char o = r->p[r->i];
      int min = -2, max = 0;
      if (o == '*') min = 0, max = -1;
      if (o == '+') min = 1, max = -1;
      if (o == '?') min = 0, max = 1;
      if (min != -2) {
        r->i++;
      } else if (o == '{') {
        if (pc_rp_interval(r, &min, &max) != 0) r->bad = 1;
      }
      if (min != -2 && !r->bad) {
        atom = pc_rp_node(r, PC_RN_REP, atom, 0);
        if (!r->oom) {
          r->nodes[atom].min = min;
          r->nodes[atom].max = max;
        }
      }
    }
    acc = empty ? atom : pc_rp_node(r, PC_RN_CAT, acc, atom);
    empty = 0;
  }
  return acc;
}

static uint32_t pc_rp_alt(pc_rp *r, int depth) {
  uint32_t acc = pc_rp_branch(r, depth);
  while (r->i < r->n && r->p[r->i] == '|' && !r->bad && !r->oom) {
    r->i++;
    acc = pc_rp_node(r, PC_RN_ALT, acc, pc_rp_branch(r, depth));
  }
  return acc;
}

static uint32_t pc_rg_emit(pc_rp *r, unsigned char op, uint32_t x, uint32_t y) {
  struct pc_rx_prog *g = r->prog;
  if (pc_grow((void **)&g->code, &g->capcode, (size_t)g->ncode + 1, sizeof *g->code)) {
    r->oom = 1;
    return 0;
  }
  g->code[g->ncode].op = op;
  g->code[g->ncode].x = x;
  g->code[g->ncode].y = y;
  return g->ncode++;
}

/* Emits node k; repetition writes its operand out (bounded by the guard). */
static void pc_rg_node(pc_rp *r, uint32_t k) {
  if (r->oom) return;
  const pc_rn n = r->nodes[k];
  struct pc_rx_prog *g = r->prog;
  switch (n.kind) {
    case PC_RN_EMPTY:
      return;
    case PC_RN_SET:
      pc_rg_emit(r, PC_RI_CLASS, n.a, 0);
      return;
    case PC_RN_BOL:
      pc_rg_emit(r, PC_RI_BOL, 0, 0);
      return;
    case PC_RN_EOL:
      pc_rg_emit(r, PC_RI_EOL, 0, 0);
      return;
    case PC_RN_CAT:
      pc_rg_node(r, n.a);
      pc_rg_node(r, n.b);
      return;
    case PC_RN_ALT: {
      uint32_t split = pc_rg_emit(r, PC_RI_SPLIT, 0, 0);
      pc_rg_node(r, n.a);
      uint32_t jmp = pc_rg_emit(r, PC_RI_JMP, 0, 0);
      uint32_t second = g->ncode;
      pc_rg_node(r, n.b);
      if (r->oom) return;
      g->code[split].x = split + 1;
      g->code[split].y = second;
      g->code[jmp].x = g->ncode;
      return;
    }
    default: { /* PC_RN_REP */
      for (int i = 0; i < n.min; i++) pc_rg_node(r, n.a);
      if (n.max < 0) {
        uint32_t loop = pc_rg_emit(r, PC_RI_SPLIT, 0, 0);
        pc_rg_node(r, n.a);
        pc_rg_emit(r, PC_RI_JMP, loop, 0);
        if (r->oom) return;
        g->code[loop].x = loop + 1;
        g->code[loop].y = g->ncode;
        return;
      }
      /* The optional copies: each may be skipped to the end. */
      uint32_t first = g->ncode, nopt = (uint32_t)(n.max - n.min);
      uint32_t *splits = nopt ? malloc(nopt * sizeof *splits) : NULL;
      if (nopt && !splits) {
        r->oom = 1;
        return;
      }
      (void)first;
      for (uint32_t i = 0; i < nopt; i++) {
        splits[i] = pc_rg_emit(r, PC_RI_SPLIT, 0, 0);
        pc_rg_node(r, n.a);
      }
      if (!r->oom)
        for (uint32_t i = 0; i < nopt; i++) {
          g->code[splits[i]].x = splits[i] + 1;
          g->code[splits[i]].y = g->ncode;
        }
      free(splits);
      return;
    }
  }
}

/* ---- one match: the DFA, built as the name is read ---------------------------- */

#define PC_RX_DFA_STATES 4096     /* then the cache starts again (memory stays bounded) */
unsigned pc_regex_dfa_state_limit = PC_RX_DFA_STATES; /* pc_regex.h: tests lower it */
#define PC_RX_DFA_POOL (1u << 20) /* NFA states held by the DFA's states, at most */

typedef struct pc_rx_state {
  uint32_t off, len;   /* its NFA states: pool[off .. off+len), in no order */
  uint32_t hash;
  unsigned char match; /* MATCH is among them */
  unsigned char eol;   /* an EOL is among them (it may match at the end) */
} pc_rx_state;

typedef struct pc_rx_run {
  const struct pc_rx_prog *g;
  uint32_t *mark, gen; /* per pc: the last closure that visited it */
  uint32_t *stack, *list;
  uint32_t nlist;
  pc_rx_state *st;
  int32_t *trans;      /* [state * nbc + class]: -1 unknown */
  uint32_t nst, capst;
  uint32_t *pool;
  uint32_t npool;
  size_t cappool;
  pc_map state_of;     /* hash of a state's instruction set -> its id */
  unsigned resets;     /* times the cache started again */
} pc_rx_run;

/* Adds the closure of pc to run->list (marks by run->gen): CLASS, MATCH and
 * (unless eol) EOL instructions are what a state keeps. */
static void pc_rx_closure(pc_rx_run *u, uint32_t pc, int bol, int eol) {
  const pc_ri *code = u->g->code;
  uint32_t sp = 0;
  u->stack[sp++] = pc;
  while (sp) {
    uint32_t q = u->stack[--sp];
    if (u->mark[q] == u->gen) continue;
    u->mark[q] = u->gen;
    switch (code[q].op) {
      case PC_RI_SPLIT:
        u->stack[sp++] = code[q].y;
        u->stack[sp++] = code[q].x;
        break;
      case PC_RI_JMP:
        u->stack[sp++] = code[q].x;
        break;
      case PC_RI_BOL:
        if (bol) u->stack[sp++] = q + 1;
        break;
      case PC_RI_EOL:
        if (eol)
          u->stack[sp++] = q + 1;
        else
          u->list[u->nlist++] = q;
        break;
      default: /* CLASS, MATCH */
        u->list[u->nlist++] = q;
        break;
    }
  }
}

/* A set's hash is the sum of its members' (order does not matter, so the
 * list is never sorted). */
static uint32_t pc_rx_mix(uint32_t x) {
  x = (x + 1) * 0x9E3779B1u;
  x ^= x >> 15;
  x *= 0x85EBCA77u;
  return x ^ (x >> 13);
}

/* Whether state s holds exactly run->list: as many members, each marked by
 * the closure that made the list (run->gen marks exactly the list's CLASS,
 * MATCH and EOL instructions among the ones it visited). */
static int pc_rx_same(const pc_rx_run *u, const pc_rx_state *s) {
  if (s->len != u->nlist) return 0;
  for (uint32_t i = 0; i < s->len; i++)
    if (u->mark[u->pool[s->off + i]] != u->gen) return 0;
  return 1;
}

static int pc_rx_same_id(uint32_t id, const void *arg) {
  const pc_rx_run *u = arg;
  return pc_rx_same(u, &u->st[id]);
}

/* The state of run->list, found or added; -1 out of memory.  Adding may
 * start the cache again (run->resets counts it). */
static int32_t pc_rx_state_of(pc_rx_run *u) {
  const uint32_t nbc = u->g->nbc;
  uint32_t h = 0;
  for (uint32_t i = 0; i < u->nlist; i++) h += pc_rx_mix(u->list[i]);
  const uint32_t known = pc_map_find(&u->state_of, h, pc_rx_same_id, u);
  if (known != PC_NONE) return (int32_t)known;
  if (u->nst >= pc_regex_dfa_state_limit || u->npool + u->nlist > PC_RX_DFA_POOL) {
    u->nst = 0;
    u->npool = 0;
    pc_map_clear(&u->state_of);
    u->resets++;
  }
  if (u->nst == u->capst) {
    uint32_t cap = u->capst ? u->capst * 2 : 16;
    pc_rx_state *st = realloc(u->st, cap * sizeof *st);
    if (st) u->st = st;
    int32_t *tr = st ? realloc(u->trans, (size_t)cap * nbc * sizeof *tr) : NULL;
    if (!st || !tr) return -1;
    u->trans = tr;
    u->capst = cap;
  }
  if (pc_grow((void **)&u->pool, &u->cappool, (size_t)u->npool + u->nlist, sizeof *u->pool)) return -1;
  if (pc_map_insert(&u->state_of, h, u->nst)) return -1;
  pc_rx_state *s = &u->st[u->nst];
  s->off = u->npool;
  s->len = u->nlist;
  s->hash = h;
  s->match = s->eol = 0;
  for (uint32_t i = 0; i < u->nlist; i++) {
    u->pool[u->npool++] = u->list[i];
    const unsigned char op = u->g->code[u->list[i]].op;
    if (op == PC_RI_MATCH) s->match = 1;
    if (op == PC_RI_EOL) s->eol = 1;
  }
  for (uint32_t c = 0; c < nbc; c++) u->trans[(size_t)u->nst * nbc + c] = -1;
  return (int32_t)(u->nst++);
}

/* The state after a byte of class c in state `from`; -1 out of memory. */
static int32_t pc_rx_step(pc_rx_run *u, int32_t from, uint32_t c) {
  const struct pc_rx_prog *g = u->g;
  u->gen++;
  u->nlist = 0;
  const pc_rx_state s = u->st[from];
  for (uint32_t i = 0; i < s.len; i++) {
    const uint32_t pc = u->pool[s.off + i];
    if (g->code[pc].op == PC_RI_CLASS && g->set_has[(size_t)g->code[pc].x * g->nbc + c])
      pc_rx_closure(u, pc + 1, 0, 0);
  }
  for (uint32_t i = 0; i < g->nstartn; i++) /* a match may also start after this byte */
    if (u->mark[g->startn[i]] != u->gen) {
      u->mark[g->startn[i]] = u->gen;
      u->list[u->nlist++] = g->startn[i];
    }
  const unsigned resets = u->resets;
  int32_t to = pc_rx_state_of(u);
  if (to >= 0 && resets == u->resets) u->trans[(size_t)from * g->nbc + c] = to; /* `from` is still there */
  return to;
}

/* Whether state k matches at the end of the name (its EOLs pass there). */
static int pc_rx_end(pc_rx_run *u, int32_t k, int at_start) {
  const pc_rx_state s = u->st[k];
  if (s.match) return 1;
  if (!s.eol) return 0;
  u->gen++;
  u->nlist = 0;
  for (uint32_t i = 0; i < s.len; i++) {
    const uint32_t pc = u->pool[s.off + i];
    if (u->g->code[pc].op == PC_RI_EOL) pc_rx_closure(u, pc + 1, at_start, 1);
  }
  for (uint32_t i = 0; i < u->nlist; i++)
    if (u->g->code[u->list[i]].op == PC_RI_MATCH) return 1;
  return 0;
}

/* The rest of the name from p, after state `from`, as a plain NFA step per
 * byte: used once the cache has started again twice (the name keeps making
 * states the DFA has not seen, so storing them only copies them).  The same
 * answer, and the same linear bound, without the copies. */
static int pc_rx_simulate(pc_rx_run *u, int32_t from, const unsigned char *p, int at_start) {
  const struct pc_rx_prog *g = u->g;
  uint32_t *cur = malloc(((size_t)g->ncode + 1) * sizeof *cur);
  if (!cur) return -1;
  const pc_rx_state s0 = u->st[from];
  uint32_t ncur = s0.len;
  memcpy(cur, u->pool + s0.off, s0.len * sizeof *cur);
  int rc = 0;
  for (; *p; p++) {
    const uint32_t c = g->byteclass[*p];
    u->gen++;
    u->nlist = 0;
    for (uint32_t i = 0; i < ncur; i++)
      if (g->code[cur[i]].op == PC_RI_CLASS && g->set_has[(size_t)g->code[cur[i]].x * g->nbc + c])
        pc_rx_closure(u, cur[i] + 1, 0, 0);
    for (uint32_t i = 0; i < g->nstartn; i++)
      if (u->mark[g->startn[i]] != u->gen) {
        u->mark[g->startn[i]] = u->gen;
        u->list[u->nlist++] = g->startn[i];
      }
    for (uint32_t i = 0; i < u->nlist; i++)
      if (g->code[u->list[i]].op == PC_RI_MATCH) {
        free(cur);
        return 1;
      }
    uint32_t *t = cur;
    cur = u->list;
    u->list = t;
    ncur = u->nlist;
  }
  /* The end: the EOLs among the states pass. */
  u->gen++;
  u->nlist = 0;
  for (uint32_t i = 0; i < ncur; i++)
    if (g->code[cur[i]].op == PC_RI_EOL) pc_rx_closure(u, cur[i] + 1, at_start, 1);
  for (uint32_t i = 0; i < u->nlist && !rc; i++) rc = g->code[u->list[i]].op == PC_RI_MATCH;
  free(cur);
  return rc;
}

int pc_regex_match(const pc_regex *re, const char *subject) {
  if (!re || !re->prog || !subject) return 0;
  const struct pc_rx_prog *g = re->prog;
  pc_rx_run u;
  memset(&u, 0, sizeof u);
  u.g = g;
  u.mark = calloc(g->ncode, sizeof *u.mark);
  u.stack = malloc((2 * (size_t)g->ncode + 2) * sizeof *u.stack);
  u.list = malloc(((size_t)g->ncode + 1) * sizeof *u.list);
  int rc = -1;
  if (!u.mark || !u.stack || !u.list) goto done;
  const unsigned char *p = (const unsigned char *)subject;
  u.gen = 1;
  pc_rx_closure(&u, 0, 1, 0);
  int32_t cur = pc_rx_state_of(&u);
  if (cur < 0) goto done;
  rc = 1;
  if (u.st[cur].match) goto done;
  for (; *p; p++) {
    const uint32_t c = g->byteclass[*p];
    int32_t next = u.trans[(size_t)cur * g->nbc + c];
    if (next < 0) {
      if (u.resets >= 2) { /* the DFA does not settle on this name: step the NFA */
        rc = pc_rx_simulate(&u, cur, p, 0);
        goto done;
      }
      if ((next = pc_rx_step(&u, cur, c)) < 0) {
        rc = -1;
        goto done;
      }
    }
    cur = next;
    if (u.st[cur].match) goto done;
  }
  rc = pc_rx_end(&u, cur, p == (const unsigned char *)subject);
done:
  free(u.mark);
  free(u.stack);
  free(u.list);
  free(u.st);
  free(u.trans);
  free(u.pool);
  pc_map_free(&u.state_of);
  return rc;
}

/* ---- compiling ---------------------------------------------------------------- */

static void pc_rx_prog_free(struct pc_rx_prog *g) {
  if (!g) return;
  free(g->code);
  free(g->sets);
  free(g->set_has);
  free(g->start0);
  free(g->startn);
  free(g);
}

void pc_regex_free(pc_regex *re) {
  if (!re) return;
  pc_rx_prog_free(re->prog);
  re->prog = NULL;
}

/* Bytes no set tells apart share a class; set_has per set and class. */
static int pc_rx_classes(struct pc_rx_prog *g) {
  unsigned char rep[256]; /* the first byte of each class */
  g->nbc = 0;
  for (unsigned b = 0; b < 256; b++) {
    uint32_t k = 0;
    for (; k < g->nbc; k++) {
      uint32_t i = 0;
      while (i < g->nsets && pc_rs_has(&g->sets[i], b) == pc_rs_has(&g->sets[i], rep[k])) i++;
      if (i == g->nsets) break;
    }
    if (k == g->nbc) rep[g->nbc++] = (unsigned char)b;
    g->byteclass[b] = (unsigned char)k;
  }
  g->set_has = calloc((size_t)(g->nsets ? g->nsets : 1) * g->nbc, 1);
  if (!g->set_has) return -1;
  for (uint32_t i = 0; i < g->nsets; i++)
    for (uint32_t k = 0; k < g->nbc; k++) g->set_has[(size_t)i * g->nbc + k] = (unsigned char)pc_rs_has(&g->sets[i], rep[k]);
  return 0;
}

/* The two start closures (at the name's start, where ^ passes, and later). */
static int pc_rx_starts(struct pc_rx_prog *g) {
  pc_rx_run u;
  memset(&u, 0, sizeof u);
  u.g = g;
  u.mark = calloc(g->ncode, sizeof *u.mark);
  u.stack = malloc((2 * (size_t)g->ncode + 2) * sizeof *u.stack);
  u.list = malloc(((size_t)g->ncode + 1) * sizeof *u.list);
  int rc = -1;
  if (u.mark && u.stack && u.list) {
    for (int bol = 1; bol >= 0; bol--) {
      u.gen++;
      u.nlist = 0;
      pc_rx_closure(&u, 0, bol, 0);
      uint32_t *copy = malloc(((size_t)u.nlist + 1) * sizeof *copy);
      if (!copy) break;
      memcpy(copy, u.list, u.nlist * sizeof *copy);
      if (bol) {
        g->start0 = copy;
        g->nstart0 = u.nlist;
      } else {
        g->startn = copy;
        g->nstartn = u.nlist;
        rc = 0;
      }
    }
  }
  free(u.mark);
  free(u.stack);
  free(u.list);
  return rc;
}

/* The matcher's program for a pattern the guard and regcomp accepted, in
 * *out.  PERFCHECK_ERROR_OUT_OF_MEMORY, or (not expected: a construct the
 * parser does not know) PERFCHECK_ERROR_INTERNAL. */
static perfcheck_status pc_rx_build(const char *pattern, struct pc_rx_prog **out, pc_err *err) {
  *out = NULL;
  pc_rp r;
  memset(&r, 0, sizeof r);
  r.p = (const unsigned char *)pattern;
  r.n = strlen(pattern);
  r.prog = calloc(1, sizeof *r.prog);
  if (!r.prog) return pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "out of memory");
  /* (A ')' without its '(' is a literal at the top level: pc_rp_atom.) */
  uint32_t root = pc_rp_alt(&r, 0);
  if (r.i < r.n) r.bad = 1;
  if (!r.bad && !r.oom) {
    pc_rg_node(&r, root);
    pc_rg_emit(&r, PC_RI_MATCH, 0, 0);
  }
  free(r.nodes);
  if (r.bad || r.oom || pc_rx_classes(r.prog) != 0 || pc_rx_starts(r.prog) != 0) {
    pc_rx_prog_free(r.prog);
    if (r.bad)
      return pc_err_set(err, PERFCHECK_ERROR_INTERNAL,
                        "a construct the matcher does not know (please report the pattern)");
    return pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "out of memory");
  }
  *out = r.prog;
  return PERFCHECK_OK;
}

/* regcomp's syntax check, then the matcher's program (the guard is the
 * caller's). */
static perfcheck_status pc_regex_compile_checked(pc_regex *re, const char *pattern, size_t *at, pc_err *err) {
  /* glibc's regcomp reads the syntax (its errors are the ones users know);
   * the guard bounds what that costs.  It is not used to match. */
  regex_t check;
  int rc = regcomp(&check, pattern, REG_EXTENDED | REG_NOSUB);
  if (rc != 0) {
    *at = 0;
    if (err) {
      regerror(rc, &check, err->msg, sizeof err->msg);
      err->status = PERFCHECK_ERROR_INVALID_ARGUMENT;
    }
    return PERFCHECK_ERROR_INVALID_ARGUMENT;
  }
  regfree(&check);
  perfcheck_status st = pc_rx_build(pattern, &re->prog, err);
  if (st != PERFCHECK_OK) *at = 0;
  return st;
}

perfcheck_status pc_regex_compile(pc_regex *re, const char *pattern, size_t *at, pc_err *err) {
  size_t dummy;
  if (!at) at = &dummy;
  pc_err_clear(err);
  if (re) re->prog = NULL;
  if (!re) return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "pc_regex_compile: NULL argument");
  perfcheck_status st = pc_regex_check(pattern, at, err);
  if (st != PERFCHECK_OK) return st;
  return pc_regex_compile_checked(re, pattern, at, err);
}

perfcheck_status pc_kernel_filter_regex(const char *spec, char **out, size_t *at, pc_err *err) {
  size_t dummy;
  if (!at) at = &dummy;
  *at = 0;
  pc_err_clear(err);
  if (!out) return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "pc_kernel_filter_regex: NULL argument");
  *out = NULL;
  if (!spec || !*spec)
    return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT,
                      "an empty kernel filter (give a function name or regex:EXPR)");
  if (strncmp(spec, "regex:", 6) == 0) {
    const char *expr = spec + 6;
    if (!*expr) {
      *at = 6;
      return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "\"regex:\" needs an expression after it");
    }
    pc_regex re;
    perfcheck_status st = pc_regex_compile(&re, expr, at, err);
    if (st != PERFCHECK_OK) {
      *at += 6;
      return st;
    }
    pc_regex_free(&re);
    if (!(*out = strdup(expr))) return pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "out of memory");
    return PERFCHECK_OK;
  }
  /* An exact function name: escaped, then anchored.  Built by us from
   * literal characters only, so it needs no guard (its DFA is a chain). */
  size_t n = strlen(spec);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)spec[i];
    if (c < 0x20 || c == 0x7f) {
      *at = i;
      return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "a control character (0x%02x) in the kernel name", c);
    }
  }
  const int templated = strchr(spec, '<') != NULL;
  static const char head[] = "^(.*::)?", tail_plain[] = "(<.*)?$", tail_templated[] = "$";
  const char *tail = templated ? tail_templated : tail_plain;
  char *text = malloc(sizeof head + 2 * n + sizeof tail_plain);
  if (!text) return pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "out of memory");
  size_t o = 0;
  memcpy(text, head, sizeof head - 1);
  o = sizeof head - 1;
  for (size_t i = 0; i < n; i++) {
    if (strchr("\\.[]()*+?{}|^$", spec[i])) text[o++] = '\\';
    text[o++] = spec[i];
  }
  memcpy(text + o, tail, strlen(tail) + 1);
  pc_regex re;
  size_t at2 = 0;
  perfcheck_status st = pc_regex_compile_checked(&re, text, &at2, err);
  if (st != PERFCHECK_OK) { /* not expected: every special character is escaped */
    free(text);
    return st;
  }
  pc_regex_free(&re);
  *out = text;
  return PERFCHECK_OK;
}
