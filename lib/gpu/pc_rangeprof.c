/*
 * pc_rangeprof.c: the target side of the counter layer (see pc_rangeprof.h).
 *
 * Each profiled launch is one short range-profiler session on its context:
 * ENTER does SetConfig (auto range, kernel replay, one range) and Start;
 * CUPTI replays the kernel once per pass inside the launch call; EXIT does
 * Stop, Decode, evaluates the one range and re-initializes the counter data
 * image for the next launch.
 *
 * State: one host object and config image per chip (built at the first
 * profiled launch on a context of that chip, with that context's counter
 * availability image); one range-profiler object and counter data image per
 * context, enabled at its first profiled launch.  At most one context per
 * device is enabled at a time (NVIDIA's injection sample does the same): a
 * launch on another context of the device disables the previous one first.
 *
 * Locking: rp->lock (owned here, a leaf, taken after the launch rwlock of
 * pc_capture.c) guards the lists, the results and the status, and is never
 * held across a CUPTI call.  The launch hooks rely on the capture
 * layer's exclusive launch lock: no two profiled launches run at once, so a
 * context's CUPTI objects are only touched by one thread at a time.  A
 * context's profiler object changes hands under rp->lock (taken out of the
 * entry, then disabled outside the lock), so context destruction on another
 * thread cannot disable it twice.
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
 * each profiled launch prints one line before its replay:
 *   perfcheck: profiling kernel 3 (scaleAdd<4>): 4 passes
 */
#define _GNU_SOURCE /* secure_getenv */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cupti_activity.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include "pc_cuda.h"
#include "pc_rp_internal.h"

#define PC_RP_MAX_DEVICES 64

typedef struct pc_rp_chip {
  struct pc_rp_chip *next;
  char name[64];
  CUpti_Profiler_Host_Object *host; /* built the config; evaluates */
  uint8_t *avail;
  uint8_t *config;
  size_t config_size;
  int passes;
  size_t n;                         /* counter names in the config */
  const char **names;               /* static table names or plan->extra strings */
  size_t *slots;                    /* pc_metric_id, or PC_M_COUNT + extra index */
  unsigned char via[PC_M_COUNT];    /* 1: the slot is filled by a substitute */
} pc_rp_chip;

typedef struct pc_rp_ctx {
  struct pc_rp_ctx *next;
  void *ctx;
  int dev;                          /* -1: unknown */
  pc_rp_chip *chip;
  CUpti_RangeProfiler_Object *obj;  /* NULL while disabled */
  uint8_t *image;
  size_t image_size;
  int active;                       /* between a successful Start and EXIT */
  uint32_t corr;
} pc_rp_ctx;

typedef struct pc_rp_stored {
  uint32_t corr;
  void *ctx;
  int passes;
  double values[PC_M_COUNT];
  unsigned char via[PC_M_COUNT];
  double *extra;
  char *note;
} pc_rp_stored;

struct pc_rp {
  pthread_mutex_t lock;
  pc_rp_plan plan;
  int progress;
  perfcheck_status status;
  char msg[640];
  int ndev;
  char chips[PC_RP_MAX_DEVICES][64];
  int uniform_chip;                 /* every device has chips[0] */
  pc_rp_chip *chip_list;
  pc_rp_ctx *ctx_list;
  pc_rp_stored *results;
  size_t nresults, cap_results;
  uint64_t dropped;
  uint64_t nprofiled;
  int passes;
};

