#!/usr/bin/env bash
# bench_overhead_test.sh SOURCE_DIR: scripts/bench_overhead.sh on a CPU.
#
# Stub programs stand in for the GPU's (bench_launches, overhead_probe,
# mystery, occupancy, perfcheck, ncu, nsys, python3 with torch): each prints
# the lines the script parses, the timed values from a known sequence per
# mode (where a mode has a warm-up run, the first value is the warm-up's, far
# off, so a median that took it in shows).  Checked: the medians, ratios and
# claims of each section; the warm-up left out; the sections' order and
# their lines printed as each ends; the WHERE lines read from perfcheck's
# progress lines; the table; nsys's files made and deleted; the output small
# and two levels deep; the budget's SKIP lines; --dry-run's plan, which runs
# and writes nothing.
set -u
# The script's knobs come from the environment: a caller's (a device run
# with SECTIONS=A, say) must not choose what this test checks.
unset A_PROBES BENCH_BUDGET_S BENCH_LOG_MAX_KB BENCH_SOURCE E_MODES E_ROTATE_SESSION E_STEPS H_FULL_COUNT NCU NSYS NSYS_OPTS \
  PYTHON REPS SECTIONS SKIP
SRC=$(cd "${1:?usage: bench_overhead_test.sh SOURCE_DIR}" && pwd)
BENCH=$SRC/scripts/bench_overhead.sh
T=$(mktemp -d "${TMPDIR:-/tmp}/pc-bench-test.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
B=$T/build
S=$T/stubs
mkdir -p "$B/bin" "$B/bench" "$B/kernels" "$S" "$T/tmp"
fails=0
check() {  # check DESCRIPTION COMMAND...: one assertion
  local what=$1
  shift
  if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fails=$((fails + 1)); fi
}
has() { grep -qF -- "$2" "$1"; }
hasnt() { ! grep -qF -- "$2" "$1"; }
before() {  # before FILE A B: the first line holding A comes before the first holding B
  local a b
  a=$(grep -nF -- "$2" "$1" | head -1 | cut -d: -f1)
  b=$(grep -nF -- "$3" "$1" | head -1 | cut -d: -f1)
  [ -n "$a" ] && [ -n "$b" ] && [ "$a" -lt "$b" ]
}

# ---- the stubs ---------------------------------------------------------------
cat > "$S/lib.sh" <<'SH'
# next KEY VALUE...: the KEY's n-th call prints the n-th value (the last again after)
next() {
  local f=$STUB_STATE/$1 n=0
  shift
  [ -f "$f" ] && read -r n < "$f"
  echo $((n + 1)) > "$f"
  local v=("$@")
  [ "$n" -lt "${#v[@]}" ] || n=$((${#v[@]} - 1))
  echo "${v[$n]}"
}
SH
cat > "$B/bench/bench_launches" <<'SH'
#!/usr/bin/env bash
. "$STUB_LIB"
case ${STUB_UNDER:-}$1.$2 in
  plain.tiny) v=$(next bl.plain 100 20 30 10) ;;
  timing.tiny) v=$(next bl.timing 200 21 22 21.5) end=1.5 ;;
  nsysplain.tiny) v=$(next bl.nsys 300 30 31 32) ;;
  *plain.hundred) v=5 ;;
  *) echo "stub bench_launches: $*" >&2; exit 64 ;;
