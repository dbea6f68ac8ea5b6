#!/usr/bin/env bash
# corpus.sh OUTDIR BUILD_DIR: the production corpus and the kernels/ programs
# on the GPU machine, in one call of about 8 minutes (scripts/device/bench corpus).
#
# BUILD_DIR is a build of this tree made on that machine with the README's
# cmake command (BUILD_DIR/bin/perfcheck, BUILD_DIR/kernels/*).  For each
# program P it writes, under OUTDIR/corpus/ (packed at the end):
#   P.csv            ncu --clock-control none --set full --metrics LIST --csv --page raw
#                    (made by `ncu --import` of the report, so the program's
#                    output never mixes into it)
#   P.nvtx.csv       Python scripts only: the same report with
#                    --print-nvtx-rename kernel, whose "Kernel Name" is each
#                    row's innermost NVTX push/pop range (join on ID)
#   P.nvtx-details.txt  Python scripts only: the text details page, whose
#                    per-kernel header lists the NVTX stack (a second way to
#                    attribute rows)
#   P.summary.txt    scripts/ncu_summary.py of P.csv
#   logs/P.ncu.log   ncu's and the program's output
#   reps/P.ncu-rep   the report itself (packed separately, see below)
# and for each Python script S, in process (no ncu):
#   S.inproc.json          perfcheck run --format json (default mode: counters)
#   S.inproc-timing.json   perfcheck run --mode timing
#   logs/S.inproc*.log
# plus env.txt, query-metrics.txt (this ncu's --query-metrics), metrics.txt
# (LIST, with the names dropped and why), probe/ (the metric and NVTX
# preflight profiles' logs and CSVs), status.txt (one line per part),
# times.txt and corpus.log.
#
# LIST = `perfcheck metrics --set full` of the build + scripts/device/corpus/
# metrics.txt, checked offline against this ncu's --query-metrics
# (scripts/device/check_metric_names.py), then by one probe profile: a name
# ncu refuses or writes no column for is dropped and listed, not fatal.
# The Python scripts are profiled only inside their ranges:
#   --nvtx --nvtx-include 'regex:corpus:S:.*/'   (trailing '/': push/pop ranges)
# jax_ops also with 'regex:corpus:jax_ops:.*' (its start/end ranges: XLA may
# launch from a thread of its own).  A preflight on tests/gpu/inject_nvtx
# checks that this ncu takes that form, else uses one include per op.
#
# Time: CORPUS_BUDGET_S (default 470 s) for the whole script.  Parts run in
# order of importance, each under a hard `timeout` of at most its cap and at
# most the time left; a part that no longer fits is skipped and says so.  The
# Python scripts get CORPUS_DEADLINE_S so they stop starting ops before the
# timeout, and ncu still writes its report.  A failing part never stops the
# next one.
#
# At the end OUTDIR holds corpus.tgz (everything but the reports; split into
# two 15 MiB parts if larger than 16 MiB), corpus-reps.tgz (the .ncu-rep
# files, in up to four 15 MiB parts, left out with a note if larger), and
# corpus-status.txt: at most 7 files of at most 16 MiB, within what the
# device tool brings back (8).
#
# Environment: NCU (ncu path), PYTHON (default python3), CORPUS_BUDGET_S,
# CORPUS_PARTS (space-separated part names to run, default all; see PLAN).
# Exit status: 0 when every part that ran succeeded, 1 otherwise, 2 on bad
# arguments or no ncu.
set -uo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 OUTDIR BUILD_DIR" >&2
  exit 2
fi
mkdir -p "$1" || exit 2
OUTDIR=$(cd "$1" && pwd)
BUILD=$(cd "$2" && pwd) || exit 2
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$ROOT/scripts/device
C=$OUTDIR/corpus
rm -rf "$C"
mkdir -p "$C/logs" "$C/reps" "$C/probe" || exit 2
BUDGET=${CORPUS_BUDGET_S:-470}
PY=${PYTHON:-python3}
PERFCHECK=$BUILD/bin/perfcheck
T0=$(date +%s)
FAILED=0

