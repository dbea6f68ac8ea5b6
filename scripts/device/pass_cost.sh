#!/usr/bin/env bash
# pass_cost.sh BUILD OUTDIR: what one replayed pass costs, by metric: a pass
# costs what its counters' units cost (rotation's cold group, with DRAM, L2
# and L1TEX, far more than an SM group's; docs/measurements/2026-12-02-h200-e).
# Runs mystery --profile under perfcheck run with one-pass metric lists, each
# one unit's, and prints each list's launch+replay per launch (launches 2-4;
# the first carries CUPTI's first-Start cost) as "PASSCOST <list> <ms> ...".
# scripts/device/bench passes runs it.
set -u
BUILD=$1; O=$2; mkdir -p "$O"
lists=(
  gpu__time_duration.sum
  dram__bytes_read.sum
  dram__bytes_write.sum
  dram__throughput.avg.pct_of_peak_sustained_elapsed
  lts__t_sectors.sum
  lts__t_requests.sum
  lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed
  l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
  l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed
  sm__warps_active.avg.pct_of_peak_sustained_active
  smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio
  smsp__warps_eligible.avg.per_cycle_active
)
i=0
for l in "${lists[@]}"; do
  i=$((i + 1))
  PERFCHECK_PROGRESS=2 timeout 60 "$BUILD/bin/perfcheck" run --metrics "$l" --format json --output "$O/$i.json" \
    -- "$BUILD/kernels/mystery" --profile > "$O/$i.log" 2>&1
  ms=$(grep 'profiled launch, group' "$O/$i.log" | sed -n '2,$p' |
       sed 's/.*launch+replay \([0-9.]*\).*/\1/' | tr '\n' ' ')
  echo "PASSCOST $l $ms"
done
