#!/usr/bin/env bash
# bench_overhead.sh BUILD_DIR OUT_DIR: issue 21's figures in one device call
# (benchmarks that print figures, not timed tests).  Each figure is the
# median of alternating whole-process runs (modes interleaved run by run, so
# drift spreads over all of them); every process runs under `timeout`.
#
#   A. timing, C++: 4096 tiny launches (bench_launches tiny): plain,
#      perfcheck timing (in process), nsys --trace=cuda where present; and the
#      host cost per launch (tests/bench/overhead_probe: plain, callbacks,
#      activity, both, perfcheck).                         ~35 s
#   B. timing, PyTorch: 4096 x.add_(1): plain, perfcheck run --mode timing,
#      nsys.                                               ~60 s
#   C. counters against ncu on the 4-launch program (kernels/mystery):
#      plain, perfcheck run (kernel replay), perfcheck run with
#      PERFCHECK_REPLAY=rotate, ncu --metrics <default list>, ncu --set full;
#      added wall time of each against plain, and the ratios. ~90 s
#   D. DRAM bytes: mystery under PERFCHECK_REPLAY=rotate against
#      ncu --cache-control all (dram__bytes_read/write.sum per kernel),
#      within 10%?                                         ~20 s
#   E. a training step: examples/python/torch_step.py --steps 1000 plain,
#      perfcheck run (kernel replay), perfcheck run (rotate): ratios to
#      plain, and whether every signature has counters.    ~120 s
# Knobs: REPS (3), NSYS (path), NCU (path), PYTHON (python3), SKIP (letters).
# Prints one "FIGURE" line per figure and one PASS/FAIL line per claim of the
# issue, and writes OUT_DIR/bench_overhead.md.
set -uo pipefail
BUILD=${1:?usage: bench_overhead.sh BUILD_DIR OUT_DIR}
OUT=${2:?usage: bench_overhead.sh BUILD_DIR OUT_DIR}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
REPS=${REPS:-3}
PY=${PYTHON:-python3}
SKIP=${SKIP:-}
NSYS=${NSYS:-$(command -v nsys || ls /opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys 2>/dev/null | head -1)}
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
PC=$BUILD/bin/perfcheck
BL=$BUILD/bench/bench_launches
mkdir -p "$OUT/logs"
RES=$OUT/results.txt
: > "$RES"
now() { date +%s.%N; }
# run TAG CMD...: one timed process; its wall time and its own RESULT line.
run() {
  local tag=$1; shift
  local t0; t0=$(now)
  timeout 300 "$@" > "$OUT/logs/$tag.log" 2>&1
  local rc=$?
  echo "RUN tag=$tag rc=$rc wall_s=$(awk -v a="$(now)" -v b="$t0" 'BEGIN{printf "%.4f", a - b}') $(grep -h '^RESULT' "$OUT/logs/$tag.log" | head -1)" >> "$RES"
}
skip() { [[ "$SKIP" == *"$1"* ]]; }

if ! skip A; then
  for i in $(seq "$REPS"); do
    run "A.plain.$i" "$BL" plain tiny
    run "A.perfcheck.$i" "$BL" timing tiny
    [ -n "$NSYS" ] && run "A.nsys.$i" "$NSYS" profile --trace=cuda -o "$OUT/logs/A.nsys.$i" --force-overwrite true "$BL" plain tiny
    for m in plain cb act cbact perfcheck; do
      run "P.$m.$i" "$BUILD/bench/overhead_probe" $m
    done
  done
fi

if ! skip B; then
  cat > "$OUT/add_loop.py" <<'PY'
import sys, time, torch
x = torch.zeros(4096, device="cuda"); [x.add_(1) for _ in range(64)]; torch.cuda.synchronize()
t0 = time.perf_counter()
for _ in range(4096): x.add_(1)
torch.cuda.synchronize()
print("RESULT mode=torch workload=add4096 wall_ms=%.3f" % ((time.perf_counter() - t0) * 1e3))
PY
  if "$PY" -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
    for i in $(seq "$REPS"); do
      run "B.plain.$i" "$PY" "$OUT/add_loop.py"
      run "B.perfcheck.$i" "$PC" run --mode timing --output /dev/null -- "$PY" "$OUT/add_loop.py"
      [ -n "$NSYS" ] && run "B.nsys.$i" "$NSYS" profile --trace=cuda -o "$OUT/logs/B.nsys.$i" --force-overwrite true "$PY" "$OUT/add_loop.py"
    done
  fi
