#!/usr/bin/env bash
# bench_overhead.sh [--dry-run] BUILD_DIR OUT_DIR: what perfcheck costs the
# program it profiles, against plain runs and against the peers (nsys,
# Kineto, ncu), in one device call.  Benchmarks that print figures, not
# timed tests; scripts/device/bench runs it (docs/bench.md).
#
# Sections (each prints its FIGURE, WHERE, PASS/FAIL and SKIP lines as soon
# as it ends; SECTIONS sets which and in what order):
#   A. timing, C++: 4096 tiny launches (bench_launches tiny): plain, perfcheck
#      timing (in process), nsys --trace=cuda; and the host cost per launch
#      (tests/bench/overhead_probe, the median of 16 rounds of 4096 launches
#      in each process: plain, CUPTI's launch callbacks and activity records,
#      perfcheck), which splits perfcheck's cost into CUPTI's and its own
#      (A_PROBES adds modes: "cb act" for each of CUPTI's two alone).
#   B. timing, PyTorch: 4096 x.add_(1): plain, perfcheck run --mode timing,
#      nsys, Kineto (torch.profiler.profile() around the loop).
#   C. counters, the 4-launch program (kernels/mystery --profile): plain,
#      perfcheck run with PERFCHECK_REPLAY=kernel and =rotate, ncu --metrics
#      <perfcheck's default list>, ncu --set full; the added process wall of
#      each against plain, and the ratios.
#   O. counters, the occupancy program (kernels/occupancy --profile, 3
#      launches): plain, perfcheck (kernel replay), ncu --metrics <list>.
#   H. counters, the 100-kernel program (bench_launches hundred: 100
#      distinct kernels, each launched once): plain, perfcheck (kernel
#      replay), ncu --metrics <list> over all of them, and ncu --set full over
#      the first H_FULL_COUNT (4) launches and over none (ncu attached,
#      nothing profiled), whose difference prices one launch: --set full over
#      every launch is extrapolated from them, and said so.
#   P. passes: perfcheck metrics --passes for the default, sol and full sets
#      on this device; ncu --set full's passes (from C's ncu --set full run,
#      or one of its own when C is not run).  No timing.
#   D. DRAM bytes against ncu --cache-control all (dram__bytes_read/write.sum
#      per kernel, within 10%?): mystery under rotate (and kernel replay, for
#      contrast), and a cuBLAS GEMM (8 x torch.mm 4096^2 fp32) under rotate.
#      A comparison of values, not a timing: one round, no warm-up.
#   E. a training step: examples/python/torch_step.py --plain --steps 1000:
#      plain, perfcheck run under rotate and kernel replay (E_MODES="plain
#      rotate session kernel" with E_ROTATE_SESSION=0 sets rotation without
#      sessions, "rotate", beside rotation with them, "session"); the process
#      wall and the loop's own time against plain, counter coverage, and
#      whether rotation reaches kernel replay's verdicts.
# Each timing section runs a warm-up round of some of its modes (WARM below:
# what a first run pays once a machine, such as the caches perfcheck keeps
# across processes, module loading and the file cache), then REPS timed
# rounds, the modes alternating run by run (their order reversed every other
# round, so drift spreads over all of them); figures are medians of the
# timed rounds.  The A and B figures are the loop's wall inside the process
# (the programs' RESULT lines); C, O, H and E use the process wall clock.
# perfcheck's runs set PERFCHECK_PROGRESS=1: the end of each log says where
# the run's time went (the counter layer's phases, lib/gpu's set-up), which
# the WHERE lines report.
#
# Time: a global budget, BENCH_BUDGET_S seconds from the start (330).  A
# section starts only if its warm-up and one timed round fit in what is left
# (otherwise one SKIP line says why); a further round runs only if it leaves
# time for every later section that would fit without it.  Every process runs
# under `timeout`, capped by what is left of the budget, so the script ends
# near BENCH_BUDGET_S whatever happens.  The estimates below come from an
# H200 (docs/measurements) and are replaced by each mode's measured wall
# clock as the runs go.
#
# Output (OUT_DIR, kept under ~1 MB, two levels): summary.txt (the ENV,
# FIGURE, WHERE, PASS/FAIL and SKIP lines, appended as they come),
# bench_overhead.md (written section by section), table.md (one table, a
# row per workload, with the goals and where the time goes; written at the
# end), runs.txt (one RUN line a process), logs/ (each process's output,
# cut to BENCH_LOG_MAX_KB with its head and tail; one perfcheck report per
# section and mode, gzipped when large).  nsys's .qdstrm/.nsys-rep/.sqlite
# and Kineto's trace go to a scratch folder and are deleted after each run
# (only the program's own RESULT line is used); nsys traces CUDA only, with
# --sample=none --cpuctxsw=none where its own --help lists them, so it does
# what perfcheck's timing mode does.  The top ENV lines: date, host, GPU
# (name, driver, clocks, power, temperature; again at the end), source
# commit, perfcheck's version and passes, ncu, nsys, python and torch.
#
# On a CPU: tests/unit/bench_overhead_test.sh (ctest unit.bench_overhead)
# runs this script over stub programs and checks its figures, budget and
# output.
#
# Knobs (environment): REPS (3), BENCH_BUDGET_S (330), SECTIONS ("A B C O P E H"),
# SKIP (letters to leave out), NSYS, NCU (paths), PYTHON (the workloads'
# python3), E_STEPS (1000), H_FULL_COUNT (4), A_PROBES (""), BENCH_LOG_MAX_KB (32),
# BENCH_SOURCE (what the ENV source line says; default: git HEAD).
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
SECTIONS=${SECTIONS:-A B C O P E H}
SKIP=${SKIP:-}
PY=${PYTHON:-python3}
E_STEPS=${E_STEPS:-1000}
H_FULL_COUNT=${H_FULL_COUNT:-4}
LOG_MAX=$(( ${BENCH_LOG_MAX_KB:-32} * 1024 ))
REPORT_MAX=$(( 256 * 1024 ))
OUT_MAX_KB=900
SUMMARY_PY=$ROOT/scripts/bench_overhead_summary.py
PC=$BUILD/bin/perfcheck
BL=$BUILD/bench/bench_launches
PROBE=$BUILD/bench/overhead_probe
MYSTERY=$BUILD/kernels/mystery
OCC=$BUILD/kernels/occupancy
EX=$ROOT/examples/python/torch_step.py
GEMM_RE='gemm|nvjet|xmma|cutlass'
DRAM_METRICS=dram__bytes_read.sum,dram__bytes_write.sum
case $REPS in '' | *[!0-9]* | 0) echo "bench_overhead.sh: REPS must be a positive integer" >&2; exit 64 ;; esac
case $BUDGET in '' | *[!0-9]*) echo "bench_overhead.sh: BENCH_BUDGET_S must be a number of seconds" >&2; exit 64 ;; esac
case $H_FULL_COUNT in '' | *[!0-9]* | 0) echo "bench_overhead.sh: H_FULL_COUNT must be a positive integer" >&2; exit 64 ;; esac

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

