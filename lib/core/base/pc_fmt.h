/*
 * pc_fmt.h: number formatting and locale handling (pc_fmt.c) shared by the
 * report writers (pc_write*.c), the readers (pc_ncu_csv.c, pc_json_read.c)
 * and the expectations (pc_expect.c).
 *
 * printf("%g") and strtod follow the process's LC_NUMERIC.  A host program
 * that called setlocale(LC_ALL, "") in a German locale would get "0,25" in
 * our JSON and could not read ncu's "0.25"; both sides therefore switch this
 * thread to the C locale (uselocale, POSIX 2008) for the duration of a call.
 */
#ifndef PC_FMT_H
#define PC_FMT_H

#include <locale.h>
#include <stddef.h>

typedef struct pc_locale_guard {
  locale_t c;   /* the C locale, (locale_t)0 if it could not be created */
  locale_t old; /* this thread's locale before */
} pc_locale_guard;

/* Switches this thread to the C locale; pc_locale_end restores it.  When the C
 * locale cannot be created, nothing changes (the process locale is used). */
void pc_locale_begin(pc_locale_guard *g);
void pc_locale_end(pc_locale_guard *g);

/* Writes a finite double in the shortest "%.Ng" (N = 15..17) that reads back
 * to the same value; integral values below 2^53 print without exponent or
 * ".0" ("4194304", not "4.194304e+06").  Call under pc_locale_begin.
 * buf should hold at least 32 bytes. */
void pc_fmt_double(char *buf, size_t len, double v);

/* Copies `s` into out as printable text for a terminal or a log line:
 * control characters become \n, \t, \r or \xNN, invalid UTF-8 becomes U+FFFD,
 * and at most max_chars characters are kept (then "...").  Returns the
 * number of characters (code points) written, for column alignment. */
size_t pc_fmt_printable(char *out, size_t outlen, const char *s, size_t max_chars);

/* Length in bytes of the valid UTF-8 sequence at s (1..4), or 0 when the
 * bytes there are not valid UTF-8 (overlong, surrogate, > U+10FFFF, cut).
 * s[0] must not be NUL; s must be NUL-terminated. */
size_t pc_utf8_seq_len(const unsigned char *s);

#endif /* PC_FMT_H */
