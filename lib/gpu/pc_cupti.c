/* CUPTI loading; see pc_cupti.h. */
#define _GNU_SOURCE /* dlinfo, dl_iterate_phdr, secure_getenv */
#include "pc_cupti.h"

#include "pc_call.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

pc_cupti_api pc_cupti;

/* What lib/gpu keeps for the whole process, past any session, beside the
 * loader's lock (pc_cupti.h): the loaded CUPTI and what its load found,
 * the poisoned flag after a 39, the profiler's initialize count, and the
 * driver facts cached per device and per context.  `mu` guards the count
 * and the caches and serializes CUPTI's profiler host API; the load's
 * fields are written once, inside pthread_once, before anyone reads them;
 * the holder's name before the flag that publishes it. */
#define PC_MAX_DEVICES 64
#define PC_MAX_CTX 64
static struct {
  pthread_mutex_t mu;                 /* recursive */
  pthread_once_t once;
  perfcheck_status load_status;
  pc_err load_why;                    /* why the load failed */
  char where[512];                    /* the file it came from */
  int preloaded;                      /* it was in the process before us */
  unsigned ver;                       /* cuptiGetVersion */
  void *h;
  atomic_int poisoned;                /* CUPTI answered 39: no further call */
  char holder[128];
  int prof_users;                     /* cuptiProfilerInitialize's users */
  pc_device dev[PC_MAX_DEVICES];
  int dev_ok[PC_MAX_DEVICES];
  struct {
    CUcontext ctx;
    int ordinal;
  } ctx[PC_MAX_CTX];
  size_t nctx;
} pc_proc = {.mu = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP, .once = PTHREAD_ONCE_INIT,
             .load_status = PERFCHECK_ERROR_CUPTI_UNAVAILABLE};

void pc_proc_lock(void) { pthread_mutex_lock(&pc_proc.mu); }
void pc_proc_unlock(void) { pthread_mutex_unlock(&pc_proc.mu); }

#define PC_CUPTI_MAJOR 13

#ifndef PERFCHECK_CUPTI_BUILD_DIR
#define PERFCHECK_CUPTI_BUILD_DIR ""
#endif

/* A libcupti of another major version already in the process (its path in
 * *other), found by walking the loaded objects. */
typedef struct pc_loaded_scan {
  char other[400];
} pc_loaded_scan;

static int pc_scan_cb(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  pc_loaded_scan *s = data;
  const char *name = info->dlpi_name;
  if (!name || !*name) return 0;
  const char *base = strrchr(name, '/');
  base = base ? base + 1 : name;
  if (strncmp(base, "libcupti.so", 11) != 0) return 0;
  const char *ver = base + 11;
  if (strcmp(ver, ".13") == 0 || strncmp(ver, ".13.", 4) == 0) return 0;
  if (*ver == '\0') return 0; /* unversioned: its cuptiGetVersion decides below */
  if (!s->other[0]) snprintf(s->other, sizeof s->other, "%s", name);
  return 0;
}

static void pc_where_from(void *h, const char *fallback) {
  struct link_map *lm = NULL;
  if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && lm->l_name[0])
    snprintf(pc_proc.where, sizeof pc_proc.where, "%s", lm->l_name);
  else
    snprintf(pc_proc.where, sizeof pc_proc.where, "%s", fallback);
}

