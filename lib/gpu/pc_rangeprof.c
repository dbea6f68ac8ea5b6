/*
 * pc_rangeprof.c: the target side of the counter layer (see pc_rangeprof.h).
 *
 * Each profiled launch is one short range-profiler session on its context:
 * ENTER does SetConfig (auto range, kernel replay, one range) and Start;
 * CUPTI replays the kernel once per pass inside the launch call; EXIT does
 * Stop, Decode, evaluates the one range and re-initializes the counter data
 * image for the next launch.  Rotation (PERFCHECK_REPLAY=rotate) profiles
 * a launch with one group's one-pass config instead, under auto range and
 * kernel replay of that one pass (the kernel runs once; a user range with
 * user replay under PERFCHECK_ROTATE_RANGE=user); a context whose replay
 * mode or config changes gets a fresh profiler object
 * (pc_rp_on_launch_enter, docs/cupti.md §15).  A graph launch is always
 * profiled under a user range with user replay, in every replay mode
 * (issue 21 item 4: auto range with kernel replay broke a graph on the
 * H200): one group per graph launch, the range around the whole launch, its
 * counters the sum over the graph's kernels (docs/cupti.md §16).  A user
 * range returns the SASS-patched metrics as 0 (H200, 2026-12-02), so they
 * are left null there.
 *
 * State: one host object and config image per chip (built at the first
 * profiled launch on a context of that chip, with that context's counter
 * availability image); one range-profiler object and counter data image per
 * context, enabled at its first profiled launch.  At most one context per
 * device is enabled at a time (NVIDIA's injection sample does the same): a
 * launch on another context of the device disables the previous one first.
 *
 * Locking: rp->lock is borrowed, the collector's one lock (pc_collector.h):
 * here it guards the lists and the status, is taken after the launch gate
 * and is never held across a CUPTI call.  The launch hooks rely on the
 * collector's launch gate: no two profiled launches run at once, so a
 * context's CUPTI objects are only touched by one thread at a time.  A
 * context's profiler object changes hands under rp->lock (taken out of the
 * entry, then disabled outside the lock), so context destruction on another
 * thread cannot disable it twice.  A launch's result goes straight back to
 * the caller of the EXIT hook (the collector keeps it with the launch).
 *
 * Seen on the H200 (CUPTI 13.0U1, driver 580.159.04, a throwaway harness
 * driving these hooks from cuLaunchKernel callbacks): SetConfig before every
 * Start works on the same object; the replay completes inside the launch
 * call, so EXIT decodes exactly one range; sectors, requests (through the
 * substitutes), FFMA/FMUL counts, L2 red requests and threads per
 * instruction equalled ncu's exactly; a replayed atomicAdd ran once.  Two
 * things this layer cannot fix and the callers must know: (1) a kernel
 * launched by another thread between ENTER and EXIT took the range instead
 * of the profiled one, silently (one range, none dropped): the capture
 * layer's exclusive launch lock is what makes the first range ours;
 * (2) activity records of profiled kernels carry start = end = 0: their
 * duration is gpu__time_duration.sum, not the activity record's.
 *
 * Progress: kernel replay runs every pass inside the launch call, so passes
 * cannot be reported one by one; with `progress` (or PERFCHECK_PROGRESS=1)
 * each profiled launch says one line before its replay, through the
 * session's `say` (pc_gpu.h; it reaches stderr as
 *   perfcheck: profiling kernel 3 (scaleAdd<4>): 4 passes).
 */
#define _GNU_SOURCE /* secure_getenv */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cupti_activity.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include "pc_cuda.h"
#include "pc_funcinfo.h"
#include "pc_rp_internal.h"
#include "base/pc_buf.h"
#include "capture/pc_rangewin.h"
#include "base/pc_util.h"

#define PC_RP_MAX_DEVICES 64

typedef struct pc_rp_chip {
  struct pc_rp_chip *next;
  char name[64];
  CUpti_Profiler_Host_Object *host; /* built the config; evaluates */
  uint8_t *avail;
  uint8_t *config;
  size_t config_size;
  int passes;
  pc_rp_sources src;                /* the counter names in the config, and what each fills */
  /* Rotation: one config per group of pc_rp.groups, built with this chip's
   * availability image at its first rotated launch; rot_state 0 not yet,
   * 1 ready, -1 failed (this chip's launches use kernel replay). */
  int rot_state;
  struct pc_rp_gcfg {
    CUpti_Profiler_Host_Object *host;
    uint8_t *config;
    size_t config_size;
    int passes;
    int sass;                       /* it holds SASS-patched metrics (user replay returns them as 0) */
    pc_rp_sources src;
  } *gcfg;
} pc_rp_chip;

typedef struct pc_rp_ctx {
  struct pc_rp_ctx *next;
  void *ctx;
  int dev;                          /* -1: unknown */
  pc_rp_chip *chip;
  CUpti_RangeProfiler_Object *obj;  /* NULL while disabled */
  uint8_t *image;                   /* the image of the current layout (one of imgs) */
  size_t image_size;
  /* Counter data images by layout: [0] the whole set, [1 + g] rotation
   * group g.  `layout` is the list of the last size query on the object
   * (-2 none): the image is laid out for that list, so another list needs a
   * new size query and initialize first (docs/cupti.md §11, the NaN trap). */
  uint8_t **imgs;
  size_t *img_sizes;
  size_t nimgs;                     /* 1 + the groups when imgs was sized (graph groups may come later) */
  int layout;
  int img_fresh;                    /* the layout whose image EXIT reset last (-2 none) */
  int active;                       /* between a successful Start and EXIT */
  int mode;                         /* PC_RP_KERNEL, PC_RP_USER: how this launch is profiled */
  int obj_mode;                     /* the replay mode obj was last started in (-1 none since Enable) */
  int obj_layout;                   /* the layout obj was last configured with (-3 none since Enable) */
  int group;                        /* the rotation group of this launch, -1 the whole set */
  int cold;                         /* the L2 was flushed before this launch */
  int graph;                        /* this launch is a cuGraphLaunch */
  /* A graph launch measured nothing (skip 1): its group needs skip_passes
   * passes alone, or the chip has no group configs; EXIT says so. */
  int skip, skip_passes;
  pc_err skip_why;
  uint32_t corr;
  /* A session spanning launches (rotation's cold group, issue 21):
   * one auto-range, user-replay session of group win_group, every kernel
   * launched on this context meanwhile one range, in launch order (the
   * capture layer launches one at a time while a session is open): slot i
   * of win is range i (lib/core/capture/pc_rangewin.h).  win_exit: the
   * profiled launch whose EXIT comes next. */
  int win_open, win_group, win_exit;
  pc_rangewin win;
  int layout_ranges;                /* ranges the current layout's image holds */
  uint64_t t_started;               /* when ENTER returned with a started session (PC_PH_LAUNCH) */
  /* The L2 flush of the cold group (a read of twice the L2 size, our own
   * kernel): flush_state 0 untried, 1 ready, -1 unavailable. */
  int flush_state;
  CUmodule flush_mod;
  CUfunction flush_fn;
  CUdeviceptr flush_buf, flush_out;
  size_t flush_n16;
} pc_rp_ctx;

/* PC_RP_WINDOW: a launch inside a session spanning launches (auto range,
 * user replay, one pass; no Start or Stop of its own). */
enum { PC_RP_KERNEL = 0, PC_RP_USER = 1, PC_RP_WINDOW = 2 };
/* Ranges a spanning session holds before it is closed and a new one opened:
 * a counter data image of about 200 KB a range for the cold group (18
 * metrics; docs/cupti.md §11: 99 KB a range for 8). */
#define PC_RP_WIN_CAP 64

/* Where a profiled launch's host time goes (issue 21: "find where the time
 * goes"): wall time of each phase of ENTER and EXIT and of the launch call
 * between them (the replays of kernel replay happen inside it), summed over
 * the process and printed once at the end with PERFCHECK_PROGRESS (a
 * clock_gettime pair a phase: tens of nanoseconds against milliseconds). */
enum {
  PC_PH_CHIP,      /* the chip's host object and config images, rotation groups (first launch of a chip) */
  PC_PH_AVAIL,     /* the chip's counter availability image (cuptiProfilerGetCounterAvailability) */
  PC_PH_ENABLE,    /* cuptiRangeProfilerEnable: first object, or a fresh one at a config or mode change */
  PC_PH_SYNC,      /* waiting for the context before a user range */
  PC_PH_FLUSH,     /* the cold group's L2 flush */
  PC_PH_LAYOUT,    /* the counter data image: size query (a new layout) and initialize */
  PC_PH_SETCONFIG, /* cuptiRangeProfilerSetConfig */
  PC_PH_START,     /* Start, PushRange */
  PC_PH_LAUNCH,    /* the launch call itself (kernel replay's passes) */
  PC_PH_END,       /* EXIT: wait, PopRange, Stop, DecodeData */
  PC_PH_EVAL,      /* GetCounterDataInfo, EvaluateToGpuValues */
  PC_PH_IMAGE,     /* re-initializing the counter data image */
  PC_PH_WCLOSE,    /* closing a spanning session: Stop, Decode, evaluating its ranges */
  PC_PH_COUNT
};
static const char *const pc_ph_names[PC_PH_COUNT] = {"chip setup", "availability",  "enable",        "sync",
                                                     "flush",      "layout",        "setconfig",
                                                     "start",      "launch+replay", "stop+decode",
                                                     "evaluate",   "image init",    "session close"};

