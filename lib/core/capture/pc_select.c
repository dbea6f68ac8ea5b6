/* Which launches are range-profiled (pc_sigtab.h, "the selection policy"):
 * ncu's -k, -s, -c, then per_signature launches of each signature in each
 * region name (every run of one name shares them).  Runs inside launch callbacks, under the capture's gpu lock.
 * Communication kernels (NCCL's) are never selected.  A graph exec's
 * launches (is_graph) rotate over graph_groups in every replay mode. */
#include "capture/pc_sigtab.h"

void pc_select_enter_region(pc_sig *s, uint32_t key) {
  if (s->prof_region != key) {
    s->prof_region = key;
    s->prof_count = 0;
    s->prof_run = 0;
    s->rot_mask = 0;
    s->rot_turn = 0;
    s->np = PC_NP_NONE;
  }
}

/* Rotation's group for a launch of kernel signature s (groups groups): the
 * current one while s lacks it, so the config (a fresh profiler object:
 * about 150 ms of CUPTI's first Start with PyTorch loaded, docs/cupti.md)
 * changes about once a loop step.  The step is told by its head: the signature
 * whose launch set the current group (at first, the first rotated
 * decision).  A launch whose signature has the current group waits (not
 * profiled; 0 returned) unless
 *   - it is the head, back after another signature's launch and after a
 *     launch that waited (a step has passed: the head of H X H Y, back
 *     before anything waited, is still in its first step), or back twice
 *     in a row with nothing between (a loop of one kernel: R R R ...), or
 *   - its signature has had the current group four times since it was set
 *     (the head never came back: a one-off kernel set it; a signature
 *     launched two or three times a step does not move the config on);
 * then it takes the next group it lacks, which becomes current, and it is
 * the new head.  A signature launched twice in a row inside a longer step
 * (B B in A B B C) so no longer moves the config on at its second launch:
 * on the H200 (a 300-step PyTorch step, PERFCHECK_PROGRESS=2;
 * docs/measurements/2026-12-02-h200-e)
 * that rule ("follows itself") made 12 config changes where the step
 * needed 5 groups; the head without the wait made 7 (a GEMM signature
 * launched twice a step, H X H).  unit.sigtab: 5 changes for A G B G C
 * over 6 groups; 4 for a one-off pair N N then A B B C D D E F over 5
 * groups, where "follows itself" made 9; 4 for H X H Y over 5.  More than
 * 32 groups: the k-th launch collects group k (no mask).  1: profile it,
 * with s->rot_turn set. */
static int pc_select_group(pc_select *p, pc_sig *s, uint32_t sig, uint32_t groups) {
  if (groups > 32) {
    s->rot_turn = s->prof_count % groups;
    return 1;
  }
  const uint32_t full = groups == 32 ? 0xffffffffu : (1u << groups) - 1;
  if ((s->rot_mask & full) == full) s->rot_mask = 0; /* a new round (per_signature > 1) */
  uint32_t g = p->cur_group % groups;
  int head_due = 0;
  if (!p->head_sig) {
    p->head_sig = sig + 1;
    p->head_gap = p->head_imm = 0;
  } else if (p->head_sig == sig + 1) {
    head_due = (p->head_gap && p->head_waits) || ++p->head_imm >= 2;
    p->head_gap = 0;
  } else {
    p->head_gap = 1;
    p->head_imm = 0;
  }
  if (s->rot_mask & (1u << g)) {
    if (s->rot_epoch != p->cur_epoch) {
      s->rot_epoch = p->cur_epoch;
      s->rot_hits = 0;
    }
    if (++s->rot_hits < 4 && !head_due) {
      p->head_waits++;
      return 0;
    }
    for (uint32_t i = 1; i < groups; i++) {
      const uint32_t h = (g + i) % groups;
      if (!(s->rot_mask & (1u << h))) {
        g = h;
        break;
      }
    }
    p->cur_group = g;
    p->cur_epoch++;
    p->head_sig = sig + 1;
    p->head_gap = p->head_imm = p->head_waits = 0;
  }
  s->rot_mask |= 1u << g;
  s->rot_turn = g;
  return 1;
}

