#!/usr/bin/env bash
# run.sh [STAGES...]: everything perfcheck needs from the GPU machine, in one
# call of the device tool.  Builds nothing there: the build tree made here
# (build-dev, configured with CMAKE_CUDA_ARCHITECTURES=90) travels with the
# call (carry build-dev and .dev), because the device has no cmocka and every
# minute there counts.  Stages (default: all): env tests demo accuracy bench.
# Writes logs under $OUT (one tarball plus a summary, since at most 8 files
# come back).
set -uo pipefail
ROOT=$(pwd)
OUT=${OUT:-$ROOT/out}
mkdir -p "$OUT/r"
R=$OUT/r
BUILD=$ROOT/build-dev
stages=${*:-env ceilings tests demo accuracy bench}
t0=$(date +%s)
say() { echo "[run.sh +$(( $(date +%s) - t0 ))s] $*"; }

# The build tree holds absolute paths of this machine's checkout (/work/main).
if [ "$ROOT" != /work/main ] && [ ! -e /work/main ]; then
  mkdir -p /work && ln -s "$ROOT" /work/main
fi
# cmocka travels as a library next to the tree (unit tests link it).
export LD_LIBRARY_PATH="$ROOT/.dev/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="/usr/local/cuda/bin:$PATH"

for s in $stages; do
  case $s in
    env)
      say env
      { date -u; uname -a; nvidia-smi; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
        nvcc --version | tail -2; ncu --version | tail -1
        grep RmProfilingAdminOnly /proc/driver/nvidia/params; id; nproc; } > "$R/env.txt" 2>&1
      ;;
    gputests)
      say "ctest: gpu label, one at a time"
      (cd "$BUILD" && timeout 400 ctest --output-on-failure -L '^gpu$') > "$R/ctest-gpu.log" 2>&1
      echo "ctest rc=$?" >> "$R/ctest-gpu.log"
      grep -E "Test +#|tests passed|rc=" "$R/ctest-gpu.log"
      ;;
    injectspeed)
      say "perfcheck run (timing) against plain: 5 alternating process runs per workload"
      for i in 1 2 3 4 5; do
        for w in tiny bound; do
          timeout 60 "$BUILD/bench/bench_launches" plain $w 2>&1 | grep '^RESULT' | sed 's/^/plain /'
          timeout 60 "$BUILD/bin/perfcheck" run --mode timing --output /dev/null -- "$BUILD/bench/bench_launches" plain $w 2>&1 | grep '^RESULT' | sed 's/^/shim /'
        done
        s0=$(date +%s%N); "$BUILD/kernels/roundtrip" --profile >/dev/null 2>&1; s1=$(date +%s%N)
        "$BUILD/bin/perfcheck" run --mode timing --output /dev/null -- "$BUILD/kernels/roundtrip" --profile >/dev/null 2>&1; s2=$(date +%s%N)
        echo "STARTUP plain_ms=$(( (s1 - s0) / 1000000 )) shim_ms=$(( (s2 - s1) / 1000000 ))"
      done > "$R/injectspeed.txt"
      python3 - "$R/injectspeed.txt" <<'PY'
import re, statistics, sys
v = {}
for line in open(sys.argv[1]):
    m = re.match(r"(plain|shim) RESULT mode=\S+ workload=(\S+) wall_ms=([0-9.]+)", line)
    if m: v.setdefault((m.group(2), m.group(1)), []).append(float(m.group(3)))
    m = re.match(r"STARTUP plain_ms=(\d+) shim_ms=(\d+)", line)
    if m: v.setdefault(("roundtrip-process", "plain"), []).append(float(m.group(1))); v.setdefault(("roundtrip-process", "shim"), []).append(float(m.group(2)))
for w in ("tiny", "bound", "roundtrip-process"):
    p, s = v.get((w, "plain"), []), v.get((w, "shim"), [])
    if p and s:
        print("%-18s plain median %9.3f ms (n=%d)  perfcheck run median %9.3f ms (n=%d)  ratio %.3f  added %.1f ms" % (w, statistics.median(p), len(p), statistics.median(s), len(s), statistics.median(s) / statistics.median(p), statistics.median(s) - statistics.median(p)))
