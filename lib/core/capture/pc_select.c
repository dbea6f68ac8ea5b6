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
    s->np = PC_NP_NONE;
  }
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
    s->prof_run = run;
    p->profiled++;
    s->np = PC_NP_NONE;
    return PC_SEL_REST;
  }
  if (s->prof_count >= p->per_signature * groups) {
    if (s->prof_run != run) s->np = PC_NP_EARLIER_RUN;
    return 0;
  }
  if (p->launch_count && p->profiled >= p->launch_count) {
    if (!s->prof_count) s->np = PC_NP_LIMIT;
    return 0;
  }
  s->prof_count++;
  s->prof_run = run;
  p->profiled++;
  s->np = PC_NP_NONE;
  return PC_SEL_ROTATE;
}
