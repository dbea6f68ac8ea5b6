#!/usr/bin/env bash
# bench_overhead.sh [--dry-run] BUILD_DIR OUT_DIR: issue 21's figures in one
# device call (benchmarks that print figures, not timed tests).
#
# Sections, in the order of their value to the issue's Done-when lines (each
# prints its FIGURE and PASS/FAIL/SKIP lines as soon as it ends):
#   C. counters against ncu on the 4-launch program (kernels/mystery
#      --profile): plain, perfcheck run with PERFCHECK_REPLAY=kernel and
#      =rotate, ncu --metrics <perfcheck's default list>, ncu --set full; the
#      added process wall time of each against plain, and the ratios.
#   A. timing, C++: 4096 tiny launches (bench_launches tiny): plain, perfcheck
#      timing (in process), nsys --trace=cuda; the host cost per launch
#      (tests/bench/overhead_probe, the median of 16 rounds of 4096 launches
#      in each process: plain, callbacks, activity, activity with buffers
#      zeroed off the launching thread, activity with pinned host record
#      buffers, both, perfcheck, and the plain probe under nsys).
#   D. DRAM bytes against ncu --cache-control all (dram__bytes_read/write.sum
#      per kernel, within 10%?): mystery under rotate (and kernel replay, for
#      contrast), and a cuBLAS GEMM (8 x torch.mm 4096^2 fp32) under rotate.
#      A comparison of values, not a timing: one round, no warm-up.
#   B. timing, PyTorch: 4096 x.add_(1): plain, perfcheck run --mode timing,
#      nsys.
#   E. a training step: examples/python/torch_step.py --plain --steps 1000:
#      plain, perfcheck run under rotate and kernel replay (E_MODES="plain
#      rotate session kernel" with E_ROTATE_SESSION=0 sets rotation without
#      sessions, "rotate", beside rotation with them, "session"); the process
#      wall and the loop's own time against plain, counter coverage, and
#      whether rotation reaches kernel replay's verdicts.
# Each timing section runs one untimed warm-up round (every mode once), then
# REPS timed rounds, the modes alternating run by run (their order reversed
# every other round, so drift spreads over all of them); figures are medians
# of the timed rounds.  The A and B figures are the loop's wall inside the
# process (the programs' RESULT lines); C and E use the process wall clock.
#
# Time: a global budget, BENCH_BUDGET_S seconds from the start (330).  A
# section starts only if its warm-up and one timed round fit in what is left
# (otherwise one SKIP line says why); a further round runs only if it leaves
# time for every later section that would fit without it.  Every process runs
# under `timeout`, capped by what is left of the budget, so the script ends
# near BENCH_BUDGET_S whatever happens.  The estimates below are from the
# H200 (2026-12-01/02) and are replaced by each mode's measured wall clock as
# the runs go.
#
# Output (OUT_DIR, kept under ~1 MB, two levels): summary.txt (the ENV,
# FIGURE, PASS/FAIL and SKIP lines, appended as they come), bench_overhead.md
# (written section by section), runs.txt (one RUN line a process), logs/
# (each process's output, cut to BENCH_LOG_MAX_KB with its head and tail; one
# perfcheck report per section and mode, gzipped when large).  nsys's
# .qdstrm/.nsys-rep/.sqlite go to a scratch folder and are deleted after each
# run (only the program's own RESULT line is used); nsys traces CUDA only,
# with --sample=none --cpuctxsw=none where its own --help lists them, so it
# does what perfcheck's timing mode does.  The top ENV lines: date, host,
# GPU (name, driver, clocks, power, temperature; again at the end), source
# commit, perfcheck's version and passes, ncu, nsys, python and torch.
#
# On a CPU: tests/unit/bench_overhead_test.sh (ctest unit.bench_overhead)
# runs this script over stub programs and checks its figures, budget and
# output.  On the GPU: scripts/device/run.sh build bench21.
#
# Knobs (environment): REPS (3), BENCH_BUDGET_S (330), SECTIONS ("C A D B E"),
# SKIP (letters to leave out), NSYS, NCU (paths), PYTHON (the workloads'
# python3), E_STEPS (1000), BENCH_LOG_MAX_KB (32).
# --dry-run prints the plan (the commands of each section's first round, the
# rounds the budget allows with the estimates) and runs and writes nothing.
set -uo pipefail

