#!/usr/bin/env bash
# heldout.sh BUILD_DIR OUTDIR [PART...]: the occupancy pairs, the SGEMM
# tutorial progression, the Triton and CuPy pairs and the held-out production
# kernels on the GPU machine, from a source build (the README's commands).
#
# PARTs (default: cpp py valid), each under a hard timeout:
#   cpp    build/kernels/advice --time over HELDOUT_PAIRS (the C++ pairs of
#          kernels/advice/pairs.tsv added for the occupancy rule and the
#          held-out part); ncu --set full (+ perfcheck's full list) of both
#          variants; perfcheck run of both variants, with region snapshots
#   py     scripts/device/corpus/advice_py.py: the same for the Triton and
#          CuPy pairs (kernels/advice/pairs_py.tsv)
#   valid  scripts/device/corpus/valid_ops.py: ncu --set full and
#          perfcheck run (with snapshots) of the held-out production kernels
# Writes under OUTDIR: time-*.tsv, *.csv.gz and *.nvtx.csv.gz (ncu raw CSV,
# and renamed after the NVTX ranges), inproc-*.json, snapshots-*/ (region
# snapshots: the in-process verdicts can be recomputed on a CPU with any
# rule), logs/, env.txt and status.txt (one line per step).
set -uo pipefail
BUILD=$1
O=$2
shift 2
parts=${*:-cpp py valid}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PC=$BUILD/bin/perfcheck
ADV=$BUILD/kernels/advice
mkdir -p "$O/logs"
t0=$(date +%s)
note() { echo "[heldout +$(( $(date +%s) - t0 ))s] $*" | tee -a "$O/status.txt"; }
PAIRS=${HELDOUT_PAIRS:-occ_cold_chase,occ_cold_chase_l2,occ_cold_fma1,occ_cold_fp64,occ_cold_xu,occ_cold_alu,occ_cold_barrier,occ_ilp8_stream,occ_smem_tile,occ_sgemm_tile2d_cap,occ_sgemm_vec_cap,sgemm_1_coalesce,sgemm_2_shared,sgemm_3_tile1d,sgemm_4_tile2d,sgemm_5_vectorize}
LIST=$("$PC" metrics --set full 2>/dev/null | tr -d ' \n\r')
export PYTHONUNBUFFERED=1

{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
  ncu --version | tail -1; git -C "$ROOT" rev-parse HEAD 2>/dev/null; "$PC" --version 2>/dev/null; } > "$O/env.txt" 2>&1

# ncu_export NAME TIMEOUT INCLUDE CMD...: --set full plus perfcheck's list over
# CMD inside INCLUDE's ranges; raw CSV and the NVTX-renamed CSV, gzipped.
ncu_export() {
  local name=$1 tmo=$2 inc=$3; shift 3
  local t; t=$(date +%s)
  rm -f "$O/$name.ncu-rep"
  timeout -k 10 "$tmo" ncu --set full ${LIST:+--metrics "$LIST"} --nvtx --nvtx-include "$inc" \
    --clock-control none --export "$O/$name" --force-overwrite "$@" > "$O/logs/$name.ncu.log" 2>&1
  local rc=$?
  if [ -s "$O/$name.ncu-rep" ]; then
    ncu --import "$O/$name.ncu-rep" --csv --page raw > "$O/$name.csv" 2>> "$O/logs/$name.ncu.log"
    ncu --import "$O/$name.ncu-rep" --csv --page raw --print-nvtx-rename kernel > "$O/$name.nvtx.csv" \
      2>> "$O/logs/$name.ncu.log"
    note "ncu $name: rc=$rc, $(grep -c '^"[0-9]' "$O/$name.csv") row(s), $(( $(date +%s) - t ))s"
    gzip -f "$O/$name.csv" "$O/$name.nvtx.csv"
    rm -f "$O/$name.ncu-rep"
  else
    note "ncu $name: rc=$rc, no report, $(( $(date +%s) - t ))s"; tail -3 "$O/logs/$name.ncu.log" >> "$O/status.txt"
  fi
}

# inproc NAME TIMEOUT NVTXFILTER CMD...: perfcheck run, JSON report and snapshots.
inproc() {
  local name=$1 tmo=$2 filt=$3; shift 3
  local t; t=$(date +%s)
  mkdir -p "$O/snapshots-$name"
  PERFCHECK_SNAPSHOT_DIR=$O/snapshots-$name timeout -k 5 "$tmo" "$PC" run --nvtx --nvtx-include "$filt" \
    --format json --output "$O/inproc-$name.json" -- "$@" > "$O/logs/inproc-$name.log" 2>&1
  note "perfcheck run $name: rc=$?, $(ls "$O/snapshots-$name" | wc -l) snapshot(s), $(( $(date +%s) - t ))s"
}

for p in $parts; do
  case $p in
    cpp)
      t=$(date +%s)
      timeout -k 5 200 "$ADV" --time --pair "$PAIRS" > "$O/time-cpp.tsv" 2> "$O/logs/time-cpp.log"
      note "advice --time: rc=$?, $(awk -F'\t' '$1 !~ /^#/ && $1 != "pair" && $4 == "ok"' "$O/time-cpp.tsv" | wc -l) ok, $(( $(date +%s) - t ))s"
      grep -E 'FAIL' "$O/logs/time-cpp.log" | head -5 >> "$O/status.txt"
      ncu_export cpp "${HELDOUT_NCU_S:-260}" 'regex:advice:.*/' "$ADV" --profile --variant both --pair "$PAIRS"
      inproc cpp 120 'regex:^advice:/' "$ADV" --profile --variant both --pair "$PAIRS"
      ;;
    py)
      t=$(date +%s)
      timeout -k 5 240 python3 "$ROOT/scripts/device/corpus/advice_py.py" --time > "$O/time-py.tsv" \
        2> "$O/logs/time-py.log"
      note "advice_py --time: rc=$?, $(( $(date +%s) - t ))s"
      ncu_export py 200 'regex:advice:.*/' python3 "$ROOT/scripts/device/corpus/advice_py.py" --profile --variant both
      inproc py 150 'regex:^advice:/' python3 "$ROOT/scripts/device/corpus/advice_py.py" --profile --variant both
      ;;
    valid)
      CORPUS_DEADLINE_S=${HELDOUT_VALID_S:-200} ncu_export valid "$(( ${HELDOUT_VALID_S:-200} + 60 ))" \
        'regex:corpus:valid_ops:.*/' python3 "$ROOT/scripts/device/corpus/valid_ops.py"
      inproc valid 150 'regex:^corpus:valid_ops:/' python3 "$ROOT/scripts/device/corpus/valid_ops.py"
      ;;
  esac
done
note "done"
