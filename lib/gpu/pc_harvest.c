/*
 * pc_harvest.c: a region's end on the GPU side (pc_gpu_region_harvest,
 * pc_gpu.h): wait for its work, gather what it collected, and copy it all
 * into one owned snapshot (pc_snapshot.h) for lib/core to build the report
 * from.
 *
 *   1. synchronize the contexts that launched in it (pushing each): a sticky
 *      kernel fault shows here;
 *   2. flush activity: cuptiActivityFlushAll(0) returns complete buffers
 *      only; after the sync every record of the region is complete, so a
 *      forced flush is the last resort (it may cut records of other threads'
 *      running kernels);
 *   3. collect the counter results (pc_rp_collect returns every region's:
 *      each is kept with its launch in the capture until that region ends);
 *   4. take the region's kernel records out of the store (retiring it in the
 *      same locked section, so no late record is left behind), copy the
 *      transfers around it, its profiled launches, and its signatures with
 *      their names and attributes (read from the driver now, outside any
 *      callback, once per signature), contexts and devices;
 *   5. hand its kernel records and profiled launches to the parent region
 *      (for the parent's busy time and its profiling cut).
 * Nothing here decides a verdict or a number of the report.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pc_activity.h"
#include "pc_call.h"
#include "pc_capture.h"
#include "pc_cuda.h"
#include "pc_cupti.h"
#include "pc_funcinfo.h"
#include "pc_gpu.h"
#include "pc_gpu_internal.h"
#include "pc_rangeprof.h"

_Static_assert(sizeof(pc_kspan) == sizeof(pc_snap_launch), "kernel records become snapshot rows in place");

/* The region being ended, from its entry on the region stack. */
typedef struct pc_gpu_region {
  uint32_t id;
  uint32_t parent_id;           /* the region its kernels go to for busy time; 0 none */
  const char *name, *parent;
  int depth;
  int program;                  /* the injection library's whole-program region */
  pc_region_marks begin;
  const pc_region_marks *end;   /* recorded in a callback (an NVTX pop); NULL: now */
  uint64_t keep_transfers_from; /* transfers ending before this are no use to any open region */
} pc_gpu_region;

/* ---- 1. synchronize ---------------------------------------------------------------------- */

/* Synchronizes every live context that launched since `since`.  Returns
 * PERFCHECK_OK or PERFCHECK_ERROR_KERNEL_FAULT (fault says which call
 * failed); *first_ordinal gets the device of the first context that
 * synchronized (-1 none). */
static perfcheck_status pc_sync_contexts(const pc_gpu_region *g, char *fault, size_t len, int *first_ordinal) {
  perfcheck_status st = PERFCHECK_OK;
  *first_ordinal = -1;
  if (!pc_cu.cuCtxPushCurrent) return st; /* no driver loaded (a CPU test of this file): nothing ran */
  CUcontext small[16], *ctxs = small;
  size_t nctx = pc_capture_contexts_since(g->begin.launches, small, 16);
  if (nctx > 16) {
    ctxs = malloc(nctx * sizeof *ctxs);
    if (ctxs)
      nctx = pc_capture_contexts_since(g->begin.launches, ctxs, nctx);
    else
      ctxs = small, nctx = 16;
  }
  for (size_t i = 0; i < nctx; i++) {
    if (PC_CU(NULL, cuCtxPushCurrent, ctxs[i]) != CUDA_SUCCESS) {
      pc_capture_context_dead(ctxs[i]);
      continue;
    }
    pc_err e;
    CUresult res = pc_ctx_synchronize(ctxs[i], &e);
    CUcontext popped;
    (void)PC_CU(NULL, cuCtxPopCurrent, &popped);
    if (res == CUDA_ERROR_INVALID_CONTEXT || res == CUDA_ERROR_CONTEXT_IS_DESTROYED || res == CUDA_ERROR_DEINITIALIZED) {
      pc_capture_context_dead(ctxs[i]);
    } else if (res != CUDA_SUCCESS) {
      if (st == PERFCHECK_OK) snprintf(fault, len, "a kernel faulted in region \"%s\": %s", g->name, e.msg);
      st = PERFCHECK_ERROR_KERNEL_FAULT;
    } else if (*first_ordinal < 0) {
      *first_ordinal = pc_funcinfo_ctx_ordinal(ctxs[i]);
    }
  }
  if (ctxs != small) free(ctxs);
  return st;
}

