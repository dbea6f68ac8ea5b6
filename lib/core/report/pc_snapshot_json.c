/*
 * pc_snapshot_json.c: a region's snapshot as a JSON file and back
 * (schema "perfcheck-snapshot/1"; pc_snapshot.h says what each part is).
 *
 *   { "schema": "perfcheck-snapshot/1",
 *     "tool": {"version", "cupti": {"path", "version", "preloaded"} | null, "demangler"},
 *     "origin_ns": "1764500000000000000",       every time below is relative to it
 *     "region": {"name", "parent", "depth", "program", "begin", "end", "launch_calls", "failed_calls",
 *                "dropped_records", "zero_timestamp_records", "missing_records", "spans_lost", "fault",
 *                "first_device"},
 *     "counters": {"asked", "metric_set", "note", "passes", "via_substitute": [ncu names],
 *                  "extra": [names], "rejected": [{"name", "reason"}]},
 *     "notes": [...],
 *     "devices": [{"ordinal", "pci_bus_id", "facts": {the report's "device" keys}}],
 *     "contexts": [{"device", "pci_bus_id"}],
 *     "signatures": [{"mangled", "function" (optional: which compiled function), "context", "grid", "block", "cluster", "dynamic_smem", "not_profiled",
 *                     "attributes_from": "driver"|"record"|"none", "attributes_new", "attributes": {...},
 *                     "attributes_note", "record": {"registers", "static_smem", "local_per_thread"} | null,
 *                     "graph": {"id", "node"} (optional), "graph_exec": "E" (optional: a graph signature)}],
 *     "launches": {"columns": [...], "rows": [[start, end, signature, correlation, stream, "flags"], ...]},
 *     "profiled": [{"correlation", "signature", "inherited", "result", "enter", "exit", "passes",
 *                   "group" (rotation group, null: kernel replay), "groups", "cold" (optional),
 *                   "skipped" (optional: a graph launch whose group needs more than one pass),
 *                   "metrics": {ncu name: value}, "extra": [...]}],
 *     "graph_launches": [[correlation, signature], ...] (optional),
 *     "memcpys": [[start, end, kind], ...], "memsets": [[start, end], ...] }
 *
 * Times are signed nanoseconds from origin_ns, null when unknown: CUPTI's
 * clock counts from the epoch (about 2^60 ns), past the 2^53 a JSON number
 * holds exactly, while a region's offsets stay far below it.  Flags are
 * letters: P profiled, I inherited, N no timestamps, G graph, C captured.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/pc_fmt.h"
#include "base/pc_json_emit.h"
#include "read/pc_json.h"
#include "model/pc_snapshot.h"
#include "check/pc_check.h"
#include "report/pc_snapshot_json.h"
#include "base/pc_util.h"

/* ---- shared tables --------------------------------------------------------------------- */

typedef pc_json_field pc_sj_field; /* the tables are pc_json.h's */
#define PC_SJ_N(a) (sizeof a / sizeof a[0])

static const char *const pc_sj_attr_from[] = {"none", "driver", "record"};
static const struct {
  char letter;
  uint32_t flag;
} pc_sj_flags[] = {{'P', PC_SNAP_PROFILED}, {'I', PC_SNAP_INHERITED}, {'N', PC_SNAP_NOTIME},
                   {'G', PC_SNAP_GRAPH},    {'C', PC_SNAP_CAPTURED}};

/* ---- writing ------------------------------------------------------------------------------ */

typedef struct pc_sw {
  FILE *f;
  uint64_t origin;
} pc_sw;

static void pc_sw_time(const pc_sw *w, uint64_t t) {
  if (!t) {
    fputs("null", w->f);
    return;
  }
  if (t >= w->origin)
    fprintf(w->f, "%" PRIu64, t - w->origin);
  else
    fprintf(w->f, "-%" PRIu64, w->origin - t);
}

static void pc_sw_dim3(FILE *f, const unsigned v[3]) { fprintf(f, "[%u, %u, %u]", v[0], v[1], v[2]); }

static void pc_sw_device(FILE *f, const pc_device *d) {
  int first = 1;
  fputc('{', f);
  pc_json_key(f, "name", &first);
  pc_json_string(f, d->name[0] ? d->name : NULL);
  pc_json_key(f, "compute_capability", &first);
  if (d->cc_major >= 0 && d->cc_minor >= 0)
    fprintf(f, "\"%d.%d\"", d->cc_major, d->cc_minor);
  else
    fputs("null", f);
  for (size_t i = 0; i < pc_json_ndevice_ints; i++) {
    const int v = *(const int *)((const char *)d + pc_json_device_ints[i].offset);
    pc_json_key(f, pc_json_device_ints[i].key, &first);
    if (v < 0)
      fputs("null", f);
    else
      fprintf(f, "%d", v);
  }
  for (size_t i = 0; i < pc_json_ndevice_doubles; i++) {
    pc_json_key(f, pc_json_device_doubles[i].key, &first);
    pc_json_number(f, *(const double *)((const char *)d + pc_json_device_doubles[i].offset));
  }
  pc_json_key(f, "ceilings_source", &first);
  pc_json_string(f, d->ceilings_source[0] ? d->ceilings_source : NULL);
  fputc('}', f);
}

static void pc_sw_attributes(FILE *f, const pc_attributes *a) {
  int first = 1;
  fputc('{', f);
  for (size_t i = 0; i < pc_json_nattributes; i++) {
    pc_json_key(f, pc_json_attributes[i].key, &first);
    pc_json_number(f, *(const double *)((const char *)a + pc_json_attributes[i].offset));
  }
  pc_json_key(f, "binding_limit", &first);
  pc_json_string(f, a->binding == PC_LIMIT_NONE ? NULL : pc_limiter_name(a->binding));
  fputc('}', f);
}

static void pc_sw_strings(FILE *f, char *const *v, size_t n) {
  fputc('[', f);
  for (size_t i = 0; i < n; i++) {
    if (i) fputs(", ", f);
    pc_json_string(f, v[i]);
  }
  fputc(']', f);
}

/* The earliest known time: every offset is then small and non-negative. */
static uint64_t pc_sw_origin(const pc_snapshot *s) {
  uint64_t o = s->begin_ts;
#define PC_SW_MIN_(t)                 \
  do {                                \
    uint64_t t_ = (t);                \
    if (t_ && (!o || t_ < o)) o = t_; \
  } while (0)
  PC_SW_MIN_(s->end_ts);
  for (size_t i = 0; i < s->nlaunches; i++) PC_SW_MIN_(s->launches[i].start);
  for (size_t i = 0; i < s->nprofiled; i++) {
    PC_SW_MIN_(s->profiled[i].enter_ts);
    PC_SW_MIN_(s->profiled[i].exit_ts);
  }
  for (size_t i = 0; i < s->nmemcpys; i++) PC_SW_MIN_(s->memcpys[i].start);
  for (size_t i = 0; i < s->nmemsets; i++) PC_SW_MIN_(s->memsets[i].start);
#undef PC_SW_MIN_
  return o;
}

