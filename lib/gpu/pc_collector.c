/*
 * pc_collector.c: the collector (pc_collector.h): what a session measures,
 * its one lock, and a region's end as one locked section.
 *
 * The tables are pure C in lib/core, tested on a CPU: the launch log and its
 * hash map (pc_launchlog.c), the names, signatures and contexts
 * (pc_sigtab.c), the selection policy (pc_select.c), the region stack
 * (pc_regions.c).  The collector owns one of each; the callbacks
 * (pc_capture.c, pc_activity.c) fill them and pc_harvest.c empties them a
 * region at a time through pc_collector_take_region.
 *
 * Memory for one region of 1,000,000 launches: 32 MB of kernel records, a
 * launch log of the launches not yet decoded (16 B each), a handful of 4 MiB
 * activity buffers.
 */
#define _GNU_SOURCE /* pthread_rwlockattr_setkind_np */
#include "pc_collector.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

pc_gpu_proc pc_gpu_g;

/* ---- life ----------------------------------------------------------------------------- */

pc_collector *pc_collector_new(void) {
  pc_collector *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  pthread_rwlockattr_t a;
  pthread_rwlockattr_init(&a);
  /* Writer preference: a launch waiting to be profiled must not starve
   * behind a stream of launches from other threads. */
  pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
  const int bad = pthread_mutex_init(&c->mu, NULL) || pthread_rwlock_init(&c->gate, &a);
  pthread_rwlockattr_destroy(&a);
  if (bad) {
    free(c);
    return NULL;
  }
  c->sel.per_signature = 1;
  return c;
}

static void pc_prof_free(pc_prof *p) {
  if (p->has_result) pc_rp_result_store_free(&p->res);
  p->has_result = 0;
}

void pc_collector_free(pc_collector *c) {
  if (!c) return;
  pc_sigtab_free(&c->tab);
  pc_ltab_free(&c->launches);
  for (size_t i = 0; i < c->nprof; i++) pc_prof_free(&c->prof[i]);
  free(c->prof);
  pc_regions_clear(&c->regions);
  free(c->caps);
  free(c->kernels);
  free(c->memcpys.v);
  free(c->memsets.v);
  for (size_t i = 0; i < c->nqueue; i++) free(c->queue[i].buf);
  free(c->queue);
  for (size_t i = 0; i < c->npool; i++) free(c->pool[i]);
  pthread_rwlock_destroy(&c->gate);
  pthread_mutex_destroy(&c->mu);
  free(c);
}

pc_collector *pc_collector_install(pc_collector *c) { return atomic_exchange(&pc_gpu_g.col, c); }

void pc_collector_set_counters(pc_collector *c, const pc_collector_counters *cc) {
  pc_col_lock(c);
  memset(&c->sel, 0, sizeof c->sel);
  c->rp = cc ? cc->rp : NULL;
  c->counters_asked = cc ? cc->asked : 0;
  snprintf(c->note, sizeof c->note, "%s", cc && cc->note ? cc->note : "");
  if (cc) {
    c->sel.kernel_regex = cc->kernel_regex;
    c->sel.launch_skip = cc->launch_skip;
    c->sel.launch_count = cc->launch_count;
    c->sel.per_signature = cc->per_signature;
    c->sel.rotate_groups = cc->rotate_groups;
    /* Rotation split the set at creation: graph launches use the same groups. */
    c->sel.graph_groups = cc->rotate_groups;
  }
  if (c->sel.per_signature == 0) c->sel.per_signature = 1;
  c->graph_note[0] = '\0';
  c->graph_note_given = 0;
  atomic_store(&c->graph_groups_state, c->sel.graph_groups ? 1 : 0);
  atomic_store(&c->counters, c->rp != NULL);
  pc_col_unlock(c);
}