DRY=0
if [ "${1:-}" = --dry-run ]; then DRY=1; shift; fi
if [ $# -ne 2 ]; then
  echo "usage: bench_overhead.sh [--dry-run] BUILD_DIR OUT_DIR" >&2
  exit 64
fi
BUILD=$1
OUT=$2
ROOT=$(cd "$(dirname "$0")/.." && pwd)
REPS=${REPS:-3}
BUDGET=${BENCH_BUDGET_S:-330}
SECTIONS=${SECTIONS:-C A D B E}
SKIP=${SKIP:-}
PY=${PYTHON:-python3}
E_STEPS=${E_STEPS:-1000}
LOG_MAX=$(( ${BENCH_LOG_MAX_KB:-32} * 1024 ))
REPORT_MAX=$(( 256 * 1024 ))
OUT_MAX_KB=900
SUMMARY_PY=$ROOT/scripts/bench_overhead_summary.py
PC=$BUILD/bin/perfcheck
BL=$BUILD/bench/bench_launches
PROBE=$BUILD/bench/overhead_probe
MYSTERY=$BUILD/kernels/mystery
EX=$ROOT/examples/python/torch_step.py
GEMM_RE='gemm|nvjet|xmma|cutlass'
DRAM_METRICS=dram__bytes_read.sum,dram__bytes_write.sum
case $REPS in '' | *[!0-9]* | 0) echo "bench_overhead.sh: REPS must be a positive integer" >&2; exit 64 ;; esac
case $BUDGET in '' | *[!0-9]*) echo "bench_overhead.sh: BENCH_BUDGET_S must be a number of seconds" >&2; exit 64 ;; esac