# ---- sections: titles, modes, warm-up modes, estimates (s), caps (s) -------
declare -A TITLE=(
  [A]="timing, C++: 4096 tiny launches (bench_launches tiny)"
  [B]="timing, PyTorch: 4096 x.add_(1)"
  [C]="counters, the 4-launch program (kernels/mystery --profile)"
  [O]="counters, the occupancy program (kernels/occupancy --profile, 3 launches)"
  [H]="counters, the 100-kernel program (bench_launches hundred)"
  [P]="passes of the default set, against ncu --set full's"
  [D]="DRAM bytes against ncu --cache-control all (mystery, a cuBLAS GEMM)"
  [E]="training step: torch_step.py --plain --steps $E_STEPS, rotation against kernel replay")
declare -A MODES=(
  [A]="plain perfcheck nsys probe_plain probe_cbact probe_perfcheck$(for m in ${A_PROBES:-}; do printf ' probe_%s' "$m"; done)"
  [B]="plain perfcheck nsys kineto"
  [C]="plain kernel rotate ncu ncufull"
  [O]="plain kernel ncu"
  [H]="plain kernel ncu ncufull ncufull0"
  [P]="sets ncu"
  [D]="ncu rotate kernel gemm_ncu gemm_rotate"
  [E]="${E_MODES:-plain rotate kernel}")
