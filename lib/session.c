/*
 * session.c: the public session API (perfcheck.h, "Sessions"): lifecycle,
 * options and locking, and nothing else.  It joins lib/gpu and lib/core
 * through one boundary: when a region ends, lib/gpu hands over an owned
 * snapshot of what the region collected (pc_gpu_region_harvest), and lib/core
 * turns it into report entries and their verdicts (pc_region_build).  The
 * only lib/gpu calls here are those of gpu/pc_gpu.h: start and stop, region
 * open, innermost and next-to-end, harvest and drop, the state poll and the
 * tool facts (docs/architecture.md lists them).
 *
 * One session per process: CUPTI allows one subscriber.  Start-up lives in
 * pc_session_startup (also the injection library's entry): options first
 * (nothing touched on a bad argument), then the GPU side (pc_gpu_start).
 * Any failure after a partial start undoes what was done, so the host
 * program is unchanged.
 *
 * Regions are process-wide and nest: the innermost open region tags every
 * launch from any thread.  They live on lib/gpu's one region stack
 * (pc_regions.h), named by id: the session keeps no stack of its own.
 * Ending one: harvest (synchronize, flush, collect, copy), write the
 * snapshot to PERFCHECK_SNAPSHOT_DIR when that is set, build.  A kernel fault
 * seen at the end makes the session inert, keeping what was collected.
 *
 * Locks, in the order they are taken:
 *   pc_sess_global   the process's session pointer (create, destroy, the
 *                    injection library's start-up);
 *   s->lock          everything in the session, around every API call.  It
 *                    is never taken inside a CUPTI callback, so it may be
 *                    held across CUPTI and driver calls (lib/gpu's own locks
 *                    are taken after it and never held across them).
 * _locked in a name means: the caller holds the lock that guards the
 * function's state (here pc_sess_global).
 */
#define _GNU_SOURCE /* secure_getenv */
#include <errno.h>
#include <stdlib.h>
/* nvtx3's header-only loader reads NVTX_INJECTION64_PATH with getenv: in a
 * privileged process (AT_SECURE) no variable may name a library to load. */
#define getenv secure_getenv
#include <nvtx3/nvToolsExt.h>
#undef getenv
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/pc_config.h"
#include "model/pc_core.h"
#include "base/pc_output.h"
#include "base/pc_regex.h"
#include "model/pc_snapshot.h"
#include "write/pc_write.h"
#include "report/pc_snapshot_json.h"
#include "report/pc_region_build.h"
#include "base/pc_util.h"
#include "gpu/pc_gpu.h"
#include "pc_session.h"

/* How many snapshots of a region name were written (PERFCHECK_SNAPSHOT_DIR). */
typedef struct pc_snap_count {
  char *name;
  unsigned n;
} pc_snap_count;

struct perfcheck_session {
  pthread_mutex_t lock;
  perfcheck_options opt;        /* strings point to the copies below */
  char *metrics, *kernel_regex, *output;
  pc_regex re;
  int has_re;
  pc_report *report;
  pc_build_state build;         /* what the builder carries from region to region */
  int inert;
  char message[PC_MSG_MAX];
  perfcheck_expectations *expect; /* perfcheck_session_expect's set; NULL before the first */
  char *snapshot_dir;           /* PERFCHECK_SNAPSHOT_DIR, NULL unset */
  pc_snap_count *snaps;
  size_t nsnaps;
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
      out->output_format != PERFCHECK_FORMAT_CSV && out->output_format != PERFCHECK_FORMAT_HTML)
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_session_create: unknown output_format %d",
                   (int)out->output_format);
  if (out->per_signature == 0) out->per_signature = 1;
  return PERFCHECK_OK;
}

/* ---- notes and state ------------------------------------------------------------------ */

