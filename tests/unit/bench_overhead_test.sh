#!/usr/bin/env bash
# bench_overhead_test.sh SOURCE_DIR: scripts/bench_overhead.sh on a CPU.
#
# Stub programs stand in for the GPU's (bench_launches, overhead_probe,
# mystery, perfcheck, ncu, nsys, python3 with torch): each prints the lines
# the script parses, the timed values from a known sequence per mode (the
# first value is the warm-up's, far off, so a median that took it in shows).
# Checked: the medians, ratios and claims of each section; the warm-up left
# out; the sections' order (C A D B E) and their lines printed as each ends;
# nsys's files made and deleted; the output small and two levels deep; the
# budget's SKIP lines; --dry-run's plan, which runs and writes nothing.
set -u
# The script's knobs come from the environment: a caller's (a device run
# with SECTIONS=A, say) must not choose what this test checks.
unset BENCH_BUDGET_S BENCH_LOG_MAX_KB E_MODES E_ROTATE_SESSION E_STEPS NCU NSYS NSYS_OPTS PYTHON REPS SECTIONS SKIP
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
case ${STUB_UNDER:-}$1 in
  plain) v=$(next bl.plain 100 20 30 10) ;;
  timing) v=$(next bl.timing 200 21 22 21.5) end=1.5 ;;
  nsysplain) v=$(next bl.nsys 300 30 31 32) ;;
  *) echo "stub bench_launches: $*" >&2; exit 64 ;;
esac
echo "RESULT mode=$1 workload=$2 wall_ms=$v launches_expected=4096 launches_recorded=4096${end:+ end_ms=$end}"
SH
cat > "$B/bench/overhead_probe" <<'SH'
#!/usr/bin/env bash
case ${STUB_UNDER:-}$1 in plain) v=4.000 ;; nsysplain) v=4.800 ;; cb) v=5.000 ;; act) v=5.500 ;; actz) v=5.250 ;; actpin) v=5.750 ;; cbact) v=6.000 ;;
  perfcheck) v=6.500 ;; esac
echo "RESULT mode=$1 us_per_launch=$v sync_ms=0.100"
SH
cat > "$B/kernels/mystery" <<'SH'
#!/usr/bin/env bash
echo "all 4 launches match the CPU reference at every element"
SH
cat > "$B/bin/perfcheck" <<'SH'
#!/usr/bin/env bash
case $1 in
  --version) echo "perfcheck 0.0.0-stub"; exit 0 ;;
  metrics) if [ "${2:-}" = --passes ]; then echo 4; else echo "sm__cycles_elapsed.avg, dram__bytes_read.sum"; fi; exit 0 ;;
  run) ;;
  *) exit 64 ;;
esac
shift
out=
while [ $# -gt 0 ] && [ "$1" != -- ]; do [ "$1" = --output ] && { out=$2; shift; }; shift; done
shift
STUB_UNDER=perfcheck "$@"
rc=$?
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
cold=0
while [ $# -gt 0 ]; do
  case $1 in
    --cache-control) [ "$2" = all ] && cold=1; shift 2 ;;
    --clock-control | --metrics | --page | --print-units | --kernel-name | --launch-count | --set) shift 2 ;;
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
    case ${STUB_UNDER:-plain} in
      plain) v=$(next add.plain 100 40 50 45) ;;
      perfcheck) v=$(next add.perfcheck 300 46 47 46.5) ;;
      nsys) v=$(next add.nsys 400 70 71 72) ;;
    esac
    echo "RESULT mode=torch workload=add4096 wall_ms=$v" ;;
  */torch_step.py)
    case ${STUB_UNDER:-plain}.${PERFCHECK_REPLAY:-}${PERFCHECK_ROTATE_SESSION:+.session} in
      plain.*) v=$(next ts.plain 9000 2600 2700 2650) ;;
      perfcheck.rotate) v=$(next ts.rotate 9000 2800 2850 2900) ;;
      perfcheck.rotate.session) v=$(next ts.session 9000 2950 3000 2900) ;;
      *) v=$(next ts.kernel 9000 3200 3300 3250) ;;
    esac
    echo "torch_step: plain, 1000 steps in $v ms; step ms: first 3.00, median of the rest 2.60" ;;
  */dram_gemm.py) echo "RESULT mode=torch workload=gemm4096 launches=8" ;;
  *) echo "stub python3: $*" >&2; exit 64 ;;
