#!/usr/bin/env bash
# make check: build the debug (`test`) kernel and the selftests, boot the
# kernel on every topology to run the selftests and again for a short torture,
# boot it with the sched_sync_wakeup= parameter, run the static checks; then
# sum every TAP result into one closing line "N passed, N failed".
#   TOPOS         topologies to boot (default: flat smt llc2)
#   TESTS         selftests for the topology boots (default: all but the boot one)
#   STRESS_SECS   seconds of stress/guest-stress.sh, one boot per topology
#                 (default 90; 0: none)
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

TOPOS=${TOPOS:-flat smt llc2}
all_tests="sched/sync_wakeup:sync_wakeup_iface sched/sync_wakeup:sync_wakeup_fuzz"
all_tests+=" sched/sync_wakeup:sync_wakeup_placement"
TESTS=${TESTS:-$all_tests}
STRESS_SECS=${STRESS_SECS:-90}
BOOT_TIMEOUT=${BOOT_TIMEOUT:-1200}
case "$STRESS_SECS" in
'' | *[!0-9]*) die "STRESS_SECS=$STRESS_SECS is not a number of seconds: use e.g. 120, or 0 for none" ;;
esac
# Under TCG, one host thread for all vCPUs: the tests toggle scheduler
# features, which multi-threaded TCG turns into int3 oopses (stress/run.sh).
export TCG_THREAD=${TCG_THREAD:-single}
results="$BUILD/check/$(date +%Y%m%d-%H%M%S)"
mkdir -p "$results"
# shellcheck source=harness/guest-tap.sh
. "$REPO/harness/guest-tap.sh"

build_for_guests

log "static checks"
"$REPO/harness/lint.sh" >"$results/lint.tap" ||
	echo "not ok 999 harness/lint.sh stopped early (exit $?)" >>"$results/lint.tap"
sed 's/^/    /' "$results/lint.tap" >&2

for topo in $TOPOS; do
	# shellcheck disable=SC2086 # one word per test
	guest "$topo" "$topo" "" "$BOOT_TIMEOUT" \
		"sh $REPO/vm/guest-check.sh $topo $BUILD/kselftest $TESTS" $TESTS
done
if [ "$STRESS_SECS" != 0 ]; then
	for topo in $TOPOS; do
		guest "stress-$topo" "$topo" "" "$BOOT_TIMEOUT" \
			"sh $REPO/stress/guest-stress.sh $STRESS_SECS $BUILD/kselftest" \
			stress:sync_wakeup_torture
	done
fi
for policy in waker-if-alone bogus; do
	guest "boot-param-$policy" flat "sched_sync_wakeup=$policy" "$BOOT_TIMEOUT" \
		"sh $REPO/vm/guest-check.sh flat $BUILD/kselftest sched/sync_wakeup:sync_wakeup_boot" \
		sched/sync_wakeup:sync_wakeup_boot
done

finish "$results/lint.tap"
