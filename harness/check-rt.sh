#!/usr/bin/env bash
# make check-rt: the rt flavour (PREEMPT_RT) booted on flat, running what
# only PREEMPT_RT shows (sync_wakeup_rt: a sleeping spinlock's wait keeps
# no promise). Not in make check: a cold rt kernel is a build of its own
# (14 min here). Ends, as make check does, with "N passed, N failed".
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"
only_default_arch check-rt

BOOT_TIMEOUT=${BOOT_TIMEOUT:-2400}
tests="sched/sync_wakeup:sync_wakeup_rt"
clock=$(guest_clock) || exit 1
if [ "$clock" = icount ]; then
	export ICOUNT=$ICOUNT_SHIFT
else
	unset ICOUNT
fi
results="$BUILD/check-rt/$(date +%Y%m%d-%H%M%S)"
mkdir -p "$results"
# shellcheck source=harness/guest-tap.sh
. "$REPO/harness/guest-tap.sh"
# shellcheck disable=SC2034 # read by build_for_guests and start_guest
guest_flavour=rt

# shellcheck disable=SC2119 # nothing to start beside the build
build_for_guests
# shellcheck disable=SC2086 # one word per test
guest rt flat "" "$BOOT_TIMEOUT" \
	"sh $(sq "$REPO/vm/guest-check.sh") flat $(sq "$(kselftest_dir)") $tests" $tests
expect "boot rt: the kernel is PREEMPT_RT" grep -q ' PREEMPT_RT ' "$results/rt/console.log"
# shellcheck disable=SC2119 # no host TAP files besides its own
finish
