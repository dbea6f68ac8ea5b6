#!/usr/bin/env bash
# The installed tree runs as installed: `cmake --install` into a temporary
# prefix, then the installed perfcheck, with no LD_LIBRARY_PATH, prints its
# version, diagnoses an export and runs a program under the installed
# injection library.
# Usage: install_test.sh BUILD_DIR DATA_DIR
set -euo pipefail
build=$1 data=$2
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
unset LD_LIBRARY_PATH PERFCHECK_INJECT_LIB
pc="$prefix/bin/perfcheck"
ver=$("$pc" --version)
echo "installed: $ver"
case $ver in *perfcheck*) ;; *) echo "unexpected --version output"; exit 1 ;; esac
# Nothing from the build tree is used: its RUNPATH is $ORIGIN-relative.
rp=$(readelf -d "$pc" | sed -n 's/.*R\(UN\)\{0,1\}PATH.*\[\(.*\)\]/\2/p')
echo "RUNPATH of bin/perfcheck: $rp"
case $rp in *'$ORIGIN'*) ;; *) echo "bin/perfcheck has no \$ORIGIN RUNPATH"; exit 1 ;; esac
case $rp in *"$build"*) echo "bin/perfcheck's RUNPATH names the build tree"; exit 1 ;; esac
out=$("$pc" diagnose "$data/h200/mystery.csv")
grep -q '^mysteryA: step 3 uncoalesced_global_loads' <<<"$out" || { echo "diagnose from the prefix: no mysteryA verdict"; echo "$out"; exit 1; }
# perfcheck run finds the injection library in the prefix (next to libperfcheck.so).
inj=$("$pc" run -- sh -c 'echo "$CUDA_INJECTION64_PATH"')
echo "perfcheck run injects: $inj"
[ "$(readlink -f "$inj")" = "$(readlink -f "$prefix/lib/libperfcheck_inject.so")" ] ||
  [ "$(readlink -f "$inj")" = "$(readlink -f "$prefix/lib64/libperfcheck_inject.so")" ] ||
  { echo "perfcheck run did not use the installed libperfcheck_inject.so"; exit 1; }
echo "the installed tree runs without LD_LIBRARY_PATH"
