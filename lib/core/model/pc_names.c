/*
 * pc_names.c: kernel names.
 *
 *   pc_demangle             "_Z8mysteryAPKfPfm" -> "mysteryA(float const*, float*, unsigned long)"
 *   pc_kernel_short_name    the demangled name without return type and parameters
 *   pc_kernel_display_name  a short name for tables, in the spirit of ncu's
 *                           "Function Name": namespaces dropped, long template
 *                           argument lists elided with "..."
 *
 * Demangling uses the C++ runtime's own __cxa_demangle (the Itanium ABI's
 * demangler, which ncu and c++filt follow), found without relying on the host
 * program: the process's global scope first (a C++ program has it), then a
 * libstdc++.so.6 that is loaded but not global (Python loads it RTLD_LOCAL
 * through its extensions), then libstdc++.so.6 opened RTLD_LOCAL by us (a C
 * program, or a toolchain that links with --as-needed).  Writing a demangler
 * of our own would mean keeping up with every C++ mangling the compilers
 * emit; libstdc++ is on every Linux system CUDA supports, and it is loaded
 * only when a mangled name must be read.  Without it names stay mangled and
 * pc_demangler() says why.
 */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pc_buf.h"
#include "model/pc_core.h"
#include "base/pc_util.h"

/* ---- Demangling ------------------------------------------------------------- */

typedef char *(*pc_cxa_demangle_fn)(const char *, char *, size_t *, int *);
static pc_cxa_demangle_fn pc_cxa_demangle;
static char pc_demangler_where[96];
static pthread_once_t pc_demangle_once = PTHREAD_ONCE_INIT;

static void pc_demangle_init(void) {
  void *sym = dlsym(RTLD_DEFAULT, "__cxa_demangle");
  if (sym) {
    snprintf(pc_demangler_where, sizeof pc_demangler_where, "%s", "__cxa_demangle of the process");
  } else {
    void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
    const char *how = "libstdc++.so.6, already loaded";
    if (!h) {
      h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
      how = "libstdc++.so.6, loaded by perfcheck";
    }
    if (h) sym = dlsym(h, "__cxa_demangle"); /* the handle is kept: the function stays */
    if (sym) snprintf(pc_demangler_where, sizeof pc_demangler_where, "%s", how);
  }
  memcpy(&pc_cxa_demangle, &sym, sizeof pc_cxa_demangle);
}

const char *pc_demangler(void) {
  pthread_once(&pc_demangle_once, pc_demangle_init);
  return pc_cxa_demangle ? pc_demangler_where : "";
}

/* nvcc names a file-static __global__ function (one in an anonymous
 * namespace, or `static`) __nv_static_<n>__<hash>_<n>_<file>_cu_<hash>_
 * followed by its mangled name: NCCL's oneRankReduce is
 * __nv_static_32__b4148644_10_onerank_cu_fdf47990__ZN43_GLOBAL__N__...
 * (H200, torch 2.11's NCCL).  The symbol's _Z part, or the symbol itself. */
const char *pc_symbol_core(const char *mangled) {
  if (!mangled || strncmp(mangled, "__nv_static_", 12) != 0) return mangled;
  const char *z = strstr(mangled + 12, "__Z");
  return z ? z + 1 : mangled;
}

char *pc_demangle(const char *mangled) {
  mangled = pc_symbol_core(mangled);
  if (!mangled || mangled[0] != '_' || mangled[1] != 'Z') return NULL;
  pthread_once(&pc_demangle_once, pc_demangle_init);
  if (!pc_cxa_demangle) return NULL;
  int st = -1;
  char *out = pc_cxa_demangle(mangled, NULL, NULL, &st);
  if (st != 0) {
    free(out);
    return NULL;
  }
  return out;
}

/* ---- Short kernel names --------------------------------------------------- */

