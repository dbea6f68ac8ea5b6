/* The snapshot of a region (pc_snapshot.h): construction, appending, freeing.
 * Reading and writing files: pc_snapshot_json.c; the builder:
 * pc_region_build.c. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pc_buf.h"
#include "model/pc_snapshot.h"
#include "base/pc_util.h"

static const char *const pc_np_names[PC_NP_COUNT_] = {"none",    "timing", "graph",   "filtered", "skipped",
                                                       "limit",   "failed", "capture", "nvtx",
                                                       "earlier_run", "communication", "graph_groups"};

const char *pc_not_profiled_name(pc_not_profiled np) {
  return (unsigned)np < PC_NP_COUNT_ ? pc_np_names[np] : NULL;
}

int pc_not_profiled_parse(const char *word) {
  for (int i = 0; word && i < PC_NP_COUNT_; i++)
    if (strcmp(word, pc_np_names[i]) == 0) return i;
  return -1;
}

pc_snapshot *pc_snapshot_new(void) {
  pc_snapshot *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->first_device = -1;
  s->cupti_preloaded = -1;
  return s;
}

static void pc_free_strings(char **v, size_t n) {
  for (size_t i = 0; v && i < n; i++) free(v[i]);
  free(v);
}

void pc_snapshot_free(pc_snapshot *s) {
  if (!s) return;
  free(s->name);
  free(s->parent);
  free(s->fault);
  free(s->counters_note);
  pc_free_strings(s->extra_names, s->nextra);
  pc_free_strings(s->rejected, s->nrejected);
  pc_free_strings(s->rejected_reason, s->nrejected);
  pc_free_strings(s->notes, s->nnotes);
  for (size_t i = 0; i < s->nsigs; i++) {
    free(s->sigs[i].mangled);
    free(s->sigs[i].attr_note);
  }
  for (size_t i = 0; i < s->nprofiled; i++) free(s->profiled[i].extra);
  free(s->contexts);
  free(s->devices);
  free(s->sigs);
  free(s->launches);
  free(s->profiled);
  free(s->memcpys);
  free(s->memsets);
  free(s->graph_launches);
  free(s);
}

/* One more element in *arr (n elements now).  The arrays stay plain (no
 * capacity field): one grown only here (pc_grow, doubling from a power of
 * two) or made by the harvest (a power of two at least n) holds at least
 * the smallest power of two >= n, which is the capacity pc_grow is told. */
static void *pc_append(void **arr, size_t *n, size_t sz) {
  size_t cap = 0; /* at least the smallest power of two >= n: what pc_grow or pc_snap_array gave it */
  if (*n) {
    cap = 1;
    while (cap < *n) cap *= 2;
  }
  if (pc_grow(arr, &cap, *n + 1, sz)) return NULL;
  char *e = (char *)*arr + *n * sz;
  memset(e, 0, sz);
  (*n)++;
  return e;
}

pc_snap_sig *pc_snapshot_add_sig(pc_snapshot *s) {
  pc_snap_sig *g = pc_append((void **)&s->sigs, &s->nsigs, sizeof *s->sigs);
  if (!g) return NULL;
  for (int i = 0; i < 3; i++) g->cluster[i] = 1;
  pc_attributes_init(&g->attr);
  return g;
}

pc_snap_context *pc_snapshot_add_context(pc_snapshot *s) {
  pc_snap_context *c = pc_append((void **)&s->contexts, &s->ncontexts, sizeof *s->contexts);
  if (c) c->device = -1;
  return c;
}

pc_snap_device *pc_snapshot_add_device(pc_snapshot *s) {
  pc_snap_device *d = pc_append((void **)&s->devices, &s->ndevices, sizeof *s->devices);
  if (!d) return NULL;
  d->ordinal = -1;
  pc_device_init(&d->facts);
  return d;
}

pc_snap_profiled *pc_snapshot_add_profiled(pc_snapshot *s) {
  pc_snap_profiled *p = pc_append((void **)&s->profiled, &s->nprofiled, sizeof *s->profiled);
  if (!p) return NULL;
  p->sig = UINT32_MAX;
  p->group = -1;
  for (int i = 0; i < PC_M_COUNT; i++) p->values[i] = PC_NULL;
  return p;
}

pc_snap_launch *pc_snapshot_add_launch(pc_snapshot *s) {
  return pc_append((void **)&s->launches, &s->nlaunches, sizeof *s->launches);
}

pc_snap_graph_launch *pc_snapshot_add_graph_launch(pc_snapshot *s) {
  return pc_append((void **)&s->graph_launches, &s->ngraph_launches, sizeof *s->graph_launches);
}

int pc_snapshot_add_transfer(pc_snapshot *s, int memset_kind, uint64_t start, uint64_t end, uint32_t kind) {
  pc_span *sp = memset_kind ? pc_append((void **)&s->memsets, &s->nmemsets, sizeof *s->memsets)
                            : pc_append((void **)&s->memcpys, &s->nmemcpys, sizeof *s->memcpys);
  if (!sp) return -1;
  sp->start = start;
  sp->end = end;
  sp->group = kind;
  return 0;
}

int pc_snapshot_add_note(pc_snapshot *s, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  char *d = pc_strdup(buf);
  char **slot = d ? pc_append((void **)&s->notes, &s->nnotes, sizeof *s->notes) : NULL;
  if (!slot) {
    free(d);
    return -1;
  }
  *slot = d;
  return 0;
}

const pc_device *pc_snapshot_device(const pc_snapshot *s, int ordinal) {
  for (size_t i = 0; s && ordinal >= 0 && i < s->ndevices; i++)
    if (s->devices[i].ordinal == ordinal) return &s->devices[i].facts;
  return NULL;
}

int pc_snapshot_file_name(const char *dir, const char *region, unsigned seq, char *out, size_t len) { /* one-channel-ok: the file name is its result */
  char safe[101];
  size_t n = 0;
  for (const char *p = region && *region ? region : "region"; *p && n < sizeof safe - 1; p++) {
    const char c = *p;
    const int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                   c == '-' || c == '_';
    safe[n++] = ok ? c : '_';
  }
  safe[n] = '\0';
  if (safe[0] == '.') safe[0] = '_'; /* no hidden files, no ".." */
  int w = seq >= 2 ? snprintf(out, len, "%s/%s.%u.json", dir, safe, seq) : snprintf(out, len, "%s/%s.json", dir, safe);
  return (w < 0 || (size_t)w >= len) ? -1 : 0;
}
