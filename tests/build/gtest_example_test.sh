#!/usr/bin/env bash
# Installs the build tree into a temporary prefix, then builds and runs the
# downstream GoogleTest example (examples/gtest) through find_package, as a
# user would.  Exit 77 (skipped) when GoogleTest is not installed.
# Usage: gtest_example_test.sh SOURCE_DIR BUILD_DIR CXX_COMPILER
set -euo pipefail
src=$1 build=$2 cxx=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Is GoogleTest there for CMake to find?
mkdir "$tmp/probe"
cat >"$tmp/probe/CMakeLists.txt" <<'PROBE'
cmake_minimum_required(VERSION 3.24)
project(probe CXX)
find_package(GTest QUIET)
if(NOT GTest_FOUND)
  message(FATAL_ERROR "GoogleTest not found")
endif()
PROBE
if ! cmake -S "$tmp/probe" -B "$tmp/probe/b" -DCMAKE_CXX_COMPILER="$cxx" >/dev/null 2>&1; then
  echo "skipped: GoogleTest is not installed (Debian/Ubuntu: apt-get install libgtest-dev)"
  exit 77
fi

cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
test -f "$tmp/prefix/include/perfcheck_test.h" || { echo "perfcheck_test.h was not installed"; exit 1; }
libdir=$(find "$tmp/prefix" -name 'libperfcheck.so' -printf '%h\n' | head -n1)

cmake -S "$src/examples/gtest" -B "$tmp/gt" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_CXX_COMPILER="$cxx" \
  -DPERFCHECK_EXAMPLE_DATA="$src/tests/data/t4_seed000.csv" >/dev/null
cmake --build "$tmp/gt" >/dev/null
LD_LIBRARY_PATH="$libdir" "$tmp/gt/expect_gtest"
echo "GoogleTest example: built against the installed package, and passes"
