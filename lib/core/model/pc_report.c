/* The report model: allocation, growth, warnings.  Value lookup by name and
 * the short kernel name live in pc_values.c. */
#define _GNU_SOURCE /* secure_getenv */
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/pc_buf.h"
#include "model/pc_core.h"
#include "base/pc_util.h"

void pc_attributes_init(pc_attributes *a) {
  a->registers_per_thread = PC_NULL;
  a->static_smem = PC_NULL;
  a->dynamic_smem = PC_NULL;
  a->local_bytes_per_thread = PC_NULL;
  a->max_threads_per_block = PC_NULL;
  a->blocks_per_sm = PC_NULL;
  a->warps_per_sm = PC_NULL;
  a->theoretical_occupancy_pct = PC_NULL;
  a->limit_warps = a->limit_blocks = a->limit_registers = a->limit_shared_mem = PC_NULL;
  a->binding = PC_LIMIT_NONE;
  a->waves_per_sm = PC_NULL;
  a->model_blocks_per_sm = PC_NULL;
}

static void pc_finding_init(pc_finding *f) {
  memset(f, 0, sizeof *f);
  f->cause = PERFCHECK_CAUSE_NONE;
  f->value = PC_NULL;
  f->threshold = PC_NULL;
}

/* The verdict, the bound and no findings.  findings[] is not touched:
 * nothing reads past nfindings, and untouched memory stays out of the
 * resident set (a kernel entry is 16.2 KiB, 13.2 KiB of it findings[]; a
 * report of 100k entries is 1.6 GB when they are all written). */
static void pc_diagnosis_init(pc_diagnosis *d) {
  pc_finding_init(&d->verdict);
  d->bound = PERFCHECK_BOUND_UNKNOWN;
  d->borderline = 0;
  d->runner_up = PERFCHECK_CAUSE_NONE;
  d->runner_up_metric[0] = '\0';
  d->runner_up_value = d->runner_up_threshold = PC_NULL;
  d->gain.speedup = d->gain.saved_ns = PC_NULL;
  d->gain.basis[0] = '\0';
  d->library_advice[0] = '\0';
  memset(&d->stall, 0, sizeof d->stall);
  d->stall.per_issue = d->stall.share = d->stall.second_share = PC_NULL;
  d->nfindings = 0;
}

static void pc_derived_init(pc_derived *d) {
  double *p = (double *)d;
  for (size_t i = 0; i < sizeof *d / sizeof(double); i++) p[i] = PC_NULL;
}

void pc_kernel_init(pc_kernel *k) {
  memset(k, 0, offsetof(pc_kernel, diag)); /* and the diagnosis' head (pc_diagnosis_init) */
  k->dynamic_smem = PC_NULL;
  k->dur_min_ns = k->dur_median_ns = k->dur_max_ns = PC_NULL;
  k->total_ns = k->time_share = PC_NULL;
  k->busiest_pipe.pct = k->busiest_memory.pct = PC_NULL;
  k->counter_spread = PC_NULL;
  k->device_ordinal = -1;
  k->worth_changing = -1;
  pc_attributes_init(&k->attr);
  for (int i = 0; i < PC_M_COUNT; i++) k->metric[i] = PC_NULL;
  pc_derived_init(&k->derived);
  pc_diagnosis_init(&k->diag);
}

void pc_kernel_free(pc_kernel *k) {
  if (!k) return;
  free(k->name);
  free(k->mangled);
  free(k->demangled);
  free(k->display_name);
  free(k->region);
  free(k->not_measured_reason);
  free(k->graph_entry);
  free(k->rotation_note);
  for (size_t i = 0; i < k->ngraph_names; i++) free(k->graph_names[i]);
  free(k->graph_names);
  for (size_t i = 0; i < k->nextra; i++) free(k->extra_names[i]);
  free(k->extra_names);
  free(k->extra_values);
  memset(k, 0, offsetof(pc_kernel, diag)); /* (findings[] left alone: pc_diagnosis_init) */
  k->diag.nfindings = 0;
}