esac
SH
chmod +x "$B/bench/"* "$B/kernels/mystery" "$B/bin/perfcheck" "$B/ncu" "$B/nsys" "$S/python3"
export STUB_LIB=$S/lib.sh TMPDIR=$T/tmp
# nvidia-smi and git may be missing or fail: the ENV lines say so, nothing stops.

# ---- 1. every section, enough budget ------------------------------------------
export STUB_STATE=$T/state1
mkdir -p "$STUB_STATE"
O=$T/out1
NSYS=$B/nsys NCU=$B/ncu PYTHON=$S/python3 BENCH_BUDGET_S=100000 E_MODES="plain rotate session kernel" \
  bash "$BENCH" "$B" "$O" > "$T/run1.txt" 2>&1
rc=$?
check "full run exits 0 (rc $rc)" [ "$rc" = 0 ]
F=$T/run1.txt
check "ENV lines first" before "$F" "ENV perfcheck: perfcheck 0.0.0-stub" "FIGURE"
check "nsys options from its --help" has "$F" "ENV nsys options: --trace=cuda --sample=none --cpuctxsw=none"
check "torch found" has "$F" "ENV python: $S/python3: torch 2.9.0+stub"
check "sections in the order C A D B E" before "$F" "FIGURE mystery --profile" "FIGURE timing C++"
check "  A before D" before "$F" "FIGURE timing C++" "DRAM mystery (rotate)"
check "  D before B" before "$F" "DRAM cuBLAS GEMM" "FIGURE timing PyTorch"
check "  B before E" before "$F" "FIGURE timing PyTorch" "FIGURE torch_step"
check "C's figures printed before A's runs start" before "$F" "FIGURE mystery --profile" "section A:"
# A: medians of the timed rounds only (warm-ups 100/200/300 left out)
check "A: medians, ratios, per launch" has "$F" "FIGURE timing C++, 4096 tiny launches (the loop's wall in the process, median of 3/3/3 runs plain/perfcheck/nsys): plain 20.00 ms (4.88 us a launch), perfcheck 21.50 ms (1.075x, +0.37 us a launch), nsys 31.00 ms (1.550x, +2.69 us a launch)"
check "A: claim <= 1.10x" has "$F" "PASS timing C++ <= 1.10x plain (1.075x)"
check "A: without perfcheck_session_end" has "$F" "FIGURE timing C++ without perfcheck_session_end (its flush, decoding and report, inside the timed part; median of 3 runs): perfcheck 20.00 ms (1.000x, +0.00 us a launch), nsys 31.00 ms (1.550x)"
check "A: claim ahead of nsys (nsys rc 1 still counted)" has "$F" "PASS timing C++ ahead of nsys in the same run (perfcheck 21.50 ms, nsys 31.00 ms)"
check "A: host cost per launch" has "$F" "FIGURE host cost per launch (overhead_probe, median of 3 processes, each the median of its rounds): plain 4.000 us, callbacks 5.000 us, activity 5.500 us, activity, zeroed buffers 5.250 us, activity, pinned record buffers 5.750 us, both 6.000 us, perfcheck 6.500 us, plain under nsys 4.800 us; perfcheck over plain +2.500 us; perfcheck's own (over callbacks and activity) +0.500 us; nsys over plain +0.800 us"
# B
check "B: medians" has "$F" "plain 45.00 ms (10.99 us a launch), perfcheck 46.50 ms (1.033x, +0.37 us a launch), nsys 71.00 ms (1.578x, +6.35 us a launch)"
check "B: claim <= 1.05x" has "$F" "PASS timing PyTorch <= 1.05x plain (1.033x)"
# C: process walls of stubs are noise; the lines and counts are not
check "C: figure with 3 timed runs of each mode" has "$F" "FIGURE mystery --profile, process wall (median of 3 runs plain/3/3/3/3)"
check "C: passes from the report" has "$F" "FIGURE perfcheck's default set on this device: 4 passes"
check "C: a line for each ratio claim" [ "$(grep -cE '^(PASS|FAIL|SKIP) counters \((kernel|rotate)\) <= ' "$F")" = 4 ]
# D
check "D: mystery read within 10% (thousands separators read)" has "$F" "PASS DRAM mystery (rotate) mysteryA dram__bytes_read.sum within 10% of ncu --cache-control all: 16500000 vs 16000000 (+3.1%"
check "D: mystery 12.5% off fails" has "$F" "FAIL DRAM mystery (rotate) mysteryB dram__bytes_read.sum within 10% of ncu --cache-control all: 9000000 vs 8000000 (+12.5%"
check "D: kernel replay shown, not claimed" has "$F" "FIGURE DRAM mystery (kernel replay) mysteryA dram__bytes_read.sum against ncu --cache-control all: 1000000 vs 16000000 (-93.8%"
check "D: GEMM" has "$F" "PASS DRAM cuBLAS GEMM (rotate) cutlass_80_simt_sgemm_256x128_8x4_nn_align1 dram__bytes_read.sum within 10% of ncu --cache-control all: 203000000 vs 201326592 (+0.8%"
# E
check "E: the loop's medians" has "$F" "the loop plain 2650.0 ms, rotate 2850.0 ms (1.075x)"
check "E: loop claim" has "$F" "PASS rotation on the 1000-step training step <= 1.10x plain, the loop (1.075x)"
check "E: sessions' loop" has "$F" "the loop plain 2650.0 ms, rotate with sessions 2950.0 ms (1.113x)"
check "E: sessions' loop claim" has "$F" "FAIL rotation with sessions on the 1000-step training step <= 1.10x plain, the loop (1.113x)"
check "E: sessions' verdicts" has "$F" "FAIL rotation with sessions's verdicts are kernel replay's or flagged where they differ: 2 of 4 signatures the same, 1 differ flagged; flagged: foreach: session at_roof, kernel grid_too_small, counter_spread 0.06 (borderline); differ unflagged: elementwise: session latency_bound"
check "E: coverage" has "$F" "FIGURE torch_step under rotate: 4 kernel entries, 4 with counters (rotate 4), 4 with every group"
check "E: every signature" has "$F" "PASS every kernel signature has its counters under rotation (4 of 4 entries complete)"
check "E: verdicts differ, one borderline both ways (flagged), one not" has "$F" "FAIL rotation's verdicts are kernel replay's or flagged where they differ: 2 of 4 signatures the same, 1 differ flagged; flagged: foreach: rotate at_roof, kernel grid_too_small, counter_spread 0.06 (borderline); differ unflagged: elementwise: rotate latency_bound, kernel memory_bound, counter_spread 0.31"
check "END line" has "$F" "rounds done per section: C:3/3 A:3/3 D:1/1 B:3/3 E:3/3"
# output
check "summary.txt holds the same FIGURE lines" [ "$(grep -c '^FIGURE' "$O/summary.txt")" = "$(grep -c '^FIGURE' "$F")" ]
check "summary.txt holds ENV, PASS, FAIL" has "$O/summary.txt" "FAIL DRAM mystery (rotate) mysteryB"
check "bench_overhead.md: sections in order" before "$O/bench_overhead.md" "## C. counters" "## A. timing, C++"
check "bench_overhead.md: a table with the warm-up" has "$O/bench_overhead.md" "| plain | 3 (0,0,0) |"
check "runs.txt: one RUN line a process" [ "$(grep -c '^RUN ' "$O/runs.txt")" = $(( 5 * 4 + 11 * 4 + 5 + 3 * 4 + 4 * 4 )) ]
check "nsys made its files (12 runs)" [ "$(wc -l < "$STUB_STATE/nsys-made")" = 12 ]
check "and none is left" [ -z "$(find "$O" "$T/tmp" -name '*.qdstrm' -o -name '*.nsys-rep')" ]
check "the scratch folder removed" [ -z "$(ls -A "$T/tmp")" ]
check "output under 1 MB" [ "$(du -sk "$O" | cut -f1)" -lt 1024 ]
check "output two levels deep" [ -z "$(find "$O" -mindepth 3)" ]
check "one report per section and mode kept" [ "$(find "$O/logs" -name '*.json*' | wc -l)" = 8 ]