now() { echo $(($(date +%s) - T0)); }
say() { echo "[corpus +$(now)s] $*" | tee -a "$C/corpus.log" >&2; }
status() { echo "$*" >>"$C/status.txt"; say "$*"; }
# limit CAP: the timeout for the next command, CAP or the time left less a
# reserve for packing, whichever is smaller.
limit() {
  local l=$((BUDGET - $(now) - 20))
  if [ "$l" -lt "$1" ]; then echo "$l"; else echo "$1"; fi
}

# ---- ncu -------------------------------------------------------------------------------------
find_ncu() {
  if [ -n "${NCU:-}" ] && [ -x "$NCU" ]; then echo "$NCU"; return 0; fi
  local c
  for c in /usr/local/cuda/bin/ncu $(command -v ncu 2>/dev/null) $(ls -d /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | sort -rV); do
    if [ -x "$c" ]; then echo "$c"; return 0; fi
  done
  return 1
}
NCU=$(find_ncu) || { say "no ncu found (NCU, /usr/local/cuda/bin, PATH, /opt/nvidia/nsight-compute/*/)"; exit 2; }
say "ncu: $NCU; build: $BUILD; budget ${BUDGET}s"

# ---- environment -------------------------------------------------------------------------------
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(uname -a)"
  echo "== ncu --version"; "$NCU" --version 2>&1
  echo "== nvidia-smi"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv 2>&1
  echo "== RmProfilingAdminOnly"; grep -i RmProfilingAdminOnly /proc/driver/nvidia/params 2>&1
  echo "== python packages"
  timeout 30 "$PY" - <<'PY' 2>&1
import importlib.metadata as m, sys
print("python", sys.version.split()[0])
for p in ("torch", "triton", "cupy-cuda13x", "cupy", "jax", "jaxlib", "jax-cuda13-plugin", "nvtx", "numpy"):
    try:
        print(p, m.version(p))
    except m.PackageNotFoundError:
        print(p, "not installed")
PY
} >"$C/env.txt" 2>&1

# ---- the metric list -----------------------------------------------------------------------------
SET=""
[ -x "$PERFCHECK" ] && SET=$("$PERFCHECK" metrics --set full 2>>"$C/corpus.log" | tr -d ' \n\r')
[[ "$SET" =~ ^[a-z0-9_.]+(,[a-z0-9_.]+)*$ ]] || { say "'$PERFCHECK metrics --set full' gave no list"; SET=""; }
timeout 90 "$NCU" --query-metrics >"$C/query-metrics.txt" 2>&1 || say "ncu --query-metrics failed (query-metrics.txt)"
QUERY=$C/query-metrics.txt
grep -qE '^\S+\s+(Counter|Ratio|Throughput)' "$QUERY" || QUERY=$HERE/corpus/gh100_ncu_query_metrics.txt.gz
LIST=$("$PY" "$HERE/check_metric_names.py" --query "$QUERY" --names "$HERE/corpus/metrics.txt" \
  ${SET:+--list "$SET"} --print-valid 2>"$C/metric-check.txt")
say "offline name check against $(basename "$QUERY"): $(tail -1 "$C/metric-check.txt")"
[ -n "$LIST" ] || LIST=$SET

