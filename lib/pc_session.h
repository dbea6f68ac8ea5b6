/*
 * pc_session.h: internal entry points of lib/session.c for the injection
 * library (lib/inject), which starts a session without the host program's
 * help.
 */
#ifndef PC_SESSION_H
#define PC_SESSION_H

#include "perfcheck.h"

/* The process's session: creates it on the first call (as
 * perfcheck_session_create, with the same statuses and the same undo on
 * failure) and returns the existing one on later calls (PERFCHECK_OK, the
 * options are then ignored).  All of start-up is here, in one place:
 * options, driver probe (pc_cuda_load, before any CUPTI call), subscriber,
 * activity, counter layer. */
perfcheck_status pc_session_startup(const perfcheck_options *options, perfcheck_session **out);

/* The process's session, or NULL. */
perfcheck_session *pc_session_current(void);

#endif /* PC_SESSION_H */