void pc_collector_graph_groups(pc_collector *c) {
  if (atomic_load(&c->graph_groups_state) != 0) return;
  pc_col_lock(c);
  const int filtered = c->sel.kernel_regex != NULL; /* graphs are not profiled under -k: nothing to split */
  pc_col_unlock(c);
  if (filtered) {
    atomic_store(&c->graph_groups_state, -1);
    return;
  }
  /* No profiled launch runs while the groups are split (the counter layer
   * publishes them): the exclusive gate, as a profiled launch holds it. */
  pthread_rwlock_wrlock(&c->gate);
  if (atomic_load(&c->graph_groups_state) == 0 && atomic_load(&c->counters)) {
    char note[600] = "";
    const size_t n = pc_rp_graph_groups(c->rp, note, sizeof note);
    pc_col_lock(c);
    c->sel.graph_groups = (unsigned)n;
    if (!n) snprintf(c->graph_note, sizeof c->graph_note, "%s", note);
    pc_col_unlock(c);
    atomic_store(&c->graph_groups_state, n ? 1 : -1);
  }
  pthread_rwlock_unlock(&c->gate);
}

/* ---- regions ----------------------------------------------------------------------------- */

static void pc_update_current_region(pc_collector *c) {
  atomic_store(&c->cur_region, pc_regions_current(&c->regions));
}

uint32_t pc_collector_region_push(pc_collector *c, const char *name, unsigned flags, const pc_region_marks *begin) {
  pc_col_lock(c);
  const uint32_t id = pc_regions_push(&c->regions, name, flags, begin);
  if (id && (flags & PC_RG_NVTX)) c->regions.v[c->regions.n - 1].nvtx_thread = pthread_self();
  pc_update_current_region(c);
  pc_col_unlock(c);
  return id;
}

void pc_collector_region_pop(pc_collector *c, uint32_t id, const pc_region_marks *end) {
  pc_col_lock(c);
  pc_regions_close(&c->regions, id, end);
  pc_update_current_region(c);
  pc_col_unlock(c);
}

void pc_region_view_free(pc_region_view *v) {
  free(v->name);
  free(v->parent_name);
  v->name = v->parent_name = NULL;
}

perfcheck_status pc_collector_region_view(pc_collector *c, uint32_t id, pc_region_view *out, pc_err *err) {
  memset(out, 0, sizeof *out);
  pc_col_lock(c);
  const pc_open_region *r = pc_regions_find(&c->regions, id);
  const pc_open_region *up = r && r->parent ? pc_regions_find(&c->regions, r->parent) : NULL;
  perfcheck_status st = PERFCHECK_ERROR_NO_REGION;
  if (r) {
    out->id = r->id;
    out->parent = up ? up->id : 0;
    out->depth = r->depth;
    out->flags = r->flags;
    out->nvtx_here = (r->flags & PC_RG_NVTX) && pthread_equal(r->nvtx_thread, pthread_self());
    out->has_end = r->has_end;
    out->begin = r->begin;
    out->end = r->end;
    out->keep_transfers_from = pc_regions_oldest_begin(&c->regions, id);
    out->name = pc_strdup(r->name);
    out->parent_name = up ? pc_strdup(up->name) : NULL;
    st = (!out->name || (up && !out->parent_name)) ? PERFCHECK_ERROR_OUT_OF_MEMORY : PERFCHECK_OK;
  }
  pc_col_unlock(c);
  if (st == PERFCHECK_ERROR_OUT_OF_MEMORY) pc_region_view_free(out);
  if (st == PERFCHECK_ERROR_NO_REGION) return pc_err_set(err, st, "region %u is not open", (unsigned)id);
  if (st != PERFCHECK_OK) return pc_err_set(err, st, "out of memory");
  return st;
}

uint32_t pc_collector_region_innermost(pc_collector *c) {
  pc_col_lock(c);
  const uint32_t id = pc_regions_innermost(&c->regions);
  pc_col_unlock(c);
  return id;
}

uint32_t pc_collector_region_next_to_end(pc_collector *c) {
  pc_col_lock(c);
  const uint32_t id = pc_regions_next_to_end(&c->regions);
  pc_col_unlock(c);
  return id;
}

