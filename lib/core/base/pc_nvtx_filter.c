/* ncu's NVTX range filter (pc_nvtx_filter.h): parsing the configurations,
 * matching a thread's push/pop stack incrementally, and the process's open
 * start/end ranges. */
#include <stdlib.h>
#include <string.h>

#include "base/pc_nvtx_filter.h"
#include "base/pc_regex.h"

#define PC_NVTX_MATCHED (1u << 31)

static void pc_nvtx_pattern_free(pc_nvtx_pattern *p) {
  for (size_t i = 0; i < p->n; i++) {
    if (p->el[i].kind == 2) pc_regex_free(&p->el[i].re);
    free(p->el[i].name);
  }
  memset(p, 0, sizeof *p);
}

void pc_nvtx_filter_free(pc_nvtx_filter *f) {
  if (!f) return;
  for (size_t i = 0; i < f->n; i++) pc_nvtx_pattern_free(&f->p[i]);
  memset(f, 0, sizeof *f);
}

/* One element: "*", regex:EXPR, or a name (unescaped already). */
static perfcheck_status pc_nvtx_elem_set(pc_nvtx_elem *e, const char *text, int literal, pc_err *err) {
  memset(e, 0, sizeof *e);
  if (!literal && strcmp(text, "*") == 0) {
    e->kind = 1;
    return PERFCHECK_OK;
  }
  if (!literal && strncmp(text, "regex:", 6) == 0) {
    size_t at = 0;
    pc_err re;
    if (!text[6]) return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "regex: needs an expression");
    if (pc_regex_compile(&e->re, text + 6, &at, &re) != PERFCHECK_OK)
      return pc_err_set(err, re.status, "bad range regex \"%s\" (at character %zu): %s", text + 6, at + 1, re.msg);
    e->kind = 2;
  }
  if (!(e->name = malloc(strlen(text) + 1))) {
    if (e->kind == 2) pc_regex_free(&e->re);
    return pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "out of memory");
  }
  strcpy(e->name, text);
  return PERFCHECK_OK;
}

static perfcheck_status pc_nvtx_take(pc_nvtx_filter *f, pc_nvtx_pattern *p, pc_err *err) {
  if (f->n == PC_NVTX_MAX_PATTERNS) {
    pc_nvtx_pattern_free(p);
    return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "more than %d --nvtx-include/--nvtx-exclude configurations",
                      PC_NVTX_MAX_PATTERNS);
  }
  f->p[f->n++] = *p;
  if (p->include) f->ninclude++;
  if (p->startend) f->nstartend++;
  return PERFCHECK_OK;
}

/* A push/pop configuration: it starts with '[', ends with an unescaped '/'
 * or ']', or holds an unescaped '/'; any other names start/end ranges. */
static int pc_nvtx_is_push_pop(const char *s, size_t len) {
  if (len && s[0] == '[') return 1;
  for (size_t i = 0; i < len; i++) {
    if (s[i] == '\\' && i + 1 < len) {
      i++;
      continue;
    }
    if (s[i] == '/' || (s[i] == ']' && i + 1 == len)) return 1;
  }
  return 0;
}

/* A start/end configuration: names separated by unescaped ','; "\X" keeps X
 * (one of @ , [ ] / * + \\) literal in a name; "regex:" in front makes
 * every name a regex (where only "\," is taken out: the rest is the
 * regex's own escaping). */
static perfcheck_status pc_nvtx_add_startend(pc_nvtx_filter *f, int include, const char *config, pc_err *err) {
  pc_nvtx_pattern p;
  memset(&p, 0, sizeof p);
  p.include = include != 0;
  p.startend = 1;
  const int re = strncmp(config, "regex:", 6) == 0;
  const char *s = config + (re ? 6 : 0);
  const size_t len = strlen(s);
  char *buf = malloc(len + 8);
  if (!buf) return pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "out of memory");
  size_t i = 0;
  for (;;) {
    size_t k = 0;
    if (re) memcpy(buf, "regex:", 6), k = 6;
    const size_t start = k;
    while (i < len && s[i] != ',') {
      if (s[i] == '\\' && i + 1 < len && (re ? s[i + 1] == ',' : strchr("@,[]/*+\\", s[i + 1]) != NULL)) {
        buf[k++] = s[i + 1];
        i += 2;
        continue;
      }
      buf[k++] = s[i++];
    }
    buf[k] = '\0';
    perfcheck_status st = PERFCHECK_OK;
    if (k == start)
      st = pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "\"%s\": an empty range name between ','", config);
    else if (p.n == PC_NVTX_MAX_ELEMS)
      st = pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "\"%s\": more than %d ranges", config, PC_NVTX_MAX_ELEMS);
    else
      st = pc_nvtx_elem_set(&p.el[p.n], buf, !re, err);
    if (st != PERFCHECK_OK) {
      free(buf);
      pc_nvtx_pattern_free(&p);
      return st;
    }
    p.n++;
    if (i >= len) break;
    i++; /* the ',' */
  }
  free(buf);
  return pc_nvtx_take(f, &p, err);
}