static void pc_sw_region(const pc_sw *w, const pc_snapshot *s) {
  FILE *f = w->f;
  fputs("  \"region\": {\"name\": ", f);
  pc_json_string(f, s->name);
  fputs(", \"parent\": ", f);
  pc_json_string(f, s->parent);
  fprintf(f, ", \"depth\": %d, \"program\": %s, \"begin\": ", s->depth, s->program ? "true" : "false");
  pc_sw_time(w, s->begin_ts);
  fputs(", \"end\": ", f);
  pc_sw_time(w, s->end_ts);
  fprintf(f,
          ",\n    \"launch_calls\": %" PRIu64 ", \"failed_calls\": %" PRIu64 ", \"dropped_records\": %" PRIu64
          ", \"zero_timestamp_records\": %" PRIu64 ", \"missing_records\": %" PRIu64 ", \"spans_lost\": %s,\n",
          s->launch_calls, s->failed_calls, s->dropped_records, s->zero_ts_records, s->missing_records,
          s->spans_lost ? "true" : "false");
  fputs("    \"fault\": ", f);
  pc_json_string(f, s->fault);
  fputs(", \"first_device\": ", f);
  if (s->first_device >= 0)
    fprintf(f, "%d", s->first_device);
  else
    fputs("null", f);
  fputs("},\n", f);
}

static void pc_sw_counters(FILE *f, const pc_snapshot *s) {
  const pc_metric_def *table = pc_metric_table();
  fprintf(f, "  \"counters\": {\"asked\": %s, \"metric_set\": ", s->counters ? "true" : "false");
  pc_json_string(f, s->metric_set[0] ? s->metric_set : NULL);
  fputs(", \"note\": ", f);
  pc_json_string(f, s->counters_note);
  fprintf(f, ", \"passes\": %d,\n    \"via_substitute\": [", s->passes);
  int first = 1;
  for (int m = 0; m < PC_M_COUNT; m++)
    if (s->via_substitute[m]) {
      if (!first) fputs(", ", f);
      first = 0;
      pc_json_string(f, table[m].name);
    }
  fputs("],\n    \"extra\": ", f);
  pc_sw_strings(f, s->extra_names, s->nextra);
  fputs(",\n    \"rejected\": [", f);
  for (size_t i = 0; i < s->nrejected; i++) {
    fputs(i ? ", {\"name\": " : "{\"name\": ", f);
    pc_json_string(f, s->rejected[i]);
    fputs(", \"reason\": ", f);
    pc_json_string(f, s->rejected_reason ? s->rejected_reason[i] : NULL);
    fputc('}', f);
  }
  fputs("]},\n", f);
}

static void pc_sw_sig(FILE *f, const pc_snap_sig *g) {
  fputs("    {\"mangled\": ", f);
  pc_json_string(f, g->mangled);
  fprintf(f, ", \"context\": %u, \"grid\": ", (unsigned)g->context);
  pc_sw_dim3(f, g->grid);
  fputs(", \"block\": ", f);
  pc_sw_dim3(f, g->block);
  fputs(", \"cluster\": ", f);
  pc_sw_dim3(f, g->cluster);
  fprintf(f, ", \"dynamic_smem\": %u, \"not_profiled\": ", g->dynamic_smem);
  pc_json_string(f, pc_not_profiled_name(g->not_profiled));
  fprintf(f, ",\n     \"attributes_from\": \"%s\", \"attributes_new\": %s, \"attributes\": ",
          pc_sj_attr_from[(unsigned)g->attr_from < 3 ? g->attr_from : 0], g->attr_new ? "true" : "false");
  pc_sw_attributes(f, &g->attr);
  fputs(",\n     \"attributes_note\": ", f);
  pc_json_string(f, g->attr_note);
  fputs(", \"record\": ", f);
  if (g->rec_valid)
    fprintf(f, "{\"registers\": %u, \"static_smem\": %u, \"local_per_thread\": %u}", g->rec_registers,
            g->rec_static_smem, g->rec_local);
  else
    fputs("null", f);
  if (g->graph_id) fprintf(f, ", \"graph\": {\"id\": %u, \"node\": %llu}", (unsigned)g->graph_id, (unsigned long long)g->graph_node);
  if (g->is_graph) fprintf(f, ", \"graph_exec\": \"%" PRIu64 "\"", g->graph_exec);
  if (g->function) fprintf(f, ", \"function\": %u", (unsigned)g->function);
  fputc('}', f);
}

static void pc_sw_profiled(const pc_sw *w, const pc_snapshot *s, const pc_snap_profiled *p) {
  FILE *f = w->f;
  const pc_metric_def *table = pc_metric_table();
  fprintf(f, "    {\"correlation\": %u, \"signature\": ", (unsigned)p->correlation_id);
  if (p->sig == UINT32_MAX)
    fputs("null", f);
  else
    fprintf(f, "%u", (unsigned)p->sig);
  fprintf(f, ", \"inherited\": %s, \"result\": %s, \"enter\": ", (p->flags & PC_SNAP_PROF_INHERITED) ? "true" : "false",
          (p->flags & PC_SNAP_PROF_RESULT) ? "true" : "false");
  pc_sw_time(w, p->enter_ts);
  fputs(", \"exit\": ", f);
  pc_sw_time(w, p->exit_ts);
  fprintf(f, ", \"passes\": %d, \"group\": ", p->passes);
  if (p->group < 0)
    fputs("null", f);
  else
    fprintf(f, "%d", p->group);
  fprintf(f, ", \"groups\": %d, \"cold\": %s,%s\n     \"metrics\": {", p->groups,
          (p->flags & PC_SNAP_PROF_COLD) ? "true" : "false", (p->flags & PC_SNAP_PROF_SKIPPED) ? " \"skipped\": true," : "");
  int first = 1;
  for (int m = 0; m < PC_M_COUNT; m++)
    if (pc_has(p->values[m])) {
      pc_json_key(f, table[m].name, &first);
      pc_json_number(f, p->values[m]);
    }
  fputs("}, \"extra\": ", f);
  if (p->extra) {
    fputc('[', f);
    for (size_t x = 0; x < s->nextra; x++) {
      if (x) fputs(", ", f);
      pc_json_number(f, p->extra[x]);
    }
    fputc(']', f);
  } else {
    fputs("null", f);
  }
  fputc('}', f);
}

