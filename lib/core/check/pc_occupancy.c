/* The occupancy model: how many blocks of a kernel fit on one SM, and which
 * resource sets that number.  It follows NVIDIA's header-only calculator,
 * cuda_occupancy.h (CUDA 13.0), cudaOccMaxActiveBlocksPerMultiprocessor, with
 * the default carveout and no partitioned global caching:
 *
 *   warps      floor(max warps per SM / ceil(block / warp size));
 *   blocks     the device's max blocks per SM;
 *   registers  registers per warp = regs/thread x warp size, rounded up to
 *              the allocation unit (256); the register file is split over the
 *              SM's sub-partitions (4, the warp allocation granularity), so
 *              warps per SM = floor(regs per SM / granularity / regs per warp)
 *              x granularity, and blocks = that / warps per block.  A block
 *              whose registers, with its warps rounded up to the granularity,
 *              exceed the per-block register limit does not launch;
 *   shared mem per block = static + dynamic + the driver-reserved amount,
 *              rounded up to the allocation unit (256 B to sm_7x, 128 B from
 *              sm_8x); blocks = floor(smem per SM / that).  Over the per-block
 *              limit (opt-in limit, plus the reserved amount from sm_8x) the
 *              block does not launch.
 *
 * A resource the kernel does not use at all (no registers; no shared memory
 * and nothing reserved, as on Turing) allows INT_MAX blocks.
 *
 * Tie rule for `binding`: the limiter is the resource whose limit equals the
 * minimum; when several do, the first in the order registers, shared memory,
 * warps, blocks is named (the first two are what a programmer changes in the
 * kernel, the last two are set by the launch).  At 100% theoretical occupancy
 * the name is reported but means nothing: the checklist reads it only when
 * theoretical occupancy is below 100%. */
#include <limits.h>

#include "model/pc_core.h"
#include "check/pc_check.h"

const char *pc_limiter_name(pc_limiter l) {
  switch (l) {
    case PC_LIMIT_WARPS:
      return "warps";
    case PC_LIMIT_BLOCKS:
      return "blocks";
    case PC_LIMIT_REGISTERS:
      return "registers";
    case PC_LIMIT_SHARED_MEMORY:
      return "shared_memory";
    default:
      return "none";
  }
}

static long pc_round_up(long x, long unit) { return unit > 0 ? (x + unit - 1) / unit * unit : x; }

static int pc_occ_fail(pc_occupancy *out) {
  out->limit_warps = out->limit_blocks = out->limit_registers = out->limit_shared_mem = 0;
  out->blocks_per_sm = 0;
  out->binding = PC_LIMIT_NONE;
  out->warps_per_sm = 0;
  out->theoretical_pct = PC_NULL;
  return -1;
}

