/* Names and values: the short kernel name, value lookup by name (ncu
 * metrics, launch__* values, derived names), and the public report
 * accessors. */
#include <stdlib.h>
#include <string.h>

#include "pc_core.h"

/* ---- Short kernel names --------------------------------------------------- */

static int pc_is_ident(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Marks the characters of operator symbols ("operator()", "operator<<",
 * "operator->") as neutral so they do not count as brackets. */
static void pc_mark_operators(const char *s, size_t n, unsigned char *neutral) {
  static const char kw[] = "operator";
  const size_t kwlen = sizeof kw - 1;
  for (size_t i = 0; i + kwlen <= n; i++) {
    if (strncmp(s + i, kw, kwlen) != 0) continue;
    if (i > 0 && pc_is_ident(s[i - 1])) continue;
    size_t j = i + kwlen;
    if (j < n && pc_is_ident(s[j])) continue; /* "operators", "operator_x" */
    while (j < n && s[j] == ' ') j++;
    if (j + 1 < n && ((s[j] == '(' && s[j + 1] == ')') || (s[j] == '[' && s[j + 1] == ']'))) {
      neutral[j] = neutral[j + 1] = 1;
      continue;
    }
    while (j < n && strchr("+-*/%^&|~!=<>,", s[j])) neutral[j++] = 1;
  }
}

static int pc_opens(char c) { return c == '(' || c == '<' || c == '['; }
static int pc_closes(char c) { return c == ')' || c == '>' || c == ']'; }

/* The demangled name without its return type and parameter list:
 *   "void scaleAdd<4>(float, const float *, ...)"  -> "scaleAdd<4>"
 *   "void ns::k<(int)2>(float *)"                   -> "ns::k<(int)2>"
 *   "void Functor::operator()(int)"                 -> "Functor::operator()"
 *   "mysteryA"                                      -> "mysteryA"
 * The parameter list is the last bracket group at depth 0 when the name ends
 * with ')'; the return type is whatever precedes the last space at depth 0. */
char *pc_kernel_short_name(const char *demangled, char *out, size_t outlen) {
  if (!out || outlen == 0) return out;
  out[0] = '\0';
  if (!demangled) return out;
  while (*demangled == ' ' || *demangled == '\t') demangled++;
  size_t n = strlen(demangled);
  while (n > 0 && (demangled[n - 1] == ' ' || demangled[n - 1] == '\t' || demangled[n - 1] == '\n')) n--;
  if (n == 0) return out;

  unsigned char small[256];
  unsigned char *neutral = n <= sizeof small ? small : calloc(n, 1);
  if (!neutral) { /* no memory: keep the name as given, truncated */
    size_t c = n < outlen - 1 ? n : outlen - 1;
    memcpy(out, demangled, c);
    out[c] = '\0';
    return out;
  }
  if (neutral == small) memset(small, 0, sizeof small);
  pc_mark_operators(demangled, n, neutral);

  /* Forward scan: the start of the last depth-0 group and the last depth-0
   * space.  Unbalanced closers are ignored (depth never goes negative). */
  size_t end = n;
  long depth = 0;
  size_t last_group = (size_t)-1, last_space = (size_t)-1;
  for (size_t i = 0; i < n; i++) {
    char c = demangled[i];
    if (neutral[i]) continue;
    if (pc_opens(c)) {
      if (depth == 0 && c == '(') last_group = i;
      depth++;
    } else if (pc_closes(c)) {
      if (depth > 0) depth--;
    } else if (c == ' ' && depth == 0) {
      last_space = i;
    }
  }
  /* The parameter list: a depth-0 '(' group that runs to the end. */
  if (demangled[n - 1] == ')' && !neutral[n - 1] && last_group != (size_t)-1 && depth == 0) end = last_group;
  /* The return type: the last depth-0 space before the parameter list. */
  size_t start = 0;
  if (last_space != (size_t)-1 && last_space < end) start = last_space + 1;
  /* A space inside the parameter list was not at depth 0; but "k (int)" with
   * a space before '(' leaves a trailing space: trim it. */
  while (end > start && demangled[end - 1] == ' ') end--;
  if (end <= start) { /* nothing left: keep the whole name */
    start = 0;
    end = n;
  }
  size_t len = end - start;
  if (len > outlen - 1) len = outlen - 1;
  memcpy(out, demangled + start, len);
  out[len] = '\0';
  if (neutral != small) free(neutral);
  return out;
}

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
