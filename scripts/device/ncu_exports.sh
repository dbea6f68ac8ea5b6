#!/usr/bin/env bash
# ncu_exports.sh BUILD_DIR OUT_DIR: Nsight Compute raw CSV exports of every
# kernels/ program, for perfcheck's offline mode and to check its numbers.
#
# For each program P (BUILD_DIR/kernels/P, run with --profile so that its
# first launches are one of each configuration):
#   OUT/P.csv             ncu --cache-control all  --csv --page raw
#   OUT/P.cache-none.csv  the same with --cache-control none
#   OUT/P.base-units.csv, OUT/P.cache-none.base-units.csv
#                         the same reports with --print-units base
#   OUT/P.ncu-rep, OUT/P.cache-none.ncu-rep   the reports themselves
#   OUT/P.ncu.log, OUT/P.cache-none.ncu.log   ncu's and the program's output
# plus OUT/env.txt (ncu --version, nvidia-smi, driver), OUT/query-metrics.txt,
# OUT/metrics.txt (the list used, and the names dropped) and OUT/summary.txt.
#
# The metric list is `BUILD_DIR/bin/perfcheck metrics --set full` (or the
# report contract's full list when that command is not there) plus the SASS
# global ld/st instruction counts, theoretical occupancy, launch__* and
# device__attribute_* columns.  Names this ncu rejects are dropped and printed
# rather than failing the run: one probe profile with the whole list shows
# which columns ncu produced; if ncu refuses the list outright, the list is
# bisected.  The CSV is written by `ncu --import` of the report, so the
# program's own output never mixes into it.
#
# Needs root (or RmProfilingAdminOnly=0) and ncu on PATH, at
# /usr/local/cuda/bin/ncu or under /opt/nvidia/nsight-compute/*/ (NCU=path
# overrides).  Exit status: 0 when every CSV was written, 1 otherwise.
set -uo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD_DIR OUT_DIR" >&2
  exit 64
fi
BUILD=$(cd "$1" && pwd) || exit 2
mkdir -p "$2/probe" || exit 2
OUT=$(cd "$2" && pwd)
LOG=$OUT/ncu_exports.log
: >"$LOG"
say() { echo "ncu_exports: $*" | tee -a "$LOG" >&2; }

# ---- ncu -----------------------------------------------------------------------
find_ncu() {
  if [ -n "${NCU:-}" ] && [ -x "$NCU" ]; then echo "$NCU"; return 0; fi
  if command -v ncu >/dev/null 2>&1; then command -v ncu; return 0; fi
  local c
  for c in /usr/local/cuda/bin/ncu $(ls -d /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda*/nsight-compute*/ncu \
      2>/dev/null | sort -rV); do
    if [ -x "$c" ]; then echo "$c"; return 0; fi
  done
  return 1
}
NCU=$(find_ncu) || { say "no ncu found (PATH, /usr/local/cuda/bin, /opt/nvidia/nsight-compute/*/)"; exit 2; }
say "using $NCU"

# ---- environment -----------------------------------------------------------------
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(uname -a)"
  echo "user: $(id -un) (uid $(id -u))"
  echo "ncu: $NCU"
  echo "== ncu --version"; "$NCU" --version 2>&1
  echo "== driver"
  nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.sm,clocks.max.sm,clocks.mem --format=csv 2>&1
  cat /proc/driver/nvidia/version 2>&1
  echo "== RmProfilingAdminOnly"; grep -i RmProfilingAdminOnly /proc/driver/nvidia/params 2>&1
  echo "== nvidia-smi"; nvidia-smi 2>&1
} >"$OUT/env.txt"
say "environment in $OUT/env.txt"
"$NCU" --query-metrics >"$OUT/query-metrics.txt" 2>&1 || say "ncu --query-metrics failed (see query-metrics.txt)"
cat "$OUT/query-metrics.txt" >>"$LOG"

