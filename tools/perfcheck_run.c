/* perfcheck run: runs a program that was not built with perfcheck under the
 * injection library, libperfcheck_inject.so, which writes the report when
 * the program exits (lib/inject/pc_inject.c).  This command only sets the
 * environment (CUDA_INJECTION64_PATH, NVTX_INJECTION64_PATH, LD_PRELOAD and
 * the PERFCHECK_* variables of its options), runs the program and passes its
 * exit status on.
 *
 *   perfcheck run [--mode timing|counters] [--metrics SET] [--kernels REGEX]
 *                 [--launch-skip N] [--launch-count N] [--per-signature N]
 *                 [--nvtx NAME] [--output FILE] [--format F] [--progress]
 *                 [--] PROGRAM [ARGS...]
 *
 * Where the injection library is: $PERFCHECK_INJECT_LIB; else next to the
 * libperfcheck.so this command runs with; else ../lib (and ../LIBDIR) from
 * this executable; else the build tree's; else the install libdir. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <regex.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perfcheck.h"
#include "pc_cli.h"
#include "pc_regex.h"
#include "perfcheck_run.h"

enum { RUN_USAGE = 2, RUN_NOT_EXECUTABLE = 126, RUN_NOT_FOUND = 127 };

const char pc_cli_run_usage[] =
    "usage: perfcheck run [options] [--] PROGRAM [ARGS...]\n"
    "\n"
    "Runs PROGRAM, which needs no rebuild and no link to perfcheck (a test\n"
    "binary, a benchmark, `python3 script.py`), under the injection library, and\n"
    "writes the checklist of its kernels when it exits: on stderr, or where\n"
    "--output says.  Step 1 covers the whole run (a region named after the\n"
    "program); each NVTX push/pop range of the program is a region of its own.\n"
    "PROGRAM's output and exit status are its own; without a usable GPU one line\n"
    "says why profiling is off and PROGRAM runs as usual.\n"
    "\n"
    "options (each sets the environment variable named; without the option the\n"
    "variable's value, or its default, is used):\n"
    "  -m, --mode MODE        timing or counters (PERFCHECK_MODE); default:\n"
    "                         counters, or timing with a note when refused\n"
    "      --metrics SET      default, sol, full, or a comma-separated list of ncu\n"
    "                         metric names (PERFCHECK_METRICS)\n"
    "  -k, --kernels REGEX    counters only for kernels whose name matches, POSIX\n"
    "                         extended (PERFCHECK_KERNELS, ncu's -k)\n"
    "  -s, --launch-skip N    matching launches to skip before profiling\n"
    "                         (PERFCHECK_LAUNCH_SKIP, ncu's -s)\n"
    "  -c, --launch-count N   profile at most N matching launches, 0: no limit\n"
    "                         (PERFCHECK_LAUNCH_COUNT, ncu's -c)\n"
    "      --per-signature N  profiled launches per kernel signature and region\n"
    "                         (PERFCHECK_PER_SIGNATURE, default 1)\n"
    "      --nvtx NAME        counters only inside NVTX ranges named NAME, timing\n"
    "                         everywhere (PERFCHECK_NVTX, ncu's --nvtx-include)\n"
    "  -o, --output FILE      the report's file: %p pid, %h host, %q{VAR} an\n"
    "                         environment value (an MPI rank), %% a percent sign;\n"
    "                         - stdout (PERFCHECK_OUTPUT; default stderr)\n"
    "  -f, --format FMT       text, json or csv (PERFCHECK_FORMAT; default text)\n"
    "      --progress         pass and kernel progress lines on stderr\n"
    "                         (PERFCHECK_PROGRESS=1)\n"
    "  -h, --help             this text\n"
    "\n"
    "The injection library is found through PERFCHECK_INJECT_LIB, else next to\n"
    "libperfcheck.so.  Without `perfcheck run`, the same is\n"
    "  CUDA_INJECTION64_PATH=/path/to/libperfcheck_inject.so PROGRAM\n"
    "(or LD_PRELOAD=/path/to/libperfcheck_inject.so PROGRAM).\n"
    "\n"
    "exit status: PROGRAM's; 128+N when signal N ended it; 127 when PROGRAM is not\n"
    "found, 126 when it cannot be executed; 2 on a usage error.\n";

/* A non-negative decimal integer that fits `max`. */
static int run_uint(const char *s, uint64_t max) {
  if (!s || !*s) return 0;
  uint64_t v = 0;
  for (const char *p = s; *p; p++) {
    if (*p < '0' || *p > '9') return 0;
    const uint64_t d = (uint64_t)(*p - '0');
    if (v > (max - d) / 10) return 0;
    v = v * 10 + d;
  }
  return 1;
}

