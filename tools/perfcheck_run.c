/* perfcheck run: runs a program that was not built with perfcheck under the
 * injection library, libperfcheck_inject.so, which writes the report when
 * the program exits (lib/inject/pc_inject.c).  This command only sets the
 * environment (CUDA_INJECTION64_PATH, NVTX_INJECTION64_PATH, LD_PRELOAD,
 * PERFCHECK_ROOT_PID in the program only, and the PERFCHECK_* variables of
 * its options), runs the program, passes signals on to it and its exit
 * status back.
 *
 *   perfcheck run [--set S] [--metrics LIST] [-k|--kernel-name NAME|regex:EXPR]
 *                 [-s|--launch-skip N] [-c|--launch-count N] [--nvtx] [--nvtx-include CONF]
 *                 [--nvtx-exclude CONF] [--per-signature N] [--mode timing|counters]
 *                 [-o|--output FILE] [-f|--format F] [--csv] [--progress] [-v]
 *                 [--] PROGRAM [ARGS...]
 *
 * ncu's options mean what they mean in ncu (--nvtx is a switch); the ones
 * perfcheck does not implement are in pc_ncu_unsupported (pc_cli.c), so
 * that their value is consumed and the option refused by name.
 *
 * Options are parsed by getopt_long in `+` mode: the first argument that is
 * not an option is PROGRAM, and PROGRAM's own options are its own.  Each
 * value is checked as the library will check it (lib/core/base/pc_regex.c and
 * pc_output.c are compiled in), so that a typo stops here with exit 2.
 *
 * Where the injection library is: $PERFCHECK_INJECT_LIB (which must load and
 * export InitializeInjection: checked in a child process); else next to the
 * libperfcheck.so this command runs with; else ../lib (and ../LIBDIR) from
 * this executable; else the build tree's; else the install libdir.
 *
 * A setuid or setgid PROGRAM, or one with file capabilities, is refused: it
 * would run with privileges its user does not have, and the injection
 * variables must not steer such a process. */
#define _GNU_SOURCE /* dladdr, SI_KERNEL */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <regex.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "perfcheck.h"
#include "pc_cli.h"
#include "base/pc_nvtx_filter.h"
#include "base/pc_output.h"
#include "base/pc_regex.h"
#include "perfcheck_run.h"

enum { RUN_USAGE = 2, RUN_NOT_EXECUTABLE = 126, RUN_NOT_FOUND = 127 };

