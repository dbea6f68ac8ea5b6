/* A type of report/ that a probe reader includes (ctest
 * build.rooms_include_found). */
#ifndef PC_PROBE_REPORT_H
#define PC_PROBE_REPORT_H
typedef struct pc_probe_entry {
  int n;
} pc_probe_entry;
#endif
