/* perfcheck_report_write: the public writer entry, which hands a report to
 * the text, JSON or CSV writer.  The helpers they share are in pc_fmt.c. */
#include <stdio.h>

#include "pc_core.h"

PERFCHECK_API perfcheck_status perfcheck_report_write(const perfcheck_report *report,
                                                      perfcheck_format format, FILE *stream) {
  if (!report || !stream)
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_report_write: %s is NULL",
                   report ? "stream" : "report");
  switch (format) {
    case PERFCHECK_FORMAT_TEXT:
      return pc_write_text(report, stream);
    case PERFCHECK_FORMAT_JSON:
      return pc_write_json(report, stream);
    case PERFCHECK_FORMAT_CSV:
      return pc_write_csv(report, stream);
    default:
      return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_report_write: unknown format %d",
                     (int)format);
  }
}