const char pc_cli_run_usage[] =
    "usage: perfcheck run [options] [--] PROGRAM [ARGS...]\n"
    "\n"
    "Runs PROGRAM, which needs no rebuild and no link to perfcheck (a test\n"
    "binary, a benchmark, `python3 script.py`), under the injection library, and\n"
    "writes the checklist of its kernels when it exits, to perfcheck-PID.txt in\n"
    "the current folder (or where --output says), adding one line to PROGRAM's\n"
    "stderr: the report's path and its count of kernels and warnings.\n"
    "Step 1 covers the whole run (a region named after the\n"
    "program); each NVTX push/pop range of the program is a region of its own.\n"
    "PROGRAM's output and exit status are its own; HUP, INT, QUIT, TERM, USR1,\n"
    "USR2, WINCH and CONT sent to perfcheck go on to PROGRAM; without a usable GPU\n"
    "one line says why profiling is off and PROGRAM runs as usual.  A setuid or\n"
    "setgid PROGRAM (or one with file capabilities) is refused.\n"
    "\n"
    "ncu's options mean what they mean in ncu; one perfcheck does not implement\n"
    "is refused by name (\"ncu's --replay-mode is not supported here: use ...\"),\n"
    "and no option takes another option as its value.  Each option sets the\n"
    "environment variable named (without it, the variable's value or default):\n"
    "      --set SET            ncu's basic, detailed or full, as far as CUPTI\n"
    "                           collects them (perfcheck metrics --list-sets says\n"
    "                           what each holds and its passes), or perfcheck's\n"
    "                           default or sol (PERFCHECK_METRICS)\n"
    "      --metrics LIST       ncu metric names, comma-separated; with --set, added\n"
    "                           to it (PERFCHECK_METRICS)\n"
    "  -k, --kernel-name FILTER  counters only for these kernels, as ncu's -k: a\n"
    "                           function name, exactly (no namespace, template\n"
    "                           arguments or parameters), or regex:EXPR, a POSIX\n"
    "                           extended regex searched in the name; --kernels is\n"
    "                           the same (PERFCHECK_KERNELS)\n"
    "  -s, --launch-skip N      matching launches to skip before profiling\n"
    "                           (PERFCHECK_LAUNCH_SKIP, ncu's -s)\n"
    "  -c, --launch-count N     profile at most N matching launches, 0: no limit\n"
    "                           (PERFCHECK_LAUNCH_COUNT, ncu's -c)\n"
    "      --nvtx               ncu's switch: NVTX support (always on here)\n"
    "      --nvtx-include CONF  counters only inside these NVTX ranges, in ncu's\n"
    "                           syntax: push/pop A/ (inside A), A/B/ (B directly in\n"
    "                           A), A/*/B/, [A/ (A at the bottom), B] (B innermost);\n"
    "                           start/end A (while A is open), A,B (both open);\n"
    "                           regex:EXPR for a name; repeatable\n"
    "                           (PERFCHECK_NVTX_INCLUDE, one a line)\n"
    "      --nvtx-exclude CONF  no counters inside these ranges; the same syntax\n"
    "                           (PERFCHECK_NVTX_EXCLUDE)\n"
    "      --per-signature N    profiled launches per kernel signature and region\n"
    "                           (PERFCHECK_PER_SIGNATURE, default 1)\n"
    "      --mode MODE          timing or counters (PERFCHECK_MODE); default:\n"
    "                           counters, or timing with a note when refused\n"
    "  -o, --output FILE        the report's file (--export is ncu's spelling): %p\n"
    "                           pid, %h host, %q{VAR} an environment value (an MPI\n"
    "                           rank; unset: the pid), %% a percent sign; - stdout,\n"
    "                           stderr (PERFCHECK_OUTPUT; default perfcheck-%p.txt, or\n"
    "                           .json, .csv, .html).  Other processes of the run write\n"
    "                           FILE with .PID before its extension.\n"
    "      --force-overwrite    accepted: the report always replaces its file\n"
    "  -f, --format FMT         text, json, csv or html (PERFCHECK_FORMAT; default text)\n"
    "      --csv                the same as --format csv\n"
    "      --progress           pass and kernel progress lines on stderr\n"
    "                           (PERFCHECK_PROGRESS=1)\n"
    "  -v, --verbose            each warning on stderr as well as in the report\n"
    "                           (PERFCHECK_VERBOSE=1; ncu's -v is --version here)\n"
    "      --version            the version\n"
    "  -h, --help               this text\n"
    "\n"
    "The injection library is found through PERFCHECK_INJECT_LIB, else next to\n"
    "libperfcheck.so.  Without `perfcheck run`, the same is\n"
    "  CUDA_INJECTION64_PATH=/path/to/libperfcheck_inject.so PROGRAM\n"
    "(or LD_PRELOAD=/path/to/libperfcheck_inject.so PROGRAM for a program linked\n"
    "with CUDA).\n"
    "\n"
    "Signals: HUP, INT, QUIT, TERM, USR1, USR2, WINCH, CONT, ALRM and PIPE sent to\n"
    "perfcheck run go on to PROGRAM, which decides; if perfcheck run dies\n"
    "(SIGKILL, say), PROGRAM gets SIGKILL too (it is never left running alone).\n"
    "\n"
    "exit status: PROGRAM's; 128+N when signal N ended it; 127 when PROGRAM is not\n"
    "found, 126 when it cannot be executed; 2 on a usage error or a privileged\n"
    "PROGRAM.\n";

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

static int run_try(const char *candidate, char *out, size_t len) { /* one-channel-ok: the path is its result */
  char real[PATH_MAX];
  if (!candidate || !*candidate || access(candidate, R_OK) != 0 || !realpath(candidate, real)) return 0;
  snprintf(out, len, "%s", real);
  return 1;
}

/* Whether `lib` is an injection library: it loads (right class, machine,
 * dependencies) and exports InitializeInjection.  Asked in a child process,
 * which loads it and exits, so that nothing of it stays in this one and the
 * loader's complaint ("invalid ELF header") comes back here instead of
 * landing in the program's stderr.  PERFCHECK_OK; else
 * PERFCHECK_ERROR_INVALID_ARGUMENT (not one: the loader's text in err) or
 * _IO (no pipe or no child to ask). */