find_tool() {  # find_tool NAME CANDIDATE...: NAME on PATH, else the first executable candidate
  local c
  if c=$(command -v "$1"); then echo "$c"; return 0; fi
  shift
  for c in "$@"; do [ -x "$c" ] && [ -f "$c" ] && { echo "$c"; return 0; }; done
  return 1
}
NSYS=${NSYS-$(find_tool nsys /opt/nvidia/nsight-systems/*/bin/nsys /usr/local/cuda/bin/nsys \
  /opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys)}
NCU=${NCU-$(find_tool ncu /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu)}

# ---- sections: titles, modes, estimates (s), per-process caps (s) ---------
declare -A TITLE=(
  [C]="counters against ncu, kernels/mystery --profile (4 launches)"
  [A]="timing, C++: 4096 tiny launches (bench_launches tiny)"
  [D]="DRAM bytes against ncu --cache-control all (mystery, a cuBLAS GEMM)"
  [B]="timing, PyTorch: 4096 x.add_(1)"
  [E]="training step: torch_step.py --plain --steps $E_STEPS, rotation against kernel replay")
declare -A MODES=(
  [C]="plain kernel rotate ncu ncufull"
  [A]="plain perfcheck nsys probe_plain probe_cb probe_act probe_actz probe_actpin probe_cbact probe_perfcheck probe_nsys"
  [D]="ncu rotate kernel gemm_ncu gemm_rotate"
  [B]="plain perfcheck nsys"
  [E]="${E_MODES:-plain rotate kernel}")
declare -A WARMUP=([C]=1 [A]=1 [D]=0 [B]=1 [E]=1)
declare -A SREPS=([C]=$REPS [A]=$REPS [D]=1 [B]=$REPS [E]=$REPS)
# Seen on the H200: mystery plain 0.54 s, perfcheck run 1.6 s, ncu --metrics
# 3.3 s (2026-12-01 ncuwall); torch_step plain 11.6 s with 20 steps, 2.6 ms a
# step (torchstep); nsys profile of mystery about 6 s (2026-12-02 nsys stage);
# ncu --set full about 2 s a launch (scripts/device/bench.sh).
declare -A EST=(
  [C.plain]=1 [C.kernel]=2 [C.rotate]=2 [C.ncu]=4 [C.ncufull]=12
  [A.plain]=1 [A.perfcheck]=1 [A.nsys]=8 [A.probe_plain]=1 [A.probe_cb]=1 [A.probe_act]=1 [A.probe_cbact]=1
  [A.probe_perfcheck]=1 [A.probe_actz]=1 [A.probe_actpin]=1 [A.probe_nsys]=8
  [D.ncu]=4 [D.rotate]=2 [D.kernel]=2 [D.gemm_ncu]=10 [D.gemm_rotate]=8
  [B.plain]=7 [B.perfcheck]=9 [B.nsys]=15
  [E.plain]=15 [E.rotate]=20 [E.session]=20 [E.kernel]=20)
declare -A CAP=([C]=60 [A]=60 [D]=90 [B]=90 [E]=150)
declare -A AVAIL=() WHY=()

SECONDS=0
say() { echo "[bench +${SECONDS}s] $*"; }

if [ "$DRY" = 1 ]; then
  SCR=${TMPDIR:-/tmp}/pc-bench21.DRYRUN
  LOGS=$OUT/logs
  SUM=/dev/null
  MD=/dev/null
  RES=/dev/null
else
  mkdir -p "$OUT/logs" || exit 2
  LOGS=$OUT/logs
  SUM=$OUT/summary.txt
  MD=$OUT/bench_overhead.md
  RES=$OUT/runs.txt
  : > "$SUM"; : > "$RES"
  SCR=$(mktemp -d "${TMPDIR:-/tmp}/pc-bench21.XXXXXX") || exit 2
  trap 'rm -rf "$SCR"' EXIT
  mkdir -p "$SCR/nsys" "$SCR/reports"
fi
# line TEXT: a summary line (ENV, FIGURE, PASS, FAIL, SKIP) on stdout and in summary.txt
line() { echo "$*"; echo "$*" >> "$SUM"; }
md() { printf '%s\n' "$@" >> "$MD"; }

# ---- environment ----------------------------------------------------------
env_line() {  # env_line KEY CMD...: one ENV line; a failing command says so
  local key=$1 val rc
  shift
  val=$(timeout -k 2 30 "$@" 2>&1 | tr '\n' ' ' | sed 's/  */ /g; s/ *$//' | cut -c1-300)
  rc=${PIPESTATUS[0]}
  [ "$rc" = 0 ] || val="(rc $rc) $val"
  line "ENV $key: $val"
  md "- $key: \`$val\`"
}
GPU_QUERY='nvidia-smi --query-gpu=name,driver_version,pci.bus_id,persistence_mode,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.draw,temperature.gpu --format=csv,noheader 2>/dev/null || nvidia-smi --query-gpu=name,driver_version --format=csv,noheader'
NSYS_OPTS=()
HAVE_TORCH=0
TORCH_WHY="not checked"
LIST=
if [ "$DRY" = 1 ]; then
  line "ENV dry run: nothing is queried or run; budget ${BUDGET} s, REPS $REPS, sections $SECTIONS${SKIP:+, SKIP $SKIP}"
  line "ENV tools: perfcheck $PC, ncu ${NCU:-none}, nsys ${NSYS:-none}, python $PY"
  HAVE_TORCH=1; LIST='<perfcheck metrics>'; NSYS_OPTS=(--sample=none --cpuctxsw=none)
else
  {
    echo "# bench_overhead (issue 21)"
    echo
    echo "Medians of alternating whole-process runs after one warm-up round; budget ${BUDGET} s, REPS $REPS,"
    echo "sections $SECTIONS${SKIP:+ (SKIP $SKIP)}. Written section by section by scripts/bench_overhead.sh."
    echo
    echo "## Environment"
    echo
  } > "$MD"
  env_line "date" date -u '+%Y-%m-%d %H:%M:%S UTC'
  env_line "host" sh -c 'uname -nr; nproc'
  env_line "GPU (name, driver, bus, persistence, clocks sm/max sm/mem/max mem, power, temperature)" sh -c "$GPU_QUERY"
  # On the lent device the copy's git metadata is the session's first
  # commit, not the working tree sent (2026-12-02: 42d4dc5 printed for a
  # tree at 7007f9b): the measurement's README names the sender's commit.
  env_line "source (git HEAD of this copy; may predate the working tree)" sh -c "git -C \"$ROOT\" rev-parse --short HEAD 2>/dev/null || echo 'no git metadata'"
  env_line "perfcheck" "$PC" --version
  env_line "default set passes (this device; GH100)" sh -c "\"$PC\" metrics --passes; \"$PC\" metrics --passes --chip GH100"
  env_line "ncu" sh -c "\"${NCU:-ncu}\" --version | tail -1"
  if [ -n "$NSYS" ]; then
    env_line "nsys" "$NSYS" --version
    # Only CUDA tracing: CPU sampling and context switches off where this
    # nsys has the options (its own --help says), so nsys does what
    # perfcheck's timing mode does.
    nsys_help=$(timeout 30 "$NSYS" profile --help 2>&1)
    case $nsys_help in *--sample*) NSYS_OPTS+=(--sample=none) ;; esac
    case $nsys_help in *--cpuctxsw*) NSYS_OPTS+=(--cpuctxsw=none) ;; esac
    line "ENV nsys options: --trace=cuda ${NSYS_OPTS[*]:-} (reports deleted after each run)"
  else
    line "ENV nsys: none found (NSYS, PATH, /opt/nvidia): nsys modes skipped"
  fi
  torch_out=$(timeout -k 5 90 "$PY" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available())' 2>&1 | tail -1)
  case $torch_out in *"available True"*) HAVE_TORCH=1 ;; esac
  TORCH_WHY="$PY: ${torch_out:-no output}"
  line "ENV python: $TORCH_WHY"
  md "- python: \`$TORCH_WHY\`"
  [ -x "$PC" ] && LIST=$(timeout 60 "$PC" metrics 2>/dev/null | tr -d ' \n\r')
  cat > "$SCR/add_loop.py" <<'PY'
