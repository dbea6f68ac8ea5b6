/*
 * pc_session.h: internal entry points of lib/session.c for the injection
 * library (lib/inject), which starts a session without the host program's
 * help.
 */
#ifndef PC_SESSION_H
#define PC_SESSION_H

#include <stdint.h>

#include "gpu/pc_gpu.h"
#include "perfcheck.h"

/* The process's session: creates it on the first call (as
 * perfcheck_session_create, with the same statuses and the same undo on
 * failure) and returns the existing one on later calls (PERFCHECK_OK, the
 * options are then ignored).  All of start-up is here, in one place:
 * options, then the GPU side (pc_gpu_start: driver probe before any CUPTI
 * call, subscriber, activity, counter layer). */
perfcheck_status pc_session_startup(const perfcheck_options *options, perfcheck_session **out);

/* The process's session, or NULL, without waiting: *busy is 1 (and NULL
 * returned) when another call holds the process's session lock (a session
 * being created or destroyed).  For callbacks that may run inside such a
 * call. */
perfcheck_session *pc_session_current_try(int *busy);

/* ---- regions of the injection library ----------------------------------------
 * NVTX ranges arrive as CUPTI callbacks, where the session lock, driver calls
 * and activity flushes are not allowed.  So a range is recorded there (a
 * region opened with pc_gpu_region_open and popped with
 * pc_capture_region_pop, so that launches are tagged at once, plus its
 * marks at both ends) and replayed into the session at a safe point
 * (exit, a signal's watcher thread): pc_session_begin_recorded for it (and
 * its enclosing ranges first), pc_session_end_recorded with its end marks.
 * The heavy part of an end (synchronize, flush, counters, attributes) runs
 * then; its numbers are those of the recorded interval. */

/* The marks of a region's ends are pc_region_marks (gpu/pc_gpu.h), taken
 * with pc_gpu_marks, which is safe inside a CUPTI callback. */

/* Opens the whole-program region of the injection library: as
 * perfcheck_session_begin (no NVTX range of its own), but the kernel entries
 * it gets have no region (region NULL, "region": null in JSON) and take no
 * step-1 verdict from it: the region answers step 1 for the program, the
 * kernels keep their own steps 2 to 5.  Not from a callback. */
perfcheck_status pc_session_begin_program(perfcheck_session *s, const char *name);

/* Pushes a region recorded earlier: `name` (copied), its capture region id
 * (from pc_capture_region_push), its begin marks.  Its parent is the
 * innermost region open in the session now.  Takes the session lock: never
 * from a callback.  Returns PERFCHECK_OK, PERFCHECK_ERROR_INVALID_ARGUMENT,
 * PERFCHECK_ERROR_OUT_OF_MEMORY. */
perfcheck_status pc_session_begin_recorded(perfcheck_session *s, const char *name, uint32_t capture_id,
                                           const pc_region_marks *begin);

/* Closes the innermost region as perfcheck_session_end does, ending it at
 * `end` (recorded earlier) or, when NULL, now.  Unlike perfcheck_session_end
 * it also collects in an inert session (after a kernel fault: what was
 * collected is kept), except after CUPTI's own fatal error.  Not from a
 * callback.  Returns as perfcheck_session_end. */
perfcheck_status pc_session_end_recorded(perfcheck_session *s, const pc_region_marks *end);

/* Adds a warning line to the session's report (and stderr unless quiet). */
void pc_session_note(perfcheck_session *s, const char *text);

#endif /* PC_SESSION_H */
