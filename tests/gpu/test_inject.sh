#!/usr/bin/env bash
# The injection library on unmodified programs, on the GPU (label gpu; exit 77
# without one).  One part per ctest:
#
#   test_inject.sh kernels PERFCHECK SHIM CHECK_PY KERNELS_DIR COUNTERS_TEST ROUNDTRIP_TEST
#     The kernels/ programs (plain nvcc, static cudart, no link to perfcheck)
#     under `perfcheck run --format json` and under LD_PRELOAD: their own
#     checks pass (exit 0), a failing one keeps its exit code, and the JSON
#     verdicts are the expected ones: mystery's four seed verdicts with
#     counters, equal to those of the linked API (gpu_test_counters) per
#     kernel signature; launches' program region caught at step 1 with its
#     4097 launches; roundtrip's program region not_the_slow_part, as the
#     linked API's (gpu_test_roundtrip).  `perfcheck check -- PROGRAM` holds
#     and fails as it should.
#   test_inject.sh nvtx PERFCHECK SHIM CHECK_PY INJECT_NVTX
#     A program with NVTX ranges: one region per range (nested too), its exit
#     code (3) unchanged; PERFCHECK_NVTX gates the counters; the report is
#     still written after SIGTERM, after exit() inside a range and after a
#     kernel fault; a forked child writes none.
#   test_inject.sh torch PERFCHECK SHIM CHECK_PY TORCH_SCRIPT
#     A PyTorch script under `perfcheck run`: the report names its kernels
#     (exit 77 when python3 cannot import torch).
set -u
part=$1 PERFCHECK=$2 SHIM=$3 CHECK=$4
shift 4
fails=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A usable GPU, asked the way the library asks (the driver, a device).
if ! python3 - <<'PY' >/dev/null 2>&1; then
import ctypes, sys
c = ctypes.CDLL("libcuda.so.1")
n = ctypes.c_int(0)
sys.exit(0 if c.cuInit(0) == 0 and c.cuDeviceGetCount(ctypes.byref(n)) == 0 and n.value > 0 else 1)
PY
  echo "SKIP: no usable GPU (libcuda.so.1, cuInit and a device are needed)"
  exit 77
fi

# pycheck WHAT JSON ARGS...: inject_check.py, its lines indented, counted.
pycheck() {
  local out
  out=$(python3 "$CHECK" "$@" 2>&1)
  local rc=$?
  echo "$out" | sed 's/^/  /'
  if [ $rc = 0 ]; then pass "$1 checks of $(basename "$2")"; else fail "$1 checks of $(basename "$2")"; fi
}

# runs WHAT WANT_RC OUT_PREFIX CMD...: runs CMD (at most 300 s: a hang fails,
# it does not eat the GPU session), checks its exit status and that no
# "profiling off" line came.
runs() {
  local what=$1 want=$2 out=$3
  shift 3
  timeout -k 10 300 "$@" >"$out.out" 2>"$out.err"
  local rc=$?
  [ "$rc" = 124 ] && echo "  (timed out after 300 s)"
  if [ "$rc" = "$want" ]; then pass "$what: exit $rc"; else fail "$what: exit $rc, want $want"; tail -5 "$out.err"; fi
  if grep -q '^perfcheck: profiling off' "$out.err"; then fail "$what: $(grep '^perfcheck: profiling off' "$out.err")"; fi
}

