/*
 * pc_activity.c: the Activity API (docs/cupti.md §3): kernel, memcpy and memset
 * records, decoded into 32-byte kernel records and 24-byte transfer spans.
 *
 * Buffers.  CUPTI asks for buffers (request callback, on whatever thread
 * needs one) and hands them back full (completion callback, usually its
 * worker thread).  The completion callback only queues the buffer and reads
 * CUPTI's dropped-record count: no decoding, no allocation (the queue is
 * grown in advance, when a buffer is first handed out).  Decoding happens at
 * region end (pc_activity_flush) and also in the request callback whenever
 * PC_ACT_DECODE_AT buffers wait, before a recycled buffer is handed out, so a
 * region of a million launches keeps a handful of 4 MiB buffers alive rather
 * than hundreds, and the launch log (pc_capture) is emptied as it goes.
 *
 * Decoding joins each kernel record to its launch by correlation id
 * (pc_capture_join_kernel) and keeps {start, end, signature, region}; a
 * kernel launched outside every region is dropped there and then.  Records
 * with zero timestamps (no timing could be collected) still count as
 * launches, flagged PC_SPAN_NOTIME, and outside profiled launches (whose
 * records never have timestamps under kernel replay) they are counted for a
 * warning.  Transfers are kept only while a region is open.
 *
 * Locks: the buffer queue and pool are owned here under pc_act_mu, a leaf
 * (never held while decoding or with the gpu lock); the decoded store is
 * owned here too and guarded by the gpu lock (pc_capture.c), taken while a
 * buffer is decoded, so a record joins its launch and is stored in one step.
 *
 * Memory for one region of 1,000,000 launches: 32 MB of kernel records, a
 * launch log of the launches not yet decoded (16 B each), about five 4 MiB
 * buffers.  TO VERIFY ON THE GPU: resident memory grows by <= 64 MiB and
 * every launch is counted.
 */
#include "pc_activity.h"
#include "pc_call.h"
#include "pc_cupti.h"

#include <cupti.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "pc_capture.h"

#define PC_ACT_BUF_SIZE ((size_t)4 << 20)
#define PC_ACT_DECODE_AT 2 /* queued buffers that make the request callback decode */
#define PC_ACT_POOL_MAX 4  /* idle buffers kept for reuse */

typedef struct pc_qbuf {
  uint8_t *buf;
  size_t valid;
} pc_qbuf;

/* Queue and pool: their own small lock, taken by both CUPTI callbacks. */
static pthread_mutex_t pc_act_mu = PTHREAD_MUTEX_INITIALIZER;
static pc_qbuf *pc_queue;
static size_t pc_nqueue, pc_capqueue;
static uint8_t *pc_pool[PC_ACT_POOL_MAX];
static size_t pc_npool;
static size_t pc_nbuffers; /* allocated and not freed: with CUPTI, queued or pooled */

static atomic_ullong pc_dropped;
static atomic_ullong pc_zero_ts;

static int pc_registered;
/* MEMCPY2: peer-to-peer copies between devices (cudaMemcpyPeer), which
 * CUPTI reports apart from MEMCPY; they count as copies (issue 15). */
static const CUpti_ActivityKind pc_kinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                              CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_MEMCPY2};
static int pc_kind_on[4];

/* The store (gpu lock). */
typedef struct pc_kspan_array {
  pc_kspan *v;
  size_t n, cap;
} pc_kspan_array;
typedef struct pc_span_array {
  pc_span *v;
  size_t n, cap;
} pc_span_array;
static pc_kspan_array pc_kernels;
static pc_span_array pc_memcpys, pc_memsets;

/* Room for n more elements of size sz in *v (n now: *len, capacity *cap). */
static int pc_store_reserve(void **v, size_t *cap, size_t len, size_t n, size_t sz) {
  if (len + n <= *cap) return 0;
  size_t nc = *cap ? *cap : 4096;
  while (nc < len + n) {
    if (nc > SIZE_MAX / 2 / sz) return -1;
    nc *= 2;
  }
  void *p = realloc(*v, nc * sz);
  if (!p) return -1;
  *v = p;
  *cap = nc;
  return 0;
}

int pc_activity_give_locked(const pc_kspan *v, size_t n) {
  if (n == 0) return 0;
  if (pc_kernels.n == 0 && pc_kernels.cap == 0) { /* nothing there: a copy of the caller's */
    pc_kspan *p = malloc(n * sizeof *p);
    if (!p) return -1;
    memcpy(p, v, n * sizeof *p);
    pc_kernels.v = p;
    pc_kernels.n = pc_kernels.cap = n;
    return 0;
  }
  if (pc_store_reserve((void **)&pc_kernels.v, &pc_kernels.cap, pc_kernels.n, n, sizeof *pc_kernels.v)) return -1;
  memcpy(pc_kernels.v + pc_kernels.n, v, n * sizeof *v);
  pc_kernels.n += n;
  return 0;
}