# ---- 2. a short budget, no nsys ------------------------------------------------
# A's warm-up and one round fit in 30 s; E's and B's (about 110 s and 32 s by
# the script's estimates) cannot, whatever this machine's speed.
export STUB_STATE=$T/state2
mkdir -p "$STUB_STATE"
O=$T/out2
NSYS='' NCU=$B/ncu PYTHON=$S/python3 BENCH_BUDGET_S=30 REPS=1 SECTIONS="A E B" bash "$BENCH" "$B" "$O" > "$T/run2.txt" 2>&1
rc=$?
F=$T/run2.txt
check "short budget exits 0 (rc $rc)" [ "$rc" = 0 ]
check "no nsys: said once per section" has "$F" "SKIP A nsys: no nsys found"
check "no nsys: A measured without it" has "$F" "median of 1/1/0 runs plain/perfcheck/nsys): plain 20.00 ms"
check "no nsys: the claim skipped" has "$F" "SKIP timing C++ ahead of nsys in the same run (perfcheck 21.00 ms, nsys -: no nsys run)"
check "E skipped with the reason" grep -qE '^SKIP section E \(training step: .*\): needs ~[0-9]+ s \(warm-up and one round of: plain rotate kernel\), [0-9]+ s of the 30 s budget left' "$F"
check "B skipped with the reason" grep -qE '^SKIP section B \(timing, PyTorch: 4096 x.add_\(1\)\): needs ~[0-9]+ s \(warm-up and one round of: plain perfcheck\), [0-9]+ s of the 30 s budget left' "$F"
check "the Markdown says E was skipped" has "$O/bench_overhead.md" "SKIP: needs ~"
check "END line names the skips" grep -qE '^END .* A:1/1 E:skip B:skip$' "$F"

