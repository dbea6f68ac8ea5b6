/*
 * pc_launchlog.h: the launch capture's pure hash structures
 * (pc_launchlog.c).  lib/gpu/pc_capture.c owns one of each and holds them
 * under its gpu lock; nothing here locks, calls CUDA or allocates in more
 * than amortized steps.
 *
 *   pc_map   64-bit key -> 32-bit value, open addressing with linear
 *            probing.  Keys may repeat (hash collisions): an `eq` callback
 *            confirms a candidate.
 *   pc_ltab  the launch log: correlation id -> {signature or context, region,
 *            flags}, 16 bytes an entry.  The activity decoder erases an
 *            entry when its kernel record arrives, so the log holds only the
 *            launches whose record is outstanding; erasing shifts entries
 *            back (no tombstones), so lookups stay short however many
 *            launches pass through.
 */
#ifndef PC_LAUNCHLOG_H
#define PC_LAUNCHLOG_H

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

/* FNV-1a over a string / over 32-bit words. */
uint64_t pc_hash_str(const char *s);
uint64_t pc_hash_u32s(const uint32_t *v, size_t n);

/* ---- pc_map ---------------------------------------------------------------------- */

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

/* ---- the launch log ---------------------------------------------------------------- */

typedef struct pc_launch {
  uint32_t corr;
  uint32_t a;                   /* signature id; for a graph launch, the context index */
  uint32_t region;
  uint32_t flags;               /* PC_L_* */
} pc_launch;
enum { PC_L_USED = 1u, PC_L_GRAPH = 2u, PC_L_PROFILED = 4u };

typedef struct pc_ltab {
  pc_launch *e;
  size_t cap, n;
} pc_ltab;

/* The slot of `corr`, or SIZE_MAX. */
size_t pc_ltab_find(const pc_ltab *t, uint32_t corr);
/* Adds x (a correlation id already there is replaced: ids are never reused,
 * the newest wins); returns 0, -1 on out of memory. */
int pc_ltab_put(pc_ltab *t, const pc_launch *x);
/* Removes the entry in slot i. */
void pc_ltab_erase(pc_ltab *t, size_t i);
/* Entries of `region` that are not graph launches (their record count is
 * unknown). */
size_t pc_ltab_pending(const pc_ltab *t, uint32_t region);
/* Removes every entry of `region`; returns how many non-graph launches were
 * among them (launches whose kernel record never arrived). */
size_t pc_ltab_purge(pc_ltab *t, uint32_t region);
void pc_ltab_free(pc_ltab *t);

#endif /* PC_LAUNCHLOG_H */