import time, torch
x = torch.zeros(4096, device="cuda"); [x.add_(1) for _ in range(64)]; torch.cuda.synchronize()
t0 = time.perf_counter()
for _ in range(4096): x.add_(1)
torch.cuda.synchronize()
print("RESULT mode=torch workload=add4096 wall_ms=%.3f" % ((time.perf_counter() - t0) * 1e3))
PY
  cat > "$SCR/dram_gemm.py" <<'PY'
import torch
torch.backends.cuda.matmul.allow_tf32 = False
a = torch.randn(4096, 4096, device="cuda"); b = torch.randn(4096, 4096, device="cuda")
torch.cuda.synchronize()
for _ in range(8): c = a @ b  # 8 launches: rotation's groups without a second run
torch.cuda.synchronize()
print("RESULT mode=torch workload=gemm4096 launches=8 checksum=%.3e" % c.double().abs().sum().item())
PY
fi

# ---- which modes each section can run -------------------------------------
drop() {  # drop SECTION MODE REASON
  local s=$1 m=$2
  AVAIL[$s]=$(echo " ${AVAIL[$s]} " | sed "s/ $m / /; s/^ *//; s/ *$//")
  line "SKIP $s $m: $3"
}
for s in $SECTIONS; do
  AVAIL[$s]=${MODES[$s]:-}
  if [ -z "${MODES[$s]:-}" ]; then WHY[$s]="unknown section (SECTIONS=$SECTIONS)"; continue; fi
  case $SKIP in *"$s"*) WHY[$s]="left out by SKIP=$SKIP"; continue ;; esac
  [ "$DRY" = 1 ] && continue
  case $s in
    C | D)
      [ -x "$MYSTERY" ] || { WHY[$s]="$MYSTERY is not built"; continue; }
      [ -x "$PC" ] || { WHY[$s]="$PC is not built"; continue; } ;;
    A) [ -x "$BL" ] || { WHY[$s]="$BL is not built"; continue; } ;;
    B | E)
      [ "$HAVE_TORCH" = 1 ] || { WHY[$s]="no PyTorch with CUDA ($TORCH_WHY)"; continue; }
      [ -x "$PC" ] || { WHY[$s]="$PC is not built"; continue; } ;;
  esac
  case $s in
    C)
      [ -n "$NCU" ] || { drop C ncu "no ncu found"; drop C ncufull "no ncu found"; }
      [ -n "$NCU" ] && [ -z "$LIST" ] && drop C ncu "perfcheck metrics printed no list" ;;
    A)
      [ -n "$NSYS" ] || { drop A nsys "no nsys found"; drop A probe_nsys "no nsys found"; }
      if [ ! -x "$PROBE" ]; then
        for m in probe_plain probe_cb probe_act probe_actz probe_actpin probe_cbact probe_perfcheck probe_nsys; do
          drop A $m "$PROBE is not built"
        done
      fi ;;
    D)
      [ -n "$NCU" ] || { WHY[$s]="no ncu found"; continue; }
      [ "$HAVE_TORCH" = 1 ] || { drop D gemm_ncu "no PyTorch with CUDA"; drop D gemm_rotate "no PyTorch with CUDA"; } ;;
    B) [ -n "$NSYS" ] || drop B nsys "no nsys found" ;;
    E) [ -f "$EX" ] || WHY[$s]="$EX is missing" ;;
  esac
