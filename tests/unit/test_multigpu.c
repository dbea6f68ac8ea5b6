/* Several GPUs on a CPU: synthetic snapshots of a region whose
 * kernels ran on two devices, built the way lib/gpu builds them (one
 * context per device, each naming its ordinal and PCI bus id), and reports
 * of several ranks merged.
 *
 *   - per kernel: the device ordinal and PCI bus id, in JSON, text and CSV;
 *   - per region: step 1 per device (each device's busy time against the
 *     region's wall clock), a device without launches has no entry;
 *   - NCCL kernels: never selected for counters, verdict `communication`,
 *     and the region's communication share from the activity records;
 *   - ranks: rank/world_size/local_rank in the report, merged per rank, a
 *     missing rank named.
 *
 * The times are H200-like: add_one-sized kernels of microseconds, an
 * all-reduce kernel of NCCL's LL protocol of ~20 us. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/pc_config.h"
#include "model/pc_core.h"
#include "read/pc_json.h"
#include "capture/pc_sigtab.h"
#include "model/pc_snapshot.h"
#include "check/pc_check.h"
#include "report/pc_region_build.h"

#define T0 1764500000000000000ull
#define US 1000ull

/* NCCL 2.2x's all-reduce kernel, as its symbol table names it. */
#define NCCL_ALLREDUCE "_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE"

static void h200_facts(pc_device *d, const char *name, int sms) {
  pc_device_init(d);
  snprintf(d->name, sizeof d->name, "%s", name);
  d->cc_major = 9, d->cc_minor = 0, d->sm_count = sms, d->warp_size = 32;
  d->max_threads_per_sm = 2048, d->max_threads_per_block = 1024, d->max_blocks_per_sm = 32;
  d->max_regs_per_sm = 65536, d->max_regs_per_block = 65536, d->max_smem_per_sm = 233472;
  d->max_smem_per_block = 49152, d->max_smem_per_block_optin = 232448;
  d->reserved_smem_per_block = 1024;
  pc_device_fill_granularities(d);
}

/* A snapshot with `ndev` devices (ordinal i at PCI bus 0000:<19 + 0x10 i>:00.0),
 * one context each, timing mode. */
static pc_snapshot *two_device_snap(const char *name, int ndev) {
  pc_snapshot *s = pc_snapshot_new();
  assert_non_null(s);
  s->name = strdup(name);
  s->first_device = 0;
  for (int i = 0; i < ndev; i++) {
    char pci[16];
    snprintf(pci, sizeof pci, "0000:%02X:00.0", 0x19 + 0x10 * i);
    pc_snap_context *c = pc_snapshot_add_context(s);
    c->device = i;
    snprintf(c->pci_bus_id, sizeof c->pci_bus_id, "%s", pci);
    pc_snap_device *d = pc_snapshot_add_device(s);
    d->ordinal = i;
    snprintf(d->pci_bus_id, sizeof d->pci_bus_id, "%s", pci);
    h200_facts(&d->facts, "NVIDIA H200", 132);
  }
  return s;
}

static uint32_t add_sig(pc_snapshot *s, const char *mangled, uint32_t ctx, unsigned gx, unsigned bx) {
  pc_snap_sig *g = pc_snapshot_add_sig(s);
  assert_non_null(g);
  g->mangled = strdup(mangled);
  g->context = ctx;
  g->grid[0] = gx, g->grid[1] = g->grid[2] = 1;
  g->block[0] = bx, g->block[1] = g->block[2] = 1;
  g->not_profiled = s->counters ? PC_NP_NONE : PC_NP_TIMING;
  g->attr_from = PC_SNAP_ATTR_RECORD;
  g->rec_valid = 1;
  g->rec_registers = 16;
  return (uint32_t)(s->nsigs - 1);
}

static void add_launch(pc_snapshot *s, uint32_t sig, uint64_t start, uint64_t end, uint32_t corr) {
  pc_snap_launch *l = pc_snapshot_add_launch(s);
  assert_non_null(l);
  *l = (pc_snap_launch){start, end, sig, corr, 7, 0};
}

static pc_report *build(const pc_snapshot *s) {
  pc_report *r = pc_report_new();
  assert_non_null(r);
  pc_build_state st;
  pc_build_state_init(&st, 1);
  assert_int_equal(pc_region_build(s, r, &st), PERFCHECK_OK);
  return r;
}

