/* What build.one_output must find (build.one_output_found runs the check on
 * this folder): each call below writes a file outside pc_output.c. */
#include <fcntl.h>
#include <stdio.h>

void bad(const char *path, const char *mode) {
  FILE *f = fopen(path, "w");     /* 1 */
  FILE *g = fopen(path, mode);    /* 2: a mode that is not a literal */
  int fd = open(path,
                O_WRONLY | O_CREAT, 0644); /* 3 */
  rename(path, "x");              /* 4 */
  FILE *r = fopen(path, "rb");    /* fine: reading */
  int rd = open(path, O_RDONLY);  /* fine */
  /* fopen(path, "w") in a comment is fine */
  const char *js = "function open(){ fopen(\"w\") }"; /* fine: a string */
  (void)f, (void)g, (void)fd, (void)r, (void)rd, (void)js;
}
