#!/usr/bin/env bash
# Does busy_host (bench/lib.sh) tell a busy host from an idle one? Sample
# /proc/loadavg lines; does steal_share read /proc/stat right; does
# guest_clock pick the guest's clock, or refuse? TAP on stdout.
set -eu
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# expect WANT LINE: busy_host on a loadavg of LINE says something (busy) or not (idle).
expect() {
	local want=$1 line=$2 got rc=1
	echo "$line" >"$scratch/loadavg"
	got=$(busy_host "$scratch/loadavg")
	if { [ "$want" = busy ] && [ -n "$got" ]; } || { [ "$want" = idle ] && [ -z "$got" ]; }; then
		rc=0
	fi
	tap "$rc" "busy_host: '$line' is $want${got:+ ($got)}" "busy_host said: '${got}'"
}

expect idle "0.00 0.01 0.05 1/123 4567"
# A build that just ended: the averages are high, nothing runs now.
expect idle "3.10 2.50 1.20 1/123 4567"
expect busy "0.40 0.20 0.10 3/140 4567"

# cpu_ticks and steal_share on two /proc/stat cpu lines: user nice system
# idle iowait irq softirq steal, then guest (already counted in user).
printf 'cpu  100 0 50 800 10 0 0 40 7 0\ncpu0 1 2 3\n' >"$scratch/stat1"
printf 'cpu  600 0 150 1000 10 0 0 240 300 0\n' >"$scratch/stat2"
got=$(steal_share "$(cpu_ticks "$scratch/stat1")" "$(cpu_ticks "$scratch/stat2")")
want="20.0% (200 of 1000 ticks)"
tap "$([ "$got" = "$want" ] && echo 0 || echo 1)" "steal_share: $want" "steal_share said: '$got'"

# guest_clock: CLOCK and the accelerator pick the guest's clock, or stop.
printf 'processor\t: 0\nflags\t\t: fpu %s\n' hypervisor >"$scratch/tcg-cpuinfo"
printf 'processor\t: 0\nflags\t\t: fpu %s\n' vmx >"$scratch/kvm-cpuinfo"
: >"$scratch/kvm"
clock() { # clock CPUINFO VAR=VALUE...: guest_clock's answer, or its error
	local cpuinfo=$1
	shift
	# shellcheck disable=SC2016 # $1 is the inner shell's
	(env -u CLOCK -u ACCEL -u TCG_THREAD ACCEL_CPUINFO="$scratch/$cpuinfo-cpuinfo" \
		ACCEL_KVM_DEV="$scratch/kvm" "$@" bash -c '. "$1"; guest_clock' sh "$BENCH/lib.sh" 2>&1) ||
		echo "exit $?"
}
expect_clock() { # expect_clock WANT CPUINFO VAR=VALUE...: WANT is a clock or an error's text
	local want=$1 got rc=1
	shift
	got=$(clock "$@")
	case "$want" in
	icount | host) [ "$got" != "$want" ] || rc=0 ;;
	*) case "$got" in *"$want"*"exit 1") rc=0 ;; esac ;;
	esac
	tap "$rc" "guest_clock on $1${2:+ with ${*:2}}: $want" "got '$got'"
}
expect_clock icount tcg
expect_clock host tcg TCG_THREAD=multi
expect_clock host kvm
expect_clock icount kvm ACCEL=tcg
expect_clock host tcg CLOCK=host
expect_clock "QEMU counts instructions only under TCG, not kvm" kvm CLOCK=icount
expect_clock "needs single-threaded TCG" tcg CLOCK=icount TCG_THREAD=multi
expect_clock "use one of: auto icount host" tcg CLOCK=wall

tap_end lib-test