void pc_collector_launch_counts(pc_collector *c, uint64_t *launches, uint64_t *failed) {
  pc_col_lock(c);
  *launches = c->launch_seq;
  *failed = c->failed;
  pc_col_unlock(c);
}

size_t pc_collector_contexts_since(pc_collector *c, uint64_t since, CUcontext *out, size_t cap) {
  size_t n = 0;
  pc_col_lock(c);
  for (size_t i = 0; i < c->tab.nctxs; i++) {
    const pc_ctxent *e = &c->tab.ctxs[i];
    if (!e->alive || e->last_launch <= since) continue;
    int dup = 0; /* one context may have several entries (new uid) */
    for (size_t j = 0; j < n && j < cap; j++) dup |= out[j] == e->ctx;
    if (dup) continue;
    if (n < cap) out[n] = e->ctx;
    n++;
  }
  pc_col_unlock(c);
  return n;
}

void pc_collector_context_dead(pc_collector *c, CUcontext ctx) {
  pc_col_lock(c);
  pc_sigtab_ctx_dead(&c->tab, ctx);
  pc_col_unlock(c);
}

size_t pc_collector_pending(pc_collector *c, uint32_t id) {
  pc_col_lock(c);
  const size_t n = pc_ltab_pending(&c->launches, id);
  pc_col_unlock(c);
  return n;
}

/* ---- the activity join and store ----------------------------------------------------------- */

int pc_collector_join_kernel_locked(pc_collector *c, const pc_kernel_record *rec, uint32_t *group, uint32_t *region) {
  size_t at = pc_ltab_find(&c->launches, rec->correlation_id);
  if (at == SIZE_MAX) return 0;
  const pc_launch e = c->launches.e[at];
  if (!pc_regions_find(&c->regions, e.region)) {
    pc_ltab_erase(&c->launches, at);
    return 0;
  }
  uint32_t sig, bits = 0;
  if (e.flags & PC_L_GRAPH) {
    bits |= PC_SNAP_GRAPH;
    /* One correlation id for all of the graph's kernels: keep the entry
     * until the region ends, and find each kernel's signature by name; the
     * entry names the graph signature, whose context is the kernels'. */
    if (!rec->name || e.a >= c->tab.nsigs) return 0;
    /* Every kernel node of a graph carries the graph's id in its record.
     * One with none under a graph launch's correlation id is a tool's kernel
     * launched inside that launch's callback: CUPTI's "WaitNs" under a user
     * range (H200, 2026-12-02: 5 records for 6 profiled launches, counted as
     * a fourth kernel of a three-kernel graph).  It is not the program's. */
    if (rec->graph_id == 0) {
      c->tool_kernels++;
      return 0;
    }
    pc_sig *gs = &c->tab.sigs[e.a];
    if (!gs->graph_id && rec->graph_id) gs->graph_id = rec->graph_id;
    const uint32_t ctx = gs->ctx;
    uint32_t name = pc_sigtab_intern(&c->tab, rec->name);
    if (name == PC_NONE) return 0;
    /* A collective in the graph: its later launches are not profiled (the
     * range would wait for peers a gated thread may launch). */
    if (pc_sigtab_name_is_communication(&c->tab, name)) c->tab.sigs[e.a].graph_comm = 1;
    sig = pc_sigtab_sig(&c->tab, name, ctx, rec->grid, rec->block, rec->dynamic_smem, PC_SIG_MAX);
    if (sig == PC_NONE) return 0;
    pc_sig *s = &c->tab.sigs[sig];
    s->seen_graph = 1;
    if (!s->f) s->f = c->tab.names[name].f_last;
    pc_select_enter_region(s, pc_regions_key(&c->regions, e.region));
    s->seen_run = e.region;
    if (!s->prof_count) s->np = PC_NP_GRAPH;
    if (s->seen_captured) bits |= PC_SNAP_CAPTURED;
    if (!s->graph_id && rec->graph_id) {
      s->graph_id = rec->graph_id;
      s->graph_node = rec->graph_node;
    }
  } else {
    sig = e.a;
    if (e.flags & PC_L_PROFILED) bits |= PC_SNAP_PROFILED;
    pc_ltab_erase(&c->launches, at);
    if (sig >= c->tab.nsigs) return 0;
  }
  pc_sig *s = &c->tab.sigs[sig];
  if (!s->rec_valid) {
    s->rec_valid = 1;
    s->rec_regs = rec->registers;
    s->rec_static = rec->static_smem;
    s->rec_local = rec->local_per_thread;
  }
  *group = (sig << PC_KSPAN_SHIFT) | bits;
  *region = e.region;
  return 1;
}

