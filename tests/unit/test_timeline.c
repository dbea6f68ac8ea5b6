/* Timelines (pc_timeline.c): the interval union behind step 1's kernel busy
 * time, the gaps, the clipped transfer sums and the in-place sort, on hand
 * computed cases and against a brute-force reference on random data. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "model/pc_core.h"
#include "report/pc_timeline.h"

static pc_span sp(uint64_t s, uint64_t e, uint32_t group, uint32_t tag) {
  pc_span x = {s, e, group, tag};
  return x;
}

static void test_empty(void **state) {
  (void)state;
  pc_timeline t;
  pc_timeline_compute(NULL, 0, &t);
  assert_int_equal(t.count, 0);
  assert_true(t.busy_ns == 0.0); /* nothing ran: measured zero */
  assert_true(t.sum_ns == 0.0);
  assert_true(pc_is_null(t.span_ns));
  assert_true(pc_is_null(t.idle_ns));
  assert_true(pc_is_null(t.median_ns));
  assert_true(pc_is_null(t.min_ns));
  assert_true(pc_is_null(t.max_ns));
}

static void test_single(void **state) {
  (void)state;
  pc_span v[] = {sp(100, 350, 0, 0)};
  pc_timeline t;
  pc_timeline_compute(v, 1, &t);
  assert_true(t.busy_ns == 250.0);
  assert_true(t.sum_ns == 250.0);
  assert_true(t.span_ns == 250.0);
  assert_true(t.idle_ns == 0.0);
  assert_true(t.median_ns == 250.0);
}

/* Two streams: [0,100) and [50,150) overlap (busy 150, not 200); then a gap
 * of 50 to [200,260); a kernel nested inside another adds nothing. */
static void test_overlap_and_gap(void **state) {
  (void)state;
  pc_span v[] = {sp(200, 260, 1, 0), sp(50, 150, 2, 0), sp(0, 100, 1, 0), sp(210, 220, 3, 0)};
  pc_timeline t;
  pc_timeline_compute(v, 4, &t);
  assert_int_equal(t.count, 4);
  assert_true(t.busy_ns == 210.0);                 /* [0,150) + [200,260) */
  assert_true(t.sum_ns == 100.0 + 100.0 + 60.0 + 10.0);
  assert_true(t.span_ns == 260.0);
  assert_true(t.idle_ns == 50.0);
  assert_true(t.min_ns == 10.0);
  assert_true(t.max_ns == 100.0);
  assert_true(t.median_ns == 80.0);                /* durations 10, 60, 100, 100 */
}

/* Back-to-back kernels touch: no gap, busy equals the span. */
static void test_touching(void **state) {
  (void)state;
  pc_span v[] = {sp(10, 20, 0, 0), sp(20, 30, 0, 0), sp(30, 45, 0, 0)};
  pc_timeline t;
  pc_timeline_compute(v, 3, &t);
  assert_true(t.busy_ns == 35.0);
  assert_true(t.idle_ns == 0.0);
  assert_true(t.median_ns == 10.0);
}

/* A long kernel that started first and ends last covers later ones. */
static void test_covering(void **state) {
  (void)state;
  pc_span v[] = {sp(0, 1000, 0, 0), sp(100, 200, 0, 0), sp(900, 1100, 0, 0), sp(1200, 1300, 0, 0)};
  pc_timeline t;
  pc_timeline_compute(v, 4, &t);
  assert_true(t.busy_ns == 1200.0);
  assert_true(t.span_ns == 1300.0);
  assert_true(t.idle_ns == 100.0);
}

static void test_clipped(void **state) {
  (void)state;
  pc_span v[] = {sp(0, 100, 0, 0), sp(150, 250, 0, 0), sp(300, 400, 0, 0), sp(500, 600, 0, 0)};
  /* Region [50, 320]: 50 of the first, all 100 of the second, 20 of the third. */
  assert_true(pc_timeline_clipped_sum(v, 4, 50, 320) == 170.0);
  assert_true(pc_timeline_clipped_sum(v, 4, 1000, 2000) == 0.0);
  assert_true(pc_timeline_clipped_sum(v, 4, 320, 50) == 0.0); /* inverted window */
  assert_true(pc_timeline_clipped_sum(v, 0, 0, 1000) == 0.0);
}

static void test_partition(void **state) {
  (void)state;
  pc_span v[] = {sp(0, 1, 0, 7), sp(1, 2, 0, 3), sp(2, 3, 0, 7), sp(3, 4, 0, 9), sp(4, 5, 0, 7)};
  size_t k = pc_span_partition_tag(v, 5, 7);
  assert_int_equal(k, 3);
  for (size_t i = 0; i < 2; i++) assert_int_not_equal(v[i].tag, 7);
  for (size_t i = 2; i < 5; i++) assert_int_equal(v[i].tag, 7);
  assert_int_equal(pc_span_partition_tag(v, 5, 42), 0);
}

