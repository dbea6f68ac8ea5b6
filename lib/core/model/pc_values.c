/* Values: lookup by name (ncu metrics, launch__* values, derived names)
 * and the public report accessors.  Kernel names are in pc_names.c. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "model/pc_core.h"
#include "base/pc_util.h"

/* ---- Values by name: one vocabulary ------------------------------------------ */

#define PC_F(m) {#m, offsetof(pc_derived, m)}
const pc_field pc_derived_fields[] = {
    PC_F(sectors_per_request_ld), PC_F(sectors_per_request_st), PC_F(bytes_per_sector_ld),
    PC_F(bytes_per_sector_st), PC_F(bytes_per_sector_ldgsts), PC_F(ld_sector_hit_share),
    PC_F(lanes_per_warp_max), PC_F(threads_per_instruction), PC_F(threads_per_instruction_pred_on),
    PC_F(achieved_occupancy_pct), PC_F(theoretical_occupancy_pct), PC_F(flops),
    PC_F(dram_bytes), PC_F(arithmetic_intensity), PC_F(waves_per_sm),
    PC_F(dram_gbps), PC_F(gflops), PC_F(memory_pct),
    PC_F(compute_pct), PC_F(local_sectors), PC_F(local_share),
    PC_F(bank_conflict_share), PC_F(atomic_share), PC_F(issue_active),
    PC_F(warps_active), PC_F(warps_eligible),
};
#undef PC_F
/* Every member of pc_derived is a double with its name here. */
_Static_assert(sizeof pc_derived_fields / sizeof pc_derived_fields[0] == sizeof(pc_derived) / sizeof(double),
               "a pc_derived member without its name in pc_derived_fields");
const size_t pc_nderived_fields = sizeof pc_derived_fields / sizeof pc_derived_fields[0];

const pc_field pc_kernel_fields[] = {
    {"total_ns", offsetof(pc_kernel, total_ns)},
    {"kernel_time_share", offsetof(pc_kernel, time_share)},
};
const size_t pc_nkernel_fields = sizeof pc_kernel_fields / sizeof pc_kernel_fields[0];

/* The attributes block's numbers (pc_json.h): the report and snapshot
 * readers' table, the JSON writer's, and quantities of their own. */
const pc_json_field pc_json_attributes[] = {
    {"registers_per_thread", offsetof(pc_attributes, registers_per_thread)},
    {"static_smem_bytes", offsetof(pc_attributes, static_smem)},
    {"dynamic_smem_bytes", offsetof(pc_attributes, dynamic_smem)},
    {"local_bytes_per_thread", offsetof(pc_attributes, local_bytes_per_thread)},
    {"max_threads_per_block", offsetof(pc_attributes, max_threads_per_block)},
    {"blocks_per_sm", offsetof(pc_attributes, blocks_per_sm)},
    {"warps_per_sm", offsetof(pc_attributes, warps_per_sm)},
    {"theoretical_occupancy_pct", offsetof(pc_attributes, theoretical_occupancy_pct)},
    {"occupancy_limit_warps", offsetof(pc_attributes, limit_warps)},
    {"occupancy_limit_blocks", offsetof(pc_attributes, limit_blocks)},
    {"occupancy_limit_registers", offsetof(pc_attributes, limit_registers)},
    {"occupancy_limit_shared_mem", offsetof(pc_attributes, limit_shared_mem)},
    {"waves_per_sm", offsetof(pc_attributes, waves_per_sm)},
    {"model_blocks_per_sm", offsetof(pc_attributes, model_blocks_per_sm)},
};
const size_t pc_json_nattributes = sizeof pc_json_attributes / sizeof pc_json_attributes[0];

static double pc_first(double a, double b) { return pc_has(a) ? a : b; }

static double pc_dims(const unsigned v[3]) {
  if (v[0] == 0 || v[1] == 0 || v[2] == 0) return PC_NULL; /* unknown */
  return (double)v[0] * (double)v[1] * (double)v[2];
}

