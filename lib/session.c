/*
 * session.c: the public session API (perfcheck.h, "Sessions"), the one file
 * that joins lib/core (report model, checklist, writers) and lib/gpu (launch
 * capture, activity timing, counters, driver facts).
 *
 * One session per process: CUPTI allows one subscriber.  Start-up lives in
 * pc_session_startup (also the injection library's entry): options first
 * (nothing touched on a bad argument), then the driver probe (pc_cuda_load:
 * CUPTI crashes without a usable driver, so it runs before any CUPTI call),
 * then the subscriber, activity, and the counter layer.  Any failure after
 * a partial start undoes what was done, so the host program is unchanged.
 *
 * Regions are process-wide and nest: the innermost open region tags every
 * launch from any thread.  Ending a region:
 *   1. synchronizes the contexts that launched in it (pushing each): a
 *      sticky kernel fault shows here, and the session goes inert, keeping
 *      what was collected;
 *   2. flushes activity (cuptiActivityFlushAll(0), again, then forced only if
 *      launches of the region still lack their kernel record) and decodes;
 *   3. collects the region's counter results (pc_rp_collect);
 *   4. computes step 1's numbers over the region and its descendants (busy
 *      time is the union of kernel intervals, pc_timeline) and one report
 *      entry per kernel signature whose innermost region it is, with the
 *      launch attributes read from the driver now, outside any callback;
 *   5. hands its kernel spans to the parent region (for the parent's busy
 *      time) or frees them.
 *
 * Locks: the session lock around every API call.  It is never taken inside a
 * CUPTI callback, so it may be held across CUPTI and driver calls; the gpu
 * lock (pc_capture.h) is never held across them.
 */
#include <errno.h>
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cupti.h>

#include "core/pc_core.h"
#include "gpu/pc_activity.h"
#include "gpu/pc_capture.h"
#include "gpu/pc_cuda.h"
#include "gpu/pc_funcinfo.h"
#include "gpu/pc_rangeprof.h"
#include "pc_session.h"
#include "pc_session_expect.h"

typedef struct pc_open_region {
  char *name;
  uint32_t id;
  uint64_t begin_ts;            /* cuptiGetTimestamp; 0 if unavailable */
  uint64_t launches_at_begin;   /* pc_capture_region_launches */
  uint64_t failed_at_begin;
  uint64_t dropped_at_begin;
  uint64_t zero_ts_at_begin;
  uint64_t rp_overhead_at_begin;
  int nvtx;
  pthread_t nvtx_thread;
  /* The injection library's whole-program region: its kernels carry no
   * region, so its step 1 does not mask their steps 2 to 5. */
  int program;
  /* Ended earlier, inside a callback (pc_session_end_recorded): the region
   * ends at these marks, not when it is closed. */
  int has_end;
  pc_region_marks end;
} pc_open_region;

/* A counter result of a profiled launch whose region had not ended when a
 * nested region's end collected it: kept for that region's end. */
typedef struct pc_stashed {
  uint32_t corr;
  int passes;
  double values[PC_M_COUNT];
  double *extra;
  size_t nextra;
} pc_stashed;

struct perfcheck_session {
  pthread_mutex_t lock;
  perfcheck_options opt;        /* strings point to the copies below */
  char *metrics, *kernel_regex, *output;
  regex_t re;
  int has_re;
  pc_rp *rp;
  char counters_note[640];      /* why counters are off, "" when on or not asked */
  size_t rejected_warned;
  pc_report *report;
  int device_ordinal;           /* whose facts report->device holds */
  int multi_device_warned;
  int dram_replay_warned;       /* the kernel-replay DRAM caveat was said */
  pc_open_region *open;
  size_t nopen, capopen;
  int inert;
  char message[1100];
  pc_stashed *stash;            /* results kept for regions that have not ended */
  size_t nstash, capstash;
};

static pthread_mutex_t pc_sess_global = PTHREAD_MUTEX_INITIALIZER;
static perfcheck_session *pc_the_session;

/* ---- options --------------------------------------------------------------------- */

/* Copies what the caller's struct holds (an older caller's is shorter: the
 * rest keeps the defaults). */
static perfcheck_status pc_options_copy(const perfcheck_options *in, perfcheck_options *out) {
  perfcheck_options_init(out);
  if (!in) return PERFCHECK_OK;
  const size_t min = offsetof(perfcheck_options, mode) + sizeof in->mode;
  if (in->size < min || in->size > sizeof *in)
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT,
                   "perfcheck_session_create: options->size is %zu (expected %zu): call perfcheck_options_init",
                   in->size, sizeof *in);
  memcpy(out, in, in->size);
  out->size = sizeof *out;
  if (out->mode != PERFCHECK_MODE_AUTO && out->mode != PERFCHECK_MODE_TIMING && out->mode != PERFCHECK_MODE_COUNTERS)
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_session_create: unknown mode %d", (int)out->mode);
  if (out->output_format != PERFCHECK_FORMAT_TEXT && out->output_format != PERFCHECK_FORMAT_JSON &&
      out->output_format != PERFCHECK_FORMAT_CSV)
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_session_create: unknown output_format %d",
                   (int)out->output_format);
  if (out->per_signature == 0) out->per_signature = 1;
  return PERFCHECK_OK;
}

/* ---- small helpers ------------------------------------------------------------------ */

