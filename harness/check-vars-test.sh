#!/usr/bin/env bash
# Does harness/check-vars.sh refuse each kind of bad variable, and accept the
# defaults? TAP on stdout.
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

# expect WANT VAR=VALUE...: check-vars.sh exits WANT with these set.
expect() {
	local want=$1 got=0
	shift
	as_typed "$@" "$REPO/harness/check-vars.sh" >/dev/null 2>&1 || got=$?
	[ "$got" = "$want" ] && rc=0 || rc=1
	tap "$rc" "check-vars $([ "$want" = 0 ] && echo accepts || echo refuses) ${*:-the defaults}" \
		"exit status $got, wanted $want"
}

expect 0
expect 0 TOPOS="flat smt llc2" STRESS_SECS=0 BOOT_TIMEOUT=1200 ACCEL=tcg TCG_THREAD=single
expect 0 TESTS="sched/sync_wakeup:sync_wakeup_iface sched/sync_wakeup:sync_wakeup_placement"
expect 1 KSRC=/nonexistent
expect 1 TOPO=numa
expect 1 TOPOS="flat numa"
expect 1 ACCEL=xen
expect 1 TCG_THREAD=2
expect 1 CLOCK=wall
expect 0 CLOCK=icount
expect 1 TESTS=sched/sync_wakeup:nope
expect 1 STRESS_SECS=5
expect 1 STRESS_SECS=2200
expect 0 BASECONFIG=/proc/self/status LOCALMODCONFIG=1 DBG=0 HOST=1
expect 1 BASECONFIG=/nonexistent/config
expect 1 LSMOD=/nonexistent/lsmod
expect 1 LOCALMODCONFIG=yes
expect 1 DBG=2
expect 1 HOST=true
expect 1 STRESS_SECS=ninety
expect 1 BOOT_TIMEOUT=10m
expect 1 GUEST_JOBS=0
expect 1 FLAVOUR=debug
expect 0 FLAVOUR=rt
expect 1 SERIES_BUILDS=maybe
expect 0 CLONE_TARGET=lint CLONE_USER=swclone
expect 1 CLONE_TARGET=bench
expect 1 CLONE_USER="a b"
expect 1 CLONE_USER=Root
expect 1 CLONE_USER=root
expect 1 DISCARD_TREE=yes

expect 1 ROUNDS=abc
expect 1 ARMS=off,hint-only
expect 0 ROUNDS=2 ARMS="off honest-waker" WORKLOADS=pipe NOBUILD=1 BOOTS=2 DURATION=5
expect 1 NOBUILD=yes
expect 1 BOOTS=0
expect 1 DURATION=0
expect 1 REPEATS=0
expect 0 REPEATS=10 SCHED_FEATURES="NEXT_BUDDY HRTICK"
expect 1 SCHED_FEATURES="NEXT-BUDDY"
expect 1 SCHED_FEATURES="next_buddy"

# make_vars WANT_TEXT ARG...: make vars with these command-line ARGs stops
# with WANT_TEXT (or passes, for WANT_TEXT "").
make_vars() {
	local want=$1 out rc
	shift
	out=$(as_typed make -s -C "$REPO" vars "$@" 2>&1) && rc=0 || rc=1
	if [ -z "$want" ]; then
		[ "$rc" = 0 ] && [ -z "$out" ] && rc=0 || rc=1
	else
		[ "$rc" = 1 ] && grep -qF -- "$want" <<<"$out" && rc=0 || rc=1
	fi
	tap "$rc" "make vars $* $([ -n "$want" ] && echo "stops: $want" || echo passes)" "$out"
}
make_vars "unknown variable FLAVOR=test: did you mean FLAVOUR?" FLAVOR=test
make_vars "unknown variable ROUND=3: did you mean ROUNDS?" ROUND=3
make_vars "unknown variable XYZZY=1: make help lists" XYZZY=1
make_vars "O=/var/tmp/x: the builds go under build/" O=/var/tmp/x
make_vars "ARCH=sparc: use one of: x86_64 arm64" ARCH=sparc
make_vars "TOPO=flat: unknown 'flat': use cls2 asym" ARCH=arm64 TOPO=flat
make_vars "BASE=6.1: use one of: 7.3 6.12" BASE=6.1
make_vars "" BASE=6.12
make_vars "CROSS_COMPILE: ARCH= picks" CROSS_COMPILE=aarch64-linux-gnu-
make_vars "" ARCH=arm64 TOPOS="cls2 asym"
make_vars "ACCEL=kvm: only x86_64 guests run under KVM" ARCH=arm64 ACCEL=kvm
make_vars "LLVM=1: the kernels are built with gcc" LLVM=1
make_vars "ROUNDS=abc is not a positive integer" ROUNDS=abc
make_vars "" TOPO=smt ROUNDS=2 HOST=1 QUICK=1
make_vars "" V=1 W=1 KCFLAGS=-g
make_vars "unknown variable AB=1: make help" AB=1
make_vars "'foo.bar' is not a variable name" foo.bar=1

