#!/usr/bin/env bash
# The variables the targets read, checked before any work (a bad one found
# after a 30-minute build wastes the build): each set one must be valid, and
# the checkout must not be under /tmp. Exits 1 with what to use instead.
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

# number NAME MIN MAX: $NAME, if set, is a whole number in [MIN, MAX].
number() {
	local name=$1 min=$2 max=$3 val=${!1:-}
	[ -n "$val" ] || return 0
	case "$val" in
	*[!0-9]*) die "$name=$val is not a whole number: use one from $min to $max" ;;
	esac
	if [ "$val" -lt "$min" ] || [ "$val" -gt "$max" ]; then
		die "$name=$val is out of range: use one from $min to $max"
	fi
}

# one_of NAME WORD...: $NAME, if set, is one of the WORDs (each word of it,
# for lists).
one_of() {
	local name=$1 val=${!1:-} w ok
	shift
	for w in $val; do
		ok=no
		case " $* " in *" $w "*) ok=yes ;; esac
		[ "$ok" = yes ] || die "$name=$val: unknown '$w': use $*"
	done
}

# The guest mounts a tmpfs on /tmp and would not see a checkout there.
case "$REPO/" in
/tmp/*) die "this checkout is under /tmp ($REPO), which every guest covers with its own tmpfs: clone the repository somewhere else, e.g. under \$HOME" ;;
esac

if [ -n "${KSRC:-}" ]; then
	if [ ! -f "$KSRC/Makefile" ] || [ ! -f "$KSRC/kernel/sched/fair.c" ]; then
		die "KSRC=$KSRC is not a kernel source tree (no Makefile and kernel/sched/fair.c): point it at one, or unset it for Debian's linux-source-6.12"
	fi
fi
one_of FLAVOUR bench test
one_of TOPO flat smt llc2
one_of TOPOS flat smt llc2
one_of ACCEL auto kvm tcg
if [ "${ACCEL:-auto}" = kvm ] && [ ! -w "${ACCEL_KVM_DEV:-/dev/kvm}" ]; then
	die "ACCEL=kvm, but /dev/kvm is not usable here: use ACCEL=tcg or auto"
fi
one_of TCG_THREAD single multi
one_of CLOCK auto icount host
one_of SERIES_BUILDS yes no
one_of CLONE_TARGET check lint
case "${CLONE_USER:-}" in
root) die "CLONE_USER=root: root's home is a case of its own; name another user (made if missing)" ;;
*[!a-z0-9_-]* | [!a-z_]*) die "CLONE_USER=$CLONE_USER is not a user name: use lower-case letters, digits, _ and -" ;;
esac
one_of TESTS sched/sync_wakeup:sync_wakeup_iface sched/sync_wakeup:sync_wakeup_fuzz \
	sched/sync_wakeup:sync_wakeup_placement sched/sync_wakeup:sync_wakeup_boot \
	sched/sync_wakeup:sync_wakeup_promise
one_of LOCALMODCONFIG 0 1
one_of DBG 0 1
one_of HOST 0 1
one_of DISCARD_TREE 0 1
for v in BASECONFIG LSMOD; do
	if [ -n "${!v:-}" ] && [ ! -r "${!v}" ]; then
		die "$v=${!v} is not a readable file: name an existing one, or unset $v"
	fi
done
number TIMEOUT 60 86400
number BOOT_TIMEOUT 300 86400
number GUEST_JOBS 1 4
# The torture needs more than its 10 s stall limit, and the boot has to
# finish within BOOT_TIMEOUT: about 300 s of it go to booting and setup.
boot_timeout=${BOOT_TIMEOUT:-2400}
if [ -n "${STRESS_SECS:-}" ] && [ "$STRESS_SECS" != 0 ]; then
	number STRESS_SECS 20 $((boot_timeout - 300))
fi
