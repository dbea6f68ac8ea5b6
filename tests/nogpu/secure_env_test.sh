#!/usr/bin/env bash
# nogpu.secure_getenv: a privileged process (setuid,
# setgid, file capabilities: the kernel's AT_SECURE) reads no variable.
# The probe (secure_env_probe.c) runs as an unprivileged user twice, with
# every variable the library knows set: as a plain program (it must read
# them: the test can fail) and setuid root (it must read none: defaults,
# no rank, %q{VAR} gives the pid).  Needs root (to make the setuid copy),
# setpriv (util-linux) and the user nobody; else exit 77 with the reason.
#
#   secure_env_test.sh PROBE [--sanitized]
set -u
probe=$1
[ "${2:-}" = --sanitized ] && { echo "SKIP: an ASan build (ASan refuses to run setuid)"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root, to make a setuid-root copy of the probe"; exit 77; }
command -v setpriv >/dev/null 2>&1 || { echo "SKIP: no setpriv (util-linux) to run the probe as another user"; exit 77; }
id nobody >/dev/null 2>&1 || { echo "SKIP: no user nobody"; exit 77; }
group=$(id -gn nobody)
# A folder every user can enter (the build tree may sit in a 0700 home, or
# a path with spaces), outside any nosuid mount we can see.
d=$(mktemp -d /tmp/pc-secure-env.XXXXXX) || exit 1
trap 'rm -rf "$d"' EXIT
chmod 755 "$d"
cp "$probe" "$d/plain" && cp "$probe" "$d/setuid" || exit 1
chown root:root "$d/plain" "$d/setuid" && chmod 755 "$d/plain" && chmod 4755 "$d/setuid" || exit 1
vars=(PC_PROBE_CONTROL=on PERFCHECK_MODE=timing PERFCHECK_METRICS=sol PERFCHECK_KERNELS=gemm
  PERFCHECK_LAUNCH_SKIP=3 PERFCHECK_LAUNCH_COUNT=4 PERFCHECK_PER_SIGNATURE=2 PERFCHECK_PROGRESS=1
  PERFCHECK_OUTPUT=/tmp/pc-secure-env-report.json PERFCHECK_FORMAT=json PERFCHECK_NVTX=train_step
  RANK=3 WORLD_SIZE=8 LOCAL_RANK=1 PC_PROBE_RANK=7 PERFCHECK_ROOT_PID=1
  PERFCHECK_SNAPSHOT_DIR=/tmp XDG_CACHE_HOME=/tmp HOME=/tmp NVTX_INJECTION64_PATH=/tmp/evil.so)
as_nobody() { setpriv --reuid=nobody --regid="$group" --clear-groups -- env -i "${vars[@]}" "$@"; }
as_nobody "$d/plain" >"$d/plain.out" 2>"$d/plain.err" || { echo "FAIL: the plain probe did not run"; cat "$d/plain.err"; exit 1; }
as_nobody "$d/setuid" >"$d/setuid.out" 2>"$d/setuid.err" || { echo "FAIL: the setuid probe did not run"; cat "$d/setuid.err"; exit 1; }
field() { sed -n "s/^$2=//p" "$d/$1.out"; }
if [ "$(field setuid at_secure)" != 1 ]; then
  echo "SKIP: setuid has no effect here (a nosuid /tmp?): AT_SECURE is $(field setuid at_secure)"
  exit 77
fi
fails=0
check() { # check RUN FIELD WANT
  local got
  got=$(field "$1" "$2")
  if [ "$got" = "$3" ]; then echo "ok: $1: $2=$got"; else echo "FAIL: $1: $2=$got, want $3"; fails=$((fails + 1)); fi
}
pid_name() { sed -n 's/^expanded=r\.\([0-9][0-9]*\)\.json$/\1/p' "$d/$1.out"; }
# The plain program reads every variable (so the test would see a miss).
check plain at_secure 0
check plain getenv_control on
check plain secure_getenv_control on
check plain mode 1
check plain metrics sol
check plain kernel_regex '^(.*::)?gemm(<.*)?$'
check plain launch_skip 3
check plain launch_count 4
check plain per_signature 2
check plain progress 1
check plain output /tmp/pc-secure-env-report.json
check plain format 1
check plain nvtx train_step
check plain rank 3
check plain world_size 8
check plain local_rank 1
# %q{PC_PROBE_RANK} read, and PERFCHECK_ROOT_PID (not this process: a
# child's name gets .PID before its extension).
if grep -qx 'expanded=r\.7\.[0-9][0-9]*\.json' "$d/plain.out"; then echo "ok: plain: expanded=$(field plain expanded)"; else
  echo "FAIL: plain: expanded=$(field plain expanded), want r.7.PID.json"; fails=$((fails + 1)); fi
# Setuid root: the variables are there (getenv sees the control one), the
# library reads none of them.
check setuid at_secure 1
check setuid getenv_control on
check setuid secure_getenv_control '(null)'
check setuid bad 0
check setuid mode 0
check setuid metrics '(null)'
check setuid kernel_regex '(null)'
check setuid launch_skip 0
check setuid launch_count 0
check setuid per_signature 1
check setuid progress 0
check setuid output '(null)'
check setuid format 0
check setuid nvtx '(null)'
check setuid rank -1
check setuid world_size -1
check setuid local_rank -1
if [ -n "$(pid_name setuid)" ] && [ "$(pid_name setuid)" != 7 ]; then echo "ok: setuid: %q{PC_PROBE_RANK} gave the pid"; else
  echo "FAIL: setuid: expanded=$(field setuid expanded), want r.PID.json"; fails=$((fails + 1)); fi
if [ -s "$d/setuid.err" ]; then echo "FAIL: the setuid probe wrote to stderr:"; cat "$d/setuid.err"; fails=$((fails + 1)); fi
echo "secure_getenv: $fails failure(s)"
[ "$fails" = 0 ]
