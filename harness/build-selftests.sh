#!/usr/bin/env bash
# Build this project's kselftests from the prepared tree and install them,
# with kselftest's run_kselftest.sh, into build/kselftest (the guest sees it
# over the 9p root).
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

targets=$(cd "$REPO/tools/testing/selftests" && find sched -name Makefile -printf '%h\n' | LC_ALL=C sort | tr '\n' ' ')
targets=${targets% }
[ -n "$targets" ] || die "no selftests under tools/testing/selftests/sched"
rm -rf "$BUILD/kselftest"
make -s -C "$TREE/tools/testing/selftests" O="$BUILD/selftests" \
	TARGETS="$targets" INSTALL_PATH="$BUILD/kselftest" install \
	>"$BUILD/selftests.log" 2>&1 ||
	{ tail -30 "$BUILD/selftests.log" >&2; die "selftests failed to build: see $BUILD/selftests.log"; }
log "selftests installed in $BUILD/kselftest ($targets)"
