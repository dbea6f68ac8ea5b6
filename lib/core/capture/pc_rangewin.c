/* pc_rangewin.c: see pc_rangewin.h. */
#include "capture/pc_rangewin.h"

#include <stdlib.h>

int pc_rangewin_init(pc_rangewin *w, size_t cap) {
  w->n = 0;
  w->cap = 0;
  w->corr = calloc(cap ? cap : 1, sizeof *w->corr);
  w->keep = calloc(cap ? cap : 1, sizeof *w->keep);
  if (!w->corr || !w->keep) {
    pc_rangewin_free(w);
    return -1;
  }
  w->cap = cap;
  return 0;
}

void pc_rangewin_free(pc_rangewin *w) {
  free(w->corr);
  free(w->keep);
  w->corr = NULL;
  w->keep = NULL;
  w->n = w->cap = 0;
}

int pc_rangewin_room(const pc_rangewin *w, size_t k) { return w->n + k <= w->cap; }

int pc_rangewin_add(pc_rangewin *w, uint32_t corr, unsigned char keep) {
  if (w->n >= w->cap) return -1;
  w->corr[w->n] = corr;
  w->keep[w->n] = keep;
  w->n++;
  return 0;
}

int pc_rangewin_pop(pc_rangewin *w, uint32_t corr) {
  if (!w->n || w->corr[w->n - 1] != corr) return 0;
  w->n--;
  return 1;
}

int pc_rangewin_matches(const pc_rangewin *w, size_t ranges, size_t dropped, int all_passes) {
  return ranges == w->n && dropped == 0 && all_passes;
}

void pc_rangewin_clear(pc_rangewin *w) { w->n = 0; }
