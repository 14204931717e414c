#!/usr/bin/env bash
# Does make bench HOST=1 stop before any work where it cannot run: not root,
# arms this kernel lacks, a debugfs that refuses writes? The kernel's files
# are stood in for by BENCH_POLICY and BENCH_FEATURES. TAP on stdout.
set -eu
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
: >"$scratch/policy"
mkdir "$scratch/results"

# expect WHAT WANT_TEXT VAR=VALUE...: bench/run.sh with HOST=1 and these
# settings (run by $as, if set) exits 1, says WANT_TEXT and leaves no
# results directory.
as=""
expect() {
	local what=$1 want=$2 out rc=1
	shift 2
	# QUICK=1 WORKLOADS=pipe: a refusal that regresses costs seconds, not a
	# bench. None of the caller's variables (make check TESTS=...) reach it.
	# shellcheck disable=SC2086 # $as: a command and its options
	if ! out=$(as_typed HOST=1 QUICK=1 WORKLOADS=pipe BENCH_RESULTS="$scratch/results" \
		"$@" $as "$REPO/bench/run.sh" 2>&1); then
		case "$out" in *"$want"*) [ -n "$(ls "$scratch/results")" ] || rc=0 ;; esac
	fi
	tap "$rc" "$what" "$out"
}

no_feature="BENCH_POLICY=$scratch/missing"
expect "HOST=1 on a kernel without the feature refuses ARMS=hint-only" \
	"only ARMS=off can run" "$no_feature" ARMS="off hint-only"
expect "HOST=1 on a kernel with the feature refuses a debugfs it cannot read" \
	"SYNC_PAIR_AFFINE in $scratch/none" BENCH_POLICY="$scratch/policy" BENCH_FEATURES="$scratch/none"
# Lockdown: the file reads, a write fails. A read-only bind mount does that.
mkdir "$scratch/ro"
echo "GENTLE_FAIR_SLEEPERS NO_SYNC_PAIR_AFFINE" >"$scratch/ro/features"
if mount --bind "$scratch/ro" "$scratch/ro" 2>/dev/null; then
	trap 'umount "$scratch/ro"; rm -rf "$scratch"' EXIT
	mount -o remount,bind,ro "$scratch/ro"
	expect "HOST=1 on a kernel with the feature refuses a debugfs that refuses writes" \
		"SYNC_PAIR_AFFINE in $scratch/ro/features" BENCH_POLICY="$scratch/policy" BENCH_FEATURES="$scratch/ro/features"
else
	tap 0 "HOST=1 refuses a debugfs that refuses writes # SKIP cannot bind-mount here"
fi
expect "HOST=1 refuses CLOCK=icount: no VM, no QEMU clock" "HOST=1 runs on this machine" "$no_feature" CLOCK=icount
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	# nobody cannot read a checkout in root's home (mode 700): it runs a
	# copy of the scripts in a folder it can read.
	copy=$(mktemp -d -p /var/tmp)
	trap 'umount "$scratch/ro" 2>/dev/null || :; rm -rf "$scratch" "$copy"' EXIT
	cp -r "$REPO/bench" "$REPO/harness" "$copy/"
	chmod -R a+rX "$copy"
	as="setpriv --reuid=65534 --regid=65534 --clear-groups"
	REPO=$copy expect "HOST=1 refuses a user who is not root" "must run as root" "$no_feature"
	as=""
else
	tap 0 "HOST=1 refuses a user who is not root # SKIP needs root and setpriv"
fi

tap_end host-test
