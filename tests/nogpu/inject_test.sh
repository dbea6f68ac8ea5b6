#!/usr/bin/env bash
# The injection library without a usable driver (label nogpu):
#   inject_test.sh PERFCHECK LIBPERFCHECK_INJECT INJECT_APP INJECT_PLAIN [STUBDIR]
# INJECT_APP is a CUDA program built by plain nvcc (static cudart, no link to
# perfcheck), INJECT_PLAIN a C program that never touches CUDA, STUBDIR a
# directory whose libcuda.so.1 is the toolkit's stub driver.
#
# Under `perfcheck run` and under LD_PRELOAD: the CUDA program's stdout, stderr
# and exit code (0 and 3) are its own, plus exactly one line on stderr,
# "perfcheck: profiling off: <why>"; the program without CUDA (and /bin/true)
# is left entirely alone: same output, same exit code, no perfcheck line.  Run
# with no driver at all (when this machine has none) and with the stub driver
# (everywhere: LD_LIBRARY_PATH puts it first, also on a GPU machine).  Also:
# the library exports exactly its three entry points and needs only libc;
# `perfcheck run` returns 127 for a missing program, 126 for one that cannot
# be executed, 128+N for a signal death, 2 for bad options, and sets the
# environment it promises; `perfcheck check -- PROGRAM` without a GPU is a
# usage error (2) that says why.
set -u
PERFCHECK=$1 SHIM=$2 APP=$3 PLAIN=$4 STUBDIR=${5:-}
fails=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" ${shimdir:+"$shimdir"}' EXIT
SHIM_REAL=$(readlink -f "$SHIM")
# ld.so splits LD_PRELOAD at blanks and colons: a checkout under a path with
# a space preloads the library through a space-free symlink (perfcheck run
# does the same), and the checks below resolve what LD_PRELOAD names.
SHIM_PRELOAD=$SHIM
case $SHIM in *" "*|*:*)
  shimdir=$(mktemp -d /tmp/perfcheck-shim.XXXXXX)
  ln -s "$SHIM_REAL" "$shimdir/libperfcheck_inject.so"
  SHIM_PRELOAD=$shimdir/libperfcheck_inject.so ;;
esac
for f in "$PERFCHECK" "$APP" "$PLAIN"; do
  [ -x "$f" ] || { echo "FAIL $f is not built"; exit 1; }
done

# ---- the library's interface ----------------------------------------------------
exports=$(nm -D --defined-only "$SHIM" | awk '$2 ~ /^[TDBRVWiu]$/ {print $3}' | sed 's/@.*//' | sort -u | tr '\n' ' ')
if [ "$exports" = "InitializeInjection InitializeInjectionNvtx InitializeInjectionNvtx2 " ]; then
  pass "exports: $exports"
else
  fail "exports: got '$exports', want 'InitializeInjection InitializeInjectionNvtx InitializeInjectionNvtx2'"
fi
needed=$(readelf -d "$SHIM" | awk '/NEEDED/ {print $NF}' | tr -d '[]' | tr '\n' ' ')
if echo "$needed" | grep -Eq 'cupti|cuda|perfcheck|nvperf'; then
  fail "dependencies: $needed (a program without CUDA must load no CUPTI)"
else
  pass "dependencies: $needed"
fi

# ---- the environments without a usable driver -----------------------------------
has_driver() { python3 -c 'import ctypes; ctypes.CDLL("libcuda.so.1")' >/dev/null 2>&1 || ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; }
envs=()
if has_driver; then
  echo "SKIP no-driver cases: this machine has a libcuda.so.1 (the stub cases stand in)"
else
  envs+=("none")
fi
if [ -n "$STUBDIR" ] && [ -e "$STUBDIR/libcuda.so.1" ]; then
  envs+=("stub")
else
  echo "SKIP stub cases: no stub driver directory given"
fi
[ ${#envs[@]} -gt 0 ] || { fail "no environment without a driver to test in"; }

# with_env ENV CMD...: runs CMD in that environment.
with_env() {
  local e=$1
  shift
  case $e in
    none) "$@" ;;
    stub) LD_LIBRARY_PATH="$STUBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@" ;;
    host) "$@" ;;
  esac
}
reason_for() { case $1 in none) echo "no NVIDIA driver" ;; stub) echo "stub" ;; esac; }