/* Stops counter collection for the rest of the process (first failure wins). */
static void pc_rp_refuse(pc_rp *rp, perfcheck_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void pc_rp_refuse(pc_rp *rp, perfcheck_status st, const char *fmt, ...) {
  pthread_mutex_lock(&rp->lock);
  if (rp->status == PERFCHECK_OK) {
    rp->status = st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rp->msg, sizeof rp->msg, fmt, ap);
    va_end(ap);
  }
  pthread_mutex_unlock(&rp->lock);
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

perfcheck_status pc_rp_create(pc_rp_plan *plan, int progress, pc_rp **out, pc_err *err) {
  pc_err_clear(err);
  if (!out || !plan) return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "pc_rp_create: NULL argument");
  *out = NULL;
  /* Never a CUPTI call without a driver (CUPTI 13.0 crashes without one). */
  perfcheck_status st = pc_cuda_load(err);
  if (st == PERFCHECK_OK) st = pc_rp_nvperf_load(err);
  if (st == PERFCHECK_OK) st = pc_rp_profiler_acquire(err);
  if (st != PERFCHECK_OK) return st;
  pc_rp *rp = calloc(1, sizeof *rp);
  if (!rp) {
    pc_rp_profiler_release();
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

  if (pthread_mutex_init(&rp->lock, NULL) != 0) {
    st = pc_err_set(err, PERFCHECK_ERROR_INTERNAL, "pthread_mutex_init failed");
    goto fail;
  }
  rp->plan = *plan;
  memset(plan, 0, sizeof *plan);
  const char *env = secure_getenv("PERFCHECK_PROGRESS"); /* a privileged process reads no variable */
  rp->progress = progress || (env && env[0] && strcmp(env, "0") != 0);
  rp->status = PERFCHECK_OK;
  *out = rp;
  return PERFCHECK_OK;

fail: /* the one cleanup path */
  free(rp);
  pc_rp_profiler_release();
  return st;
}

/* ==== Per chip and per context ============================================= */

/* Called from ENTER (serialized by the launch lock) for the first context of
 * a chip: availability image, host object, config image. */
static pc_rp_chip *pc_rp_chip_get(pc_rp *rp, const char *name, void *ctx) {
  pthread_mutex_lock(&rp->lock);
  pc_rp_chip *ch = rp->chip_list;
  while (ch && strcmp(ch->name, name) != 0) ch = ch->next;
  pthread_mutex_unlock(&rp->lock);
  if (ch) return ch;

  ch = calloc(1, sizeof *ch);
  if (!ch) {
    pc_rp_refuse(rp, PERFCHECK_ERROR_OUT_OF_MEMORY, "out of memory for the %s host object", name);
    return NULL;
  }
  snprintf(ch->name, sizeof ch->name, "%s", name);

  /* The real availability image: MIG, vGPU and reduced SKUs can lack
   * counters that the chip name alone promises. */
  CUpti_Profiler_GetCounterAvailability_Params ap = PC_PARAMS(CUpti_Profiler_GetCounterAvailability_Params);
  ap.ctx = (CUcontext)ctx;
  pc_err e;
  CUptiResult r = PC_CUPTI(&e, cuptiProfilerGetCounterAvailability, &ap);
  if (r == CUPTI_SUCCESS && ap.counterAvailabilityImageSize > 0) {
    ch->avail = malloc(ap.counterAvailabilityImageSize);
    if (ch->avail) {
      ap.pCounterAvailabilityImage = ch->avail;
      r = PC_CUPTI(&e, cuptiProfilerGetCounterAvailability, &ap);
    }
  }
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
  if (st == PERFCHECK_OK) {
    ch->n = pc_rp_plan_counter_names(&rp->plan, NULL, 0);
    ch->names = calloc(ch->n ? ch->n : 1, sizeof *ch->names);
    ch->slots = calloc(ch->n ? ch->n : 1, sizeof *ch->slots);
    if (!ch->names || !ch->slots) {
      st = pc_err_set(&err, PERFCHECK_ERROR_OUT_OF_MEMORY, "out of memory");
    } else if (ch->n == 0) {
      st = pc_err_set(&err, PERFCHECK_ERROR_UNSUPPORTED, "none of the requested metrics can be collected on this %s device",
                      ch->name);
    } else {
      pc_rp_plan_counter_names(&rp->plan, ch->names, ch->n);
      pc_rp_plan_slots(&rp->plan, ch->slots, ch->n);
      for (size_t k = 0; k < ch->n; k++)
        if (ch->slots[k] < PC_M_COUNT) ch->via[ch->slots[k]] = rp->plan.use_substitute[ch->slots[k]];
    }
  }
  if (st != PERFCHECK_OK) {
    pc_rp_host_close(ch->host);
    free(ch->config);
    free(ch->avail);
    free(ch->names);
    free(ch->slots);
    free(ch);
    pc_rp_refuse(rp, st, "building the counter configuration for %s: %s", name, err.msg);
    return NULL;
  }
  pthread_mutex_lock(&rp->lock);
  ch->next = rp->chip_list;
  rp->chip_list = ch;
  if (ch->passes > rp->passes) rp->passes = ch->passes;
  pthread_mutex_unlock(&rp->lock);
  return ch;
}

static pc_rp_ctx *pc_rp_find_ctx_locked(pc_rp *rp, void *ctx) {
  for (pc_rp_ctx *c = rp->ctx_list; c; c = c->next)
    if (c->ctx == ctx) return c;
  return NULL;
}

static pc_rp_ctx *pc_rp_ctx_new(pc_rp *rp, void *ctx) {
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
  c->chip = pc_rp_chip_get(rp, chip, ctx);
  if (!c->chip) {
    free(c);
    return NULL;
  }
  pthread_mutex_lock(&rp->lock);
  c->next = rp->ctx_list;
  rp->ctx_list = c;
  pthread_mutex_unlock(&rp->lock);
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

/* Enables the range profiler on c (its first profiled launch, or again after
 * another context of its device took the profiler). */
static int pc_rp_ctx_enable(pc_rp *rp, pc_rp_ctx *c) {
  /* One enabled context per device: take the others' objects out under the
   * lock, disable them outside it. */
  for (;;) {
    CUpti_RangeProfiler_Object *other = NULL;
    pthread_mutex_lock(&rp->lock);
    for (pc_rp_ctx *o = rp->ctx_list; o; o = o->next)
      if (o != c && o->obj && (o->dev == c->dev || o->dev < 0 || c->dev < 0)) {
        other = o->obj;
        o->obj = NULL;
        break;
      }
    pthread_mutex_unlock(&rp->lock);
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

  /* The counter data image, for one range.  GetCounterDataSize is called
   * for this object's one metric list only: the image is laid out for the
   * list of the last size query on the object, and another list in between
   * turned values into NaN without an error (docs/cupti.md §11). */
  CUpti_RangeProfiler_GetCounterDataSize_Params sp = PC_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params);
  sp.pRangeProfilerObject = c->obj;
  sp.pMetricNames = c->chip->names;
  sp.numMetrics = c->chip->n;
  sp.maxNumOfRanges = 1;
  sp.maxNumRangeTreeNodes = 1;
  r = PC_CUPTI(&e, cuptiRangeProfilerGetCounterDataSize, &sp);
  if (r == CUPTI_SUCCESS && sp.counterDataSize != c->image_size) {
    free(c->image);
    c->image = malloc(sp.counterDataSize ? sp.counterDataSize : 1);
    c->image_size = c->image ? sp.counterDataSize : 0;
    if (!c->image) {
      pc_rp_disable_obj(c->obj, 0);
      c->obj = NULL;
      pc_rp_refuse(rp, PERFCHECK_ERROR_OUT_OF_MEMORY, "out of memory for a %zu-byte counter data image",
                   sp.counterDataSize);
      return -1;
    }
  }
  if (r == CUPTI_SUCCESS) r = pc_rp_image_init(c, &e);
  if (r != CUPTI_SUCCESS) {
    pc_rp_refuse_cupti(rp, r, "", &e);
    pc_rp_disable_obj(c->obj, 0);
    c->obj = NULL;
    return -1;
  }
  return 0;
}

/* ==== Launch hooks ========================================================== */

int pc_rp_on_launch_enter(pc_rp *rp, void *ctx, uint32_t correlation_id, const char *kernel_name) {
  if (!rp || !ctx) return 1;
  pthread_mutex_lock(&rp->lock);
  perfcheck_status st = rp->status;
  pc_rp_ctx *c = st == PERFCHECK_OK ? pc_rp_find_ctx_locked(rp, ctx) : NULL;
  pthread_mutex_unlock(&rp->lock);
  if (st != PERFCHECK_OK) return 1;
  if (!c && !(c = pc_rp_ctx_new(rp, ctx))) return 1;
  if (!c->obj && pc_rp_ctx_enable(rp, c) != 0) return 1;

  CUpti_RangeProfiler_SetConfig_Params cp = PC_PARAMS(CUpti_RangeProfiler_SetConfig_Params);
  cp.pRangeProfilerObject = c->obj;
  cp.configSize = c->chip->config_size;
  cp.pConfig = c->chip->config;
  cp.counterDataImageSize = c->image_size;
  cp.pCounterDataImage = c->image;
  cp.range = CUPTI_AutoRange;
  cp.replayMode = CUPTI_KernelReplay;
  cp.maxRangesPerPass = 1;
  cp.numNestingLevels = 1;
  cp.minNestingLevel = 1;
  cp.passIndex = 0;
  cp.targetNestingLevel = 1;
  pc_err e;
  CUptiResult r = PC_CUPTI(&e, cuptiRangeProfilerSetConfig, &cp);
  if (r == CUPTI_SUCCESS) {
    CUpti_RangeProfiler_Start_Params sp = PC_PARAMS(CUpti_RangeProfiler_Start_Params);
    sp.pRangeProfilerObject = c->obj;
    r = PC_CUPTI(&e, cuptiRangeProfilerStart, &sp);
  }
  if (r != CUPTI_SUCCESS) {
    pc_rp_refuse_cupti(rp, r, "", &e);
    return 1;
  }
  c->active = 1;
  c->corr = correlation_id;
  pthread_mutex_lock(&rp->lock);
  uint64_t ordinal = ++rp->nprofiled;
  pthread_mutex_unlock(&rp->lock);
  if (rp->progress)
    fprintf(stderr, "perfcheck: profiling kernel %llu (%s): %d pass%s\n", (unsigned long long)ordinal,
            kernel_name ? kernel_name : "unnamed", c->chip->passes, c->chip->passes == 1 ? "" : "es");
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

void pc_rp_on_launch_exit(pc_rp *rp, void *ctx, uint32_t correlation_id, int launch_ok) {
  if (!rp || !ctx) return;
  pthread_mutex_lock(&rp->lock);
  pc_rp_ctx *c = pc_rp_find_ctx_locked(rp, ctx);
  pthread_mutex_unlock(&rp->lock);
  if (!c || !c->active || !c->obj) return; /* ENTER did not start a session */
  c->active = 0;
  pc_rp_chip *ch = c->chip;

  pc_rp_stored res;
  memset(&res, 0, sizeof res);
  res.corr = correlation_id;
  res.ctx = ctx;
  res.passes = ch->passes;
  for (int i = 0; i < PC_M_COUNT; i++) res.values[i] = PC_NULL;
  memcpy(res.via, ch->via, sizeof res.via);
  size_t nextra = rp->plan.nextra;
  if (nextra) {
    res.extra = malloc(nextra * sizeof *res.extra);
    if (res.extra)
      for (size_t i = 0; i < nextra; i++) res.extra[i] = PC_NULL;
  }

  size_t dropped = 0;
  CUpti_RangeProfiler_Stop_Params sp = PC_PARAMS(CUpti_RangeProfiler_Stop_Params);
  sp.pRangeProfilerObject = c->obj;
  pc_err e;
  CUptiResult r = PC_CUPTI(&e, cuptiRangeProfilerStop, &sp);
  if (r == CUPTI_SUCCESS) {
    /* Decode synchronizes the context; with kernel replay every pass is done
     * by now. */
    CUpti_RangeProfiler_DecodeData_Params dp = PC_PARAMS(CUpti_RangeProfiler_DecodeData_Params);
    dp.pRangeProfilerObject = c->obj;
    r = PC_CUPTI(&e, cuptiRangeProfilerDecodeData, &dp);
    dropped = dp.numOfRangeDropped;
  }
  if (r != CUPTI_SUCCESS) {
    res.note = pc_rp_note("counters not collected: %s", e.msg);
    pc_rp_refuse_cupti(rp, r, "", &e);
  } else if (launch_ok) {
    CUpti_RangeProfiler_GetCounterDataInfo_Params ip = PC_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params);
    ip.pCounterDataImage = c->image;
    ip.counterDataImageSize = c->image_size;
    r = PC_CUPTI(&e, cuptiRangeProfilerGetCounterDataInfo, &ip);
    if (r != CUPTI_SUCCESS) {
      res.note = pc_rp_note("counters not collected: %s", e.msg);
    } else if (ip.numTotalRanges == 0) {
      res.note = pc_rp_note("no range was decoded for this launch (%zu dropped): the kernel did not run under "
                            "the profiler",
                            dropped);
    } else {
      double *vals = malloc(ch->n * sizeof *vals);
      if (!vals) {
        res.note = pc_rp_note("out of memory evaluating the counters");
      } else {
        for (size_t k = 0; k < ch->n; k++) vals[k] = PC_NULL;
        CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = PC_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
        ev.pHostObject = ch->host;
        ev.pCounterDataImage = c->image;
        ev.counterDataImageSize = c->image_size;
        ev.rangeIndex = 0; /* the first range is this launch's kernel */
        ev.ppMetricNames = ch->names;
        ev.numMetrics = ch->n;
        ev.pMetricValues = vals;
        r = PC_CUPTI(&e, cuptiProfilerHostEvaluateToGpuValues, &ev);
        if (r != CUPTI_SUCCESS) {
          res.note = pc_rp_note("counters not evaluated: %s", e.msg);
        } else {
          /* NaN stays NaN: CUPTI's "no value" is never turned into 0. */
          for (size_t k = 0; k < ch->n; k++) {
            size_t s = ch->slots[k];
            if (s < PC_M_COUNT)
              res.values[s] = vals[k];
            else if (res.extra && s - PC_M_COUNT < nextra)
              res.extra[s - PC_M_COUNT] = vals[k];
          }
          if (ip.numTotalRanges > 1 || dropped > 0)
            res.note = pc_rp_note("%zu ranges decoded and %zu dropped for one profiled launch: another kernel ran "
                                  "inside the profiled window; the first range was kept",
                                  (size_t)ip.numTotalRanges, dropped);
          else if (!sp.isAllPassSubmitted)
            res.note = pc_rp_note("CUPTI reported that not every pass was submitted: values may be incomplete");
        }
        free(vals);
      }
    }
  }
  /* Ready for the next launch; a failure here stops collection. */
  pc_err e2;
  CUptiResult r2 = pc_rp_image_init(c, &e2);
  if (r2 != CUPTI_SUCCESS) pc_rp_refuse_cupti(rp, r2, "re-initializing the counter data image", &e2);

  pthread_mutex_lock(&rp->lock);
  rp->dropped += dropped;
  int stored = 0;
  if (launch_ok) {
    if (rp->nresults == rp->cap_results) {
      size_t cap = rp->cap_results ? 2 * rp->cap_results : 16;
      pc_rp_stored *grown = realloc(rp->results, cap * sizeof *grown);
      if (grown) {
        rp->results = grown;
        rp->cap_results = cap;
      }
    }
    if (rp->nresults < rp->cap_results) {
      rp->results[rp->nresults++] = res;
      stored = 1;
    }
  }
  pthread_mutex_unlock(&rp->lock);
  if (!stored) {
    free(res.extra);
    free(res.note);
  }
}

/* ==== Context destruction, results, teardown =============================== */

static void pc_rp_ctx_free(pc_rp_ctx *c) {
  CUpti_RangeProfiler_Object *obj = c->obj;
  c->obj = NULL;
  pc_rp_disable_obj(obj, c->active);
  free(c->image);
  free(c);
}

void pc_rp_on_context_destroy(pc_rp *rp, void *ctx) {
  if (!rp || !ctx) return;
  pthread_mutex_lock(&rp->lock);
  pc_rp_ctx **pp = &rp->ctx_list, *c = NULL;
  while (*pp && (*pp)->ctx != ctx) pp = &(*pp)->next;
  if (*pp) {
    c = *pp;
    *pp = c->next;
  }
  pthread_mutex_unlock(&rp->lock);
  if (c) pc_rp_ctx_free(c);
}

perfcheck_status pc_rp_status(const pc_rp *rp, const char **msg) {
  if (!rp) {
    if (msg) *msg = "no counter layer";
    return PERFCHECK_ERROR_INVALID_ARGUMENT;
  }
  pc_rp *m = (pc_rp *)rp; /* the lock is the only mutable part */
  pthread_mutex_lock(&m->lock);
  perfcheck_status st = m->status;
  pthread_mutex_unlock(&m->lock);
  if (msg) *msg = st == PERFCHECK_OK ? "" : rp->msg; /* msg never changes once set */
  return st;
}

perfcheck_status pc_rp_collect(pc_rp *rp, pc_rp_result_fn fn, void *user, uint64_t *dropped, pc_err *err) {
  pc_err_clear(err);
  if (dropped) *dropped = 0;
  if (!rp || !fn) return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "pc_rp_collect: NULL argument");
  pthread_mutex_lock(&rp->lock);
  pc_rp_stored *list = rp->results;
  size_t n = rp->nresults;
  uint64_t d = rp->dropped;
  rp->results = NULL;
  rp->nresults = rp->cap_results = 0;
  rp->dropped = 0;
  size_t nextra = rp->plan.nextra;
  pthread_mutex_unlock(&rp->lock);
  /* fn runs without the lock: it may call into the session. */
  for (size_t i = 0; i < n; i++) {
    pc_rp_result res;
    memset(&res, 0, sizeof res);
    res.correlation_id = list[i].corr;
    res.ctx = list[i].ctx;
    res.passes = list[i].passes;
    res.values = list[i].values;
    res.extra = list[i].extra;
    res.nextra = list[i].extra ? nextra : 0;
    res.via_substitute = list[i].via;
    res.note = list[i].note;
    fn(user, &res);
    free(list[i].extra);
    free(list[i].note);
  }
  free(list);
  if (dropped) *dropped = d;
  return PERFCHECK_OK;
}

int pc_rp_passes(const pc_rp *rp) {
  if (!rp) return 0;
  pc_rp *m = (pc_rp *)rp;
  pthread_mutex_lock(&m->lock);
  int p = m->passes;
  pthread_mutex_unlock(&m->lock);
  return p;
}

const pc_rp_plan *pc_rp_get_plan(const pc_rp *rp) { return rp ? &rp->plan : NULL; }

void pc_rp_destroy(pc_rp *rp) {
  if (!rp) return;
  pthread_mutex_lock(&rp->lock);
  pc_rp_ctx *ctxs = rp->ctx_list;
  pc_rp_chip *chips = rp->chip_list;
  rp->ctx_list = NULL;
  rp->chip_list = NULL;
  pthread_mutex_unlock(&rp->lock);
  /* Disable every context first, then the host objects, then the profiler. */
  while (ctxs) {
    pc_rp_ctx *next = ctxs->next;
    pc_rp_ctx_free(ctxs);
    ctxs = next;
  }
  while (chips) {
    pc_rp_chip *next = chips->next;
    pc_rp_host_close(chips->host);
    free(chips->avail);
    free(chips->config);
    free(chips->names);
    free(chips->slots);
    free(chips);
    chips = next;
  }
  for (size_t i = 0; i < rp->nresults; i++) {
    free(rp->results[i].extra);
    free(rp->results[i].note);
  }
  free(rp->results);
  pc_rp_plan_free(&rp->plan);
  pthread_mutex_destroy(&rp->lock);
  free(rp);
  pc_rp_profiler_release(); /* cuptiProfilerDeInitialize on the last user */
}
