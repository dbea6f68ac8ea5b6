/* The regex guard and ncu's kernel-filter vocabulary (pc_regex.c): each rule
 * refuses what it names, at the offset it names; what a user writes every day
 * passes; the worst accepted patterns stay cheap; an exact name selects the
 * function name as ncu's -k NAME does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "pc_regex.h"

static double seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void refused(const char *pattern, const char *rule, size_t at) {
  size_t got = 99999;
  char why[300] = "";
  if (pc_regex_check(pattern, &got, why, sizeof why) == 0) fail_msg("\"%s\" passed the guard", pattern);
  char want[64];
  snprintf(want, sizeof want, "(rule \"%s\")", rule);
  if (!strstr(why, want)) fail_msg("\"%s\": wanted %s, got \"%s\"", pattern, want, why);
  if (got != at) fail_msg("\"%s\": offset %zu, wanted %zu (%s)", pattern, got, at, why);
}

static void passes(const char *pattern) {
  size_t at = 0;
  char why[300] = "";
  if (pc_regex_check(pattern, &at, why, sizeof why) != 0) fail_msg("\"%s\" refused: %s", pattern, why);
  regex_t re;
  if (pc_regex_compile(&re, pattern, &at, why, sizeof why) != 0) fail_msg("\"%s\" does not compile: %s", pattern, why);
  regfree(&re);
}

static void test_rules(void **state) {
  (void)state;
  /* The cases. */
  refused("((a{255}){255}){255}", "nesting", 15);
  refused("(a{255}){255}", "expansion", 0);
  refused("(x|xx)+\\1y", "backref", 7);
  /* Each rule at its bound. */
  char longp[PC_REGEX_MAX_LEN + 2];
  memset(longp, 'x', sizeof longp);
  longp[PC_REGEX_MAX_LEN] = '\0';
  passes(longp);
  longp[PC_REGEX_MAX_LEN] = 'x';
  longp[PC_REGEX_MAX_LEN + 1] = '\0';
  refused(longp, "length", PC_REGEX_MAX_LEN);
  passes("a{255}");
  refused("a{256}", "count", 1);
  refused("a{1,256}", "count", 1);
  refused("a{300,}", "count", 1);
  passes("(a{2}){255}");
  refused("((a{2}){2}){2}", "nesting", 11);
  passes("(.?){255}(.?){255}");   /* 510 */
  refused("(.?){255}(.?){255}x{3}", "expansion", 0);
  refused("((.?){16}){32}x", "expansion", 0); /* 513 */
  passes("((.?){16}){32}");         /* 512 */
  refused("a+{2}", "stacked", 2);
  refused("^k++", "stacked", 3);
  refused("a{1,2}?", "stacked", 6);
  refused("\\9", "backref", 0);
  /* What is none of these: escapes, brackets, classes, a lone ')'. */
  passes("\\\\1");
  passes("[\\1]");
  passes("[]a]+");
  passes("[[:alpha:]_]+<[0-9]+>");
  passes("^mystery[BC]$");
  passes("gemm|conv(2d)?");
  passes("^(myst(e)+r)+yA$");
  passes("(.*){200}x");
  passes(")a)");
  /* regcomp's own refusals come through with its text. */
  regex_t re;
  size_t at = 9;
  char why[300];
  assert_int_equal(pc_regex_compile(&re, "a{2,1}", &at, why, sizeof why), -1);
  assert_int_equal(at, 0);
  assert_non_null(strstr(why, "\\{\\}"));
  assert_int_equal(pc_regex_compile(&re, "(", &at, why, sizeof why), -1);
  assert_int_equal(pc_regex_check(NULL, &at, why, sizeof why), -1);
}

/* The worst patterns the guard lets through, against an 8 KiB name: bounded
 * time and memory (the unguarded ones took 100 s or 23 GB). */
