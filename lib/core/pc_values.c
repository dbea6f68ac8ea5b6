/* Values: lookup by name (ncu metrics, launch__* values, derived names)
 * and the public report accessors.  Kernel names are in pc_names.c. */
#include <stdlib.h>
#include <string.h>

#include "pc_core.h"

/* ---- Values by name ------------------------------------------------------- */

static double pc_first(double a, double b) { return pc_has(a) ? a : b; }

static double pc_dims(const unsigned v[3]) {
  if (v[0] == 0 || v[1] == 0 || v[2] == 0) return PC_NULL; /* unknown */
  return (double)v[0] * (double)v[1] * (double)v[2];
}

/* The named values beyond the metric table.  Derived values are read from
 * k->derived, which pc_checklist_kernel (pc_derive) fills. */
typedef struct pc_named {
  const char *name;
  double value;
} pc_named;
#define PC_NAMED_MAX 64

/* The table of named values for kernel k; returns its length. */
static size_t pc_named_table(const pc_kernel *k, pc_named *out) {
  const pc_attributes *a = &k->attr;
  const pc_derived *d = &k->derived;
  const pc_named t[] = {
      /* ncu's launch statistics and occupancy values (not CUPTI metrics). */
      {"launch__registers_per_thread", a->registers_per_thread},
      {"launch__shared_mem_per_block_static", a->static_smem},
      {"launch__shared_mem_per_block_dynamic", pc_first(a->dynamic_smem, k->dynamic_smem)},
      {"launch__occupancy_limit_warps", a->limit_warps},
      {"launch__occupancy_limit_blocks", a->limit_blocks},
      {"launch__occupancy_limit_registers", a->limit_registers},
      {"launch__occupancy_limit_shared_mem", a->limit_shared_mem},
      {"launch__waves_per_multiprocessor", pc_first(d->waves_per_sm, a->waves_per_sm)},
      {"launch__grid_size", pc_dims(k->grid)},
      {"launch__block_size", pc_dims(k->block)},
      {"launch__thread_count", pc_dims(k->grid) * pc_dims(k->block)},
      {"sm__maximum_warps_per_active_cycle_pct", pc_first(d->theoretical_occupancy_pct, a->theoretical_occupancy_pct)},
      {"sm__maximum_warps_avg_per_active_cycle", a->warps_per_sm},
      /* Derived names of the contract. */
      {"sectors_per_request_ld", d->sectors_per_request_ld},
      {"sectors_per_request_st", d->sectors_per_request_st},
      {"threads_per_instruction", d->threads_per_instruction},
      {"threads_per_instruction_pred_on", d->threads_per_instruction_pred_on},
      {"achieved_occupancy_pct", d->achieved_occupancy_pct},
      {"theoretical_occupancy_pct", pc_first(d->theoretical_occupancy_pct, a->theoretical_occupancy_pct)},
      {"arithmetic_intensity", d->arithmetic_intensity},
      {"waves_per_sm", pc_first(d->waves_per_sm, a->waves_per_sm)},
      {"flops", d->flops},
      {"dram_bytes", d->dram_bytes},
      {"dram_gbps", d->dram_gbps},
      {"gflops", d->gflops},
      {"memory_pct", d->memory_pct},
      {"compute_pct", d->compute_pct},
      {"local_sectors", d->local_sectors},
      {"local_share", d->local_share},
      {"ld_sector_hit_share", d->ld_sector_hit_share},
      {"bank_conflict_share", d->bank_conflict_share},
      {"atomic_share", d->atomic_share},
      {"blocks_per_sm", a->blocks_per_sm},
      {"registers_per_thread", a->registers_per_thread},
      {"local_bytes_per_thread", a->local_bytes_per_thread},
      /* The verdict's step (0-5) and the launch timing. */
      {"step", (double)k->diag.verdict.step},
      {"launches", (double)k->launches},
      {"duration_ns_min", k->dur_min_ns},
      {"duration_ns_median", k->dur_median_ns},
      {"duration_ns_max", k->dur_max_ns},
  };
  size_t n = sizeof t / sizeof t[0];
  _Static_assert(sizeof t / sizeof t[0] <= PC_NAMED_MAX, "PC_NAMED_MAX");
  memcpy(out, t, sizeof t);
  return n;
}

static int pc_named_value(const pc_kernel *k, const char *name, double *v) {
  pc_named t[PC_NAMED_MAX];
  size_t n = pc_named_table(k, t);
  for (size_t i = 0; i < n; i++) {
    if (strcmp(t[i].name, name) == 0) {
      *v = t[i].value;
      return 1;
    }
  }
  return 0;
}

size_t pc_kernel_value_names(const char **names, size_t cap) {
  pc_kernel k;
  pc_kernel_init(&k);
  pc_named t[PC_NAMED_MAX];
  size_t n = pc_named_table(&k, t);
  for (size_t i = 0; i < n && i < cap; i++) names[i] = t[i].name;
  pc_kernel_free(&k);
  return n;
}

perfcheck_status pc_kernel_value(const pc_kernel *k, const char *name, double *out) {
  if (out) *out = PC_NULL;
  if (!k || !name || !out) return PERFCHECK_ERROR_INVALID_ARGUMENT;
  double v = PC_NULL;
  int found = 0;
  const pc_metric_def *m = pc_metric_lookup(name, NULL);
  if (m) {
    v = k->metric[m->id];
    found = 1;
  } else if (pc_named_value(k, name, &v)) {
    found = 1;
  } else {
    for (size_t i = 0; i < k->nextra; i++) {
      if (k->extra_names && k->extra_names[i] && strcmp(k->extra_names[i], name) == 0) {
        v = k->extra_values ? k->extra_values[i] : PC_NULL;
        found = 1;
        break;
      }
    }
  }
  if (!found) return PERFCHECK_ERROR_NOT_FOUND;
  *out = v;
  return pc_has(v) ? PERFCHECK_OK : PERFCHECK_ERROR_NOT_MEASURED;
}

