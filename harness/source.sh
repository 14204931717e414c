#!/usr/bin/env bash
# Unpack Debian's kernel source (DEBIAN_SOURCE) under build/src unless KSRC names a tree.
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
tarball=/usr/src/$DEBIAN_SOURCE.tar.xz
[ -f "$tarball" ] || die "$tarball is missing: run 'make deps' as root (apt-get install $DEBIAN_SOURCE)"
src=$(ksrc)
if [ ! -f "$src/Makefile" ] || [ "$tarball" -nt "$src/.unpacked" ]; then
	log "unpacking $tarball"
	rm -rf "$src"
	mkdir -p "$BUILD/src"
	tar -xf "$tarball" -C "$BUILD/src"
	touch "$src/.unpacked"
fi
log "base: $src ($(kernel_version "$src"), Debian $DEBIAN_SOURCE)"