static int pc_is_ident(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Marks the characters of operator symbols ("operator()", "operator<<",
 * "operator->") as neutral so they do not count as brackets. */
static void pc_mark_operators(const char *s, size_t n, unsigned char *neutral) {
  static const char kw[] = "operator";
  const size_t kwlen = sizeof kw - 1;
  for (size_t i = 0; i + kwlen <= n; i++) {
    if (strncmp(s + i, kw, kwlen) != 0) continue;
    if (i > 0 && pc_is_ident(s[i - 1])) continue;
    size_t j = i + kwlen;
    if (j < n && pc_is_ident(s[j])) continue; /* "operators", "operator_x" */
    while (j < n && s[j] == ' ') j++;
    if (j + 1 < n && ((s[j] == '(' && s[j + 1] == ')') || (s[j] == '[' && s[j + 1] == ']'))) {
      neutral[j] = neutral[j + 1] = 1;
      continue;
    }
    while (j < n && strchr("+-*/%^&|~!=<>,", s[j])) neutral[j++] = 1;
  }
}

static int pc_opens(char c) { return c == '(' || c == '<' || c == '['; }
static int pc_closes(char c) { return c == ')' || c == '>' || c == ']'; }

/* The demangled name without its return type and parameter list:
 *   "void scaleAdd<4>(float, const float *, ...)"  -> "scaleAdd<4>"
 *   "void ns::k<(int)2>(float *)"                   -> "ns::k<(int)2>"
 *   "void Functor::operator()(int)"                 -> "Functor::operator()"
 *   "mysteryA"                                      -> "mysteryA"
 * The parameter list is the last bracket group at depth 0 when the name ends
 * with ')'; the return type is whatever precedes the last space at depth 0. */
char *pc_kernel_short_name(const char *demangled, char *out, size_t outlen) {
  if (!out || outlen == 0) return out;
  out[0] = '\0';
  if (!demangled) return out;
  while (*demangled == ' ' || *demangled == '\t') demangled++;
  size_t n = strlen(demangled);
  while (n > 0 && (demangled[n - 1] == ' ' || demangled[n - 1] == '\t' || demangled[n - 1] == '\n')) n--;
  if (n == 0) return out;

  unsigned char small[256];
  unsigned char *neutral = n <= sizeof small ? small : calloc(n, 1);
  if (!neutral) { /* no memory: keep the name as given, truncated */
    size_t c = n < outlen - 1 ? n : outlen - 1;
    memcpy(out, demangled, c);
    out[c] = '\0';
    return out;
  }
  if (neutral == small) memset(small, 0, sizeof small);
  pc_mark_operators(demangled, n, neutral);

  /* Forward scan: the start of the last depth-0 group and the last depth-0
   * space.  Unbalanced closers are ignored (depth never goes negative). */
  size_t end = n;
  long depth = 0;
  size_t last_group = (size_t)-1, last_space = (size_t)-1;
  for (size_t i = 0; i < n; i++) {
    char c = demangled[i];
    if (neutral[i]) continue;
    if (pc_opens(c)) {
      if (depth == 0 && c == '(') last_group = i;
      depth++;
    } else if (pc_closes(c)) {
      if (depth > 0) depth--;
    } else if (c == ' ' && depth == 0) {
      last_space = i;
    }
  }
  /* The parameter list: a depth-0 '(' group that runs to the end. */
  if (demangled[n - 1] == ')' && !neutral[n - 1] && last_group != (size_t)-1 && depth == 0) end = last_group;
  /* The return type: the last depth-0 space before the parameter list. */
  size_t start = 0;
  if (last_space != (size_t)-1 && last_space < end) start = last_space + 1;
  /* A space inside the parameter list was not at depth 0; but "k (int)" with
   * a space before '(' leaves a trailing space: trim it. */
  while (end > start && demangled[end - 1] == ' ') end--;
  if (end <= start) { /* nothing left: keep the whole name */
    start = 0;
    end = n;
  }
  size_t len = end - start;
  if (len > outlen - 1) len = outlen - 1;
  memcpy(out, demangled + start, len);
  out[len] = '\0';
  if (neutral != small) free(neutral);
  return out;
}


/* ---- Display names -------------------------------------------------------------- */

static int pc_is_group_open(char c) { return c == '(' || c == '<' || c == '[' || c == '{'; }
static int pc_is_group_close(char c) { return c == ')' || c == '>' || c == ']' || c == '}'; }

/* Drops every "qualifier::" of s (namespaces, enclosing classes, the
 * "(anonymous namespace)" group): a qualifier is what runs back from "::" to
 * the nearest delimiter at its own depth ('<', ',', ' ', '(', '{', '[' or the
 * start), balanced groups included.  Operator symbols are left alone. */
static char *pc_strip_qualifiers(const char *s) {
  const size_t n = strlen(s);
  unsigned char small[256];
  unsigned char *neutral = n <= sizeof small ? small : calloc(n ? n : 1, 1);
  if (!neutral) return pc_strdup(s);
  memset(neutral, 0, n <= sizeof small ? sizeof small : n);
  pc_mark_operators(s, n, neutral);
  pc_buf b = PC_BUF_INIT;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == ':' && i + 1 < n && s[i + 1] == ':' && !neutral[i]) {
      /* Remove the qualifier already copied: back over b to its start. */
      size_t j = b.n;
      long depth = 0;
      while (j > 0) {
        char c = b.p[j - 1];
        if (pc_is_group_close(c)) {
          depth++;
        } else if (pc_is_group_open(c)) {
          if (depth == 0) break;
          depth--;
        } else if (depth == 0 && (c == ',' || c == ' ' || c == '*' || c == '&')) {
          break;
        }
        j--;
      }
      pc_buf_truncate(&b, j);
      i++; /* skip the second ':' */
      continue;
    }
    pc_buf_putn(&b, s + i, 1);
  }
  if (neutral != small) free(neutral);
  if (b.oom) {
    pc_buf_free(&b);
    return pc_strdup(s);
  }
  return pc_buf_take(&b);
}

