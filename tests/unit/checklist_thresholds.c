/* The thresholds table of docs/checklist.md equals the code's
 * (pc_thresholds): the doc promises it, so a drift between the two fails
 * this test.  `checklist_thresholds docs/checklist.md --write` rewrites the
 * table from the code (between its markers) after a threshold changed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/pc_core.h"
#include "check/pc_check.h"

/* How the borderline test and scripts/threshold_sensitivity.py nudge it. */
static const char *nudge_word(pc_nudge n) {
  return n == PC_NUDGE_POINTS ? "+-5 points" : n == PC_NUDGE_RELATIVE ? "+-10%" : "none";
}

/* Replaces the table between the markers with the code's rows. */
static int write_table(const char *path, const char *text, const char *b, const char *e) {
  FILE *f = fopen(path, "w");
  if (!f) {
    perror(path);
    return 1;
  }
  const char *head = strchr(b, '\n');
  fwrite(text, 1, (size_t)(head + 1 - text), f);
  fputs("| key | value | nudge | meaning | source |\n| --- | --- | --- | --- | --- |\n", f);
  size_t count;
  const pc_threshold *t = pc_thresholds(&count);
  for (size_t i = 0; i < count; i++)
    fprintf(f, "| `%s` | %g | %s | %s | %s |\n", t[i].key, t[i].value, nudge_word(t[i].nudge), t[i].meaning,
            t[i].source);
  fputs(e, f);
  if (fclose(f) != 0) {
    perror(path);
    return 1;
  }
  printf("%s: thresholds table rewritten, %zu rows\n", path, count);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 2 && !(argc == 3 && strcmp(argv[2], "--write") == 0)) return 2;
  FILE *f = fopen(argv[1], "r");
  if (!f) {
    perror(argv[1]);
    return 1;
  }
  static char text[1 << 20];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  const char *b = strstr(text, "<!-- BEGIN THRESHOLDS -->"), *e = strstr(text, "<!-- END THRESHOLDS -->");
  if (!b || !e || e < b) {
    fprintf(stderr, "%s: no thresholds table markers\n", argv[1]);
    return 1;
  }
  if (argc == 3) return write_table(argv[1], text, b, e);
  size_t count;
  const pc_threshold *t = pc_thresholds(&count);
  int bad = 0;
  size_t rows = 0;
  for (const char *p = strstr(b, "| `"); p && p < e; p = strstr(p + 1, "| `")) rows++;
  for (size_t i = 0; i < count; i++) {
    char row[2048];
    snprintf(row, sizeof row, "| `%s` | %g | %s | %s | %s |\n", t[i].key, t[i].value, nudge_word(t[i].nudge),
             t[i].meaning, t[i].source);
    const char *at = strstr(b, row);
    if (!at || at > e) {
      fprintf(stderr, "%s lacks (or differs on) this row:\n%s", argv[1], row);
      bad = 1;
    }
  }
  if (rows != count) {
    fprintf(stderr, "%s has %zu threshold rows, the code %zu\n", argv[1], rows, count);
    bad = 1;
  }
  if (!bad) printf("%s: thresholds table of %zu rows, equal to the code\n", argv[1], count);
  return bad;
}