/* ---- 3. counters ------------------------------------------------------------------------- */

typedef struct pc_collect {
  size_t nextra;
  size_t unmatched;
  int oom;
} pc_collect;

static void pc_on_result(void *user, const pc_rp_result *res) {
  pc_collect *c = user;
  const int r = pc_capture_prof_store(res->correlation_id, res->passes, res->values, res->extra,
                                      res->extra ? res->nextra : 0);
  if (r == -1) c->unmatched++;
  if (r == -2) c->oom = 1;
}

static int pc_copy_strings(char ***dst, char *const *src, size_t n) {
  *dst = NULL;
  if (!n) return 0;
  if (!(*dst = calloc(n, sizeof **dst))) return -1;
  for (size_t i = 0; i < n; i++)
    if (src && src[i] && !((*dst)[i] = pc_strdup(src[i]))) return -1;
  return 0;
}

/* Collects the results of every profiled launch evaluated so far into the
 * capture, and copies the counter set's facts into the snapshot. */
static void pc_counters(const pc_gpu_region *g, pc_snapshot *s, pc_rp *rp) {
  char note[900];
  s->counters = pc_gpu_counters_note(note, sizeof note);
  if (note[0]) s->counters_note = pc_strdup(note);
  if (!rp) return;
  const pc_rp_plan *plan = pc_rp_get_plan(rp);
  pc_collect col = {plan ? plan->nextra : 0, 0, 0};
  uint64_t dropped = 0;
  pc_err e;
  perfcheck_status cst = pc_rp_collect(rp, pc_on_result, &col, &dropped, &e);
  if (cst != PERFCHECK_OK)
    pc_snapshot_add_note(s, "counters of region \"%s\": %s", g->name, e.msg[0] ? e.msg : perfcheck_strerror(cst));
  if (dropped)
    pc_snapshot_add_note(s, "counters of region \"%s\": CUPTI dropped %llu ranges", g->name,
                         (unsigned long long)dropped);
  if (col.unmatched)
    pc_snapshot_add_note(s, "counters of region \"%s\": %zu results matched no launch", g->name, col.unmatched);
  if (col.oom) pc_snapshot_add_note(s, "out of memory: some counter results were dropped");
  s->passes = pc_rp_passes(rp);
  if (!plan) return;
  snprintf(s->metric_set, sizeof s->metric_set, "%s", plan->set_name);
  memcpy(s->via_substitute, plan->use_substitute, sizeof s->via_substitute);
  if (pc_copy_strings(&s->extra_names, plan->extra, plan->nextra) == 0) s->nextra = plan->nextra;
  if (pc_copy_strings(&s->rejected, plan->rejected, plan->nrejected) == 0 &&
      pc_copy_strings(&s->rejected_reason, plan->rejected_reason, plan->nrejected) == 0)
    s->nrejected = plan->nrejected;
}

/* ---- 4. signatures, contexts, devices ----------------------------------------------------- */

/* The snapshot's device entry of `ordinal`, added (with the driver's facts)
 * the first time. */
static void pc_add_device(pc_snapshot *s, int ordinal) {
  if (ordinal < 0 || pc_snapshot_device(s, ordinal)) return;
  pc_device facts;
  if (pc_funcinfo_device(ordinal, &facts, NULL) != PERFCHECK_OK) return;
  pc_snap_device *d = pc_snapshot_add_device(s);
  if (!d) return;
  d->ordinal = ordinal;
  d->facts = facts;
  if (pc_funcinfo_pci_bus_id(ordinal, d->pci_bus_id, sizeof d->pci_bus_id)) d->pci_bus_id[0] = '\0';
}

