#!/usr/bin/env bash
# run.sh [STAGES...]: everything perfcheck needs from the GPU machine, in one
# call of the device tool, from a SOURCE BUILD made there with the README's
# own commands (never a build tree carried from elsewhere: binaries built on
# another machine prove only that those binaries work).
#
# Carried with the call: only what the GPU machine lacks, the cmocka Debian
# packages, as .dev/debs/*.deb (made here with
#   mkdir -p .dev/debs && (cd .dev/debs && apt-get download libcmocka0 libcmocka-dev)
# and named in the call's `carry`).  They are unpacked with dpkg -x into
# /tmp/pc-cmocka and reached through PKG_CONFIG_PATH / LD_LIBRARY_PATH.
#
# Stages (default: env demo build tests: a new user's order, the README's
# demo from a fresh copy first): env build tests demo gputests ncuhelp nsys
# corpus exports quickbench overhead injectspeed bench accuracy ceilings
# snapshots inproc diffruns torchstep ncuwall torchdiag splittests (the corpus's Python programs in process, compared with
# tests/data/corpus's ncu rows by tests/corpus/check_expected.py) multigpu
# (the gpu.multigpu_* tests of issue 15, log r/multigpu.log) advice
# (kernels/advice, issue 19 item 7: advice --time, ncu --set full and perfcheck
# run of the originals, scored by scripts/advice_corpus.py; about 4 minutes;
# r/advice/) advicepair (the same for ADVICE_PAIRS=id,..., both variants,
# .ncu-rep kept) issue21 (issues 21 and 23: gpu.rotation, the collector's GPU
# tests, then scripts/bench_overhead.sh with a 300 s budget; ~7 min after
# build) bench21 (scripts/bench_overhead.sh alone, issue 21's figures, within
# BENCH_BUDGET_S, default 360 s: `run.sh build bench21` is one call of about
# 7.5 minutes) evidence (ncu's section and rule files, its --help, a plain
# --set full export) graphs (issue 21 item 4: counters of CUDA graph
# launches, gpu_test_graph_counters and a torch.compile reduce-overhead step
# under perfcheck run; ~3 min after build; r/graphs/) phases (issue 21: the
# counter layer's host time by phase under kernel replay and rotation,
# mystery and torch_step; ~1 min after build; r/phases/) foreach (issue 21:
# ncu's rows for torch's foreach optimizer kernels, then perfcheck run kernel
# and rotate on torch_step, verdicts compared by scripts/device/verdict_cmp.py;
# ~90 s; r/foreach/) hostcut (session closes in calls that profiled
# nothing, cut from the region's clock: gpu_test_graph_counters rotate and
# torch.compile under rotation with snapshots; ~60 s; r/hostcut/) setupprobe
# (issue 21 item 5: tests/gpu/setup_probe.cu, the steps a process pays before
# its first profiled launch, 3 rounds of 3 modes) l2break (ncu
# breakdown of lts__throughput and dram__throughput, both cache-control modes,
# on the torch ops whose in-process verdicts differ from ncu's; r/l2break/)
# jaxcrash (the corpus's jax_ops under perfcheck run for each of
# JAX_VARIANTS, default "kernel rotate rotate-nosession timing kernel-tkcupti
# rotate-tkcupti"; also default (PERFCHECK_REPLAY unset), kernel-nosass,
# kernel-sassonly, kernel-noautotune, kernel-nvtx),
# JAX_RUNS times each (2): the CUPTI copies in the Python
# environment and their sizes, which CUPTI the report names, the kernel being
# profiled when a run crashed and its stack; *-tkcupti preloads the
# toolkit's libcupti first; about 25 s a run; r/jaxcrash/).
# TESTS_TIMEOUT_S bounds the tests stage (default 540).  Logs go under $OUT (one tarball plus summary.txt: at most 8
# files come back).  snapshots records region snapshots
# (PERFCHECK_SNAPSHOT_DIR) of the device's source build into snapshots/ of
# the tarball: the coordinator commits that folder as tests/data/snapshots/,
# whose CPU test (tests/unit/test_recorded_snapshots.c) is registered once it
# is there.
set -uo pipefail
ROOT=$(pwd)
OUT=${OUT:-$ROOT/out}
R=$OUT/r
mkdir -p "$R"
BUILD=$ROOT/build
stages=${*:-env demo build tests}
t0=$(date +%s)
say() { echo "[run.sh +$(( $(date +%s) - t0 ))s] $*" | tee -a "$OUT/summary.txt"; }

# ---- what the machine lacks: cmocka --------------------------------------
CM=/tmp/pc-cmocka
rm -rf "$CM"
if ls "$ROOT"/.dev/debs/libcmocka*.deb >/dev/null 2>&1; then
  for d in "$ROOT"/.dev/debs/libcmocka*.deb; do dpkg -x "$d" "$CM"; done
  pc=$(find "$CM" -name cmocka.pc | head -1)
  sed -i "s|/usr|$CM/usr|g" "$pc"
  export PKG_CONFIG_PATH="$(dirname "$pc")${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  export LD_LIBRARY_PATH="$(dirname "$(dirname "$pc")")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
else
  say "no .dev/debs/libcmocka*.deb carried: the C unit tests will not be built"
fi
export PATH="/usr/local/cuda/bin:$PATH"
# Multicast stays off on every kind (the device tool's KINDS.md).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1

# crash_stack LOG RC WHAT: when a GPU test's own handler printed a stack in
# LOG (tests/gpu/gpu_test.h), libperfcheck's frames (hidden symbols) are
# turned into function and line with addr2line, into LOG's .stack.txt.
crash_stack() {
  local log=$1 rrc=$2 what=$3
  grep -q '^CRASH: signal' "$log" || return 0
  say "$what crashed (rc=$rrc): the stack, libperfcheck's frames resolved"
  sed -n '/^CRASH: signal/,$p' "$log" | head -40 | while IFS= read -r l; do
    echo "$l"
    lib=$(printf '%s' "$l" | sed -n 's/^\([^(]*libperfcheck[^(]*\)(+\(0x[0-9a-f]*\)).*/\1/p')
    off=$(printf '%s' "$l" | sed -n 's/^\([^(]*libperfcheck[^(]*\)(+\(0x[0-9a-f]*\)).*/\2/p')
    [ -n "$lib" ] && [ -n "$off" ] && addr2line -f -C -i -e "$lib" "$off" 2>&1 | sed 's/^/      /'
  done > "${log%.log}.stack.txt"
  grep -c . "${log%.log}.stack.txt" | sed 's/^/stack lines: /' | tee -a "$OUT/summary.txt"
}

# rotation_run: gpu.rotation run directly (PERFCHECK_PROGRESS step lines in
# r/rotation.log); a crash's stack resolved by crash_stack.
rotation_run() {
  # ROTATION_VARIANTS: extra runs with the rotation path's diagnostic
  # switches (docs/cupti.md §15), e.g. "REENABLE=0 REENABLE=0,FLUSH=0 FLUSH=0".
  local v tag envs log rrc
  for v in default ${ROTATION_VARIANTS:-}; do
    envs=(); tag=
    if [ "$v" != default ]; then
      IFS=, read -ra kv <<< "$v"
      for x in "${kv[@]}"; do envs+=("PERFCHECK_ROTATE_$x"); done
      tag=.$(echo "$v" | tr ',=' '_-')
    fi
    log=$R/rotation$tag.log
    env "${envs[@]}" timeout 120 "$BUILD/tests/gpu/gpu_test_rotation" > "$log" 2>&1
    rrc=$?
    echo "gpu_test_rotation ($v) rc=$rrc" >> "$log"
    crash_stack "$log" "$rrc" "rotation ($v)"
    grep -E '^(PASS|FAIL|SKIP)|rc=' "$log" | tee -a "$OUT/summary.txt"
  done
}

