#!/usr/bin/env bash
# bench.sh BUILD_DIR OUT_DIR: perfcheck's figures inside one region on the
# device, in about 4 minutes (scripts/device/bench launches): timing against
# plain, a million launches' memory and count, counters against timing and
# against ncu.
#
# Runs BUILD_DIR/bench/bench_launches once per process for each (workload,
# mode), interleaving the modes run by run (and reversing their order every
# other round) so that drift spreads over all of them; then ncu on the plain
# binary; then prints the medians as Markdown and writes them to
# OUT_DIR/bench.md.  Every process runs under `timeout`; a time budget stops
# starting new runs before the whole thing passes BENCH_BUDGET_S.
#
# Build first (on the device):
#   cmake -S . -B build-bench -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 &&
#   cmake --build build-bench --target bench_launches
#
# Knobs (environment): BENCH_BUDGET_S (225), BENCH_REPS (5),
# BENCH_MILLION_REPS (3), BENCH_NCU_REPS (2), BENCH_NCU_RESERVE_S (115: time
# kept for the ncu runs), BENCH_FIFTY_FULL_COUNT (10: launches of `fifty` that
# `ncu --set full` profiles; it costs about 2 s a launch on the H200, so all 50
# would take 100 s: it also runs with half as many, and the table extrapolates
# from the two), NCU (path to ncu).
#
# Seen on an H200 (docs/measurements/2026-11-30-h200): one round of phase A
# about 10 s plus 8 s for million, one ncu round about 55 s.
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD_DIR OUT_DIR" >&2
  exit 64
fi
BUILD=$1
OUT=$2
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=$BUILD/bench/bench_launches
BUDGET_S=${BENCH_BUDGET_S:-225}
REPS=${BENCH_REPS:-5}
MILLION_REPS=${BENCH_MILLION_REPS:-3}
NCU_REPS=${BENCH_NCU_REPS:-2}
NCU_RESERVE_S=${BENCH_NCU_RESERVE_S:-115}
FIFTY_FULL_COUNT=${BENCH_FIFTY_FULL_COUNT:-10}
FIFTY_FULL_SMALL=$(( FIFTY_FULL_COUNT / 2 ))

if [ ! -x "$BIN" ]; then
  echo "bench.sh: $BIN is missing; build it first:" >&2
  echo "  cmake -S . -B $BUILD -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 && cmake --build $BUILD --target bench_launches" >&2
  exit 2
fi
if ! command -v python3 >/dev/null 2>&1; then
  echo "bench.sh: python3 is needed for the table" >&2
  exit 2
fi
mkdir -p "$OUT/logs" "$OUT/reports"
RUNS=$OUT/runs.tsv
ENVF=$OUT/env.txt
: >"$RUNS"
: >"$ENVF"

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
T_START=$(now_ms)
elapsed_s() { echo $(( ($(now_ms) - T_START) / 1000 )); }

# ---- environment -------------------------------------------------------------
envline() {  # envline KEY CMD...: one "KEY: value" line; a failing command says so
  local key=$1 val
  shift
  val=$(timeout -k 2 20 "$@" 2>&1 | tr '\n' ' ' | sed 's/ *$//') || val="n/a (failed: $val)"
  printf '%s: %s\n' "$key" "$val" >>"$ENVF"
}
NCU=${NCU:-$(command -v ncu || true)}
if [ -z "$NCU" ]; then
  for c in /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu; do
    if [ -x "$c" ]; then NCU=$c; break; fi
  done
fi
envline "date (UTC)" date -u '+%Y-%m-%d %H:%M:%S'
envline "host" uname -nr
envline "CPUs" nproc
envline "GPU, driver" nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
envline "bench_launches env" "$BIN" env
if command -v nvcc >/dev/null 2>&1; then envline "nvcc" sh -c 'nvcc --version | tail -1'; fi
if [ -n "$NCU" ]; then envline "ncu" sh -c "'$NCU' --version | tail -1"; else echo "ncu: not found" >>"$ENVF"; fi
envline "clocks before (sm, mem)" nvidia-smi --query-gpu=clocks.sm,clocks.mem --format=csv,noheader
envline "max clocks (sm, mem)" nvidia-smi --query-gpu=clocks.max.sm,clocks.max.mem --format=csv,noheader
envline "driver params" sh -c 'grep -h RmProfilingAdminOnly /proc/driver/nvidia/params 2>/dev/null || echo unknown'
envline "git" sh -c "git -C '$HERE' rev-parse --short HEAD 2>/dev/null || echo 'not a git checkout'"
for s in default sol; do
  envline "perfcheck passes ($s)" "$BIN" passes "$s"