/* dst's strings and extra metrics made its own copies of src's (dst's other
 * fields already copied). */
static int pc_kernel_own(pc_kernel *dst, const pc_kernel *src) {
  dst->name = dst->mangled = dst->demangled = dst->display_name = dst->region = dst->not_measured_reason = NULL;
  dst->graph_entry = dst->rotation_note = NULL;
  dst->graph_names = NULL;
  dst->ngraph_names = 0;
  dst->extra_names = NULL;
  dst->extra_values = NULL;
  dst->nextra = 0;
  if ((src->name && !(dst->name = pc_strdup(src->name))) || (src->mangled && !(dst->mangled = pc_strdup(src->mangled))) ||
      (src->demangled && !(dst->demangled = pc_strdup(src->demangled))) ||
      (src->display_name && !(dst->display_name = pc_strdup(src->display_name))) ||
      (src->region && !(dst->region = pc_strdup(src->region))) ||
      (src->not_measured_reason && !(dst->not_measured_reason = pc_strdup(src->not_measured_reason))) ||
      (src->graph_entry && !(dst->graph_entry = pc_strdup(src->graph_entry))) ||
      (src->rotation_note && !(dst->rotation_note = pc_strdup(src->rotation_note))))
    return -1;
  if (src->ngraph_names && src->graph_names) {
    if (!(dst->graph_names = calloc(src->ngraph_names, sizeof *dst->graph_names))) return -1;
    dst->ngraph_names = src->ngraph_names; /* freed up to ngraph_names: NULLs are fine */
    for (size_t i = 0; i < src->ngraph_names; i++)
      if (src->graph_names[i] && !(dst->graph_names[i] = pc_strdup(src->graph_names[i]))) return -1;
  }
  if (src->nextra && src->extra_names) {
    dst->extra_names = calloc(src->nextra, sizeof *dst->extra_names);
    dst->extra_values = malloc(src->nextra * sizeof *dst->extra_values);
    if (!dst->extra_names || !dst->extra_values) return -1;
    dst->nextra = src->nextra; /* the names are freed up to nextra: NULLs are fine */
    for (size_t i = 0; i < src->nextra; i++) {
      dst->extra_values[i] = src->extra_values ? src->extra_values[i] : PC_NULL;
      if (src->extra_names[i] && !(dst->extra_names[i] = pc_strdup(src->extra_names[i]))) return -1;
    }
  }
  return 0;
}

int pc_kernel_copy(pc_kernel *dst, const pc_kernel *src) {
  *dst = *src;
  return pc_kernel_own(dst, src);
}

int pc_kernel_copy_head(pc_kernel *dst, const pc_kernel *src) {
  memcpy(dst, src, offsetof(pc_kernel, diag));
  dst->diag.verdict = src->diag.verdict;
  dst->diag.bound = src->diag.bound;
  dst->diag.nfindings = 0;
  return pc_kernel_own(dst, src);
}

void pc_region_init(pc_region *g) {
  memset(g, 0, offsetof(pc_region, diag));
  g->wall_ns = g->kernel_ns = g->kernel_sum_ns = g->memcpy_ns = g->memset_ns = PC_NULL;
  g->gpu_idle_ns = g->kernel_span_ns = g->median_kernel_ns = g->kernel_share = PC_NULL;
  g->short_kernel_ns = PC_NULL;
  g->profiling_ns = PC_NULL;
  g->communication_ns = g->compute_ns = g->communication_share = PC_NULL;
  g->rank = -1;
  pc_diagnosis_init(&g->diag);
}

void pc_region_free(pc_region *g) {
  if (!g) return;
  free(g->name);
  free(g->parent);
  free(g->devices);
  memset(g, 0, sizeof *g);
}

