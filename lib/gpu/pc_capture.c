/*
 * pc_capture.c: the one CUPTI subscriber ("libperfcheck") and its callbacks.
 *
 * What is subscribed, and why no more (docs/cupti.md §4, §11):
 *   driver  cuLaunchKernel(_ptsz), cuLaunchKernelEx(_ptsz),
 *           cuLaunchCooperativeKernel(_ptsz), cuGraphLaunch(_ptsz), ENTER+EXIT;
 *           cuStreamBeginCapture*(_ptsz), cuStreamEndCapture(_ptsz): a launch
 *           into a stream being captured only adds a graph node (it is not a
 *           launch of the region, and profiling it broke the capture on the
 *           H200), and no launch is profiled while any capture is open;
 *   resource CONTEXT_CREATED, CONTEXT_DESTROY_STARTING, MODULE_UNLOAD_STARTING;
 *   state   FATAL_ERROR;
 *   nvtx    range push/pop, only when the injection library asks
 *           (pc_capture_set_nvtx_hook): its NVTX ranges become regions.
 * The runtime launch ids (cudaLaunchKernel*, __cudaLaunchKernel_v13000, ...)
 * are left off on purpose: on the H200 every runtime launch reached the
 * driver's cuLaunchKernel callback with the same correlation id (§11), so
 * subscribing to them would only add host time to every launch (callbacks on
 * whole domains cost +1.1 us per launch there, launch ids only +0.4 us).
 * TO VERIFY ON THE GPU: every <<<>>> launch is counted exactly once.
 *
 * The hot path.  While no session is active a launch costs one atomic load.
 * Inside a session the ENTER callback reads the parameters (no CUDA call:
 * CUDA calls inside callbacks are unsupported), maps (function, context,
 * grid, block, dynamic smem) to a signature id through two small hash maps
 * (the kernel name is copied from symbolName the first time a handle is
 * seen), and, inside a region, appends a 16-byte launch record
 * {correlation id, signature, region, flags} to the launch log, a hash table
 * keyed by correlation id that the activity decoder empties as kernel records
 * arrive.  So the log holds only launches whose kernel has not been decoded
 * yet, and stays small however many launches a region makes.
 *
 * `f` in cuLaunchKernel's parameters is a CUkernel, not a CUfunction, for
 * <<<>>> launches (§11); it is kept as an opaque handle here and resolved
 * by pc_funcinfo at region end.
 *
 * Graph launches get a record {correlation id, GRAPH, region}; the graph's
 * kernels arrive as activity records that all carry that one correlation id
 * and are matched by name and geometry; their function handle comes from the
 * name table filled by earlier launch callbacks (stream capture included).
 *
 * Counters.  The range profiler is context-level: while one launch is being
 * range-profiled no other kernel may run, or it would be auto-ranged too.  A
 * process-wide rwlock (writer-preferring) enforces it: a profiled launch
 * holds it exclusively from ENTER to EXIT, every other launch holds it shared
 * from ENTER to EXIT, and only while counters are on.  A thread-local depth
 * keeps a launch nested inside one of ours (e.g. issued by a library from our
 * own call) from taking the lock twice.  Graph launches are never profiled
 * (auto range + kernel replay left a graph kernel unwritten on the H200).
 *
 * Teardown safety.  Callbacks count themselves in `pc_inflight` while they
 * touch shared state; pc_capture_stop clears `pc_active`, takes the rwlock
 * once exclusively (so every profiled launch finished its EXIT and no later
 * launch starts profiling), waits for `pc_inflight` to drain, and only then
 * unsubscribes and frees.
 */
#define _GNU_SOURCE /* RTLD_DEFAULT, pthread_rwlockattr_setkind_np */
#include "pc_capture.h"

#include <cupti.h> /* brings generated_cuda_meta.h: the launch parameter structs */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pc_cuda.h"
#include "pc_funcinfo.h"
#include "pc_rp_internal.h" /* the counter layer's 39 flag, shared with ours */

#define PC_NONE UINT32_MAX

/* ---- locks and flags --------------------------------------------------------- */

static pthread_mutex_t pc_gpu_mu = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local int pc_gpu_held;

void pc_gpu_lock(void) {
  pthread_mutex_lock(&pc_gpu_mu);
  pc_gpu_held = 1;
}
void pc_gpu_unlock(void) {
  pc_gpu_held = 0;
  pthread_mutex_unlock(&pc_gpu_mu);
}
int pc_gpu_lock_held(void) { return pc_gpu_held; }

static pthread_rwlock_t pc_launch_rw;
static pthread_once_t pc_launch_rw_once = PTHREAD_ONCE_INIT;
static void pc_launch_rw_init(void) {
  pthread_rwlockattr_t a;
  pthread_rwlockattr_init(&a);
  /* Writer preference: a launch waiting to be profiled must not starve
   * behind a stream of launches from other threads. */
  pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
  pthread_rwlock_init(&pc_launch_rw, &a);
  pthread_rwlockattr_destroy(&a);
}

static atomic_int pc_active;        /* callbacks do anything at all */
static atomic_int pc_counters;      /* profile launches */
static atomic_int pc_refusal;       /* counters were refused in a callback: note it */
static atomic_int pc_fatal;         /* CUPTI reported a fatal error */
static atomic_int pc_inflight;      /* callbacks inside our code */
static atomic_uint pc_cur_region;   /* innermost open region, 0: none */

/* Injection hooks (pc_capture.h); NULL in a linked program. */
static _Atomic(pc_capture_ctx_fn) pc_ctx_created_fn, pc_ctx_destroying_fn;
static _Atomic(pc_capture_nvtx_fn) pc_nvtx_fn;
static _Atomic(int (*)(void)) pc_gate_fn;

static _Thread_local int pc_tl_depth;    /* launch callbacks of ours open on this thread */
static _Thread_local int pc_tl_internal; /* our own benchmark launches */

/* correlationData from ENTER to EXIT: a magic in the high half, so that EXIT
 * acts only on launches whose ENTER it saw, and what ENTER did. */
#define PC_CD_MAGIC 0x7063686b00000000ull /* "pchk" */
#define PC_CD_MAGIC_MASK 0xffffffff00000000ull
enum { PC_CD_HOLD = 1u, PC_CD_PROFILED = 2u, PC_CD_RECORDED = 4u };

/* CUPTI answered 39 once: make no further CUPTI call in this process. */
static int pc_cupti_dead;
static char pc_cupti_holder[128];
static char pc_fatal_msg[256];

/* Either layer may meet the 39 first (perfcheck_metric_passes on the
 * current device runs without a session): both flags count. */
int pc_capture_cupti_unusable(char *holder, size_t len) {
  const int dead = pc_cupti_dead || pc_cupti_blocked();
  if (dead && holder && len) snprintf(holder, len, "%s", pc_cupti_dead ? pc_cupti_holder : "another CUPTI client");
  return dead;
}

/* ---- small hash maps ------------------------------------------------------------ */

static inline uint64_t pc_mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

static uint64_t pc_hash_str(const char *s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
  return h;
}

static uint64_t pc_hash_u32s(const uint32_t *v, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++) h = (h ^ v[i]) * 0x100000001b3ull;
  return h;
}

/* Open addressing, linear probing, 64-bit key -> 32-bit value (PC_NONE marks
 * an empty slot).  Keys may repeat (hash collisions): `eq` confirms. */
typedef struct pc_map {
  uint64_t *key;
  uint32_t *val;
  size_t cap, n;
} pc_map;

typedef int (*pc_map_eq)(uint32_t val, const void *arg);

static void pc_map_free(pc_map *m) {
  free(m->key);
  free(m->val);
  memset(m, 0, sizeof *m);
}

static void pc_map_put_slot(uint64_t *key, uint32_t *val, size_t cap, uint64_t k, uint32_t v) {
  size_t mask = cap - 1;
  size_t i = (size_t)pc_mix64(k) & mask;
  while (val[i] != PC_NONE) i = (i + 1) & mask;
  key[i] = k;
  val[i] = v;
}

