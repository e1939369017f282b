#!/bin/sh
# Regenerates the fat binaries in this folder from kernel.cu with the nvcc on PATH (or $NVCC), one
# per row of cases.csv: the tests wrap them in ELF and PE files and read back the architectures
# the row expects. Run it after changing cases.csv; commit what it writes.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
nvcc=${NVCC:-nvcc}
grep -v '^#' "$here/cases.csv" | tail -n +2 | while IFS=, read -r name gencode _rest; do
  # cases.csv writes the commas inside -gencode as '+' to keep the field one CSV field.
  flags=$(printf '%s' "$gencode" | tr '+' ',')
  # shellcheck disable=SC2086
  "$nvcc" -fatbin $flags -o "$here/$name.fatbin" "$here/kernel.cu"
  echo "$name.fatbin"
done
