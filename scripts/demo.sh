#!/usr/bin/env bash
# The main demo.  Configures the build (BUILD_DIR, default build/; extra
# configure arguments in CMAKE_ARGS) and builds only what the demo needs (the
# perfcheck command, and the mystery example where CUDA is there), then:
#  - on a machine with an NVIDIA GPU and a build with the CUDA examples: runs
#    the mystery kernels (seed 000) inside a perfcheck region and prints the
#    in-process report with their four verdicts;
#  - elsewhere: one line says why it is offline, then `perfcheck diagnose` of
#    the committed H200 Nsight Compute export of the same kernels (ncu --set
#    full plus perfcheck's metrics, so every metric the checklist reads is
#    there and no warning is printed).
# Configure and build output go to BUILD_DIR/demo-build.log (shown when
# they fail).  Tests are not built into the demo's targets (cmocka is not
# needed).
#
#   scripts/demo.sh --detect   configure, then print the one line saying how
#                              the demo would run, and stop (ctest
#                              unit.demo_detect runs it in a fresh build
#                              directory).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
jobs=$(nproc 2>/dev/null || echo 2)
export_csv=tests/data/corpus/h200-2026-12-01/mystery.csv.gz
log="$build/demo-build.log"

quietly() { # runs "$@" with its output in the log; shows the log when it fails
  if ! "$@" >>"$log" 2>&1; then
    echo "# demo: '$*' failed; its output ($log):" >&2
    tail -40 "$log" >&2
    exit 1
  fi
}

mkdir -p "$build"
: >"$log"
echo "# demo: configuring and building perfcheck in $build (output: $log)"
# shellcheck disable=SC2086  # CMAKE_ARGS is a list of words
quietly cmake -S . -B "$build" ${CMAKE_ARGS:-}

# What the configured build has (written by CMakeLists.txt): the example's
# path, or why there is none.
PERFCHECK_DEMO_EXAMPLE='' PERFCHECK_DEMO_WHY='the build wrote no perfcheck-demo.env'
# shellcheck disable=SC1091
[ -f "$build/perfcheck-demo.env" ] && . "$build/perfcheck-demo.env"

# The one decision: in process, or offline and why.
why=''
if [ -z "$PERFCHECK_DEMO_EXAMPLE" ]; then
  why=$PERFCHECK_DEMO_WHY
elif ! command -v nvidia-smi >/dev/null 2>&1; then
  why='no NVIDIA driver here (nvidia-smi is not installed)'
elif ! gpus=$(nvidia-smi -L 2>/dev/null) || [ -z "$gpus" ]; then
  why='no NVIDIA GPU here (nvidia-smi -L lists none)'
fi

if [ "${1:-}" = "--detect" ]; then
  if [ -z "$why" ]; then
    echo "demo: in process: $PERFCHECK_DEMO_EXAMPLE on ${gpus%%$'\n'*}"
  else
    echo "demo: offline: $why"
  fi
  exit 0
fi

targets=(--target perfcheck_cli)
[ -z "$why" ] && targets+=(--target example_mystery_region)
quietly cmake --build "$build" -j"$jobs" "${targets[@]}"

if [ -z "$why" ]; then
  echo "# GPU found (${gpus%%$'\n'*}): the mystery kernels under perfcheck, in process"
  exec "$PERFCHECK_DEMO_EXAMPLE"
fi
echo "# offline: $why; so perfcheck diagnose of the committed H200 export of the same kernels, $export_csv"
exec "$build/bin/perfcheck" diagnose "$export_csv"
