/* The one region stack (pc_regions.h). */
#include "base/pc_buf.h"
#include "capture/pc_regions.h"

#include <stdlib.h>
#include <string.h>

#include "model/pc_core.h"
#include "base/pc_util.h"

static pc_open_region *pc_find(const pc_regions *t, uint32_t id) {
  for (size_t i = t->n; i-- > 0;)
    if (t->v[i].id == id) return &t->v[i];
  return NULL;
}

uint32_t pc_regions_current(const pc_regions *t) {
  for (size_t i = t->n; i-- > 0;)
    if (!t->v[i].closing) return t->v[i].id;
  return 0;
}

/* The key of `name`: the id of its first push, or `id` when it is new.
 * Returns 0 on out of memory. */
static uint32_t pc_name_key(pc_regions *t, const char *name, uint32_t id) {
  for (size_t i = 0; i < t->nnames; i++)
    if (strcmp(t->names[i], name) == 0) return t->keys[i];
  /* Two arrays of one capacity: the keys grow first, on a copy of it. */
  size_t capkeys = t->capnames;
  if (pc_grow((void **)&t->keys, &capkeys, t->nnames + 1, sizeof *t->keys) ||
      pc_grow((void **)&t->names, &t->capnames, t->nnames + 1, sizeof *t->names))
    return 0;
  char *copy = pc_strdup(name);
  if (!copy) return 0;
  t->names[t->nnames] = copy;
  t->keys[t->nnames++] = id;
  return id;
}

uint32_t pc_regions_key(const pc_regions *t, uint32_t id) {
  const pc_open_region *r = id ? pc_find(t, id) : NULL;
  return r ? r->key : 0;
}

uint32_t pc_regions_push(pc_regions *t, const char *name, unsigned flags, const pc_region_marks *begin) {
  if (pc_grow((void **)&t->v, &t->cap, t->n + 1, sizeof *t->v)) return 0;
  char *copy = pc_strdup(name ? name : "(unnamed)");
  if (!copy) return 0;
  pc_open_region *r = &t->v[t->n];
  memset(r, 0, sizeof *r);
  if (++t->last_id == 0) ++t->last_id;
  r->id = t->last_id;
  r->key = pc_name_key(t, copy, r->id);
  if (!r->key) r->key = r->id; /* out of memory for the name table: this run profiles on its own */
  r->parent = pc_regions_current(t);
  const pc_open_region *up = r->parent ? pc_find(t, r->parent) : NULL;
  r->depth = up ? up->depth + 1 : 0;
  r->flags = flags;
  r->name = copy;
  if (begin) r->begin = *begin;
  t->n++;
  return r->id;
}

int pc_regions_close(pc_regions *t, uint32_t id, const pc_region_marks *end) {
  pc_open_region *r = pc_find(t, id);
  if (!r) return -1;
  r->closing = 1;
  if (end) {
    r->has_end = 1;
    r->end = *end;
  }
  return 0;
}

const pc_open_region *pc_regions_find(const pc_regions *t, uint32_t id) { return pc_find(t, id); }

uint32_t pc_regions_innermost(const pc_regions *t) {
  for (size_t i = t->n; i-- > 0;)
    if (!t->v[i].closing && !(t->v[i].flags & PC_RG_RECORDED)) return t->v[i].id;
  return 0;
}

uint32_t pc_regions_next_to_end(const pc_regions *t) {
  for (size_t i = 0; i < t->n; i++) {
    int parent = 0;
    for (size_t j = i + 1; j < t->n && !parent; j++) parent = t->v[j].parent == t->v[i].id;
    if (!parent) return t->v[i].id;
  }
  return 0;
}

uint64_t pc_regions_oldest_begin(const pc_regions *t, uint32_t except) {
  for (size_t i = 0; i < t->n; i++)
    if (t->v[i].id != except) return t->v[i].begin.ts;
  return UINT64_MAX;
}

void pc_regions_retire(pc_regions *t, uint32_t id) {
  for (size_t i = t->n; i-- > 0;)
    if (t->v[i].id == id) {
      const uint32_t parent = t->v[i].parent;
      free(t->v[i].name);
      memmove(&t->v[i], &t->v[i + 1], (t->n - i - 1) * sizeof *t->v);
      t->n--;
      for (size_t j = 0; j < t->n; j++)
        if (t->v[j].parent == id) t->v[j].parent = parent;
      return;
    }
}

void pc_regions_clear(pc_regions *t) {
  for (size_t i = 0; i < t->n; i++) free(t->v[i].name);
  free(t->v);
  t->v = NULL;
  t->n = t->cap = 0;
  for (size_t i = 0; i < t->nnames; i++) free(t->names[i]);
  free(t->names);
  free(t->keys);
  t->names = NULL;
  t->keys = NULL;
  t->nnames = t->capnames = 0;
}
