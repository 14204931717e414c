# shellcheck shell=bash
# Host side of a run of guests (make check, make stress): boot the test
# kernel, record in host TAP whether each guest kept a clean console, and a
# failure if it did not finish or did not run a program it owes, then sum
# every TAP line into "N passed, N failed". Sourced after lib.sh; set
# $results first.

host_tap="${results:?set results before sourcing guest-tap.sh}/host.tap"
# tap() (harness/tap.sh, via lib.sh) appends to the host TAP file.
# shellcheck disable=SC2034
TAP_FILE=$host_tap
started=$(date +%s)

# expect DESCRIPTION COMMAND...: one host TAP line for the command's status.
# A failure is recorded, never fatal: every later check still runs.
expect() {
	local what=$1
	shift
	if "$@"; then tap 0 "$what"; else tap 1 "$what"; fi
}

# require DESCRIPTION COMMAND...: bookkeeping that guards the counted
# checks (the guest finished, a program ran): a line only when it fails.
require() {
	local what=$1
	shift
	"$@" || tap 1 "$what"
}

# ran OUTPUT DIR PROGRAM: OUTPUT has PROGRAM's summary line, not a skip.
ran() {
	grep -qsE "^(not )?ok [0-9]+ selftests: $2: $3( |$)" "$1" &&
		! grep -qsE "^ok [0-9]+ selftests: $2: $3 # SKIP" "$1"
}

# wait_for_lane: until fewer than $GUEST_JOBS background jobs run.
wait_for_lane() {
	while [ "$(jobs -pr | wc -l)" -ge "${GUEST_JOBS:-1}" ]; do
		wait -n || true
	done
}

# start_guest NAME TOPO APPEND TIMEOUT CMD: boot the test kernel (or the
# flavour in $guest_flavour) on TOPO in the background and run CMD, at
# most $GUEST_JOBS guests at a time; the exit status of vm/run.sh lands in
# $results/NAME.rc. guest_results reads it.
start_guest() {
	local name=$1 topo=$2 append=$3 timeout=$4 cmd=$5 out="$results/$1"
	wait_for_lane
	log "boot $name: topology $topo${append:+, $append}"
	(
		rc=0
		FLAVOUR=${guest_flavour:-test} TOPO="$topo" APPEND="$append" OUT="$out" TIMEOUT="$timeout" CMD="$cmd" \
			"$REPO/vm/run.sh" >"$out.log" 2>&1 || rc=$?
		echo "$rc" >"$out.rc"
	) &
}

# features_set OUT: the guest's sched/features, as its init printed them,
# are what vm/run.sh asked for in OUT/sched-features, written in order (of
# HRTICK and then NO_HRTICK, the last).
features_set() {
	local f line want
	local -A last=()
	line=$(grep -m1 'guest-init: sched/features: ' "$1/console.log") || return 1
	want=$(cat "$1/sched-features")
	for f in $want; do last[${f#NO_}]=$f; done
	for f in "${last[@]}"; do
		case " ${line#*: sched/features: } " in *" $f "*) ;; *) return 1 ;; esac
	done
}

# guest_results NAME RESULT...: once the guest is done, host TAP on whether
# it finished, kept a clean console and reported each RESULT (the
# "selftests: DIR: PROGRAM" its output owes).
guest_results() {
	local name=$1 out="$results/$1" rc t
	shift
	rc=$(cat "$out.rc" 2>/dev/null || echo "no status")
	require "boot $name: the guest ran its command and powered off ($(cat "$out/accel" 2>/dev/null))" \
		test -f "$out/exit-code"
	expect "boot $name: console free of kernel complaints (vm/scan-console.sh)" \
		"$REPO/vm/scan-console.sh" "$out/console.log" >>"$out.log" 2>&1
	for t in "$@"; do
		require "boot $name: $t ran, not skipped whole" ran "$out/output.log" "${t%%:*}" "${t#*:}"
	done
	if [ -s "$out/sched-features" ]; then
		expect "boot $name: sched/features had $(cat "$out/sched-features") (vm/guest-init.sh)" \
			features_set "$out"
	fi
	if [ "$rc" != 0 ]; then
		{
			echo "boot $name: vm/run.sh exited $rc; the end of $out.log:"
			grep -vE '^(# )?(not )?ok ' "$out.log" | tail -15
			echo "the end of $out/console.log:"
			tail -15 "$out/console.log" 2>/dev/null || echo "(no console log)"
			if [ -f "$out/hang.txt" ]; then
				echo "where its vCPUs were shortly before the timeout ($out/hang.txt):"
				cat "$out/hang.txt"
			fi
		} | sed 's/^/    /' >>"$results/failures.txt"
	fi
	log "boot $name: done (vm/run.sh exit $rc)"
	grep -E '^(# )?(not )?ok [0-9]+' "$out/output.log" 2>/dev/null | sed 's/^/    /' >&2 || true
}

