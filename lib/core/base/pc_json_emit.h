/*
 * pc_json_emit.h: the one JSON emitter of lib (pc_json_emit.c): the
 * primitives every JSON writer uses (the report, the snapshot, the diff),
 * each writer keeping its own fields.
 *
 *   pc_json_string   a string, escaped (quotes, control characters, U+2028
 *                    and U+2029; bytes that are not UTF-8 as U+FFFD), or
 *                    null for NULL;
 *   pc_json_number   a double as the shortest text that reads back the same
 *                    (pc_fmt_double, locale-independent), or null when it is
 *                    not finite (NaN: not measured; Inf is no JSON number);
 *   pc_json_key      `"key": ` after ", " unless it is the object's first
 *                    (*first tracks it): the compact form, one line;
 *   pc_jw            the pretty form: a member a line, indented two spaces
 *                    a level, the commas tracked per level.
 */
#ifndef PC_JSON_EMIT_H
#define PC_JSON_EMIT_H

#include <stdint.h>
#include <stdio.h>

void pc_json_string(FILE *f, const char *s);
void pc_json_number(FILE *f, double v);
void pc_json_key(FILE *f, const char *key, int *first);

#define PC_JW_MAX_DEPTH 16

typedef struct pc_jw {
  FILE *f;
  int depth;
  int count[PC_JW_MAX_DEPTH]; /* members written so far at each depth */
} pc_jw;

/* Starts a member on a new line (key may be NULL inside an array). */
void pc_jw_member(pc_jw *w, const char *key);
/* A member that opens an object ('{') or array ('['); pc_jw_close ends it
 * ('}' or ']'), on its own line when it had members. */
void pc_jw_open(pc_jw *w, const char *key, char bracket);
void pc_jw_close(pc_jw *w, char bracket);
void pc_jw_num(pc_jw *w, const char *key, double v);
void pc_jw_int(pc_jw *w, const char *key, long long v);
void pc_jw_u64(pc_jw *w, const char *key, uint64_t v);
/* An int where a negative value means unknown: null. */
void pc_jw_known_int(pc_jw *w, const char *key, int v);
void pc_jw_str(pc_jw *w, const char *key, const char *s);
/* An empty string means "none": null. */
void pc_jw_str_or_null(pc_jw *w, const char *key, const char *s);
void pc_jw_bool(pc_jw *w, const char *key, int v);
void pc_jw_dim3(pc_jw *w, const char *key, const unsigned v[3]);

#endif /* PC_JSON_EMIT_H */
