#!/usr/bin/env bash
# The whole test suite, as CI runs it: formatting, the debug build with its tests, the same
# tests under AddressSanitizer + UndefinedBehaviorSanitizer, then the Windows build with its
# tests under Wine, then the packages users install (wheel, .deb, Windows .zip).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/bootstrap.sh --tests --windows
scripts/check-format.sh

for preset in dev asan; do
  echo "== $preset: configure, build, test"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset"
  ctest --preset "$preset"
done

echo "== windows: cross-build, test under Wine"
scripts/test-windows.sh

echo "== packages: the wheel, the .deb and the Windows .zip, installed and run"
scripts/test-packages.sh
