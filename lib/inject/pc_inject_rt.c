/*
 * pc_inject_rt.c: the injection library's runtime, compiled into
 * libperfcheck.so and started by the loader (pc_inject.c, pc_inject.h).
 *
 * Start-up, in two steps, because InitializeInjection runs inside cuInit:
 *   1. pc_inject_initialize (inside cuInit): the PERFCHECK_* configuration,
 *      then the CUPTI subscription and activity (CUPTI calls are allowed
 *      there, driver calls are not: the driver is not initialized yet).
 *   2. the first CONTEXT_CREATED callback: the session (pc_session_startup:
 *      driver probe, device facts, activity, counters), NVTX ranges as
 *      regions, and the whole-program region, named after the program
 *      (basename of /proc/self/exe), so that step 1 covers the run.  Then
 *      the exit handler, the signal handlers and the fork handler.
 * NVIDIA's own injection sample defers its device work to CONTEXT_CREATED
 * the same way.
 *
 * NVTX ranges.  The CUPTI NVTX callbacks (push/pop of the default domain:
 * nvtxRangePushA/W/Ex, nvtxRangePop, and nvtxDomainRangePushEx/Pop with the
 * NULL domain, which nvtx3's C++ scoped ranges use; lib/gpu decodes them and
 * calls this file's hooks, pc_gpu.h) are recorded, not ended
 * there: a push opens a region on the one region stack at once (launches
 * from then on are tagged with it, its begin marks taken); a pop marks its
 * end.  Region ends synchronize contexts and flush activity, which a CUPTI
 * callback must not do, so the ranges end in the session at a safe point
 * (exit, or the signal watcher), innermost first, each with its recorded
 * interval (pc_session_end_all, pc_session.h).  This file keeps only each
 * thread's stack of the ranges it pushed (NVTX ranges are per thread).  Ranges of named domains (libraries
 * annotate themselves that way) are not regions.  Start/end ranges
 * (nvtxRangeStartA/W/Ex and nvtxRangeEnd, nvtxDomainRangeStartEx/End with
 * the NULL domain) are regions too, opened at their start and marked ended
 * at their end, which may come on another thread: they belong to the
 * process, and this file keeps the open ones by NVTX's range id
 * (pc_nvtx_open).  At
 * most PC_RT_MAX_RANGES ranges become regions, so that a range per
 * iteration cannot grow the report or the capture's region table without
 * bound; later ones are counted in one warning.  Ranges are per thread (as
 * NVTX defines them) but regions are process-wide: a range tags the
 * launches of every thread while it is open.
 *
 * PERFCHECK_NVTX=NAME, PERFCHECK_NVTX_INCLUDE / _EXCLUDE (ncu's
 * --nvtx-include / --nvtx-exclude push/pop and start/end syntax,
 * lib/core/base/pc_nvtx_filter.h): counters only while some thread's range
 * stack, or the process's open start/end ranges, satisfy an include (or
 * there is none) and none satisfies an exclude; timing everywhere; other
 * launches say why they have no counters.  Each thread keeps the filter's
 * state per depth, computed at each push from its parent's; the start/end
 * verdict is computed at each start and end.
 *
 * The report is written exactly once, by pc_rt_finish: at exit (an atexit
 * handler registered after the CUDA runtime's own, so it runs first, while
 * contexts live; open ranges end there), or after SIGINT/SIGTERM (below).
 * A context being destroyed (cudaDeviceReset, cuCtxDestroy) first has its
 * activity flushed (CONTEXT_DESTROY_STARTING), and the attributes of its
 * kernels are read at module unload (pc_capture.c), so its data survives it.
 * After a kernel fault the session is inert and the report holds what was
 * collected.  _exit, abort and fatal signals write nothing.
 *
 * Signals: where SIGINT or SIGTERM has its default action at start-up, a
 * handler writes the signal number to a pipe (all it does: write is
 * async-signal-safe) and returns; a watcher thread reads it, writes the
 * report (the program runs on meanwhile, usually for milliseconds), restores
 * the default action and sends the signal again, so that the process dies
 * of it as it would have.  A second signal during that write kills at once.
 * A program with its own handler keeps it (and then usually exits through
 * atexit).
 *
 * fork: the child of an injected process does not report (its memory holds
 * the parent's session): it stops recording, restores the default signal
 * actions and writes nothing at its exit.  A child that execs starts afresh
 * (the environment still names the injection library).
 */