static void pc_note(perfcheck_session *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* A one-line note: in the report's warnings, on stderr unless quiet, and as
 * the session's message. */
static void pc_note(perfcheck_session *s, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  pc_report_warn(s->report, s->opt.quiet, "%s", buf);
  snprintf(s->message, sizeof s->message, "%s", buf);
}

/* After an unrecoverable failure the session stops collecting and says so
 * once; later begin/end answer PERFCHECK_ERROR_INERT. */
static void pc_go_inert(perfcheck_session *s, const char *why) {
  if (s->inert) return;
  s->inert = 1;
  pc_capture_set_active(0);
  pc_capture_counters_off();
  pc_note(s, "perfcheck stopped collecting: %s", why);
}

static void pc_check_state(perfcheck_session *s) {
  char msg[300];
  if (!s->inert && pc_capture_fatal(msg, sizeof msg)) pc_go_inert(s, msg);
  if (pc_capture_take_refusal() && s->rp) {
    const char *m = NULL;
    perfcheck_status st = pc_rp_status(s->rp, &m);
    snprintf(s->counters_note, sizeof s->counters_note, "counters refused (%s): %s", perfcheck_strerror(st),
             m && *m ? m : "no detail");
    pc_note(s, "hardware counters were refused; continuing with timing only: %s", s->counters_note);
  }
}

static uint64_t pc_timestamp(void) {
  uint64_t t = 0;
  if (cuptiGetTimestamp(&t) != CUPTI_SUCCESS) t = 0;
  return t;
}

/* ---- start-up and teardown ------------------------------------------------------------ */

static void pc_session_free(perfcheck_session *s) {
  if (!s) return;
  for (size_t i = 0; i < s->nopen; i++) free(s->open[i].name);
  free(s->open);
  for (size_t i = 0; i < s->nstash; i++) free(s->stash[i].extra);
  free(s->stash);
  if (s->has_re) regfree(&s->re);
  free(s->metrics);
  free(s->kernel_regex);
  free(s->output);
  pc_report_free(s->report);
  pthread_mutex_destroy(&s->lock);
  free(s);
}

/* The GPU side, undone in reverse order; rp may be NULL. */
static void pc_gpu_teardown(pc_rp *rp) {
  pc_capture_set_active(0);
  pc_activity_stop();
  pc_capture_stop();
  if (rp) pc_rp_destroy(rp);
  pc_funcinfo_reset();
}

/* Caller holds pc_sess_global and checked that no session exists. */
static perfcheck_status pc_session_start_locked(const perfcheck_options *options, perfcheck_session **out) {
  perfcheck_options o;
  perfcheck_status st = pc_options_copy(options, &o);
  if (st != PERFCHECK_OK) return st;

  perfcheck_session *s = calloc(1, sizeof *s);
  if (!s) return pc_fail(PERFCHECK_ERROR_OUT_OF_MEMORY, "perfcheck_session_create: out of memory");
  pthread_mutex_init(&s->lock, NULL);
  s->opt = o;
  if ((o.metrics && !(s->metrics = pc_strdup(o.metrics))) ||
      (o.kernel_regex && !(s->kernel_regex = pc_strdup(o.kernel_regex))) ||
      (o.output && !(s->output = pc_strdup(o.output))) || !(s->report = pc_report_new())) {
    pc_session_free(s);
    return pc_fail(PERFCHECK_ERROR_OUT_OF_MEMORY, "perfcheck_session_create: out of memory");
  }
  s->opt.metrics = s->metrics;
  s->opt.kernel_regex = s->kernel_regex;
  s->opt.output = s->output;
  s->device_ordinal = -1;

  if (s->kernel_regex) {
    int rc = regcomp(&s->re, s->kernel_regex, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
      char e[200];
      regerror(rc, &s->re, e, sizeof e);
      st = pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_session_create: kernel_regex \"%s\": %s",
                   s->kernel_regex, e);
      pc_session_free(s);
      return st;
    }
    s->has_re = 1;
  }
  /* The metric list is checked in every mode: a typo must not wait for the
   * day counters are switched on. */
  pc_rp_plan plan;
  memset(&plan, 0, sizeof plan);
  {
    char err[256] = "";
    st = pc_rp_plan_parse(s->metrics ? s->metrics : "default", &plan, err, sizeof err);
    if (st != PERFCHECK_OK) {
      pc_rp_plan_free(&plan);
      st = pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_session_create: metrics \"%s\": %s",
                   s->metrics ? s->metrics : "default", err[0] ? err : perfcheck_strerror(st));
      pc_session_free(s);
      return st;
    }
  }

  /* The driver first: CUPTI returns 999 or crashes without one. */
  char msg[512];
  st = pc_cuda_load(msg, sizeof msg);
  if (st != PERFCHECK_OK) {
    pc_rp_plan_free(&plan);
    pc_session_free(s);
    return pc_fail(st, "%s", msg);
  }
  char holder[128];
  if (pc_capture_cupti_unusable(holder, sizeof holder)) {
    pc_rp_plan_free(&plan);
    pc_session_free(s);
    return pc_fail(PERFCHECK_ERROR_CUPTI_IN_USE,
                   "CUPTI is in use by %s; perfcheck makes no further CUPTI call in this process", holder);
  }
  if (pc_funcinfo_device(0, &s->report->device, msg, sizeof msg) == PERFCHECK_OK)
    s->device_ordinal = 0;
  else
    pc_report_warn(s->report, s->opt.quiet, "device facts unavailable: %s", msg);

  st = pc_capture_start(msg, sizeof msg);
  if (st != PERFCHECK_OK) {
    pc_rp_plan_free(&plan);
    pc_session_free(s);
    pc_funcinfo_reset();
    return pc_fail(st, "%s", msg);
  }
  st = pc_activity_start(msg, sizeof msg);
  if (st != PERFCHECK_OK) {
    pc_rp_plan_free(&plan);
    pc_gpu_teardown(NULL);
    pc_session_free(s);
    return pc_fail(st, "%s", msg);
  }

  if (o.mode != PERFCHECK_MODE_TIMING) {
    char set[sizeof plan.set_name];
    snprintf(set, sizeof set, "%s", plan.set_name);
    st = pc_rp_create(&plan, o.progress, &s->rp, msg, sizeof msg);
    if (st == PERFCHECK_OK && s->rp) {
      snprintf(s->report->metric_set, sizeof s->report->metric_set, "%s", set);
    } else {
      s->rp = NULL;
      snprintf(s->counters_note, sizeof s->counters_note, "counters unavailable (%s): %s", perfcheck_strerror(st),
               msg);
      pc_note(s, "hardware counters unavailable, timing only: %s", s->counters_note);
    }
  }
  pc_rp_plan_free(&plan); /* moved into the counter layer on success (then empty) */

  pc_capture_counters cc;
  memset(&cc, 0, sizeof cc);
  cc.rp = s->rp;
  cc.kernel_regex = s->has_re ? &s->re : NULL;
  cc.launch_skip = o.launch_skip;
  cc.launch_count = o.launch_count;
  cc.per_signature = o.per_signature;
  pc_capture_set_counters(&cc);
  snprintf(s->report->source, sizeof s->report->source, "%s", "in-process");
  s->report->step1_assessed = 1;
  pc_capture_set_active(1);
  *out = s;
  return PERFCHECK_OK;
}

perfcheck_status pc_session_startup(const perfcheck_options *options, perfcheck_session **out) {
  if (!out) return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "pc_session_startup: out is NULL");
  pthread_mutex_lock(&pc_sess_global);
  perfcheck_status st = PERFCHECK_OK;
  if (!pc_the_session) st = pc_session_start_locked(options, &pc_the_session);
  *out = pc_the_session;
  pthread_mutex_unlock(&pc_sess_global);
  return st;
}

perfcheck_session *pc_session_current(void) {
  pthread_mutex_lock(&pc_sess_global);
  perfcheck_session *s = pc_the_session;
  pthread_mutex_unlock(&pc_sess_global);
  return s;
}