# under WAY CMD...: CMD under the injection library (WAY run or preload).
under() {
  local way=$1
  shift
  case $way in
    run) "$PERFCHECK" run -- "$@" ;;
    preload) LD_PRELOAD="$SHIM_PRELOAD" "$@" ;;
  esac
}

# A CUDA program: its output and exit code, plus one "profiling off" line.
for e in "${envs[@]}"; do
  for way in run preload; do
    for code in 0 3; do
      what="$e/$way: inject_app $code"
      with_env "$e" "$APP" "$code" >"$tmp/ref.out" 2>"$tmp/ref.err"
      rc_ref=$?
      with_env "$e" under "$way" "$APP" "$code" >"$tmp/got.out" 2>"$tmp/got.err"
      rc=$?
      [ "$rc_ref" = "$code" ] || fail "$what: without the library it exited $rc_ref, not $code"
      if [ "$rc" != "$rc_ref" ]; then fail "$what: exit $rc, want $rc_ref"; continue; fi
      if ! cmp -s "$tmp/ref.out" "$tmp/got.out"; then
        fail "$what: stdout changed"
        diff "$tmp/ref.out" "$tmp/got.out" | head -5
        continue
      fi
      lines=$(grep -c '^perfcheck' "$tmp/got.err")
      if [ "$lines" != 1 ]; then
        fail "$what: $lines perfcheck lines on stderr, want 1:"
        cat "$tmp/got.err"
        continue
      fi
      line=$(grep '^perfcheck' "$tmp/got.err")
      if ! echo "$line" | grep -q "^perfcheck: profiling off: .*$(reason_for "$e")"; then
        fail "$what: the line does not say why ($(reason_for "$e")): $line"
        continue
      fi
      if ! grep -v '^perfcheck' "$tmp/got.err" | cmp -s "$tmp/ref.err" -; then
        fail "$what: stderr changed beyond the one line"
        continue
      fi
      pass "$what: same stdout and exit code $rc; $line"
    done
  done
done

# Programs that never touch CUDA: left entirely alone.
for e in "${envs[@]}" host; do
  for way in run preload; do
    for prog in "$PLAIN|0" "$PLAIN|5" "/bin/true|" "/bin/false|"; do
      cmd=("${prog%|*}")
      [ -n "${prog##*|}" ] && cmd+=("${prog##*|}")
      what="$e/$way: $(basename "${cmd[0]}") ${cmd[*]:1}"
      with_env "$e" "${cmd[@]}" >"$tmp/ref.out" 2>"$tmp/ref.err"
      rc_ref=$?
      with_env "$e" under "$way" "${cmd[@]}" >"$tmp/got.out" 2>"$tmp/got.err"
      rc=$?
      if [ "$rc" = "$rc_ref" ] && cmp -s "$tmp/ref.out" "$tmp/got.out" && cmp -s "$tmp/ref.err" "$tmp/got.err"; then
        pass "$what: untouched (exit $rc)"
      else
        fail "$what: exit $rc (want $rc_ref), or its output changed:"
        diff "$tmp/ref.err" "$tmp/got.err" | head -5
      fi
    done
  done
done

# ---- perfcheck run's own behaviour -------------------------------------------------
expect_rc() { # expect_rc WANT WHAT CMD...
  local want=$1 what=$2
  shift 2
  "$@" >"$tmp/o" 2>"$tmp/e"
  local rc=$?
  if [ "$rc" = "$want" ]; then pass "$what: exit $rc"; else fail "$what: exit $rc, want $want ($(head -c 300 "$tmp/e"))"; fi
}
expect_rc 127 "run a missing program" "$PERFCHECK" run -- "$tmp/no-such-program"
grep -q "cannot run $tmp/no-such-program" "$tmp/e" && pass "missing program: says so" ||
  fail "missing program: no message ($(cat "$tmp/e"))"