#define _GNU_SOURCE /* pipe2, secure_getenv */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "model/pc_config.h"
#include "model/pc_core.h"
#include "base/pc_nvtx_filter.h"
#include "base/pc_output.h"
#include "../gpu/pc_gpu.h" /* the only lib/gpu header here (ctest build.gpu_front_door) */
#include "../pc_session.h"
#include "pc_inject.h"

/* STARTING: the first context's callback is starting the session;
 * FINISHING: the report is being written (a second finish waits for it). */
enum { PC_RT_IDLE = 0, PC_RT_WAITING, PC_RT_STARTING, PC_RT_RUNNING, PC_RT_FINISHING, PC_RT_DONE };
enum { PC_RT_MAX_RANGES = 256, PC_RT_MAX_DEPTH = 64, PC_RT_NAME_MAX = 256 };

/* The runtime's process-wide state, all of it, beside its one lock.
 * `mu` guards the session pointer, the count of ranges that became
 * regions (with opening and ending those regions: lib/gpu's collector lock
 * is taken under it) and the open start/end ranges, and the state's moves
 * out of RUNNING and FINISHING;
 * `cv` wakes a finish that waits for another one to end.  `mu` is never
 * held across the session's start or its end.  The rest is set once before
 * any other thread can read it (opt, env, the signal pipe), atomic, or a
 * flag of a fork child. */
static struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  atomic_int state;                   /* PC_RT_* */
  perfcheck_options opt;              /* from the environment, at injection */
  pc_env_config env;
  perfcheck_session *session;
  volatile sig_atomic_t forked;       /* set in a fork child only */
  /* NVTX ranges */
  int nranges;                        /* ranges that became regions */
  uint64_t dropped;                   /* ranges past PC_RT_MAX_RANGES (or out of memory) */
  atomic_int accept;                  /* ranges are recorded */
  atomic_int nthreads_inc;            /* threads whose stack satisfies an include */
  atomic_int nthreads_exc;            /* threads whose stack satisfies an exclude */
  /* start/end ranges: the open ones, each with the region it opened (0
   * none); whether they satisfy a start/end include / exclude; and the
   * starts that could not be followed (CUPTI gave no range id, or
   * PC_NVTX_MAX_OPEN ranges were open already) */
  pc_nvtx_open open;
  atomic_int se_inc, se_exc;
  uint64_t se_lost;
  /* signals */
  int sigpipe[2];
  atomic_int sig_seen;
  int sig_ours[2];
} pc_rt = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER, .sigpipe = {-1, -1}};

/* Each thread's range stack: the region of each range it pushed, 0 for a
 * range that is not a region (dropped, or pushed before the session), and
 * the NVTX filter's state with that range on top; whether the thread's
 * current stack satisfies an include / an exclude (counted in pc_rt). */
static _Thread_local uint32_t pc_rt_tl_stack[PC_RT_MAX_DEPTH];
static _Thread_local pc_nvtx_state pc_rt_tl_filter[PC_RT_MAX_DEPTH];
static _Thread_local int pc_rt_tl_depth;
static _Thread_local int pc_rt_tl_inc, pc_rt_tl_exc;

static const int pc_rt_sigs[2] = {SIGINT, SIGTERM};

static void pc_rt_off(const char *why) { pc_say("profiling off: %s", why && *why ? why : "unknown reason"); }

/* ---- exit ------------------------------------------------------------------------------ */