# One probe profile with the whole list shows which columns ncu writes.  When
# ncu refuses the list, the metric its error line names is dropped and the
# probe runs again; a refusal that names no metric of the list halves it
# instead.  At most 8 probes (a few seconds each) within 90 s; a probe that
# times out ends the probing; what is left unprobed is used as it is.
PROBE_BIN=""
for p in edge launches mystery; do [ -x "$BUILD/kernels/$p" ] && { PROBE_BIN=$BUILD/kernels/$p; break; }; done
PN=0
ACCEPTED=()
REJECTED=()
PROBE_MAX=8
PROBE_END=$(($(now) + 90))
PROBE_STOP=0
probe() {
  local list tag t
  list=$(IFS=,; echo "$*")
  PN=$((PN + 1))
  tag=$C/probe/p$PN
  t=$((PROBE_END - $(now)))
  [ "$t" -gt 60 ] && t=60
  timeout -k 5 "$t" "$NCU" --clock-control none --launch-count 1 --metrics "$list" --export "$tag" --force-overwrite \
    "$PROBE_BIN" --profile >"$tag.log" 2>&1
  local rc=$?
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    PROBE_STOP=1
    say "probe $PN timed out after ${t}s: no more probes"
    return 2
  fi
  [ -s "$tag.ncu-rep" ] || return 1
  "$NCU" --import "$tag.ncu-rep" --csv --page raw >"$tag.csv" 2>>"$tag.log" || return 1
  grep -m1 '^"' "$tag.csv" | tr ',' '\n' | tr -d '"\r' >"$C/probe/header.txt"
  [ -s "$C/probe/header.txt" ]
}
# validate NAME...: sorts the names into ACCEPTED and REJECTED.
validate() {
  local n half named="" rc
  if [ "$PN" -ge "$PROBE_MAX" ] || [ "$PROBE_STOP" = 1 ] || [ $((PROBE_END - $(now))) -lt 10 ]; then
    for n in "$@"; do ACCEPTED+=("$n"); done  # unprobed: ncu will say if it minds
    return
  fi
  probe "$@"
  rc=$?
  if [ "$rc" = 0 ]; then
    for n in "$@"; do
      if grep -Fqx -- "$n" "$C/probe/header.txt"; then ACCEPTED+=("$n"); else REJECTED+=("$n (no column)"); fi
    done
    return
  fi
  if [ "$rc" = 2 ]; then
    for n in "$@"; do ACCEPTED+=("$n"); done
    return
  fi
  for n in "$@"; do
    if grep -iE 'error|metric' "$C/probe/p$PN.log" | grep -qFw -- "$n"; then named=$n; break; fi
  done
  if [ -n "$named" ]; then
    REJECTED+=("$named (ncu: $(grep -m1 -F -- "$named" "$C/probe/p$PN.log" | cut -c1-160))")
    local rest=()
    for n in "$@"; do [ "$n" = "$named" ] || rest+=("$n"); done
    [ ${#rest[@]} -gt 0 ] && validate "${rest[@]}"
  elif [ $# -eq 1 ]; then
    REJECTED+=("$1 (ncu refused it: $(grep -m1 -iE 'error' "$C/probe/p$PN.log" | cut -c1-160))")
  else
    half=$(($# / 2))
    validate "${@:1:half}"
    validate "${@:half+1}"
  fi
}
IFS=, read -r -a WANTED <<<"$LIST"
if [ -n "$PROBE_BIN" ] && [ ${#WANTED[@]} -gt 0 ]; then
  validate "${WANTED[@]}"
  [ ${#ACCEPTED[@]} -gt 0 ] && LIST=$(IFS=,; echo "${ACCEPTED[*]}")
else
  say "no probe program or no list: metric names unchecked by ncu"
  ACCEPTED=("${WANTED[@]}")
fi
{
  echo "# ${#ACCEPTED[@]} metrics used (besides --set full)"
  printf '%s\n' "${ACCEPTED[@]}"
  echo "# ${#REJECTED[@]} dropped by the probe"
  printf '%s\n' "${REJECTED[@]}"
  echo "# offline check:"
  cat "$C/metric-check.txt"
} >"$C/metrics.txt"
status "metrics: ${#ACCEPTED[@]} used, ${#REJECTED[@]} dropped by the probe ($PN probe(s)), +$(now)s"

# ---- the NVTX filter ---------------------------------------------------------------------------------
# The Python scripts are profiled inside their ranges only.  A preflight on
# tests/gpu/inject_nvtx (ranges "first", "outer" > "inner", one kernel each,
# one more outside) picks the form this ncu understands: a regex push/pop
# include (one row expected), else one include per range (two rows
# expected), else no filter at all (every launch, warm-ups included, is
# profiled: slower, the scripts' deadlines cut what does not fit).  It also
# checks that --print-nvtx-rename kernel names a row after its range.
NVTX_FORM=regex
NVTX_BIN=$BUILD/tests/gpu/gpu_inject_nvtx
# preflight TAG WANT_ROWS NCU_ARGS...: 0 when ncu profiled exactly WANT_ROWS kernels.
preflight() {
  local tag=$C/probe/nvtx-$1 want=$2 rows
  shift 2
  timeout -k 5 60 "$NCU" --clock-control none --metrics gpu__time_duration.sum --nvtx "$@" --export "$tag" \
    --force-overwrite "$NVTX_BIN" >"$tag.log" 2>&1
  [ -s "$tag.ncu-rep" ] || return 1
  "$NCU" --import "$tag.ncu-rep" --csv --page raw --print-nvtx-rename kernel >"$tag.csv" 2>>"$tag.log" || return 1
  rows=$(grep -c '^"[0-9]' "$tag.csv")
  "$PY" -c 'import csv, sys
r = [x for x in csv.reader(open(sys.argv[1])) if x]
i = r[0].index("Kernel Name")
print(" | ".join(x[i] for x in r[1:] if x[0].isdigit()))' "$tag.csv" >"$tag.names" 2>&1
  say "NVTX preflight $(basename "$tag"): $rows row(s) (want $want); renamed: $(cat "$tag.names")"
  [ "$rows" = "$want" ]
}
if [ ! -x "$NVTX_BIN" ]; then
  say "no $NVTX_BIN: NVTX filter form unchecked (regex)"
elif preflight regex 1 --nvtx-include "regex:fir.*/"; then
  NVTX_FORM=regex
  grep -q 'first' "$C/probe/nvtx-regex.names" || say "NVTX rename did not name the row after 'first': see probe/nvtx-regex.csv"
elif preflight each 2 --nvtx-include "first/" --nvtx-include "inner/"; then
  NVTX_FORM=each
else
  NVTX_FORM=none
fi
status "NVTX filter form: $NVTX_FORM, +$(now)s"

# ---- parts -------------------------------------------------------------------------------------------
# ncu_part NAME CAP NCU_ARGS... -- COMMAND...: one profiled program.  The
# profile gets CAP (or the time left) less 10 s, a Python script's own
# deadline is 30 s before that (ncu still has to write the report); the
# CSV exports after it have timeouts of their own.
ncu_part() {
  local name=$1 cap=$2 t start rc rows
  shift 2
  local args=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do args+=("$1"); shift; done
  shift
  t=$(limit "$cap")
  if [ "$t" -lt 20 ]; then status "$name ncu: skipped: budget (${t}s left for it)"; return 0; fi
  start=$(date +%s)
  rm -f "$C/reps/$name.ncu-rep"
  CORPUS_DEADLINE_S=$((t - 40)) timeout -k 10 $((t - 10)) "$NCU" --clock-control none --set full \
    ${LIST:+--metrics "$LIST"} --force-overwrite --export "$C/reps/$name" "${args[@]}" "$@" \
    >"$C/logs/$name.ncu.log" 2>&1
  rc=$?
  if [ -s "$C/reps/$name.ncu-rep" ] &&
    timeout 60 "$NCU" --import "$C/reps/$name.ncu-rep" --csv --page raw >"$C/$name.csv" 2>>"$C/logs/$name.ncu.log"; then
    case " ${args[*]} " in
      *" --nvtx "*)
        # Each row's NVTX range, two ways: the kernel renamed after its
        # innermost push/pop range (join on ID), and the text details page,
        # whose per-kernel header lists the NVTX stack.
        timeout 60 "$NCU" --import "$C/reps/$name.ncu-rep" --csv --page raw --print-nvtx-rename kernel \
          >"$C/$name.nvtx.csv" 2>>"$C/logs/$name.ncu.log" || say "$name: the NVTX-renamed export failed"
        timeout 60 "$NCU" --import "$C/reps/$name.ncu-rep" --page details --section SpeedOfLight \
          >"$C/$name.nvtx-details.txt" 2>>"$C/logs/$name.ncu.log" || say "$name: the details export failed"
        ;;
    esac
    rows=$(grep -c '^"[0-9]' "$C/$name.csv")
    timeout 30 "$PY" "$ROOT/scripts/ncu_summary.py" "$C/$name.csv" >"$C/$name.summary.txt" 2>&1
  else
    rows=0
  fi
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then rc="$rc (timed out after $((t - 10))s)"; fi
  local note=""
  grep -q '^corpus:[a-z_]* skipped:' "$C/logs/$name.ncu.log" &&
    note=" $(grep -m1 '^corpus:[a-z_]* skipped:' "$C/logs/$name.ncu.log")"
  status "$name ncu: exit $rc, $rows kernel row(s), $(($(date +%s) - start))s$note"
  # A program that fails its own check, or an export without rows, fails the run.
  if [ -z "$note" ] && { [ "$rc" != 0 ] || [ "$rows" -eq 0 ]; }; then FAILED=1; fi
}

# kernels_part PROGRAM LAUNCHES CAP
kernels_part() {
  local bin=$BUILD/kernels/$1
  if [ ! -x "$bin" ]; then status "$1 ncu: skipped: $bin is not built"; FAILED=1; return 0; fi
  ncu_part "$1" "$3" --launch-count "$2" -- "$bin" --profile
}

# script_part SCRIPT CAP: a corpus script under ncu, its NVTX ranges only
# (the op names for the one-include-per-range form come from the script's
# Op("name", ...) / op("name", ...) / make("name", ...) lines).
script_part() {
  local s=$1 filt=() n
  case $NVTX_FORM in
    regex)
      filt=(--nvtx-include "regex:corpus:$s:.*/")
      [ "$s" = jax_ops ] && filt+=(--nvtx-include "regex:corpus:jax_ops:.*")
      ;;
    each)
      for n in $(grep -oE '\b(Op|op|make)\("[a-z0-9_]+"' "$HERE/corpus/$s.py" | sed -E 's/.*\("//; s/"$//'); do
        filt+=(--nvtx-include "corpus:$s:$n/")
        [ "$s" = jax_ops ] && filt+=(--nvtx-include "corpus:$s:$n")
      done
      ;;
  esac
  ncu_part "$s" "$2" --target-processes all --nvtx ${filt[@]+"${filt[@]}"} -- "$PY" "$HERE/corpus/$s.py"
}

# inproc_part SCRIPT MODE CAP: a corpus script under perfcheck run (MODE counters or timing).
inproc_part() {
  local s=$1 mode=$2 t start rc suffix="" margs=()
  [ "$mode" = timing ] && { suffix=-timing; margs=(--mode timing); }
  t=$(limit "$3")
  if [ "$t" -lt 15 ]; then status "$s in process ($mode): skipped: budget (${t}s left for it)"; return 0; fi
  if [ ! -x "$PERFCHECK" ]; then status "$s in process ($mode): skipped: $PERFCHECK is not built"; FAILED=1; return 0; fi
  start=$(date +%s)
  local out=$C/$s.inproc$suffix.json log=$C/logs/$s.inproc$suffix.log
  CORPUS_DEADLINE_S=$((t - 20)) timeout -k 10 "$t" "$PERFCHECK" run --format json --output "$out" ${margs[@]+"${margs[@]}"} \
    -- "$PY" "$HERE/corpus/$s.py" >"$log" 2>&1
  rc=$?
  local note=""
  grep -q '^corpus:[a-z_]* skipped:' "$log" && note=" $(grep -m1 '^corpus:[a-z_]* skipped:' "$log")"
  grep -q '^perfcheck: profiling off' "$log" && note="$note $(grep -m1 '^perfcheck: profiling off' "$log")"
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then rc="$rc (timed out after ${t}s)"; fi
  status "$s in process ($mode): exit $rc, report $([ -s "$out" ] && echo "$(wc -c <"$out") B" || echo missing), $(($(date +%s) - start))s$note"
  if [ "$rc" != 77 ] && { [ "$rc" != 0 ] || [ ! -s "$out" ]; }; then FAILED=1; fi
}

# Most important first; caps in seconds (the budget clamps them further).
PLAN="torch:ncu:180 torch:counters:75
access_widths:8:50 lanes:4:35 async_copy:4:40 smem_bound:3:35 edge:4:30 mma:2:35
triton:ncu:70 cupy:ncu:50 triton:counters:45 cupy:counters:40
torch:timing:50 triton:timing:35 cupy:timing:30
jax:ncu:70 jax:counters:45 jax:timing:35
mystery:4:30 occupancy:3:30 launches:2:35 roundtrip:1:30 atomics:2:30"
for step in $PLAN; do
  IFS=: read -r what how cap <<<"$step"
  if [ -n "${CORPUS_PARTS:-}" ] && [[ " $CORPUS_PARTS " != *" $what "* ]] && [[ " $CORPUS_PARTS " != *" $what:$how "* ]]; then
    continue
  fi
  t0=$(date +%s)
  case $how in
    ncu) script_part "${what}_ops" "$cap" ;;
    counters | timing) inproc_part "${what}_ops" "$how" "$cap" ;;
    *) kernels_part "$what" "$how" "$cap" ;;
  esac
  echo "$what:$how $(($(date +%s) - t0))s" >>"$C/times.txt"
done
say "all parts done at +$(now)s"

# ---- packing ----------------------------------------------------------------------------------------
# pack NAME MAX_PARTS DIR ARGS...: OUTDIR/NAME.tgz of ARGS under DIR; split
# into 15 MiB parts when larger than 16 MiB; removed with a note when more
# than MAX_PARTS parts would be needed.  tar's complaints go to a file
# outside the tree being packed (a file growing under tar makes it fail).
pack() {
  local name=$1 max=$2 dir=$3 size parts
  shift 3
  if ! tar -czf "$OUTDIR/$name.tgz" -C "$dir" "$@" 2>"$OUTDIR/.tar-$name.err"; then
    status "packing $name failed: $(tail -1 "$OUTDIR/.tar-$name.err")"
    rm -f "$OUTDIR/$name.tgz" "$OUTDIR/.tar-$name.err"
    return 1
  fi
  rm -f "$OUTDIR/.tar-$name.err"
  size=$(stat -c %s "$OUTDIR/$name.tgz")
  if [ "$size" -le $((16 * 1024 * 1024)) ]; then
    status "$name.tgz: $size B"
    return 0
  fi
  parts=$(((size + 15 * 1024 * 1024 - 1) / (15 * 1024 * 1024)))
  if [ "$parts" -gt "$max" ]; then
    rm -f "$OUTDIR/$name.tgz"
    status "$name: $size B would need $parts parts of 15 MiB (at most $max): left out"
    return 1
  fi
  split -b 15M -d "$OUTDIR/$name.tgz" "$OUTDIR/$name.tgz.part" && rm -f "$OUTDIR/$name.tgz"
  status "$name.tgz: $size B in $parts parts (cat $name.tgz.part* > $name.tgz)"
}
rm -f "$C"/probe/*.ncu-rep "$OUTDIR"/corpus.tgz* "$OUTDIR"/corpus-reps.tgz*
pack corpus-reps 4 "$C" reps
status "packing corpus.tgz at +$(now)s (its own size is in corpus-status.txt only)"
if pack corpus 2 "$OUTDIR" --exclude=corpus/reps corpus; then packed=1; else packed=0; FAILED=1; fi
cp "$C/status.txt" "$OUTDIR/corpus-status.txt"
if [ "$packed" = 1 ]; then
  rm -rf "$C"  # all of it is in the tarballs now
else
  echo "[corpus] corpus.tgz could not be made: $C is left as it is" >&2
fi
echo "[corpus +$(now)s] done; OUTDIR holds: $(cd "$OUTDIR" && ls | tr '\n' ' ')" >&2
cat "$OUTDIR/corpus-status.txt"
exit $FAILED