static perfcheck_status run_check_inject_lib(const char *lib, pc_err *err) {
  int fds[2];
  if (pipe(fds) != 0) return pc_err_set(err, PERFCHECK_ERROR_IO, "pipe: %s", strerror(errno));
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close(fds[0]);
    close(fds[1]);
    return pc_err_set(err, PERFCHECK_ERROR_IO, "fork: %s", strerror(e));
  }
  if (pid == 0) {
    close(fds[0]);
    void *h = dlopen(lib, RTLD_LAZY | RTLD_LOCAL);
    const char *msg = NULL;
    if (!h)
      msg = dlerror();
    else if (!dlsym(h, "InitializeInjection"))
      msg = "it does not export InitializeInjection";
    if (msg) {
      ssize_t w = write(fds[1], msg, strlen(msg));
      (void)w;
    }
    _exit(msg ? 1 : 0);
  }
  close(fds[1]);
  char buf[512];
  size_t n = 0;
  for (;;) {
    ssize_t r = read(fds[0], buf + n, sizeof buf - 1 - n);
    if (r > 0) {
      n += (size_t)r;
      if (n == sizeof buf - 1) break;
    } else if (r == 0 || errno != EINTR) {
      break;
    }
  }
  close(fds[0]);
  buf[n] = '\0';
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return PERFCHECK_OK;
  return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "%s", n ? buf : "it could not be loaded");
}

/* The absolute path of libperfcheck_inject.so in out: PERFCHECK_OK; else
 * PERFCHECK_ERROR_NOT_FOUND or, for a PERFCHECK_INJECT_LIB that is no
 * injection library, _INVALID_ARGUMENT, with err set. */
static perfcheck_status run_find_inject(char *out, size_t len, pc_err *err) { /* one-channel-ok: the path is its result */
  pc_err_clear(err);
  const char *env = getenv("PERFCHECK_INJECT_LIB");
  if (env && *env) {
    if (!run_try(env, out, len))
      return pc_err_set(err, PERFCHECK_ERROR_NOT_FOUND, "PERFCHECK_INJECT_LIB=%s: %s", env,
                        strerror(errno ? errno : ENOENT));
    pc_err e;
    perfcheck_status st = run_check_inject_lib(out, &e);
    if (st != PERFCHECK_OK)
      return pc_err_set(err, st, "PERFCHECK_INJECT_LIB=%s is not perfcheck's injection library (%s)", env, e.msg);
    return PERFCHECK_OK;
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
        if (run_try(cand, out, len)) return PERFCHECK_OK;
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
      if (run_try(cand, out, len)) return PERFCHECK_OK;
#ifdef PERFCHECK_INSTALL_LIBDIR_REL
      snprintf(cand, sizeof cand, "%s/../%s/libperfcheck_inject.so", exe, PERFCHECK_INSTALL_LIBDIR_REL);
      if (run_try(cand, out, len)) return PERFCHECK_OK;
#endif
    }
  }
#ifdef PERFCHECK_INJECT_BUILD_PATH
  if (run_try(PERFCHECK_INJECT_BUILD_PATH, out, len)) return PERFCHECK_OK;
#endif
#ifdef PERFCHECK_INJECT_INSTALL_PATH
  if (run_try(PERFCHECK_INJECT_INSTALL_PATH, out, len)) return PERFCHECK_OK;
#endif
  return pc_err_set(err, PERFCHECK_ERROR_NOT_FOUND,
                    "cannot find libperfcheck_inject.so next to libperfcheck.so or in ../lib; set PERFCHECK_INJECT_LIB");
}

/* LD_PRELOAD with the library first (once).  The caller gives a path
 * without blanks or colons: ld.so splits LD_PRELOAD at both, with no
 * escape (pc_run_program gives a space-free alias of one that has them). */
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

/* The file execvp would run for `name` (searched in PATH when it has no
 * '/'); 0 when there is none (execvp then says so). */
static int run_resolve(const char *name, char *out, size_t len) { /* one-channel-ok: the path is its result */
  if (strchr(name, '/')) {
    snprintf(out, len, "%s", name);
    return access(out, F_OK) == 0;
  }
  const char *path = getenv("PATH");
  if (!path || !*path) path = "/bin:/usr/bin";
  for (const char *p = path;;) {
    const char *colon = strchr(p, ':');
    size_t dl = colon ? (size_t)(colon - p) : strlen(p);
    snprintf(out, len, "%.*s%s%s", (int)dl, p, dl ? "/" : "", name);
    if (access(out, X_OK) == 0) {
      struct stat sb;
      if (stat(out, &sb) == 0 && S_ISREG(sb.st_mode)) return 1;
    }
    if (!colon) break;
    p = colon + 1;
  }
  return 0;
}

