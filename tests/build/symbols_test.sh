#!/usr/bin/env bash
# The shared library exports exactly the API in tests/build/symbols.txt.
# Usage: symbols_test.sh LIBRARY SYMBOLS_FILE
set -euo pipefail
lib=$1 expected=$2
actual=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sed 's/@.*//' | sort -u)
if ! diff -u <(grep -v '^#' "$expected" | sort -u) <(echo "$actual"); then
  echo "exported symbols differ from $expected (- expected, + exported)"
  exit 1
fi
echo "exported symbols: $(echo "$actual" | wc -l), as listed"