perfcheck_status pc_nvtx_filter_add_name(pc_nvtx_filter *f, const char *name, pc_err *err) {
  pc_err_clear(err);
  if (!f || !name || !*name) return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "an empty range name");
  pc_nvtx_pattern p;
  memset(&p, 0, sizeof p);
  p.include = 1;
  perfcheck_status st = pc_nvtx_elem_set(&p.el[0], name, strncmp(name, "regex:", 6) != 0, err);
  if (st != PERFCHECK_OK) return st;
  p.n = 1;
  return pc_nvtx_take(f, &p, err);
}

perfcheck_status pc_nvtx_filter_add(pc_nvtx_filter *f, int include, const char *config, pc_err *err) {
  pc_err_clear(err);
  if (!f || !config) return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "no configuration");
  const char *s = config;
  const size_t len = strlen(s);
  if (len == 0) return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "an empty configuration");
  /* A domain: "D@..." (an unescaped '@' before any '/'). */
  for (const char *q = s; *q && *q != '/'; q++) {
    if (*q == '\\' && q[1] && strchr("/@[]", q[1])) {
      q++;
      continue;
    }
    if (*q == '@')
      return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT,
                        "\"%s\" names the NVTX domain \"%.*s\": perfcheck tracks the ranges of the default domain "
                        "only (write the range without \"domain@\")",
                        config, (int)(q - s), s);
  }
  pc_nvtx_pattern p;
  memset(&p, 0, sizeof p);
  p.include = include != 0;
  size_t i = 0, end = len;
  if (!pc_nvtx_is_push_pop(s, len)) return pc_nvtx_add_startend(f, include, config, err);
  if (s[0] == '[') p.anchored_start = 1, i = 1;
  if (end > i && s[end - 1] == ']' && !(end >= 2 && s[end - 2] == '\\')) {
    p.anchored_end = 1;
    end--;
  } else if (end > i && s[end - 1] == '/' && !(end >= 2 && s[end - 2] == '\\')) {
    end--;
  } /* else "[A", or "A/B" with a star between: push/pop forms without the trailing slash in ncu */
  if (end > i && s[end - 1] == '/' && !(end >= 2 && s[end - 2] == '\\') && p.anchored_end) end--; /* "A/]" */
  char *buf = malloc(len + 1);
  if (!buf) return pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "out of memory");
  while (i <= end) {
    /* One element up to an unescaped '/' or the end; "\/" is a '/'. */
    size_t k = 0;
    int escaped_any = 0;
    while (i < end && s[i] != '/') {
      if (s[i] == '\\' && i + 1 < end && strchr("/@[]", s[i + 1])) { /* "\/": a '/' in a name */
        buf[k++] = s[i + 1];
        i += 2;
        escaped_any = 1;
        continue;
      }
      buf[k++] = s[i++];
    }
    buf[k] = '\0';
    perfcheck_status st = PERFCHECK_OK;
    if (k == 0)
      st = pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "\"%s\": an empty range name between '/'", config);
    else if (p.n == PC_NVTX_MAX_ELEMS)
      st = pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "\"%s\": more than %d ranges", config, PC_NVTX_MAX_ELEMS);
    else
      st = pc_nvtx_elem_set(&p.el[p.n], buf, escaped_any && strcmp(buf, "*") == 0, err);
    if (st != PERFCHECK_OK) {
      free(buf);
      pc_nvtx_pattern_free(&p);
      return st;
    }
    p.n++;
    if (i >= end) break;
    i++; /* the '/' */
  }
  free(buf);
  return pc_nvtx_take(f, &p, err);
}

static int pc_nvtx_elem_match(const pc_nvtx_elem *e, const char *name) {
  if (e->kind == 2) return pc_regex_match(&e->re, name) == 1;
  return strcmp(e->name, name) == 0;
}

/* Positions reachable without consuming a range: past each "*". */
static uint32_t pc_nvtx_closure(const pc_nvtx_pattern *p, uint32_t s) {
  for (size_t i = 0; i < p->n; i++)
    if ((s & (1u << i)) && p->el[i].kind == 1) s |= 1u << (i + 1);
  return s;
}

static int pc_nvtx_holds(const pc_nvtx_pattern *p, uint32_t s) {
  return p->anchored_end ? (s & (1u << p->n)) != 0 : (s & PC_NVTX_MATCHED) != 0;
}