perfcheck_session *pc_session_current_try(int *busy) {
  *busy = 0;
  if (pthread_mutex_trylock(&pc_sess_global) != 0) {
    *busy = 1;
    return NULL;
  }
  perfcheck_session *s = pc_the_session;
  pthread_mutex_unlock(&pc_sess_global);
  return s;
}

PERFCHECK_API perfcheck_status perfcheck_session_create(const perfcheck_options *options, perfcheck_session **out) {
  pc_clear_error();
  if (!out) return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_session_create: out is NULL");
  *out = NULL;
  pthread_mutex_lock(&pc_sess_global);
  perfcheck_status st;
  if (pc_the_session) {
    st = pc_fail(PERFCHECK_ERROR_SESSION_EXISTS,
                 "perfcheck_session_create: this process already has a session (destroy it first)");
  } else {
    st = pc_session_start_locked(options, &pc_the_session);
    if (st == PERFCHECK_OK) {
      *out = pc_the_session;
      pc_clear_error(); /* device-file notes are in the report, not an error */
    }
  }
  pthread_mutex_unlock(&pc_sess_global);
  return st;
}

/* ---- regions ------------------------------------------------------------------------ */

/* Room on the open-region stack for one more, and a zeroed entry in *r
 * holding a copy of the name (the caller fills the rest and pushes it).
 * Called with the session lock held. */
static perfcheck_status pc_open_reserve(perfcheck_session *s, const char *name, const char *who,
                                        pc_open_region *r) {
  memset(r, 0, sizeof *r);
  if (s->nopen == s->capopen) {
    size_t nc = s->capopen ? s->capopen * 2 : 8;
    pc_open_region *p = realloc(s->open, nc * sizeof *p);
    if (!p) return pc_fail(PERFCHECK_ERROR_OUT_OF_MEMORY, "%s: out of memory", who);
    s->open = p;
    s->capopen = nc;
  }
  if (!(r->name = pc_strdup(name))) return pc_fail(PERFCHECK_ERROR_OUT_OF_MEMORY, "%s: out of memory", who);
  return PERFCHECK_OK;
}

PERFCHECK_API perfcheck_status perfcheck_session_begin(perfcheck_session *s, const char *region) {
  pc_clear_error();
  if (!s || !region) return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_session_begin: %s is NULL",
                                    s ? "region" : "session");
  pthread_mutex_lock(&s->lock);
  pc_check_state(s);
  perfcheck_status st = PERFCHECK_OK;
  if (s->inert) {
    st = pc_fail(PERFCHECK_ERROR_INERT, "%s", s->message);
    goto out;
  }
  pc_open_region r;
  if ((st = pc_open_reserve(s, region, "perfcheck_session_begin", &r)) != PERFCHECK_OK) goto out;
  r.launches_at_begin = pc_capture_region_launches();
  r.failed_at_begin = pc_capture_failed_launches();
  r.dropped_at_begin = pc_activity_dropped();
  r.zero_ts_at_begin = pc_activity_zero_timestamps();
  r.rp_overhead_at_begin = s->rp ? pc_rp_overhead_ns(s->rp) : 0;
  r.begin_ts = pc_timestamp();
  r.id = pc_capture_region_push();
  if (r.id == 0) {
    free(r.name);
    st = pc_fail(PERFCHECK_ERROR_OUT_OF_MEMORY, "perfcheck_session_begin: out of memory");
    goto out;
  }
  if (s->opt.emit_nvtx) {
    nvtxRangePushA(region);
    r.nvtx = 1;
    r.nvtx_thread = pthread_self();
  }
  s->open[s->nopen++] = r;
out:
  pthread_mutex_unlock(&s->lock);
  return st;
}

/* Counter results of the region being closed, summed per signature. */
typedef struct pc_acc {
  uint32_t sig;
  uint32_t n;
  int passes;
  double sum[PC_M_COUNT];
  uint32_t cnt[PC_M_COUNT];
  double *xsum;
  uint32_t *xcnt;
} pc_acc;

/* When and how long a profiled launch ran: its record has no timestamps
 * under kernel replay, so the session places it by its counted duration. */
typedef struct pc_timing {
  uint32_t sig;
  int used;
  uint64_t exit_ts;
  double duration_ns;
} pc_timing;

typedef struct pc_collect {
  perfcheck_session *s;         /* where results of other regions are kept */
  uint32_t region;
  size_t nextra;
  pc_acc *acc;
  size_t nacc, cap;
  pc_timing *tim;
  size_t ntim, captim;
  size_t unmatched;
  int oom;
} pc_collect;

static void pc_collect_free(pc_collect *c) {
  for (size_t i = 0; i < c->nacc; i++) {
    free(c->acc[i].xsum);
    free(c->acc[i].xcnt);
  }
  free(c->acc);
  free(c->tim);
}

static pc_acc *pc_acc_find(pc_collect *c, uint32_t sig, int create) {
  for (size_t i = 0; i < c->nacc; i++)
    if (c->acc[i].sig == sig) return &c->acc[i];
  if (!create) return NULL;
  if (c->nacc == c->cap) {
    size_t nc = c->cap ? c->cap * 2 : 16;
    pc_acc *p = realloc(c->acc, nc * sizeof *p);
    if (!p) return NULL;
    c->acc = p;
    c->cap = nc;
  }
  pc_acc *a = &c->acc[c->nacc];
  memset(a, 0, sizeof *a);
  a->sig = sig;
  if (c->nextra) {
    a->xsum = calloc(c->nextra, sizeof *a->xsum);
    a->xcnt = calloc(c->nextra, sizeof *a->xcnt);
    if (!a->xsum || !a->xcnt) {
      free(a->xsum);
      free(a->xcnt);
      return NULL;
    }
  }
  c->nacc++;
  return a;
}

/* Keeps a result of another region's launch until that region ends (one
 * collect returns the results of every region).  Returns 0 when kept. */
static int pc_stash_result(perfcheck_session *s, const pc_rp_result *res) {
  if (s->nstash == s->capstash) {
    size_t nc = s->capstash ? s->capstash * 2 : 8;
    pc_stashed *p = realloc(s->stash, nc * sizeof *p);
    if (!p) return -1;
    s->stash = p;
    s->capstash = nc;
  }
  pc_stashed *e = &s->stash[s->nstash];
  memset(e, 0, sizeof *e);
  e->corr = res->correlation_id;
  e->passes = res->passes;
  for (int i = 0; i < PC_M_COUNT; i++) e->values[i] = res->values ? res->values[i] : PC_NULL;
  if (res->extra && res->nextra) {
    if (!(e->extra = malloc(res->nextra * sizeof *e->extra))) return -1;
    memcpy(e->extra, res->extra, res->nextra * sizeof *e->extra);
    e->nextra = res->nextra;
  }
  s->nstash++;
  return 0;
}

