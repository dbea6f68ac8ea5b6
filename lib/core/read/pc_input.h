/*
 * pc_input.h: opening what the readers read (pc_input.c).
 *
 * One place opens every input of the offline half (ncu exports, perfcheck
 * JSON reports, nsys stats CSV): a path, or "-" for stdin; gzip is
 * recognised by its content (the two magic bytes, never the file name) and
 * decompressed as it is read, through zlib's gz* interface, so a committed
 * `.csv.gz` export is streamed like the plain one (memory holds a chunk,
 * never the file).  Anything that is not gzip is read as it is (zlib's
 * transparent mode).  The first bytes (up to PC_INPUT_PEEK of the
 * decompressed text) are read at open, so that the format can be told
 * (pc_input_kind) before a reader takes the stream; the stream then starts
 * from the first byte again.
 *
 * Errors name the input ("stdin" for "-") and what was expected: "x.csv: an
 * Nsight Compute report (.ncu-rep), not an export: ncu --import x.csv --csv
 * --page raw > x.csv", "x.csv.gz: damaged gzip data (invalid distance too
 * far back)".  A gzip stream that ends early (a file cut short while it was
 * written) is read to where it ends, and pc_input_truncated says so; the
 * readers keep what was complete, as they do for a plain file cut short.
 */
#ifndef PC_INPUT_H
#define PC_INPUT_H

#include <stddef.h>
#include <stdio.h>

#include "perfcheck.h"

/* How much of the (decompressed) start is read at open to tell the format. */
#define PC_INPUT_PEEK ((size_t)64 << 10)

typedef enum pc_input_kind {
  PC_INPUT_EMPTY = 0,  /* nothing but blanks */
  PC_INPUT_JSON,       /* starts with '{': a perfcheck JSON report */
  PC_INPUT_NCU_CSV,    /* a line with a "Kernel Name" field: an ncu raw export */
  PC_INPUT_NSYS_CSV,   /* an nsys stats CSV (cuda_gpu_kern_sum, cuda_gpu_mem_time_sum) */
  PC_INPUT_TEXT,       /* text, none of those in the first PC_INPUT_PEEK bytes */
  PC_INPUT_OTHER       /* nothing perfcheck reads: binary data, another container or text encoding, a JSON
                          array, a gzip stream cut before its first byte (pc_input_what says which) */
} pc_input_kind;

typedef struct pc_input pc_input;
typedef struct pc_err pc_err; /* base/pc_err.h */

/* Opens `path` ("-": stdin, which is left open at close) and reads its
 * start.  Returns PERFCHECK_OK with *out set; PERFCHECK_ERROR_IO ("PATH:
 * cannot open: ...", "PATH: is a directory", a read error, damaged gzip
 * data) or PERFCHECK_ERROR_OUT_OF_MEMORY with err set. */
perfcheck_status pc_input_open(const char *path, pc_input **out, pc_err *err);

/* The name messages use: the path, or "stdin". */
const char *pc_input_name(const pc_input *in);

/* What the start of the input looks like. */
pc_input_kind pc_input_kind_of(const pc_input *in);

/* For PC_INPUT_OTHER: what it is, as a phrase that completes "PATH: ..."
 * and says what to do ("an Nsight Compute report (.ncu-rep), not a CSV
 * export: ...", "UTF-16 text: ...", "gzip-compressed twice: ..."); "binary
 * data, not text" for bytes that are none of those; "" for other kinds.
 *
 * Binary: more than 1% of the start (or any of a start shorter than 100
 * bytes) are control bytes other than tab, LF, VT, FF, CR and ESC.  A NUL
 * byte here and there in an export is no reason to refuse it: the reader
 * spoils that cell or row only. */
const char *pc_input_what(const pc_input *in);

/* Nonzero when the input was gzip-compressed. */
int pc_input_gzip(const pc_input *in);

/* A stream of the decompressed bytes from the first one (the peeked bytes
 * first).  Owned by the input: valid until pc_input_close.  NULL when out of
 * memory.  A read error (damaged gzip data) makes the stream's ferror true
 * with errno EIO; pc_input_error then says what it was. */
FILE *pc_input_stream(pc_input *in);

/* The last read error's text ("damaged gzip data: ..."), "" if none. */
const char *pc_input_error(const pc_input *in);

/* Nonzero when a gzip stream ended before its end marker (cut short). */
int pc_input_truncated(const pc_input *in);


/* Closes the input (and its stream).  NULL is a no-op. */
void pc_input_close(pc_input *in);

/* The whole rule for a path given to an offline reader, for messages:
 * "an ncu raw export (ncu --csv --page raw), a perfcheck JSON report or an
 * nsys stats CSV". */
extern const char pc_input_formats[];

#endif /* PC_INPUT_H */
