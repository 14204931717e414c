#!/usr/bin/env bash
# make check: build the debug (`test`) kernel and the selftests, boot it
# once per topology to run the selftests and a short torture (the first boot
# also with the sched_sync_wakeup= parameter), run the static checks; then
# sum every TAP result into one closing line "N passed, N failed".
#   TOPOS         topologies to boot (default: TOPOS_CHECK, harness/definitions.sh)
#   TESTS         selftests for every boot (default: placement in each, the
#                 boot parameter and interface tests in the first, the
#                 fuzzer in the second)
#   STRESS_SECS   seconds of stress/guest-stress.sh at the end of each boot
#                 (default 30: a smoke run; make stress is the long one;
#                 0: none)
#   GUEST_JOBS    guests booted at once (default: every boot under
#                 single-threaded TCG; 1 otherwise)
#   CLOCK         auto (default: icount where QEMU has it), icount or host
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

TOPOS=${TOPOS:-$TOPOS_CHECK}
# A smoke run: 60 s took 139 of an smt boot's 390 host CPU seconds
# (2-vCPU EPYC, test kernel, icount, 2026-12-07).
STRESS_SECS=${STRESS_SECS:-30}
# Seconds per boot: the first boot (boot parameter, interface, fuzz,
# placement, then 90 s of torture) has outlasted 1200 s, all passing, with two
# guests at once on a 2-core host.
BOOT_TIMEOUT=${BOOT_TIMEOUT:-2400}
boot_test=sched/sync_wakeup:sync_wakeup_boot
# Whose outcome can depend on the topology, and whose cannot.
per_topo_tests="sched/sync_wakeup:sync_wakeup_placement sched/sync_wakeup:sync_wakeup_promise sched/sync_wakeup:sync_wakeup_cgroup"
once_tests="$boot_test sched/sync_wakeup:sync_wakeup_iface"
# On a topology of asymmetric CPU capacity (CAPACITY_<TOPO>), instead of
# placement and promise, whose bounds assume equal capacities (placement
# skips there); it skips on any other.
capacity_test=sched/sync_wakeup:sync_wakeup_capacity
# Also once, in the second boot if there is one: the first boot is the
# longest already.
spread_tests="sched/sync_wakeup:sync_wakeup_fuzz"
# A valid policy, then an unknown one: the unknown one is ignored with a
# warning and the valid one stays in force (sync_wakeup_boot checks both).
boot_param="sched_sync_wakeup=waker-if-alone sched_sync_wakeup=bogus"
# The instruction-counting clock where QEMU has it: what a guest measures
# (where a wakee ran, how long a waker ran before it slept) then follows
# from the instructions it ran, not from how busy the host is. The placement
# tests judge their shares only there (SW_JUDGE_SHARES=1): their bounds are
# the emulator's on that clock. The torture's stall limit counts guest time.
clock=$(guest_clock) || exit 1
judge=""
if [ "$clock" = icount ]; then
	export ICOUNT=$ICOUNT_SHIFT
	judge="SW_JUDGE_SHARES=1 "
else
	unset ICOUNT
fi
# shellcheck disable=SC2086 # one word per topology
GUEST_JOBS=${GUEST_JOBS:-$(guest_jobs "${ACCEL:-auto}" "$(set -- $TOPOS && echo $#)")}
results="$BUILD/check/$(date +%Y%m%d-%H%M%S)"
mkdir -p "$results"
# shellcheck source=harness/guest-tap.sh
. "$REPO/harness/guest-tap.sh"