/* The one line a run adds to the program's stderr: where the report is and
 * what it holds.  Its warnings (one per kernel, often) stay in the report;
 * PERFCHECK_VERBOSE=1 prints them as they come.  Nothing when the report
 * itself went to stderr (asked for, or after the writer's own line saying
 * why it could not write the file). */
static void pc_rt_summary(const char *where, const pc_session_summary *sum) {
  if (sum->delivered != 0 || !where || strcmp(where, "stderr") == 0) return;
  pc_say("%s%s: %zu kernel entr%s, %zu warning%s%s", strcmp(where, "-") == 0 ? "report on stdout" : "report in ",
         strcmp(where, "-") == 0 ? "" : where, sum->kernels, sum->kernels == 1 ? "y" : "ies", sum->warnings,
         sum->warnings == 1 ? "" : "s",
         sum->warnings && !pc_verbose() ? " (in the report; PERFCHECK_VERBOSE=1 or perfcheck run -v prints them)" : "");
}

/* Writes the report, once; from the exit handler or the signal watcher.
 * A second caller waits until the first one's report is written. */
static void pc_rt_finish(void) {
  pthread_mutex_lock(&pc_rt.mu);
  while (atomic_load(&pc_rt.state) == PC_RT_FINISHING) pthread_cond_wait(&pc_rt.cv, &pc_rt.mu);
  if (pc_rt.forked || atomic_load(&pc_rt.state) != PC_RT_RUNNING) {
    pthread_mutex_unlock(&pc_rt.mu);
    return;
  }
  atomic_store(&pc_rt.state, PC_RT_FINISHING);
  atomic_store(&pc_rt.accept, 0); /* no callback opens or ends a region from here */
  perfcheck_session *s = pc_rt.session;
  const uint64_t dropped = pc_rt.dropped, lost = pc_rt.se_lost;
  pthread_mutex_unlock(&pc_rt.mu);

  pc_session_mark_exit(); /* libraries may be unloaded by now: no attribute calls */
  pc_session_end_all(s); /* the recorded ranges, then the whole-program region */
  if (dropped) {
    char note[200];
    snprintf(note, sizeof note,
             "%llu NVTX ranges are not regions: at most %d ranges per process become regions (their launches "
             "count in the enclosing region)",
             (unsigned long long)dropped, PC_RT_MAX_RANGES);
    pc_session_note(s, note);
  }
  if (lost) {
    char note[240];
    snprintf(note, sizeof note,
             "%llu NVTX start/end ranges were not followed (CUPTI gave no range id at their start, or %d were open "
             "at once): they are no regions, and --nvtx-include/--nvtx-exclude did not see them",
             (unsigned long long)lost, PC_NVTX_MAX_OPEN);
    pc_session_note(s, note);
  }
  /* The process is ending: CUPTI stays subscribed (inactive), because
   * libraries still emit NVTX ranges and launch kernels while they tear
   * down (cuBLAS and cuDNN handles, PyTorch's caches), and CUPTI's handlers
   * must not run without a subscriber (a PyTorch corpus script died at exit
   * in libcupti when perfcheck unsubscribed first). */
  pc_session_keep_cupti_at_exit();
  char *where = pc_output_expand(pc_rt.opt.output, NULL); /* as the writer expands it */
  pc_session_summary sum;
  pc_session_destroy_summary(s, &sum); /* writes the report (opt.output) */
  pc_rt_summary(where, &sum);
  free(where);
  pthread_mutex_lock(&pc_rt.mu);
  pc_rt.session = NULL;
  atomic_store(&pc_rt.state, PC_RT_DONE);
  pthread_cond_broadcast(&pc_rt.cv);
  pthread_mutex_unlock(&pc_rt.mu);
}

static void pc_rt_atexit(void) { pc_rt_finish(); }

/* Registered at injection: CUDA was initialized but no context ever came. */
static void pc_rt_atexit_waiting(void) {
  if (!pc_rt.forked && atomic_load(&pc_rt.state) == PC_RT_WAITING)
    pc_rt_off("the program created no CUDA context, so no kernel ran");
}