# The warm-up round's modes ("*": all of them): what a first run on the
# machine pays (nsys's and ncu's start, perfcheck's caches across processes)
# stays out of the figures.  ncu --set full's is left out (11 s on the H200,
# and ncu's start is warmed by ncu's), as are the sections whose modes an
# earlier section warms, and the Python ones: the ENV line's torch import
# has warmed what a later process can reuse (the files it reads).
declare -A WARM=([A]="*" [B]="" [C]="plain kernel rotate ncu" [O]="" [H]="" [P]="" [D]="" [E]="")
declare -A SREPS=([A]=$REPS [B]=$REPS [C]=$REPS [O]=$REPS [H]=$REPS [P]=1 [D]=1 [E]=$REPS)
# Seen on the H200 (docs/measurements/): mystery
# plain 0.5 s, perfcheck run 1.0 s, ncu --metrics 2.7 s, ncu --set full 11 s;
# bench_launches tiny 0.5 s, under nsys 2.3 s; the probe 0.4-0.7 s; torch
# add loop 5.3 s, under nsys 7.2 s; torch_step 1000 steps 11.5-17 s.  The
# 100-kernel program's are estimates: ncu about 0.13-0.17 s a launch with
# the default list and 2.2 s with --set full.
declare -A EST=(  # milliseconds
  [A.plain]=500 [A.perfcheck]=600 [A.nsys]=2500 [A.probe_plain]=600 [A.probe_cb]=600 [A.probe_act]=700
  [A.probe_cbact]=700 [A.probe_perfcheck]=800
  [B.plain]=5500 [B.perfcheck]=5500 [B.nsys]=7500 [B.kineto]=7500
  [C.plain]=500 [C.kernel]=1100 [C.rotate]=1100 [C.ncu]=2800 [C.ncufull]=11000
  [O.plain]=800 [O.kernel]=1500 [O.ncu]=3000
  [H.plain]=600 [H.kernel]=4000 [H.ncu]=15000 [H.ncufull]=10500 [H.ncufull0]=2000
  [P.sets]=2000 [P.ncu]=5000
  [D.ncu]=2200 [D.rotate]=1100 [D.kernel]=1200 [D.gemm_ncu]=6300 [D.gemm_rotate]=7100
  [E.plain]=11800 [E.rotate]=14500 [E.session]=14500 [E.kernel]=16500)
declare -A CAP=([A]=60 [B]=90 [C]=60 [O]=60 [H]=120 [P]=60 [D]=90 [E]=150)
declare -A AVAIL=() WHY=()