static void pc_on_result(void *user, const pc_rp_result *res) {
  pc_collect *c = user;
  uint64_t exit_ts = 0;
  uint32_t sig = pc_capture_profiled_sig(res->correlation_id, c->region, &exit_ts);
  if (sig == UINT32_MAX) {
    if (c->s && pc_capture_profiled_known(res->correlation_id) && pc_stash_result(c->s, res) == 0) return;
    c->unmatched++;
    return;
  }
  const double dur = res->values ? res->values[PC_M_DURATION] : PC_NULL;
  if (exit_ts && pc_has(dur) && dur > 0 && dur < (double)exit_ts) {
    if (c->ntim == c->captim) {
      size_t nc = c->captim ? c->captim * 2 : 16;
      pc_timing *p = realloc(c->tim, nc * sizeof *p);
      if (p) {
        c->tim = p;
        c->captim = nc;
      }
    }
    if (c->ntim < c->captim) c->tim[c->ntim++] = (pc_timing){sig, 0, exit_ts, dur};
  }
  pc_acc *a = pc_acc_find(c, sig, 1);
  if (!a) {
    c->oom = 1;
    return;
  }
  a->n++;
  if (res->passes > a->passes) a->passes = res->passes;
  for (int i = 0; res->values && i < PC_M_COUNT; i++)
    if (pc_has(res->values[i])) {
      a->sum[i] += res->values[i];
      a->cnt[i]++;
    }
  for (size_t i = 0; res->extra && i < res->nextra && i < c->nextra; i++)
    if (pc_has(res->extra[i])) {
      a->xsum[i] += res->extra[i];
      a->xcnt[i]++;
    }
}

static const char *pc_np_reason(const perfcheck_session *s, pc_not_profiled np) {
  switch (np) {
    case PC_NP_GRAPH:
      return "launched by a CUDA graph: graph launches are never range-profiled (auto range with kernel replay "
             "corrupted a graph's output on the H200); use a stream launch of the kernel for counters";
    case PC_NP_FILTERED:
      return "not selected for counters: kernel_regex does not match its name";
    case PC_NP_SKIPPED:
      return "not selected for counters: within launch_skip";
    case PC_NP_LIMIT:
      return "not selected for counters: launch_count was reached";
    case PC_NP_FAILED:
      return "the launch chosen for counters failed";
    case PC_NP_CAPTURE:
      return "not profiled: a stream capture was in progress (the range profiler would break the capture)";
    case PC_NP_NVTX:
      return "not selected for counters: launched outside the NVTX ranges named by PERFCHECK_NVTX";
    default:
      break;
  }
  if (s->counters_note[0]) return s->counters_note;
  if (s->opt.mode == PERFCHECK_MODE_TIMING) return "timing mode: counters were not requested";
  return "counters were not collected for this kernel";
}

/* Attributes of a signature, asked from the driver once (cached in the
 * capture tables).  Outside callbacks; the launch's context is pushed. */
static void pc_sig_attributes(perfcheck_session *s, uint32_t sig, pc_sig_info *si, const pc_device *dev) {
  if (si->attr_state != PC_ATTR_NONE) return;
  pc_attributes a;
  char why[256] = "";
  int is_kernel = 0;
  perfcheck_status st = PERFCHECK_ERROR_NOT_FOUND;
  if (si->f) st = pc_funcinfo_attributes(si->ctx, si->f, 1, si->grid, si->block, si->dynamic_smem, dev, &a, &is_kernel,
                                         why, sizeof why);
  if (st == PERFCHECK_OK) {
    /* The occupancy call alone may have failed: the model answered then. */
    if (why[0])
      pc_report_warn(s->report, s->opt.quiet, "kernel %s: %s; blocks per SM is perfcheck's model's answer",
                     si->name ? si->name : "?", why);
    pc_capture_sig_set_attr(sig, PC_ATTR_OK, &a, NULL);
  } else if (si->rec_valid) {
    /* A kernel seen only through a graph (or whose handle went away): its
     * activity record carries registers and shared memory; occupancy from
     * the model. */
    pc_funcinfo_model_attributes(dev, si->rec_registers, si->rec_static_smem, si->rec_local, si->grid, si->block,
                                 si->dynamic_smem, &a);
    pc_report_warn(s->report, s->opt.quiet,
                   "kernel %s: launch attributes from its activity record, blocks per SM from perfcheck's occupancy "
                   "model (%s)",
                   si->name ? si->name : "?", si->f ? why : "no function handle: launched only by a CUDA graph");
    pc_capture_sig_set_attr(sig, PC_ATTR_OK, &a, NULL);
  } else {
    pc_capture_sig_set_attr(sig, PC_ATTR_UNAVAILABLE, NULL, si->f ? why : "no function handle");
  }
  pc_capture_sig_get(sig, si);
}

/* The device of a context's facts (report device when unknown). */
static void pc_sig_device(perfcheck_session *s, CUcontext ctx, pc_device *dev) {
  *dev = s->report->device;
  int ord = ctx ? pc_funcinfo_ctx_ordinal(ctx) : -1;
  if (ord < 0 || ord == s->device_ordinal) return;
  char msg[256];
  if (pc_funcinfo_device(ord, dev, msg, sizeof msg) != PERFCHECK_OK) *dev = s->report->device;
}

/* One report entry: the launches of signature `sig` whose innermost region
 * is the one being closed.  `un` (unprofiled) and `pr` (profiled) are sorted
 * by duration. */