/* xorshift: reproducible random data without rand()'s global state. */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

/* Brute force: mark every covered nanosecond. */
static double brute_busy(const pc_span *v, size_t n, uint64_t horizon) {
  unsigned char *cov = calloc(horizon, 1);
  assert_non_null(cov);
  for (size_t i = 0; i < n; i++)
    for (uint64_t x = v[i].start; x < v[i].end; x++) cov[x] = 1;
  double busy = 0;
  for (uint64_t x = 0; x < horizon; x++) busy += cov[x];
  free(cov);
  return busy;
}

static void test_random_union(void **state) {
  (void)state;
  enum { HORIZON = 20000 };
  for (int round = 0; round < 50; round++) {
    size_t n = 1 + rnd() % 300;
    pc_span *v = malloc(n * sizeof *v);
    assert_non_null(v);
    uint64_t lo = HORIZON, hi = 0;
    for (size_t i = 0; i < n; i++) {
      uint64_t s = rnd() % (HORIZON - 500);
      uint64_t d = rnd() % 400; /* zero-length kernels too */
      v[i] = sp(s, s + d, (uint32_t)(rnd() % 5), (uint32_t)i);
      if (s < lo) lo = s;
      if (s + d > hi) hi = s + d;
    }
    double expect = brute_busy(v, n, HORIZON);
    pc_timeline t;
    pc_timeline_compute(v, n, &t);
    if (t.busy_ns != expect) fail_msg("round %d: busy %.0f, brute force %.0f", round, t.busy_ns, expect);
    assert_true(t.span_ns == (double)(hi - lo));
    assert_true(t.idle_ns == t.span_ns - t.busy_ns);
    assert_true(t.busy_ns <= t.sum_ns);
    free(v);
  }
}

static int is_sorted(const pc_span *v, size_t n, pc_span_order o) {
  for (size_t i = 1; i < n; i++) {
    uint64_t da = v[i - 1].end - v[i - 1].start, db = v[i].end - v[i].start;
    switch (o) {
      case PC_SPAN_BY_START:
        if (v[i - 1].start > v[i].start || (v[i - 1].start == v[i].start && v[i - 1].end > v[i].end)) return 0;
        break;
      case PC_SPAN_BY_DURATION:
        if (da > db) return 0;
        break;
      case PC_SPAN_BY_GROUP_DURATION:
        if (v[i - 1].group > v[i].group || (v[i - 1].group == v[i].group && da > db)) return 0;
        break;
    }
  }
  return 1;
}

/* Sorting keeps every element (checksum of tags) and orders it, on random,
 * sorted, reversed and all-equal inputs (the cases that break quicksorts). */
static void test_sort(void **state) {
  (void)state;
  const size_t sizes[] = {0, 1, 2, 3, 17, 100, 1000, 50000};
  const pc_span_order orders[] = {PC_SPAN_BY_START, PC_SPAN_BY_DURATION, PC_SPAN_BY_GROUP_DURATION};
  for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
    size_t n = sizes[si];
    pc_span *v = malloc((n ? n : 1) * sizeof *v);
    assert_non_null(v);
    for (int shape = 0; shape < 4; shape++) {
      for (size_t oi = 0; oi < 3; oi++) {
        uint64_t tagsum = 0;
        for (size_t i = 0; i < n; i++) {
          uint64_t s, d;
          switch (shape) {
            case 0: s = rnd() % 100000; d = rnd() % 1000; break;
            case 1: s = i * 10; d = i; break;
            case 2: s = (n - i) * 10; d = n - i; break;
            default: s = 5; d = 5; break;
          }
          v[i] = sp(s, s + d, (uint32_t)(rnd() % 7), (uint32_t)i);
          tagsum += i;
        }
        pc_span_sort(v, n, orders[oi]);
        if (!is_sorted(v, n, orders[oi])) fail_msg("n=%zu shape=%d order=%zu: not sorted", n, shape, oi);
        uint64_t after = 0;
        for (size_t i = 0; i < n; i++) after += v[i].tag;
        assert_true(after == tagsum);
      }
    }
    free(v);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_empty),         cmocka_unit_test(test_single),
      cmocka_unit_test(test_overlap_and_gap), cmocka_unit_test(test_touching),
      cmocka_unit_test(test_covering),      cmocka_unit_test(test_clipped),
      cmocka_unit_test(test_partition),     cmocka_unit_test(test_random_union),
      cmocka_unit_test(test_sort),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