done

round_est() {  # round_est SECTION: seconds for one round of its modes
  local m t=0
  for m in ${AVAIL[$1]}; do t=$(( t + ${EST[$1.$m]:-5} )); done
  echo "$t"
}
min_need() {  # min_need SECTION: its warm-up and one timed round
  echo $(( (${WARMUP[$1]} + 1) * $(round_est "$1") ))
}
# fits_after SECTION AVAIL_S: the later sections that would start, in order,
# with AVAIL_S seconds (each if its warm-up and one round fit in what is left)
fits_after() {
  local s=$1 avail=$2 t after=0 out='' need
  for t in $SECTIONS; do
    if [ "$t" = "$s" ]; then after=1; continue; fi
    if [ "$after" = 0 ] || [ -n "${WHY[$t]:-}" ] || [ -z "${AVAIL[$t]}" ]; then continue; fi
    need=$(( (${WARMUP[$t]} + 1) * $(round_est "$t") ))
    if [ "$need" -le "$avail" ]; then out="$out$t"; avail=$(( avail - need )); fi
  done
  echo "${out:--}"
}

trim_log() {  # trim_log FILE SIZE: at most LOG_MAX bytes, its head and its tail
  local f=$1 size=$2
  { head -c $(( LOG_MAX / 2 )) "$f"
    printf '\n[... %d bytes cut by bench_overhead.sh ...]\n' $(( size - LOG_MAX ))
    tail -c $(( LOG_MAX / 2 )) "$f"; } > "$f.cut" && mv "$f.cut" "$f"
}
keep_report() {  # keep_report SECTION MODE FILE: the first report of each mode, in logs/
  local s=$1 m=$2 f=$3 dst=$LOGS/$1.$2.json
  [ -s "$f" ] || return 0
  if [ ! -e "$dst" ] && [ ! -e "$dst.gz" ]; then
    if [ "$(stat -c %s "$f")" -le "$REPORT_MAX" ]; then cp "$f" "$dst"; else gzip -c "$f" > "$dst.gz"; fi
  fi
  rm -f "$f"
}