# ---- the metric list ---------------------------------------------------------------
CONTRACT_FULL="gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,\
gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,\
dram__bytes_read.sum,dram__bytes_write.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,\
smsp__sass_thread_inst_executed_op_fadd_pred_on.sum,smsp__sass_thread_inst_executed_op_fmul_pred_on.sum,\
smsp__sass_thread_inst_executed_op_dfma_pred_on.sum,smsp__sass_thread_inst_executed_op_dadd_pred_on.sum,\
smsp__sass_thread_inst_executed_op_dmul_pred_on.sum,smsp__sass_thread_inst_executed_op_hfma_pred_on.sum,\
smsp__sass_thread_inst_executed_op_hadd_pred_on.sum,smsp__sass_thread_inst_executed_op_hmul_pred_on.sum,\
l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,\
l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,\
l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,\
lts__t_requests_op_atom.sum,lts__t_requests_op_red.sum,smsp__average_thread_inst_executed_per_inst_executed.ratio,\
smsp__average_thread_inst_executed_pred_on_per_inst_executed.ratio,smsp__issue_active.avg.per_cycle_active,\
sm__warps_active.avg.pct_of_peak_sustained_active"
EXTRA="smsp__sass_inst_executed_op_global_ld.sum,smsp__sass_inst_executed_op_global_st.sum,\
sm__maximum_warps_per_active_cycle_pct,launch__registers_per_thread,launch__block_size,launch__grid_size,\
launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic,launch__occupancy_limit_registers,\
launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps,launch__occupancy_limit_blocks,\
launch__waves_per_multiprocessor,device__attribute_display_name,device__attribute_compute_capability_major,\
device__attribute_compute_capability_minor,device__attribute_multiprocessor_count,\
device__attribute_max_threads_per_multiprocessor,device__attribute_max_threads_per_block,\
device__attribute_max_blocks_per_multiprocessor,device__attribute_max_registers_per_multiprocessor,\
device__attribute_max_registers_per_block,device__attribute_max_shared_memory_per_multiprocessor,\
device__attribute_max_shared_memory_per_block,device__attribute_max_shared_memory_per_block_optin,\
device__attribute_reserved_shared_memory_per_block,device__attribute_warp_size,device__attribute_memory_clock_rate,\
device__attribute_global_memory_bus_width,device__attribute_clock_rate"

SET=""
if [ -x "$BUILD/bin/perfcheck" ]; then
  SET=$("$BUILD/bin/perfcheck" metrics --set full 2>>"$LOG" | tr -d ' \n\r') || SET=""
fi
if ! [[ "$SET" =~ ^[a-z0-9_.]+(,[a-z0-9_.]+)*$ ]]; then
  say "'$BUILD/bin/perfcheck metrics --set full' gave no metric list; using the report contract's full list"
  SET=$CONTRACT_FULL
fi
# One name a line, first occurrence kept.
mapfile -t WANTED < <(echo "$SET,$EXTRA" | tr ',' '\n' | sed '/^$/d' | awk '!seen[$0]++')

