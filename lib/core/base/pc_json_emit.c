/* The one JSON emitter (pc_json_emit.h). */
#include "base/pc_json_emit.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "base/pc_fmt.h"

void pc_json_string(FILE *f, const char *s) {
  if (!s) {
    fputs("null", f);
    return;
  }
  fputc('"', f);
  const unsigned char *p = (const unsigned char *)s;
  while (*p) {
    unsigned c = *p;
    if (c == '"' || c == '\\') {
      fputc('\\', f);
      fputc((int)c, f);
      p++;
    } else if (c < 0x20 || c == 0x7F) {
      switch (c) {
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        case '\b': fputs("\\b", f); break;
        case '\f': fputs("\\f", f); break;
        default: fprintf(f, "\\u%04x", c); break;
      }
      p++;
    } else if (c < 0x80) {
      fputc((int)c, f);
      p++;
    } else {
      size_t n = pc_utf8_seq_len(p);
      if (n == 0) {
        fputs("\\ufffd", f); /* a byte that is not UTF-8: one replacement each */
        p++;
      } else if (n == 3 && p[0] == 0xE2 && p[1] == 0x80 && (p[2] == 0xA8 || p[2] == 0xA9)) {
        /* U+2028/2029 are valid JSON but end a line in JavaScript. */
        fprintf(f, "\\u%04x", p[2] == 0xA8 ? 0x2028u : 0x2029u);
        p += 3;
      } else {
        fwrite(p, 1, n, f);
        p += n;
      }
    }
  }
  fputc('"', f);
}

static void pc_jw_indent(pc_jw *w) {
  fputc('\n', w->f);
  for (int i = 0; i < w->depth; i++) fputs("  ", w->f);
}

void pc_jw_member(pc_jw *w, const char *key) {
  if (w->count[w->depth]++ > 0) fputc(',', w->f);
  pc_jw_indent(w);
  if (key) {
    pc_json_string(w->f, key);
    fputs(": ", w->f);
  }
}

void pc_jw_open(pc_jw *w, const char *key, char bracket) {
  pc_jw_member(w, key);
  fputc(bracket, w->f);
  if (w->depth + 1 < PC_JW_MAX_DEPTH) w->depth++;
  w->count[w->depth] = 0;
}

void pc_jw_close(pc_jw *w, char bracket) {
  int had = w->count[w->depth] > 0;
  if (w->depth > 0) w->depth--;
  if (had) pc_jw_indent(w);
  fputc(bracket, w->f);
}

void pc_json_number(FILE *f, double v) {
  if (!isfinite(v)) {
    fputs("null", f); /* NaN: not measured; Inf is no JSON number either */
    return;
  }
  char buf[40];
  pc_fmt_double(buf, sizeof buf, v);
  fputs(buf, f);
}

void pc_jw_num(pc_jw *w, const char *key, double v) {
  pc_jw_member(w, key);
  pc_json_number(w->f, v);
}

void pc_jw_int(pc_jw *w, const char *key, long long v) {
  pc_jw_member(w, key);
  fprintf(w->f, "%lld", v);
}

void pc_jw_known_int(pc_jw *w, const char *key, int v) {
  pc_jw_member(w, key);
  if (v < 0)
    fputs("null", w->f);
  else
    fprintf(w->f, "%d", v);
}

void pc_jw_u64(pc_jw *w, const char *key, uint64_t v) {
  pc_jw_member(w, key);
  fprintf(w->f, "%" PRIu64, v);
}

void pc_jw_str(pc_jw *w, const char *key, const char *s) {
  pc_jw_member(w, key);
  pc_json_string(w->f, s);
}

void pc_jw_str_or_null(pc_jw *w, const char *key, const char *s) {
  pc_jw_str(w, key, (s && *s) ? s : NULL);
}

void pc_jw_dim3(pc_jw *w, const char *key, const unsigned v[3]) {
  pc_jw_member(w, key);
  fprintf(w->f, "[%u, %u, %u]", v[0], v[1], v[2]);
}

void pc_jw_bool(pc_jw *w, const char *key, int v) {
  pc_jw_member(w, key);
  fputs(v ? "true" : "false", w->f);
}

void pc_json_key(FILE *f, const char *key, int *first) {
  if (!*first) fputs(", ", f);
  *first = 0;
  pc_json_string(f, key);
  fputs(": ", f);
}