static int pc_map_grow(pc_map *m) {
  size_t nc = m->cap ? m->cap * 2 : 256;
  uint64_t *k = malloc(nc * sizeof *k);
  uint32_t *v = malloc(nc * sizeof *v);
  if (!k || !v) {
    free(k);
    free(v);
    return -1;
  }
  for (size_t i = 0; i < nc; i++) v[i] = PC_NONE;
  for (size_t i = 0; i < m->cap; i++)
    if (m->val[i] != PC_NONE) pc_map_put_slot(k, v, nc, m->key[i], m->val[i]);
  free(m->key);
  free(m->val);
  m->key = k;
  m->val = v;
  m->cap = nc;
  return 0;
}

static uint32_t pc_map_find(const pc_map *m, uint64_t k, pc_map_eq eq, const void *arg) {
  if (!m->cap) return PC_NONE;
  size_t mask = m->cap - 1;
  for (size_t i = (size_t)pc_mix64(k) & mask;; i = (i + 1) & mask) {
    if (m->val[i] == PC_NONE) return PC_NONE;
    if (m->key[i] == k && (!eq || eq(m->val[i], arg))) return m->val[i];
  }
}

static int pc_map_insert(pc_map *m, uint64_t k, uint32_t v) {
  if ((m->n + 1) * 2 > m->cap && pc_map_grow(m)) return -1;
  pc_map_put_slot(m->key, m->val, m->cap, k, v);
  m->n++;
  return 0;
}

/* The launch log: correlation id -> {signature or context, region, flags}.
 * 16 bytes an entry. */
typedef struct pc_launch {
  uint32_t corr;
  uint32_t a;        /* signature id; for a graph launch, the context index */
  uint32_t region;
  uint32_t flags;    /* PC_L_* */
} pc_launch;
enum { PC_L_USED = 1u, PC_L_GRAPH = 2u, PC_L_PROFILED = 4u };

typedef struct pc_ltab {
  pc_launch *e;
  size_t cap, n;
} pc_ltab;

static inline size_t pc_ltab_home(uint32_t corr, size_t mask) { return (size_t)pc_mix64(corr) & mask; }

static void pc_ltab_put_raw(pc_launch *e, size_t cap, const pc_launch *x) {
  size_t mask = cap - 1;
  size_t i = pc_ltab_home(x->corr, mask);
  while (e[i].flags & PC_L_USED) i = (i + 1) & mask;
  e[i] = *x;
}

static int pc_ltab_resize(pc_ltab *t, size_t nc) {
  pc_launch *e = calloc(nc, sizeof *e);
  if (!e) return -1;
  for (size_t i = 0; i < t->cap; i++)
    if (t->e[i].flags & PC_L_USED) pc_ltab_put_raw(e, nc, &t->e[i]);
  free(t->e);
  t->e = e;
  t->cap = nc;
  return 0;
}

static size_t pc_ltab_find(const pc_ltab *t, uint32_t corr) {
  if (!t->cap) return SIZE_MAX;
  size_t mask = t->cap - 1;
  for (size_t i = pc_ltab_home(corr, mask);; i = (i + 1) & mask) {
    if (!(t->e[i].flags & PC_L_USED)) return SIZE_MAX;
    if (t->e[i].corr == corr) return i;
  }
}

static int pc_ltab_put(pc_ltab *t, const pc_launch *x) {
  size_t at = pc_ltab_find(t, x->corr);
  if (at != SIZE_MAX) { /* a correlation id is never reused; keep the newest */
    t->e[at] = *x;
    return 0;
  }
  if ((t->n + 1) * 2 > t->cap && pc_ltab_resize(t, t->cap ? t->cap * 2 : 1024)) return -1;
  pc_ltab_put_raw(t->e, t->cap, x);
  t->n++;
  return 0;
}

/* Backward-shift deletion: no tombstones, so lookups stay short however many
 * launches pass through. */
static void pc_ltab_erase(pc_ltab *t, size_t i) {
  size_t mask = t->cap - 1;
  t->e[i].flags = 0;
  size_t j = i;
  for (;;) {
    j = (j + 1) & mask;
    if (!(t->e[j].flags & PC_L_USED)) break;
    size_t k = pc_ltab_home(t->e[j].corr, mask);
    /* Entry j may move to the hole i unless its home lies cyclically in (i, j]. */
    int stays = (i <= j) ? (i < k && k <= j) : (i < k || k <= j);
    if (!stays) {
      t->e[i] = t->e[j];
      t->e[j].flags = 0;
      i = j;
    }
  }
  t->n--;
}

/* ---- tables ----------------------------------------------------------------------- */

typedef struct pc_name {
  char *mangled;        /* NULL until known */
  char *short_name;     /* computed lazily, outside launch callbacks */
  void *f_last;         /* the handle of its latest direct launch */
  signed char regex;    /* -1 unknown, 0/1: kernel_regex verdict */
} pc_name;

typedef struct pc_sig {
  uint32_t name, ctx;
  unsigned grid[3], block[3], smem;
  unsigned cluster[3];
  void *f;
  uint32_t prof_region, prof_count;
  uint8_t np, seen_direct, seen_graph, attr_state, rec_valid, is_kernel;
  unsigned rec_regs, rec_static, rec_local;
  pc_attributes attr;
  char *attr_reason;
} pc_sig;

typedef struct pc_ctxent {
  CUcontext ctx;
  uint32_t uid;
  int alive;
  uint64_t last_launch;  /* launch sequence number of its latest region launch */
} pc_ctxent;

typedef struct pc_prof {
  uint32_t corr, sig, region;
  uint64_t exit_ts; /* cuptiGetTimestamp after the launch (and its replay) */
} pc_prof;

/* An open region.  `closing`: its end has begun; launches go to the parent
 * but its kernel records are still accepted until it is retired. */
typedef struct pc_open {
  uint32_t id;
  int closing;
} pc_open;

/* A stream being captured into a graph: launches into it do not run.  The
 * per-thread default stream (handles 0 and 2) is one stream per thread. */
typedef struct pc_capstream {
  CUstream stream;
  pthread_t thread;
  int per_thread;
} pc_capstream;

static struct {
  CUpti_SubscriberHandle sub;
  int subscribed;
  pc_name *names;
  size_t nnames, capnames;
  pc_map names_by_str, names_by_ptr;
  pc_sig *sigs;
  size_t nsigs, capsigs;
  pc_map sigs_by_key;
  pc_ctxent *ctxs;
  size_t nctxs, capctxs;
  pc_ltab launches;
  pc_prof *prof;
  size_t nprof, capprof;
  pc_open *open;
  size_t nopen, capopen;
  pc_capstream *caps;
  size_t ncaps, capcaps;
  uint64_t launch_seq;   /* launches made inside regions */
  uint64_t failed;       /* of those, launches that returned an error */
  pc_capture_counters cnt;
  uint64_t matched, profiled;
} pc_cap;

static uint32_t pc_next_region; /* never reset: ids are unique in the process */

static int pc_grow(void **arr, size_t *cap, size_t n, size_t sz) {
  if (n < *cap) return 0;
  size_t nc = *cap ? *cap * 2 : 16;
  if (nc > SIZE_MAX / sz) return -1;
  void *p = realloc(*arr, nc * sz);
  if (!p) return -1;
  *arr = p;
  *cap = nc;
  return 0;
}

static uint32_t pc_name_new(const char *mangled) {
  if (pc_cap.nnames >= PC_NONE - 1 ||
      pc_grow((void **)&pc_cap.names, &pc_cap.capnames, pc_cap.nnames, sizeof *pc_cap.names))
    return PC_NONE;
  pc_name *n = &pc_cap.names[pc_cap.nnames];
  memset(n, 0, sizeof *n);
  n->regex = -1;
  if (mangled) {
    n->mangled = pc_strdup(mangled);
    if (!n->mangled) return PC_NONE;
  }
  return (uint32_t)pc_cap.nnames++;
}

