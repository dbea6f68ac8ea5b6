/*
 * pc_nvtx_filter.h: ncu's --nvtx-include / --nvtx-exclude for push/pop and
 * start/end ranges (pc_nvtx_filter.c), the filter the injection library
 * applies to counters (timing is taken everywhere).
 *
 * A push/pop configuration (one that ends in '/' or ']', starts with '[',
 * or holds a '/'):
 *   A/          a launch inside push/pop range A, at any depth
 *   A/B/        B pushed directly inside A
 *   A/(star)/B/ B inside A with any ranges between (a '*' element:
 *               zero or more ranges)
 *   [A/         A at the bottom of the stack
 *   B]          B the innermost range at the launch (a launch inside B,
 *               not inside a range pushed in B)
 *   \/          a '/' inside a name; regex:EXPR as a whole element: a POSIX
 *               extended regex searched in the name (through pc_regex.h)
 * A start/end configuration (any other; nvtxRangeStart* / nvtxRangeEnd,
 * whose ranges belong to the process, not a thread, and may end on another
 * thread than they started on):
 *   A           a launch while a start/end range A is open
 *   A,B         while both A and B are open
 *   \,          a ',' inside a name (\ before any of @ , [ ] / * + keeps
 *               it literal); regex:EXPR,EXPR: each name a POSIX extended
 *               regex searched in the range's name (one ending in ']' reads
 *               as push/pop "B]": write it as a group, "regex:(a[0-9])")
 * Ranges of the default domain only: a configuration with a domain
 * ("D@A", "D@A/") is refused with that reason.  Launches are profiled
 * when at least one include configuration holds (or there is none) and no
 * exclude configuration holds: a push/pop one for the stack of some thread
 * of the process (regions are process-wide), a start/end one for the
 * process's open start/end ranges (pc_nvtx_open).
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
  int startend;   /* a start/end configuration: every element names an open range */
  int anchored_start, anchored_end;
  size_t n;
  pc_nvtx_elem el[PC_NVTX_MAX_ELEMS];
} pc_nvtx_pattern;

typedef struct pc_nvtx_filter {
  size_t n, ninclude;
  size_t nstartend; /* start/end configurations among the n */
  pc_nvtx_pattern p[PC_NVTX_MAX_PATTERNS];
} pc_nvtx_filter;

/* Per pattern: bit i set when the first i elements match the stack's top
 * ranges; bit 31 once the whole pattern has matched at this depth or a
 * shallower one. */
typedef struct pc_nvtx_state {
  uint32_t s[PC_NVTX_MAX_PATTERNS];
} pc_nvtx_state;

/* Adds a configuration (include != 0: --nvtx-include).  Returns
 * PERFCHECK_OK; else PERFCHECK_ERROR_INVALID_ARGUMENT ("\"NCCL@train/\"
 * names the NVTX domain ...", "more than 8 ... configurations", an empty
 * name, a refused regex) or _OUT_OF_MEMORY, with err set and f as it was. */
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
/* Whether some push/pop include configuration holds for the stack of `st`
 * (1 when there is no include at all), and whether some push/pop exclude
 * configuration does. */
int pc_nvtx_state_included(const pc_nvtx_filter *f, const pc_nvtx_state *st);
int pc_nvtx_state_excluded(const pc_nvtx_filter *f, const pc_nvtx_state *st);

/* ---- Start/end ranges: the process's open ones ----
 * Each range started and not yet ended: NVTX's id, its name, and what its
 * owner keeps beside it (the injection runtime: the region it opened).  At
 * most PC_NVTX_MAX_OPEN at once (a program that starts ranges and never
 * ends them cannot grow it without bound); later ones are refused. */
#define PC_NVTX_MAX_OPEN 4096
typedef struct pc_nvtx_open_range {
  uint64_t id;
  uint32_t tag;
  char *name;
} pc_nvtx_open_range;
typedef struct pc_nvtx_open {
  pc_nvtx_open_range *v;
  size_t n, cap;
} pc_nvtx_open;

/* Records range id (name copied) with its tag.  Returns 0, -1 when full or
 * out of memory (then it is not recorded). */
int pc_nvtx_open_start(pc_nvtx_open *o, uint64_t id, const char *name, uint32_t tag);
/* Forgets range id; returns 1 and its tag in *tag (may be NULL) when it was
 * open, 0 for an id never started (or refused). */
int pc_nvtx_open_end(pc_nvtx_open *o, uint64_t id, uint32_t *tag);
void pc_nvtx_open_free(pc_nvtx_open *o);
/* Whether some start/end include configuration holds for the open ranges,
 * and whether some start/end exclude configuration does (0 when f has none). */
int pc_nvtx_open_included(const pc_nvtx_filter *f, const pc_nvtx_open *o);
int pc_nvtx_open_excluded(const pc_nvtx_filter *f, const pc_nvtx_open *o);

#endif /* PC_NVTX_FILTER_H */
