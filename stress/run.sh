#!/usr/bin/env bash
# make stress: the long torture. Boots the debug (`test`) kernel on each
# topology and runs stress/guest-stress.sh there for DURATION: the torture
# program (ping-pong pairs with a lost-wakeup watchdog, policy and feature
# flips with bad values, CPU hotplug, affinity churn, counter readers and
# resetters) beside stress-ng's pipe, futex, switch, sem and sock stressors.
# The console must stay clean; ends with "N passed, N failed".
#
# Under TCG the guests run with one host thread for all vCPUs
# (TCG_THREAD=single). With a thread per vCPU (QEMU 7.2, Debian 12), any
# sched feature toggled while its branch is hot ends in "Oops: int3" at the
# static branch being patched: seen with SYNC_PAIR_AFFINE and with
# upstream's WAKEUP_PREEMPTION (check_preempt_wakeup_fair), with and without
# hotplug, 1-2 minutes into every run; never with one thread. x86 text
# patching relies on IPIs to serialise the CPUs, which points at the
# emulator's multi-threaded mode, not at the kernel.
#   DURATION   minutes per topology (default 15)
#   TOPOS      topologies (default: flat llc2); TOPO=x alone picks one
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"

DURATION=${DURATION:-15}
TOPOS=${TOPOS:-flat llc2}
case "$DURATION" in
'' | *[!0-9]* | 0) die "DURATION=$DURATION is not a whole number of minutes: use e.g. DURATION=15" ;;
esac
for topo in $TOPOS; do
	case "$topo" in
	flat | smt | llc2) ;;
	*) die "unknown topology '$topo' in TOPOS: use flat, smt or llc2" ;;
	esac
done

results="$BUILD/stress/$(date +%Y%m%d-%H%M%S)"
mkdir -p "$results"
# shellcheck source=harness/guest-tap.sh
. "$REPO/harness/guest-tap.sh"

# shellcheck disable=SC2119 # nothing to run beside the builds
build_for_guests

export TCG_THREAD=${TCG_THREAD:-single}
secs=$((DURATION * 60))
for topo in $TOPOS; do
	guest "$topo" "$topo" "" $((secs + 900)) \
		"sh $(sq "$REPO/stress/guest-stress.sh") $secs $(sq "$BUILD/kselftest")" \
		stress:sync_wakeup_torture
	sed -n 's/^# # \(\(counters under\|[0-9]\+ s:\|[0-9]\+ \(policy\|hotplug\|counter\)\).*\)/    \1/p' \
		"$results/$topo/output.log" 2>/dev/null >&2 || true
done

# shellcheck disable=SC2119 # no TAP files of its own
finish
