#!/usr/bin/env bash
# Unpack Debian's linux-source-6.12 under build/src unless KSRC names a tree.
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

if [ -n "${KSRC:-}" ]; then
	# Assignments, so that a failure stops the script under set -e.
	src=$(ksrc)
	version=$(kernel_version "$src")
	log "base: $src ($version, from KSRC)"
	exit 0
fi
tarball=/usr/src/linux-source-6.12.tar.xz
[ -f "$tarball" ] || die "$tarball is missing: run 'make deps' as root (apt-get install linux-source-6.12)"
src=$(ksrc)
if [ ! -f "$src/Makefile" ] || [ "$tarball" -nt "$src/.unpacked" ]; then
	log "unpacking $tarball"
	rm -rf "$src"
	mkdir -p "$BUILD/src"
	tar -xf "$tarball" -C "$BUILD/src"
	touch "$src/.unpacked"
fi
log "base: $src ($(kernel_version "$src"), Debian linux-source-6.12)"
