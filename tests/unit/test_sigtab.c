/* The launch capture's pure tables on a CPU: the launch log against a
 * reference, the hash map's collisions, erase and iteration, names, signatures and contexts
 * (pc_sigtab.c), and the selection policy (pc_select.c, ncu's -k -s -c and
 * per-signature), without CUDA or CUPTI. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "capture/pc_launchlog.h"
#include "capture/pc_regions.h"
#include "capture/pc_sigtab.h"

/* ---- the launch log hash table against a reference -------------------------------- */

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static void test_ltab_random(void **state) {
  (void)state;
  enum { N = 4096 };
  static int present[N];
  static uint32_t region_of[N];
  memset(present, 0, sizeof present);
  pc_ltab t;
  memset(&t, 0, sizeof t);
  size_t count = 0;
  for (int op = 0; op < 200000; op++) {
    uint32_t corr = (uint32_t)(rnd() % N);
    int what = (int)(rnd() % 10);
    if (what < 5) { /* insert */
      pc_launch x = {corr, corr * 3u, (uint32_t)(rnd() % 4) + 1, PC_L_USED};
      assert_int_equal(pc_ltab_put(&t, &x), 0);
      if (!present[corr]) count++;
      present[corr] = 1;
      region_of[corr] = x.region;
    } else if (what < 9) { /* erase */
      size_t at = pc_ltab_find(&t, corr);
      assert_int_equal(at != SIZE_MAX, present[corr]);
      if (at != SIZE_MAX) {
        assert_int_equal(t.e[at].a, corr * 3u);
        pc_ltab_erase(&t, at);
        present[corr] = 0;
        count--;
      }
    } else if (rnd() % 50 == 0) { /* purge a region */
      uint32_t reg = (uint32_t)(rnd() % 4) + 1;
      size_t want = 0;
      for (int i = 0; i < N; i++) want += present[i] && region_of[i] == reg;
      assert_int_equal(pc_ltab_pending(&t, reg), want);
      assert_int_equal(pc_ltab_purge(&t, reg), want);
      for (int i = 0; i < N; i++)
        if (present[i] && region_of[i] == reg) {
          present[i] = 0;
          count--;
        }
    }
    assert_int_equal(t.n, count);
  }
  for (uint32_t c = 0; c < N; c++) assert_int_equal(pc_ltab_find(&t, c) != SIZE_MAX, present[c]);
  pc_ltab_free(&t);
}

/* Two keys that collide still find their own values through `eq`. */
static int eq_value(uint32_t v, const void *arg) { return v == *(const uint32_t *)arg; }

static void test_map_collisions(void **state) {
  (void)state;
  pc_map m;
  memset(&m, 0, sizeof m);
  for (uint32_t v = 0; v < 1000; v++) assert_int_equal(pc_map_insert(&m, 42, v), 0); /* one key, 1000 values */
  for (uint32_t v = 0; v < 1000; v += 97) assert_int_equal(pc_map_find(&m, 42, eq_value, &v), v);
  const uint32_t absent = 5000;
  assert_int_equal(pc_map_find(&m, 42, eq_value, &absent), PC_NONE);
  assert_int_equal(pc_map_find(&m, 43, NULL, NULL), PC_NONE);
  pc_map_free(&m);
  assert_int_equal(pc_map_find(&m, 42, NULL, NULL), PC_NONE);
}

/* Erase (backward shift), iteration and erase_if against a reference, with
 * keys that crowd a few homes so that chains wrap around the table's end. */
static int drop_odd(uint64_t k, uint32_t v, void *arg) {
  (void)k;
  ++*(size_t *)arg;
  return v & 1u;
}

static void test_map_erase_iterate(void **state) {
  (void)state;
  enum { N = 2048 };
  static int present[N];
  memset(present, 0, sizeof present);
  pc_map m;
  memset(&m, 0, sizeof m);
  size_t count = 0;
  for (int op = 0; op < 100000; op++) {
    const uint32_t v = (uint32_t)(rnd() % N);
    const uint64_t k = (uint64_t)(v % 61) * 0x100000001ull; /* 61 keys: long collision chains */
    const size_t slot = pc_map_slot(&m, k, eq_value, &v);
    assert_int_equal(slot != SIZE_MAX, present[v]);
    if (rnd() % 3 && !present[v]) {
      assert_int_equal(pc_map_insert(&m, k, v), 0);
      present[v] = 1;
      count++;
    } else if (slot != SIZE_MAX) {
      assert_int_equal(m.val[slot], v);
      pc_map_erase(&m, slot);
      present[v] = 0;
      count--;
    }
    assert_int_equal(m.n, count);
  }
  size_t seen = 0;
  uint64_t k;
  uint32_t v;
  for (size_t it = 0; pc_map_next(&m, &it, &k, &v);) {
    assert_true(present[v]);
    assert_int_equal(k, (uint64_t)(v % 61) * 0x100000001ull);
    seen++;
  }
  assert_int_equal(seen, count);
  size_t asked = 0, odd = 0;
  for (uint32_t i = 0; i < N; i++) odd += present[i] && (i & 1u);
  assert_int_equal(pc_map_erase_if(&m, drop_odd, &asked), odd);
  assert_int_equal(asked, count);
  for (uint32_t i = 0; i < N; i++) {
    const uint64_t key = (uint64_t)(i % 61) * 0x100000001ull;
    assert_int_equal(pc_map_find(&m, key, eq_value, &i) != PC_NONE, present[i] && !(i & 1u));
  }
  pc_map_clear(&m);
  assert_int_equal(m.n, 0);
  const uint32_t zero = 0;
  assert_int_equal(pc_map_find(&m, 0, eq_value, &zero), PC_NONE);
  pc_map_free(&m);
}