static uint64_t pc_rp_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct pc_rp {
  pthread_mutex_t *lock;            /* borrowed: the collector's one lock */
  pc_rp_plan plan;
  int progress;
  /* Diagnostics of the rotation path (docs/cupti.md §15), read once at
   * create: PERFCHECK_ROTATE_FLUSH=0 skips the cold group's L2 flush (its
   * DRAM values are then not a cold run's); PERFCHECK_ROTATE_REENABLE=0
   * keeps one profiler object across replay-mode switches. */
  int no_flush;
  int no_reenable;
  /* How a rotated launch is profiled: auto range and kernel replay of its
   * one-pass group (the kernel runs once; the default), or, with
   * PERFCHECK_ROTATE_RANGE=user, a user range with user replay.  On the H200
   * (CUPTI 13.0, 2026-12-02) a user range returned the SASS-patched metrics
   * as 0 and threads per instruction as NaN, with every hardware counter
   * right; auto range returned all of them (gpu.rotation, docs/cupti.md §15). */
  int rot_kernel;
  int progress_launches;            /* PERFCHECK_PROGRESS=2: each launch's phases at its EXIT */
  /* Under rotation, unless PERFCHECK_ROTATE_SESSION=0: a rotated launch of
   * the cold group (one pass, no SASS-patched metrics) joins a session
   * spanning launches (pc_rp_ctx.win_*), which costs the memory units' pass
   * once per session instead of once per launch (docs/cupti.md §17: about
   * 40 ms a session against about 60 ms a launch, H200). */
  int rot_session;
  atomic_int nwin;                  /* spanning sessions open (any context) */
  /* Results of closed spanning sessions, until pc_rp_drain hands them over
   * (under lock). */
  struct pc_rp_pending {
    uint32_t corr;
    pc_rp_result_store res;
  } *pend;
  size_t npend, cappend;
  void (*say)(const char *line);
  perfcheck_status status;
  char msg[PC_MSG_MAX];
  int ndev;
  char chips[PC_RP_MAX_DEVICES][64];
  int uniform_chip;                 /* every device has chips[0] */
  /* Each device's availability-image cache key (pc_rp_avail_key, at create:
   * no driver call in the launch path); avail_keyed[d] 0: no cache. */
  uint64_t avail_key[PC_RP_MAX_DEVICES];
  unsigned char avail_keyed[PC_RP_MAX_DEVICES];
  atomic_int avail_cached;          /* chips whose image came from the cache */
  pc_rp_chip *chip_list;
  pc_rp_ctx *ctx_list;
  uint64_t nprofiled;
  int passes;
  /* Rotation (issue 21): the plan's metrics split into one-pass groups
   * (pc_rp_plan_groups) for device 0's chip at create; NULL: off. */
  pc_rp_group *groups;
  size_t ngroups;
  char rot_chip[64];
  /* Phase times (see PC_PH_*): atomics, as launches on several threads can
   * be in ENTER or EXIT at once. */
  atomic_ullong ph_ns[PC_PH_COUNT];
  atomic_ullong ph_n[PC_PH_COUNT];
};

/* This thread's profiled launch, phase by phase (PERFCHECK_PROGRESS=2: a
 * line per launch at EXIT); ENTER and EXIT run on the launching thread. */
static _Thread_local uint64_t pc_tl_ph[PC_PH_COUNT];

/* Adds the time since *t0 to phase ph and restarts *t0. */
static void pc_rp_phase(pc_rp *rp, int ph, uint64_t *t0) {
  const uint64_t t = pc_rp_now();
  pc_tl_ph[ph] += t - *t0;
  atomic_fetch_add_explicit(&rp->ph_ns[ph], t - *t0, memory_order_relaxed);
  atomic_fetch_add_explicit(&rp->ph_n[ph], 1, memory_order_relaxed);
  *t0 = t;
}

/* Stops counter collection for the rest of the process (first failure wins). */
static void pc_rp_refuse(pc_rp *rp, perfcheck_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void pc_rp_refuse(pc_rp *rp, perfcheck_status st, const char *fmt, ...) {
  pthread_mutex_lock(rp->lock);
  if (rp->status == PERFCHECK_OK) {
    rp->status = st;
    va_list ap;
    va_start(ap, fmt);
    pc_msg_vformat(rp->msg, sizeof rp->msg, fmt, ap);
    va_end(ap);
  }
  pthread_mutex_unlock(rp->lock);
}

/* The status and message of a failed CUPTI call (its detail in *e), with the fix. */
static void pc_rp_refuse_cupti(pc_rp *rp, CUptiResult r, const char *what, const pc_err *e) {
  const char *fix = pc_cupti_fix(r);
  perfcheck_status st = pc_cupti_status(r);
  if (st == PERFCHECK_ERROR_NOT_FOUND || st == PERFCHECK_OK) st = PERFCHECK_ERROR_CUPTI_UNAVAILABLE;
  pc_rp_refuse(rp, st, "%s%s%s%s%s", what, what[0] ? ": " : "", e->msg, fix[0] ? "; " : "", fix);
}

/* ==== Creation: preflight ================================================== */

/* 1, 0, or -1 when the driver does not say (no /proc entry). */
static int pc_profiling_admin_only(void) {
  FILE *f = fopen("/proc/driver/nvidia/params", "r");
  if (!f) return -1;
  char line[256];
  int v = -1;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "RmProfilingAdminOnly:", 21) == 0) {
      v = atoi(line + 21) != 0;
      break;
    }
  }
  fclose(f);
  return v;
}

/* Root, or CAP_SYS_ADMIN in the effective set (what the driver accepts). */
static int pc_is_admin(void) {
  if (geteuid() == 0) return 1;
  FILE *f = fopen("/proc/self/status", "r");
  if (!f) return 0;
  char line[256];
  int admin = 0;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "CapEff:", 7) == 0) {
      unsigned long long caps = strtoull(line + 7, NULL, 16);
      admin = (caps >> 21) & 1u; /* CAP_SYS_ADMIN */
      break;
    }
  }
  fclose(f);
  return admin;
}

static void pc_support_cause(char *buf, size_t len, CUpti_Profiler_Support_Level level, const char *unsupported,
                             const char *disabled) {
  const char *text = level == CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED ? unsupported
                     : level == CUPTI_PROFILER_CONFIGURATION_DISABLED  ? disabled
                                                                       : NULL;
  if (!text) return;
  size_t used = strlen(buf);
  snprintf(buf + used, len - used, "%s%s", used ? "; " : "", text);
}

static perfcheck_status pc_rp_preflight(pc_err *err) {
  CUpti_Profiler_DeviceSupported_Params p = PC_PARAMS(CUpti_Profiler_DeviceSupported_Params);
  p.cuDevice = 0;
  p.api = CUPTI_PROFILER_RANGE_PROFILING;
  pc_err e;
  CUptiResult r = PC_CUPTI(&e, cuptiProfilerDeviceSupported, &p);
  if (r != CUPTI_SUCCESS) {
    perfcheck_status st = pc_cupti_status(r);
    const char *fix = pc_cupti_fix(r);
    return pc_err_set(err, st == PERFCHECK_ERROR_NOT_FOUND ? PERFCHECK_ERROR_CUPTI_UNAVAILABLE : st, "%s%s%s", e.msg,
                      fix[0] ? "; " : "", fix);
  }
  if (p.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
    char causes[400] = "";
    pc_support_cause(causes, sizeof causes, p.architecture,
                     "the GPU architecture has no range profiler (compute capability 7.5 or newer is needed)",
                     "the range profiler is disabled for this architecture");
    pc_support_cause(causes, sizeof causes, p.sli, "SLI is enabled", "SLI profiling is disabled");
    pc_support_cause(causes, sizeof causes, p.vGpu, "the device is a vGPU without profiling support",
                     "profiling is disabled for this vGPU (enable it on the hypervisor)");
    pc_support_cause(causes, sizeof causes, p.confidentialCompute, "confidential computing is on",
                     "profiling is disabled under confidential computing");
    pc_support_cause(causes, sizeof causes, p.cmp, "the device is a CMP (crypto mining) board",
                     "profiling is disabled on this CMP board");
    pc_support_cause(causes, sizeof causes, p.wsl, "WSL without profiling support", "profiling is disabled under WSL");
    return pc_err_set(err, PERFCHECK_ERROR_UNSUPPORTED,
                      "cuptiProfilerDeviceSupported: GPU counters are not supported on device 0: %s",
                      causes[0] ? causes : "no cause given");
  }
  if (pc_profiling_admin_only() == 1 && !pc_is_admin()) {
    return pc_err_set(err, PERFCHECK_ERROR_COUNTERS_NOT_PERMITTED,
                      "RmProfilingAdminOnly is 1 in /proc/driver/nvidia/params and this process is not root: GPU "
                      "counters are restricted to admin users; run as root, or load the driver with "
                      "NVreg_RestrictProfilingToAdminUsers=0; see https://developer.nvidia.com/ERR_NVGPUCTRPERM");
  }
  return PERFCHECK_OK;
}

perfcheck_status pc_rp_create(pc_rp_plan *plan, const pc_rp_config *cfg, pthread_mutex_t *lock, pc_rp **out,
                              pc_err *replay_why, pc_err *err) {
  pc_err_clear(err);
  pc_err_clear(replay_why);
  if (!out || !plan || !lock || !cfg) return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "pc_rp_create: NULL argument");
  *out = NULL;
  /* Never a CUPTI call without a driver (CUPTI 13.0 crashes without one). */
  perfcheck_status st = pc_cuda_load(err);
  if (st == PERFCHECK_OK) st = pc_rp_nvperf_load(err);
  if (st == PERFCHECK_OK) st = pc_proc_profiler_acquire(err);
  if (st != PERFCHECK_OK) return st;
  pc_rp *rp = calloc(1, sizeof *rp);
  if (!rp) {
    pc_proc_profiler_release();
    return pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "out of memory");
  }
  st = pc_rp_preflight(err);
  if (st != PERFCHECK_OK) goto fail;

  int ndev = 0;
  if (PC_CU(NULL, cuDeviceGetCount, &ndev) != CUDA_SUCCESS || ndev < 1) ndev = 1;
  if (ndev > PC_RP_MAX_DEVICES) ndev = PC_RP_MAX_DEVICES;
  rp->uniform_chip = 1;
  for (int d = 0; d < ndev; d++) {
    CUpti_Device_GetChipName_Params cp = PC_PARAMS(CUpti_Device_GetChipName_Params);
    cp.deviceIndex = (size_t)d;
    pc_err e;
    CUptiResult r = PC_CUPTI(&e, cuptiDeviceGetChipName, &cp);
    if (r != CUPTI_SUCCESS || !cp.pChipName) {
      if (d == 0) {
        st = pc_cupti_status(r);
        if (st == PERFCHECK_OK || st == PERFCHECK_ERROR_NOT_FOUND) st = PERFCHECK_ERROR_CUPTI_UNAVAILABLE;
        pc_err_set(err, st, "%s", r != CUPTI_SUCCESS ? e.msg : "no chip name for device 0");
        goto fail;
      }
      break; /* later devices: profiled with device 0's chip if ever reached */
    }
    snprintf(rp->chips[d], sizeof rp->chips[d], "%s", cp.pChipName);
    if (strcmp(rp->chips[d], rp->chips[0]) != 0) rp->uniform_chip = 0;
    rp->avail_keyed[d] = pc_rp_avail_key(d, rp->chips[d], &rp->avail_key[d]) == 0;
    rp->ndev = d + 1;
  }

  /* Validate the names against device 0's chip now, so that the report can
   * name rejected metrics even if no launch is ever profiled. */
  CUpti_Profiler_Host_Object *host = NULL;
  st = pc_rp_host_open(rp->chips[0], NULL, &host, err);
  if (st == PERFCHECK_OK) {
    st = pc_rp_plan_validate(host, rp->chips[0], plan, 1, err);
    pc_rp_host_close(host);
  }
  if (st != PERFCHECK_OK) goto fail;
  if (pc_rp_plan_counter_names(plan, NULL, 0) == 0) {
    st = pc_err_set(err, PERFCHECK_ERROR_UNSUPPORTED, "none of the requested metrics can be collected on %s%s%s%s",
                    rp->chips[0], plan->nrejected ? " (" : "", plan->nrejected ? plan->rejected[0] : "",
                    plan->nrejected ? ": rejected)" : "");
    goto fail;
  }

  if (cfg->rotate) { /* host API only: outside any callback */
    pc_err ge;
    if (pc_rp_groups_load(rp->chips[0], plan, &rp->groups, &rp->ngroups, &ge) == PERFCHECK_OK) {
      snprintf(rp->rot_chip, sizeof rp->rot_chip, "%s", rp->chips[0]);
    } else {
      rp->groups = NULL;
      rp->ngroups = 0;
      pc_err_set(replay_why, ge.status, "rotation off, kernel replay instead: the metric set could not be split "
                 "into one-pass groups on %s: %s", rp->chips[0], ge.msg);
    }
  }
  rp->lock = lock;
  rp->plan = *plan;
  memset(plan, 0, sizeof *plan);
  rp->progress = cfg->progress > 0 && cfg->say;
  rp->say = cfg->say;
  rp->progress_launches = cfg->progress >= 2 && cfg->say;
  const char *env = secure_getenv("PERFCHECK_ROTATE_SESSION"); /* a privileged process reads no variable */
  rp->rot_session = !(env && strcmp(env, "0") == 0); /* on unless =0 (measured: docs/cupti.md §17) */
  env = secure_getenv("PERFCHECK_ROTATE_FLUSH");
  rp->no_flush = env && strcmp(env, "0") == 0;
  env = secure_getenv("PERFCHECK_ROTATE_REENABLE");
  rp->no_reenable = env && strcmp(env, "0") == 0;
  env = secure_getenv("PERFCHECK_ROTATE_RANGE");
  rp->rot_kernel = !(env && strcmp(env, "user") == 0);
  rp->status = PERFCHECK_OK;
  *out = rp;
  return PERFCHECK_OK;

