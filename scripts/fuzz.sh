#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (Debian's clang ships libFuzzer) and runs each for
# SECONDS (default 60): explain's, on a corpus seeded with the signatures' examples and the public
# excerpts, and the GPU-code reader's, seeded with the fixture libraries of tests/gpu_code.
#   scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
scripts/bootstrap.sh
command -v clang++ >/dev/null || { echo "fuzz: installing clang" >&2; apt-get install -y -qq clang >/dev/null; }
cmake --preset dev >/dev/null
cmake --build --preset dev --target gpuvet_core >/dev/null  # generates the embedded data
out=build/fuzz
mkdir -p "$out/corpus"
# The literal scan's platform file, as CMake picks it.
case "$(uname -m)" in
  x86_64|i?86) teddy=(src/explain/teddy_x86.cpp -mssse3) ;;
  *) teddy=(src/explain/teddy_generic.cpp) ;;
esac
sources=(src/explain/{explain,log_reader,signatures,literal_filter}.cpp src/kb/*.cpp
         src/core/{text,version,paths}.cpp src/report/render_explain.cpp
         build/dev/generated/embedded_data.cpp tests/fuzz/explain_fuzz.cpp)
clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -Isrc -DGPUVET_VERSION='"fuzz"' \
  "${sources[@]}" "${teddy[@]}" -lfmt -lre2 -lpthread -o "$out/explain_fuzz"
python3 - "$out/corpus" <<'PY'
import csv, json, os, sys
out = sys.argv[1]
rows = [r for r in csv.reader(l for l in open("data/explain_signatures.csv") if not l.startswith("#"))][1:]
for i, r in enumerate(rows):
    open(os.path.join(out, f"sig{i}"), "w").write(r[6] + "\n" + r[7] + "\n")
for line in open("tests/fixtures/explain/public.jsonl"):  # a copy of ../shared's
    d = json.loads(line)
    open(os.path.join(out, d["id"]), "w").write(d["log"])
PY
"$out/explain_fuzz" -max_total_time="$seconds" -max_len=262144 -rss_limit_mb=512 -timeout=10 "$out/corpus"

# The GPU-code reader (src/system/gpu_code_reader.cpp) on ELF and PE files.
cmake --build --preset dev --target gpuvet_gpu_code_fixtures >/dev/null
clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -Isrc \
  src/system/{gpu_code_reader,elf_reader}.cpp tests/fuzz/gpu_code_fuzz.cpp -lfmt \
  -o "$out/gpu_code_fuzz"
mkdir -p "$out/gpu_code_corpus"
cp build/dev/tests/gpu_code/elf/*.so build/dev/tests/gpu_code/pe/*.dll "$out/gpu_code_corpus/" 2>/dev/null || true
"$out/gpu_code_fuzz" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=512 -timeout=10 \
  "$out/gpu_code_corpus"
