/* The JSON reader: the strict parser (values, escapes, every error with its
 * line and column, the depth limit), the perfcheck-report/1 mapping and its
 * errors, and the round trip writer -> reader -> writer, byte for byte, on a
 * built report and on the seed's T4 export. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "model/pc_core.h"
#include "read/pc_json.h"
#include "write/pc_write.h"
#include "base/pc_util.h"

#define assert_contains(hay, needle)                                                         \
  do {                                                                                       \
    const char *h_ = (hay);                                                                  \
    if (!h_ || !strstr(h_, (needle))) fail_msg("\"%s\" does not contain \"%s\"", h_ ? h_ : "(null)", (needle)); \
  } while (0)

/* ---- Parser ------------------------------------------------------------------ */

static void test_parse_values(void **state) {
  (void)state;
  const char *doc =
      "\xEF\xBB\xBF{ \"a\": [1, -2.5e3, 0, 0.125, true, false, null],\n"
      "  \"s\": \"q\\\"b\\\\s\\/n\\n\\t\\u00e9\\ud83d\\ude00\xE2\x82\xAC\",\n"
      "  \"o\": {\"x\": {}}, \"e\": [] }";
  pc_json v;
  pc_err err;
  assert_int_equal(pc_json_parse(doc, strlen(doc), "t", &v, &err), PERFCHECK_OK);
  assert_int_equal(v.type, PC_JSON_OBJECT);
  assert_int_equal(v.n, 4);
  const pc_json *a = pc_json_get(&v, "a");
  assert_non_null(a);
  assert_int_equal(a->type, PC_JSON_ARRAY);
  assert_int_equal(a->n, 7);
  assert_true(a->items[0].number == 1);
  assert_true(a->items[1].number == -2500);
  assert_true(a->items[2].number == 0);
  assert_true(a->items[3].number == 0.125);
  assert_int_equal(a->items[4].type, PC_JSON_TRUE);
  assert_int_equal(a->items[5].type, PC_JSON_FALSE);
  assert_int_equal(a->items[6].type, PC_JSON_NULL);
  const pc_json *s = pc_json_get(&v, "s");
  assert_string_equal(s->string, "q\"b\\s/n\n\t\xC3\xA9\xF0\x9F\x98\x80\xE2\x82\xAC");
  assert_int_equal(pc_json_get(&v, "o")->type, PC_JSON_OBJECT);
  assert_int_equal(pc_json_get(pc_json_get(&v, "o"), "x")->n, 0);
  assert_int_equal(pc_json_get(&v, "e")->type, PC_JSON_ARRAY);
  assert_null(pc_json_get(&v, "missing"));
  assert_null(pc_json_get(a, "a"));
  /* Offsets point at the value: line 2 holds "s". */
  size_t line, col;
  pc_json_position(doc, strlen(doc), s->offset, &line, &col);
  assert_int_equal(line, 2);
  assert_int_equal(col, 8);
  pc_json_free(&v);

  /* Not NUL-terminated input: only len bytes are read. */
  const char buf[] = {'[', '1', ']', '9', '9'};
  assert_int_equal(pc_json_parse(buf, 3, "t", &v, &err), PERFCHECK_OK);
  assert_true(v.items[0].number == 1);
  pc_json_free(&v);
}

