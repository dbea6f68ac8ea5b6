#!/usr/bin/env bash
# timing_probe.sh [BUILD_DIR]: which attribution of kernel records costs
# least in timing mode, and can the counter configuration cross processes?
# Two probes that print figures (no test asserts on them), for a GPU machine:
#
#  1. tests/bench/overhead_probe, one mode a process, REPS processes a mode,
#     the modes alternating (their order reversed every other round): the
#     host time of a launch, median/min/max of 16 rounds of 4096 tiny launches
#     in each process.  Rows (the probe's header says more):
#       plain     nothing attached
#       act       CUPTI CONCURRENT_KERNEL activity records only
#       ext       act + one external correlation id pushed/popped per round
#       api       act + driver API records of the launch calls (no callback)
#       extapi    ext + api (Kineto's set)
#       cball     act + ENTER/EXIT launch callbacks on every launch id (the
#                 launch path as perfcheck has it, CUPTI's share of it)
#       cbuntil   cball until the signatures are known, then the callbacks off
#                 (by the EXIT callback itself)
#       cbwarm    cball, the callbacks turned off by the program's thread
#                 after the warm-up (cbuntil's fallback)
#       fence     cbwarm + a callback on cuDriverGetVersion alone, called
#                 before and after each round: a region's bounds as
#                 correlation ids (fenced: kernel records between a round's
#                 two; 65536 = every one, so no launch callback is needed to
#                 place a kernel in its region)
#       perfcheck perfcheck's timing mode (a session, one region)
#       nsys      plain under nsys profile --trace=cuda (where nsys is found)
#     Beside each: its ratio to plain, and what the mode could attribute:
#     kernel records, API and external correlation records, kernel records
#     matched to one (matched), launch callbacks, whether it saw the one launch
#     that fails (failed_seen: 1 yes, 0 no, - no way to tell), and for cbuntil
#     the result of turning callbacks off inside the EXIT callback (cb_off_rc)
#     and how often the activity decoder turned them on again (cb_on_again: 1
#     expected, for the second kernel).
#  2. tests/gpu/setup_probe cfgsave / cfgload, alternating CFG_REPS times,
#     with perfcheck's default metric list (`perfcheck metrics`) and the
#     one-pass list: the host object, AddMetrics and config image each timed
#     in a process that builds them; in one that reads another process's
#     config image instead, whether a host object with no AddMetrics
#     evaluates (evaluate_rc 0) and whether a counter data image initialized
#     by another process works (cached_image_*_rc 0), and whether the values
#     agree with the building process's (max relative difference per metric,
#     the same kernel each time: DRAM bytes move a little, L1 sectors not).
#
# Output: the tables on stdout and in $OUT/timing_probe.txt; every process's
# lines in $OUT/timing_probe.log, the lines the tables are made of in
# $OUT/timing_probe.log.results and .cfg.  Builds the three targets it needs into
# BUILD_DIR (default build/) first if they are missing.  About 2 to 3 minutes with the
# defaults on an H100/H200 (nsys adds about 8 s a run).
# Knobs: REPS (5), MODES (the list above, nsys added when found), ROUNDS
# (16, the probe's), CFG_REPS (3), NSYS (path).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$ROOT/build}
OUT=${OUT:-$ROOT/out}
REPS=${REPS:-5}
CFG_REPS=${CFG_REPS:-3}
MODES=${MODES:-plain act ext api extapi cball cbuntil cbwarm fence perfcheck}
mkdir -p "$OUT"
RES=$OUT/timing_probe.txt
LOG=$OUT/timing_probe.log
: > "$LOG"
: > "$LOG.results"
: > "$LOG.cfg"
export PATH=/usr/local/cuda/bin:$PATH
PROBE=$BUILD/bench/overhead_probe
SETUP=$BUILD/tests/gpu/gpu_setup_probe
PC=$BUILD/bin/perfcheck

