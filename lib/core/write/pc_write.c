/* perfcheck_report_write: the public writer entry, which hands a report to
 * the text, JSON or CSV writer.  The helpers they share are in pc_fmt.c. */
#include <stdio.h>

#include <stdlib.h>

#include "model/pc_core.h"
#include "write/pc_write.h"
#include "base/pc_util.h"

PERFCHECK_API perfcheck_status perfcheck_report_write(const perfcheck_report *report,
                                                      perfcheck_format format, FILE *stream) {
  if (!report || !stream)
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_report_write: %s is NULL",
                   report ? "stream" : "report");
  pc_err e;
  perfcheck_status st;
  switch (format) {
    case PERFCHECK_FORMAT_TEXT:
      st = pc_write_text(report, stream, &e);
      break;
    case PERFCHECK_FORMAT_JSON:
      st = pc_write_json(report, stream, &e);
      break;
    case PERFCHECK_FORMAT_CSV:
      st = pc_write_csv(report, stream, &e);
      break;
    case PERFCHECK_FORMAT_HTML:
      st = pc_write_html(report, stream, &e);
      break;
    default:
      return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_report_write: unknown format %d",
                     (int)format);
  }
  return st == PERFCHECK_OK ? st : pc_fail(st, "%s", e.msg); /* the boundary: the thread's last error */
}

/* open_memstream (POSIX 2008) rather than a second set of writers into a
 * growing buffer: the three writers stay the one code path for files,
 * streams and memory. */
PERFCHECK_API perfcheck_status perfcheck_report_to_string(const perfcheck_report *report, perfcheck_format format,
                                                          char **out, size_t *len) {
  if (out) *out = NULL;
  if (len) *len = 0;
  if (!report || !out)
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_report_to_string: %s is NULL",
                   report ? "out" : "report");
  char *buf = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&buf, &n);
  if (!f) return pc_fail(PERFCHECK_ERROR_OUT_OF_MEMORY, "perfcheck_report_to_string: open_memstream failed");
  perfcheck_status st = perfcheck_report_write(report, format, f);
  /* The buffer and its size are only final after fclose; a memory stream
   * fails to write only when it cannot grow. */
  if (fclose(f) != 0 && st == PERFCHECK_OK) st = PERFCHECK_ERROR_IO;
  if (st == PERFCHECK_ERROR_IO)
    st = pc_fail(PERFCHECK_ERROR_OUT_OF_MEMORY, "perfcheck_report_to_string: out of memory");
  if (st != PERFCHECK_OK) {
    free(buf);
    return st;
  }
  *out = buf;
  if (len) *len = n;
  return PERFCHECK_OK;
}

PERFCHECK_API void perfcheck_free(void *memory) { free(memory); }
