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

uint32_t pc_map_find(const pc_map *m, uint64_t k, pc_map_eq eq, const void *arg) {
  if (!m->cap) return PC_NONE;
  size_t mask = m->cap - 1;
  for (size_t i = (size_t)pc_mix64(k) & mask;; i = (i + 1) & mask) {
    if (m->val[i] == PC_NONE) return PC_NONE;
    if (m->key[i] == k && (!eq || eq(m->val[i], arg))) return m->val[i];
  }
}

int pc_map_insert(pc_map *m, uint64_t k, uint32_t v) {
  if ((m->n + 1) * 2 > m->cap && pc_map_grow(m)) return -1;
  pc_map_put_slot(m->key, m->val, m->cap, k, v);
  m->n++;
  return 0;
}