# ---- which names this ncu accepts -----------------------------------------------------
PROBE_BIN=$BUILD/kernels/launches
PROBE_N=0
ACCEPTED=()
REJECTED=()
# probe NAME...: profile the first launch of the probe program with these
# names; succeeds when ncu wrote a report, and leaves its CSV header's column
# names, one a line, in $OUT/probe/header.txt.
probe() {
  local list tag
  list=$(IFS=,; echo "$*")
  PROBE_N=$((PROBE_N + 1))
  tag=$OUT/probe/p$PROBE_N
  rm -f "$tag.ncu-rep"
  timeout -k 10 300 "$NCU" --clock-control none --launch-count 1 --metrics "$list" --export "$tag" \
    --force-overwrite "$PROBE_BIN" --profile >"$tag.log" 2>&1
  [ -s "$tag.ncu-rep" ] || return 1
  "$NCU" --import "$tag.ncu-rep" --csv --page raw >"$tag.csv" 2>>"$tag.log" || return 1
  grep -m1 '^"' "$tag.csv" | tr ',' '\n' | tr -d '"\r' >"$OUT/probe/header.txt"
  [ -s "$OUT/probe/header.txt" ]
}
# validate NAME...: sorts the names into ACCEPTED and REJECTED.
validate() {
  local n half
  if probe "$@"; then
    for n in "$@"; do
      if grep -Fqx -- "$n" "$OUT/probe/header.txt"; then ACCEPTED+=("$n"); else REJECTED+=("$n"); fi
    done
  elif [ $# -eq 1 ]; then
    REJECTED+=("$1")
  else
    half=$(($# / 2))
    validate "${@:1:half}"
    validate "${@:half+1}"
  fi
}

if [ ! -x "$PROBE_BIN" ]; then
  say "$PROBE_BIN is missing: build the kernels/ programs first (cmake --build $BUILD --target k_launches ...)"
  exit 2
fi
if probe gpu__time_duration.sum; then
  validate "${WANTED[@]}"
else
  say "ncu cannot profile even gpu__time_duration.sum (see $OUT/probe/p1.log); using the list unchecked"
  tail -5 "$OUT/probe/p1.log" | tee -a "$LOG" >&2
  ACCEPTED=("${WANTED[@]}")
fi
if [ ${#ACCEPTED[@]} -eq 0 ]; then
  say "no name passed the probe (see $OUT/probe/); using the list unchecked"
  ACCEPTED=("${WANTED[@]}")
  REJECTED=()
fi
LIST=$(IFS=,; echo "${ACCEPTED[*]}")
{
  echo "# ${#ACCEPTED[@]} metrics used"
  printf '%s\n' "${ACCEPTED[@]}"
  echo "# ${#REJECTED[@]} dropped: ncu rejected them or wrote no column for them"
  printf '%s\n' "${REJECTED[@]}"
} >"$OUT/metrics.txt"
say "${#ACCEPTED[@]} metrics accepted, ${#REJECTED[@]} dropped${REJECTED:+: ${REJECTED[*]}}"

# ---- the exports --------------------------------------------------------------------------
# program:launches to profile (one of each configuration)
PROGRAMS="mystery:4 occupancy:3 launches:2 roundtrip:1 atomics:2"
FAILED=0
: >"$OUT/summary.txt"
for entry in $PROGRAMS; do
  prog=${entry%%:*}
  count=${entry##*:}
  bin=$BUILD/kernels/$prog
  for cache in all none; do
    name=$prog
    [ "$cache" = none ] && name=$prog.cache-none
    if [ ! -x "$bin" ]; then
      say "$bin is missing; skipped"
      echo "$name: missing binary" >>"$OUT/summary.txt"
      FAILED=1
      continue
    fi
    say "$name: profiling $count launch(es)"
    rm -f "$OUT/$name.ncu-rep"
    timeout -k 10 900 "$NCU" --clock-control none --cache-control "$cache" --launch-count "$count" \
      --metrics "$LIST" --export "$OUT/$name" --force-overwrite "$bin" --profile >"$OUT/$name.ncu.log" 2>&1
    rc=$?
    if [ -s "$OUT/$name.ncu-rep" ] &&
      "$NCU" --import "$OUT/$name.ncu-rep" --csv --page raw >"$OUT/$name.csv" 2>>"$OUT/$name.ncu.log" &&
      "$NCU" --import "$OUT/$name.ncu-rep" --csv --page raw --print-units base \
        >"$OUT/$name.base-units.csv" 2>>"$OUT/$name.ncu.log"; then
      rows=$(grep -c '^"[0-9]' "$OUT/$name.csv")  # rows whose ID is a number
      echo "$name: exit $rc, $rows launch row(s) (wanted $count)" >>"$OUT/summary.txt"
      [ "$rc" -eq 0 ] && [ "$rows" -eq "$count" ] || FAILED=1
    else
      echo "$name: exit $rc, no report (see $name.ncu.log)" >>"$OUT/summary.txt"
      tail -5 "$OUT/$name.ncu.log" | tee -a "$LOG" >&2
      FAILED=1
    fi
  done
done
tee -a "$LOG" <"$OUT/summary.txt" >&2
exit $FAILED
