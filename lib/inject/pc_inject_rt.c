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
 * NULL domain, which nvtx3's C++ scoped ranges use) are recorded, not ended
 * there: a push opens a region on the one region stack at once (launches
 * from then on are tagged with it, its begin marks taken); a pop marks its
 * end.  Region ends synchronize contexts and flush activity, which a CUPTI
 * callback must not do, so the ranges end in the session at a safe point
 * (exit, or the signal watcher), innermost first, each with its recorded
 * interval (pc_session_end_all, pc_session.h).  This file keeps only each
 * thread's stack of the ranges it pushed (NVTX ranges are per thread).  Ranges of named domains (libraries
 * annotate themselves that way) and start/end ranges are not regions.  At
 * most PC_RT_MAX_RANGES ranges become regions, so that a range per
 * iteration cannot grow the report or the capture's region table without
 * bound; later ones are counted in one warning.  Ranges are per thread (as
 * NVTX defines them) but regions are process-wide: a range tags the
 * launches of every thread while it is open.
 *
 * PERFCHECK_NVTX=NAME: counters only while a range of that name is open (on
 * any thread), timing everywhere; other launches say why they have no
 * counters.
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
#include <cupti.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
/* nvtx3's header-only loader reads NVTX_INJECTION64_PATH with getenv: in a
 * privileged process (AT_SECURE) no variable may name a library to load. */
#define getenv secure_getenv
#include <generated_nvtx_meta.h>
#undef getenv
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "../core/pc_config.h"
#include "../core/pc_core.h"
#include "../core/pc_output.h"
#include "../gpu/pc_activity.h"
#include "../gpu/pc_call.h"
#include "../gpu/pc_capture.h"
#include "../gpu/pc_cupti.h"
#include "../pc_session.h"
#include "pc_inject.h"

enum { PC_RT_IDLE = 0, PC_RT_WAITING, PC_RT_RUNNING, PC_RT_DONE };
enum { PC_RT_MAX_RANGES = 256, PC_RT_MAX_DEPTH = 64, PC_RT_NAME_MAX = 256 };

static atomic_int pc_rt_state;
static pthread_mutex_t pc_rt_start_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t pc_rt_finish_mu = PTHREAD_MUTEX_INITIALIZER;
static perfcheck_options pc_rt_opt;
static pc_env_config pc_rt_env;
static perfcheck_session *pc_rt_session;
static volatile sig_atomic_t pc_rt_forked; /* set in a fork child only */

/* ---- NVTX ranges ------------------------------------------------------------------- */

static pthread_mutex_t pc_rt_nvtx_mu = PTHREAD_MUTEX_INITIALIZER;
static int pc_rt_nranges;                /* ranges that became regions */
static uint64_t pc_rt_dropped;           /* ranges past PC_RT_MAX_RANGES (or out of memory) */
static atomic_int pc_rt_accept;          /* ranges are recorded */
static atomic_int pc_rt_gate_open;       /* PERFCHECK_NVTX ranges open now */

/* Each thread's range stack: the region of each range it pushed, 0 for a
 * range that is not a region (dropped, or pushed before the session), and
 * whether it is a PERFCHECK_NVTX range. */
static _Thread_local uint32_t pc_rt_tl_stack[PC_RT_MAX_DEPTH];
static _Thread_local unsigned char pc_rt_tl_gated[PC_RT_MAX_DEPTH];
static _Thread_local int pc_rt_tl_depth;

/* ---- signals ------------------------------------------------------------------------- */

static int pc_rt_sigpipe[2] = {-1, -1};
static atomic_int pc_rt_sig_seen;
static const int pc_rt_sigs[2] = {SIGINT, SIGTERM};
static int pc_rt_sig_ours[2];

static void pc_rt_off(const char *why) {
  fprintf(stderr, "perfcheck: profiling off: %s\n", why && *why ? why : "unknown reason");
  fflush(stderr);
}

/* ---- exit ------------------------------------------------------------------------------ */