/* The snapshot's context index of a capture context entry, added the first time. */
typedef struct pc_ctxmap {
  uint32_t capture_index;
  uint32_t local;
} pc_ctxmap;

static uint32_t pc_add_context(pc_snapshot *s, pc_ctxmap **map, size_t *nmap, const pc_sig_info *si) {
  for (size_t i = 0; i < *nmap; i++)
    if ((*map)[i].capture_index == si->ctx_index) return (*map)[i].local;
  pc_ctxmap *m = realloc(*map, (*nmap + 1) * sizeof *m);
  pc_snap_context *c = m ? pc_snapshot_add_context(s) : NULL;
  if (m) *map = m;
  if (!c) return 0;
  c->device = si->ctx ? pc_funcinfo_ctx_ordinal(si->ctx) : -1;
  if (c->device >= 0 && pc_funcinfo_pci_bus_id(c->device, c->pci_bus_id, sizeof c->pci_bus_id)) c->pci_bus_id[0] = '\0';
  pc_add_device(s, c->device);
  (*map)[*nmap] = (pc_ctxmap){si->ctx_index, (uint32_t)(s->ncontexts - 1)};
  (*nmap)++;
  return (uint32_t)(s->ncontexts - 1);
}

/* The attributes of a signature launched directly in the region: asked from
 * the driver once (cached in the capture), the launch's context pushed. */
static void pc_sig_attributes(uint32_t gid, pc_sig_info *si, pc_snap_sig *g, const pc_device *dev) {
  if (si->attr_state == PC_ATTR_OK) {
    g->attr_from = PC_SNAP_ATTR_DRIVER;
    g->attr = si->attr;
    return;
  }
  if (si->attr_state == PC_ATTR_UNAVAILABLE) {
    g->attr_from = PC_SNAP_ATTR_NONE;
    g->attr_note = si->attr_reason ? pc_strdup(si->attr_reason) : NULL;
    return;
  }
  pc_attributes a;
  pc_err why;
  pc_err_clear(&why);
  int is_kernel = 0;
  perfcheck_status st = PERFCHECK_ERROR_NOT_FOUND;
  if (si->f && !pc_gpu_exiting())
    st = pc_funcinfo_attributes(si->ctx, si->f, 1, si->grid, si->block, si->dynamic_smem, dev, &a, &is_kernel, &why);
  else if (si->f) /* pc_gpu.h, pc_gpu_mark_exit: the handle may dangle */
    pc_err_set(&why, PERFCHECK_ERROR_NOT_FOUND,
               "function attributes not asked: the region ended at process exit, when the program's CUDA "
               "libraries may be unloaded; registers and shared memory from the kernel's activity record");
  g->attr_new = 1;
  if (st == PERFCHECK_OK) {
    /* why: the occupancy call alone failed (the model answered). */
    g->attr_from = PC_SNAP_ATTR_DRIVER;
    g->attr = a;
    g->attr_note = why.msg[0] ? pc_strdup(why.msg) : NULL;
    pc_capture_sig_set_attr(gid, PC_ATTR_OK, &a, NULL);
  } else if (si->rec_valid) {
    /* A kernel seen only through a graph (or whose handle went away): its
     * activity record's registers and shared memory, occupancy from the
     * model (lib/core computes it the same way from the snapshot). */
    g->attr_from = PC_SNAP_ATTR_RECORD;
    g->attr_note = pc_strdup(si->f ? why.msg : "no function handle: launched only by a CUDA graph");
    pc_attributes_compute(dev, (int)si->rec_registers, (int)si->rec_static_smem, (int)si->rec_local, -1, -1,
                          si->grid, si->block, si->dynamic_smem, &a);
    pc_capture_sig_set_attr(gid, PC_ATTR_OK, &a, NULL);
  } else {
    g->attr_from = PC_SNAP_ATTR_NONE;
    g->attr_note = pc_strdup(si->f ? why.msg : "no function handle");
    pc_capture_sig_set_attr(gid, PC_ATTR_UNAVAILABLE, NULL, g->attr_note);
  }
}