static const unsigned G4[3] = {4, 1, 1}, G8[3] = {8, 1, 1}, B128[3] = {128, 1, 1};

static void test_names_signatures_contexts(void **state) {
  (void)state;
  pc_sigtab t;
  memset(&t, 0, sizeof t);
  void *fa = (void *)(uintptr_t)0x1000;
  const uint32_t a = pc_sigtab_handle(&t, fa, "_Z8mysteryAPKfPfm");
  assert_int_equal(pc_sigtab_handle(&t, fa, NULL), a); /* known by its handle */
  const uint32_t na = t.funcs[a].name;
  assert_int_equal(pc_sigtab_intern(&t, "_Z8mysteryAPKfPfm"), na);
  assert_int_equal(t.names[na].func_last, a);
  const uint32_t anon = pc_sigtab_handle(&t, (void *)(uintptr_t)0x3000, NULL);
  assert_int_not_equal(anon, a);
  assert_null(t.names[t.funcs[anon].name].mangled);

  void *ctx = (void *)(uintptr_t)0xC0;
  const uint32_t c1 = pc_sigtab_ctx(&t, ctx, 1);
  assert_int_equal(pc_sigtab_ctx(&t, ctx, 1), c1);
  pc_sigtab_ctx_dead(&t, ctx);
  const uint32_t c2 = pc_sigtab_ctx(&t, ctx, 1); /* re-created at the same address */
  assert_int_not_equal(c2, c1);
  assert_int_equal(pc_sigtab_ctx(&t, ctx, 2), 2); /* another unique id: another entry */

  const uint32_t s1 = pc_sigtab_sig_func(&t, a, c2, G4, B128, 0, 1000);
  assert_int_equal(pc_sigtab_sig_func(&t, a, c2, G4, B128, 0, 1000), s1);
  assert_int_equal(pc_sigtab_sig(&t, na, c2, G4, B128, 0, 1000), s1); /* by name: its latest function */
  assert_int_not_equal(pc_sigtab_sig_func(&t, a, c2, G8, B128, 0, 1000), s1);
  assert_int_not_equal(pc_sigtab_sig_func(&t, a, c2, G4, B128, 48000, 1000), s1);
  assert_int_not_equal(pc_sigtab_sig_func(&t, a, c1, G4, B128, 0, 1000), s1);
  assert_int_equal(t.nsigs, 4);
  assert_int_equal(t.sigs[s1].name, na);
  assert_int_equal(pc_sigtab_sig_func(&t, anon, c2, G4, B128, 0, 4), PC_NONE); /* past the limit */
  assert_true(pc_is_null(t.sigs[s1].attr.blocks_per_sm));

  /* A module unload forgets handles, but keeps a CUkernel whose attributes
   * are still to be read; the function stays found by handle and name. */
  void *fb = (void *)(uintptr_t)0x2000;
  const uint32_t b = pc_sigtab_handle(&t, fb, "_Z8mysteryAPKfPfm");
  t.sigs[s1].f = fa;
  t.sigs[s1].is_kernel = 1;
  t.sigs[s1 + 1].f = fb;
  pc_sigtab_forget_handles(&t);
  assert_ptr_equal(t.sigs[s1].f, fa);
  assert_null(t.sigs[s1 + 1].f);
  assert_null(t.funcs[a].f);
  assert_int_equal(pc_sigtab_handle(&t, fa, "_Z8mysteryAPKfPfm"), a);
  assert_ptr_equal(t.funcs[a].f, fa);
  assert_int_equal(pc_sigtab_handle(&t, fb, "_Z8mysteryAPKfPfm"), b);
  /* The freed address now holds another kernel: another function. */
  const uint32_t other = pc_sigtab_handle(&t, fb, "_Z5otherv");
  assert_true(other != b && other != a);
  assert_string_equal(t.names[t.funcs[other].name].mangled, "_Z5otherv");
  assert_int_equal(pc_sigtab_handle(&t, fb, NULL), other);
  pc_sigtab_free(&t);
  assert_int_equal(t.nsigs, 0);
}