static const pc_kernel *kernel(const pc_report *r, const char *name) {
  for (size_t i = 0; i < r->nkernels; i++)
    if (strcmp(r->kernels[i].name, name) == 0) return &r->kernels[i];
  fail_msg("no kernel %s", name);
  return NULL;
}

static char *write_fmt(const pc_report *r, perfcheck_format fmt) {
  /* Static, not local: gcc 12's -Wdangling-pointer reads open_memstream's hold
   * on a local's address as a dangling pointer in the callers. */
  static char *buf;
  static size_t len;
  buf = NULL;
  len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  assert_int_equal(perfcheck_report_write(r, fmt, f), PERFCHECK_OK);
  fclose(f);
  return buf;
}

static pc_report *read_back(const char *json) {
  pc_report *r = NULL;
  pc_err err;
  assert_int_equal(pc_report_from_json_text(json, strlen(json), "test", 1, &r, &err), PERFCHECK_OK);
  return r;
}

/* ---- part 1: devices -------------------------------------------------------------------- */

/* Region "step", 100 us of wall clock: device 0 runs gemm 0..70 us (busy
 * 70%), device 1 runs a 10 us kernel twice (busy 20%); a third device that
 * took no launch has no entry.  Overall busy time is the union, 70 us. */
static pc_snapshot *step_snapshot(void) {
  pc_snapshot *s = two_device_snap("step", 3);
  s->begin_ts = T0;
  s->end_ts = T0 + 100 * US;
  const uint32_t a = add_sig(s, "_Z4gemmv", 0, 264, 256);
  const uint32_t b = add_sig(s, "_Z6reducev", 1, 132, 512);
  add_launch(s, a, T0, T0 + 70 * US, 1);
  add_launch(s, b, T0 + 5 * US, T0 + 15 * US, 2);
  add_launch(s, b, T0 + 40 * US, T0 + 50 * US, 3);
  s->launch_calls = 3;
  return s;
}

