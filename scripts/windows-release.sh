#!/usr/bin/env bash
# The Windows release: gpuvet.exe cross-built with MinGW-w64 (statically linked, imports only
# system DLLs) and packed by CPack into build/windows-release/gpuvet-<version>-windows-x86_64.zip.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh --windows
scripts/windows-deps.sh build/windows-deps
cmake --preset windows-release >/dev/null
cmake --build --preset windows-release
(cd build/windows-release && cpack -G ZIP >/dev/null)
ls -1 build/windows-release/*.zip