perfcheck_status pc_snapshot_write_json(const pc_snapshot *s, FILE *f, pc_err *err) {
  pc_err_clear(err);
  if (!s || !f) return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "pc_snapshot_write_json: NULL argument");
  pc_locale_guard lg;
  pc_locale_begin(&lg);
  pc_sw w = {f, pc_sw_origin(s)};
  fprintf(f, "{\"schema\": \"%s\",\n  \"tool\": {\"name\": \"perfcheck\", \"version\": ", PC_SNAPSHOT_SCHEMA);
  pc_json_string(f, s->tool_version[0] ? s->tool_version : PERFCHECK_VERSION_STRING);
  fputs(", \"cupti\": ", f);
  if (s->cupti_path[0] || s->cupti_version) {
    fputs("{\"path\": ", f);
    pc_json_string(f, s->cupti_path[0] ? s->cupti_path : NULL);
    fprintf(f, ", \"version\": %u, \"preloaded\": %s}", s->cupti_version,
            s->cupti_preloaded < 0 ? "null" : s->cupti_preloaded ? "true" : "false");
  } else {
    fputs("null", f);
  }
  fputs(", \"demangler\": ", f);
  pc_json_string(f, s->demangler[0] ? s->demangler : NULL);
  fprintf(f, "},\n  \"origin_ns\": \"%" PRIu64 "\",\n", w.origin);
  pc_sw_region(&w, s);
  pc_sw_counters(f, s);
  fputs("  \"notes\": ", f);
  pc_sw_strings(f, s->notes, s->nnotes);
  fputs(",\n  \"devices\": [", f);
  for (size_t i = 0; i < s->ndevices; i++) {
    fprintf(f, "%s\n    {\"ordinal\": %d, \"pci_bus_id\": ", i ? "," : "", s->devices[i].ordinal);
    pc_json_string(f, s->devices[i].pci_bus_id[0] ? s->devices[i].pci_bus_id : NULL);
    fputs(", \"facts\": ", f);
    pc_sw_device(f, &s->devices[i].facts);
    fputc('}', f);
  }
  fputs("],\n  \"contexts\": [", f);
  for (size_t i = 0; i < s->ncontexts; i++) {
    fputs(i ? ", {\"device\": " : "{\"device\": ", f);
    if (s->contexts[i].device >= 0)
      fprintf(f, "%d", s->contexts[i].device);
    else
      fputs("null", f);
    fputs(", \"pci_bus_id\": ", f);
    pc_json_string(f, s->contexts[i].pci_bus_id[0] ? s->contexts[i].pci_bus_id : NULL);
    fputc('}', f);
  }
  fputs("],\n  \"signatures\": [", f);
  for (size_t i = 0; i < s->nsigs; i++) {
    fputs(i ? ",\n" : "\n", f);
    pc_sw_sig(f, &s->sigs[i]);
  }
  fputs("],\n  \"launches\": {\"columns\": [\"start\", \"end\", \"signature\", \"correlation\", \"stream\", \"flags\"],\n"
        "    \"rows\": [",
        f);
  for (size_t i = 0; i < s->nlaunches; i++) {
    const pc_snap_launch *l = &s->launches[i];
    fputs(i ? ",\n      [" : "\n      [", f);
    pc_sw_time(&w, (l->flags & PC_SNAP_NOTIME) ? 0 : l->start);
    fputs(", ", f);
    pc_sw_time(&w, (l->flags & PC_SNAP_NOTIME) ? 0 : l->end);
    fprintf(f, ", %u, %u, %u, \"", (unsigned)l->sig, (unsigned)l->correlation_id, (unsigned)l->stream);
    for (size_t k = 0; k < PC_SJ_N(pc_sj_flags); k++)
      if (l->flags & pc_sj_flags[k].flag) fputc(pc_sj_flags[k].letter, f);
    fputs("\"]", f);
  }
  fputs("]},\n  \"profiled\": [", f);
  for (size_t i = 0; i < s->nprofiled; i++) {
    fputs(i ? ",\n" : "\n", f);
    pc_sw_profiled(&w, s, &s->profiled[i]);
  }
  fputs("],\n  \"graph_launches\": [", f);
  for (size_t i = 0; i < s->ngraph_launches; i++)
    fprintf(f, "%s[%u, %u]", i ? ", " : "", (unsigned)s->graph_launches[i].correlation_id,
            (unsigned)s->graph_launches[i].sig);
  fputs("],\n  \"memcpys\": [", f);
  for (size_t i = 0; i < s->nmemcpys; i++) {
    fputs(i ? ", [" : "[", f);
    pc_sw_time(&w, s->memcpys[i].start);
    fputs(", ", f);
    pc_sw_time(&w, s->memcpys[i].end);
    fprintf(f, ", %u]", (unsigned)s->memcpys[i].group);
  }
  fputs("],\n  \"memsets\": [", f);
  for (size_t i = 0; i < s->nmemsets; i++) {
    fputs(i ? ", [" : "[", f);
    pc_sw_time(&w, s->memsets[i].start);
    fputs(", ", f);
    pc_sw_time(&w, s->memsets[i].end);
    fputc(']', f);
  }
  fputs("]\n}\n", f);
  pc_locale_end(&lg);
  if (fflush(f) != 0 || ferror(f)) return pc_err_set(err, PERFCHECK_ERROR_IO, "writing a snapshot failed");
  return PERFCHECK_OK;
}

/* ---- reading ----------------------------------------------------------------------------- */

typedef struct pc_sr {
  const char *data;
  size_t len;
  const char *name;
  pc_err *err;
  uint64_t origin;
  pc_snapshot *s;
} pc_sr;

#define PC_SR_TRY(x)                        \
  do {                                      \
    perfcheck_status st_ = (x);             \
    if (st_ != PERFCHECK_OK) return st_;    \
  } while (0)

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static perfcheck_status pc_sr_fail(pc_sr *r, const pc_json *at, const char *fmt, ...) {
  if (!r->err) return PERFCHECK_ERROR_PARSE;
  size_t line = 0, col = 0;
  pc_json_position(r->data, r->len, at ? at->offset : 0, &line, &col);
  char where[sizeof r->err->msg];
  snprintf(where, sizeof where, "%s:%zu:%zu: ", r->name ? r->name : "<snapshot>", line, col);
  va_list ap;
  va_start(ap, fmt);
  perfcheck_status st = pc_err_vset(r->err, PERFCHECK_ERROR_PARSE, where, fmt, ap);
  va_end(ap);
  return st;
}

