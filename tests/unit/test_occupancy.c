/* The occupancy model (pc_occupancy.c) and the device model (pc_device.c),
 * against the seeds' measured T4 tables and H200 limits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/pc_core.h"
#include "check/pc_check.h"

#define assert_near(a, b, eps)                                                                  \
  do {                                                                                          \
    double a_ = (a), b_ = (b);                                                                  \
    if (!(fabs(a_ - b_) <= (eps))) fail_msg("%s = %.9g, expected %.9g (+-%g)", #a, a_, b_, (double)(eps)); \
  } while (0)

/* Tesla T4, cc 7.5: seed 003 (40 SMs, 1024 threads and 16 blocks per SM) and
 * seed 002 (65,536 registers and 64 KiB shared memory per SM); per-block
 * limits from the T4's device attributes (48 KiB default, 64 KiB opt-in). */
static pc_device t4(void) {
  pc_device d;
  pc_device_init(&d);
  snprintf(d.name, sizeof d.name, "Tesla T4");
  d.cc_major = 7;
  d.cc_minor = 5;
  d.sm_count = 40;
  d.warp_size = 32;
  d.max_threads_per_sm = 1024;
  d.max_threads_per_block = 1024;
  d.max_blocks_per_sm = 16;
  d.max_regs_per_sm = 65536;
  d.max_regs_per_block = 65536;
  d.max_smem_per_sm = 65536;
  d.max_smem_per_block = 49152;
  d.max_smem_per_block_optin = 65536;
  d.reserved_smem_per_block = 0;
  pc_device_fill_granularities(&d);
  return d;
}

/* NVIDIA H200, cc 9.0. */
static pc_device h200(void) {
  pc_device d;
  pc_device_init(&d);
  snprintf(d.name, sizeof d.name, "NVIDIA H200");
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.warp_size = 32;
  d.max_threads_per_sm = 2048;
  d.max_threads_per_block = 1024;
  d.max_blocks_per_sm = 32;
  d.max_regs_per_sm = 65536;
  d.max_regs_per_block = 65536;
  d.max_smem_per_sm = 233472;
  d.max_smem_per_block = 49152;
  d.max_smem_per_block_optin = 232448; /* 227 KiB */
  d.reserved_smem_per_block = 1024;
  pc_device_fill_granularities(&d);
  return d;
}

static pc_occupancy occ(const pc_device *d, int block, int regs, int static_smem, int dyn) {
  pc_occupancy_input in = {block, regs, static_smem, dyn};
  pc_occupancy o;
  memset(&o, 0x5a, sizeof o);
  assert_int_equal(pc_occupancy_compute(d, &in, &o), 0);
  return o;
}

/* ---- device ---------------------------------------------------------------- */

static void test_device_init_unknown(void **state) {
  (void)state;
  pc_device d;
  memset(&d, 0x33, sizeof d);
  pc_device_init(&d);
  assert_string_equal(d.name, "");
  assert_int_equal(d.cc_major, -1);
  assert_int_equal(d.sm_count, -1);
  assert_int_equal(d.smem_alloc_unit, -1);
  assert_true(isnan(d.peak_dram_bytes_per_s));
  assert_true(isnan(d.ridge_flop_per_byte));
  assert_string_equal(d.ceilings_source, "");
}

static void test_granularities_follow_cuda_occupancy_h(void **state) {
  (void)state;
  pc_device d = t4();
  assert_int_equal(d.reg_alloc_unit, 256);
  assert_int_equal(d.warp_alloc_granularity, 4);
  assert_int_equal(d.smem_alloc_unit, 256); /* 256 B up to sm_7x */
  assert_int_equal(d.reserved_smem_per_block, 0);
  pc_device h;
  pc_device_init(&h);
  h.cc_major = 9;
  h.cc_minor = 0;
  pc_device_fill_granularities(&h);
  assert_int_equal(h.smem_alloc_unit, 128); /* 128 B from sm_8x */
  assert_int_equal(h.reserved_smem_per_block, 1024);
  /* A driver's answer is kept. */
  pc_device k;
  pc_device_init(&k);
  k.cc_major = 8;
  k.reserved_smem_per_block = 0;
  pc_device_fill_granularities(&k);
  assert_int_equal(k.reserved_smem_per_block, 0);
  /* Unknown cc: nothing is guessed. */
  pc_device u;
  pc_device_init(&u);
  pc_device_fill_granularities(&u);
  assert_int_equal(u.smem_alloc_unit, -1);
  assert_int_equal(u.reg_alloc_unit, -1);
}

