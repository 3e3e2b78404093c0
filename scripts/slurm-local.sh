#!/usr/bin/env bash
# A single-node Slurm cluster on localhost, for testing aidw's tiled jobs (scripts/slurm-test.sh).
# Installs Debian's Slurm and MUNGE when missing (apt-get, as root), writes a minimal slurm.conf
# (2 CPUs, no cgroups, state under $SLURM_LOCAL_DIR), starts munged, slurmctld and slurmd, and
# waits until sinfo shows the node idle. Clients need SLURM_CONF=$SLURM_LOCAL_DIR/slurm.conf.
#
#   scripts/slurm-local.sh          # install if needed and start
#   scripts/slurm-local.sh stop     # stop the daemons this script started
#
# Debian 12 ships Slurm 22.05. Run as root on a throwaway machine (CI, a container).
set -euo pipefail
DIR=${SLURM_LOCAL_DIR:-/var/tmp/aidw-slurm}
CONF=$DIR/slurm.conf
CPUS=${SLURM_LOCAL_CPUS:-$(nproc)}
log() { echo "slurm-local: $*" >&2; }

# stop ends the daemons of an earlier start and waits for them to exit (a daemon that exits
# removes its pid file, which must not be the next one's).
stop() {
	for pidfile in "$DIR/slurmd.pid" "$DIR/slurmctld.pid"; do
		[[ -s $pidfile ]] || continue
		pid=$(cat "$pidfile")
		kill "$pid" 2>/dev/null || continue
		for _ in $(seq 100); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "$pid" 2>/dev/null || true
		rm -f "$pidfile"
	done
}
if [[ ${1:-} == stop ]]; then
	stop
	exit 0
fi
if [[ $(id -u) != 0 ]]; then
	log "run as root (it installs packages and starts daemons)"
	exit 1
fi

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
	log "installing slurmctld slurmd slurm-client munge"
	export DEBIAN_FRONTEND=noninteractive
	timeout 300 apt-get update -qq
	timeout 600 apt-get install -y -qq --no-install-recommends slurmctld slurmd slurm-client munge >/dev/null
fi

# MUNGE: a key, then the daemon, as the munge user
if [[ ! -s /etc/munge/munge.key ]]; then
	mkdir -p /etc/munge
	dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
fi
chown munge:munge /etc/munge/munge.key
chmod 400 /etc/munge/munge.key
mkdir -p /run/munge /var/lib/munge /var/log/munge
chown munge:munge /run/munge /var/lib/munge /var/log/munge
chmod 755 /run/munge
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
	log "starting munged"
	runuser -u munge -- /usr/sbin/munged
	for _ in $(seq 50); do
		munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break
		sleep 0.1
	done
	munge -n | unmunge >/dev/null
fi

# slurm.conf: one node, localhost, no cgroups, no accounting
stop
mkdir -p "$DIR/ctld" "$DIR/d"
rm -rf "${DIR:?}/ctld/"* # no jobs of an earlier run
cat >"$CONF" <<EOF
# written by aidw's scripts/slurm-local.sh
ClusterName=aidwlocal
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
SlurmctldPort=6817
SlurmdPort=6818
StateSaveLocation=$DIR/ctld
SlurmdSpoolDir=$DIR/d
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/slurmctld.log
SlurmdLogFile=$DIR/slurmd.log
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=300
KillWait=5
SchedulerType=sched/backfill
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$CPUS State=UNKNOWN
PartitionName=local Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
# Debian's plugstack.conf may name plugins this minimal setup lacks
: >"$DIR/plugstack.conf"
echo "PlugStackConfig=$DIR/plugstack.conf" >>"$CONF"

log "starting slurmctld and slurmd ($CONF)"
slurmctld -f "$CONF" -i
slurmd -f "$CONF" -N localhost
export SLURM_CONF=$CONF
for _ in $(seq 60); do
	state=$(sinfo -h -N -n localhost -o %t 2>/dev/null || true)
	case $state in
	idle*) break ;;
	drain* | down*) scontrol update NodeName=localhost State=RESUME 2>/dev/null || true ;;
	esac
	sleep 1
done
state=$(sinfo -h -N -n localhost -o %t 2>/dev/null || true)
if [[ $state != idle* ]]; then
	log "the node is not idle after 60 s (state: ${state:-none}); logs in $DIR"
	tail -n 20 "$DIR/slurmctld.log" "$DIR/slurmd.log" >&2 || true
	exit 1
fi
sinfo
log "ready: export SLURM_CONF=$CONF"
