/*
 * pc_sigtab.h: the launch capture's tables of kernel names, launch
 * signatures and contexts (pc_sigtab.c), and the selection policy that picks
 * the launches to profile (pc_select.c).  Pure: lib/gpu/pc_capture.c owns one
 * pc_sigtab and one pc_select and holds them under its gpu lock; nothing
 * here locks or calls CUDA (contexts and function handles are opaque
 * pointers), so the tables are tested on a CPU (tests/unit/test_sigtab.c).
 *
 *   names       one per mangled kernel name (interned);
 *   functions   one per compiled function: found by the handle a launch
 *               passes (a CUfunction or CUkernel) and its name, so that two
 *               modules' kernels of one name (a CuPy RawKernel compiled
 *               twice, a Triton function recompiled with other constexprs)
 *               are two functions.  Handles of one function (a CUkernel and
 *               its per-context CUfunction) are joined into one group once
 *               the driver says so (pc_sigtab_func_resolved, at a region's
 *               end): the group's root is their identity;
 *   signatures  one per (function, context, grid, block, dynamic shared
 *               memory): a report entry's identity;
 *   contexts    one entry per (CUcontext, unique id): a context re-created at
 *               the address of a destroyed one gets a new entry;
 *   graphs      a CUDA graph exec launched on a context is a signature too
 *               (is_graph, keyed by the exec's id): its launches carry counters
 *               for the whole graph, and its report entry
 *               is the graph's.  It has a name entry of its own, without a
 *               string, so that names[s->name] is valid for every signature.
 */
#ifndef PC_SIGTAB_H
#define PC_SIGTAB_H

#include <stddef.h>
#include <stdint.h>

#include "model/pc_core.h"
#include "capture/pc_launchlog.h"
#include "base/pc_regex.h"
#include "model/pc_snapshot.h"

typedef struct pc_name {
  char *mangled;                /* NULL until known */
  uint32_t func_last;           /* the function of its latest direct launch; PC_NONE none */
  signed char regex;            /* -1 unknown, 0/1: kernel_regex's verdict on its short name */
  signed char comm;             /* -1 unknown, 0/1: a communication kernel (pc_symbol_is_communication) */
} pc_name;

/* A compiled function, as the launches' handles show it.  A handle is
 * found again while its launches carry the same name: an address that a
 * module unload freed and another kernel's handle reuses is another function
 * when the name differs (a function of the same name loaded at the same
 * address is taken for the old one: CUPTI names the unloaded module by its
 * id only, so the handles it owned cannot be told). */
typedef struct pc_func {
  void *f;                      /* the handle (NULL once forgotten: a module unload) */
  const char *sym_seen;         /* the last symbol string found equal to its name (pointer memo) */
  uint32_t name;                /* index into names */
  uint32_t root;                /* its group's function: itself, or the function it was found to be */
} pc_func;

typedef enum pc_attr_state { PC_ATTR_NONE = 0, PC_ATTR_OK, PC_ATTR_UNAVAILABLE } pc_attr_state;

typedef struct pc_sig {
  uint32_t name, ctx;           /* indexes into names and ctxs */
  uint32_t func;                /* index into funcs (its group's root when made); PC_NONE for a graph */
  unsigned grid[3], block[3], smem;
  unsigned cluster[3];          /* 0s when not a cluster launch */
  void *f;                      /* handle of the latest launch; NULL for a graph-only kernel */
  uint32_t prof_region, prof_count; /* the selection's state per region key (pc_open_region.key) */
  uint32_t prof_run;            /* the region (run) of its last profiled launch */
  /* Rotation (not graphs): the groups its launches collected in this round
   * (bit g: group g) and the group its latest selected launch collects. */
  uint32_t rot_mask;
  uint32_t rot_turn;
  uint32_t rot_epoch, rot_hits;  /* launches that had the current group (pc_select.cur_epoch) */
  uint32_t seen_run;            /* the region (run) it was last launched in */
  uint8_t np;                   /* pc_not_profiled, for the region it was last launched in */
  uint8_t seen_direct, seen_graph, seen_captured, attr_state, rec_valid, is_kernel;
  unsigned rec_regs, rec_static, rec_local; /* from its first activity record */
  uint32_t graph_id;            /* a graph kernel: the graph and node of its first record (0: none);
                                   a graph signature: its kernels' graph id */
  uint64_t graph_node;
  uint8_t is_graph;             /* a CUDA graph exec's launches (pc_sigtab_graph), not a kernel */
  uint8_t graph_comm;           /* is_graph: a communication kernel (NCCL's) was among its kernels */
  uint64_t graph_exec;          /* is_graph: the key it was made with (CUPTI's exec id, else the handle) */
  pc_attributes attr;
  char *attr_reason;
} pc_sig;