/* Adds the signature with capture id gid.  `direct`: launched in the region
 * itself (its attributes are then read if they are not yet). */
static int pc_add_sig(pc_snapshot *s, uint32_t gid, int direct, pc_ctxmap **cmap, size_t *ncmap, int first_ordinal) {
  pc_sig_info si;
  if (pc_capture_sig_get(gid, &si)) return -1;
  if (!si.mangled && si.f) {
    char nm[1024];
    if (pc_funcinfo_name(si.f, nm, sizeof nm) == 0) {
      pc_capture_sig_set_name(gid, nm);
      si.mangled = pc_strdup(nm);
    }
  }
  pc_snap_sig *g = pc_snapshot_add_sig(s);
  if (!g) {
    pc_sig_info_free(&si);
    return -1;
  }
  g->mangled = si.mangled;
  si.mangled = NULL;
  g->context = pc_add_context(s, cmap, ncmap, &si);
  memcpy(g->grid, si.grid, sizeof g->grid);
  memcpy(g->block, si.block, sizeof g->block);
  memcpy(g->cluster, si.cluster, sizeof g->cluster);
  g->dynamic_smem = si.dynamic_smem;
  g->not_profiled = si.not_profiled;
  g->rec_valid = si.rec_valid;
  g->rec_registers = si.rec_registers;
  g->rec_static_smem = si.rec_static_smem;
  g->rec_local = si.rec_local;
  if (direct) {
    const int ord = g->context < s->ncontexts ? s->contexts[g->context].device : -1;
    const pc_device *dev = pc_snapshot_device(s, ord >= 0 ? ord : first_ordinal >= 0 ? first_ordinal : 0);
    pc_device none;
    if (!dev) {
      pc_device_init(&none);
      dev = &none;
    }
    pc_sig_attributes(gid, &si, g, dev);
  } else if (si.attr_state == PC_ATTR_OK) {
    g->attr_from = PC_SNAP_ATTR_DRIVER;
    g->attr = si.attr;
  }
  pc_sig_info_free(&si);
  return 0;
}

/* The signatures the region's records and profiled launches name, in the
 * capture's order (the report's order of kernel entries); map[gid] becomes
 * the snapshot's index.  Returns 0 or -1 on out of memory. */
static int pc_add_sigs(pc_snapshot *s, const pc_kspan *ks, size_t n, pc_snap_profiled *pv, size_t npv,
                       int first_ordinal) {
  uint32_t maxid = 0;
  for (size_t i = 0; i < n; i++)
    if (PC_KSPAN_SIG(ks[i].group) > maxid) maxid = PC_KSPAN_SIG(ks[i].group);
  for (size_t i = 0; i < npv; i++)
    if (pv[i].sig > maxid) maxid = pv[i].sig;
  if (!n && !npv) return 0;
  unsigned char *use = calloc((size_t)maxid + 1, 1); /* 1: named, 2: launched directly */
  uint32_t *map = malloc(((size_t)maxid + 1) * sizeof *map);
  pc_ctxmap *cmap = NULL;
  size_t ncmap = 0;
  int rc = (use && map) ? 0 : -1;
  for (size_t i = 0; !rc && i < n; i++)
    use[PC_KSPAN_SIG(ks[i].group)] |= (PC_KSPAN_FLAGS(ks[i].group) & PC_SNAP_INHERITED) ? 1 : 3;
  for (size_t i = 0; !rc && i < npv; i++) use[pv[i].sig] |= 1;
  for (uint32_t gid = 0; !rc && gid <= maxid; gid++) {
    map[gid] = UINT32_MAX;
    if (!use[gid]) continue;
    if (pc_add_sig(s, gid, use[gid] & 2, &cmap, &ncmap, first_ordinal)) {
      rc = -1;
      break;
    }
    map[gid] = (uint32_t)(s->nsigs - 1);
  }
  if (!rc) {
    /* The records become the snapshot's rows, in place. */
    for (size_t i = 0; i < n; i++) {
      const pc_kspan k = ks[i];
      const pc_snap_launch l = {k.start, k.end, map[PC_KSPAN_SIG(k.group)], k.corr, k.stream, PC_KSPAN_FLAGS(k.group)};
      memcpy((void *)&ks[i], &l, sizeof l);
    }
    for (size_t i = 0; i < npv; i++) pv[i].sig = map[pv[i].sig];
  }
  free(use);
  free(map);
  free(cmap);
  return rc;
}

