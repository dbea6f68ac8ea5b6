#!/usr/bin/env bash
# Installs the build tree into a temporary prefix, then builds and runs a
# consumer through find_package(perfcheck) and through pkg-config.
# Usage: consumer_test.sh SOURCE_DIR BUILD_DIR C_COMPILER
set -euo pipefail
src=$1 build=$2 cc=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
libdir=$(find "$tmp/prefix" -name 'libperfcheck.so' -printf '%h\n' | head -n1)

echo "== find_package"
cmake -S "$src/tests/build/consumer" -B "$tmp/cm" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_C_COMPILER="$cc" >/dev/null
cmake --build "$tmp/cm" >/dev/null
LD_LIBRARY_PATH="$libdir" "$tmp/cm/consumer"

echo "== pkg-config"
pcdir=$(find "$tmp/prefix" -name perfcheck.pc -printf '%h\n' | head -n1)
flags=$(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs perfcheck)
echo "pkg-config: $flags"
# shellcheck disable=SC2086
"$cc" -std=c11 -Wall -Wextra -Werror "$src/tests/build/consumer/main.c" $flags -o "$tmp/consumer_pc"
LD_LIBRARY_PATH="$libdir" "$tmp/consumer_pc"
# The pkg-config line with its rpath (docs/install.md): the binary runs
# with no LD_LIBRARY_PATH, from a prefix outside the loader's folders.
rpath=$(PKG_CONFIG_PATH="$pcdir" pkg-config --variable=libdir perfcheck)
# shellcheck disable=SC2086
"$cc" -std=c11 -Wall -Wextra -Werror "$src/tests/build/consumer/main.c" $flags -Wl,-rpath,"$rpath" \
  -o "$tmp/consumer_rpath"
env -u LD_LIBRARY_PATH "$tmp/consumer_rpath"

echo "== pkg-config, a prefix with a space in its name"
# pkg-config writes a space in a path as "\ " (shell quoting), so its output
# is read by a shell: make's $(shell pkg-config ...) in a recipe as it is,
# a shell script through eval (docs/install.md says so).
sp="$tmp/my prefix"
cmake --install "$build" --prefix "$sp" >/dev/null
sppc=$(find "$sp" -name perfcheck.pc -printf '%h\n' | head -n1)
spflags=$(PKG_CONFIG_PATH="$sppc" pkg-config --cflags --libs perfcheck)
echo "pkg-config: $spflags"
export PKG_CONFIG_PATH="$sppc"
eval "\"\$cc\" -std=c11 -Wall -Wextra -Werror \"\$src/tests/build/consumer/main.c\" $spflags" \
  "-Wl,-rpath,$(pkg-config --variable=libdir perfcheck) -o \"\$tmp/consumer_space\""
env -u LD_LIBRARY_PATH "$tmp/consumer_space"
if command -v make >/dev/null 2>&1; then
  printf 'app: main.c\n\t$(CC) -std=c11 -Wall -Wextra -Werror main.c $(shell pkg-config --cflags --libs perfcheck) \\\n\t  -Wl,-rpath,$(shell pkg-config --variable=libdir perfcheck) -o app\n' \
    >"$tmp/Makefile"
  cp "$src/tests/build/consumer/main.c" "$tmp/main.c"
  make -s -C "$tmp" CC="$cc" app
  env -u LD_LIBRARY_PATH "$tmp/app"
else
  echo "(no make here: the Makefile form is not tried)"
fi
unset PKG_CONFIG_PATH
echo "consumer builds: ok"