static double pc_field_value(const void *base, const pc_field *f) {
  return *(const double *)((const char *)base + f->offset);
}

static const pc_field *pc_field_find(const pc_field *t, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(t[i].key, name) == 0) return &t[i];
  return NULL;
}

/* The named values beyond the tables: ncu's launch statistics, the
 * verdict's step, the launch counts and durations (by both spellings). */
typedef struct pc_named {
  const char *name;
  double value;
} pc_named;
#define PC_NAMED_MAX 32

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
      /* The kernel entry's own numbers (JSON keys). */
      {"dynamic_smem_bytes", pc_first(k->dynamic_smem, a->dynamic_smem)},
      {"step", (double)k->diag.verdict.step},
      {"launches", (double)k->launches},
      {"profiled_launches", (double)k->profiled_launches},
      {"passes", (double)k->passes},
      {"counter_spread", k->counter_spread}, /* launches of one signature disagreeing (rotation) */
      {"duration_ns.min", k->dur_min_ns},
      {"duration_ns.median", k->dur_median_ns},
      {"duration_ns.max", k->dur_max_ns},
      {"duration_ns_min", k->dur_min_ns}, /* the spelling before JSON paths */
      {"duration_ns_median", k->dur_median_ns},
      {"duration_ns_max", k->dur_max_ns},
      {"busiest_pipe.pct", k->busiest_pipe.metric ? k->busiest_pipe.pct : PC_NULL},
      {"busiest_memory.pct", k->busiest_memory.metric ? k->busiest_memory.pct : PC_NULL},
  };
  size_t n = sizeof t / sizeof t[0];
  _Static_assert(sizeof t / sizeof t[0] <= PC_NAMED_MAX, "PC_NAMED_MAX");
  memcpy(out, t, sizeof t);
  return n;
}

/* A name of the tables, with or without its block's JSON path
 * ("derived.", "attributes."); a derived value missing falls back to the
 * attribute of the same name (theoretical occupancy and waves come from the
 * launch alone when the counters are missing). */
