/*
 * pc_inject.c: libperfcheck_inject.so, the injection library that profiles a
 * program built without perfcheck (pc_inject.h says how it splits in two).
 *
 * Ways in, all ending in the same idempotent start-up:
 *   CUDA_INJECTION64_PATH=libperfcheck_inject.so (what `perfcheck run` sets):
 *     the driver loads it during cuInit and calls InitializeInjection.  The
 *     supported way; it works whatever the program links (static cudart
 *     included): launches are seen through CUPTI callbacks, no CUDA symbol
 *     is interposed.
 *   LD_PRELOAD=libperfcheck_inject.so: in a program that is a CUDA program
 *     when it starts (device code in the executable, or libcudart/libcuda
 *     loaded), the constructor sets CUDA_INJECTION64_PATH to this library
 *     when it is unset (the driver reads it at cuInit, which comes later), so
 *     the driver calls InitializeInjection the same way.
 *   NVTX_INJECTION64_PATH=libperfcheck_inject.so (set by both, when unset):
 *     each NVTX-using module calls InitializeInjectionNvtx2 (NVTX 3) or
 *     InitializeInjectionNvtx (the NVTX 2 library, libnvToolsExt.so.1) at its
 *     first NVTX call; both forward to CUPTI (cuptiNvtxInitialize2 /
 *     cuptiNvtxInitialize, which libcupti exports and no header declares), so
 *     that the ranges reach the CUPTI NVTX callbacks the runtime enables.
 * Those three functions are all the library exports (inject.map).
 *
 * A program that never touches CUDA is left alone: the constructor reads two
 * environment variables, looks at the executable's section headers once and
 * registers an exit check that opens no file; it sets CUDA_INJECTION64_PATH
 * and NVTX_INJECTION64_PATH only in a CUDA program; nothing loads CUPTI or
 * calls CUDA until the driver calls InitializeInjection (or an NVTX call
 * asks for CUPTI).  A privileged process (AT_SECURE) is not touched at all.
 *
 * "perfcheck: profiling off: REASON", one line on stderr, whenever profiling
 * cannot happen in a program that uses CUDA; the program runs on untouched.
 * When the driver never called InitializeInjection (no driver, the
 * toolkit's stub, another tool's CUDA_INJECTION64_PATH), the exit check says
 * why, if the program is a CUDA program: its executable holds device code
 * (an ELF section .nv_fatbin or .nvFatBinSegment) or it loaded
 * libcudart/libcuda.
 *
 * One copy of libperfcheck per process: when the program links libperfcheck
 * itself, that copy is the one used (found by its soname), so the process
 * has one session state.  A program that created its own session before its
 * first CUDA context keeps it, and the injection steps aside with one line
 * (pc_inject_rt.c); one that creates it later finds the injected session in
 * place (PERFCHECK_ERROR_SESSION_EXISTS).
 */
#define _GNU_SOURCE /* dladdr, dl_iterate_phdr, RTLD_NOLOAD, secure_getenv */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/pc_err.h"
#include "pc_inject.h"

#define PC_EXPORT __attribute__((visibility("default")))

/* The loader's process-wide state, all of it, beside its one lock: `mu`
 * guards the runtime's handle (loaded once); the paths are written in the
 * constructor before any other thread can read them; the flags are atomic. */
static struct {
  pthread_mutex_t mu;
  void *rt;                   /* libperfcheck.so.0 */
  char self[PATH_MAX];        /* this library, absolute */
  char dir[PATH_MAX];         /* its directory, where libperfcheck.so.0 lies */
  char other[512];            /* CUDA_INJECTION64_PATH named another library */
  atomic_int cuinit;          /* the driver called InitializeInjection */
  atomic_int exiting;         /* the exit check runs: InitializeInjection does nothing */
  atomic_int nvtx_asked;      /* NVTX loaded CUPTI (and the driver) for itself */
  int exe_fatbin;             /* -1 not looked at yet; else whether the executable holds device code */
} pc_ld = {.mu = PTHREAD_MUTEX_INITIALIZER, .exe_fatbin = -1};