/* ---- Public report accessors ---------------------------------------------- */

PERFCHECK_API size_t perfcheck_report_kernel_count(const perfcheck_report *report) {
  return report ? report->nkernels : 0;
}

PERFCHECK_API size_t perfcheck_report_region_count(const perfcheck_report *report) {
  return report ? report->nregions : 0;
}

PERFCHECK_API perfcheck_status perfcheck_report_kernel(const perfcheck_report *report, size_t index,
                                                       perfcheck_kernel_info *out) {
  if (!report || !out)
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_report_kernel: NULL report or output");
  if (out->size < sizeof(size_t))
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_report_kernel: out->size %zu is too small",
                   out->size);
  if (index >= report->nkernels)
    return pc_fail(PERFCHECK_ERROR_NOT_FOUND, "perfcheck_report_kernel: no kernel %zu (the report has %zu)", index,
                   report->nkernels);
  const pc_kernel *k = &report->kernels[index];
  const pc_derived *d = &k->derived;
  const pc_finding *v = &k->diag.verdict;
  perfcheck_kernel_info info;
  memset(&info, 0, sizeof info);
  info.size = out->size; /* the caller's size stays as it set it */
  info.name = k->name;
  info.mangled = k->mangled;
  info.region = k->region;
  memcpy(info.grid, k->grid, sizeof info.grid);
  memcpy(info.block, k->block, sizeof info.block);
  info.dynamic_smem_bytes = pc_first(k->dynamic_smem, k->attr.dynamic_smem);
  info.launches = k->launches;
  info.duration_ns_min = k->dur_min_ns;
  info.duration_ns_median = k->dur_median_ns;
  info.duration_ns_max = k->dur_max_ns;
  info.registers_per_thread = k->attr.registers_per_thread;
  info.static_smem_bytes = k->attr.static_smem;
  info.local_bytes_per_thread = k->attr.local_bytes_per_thread;
  info.blocks_per_sm = k->attr.blocks_per_sm;
  info.waves_per_sm = pc_first(d->waves_per_sm, k->attr.waves_per_sm);
  info.sectors_per_request_ld = d->sectors_per_request_ld;
  info.sectors_per_request_st = d->sectors_per_request_st;
  info.threads_per_instruction = d->threads_per_instruction;
  info.achieved_occupancy_pct = d->achieved_occupancy_pct;
  info.theoretical_occupancy_pct = pc_first(d->theoretical_occupancy_pct, k->attr.theoretical_occupancy_pct);
  info.arithmetic_intensity = d->arithmetic_intensity;
  info.step = v->step;
  info.cause = v->cause;
  info.bound = k->diag.bound;
  info.metric = v->metric;
  info.value = v->value;
  info.threshold = v->threshold;
  info.advice = v->advice;
  memcpy(out, &info, out->size < sizeof info ? out->size : sizeof info);
  return PERFCHECK_OK;
}

PERFCHECK_API perfcheck_status perfcheck_report_region(const perfcheck_report *report, size_t index,
                                                       perfcheck_region_info *out) {
  if (!report || !out)
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_report_region: NULL report or output");
  if (out->size < sizeof(size_t))
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_report_region: out->size %zu is too small",
                   out->size);
  if (index >= report->nregions)
    return pc_fail(PERFCHECK_ERROR_NOT_FOUND, "perfcheck_report_region: no region %zu (the report has %zu)", index,
                   report->nregions);
  const pc_region *g = &report->regions[index];
  perfcheck_region_info info;
  memset(&info, 0, sizeof info);
  info.size = out->size;
  info.name = g->name;
  info.parent = g->parent;
  info.wall_ns = g->wall_ns;
  info.kernel_ns = g->kernel_ns;
  info.memcpy_ns = g->memcpy_ns;
  info.memset_ns = g->memset_ns;
  info.gpu_idle_ns = g->gpu_idle_ns;
  info.launches = g->launches;
  info.dropped_records = g->dropped_records;
  info.kernel_share = g->kernel_share;
  info.step = g->diag.verdict.step == 1 ? 1 : 0;
  info.cause = g->diag.verdict.cause;
  info.advice = g->diag.verdict.advice;
  memcpy(out, &info, out->size < sizeof info ? out->size : sizeof info);
  return PERFCHECK_OK;
}

PERFCHECK_API perfcheck_status perfcheck_report_kernel_value(const perfcheck_report *report, size_t index,
                                                             const char *name, double *out) {
  if (out) *out = PC_NULL;
  if (!report || !name || !out)
    return pc_fail(PERFCHECK_ERROR_INVALID_ARGUMENT, "perfcheck_report_kernel_value: NULL argument");
  if (index >= report->nkernels)
    return pc_fail(PERFCHECK_ERROR_NOT_FOUND, "perfcheck_report_kernel_value: no kernel %zu (the report has %zu)",
                   index, report->nkernels);
  perfcheck_status st = pc_kernel_value(&report->kernels[index], name, out);
  if (st == PERFCHECK_ERROR_NOT_FOUND)
    return pc_fail(st, "perfcheck_report_kernel_value: no value named \"%s\"", name);
  if (st == PERFCHECK_ERROR_NOT_MEASURED)
    return pc_fail(st, "perfcheck_report_kernel_value: \"%s\" was not measured for kernel %zu", name, index);
  return st;
}

PERFCHECK_API void perfcheck_report_destroy(perfcheck_report *report) { pc_report_free(report); }
