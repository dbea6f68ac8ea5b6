/* docs/report-contract.md is the contract: its "Every field" table lists
 * exactly the paths the JSON writer writes, and its metric table lists
 * exactly the metric table of the code (lib/core/model/pc_metrics.c).  A report
 * with every part present (a region, a kernel with findings and an added
 * metric, a substitute counter, both busiest units) is written, parsed back
 * with the library's strict JSON reader, and its paths compared with the
 * document's, both ways. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/pc_core.h"
#include "read/pc_json.h"
#include "check/pc_check.h"
#include "write/pc_write.h"

#define MAXP 512
typedef struct paths {
  char *p[MAXP];
  size_t n;
} paths;

static void add(paths *s, const char *p) {
  for (size_t i = 0; i < s->n; i++)
    if (strcmp(s->p[i], p) == 0) return;
  assert_true(s->n < MAXP);
  s->p[s->n++] = strdup(p);
}
static int has(const paths *s, const char *p) {
  for (size_t i = 0; i < s->n; i++)
    if (strcmp(s->p[i], p) == 0) return 1;
  return 0;
}
static void free_paths(paths *s) {
  for (size_t i = 0; i < s->n; i++) free(s->p[i]);
  s->n = 0;
}

static char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) fail_msg("cannot open %s", path);
  char *buf = NULL;
  size_t cap = 0;
  FILE *m = open_memstream(&buf, &cap);
  char chunk[4096];
  size_t k;
  while ((k = fread(chunk, 1, sizeof chunk, f)) > 0) fwrite(chunk, 1, k, m);
  fclose(f);
  fclose(m);
  *len = cap;
  return buf;
}

/* The document's paths: the first column of the "Every field" table. */
static void doc_paths(paths *s) {
  size_t len;
  char *doc = read_all(PERFCHECK_SOURCE_DIR "/docs/report-contract.md", &len);
  char *start = strstr(doc, "\n## Every field");
  if (!start) fail_msg("docs/report-contract.md has no \"## Every field\" section");
  for (char *line = start + 1; (line = strchr(line, '\n')); ) {
    line++;
    if (strncmp(line, "## ", 3) == 0) break;
    if (strncmp(line, "| `", 3) != 0) continue;
    char *end = strchr(line + 3, '`');
    if (!end) continue;
    char path[256];
    snprintf(path, sizeof path, "%.*s", (int)(end - line - 3), line + 3);
    add(s, path);
  }
  free(doc);
  assert_true(s->n > 50);
}

/* The written paths; metric names become <ncu metric name>, and every
 * diagnosis' fields are written as "*.diagnosis..." as the document does. */
static void walk(const pc_json *v, const char *prefix, paths *s) {
  if (v->type == PC_JSON_OBJECT) {
    for (size_t i = 0; i < v->n; i++) {
      char p[512];
      const char *key = v->keys[i];
      const size_t pl = strlen(prefix);
      const int metric_map = (pl >= 7 && strcmp(prefix + pl - 7, "metrics") == 0) ||
                             (pl >= 14 && strcmp(prefix + pl - 14, "metric_sources") == 0);
      if (metric_map) key = "<ncu metric name>";
      snprintf(p, sizeof p, "%s%s%s", prefix, *prefix ? "." : "", key);
      const char *diag = strstr(p, "diagnosis.");
      char norm[512];
      if (diag) {
        snprintf(norm, sizeof norm, "*.%s", diag);
        add(s, norm);
      } else {
        add(s, p);
      }
      walk(&v->items[i], p, s);
    }
  } else if (v->type == PC_JSON_ARRAY) {
    char p[512];
    snprintf(p, sizeof p, "%s[]", prefix);
    for (size_t i = 0; i < v->n; i++)
      if (v->items[i].type == PC_JSON_OBJECT || v->items[i].type == PC_JSON_ARRAY) walk(&v->items[i], p, s);
  }
}

