#!/usr/bin/env bash
# Install what the build, the VM loop and the benchmarks need (Debian 12;
# for ARCH, its HOST_PACKAGES in harness/definitions.sh),
# and the PACKAGEs a target needs besides (make deb: debhelper); with
# --only, just the PACKAGEs (make bench HOST=1 on a test machine).
# As root: apt-get installs what is missing. Otherwise: print the command.
# Usage: deps.sh [--only] [PACKAGE...]
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

# The base's source package where the host's own archive has it
# (otherwise make source fetches it).
host_source=$DEBIAN_SOURCE
[ -z "$DEBIAN_SUITE" ] || host_source=""
# shellcheck disable=SC2153 # lib.sh sets the ARCH_ facts
PACKAGES="$ARCH_HOST_PACKAGES $host_source build-essential flex bison bc
libelf-dev libssl-dev cpio rsync ccache dwarves python3 python3-docutils python3-git python3-ply python3-scipy
shellcheck pyflakes3 linux-perf stress-ng rt-tests sockperf dbench iperf3 gnuplot-nox iproute2 kmod
git patch procps systemd-sysv sparse $*"

if [ "${1:-}" = --only ]; then
	shift
	PACKAGES="$*"
fi

missing=""
for pkg in $PACKAGES; do
	dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $pkg"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	die "missing packages:$missing
run as root:  apt-get update && apt-get install -y$missing"
fi
log "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
# A fresh machine has empty package lists.
# shellcheck disable=SC2086
apt-get install -y -qq $missing >/dev/null 2>&1 ||
	{ apt-get update -qq && apt-get install -y -qq $missing >/dev/null; } ||
	die "apt-get install failed for:$missing"