static void test_fp32_lanes(void **state) {
  (void)state;
  assert_int_equal(pc_fp32_lanes_per_sm(7, 5), 64);
  assert_int_equal(pc_fp32_lanes_per_sm(8, 0), 64);
  assert_int_equal(pc_fp32_lanes_per_sm(8, 6), 128);
  assert_int_equal(pc_fp32_lanes_per_sm(8, 9), 128);
  assert_int_equal(pc_fp32_lanes_per_sm(9, 0), 128);
  assert_int_equal(pc_fp32_lanes_per_sm(10, 0), 128);
  assert_int_equal(pc_fp32_lanes_per_sm(12, 0), 128);
  assert_int_equal(pc_fp32_lanes_per_sm(2, 0), -1);
  assert_int_equal(pc_fp32_lanes_per_sm(-1, -1), -1);
}

static void test_ceilings_from_clocks(void **state) {
  (void)state;
  /* T4: 5001 MHz GDDR6 on a 256-bit bus, 1590 MHz SM clock. */
  pc_device d = t4();
  pc_device_ceilings_from_clocks(&d, 5001000, 256, 1590000);
  assert_near(d.peak_dram_bytes_per_s, 2.0 * 5.001e9 * 32, 1);
  assert_near(d.peak_fp32_flop_per_s, 40.0 * 64 * 2 * 1.59e9, 1);
  assert_near(d.ridge_flop_per_byte, (40.0 * 64 * 2 * 1.59e9) / (2.0 * 5.001e9 * 32), 1e-9);
  assert_string_equal(d.ceilings_source, "attributes");
  /* A missing input leaves its peak and the ridge unknown. */
  pc_device_ceilings_from_clocks(&d, 0, 256, 1590000);
  assert_true(isnan(d.peak_dram_bytes_per_s));
  assert_true(pc_has(d.peak_fp32_flop_per_s));
  assert_true(isnan(d.ridge_flop_per_byte));
  pc_device u;
  pc_device_init(&u); /* no cc, no SM count */
  pc_device_ceilings_from_clocks(&u, 5001000, 256, 1590000);
  assert_true(isnan(u.peak_fp32_flop_per_s));
  assert_true(pc_has(u.peak_dram_bytes_per_s));
  pc_device_update_ridge(&u);
  assert_true(isnan(u.ridge_flop_per_byte));
}

static char *tmpfile_with(const char *text) {
  char *path = strdup("/tmp/pc_ceilings_XXXXXX");
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  size_t n = strlen(text);
  assert_int_equal(write(fd, text, n), (ssize_t)n);
  close(fd);
  return path;
}

static void test_ceilings_file_roundtrip(void **state) {
  (void)state;
  pc_device d = h200();
  d.peak_dram_bytes_per_s = 4.8e12;
  d.peak_fp32_flop_per_s = 6.7e13;
  pc_device_update_ridge(&d);
  char *path = tmpfile_with("");
  pc_err err;
  assert_int_equal(pc_device_write_ceilings(&d, path, &err), PERFCHECK_OK);
  assert_int_equal(err.status, PERFCHECK_OK);
  pc_device r;
  pc_device_init(&r);
  assert_int_equal(pc_device_read_ceilings(&r, path, &err), PERFCHECK_OK);
  assert_string_equal(r.name, "NVIDIA H200");
  assert_int_equal(r.cc_major, 9);
  assert_int_equal(r.sm_count, 132);
  assert_int_equal(r.max_smem_per_sm, 233472);
  assert_int_equal(r.reserved_smem_per_block, 1024);
  assert_int_equal(r.smem_alloc_unit, 128);
  assert_near(r.peak_dram_bytes_per_s, 4.8e12, 0);
  assert_near(r.peak_fp32_flop_per_s, 6.7e13, 0);
  assert_near(r.ridge_flop_per_byte, 6.7e13 / 4.8e12, 1e-12);
  assert_string_equal(r.ceilings_source, "file");
  unlink(path);
  free(path);
}

static void test_ceilings_file_comments_and_partial(void **state) {
  (void)state;
  char *path = tmpfile_with("# measured with the copy kernel\n"
                            "\n"
                            "peak_dram_bytes_per_s = 3.0e11   # 300 GB/s\n"
                            "  peak_fp32_flop_per_s=8.1e12\n"
                            "name = Tesla T4\n");
  pc_device d = t4();
  pc_err err;
  assert_int_equal(pc_device_read_ceilings(&d, path, &err), PERFCHECK_OK);
  assert_near(d.peak_dram_bytes_per_s, 3.0e11, 0);
  assert_near(d.ridge_flop_per_byte, 27.0, 1e-9);
  assert_string_equal(d.name, "Tesla T4");
  assert_int_equal(d.sm_count, 40); /* untouched */
  unlink(path);
  free(path);
}

