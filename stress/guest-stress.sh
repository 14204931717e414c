#!/bin/sh
# Runs inside the test guest (see stress/run.sh and harness/check.sh): the
# torture program and stress-ng's sync-wakeup-heavy stressors at the same
# time for SECONDS, as TAP in the kselftest runner's layout.
# Usage: guest-stress.sh SECONDS KSELFTEST_DIR [--no-watchdog-test]
#   --no-watchdog-test: skip the test of the torture's watchdog, whose
#   outcome does not depend on the topology (make check runs it once).
set -u
secs=$1
torture=$2/sched/sync_wakeup/sync_wakeup_torture
watchdog_test=${3:-}
stressors="pipe futex switch sem sock"
# shellcheck source=harness/tap.sh
. "$(dirname "$0")/../harness/tap.sh"

if [ ! -x "$torture" ]; then
	tap 1 "stress: $torture is installed (run make selftests)"
	exit 1
fi

# A test of the test: a pair stopped on purpose must trip the watchdog.
x_ok=0
if [ "$watchdog_test" != --no-watchdog-test ]; then
	"$torture" -d 20 -s 3 -x >/tmp/torture-x.log 2>&1
	x_rc=$?
	grep -q '^not ok 1 pair 0 made no round trip' /tmp/torture-x.log && [ "$x_rc" != 0 ]
	x_ok=$?
	# Indented, so that its TAP lines are not counted as results of this run.
	[ "$x_ok" = 0 ] || sed 's/^/#   /' /tmp/torture-x.log
	tap "$x_ok" "stress: the watchdog fails a run whose pair 0 was stopped on purpose (exit $x_rc)"
fi

echo "# stress: $secs s of stress-ng ($stressors) beside sync_wakeup_torture"
args=""
for s in $stressors; do args="$args --$s 1"; done
# shellcheck disable=SC2086 # one word per option
stress-ng $args --timeout "${secs}s" --metrics-brief -v >/tmp/stress-ng.log 2>&1 &
ng=$!
# stress-ng 0.15 walks /sys/devices/system/cpu/cpu*/cache while it starts
# and can segfault when a CPU goes offline under it: no hotplug until its
# stressors run.
waited=0
while ! grep -q 'stressors started' /tmp/stress-ng.log && kill -0 "$ng" 2>/dev/null &&
	[ "$waited" -lt 60 ]; do
	sleep 1
	waited=$((waited + 1))
done

# POSIX sh has no pipefail: the torture's status comes back through a file.
{
	"$torture" -d "$secs" 2>&1
	echo "$?" >/tmp/torture.rc
} | sed 's/^/# /'
torture_rc=$(cat /tmp/torture.rc)
tap "$torture_rc" "selftests: stress: sync_wakeup_torture"

wait "$ng"
ng_rc=$?
sed 's/^/# /' /tmp/stress-ng.log
tap "$ng_rc" "stress: stress-ng $stressors exited 0 (exit $ng_rc)"

[ "$x_ok" = 0 ] && [ "$torture_rc" = 0 ] && [ "$ng_rc" = 0 ]