# build_cmd SECTION MODE REP: the command of one run in CMD; REPORT names its
# perfcheck report (empty for none), NSYSOUT its nsys output base (empty for none)
build_cmd() {
  local s=$1 m=$2 r=$3
  REPORT=; NSYSOUT=
  case $m in kernel | rotate | session | gemm_rotate) REPORT=$SCR/reports/$s.$m.$r.json ;; esac
  case $m in nsys) NSYSOUT=$SCR/nsys/$s.$r ;; esac
  local pcrun=("$PC" run --mode counters --format json --output "$REPORT" --)
  case $s.$m in
    C.plain) CMD=("$MYSTERY" --profile) ;;
    C.kernel | D.kernel) CMD=(env PERFCHECK_REPLAY=kernel "${pcrun[@]}" "$MYSTERY" --profile) ;;
    C.rotate | D.rotate) CMD=(env PERFCHECK_REPLAY=rotate "${pcrun[@]}" "$MYSTERY" --profile) ;;
    C.ncu) CMD=("$NCU" --clock-control none --metrics "$LIST" --csv --page raw "$MYSTERY" --profile) ;;
    C.ncufull) CMD=("$NCU" --clock-control none --set full "$MYSTERY" --profile) ;;
    A.plain) CMD=("$BL" plain tiny) ;;
    A.perfcheck) CMD=("$BL" timing tiny) ;;
    A.nsys) CMD=("$NSYS" profile --trace=cuda ${NSYS_OPTS[@]+"${NSYS_OPTS[@]}"} -o "$NSYSOUT" --force-overwrite true
                 "$BL" plain tiny) ;;
    A.probe_nsys) CMD=("$NSYS" profile --trace=cuda ${NSYS_OPTS[@]+"${NSYS_OPTS[@]}"} -o "$NSYSOUT" --force-overwrite true
                       "$PROBE" plain) ;;
    A.probe_*) CMD=("$PROBE" "${m#probe_}") ;;
    D.ncu) CMD=("$NCU" --cache-control all --clock-control none --print-units base
                --metrics "$DRAM_METRICS" --csv --page raw "$MYSTERY" --profile) ;;
    D.gemm_ncu) CMD=("$NCU" --cache-control all --clock-control none --print-units base --kernel-name "regex:$GEMM_RE"
                     --launch-count 1 --metrics "$DRAM_METRICS" --csv --page raw
                     "$PY" "$SCR/dram_gemm.py") ;;
    D.gemm_rotate) CMD=(env PERFCHECK_REPLAY=rotate "${pcrun[@]}" "$PY" "$SCR/dram_gemm.py") ;;
    B.plain) CMD=("$PY" "$SCR/add_loop.py") ;;
    B.perfcheck) CMD=("$PC" run --mode timing --output /dev/null -- "$PY" "$SCR/add_loop.py") ;;
    B.nsys) CMD=("$NSYS" profile --trace=cuda ${NSYS_OPTS[@]+"${NSYS_OPTS[@]}"} -o "$NSYSOUT" --force-overwrite true
                 "$PY" "$SCR/add_loop.py") ;;
    E.plain) CMD=("$PY" "$EX" --plain --steps "$E_STEPS") ;;
    E.rotate) CMD=(env PERFCHECK_REPLAY=rotate PERFCHECK_ROTATE_SESSION=${E_ROTATE_SESSION:-} "${pcrun[@]}" "$PY" "$EX" --plain --steps "$E_STEPS") ;;
    E.session) CMD=(env PERFCHECK_REPLAY=rotate PERFCHECK_ROTATE_SESSION=1 "${pcrun[@]}" "$PY" "$EX" --plain --steps "$E_STEPS") ;;
    E.kernel) CMD=(env PERFCHECK_REPLAY=kernel "${pcrun[@]}" "$PY" "$EX" --plain --steps "$E_STEPS") ;;
    *) CMD=(false) ;;
  esac
}

