# Sourced: start_slurm_node DIR starts a single-node Slurm of this machine's own (munged,
# slurmctld and slurmd as processes of the caller, their files under DIR, stopped when the
# caller exits) and waits until its node is idle. Sets SLURM_CONF (exported) and host for
# the caller; needs its fail(). Used by tests/cmake/slurm.sh and benchmarks/slurm_compile.sh.
start_slurm_node() {
  slurm_dir=$1
  local s=$1
  mkdir -p "$s"/{state,spool,log,munge}
  chmod 700 "$s/munge"
  head -c 1024 /dev/urandom >"$s/munge/munge.key" && chmod 400 "$s/munge/munge.key"
  local ports
  ports=($(python3 -c 'import socket
ss = [socket.socket() for _ in range(2)]
for x in ss: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in ss])'))
  host=$(hostname -s)
  cat >"$s/slurm.conf" <<CONF
ClusterName=ktunetest
SlurmctldHost=$host
AuthType=auth/munge
AuthInfo=socket=$s/munge/munge.socket
CryptoType=crypto/munge
SlurmUser=$(id -un)
SlurmctldPort=${ports[0]}
SlurmdPort=${ports[1]}
StateSaveLocation=$s/state
SlurmdSpoolDir=$s/spool
SlurmctldPidFile=$s/slurmctld.pid
SlurmdPidFile=$s/slurmd.pid
SlurmctldLogFile=$s/log/slurmctld.log
SlurmdLogFile=$s/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
  export SLURM_CONF=$s/slurm.conf
  trap stop_slurm_node EXIT
  munged --key-file="$s/munge/munge.key" --socket="$s/munge/munge.socket" --pid-file="$s/munge/munged.pid" \
    --log-file="$s/munge/munged.log" --seed-file="$s/munge/munged.seed" -f || fail "munged did not start"
  slurmctld -c || fail "slurmctld did not start: $(tail -5 "$s/log/slurmctld.log")"
  slurmd -c || fail "slurmd did not start: $(tail -5 "$s/log/slurmd.log")"
  for _ in $(seq 60); do
    [[ $(sinfo -h -o %t 2>/dev/null) == idle ]] && break
    sleep 0.5
  done
  [[ $(sinfo -h -o %t) == idle ]] || fail "the node is not idle: $(sinfo 2>&1); $(tail -5 "$s/log/slurmd.log")"
  [[ $(srun -N1 -n1 hostname) == "$host" ]] || fail "srun hostname"
}

stop_slurm_node() {
  for pid in "$slurm_dir/slurmd.pid" "$slurm_dir/slurmctld.pid" "$slurm_dir/munge/munged.pid"; do
    [[ -f $pid ]] && kill "$(cat "$pid")" 2>/dev/null || true
  done
}