static void pc_add_kernel(perfcheck_session *s, const pc_region *g, int program, uint32_t sig, const pc_span *un,
                          size_t nun, const pc_span *pr, size_t npr, uint64_t launches, uint64_t profiled,
                          const pc_collect *col) {
  pc_sig_info si;
  if (pc_capture_sig_get(sig, &si)) return;
  if (!si.mangled && si.f) {
    char nm[1024];
    if (pc_funcinfo_name(si.f, nm, sizeof nm) == 0) {
      pc_capture_sig_set_name(sig, nm);
      pc_capture_sig_get(sig, &si);
    }
  }
  pc_device dev;
  pc_sig_device(s, si.ctx, &dev);
  pc_sig_attributes(s, sig, &si, &dev);

  pc_kernel *k = pc_report_add_kernel(s->report);
  if (!k) {
    pc_report_warn(s->report, s->opt.quiet, "out of memory: kernel entry dropped");
    return;
  }
  k->name = pc_strdup(si.name ? si.name : "(unknown)");
  k->mangled = si.mangled ? pc_strdup(si.mangled) : NULL;
  /* The whole-program region answers step 1 for the program; its kernels
   * carry no region, so that it does not mask their own steps. */
  k->region = program ? NULL : pc_strdup(g->name);
  memcpy(k->grid, si.grid, sizeof k->grid);
  memcpy(k->block, si.block, sizeof k->block);
  k->dynamic_smem = si.dynamic_smem;
  k->launches = launches;
  /* A profiled launch runs once per pass under kernel replay, with memory
   * saved and restored around it, and its activity record has no
   * timestamps (H200): its duration is the counted gpu__time_duration.sum of
   * one pass, not a timing of the program's run.  Profiled launches are
   * therefore left out of min/median/max whenever the signature has timed
   * unprofiled launches. */
  const pc_span *d = nun ? un : pr;
  const size_t nd = nun ? nun : npr;
  if (nd) {
    k->dur_min_ns = (double)(d[0].end - d[0].start);
    k->dur_max_ns = (double)(d[nd - 1].end - d[nd - 1].start);
    k->dur_median_ns = (nd % 2) ? (double)(d[nd / 2].end - d[nd / 2].start)
                                : 0.5 * ((double)(d[nd / 2 - 1].end - d[nd / 2 - 1].start) +
                                         (double)(d[nd / 2].end - d[nd / 2].start));
  }
  if (si.attr_state == PC_ATTR_OK) {
    k->attr = si.attr;
    if (pc_has(k->attr.model_blocks_per_sm))
      pc_report_warn(s->report, s->opt.quiet,
                     "kernel %s (block %ux%ux%u, %u B dynamic shared memory): the driver allows %.0f blocks per SM, "
                     "perfcheck's occupancy model %.0f; the report uses the driver's answer",
                     k->name, si.block[0], si.block[1], si.block[2], si.dynamic_smem, k->attr.blocks_per_sm,
                     k->attr.model_blocks_per_sm);
  } else {
    k->attr.dynamic_smem = si.dynamic_smem;
    pc_report_warn(s->report, s->opt.quiet, "kernel %s: launch attributes unavailable: %s", k->name,
                   si.attr_reason ? si.attr_reason : "unknown reason");
  }
  if (si.cluster[0] * si.cluster[1] * si.cluster[2] > 1)
    pc_report_warn(s->report, s->opt.quiet,
                   "kernel %s runs in clusters of %ux%ux%u blocks: theoretical occupancy ignores cluster scheduling",
                   k->name, si.cluster[0], si.cluster[1], si.cluster[2]);

  /* Counters: the average over the profiled launches of this signature. */
  const pc_acc *a = NULL;
  for (size_t i = 0; col && i < col->nacc; i++)
    if (col->acc[i].sig == sig) a = &col->acc[i];
  const pc_rp_plan *plan = s->rp ? pc_rp_get_plan(s->rp) : NULL;
  if (a && a->n) {
    k->profiled_launches = a->n;
    k->passes = a->passes;
    for (int i = 0; i < PC_M_COUNT; i++) {
      if (a->cnt[i]) k->metric[i] = a->sum[i] / a->cnt[i];
      if (plan && plan->use_substitute[i]) k->metric_via_substitute[i] = 1;
    }
    if (!s->dram_replay_warned && k->passes > 1 &&
        (pc_has(k->metric[PC_M_DRAM_BYTES_READ]) || pc_has(k->metric[PC_M_DRAM_BYTES_WRITE]))) {
      /* Measured on the H200 against ncu (docs/measurements/2026-11-30-h200):
       * counts match exactly, DRAM bytes do not. */
      s->dram_replay_warned = 1;
      pc_report_warn(s->report, 1,
                     "DRAM bytes come from a multi-pass kernel replay: reads can be low (a later pass finds the "
                     "data in L2; CUPTI 13.0 does not flush caches between passes) and writes high (write-backs "
                     "of the replay's memory restore), so arithmetic intensity and DRAM throughput of short "
                     "kernels are approximate; instruction, request and sector counts are exact");
    }
    if (plan && plan->nextra && col->nextra == plan->nextra) {
      k->extra_names = calloc(plan->nextra, sizeof *k->extra_names);
      k->extra_values = calloc(plan->nextra, sizeof *k->extra_values);
      if (k->extra_names && k->extra_values) {
        k->nextra = plan->nextra;
        for (size_t i = 0; i < plan->nextra; i++) {
          k->extra_names[i] = pc_strdup(plan->extra[i]);
          k->extra_values[i] = a->xcnt[i] ? a->xsum[i] / a->xcnt[i] : PC_NULL;
        }
      } else {
        free(k->extra_names);
        free(k->extra_values);
        k->extra_names = NULL;
        k->extra_values = NULL;
      }
    }
  } else if (profiled) {
    k->not_measured_reason =
        pc_strdup("the range profiler returned no result for this kernel's profiled launch (see warnings)");
  } else {
    k->not_measured_reason = pc_strdup(pc_np_reason(s, si.not_profiled));
  }
  pc_checklist_kernel(k, &dev, program ? NULL : g);
}

/* Moves the spans of region `id` out of the store: the whole array when they
 * are all of it (one region: no copy), else a copy of the tail. */
static pc_span *pc_take_spans(uint32_t id, size_t *n, int *lost) {
  pc_span *mine = NULL;
  *n = 0;
  *lost = 0;
  pc_capture_region_retire_locked(id); /* no record can arrive for it after this */
  pc_span_array *ka = pc_activity_kernels_locked();
  size_t k = pc_span_partition_tag(ka->v, ka->n, id);
  if (k == 0) return NULL;
  if (k == ka->n) {
    mine = ka->v;
    ka->v = NULL;
    ka->n = ka->cap = 0;
  } else {
    mine = malloc(k * sizeof *mine);
    if (mine)
      memcpy(mine, ka->v + (ka->n - k), k * sizeof *mine);
    else
      *lost = 1;
    ka->n -= k;
  }
  *n = mine ? k : 0;
  return mine;
}

/* Hands the kept results of region `col->region`'s launches to its collect. */
static void pc_stash_replay(perfcheck_session *s, pc_collect *col) {
  size_t keep = 0;
  for (size_t i = 0; i < s->nstash; i++) {
    pc_stashed *e = &s->stash[i];
    if (pc_capture_profiled_sig(e->corr, col->region, NULL) == UINT32_MAX) {
      s->stash[keep++] = *e;
      continue;
    }
    pc_rp_result res;
    memset(&res, 0, sizeof res);
    res.correlation_id = e->corr;
    res.passes = e->passes;
    res.values = e->values;
    res.extra = e->extra;
    res.nextra = e->nextra;
    pc_on_result(col, &res);
    free(e->extra);
  }
  s->nstash = keep;
}

/* Closes the innermost region.  collect == 0 (inert session, or destroy
 * without an output): only pops it. */