# now_us: microseconds since the epoch (bash's clock; date where it has none)
now_us() {
  if [ -n "${EPOCHREALTIME:-}" ]; then NOW_US=${EPOCHREALTIME//[.,]/}; else NOW_US=$(date +%s%6N); fi
}

# run SECTION MODE REP: one process under timeout (capped by the budget); its
# wall clock and its first RESULT (or torch_step:) line as one RUN line.
SHOW_CMDS=0
run() {
  local s=$1 m=$2 r=$3 log=$LOGS/$1.$2.$3.log cap t0 rc us res size
  cap=${CAP[$s]}
  [ "$m" = ncufull ] && cap=120
  [ $(( BUDGET - SECONDS )) -lt "$cap" ] && cap=$(( BUDGET - SECONDS ))
  if [ "$cap" -lt 2 ]; then say "$s $m $r: not started, the budget is spent"; return 0; fi
  build_cmd "$s" "$m" "$r"
  if [ "$DRY" = 1 ]; then
    [ "$SHOW_CMDS" = 1 ] && echo "    ~${EST[$s.$m]:-5}s  timeout $cap $(printf '%q ' "${CMD[@]}")"
    SECONDS=$(( SECONDS + ${EST[$s.$m]:-5} ))
    return 0
  fi
  now_us; t0=$NOW_US
  timeout -k 5 "$cap" "${CMD[@]}" > "$log" 2>&1
  rc=$?
  now_us; us=$(( NOW_US - t0 ))
  res=$(grep -m1 -E '^(RESULT|torch_step:)' "$log")
  res=${res//[$'\r'|]/}
  printf 'RUN sec=%s mode=%s rep=%s rc=%d wall_s=%d.%06d cap_s=%d | %s\n' "$s" "$m" "$r" "$rc" \
    $(( us / 1000000 )) $(( us % 1000000 )) "$cap" "${res:0:300}" >> "$RES"
  # The measured wall replaces the estimate (whole seconds, at least 1).
  EST[$s.$m]=$(( (us + 999999) / 1000000 ))
  [ "${EST[$s.$m]}" -ge 1 ] || EST[$s.$m]=1
  if [ -n "$NSYSOUT" ]; then
    # nsys's stream and reports: tens of MB each; only the RESULT line counts.
    { echo "== nsys left (deleted by bench_overhead.sh):"
      ls -la "$NSYSOUT".* 2>/dev/null; } >> "$log"
    rm -f "$NSYSOUT".*
  fi
  [ -n "$REPORT" ] && keep_report "$s" "$m" "$REPORT"
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then echo "== killed by timeout $cap s (bench_overhead.sh)" >> "$log"; fi
  size=$(stat -c %s "$log" 2>/dev/null || echo 0)
  [ "$size" -gt "$LOG_MAX" ] && trim_log "$log" "$size"
  return 0
}

# run_section SECTION: its rounds as the budget allows, then its figures
STATUS=
run_section() {
  local s=$1 modes rounds=() i label need avail_now round f0 f1 m order note=''
  if [ -n "${WHY[$s]:-}" ]; then
    line "SKIP section $s (${TITLE[$s]:-?}): ${WHY[$s]}"
    md "" "## $s. ${TITLE[$s]:-?}" "" "SKIP: ${WHY[$s]}"
    STATUS="$STATUS $s:skip"
    return
  fi
  modes=${AVAIL[$s]}
  if [ -z "$modes" ]; then
    line "SKIP section $s (${TITLE[$s]}): no mode can run here (SKIP lines above)"
    STATUS="$STATUS $s:skip"; return
  fi
  need=$(min_need "$s")
  if [ "$need" -gt "$(( BUDGET - SECONDS ))" ]; then
    line "SKIP section $s (${TITLE[$s]}): needs ~${need} s (warm-up and one round of: $modes), $(( BUDGET - SECONDS )) s of the ${BUDGET} s budget left"
    md "" "## $s. ${TITLE[$s]}" "" "SKIP: needs ~${need} s, $(( BUDGET - SECONDS )) s of the ${BUDGET} s budget left."
    STATUS="$STATUS $s:skip"
    return
  fi
  [ "${WARMUP[$s]}" = 1 ] && rounds+=(w)
  for i in $(seq "${SREPS[$s]}"); do rounds+=("$i"); done
  say "section $s: ${TITLE[$s]}; modes: $modes; $(( BUDGET - SECONDS )) s left"
  local done_rounds=0
  for i in "${!rounds[@]}"; do
    label=${rounds[$i]}
    round=$(round_est "$s")
    if [ "$label" = w ] || [ "$label" = 1 ]; then
      if [ "$round" -gt "$(( BUDGET - SECONDS ))" ]; then
        note="SKIP $s round $label: needs ~${round} s, $(( BUDGET - SECONDS )) s left"
        line "$note"
        break
      fi
    else
      # A further round only if every later section that would start without
      # it still starts with it.
      avail_now=$(( BUDGET - SECONDS ))
      f0=$(fits_after "$s" "$avail_now")
      f1=$(fits_after "$s" $(( avail_now - round )))
      if [ "$round" -gt "$avail_now" ] || [ "$f0" != "$f1" ]; then
        note="SKIP $s rounds $label-${SREPS[$s]} of ${SREPS[$s]}: one more takes ~${round} s of the $avail_now s left, kept for the later sections that fit ($f0)"
        line "$note"
        break
      fi
    fi
    say "$s round $label: ~${round} s estimated, $(( BUDGET - SECONDS )) s left"
    order=$modes
    if [ $(( i % 2 )) = 1 ]; then order=$(echo "$modes" | tr ' ' '\n' | tac | tr '\n' ' '); fi
    SHOW_CMDS=$(( i == 0 ))
    for m in $order; do run "$s" "$m" "$label"; done
    [ "$label" != w ] && done_rounds=$(( done_rounds + 1 ))
  done
  STATUS="$STATUS $s:$done_rounds/${SREPS[$s]}"
  if [ "$DRY" = 1 ]; then
    echo "PLAN section $s: $done_rounds of ${SREPS[$s]} timed round(s), ends near +${SECONDS}s"
    return
  fi
  # The section's figures, now: on stdout, in summary.txt, in the Markdown.
  timeout 60 python3 "$SUMMARY_PY" --section "$s" --title "${TITLE[$s]}" --runs "$RES" --logs "$LOGS" \
    --md "$MD" --note "$note" 2>&1 | while IFS= read -r l; do line "$l"; done
  # Nothing under OUT over ~1 MB: gzip the larger logs if it grows.
  if [ "$(du -sk "$OUT" | cut -f1)" -gt "$OUT_MAX_KB" ]; then
    find "$LOGS" -type f -name '*.log' -size +8k -exec gzip -f {} +
  fi
}

say "budget ${BUDGET} s; sections: $SECTIONS; REPS $REPS; out $OUT"
for s in $SECTIONS; do run_section "$s"; done
if [ "$DRY" = 0 ]; then
  env_line "GPU at the end (clocks sm/mem, power, temperature)" \
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv,noheader
fi
line "END bench_overhead: ${SECONDS} s of the ${BUDGET} s budget; rounds done per section:${STATUS}"
[ "$DRY" = 0 ] && md "" "Ended after ${SECONDS} s of the ${BUDGET} s budget; timed rounds per section:${STATUS}."
exit 0
