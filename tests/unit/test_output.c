/* Report destinations (pc_output.c): pattern checks, %q{VAR} rules and
 * sanitising, one name per process of a run, the temporary-file-and-rename
 * write (a symlink at the target is replaced, never written through; a
 * failure leaves nothing behind), and the stderr fallback that loses
 * nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/pc_output.h"

static char tmpdir[256];

static int make_tmpdir(void **state) {
  (void)state;
  const char *t = getenv("TMPDIR");
  snprintf(tmpdir, sizeof tmpdir, "%s/pc_output_XXXXXX", t && *t ? t : "/tmp");
  assert_non_null(mkdtemp(tmpdir));
  unsetenv("PERFCHECK_ROOT_PID");
  return 0;
}

static int remove_tmpdir(void **state) {
  (void)state;
  DIR *d = opendir(tmpdir);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d))) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
      char p[600];
      snprintf(p, sizeof p, "%s/%s", tmpdir, e->d_name);
      if (unlink(p) != 0) rmdir(p);
    }
    closedir(d);
  }
  rmdir(tmpdir);
  unsetenv("PERFCHECK_ROOT_PID");
  return 0;
}

static size_t count_entries(const char *dir) {
  DIR *d = opendir(dir);
  assert_non_null(d);
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
  closedir(d);
  return n;
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *buf = calloc(1, 65536);
  assert_non_null(buf);
  size_t n = fread(buf, 1, 65535, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

/* ---- patterns -------------------------------------------------------------- */