# The clock: milliseconds since the start (in a dry run, the estimates of
# the runs planned so far).
now_us() {  # NOW_US: microseconds since the epoch (bash's clock; date where it has none)
  if [ -n "${EPOCHREALTIME:-}" ]; then NOW_US=${EPOCHREALTIME//[.,]/}; else NOW_US=$(date +%s%6N); fi
}
now_us
T0_US=$NOW_US
DRY_MS=0
elapsed_ms() {
  if [ "$DRY" = 1 ]; then echo "$DRY_MS"; else now_us; echo $(( (NOW_US - T0_US) / 1000 )); fi
}
left_ms() { echo $(( BUDGET * 1000 - $(elapsed_ms) )); }
sec() { echo $(( ($1 + 500) / 1000 )); }  # sec MS: whole seconds
say() { echo "[bench +$(sec "$(elapsed_ms)")s] $*"; }

if [ "$DRY" = 1 ]; then
  SCR=${TMPDIR:-/tmp}/pc-bench.DRYRUN
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
  SCR=$(mktemp -d "${TMPDIR:-/tmp}/pc-bench.XXXXXX") || exit 2
  trap 'rm -rf "$SCR"' EXIT
  mkdir -p "$SCR/nsys" "$SCR/reports" "$SCR/kineto"
fi
# line TEXT: a summary line (ENV, FIGURE, WHERE, PASS, FAIL, SKIP) on stdout and in summary.txt
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
  NCU=${NCU:-ncu} NSYS=${NSYS:-nsys}  # the plan names a tool it did not find
  line "ENV dry run: nothing is queried or run; budget ${BUDGET} s, REPS $REPS, sections $SECTIONS${SKIP:+, SKIP $SKIP}"
  line "ENV tools: perfcheck $PC, ncu ${NCU:-none}, nsys ${NSYS:-none}, python $PY"
  HAVE_TORCH=1; LIST='<perfcheck metrics>'; NSYS_OPTS=(--sample=none --cpuctxsw=none)
else
  {
    echo "# bench_overhead"
    echo
    echo "Medians of alternating whole-process runs after a warm-up round; budget ${BUDGET} s, REPS $REPS,"
    echo "sections $SECTIONS${SKIP:+ (SKIP $SKIP)}. Written section by section by scripts/bench_overhead.sh."
    echo
    echo "## Environment"
    echo
  } > "$MD"
  env_line "date" date -u '+%Y-%m-%d %H:%M:%S UTC'
  env_line "host" sh -c 'uname -nr; nproc'
  env_line "GPU (name, driver, bus, persistence, clocks sm/max sm/mem/max mem, power, temperature)" sh -c "$GPU_QUERY"
  # A copy's git metadata may predate its working tree (a device copy):
  # scripts/device/bench passes the working tree's own hash.
  if [ -n "${BENCH_SOURCE:-}" ]; then
    env_line "source" echo "$BENCH_SOURCE"
  else
    env_line "source (git HEAD of this copy; may predate the working tree)" sh -c "git -C \"$ROOT\" rev-parse --short HEAD 2>/dev/null || echo 'no git metadata'"
  fi
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
  # --kineto: torch.profiler.profile() with its defaults (CPU and CUDA
  # activities) around the loop, started before the timed part and stopped
  # (its trace processed) after it, as nsys and perfcheck do theirs.
  cat > "$SCR/add_loop.py" <<'PY'
import sys, time, torch
kineto = "--kineto" in sys.argv
x = torch.zeros(4096, device="cuda"); [x.add_(1) for _ in range(64)]; torch.cuda.synchronize()
prof = torch.profiler.profile() if kineto else None
if prof:
    prof.__enter__()
t0 = time.perf_counter()
for _ in range(4096): x.add_(1)
torch.cuda.synchronize()
ms = (time.perf_counter() - t0) * 1e3
extra = ""
if prof:
    prof.__exit__(None, None, None)
    kernels = sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA)
    extra = " kineto_cuda_events=%d" % kernels