case $part in
  kernels)
    KDIR=$1 COUNTERS=$2 ROUNDTRIP=$3
    for prog in mystery launches roundtrip occupancy atomics; do
      bin=$KDIR/$prog
      [ -x "$bin" ] || { fail "$bin is not built"; continue; }
      runs "perfcheck run $prog --profile" 0 "$tmp/$prog.run" \
        "$PERFCHECK" run --format json --output "$tmp/$prog.run.json" -- "$bin" --profile
      runs "LD_PRELOAD $prog --profile" 0 "$tmp/$prog.pre" \
        env PERFCHECK_FORMAT=json PERFCHECK_OUTPUT="$tmp/$prog.pre.json" LD_PRELOAD="$SHIM" "$bin" --profile
      for way in run pre; do
        case $prog in
          mystery | launches | roundtrip) pycheck "$prog" "$tmp/$prog.$way.json" ;;
          *) pycheck kernels "$tmp/$prog.$way.json" 1 ;;
        esac
      done
    done
    # A failing program keeps its exit code (a usage error, before any CUDA
    # call: left entirely alone, no perfcheck line).
    timeout 60 "$PERFCHECK" run -- "$KDIR/mystery" --bogus >"$tmp/bogus.out" 2>"$tmp/bogus.err"
    rc=$?
    if [ "$rc" = 1 ] && ! grep -q perfcheck "$tmp/bogus.err"; then
      pass "mystery --bogus under perfcheck run: exit 1, no perfcheck line"
    else
      fail "mystery --bogus under perfcheck run: exit $rc; $(cat "$tmp/bogus.err")"
    fi
    # The linked API on the same launches.
    timeout -k 10 300 "$COUNTERS" >"$tmp/counters.out" 2>&1
    rc=$?
    if [ "$rc" = 77 ]; then
      echo "SKIP linked-API comparison (mystery): gpu_test_counters skipped: $(tail -1 "$tmp/counters.out")"
    else
      [ "$rc" = 0 ] || echo "  (gpu_test_counters exited $rc; its verdict lines are compared all the same)"
      pycheck linked "$tmp/mystery.run.json" "$tmp/counters.out"
    fi
    timeout -k 10 300 "$ROUNDTRIP" >"$tmp/roundtrip_linked.out" 2>&1
    rc=$?
    if [ "$rc" = 77 ]; then
      echo "SKIP linked-API comparison (roundtrip): $(tail -1 "$tmp/roundtrip_linked.out")"
    else
      pycheck linked_region "$tmp/roundtrip.run.json" roundtrip "$tmp/roundtrip_linked.out"
    fi
    # perfcheck check -- PROGRAM: holds, then fails.
    runs "check -- mystery (expectations hold)" 0 "$tmp/check1" "$PERFCHECK" check \
      --expect 'mysteryA:cause==uncoalesced_global_loads' --expect 'mysteryB:cause==divergent_warps' \
      --expect 'mysteryA:sectors_per_request_ld>=16' -- "$KDIR/mystery" --profile
    runs "check -- mystery (an expectation fails)" 1 "$tmp/check2" "$PERFCHECK" check \
      --expect 'mysteryA:cause==at_roof' -- "$KDIR/mystery" --profile
    grep -q '^FAIL ' "$tmp/check2.out" && pass "check: the failed expectation is printed" ||
      fail "check: no FAIL line ($(cat "$tmp/check2.out"))"
    ;;

  nvtx)
    NVTX=$1
    name=$(basename "$NVTX")
    runs "perfcheck run inject_nvtx" 3 "$tmp/nvtx.run" \
      "$PERFCHECK" run --format json --output "$tmp/nvtx.run.json" -- "$NVTX"
    pycheck nvtx "$tmp/nvtx.run.json" "$name"
    runs "LD_PRELOAD inject_nvtx" 3 "$tmp/nvtx.pre" \
      env PERFCHECK_FORMAT=json PERFCHECK_OUTPUT="$tmp/nvtx.pre.json" LD_PRELOAD="$SHIM" "$NVTX"
    pycheck nvtx "$tmp/nvtx.pre.json" "$name"
    # Quiet by default: the text report goes to perfcheck-PID.txt
    # in the current folder, and the run adds one line to stderr naming it.
    mkdir -p "$tmp/cwd"
    runs "perfcheck run inject_nvtx, text report in perfcheck-PID.txt" 3 "$tmp/nvtx.txt" \
      sh -c 'cd "$1" && shift && exec "$@"' sh "$tmp/cwd" "$PERFCHECK" run -- "$NVTX"
    rep=$(ls "$tmp/cwd"/perfcheck-*.txt 2>/dev/null | head -1)
    nlines=$(grep -c '^perfcheck' "$tmp/nvtx.txt.err")
    if [ -n "$rep" ] && grep -q '^perfcheck [0-9]' "$rep" && grep -q 'inner' "$rep" && [ "$nlines" = 1 ] &&
      grep -Eq "^perfcheck: report in perfcheck-[0-9]+\.txt: [0-9]+ kernel entr(y|ies), [0-9]+ warnings?" "$tmp/nvtx.txt.err" &&
      ! grep -q '^perfcheck' "$tmp/nvtx.txt.out"; then
      pass "text report: in $(basename "$rep"), names the ranges; one line on stderr; stdout is the program's"
    else
      fail "text report: file '$rep', stderr: $(head -c 400 "$tmp/nvtx.txt.err")"
    fi
    runs "--nvtx --nvtx-include second/" 3 "$tmp/gate" \
      "$PERFCHECK" run --mode counters --nvtx --nvtx-include second/ --format json --output "$tmp/gate.json" -- "$NVTX"
    pycheck nvtx_gate "$tmp/gate.json"
    # ncu's start/end syntax (no trailing '/'): the range "phase" of
    # nvtxRangeStartEx / nvtxRangeEnd, ended on another thread.
    runs "--nvtx --nvtx-include phase (a start/end range)" 3 "$tmp/segate" \
      "$PERFCHECK" run --mode counters --nvtx --nvtx-include phase --format json --output "$tmp/segate.json" -- "$NVTX"
    pycheck nvtx_startend_gate "$tmp/segate.json"
    runs "SIGTERM inside a range" 143 "$tmp/term" \
      "$PERFCHECK" run --format json --output "$tmp/term.json" -- "$NVTX" --term
    pycheck partial "$tmp/term.json" first second "$name"
    runs "exit(5) inside a range" 5 "$tmp/exit" \
      "$PERFCHECK" run --format json --output "$tmp/exit.json" -- "$NVTX" --exit-in-range
    pycheck partial "$tmp/exit.json" first second "$name"
    runs "a kernel fault (the program fails)" 1 "$tmp/fault" \
      "$PERFCHECK" run --mode timing --format json --output "$tmp/fault.json" -- "$NVTX" --fault
    pycheck partial "$tmp/fault.json" first second "$name"
    mkdir -p "$tmp/fork"
    runs "fork" 3 "$tmp/forkrun" "$PERFCHECK" run --format json --output "$tmp/fork/r-%p.json" -- "$NVTX" --fork
    n=$(ls "$tmp/fork" | wc -l)
    if [ "$n" = 1 ]; then
      pass "fork: one report (the parent's): $(ls "$tmp/fork")"
      pycheck nvtx "$tmp/fork/$(ls "$tmp/fork")" "$name"
    else
      fail "fork: $n reports, want 1 ($(ls "$tmp/fork" | tr '\n' ' '))"
    fi
    ;;

  torch)
    SCRIPT=$1
    if ! python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' >/dev/null 2>&1; then
      echo "SKIP: python3 cannot import torch, or torch sees no GPU"
      exit 77
    fi
    runs "perfcheck run python3 torch_script.py" 0 "$tmp/torch" \
      "$PERFCHECK" run --format json --output "$tmp/torch.json" -- python3 "$SCRIPT"
    cat "$tmp/torch.out"
    pycheck torch "$tmp/torch.json"
    # One line on the script's stderr, whatever the kernels' warnings.
    n=$(grep -c '^perfcheck' "$tmp/torch.err")
    if [ "$n" = 1 ] && grep -q "^perfcheck: report in $tmp/torch.json: " "$tmp/torch.err"; then
      pass "torch: one perfcheck line on stderr: $(grep '^perfcheck' "$tmp/torch.err")"
    else
      fail "torch: $n perfcheck lines on stderr: $(grep '^perfcheck' "$tmp/torch.err" | head -5)"
    fi
    ;;

  *)
    echo "usage: test_inject.sh kernels|nvtx|torch PERFCHECK SHIM CHECK_PY ..."
    exit 2
    ;;
esac

echo "test_inject $part: $fails failure(s)"
[ "$fails" = 0 ]
