/*
 * pc_collector.c: the collector (pc_collector.h): what a session measures,
 * its one lock, and a region's end as one locked section.
 *
 * The tables are pure C in lib/core, tested on a CPU: the launch log and its
 * hash map (pc_launchlog.c), the names, signatures and contexts
 * (pc_sigtab.c), the selection policy (pc_select.c), the region stack
 * (pc_regions.c).  The collector owns one of each; the callbacks
 * (pc_capture.c, pc_activity.c) fill them and pc_harvest.c empties them a
 * region at a time through pc_collector_take_region.
 *
 * Memory for one region of 1,000,000 launches: 32 MB of kernel records, a
 * launch log of the launches not yet decoded (16 B each), a handful of 4 MiB
 * activity buffers.
 */
#define _GNU_SOURCE /* pthread_rwlockattr_setkind_np */
#include "pc_collector.h"

#include "base/pc_buf.h"
#include "base/pc_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

pc_gpu_proc pc_gpu_g;

/* A kernel record in the store: 32 bytes. */
typedef struct pc_kspan {
  uint64_t start, end;          /* 0 and 0 with PC_SNAP_NOTIME */
  uint32_t group, region;
  uint32_t corr;                /* correlation id */
  uint32_t stream;              /* CUPTI's stream id */
} pc_kspan;

/* A profiled launch, from its ENTER until its region (or, once handed up,
 * the outermost region it counts for) ends. */
typedef struct pc_prof {
  uint32_t corr, sig, region;
  uint32_t inherited;           /* handed up by a nested region: its interval only */
  uint32_t cut_only;            /* not a launch: perfcheck's host time inside the program's
                                   call (pc_collector_host_cut); corr 0, sig unused */
  uint64_t enter_ts, exit_ts;   /* cuptiGetTimestamp around the counter layer's work */
  int has_result;
  pc_rp_result_store res;       /* the counter result, once the EXIT evaluated it */
} pc_prof;

/* A stream being captured into a graph: launches into it do not run. */
typedef struct pc_capstream {
  CUstream stream;
  pthread_t thread;
  int per_thread;
} pc_capstream;

typedef struct pc_span_array {
  pc_span *v;
  size_t n, cap;
} pc_span_array;

/* An activity buffer CUPTI handed back, waiting to be decoded. */
typedef struct pc_qbuf {
  uint8_t *buf;
  size_t valid;
} pc_qbuf;

struct pc_collector {
  pthread_mutex_t mu;           /* the one lock: every field below but the atomics and `gate` */
  pthread_rwlock_t gate;        /* the launch gate (pc_collector.h) */

  atomic_int active;            /* callbacks record anything at all */
  atomic_int counters;          /* launches are profiled */
  atomic_int refusal;           /* counters were refused in a callback: note it once */
  atomic_int fatal;             /* CUPTI reported a fatal error */
  atomic_uint cur_region;       /* innermost open region, 0: none */
  atomic_int capturing;         /* stream captures in progress in the process */
  /* Graph launches' one-pass groups (sel.graph_groups): 0 not asked yet
   * (they are split at the first graph launch that could be profiled, under
   * the exclusive gate), 1 known, -1 not to be had (graph_note says why). */
  atomic_int graph_groups_state;
  atomic_ullong dropped;        /* activity records lost (CUPTI's count and ours) */
  atomic_ullong zero_ts;        /* unprofiled kernel records without timestamps */

  pc_sigtab tab;                /* names, signatures, contexts */
  pc_ltab launches;             /* the launch log */
  pc_prof *prof;
  size_t nprof, capprof;
  pc_regions regions;           /* the one region stack */
  pc_capstream *caps;
  size_t ncaps, capcaps;
  uint64_t launch_seq;          /* launches made inside regions */
  uint64_t failed;              /* of those, launches that returned an error */
  pc_select sel;                /* which launches are profiled */
  pc_rp *rp;                    /* the counter layer; NULL: timing only */
  int counters_asked;           /* counters were asked for (not timing mode) */
  pc_err note;                  /* why counters are off although asked for ("" none) */
  pc_err fatal_msg;             /* CUPTI's fatal error */
  pc_err graph_note;            /* why graph launches get no counters ("" none) */
  int graph_note_given;         /* it went into a snapshot's notes */
  uint64_t rp_dropped;          /* ranges the counter layer lost */
  uint64_t tool_kernels;        /* kernel records a tool launched inside a graph launch's callback, dropped */

  /* The activity store. */
  pc_kspan *kernels;
  size_t nkernels, capkernels;
  pc_span_array memcpys, memsets;
  pc_qbuf *queue;
  size_t nqueue, capqueue;
  uint8_t *pool[PC_ACT_POOL_MAX];
  size_t npool;
  size_t nbuffers;              /* handed out and not freed */

  /* lib/gpu's own set-up times (written by pc_gpu_start, said at teardown). */
  uint64_t setup_ns[PC_SU_COUNT];
  int progress;                 /* 0 off, 1 the phase lines, 2 also a line per profiled launch */
  void (*say)(const char *line);
};

static void pc_col_lock(pc_collector *c) { pthread_mutex_lock(&c->mu); }
static void pc_col_unlock(pc_collector *c) { pthread_mutex_unlock(&c->mu); }

/* ---- life ----------------------------------------------------------------------------- */

pc_collector *pc_collector_new(void) {
  pc_collector *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  pthread_rwlockattr_t a;
  pthread_rwlockattr_init(&a);
  /* Writer preference: a launch waiting to be profiled must not starve
   * behind a stream of launches from other threads. */
  pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
  const int bad = pthread_mutex_init(&c->mu, NULL) || pthread_rwlock_init(&c->gate, &a);
  pthread_rwlockattr_destroy(&a);
  if (bad) {
    free(c);
    return NULL;
  }
  c->sel.per_signature = 1;
  return c;
}

static void pc_prof_free(pc_prof *p) {
  if (p->has_result) pc_rp_result_store_free(&p->res);
  p->has_result = 0;
}

void pc_collector_free(pc_collector *c) {
  if (!c) return;
  /* The counter layer first: it locks the collector's mutex (pc_rp_create
   * was handed &c->mu), so it must go while the collector is alive.  Freed
   * the other way round, pc_rp_destroy locked freed memory and corrupted the
   * heap (every in-process program hung or aborted at its session's destroy). */
  pc_rp *rp = c->rp;
  c->rp = NULL;
  if (rp) pc_rp_destroy(rp);
  pc_sigtab_free(&c->tab);
  pc_ltab_free(&c->launches);
  for (size_t i = 0; i < c->nprof; i++) pc_prof_free(&c->prof[i]);
  free(c->prof);
  pc_regions_clear(&c->regions);
  free(c->caps);
  free(c->kernels);
  free(c->memcpys.v);
  free(c->memsets.v);
  for (size_t i = 0; i < c->nqueue; i++) free(c->queue[i].buf);
  free(c->queue);
  for (size_t i = 0; i < c->npool; i++) free(c->pool[i]);
  pthread_rwlock_destroy(&c->gate);
  pthread_mutex_destroy(&c->mu);
  free(c);
}

pc_collector *pc_collector_install(pc_collector *c) { return atomic_exchange(&pc_gpu_g.col, c); }

void pc_collector_retire(pc_collector *c) {
  if (!c) return;
  atomic_store(&c->active, 0);
  atomic_store(&c->counters, 0);
  pc_collector *was = pc_collector_install(NULL);
  if (was && was != c) pc_collector_install(was); /* not ours (cannot happen): leave it */
  pthread_rwlock_wrlock(&c->gate);
  pthread_rwlock_unlock(&c->gate);
  while (atomic_load(&pc_gpu_g.inflight) > 0) {
    struct timespec ts = {0, 50000};
    nanosleep(&ts, NULL);
  }
}