/* The one line, through the libraries' one line writer (pc_say, compiled in:
 * base/pc_err.c). */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static void pc_ld_off(const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  pc_say("profiling off: %s", buf);
}

static int pc_ld_same_file(const char *a, const char *b) {
  struct stat sa, sb;
  if (stat(a, &sa) != 0 || stat(b, &sb) != 0) return strcmp(a, b) == 0;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* libperfcheck.so.0 in *h: the program's own copy when it links one (one
 * session state per process), else the one next to this library (build tree
 * and install tree alike), else where the loader finds it.  PERFCHECK_OK, or
 * PERFCHECK_ERROR_NOT_FOUND with err set (the loader's text). */
static perfcheck_status pc_ld_runtime(void **h, pc_err *err) {
  pc_err_clear(err);
  pthread_mutex_lock(&pc_ld.mu);
  if (!pc_ld.rt) pc_ld.rt = dlopen("libperfcheck.so.0", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  if (!pc_ld.rt) {
    char path[PATH_MAX + 32];
    const char *err1 = NULL;
    if (pc_ld.dir[0]) {
      snprintf(path, sizeof path, "%s/libperfcheck.so.0", pc_ld.dir);
      pc_ld.rt = dlopen(path, RTLD_NOW | RTLD_LOCAL);
      if (!pc_ld.rt) err1 = dlerror();
    }
    if (!pc_ld.rt) pc_ld.rt = dlopen("libperfcheck.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!pc_ld.rt) {
      const char *err2 = dlerror();
      pc_err_set(err, PERFCHECK_ERROR_NOT_FOUND, "cannot load libperfcheck.so.0 (%s)",
                 err1 ? err1 : err2 ? err2 : "not found");
    }
  }
  *h = pc_ld.rt;
  pthread_mutex_unlock(&pc_ld.mu);
  return *h ? PERFCHECK_OK : PERFCHECK_ERROR_NOT_FOUND;
}

/* ---- is this a CUDA program? (the exit check) -------------------------------------- */

/* Nonzero when the ELF file has a section of device code. */
static int pc_ld_has_fatbin(const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  int found = 0;
  Elf64_Ehdr eh;
  Elf64_Shdr *sh = NULL;
  char *names = NULL;
  if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 ||
      eh.e_shnum > 65000 || eh.e_shstrndx >= eh.e_shnum)
    goto done;
  const size_t shbytes = (size_t)eh.e_shnum * sizeof *sh;
  if (!(sh = malloc(shbytes)) || pread(fd, sh, shbytes, (off_t)eh.e_shoff) != (ssize_t)shbytes) goto done;
  const Elf64_Shdr *str = &sh[eh.e_shstrndx];
  if (str->sh_size == 0 || str->sh_size > (1u << 20) || !(names = malloc(str->sh_size + 1)) ||
      pread(fd, names, str->sh_size, (off_t)str->sh_offset) != (ssize_t)str->sh_size)
    goto done;
  names[str->sh_size] = '\0';
  for (unsigned i = 0; i < eh.e_shnum && !found; i++) {
    if (sh[i].sh_name >= str->sh_size) continue;
    const char *n = names + sh[i].sh_name;
    found = strcmp(n, ".nv_fatbin") == 0 || strcmp(n, ".nvFatBinSegment") == 0;
  }
done:
  free(names);
  free(sh);
  close(fd);
  return found;
}

/* A loaded library that is CUDA's, by its name alone (no file is opened). */
static int pc_ld_object_is_cuda(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  const char *name = info->dlpi_name;
  if (!name || !*name) return 0; /* the executable (checked apart) or the vdso */
  const char *base = strrchr(name, '/');
  base = base ? base + 1 : name;
  /* The driver is no evidence when NVTX made us load it. */
  if (strncmp(base, "libcudart.so", 12) == 0 ||
      (strncmp(base, "libcuda.so", 10) == 0 && !atomic_load(&pc_ld.nvtx_asked))) {
    *(int *)data = 1;
    return 1;
  }
  return 0;
}

/* pc_ld.exe_fatbin: whether the executable holds device code (static
 * cudart: nvcc's default), read once, in the constructor. */

/* A CUDA program: its executable holds device code, or it loaded the CUDA
 * runtime or driver.  Opens one file at most (the executable, once). */
static int pc_ld_cuda_program(void) {
  if (pc_ld.exe_fatbin < 0) pc_ld.exe_fatbin = pc_ld_has_fatbin("/proc/self/exe");
  if (pc_ld.exe_fatbin) return 1;
  int found = 0;
  dl_iterate_phdr(pc_ld_object_is_cuda, &found);
  return found;
}

/* The driver never called InitializeInjection: say why, once, if the
 * program uses CUDA. */
static void pc_ld_exit_check(void) {
  if (atomic_load(&pc_ld.cuinit) || atomic_load(&pc_ld.exiting)) return;
  if (!pc_ld_cuda_program()) return;
  atomic_store(&pc_ld.exiting, 1);
  if (pc_ld.other[0]) {
    pc_ld_off("CUDA_INJECTION64_PATH names another library (%s): another tool injects this program", pc_ld.other);
    return;
  }
  void *cu = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
  if (!cu) {
    cu = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!cu) {
      const char *e = dlerror();
      pc_ld_off("cannot load libcuda.so.1 (%s): no NVIDIA driver on this machine", e ? e : "not found");
      return;
    }
    /* A libcuda.so.1 the program does not hold: the stub (the CUDA runtime
     * unloads it after its failed cuInit), or a driver the program never
     * used, which is no news.  cuDriverGetVersion tells them apart without
     * initializing anything. */
    int (*version)(int *) = NULL;
    void *vs = dlsym(cu, "cuDriverGetVersion");
    memcpy(&version, &vs, sizeof version);
    int v = 0;
    if (version && version(&v) == 34) pc_ld_off("libcuda.so.1 is the CUDA toolkit's stub, not a driver");
    dlclose(cu);
    return;
  }
  /* The program holds the driver, yet cuInit never reached us: ask it why
   * (the answer of the program's own cuInit; InitializeInjection does
   * nothing from now on). */
  int (*init)(unsigned) = NULL;
  void *sym = dlsym(cu, "cuInit");
  memcpy(&init, &sym, sizeof init);
  const int r = init ? init(0) : -1;
  if (r == 34) /* CUDA_ERROR_STUB_LIBRARY */
    pc_ld_off("libcuda.so.1 is the CUDA toolkit's stub, not a driver");
  else if (r == 100) /* CUDA_ERROR_NO_DEVICE */
    pc_ld_off("cuInit: no CUDA device is visible");
  else if (r != 0)
    pc_ld_off("cuInit failed with error %d", r);
  else
    pc_ld_off("the driver did not call InitializeInjection (CUDA_INJECTION64_PATH=%s)",
              secure_getenv("CUDA_INJECTION64_PATH") ? secure_getenv("CUDA_INJECTION64_PATH") : "unset");
}