mkdir -p "$tmp/adir"
expect_rc 126 "run a directory" "$PERFCHECK" run -- "$tmp/adir"
expect_rc 7 "exit status passed on" "$PERFCHECK" run -- sh -c 'exit 7'
expect_rc 143 "signal death is 128+N" "$PERFCHECK" run -- sh -c 'kill -TERM $$'
expect_rc 2 "no program" "$PERFCHECK" run
expect_rc 2 "no program after --" "$PERFCHECK" run --mode timing --
expect_rc 2 "unknown option" "$PERFCHECK" run --frobnicate -- /bin/true
expect_rc 2 "bad mode" "$PERFCHECK" run --mode fast -- /bin/true
expect_rc 2 "bad format" "$PERFCHECK" run --format xml -- /bin/true
expect_rc 2 "bad launch count" "$PERFCHECK" run --launch-count -1 -- /bin/true
expect_rc 2 "bad per-signature" "$PERFCHECK" run --per-signature 0 -- /bin/true
expect_rc 2 "bad regex" "$PERFCHECK" run --kernels 'regex:(' -- /bin/true  # a bare '(' is a kernel name now (ncu's -k)
expect_rc 2 "bad metric set" "$PERFCHECK" run --metrics everything -- /bin/true
expect_rc 2 "option without value" "$PERFCHECK" run --output
expect_rc 0 "run --help" "$PERFCHECK" run --help
expect_rc 0 "help run" "$PERFCHECK" help run

# The environment the program gets.
got=$(env -u CUDA_INJECTION64_PATH -u NVTX_INJECTION64_PATH -u LD_PRELOAD "$PERFCHECK" run --mode timing \
  --metrics sol --kernels 'a|b' --launch-skip 2 --launch-count 3 --per-signature 4 --nvtx --nvtx-include step/ \
  --output 'r-%p.json' --format json --progress -- \
  sh -c 'echo "$CUDA_INJECTION64_PATH|$NVTX_INJECTION64_PATH|$(readlink -f "${LD_PRELOAD%%:*}")|$PERFCHECK_MODE|$PERFCHECK_METRICS|$PERFCHECK_KERNELS|$PERFCHECK_LAUNCH_SKIP|$PERFCHECK_LAUNCH_COUNT|$PERFCHECK_PER_SIGNATURE|$PERFCHECK_NVTX_INCLUDE|$PERFCHECK_OUTPUT|$PERFCHECK_FORMAT|$PERFCHECK_PROGRESS"')
want="$SHIM_REAL|$SHIM_REAL|$SHIM_REAL|timing|sol|a|b|2|3|4|step/|r-%p.json|json|1"
[ "$got" = "$want" ] && pass "environment: $got" || fail "environment: got '$got', want '$want'"
got=$(LD_PRELOAD=libm.so.6 "$PERFCHECK" run -- sh -c 'echo "$(readlink -f "${LD_PRELOAD%%:*}"):${LD_PRELOAD#*:}"')
[ "$got" = "$SHIM_REAL:libm.so.6" ] && pass "LD_PRELOAD kept: $got" || fail "LD_PRELOAD: got '$got'"
got=$(CUDA_INJECTION64_PATH=/opt/tool/libother.so "$PERFCHECK" run -- sh -c 'echo "$CUDA_INJECTION64_PATH"')
[ "$got" = "/opt/tool/libother.so" ] && pass "another tool's CUDA_INJECTION64_PATH is kept" ||
  fail "CUDA_INJECTION64_PATH overwritten: '$got'"
PERFCHECK_INJECT_LIB="$tmp/missing.so" "$PERFCHECK" run -- "$PLAIN" 4 >"$tmp/o" 2>"$tmp/e"
rc=$?
if [ "$rc" = 4 ] && grep -q "^perfcheck: profiling off: PERFCHECK_INJECT_LIB=$tmp/missing.so" "$tmp/e" &&
  grep -q "inject_plain: exit 4" "$tmp/o"; then
  pass "library not found: the program runs anyway (exit 4), one line says why"
else
  fail "library not found: exit $rc; $(cat "$tmp/e")"
fi

# perfcheck check -- PROGRAM without a GPU: no report to check.
e=${envs[0]:-none}
mkdir -p "$tmp/t"
TMPDIR="$tmp/t" with_env "$e" "$PERFCHECK" check --expect 'inject_app_scale:step==0' -- "$APP" 0 >"$tmp/o" 2>"$tmp/e"
rc=$?
if [ "$rc" = 2 ] && grep -q "wrote no perfcheck report" "$tmp/e" && grep -q "^perfcheck: profiling off:" "$tmp/e"; then
  pass "check -- inject_app without a GPU: exit 2, says why"
else
  fail "check -- inject_app without a GPU: exit $rc; $(cat "$tmp/e")"
fi
ls "$tmp/t"/perfcheck-check-* >/dev/null 2>&1 && fail "check left its temporary report behind" ||
  pass "check removed its temporary report"

echo "inject_test: $fails failure(s)"
[ "$fails" = 0 ]