/* Room for n more elements of size sz in *v (n now: len, capacity *cap). */
static int pc_reserve(void **v, size_t *cap, size_t len, size_t n, size_t sz) {
  if (len + n <= *cap) return 0;
  size_t nc = *cap ? *cap : 4096;
  while (nc < len + n) {
    if (nc > SIZE_MAX / 2 / sz) return -1;
    nc *= 2;
  }
  void *p = realloc(*v, nc * sz);
  if (!p) return -1;
  *v = p;
  *cap = nc;
  return 0;
}

int pc_collector_store_kernel_locked(pc_collector *c, const pc_kspan *k) {
  if (pc_reserve((void **)&c->kernels, &c->capkernels, c->nkernels, 1, sizeof *c->kernels)) return -1;
  c->kernels[c->nkernels++] = *k;
  return 0;
}

int pc_collector_store_transfer_locked(pc_collector *c, int memsets, const pc_span *s) {
  if (c->regions.n == 0) return 0; /* no open region can use it */
  pc_span_array *a = memsets ? &c->memsets : &c->memcpys;
  if (pc_reserve((void **)&a->v, &a->cap, a->n, 1, sizeof *a->v)) return -1;
  a->v[a->n++] = *s;
  return 0;
}

/* ---- signatures ------------------------------------------------------------------------------ */

void pc_collector_sig_set_attr(pc_collector *c, uint32_t gid, pc_attr_state st, const pc_attributes *a,
                               const char *reason) {
  char *r = reason ? pc_strdup(reason) : NULL;
  pc_col_lock(c);
  if (gid < c->tab.nsigs) {
    pc_sig *s = &c->tab.sigs[gid];
    s->attr_state = (uint8_t)st;
    if (a) s->attr = *a;
    free(s->attr_reason);
    s->attr_reason = r;
    r = NULL;
  }
  pc_col_unlock(c);
  free(r);
}

void pc_collector_sig_set_name(pc_collector *c, uint32_t gid, const char *mangled) {
  if (!mangled) return;
  char *m = pc_strdup(mangled);
  pc_col_lock(c);
  if (gid < c->tab.nsigs) {
    pc_name *n = &c->tab.names[c->tab.sigs[gid].name];
    if (!n->mangled) {
      n->mangled = m;
      m = NULL;
    }
  }
  pc_col_unlock(c);
  free(m);
}

/* ---- profiled launches ------------------------------------------------------------------------ */

int pc_collector_prof_store(pc_collector *c, uint32_t corr, pc_rp_result_store *res) {
  int found = -1;
  pc_col_lock(c);
  for (size_t i = c->nprof; i-- > 0;)
    if (c->prof[i].corr == corr) {
      pc_prof_free(&c->prof[i]);
      c->prof[i].res = *res;
      c->prof[i].has_result = 1;
      memset(res, 0, sizeof *res);
      found = 0;
      break;
    }
  pc_col_unlock(c);
  return found;
}

int pc_collector_prof_store_cb(void *c, uint32_t corr, pc_rp_result_store *res) {
  return pc_collector_prof_store((pc_collector *)c, corr, res);
}

