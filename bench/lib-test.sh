#!/usr/bin/env bash
# Does busy_host (bench/lib.sh) tell a busy host from an idle one? Sample
# /proc/loadavg lines; TAP on stdout.
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

echo "lib-test: $((tap_n - tap_failed)) passed, $tap_failed failed" >&2
[ "$tap_failed" = 0 ]