/* Why PROGRAM would run with privileges its user does not have (setuid,
 * setgid, file capabilities), or NULL. */
static const char *run_privileged(const char *file) {
  struct stat sb;
  if (stat(file, &sb) != 0 || !S_ISREG(sb.st_mode)) return NULL;
  if ((sb.st_mode & S_ISUID) && sb.st_uid != geteuid()) return "setuid";
  if ((sb.st_mode & S_ISGID) && (sb.st_mode & S_IXGRP) && sb.st_gid != getegid()) return "setgid";
  if (getxattr(file, "security.capability", NULL, 0) > 0) return "given file capabilities";
  return NULL;
}

/* ---- signals ------------------------------------------------------------------------ */

/* What goes on to the program.  The terminal's own signals (^C, ^\\, a
 * resize: SI_KERNEL) reach the program directly, as it is in the foreground
 * process group too: they are not sent twice.  SIGTSTP, SIGTTIN and SIGTTOU
 * keep their default (the terminal stops the group).  ALRM (timeout -s ALRM)
 * and PIPE sent to us go on too: perfcheck run writes nothing while it
 * waits, so a SIGPIPE then is someone's kill.  Any other death of ours
 * (SIGKILL, SIGSEGV) reaches the program as SIGKILL through
 * PR_SET_PDEATHSIG, set in the child before its exec. */
static const int run_fwd_sigs[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1,
                                   SIGUSR2, SIGWINCH, SIGCONT, SIGALRM, SIGPIPE};
#define RUN_NSIGS (sizeof run_fwd_sigs / sizeof run_fwd_sigs[0])

static volatile sig_atomic_t run_child_pid;

static void run_forward(int sig, siginfo_t *info, void *uctx) {
  (void)uctx;
  const int saved = errno;
  if (run_child_pid > 0 && !(info && info->si_code == SI_KERNEL) && !(info && info->si_pid == run_child_pid))
    kill((pid_t)run_child_pid, sig);
  errno = saved;
}

/* Removes the symlink folder of a preloaded path with blanks, if any. */
static void run_alias_remove(const char *dir, const char *alias) {
  if (!dir[0]) return;
  unlink(alias);
  rmdir(dir);
}