void pc_collector_host_cut(pc_collector *c, uint32_t region, uint64_t t0, uint64_t t1) {
  if (!c || !region || !t0 || t1 <= t0) return;
  pc_prof pr;
  memset(&pr, 0, sizeof pr);
  pr.region = region, pr.cut_only = 1, pr.enter_ts = t0, pr.exit_ts = t1;
  pc_col_lock(c);
  if (pc_table_grow((void **)&c->prof, &c->capprof, c->nprof, sizeof *c->prof) == 0) c->prof[c->nprof++] = pr;
  pc_col_unlock(c);
}

/* ---- a region's end ----------------------------------------------------------------------------- */

/* An array of n elements of size sz whose capacity suits pc_snapshot's
 * appends (a power of two). */
static void *pc_snap_array(size_t n, size_t sz) {
  size_t cap = 1;
  while (cap < n) cap *= 2;
  return n ? calloc(cap, sz) : NULL;
}

/* Copies the transfers overlapping [begin, end] into the snapshot. */
static int pc_take_transfers(const pc_span_array *a, uint64_t begin, uint64_t end, pc_span **out, size_t *n) {
  size_t k = 0;
  for (size_t i = 0; i < a->n; i++) k += a->v[i].end >= begin && a->v[i].start <= end;
  *n = 0;
  if (!k) return 0;
  pc_span *v = pc_snap_array(k, sizeof *v);
  if (!v) return -1;
  for (size_t i = 0; i < a->n; i++)
    if (a->v[i].end >= begin && a->v[i].start <= end) v[(*n)++] = a->v[i];
  *out = v;
  return 0;
}

/* Drops transfer spans that ended before t (no open region can use them). */
static void pc_prune_transfers(pc_collector *c, uint64_t t) {
  pc_span_array *arrs[2] = {&c->memcpys, &c->memsets};
  for (int k = 0; k < 2; k++) {
    pc_span_array *a = arrs[k];
    size_t w = 0;
    for (size_t i = 0; i < a->n; i++)
      if (a->v[i].end >= t) a->v[w++] = a->v[i];
    a->n = w;
  }
}

/* Adds signature gid to the snapshot (a copy of the table's entry) and its
 * context the first time; returns the snapshot index or UINT32_MAX. */
static uint32_t pc_take_sig(pc_collector *c, pc_snapshot *s, uint32_t gid, int direct, pc_sig_handle **hv, size_t *nh,
                            CUcontext **cv, uint32_t **cmap) {
  const pc_sig *t = &c->tab.sigs[gid];
  const pc_name *nm = &c->tab.names[t->name];
  pc_snap_sig *g = pc_snapshot_add_sig(s);
  if (!g) return UINT32_MAX;
  const uint32_t idx = (uint32_t)(s->nsigs - 1);
  pc_sig_handle *h = realloc(*hv, (*nh + 1) * sizeof *h);
  if (!h) return UINT32_MAX;
  *hv = h;
  h = &h[(*nh)++];
  memset(h, 0, sizeof *h);
  h->gid = gid;
  h->f = t->f;
  h->ctx_index = t->ctx;
  h->ctx = t->ctx < c->tab.nctxs ? (CUcontext)c->tab.ctxs[t->ctx].ctx : NULL;
  h->direct = direct;
  h->attr_state = (pc_attr_state)t->attr_state;
  /* The snapshot's context of this table context, added the first time. */
  if (t->ctx < c->tab.nctxs) {
    if ((*cmap)[t->ctx] == UINT32_MAX) {
      pc_snap_context *sc = pc_snapshot_add_context(s);
      CUcontext *grown = sc ? realloc(*cv, s->ncontexts * sizeof *grown) : NULL;
      if (!grown) return UINT32_MAX;
      *cv = grown;
      sc->device = -1;
      grown[s->ncontexts - 1] = h->ctx;
      (*cmap)[t->ctx] = (uint32_t)(s->ncontexts - 1);
    }
    g->context = (*cmap)[t->ctx];
  }
  g->mangled = nm->mangled ? pc_strdup(nm->mangled) : NULL;
  memcpy(g->grid, t->grid, sizeof g->grid);
  memcpy(g->block, t->block, sizeof g->block);
  for (int i = 0; i < 3; i++) g->cluster[i] = t->cluster[i] ? t->cluster[i] : 1;
  g->dynamic_smem = t->smem;
  g->not_profiled = (pc_not_profiled)t->np;
  g->rec_valid = t->rec_valid;
  g->rec_registers = t->rec_regs;
  g->rec_static_smem = t->rec_static;
  g->rec_local = t->rec_local;
  g->graph_id = t->graph_id;
  g->graph_node = t->is_graph ? 0 : t->graph_node;
  g->is_graph = t->is_graph;
  g->graph_exec = t->graph_exec;
  /* Attributes: known ones now; the rest the caller asks outside the lock. */
  if (t->attr_state == PC_ATTR_OK) {
    g->attr_from = PC_SNAP_ATTR_DRIVER;
    g->attr = t->attr;
  } else if (t->attr_state == PC_ATTR_UNAVAILABLE && direct) {
    g->attr_from = PC_SNAP_ATTR_NONE;
    g->attr_note = t->attr_reason ? pc_strdup(t->attr_reason) : NULL;
  }
  if ((nm->mangled && !g->mangled) || (t->attr_reason && direct && t->attr_state == PC_ATTR_UNAVAILABLE && !g->attr_note))
    return UINT32_MAX;
  return idx;
}

