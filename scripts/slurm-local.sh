#!/usr/bin/env bash
# A one-node Slurm cluster on this machine (slurmctld + slurmd + munged), for hone's Slurm executor
# and its tests: installs Debian's slurm-wlm and munge when missing, writes the configuration under
# $HONE_SLURM_DIR (default /tmp/hone-slurm), starts the daemons unless they already answer, waits
# until the node is idle and prints `sinfo`. Idempotent. `slurm-local.sh stop` stops the daemons.
# Prints the line `export SLURM_CONF=...` to use the cluster from a shell.
set -euo pipefail

DIR=${HONE_SLURM_DIR:-/tmp/hone-slurm}
CONF=$DIR/slurm.conf
export SLURM_CONF=$CONF
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

stop() {
  for name in slurmd slurmctld munged; do
    if pid_alive "$DIR/$name.pid"; then
      $SUDO kill "$(cat "$DIR/$name.pid")" 2>/dev/null || true
    fi
  done
  for name in slurmd slurmctld munged; do
    for _ in $(seq 50); do pid_alive "$DIR/$name.pid" || break; sleep 0.1; done
    rm -f "$DIR/$name.pid"
  done
  echo "slurm-local: stopped"
}

if [ "${1:-}" = "stop" ]; then stop; exit 0; fi

install_packages() {
  local missing=()
  for p in slurm-wlm slurm-client munge; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "slurm-local: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
}

write_config() {
  local host cpus memory user
  host=$(hostname -s)
  cpus=$(nproc)
  memory=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 * 9 / 10 ))
  user=$(id -un)
  mkdir -p "$DIR/state" "$DIR/spool" "$DIR/log"
  cat > "$CONF.new" <<EOF
# Written by hone's scripts/slurm-local.sh: a one-node cluster for tests.
ClusterName=hone-local
SlurmctldHost=$host(127.0.0.1)
SlurmUser=$user
SlurmdUser=root
AuthType=auth/munge
CryptoType=crypto/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
ReturnToService=2
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
SlurmctldPort=${HONE_SLURMCTLD_PORT:-6817}
SlurmdPort=${HONE_SLURMD_PORT:-6818}
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
KillWait=5
InactiveLimit=0
MinJobAge=300
SlurmdTimeout=30
Waittime=0
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
EOF
  if ! cmp -s "$CONF.new" "$CONF" 2>/dev/null; then mv "$CONF.new" "$CONF"; else rm -f "$CONF.new"; fi
}

start_munge() {
  if pid_alive "$DIR/munged.pid" && munge -n </dev/null >/dev/null 2>&1; then return; fi
  $SUDO mkdir -p /etc/munge /run/munge /var/lib/munge /var/log/munge
  if [ ! -s /etc/munge/munge.key ]; then $SUDO mungekey --create --keyfile=/etc/munge/munge.key 2>/dev/null \
      || $SUDO dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none; fi
  $SUDO chown -R munge:munge /etc/munge /run/munge /var/lib/munge /var/log/munge
  $SUDO chmod 0700 /etc/munge /var/lib/munge /var/log/munge
  $SUDO chmod 0400 /etc/munge/munge.key
  $SUDO chmod 0755 /run/munge
  $SUDO runuser -u munge -- /usr/sbin/munged --pid-file=/run/munge/munged.pid --force
  for _ in $(seq 50); do [ -f /run/munge/munged.pid ] && break; sleep 0.1; done
  cp /run/munge/munged.pid "$DIR/munged.pid"
}

start_daemons() {
  if ! pid_alive "$DIR/slurmctld.pid"; then $SUDO slurmctld -f "$CONF"; fi
  if ! pid_alive "$DIR/slurmd.pid"; then $SUDO slurmd -f "$CONF"; fi
}

wait_idle() {
  local state=""
  for _ in $(seq 100); do
    state=$(sinfo -h -o %T 2>/dev/null | head -1 || true)
    case "$state" in
      idle|mixed|allocated) return 0 ;;
      down*|drain*) scontrol update NodeName="$(hostname -s)" State=RESUME >/dev/null 2>&1 || true ;;
    esac
    sleep 0.2
  done
  echo "slurm-local: the node did not become idle (state '$state'); logs in $DIR/log" >&2
  tail -n 20 "$DIR/log/slurmctld.log" "$DIR/log/slurmd.log" >&2 || true
  return 1
}

install_packages
write_config
start_munge
start_daemons
wait_idle
sinfo
echo "export SLURM_CONF=$CONF"