int pc_run_program(const char *who, char **argv, int *ran) {
  if (ran) *ran = 0;
  char alias_dir[64] = "", alias[128] = "";
  char file[PATH_MAX + 256];
  if (run_resolve(argv[0], file, sizeof file)) {
    const char *what = run_privileged(file);
    if (what) {
      fprintf(stderr,
              "%s: %s is %s: perfcheck does not inject into a program that runs with privileges its user does not "
              "have; run it without perfcheck\n",
              who, argv[0], what);
      return RUN_USAGE;
    }
  }
  char lib[PATH_MAX];
  pc_err why;
  if (run_find_inject(lib, sizeof lib, &why) == PERFCHECK_OK) {
    const char *c = getenv("CUDA_INJECTION64_PATH");
    if (!c || !*c) setenv("CUDA_INJECTION64_PATH", lib, 1);
    const char *n = getenv("NVTX_INJECTION64_PATH");
    if (!n || !*n) setenv("NVTX_INJECTION64_PATH", lib, 1);
    /* Also preloaded: without a driver nothing calls InitializeInjection,
     * and the library's exit check then says why profiling is off.  A path
     * with a blank or a colon (an install under "/opt/my tools") cannot be
     * carried by LD_PRELOAD, which ld.so splits at both with no escape: it is
     * preloaded through a symlink in a folder of ours under /tmp, removed
     * when the program ends (the library resolves its own path, so it finds
     * libperfcheck.so.0 beside the real file). */
    const char *preload = lib;
    if (strpbrk(lib, " \t:")) {
      preload = NULL;
      snprintf(alias_dir, sizeof alias_dir, "%s", "/tmp/perfcheck-run-XXXXXX");
      if (mkdtemp(alias_dir)) {
        snprintf(alias, sizeof alias, "%s/libperfcheck_inject.so", alias_dir);
        if (symlink(lib, alias) == 0) /* one-output-ok: a link in our own fresh mkdtemp folder, for LD_PRELOAD */
          preload = alias;
        else
          rmdir(alias_dir), alias_dir[0] = '\0';
      } else {
        alias_dir[0] = '\0';
      }
    }
    if (preload) run_preload(preload);
  } else {
    fprintf(stderr, "perfcheck: profiling off: %s\n", why.msg);
  }
  fflush(NULL);

  /* The forwarded signals are blocked from before the fork until the
   * handlers are in place, so that none is lost or kills us meanwhile. */
  sigset_t fwd_set, old_mask;
  sigemptyset(&fwd_set);
  for (size_t i = 0; i < RUN_NSIGS; i++) sigaddset(&fwd_set, run_fwd_sigs[i]);
  sigprocmask(SIG_BLOCK, &fwd_set, &old_mask);

  int fds[2]; /* the child's exec error, if any; closed by a successful exec */
  if (pipe(fds) != 0 || fcntl(fds[0], F_SETFD, FD_CLOEXEC) != 0 || fcntl(fds[1], F_SETFD, FD_CLOEXEC) != 0) {
    fprintf(stderr, "%s: pipe: %s\n", who, strerror(errno));
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    run_alias_remove(alias_dir, alias);
    return RUN_NOT_EXECUTABLE;
  }
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "%s: fork: %s\n", who, strerror(errno));
    close(fds[0]);
    close(fds[1]);
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    run_alias_remove(alias_dir, alias);
    return RUN_NOT_EXECUTABLE;
  }
  if (pid == 0) {
    close(fds[0]);
    /* The program ends when we do, whatever ends us (prctl(2)): kept across
     * its exec, cleared only for a setuid program, which is refused above.
     * Our death may have come before the prctl: then our parent is not us. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(RUN_NOT_EXECUTABLE);
    /* This process is the run's root: its report keeps the --output name,
     * the others' get .PID (lib/core/base/pc_output.h). */
    char me[32];
    snprintf(me, sizeof me, "%ld", (long)getpid());
    setenv("PERFCHECK_ROOT_PID", me, 1);
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    execvp(argv[0], argv);
    int e = errno;
    ssize_t w = write(fds[1], &e, sizeof e);
    (void)w;
    _exit(RUN_NOT_FOUND);
  }
  close(fds[1]);

  struct sigaction fwd, old_act[RUN_NSIGS];
  memset(&fwd, 0, sizeof fwd);
  fwd.sa_sigaction = run_forward;
  fwd.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&fwd.sa_mask);
  run_child_pid = pid;
  for (size_t i = 0; i < RUN_NSIGS; i++) sigaction(run_fwd_sigs[i], &fwd, &old_act[i]);
  sigprocmask(SIG_SETMASK, &old_mask, NULL); /* what came meanwhile is forwarded now */

  int e = 0;
  ssize_t got;
  do got = read(fds[0], &e, sizeof e);
  while (got < 0 && errno == EINTR);
  close(fds[0]);
  int status = 0;
  pid_t w;
  do w = waitpid(pid, &status, 0);
  while (w < 0 && errno == EINTR);
  sigprocmask(SIG_BLOCK, &fwd_set, NULL);
  run_child_pid = 0;
  for (size_t i = 0; i < RUN_NSIGS; i++) sigaction(run_fwd_sigs[i], &old_act[i], NULL);
  sigprocmask(SIG_SETMASK, &old_mask, NULL);
  run_alias_remove(alias_dir, alias);
  if (got == (ssize_t)sizeof e) { /* exec failed */
    fprintf(stderr, "%s: cannot run %s: %s\n", who, argv[0], strerror(e));
    return e == ENOENT || e == ENOTDIR ? RUN_NOT_FOUND : RUN_NOT_EXECUTABLE;
  }
  if (ran) *ran = 1;
  if (w < 0) {
    fprintf(stderr, "%s: waitpid: %s\n", who, strerror(errno));
    return RUN_NOT_EXECUTABLE;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return RUN_NOT_EXECUTABLE;
}

