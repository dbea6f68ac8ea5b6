/* The launch capture's name, signature and context tables (pc_sigtab.h). */
#include "capture/pc_sigtab.h"

#include "base/pc_buf.h"
#include "base/pc_hash.h"
#include "base/pc_util.h"

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
  n->func_last = PC_NONE;
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

static uint32_t pc_func_root(const pc_sigtab *t, uint32_t func) { return t->funcs[func].root; }

static uint32_t pc_func_new(pc_sigtab *t, void *f, uint32_t name) {
  if (t->nfuncs >= PC_NONE - 1 || pc_grow((void **)&t->funcs, &t->capfuncs, t->nfuncs + 1, sizeof *t->funcs))
    return PC_NONE;
  const uint32_t id = (uint32_t)t->nfuncs++;
  pc_func *fn = &t->funcs[id];
  memset(fn, 0, sizeof *fn);
  fn->f = f;
  fn->name = name;
  fn->root = id;
  return id;
}

static int pc_same_name(const pc_sigtab *t, uint32_t a, uint32_t b) {
  const char *ma = t->names[a].mangled, *mb = t->names[b].mangled;
  return a == b || (ma && mb && strcmp(ma, mb) == 0);
}

/* Joins the groups of functions a and b: the older root stays. */
static void pc_func_link(pc_sigtab *t, uint32_t a, uint32_t b) {
  uint32_t ra = pc_func_root(t, a), rb = pc_func_root(t, b);
  if (ra == rb) return;
  if (rb < ra) {
    const uint32_t x = ra;
    ra = rb, rb = x;
  }
  for (size_t i = 0; i < t->nfuncs; i++)
    if (t->funcs[i].root == rb) t->funcs[i].root = ra;
}

static uint64_t pc_ptr_key(const void *p) { return (uint64_t)(uintptr_t)p; }

uint32_t pc_sigtab_handle(pc_sigtab *t, void *f, const char *symbol) {
  const uint64_t k = pc_ptr_key(f);
  const size_t slot = pc_map_slot(&t->funcs_by_ptr, k, NULL, NULL);
  uint32_t id = slot == SIZE_MAX ? PC_NONE : t->funcs_by_ptr.val[slot];
  if (id != PC_NONE && symbol && *symbol && symbol != t->funcs[id].sym_seen) {
    /* Another symbol string: the same name, or a kernel of another name at
     * an address a module unload freed. */
    const char *m = t->names[t->funcs[id].name].mangled;
    if (!m || strcmp(m, symbol) == 0)
      t->funcs[id].sym_seen = symbol;
    else
      id = PC_NONE;
  }
  if (id == PC_NONE) {
    const uint32_t name = (symbol && *symbol) ? pc_sigtab_intern(t, symbol) : pc_name_new(t, NULL);
    if (name == PC_NONE || (id = pc_func_new(t, f, name)) == PC_NONE) return PC_NONE;
    t->funcs[id].sym_seen = symbol;
    if (slot != SIZE_MAX)
      t->funcs_by_ptr.val[slot] = id;
    else if (pc_map_insert(&t->funcs_by_ptr, k, id))
      return PC_NONE;
    /* A CUfunction a CUkernel of this name was resolved to: one function. */
    const uint32_t twin = pc_map_find(&t->funcs_by_canon, k, NULL, NULL);
    if (twin != PC_NONE && pc_same_name(t, t->funcs[twin].name, name)) pc_func_link(t, twin, id);
  }
  pc_func *fn = &t->funcs[id];
  fn->f = f;
  t->names[fn->name].func_last = id;
  return fn->root;
}

uint32_t pc_sigtab_name_func(pc_sigtab *t, uint32_t name) {
  if (name >= t->nnames) return PC_NONE;
  if (t->names[name].func_last != PC_NONE) return pc_func_root(t, t->names[name].func_last);
  const uint32_t id = pc_func_new(t, NULL, name);
  if (id != PC_NONE) t->names[name].func_last = id;
  return id;
}

void pc_sigtab_func_resolved(pc_sigtab *t, uint32_t func, void *canon) {
  if (func >= t->nfuncs || !canon) return;
  const uint64_t k = pc_ptr_key(canon);
  const uint32_t name = t->funcs[func].name;
  uint32_t other = pc_map_find(&t->funcs_by_canon, k, NULL, NULL);
  if (other == PC_NONE) {
    (void)pc_map_insert(&t->funcs_by_canon, k, func); /* on OOM: joined no later launch */
    other = pc_map_find(&t->funcs_by_ptr, k, NULL, NULL); /* that CUfunction launched itself */
  }
  if (other != PC_NONE && pc_same_name(t, t->funcs[other].name, name)) pc_func_link(t, other, func);
}

uint32_t pc_sigtab_function_id(const pc_sigtab *t, uint32_t sig) {
  if (sig >= t->nsigs || t->sigs[sig].func >= t->nfuncs) return 0;
  return pc_func_root(t, t->sigs[sig].func) + 1;
}

typedef struct pc_sigkey {
  const pc_sigtab *t;
  uint32_t v[9]; /* function, ctx, grid xyz, block xyz, dynamic smem */
} pc_sigkey;

static int pc_sig_eq(uint32_t id, const void *arg) {
  const pc_sigkey *k = arg;
  const pc_sig *s = &k->t->sigs[id];
  return s->func == k->v[0] && !s->is_graph && s->ctx == k->v[1] && s->grid[0] == k->v[2] && s->grid[1] == k->v[3] &&
         s->grid[2] == k->v[4] && s->block[0] == k->v[5] && s->block[1] == k->v[6] && s->block[2] == k->v[7] &&
         s->smem == k->v[8];
}

uint32_t pc_sigtab_sig(pc_sigtab *t, uint32_t name, uint32_t ctx, const unsigned grid[3], const unsigned block[3],
                       unsigned smem, uint32_t max) {
  const uint32_t func = pc_sigtab_name_func(t, name);
  return func == PC_NONE ? PC_NONE : pc_sigtab_sig_func(t, func, ctx, grid, block, smem, max);
}

uint32_t pc_sigtab_sig_func(pc_sigtab *t, uint32_t func, uint32_t ctx, const unsigned grid[3],
                            const unsigned block[3], unsigned smem, uint32_t max) {
  if (func >= t->nfuncs) return PC_NONE;
  func = pc_func_root(t, func);
  const pc_sigkey k = {t, {func, ctx, grid[0], grid[1], grid[2], block[0], block[1], block[2], smem}};
  uint64_t h = pc_hash_u32s(k.v, 9);
  uint32_t id = pc_map_find(&t->sigs_by_key, h, pc_sig_eq, &k);
  if (id != PC_NONE) return id;
  if (t->nsigs >= max || pc_grow((void **)&t->sigs, &t->capsigs, t->nsigs + 1, sizeof *t->sigs)) return PC_NONE;
  pc_sig *s = &t->sigs[t->nsigs];
  memset(s, 0, sizeof *s);
  s->name = t->funcs[func].name;
  s->func = func;
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
  s->func = PC_NONE;
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
  for (size_t i = 0; i < t->nfuncs; i++) t->funcs[i].f = NULL, t->funcs[i].sym_seen = NULL;
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
  free(t->funcs);
  pc_map_free(&t->funcs_by_ptr);
  pc_map_free(&t->funcs_by_canon);
  pc_map_free(&t->sigs_by_key);
  pc_map_free(&t->graphs_by_key);
  free(t->ctxs);
  memset(t, 0, sizeof *t);
}
