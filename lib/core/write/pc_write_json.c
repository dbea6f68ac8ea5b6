/* The JSON report, schema "perfcheck-report/2" (docs/report-contract.md).
 * A value that was not measured (NaN) is null, never 0; strings are escaped
 * so that any bytes (kernel names from an export can hold anything) give
 * valid JSON. */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/pc_core.h"
#include "base/pc_fmt.h"
#include "base/pc_json_emit.h"
#include "check/pc_check.h"
#include "write/pc_write.h"

static void pc_jw_finding_fields(pc_jw *w, const pc_finding *f) {
  pc_jw_int(w, "step", f->step);
  pc_jw_str(w, "cause", perfcheck_cause_name(f->cause));
  pc_jw_str_or_null(w, "metric", f->metric);
  pc_jw_num(w, "value", f->value);
  pc_jw_num(w, "threshold", f->threshold);
  pc_jw_str_or_null(w, "advice", f->advice);
}

/* The dominant stall: {"reason", "metric", "per_issue", "share",
 * "dominant", "second", "second_share"}, or null when no stall reason was
 * measured. */
static void pc_jw_stall(pc_jw *w, const pc_stall *st, double dominant_share) {
  if (!st->reason) {
    pc_jw_str(w, "stall", NULL);
    return;
  }
  pc_jw_open(w, "stall", '{');
  pc_jw_str(w, "reason", st->reason);
  pc_jw_str(w, "metric", st->metric);
  pc_jw_num(w, "per_issue", st->per_issue);
  pc_jw_num(w, "share", st->share);
  pc_jw_bool(w, "dominant", pc_has(st->share) && st->share > dominant_share);
  pc_jw_str(w, "second", st->second);
  pc_jw_num(w, "second_share", st->second_share);
  pc_jw_int(w, "reasons_measured", st->reasons_measured);
  pc_jw_close(w, '}');
}

static void pc_jw_diagnosis(pc_jw *w, const pc_diagnosis *d) {
  pc_jw_open(w, "diagnosis", '{');
  pc_jw_finding_fields(w, &d->verdict);
  pc_jw_str(w, "bound", perfcheck_bound_name(d->bound));
  pc_jw_bool(w, "borderline", d->borderline);
  pc_jw_str(w, "runner_up", d->borderline ? perfcheck_cause_name(d->runner_up) : NULL);
  pc_jw_str_or_null(w, "runner_up_metric", d->borderline ? d->runner_up_metric : NULL);
  pc_jw_num(w, "runner_up_value", d->borderline ? d->runner_up_value : PC_NULL);
  pc_jw_num(w, "runner_up_threshold", d->borderline ? d->runner_up_threshold : PC_NULL);
  if (pc_has(d->gain.speedup) && d->gain.speedup >= 1.0) {
    pc_jw_open(w, "estimated_gain", '{');
    pc_jw_num(w, "speedup", d->gain.speedup);
    pc_jw_num(w, "saved_ns", d->gain.saved_ns);
    pc_jw_str_or_null(w, "basis", d->gain.basis);
    pc_jw_close(w, '}');
  } else {
    pc_jw_str(w, "estimated_gain", NULL);
  }
  pc_jw_str_or_null(w, "library_advice", d->library_advice);
  pc_jw_stall(w, &d->stall, pc_threshold_value("stall_dominant_share"));
  pc_jw_open(w, "findings", '[');
  size_t n = d->nfindings < PC_MAX_FINDINGS ? d->nfindings : PC_MAX_FINDINGS;
  for (size_t i = 0; i < n; i++) {
    pc_jw_open(w, NULL, '{');
    pc_jw_finding_fields(w, &d->findings[i]);
    pc_jw_close(w, '}');
  }
  pc_jw_close(w, ']');
  pc_jw_close(w, '}');
}

