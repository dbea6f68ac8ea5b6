/*
 * pc_gpu.c: the GPU side's lifecycle and the state it keeps for the session
 * (pc_gpu.h).  A region's end is pc_harvest.c.
 *
 * State owned here: the counter layer (pc_rp, from pc_gpu_start to
 * pc_gpu_stop) and the counters note (why counters are off although asked
 * for).  Lock: pc_gpu_state_mu guards both; it is a leaf (nothing is called
 * with it held but memory work), taken after the session lock.  The
 * counter layer itself is handed to the capture (pc_capture_set_counters),
 * which uses it in launch callbacks until pc_capture_stop.
 */
#include "pc_gpu.h"
#include <stdatomic.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "pc_activity.h"
#include "pc_call.h"
#include "pc_capture.h"
#include "pc_cuda.h"
#include "pc_cupti.h"
#include "pc_funcinfo.h"
#include "pc_gpu_internal.h"
#include "pc_rangeprof.h"

static pthread_mutex_t pc_gpu_state_mu = PTHREAD_MUTEX_INITIALIZER;
static pc_rp *pc_gpu_rp_;
static int pc_gpu_counters_asked;
static char pc_gpu_note[900];

pc_rp *pc_gpu_rp(void) {
  pthread_mutex_lock(&pc_gpu_state_mu);
  pc_rp *rp = pc_gpu_rp_;
  pthread_mutex_unlock(&pc_gpu_state_mu);
  return rp;
}

int pc_gpu_counters_note(char *out, size_t len) {
  pthread_mutex_lock(&pc_gpu_state_mu);
  snprintf(out, len, "%s", pc_gpu_note);
  const int asked = pc_gpu_counters_asked;
  pthread_mutex_unlock(&pc_gpu_state_mu);
  return asked;
}

/* ---- lifecycle -------------------------------------------------------------------------- */

/* The GPU side, undone in reverse order; rp may be NULL. */
static atomic_int pc_gpu_keep;

void pc_gpu_keep_cupti(void) { atomic_store(&pc_gpu_keep, 1); }

static atomic_int pc_gpu_exit_flag;
void pc_gpu_mark_exit(void) { atomic_store(&pc_gpu_exit_flag, 1); }
int pc_gpu_exiting(void) { return atomic_load(&pc_gpu_exit_flag); }

static void pc_gpu_teardown(pc_rp *rp) {
  pc_capture_set_active(0);
  if (atomic_load(&pc_gpu_keep)) { /* process exit under injection: see pc_gpu.h */
    pc_activity_flush(1);
    return;
  }
  pc_activity_stop();
  pc_capture_stop();
  if (rp) pc_rp_destroy(rp);
  pc_funcinfo_reset();
}

perfcheck_status pc_gpu_start(const pc_gpu_config *c, pc_gpu_started *out, pc_err *err) {
  memset(out, 0, sizeof *out);
  pc_device_init(&out->device0);
  pc_err_clear(err);
  const char *spec = c->metrics ? c->metrics : "default";
  /* The metric list is checked in every mode: a typo must not wait for the
   * day counters are switched on. */
  pc_rp_plan plan;
  memset(&plan, 0, sizeof plan);
  pc_err e;
  int started = 0; /* 1: the capture (and perhaps activity) is up */
  perfcheck_status st = pc_rp_plan_parse(spec, &plan, &e);
  if (st != PERFCHECK_OK) {
    st = pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_session_create: metrics \"%s\": %s", spec,
                    e.msg[0] ? e.msg : perfcheck_strerror(st));
    goto fail;
  }
  /* The driver first: CUPTI returns 999 or crashes without one. */
  if ((st = pc_cuda_load(err)) != PERFCHECK_OK) goto fail;
  char holder[128];
  if (pc_capture_cupti_unusable(holder, sizeof holder)) {
    st = pc_err_set(err, PERFCHECK_ERROR_CUPTI_IN_USE,
                    "CUPTI is in use by %s; perfcheck makes no further CUPTI call in this process", holder);
    goto fail;
  }
  out->device0_ok = pc_funcinfo_device(0, &out->device0, &e) == PERFCHECK_OK;
  if (!out->device0_ok) {
    pc_device_init(&out->device0);
    snprintf(out->device0_msg, sizeof out->device0_msg, "%s", e.msg);
  }
  if ((st = pc_capture_start(err)) != PERFCHECK_OK) goto fail;
  started = 1;
  if ((st = pc_activity_start(err)) != PERFCHECK_OK) goto fail;
  pc_rp *rp = NULL;
  char note[900] = "";
  if (c->mode != PERFCHECK_MODE_TIMING) {
    char set[sizeof plan.set_name];
    snprintf(set, sizeof set, "%s", plan.set_name);
    st = pc_rp_create(&plan, c->progress, &rp, &e); /* the plan moves in on success */
    if (st == PERFCHECK_OK && rp) {
      snprintf(out->metric_set, sizeof out->metric_set, "%s", set);
    } else {
      rp = NULL;
      snprintf(note, sizeof note, "counters unavailable (%s): %s", perfcheck_strerror(st), e.msg);
    }
  }
  pc_rp_plan_free(&plan);
  snprintf(out->counters_note, sizeof out->counters_note, "%s", note);
  pthread_mutex_lock(&pc_gpu_state_mu);
  pc_gpu_rp_ = rp;
  pc_gpu_counters_asked = c->mode != PERFCHECK_MODE_TIMING;
  snprintf(pc_gpu_note, sizeof pc_gpu_note, "%s", note);
  pthread_mutex_unlock(&pc_gpu_state_mu);

  pc_capture_counters cc;
  memset(&cc, 0, sizeof cc);
  cc.rp = rp;
  cc.kernel_regex = c->kernel_regex;
  cc.launch_skip = c->launch_skip;
  cc.launch_count = c->launch_count;
  cc.per_signature = c->per_signature;
  pc_capture_set_counters(&cc);
  pc_capture_set_active(1);
  return PERFCHECK_OK;

