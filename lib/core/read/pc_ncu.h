/*
 * pc_ncu.h: the ncu CSV reader (pc_ncu_csv.c): an `ncu --csv --page raw`
 * export into a report.
 */
#ifndef PC_NCU_H
#define PC_NCU_H

#include <stddef.h>
#include <stdio.h>
#include "model/pc_core.h"

/* ==== ncu CSV reader (pc_ncu_csv.c) ====================================== */

/* Parses an `ncu --csv --page raw` export held in memory (len bytes, need not
 * be NUL-terminated) into a new report (device from device__attribute_*
 * columns, one kernel per distinct signature, warnings for unusable values).
 * `name` is used in messages.  Returns PERFCHECK_OK, _PARSE (err names the
 * line), _OUT_OF_MEMORY.  Does not run the checklist. */
perfcheck_status pc_ncu_csv_parse(const char *data, size_t len, const char *name, int quiet,
                                  pc_report **out, pc_err *err);
/* The same, streamed from `f` (a file or a pipe): memory holds a chunk, one
 * record and the signatures, not the file (an 8-byte duration per launch row
 * for the medians).  Rows that cannot be read (a wrong number of fields, a
 * record cut by the end of the file) are dropped and counted; with at least
 * one usable launch the report is returned with one warning that names the
 * first bad line and the count, else PERFCHECK_ERROR_PARSE.  Also
 * PERFCHECK_ERROR_IO on a read error. */
perfcheck_status pc_ncu_csv_read(FILE *f, const char *name, int quiet, pc_report **out, pc_err *err);

#endif /* PC_NCU_H */