PY
      ;;
    ceilings)
      say "perfcheck ceilings (cached for the sessions below)"
      timeout 60 "$BUILD/bin/perfcheck" ceilings > "$R/ceilings.txt" 2>&1; echo "rc=$?" >> "$R/ceilings.txt"
      cat "$R/ceilings.txt"
      ;;
    tests)
      say "ctest: unit and nogpu in parallel, then gpu one at a time (timing tests must not share the GPU)"
      (cd "$BUILD" && timeout 120 ctest --output-on-failure -j8 -L 'unit|nogpu') > "$R/ctest-cpu.log" 2>&1
      echo "ctest rc=$?" >> "$R/ctest-cpu.log"
      tail -15 "$R/ctest-cpu.log"
      (cd "$BUILD" && timeout 240 ctest --output-on-failure -L '^gpu$') > "$R/ctest-gpu.log" 2>&1
      echo "ctest rc=$?" >> "$R/ctest-gpu.log"
      tail -40 "$R/ctest-gpu.log"
      ;;
    demo)
      say "demo: examples/mystery_region"
      timeout 120 "$BUILD/examples/example_mystery_region" > "$R/demo.txt" 2>&1; echo "rc=$?" >> "$R/demo.txt"
      cat "$R/demo.txt"
      ;;
    accuracy)
      say "accuracy: in-process counters against ncu exports"
      mkdir -p "$R/acc"
      timeout 240 "$BUILD/tests/gpu/gpu_accuracy_dump" "$R/acc" > "$R/acc/dump.log" 2>&1; echo "dump rc=$?" >> "$R/acc/dump.log"
      python3 "$ROOT/scripts/device/accuracy.py" "$R/acc" "$ROOT/tests/data/h200" "$R/accuracy.md" > "$R/acc/compare.log" 2>&1
      echo "compare rc=$?" >> "$R/acc/compare.log"
      tail -5 "$R/acc/dump.log"; tail -15 "$R/acc/compare.log"
      ;;
    quickbench)
      say "quick bench: tiny (4096 launches) plain vs timing, 9 alternating process runs each"
      for i in 1 2 3 4 5 6 7 8 9; do
        for m in plain timing; do
          timeout 30 "$BUILD/bench/bench_launches" $m tiny 2>&1 | grep '^RESULT'
        done
      done > "$R/quickbench.txt"
      python3 - "$R/quickbench.txt" <<'PY'
import re, statistics, sys
v = {}
for line in open(sys.argv[1]):
    m = re.search(r"mode=(\S+) workload=tiny wall_ms=([0-9.]+)", line)
    if m: v.setdefault(m.group(1), []).append(float(m.group(2)))
for k, x in v.items(): print(k, "n=%d median=%.3f ms min=%.3f max=%.3f" % (len(x), statistics.median(x), min(x), max(x)))
if "plain" in v and "timing" in v: print("timing/plain median ratio %.3f" % (statistics.median(v["timing"]) / statistics.median(v["plain"])))
PY
      ;;
    overhead)
      say "overhead probe: host cost per launch under CUPTI, 5 alternating process runs per mode"
      for i in 1 2 3 4 5; do
        for m in plain cb act cbact perfcheck; do timeout 30 "$BUILD/bench/overhead_probe" $m 2>&1 | grep '^RESULT'; done
      done > "$R/overhead.txt"
      python3 - "$R/overhead.txt" <<'PY'
import re, statistics, sys
v = {}
for line in open(sys.argv[1]):
    m = re.search(r"mode=(\S+) us_per_launch=([0-9.]+)", line)
    if m: v.setdefault(m.group(1), []).append(float(m.group(2)))
for k, x in v.items(): print("%-10s n=%d median %.3f us/launch (min %.3f, max %.3f)" % (k, len(x), statistics.median(x), min(x), max(x)))
PY
      ;;
    bench)
      say "bench"
      BENCH_BUDGET_S=${BENCH_BUDGET_S:-200} timeout 270 "$ROOT/scripts/device/bench.sh" "$BUILD" "$R/bench" > "$R/bench.log" 2>&1; echo "bench rc=$?" >> "$R/bench.log"
      tail -60 "$R/bench.log"
      ;;
  esac
done
say "packing"
tar -czf "$OUT/results.tgz" -C "$R" . && rm -rf "$R"
say done