static int pc_name_eq(uint32_t id, const void *arg) {
  const char *m = pc_cap.names[id].mangled;
  return m && strcmp(m, (const char *)arg) == 0;
}

/* The name id of a mangled name, created at first sight. */
static uint32_t pc_intern(const char *mangled) {
  uint64_t h = pc_hash_str(mangled);
  uint32_t id = pc_map_find(&pc_cap.names_by_str, h, pc_name_eq, mangled);
  if (id != PC_NONE) return id;
  id = pc_name_new(mangled);
  if (id != PC_NONE) pc_map_insert(&pc_cap.names_by_str, h, id); /* on OOM: found by pointer only */
  return id;
}

/* The name id of a launched handle. */
static uint32_t pc_name_of_handle(void *f, const char *symbol) {
  uint64_t k = (uint64_t)(uintptr_t)f;
  uint32_t id = pc_map_find(&pc_cap.names_by_ptr, k, NULL, NULL);
  if (id == PC_NONE) {
    id = (symbol && *symbol) ? pc_intern(symbol) : pc_name_new(NULL);
    if (id == PC_NONE) return PC_NONE;
    pc_map_insert(&pc_cap.names_by_ptr, k, id);
  }
  pc_cap.names[id].f_last = f;
  return id;
}

typedef struct pc_sigkey {
  uint32_t v[9]; /* name, ctx, grid xyz, block xyz, dynamic smem */
} pc_sigkey;

static int pc_sig_eq(uint32_t id, const void *arg) {
  const pc_sigkey *k = arg;
  const pc_sig *s = &pc_cap.sigs[id];
  return s->name == k->v[0] && s->ctx == k->v[1] && s->grid[0] == k->v[2] && s->grid[1] == k->v[3] &&
         s->grid[2] == k->v[4] && s->block[0] == k->v[5] && s->block[1] == k->v[6] && s->block[2] == k->v[7] &&
         s->smem == k->v[8];
}

static uint32_t pc_sig_lookup(uint32_t name, uint32_t ctx, const unsigned grid[3], const unsigned block[3],
                              unsigned smem) {
  pc_sigkey k = {{name, ctx, grid[0], grid[1], grid[2], block[0], block[1], block[2], smem}};
  uint64_t h = pc_hash_u32s(k.v, 9);
  uint32_t id = pc_map_find(&pc_cap.sigs_by_key, h, pc_sig_eq, &k);
  if (id != PC_NONE) return id;
  /* The id goes into pc_span.group shifted by 3. */
  if (pc_cap.nsigs >= (1u << 29) ||
      pc_grow((void **)&pc_cap.sigs, &pc_cap.capsigs, pc_cap.nsigs, sizeof *pc_cap.sigs))
    return PC_NONE;
  pc_sig *s = &pc_cap.sigs[pc_cap.nsigs];
  memset(s, 0, sizeof *s);
  s->name = name;
  s->ctx = ctx;
  memcpy(s->grid, grid, sizeof s->grid);
  memcpy(s->block, block, sizeof s->block);
  s->smem = smem;
  s->prof_region = 0;
  pc_attributes_init(&s->attr);
  id = (uint32_t)pc_cap.nsigs;
  if (pc_map_insert(&pc_cap.sigs_by_key, h, id)) return PC_NONE;
  pc_cap.nsigs++;
  return id;
}

/* The index of a context; launches give its unique id too, so a context
 * re-created at the same address gets a new entry. */
static uint32_t pc_ctx_index(CUcontext ctx, uint32_t uid) {
  for (size_t i = pc_cap.nctxs; i-- > 0;)
    if (pc_cap.ctxs[i].ctx == ctx && pc_cap.ctxs[i].uid == uid && pc_cap.ctxs[i].alive) return (uint32_t)i;
  if (pc_grow((void **)&pc_cap.ctxs, &pc_cap.capctxs, pc_cap.nctxs, sizeof *pc_cap.ctxs)) return PC_NONE;
  pc_ctxent *c = &pc_cap.ctxs[pc_cap.nctxs];
  c->ctx = ctx;
  c->uid = uid;
  c->alive = 1;
  c->last_launch = 0;
  return (uint32_t)pc_cap.nctxs++;
}

static void pc_ctx_mark_dead(CUcontext ctx) {
  for (size_t i = 0; i < pc_cap.nctxs; i++)
    if (pc_cap.ctxs[i].ctx == ctx) pc_cap.ctxs[i].alive = 0;
}

static int pc_region_is_open(uint32_t id) {
  for (size_t i = pc_cap.nopen; i-- > 0;)
    if (pc_cap.open[i].id == id) return 1;
  return 0;
}

static void pc_update_current_region(void) {
  uint32_t cur = 0;
  for (size_t i = pc_cap.nopen; i-- > 0;)
    if (!pc_cap.open[i].closing) {
      cur = pc_cap.open[i].id;
      break;
    }
  atomic_store(&pc_cur_region, cur);
}

static int pc_is_per_thread_stream(CUstream s) {
  return s == NULL || s == CU_STREAM_PER_THREAD || s == CU_STREAM_LEGACY;
}

static int pc_stream_captured(CUstream s) {
  const int pt = pc_is_per_thread_stream(s);
  for (size_t i = 0; i < pc_cap.ncaps; i++)
    if (pc_cap.caps[i].stream == s && (!pt || pthread_equal(pc_cap.caps[i].thread, pthread_self()))) return 1;
  return 0;
}

/* Resets a signature's per-region state when it is first seen in `region`. */
static void pc_sig_enter_region(pc_sig *s, uint32_t region) {
  if (s->prof_region != region) {
    s->prof_region = region;
    s->prof_count = 0;
    s->np = PC_NP_NONE;
  }
}

static int pc_name_matches(pc_name *n) {
  if (!pc_cap.cnt.kernel_regex) return 1;
  if (n->regex < 0) {
    /* Demangling inside the callback: once per kernel name, no CUDA call. */
    char shortn[512];
    pc_capture_short_name(n->mangled, shortn, sizeof shortn);
    n->regex = regexec(pc_cap.cnt.kernel_regex, shortn, 0, NULL, 0) == 0;
  }
  return n->regex;
}

/* ncu's -k, -s, -c, then the first per_signature launches of each signature
 * in each region (so that every report entry can get counters). */
static atomic_int pc_capturing; /* stream captures in progress in the process */

static int pc_decide_profile(pc_sig *s, uint32_t region) {
  pc_sig_enter_region(s, region);
  /* A stream capture elsewhere may have joined this launch's stream through
   * an event, and the range profiler breaks a capture (seen on the H200):
   * no profiling while any capture is open. */
  if (atomic_load(&pc_capturing) > 0) {
    if (!s->prof_count) s->np = PC_NP_CAPTURE;
    return 0;
  }
  int (*gate)(void) = atomic_load(&pc_gate_fn);
  if (gate && !gate()) { /* PERFCHECK_NVTX: outside the named ranges, like ncu's --nvtx-include */
    if (!s->prof_count) s->np = PC_NP_NVTX;
    return 0;
  }
  if (!pc_name_matches(&pc_cap.names[s->name])) {
    if (!s->prof_count) s->np = PC_NP_FILTERED;
    return 0;
  }
  pc_cap.matched++;
  if (pc_cap.matched <= pc_cap.cnt.launch_skip) {
    if (!s->prof_count) s->np = PC_NP_SKIPPED;
    return 0;
  }
  if (s->prof_count >= pc_cap.cnt.per_signature) return 0;
  if (pc_cap.cnt.launch_count && pc_cap.profiled >= pc_cap.cnt.launch_count) {
    if (!s->prof_count) s->np = PC_NP_LIMIT;
    return 0;
  }
  s->prof_count++;
  pc_cap.profiled++;
  s->np = PC_NP_NONE;
  return 1;
}

static void pc_prof_forget(uint32_t corr) {
  for (size_t i = pc_cap.nprof; i-- > 0;)
    if (pc_cap.prof[i].corr == corr) {
      pc_cap.prof[i] = pc_cap.prof[--pc_cap.nprof];
      return;
    }
}