static perfcheck_status pc_region_close(perfcheck_session *s, int collect) {
  pc_open_region r = s->open[--s->nopen];
  /* New launches go to the parent now; this region's records are still
   * accepted until its spans are taken (pc_take_spans retires it). */
  pc_capture_region_pop(r.id);
  if (r.nvtx && pthread_equal(r.nvtx_thread, pthread_self())) nvtxRangePop();
  /* (NVTX ranges are per thread: a region ended on another thread than it
   * began cannot pop the beginner's range.) */
  if (!collect) {
    pc_capture_purge(r.id);
    pc_capture_profiled_purge(r.id);
    pc_gpu_lock();
    size_t n;
    int lost;
    free(pc_take_spans(r.id, &n, &lost));
    pc_gpu_unlock();
    free(r.name);
    return PERFCHECK_OK;
  }

  /* 1. Wait for the region's GPU work. */
  perfcheck_status st = PERFCHECK_OK;
  char fault[400] = "";
  CUcontext small[16], *ctxs = small;
  size_t nctx = pc_capture_contexts_since(r.launches_at_begin, small, 16);
  if (nctx > 16) {
    ctxs = malloc(nctx * sizeof *ctxs);
    if (ctxs)
      nctx = pc_capture_contexts_since(r.launches_at_begin, ctxs, nctx);
    else
      ctxs = small, nctx = 16;
  }
  int first_ordinal = -1;
  for (size_t i = 0; i < nctx; i++) {
    if (pc_cu.cuCtxPushCurrent(ctxs[i]) != CUDA_SUCCESS) {
      pc_capture_context_dead(ctxs[i]);
      continue;
    }
    CUresult res = pc_ctx_synchronize(ctxs[i]);
    CUcontext popped;
    pc_cu.cuCtxPopCurrent(&popped);
    if (res == CUDA_ERROR_INVALID_CONTEXT || res == CUDA_ERROR_CONTEXT_IS_DESTROYED ||
        res == CUDA_ERROR_DEINITIALIZED) {
      pc_capture_context_dead(ctxs[i]);
    } else if (res != CUDA_SUCCESS) {
      if (st == PERFCHECK_OK) {
        char e[200];
        snprintf(fault, sizeof fault, "a kernel faulted in region \"%s\": cuCtxSynchronize: %s", r.name,
                 pc_cuda_error_text(res, e, sizeof e));
      }
      st = PERFCHECK_ERROR_KERNEL_FAULT;
    } else if (first_ordinal < 0) {
      first_ordinal = pc_funcinfo_ctx_ordinal(ctxs[i]);
    }
  }
  if (ctxs != small) free(ctxs);
  const uint64_t end_ts = r.has_end ? r.end.ts : pc_timestamp();

  /* The report's device: the one the first region launched on. */
  if (first_ordinal >= 0 && first_ordinal != s->device_ordinal) {
    char msg[256];
    pc_device d;
    if (s->device_ordinal >= 0 && !s->multi_device_warned) {
      s->multi_device_warned = 1;
      pc_report_warn(s->report, s->opt.quiet,
                     "kernels ran on more than one device; the report's device is device %d's, each kernel's "
                     "attributes are its own device's",
                     s->report->nregions ? s->device_ordinal : first_ordinal);
    }
    if (s->report->nregions == 0 && pc_funcinfo_device(first_ordinal, &d, msg, sizeof msg) == PERFCHECK_OK) {
      s->report->device = d;
      s->device_ordinal = first_ordinal;
    }
  }

  /* 2. Activity: flush(0) returns complete buffers only; after the sync
   * every record of the region is complete, so a forced flush is the last
   * resort (it may cut records of other threads' running kernels). */
  pc_activity_flush(st != PERFCHECK_OK);
  if (pc_capture_pending(r.id)) pc_activity_flush(0);
  if (pc_capture_pending(r.id)) pc_activity_flush(1);
  const size_t missing = pc_capture_purge(r.id);

  /* 3. Counters. */
  pc_collect col;
  memset(&col, 0, sizeof col);
  col.s = s;
  col.region = r.id;
  if (s->rp) {
    const pc_rp_plan *plan = pc_rp_get_plan(s->rp);
    col.nextra = plan ? plan->nextra : 0;
    uint64_t dropped = 0;
    char msg[400] = "";
    pc_stash_replay(s, &col);
    perfcheck_status cst = pc_rp_collect(s->rp, pc_on_result, &col, &dropped, msg, sizeof msg);
    if (cst != PERFCHECK_OK)
      pc_report_warn(s->report, s->opt.quiet, "counters of region \"%s\": %s", r.name, msg[0] ? msg : perfcheck_strerror(cst));
    if (dropped)
      pc_report_warn(s->report, s->opt.quiet, "counters of region \"%s\": CUPTI dropped %llu ranges", r.name,
                     (unsigned long long)dropped);
    if (col.unmatched)
      pc_report_warn(s->report, s->opt.quiet, "counters of region \"%s\": %zu results matched no launch", r.name,
                     col.unmatched);
    if (col.oom) pc_report_warn(s->report, s->opt.quiet, "out of memory: some counter results were dropped");
    int passes = pc_rp_passes(s->rp);
    if (passes > s->report->passes) s->report->passes = passes;
    if (plan)
      for (; s->rejected_warned < plan->nrejected; s->rejected_warned++)
        pc_report_warn(s->report, s->opt.quiet, "metric %s is not collected: %s", plan->rejected[s->rejected_warned],
                       plan->rejected_reason ? plan->rejected_reason[s->rejected_warned] : "rejected");
  }
  pc_check_state(s);

  /* 4. The region. */
  size_t n = 0;
  int lost = 0;
  double memcpy_ns, memset_ns;
  pc_gpu_lock();
  pc_span *mine = pc_take_spans(r.id, &n, &lost);
  pc_span_array *mc = pc_activity_memcpys_locked(), *ms = pc_activity_memsets_locked();
  memcpy_ns = pc_timeline_clipped_sum(mc->v, mc->n, r.begin_ts, end_ts);
  memset_ns = pc_timeline_clipped_sum(ms->v, ms->n, r.begin_ts, end_ts);
  /* Transfers older than the outermost open region can no longer count. */
  pc_activity_prune_transfers_locked(s->nopen ? s->open[0].begin_ts : UINT64_MAX);
  pc_gpu_unlock();

  /* Profiled launches have no timestamps: place each at its launch's EXIT,
   * with its counted duration (nothing else ran meanwhile: the launch held
   * the exclusive launch lock and kernel replay serializes). */
  if (col.ntim && n) {
    for (size_t i = 0; i < n; i++) {
      const uint32_t bits = mine[i].group & PC_SPAN_BITS;
      if (bits != (PC_SPAN_PROFILED | PC_SPAN_NOTIME)) continue;
      const uint32_t sig = PC_SPAN_SIG(mine[i].group);
      for (size_t q = 0; q < col.ntim; q++)
        if (!col.tim[q].used && col.tim[q].sig == sig) {
          col.tim[q].used = 1;
          mine[i].end = col.tim[q].exit_ts;
          mine[i].start = col.tim[q].exit_ts - (uint64_t)col.tim[q].duration_ns;
          mine[i].group &= ~(uint32_t)PC_SPAN_NOTIME;
          break;
        }
    }
  }
  /* Spans without time go to the end: the timeline reads the timed ones. */
  size_t ntimed = n;
  for (size_t i = 0; i < ntimed;) {
    if (mine[i].group & PC_SPAN_NOTIME) {
      pc_span tmp = mine[i];
      mine[i] = mine[--ntimed];
      mine[ntimed] = tmp;
    } else {
      i++;
    }
  }

  pc_region *g = pc_report_add_region(s->report);
  if (!g) {
    free(mine);
    free(r.name);
    pc_collect_free(&col);
    pc_report_warn(s->report, s->opt.quiet, "out of memory: region dropped");
    return st == PERFCHECK_OK ? pc_fail(PERFCHECK_ERROR_OUT_OF_MEMORY, "perfcheck_session_end: out of memory") : st;
  }
  g->name = r.name; /* ownership moves to the report */
  r.name = NULL;
  g->parent = s->nopen ? pc_strdup(s->open[s->nopen - 1].name) : NULL;
  g->depth = (int)s->nopen;
  const double wall = (r.begin_ts && end_ts >= r.begin_ts) ? (double)(end_ts - r.begin_ts) : PC_NULL;
  g->wall_ns = wall;
  pc_timeline t;
  pc_timeline_compute(mine, ntimed, &t);
  g->kernel_ns = t.busy_ns;
  g->kernel_sum_ns = t.sum_ns;
  g->kernel_span_ns = t.span_ns;
  g->gpu_idle_ns = t.idle_ns;
  g->median_kernel_ns = t.median_ns;
  {
    const double cut = pc_threshold_value("launch_overhead_max_median_kernel_ns");
    double short_ns = 0.0;
    for (size_t i = 0; i < ntimed; i++) {
      const double d = (double)(mine[i].end - mine[i].start);
      if (d < cut) short_ns += d;
    }
    g->short_kernel_ns = short_ns;
  }
  g->memcpy_ns = memcpy_ns;
  g->memset_ns = memset_ns;
  const uint64_t launched = (r.has_end ? r.end.launches : pc_capture_region_launches()) - r.launches_at_begin;
  const uint64_t failed = (r.has_end ? r.end.failed : pc_capture_failed_launches()) - r.failed_at_begin;
  g->launches = launched >= failed ? launched - failed : 0;
  g->dropped_records = (r.has_end ? r.end.dropped : pc_activity_dropped()) - r.dropped_at_begin;
  /* Host time spent in counter replay is not the program's: it is taken out
   * of the wall clock for the kernel share (step 1).  That time (a profiled
   * launch's ENTER to EXIT) also holds the profiled kernels' own run, which
   * kernel_ns counts: it goes back in, measured by gpu__time_duration. */
  g->profiling_ns =
      s->rp ? (double)((r.has_end ? r.end.rp_overhead : pc_rp_overhead_ns(s->rp)) - r.rp_overhead_at_begin) : 0.0;
  double profiled_kernel_ns = 0.0;
  for (size_t i = 0; i < ntimed; i++)
    if (mine[i].group & PC_SPAN_PROFILED) profiled_kernel_ns += (double)(mine[i].end - mine[i].start);
  const double denom = pc_has(wall) ? wall - g->profiling_ns + profiled_kernel_ns : PC_NULL;
  g->kernel_share = (pc_has(denom) && denom > 0) ? g->kernel_ns / denom : PC_NULL;
  pc_checklist_region(g);

  if (g->dropped_records)
    pc_report_warn(s->report, s->opt.quiet,
                   "region \"%s\": CUPTI dropped %llu activity records: its timing is incomplete", g->name,
                   (unsigned long long)g->dropped_records);
  if (missing)
    pc_report_warn(s->report, s->opt.quiet, "region \"%s\": %zu launches got no kernel activity record", g->name,
                   missing);
  if (failed)
    pc_report_warn(s->report, s->opt.quiet, "region \"%s\": %llu launches failed and are not counted", g->name,
                   (unsigned long long)failed);
  {
    uint64_t zero = (r.has_end ? r.end.zero_ts : pc_activity_zero_timestamps()) - r.zero_ts_at_begin;
    if (zero)
      pc_report_warn(s->report, s->opt.quiet,
                     "region \"%s\": %llu kernel records had no timestamps: counted as launches, not in the timing",
                     g->name, (unsigned long long)zero);
  }
  if (lost) pc_report_warn(s->report, s->opt.quiet, "region \"%s\": out of memory, kernel timings lost", g->name);

  /* 5. One entry per signature launched directly in this region.  Sorting by
   * group puts each signature's spans together, in runs by their bits
   * (timed unprofiled, timed profiled, inherited, untimed ...), each run by
   * duration. */
  pc_span_sort(mine, n, PC_SPAN_BY_GROUP_DURATION);
  for (size_t i = 0; i < n;) {
    const uint32_t sig = PC_SPAN_SIG(mine[i].group);
    size_t off[PC_SPAN_BITS + 1] = {0}, cnt[PC_SPAN_BITS + 1] = {0};
    size_t j = i;
    for (; j < n && PC_SPAN_SIG(mine[j].group) == sig; j++) {
      const uint32_t b = mine[j].group & PC_SPAN_BITS;
      if (cnt[b]++ == 0) off[b] = j;
    }
    const uint64_t direct = cnt[0] + cnt[PC_SPAN_PROFILED] + cnt[PC_SPAN_NOTIME] +
                            cnt[PC_SPAN_NOTIME | PC_SPAN_PROFILED];
    const uint64_t profiled = cnt[PC_SPAN_PROFILED] + cnt[PC_SPAN_NOTIME | PC_SPAN_PROFILED];
    if (direct)
      pc_add_kernel(s, g, r.program, sig, mine + off[0], cnt[0], mine + off[PC_SPAN_PROFILED],
                    cnt[PC_SPAN_PROFILED], direct, profiled, &col);
    i = j;
  }
  /* Signatures profiled in this region whose kernels left no span. */
  for (size_t i = 0; i < col.nacc; i++) {
    int seen = 0;
    for (size_t q = 0; q < n && !seen; q++) seen = PC_SPAN_SIG(mine[q].group) == col.acc[i].sig;
    if (!seen)
      pc_report_warn(s->report, s->opt.quiet,
                     "region \"%s\": counters of a launch whose kernel record never arrived were dropped", g->name);
  }
  pc_collect_free(&col);
  pc_capture_profiled_purge(r.id);

  /* 6. The parent region's busy time covers its children's kernels. */
  if (s->nopen && n) {
    const uint32_t parent = s->open[s->nopen - 1].id;
    for (size_t i = 0; i < n; i++) {
      mine[i].tag = parent;
      mine[i].group |= PC_SPAN_INHERITED;
    }
    pc_gpu_lock();
    pc_span_array *ka = pc_activity_kernels_locked();
    if (ka->n == 0) { /* give the array back rather than copy it */
      free(ka->v);
      ka->v = mine;
      ka->n = ka->cap = n;
      mine = NULL;
    } else if (pc_span_array_append(ka, mine, n)) {
      lost = 1;
    }
    pc_gpu_unlock();
    if (lost) pc_report_warn(s->report, s->opt.quiet, "out of memory: region \"%s\"'s kernels are missing from its parent", g->name);
  }
  free(mine);

  if (st != PERFCHECK_OK) {
    pc_go_inert(s, fault);
    return pc_fail(st, "%s", fault);
  }
  return PERFCHECK_OK;
}

