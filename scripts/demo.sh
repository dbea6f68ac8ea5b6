#!/usr/bin/env bash
# The main demo.  Configures the build (BUILD_DIR, default build/) and builds
# only what the demo needs (the perfcheck command, and the mystery example
# where CUDA is there), then:
#  - on a machine with an NVIDIA GPU: runs the mystery kernels (seed 000)
#    inside a perfcheck region and prints the in-process report;
#  - elsewhere: diagnoses the committed H200 Nsight Compute export of the same
#    four launches with `perfcheck diagnose` (no GPU needed).
# Tests are not built (cmocka is not needed); configure's and the build's own
# messages are shown.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
jobs=$(nproc 2>/dev/null || echo 2)

echo "# demo: cmake -S . -B $build"
cmake -S . -B "$build"
targets=(--target perfcheck_cli)
if cmake --build "$build" --target help 2>/dev/null | grep -q 'example_mystery_region'; then
  targets+=(--target example_mystery_region)
fi
echo "# demo: cmake --build $build ${targets[*]}"
cmake --build "$build" -j"$jobs" "${targets[@]}"

if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 && [ -x "$build/examples/example_mystery_region" ]; then
  echo "# GPU found: the mystery kernels under perfcheck, in process"
  exec "$build/examples/example_mystery_region"
fi
if [ ! -x "$build/examples/example_mystery_region" ]; then
  echo "# (this build has no CUDA examples: no CUDA toolkit or nvcc was found)"
fi
echo "# No GPU here: perfcheck diagnose on the committed H200 export (tests/data/h200/mystery.csv)"
exec "$build/bin/perfcheck" diagnose tests/data/h200/mystery.csv
