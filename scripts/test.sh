#!/usr/bin/env bash
# The whole test suite, as CI runs it: formatting, the debug build with its tests, then the
# same tests under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/bootstrap.sh --tests
scripts/check-format.sh

for preset in dev asan; do
  echo "== $preset: configure, build, test"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset"
  ctest --preset "$preset"
done