PERFCHECK_API perfcheck_status perfcheck_session_end(perfcheck_session *s) {
  pc_clear_error();
  if (!s) return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_session_end: session is NULL");
  pthread_mutex_lock(&s->lock);
  pc_check_state(s);
  perfcheck_status st;
  if (s->inert)
    st = pc_fail(PERFCHECK_ERROR_INERT, "%s", s->message);
  else if (s->nopen == 0)
    st = pc_fail(PERFCHECK_ERROR_NO_REGION, "perfcheck_session_end: no region is open");
  else
    st = pc_region_close(s, 1);
  pthread_mutex_unlock(&s->lock);
  return st;
}

/* ---- regions of the injection library (pc_session.h) ------------------------------- */

void pc_session_marks(perfcheck_session *s, pc_region_marks *m) {
  memset(m, 0, sizeof *m);
  m->launches = pc_capture_region_launches();
  m->failed = pc_capture_failed_launches();
  m->dropped = pc_activity_dropped();
  m->zero_ts = pc_activity_zero_timestamps();
  /* s->rp is set before capture starts and cleared only after it stopped. */
  m->rp_overhead = (s && s->rp) ? pc_rp_overhead_ns(s->rp) : 0;
  m->ts = pc_timestamp();
}

perfcheck_status pc_session_begin_program(perfcheck_session *s, const char *name) {
  if (!s || !name) return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "pc_session_begin_program: NULL argument");
  const int emit = s->opt.emit_nvtx;
  s->opt.emit_nvtx = 0; /* under injection our own range would come back as an NVTX callback */
  perfcheck_status st = perfcheck_session_begin(s, name);
  s->opt.emit_nvtx = emit;
  if (st != PERFCHECK_OK) return st;
  pthread_mutex_lock(&s->lock);
  if (s->nopen) s->open[s->nopen - 1].program = 1;
  pthread_mutex_unlock(&s->lock);
  return PERFCHECK_OK;
}