fi

if ! skip C; then
  LIST=$("$PC" metrics)
  for i in $(seq "$REPS"); do
    run "C.plain.$i" "$BUILD/kernels/mystery" --profile
    run "C.kernel.$i" "$PC" run --mode counters --format json --output "$OUT/logs/C.kernel.$i.json" -- "$BUILD/kernels/mystery" --profile
    run "C.rotate.$i" env PERFCHECK_REPLAY=rotate "$PC" run --mode counters --format json --output "$OUT/logs/C.rotate.$i.json" -- "$BUILD/kernels/mystery" --profile
    run "C.ncu.$i" "$NCU" --clock-control none --metrics "$LIST" --csv --page raw "$BUILD/kernels/mystery" --profile
    [ "$i" = 1 ] && run "C.ncufull.$i" "$NCU" --clock-control none --set full "$BUILD/kernels/mystery" --profile
  done
fi

if ! skip D; then
  run "D.ncu" "$NCU" --cache-control all --clock-control none --print-units base --metrics dram__bytes_read.sum,dram__bytes_write.sum --csv --page raw "$BUILD/kernels/mystery" --profile
  run "D.rotate" env PERFCHECK_REPLAY=rotate "$PC" run --mode counters --format json --output "$OUT/logs/D.rotate.json" -- "$BUILD/kernels/mystery" --profile
fi

if ! skip E; then
  if "$PY" -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
    EX=$ROOT/examples/python/torch_step.py
    for i in 1 2; do
      run "E.plain.$i" "$PY" "$EX" --plain --steps 1000
      run "E.rotate.$i" env PERFCHECK_REPLAY=rotate "$PC" run --mode counters --format json --output "$OUT/logs/E.rotate.$i.json" -- "$PY" "$EX" --plain --steps 1000
      [ "$i" = 1 ] && run "E.kernel.$i" "$PC" run --mode counters --format json --output "$OUT/logs/E.kernel.$i.json" -- "$PY" "$EX" --plain --steps 1000
    done
  fi
fi

"$PY" - "$RES" "$OUT" <<'PY' | tee "$OUT/bench_overhead.md"
import csv, glob, io, json, os, re, statistics, sys
res, out = sys.argv[1], sys.argv[2]
runs = {}
for line in open(res):
    m = re.match(r"RUN tag=(\w+)\.(\w+)\.?(\d*) rc=(\d+) wall_s=([0-9.]+)(.*)", line)
    if not m: continue
    grp, mode, rc, wall, rest = m.group(1), m.group(2), int(m.group(4)), float(m.group(5)), m.group(6)
    r = runs.setdefault((grp, mode), {"wall": [], "rc": [], "res": []})
    r["wall"].append(wall); r["rc"].append(rc)
    v = re.search(r"(wall_ms|us_per_launch)=([0-9.]+)", rest)
    if v: r["res"].append(float(v.group(2)))
def med(g, m, key="res"):
    r = runs.get((g, m)); x = r and r[key]
    return statistics.median(x) if x else None
def claim(ok, text):
    print("%s %s" % ("PASS" if ok else ("FAIL" if ok is not None else "SKIP"), text))
print("# bench_overhead (issue 21), medians of alternating runs\n")
# A
p, t, n = med("A", "plain"), med("A", "perfcheck"), med("A", "nsys")
if p and t:
    print("FIGURE timing C++ 4096 tiny launches: plain %.2f ms, perfcheck %.2f ms (%.3fx), nsys %s" % (
        p, t, t / p, "%.2f ms (%.3fx)" % (n, n / p) if n else "-"))
    claim(t / p <= 1.10, "timing C++ <= 1.10x plain (%.3fx)" % (t / p))
    claim(None if not n else t <= n, "timing C++ ahead of nsys (perfcheck %.2f ms, nsys %s)" % (t, "%.2f ms" % n if n else "-"))
