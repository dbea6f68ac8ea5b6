#!/usr/bin/env bash
# The main demo.  Builds perfcheck if needed, then:
#  - on a machine with an NVIDIA GPU: runs the mystery kernels (seed 000)
#    inside a perfcheck region and prints the in-process report;
#  - elsewhere: diagnoses the committed H200 Nsight Compute export of the same
#    four launches with `perfcheck diagnose` (no GPU needed).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
if [ ! -x "$build/bin/perfcheck" ]; then
  cmake -S . -B "$build" >/dev/null
  cmake --build "$build" -j"$(nproc)" >/dev/null
fi
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 && [ -x "$build/examples/example_mystery_region" ]; then
  echo "# GPU found: the mystery kernels under perfcheck, in process"
  exec "$build/examples/example_mystery_region"
fi
echo "# No GPU here: perfcheck diagnose on the committed H200 export (tests/data/h200/mystery.csv)"
exec "$build/bin/perfcheck" diagnose tests/data/h200/mystery.csv
