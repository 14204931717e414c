#!/usr/bin/env bash
# make check: build the debug (`test`) kernel and the selftests, boot the
# kernel on every topology to run the selftests and again for a short torture,
# boot it with the sched_sync_wakeup= parameter, run the static checks; then
# sum every TAP result into one closing line "N passed, N failed".
#   TOPOS         topologies to boot (default: flat smt llc2)
#   TESTS         selftests for the topology boots (default: all but the boot one)
#   STRESS_SECS   seconds of stress/guest-stress.sh, one boot per topology
#                 (default 90; 0: none)
#   GUEST_JOBS    guests booted at once (default: the CPU count, at most 4,
#                 under single-threaded TCG; 1 otherwise)
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

TOPOS=${TOPOS:-flat smt llc2}
all_tests="sched/sync_wakeup:sync_wakeup_iface sched/sync_wakeup:sync_wakeup_fuzz"
all_tests+=" sched/sync_wakeup:sync_wakeup_placement"
TESTS=${TESTS:-$all_tests}
STRESS_SECS=${STRESS_SECS:-90}
BOOT_TIMEOUT=${BOOT_TIMEOUT:-1200}
for topo in $TOPOS; do
	case "$topo" in
	flat | smt | llc2) ;;
	*) die "TOPOS=$TOPOS: unknown topology $topo: use some of flat smt llc2" ;;
	esac
done
case "$STRESS_SECS" in
'' | *[!0-9]*) die "STRESS_SECS=$STRESS_SECS is not a number of seconds: use e.g. 120, or 0 for none" ;;
esac
# Under TCG, one host thread for all vCPUs: the tests toggle scheduler
# features, which multi-threaded TCG turns into int3 oopses (stress/run.sh).
export TCG_THREAD=${TCG_THREAD:-single}
# Such a guest keeps one host CPU busy: as many guests at once as CPUs (at
# most 4); guests with a thread per vCPU (KVM, multi-threaded TCG) one by one.
if [ "$TCG_THREAD" = single ] && [ "$(resolve_accel "${ACCEL:-auto}")" = tcg ]; then
	default_jobs=$(($(nproc) < 4 ? $(nproc) : 4))
else
	default_jobs=1
fi
GUEST_JOBS=${GUEST_JOBS:-$default_jobs}
case "$GUEST_JOBS" in
'' | 0 | *[!0-9]*) die "GUEST_JOBS=$GUEST_JOBS is not a number of guests: use e.g. 1 or 2" ;;
esac
results="$BUILD/check/$(date +%Y%m%d-%H%M%S)"
mkdir -p "$results"
# shellcheck source=harness/guest-tap.sh
. "$REPO/harness/guest-tap.sh"

build_for_guests

log "static checks"
# lint.sh exits 1 when a check fails; without a failed check that is a crash.
if ! "$REPO/harness/lint.sh" >"$results/lint.tap"; then
	grep -q '^not ok' "$results/lint.tap" ||
		echo "not ok 999 harness/lint.sh stopped early" >>"$results/lint.tap"
fi
sed 's/^/    /' "$results/lint.tap" >&2

# The boots, longest first so that the lanes end together: the selftests
# (llc2 is the slowest), the torture, the boot parameter.
boot_param_test=sched/sync_wakeup:sync_wakeup_boot
by_cost=""
for topo in llc2 smt flat; do
	case " $TOPOS " in *" $topo "*) by_cost+=" $topo" ;; esac
done
stress_topos=""
[ "$STRESS_SECS" = 0 ] || stress_topos=$by_cost
for topo in $by_cost; do
	start_guest "$topo" "$topo" "" "$BOOT_TIMEOUT" \
		"sh $REPO/vm/guest-check.sh $topo $BUILD/kselftest $TESTS"
done
for topo in $stress_topos; do
	start_guest "stress-$topo" "$topo" "" "$BOOT_TIMEOUT" \
		"sh $REPO/stress/guest-stress.sh $STRESS_SECS $BUILD/kselftest"
done
for policy in waker-if-alone bogus; do
	start_guest "boot-param-$policy" flat "sched_sync_wakeup=$policy" "$BOOT_TIMEOUT" \
		"sh $REPO/vm/guest-check.sh flat $BUILD/kselftest $boot_param_test"
done
wait

for topo in $TOPOS; do
	# shellcheck disable=SC2086 # one word per test
	guest_results "$topo" $TESTS
done
for topo in $TOPOS; do
	[ "$STRESS_SECS" = 0 ] || guest_results "stress-$topo" stress:sync_wakeup_torture
done
for policy in waker-if-alone bogus; do
	guest_results "boot-param-$policy" "$boot_param_test"
done

finish "$results/lint.tap"