static void pc_note(perfcheck_session *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* A one-line note: in the report's warnings, on stderr only with
 * PERFCHECK_VERBOSE=1 (and not quiet: pc_report_warn), and as
 * the session's message. */
static void pc_note(perfcheck_session *s, const char *fmt, ...) {
  char buf[PC_MSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  pc_msg_vformat(buf, sizeof buf, fmt, ap);
  va_end(ap);
  pc_report_warn(s->report, s->opt.quiet, "%s", buf);
  snprintf(s->message, sizeof s->message, "%s", buf);
}

/* lib/gpu's lines for the program's stderr (the progress line, asked for
 * with progress or PERFCHECK_PROGRESS): the one place lib/gpu's text reaches
 * stderr, through the library's one line writer (pc_say, base/pc_err.h).
 * Called inside CUPTI callbacks: no session lock. */
static void pc_session_say(const char *line) { pc_say("%s", line); }

/* After an unrecoverable failure the session stops collecting and says so
 * once; later begin/end answer PERFCHECK_ERROR_INERT. */
static void pc_go_inert(perfcheck_session *s, const char *why) {
  if (s->inert) return;
  s->inert = 1;
  pc_gpu_quiesce();
  pc_note(s, "perfcheck stopped collecting: %s", why);
}

/* What the callbacks noticed: CUPTI's fatal error, counters refused. */
static void pc_check_state(perfcheck_session *s) {
  pc_gpu_events ev;
  pc_gpu_poll(&ev);
  if (!s->inert && ev.fatal) pc_go_inert(s, ev.fatal_why.msg);
  if (ev.refused) pc_note(s, "hardware counters were refused; continuing with timing only: %s", ev.refused_why.msg);
}

/* ---- start-up and teardown ------------------------------------------------------------ */

static void pc_session_free(perfcheck_session *s) {
  if (!s) return;
  for (size_t i = 0; i < s->nsnaps; i++) free(s->snaps[i].name);
  free(s->snaps);
  if (s->has_re) pc_regex_free(&s->re);
  free(s->metrics);
  free(s->kernel_regex);
  free(s->output);
  free(s->snapshot_dir);
  pc_report_free(s->report);
  perfcheck_expectations_destroy(s->expect);
  pthread_mutex_destroy(&s->lock);
  free(s);
}

void pc_session_keep_cupti_at_exit(void) { pc_gpu_keep_cupti(); }
void pc_session_mark_exit(void) { pc_gpu_mark_exit(); }

/* The report's own facts once the GPU side is up. */
static void pc_session_report_facts(perfcheck_session *s, const pc_gpu_started *g) {
  pc_report *r = s->report;
  if (g->device0_ok) {
    r->device = g->device0;
    s->build.device_ordinal = 0;
  } else {
    pc_report_warn(r, s->opt.quiet, "device facts unavailable: %s", g->device0_why.msg);
  }
  if (g->metric_set[0]) snprintf(r->metric_set, sizeof r->metric_set, "%s", g->metric_set);
  if (g->counters_why.msg[0]) pc_note(s, "hardware counters unavailable, timing only: %s", g->counters_why.msg);
  if (g->replay_why.msg[0]) pc_report_warn(r, s->opt.quiet, "%s", g->replay_why.msg);
  snprintf(r->source, sizeof r->source, "%s", "in-process");
  r->step1_assessed = 1;
  pc_gpu_tool(r->cupti_path, sizeof r->cupti_path, &r->cupti_version, &r->cupti_preloaded);
  r->cupti_known = r->cupti_version != 0;
  snprintf(r->demangler, sizeof r->demangler, "%s", pc_demangler());
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
  pc_build_state_init(&s->build, o.quiet);
  const char *dir = secure_getenv("PERFCHECK_SNAPSHOT_DIR"); /* a privileged process reads no variable */
  if ((o.metrics && !(s->metrics = pc_strdup(o.metrics))) ||
      (o.kernel_regex && !(s->kernel_regex = pc_strdup(o.kernel_regex))) ||
      (o.output && !(s->output = pc_strdup(o.output))) || (dir && *dir && !(s->snapshot_dir = pc_strdup(dir))) ||
      !(s->report = pc_report_new())) {
    st = pc_fail(PERFCHECK_ERROR_OUT_OF_MEMORY, "perfcheck_session_create: out of memory");
    goto fail;
  }
  {
    /* Which rank of a parallel job this process is (torchrun, mpirun,
     * srun): every report says so, and perfcheck merge names missing ranks.
     * secure_getenv: a privileged process reads no variable. */
    pc_err bad;
    pc_report *r = s->report;
    if (pc_job_place(secure_getenv, &r->rank, &r->world_size, &r->local_rank, &bad) != PERFCHECK_OK)
      pc_report_warn(r, o.quiet, "rank variables ignored: %s", bad.msg);
    s->build.rank = r->rank;
  }
  s->opt.metrics = s->metrics;
  s->opt.kernel_regex = s->kernel_regex;
  s->opt.output = s->output;
  if (s->kernel_regex) {
    /* The one guard (pc_regex.c) that bounds compile and match cost, for a
     * program's own pattern as for PERFCHECK_KERNELS's. */
    pc_err e;
    size_t at = 0;
    if (pc_regex_compile(&s->re, s->kernel_regex, &at, &e) != PERFCHECK_OK) {
      st = pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_session_create: kernel_regex \"%s\" (at character %zu): %s",
                   s->kernel_regex, at + 1, e.msg);
      goto fail;
    }
    s->has_re = 1;
  }
  const pc_gpu_config cfg = {o.mode,         s->metrics,      s->has_re ? &s->re : NULL, o.launch_skip,
                             o.launch_count, o.per_signature, o.progress,               pc_session_say};
  pc_gpu_started g;
  pc_err e;
  if ((st = pc_gpu_start(&cfg, &g, &e)) != PERFCHECK_OK) {
    pc_fail(st, "%s", e.msg);
    goto fail;
  }
  pc_session_report_facts(s, &g);
  *out = s;
  return PERFCHECK_OK;
fail: /* the one cleanup path */
  pc_session_free(s);
  return st;
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

/* Opens a region on the one region stack (lib/gpu's; pc_regions.h) and,
 * when asked, an NVTX range of the same name on this thread.  Called with the
 * session lock held. */
static perfcheck_status pc_region_open(perfcheck_session *s, const char *name, unsigned flags, const char *who) {
  if (s->inert) return pc_fail(PERFCHECK_ERROR_INERT, "%s", s->message);
  const int nvtx = s->opt.emit_nvtx && !(flags & PC_RG_PROGRAM); /* under injection our own range would come back */
  if (!pc_gpu_region_open(name, flags | (nvtx ? PC_RG_NVTX : 0u)))
    return pc_fail(PERFCHECK_ERROR_OUT_OF_MEMORY, "%s: out of memory", who);
  if (nvtx) nvtxRangePushA(name);
  return PERFCHECK_OK;
}

PERFCHECK_API perfcheck_status perfcheck_session_begin(perfcheck_session *s, const char *region) {
  pc_clear_error();
  if (!s || !region) return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_session_begin: %s is NULL",
                                    s ? "region" : "session");
  pthread_mutex_lock(&s->lock);
  pc_check_state(s);
  const perfcheck_status st = pc_region_open(s, region, 0, "perfcheck_session_begin");
  pthread_mutex_unlock(&s->lock);
  return st;
}

static int pc_snapshot_out(FILE *f, void *ctx) {
  return pc_snapshot_write_json(ctx, f, NULL) == PERFCHECK_OK ? 0 : -1;
}

/* PERFCHECK_SNAPSHOT_DIR: the region's snapshot as DIR/NAME.json (NAME.N.json
 * for the N-th of that name), for CPU tests on what ran here. */
static void pc_snapshot_record(perfcheck_session *s, const pc_snapshot *snap) {
  if (!s->snapshot_dir) return;
  unsigned seq = 1;
  size_t i = 0;
  for (; i < s->nsnaps && strcmp(s->snaps[i].name, snap->name); i++) continue;
  if (i < s->nsnaps) {
    seq = ++s->snaps[i].n;
  } else {
    pc_snap_count *p = realloc(s->snaps, (s->nsnaps + 1) * sizeof *p);
    char *nm = p ? pc_strdup(snap->name) : NULL;
    if (p) s->snaps = p;
    if (nm) s->snaps[s->nsnaps++] = (pc_snap_count){nm, 1};
  }
  /* Through the one output function (pc_output.h): a regular file replaced
   * whole, never a device, a FIFO or a symlink's target. */
  char path[4096];
  pc_err why = {PERFCHECK_ERROR_INVALID_ARGUMENT, "a name too long for the folder"};
  if (pc_snapshot_file_name(s->snapshot_dir, snap->name, seq, path, sizeof path) != 0 ||
      pc_output_write_file(path, pc_snapshot_out, (void *)(uintptr_t)snap, &why) != PERFCHECK_OK)
    pc_report_warn(s->report, s->opt.quiet, "PERFCHECK_SNAPSHOT_DIR: the snapshot of region \"%s\" was not written to %s: %s",
                   snap->name, s->snapshot_dir, why.msg);
}

/* Ends region id (nvtx_here: pop the NVTX range this thread pushed for it).
 * collect == 0 (inert session, or destroy without an output): lib/gpu forgets
 * it.  Called with the session lock held. */
static perfcheck_status pc_region_close(perfcheck_session *s, uint32_t id, int nvtx_here, int collect) {
  /* (NVTX ranges are per thread: a region ended on another thread than it
   * began cannot pop the beginner's range.) */
  if (nvtx_here) nvtxRangePop();
  if (!collect) {
    pc_gpu_region_drop(id);
    return PERFCHECK_OK;
  }
  pc_snapshot *snap = NULL;
  pc_err e;
  perfcheck_status st = pc_gpu_region_harvest(id, &snap, &e);
  pc_check_state(s);
  if (snap) {
    pc_snapshot_record(s, snap);
    const perfcheck_status bst = pc_region_build(snap, s->report, &s->build);
    pc_snapshot_free(snap);
    if (bst != PERFCHECK_OK && st == PERFCHECK_OK)
      return pc_fail(bst, "perfcheck_session_end: out of memory");
  } else {
    pc_report_warn(s->report, s->opt.quiet, "%s: region dropped", e.msg);
  }
  if (st == PERFCHECK_ERROR_KERNEL_FAULT) pc_go_inert(s, e.msg);
  return st == PERFCHECK_OK ? PERFCHECK_OK : pc_fail(st, "%s", e.msg);
}

/* Ends every open region, children before parents; collect_inert: collect
 * in an inert session too (what was collected before a fault is kept).
 * Called with the session lock held. */
static void pc_end_all(perfcheck_session *s, int collect, int collect_inert) {
  int nvtx_here = 0;
  for (uint32_t id; (id = pc_gpu_region_next_to_end(&nvtx_here)) != 0;)
    pc_region_close(s, id, nvtx_here, collect && (collect_inert || !s->inert));
}

PERFCHECK_API perfcheck_status perfcheck_session_end(perfcheck_session *s) {
  pc_clear_error();
  if (!s) return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_session_end: session is NULL");
  pthread_mutex_lock(&s->lock);
  pc_check_state(s);
  perfcheck_status st;
  if (s->inert)
    st = pc_fail(PERFCHECK_ERROR_INERT, "%s", s->message);
  else {
    int nvtx_here = 0;
    const uint32_t id = pc_gpu_region_innermost(&nvtx_here);
    st = id ? pc_region_close(s, id, nvtx_here, 1)
            : pc_fail(PERFCHECK_ERROR_NO_REGION, "perfcheck_session_end: no region is open");
  }
  pthread_mutex_unlock(&s->lock);
  return st;
}

/* ---- regions of the injection library (pc_session.h) ------------------------------- */

perfcheck_status pc_session_begin_program(perfcheck_session *s, const char *name) {
  if (!s || !name) return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "pc_session_begin_program: NULL argument");
  pthread_mutex_lock(&s->lock);
  const perfcheck_status st = pc_region_open(s, name, PC_RG_PROGRAM, "pc_session_begin_program");
  pthread_mutex_unlock(&s->lock);
  return st;
}