void pc_nvtx_state_empty(const pc_nvtx_filter *f, pc_nvtx_state *st) {
  memset(st, 0, sizeof *st);
  for (size_t k = 0; f && k < f->n; k++) {
    const pc_nvtx_pattern *p = &f->p[k];
    if (p->startend) continue; /* not a stack's */
    uint32_t s = pc_nvtx_closure(p, 1u);
    if ((s & (1u << p->n)) && !p->anchored_end) s |= PC_NVTX_MATCHED;
    st->s[k] = s;
  }
}

void pc_nvtx_state_push(const pc_nvtx_filter *f, const pc_nvtx_state *parent, const char *name,
                        pc_nvtx_state *child) {
  memset(child, 0, sizeof *child);
  for (size_t k = 0; f && k < f->n; k++) {
    const pc_nvtx_pattern *p = &f->p[k];
    if (p->startend) continue;
    uint32_t from = parent->s[k] & ~PC_NVTX_MATCHED;
    if (!p->anchored_start) from |= 1u; /* a match may start at any depth */
    from = pc_nvtx_closure(p, from);
    uint32_t to = 0;
    for (size_t i = 0; i < p->n; i++) {
      if (!(from & (1u << i))) continue;
      if (p->el[i].kind == 1)
        to |= 1u << i; /* "*" takes this range and stays */
      else if (pc_nvtx_elem_match(&p->el[i], name ? name : ""))
        to |= 1u << (i + 1);
    }
    to = pc_nvtx_closure(p, to);
    if ((parent->s[k] & PC_NVTX_MATCHED) || ((to & (1u << p->n)) && !p->anchored_end)) to |= PC_NVTX_MATCHED;
    child->s[k] = to;
  }
}

static int pc_nvtx_any(const pc_nvtx_filter *f, const pc_nvtx_state *st, int include) {
  for (size_t k = 0; f && k < f->n; k++)
    if (!f->p[k].startend && f->p[k].include == include && pc_nvtx_holds(&f->p[k], st->s[k])) return 1;
  return 0;
}

int pc_nvtx_state_included(const pc_nvtx_filter *f, const pc_nvtx_state *st) {
  return !f || f->ninclude == 0 || pc_nvtx_any(f, st, 1);
}

int pc_nvtx_state_excluded(const pc_nvtx_filter *f, const pc_nvtx_state *st) { return f && pc_nvtx_any(f, st, 0); }

/* ---- Start/end ranges ------------------------------------------------------------- */

int pc_nvtx_open_start(pc_nvtx_open *o, uint64_t id, const char *name, uint32_t tag) {
  if (!o || o->n >= PC_NVTX_MAX_OPEN) return -1;
  if (o->n == o->cap) {
    const size_t cap = o->cap ? 2 * o->cap : 16;
    pc_nvtx_open_range *v = realloc(o->v, cap * sizeof *v);
    if (!v) return -1;
    o->v = v;
    o->cap = cap;
  }
  const char *nm = name ? name : "";
  char *copy = malloc(strlen(nm) + 1);
  if (!copy) return -1;
  strcpy(copy, nm);
  o->v[o->n].id = id;
  o->v[o->n].tag = tag;
  o->v[o->n].name = copy;
  o->n++;
  return 0;
}

int pc_nvtx_open_end(pc_nvtx_open *o, uint64_t id, uint32_t *tag) {
  for (size_t i = 0; o && i < o->n; i++)
    if (o->v[i].id == id) {
      if (tag) *tag = o->v[i].tag;
      free(o->v[i].name);
      o->v[i] = o->v[--o->n]; /* order does not matter */
      return 1;
    }
  return 0;
}

void pc_nvtx_open_free(pc_nvtx_open *o) {
  if (!o) return;
  for (size_t i = 0; i < o->n; i++) free(o->v[i].name);
  free(o->v);
  memset(o, 0, sizeof *o);
}

/* Every element of a start/end configuration names a range that is open. */
static int pc_nvtx_open_holds(const pc_nvtx_pattern *p, const pc_nvtx_open *o) {
  for (size_t e = 0; e < p->n; e++) {
    int found = 0;
    for (size_t i = 0; o && i < o->n && !found; i++) found = pc_nvtx_elem_match(&p->el[e], o->v[i].name);
    if (!found) return 0;
  }
  return p->n > 0;
}

static int pc_nvtx_open_any(const pc_nvtx_filter *f, const pc_nvtx_open *o, int include) {
  for (size_t k = 0; f && k < f->n; k++)
    if (f->p[k].startend && f->p[k].include == include && pc_nvtx_open_holds(&f->p[k], o)) return 1;
  return 0;
}

int pc_nvtx_open_included(const pc_nvtx_filter *f, const pc_nvtx_open *o) { return pc_nvtx_open_any(f, o, 1); }
int pc_nvtx_open_excluded(const pc_nvtx_filter *f, const pc_nvtx_open *o) { return pc_nvtx_open_any(f, o, 0); }
