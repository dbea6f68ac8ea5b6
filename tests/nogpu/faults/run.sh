#!/usr/bin/env bash
# The fault matrix: every failure covered, as a user or an attacker would
# meet it, on a machine without a usable GPU.  Each case checks the exit
# status, that a program's own output and exit status are unchanged, that
# a report is where it must be and valid (python3's json), that nothing is
# clobbered, and, for the cases marked (valgrind), that memcheck finds no
# error and no leak.  Ends with "N passed, N failed"; exit 0 only when none failed.
#
#   run.sh PERFCHECK SHIM HELPER DATA_DIR [--app CUDA_APP] [--plain PLAIN_APP]
#          [--stub STUB_DIR] [--probe SECURE_ENV_PROBE] [--python-dir DIR]
#          [--no-valgrind] [--sanitized]
#
# PERFCHECK the perfcheck command, SHIM libperfcheck_inject.so, HELPER
# fault_helper (the library's output rules without a GPU), DATA_DIR
# tests/data; CUDA_APP a CUDA program built by plain nvcc, PLAIN_APP a C
# program without CUDA (tests/nogpu/inject_plain.c), STUB_DIR a folder
# whose libcuda.so.1 is the toolkit's stub, SECURE_ENV_PROBE the probe of
# nogpu.secure_getenv, DIR the Python package's folder (python/).
# --sanitized (an ASan build):
# the cases that preload the injection library into a program not built with
# ASan, or that limit virtual memory, are skipped (ASan cannot run there).
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PC=$1 SHIM=$2 HELPER=$3 DATA=$4
shift 4
APP="" PLAIN="" STUB="" VALGRIND=1 SAN=0 PROBE="" PYDIR=""
while [ $# -gt 0 ]; do
  case $1 in
    --probe) PROBE=$2; shift 2 ;;
    --python-dir) PYDIR=$2; shift 2 ;;
    --app) APP=$2; shift 2 ;;
    --plain) PLAIN=$2; shift 2 ;;
    --stub) STUB=$2; shift 2 ;;
    --no-valgrind) VALGRIND=0; shift ;;
    --sanitized) SAN=1 VALGRIND=0; shift ;; # ASan: no preloading into foreign programs, no ulimit -v
    *) echo "run.sh: unknown argument $1"; exit 2 ;;
  esac
done
command -v valgrind >/dev/null 2>&1 || VALGRIND=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" ${shimdir:+"$shimdir"}' EXIT
cd "$tmp" || exit 1
# ld.so splits LD_PRELOAD at blanks and colons: a checkout under a path with
# a space preloads the library through a space-free symlink, as perfcheck
# run does.
SHIM_PRELOAD=$SHIM
case $SHIM in *" "*|*:*)
  shimdir=$(mktemp -d /tmp/perfcheck-shim.XXXXXX)
  ln -s "$(readlink -f "$SHIM")" "$shimdir/libperfcheck_inject.so"
  SHIM_PRELOAD=$shimdir/libperfcheck_inject.so ;;
esac
passed=0 failed=0 skipped=0
pass() { passed=$((passed + 1)); echo "PASS $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1: $2"; [ -s "$tmp/err" ] && sed 's/^/    stderr: /' "$tmp/err" | head -5; }
skip() { skipped=$((skipped + 1)); echo "SKIP $1: $2"; }
# san_skip NAME: true (and the case skipped) in an ASan build, where the
# ASan-built injection library cannot be preloaded into other programs.
san_skip() { [ "$SAN" = 1 ] && skip "$1" "ASan build: no preloading into programs built without ASan"; }

# run_case CMD...: runs CMD with stdout in $tmp/out, stderr in $tmp/err; sets rc.
run_case() {
  "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
}
has() { grep -qF -- "$2" "$1"; }
json_ok() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema"]=="perfcheck-report/2"' "$1" 2>/dev/null; }
VG=(valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect
  --error-exitcode=99)
# vg_case NAME WANT_RC CMD...: the same command under memcheck.
vg_case() {
  local name=$1 want=$2
  shift 2
  if [ "$VALGRIND" = 0 ]; then
    skip "$name (valgrind)" "no valgrind in this build"
    return
  fi
  "${VG[@]}" "$@" >/dev/null 2>"$tmp/vg"
  local r=$?
  if [ "$r" = "$want" ]; then pass "$name (valgrind)"; else
    cp "$tmp/vg" "$tmp/err"
    fail "$name (valgrind)" "exit $r, want $want"
  fi
}

T4=$DATA/t4_seed000.csv
H200=$DATA/h200/mystery.csv
for f in "$PC" "$SHIM" "$HELPER" "$T4" "$H200"; do [ -e "$f" ] || { echo "FAIL missing $f"; exit 1; }; done

# ==== Reports: never lost, never clobbered ====================================

# 1. The folder does not exist: one line, then the report, on stderr.
run_case "$HELPER" deliver "$tmp/no/such/dir/r.json" json "$T4"
python3 - "$tmp/err" <<'E' >/dev/null 2>&1
import json, sys
t = open(sys.argv[1]).read()
line, rest = t.split("\n", 1)
assert "cannot write the report to" in line and "here it is on stderr instead" in line
json.loads(rest)
E
if [ "$rc" = 1 ] && [ $? = 0 ] && [ ! -e "$tmp/no" ]; then pass "missing folder: the report on stderr, valid JSON"; else fail "missing folder" "exit $rc"; fi

# 2. %q{VAR} unset: the pid, one warning line; never r..json.
run_case env -u PC_RANK "$HELPER" deliver "$tmp/r.%q{PC_RANK}.json" json "$T4"
n=$(ls "$tmp" | grep -c '^r\.[0-9][0-9]*\.json$')
if [ "$rc" = 0 ] && [ "$n" = 1 ] && [ ! -e "$tmp/r..json" ] && has "$tmp/err" "which is unset; using the process id" &&
  json_ok "$tmp"/r.[0-9]*.json; then pass "%q{RANK} unset: r.PID.json and a warning"; else fail "%q unset" "exit $rc, $n files"; fi
rm -f "$tmp"/r.*.json

# 3. %q{VAR} with "/.." stays one path component.
mkdir -p "$tmp/d"
run_case env PC_RANK="/../../escape" "$HELPER" deliver "$tmp/d/r.%q{PC_RANK}.json" json "$T4"
if [ "$rc" = 0 ] && [ -f "$tmp/d/r._.._.._escape.json" ] && [ ! -e "$tmp/escape.json" ]; then
  pass "%q{RANK}=/../../escape: one component"; else fail "%q with /.." "exit $rc: $(ls "$tmp/d")"; fi
rm -rf "$tmp/d"

# 4. %q{VAR} with a newline and an escape sequence.
run_case env PC_RANK=$'a\nb\033[31m' "$HELPER" deliver "$tmp/r.%q{PC_RANK}.json" json "$T4"
if [ "$rc" = 0 ] && [ -f "$tmp/r.a_b_[31m.json" ]; then pass "%q{RANK} with a newline: sanitised"; else fail "%q newline" "exit $rc: $(ls "$tmp")"; fi
rm -f "$tmp"/r.*.json

# 5. A symlink planted at the output name: replaced, its target untouched.
echo precious >"$tmp/victim"
ln -s "$tmp/victim" "$tmp/planted.json"
run_case "$HELPER" deliver "$tmp/planted.json" json "$T4"
if [ "$rc" = 0 ] && [ "$(cat "$tmp/victim")" = precious ] && [ ! -L "$tmp/planted.json" ] && json_ok "$tmp/planted.json"; then
  pass "symlink at the output: not followed"; else fail "symlink at the output" "exit $rc"; fi

# 6. The output name is a folder: the report goes to stderr.
mkdir "$tmp/adir.json"
run_case "$HELPER" deliver "$tmp/adir.json" text "$T4"
if [ "$rc" = 1 ] && has "$tmp/err" "is a folder, not a regular file" && has "$tmp/err" "mysteryA: step 3"; then
  pass "output is a folder: report on stderr"; else fail "output is a folder" "exit $rc"; fi
rmdir "$tmp/adir.json"

# 7. The disk fills up while writing (RLIMIT_FSIZE: EFBIG): the old report
# stays whole, no temporary is left, and the new one goes to stderr (a pipe).
echo old >"$tmp/keep.json"
(trap '' XFSZ; ulimit -f 4; exec "$HELPER" deliver "$tmp/keep.json" json "$T4") 2>&1 | cat >"$tmp/err"
rc=${PIPESTATUS[0]}
if [ "$rc" = 1 ] && [ "$(cat "$tmp/keep.json")" = old ] && [ -z "$(ls -A "$tmp" | grep '\.tmp$')" ] &&
  has "$tmp/err" "writing failed" && has "$tmp/err" '"schema": "perfcheck-report/2"'; then
  pass "disk full: old report untouched, no temporary, report on stderr"; else fail "disk full" "exit $rc"; fi

# 8-9. One name per process of a run: the root keeps it, the others get .PID.
if ! san_skip "run: root and children"; then
run_case "$PC" run -- "$HELPER" deliver "$tmp/root.json" json "$T4"
if [ "$rc" = 0 ] && json_ok "$tmp/root.json"; then pass "run: the root writes root.json"; else fail "run root" "exit $rc"; fi
run_case "$PC" run -- sh -c "'$HELPER' deliver '$tmp/kids.json' json '$T4'; '$HELPER' deliver '$tmp/kids.json' json '$T4'"
n=$(ls "$tmp" | grep -c '^kids\.[0-9][0-9]*\.json$')
if [ "$rc" = 0 ] && [ "$n" = 2 ] && [ ! -e "$tmp/kids.json" ]; then pass "run: two exec'd children, two files"; else
  fail "run children" "exit $rc, $n files: $(ls "$tmp")"; fi
rm -f "$tmp"/kids.*.json "$tmp/root.json"

# 10. run sets PERFCHECK_ROOT_PID to the program's own pid.
run_case "$PC" run -- sh -c 'echo "$PERFCHECK_ROOT_PID $$"'
set -- $(cat "$tmp/out")
if [ "$rc" = 0 ] && [ "${1:-x}" = "${2:-y}" ]; then pass "run: PERFCHECK_ROOT_PID is the program"; else fail "ROOT_PID" "$(cat "$tmp/out")"; fi
fi

# 11. A privileged process (setuid to another user) writes no report file.
# It runs as nobody, who may not enter the folders of this checkout (a clone
# under /root or a 0700 home) nor $TMPDIR inside it: the helper (which
# needs libc, libm and libz only) and the export it reads are copied to a
# folder of their own under /tmp that everyone may enter.
priv=""
if [ "$SAN" = 1 ]; then
  skip "privileged process" "ASan build (ASan refuses to run setuid)"