# guest NAME TOPO APPEND TIMEOUT CMD RESULT...: one guest, start to results.
guest() {
	start_guest "$1" "$2" "$3" "$4" "$5"
	wait
	guest_results "$1" "${@:6}"
}

# finish [TAP_FILE...]: the totals over the host TAP, the guests' output and
# TAP_FILE; prints "N skipped" and "N passed, N failed", fails on a failure.
finish() {
	local summary totals skipped failed elapsed=$(($(date +%s) - started))
	log "results and logs: $results (console logs: $results/*/console.log)"
	shopt -s nullglob
	summary=$(awk -v optional="$REPO/harness/optional-skips" -f "$REPO/harness/tap-summary.awk" "$@" "$host_tap" "$results"/*/output.log)
	shopt -u nullglob
	# Last, so that a log cut to its tail still says what went wrong.
	[ ! -f "$results/failures.txt" ] || cat "$results/failures.txt" >&2
	printf '%s\n' "$summary" | grep -E '^(FAIL|SKIP) ' | sed "s|$results/||" >&2 || true
	printf '%s\n' "$summary" | sed -n 's/^FAIL \([^:]*\.log\): not ok [0-9]* \([A-Za-z0-9_.-]*\)$/\1 \2/p' |
		while read -r file name; do case_why "$file" "$name"; done >&2
	log "took $((elapsed / 60)) min $((elapsed % 60)) s"
	totals=$(printf '%s\n' "$summary" | tail -1)
	skipped=$(echo "$totals" | sed -n 's/.*, \([0-9]*\) skipped$/\1/p')
	failed=$(echo "$totals" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
	echo "$skipped skipped"
	echo "${totals%, * skipped}"
	[ "$failed" = 0 ]
}

# case_why OUTPUT FIXTURE.CASE: a failed kselftest case's own assertions and
# last log lines, so that a CI log cut to its tail says why it failed.
case_why() {
	local name=${2//./\\.}
	echo "    why $2 failed ($(basename "$(dirname "$1")")):"
	sed -n "/^# #  RUN  *$name /,/^# #  *FAIL  *$name\$/p" "$1" |
		grep -E ':(Expected|[0-9]+:)' | tail -8 | sed 's/^# # /      /'
}

# build_for_guests [FUNCTION]: the patched tree, the kernel start_guest
# boots ($guest_flavour, default test) and the selftests; FUNCTION, if
# given, starts in the background once the tree is there. A failure ends
# the run with the count line all the same.
build_for_guests() {
	build_step harness/prepare-tree.sh
	if [ -n "${1:-}" ]; then
		"$1" &
	fi
	# An ARCH with a root of its own: it downloads while the kernel builds
	# (and is stopped if the build fails).
	if [ -n "$ARCH_ROOT_PACKAGES" ]; then
		"$REPO/vm/guest-root.sh" &
		root_job=$!
	fi
	build_step harness/build-kernel.sh "${guest_flavour:-test}"
	build_step harness/build-selftests.sh
	[ -z "${root_job:-}" ] || wait "$root_job" || build_failed vm/guest-root.sh
	root_job=""
}

# build_step SCRIPT ARG...: SCRIPT (a path in the checkout), or the end of
# the run with the count line all the same.
build_step() { "$REPO/$1" "${@:2}" || build_failed "$1"; }
build_failed() {
	[ -z "${root_job:-}" ] || kill "$root_job" 2>/dev/null || true
	echo "stopped: $1 failed (see the messages above)" >&2
	echo "0 passed, 1 failed"
	exit 1
}
