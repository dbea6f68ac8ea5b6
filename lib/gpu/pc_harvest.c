/*
 * pc_harvest.c: a region's end on the GPU side (pc_gpu_region_harvest,
 * pc_gpu.h): wait for its work, then hand over everything it collected as
 * one owned snapshot (pc_snapshot.h) for lib/core to build the report from.
 *
 *   1. synchronize the contexts that launched in it (pushing each): a sticky
 *      kernel fault shows here;
 *   2. flush activity: cuptiActivityFlushAll(0) returns complete buffers
 *      only; after the sync every record of the region is complete, so a
 *      forced flush is the last resort (it may cut records of other threads'
 *      running kernels);
 *   3. take the region from the collector: one locked section that copies
 *      its kernel records, transfers, profiled launches (with their counter
 *      values, stored there by the counter layer's EXIT) and signatures into
 *      the snapshot, field by field, and hands what the parent needs to the
 *      parent (pc_collector_take_region);
 *   4. outside the lock, what needs the driver: each context's device and
 *      PCI bus id, the devices' facts, and the attributes of signatures
 *      launched directly whose attributes are not known yet (read once per
 *      signature and cached in the collector).
 * Nothing here decides a verdict or a number of the report.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pc_activity.h"
#include "pc_call.h"
#include "pc_collector.h"
#include "pc_cuda.h"
#include "pc_cupti.h"
#include "pc_funcinfo.h"
#include "pc_gpu.h"
#include "pc_gpu_internal.h"
#include "pc_rangeprof.h"
#include "check/pc_check.h"
#include "base/pc_util.h"

/* ---- 1. synchronize ---------------------------------------------------------------------- */

/* Synchronizes every live context that launched since the region began.
 * Returns PERFCHECK_OK or PERFCHECK_ERROR_KERNEL_FAULT (*err says which
 * call failed); *first_ordinal gets the device of the first context that
 * synchronized (-1 none). */
static perfcheck_status pc_sync_contexts(pc_collector *c, const pc_region_view *g, int *first_ordinal, pc_err *err) {
  perfcheck_status st = PERFCHECK_OK;
  *first_ordinal = -1;
  if (!pc_cu.cuCtxPushCurrent) return st; /* no driver loaded (a CPU test of this file): nothing ran */
  CUcontext small[16], *ctxs = small;
  size_t nctx = pc_collector_contexts_since(c, g->begin.launches, small, 16);
  if (nctx > 16) {
    ctxs = malloc(nctx * sizeof *ctxs);
    if (ctxs)
      nctx = pc_collector_contexts_since(c, g->begin.launches, ctxs, nctx);
    else
      ctxs = small, nctx = 16;
  }
  for (size_t i = 0; i < nctx; i++) {
    if (PC_CU(NULL, cuCtxPushCurrent, ctxs[i]) != CUDA_SUCCESS) {
      pc_collector_context_dead(c, ctxs[i]);
      continue;
    }
    pc_err e;
    CUresult res = pc_ctx_synchronize(ctxs[i], &e);
    CUcontext popped;
    (void)PC_CU(NULL, cuCtxPopCurrent, &popped);
    if (res == CUDA_ERROR_INVALID_CONTEXT || res == CUDA_ERROR_CONTEXT_IS_DESTROYED || res == CUDA_ERROR_DEINITIALIZED) {
      pc_collector_context_dead(c, ctxs[i]);
    } else if (res != CUDA_SUCCESS) {
      if (st == PERFCHECK_OK)
        st = pc_err_set(err, PERFCHECK_ERROR_KERNEL_FAULT, "a kernel faulted in region \"%s\": %s", g->name, e.msg);
    } else if (*first_ordinal < 0) {
      *first_ordinal = pc_funcinfo_ctx_ordinal(ctxs[i]);
    }
  }
  if (ctxs != small) free(ctxs);
  return st;
}

/* ---- the counter set's facts ------------------------------------------------------------- */

static int pc_copy_strings(char ***dst, char *const *src, size_t n) {
  *dst = NULL;
  if (!n) return 0;
  if (!(*dst = calloc(n, sizeof **dst))) return -1;
  for (size_t i = 0; i < n; i++)
    if (src && src[i] && !((*dst)[i] = pc_strdup(src[i]))) return -1;
  return 0;
}