static void test_accepted_cost(void **state) {
  (void)state;
  static const char *const worst[] = {"((.?){2}){255}x", "(.?){255}(.?){255}x", "(.*a.?){100}x",
                                      "([a-z]{0,20}){25}x", "(.{0,255}){2}x", "(a|aa){0,170}b"};
  const size_t n = 8192;
  char *name = malloc(n + 2);
  assert_non_null(name);
  memset(name, 'a', n);
  name[n] = '!';
  name[n + 1] = '\0';
  for (size_t i = 0; i < sizeof worst / sizeof worst[0]; i++) {
    regex_t re;
    size_t at;
    char why[300];
    double t0 = seconds();
    if (pc_regex_compile(&re, worst[i], &at, why, sizeof why) != 0) fail_msg("%s refused: %s", worst[i], why);
    int rc = regexec(&re, name, 0, NULL, 0);
    double dt = seconds() - t0;
    regfree(&re);
    print_message("%-22s %s in %.3f s\n", worst[i], rc == 0 ? "matches" : "no match", dt);
    assert_int_equal(rc, REG_NOMATCH);
    assert_true(dt < 5.0); /* about 0.1 s here; loose for sanitizer builds */
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  print_message("max RSS %ld MB\n", ru.ru_maxrss / 1024);
  assert_true(ru.ru_maxrss < 512 * 1024); /* KiB: far below the 3.5 GB of the unguarded case */
  free(name);
}

static int filter_matches(const char *spec, const char *name) {
  size_t at;
  char why[300];
  char *re_text = pc_kernel_filter_regex(spec, &at, why, sizeof why);
  if (!re_text) fail_msg("filter \"%s\" refused: %s", spec, why);
  regex_t re;
  assert_int_equal(regcomp(&re, re_text, REG_EXTENDED | REG_NOSUB), 0);
  int m = regexec(&re, name, 0, NULL, 0) == 0;
  regfree(&re);
  free(re_text);
  return m;
}

static void test_kernel_filter(void **state) {
  (void)state;
  /* -k NAME: the function name, exactly (ncu's --kernel-name-base function). */
  assert_true(filter_matches("gemm", "gemm"));
  assert_true(filter_matches("gemm", "ns::gemm<128, float>"));
  assert_true(filter_matches("gemm", "a::b<1>::gemm"));
  assert_true(filter_matches("gemm", "(anonymous namespace)::gemm<4>"));
  assert_false(filter_matches("gemm", "gemm2"));
  assert_false(filter_matches("gemm", "my_gemm"));
  assert_false(filter_matches("gemm", "gemm_kernel<1>"));
  assert_false(filter_matches("gemm", "ns::gemm2<1>"));
  assert_true(filter_matches("mysteryA", "mysteryA"));
  assert_false(filter_matches("mysteryA", "mysteryAB"));
  /* Template arguments or a qualifier in NAME narrow it. */
  assert_true(filter_matches("scaleAdd<4>", "scaleAdd<4>"));
  assert_false(filter_matches("scaleAdd<4>", "scaleAdd<1>"));
  assert_true(filter_matches("ns::k", "ns::k<2>"));
  assert_false(filter_matches("ns::k", "other::k"));
  /* Special characters are literal. */
  assert_true(filter_matches("a.b", "a.b"));
  assert_false(filter_matches("a.b", "axb"));
  assert_true(filter_matches("operator()", "Functor::operator()"));
  /* regex:EXPR searches, as ncu's regex:. */
  assert_true(filter_matches("regex:^gemm", "gemm_kernel<1>"));
  assert_true(filter_matches("regex:Bar", "FooBarBaz"));
  assert_false(filter_matches("regex:^gemm$", "gemm2"));

  size_t at = 0;
  char why[300];
  assert_null(pc_kernel_filter_regex("", &at, why, sizeof why));
  assert_non_null(strstr(why, "empty"));
  assert_null(pc_kernel_filter_regex("regex:", &at, why, sizeof why));
  assert_int_equal(at, 6);
  assert_null(pc_kernel_filter_regex("regex:(x|xx)+\\1y", &at, why, sizeof why));
  assert_int_equal(at, 6 + 7);
  assert_non_null(strstr(why, "rule \"backref\""));
  assert_null(pc_kernel_filter_regex("regex:[a", &at, why, sizeof why));
  assert_null(pc_kernel_filter_regex("new\nline", &at, why, sizeof why));
  assert_int_equal(at, 3);
  /* A 2 KiB exact name needs no guard (it is our own literal regex). */
  char big[2048];
  memset(big, 'k', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  assert_true(filter_matches(big, big));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rules),
      cmocka_unit_test(test_accepted_cost),
      cmocka_unit_test(test_kernel_filter),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