static int pc_span_append(pc_span_array *a, const pc_span *s) {
  if (pc_store_reserve((void **)&a->v, &a->cap, a->n, 1, sizeof *a->v)) return -1;
  a->v[a->n++] = *s;
  return 0;
}

size_t pc_activity_take_locked(uint32_t region, pc_kspan **out, int *lost) {
  *out = NULL;
  *lost = 0;
  pc_kspan *v = pc_kernels.v;
  size_t n = pc_kernels.n, k = 0;
  /* Partition: the region's records to the end (order not kept). */
  for (size_t i = n; i-- > 0;)
    if (v[i].region == region) {
      const pc_kspan t = v[i];
      v[i] = v[n - 1 - k];
      v[n - 1 - k] = t;
      k++;
    }
  if (k == 0) return 0;
  if (k == n) { /* all of it: the array moves, no copy */
    *out = v;
    pc_kernels.v = NULL;
    pc_kernels.n = pc_kernels.cap = 0;
    return k;
  }
  pc_kspan *mine = malloc(k * sizeof *mine);
  if (mine)
    memcpy(mine, v + (n - k), k * sizeof *mine);
  else
    *lost = 1;
  pc_kernels.n -= k;
  *out = mine;
  return mine ? k : 0;
}

size_t pc_activity_transfers_locked(int memsets, uint64_t begin, uint64_t end, pc_span **out, int *lost) {
  const pc_span_array *a = memsets ? &pc_memsets : &pc_memcpys;
  *out = NULL;
  *lost = 0;
  size_t n = 0;
  for (size_t i = 0; i < a->n; i++) n += a->v[i].end >= begin && a->v[i].start <= end;
  if (!n) return 0;
  pc_span *v = malloc(n * sizeof *v);
  if (!v) {
    *lost = 1;
    return 0;
  }
  size_t k = 0;
  for (size_t i = 0; i < a->n; i++)
    if (a->v[i].end >= begin && a->v[i].start <= end) v[k++] = a->v[i];
  *out = v;
  return k;
}

static void pc_store_free(void) {
  free(pc_kernels.v);
  free(pc_memcpys.v);
  free(pc_memsets.v);
  memset(&pc_kernels, 0, sizeof pc_kernels);
  memset(&pc_memcpys, 0, sizeof pc_memcpys);
  memset(&pc_memsets, 0, sizeof pc_memsets);
}

void pc_activity_prune_transfers_locked(uint64_t t) {
  pc_span_array *arrs[2] = {&pc_memcpys, &pc_memsets};
  for (int k = 0; k < 2; k++) {
    pc_span_array *a = arrs[k];
    size_t w = 0;
    for (size_t i = 0; i < a->n; i++)
      if (a->v[i].end >= t) a->v[w++] = a->v[i];
    a->n = w;
  }
}

uint64_t pc_activity_dropped(void) { return atomic_load(&pc_dropped); }
uint64_t pc_activity_zero_timestamps(void) { return atomic_load(&pc_zero_ts); }

/* ---- buffers ------------------------------------------------------------------------ */

static void pc_buffer_recycle(uint8_t *b) {
  pthread_mutex_lock(&pc_act_mu);
  if (pc_npool < PC_ACT_POOL_MAX) {
    pc_pool[pc_npool++] = b;
    b = NULL;
  } else {
    pc_nbuffers--;
  }
  pthread_mutex_unlock(&pc_act_mu);
  free(b);
}