static void test_kernel_devices_and_step1_per_device(void **state) {
  (void)state;
  pc_snapshot *s = step_snapshot();
  pc_report *r = build(s);
  const pc_kernel *ka = kernel(r, "gemm"), *kb = kernel(r, "reduce");
  assert_int_equal(ka->device_ordinal, 0);
  assert_string_equal(ka->pci_bus_id, "0000:19:00.0");
  assert_int_equal(kb->device_ordinal, 1);
  assert_string_equal(kb->pci_bus_id, "0000:29:00.0");

  assert_int_equal(r->nregions, 1);
  const pc_region *g = &r->regions[0];
  assert_float_equal(g->wall_ns, 100e3, 0);
  assert_float_equal(g->kernel_ns, 70e3, 0); /* the union over both devices */
  assert_float_equal(g->kernel_share, 0.7, 1e-12);
  assert_int_equal(g->diag.verdict.cause, PERFCHECK_CAUSE_NONE);
  /* Two entries: the device without a launch has none. */
  assert_int_equal(g->ndevices, 2);
  assert_int_equal(g->devices[0].ordinal, 0);
  assert_string_equal(g->devices[0].pci_bus_id, "0000:19:00.0");
  assert_float_equal(g->devices[0].kernel_ns, 70e3, 0);
  assert_float_equal(g->devices[0].kernel_share, 0.7, 1e-12);
  assert_int_equal(g->devices[0].launches, 1);
  assert_int_equal(g->devices[0].diag.verdict.cause, PERFCHECK_CAUSE_NONE);
  assert_int_equal(g->devices[1].ordinal, 1);
  assert_string_equal(g->devices[1].pci_bus_id, "0000:29:00.0");
  assert_float_equal(g->devices[1].kernel_ns, 20e3, 0);
  assert_float_equal(g->devices[1].kernel_sum_ns, 20e3, 0);
  assert_float_equal(g->devices[1].gpu_idle_ns, 25e3, 0); /* 15..40 us */
  assert_float_equal(g->devices[1].median_kernel_ns, 10e3, 0);
  assert_int_equal(g->devices[1].launches, 2);
  assert_float_equal(g->devices[1].kernel_share, 0.2, 1e-12);
  /* Device 1 is idle for most of the region: step 1 says so for it alone. */
  assert_int_equal(g->devices[1].diag.verdict.step, 1);
  assert_int_equal(g->devices[1].diag.verdict.cause, PERFCHECK_CAUSE_NOT_THE_SLOW_PART);
  assert_float_equal(g->devices[1].diag.verdict.value, 0.2, 1e-12);
  /* No communication kernel: a measured zero. */
  assert_float_equal(g->communication_ns, 0, 0);
  assert_float_equal(g->compute_ns, 90e3, 0);
  assert_float_equal(g->communication_share, 0, 0);

  /* JSON: both kernels name their device; the region's devices survive a
   * round trip, and re-diagnosing gives the same per-device verdicts. */
  char *j = write_fmt(r, PERFCHECK_FORMAT_JSON);
  assert_non_null(strstr(j, "\"device_ordinal\": 1,\n      \"pci_bus_id\": \"0000:29:00.0\""));
  assert_non_null(strstr(j, "\"ordinal\": 1,\n          \"pci_bus_id\": \"0000:29:00.0\""));
  assert_null(strstr(j, "0000:39:00.0")); /* the idle third device */
  pc_report *back = read_back(j);
  assert_int_equal(back->nregions, 1);
  assert_int_equal(back->regions[0].ndevices, 2);
  assert_string_equal(back->regions[0].devices[1].pci_bus_id, "0000:29:00.0");
  assert_int_equal(back->regions[0].devices[1].launches, 2);
  assert_int_equal(back->regions[0].devices[1].diag.verdict.cause, PERFCHECK_CAUSE_NOT_THE_SLOW_PART);
  assert_string_equal(kernel(back, "reduce")->pci_bus_id, "0000:29:00.0");
  pc_checklist_report(back);
  assert_int_equal(back->regions[0].devices[1].diag.verdict.cause, PERFCHECK_CAUSE_NOT_THE_SLOW_PART);
  assert_float_equal(back->regions[0].devices[1].kernel_share, 0.2, 1e-12);
  assert_int_equal(back->regions[0].devices[0].diag.verdict.cause, PERFCHECK_CAUSE_NONE);
  pc_report_free(back);
  free(j);

  /* Text: the device table and the per-device rows of the region. */
  char *t = write_fmt(r, PERFCHECK_FORMAT_TEXT);
  assert_non_null(strstr(t, "Devices: where each kernel ran\n"));
  assert_non_null(strstr(t, "0 0000:19:00.0\n"));
  assert_non_null(strstr(t, "1 0000:29:00.0\n"));
  assert_non_null(strstr(t, "  device 1 (0000:29:00.0)"));
  const char *row = strstr(t, "  device 1 (0000:29:00.0)");
  const char *eol = strchr(row, '\n');
  assert_non_null(eol);
  assert_non_null(strstr(row, "0.020"));
  assert_true(strstr(row, "not_the_slow_part") && strstr(row, "not_the_slow_part") < eol);
  free(t);
  /* CSV: the device columns, before the rank, borderline and stall columns. */
  char *c = write_fmt(r, PERFCHECK_FORMAT_CSV);
  assert_non_null(strstr(c, ",device_ordinal,pci_bus_id,rank,borderline,runner_up,stall,stall_share,"));
  assert_non_null(strstr(c, ",1,0000:29:00.0,"));
  assert_non_null(strstr(c, ",0,0000:19:00.0,"));
  free(c);
  pc_report_free(r);
  pc_snapshot_free(s);
}

/* A region on one device writes one device entry and no per-device rows in
 * the text (they would repeat the region's). */
static void test_one_device_region(void **state) {
  (void)state;
  pc_snapshot *s = two_device_snap("one", 2);
  s->begin_ts = T0;
  s->end_ts = T0 + 10 * US;
  const uint32_t a = add_sig(s, "_Z4gemmv", 1, 264, 256);
  add_launch(s, a, T0 + US, T0 + 9 * US, 1);
  pc_report *r = build(s);
  assert_int_equal(r->regions[0].ndevices, 1);
  assert_int_equal(r->regions[0].devices[0].ordinal, 1);
  assert_float_equal(r->regions[0].devices[0].kernel_share, 0.8, 1e-12);
  char *t = write_fmt(r, PERFCHECK_FORMAT_TEXT);
  assert_null(strstr(t, "  device 1 ("));
  free(t);
  pc_report_free(r);
  pc_snapshot_free(s);
}