static void test_parse_errors(void **state) {
  (void)state;
  static const struct {
    const char *text;
    const char *where;
    const char *says;
  } bad[] = {
      {"", "t:1:1: ", "unexpected end of input"},
      {"   \n  ", "t:2:3: ", "unexpected end of input"},
      {"{", "t:1:2: ", "expected a string key, found end of input"},
      {"{\"a\":1,}", "t:1:8: ", "expected a string key, found '}'"},
      {"[1,2", "t:1:5: ", "expected ',' or ']', found end of input"},
      {"[1,]", "t:1:4: ", "unexpected ']'"},
      {"{\"a\" 1}", "t:1:6: ", "expected ':'"},
      {"{\n  \"a\": tru\n}", "t:2:8: ", "invalid literal"},
      {"[01]", "t:1:3: ", "expected ',' or ']', found '1'"},
      {"[1.]", "t:1:4: ", "digit after '.'"},
      {"[-]", "t:1:3: ", "invalid number"},
      {"[1e]", "t:1:4: ", "exponent"},
      {"[1e999]", "t:1:2: ", "out of range"},
      {"[1e-400]", "t:1:2: ", "out of range (it would read as 0)"}, /* not 0 */
      {"[+1]", "t:1:2: ", "unexpected '+'"},
      {"NaN", "t:1:1: ", "unexpected 'N'"},
      {"[Infinity]", "t:1:2: ", "unexpected 'I'"},
      {"\"abc", "t:1:1: ", "unterminated string"},
      {"\"a\x01\"", "t:1:3: ", "control character 0x01"},
      {"\"a\nb\"", "t:1:3: ", "control character 0x0A"},
      {"\"\\x\"", "t:1:2: ", "invalid escape"},
      {"\"\\ud800\"", "t:1:2: ", "without its low surrogate"},
      {"\"\\ud800\\u0041\"", "t:1:2: ", "without its low surrogate"},
      {"\"\\udc00\"", "t:1:2: ", "lone low surrogate"},
      {"\"\\u0000\"", "t:1:2: ", "\\u0000 is not supported"},
      {"\"\\u12\"", "t:1:2: ", "four hex digits"},
      {"\"\xff\"", "t:1:2: ", "invalid UTF-8 byte 0xFF"},
      {"\"\xC0\xAF\"", "t:1:2: ", "invalid UTF-8"},
      {"\"\xED\xA0\x80\"", "t:1:2: ", "invalid UTF-8"},
      {"{\"a\":1,\n\"b\":2,\n\"a\":3}", "t:3:5: ", "duplicate key \"a\""},
      {"[1] 2", "t:1:5: ", "unexpected text after the JSON value"},
      {"// c\n{}", "t:1:1: ", "unexpected '/'"},
      {"{'a':1}", "t:1:2: ", "expected a string key, found '''"},
      {"[\x01]", "t:1:2: ", "unexpected 0x01"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    pc_json v;
    pc_err err = {0};
    perfcheck_status st = pc_json_parse(bad[i].text, strlen(bad[i].text), "t", &v, &err);
    if (st != PERFCHECK_ERROR_PARSE) fail_msg("case %zu parsed", i);
    if (strncmp(err.msg, bad[i].where, strlen(bad[i].where)) != 0) fail_msg("case %zu: wanted %s, got \"%s\"", i, bad[i].where, err.msg);
    assert_contains(err.msg, bad[i].says);
  }
}

static char *nested(size_t depth) {
  char *s = malloc(2 * depth + 1);
  assert_non_null(s);
  memset(s, '[', depth);
  memset(s + depth, ']', depth);
  s[2 * depth] = '\0';
  return s;
}

static void test_depth_limit(void **state) {
  (void)state;
  pc_json v;
  pc_err err;
  char *ok = nested(PC_JSON_MAX_DEPTH);
  assert_int_equal(pc_json_parse(ok, strlen(ok), "t", &v, &err), PERFCHECK_OK);
  pc_json_free(&v);
  free(ok);
  char *deep = nested(PC_JSON_MAX_DEPTH + 1);
  assert_int_equal(pc_json_parse(deep, strlen(deep), "t", &v, &err), PERFCHECK_ERROR_PARSE);
  assert_string_equal(err.msg, "t:1:65: nested deeper than 64 levels");
  assert_int_equal(err.status, PERFCHECK_ERROR_PARSE);
  free(deep);
  /* A million brackets: refused at depth 64, no stack to exhaust. */
  char *huge = nested(1000000);
  assert_int_equal(pc_json_parse(huge, strlen(huge), "t", &v, &err), PERFCHECK_ERROR_PARSE);
  assert_contains(err.msg, "nested deeper than 64");
  free(huge);
  /* Objects count too. */
  char obj[64 * 6 + 8] = "";
  for (int i = 0; i < 65; i++) strcat(obj, "{\"a\":");
  assert_int_equal(pc_json_parse(obj, strlen(obj), "t", &v, &err), PERFCHECK_ERROR_PARSE);
  assert_contains(err.msg, "nested deeper than 64");
}

/* ---- The report mapping ------------------------------------------------------ */

static perfcheck_status read_text(const char *text, pc_report **r, pc_err *err) {
  return pc_report_from_json_text(text, strlen(text), "r.json", 1, r, err);
}

static void test_mapping_errors(void **state) {
  (void)state;
  static const struct {
    const char *text;
    const char *says;
  } bad[] = {
      {"[]", "r.json:1:1: not a perfcheck report (the document is not a JSON object)"},
      {"{\"kernels\": []}", "r.json:1:1: not a perfcheck report (\"schema\" must be"},
      {"{\"schema\": \"perfcheck-report/3\", \"kernels\": []}", "r.json:1:12: not a perfcheck report"},
      {"{\"schema\": \"perfcheck-report/2\", \"kernels\": [{\"name\": \"k\", \"diagnosis\": {\"runner_up\": \"x\"}}]}",
       "unknown cause word \"x\""},
      {"{\"schema\": \"perfcheck-report/2\", \"kernels\": [{\"name\": \"k\", \"diagnosis\": {\"borderline\": 1}}]}",
       "\"borderline\": expected true or false"},
      {"{\"schema\": \"perfcheck-report/2\", \"kernels\": [{\"name\": \"k\", \"diagnosis\": {\"stall\": "
       "{\"reason\": \"coffee\"}}}]}",
       "unknown stall reason \"coffee\""},
      {"{\"schema\": \"perfcheck-report/2\", \"kernels\": [{\"name\": \"k\", \"rank\": -2}]}", "\"rank\": expected"},
      {"{\"schema\": \"perfcheck-report/1\"}", "no \"kernels\" array"},
      {"{\"schema\": \"perfcheck-report/1\", \"kernels\": {}}", "r.json:1:45: \"kernels\": expected an array"},
      {"{\"schema\": \"perfcheck-report/1\", \"kernels\": [1]}", "\"kernels\": expected an array of objects"},
      {"{\"schema\": \"perfcheck-report/1\", \"kernels\": [{}]}", "a kernel without a \"name\""},
      {"{\"schema\": \"perfcheck-report/1\",\n \"kernels\": [{\"name\": \"k\",\n  \"launches\": \"x\"}]}",
       "r.json:3:15: \"launches\": expected an integer in range"},
      {"{\"schema\": \"perfcheck-report/1\", \"kernels\": [{\"name\": \"k\", \"launches\": -1}]}",
       "\"launches\": expected an integer in range"},
      {"{\"schema\": \"perfcheck-report/1\", \"kernels\": [{\"name\": \"k\", \"grid\": [1, 2]}]}",
       "\"grid\": expected an array of three integers"},
      {"{\"schema\": \"perfcheck-report/1\", \"kernels\": [{\"name\": \"k\", \"metrics\": {\"a\": \"1\"}}]}",
       "\"a\": expected a number or null"},
      {"{\"schema\": \"perfcheck-report/1\", \"kernels\": [{\"name\": \"k\", \"diagnosis\": {\"cause\": \"slow\"}}]}",
       "unknown cause word \"slow\""},
      {"{\"schema\": \"perfcheck-report/1\", \"kernels\": [{\"name\": \"k\", \"diagnosis\": {\"bound\": \"fast\"}}]}",
       "unknown bound word \"fast\""},
      {"{\"schema\": \"perfcheck-report/1\", \"kernels\": [{\"name\": \"k\", \"diagnosis\": {\"step\": 9}}]}",
       "a step from 0 to 5"},
      {"{\"schema\": \"perfcheck-report/1\", \"kernels\": [{\"name\": \"k\", \"attributes\": {\"binding_limit\": \"x\"}}]}",
       "unknown limiter \"x\""},
      {"{\"schema\": \"perfcheck-report/1\", \"kernels\": [], \"device\": {\"compute_capability\": \"nine\"}}",
       "\"compute_capability\": expected a string \"MAJOR.MINOR\""},
      {"{\"schema\": \"perfcheck-report/1\", \"kernels\": [], \"regions\": [{\"wall_ns\": 1}]}",
       "a region without a \"name\""},
      {"{\"schema\": \"perfcheck-report/1\", \"kernels\": [], \"warnings\": [1]}", "expected an array of strings"},
      {"{\"schema\": \"perfcheck-report/1\", \"kernels\": [], \"step1_assessed\": 1}", "expected true or false"},
      /* Values outside their invariants, with the path to them. */
      {"{\"schema\": \"perfcheck-report/1\", \"kernels\": [{\"name\": \"a\"}, {\"name\": \"k\",\n \"duration_ns\": "
       "{\"min\": 10, \"median\": 5, \"max\": 20}}]}",
       "r.json:2:39: kernels[1].duration_ns.median: 5 is below kernels[1].duration_ns.min (10)"},
      {"{\"schema\": \"perfcheck-report/1\", \"kernels\": [{\"name\": \"k\", \"duration_ns\": "
       "{\"min\": 10, \"median\": 30, \"max\": 20}}]}",
       "kernels[0].duration_ns.max: 20 is below kernels[0].duration_ns.median (30)"},
      {"{\"schema\": \"perfcheck-report/1\", \"kernels\": [{\"name\": \"k\", \"duration_ns\": "
       "{\"min\": 10, \"median\": null, \"max\": 2}}]}",
       "kernels[0].duration_ns.max: 2 is below kernels[0].duration_ns.min (10)"},
      {"{\"schema\": \"perfcheck-report/1\", \"kernels\": [{\"name\": \"k\", \"total_ns\": -96384}]}",
       "kernels[0].total_ns: -96384 is below 0"},
      {"{\"schema\": \"perfcheck-report/1\", \"kernels\": [{\"name\": \"k\", \"duration_ns\": {\"min\": -1}}]}",
       "kernels[0].duration_ns.min: -1 is below 0"},
      {"{\"schema\": \"perfcheck-report/1\", \"kernels\": [{\"name\": \"k\", \"kernel_time_share\": -0.5}]}",
       "kernels[0].kernel_time_share: -0.5 is below 0"},
      {"{\"schema\": \"perfcheck-report/1\", \"kernels\": [{\"name\": \"k\", \"launches\": 1, "
       "\"profiled_launches\": 2}]}",
       "kernels[0].profiled_launches: 2 is more than its launches (1)"},
      {"{\"schema\": \"perfcheck-report/1\", \"kernels\": [{\"name\": \"k\", \"metrics\": "
       "{\"dram__bytes_read.sum\": -17}}]}",
       "kernels[0].metrics.dram__bytes_read.sum: -17 is below 0"},
      {"{\"schema\": \"perfcheck-report/1\", \"kernels\": [{\"name\": \"k\", \"derived\": "
       "{\"threads_per_instruction\": -3}}]}",
       "kernels[0].derived.threads_per_instruction: -3 is below 0"},
      {"{\"schema\": \"perfcheck-report/1\", \"kernels\": [{\"name\": \"k\", \"attributes\": "
       "{\"registers_per_thread\": -2}}]}",
       "kernels[0].attributes.registers_per_thread: -2 is below 0"},
      {"{\"schema\": \"perfcheck-report/1\", \"kernels\": [], \"regions\": [{\"name\": \"r\", \"wall_ns\": -1}]}",
       "regions[0].wall_ns: -1 is below 0"},
      {"{\"schema\": \"perfcheck-report/1\", \"kernels\": [], \"regions\": [{\"name\": \"r\", \"devices\": "
       "[{\"ordinal\": 0, \"kernel_ns\": -5}]}]}",
       "regions[0].devices[0].kernel_ns: -5 is below 0"},
      {"{\"schema\": \"perfcheck-report/1\", \"kernels\": [], \"device\": {\"sm_count\": -132}}",
       "device.sm_count: -132 is below 0"},
      {"{\"schema\": \"perfcheck-report/1\", \"kernels\": [], \"device\": {\"peak_dram_bytes_per_s\": -1e12}}",
       "device.peak_dram_bytes_per_s: -1000000000000 is below 0"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    pc_report *r = (pc_report *)&r; /* must come back NULL */
    pc_err err = {0};
    if (read_text(bad[i].text, &r, &err) != PERFCHECK_ERROR_PARSE) fail_msg("case %zu was read", i);
    assert_null(r);
    assert_contains(err.msg, bad[i].says);
  }

  /* The minimal report, and unknown fields ignored (newer writers). */
  pc_report *r = NULL;
  pc_err err;
  assert_int_equal(read_text("{\"schema\": \"perfcheck-report/1\", \"kernels\": [{\"name\": \"k\", \"future\": "
                             "{\"x\": [1]}}], \"future\": 1}",
                             &r, &err),
                   PERFCHECK_OK);
  assert_int_equal(r->nkernels, 1);
  assert_string_equal(r->kernels[0].name, "k");
  assert_true(isnan(r->kernels[0].metric[PC_M_DURATION]));
  assert_int_equal(r->device.sm_count, -1);
  pc_report_free(r);
}

/* ---- Round trip ---------------------------------------------------------------- */

static char *to_json(const pc_report *r) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  assert_int_equal(pc_write_json(r, f, NULL), PERFCHECK_OK);
  fclose(f);
  return buf;
}

static void fill_finding(pc_finding *f, int step, perfcheck_cause cause, const char *metric, double value,
                         double threshold, const char *advice) {
  f->step = step;
  f->cause = cause;
  snprintf(f->metric, sizeof f->metric, "%s", metric);
  f->value = value;
  f->threshold = threshold;
  snprintf(f->advice, sizeof f->advice, "%s", advice);
}

static pc_report *built_report(void) {
  pc_report *r = pc_report_new();
  strcpy(r->source, "in-process");
  strcpy(r->metric_set, "default");
  r->passes = 3;
  r->step1_assessed = 1;
  strcpy(r->device.name, "NVIDIA H200 \"test\" \xC3\xA9");
  r->device.cc_major = 9, r->device.cc_minor = 0;
  r->device.sm_count = 132;
  r->device.warp_size = 32;
  r->device.max_threads_per_sm = 2048;
  r->device.max_smem_per_sm = 233472;
  r->device.peak_dram_bytes_per_s = 4.8e12;
  r->device.peak_fp32_flop_per_s = 6.69e13;
  r->device.ridge_flop_per_byte = 6.69e13 / 4.8e12;
  strcpy(r->device.ceilings_source, "attributes");

  pc_region *g = pc_report_add_region(r);
  g->name = pc_strdup("solve");
  g->wall_ns = 45822000;
  g->kernel_ns = 786000;
  g->kernel_sum_ns = 786000.5;
  g->memcpy_ns = 41000000;
  g->launches = 4;
  g->dropped_records = 2;
  g->kernel_share = 786000.0 / 45822000.0;
  fill_finding(&g->diag.verdict, 1, PERFCHECK_CAUSE_NOT_THE_SLOW_PART, "kernel_ns / wall_ns", 0.017, 0.5,
               "Look at the copies first.");
  pc_region *g2 = pc_report_add_region(r);
  g2->name = pc_strdup("inner");
  g2->parent = pc_strdup("solve");
  g2->depth = 1;

  pc_kernel *k = pc_report_add_kernel(r);
  k->name = pc_strdup("scaleAdd<4>");
  k->mangled = pc_strdup("_Z8scaleAddILi4EEvfPKfPfm");
  k->region = pc_strdup("solve");
  k->grid[0] = 16384, k->grid[1] = 2, k->grid[2] = 1;
  k->block[0] = 256, k->block[1] = k->block[2] = 1;
  k->dynamic_smem = 48000;
  k->launches = 3;
  k->profiled_launches = 1;
  k->dur_min_ns = 1184000, k->dur_median_ns = 1200000.25, k->dur_max_ns = 1414000;
  k->attr.registers_per_thread = 14;
  k->attr.static_smem = 0;
  k->attr.dynamic_smem = 48000;
  k->attr.blocks_per_sm = 1;
  k->attr.theoretical_occupancy_pct = 25;
  k->attr.limit_shared_mem = 1;
  k->attr.binding = PC_LIMIT_SHARED_MEMORY;
  k->attr.waves_per_sm = 31.03030303030303;
  for (int i = 0; i < PC_M_COUNT; i++) k->metric[i] = i % 3 == 0 ? PC_NULL : 1000.0 * i + 0.1;
  k->metric[PC_M_LD_SECTORS] = 66924544;
  k->metric[PC_M_LD_REQUESTS] = 2097152;
  k->metric_via_substitute[PC_M_LD_REQUESTS] = pc_metric_by_id(PC_M_LD_REQUESTS)->substitute ? 1 : 0;
  k->nextra = 2;
  k->extra_names = calloc(2, sizeof *k->extra_names);
  k->extra_values = calloc(2, sizeof *k->extra_values);
  k->extra_names[0] = pc_strdup("smsp__inst_executed.sum");
  k->extra_values[0] = 123456789;
  k->extra_names[1] = pc_strdup("smsp__pcsamp_sample_count");
  k->extra_values[1] = PC_NULL;
  k->not_measured_reason = pc_strdup("line one\nline \"two\"\t\x01");
  k->passes = 2;
  k->derived.sectors_per_request_ld = 66924544.0 / 2097152.0;
  k->derived.threads_per_instruction = 16.21;
  k->derived.achieved_occupancy_pct = 24.82;
  k->derived.arithmetic_intensity = 1.0 / 3.0;
  fill_finding(&k->diag.verdict, 5, PERFCHECK_CAUSE_OCCUPANCY_SHARED_MEMORY,
               "sm__warps_active.avg.pct_of_peak_sustained_active", 24.82, 50, "Ask for less shared memory.");
  k->diag.bound = PERFCHECK_BOUND_COMPUTE;
  k->diag.nfindings = 2;
  fill_finding(&k->diag.findings[0], 4, PERFCHECK_CAUSE_DIVERGENT_WARPS, "a / b", 16.21, 24, "Uniform branches.");
  fill_finding(&k->diag.findings[1], 0, PERFCHECK_CAUSE_NOT_ASSESSED, "", PC_NULL, PC_NULL, "");

  pc_kernel *n = pc_report_add_kernel(r); /* everything unknown */
  n->name = pc_strdup("");
  pc_report_warn(r, 1, "counters refused: %s", "ERR_NVGPUCTRPERM");
  pc_report_warn(r, 1, "second \xE2\x82\xAC warning");
  return r;
}

static void same_doubles(const double *a, const double *b, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (isnan(a[i])) {
      if (!isnan(b[i])) fail_msg("value %zu: NaN came back as %.17g", i, b[i]);
    } else if (a[i] != b[i]) {
      fail_msg("value %zu: %.17g came back as %.17g", i, a[i], b[i]);
    }
  }
}