print("RESULT mode=torch workload=add4096 wall_ms=%.3f%s" % (ms, extra))
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
  # P reads ncu --set full's passes from C's run when C runs one.
  if [ "$s" = P ]; then
    case " $SECTIONS " in *" C "*) case $SKIP in *C*) ;; *) AVAIL[P]=sets ;; esac ;; esac
  fi
  [ "$DRY" = 1 ] && continue
  case $s in
    C | D | P)
      [ -x "$MYSTERY" ] || { WHY[$s]="$MYSTERY is not built"; continue; }
      [ -x "$PC" ] || { WHY[$s]="$PC is not built"; continue; } ;;
    O)
      [ -x "$OCC" ] || { WHY[$s]="$OCC is not built"; continue; }
      [ -x "$PC" ] || { WHY[$s]="$PC is not built"; continue; } ;;
    H)
      [ -x "$BL" ] || { WHY[$s]="$BL is not built"; continue; }
      [ -x "$PC" ] || { WHY[$s]="$PC is not built"; continue; } ;;
    A) [ -x "$BL" ] || { WHY[$s]="$BL is not built"; continue; } ;;
    B | E)
      [ "$HAVE_TORCH" = 1 ] || { WHY[$s]="no PyTorch with CUDA ($TORCH_WHY)"; continue; }
      [ -x "$PC" ] || { WHY[$s]="$PC is not built"; continue; } ;;
  esac
  case $s in
    C | O | H)
      if [ -z "$NCU" ]; then
        for m in ncu ncufull ncufull0; do case " ${AVAIL[$s]} " in *" $m "*) drop "$s" $m "no ncu found" ;; esac; done
      elif [ -z "$LIST" ]; then
        drop "$s" ncu "perfcheck metrics printed no list"
      fi ;;
    P) [ -n "$NCU" ] || { case " ${AVAIL[P]} " in *" ncu "*) drop P ncu "no ncu found" ;; esac; } ;;
    A)
      [ -n "$NSYS" ] || drop A nsys "no nsys found"
      if [ ! -x "$PROBE" ]; then
        for m in ${AVAIL[A]}; do case $m in probe_*) drop A "$m" "$PROBE is not built" ;; esac; done
      fi ;;
    D)
      [ -n "$NCU" ] || { WHY[$s]="no ncu found"; continue; }
      [ "$HAVE_TORCH" = 1 ] || { drop D gemm_ncu "no PyTorch with CUDA"; drop D gemm_rotate "no PyTorch with CUDA"; } ;;
    B) [ -n "$NSYS" ] || drop B nsys "no nsys found" ;;

    E) [ -f "$EX" ] || WHY[$s]="$EX is missing" ;;
  esac
done

