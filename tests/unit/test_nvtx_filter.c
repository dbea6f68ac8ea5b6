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
      {"train_step", "is a start/end range in ncu's syntax (no trailing '/'); perfcheck sees push/pop ranges only: "
                     "write \"train_step/\""},
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

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_push_pop_syntax), cmocka_unit_test(test_include_and_exclude),
                                     cmocka_unit_test(test_refused)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
