/*
 * pc_json.h: a small strict JSON reader (pc_json_read.c) and the mapping of
 * a "perfcheck-report/2" (or /1) document back into a pc_report.
 *
 * Strict: RFC 8259 only (no comments, no trailing commas, no NaN/Infinity,
 * no duplicate keys, strings must be valid UTF-8 without NUL).  Nesting is
 * limited to PC_JSON_MAX_DEPTH, so hostile input cannot exhaust the stack.
 * Errors name the line and column (1-based; columns count bytes).
 */
#ifndef PC_JSON_H
#define PC_JSON_H

#include <stddef.h>

#include <stdio.h>

#include "model/pc_core.h"

#define PC_JSON_MAX_DEPTH 64

typedef enum pc_json_type {
  PC_JSON_NULL = 0,
  PC_JSON_FALSE,
  PC_JSON_TRUE,
  PC_JSON_NUMBER,
  PC_JSON_STRING,
  PC_JSON_ARRAY,
  PC_JSON_OBJECT
} pc_json_type;

typedef struct pc_json pc_json;
struct pc_json {
  pc_json_type type;
  size_t offset;    /* byte offset of the value in the document (for messages) */
  double number;
  char *string;     /* NUL-terminated UTF-8 */
  size_t n;         /* items of an array or members of an object */
  pc_json *items;   /* n values */
  char **keys;      /* objects: n keys, parallel to items */
};

/* Parses data[0..len) into *out (a tree the caller frees with pc_json_free).
 * Returns PERFCHECK_OK, PERFCHECK_ERROR_PARSE (err = "NAME:LINE:COL: what"),
 * PERFCHECK_ERROR_OUT_OF_MEMORY. */
perfcheck_status pc_json_parse(const char *data, size_t len, const char *name, pc_json *out, pc_err *err);
void pc_json_free(pc_json *v);

/* The JSON keys of the pc_device fields that are plain numbers, with their
 * offsets (pc_json_read.c): one table each for the report reader and the
 * snapshot reader and writer (pc_snapshot_json.c); pc_attributes' table,
 * pc_json_attributes, is the vocabulary's (model/pc_core.h). */
extern const pc_json_field pc_json_device_ints[];    /* int members of pc_device */
extern const size_t pc_json_ndevice_ints;
extern const pc_json_field pc_json_device_doubles[]; /* double members of pc_device */
extern const size_t pc_json_ndevice_doubles;

/* Member `key` of an object, or NULL (also when v is not an object). */
const pc_json *pc_json_get(const pc_json *v, const char *key);

/* Line and column (1-based) of a byte offset. */
void pc_json_position(const char *data, size_t len, size_t offset, size_t *line, size_t *col);

/* A perfcheck JSON report held in memory into a new report (the diagnosis is
 * read as written; the checklist is not run).  Returns PERFCHECK_OK,
 * PERFCHECK_ERROR_PARSE (err says where and what), PERFCHECK_ERROR_OUT_OF_MEMORY. */
perfcheck_status pc_report_from_json_text(const char *data, size_t len, const char *name, int quiet,
                                          pc_report **out, pc_err *err);

/* The same from a stream (pc_input_stream: a file, a pipe, gzip
 * decompressed), streamed: the report object member by member and its
 * kernels, regions and warnings element by element, so memory holds one
 * chunk, the largest element and the report, never the file (no size
 * limit).  Also PERFCHECK_ERROR_IO (err: a read error). */
perfcheck_status pc_report_from_json_stream(FILE *f, const char *name, int quiet, pc_report **out, pc_err *err);

/* The same from a plain file by path (PERFCHECK_ERROR_IO: cannot open). */
perfcheck_status pc_report_from_json_file(const char *path, int quiet, pc_report **out, pc_err *err);

#endif /* PC_JSON_H */