round_est() {  # round_est SECTION: milliseconds for one round of its modes
  local m t=0
  for m in ${AVAIL[$1]}; do t=$(( t + ${EST[$1.$m]:-5000} )); done
  echo "$t"
}
warm_modes() {  # warm_modes SECTION: the modes of its warm-up round that it runs
  local m out=''
  [ "${WARM[$1]}" = "*" ] && { echo "${AVAIL[$1]}"; return; }
  for m in ${AVAIL[$1]}; do case " ${WARM[$1]} " in *" $m "*) out="$out $m" ;; esac; done
  echo "${out# }"
}
warm_est() {  # warm_est SECTION: milliseconds for its warm-up round
  local m t=0
  for m in $(warm_modes "$1"); do t=$(( t + ${EST[$1.$m]:-5000} )); done
  echo "$t"
}
min_need() {  # min_need SECTION: its warm-up and one timed round
  echo $(( $(warm_est "$1") + $(round_est "$1") ))
}
# fits_after SECTION AVAIL_MS: the later sections that would start, in order,
# with AVAIL_MS milliseconds (each if its warm-up and one round fit in what is left)
fits_after() {
  local s=$1 avail=$2 t after=0 out='' need
  for t in $SECTIONS; do
    if [ "$t" = "$s" ]; then after=1; continue; fi
    if [ "$after" = 0 ] || [ -n "${WHY[$t]:-}" ] || [ -z "${AVAIL[$t]}" ]; then continue; fi
    need=$(min_need "$t")
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
  # perfcheck's runs say where their time went at the end of their log.
  local pcrun=(env PERFCHECK_PROGRESS=1 "$PC" run --mode counters --format json --output "$REPORT" --)
  local prog=()
  case $s in
    C | D | P) prog=("$MYSTERY" --profile) ;;
    O) prog=("$OCC" --profile) ;;
    H) prog=("$BL" plain hundred) ;;
  esac
  # shellcheck disable=SC2016  # P.sets: expanded by the inner sh
  case $s.$m in
    C.plain | O.plain | H.plain) CMD=("${prog[@]}") ;;
    C.kernel | O.kernel | H.kernel | D.kernel) CMD=(env PERFCHECK_REPLAY=kernel "${pcrun[@]}" "${prog[@]}") ;;
    C.rotate | D.rotate) CMD=(env PERFCHECK_REPLAY=rotate "${pcrun[@]}" "${prog[@]}") ;;
    C.ncu | O.ncu | H.ncu) CMD=("$NCU" --clock-control none --metrics "$LIST" --csv --page raw "${prog[@]}") ;;
    C.ncufull) CMD=("$NCU" --clock-control none --set full "${prog[@]}") ;;
    H.ncufull) CMD=("$NCU" --clock-control none --set full --launch-count "$H_FULL_COUNT" "${prog[@]}") ;;
    H.ncufull0) CMD=("$NCU" --clock-control none --set full --kernel-name "regex:^no_kernel_is_named_this$" "${prog[@]}") ;;
    P.sets) CMD=(sh -c 'for s in default sol full; do echo "PASSES set=$s $("$0" metrics --passes --set $s | tr "\n" " ")"; done' "$PC") ;;
    P.ncu) CMD=("$NCU" --clock-control none --set full --launch-count 1 "${prog[@]}") ;;
    A.plain) CMD=("$BL" plain tiny) ;;
    A.perfcheck) CMD=("$BL" timing tiny) ;;
    A.nsys) CMD=("$NSYS" profile --trace=cuda ${NSYS_OPTS[@]+"${NSYS_OPTS[@]}"} -o "$NSYSOUT" --force-overwrite true
                 "$BL" plain tiny) ;;
    A.probe_*) CMD=("$PROBE" "${m#probe_}") ;;
    D.ncu) CMD=("$NCU" --cache-control all --clock-control none --print-units base
                --metrics "$DRAM_METRICS" --csv --page raw "$MYSTERY" --profile) ;;
    D.gemm_ncu) CMD=("$NCU" --cache-control all --clock-control none --print-units base --kernel-name "regex:$GEMM_RE"
                     --launch-count 1 --metrics "$DRAM_METRICS" --csv --page raw
                     "$PY" "$SCR/dram_gemm.py") ;;
    D.gemm_rotate) CMD=(env PERFCHECK_REPLAY=rotate "${pcrun[@]}" "$PY" "$SCR/dram_gemm.py") ;;
    B.plain) CMD=("$PY" "$SCR/add_loop.py") ;;
    B.perfcheck) CMD=(env PERFCHECK_PROGRESS=1 "$PC" run --mode timing --output /dev/null -- "$PY" "$SCR/add_loop.py") ;;
    B.kineto) CMD=(env TMPDIR="$SCR/kineto" "$PY" "$SCR/add_loop.py" --kineto) ;;
    B.nsys) CMD=("$NSYS" profile --trace=cuda ${NSYS_OPTS[@]+"${NSYS_OPTS[@]}"} -o "$NSYSOUT" --force-overwrite true
                 "$PY" "$SCR/add_loop.py") ;;
    E.plain) CMD=("$PY" "$EX" --plain --steps "$E_STEPS") ;;
    E.rotate) CMD=(env PERFCHECK_REPLAY=rotate "PERFCHECK_ROTATE_SESSION=${E_ROTATE_SESSION:-}" "${pcrun[@]}" "$PY" "$EX" --plain --steps "$E_STEPS") ;;
    E.session) CMD=(env PERFCHECK_REPLAY=rotate PERFCHECK_ROTATE_SESSION=1 "${pcrun[@]}" "$PY" "$EX" --plain --steps "$E_STEPS") ;;
    E.kernel) CMD=(env PERFCHECK_REPLAY=kernel "${pcrun[@]}" "$PY" "$EX" --plain --steps "$E_STEPS") ;;
    *) CMD=(false) ;;
  esac
}


