/*
 * pc_gpu.c: the GPU side's lifecycle, its state for the session and the
 * injection library's entry points (pc_gpu.h).  A region's end is
 * pc_harvest.c; what a session measures is the collector (pc_collector.h),
 * created here at start and destroyed at stop.
 */
#define _GNU_SOURCE /* secure_getenv, dl_iterate_phdr */
#include "pc_gpu.h"

#include <link.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "model/pc_config.h"
#include "pc_activity.h"
#include "pc_call.h"
#include "pc_capture.h"
#include "pc_collector.h"
#include "pc_cuda.h"
#include "pc_cupti.h"
#include "pc_funcinfo.h"
#include "pc_gpu_internal.h"
#include "pc_rangeprof.h"

/* ---- lifecycle -------------------------------------------------------------------------- */

static uint64_t pc_gpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Adds the time since *t0 to the collector's set-up phase and restarts *t0. */
static void pc_gpu_phase(pc_collector *c, int phase, uint64_t *t0) {
  const uint64_t t = pc_gpu_now();
  pc_collector_add_setup_time(c, phase, t - *t0);
  *t0 = t;
}

/* Adds the time since *t0 to *acc and restarts *t0. */
static void pc_gpu_lap(uint64_t *acc, uint64_t *t0) {
  const uint64_t t = pc_gpu_now();
  *acc += t - *t0;
  *t0 = t;
}

/* XLA's CUDA plugin (xla_cuda_plugin.so, under jax_plugins) among the
 * loaded objects: JAX loads it before its first CUDA call, so it is there
 * when perfcheck run's session starts at cuInit (pc_config_replay_rotate). */
static int pc_gpu_xla_cb(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  const char *name = info->dlpi_name;
  if (!name || !*name) return 0;
  const char *base = strrchr(name, '/');
  base = base ? base + 1 : name;
  if (strncmp(base, "xla_cuda_plugin", 15) != 0) return 0;
  *(int *)data = 1;
  return 1; /* found: stop walking */
}
static int pc_gpu_xla_loaded(void) {
  int found = 0;
  dl_iterate_phdr(pc_gpu_xla_cb, &found);
  return found;
}

void pc_gpu_keep_cupti(void) { atomic_store(&pc_gpu_g.keep, 1); }
void pc_gpu_mark_exit(void) { atomic_store(&pc_gpu_g.exiting, 1); }
int pc_gpu_exiting(void) { return atomic_load(&pc_gpu_g.exiting); }

/* Uninstalls collector c and frees it with its counter layer, once no
 * callback can reach it. */
static void pc_gpu_release(pc_collector *c) {
  if (!c) return;
  pc_collector_retire(c);
  pc_collector_free(c);
}

/* The GPU side, undone in reverse order. */
static void pc_gpu_teardown(pc_collector *c) {
  if (c) pc_collector_set_active(c, 0);
  if (c) pc_rp_say_phases(pc_collector_rp(c));
  uint64_t t0 = pc_gpu_now(), flush = 0, release = 0, unsub = 0;
  char what[200];
  if (atomic_load(&pc_gpu_g.keep)) { /* process exit under injection: see pc_gpu.h */
    pc_activity_flush(1);
    pc_gpu_lap(&flush, &t0);
    snprintf(what, sizeof what, "at exit: activity flush %.1f ms (CUPTI stays subscribed)", (double)flush / 1e6);
    pc_collector_say_times(c, what);
    return;
  }
  pc_activity_stop();
  pc_gpu_lap(&flush, &t0);
  pc_collector_retire(c);
  pc_gpu_lap(&release, &t0);
  pc_capture_unsubscribe();
  pc_funcinfo_reset();
  pc_gpu_lap(&unsub, &t0);
  snprintf(what, sizeof what,
           "teardown %.1f ms (activity flush and stop %.1f, counter layer and collector %.1f, unsubscribe %.1f)",
           (double)(flush + release + unsub) / 1e6, (double)flush / 1e6, (double)release / 1e6, (double)unsub / 1e6);
  /* Said before the collector that keeps the set-up times is freed. */
  pc_collector_say_times(c, what);
  pc_collector_free(c);
}

/* The counter layer, unless in timing mode: created over the collector
 * with the parsed plan (moved in on success); *note says why counters are
 * off although asked for. */