# The host mode of the benchmark on this machine's own kernel (no VM), so
# that it cannot rot: a table of every workload under ARMS=off.
host_bench() {
	local dir w
	# None of make check's own variables (CLOCK=, BASELINE=) may reach it.
	as_typed BENCH_RESULTS="$results/bench-host" make -s --no-print-directory -C "$REPO" \
		bench HOST=1 QUICK=1 ARMS=off >"$results/bench-host.log" 2>&1 || return 1
	dir=$(ls -d "$results"/bench-host/*/) || return 1
	grep -q '^host.hz: ' "$dir/meta.txt" || return 1
	for w in $("$PYTHON" "$REPO/bench/guest-bench.py" --check | sed -n 's/^workloads: //p'); do
		grep -q "^### $w: " "$dir/table.md" || { echo "no table of $w in $dir/table.md" >&2 && return 1; }
	done
}
# The checks that need no guest, in TAP files of their own: they run in the
# background, beside the guests.
host_checks() {
	log "static checks"
	# lint.sh exits 1 when a check fails; without a failed check that is a crash.
	if ! "$REPO/harness/lint.sh" >"$results/lint.tap"; then
		grep -q '^not ok' "$results/lint.tap" ||
			echo "not ok 999 harness/lint.sh stopped early" >>"$results/lint.tap"
	fi
	log "make bench HOST=1 QUICK=1 ARMS=off (this machine's kernel $(uname -r))"
	local what="make bench HOST=1 QUICK=1 ARMS=off tabulates every workload on this machine's kernel"
	if host_bench; then echo "ok 1 $what"; else echo "not ok 1 $what"; fi >"$results/bench-host.tap"
}
# Beside the kernel build, whose links leave a CPU idle (lint needs the
# tree's checkpatch.pl).
build_for_guests host_checks

# One boot per topology. Placement runs in each; the tests whose outcome
# cannot depend on the topology run once: the boot parameter and interface
# tests (and the torture's watchdog) in the first topology of TOPOS, whose
# command line carries the boot parameter, sync_wakeup_boot first; the
# fuzzer in the second. The torture beside stress-ng ends every boot.
# Longest first, for when there are fewer lanes than boots.
first=${TOPOS%% *}
by_cost=$first
# shellcheck disable=SC2086 # one word per topology
for topo in llc2 smt flat $TOPOS; do
	case " $by_cost " in *" $topo "*) continue ;; esac
	case " $TOPOS " in *" $topo "*) by_cost+=" $topo" ;; esac
done
second=$(echo "$by_cost" | cut -s -d' ' -f2)
tests_for() { # tests_for TOPO: the selftests its boot runs
	local cap="CAPACITY_$1" tests=$per_topo_tests
	[ -z "${!cap-}" ] || tests=$capacity_test
	if [ -n "${TESTS:-}" ]; then
		echo "$TESTS"
	elif [ "$1" = "$first" ] && [ -z "$second" ]; then
		echo "$once_tests $spread_tests $tests"
	elif [ "$1" = "$first" ]; then
		echo "$once_tests $tests"
	elif [ "$1" = "$second" ]; then
		echo "$spread_tests $tests"
	else
		echo "$tests"
	fi
}
append_for() { # append_for TOPO: its kernel command line
	case " $(tests_for "$1") " in
	*" $boot_test "*) [ "$1" = "$first" ] && echo "$boot_param" ;;
	esac
	return 0
}
for topo in $by_cost; do
	cmd="${judge}sh $(sq "$REPO/vm/guest-check.sh") $topo $(sq "$(kselftest_dir)") $(tests_for "$topo")"
	[ "$STRESS_SECS" = 0 ] ||
		cmd+="; sh $(sq "$REPO/stress/guest-stress.sh") $STRESS_SECS $(sq "$(kselftest_dir)")"
	# The torture's watchdog is tested once: the outcome is the program's.
	[ "$STRESS_SECS" = 0 ] || [ "$topo" = "$first" ] || cmd+=" --no-watchdog-test"
	start_guest "$topo" "$topo" "$(append_for "$topo")" "$BOOT_TIMEOUT" "$cmd"
done
wait
for f in lint bench-host; do
	[ -s "$results/$f.tap" ] || echo "not ok 1 the host checks wrote no $f.tap" >"$results/$f.tap"
	sed 's/^/    /' "$results/$f.tap" >&2
done

# The bounds the placement tests judge only when told to: a guest that
# did not get SW_JUDGE_SHARES=1 would pass them unjudged.
shares_judged() { ! grep -q 'not judged here' "$1"; }

for topo in $TOPOS; do
	[ -z "$judge" ] ||
		expect "boot $topo: the placement shares were judged (SW_JUDGE_SHARES=1)" \
			shares_judged "$results/$topo/output.log"
	results_for=$(tests_for "$topo")
	[ "$STRESS_SECS" = 0 ] || results_for+=" stress:sync_wakeup_torture"
	# shellcheck disable=SC2086 # one word per test
	guest_results "$topo" $results_for
done

finish "$results/lint.tap" "$results/bench-host.tap"
