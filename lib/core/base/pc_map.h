/*
 * pc_map.h: the one open-addressing table of lib/core (pc_map.c): a 64-bit
 * key (a hash, pc_hash.h) -> a 32-bit value (an index into the owner's
 * array), linear probing, slots placed by pc_mix64 of the key.  Keys may
 * repeat (hash collisions): an `eq` callback confirms a candidate against
 * the owner's array.  It allocates in amortized steps and never locks; the
 * launch capture's names and signatures (capture/pc_sigtab.c) use it.
 *
 * The other tables stay their own, for speed, not by oversight
 * (docs/architecture.md, "One of each"): the launch log (pc_launchlog.h)
 * erases entries on the activity path, which this table cannot; the ncu
 * reader's and merge's index tables compare keys inline on their hot loops,
 * where a callback per probe would cost.
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
  size_t cap, n;
} pc_map;

typedef int (*pc_map_eq)(uint32_t val, const void *arg);

void pc_map_free(pc_map *m);
/* The value of the first entry with key k that eq accepts (eq NULL: any),
 * or PC_NONE. */
uint32_t pc_map_find(const pc_map *m, uint64_t k, pc_map_eq eq, const void *arg);
/* Adds k -> v (v != PC_NONE); returns 0, -1 on out of memory. */
int pc_map_insert(pc_map *m, uint64_t k, uint32_t v);

#endif /* PC_MAP_H */
