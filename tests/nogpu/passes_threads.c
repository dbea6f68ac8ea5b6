/* perfcheck_metric_passes from 8 threads at once: every
 * thread gets the single-threaded answer, and under helgrind (the ctest
 * nogpu.passes_threads_helgrind) no race is reported: CUPTI's host API runs
 * behind perfcheck's one lock.  Needs CUPTI's host library, no GPU; exits
 * 77 (skipped) where it cannot load. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "perfcheck.h"

enum { THREADS = 8, ROUNDS = 3 };

static int want;
static int got[THREADS][ROUNDS];
static perfcheck_status st_of[THREADS][ROUNDS];

static void *worker(void *arg) {
  int t = (int)(long)arg;
  static const char *const sets[] = {"default", "sol", "full"};
  for (int r = 0; r < ROUNDS; r++) {
    int n = -1;
    st_of[t][r] = perfcheck_metric_passes(r == 0 ? "default" : sets[(t + r) % 3], "GH100", &n);
    got[t][r] = n;
  }
  return NULL;
}

int main(void) {
  /* The threads start cold: the first calls into CUPTI's host library race
   * each other, as a program's first calls would. */
  pthread_t th[THREADS];
  for (long t = 0; t < THREADS; t++) pthread_create(&th[t], NULL, worker, (void *)t);
  for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
  perfcheck_status st = perfcheck_metric_passes("default", "GH100", &want);
  if (st == PERFCHECK_ERROR_CUPTI_UNAVAILABLE || st == PERFCHECK_ERROR_UNSUPPORTED) { /* no host library, or a build without the toolkit */
    printf("skipped: %s\n", perfcheck_last_error_message());
    return 77;
  }
  if (st != PERFCHECK_OK) {
    printf("FAIL: one thread: %s (%s)\n", perfcheck_strerror(st), perfcheck_last_error_message());
    return 1;
  }
  int sol = 0, full = 0;
  if (perfcheck_metric_passes("sol", "GH100", &sol) != PERFCHECK_OK ||
      perfcheck_metric_passes("full", "GH100", &full) != PERFCHECK_OK) {
    printf("FAIL: sol/full: %s\n", perfcheck_last_error_message());
    return 1;
  }
  static const char *const sets[] = {"default", "sol", "full"};
  int bad = 0;
  for (int t = 0; t < THREADS; t++)
    for (int r = 0; r < ROUNDS; r++) {
      const char *set = r == 0 ? "default" : sets[(t + r) % 3];
      int expect = strcmp(set, "default") == 0 ? want : strcmp(set, "sol") == 0 ? sol : full;
      if (st_of[t][r] != PERFCHECK_OK || got[t][r] != expect) {
        printf("FAIL: thread %d round %d (%s): status %d, %d passes, want %d\n", t, r, set, (int)st_of[t][r],
               got[t][r], expect);
        bad = 1;
      }
    }
  if (!bad)
    printf("ok: %d threads x %d rounds agree (default %d, sol %d, full %d passes on GH100)\n", THREADS, ROUNDS, want,
           sol, full);
  return bad;
}