static void pc_counter_facts(pc_collector *c, pc_snapshot *s) {
  pc_err note;
  s->counters = pc_collector_counters_note(c, &note);
  s->counters_note = note.msg[0] ? pc_strdup(note.msg) : NULL;
  pc_rp *rp = pc_collector_rp(c);
  if (!rp) return;
  s->passes = pc_rp_passes(rp);
  const pc_rp_plan *plan = pc_rp_get_plan(rp);
  if (!plan) return;
  snprintf(s->metric_set, sizeof s->metric_set, "%s", plan->set_name);
  memcpy(s->via_substitute, plan->use_substitute, sizeof s->via_substitute);
  if (pc_copy_strings(&s->extra_names, plan->extra, plan->nextra) == 0) s->nextra = plan->nextra;
  if (pc_copy_strings(&s->rejected, plan->rejected, plan->nrejected) == 0 &&
      pc_copy_strings(&s->rejected_reason, plan->rejected_reason, plan->nrejected) == 0)
    s->nrejected = plan->nrejected;
}

/* ---- 4. what needs the driver ----------------------------------------------------------------- */

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

/* The attributes of a signature launched directly in the region: asked from
 * the driver once (cached in the capture), the launch's context pushed. */
static void pc_sig_attributes(pc_collector *c, const pc_sig_handle *h, pc_snap_sig *g, const pc_device *dev) {
  pc_attributes a;
  pc_err why;
  pc_err_clear(&why);
  int is_kernel = 0;
  void *canon = NULL;
  perfcheck_status st = PERFCHECK_ERROR_NOT_FOUND;
  if (h->f && !pc_gpu_exiting())
    st = pc_funcinfo_attributes(h->ctx, h->f, 1, g->grid, g->block, g->dynamic_smem, dev, &a, &is_kernel, &canon,
                                &why);
  else if (h->f) /* pc_gpu.h, pc_gpu_mark_exit: the handle may dangle */
    pc_err_set(&why, PERFCHECK_ERROR_NOT_FOUND,
               "function attributes not asked: the region ended at process exit, when the program's CUDA "
               "libraries may be unloaded; registers and shared memory from the kernel's activity record");
  g->attr_new = 1;
  if (st == PERFCHECK_OK) {
    /* why: the occupancy call alone failed (the model answered). */
    g->attr_from = PC_SNAP_ATTR_DRIVER;
    g->attr = a;
    g->attr_note = why.msg[0] ? pc_strdup(why.msg) : NULL;
    pc_collector_sig_set_attr(c, h->gid, PC_ATTR_OK, &a, NULL);
    /* The CUfunction it resolved to joins the handles of one function. */
    g->function = pc_collector_sig_resolved(c, h->gid, canon);
  } else if (g->rec_valid) {
    /* A kernel seen only through a graph (or whose handle went away): its
     * activity record's registers and shared memory, occupancy from the
     * model (lib/core computes it the same way from the snapshot). */
    g->attr_from = PC_SNAP_ATTR_RECORD;
    g->attr_note = pc_strdup(h->f ? why.msg : "no function handle: launched only by a CUDA graph");
    pc_attributes_compute(dev, (int)g->rec_registers, (int)g->rec_static_smem, (int)g->rec_local, -1, -1,
                          g->grid, g->block, g->dynamic_smem, &a);
    pc_collector_sig_set_attr(c, h->gid, PC_ATTR_OK, &a, NULL);
  } else {
    g->attr_from = PC_SNAP_ATTR_NONE;
    g->attr_note = pc_strdup(h->f ? why.msg : "no function handle");
    pc_collector_sig_set_attr(c, h->gid, PC_ATTR_UNAVAILABLE, NULL, g->attr_note);
  }
}

static void pc_region_facts(const pc_region_view *g, pc_snapshot *s, uint64_t end_ts) {
  s->name = pc_strdup(g->name);
  s->parent = g->parent_name ? pc_strdup(g->parent_name) : NULL;
  s->depth = g->depth;
  s->program = (g->flags & PC_RG_PROGRAM) != 0;
  s->begin_ts = g->begin.ts;
  s->end_ts = end_ts;
  pc_region_marks now;
  if (!g->has_end) pc_gpu_marks(&now);
  const pc_region_marks *e = g->has_end ? &g->end : &now;
  s->launch_calls = e->launches - g->begin.launches;
  s->failed_calls = e->failed - g->begin.failed;
  s->dropped_records = e->dropped - g->begin.dropped;
  s->zero_ts_records = e->zero_ts - g->begin.zero_ts;
  pc_gpu_tool(s->cupti_path, sizeof s->cupti_path, &s->cupti_version, &s->cupti_preloaded);
  snprintf(s->demangler, sizeof s->demangler, "%s", pc_demangler());
  snprintf(s->tool_version, sizeof s->tool_version, "%s", PERFCHECK_VERSION_STRING);
}

