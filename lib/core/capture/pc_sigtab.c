/* The launch capture's name, signature and context tables (pc_sigtab.h). */
#include "capture/pc_sigtab.h"

#include "base/pc_buf.h"
#include "base/pc_hash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t pc_name_new(pc_sigtab *t, const char *mangled) {
  if (t->nnames >= PC_NONE - 1 || pc_grow((void **)&t->names, &t->capnames, t->nnames + 1, sizeof *t->names))
    return PC_NONE;
  pc_name *n = &t->names[t->nnames];
  memset(n, 0, sizeof *n);
  n->regex = -1;
  n->comm = -1;
  if (mangled) {
    n->mangled = pc_strdup(mangled);
    if (!n->mangled) return PC_NONE;
  }
  return (uint32_t)t->nnames++;
}

typedef struct pc_name_key {
  const pc_sigtab *t;
  const char *mangled;
} pc_name_key;

static int pc_name_eq(uint32_t id, const void *arg) {
  const pc_name_key *k = arg;
  const char *m = k->t->names[id].mangled;
  return m && strcmp(m, k->mangled) == 0;
}

uint32_t pc_sigtab_intern(pc_sigtab *t, const char *mangled) {
  uint64_t h = pc_hash_str(mangled);
  const pc_name_key k = {t, mangled};
  uint32_t id = pc_map_find(&t->names_by_str, h, pc_name_eq, &k);
  if (id != PC_NONE) return id;
  id = pc_name_new(t, mangled);
  if (id != PC_NONE) pc_map_insert(&t->names_by_str, h, id); /* on OOM: found by pointer only */
  return id;
}

uint32_t pc_sigtab_handle(pc_sigtab *t, void *f, const char *symbol) {
  uint64_t k = (uint64_t)(uintptr_t)f;
  uint32_t id = pc_map_find(&t->names_by_ptr, k, NULL, NULL);
  if (id == PC_NONE) {
    id = (symbol && *symbol) ? pc_sigtab_intern(t, symbol) : pc_name_new(t, NULL);
    if (id == PC_NONE) return PC_NONE;
    pc_map_insert(&t->names_by_ptr, k, id);
  }
  t->names[id].f_last = f;
  return id;
}

typedef struct pc_sigkey {
  const pc_sigtab *t;
  uint32_t v[9]; /* name, ctx, grid xyz, block xyz, dynamic smem */
} pc_sigkey;

static int pc_sig_eq(uint32_t id, const void *arg) {
  const pc_sigkey *k = arg;
  const pc_sig *s = &k->t->sigs[id];
  return s->name == k->v[0] && s->ctx == k->v[1] && s->grid[0] == k->v[2] && s->grid[1] == k->v[3] &&
         s->grid[2] == k->v[4] && s->block[0] == k->v[5] && s->block[1] == k->v[6] && s->block[2] == k->v[7] &&
         s->smem == k->v[8];
}

uint32_t pc_sigtab_sig(pc_sigtab *t, uint32_t name, uint32_t ctx, const unsigned grid[3], const unsigned block[3],
                       unsigned smem, uint32_t max) {
  const pc_sigkey k = {t, {name, ctx, grid[0], grid[1], grid[2], block[0], block[1], block[2], smem}};
  uint64_t h = pc_hash_u32s(k.v, 9);
  uint32_t id = pc_map_find(&t->sigs_by_key, h, pc_sig_eq, &k);
  if (id != PC_NONE) return id;
  if (t->nsigs >= max || pc_grow((void **)&t->sigs, &t->capsigs, t->nsigs + 1, sizeof *t->sigs)) return PC_NONE;
  pc_sig *s = &t->sigs[t->nsigs];
  memset(s, 0, sizeof *s);
  s->name = name;
  s->ctx = ctx;
  memcpy(s->grid, grid, sizeof s->grid);
  memcpy(s->block, block, sizeof s->block);
  s->smem = smem;
  s->prof_region = 0;
  pc_attributes_init(&s->attr);
  id = (uint32_t)t->nsigs;
  if (pc_map_insert(&t->sigs_by_key, h, id)) return PC_NONE;
  t->nsigs++;
  return id;
}

typedef struct pc_graphkey {
  const pc_sigtab *t;
  uint64_t exec;
  uint32_t ctx;
} pc_graphkey;

static int pc_graph_eq(uint32_t id, const void *arg) {
  const pc_graphkey *k = arg;
  const pc_sig *s = &k->t->sigs[id];
  return s->is_graph && s->graph_exec == k->exec && s->ctx == k->ctx;
}