/* ---- the injection library ---------------------------------------------------- */

static int run_try(const char *candidate, char *out, size_t len) {
  char real[PATH_MAX];
  if (!candidate || !*candidate || access(candidate, R_OK) != 0 || !realpath(candidate, real)) return 0;
  snprintf(out, len, "%s", real);
  return 1;
}

/* The absolute path of libperfcheck_inject.so, or 0 with *why set. */
static int run_find_inject(char *out, size_t len, char *why, size_t whylen) {
  const char *env = getenv("PERFCHECK_INJECT_LIB");
  if (env && *env) {
    if (run_try(env, out, len)) return 1;
    snprintf(why, whylen, "PERFCHECK_INJECT_LIB=%s: %s", env, strerror(errno ? errno : ENOENT));
    return 0;
  }
  char cand[PATH_MAX + 64];
  /* Next to the libperfcheck.so this command runs with (build and install
   * trees alike). */
  Dl_info info;
  if (dladdr((void *)perfcheck_version_string, &info) && info.dli_fname) {
    char lib[PATH_MAX];
    if (realpath(info.dli_fname, lib)) {
      char *slash = strrchr(lib, '/');
      if (slash) {
        *slash = '\0';
        snprintf(cand, sizeof cand, "%s/libperfcheck_inject.so", lib);
        if (run_try(cand, out, len)) return 1;
      }
    }
  }
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash) {
      *slash = '\0';
      snprintf(cand, sizeof cand, "%s/../lib/libperfcheck_inject.so", exe);
      if (run_try(cand, out, len)) return 1;
#ifdef PERFCHECK_INSTALL_LIBDIR_REL
      snprintf(cand, sizeof cand, "%s/../%s/libperfcheck_inject.so", exe, PERFCHECK_INSTALL_LIBDIR_REL);
      if (run_try(cand, out, len)) return 1;
#endif
    }
  }
#ifdef PERFCHECK_INJECT_BUILD_PATH
  if (run_try(PERFCHECK_INJECT_BUILD_PATH, out, len)) return 1;
#endif
#ifdef PERFCHECK_INJECT_INSTALL_PATH
  if (run_try(PERFCHECK_INJECT_INSTALL_PATH, out, len)) return 1;
#endif
  snprintf(why, whylen, "%s",
           "cannot find libperfcheck_inject.so next to libperfcheck.so or in ../lib; set PERFCHECK_INJECT_LIB");
  return 0;
}

/* LD_PRELOAD with the library first (once). */
static void run_preload(const char *lib) {
  const char *old = getenv("LD_PRELOAD");
  if (!old || !*old) {
    setenv("LD_PRELOAD", lib, 1);
    return;
  }
  if (strstr(old, lib)) return;
  size_t n = strlen(lib) + strlen(old) + 2;
  char *v = malloc(n);
  if (!v) return;
  snprintf(v, n, "%s:%s", lib, old);
  setenv("LD_PRELOAD", v, 1);
  free(v);
}

/* ---- running the program --------------------------------------------------------- */

static volatile sig_atomic_t run_child_pid;

static void run_forward(int sig) {
  if (run_child_pid > 0) kill((pid_t)run_child_pid, sig);
}