fail: /* the one cleanup path */
  pc_rp_groups_free(rp->groups, rp->ngroups);
  free(rp);
  pc_proc_profiler_release();
  return st;
}

/* ==== Per chip and per context ============================================= */

/* Called from ENTER (serialized by the launch lock) for the first context of
 * a chip: availability image, host object, config image. */
static pc_rp_chip *pc_rp_chip_get(pc_rp *rp, const char *name, void *ctx, int dev, uint64_t *t0) {
  pthread_mutex_lock(rp->lock);
  pc_rp_chip *ch = rp->chip_list;
  while (ch && strcmp(ch->name, name) != 0) ch = ch->next;
  pthread_mutex_unlock(rp->lock);
  if (ch) return ch;

  ch = calloc(1, sizeof *ch);
  if (!ch) {
    pc_rp_refuse(rp, PERFCHECK_ERROR_OUT_OF_MEMORY, "out of memory for the %s host object", name);
    return NULL;
  }
  snprintf(ch->name, sizeof ch->name, "%s", name);

  /* The real availability image: MIG, vGPU and reduced SKUs can lack
   * counters that the chip name alone promises.  It is the device's (its
   * cache key names the device, its UUID, the driver and CUPTI): an earlier
   * process's copy saves the call's 70 ms (docs/cupti.md §19). */
  const int keyed = dev >= 0 && dev < rp->ndev && rp->avail_keyed[dev];
  size_t avail_size = 0;
  CUptiResult r = CUPTI_SUCCESS;
  pc_err e;
  pc_err_clear(&e);
  if (keyed && pc_rp_avail_read(name, rp->avail_key[dev], &ch->avail, &avail_size) == 0) {
    atomic_fetch_add(&rp->avail_cached, 1);
  } else {
    CUpti_Profiler_GetCounterAvailability_Params ap = PC_PARAMS(CUpti_Profiler_GetCounterAvailability_Params);
    ap.ctx = (CUcontext)ctx;
    r = PC_CUPTI(&e, cuptiProfilerGetCounterAvailability, &ap);
    if (r == CUPTI_SUCCESS && ap.counterAvailabilityImageSize > 0) {
      ch->avail = malloc(ap.counterAvailabilityImageSize);
      if (ch->avail) {
        ap.pCounterAvailabilityImage = ch->avail;
        r = PC_CUPTI(&e, cuptiProfilerGetCounterAvailability, &ap);
        avail_size = ap.counterAvailabilityImageSize;
      }
    }
    if (r == CUPTI_SUCCESS && ch->avail && keyed) pc_rp_avail_write(name, rp->avail_key[dev], ch->avail, avail_size);
  }
  pc_rp_phase(rp, PC_PH_AVAIL, t0);
  if (r != CUPTI_SUCCESS || !ch->avail) {
    free(ch->avail);
    free(ch);
    if (r != CUPTI_SUCCESS)
      pc_rp_refuse_cupti(rp, r, "reading the counter availability image", &e);
    else
      pc_rp_refuse(rp, PERFCHECK_ERROR_OUT_OF_MEMORY, "out of memory for the counter availability image");
    return NULL;
  }

  pc_err err;
  pc_err_clear(&err);
  /* This may reject names (plan->want, plan->rejected) without rp->lock, as
   * no CUPTI call runs under it: the rejected arrays never move (allocated at
   * parse), entries are written before the count grows, and the lock taken
   * below to publish the chip orders it all before any later reader that
   * takes the lock (pc_rp_collect, pc_rp_passes). */
  perfcheck_status st = pc_rp_plan_configure(ch->name, ch->avail, &rp->plan, 0, &ch->host, &ch->config,
                                             &ch->config_size, &ch->passes, &err);
  if (st == PERFCHECK_OK) st = pc_rp_plan_sources(&rp->plan, NULL, NULL, &ch->src, &err);
  if (st == PERFCHECK_OK && ch->src.n == 0)
    st = pc_err_set(&err, PERFCHECK_ERROR_UNSUPPORTED, "none of the requested metrics can be collected on this %s device",
                    ch->name);
  if (st != PERFCHECK_OK) {
    pc_rp_host_close(ch->host);
    free(ch->config);
    free(ch->avail);
    pc_rp_sources_free(&ch->src);
    free(ch);
    pc_rp_refuse(rp, st, "building the counter configuration for %s: %s", name, err.msg);
    return NULL;
  }
  pthread_mutex_lock(rp->lock);
  ch->next = rp->chip_list;
  rp->chip_list = ch;
  if (ch->passes > rp->passes) rp->passes = ch->passes;
  pthread_mutex_unlock(rp->lock);
  return ch;
}

static pc_rp_ctx *pc_rp_find_ctx_locked(pc_rp *rp, void *ctx) {
  for (pc_rp_ctx *c = rp->ctx_list; c; c = c->next)
    if (c->ctx == ctx) return c;
  return NULL;
}

static pc_rp_ctx *pc_rp_ctx_new(pc_rp *rp, void *ctx, uint64_t *t0) {
  pc_rp_ctx *c = calloc(1, sizeof *c);
  if (!c) {
    pc_rp_refuse(rp, PERFCHECK_ERROR_OUT_OF_MEMORY, "out of memory for a context's profiler state");
    return NULL;
  }
  c->ctx = ctx;
  c->dev = -1;
  /* The device, once per context, from CUPTI: no driver call inside the
   * launch callback. */
  uint32_t dev = 0;
  if (PC_CUPTI(NULL, cuptiGetDeviceId, (CUcontext)ctx, &dev) == CUPTI_SUCCESS) c->dev = (int)dev;
  const char *chip = rp->chips[0];
  if (!rp->uniform_chip) {
    if (c->dev < 0 || c->dev >= rp->ndev) {
      free(c);
      pc_rp_refuse(rp, PERFCHECK_ERROR_UNSUPPORTED,
                   "cannot tell which device a context belongs to among devices of different chips");
      return NULL;
    }
    chip = rp->chips[c->dev];
  }
  c->chip = pc_rp_chip_get(rp, chip, ctx, c->dev, t0);
  if (!c->chip) {
    free(c);
    return NULL;
  }
  pthread_mutex_lock(rp->lock);
  c->next = rp->ctx_list;
  rp->ctx_list = c;
  pthread_mutex_unlock(rp->lock);
  return c;
}

/* Disables a profiler object that the caller took out of its entry. */
static void pc_rp_disable_obj(CUpti_RangeProfiler_Object *obj, int was_active) {
  if (!obj) return;
  if (was_active) {
    CUpti_RangeProfiler_Stop_Params sp = PC_PARAMS(CUpti_RangeProfiler_Stop_Params);
    sp.pRangeProfilerObject = obj;
    if (PC_CUPTI(NULL, cuptiRangeProfilerStop, &sp) == CUPTI_SUCCESS) {
      CUpti_RangeProfiler_DecodeData_Params dp = PC_PARAMS(CUpti_RangeProfiler_DecodeData_Params);
      dp.pRangeProfilerObject = obj;
      (void)PC_CUPTI(NULL, cuptiRangeProfilerDecodeData, &dp);
    }
  }
  CUpti_RangeProfiler_Disable_Params p = PC_PARAMS(CUpti_RangeProfiler_Disable_Params);
  p.pRangeProfilerObject = obj;
  (void)PC_CUPTI(NULL, cuptiRangeProfilerDisable, &p);
}

static CUptiResult pc_rp_image_init(pc_rp_ctx *c, pc_err *e) {
  CUpti_RangeProfiler_CounterDataImage_Initialize_Params p = PC_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
  p.pRangeProfilerObject = c->obj;
  p.counterDataSize = c->image_size;
  p.pCounterData = c->image;
  return PC_CUPTI(e, cuptiRangeProfilerCounterDataImageInitialize, &p);
}

static int pc_rp_layout(pc_rp *rp, pc_rp_ctx *c, int L, size_t ranges);
static void pc_rp_win_close(pc_rp *rp, pc_rp_ctx *c);

/* Enables the range profiler on c (its first profiled launch, or again after
 * another context of its device took the profiler). */
