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

static pthread_once_t pc_cupti_once = PTHREAD_ONCE_INIT;
/* The loader's lock (pc_cupti.h). */
static pthread_mutex_t pc_proc_mu = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
void pc_proc_lock(void) { pthread_mutex_lock(&pc_proc_mu); }
void pc_proc_unlock(void) { pthread_mutex_unlock(&pc_proc_mu); }
static perfcheck_status pc_cupti_load_status = PERFCHECK_ERROR_CUPTI_UNAVAILABLE;
static char pc_cupti_msg[768];
static char pc_cupti_where[512];
static int pc_cupti_preloaded;
static unsigned pc_cupti_ver;
static void *pc_cupti_h;

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
    snprintf(pc_cupti_where, sizeof pc_cupti_where, "%s", lm->l_name);
  else
    snprintf(pc_cupti_where, sizeof pc_cupti_where, "%s", fallback);
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
    pc_cupti_preloaded = 1;
    pc_where_from(h, "libcupti.so.13 (already loaded)");
  } else if (scan.other[0]) {
    snprintf(pc_cupti_msg, sizeof pc_cupti_msg,
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
      snprintf(pc_cupti_msg, sizeof pc_cupti_msg,
               "CUPTI %d (libcupti.so.13, part of the CUDA toolkit) could not be loaded: tried %s; set "
               "PERFCHECK_CUPTI_LIBRARY to its full path or add its folder to LD_LIBRARY_PATH",
               PC_CUPTI_MAJOR, tried);
      return;
    }
  }
#undef PC_TRIED_
  const char *missing = pc_cupti_resolve(h);
  if (missing) {
    snprintf(pc_cupti_msg, sizeof pc_cupti_msg, "%s has no %s: CUPTI older than 13.0 Update 1", pc_cupti_where,
             missing);
    memset(&pc_cupti, 0, sizeof pc_cupti);
    if (!pc_cupti_preloaded) dlclose(h);
    return;
  }
  uint32_t v = 0;
  if (PC_CUPTI(NULL, cuptiGetVersion, &v) != CUPTI_SUCCESS || v / 10000 != PC_CUPTI_MAJOR) {
    snprintf(pc_cupti_msg, sizeof pc_cupti_msg, "%s reports CUPTI API version %u; perfcheck needs CUPTI %d",
             pc_cupti_where, (unsigned)v, PC_CUPTI_MAJOR);
    memset(&pc_cupti, 0, sizeof pc_cupti);
    if (!pc_cupti_preloaded) dlclose(h);
    return;
  }
  pc_cupti_ver = v;
  pc_cupti_h = h; /* never closed: CUPTI stays for the life of the process */
  pc_cupti_load_status = PERFCHECK_OK;
}

perfcheck_status pc_cupti_load(pc_err *err) {
  pthread_once(&pc_cupti_once, pc_cupti_load_once);
  if (pc_cupti_load_status != PERFCHECK_OK) pc_err_set(err, pc_cupti_load_status, "%s", pc_cupti_msg);
  return pc_cupti_load_status;
}

const char *pc_cupti_path(void) { return pc_cupti_load_status == PERFCHECK_OK ? pc_cupti_where : ""; }
int pc_cupti_was_loaded(void) { return pc_cupti_load_status == PERFCHECK_OK && pc_cupti_preloaded; }
unsigned pc_cupti_version(void) { return pc_cupti_load_status == PERFCHECK_OK ? pc_cupti_ver : 0; }

/* ---- the checked-call wrapper (pc_call.h) ------------------------------------------ */

static atomic_int pc_cupti_poisoned;
static char pc_cupti_holder_name[128];

int pc_cupti_blocked(void) { return atomic_load_explicit(&pc_cupti_poisoned, memory_order_relaxed); }

void pc_cupti_poison(const char *holder) {
  atomic_store(&pc_cupti_poisoned, 1);
  /* The subscription names the holder; a 39 elsewhere does not. */
  if (holder && *holder)
    snprintf(pc_cupti_holder_name, sizeof pc_cupti_holder_name, "%s", holder);
  else if (!pc_cupti_holder_name[0])
    snprintf(pc_cupti_holder_name, sizeof pc_cupti_holder_name, "%s", "another CUPTI client");
}

const char *pc_cupti_holder(void) { return pc_cupti_blocked() ? pc_cupti_holder_name : ""; }

CUptiResult pc_cupti_refused(pc_err *err, const char *fn) {
  pc_err_set(err, PERFCHECK_ERROR_CUPTI_IN_USE,
             "%s: not called: CUPTI answered CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED earlier (%s holds the "
             "process)",
             fn, pc_cupti_holder_name[0] ? pc_cupti_holder_name : "another CUPTI client");
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