/* ---- part 2: NCCL kernels --------------------------------------------------------------- */

#define NV_STATIC_ONERANK "__nv_static_32__b4148644_10_onerank_cu_fdf47990__ZN43_GLOBAL__N__b4148644_10_onerank_cu_fdf4799013oneRankReduceI13FuncPreMulSumIfEEEvPvS3_myb"

static void test_communication_names(void **state) {
  (void)state;
  assert_true(pc_symbol_is_communication(NCCL_ALLREDUCE));
  assert_true(pc_symbol_is_communication("_Z42ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_tP11ncclDevComm"));
  assert_true(pc_symbol_is_communication("_ZL21ncclDevKernel_GenericPv"));
  assert_true(pc_symbol_is_communication("ncclDevKernel_Generic")); /* extern "C" */
  assert_false(pc_symbol_is_communication("_Z8mysteryAPKfPfm"));
  assert_false(pc_symbol_is_communication("_Z4nccv"));
  assert_false(pc_symbol_is_communication("_ZN2at6native29vectorized_elementwise_kernelILi4EEEviT_"));
  assert_false(pc_symbol_is_communication(NULL));
  /* A one-rank communicator's avg all-reduce: NCCL's oneRankReduce. */
  assert_true(pc_symbol_is_communication("_ZN12_GLOBAL__N_113oneRankReduceI12FuncPreMulSumIfEEEvPvS3_myb"));
  assert_true(pc_symbol_is_communication("_ZN4nccl13ncclDevKernelEv"));
  /* The same kernel as nvcc names a file-static one (torch 2.11's NCCL on
   * the H200): the __nv_static_ prefix before the _Z part. */
  assert_true(pc_symbol_is_communication(NV_STATIC_ONERANK));
  assert_ptr_equal(pc_symbol_core(NV_STATIC_ONERANK), strstr(NV_STATIC_ONERANK, "__ZN43") + 1);
  assert_string_equal(pc_symbol_core("_Z1av"), "_Z1av");
  assert_string_equal(pc_symbol_core("__nv_static_no_mangled_part"), "__nv_static_no_mangled_part");
  assert_false(pc_symbol_is_communication("_ZN4nccl6helperEv"));
  assert_false(pc_symbol_is_communication("_Z999ncclTooLong"));
  assert_true(pc_name_is_communication("(anonymous namespace)::oneRankReduce<FuncPreMulSum<float> >"));
  assert_true(pc_name_is_communication("ncclDevKernel_AllReduce_Sum_f32_RING_LL"));
  assert_true(pc_name_is_communication("ns::ncclKernel_AllGather<float>"));
  assert_false(pc_name_is_communication("gemm<nccl>"));
  assert_false(pc_name_is_communication("my_nccl_helper"));
}

/* The selection policy never picks a communication kernel, whatever -k
 * says, and does not count it among -s/-c's launches. */
static void test_selection_skips_nccl(void **state) {
  (void)state;
  pc_sigtab t;
  memset(&t, 0, sizeof t);
  pc_regex re;
  assert_int_equal(pc_regex_compile(&re, "nccl|gemm", NULL, NULL), PERFCHECK_OK);
  static const unsigned g[3] = {2, 1, 1}, b[3] = {640, 1, 1};
  const uint32_t ctx = pc_sigtab_ctx(&t, (void *)(uintptr_t)0xC0, 1);
  const uint32_t nn = pc_sigtab_intern(&t, NCCL_ALLREDUCE), ng = pc_sigtab_intern(&t, "_Z4gemmv");
  const uint32_t sn = pc_sigtab_sig(&t, nn, ctx, g, b, 0, 100), sg = pc_sigtab_sig(&t, ng, ctx, g, b, 0, 100);
  for (int with_regex = 0; with_regex < 2; with_regex++) {
    pc_select p = {with_regex ? &re : NULL, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}; /* -c 1 */
    const uint32_t region = 3 + (uint32_t)with_regex;
    assert_int_equal(pc_select_decide(&p, &t, sn, region, region, PC_NP_NONE), 0);
    assert_int_equal(t.sigs[sn].np, PC_NP_COMMUNICATION);
    assert_int_equal(pc_select_decide(&p, &t, sn, region, region, PC_NP_NONE), 0);
    assert_int_equal(p.matched, 0);
    assert_int_equal(pc_select_decide(&p, &t, sg, region, region, PC_NP_NONE), 1); /* -c 1 is still free for gemm */
    assert_int_equal(p.profiled, 1);
  }
  assert_string_equal(pc_not_profiled_name(PC_NP_COMMUNICATION), "communication");
  assert_int_equal(pc_not_profiled_parse("communication"), PC_NP_COMMUNICATION);
  pc_regex_free(&re);
  pc_sigtab_free(&t);
}