perfcheck_status pc_collector_take_region(pc_collector *c, const pc_region_view *g, uint64_t end_ts,
                                          pc_snapshot *s, pc_taken *tk, pc_err *err) {
  memset(tk, 0, sizeof *tk);
  int oom = 0;
  pc_col_lock(c);
  /* 1. The region leaves the stack: no record can arrive for it after this. */
  pc_regions_retire(&c->regions, g->id);
  pc_update_current_region(c);
  if (c->graph_note[0] && !c->graph_note_given) {
    pc_snapshot_add_note(s, "%s", c->graph_note);
    c->graph_note_given = 1;
  }
  /* Its graph launches (their entries name the graph signature) before the
   * purge: a graph entry's kernels are the rows that carry their ids. */
  size_t ngl = 0;
  for (size_t i = 0; i < c->launches.cap; i++) {
    const pc_launch *e = &c->launches.e[i];
    ngl += (e->flags & PC_L_USED) && (e->flags & PC_L_GRAPH) && e->region == g->id && e->a < c->tab.nsigs;
  }
  pc_launch *gl = ngl ? malloc(ngl * sizeof *gl) : NULL;
  if (ngl && !gl) oom = 1;
  ngl = 0;
  for (size_t i = 0; gl && i < c->launches.cap; i++) {
    const pc_launch *e = &c->launches.e[i];
    if ((e->flags & PC_L_USED) && (e->flags & PC_L_GRAPH) && e->region == g->id && e->a < c->tab.nsigs)
      gl[ngl++] = *e;
  }
  s->missing_records = pc_ltab_purge(&c->launches, g->id);
  if (c->rp_dropped) {
    pc_snapshot_add_note(s, "counters of region \"%s\": CUPTI dropped %llu ranges", g->name,
                         (unsigned long long)c->rp_dropped);
    c->rp_dropped = 0;
  }

  /* 2. Its kernel records, partitioned to the end of the store. */
  size_t n = c->nkernels, k = 0;
  pc_kspan *v = c->kernels;
  for (size_t i = n; i-- > 0;)
    if (v[i].region == g->id) {
      const pc_kspan t = v[i];
      v[i] = v[n - 1 - k];
      v[n - 1 - k] = t;
      k++;
    }
  pc_kspan *mine = v + (n - k);

  /* 3. Its profiled launches (its own and those handed up by nested regions). */
  size_t np = 0;
  for (size_t i = 0; i < c->nprof; i++) np += c->prof[i].region == g->id;

  /* 4. The signatures they name, in the table's order (the report's order
   * of kernel entries): 1 named, 2 launched directly. */
  uint32_t maxid = 0;
  for (size_t i = 0; i < k; i++)
    if (PC_KSPAN_SIG(mine[i].group) > maxid) maxid = PC_KSPAN_SIG(mine[i].group);
  for (size_t i = 0; i < c->nprof; i++)
    if (c->prof[i].region == g->id && !c->prof[i].cut_only && c->prof[i].sig > maxid) maxid = c->prof[i].sig;
  for (size_t i = 0; i < ngl; i++)
    if (gl[i].a > maxid) maxid = gl[i].a;
  const int any = k || np || ngl;
  unsigned char *use = any ? calloc((size_t)maxid + 1, 1) : NULL;
  uint32_t *map = any ? malloc(((size_t)maxid + 1) * sizeof *map) : NULL;
  uint32_t *cmap = c->tab.nctxs ? malloc(c->tab.nctxs * sizeof *cmap) : NULL;
  if (any && (!use || !map || (c->tab.nctxs && !cmap))) oom = 1;
  for (size_t i = 0; cmap && i < c->tab.nctxs; i++) cmap[i] = UINT32_MAX;
  if (!oom) {
    for (size_t i = 0; i < k; i++)
      use[PC_KSPAN_SIG(mine[i].group)] |= (PC_KSPAN_FLAGS(mine[i].group) & PC_SNAP_INHERITED) ? 1 : 3;
    for (size_t i = 0; i < c->nprof; i++)
      if (c->prof[i].region == g->id && !c->prof[i].cut_only) use[c->prof[i].sig] |= 1;
    for (size_t i = 0; i < ngl; i++) use[gl[i].a] |= 1; /* a graph: no attributes to read */
    for (uint32_t gid = 0; any && gid <= maxid; gid++) {
      map[gid] = UINT32_MAX;
      if (!use[gid] || gid >= c->tab.nsigs) continue;
      map[gid] = pc_take_sig(c, s, gid, use[gid] & 2, &tk->sigs, &tk->nsigs, &tk->ctxs, &cmap);
      if (map[gid] == UINT32_MAX) {
        oom = 1;
        break;
      }
    }
  }

  /* 5. The kernel records become snapshot rows, field by field. */
  if (!oom && k) {
    s->launches = pc_snap_array(k, sizeof *s->launches);
    if (!s->launches) {
      oom = 1;
    } else {
      for (size_t i = 0; i < k; i++) {
        pc_snap_launch *l = &s->launches[i];
        l->start = mine[i].start;
        l->end = mine[i].end;
        l->sig = map[PC_KSPAN_SIG(mine[i].group)];
        l->correlation_id = mine[i].corr;
        l->stream = mine[i].stream;
        l->flags = PC_KSPAN_FLAGS(mine[i].group);
      }
      s->nlaunches = k;
    }
  }
  /* 5b. Its graph launches, each naming its graph signature. */
  if (!oom && ngl) {
    s->graph_launches = pc_snap_array(ngl, sizeof *s->graph_launches);
    if (!s->graph_launches) {
      oom = 1;
    } else {
      for (size_t i = 0; i < ngl; i++) {
        s->graph_launches[i].correlation_id = gl[i].corr;
        s->graph_launches[i].sig = map[gl[i].a];
      }
      s->ngraph_launches = ngl;
    }
  }
  /* 6. The profiled launches, with their counter values. */
  if (!oom && np) {
    s->profiled = pc_snap_array(np, sizeof *s->profiled);
    if (!s->profiled) oom = 1;
  }
  size_t kp = 0, keep = 0;
  for (size_t i = 0; i < c->nprof; i++) {
    pc_prof *p = &c->prof[i];
    if (p->region != g->id) {
      c->prof[keep++] = *p;
      continue;
    }
    if (!oom && s->profiled) {
      pc_snap_profiled *d = &s->profiled[kp++];
      d->correlation_id = p->corr;
      /* A host cut is listed as an inherited launch of no signature: its
       * interval only (pc_region_build cuts it). */
      d->sig = p->cut_only ? UINT32_MAX : map[p->sig];
      d->flags = p->inherited || p->cut_only ? PC_SNAP_PROF_INHERITED : 0;
      d->enter_ts = p->enter_ts;
      d->exit_ts = p->exit_ts;
      d->group = -1;
      for (int m = 0; m < PC_M_COUNT; m++) d->values[m] = PC_NULL;
      if (p->has_result) {
        d->flags |= PC_SNAP_PROF_RESULT | (p->res.cold ? PC_SNAP_PROF_COLD : 0u);
        d->passes = p->res.passes;
        d->group = p->res.group;
        d->groups = p->res.ngroups;
        if (p->res.skipped) d->flags |= PC_SNAP_PROF_SKIPPED;
        memcpy(d->values, p->res.values, sizeof d->values);
        if (p->res.extra && s->nextra && (d->extra = malloc(s->nextra * sizeof *d->extra)))
          memcpy(d->extra, p->res.extra, s->nextra * sizeof *d->extra);
        if (p->res.note) pc_snapshot_add_note(s, "counters of a launch in region \"%s\": %s", g->name, p->res.note);
      }
    }
    if (g->parent) { /* the parent's clock must lose this launch's cost too */
      pc_prof_free(p);
      p->region = g->parent;
      p->inherited = 1;
      c->prof[keep++] = *p;
    } else {
      pc_prof_free(p);
    }
  }
  c->nprof = keep;
  s->nprofiled = kp;

  /* 7. The transfers around it; those older than the outermost open region
   * can no longer count. */
  if (!oom && (pc_take_transfers(&c->memcpys, g->begin.ts, end_ts, &s->memcpys, &s->nmemcpys) ||
               pc_take_transfers(&c->memsets, g->begin.ts, end_ts, &s->memsets, &s->nmemsets)))
    pc_snapshot_add_note(s, "region \"%s\": out of memory, transfer timings lost", g->name);
  pc_prune_transfers(c, g->keep_transfers_from);

  /* 8. The kernel records leave the store; the parent's busy time covers its
   * children's kernels, so they stay, re-tagged, when there is one. */
  if (g->parent) {
    for (size_t i = 0; i < k; i++) {
      mine[i].region = g->parent;
      mine[i].group |= PC_SNAP_INHERITED;
    }
  } else {
    c->nkernels -= k;
  }
  pc_col_unlock(c);
  free(gl);
  free(use);
  free(map);
  free(cmap);
  if (oom) {
    s->spans_lost = 1;
    return pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "out of memory ending region \"%s\"", g->name);
  }
  return PERFCHECK_OK;
}

void pc_taken_free(pc_taken *tk) {
  free(tk->sigs);
  free(tk->ctxs);
  memset(tk, 0, sizeof *tk);
}

void pc_collector_drop_region(pc_collector *c, uint32_t id) {
  pc_col_lock(c);
  pc_regions_close(&c->regions, id, NULL);
  pc_regions_retire(&c->regions, id);
  pc_update_current_region(c);
  (void)pc_ltab_purge(&c->launches, id);
  size_t keep = 0;
  for (size_t i = 0; i < c->nprof; i++) {
    if (c->prof[i].region == id)
      pc_prof_free(&c->prof[i]);
    else
      c->prof[keep++] = c->prof[i];
  }
  c->nprof = keep;
  keep = 0;
  for (size_t i = 0; i < c->nkernels; i++)
    if (c->kernels[i].region != id) c->kernels[keep++] = c->kernels[i];
  c->nkernels = keep;
  pc_col_unlock(c);
}
