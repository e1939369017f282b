#!/usr/bin/env bash
# Installs what is missing, builds gpuvet (release) and runs `gpuvet check` on this machine.
# Extra arguments go to gpuvet, e.g. scripts/run.sh --json
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/bootstrap.sh
cmake --preset release >/dev/null
cmake --build --preset release >/dev/null
exec build/release/gpuvet check "$@"