elif [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 && priv=$(mktemp -d /tmp/perfcheck-priv.XXXXXX); then
  trap 'rm -rf "$tmp" "$priv" ${shimdir:+"$shimdir"}' EXIT
  chmod 755 "$priv"
  cp "$T4" "$priv/t4.csv" && chmod 644 "$priv/t4.csv"
  cp "$HELPER" "$priv/suid_helper" && chown nobody "$priv/suid_helper" && chmod 4755 "$priv/suid_helper"
  mkdir -p "$priv/pub" && chmod 777 "$priv/pub"
  run_case "$priv/suid_helper" deliver "$priv/pub/priv.json" json "$priv/t4.csv"
  if [ "$rc" = 3 ] && [ ! -e "$priv/pub/priv.json" ] && has "$tmp/err" "no report written" &&
    [ "$(wc -l <"$tmp/err")" = 1 ]; then pass "privileged process: no file, one line"
  elif [ "$rc" = 0 ] && [ -e "$priv/pub/priv.json" ] && mount | grep -q nosuid; then
    skip "privileged process" "setuid has no effect here (nosuid mount)"
  else fail "privileged process" "exit $rc"; fi
  # 12. ... and perfcheck run refuses to inject into a setuid program.
  run_case "$PC" run -- "$priv/suid_helper" config
  if [ "$rc" = 2 ] && has "$tmp/err" "is setuid: perfcheck does not inject" && [ ! -s "$tmp/out" ]; then
    pass "run refuses a setuid program"; else fail "run setuid" "exit $rc"; fi
else
  skip "privileged process" "needs root and a nobody user"
  skip "run refuses a setuid program" "needs root and a nobody user"
fi

# 13. "-" is stdout.
run_case "$HELPER" deliver - json "$T4"
if [ "$rc" = 0 ] && json_ok "$tmp/out"; then pass "output - is stdout"; else fail "output -" "exit $rc"; fi

# 14-15. Bad output patterns: refused by run, one warning from the environment.
run_case "$PC" run --output 'r%x' -- true
if [ "$rc" = 2 ] && has "$tmp/err" "unknown %x"; then pass "run --output r%x refused"; else fail "run --output r%x" "exit $rc"; fi
run_case env PERFCHECK_OUTPUT='r%x' "$HELPER" config
if [ "$rc" = 0 ] && has "$tmp/out" "output=(none)" && has "$tmp/err" 'PERFCHECK_OUTPUT="r%x" is not an output pattern'; then
  pass "PERFCHECK_OUTPUT=r%x: one warning, default"; else fail "PERFCHECK_OUTPUT=r%x" "exit $rc"; fi

# ==== Output safety: one output function for every writer ====
# A device node of our own (root: mknod of /dev/full's numbers in $tmp, so a
# regression replaces our node, never the machine's /dev/full); without root
# /dev/null, which only root could replace.
"$PC" diagnose --quiet --format json "$T4" >"$tmp/o_a.json"
"$PC" diagnose --quiet --format json "$H200" >"$tmp/o_b.json"
if [ "$(id -u)" = 0 ] && mknod "$tmp/fulldev" c 1 7 2>/dev/null; then DEV=$tmp/fulldev; else DEV=/dev/null; fi
is_chr() { [ -c "$1" ] && [ ! -L "$1" ]; }
mkfifo "$tmp/fifo"
is_fifo() { [ -p "$1" ] && [ ! -L "$1" ]; }
nothing_left() { [ -z "$(ls -A "$tmp" | grep '\.tmp$')" ]; }
# out_case NAME WANT_RC TARGET_TEST TARGET CMD...: the command refuses (exit
# WANT_RC, "not a regular file" on stderr) and TARGET passes TARGET_TEST.
out_case() {
  local name=$1 want=$2 test=$3 target=$4
  shift 4
  run_case "$@"
  if [ "$rc" = "$want" ] && "$test" "$target" && has "$tmp/err" "not a regular file" && nothing_left; then
    pass "$name"; else fail "$name" "exit $rc"; fi
}
out_case "merge --output DEVICE: exit 2, the device stays" 2 is_chr "$DEV" \
  "$PC" merge -f json --output "$DEV" "$tmp/o_a.json"
out_case "merge --output FIFO: exit 2, the FIFO stays" 2 is_fifo "$tmp/fifo" \
  "$PC" merge -f json --output "$tmp/fifo" "$tmp/o_a.json"
out_case "check --junit DEVICE: exit 2, the device stays" 2 is_chr "$DEV" \
  "$PC" check --quiet --junit "$DEV" --expect 'mysteryA:step==3' "$T4"
out_case "check --junit FIFO: exit 2, the FIFO stays" 2 is_fifo "$tmp/fifo" \
  "$PC" check --quiet --junit "$tmp/fifo" --expect 'mysteryA:step==3' "$T4"
out_case "report --html DEVICE: exit 2, the device stays" 2 is_chr "$DEV" \
  "$PC" report --quiet --html "$DEV" "$T4"
out_case "report --output FIFO: exit 2, the FIFO stays" 2 is_fifo "$tmp/fifo" \
  "$PC" report --quiet -f json --output "$tmp/fifo" "$T4"
out_case "diff --output DEVICE: exit 2 (never 1, worse), the device stays" 2 is_chr "$DEV" \
  "$PC" diff --quiet --output "$DEV" "$T4" "$H200"
out_case "diff --output FIFO: exit 2, the FIFO stays" 2 is_fifo "$tmp/fifo" \
  "$PC" diff --quiet --output "$tmp/fifo" "$T4" "$T4"
out_case "ceilings file to a DEVICE: refused, the device stays" 1 is_chr "$DEV" "$HELPER" ceilings "$DEV"
# The library's report writer (PERFCHECK_OUTPUT) to a device or FIFO: the
# report goes to stderr after one line, the node stays.
for t in DEV fifo; do
  target=$DEV; tst=is_chr; [ "$t" = fifo ] && target=$tmp/fifo tst=is_fifo
  run_case "$HELPER" deliver "$target" json "$T4"
  if [ "$rc" = 1 ] && "$tst" "$target" && has "$tmp/err" "not a regular file" && has "$tmp/err" "here it is on stderr" &&
    has "$tmp/err" '"schema": "perfcheck-report/2"'; then pass "PERFCHECK_OUTPUT=$t: report on stderr, the node stays"
  else fail "PERFCHECK_OUTPUT=$t" "exit $rc"; fi
done
# A socket at the name (python3 binds one).
if python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$tmp/sock" 2>/dev/null; then
  is_sock() { [ -S "$1" ] && [ ! -L "$1" ]; }
  out_case "merge --output SOCKET: exit 2, the socket stays" 2 is_sock "$tmp/sock" \
    "$PC" merge -f json --output "$tmp/sock" "$tmp/o_a.json"
else skip "merge --output SOCKET" "cannot bind a unix socket here"; fi
# Symlinks at the name are replaced, never followed, by every writer.
sym_case() {
  local name=$1 link=$2
  shift 2
  echo precious >"$tmp/victim_s"
  rm -f "$link"
  ln -s "$tmp/victim_s" "$link"
  run_case "$@"
  if [ "$rc" = "$want" ] && [ "$(cat "$tmp/victim_s")" = precious ] && [ -f "$link" ] && [ ! -L "$link" ] && [ -s "$link" ]; then
    pass "$name"; else fail "$name" "exit $rc"; fi
  rm -f "$link"
}
want=0 sym_case "report --html over a symlink: replaced, its target untouched" "$tmp/s.html" "$PC" report --quiet --html "$tmp/s.html" "$T4"
want=0 sym_case "diff --output over a symlink: replaced, its target untouched" "$tmp/s.txt" "$PC" diff --quiet --output "$tmp/s.txt" "$T4" "$H200"
want=1 sym_case "check --junit over a symlink: replaced, its target untouched" "$tmp/s.xml" "$PC" check --quiet --junit "$tmp/s.xml" --expect 'mysteryA:sectors_per_request_ld<=4.5' "$T4"
want=0 sym_case "ceilings file over a symlink: replaced, its target untouched" "$tmp/s.txt" "$HELPER" ceilings "$tmp/s.txt"
# A full disk (RLIMIT_FSIZE) while diff or report writes: exit 2, never 1
# ("worse"), the old file whole, no temporary left.
for cmd in diff report; do
  ext=txt; [ "$cmd" = report ] && ext=html
  echo old >"$tmp/keep_$cmd.$ext"
  if [ "$cmd" = diff ]; then args=(diff --quiet --output "$tmp/keep_$cmd.$ext" "$T4" "$H200"); else
    args=(report --quiet --html "$tmp/keep_$cmd.$ext" "$H200"); fi
  (trap '' XFSZ; ulimit -f 2; exec "$PC" "${args[@]}") >"$tmp/out" 2>"$tmp/err"
  rc=$?
  if [ "$rc" = 2 ] && [ "$(cat "$tmp/keep_$cmd.$ext")" = old ] && nothing_left && has "$tmp/err" "File too large"; then
    pass "$cmd --output under ulimit -f: exit 2, the old file whole"; else fail "$cmd under ulimit -f" "exit $rc"; fi
done
# Modes: an existing 0600 report stays 0600; a new one follows the umask.
echo old >"$tmp/private.json"
chmod 600 "$tmp/private.json"
run_case "$PC" merge -f json --output "$tmp/private.json" "$tmp/o_a.json"
if [ "$rc" = 0 ] && [ "$(stat -c %a "$tmp/private.json")" = 600 ] && json_ok "$tmp/private.json"; then
  pass "replacing a 0600 report keeps 0600"; else fail "0600 kept" "exit $rc, mode $(stat -c %a "$tmp/private.json")"; fi
(umask 077; exec "$PC" merge -f json --output "$tmp/new077.json" "$tmp/o_a.json") >/dev/null 2>"$tmp/err"
rc=$?
if [ "$rc" = 0 ] && [ "$(stat -c %a "$tmp/new077.json")" = 600 ]; then pass "a new report under umask 077 is 0600"; else
  fail "umask 077" "exit $rc, mode $(stat -c %a "$tmp/new077.json" 2>/dev/null)"; fi
# "-" streams to stdout in every command.
run_case "$PC" merge -f json --output - "$tmp/o_a.json"
if [ "$rc" = 0 ] && json_ok "$tmp/out" && [ ! -e ./- ]; then pass "merge --output -: stdout"; else fail "merge -o -" "exit $rc"; fi
run_case "$PC" report -f json -o - "$T4"
if [ "$rc" = 0 ] && json_ok "$tmp/out"; then pass "report -o -: stdout"; else fail "report -o -" "exit $rc"; fi
# A missing folder: diff exits 2 (not 1), nothing created.
run_case "$PC" diff --quiet --output "$tmp/none/d.txt" "$T4" "$H200"
if [ "$rc" = 2 ] && [ ! -e "$tmp/none" ] && has "$tmp/err" "No such file or directory"; then
  pass "diff --output to a missing folder: exit 2"; else fail "diff missing folder" "exit $rc"; fi
# %q{VAR} values that differ after byte 128 never share one file.
long=$(printf 'r%.0s' $(seq 200))
run_case env PC_RANK="${long}A" "$HELPER" deliver "$tmp/q.%q{PC_RANK}.json" json "$T4"
rc1=$rc; has "$tmp/err" "bytes long (at most 128)"; w1=$?
run_case env PC_RANK="${long}B" "$HELPER" deliver "$tmp/q.%q{PC_RANK}.json" json "$T4"
n=$(ls "$tmp" | grep -c '^q\..*\.json$')
if [ "$rc1" = 0 ] && [ "$rc" = 0 ] && [ "$w1" = 0 ] && [ "$n" = 2 ]; then
  pass "%q{VAR} over 128 bytes: a warning and the pid, two ranks two files"; else fail "%q long" "exit $rc1/$rc, $n files"; fi
rm -f "$tmp"/q.*.json "$tmp/fifo" "$tmp/sock"

# ==== Damaged exports, numbers ==============================================

head -c $(( $(stat -c %s "$H200") - 500 )) "$H200" >"$tmp/cut.csv"   # ncu killed mid-row
run_case "$PC" diagnose -v --format json "$tmp/cut.csv"
if [ "$rc" = 0 ] && has "$tmp/err" "cut.csv:6: " && has "$tmp/err" "1 row dropped, 3 launch rows kept" &&
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert sum(k["launches"] for k in d["kernels"])==3' "$tmp/out"; then
  pass "cut export: 3 rows kept, the cut one named"; else fail "cut export" "exit $rc"; fi
vg_case "cut export" 0 "$PC" diagnose --quiet "$tmp/cut.csv"

python3 - "$H200" "$tmp/hole.csv" <<'E'
import sys
lines = open(sys.argv[1]).read().split("\n")
lines[3] = lines[3].rsplit(",", 1)[0]   # one row with a missing field
open(sys.argv[2], "w").write("\n".join(lines))
E
run_case "$PC" diagnose --quiet --format json "$tmp/hole.csv"
if [ "$rc" = 0 ] && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert sum(k["launches"] for k in d["kernels"])==3' "$tmp/out"; then
  pass "a row with a missing field: the others kept"; else fail "missing field" "exit $rc"; fi
run_case "$PC" diagnose -v "$tmp/hole.csv"
if has "$tmp/err" "hole.csv:4: 388 fields where the header (line 1) has 389; 1 row dropped"; then pass "missing field: file:line named";
else fail "missing field message" "$(head -c 300 "$tmp/err")"; fi
# Quiet by default: the warning is in the report, stderr is empty.
run_case "$PC" diagnose "$tmp/hole.csv"
if [ "$rc" = 0 ] && [ ! -s "$tmp/err" ] && has "$tmp/out" "hole.csv:4: 388 fields where the header"; then
  pass "without -v: the warning in the report only"; else fail "quiet by default" "exit $rc, stderr $(head -c 200 "$tmp/err")"; fi

python3 - "$H200" "$tmp/onlybad.csv" <<'E'
import sys
lines = open(sys.argv[1]).read().split("\n")
open(sys.argv[2], "w").write("\n".join(lines[:2] + [l.rsplit(",", 1)[0] for l in lines[2:6]]) + "\n")
E
run_case "$PC" diagnose "$tmp/onlybad.csv"
if [ "$rc" = 2 ] && has "$tmp/err" "onlybad.csv:3: " && has "$tmp/err" "4 rows could not be read"; then
  pass "only damaged rows: exit 2, first bad line"; else fail "only damaged rows" "exit $rc"; fi
for f in empty not_ncu random.bin header_only details_page; do
  p=$DATA/bad/$f; [ -e "$p" ] || p=$DATA/bad/$f.csv
  run_case "$PC" diagnose "$p"
  if [ "$rc" = 2 ] && [ ! -s "$tmp/out" ] && has "$tmp/err" "$(basename "$p"):"; then pass "bad export $(basename "$p"): exit 2, named";
  else fail "bad export $f" "exit $rc"; fi
done
vg_case "random bytes" 2 "$PC" diagnose --quiet "$DATA/bad/random.bin"

sed 's/"96\.384000"/"96,384000"/g' "$H200" >"$tmp/comma.csv"
run_case "$PC" diagnose -v --format json "$tmp/comma.csv"
if [ "$rc" = 0 ] && has "$tmp/err" '"96,384000" is not a number' &&
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); k=[k for k in d["kernels"] if k["name"]=="mysteryA"][0]; assert k["metrics"]["gpu__time_duration.sum"] is None' "$tmp/out"; then
  pass "96,384000 is a bad value (null), not 96 billion"; else fail "thousands separator" "exit $rc"; fi
