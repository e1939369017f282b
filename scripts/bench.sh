#!/usr/bin/env bash
# Builds the release preset and runs every benchmark in bench/. The baselines some benchmarks
# compare against (Debian's python3-torch and python3-numba, findutils) are installed here, not by
# bootstrap.sh: the build and the tests never need them.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/bootstrap.sh
baselines=(python3-torch python3-numba findutils)
missing=()
for package in "${baselines[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$package")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  as_root=()
  [[ $(id -u) -eq 0 ]] || as_root=(sudo)
  echo "bench: installing the baselines ${missing[*]}" >&2
  DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi
cmake --preset release >/dev/null
cmake --build --preset release >/dev/null
build/release/bench/gpuvet_bench_python_envs --benchmark_color=false
build/release/bench/gpuvet_bench_check --benchmark_color=false
build/release/bench/gpuvet_bench_explain --benchmark_color=false
build/release/bench/gpuvet_bench_gpu_code --benchmark_color=false
build/release/bench/gpuvet_bench_fleet --benchmark_color=false