static perfcheck_status pc_sr_oom(pc_sr *r) {
  return pc_err_set(r->err, PERFCHECK_ERROR_OUT_OF_MEMORY, "%s: out of memory", r->name ? r->name : "<snapshot>");
}

/* A member that must be there, of a type. */
static perfcheck_status pc_sr_member(pc_sr *r, const pc_json *obj, const char *key, pc_json_type type, int nullable,
                                     const pc_json **out) {
  const pc_json *v = pc_json_get(obj, key);
  *out = NULL;
  if (!v) return pc_sr_fail(r, obj, "missing \"%s\"", key);
  if (v->type == PC_JSON_NULL && nullable) return PERFCHECK_OK;
  const int ok = type == PC_JSON_TRUE ? (v->type == PC_JSON_TRUE || v->type == PC_JSON_FALSE) : v->type == type;
  if (!ok) return pc_sr_fail(r, v, "\"%s\" has the wrong type", key);
  *out = v;
  return PERFCHECK_OK;
}

static int pc_sr_is_int(double d, double lo, double hi) { return d == (double)(long long)d && d >= lo && d <= hi; }

static perfcheck_status pc_sr_int(pc_sr *r, const pc_json *obj, const char *key, double lo, double hi,
                                  double null_value, double *out) {
  const pc_json *v;
  PC_SR_TRY(pc_sr_member(r, obj, key, PC_JSON_NUMBER, 1, &v));
  if (!v) {
    if (pc_is_null(null_value)) return pc_sr_fail(r, obj, "\"%s\" must not be null", key);
    *out = null_value;
    return PERFCHECK_OK;
  }
  if (!pc_sr_is_int(v->number, lo, hi)) return pc_sr_fail(r, v, "\"%s\": an integer in [%.0f, %.0f] expected", key, lo, hi);
  *out = v->number;
  return PERFCHECK_OK;
}

static perfcheck_status pc_sr_u64(pc_sr *r, const pc_json *obj, const char *key, uint64_t *out) {
  double d = 0;
  PC_SR_TRY(pc_sr_int(r, obj, key, 0, 9007199254740992.0, PC_NULL, &d));
  *out = (uint64_t)d;
  return PERFCHECK_OK;
}

static perfcheck_status pc_sr_bool(pc_sr *r, const pc_json *obj, const char *key, int *out) {
  const pc_json *v;
  PC_SR_TRY(pc_sr_member(r, obj, key, PC_JSON_TRUE, 0, &v));
  *out = v->type == PC_JSON_TRUE;
  return PERFCHECK_OK;
}

static perfcheck_status pc_sr_strdup(pc_sr *r, const pc_json *obj, const char *key, char **out) {
  const pc_json *v;
  PC_SR_TRY(pc_sr_member(r, obj, key, PC_JSON_STRING, 1, &v));
  if (!v) return PERFCHECK_OK;
  if (!(*out = pc_strdup(v->string))) return pc_sr_oom(r);
  return PERFCHECK_OK;
}

static perfcheck_status pc_sr_strbuf(pc_sr *r, const pc_json *obj, const char *key, char *buf, size_t len) { /* one-channel-ok: the string read is its result */
  const pc_json *v;
  buf[0] = '\0';
  PC_SR_TRY(pc_sr_member(r, obj, key, PC_JSON_STRING, 1, &v));
  if (v && strlen(v->string) >= len) return pc_sr_fail(r, v, "\"%s\" is longer than %zu bytes", key, len - 1);
  if (v) snprintf(buf, len, "%s", v->string);
  return PERFCHECK_OK;
}

/* A time relative to the origin, or null (0). */
static perfcheck_status pc_sr_time_value(pc_sr *r, const pc_json *v, const char *what, uint64_t *out) {
  if (v->type == PC_JSON_NULL) {
    *out = 0;
    return PERFCHECK_OK;
  }
  if (v->type != PC_JSON_NUMBER || !pc_sr_is_int(v->number, -9007199254740992.0, 9007199254740992.0))
    return pc_sr_fail(r, v, "%s: an integer number of nanoseconds or null expected", what);
  const long long d = (long long)v->number;
  if (d < 0 && (uint64_t)(-d) > r->origin) return pc_sr_fail(r, v, "%s: before the clock's zero", what);
  *out = d < 0 ? r->origin - (uint64_t)(-d) : r->origin + (uint64_t)d;
  if (!*out) return pc_sr_fail(r, v, "%s: a time of 0 (write null for unknown)", what);
  return PERFCHECK_OK;
}

static perfcheck_status pc_sr_time(pc_sr *r, const pc_json *obj, const char *key, uint64_t *out) {
  const pc_json *v = pc_json_get(obj, key);
  if (!v) return pc_sr_fail(r, obj, "missing \"%s\"", key);
  return pc_sr_time_value(r, v, key, out);
}

static perfcheck_status pc_sr_dim3(pc_sr *r, const pc_json *obj, const char *key, unsigned out[3]) {
  const pc_json *v;
  PC_SR_TRY(pc_sr_member(r, obj, key, PC_JSON_ARRAY, 0, &v));
  if (v->n != 3) return pc_sr_fail(r, v, "\"%s\": three integers expected", key);
  for (int i = 0; i < 3; i++) {
    if (v->items[i].type != PC_JSON_NUMBER || !pc_sr_is_int(v->items[i].number, 0, 4294967295.0))
      return pc_sr_fail(r, &v->items[i], "\"%s\": three integers expected", key);
    out[i] = (unsigned)v->items[i].number;
  }
  return PERFCHECK_OK;
}

static perfcheck_status pc_sr_doubles(pc_sr *r, const pc_json *obj, void *base, const pc_sj_field *f, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const pc_json *v;
    PC_SR_TRY(pc_sr_member(r, obj, f[i].key, PC_JSON_NUMBER, 1, &v));
    *(double *)((char *)base + f[i].offset) = v ? v->number : PC_NULL;
  }
  return PERFCHECK_OK;
}

static perfcheck_status pc_sr_strings(pc_sr *r, const pc_json *arr, char ***out, size_t *n) {
  *out = NULL;
  *n = 0;
  if (!arr->n) return PERFCHECK_OK;
  if (!(*out = calloc(arr->n, sizeof **out))) return pc_sr_oom(r);
  for (size_t i = 0; i < arr->n; i++) {
    if (arr->items[i].type != PC_JSON_STRING) return pc_sr_fail(r, &arr->items[i], "a string expected");
    if (!((*out)[i] = pc_strdup(arr->items[i].string))) return pc_sr_oom(r);
    (*n)++;
  }
  return PERFCHECK_OK;
}