typedef struct pc_ctxent {
  void *ctx;                    /* a CUcontext */
  uint32_t uid;
  int alive;
  uint64_t last_launch;         /* launch sequence number of its latest region launch */
} pc_ctxent;

typedef struct pc_sigtab {
  pc_name *names;
  size_t nnames, capnames;
  pc_map names_by_str;
  pc_func *funcs;
  size_t nfuncs, capfuncs;
  pc_map funcs_by_ptr;          /* handle -> its latest function */
  pc_map funcs_by_canon;        /* a CUfunction the driver resolved a handle to -> that function */
  pc_sig *sigs;
  size_t nsigs, capsigs;
  pc_map sigs_by_key;
  pc_map graphs_by_key;         /* (exec key, context) -> graph signature */
  pc_ctxent *ctxs;
  size_t nctxs, capctxs;
} pc_sigtab;

/* The name id of a mangled name, created at first sight; PC_NONE on OOM. */
uint32_t pc_sigtab_intern(pc_sigtab *t, const char *mangled);
/* The function (its group's root) of a launched handle, created at first
 * sight (symbol: CUPTI's symbolName, may be NULL: a name without a string
 * then, or whatever name the handle had); it becomes its name's latest
 * function.  A known handle costs one lookup by pointer (and a strcmp only
 * when CUPTI hands another symbol string).  PC_NONE on OOM. */
uint32_t pc_sigtab_handle(pc_sigtab *t, void *f, const char *symbol);
/* The function a kernel record of name `name` is taken for (a graph's
 * kernel: the record names no handle): the name's latest launched function,
 * else one without a handle made for the name; PC_NONE on OOM. */
uint32_t pc_sigtab_name_func(pc_sigtab *t, uint32_t name);
/* The driver resolved function `func`'s handle to the CUfunction `canon`
 * (a CUkernel: its CUfunction in the launch's context; a CUfunction:
 * itself): functions of one name resolved to the same CUfunction, or whose
 * handle is it, become one group, and later launches of any of their
 * handles find the group's signatures. */
void pc_sigtab_func_resolved(pc_sigtab *t, uint32_t func, void *canon);
/* The report's identity of a signature's function: 1 + its group's root,
 * the same for every handle of one compiled function; 0 for a graph. */
uint32_t pc_sigtab_function_id(const pc_sigtab *t, uint32_t sig);
/* The signature id of (function, ctx, grid, block, smem), created at first
 * sight with unknown attributes; PC_NONE on OOM or past `max` signatures. */
uint32_t pc_sigtab_sig_func(pc_sigtab *t, uint32_t func, uint32_t ctx, const unsigned grid[3],
                            const unsigned block[3], unsigned smem, uint32_t max);
/* The same for the function of name `name` (pc_sigtab_name_func). */
uint32_t pc_sigtab_sig(pc_sigtab *t, uint32_t name, uint32_t ctx, const unsigned grid[3], const unsigned block[3],
                       unsigned smem, uint32_t max);
/* The graph signature of graph exec `exec` (CUPTI's graph exec id, never
 * reused in a process; the handle where CUPTI cannot say) launched on
 * context entry `ctx`, created at first sight (is_graph, grid and block 0,
 * a name entry without a string); PC_NONE on OOM or past `max` signatures. */
uint32_t pc_sigtab_graph(pc_sigtab *t, uint64_t exec, uint32_t ctx, uint32_t max);
/* The index of a live context entry, created at first sight; PC_NONE on OOM. */
uint32_t pc_sigtab_ctx(pc_sigtab *t, void *ctx, uint32_t uid);
/* Marks every entry of ctx dead (destroyed, or its synchronization failed). */
void pc_sigtab_ctx_dead(pc_sigtab *t, void *ctx);
/* kernel_regex on the name's short demangled name, as the report names the
 * kernel ("scaleAdd<4>"); decided once per name.  NULL regex: 1. */
int pc_sigtab_name_matches(pc_sigtab *t, uint32_t name, const pc_regex *re);
/* Whether the name is a communication kernel's (NCCL's, pc_core.h); decided
 * once per name, when its symbol is known (0 while it is not). */
int pc_sigtab_name_is_communication(pc_sigtab *t, uint32_t name);
/* A module is going: every handle may dangle, so signatures and functions
 * forget them, except CUkernels of signatures whose attributes are still to
 * be read.  Functions stay findable by handle and name (pc_func). */