# phases_run: the body of stage phases (below), also run by stage rotsession.
phases_run() {
  P=$R/phases; mkdir -p "$P"
  say "phases: the counter layer's host time by phase, mystery and torch_step (${PHASES_STEPS:-300} steps), kernel and rotate"
  # PHASES_MODES (default "kernel rotate"; "timing" runs --mode timing),
  # PHASES_WORK (default "mystery torch").
  for m in ${PHASES_MODES:-kernel rotate}; do
    for w in ${PHASES_WORK:-mystery torch}; do
      case $w in
        mystery) cmd=("$BUILD/kernels/mystery" --profile) ;;
        torch) cmd=(python3 "$ROOT/examples/python/torch_step.py" --plain --steps "${PHASES_STEPS:-300}") ;;
      esac
      s0=$(date +%s.%N)
      mode=counters; [ "$m" = timing ] && mode=timing  # "timing": no counters, lib/gpu's own line only
      # "rotate:user": PERFCHECK_REPLAY=rotate with PERFCHECK_ROTATE_RANGE=user.
      # PHASES_PROGRESS=2: a line per profiled launch with its phases.
      # "rotate": PERFCHECK_ROTATE_SESSION=0; "rotate+session": =1 (sessions
      # spanning launches, the default under rotation since 2026-12-02).
      # "+nocache": an empty XDG_CACHE_HOME (no availability image or
      # rotation split from an earlier process; docs/cupti.md §19).
      ses=0; case $m in *+session*) ses=1; m0=${m/+session/} ;; *) m0=$m ;; esac
      xdg=${XDG_CACHE_HOME:-}; case $m0 in *+nocache*) m0=${m0/+nocache/}; xdg=$(mktemp -d) ;; esac
      rng=; case $m0 in *:*) rng=${m0#*:} ;; esac
      t=${m/:/-}; t=${t//+/-}
      XDG_CACHE_HOME=$xdg PERFCHECK_PROGRESS=${PHASES_PROGRESS:-1} PERFCHECK_REPLAY=${m0%%:*} PERFCHECK_ROTATE_RANGE=$rng PERFCHECK_ROTATE_SESSION=$ses timeout 200 \
        "$BUILD/bin/perfcheck" run --mode $mode --format json \
        --output "$P/$w.$t.json" -- "${cmd[@]}" > "$P/$w.$t.log" 2>&1
      echo "$w $m rc=$? wall_s=$(awk -v a="$(date +%s.%N)" -v b="$s0" 'BEGIN{printf "%.2f", a - b}')" >> "$P/$w.$t.log"
      { tail -1 "$P/$w.$t.log"; grep -E 'counter layer, host time|lib/gpu host time|^torch_step:' "$P/$w.$t.log" | cut -c1-900; } | tee -a "$OUT/summary.txt"
      gzip -f "$P/$w.$t.json" 2>/dev/null
    done
  done
  s0=$(date +%s.%N)
  timeout 200 python3 "$ROOT/examples/python/torch_step.py" --plain --steps "${PHASES_STEPS:-300}" > "$P/torch.plain.log" 2>&1
  echo "torch plain rc=$? wall_s=$(awk -v a="$(date +%s.%N)" -v b="$s0" 'BEGIN{printf "%.2f", a - b}')" >> "$P/torch.plain.log"
  tail -2 "$P/torch.plain.log" | tee -a "$OUT/summary.txt"
}

# bench21_run BUDGET_S: scripts/bench_overhead.sh (issue 21 item 7) within
# BUDGET_S seconds (BENCH_BUDGET_S overrides it).  It prints each section's
# FIGURE, PASS/FAIL and SKIP lines as the section ends; they reach
# summary.txt at once (a call cut short still brings back the sections that
# ended).  Its folder, r/bench21 (summary.txt, bench_overhead.md, runs.txt,
# logs/), stays under ~1 MB: nsys's reports are deleted after each run, logs
# cut to 32 KB.  Hard stop: the budget plus 60 s.
bench21_run() {
  local budget=${BENCH_BUDGET_S:-$1}
  BENCH_BUDGET_S=$budget REPS=${REPS:-3} timeout -k 10 $(( budget + 60 )) \
    bash "$ROOT/scripts/bench_overhead.sh" "$BUILD" "$R/bench21" 2>&1 | tee "$R/bench21.log" |
    grep --line-buffered -E '^(ENV|FIGURE|PASS|FAIL|SKIP|END)' | tee -a "$OUT/summary.txt"
  echo "bench_overhead rc=${PIPESTATUS[0]}" | tee -a "$R/bench21.log" "$OUT/summary.txt"
}

# advice_stage advice|advicepair: kernels/advice under events, ncu and
# perfcheck, scored by scripts/advice_corpus.py.  Steps (each timed, each
# under its own timeout; a failing step never stops the next):
#   1. advice --time                       -> r/advice/time.tsv (+ time.log)
#   2. ncu --set full --metrics "$(perfcheck metrics --set full)" --nvtx
#      --nvtx-include 'regex:advice:.*/' --clock-control none over advice --profile
#      (ncu --set full alone when it refuses the list), exported and read back
#      as --csv --page raw (advice.csv.gz) and with --print-nvtx-rename kernel
#      (advice.nvtx.csv.gz), then perfcheck diagnose --format json of the
#      renamed export (offline.json: each kernel named after its range)
#   3. perfcheck run --nvtx --nvtx-include 'regex:^advice:/' --format json over advice
#      --profile (inproc.json: each kernel's region is its range)
#   4. scripts/advice_corpus.py on 1+3 and on 1+2, text and JSON
# Expected on one H200: ~40 s, ~110 s, ~30 s, ~2 s (advice: the 45 originals;
# advicepair: seconds per pair).
advice_stage() {
  local kind=$1 A=$R/advice ADV=$BUILD/kernels/advice PC=$BUILD/bin/perfcheck
  local variant=${ADVICE_VARIANT:-orig} sel=() t rc list
  [ "$kind" = advicepair ] && variant=${ADVICE_VARIANT:-both}
  if [ "$kind" = advicepair ] && [ -z "${ADVICE_PAIRS:-}" ]; then
    say "advicepair: set ADVICE_PAIRS=id[,id...] (kernels/advice/pairs.tsv)"; return
  fi
  [ -n "${ADVICE_PAIRS:-}" ] && sel=(--pair "$ADVICE_PAIRS")
  mkdir -p "$A"
  if [ ! -x "$ADV" ]; then say "$kind: $ADV is not built (run the build stage first)"; return; fi
  say "$kind: pairs ${ADVICE_PAIRS:-all}, profiled variant(s) $variant"
  "$ADV" --list > "$A/pairs.tsv" 2>&1
  # 1. timing
  t=$(date +%s)
  timeout -k 5 150 "$ADV" --time "${sel[@]}" > "$A/time.tsv" 2> "$A/time.log"; rc=$?
  say "advice --time: rc=$rc, $(awk -F'\t' '$1 !~ /^#/ && $1 != "pair" && $4 == "ok"' "$A/time.tsv" | wc -l) row(s) ok, $(awk -F'\t' '$1 !~ /^#/ && $1 != "pair" && $4 != "ok"' "$A/time.tsv" | wc -l) failed, $(( $(date +%s) - t ))s"
  grep -E 'FAIL|advice:' "$A/time.log" | head -10 | tee -a "$OUT/summary.txt"
  # 2. ncu
  t=$(date +%s)
  list=$([ -x "$PC" ] && "$PC" metrics --set full 2>/dev/null | tr -d ' \n\r')
  rm -f "$A/advice.ncu-rep"
  if ! command -v ncu > /dev/null; then say "ncu: not found on PATH ($PATH): step 2 skipped"; else
  timeout -k 10 240 ncu --set full ${list:+--metrics "$list"} --nvtx --nvtx-include 'regex:advice:.*/' \
    --clock-control none --export "$A/advice" --force-overwrite "$ADV" --profile --variant "$variant" "${sel[@]}" \
    > "$A/ncu.log" 2>&1; rc=$?
  if [ ! -s "$A/advice.ncu-rep" ] && [ -n "$list" ]; then
    say "ncu refused the metric list (rc=$rc, ncu.log): again with --set full alone"
    timeout -k 10 200 ncu --set full --nvtx --nvtx-include 'regex:advice:.*/' --clock-control none \
      --export "$A/advice" --force-overwrite "$ADV" --profile --variant "$variant" "${sel[@]}" \
      > "$A/ncu-setfull.log" 2>&1; rc=$?
  fi
  if [ -s "$A/advice.ncu-rep" ]; then
    timeout 120 ncu --import "$A/advice.ncu-rep" --csv --page raw > "$A/advice.csv" 2>> "$A/ncu.log"
    timeout 120 ncu --import "$A/advice.ncu-rep" --csv --page raw --print-nvtx-rename kernel \
      > "$A/advice.nvtx.csv" 2>> "$A/ncu.log"
    timeout 60 "$PC" diagnose --format json "$A/advice.nvtx.csv" > "$A/offline.json" 2> "$A/offline.log"
    local drc=$?
    say "ncu: rc=$rc, $(grep -c '^"[0-9]' "$A/advice.csv") kernel row(s), diagnose rc=$drc, $(( $(date +%s) - t ))s"
    python3 "$ROOT/scripts/ncu_summary.py" --nvtx "$A/advice.nvtx.csv" "$A/advice.csv" > "$A/ncu-summary.txt" 2>&1
    gzip -f "$A/advice.csv" "$A/advice.nvtx.csv"
    [ "$kind" = advice ] && rm -f "$A/advice.ncu-rep"  # ~tens of MB; advicepair keeps it
  else
    say "ncu: rc=$rc, no report (ncu.log), $(( $(date +%s) - t ))s"
    tail -5 "$A/ncu.log" | tee -a "$OUT/summary.txt"
  fi
  fi
  # 3. perfcheck in process
  t=$(date +%s)
  timeout -k 5 120 "$PC" run --nvtx --nvtx-include 'regex:^advice:/' --format json --output "$A/inproc.json" \
    -- "$ADV" --profile --variant "$variant" "${sel[@]}" > "$A/inproc.log" 2>&1; rc=$?
  say "perfcheck run: rc=$rc, report $([ -s "$A/inproc.json" ] && echo "$(wc -c < "$A/inproc.json") B" || echo missing), $(( $(date +%s) - t ))s"
  # 4. scores
  t=$(date +%s)
  for r in inproc offline; do
    [ -s "$A/$r.json" ] || continue
    python3 "$ROOT/scripts/advice_corpus.py" --timing "$A/time.tsv" --report "$A/$r.json" > "$A/corpus-$r.txt" 2>&1
    python3 "$ROOT/scripts/advice_corpus.py" --timing "$A/time.tsv" --report "$A/$r.json" --format json \
      > "$A/corpus-$r.json" 2>> "$A/corpus-$r.txt"
  done
  [ -s "$A/inproc.json" ] || [ -s "$A/offline.json" ] ||
    python3 "$ROOT/scripts/advice_corpus.py" --timing "$A/time.tsv" > "$A/corpus-timing.txt" 2>&1
  say "advice_corpus.py: $(( $(date +%s) - t ))s"
  for f in "$A"/corpus-*.txt; do
    [ -f "$f" ] || continue
    echo "== $(basename "$f")"; sed -n '/^totals/,$p' "$f"
  done | tee -a "$OUT/summary.txt"
  [ -f "$A/corpus-inproc.txt" ] && sed -n '/^pair /,/^$/p' "$A/corpus-inproc.txt" | tee -a "$OUT/summary.txt"
}

for s in $stages; do
  case $s in
    env)
      say env
      { date -u; uname -a; nvidia-smi; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
        nvcc --version | tail -2; ncu --version | tail -1; cmake --version | head -1; cc --version | head -1
        command -v python3; python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'
        grep RmProfilingAdminOnly /proc/driver/nvidia/params; id; nproc; } > "$R/env.txt" 2>&1
      ;;
    build)
      say "build: the README's commands (cmake -S . -B build && cmake --build build -j\$(nproc))"
      rm -rf "$BUILD"
      { cmake -S . -B build && cmake --build build -j"$(nproc)"; } > "$R/build.log" 2>&1
      echo "build rc=$?" >> "$R/build.log"
      grep -E 'perfcheck:|warning|error|build rc=' "$R/build.log" | tail -20 | tee -a "$OUT/summary.txt"
      ;;
    tests)
      say "tests: the README's ctest (every label; GPU tests run one at a time as ctest orders them)"
      timeout ${TESTS_TIMEOUT_S:-540} ctest --test-dir build --output-on-failure > "$R/ctest.log" 2>&1
      echo "ctest rc=$?" >> "$R/ctest.log"
      grep -E 'tests passed|tests failed|Failed|\*\*\*|ctest rc=' "$R/ctest.log" | tail -40 | tee -a "$OUT/summary.txt"
      ;;
    splittests)
      # The README's ctest in parts, to fit one call: the tests without the
      # gpu label in parallel (they use no GPU), then the gpu label (the
      # Python GPU tests among them) one at a time, gpu.multigpu_* first.
      say "splittests: ctest -j\$(nproc) -LE '^gpu\$' (no GPU), then -L '^gpu\$' serially (multigpu first)"
      timeout 120 ctest --test-dir build -j"$(nproc)" -LE '^gpu$' --output-on-failure > "$R/ctest-cpu.log" 2>&1
      echo "ctest rc=$?" >> "$R/ctest-cpu.log"
      # SKIP_MULTIGPU=1 leaves them out (a one-GPU box skips their two-device
      # parts anyway; the call's time goes to the rest).
      if [ "${SKIP_MULTIGPU:-0}" = 1 ]; then
        echo "skipped (SKIP_MULTIGPU=1)" > "$R/ctest-multigpu.log"
      else
        timeout 200 ctest --test-dir build -L '^gpu$' -R '^gpu\.multigpu_' --output-on-failure > "$R/ctest-multigpu.log" 2>&1
        echo "ctest rc=$?" >> "$R/ctest-multigpu.log"
      fi
      # GPU_TESTS_RE: only the gpu tests it matches (a call short of device time).
      timeout ${TESTS_TIMEOUT_S:-300} ctest --test-dir build -L '^gpu$' -E '^gpu\.multigpu_' ${GPU_TESTS_RE:+-R "$GPU_TESTS_RE"} \
        --output-on-failure > "$R/ctest-gpu.log" 2>&1
      echo "ctest rc=$?" >> "$R/ctest-gpu.log"
      for l in cpu multigpu gpu; do
        echo "-- $l: $(grep -E 'tests passed|tests failed' "$R/ctest-$l.log" | tail -1) $(tail -1 "$R/ctest-$l.log")"
        grep -E '\(Failed\)|\(Timeout\)|Not Run|\*\*\*Failed' "$R/ctest-$l.log" | head -20
      done | tee -a "$OUT/summary.txt"
      ;;
    gputests)
      say "ctest: gpu label only"
      timeout 480 ctest --test-dir build --output-on-failure -L '^gpu$' > "$R/ctest-gpu.log" 2>&1
      echo "ctest rc=$?" >> "$R/ctest-gpu.log"
      grep -E 'Test +#|tests passed|ctest rc=' "$R/ctest-gpu.log" | tee -a "$OUT/summary.txt"
      ;;
    multigpu)
      # Issue 15: exactly the multi-GPU tests (tests/gpu/test_multigpu.sh);
      # the two-device parts skip (77) on a one-GPU machine.
      say "multigpu: ctest gpu.multigpu_* (ranks, two contexts, CUDA_VISIBLE_DEVICES, NCCL, DDP over gloo, two devices, torchrun)"
      timeout 590 ctest --test-dir build -R '^gpu\.multigpu_' --output-on-failure > "$R/multigpu.log" 2>&1
      echo "ctest rc=$?" >> "$R/multigpu.log"
      grep -E 'Test +#|tests passed|tests failed|SKIP|ctest rc=' "$R/multigpu.log" | tee -a "$OUT/summary.txt"
      ;;
    demo)
      # As a new user runs it: scripts/demo.sh in a fresh copy of the tree
      # (no build directory, nothing built before it), first in the call.
      say "demo: scripts/demo.sh (the README's demo command) in a fresh copy of the tree"
      FRESH=/tmp/pc-fresh-copy
      rm -rf "$FRESH"; mkdir -p "$FRESH"
      tar -C "$ROOT" --exclude=./build --exclude='./build-*' --exclude=./.dev --exclude=./out -cf - . | tar -C "$FRESH" -xf -
      (cd "$FRESH" && timeout 300 scripts/demo.sh) > "$R/demo.txt" 2>&1; echo "demo rc=$?" >> "$R/demo.txt"
      tail -25 "$R/demo.txt" | tee -a "$OUT/summary.txt"
      rm -rf "$FRESH"
      ;;
    corpus)
      # Its own tarballs go straight to $OUT (at most 7 files): run it in a
      # call of its own, after a call that built the tree.
      say "corpus: production kernels under ncu and in process (scripts/device/corpus.sh)"
      CORPUS_BUDGET_S=${CORPUS_BUDGET_S:-540} timeout 590 bash "$ROOT/scripts/device/corpus.sh" "$OUT" "$BUILD" \
        > "$OUT/corpus-run.log" 2>&1
      echo "corpus rc=$?" >> "$OUT/corpus-run.log"
      tail -30 "$OUT/corpus-run.log" | tee -a "$OUT/summary.txt"
      ;;
    exports)
      say "ncu exports of every kernels/ program (tests/data/h200), both cache-control modes"
      timeout 400 bash "$ROOT/scripts/device/ncu_exports.sh" "$BUILD" "$R/exports" > "$R/exports.log" 2>&1
      echo "exports rc=$?" >> "$R/exports.log"
      tail -15 "$R/exports.log" | tee -a "$OUT/summary.txt"
      ;;
    quickbench)
      say "quick bench: tiny (4096 launches) plain vs timing mode, 9 alternating process runs each"
      for i in 1 2 3 4 5 6 7 8 9; do
        for m in plain timing; do
          timeout 30 "$BUILD/bench/bench_launches" $m tiny 2>&1 | grep '^RESULT'
        done
      done > "$R/quickbench.txt"
      python3 - "$R/quickbench.txt" <<'PY' | tee -a "$OUT/summary.txt"
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
      python3 - "$R/overhead.txt" <<'PY' | tee -a "$OUT/summary.txt"
