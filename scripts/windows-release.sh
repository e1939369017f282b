#!/usr/bin/env bash
# The Windows release: gpuvet.exe cross-built with MinGW-w64 (statically linked, imports only
# system DLLs) and packed by CPack into build/windows-release/gpuvet-<version>-windows-x86_64.zip,
# flat: gpuvet.exe, README.md, README-zh.txt (README.zh-CN.md with a BOM and CRLF) and
# gpuvet-completion.ps1, which the build makes by running gpuvet.exe under Wine (its own prefix,
# build/windows-release/wineprefix).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh --windows
scripts/windows-deps.sh build/windows-deps
# The build runs gpuvet.exe under Wine; stop that prefix's server when done (never by name).
stop_wine() { WINEPREFIX="$PWD/build/windows-release/wineprefix" /usr/lib/wine/wineserver64 -k 2>/dev/null || true; }
trap stop_wine EXIT
cmake --preset windows-release >/dev/null
cmake --build --preset windows-release
(cd build/windows-release && cpack -G ZIP >/dev/null)
ls -1 build/windows-release/*.zip