/* Two compiled functions of one name (two modules: a CuPy RawKernel built
 * twice, a Triton recompilation) are two signatures; the handles of one
 * function (a CUkernel and its per-context CUfunction) become one once the
 * driver resolved them, and carry one function id meanwhile. */
static void test_functions_of_one_name(void **state) {
  (void)state;
  pc_sigtab t;
  memset(&t, 0, sizeof t);
  static const char sym[] = "_Z10chase_coldPKjPjj";
  char sym_copy[sizeof sym]; /* CUPTI's symbol strings: another pointer, the same text */
  memcpy(sym_copy, sym, sizeof sym);
  const uint32_t ctx = pc_sigtab_ctx(&t, (void *)(uintptr_t)0xC0, 1);
  void *m1 = (void *)(uintptr_t)0x1000, *m2 = (void *)(uintptr_t)0x2000;
  const uint32_t f1 = pc_sigtab_handle(&t, m1, sym), f2 = pc_sigtab_handle(&t, m2, sym_copy);
  assert_int_not_equal(f1, f2);
  assert_int_equal(t.funcs[f1].name, t.funcs[f2].name); /* one name */
  assert_int_equal(pc_sigtab_handle(&t, m1, sym_copy), f1);
  const uint32_t s1 = pc_sigtab_sig_func(&t, f1, ctx, G4, B128, 0, 100);
  const uint32_t s2 = pc_sigtab_sig_func(&t, f2, ctx, G4, B128, 0, 100);
  assert_int_not_equal(s1, s2);
  assert_int_equal(t.nsigs, 2);
  assert_true(pc_sigtab_function_id(&t, s1) != 0 && pc_sigtab_function_id(&t, s2) != 0);
  assert_int_not_equal(pc_sigtab_function_id(&t, s1), pc_sigtab_function_id(&t, s2));
  /* Each module resolves to its own CUfunction: still two. */
  pc_sigtab_func_resolved(&t, f1, m1);
  pc_sigtab_func_resolved(&t, f2, m2);
  assert_int_not_equal(pc_sigtab_function_id(&t, s1), pc_sigtab_function_id(&t, s2));
  assert_int_equal(pc_sigtab_handle(&t, m2, sym), f2);

  /* A CUkernel k (<<<>>>) and its CUfunction kf in this context, both
   * launched before the driver was asked: two signatures, then one
   * function once k resolves to kf; later launches of kf find k's group. */
  static const char ksym[] = "_Z6scaleAPfi";
  void *k = (void *)(uintptr_t)0x5000, *kf = (void *)(uintptr_t)0x6000;
  const uint32_t fk = pc_sigtab_handle(&t, k, ksym), fkf = pc_sigtab_handle(&t, kf, ksym);
  assert_int_not_equal(fk, fkf);
  const uint32_t sk = pc_sigtab_sig_func(&t, fk, ctx, G8, B128, 0, 100);
  const uint32_t skf = pc_sigtab_sig_func(&t, fkf, ctx, G8, B128, 0, 100);
  assert_int_not_equal(sk, skf);
  pc_sigtab_func_resolved(&t, fk, kf);
  assert_int_equal(pc_sigtab_function_id(&t, sk), pc_sigtab_function_id(&t, skf));
  assert_int_equal(pc_sigtab_handle(&t, kf, ksym), fk); /* its group's root */
  assert_int_equal(pc_sigtab_sig_func(&t, pc_sigtab_handle(&t, kf, ksym), ctx, G8, B128, 0, 100), sk);
  /* Another function's CUfunction of another name is never joined. */
  pc_sigtab_func_resolved(&t, f1, kf);
  assert_int_not_equal(pc_sigtab_function_id(&t, s1), pc_sigtab_function_id(&t, sk));

  /* A CUkernel resolved first: its CUfunction, launched later, is the same
   * function from its first launch (a cudaGetFuncBySymbol handle). */
  static const char jsym[] = "_Z6scaleBPfi";
  void *j = (void *)(uintptr_t)0x7000, *jf = (void *)(uintptr_t)0x8000;
  const uint32_t fj = pc_sigtab_handle(&t, j, jsym);
  const uint32_t sj = pc_sigtab_sig_func(&t, fj, ctx, G8, B128, 0, 100);
  pc_sigtab_func_resolved(&t, fj, jf);
  const size_t before = t.nsigs;
  assert_int_equal(pc_sigtab_handle(&t, jf, jsym), fj);
  assert_int_equal(pc_sigtab_sig_func(&t, pc_sigtab_handle(&t, jf, jsym), ctx, G8, B128, 0, 100), sj);
  assert_int_equal(t.nsigs, before);
  /* A graph's kernel record (a name, no handle) is taken for the name's
   * latest function. */
  assert_int_equal(pc_sigtab_sig(&t, t.funcs[fj].name, ctx, G8, B128, 0, 100), sj);
  /* A graph exec has no function. */
  assert_int_equal(pc_sigtab_function_id(&t, pc_sigtab_graph(&t, 3, ctx, 100)), 0);
  pc_sigtab_free(&t);
}