static int pc_rp_ctx_enable(pc_rp *rp, pc_rp_ctx *c) {
  /* One enabled context per device: take the others' objects out under the
   * lock, disable them outside it. */
  for (;;) {
    CUpti_RangeProfiler_Object *other = NULL;
    pthread_mutex_lock(rp->lock);
    pc_rp_ctx *owin = NULL;
    for (pc_rp_ctx *o = rp->ctx_list; o; o = o->next)
      if (o != c && o->obj && (o->dev == c->dev || o->dev < 0 || c->dev < 0)) {
        if (o->win_open) { /* its session's values first (the launch gate is held exclusively) */
          owin = o;
          break;
        }
        other = o->obj;
        o->obj = NULL;
        break;
      }
    pthread_mutex_unlock(rp->lock);
    if (owin) {
      pc_rp_win_close(rp, owin);
      continue;
    }
    if (!other) break;
    pc_rp_disable_obj(other, 0);
  }

  CUpti_RangeProfiler_Enable_Params ep = PC_PARAMS(CUpti_RangeProfiler_Enable_Params);
  ep.ctx = (CUcontext)c->ctx;
  pc_err e;
  CUptiResult r = PC_CUPTI(&e, cuptiRangeProfilerEnable, &ep);
  if (r != CUPTI_SUCCESS) {
    pc_rp_refuse_cupti(rp, r, "", &e);
    return -1;
  }
  c->obj = ep.pRangeProfilerObject;
  c->obj_mode = -1;
  c->obj_layout = -3;

  c->layout = -2;
  c->img_fresh = -2;
  if (pc_rp_layout(rp, c, -1, 1) != 0) {
    pc_rp_disable_obj(c->obj, 0);
    c->obj = NULL;
    return -1;
  }
  return 0;
}

/* ==== Rotation: group configs, layouts, the L2 flush ========================= */

/* The counter names of layout L: -1 the whole set, g >= 0 rotation group g. */
static const pc_rp_sources *pc_rp_layout_src(const pc_rp_chip *ch, int L) {
  return L < 0 ? &ch->src : &ch->gcfg[L].src;
}

/* Makes layout L current on c's object: a size query for its list, its
 * image (re)allocated and initialized, when the last size query on the
 * object was for another list (the image is laid out for the last list
 * queried: another one in between turned values into NaN without an error,
 * docs/cupti.md §11); otherwise only the initialize, which resets it. */
static int pc_rp_layout(pc_rp *rp, pc_rp_ctx *c, int L, size_t ranges) {
  const size_t nlay = 1 + rp->ngroups;
  if (c->nimgs < nlay) { /* the first layout, or graph groups split since */
    uint8_t **imgs = realloc(c->imgs, nlay * sizeof *imgs);
    if (imgs) c->imgs = imgs;
    size_t *sizes = imgs ? realloc(c->img_sizes, nlay * sizeof *sizes) : NULL;
    if (sizes) c->img_sizes = sizes;
    if (!imgs || !sizes) {
      pc_rp_refuse(rp, PERFCHECK_ERROR_OUT_OF_MEMORY, "out of memory for counter data images");
      return -1;
    }
    for (size_t i = c->nimgs; i < nlay; i++) {
      c->imgs[i] = NULL;
      c->img_sizes[i] = 0;
    }
    c->nimgs = nlay;
  }
  pc_err e;
  CUptiResult r = CUPTI_SUCCESS;
  if (c->layout != L || (size_t)c->layout_ranges != ranges) {
    const pc_rp_sources *src = pc_rp_layout_src(c->chip, L);
    CUpti_RangeProfiler_GetCounterDataSize_Params sp = PC_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params);
    sp.pRangeProfilerObject = c->obj;
    sp.pMetricNames = src->names;
    sp.numMetrics = src->n;
    sp.maxNumOfRanges = ranges;
    sp.maxNumRangeTreeNodes = (uint32_t)ranges;
    r = PC_CUPTI(&e, cuptiRangeProfilerGetCounterDataSize, &sp);
    if (r == CUPTI_SUCCESS && sp.counterDataSize != c->img_sizes[L + 1]) {
      free(c->imgs[L + 1]);
      c->imgs[L + 1] = malloc(sp.counterDataSize ? sp.counterDataSize : 1);
      c->img_sizes[L + 1] = c->imgs[L + 1] ? sp.counterDataSize : 0;
      if (!c->imgs[L + 1]) {
        pc_rp_refuse(rp, PERFCHECK_ERROR_OUT_OF_MEMORY, "out of memory for a %zu-byte counter data image",
                     sp.counterDataSize);
        return -1;
      }
    }
    if (r == CUPTI_SUCCESS) {
      c->layout = L;
      c->layout_ranges = (int)ranges;
    }
  }
  const int fresh = c->image != c->imgs[L + 1] || r != CUPTI_SUCCESS || c->layout != L || c->img_fresh != L;
  c->image = c->imgs[L + 1];
  c->image_size = c->img_sizes[L + 1];
  /* An image the last EXIT already reset for this layout is ready as it is
   * (the kernel-replay path makes no extra call per launch). */
  if (r == CUPTI_SUCCESS && fresh) r = pc_rp_image_init(c, &e);
  c->img_fresh = -2;
  if (r != CUPTI_SUCCESS) {
    c->layout = -2;
    pc_rp_refuse_cupti(rp, r, "", &e);
    return -1;
  }
  return 0;
}

/* The rotation groups' configs for chip ch, with its availability image;
 * 0 ready, -1 failed (the chip's launches then use kernel replay). */
static int pc_rp_chip_rotation(pc_rp *rp, pc_rp_chip *ch) {
  if (ch->rot_state) return ch->rot_state > 0 ? 0 : -1;
  ch->rot_state = -1;
  if (!rp->ngroups || strcmp(ch->name, rp->rot_chip) != 0) return -1; /* split for device 0's chip only */
  ch->gcfg = calloc(rp->ngroups, sizeof *ch->gcfg);
  if (!ch->gcfg) return -1;
  for (size_t g = 0; g < rp->ngroups; g++) {
    struct pc_rp_gcfg *gc = &ch->gcfg[g];
    pc_err e;
    if (pc_rp_plan_sources(&rp->plan, rp->groups[g].want, rp->groups[g].xwant, &gc->src, &e) != PERFCHECK_OK ||
        gc->src.n == 0 ||
        pc_rp_build_config(ch->name, ch->avail, gc->src.names, gc->src.n, &gc->host, &gc->config, &gc->config_size,
                           &gc->passes, &e) != PERFCHECK_OK)
      return -1; /* freed with the chip */
    for (size_t k = 0; k < gc->src.n; k++)
      if (strstr(gc->src.names[k], "__sass_")) gc->sass = 1;
  }
  ch->rot_state = 1;
  return 0;
}

/* The flush of the cold group: reads twice the L2 through L2 (ld.global.cg,
 * four 32-bit words per thread per trip), xor-folds them and stores only if
 * the fold equals a value a zeroed buffer never gives, so nothing is written
 * and the loads cannot be optimized away.  Reading leaves the L2 full of
 * clean lines of our buffer: the kernel's own DRAM reads then miss as they
 * would in a cold run, and no dirty line of ours is written back during it
 * (a memset flush would be, inflating dram__bytes_write). */
static const char pc_flush_ptx[] =
    ".version 7.0\n"
    ".target sm_52\n"
    ".address_size 64\n"
    ".visible .entry " PC_RP_FLUSH_KERNEL "(\n"
    "\t.param .u64 pc_flush_src,\n"
    "\t.param .u64 pc_flush_n16,\n"
    "\t.param .u64 pc_flush_out\n"
    ")\n"
    "{\n"
    "\t.reg .pred \t%p<3>;\n"
    "\t.reg .b32 \t%r<12>;\n"
    "\t.reg .b64 \t%rd<12>;\n"
    "\tld.param.u64 \t%rd1, [pc_flush_src];\n"
    "\tld.param.u64 \t%rd2, [pc_flush_n16];\n"
    "\tld.param.u64 \t%rd3, [pc_flush_out];\n"
    "\tcvta.to.global.u64 \t%rd1, %rd1;\n"
    "\tcvta.to.global.u64 \t%rd3, %rd3;\n"
    "\tmov.u32 \t%r1, %ctaid.x;\n"
    "\tmov.u32 \t%r2, %ntid.x;\n"
    "\tmov.u32 \t%r3, %tid.x;\n"
    "\tmov.u32 \t%r4, %nctaid.x;\n"
    "\tmul.wide.u32 \t%rd4, %r1, %r2;\n"
    "\tcvt.u64.u32 \t%rd5, %r3;\n"
    "\tadd.s64 \t%rd4, %rd4, %rd5;\n"
    "\tmul.wide.u32 \t%rd6, %r4, %r2;\n"
    "\tmov.u32 \t%r5, 0;\n"
    "\tsetp.ge.u64 \t%p1, %rd4, %rd2;\n"
    "\t@%p1 bra \tPC_DONE;\n"
    "PC_LOOP:\n"
    "\tshl.b64 \t%rd7, %rd4, 4;\n"
    "\tadd.s64 \t%rd8, %rd1, %rd7;\n"
    "\tld.global.cg.v4.u32 \t{%r6, %r7, %r8, %r9}, [%rd8];\n"
    "\txor.b32 \t%r5, %r5, %r6;\n"
    "\txor.b32 \t%r5, %r5, %r7;\n"
    "\txor.b32 \t%r5, %r5, %r8;\n"
    "\txor.b32 \t%r5, %r5, %r9;\n"
    "\tadd.s64 \t%rd4, %rd4, %rd6;\n"
    "\tsetp.lt.u64 \t%p1, %rd4, %rd2;\n"
    "\t@%p1 bra \tPC_LOOP;\n"
    "PC_DONE:\n"
    "\tsetp.ne.u32 \t%p2, %r5, 1779033703;\n"
    "\t@%p2 bra \tPC_END;\n"
    "\tst.global.u32 \t[%rd3], %r5;\n"
    "PC_END:\n"
    "\tret;\n"
    "}\n";

const char *pc_rp_flush_ptx(void) { return pc_flush_ptx; }

/* Readies c's flush (module, zeroed buffer of twice the L2): inside the
 * launch callback, on the launching thread, with c's context current.
 * 0 ready, -1 unavailable (the cold group's DRAM values are then not cold). */
static int pc_rp_flush_ready(pc_rp_ctx *c) {
  if (c->flush_state) return c->flush_state > 0 ? 0 : -1;
  c->flush_state = -1;
  if (!pc_cu.cuModuleLoadData || !pc_cu.cuCtxGetDevice) return -1;
  CUdevice dev;
  int l2 = 0;
  if (PC_CU(NULL, cuCtxGetDevice, &dev, (CUcontext)c->ctx) != CUDA_SUCCESS ||
      PC_CU(NULL, cuDeviceGetAttribute, &l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev) != CUDA_SUCCESS || l2 <= 0)
    return -1;
  const size_t bytes = 2 * (size_t)l2;
  if (PC_CU(NULL, cuModuleLoadData, &c->flush_mod, pc_flush_ptx) != CUDA_SUCCESS) return -1;
  if (PC_CU(NULL, cuModuleGetFunction, &c->flush_fn, c->flush_mod, PC_RP_FLUSH_KERNEL) != CUDA_SUCCESS ||
      PC_CU(NULL, cuMemAlloc, &c->flush_buf, bytes) != CUDA_SUCCESS) {
    (void)PC_CU(NULL, cuModuleUnload, c->flush_mod);
    c->flush_mod = NULL;
    return -1;
  }
  if (PC_CU(NULL, cuMemAlloc, &c->flush_out, 64) != CUDA_SUCCESS ||
      PC_CU(NULL, cuMemsetD8, c->flush_buf, 0, bytes) != CUDA_SUCCESS) {
    (void)PC_CU(NULL, cuMemFree, c->flush_buf);
    (void)PC_CU(NULL, cuModuleUnload, c->flush_mod);
    c->flush_buf = 0;
    c->flush_mod = NULL;
    return -1;
  }
  c->flush_n16 = bytes / 16;
  c->flush_state = 1;
  return 0;
}

