/* Report destinations and safe writes (pc_output.h has the rules). */
#define _GNU_SOURCE /* secure_getenv, getauxval */
#include "base/pc_output.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/auxv.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "base/pc_buf.h"

#define PC_OUT_VALUE_MAX 128

int pc_output_privileged(void) { return getauxval(AT_SECURE) != 0; }

/* ---- patterns --------------------------------------------------------------- */

static int pc_out_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

perfcheck_status pc_output_check_pattern(const char *pat, pc_err *err) {
  pc_err_clear(err);
  if (!pat || !*pat) return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "an empty output path");
  for (const char *s = pat; *s; s++) {
    if (*s != '%') continue;
    char c = s[1];
    if (c == 'p' || c == 'h' || c == '%') {
      s++;
      continue;
    }
    if (c == 'q' && s[2] == '{') {
      const char *name = s + 3, *close = strchr(name, '}');
      if (!close) return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "%%q{ without its closing }");
      size_t len = (size_t)(close - name);
      int ok = len > 0 && len < 256 && !(name[0] >= '0' && name[0] <= '9');
      for (size_t i = 0; ok && i < len; i++) ok = pc_out_name_char(name[i]);
      if (!ok) return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "%%q{...} must hold an environment variable name");
      s = close;
      continue;
    }
    if (c == '\0')
      return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "a lone %% at the end; write %%%% for a percent sign");
    if (c == 'q') return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "%%q must be followed by {VAR}");
    if ((unsigned char)c >= 0x20 && (unsigned char)c < 0x7f)
      return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "unknown %%%c; use %%p, %%h, %%q{VAR} or %%%%", c);
    return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "unknown %% sequence; use %%p, %%h, %%q{VAR} or %%%%");
  }
  return PERFCHECK_OK;
}

int pc_output_format_of_name(const char *path) {
  if (!path) return -1;
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  const char *dot = strrchr(base, '.');
  if (!dot || dot == base) return -1;
  static const struct {
    const char *ext;
    int format;
  } known[] = {{".json", 1}, {".csv", 2}, {".html", 3}, {".htm", 3}, {".txt", 0}};
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (strcasecmp(dot, known[i].ext) == 0) return known[i].format;
  return -1;
}

/* ---- expansion ------------------------------------------------------------- */

/* A value as one path component. */
static void pc_out_add_component(pc_buf *b, const char *v) {
  char tmp[PC_OUT_VALUE_MAX + 1];
  size_t n = 0;
  for (; v[n] && n < PC_OUT_VALUE_MAX; n++) {
    unsigned char c = (unsigned char)v[n];
    tmp[n] = (c == '/' || c < 0x20 || c == 0x7f) ? '_' : (char)c;
  }
  tmp[n] = '\0';
  if (strcmp(tmp, ".") == 0 || strcmp(tmp, "..") == 0) memset(tmp, '_', n);
  pc_buf_putn(b, tmp, n);
}

static void pc_out_add_pid(pc_buf *b) {
  char tmp[32];
  snprintf(tmp, sizeof tmp, "%ld", (long)getpid());
  pc_buf_putn(b, tmp, strlen(tmp));
}

/* Whether this process is one of a run's others (pc_output.h). */
static int pc_out_is_descendant(void) {
  const char *root = secure_getenv("PERFCHECK_ROOT_PID");
  if (!root || !*root) return 0;
  char *end = NULL;
  long v = strtol(root, &end, 10);
  if (!end || *end || v <= 0) return 0;
  return (pid_t)v != getpid();
}

