/* What build.one_channel must find (build.one_channel_found runs the check
 * on this folder): five problems, marked; the rest is fine. */
#include <stdio.h>
#include <unistd.h>

int bad_parse(const char *s, char *why, size_t whylen); /* 1 */
int bad_read(const char *path, char *err, size_t errlen); /* 2 */
int fine_name(const char *s, char *out, size_t len);      /* fine: not a message */
int reason(char *why, size_t n); /* one-channel-ok: exempted on purpose */

void bad_say(const char *m) {
  fprintf(stderr, "perfcheck: %s\n", m);   /* 3 */
  fputs(m,
        stderr);                          /* 4 */
  ssize_t w = write(2, m, 1);             /* 5 */
  (void)w;
  fprintf(stdout, "%s\n", m);             /* fine: stdout */
  /* fprintf(stderr, "in a comment") is fine */
  const char *s = "fprintf(stderr, \"in a string\")"; /* fine */
  (void)s;
}
