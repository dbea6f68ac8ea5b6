#!/usr/bin/env bash
# test_conflicts.sh CONFLICT_PROBE: perfcheck next to another CUPTI client.
#
# Runs tests/gpu/conflict_probe
#   1. alone (control: the session works; exit 77 here means no GPU),
#   2. under `ncu --clock-control none -c 1`: perfcheck_session_create must
#      return PERFCHECK_ERROR_CUPTI_IN_USE naming "Nsight Compute", twice, and
#      the probe's own kernel (the one ncu profiles) must still be right;
#   3. under compute-sanitizer: the same, naming "<not provided>" (the holder
#      name CUPTI gives for the sanitizer, docs/cupti.md §11);
#   4. with CUDA_VISIBLE_DEVICES=-1: PERFCHECK_ERROR_NO_DEVICE.
# Each run must exit 0 and print "conflict_probe: PASS": no crash, because
# after a CUPTI error 39 perfcheck must make no further CUPTI call.
#
# Which refusal paths can be forced on the H200 (a Firecracker VM, root,
# RmProfilingAdminOnly 0, no DCGM):
#   forced here   CUPTI in use (ncu, compute-sanitizer): 2 and 3.
#                 No visible device (CUDA_VISIBLE_DEVICES=-1): 4.
#   not forced    Counters not permitted (ERR_NVGPUCTRPERM, CUPTI
#                 INSUFFICIENT_PRIVILEGES): needs a non-root process AND
#                 RmProfilingAdminOnly 1, a kernel-module parameter
#                 (NVreg_RestrictProfilingToAdminUsers=1) that takes a driver
#                 reload; with 0, as there, every user may profile.  So a
#                 PERFCHECK_MODE_COUNTERS session cannot be made to fall back
#                 to timing for lack of privileges on that machine.
#                 Counters busy (CUPTI HARDWARE_BUSY): needs DCGM's profiling
#                 module (absent) or another process holding the GPU's
#                 counters at that very moment, which no test can time.
#                 No driver: covered by tests/nogpu on a machine without one.
#                 Unsupported GPU: an H200 is supported.
# Those fallbacks (timing only, one note naming the fix) are therefore not
# exercised on the device.
#
# Exit status: 0 all passed; 1 a failure; 77 no GPU, or ncu or
# compute-sanitizer not found (the cases that could run passed).
# NCU=path and COMPUTE_SANITIZER=path override the search.
set -u

if [ $# -ne 1 ]; then
  echo "usage: $0 CONFLICT_PROBE" >&2
  exit 2
fi
PROBE=$1
LOGDIR=$(mktemp -d "${TMPDIR:-/tmp}/pc_conflicts.XXXXXX") || exit 1
trap 'rm -rf "$LOGDIR"' EXIT
FAILED=0
MISSING=""
RC=0

# run NAME COMMAND...: runs under a time limit, shows the output, sets RC.
run() {
  local name=$1
  shift
  echo "== $name: $*"
  timeout -k 10 150 "$@" >"$LOGDIR/$name.log" 2>&1
  RC=$?
  cat "$LOGDIR/$name.log"
  echo "== $name: exit $RC"
}
fail() {
  echo "FAIL: $*" >&2
  FAILED=1
}
# passed NAME: the run exited 0 and the probe said PASS.
passed() {
  [ "$RC" -eq 0 ] || fail "$1: exit status $RC, want 0"
  grep -q '^conflict_probe: PASS' "$LOGDIR/$1.log" || fail "$1: the probe did not print PASS"
}
# find_tool ENV_VALUE NAME CANDIDATE...: the first executable found.
find_tool() {
  local given=$1 name=$2 c
  shift 2
  if [ -n "$given" ] && [ -x "$given" ]; then echo "$given"; return 0; fi
  if command -v "$name" >/dev/null 2>&1; then command -v "$name"; return 0; fi
  for c in "$@"; do
    if [ -x "$c" ]; then echo "$c"; return 0; fi
  done
  return 1
}

run control "$PROBE" ok
case $RC in
  0) passed control ;;
  77) echo "SKIP: no usable GPU"; exit 77 ;;
  *) fail "the control run failed: perfcheck does not work here even alone"; exit 1 ;;
esac

# shellcheck disable=SC2046,SC2012 # the globs are meant to split; the paths are plain
NCU_BIN=$(find_tool "${NCU:-}" ncu /usr/local/cuda/bin/ncu \
  $(ls -d /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda*/nsight-compute*/ncu 2>/dev/null | sort -rV)) || NCU_BIN=""
if [ -n "$NCU_BIN" ]; then
  run ncu "$NCU_BIN" --clock-control none -c 1 "$PROBE" in-use "Nsight Compute"
  passed ncu
  # Without this the test would prove nothing: ncu must really have attached.
  grep -q '==PROF== Profiling' "$LOGDIR/ncu.log" || fail "ncu: it profiled no kernel (did it attach?)"
else
  MISSING="$MISSING ncu"
fi

SAN_BIN=$(find_tool "${COMPUTE_SANITIZER:-}" compute-sanitizer /usr/local/cuda/bin/compute-sanitizer \
  /usr/local/cuda/compute-sanitizer/compute-sanitizer) || SAN_BIN=""
if [ -n "$SAN_BIN" ]; then
  # API errors are not reported: driver queries that perfcheck expects to fail
  # (optional attributes) would count as errors; memory errors still do.
  run sanitizer "$SAN_BIN" --report-api-errors no --error-exitcode 86 "$PROBE" in-use "<not provided>"
  passed sanitizer
else
  MISSING="$MISSING compute-sanitizer"
fi

run no_device env CUDA_VISIBLE_DEVICES=-1 "$PROBE" no-device
passed no_device

if [ "$FAILED" -ne 0 ]; then
  echo "test_conflicts: FAIL"
  exit 1
fi
if [ -n "$MISSING" ]; then
  echo "SKIP: not found:$MISSING (every case that could run passed)"
  exit 77
fi
echo "test_conflicts: PASS"
exit 0