static pc_report *full_report(void) {
  pc_report *r = pc_report_new();
  snprintf(r->device.name, sizeof r->device.name, "%s", "NVIDIA H200");
  r->device.cc_major = 9, r->device.cc_minor = 0, r->device.sm_count = 132;
  snprintf(r->source, sizeof r->source, "%s", "in-process");
  r->step1_assessed = 1;
  r->cupti_known = 1;
  snprintf(r->cupti_path, sizeof r->cupti_path, "%s", "/usr/local/cuda/lib64/libcupti.so.13");
  r->cupti_version = 130001;
  r->cupti_preloaded = 0;
  snprintf(r->demangler, sizeof r->demangler, "%s", "libstdc++.so.6, loaded by perfcheck");
  pc_region *g = pc_report_add_region(r);
  g->name = strdup("step");
  g->wall_ns = 1e6;
  g->kernel_ns = 8e5;
  g->ndevices = 1;
  g->devices = calloc(1, sizeof *g->devices);
  g->devices[0].ordinal = 0;
  snprintf(g->devices[0].pci_bus_id, sizeof g->devices[0].pci_bus_id, "%s", "0000:19:00.0");
  g->devices[0].kernel_ns = 8e5;
  g->devices[0].launches = 1;
  pc_kernel *k = pc_report_add_kernel(r);
  assert_int_equal(pc_kernel_set_names(k, "_Z8mysteryAPKfPfm", NULL), 0);
  k->region = strdup("step");
  k->block[0] = 256, k->block[1] = k->block[2] = 1;
  k->grid[0] = 1024, k->grid[1] = k->grid[2] = 1;
  k->launches = k->profiled_launches = 1;
  k->total_ns = 8e5;
  for (int i = 0; i < PC_M_COUNT; i++) k->metric[i] = 10;
  k->metric_via_substitute[PC_M_LD_REQUESTS] = 1;
  k->nextra = 1;
  k->extra_names = calloc(1, sizeof *k->extra_names);
  k->extra_values = calloc(1, sizeof *k->extra_values);
  k->extra_names[0] = strdup("smsp__inst_executed.sum");
  /* A kernel of a CUDA graph and the graph's entry, with a
   * rotation left short, so that every graph and rotation field is written. */
  k->graph_id = 3;
  k->graph_node = 11;
  k->graph_entry = strdup("graph 3 (1 kernel: mysteryA)");
  pc_kernel *gk = pc_report_add_kernel(r);
  gk->name = strdup("graph 3 (1 kernel: mysteryA)");
  gk->display_name = strdup("graph 3 (1 kernel: mysteryA)");
  gk->region = strdup("step");
  gk->is_graph = 1;
  gk->graph_id = 3;
  gk->graph_exec = 41;
  gk->graph_kernels = gk->graph_signatures = 1;
  gk->ngraph_names = 1;
  gk->graph_names = calloc(1, sizeof *gk->graph_names);
  gk->graph_names[0] = strdup("mysteryA");
  gk->launches = gk->profiled_launches = 4;
  gk->passes = 1;
  snprintf(gk->replay, sizeof gk->replay, "%s", "rotate");
  gk->groups = 6;
  gk->groups_collected = 4;
  gk->groups_seen = 0xfu;
  gk->rotation_note = strdup("groups 5 and 6 of 6 not collected: the graph was launched 4 times");
  pc_checklist_report(r);
  return r;
}

static void test_fields_are_the_writers(void **state) {
  (void)state;
  paths doc = {0}, written = {0};
  doc_paths(&doc);
  pc_report *r = full_report();
  assert_non_null(r->kernels[0].busiest_pipe.metric);
  assert_non_null(r->kernels[0].busiest_memory.metric);
  assert_true(r->kernels[0].diag.nfindings > 0);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_int_equal(pc_write_json(r, f, NULL), PERFCHECK_OK);
  fclose(f);
  pc_json root;
  pc_err err;
  assert_int_equal(pc_json_parse(buf, len, "report", &root, &err), PERFCHECK_OK);
  walk(&root, "", &written);
  int bad = 0;
  for (size_t i = 0; i < written.n; i++)
    if (!has(&doc, written.p[i])) print_message("written, not in docs/report-contract.md: %s\n", written.p[i]), bad++;
  for (size_t i = 0; i < doc.n; i++)
    if (!has(&written, doc.p[i])) print_message("in docs/report-contract.md, not written: %s\n", doc.p[i]), bad++;
  assert_int_equal(bad, 0);
  pc_json_free(&root);
  free(buf);
  pc_report_free(r);
  free_paths(&doc);
  free_paths(&written);
}

/* The metric table of the document (backticked ncu names of the section's
 * table) is the code's table. */
static void test_metrics_are_the_table(void **state) {
  (void)state;
  size_t len;
  char *doc = read_all(PERFCHECK_SOURCE_DIR "/docs/report-contract.md", &len);
  char *start = strstr(doc, "## The checklist metric set");
  char *end = start ? strstr(start, "\nperfcheck may collect") : NULL;
  assert_non_null(start);
  assert_non_null(end);
  *end = '\0';
  paths names = {0};
  const char *tbl = strstr(start, "| question |");
  assert_non_null(tbl);
  for (const char *p = tbl; (p = strchr(p, '`')); ) {
    const char *q = strchr(p + 1, '`');
    if (!q) break;
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)(q - p - 1), p + 1);
    if (strstr(name, "__") && strchr(name, '.')) add(&names, name);
    p = q + 1;
  }
  int bad = 0;
  for (size_t i = 0; i < names.n; i++) {
    const pc_metric_def *m = pc_metric_lookup(names.p[i], NULL);
    if (!m) print_message("documented, not in the metric table: %s\n", names.p[i]), bad++;
  }
  const pc_metric_def *t = pc_metric_table();
  for (int i = 0; i < PC_M_COUNT; i++)
    if (!has(&names, t[i].name) && !(t[i].alias && has(&names, t[i].alias)))
      print_message("in the metric table, not documented: %s\n", t[i].name), bad++;
  assert_int_equal(bad, 0);
  free_paths(&names);
  free(doc);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fields_are_the_writers),
      cmocka_unit_test(test_metrics_are_the_table),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
