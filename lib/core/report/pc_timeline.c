/* Timelines: the arithmetic of step 1 on GPU intervals, kept pure so that it
 * is tested on a CPU (tests/unit/test_timeline.c).
 *
 * Kernel busy time is the length of the UNION of kernel intervals over all
 * streams, not their sum: two kernels that overlap on two streams keep the
 * GPU busy once, and a sum could exceed the wall clock.  The idle time is the
 * part of the kernel span (first start to last end) that no kernel covers.
 *
 * Sorting is an in-place introsort (quicksort, heapsort past a depth limit,
 * insertion sort on short runs): qsort in glibc may allocate a copy of the
 * array, and a region of a million launches holds 24 MB of spans. */
#include "model/pc_core.h"
#include "report/pc_timeline.h"

static inline uint64_t pc_span_dur(const pc_span *s) { return s->end - s->start; }

static inline int pc_span_less(const pc_span *a, const pc_span *b, pc_span_order o) {
  switch (o) {
    case PC_SPAN_BY_DURATION:
      return pc_span_dur(a) < pc_span_dur(b);
    case PC_SPAN_BY_GROUP_DURATION:
      if (a->group != b->group) return a->group < b->group;
      return pc_span_dur(a) < pc_span_dur(b);
    case PC_SPAN_BY_START:
    default:
      if (a->start != b->start) return a->start < b->start;
      return a->end < b->end;
  }
}

static inline void pc_span_swap(pc_span *a, pc_span *b) {
  pc_span t = *a;
  *a = *b;
  *b = t;
}

static void pc_span_insertion(pc_span *v, size_t n, pc_span_order o) {
  for (size_t i = 1; i < n; i++) {
    pc_span x = v[i];
    size_t j = i;
    while (j > 0 && pc_span_less(&x, &v[j - 1], o)) {
      v[j] = v[j - 1];
      j--;
    }
    v[j] = x;
  }
}

static void pc_span_sift(pc_span *v, size_t root, size_t n, pc_span_order o) {
  for (;;) {
    size_t c = 2 * root + 1;
    if (c >= n) return;
    if (c + 1 < n && pc_span_less(&v[c], &v[c + 1], o)) c++;
    if (!pc_span_less(&v[root], &v[c], o)) return;
    pc_span_swap(&v[root], &v[c]);
    root = c;
  }
}

static void pc_span_heapsort(pc_span *v, size_t n, pc_span_order o) {
  if (n < 2) return;
  for (size_t i = n / 2; i-- > 0;) pc_span_sift(v, i, n, o);
  for (size_t end = n - 1; end > 0; end--) {
    pc_span_swap(&v[0], &v[end]);
    pc_span_sift(v, 0, end, o);
  }
}

static void pc_span_introsort(pc_span *v, size_t n, pc_span_order o, int depth) {
  while (n > 16) {
    if (depth-- == 0) {
      pc_span_heapsort(v, n, o);
      return;
    }
    /* Median of three to v[0], then Hoare partition around it. */
    size_t mid = n / 2;
    if (pc_span_less(&v[mid], &v[0], o)) pc_span_swap(&v[mid], &v[0]);
    if (pc_span_less(&v[n - 1], &v[0], o)) pc_span_swap(&v[n - 1], &v[0]);
    if (pc_span_less(&v[n - 1], &v[mid], o)) pc_span_swap(&v[n - 1], &v[mid]);
    pc_span_swap(&v[0], &v[mid]);
    const pc_span pivot = v[0];
    size_t i = 0, j = n;
    for (;;) {
      do i++;
      while (i < n && pc_span_less(&v[i], &pivot, o));
      do j--;
      while (pc_span_less(&pivot, &v[j], o));
      if (i >= j) break;
      pc_span_swap(&v[i], &v[j]);
    }
    pc_span_swap(&v[0], &v[j]);
    /* Recurse into the smaller side, loop on the larger: O(log n) stack. */
    size_t left = j, right = n - j - 1;
    if (left < right) {
      pc_span_introsort(v, left, o, depth);
      v += j + 1;
      n = right;
    } else {
      pc_span_introsort(v + j + 1, right, o, depth);
      n = left;
    }
  }
  pc_span_insertion(v, n, o);
}

void pc_span_sort(pc_span *v, size_t n, pc_span_order order) {
  if (!v || n < 2) return;
  int depth = 0;
  for (size_t m = n; m > 1; m >>= 1) depth += 2;
  pc_span_introsort(v, n, order, depth);
}

size_t pc_span_partition_tag(pc_span *v, size_t n, uint32_t tag) {
  if (!v) return 0;
  size_t k = n; /* v[k..n-1] have the tag */
  size_t i = 0;
  while (i < k) {
    if (v[i].tag == tag) {
      k--;
      pc_span_swap(&v[i], &v[k]);
    } else {
      i++;
    }
  }
  return n - k;
}

void pc_timeline_compute(pc_span *v, size_t n, pc_timeline *out) {
  if (!out) return;
  out->count = n;
  out->busy_ns = 0.0;
  out->sum_ns = 0.0;
  out->span_ns = out->idle_ns = PC_NULL;
  out->median_ns = out->min_ns = out->max_ns = PC_NULL;
  if (!v || n == 0) return;

  pc_span_sort(v, n, PC_SPAN_BY_START);
  uint64_t busy = 0, cur_s = v[0].start, cur_e = v[0].end, last_end = v[0].end;
  double sum = 0.0;
  for (size_t i = 0; i < n; i++) {
    sum += (double)pc_span_dur(&v[i]);
    if (v[i].end > last_end) last_end = v[i].end;
    if (i == 0) continue;
    if (v[i].start <= cur_e) { /* overlaps or touches the current run */
      if (v[i].end > cur_e) cur_e = v[i].end;
    } else {
      busy += cur_e - cur_s;
      cur_s = v[i].start;
      cur_e = v[i].end;
    }
  }
  busy += cur_e - cur_s;
  const double span = (double)(last_end - v[0].start);
  out->busy_ns = (double)busy;
  out->sum_ns = sum;
  out->span_ns = span;
  out->idle_ns = span - (double)busy;

  pc_span_sort(v, n, PC_SPAN_BY_DURATION);
  out->min_ns = (double)pc_span_dur(&v[0]);
  out->max_ns = (double)pc_span_dur(&v[n - 1]);
  out->median_ns = (n % 2) ? (double)pc_span_dur(&v[n / 2])
                           : 0.5 * ((double)pc_span_dur(&v[n / 2 - 1]) + (double)pc_span_dur(&v[n / 2]));
}

double pc_timeline_clipped_sum(const pc_span *v, size_t n, uint64_t begin, uint64_t end) {
  double sum = 0.0;
  if (!v || end < begin) return sum;
  for (size_t i = 0; i < n; i++) {
    uint64_t s = v[i].start > begin ? v[i].start : begin;
    uint64_t e = v[i].end < end ? v[i].end : end;
    if (e > s) sum += (double)(e - s);
  }
  return sum;
}