# run SECTION MODE REP: one process under timeout (capped by the budget); its
# wall clock and its first RESULT (or torch_step:) line as one RUN line.
declare -A SHOWN=()
run() {
  local s=$1 m=$2 r=$3 log=$LOGS/$1.$2.$3.log cap t0 rc us res size
  cap=${CAP[$s]}
  case $m in ncufull | ncufull0) cap=120 ;; esac
  local left
  left=$(sec "$(left_ms)")
  [ "$left" -lt "$cap" ] && cap=$left
  if [ "$cap" -lt 2 ]; then say "$s $m $r: not started, the budget is spent"; return 0; fi
  build_cmd "$s" "$m" "$r"
  if [ "$DRY" = 1 ]; then
    # The command of each mode, once.
    [ -z "${SHOWN[$s.$m]:-}" ] && echo "    ~$(sec "${EST[$s.$m]:-5000}")s  timeout $cap $(printf '%q ' "${CMD[@]}")"
    SHOWN[$s.$m]=1
    DRY_MS=$(( DRY_MS + ${EST[$s.$m]:-5000} ))
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
  # The measured wall replaces the estimate.
  EST[$s.$m]=$(( us / 1000 + 1 ))
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
  if [ "$need" -gt "$(left_ms)" ]; then
    line "SKIP section $s (${TITLE[$s]}): needs ~$(sec "$need") s (warm-up and one round of: $modes), $(sec "$(left_ms)") s of the ${BUDGET} s budget left"
    md "" "## $s. ${TITLE[$s]}" "" "SKIP: needs ~$(sec "$need") s, $(sec "$(left_ms)") s of the ${BUDGET} s budget left."
    STATUS="$STATUS $s:skip"
    return
  fi
  [ -n "$(warm_modes "$s")" ] && rounds+=(w)
  for i in $(seq "${SREPS[$s]}"); do rounds+=("$i"); done
  say "section $s: ${TITLE[$s]}; modes: $modes; $(sec "$(left_ms)") s left"
  local done_rounds=0
  for i in "${!rounds[@]}"; do
    label=${rounds[$i]}
    round=$(round_est "$s")
    [ "$label" = w ] && round=$(warm_est "$s")
    if [ "$label" = w ] || [ "$label" = 1 ]; then
      if [ "$round" -gt "$(left_ms)" ]; then
        note="SKIP $s round $label: needs ~$(sec "$round") s, $(sec "$(left_ms)") s left"
        line "$note"
        break
      fi
    else
      # A further round only if every later section that would start without
      # it still starts with it.
      avail_now=$(left_ms)
      f0=$(fits_after "$s" "$avail_now")
      f1=$(fits_after "$s" $(( avail_now - round )))
      if [ "$round" -gt "$avail_now" ] || [ "$f0" != "$f1" ]; then
        note="SKIP $s rounds $label-${SREPS[$s]} of ${SREPS[$s]}: one more takes ~$(sec "$round") s of the $(sec "$avail_now") s left, kept for the later sections that fit ($f0)"
        line "$note"
        break
      fi
    fi
    say "$s round $label: ~$(sec "$round") s estimated, $(sec "$(left_ms)") s left"
    order=$modes
    [ "$label" = w ] && order=$(warm_modes "$s")
    if [ $(( i % 2 )) = 1 ]; then order=$(echo "$order" | tr ' ' '\n' | tac | tr '\n' ' '); fi
    for m in $order; do run "$s" "$m" "$label"; done
    [ "$label" != w ] && done_rounds=$(( done_rounds + 1 ))
  done
  STATUS="$STATUS $s:$done_rounds/${SREPS[$s]}"
  if [ "$DRY" = 1 ]; then
    echo "PLAN section $s: $done_rounds of ${SREPS[$s]} timed round(s), ends near +$(sec "$DRY_MS")s"
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
line "END bench_overhead: $(sec "$(elapsed_ms)") s of the ${BUDGET} s budget; rounds done per section:${STATUS}"
if [ "$DRY" = 0 ]; then
  md "" "Ended after $(sec "$(elapsed_ms)") s of the ${BUDGET} s budget; timed rounds per section:${STATUS}."
  # One table: a row per workload, its goal, and where the time goes.
  timeout 60 python3 "$SUMMARY_PY" --table --runs "$RES" --logs "$LOGS" --env "$SUM" --sections "$SECTIONS" \
    > "$OUT/table.md" 2>&1
  cat "$OUT/table.md"
  md "" "$(cat "$OUT/table.md")"
fi
exit 0
