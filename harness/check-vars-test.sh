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
	env -u KSRC -u TOPO -u TOPOS -u ACCEL -u TCG_THREAD -u CLOCK -u TESTS -u STRESS_SECS \
		-u BOOT_TIMEOUT -u TIMEOUT -u GUEST_JOBS -u FLAVOUR -u SERIES_BUILDS \
		-u BASECONFIG -u LOCALMODCONFIG -u LSMOD -u DBG -u HOST -u CLONE_TARGET -u CLONE_USER -u DISCARD_TREE \
		"$@" "$REPO/harness/check-vars.sh" >/dev/null 2>&1 || got=$?
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
expect 1 SERIES_BUILDS=maybe
expect 0 CLONE_TARGET=lint CLONE_USER=swclone
expect 1 CLONE_TARGET=bench
expect 1 CLONE_USER="a b"
expect 1 CLONE_USER=Root
expect 1 CLONE_USER=root
expect 1 DISCARD_TREE=yes

echo "check-vars: $((tap_n - tap_failed)) passed, $tap_failed failed" >&2
[ "$tap_failed" = 0 ]
