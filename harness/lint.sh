#!/usr/bin/env bash
# Static checks a reviewer runs first, as TAP lines on stdout, the count on
# stderr; exits 1 if any check failed: make series, checkpatch --strict on
# every mail it writes, a maintainer for every new file, docutils on the new
# documentation, systemd-analyze on the distro unit, the console scanner, the
# TAP summary and the variable checks on samples, shellcheck and pyflakes3
# on the harness.
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

checkpatch="$TREE/scripts/checkpatch.pl"
[ -f "$checkpatch" ] || die "no $checkpatch: run 'make tree' first"

# The series as it would be posted, generated from patches/ and the
# overlay; the mails are scratch, so any identity signs them off.
export SERIES_WORK="$BUILD/lint/series"
(git_identity) >/dev/null 2>&1 || export GIT_AUTHOR_NAME="make lint" GIT_AUTHOR_EMAIL="lint@invalid"
if own_tree; then
	tap 0 "make series and checkpatch --strict on its mails # SKIP KSRC carries the series: its commits are yours to check (scripts/checkpatch.pl --strict -g BASE..HEAD there)"
else
	out=$("$REPO/harness/series.sh" 2>&1) && rc=0 || rc=1
	tap "$rc" "make series generates the mails from patches/ and the overlay" "$out"
	check_mails "$TREE" "$SERIES_WORK/out"
fi

for f in $(cd "$REPO" && find Documentation -name '*.rst' | LC_ALL=C sort); do
	out=$("$PYTHON" - "$REPO/$f" 2>&1 <<'PY'
import sys
import docutils.core
docutils.core.publish_doctree(open(sys.argv[1]).read(), source_path=sys.argv[1],
    settings_overrides={"report_level": 2, "halt_level": 5})
PY
	) && [ -z "$out" ] && rc=0 || rc=1
	tap "$rc" "docutils reports nothing on $f" "$out"
done

# The distro opt-in unit; systemd-analyze is part of systemd, on every Debian.
unit=contrib/distro/sched-sync-pair-affine.service
if command -v systemd-analyze >/dev/null; then
	out=$(cd "$REPO" && systemd-analyze verify "./$unit" 2>&1) && rc=0 || rc=1
	tap "$rc" "systemd-analyze verify $unit" "$out"
else
	tap 0 "systemd-analyze verify $unit # SKIP systemd-analyze is not installed"
fi

# The per-service drop-in, on a stand-in service of its own.
dropin=contrib/distro/sync-wakeup-policy.conf
if command -v systemd-analyze >/dev/null; then
	units=$(mktemp -d)
	mkdir "$units/sync-wakeup-example.service.d"
	printf '[Service]\nExecStart=/bin/true\n' >"$units/sync-wakeup-example.service"
	cp "$REPO/$dropin" "$units/sync-wakeup-example.service.d/"
	# A warning (an unknown key, a bad quote) fails it too: verify exits 0 on those.
	out=$(SYSTEMD_UNIT_PATH="$units:" systemd-analyze verify "$units/sync-wakeup-example.service" 2>&1) &&
		[ -z "$out" ] && rc=0 || rc=1
	rm -rf "$units"
	tap "$rc" "systemd-analyze verify a service with $dropin" "$out"
else
	tap 0 "systemd-analyze verify a service with $dropin # SKIP systemd-analyze is not installed"
fi

# self_test SCRIPT WHAT UNIT: one line for a host-side test script, which
# prints TAP and exits non-zero on a failure; its failures as the details.
self_test() {
	local out rc why
	# As typed: none of the run's own variables (ARCH=arm64, say) reach them.
	out=$(as_typed "$REPO/$1" 2>&1) && rc=0 || rc=1
	# A script that stops before its TAP lines says why at its end.
	why=$(grep -A3 '^not ok' <<<"$out" || tail -5 <<<"$out")
	tap "$rc" "$2 ($(grep -c '^ok' <<<"$out") $3)" "$why"
}
# The console scanner every boot relies on, on sample lines.
self_test vm/scan-console-test.sh "vm/scan-console.sh tells kernel complaints from a clean boot" "sample lines"
self_test vm/hang-snapshot-test.sh "vm/run.sh leaves where each vCPU of a hung guest is, named from System.map" cases
self_test vm/run-test.sh "vm/run.sh gives QEMU the icount clock only where QEMU has one" cases
self_test harness/repeats-test.sh "harness/repeats.py counts failures per test and gives each bound its spread" cases
self_test harness/tap-summary-test.sh "harness/tap-summary.awk counts plans, crashes and skips right" samples
self_test bench/workloads-test.py "bench/workloads.py parses the tools' captured outputs as raw.csv has them" cases
self_test bench/analyze-test.sh "bench/analyze.py gives a change a sign only where its 95% interval excludes zero; pairs runs by round within a boot" cases
self_test bench/host-test.sh "make bench HOST=1 stops before any work where it cannot run" cases
self_test bench/lib-test.sh "bench/lib.sh tells a busy host from an idle one and picks the guest clock" cases
self_test harness/accel-test.sh "harness/lib.sh picks KVM or TCG and their QEMU arguments right" cases
self_test harness/check-vars-test.sh "harness/check-vars.sh refuses bad variables before any work" cases
self_test harness/prepare-tree-test.sh "harness/prepare-tree.sh refuses to remake a tree over work not written back" cases

out=$(cd "$REPO" && find .ci harness vm bench stress -type f \( -name "*.sh" -o -name run \) -print0 | xargs -0 shellcheck -x 2>&1) && rc=0 || rc=1
tap "$rc" "shellcheck on the harness" "$out"

out=$(cd "$REPO" && find harness vm bench stress -type f -name "*.py" -print0 | xargs -0 pyflakes3 2>&1) && rc=0 || rc=1
tap "$rc" "pyflakes3 on the harness's Python" "$out"

tap_end lint