/* ---- state the callbacks read without the lock ------------------------------------------ */

int pc_collector_active(const pc_collector *c) { return atomic_load(&c->active); }
void pc_collector_set_active(pc_collector *c, int on) { atomic_store(&c->active, on); }
int pc_collector_counting(const pc_collector *c) { return atomic_load(&c->counters); }
void pc_collector_counters_off(pc_collector *c) { atomic_store(&c->counters, 0); }
void pc_collector_counters_refused(pc_collector *c) {
  if (atomic_exchange(&c->counters, 0)) atomic_store(&c->refusal, 1);
}

int pc_collector_poll_refusal(pc_collector *c, pc_err *why) {
  if (!atomic_exchange(&c->refusal, 0) || !c->rp) return 0;
  pc_err re;
  const perfcheck_status st = pc_rp_status(c->rp, &re);
  pc_col_lock(c);
  pc_err_set(&c->note, st, "counters refused (%s): %s", perfcheck_strerror(st), re.msg[0] ? re.msg : "no detail");
  if (why) *why = c->note;
  pc_col_unlock(c);
  return 1;
}

void pc_collector_set_fatal(pc_collector *c, int result, const char *message) {
  if (!atomic_load(&c->fatal)) {
    pc_col_lock(c);
    pc_err_set(&c->fatal_msg, PERFCHECK_ERROR_CUPTI_UNAVAILABLE, "CUPTI reported a fatal error (%d): %s", result,
               message ? message : "no detail");
    pc_col_unlock(c);
    atomic_store(&c->fatal, 1);
  }
  /* CUPTI finalizes itself after this: stop recording. */
  atomic_store(&c->active, 0);
  atomic_store(&c->counters, 0);
}

int pc_collector_fatal(pc_collector *c, pc_err *why) {
  if (!atomic_load(&c->fatal)) return 0;
  if (why) {
    pc_col_lock(c);
    *why = c->fatal_msg;
    pc_col_unlock(c);
  }
  return 1;
}

uint32_t pc_collector_region_current(const pc_collector *c) { return atomic_load(&c->cur_region); }
int pc_collector_captures_open(const pc_collector *c) { return atomic_load(&c->capturing); }
void pc_collector_add_dropped(pc_collector *c, uint64_t n) {
  if (n) atomic_fetch_add(&c->dropped, n);
}
void pc_collector_record_counts(const pc_collector *c, uint64_t *dropped, uint64_t *zero_ts) {
  *dropped = atomic_load(&c->dropped);
  *zero_ts = atomic_load(&c->zero_ts);
}

/* ---- set-up times ------------------------------------------------------------------------ */

void pc_collector_set_progress(pc_collector *c, int level, void (*say)(const char *line)) {
  c->progress = level >= 2 ? 2 : level ? 1 : 0;
  c->say = say;
}

void pc_collector_add_setup_time(pc_collector *c, int phase, uint64_t ns) {
  if (phase >= 0 && phase < PC_SU_COUNT) c->setup_ns[phase] += ns;
}

void pc_collector_say_times(const pc_collector *c, const char *teardown) {
  if (!c || !c->progress || !c->say) return;
  const uint64_t *v = c->setup_ns;
  char line[600];
  snprintf(line, sizeof line,
           "lib/gpu host time: set-up %.1f ms (driver and CUPTI check %.1f, device attributes %.1f, launch "
           "callbacks %.1f, activity %.1f, counter layer %.1f), %s",
           (double)(v[0] + v[1] + v[2] + v[3] + v[4]) / 1e6, (double)v[0] / 1e6, (double)v[1] / 1e6,
           (double)v[2] / 1e6, (double)v[3] / 1e6, (double)v[4] / 1e6, teardown);
  c->say(line);
}

/* ---- counters ------------------------------------------------------------------------------ */

perfcheck_status pc_collector_counters_create(pc_collector *c, pc_rp_plan *plan, const pc_rp_config *cfg,
                                              pc_err *replay_why, pc_err *err) {
  pc_rp *rp = NULL;
  const perfcheck_status st = pc_rp_create(plan, cfg, &c->mu, &rp, replay_why, err);
  pc_col_lock(c);
  c->rp = st == PERFCHECK_OK ? rp : NULL;
  pc_col_unlock(c);
  return st;
}

pc_rp *pc_collector_rp(const pc_collector *c) { return c->rp; }

void pc_collector_set_counters(pc_collector *c, const pc_collector_counters *cc) {
  pc_col_lock(c);
  memset(&c->sel, 0, sizeof c->sel);
  c->counters_asked = cc ? cc->asked : 0;
  pc_err_clear(&c->note);
  if (cc && cc->note && cc->note[0]) pc_err_set(&c->note, PERFCHECK_ERROR_UNSUPPORTED, "%s", cc->note);
  if (cc) {
    c->sel.kernel_regex = cc->kernel_regex;
    c->sel.launch_skip = cc->launch_skip;
    c->sel.launch_count = cc->launch_count;
    c->sel.per_signature = cc->per_signature;
    c->sel.rotate_groups = cc->rotate_groups;
    /* Rotation split the set at creation: graph launches use the same groups. */
    c->sel.graph_groups = cc->rotate_groups;
  }
  if (c->sel.per_signature == 0) c->sel.per_signature = 1;
  pc_err_clear(&c->graph_note);
  c->graph_note_given = 0;
  atomic_store(&c->graph_groups_state, c->sel.graph_groups ? 1 : 0);
  atomic_store(&c->counters, c->rp != NULL);
  pc_col_unlock(c);
}

int pc_collector_counters_note(pc_collector *c, pc_err *why) {
  pc_col_lock(c);
  const int asked = c->counters_asked;
  if (why) *why = c->note;
  pc_col_unlock(c);
  return asked;
}

int pc_collector_graph_groups_pending(const pc_collector *c) { return atomic_load(&c->graph_groups_state) == 0; }

void pc_collector_graph_groups(pc_collector *c) {
  if (atomic_load(&c->graph_groups_state) != 0) return;
  pc_col_lock(c);
  const int filtered = c->sel.kernel_regex != NULL; /* graphs are not profiled under -k: nothing to split */
  pc_col_unlock(c);
  if (filtered) {
    atomic_store(&c->graph_groups_state, -1);
    return;
  }
  /* No profiled launch runs while the groups are split (the counter layer
   * publishes them): the exclusive gate, as a profiled launch holds it. */
  pthread_rwlock_wrlock(&c->gate);
  if (atomic_load(&c->graph_groups_state) == 0 && atomic_load(&c->counters)) {
    pc_err why;
    pc_err_clear(&why);
    const size_t n = pc_rp_graph_groups(c->rp, &why);
    pc_col_lock(c);
    c->sel.graph_groups = (unsigned)n;
    if (!n) c->graph_note = why;
    pc_col_unlock(c);
    atomic_store(&c->graph_groups_state, n ? 1 : -1);
  }
  pthread_rwlock_unlock(&c->gate);
}

/* ---- the launch gate ---------------------------------------------------------------------- */

void pc_collector_gate_shared(pc_collector *c) { pthread_rwlock_rdlock(&c->gate); }
void pc_collector_gate_exclusive(pc_collector *c) { pthread_rwlock_wrlock(&c->gate); }
void pc_collector_gate_release(pc_collector *c) { pthread_rwlock_unlock(&c->gate); }

/* ---- launches ------------------------------------------------------------------------------- */

