/*
 * pc_session.h: internal entry points of lib/session.c for the injection
 * library (lib/inject), which starts a session without the host program's
 * help.
 */
#ifndef PC_SESSION_H
#define PC_SESSION_H

#include <stddef.h>
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
 * and activity flushes are not allowed.  So a range is recorded there, on
 * the one region stack (pc_gpu_region_open with PC_RG_RECORDED at its push,
 * so that launches are tagged at once; pc_gpu_region_mark_end at its pop,
 * which takes its end marks), and ended at a safe point (exit, a signal's
 * watcher thread) by pc_session_end_all.  The heavy part of an end
 * (synchronize, flush, counters, attributes) runs then; its numbers are those
 * of the recorded interval. */

/* Opens the whole-program region of the injection library: as
 * perfcheck_session_begin (no NVTX range of its own), but the kernel entries
 * it gets have no region (region NULL, "region": null in JSON) and take no
 * step-1 verdict from it: the region answers step 1 for the program, the
 * kernels keep their own steps 2 to 5.  Not from a callback. */
perfcheck_status pc_session_begin_program(perfcheck_session *s, const char *name);

/* Ends every region still open, recorded ranges and the program region
 * alike, children before their parents (siblings in the order they began),
 * each at its recorded end or now.  Unlike perfcheck_session_end it also
 * collects in an inert session (after a kernel fault: what was collected is
 * kept), except after CUPTI's own fatal error.  Not from a callback. */
void pc_session_end_all(perfcheck_session *s);

/* From now on a session's destroy leaves CUPTI subscribed and inactive
 * (no callback does anything, nothing is freed that a callback could
 * touch): for the injection library at process exit. */
void pc_session_keep_cupti_at_exit(void);

/* The process is exiting: regions ended from now on ask the driver for no
 * function attributes (pc_gpu_mark_exit, pc_gpu.h). */
void pc_session_mark_exit(void);

/* Adds a warning line to the session's report (and to stderr only with
 * PERFCHECK_VERBOSE=1, unless quiet). */
void pc_session_note(perfcheck_session *s, const char *text);

/* perfcheck_session_destroy, also saying what the report held and where it
 * went (for the injection library's one line at exit): `delivered` is
 * pc_report_deliver's answer (0 written where asked, 1 on stderr instead,
 * -1 not written), -2 when the session had no output.  sum may be NULL. */
typedef struct pc_session_summary {
  size_t kernels, warnings;
  int delivered;
} pc_session_summary;
void pc_session_destroy_summary(perfcheck_session *s, pc_session_summary *sum);

#endif /* PC_SESSION_H */
