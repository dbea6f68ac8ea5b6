/* test_rangewin: the slots of a range-profiler session spanning launches
 * (lib/core/capture/pc_rangewin.c): order, room, a failed launch's slot,
 * and when decoded ranges may be read as the slots. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "capture/pc_rangewin.h"

static void test_slots(void **state) {
  (void)state;
  pc_rangewin w = {0};
  assert_int_equal(pc_rangewin_init(&w, 4), 0);
  /* A cold launch: the flush's range first, then the launch's. */
  assert_true(pc_rangewin_room(&w, 2));
  assert_int_equal(pc_rangewin_add(&w, 0, PC_RW_DROP), 0);
  assert_int_equal(pc_rangewin_add(&w, 11, PC_RW_COLD), 0);
  /* A launch not profiled: a range to drop. */
  assert_int_equal(pc_rangewin_add(&w, 12, PC_RW_DROP), 0);
  assert_false(pc_rangewin_room(&w, 2));
  assert_true(pc_rangewin_room(&w, 1));
  /* A failed launch: only the last slot goes, and only its own. */
  assert_int_equal(pc_rangewin_pop(&w, 11), 0);
  assert_int_equal(pc_rangewin_pop(&w, 12), 1);
  assert_int_equal(w.n, 2);
  assert_int_equal(pc_rangewin_add(&w, 13, PC_RW_KEEP), 0);
  assert_int_equal(pc_rangewin_add(&w, 14, PC_RW_KEEP), 0);
  assert_int_equal(pc_rangewin_add(&w, 15, PC_RW_KEEP), -1); /* full: nothing appended */
  assert_int_equal(w.n, 4);
  const uint32_t want[4] = {0, 11, 13, 14};
  const unsigned char keep[4] = {PC_RW_DROP, PC_RW_COLD, PC_RW_KEEP, PC_RW_KEEP};
  for (size_t i = 0; i < 4; i++) {
    assert_int_equal(w.corr[i], want[i]);
    assert_int_equal(w.keep[i], keep[i]);
  }
  /* The ranges are read as the slots only when they are exactly as many,
   * none dropped, every pass submitted. */
  assert_true(pc_rangewin_matches(&w, 4, 0, 1));
  assert_false(pc_rangewin_matches(&w, 5, 0, 1)); /* a kernel launched outside the callbacks */
  assert_false(pc_rangewin_matches(&w, 3, 0, 1));
  assert_false(pc_rangewin_matches(&w, 4, 1, 1));
  assert_false(pc_rangewin_matches(&w, 4, 0, 0));
  pc_rangewin_clear(&w);
  assert_int_equal(w.n, 0);
  assert_int_equal(pc_rangewin_pop(&w, 14), 0);
  pc_rangewin_free(&w);
  assert_null(w.corr);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_slots)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
