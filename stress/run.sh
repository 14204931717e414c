#!/usr/bin/env bash
# make stress: the long torture. Boots the debug (`test`) kernel on each
# topology and runs stress/guest-stress.sh there for DURATION: the torture
# program (ping-pong pairs with a lost-wakeup watchdog, policy and feature
# flips with bad values, CPU hotplug, affinity churn, counter readers and
# resetters) beside stress-ng's pipe, futex, switch, sem and sock stressors.
# The console must stay clean; ends with "N passed, N failed".
#
# Under TCG with one host thread for all vCPUs: with a thread per vCPU
# the feature flips oops (docs/torture.md).
#   DURATION   minutes per topology (default 15)
#   TOPOS      topologies (default: TOPOS_STRESS, harness/definitions.sh);
#              TOPO=x alone picks one
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"
only_default_arch stress

DURATION=${DURATION:-15}
TOPOS=${TOPOS:-$TOPOS_STRESS}
# As make vars does: the script may be run without make.
TOPOS=$TOPOS DURATION=$DURATION "$REPO/harness/check-vars.sh"

results="$BUILD/stress/$(date +%Y%m%d-%H%M%S)"
mkdir -p "$results"
# shellcheck source=harness/guest-tap.sh
. "$REPO/harness/guest-tap.sh"

# shellcheck disable=SC2119 # nothing to run beside the builds
build_for_guests

secs=$((DURATION * 60))
for topo in $TOPOS; do
	guest "$topo" "$topo" "" $((secs + 900)) \
		"sh $(sq "$REPO/stress/guest-stress.sh") $secs $(sq "$(kselftest_dir)")" \
		stress:sync_wakeup_torture
	sed -n 's/^# # \(\(counters under\|[0-9]\+ s:\|[0-9]\+ \(policy\|hotplug\|counter\)\).*\)/    \1/p' \
		"$results/$topo/output.log" 2>/dev/null >&2 || true
done

# shellcheck disable=SC2119 # no TAP files of its own
finish
