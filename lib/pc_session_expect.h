/*
 * pc_session_expect.h: the session's expectations (pc_session_expect.c).
 * perfcheck_session_expect/check keep one expectation set per session in a
 * process-wide slot (a process has at most one session), built on the public
 * API only, so session.c needs no change to offer them.
 */
#ifndef PC_SESSION_EXPECT_H
#define PC_SESSION_EXPECT_H

#include "perfcheck.h"

/* Frees the expectations recorded on `session`, if any.  session.c should
 * call it from perfcheck_session_destroy, so that a later session that gets
 * the same address does not inherit them; until it does, the set is freed
 * when another session first records or checks an expectation. */
void pc_session_expect_forget(const perfcheck_session *session);

#endif /* PC_SESSION_EXPECT_H */