/* Runs the flush and waits for it: nothing else runs (the caller holds the
 * launch gate and synchronized the context). */
static int pc_rp_flush(pc_rp_ctx *c) {
  if (pc_rp_flush_ready(c) != 0) return -1;
  void *args[] = {&c->flush_buf, &c->flush_n16, &c->flush_out};
  if (PC_CU(NULL, cuLaunchKernel, c->flush_fn, 1024, 1, 1, 256, 1, 1, 0, NULL, args, NULL) != CUDA_SUCCESS) return -1;
  pc_err e;
  return pc_ctx_synchronize((CUcontext)c->ctx, &e) == CUDA_SUCCESS ? 0 : -1;
}

size_t pc_rp_groups(const pc_rp *rp) { return rp ? rp->ngroups : 0; }

size_t pc_rp_graph_groups(pc_rp *rp, pc_err *why) {
  pc_err_clear(why);
  if (!rp) return 0;
  if (rp->ngroups) return rp->ngroups; /* rotation split the set at creation */
  pthread_mutex_lock(rp->lock);
  const perfcheck_status st0 = rp->status;
  pthread_mutex_unlock(rp->lock);
  if (st0 != PERFCHECK_OK) return 0;
  pc_rp_group *groups = NULL;
  size_t n = 0;
  pc_err e;
  if (pc_rp_groups_load(rp->chips[0], &rp->plan, &groups, &n, &e) != PERFCHECK_OK || n == 0) {
    pc_rp_groups_free(groups, n);
    pc_err_set(why, PERFCHECK_ERROR_UNSUPPORTED,
               "graph launches get no counters: the metric set could not be split into one-pass groups on %s "
               "(a graph launch carries one group, it is never replayed): %s", rp->chips[0], n ? "no group" : e.msg);
    return 0;
  }
  /* Published under the lock; no launch hook runs meanwhile (the caller
   * holds the launch gate exclusively). */
  pthread_mutex_lock(rp->lock);
  snprintf(rp->rot_chip, sizeof rp->rot_chip, "%s", rp->chips[0]);
  rp->groups = groups;
  rp->ngroups = n;
  pthread_mutex_unlock(rp->lock);
  return n;
}

/* ==== Sessions spanning launches (rotation; PERFCHECK_ROTATE_SESSION=0: none) = */

/* Whether a rotated launch of group L joins a spanning session: the cold
 * group (the DRAM counters, with the L2 and L1TEX ones that share its pass)
 * when it is one pass without SASS-patched metrics (user replay returns
 * those as 0, docs/cupti.md §17), never a graph launch.  Only the cold group:
 * on the H200 its pass cost about 60 ms a launch under rotation and a session
 * pays it once, while the SM groups' passes cost about 4 ms a launch and a
 * session of theirs cost about 80 ms more Start than it saved (2026-12-02,
 * torch_step 300 steps, docs/measurements/2026-12-02-h200-f). */
static int pc_rp_win_eligible(const pc_rp *rp, const pc_rp_ctx *c, int L, int graph) {
  return rp->rot_session && !graph && L >= 0 && rp->groups[L].cold && c->chip->gcfg && c->chip->gcfg[L].passes == 1 &&
         !c->chip->gcfg[L].sass;
}

/* A result for the caller of pc_rp_drain; freed here when it cannot be kept. */
static void pc_rp_pend(pc_rp *rp, uint32_t corr, pc_rp_result_store *res) {
  pthread_mutex_lock(rp->lock);
  if (pc_grow((void **)&rp->pend, &rp->cappend, rp->npend + 1, sizeof *rp->pend)) {
    pthread_mutex_unlock(rp->lock);
    pc_rp_result_store_free(res);
    return;
  }
  rp->pend[rp->npend].corr = corr;
  rp->pend[rp->npend].res = *res;
  rp->npend++;
  pthread_mutex_unlock(rp->lock);
}

static void pc_rp_res_init(const pc_rp *rp, pc_rp_result_store *res, int L, int passes) {
  memset(res, 0, sizeof *res);
  res->passes = passes;
  res->group = L;
  res->ngroups = L < 0 ? 0 : (int)rp->ngroups;
  for (int i = 0; i < PC_M_COUNT; i++) res->values[i] = PC_NULL;
  if (rp->plan.nextra && (res->extra = malloc(rp->plan.nextra * sizeof *res->extra)))
    for (size_t i = 0; i < rp->plan.nextra; i++) res->extra[i] = PC_NULL;
}

static char *pc_rp_note(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Range `index` of c's decoded counter data evaluated into vals (one per
 * source metric, PC_NULL first, so a metric CUPTI leaves alone stays null).
 * Shared by a launch's own session and a session spanning launches. */
static CUptiResult pc_rp_eval_range(const pc_rp_ctx *c, CUpti_Profiler_Host_Object *host, size_t index,
                                    const pc_rp_sources *src, double *vals, pc_err *e) {
  for (size_t k = 0; k < src->n; k++) vals[k] = PC_NULL;
  CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = PC_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
  ev.pHostObject = host;
  ev.pCounterDataImage = c->image;
  ev.counterDataImageSize = c->image_size;
  ev.rangeIndex = index;
  ev.ppMetricNames = src->names;
  ev.numMetrics = src->n;
  ev.pMetricValues = vals;
  return PC_CUPTI(e, cuptiProfilerHostEvaluateToGpuValues, &ev);
}

/* Stop, Decode, and each profiled launch's range evaluated into a pending
 * result (pc_rp_drain).  The ranges are the session's launches in launch
 * order (H200, 2026-12-02: across streams too, docs/cupti.md §17); when
 * their count is not the launches', none is used and each result says why.
 * The caller holds the launch gate exclusively. */
static void pc_rp_win_close(pc_rp *rp, pc_rp_ctx *c) {
  if (!c->win_open) return;
  uint64_t t0 = pc_rp_now();
  const int L = c->win_group;
  c->win_open = 0;
  atomic_fetch_sub(&rp->nwin, 1);
  pc_err e;
  CUpti_RangeProfiler_Stop_Params sp = PC_PARAMS(CUpti_RangeProfiler_Stop_Params);
  sp.pRangeProfilerObject = c->obj;
  CUptiResult r = PC_CUPTI(&e, cuptiRangeProfilerStop, &sp);
  size_t dropped = 0, nr = 0;
  if (r == CUPTI_SUCCESS) {
    CUpti_RangeProfiler_DecodeData_Params dp = PC_PARAMS(CUpti_RangeProfiler_DecodeData_Params);
    dp.pRangeProfilerObject = c->obj;
    r = PC_CUPTI(&e, cuptiRangeProfilerDecodeData, &dp);
    dropped = dp.numOfRangeDropped;
  }
  if (r == CUPTI_SUCCESS) {
    CUpti_RangeProfiler_GetCounterDataInfo_Params ip = PC_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params);
    ip.pCounterDataImage = c->image;
    ip.counterDataImageSize = c->image_size;
    r = PC_CUPTI(&e, cuptiRangeProfilerGetCounterDataInfo, &ip);
    nr = ip.numTotalRanges;
  }
  const pc_rp_sources *src = &c->chip->gcfg[L].src;
  CUpti_Profiler_Host_Object *host = c->chip->gcfg[L].host;
  const int match = r == CUPTI_SUCCESS && pc_rangewin_matches(&c->win, nr, dropped, sp.isAllPassSubmitted);
  double *vals = malloc((src->n ? src->n : 1) * sizeof *vals);
  for (size_t i = 0; i < c->win.n; i++) {
    if (c->win.keep[i] == PC_RW_DROP) continue;
    pc_rp_result_store res;
    pc_rp_res_init(rp, &res, L, 1);
    res.cold = c->win.keep[i] == PC_RW_COLD;
    if (r != CUPTI_SUCCESS) {
      res.note = pc_rp_note("counters not collected: %s", e.msg);
    } else if (!match) {
      res.note = pc_rp_note("a session spanning %zu launches decoded %zu ranges (%zu dropped): ranges and launches "
                            "cannot be matched, so none is used",
                            c->win.n, nr, dropped);
    } else if (!vals) {
      res.note = pc_rp_note("out of memory evaluating the counters");
    } else {
      pc_err ee;
      if (pc_rp_eval_range(c, host, i, src, vals, &ee) != CUPTI_SUCCESS)
        res.note = pc_rp_note("counters not evaluated: %s", ee.msg);
      else
        pc_rp_sources_apply(src, vals, res.values, res.extra);
    }
    pc_rp_pend(rp, c->win.corr[i], &res);
  }
  free(vals);
  if (r != CUPTI_SUCCESS) pc_rp_refuse_cupti(rp, r, "closing a session spanning launches", &e);
  pc_rangewin_clear(&c->win);
  pc_err e2;
  const CUptiResult r2 = pc_rp_image_init(c, &e2);
  if (r2 != CUPTI_SUCCESS) pc_rp_refuse_cupti(rp, r2, "re-initializing the counter data image", &e2);
  c->img_fresh = r2 == CUPTI_SUCCESS ? c->layout : -2;
  pc_rp_phase(rp, PC_PH_WCLOSE, &t0);
}

/* Opens a spanning session of group L on c: a fresh object at a mode or
 * config change (§15), the image laid out for PC_RP_WIN_CAP ranges,
 * SetConfig (auto range, user replay), Start.  0, or -1 (refused: the
 * status says why). */