static int pc_is_per_thread_stream(CUstream s) {
  return s == NULL || s == CU_STREAM_PER_THREAD || s == CU_STREAM_LEGACY;
}

static int pc_stream_captured_locked(const pc_collector *c, CUstream s) {
  const int pt = pc_is_per_thread_stream(s);
  for (size_t i = 0; i < c->ncaps; i++)
    if (c->caps[i].stream == s && (!pt || pthread_equal(c->caps[i].thread, pthread_self()))) return 1;
  return 0;
}

static void pc_prof_forget_locked(pc_collector *c, uint32_t corr) {
  for (size_t i = c->nprof; i-- > 0;)
    if (c->prof[i].corr == corr) {
      pc_prof_free(&c->prof[i]);
      c->prof[i] = c->prof[--c->nprof];
      return;
    }
}

/* The signature of a launch (a graph exec is one of its own: its entry
 * holds the counters of whole graph launches), its facts noted; PC_NONE
 * on out of memory.  *name gets the name entry (PC_NONE for a graph). */
static uint32_t pc_launch_sig_locked(pc_collector *c, const pc_launch_call *call, uint32_t ci, int captured,
                                     uint32_t *name) {
  *name = PC_NONE;
  if (call->graph) return pc_sigtab_graph(&c->tab, call->exec_key, ci, PC_SIG_MAX);
  const uint32_t func = pc_sigtab_handle(&c->tab, call->f, call->symbol);
  if (func == PC_NONE) return PC_NONE;
  *name = c->tab.funcs[func].name;
  const uint32_t sig = pc_sigtab_sig_func(&c->tab, func, ci, call->grid, call->block, call->smem, PC_SIG_MAX);
  if (sig == PC_NONE) return PC_NONE;
  pc_sig *s = &c->tab.sigs[sig];
  s->f = call->f;
  s->seen_direct = 1;
  if (captured) s->seen_captured = 1;
  if (call->cluster[0] * call->cluster[1] * call->cluster[2] > 1) memcpy(s->cluster, call->cluster, sizeof s->cluster);
  return sig;
}

/* Whether a launch of signature sig in region is profiled, and with which
 * rotation turn; a profiled launch gets its entry in the profiled list. */
static int pc_launch_select_locked(pc_collector *c, const pc_launch_call *call, uint32_t sig, uint32_t region,
                                   int counters, long *turn) {
  pc_sig *s = &c->tab.sigs[sig];
  s->seen_run = region;
  if (!counters) {
    pc_select_enter_region(s, pc_regions_key(&c->regions, region));
    if (!s->prof_count) s->np = PC_NP_TIMING;
    return 0;
  }
  const pc_not_profiled closed = atomic_load(&c->capturing) > 0 ? PC_NP_CAPTURE : (pc_not_profiled)call->closed;
  const int profile = pc_select_decide(&c->sel, &c->tab, sig, region, pc_regions_key(&c->regions, region), closed);
  /* With rotation the launch collects the group the selection chose (the
   * current config while the signature lacks it); the rest of a rotation an
   * earlier run left short comes by kernel replay of the whole set.  A
   * graph exec's launches always rotate (never replayed). */
  *turn = pc_select_turn(&c->sel, s, profile);
  if (profile) {
    pc_prof pr;
    memset(&pr, 0, sizeof pr);
    pr.corr = call->corr, pr.sig = sig, pr.region = region;
    if (pc_grow((void **)&c->prof, &c->capprof, c->nprof + 1, sizeof *c->prof) == 0) c->prof[c->nprof++] = pr;
  }
  return profile;
}

void pc_collector_launch_enter(pc_collector *c, const pc_launch_call *call, pc_launch_plan *out) {
  memset(out, 0, sizeof *out);
  out->turn = -1;
  out->closes = call->graph;
  out->counters = atomic_load(&c->counters);
  pc_col_lock(c);
  /* A launch into a stream being captured only adds a graph node: it runs
   * at cuGraphLaunch.  Its name is kept (the graph's kernel records find
   * their function by it); it is neither a launch of the region nor
   * profiled. */
  out->captured = c->ncaps && pc_stream_captured_locked(c, call->stream);
  const uint32_t region = out->captured ? 0 : atomic_load(&c->cur_region);
  out->region = region;
  const uint32_t ci = pc_sigtab_ctx(&c->tab, call->ctx, call->ctx_uid);
  uint32_t name = PC_NONE;
  const uint32_t sig = ci == PC_NONE ? PC_NONE : pc_launch_sig_locked(c, call, ci, out->captured, &name);
  if (sig != PC_NONE) { /* else out of memory: the launch goes unrecorded */
    if (!call->graph && pc_sigtab_name_is_communication(&c->tab, c->tab.sigs[sig].name)) out->closes = 1;
    if (region) {
      out->profile = pc_launch_select_locked(c, call, sig, region, out->counters, &out->turn);
      pc_launch rec = {call->corr, ci, region, PC_L_USED | (call->graph ? PC_L_GRAPH : 0u)};
      rec.a = sig;
      if (out->profile) rec.flags |= PC_L_PROFILED;
      if (pc_ltab_put(&c->launches, &rec) == 0) {
        out->recorded = 1;
        c->launch_seq++;
        c->tab.ctxs[ci].last_launch = c->launch_seq;
      } else if (out->profile) { /* unrecorded launches are not profiled */
        pc_select_undo(&c->tab.sigs[sig]);
        c->sel.profiled--;
        pc_prof_forget_locked(c, call->corr);
        out->profile = 0;
      }
      if (out->profile) out->profile_name = call->graph ? "CUDA graph" : c->tab.names[name].mangled;
    }
  }
  pc_col_unlock(c);
}

void pc_collector_launch_unprofile(pc_collector *c, uint32_t corr) {
  pc_col_lock(c);
  const size_t at = pc_ltab_find(&c->launches, corr);
  if (at != SIZE_MAX) c->launches.e[at].flags &= ~PC_L_PROFILED;
  pc_prof_forget_locked(c, corr);
  const uint32_t sig = at != SIZE_MAX ? c->launches.e[at].a : PC_NONE;
  if (sig != PC_NONE && sig < c->tab.nsigs) {
    pc_select_undo(&c->tab.sigs[sig]);
    if (!c->tab.sigs[sig].prof_count) c->tab.sigs[sig].np = PC_NP_TIMING;
  }
  pc_col_unlock(c);
}

void pc_collector_launch_profiled(pc_collector *c, uint32_t corr, uint64_t enter_ts, uint64_t exit_ts,
                                  uint64_t dropped) {
  pc_col_lock(c);
  c->rp_dropped += dropped;
  for (size_t i = c->nprof; exit_ts && i-- > 0;)
    if (c->prof[i].corr == corr) {
      c->prof[i].enter_ts = enter_ts;
      c->prof[i].exit_ts = exit_ts;
      break;
    }
  pc_col_unlock(c);
}

void pc_collector_launch_failed(pc_collector *c, uint32_t corr) {
  if (!atomic_load(&c->active)) return;
  pc_col_lock(c);
  const size_t at = pc_ltab_find(&c->launches, corr);
  if (at != SIZE_MAX) {
    const pc_launch e = c->launches.e[at];
    pc_ltab_erase(&c->launches, at);
    c->failed++;
    if ((e.flags & PC_L_PROFILED) && e.a < c->tab.nsigs) {
      pc_prof_forget_locked(c, e.corr);
      pc_sig *s = &c->tab.sigs[e.a];
      pc_select_undo(s);
      if (!s->prof_count) s->np = PC_NP_FAILED;
    }
  }
  pc_col_unlock(c);
}

