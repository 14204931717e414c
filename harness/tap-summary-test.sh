#!/usr/bin/env bash
# Does harness/tap-summary.awk count what it should? Sample guest outputs,
# each with the totals it must give; TAP on stdout.
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# The skips these samples may take.
printf '# a comment\n%s\t%s\n' 'selftests: sched/sync_wakeup: optional' 'a reason' \
	'# SKIP no interface' 'a case that may skip' >"$scratch/optional"

# expect WANT NAME LINE...: the summary of an output.log of LINEs ends WANT.
expect() {
	local want=$1 name=$2 got
	shift 2
	printf '%s\n' "$@" >"$scratch/output.log"
	got=$(awk -v optional="$scratch/optional" -f "$REPO/harness/tap-summary.awk" \
		"$scratch/output.log" | tail -1)
	[ "$got" = "$want" ] && rc=0 || rc=1
	tap "$rc" "tap-summary: $name gives '$want'" "got '$got'"
}

expect "2 passed, 0 failed, 0 skipped" "a program's cases are counted, not its summary" \
	"# 1..2" "# ok 1 a" "# ok 2 b" "ok 1 selftests: sched/sync_wakeup: p"
expect "1 passed, 1 failed, 0 skipped" "a failed case" \
	"# 1..2" "# ok 1 a" "# not ok 2 b" "not ok 1 selftests: sched/sync_wakeup: p # exit=1"
expect "1 passed, 1 failed, 0 skipped" "a program that stops short of its plan" \
	"# 1..3" "# ok 1 a" "not ok 1 selftests: sched/sync_wakeup: p # TIMEOUT 45 seconds"
expect "1 passed, 1 failed, 0 skipped" "a program that passes short of its plan" \
	"# 1..3" "# ok 1 a" "ok 1 selftests: sched/sync_wakeup: p"
expect "0 passed, 1 failed, 0 skipped" "a program that passes with no case" \
	"ok 1 selftests: sched/sync_wakeup: p"
expect "0 passed, 0 failed, 1 skipped" "a program skipped whole, allowed to" \
	"# 1..0 # SKIP no interface" "ok 1 selftests: sched/sync_wakeup: optional # SKIP"
expect "0 passed, 1 failed, 0 skipped" "a program skipped whole, not allowed to" \
	"# 1..0 # SKIP no interface" "ok 1 selftests: sched/sync_wakeup: p # SKIP"
expect "1 passed, 0 failed, 1 skipped" "a case skipped, allowed to" \
	"# 1..2" "# ok 1 a" "# ok 2 b # SKIP no interface" "ok 1 selftests: sched/sync_wakeup: p"
expect "1 passed, 1 failed, 0 skipped" "a case skipped, not allowed to" \
	"# 1..2" "# ok 1 a" "# ok 2 b # SKIP unshare failed" "ok 1 selftests: sched/sync_wakeup: p"
expect "0 passed, 1 failed, 0 skipped" "a host line skipped, not allowed to" \
	"ok 1 boot flat: something # SKIP not here"
expect "1 passed, 1 failed, 0 skipped" "host lines count as they are" \
	"ok 1 boot flat: console clean" "not ok 2 boot flat: console clean"

tap_end tap-summary