static void pc_gpu_counters(pc_collector *c, const pc_gpu_config *cfg, pc_rp_plan *plan, pc_gpu_started *out,
                            pc_err *note) {
  pc_err_clear(note);
  if (cfg->mode == PERFCHECK_MODE_TIMING) return;
  char set[sizeof plan->set_name];
  snprintf(set, sizeof set, "%s", plan->set_name);
  /* PERFCHECK_REPLAY: kernel (the default; rotation when XLA is loaded) or
   * rotate (pc_rangeprof.h, pc_config_replay_rotate). */
  pc_err why;
  const int rotate = pc_config_replay_rotate(secure_getenv("PERFCHECK_REPLAY"), pc_gpu_xla_loaded(), &why);
  const pc_rp_config rc = {cfg->progress >= 2 ? 2 : cfg->progress ? 1 : 0, cfg->say, rotate};
  pc_err e;
  const perfcheck_status st =
      pc_collector_counters_create(c, plan, &rc, &out->replay_why, &e);
  /* Rotation that could not be had says so itself; else why this mode. */
  if (!out->replay_why.msg[0] && why.msg[0]) out->replay_why = why;
  if (st == PERFCHECK_OK && pc_collector_rp(c)) {
    snprintf(out->metric_set, sizeof out->metric_set, "%s", set);
    out->rotate_groups = (unsigned)pc_rp_groups(pc_collector_rp(c));
  } else {
    pc_err_set(note, st, "counters unavailable (%s): %s", perfcheck_strerror(st), e.msg);
  }
}

/* The driver and CUPTI checked, device 0's facts, the subscriber and the
 * activity kinds, each phase timed into the collector.  *started: the
 * capture (and perhaps activity) is up. */
static perfcheck_status pc_gpu_bring_up(pc_collector *c, pc_gpu_started *out, int *started, pc_err *err) {
  uint64_t t0 = pc_gpu_now();
  perfcheck_status st;
  /* The driver first: CUPTI returns 999 or crashes without one. */
  if ((st = pc_cuda_load(err)) != PERFCHECK_OK) return st;
  if ((st = pc_capture_cupti_usable(err)) != PERFCHECK_OK) return st;
  pc_gpu_phase(c, PC_SU_CHECK, &t0);
  pc_err e;
  out->device0_ok = pc_funcinfo_device(0, &out->device0, &e) == PERFCHECK_OK;
  if (!out->device0_ok) {
    pc_device_init(&out->device0);
    out->device0_why = e;
  }
  pc_gpu_phase(c, PC_SU_DEVICE, &t0);
  if ((st = pc_capture_start(err)) != PERFCHECK_OK) return st;
  *started = 1;
  pc_gpu_phase(c, PC_SU_CAPTURE, &t0);
  st = pc_activity_start(err);
  pc_gpu_phase(c, PC_SU_ACTIVITY, &t0);
  return st;
}

perfcheck_status pc_gpu_start(const pc_gpu_config *cfg, pc_gpu_started *out, pc_err *err) {
  memset(out, 0, sizeof *out);
  pc_device_init(&out->device0);
  pc_err_clear(err);
  const char *spec = cfg->metrics ? cfg->metrics : "default";
  /* The metric list is checked in every mode: a typo must not wait for the
   * day counters are switched on. */
  pc_rp_plan plan;
  memset(&plan, 0, sizeof plan);
  pc_err e;
  int started = 0; /* 1: the capture (and perhaps activity) is up */
  pc_collector *c = NULL;
  perfcheck_status st = pc_rp_plan_parse(spec, &plan, &e);
  if (st != PERFCHECK_OK) {
    st = pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_session_create: metrics \"%s\": %s", spec,
                    e.msg[0] ? e.msg : perfcheck_strerror(st));
    goto fail;
  }
  if (!(c = pc_collector_new())) {
    st = pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "perfcheck_session_create: out of memory");
    goto fail;
  }
  /* The level comes from the options (PERFCHECK_PROGRESS is read with the
   * others, in lib/core/model/pc_config.c); the counter layer gets it. */
  pc_collector_set_progress(c, cfg->progress, cfg->say);
  if ((st = pc_gpu_bring_up(c, out, &started, err)) != PERFCHECK_OK) goto fail;
  uint64_t t0 = pc_gpu_now();
  pc_gpu_counters(c, cfg, &plan, out, &out->counters_why);
  pc_rp_plan_free(&plan);
  pc_gpu_phase(c, PC_SU_COUNTERS, &t0);

  pc_collector_counters cc;
  memset(&cc, 0, sizeof cc);
  cc.asked = cfg->mode != PERFCHECK_MODE_TIMING;
  cc.note = out->counters_why.msg;
  cc.kernel_regex = cfg->kernel_regex;
  cc.launch_skip = cfg->launch_skip;
  cc.launch_count = cfg->launch_count;
  cc.per_signature = cfg->per_signature;
  cc.rotate_groups = out->rotate_groups;
  pc_collector_set_counters(c, &cc);
  pc_collector_set_active(c, 1);
  pc_collector *was = pc_collector_install(c);
  if (was) { /* a collector left installed (cannot happen: one session per process) */
    pc_collector_install(was);
    pc_gpu_release(c);
    c = NULL;
    st = pc_err_set(err, PERFCHECK_ERROR_SESSION_EXISTS, "perfcheck_session_create: lib/gpu is already collecting");
    goto fail;
  }
  return PERFCHECK_OK;

fail: /* the one cleanup path: undo what was started */
  pc_rp_plan_free(&plan);
  if (started) {
    pc_activity_stop();
    pc_capture_unsubscribe();
  }
  pc_collector_free(c); /* never installed: no callback can reach it */
  pc_funcinfo_reset();
  return st;
}