static perfcheck_status pc_sr_device(pc_sr *r, const pc_json *o, pc_device *d) {
  pc_device_init(d);
  PC_SR_TRY(pc_sr_strbuf(r, o, "name", d->name, sizeof d->name));
  const pc_json *cc;
  PC_SR_TRY(pc_sr_member(r, o, "compute_capability", PC_JSON_STRING, 1, &cc));
  if (cc) {
    int maj, min, used = 0;
    if (sscanf(cc->string, "%d.%d%n", &maj, &min, &used) != 2 || cc->string[used] || maj < 0 || min < 0)
      return pc_sr_fail(r, cc, "\"compute_capability\": \"MAJOR.MINOR\" expected");
    d->cc_major = maj, d->cc_minor = min;
  }
  for (size_t i = 0; i < pc_json_ndevice_ints; i++) {
    double v = 0;
    PC_SR_TRY(pc_sr_int(r, o, pc_json_device_ints[i].key, 0, 2147483647.0, -1, &v));
    *(int *)((char *)d + pc_json_device_ints[i].offset) = (int)v;
  }
  PC_SR_TRY(pc_sr_doubles(r, o, d, pc_json_device_doubles, pc_json_ndevice_doubles));
  return pc_sr_strbuf(r, o, "ceilings_source", d->ceilings_source, sizeof d->ceilings_source);
}

static perfcheck_status pc_sr_region(pc_sr *r, const pc_json *root) {
  pc_snapshot *s = r->s;
  const pc_json *g;
  PC_SR_TRY(pc_sr_member(r, root, "region", PC_JSON_OBJECT, 0, &g));
  PC_SR_TRY(pc_sr_strdup(r, g, "name", &s->name));
  if (!s->name) return pc_sr_fail(r, g, "a region without a name");
  PC_SR_TRY(pc_sr_strdup(r, g, "parent", &s->parent));
  double d = 0;
  PC_SR_TRY(pc_sr_int(r, g, "depth", 0, 1e6, PC_NULL, &d));
  s->depth = (int)d;
  PC_SR_TRY(pc_sr_bool(r, g, "program", &s->program));
  PC_SR_TRY(pc_sr_time(r, g, "begin", &s->begin_ts));
  PC_SR_TRY(pc_sr_time(r, g, "end", &s->end_ts));
  PC_SR_TRY(pc_sr_u64(r, g, "launch_calls", &s->launch_calls));
  PC_SR_TRY(pc_sr_u64(r, g, "failed_calls", &s->failed_calls));
  PC_SR_TRY(pc_sr_u64(r, g, "dropped_records", &s->dropped_records));
  PC_SR_TRY(pc_sr_u64(r, g, "zero_timestamp_records", &s->zero_ts_records));
  PC_SR_TRY(pc_sr_u64(r, g, "missing_records", &s->missing_records));
  PC_SR_TRY(pc_sr_bool(r, g, "spans_lost", &s->spans_lost));
  PC_SR_TRY(pc_sr_strdup(r, g, "fault", &s->fault));
  PC_SR_TRY(pc_sr_int(r, g, "first_device", 0, 65535, -1, &d));
  s->first_device = (int)d;
  return PERFCHECK_OK;
}

static perfcheck_status pc_sr_counters(pc_sr *r, const pc_json *root) {
  pc_snapshot *s = r->s;
  const pc_json *c, *v;
  PC_SR_TRY(pc_sr_member(r, root, "counters", PC_JSON_OBJECT, 0, &c));
  PC_SR_TRY(pc_sr_bool(r, c, "asked", &s->counters));
  PC_SR_TRY(pc_sr_strbuf(r, c, "metric_set", s->metric_set, sizeof s->metric_set));
  PC_SR_TRY(pc_sr_strdup(r, c, "note", &s->counters_note));
  double d = 0;
  PC_SR_TRY(pc_sr_int(r, c, "passes", 0, 1e6, PC_NULL, &d));
  s->passes = (int)d;
  PC_SR_TRY(pc_sr_member(r, c, "via_substitute", PC_JSON_ARRAY, 0, &v));
  for (size_t i = 0; i < v->n; i++) {
    const pc_metric_def *def =
        v->items[i].type == PC_JSON_STRING ? pc_metric_lookup(v->items[i].string, NULL) : NULL;
    if (!def) return pc_sr_fail(r, &v->items[i], "\"via_substitute\": a metric of the table expected");
    s->via_substitute[def->id] = 1;
  }
  PC_SR_TRY(pc_sr_member(r, c, "extra", PC_JSON_ARRAY, 0, &v));
  PC_SR_TRY(pc_sr_strings(r, v, &s->extra_names, &s->nextra));
  PC_SR_TRY(pc_sr_member(r, c, "rejected", PC_JSON_ARRAY, 0, &v));
  if (v->n) {
    if (!(s->rejected = calloc(v->n, sizeof *s->rejected)) || !(s->rejected_reason = calloc(v->n, sizeof *s->rejected_reason)))
      return pc_sr_oom(r);
    for (size_t i = 0; i < v->n; i++) {
      if (v->items[i].type != PC_JSON_OBJECT) return pc_sr_fail(r, &v->items[i], "\"rejected\": objects expected");
      s->nrejected++;
      PC_SR_TRY(pc_sr_strdup(r, &v->items[i], "name", &s->rejected[i]));
      PC_SR_TRY(pc_sr_strdup(r, &v->items[i], "reason", &s->rejected_reason[i]));
      if (!s->rejected[i]) return pc_sr_fail(r, &v->items[i], "a rejected metric without a name");
    }
  }
  return PERFCHECK_OK;
}