esac
echo "RESULT mode=$1 workload=$2 wall_ms=$v launches_expected=4096 launches_recorded=4096${end:+ end_ms=$end}"
SH
cat > "$B/bench/overhead_probe" <<'SH'
#!/usr/bin/env bash
case $1 in plain) v=4.000 ;; cb) v=5.000 ;; act) v=5.500 ;; cbact) v=6.000 ;; perfcheck) v=6.500 ;; esac
echo "RESULT mode=$1 us_per_launch=$v sync_ms=0.100"
SH
cat > "$B/kernels/mystery" <<'SH'
#!/usr/bin/env bash
echo "all 4 launches match the CPU reference at every element"
SH
cat > "$B/kernels/occupancy" <<'SH'
#!/usr/bin/env bash
echo "--profile: the 3 checked launches above were the only launches"
SH
cat > "$B/bin/perfcheck" <<'SH'
#!/usr/bin/env bash
case $1 in
  --version) echo "perfcheck 0.0.0-stub"; exit 0 ;;
  metrics)
    if [ "${2:-}" = --passes ]; then
      set=default; [ "${3:-}" = --set ] && set=$4
      case $set in default) n=4 ;; sol) n=13 ;; *) n=17 ;; esac
      printf 'GH100 %s\nGB100 %s\nAD102 5\nGA100 4\ndevice0 %s\n' $n $n $n
    else
      echo "sm__cycles_elapsed.avg, dram__bytes_read.sum"
    fi
    exit 0 ;;
  run) ;;
  *) exit 64 ;;
esac
shift
out= pmode=counters
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  case $1 in --output) out=$2; shift ;; --mode) pmode=$2; shift ;; esac
  shift
done
shift
STUB_UNDER=perfcheck "$@"
rc=$?
# PERFCHECK_PROGRESS=1: where the run's time went, as lib/gpu prints it at the end.
if [ "${PERFCHECK_PROGRESS:-0}" = 1 ]; then
  [ "$pmode" = timing ] ||
    echo "perfcheck: counter layer, host time of 4 profiled launches: chip setup 100.0 ms (1, 100.000 ms each), start 200.0 ms (4, 50.000 ms each), launch+replay 300.0 ms (4, 75.000 ms each)" >&2
  echo "perfcheck: lib/gpu host time: set-up 12.0 ms (driver and CUPTI check 0.0, device attributes 1.0, launch callbacks 0.0, activity 0.0, counter layer 11.0), at exit: activity flush 0.5 ms (CUPTI stays subscribed)" >&2
fi
mode=${PERFCHECK_REPLAY:-kernel}
rot='null'; [ "$mode" = rotate ] && rot='{"groups": 6, "collected": 6}'
k() {  # k NAME CAUSE READ WRITE [SPREAD [RUNNER_UP]]: a runner-up marks the verdict borderline
  printf '{"name": "%s", "display_name": "%s", "region": null, "grid": [4096,1,1], "block": [256,1,1], "dynamic_smem_bytes": 0, "launches": 8, "replay": "%s", "rotation": %s, "counter_spread": %s, "dram_cold": %s, "metrics": {"dram__bytes_read.sum": %s, "dram__bytes_write.sum": %s}, "diagnosis": {"step": 1, "cause": "%s", "borderline": %s, "runner_up": %s}}' \
    "$1" "$1" "$mode" "$rot" "${5:-null}" "$([ "$mode" = rotate ] && echo true || echo false)" "$3" "$4" "$2" \
    "$([ -n "${6:-}" ] && echo true || echo false)" "$([ -n "${6:-}" ] && echo "\"$6\"" || echo null)"
}
case $* in
  *mystery*)
    if [ "$mode" = rotate ]; then
      ks="$(k mysteryA at_roof 16500000 16777216), $(k mysteryB at_roof 9000000 8388608)"
    else
      ks="$(k mysteryA at_roof 1000000 16777216), $(k mysteryB at_roof 500000 8388608)"
      # A verdict that rests on "no unit near its roof" names what the set did not measure.
      ks="$ks, {\"name\": \"mysteryC\", \"replay\": \"kernel\", \"diagnosis\": {\"step\": 5, \"cause\": \"occupancy_shared_memory\", \"findings\": [{\"step\": 2, \"cause\": \"not_assessed\", \"advice\": \"\\\"No unit near its roof\\\" covers the units measured: the FP64 pipe, the XU (transcendental) pipe, L2 (in part) were not measured, so a roof there would not show.\"}]}}"
    fi ;;
  *dram_gemm*) ks="$(k cutlass_80_simt_sgemm_256x128_8x4_nn_align1 at_roof 203000000 67108864)" ;;
  *torch_step*)
    if [ "$mode" = rotate ]; then
      ks="$(k sgemm at_roof 1 1), $(k elementwise latency_bound 1 1 0.31), $(k adam memory_bound 1 1), $(k foreach at_roof 1 1 0.06 grid_too_small)"
    else
      ks="$(k sgemm at_roof 1 1), $(k elementwise memory_bound 1 1), $(k adam memory_bound 1 1), $(k foreach grid_too_small 1 1 null at_roof)"
    fi ;;
  *) ks= ;;