vg_case "thousands separator" 0 "$PC" diagnose --quiet "$tmp/comma.csv"
sed 's/"96\.384000"/"1e-400"/g' "$H200" >"$tmp/tiny.csv"
run_case "$PC" diagnose --verbose --format json "$tmp/tiny.csv"
if [ "$rc" = 0 ] && has "$tmp/err" '"1e-400" is outside the range of a double'; then pass "1e-400 in an export: a bad value, not 0";
else fail "1e-400 export" "exit $rc"; fi

# ---- ncu CSV input: units, decimal commas, NUL bytes, repeats, headers ----
# Variants of the H200 export (its units row says usecond for durations).
python3 - "$H200" "$tmp" <<'E' || echo "FAIL could not write the damaged exports"
import csv, io, sys
src, out = sys.argv[1], sys.argv[2]
rows = list(csv.reader(open(src, newline="")))
head, units, data = rows[0], rows[1], rows[2:]
dur, dram = head.index("gpu__time_duration.sum"), head.index("dram__bytes_read.sum")
def write(name, rows):
    b = io.StringIO()
    csv.writer(b, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
    open("%s/%s" % (out, name), "w", newline="").write(b.getvalue())
write("nounits.csv", [head] + data)
for tag, unit in (("micro", "\u00b5s"), ("usec", "usec"), ("furlong", "furlong")):
    u = list(units); u[dur] = unit; u[dram] = unit
    write("unit_%s.csv" % tag, [head, u] + data)
k = [r for r in data if r[head.index("Kernel Name")].startswith("mysteryA")][0]
a = list(k); a[dur] = "0,500"
write("deccomma.csv", [head, units, a])
rep = [list(k) for _ in range(3)]
rep[0][dur], rep[1][dur], rep[2][dur] = "96.384", "abc", "100.000"
write("repeat_bad.csv", [head, units] + rep)
rep[1][dur] = "-3.5"
write("repeat_neg.csv", [head, units] + rep)
sw = list(head); i, j = sw.index("Kernel Name"), sw.index("ID")
sw[i], sw[j] = sw[j], sw[i]
write("header2.csv", [head, units] + data[:2] + [sw, units] + data[2:])
# An embedded NUL in one duration cell.
n = list(k); n[dur] = "96@NUL@384"
buf = io.StringIO()
csv.writer(buf, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows([head, units, n])
text = buf.getvalue().replace("@NUL@", "\x00", 1)
open("%s/nul.csv" % out, "w", newline="").write(text)
E
kval() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); k=[k for k in d["kernels"] if k["name"]==sys.argv[2]][0]; print(eval(sys.argv[3]))' "$tmp/out" "$@" 2>/dev/null; }
run_case "$PC" diagnose -v --format json "$tmp/nounits.csv"
if [ "$rc" = 0 ] && [ "$(kval mysteryA 'k["metrics"]["gpu__time_duration.sum"]')" = None ] &&
  [ "$(grep -c 'no units row' "$tmp/err")" = 1 ] && has "$tmp/err" "gpu__time_duration.sum"; then
  pass "no units row: durations null (not 96.384 ns), one warning naming the columns"; else fail "no units row" "exit $rc"; fi
for tag in micro usec furlong; do
  run_case "$PC" diagnose -v --format json "$tmp/unit_$tag.csv"
  if [ "$rc" = 0 ] && [ "$(kval mysteryA 'k["metrics"]["gpu__time_duration.sum"], k["metrics"]["dram__bytes_read.sum"]')" = "(None, None)" ] &&
    [ "$(grep -c 'unknown unit' "$tmp/err")" = 2 ] && has "$tmp/err" "column gpu__time_duration.sum: unknown unit"; then
    pass "unknown unit ($tag): the columns unusable, one warning each"; else fail "unknown unit $tag" "exit $rc"; fi
done
run_case "$PC" diagnose -v --format json "$tmp/deccomma.csv"
if [ "$rc" = 0 ] && [ "$(kval mysteryA 'k["metrics"]["gpu__time_duration.sum"]')" = None ] && has "$tmp/err" '"0,500" is not a number (a decimal comma'; then
  pass "0,500: a decimal comma, rejected (not 500)"; else fail "decimal comma" "exit $rc"; fi
# A NUL byte in a cell spoils that cell only: the duration is a bad value
# (null, one warning), never 96; the rest of the row and the file are read.
run_case "$PC" diagnose -v --format json "$tmp/nul.csv"
if [ "$rc" = 0 ] && [ "$(kval mysteryA 'k["metrics"]["gpu__time_duration.sum"], k["metrics"]["dram__bytes_read.sum"] > 0')" = "(None, True)" ] &&
  has "$tmp/err" 'a NUL byte'; then
  pass "96\\0384: a NUL byte spoils its cell only (null, not 96; the row's other values read)"; else fail "NUL in a cell" "exit $rc"; fi
for f in repeat_bad repeat_neg; do
  run_case "$PC" diagnose -v --format json "$tmp/$f.csv"
  if [ "$rc" = 0 ] && [ "$(kval mysteryA 'k["launches"], k["total_ns"], float(k["duration_ns"]["min"]), float(k["duration_ns"]["max"])')" = "(3, None, 96384.0, 100000.0)" ] &&
    has "$tmp/err" "kernel mysteryA: 1 of 3 launches have no usable gpu__time_duration.sum"; then
    pass "$f: 3 launches, total_ns null, the untimed launch counted in a warning"; else fail "$f" "exit $rc: $(kval mysteryA 'k["launches"], k["total_ns"]')"; fi
done
run_case "$PC" diagnose "$tmp/header2.csv"
if [ "$rc" = 2 ] && has "$tmp/err" "header2.csv:5: a second header row whose column" && [ ! -s "$tmp/out" ]; then
  pass "a second header with swapped columns: exit 2 at its line (no phantom kernel)"; else fail "second header" "exit $rc"; fi
# JSON values outside their invariants: refused with the path, by every reader.
python3 - "$tmp/o_b.json" "$tmp" <<'E'
import json, sys
d = json.load(open(sys.argv[1]))
i = [n for n, k in enumerate(d["kernels"]) if k["name"] == "mysteryA"][0]
d["kernels"][i]["duration_ns"]["median"] = d["kernels"][i]["duration_ns"]["min"] - 1
json.dump(d, open(sys.argv[2] + "/median_low.json", "w"), indent=1)
d = json.load(open(sys.argv[1]))
d["kernels"][i]["total_ns"] = -d["kernels"][i]["total_ns"]
json.dump(d, open(sys.argv[2] + "/total_neg.json", "w"), indent=1)
open(sys.argv[2] + "/index", "w").write(str(i))
E
ki=$(cat "$tmp/index")
run_case "$PC" merge "$tmp/median_low.json"
if [ "$rc" = 2 ] && has "$tmp/err" "kernels[$ki].duration_ns.median:" && has "$tmp/err" "is below kernels[$ki].duration_ns.min"; then
  pass "JSON median below min: merge refuses, the path named"; else fail "median below min" "exit $rc"; fi
run_case "$PC" diff "$tmp/o_b.json" "$tmp/total_neg.json"
if [ "$rc" = 2 ] && has "$tmp/err" "kernels[$ki].total_ns: -" && has "$tmp/err" "is below 0"; then
  pass "JSON negative total_ns: diff refuses (exit 2, not \"unchanged\")"; else fail "negative total_ns" "exit $rc"; fi
run_case "$PC" check --expect 'mysteryA:step==3' "$tmp/median_low.json"
if [ "$rc" = 2 ] && has "$tmp/err" "duration_ns.median"; then pass "JSON median below min: check refuses (exit 2)"; else
  fail "check median" "exit $rc"; fi

run_case sh -c "cat '$H200' | '$PC' diagnose --quiet /dev/stdin"
if [ "$rc" = 0 ] && has "$tmp/out" "mysteryA: step 3"; then pass "an export through a pipe"; else fail "pipe" "exit $rc"; fi
sed 's/$/\r/' "$T4" >"$tmp/crlf.csv"
run_case "$PC" diagnose --quiet "$tmp/crlf.csv"
if [ "$rc" = 0 ] && has "$tmp/out" "mysteryA: step 3"; then pass "a CRLF export"; else fail "CRLF" "exit $rc"; fi

# Hostile kernel names: CSV carries no raw control character, JSON stays valid.
run_case "$PC" diagnose --quiet --format csv "$DATA/ncu_hostile_names.csv"
if [ "$rc" = 0 ] && ! LC_ALL=C grep -q $'[\x01-\x08\x0b\x0c\x0e-\x1f\x1b]' "$tmp/out" && has "$tmp/out" 'ctrl\x01\x1b[31mkernel'; then
  pass "hostile names: CSV escapes control characters"; else fail "hostile CSV" "exit $rc"; fi
run_case "$PC" diagnose --quiet --format json "$DATA/ncu_hostile_names.csv"
if [ "$rc" = 0 ] && json_ok "$tmp/out"; then pass "hostile names: valid JSON"; else fail "hostile JSON" "exit $rc"; fi

# ==== Regexes ===================================================================

# 1 GB, 20 s: the guard must answer long before (ASan maps terabytes of
# shadow memory: there, the time limit only).
limit() { if [ "$SAN" = 1 ]; then (ulimit -t 20; "$@"); else (ulimit -v 1000000; ulimit -t 20; "$@"); fi; }
run_case limit "$PC" check --expect 'regex:((a{255}){255}){255}:step>=0' "$T4"
if [ "$rc" = 2 ] && has "$tmp/err" 'rule "nesting"'; then pass "regex ((a{255}){255}){255}: refused"; else fail "nested repetition" "exit $rc"; fi
vg_case "regex guard" 2 "$PC" check --expect 'regex:(a{255}){255}:step>=0' "$T4"
run_case limit "$PC" check --expect 'regex:(x|xx)+\1y:step>=0' "$T4"
if [ "$rc" = 2 ] && has "$tmp/err" 'rule "backref"'; then pass "regex (x|xx)+\\1y: refused"; else fail "backref" "exit $rc"; fi
run_case "$PC" run --kernels 'regex:(x|xx)+\1y' -- true
if [ "$rc" = 2 ] && has "$tmp/err" 'rule "backref"'; then pass "run --kernels regex: guarded"; else fail "run --kernels guard" "exit $rc"; fi
run_case "$PC" run --nvtx-include 'regex:((a{2}){2}){2}/' -- true
if [ "$rc" = 2 ] && has "$tmp/err" 'rule "nesting"'; then pass "run --nvtx-include regex: guarded"; else fail "run --nvtx-include guard" "exit $rc"; fi
run_case env PERFCHECK_KERNELS='regex:(x|xx)+\1y' "$HELPER" config
if has "$tmp/out" "kernel_regex=(none)" && has "$tmp/err" 'rule "backref"'; then pass "PERFCHECK_KERNELS regex: guarded, one warning";
else fail "PERFCHECK_KERNELS guard" "$(cat "$tmp/out")"; fi
run_case env PERFCHECK_KERNELS='gemm' "$HELPER" config
if has "$tmp/out" 'kernel_regex=^(.*::)?gemm(<.*)?$'; then pass "PERFCHECK_KERNELS=gemm: exact function name";
else fail "exact kernel name" "$(cat "$tmp/out")"; fi
# The worst accepted pattern against a 1 KiB template name: fast.
python3 - "$T4" "$tmp/long.csv" <<'E'
import sys
t = open(sys.argv[1]).read()
open(sys.argv[2], "w").write(t.replace("mysteryB(", "mysteryB<" + "a" * 1024 + ">("))
E
run_case limit "$PC" check --quiet --expect 'regex:(.?){255}(.?){255}x:step>=0' "$tmp/long.csv"
if [ "$rc" = 1 ] && has "$tmp/out" "no kernel in the report matches"; then pass "worst accepted regex on a 1 KiB name: answered";
else fail "worst accepted regex" "exit $rc"; fi

# ---- regex cost linear in the name ----
# A kernel named 1 MiB of 'a' (exports allow 64 MiB names): regex:a+x took
# 50 s at 100 KB and did not finish in 120 s at 1 MB (glibc tries every
# start).  Under a 20 s CPU limit: answered, no match; then a match at the end.
python3 - "$T4" "$tmp" <<'E'
import sys
t = open(sys.argv[1]).read()
open(sys.argv[2] + "/long1m.csv", "w").write(t.replace("mysteryB(", "a" * 1048576 + "("))
open(sys.argv[2] + "/long1mx.csv", "w").write(t.replace("mysteryB(", "a" * 1048576 + "x("))
E
cpu20() { (ulimit -t 20; "$@"); }
run_case cpu20 "$PC" check --quiet --expect 'regex:a+x:launches>=1' "$tmp/long1m.csv"
if [ "$rc" = 1 ] && has "$tmp/out" "no kernel in the report matches"; then
  pass "regex:a+x on a 1 MiB name: answered (no match) under a 20 s CPU limit"; else fail "regex 1 MiB" "exit $rc"; fi
run_case cpu20 "$PC" check --quiet --expect 'regex:a+x:launches>=1' "$tmp/long1mx.csv"
if [ "$rc" = 0 ]; then pass "regex:a+x on a 1 MiB name ending in x: matches"; else fail "regex 1 MiB x" "exit $rc"; fi
run_case cpu20 "$PC" check --quiet --expect 'regex:(.?){255}(.?){255}x:launches>=1' "$tmp/long1m.csv"
if [ "$rc" = 1 ]; then pass "the worst accepted regex on a 1 MiB name: answered"; else fail "worst regex 1 MiB" "exit $rc"; fi
run_case "$PC" check --expect 'regex:\bmystery:step>=0' "$T4"
if [ "$rc" = 2 ] && has "$tmp/err" 'rule "boundary"'; then pass "regex \\b: refused by name (no look-around)"; else fail "regex \\b" "exit $rc"; fi
run_case "$PC" check --expect 'regex:((a{,255}){,255}){,255}:step>=0' "$T4"
if [ "$rc" = 2 ] && has "$tmp/err" 'rule "nesting"'; then pass "regex {,n} counts are guarded too"; else fail "regex {,n}" "exit $rc"; fi

# ==== perfcheck check: exit codes ===============================================

run_case "$PC" check --expect 'mysteryA:sectors_per_request_requets_ld<=4' "$T4"
if [ "$rc" = 2 ] && has "$tmp/err" 'did you mean "sectors_per_request_ld"'; then pass "check: unknown quantity is exit 2";
else fail "unknown quantity" "exit $rc"; fi
vg_case "unknown quantity" 2 "$PC" check --quiet --expect 'mysteryA:sector_per_request_ld<=4' "$T4"
run_case "$PC" check --expect 'mysteryB:cause==divergnt' "$T4"
if [ "$rc" = 2 ] && has "$tmp/err" "unknown cause word"; then pass "check: unknown cause word is exit 2"; else fail "unknown cause" "exit $rc"; fi
run_case "$PC" check --expect 'mysteryA:step 3' "$T4"
if [ "$rc" = 2 ] && has "$tmp/err" "column 15"; then pass "check: malformed spec is exit 2"; else fail "malformed spec" "exit $rc"; fi
run_case "$PC" check --expect 'mysteryA:sectors_per_request_ld<=1e-400' "$T4"
if [ "$rc" = 2 ] && has "$tmp/err" "out of range"; then pass "check: 1e-400 is out of range, not 0"; else fail "1e-400 spec" "exit $rc"; fi
run_case "$PC" check --expect 'mysteryD:step==0' "$T4"
if [ "$rc" = 1 ] && has "$tmp/out" 'no kernel named "mysteryD"'; then pass "check: a missing kernel is exit 1"; else fail "missing kernel" "exit $rc"; fi
run_case "$PC" check --expect 'mysteryA:sectors_per_request_ld<=4.5' "$T4"
if [ "$rc" = 1 ] && has "$tmp/out" "FAIL mysteryA: sectors_per_request_ld is 31.91"; then pass "check: a regression is exit 1"; else fail "regression" "exit $rc"; fi
if [ -w /dev/full ]; then
  "$PC" check --expect 'mysteryA:step==3' "$T4" >/dev/full 2>"$tmp/err"; rc=$?
  if [ "$rc" = 2 ]; then pass "check > /dev/full is exit 2 (not 1: nothing failed)"; else fail "check > /dev/full" "exit $rc"; fi
else skip "check > /dev/full" "no /dev/full"; fi
run_case "$PC" check --quiet --expect 'mysteryA:step==3' --junit "$tmp/no/such/j.xml" "$T4"
if [ "$rc" = 2 ] && [ ! -e "$tmp/no" ]; then pass "check --junit to a missing folder: exit 2"; else fail "junit missing folder" "exit $rc"; fi

# ==== merge ======================================================================

"$PC" diagnose --quiet --format json "$T4" >"$tmp/a.json"
"$PC" diagnose --quiet --format json "$H200" >"$tmp/b.json"
run_case "$PC" merge --format json "$tmp/a.json" "$tmp/b.json"
if [ "$rc" = 0 ] && json_ok "$tmp/out"; then pass "merge of two reports"; else fail "merge" "exit $rc"; fi
vg_case "merge" 0 "$PC" merge --quiet "$tmp/a.json" "$tmp/b.json"
printf '{"schema": "perfcheck-report/1",\n "kernels": [}\n' >"$tmp/bad.json"
run_case "$PC" merge "$tmp/a.json" "$tmp/bad.json"
if [ "$rc" = 2 ] && has "$tmp/err" "bad.json:2:"; then pass "merge of malformed JSON: exit 2, line named"; else fail "merge bad JSON" "exit $rc"; fi
sed 's/"launches": 1,/"launches": 1e-400,/' "$tmp/a.json" >"$tmp/tiny.json"
run_case "$PC" merge "$tmp/tiny.json"
if [ "$rc" = 2 ] && has "$tmp/err" "out of range"; then pass "merge: 1e-400 in JSON is out of range"; else fail "1e-400 JSON" "exit $rc"; fi
echo precious >"$tmp/victim2"
ln -s "$tmp/victim2" "$tmp/m.json"
run_case "$PC" merge --format json --output "$tmp/m.json" "$tmp/a.json"
if [ "$rc" = 0 ] && [ "$(cat "$tmp/victim2")" = precious ] && [ ! -L "$tmp/m.json" ] && json_ok "$tmp/m.json"; then
  pass "merge --output over a symlink: not followed"; else fail "merge symlink" "exit $rc"; fi
run_case "$PC" merge --output "$tmp/none/m.json" "$tmp/a.json"
if [ "$rc" = 2 ] && [ ! -e "$tmp/none" ]; then pass "merge --output to a missing folder: exit 2"; else fail "merge missing folder" "exit $rc"; fi

# ---- bounded memory (peak RSS of the child, by ratios) ----
# A writer-shaped report of 3000 kernel entries (~26 MB: several of the
# reader's 1 MiB chunks), made from the H200 report.
python3 - "$tmp/o_b.json" "$tmp/big.json" <<'E'
import json, sys
d = json.load(open(sys.argv[1]))
ks = d["kernels"]
d["kernels"] = []
for i in range(3000):
    k = json.loads(json.dumps(ks[i % len(ks)]))
    k["name"] = k["display_name"] = "%s_%d" % (k["name"], i)
    d["kernels"].append(k)
json.dump(d, open(sys.argv[2], "w"), indent=2)
E
# rss CMD...: runs CMD (output discarded), prints "EXIT PEAK_RSS_BYTES".
rss() { python3 -c 'import os,subprocess,sys; p=subprocess.Popen(sys.argv[1:],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL); _,s,ru=os.wait4(p.pid,0); print(os.waitstatus_to_exitcode(s), ru.ru_maxrss*1024)' "$@"; }
size=$(stat -c %s "$tmp/big.json")
if [ "$SAN" = 1 ]; then
  skip "JSON reader RSS" "ASan build (its shadow memory and quarantine are in the RSS)"
  skip "merge reads its inputs one at a time (RSS)" "ASan build (its shadow memory and quarantine are in the RSS)"
else
set -- $(rss "$PC" report --quiet -f json -o - "$tmp/o_a.json"); base=$2
set -- $(rss "$PC" report --quiet -f json -o - "$tmp/big.json"); rc=$1 peak=$2
if [ "$rc" = 0 ] && [ $((peak - base)) -le $((2 * size)) ]; then
  pass "JSON reader: RSS $(((peak - base) >> 20)) MiB over the baseline for a $((size >> 20)) MiB report (<= 2x)"
else fail "JSON reader RSS" "exit $rc, $(((peak - base) >> 20)) MiB for $((size >> 20)) MiB"; fi
set -- $(rss "$PC" merge --quiet -f json -o "$tmp/m1.json" "$tmp/big.json"); one=$2
set -- $(rss "$PC" merge --quiet -f json -o "$tmp/m8.json" "$tmp/big.json" "$tmp/big.json" "$tmp/big.json" "$tmp/big.json" \
  "$tmp/big.json" "$tmp/big.json" "$tmp/big.json" "$tmp/big.json"); rc=$1 eight=$2
if [ "$rc" = 0 ] && [ "$eight" -le $((one + one / 2)) ] && json_ok "$tmp/m8.json"; then
  pass "merge reads its inputs one at a time: 8 inputs take $((eight >> 20)) MiB, 1 takes $((one >> 20)) MiB"
else fail "merge streaming" "exit $rc, 8 inputs $((eight >> 20)) MiB, 1 input $((one >> 20)) MiB"; fi
fi
[ -e "$tmp/m8.json" ] || "$PC" merge --quiet -f json -o "$tmp/m8.json" "$tmp/big.json" "$tmp/big.json"
# What merge writes, its reader reads (the reader had a 1 GiB cap; merge
# wrote 1.3 GB reports): no cap now, and a value longer than a chunk.
run_case "$PC" merge --quiet -f json "$tmp/m8.json"
if [ "$rc" = 0 ] && json_ok "$tmp/out"; then pass "merge's own output reads back"; else fail "merge output read back" "exit $rc"; fi
python3 - "$tmp/o_a.json" "$tmp/longname.json" <<'E'
import json, sys
d = json.load(open(sys.argv[1]))
d["kernels"][0]["name"] = "k" + "x" * (3 << 20)  # one value of 3 MiB: three of the reader's chunks
json.dump(d, open(sys.argv[2], "w"))
E
run_case "$PC" report --quiet -f json -o - "$tmp/longname.json"
if [ "$rc" = 0 ] && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["kernels"][0]["name"]) == 3*2**20+1' "$tmp/out"; then
  pass "a 3 MiB value (longer than the reader's chunk) reads whole"; else fail "long value" "exit $rc"; fi