/* "> >" -> ">>" (the demangler's C++03 spelling). */
static void pc_close_brackets(char *s) {
  char *w = s;
  for (const char *r = s; *r; r++) {
    if (*r == ' ' && r > s && r[-1] == '>' && r[1] == '>') continue;
    *w++ = *r;
  }
  *w = '\0';
}

/* The top-level template argument list of s: [*open, *close] bracket
 * positions and the start of each argument (after "<" or ", "). */
#define PC_MAX_TARGS 64
static int pc_template_args(const char *s, size_t *open, size_t *close, size_t *arg, size_t *nargs) {
  const size_t n = strlen(s);
  unsigned char small[256];
  unsigned char *neutral = n <= sizeof small ? small : calloc(n ? n : 1, 1);
  if (!neutral) return -1;
  memset(neutral, 0, n <= sizeof small ? sizeof small : n);
  pc_mark_operators(s, n, neutral);
  long depth = 0;
  int found = 0;
  *nargs = 0;
  for (size_t i = 0; i < n; i++) {
    if (neutral[i]) continue;
    char c = s[i];
    if (pc_is_group_open(c)) {
      if (depth == 0 && c == '<' && !found) {
        *open = i;
        found = 1;
        if (*nargs < PC_MAX_TARGS) arg[(*nargs)++] = i + 1;
      }
      depth++;
    } else if (pc_is_group_close(c)) {
      if (depth > 0) depth--;
      if (depth == 0 && c == '>' && found == 1) {
        *close = i;
        found = 2;
        break;
      }
    } else if (c == ',' && depth == 1 && found == 1 && *nargs < PC_MAX_TARGS) {
      size_t a = i + 1;
      while (a < n && s[a] == ' ') a++;
      arg[(*nargs)++] = a;
    }
  }
  if (neutral != small) free(neutral);
  return found == 2 ? 0 : -1;
}

/* Every bracket group nested deeper than `keep` levels (in <> only) becomes
 * "<...>". */
static char *pc_elide_depth(const char *s, long keep) {
  pc_buf b = PC_BUF_INIT;
  long depth = 0;
  for (const char *p = s; *p; p++) {
    if (*p == '<') {
      depth++;
      if (depth == keep + 1) pc_buf_puts(&b, "<...");
      if (depth > keep) continue;
    } else if (*p == '>') {
      if (depth > keep) {
        if (depth == keep + 1) pc_buf_puts(&b, ">");
        depth--;
        continue;
      }
      if (depth > 0) depth--;
    } else if (depth > keep) {
      continue;
    }
    pc_buf_putn(&b, p, 1);
  }
  return pc_buf_take(&b); /* NULL when memory ran out */
}

char *pc_kernel_display_name(const char *demangled, size_t max) {
  if (!demangled) return NULL;
  if (max < 16) max = 16;
  char buf[4096];
  pc_kernel_short_name(demangled, buf, sizeof buf);
  char *s = pc_strip_qualifiers(buf);
  if (!s) return NULL;
  pc_close_brackets(s);
  if (strlen(s) <= max) return s;

  /* Too long: keep the first k top-level template arguments, k as large as
   * fits, the rest "...". */
  size_t open = 0, close = 0, arg[PC_MAX_TARGS], nargs = 0;
  if (pc_template_args(s, &open, &close, arg, &nargs) == 0 && nargs > 1) {
    for (size_t k = nargs - 1; k >= 1; k--) {
      /* name<a1, ..., ak, ...>tail */
      size_t cut = arg[k]; /* start of argument k+1 */
      while (cut > 0 && (s[cut - 1] == ' ' || s[cut - 1] == ',')) cut--;
      pc_buf b = PC_BUF_INIT;
      pc_buf_putn(&b, s, cut);
      pc_buf_puts(&b, ", ...");
      pc_buf_puts(&b, s + close);
      if (!b.oom && b.n <= max) {
        free(s);
        return pc_buf_take(&b);
      }
      pc_buf_free(&b);
      if (k == 1) break;
    }
    /* Even one argument is too long: name<a1, ...> with a1's own nesting cut. */
    size_t cut = arg[1];
    while (cut > 0 && (s[cut - 1] == ' ' || s[cut - 1] == ',')) cut--;
    pc_buf b = PC_BUF_INIT;
    pc_buf_putn(&b, s, cut);
    pc_buf_puts(&b, ", ...");
    pc_buf_puts(&b, s + close);
    if (!b.oom) {
      free(s);
      s = pc_buf_take(&b);
    } else {
      pc_buf_free(&b);
    }
  }
  for (long keep = 8; keep >= 1 && strlen(s) > max; keep--) {
    char *e = pc_elide_depth(s, keep);
    if (!e) break;
    free(s);
    s = e;
  }
  if (strlen(s) > max) { /* a plain very long identifier: cut with "..." */
    s[max - 3] = '.';
    s[max - 2] = '.';
    s[max - 1] = '.';
    s[max] = '\0';
  }
  return s;
}