import re, statistics, sys
v = {}
for line in open(sys.argv[1]):
    m = re.search(r"mode=(\S+) us_per_launch=([0-9.]+)", line)
    if m: v.setdefault(m.group(1), []).append(float(m.group(2)))
for k, x in v.items(): print("%-10s n=%d median %.3f us/launch (min %.3f, max %.3f)" % (k, len(x), statistics.median(x), min(x), max(x)))
PY
      ;;
    injectspeed)
      say "perfcheck run (timing) against plain: 5 alternating process runs per workload"
      for i in 1 2 3 4 5; do
        for w in tiny bound; do
          timeout 60 "$BUILD/bench/bench_launches" plain $w 2>&1 | grep '^RESULT' | sed 's/^/plain /'
          timeout 60 "$BUILD/bin/perfcheck" run --mode timing --output /dev/null -- "$BUILD/bench/bench_launches" plain $w 2>&1 | grep '^RESULT' | sed 's/^/shim /'
        done
      done > "$R/injectspeed.txt"
      python3 - "$R/injectspeed.txt" <<'PY' | tee -a "$OUT/summary.txt"
import re, statistics, sys
v = {}
for line in open(sys.argv[1]):
    m = re.match(r"(plain|shim) RESULT mode=\S+ workload=(\S+) wall_ms=([0-9.]+)", line)
    if m: v.setdefault((m.group(2), m.group(1)), []).append(float(m.group(3)))
for w in ("tiny", "bound"):
    p, s = v.get((w, "plain"), []), v.get((w, "shim"), [])
    if p and s:
        print("%-6s plain median %9.3f ms (n=%d)  perfcheck run median %9.3f ms (n=%d)  ratio %.3f" % (w, statistics.median(p), len(p), statistics.median(s), len(s), statistics.median(s) / statistics.median(p)))