run_case sh -c "cat '$tmp/big.json' | '$PC' merge --quiet -f json /dev/stdin"
if [ "$rc" = 0 ] && json_ok "$tmp/out"; then pass "a JSON report through a pipe (streamed)"; else fail "JSON pipe" "exit $rc"; fi
head -c $((size / 2)) "$tmp/big.json" >"$tmp/half.json"
run_case "$PC" merge "$tmp/o_a.json" "$tmp/half.json" "$tmp/o_b.json"
if [ "$rc" = 2 ] && has "$tmp/err" "half.json:" && [ ! -s "$tmp/out" ]; then
  pass "merge: a report cut in half (the second of three): exit 2, that file named"; else fail "merge cut input" "exit $rc"; fi
vg_case "merge of a cut report" 2 "$PC" merge --quiet "$tmp/o_a.json" "$tmp/half.json"
rm -f "$tmp/big.json" "$tmp/m1.json" "$tmp/m8.json" "$tmp/half.json" "$tmp/longname.json"

# ---- secure_getenv, Python ----
if [ -n "$PROBE" ]; then
  bash "$HERE/../secure_env_test.sh" "$PROBE" $([ "$SAN" = 1 ] && echo --sanitized) >"$tmp/out" 2>"$tmp/err"
  rc=$?
  if [ "$rc" = 0 ]; then pass "a setuid program reads no variable (secure_getenv, AT_SECURE): $(grep -c '^ok' "$tmp/out") checks"
  elif [ "$rc" = 77 ]; then skip "secure_getenv under AT_SECURE" "$(grep SKIP "$tmp/out")"
  else fail "secure_getenv under AT_SECURE" "$(grep FAIL "$tmp/out" | head -3)"; fi