perfcheck_status pc_session_begin_recorded(perfcheck_session *s, const char *name, uint32_t capture_id,
                                           const pc_region_marks *begin) {
  if (!s || !name || !begin || !capture_id)
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "pc_session_begin_recorded: bad argument");
  pthread_mutex_lock(&s->lock);
  perfcheck_status st = PERFCHECK_OK;
  pc_open_region r;
  if ((st = pc_open_reserve(s, name, "pc_session_begin_recorded", &r)) != PERFCHECK_OK) goto out;
  r.id = capture_id;
  r.begin_ts = begin->ts;
  r.launches_at_begin = begin->launches;
  r.failed_at_begin = begin->failed;
  r.dropped_at_begin = begin->dropped;
  r.zero_ts_at_begin = begin->zero_ts;
  r.rp_overhead_at_begin = begin->rp_overhead;
  s->open[s->nopen++] = r;
out:
  pthread_mutex_unlock(&s->lock);
  return st;
}

perfcheck_status pc_session_end_recorded(perfcheck_session *s, const pc_region_marks *end) {
  if (!s) return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "pc_session_end_recorded: session is NULL");
  pthread_mutex_lock(&s->lock);
  pc_check_state(s);
  perfcheck_status st;
  if (s->nopen == 0) {
    st = pc_fail(PERFCHECK_ERROR_NO_REGION, "pc_session_end_recorded: no region is open");
  } else {
    if (end) {
      s->open[s->nopen - 1].has_end = 1;
      s->open[s->nopen - 1].end = *end;
    }
    /* After a kernel fault the session is inert but what it has is still
     * collected; after CUPTI's own fatal error no CUPTI call is made. */
    st = pc_region_close(s, !pc_capture_fatal(NULL, 0));
  }
  pthread_mutex_unlock(&s->lock);
  return st;
}

void pc_session_note(perfcheck_session *s, const char *text) {
  if (!s || !text) return;
  pthread_mutex_lock(&s->lock);
  pc_report_warn(s->report, s->opt.quiet, "%s", text);
  pthread_mutex_unlock(&s->lock);
}

PERFCHECK_API perfcheck_status perfcheck_session_report(perfcheck_session *s, const perfcheck_report **out) {
  pc_clear_error();
  if (!s || !out) return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_session_report: %s is NULL",
                                 s ? "out" : "session");
  pthread_mutex_lock(&s->lock);
  *out = s->report;
  pthread_mutex_unlock(&s->lock);
  return PERFCHECK_OK;
}

PERFCHECK_API const char *perfcheck_session_message(const perfcheck_session *s) { return s ? s->message : ""; }

/* ---- destroy -------------------------------------------------------------------------- */

static void pc_write_output(perfcheck_session *s) {
  (void)pc_report_deliver(s->report, s->opt.output_format, s->opt.output, s->opt.quiet);
}

PERFCHECK_API void perfcheck_session_destroy(perfcheck_session *s) {
  if (!s) return;
  pthread_mutex_lock(&pc_sess_global);
  if (s != pc_the_session) { /* not ours (or destroyed twice): leave it */
    pthread_mutex_unlock(&pc_sess_global);
    return;
  }
  pthread_mutex_lock(&s->lock);
  pc_check_state(s);
  /* Open regions: closed (and reported) only when a report will be written. */
  const int collect = s->output != NULL;
  while (s->nopen) pc_region_close(s, collect && !s->inert);
  if (s->output) pc_write_output(s);
  pc_gpu_teardown(s->rp);
  s->rp = NULL;
  pthread_mutex_unlock(&s->lock);
  pc_the_session = NULL;
  pthread_mutex_unlock(&pc_sess_global);
  pc_session_expect_forget(s); /* a later session at this address starts clean */
  pc_session_free(s);
}
