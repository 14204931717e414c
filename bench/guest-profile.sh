#!/bin/sh
# Runs in a guest (make vm): where sync wakees land and how often wakers
# keep their promise to sleep, per workload under each policy of POLICIES
# (default hint-only reciprocal-only honest-waker); one line of
# sched/sync_wakeup_stats per run.
# Usage: make vm FLAVOUR=test TOPO=llc2 CMD="sh $PWD/bench/guest-profile.sh"
set -eu
POLICIES=${POLICIES:-hint-only reciprocal-only honest-waker}
features=/sys/kernel/debug/sched/features
policy=/proc/sys/kernel/sched_sync_wakeup_policy
stats=/sys/kernel/debug/sched/sync_wakeup_stats

# run POLICY NAME COMMAND...: the counters of one run of COMMAND.
run() {
	pol=$1
	name=$2
	shift 2
	echo "$pol" >"$policy"
	echo 0 >"$stats"
	"$@" >/dev/null 2>&1
	echo "$name $pol: $(tr '\n' ' ' <"$stats")"
}

old_policy=$(cat "$policy")
echo SYNC_PAIR_AFFINE >"$features"
for pol in $POLICIES; do
	grep -qw -- "$pol" /proc/sys/kernel/sched_sync_wakeup_available_policies || {
		echo "guest-profile.sh: unknown policy $pol" >&2
		exit 1
	}
done
for pol in $POLICIES; do
	run "$pol" pipe perf bench sched pipe -l 5000
	run "$pol" msg-thread-g2 perf bench sched messaging -p -t -g 2 -l 20
	run "$pol" msg-process-g2 perf bench sched messaging -p -g 2 -l 20
	run "$pol" hackbench-process-g2 hackbench --pipe --process --groups 2 --loops 20
done
echo NO_SYNC_PAIR_AFFINE >"$features"
echo "$old_policy" >"$policy"