/* ---- entry points ---------------------------------------------------------------------- */

__attribute__((constructor)) static void pc_ld_init(void) {
  /* A privileged process (setuid, setgid, capabilities) is left alone: the
   * loader ignores LD_PRELOAD there unless the file is in a trusted
   * directory, and nothing from the environment may steer it. */
  if (getauxval(AT_SECURE)) {
    atomic_store(&pc_ld.exiting, 1);
    return;
  }
  Dl_info info;
  if (dladdr((void *)pc_ld_init, &info) && info.dli_fname && info.dli_fname[0]) {
    if (!realpath(info.dli_fname, pc_ld.self)) snprintf(pc_ld.self, sizeof pc_ld.self, "%s", info.dli_fname);
    snprintf(pc_ld.dir, sizeof pc_ld.dir, "%s", pc_ld.self);
    char *slash = strrchr(pc_ld.dir, '/');
    if (slash)
      *slash = '\0';
    else
      pc_ld.dir[0] = '\0';
  }
  if (pc_ld.self[0] == '/') {
    const char *c = secure_getenv("CUDA_INJECTION64_PATH");
    const char *n = secure_getenv("NVTX_INJECTION64_PATH");
    if (c && *c && !pc_ld_same_file(c, pc_ld.self)) snprintf(pc_ld.other, sizeof pc_ld.other, "%s", c);
    /* Preloaded alone: the driver finds us through these at cuInit.  Set
     * only in a program that is a CUDA program when it starts (device code
     * in the executable, or the CUDA runtime or driver already loaded), so
     * that the environment of one that never touches CUDA stays as it was;
     * one that loads CUDA later (Python) needs `perfcheck run` or
     * CUDA_INJECTION64_PATH. */
    if ((!c || !*c || !n || !*n) && pc_ld_cuda_program()) {
      if (!c || !*c) setenv("CUDA_INJECTION64_PATH", pc_ld.self, 1);
      if (!n || !*n) setenv("NVTX_INJECTION64_PATH", pc_ld.self, 1);
    }
  }
  atexit(pc_ld_exit_check);
}