int pc_run_program(const char *who, char **argv, int *ran) {
  if (ran) *ran = 0;
  char lib[PATH_MAX], why[PATH_MAX + 128];
  if (run_find_inject(lib, sizeof lib, why, sizeof why)) {
    const char *c = getenv("CUDA_INJECTION64_PATH");
    if (!c || !*c) setenv("CUDA_INJECTION64_PATH", lib, 1);
    const char *n = getenv("NVTX_INJECTION64_PATH");
    if (!n || !*n) setenv("NVTX_INJECTION64_PATH", lib, 1);
    /* Also preloaded: without a driver nothing calls InitializeInjection,
     * and the library's exit check then says why profiling is off. */
    run_preload(lib);
  } else {
    fprintf(stderr, "perfcheck: profiling off: %s\n", why);
  }
  fflush(NULL);

  int fds[2]; /* the child's exec error, if any; closed by a successful exec */
  if (pipe(fds) != 0 || fcntl(fds[0], F_SETFD, FD_CLOEXEC) != 0 || fcntl(fds[1], F_SETFD, FD_CLOEXEC) != 0) {
    fprintf(stderr, "%s: pipe: %s\n", who, strerror(errno));
    return RUN_NOT_EXECUTABLE;
  }
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "%s: fork: %s\n", who, strerror(errno));
    close(fds[0]);
    close(fds[1]);
    return RUN_NOT_EXECUTABLE;
  }
  if (pid == 0) {
    close(fds[0]);
    execvp(argv[0], argv);
    int e = errno;
    ssize_t w = write(fds[1], &e, sizeof e);
    (void)w;
    _exit(RUN_NOT_FOUND);
  }
  close(fds[1]);
  int e = 0;
  ssize_t got;
  do got = read(fds[0], &e, sizeof e);
  while (got < 0 && errno == EINTR);
  close(fds[0]);
  if (got == (ssize_t)sizeof e) { /* exec failed */
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    fprintf(stderr, "%s: cannot run %s: %s\n", who, argv[0], strerror(e));
    return e == ENOENT || e == ENOTDIR ? RUN_NOT_FOUND : RUN_NOT_EXECUTABLE;
  }
  if (ran) *ran = 1;

  /* The terminal sends SIGINT and SIGQUIT to the program as well: it decides.
   * SIGTERM sent to us goes on to it. */
  struct sigaction ign, fwd, old_int, old_quit, old_term;
  memset(&ign, 0, sizeof ign);
  ign.sa_handler = SIG_IGN;
  sigemptyset(&ign.sa_mask);
  memset(&fwd, 0, sizeof fwd);
  fwd.sa_handler = run_forward;
  sigemptyset(&fwd.sa_mask);
  run_child_pid = pid;
  sigaction(SIGINT, &ign, &old_int);
  sigaction(SIGQUIT, &ign, &old_quit);
  sigaction(SIGTERM, &fwd, &old_term);
  int status = 0;
  pid_t w;
  do w = waitpid(pid, &status, 0);
  while (w < 0 && errno == EINTR);
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGQUIT, &old_quit, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  run_child_pid = 0;
  if (w < 0) {
    fprintf(stderr, "%s: waitpid: %s\n", who, strerror(errno));
    return RUN_NOT_EXECUTABLE;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return RUN_NOT_EXECUTABLE;
}