# A target for ARCH_DEFAULT guests only stops in make vars, before make's
# source step (which logs "==>"), not in its own script after it. TOPO=none
# stops make vars later, should it let the target through.
out=$(as_typed make -s -C "$REPO" bloat ARCH=arm64 TOPO=none 2>&1) && rc=1 || rc=0
grep -qF "make bloat is for x86_64 only" <<<"$out" && ! grep -q '^==>' <<<"$out" || rc=1
tap "$rc" "make bloat ARCH=arm64 stops before any work" "$out"
for t in $DEFAULT_ARCH_TARGETS; do expect 1 GOALS="$t" ARCH=arm64; done
expect 0 GOALS="check bench" ARCH=arm64
# A script's own guard names a listed target, or fails.
out=$(ARCH=arm64 bash -c '. "$1/harness/lib.sh"; only_default_arch "make bloat"' sh "$REPO" 2>&1) &&
	rc=1 || rc=0
grep -qF "not in DEFAULT_ARCH_TARGETS" <<<"$out" || rc=1
tap "$rc" "only_default_arch refuses a name DEFAULT_ARCH_TARGETS does not list" "$out"

# A make that runs ours passes its command line on: not ours to judge.
outer=$(mktemp -d -p /var/tmp)
# shellcheck disable=SC2016 # $(MAKE) is the makefile's
printf 'all:\n\t@$(MAKE) -s -C "%s" vars\n' "$REPO" >"$outer/Makefile"
out=$(as_typed make -s -C "$outer" BUILD_ID=5 2>&1) && rc=0 || rc=1
rm -rf "$outer"
tap "$rc" "make vars run by another make BUILD_ID=5 passes" "$out"

# make help describes every target on a line of its own under Targets, and
# every variable at the head of a line under Variables (NAME, NAME=... or
# a list of names), its defaults filled in.
help=$(as_typed make -s -C "$REPO" help)
described() { # described SECTION: the names at the head of its lines
	awk -v s="$1" '/^[A-Z]/ { on = ($1 == s); next }
		on && /^  [^ ]/ { sub(/^  /, ""); sub(/  .*/, ""); n = split($0, w, " ")
			for (i = 1; i <= n; i++) { sub(/=.*/, "", w[i]); print w[i] } }' <<<"$help"
}
missing=""
# shellcheck disable=SC2013 # a word per target
for w in $(sed -n 's/^\.PHONY://p' "$REPO/Makefile"); do
	described Targets | grep -qx -- "$w" || missing+=" target:$w"
done
# shellcheck disable=SC2086
for w in $VARIABLES $KBUILD_VARIABLES; do
	described Variables | grep -qx -- "$w" || missing+=" variable:$w"
done
grep -q @ <<<"$help" && missing+=" an @NAME@ left unfilled"
[ -z "$missing" ] && rc=0 || rc=1
tap "$rc" "make help describes every target and every variable of harness/definitions.sh" "missing:$missing"

tap_end check-vars
