/* The launch capture's launch log (pc_launchlog.h). */
#include "capture/pc_launchlog.h"

#include <stdlib.h>
#include <string.h>

#include "base/pc_buf.h"

size_t pc_ltab_find(const pc_ltab *t, uint32_t corr) {
  const uint32_t i = pc_map_find(&t->by_corr, corr, NULL, NULL); /* ids are unique: no eq */
  return i == PC_NONE ? SIZE_MAX : i;
}

int pc_ltab_put(pc_ltab *t, const pc_launch *x) {
  const size_t at = pc_ltab_find(t, x->corr);
  if (at != SIZE_MAX) { /* a correlation id is never reused; keep the newest */
    t->e[at] = *x;
    return 0;
  }
  if (t->n >= PC_NONE || pc_grow((void **)&t->e, &t->cap, t->n + 1, sizeof *t->e)) return -1;
  if (pc_map_insert(&t->by_corr, x->corr, (uint32_t)t->n)) return -1;
  t->e[t->n++] = *x;
  return 0;
}

void pc_ltab_erase(pc_ltab *t, size_t i) {
  if (i >= t->n) return;
  pc_map_erase(&t->by_corr, pc_map_slot(&t->by_corr, t->e[i].corr, NULL, NULL));
  if (i != --t->n) { /* the last entry fills the hole */
    t->e[i] = t->e[t->n];
    const size_t slot = pc_map_slot(&t->by_corr, t->e[i].corr, NULL, NULL);
    if (slot != SIZE_MAX) t->by_corr.val[slot] = (uint32_t)i;
  }
}

size_t pc_ltab_pending(const pc_ltab *t, uint32_t region) {
  size_t n = 0;
  for (size_t i = 0; i < t->n; i++) n += !(t->e[i].flags & PC_L_GRAPH) && t->e[i].region == region;
  return n;
}

size_t pc_ltab_purge(pc_ltab *t, uint32_t region) {
  size_t missing = 0, keep = 0;
  for (size_t i = 0; i < t->n; i++) {
    if (t->e[i].region == region) {
      missing += !(t->e[i].flags & PC_L_GRAPH);
      continue;
    }
    t->e[keep++] = t->e[i];
  }
  if (keep == t->n) return 0;
  /* The indices moved: the table is refilled from the dense entries (its
   * memory kept, so this cannot fail). */
  t->n = keep;
  pc_map_clear(&t->by_corr);
  for (size_t i = 0; i < t->n; i++) (void)pc_map_insert(&t->by_corr, t->e[i].corr, (uint32_t)i);
  return missing;
}

void pc_ltab_free(pc_ltab *t) {
  free(t->e);
  pc_map_free(&t->by_corr);
  memset(t, 0, sizeof *t);
}