void pc_session_end_all(perfcheck_session *s) {
  if (!s) return;
  pthread_mutex_lock(&s->lock);
  pc_check_state(s);
  /* After a kernel fault the session is inert but what it has is still
   * collected; after CUPTI's own fatal error no CUPTI call is made. */
  pc_end_all(s, !pc_gpu_fatal(), 1);
  pthread_mutex_unlock(&s->lock);
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

/* A copy made under the session lock into this thread's buffer: another
 * thread's note cannot change the text while the caller reads it. */
PERFCHECK_API const char *perfcheck_session_message(const perfcheck_session *s) {
  static _Thread_local char copy[sizeof ((perfcheck_session *)0)->message];
  if (!s) return "";
  perfcheck_session *m = (perfcheck_session *)s; /* the lock is the only mutable part */
  pthread_mutex_lock(&m->lock);
  memcpy(copy, s->message, sizeof copy);
  pthread_mutex_unlock(&m->lock);
  return copy;
}

/* ---- expectations: a field of the session, under its lock ------------------------------ */

PERFCHECK_API perfcheck_status perfcheck_session_expect(perfcheck_session *s, const char *spec) {
  if (!s || !spec)
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_session_expect: %s is NULL", s ? "spec" : "session");
  pthread_mutex_lock(&s->lock);
  perfcheck_status st = s->expect ? PERFCHECK_OK : perfcheck_expectations_create(&s->expect);
  if (st == PERFCHECK_OK) st = perfcheck_expectations_add(s->expect, spec);
  pthread_mutex_unlock(&s->lock);
  return st;
}

PERFCHECK_API perfcheck_status perfcheck_session_check(perfcheck_session *s, size_t *failures) {
  if (failures) *failures = 1;
  if (!s) return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_session_check: session is NULL");
  pc_clear_error();
  pthread_mutex_lock(&s->lock);
  /* No expectation recorded: an empty set, so that the count is 0 and the
   * results are empty rather than stale. */
  perfcheck_status st = s->expect ? PERFCHECK_OK : perfcheck_expectations_create(&s->expect);
  if (st == PERFCHECK_OK) st = perfcheck_expectations_check(s->expect, s->report, failures);
  pthread_mutex_unlock(&s->lock);
  return st;
}

PERFCHECK_API const perfcheck_expectations *perfcheck_session_expectations(const perfcheck_session *s) {
  if (!s) return NULL;
  perfcheck_session *m = (perfcheck_session *)s; /* the lock is the only mutable part */
  pthread_mutex_lock(&m->lock);
  const perfcheck_expectations *set = m->expect;
  pthread_mutex_unlock(&m->lock);
  return set;
}

/* ---- destroy -------------------------------------------------------------------------- */

/* pc_report_deliver's answer: 0 written where asked, 1 on stderr instead,
 * -1 not written. */
static int pc_write_output(perfcheck_session *s) {
  return pc_report_deliver(s->report, s->opt.output_format, s->opt.output, s->opt.quiet);
}

PERFCHECK_API void perfcheck_session_destroy(perfcheck_session *s) { pc_session_destroy_summary(s, NULL); }

void pc_session_destroy_summary(perfcheck_session *s, pc_session_summary *sum) {
  if (sum) *sum = (pc_session_summary){0, 0, -2};
  if (!s) return;
  pthread_mutex_lock(&pc_sess_global);
  if (s != pc_the_session) { /* not ours (or destroyed twice): leave it */
    pthread_mutex_unlock(&pc_sess_global);
    return;
  }
  pthread_mutex_lock(&s->lock);
  pc_check_state(s);
  /* Open regions: closed (and reported) only when a report will be written. */
  pc_end_all(s, s->output != NULL, 0);
  if (sum) sum->kernels = s->report->nkernels, sum->warnings = s->report->nwarnings;
  if (s->output) {
    const int delivered = pc_write_output(s);
    if (sum) sum->delivered = delivered;
  }
  pc_gpu_stop();
  pthread_mutex_unlock(&s->lock);
  pc_the_session = NULL;
  pthread_mutex_unlock(&pc_sess_global);
  pc_session_free(s);
}