int pc_cli_run(int argc, char **argv) {
  int i = 1;
  for (; i < argc; i++) {
    const char *a = argv[i], *inl;
    const char *var = NULL, *v = NULL;
    if (strcmp(a, "--") == 0) {
      i++;
      break;
    }
    if (a[0] != '-' || a[1] == '\0') break; /* the program */
    if (pc_cli_opt(a, "--help", "-h", &inl) && !inl) {
      fputs(pc_cli_run_usage, stdout);
      return 0;
    }
    if (pc_cli_opt(a, "--progress", NULL, &inl) && !inl) {
      setenv("PERFCHECK_PROGRESS", "1", 1);
      continue;
    }
    if (pc_cli_opt(a, "--mode", "-m", &inl)) var = "PERFCHECK_MODE";
    else if (pc_cli_opt(a, "--metrics", NULL, &inl)) var = "PERFCHECK_METRICS";
    else if (pc_cli_opt(a, "--kernels", "-k", &inl)) var = "PERFCHECK_KERNELS";
    else if (pc_cli_opt(a, "--launch-skip", "-s", &inl)) var = "PERFCHECK_LAUNCH_SKIP";
    else if (pc_cli_opt(a, "--launch-count", "-c", &inl)) var = "PERFCHECK_LAUNCH_COUNT";
    else if (pc_cli_opt(a, "--per-signature", NULL, &inl)) var = "PERFCHECK_PER_SIGNATURE";
    else if (pc_cli_opt(a, "--nvtx", NULL, &inl)) var = "PERFCHECK_NVTX";
    else if (pc_cli_opt(a, "--output", "-o", &inl)) var = "PERFCHECK_OUTPUT";
    else if (pc_cli_opt(a, "--format", "-f", &inl)) var = "PERFCHECK_FORMAT";
    else return pc_cli_usage_error("run", RUN_USAGE, "unknown option '%s'", a);
    v = inl ? inl : (i + 1 < argc ? argv[++i] : NULL);
    if (!v || !*v) return pc_cli_usage_error("run", RUN_USAGE, "%s needs a value", a);

    /* The same checks the library makes, so that a typo stops here. */
    if (strcmp(var, "PERFCHECK_MODE") == 0 && strcmp(v, "timing") != 0 && strcmp(v, "counters") != 0)
      return pc_cli_usage_error("run", RUN_USAGE, "unknown mode '%s' (timing or counters)", v);
    if (strcmp(var, "PERFCHECK_FORMAT") == 0 && strcmp(v, "text") != 0 && strcmp(v, "json") != 0 &&
        strcmp(v, "csv") != 0)
      return pc_cli_usage_error("run", RUN_USAGE, "unknown format '%s' (text, json or csv)", v);
    if (strcmp(var, "PERFCHECK_METRICS") == 0 && !strchr(v, ',') && !strstr(v, "__") && !perfcheck_metric_list(v))
      return pc_cli_usage_error("run", RUN_USAGE, "unknown metric set '%s' (default, sol, full, or a list of ncu metric names)", v);
    if ((strcmp(var, "PERFCHECK_LAUNCH_SKIP") == 0 || strcmp(var, "PERFCHECK_LAUNCH_COUNT") == 0) &&
        !run_uint(v, UINT64_MAX))
      return pc_cli_usage_error("run", RUN_USAGE, "%s needs a non-negative integer, not '%s'", a, v);
    if (strcmp(var, "PERFCHECK_PER_SIGNATURE") == 0 && (!run_uint(v, UINT_MAX) || strtoul(v, NULL, 10) == 0))
      return pc_cli_usage_error("run", RUN_USAGE, "%s needs a positive integer, not '%s'", a, v);
    if (strcmp(var, "PERFCHECK_KERNELS") == 0) { /* the library's own check (lib/core/pc_regex.c) */
      char e[300];
      size_t at = 0;
      char *re = pc_kernel_filter_regex(v, &at, e, sizeof e);
      if (!re) return pc_cli_usage_error("run", RUN_USAGE, "bad kernel filter '%s' (at character %zu): %s", v, at + 1, e);
      free(re);
    }
    if (strcmp(var, "PERFCHECK_NVTX") == 0 && strncmp(v, "regex:", 6) == 0) {
      char e[300];
      size_t at = 0;
      regex_t re;
      if (pc_regex_compile(&re, v + 6, &at, e, sizeof e) != 0)
        return pc_cli_usage_error("run", RUN_USAGE, "bad NVTX range filter '%s' (at character %zu): %s", v, at + 7, e);
      regfree(&re);
    }
    setenv(var, v, 1);
  }
  if (i >= argc) return pc_cli_usage_error("run", RUN_USAGE, "%s", "which program? perfcheck run [options] -- PROGRAM [ARGS...]");
  return pc_run_program("perfcheck run", argv + i, NULL);
}
