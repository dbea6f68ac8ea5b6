/*
 * pc_map.h: the one open-addressing table of lib (pc_map.c): a 64-bit key
 * (a hash, pc_hash.h, or an id) -> a 32-bit value (an index into the
 * owner's array), linear probing, slots placed by pc_mix64 of the key.
 * Keys may repeat (hash collisions): an `eq` callback confirms a candidate
 * against the owner's array.  pc_map_find is inline, so a constant `eq`
 * defined in the caller's file is inlined into the probe loop (no call per
 * probe).  Entries are erased by shifting the probe chain back (no
 * tombstones: lookups stay short however many entries came and went).  It
 * allocates in amortized steps and never locks.
 *
 * Every hash table of lib uses it: the launch capture's names, signatures
 * and launch log (capture/), the ncu reader's signatures and name memo,
 * merge's groups and occurrences, the expectations' name counts.
 */
#ifndef PC_MAP_H
#define PC_MAP_H

#include <stddef.h>
#include <stdint.h>

#define PC_NONE UINT32_MAX

static inline uint64_t pc_mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

typedef struct pc_map {
  uint64_t *key;
  uint32_t *val;                /* PC_NONE marks an empty slot */
  size_t cap, n;                /* cap: 0 or a power of two */
} pc_map;

typedef int (*pc_map_eq)(uint32_t val, const void *arg);

void pc_map_free(pc_map *m);
/* Adds k -> v (v != PC_NONE); returns 0, -1 on out of memory. */
int pc_map_insert(pc_map *m, uint64_t k, uint32_t v);

/* The slot of the first entry with key k that eq accepts (eq NULL: any), or
 * SIZE_MAX.  m->val[slot] is its value; it may be overwritten in place with
 * another value that has the same key. */
static inline size_t pc_map_slot(const pc_map *m, uint64_t k, pc_map_eq eq, const void *arg) {
  if (!m->cap) return SIZE_MAX;
  const size_t mask = m->cap - 1;
  for (size_t i = (size_t)pc_mix64(k) & mask;; i = (i + 1) & mask) {
    if (m->val[i] == PC_NONE) return SIZE_MAX;
    if (m->key[i] == k && (!eq || eq(m->val[i], arg))) return i;
  }
}
/* The value of the first entry with key k that eq accepts, or PC_NONE. */
static inline uint32_t pc_map_find(const pc_map *m, uint64_t k, pc_map_eq eq, const void *arg) {
  const size_t i = pc_map_slot(m, k, eq, arg);
  return i == SIZE_MAX ? PC_NONE : m->val[i];
}
/* Removes the entry in `slot` (from pc_map_slot or pc_map_next). */
void pc_map_erase(pc_map *m, size_t slot);
/* Iteration in slot order (the order shows nowhere: callers sort or index),
 * with no change to the table meanwhile:
 *   for (size_t it = 0; pc_map_next(m, &it, &k, &v);) ...  */
int pc_map_next(const pc_map *m, size_t *it, uint64_t *k, uint32_t *v);
/* Erases every entry that drop(key, value, arg) accepts; returns how many. */
size_t pc_map_erase_if(pc_map *m, int (*drop)(uint64_t k, uint32_t v, void *arg), void *arg);
/* Empties the table, keeping its memory. */
void pc_map_clear(pc_map *m);

#endif /* PC_MAP_H */