static void test_round_trip_built(void **state) {
  (void)state;
  pc_report *r = built_report();
  char *json = to_json(r);
  pc_report *back = NULL;
  pc_err err;
  if (read_text(json, &back, &err) != PERFCHECK_OK) fail_msg("%s", err.msg);

  assert_string_equal(back->source, "in-process");
  assert_string_equal(back->metric_set, "default");
  assert_int_equal(back->passes, 3);
  assert_int_equal(back->step1_assessed, 1);
  assert_string_equal(back->device.name, r->device.name);
  assert_int_equal(back->device.cc_major, 9);
  assert_int_equal(back->device.cc_minor, 0);
  assert_int_equal(back->device.sm_count, 132);
  assert_int_equal(back->device.max_smem_per_sm, 233472);
  assert_int_equal(back->device.max_blocks_per_sm, -1);
  assert_true(back->device.ridge_flop_per_byte == r->device.ridge_flop_per_byte);
  assert_string_equal(back->device.ceilings_source, "attributes");

  assert_int_equal(back->nregions, 2);
  assert_string_equal(back->regions[0].name, "solve");
  assert_null(back->regions[0].parent);
  assert_string_equal(back->regions[1].parent, "solve");
  assert_int_equal(back->regions[1].depth, 1);
  assert_int_equal(back->regions[0].launches, 4);
  assert_int_equal(back->regions[0].dropped_records, 2);
  assert_true(back->regions[0].kernel_sum_ns == 786000.5);
  assert_true(back->regions[0].kernel_share == r->regions[0].kernel_share);
  assert_true(isnan(back->regions[0].gpu_idle_ns));
  assert_int_equal(back->regions[0].diag.verdict.cause, PERFCHECK_CAUSE_NOT_THE_SLOW_PART);
  assert_string_equal(back->regions[0].diag.verdict.advice, "Look at the copies first.");

  assert_int_equal(back->nkernels, 2);
  const pc_kernel *k = &r->kernels[0], *b = &back->kernels[0];
  assert_string_equal(b->name, "scaleAdd<4>");
  assert_string_equal(b->mangled, k->mangled);
  assert_string_equal(b->region, "solve");
  assert_memory_equal(b->grid, k->grid, sizeof k->grid);
  assert_memory_equal(b->block, k->block, sizeof k->block);
  assert_true(b->dynamic_smem == 48000);
  assert_int_equal(b->launches, 3);
  assert_int_equal(b->profiled_launches, 1);
  assert_true(b->dur_median_ns == 1200000.25);
  same_doubles(k->metric, b->metric, PC_M_COUNT);
  assert_memory_equal(k->metric_via_substitute, b->metric_via_substitute, sizeof k->metric_via_substitute);
  assert_int_equal(b->nextra, 2);
  assert_string_equal(b->extra_names[0], "smsp__inst_executed.sum");
  assert_true(b->extra_values[0] == 123456789);
  assert_true(isnan(b->extra_values[1]));
  assert_string_equal(b->not_measured_reason, "line one\nline \"two\"\t\x01");
  assert_int_equal(b->passes, 2);
  assert_int_equal(b->attr.binding, PC_LIMIT_SHARED_MEMORY);
  same_doubles((const double *)&k->attr, (const double *)&b->attr, offsetof(pc_attributes, binding) / sizeof(double));
  assert_true(b->attr.waves_per_sm == k->attr.waves_per_sm);
  same_doubles((const double *)&k->derived, (const double *)&b->derived, sizeof k->derived / sizeof(double));
  assert_int_equal(b->diag.verdict.step, 5);
  assert_int_equal(b->diag.verdict.cause, PERFCHECK_CAUSE_OCCUPANCY_SHARED_MEMORY);
  assert_string_equal(b->diag.verdict.metric, k->diag.verdict.metric);
  assert_true(b->diag.verdict.value == 24.82);
  assert_int_equal(b->diag.bound, PERFCHECK_BOUND_COMPUTE);
  assert_int_equal(b->diag.nfindings, 2);
  assert_int_equal(b->diag.findings[0].cause, PERFCHECK_CAUSE_DIVERGENT_WARPS);
  assert_true(isnan(b->diag.findings[1].value));

  const pc_kernel *n = &back->kernels[1];
  assert_string_equal(n->name, "");
  assert_null(n->mangled);
  assert_true(isnan(n->dur_min_ns));
  for (int i = 0; i < PC_M_COUNT; i++) assert_true(isnan(n->metric[i]));
  assert_int_equal(n->diag.verdict.cause, PERFCHECK_CAUSE_NONE);

  assert_int_equal(back->nwarnings, 2);
  assert_string_equal(back->warnings[1], "second \xE2\x82\xAC warning");

  /* Everything the writer writes comes back: the second write is identical. */
  char *again = to_json(back);
  assert_string_equal(json, again);
  free(again);
  free(json);
  pc_report_free(back);
  pc_report_free(r);
}

