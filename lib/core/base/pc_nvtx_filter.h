/*
 * pc_nvtx_filter.h: ncu's --nvtx-include / --nvtx-exclude for push/pop
 * ranges (pc_nvtx_filter.c), the filter the injection library applies to
 * counters (timing is taken everywhere).
 *
 * A configuration is ncu's push/pop syntax:
 *   A/          a launch inside push/pop range A, at any depth
 *   A/B/        B pushed directly inside A
 *   A/(star)/B/ B inside A with any ranges between (a '*' element:
 *               zero or more ranges)
 *   [A/         A at the bottom of the stack
 *   B]          B the innermost range at the launch (a launch inside B,
 *               not inside a range pushed in B)
 *   \/          a '/' inside a name; regex:EXPR as a whole element: a POSIX
 *               extended regex searched in the name (through pc_regex.h)
 * A configuration without the trailing '/' (or ']') names a start/end
 * range in ncu; perfcheck sees push/pop ranges of the default domain only,
 * so such a configuration, and one with a domain ("D@A/"), is refused with
 * that reason.  Launches are profiled when at least one include
 * configuration holds (or there is none) and no exclude configuration
 * holds, for the stack of some thread of the process (regions are
 * process-wide).
 *
 * Matching is incremental: each range pushed gets a pc_nvtx_state computed
 * from its parent's and its name, so a thread keeps one small state per
 * depth and never rescans its stack.
 */
#ifndef PC_NVTX_FILTER_H
#define PC_NVTX_FILTER_H

#include "base/pc_regex.h"
#include <stddef.h>
#include <stdint.h>

#define PC_NVTX_MAX_PATTERNS 8 /* include and exclude configurations together */
#define PC_NVTX_MAX_ELEMS 30   /* names (and *) in one configuration */

typedef struct pc_nvtx_elem {
  int kind; /* 0 a name, 1 "*", 2 regex:EXPR */
  char *name;
  pc_regex re;
} pc_nvtx_elem;

typedef struct pc_nvtx_pattern {
  int include;
  int anchored_start, anchored_end;
  size_t n;
  pc_nvtx_elem el[PC_NVTX_MAX_ELEMS];
} pc_nvtx_pattern;

typedef struct pc_nvtx_filter {
  size_t n, ninclude;
  pc_nvtx_pattern p[PC_NVTX_MAX_PATTERNS];
} pc_nvtx_filter;

/* Per pattern: bit i set when the first i elements match the stack's top
 * ranges; bit 31 once the whole pattern has matched at this depth or a
 * shallower one. */
typedef struct pc_nvtx_state {
  uint32_t s[PC_NVTX_MAX_PATTERNS];
} pc_nvtx_state;

/* Adds a configuration (include != 0: --nvtx-include).  Returns
 * PERFCHECK_OK; else PERFCHECK_ERROR_INVALID_ARGUMENT ("\"train_step\" is a
 * start/end range in ncu's syntax ...: write \"train_step/\" for the
 * push/pop range of that name", "more than 8 ... configurations", a refused
 * regex) or _OUT_OF_MEMORY, with err set and f as it was. */
perfcheck_status pc_nvtx_filter_add(pc_nvtx_filter *f, int include, const char *config, pc_err *err);
/* PERFCHECK_NVTX's older form: one range name (or regex:EXPR), taken
 * whole, at any depth (as the include "NAME/").  Returns as
 * pc_nvtx_filter_add. */
perfcheck_status pc_nvtx_filter_add_name(pc_nvtx_filter *f, const char *name, pc_err *err);
void pc_nvtx_filter_free(pc_nvtx_filter *f);

/* The state of an empty stack, and of `name` pushed onto `parent`. */
void pc_nvtx_state_empty(const pc_nvtx_filter *f, pc_nvtx_state *st);
void pc_nvtx_state_push(const pc_nvtx_filter *f, const pc_nvtx_state *parent, const char *name,
                        pc_nvtx_state *child);
/* Whether some include configuration holds for the stack of `st` (1 when
 * there is none), and whether some exclude configuration does. */
int pc_nvtx_state_included(const pc_nvtx_filter *f, const pc_nvtx_state *st);
int pc_nvtx_state_excluded(const pc_nvtx_filter *f, const pc_nvtx_state *st);

#endif /* PC_NVTX_FILTER_H */