/* ---- stream captures, contexts, modules ---------------------------------------------------- */

void pc_collector_capture_begin(pc_collector *c, CUstream stream) {
  pc_col_lock(c);
  if (pc_grow((void **)&c->caps, &c->capcaps, c->ncaps + 1, sizeof *c->caps) == 0) {
    pc_capstream *e = &c->caps[c->ncaps++];
    e->stream = stream;
    e->thread = pthread_self();
    e->per_thread = pc_is_per_thread_stream(stream);
  }
  atomic_fetch_add(&c->capturing, 1);
  pc_col_unlock(c);
}

void pc_collector_capture_end(pc_collector *c, CUstream stream) {
  pc_col_lock(c);
  for (size_t i = 0; i < c->ncaps; i++)
    if (c->caps[i].stream == stream && (!c->caps[i].per_thread || pthread_equal(c->caps[i].thread, pthread_self()))) {
      c->caps[i] = c->caps[--c->ncaps];
      break;
    }
  if (atomic_load(&c->capturing) > 0) atomic_fetch_sub(&c->capturing, 1);
  pc_col_unlock(c);
}

void pc_collector_context_dead(pc_collector *c, CUcontext ctx) {
  pc_col_lock(c);
  pc_sigtab_ctx_dead(&c->tab, ctx);
  pc_col_unlock(c);
}

pc_pending_attr *pc_collector_attrs_pending(pc_collector *c, size_t *n) {
  pc_pending_attr *todo = NULL;
  size_t cap = 0;
  *n = 0;
  pc_col_lock(c);
  for (size_t i = 0; i < c->tab.nsigs; i++) {
    const pc_sig *s = &c->tab.sigs[i];
    if (s->attr_state != PC_ATTR_NONE || !s->f || !pc_regions_find(&c->regions, s->seen_run)) continue;
    if (pc_grow((void **)&todo, &cap, *n + 1, sizeof *todo)) break;
    pc_pending_attr *t = &todo[(*n)++];
    t->sig = (uint32_t)i;
    t->f = s->f;
    t->ctx = s->ctx < c->tab.nctxs ? c->tab.ctxs[s->ctx].ctx : NULL;
    memcpy(t->grid, s->grid, sizeof t->grid);
    memcpy(t->block, s->block, sizeof t->block);
    t->smem = s->smem;
  }
  pc_col_unlock(c);
  return todo;
}

void pc_collector_forget_handles(pc_collector *c) {
  pc_col_lock(c);
  pc_sigtab_forget_handles(&c->tab);
  pc_col_unlock(c);
}

/* ---- regions ----------------------------------------------------------------------------- */

static void pc_update_current_region(pc_collector *c) {
  atomic_store(&c->cur_region, pc_regions_current(&c->regions));
}

uint32_t pc_collector_region_push(pc_collector *c, const char *name, unsigned flags, const pc_region_marks *begin) {
  pc_col_lock(c);
  const uint32_t id = pc_regions_push(&c->regions, name, flags, begin);
  if (id && (flags & PC_RG_NVTX)) c->regions.v[c->regions.n - 1].nvtx_thread = pthread_self();
  pc_update_current_region(c);
  pc_col_unlock(c);
  return id;
}

void pc_collector_region_pop(pc_collector *c, uint32_t id, const pc_region_marks *end) {
  pc_col_lock(c);
  pc_regions_close(&c->regions, id, end);
  pc_update_current_region(c);
  pc_col_unlock(c);
}

void pc_region_view_free(pc_region_view *v) {
  free(v->name);
  free(v->parent_name);
  v->name = v->parent_name = NULL;
}

perfcheck_status pc_collector_region_view(pc_collector *c, uint32_t id, pc_region_view *out, pc_err *err) {
  memset(out, 0, sizeof *out);
  pc_col_lock(c);
  const pc_open_region *r = pc_regions_find(&c->regions, id);
  const pc_open_region *up = r && r->parent ? pc_regions_find(&c->regions, r->parent) : NULL;
  perfcheck_status st = PERFCHECK_ERROR_NO_REGION;
  if (r) {
    out->id = r->id;
    out->parent = up ? up->id : 0;
    out->depth = r->depth;
    out->flags = r->flags;
    out->nvtx_here = (r->flags & PC_RG_NVTX) && pthread_equal(r->nvtx_thread, pthread_self());
    out->has_end = r->has_end;
    out->begin = r->begin;
    out->end = r->end;
    out->keep_transfers_from = pc_regions_oldest_begin(&c->regions, id);
    out->name = pc_strdup(r->name);
    out->parent_name = up ? pc_strdup(up->name) : NULL;
    st = (!out->name || (up && !out->parent_name)) ? PERFCHECK_ERROR_OUT_OF_MEMORY : PERFCHECK_OK;
  }
  pc_col_unlock(c);
  if (st == PERFCHECK_ERROR_OUT_OF_MEMORY) pc_region_view_free(out);
  if (st == PERFCHECK_ERROR_NO_REGION) return pc_err_set(err, st, "region %u is not open", (unsigned)id);
  if (st != PERFCHECK_OK) return pc_err_set(err, st, "out of memory");
  return st;
}

uint32_t pc_collector_region_innermost(pc_collector *c) {
  pc_col_lock(c);
  const uint32_t id = pc_regions_innermost(&c->regions);
  pc_col_unlock(c);
  return id;
}

uint32_t pc_collector_region_next_to_end(pc_collector *c) {
  pc_col_lock(c);
  const uint32_t id = pc_regions_next_to_end(&c->regions);
  pc_col_unlock(c);
  return id;
}

void pc_collector_launch_counts(pc_collector *c, uint64_t *launches, uint64_t *failed) {
  pc_col_lock(c);
  *launches = c->launch_seq;
  *failed = c->failed;
  pc_col_unlock(c);
}

size_t pc_collector_contexts_since(pc_collector *c, uint64_t since, CUcontext *out, size_t cap) {
  size_t n = 0;
  pc_col_lock(c);
  for (size_t i = 0; i < c->tab.nctxs; i++) {
    const pc_ctxent *e = &c->tab.ctxs[i];
    if (!e->alive || e->last_launch <= since) continue;
    int dup = 0; /* one context may have several entries (new uid) */
    for (size_t j = 0; j < n && j < cap; j++) dup |= out[j] == e->ctx;
    if (dup) continue;
    if (n < cap) out[n] = e->ctx;
    n++;
  }
  pc_col_unlock(c);
  return n;
}

size_t pc_collector_pending(pc_collector *c, uint32_t id) {
  pc_col_lock(c);
  const size_t n = pc_ltab_pending(&c->launches, id);
  pc_col_unlock(c);
  return n;
}

/* ---- the activity join and store ----------------------------------------------------------- */

/* Finds the launch of a kernel record.  Returns 1 with *group and *region
 * set when the launch was made inside a region whose records are still
 * accepted; 0 when the record is to be dropped.  A graph launch's entry
 * (PC_L_GRAPH) names the graph signature (pc_sigtab_graph), whose context
 * is its kernels'; it stays until the region ends (one correlation id for
 * all of the graph's kernels). */