static void pc_rt_on_signal(int sig) {
  const int saved = errno;
  int first = atomic_exchange(&pc_rt.sig_seen, sig) == 0;
  unsigned char b = (unsigned char)sig;
  if (!first || write(pc_rt.sigpipe[1], &b, 1) != 1) { /* a second signal: no more waiting */
    signal(sig, SIG_DFL);
    raise(sig);
  }
  errno = saved;
}

static void *pc_rt_watch(void *arg) {
  (void)arg;
  unsigned char b = 0;
  ssize_t n;
  do n = read(pc_rt.sigpipe[0], &b, 1);
  while (n < 0 && errno == EINTR);
  if (n != 1) return NULL;
  pc_rt_finish();
  signal(b, SIG_DFL);
  kill(getpid(), b); /* this thread blocks every signal: another thread takes it, and the process dies of it */
  return NULL;
}

/* Handlers only where the program has none (the default action). */
static void pc_rt_install_signals(void) {
  struct sigaction cur;
  int want = 0;
  for (int i = 0; i < 2; i++)
    if (sigaction(pc_rt_sigs[i], NULL, &cur) == 0 && !(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_DFL)
      want |= 1 << i;
  if (!want || pipe2(pc_rt.sigpipe, O_CLOEXEC) != 0) return;
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old); /* the watcher inherits it */
  pthread_t t;
  int rc = pthread_create(&t, NULL, pc_rt_watch, NULL);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (rc != 0) {
    close(pc_rt.sigpipe[0]);
    close(pc_rt.sigpipe[1]);
    pc_rt.sigpipe[0] = pc_rt.sigpipe[1] = -1;
    return;
  }
  pthread_detach(t);
  for (int i = 0; i < 2; i++) {
    if (!(want & (1 << i))) continue;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = pc_rt_on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    pc_rt.sig_ours[i] = sigaction(pc_rt_sigs[i], &sa, NULL) == 0;
  }
}

static void pc_rt_fork_child(void) {
  pc_rt.forked = 1;
  atomic_store(&pc_rt.accept, 0);
  pc_gpu_fork_child();
  for (int i = 0; i < 2; i++) {
    struct sigaction cur;
    if (pc_rt.sig_ours[i] && sigaction(pc_rt_sigs[i], NULL, &cur) == 0 && cur.sa_handler == pc_rt_on_signal)
      signal(pc_rt_sigs[i], SIG_DFL);
  }
}

/* ---- NVTX callbacks ------------------------------------------------------------------ */

static int pc_rt_gate(void) {
  const pc_nvtx_filter *f = pc_rt.env.nvtx_filter;
  return (!f || f->ninclude == 0 || atomic_load(&pc_rt.nthreads_inc) > 0 || atomic_load(&pc_rt.se_inc)) &&
         atomic_load(&pc_rt.nthreads_exc) == 0 && !atomic_load(&pc_rt.se_exc);
}

/* The filter's verdict for this thread's stack now (depth ranges, the top
 * one's state at depth - 1), into the process-wide counts. */
static void pc_rt_filter_update(int depth) {
  const pc_nvtx_filter *f = pc_rt.env.nvtx_filter;
  if (!f || depth > PC_RT_MAX_DEPTH) return;
  pc_nvtx_state empty;
  const pc_nvtx_state *top = depth > 0 ? &pc_rt_tl_filter[depth - 1] : (pc_nvtx_state_empty(f, &empty), &empty);
  const int inc = f->ninclude > 0 && pc_nvtx_state_included(f, top), exc = pc_nvtx_state_excluded(f, top);
  if (inc != pc_rt_tl_inc) atomic_fetch_add(&pc_rt.nthreads_inc, inc ? 1 : -1);
  if (exc != pc_rt_tl_exc) atomic_fetch_add(&pc_rt.nthreads_exc, exc ? 1 : -1);
  pc_rt_tl_inc = inc;
  pc_rt_tl_exc = exc;
}