char *pc_output_expand(const char *pattern, FILE *warn) {
  if (!pattern) return NULL;
  pc_buf b = PC_BUF_INIT;
  pc_buf_putn(&b, "", 0);
  if (strcmp(pattern, "-") == 0 || strcmp(pattern, "stderr") == 0) {
    pc_buf_putn(&b, pattern, strlen(pattern));
    goto done;
  }
  int has_pid = 0;
  for (const char *s = pattern; *s; s++) {
    if (*s != '%') {
      pc_buf_putn(&b, s, 1);
      continue;
    }
    switch (s[1]) {
      case 'p':
        pc_out_add_pid(&b);
        has_pid = 1;
        s++;
        break;
      case 'h': {
        char host[256];
        if (gethostname(host, sizeof host) != 0) strcpy(host, "unknown-host");
        host[sizeof host - 1] = '\0';
        pc_out_add_component(&b, host);
        s++;
        break;
      }
      case '%':
        pc_buf_putn(&b, "%", 1);
        s++;
        break;
      case 'q': {
        const char *close = (s[2] == '{') ? strchr(s + 3, '}') : NULL;
        if (!close) { /* not a placeholder (the pattern check refuses it): as written */
          pc_buf_putn(&b, s, 1);
          break;
        }
        char name[256];
        size_t len = (size_t)(close - (s + 3));
        const char *v = NULL;
        if (len < sizeof name) {
          memcpy(name, s + 3, len);
          name[len] = '\0';
          v = secure_getenv(name);
        } else {
          snprintf(name, sizeof name, "%.200s...", s + 3);
        }
        size_t vlen = v ? strlen(v) : 0;
        if (v && *v && vlen <= PC_OUT_VALUE_MAX) {
          pc_out_add_component(&b, v);
        } else {
          /* Unset, empty, or too long to be one file name: never a name two
           * processes could share (a cut value could be), the pid. */
          pc_out_add_pid(&b);
          has_pid = 1;
          if (warn) {
            char what[64];
            if (v && *v)
              snprintf(what, sizeof what, "%zu bytes long (at most %d)", vlen, PC_OUT_VALUE_MAX);
            else
              snprintf(what, sizeof what, "%s", v ? "empty" : "unset");
            pc_say_to(warn, "the output path \"%.200s\" names %%q{%.200s}, which is %s; using the process id %ld instead",
                      pattern, name, what, (long)getpid());
          }
        }
        s = close;
        break;
      }
      default:
        pc_buf_putn(&b, s, 1);
        break;
    }
  }
  if (!has_pid && !b.oom && pc_out_is_descendant()) {
    /* ".PID" before the extension of the last component. */
    char *base = strrchr(b.p, '/');
    base = base ? base + 1 : b.p;
    char *dot = strrchr(base, '.');
    char pid[32];
    int w = snprintf(pid, sizeof pid, ".%ld", (long)getpid());
    if (dot && dot != base) {
      size_t at = (size_t)(dot - b.p);
      size_t tail = b.n - at;
      pc_buf_putn(&b, pid, (size_t)w); /* grows the buffer (may move it) */
      if (!b.oom) {
        memmove(b.p + at + (size_t)w, b.p + at, tail);
        memcpy(b.p + at, pid, (size_t)w);
        b.p[b.n] = '\0';
      }
    } else {
      pc_buf_putn(&b, pid, (size_t)w);
    }
  }
done:
  return pc_buf_take(&b); /* NULL when memory ran out */
}

/* ---- writing a file: the one output function ------------------------------------ */

static uint64_t pc_out_random(void) {
  uint64_t v = 0;
  if (getrandom(&v, sizeof v, GRND_NONBLOCK) != (ssize_t)sizeof v) {
    static unsigned counter;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    v = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 40) ^ ++counter;
  }
  return v;
}

