/* The launch capture's launch log (pc_launchlog.h). */
#include "capture/pc_launchlog.h"

#include <stdlib.h>
#include <string.h>

static inline size_t pc_ltab_home(uint32_t corr, size_t mask) { return (size_t)pc_mix64(corr) & mask; }

static void pc_ltab_put_raw(pc_launch *e, size_t cap, const pc_launch *x) {
  size_t mask = cap - 1;
  size_t i = pc_ltab_home(x->corr, mask);
  while (e[i].flags & PC_L_USED) i = (i + 1) & mask;
  e[i] = *x;
}

static int pc_ltab_resize(pc_ltab *t, size_t nc) {
  pc_launch *e = calloc(nc, sizeof *e);
  if (!e) return -1;
  for (size_t i = 0; i < t->cap; i++)
    if (t->e[i].flags & PC_L_USED) pc_ltab_put_raw(e, nc, &t->e[i]);
  free(t->e);
  t->e = e;
  t->cap = nc;
  return 0;
}

size_t pc_ltab_find(const pc_ltab *t, uint32_t corr) {
  if (!t->cap) return SIZE_MAX;
  size_t mask = t->cap - 1;
  for (size_t i = pc_ltab_home(corr, mask);; i = (i + 1) & mask) {
    if (!(t->e[i].flags & PC_L_USED)) return SIZE_MAX;
    if (t->e[i].corr == corr) return i;
  }
}

int pc_ltab_put(pc_ltab *t, const pc_launch *x) {
  size_t at = pc_ltab_find(t, x->corr);
  if (at != SIZE_MAX) { /* a correlation id is never reused; keep the newest */
    t->e[at] = *x;
    return 0;
  }
  if ((t->n + 1) * 2 > t->cap && pc_ltab_resize(t, t->cap ? t->cap * 2 : 1024)) return -1;
  pc_ltab_put_raw(t->e, t->cap, x);
  t->n++;
  return 0;
}

/* Backward-shift deletion: no tombstones, so lookups stay short however many
 * launches pass through. */
void pc_ltab_erase(pc_ltab *t, size_t i) {
  size_t mask = t->cap - 1;
  t->e[i].flags = 0;
  size_t j = i;
  for (;;) {
    j = (j + 1) & mask;
    if (!(t->e[j].flags & PC_L_USED)) break;
    size_t k = pc_ltab_home(t->e[j].corr, mask);
    /* Entry j may move to the hole i unless its home lies cyclically in (i, j]. */
    int stays = (i <= j) ? (i < k && k <= j) : (i < k || k <= j);
    if (!stays) {
      t->e[i] = t->e[j];
      t->e[j].flags = 0;
      i = j;
    }
  }
  t->n--;
}

size_t pc_ltab_pending(const pc_ltab *t, uint32_t region) {
  size_t n = 0;
  for (size_t i = 0; i < t->cap; i++) {
    const pc_launch *e = &t->e[i];
    if ((e->flags & PC_L_USED) && !(e->flags & PC_L_GRAPH) && e->region == region) n++;
  }
  return n;
}

size_t pc_ltab_purge(pc_ltab *t, uint32_t region) {
  size_t missing = 0, keep = 0;
  for (size_t i = 0; i < t->cap; i++) {
    pc_launch *e = &t->e[i];
    if (!(e->flags & PC_L_USED)) continue;
    if (e->region == region) {
      if (!(e->flags & PC_L_GRAPH)) missing++;
      e->flags = 0;
    } else {
      keep++;
    }
  }
  if (keep != t->n) { /* holes break the probe chains: rehash what stays */
    pc_launch *old = t->e;
    size_t cap = t->cap;
    pc_launch *e = calloc(cap, sizeof *e);
    if (e) {
      for (size_t i = 0; i < cap; i++)
        if (old[i].flags & PC_L_USED) pc_ltab_put_raw(e, cap, &old[i]);
      free(old);
      t->e = e;
    } else { /* no memory for a copy: reinsert in place, slot by slot */
      for (size_t i = 0; i < cap; i++) {
        if (!(old[i].flags & PC_L_USED)) continue;
        pc_launch x = old[i];
        old[i].flags = 0;
        pc_ltab_put_raw(old, cap, &x);
      }
    }
    t->n = keep;
  }
  return missing;
}

void pc_ltab_free(pc_ltab *t) {
  free(t->e);
  t->e = NULL;
  t->cap = t->n = 0;
}