else skip "secure_getenv under AT_SECURE" "no probe given"; fi
LIBPC=$(dirname "$SHIM")/libperfcheck.so
if command -v nm >/dev/null 2>&1 && [ -e "$LIBPC" ]; then
  if nm -D --undefined-only "$LIBPC" "$SHIM" | grep -qw 'getenv'; then fail "no getenv import" "$(nm -D --undefined-only "$LIBPC" | grep -w getenv)"
  else pass "libperfcheck.so and the injection library import secure_getenv only (no getenv)"; fi
else skip "no getenv import" "no nm or no libperfcheck.so beside the shim"; fi
if [ -n "$PYDIR" ] && [ "$SAN" = 0 ] && [ -e "$LIBPC" ]; then
  py() { PYTHONPATH="$PYDIR" PERFCHECK_LIBRARY="$LIBPC" python3 - "$@"; }
  echo precious >"$tmp/victim_py"
  ln -sf "$tmp/victim_py" "$tmp/py_link.json"
  mkfifo "$tmp/py_fifo"
  py "$T4" "$tmp" >"$tmp/out" 2>"$tmp/err" <<'E'
import os, stat, sys
import perfcheck
r = perfcheck.diagnose(sys.argv[1], quiet=True)
t = sys.argv[2]
r.save(t + "/py_link.json")                       # a symlink: replaced, not followed
assert open(t + "/victim_py").read() == "precious\n"
assert not os.path.islink(t + "/py_link.json") and perfcheck.load(t + "/py_link.json").to_dict() == r.to_dict()
try:
    r.save(t + "/py_fifo")
    sys.exit("saved into a FIFO")
except perfcheck.PerfcheckError as e:
    assert "FIFO" in str(e), e
assert stat.S_ISFIFO(os.lstat(t + "/py_fifo").st_mode)
print("save ok")
for call in (lambda: perfcheck.diagnose(sys.argv[1] + "\0.evil"), lambda: r.save(t + "/x.json\0.evil"),
             lambda: perfcheck.load(t + "/py_link.json\0x")):
    try:
        call()
        sys.exit("a NUL in a path was taken")
    except ValueError:
        pass