/* What a node that is not a regular file is, for the refusal. */
static const char *pc_out_kind(mode_t m) {
  if (S_ISDIR(m)) return "a folder";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

/* The process's umask, read without changing it (umask(2) would, for every
 * thread of the host program): /proc/self/status's "Umask:" line (Linux
 * 4.7 and later).  -1 when it cannot be read. */
static int pc_out_umask(void) {
  int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[4096];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return -1;
  buf[n] = '\0';
  const char *u = strstr(buf, "\nUmask:");
  if (!u) return -1;
  char *end = NULL;
  long v = strtol(u + 7, &end, 8);
  return end && end != u + 7 && v >= 0 && v <= 0777 ? (int)v : -1;
}

/* The mode a new report file gets: 0666 less the umask, as any program's
 * new file; 0600 in a privileged process (its umask is its invoker's) or
 * when the umask cannot be read. */
static mode_t pc_out_new_mode(void) {
  if (pc_output_privileged()) return 0600;
  int um = pc_out_umask();
  return um < 0 ? 0600 : (mode_t)(0666 & ~um);
}

/* The target as it is now: PERFCHECK_OK when absent (*exists 0) or a
 * regular file or a symlink (replaced, never followed; *st filled);
 * PERFCHECK_ERROR_IO with err set when it is something else, which is never
 * touched. */
static perfcheck_status pc_out_check_target(const char *path, struct stat *st, int *exists, pc_err *err) {
  *exists = 0;
  if (lstat(path, st) != 0) {
    if (errno == ENOENT) return PERFCHECK_OK;
    return pc_err_set(err, PERFCHECK_ERROR_IO, "cannot look at %s: %s", path, strerror(errno));
  }
  *exists = 1;
  if (S_ISREG(st->st_mode) || S_ISLNK(st->st_mode)) return PERFCHECK_OK;
  return pc_err_set(err, PERFCHECK_ERROR_IO,
                    "%s is %s, not a regular file: perfcheck writes only regular files (- is stdout)", path,
                    pc_out_kind(st->st_mode));
}

static perfcheck_status pc_out_stream_to(FILE *f, pc_output_writer write, void *ctx, pc_err *err) {
  errno = 0;
  int bad = write(f, ctx) != 0;
  int e = errno;
  if (fflush(f) != 0 || ferror(f)) {
    bad = 1;
    if (!e) e = errno;
  }
  if (bad) {
    clearerr(f);
    return pc_err_set(err, PERFCHECK_ERROR_IO, "writing to stdout failed: %s", e ? strerror(e) : "write error");
  }
  return PERFCHECK_OK;
}

/* The signals that end a process by default and come from outside (or,
 * XFSZ, from a write past ulimit -f): blocked in the calling thread while a
 * name of ours exists for a file not yet in place, so that no temporary
 * name outlives a signal.  Faults (SEGV, BUS) are never blocked. */
static void pc_out_block_signals(sigset_t *old) {
  static const int sigs[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGALRM, SIGPIPE,
                             SIGUSR1, SIGUSR2, SIGXFSZ, SIGXCPU, SIGVTALRM, SIGPROF};
  sigset_t set;
  sigemptyset(&set);
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) sigaddset(&set, sigs[i]);
  pthread_sigmask(SIG_BLOCK, &set, old);
}

/* Gives the unnamed file fd (O_TMPFILE) the name `name`: linkat of the
 * descriptor itself (AT_EMPTY_PATH, which needs CAP_DAC_READ_SEARCH), else
 * through /proc/self/fd (open(2)'s documented way).  0, or -1 with errno
 * (EEXIST: the name is taken). */
static int pc_out_link(int fd, const char *name) {
  if (linkat(fd, "", AT_FDCWD, name, AT_EMPTY_PATH) == 0) return 0;
  if (errno == EEXIST) return -1;
  char proc[64];
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  return linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW);
}

/* A temporary name beside the target: "DIR/.BASE.XXXXXXXXXXXX.tmp". */
static void pc_out_tmp_name(char *tmp, size_t cap, const char *path, const char *slash, size_t dirlen,
                            const char *base, size_t baselen) {
  const unsigned long long r = (unsigned long long)(pc_out_random() & 0xffffffffffffull);
  if (slash)
    snprintf(tmp, cap, "%.*s/.%.*s.%012llx.tmp", (int)dirlen, path, (int)baselen, base, r);
  else
    snprintf(tmp, cap, ".%.*s.%012llx.tmp", (int)baselen, base, r);
}