static void pc_rt_push(const char *name) {
  const int depth = pc_rt_tl_depth++;
  if (depth >= PC_RT_MAX_DEPTH) return;
  pc_rt_tl_stack[depth] = 0;
  const pc_nvtx_filter *f = pc_rt.env.nvtx_filter;
  if (f) { /* the filter sees every range of the thread, regions or not */
    pc_nvtx_state empty;
    const pc_nvtx_state *parent =
        depth > 0 ? &pc_rt_tl_filter[depth - 1] : (pc_nvtx_state_empty(f, &empty), &empty);
    pc_nvtx_state_push(f, parent, name, &pc_rt_tl_filter[depth]);
    pc_rt_filter_update(depth + 1);
  }
  if (!atomic_load(&pc_rt.accept)) return;
  pthread_mutex_lock(&pc_rt.mu);
  if (!atomic_load(&pc_rt.accept)) { /* the report is being written */
    pthread_mutex_unlock(&pc_rt.mu);
    return;
  }
  const uint32_t id = pc_rt.nranges < PC_RT_MAX_RANGES ? pc_gpu_region_open(name, PC_RG_RECORDED) : 0;
  if (!id) {
    pc_rt.dropped++;
  } else {
    pc_rt.nranges++;
    pc_rt_tl_stack[depth] = id;
  }
  pthread_mutex_unlock(&pc_rt.mu);
}

static void pc_rt_pop(void) {
  if (pc_rt_tl_depth == 0) return; /* a pop without its push (or pushed before we started) */
  const int depth = --pc_rt_tl_depth;
  if (depth >= PC_RT_MAX_DEPTH) return;
  pc_rt_filter_update(depth);
  const uint32_t id = pc_rt_tl_stack[depth];
  if (!id) return;
  pthread_mutex_lock(&pc_rt.mu);
  if (atomic_load(&pc_rt.accept)) pc_gpu_region_mark_end(id); /* launches go to the enclosing region from now on */
  pthread_mutex_unlock(&pc_rt.mu);
}

/* The filter's verdict on the open start/end ranges; pc_rt.mu held. */
static void pc_rt_startend_update_locked(void) {
  const pc_nvtx_filter *f = pc_rt.env.nvtx_filter;
  atomic_store(&pc_rt.se_inc, f && pc_nvtx_open_included(f, &pc_rt.open));
  atomic_store(&pc_rt.se_exc, f && pc_nvtx_open_excluded(f, &pc_rt.open));
}

/* A start/end range starts: a region (as a push's), and an open range the
 * filter sees until its end, on whichever thread that comes. */
static void pc_rt_se_start(uint64_t id, const char *name) {
  pthread_mutex_lock(&pc_rt.mu);
  uint32_t region = 0;
  if (id == 0) { /* no id to match its end with */
    pc_rt.se_lost++;
    pthread_mutex_unlock(&pc_rt.mu);
    return;
  }
  if (atomic_load(&pc_rt.accept)) {
    region = pc_rt.nranges < PC_RT_MAX_RANGES ? pc_gpu_region_open(name, PC_RG_RECORDED) : 0;
    if (!region)
      pc_rt.dropped++;
    else
      pc_rt.nranges++;
  }
  if (pc_nvtx_open_start(&pc_rt.open, id, name, region) != 0) {
    pc_rt.se_lost++;
    if (region) pc_gpu_region_mark_end(region); /* nothing would end it later */
  }
  pc_rt_startend_update_locked();
  pthread_mutex_unlock(&pc_rt.mu);
}

static void pc_rt_se_end(uint64_t id) {
  pthread_mutex_lock(&pc_rt.mu);
  uint32_t region = 0;
  if (pc_nvtx_open_end(&pc_rt.open, id, &region)) { /* else a range started before us, or not followed */
    if (region && atomic_load(&pc_rt.accept)) pc_gpu_region_mark_end(region);
    pc_rt_startend_update_locked();
  }
  pthread_mutex_unlock(&pc_rt.mu);
}