void pc_gpu_stop(void) { pc_gpu_teardown(pc_collector_current()); }

/* ---- state --------------------------------------------------------------------------------- */

void pc_gpu_poll(pc_gpu_events *ev) {
  memset(ev, 0, sizeof *ev);
  pc_collector *c = pc_collector_current();
  if (!c) return;
  ev->fatal = pc_collector_fatal(c, &ev->fatal_why);
  ev->refused = pc_collector_poll_refusal(c, &ev->refused_why);
}

int pc_gpu_fatal(void) {
  pc_collector *c = pc_collector_current();
  return c && pc_collector_fatal(c, NULL);
}

void pc_gpu_quiesce(void) {
  pc_collector *c = pc_collector_current();
  if (!c) return;
  pc_collector_set_active(c, 0);
  pc_collector_counters_off(c);
}

void pc_gpu_marks(pc_region_marks *m) {
  memset(m, 0, sizeof *m);
  pc_collector *c = pc_collector_current();
  if (c) {
    pc_collector_launch_counts(c, &m->launches, &m->failed);
    pc_collector_record_counts(c, &m->dropped, &m->zero_ts);
  }
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

/* ---- regions ------------------------------------------------------------------------------ */

uint32_t pc_gpu_region_open(const char *name, unsigned flags) {
  pc_collector *c = pc_collector_current();
  if (!c) return 0;
  pc_region_marks begin;
  pc_gpu_marks(&begin); /* before the push: the region's own launches come after */
  return pc_collector_region_push(c, name, flags, &begin);
}

void pc_gpu_region_mark_end(uint32_t id) {
  pc_collector *c = pc_collector_current();
  if (!c) return;
  pc_region_marks end;
  pc_gpu_marks(&end);
  pc_collector_region_pop(c, id, &end);
}

/* Whether the session pushed an NVTX range for region id on this thread. */
static int pc_nvtx_here(pc_collector *c, uint32_t id) {
  pc_region_view v;
  int here = 0;
  if (id && pc_collector_region_view(c, id, &v, NULL) == PERFCHECK_OK) {
    here = v.nvtx_here;
    pc_region_view_free(&v);
  }
  return here;
}

uint32_t pc_gpu_region_innermost(int *nvtx_here) {
  pc_collector *c = pc_collector_current();
  const uint32_t id = c ? pc_collector_region_innermost(c) : 0;
  *nvtx_here = c ? pc_nvtx_here(c, id) : 0;
  return id;
}

uint32_t pc_gpu_region_next_to_end(int *nvtx_here) {
  pc_collector *c = pc_collector_current();
  const uint32_t id = c ? pc_collector_region_next_to_end(c) : 0;
  *nvtx_here = c ? pc_nvtx_here(c, id) : 0;
  return id;
}

/* ---- injection --------------------------------------------------------------------------- */

perfcheck_status pc_gpu_inject_start(const pc_gpu_inject_hooks *hooks, pc_err *err) {
  pc_err_clear(err);
  if (hooks && !pc_gpu_g.hooks.context_created) pc_gpu_g.hooks = *hooks; /* before any callback can fire */
  int subscribed = 0;
  perfcheck_status st = pc_capture_start(err);
  if (st == PERFCHECK_OK) {
    subscribed = 1;
    st = pc_activity_start(err);
  }
  if (st != PERFCHECK_OK && subscribed) pc_capture_unsubscribe(); /* the one undo path */
  if (st != PERFCHECK_OK) memset(&pc_gpu_g.hooks, 0, sizeof pc_gpu_g.hooks);
  return st;
}

void pc_gpu_counters_preload(void) { pc_rp_preload(); }

perfcheck_status pc_gpu_nvtx_enable(int on, pc_err *err) { return pc_capture_nvtx_enable(on, err); }

int pc_gpu_nvtx_initialize(int nvtx_version, void *get_export_table) {
  if (pc_cupti_load(NULL) != PERFCHECK_OK) return 0;
  int (*init)(void *) = nvtx_version == 2 ? pc_cupti.cuptiNvtxInitialize2 : pc_cupti.cuptiNvtxInitialize;
  if (!init || pc_cupti_blocked()) return 0;
  uint32_t v = 0;
  /* A CUPTI call before NVTX's: CUPTI 13.0 GA crashed otherwise (13.0
   * Update 1 fixed it). */
  (void)PC_CUPTI(NULL, cuptiGetVersion, &v);
  return init(get_export_table) == 0; /* CUPTI_SUCCESS */
}

void pc_gpu_set_counter_gate(int (*gate)(void)) { pc_capture_set_counter_gate(gate); }

void pc_gpu_fork_child(void) {
  pc_collector *c = pc_collector_current();
  if (c) pc_collector_set_active(c, 0);
}

void pc_gpu_flush_activity(void) { pc_activity_flush(1); }