assert not os.path.exists(t + "/x.json")
print("nul ok")
E
  rc=$?
  if [ "$rc" = 0 ] && has "$tmp/out" "save ok"; then pass "Python Report.save: a symlink replaced, a FIFO refused (the one output function)"; else
    fail "Python save" "exit $rc: $(tail -2 "$tmp/err")"; fi
  if [ "$rc" = 0 ] && has "$tmp/out" "nul ok"; then pass "Python: a path with a NUL byte is ValueError (diagnose, save, load)"; else
    fail "Python NUL" "exit $rc"; fi
  rm -f "$tmp/py_fifo" "$tmp/py_link.json" "$tmp/victim_py"
else
  skip "Python Report.save" "no python package given (or an ASan build)"
  skip "Python NUL paths" "no python package given (or an ASan build)"
fi

# ==== perfcheck run: programs, signals, environment ============================

run_case "$PC" run -- "$tmp/no-such-program"
if [ "$rc" = 127 ] && has "$tmp/err" "cannot run"; then pass "run: missing program is 127"; else fail "missing program" "exit $rc"; fi
mkdir -p "$tmp/adir"
run_case "$PC" run -- "$tmp/adir"
if [ "$rc" = 126 ]; then pass "run: a folder is 126"; else fail "folder" "exit $rc"; fi
if ! san_skip "run: programs and signals"; then
run_case "$PC" run -- sh -c 'echo out; echo err >&2; exit 7'
if [ "$rc" = 7 ] && [ "$(cat "$tmp/out")" = out ] && [ "$(cat "$tmp/err")" = err ]; then pass "run: output and exit status unchanged";
else fail "output unchanged" "exit $rc"; fi
run_case "$PC" run -- sh -c 'kill -TERM $$'
if [ "$rc" = 143 ]; then pass "run: death by signal is 128+N"; else fail "signal death" "exit $rc"; fi
# (Job control on: a script's background job would start with INT and QUIT
# ignored, and a shell cannot trap a signal ignored on entry.)
for sig in HUP INT QUIT TERM USR1 USR2 WINCH CONT; do
  rm -f "$tmp/out" # "ready" must come from this run
  set -m
  "$PC" run -- sh -c "trap 'echo got $sig; exit 5' $sig; echo ready; while :; do sleep 0.05; done" >"$tmp/out" 2>"$tmp/err" &
  pid=$!
  set +m
  for _ in $(seq 100); do grep -q ready "$tmp/out" 2>/dev/null && break; sleep 0.05; done
  kill -"$sig" "$pid"
  # The watchdog is a subshell, which has our EXIT trap until its first
  # command runs: a SIGTERM in that window ran `rm -rf "$tmp"` (seen in CI
  # under load after the fast SIGCONT case), so it is ended with SIGKILL,
  # which runs no trap.
  (trap - EXIT; sleep 10; kill -9 "$pid" 2>/dev/null) & watchdog=$!
  wait "$pid"
  rc=$?
  kill -9 "$watchdog" 2>/dev/null; wait "$watchdog" 2>/dev/null
  if [ "$rc" = 5 ] && has "$tmp/out" "got $sig"; then pass "run forwards SIG$sig, the program's exit status stays"; else
    fail "SIG$sig" "exit $rc: $(cat "$tmp/out")"; fi
done
fi
PLAINPROG=${PLAIN:-/bin/echo}
direct_out=$("$PLAINPROG" 4 2>/dev/null; echo "rc=$?")
direct_err=$("$PLAINPROG" 4 2>&1 >/dev/null)
# same_program: the program's stdout, stderr (but perfcheck's one line) and
# exit status as when run directly.
same_program() {
  [ "$(cat "$tmp/out"; echo "rc=$rc")" = "$direct_out" ] && [ "$(grep -v '^perfcheck: ' "$tmp/err")" = "$direct_err" ] &&
    [ "$(grep -c '^perfcheck: ' "$tmp/err")" = 1 ]
}
run_case env PERFCHECK_INJECT_LIB=/bin/ls "$PC" run -- "$PLAINPROG" 4
if same_program && has "$tmp/err" "PERFCHECK_INJECT_LIB=/bin/ls is not perfcheck's injection library"; then
  pass "PERFCHECK_INJECT_LIB=/bin/ls: one line, program unchanged"; else fail "INJECT_LIB=/bin/ls" "exit $rc"; fi
run_case env PERFCHECK_INJECT_LIB="$tmp/missing.so" "$PC" run -- "$PLAINPROG" 4
if same_program && has "$tmp/err" "profiling off"; then pass "PERFCHECK_INJECT_LIB missing: one line, program unchanged";
else fail "INJECT_LIB missing" "exit $rc"; fi
run_case "$PC" run -m timing -- true
if [ "$rc" = 2 ] && has "$tmp/err" "unknown option '-m'"; then pass "run -m: no such short option (one meaning per letter)"; else fail "run -m" "exit $rc"; fi
run_case "$PC" metrics -s default
if [ "$rc" = 2 ]; then pass "metrics -s: no such short option"; else fail "metrics -s" "exit $rc"; fi

# The shim leaves a program that never touches CUDA alone: no variable added.
if ! san_skip "shim: programs without CUDA"; then
run_case env -u CUDA_INJECTION64_PATH -u NVTX_INJECTION64_PATH LD_PRELOAD="$SHIM_PRELOAD" sh -c 'echo "${CUDA_INJECTION64_PATH-unset} ${NVTX_INJECTION64_PATH-unset}"'
if [ "$rc" = 0 ] && [ "$(cat "$tmp/out")" = "unset unset" ] && [ ! -s "$tmp/err" ]; then pass "shim: no variable added to a program without CUDA";
else fail "shim environment" "$(cat "$tmp/out")"; fi
if [ -n "$PLAIN" ]; then
  direct=$("$PLAIN" 3 2>&1; echo "rc=$?")
  got=$(LD_PRELOAD="$SHIM_PRELOAD" "$PLAIN" 3 2>&1; echo "rc=$?")
  if [ "$got" = "$direct" ]; then pass "shim: a program without CUDA unchanged"; else fail "shim plain program" "$got"; fi
fi
fi

# No driver, and the toolkit's stub driver: a CUDA program runs as it would,
# with one "profiling off" line.
if [ -n "$APP" ] && [ -x "$APP" ]; then
  for envname in stub none; do
    if [ "$envname" = stub ]; then
      [ -n "$STUB" ] && [ -e "$STUB/libcuda.so.1" ] || { skip "CUDA program, stub driver" "no stub"; continue; }
      E=(env LD_LIBRARY_PATH="$STUB")
    else
      if python3 -c 'import ctypes; ctypes.CDLL("libcuda.so.1")' >/dev/null 2>&1; then skip "CUDA program, no driver" "this machine has a driver"; continue; fi
      E=(env)
    fi
    direct_out=$("${E[@]}" "$APP" 2>/dev/null; echo "rc=$?")
    "${E[@]}" "$PC" run -- "$APP" >"$tmp/out" 2>"$tmp/err"; rc=$?
    got_out=$(cat "$tmp/out"; echo "rc=$rc")
    lines=$(grep -c '^perfcheck: ' "$tmp/err")
    if [ "$got_out" = "$direct_out" ] && [ "$lines" = 1 ] && has "$tmp/err" "perfcheck: profiling off: "; then
      pass "CUDA program, $envname driver: unchanged, one line"; else fail "CUDA program, $envname driver" "$lines perfcheck lines"; fi
  done
else
  skip "CUDA program, no/stub driver" "no CUDA program built (no nvcc)"
fi

# ==== CI gates, honest numbers, outputs that follow their names, limits ========
# (docs/cli.md, "Errors, limits and exit codes", says what each case gets.)

"$PC" diagnose --quiet --format json "$H200" >"$tmp/g_base.json"
# The same report with mysteryA twice as slow (every duration doubled): a
# regression against g_base.json.
python3 - "$tmp/g_base.json" "$tmp/g_worse.json" <<'E'
import json, sys
d = json.load(open(sys.argv[1]))
for k in d["kernels"]:
    if k["name"] == "mysteryA":
        for key in ("min", "median", "max"):
            k["duration_ns"][key] *= 2
        k["total_ns"] *= 2
        k["metrics"]["gpu__time_duration.sum"] *= 2
json.dump(d, open(sys.argv[2], "w"), indent=1)
E
# TESTS FAILURES FAILURE_ELEMENTS of the JUnit file (its testsuites element).
junit_count() { python3 -c 'import sys, xml.etree.ElementTree as T; r=T.parse(sys.argv[1]).getroot(); print(r.get("tests"), r.get("failures"), sum(1 for _ in r.iter("failure")))' "$1" 2>/dev/null; }
# summary FILE: "FAILED TOTAL" from check's summary line.
summary() { sed -n 's/^perfcheck check: \([0-9]*\) of \([0-9]*\) checks\{0,1\} failed.*/\1 \2/p' "$1"; }

# -- check: the JUnit file and the exit status agree, baseline included.
rm -f "$tmp/j1.xml"
run_case "$PC" check --baseline "$tmp/g_base.json" --junit "$tmp/j1.xml" "$tmp/g_worse.json"
set -- $(junit_count "$tmp/j1.xml") x x x; jt=$1 jf=$2 jfe=$3
set -- $(summary "$tmp/out") x x; sf=$1 st=$2
if [ "$rc" = 1 ] && [ "$jf" != x ] && [ "$jf" -ge 1 ] && [ "$jf" = "$jfe" ] && [ "$sf" = "$jf" ] && [ "$st" = "$jt" ] &&
  grep -q 'mysteryA' "$tmp/j1.xml"; then
  pass "check --baseline --junit: a regression is exit 1 and a JUnit failure ($jf of $jt), the summary counts the same"
else fail "check --baseline --junit" "exit $rc, junit '$jt $jf', summary '$sf $st'"; fi
run_case "$PC" check --baseline "$tmp/g_base.json" -e 'mysteryA:step==3' --junit "$tmp/j2.xml" "$tmp/g_worse.json"
set -- $(junit_count "$tmp/j2.xml") x x x; jt=$1 jf=$2
set -- $(summary "$tmp/out") x x; sf=$1 st=$2
if [ "$rc" = 1 ] && [ "$jf" != x ] && [ "$jf" -ge 1 ] && [ "$sf" = "$jf" ] && [ "$st" = "$jt" ] && [ "$jt" -ge 2 ]; then
  pass "check --baseline -e --junit: the JUnit file has the expectation and the regression ($jf of $jt failed)"