/* ---- launch callbacks ------------------------------------------------------------- */

typedef struct pc_launch_params {
  void *f;
  CUstream stream;
  unsigned grid[3], block[3], smem;
  unsigned cluster[3];
  int graph;
} pc_launch_params;

/* Reads what we need from the parameter struct of each launch cbid; 0 if
 * the cbid is not ours or the parameters are missing. */
static int pc_read_params(CUpti_CallbackId cbid, const void *params, pc_launch_params *p) {
  memset(p, 0, sizeof *p);
  p->cluster[0] = p->cluster[1] = p->cluster[2] = 1;
  if (!params) return 0;
#define PC_CLASSIC_(T)                                                 \
  do {                                                                 \
    const T *q = params;                                               \
    p->f = (void *)q->f;                                               \
    p->grid[0] = q->gridDimX, p->grid[1] = q->gridDimY, p->grid[2] = q->gridDimZ; \
    p->block[0] = q->blockDimX, p->block[1] = q->blockDimY, p->block[2] = q->blockDimZ; \
    p->smem = q->sharedMemBytes;                                       \
    p->stream = q->hStream;                                            \
  } while (0)
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
      PC_CLASSIC_(cuLaunchKernel_params);
      return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
      PC_CLASSIC_(cuLaunchKernel_ptsz_params);
      return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
      PC_CLASSIC_(cuLaunchCooperativeKernel_params);
      return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
      PC_CLASSIC_(cuLaunchCooperativeKernel_ptsz_params);
      return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
      /* The two parameter structs have the same layout. */
      const cuLaunchKernelEx_params *q = params;
      const CUlaunchConfig *c = q->config;
      if (!c) return 0;
      p->f = (void *)q->f;
      p->grid[0] = c->gridDimX, p->grid[1] = c->gridDimY, p->grid[2] = c->gridDimZ;
      p->block[0] = c->blockDimX, p->block[1] = c->blockDimY, p->block[2] = c->blockDimZ;
      p->smem = c->sharedMemBytes;
      p->stream = c->hStream;
      for (unsigned i = 0; c->attrs && i < c->numAttrs; i++)
        if (c->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
          p->cluster[0] = c->attrs[i].value.clusterDim.x;
          p->cluster[1] = c->attrs[i].value.clusterDim.y;
          p->cluster[2] = c->attrs[i].value.clusterDim.z;
        }
      return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz:
      p->graph = 1;
      p->stream = ((const cuGraphLaunch_params *)params)->hStream;
      return 1;
    default:
      return 0;
  }
#undef PC_CLASSIC_
}

static void pc_launch_enter(CUpti_CallbackId cbid, const CUpti_CallbackData *cb) {
  if (pc_tl_internal) return;
  uint64_t *cd = cb->correlationData;
  if (pc_tl_depth > 0) { /* nested inside one of our launches: not recorded, no lock */
    pc_tl_depth++;
    if (cd) *cd = PC_CD_MAGIC;
    return;
  }
  atomic_fetch_add(&pc_inflight, 1);
  if (!atomic_load(&pc_active)) {
    atomic_fetch_sub(&pc_inflight, 1);
    return;
  }
  pc_launch_params p;
  uint32_t flags = 0;
  int profile = 0;
  const char *profile_name = NULL; /* stable until pc_capture_stop, which waits for us */
  const uint32_t corr = cb->correlationId;
  if (pc_read_params(cbid, cb->functionParams, &p)) {
    const int counters = atomic_load(&pc_counters);
    pc_gpu_lock();
    /* A launch into a stream being captured only adds a graph node: it runs
     * at cuGraphLaunch.  Its name is kept (the graph's kernel records find
     * their function by it); it is neither a launch of the region nor
     * profiled. */
    const int captured = pc_cap.ncaps && pc_stream_captured(p.stream);
    const uint32_t region = captured ? 0 : atomic_load(&pc_cur_region);
    const uint32_t ci = pc_ctx_index(cb->context, cb->contextUid);
    if (ci != PC_NONE) {
      pc_launch rec = {corr, ci, region, PC_L_USED};
      if (p.graph) {
        rec.flags |= PC_L_GRAPH;
      } else {
        uint32_t name = pc_name_of_handle(p.f, cb->symbolName);
        uint32_t sig = name == PC_NONE ? PC_NONE : pc_sig_lookup(name, ci, p.grid, p.block, p.smem);
        if (sig == PC_NONE) {
          rec.flags = 0; /* out of memory: the launch goes unrecorded */
        } else {
          pc_sig *s = &pc_cap.sigs[sig];
          s->f = p.f;
          s->seen_direct = 1;
          if (p.cluster[0] * p.cluster[1] * p.cluster[2] > 1) memcpy(s->cluster, p.cluster, sizeof s->cluster);
          rec.a = sig;
          if (region) {
            if (counters) {
              profile = pc_decide_profile(s, region);
            } else {
              pc_sig_enter_region(s, region);
              if (!s->prof_count) s->np = PC_NP_TIMING;
            }
            if (profile) {
              profile_name = pc_cap.names[name].mangled;
              rec.flags |= PC_L_PROFILED;
              pc_prof pr = {corr, sig, region, 0};
              if (pc_grow((void **)&pc_cap.prof, &pc_cap.capprof, pc_cap.nprof, sizeof *pc_cap.prof) == 0)
                pc_cap.prof[pc_cap.nprof++] = pr;
            }
          }
        }
      }
      if (region && (rec.flags & PC_L_USED) && pc_ltab_put(&pc_cap.launches, &rec) == 0) {
        flags |= PC_CD_RECORDED;
        pc_cap.launch_seq++;
        pc_cap.ctxs[ci].last_launch = pc_cap.launch_seq;
      } else if (profile) { /* unrecorded launches are not profiled */
        pc_cap.sigs[rec.a].prof_count--;
        pc_cap.profiled--;
        pc_prof_forget(corr);
        profile = 0;
      }
    }
    pc_gpu_unlock();

    if (counters && !captured) {
      pthread_once(&pc_launch_rw_once, pc_launch_rw_init);
      if (profile) {
        pthread_rwlock_wrlock(&pc_launch_rw);
        flags |= PC_CD_HOLD;
        /* Re-check under the exclusive lock: pc_capture_stop clears pc_counters
         * before it takes the lock, so the counter layer is still alive here. */
        if (atomic_load(&pc_counters) &&
            pc_rp_on_launch_enter_named(pc_cap.cnt.rp, cb->context, corr, profile_name) == 0) {
          flags |= PC_CD_PROFILED;
        } else {
          if (atomic_load(&pc_counters)) { /* refused: stop asking, note it once */
            atomic_store(&pc_counters, 0);
            atomic_store(&pc_refusal, 1);
          }
          pc_gpu_lock();
          size_t at = pc_ltab_find(&pc_cap.launches, corr);
          if (at != SIZE_MAX) pc_cap.launches.e[at].flags &= ~PC_L_PROFILED;
          pc_prof_forget(corr);
          uint32_t sig = at != SIZE_MAX ? pc_cap.launches.e[at].a : PC_NONE;
          if (sig != PC_NONE && sig < pc_cap.nsigs) {
            if (pc_cap.sigs[sig].prof_count) pc_cap.sigs[sig].prof_count--;
            if (!pc_cap.sigs[sig].prof_count) pc_cap.sigs[sig].np = PC_NP_TIMING;
          }
          pc_gpu_unlock();
        }
      } else {
        pthread_rwlock_rdlock(&pc_launch_rw);
        flags |= PC_CD_HOLD;
      }
    }
  }
  pc_tl_depth++;
  if (cd) *cd = PC_CD_MAGIC | flags;
  atomic_fetch_sub(&pc_inflight, 1);
}