done
cat "$ENVF"

# Launch counts for ncu: it profiles only the workload's kernels (-k), skipping
# their warm-up launches (-s) and taking the workload's launches (-c).
declare -A WARM LAUNCHES
declare -A KREGEX=([mystery]='regex:^mystery' [fifty]='regex:^fifty_')
for w in mystery fifty; do
  info=$(timeout -k 2 20 "$BIN" info "$w")
  WARM[$w]=$(sed -n 's/.* warmups=\([0-9]*\).*/\1/p' <<<"$info")
  LAUNCHES[$w]=$(sed -n 's/.* launches=\([0-9]*\).*/\1/p' <<<"$info")
  if [ -z "${WARM[$w]}" ] || [ -z "${LAUNCHES[$w]}" ]; then
    echo "bench.sh: cannot read '$BIN info $w': $info" >&2
    exit 2
  fi
done

# ---- one process ---------------------------------------------------------------
# run_one WORKLOAD MODE REP TIMEOUT CMD...: appends a row to runs.tsv:
# rep, workload, mode, exit status, process wall ms, the RESULT fields and extras.
declare -A LAST_S  # seconds the last run of each (workload, mode) took
run_one() {
  local w=$1 m=$2 rep=$3 tmo=$4
  shift 4
  local log=$OUT/logs/${w}_${m}_${rep}.log rc=0 t0 t1 result extra=""
  t0=$(date +%s%N)
  timeout -k 5 "$tmo" "$@" >"$log" 2>&1 || rc=$?
  t1=$(date +%s%N)
  local proc_ms=$(( (t1 - t0) / 1000000 ))
  LAST_S[$w/$m]=$(( proc_ms / 1000 + 1 ))
  result=$(grep -m1 '^RESULT ' "$log" | sed 's/^RESULT //' || true)
  if [[ $m == ncu-* ]]; then
    local profiled passes names
    profiled=$(grep -c '^==PROF== Profiling' "$log" || true)
    passes=$(grep -o -- '- [0-9]* passes' "$log" | awk '{print $2}' | paste -sd, - || true)
    names=$(sed -n 's/^==PROF== Profiling "\([^"]*\)".*/\1/p' "$log" | sort -u | paste -sd, - || true)
    extra="ncu_profiled=${profiled:-0} ncu_passes=${passes:-none} ncu_kernels=${names:-none}"
  fi
  if grep -q 'NOTE' "$log"; then extra="$extra has_note=yes"; fi
  printf '%s\t%s\t%s\t%s\t%s\t%s %s\n' "$rep" "$w" "$m" "$rc" "$proc_ms" "$result" "$extra" >>"$RUNS"
  if [ "$rc" -ne 0 ]; then
    local why
    if [ "$rc" -ge 124 ]; then why="timeout or killed"; else why=$(tail -1 "$log"); fi
    echo "  FAILED: $w/$m run $rep: exit $rc ($why); log: $log"
  fi
}

# Seconds still allowed for a run that must leave `reserve` seconds.
left_s() { echo $(( BUDGET_S - $1 - $(elapsed_s) )); }
# fits KEY RESERVE: enough budget left for another run like the last one?
fits() {
  local est=${LAST_S[$1]:-5}
  [ "$(left_s "$2")" -ge "$est" ]
}
tmo_for() {  # a per-process limit: the default, cut to the budget left (never under 10 s)
  local t=$1 left
  left=$(( $(left_s 0) + 10 ))
  [ "$left" -lt "$t" ] && t=$left
  [ "$t" -lt 10 ] && t=10
  echo "$t"
}