fail: /* the one cleanup path: undo what was started */
  pc_rp_plan_free(&plan);
  if (started)
    pc_gpu_teardown(NULL);
  else
    pc_funcinfo_reset();
  return st;
}

void pc_gpu_stop(void) {
  pthread_mutex_lock(&pc_gpu_state_mu);
  pc_rp *rp = pc_gpu_rp_;
  pc_gpu_rp_ = NULL;
  pc_gpu_counters_asked = 0;
  pc_gpu_note[0] = '\0';
  pthread_mutex_unlock(&pc_gpu_state_mu);
  pc_gpu_teardown(rp); /* the capture stops using rp before it is destroyed */
}

/* ---- state --------------------------------------------------------------------------------- */

void pc_gpu_poll(pc_gpu_events *ev) {
  memset(ev, 0, sizeof *ev);
  ev->fatal = pc_capture_fatal(ev->fatal_msg, sizeof ev->fatal_msg);
  pc_rp *rp = pc_gpu_rp();
  if (pc_capture_take_refusal() && rp) {
    const char *m = NULL;
    perfcheck_status st = pc_rp_status(rp, &m);
    ev->refused = 1;
    snprintf(ev->refused_msg, sizeof ev->refused_msg, "counters refused (%s): %s", perfcheck_strerror(st),
             m && *m ? m : "no detail");
    pthread_mutex_lock(&pc_gpu_state_mu);
    snprintf(pc_gpu_note, sizeof pc_gpu_note, "%s", ev->refused_msg);
    pthread_mutex_unlock(&pc_gpu_state_mu);
  }
}

int pc_gpu_fatal(void) { return pc_capture_fatal(NULL, 0); }

void pc_gpu_quiesce(void) {
  pc_capture_set_active(0);
  pc_capture_counters_off();
}

void pc_gpu_marks(pc_region_marks *m) {
  memset(m, 0, sizeof *m);
  m->launches = pc_capture_region_launches();
  m->failed = pc_capture_failed_launches();
  m->dropped = pc_activity_dropped();
  m->zero_ts = pc_activity_zero_timestamps();
  m->ts = pc_gpu_timestamp();
}

uint64_t pc_gpu_timestamp(void) {
  uint64_t t = 0;
  if (!pc_cupti.cuptiGetTimestamp || PC_CUPTI(NULL, cuptiGetTimestamp, &t) != CUPTI_SUCCESS) t = 0;
  return t;
}

void pc_gpu_tool(char *path, size_t len, unsigned *version, int *preloaded) {
  const unsigned v = pc_cupti_version();
  if (path && len) snprintf(path, len, "%s", v ? pc_cupti_path() : "");
  if (version) *version = v;
  if (preloaded) *preloaded = v ? pc_cupti_was_loaded() : -1;
}

uint32_t pc_gpu_region_open(const char *name, unsigned flags) {
  pc_region_marks begin;
  pc_gpu_marks(&begin); /* before the push: the region's own launches come after */
  return pc_capture_region_push(name, flags, &begin);
}

void pc_gpu_region_mark_end(uint32_t id) {
  pc_region_marks end;
  pc_gpu_marks(&end);
  pc_capture_region_pop(id, &end);
}

/* Whether the session pushed an NVTX range for region id on this thread. */
static int pc_nvtx_here(uint32_t id) {
  pc_region_view v;
  int here = 0;
  if (id && pc_capture_region_view(id, &v) == 0) {
    here = v.nvtx_here;
    pc_region_view_free(&v);
  }
  return here;
}

uint32_t pc_gpu_region_innermost(int *nvtx_here) {
  const uint32_t id = pc_capture_region_innermost();
  *nvtx_here = pc_nvtx_here(id);
  return id;
}

uint32_t pc_gpu_region_next_to_end(int *nvtx_here) {
  const uint32_t id = pc_capture_region_next_to_end();
  *nvtx_here = pc_nvtx_here(id);
  return id;
}
