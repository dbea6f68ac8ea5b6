/* perfcheck_session_expect / _check / _expectations: the session's
 * expectation set, kept beside the session (public API only; see
 * pc_session_expect.h for why it lives outside session.c). */
#include <pthread.h>
#include <stddef.h>

#include "pc_core.h"
#include "pc_session_expect.h"

/* One slot: a process has at most one session at a time. */
static pthread_mutex_t pc_se_lock = PTHREAD_MUTEX_INITIALIZER;
static const perfcheck_session *pc_se_owner;
static perfcheck_expectations *pc_se_set;

/* With the lock held: the set of `session`, created when `create`.  A set
 * left by an earlier session is freed first. */
static perfcheck_expectations *pc_se_get(const perfcheck_session *session, int create, perfcheck_status *st) {
  *st = PERFCHECK_OK;
  if (pc_se_owner != session) {
    perfcheck_expectations_destroy(pc_se_set);
    pc_se_set = NULL;
    pc_se_owner = NULL;
  }
  if (!pc_se_set && create) {
    *st = perfcheck_expectations_create(&pc_se_set);
    if (*st != PERFCHECK_OK) return NULL;
    pc_se_owner = session;
  }
  return pc_se_set;
}

void pc_session_expect_forget(const perfcheck_session *session) {
  pthread_mutex_lock(&pc_se_lock);
  if (session && pc_se_owner == session) {
    perfcheck_expectations_destroy(pc_se_set);
    pc_se_set = NULL;
    pc_se_owner = NULL;
  }
  pthread_mutex_unlock(&pc_se_lock);
}

PERFCHECK_API perfcheck_status perfcheck_session_expect(perfcheck_session *session, const char *spec) {
  if (!session || !spec)
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_session_expect: %s is NULL", session ? "spec" : "session");
  pthread_mutex_lock(&pc_se_lock);
  perfcheck_status st;
  perfcheck_expectations *set = pc_se_get(session, 1, &st);
  if (set) st = perfcheck_expectations_add(set, spec);
  pthread_mutex_unlock(&pc_se_lock);
  return st;
}

PERFCHECK_API perfcheck_status perfcheck_session_check(perfcheck_session *session, size_t *failures) {
  if (failures) *failures = 1;
  if (!session) return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_session_check: session is NULL");
  const perfcheck_report *report = NULL;
  perfcheck_status st = perfcheck_session_report(session, &report);
  if (st != PERFCHECK_OK) return st;
  pthread_mutex_lock(&pc_se_lock);
  /* No expectation recorded: an empty set, so that the count is 0 and the
   * results are empty rather than stale. */
  perfcheck_expectations *set = pc_se_get(session, 1, &st);
  if (set) st = perfcheck_expectations_check(set, report, failures);
  pthread_mutex_unlock(&pc_se_lock);
  return st;
}

PERFCHECK_API const perfcheck_expectations *perfcheck_session_expectations(const perfcheck_session *session) {
  if (!session) return NULL;
  pthread_mutex_lock(&pc_se_lock);
  const perfcheck_expectations *set = pc_se_owner == session ? pc_se_set : NULL;
  pthread_mutex_unlock(&pc_se_lock);
  return set;
}
