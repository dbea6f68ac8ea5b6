/* A reader that includes a header of report/ for a type alone
 * (rooms_include_probe/core/report/pc_probe_report.h): no symbol shows the
 * step, and ctest build.rooms_include_found checks that file_cycles.py
 * reports it from the #include line against lib/core's room order. */
#include "report/pc_probe_report.h"

int pc_probe_read_entry(const pc_probe_entry *e) { return e->n + 1; }