static perfcheck_status pc_sr_sig(pc_sr *r, const pc_json *o) {
  pc_snapshot *s = r->s;
  if (o->type != PC_JSON_OBJECT) return pc_sr_fail(r, o, "\"signatures\": objects expected");
  pc_snap_sig *g = pc_snapshot_add_sig(s);
  if (!g) return pc_sr_oom(r);
  PC_SR_TRY(pc_sr_strdup(r, o, "mangled", &g->mangled));
  double d = 0;
  PC_SR_TRY(pc_sr_int(r, o, "context", 0, 4294967295.0, PC_NULL, &d));
  g->context = (uint32_t)d;
  if (g->context >= s->ncontexts) return pc_sr_fail(r, pc_json_get(o, "context"), "\"context\": no such context");
  PC_SR_TRY(pc_sr_dim3(r, o, "grid", g->grid));
  PC_SR_TRY(pc_sr_dim3(r, o, "block", g->block));
  PC_SR_TRY(pc_sr_dim3(r, o, "cluster", g->cluster));
  PC_SR_TRY(pc_sr_int(r, o, "dynamic_smem", 0, 4294967295.0, PC_NULL, &d));
  g->dynamic_smem = (unsigned)d;
  const pc_json *v;
  PC_SR_TRY(pc_sr_member(r, o, "not_profiled", PC_JSON_STRING, 0, &v));
  const int np = pc_not_profiled_parse(v->string);
  if (np < 0) return pc_sr_fail(r, v, "\"not_profiled\": unknown reason \"%s\"", v->string);
  g->not_profiled = (pc_not_profiled)np;
  PC_SR_TRY(pc_sr_member(r, o, "attributes_from", PC_JSON_STRING, 0, &v));
  int from = -1;
  for (int i = 0; i < 3; i++)
    if (strcmp(v->string, pc_sj_attr_from[i]) == 0) from = i;
  if (from < 0) return pc_sr_fail(r, v, "\"attributes_from\": \"driver\", \"record\" or \"none\" expected");
  g->attr_from = (pc_snap_attr_from)from;
  PC_SR_TRY(pc_sr_bool(r, o, "attributes_new", &g->attr_new));
  PC_SR_TRY(pc_sr_member(r, o, "attributes", PC_JSON_OBJECT, 0, &v));
  PC_SR_TRY(pc_sr_doubles(r, v, &g->attr, pc_json_attributes, pc_json_nattributes));
  const pc_json *bl;
  PC_SR_TRY(pc_sr_member(r, v, "binding_limit", PC_JSON_STRING, 1, &bl));
  g->attr.binding = PC_LIMIT_NONE;
  if (bl) {
    int found = -1;
    for (int l = PC_LIMIT_NONE; l <= PC_LIMIT_SHARED_MEMORY; l++)
      if (strcmp(pc_limiter_name((pc_limiter)l), bl->string) == 0) found = l;
    if (found < 0) return pc_sr_fail(r, bl, "\"binding_limit\": unknown limiter \"%s\"", bl->string);
    g->attr.binding = (pc_limiter)found;
  }
  PC_SR_TRY(pc_sr_strdup(r, o, "attributes_note", &g->attr_note));
  PC_SR_TRY(pc_sr_member(r, o, "record", PC_JSON_OBJECT, 1, &v));
  if (v) {
    g->rec_valid = 1;
    PC_SR_TRY(pc_sr_int(r, v, "registers", 0, 65535, PC_NULL, &d));
    g->rec_registers = (unsigned)d;
    PC_SR_TRY(pc_sr_int(r, v, "static_smem", 0, 4294967295.0, PC_NULL, &d));
    g->rec_static_smem = (unsigned)d;
    PC_SR_TRY(pc_sr_int(r, v, "local_per_thread", 0, 4294967295.0, PC_NULL, &d));
    g->rec_local = (unsigned)d;
  }
  if (pc_json_get(o, "graph")) { /* optional: a graph kernel's graph and node */
    PC_SR_TRY(pc_sr_member(r, o, "graph", PC_JSON_OBJECT, 0, &v));
    PC_SR_TRY(pc_sr_int(r, v, "id", 1, 4294967295.0, PC_NULL, &d));
    g->graph_id = (uint32_t)d;
    PC_SR_TRY(pc_sr_int(r, v, "node", 0, 9007199254740992.0, PC_NULL, &d));
    g->graph_node = (uint64_t)d;
  }
  if (pc_json_get(o, "function")) { /* optional: older snapshots merged functions of one name */
    PC_SR_TRY(pc_sr_int(r, o, "function", 1, 4294967295.0, PC_NULL, &d));
    g->function = (uint32_t)d;
  }
  if (pc_json_get(o, "graph_exec")) { /* optional: a graph signature */
    PC_SR_TRY(pc_sr_member(r, o, "graph_exec", PC_JSON_STRING, 0, &v));
    char *end = NULL;
    errno = 0;
    const unsigned long long e = strtoull(v->string, &end, 10);
    if (errno || !end || *end || !v->string[0] || v->string[0] == '-')
      return pc_sr_fail(r, v, "\"graph_exec\": a decimal graph exec id expected");
    g->is_graph = 1;
    g->graph_exec = (uint64_t)e;
  }
  return PERFCHECK_OK;
}

static perfcheck_status pc_sr_graph_launches(pc_sr *r, const pc_json *root) {
  pc_snapshot *s = r->s;
  if (!pc_json_get(root, "graph_launches")) return PERFCHECK_OK; /* optional: older snapshots lack it */
  const pc_json *a;
  PC_SR_TRY(pc_sr_member(r, root, "graph_launches", PC_JSON_ARRAY, 0, &a));
  for (size_t i = 0; i < a->n; i++) {
    const pc_json *row = &a->items[i];
    if (row->type != PC_JSON_ARRAY || row->n != 2 || row->items[0].type != PC_JSON_NUMBER ||
        row->items[1].type != PC_JSON_NUMBER || !pc_sr_is_int(row->items[0].number, 0, 4294967295.0) ||
        !pc_sr_is_int(row->items[1].number, 0, 4294967295.0))
      return pc_sr_fail(r, row, "a graph launch is [correlation, signature]");
    const uint32_t sig = (uint32_t)row->items[1].number;
    if (sig >= s->nsigs || !s->sigs[sig].is_graph)
      return pc_sr_fail(r, &row->items[1], "a graph launch names no listed graph signature");
    pc_snap_graph_launch *g = pc_snapshot_add_graph_launch(s);
    if (!g) return pc_sr_oom(r);
    g->correlation_id = (uint32_t)row->items[0].number;
    g->sig = sig;
  }
  return PERFCHECK_OK;
}

static perfcheck_status pc_sr_launches(pc_sr *r, const pc_json *root) {
  pc_snapshot *s = r->s;
  const pc_json *l, *rows;
  PC_SR_TRY(pc_sr_member(r, root, "launches", PC_JSON_OBJECT, 0, &l));
  PC_SR_TRY(pc_sr_member(r, l, "rows", PC_JSON_ARRAY, 0, &rows));
  if (rows->n && !(s->launches = calloc(rows->n, sizeof *s->launches))) return pc_sr_oom(r);
  for (size_t i = 0; i < rows->n; i++) {
    const pc_json *row = &rows->items[i];
    if (row->type != PC_JSON_ARRAY || row->n != 6 || row->items[5].type != PC_JSON_STRING)
      return pc_sr_fail(r, row, "a launch row is [start, end, signature, correlation, stream, \"flags\"]");
    pc_snap_launch *x = &s->launches[i];
    PC_SR_TRY(pc_sr_time_value(r, &row->items[0], "start", &x->start));
    PC_SR_TRY(pc_sr_time_value(r, &row->items[1], "end", &x->end));
    for (int k = 2; k < 5; k++)
      if (row->items[k].type != PC_JSON_NUMBER || !pc_sr_is_int(row->items[k].number, 0, 4294967295.0))
        return pc_sr_fail(r, &row->items[k], "a launch row's signature, correlation and stream are integers");
    x->sig = (uint32_t)row->items[2].number;
    x->correlation_id = (uint32_t)row->items[3].number;
    x->stream = (uint32_t)row->items[4].number;
    if (x->sig >= s->nsigs) return pc_sr_fail(r, &row->items[2], "a launch of no listed signature");
    for (const char *p = row->items[5].string; *p; p++) {
      uint32_t f = 0;
      for (size_t k = 0; k < PC_SJ_N(pc_sj_flags); k++)
        if (*p == pc_sj_flags[k].letter) f = pc_sj_flags[k].flag;
      if (!f) return pc_sr_fail(r, &row->items[5], "unknown launch flag '%c'", *p);
      x->flags |= f;
    }
    if ((x->flags & PC_SNAP_NOTIME) ? (x->start || x->end) : (!x->start || !x->end || x->end < x->start))
      return pc_sr_fail(r, row, "a launch's start and end: both null with flag N, else start <= end");
    s->nlaunches++;
  }
  return PERFCHECK_OK;
}