static int pc_join_kernel_locked(pc_collector *c, const pc_kernel_record *rec, uint32_t *group, uint32_t *region) {
  size_t at = pc_ltab_find(&c->launches, rec->correlation_id);
  if (at == SIZE_MAX) return 0;
  const pc_launch e = c->launches.e[at];
  if (!pc_regions_find(&c->regions, e.region)) {
    pc_ltab_erase(&c->launches, at);
    return 0;
  }
  uint32_t sig, bits = 0;
  if (e.flags & PC_L_GRAPH) {
    bits |= PC_SNAP_GRAPH;
    /* One correlation id for all of the graph's kernels: keep the entry
     * until the region ends, and find each kernel's signature by name; the
     * entry names the graph signature, whose context is the kernels'. */
    if (!rec->name || e.a >= c->tab.nsigs) return 0;
    /* Every kernel node of a graph carries the graph's id in its record.
     * One with none under a graph launch's correlation id is a tool's kernel
     * launched inside that launch's callback: CUPTI's "WaitNs" under a user
     * range (H200, 2026-12-02: 5 records for 6 profiled launches, counted as
     * a fourth kernel of a three-kernel graph).  It is not the program's. */
    if (rec->graph_id == 0) {
      c->tool_kernels++;
      return 0;
    }
    pc_sig *gs = &c->tab.sigs[e.a];
    if (!gs->graph_id && rec->graph_id) gs->graph_id = rec->graph_id;
    const uint32_t ctx = gs->ctx;
    uint32_t name = pc_sigtab_intern(&c->tab, rec->name);
    if (name == PC_NONE) return 0;
    /* A collective in the graph: its later launches are not profiled (the
     * range would wait for peers a gated thread may launch). */
    if (pc_sigtab_name_is_communication(&c->tab, name)) c->tab.sigs[e.a].graph_comm = 1;
    sig = pc_sigtab_sig(&c->tab, name, ctx, rec->grid, rec->block, rec->dynamic_smem, PC_SIG_MAX);
    if (sig == PC_NONE) return 0;
    pc_sig *s = &c->tab.sigs[sig];
    s->seen_graph = 1;
    const uint32_t fl = c->tab.names[name].func_last;
    if (!s->f && fl != PC_NONE) s->f = c->tab.funcs[fl].f;
    pc_select_enter_region(s, pc_regions_key(&c->regions, e.region));
    s->seen_run = e.region;
    if (!s->prof_count) s->np = PC_NP_GRAPH;
    if (s->seen_captured) bits |= PC_SNAP_CAPTURED;
    if (!s->graph_id && rec->graph_id) {
      s->graph_id = rec->graph_id;
      s->graph_node = rec->graph_node;
    }
  } else {
    sig = e.a;
    if (e.flags & PC_L_PROFILED) bits |= PC_SNAP_PROFILED;
    pc_ltab_erase(&c->launches, at);
    if (sig >= c->tab.nsigs) return 0;
  }
  pc_sig *s = &c->tab.sigs[sig];
  if (!s->rec_valid) {
    s->rec_valid = 1;
    s->rec_regs = rec->registers;
    s->rec_static = rec->static_smem;
    s->rec_local = rec->local_per_thread;
  }
  *group = (sig << PC_KSPAN_SHIFT) | bits;
  *region = e.region;
  return 1;
}

static int pc_store_kernel_locked(pc_collector *c, const pc_kspan *k) {
  if (pc_grow((void **)&c->kernels, &c->capkernels, c->nkernels + 1, sizeof *c->kernels)) return -1;
  c->kernels[c->nkernels++] = *k;
  return 0;
}

static int pc_store_transfer_locked(pc_collector *c, int memsets, const pc_span *s) {
  if (c->regions.n == 0) return 0; /* no open region can use it */
  pc_span_array *a = memsets ? &c->memsets : &c->memcpys;
  if (pc_grow((void **)&a->v, &a->cap, a->n + 1, sizeof *a->v)) return -1;
  a->v[a->n++] = *s;
  return 0;
}

/* One kernel record joined and stored: 1 lost (no memory), else 0; *zero
 * counts an unprofiled record without timestamps. */
static int pc_add_kernel_locked(pc_collector *c, const pc_kernel_record *k, uint64_t *zero) {
  uint32_t group, region;
  if (!pc_join_kernel_locked(c, k, &group, &region)) return 0;
  pc_kspan s = {k->start, k->end, group, region, k->correlation_id, k->stream};
  if (!k->start || !k->end || k->end < k->start) {
    /* No timestamps (a profiled launch under kernel replay, a faulted
     * kernel, no device memory for them): the launch still counts, its
     * time does not. */
    s.start = s.end = 0;
    s.group |= PC_SNAP_NOTIME;
    if (!(group & PC_SNAP_PROFILED)) (*zero)++; /* expected for profiled launches */
  }
  return pc_store_kernel_locked(c, &s) ? 1 : 0;
}

void pc_collector_add_activity(pc_collector *c, const pc_act_record *v, size_t n) {
  uint64_t lost = 0, zero = 0;
  pc_col_lock(c);
  for (size_t i = 0; i < n; i++) {
    if (v[i].kind == PC_ACT_KERNEL)
      lost += (uint64_t)pc_add_kernel_locked(c, &v[i].k, &zero);
    else if (pc_store_transfer_locked(c, v[i].kind == PC_ACT_MEMSET, &v[i].span))
      lost++;
  }
  pc_col_unlock(c);
  if (lost) atomic_fetch_add(&c->dropped, lost);
  if (zero) atomic_fetch_add(&c->zero_ts, zero);
}

int pc_collector_join_kernel(pc_collector *c, const pc_kernel_record *rec, uint32_t *group, uint32_t *region) {
  pc_col_lock(c);
  const int ok = pc_join_kernel_locked(c, rec, group, region);
  pc_col_unlock(c);
  return ok;
}

/* ---- activity buffers ---------------------------------------------------------------------- */

uint8_t *pc_collector_buffer_get(pc_collector *c, size_t size) {
  uint8_t *b = NULL;
  pc_col_lock(c);
  if (c->npool) {
    b = c->pool[--c->npool];
  } else {
    /* Room in the queue for every buffer that exists, so that the
     * completion callback never allocates. */
    if (pc_grow((void **)&c->queue, &c->capqueue, c->nbuffers + 1, sizeof *c->queue) == 0)
      b = malloc(size); /* malloc's alignment exceeds CUPTI's 8 bytes */
    if (b) c->nbuffers++;
  }
  pc_col_unlock(c);
  return b;
}

int pc_collector_buffer_done(pc_collector *c, uint8_t *buf, size_t valid) {
  int kept = 0;
  pc_col_lock(c);
  if (valid && c->nqueue < c->capqueue) {
    c->queue[c->nqueue++] = (pc_qbuf){buf, valid};
    kept = 1;
  } else if (!valid && c->npool < PC_ACT_POOL_MAX) {
    c->pool[c->npool++] = buf;
    kept = 1;
  }
  if (!kept && c->nbuffers) c->nbuffers--;
  pc_col_unlock(c);
  if (!kept && valid) atomic_fetch_add(&c->dropped, 1); /* not one of its buffers (another session's) */
  return kept ? 0 : -1;
}

int pc_collector_buffer_next(pc_collector *c, uint8_t **buf, size_t *valid) {
  pc_col_lock(c);
  const int any = c->nqueue > 0;
  if (any) { /* order does not matter: records join by id */
    const pc_qbuf q = c->queue[--c->nqueue];
    *buf = q.buf;
    *valid = q.valid;
  }
  pc_col_unlock(c);
  return any;
}

void pc_collector_buffer_recycle(pc_collector *c, uint8_t *b) {
  pc_col_lock(c);
  if (c->npool < PC_ACT_POOL_MAX) {
    c->pool[c->npool++] = b;
    b = NULL;
  } else if (c->nbuffers) {
    c->nbuffers--;
  }
  pc_col_unlock(c);
  free(b);
}

size_t pc_collector_buffers_queued(pc_collector *c) {
  pc_col_lock(c);
  const size_t n = c->nqueue;
  pc_col_unlock(c);
  return n;
}