/* Checks one option's value as the library will; 0 or the usage error. */
static int run_check_value(const char *opt, const char *var, const char *v) {
  if (!*v) return pc_cli_usage_error("run", RUN_USAGE, "%s needs a value", opt);
  if (strcmp(var, "PERFCHECK_MODE") == 0 && strcmp(v, "timing") != 0 && strcmp(v, "counters") != 0)
    return pc_cli_usage_error("run", RUN_USAGE, "unknown mode '%s' (timing or counters)", v);
  if (strcmp(var, "PERFCHECK_FORMAT") == 0 && pc_cli_format(v) < 0)
    return pc_cli_usage_error("run", RUN_USAGE, "unknown format '%s' (text, json, csv or html)", v);
  if (strcmp(var, "PERFCHECK_METRICS") == 0 && !strchr(v, ',') && !strstr(v, "__") && !perfcheck_metric_list(v))
    return pc_cli_usage_error("run", RUN_USAGE, "unknown metric set '%s' (default, sol, full, or a list of ncu metric names)", v);
  if ((strcmp(var, "PERFCHECK_LAUNCH_SKIP") == 0 || strcmp(var, "PERFCHECK_LAUNCH_COUNT") == 0) &&
      !run_uint(v, UINT64_MAX))
    return pc_cli_usage_error("run", RUN_USAGE, "%s needs a non-negative integer, not '%s'", opt, v);
  if (strcmp(var, "PERFCHECK_PER_SIGNATURE") == 0 && (!run_uint(v, UINT_MAX) || strtoul(v, NULL, 10) == 0))
    return pc_cli_usage_error("run", RUN_USAGE, "%s needs a positive integer, not '%s'", opt, v);
  if (strcmp(var, "PERFCHECK_KERNELS") == 0) { /* the library's own check (lib/core/base/pc_regex.c) */
    pc_err e;
    size_t at = 0;
    char *re = NULL;
    if (pc_kernel_filter_regex(v, &re, &at, &e) != PERFCHECK_OK)
      return pc_cli_usage_error("run", RUN_USAGE, "bad kernel filter '%s' (at character %zu): %s", v, at + 1, e.msg);
    free(re);
  }
  if (strcmp(var, "PERFCHECK_NVTX") == 0 && strncmp(v, "regex:", 6) == 0) {
    pc_err e;
    size_t at = 0;
    pc_regex re;
    if (pc_regex_compile(&re, v + 6, &at, &e) != PERFCHECK_OK)
      return pc_cli_usage_error("run", RUN_USAGE, "bad NVTX range filter '%s' (at character %zu): %s", v, at + 7,
                                e.msg);
    pc_regex_free(&re);
  }
  if (strcmp(var, "PERFCHECK_OUTPUT") == 0) { /* lib/core/base/pc_output.c */
    pc_err e;
    if (pc_output_check_pattern(v, &e) != PERFCHECK_OK)
      return pc_cli_usage_error("run", RUN_USAGE, "bad output path '%s': %s", v, e.msg);
  }
  return 0;
}

/* Appends `item` to the variable's newline-separated list (--nvtx-include
 * and --nvtx-exclude repeat). */
static int run_append_env(const char *var, const char *item) {
  const char *old = getenv(var);
  if (!old || !*old) return setenv(var, item, 1);
  size_t n = strlen(old) + strlen(item) + 2;
  char *v = malloc(n);
  if (!v) return -1;
  snprintf(v, n, "%s\n%s", old, item);
  int rc = setenv(var, v, 1);
  free(v);
  return rc;
}

/* ncu's --nvtx-include / --nvtx-exclude configuration, checked as the
 * library will (lib/core/base/pc_nvtx_filter.c). */
static int run_check_nvtx(const char *opt, const char *v) {
  pc_nvtx_filter f;
  memset(&f, 0, sizeof f);
  pc_err why;
  perfcheck_status st = pc_nvtx_filter_add(&f, 1, v, &why);
  pc_nvtx_filter_free(&f);
  return st == PERFCHECK_OK ? 0 : pc_cli_usage_error("run", RUN_USAGE, "%s: %s", opt, why.msg);
}

enum { RUN_OPT_NCU = 1000 }; /* getopt's value for pc_ncu_unsupported[i]: RUN_OPT_NCU + i */