static perfcheck_status pc_sr_profiled(pc_sr *r, const pc_json *o) {
  pc_snapshot *s = r->s;
  if (o->type != PC_JSON_OBJECT) return pc_sr_fail(r, o, "\"profiled\": objects expected");
  pc_snap_profiled *p = pc_snapshot_add_profiled(s);
  if (!p) return pc_sr_oom(r);
  double d = 0;
  PC_SR_TRY(pc_sr_int(r, o, "correlation", 0, 4294967295.0, PC_NULL, &d));
  p->correlation_id = (uint32_t)d;
  PC_SR_TRY(pc_sr_int(r, o, "signature", 0, 4294967294.0, 4294967295.0, &d));
  p->sig = (uint32_t)d;
  if (p->sig != UINT32_MAX && p->sig >= s->nsigs)
    return pc_sr_fail(r, pc_json_get(o, "signature"), "a profiled launch of no listed signature");
  int b = 0;
  PC_SR_TRY(pc_sr_bool(r, o, "inherited", &b));
  if (b) p->flags |= PC_SNAP_PROF_INHERITED;
  PC_SR_TRY(pc_sr_bool(r, o, "result", &b));
  if (b) p->flags |= PC_SNAP_PROF_RESULT;
  PC_SR_TRY(pc_sr_time(r, o, "enter", &p->enter_ts));
  PC_SR_TRY(pc_sr_time(r, o, "exit", &p->exit_ts));
  PC_SR_TRY(pc_sr_int(r, o, "passes", 0, 1e6, PC_NULL, &d));
  p->passes = (int)d;
  /* Rotation (optional; older snapshots have none: kernel replay). */
  if (pc_json_get(o, "group")) {
    PC_SR_TRY(pc_sr_int(r, o, "group", 0, 1e6, -1, &d));
    p->group = (int)d;
    PC_SR_TRY(pc_sr_int(r, o, "groups", 0, 1e6, PC_NULL, &d));
    p->groups = (int)d;
    PC_SR_TRY(pc_sr_bool(r, o, "cold", &b));
    if (b) p->flags |= PC_SNAP_PROF_COLD;
    if (p->group >= 0 && p->group >= p->groups)
      return pc_sr_fail(r, pc_json_get(o, "group"), "\"group\" must be below \"groups\"");
  }
  if (pc_json_get(o, "skipped")) { /* optional */
    PC_SR_TRY(pc_sr_bool(r, o, "skipped", &b));
    if (b) p->flags |= PC_SNAP_PROF_SKIPPED;
  }
  const pc_json *m, *x;
  PC_SR_TRY(pc_sr_member(r, o, "metrics", PC_JSON_OBJECT, 0, &m));
  for (size_t i = 0; i < m->n; i++) {
    const pc_metric_def *def = pc_metric_lookup(m->keys[i], NULL);
    if (!def) return pc_sr_fail(r, &m->items[i], "\"%s\" is not a metric of the table", m->keys[i]);
    if (m->items[i].type != PC_JSON_NUMBER && m->items[i].type != PC_JSON_NULL)
      return pc_sr_fail(r, &m->items[i], "\"%s\": a number or null expected", m->keys[i]);
    p->values[def->id] = m->items[i].type == PC_JSON_NUMBER ? m->items[i].number : PC_NULL;
  }
  PC_SR_TRY(pc_sr_member(r, o, "extra", PC_JSON_ARRAY, 1, &x));
  if (x) {
    if (x->n != s->nextra) return pc_sr_fail(r, x, "\"extra\": %zu values expected", s->nextra);
    if (s->nextra && !(p->extra = malloc(s->nextra * sizeof *p->extra))) return pc_sr_oom(r);
    for (size_t i = 0; i < x->n; i++) {
      if (x->items[i].type != PC_JSON_NUMBER && x->items[i].type != PC_JSON_NULL)
        return pc_sr_fail(r, &x->items[i], "\"extra\": numbers or null expected");
      p->extra[i] = x->items[i].type == PC_JSON_NUMBER ? x->items[i].number : PC_NULL;
    }
  }
  return PERFCHECK_OK;
}

static perfcheck_status pc_sr_transfers(pc_sr *r, const pc_json *root, const char *key, int is_memset) {
  const pc_json *a;
  PC_SR_TRY(pc_sr_member(r, root, key, PC_JSON_ARRAY, 0, &a));
  const size_t want = is_memset ? 2 : 3;
  for (size_t i = 0; i < a->n; i++) {
    const pc_json *row = &a->items[i];
    if (row->type != PC_JSON_ARRAY || row->n != want) return pc_sr_fail(r, row, "\"%s\": rows of %zu numbers", key, want);
    uint64_t b = 0, e = 0;
    PC_SR_TRY(pc_sr_time_value(r, &row->items[0], key, &b));
    PC_SR_TRY(pc_sr_time_value(r, &row->items[1], key, &e));
    if (!b || e < b) return pc_sr_fail(r, row, "\"%s\": start <= end expected", key);
    uint32_t kind = 0;
    if (!is_memset) {
      if (row->items[2].type != PC_JSON_NUMBER || !pc_sr_is_int(row->items[2].number, 0, 4294967295.0))
        return pc_sr_fail(r, &row->items[2], "\"%s\": a copy kind expected", key);
      kind = (uint32_t)row->items[2].number;
    }
    if (pc_snapshot_add_transfer(r->s, is_memset, b, e, kind)) return pc_sr_oom(r);
  }
  return PERFCHECK_OK;
}

