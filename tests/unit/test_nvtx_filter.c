/* ncu's --nvtx-include / --nvtx-exclude push/pop syntax (lib/core/base/
 * pc_nvtx_filter.c): which range stacks each configuration selects. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "base/pc_nvtx_filter.h"

/* Whether `config` (include) selects the stack written "A,B,C" (outermost
 * first; "" the empty stack). */
static int selects(const char *config, const char *stack) {
  pc_nvtx_filter f;
  memset(&f, 0, sizeof f);
  pc_err why;
  if (pc_nvtx_filter_add(&f, 1, config, &why) != PERFCHECK_OK) fail_msg("%s: %s", config, why.msg);
  pc_nvtx_state st, next;
  pc_nvtx_state_empty(&f, &st);
  char buf[256];
  snprintf(buf, sizeof buf, "%s", stack);
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    pc_nvtx_state_push(&f, &st, tok, &next);
    st = next;
  }
  int got = pc_nvtx_state_included(&f, &st);
  pc_nvtx_filter_free(&f);
  return got;
}

static void test_push_pop_syntax(void **state) {
  (void)state;
  static const struct {
    const char *config, *stack;
    int want;
  } t[] = {
      /* A/: inside A at any depth. */
      {"A/", "A", 1}, {"A/", "X,A", 1}, {"A/", "A,B", 1}, {"A/", "B", 0}, {"A/", "", 0}, {"A/", "AB", 0},
      /* A/B/: B pushed directly inside A. */
      {"A/B/", "A,B", 1}, {"A/B/", "X,A,B", 1}, {"A/B/", "A,B,C", 1}, {"A/B/", "A,X,B", 0}, {"A/B/", "B", 0},
      {"A/B/", "B,A", 0},
      /* A, then any ranges, then B. */
      {"A/*/B/", "A,B", 1}, {"A/*/B/", "A,X,B", 1}, {"A/*/B/", "A,X,Y,B", 1}, {"A/*/B/", "B,A", 0},
      /* [A/: A at the bottom. */
      {"[A/", "A", 1}, {"[A/", "A,B", 1}, {"[A/", "X,A", 0},
      /* B]: B the innermost range. */
      {"B]", "B", 1}, {"B]", "A,B", 1}, {"B]", "B,C", 0},
      {"[A/B]", "A,B", 1}, {"[A/B]", "A,B,C", 0}, {"[A/B]", "X,A,B", 0},
      /* regex:EXPR as an element; "\/" inside a name. */
      {"regex:^step_[0-9]+$/", "train,step_12", 1}, {"regex:^step_[0-9]+$/", "step_x", 0},
      {"a\\/b/", "a/b", 1}, {"a\\/b/", "a", 0},
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    if (selects(t[i].config, t[i].stack) != t[i].want)
      fail_msg("\"%s\" on [%s]: got %d, want %d", t[i].config, t[i].stack, !t[i].want, t[i].want);
}

static void test_include_and_exclude(void **state) {
  (void)state;
  pc_nvtx_filter f;
  memset(&f, 0, sizeof f);
  pc_err why;
  assert_int_equal(pc_nvtx_filter_add(&f, 1, "train/", &why), PERFCHECK_OK);
  assert_int_equal(pc_nvtx_filter_add(&f, 0, "warmup/", &why), PERFCHECK_OK);
  pc_nvtx_state empty, a, b;
  pc_nvtx_state_empty(&f, &empty);
  assert_false(pc_nvtx_state_included(&f, &empty)); /* an include: nothing outside it */
  assert_false(pc_nvtx_state_excluded(&f, &empty));
  pc_nvtx_state_push(&f, &empty, "train", &a);
  assert_true(pc_nvtx_state_included(&f, &a));
  assert_false(pc_nvtx_state_excluded(&f, &a));
  pc_nvtx_state_push(&f, &a, "warmup", &b);
  assert_true(pc_nvtx_state_included(&f, &b));
  assert_true(pc_nvtx_state_excluded(&f, &b));
  pc_nvtx_filter_free(&f);
  /* No include: everything but the excluded. */
  assert_int_equal(pc_nvtx_filter_add(&f, 0, "warmup/", NULL), PERFCHECK_OK);
  pc_nvtx_state_empty(&f, &empty);
  assert_true(pc_nvtx_state_included(&f, &empty));
  pc_nvtx_filter_free(&f);
  /* PERFCHECK_NVTX's older form: a name taken whole ('/' included). */
  assert_int_equal(pc_nvtx_filter_add_name(&f, "a/b", &why), PERFCHECK_OK);
  assert_int_equal(why.status, PERFCHECK_OK);
  pc_nvtx_state_empty(&f, &empty);
  pc_nvtx_state_push(&f, &empty, "a/b", &a);
  assert_true(pc_nvtx_state_included(&f, &a));
  pc_nvtx_filter_free(&f);
}

static void test_refused(void **state) {
  (void)state;
  static const struct {
    const char *config, *says;
  } t[] = {
      {"NCCL@train", "names the NVTX domain \"NCCL\": perfcheck tracks the ranges of the default domain only"},
      {"a,,b", "an empty range name between ','"},
      {"regex:(x|xx)+\\1y", "bad range regex"},
      {"NCCL@train/", "names the NVTX domain \"NCCL\": perfcheck tracks the ranges of the default domain only"},
      {"A//B/", "an empty range name between '/'"},
      {"", "an empty configuration"},
      {"regex:(x|xx)+\\1y/", "bad range regex"},
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    pc_nvtx_filter f;
    memset(&f, 0, sizeof f);
    pc_err why;
    if (pc_nvtx_filter_add(&f, 1, t[i].config, &why) == PERFCHECK_OK) fail_msg("\"%s\" accepted", t[i].config);
    if (!strstr(why.msg, t[i].says)) fail_msg("\"%s\": %s", t[i].config, why.msg);
    assert_int_equal(why.status, PERFCHECK_ERROR_INVALID_ARGUMENT);
    assert_int_equal(f.n, 0);
  }
  pc_nvtx_filter f;
  memset(&f, 0, sizeof f);
  pc_err why;
  for (int i = 0; i < PC_NVTX_MAX_PATTERNS; i++)
    assert_int_equal(pc_nvtx_filter_add(&f, 1, "A/", &why), PERFCHECK_OK);
  assert_int_equal(pc_nvtx_filter_add(&f, 1, "A/", &why), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_string_equal(why.msg, "more than 8 --nvtx-include/--nvtx-exclude configurations");
  assert_int_equal(f.n, PC_NVTX_MAX_PATTERNS);
  pc_nvtx_filter_free(&f);
}

/* Whether `config` (include) selects a launch while the start/end ranges
 * written "A,B" are open (in any order, started on any thread). */
static int selects_open(const char *config, const char *open) {
  pc_nvtx_filter f;
  memset(&f, 0, sizeof f);
  pc_err why;
  if (pc_nvtx_filter_add(&f, 1, config, &why) != PERFCHECK_OK) fail_msg("%s: %s", config, why.msg);
  assert_int_equal(f.nstartend, 1);
  pc_nvtx_open o = {0};
  char buf[256];
  snprintf(buf, sizeof buf, "%s", open);
  uint64_t id = 100;
  for (char *save = NULL, *tok = strtok_r(buf, ";", &save); tok; tok = strtok_r(NULL, ";", &save))
    assert_int_equal(pc_nvtx_open_start(&o, id++, tok, 0), 0);
  /* A push/pop stack has no say in a start/end configuration. */
  pc_nvtx_state st;
  pc_nvtx_state_empty(&f, &st);
  assert_false(pc_nvtx_state_included(&f, &st));
  int got = pc_nvtx_open_included(&f, &o);
  pc_nvtx_open_free(&o);
  pc_nvtx_filter_free(&f);
  return got;
}

/* ncu's start/end syntax: a configuration without '/', ']' or a leading
 * '[' names nvtxRangeStart/End ranges; "A,B" needs both open. */
static void test_start_end_syntax(void **state) {
  (void)state;
  static const struct {
    const char *config, *open; /* ranges open, ';' between */
    int want;
  } t[] = {
      {"train_step", "train_step", 1}, {"train_step", "warmup", 0}, {"train_step", "", 0},
      {"train_step", "train_step_2", 0}, {"train_step", "warmup;train_step", 1},
      {"A,B", "A;B", 1}, {"A,B", "B;A", 1}, {"A,B", "A", 0}, {"A,B", "B;C", 0},
      {"a\\,b", "a,b", 1}, {"a\\,b", "a", 0}, {"x\\/y", "x/y", 1},
      {"regex:^step_[0-9]+$", "step_12", 1}, {"regex:^step_[0-9]+$", "step_x", 0},
      {"regex:^fwd$,^bwd", "bwd_1;fwd", 1}, {"regex:^fwd$,^bwd", "fwd", 0},
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    if (selects_open(t[i].config, t[i].open) != t[i].want)
      fail_msg("\"%s\" with [%s] open: got %d, want %d", t[i].config, t[i].open, !t[i].want, t[i].want);
  /* ncu's push/pop forms without the trailing '/' stay push/pop. */
  static const char *const pushpop[] = {"[A", "A/*/B", "A/B", "B]"};
  for (size_t i = 0; i < sizeof pushpop / sizeof pushpop[0]; i++) {
    pc_nvtx_filter f;
    memset(&f, 0, sizeof f);
    assert_int_equal(pc_nvtx_filter_add(&f, 1, pushpop[i], NULL), PERFCHECK_OK);
    if (f.nstartend != 0) fail_msg("\"%s\" read as start/end", pushpop[i]);
    pc_nvtx_filter_free(&f);
  }
  assert_int_equal(selects("[A", "A,B"), 1);
  assert_int_equal(selects("[A", "X,A"), 0);
  assert_int_equal(selects("A/*/B", "A,X,B"), 1);
}

/* Both kinds together, as the injection runtime gates a launch: an include
 * of either kind lets it through, an exclude of either kind stops it; the
 * open set follows starts and ends by id, whatever the order. */
static void test_start_end_with_push_pop(void **state) {
  (void)state;
  pc_nvtx_filter f;
  memset(&f, 0, sizeof f);
  pc_err why;
  assert_int_equal(pc_nvtx_filter_add(&f, 1, "phase", &why), PERFCHECK_OK);
  assert_int_equal(pc_nvtx_filter_add(&f, 1, "step/", &why), PERFCHECK_OK);
  assert_int_equal(pc_nvtx_filter_add(&f, 0, "warmup", &why), PERFCHECK_OK);
  assert_int_equal(f.ninclude, 2);
  assert_int_equal(f.nstartend, 2);
  pc_nvtx_open o = {0};
  pc_nvtx_state empty, stepped;
  pc_nvtx_state_empty(&f, &empty);
  pc_nvtx_state_push(&f, &empty, "step", &stepped);
  assert_true(pc_nvtx_state_included(&f, &stepped)); /* the push/pop include */
  assert_false(pc_nvtx_state_included(&f, &empty));
  assert_false(pc_nvtx_open_included(&f, &o));
  assert_int_equal(pc_nvtx_open_start(&o, 7, "phase", 70), 0);
  assert_int_equal(pc_nvtx_open_start(&o, 8, "warmup", 80), 0);
  assert_true(pc_nvtx_open_included(&f, &o));
  assert_true(pc_nvtx_open_excluded(&f, &o));
  uint32_t tag = 0;
  assert_int_equal(pc_nvtx_open_end(&o, 8, &tag), 1); /* ended first, started last */
  assert_int_equal(tag, 80);
  assert_false(pc_nvtx_open_excluded(&f, &o));
  assert_true(pc_nvtx_open_included(&f, &o));
  assert_int_equal(pc_nvtx_open_end(&o, 8, &tag), 0); /* an id ended twice, or never started */
  assert_int_equal(pc_nvtx_open_end(&o, 7, &tag), 1);
  assert_int_equal(tag, 70);
  assert_false(pc_nvtx_open_included(&f, &o));
  assert_int_equal(o.n, 0);
  /* A program that starts ranges and never ends them: bounded. */
  for (uint64_t i = 0; i < PC_NVTX_MAX_OPEN; i++) assert_int_equal(pc_nvtx_open_start(&o, 1000 + i, "leak", 0), 0);
  assert_int_equal(pc_nvtx_open_start(&o, 1, "phase", 0), -1);
  assert_false(pc_nvtx_open_included(&f, &o));
  pc_nvtx_open_free(&o);
  pc_nvtx_filter_free(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_push_pop_syntax), cmocka_unit_test(test_include_and_exclude),
                                     cmocka_unit_test(test_refused), cmocka_unit_test(test_start_end_syntax),
                                     cmocka_unit_test(test_start_end_with_push_pop)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