/* NVTX push/pop and start/end of the default domain, decoded by lib/gpu
 * (pc_gpu.h). */
static void pc_rt_range_push(const char *name) {
  if (!pc_rt.forked) pc_rt_push(name);
}
static void pc_rt_range_pop(void) {
  if (!pc_rt.forked) pc_rt_pop();
}
static void pc_rt_range_start(uint64_t id, const char *name) {
  if (!pc_rt.forked) pc_rt_se_start(id, name);
}
static void pc_rt_range_end(uint64_t id) {
  if (!pc_rt.forked) pc_rt_se_end(id);
}

/* ---- start-up ---------------------------------------------------------------------- */

static void pc_rt_program_name(char *out, size_t len) {
  char path[4096];
  ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) {
    snprintf(out, len, "%s", "program");
    return;
  }
  path[n] = '\0';
  const char *base = strrchr(path, '/');
  base = base && base[1] ? base + 1 : path;
  const size_t n2 = strlen(base) < len ? strlen(base) : len - 1;
  memcpy(out, base, n2);
  out[n2] = '\0';
}

static void pc_rt_context_destroying(void) {
  /* Its kernel records must be in before it goes (they are decoded into the
   * store and stay there until their region ends). */
  if (atomic_load(&pc_rt.state) == PC_RT_RUNNING && !pc_rt.forked) pc_gpu_flush_activity();
}

/* The session, NVTX ranges as regions and the whole-program region; 1 when
 * all is running, 0 (after the one "profiling off" line) when not. */
static int pc_rt_start(void) {
  /* A program that links libperfcheck and made its own session first keeps
   * it (one session per process).  The lock is only tried: this callback may
   * run inside that program's perfcheck_session_create. */
  int busy = 0;
  if (pc_session_current_try(&busy) || busy) {
    pc_rt_off("the program runs its own perfcheck session");
    return 0;
  }
  perfcheck_session *s = NULL;
  perfcheck_status st = pc_session_startup(&pc_rt.opt, &s);
  if (st != PERFCHECK_OK || !s) {
    const char *m = perfcheck_last_error_message();
    pc_rt_off(m && *m ? m : perfcheck_strerror(st));
    return 0;
  }
  pthread_mutex_lock(&pc_rt.mu);
  pc_rt.session = s;
  pthread_mutex_unlock(&pc_rt.mu);
  pc_err e;
  if (pc_gpu_nvtx_enable(1, &e) != PERFCHECK_OK) {
    pc_err note;
    pc_err_set(&note, e.status, "NVTX ranges are not regions: %s", e.msg);
    pc_session_note(s, note.msg);
  }
  if (pc_rt.env.nvtx_filter) pc_gpu_set_counter_gate(pc_rt_gate);
  char prog[256];
  pc_rt_program_name(prog, sizeof prog);
  if (pc_session_begin_program(s, prog) != PERFCHECK_OK) {
    /* Out of memory: nothing can be recorded.  The session stays attached
     * (detaching inside this callback is not safe) but idle. */
    pc_gpu_quiesce();
    pc_rt_off(perfcheck_last_error_message());
    return 0;
  }
  return 1;
}

/* The first context creation: the driver is initialized now.  One thread
 * starts the session (a context made meanwhile, on this thread by the start
 * itself or on another, finds it STARTING and goes on). */
static void pc_rt_context_created(void) {
  int waiting = PC_RT_WAITING;
  if (!atomic_compare_exchange_strong(&pc_rt.state, &waiting, PC_RT_STARTING)) return;
  const int running = pc_rt_start();
  pthread_mutex_lock(&pc_rt.mu);
  if (running) atomic_store(&pc_rt.accept, 1);
  atomic_store(&pc_rt.state, running ? PC_RT_RUNNING : PC_RT_DONE);
  pthread_mutex_unlock(&pc_rt.mu);
  if (!running) return;
  /* Registered now, after the CUDA runtime registered its own teardown, so
   * that it runs before it (atexit runs in reverse order). */
  atexit(pc_rt_atexit);
  pc_rt_install_signals();
}

