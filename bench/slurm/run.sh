#!/usr/bin/env bash
# Runs `cudadoctor run --report-dir` under a real Slurm on this machine: a
# one-node cluster (Debian's slurmctld, slurmd and munge, configured under a
# temporary directory, node name different from the host name) runs two tasks
# of which task 1 fails with the device-side assert recorded on an H100
# (testdata/gpu/logs/h100/s01_embedding_oob.plain.log, printed on stderr, so
# no GPU is needed) and task 0 succeeds. It checks the exit status srun
# passes on, the per-task reports (named by SLURMD_NODENAME and
# SLURM_PROCID), `explain DIR` joining them, `explain` of srun --label
# output, and the sbatch script of docs/slurm.md submitted as it is written.
#
#   bench/slurm/run.sh                  # builds cudadoctor; exit 0 pass, 1 fail, 77 skipped
#   CUDADOCTOR=/path/to/bin bench/slurm/run.sh
#
# Needs root (slurmd and munged run as root here); installs slurm-wlm and
# munge with apt-get when missing. Everything it starts is stopped and its
# files removed on exit. Not part of `go test ./...`.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
skip() { echo "SKIP: $*" >&2; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }

[ "$(id -u)" = 0 ] || skip "starting slurmd and munged needs root"
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null || ! command -v sbatch >/dev/null; then
	command -v apt-get >/dev/null || skip "Slurm is not installed and there is no apt-get"
	echo "installing Debian's slurm-wlm and munge ..." >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm munge >/dev/null 2>&1 ||
		skip "apt-get could not install slurm-wlm and munge"
fi
command -v python3 >/dev/null || skip "python3 is not installed"

work=$(mktemp -d /tmp/cudadoctor-slurm.XXXXXX)
chmod 755 "$work"
teardown() {
	for p in "$work/slurmd.pid" "$work/slurmctld.pid" "$work/munge/munged.pid"; do
		if [ -s "$p" ]; then
			kill "$(cat "$p")" 2>/dev/null || true
		fi
	done
	sleep 1
	rm -rf "$work"
}
trap teardown EXIT
# Logs of the daemons, shown when a check fails.
daemon_logs() { tail -n 20 "$work"/log/*.log "$work/munge/munged.log" 2>/dev/null >&2 || true; }

mkdir -p "$work/bin"
if [ -n "${CUDADOCTOR:-}" ]; then
	cp "$CUDADOCTOR" "$work/bin/cudadoctor"
else
	command -v go >/dev/null || skip "go is not on PATH (or set CUDADOCTOR to a built binary)"
	(cd "$root" && go build -o "$work/bin/cudadoctor" ./cmd/cudadoctor)
fi
# srun and sbatch pass the environment on to the tasks, PATH included.
export PATH="$work/bin:$PATH"
unset $(env | sed -n 's/^\(SLURM_[A-Z_]*\)=.*/\1/p') CUDADOCTOR_RERUN CUDADOCTOR_NO_RERUN CUDA_LAUNCH_BLOCKING 2>/dev/null || true

# munge: its own key and socket, so nothing of the machine's is used.
mkdir -p "$work/munge"
chmod 700 "$work/munge"
head -c 1024 /dev/urandom >"$work/munge/munge.key"
chmod 400 "$work/munge/munge.key"
mkdir -m 755 "$work/sock"
munged --force --socket="$work/sock/munge.socket" --key-file="$work/munge/munge.key" \
	--log-file="$work/munge/munged.log" --pid-file="$work/munge/munged.pid" --seed-file="$work/munge/munged.seed" ||
	fail "munged did not start: $(cat "$work/munge/munged.log" 2>/dev/null)"

# Two free TCP ports for slurmctld and slurmd.
read -r ctld_port d_port < <(python3 -c '
import socket
ss = [socket.socket() for _ in range(2)]
for s in ss: s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in ss))')
node=cdtest-node1
host=$(hostname)
mkdir -p "$work/state" "$work/spool" "$work/log"
: >"$work/plugstack.conf"
cat >"$work/slurm.conf" <<EOF
ClusterName=cdtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/sock/munge.socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
PlugStackConfig=$work/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
NodeName=$node NodeHostname=$host NodeAddr=127.0.0.1 CPUs=2 RealMemory=1000 State=UNKNOWN
PartitionName=cdtest Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$work/slurm.conf"
slurmctld -i || { daemon_logs; fail "slurmctld did not start"; }
slurmd -N "$node" || { daemon_logs; fail "slurmd did not start"; }
for _ in $(seq 60); do
	[ "$(sinfo -h -n "$node" -o %t 2>/dev/null)" = idle ] && break
	sleep 0.5