esac
if [ -n "$out" ] && [ "$out" != /dev/null ]; then
  printf '{"metric_set": "default", "passes": 4, "kernels": [%s]}\n' "$ks" > "$out"
fi
exit $rc
SH
cat > "$B/ncu" <<'SH'
#!/usr/bin/env bash
[ "${1:-}" = --version ] && { echo "NVIDIA (R) Nsight Compute Command Line Profiler"; echo "Version 2025.3.1.0 (stub)"; exit 0; }
cold=0 full=0
while [ $# -gt 0 ]; do
  case $1 in
    --cache-control) [ "$2" = all ] && cold=1; shift 2 ;;
    --set) [ "$2" = full ] && full=1; shift 2 ;;
    --clock-control | --metrics | --page | --print-units | --kernel-name | --launch-count) shift 2 ;;
    -*) shift ;;
    *) break ;;
  esac
done
STUB_UNDER=ncu "$@" > /dev/null
if [ "$cold" = 1 ]; then
  echo '==PROF== Connected to process 1'
  echo '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","dram__bytes_read.sum","dram__bytes_write.sum"'
  echo '"","","","","","","","","","","","byte","byte"'
  case $* in
    *dram_gemm*) echo '"0","1","python3","h","cutlass_80_simt_sgemm_256x128_8x4_nn_align1","1","7","(256, 1, 1)","(32, 32, 1)","0","9.0","201,326,592","67108864"' ;;
    *) echo '"0","1","mystery","h","mysteryA(const float *, float *, unsigned long)","1","7","(256, 1, 1)","(4096, 1, 1)","0","9.0","16,000,000","16777216"'
       echo '"1","1","mystery","h","mysteryB(const float *, float *, unsigned long)","1","7","(256, 1, 1)","(4096, 1, 1)","0","9.0","8000000","8388608"' ;;
  esac
else
  echo "==PROF== stub ncu, $# program arguments"
  if [ "$full" = 1 ]; then
    echo '==PROF== Profiling "mysteryA" - 0: 0%....50%....100% - 38 passes'
    echo '==PROF== Profiling "mysteryB" - 1: 0%....50%....100% - 38 passes'
  fi
fi
SH
cat > "$B/nsys" <<'SH'
#!/usr/bin/env bash
[ "${1:-}" = --version ] && { echo "NVIDIA Nsight Systems version 2025.3.1 (stub)"; exit 0; }
[ "${1:-}" = profile ] || exit 64
shift
[ "${1:-}" = --help ] && { echo "  -s, --sample=  CPU sampling"; echo "  --cpuctxsw=  context switches"; exit 0; }
base=
while [ $# -gt 0 ]; do
  case $1 in
    -o) base=$2; shift 2 ;;
    --force-overwrite) shift 2 ;;
    -*) shift ;;
    *) break ;;
  esac