static int pc_rp_win_open(pc_rp *rp, pc_rp_ctx *c, int L, uint64_t *t0) {
  if (!c->win.cap && pc_rangewin_init(&c->win, PC_RP_WIN_CAP) != 0) {
    pc_rp_refuse(rp, PERFCHECK_ERROR_OUT_OF_MEMORY, "out of memory for a session spanning launches");
    return -1;
  }
  const int reconfig = c->obj_layout != -3 && c->obj_layout != L;
  if (((c->obj_mode >= 0 && c->obj_mode != PC_RP_WINDOW) || reconfig) && !rp->no_reenable) {
    CUpti_RangeProfiler_Object *old = c->obj;
    c->obj = NULL;
    pc_rp_disable_obj(old, 0);
    if (pc_rp_ctx_enable(rp, c) != 0) return -1;
    pc_rp_phase(rp, PC_PH_ENABLE, t0);
  }
  if (pc_rp_layout(rp, c, L, c->win.cap) != 0) return -1;
  pc_rp_phase(rp, PC_PH_LAYOUT, t0);
  CUpti_RangeProfiler_SetConfig_Params cp = PC_PARAMS(CUpti_RangeProfiler_SetConfig_Params);
  cp.pRangeProfilerObject = c->obj;
  cp.configSize = c->chip->gcfg[L].config_size;
  cp.pConfig = c->chip->gcfg[L].config;
  cp.counterDataImageSize = c->image_size;
  cp.pCounterDataImage = c->image;
  cp.range = CUPTI_AutoRange;
  cp.replayMode = CUPTI_UserReplay;
  cp.maxRangesPerPass = c->win.cap;
  cp.numNestingLevels = 1;
  cp.minNestingLevel = 1;
  cp.passIndex = 0;
  cp.targetNestingLevel = 1;
  pc_err e;
  CUptiResult r = PC_CUPTI(&e, cuptiRangeProfilerSetConfig, &cp);
  pc_rp_phase(rp, PC_PH_SETCONFIG, t0);
  if (r == CUPTI_SUCCESS) {
    CUpti_RangeProfiler_Start_Params stp = PC_PARAMS(CUpti_RangeProfiler_Start_Params);
    stp.pRangeProfilerObject = c->obj;
    r = PC_CUPTI(&e, cuptiRangeProfilerStart, &stp);
  }
  pc_rp_phase(rp, PC_PH_START, t0);
  if (r != CUPTI_SUCCESS) {
    pc_rp_refuse_cupti(rp, r, "a session spanning launches", &e);
    return -1;
  }
  c->obj_mode = PC_RP_WINDOW;
  c->obj_layout = L;
  c->win_open = 1;
  c->win_group = L;
  pc_rangewin_clear(&c->win);
  atomic_fetch_add(&rp->nwin, 1);
  return 0;
}

int pc_rp_window_active(const pc_rp *rp) { return rp && atomic_load(&((pc_rp *)rp)->nwin) > 0; }

/* pc_rp_win_close, with cuptiGetTimestamp around it into cut (when not
 * NULL; both 0 when unknown): the close's host time, for the caller to cut
 * from the region's clock. */
static void pc_rp_win_close_timed(pc_rp *rp, pc_rp_ctx *c, uint64_t cut[2]) {
  uint64_t t0 = 0, t1 = 0;
  if (cut && PC_CUPTI(NULL, cuptiGetTimestamp, &t0) != CUPTI_SUCCESS) t0 = 0;
  pc_rp_win_close(rp, c);
  if (!cut) return;
  if (!t0 || PC_CUPTI(NULL, cuptiGetTimestamp, &t1) != CUPTI_SUCCESS) t0 = t1 = 0;
  if (!cut[0] || (t0 && t0 < cut[0])) cut[0] = t0;
  if (t1 > cut[1]) cut[1] = t1;
}

int pc_rp_window_note(pc_rp *rp, void *ctx, uint32_t corr, int closes, uint64_t cut[2]) {
  if (!pc_rp_window_active(rp) || !ctx) return 0;
  pthread_mutex_lock(rp->lock);
  pc_rp_ctx *c = pc_rp_find_ctx_locked(rp, ctx);
  pthread_mutex_unlock(rp->lock);
  if (!c || !c->win_open) return 0;
  if (closes || !pc_rangewin_room(&c->win, 1)) {
    /* Timed here only: a launch that joins the session pays no timestamp. */
    pc_rp_win_close_timed(rp, c, cut);
    return 2;
  }
  return pc_rangewin_add(&c->win, corr, PC_RW_DROP) == 0;
}

void pc_rp_window_unnote(pc_rp *rp, void *ctx, uint32_t corr) {
  if (!rp || !ctx) return;
  pthread_mutex_lock(rp->lock);
  pc_rp_ctx *c = pc_rp_find_ctx_locked(rp, ctx);
  pthread_mutex_unlock(rp->lock);
  if (c && c->win_open) (void)pc_rangewin_pop(&c->win, corr);
}

void pc_rp_window_close_all(pc_rp *rp, uint64_t cut[2]) {
  if (!pc_rp_window_active(rp)) return;
  for (;;) { /* the list only grows under the exclusive gate, which the caller holds */
    pc_rp_ctx *open = NULL;
    pthread_mutex_lock(rp->lock);
    for (pc_rp_ctx *c = rp->ctx_list; c && !open; c = c->next)
      if (c->win_open) open = c;
    pthread_mutex_unlock(rp->lock);
    if (!open) break;
    pc_rp_win_close_timed(rp, open, cut);
  }
}

size_t pc_rp_drain(pc_rp *rp, int (*store)(void *arg, uint32_t corr, pc_rp_result_store *res), void *arg) {
  if (!rp) return 0;
  pthread_mutex_lock(rp->lock);
  struct pc_rp_pending *p = rp->pend;
  const size_t n = rp->npend;
  rp->pend = NULL;
  rp->npend = rp->cappend = 0;
  pthread_mutex_unlock(rp->lock);
  for (size_t i = 0; i < n; i++)
    if (!store || store(arg, p[i].corr, &p[i].res) != 0) pc_rp_result_store_free(&p[i].res);
  free(p);
  return n;
}

/* ==== Launch hooks ========================================================== */

/* The context's entry, made and enabled the first time (chip set-up
 * timed); NULL when the layer is off or the set-up failed. */
static pc_rp_ctx *pc_rp_enter_ctx(pc_rp *rp, void *ctx, uint64_t *t0) {
  pthread_mutex_lock(rp->lock);
  const perfcheck_status st = rp->status;
  pc_rp_ctx *c = st == PERFCHECK_OK ? pc_rp_find_ctx_locked(rp, ctx) : NULL;
  pthread_mutex_unlock(rp->lock);
  if (st != PERFCHECK_OK) return NULL;
  memset(pc_tl_ph, 0, sizeof pc_tl_ph);
  *t0 = pc_rp_now();
  if (!c) {
    if (!(c = pc_rp_ctx_new(rp, ctx, t0))) return NULL;
    pc_rp_phase(rp, PC_PH_CHIP, t0);
  }
  if (!c->obj) {
    if (pc_rp_ctx_enable(rp, c) != 0) return NULL;
    pc_rp_phase(rp, PC_PH_ENABLE, t0);
  }
  return c;
}

/* The progress line of profiled launch `ordinal` (through the session's
 * one channel to stderr). */
static void pc_rp_say_launch(const pc_rp *rp, uint64_t ordinal, const char *kernel_name, int L, int graph, int passes,
                             int window) {
  if (!rp->progress) return;
  char line[600];
  const char *name = kernel_name ? kernel_name : "unnamed";
  if (window)
    snprintf(line, sizeof line, "profiling kernel %llu (%s): group %d of %zu, 1 pass, in a session spanning launches",
             (unsigned long long)ordinal, name, L + 1, rp->ngroups);
  else if (L >= 0)
    snprintf(line, sizeof line, "profiling %s %llu (%s): group %d of %zu, %d pass%s", graph ? "graph launch" : "kernel",
             (unsigned long long)ordinal, name, L + 1, rp->ngroups, passes, passes == 1 ? "" : "es");
  else
    snprintf(line, sizeof line, "profiling kernel %llu (%s): %d pass%s", (unsigned long long)ordinal, name, passes,
             passes == 1 ? "" : "es");
  rp->say(line);
}

static uint64_t pc_rp_next_ordinal(pc_rp *rp) {
  pthread_mutex_lock(rp->lock);
  const uint64_t ord = ++rp->nprofiled;
  pthread_mutex_unlock(rp->lock);
  return ord;
}

/* A rotated launch of group L that joins (or opens) the context's session
 * spanning launches; 0, or 1 when the session could not open. */
static int pc_rp_enter_window(pc_rp *rp, pc_rp_ctx *c, int L, uint32_t correlation_id, const char *kernel_name,
                              uint64_t *t0) {
  const int cold = rp->groups[L].cold && !rp->no_flush;
  /* The flush's buffer is readied before the session opens: its memset
   * must not become a range. */
  if (cold && !c->win_open) (void)pc_rp_flush_ready(c);
  c->mode = PC_RP_WINDOW;
  c->group = L;
  c->graph = 0;
  c->skip = 0;
  if (!c->win_open && pc_rp_win_open(rp, c, L, t0) != 0) return 1;
  unsigned char keep = PC_RW_KEEP;
  if (cold) { /* the flush is a range of its own, dropped at close */
    if (pc_rp_flush(c) == 0) {
      (void)pc_rangewin_add(&c->win, 0, PC_RW_DROP);
      keep = PC_RW_COLD;
    }
    pc_rp_phase(rp, PC_PH_FLUSH, t0);
  }
  (void)pc_rangewin_add(&c->win, correlation_id, keep); /* room for both was checked by the caller */
  c->win_exit = 1;
  c->corr = correlation_id;
  c->t_started = *t0;
  pc_rp_say_launch(rp, pc_rp_next_ordinal(rp), kernel_name, L, 0, 1, 1);
  return 0;
}

/* A graph launch whose turn has no one-pass group: never kernel-replayed
 * (docs/cupti.md §11), it measures nothing, and EXIT says why. */
static void pc_rp_enter_skip(pc_rp *rp, pc_rp_ctx *c, int L) {
  c->skip = 1;
  c->skip_passes = L >= 0 ? c->chip->gcfg[L].passes : 0;
  if (L >= 0)
    pc_err_set(&c->skip_why, PERFCHECK_ERROR_UNSUPPORTED,
               "graph launch: group %d of %zu needs %d passes alone and a graph launch is never replayed: not "
               "collected", L + 1, rp->ngroups, c->skip_passes);
  else
    pc_err_set(&c->skip_why, PERFCHECK_ERROR_UNSUPPORTED,
               "graph launch: no one-pass group configs for this device's chip (%s): not collected", c->chip->name);
}

/* What precedes SetConfig: a fresh object on a mode or config change, the
 * context idle for a user range, the L2 flushed for the cold group, the
 * counter data image laid out.  0, or 1 on failure. */