/* Step 4: contexts, devices, names and attributes, outside the lock. */
static void pc_resolve(pc_collector *c, pc_snapshot *s, const pc_taken *tk, int first_ordinal) {
  for (size_t i = 0; i < s->ncontexts; i++) {
    pc_snap_context *sc = &s->contexts[i];
    sc->device = tk->ctxs && tk->ctxs[i] ? pc_funcinfo_ctx_ordinal(tk->ctxs[i]) : -1;
    if (sc->device >= 0 && pc_funcinfo_pci_bus_id(sc->device, sc->pci_bus_id, sizeof sc->pci_bus_id))
      sc->pci_bus_id[0] = '\0';
    pc_add_device(s, sc->device);
  }
  for (size_t i = 0; i < s->nsigs && i < tk->nsigs; i++) {
    pc_snap_sig *g = &s->sigs[i];
    const pc_sig_handle *h = &tk->sigs[i];
    if (!g->mangled && h->f) {
      char nm[1024];
      if (pc_funcinfo_name(h->f, nm, sizeof nm) == 0) {
        pc_collector_sig_set_name(c, h->gid, nm);
        g->mangled = pc_strdup(nm);
      }
    }
    if (!h->direct || h->attr_state != PC_ATTR_NONE) continue;
    const int ord = g->context < s->ncontexts ? s->contexts[g->context].device : -1;
    const pc_device *dev = pc_snapshot_device(s, ord >= 0 ? ord : first_ordinal >= 0 ? first_ordinal : 0);
    pc_device none;
    if (!dev) {
      pc_device_init(&none);
      dev = &none;
    }
    pc_sig_attributes(c, h, g, dev);
  }
}

static perfcheck_status pc_harvest(pc_collector *c, const pc_region_view *g, pc_snapshot **out, pc_err *err) {
  pc_snapshot *s = pc_snapshot_new();
  if (!s) {
    pc_collector_drop_region(c, g->id);
    return pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "perfcheck_session_end: out of memory");
  }
  /* New launches go to the parent now; this region's records are still
   * accepted until it is taken. */
  pc_collector_region_pop(c, g->id, NULL);

  pc_err fault;
  pc_err_clear(&fault);
  int first_ordinal = -1;
  const perfcheck_status st = pc_sync_contexts(c, g, &first_ordinal, &fault);
  const uint64_t end_ts = g->has_end ? g->end.ts : pc_gpu_timestamp();
  /* Sessions spanning launches (rotation's cold group) end with the
   * region: their launches' values go into the collector before it is taken. */
  pc_rp *rp = pc_collector_rp(c);
  if (pc_rp_window_active(rp)) {
    uint64_t cut[2] = {0, 0};
    pc_collector_gate_exclusive(c);
    pc_rp_window_close_all(rp, g->parent ? cut : NULL);
    pc_collector_gate_release(c);
    /* After this region's end, but inside the parent's clock: cut there. */
    pc_collector_host_cut(c, g->parent, cut[0], cut[1]);
  }
  (void)pc_rp_drain(rp, pc_collector_prof_store_cb, c);

  pc_activity_flush(st != PERFCHECK_OK);
  if (pc_collector_pending(c, g->id)) pc_activity_flush(0);
  if (pc_collector_pending(c, g->id)) pc_activity_flush(1);

  pc_counter_facts(c, s);
  pc_taken tk;
  pc_err te;
  const perfcheck_status tst = pc_collector_take_region(c, g, end_ts, s, &tk, &te);
  pc_region_facts(g, s, end_ts);
  s->first_device = first_ordinal;
  pc_add_device(s, first_ordinal);
  pc_resolve(c, s, &tk, first_ordinal);
  pc_taken_free(&tk);
  if (st != PERFCHECK_OK) s->fault = pc_strdup(fault.msg);
  if (tst != PERFCHECK_OK || !s->name) {
    pc_snapshot_free(s);
    return pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "perfcheck_session_end: %s",
                      tst != PERFCHECK_OK ? te.msg : "out of memory");
  }
  *out = s;
  if (st != PERFCHECK_OK && err) *err = fault;
  return st;
}

perfcheck_status pc_gpu_region_harvest(uint32_t id, pc_snapshot **out, pc_err *err) {
  *out = NULL;
  pc_err_clear(err);
  pc_collector *c = pc_collector_current();
  if (!c) return pc_err_set(err, PERFCHECK_ERROR_NO_REGION, "region %u is not open (no session)", (unsigned)id);
  pc_region_view v;
  const perfcheck_status vst = pc_collector_region_view(c, id, &v, err);
  if (vst == PERFCHECK_ERROR_OUT_OF_MEMORY) pc_collector_drop_region(c, id);
  if (vst != PERFCHECK_OK) return vst;
  const perfcheck_status st = pc_harvest(c, &v, out, err);
  pc_region_view_free(&v);
  return st;
}

void pc_gpu_region_drop(uint32_t id) {
  pc_collector *c = pc_collector_current();
  if (c) pc_collector_drop_region(c, id);
}