done
[ "$(sinfo -h -n "$node" -o %t 2>/dev/null)" = idle ] || { daemon_logs; fail "node $node is not idle: $(sinfo 2>&1)"; }
ok "slurmctld and slurmd up, node $node (host $host) idle"

# The program: task 1 fails as the recorded H100 run did (its stderr, exit 1),
# task 0 prints a training line and succeeds.
log="$root/testdata/gpu/logs/h100/s01_embedding_oob.plain.log"
cat >"$work/train.py" <<EOF
import os, sys
rank = int(os.environ["SLURM_PROCID"])
if rank == 1:
    sys.stderr.write(open("$log").read())
    sys.exit(1)
print(f"rank {rank} on {os.environ['SLURMD_NODENAME']}: step 10 loss 0.125", flush=True)
EOF
cd "$work"

# jq is not assumed: JSON is read with python3.
jsonget() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {"d": d}))' "$@"; }

# 1. srun -n 2 --label cudadoctor run --report-dir
set +e
timeout 120 srun -n 2 --label cudadoctor run --report-dir "$work/reports" -- python3 train.py >srun.out 2>srun.err
code=$?
set -e
[ "$code" = 1 ] || { cat srun.err >&2; daemon_logs; fail "srun exited $code, want task 1's 1"; }
ok "srun exits 1, the failing task's status"
grep -qx "0: rank 0 on $node: step 10 loss 0.125" srun.out || fail "task 0's stdout did not pass through: $(cat srun.out)"
ok "task 0's output passed through, labelled: $(cat srun.out)"
grep -q "^1: torch.AcceleratorError: CUDA error: device-side assert triggered$" srun.err || fail "task 1's traceback is not in srun's stderr"
grep -q "^1: error\[device-assert-index\]" srun.err || fail "task 1 printed no device-assert-index diagnosis: $(grep '^1: cudadoctor\|^1: error' srun.err)"
grep -q "^1: cudadoctor: not re-running: it is one process of a 2-process job (SLURM_NTASKS=2)" srun.err || fail "task 1 did not say why it was not re-run"
grep -q "^0: .*cudadoctor" srun.err && fail "task 0 succeeded but cudadoctor printed: $(grep '^0: ' srun.err)"
ok "task 1's diagnosis follows its output on stderr; not re-run (one task of two); task 0 silent"

ls "$work/reports"
n=$(ls "$work/reports" | wc -l)
[ "$n" = 2 ] || fail "$n files in the report directory, want 2"
r0=$(ls "$work/reports"/cudadoctor-$node-rank0-*.json 2>/dev/null) || fail "no report named cudadoctor-$node-rank0-PID.json"
r1=$(ls "$work/reports"/cudadoctor-$node-rank1-*.json 2>/dev/null) || fail "no report named cudadoctor-$node-rank1-PID.json"
[ "$(jsonget "$r0" '(d["run"]["exit_code"], d["run"]["host"], d["run"]["ranks"], len(d["findings"]))')" = "(0, '$node', [0], 0)" ] ||
	fail "task 0's report: $(cat "$r0")"
[ "$(jsonget "$r1" '(d["run"]["exit_code"], d["run"]["host"], d["run"]["ranks"], d["findings"][0]["class"], d["findings"][0].get("rank"))')" = "(1, '$node', [1], 'device-assert-index', 1)" ] ||
	fail "task 1's report: $(head -c 2000 "$r1")"
ok "one report per task, named by SLURMD_NODENAME and SLURM_PROCID; task 1's finding has rank 1"

