/* The public readers of saved reports and exports: each opens its input
 * through pc_input.c (a path or "-" for stdin, gzip by content) and hands
 * the stream to its parser (pc_ncu_csv.c, pc_json_read.c, pc_nsys_csv.c).
 * perfcheck_report_read tells the format by the content. */
#include <stdlib.h>
#include <string.h>

#include "model/pc_core.h"
#include "read/pc_input.h"
#include "read/pc_json.h"
#include "read/pc_nsys.h"
#include "check/pc_check.h"
#include "read/pc_ncu.h"
#include "base/pc_util.h"


/* The input is not what `want` reads: a message that names both. */
static perfcheck_status pc_read_wrong_kind(const pc_input *in, const char *want) {
  static const char any[] =
      "perfcheck_report_read, and `perfcheck diagnose` given it alone, tell the format by the content";
  const char *name = pc_input_name(in);
  switch (pc_input_kind_of(in)) {
    case PC_INPUT_EMPTY:
      return pc_fail(PERFCHECK_ERROR_PARSE, "%s:1: empty file; expected %s", name, want);
    case PC_INPUT_OTHER: /* the phrase says what to do, except for plain binary data */
      if (strcmp(pc_input_what(in), "binary data, not text") != 0)
        return pc_fail(PERFCHECK_ERROR_PARSE, "%s:1: %s", name, pc_input_what(in));
      return pc_fail(PERFCHECK_ERROR_PARSE, "%s:1: %s; expected %s", name, pc_input_what(in), want);
    case PC_INPUT_JSON:
      return pc_fail(PERFCHECK_ERROR_PARSE, "%s:1: a JSON document, not %s (%s)", name, want, any);
    case PC_INPUT_NSYS_CSV:
      return pc_fail(PERFCHECK_ERROR_PARSE, "%s:1: an nsys stats CSV, not %s (%s)", name, want, any);
    case PC_INPUT_NCU_CSV:
      return pc_fail(PERFCHECK_ERROR_PARSE, "%s:1: an ncu export, not %s (%s)", name, want, any);
    default:
      return pc_fail(PERFCHECK_ERROR_PARSE, "%s:1: not %s", name, want);
  }
}

static void pc_read_truncated_note(const pc_input *in, pc_report *r, int quiet) {
  if (pc_input_truncated(in))
    pc_report_warn(r, quiet, "%s: the gzip stream ends before its end (a file cut short?): what came before it is read",
                   pc_input_name(in));
}

static perfcheck_status pc_read_ncu(pc_input *in, int quiet, pc_report **out) {
  FILE *f = pc_input_stream(in);
  if (!f) return pc_fail(PERFCHECK_ERROR_OUT_OF_MEMORY, "%s: out of memory", pc_input_name(in));
  pc_err err;
  pc_report *r = NULL;
  perfcheck_status st = pc_ncu_csv_read(f, pc_input_name(in), quiet, &r, &err);
  if (st == PERFCHECK_ERROR_IO && pc_input_error(in)[0])
    return pc_fail(st, "%s: %s", pc_input_name(in), pc_input_error(in));
  if (st != PERFCHECK_OK) {
    /* Plain text that is no export at all: say what would have been read. */
    if (st == PERFCHECK_ERROR_PARSE && pc_input_kind_of(in) == PC_INPUT_TEXT && strstr(err.msg, "no header row"))
      return pc_fail(st, "%s (perfcheck reads %s)", err.msg, pc_input_formats);
    return pc_fail(st, "%s", err.msg[0] ? err.msg : perfcheck_strerror(st));
  }
  pc_read_truncated_note(in, r, quiet);
  pc_checklist_report(r);
  *out = r;
  return PERFCHECK_OK;
}

static perfcheck_status pc_read_json(pc_input *in, int quiet, pc_report **out) {
  pc_err err;
  FILE *f = pc_input_stream(in);
  if (!f) return pc_fail(PERFCHECK_ERROR_OUT_OF_MEMORY, "%s: out of memory", pc_input_name(in));
  pc_report *r = NULL;
  /* Streamed: no size limit, memory one chunk and the report. */
  perfcheck_status st = pc_report_from_json_stream(f, pc_input_name(in), quiet, &r, &err);
  if (st != PERFCHECK_OK && pc_input_error(in)[0])
    return pc_fail(st, "%s: %s", pc_input_name(in), pc_input_error(in));
  if (st != PERFCHECK_OK) return pc_fail(st, "%s", err.msg[0] ? err.msg : perfcheck_strerror(st));
  pc_read_truncated_note(in, r, quiet);
  *out = r;
  return PERFCHECK_OK;
}

static perfcheck_status pc_read_open(const char *fn, const char *path, pc_input **in) {
  pc_err err;
  if (!path) return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "%s: path is NULL", fn);
  perfcheck_status st = pc_input_open(path, in, &err);
  return st == PERFCHECK_OK ? st : pc_fail(st, "%s", err.msg);
}

