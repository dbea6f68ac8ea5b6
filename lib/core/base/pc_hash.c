/* The one hash function, FNV-1a (pc_hash.h). */
#include "base/pc_hash.h"

uint64_t pc_hash_str(const char *s) {
  uint64_t h = PC_FNV1A_BASIS;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * PC_FNV1A_PRIME;
  return h;
}

uint64_t pc_hash_u32s(const uint32_t *v, size_t n) {
  uint64_t h = PC_FNV1A_BASIS;
  for (size_t i = 0; i < n; i++) h = (h ^ v[i]) * PC_FNV1A_PRIME;
  return h;
}