static void pc_decode_buffer(uint8_t *buf, size_t valid) {
  CUpti_Activity *rec = NULL;
  uint64_t lost = 0, zero = 0;
  pc_gpu_lock();
  /* cuptiActivityGetNextRecord only reads the buffer: it never calls back. */
  while (PC_CUPTI_ALLOW(NULL, CUPTI_ERROR_MAX_LIMIT_REACHED, cuptiActivityGetNextRecord, buf, valid, &rec) ==
         CUPTI_SUCCESS) {
    switch (rec->kind) {
      case CUPTI_ACTIVITY_KIND_KERNEL:
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        /* Newer record versions only append fields: the 13.0 struct is a
         * safe prefix of what a newer libcupti writes. */
        const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)(const void *)rec;
        /* No timestamps (a profiled launch under kernel replay, a faulted
         * kernel, no device memory for them): the launch still counts, its
         * time does not. */
        const int timed = k->start != 0 && k->end != 0 && k->end >= k->start;
        pc_kernel_record kr;
        kr.correlation_id = k->correlationId;
        kr.name = k->name;
        kr.grid[0] = (unsigned)k->gridX, kr.grid[1] = (unsigned)k->gridY, kr.grid[2] = (unsigned)k->gridZ;
        kr.block[0] = (unsigned)k->blockX, kr.block[1] = (unsigned)k->blockY, kr.block[2] = (unsigned)k->blockZ;
        kr.dynamic_smem = (unsigned)k->dynamicSharedMemory;
        kr.static_smem = (unsigned)k->staticSharedMemory;
        kr.registers = k->registersPerThread;
        kr.local_per_thread = k->localMemoryPerThread;
        uint32_t group, region;
        if (pc_capture_join_kernel(&kr, &group, &region)) {
          pc_kspan s = {k->start, k->end, group, region, k->correlationId, k->streamId};
          if (!timed) {
            s.start = s.end = 0;
            s.group |= PC_SNAP_NOTIME;
            if (!(group & PC_SNAP_PROFILED)) zero++; /* expected for profiled launches */
          }
          if (pc_store_reserve((void **)&pc_kernels.v, &pc_kernels.cap, pc_kernels.n, 1, sizeof *pc_kernels.v))
            lost++;
          else
            pc_kernels.v[pc_kernels.n++] = s;
        }
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)(const void *)rec;
        if (!pc_capture_any_region_locked() || m->start == 0 || m->end < m->start) break;
        pc_span s = {m->start, m->end, m->copyKind, 0};
        if (pc_span_append(&pc_memcpys, &s)) lost++;
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY2: { /* a peer copy: a copy like any other */
        const CUpti_ActivityMemcpyPtoP4 *m = (const CUpti_ActivityMemcpyPtoP4 *)(const void *)rec;
        if (!pc_capture_any_region_locked() || m->start == 0 || m->end < m->start) break;
        pc_span s = {m->start, m->end, m->copyKind, 0};
        if (pc_span_append(&pc_memcpys, &s)) lost++;
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)(const void *)rec;
        if (!pc_capture_any_region_locked() || m->start == 0 || m->end < m->start) break;
        pc_span s = {m->start, m->end, 0, 0};
        if (pc_span_append(&pc_memsets, &s)) lost++;
        break;
      }
      default:
        break;
    }
  }
  pc_gpu_unlock();
  if (lost) atomic_fetch_add(&pc_dropped, lost);
  if (zero) atomic_fetch_add(&pc_zero_ts, zero);
}

static void pc_activity_decode(void) {
  if (pc_gpu_lock_held()) return; /* never re-enter the store */
  for (;;) {
    pthread_mutex_lock(&pc_act_mu);
    if (pc_nqueue == 0) {
      pthread_mutex_unlock(&pc_act_mu);
      return;
    }
    pc_qbuf q = pc_queue[--pc_nqueue]; /* order does not matter: records join by id */
    pthread_mutex_unlock(&pc_act_mu);
    pc_decode_buffer(q.buf, q.valid);
    pc_buffer_recycle(q.buf);
  }
}

static void CUPTIAPI pc_buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
  *max_records = 0;
  *buffer = NULL;
  *size = 0;
  pthread_mutex_lock(&pc_act_mu);
  size_t queued = pc_nqueue;
  pthread_mutex_unlock(&pc_act_mu);
  if (queued >= PC_ACT_DECODE_AT) pc_activity_decode(); /* keeps memory bounded */

  uint8_t *b = NULL;
  pthread_mutex_lock(&pc_act_mu);
  if (pc_npool) {
    b = pc_pool[--pc_npool];
  } else {
    /* Room in the queue for every buffer that exists, so that the
     * completion callback never allocates. */
    int room = 1;
    if (pc_nbuffers + 1 > pc_capqueue) {
      size_t nc = pc_capqueue ? pc_capqueue * 2 : 16;
      pc_qbuf *q = realloc(pc_queue, nc * sizeof *q);
      if (q) {
        pc_queue = q;
        pc_capqueue = nc;
      } else {
        room = 0;
      }
    }
    if (room) b = malloc(PC_ACT_BUF_SIZE); /* malloc's alignment exceeds CUPTI's 8 bytes */
    if (b) pc_nbuffers++;
  }
  pthread_mutex_unlock(&pc_act_mu);
  /* NULL: CUPTI drops the records and counts them; we report the count. */
  *buffer = b;
  *size = b ? PC_ACT_BUF_SIZE : 0;
}

