/* perfcheck_report_from_snapshots: in-process verdicts again, on any
 * machine.  A session writes each region's snapshot under
 * PERFCHECK_SNAPSHOT_DIR (pc_snapshot_json.c); this reads one such file, or
 * every snapshot of a folder in name order (scandir with alphasort), and
 * puts each through pc_region_build, the builder the session uses, then
 * walks the checklist over the whole report: the verdicts are this build's
 * rules on what was measured then. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/pc_buf.h"
#include "model/pc_core.h"
#include "model/pc_snapshot.h"
#include "check/pc_check.h"
#include "report/pc_snapshot_json.h"
#include "report/pc_region_build.h"
#include "base/pc_util.h"

/* Adds one snapshot file to r; on failure err names the file. */
static perfcheck_status pc_add_snapshot_file(const char *path, pc_report *r, pc_build_state *st, pc_err *err) {
  pc_snapshot *s = NULL;
  perfcheck_status rc = pc_snapshot_load(path, &s, err);
  if (rc != PERFCHECK_OK) return rc;
  rc = pc_region_build(s, r, st);
  pc_snapshot_free(s);
  if (rc != PERFCHECK_OK) pc_err_set(err, rc, "%s: out of memory", path);
  return rc;
}

static int pc_is_json_name(const struct dirent *d) {
  const size_t n = strlen(d->d_name);
  return d->d_name[0] != '.' && n > 5 && strcmp(d->d_name + n - 5, ".json") == 0;
}

/* Every *.json of the folder, in name order. */
static perfcheck_status pc_add_snapshot_dir(const char *dir, pc_report *r, pc_build_state *st, pc_err *err) {
  struct dirent **names = NULL;
  const int n = scandir(dir, &names, pc_is_json_name, alphasort);
  if (n < 0) {
    return pc_err_set(err, PERFCHECK_ERROR_IO, "%s: %s", dir, strerror(errno));
  }
  perfcheck_status rc =
      n == 0 ? pc_err_set(err, PERFCHECK_ERROR_PARSE, "%s: no snapshot (*.json) in this folder", dir) : PERFCHECK_OK;
  for (int i = 0; i < n; i++) {
    if (rc == PERFCHECK_OK) {
      pc_buf p = PC_BUF_INIT;
      rc = pc_buf_printf(&p, "%s/%s", dir, names[i]->d_name) < 0
               ? pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "%s: out of memory", dir)
               : pc_add_snapshot_file(p.p, r, st, err);
      pc_buf_free(&p);
    }
    free(names[i]);
  }
  free(names);
  return rc;
}

PERFCHECK_API perfcheck_status perfcheck_report_from_snapshots(const char *path, int quiet, perfcheck_report **out) {
  if (out) *out = NULL;
  if (!path || !out)
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_report_from_snapshots: %s is NULL",
                   path ? "out" : "path");
  struct stat sb;
  if (stat(path, &sb) != 0) return pc_fail(PERFCHECK_ERROR_IO, "%s: %s", path, strerror(errno));
  pc_report *r = pc_report_new();
  if (!r) return pc_fail(PERFCHECK_ERROR_OUT_OF_MEMORY, "perfcheck_report_from_snapshots: out of memory");
  pc_build_state st;
  pc_build_state_init(&st, quiet);
  pc_err err;
  pc_err_clear(&err);
  perfcheck_status rc = S_ISDIR(sb.st_mode) ? pc_add_snapshot_dir(path, r, &st, &err)
                                            : pc_add_snapshot_file(path, r, &st, &err);
  if (rc != PERFCHECK_OK) {
    pc_report_free(r);
    return pc_fail(rc, "%s", err.msg[0] ? err.msg : perfcheck_strerror(rc));
  }
  pc_checklist_report(r);
  *out = r;
  return PERFCHECK_OK;
}