static void expect_parse_error(const char *text, const char *needle) {
  char *path = tmpfile_with(text);
  pc_device d = t4();
  pc_device before = d;
  pc_err err;
  assert_int_equal(pc_device_read_ceilings(&d, path, &err), PERFCHECK_ERROR_PARSE);
  if (!strstr(err.msg, needle)) fail_msg("error \"%s\" does not contain \"%s\"", err.msg, needle);
  assert_memory_equal(&d, &before, sizeof d); /* an error changes nothing */
  unlink(path);
  free(path);
}

static void test_ceilings_file_errors(void **state) {
  (void)state;
  expect_parse_error("peak_dram_bytes_per_s = 3e11\nthis is junk\n", ":2: expected `key = value`");
  expect_parse_error("# c\n\npeak_hbm = 5\n", ":3: peak_hbm: unknown key");
  expect_parse_error("sm_count = forty\n", ":1: sm_count: not an integer");
  expect_parse_error("sm_count = -3\n", ":1: sm_count: integer out of range");
  expect_parse_error("peak_fp32_flop_per_s = -1\n", ":1: peak_fp32_flop_per_s: must be a finite positive number");
  expect_parse_error("peak_fp32_flop_per_s = 1e12x\n", ":1: peak_fp32_flop_per_s: not a number");
  expect_parse_error("peak_fp32_flop_per_s =\n", ":1: peak_fp32_flop_per_s: missing value");
  expect_parse_error(" = 4\n", ":1: missing key");
  pc_device d = t4();
  pc_err err;
  assert_int_equal(pc_device_read_ceilings(&d, "/nonexistent/pc_ceilings", &err), PERFCHECK_ERROR_IO);
  assert_non_null(strstr(err.msg, "/nonexistent/pc_ceilings"));
  assert_int_equal(err.status, PERFCHECK_ERROR_IO);
}

/* ---- occupancy: T4 --------------------------------------------------------- */

/* Seed 003's occupancy API table for `scale` on the T4.  The seed does not
 * print the register count of `scale`; every count a simple kernel like it
 * compiles to (8 to 16) gives the same table. */
static void test_t4_scale_table(void **state) {
  (void)state;
  pc_device d = t4();
  const int regs[] = {8, 10, 12, 16};
  const int blocks[] = {32, 64, 128, 256, 512, 1024};
  const int expect_blocks[] = {16, 16, 8, 4, 2, 1};
  const double expect_pct[] = {50, 100, 100, 100, 100, 100};
  for (size_t r = 0; r < sizeof regs / sizeof regs[0]; r++) {
    for (size_t i = 0; i < 6; i++) {
      pc_occupancy o = occ(&d, blocks[i], regs[r], 0, 0);
      assert_int_equal(o.blocks_per_sm, expect_blocks[i]);
      assert_int_equal(o.blocks_per_sm * blocks[i], expect_blocks[i] * blocks[i]);
      assert_near(o.theoretical_pct, expect_pct[i], 1e-9);
    }
  }
  pc_occupancy o = occ(&d, 32, 16, 0, 0);
  assert_int_equal(o.binding, PC_LIMIT_BLOCKS); /* 16 block slots before 32 warp slots */
  assert_int_equal(o.limit_blocks, 16);
  assert_int_equal(o.limit_warps, 32);
  assert_int_equal(o.limit_shared_mem, INT_MAX); /* no shared memory, nothing reserved on Turing */
  assert_int_equal(o.warps_per_sm, 16);
}

/* Seed 000, Part 1 (T4). */
static void test_t4_mystery_part1(void **state) {
  (void)state;
  pc_device d = t4();
  pc_occupancy a = occ(&d, 256, 8, 0, 0); /* mysteryA */
  assert_int_equal(a.blocks_per_sm, 4);
  assert_int_equal(a.warps_per_sm, 32);
  assert_near(a.theoretical_pct, 100.0, 1e-9);
  assert_int_equal(a.binding, PC_LIMIT_WARPS);
  pc_occupancy b = occ(&d, 256, 14, 0, 0); /* mysteryB, mysteryC 0 B */
  assert_int_equal(b.blocks_per_sm, 4);
  assert_int_equal(b.warps_per_sm, 32);
  assert_near(b.theoretical_pct, 100.0, 1e-9);
  pc_occupancy c = occ(&d, 256, 14, 0, 48000); /* mysteryC, 48000 B dynamic */
  assert_int_equal(c.blocks_per_sm, 1);
  assert_int_equal(c.warps_per_sm, 8);
  assert_near(c.theoretical_pct, 25.0, 1e-9);
  assert_int_equal(c.binding, PC_LIMIT_SHARED_MEMORY);
  assert_int_equal(c.limit_shared_mem, 1); /* 48000 -> 48128 B (256 B units); 65536 / 48128 */
  assert_int_equal(c.limit_warps, 4);
  assert_string_equal(pc_limiter_name(c.binding), "shared_memory");
}

