/* Number formatting, locale switching and printable text (pc_fmt.h): the
 * helpers the writers, the readers and the expectations share.  They sit
 * below every one of those files, so that no reader depends on a writer. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pc_fmt.h"

void pc_locale_begin(pc_locale_guard *g) {
  g->old = (locale_t)0;
  g->c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
  if (g->c != (locale_t)0) g->old = uselocale(g->c);
}

void pc_locale_end(pc_locale_guard *g) {
  if (g->c == (locale_t)0) return;
  uselocale(g->old);
  freelocale(g->c);
  g->c = (locale_t)0;
}

void pc_fmt_double(char *buf, size_t len, double v) {
  if (len == 0) return;
  if (!isfinite(v)) { /* callers write null or "-" first; never a number */
    snprintf(buf, len, "null");
    return;
  }
  /* 2^53: every integer below it is exact, so "%.0f" loses nothing. */
  if (v == floor(v) && fabs(v) < 9007199254740992.0) {
    snprintf(buf, len, "%.0f", v);
    return;
  }
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(buf, len, "%.*g", prec, v);
    if (prec == 17 || strtod(buf, NULL) == v) return;
  }
}

size_t pc_utf8_seq_len(const unsigned char *s) {
  unsigned c = s[0];
  if (c < 0x80) return 1;
  size_t n;
  unsigned cp;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
    cp = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    cp = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    cp = c & 0x07;
  } else {
    return 0; /* continuation byte, overlong lead (C0, C1) or F5..FF */
  }
  for (size_t i = 1; i < n; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0; /* also stops at the NUL */
    cp = (cp << 6) | (s[i] & 0x3F);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000)) return 0; /* overlong */
  if (cp >= 0xD800 && cp <= 0xDFFF) return 0;                         /* surrogate */
  if (cp > 0x10FFFF) return 0;
  return n;
}

/* One character of pc_fmt_printable: its text in tmp (NUL-terminated), its
 * width on a terminal, and the input bytes it consumed. */
static size_t pc_printable_char(const unsigned char *p, char tmp[8], size_t *width) {
  size_t n = pc_utf8_seq_len(p);
  if (n == 0) {
    memcpy(tmp, "\xEF\xBF\xBD", 4); /* U+FFFD for a byte that is not UTF-8 */
    *width = 1;
    return 1;
  }
  if (n == 1 && (*p < 0x20 || *p == 0x7F)) {
    if (*p == '\n')
      strcpy(tmp, "\\n");
    else if (*p == '\t')
      strcpy(tmp, "\\t");
    else if (*p == '\r')
      strcpy(tmp, "\\r");
    else
      snprintf(tmp, 8, "\\x%02X", (unsigned)*p);
    *width = strlen(tmp);
    return 1;
  }
  memcpy(tmp, p, n);
  tmp[n] = '\0';
  *width = 1;
  return n;
}

size_t pc_fmt_printable(char *out, size_t outlen, const char *s, size_t max_chars) {
  if (outlen == 0) return 0;
  if (!s) s = "";
  /* First pass: does all of it fit? */
  size_t total = 0, bytes = 0;
  for (const unsigned char *p = (const unsigned char *)s; *p;) {
    char tmp[8];
    size_t w;
    p += pc_printable_char(p, tmp, &w);
    total += w;
    bytes += strlen(tmp);
  }
  int cut = total > max_chars || bytes + 1 > outlen;
  size_t limit = cut ? (max_chars > 3 ? max_chars - 3 : 0) : total;
  size_t o = 0, chars = 0;
  for (const unsigned char *p = (const unsigned char *)s; *p;) {
    char tmp[8];
    size_t w;
    size_t adv = pc_printable_char(p, tmp, &w);
    size_t tl = strlen(tmp);
    if (chars + w > limit || o + tl + 4 > outlen) break;
    memcpy(out + o, tmp, tl);
    o += tl;
    chars += w;
    p += adv;
  }
  if (cut && o + 4 <= outlen && chars + 3 <= max_chars) {
    memcpy(out + o, "...", 3);
    o += 3;
    chars += 3;
  }
  out[o] = '\0';
  return chars;
}