static perfcheck_status pc_sr_tool(pc_sr *r, const pc_json *root) {
  pc_snapshot *s = r->s;
  const pc_json *t, *c;
  PC_SR_TRY(pc_sr_member(r, root, "tool", PC_JSON_OBJECT, 0, &t));
  PC_SR_TRY(pc_sr_strbuf(r, t, "version", s->tool_version, sizeof s->tool_version));
  PC_SR_TRY(pc_sr_strbuf(r, t, "demangler", s->demangler, sizeof s->demangler));
  PC_SR_TRY(pc_sr_member(r, t, "cupti", PC_JSON_OBJECT, 1, &c));
  if (c) {
    PC_SR_TRY(pc_sr_strbuf(r, c, "path", s->cupti_path, sizeof s->cupti_path));
    double d = 0;
    PC_SR_TRY(pc_sr_int(r, c, "version", 0, 4294967295.0, 0, &d));
    s->cupti_version = (unsigned)d;
    const pc_json *pl;
    PC_SR_TRY(pc_sr_member(r, c, "preloaded", PC_JSON_TRUE, 1, &pl));
    s->cupti_preloaded = pl ? pl->type == PC_JSON_TRUE : -1;
  }
  return PERFCHECK_OK;
}

static perfcheck_status pc_sr_document(pc_sr *r, const pc_json *root) {
  pc_snapshot *s = r->s;
  if (root->type != PC_JSON_OBJECT) return pc_sr_fail(r, root, "not a perfcheck snapshot (not a JSON object)");
  const pc_json *v = pc_json_get(root, "schema");
  if (!v || v->type != PC_JSON_STRING || strcmp(v->string, PC_SNAPSHOT_SCHEMA) != 0)
    return pc_sr_fail(r, v ? v : root, "not a perfcheck snapshot (\"schema\" must be \"%s\")", PC_SNAPSHOT_SCHEMA);
  PC_SR_TRY(pc_sr_member(r, root, "origin_ns", PC_JSON_STRING, 0, &v));
  char *end = NULL;
  errno = 0;
  const unsigned long long o = strtoull(v->string, &end, 10);
  if (errno || !end || *end || !v->string[0] || v->string[0] == '-')
    return pc_sr_fail(r, v, "\"origin_ns\": a decimal number of nanoseconds expected");
  r->origin = (uint64_t)o;
  PC_SR_TRY(pc_sr_tool(r, root));
  PC_SR_TRY(pc_sr_region(r, root));
  PC_SR_TRY(pc_sr_counters(r, root));
  PC_SR_TRY(pc_sr_member(r, root, "notes", PC_JSON_ARRAY, 0, &v));
  PC_SR_TRY(pc_sr_strings(r, v, &s->notes, &s->nnotes));
  PC_SR_TRY(pc_sr_member(r, root, "devices", PC_JSON_ARRAY, 0, &v));
  for (size_t i = 0; i < v->n; i++) {
    const pc_json *o2 = &v->items[i], *f;
    if (o2->type != PC_JSON_OBJECT) return pc_sr_fail(r, o2, "\"devices\": objects expected");
    pc_snap_device *d = pc_snapshot_add_device(s);
    if (!d) return pc_sr_oom(r);
    double ord = 0;
    PC_SR_TRY(pc_sr_int(r, o2, "ordinal", 0, 65535, PC_NULL, &ord));
    d->ordinal = (int)ord;
    PC_SR_TRY(pc_sr_strbuf(r, o2, "pci_bus_id", d->pci_bus_id, sizeof d->pci_bus_id));
    PC_SR_TRY(pc_sr_member(r, o2, "facts", PC_JSON_OBJECT, 0, &f));
    PC_SR_TRY(pc_sr_device(r, f, &d->facts));
  }
  PC_SR_TRY(pc_sr_member(r, root, "contexts", PC_JSON_ARRAY, 0, &v));
  for (size_t i = 0; i < v->n; i++) {
    const pc_json *o2 = &v->items[i];
    if (o2->type != PC_JSON_OBJECT) return pc_sr_fail(r, o2, "\"contexts\": objects expected");
    pc_snap_context *c = pc_snapshot_add_context(s);
    if (!c) return pc_sr_oom(r);
    double dev = 0;
    PC_SR_TRY(pc_sr_int(r, o2, "device", 0, 65535, -1, &dev));
    c->device = (int)dev;
    PC_SR_TRY(pc_sr_strbuf(r, o2, "pci_bus_id", c->pci_bus_id, sizeof c->pci_bus_id));
  }
  PC_SR_TRY(pc_sr_member(r, root, "signatures", PC_JSON_ARRAY, 0, &v));
  for (size_t i = 0; i < v->n; i++) PC_SR_TRY(pc_sr_sig(r, &v->items[i]));
  PC_SR_TRY(pc_sr_launches(r, root));
  PC_SR_TRY(pc_sr_member(r, root, "profiled", PC_JSON_ARRAY, 0, &v));
  for (size_t i = 0; i < v->n; i++) PC_SR_TRY(pc_sr_profiled(r, &v->items[i]));
  PC_SR_TRY(pc_sr_graph_launches(r, root));
  PC_SR_TRY(pc_sr_transfers(r, root, "memcpys", 0));
  return pc_sr_transfers(r, root, "memsets", 1);
}

perfcheck_status pc_snapshot_from_json_text(const char *data, size_t len, const char *name, pc_snapshot **out,
                                            pc_err *err) {
  pc_err_clear(err);
  if (!data || !out) return PERFCHECK_ERROR_INVALID_ARGUMENT;
  *out = NULL;
  pc_json doc;
  perfcheck_status st = pc_json_parse(data, len, name, &doc, err);
  if (st != PERFCHECK_OK) return st;
  pc_sr r = {data, len, name, err, 0, pc_snapshot_new()};
  st = r.s ? pc_sr_document(&r, &doc) : pc_sr_oom(&r);
  pc_json_free(&doc);
  if (st != PERFCHECK_OK) {
    pc_snapshot_free(r.s);
    return st;
  }
  *out = r.s;
  return PERFCHECK_OK;
}

perfcheck_status pc_snapshot_load(const char *path, pc_snapshot **out, pc_err *err) {
  pc_err_clear(err);
  if (out) *out = NULL;
  if (!path || !out) return PERFCHECK_ERROR_INVALID_ARGUMENT;
  char *data = NULL;
  size_t n = 0;
  perfcheck_status st = pc_read_file(path, (size_t)1 << 30, "a snapshot", &data, &n, err);
  if (st != PERFCHECK_OK) return st;
  st = pc_snapshot_from_json_text(data, n, path, out, err);
  free(data);
  return st;
}