static void pc_launch_exit(const CUpti_CallbackData *cb) {
  if (pc_tl_depth == 0 || !cb->correlationData) return;
  uint64_t v = *cb->correlationData;
  if ((v & PC_CD_MAGIC_MASK) != PC_CD_MAGIC) return;
  *cb->correlationData = 0;
  pc_tl_depth--;
  if (!(v & (PC_CD_HOLD | PC_CD_PROFILED | PC_CD_RECORDED))) return;
  const int ok = cb->functionReturnValue && *(const CUresult *)cb->functionReturnValue == CUDA_SUCCESS;
  atomic_fetch_add(&pc_inflight, 1);
  /* The counter layer stays alive while we hold the exclusive lock. */
  if (v & PC_CD_PROFILED) {
    pc_rp_on_launch_exit(pc_cap.cnt.rp, cb->context, cb->correlationId, ok);
    /* Under kernel replay the activity record of this launch carries no
     * timestamps: the session places the kernel, with its counted duration,
     * just before this moment (nothing else ran: we hold the launch lock). */
    uint64_t ts = 0;
    if (ok && atomic_load(&pc_active) && pc_cupti.cuptiGetTimestamp(&ts) == CUPTI_SUCCESS) {
      pc_gpu_lock();
      for (size_t i = pc_cap.nprof; i-- > 0;)
        if (pc_cap.prof[i].corr == cb->correlationId) {
          pc_cap.prof[i].exit_ts = ts;
          break;
        }
      pc_gpu_unlock();
    }
  }
  if (!ok && (v & PC_CD_RECORDED) && atomic_load(&pc_active)) {
    /* A failed launch runs no kernel: no record will come for it. */
    pc_gpu_lock();
    size_t at = pc_ltab_find(&pc_cap.launches, cb->correlationId);
    if (at != SIZE_MAX) {
      pc_launch e = pc_cap.launches.e[at];
      pc_ltab_erase(&pc_cap.launches, at);
      pc_cap.failed++;
      if ((e.flags & PC_L_PROFILED) && e.a < pc_cap.nsigs) {
        pc_prof_forget(e.corr);
        pc_sig *s = &pc_cap.sigs[e.a];
        if (s->prof_count) s->prof_count--;
        if (!s->prof_count) s->np = PC_NP_FAILED;
      }
    }
    pc_gpu_unlock();
  }
  if (v & PC_CD_HOLD) pthread_rwlock_unlock(&pc_launch_rw);
  atomic_fetch_sub(&pc_inflight, 1);
}

/* ---- resource and state callbacks ------------------------------------------------- */

typedef struct pc_pending_attr {
  uint32_t sig;
  void *f;
  CUcontext ctx;
  unsigned grid[3], block[3], smem;
} pc_pending_attr;

/* A module is about to go: its CUfunctions die with it, and a later module
 * may reuse their addresses.  We cannot tell which handles are its (the
 * callback names the module by CUPTI's id only), so:
 *  1. signatures still needed by an open region whose attributes are not
 *     read yet are asked now, with no context call (cuFuncGetAttribute and
 *     cuOccupancy* on the handle only; a CUkernel answers INVALID_HANDLE and
 *     is kept: it belongs to a library, not to this module);
 *  2. every handle is forgotten (the next launch of a live kernel re-adds it
 *     from its name), except CUkernels in signatures that still need them.
 * Usually nothing is pending here (modules go at exit, after the regions
 * ended), so no driver call is made in this callback at all.
 * TO VERIFY ON THE GPU: cuModuleUnload inside an open region. */
static void pc_on_module_unload(void) {
  pc_pending_attr *todo = NULL;
  size_t ntodo = 0, cap = 0;
  pc_gpu_lock();
  for (size_t i = 0; i < pc_cap.nsigs; i++) {
    pc_sig *s = &pc_cap.sigs[i];
    if (s->attr_state != PC_ATTR_NONE || !s->f || !pc_region_is_open(s->prof_region)) continue;
    if (pc_grow((void **)&todo, &cap, ntodo, sizeof *todo)) break;
    pc_pending_attr *t = &todo[ntodo++];
    t->sig = (uint32_t)i;
    t->f = s->f;
    t->ctx = s->ctx < pc_cap.nctxs ? pc_cap.ctxs[s->ctx].ctx : NULL;
    memcpy(t->grid, s->grid, sizeof t->grid);
    memcpy(t->block, s->block, sizeof t->block);
    t->smem = s->smem;
  }
  pc_gpu_unlock();

  for (size_t i = 0; i < ntodo; i++) {
    pc_device d;
    int ord = pc_funcinfo_ctx_ordinal_cached(todo[i].ctx);
    if (!pc_funcinfo_device_cached(ord >= 0 ? ord : 0, &d)) pc_device_init(&d);
    pc_attributes a;
    int is_kernel = 0;
    char why[160] = "";
    perfcheck_status st = pc_funcinfo_attributes(todo[i].ctx, todo[i].f, 0, todo[i].grid, todo[i].block,
                                                 todo[i].smem, &d, &a, &is_kernel, why, sizeof why);
    pc_gpu_lock();
    pc_sig *s = &pc_cap.sigs[todo[i].sig];
    if (st == PERFCHECK_OK) {
      s->attr = a;
      s->attr_state = PC_ATTR_OK;
      s->is_kernel = 0;
    } else if (is_kernel) {
      s->is_kernel = 1;
    }
    pc_gpu_unlock();
  }
  free(todo);

  pc_gpu_lock();
  pc_map_free(&pc_cap.names_by_ptr);
  for (size_t i = 0; i < pc_cap.nnames; i++) pc_cap.names[i].f_last = NULL;
  for (size_t i = 0; i < pc_cap.nsigs; i++) {
    pc_sig *s = &pc_cap.sigs[i];
    if (!(s->is_kernel && s->attr_state == PC_ATTR_NONE)) s->f = NULL;
  }
  pc_gpu_unlock();
}

static void pc_on_resource(CUpti_CallbackId cbid, const void *data) {
  const CUpti_ResourceData *rd = data;
  if (!rd) return;
  if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
    /* Outside the in-flight count: the injection library starts its session
     * here, and a failed start stops the capture, which waits for it. */
    pc_capture_ctx_fn created = atomic_load(&pc_ctx_created_fn);
    if (created) created(rd->context);
  }
  atomic_fetch_add(&pc_inflight, 1);
  if (!atomic_load(&pc_active)) {
    atomic_fetch_sub(&pc_inflight, 1);
    return;
  }
  switch (cbid) {
    case CUPTI_CBID_RESOURCE_CONTEXT_CREATED:
      /* A new context at the address of a destroyed one must not inherit
       * its entry. */
      pc_gpu_lock();
      pc_ctx_mark_dead(rd->context);
      pc_gpu_unlock();
      break;
    case CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING: {
      /* The injection library collects what the context still holds. */
      pc_capture_ctx_fn destroying = atomic_load(&pc_ctx_destroying_fn);
      if (destroying) destroying(rd->context);
      pc_gpu_lock();
      pc_ctx_mark_dead(rd->context);
      pc_gpu_unlock();
      /* The counter layer frees its per-context images (its own lock). */
      if (pc_cap.cnt.rp) pc_rp_on_context_destroy(pc_cap.cnt.rp, rd->context);
      break;
    }
    case CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING:
      pc_on_module_unload();
      break;
    default:
      break;
  }
  atomic_fetch_sub(&pc_inflight, 1);
}

static void pc_on_state(CUpti_CallbackId cbid, const void *data) {
  if (cbid != CUPTI_CBID_STATE_FATAL_ERROR) return;
  const CUpti_StateData *sd = data;
  if (!atomic_load(&pc_fatal)) {
    snprintf(pc_fatal_msg, sizeof pc_fatal_msg, "CUPTI reported a fatal error (%d): %s",
             sd ? (int)sd->notification.result : -1,
             sd && sd->notification.message ? sd->notification.message : "no detail");
    atomic_store(&pc_fatal, 1);
  }
  /* CUPTI finalizes itself after this: stop recording. */
  atomic_store(&pc_active, 0);
  atomic_store(&pc_counters, 0);
}

