/* A report narrowed to the kernels ncu's -k filter selects
 * (perfcheck_report_select): `perfcheck diagnose -k NAME` as `ncu --import
 * REPORT -k NAME` shows the launches of one kernel.  Everything else of the
 * report (device, regions, warnings, each kept kernel's numbers and verdict)
 * is copied as it is: a kept kernel's share is still its share of all the
 * kernels, which is what the filter must not change. */
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "model/pc_core.h"
#include "base/pc_regex.h"
#include "base/pc_util.h"

static int pc_select_copy_header(pc_report *dst, const pc_report *src) {
  *dst = *src; /* device, source, ranks, tool: plain values */
  dst->regions = NULL, dst->nregions = dst->cap_regions = 0;
  dst->kernels = NULL, dst->nkernels = dst->cap_kernels = 0;
  dst->warnings = NULL, dst->nwarnings = dst->cap_warnings = 0;
  for (size_t i = 0; i < src->nregions; i++) {
    pc_region *g = pc_report_add_region(dst);
    if (!g || pc_region_copy(g, &src->regions[i]) != 0) return -1;
  }
  for (size_t i = 0; i < src->nwarnings; i++)
    if (pc_report_warn(dst, 1, "%s", src->warnings[i]) != 0) return -1;
  return 0;
}

PERFCHECK_API perfcheck_status perfcheck_report_select(const perfcheck_report *report, const char *kernels,
                                                       perfcheck_report **out) {
  if (out) *out = NULL;
  if (!report || !kernels || !out)
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_report_select: NULL argument");
  pc_err e;
  size_t at = 0;
  char *pattern = NULL;
  if (pc_kernel_filter_regex(kernels, &pattern, &at, &e) != PERFCHECK_OK)
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "bad kernel filter \"%s\" (at character %zu): %s", kernels,
                   at + 1, e.msg);
  pc_regex re;
  if (pc_regex_compile(&re, pattern, &at, &e) != PERFCHECK_OK) {
    free(pattern);
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "bad kernel filter \"%s\": %s", kernels, e.msg);
  }
  free(pattern);
  pc_report *r = pc_report_new();
  perfcheck_status st = PERFCHECK_OK;
  if (!r || pc_select_copy_header(r, report) != 0) st = PERFCHECK_ERROR_OUT_OF_MEMORY;
  for (size_t i = 0; i < report->nkernels && st == PERFCHECK_OK; i++) {
    const pc_kernel *k = &report->kernels[i];
    if (!k->name || pc_regex_match(&re, k->name) != 1) continue;
    pc_kernel *d = pc_report_add_kernel(r);
    if (!d || pc_kernel_copy(d, k) != 0) st = PERFCHECK_ERROR_OUT_OF_MEMORY;
  }
  pc_regex_free(&re);
  if (st != PERFCHECK_OK) {
    pc_report_free(r);
    return pc_fail(st, "perfcheck_report_select: out of memory");
  }
  if (r->nkernels == 0) {
    char names[400] = "";
    size_t used = 0, shown = 0;
    for (size_t i = 0; i < report->nkernels && shown < 8 && used < sizeof names - 80; i++) {
      const char *nm = report->kernels[i].name ? report->kernels[i].name : "";
      if (strstr(names, nm)) continue;
      int w = snprintf(names + used, sizeof names - used, "%s%.60s", shown ? ", " : "", nm);
      if (w > 0) used += (size_t)w, shown++;
    }
    pc_report_free(r);
    return pc_fail(PERFCHECK_ERROR_NOT_FOUND,
                   "no kernel matches \"%s\" (a function name, exactly, or regex:EXPR); the report has %s%s", kernels,
                   report->nkernels ? names : "no kernels", shown == 8 ? ", ..." : "");
  }
  *out = r;
  return PERFCHECK_OK;
}