/* ---- the region ---------------------------------------------------------------------------- */

static void pc_region_facts(const pc_gpu_region *g, pc_snapshot *s, uint64_t end_ts) {
  s->name = pc_strdup(g->name);
  s->parent = g->parent ? pc_strdup(g->parent) : NULL;
  s->depth = g->depth;
  s->program = g->program;
  s->begin_ts = g->begin.ts;
  s->end_ts = end_ts;
  pc_region_marks now;
  if (!g->end) pc_gpu_marks(&now);
  const pc_region_marks *e = g->end ? g->end : &now;
  s->launch_calls = e->launches - g->begin.launches;
  s->failed_calls = e->failed - g->begin.failed;
  s->dropped_records = e->dropped - g->begin.dropped;
  s->zero_ts_records = e->zero_ts - g->begin.zero_ts;
  pc_gpu_tool(s->cupti_path, sizeof s->cupti_path, &s->cupti_version, &s->cupti_preloaded);
  snprintf(s->demangler, sizeof s->demangler, "%s", pc_demangler());
  snprintf(s->tool_version, sizeof s->tool_version, "%s", PERFCHECK_VERSION_STRING);
}

/* Takes the region's records and transfers (step 4), retiring it. */
static size_t pc_take(const pc_gpu_region *g, pc_snapshot *s, uint64_t end_ts, pc_kspan **ks, int *lost) {
  int lost_t = 0;
  pc_gpu_lock();
  pc_capture_region_retire_locked(g->id); /* no record can arrive for it after this */
  const size_t n = pc_activity_take_locked(g->id, ks, lost);
  s->nmemcpys = pc_activity_transfers_locked(0, g->begin.ts, end_ts, &s->memcpys, &lost_t);
  s->nmemsets = pc_activity_transfers_locked(1, g->begin.ts, end_ts, &s->memsets, &lost_t);
  /* Transfers older than the outermost open region can no longer count. */
  pc_activity_prune_transfers_locked(g->keep_transfers_from);
  pc_gpu_unlock();
  if (lost_t) pc_snapshot_add_note(s, "region \"%s\": out of memory, transfer timings lost", g->name);
  return n;
}

/* Step 5: the parent region's busy time covers its children's kernels. */
static void pc_hand_to_parent(const pc_gpu_region *g, pc_snapshot *s, const pc_kspan *ks, size_t n) {
  if (!g->parent_id || !n) return;
  pc_kspan *up = malloc(n * sizeof *up);
  int lost = !up;
  if (up) {
    for (size_t i = 0; i < n; i++) {
      up[i] = ks[i];
      up[i].region = g->parent_id;
      up[i].group |= PC_SNAP_INHERITED;
    }
    pc_gpu_lock();
    lost = pc_activity_give_locked(up, n) != 0;
    pc_gpu_unlock();
    free(up);
  }
  if (lost) pc_snapshot_add_note(s, "out of memory: region \"%s\"'s kernels are missing from its parent", g->name);
}

