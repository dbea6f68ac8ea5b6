#!/usr/bin/env bash
# backtrace.sh BUILD MODE -- PROGRAM ARGS: runs PROGRAM under the injection
# library (as `perfcheck run --mode MODE` sets it up) inside cuda-gdb, the
# only debugger on the GPU machine, and prints the backtrace of every thread
# when it stops (a crash).  For crashes that show only as exit 139.
set -uo pipefail
BUILD=$(cd "$1" && pwd); MODE=$2; shift 3
export CUDA_INJECTION64_PATH=$BUILD/lib/libperfcheck_inject.so NVTX_INJECTION64_PATH=$BUILD/lib/libperfcheck_inject.so
export PERFCHECK_MODE=$MODE PERFCHECK_FORMAT=json PERFCHECK_OUTPUT=/tmp/backtrace-report.json
GDB=$(command -v cuda-gdb || echo /usr/local/cuda/bin/cuda-gdb)
timeout 300 "$GDB" -q -batch -ex 'set pagination off' -ex 'set print thread-events off' \
  -ex 'handle SIGUSR1 SIGUSR2 SIGPIPE nostop noprint' -ex run -ex 'thread apply all bt 25' --args "$@" 2>&1 |
  grep -v '^\[New Thread\|^\[Thread .* exited' | tail -150