/* ---- signatures ------------------------------------------------------------------------------ */

void pc_collector_sig_set_attr(pc_collector *c, uint32_t gid, pc_attr_state st, const pc_attributes *a,
                               const char *reason) {
  char *r = reason ? pc_strdup(reason) : NULL;
  pc_col_lock(c);
  if (gid < c->tab.nsigs) {
    pc_sig *s = &c->tab.sigs[gid];
    s->attr_state = (uint8_t)st;
    if (a) s->attr = *a;
    free(s->attr_reason);
    s->attr_reason = r;
    r = NULL;
  }
  pc_col_unlock(c);
  free(r);
}

void pc_collector_sig_unload_attr(pc_collector *c, uint32_t gid, const pc_attributes *a, int is_kernel) {
  pc_col_lock(c);
  if (gid < c->tab.nsigs) {
    pc_sig *s = &c->tab.sigs[gid];
    if (a) {
      s->attr = *a;
      s->attr_state = PC_ATTR_OK;
      s->is_kernel = 0;
    } else if (is_kernel) {
      s->is_kernel = 1;
    }
  }
  pc_col_unlock(c);
}

uint32_t pc_collector_sig_resolved(pc_collector *c, uint32_t gid, void *canon) {
  pc_col_lock(c);
  if (gid < c->tab.nsigs) pc_sigtab_func_resolved(&c->tab, c->tab.sigs[gid].func, canon);
  const uint32_t id = pc_sigtab_function_id(&c->tab, gid);
  pc_col_unlock(c);
  return id;
}

void pc_collector_sig_set_name(pc_collector *c, uint32_t gid, const char *mangled) {
  if (!mangled) return;
  char *m = pc_strdup(mangled);
  pc_col_lock(c);
  if (gid < c->tab.nsigs) {
    pc_name *n = &c->tab.names[c->tab.sigs[gid].name];
    if (!n->mangled) {
      n->mangled = m;
      m = NULL;
    }
  }
  pc_col_unlock(c);
  free(m);
}

/* ---- profiled launches ------------------------------------------------------------------------ */

int pc_collector_prof_store(pc_collector *c, uint32_t corr, pc_rp_result_store *res) {
  int found = -1;
  pc_col_lock(c);
  for (size_t i = c->nprof; i-- > 0;)
    if (c->prof[i].corr == corr) {
      pc_prof_free(&c->prof[i]);
      c->prof[i].res = *res;
      c->prof[i].has_result = 1;
      memset(res, 0, sizeof *res);
      found = 0;
      break;
    }
  pc_col_unlock(c);
  return found;
}

int pc_collector_prof_store_cb(void *c, uint32_t corr, pc_rp_result_store *res) {
  return pc_collector_prof_store((pc_collector *)c, corr, res);
}

void pc_collector_host_cut(pc_collector *c, uint32_t region, uint64_t t0, uint64_t t1) {
  if (!c || !region || !t0 || t1 <= t0) return;
  pc_prof pr;
  memset(&pr, 0, sizeof pr);
  pr.region = region, pr.cut_only = 1, pr.enter_ts = t0, pr.exit_ts = t1;
  pc_col_lock(c);
  if (pc_grow((void **)&c->prof, &c->capprof, c->nprof + 1, sizeof *c->prof) == 0) c->prof[c->nprof++] = pr;
  pc_col_unlock(c);
}

/* ---- a region's end ----------------------------------------------------------------------------- */

/* An array of n elements of size sz whose capacity suits pc_snapshot's
 * appends (a power of two). */
static void *pc_snap_array(size_t n, size_t sz) {
  size_t cap = 1;
  while (cap < n) cap *= 2;
  return n ? calloc(cap, sz) : NULL;
}

/* Copies the transfers overlapping [begin, end] into the snapshot. */
static int pc_take_transfers(const pc_span_array *a, uint64_t begin, uint64_t end, pc_span **out, size_t *n) {
  size_t k = 0;
  for (size_t i = 0; i < a->n; i++) k += a->v[i].end >= begin && a->v[i].start <= end;
  *n = 0;
  if (!k) return 0;
  pc_span *v = pc_snap_array(k, sizeof *v);
  if (!v) return -1;
  for (size_t i = 0; i < a->n; i++)
    if (a->v[i].end >= begin && a->v[i].start <= end) v[(*n)++] = a->v[i];
  *out = v;
  return 0;
}

/* Drops transfer spans that ended before t (no open region can use them). */
static void pc_prune_transfers(pc_collector *c, uint64_t t) {
  pc_span_array *arrs[2] = {&c->memcpys, &c->memsets};
  for (int k = 0; k < 2; k++) {
    pc_span_array *a = arrs[k];
    size_t w = 0;
    for (size_t i = 0; i < a->n; i++)
      if (a->v[i].end >= t) a->v[w++] = a->v[i];
    a->n = w;
  }
}

/* The snapshot's context of table context ci, added the first time (its
 * handle in tk->ctxs); its index, or UINT32_MAX on out of memory. */
static uint32_t pc_take_context(pc_collector *c, pc_snapshot *s, uint32_t ci, pc_taken *tk, uint32_t *cmap) {
  if (cmap[ci] != UINT32_MAX) return cmap[ci];
  if (pc_grow((void **)&tk->ctxs, &tk->capctxs, s->ncontexts + 1, sizeof *tk->ctxs)) return UINT32_MAX;
  pc_snap_context *sc = pc_snapshot_add_context(s);
  if (!sc) return UINT32_MAX;
  sc->device = -1;
  tk->ctxs[s->ncontexts - 1] = (CUcontext)c->tab.ctxs[ci].ctx;
  return cmap[ci] = (uint32_t)(s->ncontexts - 1);
}

/* Adds signature gid to the snapshot (a copy of the table's entry) and its
 * context the first time; returns the snapshot index or UINT32_MAX. */
static uint32_t pc_take_sig(pc_collector *c, pc_snapshot *s, uint32_t gid, int direct, pc_taken *tk, uint32_t *cmap) {
  const pc_sig *t = &c->tab.sigs[gid];
  const pc_name *nm = &c->tab.names[t->name];
  if (pc_grow((void **)&tk->sigs, &tk->capsigs, tk->nsigs + 1, sizeof *tk->sigs)) return UINT32_MAX;
  pc_snap_sig *g = pc_snapshot_add_sig(s);
  if (!g) return UINT32_MAX;
  const uint32_t idx = (uint32_t)(s->nsigs - 1);
  pc_sig_handle *h = &tk->sigs[tk->nsigs++];
  memset(h, 0, sizeof *h);
  h->gid = gid;
  h->f = t->f;
  h->ctx_index = t->ctx;
  h->ctx = t->ctx < c->tab.nctxs ? (CUcontext)c->tab.ctxs[t->ctx].ctx : NULL;
  h->direct = direct;
  h->attr_state = (pc_attr_state)t->attr_state;
  if (t->ctx < c->tab.nctxs && (g->context = pc_take_context(c, s, t->ctx, tk, cmap)) == UINT32_MAX)
    return UINT32_MAX;
  g->mangled = nm->mangled ? pc_strdup(nm->mangled) : NULL;
  g->function = pc_sigtab_function_id(&c->tab, gid);
  memcpy(g->grid, t->grid, sizeof g->grid);
  memcpy(g->block, t->block, sizeof g->block);
  for (int i = 0; i < 3; i++) g->cluster[i] = t->cluster[i] ? t->cluster[i] : 1;
  g->dynamic_smem = t->smem;
  g->not_profiled = (pc_not_profiled)t->np;
  g->rec_valid = t->rec_valid;
  g->rec_registers = t->rec_regs;
  g->rec_static_smem = t->rec_static;
  g->rec_local = t->rec_local;
  g->graph_id = t->graph_id;
  g->graph_node = t->is_graph ? 0 : t->graph_node;
  g->is_graph = t->is_graph;
  g->graph_exec = t->graph_exec;
  /* Attributes: known ones now; the rest the caller asks outside the lock. */
  if (t->attr_state == PC_ATTR_OK) {
    g->attr_from = PC_SNAP_ATTR_DRIVER;
    g->attr = t->attr;
  } else if (t->attr_state == PC_ATTR_UNAVAILABLE && direct) {
    g->attr_from = PC_SNAP_ATTR_NONE;
    g->attr_note = t->attr_reason ? pc_strdup(t->attr_reason) : NULL;
  }
  if ((nm->mangled && !g->mangled) || (t->attr_reason && direct && t->attr_state == PC_ATTR_UNAVAILABLE && !g->attr_note))
    return UINT32_MAX;
  return idx;
}