# ---- phase A: the bench binary in every mode -------------------------------------
# Only what a goal needs: timing vs plain (tiny, bound, million), counters vs
# timing (distinct, distinct20), every mode (mystery, fifty: against ncu).
COMBOS=(
  tiny:plain tiny:timing
  bound:plain bound:timing
  million:plain million:timing
  distinct:timing distinct:counters-default
  distinct20:timing distinct20:counters-default
  mystery:plain mystery:timing mystery:counters-default mystery:counters-sol
  fifty:plain fifty:timing fifty:counters-default fifty:counters-sol
)
reserve=0
[ -n "$NCU" ] && reserve=$NCU_RESERVE_S
skipped=0
for rep in $(seq 1 "$REPS"); do
  order=("${COMBOS[@]}")
  if (( rep % 2 == 0 )); then  # reverse every other round
    order=()
    for (( i=${#COMBOS[@]}-1; i>=0; i-- )); do order+=("${COMBOS[$i]}"); done
  fi
  for c in "${order[@]}"; do
    w=${c%%:*}
    m=${c#*:}
    if [ "$w" = million ] && [ "$rep" -gt "$MILLION_REPS" ]; then continue; fi
    if ! fits "$w/$m" "$reserve"; then skipped=$((skipped + 1)); continue; fi
    json=()
    if [ "$rep" -eq 1 ] && [ "$m" != plain ]; then json=(--json "$OUT/reports/${w}_${m}.json"); fi
    limit=45
    [ "$w" = million ] && limit=90
    run_one "$w" "$m" "$rep" "$(tmo_for "$limit")" "$BIN" "$m" "$w" "${json[@]}"
  done
  echo "[$(elapsed_s) s] round $rep of $REPS done"
done
[ "$skipped" -gt 0 ] && echo "phase A: $skipped runs skipped to stay within the budget"

# ---- phase B: ncu on the plain binary ------------------------------------------
if [ -n "$NCU" ]; then
  DEFAULT_LIST=$(timeout -k 2 20 "$BIN" metric-list default 2>"$OUT/logs/metric-list.err" || true)
  echo "$DEFAULT_LIST" >"$OUT/default-metrics.txt"
  for rep in $(seq 1 "$NCU_REPS"); do
    for cfg in mystery:ncu-default mystery:ncu-full fifty:ncu-default fifty:ncu-full fifty:ncu-full-small; do
      w=${cfg%%:*}
      m=${cfg#*:}
      count=${LAUNCHES[$w]}
      if [ "$w" = fifty ] && [ "$m" = ncu-full ]; then count=$FIFTY_FULL_COUNT; fi
      if [ "$m" = ncu-full-small ]; then count=$FIFTY_FULL_SMALL; fi
      if ! fits "$w/$m" 0; then echo "  skipped $w/$m run $rep: budget"; continue; fi
      args=(--clock-control none --kernel-name "${KREGEX[$w]}" --launch-skip "${WARM[$w]}" --launch-count "$count")
      if [ "$m" = ncu-default ]; then
        if [ -z "$DEFAULT_LIST" ]; then echo "  skipped $w/$m: no default metric list (see $OUT/logs/metric-list.err)"; continue; fi
        args+=(--metrics "$DEFAULT_LIST")
      else
        args+=(--set full)
      fi
      run_one "$w" "$m" "$rep" "$(tmo_for 180)" "$NCU" "${args[@]}" "$BIN" plain "$w"
    done
    echo "[$(elapsed_s) s] ncu round $rep of $NCU_REPS done"
  done
fi

envline "clocks after (sm, mem)" nvidia-smi --query-gpu=clocks.sm,clocks.mem --format=csv,noheader
{
  echo "elapsed: $(elapsed_s) s (budget $BUDGET_S s; rounds $REPS, million $MILLION_REPS, ncu $NCU_REPS)"
  echo "fifty_full_count: $FIFTY_FULL_COUNT"
  echo "fifty_full_small: $FIFTY_FULL_SMALL"
} >>"$ENVF"

python3 "$HERE/bench_table.py" "$RUNS" "$ENVF" "$OUT/reports" >"$OUT/bench.md"
cat "$OUT/bench.md"
