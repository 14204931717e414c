#!/usr/bin/env bash
# Does harness/repeats.py count each test case's passes and failures over
# make repeat's runs, and give each bounded value its spread and margin?
# Two runs on one topology, written as the selftests write them; a
# directory without runs. TAP on stdout.
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/run/llc2" "$scratch/empty"
# run N SHARE CASE_STATUS: one run's log.
run() {
	cat >"$scratch/run/llc2/repeat-$1.log" <<LOG
# # sync_wakeup_placement.c:420:hint_only:hint-only: landed_same_llc share $2, bounds [0.70, 1.00]$([ "$3" = ok ] || echo ", outside")
# $3 2 placement.hint_only
# ok 3 placement.waker_if_alone
# ok 4 promise.limit_zero_late # SKIP no trace
$3 1 selftests: sched/sync_wakeup: sync_wakeup_placement
LOG
}
run 1 0.812 ok
run 2 0.695 "not ok"

out=$("$PYTHON" "$REPO/harness/repeats.py" "$scratch/run" 2>&1) && rc=0 || rc=1
r=1
grep -qE '^llc2 +placement\.hint_only +1 +1 +0  <-$' <<<"$out" && r=0
tap "$r" "a case that passed once and failed once: 1 passed, 1 failed, marked" "exit $rc: $out"
r=1
grep -qE '^llc2 +hint_only +hint-only: landed_same_llc share +2  0\.695  0\.812  \[0\.70, 1\.00\]  -0\.005 \+0\.188  <-$' <<<"$out" &&
	r=0
tap "$r" "a bounded value: 2 runs, min 0.695, max 0.812, margins -0.005 below (marked), +0.188 above" "$out"
r=1
grep -qE '^llc2 +placement\.waker_if_alone +2 +0 +0$' <<<"$out" && r=0
tap "$r" "a case that always passed: 2 passed, 0 failed, unmarked" "$out"
r=1
grep -qE '^llc2 +promise\.limit_zero_late +0 +0 +2$' <<<"$out" && r=0
tap "$r" "a skipped case: counted as skipped, not passed" "$out"
r=1
grep -qE '^llc2 +sync_wakeup_placement +1 +1 +0  <-$' <<<"$out" && r=0
tap "$r" "the program's own line (a crash or timeout shows only there): 1 passed, 1 failed" "$out"

out=$("$PYTHON" "$REPO/harness/repeats.py" "$scratch/empty" 2>&1) && rc=0 || rc=$?
r=1
[ "$rc" = 2 ] && grep -q "no <topology>/repeat-<n>.log" <<<"$out" && r=0
tap "$r" "a directory without runs: exit 2, says what to name" "exit $rc: $out"

tap_end repeats-test