set +e
cudadoctor explain --format json "$work/reports" >explain-dir.json
code=$?
set -e
[ "$code" = 1 ] || fail "explain DIR exited $code, want 1"
got=$(jsonget explain-dir.json '(len(d["findings"]), d["findings"][0]["class"], d["findings"][0].get("rank"))')
[ "$got" = "(1, 'device-assert-index', 1)" ] || fail "explain DIR: $got"
cudadoctor explain "$work/reports" | head -2 || true
ok "explain DIR joins the two reports into one finding: device-assert-index on rank 1"

# 2. explain reads srun --label output, with and without cudadoctor's lines in it.
cat srun.out srun.err >combined.log
timeout 120 srun -n 2 --label python3 train.py >plain.log 2>&1 || true
for f in plain.log combined.log; do
	set +e
	cudadoctor explain --format json "$f" >"$f.json"
	code=$?
	set -e
	[ "$code" = 1 ] || fail "explain $f exited $code, want 1"
	got=$(jsonget "$f.json" '(d["findings"][0]["class"], d["findings"][0].get("rank"), d["findings"][0]["reported"]["line"])')
	[ "$got" = "('device-assert-index', 1, 5)" ] || fail "explain $f: $got"
	ok "explain $f: device-assert-index on rank 1, reported at line 5 (srun --label prefixes read)"
done

# 3. The sbatch script of docs/slurm.md, as written there.
awk '/bench\/slurm\/run.sh submits this script/{f=1; next} f && /^```bash$/{p=1; next} p && /^```$/{exit} p' "$root/docs/slurm.md" >job.sh
grep -q '^#SBATCH' job.sh || fail "no sbatch script found in docs/slurm.md"
set +e
timeout 180 sbatch --wait --parsable job.sh >sbatch.id 2>sbatch.err
code=$?
set -e
job=$(cut -d';' -f1 sbatch.id)
[ -n "$job" ] || fail "sbatch gave no job id: $(cat sbatch.err)"
[ "$code" = 1 ] || { cat "train-$job.out" >&2 || true; daemon_logs; fail "sbatch --wait exited $code, want the job's 1"; }
scontrol show job "$job" | grep -q "ExitCode=1:0" || fail "Slurm recorded: $(scontrol show job "$job" | grep -o 'JobState=[^ ]*\|ExitCode=[^ ]*')"
ok "sbatch job $job: exit 1, recorded by Slurm as $(scontrol show job "$job" | grep -o 'JobState=[^ ]* \|ExitCode=[^ ]*' | tr -d '\n')"
out="train-$job.out"
[ -f "$out" ] || fail "no $out"
grep -qx "0: rank 0 on $node: step 10 loss 0.125" "$out" || fail "$out lacks task 0's line"
grep -q "^1: error\[device-assert-index\]" "$out" || fail "$out lacks task 1's diagnosis"
# explain DIR's text verdict, printed by the script after srun.
grep -q "^error\[device-assert-index\]" "$out" || fail "$out lacks the joined verdict of explain DIR"
grep -A1 "^error\[device-assert-index\]" "$out" | grep -q "(rank 1)" || fail "the joined verdict does not name rank 1: $(grep -A1 '^error\[device-assert-index\]' "$out")"
[ "$(ls "cudadoctor-$job" | wc -l)" = 2 ] || fail "cudadoctor-$job holds $(ls "cudadoctor-$job")"
ok "$out: task output, task 1's diagnosis and the joined verdict; cudadoctor-$job holds: $(ls "cudadoctor-$job" | tr '\n' ' ')"
sed -n '/^error\[device-assert-index\]/,/^  reported/p' "$out"

# 4. A job whose tasks all succeed: srun exits 0 and cudadoctor says nothing.
set +e
timeout 120 srun -n 2 --label cudadoctor run --report-dir "$work/reports-ok" -- python3 -c 'print("fine")' >ok.out 2>ok.err
code=$?
set -e
[ "$code" = 0 ] || fail "a healthy srun exited $code"
[ ! -s ok.err ] || fail "a healthy job printed on stderr: $(cat ok.err)"
[ "$(ls reports-ok | wc -l)" = 2 ] || fail "a healthy job wrote $(ls reports-ok)"
ok "a healthy 2-task job exits 0, prints nothing of cudadoctor's, writes 2 reports"

echo "PASS: cudadoctor run under Slurm ($(srun --version))"
