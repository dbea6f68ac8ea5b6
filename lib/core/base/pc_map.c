/* The open-addressing table (pc_map.h). */
#include "base/pc_map.h"

#include <stdlib.h>
#include <string.h>

void pc_map_free(pc_map *m) {
  free(m->key);
  free(m->val);
  memset(m, 0, sizeof *m);
}

static void pc_map_put_slot(uint64_t *key, uint32_t *val, size_t cap, uint64_t k, uint32_t v) {
  size_t mask = cap - 1;
  size_t i = (size_t)pc_mix64(k) & mask;
  while (val[i] != PC_NONE) i = (i + 1) & mask;
  key[i] = k;
  val[i] = v;
}

static int pc_map_grow(pc_map *m) {
  size_t nc = m->cap ? m->cap * 2 : 256;
  uint64_t *k = malloc(nc * sizeof *k);
  uint32_t *v = malloc(nc * sizeof *v);
  if (!k || !v) {
    free(k);
    free(v);
    return -1;
  }
  for (size_t i = 0; i < nc; i++) v[i] = PC_NONE;
  for (size_t i = 0; i < m->cap; i++)
    if (m->val[i] != PC_NONE) pc_map_put_slot(k, v, nc, m->key[i], m->val[i]);
  free(m->key);
  free(m->val);
  m->key = k;
  m->val = v;
  m->cap = nc;
  return 0;
}

int pc_map_insert(pc_map *m, uint64_t k, uint32_t v) {
  if ((m->n + 1) * 2 > m->cap && pc_map_grow(m)) return -1;
  pc_map_put_slot(m->key, m->val, m->cap, k, v);
  m->n++;
  return 0;
}

/* Backward-shift deletion: the entries after the hole that may move into it
 * (their home is not cyclically in (hole, their slot]) do, so no probe chain
 * is broken and no tombstone is left. */
void pc_map_erase(pc_map *m, size_t i) {
  if (i >= m->cap || m->val[i] == PC_NONE) return;
  const size_t mask = m->cap - 1;
  m->val[i] = PC_NONE;
  for (size_t j = (i + 1) & mask; m->val[j] != PC_NONE; j = (j + 1) & mask) {
    const size_t k = (size_t)pc_mix64(m->key[j]) & mask;
    const int stays = (i <= j) ? (i < k && k <= j) : (i < k || k <= j);
    if (!stays) {
      m->key[i] = m->key[j];
      m->val[i] = m->val[j];
      m->val[j] = PC_NONE;
      i = j;
    }
  }
  m->n--;
}

int pc_map_next(const pc_map *m, size_t *it, uint64_t *k, uint32_t *v) {
  for (; *it < m->cap; (*it)++)
    if (m->val[*it] != PC_NONE) {
      if (k) *k = m->key[*it];
      if (v) *v = m->val[*it];
      (*it)++;
      return 1;
    }
  return 0;
}

size_t pc_map_erase_if(pc_map *m, int (*drop)(uint64_t k, uint32_t v, void *arg), void *arg) {
  size_t gone = 0;
  for (size_t i = 0; i < m->cap; i++)
    if (m->val[i] != PC_NONE && drop(m->key[i], m->val[i], arg)) {
      m->val[i] = PC_NONE;
      gone++;
    }
  if (!gone) return 0;
  m->n -= gone;
  /* Holes break probe chains: what is left goes into fresh slots of the
   * same size; with no memory for them, back into these, one by one. */
  uint64_t *k = malloc(m->cap * sizeof *k);
  uint32_t *v = malloc(m->cap * sizeof *v);
  if (k && v) {
    for (size_t i = 0; i < m->cap; i++) v[i] = PC_NONE;
    for (size_t i = 0; i < m->cap; i++)
      if (m->val[i] != PC_NONE) pc_map_put_slot(k, v, m->cap, m->key[i], m->val[i]);
    free(m->key);
    free(m->val);
    m->key = k;
    m->val = v;
    return gone;
  }
  free(k);
  free(v);
  for (size_t i = 0; i < m->cap; i++) {
    if (m->val[i] == PC_NONE) continue;
    const uint64_t kk = m->key[i];
    const uint32_t vv = m->val[i];
    m->val[i] = PC_NONE;
    pc_map_put_slot(m->key, m->val, m->cap, kk, vv);
  }
  return gone;
}

void pc_map_clear(pc_map *m) {
  for (size_t i = 0; i < m->cap; i++) m->val[i] = PC_NONE;
  m->n = 0;
}