else fail "check --baseline -e --junit" "exit $rc, junit '$jt $jf', summary '$sf $st'"; fi
run_case "$PC" check --baseline "$tmp/g_base.json" --junit "$tmp/j3.xml" "$tmp/g_base.json"
set -- $(junit_count "$tmp/j3.xml") x x x; jt=$1 jf=$2
set -- $(summary "$tmp/out") x x; sf=$1 st=$2
if [ "$rc" = 0 ] && [ "$jf" = 0 ] && [ "$jt" != x ] && [ "$jt" -ge 1 ] && [ "$sf" = 0 ] && [ "$st" = "$jt" ]; then
  pass "check --baseline --junit, nothing worse: exit 0, $jt passing testcases, 0 failures"
else fail "check --baseline, nothing worse" "exit $rc, junit '$jt $jf', summary '$sf $st'"; fi
if [ -w /dev/full ]; then
  "$PC" check --baseline "$tmp/g_base.json" "$tmp/g_worse.json" >/dev/full 2>"$tmp/err"; rc=$?
  r1=$rc
  "$PC" check --baseline "$tmp/g_base.json" "$tmp/g_base.json" >/dev/full 2>"$tmp/err"; rc=$?
  if [ "$r1" = 2 ] && [ "$rc" = 2 ]; then pass "check --baseline > /dev/full: exit 2 (a lost result is neither pass nor fail)"
  else fail "check --baseline > /dev/full" "exit $r1 (worse), $rc (same)"; fi
else skip "check --baseline > /dev/full" "no /dev/full"; fi
out_case "check --baseline --junit DEVICE: exit 2, the device stays" 2 is_chr "$DEV" \
  "$PC" check --quiet --baseline "$tmp/g_base.json" --junit "$DEV" "$tmp/g_worse.json"
# `-- PROGRAM` that exits non-zero: exit 1 and a failed testcase that says so.
if ! san_skip "check -- PROGRAM exit status in JUnit"; then
  run_case "$PC" check -e 'mysteryA:step==3' --junit "$tmp/j4.xml" -- \
    sh -c 'PERFCHECK_ROOT_PID= "$1" deliver "$PERFCHECK_OUTPUT" json "$2"; exit 3' sh "$HELPER" "$T4"
  set -- $(junit_count "$tmp/j4.xml") x x x; jt=$1 jf=$2
  if [ "$rc" = 2 ] && has "$tmp/err" "built without the CUDA toolkit"; then
    skip "check -- PROGRAM exit status in JUnit" "a build without CUDA runs no PROGRAM"
  elif [ "$rc" = 1 ] && [ "$jf" = 1 ] && [ "$jt" = 2 ] && grep -q 'exited with status 3' "$tmp/j4.xml"; then
    pass "check -- PROGRAM exiting 3: exit 1 and a JUnit failure for the exit status"
  else fail "check -- PROGRAM exit status in JUnit" "exit $rc, junit '$jt $jf'"; fi
fi

# -- FLOPs: a bad FP32 term makes flops, gflops and intensity null, never a partial sum.
python3 - "$H200" "$tmp" <<'E'
import csv, io, sys
rows = list(csv.reader(open(sys.argv[1], newline="", encoding="latin-1")))
head = rows[0]
ffma = head.index("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum")
def write(name, rows):
    b = io.StringIO()
    csv.writer(b, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
    open("%s/%s" % (sys.argv[2], name), "w", newline="", encoding="latin-1").write(b.getvalue())
for tag, val in (("nan", "nan"), ("bad", "abc"), ("empty", "")):
    r = [list(x) for x in rows]
    for x in r[2:]:
        if x[head.index("Kernel Name")].startswith(("mysteryA", "mysteryB")):
            x[ffma] = val
    write("flops_%s.csv" % tag, r)
r = [[c for i, c in enumerate(x) if i != ffma] for x in rows]
write("flops_nocol.csv", r)
E
for tag in nan bad empty nocol; do
  run_case "$PC" diagnose -v --format json "$tmp/flops_$tag.csv"
  got=$(kval mysteryB 'k["derived"]["flops"], k["derived"]["gflops"], k["derived"]["arithmetic_intensity"]')
  if [ "$rc" = 0 ] && [ "$got" = "(None, None, None)" ] && has "$tmp/err" "flops, gflops and arithmetic_intensity are null"; then
    pass "FFMA count $tag: flops, gflops and intensity null with a warning (never a partial sum)"
  else fail "FFMA $tag" "exit $rc: $got"; fi
done
# mysteryA's only FP32 work is FFMA (FADD and FMUL read 0): a partial sum was 0.
run_case "$PC" check --quiet -e 'mysteryA:flops<=0' "$tmp/flops_nan.csv"
if [ "$rc" = 1 ] && has "$tmp/out" "was not measured"; then pass "check -e 'mysteryA:flops<=0' with a NaN FFMA: fails (not measured)"
else fail "flops<=0 passes" "exit $rc"; fi
"$PC" diagnose --quiet --format json "$H200" >"$tmp/out"
# (an FMA is two: FP32, FP64 and FP16 counts, all measured in this export)
if [ "$(kval mysteryB 'k["derived"]["flops"] == sum(w * k["metrics"]["smsp__sass_thread_inst_executed_op_%s_pred_on.sum" % op] for op, w in (("ffma", 2), ("fadd", 1), ("fmul", 1), ("dfma", 2), ("dadd", 1), ("dmul", 1), ("hfma", 2), ("hadd", 1), ("hmul", 1)))')" = True ]; then
  pass "whole counts still give flops (2 FMA + ADD + MUL over FP32, FP64, FP16)"; else fail "whole flops" "$(kval mysteryB 'k["derived"]["flops"]')"; fi

# -- An empty unit under a duration or byte column is no unit at all: not read.
python3 - "$H200" "$tmp/unit_empty.csv" <<'E'
import csv, io, sys
rows = list(csv.reader(open(sys.argv[1], newline="", encoding="latin-1")))
head, units = rows[0], rows[1]
for n in ("gpu__time_duration.sum", "dram__bytes_read.sum"):
    units[head.index(n)] = ""
b = io.StringIO()
csv.writer(b, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
open(sys.argv[2], "w", newline="", encoding="latin-1").write(b.getvalue())
E
run_case "$PC" diagnose -v --format json "$tmp/unit_empty.csv"
if [ "$rc" = 0 ] && [ "$(kval mysteryA 'k["metrics"]["gpu__time_duration.sum"], k["metrics"]["dram__bytes_read.sum"]')" = "(None, None)" ] &&
  has "$tmp/err" "column gpu__time_duration.sum: no unit" && has "$tmp/err" "column dram__bytes_read.sum: no unit"; then
  pass "an empty unit cell under a duration or byte column: not read (null, one warning each), never base units"
else fail "empty unit cell" "exit $rc: $(kval mysteryA 'k["metrics"]["gpu__time_duration.sum"]')"; fi

# -- The format follows the output name; a conflicting flag is refused.
for ext in json csv html txt; do
  rm -f "$tmp/f.$ext"
  run_case "$PC" diagnose --quiet -o "$tmp/f.$ext" "$T4"
  case $ext in
    json) ok() { json_ok "$1"; } ;;
    csv) ok() { head -c 5 "$1" | grep -q '^name,'; } ;;
    html) ok() { head -c 100 "$1" | grep -qi '<!doctype html'; } ;;
    txt) ok() { head -c 12 "$1" | grep -q '^perfcheck'; } ;;
  esac
  if [ "$rc" = 0 ] && ok "$tmp/f.$ext"; then pass "diagnose -o f.$ext writes $ext"; else fail "diagnose -o f.$ext" "exit $rc: $(head -c 40 "$tmp/f.$ext")"; fi
done
run_case "$PC" report -f csv -o "$tmp/c.json" "$T4"
if [ "$rc" = 2 ] && [ ! -e "$tmp/c.json" ] && has "$tmp/err" "c.json" && has "$tmp/err" "json"; then
  pass "report -f csv -o c.json: refused (exit 2), nothing written"; else fail "format against the name" "exit $rc"; fi
cp "$tmp/g_base.json" "$tmp/m_a.json"
run_case "$PC" merge -o "$tmp/m_a.json" "$tmp/m_a.json" "$tmp/o_b.json"
if [ "$rc" = 0 ] && json_ok "$tmp/m_a.json" && "$PC" check -q -e 'mysteryA:launches>=1' "$tmp/m_a.json" >/dev/null 2>&1; then
  pass "merge -o a.json a.json b.json: a.json is the merged JSON report, readable back"; else fail "merge over its input" "exit $rc"; fi
cp "$T4" "$tmp/in.csv"
run_case "$PC" report -o "$tmp/in.csv" "$tmp/in.csv"
if [ "$rc" = 2 ] && cmp -s "$T4" "$tmp/in.csv" && has "$tmp/err" "is also an input"; then
  pass "report -o in.csv in.csv: refused (CSV could not be read back), the input untouched"; else fail "output over an input" "exit $rc"; fi
cp "$tmp/g_base.json" "$tmp/jin.json"
run_case "$PC" check -q -e 'mysteryA:step==3' --junit "$tmp/jin.json" "$tmp/jin.json"
if [ "$rc" = 2 ] && cmp -s "$tmp/g_base.json" "$tmp/jin.json"; then
  pass "check --junit R.json R.json: refused, the report untouched"; else fail "junit over the input" "exit $rc"; fi

# -- Conflicting output flags.
for args in "report --html $tmp/x1.html -o $tmp/x1.txt" "report --html $tmp/x2.html -f csv" "report -o $tmp/x3.txt -o $tmp/x4.txt" \
  "diagnose --csv -f json" "diagnose -f json --csv" "merge -f json -o $tmp/x5.csv"; do
  set -- $args
  run_case "$PC" "$@" "$T4"
  if [ "$rc" = 2 ] && [ ! -s "$tmp/out" ] && [ -z "$(ls "$tmp"/x[0-9]* 2>/dev/null)" ]; then
    pass "conflicting output flags refused: perfcheck $args"; else fail "conflicting flags: $args" "exit $rc"; fi
done

# -- Exit codes as the help says.
if [ -w /dev/full ]; then
  for args in "metrics" "--help" "help diagnose" "diagnose --help" "--version" "metrics --list-sets"; do
    "$PC" $args >/dev/full 2>"$tmp/err"; rc=$?
    if [ "$rc" = 2 ] && has "$tmp/err" "stdout"; then pass "perfcheck $args > /dev/full: exit 2"; else fail "$args > /dev/full" "exit $rc"; fi
  done