static int pc_rp_enter_prepare(pc_rp *rp, pc_rp_ctx *c, void *ctx, int L, int one_pass_group, uint64_t *t0) {
  /* One range-profiler object per config (docs/cupti.md §15).  Started
   * under user replay and then configured for kernel replay (a rotation
   * finished by kernel replay), an object made CUPTI 13.0 fault inside its
   * own cuLaunchKernel handling (a fresh object at the switch: no crash).
   * Given another one-pass config, it evaluated every metric to NaN with no
   * error, as if it kept its first.  So a mode or config change gets a
   * fresh object: Disable, then Enable.  Kernel replay alone never changes
   * either. */
  const int reconfig = c->obj_layout != -3 && c->obj_layout != L;
  if (((c->obj_mode >= 0 && c->obj_mode != c->mode) || reconfig) && !rp->no_reenable) {
    CUpti_RangeProfiler_Object *old = c->obj;
    c->obj = NULL;
    pc_rp_disable_obj(old, 0);
    if (pc_rp_ctx_enable(rp, c) != 0) return 1;
    pc_rp_phase(rp, PC_PH_ENABLE, t0);
  }
  if (c->mode == PC_RP_USER) {
    /* A user range counts every kernel of the context while it is open:
     * earlier kernels must be done first (we hold the launch gate, so no
     * later one starts).  Synchronizing is allowed inside callbacks. */
    pc_err se;
    (void)pc_ctx_synchronize((CUcontext)ctx, &se);
    pc_rp_phase(rp, PC_PH_SYNC, t0);
  }
  /* The cold group of a one-pass rotation starts from a flushed L2 (the
   * flush waits for the context, so earlier kernels are done too). */
  if (one_pass_group && rp->groups[L].cold && !rp->no_flush) {
    c->cold = pc_rp_flush(c) == 0;
    pc_rp_phase(rp, PC_PH_FLUSH, t0);
  }
  if (pc_rp_layout(rp, c, L, 1) != 0) return 1;
  pc_rp_phase(rp, PC_PH_LAYOUT, t0);
  return 0;
}

/* SetConfig and Start with layout L's config, and a user range pushed in
 * user mode; CUPTI's result (the failed call in *e). */
static CUptiResult pc_rp_enter_start(pc_rp *rp, pc_rp_ctx *c, void *ctx, int L, uint64_t *t0, pc_err *e) {
  CUpti_RangeProfiler_SetConfig_Params cp = PC_PARAMS(CUpti_RangeProfiler_SetConfig_Params);
  cp.pRangeProfilerObject = c->obj;
  cp.configSize = L < 0 ? c->chip->config_size : c->chip->gcfg[L].config_size;
  cp.pConfig = L < 0 ? c->chip->config : c->chip->gcfg[L].config;
  cp.counterDataImageSize = c->image_size;
  cp.pCounterDataImage = c->image;
  cp.range = c->mode == PC_RP_USER ? CUPTI_UserRange : CUPTI_AutoRange;
  cp.replayMode = c->mode == PC_RP_USER ? CUPTI_UserReplay : CUPTI_KernelReplay;
  cp.maxRangesPerPass = 1;
  cp.numNestingLevels = 1;
  cp.minNestingLevel = 1;
  cp.passIndex = 0;
  cp.targetNestingLevel = 1;
  CUptiResult r = PC_CUPTI(e, cuptiRangeProfilerSetConfig, &cp);
  pc_rp_phase(rp, PC_PH_SETCONFIG, t0);
  if (r == CUPTI_SUCCESS) {
    CUpti_RangeProfiler_Start_Params sp = PC_PARAMS(CUpti_RangeProfiler_Start_Params);
    sp.pRangeProfilerObject = c->obj;
    r = PC_CUPTI(e, cuptiRangeProfilerStart, &sp);
  }
  if (r != CUPTI_SUCCESS || c->mode != PC_RP_USER) return r;
  /* A user range counts whatever runs in the context while it is open.
   * Under user replay CUPTI 13.0 launches a kernel of its own, "WaitNs"
   * (one warp, about 80 us), on the profiled launches after the first of a
   * graph exec (a config change: a fresh object), carrying the graph
   * launch's correlation id.  Waiting here, before the range opens, lets
   * what Enable, SetConfig or Start queued finish first; it did not remove
   * the graph's 3 store sectors over its kernels' count (docs/cupti.md
   * §15), so whether WaitNs ran inside the range is not known. */
  pc_err se;
  pc_rp_phase(rp, PC_PH_START, t0);
  (void)pc_ctx_synchronize((CUcontext)ctx, &se);
  pc_rp_phase(rp, PC_PH_SYNC, t0);
  CUpti_RangeProfiler_PushRange_Params pp = PC_PARAMS(CUpti_RangeProfiler_PushRange_Params);
  pp.pRangeProfilerObject = c->obj;
  pp.pRangeName = "perfcheck";
  r = PC_CUPTI(e, cuptiRangeProfilerPushRange, &pp);
  if (r != CUPTI_SUCCESS) {
    CUpti_RangeProfiler_Stop_Params stp = PC_PARAMS(CUpti_RangeProfiler_Stop_Params);
    stp.pRangeProfilerObject = c->obj;
    (void)PC_CUPTI(NULL, cuptiRangeProfilerStop, &stp);
  }
  return r;
}

int pc_rp_on_launch_enter(pc_rp *rp, void *ctx, uint32_t correlation_id, const char *kernel_name, long turn,
                          int graph) {
  if (!rp || !ctx) return 1;
  uint64_t t0 = 0;
  pc_rp_ctx *c = pc_rp_enter_ctx(rp, ctx, &t0);
  if (!c) return 1;
  /* Which layout: the whole set (kernel replay), or this turn's group. */
  int L = -1;
  const int rot_new = c->chip->rot_state == 0;
  if (turn >= 0 && rp->ngroups && pc_rp_chip_rotation(rp, c->chip) == 0) L = (int)((size_t)turn % rp->ngroups);
  if (rot_new && c->chip->rot_state != 0) pc_rp_phase(rp, PC_PH_CHIP, &t0);
  /* A spanning session ends where this launch cannot join it: another
   * group, a launch of the whole set, a graph launch, or no room left for
   * a flush and a launch. */
  const int win = pc_rp_win_eligible(rp, c, L, graph);
  if (c->win_open && (!win || L != c->win_group || !pc_rangewin_room(&c->win, 2))) pc_rp_win_close(rp, c);
  if (win) return pc_rp_enter_window(rp, c, L, correlation_id, kernel_name, &t0);
  c->group = L;
  c->cold = 0;
  c->graph = graph;
  c->skip = 0;
  const int one_pass_group = L >= 0 && c->chip->gcfg[L].passes == 1;
  if (graph && !one_pass_group) {
    pc_rp_enter_skip(rp, c, L);
    return 0;
  }
  c->mode = one_pass_group && (graph || !rp->rot_kernel) ? PC_RP_USER : PC_RP_KERNEL;
  if (pc_rp_enter_prepare(rp, c, ctx, L, one_pass_group, &t0) != 0) return 1;
  pc_err e;
  const CUptiResult r = pc_rp_enter_start(rp, c, ctx, L, &t0, &e);
  if (r != CUPTI_SUCCESS) {
    pc_rp_refuse_cupti(rp, r, c->mode == PC_RP_USER ? "a rotated launch (user range)" : "", &e);
    return 1;
  }
  c->active = 1;
  c->obj_mode = c->mode;
  c->obj_layout = L;
  c->corr = correlation_id;
  pc_rp_phase(rp, PC_PH_START, &t0);
  c->t_started = t0;
  const int passes = L < 0 ? c->chip->passes : c->chip->gcfg[L].passes;
  pc_rp_say_launch(rp, pc_rp_next_ordinal(rp), kernel_name, L, graph, passes, 0);
  return 0;
}