/* ---- A kernel's names ---------------------------------------------------------- */

int pc_kernel_set_names(pc_kernel *k, const char *mangled, const char *demangled) {
  if (!k) return -1;
  char *own = NULL;
  if (!demangled && mangled) demangled = own = pc_demangle(mangled);
  const char *full = demangled ? demangled : mangled;
  char *m = mangled ? pc_strdup(mangled) : NULL;
  char *d = demangled ? pc_strdup(demangled) : NULL;
  char *disp = full ? pc_kernel_display_name(full, PC_DISPLAY_NAME_MAX) : NULL;
  char *nm = NULL;
  if (full) {
    size_t n = strlen(full) + 1;
    nm = malloc(n);
    if (nm) {
      pc_kernel_short_name(full, nm, n);
      if (!nm[0]) snprintf(nm, n, "%s", full);
    }
  }
  free(own);
  if ((mangled && !m) || (demangled && !d) || (full && (!disp || !nm))) {
    free(m), free(d), free(disp), free(nm);
    return -1;
  }
  free(k->mangled), free(k->demangled), free(k->display_name), free(k->name);
  k->mangled = m;
  k->demangled = d;
  k->display_name = disp;
  k->name = nm;
  return 0;
}

/* NCCL's kernels are named ncclDevKernel_<Coll>_<Op>_<type>_<algo>_<proto>
 * (NCCL 2.19 on) or ncclKernel_* (before): every one starts with "nccl".
 * A one-rank communicator's all-reduce with a scaling op (avg, premul sum)
 * runs NCCL's (anonymous namespace)::oneRankReduce<FuncPreMulSum<T>>
 * instead (src/device/onerank.cu): the collective's time too.  Namespace
 * qualifiers ahead of the function name are skipped. */
int pc_name_is_communication(const char *name) {
  if (!name) return 0;
  static const char anon[] = "(anonymous namespace)";
  const char *base = name;
  for (const char *p = name; *p && *p != '<'; p++) {
    if (*p == '(') {
      if (strncmp(p, anon, sizeof anon - 1) != 0) break; /* the parameter list */
      p += sizeof anon - 2;
      continue;
    }
    if (p[0] == ':' && p[1] == ':') base = p + 2;
  }
  return strncmp(base, "nccl", 4) == 0 || strncmp(base, "oneRankReduce", 13) == 0;
}

int pc_symbol_is_communication(const char *mangled) {
  mangled = pc_symbol_core(mangled);
  if (!mangled || !*mangled) return 0;
  if (strncmp(mangled, "_Z", 2) != 0) return pc_name_is_communication(mangled); /* extern "C" */
  /* The function's own name, read from the symbol without demangling (this
   * runs inside CUPTI's launch callback): _Z[L]<len><name>... for a global
   * function, _ZN<len><id>...<len><name>[I...]E... inside namespaces (the
   * last source name before the template arguments or the end). */
  const char *p = mangled + 2;
  const int nested = *p == 'N';
  if (nested) p++;
  if (*p == 'L') p++;
  char last[64] = "";
  for (;;) {
    if (*p < '1' || *p > '9') break;
    size_t len = 0;
    while (*p >= '0' && *p <= '9') len = len * 10 + (size_t)(*p++ - '0');
    if (len > strlen(p)) return 0;
    snprintf(last, sizeof last, "%.*s", (int)(len < sizeof last - 1 ? len : sizeof last - 1), p);
    p += len;
    if (!nested) break;
  }
  return last[0] && pc_name_is_communication(last);
}