static void test_t4_smem_unit_is_256(void **state) {
  (void)state;
  pc_device d = t4();
  pc_occupancy o = occ(&d, 32, 8, 0, 100); /* 100 B -> 256 B */
  assert_int_equal(o.limit_shared_mem, 65536 / 256);
  o = occ(&d, 32, 8, 16000, 16000); /* 32000 -> 32000 (125 x 256) */
  assert_int_equal(o.limit_shared_mem, 2);
  o = occ(&d, 32, 8, 16000, 16001); /* 32001 -> 32256 */
  assert_int_equal(o.limit_shared_mem, 2);
  o = occ(&d, 32, 8, 0, 32769); /* -> 33024: one block */
  assert_int_equal(o.limit_shared_mem, 1);
  assert_int_equal(o.binding, PC_LIMIT_SHARED_MEMORY);
}

/* ---- occupancy: H200 ------------------------------------------------------- */

static void test_h200(void **state) {
  (void)state;
  pc_device d = h200();
  pc_occupancy o = occ(&d, 256, 14, 0, 0);
  assert_int_equal(o.blocks_per_sm, 8);
  assert_near(o.theoretical_pct, 100.0, 1e-9);
  assert_int_equal(o.binding, PC_LIMIT_WARPS);
  assert_int_equal(o.limit_warps, 8);
  assert_int_equal(o.limit_blocks, 32);
  assert_int_equal(o.limit_registers, 16);      /* 14 x 32 -> 512 per warp: 32 warps per sub-partition */
  assert_int_equal(o.limit_shared_mem, 228);    /* only the 1 KiB the driver reserves per block */

  o = occ(&d, 256, 255, 0, 0); /* 255 x 32 -> 8192 per warp: 2 warps per sub-partition */
  assert_int_equal(o.blocks_per_sm, 1);
  assert_int_equal(o.warps_per_sm, 8);
  assert_near(o.theoretical_pct, 12.5, 1e-9);
  assert_int_equal(o.binding, PC_LIMIT_REGISTERS);

  o = occ(&d, 256, 14, 0, 120000); /* 121024 -> 121088 B: one fits in 233472 */
  assert_int_equal(o.blocks_per_sm, 1);
  assert_int_equal(o.limit_shared_mem, 1);
  assert_int_equal(o.binding, PC_LIMIT_SHARED_MEMORY);
  assert_near(o.theoretical_pct, 12.5, 1e-9);

  o = occ(&d, 256, 64, 0, 0); /* 2048 per warp: 8 per sub-partition, 32 warps */
  assert_int_equal(o.blocks_per_sm, 4);
  assert_near(o.theoretical_pct, 50.0, 1e-9);
  assert_int_equal(o.binding, PC_LIMIT_REGISTERS);

  o = occ(&d, 256, 40, 0, 0); /* 1280 per warp: 12 per sub-partition, 48 warps */
  assert_int_equal(o.blocks_per_sm, 6);
  assert_near(o.theoretical_pct, 75.0, 1e-9);
  o = occ(&d, 256, 33, 0, 0); /* 1056 rounds up to 1280 as well */
  assert_int_equal(o.blocks_per_sm, 6);
  o = occ(&d, 256, 32, 0, 0); /* exactly 1024 per warp */
  assert_int_equal(o.blocks_per_sm, 8);

  o = occ(&d, 1024, 32, 0, 0);
  assert_int_equal(o.blocks_per_sm, 2);
  assert_near(o.theoretical_pct, 100.0, 1e-9);

  o = occ(&d, 32, 8, 0, 0); /* 32 block slots, 64 warp slots: 50% */
  assert_int_equal(o.blocks_per_sm, 32);
  assert_int_equal(o.binding, PC_LIMIT_BLOCKS);
  assert_near(o.theoretical_pct, 50.0, 1e-9);

  o = occ(&d, 100, 8, 0, 0); /* 4 warps per block, the last one partial */
  assert_int_equal(o.blocks_per_sm, 16);
  assert_near(o.theoretical_pct, 100.0, 1e-9);

  o = occ(&d, 32, 8, 0, 100); /* 100 + 1024 reserved -> 1152 (128 B units) */
  assert_int_equal(o.limit_shared_mem, 233472 / 1152);
}

