/* A report to its destination (perfcheck_options.output, PERFCHECK_OUTPUT):
 * the writers of pc_write_*.c through pc_output_deliver's rules
 * (pc_output.h: temporary file and rename, stderr fallback, privileged
 * processes, one file per process of a run). */
#include "model/pc_core.h"
#include "base/pc_output.h"
#include "write/pc_write.h"
#include "base/pc_util.h"

typedef struct pc_report_out_ctx {
  const pc_report *r;
  perfcheck_format format;
} pc_report_out_ctx;

static int pc_report_out_write(FILE *f, void *p) {
  const pc_report_out_ctx *c = p;
  perfcheck_status st;
  switch (c->format) {
    case PERFCHECK_FORMAT_JSON:
      st = pc_write_json(c->r, f, NULL);
      break;
    case PERFCHECK_FORMAT_CSV:
      st = pc_write_csv(c->r, f, NULL);
      break;
    case PERFCHECK_FORMAT_HTML:
      st = pc_write_html(c->r, f, NULL);
      break;
    default:
      st = pc_write_text(c->r, f, NULL);
      break;
  }
  return st == PERFCHECK_OK ? 0 : -1; /* pc_output_deliver says why (errno) */
}

int pc_report_deliver(const pc_report *r, perfcheck_format format, const char *pattern, int quiet) {
  if (!r || !pattern) return -1;
  pc_report_out_ctx c = {r, format};
  return pc_output_deliver(pattern, pc_report_out_write, &c, quiet, stderr);
}

PERFCHECK_API perfcheck_status perfcheck_file_write(const char *path, const void *data, size_t size) {
  if (!path || !*path || (!data && size))
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_file_write: %s",
                   !path || !*path ? "no path" : "data is NULL");
  pc_err why;
  perfcheck_status st = pc_output_write_bytes(path, data, size, &why);
  if (st != PERFCHECK_OK) return pc_fail(st, "perfcheck_file_write: %s", why.msg);
  return PERFCHECK_OK;
}