/* Writes the report, once; from the exit handler or the signal watcher. */
static void pc_rt_finish(void) {
  pthread_mutex_lock(&pc_rt_finish_mu);
  if (pc_rt_forked || atomic_load(&pc_rt_state) != PC_RT_RUNNING) {
    pthread_mutex_unlock(&pc_rt_finish_mu);
    return;
  }
  perfcheck_session *s = pc_rt_session;
  pthread_mutex_lock(&pc_rt_nvtx_mu);
  atomic_store(&pc_rt_accept, 0); /* no callback opens or ends a region from here */
  const uint64_t dropped = pc_rt_dropped;
  pthread_mutex_unlock(&pc_rt_nvtx_mu);

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
  /* The process is ending: CUPTI stays subscribed (inactive), because
   * libraries still emit NVTX ranges and launch kernels while they tear
   * down (cuBLAS and cuDNN handles, PyTorch's caches), and CUPTI's handlers
   * must not run without a subscriber (a PyTorch corpus script died at exit
   * in libcupti on the H200 when perfcheck unsubscribed first). */
  pc_session_keep_cupti_at_exit();
  perfcheck_session_destroy(s); /* writes the report (opt.output) */
  pc_rt_session = NULL;
  atomic_store(&pc_rt_state, PC_RT_DONE);
  pthread_mutex_unlock(&pc_rt_finish_mu);
}

static void pc_rt_atexit(void) { pc_rt_finish(); }

/* Registered at injection: CUDA was initialized but no context ever came. */
static void pc_rt_atexit_waiting(void) {
  if (!pc_rt_forked && atomic_load(&pc_rt_state) == PC_RT_WAITING)
    pc_rt_off("the program created no CUDA context, so no kernel ran");
}

static void pc_rt_on_signal(int sig) {
  const int saved = errno;
  int first = atomic_exchange(&pc_rt_sig_seen, sig) == 0;
  unsigned char b = (unsigned char)sig;
  if (!first || write(pc_rt_sigpipe[1], &b, 1) != 1) { /* a second signal: no more waiting */
    signal(sig, SIG_DFL);
    raise(sig);
  }
  errno = saved;
}

static void *pc_rt_watch(void *arg) {
  (void)arg;
  unsigned char b = 0;
  ssize_t n;
  do n = read(pc_rt_sigpipe[0], &b, 1);
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
  if (!want || pipe2(pc_rt_sigpipe, O_CLOEXEC) != 0) return;
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old); /* the watcher inherits it */
  pthread_t t;
  int rc = pthread_create(&t, NULL, pc_rt_watch, NULL);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (rc != 0) {
    close(pc_rt_sigpipe[0]);
    close(pc_rt_sigpipe[1]);
    pc_rt_sigpipe[0] = pc_rt_sigpipe[1] = -1;
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
    pc_rt_sig_ours[i] = sigaction(pc_rt_sigs[i], &sa, NULL) == 0;
  }
}

static void pc_rt_fork_child(void) {
  pc_rt_forked = 1;
  atomic_store(&pc_rt_accept, 0);
  pc_capture_set_active(0);
  for (int i = 0; i < 2; i++) {
    struct sigaction cur;
    if (pc_rt_sig_ours[i] && sigaction(pc_rt_sigs[i], NULL, &cur) == 0 && cur.sa_handler == pc_rt_on_signal)
      signal(pc_rt_sigs[i], SIG_DFL);
  }
}

/* ---- NVTX callbacks ------------------------------------------------------------------ */

static int pc_rt_gate(void) { return atomic_load(&pc_rt_gate_open) > 0; }