static void pc_jw_device(pc_jw *w, const pc_device *d) {
  pc_jw_open(w, "device", '{');
  pc_jw_str_or_null(w, "name", d->name);
  pc_jw_member(w, "compute_capability");
  if (d->cc_major >= 0 && d->cc_minor >= 0)
    fprintf(w->f, "\"%d.%d\"", d->cc_major, d->cc_minor);
  else
    fputs("null", w->f);
  pc_jw_known_int(w, "sm_count", d->sm_count);
  pc_jw_num(w, "peak_dram_bytes_per_s", d->peak_dram_bytes_per_s);
  pc_jw_num(w, "peak_fp32_flop_per_s", d->peak_fp32_flop_per_s);
  pc_jw_num(w, "ridge_flop_per_byte", d->ridge_flop_per_byte);
  pc_jw_str_or_null(w, "ceilings_source", d->ceilings_source);
  /* The limits the occupancy model used, so a reader can redo it. */
  pc_jw_known_int(w, "warp_size", d->warp_size);
  pc_jw_known_int(w, "max_threads_per_sm", d->max_threads_per_sm);
  pc_jw_known_int(w, "max_threads_per_block", d->max_threads_per_block);
  pc_jw_known_int(w, "max_blocks_per_sm", d->max_blocks_per_sm);
  pc_jw_known_int(w, "max_registers_per_sm", d->max_regs_per_sm);
  pc_jw_known_int(w, "max_registers_per_block", d->max_regs_per_block);
  pc_jw_known_int(w, "max_shared_memory_per_sm", d->max_smem_per_sm);
  pc_jw_known_int(w, "max_shared_memory_per_block", d->max_smem_per_block);
  pc_jw_known_int(w, "max_shared_memory_per_block_optin", d->max_smem_per_block_optin);
  pc_jw_known_int(w, "reserved_shared_memory_per_block", d->reserved_smem_per_block);
  pc_jw_known_int(w, "register_allocation_unit", d->reg_alloc_unit);
  pc_jw_known_int(w, "warp_allocation_granularity", d->warp_alloc_granularity);
  pc_jw_known_int(w, "shared_memory_allocation_unit", d->smem_alloc_unit);
  pc_jw_close(w, '}');
}

static void pc_jw_region(pc_jw *w, const pc_region *g) {
  pc_jw_open(w, NULL, '{');
  pc_jw_str(w, "name", g->name);
  pc_jw_str(w, "parent", g->parent);
  pc_jw_int(w, "depth", g->depth);
  pc_jw_num(w, "wall_ns", g->wall_ns);
  pc_jw_num(w, "kernel_ns", g->kernel_ns);
  pc_jw_num(w, "kernel_sum_ns", g->kernel_sum_ns);
  pc_jw_num(w, "memcpy_ns", g->memcpy_ns);
  pc_jw_num(w, "memset_ns", g->memset_ns);
  pc_jw_num(w, "gpu_idle_ns", g->gpu_idle_ns);
  pc_jw_num(w, "kernel_span_ns", g->kernel_span_ns);
  pc_jw_num(w, "median_kernel_ns", g->median_kernel_ns);
  pc_jw_num(w, "short_kernel_ns", g->short_kernel_ns);
  pc_jw_u64(w, "launches", g->launches);
  pc_jw_u64(w, "dropped_records", g->dropped_records);
  pc_jw_num(w, "kernel_share", g->kernel_share);
  pc_jw_num(w, "profiling_ns", g->profiling_ns);
  pc_jw_num(w, "communication_ns", g->communication_ns);
  pc_jw_num(w, "compute_ns", g->compute_ns);
  pc_jw_num(w, "communication_share", g->communication_share);
  pc_jw_known_int(w, "rank", g->rank);
  pc_jw_open(w, "devices", '[');
  for (size_t i = 0; i < g->ndevices; i++) {
    const pc_region_device *e = &g->devices[i];
    pc_jw_open(w, NULL, '{');
    pc_jw_known_int(w, "ordinal", e->ordinal);
    pc_jw_str_or_null(w, "pci_bus_id", e->pci_bus_id);
    pc_jw_num(w, "kernel_ns", e->kernel_ns);
    pc_jw_num(w, "kernel_sum_ns", e->kernel_sum_ns);
    pc_jw_num(w, "gpu_idle_ns", e->gpu_idle_ns);
    pc_jw_num(w, "median_kernel_ns", e->median_kernel_ns);
    pc_jw_num(w, "short_kernel_ns", e->short_kernel_ns);
    pc_jw_u64(w, "launches", e->launches);
    pc_jw_num(w, "kernel_share", e->kernel_share);
    pc_jw_diagnosis(w, &e->diag);
    pc_jw_close(w, '}');
  }
  pc_jw_close(w, ']');
  pc_jw_diagnosis(w, &g->diag);
  pc_jw_close(w, '}');
}

/* The attributes block: the numbers of pc_json_attributes (the table the
 * readers use, and the vocabulary's), then the binding limit's word. */
static void pc_jw_attributes(pc_jw *w, const pc_attributes *a) {
  pc_jw_open(w, "attributes", '{');
  for (size_t i = 0; i < pc_json_nattributes; i++)
    pc_jw_num(w, pc_json_attributes[i].key, *(const double *)((const char *)a + pc_json_attributes[i].offset));
  pc_jw_str(w, "binding_limit", a->binding == PC_LIMIT_NONE ? NULL : pc_limiter_name(a->binding));
  pc_jw_close(w, '}');
}