PERFCHECK_API perfcheck_status perfcheck_report_from_ncu_csv(const char *path, int quiet, perfcheck_report **out) {
  if (out) *out = NULL;
  if (!path || !out)
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_report_from_ncu_csv: %s is NULL",
                   path ? "out" : "path");
  pc_input *in = NULL;
  perfcheck_status st = pc_read_open("perfcheck_report_from_ncu_csv", path, &in);
  if (st != PERFCHECK_OK) return st;
  const pc_input_kind k = pc_input_kind_of(in);
  if (k == PC_INPUT_NCU_CSV || k == PC_INPUT_TEXT)
    st = pc_read_ncu(in, quiet, out);
  else
    st = pc_read_wrong_kind(in, "an ncu raw export (ncu --csv --page raw)");
  pc_input_close(in);
  return st;
}

PERFCHECK_API perfcheck_status perfcheck_report_from_json(const char *path, int quiet, perfcheck_report **out) {
  if (out) *out = NULL;
  if (!path || !out) return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_report_from_json: NULL argument");
  pc_input *in = NULL;
  perfcheck_status st = pc_read_open("perfcheck_report_from_json", path, &in);
  if (st != PERFCHECK_OK) return st;
  /* Anything but a JSON document gets the JSON parser's own message ("not
   * JSON" with its line and column), except what is plainly another format. */
  const pc_input_kind k = pc_input_kind_of(in);
  if (k == PC_INPUT_NCU_CSV || k == PC_INPUT_NSYS_CSV || k == PC_INPUT_OTHER || k == PC_INPUT_EMPTY)
    st = pc_read_wrong_kind(in, "a perfcheck JSON report");
  else
    st = pc_read_json(in, quiet, out);
  pc_input_close(in);
  return st;
}

/* nsys: each input one or both tables; the region is the run. */
static perfcheck_status pc_read_nsys(pc_input *const *in, size_t n, double wall_ns, int quiet, pc_report **out) {
  pc_nsys *x = pc_nsys_new("run", quiet);
  if (!x) return pc_fail(PERFCHECK_ERROR_OUT_OF_MEMORY, "out of memory");
  pc_err err;
  perfcheck_status st = PERFCHECK_OK;
  for (size_t i = 0; i < n && st == PERFCHECK_OK; i++) {
    FILE *f = pc_input_stream(in[i]);
    if (!f) {
      st = pc_fail(PERFCHECK_ERROR_OUT_OF_MEMORY, "%s: out of memory", pc_input_name(in[i]));
      break;
    }
    st = pc_nsys_read(x, f, pc_input_name(in[i]), &err);
    if (st == PERFCHECK_ERROR_IO && pc_input_error(in[i])[0])
      st = pc_fail(st, "%s: %s", pc_input_name(in[i]), pc_input_error(in[i]));
    else if (st != PERFCHECK_OK)
      st = pc_fail(st, "%s", err.msg);
  }
  pc_report *r = NULL;
  if (st == PERFCHECK_OK) {
    st = pc_nsys_finish(x, wall_ns, &r, &err);
    if (st != PERFCHECK_OK) st = pc_fail(st, "%s: %s", pc_input_name(in[0]), err.msg);
  }
  pc_nsys_free(x);
  if (st == PERFCHECK_OK) {
    for (size_t i = 0; i < n; i++) pc_read_truncated_note(in[i], r, quiet);
    *out = r;
  }
  return st;
}

PERFCHECK_API perfcheck_status perfcheck_report_from_nsys_csv(const char *const *paths, size_t n, double wall_ns,
                                                              int quiet, perfcheck_report **out) {
  if (out) *out = NULL;
  if (!paths || !out || n == 0 || n > 16)
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_report_from_nsys_csv: %s",
                   !paths || !out ? "NULL argument" : "give 1 to 16 paths");
  pc_input *in[16] = {0};
  perfcheck_status st = PERFCHECK_OK;
  for (size_t i = 0; i < n && st == PERFCHECK_OK; i++) {
    st = pc_read_open("perfcheck_report_from_nsys_csv", paths[i], &in[i]);
    if (st == PERFCHECK_OK && pc_input_kind_of(in[i]) != PC_INPUT_NSYS_CSV && pc_input_kind_of(in[i]) != PC_INPUT_TEXT)
      st = pc_read_wrong_kind(in[i], "an nsys stats CSV (nsys stats --report cuda_gpu_kern_sum --format csv)");
  }
  if (st == PERFCHECK_OK) st = pc_read_nsys(in, n, wall_ns, quiet, out);
  for (size_t i = 0; i < n; i++) pc_input_close(in[i]);
  return st;
}

PERFCHECK_API perfcheck_status perfcheck_report_read(const char *path, int quiet, perfcheck_report **out) {
  if (out) *out = NULL;
  if (!path || !out)
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_report_read: %s is NULL", path ? "out" : "path");
  pc_input *in = NULL;
  perfcheck_status st = pc_read_open("perfcheck_report_read", path, &in);
  if (st != PERFCHECK_OK) return st;
  switch (pc_input_kind_of(in)) {
    case PC_INPUT_JSON:
      st = pc_read_json(in, quiet, out);
      break;
    case PC_INPUT_NSYS_CSV:
      st = pc_read_nsys(&in, 1, PC_NULL, quiet, out);
      break;
    case PC_INPUT_NCU_CSV:
    case PC_INPUT_TEXT: /* an export whose header comes after much program output */
      st = pc_read_ncu(in, quiet, out);
      break;
    default:
      st = pc_read_wrong_kind(in, pc_input_formats);
      break;
  }
  pc_input_close(in);
  return st;
}
