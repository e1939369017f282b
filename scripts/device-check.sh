#!/usr/bin/env bash
# The GPU check for a session that has a machine with an NVIDIA GPU (see docs/bench.md): one run
# that uses gpuvet's verify and bench --json, measures the same quantities with PyTorch in the same
# run (device-to-device copy, pinned host-to-device copy, bf16 GEMM 8192^3), and prints the
# gpuvet/PyTorch ratios and the fractions of peak. Goal: ratios >= 0.95.
#   scripts/device-check.sh [GPUVET_BINARY]     (default: build/release/gpuvet, built if missing)
set -euo pipefail
cd "$(dirname "$0")/.."
gpuvet=${1:-build/release/gpuvet}
if [[ ! -x "$gpuvet" ]]; then
  cmake --preset release >/dev/null
  cmake --build --preset release --target gpuvet
fi
out=${OUT:-$(mktemp -d)}
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current \
  --format=csv || true
echo "== gpuvet verify"
time "$gpuvet" verify --no-color || true
echo "== gpuvet bench --json"
"$gpuvet" bench --json --html "$out/bench.html" > "$out/bench.json" || true
echo "== PyTorch, the same quantities"
python3 - "$out/bench.json" <<'PY'
import json, statistics, sys
import torch

def timed(fn, reps):
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for i in range(reps + 2):
        start.record(); fn(); stop.record(); stop.synchronize()
        if i >= 2:
            times.append(start.elapsed_time(stop))
    return statistics.median(times)  # ms

n = 1 << 30
a = torch.empty(n, dtype=torch.uint8, device="cuda")
b = torch.empty_like(a)
host = torch.empty(n, dtype=torch.uint8, pin_memory=True)
torch_d2d = 2 * n / (timed(lambda: b.copy_(a), 7) / 1000) / 1e9
torch_h2d = n / (timed(lambda: a.copy_(host, non_blocking=True), 7) / 1000) / 1e9
m = 8192
x = torch.randn(m, m, dtype=torch.bfloat16, device="cuda")
y = torch.randn(m, m, dtype=torch.bfloat16, device="cuda")
torch_bf16 = 2 * m**3 / (timed(lambda: torch.mm(x, y), 10) / 1000) / 1e12

report = json.load(open(sys.argv[1]))
results = {r["name"]: r for r in report["results"]}
print("device:", report.get("device"))
for name, theirs, unit in (("d2d_copy", torch_d2d, "GB/s"), ("h2d_pinned", torch_h2d, "GB/s"),
                           ("gemm_bf16", torch_bf16, "TFLOP/s")):
    r = results.get(name, {})
    ours = r.get("value")
    ratio = f"{ours / theirs:.3f}" if ours else "n/a"
    print(f"{name:12} gpuvet {ours} {unit}  PyTorch {theirs:.1f} {unit}  gpuvet/PyTorch {ratio}  "
          f"fraction_of_peak {r.get('fraction_of_peak')}  ok {r.get('ok')}  {r.get('detail', '')}")
PY