static void test_round_trip_seed(void **state) {
  (void)state;
  const char *path = PERFCHECK_TEST_DATA "/t4_seed000.csv";
  perfcheck_report *r = NULL;
  /* The fixture is committed: its absence is a failure, never a pass. */
  if (access(path, R_OK) != 0) fail_msg("fixture %s is missing", path);
  assert_int_equal(perfcheck_report_from_ncu_csv(path, 1, &r), PERFCHECK_OK);
  assert_true(r->nkernels >= 3);
  char *json = to_json(r);

  /* Through a file, as `perfcheck check FILE.json` reads it. */
  char tmpl[] = "/tmp/pc_json_read_XXXXXX";
  int fd = mkstemp(tmpl);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  fputs(json, f);
  fclose(f);
  perfcheck_report *back = NULL;
  assert_int_equal(perfcheck_report_from_json(tmpl, 1, &back), PERFCHECK_OK);
  unlink(tmpl);
  assert_int_equal(back->nkernels, r->nkernels);
  for (size_t i = 0; i < r->nkernels; i++) {
    assert_string_equal(back->kernels[i].name, r->kernels[i].name);
    same_doubles(r->kernels[i].metric, back->kernels[i].metric, PC_M_COUNT);
    same_doubles((const double *)&r->kernels[i].derived, (const double *)&back->kernels[i].derived,
                 sizeof(pc_derived) / sizeof(double));
    assert_int_equal(back->kernels[i].diag.verdict.cause, r->kernels[i].diag.verdict.cause);
    assert_int_equal(back->kernels[i].diag.verdict.step, r->kernels[i].diag.verdict.step);
  }
  char *again = to_json(back);
  assert_string_equal(json, again);
  free(again);
  free(json);
  perfcheck_report_destroy(back);
  perfcheck_report_destroy(r);
}