static void test_check_pattern(void **state) {
  (void)state;
  pc_err why;
  static const char *const good[] = {"r.json", "r.%p.json", "/tmp/r-%h-%q{OMPI_COMM_WORLD_RANK}-%%.json", "-",
                                     "stderr", "%q{_X1}%p%h%%"};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
    if (pc_output_check_pattern(good[i], &why) != PERFCHECK_OK) fail_msg("%s refused: %s", good[i], why.msg);
  static const struct {
    const char *p, *says;
  } bad[] = {{"r%x", "unknown %x"}, {"r.%q{RANK.json", "without its closing"}, {"r.%qRANK", "followed by {VAR}"},
             {"r.%q{}", "variable name"}, {"r.%q{1X}", "variable name"}, {"r.%q{A-B}", "variable name"},
             {"r%", "a lone %"},     {"", "empty"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    assert_int_equal(pc_output_check_pattern(bad[i].p, &why), PERFCHECK_ERROR_INVALID_ARGUMENT);
    assert_int_equal(why.status, PERFCHECK_ERROR_INVALID_ARGUMENT);
    if (!strstr(why.msg, bad[i].says)) fail_msg("\"%s\": \"%s\" lacks \"%s\"", bad[i].p, why.msg, bad[i].says);
  }
  assert_int_equal(pc_output_check_pattern(NULL, &why), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_string_equal(why.msg, "an empty output path");
}

/* noinline: inlined, GCC 12 takes the memstream's hold on its own w for the caller's
 * (a -Wdangling-pointer false positive). */
__attribute__((noinline)) static char *expand(const char *pattern, char **warned) {
  size_t len = 0;
  char *w = NULL;
  FILE *f = open_memstream(&w, &len);
  assert_non_null(f);
  char *p = pc_output_expand(pattern, f);
  fclose(f);
  if (warned)
    *warned = w;
  else
    free(w);
  assert_non_null(p);
  return p;
}

static void test_expand(void **state) {
  (void)state;
  char pid[32], want[512];
  snprintf(pid, sizeof pid, "%ld", (long)getpid());
  char *w = NULL, *p;

  p = expand("r.%p.json", &w);
  snprintf(want, sizeof want, "r.%s.json", pid);
  assert_string_equal(p, want);
  assert_string_equal(w, "");
  free(p), free(w);

  p = expand("100%%-%h", NULL);
  assert_true(strncmp(p, "100%-", 5) == 0 && strlen(p) > 5 && !strchr(p + 5, '/'));
  free(p);

  setenv("PC_TEST_RANK", "3", 1);
  p = expand("r.%q{PC_TEST_RANK}.json", &w);
  assert_string_equal(p, "r.3.json");
  assert_string_equal(w, "");
  free(p), free(w);

  /* Unset or empty: the pid, and one warning line, never "r..json". */
  unsetenv("PC_TEST_RANK");
  p = expand("r.%q{PC_TEST_RANK}.json", &w);
  snprintf(want, sizeof want, "r.%s.json", pid);
  assert_string_equal(p, want);
  assert_non_null(strstr(w, "%q{PC_TEST_RANK}, which is unset; using the process id"));
  assert_int_equal(strchr(w, '\n') - w + 1, (long)strlen(w)); /* one line */
  free(p), free(w);
  setenv("PC_TEST_RANK", "", 1);
  p = expand("r.%q{PC_TEST_RANK}.json", &w);
  assert_string_equal(p, want);
  assert_non_null(strstr(w, "which is empty"));
  free(p), free(w);

  /* Values are one path component. */
  static const struct {
    const char *value, *want;
  } vals[] = {{"/..", "_.."}, {"..", "__"}, {".", "_"}, {"a/b/../../etc", "a_b_.._.._etc"},
              {"x\ny", "x_y"}, {"\x1b[31m", "_[31m"}, {"0", "0"}};
  for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
    setenv("PC_TEST_RANK", vals[i].value, 1);
    p = expand("out/r.%q{PC_TEST_RANK}", NULL);
    snprintf(want, sizeof want, "out/r.%s", vals[i].want);
    assert_string_equal(p, want);
    free(p);
  }
  char big[400];
  memset(big, 'v', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  setenv("PC_TEST_RANK", big, 1);
  /* Longer than 128 bytes: the pid and a warning, never a cut value (two
   * ranks whose values differ after byte 128 would share one file). */
  char *warn = NULL;
  p = expand("%q{PC_TEST_RANK}", &warn);
  assert_string_equal(p, pid);
  assert_non_null(strstr(warn, "which is 399 bytes long (at most 128); using the process id"));
  free(p);
  free(warn);
  big[128] = '\0'; /* 128 bytes: kept whole */
  setenv("PC_TEST_RANK", big, 1);
  p = expand("%q{PC_TEST_RANK}", &warn);
  assert_string_equal(p, big);
  assert_string_equal(warn, "");
  free(p);
  free(warn);
  unsetenv("PC_TEST_RANK");

  p = expand("-", NULL);
  assert_string_equal(p, "-");
  free(p);
  p = expand("stderr", NULL);
  assert_string_equal(p, "stderr");
  free(p);
  assert_null(pc_output_expand(NULL, NULL));
}

/* Processes of one run that are not its root get PATH.PID. */
static void test_descendants(void **state) {
  (void)state;
  char pid[32], want[256];
  snprintf(pid, sizeof pid, "%ld", (long)getpid());
  char *p;
  setenv("PERFCHECK_ROOT_PID", pid, 1); /* the root: the name as given */
  p = expand("report.json", NULL);
  assert_string_equal(p, "report.json");
  free(p);
  setenv("PERFCHECK_ROOT_PID", "1", 1); /* someone else is the root */
  static const struct {
    const char *pattern, *fmt;
  } cases[] = {{"report.json", "report.%s.json"},
               {"out.d/report", "out.d/report.%s"},
               {"/a/b/r.tar.gz", "/a/b/r.tar.%s.gz"},
               {".hidden", ".hidden.%s"},
               {"r", "r.%s"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    p = expand(cases[i].pattern, NULL);
    snprintf(want, sizeof want, cases[i].fmt, pid);
    assert_string_equal(p, want);
    free(p);
  }
  /* With %p the names differ already. */
  p = expand("r.%p.json", NULL);
  snprintf(want, sizeof want, "r.%s.json", pid);
  assert_string_equal(p, want);
  free(p);
  p = expand("-", NULL);
  assert_string_equal(p, "-");
  free(p);
  setenv("PERFCHECK_ROOT_PID", "junk", 1); /* not a pid: no rule */
  p = expand("report.json", NULL);
  assert_string_equal(p, "report.json");
  free(p);
  unsetenv("PERFCHECK_ROOT_PID");
}

/* ---- writing ------------------------------------------------------------------ */

static int write_hello(FILE *f, void *ctx) {
  fprintf(f, "hello %s\n", (const char *)ctx);
  return 0;
}

static int write_fails(FILE *f, void *ctx) {
  (void)ctx;
  fputs("half a rep", f);
  return -1;
}

static void test_write_file(void **state) {
  (void)state;
  char path[400], *text;
  pc_err why;
  snprintf(path, sizeof path, "%s/r.json", tmpdir);
  assert_int_equal(pc_output_write_file(path, write_hello, "one", &why), PERFCHECK_OK);
  text = slurp(path);
  assert_string_equal(text, "hello one\n");
  free(text);
  /* Replaced whole. */
  assert_int_equal(pc_output_write_file(path, write_hello, "two", &why), PERFCHECK_OK);
  text = slurp(path);
  assert_string_equal(text, "hello two\n");
  free(text);
  struct stat sb;
  assert_int_equal(stat(path, &sb), 0);
  mode_t um = umask(0);
  umask(um);
  assert_int_equal(sb.st_mode & 0777, 0666 & ~um); /* as fopen("w") would make it */
  assert_int_equal(count_entries(tmpdir), 1);        /* no temporary left */

  /* A symlink planted at the target is replaced; its target is untouched. */
  char victim[400], link[400];
  snprintf(victim, sizeof victim, "%s/victim", tmpdir);
  snprintf(link, sizeof link, "%s/planted.json", tmpdir);
  FILE *v = fopen(victim, "w");
  fputs("precious\n", v);
  fclose(v);
  assert_int_equal(symlink(victim, link), 0);
  assert_int_equal(pc_output_write_file(link, write_hello, "three", &why), PERFCHECK_OK);
  text = slurp(victim);
  assert_string_equal(text, "precious\n");
  free(text);
  assert_int_equal(lstat(link, &sb), 0);
  assert_true(S_ISREG(sb.st_mode));
  text = slurp(link);
  assert_string_equal(text, "hello three\n");
  free(text);

  /* Failures leave everything as it was. */
  size_t before = count_entries(tmpdir);
  char missing[400];
  snprintf(missing, sizeof missing, "%s/no/such/dir/r.json", tmpdir);
  assert_int_equal(pc_output_write_file(missing, write_hello, "x", &why), PERFCHECK_ERROR_IO);
  assert_non_null(strstr(why.msg, "No such file or directory"));
  assert_int_equal(pc_output_write_file(path, write_fails, NULL, &why), PERFCHECK_ERROR_IO);
  text = slurp(path);
  assert_string_equal(text, "hello two\n"); /* the old report stays */
  free(text);
  char sub[400];
  snprintf(sub, sizeof sub, "%s/adir", tmpdir);
  assert_int_equal(mkdir(sub, 0700), 0);
  assert_int_equal(pc_output_write_file(sub, write_hello, "x", &why), PERFCHECK_ERROR_IO);
  assert_non_null(strstr(why.msg, "is a folder, not a regular file"));
  assert_int_equal(count_entries(tmpdir), before + 1); /* adir only */
  rmdir(sub);
  snprintf(sub, sizeof sub, "%s/", tmpdir);
  assert_int_equal(pc_output_write_file(sub, write_hello, "x", &why), PERFCHECK_ERROR_IO);
  assert_non_null(strstr(why.msg, "folder"));
}

/* What is at the name decides.  A device, FIFO, socket or folder is
 * refused and left as it was; a regular file keeps its mode; a new file gets
 * the umask's; a symlink to a device is replaced, the device untouched. */
static void test_write_targets(void **state) {
  (void)state;
  char path[400], *text;
  pc_err why;
  struct stat sb;
  /* A FIFO: refused at once (a reader waiting on it gets nothing, never a
   * replaced node), nothing created. */
  snprintf(path, sizeof path, "%s/fifo", tmpdir);
  assert_int_equal(mkfifo(path, 0600), 0);
  assert_int_equal(pc_output_write_file(path, write_hello, "x", &why), PERFCHECK_ERROR_IO);
  assert_non_null(strstr(why.msg, "is a FIFO, not a regular file"));
  assert_int_equal(lstat(path, &sb), 0);
  assert_true(S_ISFIFO(sb.st_mode));
  assert_int_equal(count_entries(tmpdir), 1);
  unlink(path);
  /* A character device: /dev/null stands for /dev/full (refused before a
   * byte is written, so the test needs no root and changes nothing). */
  if (lstat("/dev/null", &sb) == 0 && S_ISCHR(sb.st_mode)) {
    assert_int_equal(pc_output_write_file("/dev/null", write_hello, "x", &why), PERFCHECK_ERROR_IO);
    assert_non_null(strstr(why.msg, "/dev/null is a character device, not a regular file"));
    assert_int_equal(lstat("/dev/null", &sb), 0);
    assert_true(S_ISCHR(sb.st_mode));
  }
  /* A symlink to a device: the link is replaced, the device untouched. */
  snprintf(path, sizeof path, "%s/devlink", tmpdir);
  assert_int_equal(symlink("/dev/null", path), 0);
  assert_int_equal(pc_output_write_file(path, write_hello, "via link", &why), PERFCHECK_OK);
  assert_int_equal(lstat(path, &sb), 0);
  assert_true(S_ISREG(sb.st_mode));
  assert_int_equal(lstat("/dev/null", &sb), 0);
  assert_true(S_ISCHR(sb.st_mode));
  unlink(path);
  /* An existing file's mode is kept (a 0600 report stays 0600). */
  snprintf(path, sizeof path, "%s/private.json", tmpdir);
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
  assert_true(fd >= 0);
  assert_int_equal(fchmod(fd, 0600), 0);
  close(fd);
  assert_int_equal(pc_output_write_file(path, write_hello, "secret", &why), PERFCHECK_OK);
  assert_int_equal(stat(path, &sb), 0);
  assert_int_equal(sb.st_mode & 0777, 0600);
  assert_int_equal(chmod(path, 0640), 0);
  assert_int_equal(pc_output_write_file(path, write_hello, "again", &why), PERFCHECK_OK);
  assert_int_equal(stat(path, &sb), 0);
  assert_int_equal(sb.st_mode & 0777, 0640);
  text = slurp(path);
  assert_string_equal(text, "hello again\n");
  free(text);
  unlink(path);
  /* A new file: 0666 less the umask, whatever the umask. */
  static const mode_t masks[] = {022, 077, 027, 0};
  mode_t old = umask(022);
  for (size_t i = 0; i < sizeof masks / sizeof masks[0]; i++) {
    umask(masks[i]);
    assert_int_equal(pc_output_write_file(path, write_hello, "m", &why), PERFCHECK_OK);
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0666 & ~masks[i]);
    unlink(path);
  }
  umask(old);
  /* "-" is stdout, not a file named "-". */
  assert_int_equal(pc_output_write_file("-", write_hello, "stdout", &why), PERFCHECK_OK);
  assert_int_equal(count_entries(tmpdir), 0);
  /* "." and ".." as the last component are folders. */
  snprintf(path, sizeof path, "%s/..", tmpdir);
  assert_int_equal(pc_output_write_file(path, write_hello, "x", &why), PERFCHECK_ERROR_IO);
  assert_non_null(strstr(why.msg, "folder"));
  /* Bytes. */
  snprintf(path, sizeof path, "%s/bytes", tmpdir);
  assert_int_equal(pc_output_write_bytes(path, "a\0b", 3, &why), PERFCHECK_OK);
  assert_int_equal(stat(path, &sb), 0);
  assert_int_equal(sb.st_size, 3);
  unlink(path);
}

/* Captures what pc_output_deliver writes to stderr (fd 2). */
static int deliver_captured(const char *pattern, pc_output_writer w, void *ctx, char **errtext) {
  char cap[400];
  snprintf(cap, sizeof cap, "%s/stderr.txt", tmpdir);
  fflush(stderr);
  int saved = dup(2);
  int fd = open(cap, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  assert_true(fd >= 0 && saved >= 0);
  dup2(fd, 2);
  close(fd);
  int rc = pc_output_deliver(pattern, w, ctx, 0, NULL);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  *errtext = slurp(cap);
  unlink(cap);
  return rc;
}

static void test_deliver(void **state) {
  (void)state;
  char pattern[400], *err;
  snprintf(pattern, sizeof pattern, "%s/ok.%%p.txt", tmpdir);
  assert_int_equal(deliver_captured(pattern, write_hello, "file", &err), 0);
  assert_string_equal(err, "");
  free(err);
  char path[400];
  snprintf(path, sizeof path, "%s/ok.%ld.txt", tmpdir, (long)getpid());
  char *text = slurp(path);
  assert_string_equal(text, "hello file\n");
  free(text);
  unlink(path);

  /* A folder that does not exist: one line, then the report, on stderr. */
  snprintf(pattern, sizeof pattern, "%s/missing/r.json", tmpdir);
  assert_int_equal(deliver_captured(pattern, write_hello, "fallback", &err), 1);
  assert_non_null(strstr(err, "perfcheck: cannot write the report to "));
  assert_non_null(strstr(err, "missing/r.json (cannot create a file in "));
  assert_non_null(strstr(err, "here it is on stderr instead\nhello fallback\n"));
  free(err);

  assert_int_equal(deliver_captured("stderr", write_hello, "err", &err), 0);
  assert_string_equal(err, "hello err\n");
  free(err);
  assert_int_equal(pc_output_privileged(), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_check_pattern),
      cmocka_unit_test(test_expand),
      cmocka_unit_test(test_descendants),
      cmocka_unit_test_setup_teardown(test_write_file, make_tmpdir, remove_tmpdir),
      cmocka_unit_test_setup_teardown(test_write_targets, make_tmpdir, remove_tmpdir),
      cmocka_unit_test_setup_teardown(test_deliver, make_tmpdir, remove_tmpdir),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