done
head -c 2097152 /dev/zero > "$base.qdstrm"
echo "$base.qdstrm" >> "$STUB_STATE/nsys-made"
STUB_UNDER=nsys "$@"
echo "Generating '$base.qdstrm'"
exit 1  # as the H200's bundled nsys may, its importer missing: the RESULT line still counts
SH
cat > "$S/python3" <<'SH'
#!/usr/bin/env bash
. "$STUB_LIB"
case $1 in
  -c) echo "torch 2.9.0+stub cuda 13.0 available True NVIDIA H200 (stub)" ;;
  */add_loop.py)
    case ${STUB_UNDER:-plain}${2:-} in
      plain--kineto) v=$(next add.kineto 55 56 57) ;;
      plain) v=$(next add.plain 100 40 50 45) ;;
      perfcheck) v=$(next add.perfcheck 46 47 46.5) ;;
      nsys) v=$(next add.nsys 70 71 72) ;;
    esac
    echo "RESULT mode=torch workload=add4096 wall_ms=$v" ;;
  */torch_step.py)
    case ${STUB_UNDER:-plain}.${PERFCHECK_REPLAY:-}${PERFCHECK_ROTATE_SESSION:+.session} in
      plain.*) v=$(next ts.plain 9000 2600 2700 2650) ;;
      perfcheck.rotate) v=$(next ts.rotate 2800 2850 2900) ;;
      perfcheck.rotate.session) v=$(next ts.session 2950 3000 2900) ;;
      *) v=$(next ts.kernel 3200 3300 3250) ;;
    esac
    echo "torch_step: plain, 1000 steps in $v ms; step ms: first 3.00, median of the rest 2.60" ;;
  */dram_gemm.py) echo "RESULT mode=torch workload=gemm4096 launches=8" ;;
  *) echo "stub python3: $*" >&2; exit 64 ;;
esac
SH
chmod +x "$B/bench/"* "$B/kernels/mystery" "$B/kernels/occupancy" "$B/bin/perfcheck" "$B/ncu" "$B/nsys" "$S/python3"
export STUB_LIB=$S/lib.sh TMPDIR=$T/tmp
# nvidia-smi and git may be missing or fail: the ENV lines say so, nothing stops.

# ---- 1. every section, enough budget ------------------------------------------
export STUB_STATE=$T/state1
mkdir -p "$STUB_STATE"
O=$T/out1
NSYS=$B/nsys NCU=$B/ncu PYTHON=$S/python3 BENCH_BUDGET_S=100000 E_MODES="plain rotate session kernel" \
  SECTIONS="A B C O P H D E" A_PROBES="cb act" bash "$BENCH" "$B" "$O" > "$T/run1.txt" 2>&1