/* Counters mode, one device: gemm profiled, then an all-reduce (not
 * replayed) and gemm again; wall clock 100 us. */
static pc_snapshot *allreduce_snapshot(uint64_t nccl_ns) {
  pc_snapshot *s = two_device_snap("train_step", 1);
  s->counters = 1;
  snprintf(s->metric_set, sizeof s->metric_set, "%s", "default");
  s->begin_ts = T0;
  s->end_ts = T0 + 100 * US;
  const uint32_t a = add_sig(s, "_Z4gemmv", 0, 264, 256);
  const uint32_t n = add_sig(s, NCCL_ALLREDUCE, 0, 2, 640);
  s->sigs[n].not_profiled = PC_NP_COMMUNICATION;
  add_launch(s, a, T0 + 10 * US, T0 + 40 * US, 1);
  add_launch(s, n, T0 + 40 * US, T0 + 40 * US + nccl_ns, 2);
  add_launch(s, a, T0 + 40 * US + nccl_ns, T0 + 70 * US + nccl_ns, 3);
  s->launch_calls = 3;
  return s;
}

static void test_nccl_kernel_and_region_share(void **state) {
  (void)state;
  pc_snapshot *s = allreduce_snapshot(20 * US);
  pc_report *r = build(s);
  const pc_kernel *k = kernel(r, "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
  assert_int_equal(k->launches, 1);
  assert_int_equal(k->profiled_launches, 0);
  assert_float_equal(k->total_ns, 20e3, 0); /* its time, from the activity record */
  assert_float_equal(k->dur_median_ns, 20e3, 0);
  assert_non_null(strstr(k->not_measured_reason, "communication kernel: not replayed"));
  assert_int_equal(k->diag.verdict.step, 1);
  assert_int_equal(k->diag.verdict.cause, PERFCHECK_CAUSE_COMMUNICATION);
  assert_float_equal(k->diag.verdict.value, 0.25, 1e-12); /* 20 of 80 us of kernel time */
  assert_int_equal(k->diag.nfindings, 0);                 /* no memory or coalescing rule ran */
  assert_non_null(strstr(k->diag.verdict.advice, "25.0% of the region's kernel time"));
  const pc_kernel *g = kernel(r, "gemm");
  assert_int_not_equal(g->diag.verdict.cause, PERFCHECK_CAUSE_COMMUNICATION);
  /* The region: 20 us communication against 60 us compute, a finding. */
  const pc_region *rg = &r->regions[0];
  assert_float_equal(rg->communication_ns, 20e3, 0);
  assert_float_equal(rg->compute_ns, 60e3, 0);
  assert_float_equal(rg->communication_share, 0.25, 1e-12);
  assert_int_equal(rg->diag.verdict.cause, PERFCHECK_CAUSE_NONE); /* 80% busy: the kernels are the slow part */
  int found = 0;
  for (size_t i = 0; i < rg->diag.nfindings; i++)
    if (rg->diag.findings[i].cause == PERFCHECK_CAUSE_COMMUNICATION) {
      found++;
      assert_int_equal(rg->diag.findings[i].step, 1);
      assert_float_equal(rg->diag.findings[i].value, 0.25, 1e-12);
      assert_float_equal(rg->diag.findings[i].threshold, 0.5, 0);
    }
  assert_int_equal(found, 1);
  /* The HTML bands: step 1 catches it, steps 2 to 5 are skipped. */
  pc_step_view v[6];
  pc_checklist_steps(k, &r->device, rg, v);
  assert_int_equal(v[1].state, PC_STEP_CATCHES);
  assert_int_equal(v[1].hit.cause, PERFCHECK_CAUSE_COMMUNICATION);
  for (int i = 2; i <= 5; i++) assert_int_equal(v[i].state, PC_STEP_SKIPPED);
  /* The JSON: the cause word and the share; read back, the same verdicts. */
  char *j = write_fmt(r, PERFCHECK_FORMAT_JSON);
  assert_non_null(strstr(j, "\"cause\": \"communication\""));
  assert_non_null(strstr(j, "\"communication_share\": 0.25"));
  pc_report *back = read_back(j);
  pc_checklist_report(back);
  assert_int_equal(kernel(back, "ncclDevKernel_AllReduce_Sum_f32_RING_LL")->diag.verdict.cause,
                   PERFCHECK_CAUSE_COMMUNICATION);
  assert_float_equal(back->regions[0].communication_share, 0.25, 1e-12);
  pc_report_free(back);
  free(j);
  char *t = write_fmt(r, PERFCHECK_FORMAT_TEXT);
  assert_non_null(strstr(t, "region train_step (finding): step 1 communication"));
  free(t);
  pc_report_free(r);
  pc_snapshot_free(s);

  /* A 200 us all-reduce between 60 us of compute: the region's verdict. */
  s = allreduce_snapshot(200 * US);
  s->end_ts = T0 + 300 * US;
  r = build(s);
  rg = &r->regions[0];
  assert_float_equal(rg->communication_share, 200.0 / 260.0, 1e-12);
  assert_int_equal(rg->diag.verdict.step, 1);
  assert_int_equal(rg->diag.verdict.cause, PERFCHECK_CAUSE_COMMUNICATION);
  assert_non_null(strstr(rg->diag.verdict.advice, "NCCL kernels take 77% of the region's kernel time"));
  pc_report_free(r);
  pc_snapshot_free(s);
}

/* Offline (an ncu export of an NCCL kernel): its counters would call it
 * uncoalesced; it is judged as communication all the same. */
static void test_nccl_offline_not_judged_for_coalescing(void **state) {
  (void)state;
  pc_report *r = pc_report_new();
  r->step1_assessed = 0;
  h200_facts(&r->device, "NVIDIA H200", 132);
  for (int i = 0; i < 2; i++) {
    pc_kernel *k = pc_report_add_kernel(r);
    assert_int_equal(pc_kernel_set_names(k, i ? "_Z7scatterv" : NCCL_ALLREDUCE, NULL), 0);
    k->grid[0] = 264, k->grid[1] = k->grid[2] = 1;
    k->block[0] = 256, k->block[1] = k->block[2] = 1;
    k->launches = k->profiled_launches = 1;
    k->total_ns = 1e5;
    k->metric[PC_M_DURATION] = 1e5;
    k->metric[PC_M_DRAM_THROUGHPUT_PCT] = 70;
    k->metric[PC_M_SM_THROUGHPUT_PCT] = 20;
    k->metric[PC_M_LD_BYTES_PER_SECTOR] = 4;
    k->metric[PC_M_LD_SECTORS] = 1e6;
    k->metric[PC_M_LD_REQUESTS] = 1.25e5;
  }
  pc_checklist_report(r);
  assert_int_equal(kernel(r, "scatter")->diag.verdict.cause, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS);
  const pc_kernel *k = kernel(r, "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
  assert_int_equal(k->diag.verdict.cause, PERFCHECK_CAUSE_COMMUNICATION);
  assert_int_equal(k->diag.nfindings, 0);
  pc_report_free(r);
}

/* ---- part 3: ranks ------------------------------------------------------------------------ */

static const char *const *fake_env;
static char *fake_get(const char *name) {
  for (const char *const *e = fake_env; e && *e; e += 2)
    if (strcmp(e[0], name) == 0) return (char *)e[1];
  return NULL;
}

/* pc_job_place with `env`; its status must say whether err names a value. */
static void place(const char *const *env, int *rank, int *world, int *local, pc_err *bad) {
  fake_env = env;
  perfcheck_status st = pc_job_place(fake_get, rank, world, local, bad);
  assert_int_equal(st, bad->status);
  assert_int_equal(st == PERFCHECK_OK, bad->msg[0] == '\0');
}

static void test_job_place(void **state) {
  (void)state;
  int rank, world, local;
  pc_err bad;
  static const char *const torchrun[] = {"RANK", "3", "WORLD_SIZE", "8", "LOCAL_RANK", "1", "PMI_RANK", "0", NULL};
  place(torchrun, &rank, &world, &local, &bad);
  assert_int_equal(rank, 3);
  assert_int_equal(world, 8);
  assert_int_equal(local, 1);
  assert_int_equal(bad.status, PERFCHECK_OK);
  static const char *const ompi[] = {"OMPI_COMM_WORLD_RANK", "1", "OMPI_COMM_WORLD_SIZE", "2",
                                     "OMPI_COMM_WORLD_LOCAL_RANK", "1", NULL};
  place(ompi, &rank, &world, &local, &bad);
  assert_int_equal(rank, 1);
  assert_int_equal(world, 2);
  assert_int_equal(local, 1);
  static const char *const pmi[] = {"PMI_RANK", "0", "PMI_SIZE", "4", NULL};
  place(pmi, &rank, &world, &local, &bad);
  assert_int_equal(rank, 0);
  assert_int_equal(world, 4);
  assert_int_equal(local, -1);
  static const char *const none[] = {NULL};
  place(none, &rank, &world, &local, &bad);
  assert_int_equal(rank, -1);
  assert_int_equal(world, -1);
  assert_int_equal(local, -1);
  assert_int_equal(bad.status, PERFCHECK_OK);
  /* Not numbers: ignored and named; the next launcher's variable is used. */
  static const char *const junk[] = {"RANK", "one", "OMPI_COMM_WORLD_RANK", "2", "WORLD_SIZE", "0",
                                     "LOCAL_RANK", "-1", NULL};
  place(junk, &rank, &world, &local, &bad);
  assert_int_equal(rank, 2);
  assert_int_equal(world, -1);
  assert_int_equal(local, -1);
  assert_non_null(strstr(bad.msg, "RANK=one"));
  assert_non_null(strstr(bad.msg, "WORLD_SIZE=0"));
  assert_non_null(strstr(bad.msg, "LOCAL_RANK=-1"));
  assert_string_equal(bad.msg, "RANK=one, WORLD_SIZE=0, LOCAL_RANK=-1");
  assert_int_equal(bad.status, PERFCHECK_ERROR_INVALID_ARGUMENT);
  /* No detail wanted: the status and the place all the same. */
  assert_int_equal(pc_job_place(fake_get, &rank, &world, &local, NULL), PERFCHECK_ERROR_INVALID_ARGUMENT);
  assert_int_equal(rank, 2);
  static const char *const beyond[] = {"RANK", "2", "WORLD_SIZE", "2", NULL};
  place(beyond, &rank, &world, &local, &bad);
  assert_int_equal(rank, 2);
  assert_int_equal(world, -1);
  assert_non_null(strstr(bad.msg, "rank 2 is not below the world size 2"));
}

/* One rank's report: region "step" (gemm on device 0, 70 of 100 us), the
 * device model `model`. */
static pc_report *rank_report(int rank, int world, const char *model) {
  pc_snapshot *s = step_snapshot();
  snprintf(s->devices[0].facts.name, sizeof s->devices[0].facts.name, "%s", model);
  pc_report *r = pc_report_new();
  pc_build_state st;
  pc_build_state_init(&st, 1);
  st.rank = rank;
  assert_int_equal(pc_region_build(s, r, &st), PERFCHECK_OK);
  r->rank = rank;
  r->world_size = world;
  r->local_rank = rank;
  pc_snapshot_free(s);
  /* Through the JSON, as perfcheck merge reads the files. */
  char *j = write_fmt(r, PERFCHECK_FORMAT_JSON);
  pc_report_free(r);
  pc_report *back = read_back(j);
  free(j);
  assert_int_equal(back->rank, rank);
  assert_int_equal(back->world_size, world);
  assert_int_equal(back->local_rank, rank);
  assert_int_equal(back->regions[0].rank, rank);
  return back;
}

static int warned(const pc_report *r, const char *what) {
  int n = 0;
  for (size_t i = 0; i < r->nwarnings; i++) n += strstr(r->warnings[i], what) != NULL;
  return n;
}

static void test_merge_ranks(void **state) {
  (void)state;
  pc_report *r0 = rank_report(0, 3, "NVIDIA H200"), *r2 = rank_report(2, 3, "NVIDIA H200");
  const perfcheck_report *in[] = {r0, r2};
  perfcheck_report *m = NULL;
  assert_int_equal(perfcheck_report_merge(in, 2, &m), PERFCHECK_OK);
  /* Regions per rank. */
  assert_int_equal(m->nregions, 2);
  assert_int_equal(m->regions[0].rank, 0);
  assert_int_equal(m->regions[1].rank, 2);
  assert_int_equal(m->regions[1].ndevices, 2);
  assert_int_equal(m->rank, -1);
  assert_int_equal(m->world_size, 3);
  /* Kernels by signature and device model: one gemm, two launches. */
  size_t gemms = 0;
  for (size_t i = 0; i < m->nkernels; i++)
    if (strcmp(m->kernels[i].name, "gemm") == 0) gemms++, assert_int_equal(m->kernels[i].launches, 2);
  assert_int_equal(gemms, 1);
  /* The missing rank, by number, and no other. */
  assert_int_equal(warned(m, "merge: rank 1 of world size 3 is missing"), 1);
  assert_int_equal(warned(m, "is missing"), 1);
  char *j = write_fmt(m, PERFCHECK_FORMAT_JSON);
  assert_non_null(strstr(j, "\"rank\": null,\n  \"world_size\": 3,"));
  free(j);
  char *t = write_fmt(m, PERFCHECK_FORMAT_TEXT);
  assert_non_null(strstr(t, "ranks merged of world size 3\n"));
  assert_non_null(strstr(t, "step [rank 2]"));
  free(t);
  perfcheck_report_destroy(m);

  /* Every rank there: no missing-rank warning.  Another device model's
   * gemm stays its own entry; a rank given twice is said. */
  pc_report *r1 = rank_report(1, 3, "NVIDIA H100 80GB HBM3"), *r1b = rank_report(1, 3, "NVIDIA H100 80GB HBM3");
  const perfcheck_report *all[] = {r0, r1, r2, r1b};
  assert_int_equal(perfcheck_report_merge(all, 3, &m), PERFCHECK_OK);
  assert_int_equal(warned(m, "is missing"), 0);
  assert_int_equal(m->nregions, 3);
  gemms = 0;
  for (size_t i = 0; i < m->nkernels; i++) gemms += strcmp(m->kernels[i].name, "gemm") == 0;
  assert_int_equal(gemms, 2);
  perfcheck_report_destroy(m);
  assert_int_equal(perfcheck_report_merge(all, 4, &m), PERFCHECK_OK);
  assert_int_equal(warned(m, "merge: rank 1 is in report 2 and again in report 4"), 1);
  perfcheck_report_destroy(m);

  /* One rank's report merged alone keeps its rank (a copy of it). */
  const perfcheck_report *one[] = {r2};
  assert_int_equal(perfcheck_report_merge(one, 1, &m), PERFCHECK_OK);
  assert_int_equal(m->rank, 2);
  assert_int_equal(m->local_rank, 2);
  assert_int_equal(m->world_size, 3);
  assert_int_equal(warned(m, "rank 0 of world size 3 is missing"), 1);
  perfcheck_report_destroy(m);

  /* Reports without ranks (one process, no launcher): no rank warnings. */
  r0->rank = r0->world_size = r2->rank = r2->world_size = -1;
  assert_int_equal(perfcheck_report_merge(in, 2, &m), PERFCHECK_OK);
  assert_int_equal(warned(m, "rank"), 0);
  assert_int_equal(m->world_size, -1);
  perfcheck_report_destroy(m);
  pc_report_free(r0);
  pc_report_free(r1);
  pc_report_free(r1b);
  pc_report_free(r2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_kernel_devices_and_step1_per_device),
      cmocka_unit_test(test_one_device_region),
      cmocka_unit_test(test_communication_names),
      cmocka_unit_test(test_selection_skips_nccl),
      cmocka_unit_test(test_nccl_kernel_and_region_share),
      cmocka_unit_test(test_nccl_offline_not_judged_for_coalescing),
      cmocka_unit_test(test_job_place),
      cmocka_unit_test(test_merge_ranks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