/* Stream capture begins and ends (EXIT only). */
static int pc_capture_cbid(CUpti_CallbackId cbid, int *begin) {
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz:
      *begin = 1;
      return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz:
      *begin = 0;
      return 1;
    default:
      return 0;
  }
}

static void pc_on_capture(int begin, const CUpti_CallbackData *cb) {
  if (cb->callbackSite != CUPTI_API_EXIT || !cb->functionParams) return;
  const int ok = cb->functionReturnValue && *(const CUresult *)cb->functionReturnValue == CUDA_SUCCESS;
  if (begin && !ok) return;
  /* Every parameter struct of these calls starts with the stream. */
  const CUstream st = *(const CUstream *)cb->functionParams;
  atomic_fetch_add(&pc_inflight, 1);
  if (atomic_load(&pc_active)) {
    pc_gpu_lock();
    if (begin) {
      if (pc_grow((void **)&pc_cap.caps, &pc_cap.capcaps, pc_cap.ncaps, sizeof *pc_cap.caps) == 0) {
        pc_capstream *c = &pc_cap.caps[pc_cap.ncaps++];
        c->stream = st;
        c->thread = pthread_self();
        c->per_thread = pc_is_per_thread_stream(st);
      }
      atomic_fetch_add(&pc_capturing, 1);
    } else { /* the capture ends whatever EndCapture returns */
      for (size_t i = 0; i < pc_cap.ncaps; i++)
        if (pc_cap.caps[i].stream == st &&
            (!pc_cap.caps[i].per_thread || pthread_equal(pc_cap.caps[i].thread, pthread_self()))) {
          pc_cap.caps[i] = pc_cap.caps[--pc_cap.ncaps];
          break;
        }
      if (atomic_load(&pc_capturing) > 0) atomic_fetch_sub(&pc_capturing, 1);
    }
    pc_gpu_unlock();
  }
  atomic_fetch_sub(&pc_inflight, 1);
}

static void CUPTIAPI pc_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                 const void *data) {
  (void)userdata;
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    const CUpti_CallbackData *cb = data;
    int begin;
    if (pc_capture_cbid(cbid, &begin)) {
      pc_on_capture(begin, cb);
      return;
    }
    if (cb->callbackSite == CUPTI_API_ENTER) {
      if (!atomic_load_explicit(&pc_active, memory_order_relaxed)) return; /* the one load */
      pc_launch_enter(cbid, cb);
    } else {
      pc_launch_exit(cb);
    }
  } else if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    pc_on_resource(cbid, data);
  } else if (domain == CUPTI_CB_DOMAIN_STATE) {
    pc_on_state(cbid, data);
  } else if (domain == CUPTI_CB_DOMAIN_NVTX) {
    atomic_fetch_add(&pc_inflight, 1);
    pc_capture_nvtx_fn fn = atomic_load(&pc_nvtx_fn);
    if (fn && atomic_load(&pc_active)) fn((uint32_t)cbid, data);
    atomic_fetch_sub(&pc_inflight, 1);
  }
}

/* ---- start, stop, state -------------------------------------------------------------- */

static const char *pc_cupti_text(CUptiResult r) {
  const char *s = NULL;
  if (pc_cupti.cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s) s = "unknown CUPTI error";
  return s;
}

static void pc_tables_free(void) {
  for (size_t i = 0; i < pc_cap.nnames; i++) {
    free(pc_cap.names[i].mangled);
    free(pc_cap.names[i].short_name);
  }
  free(pc_cap.names);
  for (size_t i = 0; i < pc_cap.nsigs; i++) free(pc_cap.sigs[i].attr_reason);
  free(pc_cap.sigs);
  pc_map_free(&pc_cap.names_by_str);
  pc_map_free(&pc_cap.names_by_ptr);
  pc_map_free(&pc_cap.sigs_by_key);
  free(pc_cap.ctxs);
  free(pc_cap.launches.e);
  free(pc_cap.prof);
  free(pc_cap.open);
  free(pc_cap.caps);
  CUpti_SubscriberHandle sub = pc_cap.sub;
  int subscribed = pc_cap.subscribed;
  memset(&pc_cap, 0, sizeof pc_cap);
  pc_cap.sub = sub;
  pc_cap.subscribed = subscribed;
}

perfcheck_status pc_capture_start(char *msg, size_t msglen) {
  if (msg && msglen) msg[0] = '\0';
  char holder[128];
  if (pc_capture_cupti_unusable(holder, sizeof holder)) {
    if (msg) snprintf(msg, msglen, "CUPTI is in use by %s; perfcheck makes no further CUPTI call in this process",
                      holder);
    return PERFCHECK_ERROR_CUPTI_IN_USE;
  }
  if (pc_cap.subscribed) return PERFCHECK_OK; /* idempotent */
  {
    char why[512];
    if (pc_cupti_load(why, sizeof why) != PERFCHECK_OK) {
      if (msg) snprintf(msg, msglen, "%s", why);
      return PERFCHECK_ERROR_CUPTI_UNAVAILABLE;
    }
  }
  (void)pc_demangler(); /* looked up once, outside callbacks */
  atomic_store(&pc_active, 0);
  atomic_store(&pc_counters, 0);
  atomic_store(&pc_refusal, 0);
  atomic_store(&pc_cur_region, 0);
  atomic_store(&pc_capturing, 0);
  pc_gpu_lock();
  pc_tables_free();
  pc_gpu_unlock();

  char old[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN * 2] = "";
  CUpti_SubscriberParams sp;
  memset(&sp, 0, sizeof sp);
  sp.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
  sp.subscriberName = "libperfcheck";
  sp.oldSubscriberName = old;
  sp.oldSubscriberSize = sizeof old;
  CUpti_SubscriberHandle sub = NULL;
  CUptiResult r = pc_cupti.cuptiSubscribe_v2(&sub, pc_callback, NULL, &sp);
  if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED || r == CUPTI_ERROR_MAX_LIMIT_REACHED) {
    /* No further CUPTI call in this process, not even for the error text:
     * after a 39 a later CUPTI call crashed the host program (§11). */
    old[sizeof old - 1] = '\0';
    pc_cupti_dead = 1;
    if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) pc_cupti_note(r, "cuptiSubscribe_v2"); /* no CUPTI call */
    snprintf(pc_cupti_holder, sizeof pc_cupti_holder, "%s", old[0] ? old : "another CUPTI client");
    if (msg)
      snprintf(msg, msglen,
               "cuptiSubscribe_v2: CUPTI is in use by %s (error %d): run without the other tool "
               "(ncu, nsys, compute-sanitizer, cuda-gdb) or disable the framework's profiler",
               pc_cupti_holder, (int)r);
    return PERFCHECK_ERROR_CUPTI_IN_USE;
  }
  if (r != CUPTI_SUCCESS) {
    if (msg) snprintf(msg, msglen, "cuptiSubscribe_v2: %s (%d)", pc_cupti_text(r), (int)r);
    return r == CUPTI_ERROR_NOT_INITIALIZED ? PERFCHECK_ERROR_DRIVER_TOO_OLD : PERFCHECK_ERROR_CUPTI_UNAVAILABLE;
  }

  static const CUpti_CallbackId driver_ids[] = {
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,           CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,         CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,            CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
      /* Stream capture: launches into a capturing stream do not run. */
      CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture,     CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2,  CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph, CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture,       CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz,
  };
  static const CUpti_CallbackId resource_ids[] = {
      CUPTI_CBID_RESOURCE_CONTEXT_CREATED,
      CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING,
      CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING,
  };
  const char *what = NULL;
  for (size_t i = 0; !what && i < sizeof driver_ids / sizeof driver_ids[0]; i++)
    if ((r = pc_cupti.cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, driver_ids[i])) != CUPTI_SUCCESS)
      what = "driver launch callback";
  for (size_t i = 0; !what && i < sizeof resource_ids / sizeof resource_ids[0]; i++)
    if ((r = pc_cupti.cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RESOURCE, resource_ids[i])) != CUPTI_SUCCESS)
      what = "resource callback";
  if (!what && (r = pc_cupti.cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_STATE, CUPTI_CBID_STATE_FATAL_ERROR)) != CUPTI_SUCCESS)
    what = "state callback";
  if (what) {
    if (msg) snprintf(msg, msglen, "cuptiEnableCallback (%s): %s (%d)", what, pc_cupti_text(r), (int)r);
    pc_cupti.cuptiUnsubscribe(sub);
    return PERFCHECK_ERROR_CUPTI_UNAVAILABLE;
  }
  pc_cap.sub = sub;
  pc_cap.subscribed = 1;
  return PERFCHECK_OK;
}

