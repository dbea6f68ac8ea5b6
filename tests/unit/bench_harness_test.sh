#!/usr/bin/env bash
# bench_harness_test.sh SOURCE_DIR [PYTHON]: the GPU machine's harness on a CPU.
#
# scripts/device/bench --dry-run plans a call without running, building or
# writing anything: each command's steps, the build it needs (a call of
# benchmarks alone builds only their programs), the overhead benchmark's
# rounds within the call's deadline, and the command left for the next call.
# Then the summary scripts on what an H200 recorded (tests/data/bench/):
# bench_overhead_summary.py's table (scripts/bench_overhead.sh's runs),
# bench_table.py (scripts/device/bench.sh's), and host_cuts.py on a snapshot
# with one cut.  The figures asserted are the ones docs/measurements reported
# from the same runs.
set -u
unset A_PROBES BENCH_DEADLINE_S BENCH_SOURCE E_MODES REPS SECTIONS SKIP TESTS_RE
SRC=$(cd "${1:?usage: bench_harness_test.sh SOURCE_DIR [PYTHON]}" && pwd)
PY=${2:-python3}
BENCH=$SRC/scripts/device/bench
DATA=$SRC/tests/data/bench
T=$(mktemp -d "${TMPDIR:-/tmp}/pc-harness-test.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
export BENCH_WORK=$T/work OUT=$T/out
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

# ---- 1. the commands ---------------------------------------------------------
bash "$BENCH" --list > "$T/list.txt" 2>&1
check "--list exits 0" [ $? = 0 ]
for c in setup demo tests timing counters passes rotation overhead advice heldout corpus verdicts graphs accuracy \
  exports snapshots launches tools; do
  check "--list names $c with its estimate" grep -qE "^$c +~[0-9]+s$" "$T/list.txt"
done
check "--list: all is a new user's order" has "$T/list.txt" "all        demo setup tests overhead"
bash "$BENCH" --help > "$T/help.txt" 2>&1
check "--help prints the commands" has "$T/help.txt" "overhead   every row of the overhead table in one run"
bash "$BENCH" nosuchcommand > "$T/bad.txt" 2>&1
check "an unknown command: exit 64" [ $? = 64 ]
check "  and says so" has "$T/bad.txt" "bench: unknown command 'nosuchcommand' (--list)"
bash "$BENCH" --nosuchoption overhead > /dev/null 2>&1
check "an unknown option: exit 64" [ $? = 64 ]
bash "$BENCH" > /dev/null 2>&1
check "no command: exit 64" [ $? = 64 ]

# ---- 2. --dry-run all: demo, the README's build, tests; the benchmark next --------
bash "$BENCH" --dry-run all > "$T/all.txt" 2>&1
rc=$?
F=$T/all.txt
check "dry run of all exits 0 (rc $rc)" [ "$rc" = 0 ]
check "nothing written to OUT" [ ! -e "$OUT" ]
check "nothing made in the work folder" [ ! -e "$BENCH_WORK" ]
check "the demo first, from a fresh copy" before "$F" "fresh copy of $SRC in $BENCH_WORK/demo" "setup: a fresh copy"
check "  scripts/demo.sh there" grep -qF 'scripts/demo.sh sh '"$BENCH_WORK"'/demo > demo.txt 2>&1' "$F"
check "the README's build, every target" grep -qE 'cmake\\ --build\\ build\\ -j\\"\\\$\\\(nproc\\\)\\"\\ \\"\\\$@\\" sh [^ ]+/work/src > build.log 2>&1$' "$F"
check "  from a fresh copy" has "$F" "fresh copy of $SRC in $BENCH_WORK/src"
check "the tests without the gpu label in parallel" grep -qE "ctest --test-dir $BENCH_WORK/src/build -j[0-9]+ -LE \\\\\^gpu\\\\\\$ --output-on-failure > ctest-cpu.log" "$F"
check "the gpu label one at a time, the multi-GPU tests first" \
  before "$F" "-R \\^gpu\\\\.multigpu_ --output-on-failure > ctest-multigpu.log" "-E \\^gpu\\\\.multigpu_ --output-on-failure > ctest-gpu.log"
check "the benchmark left for the next call, with the reason" \
  has "$F" "[bench +300s] overhead: not started: about 480 s, 275 s left before the 585 s deadline"
check "the NEXT line" grep -qE '^\[bench \+300s\] NEXT: scripts/device/bench overhead$' "$F"

# ---- 3. --dry-run overhead: its programs built, every row planned -------------------
bash "$BENCH" --dry-run overhead > "$T/overhead.txt" 2>&1
rc=$?
F=$T/overhead.txt
check "dry run of overhead exits 0 (rc $rc)" [ "$rc" = 0 ]
check "only the benchmarks' programs built" has "$F" "sh $BENCH_WORK/src --target perfcheck_cli --target perfcheck_inject --target bench_launches --target overhead_probe --target k_mystery --target k_occupancy --target gpu_setup_probe --target gpu_session_probe > build.log 2>&1"
# (the budget: what the call has left after the build, by the estimates)
check "the sections in order, 4 rounds" has "$F" "overhead: scripts/bench_overhead.sh, sections A B C O P E H, REPS 4, budget 530 s"
check "every section planned in full within the call" \
  grep -qE '^    END bench_overhead: [0-9]+ s of the 530 s budget; rounds done per section: A:4/4 B:4/4 C:4/4 O:4/4 P:1/1 E:4/4 H:4/4$' "$F"
check "the 100-kernel program under ncu --set full, 4 launches" \
  grep -qE -- 'ncu --clock-control none --set full --launch-count 4 [^ ]+/bench/bench_launches plain hundred $' "$F"
check "Kineto beside nsys" grep -qE -- 'add_loop.py --kineto $' "$F"
check "nothing left for later" hasnt "$F" "NEXT:"
SKIP=H bash "$BENCH" --dry-run overhead > "$T/small.txt" 2>&1
check "the smaller variant, SKIP=H: the 100-kernel program left out" \
  grep -qE 'rounds done per section: A:4/4 B:4/4 C:4/4 O:4/4 P:1/1 E:4/4 H:skip$' "$T/small.txt"
SECTIONS="C" BENCH_DEADLINE_S=1200 bash "$BENCH" --dry-run overhead counters > "$T/sections.txt" 2>&1
check "SECTIONS chooses the overhead command's sections only" \
  before "$T/sections.txt" "overhead: scripts/bench_overhead.sh, sections C, REPS 4" "counters: scripts/bench_overhead.sh, sections C O H, REPS 4"
check "a second benchmark command reuses the build" [ "$(grep -c 'setup: a fresh copy' "$T/sections.txt")" = 1 ]

# ---- 4. other commands: their steps, the deadline ----------------------------------
bash "$BENCH" --dry-run advice corpus > "$T/advice.txt" 2>&1
F=$T/advice.txt
check "advice and corpus need everything built" grep -qE "sh $BENCH_WORK/src > build.log 2>&1$" "$F"
check "advice: the timing first" grep -qE "timeout 150 $BENCH_WORK/src/build/kernels/advice --time > advice/time.tsv 2> advice/time.log$" "$F"
check "advice: ncu --set full over the originals' NVTX ranges" \
  grep -qE -- "--set full --metrics .* --nvtx --nvtx-include regex:advice:\\.\\\\\*/ --clock-control none --export $BENCH_WORK/r/advice/advice --force-overwrite $BENCH_WORK/src/build/kernels/advice --profile --variant orig > advice/ncu.log" "$F"
check "advice: perfcheck run over the same" grep -qF -- "perfcheck run --nvtx --nvtx-include regex:\\^advice:/ --format json --output $BENCH_WORK/r/advice/inproc.json -- $BENCH_WORK/src/build/kernels/advice --profile --variant orig" "$F"
check "advice: scored by advice_corpus.py" grep -qF -- "scripts/advice_corpus.py --timing $BENCH_WORK/r/advice/time.tsv --report $BENCH_WORK/r/advice/inproc.json > advice/corpus-inproc.txt" "$F"
check "corpus left for the next call" grep -qE 'NEXT: scripts/device/bench corpus$' "$F"
bash "$BENCH" --dry-run heldout > "$T/heldout.txt" 2>&1
check "heldout's three parts: more than a call, the split named" \
  has "$T/heldout.txt" 'heldout: not started: about 650 s, more than one call holds; run HELDOUT_PARTS=cpp, then HELDOUT_PARTS="py valid"'
HELDOUT_PARTS="py valid" bash "$BENCH" --dry-run heldout > "$T/heldout2.txt" 2>&1
check "heldout, two parts: heldout.sh with them" \
  grep -qE "timeout 460 bash .+/scripts/device/heldout.sh $BENCH_WORK/src/build $BENCH_WORK/r/heldout py valid > heldout.log 2>&1$" "$T/heldout2.txt"
BENCH_DEADLINE_S=1200 bash "$BENCH" --dry-run tools graphs > "$T/tools.txt" 2>&1
F=$T/tools.txt
check "tools: ncu's --help against perfcheck run's flags" grep -qF -- "tests/unit/check_ncu_flags.py $BENCH_WORK/src/build/bin/perfcheck $BENCH_WORK/r/tools/ncu-help.txt" "$F"
check "tools: an nsys export read by perfcheck diagnose" grep -qF -- "perfcheck diagnose --wall-time 0ns $BENCH_WORK/r/tools/nsys/stats.csv" "$F"
check "graphs: both replay modes of the graph test" [ "$(grep -c 'gpu_test_graph_counters' "$F")" = 3 ]
check "graphs: the host cuts counted" grep -qF -- "scripts/device/host_cuts.py $BENCH_WORK/r/graphs/snap $BENCH_WORK/r/graphs/torch.json" "$F"

# ---- 5. the overhead table of what an H200 recorded -------------------------------
"$PY" "$SRC/scripts/bench_overhead_summary.py" --table --runs "$DATA/h200/runs.txt" --logs "$DATA/h200/logs" \
  --env "$DATA/h200/summary.txt" > "$T/table.md" 2>&1
check "the table exits 0" [ $? = 0 ]
F=$T/table.md
check "the GPU named" has "$F" "GPU (name, driver, ...): NVIDIA H200, 580.159.04, "
check "4096 tiny C++ launches: 1.58x, nsys 1.42x (docs/measurements/2026-12-02-h200-g, call 1: 1.576x, 1.423x)" \
  has "$F" "| 4096 tiny C++ launches, timing mode (median of 3) | 1.58x | nsys 1.42x | <= 1.20x, and below nsys in the same run | **no** |"
check "4096 PyTorch ops: 1.26x, nsys 1.54x (2026-12-02-h200-d: 1.257x, 1.537x)" \
  has "$F" "| 4096 tiny PyTorch ops, timing mode (median of 3) | 1.26x | nsys 1.54x | <= 1.05x | **no** |"
check "the 4-launch program: 0.225/0.197 of ncu's, 0.048/0.042 of --set full's (2026-12-03-h200, call 4)" \
  has "$F" "| 4-launch program (mystery), counters, added wall (median of 5) | kernel replay 0.225 of ncu's, 0.048 of --set full's; rotation 0.197 of ncu's, 0.042 of --set full's | ncu +2.28 s, --set full +10.62 s | <= 0.10 of ncu's and <= 0.02 of --set full's | **no** |"
check "the training step: 1.17x, kernel replay 1.38x (2026-12-03-h200, call 5: 1.173x, 1.383x)" \
  grep -qF "| 1000-step PyTorch training step, rotation (median of 4) | 1.17x process wall; kernel replay 1.38x | - | <= 1.05x" "$F"
check "the sections not in the runs named" has "$F" "Not run: sections O, P, H"
check "where the C++ launch's time goes: CUPTI's share, perfcheck's own" \
  has "$F" "perfcheck +1.025 us over plain; CUPTI's launch callbacks and activity records +0.821 us of it (callbacks alone +0.071, activity alone +0.724); perfcheck's own +0.204 us"
check "where the 4-launch program's time goes: the counter layer's phases" \
  has "$F" "kernel replay: added +0.512 s (median of 1 run): the counter layer 0.477 s over 4 profiled launch(es), CUPTI's calls and the replayed passes (launch+replay 0.284 s, start 0.182 s, chip setup 0.006 s, enable 0.003 s); lib/gpu's set-up 0.013 s; the rest +0.022 s"
"$PY" "$SRC/scripts/bench_overhead_summary.py" --section P --runs "$DATA/h200/runs.txt" --logs "$DATA/h200/logs" > "$T/p.txt" 2>&1
check "a section with no run says so" has "$T/p.txt" "SKIP section P: no run was made"
"$PY" - "$SRC/scripts" "$DATA/h200/logs/C.kernel.json.gz" > "$T/units.txt" 2>&1 <<'PY'
import gzip, json, sys
sys.path.insert(0, sys.argv[1])
import bench_overhead_summary as s
print(s.not_measured_units(json.load(gzip.open(sys.argv[2], "rt"))))
PY
check "the units a report's step-2 note says were not measured" has "$T/units.txt" "the FMA pipe, the FP64 pipe, the load/store (LSU) pipe, the XU (transcendental) pipe, the uniform pipe, L2 (in part), L1/shared memory (in part)"

# ---- 6. bench.sh's table of what an H200 recorded ----------------------------------
"$PY" "$SRC/scripts/device/bench_table.py" "$DATA/h200-launches/runs.tsv" "$DATA/h200-launches/env.txt" "$T/no-reports" \
  > "$T/launches.md" 2>&1
check "bench_table.py exits 0" [ $? = 0 ]
F=$T/launches.md
check "tiny: timing 1.637x plain" has "$F" "| tiny | 17.088 | 27.973 | 1.637 | ≤ 1.10 | FAIL | 3/3, 3/3 |"
check "a million launches: every one counted, 16.6 MiB" has "$F" "| timing | 5,345.5 | 16.6 | 39.3 | all 1,000,000 | 0 | 3/3 |"
check "fifty: 0.0720 of ncu's same list" grep -qF "| fifty | 442 | 715 | 1,443 | 9,933 | " "$F"
check "  and its --set full extrapolated, said so" has "$F" "0.0720 PASS | ≤ 0.0354; ≈ 0.0082 (extrapolated) PASS on the extrapolation only |"

# ---- 7. host_cuts.py on a snapshot with one cut (a format fixture) ----------------------
mkdir -p "$T/snap"
cat > "$T/snap/region.json" <<'JSON'
{"profiled": [{"signature": 3, "correlation": 17, "enter": 1000000, "exit": 41000000},
              {"signature": null, "correlation": 0, "enter": 50000000, "exit": 62000000}]}
JSON
printf '{"regions": [{"name": "step", "wall_ns": 18000000, "profiling_ns": 12000000, "kernel_ns": 1500000}]}\n' > "$T/report.json"
"$PY" "$SRC/scripts/device/host_cuts.py" "$T/snap" "$T/report.json" > "$T/cuts.txt" 2>&1
check "host_cuts.py: one cut of the two profiled entries, 12 ms" has "$T/cuts.txt" "snapshot region.json: 2 profiled entries, 1 host cut(s), 12.00 ms"
check "host_cuts.py: the region's clock" has "$T/cuts.txt" "region step: wall_ms 18.00 profiling_ms 12.00 kernel_ms 1.50"

if [ "$fails" != 0 ]; then
  for f in all overhead advice tools table; do echo "---- $f"; cat "$T/$f".*; done
  echo "$fails check(s) failed"
  exit 1
fi
echo "all checks passed"