long pc_select_turn(const pc_select *p, const pc_sig *s, int decided) {
  if (decided != PC_SEL_ROTATE) return -1;
  if (s->is_graph) return (long)s->prof_count - 1;
  return p->rotate_groups ? (long)s->rot_turn : -1;
}

void pc_select_undo(pc_sig *s) {
  if (!s->prof_count) return;
  s->prof_count--;
  if (!s->is_graph && s->rot_turn < 32) s->rot_mask &= ~(1u << s->rot_turn);
}

int pc_select_decide(pc_select *p, pc_sigtab *t, uint32_t sig, uint32_t run, uint32_t key, pc_not_profiled closed) {
  pc_sig *s = &t->sigs[sig];
  pc_select_enter_region(s, key);
  /* A stream capture elsewhere may have joined this launch's stream through
   * an event, and the range profiler breaks a capture (seen on the H200);
   * PERFCHECK_NVTX: outside the named ranges, like ncu's --nvtx-include. */
  if (closed != PC_NP_NONE) {
    if (!s->prof_count) s->np = (uint8_t)closed;
    return 0;
  }
  /* A collective waits for its peers: under kernel replay it would run
   * again alone and could wait forever.  Never profiled, whatever -k says,
   * and not counted among -s/-c's matching launches. */
  if (pc_sigtab_name_is_communication(t, s->name) || (s->is_graph && s->graph_comm)) {
    if (!s->prof_count) s->np = PC_NP_COMMUNICATION;
    return 0;
  }
  if (s->is_graph && p->kernel_regex) { /* a graph's counters are all of its kernels' */
    if (!s->prof_count) s->np = PC_NP_FILTERED;
    return 0;
  }
  if (!pc_sigtab_name_matches(t, s->name, p->kernel_regex)) {
    if (!s->prof_count) s->np = PC_NP_FILTERED;
    return 0;
  }
  p->matched++;
  if (p->matched <= p->launch_skip) {
    if (!s->prof_count) s->np = PC_NP_SKIPPED;
    return 0;
  }
  if (s->is_graph && !p->graph_groups) { /* no one-pass groups: a graph launch cannot be profiled */
    if (!s->prof_count) s->np = PC_NP_GRAPH_GROUPS;
    return 0;
  }
  const uint32_t groups = s->is_graph ? p->graph_groups : p->rotate_groups ? p->rotate_groups : 1;
  if (groups > 1 && !s->is_graph && s->prof_count % groups && s->prof_run != run) {
    /* A rotation an earlier run left short: the rest, by kernel replay. */
    s->prof_count += groups - s->prof_count % groups;
    s->rot_mask = 0;
    s->prof_run = run;
    p->profiled++;
    s->np = PC_NP_NONE;
    return PC_SEL_REST;
  }
  if (s->prof_count >= p->per_signature * groups) {
    /* A head that has every group never reaches pc_select_group again: the
     * next rotated decision is the head. */
    if (groups > 1 && !s->is_graph && p->head_sig == sig + 1) p->head_sig = 0;
    if (s->prof_run != run) s->np = PC_NP_EARLIER_RUN;
    return 0;
  }
  if (p->launch_count && p->profiled >= p->launch_count) {
    if (!s->prof_count) s->np = PC_NP_LIMIT;
    return 0;
  }
  /* A launch waiting for the config to move on (pc_select_group) is not
   * profiled; its reason stays "none": a later launch collects it. */
  if (groups > 1 && !s->is_graph && !pc_select_group(p, s, sig, groups)) return 0;
  s->prof_count++;
  s->prof_run = run;
  p->profiled++;
  s->np = PC_NP_NONE;
  return PC_SEL_ROTATE;
}
