#!/usr/bin/env bash
# A real single-node Slurm cluster for the fleet test (../shared/guides/slurm-single-node.md):
# munged, slurmctld and slurmd started directly as root, every file in one scratch directory,
# no systemd and no cgroups. Stopped by the pids in its own pid files only.
#   slurm-cluster.sh start DIR   then: export SLURM_CONF=DIR/slurm.conf
#   slurm-cluster.sh stop DIR
set -euo pipefail
action=${1:?usage: slurm-cluster.sh start|stop DIR}
S=$(realpath -m "${2:?usage: slurm-cluster.sh start|stop DIR}")
# Other ports than a real cluster's 6817/6818, so that a machine running one is left alone.
ctld_port=${GPUVET_SLURMCTLD_PORT:-16817}
slurmd_port=${GPUVET_SLURMD_PORT:-16818}

# A daemon started with every inherited descriptor above 2 closed: munged keeps them otherwise,
# and a test runner waiting for the end of its output pipe would wait for munged.
daemon() { ( for fd in /proc/self/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-"; done 2>/dev/null; exec "$@" ); }

pid_of() { # pid file, expected /proc/PID/comm: a stale file or a reused pid names nobody
  local pid; [ -s "$1" ] || return 0; pid=$(cat "$1")
  [ "$(cat /proc/"$pid"/comm 2>/dev/null)" = "$2" ] && echo "$pid"; return 0; }
wait_gone() { local pid; for pid in "$@"; do
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"; done; return 0; }

start() {
  mkdir -p "$S"/{munge,state,spool,log}
  chmod 755 "$S" "$S/munge"  # munged: every directory above its socket must be o+x
  [ -s "$S/munge/munge.key" ] || mungekey --create --keyfile="$S/munge/munge.key"
  chmod 600 "$S/munge/munge.key"
  daemon munged --key-file="$S/munge/munge.key" --socket="$S/munge/munge.socket" \
    --pid-file="$S/munge/munged.pid" --log-file="$S/munge/munged.log" --seed-file="$S/munge/munged.seed"
  cat >"$S/slurm.conf" <<CONF
ClusterName=gpuvettest
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$S/munge/munge.socket
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
MailProg=/bin/true
ReturnToService=2
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
  export SLURM_CONF="$S/slurm.conf"
  daemon slurmctld -f "$SLURM_CONF"
  daemon slurmd -f "$SLURM_CONF" -N localhost
  local state=""
  for _ in $(seq 1 300); do  # up to 30 s
    state=$(timeout 5 sinfo -h -N -o %T 2>/dev/null || true); [ "$state" = idle ] && return 0; sleep 0.1
  done
  echo "slurm-cluster: the node did not become idle (state '$state'); logs in $S/log" >&2
  return 1
}

stop() {
  local d c m
  d=$(pid_of "$S/slurmd.pid" slurmd); c=$(pid_of "$S/slurmctld.pid" slurmctld)
  if [ -n "$d$c" ]; then kill -TERM $d $c; wait_gone $d $c; fi
  m=$(pid_of "$S/munge/munged.pid" munged)
  if [ -n "$m" ]; then kill -TERM "$m"; wait_gone "$m"; fi
  rm -f "$S/slurmd.pid" "$S/slurmctld.pid" "$S/munge/munged.pid"
}

case "$action" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: slurm-cluster.sh start|stop DIR" >&2; exit 2 ;;
esac