if [ ! -x "$PROBE" ] || [ ! -x "$SETUP" ] || [ ! -x "$PC" ]; then
  echo "timing_probe: building overhead_probe, gpu_setup_probe, perfcheck into $BUILD" | tee -a "$LOG"
  { cmake -S "$ROOT" -B "$BUILD" && cmake --build "$BUILD" -j"$(nproc)" --target overhead_probe gpu_setup_probe perfcheck_cli; } >> "$LOG" 2>&1 ||
    { echo "timing_probe: build failed (the end of $LOG):"; tail -20 "$LOG"; exit 1; }
fi

if [ -z "${NSYS+x}" ]; then
  NSYS=$(command -v nsys || ls /opt/nvidia/nsight-systems/*/bin/nsys /usr/local/cuda/bin/nsys \
    /opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys 2>/dev/null | head -1)
fi
NSYS_OPTS=()
NSYSOUT=$(mktemp -d)/probe
if [ -n "$NSYS" ] && [ -x "$NSYS" ]; then
  MODES="$MODES nsys"
  nh=$(timeout 30 "$NSYS" profile --help 2>&1)
  case $nh in *--sample*) NSYS_OPTS+=(--sample=none) ;; esac
  case $nh in *--cpuctxsw*) NSYS_OPTS+=(--cpuctxsw=none) ;; esac
fi

{
  echo "# timing_probe $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/# GPU: /'
  echo "# source: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo 'no git metadata')"
  echo "# nsys: ${NSYS:-none found} ${NSYS_OPTS[*]:-}"
} | tee "$RES"

# ---- 1. the host cost of a launch, by attribution ---------------------------
read -ra mode_list <<< "$MODES"
for rep in $(seq 1 "$REPS"); do
  order=("${mode_list[@]}")
  if [ $((rep % 2)) -eq 0 ]; then
    order=(); for ((i = ${#mode_list[@]} - 1; i >= 0; i--)); do order+=("${mode_list[$i]}"); done
  fi
  for m in "${order[@]}"; do
    if [ "$m" = nsys ]; then
      line=$(timeout 120 "$NSYS" profile --trace=cuda ${NSYS_OPTS[@]+"${NSYS_OPTS[@]}"} -o "$NSYSOUT" --force-overwrite true \
        "$PROBE" plain 2>&1 | tee -a "$LOG" | grep '^RESULT' | sed 's/mode=plain/mode=nsys/')
      rm -f "$NSYSOUT".*
    else
      line=$(timeout 60 "$PROBE" "$m" 2>&1 | tee -a "$LOG" | grep '^RESULT')
    fi
    [ -n "$line" ] || line="RESULT mode=$m failed=1"
    echo "$line rep=$rep" >> "$LOG.results"
  done
done

# ---- 2. the config image across processes -------------------------------------
CFG=$(mktemp -d)
DEFAULT_LIST=$("$PC" metrics 2>/dev/null)
for list in default onepass; do
  for rep in $(seq 1 "$CFG_REPS"); do
    for m in cfgsave cfgload; do
      if [ "$list" = default ]; then
        out=$(PROBE_METRICS=$DEFAULT_LIST timeout 120 "$SETUP" "$m" "$CFG/$list.bin" 2>&1)
      else
        out=$(PROBE_METRICS= timeout 120 "$SETUP" "$m" "$CFG/$list.bin" 2>&1)
      fi
      echo "rc=$?" >> "$LOG"
      printf '%s\n' "$out" >> "$LOG"
      printf '%s\n' "$out" | grep -E '^(SETUP|VALUES|FAIL|SKIP)' | sed "s/^/$list $rep /" >> "$LOG.cfg"
    done
  done
done
rm -rf "$CFG" "$(dirname "$NSYSOUT")"

python3 - "$LOG.results" "$LOG.cfg" <<'PY' | tee -a "$RES"
import re, statistics, sys
from collections import defaultdict

rows = defaultdict(list)
for line in open(sys.argv[1]):
    kv = dict(re.findall(r'(\w+)=(\S+)', line))
    rows[kv.get('mode', '?')].append(kv)
print()
print("## 1. host time of a launch (us), 4096 tiny launches x 16 rounds a process")
print("median: of the processes' medians; min/max: over every round of every process")
hdr = ("mode", "procs", "median", "min", "max", "x plain", "kernels", "api", "ext", "matched", "fenced", "callbacks",
       "failed_seen", "cb_off_rc", "cb_on_again")
print("| " + " | ".join(hdr) + " |")
print("|" + "---|" * len(hdr))
base = None
if rows.get('plain'):
    ok = [float(r['us_per_launch']) for r in rows['plain'] if 'us_per_launch' in r]
    base = statistics.median(ok) if ok else None
for mode, rs in rows.items():
    ok = [r for r in rs if 'us_per_launch' in r]
    if not ok:
        print(f"| {mode} | 0 of {len(rs)} ran |" + " |" * (len(hdr) - 2))
        continue
    med = statistics.median(float(r['us_per_launch']) for r in ok)
    lo = min(float(r['min_us']) for r in ok)
    hi = max(float(r['max_us']) for r in ok)
    last = ok[-1]
    def col(k):
        vals = sorted({r.get(k, '-') for r in ok})
        return "/".join(vals)
    fs = col('failed_seen').replace('-1', '-')
    ratio = f"{med / base:.2f}" if base else "-"
    print(f"| {mode} | {len(ok)} | {med:.3f} | {lo:.3f} | {hi:.3f} | {ratio} | {col('kernels')} | {col('api')} | "
          f"{col('ext')} | {col('matched')} | {col('fenced').replace('-1', '-')} | {col('callbacks')} | {fs} | {col('cb_off_rc')} | {col('cb_on_again')} |")

print()
print("## 2. the counter configuration across processes (ms; medians of the processes)")
steps = defaultdict(list)
facts = defaultdict(set)
vals = defaultdict(lambda: defaultdict(list))
fails = []
try:
    lines = open(sys.argv[2]).read().splitlines()
except OSError:
    lines = []
for line in lines:
    parts = line.split()
    if len(parts) < 4:
        continue
    lst, rep, kind = parts[0], parts[1], parts[2]
    if kind in ('FAIL', 'SKIP'):
        fails.append(line)
        continue
    if kind == 'SETUP' and len(parts) >= 6:
        mode, step = parts[3], parts[4]
        try:
            steps[(lst, mode, step)].append(float(parts[5]))
        except ValueError:
            facts[(lst, mode)].add(" ".join(parts[4:]))
        if step.endswith('_rc') or step in ('passes', 'metrics', 'counter_data_bytes'):
            facts[(lst, mode)].add(" ".join(parts[4:]))
    elif kind == 'VALUES':
        mode, what = parts[3], parts[4].rstrip(':')
        for kv in parts[5:]:
            if '=' in kv:
                k, v = kv.rsplit('=', 1)
                vals[(lst, mode, what)][k].append(float(v))
for lst in ('default', 'onepass'):
    print(f"\n### metric list: {lst}")
    for mode in ('cfgsave', 'cfgload'):
        ss = [(s, statistics.median(v)) for (l, m, s), v in steps.items() if l == lst and m == mode and not s.endswith('_rc')
              and s not in ('passes', 'metrics', 'counter_data_bytes')]
        print(f"- {mode}: " + ", ".join(f"{s} {v:.2f}" for s, v in ss))
        print(f"  {mode} facts: " + "; ".join(sorted(facts[(lst, mode)])))
    ref = vals.get((lst, 'cfgsave', 'after_add_metrics'), {})
    for what in ('bare_host_object', 'after_add_metrics', 'cached_counter_data_image'):
        got = vals.get((lst, 'cfgload', what))
        if not got or not ref:
            print(f"- cfgload values {what}: none")
            continue
        worst, wname = 0.0, ''
        for k, v in got.items():
            r = statistics.median(ref.get(k, [float('nan')]))
            g = statistics.median(v)
            d = abs(g - r) / abs(r) if r else abs(g)
            if d > worst or d != d:
                worst, wname = d, k
        print(f"- cfgload values {what} against cfgsave's: {len(got)} metrics, largest relative difference "
              f"{worst:.4f} ({wname})")
for f in fails[:10]:
    print("FAIL/SKIP:", f)
PY
echo "timing_probe: table in $RES, process output in $LOG"
