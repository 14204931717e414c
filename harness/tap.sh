# shellcheck shell=sh
# TAP for every script of the harness, host and guest alike (POSIX sh, so
# the guest's /bin/sh scripts can source it too). Sourced.

# tap STATUS DESCRIPTION [DETAILS]: one TAP line numbered from 1, on stdout
# or appended to $TAP_FILE when that is set; STATUS 0 is ok. A failure is
# counted in tap_failed, its DETAILS (the first 20 lines) follow as
# comments.
tap_n=0
tap_failed=0
TAP_FILE=""
tap() {
	if [ -n "${TAP_FILE:-}" ]; then
		tap_line "$@" >>"$TAP_FILE"
	else
		tap_line "$@"
	fi
}

tap_line() {
	tap_n=$((tap_n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $tap_n $2"
	else
		tap_failed=$((tap_failed + 1))
		echo "not ok $tap_n $2"
		[ -z "${3:-}" ] || printf '%s\n' "$3" | head -n 20 | sed 's/^/#   /'
	fi
}

# tap_end NAME: "NAME: N passed, N failed" on stderr; false if any failed.
tap_end() {
	echo "$1: $((tap_n - tap_failed)) passed, $tap_failed failed" >&2
	[ "$tap_failed" = 0 ]
}
