/*
 * pc_hash.h: the one hash function of lib/core, 64-bit FNV-1a (pc_hash.c).
 *
 *   pc_fnv1a(PC_FNV1A_BASIS, p, n)   over n bytes; chain calls to hash
 *                                    several fields, each continuing from h
 *   pc_hash_str(s)                   over a string's bytes
 *   pc_hash_u32s(v, n)               the same step over whole 32-bit words
 *                                    (a launch's signature, 9 words, hashed
 *                                    on the launch path: a quarter of the
 *                                    multiplies of its 36 bytes)
 *
 * pc_hash_str's values are kept on disk (lib/gpu/pc_config_cache.c names its
 * files with one), so they never change.  Tables place their slots with
 * pc_mix64 (pc_map.h) or the hash's low bits; no output depends on where a
 * slot is.
 */
#ifndef PC_HASH_H
#define PC_HASH_H

#include <stddef.h>
#include <stdint.h>

#define PC_FNV1A_BASIS 0xcbf29ce484222325ull
#define PC_FNV1A_PRIME 0x100000001b3ull

static inline uint64_t pc_fnv1a(uint64_t h, const void *p, size_t n) {
  const unsigned char *c = p;
  for (size_t i = 0; i < n; i++) h = (h ^ c[i]) * PC_FNV1A_PRIME;
  return h;
}

uint64_t pc_hash_str(const char *s);
uint64_t pc_hash_u32s(const uint32_t *v, size_t n);

#endif