/* The two symbols libperfcheck.so exports for the loader (perfcheck.map). */
__attribute__((visibility("default"))) int pc_inject_initialize(int abi);
__attribute__((visibility("default"))) int pc_inject_nvtx_initialize(int abi, int nvtx_version, void *get_export_table);

/* NVTX's tool initialization, forwarded to the CUPTI this library loads
 * (libperfcheck has no link to libcupti: pc_cupti.h).  CUPTI's NVTX
 * handlers must never run while CUPTI has no subscriber: on the H200 a
 * PyTorch script whose first NVTX range came before CUPTI was set up (under
 * cuda-gdb, which takes CUDA_INJECTION64_PATH for itself) died in
 * libcupti at that range.  So the runtime's CUPTI part starts here first
 * (pc_inject_initialize is idempotent; the driver's InitializeInjection
 * then finds it done), and NVTX stays without a tool when it cannot. */
int pc_inject_nvtx_initialize(int abi, int nvtx_version, void *get_export_table) {
  if (abi != PC_INJECT_ABI) return 0;
  pc_inject_initialize(abi);
  const int st = atomic_load(&pc_rt.state);
  if (st != PC_RT_WAITING && st != PC_RT_STARTING && st != PC_RT_RUNNING) return 0;
  return pc_gpu_nvtx_initialize(nvtx_version, get_export_table);
}

int pc_inject_initialize(int abi) {
  if (abi != PC_INJECT_ABI) {
    char why[160];
    snprintf(why, sizeof why, "libperfcheck_inject.so and libperfcheck.so are from different builds (ABI %d, %d)",
             abi, PC_INJECT_ABI);
    pc_rt_off(why);
    return 1;
  }
  int idle = PC_RT_IDLE;
  if (!atomic_compare_exchange_strong(&pc_rt.state, &idle, PC_RT_WAITING)) return 1;
  if (pc_output_privileged()) { /* setuid, setgid, capabilities: nobody's environment configures it */
    atomic_store(&pc_rt.state, PC_RT_DONE);
    pc_rt_off("this process runs with privileges its user does not have (setuid, setgid or file capabilities)");
    return 1;
  }
  /* The first CUDA process of a run is its root, unless `perfcheck run`
   * named one: the others write PATH.PID (pc_output.h). */
  if (!secure_getenv("PERFCHECK_ROOT_PID")) {
    char pid[32];
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    setenv("PERFCHECK_ROOT_PID", pid, 0);
  }
  pc_config_from_env(&pc_rt.opt, &pc_rt.env, stderr);
  pc_rt.opt.emit_nvtx = 0; /* our own ranges would come back through the NVTX callbacks */
  /* A file by default, so that a run adds one line to the program's stderr
   * (pc_rt_summary), not the report. */
  if (!pc_rt.opt.output) pc_rt.opt.output = pc_config_default_output(pc_rt.opt.output_format);
  pthread_atfork(NULL, NULL, pc_rt_fork_child);
  /* CUPTI's own part now, before any context exists (as NVIDIA's injection
   * samples do); pc_session_startup finds both already on. */
  const pc_gpu_inject_hooks hooks = {pc_rt_context_created, pc_rt_context_destroying, pc_rt_range_push,
                                     pc_rt_range_pop, pc_rt_range_start, pc_rt_range_end};
  pc_err e;
  if (pc_gpu_inject_start(&hooks, &e) != PERFCHECK_OK) {
    atomic_store(&pc_rt.state, PC_RT_DONE);
    pc_rt_off(e.msg);
    return 1;
  }
  /* The counter layer's host library loads while the driver creates the
   * first context (the session starts at its creation, pc_rt_context_created). */
  if (pc_rt.opt.mode != PERFCHECK_MODE_TIMING) pc_gpu_counters_preload();
  atexit(pc_rt_atexit_waiting);
  return 1;
}