int pc_region_copy(pc_region *dst, const pc_region *src) {
  *dst = *src;
  dst->name = dst->parent = NULL;
  dst->devices = NULL;
  dst->ndevices = 0;
  if ((src->name && !(dst->name = pc_strdup(src->name))) || (src->parent && !(dst->parent = pc_strdup(src->parent))))
    return -1;
  if (src->ndevices && src->devices) {
    if (!(dst->devices = malloc(src->ndevices * sizeof *dst->devices))) return -1;
    memcpy(dst->devices, src->devices, src->ndevices * sizeof *dst->devices);
    dst->ndevices = src->ndevices;
  }
  return 0;
}

pc_report *pc_report_new(void) {
  pc_report *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  pc_device_init(&r->device);
  strcpy(r->source, "in-process");
  strcpy(r->metric_set, "none");
  r->step1_assessed = 1;
  r->cupti_preloaded = -1;
  r->rank = r->world_size = r->local_rank = -1;
  return r;
}

void pc_report_free(pc_report *r) {
  if (!r) return;
  for (size_t i = 0; i < r->nkernels; i++) pc_kernel_free(&r->kernels[i]);
  for (size_t i = 0; i < r->nregions; i++) pc_region_free(&r->regions[i]);
  for (size_t i = 0; i < r->nwarnings; i++) free(r->warnings[i]);
  free(r->kernels);
  free(r->regions);
  free(r->warnings);
  free(r);
}

pc_kernel *pc_report_add_kernel(pc_report *r) {
  if (pc_grow((void **)&r->kernels, &r->cap_kernels, r->nkernels + 1, sizeof *r->kernels)) return NULL;
  pc_kernel *k = &r->kernels[r->nkernels++];
  pc_kernel_init(k);
  return k;
}

pc_region *pc_report_add_region(pc_report *r) {
  if (pc_grow((void **)&r->regions, &r->cap_regions, r->nregions + 1, sizeof *r->regions)) return NULL;
  pc_region *g = &r->regions[r->nregions++];
  pc_region_init(g);
  return g;
}

/* The switch that lets the library write to stderr: PERFCHECK_VERBOSE set
 * and not "0" (perfcheck's -v sets it).  Read at each warning, so that a
 * program (or Python's os.environ) may turn it on at any time. */
int pc_verbose(void) {
  const char *v = secure_getenv("PERFCHECK_VERBOSE"); /* a privileged process reads no variable */
  return v && *v && strcmp(v, "0") != 0;
}

/* The one place a warning reaches stderr: only when verbose, and never when
 * the caller asked for quiet.  Otherwise it is in the report only (the text
 * report's "Warnings", JSON's "warnings"). */
int pc_report_warn(pc_report *r, int quiet, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (!quiet && pc_verbose()) pc_say("warning: %s", buf);
  if (!r) return 0;
  if (pc_grow((void **)&r->warnings, &r->cap_warnings, r->nwarnings + 1, sizeof *r->warnings)) return -1;
  char *d = pc_strdup(buf);
  if (!d) return -1;
  r->warnings[r->nwarnings++] = d;
  return 0;
}

int pc_kernel_counters_note(const pc_kernel *k, char *buf, size_t len) { /* one-channel-ok: report text, its result */
  const int rot = strncmp(k->replay, "rotate", 6) == 0;
  if (!len || k->is_graph || (!rot && !pc_has(k->counter_spread))) return 0;
  size_t n = 0;
  int w = 0;
  if (rot)
    w = snprintf(buf, len, "rotation%s, %d of %d groups, ",
                 strcmp(k->replay, "rotate+kernel") == 0 ? " finished by kernel replay in a later run of the region" : "",
                 k->groups_collected, k->groups);
  if (w > 0) n += (size_t)w;
  if (n < len) {
    w = snprintf(buf + n, len - n, "%llu profiled launch%s", (unsigned long long)k->profiled_launches,
                 k->profiled_launches == 1 ? "" : "es");
    if (w > 0) n += (size_t)w;
  }
  if (n < len && pc_has(k->counter_spread))
    snprintf(buf + n, len - n,
             "; the launches that measured a metric twice or more differ by up to %.1f%% of its mean "
             "(counter_spread %.3f)",
             k->counter_spread * 100.0, k->counter_spread);
  return 1;
}
