/* The HTML writer (pc_write_html.c, pc_html.c) on real H200 exports: one
 * roofline point per measured kernel and none for a kernel without its
 * inputs (with the reason), ceiling lines only for the ceilings the device
 * has, the five bands coloured by the diagnosis, a region's timeline,
 * escaping of hostile names, no number printed for what was not measured,
 * the size of a 100-kernel page, and write errors.  tests/html/check_html.py
 * renders the same pages in Chromium. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/pc_core.h"
#include "write/pc_html.h"
#include "check/pc_check.h"
#include "base/pc_util.h"

static pc_report *load(const char *file) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", PERFCHECK_TEST_DATA, file);
  perfcheck_report *r = NULL;
  if (perfcheck_report_from_ncu_csv(path, 1, &r) != PERFCHECK_OK) fail_msg("%s: %s", path, perfcheck_last_error_message());
  return r;
}

static char *html_of(const pc_report *r) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  assert_int_equal(perfcheck_report_write(r, PERFCHECK_FORMAT_HTML, f), PERFCHECK_OK);
  fclose(f);
  assert_int_equal(strlen(buf), len); /* no NUL inside */
  return buf;
}

static size_t count(const char *s, const char *needle) {
  size_t n = 0;
  for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle)) n++;
  return n;
}

/* The text of <article id="kI"> ... </article>, malloc'd. */
static char *article(const char *html, size_t i) {
  char id[32];
  snprintf(id, sizeof id, "<article id=\"k%zu\"", i);
  const char *a = strstr(html, id);
  if (!a) fail_msg("no %s", id);
  const char *e = strstr(a, "</article>");
  assert_non_null(e);
  char *out = malloc((size_t)(e - a) + 1);
  memcpy(out, a, (size_t)(e - a));
  out[e - a] = '\0';
  return out;
}

/* The state of band `step` in an article. */
static const char *band_state(const char *art, int step) {
  char key[64];
  snprintf(key, sizeof key, "data-step=\"%d\" data-state=\"", step);
  const char *p = strstr(art, key);
  if (!p) fail_msg("no band %d", step);
  p += strlen(key);
  if (strncmp(p, "passes", 6) == 0) return "passes";
  if (strncmp(p, "catches", 7) == 0) return "catches";
  if (strncmp(p, "not assessed", 12) == 0) return "not assessed";
  fail_msg("band %d: unknown state", step);
  return NULL;
}

/* The index of the entry of that name (and dynamic shared memory). */
static size_t kernel_index(const pc_report *r, const char *name, double smem) {
  for (size_t i = 0; i < r->nkernels; i++)
    if (strcmp(r->kernels[i].name, name) == 0 && r->kernels[i].dynamic_smem == smem) return i;
  fail_msg("no kernel %s (%g B dynamic)", name, smem);
  return 0;
}

