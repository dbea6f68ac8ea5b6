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

#include "base/pc_regex.h"

static double seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void refused(const char *pattern, const char *rule, size_t at) {
  size_t got = 99999;
  pc_err why;
  if (pc_regex_check(pattern, &got, &why) == PERFCHECK_OK) fail_msg("\"%s\" passed the guard", pattern);
  if (why.status != PERFCHECK_ERROR_INVALID_ARGUMENT) fail_msg("\"%s\": status %d", pattern, (int)why.status);
  char want[64];
  snprintf(want, sizeof want, "(rule \"%s\")", rule);
  if (!strstr(why.msg, want)) fail_msg("\"%s\": wanted %s, got \"%s\"", pattern, want, why.msg);
  if (got != at) fail_msg("\"%s\": offset %zu, wanted %zu (%s)", pattern, got, at, why.msg);
}

static void passes(const char *pattern) {
  size_t at = 0;
  pc_err why;
  if (pc_regex_check(pattern, &at, &why) != PERFCHECK_OK) fail_msg("\"%s\" refused: %s", pattern, why.msg);
  pc_regex re;
  if (pc_regex_compile(&re, pattern, &at, &why) != PERFCHECK_OK)
    fail_msg("\"%s\" does not compile: %s", pattern, why.msg);
  assert_int_equal(why.status, PERFCHECK_OK);
  pc_regex_free(&re);
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
  /* glibc reads {,n} as {0,n}: the count and nesting rules see it too. */
  refused("a{,256}", "count", 1);
  refused("((a{,2}){,2}){,2}", "nesting", 13);
  passes("a{,5}b");
  /* Word boundaries: the matcher has no look-around. */
  refused("\\bgemm", "boundary", 0);
  refused("x\\B", "boundary", 1);
  refused("\\<k\\>", "boundary", 0);
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
  pc_regex re;
  size_t at = 9;
  pc_err why;
  assert_int_equal(pc_regex_compile(&re, "a{2,1}", &at, &why), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_int_equal(why.status, PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_int_equal(at, 0);
  assert_non_null(strstr(why.msg, "\\{\\}"));
  assert_int_equal(pc_regex_compile(&re, "(", &at, &why), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_int_equal(pc_regex_check(NULL, &at, &why), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_string_equal(why.msg, "no pattern");
  /* NULL: no detail wanted, the status still says it. */
  assert_int_equal(pc_regex_compile(&re, "(", NULL, NULL), PERFCHECK_ERROR_INVALID_ARGUMENT);
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
    pc_regex re;
    size_t at;
    pc_err why;
    double t0 = seconds();
    if (pc_regex_compile(&re, worst[i], &at, &why) != PERFCHECK_OK) fail_msg("%s refused: %s", worst[i], why.msg);
    int rc = pc_regex_match(&re, name);
    double dt = seconds() - t0;
    pc_regex_free(&re);
    print_message("%-22s %s in %.3f s\n", worst[i], rc == 1 ? "matches" : "no match", dt);
    assert_int_equal(rc, 0);
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
  pc_err why;
  char *re_text = NULL;
  if (pc_kernel_filter_regex(spec, &re_text, &at, &why) != PERFCHECK_OK)
    fail_msg("filter \"%s\" refused: %s", spec, why.msg);
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
  pc_err why;
  char *text = NULL;
  assert_int_equal(pc_kernel_filter_regex("", &text, &at, &why), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_null(text);
  assert_int_equal(why.status, PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_non_null(strstr(why.msg, "empty"));
  assert_int_equal(pc_kernel_filter_regex("regex:", &text, &at, &why), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_int_equal(at, 6);
  assert_int_equal(pc_kernel_filter_regex("regex:(x|xx)+\\1y", &text, &at, &why), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_int_equal(at, 6 + 7);
  assert_non_null(strstr(why.msg, "rule \"backref\""));
  assert_int_equal(pc_kernel_filter_regex("regex:[a", &text, &at, &why), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_int_equal(pc_kernel_filter_regex("new\nline", &text, &at, &why), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_string_equal(why.msg, "a control character (0x0a) in the kernel name");
  assert_null(text);
  assert_int_equal(at, 3);
  /* A 2 KiB exact name needs no guard (it is our own literal regex). */
  char big[2048];
  memset(big, 'k', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  assert_true(filter_matches(big, big));
}

/* ---- the matcher against glibc ------------------------------------ */

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static unsigned rnd(unsigned n) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (unsigned)(rng % n);
}

/* A random pattern over a small alphabet, in the syntax both engines read. */
static void gen(char *out, size_t cap, size_t *o, int depth) {
  int pieces = 1 + (int)rnd(4);
  for (int k = 0; k < pieces && *o + 24 < cap; k++) {
    unsigned t = rnd(depth < 3 ? 16 : 12);
    const char *lit = NULL;
    char buf[24];
    switch (t) {
      case 0: case 1: case 2: case 3: buf[0] = "abcx"[rnd(4)], buf[1] = 0, lit = buf; break;
      case 4: lit = "."; break;
      case 5: lit = rnd(2) ? "[ab]" : "[^a]"; break;
      case 6: lit = rnd(2) ? "[a-c]" : "[[:alpha:]_]"; break;
      case 7: /* (glibc gets anchors in a repeated group wrong: "x(^|b){2}" finds "xb",
               * "x(^|b)(^|b)" does not; so only at the top level) */
        lit = depth ? "a" : rnd(3) ? "^" : "$";
        break;
      case 8: lit = rnd(2) ? "\\." : "\\w"; break;
      case 9: lit = rnd(2) ? "::" : "<"; break;
      case 10: lit = rnd(2) ? "\\s" : "[]a]"; break;
      case 11: lit = rnd(2) ? "\\W" : "[.a.][=b=]"; break;
      default: {
        out[(*o)++] = '(';
        gen(out, cap, o, depth + 1);
        if (rnd(2)) {
          out[(*o)++] = '|';
          if (rnd(4)) gen(out, cap, o, depth + 1);
        }
        out[(*o)++] = ')';
        break;
      }
    }
    if (lit) {
      size_t n = strlen(lit);
      memcpy(out + *o, lit, n);
      *o += n;
    }
    if (t == 7 && !depth) continue; /* glibc refuses an operator after an anchor */
    switch (rnd(9)) {
      case 0: out[(*o)++] = '*'; break;
      case 1: out[(*o)++] = '+'; break;
      case 2: out[(*o)++] = '?'; break;
      case 3: *o += (size_t)snprintf(out + *o, cap - *o, "{%u}", rnd(3)); break;
      case 4: *o += (size_t)snprintf(out + *o, cap - *o, "{%u,%u}", rnd(2), 1 + rnd(3)); break;
      case 5: *o += (size_t)snprintf(out + *o, cap - *o, "{%u,}", rnd(3)); break;
      case 6: *o += (size_t)snprintf(out + *o, cap - *o, "{,%u}", rnd(3)); break;
      default: break;
    }
  }
  out[*o] = '\0';
}

/* Thousands of random patterns and names: pc_regex_match says what glibc's
 * regexec says, whenever both accept the pattern (in the C locale). */
static void test_matcher_agrees_with_glibc(void **state) {
  (void)state;
  size_t patterns = 0, compared = 0, matched = 0;
  for (int round = 0; round < 6000; round++) {
    char pat[400];
    size_t o = 0;
    gen(pat, sizeof pat - 40, &o, 0);
    regex_t g;
    if (regcomp(&g, pat, REG_EXTENDED | REG_NOSUB) != 0) continue;
    pc_regex ours;
    size_t at;
    pc_err why;
    if (pc_regex_compile(&ours, pat, &at, &why) != PERFCHECK_OK) {
      regfree(&g);
      if (strstr(why.msg, "rule \"")) continue; /* the guard's, on purpose */
      fail_msg("glibc reads \"%s\", we refuse it: %s", pat, why.msg);
    }
    patterns++;
    /* glibc lets a '$' before more pattern match before a '\n', and a '^'
     * after more pattern match after one ("b$." finds "b\n", "b$" does not;
     * ".^" finds "a\nb"): not POSIX without REG_NEWLINE, which has them at
     * the ends only, as ours; no '\n' in the names of such patterns. */
    const unsigned alphabet = strpbrk(pat, "^$") ? 10 : 11;
    for (int k = 0; k < 12; k++) {
      char name[40];
      size_t n = rnd(12);
      for (size_t i = 0; i < n; i++) name[i] = "abcx_.:<( \n"[rnd(alphabet)];
      name[n] = '\0';
      int want = regexec(&g, name, 0, NULL, 0) == 0;
      int got = pc_regex_match(&ours, name);
      if (got != want) fail_msg("\"%s\" on \"%s\": glibc %d, ours %d", pat, name, want, got);
      compared++;
      matched += (size_t)want;
    }
    pc_regex_free(&ours);
    regfree(&g);
  }
  print_message("%zu patterns, %zu names compared with glibc (%zu matches): all agree\n", patterns, compared, matched);
  assert_true(patterns > 2000);
  assert_true(matched > compared / 10 && matched < compared - compared / 10);
}

/* The same, with the DFA cache cut to 3 states: every name of a few bytes
 * starts it again, then goes on as an NFA step per byte (the path a long
 * name on a pattern with many states takes). */
static void test_matcher_without_cache(void **state) {
  const unsigned saved = pc_regex_dfa_state_limit;
  pc_regex_dfa_state_limit = 3;
  test_matcher_agrees_with_glibc(state);
  pc_regex_dfa_state_limit = saved;
}

/* Hand-picked cases, each with its answer. */
static void test_matcher_cases(void **state) {
  (void)state;
  static const struct {
    const char *re, *name;
    int want;
  } c[] = {
      {"^mystery[BC]$", "mysteryB", 1},    {"^mystery[BC]$", "mysteryBC", 0}, {"gemm|conv", "my_conv2d", 1},
      {"a+x", "aaaax", 1},                 {"a+x", "aaaa", 0},                {"^$", "", 1},
      {"^$", "a", 0},                      {"$", "", 1},                      {"x*", "", 1},
      {"^(.*::)?gemm(<.*)?$", "ns::gemm<128, float>", 1}, {"^(.*::)?gemm(<.*)?$", "gemm2", 0},
      {"a{,2}b", "aaab", 1},               {"^a{,2}b", "aaab", 0},            {"^a{2,3}$", "aaa", 1},
      {"^a{2,3}$", "aaaa", 0},             {"[[:digit:]]+", "k42", 1},        {"\\w+$", "a b", 1},
      {")", "f(x)", 1},                    {"a)", "a", 0},                    {"[]x]", "]", 1},
      {"[^]x]", "]", 0},                   {"\\`a", "ba", 0},                 {"a\\'", "ba", 1},
      {"a$b", "a$b", 0},                   {"a\\$b", "a$b", 1},               {"(|a)b", "b", 1},
      {".", "\n", 1},                      {"[^a]", "\n", 1},                 {"^(a|ab)(c|bcd)(d*)$", "abcd", 1},
  };
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
    pc_regex re;
    size_t at;
    pc_err why;
    if (pc_regex_compile(&re, c[i].re, &at, &why) != PERFCHECK_OK) fail_msg("%s: %s", c[i].re, why.msg);
    int got = pc_regex_match(&re, c[i].name);
    pc_regex_free(&re);
    if (got != c[i].want) fail_msg("\"%s\" on \"%s\": %d, want %d", c[i].re, c[i].name, got, c[i].want);
  }
  /* A pattern whose DFA has 2^13 states, on a random name of a and b: the
   * cache of 4096 starts again on the way and the answers stay right. */
  pc_regex re;
  assert_int_equal(pc_regex_compile(&re, "a[ab]{12}$", NULL, NULL), PERFCHECK_OK);
  char *name = malloc(200001);
  assert_non_null(name);
  for (int trial = 0; trial < 4; trial++) {
    for (size_t i = 0; i < 200000; i++) name[i] = rnd(2) ? 'a' : 'b';
    name[200000] = '\0';
    name[200000 - 13] = trial & 1 ? 'a' : 'b';
    assert_int_equal(pc_regex_match(&re, name), trial & 1);
  }
  pc_regex_free(&re);
  free(name);
  pc_regex_free(NULL);
  pc_regex empty = {NULL};
  pc_regex_free(&empty);
  assert_int_equal(pc_regex_match(&empty, "x"), 0);
}

/* The backtracking worst case: regex:a+x against names of N 'a's, 10 KB to 1 MB, and
 * one that ends in x; the worst accepted patterns on 1 MB.  (The figures:
 * scripts/bench_regex.py; here the answers.) */
static void test_long_names(void **state) {
  (void)state;
  const size_t n = (size_t)1 << 20;
  char *name = malloc(n + 2);
  assert_non_null(name);
  memset(name, 'a', n);
  name[n] = '\0';
  static const char *const pats[] = {"a+x", "(.?){255}(.?){255}x", "((.?){2}){255}x", "(a|aa){0,170}b", "^a*$"};
  static const int want[] = {0, 0, 0, 0, 1};
  for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++) {
    pc_regex re;
    size_t at;
    pc_err why;
    if (pc_regex_compile(&re, pats[i], &at, &why) != PERFCHECK_OK) fail_msg("%s: %s", pats[i], why.msg);
    double t0 = seconds();
    int got = pc_regex_match(&re, name);
    print_message("%-22s on 1 MiB of 'a': %s in %.3f s\n", pats[i], got ? "match" : "no match", seconds() - t0);
    assert_int_equal(got, want[i]);
    if (i == 0) {
      name[n] = 'x', name[n + 1] = '\0';
      assert_int_equal(pc_regex_match(&re, name), 1);
      name[n] = '\0';
    }
    pc_regex_free(&re);
  }
  free(name);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rules),
      cmocka_unit_test(test_accepted_cost),
      cmocka_unit_test(test_kernel_filter),
      cmocka_unit_test(test_matcher_agrees_with_glibc),
      cmocka_unit_test(test_matcher_without_cache),
      cmocka_unit_test(test_matcher_cases),
      cmocka_unit_test(test_long_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