rc=$?
check "full run exits 0 (rc $rc)" [ "$rc" = 0 ]
F=$T/run1.txt
check "ENV lines first" before "$F" "ENV perfcheck: perfcheck 0.0.0-stub" "FIGURE"
check "nsys options from its --help" has "$F" "ENV nsys options: --trace=cuda --sample=none --cpuctxsw=none"
check "torch found" has "$F" "ENV python: $S/python3: torch 2.9.0+stub"
check "sections in the order A B C O P H D E" before "$F" "FIGURE timing C++" "FIGURE timing PyTorch"
check "  B before C" before "$F" "FIGURE timing PyTorch" "FIGURE 4-launch program (mystery)"
check "  C before O" before "$F" "FIGURE 4-launch program (mystery)" "FIGURE occupancy program"
check "  O before P" before "$F" "FIGURE occupancy program" "FIGURE passes on this device"
check "  P before H" before "$F" "FIGURE passes on this device" "FIGURE 100-kernel program"
check "  H before D" before "$F" "FIGURE 100-kernel program" "DRAM mystery (rotate)"
check "  D before E" before "$F" "DRAM cuBLAS GEMM" "FIGURE torch_step"
check "A's figures printed before B's runs start" before "$F" "FIGURE timing C++" "section B:"
# A: medians of the timed rounds only (warm-ups 100/200/300 left out)
check "A: medians, ratios, per launch" has "$F" "FIGURE timing C++, 4096 tiny launches (the loop's wall in the process, median of 3/3/3 runs plain/perfcheck/nsys): plain 20.00 ms (4.88 us a launch), perfcheck 21.50 ms (1.075x, +0.37 us a launch), nsys 31.00 ms (1.550x, +2.69 us a launch)"
check "A: claim <= 1.20x" has "$F" "PASS timing C++ <= 1.20x plain (1.075x)"
check "A: without perfcheck_session_end" has "$F" "FIGURE timing C++ without perfcheck_session_end (its flush, decoding and report, inside the timed part; median of 3 runs): perfcheck 20.00 ms (1.000x, +0.00 us a launch), nsys 31.00 ms (1.550x)"
check "A: claim ahead of nsys (nsys rc 1 still counted)" has "$F" "PASS timing C++ ahead of nsys in the same run (perfcheck 21.50 ms, nsys 31.00 ms)"
check "A: host cost per launch" has "$F" "FIGURE host cost per launch (overhead_probe, median of 3 processes, each the median of its rounds): plain 4.000 us, callbacks 5.000 us, activity 5.500 us, both 6.000 us, perfcheck 6.500 us"
check "A: where the time goes" has "$F" "WHERE timing C++, a launch's host cost (overhead_probe): perfcheck +2.500 us over plain; CUPTI's launch callbacks and activity records +2.000 us of it (callbacks alone +1.000, activity alone +1.500); perfcheck's own +0.500 us"
# B: no warm-up but plain's first value is a warm process's; Kineto beside nsys
check "B: medians" has "$F" "median of 3/3/3/3 runs plain/perfcheck/nsys/kineto): plain 50.00 ms (12.21 us a launch), perfcheck 46.50 ms (0.930x, -0.85 us a launch), nsys 71.00 ms (1.420x, +5.13 us a launch), Kineto 56.00 ms (1.120x, +1.46 us a launch)"
check "B: claim <= 1.05x" has "$F" "PASS timing PyTorch <= 1.05x plain (0.930x)"
check "B: lib/gpu's set-up and exit from the progress line" has "$F" "WHERE timing PyTorch: lib/gpu's set-up 12.0 ms and its exit 0.5 ms are outside the loop (medians of 3 runs)"
# C, O, H: process walls of stubs are noise; the lines and counts are not
check "C: figure with 3 timed runs of each mode" has "$F" "FIGURE 4-launch program (mystery), process wall (median of 3 runs plain/3/3/3/3)"
check "C: passes from the report" has "$F" "FIGURE perfcheck's set on this device: 4 passes (report of C.kernel, metric_set default)"
claims() {  # claims FROM TO: the ratio claims between two lines of run 1
  sed -n "/^FIGURE $1/,/^FIGURE $2/p" "$F" | grep -cE '^(PASS|FAIL|SKIP) counters \((kernel|rotate)\) <= '
}
check "C: a claim for each mode and ncu run (2 x 2)" [ "$(claims '4-launch program' 'occupancy program')" = 4 ]
check "C: where kernel replay's time goes, from the phases line" has "$F" "the counter layer 0.600 s over 4 profiled launch(es), CUPTI's calls and the replayed passes (launch+replay 0.300 s, start 0.200 s, chip setup 0.100 s); lib/gpu's set-up 0.012 s"
check "C: and rotation's" grep -q "^WHERE 4-launch program (mystery), rotation: added" "$F"
check "O: figure" has "$F" "FIGURE occupancy program (3 launches), process wall (median of 3 runs plain/3/3)"
check "O: one claim (kernel replay, ncu's same list)" [ "$(claims 'occupancy program' 'passes on this device')" = 1 ]
check "H: figure" has "$F" "FIGURE 100-kernel program, process wall (median of 3 runs plain/3/3/3/3)"
check "H: --set full extrapolated from 4 launches and none" grep -qE "^FIGURE 100-kernel program, ncu --set full over all 101 launches, extrapolated from 4 launches" "$F"
check "H: two claims (kernel replay against ncu and --set full)" \
  [ "$(sed -n '/^FIGURE 100-kernel program, process/,/DRAM mystery/p' "$F" | grep -cE '^(PASS|FAIL|SKIP) counters \(kernel\) <= ')" = 2 ]