void pc_sigtab_forget_handles(pc_sigtab *t);
void pc_sigtab_free(pc_sigtab *t);

/* ---- the selection policy (pc_select.c) ----------------------------------------- */

/* ncu's -k (kernel_regex), -s (launch_skip), -c (launch_count), then the
 * first per_signature launches of each signature in each region, so that
 * every report entry can get counters. */
typedef struct pc_select {
  const pc_regex *kernel_regex;  /* NULL: every kernel */
  uint64_t launch_skip;
  uint64_t launch_count;        /* 0: no limit */
  unsigned per_signature;       /* >= 1 */
  uint64_t matched, profiled;   /* running counts */
  /* Rotation: a signature's set takes this many profiled
   * launches (one group each); 0: kernel replay, one launch per set. */
  unsigned rotate_groups;
  /* Graph launches rotate whatever the replay mode: a
   * graph exec's k-th profiled launch collects group k of this many (the
   * set's one-pass groups); 0: not known yet or not to be had, then graph
   * launches are not profiled (np PC_NP_GRAPH_GROUPS). */
  unsigned graph_groups;
  /* Rotation: the group the counter layer was last configured for.  A
   * launch collects it when its signature still lacks it, and only
   * otherwise (pc_select.c, pc_select_group) the next group it lacks, which
   * becomes current: a new config costs CUPTI's Start about 150 ms with
   * PyTorch loaded (docs/cupti.md), so the config changes about once a
   * loop iteration, not at every launch of another signature. */
  unsigned cur_group;
  uint32_t cur_epoch;           /* +1 at each change of cur_group */
  /* The loop step's head (pc_select.c, pc_select_group): 1 + the signature
   * whose launch set the current group (or the first rotated decision),
   * 0 none; head_gap: another signature's rotated decision came since the
   * head's last launch; head_imm: the head's launches in a row without one;
   * head_waits: launches that waited since the group was set. */
  uint32_t head_sig;
  uint32_t head_gap, head_imm, head_waits;
} pc_select;

/* Resets a signature's per-region state when it is first seen under region
 * key `key`. */
void pc_select_enter_region(pc_sig *s, uint32_t key);
/* Whether to profile this launch of signature `sig` in region `run`, whose
 * key is `key` (runs of one region name share a key: a signature profiled
 * per_signature times in an earlier run of the name is not profiled again,
 * and its np says PC_NP_EARLIER_RUN).  `closed`
 * says why no launch may be profiled now (PC_NP_CAPTURE: a stream capture is
 * open; PC_NP_NVTX: outside the counter gate), PC_NP_NONE otherwise.
 * Updates the counts and the signature's reason (np) as ncu would. */
/* Returns 0 (not profiled), PC_SEL_ROTATE (with rotation: the launch
 * collects its turn, pc_select_turn; without: the whole set by kernel
 * replay) or PC_SEL_REST: a signature whose rotation an earlier
 * run of the region name left short of its groups (launched fewer times
 * than the set has groups) gets the whole set by kernel replay at its first
 * launch of a later run, and its turn count moves to the next full round.
 * A graph signature (is_graph) always rotates, over graph_groups, and never
 * gets PC_SEL_REST (a graph launch cannot be replayed): a later run of the
 * region name goes on with the next group.  kernel_regex selects kernels by
 * name; a graph launch's counters cover all of its kernels, so under a
 * kernel filter graph launches are not profiled (np PC_NP_FILTERED).  A
 * graph whose kernel records showed a communication kernel (graph_comm,
 * set by the collector's join) is not profiled again (np
 * PC_NP_COMMUNICATION): the range waits for its peers. */
enum { PC_SEL_ROTATE = 1, PC_SEL_REST = 2 };
int pc_select_decide(pc_select *p, pc_sigtab *t, uint32_t sig, uint32_t run, uint32_t key, pc_not_profiled closed);
/* The turn of a launch pc_select_decide just selected (PC_SEL_ROTATE): with
 * rotation, the group it collects (a kernel: the group chosen as
 * pc_select.cur_group says; a graph exec: its prof_count - 1, the k-th
 * launch collecting group k); -1 without rotation (kernel replay of the
 * whole set) and for PC_SEL_REST. */
long pc_select_turn(const pc_select *p, const pc_sig *s, int decided);
/* A selected launch that was not profiled after all (not recorded, the
 * counter layer refused it, the launch failed): its count and its group
 * are given back. */
void pc_select_undo(pc_sig *s);

#endif /* PC_SIGTAB_H */