/* Resolves the table from h; 0 on success, else the first missing name. */
static const char *pc_cupti_resolve(void *h) {
  const char *missing = NULL;
#define PC_CUPTI_RESOLVE_(name)                                        \
  {                                                                    \
    void *p = dlsym(h, #name);                                         \
    memcpy(&pc_cupti.name, &p, sizeof p);                              \
    if (!p && !missing) missing = #name;                               \
  }
  PC_CUPTI_FUNCTIONS(PC_CUPTI_RESOLVE_)
#undef PC_CUPTI_RESOLVE_
  void *p = dlsym(h, "cuptiNvtxInitialize2");
  memcpy(&pc_cupti.cuptiNvtxInitialize2, &p, sizeof p);
  p = dlsym(h, "cuptiNvtxInitialize");
  memcpy(&pc_cupti.cuptiNvtxInitialize, &p, sizeof p);
  return missing;
}

static void pc_cupti_load_once(void) {
  pc_loaded_scan scan;
  memset(&scan, 0, sizeof scan);
  dl_iterate_phdr(pc_scan_cb, &scan);

  void *h = dlopen("libcupti.so.13", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  char tried[600] = "";
  size_t used = 0;
#define PC_TRIED_(...)                                                                   \
  do {                                                                                   \
    int n_ = snprintf(tried + used, sizeof tried - used, __VA_ARGS__);                   \
    if (n_ > 0) used = (size_t)n_ < sizeof tried - used ? used + (size_t)n_ : sizeof tried - 1; \
  } while (0)
  if (h) {
    pc_proc.preloaded = 1;
    pc_where_from(h, "libcupti.so.13 (already loaded)");
  } else if (scan.other[0]) {
    pc_err_set(&pc_proc.load_why, PERFCHECK_ERROR_CUPTI_UNAVAILABLE,
             "this process already holds another CUPTI (%s); perfcheck needs CUPTI %d and a second CUPTI in one "
             "process conflicts with the first",
             scan.other, PC_CUPTI_MAJOR);
    return;
  } else {
    const char *env = secure_getenv("PERFCHECK_CUPTI_LIBRARY");
    const char *cands[6];
    size_t nc = 0;
    char build_path[480] = "";
    if (env && *env) cands[nc++] = env;
    cands[nc++] = "libcupti.so.13";
    if (PERFCHECK_CUPTI_BUILD_DIR[0]) {
      snprintf(build_path, sizeof build_path, "%s/libcupti.so.13", PERFCHECK_CUPTI_BUILD_DIR);
      cands[nc++] = build_path;
    }
    cands[nc++] = "/usr/local/cuda/lib64/libcupti.so.13";
    cands[nc++] = "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13";
    for (size_t i = 0; i < nc && !h; i++) {
      h = dlopen(cands[i], RTLD_NOW | RTLD_LOCAL);
      if (!h) {
        const char *e = dlerror();
        PC_TRIED_("%s%s (%s)", used ? "; " : "", cands[i], e ? e : "not found");
      } else {
        pc_where_from(h, cands[i]);
      }
    }
    if (!h) {
      pc_err_set(&pc_proc.load_why, PERFCHECK_ERROR_CUPTI_UNAVAILABLE,
               "CUPTI %d (libcupti.so.13, part of the CUDA toolkit) could not be loaded: tried %s; set "
               "PERFCHECK_CUPTI_LIBRARY to its full path or add its folder to LD_LIBRARY_PATH",
               PC_CUPTI_MAJOR, tried);
      return;
    }
  }
#undef PC_TRIED_
  const char *missing = pc_cupti_resolve(h);
  if (missing) {
    pc_err_set(&pc_proc.load_why, PERFCHECK_ERROR_CUPTI_UNAVAILABLE, "%s has no %s: CUPTI older than 13.0 Update 1", pc_proc.where,
             missing);
    memset(&pc_cupti, 0, sizeof pc_cupti);
    if (!pc_proc.preloaded) dlclose(h);
    return;
  }
  uint32_t v = 0;
  if (PC_CUPTI(NULL, cuptiGetVersion, &v) != CUPTI_SUCCESS || v / 10000 != PC_CUPTI_MAJOR) {
    pc_err_set(&pc_proc.load_why, PERFCHECK_ERROR_CUPTI_UNAVAILABLE, "%s reports CUPTI API version %u; perfcheck needs CUPTI %d",
             pc_proc.where, (unsigned)v, PC_CUPTI_MAJOR);
    memset(&pc_cupti, 0, sizeof pc_cupti);
    if (!pc_proc.preloaded) dlclose(h);
    return;
  }
  pc_proc.ver = v;
  pc_proc.h = h; /* never closed: CUPTI stays for the life of the process */
  pc_proc.load_status = PERFCHECK_OK;
}

perfcheck_status pc_cupti_load(pc_err *err) {
  pthread_once(&pc_proc.once, pc_cupti_load_once);
  if (pc_proc.load_status != PERFCHECK_OK) pc_err_set(err, pc_proc.load_status, "%s", pc_proc.load_why.msg);
  return pc_proc.load_status;
}

const char *pc_cupti_path(void) { return pc_proc.load_status == PERFCHECK_OK ? pc_proc.where : ""; }
int pc_cupti_was_loaded(void) { return pc_proc.load_status == PERFCHECK_OK && pc_proc.preloaded; }
unsigned pc_cupti_version(void) { return pc_proc.load_status == PERFCHECK_OK ? pc_proc.ver : 0; }

/* ---- the checked-call wrapper (pc_call.h) ------------------------------------------ */


int pc_cupti_blocked(void) { return atomic_load_explicit(&pc_proc.poisoned, memory_order_relaxed); }

void pc_cupti_poison(const char *holder) {
  atomic_store(&pc_proc.poisoned, 1);
  /* The subscription names the holder; a 39 elsewhere does not. */
  if (holder && *holder)
    snprintf(pc_proc.holder, sizeof pc_proc.holder, "%s", holder);
  else if (!pc_proc.holder[0])
    snprintf(pc_proc.holder, sizeof pc_proc.holder, "%s", "another CUPTI client");
}

const char *pc_cupti_holder(void) { return pc_cupti_blocked() ? pc_proc.holder : ""; }

CUptiResult pc_cupti_refused(pc_err *err, const char *fn) {
  pc_err_set(err, PERFCHECK_ERROR_CUPTI_IN_USE,
             "%s: not called: CUPTI answered CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED earlier (%s holds the "
             "process)",
             fn, pc_proc.holder[0] ? pc_proc.holder : "another CUPTI client");
  return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
}

CUptiResult pc_cupti_checked(pc_err *err, const char *fn, CUptiResult r) {
  if (r == CUPTI_SUCCESS) return r;
  const char *text = NULL;
  if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
    /* No further CUPTI call, not even for the text. */
    pc_cupti_poison(NULL);
    text = "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED";
  } else if (!pc_cupti.cuptiGetResultString || pc_cupti.cuptiGetResultString(r, &text) != CUPTI_SUCCESS) {
    text = NULL;
  }
  if (text)
    pc_err_set(err, pc_cupti_status(r), "%s: %s", fn, text);
  else
    pc_err_set(err, pc_cupti_status(r), "%s: CUPTI error %d", fn, (int)r);
  return r;
}

perfcheck_status pc_cupti_status(CUptiResult r) {
  switch (r) {
    case CUPTI_SUCCESS:
      return PERFCHECK_OK;
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      return PERFCHECK_ERROR_COUNTERS_NOT_PERMITTED;
    case CUPTI_ERROR_HARDWARE_BUSY:
      return PERFCHECK_ERROR_COUNTERS_BUSY;
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
      return PERFCHECK_ERROR_CUPTI_IN_USE;
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_INVALID_CHIP_NAME:
      return PERFCHECK_ERROR_UNSUPPORTED;
    case CUPTI_ERROR_INVALID_METRIC_NAME:
      return PERFCHECK_ERROR_NOT_FOUND;
    case CUPTI_ERROR_OUT_OF_MEMORY:
      return PERFCHECK_ERROR_OUT_OF_MEMORY;
    default:
      return PERFCHECK_ERROR_CUPTI_UNAVAILABLE;
  }
}

const char *pc_cupti_fix(CUptiResult r) {
  switch (r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      return "GPU counters are restricted to admin users: run as root (in a container: --cap-add SYS_ADMIN), "
             "or load the driver with NVreg_RestrictProfilingToAdminUsers=0; see "
             "https://developer.nvidia.com/ERR_NVGPUCTRPERM";
    case CUPTI_ERROR_HARDWARE_BUSY:
      return "the counters are held by DCGM profiling or another profiler: pause DCGM with `dcgmi profile "
             "--pause` (and `dcgmi profile --resume` afterwards), or stop the other profiler";
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
      return "another CUPTI client (ncu, nsys, compute-sanitizer, a framework profiler) holds this process: run "
             "without it";
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
      return "the device is a MIG instance: counters are not available to in-process profiling there";
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
      return "the device is a vGPU without profiling support";
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
      return "confidential computing is on: counters are not available";
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
      return "the device is a CMP (crypto mining) board: counters are not available";
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
      return "SLI is enabled: counters are not available";
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
      return "counters are not supported under this WSL setup";
    default:
      return "";
  }
}


/* ---- the profiler's initialize count --------------------------------------------------- */

perfcheck_status pc_proc_profiler_acquire(pc_err *err) {
  perfcheck_status st = PERFCHECK_OK;
  pc_err e;
  /* cuptiProfilerInitialize does not call back into us, so holding this
   * lock across it cannot deadlock. */
  pc_proc_lock();
  if (pc_proc.prof_users == 0) {
    CUpti_Profiler_Initialize_Params p = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE, NULL};
    CUptiResult r = PC_CUPTI(&e, cuptiProfilerInitialize, &p);
    if (r != CUPTI_SUCCESS) {
      st = pc_cupti_status(r);
      if (st == PERFCHECK_ERROR_NOT_FOUND || st == PERFCHECK_ERROR_OUT_OF_MEMORY)
        st = PERFCHECK_ERROR_CUPTI_UNAVAILABLE;
      const char *fix = pc_cupti_fix(r);
      pc_err_set(err, st, "%s%s%s", e.msg, fix[0] ? ": " : "", fix);
    }
  }
  if (st == PERFCHECK_OK) pc_proc.prof_users++;
  pc_proc_unlock();
  return st;
}