# P: passes from perfcheck metrics and C's ncu --set full log, the units from C's report
check "P: perfcheck's passes" has "$F" "FIGURE passes on this device (perfcheck metrics --passes): default 4, sol 13, full 17; on GH100: default 4, sol 13, full 17"
check "P: ncu's passes from C's run" has "$F" "FIGURE ncu --set full: 38 passes a kernel (2 kernel(s) profiled)"
check "P: the units not measured" has "$F" "FIGURE not measured by the default set (a report's step-2 note): the FP64 pipe, the XU (transcendental) pipe, L2 (in part)"
check "P: no ncu run of its own (C ran one)" [ "$(grep -c 'sec=P' "$O/runs.txt")" = 1 ]
# D
check "D: mystery read within 10% (thousands separators read)" has "$F" "PASS DRAM mystery (rotate) mysteryA dram__bytes_read.sum within 10% of ncu --cache-control all: 16500000 vs 16000000 (+3.1%"
check "D: mystery 12.5% off fails" has "$F" "FAIL DRAM mystery (rotate) mysteryB dram__bytes_read.sum within 10% of ncu --cache-control all: 9000000 vs 8000000 (+12.5%"
check "D: kernel replay shown, not claimed" has "$F" "FIGURE DRAM mystery (kernel replay) mysteryA dram__bytes_read.sum against ncu --cache-control all: 1000000 vs 16000000 (-93.8%"
check "D: GEMM" has "$F" "PASS DRAM cuBLAS GEMM (rotate) cutlass_80_simt_sgemm_256x128_8x4_nn_align1 dram__bytes_read.sum within 10% of ncu --cache-control all: 203000000 vs 201326592 (+0.8%"
# E: no warm-up round (plain's first value, 9000, is a timed run's: the median of 9000 2600 2700)
check "E: the loop's medians" has "$F" "the loop plain 2700.0 ms, rotate 2850.0 ms (1.056x)"
check "E: loop claim <= 1.05x" has "$F" "FAIL rotation on the 1000-step training step <= 1.05x plain, the loop (1.056x)"
check "E: sessions' loop" has "$F" "the loop plain 2700.0 ms, rotate with sessions 2950.0 ms (1.093x)"
check "E: sessions' verdicts" has "$F" "FAIL rotation with sessions's verdicts are kernel replay's or flagged where they differ: 2 of 4 signatures the same, 1 differ flagged; flagged: foreach: session at_roof, kernel grid_too_small, counter_spread 0.06 (borderline); differ unflagged: elementwise: session latency_bound"
check "E: coverage" has "$F" "FIGURE torch_step under rotate: 4 kernel entries, 4 with counters (rotate 4), 4 with every group"
check "E: every signature" has "$F" "PASS every kernel signature has its counters under rotation (4 of 4 entries complete)"
check "E: verdicts differ, one borderline both ways (flagged), one not" has "$F" "FAIL rotation's verdicts are kernel replay's or flagged where they differ: 2 of 4 signatures the same, 1 differ flagged; flagged: foreach: rotate at_roof, kernel grid_too_small, counter_spread 0.06 (borderline); differ unflagged: elementwise: rotate latency_bound, kernel memory_bound, counter_spread 0.31"
check "E: where rotation's time goes" grep -q "^WHERE the 1000-step training step, rotation: added .* the counter layer 0.600 s over 4 profiled launch(es)" "$F"
check "END line" has "$F" "rounds done per section: A:3/3 B:3/3 C:3/3 O:3/3 P:1/1 H:3/3 D:1/1 E:3/3"
# the table
TB=$O/table.md
check "table.md written and printed" has "$F" "| workload | perfcheck | peers | goal | met |"
check "table: the C++ row" has "$TB" "| 4096 tiny C++ launches, timing mode (median of 3) | 1.07x | nsys 1.55x | <= 1.20x, and below nsys in the same run | yes |"
check "table: the PyTorch row" has "$TB" "| 4096 tiny PyTorch ops, timing mode (median of 3) | 0.93x | nsys 1.42x, Kineto 1.12x | <= 1.05x | yes |"
check "table: the passes row" has "$TB" "| passes for the default set | 4 (not measured: the FP64 pipe, the XU (transcendental) pipe, L2 (in part)) | ncu --set full 38 | every pipe and level measured, at the least added cost, stated | **no** |"
check "table: a row for each counters program" [ "$(grep -cE '^\| (4-launch program \(mystery\)|occupancy program \(3 launches\)|100-kernel program), counters, added wall \(median of 3\) \|' "$TB")" = 3 ]
check "table: the training step row" grep -qE '^\| 1000-step PyTorch training step, rotation \(median of 3\) \| [0-9.]+x process wall; kernel replay [0-9.]+x; 4 of 4 entries with every group; verdicts: 2 of 4 as kernel replay.s, 1 flagged, 1 differ unflagged \| - \| <= 1.05x' "$TB"
check "table: where the passes go" has "$TB" "  - passes: the default set's 4 passes leave out the FP64 pipe, the XU (transcendental) pipe, L2 (in part); perfcheck's sol set measures every pipe and level in 13 passes on this device"
check "table: D has no row" hasnt "$TB" "DRAM"
# output
check "summary.txt holds the same FIGURE lines" [ "$(grep -c '^FIGURE' "$O/summary.txt")" = "$(grep -c '^FIGURE' "$F")" ]
check "summary.txt holds ENV, PASS, FAIL, WHERE" has "$O/summary.txt" "WHERE timing C++"
check "bench_overhead.md: sections in order" before "$O/bench_overhead.md" "## A. timing, C++" "## B. timing, PyTorch"
check "bench_overhead.md: a table with the warm-up" has "$O/bench_overhead.md" "| plain | 3 (0,0,0) |"
# A: warm-up of its 8 modes + 3 x 8; B 3 x 4; C warm-up of 4 + 3 x 5; O 3 x 3; P 1; H 3 x 5; D 5; E 3 x 4
check "runs.txt: one RUN line a process" [ "$(grep -c '^RUN ' "$O/runs.txt")" = $(( 8 + 3 * 8 + 3 * 4 + 4 + 3 * 5 + 3 * 3 + 1 + 3 * 5 + 5 + 3 * 4 )) ]
check "nsys made its files (A: 4 runs, B: 3)" [ "$(wc -l < "$STUB_STATE/nsys-made")" = 7 ]
check "and none is left" [ -z "$(find "$O" "$T/tmp" -name '*.qdstrm' -o -name '*.nsys-rep')" ]
check "the scratch folder removed" [ -z "$(ls -A "$T/tmp")" ]
check "output under 1 MB" [ "$(du -sk "$O" | cut -f1)" -lt 1024 ]
check "output two levels deep" [ -z "$(find "$O" -mindepth 3)" ]
# C.kernel C.rotate O.kernel H.kernel D.rotate D.kernel D.gemm_rotate E.rotate E.session E.kernel
check "one report per section and mode kept" [ "$(find "$O/logs" -name '*.json*' | wc -l)" = 10 ]