int pc_cli_run(int argc, char **argv) {
  static const struct option own[] = {{"mode", required_argument, NULL, 'M'},
                                      {"metrics", required_argument, NULL, 'X'},
                                      {"set", required_argument, NULL, 'S'},
                                      {"kernels", required_argument, NULL, 'k'},
                                      {"kernel-name", required_argument, NULL, 'k'},
                                      {"kernel-name-base", required_argument, NULL, 'B'},
                                      {"launch-skip", required_argument, NULL, 's'},
                                      {"launch-count", required_argument, NULL, 'c'},
                                      {"per-signature", required_argument, NULL, 'P'},
                                      {"nvtx", no_argument, NULL, 'N'},
                                      {"nvtx-include", required_argument, NULL, 'I'},
                                      {"nvtx-exclude", required_argument, NULL, 'E'},
                                      {"output", required_argument, NULL, 'o'},
                                      {"export", required_argument, NULL, 'o'},
                                      {"force-overwrite", no_argument, NULL, 'F'},
                                      {"format", required_argument, NULL, 'f'},
                                      {"csv", no_argument, NULL, 'C'},
                                      {"progress", no_argument, NULL, 'G'},
                                      {"verbose", no_argument, NULL, 'v'},
                                      {"version", no_argument, NULL, 'V'},
                                      {"help", no_argument, NULL, 'h'}};
  enum { NOWN = sizeof own / sizeof own[0] };
  size_t nncu = 0;
  while (pc_ncu_unsupported[nncu].name) nncu++;
  struct option *longopts = calloc(NOWN + nncu + 1, sizeof *longopts);
  if (!longopts) {
    fputs("perfcheck run: out of memory\n", stderr);
    return RUN_USAGE;
  }
  memcpy(longopts, own, sizeof own);
  for (size_t i = 0; i < nncu; i++)
    longopts[NOWN + i] = (struct option){pc_ncu_unsupported[i].name,
                                         pc_ncu_unsupported[i].has_arg ? required_argument : no_argument, NULL,
                                         (int)(RUN_OPT_NCU + i)};
  const char *set = NULL, *metrics = NULL;
  int rc = -1, last_was_nvtx = 0;
  pc_cli_out_spec out; /* -o/--output and -f/--format/--csv: the format follows the name */
  pc_cli_out_init(&out);
  pc_cli_getopt_reset();
  int c;
  /* '+': stop at PROGRAM, whose own options are its own.  -i is ncu's
   * --import (refused). */
  while (rc < 0 && (c = getopt_long(argc, argv, "+:k:s:c:o:f:i:p:vh", longopts, NULL)) != -1) {
    if (pc_cli_value_is_option(c, longopts)) {
      rc = pc_cli_value_error("run", argv, RUN_USAGE);
      break;
    }
    last_was_nvtx = c == 'N';
    const char *var = NULL;
    if (c >= RUN_OPT_NCU && (size_t)(c - RUN_OPT_NCU) < nncu) {
      rc = pc_cli_ncu_refused("run", &pc_ncu_unsupported[c - RUN_OPT_NCU], RUN_USAGE);
      break;
    }
    switch (c) {
      case 'h':
        fputs(pc_cli_run_usage, stdout);
        rc = 0;
        continue;
      case 'V':
        printf("perfcheck %s\n", perfcheck_version_string());
        rc = 0;
        continue;
      case 'i': /* ncu's -i, --import */
      case 'p': /* ncu's -p, --port */
        rc = pc_cli_ncu_refused("run", pc_ncu_flag_find(c == 'i' ? "import" : "port"), RUN_USAGE);
        continue;
      case 'G':
        setenv("PERFCHECK_PROGRESS", "1", 1);
        continue;
      case 'v':
        pc_cli_set_verbose();
        continue;
      case 'N': /* ncu's --nvtx: NVTX support, always on here */
      case 'F': /* ncu's --force-overwrite: the report always replaces its file (through a rename) */
        continue;
      case 'C':
        rc = pc_cli_out_format(&out, "run", "--csv", PERFCHECK_FORMAT_CSV);
        continue;
      case 'B':
        if (strcmp(optarg, "function") != 0)
          rc = pc_cli_usage_error("run", RUN_USAGE,
                                  "ncu's --kernel-name-base %s is not supported here: use -k with the function name "
                                  "(--kernel-name-base function, ncu's default) or regex:EXPR",
                                  optarg);
        continue;
      case 'I':
      case 'E': {
        const char *opt = c == 'I' ? "--nvtx-include" : "--nvtx-exclude";
        const int bad =
            *optarg ? run_check_nvtx(opt, optarg) : pc_cli_usage_error("run", RUN_USAGE, "%s needs a configuration", opt);
        if (bad)
          rc = bad;
        else if (run_append_env(c == 'I' ? "PERFCHECK_NVTX_INCLUDE" : "PERFCHECK_NVTX_EXCLUDE", optarg) != 0)
          rc = pc_cli_usage_error("run", RUN_USAGE, "%s", "out of memory");
        continue;
      }
      case 'S':
        if (!perfcheck_metric_list(optarg)) {
          rc = pc_cli_usage_error("run", RUN_USAGE, "unknown --set '%s' (basic, detailed or full, as ncu's; or "
                                                    "perfcheck's default or sol)", optarg);
          continue;
        }
        set = optarg;
        continue;
      case 'X':
        metrics = optarg;
        continue;
      case 'M':
        if (!strcmp(optarg, "launch-and-attach") || !strcmp(optarg, "launch") || !strcmp(optarg, "attach")) {
          rc = pc_cli_usage_error("run", RUN_USAGE,
                                  "ncu's --mode %s is not supported here: perfcheck run launches the program itself "
                                  "(its own --mode is timing or counters)",
                                  optarg);
          continue;
        }
        var = "PERFCHECK_MODE";
        break;
      case 'k': var = "PERFCHECK_KERNELS"; break;
      case 's': var = "PERFCHECK_LAUNCH_SKIP"; break;
      case 'c': var = "PERFCHECK_LAUNCH_COUNT"; break;
      case 'P': var = "PERFCHECK_PER_SIGNATURE"; break;
      case 'o':
        if ((rc = run_check_value(argv[optind - 1], "PERFCHECK_OUTPUT", optarg)) == 0) rc = -1;
        if (rc < 0) rc = pc_cli_out_path(&out, "run", "--output", optarg);
        continue;
      case 'f':
        if ((rc = run_check_value(argv[optind - 1], "PERFCHECK_FORMAT", optarg)) == 0) rc = -1;
        if (rc < 0) rc = pc_cli_out_format(&out, "run", "--format", pc_cli_format(optarg));
        continue;
      default:
        rc = pc_cli_getopt_error("run", c, argv, RUN_USAGE);
        continue;
    }
    int bad = run_check_value(argv[optind - 1], var, optarg);
    if (bad) {
      rc = bad;
      continue;
    }
    setenv(var, optarg, 1);
  }
  free(longopts);
  if (rc >= 0) return rc;
  /* The report's name and format (pc_cli_out_resolve): -o r.json writes
   * JSON; -f csv -o r.json is refused. */
  if (out.path || out.format >= 0) {
    static const char *const names[] = {"text", "json", "csv", "html"};
    perfcheck_format format = PERFCHECK_FORMAT_TEXT;
    if ((rc = pc_cli_out_resolve(&out, "run", PC_CLI_FORMATS_ALL, &format)) >= 0) return rc;
    if (out.path) setenv("PERFCHECK_OUTPUT", out.path, 1);
    if (out.format >= 0 || pc_output_format_of_name(out.path) >= 0) setenv("PERFCHECK_FORMAT", names[format], 1);
  }
  /* --set and --metrics together, as ncu takes them: the set, then the names. */
  if (set || metrics) {
    char *v = NULL;
    size_t n = (set ? strlen(set) : 0) + (metrics ? strlen(metrics) : 0) + 2;
    if (!(v = malloc(n))) return pc_cli_usage_error("run", RUN_USAGE, "%s", "out of memory");
    snprintf(v, n, "%s%s%s", set ? set : "", set && metrics ? "," : "", metrics ? metrics : "");
    int bad = run_check_value(set ? "--set" : "--metrics", "PERFCHECK_METRICS", v);
    if (!bad) setenv("PERFCHECK_METRICS", v, 1);
    free(v);
    if (bad) return bad;
  }
  if (optind >= argc) return pc_cli_usage_error("run", RUN_USAGE, "%s", "which program? perfcheck run [options] -- PROGRAM [ARGS...]");
  /* A word before a later "--" is no PROGRAM: it was meant as a value. */
  if (strcmp(argv[optind - 1], "--") != 0)
    for (int i = optind + 1; i < argc; i++)
      if (strcmp(argv[i], "--") == 0) {
        if (last_was_nvtx)
          return pc_cli_usage_error("run", RUN_USAGE,
                                    "'%s' before '--' is not a program: --nvtx is a switch, as ncu's (for counters "
                                    "only inside the NVTX range %s, write --nvtx-include '%s/' for a push/pop range, "
                                    "'%s' for a start/end range)",
                                    argv[optind], argv[optind], argv[optind], argv[optind]);
        return pc_cli_usage_error("run", RUN_USAGE, "'%s' before '--' is not an option (the program comes after '--')",
                                  argv[optind]);
      }
  return pc_run_program("perfcheck run", argv + optind, NULL);
}
