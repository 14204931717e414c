#!/usr/bin/env bash
# make check: build the debug (`test`) kernel and the selftests, boot the
# kernel on every topology and run the selftests there, boot it with the
# sched_sync_wakeup= parameter, run the static checks; then sum every TAP
# result into one closing line "N passed, N failed".
#   TOPOS     topologies to boot (default: flat smt llc2)
#   TESTS     selftests for the topology boots (default: all but the boot one)
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

TOPOS=${TOPOS:-flat smt llc2}
TESTS=${TESTS:-sched/sync_wakeup:sync_wakeup_iface sched/sync_wakeup:sync_wakeup_placement}
BOOT_TIMEOUT=${BOOT_TIMEOUT:-1200}
start=$(date +%s)
results="$BUILD/check/$(date +%Y%m%d-%H%M%S)"
mkdir -p "$results"
host_tap="$results/host.tap"
n=0

tap() { # tap STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; fi >>"$host_tap"
}

# expect DESCRIPTION COMMAND...: one host TAP line for the command's status.
# A failure is recorded, never fatal: every later check still runs.
expect() {
	local what=$1
	shift
	if "$@"; then tap 0 "$what"; else tap 1 "$what"; fi
}

# boot NAME TOPO APPEND TEST...: one guest running guest-check.sh
boot() {
	local name=$1 topo=$2 append=$3 out="$results/$1" rc=0 t
	shift 3
	log "boot $name: topology $topo${append:+, $append}"
	FLAVOUR=test TOPO="$topo" APPEND="$append" OUT="$out" TIMEOUT="$BOOT_TIMEOUT" \
		CMD="sh $REPO/vm/guest-check.sh $topo $BUILD/kselftest $*" \
		"$REPO/vm/run.sh" >"$out.log" 2>&1 || rc=$?
	expect "boot $name: the guest ran the tests and powered off ($(cat "$out/accel" 2>/dev/null))" \
		test -f "$out/exit-code"
	expect "boot $name: console free of BUG/WARNING/KASAN/UBSAN/lockdep/lockup/stall reports" \
		"$REPO/vm/scan-console.sh" "$out/console.log" >>"$out.log" 2>&1
	for t in "$@"; do
		expect "boot $name: $t reported a result" \
			grep -qsE "^(not )?ok [0-9]+ selftests: ${t%%:*}: ${t#*:}( |$)" "$out/output.log"
	done
	if [ "$rc" != 0 ]; then
		{
			echo "boot $name: vm/run.sh exited $rc; the end of $out.log:"
			grep -vE '^(# )?(not )?ok ' "$out.log" | tail -15
			echo "the end of $out/console.log:"
			tail -15 "$out/console.log" 2>/dev/null || echo "(no console log)"
		} | sed 's/^/    /' >>"$results/failures.txt"
	fi
	grep -E '^(# )?(not )?ok [0-9]+' "$out/output.log" 2>/dev/null | sed 's/^/    /' >&2 || true
}

# Nothing can be tested without these; a failure still ends in the count line.
for step in "prepare-tree.sh" "build-kernel.sh test" "build-selftests.sh"; do
	# shellcheck disable=SC2086
	"$REPO/harness/"$step || {
		echo "make check stopped: harness/$step failed (see the messages above)" >&2
		echo "0 passed, 1 failed"
		exit 1
	}
done

log "static checks"
"$REPO/harness/lint.sh" >"$results/lint.tap"
sed 's/^/    /' "$results/lint.tap" >&2

for topo in $TOPOS; do
	# shellcheck disable=SC2086
	boot "$topo" "$topo" "" $TESTS
done
boot boot-param flat "sched_sync_wakeup=waker-if-alone" sched/sync_wakeup:sync_wakeup_boot
boot boot-param-bad flat "sched_sync_wakeup=bogus" sched/sync_wakeup:sync_wakeup_boot

log "results and logs: $results (console logs: $results/*/console.log)"
shopt -s nullglob
summary=$(awk -f "$REPO/harness/tap-summary.awk" "$results/lint.tap" "$host_tap" "$results"/*/output.log)
# Last, so that a log cut to its tail still says what went wrong.
[ ! -f "$results/failures.txt" ] || cat "$results/failures.txt" >&2
printf '%s\n' "$summary" | grep -E '^(FAIL|SKIP) ' | sed "s|$results/||" >&2 || true
log "make check took $(( ($(date +%s) - start) / 60 )) min $(( ($(date +%s) - start) % 60 )) s"
totals=$(printf '%s\n' "$summary" | tail -1)
skipped=$(echo "$totals" | sed -n 's/.*, \([0-9]*\) skipped$/\1/p')
failed=$(echo "$totals" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
echo "$skipped skipped"
echo "${totals%, * skipped}"
[ "$failed" = 0 ]
