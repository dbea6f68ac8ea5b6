/*
 * pc_activity.c: the Activity API (docs/cupti.md §3): kernel, memcpy and memset
 * records, decoded into the collector's store (pc_collector.h): 32-byte
 * kernel records and 24-byte transfer spans.
 *
 * Buffers.  CUPTI asks for buffers (request callback, on whatever thread
 * needs one) and hands them back full (completion callback, usually its
 * worker thread).  The completion callback only queues the buffer and reads
 * CUPTI's dropped-record count: no decoding, no allocation (the queue is
 * grown in advance, when a buffer is first handed out).  Decoding happens at
 * region end (pc_activity_flush) and also in the request callback whenever
 * PC_ACT_DECODE_AT buffers wait, before a recycled buffer is handed out, so a
 * region of a million launches keeps a handful of 4 MiB buffers alive rather
 * than hundreds, and the launch log is emptied as it goes.  The queue and
 * the pool are the collector's, under its one lock; CUPTI's buffer callbacks
 * take no user data, so they reach the installed collector through the
 * global struct, counted in its inflight like every callback.  Between
 * sessions there is none: a request gets no buffer (CUPTI counts the records
 * it drops) and a completed buffer is freed.
 *
 * Decoding joins each kernel record to its launch by correlation id
 * (pc_collector_join_kernel_locked) and keeps {start, end, signature,
 * region}; a kernel launched outside every region is dropped there and then.
 * Records with zero timestamps (no timing could be collected) still count as
 * launches, flagged PC_SNAP_NOTIME, and outside profiled launches (whose
 * records never have timestamps under kernel replay) they are counted for a
 * warning.  Transfers are kept only while a region is open.
 */
#include "pc_activity.h"

#include <cupti.h>
#include <stdlib.h>
#include <string.h>

#include "pc_call.h"
#include "pc_collector.h"
#include "pc_cupti.h"
#include "pc_rangeprof.h" /* PC_RP_FLUSH_KERNEL */

#define PC_ACT_BUF_SIZE ((size_t)4 << 20)
#define PC_ACT_DECODE_AT 2 /* queued buffers that make the request callback decode */

/* MEMCPY2: peer-to-peer copies between devices (cudaMemcpyPeer), which
 * CUPTI reports apart from MEMCPY; they count as copies (issue 15). */
static const CUpti_ActivityKind pc_kinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                              CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_MEMCPY2};
#define PC_NKINDS (sizeof pc_kinds / sizeof pc_kinds[0])

/* Set while this thread decodes: the request callback must not decode again
 * from inside (it never happens: no CUDA call is made while decoding). */
static _Thread_local int pc_decoding;

#define PC_ACT_BATCH 64 /* records handed to the collector in one locked section */

/* One CUPTI record as a pc_act_record; 0 when it is none of ours. */
static int pc_act_read(const CUpti_Activity *rec, pc_act_record *r) {
  memset(r, 0, sizeof *r);
  switch (rec->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      /* Newer record versions only append fields: the 13.0 struct is a safe
       * prefix of what a newer libcupti writes. */
      const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)(const void *)rec;
      if (k->name && strcmp(k->name, PC_RP_FLUSH_KERNEL) == 0) return 0; /* perfcheck's own (pc_rangeprof.h) */
      pc_kernel_record *kr = &r->k;
      r->kind = PC_ACT_KERNEL;
      kr->correlation_id = k->correlationId;
      kr->name = k->name;
      kr->grid[0] = (unsigned)k->gridX, kr->grid[1] = (unsigned)k->gridY, kr->grid[2] = (unsigned)k->gridZ;
      kr->block[0] = (unsigned)k->blockX, kr->block[1] = (unsigned)k->blockY, kr->block[2] = (unsigned)k->blockZ;
      kr->dynamic_smem = (unsigned)k->dynamicSharedMemory;
      kr->static_smem = (unsigned)k->staticSharedMemory;
      kr->registers = k->registersPerThread;
      kr->local_per_thread = k->localMemoryPerThread;
      kr->graph_id = k->graphId;
      kr->graph_node = k->graphNodeId;
      kr->start = k->start;
      kr->end = k->end;
      kr->stream = k->streamId;
      return 1;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)(const void *)rec;
      if (m->start == 0 || m->end < m->start) return 0;
      r->kind = PC_ACT_MEMCPY;
      r->span = (pc_span){m->start, m->end, m->copyKind, 0};
      return 1;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY2: { /* a peer copy: a copy like any other */
      const CUpti_ActivityMemcpyPtoP4 *m = (const CUpti_ActivityMemcpyPtoP4 *)(const void *)rec;
      if (m->start == 0 || m->end < m->start) return 0;
      r->kind = PC_ACT_MEMCPY;
      r->span = (pc_span){m->start, m->end, m->copyKind, 0};
      return 1;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)(const void *)rec;
      if (m->start == 0 || m->end < m->start) return 0;
      r->kind = PC_ACT_MEMSET;
      r->span = (pc_span){m->start, m->end, 0, 0};
      return 1;
    }
    default:
      return 0;
  }
}

/* Decodes one buffer into the collector, PC_ACT_BATCH records a locked
 * section (the kernel names point into the buffer, alive until recycled). */
static void pc_decode_buffer(pc_collector *c, uint8_t *buf, size_t valid) {
  CUpti_Activity *rec = NULL;
  pc_act_record batch[PC_ACT_BATCH];
  size_t n = 0;
  pc_decoding = 1;
  /* cuptiActivityGetNextRecord only reads the buffer: it never calls back. */
  while (PC_CUPTI_ALLOW(NULL, CUPTI_ERROR_MAX_LIMIT_REACHED, cuptiActivityGetNextRecord, buf, valid, &rec) ==
         CUPTI_SUCCESS) {
    if (pc_act_read(rec, &batch[n]) && ++n == PC_ACT_BATCH) {
      pc_collector_add_activity(c, batch, n);
      n = 0;
    }
  }
  if (n) pc_collector_add_activity(c, batch, n);
  pc_decoding = 0;
}