static void test_selection(void **state) {
  (void)state;
  pc_sigtab t;
  memset(&t, 0, sizeof t);
  pc_regex re;
  assert_int_equal(pc_regex_compile(&re, "^mystery[AB]$", NULL, NULL), PERFCHECK_OK);
  const uint32_t ctx = pc_sigtab_ctx(&t, (void *)(uintptr_t)0xC0, 1);
  const uint32_t na = pc_sigtab_intern(&t, "_Z8mysteryAPKfPfm");
  const uint32_t nc = pc_sigtab_intern(&t, "_Z8mysteryCPKfPfmi");
  const uint32_t sa = pc_sigtab_sig(&t, na, ctx, G4, B128, 0, 100), sa8 = pc_sigtab_sig(&t, na, ctx, G8, B128, 0, 100);
  const uint32_t sc = pc_sigtab_sig(&t, nc, ctx, G4, B128, 0, 100);
  pc_select p = {&re, 1, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}; /* -k mystery[AB], -s 1, -c 2, one per signature */
  /* The kernel regex sees the short demangled name (pc_names.c demangles
   * without the host's libstdc++), not the symbol. */
  assert_int_equal(pc_select_decide(&p, &t, sc, 7, 7, PC_NP_NONE), 0);
  assert_int_equal(t.sigs[sc].np, PC_NP_FILTERED);
  assert_int_equal(pc_select_decide(&p, &t, sa, 7, 7, PC_NP_NONE), 0); /* the first match is skipped */
  assert_int_equal(t.sigs[sa].np, PC_NP_SKIPPED);
  assert_int_equal(pc_select_decide(&p, &t, sa, 7, 7, PC_NP_CAPTURE), 0);
  assert_int_equal(t.sigs[sa].np, PC_NP_CAPTURE);
  assert_int_equal(pc_select_decide(&p, &t, sa, 7, 7, PC_NP_NONE), 1);
  assert_int_equal(t.sigs[sa].np, PC_NP_NONE);
  assert_int_equal(pc_select_decide(&p, &t, sa, 7, 7, PC_NP_NONE), 0); /* one per signature and region */
  assert_int_equal(t.sigs[sa].np, PC_NP_NONE);                      /* it has counters */
  assert_int_equal(pc_select_decide(&p, &t, sa, 8, 8, PC_NP_NONE), 1); /* a new region: again */
  assert_int_equal(pc_select_decide(&p, &t, sa8, 8, 8, PC_NP_NONE), 0); /* -c 2 reached */
  assert_int_equal(t.sigs[sa8].np, PC_NP_LIMIT);
  assert_int_equal(pc_select_decide(&p, &t, sa8, 8, 8, PC_NP_NVTX), 0);
  assert_int_equal(t.sigs[sa8].np, PC_NP_NVTX);
  assert_int_equal(p.matched, 5);
  assert_int_equal(p.profiled, 2);
  /* Runs of one region name (key 9: runs 9, 10, 11) share the budget: the
   * second and third runs do not profile the signature again, and say why. */
  pc_select q = {NULL, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  assert_int_equal(pc_select_decide(&q, &t, sc, 9, 9, PC_NP_NONE), 1);
  assert_int_equal(pc_select_decide(&q, &t, sc, 9, 9, PC_NP_NONE), 0);
  assert_int_equal(t.sigs[sc].np, PC_NP_NONE); /* this run has its counters */
  assert_int_equal(pc_select_decide(&q, &t, sc, 10, 9, PC_NP_NONE), 0);
  assert_int_equal(t.sigs[sc].np, PC_NP_EARLIER_RUN);
  assert_int_equal(pc_select_decide(&q, &t, sc, 11, 9, PC_NP_NONE), 0);
  assert_int_equal(t.sigs[sc].np, PC_NP_EARLIER_RUN);
  assert_int_equal(q.profiled, 1);
  /* Another name (key 12) profiles it again. */
  assert_int_equal(pc_select_decide(&q, &t, sc, 12, 12, PC_NP_NONE), 1);

  /* Rotation over 3 groups: a signature takes 3 profiled
   * launches (its turns 0, 1, 2) per round; one launched only twice in a run
   * gets the rest of its set by kernel replay at its first launch of a later
   * run of the same name, and is done. */
  pc_select rq = {NULL, 0, 0, 1, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0};
  /* Launched back to back (a loop of one kernel), every second launch moves
   * the config on: groups 0, 1, 2 at launches 1, 3, 5. */
  for (int k = 0; k < 5; k++) {
    assert_int_equal(pc_select_decide(&rq, &t, sa, 20, 20, PC_NP_NONE), k % 2 ? 0 : PC_SEL_ROTATE);
    assert_int_equal(t.sigs[sa].prof_count, (uint32_t)k / 2 + 1);
    if (k % 2 == 0) assert_int_equal(pc_select_turn(&rq, &t.sigs[sa], PC_SEL_ROTATE), k / 2);
  }
  assert_int_equal(pc_select_decide(&rq, &t, sa, 20, 20, PC_NP_NONE), 0);
  assert_int_equal(pc_select_decide(&rq, &t, sa8, 20, 20, PC_NP_NONE), PC_SEL_ROTATE);
  assert_int_equal(pc_select_decide(&rq, &t, sa8, 20, 20, PC_NP_NONE), 0);
  assert_int_equal(pc_select_decide(&rq, &t, sa8, 20, 20, PC_NP_NONE), PC_SEL_ROTATE);
  assert_int_equal(pc_select_decide(&rq, &t, sa8, 21, 20, PC_NP_NONE), PC_SEL_REST);
  assert_int_equal(t.sigs[sa8].prof_count, 3);
  assert_int_equal(pc_select_decide(&rq, &t, sa8, 21, 20, PC_NP_NONE), 0);
  assert_int_equal(pc_select_decide(&rq, &t, sa, 21, 20, PC_NP_NONE), 0); /* complete: nothing more */
  assert_int_equal(t.sigs[sa].np, PC_NP_EARLIER_RUN);
  pc_regex_free(&re);
  pc_sigtab_free(&t);
}

/* Rotation's group choice: a new config costs CUPTI's Start about
 * 150 ms with PyTorch loaded (H200: 198 profiled launches of a
 * training step spent 8.3 s in Start with 57 config changes), so a launch
 * collects the current group while its signature lacks it.  A loop of five
 * launches a step (A, G, B, G, C: G twice) over 6 groups.  The k-th launch
 * collecting group k changes the config at most launches; the current-group
 * choice changes it once per step after the first. */
static void test_rotation_keeps_the_config(void **state) {
  (void)state;
  pc_sigtab t;
  memset(&t, 0, sizeof t);
  const uint32_t ctx = pc_sigtab_ctx(&t, (void *)(uintptr_t)0xC0, 1);
  const char *names[3] = {"_Z1Av", "_Z1Gv", "_Z1Bv"};
  uint32_t sig[4];
  for (int i = 0; i < 3; i++) sig[i] = pc_sigtab_sig(&t, pc_sigtab_intern(&t, names[i]), ctx, G4, B128, 0, 100);
  sig[3] = pc_sigtab_sig(&t, pc_sigtab_intern(&t, "_Z1Cv"), ctx, G4, B128, 0, 100);
  const uint32_t step[5] = {sig[0], sig[1], sig[2], sig[1], sig[3]};
  pc_select p = {NULL, 0, 0, 1, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0};
  int changes = 0, selected = 0;
  long last = -1;
  unsigned seen[4] = {0, 0, 0, 0};
  for (int k = 0; k < 8; k++)
    for (int i = 0; i < 5; i++) {
      const int d = pc_select_decide(&p, &t, step[i], 40, 40, PC_NP_NONE);
      if (!d) continue;
      assert_int_equal(d, PC_SEL_ROTATE);
      const long turn = pc_select_turn(&p, &t.sigs[step[i]], d);
      assert_true(turn >= 0 && turn < 6);
      for (int j = 0; j < 4; j++)
        if (step[i] == sig[j]) {
          assert_false(seen[j] & (1u << turn)); /* never a group it has */
          seen[j] |= 1u << turn;
        }
      if (last >= 0 && turn != last) changes++;
      last = turn;
      selected++;
    }
  for (int j = 0; j < 4; j++) assert_int_equal(seen[j], 0x3fu); /* every signature every group */
  assert_int_equal(selected, 24);
  /* Group 0 for all four in the first step (G's second launch waits), then
   * one group a step: 5 changes, where the k-th launch collecting group k
   * made 15 (0 0 0 1 0 | 1 2 1 3 1 | ...). */
  assert_int_equal(changes, 5);
  printf("rotation over 6 groups, 4 signatures, 5 launches a step: %d config changes for %d profiled launches\n",
         changes, selected);

  /* Back to back (a loop of one kernel): groups 0 .. 5 at every second
   * launch (the head back twice in a row moves the config on). */
  pc_select b2b = {NULL, 0, 0, 1, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0};
  const uint32_t sr = pc_sigtab_sig(&t, pc_sigtab_intern(&t, "_Z1Rv"), ctx, G8, B128, 0, 100);
  for (long k = 0; k < 11; k++) {
    const int d = pc_select_decide(&b2b, &t, sr, 43, 43, PC_NP_NONE);
    assert_int_equal(d, k % 2 ? 0 : PC_SEL_ROTATE);
    if (d) assert_int_equal(pc_select_turn(&b2b, &t.sigs[sr], d), k / 2);
  }
  assert_int_equal(pc_select_decide(&b2b, &t, sr, 43, 43, PC_NP_NONE), 0); /* complete */

  /* A PyTorch-like step (H200: a 300-step training
   * step made 12 config changes over 5 groups): a one-off pair first (N N,
   * the initialization), then a step A B B C D D E F with two kernels
   * launched twice in a row, over 5 groups.  The rule "a signature that
   * follows itself moves the config on" made 9 changes here (simulated);
   * the step's head makes 4, one a step: N set group 0 and
   * never came back, so B, the first to have the group four times, moves
   * the config on and is the head from then on.  Every loop signature gets
   * every group. */
  {
    pc_select tp = {NULL, 0, 0, 1, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0};
    const char *tn[7] = {"_Z1Nv", "_Z2Aav", "_Z2Bbv", "_Z2Ccv", "_Z2Ddv", "_Z2Eev", "_Z2Ffv"};
    uint32_t ts[7];
    for (int i = 0; i < 7; i++) ts[i] = pc_sigtab_sig(&t, pc_sigtab_intern(&t, tn[i]), ctx, G4, B128, 0, 100);
    const uint32_t tstep[8] = {ts[1], ts[2], ts[2], ts[3], ts[4], ts[4], ts[5], ts[6]};
    int tchanges = 0, tsel = 0;
    long tlast = -1;
    for (int k = -1; k < 12; k++)
      for (int i = 0; i < (k < 0 ? 2 : 8); i++) {
        const uint32_t sg = k < 0 ? ts[0] : tstep[i];
        const int d = pc_select_decide(&tp, &t, sg, 44, 44, PC_NP_NONE);
        if (!d) continue;
        const long turn = pc_select_turn(&tp, &t.sigs[sg], d);
        if (tlast >= 0 && turn != tlast) tchanges++;
        tlast = turn;
        tsel++;
      }
    for (int i = 1; i < 7; i++) assert_int_equal(t.sigs[ts[i]].rot_mask, 0x1fu);
    printf("rotation over 5 groups, a one-off pair then A B B C D D E F: %d config changes for %d profiled launches\n",
           tchanges, tsel);
    assert_int_equal(tchanges, 4);
  }
  /* A head launched twice a step (H X H Y: a GEMM signature of a forward
   * and a backward pass) moves the config on once a step, not at its second
   * launch (H200: 7 fresh objects for 5 groups without the
   * wait).  5 groups, 4 changes. */
  {
    pc_select hp = {NULL, 0, 0, 1, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0};
    uint32_t hs[3];
    const char *hn[3] = {"_Z1Hv", "_Z2Xxv", "_Z2Yyv"};
    for (int i = 0; i < 3; i++) hs[i] = pc_sigtab_sig(&t, pc_sigtab_intern(&t, hn[i]), ctx, G4, B128, 0, 100);
    const uint32_t hstep[4] = {hs[0], hs[1], hs[0], hs[2]};
    int hchanges = 0;
    long hlast = -1;
    for (int k = 0; k < 8; k++)
      for (int i = 0; i < 4; i++) {
        const int d = pc_select_decide(&hp, &t, hstep[i], 45, 45, PC_NP_NONE);
        if (!d) continue;
        const long turn = pc_select_turn(&hp, &t.sigs[hstep[i]], d);
        if (hlast >= 0 && turn != hlast) hchanges++;
        hlast = turn;
      }
    for (int i = 0; i < 3; i++) assert_int_equal(t.sigs[hs[i]].rot_mask, 0x1fu);
    printf("rotation over 5 groups, H X H Y: %d config changes\n", hchanges);
    assert_int_equal(hchanges, 4);
  }

  /* A launch not profiled after all gives its group back. */
  pc_select q = {NULL, 0, 0, 1, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0};
  const uint32_t sx = pc_sigtab_sig(&t, pc_sigtab_intern(&t, "_Z1Xv"), ctx, G8, B128, 0, 100);
  assert_int_equal(pc_select_decide(&q, &t, sx, 41, 41, PC_NP_NONE), PC_SEL_ROTATE);
  assert_int_equal(pc_select_turn(&q, &t.sigs[sx], PC_SEL_ROTATE), 0);
  pc_select_undo(&t.sigs[sx]);
  assert_int_equal(t.sigs[sx].prof_count, 0);
  assert_int_equal(t.sigs[sx].rot_mask, 0);
  assert_int_equal(pc_select_decide(&q, &t, sx, 41, 41, PC_NP_NONE), PC_SEL_ROTATE);
  assert_int_equal(pc_select_turn(&q, &t.sigs[sx], PC_SEL_ROTATE), 0); /* group 0 again */
  /* Without rotation there is no turn. */
  pc_select r = {NULL, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  const uint32_t sy = pc_sigtab_sig(&t, pc_sigtab_intern(&t, "_Z1Yv"), ctx, G8, B128, 0, 100);
  assert_int_equal(pc_select_decide(&r, &t, sy, 42, 42, PC_NP_NONE), PC_SEL_ROTATE);
  assert_int_equal(pc_select_turn(&r, &t.sigs[sy], PC_SEL_ROTATE), -1);
  pc_sigtab_free(&t);
}

/* Graph execs: a signature of their own per exec and
 * context, with a name entry that has no string; their launches rotate over
 * graph_groups in every replay mode, never by kernel replay. */
static void test_graph_signatures(void **state) {
  (void)state;
  pc_sigtab t;
  memset(&t, 0, sizeof t);
  const uint32_t c1 = pc_sigtab_ctx(&t, (void *)(uintptr_t)0xC0, 1), c2 = pc_sigtab_ctx(&t, (void *)(uintptr_t)0xC1, 2);
  const uint32_t na = pc_sigtab_intern(&t, "_Z8mysteryAPKfPfm");
  const uint32_t sa = pc_sigtab_sig(&t, na, c1, G4, B128, 0, 100);
  const uint32_t g1 = pc_sigtab_graph(&t, 17, c1, 100), g2 = pc_sigtab_graph(&t, 18, c1, 100);
  const uint32_t g1c2 = pc_sigtab_graph(&t, 17, c2, 100);
  assert_int_equal(pc_sigtab_graph(&t, 17, c1, 100), g1); /* found again */
  assert_true(g1 != g2 && g1 != g1c2 && g2 != g1c2 && g1 != sa);
  assert_int_equal(t.nsigs, 4);
  assert_true(t.sigs[g1].is_graph && !t.sigs[sa].is_graph);
  assert_true(t.sigs[g1].graph_exec == 17 && t.sigs[g1].ctx == c1 && t.sigs[g1c2].ctx == c2);
  assert_int_equal(t.sigs[g1].grid[0], 0);
  assert_null(t.names[t.sigs[g1].name].mangled); /* never found by a kernel name */
  assert_int_equal(pc_sigtab_intern(&t, "_Z8mysteryAPKfPfm"), na);
  assert_int_equal(pc_sigtab_graph(&t, 19, c1, 4), PC_NONE); /* past max signatures */

  /* No groups yet (kernel replay before the first split): not profiled. */
  pc_select p = {NULL, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  assert_int_equal(pc_select_decide(&p, &t, g1, 30, 30, PC_NP_NONE), 0);
  assert_int_equal(t.sigs[g1].np, PC_NP_GRAPH_GROUPS);
  /* Three groups: three launches, turns 0, 1, 2, whatever rotate_groups is
   * (0: kernel replay for the kernels). */
  p.graph_groups = 3;
  for (int k = 0; k < 3; k++) {
    assert_int_equal(pc_select_decide(&p, &t, g1, 30, 30, PC_NP_NONE), PC_SEL_ROTATE);
    assert_int_equal(t.sigs[g1].prof_count, (uint32_t)k + 1);
  }
  assert_int_equal(pc_select_decide(&p, &t, g1, 30, 30, PC_NP_NONE), 0);
  assert_int_equal(pc_select_decide(&p, &t, sa, 30, 30, PC_NP_NONE), PC_SEL_ROTATE); /* a kernel: one launch, */
  assert_int_equal(t.sigs[sa].prof_count, 1);
  assert_int_equal(pc_select_decide(&p, &t, sa, 30, 30, PC_NP_NONE), 0); /* the whole set by kernel replay */
  /* A graph launched twice in a run goes on with its third group at the
   * next run of the same name: never PC_SEL_REST (no replay of a graph). */
  assert_int_equal(pc_select_decide(&p, &t, g2, 31, 31, PC_NP_NONE), PC_SEL_ROTATE);
  assert_int_equal(pc_select_decide(&p, &t, g2, 31, 31, PC_NP_NONE), PC_SEL_ROTATE);
  assert_int_equal(pc_select_decide(&p, &t, g2, 32, 31, PC_NP_NONE), PC_SEL_ROTATE);
  assert_int_equal(t.sigs[g2].prof_count, 3); /* its turn was 2 */
  assert_int_equal(pc_select_decide(&p, &t, g2, 33, 31, PC_NP_NONE), 0);
  assert_int_equal(t.sigs[g2].np, PC_NP_EARLIER_RUN);
  /* A stream capture open elsewhere: not now. */
  assert_int_equal(pc_select_decide(&p, &t, g1c2, 34, 34, PC_NP_CAPTURE), 0);
  assert_int_equal(t.sigs[g1c2].np, PC_NP_CAPTURE);
  /* A graph whose records showed an NCCL kernel: not profiled again. */
  t.sigs[g1c2].graph_comm = 1;
  assert_int_equal(pc_select_decide(&p, &t, g1c2, 34, 34, PC_NP_NONE), 0);
  assert_int_equal(t.sigs[g1c2].np, PC_NP_COMMUNICATION);
  t.sigs[g1c2].graph_comm = 0;
  /* Under a kernel filter a graph is not profiled (its counters are all of
   * its kernels'), and does not count among -s/-c's matches. */
  pc_regex re;
  assert_int_equal(pc_regex_compile(&re, "mystery", NULL, NULL), PERFCHECK_OK);
  pc_select f = {&re, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0};
  assert_int_equal(pc_select_decide(&f, &t, g1c2, 35, 35, PC_NP_NONE), 0);
  assert_int_equal(t.sigs[g1c2].np, PC_NP_FILTERED);
  assert_int_equal(f.matched, 0);
  pc_regex_free(&re);
  pc_sigtab_free(&t);
}

/* The one region stack: session regions nest, NVTX ranges end out of order
 * on other threads, and every region ends after its children. */
static void test_region_stack(void **state) {
  (void)state;
  pc_regions t;
  memset(&t, 0, sizeof t);
  const pc_region_marks b0 = {100, 0, 0, 0, 0}, b1 = {200, 3, 0, 0, 0};
  const uint32_t prog = pc_regions_push(&t, "program", PC_RG_PROGRAM, &b0);
  assert_int_equal(pc_regions_current(&t), prog);
  const uint32_t a = pc_regions_push(&t, "a", PC_RG_RECORDED, &b1);
  const uint32_t a1 = pc_regions_push(&t, "a1", PC_RG_RECORDED, NULL);
  assert_int_equal(pc_regions_find(&t, a1)->parent, a);
  assert_int_equal(pc_regions_find(&t, a1)->depth, 2);
  assert_string_equal(pc_regions_find(&t, a1)->name, "a1");
  /* The session's end never takes a recorded range. */
  assert_int_equal(pc_regions_innermost(&t), prog);
  /* a pops before a1 (another thread): launches go to a1 still, then prog. */
  const pc_region_marks e = {900, 7, 1, 0, 0};
  assert_int_equal(pc_regions_close(&t, a, &e), 0);
  assert_int_equal(pc_regions_current(&t), a1);
  assert_int_equal(pc_regions_close(&t, a1, NULL), 0);
  assert_int_equal(pc_regions_current(&t), prog);
  assert_true(pc_regions_find(&t, a)->has_end && pc_regions_find(&t, a)->end.ts == 900);
  assert_false(pc_regions_find(&t, a1)->has_end);
  const uint32_t b = pc_regions_push(&t, "b", PC_RG_RECORDED, NULL);
  assert_int_equal(pc_regions_find(&t, b)->parent, prog);
  assert_int_equal(pc_regions_close(&t, 999, NULL), -1);
  /* Ending all: children first, siblings in push order: a1, a, b, program. */
  const uint32_t want[] = {a1, a, b, prog};
  for (size_t i = 0; i < 4; i++) {
    const uint32_t next = pc_regions_next_to_end(&t);
    assert_int_equal(next, want[i]);
    assert_int_equal(pc_regions_oldest_begin(&t, prog), next == prog ? UINT64_MAX : (next == a || next == a1 ? 200 : 0));
    pc_regions_retire(&t, next);
  }
  assert_int_equal(pc_regions_next_to_end(&t), 0);
  assert_int_equal(pc_regions_current(&t), 0);
  /* A retired parent's children take its parent; ids are never reused. */
  const uint32_t x = pc_regions_push(&t, "x", 0, NULL), y = pc_regions_push(&t, "y", 0, NULL);
  const uint32_t z = pc_regions_push(&t, "z", 0, NULL);
  assert_true(x > prog && y > x && z > y);
  pc_regions_retire(&t, y);
  assert_int_equal(pc_regions_find(&t, z)->parent, x);
  /* Keys: every run of one name has the key of its first run, after that
   * run retired too; another name its own id. */
  assert_int_equal(pc_regions_key(&t, x), x);
  assert_int_equal(pc_regions_key(&t, z), z);
  const uint32_t b2 = pc_regions_push(&t, "b", 0, NULL), a2 = pc_regions_push(&t, "a", 0, NULL);
  assert_int_equal(pc_regions_key(&t, b2), b);
  assert_int_equal(pc_regions_key(&t, a2), a);
  assert_int_equal(pc_regions_key(&t, 999), 0);
  pc_regions_retire(&t, a2);
  pc_regions_retire(&t, b2);
  assert_int_equal(pc_regions_innermost(&t), z);
  pc_regions_clear(&t);
  assert_int_equal(pc_regions_push(&t, NULL, 0, NULL), a2 + 1);
  assert_string_equal(t.v[0].name, "(unnamed)");
  pc_regions_clear(&t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ltab_random),
      cmocka_unit_test(test_map_collisions),
      cmocka_unit_test(test_map_erase_iterate),
      cmocka_unit_test(test_names_signatures_contexts),
      cmocka_unit_test(test_functions_of_one_name),
      cmocka_unit_test(test_selection),
      cmocka_unit_test(test_rotation_keeps_the_config),
      cmocka_unit_test(test_graph_signatures),
      cmocka_unit_test(test_region_stack),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