void pc_capture_set_counters(const pc_capture_counters *c) {
  pc_gpu_lock();
  memset(&pc_cap.cnt, 0, sizeof pc_cap.cnt);
  if (c) pc_cap.cnt = *c;
  if (pc_cap.cnt.per_signature == 0) pc_cap.cnt.per_signature = 1;
  pc_cap.matched = pc_cap.profiled = 0;
  atomic_store(&pc_counters, pc_cap.cnt.rp != NULL);
  pc_gpu_unlock();
}

void pc_capture_set_active(int on) { atomic_store(&pc_active, on ? 1 : 0); }

void pc_capture_stop(void) {
  atomic_store(&pc_active, 0);
  atomic_store(&pc_counters, 0);
  atomic_store(&pc_nvtx_fn, NULL);
  atomic_store(&pc_gate_fn, NULL);
  /* Every profiled launch has run its EXIT once we get the lock; later
   * launches see pc_counters == 0 and do not profile. */
  pthread_once(&pc_launch_rw_once, pc_launch_rw_init);
  pthread_rwlock_wrlock(&pc_launch_rw);
  pthread_rwlock_unlock(&pc_launch_rw);
  while (atomic_load(&pc_inflight) > 0) {
    struct timespec ts = {0, 50000};
    nanosleep(&ts, NULL);
  }
  if (pc_cap.subscribed && !pc_cupti_dead) pc_cupti.cuptiUnsubscribe(pc_cap.sub);
  pc_gpu_lock();
  pc_tables_free();
  pc_cap.sub = NULL;
  pc_cap.subscribed = 0;
  pc_gpu_unlock();
  atomic_store(&pc_cur_region, 0);
}

void pc_capture_internal(int on) { pc_tl_internal = on; }

int pc_capture_fatal(char *msg, size_t len) {
  int f = atomic_load(&pc_fatal);
  if (f && msg && len) snprintf(msg, len, "%s", pc_fatal_msg);
  return f;
}

int pc_capture_counters_on(void) { return atomic_load(&pc_counters); }
void pc_capture_counters_off(void) { atomic_store(&pc_counters, 0); }
int pc_capture_take_refusal(void) { return atomic_exchange(&pc_refusal, 0); }

/* ---- regions --------------------------------------------------------------------------- */

uint32_t pc_capture_region_push(void) {
  pc_gpu_lock();
  uint32_t id = 0;
  if (pc_grow((void **)&pc_cap.open, &pc_cap.capopen, pc_cap.nopen, sizeof *pc_cap.open) == 0) {
    if (++pc_next_region == 0) ++pc_next_region;
    id = pc_next_region;
    pc_cap.open[pc_cap.nopen].id = id;
    pc_cap.open[pc_cap.nopen].closing = 0;
    pc_cap.nopen++;
    pc_update_current_region();
  }
  pc_gpu_unlock();
  return id;
}

void pc_capture_region_pop(uint32_t id) {
  pc_gpu_lock();
  for (size_t i = pc_cap.nopen; i-- > 0;)
    if (pc_cap.open[i].id == id) {
      pc_cap.open[i].closing = 1;
      break;
    }
  pc_update_current_region();
  pc_gpu_unlock();
}

void pc_capture_region_retire_locked(uint32_t id) {
  for (size_t i = pc_cap.nopen; i-- > 0;)
    if (pc_cap.open[i].id == id) {
      memmove(&pc_cap.open[i], &pc_cap.open[i + 1], (pc_cap.nopen - i - 1) * sizeof *pc_cap.open);
      pc_cap.nopen--;
      break;
    }
  pc_update_current_region();
}

uint64_t pc_capture_region_launches(void) {
  pc_gpu_lock();
  uint64_t n = pc_cap.launch_seq;
  pc_gpu_unlock();
  return n;
}

uint64_t pc_capture_failed_launches(void) {
  pc_gpu_lock();
  uint64_t n = pc_cap.failed;
  pc_gpu_unlock();
  return n;
}

size_t pc_capture_contexts_since(uint64_t since, CUcontext *out, size_t cap) {
  size_t n = 0;
  pc_gpu_lock();
  for (size_t i = 0; i < pc_cap.nctxs; i++) {
    const pc_ctxent *c = &pc_cap.ctxs[i];
    if (!c->alive || c->last_launch <= since) continue;
    int dup = 0; /* one context may have several entries (new uid) */
    for (size_t j = 0; j < n && j < cap; j++) dup |= out[j] == c->ctx;
    if (dup) continue;
    if (n < cap) out[n] = c->ctx;
    n++;
  }
  pc_gpu_unlock();
  return n;
}

void pc_capture_context_dead(CUcontext ctx) {
  pc_gpu_lock();
  pc_ctx_mark_dead(ctx);
  pc_gpu_unlock();
}

size_t pc_capture_pending(uint32_t id) {
  size_t n = 0;
  pc_gpu_lock();
  for (size_t i = 0; i < pc_cap.launches.cap; i++) {
    const pc_launch *e = &pc_cap.launches.e[i];
    if ((e->flags & PC_L_USED) && !(e->flags & PC_L_GRAPH) && e->region == id) n++;
  }
  pc_gpu_unlock();
  return n;
}

size_t pc_capture_purge(uint32_t id) {
  size_t missing = 0;
  pc_gpu_lock();
  pc_ltab *t = &pc_cap.launches;
  size_t keep = 0;
  for (size_t i = 0; i < t->cap; i++) {
    pc_launch *e = &t->e[i];
    if (!(e->flags & PC_L_USED)) continue;
    if (e->region == id) {
      if (!(e->flags & PC_L_GRAPH)) missing++;
      e->flags = 0;
    } else {
      keep++;
    }
  }
  if (keep != t->n) { /* holes break the probe chains: rehash what stays */
    pc_launch *old = t->e;
    size_t cap = t->cap;
    pc_launch *e = calloc(cap, sizeof *e);
    if (e) {
      for (size_t i = 0; i < cap; i++)
        if (old[i].flags & PC_L_USED) pc_ltab_put_raw(e, cap, &old[i]);
      free(old);
      t->e = e;
    } else { /* no memory for a copy: reinsert in place, slot by slot */
      for (size_t i = 0; i < cap; i++) {
        if (!(old[i].flags & PC_L_USED)) continue;
        pc_launch x = old[i];
        old[i].flags = 0;
        pc_ltab_put_raw(old, cap, &x);
      }
    }
    t->n = keep;
  }
  pc_gpu_unlock();
  return missing;
}

/* ---- activity join ------------------------------------------------------------------------- */

int pc_capture_region_open_locked(uint32_t id) { return pc_region_is_open(id); }
int pc_capture_any_region_locked(void) { return pc_cap.nopen > 0; }