PC_EXPORT int InitializeInjection(void);
int InitializeInjection(void) {
  if (atomic_exchange(&pc_ld.cuinit, 1) || atomic_load(&pc_ld.exiting)) return 1;
  void *h = NULL;
  pc_err why;
  if (pc_ld_runtime(&h, &why) != PERFCHECK_OK) {
    pc_ld_off("%s", why.msg);
    return 1;
  }
  void *sym = dlsym(h, PC_INJECT_ENTRY);
  if (!sym) {
    pc_ld_off("libperfcheck.so.0 has no %s: it is older than libperfcheck_inject.so", PC_INJECT_ENTRY);
    return 1;
  }
  pc_inject_initialize_fn init;
  memcpy(&init, &sym, sizeof init);
  return init(PC_INJECT_ABI);
}

/* A usable driver, asked without initializing it: cuDriverGetVersion needs
 * no cuInit, and the toolkit's stub answers CUDA_ERROR_STUB_LIBRARY. */
static int pc_ld_driver_usable(void) {
  void *cu = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
  const int ours = !cu;
  if (!cu) cu = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!cu) return 0;
  int (*get)(int *) = NULL;
  void *sym = dlsym(cu, "cuDriverGetVersion");
  memcpy(&get, &sym, sizeof get);
  int v = 0;
  const int usable = get && get(&v) == 0 && v > 0;
  if (!usable && ours) dlclose(cu);
  return usable;
}

/* NVTX asks for its tool.  CUPTI without a driver fails or crashes
 * (docs/cupti.md §5.4; with the stub driver, at the first range push): the
 * ranges stay no-ops then. */
static int pc_ld_nvtx(int nvtx_version, void *get_export_table) {
  if (atomic_load(&pc_ld.exiting)) return 0;
  atomic_store(&pc_ld.nvtx_asked, 1);
  if (!pc_ld_driver_usable()) return 0;
  void *h = NULL;
  if (pc_ld_runtime(&h, NULL) != PERFCHECK_OK) return 0; /* NVTX stays a no-op; cuInit's InitializeInjection says why */
  void *sym = dlsym(h, PC_INJECT_NVTX_ENTRY);
  if (!sym) return 0;
  pc_inject_nvtx_fn init;
  memcpy(&init, &sym, sizeof init);
  return init(PC_INJECT_ABI, nvtx_version, get_export_table);
}

PC_EXPORT int InitializeInjectionNvtx2(void *get_export_table);
int InitializeInjectionNvtx2(void *get_export_table) { return pc_ld_nvtx(2, get_export_table); }

PC_EXPORT int InitializeInjectionNvtx(void *get_export_table);
int InitializeInjectionNvtx(void *get_export_table) { return pc_ld_nvtx(1, get_export_table); }
