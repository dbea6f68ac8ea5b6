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

# perfcheck(1) and the bash completion, written from the --help
# texts at build time and installed: `man perfcheck` finds the page through
# the prefix's share/man, and it holds every command's --help text.
page=$(ls "$prefix"/share/man/man1/perfcheck.1 2>/dev/null || true)
[ -n "$page" ] || { echo "no share/man/man1/perfcheck.1 installed"; exit 1; }
# A minimized Ubuntu (the GPU box) has a `man` that only says it was
# removed: the real man-db answers --version.
if command -v man >/dev/null 2>&1 && man --version 2>/dev/null | grep -q '^man '; then
  found=$(MANPATH="$prefix/share/man" man -w perfcheck 2>&1) || { echo "man -w perfcheck failed: $found"; exit 1; }
  [ "$found" = "$page" ] || { echo "man -w perfcheck: '$found', not $page"; exit 1; }
  text=$(MANPATH="$prefix/share/man" MANWIDTH=100 man perfcheck 2>/dev/null | col -b 2>/dev/null || true)
  [ -n "$text" ] || text=$(MANWIDTH=100 man -l "$page")
elif command -v groff >/dev/null 2>&1; then
  echo "(no man here: the page is read with groff)"
  text=$(groff -man -Tascii "$page" | col -b)
else
  echo "(neither man nor groff here: the page's source is read, its escapes undone)"
  text=$(sed -e 's/\\-/-/g' -e 's/\\(em/--/g' -e 's/\\e/\\/g' -e 's/\\f[BIRP]//g' "$page")
fi
for c in diagnose metrics check run merge report diff ceilings; do
  # (not `| head -1`: under pipefail the writer's SIGPIPE would end the test)
  usage=$("$pc" help "$c")
  first=${usage%%$'\n'*}
  grep -qF -- "$first" <<<"$text" || { echo "man perfcheck lacks the first line of 'perfcheck help $c': $first"; exit 1; }
done
grep -qF -- "--nvtx-include CONF" <<<"$text" || { echo "man perfcheck lacks run's --nvtx-include"; exit 1; }
echo "man perfcheck: $(wc -l <<<"$text") lines, every command's --help"
comp="$prefix/share/bash-completion/completions/perfcheck"
[ -f "$comp" ] || { echo "no bash completion installed"; exit 1; }
got=$(bash -c '. "$1"; COMP_WORDS=(perfcheck run --nvtx-i); COMP_CWORD=2; _perfcheck; echo "${COMPREPLY[*]}";
               COMP_WORDS=(perfcheck mer); COMP_CWORD=1; _perfcheck; echo "${COMPREPLY[*]}";
               COMP_WORDS=(perfcheck metrics --set b); COMP_CWORD=3; _perfcheck; echo "${COMPREPLY[*]}"' sh "$comp")
[ "$got" = "$(printf '%s\n' --nvtx-include merge basic)" ] || { echo "bash completion: got '$got'"; exit 1; }
echo "bash completion: commands, options and set words complete"
