/*
 * pc_snapshot_json.h: a snapshot (model/pc_snapshot.h) written to and read
 * from a JSON file, schema "perfcheck-snapshot/1" (pc_snapshot_json.c).
 */
#ifndef PC_SNAPSHOT_JSON_H
#define PC_SNAPSHOT_JSON_H

#include <stddef.h>
#include <stdio.h>

#include "model/pc_snapshot.h"

/* Writes the snapshot as one JSON object.  Timestamps are written relative
 * to "origin_ns" (a decimal string), so that they stay exact as JSON
 * numbers.  Returns PERFCHECK_OK, or PERFCHECK_ERROR_IO (or
 * _INVALID_ARGUMENT) with err set. */
perfcheck_status pc_snapshot_write_json(const pc_snapshot *s, FILE *f, pc_err *err);
/* Reads what pc_snapshot_write_json wrote.  Returns PERFCHECK_OK,
 * PERFCHECK_ERROR_PARSE (err says where and what), PERFCHECK_ERROR_OUT_OF_MEMORY. */
perfcheck_status pc_snapshot_from_json_text(const char *data, size_t len, const char *name, pc_snapshot **out,
                                            pc_err *err);
/* The same from a file (PERFCHECK_ERROR_IO when it cannot be read). */
perfcheck_status pc_snapshot_load(const char *path, pc_snapshot **out, pc_err *err);

#endif /* PC_SNAPSHOT_JSON_H */