void pc_proc_profiler_release(void) {
  pc_proc_lock();
  if (pc_proc.prof_users > 0 && --pc_proc.prof_users == 0) {
    CUpti_Profiler_DeInitialize_Params p = {CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE, NULL};
    (void)PC_CUPTI(NULL, cuptiProfilerDeInitialize, &p);
  }
  pc_proc_unlock();
}

/* ---- the driver facts' caches ----------------------------------------------------------- */

void pc_proc_cache_reset(void) {
  pc_proc_lock();
  memset(pc_proc.dev_ok, 0, sizeof pc_proc.dev_ok);
  pc_proc.nctx = 0;
  pc_proc_unlock();
}

int pc_proc_device_get(int ordinal, pc_device *out) {
  int ok = 0;
  if (ordinal < 0 || ordinal >= PC_MAX_DEVICES) return 0;
  pc_proc_lock();
  if (pc_proc.dev_ok[ordinal]) {
    *out = pc_proc.dev[ordinal];
    ok = 1;
  }
  pc_proc_unlock();
  return ok;
}

void pc_proc_device_put(int ordinal, const pc_device *d) {
  if (ordinal < 0 || ordinal >= PC_MAX_DEVICES) return;
  pc_proc_lock();
  pc_proc.dev[ordinal] = *d;
  pc_proc.dev_ok[ordinal] = 1;
  pc_proc_unlock();
}

int pc_proc_ctx_ordinal_get(CUcontext ctx) {
  int ord = -1;
  pc_proc_lock();
  for (size_t i = 0; i < pc_proc.nctx; i++)
    if (pc_proc.ctx[i].ctx == ctx) ord = pc_proc.ctx[i].ordinal;
  pc_proc_unlock();
  return ord;
}

void pc_proc_ctx_ordinal_put(CUcontext ctx, int ordinal) {
  pc_proc_lock();
  if (pc_proc.nctx < PC_MAX_CTX) {
    pc_proc.ctx[pc_proc.nctx].ctx = ctx;
    pc_proc.ctx[pc_proc.nctx].ordinal = ordinal;
    pc_proc.nctx++;
  }
  pc_proc_unlock();
}