int pc_capture_join_kernel(const pc_kernel_record *rec, uint32_t *group, uint32_t *region) {
  size_t at = pc_ltab_find(&pc_cap.launches, rec->correlation_id);
  if (at == SIZE_MAX) return 0;
  const pc_launch e = pc_cap.launches.e[at];
  if (!pc_region_is_open(e.region)) {
    pc_ltab_erase(&pc_cap.launches, at);
    return 0;
  }
  uint32_t sig, bits = 0;
  if (e.flags & PC_L_GRAPH) {
    /* One correlation id for all of the graph's kernels: keep the entry
     * until the region ends, and find each kernel's signature by name. */
    if (!rec->name) return 0;
    uint32_t name = pc_intern(rec->name);
    if (name == PC_NONE) return 0;
    sig = pc_sig_lookup(name, e.a, rec->grid, rec->block, rec->dynamic_smem);
    if (sig == PC_NONE) return 0;
    pc_sig *s = &pc_cap.sigs[sig];
    s->seen_graph = 1;
    if (!s->f) s->f = pc_cap.names[name].f_last;
    pc_sig_enter_region(s, e.region);
    if (!s->prof_count) s->np = PC_NP_GRAPH;
  } else {
    sig = e.a;
    if (e.flags & PC_L_PROFILED) bits |= PC_SPAN_PROFILED;
    pc_ltab_erase(&pc_cap.launches, at);
    if (sig >= pc_cap.nsigs) return 0;
  }
  pc_sig *s = &pc_cap.sigs[sig];
  if (!s->rec_valid) {
    s->rec_valid = 1;
    s->rec_regs = rec->registers;
    s->rec_static = rec->static_smem;
    s->rec_local = rec->local_per_thread;
  }
  *group = (sig << 3) | bits;
  *region = e.region;
  return 1;
}

/* ---- signatures ---------------------------------------------------------------------------- */

void pc_capture_short_name(const char *mangled, char *out, size_t len) {
  if (!out || !len) return;
  if (!mangled || !*mangled) {
    snprintf(out, len, "%s", "(unknown)");
    return;
  }
  char *dem = pc_demangle(mangled);
  pc_kernel_short_name(dem ? dem : mangled, out, len);
  free(dem);
}

int pc_capture_sig_get(uint32_t sig, pc_sig_info *out) {
  memset(out, 0, sizeof *out);
  pc_gpu_lock();
  if (sig >= pc_cap.nsigs) {
    pc_gpu_unlock();
    return -1;
  }
  pc_sig *s = &pc_cap.sigs[sig];
  pc_name *n = &pc_cap.names[s->name];
  if (!n->short_name && n->mangled) {
    char buf[1024];
    pc_capture_short_name(n->mangled, buf, sizeof buf);
    n->short_name = pc_strdup(buf);
  }
  out->mangled = n->mangled;
  out->name = n->short_name ? n->short_name : n->mangled;
  out->f = s->f;
  out->ctx = s->ctx < pc_cap.nctxs ? pc_cap.ctxs[s->ctx].ctx : NULL;
  memcpy(out->grid, s->grid, sizeof out->grid);
  memcpy(out->block, s->block, sizeof out->block);
  for (int i = 0; i < 3; i++) out->cluster[i] = s->cluster[i] ? s->cluster[i] : 1;
  out->dynamic_smem = s->smem;
  out->seen_direct = s->seen_direct;
  out->seen_graph = s->seen_graph;
  out->not_profiled = (pc_not_profiled)s->np;
  out->rec_valid = s->rec_valid;
  out->rec_registers = s->rec_regs;
  out->rec_static_smem = s->rec_static;
  out->rec_local = s->rec_local;
  out->attr_state = (pc_attr_state)s->attr_state;
  out->attr = s->attr;
  out->attr_reason = s->attr_reason;
  pc_gpu_unlock();
  return 0;
}

void pc_capture_sig_set_attr(uint32_t sig, pc_attr_state st, const pc_attributes *a, const char *reason) {
  pc_gpu_lock();
  if (sig < pc_cap.nsigs) {
    pc_sig *s = &pc_cap.sigs[sig];
    s->attr_state = (uint8_t)st;
    if (a) s->attr = *a;
    free(s->attr_reason);
    s->attr_reason = reason ? pc_strdup(reason) : NULL;
  }
  pc_gpu_unlock();
}

void pc_capture_sig_set_name(uint32_t sig, const char *mangled) {
  if (!mangled) return;
  pc_gpu_lock();
  if (sig < pc_cap.nsigs) {
    pc_name *n = &pc_cap.names[pc_cap.sigs[sig].name];
    if (!n->mangled) {
      n->mangled = pc_strdup(mangled);
      free(n->short_name);
      n->short_name = NULL;
    }
  }
  pc_gpu_unlock();
}

uint32_t pc_capture_profiled_sig(uint32_t correlation_id, uint32_t region, uint64_t *exit_ts) {
  uint32_t sig = PC_NONE;
  if (exit_ts) *exit_ts = 0;
  pc_gpu_lock();
  for (size_t i = 0; i < pc_cap.nprof; i++)
    if (pc_cap.prof[i].corr == correlation_id && pc_cap.prof[i].region == region) {
      sig = pc_cap.prof[i].sig;
      if (exit_ts) *exit_ts = pc_cap.prof[i].exit_ts;
      break;
    }
  pc_gpu_unlock();
  return sig;
}

void pc_capture_profiled_purge(uint32_t region) {
  pc_gpu_lock();
  size_t k = 0;
  for (size_t i = 0; i < pc_cap.nprof; i++)
    if (pc_cap.prof[i].region != region) pc_cap.prof[k++] = pc_cap.prof[i];
  pc_cap.nprof = k;
  pc_gpu_unlock();
}

/* ---- injection hooks ---------------------------------------------------------------------- */

void pc_capture_set_context_hooks(pc_capture_ctx_fn created, pc_capture_ctx_fn destroying) {
  atomic_store(&pc_ctx_created_fn, created);
  atomic_store(&pc_ctx_destroying_fn, destroying);
}

/* Push/pop ranges only; start/end ranges (nvtxRangeStart*, which may end on
 * another thread) are not regions. */
static const CUpti_CallbackId pc_nvtx_ids[] = {
    CUPTI_CBID_NVTX_nvtxRangePushA,        CUPTI_CBID_NVTX_nvtxRangePushW,     CUPTI_CBID_NVTX_nvtxRangePushEx,
    CUPTI_CBID_NVTX_nvtxRangePop,          CUPTI_CBID_NVTX_nvtxDomainRangePushEx,
    CUPTI_CBID_NVTX_nvtxDomainRangePop,
};

perfcheck_status pc_capture_set_nvtx_hook(pc_capture_nvtx_fn fn, char *msg, size_t msglen) {
  if (msg && msglen) msg[0] = '\0';
  if (!pc_cap.subscribed || pc_cupti_dead) {
    if (msg) snprintf(msg, msglen, "NVTX callbacks: the capture is not started");
    return PERFCHECK_ERROR_CUPTI_UNAVAILABLE;
  }
  if (!fn) atomic_store(&pc_nvtx_fn, NULL);
  for (size_t i = 0; i < sizeof pc_nvtx_ids / sizeof pc_nvtx_ids[0]; i++) {
    CUptiResult r = pc_cupti.cuptiEnableCallback(fn ? 1 : 0, pc_cap.sub, CUPTI_CB_DOMAIN_NVTX, pc_nvtx_ids[i]);
    if (r != CUPTI_SUCCESS && fn) {
      if (msg) snprintf(msg, msglen, "cuptiEnableCallback (NVTX): %s (%d)", pc_cupti_text(r), (int)r);
      for (size_t j = 0; j < i; j++) pc_cupti.cuptiEnableCallback(0, pc_cap.sub, CUPTI_CB_DOMAIN_NVTX, pc_nvtx_ids[j]);
      return PERFCHECK_ERROR_CUPTI_UNAVAILABLE;
    }
  }
  if (fn) atomic_store(&pc_nvtx_fn, fn);
  return PERFCHECK_OK;
}

void pc_capture_set_counter_gate(int (*gate)(void)) { atomic_store(&pc_gate_fn, gate); }

int pc_capture_profiled_known(uint32_t correlation_id) {
  int known = 0;
  pc_gpu_lock();
  for (size_t i = 0; i < pc_cap.nprof && !known; i++) known = pc_cap.prof[i].corr == correlation_id;
  pc_gpu_unlock();
  return known;
}