int pc_occupancy_compute(const pc_device *d, const pc_occupancy_input *in, pc_occupancy *out) {
  if (!out) return -1;
  if (!d || !in) return pc_occ_fail(out);
  const int warp = d->warp_size;
  if (warp <= 0 || d->max_threads_per_sm <= 0 || d->max_blocks_per_sm <= 0 || d->max_regs_per_sm <= 0 ||
      d->max_smem_per_sm < 0)
    return pc_occ_fail(out);
  if (in->block_threads <= 0 || in->registers_per_thread < 0 || in->static_smem < 0 || in->dynamic_smem < 0)
    return pc_occ_fail(out);
  if (d->max_threads_per_block > 0 && in->block_threads > d->max_threads_per_block) return pc_occ_fail(out);

  /* Granularities the driver does not report: from the compute capability
   * (pc_device_fill_granularities), and unknown without it. */
  pc_device g = *d;
  pc_device_fill_granularities(&g);
  if (g.reg_alloc_unit <= 0 || g.warp_alloc_granularity <= 0 || g.smem_alloc_unit <= 0 ||
      g.reserved_smem_per_block < 0)
    return pc_occ_fail(out);

  const long warps_per_block = (in->block_threads + warp - 1) / warp;
  const long max_warps_per_sm = d->max_threads_per_sm / warp;

  /* Warps. */
  long lim_warps = max_warps_per_sm / warps_per_block;

  /* Blocks. */
  long lim_blocks = d->max_blocks_per_sm;

  /* Registers.  sm_3x-6x allow 255 per thread, sm_7x on 256 (cuda_occupancy.h). */
  long lim_regs;
  const int max_regs_per_thread = (g.cc_major >= 7 || g.cc_major < 0) ? 256 : 255;
  if (in->registers_per_thread > max_regs_per_thread) return pc_occ_fail(out);
  const long regs_per_warp = pc_round_up((long)in->registers_per_thread * warp, g.reg_alloc_unit);
  if (regs_per_warp == 0) {
    lim_regs = INT_MAX;
  } else {
    const long regs_per_block_limit = d->max_regs_per_block > 0 ? d->max_regs_per_block : d->max_regs_per_sm;
    /* The hardware check assumes the block's warps are spread over every
     * sub-partition: warps rounded up to the granularity. */
    if (regs_per_warp * pc_round_up(warps_per_block, g.warp_alloc_granularity) > regs_per_block_limit ||
        regs_per_warp * warps_per_block > regs_per_block_limit)
      return pc_occ_fail(out);
    const long regs_per_partition = d->max_regs_per_sm / g.warp_alloc_granularity;
    const long warps_by_regs = regs_per_partition / regs_per_warp * g.warp_alloc_granularity;
    lim_regs = warps_by_regs / warps_per_block;
  }

  /* Shared memory. */
  long lim_smem;
  const long smem_per_block =
      pc_round_up((long)in->static_smem + in->dynamic_smem + g.reserved_smem_per_block, g.smem_alloc_unit);
  {
    long per_block_limit = d->max_smem_per_block_optin > 0 ? d->max_smem_per_block_optin
                           : d->max_smem_per_block > 0     ? d->max_smem_per_block
                                                           : d->max_smem_per_sm;
    if (g.cc_major >= 8) per_block_limit += g.reserved_smem_per_block;
    if (smem_per_block > per_block_limit) return pc_occ_fail(out);
  }
  if (smem_per_block == 0)
    lim_smem = INT_MAX;
  else
    lim_smem = d->max_smem_per_sm / smem_per_block;

  /* Ties go to the first in the order blocks, warps, registers, shared
   * memory, as in the ncu reader (pc_ncu_csv.c): the hardware limits that
   * the block size sets before the resources. */
  long n = lim_blocks;
  pc_limiter binding = PC_LIMIT_BLOCKS;
  if (lim_warps < n) n = lim_warps, binding = PC_LIMIT_WARPS;
  if (lim_regs < n) n = lim_regs, binding = PC_LIMIT_REGISTERS;
  if (lim_smem < n) n = lim_smem, binding = PC_LIMIT_SHARED_MEMORY;
  if (n <= 0) return pc_occ_fail(out);

  out->limit_warps = (int)lim_warps;
  out->limit_blocks = (int)lim_blocks;
  out->limit_registers = (int)lim_regs;
  out->limit_shared_mem = (int)lim_smem;
  out->blocks_per_sm = (int)n;
  out->binding = binding;
  out->warps_per_sm = (int)(n * warps_per_block);
  out->theoretical_pct = max_warps_per_sm > 0 ? 100.0 * (double)(n * warps_per_block) / (double)max_warps_per_sm
                                              : PC_NULL;
  return 0;
}

/* ---- Launch attributes from the model and the driver's answer ---------------- */

static double pc_limit(int v) { return v == INT_MAX ? PC_NULL : (double)v; }

void pc_attributes_compute(const pc_device *d, int regs, int static_smem, int local, int max_threads,
                           int driver_blocks, const unsigned grid[3], const unsigned block[3], unsigned dyn,
                           pc_attributes *a) {
  pc_attributes_init(a);
  a->registers_per_thread = regs;
  a->static_smem = static_smem;
  a->dynamic_smem = dyn;
  a->local_bytes_per_thread = local;
  a->max_threads_per_block = max_threads > 0 ? max_threads : PC_NULL;
  const double threads = (double)block[0] * block[1] * block[2];
  pc_occupancy_input in = {(int)(threads > INT_MAX ? INT_MAX : threads), regs, static_smem, (int)dyn};
  pc_occupancy m;
  const int model_ok = d && pc_occupancy_compute(d, &in, &m) == 0;
  if (model_ok) {
    /* A resource the kernel does not use limits nothing (INT_MAX): null. */
    a->limit_warps = pc_limit(m.limit_warps);
    a->limit_blocks = pc_limit(m.limit_blocks);
    a->limit_registers = pc_limit(m.limit_registers);
    a->limit_shared_mem = pc_limit(m.limit_shared_mem);
    a->binding = m.binding;
  }
  int blocks = driver_blocks >= 0 ? driver_blocks : (model_ok ? m.blocks_per_sm : -1);
  if (driver_blocks >= 0 && model_ok && m.blocks_per_sm != driver_blocks) a->model_blocks_per_sm = m.blocks_per_sm;
  if (blocks < 0) return;
  a->blocks_per_sm = blocks;
  const int warp = d && d->warp_size > 0 ? d->warp_size : 32;
  const double warps_per_block = (threads + warp - 1) / warp;
  const double wpb = (double)(long long)warps_per_block; /* ceil, as an integer */
  a->warps_per_sm = blocks * wpb;
  if (d && d->max_threads_per_sm > 0) a->theoretical_occupancy_pct = 100.0 * a->warps_per_sm / (d->max_threads_per_sm / warp);
  const double grid_blocks = (double)grid[0] * grid[1] * grid[2];
  if (blocks > 0 && d && d->sm_count > 0) a->waves_per_sm = grid_blocks / ((double)blocks * d->sm_count);
}
