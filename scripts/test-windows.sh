#!/usr/bin/env bash
# The Windows build and its tests without Windows: gpuvet cross-built with MinGW-w64, its unit,
# scenario and live-System tests run as Windows programs under Wine (ctest runs them through
# CMAKE_CROSSCOMPILING_EMULATOR). See ../shared/guides/windows-testing.md.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/bootstrap.sh --windows
scripts/windows-deps.sh build/windows-deps

build=build/windows
mkdir -p "$build"
# Wine decodes argv, the environment and file names with the Unix locale: it must be UTF-8.
export LC_ALL=C.UTF-8
# A private prefix (~700 MB), so that nothing outside the build tree is touched.
export WINEPREFIX="$PWD/$build/wineprefix"
export WINEARCH=win64
# Quiet, but a missing DLL is still reported.
export WINEDEBUG=-all,err+module
# No Mono or Gecko installers, no menu entries in $HOME.
export WINEDLLOVERRIDES="mscoree,mshtml=;winemenubuilder.exe=d"
unset DISPLAY WAYLAND_DISPLAY
wine=/usr/lib/wine/wine64
wineserver=/usr/lib/wine/wineserver64

# Stops only this prefix's server (never anything by name).
stop_wine() { "$wineserver" -k 2>/dev/null || true; }
trap stop_wine EXIT
# A persistent server, Wine's services and its desktop (explorer.exe /desktop), started while the
# build runs. Their output goes to a file: they inherit it, and a test's pipe held open by them
# keeps ctest waiting (the first window message a test sends, gpuvet fix's WM_SETTINGCHANGE,
# would otherwise start the desktop with that test's pipe: 300 s lost to ctest's timeout).
mkdir -p "$WINEPREFIX"
( "$wineserver" -p && "$wine" wineboot --init && { "$wine" explorer.exe /desktop & } ) \
  </dev/null >"$build/wineboot.log" 2>&1 &
boot=$!

cmake --preset windows >/dev/null
cmake --build --preset windows
wait "$boot" || { cat "$build/wineboot.log"; exit 1; }
# The desktop may still be starting when a fast (cached) build ends: the window message is sent
# once here, its output in the boot log, so that whatever it starts cannot hold a test's pipe.
# It must run that one test: a renamed test would leave the race back without a word.
warmup="$build/wine-warmup.log"
"$wine" "$build/tests/gpuvet_tests.exe" --gtest_filter='FixRegistry.ThePathIsRewrittenAndRestoredAsExpandable' \
  </dev/null >"$warmup" 2>&1 || true
cat "$warmup" >>"$build/wineboot.log"
grep -q 'Running 1 test from 1 test suite' "$warmup" || {
  echo "test-windows.sh: the desktop warm-up test FixRegistry.ThePathIsRewrittenAndRestoredAsExpandable did not run (renamed?)" >&2
  exit 1
}
ctest --preset windows