for m in ("plain", "cb", "act", "cbact", "perfcheck"):
    v = med("P", m)
    if v is not None: print("FIGURE host cost per launch, %s: %.3f us" % (m, v))
if med("P", "plain") and med("P", "perfcheck"):
    print("FIGURE perfcheck's own host cost per launch: %.3f us" % (med("P", "perfcheck") - med("P", "plain")))
# B
p, t, n = med("B", "plain"), med("B", "perfcheck"), med("B", "nsys")
if p and t:
    print("FIGURE timing PyTorch 4096 add_: plain %.2f ms, perfcheck %.2f ms (%.3fx), nsys %s" % (
        p, t, t / p, "%.2f ms (%.3fx)" % (n, n / p) if n else "-"))
    claim(t / p <= 1.05, "timing PyTorch <= 1.05x plain (%.3fx)" % (t / p))
# C
wp = med("C", "plain", "wall")
if wp:
    add = {m: med("C", m, "wall") - wp for m in ("kernel", "rotate", "ncu", "ncufull") if med("C", m, "wall")}
    print("FIGURE mystery added wall s: " + ", ".join("%s %.3f" % kv for kv in add.items()))
    if "ncu" in add and add["ncu"] > 0:
        for m in ("kernel", "rotate"):
            if m in add: claim(add[m] / add["ncu"] <= 0.10, "counters (%s) <= 0.10 of ncu's added wall, same list (%.3f)" % (m, add[m] / add["ncu"]))
    if "ncufull" in add and add["ncufull"] > 0:
        for m in ("kernel", "rotate"):
            if m in add: claim(add[m] / add["ncufull"] <= 0.02, "counters (%s) <= 0.02 of ncu --set full (%.4f)" % (m, add[m] / add["ncufull"]))
# D
def ncu_rows(path):
    text = open(path).read()
    lines = [l for l in text.splitlines() if l.startswith('"')]
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    if len(rows) < 3: return []
    h = rows[0]
    return [dict(zip(h, r)) for r in rows[2:]]
try:
    ncu = ncu_rows(os.path.join(out, "logs", "D.ncu.log"))
    rep = json.load(open(os.path.join(out, "logs", "D.rotate.json")))
    for k in rep["kernels"]:
        name = k["name"]
        mine = [r for r in ncu if r.get("Kernel Name", "").startswith(name)]
        if not mine: continue
        for met in ("dram__bytes_read.sum", "dram__bytes_write.sum"):
            ref = statistics.mean(float(r[met].replace(",", "")) for r in mine if r.get(met))
            v = k["metrics"].get(met)
            if v is None or ref <= 0: claim(False, "DRAM %s %s: perfcheck %s, ncu %s" % (name, met, v, ref)); continue
            claim(abs(v - ref) <= 0.10 * ref, "DRAM %s %s within 10%% of ncu --cache-control all: %.0f vs %.0f (%.1f%%, dram_cold %s)" % (
                name, met, v, ref, 100 * (v - ref) / ref, k.get("dram_cold")))
except Exception as e:
    print("SKIP DRAM comparison: %s" % e)
# E
wp = med("E", "plain", "wall")
if wp:
    for m in ("rotate", "kernel"):
        w = med("E", m, "wall")
        if not w: continue
        print("FIGURE torch_step 1000 steps: plain %.2f s, %s %.2f s (%.3fx)" % (wp, m, w, w / wp))
        files = sorted(glob.glob(os.path.join(out, "logs", "E.%s.*.json" % m)))
        if files:
            rep = json.load(open(files[0]))
            ks = rep["kernels"]
            have = sum(1 for k in ks if k.get("passes"))
            print("FIGURE torch_step %s: %d of %d kernel entries with counters" % (m, have, len(ks)))
            if m == "rotate":
                claim(w / wp <= 1.10, "rotation on 1000 steps <= 1.10x plain (%.3fx)" % (w / wp))
                claim(have == len(ks), "every signature has counters under rotation (%d of %d)" % (have, len(ks)))
PY