static perfcheck_status pc_harvest(const pc_gpu_region *g, pc_snapshot **out, pc_err *err) {
  pc_snapshot *s = pc_snapshot_new();
  if (!s) {
    pc_gpu_region_drop(g->id);
    return pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "perfcheck_session_end: out of memory");
  }
  /* New launches go to the parent now; this region's records are still
   * accepted until pc_take retires it. */
  pc_capture_region_pop(g->id, NULL);

  char fault[900] = "";
  int first_ordinal = -1;
  const perfcheck_status st = pc_sync_contexts(g, fault, sizeof fault, &first_ordinal);
  const uint64_t end_ts = g->end ? g->end->ts : pc_gpu_timestamp();

  pc_activity_flush(st != PERFCHECK_OK);
  if (pc_capture_pending(g->id)) pc_activity_flush(0);
  if (pc_capture_pending(g->id)) pc_activity_flush(1);
  s->missing_records = pc_capture_purge(g->id);

  pc_counters(g, s, pc_gpu_rp());

  pc_kspan *ks = NULL;
  int lost = 0, oom = 0;
  const size_t n = pc_take(g, s, end_ts, &ks, &lost);
  pc_hand_to_parent(g, s, ks, n);
  pc_snap_profiled *pv = NULL;
  const size_t npv = pc_capture_prof_take(g->id, g->parent_id, s->nextra, &pv, &oom);
  if (oom) pc_snapshot_add_note(s, "out of memory: some counter results were dropped");

  pc_region_facts(g, s, end_ts);
  s->spans_lost = lost;
  s->first_device = first_ordinal;
  pc_add_device(s, first_ordinal);
  if (st != PERFCHECK_OK) s->fault = pc_strdup(fault);
  if (!s->name || pc_add_sigs(s, ks, n, pv, npv, first_ordinal)) {
    free(ks);
    for (size_t i = 0; i < npv; i++) free(pv[i].extra);
    free(pv);
    pc_snapshot_free(s);
    return pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "perfcheck_session_end: out of memory");
  }
  s->launches = (pc_snap_launch *)(void *)ks;
  s->nlaunches = n;
  s->profiled = pv;
  s->nprofiled = npv;
  *out = s;
  if (st != PERFCHECK_OK) pc_err_set(err, st, "%s", fault);
  return st;
}

perfcheck_status pc_gpu_region_harvest(uint32_t id, pc_snapshot **out, pc_err *err) {
  *out = NULL;
  pc_err_clear(err);
  pc_region_view v;
  const int rc = pc_capture_region_view(id, &v);
  if (rc == -1) return pc_err_set(err, PERFCHECK_ERROR_NO_REGION, "region %u is not open", (unsigned)id);
  if (rc) {
    pc_gpu_region_drop(id);
    return pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "perfcheck_session_end: out of memory");
  }
  const pc_gpu_region g = {v.id,       v.parent,  v.name, v.parent_name, v.depth, (v.flags & PC_RG_PROGRAM) != 0,
                           v.begin,    v.has_end ? &v.end : NULL,        v.keep_transfers_from};
  const perfcheck_status st = pc_harvest(&g, out, err);
  pc_region_view_free(&v);
  return st;
}

void pc_gpu_region_drop(uint32_t id) {
  pc_capture_region_pop(id, NULL);
  pc_capture_purge(id);
  pc_snap_profiled *pv = NULL;
  int oom = 0;
  const size_t npv = pc_capture_prof_take(id, 0, 0, &pv, &oom);
  for (size_t i = 0; i < npv; i++) free(pv[i].extra);
  free(pv);
  pc_kspan *ks = NULL;
  int lost = 0;
  pc_gpu_lock();
  pc_capture_region_retire_locked(id);
  pc_activity_take_locked(id, &ks, &lost);
  pc_gpu_unlock();
  free(ks);
}