perfcheck_status pc_output_write_file(const char *path, pc_output_writer write, void *ctx, pc_err *err) {
  pc_err_clear(err);
  if (!path || !*path || !write) return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "no path");
  if (strcmp(path, "-") == 0) return pc_out_stream_to(stdout, write, ctx, err);
  const char *slash = strrchr(path, '/');
  size_t dirlen = slash ? (size_t)(slash - path) : 0;
  const char *base = slash ? slash + 1 : path;
  if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
    return pc_err_set(err, PERFCHECK_ERROR_IO, "%s is a folder, not a file name", path);
  struct stat target;
  int exists = 0;
  perfcheck_status st = pc_out_check_target(path, &target, &exists, err);
  if (st != PERFCHECK_OK) return st;
  size_t baselen = strlen(base);
  if (baselen > 200) baselen = 200; /* the temporary's name must fit NAME_MAX */
  size_t cap = dirlen + baselen + 40;
  char *tmp = malloc(cap), *dir = malloc(dirlen + 2);
  if (!tmp || !dir) {
    free(tmp), free(dir);
    return pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "out of memory");
  }
  if (!slash)
    strcpy(dir, ".");
  else if (dirlen == 0)
    strcpy(dir, "/");
  else
    memcpy(dir, path, dirlen), dir[dirlen] = '\0';
  /* The content goes to an unnamed file in the target's folder (O_TMPFILE,
   * Linux 3.11; 0600 while it is written): a process that dies meanwhile (a
   * signal, ulimit -f's SIGXFSZ, SIGKILL) leaves nothing, as the kernel
   * frees an unnamed file with its last descriptor.  A file system without
   * O_TMPFILE gets a named temporary (O_EXCL, O_NOFOLLOW), written with the
   * signals of pc_out_block_signals blocked. */
  int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600), named = 0;
  sigset_t old;
  if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
    named = 1;
    pc_out_block_signals(&old);
    for (int attempt = 0; attempt < 16 && fd < 0; attempt++) {
      pc_out_tmp_name(tmp, cap, path, slash, dirlen, base, baselen);
      fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
      if (fd < 0 && errno != EEXIST) break;
    }
  }
  if (fd < 0) {
    int e = errno;
    if (named) pthread_sigmask(SIG_SETMASK, &old, NULL);
    st = pc_err_set(err, PERFCHECK_ERROR_IO, "cannot create a file in %s: %s", dir, strerror(e));
    free(tmp), free(dir);
    return st;
  }
  FILE *f = fdopen(fd, "w");
  if (!f) {
    int e = errno;
    close(fd);
    if (named) unlink(tmp), pthread_sigmask(SIG_SETMASK, &old, NULL);
    free(tmp), free(dir);
    return pc_err_set(err, PERFCHECK_ERROR_IO, "%s", strerror(e));
  }
  errno = 0;
  int bad = write(f, ctx) != 0;
  int e = errno;
  if (fflush(f) != 0 || ferror(f)) {
    bad = 1;
    if (!e) e = errno;
  }
  if (!bad) {
    /* An existing file keeps its mode (and, for root, its owner); a new one
     * gets pc_out_new_mode's. */
    mode_t mode = exists && S_ISREG(target.st_mode) ? (target.st_mode & 0777) : pc_out_new_mode();
    if (exists && S_ISREG(target.st_mode) && geteuid() == 0 &&
        (target.st_uid != 0 || target.st_gid != getegid()) && fchown(fileno(f), target.st_uid, target.st_gid) != 0) {
      /* best effort: the report is written, owned by root */
    }
    if (fchmod(fileno(f), mode) != 0) {
      bad = 1;
      e = errno;
    }
  }
  if (!bad && fsync(fileno(f)) != 0 && errno != EINVAL && errno != EROFS) {
    bad = 1;
    e = errno;
  }
  if (named && fclose(f) != 0 && !bad) {
    bad = 1;
    e = errno;
  }
  if (bad) {
    if (named) unlink(tmp), pthread_sigmask(SIG_SETMASK, &old, NULL);
    else fclose(f);
    free(tmp), free(dir);
    return pc_err_set(err, PERFCHECK_ERROR_IO, "writing failed: %s", e ? strerror(e) : "write error");
  }
  /* Into place.  Just before, the target is looked at again: a device or
   * FIFO put at the name meanwhile is left alone.  A name that was free is
   * taken only if it still is (linkat fails on a taken name, as
   * RENAME_NOREPLACE does); otherwise the file gets a temporary name and is
   * renamed over the target, so a reader sees the old file or the new one,
   * never half of one.  The signals stay blocked while a temporary name
   * exists. */
  if (!named) pc_out_block_signals(&old);
  struct stat now;
  int still = 0, refused = pc_out_check_target(path, &now, &still, err) != PERFCHECK_OK;
  int rc = -1, have_tmp = named;
  if (!refused && !named && !still) {
    rc = pc_out_link(fileno(f), path);
    const int le = rc != 0 ? errno : 0;
    if (le == EEXIST) { /* taken meanwhile: look once more, then replace */
      refused = pc_out_check_target(path, &now, &still, err) != PERFCHECK_OK;
    } else if (rc != 0) {
      pc_err_set(err, PERFCHECK_ERROR_IO, "cannot create %s: %s", path, strerror(le));
      refused = 1;
    }
  }
  if (rc != 0 && !refused && !named) {
    for (int attempt = 0; attempt < 16 && !have_tmp; attempt++) {
      pc_out_tmp_name(tmp, cap, path, slash, dirlen, base, baselen);
      if (pc_out_link(fileno(f), tmp) == 0)
        have_tmp = 1;
      else if (errno != EEXIST)
        break;
    }
    if (!have_tmp) {
      pc_err_set(err, PERFCHECK_ERROR_IO, "cannot create a file in %s: %s", dir, strerror(errno));
      refused = 1;
    }
  }
  if (rc != 0 && !refused) {
    rc = rename(tmp, path);
    if (rc != 0) pc_err_set(err, PERFCHECK_ERROR_IO, "cannot replace %s: %s", path, strerror(errno));
  }
  if (rc != 0 && have_tmp) unlink(tmp);
  if (!named) fclose(f); /* the unnamed file: named now, or freed */
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  free(tmp), free(dir);
  return rc != 0 ? PERFCHECK_ERROR_IO : PERFCHECK_OK;
}

