/*
 * pc_call.h: the one checked-call wrapper for every CUPTI and driver call of
 * lib/gpu (and lib/inject).  pc_cupti (pc_cupti.h) and pc_cu (pc_cuda.h) are
 * the only ways to reach the two APIs; these macros are the only way to call
 * through them.
 *
 *   PC_CUPTI(err, fn, args...)  calls pc_cupti.fn(args...).  A failure is
 *       written into *err (err may be NULL) as "fn: CUPTI_ERROR_..." with
 *       the perfcheck status it maps to (pc_cupti_status).  After a 39
 *       (MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED: ncu, nsys or compute-sanitizer
 *       holds the process) every later call is refused without reaching
 *       CUPTI: on the H200 a CUPTI call after a 39 segfaulted the host
 *       program (docs/cupti.md §11).
 *   PC_CUPTI_ALLOW(err, ok2, fn, args...)  the same, where the answer ok2 is
 *       not a failure either (the end of an activity buffer).
 *   PC_CU(err, fn, args...)  calls pc_cu.fn(args...); a failure is written
 *       into *err as "fn: CUDA_ERROR_... (text)", status
 *       PERFCHECK_ERROR_INTERNAL (callers that know better say so).
 * Each evaluates to the API's own result.  Nothing is written on success,
 * and nothing here allocates or locks, so the wrappers are used inside
 * callbacks too.
 */
#ifndef PC_CALL_H
#define PC_CALL_H

#include <cuda.h>
#include <cupti.h>

#include "model/pc_core.h"
#include "pc_cuda.h"
#include "pc_cupti.h"

int pc_cupti_blocked(void);
CUptiResult pc_cupti_refused(pc_err *err, const char *fn);
CUptiResult pc_cupti_checked(pc_err *err, const char *fn, CUptiResult r);
CUresult pc_cu_checked(pc_err *err, const char *fn, CUresult r);

#define PC_CUPTI(err, fn, ...) \
  (pc_cupti_blocked() ? pc_cupti_refused((err), #fn) : pc_cupti_checked((err), #fn, pc_cupti.fn(__VA_ARGS__)))
#define PC_CUPTI_ALLOW(err, ok2, fn, ...)                                                       \
  (pc_cupti_blocked() ? pc_cupti_refused((err), #fn)                                           \
                      : pc_cupti_allow_((err), #fn, (ok2), pc_cupti.fn(__VA_ARGS__)))
#define PC_CU(err, fn, ...) pc_cu_checked((err), #fn, pc_cu.fn(__VA_ARGS__))

static inline CUptiResult pc_cupti_allow_(pc_err *err, const char *fn, CUptiResult ok2, CUptiResult r) {
  return r == ok2 ? r : pc_cupti_checked(err, fn, r);
}

/* The perfcheck status for a CUPTI result, and one sentence on how to fix a
 * refusal (privileges, busy, in use), or "". */
perfcheck_status pc_cupti_status(CUptiResult r);
const char *pc_cupti_fix(CUptiResult r);
/* CUPTI is held by another client (a 39 seen, by us or a subscription):
 * `holder` as CUPTI named it.  No further CUPTI call is made. */
void pc_cupti_poison(const char *holder);
/* The holder's name once poisoned ("" before). */
const char *pc_cupti_holder(void);

#endif /* PC_CALL_H */