static int pc_named_value(const pc_kernel *k, const char *name, double *v) {
  const char *bare = name;
  int in_derived = 0, in_attr = 0;
  if (strncmp(name, "derived.", 8) == 0) bare = name + 8, in_derived = 1;
  else if (strncmp(name, "attributes.", 11) == 0) bare = name + 11, in_attr = 1;
  const pc_field *df = in_attr ? NULL : pc_field_find(pc_derived_fields, pc_nderived_fields, bare);
  const pc_field *af = in_derived ? NULL : pc_field_find(pc_json_attributes, pc_json_nattributes, bare);
  if (df || af) {
    const double dv = df ? pc_field_value(&k->derived, df) : PC_NULL;
    const double av = af ? pc_field_value(&k->attr, af) : PC_NULL;
    *v = df ? pc_first(dv, av) : av;
    return 1;
  }
  if (in_derived || in_attr) return 0;
  const pc_field *kf = pc_field_find(pc_kernel_fields, pc_nkernel_fields, name);
  if (kf) {
    *v = pc_field_value(k, kf);
    return 1;
  }
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

/* The names pc_kernel_value knows beyond the metric table (launch__*
 * values, derived names, attributes, step, launches, durations): up to cap
 * of them into names (static strings); returns how many there are. */
static size_t pc_kernel_value_names(const char **names, size_t cap) {
  size_t n = 0;
#define PC_PUT(x)                 \
  do {                            \
    if (n < cap) names[n] = (x);  \
    n++;                          \
  } while (0)
  for (size_t i = 0; i < pc_nderived_fields; i++) PC_PUT(pc_derived_fields[i].key);
  for (size_t i = 0; i < pc_nkernel_fields; i++) PC_PUT(pc_kernel_fields[i].key);
  for (size_t i = 0; i < pc_json_nattributes; i++)
    if (!pc_field_find(pc_derived_fields, pc_nderived_fields, pc_json_attributes[i].key))
      PC_PUT(pc_json_attributes[i].key);
  pc_kernel k;
  pc_kernel_init(&k);
  pc_named t[PC_NAMED_MAX];
  size_t m = pc_named_table(&k, t);
  for (size_t i = 0; i < m; i++)
    if (!pc_field_find(pc_json_attributes, pc_json_nattributes, t[i].name) && strncmp(t[i].name, "duration_ns_", 12) != 0)
      PC_PUT(t[i].name);
#undef PC_PUT
  pc_kernel_free(&k);
  return n;
}

int pc_quantity_known(const char *name) {
  if (!name) return 0;
  if (!strcmp(name, "cause") || !strcmp(name, "bound") || !strcmp(name, "step")) return 1;
  if (pc_metric_lookup(name, NULL)) return 1;
  pc_kernel k;
  pc_kernel_init(&k);
  double v;
  const int known = pc_named_value(&k, name, &v);
  pc_kernel_free(&k);
  return known;
}

/* Levenshtein distance, for "did you mean"; names are short. */
static size_t pc_edit_distance(const char *a, const char *b) {
  size_t n = strlen(a), m = strlen(b);
  if (n > 128 || m > 128) return (size_t)-1;
  size_t row[130];
  for (size_t j = 0; j <= m; j++) row[j] = j;
  for (size_t i = 1; i <= n; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= m; j++) {
      size_t up = row[j];
      size_t best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[m];
}

size_t pc_quantity_nearest(const char *name, const char **out, size_t max) {
  if (!name || !out || max == 0) return 0;
  const char *names[PC_M_COUNT + 128];
  size_t n = 0;
  names[n++] = "cause";
  names[n++] = "bound";
  size_t extra = pc_kernel_value_names(names + n, sizeof names / sizeof names[0] - n - PC_M_COUNT);
  n += extra;
  const pc_metric_def *t = pc_metric_table();
  for (int i = 0; i < PC_M_COUNT; i++) names[n++] = t[i].name;
  const size_t limit = 3 + strlen(name) / 4; /* a typo, not another name */
  size_t got = 0;
  size_t dist[8];
  if (max > 8) max = 8;
  for (size_t i = 0; i < n; i++) {
    size_t d = pc_edit_distance(name, names[i]);
    /* A name that contains the given one ("bytes_per_sector" in
     * "bytes_per_sector_ld") is near too. */
    if (d > limit && strlen(name) >= 6 && strstr(names[i], name)) d = limit;
    if (d > limit) continue;
    int dup = 0;
    for (size_t j = 0; j < got && !dup; j++) dup = strcmp(out[j], names[i]) == 0;
    if (dup) continue;
    size_t at = got < max ? got++ : max;
    if (at == max) {
      if (d >= dist[max - 1]) continue;
      at = max - 1;
    }
    while (at > 0 && dist[at - 1] > d) {
      out[at] = out[at - 1];
      dist[at] = dist[at - 1];
      at--;
    }
    out[at] = names[i];
    dist[at] = d;
  }
  return got;
}

perfcheck_status pc_kernel_value(const pc_kernel *k, const char *name, double *out) {
  if (out) *out = PC_NULL;
  if (!k || !name || !out) return PERFCHECK_ERROR_INVALID_ARGUMENT;
  double v = PC_NULL;
  int found = 0;
  const char *mname = strncmp(name, "metrics.", 8) == 0 ? name + 8 : name; /* the JSON path */
  const pc_metric_def *m = pc_metric_lookup(mname, NULL);
  if (m) {
    v = k->metric[m->id];
    found = 1;
  } else if (pc_named_value(k, name, &v)) {
    found = 1;
  } else {
    for (size_t i = 0; i < k->nextra; i++) {
      if (k->extra_names && k->extra_names[i] && strcmp(k->extra_names[i], mname) == 0) {
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