else skip "help > /dev/full" "no /dev/full"; fi
if "$PC" --help | grep -q "stdout"; then pass "--help says what a failed write to stdout exits"; else fail "--help exit codes" "not said"; fi

# -- Endless input that is not CSV stops after a bounded look for a header.
run_case timeout 120 sh -c "yes | '$PC' diagnose -"
if [ "$rc" = 2 ] && has "$tmp/err" "no header row in the first"; then pass "yes | diagnose -: exit 2 after a bounded look for a header"
else fail "yes | diagnose" "exit $rc"; fi
run_case timeout 120 sh -c "yes | '$PC' diagnose --wall-time 1s -"
if [ "$rc" = 2 ] && has "$tmp/err" "in the first"; then pass "yes | diagnose --wall-time 1s -: exit 2 after a bounded look"
else fail "yes | diagnose nsys" "exit $rc"; fi

# -- A duplicated metric column whose copies disagree: warned, not read.
python3 - "$H200" "$tmp/dupcol.csv" <<'E'
import csv, io, sys
rows = list(csv.reader(open(sys.argv[1], newline="", encoding="latin-1")))
c = rows[0].index("dram__bytes_read.sum")
out = []
for i, r in enumerate(rows):
    v = r[c]
    if i >= 2 and r[rows[0].index("Kernel Name")].startswith("mysteryA"):
        v = "1.000000"
    out.append(r + [v])
b = io.StringIO()
csv.writer(b, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(out)
open(sys.argv[2], "w", newline="", encoding="latin-1").write(b.getvalue())
E
run_case "$PC" diagnose -v --format json "$tmp/dupcol.csv"
if [ "$rc" = 0 ] && [ "$(kval mysteryA 'k["metrics"]["dram__bytes_read.sum"]')" = None ] &&
  [ "$(kval mysteryB 'k["metrics"]["dram__bytes_read.sum"] > 1e7')" = True ] && has "$tmp/err" "dram__bytes_read.sum" &&
  has "$tmp/err" "disagree"; then
  pass "two dram__bytes_read.sum columns that disagree: warned, null where they differ, read where they agree"
else fail "duplicated column" "exit $rc: $(kval mysteryA 'k["metrics"]["dram__bytes_read.sum"]')"; fi

# -- CSV cells that a spreadsheet would take for a formula are neutralised.
python3 - "$H200" "$tmp/formula.csv" <<'E'
import csv, io, sys
rows = list(csv.reader(open(sys.argv[1], newline="", encoding="latin-1")))
ki = rows[0].index("Kernel Name")
names = ['=HYPERLINK("http://x")', "+1+cmd", "-2+cmd", "@SUM(A1)"]
for r, n in zip(rows[2:], names):
    r[ki] = n
b = io.StringIO()
csv.writer(b, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
open(sys.argv[2], "w", newline="", encoding="latin-1").write(b.getvalue())
E
run_case "$PC" diagnose --quiet --format csv "$tmp/formula.csv"
if [ "$rc" = 0 ] && python3 - "$tmp/out" <<'E'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
names = sorted(r["name"] for r in rows)
assert names and all(n[0] == "'" for n in names), names
assert all(r[k][:1] not in ("=", "+", "-", "@") for r in rows for k in ("name", "display_name", "advice", "region")), rows
assert "'=HYPERLINK" in names and "'@SUM" in names and "'-2+cmd" in names, names
E
then pass "CSV: cells beginning with = + - @ get a leading quote (no formula in a spreadsheet)"; else fail "CSV formulas" "exit $rc"; fi

# -- Bad values of the on/off variables get the same one-line warning.
for v in PERFCHECK_VERBOSE=yes PERFCHECK_ROTATE_SESSION=2; do
  run_case env "$v" "$HELPER" config
  if [ "$rc" = 0 ] && [ "$(grep -c "${v%%=*}=\"${v#*=}\" is not 0 or 1" "$tmp/err")" = 1 ]; then pass "$v: one warning line"; else
    fail "$v warning" "$(cat "$tmp/err")"; fi
done

# -- Messages that say what is really wrong.
run_case "$PC" diagnose "$T4" "$H200"
if [ "$rc" = 2 ] && has "$tmp/err" "one export at a time" && has "$tmp/err" "perfcheck merge"; then
  pass "diagnose A.csv B.csv: one export at a time (merge for two)"; else fail "two exports" "exit $rc"; fi
echo '[{"schema": "perfcheck-report/2"}]' >"$tmp/arr.json"
run_case "$PC" diagnose "$tmp/arr.json"
if [ "$rc" = 2 ] && has "$tmp/err" "a JSON array" && ! has "$tmp/err" "no header row"; then
  pass "a JSON array: named as such"; else fail "JSON array message" "exit $rc"; fi
python3 -c 'import sys; open(sys.argv[2], "wb").write(open(sys.argv[1], "rb").read().decode("latin-1").encode("utf-16"))' "$T4" "$tmp/u16.csv"
run_case "$PC" diagnose "$tmp/u16.csv"
if [ "$rc" = 2 ] && has "$tmp/err" "UTF-16" && has "$tmp/err" "iconv"; then pass "a UTF-16 export: named UTF-16, with the conversion"
else fail "UTF-16 message" "exit $rc"; fi
gzip -c "$T4" | gzip -c >"$tmp/twice.gz"
run_case "$PC" diagnose "$tmp/twice.gz"
if [ "$rc" = 2 ] && has "$tmp/err" "compressed twice"; then pass "a double gzip: named as such"; else fail "double gzip message" "exit $rc"; fi
printf '\037\213' >"$tmp/g2.gz"
run_case "$PC" diagnose "$tmp/g2.gz"
if [ "$rc" = 2 ] && has "$tmp/err" "gzip" && ! has "$tmp/err" "empty file"; then pass "a 2-byte gzip: a cut-short gzip, not an empty file"
else fail "2-byte gzip message" "exit $rc"; fi

# -- No hidden cap on distinct kernels: 25,000 signatures, every row kept.
python3 - "$tmp/many.csv" <<'E'
import sys
with open(sys.argv[1], "w") as f:
    f.write('"Kernel Name","gpu__time_duration.sum","launch__grid_size","launch__block_size"\n"","nsecond","",""\n')
    for i in range(25000):
        f.write('"k_%d(float*)","%d","%d","256"\n' % (i, 1000 + i, 1 + i % 64))
E
# k_24999's share of the 25,000 kernels' time: 25999 ns of sum(1000..25999) ns.
run_case "$PC" check --quiet -e 'k_24999:launches==1' -e 'k_24999:kernel_time_share within 0.1% of 7.703693e-05' \
  -e 'k_0:kernel_time_share within 0.1% of 2.963073e-06' "$tmp/many.csv"
if [ "$rc" = 0 ]; then pass "25,000 distinct kernels: every one kept, time shares over all of them (no 20,000 cap)"
else fail "kernel cap" "exit $rc: $(head -3 "$tmp/out")"; fi
rm -f "$tmp/many.csv"

# -- An interrupted or size-limited write leaves no temporary behind.
for sig in TERM INT; do
  echo old >"$tmp/intr.json"
  run_case "$HELPER" interrupt "$tmp/intr.json" "$sig"
  if [ "$(cat "$tmp/intr.json")" = old ] && [ -z "$(ls -A "$tmp" | grep -v '^intr.json$' | grep '^\.intr')" ] &&
    [ "$rc" = $((128 + $(kill -l "$sig"))) ]; then pass "SIG$sig in the middle of a write: the old file whole, no temporary"
  else fail "SIG$sig mid-write" "exit $rc: $(ls -A "$tmp" | grep intr)"; fi
done
echo old >"$tmp/fsz.html"
(ulimit -f 2; exec "$PC" report --quiet --html "$tmp/fsz.html" "$H200") >/dev/null 2>&1
rc=$?
if [ "$(cat "$tmp/fsz.html")" = old ] && [ -z "$(ls -A "$tmp" | grep '^\.fsz')" ]; then
  pass "ulimit -f with SIGXFSZ's default (the process dies mid-write, exit $rc): no temporary left"
else fail "SIGXFSZ mid-write" "exit $rc: $(ls -A "$tmp" | grep fsz)"; fi

# -- perfcheck run: the program ends with perfcheck; ALRM and PIPE are passed on.
if ! san_skip "run: the program dies with perfcheck"; then
  rm -f "$tmp/child.pid"
  "$PC" run -- sh -c "echo \$\$ >'$tmp/child.pid'; exec sleep 60" >/dev/null 2>&1 &
  rp=$!
  for _ in $(seq 100); do [ -s "$tmp/child.pid" ] && break; sleep 0.05; done
  cp=$(cat "$tmp/child.pid" 2>/dev/null)
  kill -9 "$rp" 2>/dev/null; wait "$rp" 2>/dev/null
  # Gone: no such process, or a zombie (dead, waiting for whoever adopted
  # it to reap it: in a container that may be a pid 1 that never does).
  gone=0
  for _ in $(seq 100); do
    if [ -n "$cp" ] && { ! kill -0 "$cp" 2>/dev/null || [ "$(sed 's/.*) //' "/proc/$cp/stat" 2>/dev/null | cut -c1)" = Z ]; }; then
      gone=1; break; fi
    sleep 0.05
  done
  if [ -n "$cp" ] && [ "$gone" = 1 ]; then pass "perfcheck run killed (SIGKILL): its program ends too (PR_SET_PDEATHSIG)"
  else fail "run SIGKILL" "program $cp still running"; [ -n "$cp" ] && kill -9 "$cp" 2>/dev/null; fi
  for sig in ALRM PIPE; do
    rm -f "$tmp/out"
    set -m
    "$PC" run -- sh -c "trap 'echo got $sig; exit 5' $sig; echo ready; while :; do sleep 0.05; done" >"$tmp/out" 2>"$tmp/err" &
    pid=$!
    set +m
    for _ in $(seq 100); do grep -q ready "$tmp/out" 2>/dev/null && break; sleep 0.05; done
    kill -"$sig" "$pid"
    (trap - EXIT; sleep 10; kill -9 "$pid" 2>/dev/null) & watchdog=$!
    wait "$pid"
    rc=$?
    kill -9 "$watchdog" 2>/dev/null; wait "$watchdog" 2>/dev/null
    if [ "$rc" = 5 ] && has "$tmp/out" "got $sig"; then pass "run forwards SIG$sig, the program's exit status stays"; else
      fail "SIG$sig" "exit $rc: $(cat "$tmp/out")"; fi
  done
fi


echo
echo "$passed passed, $failed failed${skipped:+, $skipped skipped}"
[ "$failed" = 0 ]