uint32_t pc_sigtab_graph(pc_sigtab *t, uint64_t exec, uint32_t ctx, uint32_t max) {
  const pc_graphkey k = {t, exec, ctx};
  const uint32_t words[3] = {(uint32_t)exec, (uint32_t)(exec >> 32), ctx};
  const uint64_t h = pc_hash_u32s(words, 3);
  uint32_t id = pc_map_find(&t->graphs_by_key, h, pc_graph_eq, &k);
  if (id != PC_NONE) return id;
  if (t->nsigs >= max || pc_grow((void **)&t->sigs, &t->capsigs, t->nsigs + 1, sizeof *t->sigs)) return PC_NONE;
  const uint32_t name = pc_name_new(t, NULL); /* no string: never found by name or handle */
  if (name == PC_NONE) return PC_NONE;
  t->names[name].regex = 1;
  t->names[name].comm = 0;
  pc_sig *s = &t->sigs[t->nsigs];
  memset(s, 0, sizeof *s);
  s->name = name;
  s->ctx = ctx;
  s->is_graph = 1;
  s->graph_exec = exec;
  pc_attributes_init(&s->attr);
  id = (uint32_t)t->nsigs;
  if (pc_map_insert(&t->graphs_by_key, h, id)) return PC_NONE;
  t->nsigs++;
  return id;
}

uint32_t pc_sigtab_ctx(pc_sigtab *t, void *ctx, uint32_t uid) {
  for (size_t i = t->nctxs; i-- > 0;)
    if (t->ctxs[i].ctx == ctx && t->ctxs[i].uid == uid && t->ctxs[i].alive) return (uint32_t)i;
  if (pc_grow((void **)&t->ctxs, &t->capctxs, t->nctxs + 1, sizeof *t->ctxs)) return PC_NONE;
  pc_ctxent *c = &t->ctxs[t->nctxs];
  c->ctx = ctx;
  c->uid = uid;
  c->alive = 1;
  c->last_launch = 0;
  return (uint32_t)t->nctxs++;
}

void pc_sigtab_ctx_dead(pc_sigtab *t, void *ctx) {
  for (size_t i = 0; i < t->nctxs; i++)
    if (t->ctxs[i].ctx == ctx) t->ctxs[i].alive = 0;
}

/* The short demangled name kernel_regex is matched against ("scaleAdd<4>"):
 * as the report names the kernel (pc_kernel_set_names). */
static void pc_short_name(const char *mangled, char *out, size_t len) {
  if (!mangled || !*mangled) {
    snprintf(out, len, "%s", "(unknown)");
    return;
  }
  char *dem = pc_demangle(mangled);
  pc_kernel_short_name(dem ? dem : mangled, out, len);
  free(dem);
}

int pc_sigtab_name_matches(pc_sigtab *t, uint32_t name, const pc_regex *re) {
  if (!re) return 1;
  pc_name *n = &t->names[name];
  if (n->regex < 0) {
    /* Demangling inside the callback: once per kernel name, no CUDA call. */
    char shortn[512];
    pc_short_name(n->mangled, shortn, sizeof shortn);
    n->regex = pc_regex_match(re, shortn) == 1;
  }
  return n->regex;
}

int pc_sigtab_name_is_communication(pc_sigtab *t, uint32_t name) {
  if (name >= t->nnames) return 0;
  pc_name *n = &t->names[name];
  if (n->comm < 0 && n->mangled) n->comm = (signed char)pc_symbol_is_communication(n->mangled);
  return n->comm > 0;
}

void pc_sigtab_forget_handles(pc_sigtab *t) {
  pc_map_free(&t->names_by_ptr);
  for (size_t i = 0; i < t->nnames; i++) t->names[i].f_last = NULL;
  for (size_t i = 0; i < t->nsigs; i++) {
    pc_sig *s = &t->sigs[i];
    if (!(s->is_kernel && s->attr_state == PC_ATTR_NONE)) s->f = NULL;
  }
}

void pc_sigtab_free(pc_sigtab *t) {
  for (size_t i = 0; i < t->nnames; i++) free(t->names[i].mangled);
  free(t->names);
  for (size_t i = 0; i < t->nsigs; i++) free(t->sigs[i].attr_reason);
  free(t->sigs);
  pc_map_free(&t->names_by_str);
  pc_map_free(&t->names_by_ptr);
  pc_map_free(&t->sigs_by_key);
  pc_map_free(&t->graphs_by_key);
  free(t->ctxs);
  memset(t, 0, sizeof *t);
}