typedef struct pc_out_bytes {
  const void *data;
  size_t size;
} pc_out_bytes;

static int pc_out_write_bytes(FILE *f, void *ctx) {
  const pc_out_bytes *b = ctx;
  return b->size && fwrite(b->data, 1, b->size, f) != b->size ? -1 : 0;
}

perfcheck_status pc_output_write_bytes(const char *path, const void *data, size_t size, pc_err *err) {
  if (!data && size) return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "no data");
  pc_out_bytes b = {data, size};
  return pc_output_write_file(path, pc_out_write_bytes, &b, err);
}

/* ---- the whole rule --------------------------------------------------------------- */

static int pc_out_stream(FILE *f, pc_output_writer write, void *ctx) {
  int bad = write(f, ctx) != 0;
  if (fflush(f) != 0 || ferror(f)) bad = 1;
  return bad ? -1 : 0;
}

int pc_output_deliver(const char *pattern, pc_output_writer write, void *ctx, int quiet, FILE *err) {
  if (!err) err = stderr;
  if (!pattern || !write) return -1;
  char *path = pc_output_expand(pattern, quiet ? NULL : err);
  if (!path) {
    pc_say_to(err, "out of memory expanding the output path \"%.300s\"; the report follows on stderr", pattern);
    return pc_out_stream(stderr, write, ctx) == 0 ? 1 : -1;
  }
  int rc;
  if (strcmp(path, "-") == 0) {
    rc = pc_out_stream(stdout, write, ctx);
    if (rc != 0 && !quiet) pc_say_to(err, "writing the report to stdout failed");
  } else if (strcmp(path, "stderr") == 0) {
    rc = pc_out_stream(stderr, write, ctx);
  } else if (pc_output_privileged()) {
    if (!quiet)
      pc_say_to(err,
                "no report written to %.300s: this process runs with privileges its user does not have "
                "(setuid, setgid or file capabilities)",
                path);
    rc = -1;
  } else {
    pc_err why;
    if (pc_output_write_file(path, write, ctx, &why) == PERFCHECK_OK) {
      rc = 0;
    } else {
      pc_say_to(err, "cannot write the report to %.300s (%s); here it is on stderr instead", path, why.msg);
      rc = pc_out_stream(stderr, write, ctx) == 0 ? 1 : -1;
    }
  }
  free(path);
  return rc;
}