static void test_public_errors(void **state) {
  (void)state;
  perfcheck_report *r = (perfcheck_report *)&r;
  assert_int_equal(perfcheck_report_from_json("/nonexistent/perfcheck.json", 1, &r), PERFCHECK_ERROR_IO);
  assert_null(r);
  assert_contains(perfcheck_last_error_message(), "/nonexistent/perfcheck.json: ");
  assert_int_equal(perfcheck_report_from_json(NULL, 1, &r), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_int_equal(perfcheck_report_from_json("x", 1, NULL), PERFCHECK_ERROR_INVALID_ARGUMENT);

  char tmpl[] = "/tmp/pc_json_bad_XXXXXX";
  int fd = mkstemp(tmpl);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  fputs("{\"schema\": \"perfcheck-report/1\",\n \"kernels\": [\n  {\"name\": \"k\",}\n ]}\n", f);
  fclose(f);
  assert_int_equal(perfcheck_report_from_json(tmpl, 1, &r), PERFCHECK_ERROR_PARSE);
  assert_null(r);
  char want[128];
  snprintf(want, sizeof want, "%s:3:16: expected a string key, found '}'", tmpl);
  assert_contains(perfcheck_last_error_message(), want);
  unlink(tmpl);
}

/* ---- streamed ------------------------------------------------- */

/* A report of n kernels, as the writer writes it (one kernel entry is
 * about 7 KB: 600 kernels are more than 4 MiB, several chunks). */
static char *big_report(size_t n, size_t *len) {
  size_t cap = 256 + n * 400, o = 0;
  char *t = malloc(cap);
  assert_non_null(t);
  o += (size_t)snprintf(t + o, cap - o, "{\"schema\": \"perfcheck-report/2\",\n \"kernels\": [\n");
  for (size_t i = 0; i < n; i++)
    o += (size_t)snprintf(t + o, cap - o,
                          "  {\"name\": \"k%zu\", \"launches\": %zu, \"duration_ns\": {\"min\": 1, \"median\": 2, "
                          "\"max\": 3}, \"metrics\": {\"gpu__time_duration.sum\": %zu.5}, \"note\": \"%0120zu\"}%s\n",
                          i, i + 1, i, i, i + 1 < n ? "," : "");
  o += (size_t)snprintf(t + o, cap - o, " ],\n \"warnings\": [\"w1\", \"w2\"]}\n");
  *len = o;
  return t;
}

static char *write_temp(const char *text, size_t len) {
  char *path = malloc(64);
  assert_non_null(path);
  snprintf(path, 64, "/tmp/pc_json_stream_XXXXXX");
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  assert_int_equal(fwrite(text, 1, len, f), len);
  fclose(f);
  return path;
}

/* The file, read in 1 MiB chunks, gives what the same text in memory gives;
 * an error in a later chunk names its line and column as in the whole text. */
static void test_streamed_equals_memory(void **state) {
  (void)state;
  size_t len;
  char *text = big_report(20000, &len);
  assert_true(len > ((size_t)3 << 20));
  char *path = write_temp(text, len);
  pc_report *a = NULL, *b = NULL;
  pc_err err;
  assert_int_equal(pc_report_from_json_file(path, 1, &a, &err), PERFCHECK_OK);
  assert_int_equal(pc_report_from_json_text(text, len, path, 1, &b, &err), PERFCHECK_OK);
  assert_int_equal(a->nkernels, 20000);
  assert_int_equal(b->nkernels, 20000);
  assert_string_equal(a->kernels[19999].name, "k19999");
  assert_int_equal(a->kernels[12345].launches, 12346);
  assert_true(a->kernels[777].metric[PC_M_DURATION] == 777.5);
  assert_int_equal(a->nwarnings, 2);
  assert_string_equal(a->warnings[1], "w2");
  char *ja = to_json(a), *jb = to_json(b);
  assert_string_equal(ja, jb);
  free(ja), free(jb);
  pc_report_free(a);
  pc_report_free(b);
  unlink(path);
  free(path);

  /* Damage in kernel 15000 (a later chunk): the same message both ways, and
   * the position is the one in the whole text. */
  char *bad = strstr(text, "{\"name\": \"k15000\"");
  assert_non_null(bad);
  char *median = strstr(bad, "\"median\": 2");
  median[10] = '9'; /* median 9 > max 3 */
  size_t line, col;
  pc_json_position(text, len, (size_t)(strstr(bad, "\"max\": 3") + 7 - text), &line, &col);
  char want[160];
  snprintf(want, sizeof want, ":%zu:%zu: kernels[15000].duration_ns.max: 3 is below kernels[15000].duration_ns.median (9)",
           line, col);
  path = write_temp(text, len);
  assert_int_equal(pc_report_from_json_file(path, 1, &a, &err), PERFCHECK_ERROR_PARSE);
  assert_null(a);
  assert_contains(err.msg, want);
  assert_contains(err.msg, path);
  assert_int_equal(pc_report_from_json_text(text, len, path, 1, &b, &err), PERFCHECK_ERROR_PARSE);
  assert_contains(err.msg, want);
  unlink(path);
  free(path);
  median[10] = '2';

  /* Cut in the middle of a later kernel, and trailing text. */
  path = write_temp(text, len - 200000);
  assert_int_equal(pc_report_from_json_file(path, 1, &a, &err), PERFCHECK_ERROR_PARSE);
  assert_contains(err.msg, "unterminated string");
  unlink(path);
  free(path);
  path = write_temp(text, len - 1); /* no final newline: fine */
  assert_int_equal(pc_report_from_json_file(path, 1, &a, &err), PERFCHECK_OK);
  pc_report_free(a);
  unlink(path);
  free(path);
  free(text);
}

/* The report object's members in any order, once each. */
static void test_streamed_members(void **state) {
  (void)state;
  pc_report *r = NULL;
  pc_err err;
  static const char *const ok = "\xEF\xBB\xBF {\"kernels\": [{\"name\": \"k\"}], \"step1_assessed\": false,\n"
                                "\"future\": {\"x\": [1, {\"y\": null}]}, \"schema\": \"perfcheck-report/1\"} \n";
  assert_int_equal(read_text(ok, &r, &err), PERFCHECK_OK);
  assert_int_equal(r->nkernels, 1);
  assert_int_equal(r->step1_assessed, 0);
  pc_report_free(r);
  static const struct {
    const char *text, *says;
  } bad[] = {
      {"{\"schema\": \"perfcheck-report/1\", \"kernels\": [], \"kernels\": []}", "r.json:1:49: duplicate key \"kernels\""},
      {"{\"kernels\": [], \"schema\": \"perfcheck-report/1\"} x", "r.json:1:49: unexpected text after the JSON value"},
      {"{\"kernels\": [{\"name\": \"k\"}]}", "r.json:1:1: not a perfcheck report (\"schema\" must be"},
      {"{\"schema\": \"perfcheck-report/1\", \"kernels\": [{\"name\": \"k\"} {\"name\": \"l\"}]}",
       "r.json:1:60: expected ',' or ']', found '{'"},
      {"{\"schema\": \"perfcheck-report/1\", \"kernels\": [], }", "r.json:1:49: expected a string key, found '}'"},
      {"{\"schema\": \"perfcheck-report/1\" \"kernels\": []}", "r.json:1:33: expected ',' or '}', found '\"'"},
      {"{\"schema\": \"perfcheck-report/1\", \"kernels\": [", "unexpected end of input"},
      {"{\"schema\": \"perfcheck-report/1\", \"kernels\": null}", "no \"kernels\" array"},
      {"{\"schema\": \"perfcheck-report/1\", \"kernels\": [], \"warnings\": [\"a\", 3]}",
       "\"warnings\": expected an array of strings"},
      {"", "unexpected end of input"},
      {"{", "unexpected end of input (expected a string key)"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    r = (pc_report *)&r;
    if (read_text(bad[i].text, &r, &err) != PERFCHECK_ERROR_PARSE) fail_msg("case %zu was read", i);
    assert_null(r);
    assert_contains(err.msg, bad[i].says);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parse_values),     cmocka_unit_test(test_parse_errors),
      cmocka_unit_test(test_depth_limit),      cmocka_unit_test(test_mapping_errors),
      cmocka_unit_test(test_round_trip_built), cmocka_unit_test(test_round_trip_seed),
      cmocka_unit_test(test_public_errors),
      cmocka_unit_test(test_streamed_equals_memory),
      cmocka_unit_test(test_streamed_members),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