/* No NaN or infinity may reach the page as a number. */
static void assert_no_unmeasured_numbers(const char *html) {
  const char *bad[] = {">nan", "nan%", "nan ", "\"nan\"", "-nan", ">inf", "inf%", "\"inf\"", "=\"nan", "NaN"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    if (strstr(html, bad[i])) fail_msg("the page prints \"%s\"", bad[i]);
}

/* Nothing the page refers to is outside it: the one URL is SVG's namespace. */
static void assert_self_contained(const char *html) {
  size_t urls = count(html, "http://") + count(html, "https://");
  size_t ns = count(html, "xmlns=\"http://www.w3.org/2000/svg\"");
  assert_int_equal(urls, ns);
  assert_null(strstr(html, "<script src"));
  assert_null(strstr(html, "<link"));
  assert_null(strstr(html, "@import"));
}

static void test_mystery(void **state) {
  (void)state;
  pc_report *r = load("h200/mystery.csv");
  assert_int_equal(r->nkernels, 4);
  char *html = html_of(r);
  assert_non_null(strstr(html, "<!DOCTYPE html>"));
  assert_non_null(strstr(html, "</html>\n"));
  assert_self_contained(html);
  assert_no_unmeasured_numbers(html);
  char want[160];
  /* Every kernel measured: four points, each labelled with its number
   * among the verdicts; the DRAM roof and a roof for each pipe whose peak
   * is documented for compute capability 9.0 (FP32, FP64, XU, tensor),
   * each line with its label, and its source in the legend. */
  assert_int_equal(count(html, "<circle class=\"point\""), 4);
  assert_int_equal(count(html, "<text class=\"plabel\""), 4);
  assert_int_equal(count(html, "<line class=\"ceiling\" data-ceiling=\"dram\""), 1);
  assert_int_equal(count(html, "<line class=\"ceiling\" data-ceiling=\"fp32\""), 1);
  static const char *const pipes[] = {"fp64", "xu", "tensor"};
  static const double ratio[] = {128.0 / 256.0, 16.0 / 256.0, 4096.0 / 256.0};
  for (size_t i = 0; i < 3; i++) {
    snprintf(want, sizeof want, "<line class=\"ceiling pipe\" data-ceiling=\"%s\" data-value=\"%.6g\"", pipes[i],
             r->device.peak_fp32_flop_per_s * ratio[i]);
    if (!strstr(html, want)) fail_msg("no %s roof: %s", pipes[i], want);
    snprintf(want, sizeof want, "<text class=\"clabel\" data-ceiling=\"%s\"", pipes[i]);
    assert_non_null(strstr(html, want));
  }
  assert_non_null(strstr(html, "<li data-roof=\"fp64\">FP64 roof: 33454 GFLOP/s (the FP32 roof x 64/128: FP64 FMA per SM "
                               "and cycle against FP32's on compute capability 9.0 (CUDA C++ Programming Guide"));
  assert_non_null(strstr(html, "<li data-roof=\"tensor\">Tensor (FP16, dense) roof: 1070531 GFLOP/s"));
  /* The verdicts first, by share: mysteryB (38%), then the roofline. */
  const char *first = strstr(html, "<article id=\"k");
  assert_non_null(first);
  assert_non_null(strstr(first, "<h3>1. mysteryB</h3>"));
  assert_true(strstr(first, "<h3>1. mysteryB</h3>") < strstr(html, "<h3>2. mysteryC, 116736 B dynamic</h3>"));
  assert_true(first < strstr(html, "<section id=\"roofline\">"));
  /* The numbers in their units: ncu's 0.96 for the issue slots, not 96. */
  assert_non_null(strstr(html, "smsp__issue_active.avg.per_cycle_active</span> = 0.96 inst/cycle (96% of peak) (threshold "
                               "0.8 inst/cycle: 80% of peak)"));
  /* The DRAM line's value is the device's peak, written exactly enough. */
  snprintf(want, sizeof want, "data-ceiling=\"dram\" data-value=\"%.6g\"", r->device.peak_dram_bytes_per_s);
  assert_non_null(strstr(html, want));
  /* A point's area is its share of the export's kernel time: r = 28 sqrt(share). */
  assert_non_null(strstr(html, "a point's area is proportional to the kernel's share"));
  for (size_t i = 0; i < r->nkernels; i++) {
    const double share = r->kernels[i].time_share;
    assert_true(share > 0.1 && share < 0.4);
    char pt[160];
    snprintf(pt, sizeof pt, "data-k=\"%zu\" data-ai=\"%.9g\" data-gflops=\"%.9g\" data-share=\"%.9g\" ", i,
             r->kernels[i].derived.arithmetic_intensity, r->kernels[i].derived.gflops, share);
    const char *c = strstr(html, pt);
    if (!c) fail_msg("no point %s", pt);
    snprintf(want, sizeof want, " r=\"%.2f\"", 28.0 * sqrt(share));
    const char *end = strchr(c, '>');
    if (!strstr(c, want) || strstr(c, want) > end) fail_msg("point %zu: want%s", i, want);
  }
  /* The bands follow the walk: mysteryA caught at step 3 (sectors per
   * request beyond any access width: the export has no bytes per sector),
   * mysteryB at 4, mysteryC (116736 B) at 5, mysteryC (0 B) nowhere; step 1
   * is not assessed offline; step 3 or 4 is skipped on the other side. */
  const struct {
    const char *name;
    double smem;
    const char *states[5];
  } want_bands[] = {
      {"mysteryA", 0, {"not assessed", "passes", "catches", "not assessed", "passes"}},
      {"mysteryB", 0, {"not assessed", "passes", "not assessed", "catches", "passes"}},
      {"mysteryC", 116736, {"not assessed", "passes", "not assessed", "passes", "catches"}},
      {"mysteryC", 0, {"not assessed", "passes", "not assessed", "passes", "passes"}},
  };
  for (size_t j = 0; j < 4; j++) {
    size_t i = kernel_index(r, want_bands[j].name, want_bands[j].smem);
    char *a = article(html, i);
    for (int s = 1; s <= 5; s++)
      if (strcmp(band_state(a, s), want_bands[j].states[s - 1]) != 0)
        fail_msg("%s step %d: %s, expected %s", want_bands[j].name, s, band_state(a, s), want_bands[j].states[s - 1]);
    free(a);
  }
  char *a0 = article(html, kernel_index(r, "mysteryA", 0));
  assert_non_null(strstr(a0, "sectors/req ld 32<"));
  assert_non_null(strstr(a0, "&gt; 16: uncoalesced loads"));
  assert_non_null(strstr(a0, "memory dram 4.179%"));      /* step 2: the busiest memory level */
  assert_non_null(strstr(a0, "memory: mem SOL 75.28%")); /* and the unit that set the bound */
  assert_non_null(strstr(a0, "rank 4/4, 12.39%"));     /* beside the verdict: its rank and share of the export */
  assert_non_null(strstr(a0, "<b>uncoalesced_global_loads</b>"));
  free(a0);
  char *a1 = article(html, kernel_index(r, "mysteryB", 0));
  assert_non_null(strstr(a1, "threads/inst 16.22"));
  assert_non_null(strstr(a1, "lanes allowed 32"));
  assert_non_null(strstr(a1, "&lt; 24: divergent warps"));
  assert_non_null(strstr(a1, "skipped: compute bound"));
  assert_non_null(strstr(a1, "compute: issue 97%"));
  free(a1);
  char *a2 = article(html, kernel_index(r, "mysteryC", 116736));
  assert_non_null(strstr(a2, "&lt; 60%: shared memory"));
  free(a2);
  /* The kernel table: total, share and the busiest units of each entry. */
  assert_non_null(strstr(html, "<th data-sort=\"num\">busiest pipe</th><th data-sort=\"num\">busiest memory</th>"));
  assert_non_null(strstr(html, "<td data-v=\"1.221194\">dram 1.221%</td>"));
  /* The kernel table sorts by time: the median's cell carries the ns. */
  assert_non_null(strstr(html, "<td data-v=\"96384\">96.38 us</td>"));
  /* No regions offline. */
  assert_non_null(strstr(html, "No regions (an ncu export has no wall clock)"));
  free(html);
  pc_report_free(r);
}

static void test_missing_inputs(void **state) {
  (void)state;
  pc_report *r = load("h200/mystery.csv");
  pc_kernel *b = &r->kernels[1], *c = &r->kernels[2];
  b->metric[PC_M_FFMA] = b->metric[PC_M_FADD] = b->metric[PC_M_FMUL] = PC_NULL;
  c->metric[PC_M_DRAM_BYTES_READ] = PC_NULL;
  pc_kernel *d = &r->kernels[3];
  d->metric[PC_M_PIPE_TENSOR_PCT] = 40; /* its FLOPs are not all counted */
  pc_checklist_report(r);
  assert_true(pc_is_null(d->derived.arithmetic_intensity) && pc_has(d->derived.dram_bytes));
  assert_true(pc_is_null(b->derived.arithmetic_intensity));
  char *html = html_of(r);
  assert_int_equal(count(html, "<circle class=\"point\""), 1);
  assert_null(strstr(html, "data-k=\"1\""));
  assert_null(strstr(html, "data-k=\"2\""));
  assert_null(strstr(html, "data-k=\"3\""));
  assert_non_null(strstr(html, "no point: FLOPs not measured"));
  assert_non_null(strstr(html, "no point: DRAM bytes not measured"));
  assert_non_null(strstr(html, "no point: a tensor-core kernel (the tensor pipe 100% of its pipe activity, at 40.0% of its "
                               "peak)"));
  assert_non_null(strstr(html, "1 of 4 kernels drawn"));
  assert_no_unmeasured_numbers(html);
  free(html);
  pc_report_free(r);
}

static void test_no_ceilings(void **state) {
  (void)state;
  pc_report *r = load("h200/mystery.csv");
  r->device.peak_dram_bytes_per_s = r->device.peak_fp32_flop_per_s = r->device.ridge_flop_per_byte = PC_NULL;
  char *html = html_of(r);
  assert_int_equal(count(html, "class=\"ceiling\""), 0);
  assert_int_equal(count(html, "class=\"ridge\""), 0);
  assert_non_null(strstr(html, "DRAM roof: not known"));
  assert_non_null(strstr(html, "FP32 roof: not known"));
  assert_int_equal(count(html, "<circle class=\"point\""), 4);
  assert_no_unmeasured_numbers(html);
  free(html);
  pc_report_free(r);
}

static void test_escaping(void **state) {
  (void)state;
  pc_report *r = load("h200/mystery.csv");
  /* Labels are display names (pc_kernel_label_name): make both hostile. */
  free(r->kernels[0].name);
  free(r->kernels[0].display_name);
  r->kernels[0].name = pc_strdup("evil<script>alert(1)</script>&\"'\x01\xff");
  r->kernels[0].display_name = pc_strdup("evil<script>alert(1)</script>&\"'\x01\xff");
  char *html = html_of(r);
  assert_null(strstr(html, "<script>alert"));
  assert_non_null(strstr(html, "evil&lt;script&gt;alert(1)&lt;/script&gt;&amp;"));
  assert_null(strstr(html, "\x01"));
  assert_null(strstr(html, "\xff"));
  assert_int_equal(count(html, "<script>"), 1); /* the page's own */
  free(html);
  pc_report_free(r);
}

static void test_text_cut(void **state) {
  (void)state;
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  pc_html_text_cut(f, "abcdef", 6);
  fputc('|', f);
  pc_html_text_cut(f, "abcdefg", 6);
  fputc('|', f);
  pc_html_text_cut(f, "\xc3\xa9\xc3\xa9\xc3\xa9", 2); /* characters, not bytes */
  fputc('|', f);
  pc_html_text_cut(f, "<&>", 3);
  fclose(f);
  assert_string_equal(buf, "abcdef|abcde\xE2\x80\xA6|\xc3\xa9\xE2\x80\xA6|&lt;&amp;&gt;");
  free(buf);
  assert_int_equal(pc_html_chars_for(162), 24);
  assert_int_equal(pc_html_chars_for(1), 1);
}

static void test_region_timeline(void **state) {
  (void)state;
  pc_report *r = load("h200/mystery.csv");
  /* Seed 000's day 9: 0.786 ms of kernel in a 45.822 ms round trip. */
  r->step1_assessed = 1;
  pc_region *g = pc_report_add_region(r);
  g->name = pc_strdup("roundtrip");
  g->wall_ns = 45.822e6;
  g->kernel_ns = 0.786e6;
  g->memcpy_ns = 44.0e6;
  g->memset_ns = 0;
  g->gpu_idle_ns = 0;
  g->launches = 1;
  for (size_t i = 0; i < r->nkernels; i++) r->kernels[i].region = pc_strdup("roundtrip");
  /* Two devices: 0.586 ms on device 0, 0.2 ms on device 1. */
  g->devices = calloc(2, sizeof *g->devices);
  assert_non_null(g->devices);
  g->ndevices = 2;
  for (int d = 0; d < 2; d++) {
    g->devices[d].ordinal = d;
    snprintf(g->devices[d].pci_bus_id, sizeof g->devices[d].pci_bus_id, "0000:%02x:00.0", 0x19 + d);
    g->devices[d].kernel_ns = d ? 0.2e6 : 0.586e6;
    g->devices[d].kernel_share = g->devices[d].kernel_ns / g->wall_ns;
    g->devices[d].launches = 1;
  }
  pc_checklist_report(r);
  assert_int_equal(g->diag.verdict.cause, PERFCHECK_CAUSE_NOT_THE_SLOW_PART);
  char *html = html_of(r);
  /* A bar and a line per device: 0.2 / 45.822 of 884 px is 3.86 px. */
  assert_non_null(strstr(html, "<rect class=\"seg-k\" x=\"0.00\" y=\"2\" width=\"3.86\""));
  assert_non_null(strstr(html, "device 1 (0000:1a:00.0): kernels busy"));
  assert_non_null(strstr(html, "device 0 (0000:19:00.0): kernels busy"));
  /* 0.786 / 45.822 of 884 px is 15.16 px of kernels, then 44 ms of copies. */
  assert_non_null(strstr(html, "<rect class=\"seg-k\" x=\"0.00\" y=\"2\" width=\"15.16\""));
  assert_non_null(strstr(html, "<rect class=\"seg-c\" x=\"15.16\" y=\"2\" width=\"848.85\""));
  assert_non_null(strstr(html, "<b>Step 1:</b> not_the_slow_part"));
  char *a = article(html, 0);
  assert_string_equal(band_state(a, 1), "catches");
  assert_non_null(strstr(a, "region busy 1.715%"));
  assert_non_null(strstr(a, "region not the slow part"));
  free(a);
  free(html);
  pc_report_free(r);
}

/* 100 kernels: the mystery launches again and again under other names.
 * Each entry is moved out of a freshly parsed report (ownership and all), so
 * no two entries share a string, whatever fields pc_kernel grows (a struct
 * copy here once shared demangled and display_name with its source: a double
 * free at the end). */
static void test_hundred_kernels(void **state) {
  (void)state;
  pc_report *r = load("h200/mystery.csv");
  const size_t per = r->nkernels;
  while (r->nkernels < 100) {
    pc_report *src = load("h200/mystery.csv");
    for (size_t j = 0; j < src->nkernels && r->nkernels < 100; j++) {
      pc_kernel *k = pc_report_add_kernel(r);
      assert_non_null(k);
      pc_kernel_free(k);
      *k = src->kernels[j]; /* moved: src gives it up below */
      pc_kernel_init(&src->kernels[j]);
      char name[96];
      snprintf(name, sizeof name, "void ns::synthetic_kernel_%03zu<float, 128, 256>(const float *, float *)",
               r->nkernels - 1);
      assert_int_equal(pc_kernel_set_names(k, NULL, name), 0);
    }
    pc_report_free(src); /* frees what was not moved: nothing */
  }
  assert_int_equal(per, 4);
  pc_checklist_report(r); /* the shares are now of 100 entries' time */
  char *html = html_of(r);
  assert_int_equal(count(html, "<circle class=\"point\""), 100);
  assert_int_equal(count(html, "<article id="), 100);
  assert_int_equal(count(html, "<g class=\"band box"), 500);
  assert_non_null(strstr(html, "synthetic_kernel_099&lt;float, 128, 256&gt;"));
  /* Links and labels are display names (no namespace); the full demangled
   * name is said once, in its article. */
  assert_non_null(strstr(html, "\">synthetic_kernel_099&lt;float, 128, 256&gt;</a>"));
  assert_int_equal(count(html, "ns::synthetic"), 96); /* the 96 renamed entries */
  if (strlen(html) >= 1000000) fail_msg("100 kernels: %zu bytes", strlen(html));
  free(html);
  pc_report_free(r);
}

/* The bands read the walk's own rules: pc_checklist_steps agrees with every
 * diagnosis of every committed export (the verdict's step catches, with the
 * verdict's cause and metric; nothing catches at_roof or latency_bound; a
 * not_assessed verdict's step is not assessed). */
static void test_steps_follow_the_walk(void **state) {
  (void)state;
  static const char *const files[] = {
      "h200/atomics.csv",  "h200/atomics.cache-none.csv",  "h200/launches.csv",  "h200/launches.cache-none.csv",
      "h200/mystery.csv",  "h200/mystery.cache-none.csv",  "h200/occupancy.csv", "h200/occupancy.cache-none.csv",
      "h200/roundtrip.csv", "h200/roundtrip.cache-none.csv", "t4_seed000.csv"};
  size_t checked = 0, caught = 0;
  for (size_t fi = 0; fi < sizeof files / sizeof files[0]; fi++) {
    pc_report *r = load(files[fi]);
    for (size_t i = 0; i < r->nkernels; i++) {
      const pc_kernel *k = &r->kernels[i];
      const pc_finding *vd = &k->diag.verdict;
      pc_step_view v[6];
      pc_checklist_steps(k, &r->device, pc_report_kernel_region(r, k), v);
      int catches = 0;
      for (int st = 1; st <= 5; st++) catches += v[st].state == PC_STEP_CATCHES;
      if (vd->step >= 1 && vd->step <= 5 && vd->cause != PERFCHECK_CAUSE_NOT_ASSESSED) {
        if (v[vd->step].state != PC_STEP_CATCHES || v[vd->step].hit.cause != vd->cause ||
            strcmp(v[vd->step].hit.metric, vd->metric) != 0)
          fail_msg("%s %s: verdict step %d %s, step view state %d", files[fi], k->name, vd->step,
                   perfcheck_cause_name(vd->cause), (int)v[vd->step].state);
        caught++;
      } else if (vd->cause == PERFCHECK_CAUSE_AT_ROOF || vd->cause == PERFCHECK_CAUSE_LATENCY_BOUND) {
        if (catches) fail_msg("%s %s: %s but a step catches", files[fi], k->name, perfcheck_cause_name(vd->cause));
      } else if (vd->cause == PERFCHECK_CAUSE_NOT_ASSESSED && vd->step >= 2) {
        if (catches || v[vd->step].state != PC_STEP_NOT_ASSESSED)
          fail_msg("%s %s: not_assessed at step %d, view state %d", files[fi], k->name, vd->step,
                   (int)v[vd->step].state);
      }
      checked++;
    }
    pc_report_free(r);
  }
  print_message("%zu kernel entries, %zu caught at steps 1-5\n", checked, caught);
  assert_int_equal(checked, 28);
  assert_int_equal(caught, 21);
}

/* The page's band of step `step` for kernel i. */
static char *band_of(const char *html, size_t i, int step) {
  char *a = article(html, i);
  char key[64];
  snprintf(key, sizeof key, "data-step=\"%d\"", step);
  const char *b = strstr(a, key);
  if (!b) fail_msg("no band %d", step);
  const char *e = strstr(b, "</g>");
  assert_non_null(e);
  char *out = malloc((size_t)(e - b) + 1);
  memcpy(out, b, (size_t)(e - b));
  out[e - b] = '\0';
  free(a);
  return out;
}

static void assert_band(const char *html, size_t i, int step, const char *state, const char *text1,
                        const char *text2) {
  char *b = band_of(html, i, step);
  char want[64];
  snprintf(want, sizeof want, "data-state=\"%s\"", state);
  if (!strstr(b, want)) fail_msg("kernel %zu band %d: want %s in %s", i, step, want, b);
  if (text1 && !strstr(b, text1)) fail_msg("kernel %zu band %d: want \"%s\" in %s", i, step, text1, b);
  if (text2 && !strstr(b, text2)) fail_msg("kernel %zu band %d: want \"%s\" in %s", i, step, text2, b);
  free(b);
}

/* Step 3 by bytes per sector: loads using 4 of 32 bytes are caught whatever
 * their sectors per request; 32 sectors per request fully used (wide
 * accesses) pass; sectors per request alone between 4 and 16 say nothing. */
static void test_band_bytes_per_sector(void **state) {
  (void)state;
  pc_report *r = load("h200/mystery.csv");
  size_t a = kernel_index(r, "mysteryA", 0);
  r->kernels[a].metric[PC_M_LD_BYTES_PER_SECTOR] = 4;
  r->kernels[a].metric[PC_M_ST_BYTES_PER_SECTOR] = 32;
  pc_checklist_report(r);
  a = kernel_index(r, "mysteryA", 0);
  assert_int_equal(r->kernels[a].diag.verdict.cause, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS);
  assert_non_null(strstr(r->kernels[a].diag.verdict.metric, "bytes_per_sector_mem_global_op_ld"));
  char *html = html_of(r);
  assert_band(html, a, 3, "catches", ">bytes/sector ld 4<", "&lt; 16 B: uncoalesced ld");
  assert_band(html, a, 3, "catches", ">bytes/sector st 32<", NULL);
  free(html);

  r->kernels[a].metric[PC_M_LD_BYTES_PER_SECTOR] = 32; /* 32 sectors a request, every byte used */
  pc_checklist_report(r);
  a = kernel_index(r, "mysteryA", 0);
  assert_int_not_equal(r->kernels[a].diag.verdict.step, 3);
  html = html_of(r);
  assert_band(html, a, 3, "passes", "&gt; 16 B/sector: passes", ">bytes/sector ld 32<");
  free(html);

  /* No bytes per sector: 8 sectors per request could be 8-byte loads. */
  pc_kernel *k = &r->kernels[a];
  k->metric[PC_M_LD_BYTES_PER_SECTOR] = k->metric[PC_M_ST_BYTES_PER_SECTOR] = PC_NULL;
  k->metric[PC_M_LD_SECTORS] = 8 * k->metric[PC_M_LD_REQUESTS];
  k->metric[PC_M_ST_SECTORS] = 8 * k->metric[PC_M_ST_REQUESTS];
  pc_checklist_report(r);
  a = kernel_index(r, "mysteryA", 0);
  assert_int_equal(r->kernels[a].diag.verdict.cause, PERFCHECK_CAUSE_NOT_ASSESSED);
  html = html_of(r);
  assert_band(html, a, 3, "not assessed", "4-16/req: width unknown", ">sectors/req ld 8<");
  free(html);
  pc_report_free(r);
}

/* Step 2 names the busiest pipe and memory level; the table shows them. */
static void test_band_busiest_units(void **state) {
  (void)state;
  pc_report *r = load("h200/mystery.csv");
  size_t b = kernel_index(r, "mysteryB", 0);
  r->kernels[b].metric[PC_M_PIPE_FMA_PCT] = 45.5;
  r->kernels[b].metric[PC_M_PIPE_ALU_PCT] = 30;
  r->kernels[b].metric[PC_M_L2_THROUGHPUT_PCT] = 3.25;
  pc_checklist_report(r);
  b = kernel_index(r, "mysteryB", 0);
  assert_string_equal(r->kernels[b].busiest_pipe.name, "fma");
  assert_string_equal(r->kernels[b].busiest_memory.name, "l2");
  char *html = html_of(r);
  assert_band(html, b, 2, "passes", ">pipe fma 45.5%<", ">memory l2 3.25%<");
  assert_band(html, b, 2, "passes", ">compute: issue 97%<", NULL); /* the bound's unit: issue slots */
  assert_non_null(strstr(html, "<td data-v=\"45.5\">fma 45.5%</td><td data-v=\"3.25\">l2 3.25%</td>"));
  free(html);
  pc_report_free(r);
}

/* Step 4 against the lanes the launch allows; step 5's near-roof rule. */
static void test_band_lanes_and_near_roof(void **state) {
  (void)state;
  pc_report *r = load("h200/mystery.csv");
  size_t c0 = kernel_index(r, "mysteryC", 0), c1 = kernel_index(r, "mysteryC", 116736);
  r->kernels[c0].block[0] = 16; /* 16 lanes a warp at most */
  r->kernels[c0].metric[PC_M_THREAD_INST_PER_INST] = 12.5; /* above 3/4 of 16: not divergent */
  r->kernels[c1].metric[PC_M_ISSUE_ACTIVE] = 0.9;          /* a unit at 90%: occupancy is not it */
  pc_checklist_report(r);
  c0 = kernel_index(r, "mysteryC", 0), c1 = kernel_index(r, "mysteryC", 116736);
  assert_int_equal(r->kernels[c0].diag.verdict.cause, PERFCHECK_CAUSE_PARTIAL_WARPS);
  assert_int_equal(r->kernels[c1].diag.verdict.cause, PERFCHECK_CAUSE_AT_ROOF);
  char *html = html_of(r);
  assert_band(html, c0, 4, "catches", ">lanes allowed 16<", "partial warps (&lt; 24)");
  assert_band(html, c0, 4, "catches", ">threads/inst 12.5<", NULL);
  assert_band(html, c1, 5, "passes", ">achieved 12.35%<", ">low; issue 90% at roof<");
  free(html);
  /* Divergence is judged against the lanes allowed: 11 of 16 is below 3/4. */
  r->kernels[c0].metric[PC_M_THREAD_INST_PER_INST] = 11;
  pc_checklist_report(r);
  c0 = kernel_index(r, "mysteryC", 0);
  html = html_of(r);
  assert_band(html, c0, 4, "catches", ">threads/inst 11<", NULL);
  assert_true(fabs(pc_checklist_divergence_threshold(&r->kernels[c0]) - 12) < 1e-9);
  free(html);
  pc_report_free(r);
}

/* In process: each kernel's share of its region's kernel time, and the
 * region's own step 1. */
static void test_band_step1_in_process(void **state) {
  (void)state;
  pc_report *r = load("h200/mystery.csv");
  r->step1_assessed = 1;
  pc_region *g = pc_report_add_region(r);
  g->name = pc_strdup("step");
  g->wall_ns = 1.0e6;
  g->kernel_ns = 0.9e6; /* busy 90% */
  g->memcpy_ns = g->memset_ns = g->gpu_idle_ns = 0;
  g->launches = 4;
  for (size_t i = 0; i < r->nkernels; i++) {
    r->kernels[i].region = pc_strdup("step");
    r->kernels[i].total_ns = strcmp(r->kernels[i].name, "mysteryA") == 0 ? 10e3 : 300e3;
  }
  pc_checklist_report(r);
  size_t a = kernel_index(r, "mysteryA", 0), b = kernel_index(r, "mysteryB", 0);
  /* Step 1 is the region's: the 1% kernel keeps its own verdict, and its
   * band shows its rank and share beside the region's answer. */
  assert_int_equal(r->kernels[a].diag.verdict.cause, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS);
  assert_int_equal(r->kernels[a].rank, 4);
  char *html = html_of(r);
  assert_band(html, a, 1, "passes", ">rank 4/4, 1.099%<", ">region busy 90%<");
  assert_band(html, b, 1, "passes", ">rank 1/4, 32.97%<", ">region busy 90%<");
  assert_band(html, b, 1, "passes", "region \xE2\x89\xA5 50%: passes", NULL);
  free(html);
  pc_report_free(r);
}

/* Without a time share no point is scaled, and the legend says why. */
static void test_points_without_share(void **state) {
  (void)state;
  pc_report *r = load("h200/mystery.csv");
  r->kernels[0].total_ns = PC_NULL; /* one unknown: no share in the export (pc_kernel_time_shares) */
  pc_checklist_report(r);
  for (size_t i = 0; i < r->nkernels; i++) assert_true(pc_is_null(r->kernels[i].time_share));
  char *html = html_of(r);
  assert_int_equal(count(html, "r=\"6.00\""), 4);
  assert_null(strstr(html, "data-share="));
  assert_non_null(strstr(html, "every point has the same size: 4 of the 4 drawn kernels have no kernel time share"));
  assert_no_unmeasured_numbers(html);
  free(html);
  pc_report_free(r);
}

/* An FMA kernel with a little tensor activity is drawn from its
 * CUDA-core FLOPs (the H200 corpus export: mysteryB and mysteryC at 1.5 to
 * 2.9% tensor got no point before, one point in four); a tensor-core kernel
 * (the tensor pipe most of its pipe activity) is not, and says why. */
static void test_tensor_share(void **state) {
  (void)state;
  perfcheck_report *r = NULL;
  assert_int_equal(perfcheck_report_read(PERFCHECK_TEST_DATA "/corpus/h200-2026-12-01/mystery.csv.gz", 1, &r), PERFCHECK_OK);
  for (size_t i = 0; i < r->nkernels; i++) {
    const double share = pc_roof_tensor_share(&r->kernels[i]);
    assert_true(share >= 0 && share < 0.05);
  }
  char *html = html_of(r);
  assert_int_equal(count(html, "<circle class=\"point\""), 4);
  assert_non_null(strstr(html, "4 of 4 kernels drawn"));
  /* The checklist keeps the intensity of a kernel whose FMA pipe is busier
   * than its tensor pipe; the note is for those whose intensity
   * it left unknown. */
  size_t unknown = 0;
  for (size_t i = 0; i < r->nkernels; i++) unknown += pc_is_null(r->kernels[i].derived.arithmetic_intensity);
  assert_int_equal(count(html, "drawn <span class=\"why\">(CUDA-core FLOPs: the tensor pipe is"), unknown);
  /* The point is the measured FLOPs over the measured DRAM bytes and time. */
  for (size_t i = 0; i < r->nkernels; i++) {
    pc_roof_point p;
    pc_roof_point_set(&p, i, "k", &r->kernels[i]);
    const pc_kernel *k = &r->kernels[i];
    assert_true(pc_roof_point_drawn(&p));
    assert_float_equal(p.ai, k->derived.flops / k->derived.dram_bytes, 1e-9 * p.ai);
    assert_float_equal(p.gflops, k->derived.flops / k->metric[PC_M_DURATION], 1e-9 * p.gflops);
  }
  free(html);
  perfcheck_report_destroy(r);
  /* PyTorch's GEMMs and attention: tensor-core kernels, no point, each says why. */
  assert_int_equal(perfcheck_report_read(PERFCHECK_TEST_DATA "/corpus/h200-2026-12-01/torch_ops.csv.gz", 1, &r), PERFCHECK_OK);
  html = html_of(r);
  size_t tensor_kernels = 0;
  for (size_t i = 0; i < r->nkernels; i++) tensor_kernels += pc_roof_tensor_share(&r->kernels[i]) >= PC_ROOF_TENSOR_SHARE_MAX;
  const size_t said = count(html, "no point: a tensor-core kernel (the tensor pipe ");
  assert_true(said >= 3 && said <= tensor_kernels); /* the others lack FLOPs or DRAM bytes first */
  free(html);
  perfcheck_report_destroy(r);
}

/* The page opens with the verdicts, most time first: the kernels that hold
 * the time, then those under 1% of their region's kernel time, marked not
 * worth changing; a library kernel's advice in two parts, an estimated
 * gain said as one, a borderline verdict with the number that makes it so. */
static void test_verdicts_first(void **state) {
  (void)state;
  pc_report *r = load("h200/mystery.csv");
  /* Shares of one region: mysteryA the most, mysteryB under 1%. */
  const double share[4] = {0.6, 0.005, 0.25, 0.145};
  size_t ia = kernel_index(r, "mysteryA", 0), ib = kernel_index(r, "mysteryB", 0);
  size_t ic = kernel_index(r, "mysteryC", 116736), id = kernel_index(r, "mysteryC", 0);
  const size_t at[4] = {ia, ib, ic, id};
  for (size_t i = 0; i < 4; i++) {
    r->kernels[at[i]].time_share = share[i];
    r->kernels[at[i]].worth_changing = share[i] >= 0.01; /* as the checklist sets it from the share */
  }
  pc_kernel *c = &r->kernels[ic];
  snprintf(c->library, sizeof c->library, "%s", "CUTLASS");
  snprintf(c->diag.library_advice, sizeof c->diag.library_advice, "%s", "Pick a tile configuration with less shared "
           "memory per block.");
  c->diag.gain.speedup = 1.8;
  c->diag.gain.saved_ns = 1.2e5;
  snprintf(c->diag.gain.basis, sizeof c->diag.gain.basis, "%s", "eight blocks per SM instead of one");
  pc_kernel *d = &r->kernels[id]; /* at_roof at 96%: a runner-up evidence from the report */
  d->diag.borderline = 1;
  d->diag.runner_up = PERFCHECK_CAUSE_LATENCY_BOUND;
  snprintf(d->diag.runner_up_metric, sizeof d->diag.runner_up_metric, "%s", "smsp__issue_active.avg.per_cycle_active");
  d->diag.runner_up_value = 96;
  d->diag.runner_up_threshold = 95;
  char *html = html_of(r);
  char h[4][160];
  snprintf(h[0], sizeof h[0], "<article id=\"k%zu\" data-num=\"1\">\n<h3>1. mysteryA</h3>", ia);
  snprintf(h[1], sizeof h[1], "<article id=\"k%zu\" data-num=\"2\">\n<h3>2. mysteryC, 116736 B dynamic <span "
           "class=\"lib\">CUTLASS</span></h3>", ic);
  snprintf(h[2], sizeof h[2], "<article id=\"k%zu\" data-num=\"3\">\n<h3>3. mysteryC, 0 B dynamic</h3>", id);
  snprintf(h[3], sizeof h[3], "<article id=\"k%zu\" data-num=\"4\" class=\"not-worth\">\n<h3>4. mysteryB</h3>", ib);
  const char *prev = strstr(html, "<section id=\"checklist\">");
  assert_non_null(prev);
  for (int i = 0; i < 4; i++) {
    const char *p = strstr(html, h[i]);
    if (!p) fail_msg("no %s", h[i]);
    assert_true(p > prev);
    prev = p;
  }
  const char *head = strstr(html, "<h3 class=\"not-worth-head\">Not worth changing");
  assert_non_null(head);
  assert_true(head < strstr(html, h[3]) && head > strstr(html, h[2]));
  assert_true(strstr(html, h[3]) < strstr(html, "<section id=\"roofline\">"));
  char *a = article(html, ib);
  assert_non_null(strstr(a, "<b>not worth changing</b> (under 1%; the verdict stands)"));
  free(a);
  a = article(html, ic);
  assert_non_null(strstr(a, "<p class=\"advice\"><b>Advice:</b> Pick a tile configuration with less shared memory per "
                            "block.</p><p class=\"advice-inside\">Inside the kernel (for CUTLASS's authors): Shared "
                            "memory per block"));
  assert_non_null(strstr(a, "<p class=\"gain\"><b>Estimated gain</b> (an estimate, not a measurement): 1.8x faster, about "
                            "120 us saved: eight blocks per SM instead of one.</p>"));
  free(a);
  a = article(html, id);
  assert_non_null(strstr(a, "<b>Borderline:</b> nudging one threshold by 5 points (10% of a ratio) gives "
                            "<b>latency_bound</b> instead: smsp__issue_active.avg.per_cycle_active = 0.96 inst/cycle (96% "
                            "of peak) (threshold 0.95 inst/cycle: 95% of peak).</p>"));
  free(a);
  /* The roofline numbers its points as the verdicts do. */
  char lab[64];
  snprintf(lab, sizeof lab, "<text class=\"plabel\" data-k=\"%zu\"", ia);
  const char *l = strstr(html, lab);
  assert_non_null(l);
  assert_non_null(strstr(l, ">1 mysteryA</text>"));
  free(html);
  pc_report_free(r);
}

/* In process with the default kernel replay of several passes: a point per
 * kernel all the same, from the warm DRAM bytes, hollow and said so. */
static void test_points_in_process(void **state) {
  (void)state;
  perfcheck_report *r = NULL;
  assert_int_equal(perfcheck_report_read(PERFCHECK_TEST_DATA "/h200-torch/torch_step.perfcheck-run.json", 1, &r),
                   PERFCHECK_OK);
  size_t multipass = 0;
  for (size_t i = 0; i < r->nkernels; i++) multipass += r->kernels[i].passes > 1;
  assert_true(multipass > 20);
  char *html = html_of(r);
  const size_t hollow = count(html, "<circle class=\"point approx\"");
  print_message("%zu hollow points of %zu kernels\n", hollow, r->nkernels);
  assert_true(hollow >= 25);
  assert_int_equal(count(html, "<circle class=\"point\""), 0);
  assert_int_equal(count(html, "<text class=\"plabel\""), hollow);
  assert_non_null(strstr(html, "The cache level, plainly: "));
  assert_non_null(strstr(html, "drawn <span class=\"why\">(approximate: DRAM bytes of a 6-pass kernel replay, not a "
                               "cold run"));
  assert_no_unmeasured_numbers(html);
  free(html);
  pc_report_free(r);
}

static void test_write_error(void **state) {
  (void)state;
  pc_report *r = load("h200/mystery.csv");
  FILE *f = fopen("/dev/full", "w");
  if (!f) skip();
  assert_int_equal(perfcheck_report_write(r, PERFCHECK_FORMAT_HTML, f), PERFCHECK_ERROR_IO);
  fclose(f);
  pc_report_free(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_mystery),         cmocka_unit_test(test_missing_inputs),
      cmocka_unit_test(test_no_ceilings),     cmocka_unit_test(test_escaping),
      cmocka_unit_test(test_text_cut),        cmocka_unit_test(test_region_timeline),
      cmocka_unit_test(test_hundred_kernels), cmocka_unit_test(test_write_error),
      cmocka_unit_test(test_steps_follow_the_walk), cmocka_unit_test(test_band_bytes_per_sector),
      cmocka_unit_test(test_band_busiest_units), cmocka_unit_test(test_band_lanes_and_near_roof),
      cmocka_unit_test(test_band_step1_in_process), cmocka_unit_test(test_points_without_share),
      cmocka_unit_test(test_tensor_share), cmocka_unit_test(test_verdicts_first),
      cmocka_unit_test(test_points_in_process),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