/* Step 1b: copies of the region's graph-launch entries (they name the
 * graph signature), taken before the purge: a graph entry's kernels are the
 * rows that carry their ids.  -1 on out of memory. */
static int pc_take_graph_launches_locked(pc_collector *c, uint32_t id, pc_launch **out, size_t *n) {
  *out = NULL;
  *n = 0;
  size_t k = 0;
  for (size_t i = 0; i < c->launches.n; i++) {
    const pc_launch *e = &c->launches.e[i];
    k += (e->flags & PC_L_USED) && (e->flags & PC_L_GRAPH) && e->region == id && e->a < c->tab.nsigs;
  }
  if (!k) return 0;
  if (!(*out = malloc(k * sizeof **out))) return -1;
  for (size_t i = 0; i < c->launches.n; i++) {
    const pc_launch *e = &c->launches.e[i];
    if ((e->flags & PC_L_USED) && (e->flags & PC_L_GRAPH) && e->region == id && e->a < c->tab.nsigs)
      (*out)[(*n)++] = *e;
  }
  return 0;
}

/* Step 2: the region's kernel records, moved to the end of the store;
 * returns how many (they start at c->kernels + c->nkernels - k). */
static size_t pc_take_partition_locked(pc_collector *c, uint32_t id) {
  const size_t n = c->nkernels;
  size_t k = 0;
  pc_kspan *v = c->kernels;
  for (size_t i = n; i-- > 0;)
    if (v[i].region == id) {
      const pc_kspan t = v[i];
      v[i] = v[n - 1 - k];
      v[n - 1 - k] = t;
      k++;
    }
  return k;
}

/* What the region's end copies, and the maps it builds on the way. */
typedef struct pc_take {
  const pc_region_view *g;
  pc_kspan *mine;               /* the region's kernel records */
  size_t k;
  pc_launch *gl;                /* its graph launches */
  size_t ngl;
  uint32_t *map;                /* collector signature id -> snapshot index */
  int oom;
} pc_take;

/* Step 4: the signatures the rows, profiled launches and graph launches
 * name, in the table's order (the report's order of kernel entries):
 * use 1 named, 2 launched directly.  -1 on out of memory. */
static int pc_take_sigs_locked(pc_collector *c, pc_take *t, pc_snapshot *s, pc_taken *tk) {
  uint32_t maxid = 0;
  size_t np = 0;
  for (size_t i = 0; i < t->k; i++) maxid = PC_KSPAN_SIG(t->mine[i].group) > maxid ? PC_KSPAN_SIG(t->mine[i].group) : maxid;
  for (size_t i = 0; i < c->nprof; i++)
    if (c->prof[i].region == t->g->id && !c->prof[i].cut_only) {
      np++;
      if (c->prof[i].sig > maxid) maxid = c->prof[i].sig;
    }
  for (size_t i = 0; i < t->ngl; i++)
    if (t->gl[i].a > maxid) maxid = t->gl[i].a;
  if (!t->k && !np && !t->ngl) return 0;
  unsigned char *use = calloc((size_t)maxid + 1, 1);
  t->map = malloc(((size_t)maxid + 1) * sizeof *t->map);
  uint32_t *cmap = c->tab.nctxs ? malloc(c->tab.nctxs * sizeof *cmap) : NULL;
  int rc = (!use || !t->map || (c->tab.nctxs && !cmap)) ? -1 : 0;
  for (size_t i = 0; cmap && i < c->tab.nctxs; i++) cmap[i] = UINT32_MAX;
  for (size_t i = 0; !rc && i < t->k; i++)
    use[PC_KSPAN_SIG(t->mine[i].group)] |= (PC_KSPAN_FLAGS(t->mine[i].group) & PC_SNAP_INHERITED) ? 1 : 3;
  for (size_t i = 0; !rc && i < c->nprof; i++)
    if (c->prof[i].region == t->g->id && !c->prof[i].cut_only) use[c->prof[i].sig] |= 1;
  for (size_t i = 0; !rc && i < t->ngl; i++) use[t->gl[i].a] |= 1; /* a graph: no attributes to read */
  for (uint32_t gid = 0; !rc && gid <= maxid; gid++) {
    t->map[gid] = UINT32_MAX;
    if (!use[gid] || gid >= c->tab.nsigs) continue;
    t->map[gid] = pc_take_sig(c, s, gid, use[gid] & 2, tk, cmap);
    if (t->map[gid] == UINT32_MAX) rc = -1;
  }
  free(use);
  free(cmap);
  return rc;
}

/* Step 5: the kernel records and graph launches become snapshot rows,
 * field by field.  -1 on out of memory. */
static int pc_take_rows(const pc_take *t, pc_snapshot *s) {
  if (t->k) {
    if (!(s->launches = pc_snap_array(t->k, sizeof *s->launches))) return -1;
    for (size_t i = 0; i < t->k; i++) {
      pc_snap_launch *l = &s->launches[i];
      l->start = t->mine[i].start;
      l->end = t->mine[i].end;
      l->sig = t->map[PC_KSPAN_SIG(t->mine[i].group)];
      l->correlation_id = t->mine[i].corr;
      l->stream = t->mine[i].stream;
      l->flags = PC_KSPAN_FLAGS(t->mine[i].group);
    }
    s->nlaunches = t->k;
  }
  if (t->ngl) {
    if (!(s->graph_launches = pc_snap_array(t->ngl, sizeof *s->graph_launches))) return -1;
    for (size_t i = 0; i < t->ngl; i++) {
      s->graph_launches[i].correlation_id = t->gl[i].corr;
      s->graph_launches[i].sig = t->map[t->gl[i].a];
    }
    s->ngraph_launches = t->ngl;
  }
  return 0;
}

/* One profiled launch as a snapshot entry, with its counter values. */
static void pc_take_one_profiled(const pc_take *t, const pc_prof *p, pc_snapshot *s, pc_snap_profiled *d) {
  d->correlation_id = p->corr;
  /* A host cut is listed as an inherited launch of no signature: its
   * interval only (pc_region_build cuts it). */
  d->sig = p->cut_only ? UINT32_MAX : t->map[p->sig];
  d->flags = p->inherited || p->cut_only ? PC_SNAP_PROF_INHERITED : 0;
  d->enter_ts = p->enter_ts;
  d->exit_ts = p->exit_ts;
  d->group = -1;
  for (int m = 0; m < PC_M_COUNT; m++) d->values[m] = PC_NULL;
  if (!p->has_result) return;
  d->flags |= PC_SNAP_PROF_RESULT | (p->res.cold ? PC_SNAP_PROF_COLD : 0u);
  d->passes = p->res.passes;
  d->group = p->res.group;
  d->groups = p->res.ngroups;
  if (p->res.skipped) d->flags |= PC_SNAP_PROF_SKIPPED;
  memcpy(d->values, p->res.values, sizeof d->values);
  if (p->res.extra && s->nextra && (d->extra = malloc(s->nextra * sizeof *d->extra)))
    memcpy(d->extra, p->res.extra, s->nextra * sizeof *d->extra);
  if (p->res.note) pc_snapshot_add_note(s, "counters of a launch in region \"%s\": %s", t->g->name, p->res.note);
}

