#!/usr/bin/env bash
# Build this project's kselftests from the prepared tree and install them,
# with kselftest's run_kselftest.sh, into build/kselftest (kselftest-<ARCH>
# for another ARCH; the guest sees it over 9p).
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

targets=$(cd "$REPO/tools/testing/selftests" && find sched -name Makefile -printf '%h\n' | LC_ALL=C sort | tr '\n' ' ')
targets=${targets% }
[ -n "$targets" ] || die "no selftests under tools/testing/selftests/sched"
install=$(kselftest_dir)
objs="$BUILD/selftests${install#"$BUILD/kselftest"}"
rm -rf "$install"
make -s -C "$TREE/tools/testing/selftests" O="$objs" "${KBUILD_ARCH[@]}" \
	TARGETS="$targets" INSTALL_PATH="$install" install \
	>"$objs.log" 2>&1 ||
	{ tail -30 "$objs.log" >&2; die "selftests failed to build: see $objs.log"; }
log "selftests installed in $install ($targets)"
