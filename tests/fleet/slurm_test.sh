#!/usr/bin/env bash
# gpuvet fleet through a real Slurm: a single-node cluster from Debian's packages (slurm-cluster.sh),
# `fleet collect --slurm` staged with srun --bcast and run in place, a request Slurm cannot
# satisfy, a second slurmd stopped by a gres.conf device the node lacks (check and explain name
# it), then `fleet report` over the collected node and the scenario fleet together.
#   slurm_test.sh GPUVET FLEET_DIR
# Exit 77 (skipped) without root or Slurm, unless CI is set: CI must run it.
set -euo pipefail
gpuvet=${1:?usage: slurm_test.sh GPUVET FLEET_DIR}
fleet=${2:?usage: slurm_test.sh GPUVET FLEET_DIR}

skip() {
  if [ -n "${CI:-}" ]; then echo "FAIL: $1 (CI must run this test)" >&2; exit 1; fi
  echo "SKIP: $1"; exit 77
}
[ "$(id -u)" = 0 ] || skip "starting slurmctld, slurmd and munged needs root"
for program in slurmctld slurmd munged mungekey srun sinfo scancel; do
  command -v "$program" >/dev/null || skip "no $program (scripts/bootstrap.sh --tests installs slurm-wlm and munge)"
done

fail() { echo "FAIL: $*" >&2; exit 1; }
expect_status() {  # expected status, then the command
  local want=$1; shift
  local got=0
  "$@" || got=$?
  [ "$got" = "$want" ] || fail "exit status $got, expected $want: $*"
}

S=$(mktemp -d /tmp/gpuvet-slurm.XXXXXX)
cleanup() { "$fleet/slurm-cluster.sh" stop "$S" || true; rm -rf "$S"; }
trap cleanup EXIT
"$fleet/slurm-cluster.sh" start "$S"
export SLURM_CONF=$S/slurm.conf
host=$(hostname)

echo "== collect, gpuvet staged on the node with srun --bcast"
# Exactly as CONTRACTS.md writes it: srun's arguments, then -o DIR.
expect_status 0 "$gpuvet" fleet collect --slurm -- --nodes=1 -o "$S/staged" | tee "$S/staged.txt"
grep -q "1 of 1 nodes collected" "$S/staged.txt" || fail "collect did not say it collected the node"
grep -q "srun --bcast" "$S/staged.txt" || fail "collect did not stage gpuvet"
[ -s "$S/staged/$host.json.gz" ] || fail "no $host.json.gz in $(ls "$S/staged")"
grep -q '"status": "ok"' "$S/staged/collect.json" || fail "collect.json does not record the node: $(cat "$S/staged/collect.json")"
grep -q '"node": "localhost"' "$S/staged/collect.json" || fail "collect.json lacks Slurm's node name"
if ls /tmp/gpuvet-fleet-* >/dev/null 2>&1; then fail "a staged copy was left behind: $(ls /tmp/gpuvet-fleet-*)"; fi
"$gpuvet" check --snapshot "$S/staged/$host.json.gz" --json >"$S/check.json" || true
grep -q '"schema": "gpuvet.check/1"' "$S/check.json" || fail "the collected snapshot does not replay"

echo "== collect, gpuvet run in place (as from a shared filesystem)"
expect_status 0 "$gpuvet" fleet collect --slurm --stage never -o "$S/in-place" -- --nodelist=localhost
[ -s "$S/in-place/$host.json.gz" ] || fail "in place: no $host.json.gz"

echo "== collect, a request Slurm cannot satisfy (3 nodes of a 1-node cluster)"
expect_status 1 "$gpuvet" fleet collect --slurm --deadline 60 -o "$S/impossible" -- --nodes=3 | tee "$S/impossible.txt"
grep -q "No node answered" "$S/impossible.txt" || fail "collect did not say no node answered"
grep -q '"nodes": \[\]' "$S/impossible/collect.json" || fail "collect.json: $(cat "$S/impossible/collect.json")"
[ -z "$(squeue -h)" ] || fail "a job was left in the queue: $(squeue)"

echo "== a gres.conf naming a GPU device the node lacks: the real slurmd stops, gpuvet says why"
# A second slurmd of the same node, on its own port and spool; the device name is one no machine has.
B=$S/bad-gres
short=$(hostname -s)
mkdir -p "$B/spool"
port=$(sed -n 's/^SlurmdPort=//p' "$S/slurm.conf")
sed -e "s/^NodeName=localhost .*/NodeName=$short NodeAddr=127.0.0.1 CPUs=$(nproc) Gres=gpu:1 State=UNKNOWN/" \
  -e "s|^SlurmdPidFile=.*|SlurmdPidFile=$B/slurmd.pid|" -e "s|^SlurmdSpoolDir=.*|SlurmdSpoolDir=$B/spool|" \
  -e "s|^SlurmdLogFile=.*|SlurmdLogFile=$B/slurmd.log|" -e "s|^SlurmdPort=.*|SlurmdPort=$((port + 1))|" \
  "$S/slurm.conf" >"$B/slurm.conf"
echo "GresTypes=gpu" >>"$B/slurm.conf"
echo "NodeName=$short Name=gpu File=/dev/nvidia63" >"$B/gres.conf"
got=0
timeout 120 slurmd -D -f "$B/slurm.conf" -N "$short" >"$B/slurmd.out" 2>&1 || got=$?
[ "$got" != 0 ] && [ "$got" != 124 ] || fail "slurmd did not stop on the missing device (status $got): $(cat "$B/slurmd.out")"
grep -q "can't stat gres.conf file /dev/nvidia63" "$B/slurmd.log" || fail "slurmd's log: $(cat "$B/slurmd.log")"
SLURM_CONF=$B/slurm.conf "$gpuvet" check --json >"$B/check.json" || true
grep -q '"id": "scheduler.gres_misconfigured"' "$B/check.json" || fail "check did not name the missing device: $(grep '"id"' "$B/check.json")"
grep -q '"/dev/nvidia63"' "$B/check.json" || fail "check's facts lack the missing device"
SLURM_CONF=$B/slurm.conf "$gpuvet" explain "$B/slurmd.log" --json >"$B/explain.json" || fail "explain named no cause"
first=$(grep -m1 '"id": "' "$B/explain.json")
case "$first" in *scheduler.gres_misconfigured*) ;; *) fail "explain's first cause: $first" ;; esac

echo "== report: the collected node beside the scenario fleet"
cp "$fleet"/nodes/* "$S/staged/"
expect_status 1 "$gpuvet" fleet report "$S/staged" --json >"$S/report.json"
[ "$(grep -c '"verdict":' "$S/report.json")" = 23 ] || fail "expected 23 nodes: $(grep '"host":' "$S/report.json")"
grep -q "\"host\": \"$host\"" "$S/report.json" || fail "the collected node is not in the report"
grep -q '"fact": "driver.version"' "$S/report.json" || fail "no driver drift in the report"
expect_status 1 "$gpuvet" fleet report "$S/staged" --html "$S/fleet.html" >/dev/null
grep -q "$host" "$S/fleet.html" || fail "the page lacks the collected node"
echo "PASS"