/* A busiest unit: {"name", "pct", "metric"}, or null when none was measured. */
static void pc_jw_unit(pc_jw *w, const char *key, const pc_unit_load *u) {
  if (!u->metric) {
    pc_jw_str(w, key, NULL); /* null */
    return;
  }
  pc_jw_open(w, key, '{');
  pc_jw_str(w, "name", u->name);
  pc_jw_num(w, "pct", u->pct);
  pc_jw_str(w, "metric", u->metric);
  pc_jw_close(w, '}');
}

/* The derived block: every field of the vocabulary's table (pc_values.c),
 * so that each is a quantity of `perfcheck check` under the same name. */
static void pc_jw_derived(pc_jw *w, const pc_derived *d, const pc_unit_load *pipe, const pc_unit_load *memory) {
  pc_jw_open(w, "derived", '{');
  for (size_t i = 0; i < pc_nderived_fields; i++)
    pc_jw_num(w, pc_derived_fields[i].key, *(const double *)((const char *)d + pc_derived_fields[i].offset));
  pc_jw_unit(w, "busiest_pipe", pipe);
  pc_jw_unit(w, "busiest_memory", memory);
  pc_jw_close(w, '}');
}

static void pc_jw_kernel(pc_jw *w, const pc_kernel *k) {
  const pc_metric_def *table = pc_metric_table();
  pc_jw_open(w, NULL, '{');
  pc_jw_str(w, "name", k->name ? k->name : "");
  pc_jw_str(w, "display_name", k->display_name ? k->display_name : (k->name ? k->name : ""));
  pc_jw_str(w, "demangled", k->demangled);
  pc_jw_str(w, "mangled", k->mangled);
  pc_jw_known_int(w, "function_id", k->function_id && k->function_id <= INT_MAX ? (int)k->function_id : -1);
  pc_jw_str(w, "region", k->region);
  pc_jw_known_int(w, "device_ordinal", k->device_ordinal);
  pc_jw_str_or_null(w, "pci_bus_id", k->pci_bus_id);
  pc_jw_dim3(w, "grid", k->grid);
  pc_jw_dim3(w, "block", k->block);
  pc_jw_num(w, "dynamic_smem_bytes", k->dynamic_smem);
  pc_jw_u64(w, "launches", k->launches);
  pc_jw_u64(w, "profiled_launches", k->profiled_launches);
  pc_jw_open(w, "duration_ns", '{');
  pc_jw_num(w, "min", k->dur_min_ns);
  pc_jw_num(w, "median", k->dur_median_ns);
  pc_jw_num(w, "max", k->dur_max_ns);
  pc_jw_close(w, '}');
  for (size_t i = 0; i < pc_nkernel_fields; i++) /* total_ns, kernel_time_share, ...: the vocabulary's */
    pc_jw_num(w, pc_kernel_fields[i].key, *(const double *)((const char *)k + pc_kernel_fields[i].offset));
  pc_jw_known_int(w, "rank", k->rank > 0 ? k->rank : -1);
  pc_jw_member(w, "worth_changing");
  fputs(k->worth_changing < 0 ? "null" : k->worth_changing ? "true" : "false", w->f);
  pc_jw_str_or_null(w, "library", k->library);
  pc_jw_attributes(w, &k->attr);

  pc_jw_open(w, "metrics", '{');
  for (int i = 0; i < PC_M_COUNT; i++) pc_jw_num(w, table[i].name, k->metric[i]);
  for (size_t i = 0; i < k->nextra; i++)
    if (k->extra_names && k->extra_names[i])
      pc_jw_num(w, k->extra_names[i], k->extra_values ? k->extra_values[i] : PC_NULL);
  pc_jw_close(w, '}');

  /* Only the metrics that a substitute counter produced. */
  pc_jw_open(w, "metric_sources", '{');
  for (int i = 0; i < PC_M_COUNT; i++)
    if (k->metric_via_substitute[i] && table[i].substitute)
      pc_jw_str(w, table[i].name, table[i].substitute);
  pc_jw_close(w, '}');

  pc_jw_str(w, "not_measured_reason", k->not_measured_reason);
  pc_jw_int(w, "passes", k->passes);
  pc_jw_str_or_null(w, "replay", k->replay[0] ? k->replay : NULL);
  if (k->groups > 0) {
    pc_jw_open(w, "rotation", '{');
    pc_jw_int(w, "groups", k->groups);
    pc_jw_int(w, "collected", k->groups_collected);
    pc_jw_open(w, "missing", '['); /* 1-based group numbers (the first 64 groups) */
    for (int g = 0; g < k->groups && g < 64; g++)
      if (!((k->groups_seen >> g) & 1u)) {
        pc_jw_member(w, NULL);
        fprintf(w->f, "%d", g + 1);
      }
    pc_jw_close(w, ']');
    pc_jw_str(w, "missing_reason", k->rotation_note);
    pc_jw_close(w, '}');
  } else {
    pc_jw_str_or_null(w, "rotation", NULL);
  }
  pc_jw_num(w, "counter_spread", k->counter_spread);
  if (k->graph_id && !k->is_graph) {
    pc_jw_open(w, "graph", '{');
    pc_jw_int(w, "id", k->graph_id);
    pc_jw_int(w, "node", (long long)k->graph_node);
    pc_jw_str(w, "entry", k->graph_entry);
    pc_jw_close(w, '}');
  } else {
    pc_jw_str_or_null(w, "graph", NULL);
  }
  if (k->is_graph) {
    pc_jw_open(w, "graph_launch", '{');
    pc_jw_member(w, "graph_id");
    if (k->graph_id)
      fprintf(w->f, "%u", (unsigned)k->graph_id);
    else
      fputs("null", w->f);
    pc_jw_u64(w, "exec_id", k->graph_exec);
    pc_jw_int(w, "kernels", k->graph_kernels);
    pc_jw_int(w, "signatures", k->graph_signatures);
    pc_jw_open(w, "kernel_names", '[');
    for (size_t i = 0; i < k->ngraph_names; i++) {
      pc_jw_member(w, NULL);
      pc_json_string(w->f, k->graph_names[i]);
    }
    pc_jw_close(w, ']');
    pc_jw_close(w, '}');
  } else {
    pc_jw_str_or_null(w, "graph_launch", NULL);
  }
  pc_jw_member(w, "dram_cold");
  fputs(k->dram_cold ? "true" : "false", w->f);
  pc_jw_derived(w, &k->derived, &k->busiest_pipe, &k->busiest_memory);
  pc_jw_diagnosis(w, &k->diag);
  pc_jw_close(w, '}');
}