/* Decodes every queued buffer of c. */
static void pc_decode_queue(pc_collector *c) {
  if (pc_decoding) return; /* never re-enter the store */
  uint8_t *buf;
  size_t valid;
  while (pc_collector_buffer_next(c, &buf, &valid)) {
    pc_decode_buffer(c, buf, valid);
    pc_collector_buffer_recycle(c, buf);
  }
}

static void CUPTIAPI pc_buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
  *max_records = 0;
  *buffer = NULL;
  *size = 0;
  atomic_fetch_add(&pc_gpu_g.inflight, 1);
  pc_collector *c = atomic_load(&pc_gpu_g.col);
  if (!c) { /* no session: CUPTI drops the records (nobody would read them) */
    atomic_fetch_sub(&pc_gpu_g.inflight, 1);
    return;
  }
  if (pc_collector_buffers_queued(c) >= PC_ACT_DECODE_AT) pc_decode_queue(c); /* keeps memory bounded */
  uint8_t *b = pc_collector_buffer_get(c, PC_ACT_BUF_SIZE);
  atomic_fetch_sub(&pc_gpu_g.inflight, 1);
  /* NULL: CUPTI drops the records and counts them; we report the count. */
  *buffer = b;
  *size = b ? PC_ACT_BUF_SIZE : 0;
}

static void CUPTIAPI pc_buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                                         size_t valid) {
  (void)size;
  size_t dropped = 0;
  atomic_fetch_add(&pc_gpu_g.inflight, 1);
  pc_collector *c = atomic_load(&pc_gpu_g.col);
  if (c && PC_CUPTI(NULL, cuptiActivityGetNumDroppedRecords, ctx, stream, &dropped) == CUPTI_SUCCESS && dropped)
    pc_collector_add_dropped(c, dropped);
  if (buffer && c && pc_collector_buffer_done(c, buffer, valid) == 0) buffer = NULL;
  atomic_fetch_sub(&pc_gpu_g.inflight, 1);
  free(buffer); /* no session, a full pool, or a buffer that cannot be queued */
}

/* ---- start, flush, stop --------------------------------------------------------------- */

static int pc_cupti_usable(void) { return !pc_cupti_blocked(); }

perfcheck_status pc_activity_start(pc_err *err) {
  pc_err_clear(err);
  if (!pc_cupti_usable()) return pc_err_set(err, PERFCHECK_ERROR_CUPTI_UNAVAILABLE, "CUPTI is not usable in this process");
  /* Already on (the injection library starts activity inside cuInit, before
   * any context, and the session start comes here again). */
  if (atomic_load(&pc_gpu_g.kinds_on)) return PERFCHECK_OK;
  pc_err e;
  CUptiResult r = CUPTI_SUCCESS;
  if (!atomic_load(&pc_gpu_g.registered)) {
    r = PC_CUPTI(&e, cuptiActivityRegisterCallbacks, pc_buffer_requested, pc_buffer_completed);
    if (r == CUPTI_SUCCESS) atomic_store(&pc_gpu_g.registered, 1);
  }
  const char *what = "";
  size_t on = 0;
  for (; r == CUPTI_SUCCESS && on < PC_NKINDS; on++) {
    r = PC_CUPTI(&e, cuptiActivityEnable, pc_kinds[on]);
    if (r != CUPTI_SUCCESS)
      what = on == 0 ? " (CONCURRENT_KERNEL)" : on == 1 ? " (MEMCPY)" : on == 2 ? " (MEMSET)" : " (MEMCPY2)";
  }
  if (r != CUPTI_SUCCESS) {
    pc_err_set(err, PERFCHECK_ERROR_CUPTI_UNAVAILABLE, "%s%s (%d)", e.msg, what, (int)r);
    for (size_t i = 0; i + 1 < on; i++) (void)PC_CUPTI(NULL, cuptiActivityDisable, pc_kinds[i]);
    return PERFCHECK_ERROR_CUPTI_UNAVAILABLE;
  }
  atomic_store(&pc_gpu_g.kinds_on, 1);
  return PERFCHECK_OK;
}

void pc_activity_flush(int forced) {
  atomic_fetch_add(&pc_gpu_g.inflight, 1);
  pc_collector *c = atomic_load(&pc_gpu_g.col);
  if (atomic_load(&pc_gpu_g.registered) && pc_cupti_usable() && !(c && pc_collector_fatal(c, NULL))) {
    (void)PC_CUPTI(NULL, cuptiActivityFlushAll, forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
    size_t dropped = 0;
    if (PC_CUPTI(NULL, cuptiActivityGetNumDroppedRecords, NULL, 0, &dropped) == CUPTI_SUCCESS && dropped && c)
      pc_collector_add_dropped(c, dropped);
  }
  if (c) pc_decode_queue(c);
  atomic_fetch_sub(&pc_gpu_g.inflight, 1);
}

void pc_activity_stop(void) {
  if (pc_cupti_usable() && atomic_exchange(&pc_gpu_g.kinds_on, 0)) {
    for (size_t i = 0; i < PC_NKINDS; i++) (void)PC_CUPTI(NULL, cuptiActivityDisable, pc_kinds[i]);
    (void)PC_CUPTI(NULL, cuptiActivityFlushAll, CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  }
  atomic_store(&pc_gpu_g.kinds_on, 0);
  pc_activity_flush(0); /* what came back is decoded (no region is open: dropped) */
}
