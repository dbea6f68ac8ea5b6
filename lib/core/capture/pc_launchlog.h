/*
 * pc_launchlog.h: the launch capture's launch log (pc_launchlog.c).
 * lib/gpu's collector owns one and holds it under its lock; nothing here
 * locks, calls CUDA or allocates in more than amortized steps.
 *
 *   pc_ltab  the launch log: correlation id -> {signature or context, region,
 *            flags}, 16 bytes an entry, kept dense (entries 0 .. n-1, in no
 *            particular order) and found through the one table, pc_map
 *            (base/pc_map.h), by correlation id.  The activity decoder erases
 *            an entry when its kernel record arrives (the last entry moves
 *            into its place), so the log holds only the launches whose
 *            record is outstanding, and the table's erase leaves no
 *            tombstone: lookups stay short however many launches pass.
 */
#ifndef PC_LAUNCHLOG_H
#define PC_LAUNCHLOG_H

#include <stddef.h>
#include <stdint.h>

#include "base/pc_map.h" /* PC_NONE, pc_mix64 */

/* ---- the launch log ---------------------------------------------------------------- */

typedef struct pc_launch {
  uint32_t corr;
  uint32_t a;                   /* signature id; for a graph launch, the context index */
  uint32_t region;
  uint32_t flags;               /* PC_L_* */
} pc_launch;
enum { PC_L_USED = 1u, PC_L_GRAPH = 2u, PC_L_PROFILED = 4u };

typedef struct pc_ltab {
  pc_launch *e;                 /* e[0 .. n): every entry in use */
  size_t n, cap;
  pc_map by_corr;               /* correlation id -> index into e */
} pc_ltab;

/* The index of `corr`'s entry in e, or SIZE_MAX. */
size_t pc_ltab_find(const pc_ltab *t, uint32_t corr);
/* Adds x (a correlation id already there is replaced: ids are never reused,
 * the newest wins); returns 0, -1 on out of memory. */
int pc_ltab_put(pc_ltab *t, const pc_launch *x);
/* Removes entry i (the last entry takes its index). */
void pc_ltab_erase(pc_ltab *t, size_t i);
/* Entries of `region` that are not graph launches (their record count is
 * unknown). */
size_t pc_ltab_pending(const pc_ltab *t, uint32_t region);
/* Removes every entry of `region`; returns how many non-graph launches were
 * among them (launches whose kernel record never arrived). */
size_t pc_ltab_purge(pc_ltab *t, uint32_t region);
void pc_ltab_free(pc_ltab *t);

#endif /* PC_LAUNCHLOG_H */
