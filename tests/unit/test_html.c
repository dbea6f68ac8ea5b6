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

#include "pc_core.h"
#include "pc_html.h"

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
  snprintf(id, sizeof id, "<article id=\"k%zu\">", i);
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
  /* Every kernel measured: four points, both ceilings, no tensor roof. */
  assert_int_equal(count(html, "<circle class=\"point\""), 4);
  assert_int_equal(count(html, "data-ceiling=\"dram\""), 1);
  assert_int_equal(count(html, "data-ceiling=\"fp32\""), 1);
  assert_int_equal(count(html, "data-ceiling=\"tensor"), 0);
  assert_non_null(strstr(html, "Tensor-core roof: not measured"));
  /* The DRAM line's value is the device's peak, written exactly enough. */
  char want[64];
  snprintf(want, sizeof want, "data-ceiling=\"dram\" data-value=\"%.6g\"", r->device.peak_dram_bytes_per_s);
  assert_non_null(strstr(html, want));
  /* No time share in an export: every point the same size, and the legend
   * says so. */
  assert_int_equal(count(html, "r=\"6.00\""), 4);
  assert_non_null(strstr(html, "every point has the same size"));
  /* The bands follow the diagnosis: mysteryA caught at step 3, mysteryB at
   * 4, mysteryC (116736 B) at 5, mysteryC (0 B) nowhere; step 1 is not
   * assessed offline; step 3 is skipped on the compute side. */
  const struct {
    size_t i;
    const char *states[5];
  } want_bands[] = {
      {0, {"not assessed", "passes", "catches", "not assessed", "passes"}},
      {1, {"not assessed", "passes", "not assessed", "catches", "passes"}},
      {2, {"not assessed", "passes", "not assessed", "passes", "catches"}},
      {3, {"not assessed", "passes", "not assessed", "passes", "passes"}},
  };
  for (size_t j = 0; j < 4; j++) {
    char *a = article(html, want_bands[j].i);
    for (int s = 1; s <= 5; s++)
      if (strcmp(band_state(a, s), want_bands[j].states[s - 1]) != 0)
        fail_msg("kernel %zu step %d: %s, expected %s", want_bands[j].i, s, band_state(a, s),
                 want_bands[j].states[s - 1]);
    free(a);
  }
  char *a0 = article(html, 0);
  assert_non_null(strstr(a0, "sectors/req ld 32"));
  assert_non_null(strstr(a0, "&gt; 4: uncoalesced loads"));
  assert_non_null(strstr(a0, "<b>uncoalesced_global_loads</b>"));
  free(a0);
  char *a1 = article(html, 1);
  assert_non_null(strstr(a1, "threads/inst 16.22"));
  assert_non_null(strstr(a1, "skipped: compute bound"));
  free(a1);
  /* The kernel table sorts by time: the median's cell carries the ns. */
  assert_non_null(strstr(html, "<td class=\"n\" data-v=\"96384\">96.38 us</td>"));
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
  pc_checklist_report(r);
  assert_true(pc_is_null(b->derived.arithmetic_intensity));
  char *html = html_of(r);
  assert_int_equal(count(html, "<circle class=\"point\""), 2);
  assert_null(strstr(html, "data-k=\"1\""));
  assert_null(strstr(html, "data-k=\"2\""));
  assert_non_null(strstr(html, "no point: FLOPs not measured"));
  assert_non_null(strstr(html, "no point: DRAM bytes not measured"));
  assert_non_null(strstr(html, "2 of 4 kernels drawn"));
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
  pc_checklist_report(r);
  assert_int_equal(g->diag.verdict.cause, PERFCHECK_CAUSE_NOT_THE_SLOW_PART);
  char *html = html_of(r);
  /* 0.786 / 45.822 of 884 px is 15.16 px of kernels, then 44 ms of copies. */
  assert_non_null(strstr(html, "<rect class=\"seg-k\" x=\"0.00\" y=\"2\" width=\"15.16\""));
  assert_non_null(strstr(html, "<rect class=\"seg-c\" x=\"15.16\" y=\"2\" width=\"848.85\""));
  assert_non_null(strstr(html, "<b>Step 1:</b> not_the_slow_part"));
  char *a = article(html, 0);
  assert_string_equal(band_state(a, 1), "catches");
  assert_non_null(strstr(a, "kernels 1.715% of wall"));
  assert_non_null(strstr(a, "&lt; 50%: not the slow part"));
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
  assert_null(strstr(html, "ns::synthetic")); /* display names: no namespace */
  if (strlen(html) >= 1000000) fail_msg("100 kernels: %zu bytes", strlen(html));
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
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
