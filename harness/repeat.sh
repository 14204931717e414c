#!/usr/bin/env bash
# make repeat: the programs whose bounds depend on timing (placement and
# promise) REPEATS times on each topology, each topology in one boot of the
# test kernel, judged as make check judges them (icount clock,
# SW_JUDGE_SHARES=1); then harness/repeats.py: the failures of each test
# and the spread of each bounded value beside its bound. Ends with
# "N passed, N failed" over every run.
#   REPEATS   runs per topology (default 10)
#   TOPOS     topologies (default: TOPOS_CHECK without those of asymmetric
#             capacity, where placement skips)
#   GUEST_JOBS  guests booted at once (as for make check)
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

REPEATS=${REPEATS:-10}
if [ -z "${TOPOS:-}" ]; then
	TOPOS=""
	for topo in $TOPOS_CHECK; do
		cap="CAPACITY_$topo"
		[ -n "${!cap-}" ] || TOPOS+="${TOPOS:+ }$topo"
	done
fi
REPEATS=$REPEATS TOPOS=$TOPOS "$REPO/harness/check-vars.sh"
tests="sched/sync_wakeup:sync_wakeup_placement sched/sync_wakeup:sync_wakeup_promise"

clock=$(guest_clock) || exit 1
[ "$clock" = icount ] ||
	die "make repeat needs QEMU's instruction-counting clock (the bounds are that clock's); CLOCK=$clock"
export ICOUNT=$ICOUNT_SHIFT
# shellcheck disable=SC2086 # one word per topology
GUEST_JOBS=${GUEST_JOBS:-$(guest_jobs "${ACCEL:-auto}" "$(set -- $TOPOS && echo $#)")}
results="$BUILD/repeat/$(date +%Y%m%d-%H%M%S)"
mkdir -p "$results"
# shellcheck source=harness/guest-tap.sh
. "$REPO/harness/guest-tap.sh"

# shellcheck disable=SC2119 # nothing to run beside the builds
build_for_guests

# A run's TAP in a file of its own in the guest's result directory
# ($RESULTS, vm/guest-init.sh): one plan per file for the summary. Through
# one writer a line at a time, as vm/guest-init.sh does for output.log:
# each write over 9p is a round trip.
for topo in $TOPOS; do
	cmd="i=1; while [ \$i -le $REPEATS ]; do"
	cmd+=" { SW_JUDGE_SHARES=1 sh $(sq "$REPO/vm/guest-check.sh") $topo $(sq "$(kselftest_dir)") $tests;"
	cmd+=" echo \"# repeat \$i: exit \$?\"; } 2>&1 | sed -u '' >\"\$RESULTS/repeat-\$i.log\";"
	cmd+=" i=\$((i + 1)); done"
	# A generous limit per run: a hung one is what this is for to find.
	start_guest "$topo" "$topo" "" $((600 + REPEATS * 600)) "$cmd"
done
wait

for topo in $TOPOS; do
	guest_results "$topo"
	n=$(find "$results/$topo" -name 'repeat-*.log' | wc -l)
	expect "boot $topo: $REPEATS runs of placement and promise, each with its log" \
		test "$n" = "$REPEATS"
done
"$PYTHON" "$REPO/harness/repeats.py" "$results" | tee "$results/repeats.txt" >&2 || true
shopt -s nullglob
logs=("$results"/*/repeat-*.log)
shopt -u nullglob
finish "${logs[@]}"