# ---- 2. a short budget, no nsys ------------------------------------------------
# A's warm-up and one round fit in 15 s (about 7 s by the estimates); E's and
# B's (about 43 s and 19 s, B's with no nsys) cannot, whatever this machine's
# speed.
export STUB_STATE=$T/state2
mkdir -p "$STUB_STATE"
O=$T/out2
NSYS='' NCU=$B/ncu PYTHON=$S/python3 BENCH_BUDGET_S=15 REPS=1 SECTIONS="A E B" bash "$BENCH" "$B" "$O" > "$T/run2.txt" 2>&1
rc=$?
F=$T/run2.txt
check "short budget exits 0 (rc $rc)" [ "$rc" = 0 ]
check "no nsys: said once per section" has "$F" "SKIP A nsys: no nsys found"
check "no nsys: A measured without it" has "$F" "median of 1/1/0 runs plain/perfcheck/nsys): plain 20.00 ms"
check "no nsys: the claim skipped" has "$F" "SKIP timing C++ ahead of nsys in the same run (perfcheck 21.00 ms, nsys -: no nsys run)"
check "E skipped with the reason" grep -qE '^SKIP section E \(training step: .*\): needs ~43 s \(warm-up and one round of: plain rotate kernel\), [0-9]+ s of the 15 s budget left' "$F"
check "B skipped with the reason" grep -qE '^SKIP section B \(timing, PyTorch: 4096 x.add_\(1\)\): needs ~19 s \(warm-up and one round of: plain perfcheck kineto\), [0-9]+ s of the 15 s budget left' "$F"
check "the Markdown says E was skipped" has "$O/bench_overhead.md" "SKIP: needs ~"
check "END line names the skips" grep -qE '^END .* A:1/1 E:skip B:skip$' "$F"
check "the table says what was not run" has "$O/table.md" "Not run: sections B, E (bench_overhead.sh's SKIP lines say why)."

