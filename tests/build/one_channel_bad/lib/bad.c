/* What build.one_channel must find (build.one_channel_found runs the check
 * on this folder): seven problems, marked; the rest is fine.  A message
 * buffer is told by its types (a writable char *, size_t pair of a function
 * that can fail), whatever it is called. */
#include <stdio.h>
#include <unistd.h>

typedef int perfcheck_status;
typedef struct pc_err pc_err;

int bad_parse(const char *s, char *why, size_t whylen); /* 1 */
int bad_read(const char *path, char *err, size_t errlen); /* 2 */
perfcheck_status bad_start(int mode, char *note, size_t len, pc_err *err); /* 3: a side buffer named note */
static void bad_sync(int ctx, char *fault,
                     size_t n, pc_err *err) { (void)ctx, (void)fault, (void)n, (void)err; } /* 4 */
int fine_name(const char *s, char *out, size_t len); /* one-channel-ok: the name is its result */
void fine_format(char *buf, size_t len, double v);   /* fine: cannot fail, text is its result */
int fine_input(const char *s, size_t len);           /* fine: nothing written */
int reason(char *why, size_t n); /* one-channel-ok: exempted on purpose */

void bad_say(const char *m) {
  fprintf(stderr, "perfcheck: %s\n", m);   /* 5 */
  fputs(m,
        stderr);                          /* 6 */
  ssize_t w = write(2, m, 1);             /* 7 */
  (void)w;
  fprintf(stdout, "%s\n", m);             /* fine: stdout */
  /* fprintf(stderr, "in a comment") is fine */
  const char *s = "fprintf(stderr, \"in a string\")"; /* fine */
  (void)s;
  bad_sync(0, NULL, 0, NULL);
}
