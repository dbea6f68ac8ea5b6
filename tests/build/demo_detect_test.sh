#!/usr/bin/env bash
# unit.demo_detect: scripts/demo.sh's detection step in fresh build
# directories (under `set -o pipefail` the demo's old
# `cmake --build ... --target help | grep -q` failed whenever grep closed the
# pipe first, so a build with the CUDA examples was called one without).
#   1. The demo's own configure, as a fresh clone gets it: the example is
#      found exactly when this build has it (EXPECT_EXAMPLE), and the one line
#      says in process, or offline with why (no driver / no GPU here).
#   2. The same with the toolkit hidden: offline, "no CUDA toolkit".
# The build directories have a space in their path.
# usage: demo_detect_test.sh SOURCE_DIR EXPECT_EXAMPLE(ON|OFF)
set -euo pipefail
src=$1 expect=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/perfcheck demo.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

out=$(BUILD_DIR="$tmp/fresh build" "$src/scripts/demo.sh" --detect) || fail "demo.sh --detect exited $?: $out"
echo "$out"
line=$(printf '%s\n' "$out" | tail -1)
# shellcheck disable=SC1091
. "$tmp/fresh build/perfcheck-demo.env"
# This build's examples (expect ON) mean the machine has the toolkit, so the
# fresh default build must find them too.  A build configured without them
# (expect OFF: -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON, as CI's second
# build) says nothing about the machine: the fresh build decides, and is
# checked for what it found.
[ "$expect" = ON ] && [ -z "$PERFCHECK_DEMO_EXAMPLE" ] &&
  fail "this build has the CUDA examples but the demo's fresh build says: $PERFCHECK_DEMO_WHY"
if [ -n "$PERFCHECK_DEMO_EXAMPLE" ]; then
  case "$PERFCHECK_DEMO_EXAMPLE" in "$tmp/fresh build/"*) ;; *) fail "example path $PERFCHECK_DEMO_EXAMPLE";; esac
  if command -v nvidia-smi >/dev/null 2>&1 && [ -n "$(nvidia-smi -L 2>/dev/null || true)" ]; then
    case "$line" in "demo: in process: $tmp/fresh build/examples/example_mystery_region on GPU "*) ;;
      *) fail "a GPU is here, the demo says: $line";; esac
  else
    case "$line" in "demo: offline: no NVIDIA driver here"*|"demo: offline: no NVIDIA GPU here"*) ;;
      *) fail "no GPU here, the demo says: $line";; esac
  fi
else
  case "$line" in "demo: offline: "?*) ;; *) fail "$line";; esac
fi
[ "$(printf '%s\n' "$out" | grep -c '^demo: ')" = 1 ] || fail "not exactly one 'demo:' line"

out=$(BUILD_DIR="$tmp/no cuda" CMAKE_ARGS="-DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON -DPERFCHECK_BUILD_TESTS=OFF" \
      "$src/scripts/demo.sh" --detect) || fail "demo.sh --detect (no toolkit) exited $?: $out"
echo "$out"
line=$(printf '%s\n' "$out" | tail -1)
[ "$line" = "demo: offline: no CUDA toolkit >= 12.6 was found when this build was configured" ] || fail "no toolkit: $line"
echo "PASS: the demo's detection step in fresh build directories"