static void CUPTIAPI pc_buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                                         size_t valid) {
  (void)size;
  size_t dropped = 0;
  if (PC_CUPTI(NULL, cuptiActivityGetNumDroppedRecords, ctx, stream, &dropped) == CUPTI_SUCCESS && dropped)
    atomic_fetch_add(&pc_dropped, dropped);
  if (!buffer) return;
  if (valid == 0) {
    pc_buffer_recycle(buffer);
    return;
  }
  pthread_mutex_lock(&pc_act_mu);
  if (pc_nqueue < pc_capqueue) {
    pc_queue[pc_nqueue++] = (pc_qbuf){buffer, valid};
    buffer = NULL;
  }
  pthread_mutex_unlock(&pc_act_mu);
  if (buffer) { /* not one of ours (cannot happen): drop it rather than allocate */
    atomic_fetch_add(&pc_dropped, 1);
  }
}

/* ---- start, flush, stop --------------------------------------------------------------- */

static int pc_cupti_usable(void) { return !pc_capture_cupti_unusable(NULL, 0) && !pc_capture_fatal(NULL, 0); }

perfcheck_status pc_activity_start(pc_err *err) {
  pc_err_clear(err);
  if (!pc_cupti_usable()) return pc_err_set(err, PERFCHECK_ERROR_CUPTI_UNAVAILABLE, "CUPTI is not usable in this process");
  /* Already on (the injection library starts activity in InitializeInjection,
   * before any context, and the session start comes here again). */
  int all_on = pc_registered;
  for (size_t i = 0; i < sizeof pc_kinds / sizeof pc_kinds[0]; i++) all_on &= pc_kind_on[i];
  if (all_on) return PERFCHECK_OK;
  pc_err e;
  CUptiResult r = PC_CUPTI(&e, cuptiActivityRegisterCallbacks, pc_buffer_requested, pc_buffer_completed);
  const char *what = "";
  if (r == CUPTI_SUCCESS) {
    pc_registered = 1;
    for (size_t i = 0; i < sizeof pc_kinds / sizeof pc_kinds[0]; i++) {
      r = PC_CUPTI(&e, cuptiActivityEnable, pc_kinds[i]);
      if (r != CUPTI_SUCCESS) {
        what = i == 0 ? " (CONCURRENT_KERNEL)" : i == 1 ? " (MEMCPY)" : i == 2 ? " (MEMSET)" : " (MEMCPY2)";
        break;
      }
      pc_kind_on[i] = 1;
    }
  }
  if (r != CUPTI_SUCCESS) {
    pc_err_set(err, PERFCHECK_ERROR_CUPTI_UNAVAILABLE, "%s%s (%d)", e.msg, what, (int)r);
    for (size_t i = 0; i < sizeof pc_kinds / sizeof pc_kinds[0]; i++)
      if (pc_kind_on[i]) {
        (void)PC_CUPTI(NULL, cuptiActivityDisable, pc_kinds[i]);
        pc_kind_on[i] = 0;
      }
    return PERFCHECK_ERROR_CUPTI_UNAVAILABLE;
  }
  return PERFCHECK_OK;
}

void pc_activity_flush(int forced) {
  if (pc_registered && pc_cupti_usable()) {
    (void)PC_CUPTI(NULL, cuptiActivityFlushAll, forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
    size_t dropped = 0;
    if (PC_CUPTI(NULL, cuptiActivityGetNumDroppedRecords, NULL, 0, &dropped) == CUPTI_SUCCESS && dropped)
      atomic_fetch_add(&pc_dropped, dropped);
  }
  pc_activity_decode();
}

void pc_activity_stop(void) {
  if (pc_cupti_usable()) {
    for (size_t i = 0; i < sizeof pc_kinds / sizeof pc_kinds[0]; i++)
      if (pc_kind_on[i]) (void)PC_CUPTI(NULL, cuptiActivityDisable, pc_kinds[i]);
    if (pc_registered) (void)PC_CUPTI(NULL, cuptiActivityFlushAll, CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  }
  memset(pc_kind_on, 0, sizeof pc_kind_on);
  pc_activity_decode(); /* no region is open: the records are dropped */
  pthread_mutex_lock(&pc_act_mu);
  for (size_t i = 0; i < pc_npool; i++) free(pc_pool[i]);
  pc_nbuffers -= pc_npool;
  pc_npool = 0;
  /* The queue array stays while CUPTI may still hold buffers (it sized the
   * queue for them); it is freed once none is out. */
  if (pc_nbuffers == 0) {
    free(pc_queue);
    pc_queue = NULL;
    pc_capqueue = 0;
  }
  pthread_mutex_unlock(&pc_act_mu);
  pc_gpu_lock();
  pc_store_free();
  pc_gpu_unlock();
}