# ---- 3. --dry-run: the plan, nothing run or written ---------------------------
export STUB_STATE=$T/state3
mkdir -p "$STUB_STATE"
NSYS=$B/nsys NCU=$B/ncu bash "$BENCH" --dry-run "$B" "$T/out3" > "$T/run3.txt" 2>&1
rc=$?
F=$T/run3.txt
check "dry run exits 0 (rc $rc)" [ "$rc" = 0 ]
check "dry run writes nothing" [ ! -e "$T/out3" ]
check "dry run runs nothing" [ -z "$(find "$STUB_STATE" "$T/tmp" -mindepth 1)" ]
check "dry run: plan in order" before "$F" "PLAN section A" "PLAN section B"
check "dry run: the ncu --set full command" grep -qE -- '^ +~11s +timeout 120 .*ncu --clock-control none --set full .*kernels/mystery --profile $' "$F"
check "dry run: the 100-kernel program's --set full over 4 launches" grep -qE -- '^ +~11s +timeout [0-9]+ .*ncu --clock-control none --set full --launch-count 4 .*bench_launches plain hundred $' "$F"
check "dry run: Kineto's command" grep -qE -- 'python3 .*/add_loop.py --kineto $' "$F"
check "dry run: nsys writes to the scratch folder" grep -qE -- 'nsys profile --trace=cuda --sample=none --cpuctxsw=none -o .*pc-bench.DRYRUN/nsys/A.w ' "$F"
end=$(sed -n 's/^END bench_overhead: \([0-9]*\) s of the 330 s budget; rounds done per section: A:3\/3 B:3\/3 C:3\/3 O:3\/3 P:1\/1 E:[0-3]\/3 H:[0-3]\/3$/\1/p' "$F")
check "dry run: the 330 s default plans A to P in full, E and H in part, inside the budget (${end:-no END line})" \
  [ "${end:-999}" -le 330 ]
# With 280 s, E's second round would leave H too little to start (the
# estimates: E's round 43 s, H's 32 s): E gives way.
BENCH_BUDGET_S=280 NSYS=$B/nsys NCU=$B/ncu bash "$BENCH" --dry-run "$B" "$T/out3" > "$T/run4.txt" 2>&1
check "dry run, 280 s: E's second round gives way to H, with the reason" \
  has "$T/run4.txt" "SKIP E rounds 2-3 of 3: one more takes ~43 s of the 64 s left, kept for the later sections that fit (H)"
check "dry run, 280 s: H then runs one round" grep -qE '^END bench_overhead: [0-9]+ s of the 280 s budget; .* E:1/3 H:1/3$' "$T/run4.txt"
REPS=4 BENCH_BUDGET_S=100 NSYS=$B/nsys NCU=$B/ncu bash "$BENCH" --dry-run "$B" "$T/out3" > "$T/run5.txt" 2>&1
check "dry run, 100 s: E planned out" grep -q '^SKIP section E .*needs ~' "$T/run5.txt"
check "usage error: exit 64" sh -c "bash '$BENCH' only-one > /dev/null 2>&1; [ \$? = 64 ]"

if [ "$fails" != 0 ]; then
  echo "---- run 1"; cat "$T/run1.txt"; echo "---- run 2"; cat "$T/run2.txt"; echo "---- run 3"; cat "$T/run3.txt"
  echo "$fails check(s) failed"
  exit 1
fi
echo "all checks passed"
