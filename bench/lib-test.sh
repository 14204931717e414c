#!/usr/bin/env bash
# Does busy_host (bench/lib.sh) tell a busy host from an idle one? Sample
# /proc/loadavg lines; TAP on stdout.
set -eu
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
n=0

# expect WANT LINE: busy_host on a loadavg of LINE says something (busy) or not (idle).
expect() {
	local want=$1 line=$2 got
	echo "$line" >"$scratch/loadavg"
	got=$(busy_host "$scratch/loadavg")
	n=$((n + 1))
	if { [ "$want" = busy ] && [ -n "$got" ]; } || { [ "$want" = idle ] && [ -z "$got" ]; }; then
		echo "ok $n busy_host: '$line' is $want${got:+ ($got)}"
	else
		echo "not ok $n busy_host: '$line' is not $want${got:+ ($got)}"
	fi
}

expect idle "0.00 0.01 0.05 1/123 4567"
# A build that just ended: the averages are high, nothing runs now.
expect idle "3.10 2.50 1.20 1/123 4567"
expect busy "0.40 0.20 0.10 3/140 4567"