PY
      ;;
    ceilings)
      say "perfcheck ceilings (cached for the sessions below)"
      timeout 60 "$BUILD/bin/perfcheck" ceilings > "$R/ceilings.txt" 2>&1; echo "rc=$?" >> "$R/ceilings.txt"
      tee -a "$OUT/summary.txt" < "$R/ceilings.txt"
      ;;
    accuracy)
      say "accuracy: in-process counters against ncu exports"
      mkdir -p "$R/acc"
      timeout 240 "$BUILD/tests/gpu/gpu_accuracy_dump" "$R/acc" > "$R/acc/dump.log" 2>&1; echo "dump rc=$?" >> "$R/acc/dump.log"
      python3 "$ROOT/scripts/device/accuracy.py" "$R/acc" "$ROOT/tests/data/h200" "$R/accuracy.md" > "$R/acc/compare.log" 2>&1
      echo "compare rc=$?" >> "$R/acc/compare.log"
      tail -15 "$R/acc/compare.log" | tee -a "$OUT/summary.txt"
      ;;
    bench)
      say "bench"
      BENCH_BUDGET_S=${BENCH_BUDGET_S:-200} timeout 270 "$ROOT/scripts/device/bench.sh" "$BUILD" "$R/bench" > "$R/bench.log" 2>&1; echo "bench rc=$?" >> "$R/bench.log"
      tail -40 "$R/bench.log" | tee -a "$OUT/summary.txt"
      ;;
    inproc)
      say "inproc: the corpus's Python programs under perfcheck run (counters), against the ncu rows of tests/data/corpus"
      I=$R/inproc
      mkdir -p "$I"
      args=()
      # A crash in the program (seen once in three runs of jax_ops on
      # 2026-12-02) prints its C stack (scripts/device/crashstack.c, preloaded)
      # and its Python stack (PYTHONFAULTHANDLER).
      CS=/tmp/pc-crashstack.so
      cc -shared -fPIC -O1 -o "$CS" "$ROOT/scripts/device/crashstack.c" 2>> "$I/crashstack.build.log" || CS=
      for sc in triton_ops cupy_ops torch_ops jax_ops ${INPROC_EXTRA:-}; do
        cap=60; [ "$sc" = torch_ops ] && cap=100; [ "$sc" = jax_ops ] && cap=45
        start=$(date +%s)
        out=$I/$sc.json; [ -e "$out" ] && out=$I/$sc.$start.json  # INPROC_EXTRA may repeat a script
        CORPUS_DEADLINE_S=$((cap - 20)) PYTHONFAULTHANDLER=1 LD_PRELOAD=${CS}${LD_PRELOAD:+:$LD_PRELOAD} \
          timeout -k 5 "$cap" "$BUILD/bin/perfcheck" run --format json \
          --output "$out" -- python3 "$ROOT/scripts/device/corpus/$sc.py" > "${out%.json}.log" 2>&1
        echo "$sc in process: rc=$? report $([ -s "$out" ] && wc -c < "$out" || echo missing) B, $(( $(date +%s) - start ))s" \
          | tee -a "$OUT/summary.txt"
        grep -A30 -E '^CRASH: signal|^Fatal Python error' "${out%.json}.log" | head -60 | tee -a "$OUT/summary.txt"
        [ "$out" = "$I/$sc.json" ] || continue
        [ -s "$I/$sc.json" ] && args+=(--inprocess "$sc=$I/$sc.json")
      done
      [ ${#args[@]} -gt 0 ] && python3 "$ROOT/tests/corpus/check_expected.py" --perfcheck "$BUILD/bin/perfcheck" \
        "$ROOT/tests/data/corpus/h200-2026-12-01" "${args[@]}" > "$I/check.txt" 2>&1
      tail -25 "$I/check.txt" | tee -a "$OUT/summary.txt"
      ;;
    jaxcrash)
      # The jax_ops crash in process (SIGSEGV inside CUPTI and libnvperf_host
      # under XLA's cuLaunchKernelEx, 2026-12-02): which CUPTI the process
      # used, and whether it follows the replay mode or the CUPTI copy.  Each
      # run prints the kernel being profiled at its ENTER (PERFCHECK_PROGRESS=1)
      # and, on a crash, its C and Python stacks.
      say "jaxcrash: jax_ops under perfcheck run, by replay mode and CUPTI copy"
      J=$R/jaxcrash
      mkdir -p "$J"
      CS=/tmp/pc-crashstack.so
      cc -shared -fPIC -O1 -o "$CS" "$ROOT/scripts/device/crashstack.c" 2>> "$J/crashstack.build.log" || CS=
      { python3 -m pip list 2>/dev/null | grep -iE '^(jax|jaxlib|jax-cuda|nvidia-cuda-cupti|nvidia-cu)' 
        for f in $(python3 -c 'import nvidia, os; [print(os.path.join(p, "cu13", "lib")) for p in nvidia.__path__]' 2>/dev/null) \
                 /usr/local/cuda/lib64 /usr/local/cuda/extras/CUPTI/lib64; do
          for l in "$f"/libcupti.so* "$f"/libnvperf_host.so; do
            [ -f "$l" ] && echo "$l $(stat -Lc %s "$l") B $(strings -a "$l" | grep -m1 -oE 'cuda_1[0-9]\.[0-9]+\.r1[0-9]\.[0-9]+/compiler\.[0-9_]+|CUPTI[^\n]{0,20}1[0-9]\.[0-9]+\.[0-9]+' )"
          done
        done; } > "$J/versions.txt" 2>&1
      tee -a "$OUT/summary.txt" < "$J/versions.txt"
      TKCUPTI=$(ls /usr/local/cuda/lib64/libcupti.so.13 /usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13 2>/dev/null | head -1)
      DEFLIST=$("$BUILD/bin/perfcheck" metrics 2>/dev/null)
      NOSASS=$(tr ',' '\n' <<< "$DEFLIST" | grep -v '__sass_' | paste -sd, -)
      SASS=$(tr ',' '\n' <<< "$DEFLIST" | grep '__sass_' | paste -sd, -)
      for v in ${JAX_VARIANTS:-kernel rotate rotate-nosession timing kernel-tkcupti rotate-tkcupti}; do
        envs=(PERFCHECK_PROGRESS=1 PYTHONFAULTHANDLER=1)
        mode=counters pre= opts=()
        # kernel-nvtx: counters only inside the script's own ranges (not in
        # XLA's compile-time autotuning, outside them); kernel-nosass: the default list without the SASS-patched metrics;
        # kernel-sassonly: those alone; kernel-noautotune: XLA's autotuner off
        # (no compiled-and-discarded GEMM variants).
        case $v in
          kernel-nosass) envs+=(PERFCHECK_REPLAY=kernel "PERFCHECK_METRICS=$NOSASS") ;;
          kernel-sassonly) envs+=(PERFCHECK_REPLAY=kernel "PERFCHECK_METRICS=$SASS") ;;
          kernel-nvtx) envs+=(PERFCHECK_REPLAY=kernel); opts=(--nvtx-include "regex:corpus:jax_ops:.*/") ;;
          kernel-noautotune) envs+=(PERFCHECK_REPLAY=kernel "XLA_FLAGS=--xla_gpu_autotune_level=0${XLA_FLAGS:+ $XLA_FLAGS}") ;;
          kernel*) envs+=(PERFCHECK_REPLAY=kernel) ;;
          rotate-nosession) envs+=(PERFCHECK_REPLAY=rotate PERFCHECK_ROTATE_SESSION=0) ;;
          rotate*) envs+=(PERFCHECK_REPLAY=rotate) ;;
          timing) mode=timing ;;
        esac
        case $v in *-tkcupti) pre=$TKCUPTI ;; esac
        for i in $(seq 1 "${JAX_RUNS:-2}"); do
          start=$(date +%s)
          env "${envs[@]}" LD_PRELOAD="${CS}${pre:+:$pre}${LD_PRELOAD:+:$LD_PRELOAD}" CORPUS_DEADLINE_S=40 \
            timeout -k 5 60 "$BUILD/bin/perfcheck" run --mode "$mode" ${opts[@]+"${opts[@]}"} --format json --output "$J/$v.$i.json" \
            -- python3 "$ROOT/scripts/device/corpus/jax_ops.py" > "$J/$v.$i.log" 2>&1
          rc=$?
          cp=$(python3 -c 'import json,sys; c=(json.load(open(sys.argv[1])).get("tool") or {}).get("cupti") or {}; print(c.get("path"), c.get("version"))' "$J/$v.$i.json" 2>/dev/null)
          xn=$(grep -c "because XLA's CUDA plugin" "$J/$v.$i.json" 2>/dev/null)
          echo "jaxcrash $v run $i: rc=$rc $(( $(date +%s) - start ))s cupti: ${cp:-no report}; profiled $(grep -c '^perfcheck: profiling' "$J/$v.$i.log"); XLA replay note: ${xn:-0}" \
            | tee -a "$OUT/summary.txt"
          if grep -qE '^CRASH: signal|^Fatal Python error' "$J/$v.$i.log"; then
            grep '^perfcheck: profiling' "$J/$v.$i.log" | tail -3 | tee -a "$OUT/summary.txt"
            grep -A12 -E '^CRASH: signal' "$J/$v.$i.log" | head -14 | tee -a "$OUT/summary.txt"
          fi
        done
      done
      ;;
    snapshots)
      say "snapshots: regions recorded in process (PERFCHECK_SNAPSHOT_DIR), for tests/data/snapshots/"
      S=$R/snapshots
      rm -rf "$S"; mkdir -p "$S"
      # rec NAME COMMAND...: the snapshots of one run in $S/NAME/, its output in $S/NAME.log
      rec() {
        local name=$1; shift
        mkdir -p "$S/$name"
        PERFCHECK_SNAPSHOT_DIR="$S/$name" timeout 180 "$@" > "$S/$name.log" 2>&1
        echo "$name rc=$? files: $(cd "$S/$name" && ls | tr '\n' ' ')" | tee -a "$OUT/summary.txt"
      }
      rec mystery-counters "$BUILD/examples/example_mystery_region"
      rec loop-timing "$BUILD/bench/bench_launches" timing tiny
      rec loop-counters "$BUILD/bench/bench_launches" counters-default tiny
      rec streams-counters "$BUILD/tests/gpu/gpu_record_regions" streams counters
      rec graph-counters "$BUILD/tests/gpu/gpu_record_regions" graph counters
      rec torch-counters "$BUILD/bin/perfcheck" run --mode counters --format json --output "$S/torch-counters.report.json" \
        -- python3 "$ROOT/tests/gpu/torch_train_step.py"
      # What the recordings ran on, and the same launches under ncu for the
      # expected verdicts (never perfcheck's own output).
      { date -u; nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv; nvcc --version | tail -2
        ncu --version | tail -1; python3 -c 'import torch; print("torch", torch.__version__)' 2>&1
        echo "source: $(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)"
        for d in "$S"/*/; do echo "$(basename "$d"): $(cd "$d" && ls | tr '\n' ' ')"; done; } > "$S/env.txt" 2>&1
      timeout 120 ncu --csv --page raw --metrics "$("$BUILD/bin/perfcheck" metrics)" \
        "$BUILD/tests/gpu/gpu_record_regions" streams plain > "$S/streams.ncu.csv" 2> "$S/streams.ncu.log"
      echo "ncu streams rc=$?" | tee -a "$OUT/summary.txt"
      ;;
    diffruns)
      say "diffruns: perfcheck diff of two runs of one program, and across a planted uncoalesced change (gpu.diff_runs)"
      PERFCHECK_DIFF_KEEP=$R/diff timeout 240 ctest --test-dir build -R '^gpu\.diff_runs$' --output-on-failure > "$R/diffruns.log" 2>&1
      echo "ctest rc=$?" >> "$R/diffruns.log"
      grep -E 'PASS|FAIL|worse kernels|tests passed|ctest rc=' "$R/diffruns.log" | tail -30 | tee -a "$OUT/summary.txt"
      ;;
    torchstep)
      say "torchstep: examples/python/torch_step.py plain, in process (perfcheck.region) and under perfcheck run; 5 alternating runs"
      T=$R/torchstep
      mkdir -p "$T"
      ex=$ROOT/examples/python/torch_step.py
      for i in 1 2 3 4 5; do
        for m in plain inproc run; do
          s0=$(date +%s.%N)
          case $m in
            plain) timeout 120 python3 "$ex" --plain > "$T/$m.$i.log" 2>&1 ;;
            inproc) PYTHONPATH=$ROOT/python PERFCHECK_LIBRARY=$BUILD/lib/libperfcheck.so.0 timeout 120 python3 "$ex" \
                      $([ $i = 1 ] && echo --json "$T/inproc.report.json") > "$T/$m.$i.log" 2>&1 ;;
            run) timeout 120 "$BUILD/bin/perfcheck" run --format json --output "$T/run.$i.report.json" -- python3 "$ex" --plain \
                   > "$T/$m.$i.log" 2>&1 ;;
          esac
          rc=$?
          echo "RESULT mode=$m run=$i rc=$rc wall_s=$(awk -v a="$(date +%s.%N)" -v b="$s0" 'BEGIN{printf "%.3f", a - b}') $(grep -h '^torch_step:' "$T/$m.$i.log")"
        done
      done > "$T/results.txt"
      python3 - "$T/results.txt" <<'PY' | tee "$T/summary.txt" | tee -a "$OUT/summary.txt"
import re, statistics, sys
w, loop, rcs = {}, {}, {}
for line in open(sys.argv[1]):
    m = re.search(r"mode=(\S+) run=\d+ rc=(\d+) wall_s=([0-9.]+)(.*)", line)
    if not m: continue
    mode = m.group(1)
    rcs.setdefault(mode, []).append(int(m.group(2)))
    w.setdefault(mode, []).append(float(m.group(3)))
    t = re.search(r"steps in ([0-9.]+) ms", m.group(4))
    if t: loop.setdefault(mode, []).append(float(t.group(1)))
for mode in w:
    print("%-7s rc %s  process wall median %.2f s (min %.2f max %.2f)  20-step loop median %s ms" % (
        mode, rcs[mode], statistics.median(w[mode]), min(w[mode]), max(w[mode]),
        "%.1f" % statistics.median(loop[mode]) if mode in loop else "-"))
if "plain" in w:
    for mode in ("inproc", "run"):
        if mode in w:
            print("%s/plain: process wall %.2f, loop %s" % (mode, statistics.median(w[mode]) / statistics.median(w["plain"]),
                  "%.2f" % (statistics.median(loop[mode]) / statistics.median(loop["plain"])) if mode in loop and "plain" in loop else "-"))
PY
      sed -n '1,40p' "$T/inproc.1.log" | tee -a "$OUT/summary.txt"
      ;;
    ncuwall)
      say "ncuwall: the default set's passes, and wall time plain / perfcheck run (counters, default set) / ncu --metrics of the same list; 5 alternating runs"
      W=$R/ncuwall
      mkdir -p "$W"
      list=$("$BUILD/bin/perfcheck" metrics)
      echo "$list" > "$W/metrics.txt"
      "$BUILD/bin/perfcheck" metrics --passes > "$W/passes.txt" 2>&1
      "$BUILD/bin/perfcheck" metrics --passes --chip GH100 >> "$W/passes.txt" 2>&1
      echo "default set passes (device 0, then --chip GH100): $(tr '\n' ' ' < "$W/passes.txt")" | tee -a "$OUT/summary.txt"
      for p in mystery access_widths; do
        for i in 1 2 3 4 5; do
          for m in plain perfcheck ncu; do
            s0=$(date +%s.%N)
            case $m in
              plain) timeout 120 "$BUILD/kernels/$p" --profile > "$W/$p.$m.$i.log" 2>&1 ;;
              perfcheck) timeout 120 "$BUILD/bin/perfcheck" run --mode counters --format json --output "$W/$p.pc.$i.json" \
                           -- "$BUILD/kernels/$p" --profile > "$W/$p.$m.$i.log" 2>&1 ;;
              ncu) timeout 120 ncu --clock-control none --metrics "$list" --csv --page raw "$BUILD/kernels/$p" --profile \
                     > "$W/$p.$m.$i.log" 2>&1 ;;
            esac
            echo "RESULT prog=$p mode=$m run=$i rc=$? wall_s=$(awk -v a="$(date +%s.%N)" -v b="$s0" 'BEGIN{printf "%.3f", a - b}')"
          done
        done
      done > "$W/results.txt"
      python3 - "$W/results.txt" <<'PY' | tee "$W/summary.txt" | tee -a "$OUT/summary.txt"
import re, statistics, sys
v = {}
for line in open(sys.argv[1]):
    m = re.search(r"prog=(\S+) mode=(\S+) run=\d+ rc=(\d+) wall_s=([0-9.]+)", line)
    if m: v.setdefault((m.group(1), m.group(2)), []).append((int(m.group(3)), float(m.group(4))))
for p in sorted({k[0] for k in v}):
    med = {m: statistics.median(x[1] for x in v[(p, m)]) for m in ("plain", "perfcheck", "ncu") if (p, m) in v}
    for m, t in med.items():
        xs = [x[1] for x in v[(p, m)]]
        print("%-14s %-9s rc %s wall median %.3f s (min %.3f max %.3f)" % (p, m, sorted({x[0] for x in v[(p, m)]}), t, min(xs), max(xs)))
    if all(k in med for k in ("plain", "perfcheck", "ncu")):
        a, b = med["perfcheck"] - med["plain"], med["ncu"] - med["plain"]
        print("%-14s added wall: perfcheck %.3f s, ncu %.3f s, perfcheck/ncu %.2f" % (p, a, b, a / b if b > 0 else float("nan")))
PY
      ;;
    heldout)
      # The occupancy pairs, the SGEMM progression, the Triton/CuPy pairs and
      # the held-out production kernels (scripts/device/heldout.sh; r/heldout/).
      # HELDOUT_PARTS narrows it (cpp py valid).
      say "heldout: ${HELDOUT_PARTS:-cpp py valid}"
      bash "$ROOT/scripts/device/heldout.sh" "$BUILD" "$R/heldout" ${HELDOUT_PARTS:-cpp py valid} > "$R/heldout.log" 2>&1
      tail -20 "$R/heldout/status.txt" | tee -a "$OUT/summary.txt"
      ;;
    advice | advicepair)
      # Issue 19 item 7: the advice-that-pays corpus (kernels/advice).
      # advice: every pair's originals; advicepair: the pairs named in
      # ADVICE_PAIRS (comma-separated), both variants, report kept.
      # ADVICE_PAIRS and ADVICE_VARIANT (orig|changed|both) narrow either.
      advice_stage "$s"
      ;;
    l2break)
      # Issue 21 / the in-process rows that differ from ncu's (docs/measurements/
      # 2026-12-02-h200-c/inproc-check.txt): which L2 sub-unit ncu's
      # lts__throughput takes its 88% from, and what DRAM and L2 read with a
      # flushed (all) and a warm (none) cache, beside perfcheck's own list; then
      # the same ops in process.
      say "l2break: ncu breakdown of lts__throughput and dram__throughput on the torch ops that differ in process"
      L=$R/l2break
      mkdir -p "$L"
      ops=${L2_OPS:-index_select,embedding_f32,cross_entropy,add_mixed_dtype,add_f32}
      mets="breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed,breakdown:dram__throughput.avg.pct_of_peak_sustained_elapsed,$("$BUILD/bin/perfcheck" metrics)"
      for cc in all none; do
        t=$(date +%s)
        CORPUS_ONLY=$ops timeout -k 10 120 ncu --metrics "$mets" --nvtx --nvtx-include 'regex:corpus:torch_ops:.*/' \
          --cache-control $cc --clock-control none --csv --page raw \
          python3 "$ROOT/scripts/device/corpus/torch_ops.py" > "$L/torch-$cc.csv" 2> "$L/torch-$cc.log"
        echo "ncu cache-control $cc: rc=$?, $(grep -c '^"[0-9]' "$L/torch-$cc.csv") kernel row(s), $(( $(date +%s) - t ))s" | tee -a "$OUT/summary.txt"
      done
      CORPUS_ONLY=layer_norm timeout -k 10 90 ncu --metrics "$mets" --nvtx --nvtx-include 'regex:corpus:triton_ops:.*/' \
        --cache-control all --clock-control none --csv --page raw \
        python3 "$ROOT/scripts/device/corpus/triton_ops.py" > "$L/triton-all.csv" 2> "$L/triton-all.log"
      echo "ncu triton layer_norm: rc=$?" | tee -a "$OUT/summary.txt"
      CORPUS_ONLY=$ops timeout -k 5 90 "$BUILD/bin/perfcheck" run --format json --output "$L/torch-inproc.json" \
        -- python3 "$ROOT/scripts/device/corpus/torch_ops.py" > "$L/torch-inproc.log" 2>&1
      echo "perfcheck run torch ops: rc=$?" | tee -a "$OUT/summary.txt"
      python3 - "$L" <<'PY' | tee "$L/summary.txt" | tee -a "$OUT/summary.txt"
import csv, sys, os
d = sys.argv[1]
for cc in ("all", "none"):
    p = os.path.join(d, "torch-%s.csv" % cc)
    if not os.path.exists(p): continue
    rows = [r for r in csv.reader(l for l in open(p) if l.startswith('"'))]
    if len(rows) < 3: continue
    hdr = rows[0]
    keep = [i for i, h in enumerate(hdr) if h.startswith(("lts__", "dram__")) and "pct_of_peak" in h]
    ki = hdr.index("Kernel Name")
    for r in rows[2:]:
        top = sorted(((float(r[i].replace(",", "")), hdr[i]) for i in keep if r[i] not in ("", "n/a")),
                     reverse=True)[:6]
        print(cc, r[ki][:50], "; ".join("%s %.1f" % (h, v) for v, h in top))
PY
      ;;
    evidence)
      # Issue 19: what ncu itself says, for the rules' sources and item 5.
      #  - ncu's section files and rule scripts (their metric lists say what
      #    --set full holds; their rules' thresholds are ncu's rule text);
      #  - ncu --help / --list-sets / --list-sections (issue 20's vocabulary);
      #  - a plain `ncu --set full --csv --page raw` export (no extra metrics)
      #    of PyTorch, cuBLAS and cuDNN kernels (item 5: diagnosable as is).
      say "evidence: ncu sections and rules, ncu --help, a plain --set full export of torch ops"
      E=$R/evidence
      mkdir -p "$E"
      NCUD=$(dirname "$(readlink -f "$(command -v ncu)")")
      SEC=$(ls -d "$NCUD"/sections /opt/nvidia/nsight-compute/*/sections 2>/dev/null | head -1)
      [ -n "$SEC" ] && tar czf "$E/ncu-sections.tgz" -C "$SEC" . 2>> "$E/evidence.log"
      { ncu --version; ncu --help; } > "$E/ncu-help.txt" 2>&1
      ncu --list-sets > "$E/ncu-list-sets.txt" 2>&1
      ncu --list-sections > "$E/ncu-list-sections.txt" 2>&1
      t=$(date +%s)
      CORPUS_ONLY=add_f32,sum_cols,layer_norm_f32,transpose_copy,mm_f32,mm_bf16,conv2d_bf16_nhwc,sdpa_cudnn,sort_f32 \
        timeout -k 10 150 ncu --set full --nvtx --nvtx-include 'regex:corpus:torch_ops:.*/' --clock-control none \
        --csv --page raw python3 "$ROOT/scripts/device/corpus/torch_ops.py" > "$E/torch-setfull.csv" 2> "$E/torch-setfull.log"
      echo "torch --set full: rc=$?, $(grep -c '^"[0-9]' "$E/torch-setfull.csv") kernel row(s), $(( $(date +%s) - t ))s" | tee -a "$OUT/summary.txt"
      gzip -f "$E/torch-setfull.csv"
      ;;
    torchdiag)
      say "torchdiag: examples/python/torch_step.py in process, 3 steps, timing then counters (60 s each); on a hang, Python and native stacks"
      D=$R/torchdiag
      mkdir -p "$D"
      ex=$ROOT/examples/python/torch_step.py
      for m in timing counters; do
        PERFCHECK_MODE=$m PERFCHECK_PROGRESS=1 PYTHONFAULTHANDLER=1 PYTHONPATH=$ROOT/python \
          PERFCHECK_LIBRARY=$BUILD/lib/libperfcheck.so.0 python3 "$ex" --steps 3 > "$D/$m.log" 2>&1 &
        pid=$!
        for t in $(seq 1 60); do kill -0 $pid 2>/dev/null || break; sleep 1; done
        if kill -0 $pid 2>/dev/null; then
          echo "$m: still running after 60 s: native stacks, then SIGABRT (faulthandler prints the Python stacks)" | tee -a "$OUT/summary.txt"
          timeout 60 cuda-gdb -p $pid -batch -ex 'thread apply all bt 30' > "$D/$m.gdb.txt" 2>&1 \
            || timeout 60 gdb -p $pid -batch -ex 'thread apply all bt 30' >> "$D/$m.gdb.txt" 2>&1
          kill -ABRT $pid; sleep 3; kill -9 $pid 2>/dev/null
        fi
        wait $pid; echo "$m rc=$?" | tee -a "$OUT/summary.txt"
        tail -12 "$D/$m.log" | cut -c1-300 | tee -a "$OUT/summary.txt"
      done
      ;;
    onetest)
      # TEST_RE: the ctest tests matching it, their whole output kept
      # (r/onetest.log; a failing one's lines also in the summary).
      say "onetest: ctest -R '${TEST_RE:-^gpu\.diff_runs$}'"
      timeout 200 ctest --test-dir build -R "${TEST_RE:-^gpu\.diff_runs$}" --output-on-failure > "$R/onetest.log" 2>&1
      echo "ctest rc=$?" >> "$R/onetest.log"
      grep -E 'FAIL|tests passed|tests failed|ctest rc=' "$R/onetest.log" | head -30 | tee -a "$OUT/summary.txt"
      ;;
    rotation)
      say "rotation: gpu.rotation alone (issue 21), a backtrace if it crashes"
      rotation_run
      ;;
    issue21)
      # Issues 21 and 23 (branch gpu): about 7 minutes after the build (stage
      # build first: ~1 min with 16 cores).  Decisive lines: PASS/FAIL.
      #  1. gpu.rotation run directly (~15 s): its PASS/FAIL lines (the k-th
      #     launch collects group k; every group collected; DRAM bytes from a
      #     flushed L2 within 10% of the 16 MiB read; the short rotation warned
      #     and finished by kernel replay; results right);
      #  2. the GPU tests that walk the collector's launch path (~90 s):
      #     counters (kernel replay as verified before), threads (the header's
      #     two rules), graph, streams, nested, the injection library;
      #  3. scripts/bench_overhead.sh within 300 s (bench21_run): counters
      #     against ncu (same list, --set full), timing C++ against plain and
      #     nsys with the host cost per launch, DRAM against ncu
      #     --cache-control all, timing PyTorch, a 1000-step training step
      #     under rotation and kernel replay; a section that does not fit says
      #     SKIP.  For the figures alone, stage bench21.
      say "issue21: gpu.rotation, the collector's GPU tests, scripts/bench_overhead.sh"
      rotation_run
      timeout 240 ctest --test-dir build -R '^gpu\.(counters|threads|graph|graph_auto|graph_counters|graph_counters_rotate|streams|nested|inject_kernels|inject_nvtx|inject_torch)$' \
        --output-on-failure > "$R/issue21-tests.log" 2>&1
      echo "ctest rc=$?" >> "$R/issue21-tests.log"
      grep -E 'tests passed|tests failed|\(Failed\)|\(Timeout\)|ctest rc=' "$R/issue21-tests.log" | tee -a "$OUT/summary.txt"
      bench21_run 300
      ;;
    graphs)
      # Issue 21 item 4, counters for kernels in CUDA graphs (stage build
      # first).  First run on the H200 2026-12-02 (about 35 s with
      # GRAPHS_SKIP_PLAIN=1, docs/measurements/2026-12-02-h200-b).  Logs under
      # r/graphs/.  Decisive lines: PASS/FAIL.
      #  1. gpu_test_graph_counters run directly, in the default mode and
      #     with PERFCHECK_REPLAY=rotate (~10 s each): a hand-captured graph
      #     of 3 kernels launched 16 times; outputs right, one graph entry
      #     with every group, exact FFMA and sector sums, DRAM from a
      #     flushed L2 within 10%, the kernels naming graph, node and entry,
      #     ordinary kernels still kernel-replayed, the snapshot's groups in
      #     launch order; a crash prints its resolved stack;
      #  2. gpu.graph and gpu.graph_auto (the graph entry; outputs right
      #     with counters on);
      #  3. tests/gpu/torch_compile_graphs.py (torch.compile
      #     mode="reduce-overhead", 40 steps) under perfcheck run, counters,
      #     default set and replay mode, its report checked by
      #     tests/gpu/graphs_check.py (graph entries with every group,
      #     their kernels pointing to them); the same script plain first,
      #     for its wall time and its own result check.
      G=$R/graphs
      mkdir -p "$G"
      say "graphs: gpu_test_graph_counters (default, rotate), gpu.graph(_auto), torch.compile reduce-overhead under perfcheck run"
      for v in default rotate; do
        log=$G/graph_counters.$v.log
        arg=; [ "$v" = rotate ] && arg=rotate
        timeout 180 "$BUILD/tests/gpu/gpu_test_graph_counters" $arg > "$log" 2>&1
        rrc=$?
        echo "gpu_test_graph_counters ($v) rc=$rrc" >> "$log"
        crash_stack "$log" "$rrc" "graph_counters ($v)"
        grep -E '^(PASS|FAIL|SKIP)|rc=' "$log" | tee -a "$OUT/summary.txt"
      done
      timeout 120 ctest --test-dir build -R '^gpu\.graph(_auto)?$' --output-on-failure > "$G/graph-tests.log" 2>&1
      echo "ctest rc=$?" >> "$G/graph-tests.log"
      grep -E '^(PASS|FAIL)|tests passed|tests failed|\(Failed\)|ctest rc=' "$G/graph-tests.log" | tee -a "$OUT/summary.txt"
      export TORCHINDUCTOR_CACHE_DIR=/tmp/pc-inductor-cache
      ts=$ROOT/tests/gpu/torch_compile_graphs.py
      s0=$(date +%s.%N)
      if [ -z "${GRAPHS_SKIP_PLAIN:-}" ]; then  # GRAPHS_SKIP_PLAIN=1: no plain run (a short device budget)
        timeout 240 python3 "$ts" > "$G/torch-plain.log" 2>&1
        echo "plain rc=$? wall_s=$(awk -v a="$(date +%s.%N)" -v b="$s0" 'BEGIN{printf "%.1f", a - b}')" >> "$G/torch-plain.log"
      else
        echo "plain run skipped (GRAPHS_SKIP_PLAIN)" > "$G/torch-plain.log"
      fi
      s0=$(date +%s.%N)
      timeout 300 "$BUILD/bin/perfcheck" run --mode counters --format json --output "$G/torch.json" -- python3 "$ts" \
        > "$G/torch-perfcheck.log" 2>&1
      echo "perfcheck run rc=$? wall_s=$(awk -v a="$(date +%s.%N)" -v b="$s0" 'BEGIN{printf "%.1f", a - b}')" \
        >> "$G/torch-perfcheck.log"
      tail -3 "$G/torch-plain.log" "$G/torch-perfcheck.log" | cut -c1-300 | tee -a "$OUT/summary.txt"
      if [ -s "$G/torch.json" ]; then
        python3 "$ROOT/tests/gpu/graphs_check.py" "$G/torch.json" > "$G/torch-check.txt" 2>&1
        echo "graphs_check rc=$?" >> "$G/torch-check.txt"
        "$BUILD/bin/perfcheck" report "$G/torch.json" > "$G/torch.txt" 2>&1
        gzip -f "$G/torch.json"
      else
        echo "FAIL no report from perfcheck run" > "$G/torch-check.txt"
      fi
      cut -c1-400 "$G/torch-check.txt" | tee -a "$OUT/summary.txt"
      ;;
    rotsession)
      # Sessions spanning launches for rotation's cold group (the default
      # under rotation since 2026-12-02; PERFCHECK_ROTATE_SESSION=0 turns
      # them off), in one call (stage build first; about 6 minutes):
      # gpu.rotation with them (default) and without (SESSION=0); the
      # collector's and graph tests without them (the default run of the gpu
      # label has them); the 300-step torch step's phases and mystery's,
      # without and with, a line per launch; then section E of the bench,
      # plain, rotate without sessions, with them ("session") and kernel
      # replay.  Decisive: the PASS lines, "ranges and launches cannot be
      # matched" never in the logs, the session close phase, E's figures.
      say "rotsession: rotation with and without sessions spanning launches"
      ROTATION_VARIANTS="SESSION=0" rotation_run
      PERFCHECK_ROTATE_SESSION=0 timeout 120 ctest --test-dir build -R '^gpu\.(graph_counters_rotate|graph_auto|counters|threads|streams)$' \
        --output-on-failure > "$R/rotsession-tests.log" 2>&1
      echo "ctest rc=$?" >> "$R/rotsession-tests.log"
      grep -E 'tests passed|tests failed|\(Failed\)|ctest rc=' "$R/rotsession-tests.log" | tee -a "$OUT/summary.txt"
      PHASES_PROGRESS=2 PHASES_MODES="rotate rotate+session" PHASES_WORK="torch mystery" phases_run
      grep -l "cannot be matched" "$R"/phases/*.log 2>/dev/null | sed 's/^/UNMATCHED in /' | tee -a "$OUT/summary.txt"
      E_ROTATE_SESSION=0 E_MODES="plain rotate session kernel" SECTIONS=E BENCH_BUDGET_S=${BENCH_BUDGET_S:-330} bench21_run 330
      ;;
    sessionprobe)
      # docs/cupti.md §10 question 5: is the memory units' pass cost paid per
      # session or per range?  tests/gpu/session_probe.cu drives CUPTI itself
      # (stage build first; a few seconds).
      say "sessionprobe: one session a launch against one session of 8 launches"
      timeout 120 "$BUILD/tests/gpu/gpu_session_probe" > "$R/sessionprobe.log" 2>&1
      echo "session_probe rc=$?" >> "$R/sessionprobe.log"
      grep -E '^(PROBE|FAIL|SKIP)|rc=' "$R/sessionprobe.log" | cut -c1-600 | tee -a "$OUT/summary.txt"
      ;;
    setupprobe)
      # Issue 21 item 5: what a process pays before its first profiled launch,
      # step by step, and whether another thread can pay it while the program
      # works (tests/gpu/setup_probe.cu drives CUPTI itself; stage build
      # first; about 15 s).  Modes alternate, 3 processes each.
      say "setupprobe: the steps before the first profiled launch (order, noavail, early; 3 rounds)"
      for round in 1 2 3; do
        for m in order noavail early; do
          timeout 60 "$BUILD/tests/gpu/gpu_setup_probe" $m > "$R/setupprobe.$m.$round.log" 2>&1
          echo "setup_probe $m round $round rc=$?" >> "$R/setupprobe.$m.$round.log"
          grep -E '^(SETUP|VALUES|FAIL|SKIP)|rc=' "$R/setupprobe.$m.$round.log" | cut -c1-300 | tee -a "$OUT/summary.txt"
        done
      done
      ;;
    passcost)
      # Issue 21: one replayed pass's cost by metric (scripts/device/pass_cost.sh,
      # mystery under kernel replay with one-pass lists; about 20 s).
      say "passcost: launch+replay of one pass, by metric list (mystery)"
      bash "$ROOT/scripts/device/pass_cost.sh" "$BUILD" "$R/passcost" | tee -a "$OUT/summary.txt"
      ;;
    phases)
      # Issue 21, "find where the time goes": the counter layer's host time
      # by phase (PERFCHECK_PROGRESS prints one "counter layer, host time
      # of N profiled launches: ..." line at the end), for mystery --profile
      # and torch_step.py (PHASES_STEPS steps, default 300) under perfcheck
      # run, kernel replay and rotation, with each process's wall time.
      # Stage build first; about 60 s.  Logs under r/phases/.
      phases_run
      ;;
    hostcut)
      # A session spanning launches (rotation's cold group) closed in a call
      # that profiled nothing is cut from the region's clock (2026-12-03,
      # pc_collector_host_cut): gpu_test_graph_counters under rotation (its
      # PASS lines count the cuts), then torch.compile reduce-overhead
      # (tests/gpu/torch_compile_graphs.py: stream captures, graph launches)
      # under perfcheck run with rotation, its snapshots recorded: each
      # region's cuts (profiled entries of no signature, correlation 0),
      # their total, and the region's wall and profiling_ns from the
      # report.  About 60 s after build; logs under r/hostcut/.
      say "hostcut: session closes in calls that profiled nothing, cut from the region's clock"
      H=$R/hostcut; mkdir -p "$H/snap"
      timeout 180 "$BUILD/tests/gpu/gpu_test_graph_counters" rotate > "$H/graph_counters.rotate.log" 2>&1
      echo "gpu_test_graph_counters (rotate) rc=$?" >> "$H/graph_counters.rotate.log"
      grep -E '^(PASS|FAIL|SKIP)|rc=' "$H/graph_counters.rotate.log" | cut -c1-300 | tee -a "$OUT/summary.txt"
      export TORCHINDUCTOR_CACHE_DIR=/tmp/pc-inductor-cache
      PERFCHECK_REPLAY=rotate PERFCHECK_SNAPSHOT_DIR=$H/snap timeout 300 "$BUILD/bin/perfcheck" run --mode counters \
        --format json --output "$H/torch.json" -- python3 "$ROOT/tests/gpu/torch_compile_graphs.py" > "$H/torch.log" 2>&1
      echo "perfcheck run (rotate) torch_compile_graphs rc=$?" | tee -a "$OUT/summary.txt"
      python3 - "$H" <<'PY' | tee "$H/summary.txt" | tee -a "$OUT/summary.txt"
import glob, json, os, sys
d = sys.argv[1]
for f in sorted(glob.glob(os.path.join(d, "snap", "*.json"))):
    s = json.load(open(f))
    prof = s.get("profiled") or []
    cuts = [p for p in prof if p.get("signature") is None and p.get("correlation") == 0]
    ms = sum((p["exit"] - p["enter"]) for p in cuts if isinstance(p.get("exit"), (int, float)) and
             isinstance(p.get("enter"), (int, float))) / 1e6
    print("snapshot %s: %d profiled entries, %d host cut(s), %.2f ms" % (os.path.basename(f), len(prof), len(cuts), ms))
try:
    r = json.load(open(os.path.join(d, "torch.json")))
    for g in r.get("regions", []):
        print("region %s: wall_ms %.2f profiling_ms %.2f kernel_ms %.2f" % (
            g.get("name"), (g.get("wall_ns") or 0) / 1e6, (g.get("profiling_ns") or 0) / 1e6,
            (g.get("kernel_ns") or 0) / 1e6))
except (OSError, ValueError) as e:
    print("no report: %s" % e)
PY
      # The text report's provenance lines under the verdicts (counters:, missing:).
      "$BUILD/bin/perfcheck" report "$H/torch.json" > "$H/torch.txt" 2>&1
      echo "text report: $(grep -c '^  counters: ' "$H/torch.txt") counters: line(s), $(grep -c '^  missing: ' "$H/torch.txt") missing: line(s); the first:" | tee -a "$OUT/summary.txt"
      grep -m 3 -B1 '^  counters: ' "$H/torch.txt" | cut -c1-400 | tee -a "$OUT/summary.txt"
      gzip -f "$H"/snap/*.json "$H/torch.json" 2>/dev/null
      ;;
    foreach)
      # Issue 21, "the same verdicts as kernel replay (or a flag where they
      # differ)": torch's foreach optimizer kernels (multi_tensor_apply_kernel)
      # came out at_roof in one replay mode and grid_too_small in the other
      # (2026-12-02).  ncu's rows for them, --cache-control all and none,
      # give the expected verdict; then perfcheck run under kernel replay and
      # rotation on the same script (FOREACH_STEPS, default 300), compared
      # signature by signature by scripts/device/verdict_cmp.py.  About
      # 90 s after build.  Logs under r/foreach/.
      say "foreach: ncu on the foreach optimizer kernels, then perfcheck run kernel and rotate on torch_step, verdicts compared"
      F=$R/foreach; mkdir -p "$F"
      ex=$ROOT/examples/python/torch_step.py
      mets=gpu__time_duration.sum,launch__grid_size,launch__waves_per_multiprocessor,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum
      for cc in all none; do
        timeout -k 5 150 ncu --cache-control $cc --clock-control none -k regex:multi_tensor_apply --launch-skip 40 \
          --launch-count 40 --metrics "$mets" --csv --page raw python3 "$ex" --plain --steps 10 \
          > "$F/ncu-$cc.csv" 2> "$F/ncu-$cc.log"
        echo "ncu cache-control $cc: rc=$?, $(grep -c '^"[0-9]' "$F/ncu-$cc.csv") row(s)" | tee -a "$OUT/summary.txt"
      done
      for m in kernel rotate; do
        s0=$(date +%s.%N)
        PERFCHECK_REPLAY=$m timeout 200 "$BUILD/bin/perfcheck" run --format json --output "$F/$m.json" \
          -- python3 "$ex" --plain --steps "${FOREACH_STEPS:-300}" > "$F/$m.log" 2>&1
        echo "perfcheck run $m: rc=$? wall_s=$(awk -v a="$(date +%s.%N)" -v b="$s0" 'BEGIN{printf "%.2f", a - b}')" | tee -a "$OUT/summary.txt"
      done
      python3 "$ROOT/scripts/device/verdict_cmp.py" "$F/kernel.json" "$F/rotate.json" "$F/ncu-all.csv" "$F/ncu-none.csv" \
        --match multi_tensor_apply 2>&1 | tee "$F/summary.txt" | cut -c1-700 | tee -a "$OUT/summary.txt"
      gzip -f "$F"/*.json 2>/dev/null
      ;;
    bench21)
      # Issue 21 item 7's figures alone (stage build first): sections C, A,
      # D, B, E of scripts/bench_overhead.sh within BENCH_BUDGET_S (360 s).
      say "bench21: scripts/bench_overhead.sh, budget ${BENCH_BUDGET_S:-360} s, REPS ${REPS:-3}"
      bench21_run 360
      ;;
    hang)
      # A program that does not exit: nogpu_app and the demo's example run
      # in the background; one still alive after 15 s gets every thread's
      # backtrace from gdb (then it is killed).  Needs the build stage.
      say "hang: nogpu_app and example_mystery_region, backtraces of any that hangs"
      D=$R/hang; mkdir -p "$D"
      for prog in "$BUILD/tests/nogpu/nogpu_app" "$BUILD/examples/example_mystery_region"; do
        [ -x "$prog" ] || { say "hang: $prog not built"; continue; }
        n=$(basename "$prog")
        PERFCHECK_VERBOSE=1 "$prog" > "$D/$n.out" 2>&1 & pid=$!
        for i in $(seq 1 15); do kill -0 $pid 2>/dev/null || break; sleep 1; done
        if kill -0 $pid 2>/dev/null; then
          say "hang: $n still running after 15 s: backtraces"
          G=$(command -v gdb || command -v cuda-gdb || echo /usr/local/cuda/bin/cuda-gdb)
          timeout 60 "$G" -p $pid -batch -ex "thread apply all bt" > "$D/$n.bt" 2>&1
          grep -E '^Thread|^#[0-9]+ ' "$D/$n.bt" | grep -v '??' | cut -c1-220 | head -80 | tee -a "$OUT/summary.txt"
          kill -9 $pid
        fi
        wait $pid; echo "$n rc=$?" | tee -a "$OUT/summary.txt"
        tail -3 "$D/$n.out" | cut -c1-200 | tee -a "$OUT/summary.txt"
      done
      ;;
    ncuhelp)
      # Issue 20: ncu's own --help and set lists (for the coordinator to
      # compare with tests/data/ncu/ncu-help.documented.txt, which is
      # transcribed from NVIDIA's documentation), and the ncu-flag check of
      # `perfcheck run` against the real help.  Needs the build stage.  ~10 s.
      say "ncuhelp: ncu --help, --list-sets, --list-sections; tests/unit/check_ncu_flags.py on the real help"
      NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
      D=$R/ncuhelp
      mkdir -p "$D"
      "$NCU" --version > "$D/ncu-version.txt" 2>&1
      "$NCU" --help > "$D/ncu-help.txt" 2>&1
      "$NCU" --list-sets > "$D/ncu-list-sets.txt" 2>&1
      "$NCU" --list-sections > "$D/ncu-list-sections.txt" 2>&1
      python3 "$ROOT/tests/unit/check_ncu_flags.py" "$BUILD/bin/perfcheck" "$D/ncu-help.txt" "$ROOT/tests/data" \
        > "$D/check-ncu-flags.txt" 2>&1
      echo "check_ncu_flags rc=$?" >> "$D/check-ncu-flags.txt"
      tail -20 "$D/check-ncu-flags.txt" | tee -a "$OUT/summary.txt"
      ;;
    nsys)
      # Issue 20 item 9: does nsys make a report here?  Tried once on
      # kernels/mystery: nsys profile, then nsys stats of the two reports
      # perfcheck diagnose reads (cuda_gpu_kern_sum, cuda_gpu_mem_time_sum)
      # as CSV, saved as they come (the committed nsys fixture is hand-made
      # from NVIDIA's documented format until such an export exists), and
      # perfcheck diagnose of it with the program's plain wall clock.
      # Needs the build stage.  ~30 s.
      NSYS=${NSYS:-/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys}
      [ -x "$NSYS" ] || NSYS=$(command -v nsys || echo nsys)
      D=$R/nsys
      mkdir -p "$D"
      say "nsys: $NSYS profile + stats of kernels/mystery --profile"
      s0=$(date +%s%N)
      timeout 60 "$BUILD/kernels/mystery" --profile > "$D/plain.log" 2>&1
      wall_ns=$(( $(date +%s%N) - s0 ))
      { "$NSYS" --version; echo "plain run wall ${wall_ns} ns"
        timeout 120 "$NSYS" profile --trace cuda,nvtx --force-overwrite true -o "$D/mystery" \
          "$BUILD/kernels/mystery" --profile; echo "nsys profile rc=$?"; ls -la "$D"; } > "$D/profile.log" 2>&1
      # The nsys inside Nsight Compute's folder leaves a .qdstrm (its importer
      # is a separate program): convert it with any QdstrmImporter on the box.
      if [ ! -s "$D/mystery.nsys-rep" ] && [ -s "$D/mystery.qdstrm" ]; then
        IMP=$(find / -xdev -name 'QdstrmImporter*' -type f 2>/dev/null | head -1)
        # Its libdw.so.1 (and libelf), when the box lacks them: carried as
        # Debian packages in .dev/nsysdeps (apt-get download libdw1 libelf1).
        if ls "$ROOT"/.dev/nsysdeps/*.deb > /dev/null 2>&1; then
          for d in "$ROOT"/.dev/nsysdeps/*.deb; do dpkg -x "$d" /tmp/pc-nsysdeps; done
          export LD_LIBRARY_PATH=/tmp/pc-nsysdeps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
        fi
        { echo "qdstrm left; importer: ${IMP:-none found}"; find / -xdev -name nsys -type f 2>/dev/null | head -5
          [ -n "$IMP" ] && timeout 120 "$IMP" -i "$D/mystery.qdstrm"; echo "import rc=$?"; } >> "$D/profile.log" 2>&1
      fi
      rep=$(ls "$D"/mystery.nsys-rep "$D"/mystery.qdrep 2>/dev/null | head -1)
      { timeout 120 "$NSYS" stats --report cuda_gpu_kern_sum --report cuda_gpu_mem_time_sum --format csv \
          --output - "${rep:-$D/mystery.nsys-rep}"; echo "nsys stats rc=$?"; } > "$D/stats.csv" 2> "$D/stats.err"
      "$BUILD/bin/perfcheck" diagnose --wall-time "${wall_ns}ns" "$D/stats.csv" > "$D/diagnose.txt" 2>&1
      echo "perfcheck diagnose rc=$?" >> "$D/diagnose.txt"
      rm -f "$D"/*.sqlite "$D"/*.qdstrm  # tens of MB: the tarball must come back
      { tail -8 "$D/profile.log"; head -12 "$D/stats.csv"; tail -5 "$D/stats.err"; grep -E '^region|rc=' "$D/diagnose.txt"; } \
        | cut -c1-300 | tee -a "$OUT/summary.txt"
      ;;
    *)
      say "unknown stage $s"
      ;;
  esac
done
say "packing"
if [ -n "$(ls -A "$R")" ]; then tar -czf "$OUT/results.tgz" -C "$R" .; fi
rm -rf "$R"
say done