/* Step 6: the profiled launches (its own and those handed up by nested
 * regions) into the snapshot; each then goes to the parent, whose clock
 * must lose its cost too, or away. */
static void pc_take_profiled_locked(pc_collector *c, pc_take *t, pc_snapshot *s) {
  size_t np = 0, kp = 0, keep = 0;
  for (size_t i = 0; i < c->nprof; i++) np += c->prof[i].region == t->g->id;
  if (!t->oom && np && !(s->profiled = pc_snap_array(np, sizeof *s->profiled))) t->oom = 1;
  for (size_t i = 0; i < c->nprof; i++) {
    pc_prof *p = &c->prof[i];
    if (p->region != t->g->id) {
      c->prof[keep++] = *p;
      continue;
    }
    if (!t->oom && s->profiled) pc_take_one_profiled(t, p, s, &s->profiled[kp++]);
    pc_prof_free(p);
    if (t->g->parent) {
      p->region = t->g->parent;
      p->inherited = 1;
      c->prof[keep++] = *p;
    }
  }
  c->nprof = keep;
  s->nprofiled = kp;
}

/* Steps 7 and 8: the transfers around the region (those older than the
 * outermost open region can no longer count), and the kernel records leave
 * the store; the parent's busy time covers its children's kernels, so they
 * stay, re-tagged, when there is one. */
static void pc_take_rest_locked(pc_collector *c, pc_take *t, pc_snapshot *s, uint64_t end_ts) {
  if (!t->oom && (pc_take_transfers(&c->memcpys, t->g->begin.ts, end_ts, &s->memcpys, &s->nmemcpys) ||
                  pc_take_transfers(&c->memsets, t->g->begin.ts, end_ts, &s->memsets, &s->nmemsets)))
    pc_snapshot_add_note(s, "region \"%s\": out of memory, transfer timings lost", t->g->name);
  pc_prune_transfers(c, t->g->keep_transfers_from);
  if (t->g->parent) {
    for (size_t i = 0; i < t->k; i++) {
      t->mine[i].region = t->g->parent;
      t->mine[i].group |= PC_SNAP_INHERITED;
    }
  } else {
    c->nkernels -= t->k;
  }
}

perfcheck_status pc_collector_take_region(pc_collector *c, const pc_region_view *g, uint64_t end_ts,
                                          pc_snapshot *s, pc_taken *tk, pc_err *err) {
  memset(tk, 0, sizeof *tk);
  pc_take t;
  memset(&t, 0, sizeof t);
  t.g = g;
  pc_col_lock(c);
  /* 1. The region leaves the stack: no record can arrive for it after this. */
  pc_regions_retire(&c->regions, g->id);
  pc_update_current_region(c);
  if (c->graph_note.msg[0] && !c->graph_note_given) {
    pc_snapshot_add_note(s, "%s", c->graph_note.msg);
    c->graph_note_given = 1;
  }
  t.oom = pc_take_graph_launches_locked(c, g->id, &t.gl, &t.ngl) != 0;
  s->missing_records = pc_ltab_purge(&c->launches, g->id);
  if (c->rp_dropped) {
    pc_snapshot_add_note(s, "counters of region \"%s\": CUPTI dropped %llu ranges", g->name,
                         (unsigned long long)c->rp_dropped);
    c->rp_dropped = 0;
  }
  /* 2.-5. Its kernel records, the signatures they name, the rows. */
  t.k = pc_take_partition_locked(c, g->id);
  t.mine = c->kernels + (c->nkernels - t.k);
  if (!t.oom) t.oom = pc_take_sigs_locked(c, &t, s, tk) != 0;
  if (!t.oom) t.oom = pc_take_rows(&t, s) != 0;
  pc_take_profiled_locked(c, &t, s); /* 6. */
  pc_take_rest_locked(c, &t, s, end_ts); /* 7., 8. */
  pc_col_unlock(c);
  free(t.gl);
  free(t.map);
  if (t.oom) {
    s->spans_lost = 1;
    return pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "out of memory ending region \"%s\"", g->name);
  }
  return PERFCHECK_OK;
}

void pc_taken_free(pc_taken *tk) {
  free(tk->sigs);
  free(tk->ctxs);
  memset(tk, 0, sizeof *tk);
}

void pc_collector_drop_region(pc_collector *c, uint32_t id) {
  pc_col_lock(c);
  pc_regions_close(&c->regions, id, NULL);
  pc_regions_retire(&c->regions, id);
  pc_update_current_region(c);
  (void)pc_ltab_purge(&c->launches, id);
  size_t keep = 0;
  for (size_t i = 0; i < c->nprof; i++) {
    if (c->prof[i].region == id)
      pc_prof_free(&c->prof[i]);
    else
      c->prof[keep++] = c->prof[i];
  }
  c->nprof = keep;
  keep = 0;
  for (size_t i = 0; i < c->nkernels; i++)
    if (c->kernels[i].region != id) c->kernels[keep++] = c->kernels[i];
  c->nkernels = keep;
  pc_col_unlock(c);
}

/* ---- inspection ------------------------------------------------------------------------------- */

int pc_collector_sig_info(pc_collector *c, uint32_t sig, pc_sig_info *si) {
  memset(si, 0, sizeof *si);
  pc_col_lock(c);
  const int ok = sig < c->tab.nsigs;
  if (ok) {
    const pc_sig *t = &c->tab.sigs[sig];
    const pc_name *n = &c->tab.names[t->name];
    snprintf(si->mangled, sizeof si->mangled, "%s", n->mangled ? n->mangled : "");
    si->f = t->f;
    si->ctx = t->ctx < c->tab.nctxs ? (CUcontext)c->tab.ctxs[t->ctx].ctx : NULL;
    memcpy(si->grid, t->grid, sizeof si->grid);
    memcpy(si->block, t->block, sizeof si->block);
    si->seen_direct = t->seen_direct;
    si->seen_graph = t->seen_graph;
    si->rec_valid = t->rec_valid;
    si->rec_registers = t->rec_regs;
    si->not_profiled = (pc_not_profiled)t->np;
    si->attr_state = (pc_attr_state)t->attr_state;
  }
  pc_col_unlock(c);
  return ok ? 0 : -1;
}

size_t pc_collector_regions_open(pc_collector *c) {
  pc_col_lock(c);
  const size_t n = c->regions.n;
  pc_col_unlock(c);
  return n;
}

uint64_t pc_collector_tool_kernels(pc_collector *c) {
  pc_col_lock(c);
  const uint64_t n = c->tool_kernels;
  pc_col_unlock(c);
  return n;
}

void pc_collector_region_retire(pc_collector *c, uint32_t id) {
  pc_col_lock(c);
  pc_regions_retire(&c->regions, id);
  pc_update_current_region(c);
  pc_col_unlock(c);
}

size_t pc_collector_region_purge(pc_collector *c, uint32_t id) {
  pc_col_lock(c);
  const size_t n = pc_ltab_purge(&c->launches, id);
  pc_col_unlock(c);
  return n;
}
