#!/usr/bin/env python3
"""Writes tests/fleet/nodes/: a fleet of 22 nodes made from the linux_torch_cu121 scenario (an RTX
3060, driver 535, torch 2.1.0+cu121 with NVIDIA's wheels), with deliberate drift. Committed with
its output; run it again only to change the fleet, then update tests/unit/fleet_test.cpp.

  gpu07  an older driver (470.82.01): driver.too_old for CUDA 12.1
  gpu10  persistence mode off
  gpu12  no cuDNN wheel in the environment
  gpu15  a CPU-only torch (2.1.0+cpu, no NVIDIA wheels)
  gpu18  CUDA_VISIBLE_DEVICES set empty: no GPU visible
  gpu20  a newer kernel, nothing else different
  gpu22  unreadable (a gzip file cut short)
The others are identical. Odd-numbered nodes are .json.gz, even ones .json, so both are read.
"""
import copy
import gzip
import json
import pathlib

HERE = pathlib.Path(__file__).resolve().parent
BASE = HERE.parent / "scenarios" / "linux_torch_cu121" / "snapshot.json"
OUT = HERE / "nodes"


SITE = "/home/dev/venvs/torch/lib/python3.10/site-packages"


def with_torch_libraries(s):
    """The files a real torch cu121 wheel brings: libtorch_cuda.so needing cuDNN, cuBLAS and the
    runtime through its RPATH into NVIDIA's wheels, so that a missing wheel is a finding."""
    s["files"][f"{SITE}/torch/lib/libtorch_cuda.so"] = {"size": 1000, "elf": {
        "bits": 64, "machine": 62,
        "needed": ["libcudnn.so.8", "libcublas.so.12", "libcudart.so.12"],
        "rpath": ["$ORIGIN/../../nvidia/cudnn/lib", "$ORIGIN/../../nvidia/cublas/lib",
                  "$ORIGIN/../../nvidia/cuda_runtime/lib"]}}
    s["files"][f"{SITE}/nvidia/cudnn/lib/libcudnn.so.8"] = {"size": 150000}
    s["files"][f"{SITE}/nvidia/cublas/lib/libcublas.so.12"] = {"size": 90000}
    s["files"][f"{SITE}/nvidia/cuda_runtime/lib/libcudart.so.12"] = {"size": 700000}
    s["gpus"][0]["persistence_mode"] = True
    s["gpus"][0]["ecc"] = False
    s["loads"] = {"libcuda.so.1": {"ok": True, "path": "/usr/lib/x86_64-linux-gnu/libcuda.so.1",
                                   "init_code": 0}}


def older_driver(s):
    s["driver"]["version"] = "470.82.01"
    s["driver"]["cuda_driver_version"] = "11.4"
    s["files"]["/proc/driver/nvidia/version"]["text"] = (
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  470.82.01  Wed Oct 27 20:19:38 UTC 2021\n")


def without_cudnn(s):
    s["files"] = {k: v for k, v in s["files"].items() if "cudnn" not in k}


def cpu_only_torch(s):
    s["files"] = {k: v for k, v in s["files"].items() if "nvidia" not in k.split("site-packages/")[-1]}
    for key, entry in s["files"].items():
        if key.endswith("torch/version.py"):
            entry["text"] = ("__version__ = '2.1.0+cpu'\ndebug = False\ncuda = None\n"
                             "git_version = '7bcf7da3a268b435777fe87c7794c382f444e86d'\nhip = None\n")


def hidden_gpus(s):
    s["env"]["CUDA_VISIBLE_DEVICES"] = ""


def persistence_off(s):
    s["gpus"][0]["persistence_mode"] = False


def newer_kernel(s):
    s["host"]["os_version"] = "6.8.0-45-generic"


CHANGES = {7: older_driver, 10: persistence_off, 12: without_cudnn, 15: cpu_only_torch, 18: hidden_gpus,
           20: newer_kernel}


def main():
    base = json.loads(BASE.read_text())
    OUT.mkdir(exist_ok=True)
    for old in OUT.iterdir():
        old.unlink()
    for n in range(1, 23):
        host = f"gpu{n:02d}"
        snapshot = copy.deepcopy(base)
        snapshot["host"]["hostname"] = host
        with_torch_libraries(snapshot)
        CHANGES.get(n, lambda s: None)(snapshot)
        text = json.dumps(snapshot, indent=1, ensure_ascii=False) + "\n"
        if n == 22:
            (OUT / f"{host}.json.gz").write_bytes(gzip.compress(text.encode(), mtime=0)[:200])
        elif n % 2:
            (OUT / f"{host}.json.gz").write_bytes(gzip.compress(text.encode(), mtime=0))
        else:
            (OUT / f"{host}.json").write_text(text)


if __name__ == "__main__":
    main()