static char *pc_rp_note(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
static char *pc_rp_note(const char *fmt, ...) {
  char buf[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return pc_strdup(buf);
}

void pc_rp_result_store_free(pc_rp_result_store *r) {
  if (!r) return;
  free(r->extra);
  free(r->note);
  r->extra = NULL;
  r->note = NULL;
}

/* The progress line of one profiled launch's phases (PERFCHECK_PROGRESS=2). */
static void pc_rp_say_phases_of_launch(const pc_rp *rp, int L, int window) {
  if (!rp->progress_launches) return;
  char line[600];
  size_t n = window ? (size_t)snprintf(line, sizeof line, "profiled launch, group %d of %zu, in a session:", L + 1,
                                       rp->ngroups)
             : L >= 0 ? (size_t)snprintf(line, sizeof line, "profiled launch, group %d of %zu:", L + 1, rp->ngroups)
                      : (size_t)snprintf(line, sizeof line, "profiled launch, every group:");
  for (int i = 0; i < PC_PH_COUNT && n < sizeof line; i++)
    if (pc_tl_ph[i]) n += (size_t)snprintf(line + n, sizeof line - n, " %s %.2f", pc_ph_names[i], (double)pc_tl_ph[i] / 1e6);
  if (n < sizeof line) snprintf(line + n, sizeof line - n, " ms");
  rp->say(line);
}

/* A graph launch whose turn measured nothing: a result that says why. */
static int pc_rp_exit_skipped(pc_rp *rp, pc_rp_ctx *c, int launch_ok, pc_rp_result_store *out) {
  c->skip = 0;
  if (!launch_ok) return 0;
  pc_rp_res_init(rp, out, c->group, c->skip_passes);
  out->skipped = 1;
  out->note = pc_strdup(c->skip_why.msg);
  return 1;
}

/* Pop (user range), Stop and Decode; CUPTI's result (the failed call in
 * *e), the ranges dropped in *dropped and Stop's all-passes flag. */
static CUptiResult pc_rp_exit_stop(pc_rp_ctx *c, void *ctx, int launch_ok, size_t *dropped, int *all_passes,
                                   pc_err *e) {
  CUptiResult r = CUPTI_SUCCESS;
  *dropped = 0;
  if (c->mode == PC_RP_USER) {
    /* The range must hold the launch's kernels: they run after the launch
     * call returned (a graph's on its own stream).  Nothing else runs (we
     * hold the launch gate), so waiting for the context waits for them. */
    pc_err se;
    if (launch_ok) (void)pc_ctx_synchronize((CUcontext)ctx, &se);
    CUpti_RangeProfiler_PopRange_Params pp = PC_PARAMS(CUpti_RangeProfiler_PopRange_Params);
    pp.pRangeProfilerObject = c->obj;
    r = PC_CUPTI(e, cuptiRangeProfilerPopRange, &pp);
  }
  CUpti_RangeProfiler_Stop_Params sp = PC_PARAMS(CUpti_RangeProfiler_Stop_Params);
  sp.pRangeProfilerObject = c->obj;
  const CUptiResult rs = PC_CUPTI(r == CUPTI_SUCCESS ? e : NULL, cuptiRangeProfilerStop, &sp);
  *all_passes = sp.isAllPassSubmitted;
  if (r == CUPTI_SUCCESS) r = rs;
  if (r == CUPTI_SUCCESS) {
    /* Decode synchronizes the context; with kernel replay every pass is done
     * by now. */
    CUpti_RangeProfiler_DecodeData_Params dp = PC_PARAMS(CUpti_RangeProfiler_DecodeData_Params);
    dp.pRangeProfilerObject = c->obj;
    r = PC_CUPTI(e, cuptiRangeProfilerDecodeData, &dp);
    *dropped = dp.numOfRangeDropped;
  }
  return r;
}

/* The decoded image's first range (this launch's kernel) evaluated into
 * res, with a note where values are missing or doubtful. */
static void pc_rp_exit_values(pc_rp_ctx *c, size_t dropped, int all_passes, pc_rp_result_store *res) {
  const pc_rp_sources *src = pc_rp_layout_src(c->chip, c->group);
  CUpti_Profiler_Host_Object *host = c->group < 0 ? c->chip->host : c->chip->gcfg[c->group].host;
  pc_err e;
  CUpti_RangeProfiler_GetCounterDataInfo_Params ip = PC_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params);
  ip.pCounterDataImage = c->image;
  ip.counterDataImageSize = c->image_size;
  if (PC_CUPTI(&e, cuptiRangeProfilerGetCounterDataInfo, &ip) != CUPTI_SUCCESS) {
    res->note = pc_rp_note("counters not collected: %s", e.msg);
    return;
  }
  if (ip.numTotalRanges == 0) {
    res->note = pc_rp_note("no range was decoded for this launch (%zu dropped): the kernel did not run under "
                           "the profiler", dropped);
    return;
  }
  double *vals = malloc(src->n * sizeof *vals);
  if (!vals) {
    res->note = pc_rp_note("out of memory evaluating the counters");
    return;
  }
  if (pc_rp_eval_range(c, host, 0, src, vals, &e) != CUPTI_SUCCESS) {
    res->note = pc_rp_note("counters not evaluated: %s", e.msg);
  } else {
    /* A user range returned the SASS-patched counters as 0 with every
     * hardware counter right (gpu.rotation): they are not measured there,
     * so null, never 0. */
    if (c->mode == PC_RP_USER)
      for (size_t k = 0; k < src->n; k++)
        if (strstr(src->names[k], "__sass_")) vals[k] = PC_NULL;
    /* NaN stays NaN: CUPTI's "no value" is never turned into 0. */
    pc_rp_sources_apply(src, vals, res->values, res->extra);
    if (ip.numTotalRanges > 1 || dropped > 0)
      res->note = pc_rp_note("%zu ranges decoded and %zu dropped for one profiled launch: another kernel ran "
                             "inside the profiled window; the first range was kept",
                             (size_t)ip.numTotalRanges, dropped);
    else if (!all_passes)
      res->note = pc_rp_note("CUPTI reported that not every pass was submitted: values may be incomplete");
  }
  free(vals);
}

int pc_rp_on_launch_exit(pc_rp *rp, void *ctx, uint32_t correlation_id, int launch_ok, pc_rp_result_store *out,
                         uint64_t *dropped_out) {
  if (dropped_out) *dropped_out = 0;
  if (!rp || !ctx || !out) return 0;
  pthread_mutex_lock(rp->lock);
  pc_rp_ctx *c = pc_rp_find_ctx_locked(rp, ctx);
  pthread_mutex_unlock(rp->lock);
  if (c && c->win_exit) { /* a launch in a spanning session: its values come at the session's close */
    c->win_exit = 0;
    if (!launch_ok && c->win_open) (void)pc_rangewin_pop(&c->win, correlation_id);
    uint64_t t0 = c->t_started;
    pc_rp_phase(rp, PC_PH_LAUNCH, &t0);
    pc_rp_say_phases_of_launch(rp, c->win_group, 1);
    return 0;
  }
  if (c && c->skip) return pc_rp_exit_skipped(rp, c, launch_ok, out);
  if (!c || !c->active || !c->obj) return 0; /* ENTER did not start a session */
  c->active = 0;
  uint64_t t0 = c->t_started;
  pc_rp_phase(rp, PC_PH_LAUNCH, &t0);
  const int L = c->group;
  pc_rp_result_store res;
  pc_rp_res_init(rp, &res, L, L < 0 ? c->chip->passes : c->chip->gcfg[L].passes);
  res.cold = c->cold;
  size_t dropped = 0;
  int all_passes = 1;
  pc_err e;
  const CUptiResult r = pc_rp_exit_stop(c, ctx, launch_ok, &dropped, &all_passes, &e);
  pc_rp_phase(rp, PC_PH_END, &t0);
  if (r != CUPTI_SUCCESS) {
    res.note = pc_rp_note("counters not collected: %s", e.msg);
    pc_rp_refuse_cupti(rp, r, "", &e);
  } else if (launch_ok) {
    pc_rp_exit_values(c, dropped, all_passes, &res);
  }
  pc_rp_phase(rp, PC_PH_EVAL, &t0);
  /* Ready for the next launch; a failure here stops collection. */
  pc_err e2;
  const CUptiResult r2 = pc_rp_image_init(c, &e2);
  pc_rp_phase(rp, PC_PH_IMAGE, &t0);
  if (r2 != CUPTI_SUCCESS) pc_rp_refuse_cupti(rp, r2, "re-initializing the counter data image", &e2);
  c->img_fresh = r2 == CUPTI_SUCCESS ? c->layout : -2;
  pc_rp_say_phases_of_launch(rp, L, 0);
  if (dropped_out) *dropped_out = dropped;
  if (!launch_ok) {
    pc_rp_result_store_free(&res);
    return 0;
  }
  *out = res;
  return 1;
}

/* ==== Context destruction, results, teardown =============================== */

/* alive: the context still exists (session end), so the flush kernel's
 * module and buffers are given back; in CONTEXT_DESTROY_STARTING they go
 * with the context. */
static void pc_rp_ctx_free(pc_rp *rp, pc_rp_ctx *c, int alive) {
  CUpti_RangeProfiler_Object *obj = c->obj;
  c->obj = NULL;
  const int was_open = c->win_open;
  if (was_open) { /* its launches' values are lost with the context */
    c->win_open = 0;
    atomic_fetch_sub(&rp->nwin, 1);
  }
  pc_rp_disable_obj(obj, c->active || was_open);
  if (alive && c->flush_state > 0 && PC_CU(NULL, cuCtxPushCurrent, (CUcontext)c->ctx) == CUDA_SUCCESS) {
    (void)PC_CU(NULL, cuMemFree, c->flush_buf);
    (void)PC_CU(NULL, cuMemFree, c->flush_out);
    (void)PC_CU(NULL, cuModuleUnload, c->flush_mod);
    CUcontext popped;
    (void)PC_CU(NULL, cuCtxPopCurrent, &popped);
  }
  for (size_t i = 0; c->imgs && i < c->nimgs; i++) free(c->imgs[i]);
  free(c->imgs);
  free(c->img_sizes);
  pc_rangewin_free(&c->win);
  free(c);
}

void pc_rp_on_context_destroy(pc_rp *rp, void *ctx) {
  if (!rp || !ctx) return;
  pthread_mutex_lock(rp->lock);
  pc_rp_ctx **pp = &rp->ctx_list, *c = NULL;
  while (*pp && (*pp)->ctx != ctx) pp = &(*pp)->next;
  if (*pp) {
    c = *pp;
    *pp = c->next;
  }
  pthread_mutex_unlock(rp->lock);
  if (c) pc_rp_ctx_free(rp, c, 0);
}

perfcheck_status pc_rp_status(const pc_rp *rp, pc_err *err) {
  pc_err_clear(err);
  if (!rp) return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "no counter layer");
  pc_rp *m = (pc_rp *)rp; /* the lock is the only mutable part */
  pthread_mutex_lock(m->lock);
  perfcheck_status st = m->status;
  pthread_mutex_unlock(m->lock);
  return st == PERFCHECK_OK ? PERFCHECK_OK : pc_err_set(err, st, "%s", rp->msg); /* msg never changes once set */
}

int pc_rp_passes(const pc_rp *rp) {
  if (!rp) return 0;
  pc_rp *m = (pc_rp *)rp;
  pthread_mutex_lock(m->lock);
  int p = m->passes;
  pthread_mutex_unlock(m->lock);
  return p;
}

const pc_rp_plan *pc_rp_get_plan(const pc_rp *rp) { return rp ? &rp->plan : NULL; }

/* One line: the host time of each phase of the profiled launches (with
 * PERFCHECK_PROGRESS), so a slow counter run says where its time went. */
void pc_rp_say_phases(pc_rp *rp) {
  if (!rp || !rp->progress || !rp->say || !rp->nprofiled) return;
  char line[900];
  size_t n = (size_t)snprintf(line, sizeof line, "counter layer, host time of %llu profiled launches:",
                              (unsigned long long)rp->nprofiled);
  const char *sep = " ";
  for (int i = 0; i < PC_PH_COUNT && n < sizeof line; i++) {
    const unsigned long long k = atomic_load(&rp->ph_n[i]);
    if (!k) continue;
    const double ms = (double)atomic_load(&rp->ph_ns[i]) / 1e6;
    n += (size_t)snprintf(line + n, sizeof line - n, "%s%s %.1f ms (%llu, %.3f ms each)", sep, pc_ph_names[i], ms, k,
                          ms / (double)k);
    sep = ", ";
  }
  const int cached = atomic_load(&rp->avail_cached);
  if (cached && n < sizeof line)
    snprintf(line + n, sizeof line - n, "; the availability image of %d chip%s from an earlier process's cache", cached,
             cached == 1 ? "" : "s");
  rp->say(line);
}

void pc_rp_destroy(pc_rp *rp) {
  if (!rp) return;
  pthread_mutex_lock(rp->lock);
  pc_rp_ctx *ctxs = rp->ctx_list;
  pc_rp_chip *chips = rp->chip_list;
  rp->ctx_list = NULL;
  rp->chip_list = NULL;
  pthread_mutex_unlock(rp->lock);
  /* Disable every context first, then the host objects, then the profiler. */
  while (ctxs) {
    pc_rp_ctx *next = ctxs->next;
    pc_rp_ctx_free(rp, ctxs, 1);
    ctxs = next;
  }
  while (chips) {
    pc_rp_chip *next = chips->next;
    pc_rp_host_close(chips->host);
    free(chips->avail);
    free(chips->config);
    pc_rp_sources_free(&chips->src);
    for (size_t g = 0; chips->gcfg && g < rp->ngroups; g++) {
      pc_rp_host_close(chips->gcfg[g].host);
      free(chips->gcfg[g].config);
      pc_rp_sources_free(&chips->gcfg[g].src);
    }
    free(chips->gcfg);
    free(chips);
    chips = next;
  }
  pc_rp_groups_free(rp->groups, rp->ngroups);
  pc_rp_plan_free(&rp->plan);
  (void)pc_rp_drain(rp, NULL, NULL);
  free(rp);
  pc_proc_profiler_release(); /* cuptiProfilerDeInitialize on the last user */
}