# ---- 3. --dry-run: the plan, nothing run or written ---------------------------
export STUB_STATE=$T/state3
mkdir -p "$STUB_STATE"
NSYS=$B/nsys NCU=$B/ncu bash "$BENCH" --dry-run "$B" "$T/out3" > "$T/run3.txt" 2>&1
rc=$?
F=$T/run3.txt
check "dry run exits 0 (rc $rc)" [ "$rc" = 0 ]
check "dry run writes nothing" [ ! -e "$T/out3" ]
check "dry run runs nothing" [ -z "$(find "$STUB_STATE" "$T/tmp" -mindepth 1)" ]
check "dry run: plan in order" before "$F" "PLAN section C" "PLAN section A"
check "dry run: the ncu --set full command" grep -qE -- '^ +~12s +timeout 120 .*ncu --clock-control none --set full .*kernels/mystery --profile $' "$F"
check "dry run: nsys writes to the scratch folder" grep -qE -- 'nsys profile --trace=cuda --sample=none --cpuctxsw=none -o .*pc-bench21.DRYRUN/nsys/A.w ' "$F"
end=$(sed -n 's/^END bench_overhead: \([0-9]*\) s of the 330 s budget; rounds done per section: C:[1-3]\/3 A:[1-3]\/3 D:1\/1 B:[1-3]\/3 E:[1-3]\/3$/\1/p' "$F")
check "dry run: the 330 s default plans every section, inside the budget (${end:-no END line})" [ "${end:-999}" -le 330 ]
check "dry run: E's further rounds give way, with the reason" grep -qE '^SKIP E rounds [23]-3 of 3: one more takes ~55 s of the [0-9]+ s left' "$F"
BENCH_BUDGET_S=100 NSYS=$B/nsys NCU=$B/ncu bash "$BENCH" --dry-run "$B" "$T/out3" > "$T/run4.txt" 2>&1
check "dry run, 100 s: E planned out" grep -q '^SKIP section E .*needs ~' "$T/run4.txt"
check "usage error: exit 64" sh -c "bash '$BENCH' only-one > /dev/null 2>&1; [ \$? = 64 ]"

if [ "$fails" != 0 ]; then
  echo "---- run 1"; cat "$T/run1.txt"; echo "---- run 2"; cat "$T/run2.txt"
  echo "$fails check(s) failed"
  exit 1
fi
echo "all checks passed"