static void test_tie_rule(void **state) {
  (void)state;
  pc_device d = h200();
  /* Ties go to the first of blocks, warps, registers, shared memory (the
   * order the ncu reader uses: ncu prints the block limit for a resource a
   * kernel does not use).  Registers and shared memory both allow one
   * block: registers is named. */
  pc_occupancy o = occ(&d, 256, 255, 0, 120000);
  assert_int_equal(o.limit_registers, 1);
  assert_int_equal(o.limit_shared_mem, 1);
  assert_int_equal(o.binding, PC_LIMIT_REGISTERS);
  /* Warps and blocks tie at 16 on the T4 with 64-thread blocks: blocks. */
  pc_device t = t4();
  o = occ(&t, 64, 8, 0, 0);
  assert_int_equal(o.limit_warps, 16);
  assert_int_equal(o.limit_blocks, 16);
  assert_int_equal(o.binding, PC_LIMIT_BLOCKS);
  /* Warps and registers tie at 2 (1024 threads, 32 registers): warps. */
  o = occ(&d, 1024, 32, 0, 0);
  assert_int_equal(o.limit_warps, 2);
  assert_int_equal(o.limit_registers, 2);
  assert_int_equal(o.binding, PC_LIMIT_WARPS);
}

static void test_impossible_and_unknown(void **state) {
  (void)state;
  pc_device d = h200();
  pc_occupancy o;
  pc_occupancy_input too_big = {2048, 8, 0, 0};
  assert_int_equal(pc_occupancy_compute(&d, &too_big, &o), -1);
  assert_int_equal(o.blocks_per_sm, 0);
  assert_int_equal(o.limit_warps, 0);
  assert_int_equal(o.binding, PC_LIMIT_NONE);
  pc_occupancy_input smem = {256, 8, 0, 240000}; /* over the 227 KiB opt-in */
  assert_int_equal(pc_occupancy_compute(&d, &smem, &o), -1);
  pc_occupancy_input regs = {1024, 65, 0, 0}; /* 2304 x 32 warps > 65536 per block */
  assert_int_equal(pc_occupancy_compute(&d, &regs, &o), -1);
  pc_occupancy_input zero = {0, 8, 0, 0};
  assert_int_equal(pc_occupancy_compute(&d, &zero, &o), -1);
  pc_occupancy_input neg = {256, 8, -1, 0};
  assert_int_equal(pc_occupancy_compute(&d, &neg, &o), -1);
  pc_occupancy_input ok = {256, 8, 0, 0};
  assert_int_equal(pc_occupancy_compute(NULL, &ok, &o), -1);
  pc_device u;
  pc_device_init(&u);
  assert_int_equal(pc_occupancy_compute(&u, &ok, &o), -1);
  assert_true(isnan(o.theoretical_pct));
  /* Limits known but no compute capability: the shared-memory unit is unknown. */
  pc_device nocc = h200();
  nocc.cc_major = nocc.cc_minor = -1;
  nocc.smem_alloc_unit = -1;
  assert_int_equal(pc_occupancy_compute(&nocc, &ok, &o), -1);
  assert_int_equal(pc_occupancy_compute(&d, &ok, NULL), -1);
}

static void test_limiter_names(void **state) {
  (void)state;
  assert_string_equal(pc_limiter_name(PC_LIMIT_WARPS), "warps");
  assert_string_equal(pc_limiter_name(PC_LIMIT_BLOCKS), "blocks");
  assert_string_equal(pc_limiter_name(PC_LIMIT_REGISTERS), "registers");
  assert_string_equal(pc_limiter_name(PC_LIMIT_SHARED_MEMORY), "shared_memory");
  assert_string_equal(pc_limiter_name(PC_LIMIT_NONE), "none");
  assert_string_equal(pc_limiter_name((pc_limiter)99), "none");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_device_init_unknown),
      cmocka_unit_test(test_granularities_follow_cuda_occupancy_h),
      cmocka_unit_test(test_fp32_lanes),
      cmocka_unit_test(test_ceilings_from_clocks),
      cmocka_unit_test(test_ceilings_file_roundtrip),
      cmocka_unit_test(test_ceilings_file_comments_and_partial),
      cmocka_unit_test(test_ceilings_file_errors),
      cmocka_unit_test(test_t4_scale_table),
      cmocka_unit_test(test_t4_mystery_part1),
      cmocka_unit_test(test_t4_smem_unit_is_256),
      cmocka_unit_test(test_h200),
      cmocka_unit_test(test_tie_rule),
      cmocka_unit_test(test_impossible_and_unknown),
      cmocka_unit_test(test_limiter_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