perfcheck_status pc_write_json(const pc_report *r, FILE *f, pc_err *err) {
  pc_err_clear(err);
  if (!r || !f) return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "pc_write_json: NULL argument");
  pc_locale_guard lg;
  pc_locale_begin(&lg);
  pc_jw w;
  memset(&w, 0, sizeof w);
  w.f = f;
  fputc('{', f);
  w.depth = 1;
  w.count[1] = 0;
  pc_jw_str(&w, "schema", "perfcheck-report/2");
  pc_jw_open(&w, "tool", '{');
  pc_jw_str(&w, "name", "perfcheck");
  pc_jw_str(&w, "version", PERFCHECK_VERSION_STRING);
  /* In process: the libcupti that measured and the demangler that named
   * the kernels; null offline. */
  if (r->cupti_known) {
    pc_jw_open(&w, "cupti", '{');
    pc_jw_str_or_null(&w, "path", r->cupti_path);
    pc_jw_u64(&w, "version", r->cupti_version);
    pc_jw_member(&w, "preloaded");
    fputs(r->cupti_preloaded < 0 ? "null" : r->cupti_preloaded ? "true" : "false", f);
    pc_jw_close(&w, '}');
  } else {
    pc_jw_str(&w, "cupti", NULL);
  }
  pc_jw_str_or_null(&w, "demangler", r->demangler);
  pc_jw_close(&w, '}');
  pc_jw_str(&w, "source", r->source);
  pc_jw_str(&w, "metric_set", r->metric_set);
  pc_jw_int(&w, "passes", r->passes);
  pc_jw_member(&w, "step1_assessed");
  fputs(r->step1_assessed ? "true" : "false", f);
  pc_jw_u64(&w, "rows_left_out", r->rows_left_out);
  pc_jw_known_int(&w, "rank", r->rank);
  pc_jw_known_int(&w, "world_size", r->world_size);
  pc_jw_known_int(&w, "local_rank", r->local_rank);
  pc_jw_device(&w, &r->device);

  pc_jw_open(&w, "regions", '[');
  for (size_t i = 0; i < r->nregions; i++) pc_jw_region(&w, &r->regions[i]);
  pc_jw_close(&w, ']');

  pc_jw_open(&w, "kernels", '[');
  for (size_t i = 0; i < r->nkernels; i++) pc_jw_kernel(&w, &r->kernels[i]);
  pc_jw_close(&w, ']');

  pc_jw_open(&w, "warnings", '[');
  for (size_t i = 0; i < r->nwarnings; i++) pc_jw_str(&w, NULL, r->warnings[i]);
  pc_jw_close(&w, ']');
  fputs("\n}\n", f);
  pc_locale_end(&lg);

  if (fflush(f) != 0 || ferror(f))
    return pc_err_set(err, PERFCHECK_ERROR_IO, "writing the JSON report failed");
  return PERFCHECK_OK;
}