static void pc_rt_wide_name(const wchar_t *w, char *out, size_t len) {
  size_t n = 0;
  for (; w && *w && n + 4 < len; w++) {
    unsigned long c = (unsigned long)*w;
    if (c < 0x80) {
      out[n++] = (char)c;
    } else if (c < 0x800) {
      out[n++] = (char)(0xC0 | (c >> 6));
      out[n++] = (char)(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out[n++] = (char)(0xE0 | (c >> 12));
      out[n++] = (char)(0x80 | ((c >> 6) & 0x3F));
      out[n++] = (char)(0x80 | (c & 0x3F));
    } else if (c < 0x110000) {
      out[n++] = (char)(0xF0 | (c >> 18));
      out[n++] = (char)(0x80 | ((c >> 12) & 0x3F));
      out[n++] = (char)(0x80 | ((c >> 6) & 0x3F));
      out[n++] = (char)(0x80 | (c & 0x3F));
    } else {
      out[n++] = '?';
    }
  }
  out[n] = '\0';
}

static void pc_rt_attr_name(const nvtxEventAttributes_t *a, char *out, size_t len) {
  if (!a) {
    snprintf(out, len, "%s", "(unnamed range)");
  } else if (a->messageType == NVTX_MESSAGE_TYPE_ASCII && a->message.ascii) {
    snprintf(out, len, "%s", a->message.ascii);
  } else if (a->messageType == NVTX_MESSAGE_TYPE_UNICODE && a->message.unicode) {
    pc_rt_wide_name(a->message.unicode, out, len);
  } else if (a->messageType == NVTX_MESSAGE_TYPE_REGISTERED) {
    snprintf(out, len, "%s", "(registered string)"); /* the handle's text is not tracked */
  } else {
    snprintf(out, len, "%s", "(unnamed range)");
  }
}

static void pc_rt_push(const char *name) {
  const int depth = pc_rt_tl_depth++;
  if (depth >= PC_RT_MAX_DEPTH) return;
  pc_rt_tl_stack[depth] = 0;
  pc_rt_tl_gated[depth] = 0;
  if (!atomic_load(&pc_rt_accept)) return;
  pthread_mutex_lock(&pc_rt_nvtx_mu);
  if (!atomic_load(&pc_rt_accept)) { /* the report is being written */
    pthread_mutex_unlock(&pc_rt_nvtx_mu);
    return;
  }
  const uint32_t id = pc_rt_nranges < PC_RT_MAX_RANGES ? pc_gpu_region_open(name, PC_RG_RECORDED) : 0;
  if (!id) {
    pc_rt_dropped++;
  } else {
    pc_rt_nranges++;
    pc_rt_tl_stack[depth] = id;
    pc_rt_tl_gated[depth] = (unsigned char)pc_config_nvtx_match(&pc_rt_env, name); /* the name, or regex:EXPR */
    if (pc_rt_tl_gated[depth]) atomic_fetch_add(&pc_rt_gate_open, 1);
  }
  pthread_mutex_unlock(&pc_rt_nvtx_mu);
}

static void pc_rt_pop(void) {
  if (pc_rt_tl_depth == 0) return; /* a pop without its push (or pushed before we started) */
  const int depth = --pc_rt_tl_depth;
  if (depth >= PC_RT_MAX_DEPTH) return;
  const uint32_t id = pc_rt_tl_stack[depth];
  if (!id) return;
  pthread_mutex_lock(&pc_rt_nvtx_mu);
  if (atomic_load(&pc_rt_accept)) {
    pc_gpu_region_mark_end(id); /* launches go to the enclosing region from now on */
    if (pc_rt_tl_gated[depth]) atomic_fetch_sub(&pc_rt_gate_open, 1);
  }
  pthread_mutex_unlock(&pc_rt_nvtx_mu);
}

static void pc_rt_on_nvtx(uint32_t cbid, const void *data) {
  if (pc_rt_forked) return;
  const CUpti_NvtxData *d = data;
  const void *p = d ? d->functionParams : NULL;
  char name[PC_RT_NAME_MAX];
  switch (cbid) {
    case CUPTI_CBID_NVTX_nvtxRangePushA: {
      const nvtxRangePushA_params *q = p;
      snprintf(name, sizeof name, "%s", q && q->message ? q->message : "(unnamed range)");
      pc_rt_push(name);
      break;
    }
    case CUPTI_CBID_NVTX_nvtxRangePushW: {
      const nvtxRangePushW_params *q = p;
      if (q && q->message)
        pc_rt_wide_name(q->message, name, sizeof name);
      else
        snprintf(name, sizeof name, "%s", "(unnamed range)");
      pc_rt_push(name);
      break;
    }
    case CUPTI_CBID_NVTX_nvtxRangePushEx: {
      const nvtxRangePushEx_params *q = p;
      pc_rt_attr_name(q ? q->eventAttrib : NULL, name, sizeof name);
      pc_rt_push(name);
      break;
    }
    case CUPTI_CBID_NVTX_nvtxDomainRangePushEx: {
      const nvtxDomainRangePushEx_params *q = p;
      if (!q || q->domain) return; /* a named domain: a library's own ranges, its own stack */
      pc_rt_attr_name(q->core.eventAttrib, name, sizeof name);
      pc_rt_push(name);
      break;
    }
    case CUPTI_CBID_NVTX_nvtxRangePop:
      pc_rt_pop();
      break;
    case CUPTI_CBID_NVTX_nvtxDomainRangePop: {
      const nvtxDomainRangePop_params *q = p;
      if (q && q->domain) return;
      pc_rt_pop();
      break;
    }
    default:
      break;
  }
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

static void pc_rt_context_destroying(CUcontext ctx) {
  (void)ctx;
  /* Its kernel records must be in before it goes (they are decoded into the
   * store and stay there until their region ends). */
  if (atomic_load(&pc_rt_state) == PC_RT_RUNNING && !pc_rt_forked) pc_activity_flush(1);
}

/* The first context creation: the driver is initialized now. */
static void pc_rt_context_created(CUcontext ctx) {
  (void)ctx;
  if (atomic_load(&pc_rt_state) != PC_RT_WAITING) return;
  pthread_mutex_lock(&pc_rt_start_mu);
  if (atomic_load(&pc_rt_state) != PC_RT_WAITING) {
    pthread_mutex_unlock(&pc_rt_start_mu);
    return;
  }
  atomic_store(&pc_rt_state, PC_RT_DONE); /* unless all goes well below */
  /* A program that links libperfcheck and made its own session first keeps
   * it (one session per process).  The lock is only tried: this callback may
   * run inside that program's perfcheck_session_create. */
  int busy = 0;
  if (pc_session_current_try(&busy) || busy) {
    pc_rt_off("the program runs its own perfcheck session");
    pthread_mutex_unlock(&pc_rt_start_mu);
    return;
  }
  perfcheck_session *s = NULL;
  perfcheck_status st = pc_session_startup(&pc_rt_opt, &s);
  if (st != PERFCHECK_OK || !s) {
    const char *m = perfcheck_last_error_message();
    pc_rt_off(m && *m ? m : perfcheck_strerror(st));
    pthread_mutex_unlock(&pc_rt_start_mu);
    return;
  }
  pc_rt_session = s;
  pc_err e;
  if (pc_capture_set_nvtx_hook(pc_rt_on_nvtx, &e) != PERFCHECK_OK) {
    char note[800];
    snprintf(note, sizeof note, "NVTX ranges are not regions: %s", e.msg);
    pc_session_note(s, note);
  }
  if (pc_rt_env.nvtx_include) pc_capture_set_counter_gate(pc_rt_gate);
  char prog[256];
  pc_rt_program_name(prog, sizeof prog);
  if (pc_session_begin_program(s, prog) != PERFCHECK_OK) {
    /* Out of memory: nothing can be recorded.  The session stays attached
     * (detaching inside this callback is not safe) but idle. */
    pc_capture_set_active(0);
    pc_rt_off(perfcheck_last_error_message());
    pthread_mutex_unlock(&pc_rt_start_mu);
    return;
  }
  atomic_store(&pc_rt_accept, 1);
  atomic_store(&pc_rt_state, PC_RT_RUNNING);
  /* Registered now, after the CUDA runtime registered its own teardown, so
   * that it runs before it (atexit runs in reverse order). */
  atexit(pc_rt_atexit);
  pc_rt_install_signals();
  pthread_mutex_unlock(&pc_rt_start_mu);
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
  if (pc_cupti_load(NULL) != PERFCHECK_OK) return 0;
  pc_inject_initialize(abi);
  const int st = atomic_load(&pc_rt_state);
  if (st != PC_RT_WAITING && st != PC_RT_RUNNING) return 0;
  int (*init)(void *) = nvtx_version == 2 ? pc_cupti.cuptiNvtxInitialize2 : pc_cupti.cuptiNvtxInitialize;
  if (!init) return 0;
  uint32_t v = 0;
  (void)PC_CUPTI(NULL, cuptiGetVersion, &v); /* a CUPTI call before NVTX's: CUPTI 13.0 GA crashed otherwise (13.0 Update 1 fixed it) */
  return init(get_export_table) == 0; /* CUPTI_SUCCESS */
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
  if (!atomic_compare_exchange_strong(&pc_rt_state, &idle, PC_RT_WAITING)) return 1;
  if (pc_output_privileged()) { /* setuid, setgid, capabilities: nobody's environment configures it */
    atomic_store(&pc_rt_state, PC_RT_DONE);
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
  pc_config_from_env(&pc_rt_opt, &pc_rt_env, stderr);
  pc_rt_opt.emit_nvtx = 0; /* our own ranges would come back through the NVTX callbacks */
  if (!pc_rt_opt.output) pc_rt_opt.output = "stderr";
  pc_capture_set_context_hooks(pc_rt_context_created, pc_rt_context_destroying);
  pthread_atfork(NULL, NULL, pc_rt_fork_child);
  /* CUPTI's own part now, before any context exists (as NVIDIA's injection
   * samples do); pc_session_startup finds both already on. */
  pc_err e;
  int started = 0;
  if (pc_capture_start(&e) != PERFCHECK_OK || (started = 1, pc_activity_start(&e)) != PERFCHECK_OK) {
    if (started) pc_capture_stop(); /* the one undo path */
    pc_capture_set_context_hooks(NULL, NULL);
    atomic_store(&pc_rt_state, PC_RT_DONE);
    pc_rt_off(e.msg);
    return 1;
  }
  atexit(pc_rt_atexit_waiting);
  return 1;
}
