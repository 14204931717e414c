#!/usr/bin/env bash
# Unpack Debian's kernel source of BASE (DEBIAN_SOURCE) under build/src
# unless KSRC names a tree. A base from another suite of Debian's archive
# (DEBIAN_SUITE) is fetched with a sources list and package lists of its
# own under build/apt, so the host's apt setup and packages stay as they
# are; the package is kept there.
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

# fetch: build/apt/<package>_<version>.deb from DEBIAN_SUITE, the version
# definitions.sh pins; stops, naming the versions there are, if the
# archive no longer carries it.
fetch() {
	local dir="$BUILD/apt" uri have
	local deb="$dir/${DEBIAN_SOURCE}_${DEBIAN_VERSION}_all.deb"
	[ -f "$deb" ] && echo "$deb" && return 0
	# The archive the host's own sources name (deb.debian.org unless a
	# mirror is set).
	# shellcheck disable=SC2016 # apt's own $(FIELD), not the shell's
	uri=$(apt-get indextargets --format '$(REPO_URI)' 2>/dev/null | grep -m1 '/debian/$' || true)
	uri=${uri:-http://deb.debian.org/debian/}
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri $DEBIAN_SUITE main" >"$dir/sources.list"
	local opts=(-o "Dir::Etc::SourceList=$dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache" -o Debug::NoLocking=1)
	log "fetching $DEBIAN_SOURCE $DEBIAN_VERSION from $uri $DEBIAN_SUITE"
	apt-get -qq "${opts[@]}" update >&2 || die "apt-get update of $DEBIAN_SUITE from $uri failed"
	have=$(apt-cache "${opts[@]}" madison "$DEBIAN_SOURCE" | awk -F' [|] ' '{ print $2 }' | xargs)
	case " $have " in
	*" $DEBIAN_VERSION "*) ;;
	*) die "Debian's $DEBIAN_SUITE no longer has $DEBIAN_SOURCE $DEBIAN_VERSION (it has: ${have:-none}): set DEBIAN_VERSION_${BASE//./_} in harness/definitions.sh to one of them, or KSRC=/path/to/linux" ;;
	esac
	# apt's sandbox user cannot write into a checkout under a home of mode 700.
	(cd "$dir" && apt-get -qq "${opts[@]}" -o APT::Sandbox::User=root download "$DEBIAN_SOURCE=$DEBIAN_VERSION" >&2) ||
		die "apt-get download $DEBIAN_SOURCE=$DEBIAN_VERSION failed"
	[ -f "$deb" ] || die "apt-get download left no $deb"
	echo "$deb"
}

# tarball: the source tarball of the base, from the host's package or the
# fetched one.
tarball() {
	local deb
	if [ -z "$DEBIAN_SUITE" ]; then
		[ -f "/usr/src/$DEBIAN_SOURCE.tar.xz" ] ||
			die "/usr/src/$DEBIAN_SOURCE.tar.xz is missing: run 'make deps' as root (apt-get install $DEBIAN_SOURCE)"
		echo "/usr/src/$DEBIAN_SOURCE.tar.xz"
		return
	fi
	# A command substitution does not stop on an error (no inherit_errexit).
	deb=$(fetch) || exit 1
	if [ ! -f "$BUILD/apt/x/usr/src/$DEBIAN_SOURCE.tar.xz" ] || [ "$deb" -nt "$BUILD/apt/x/usr/src/$DEBIAN_SOURCE.tar.xz" ]; then
		rm -rf "$BUILD/apt/x"
		dpkg-deb -x "$deb" "$BUILD/apt/x"
	fi
	echo "$BUILD/apt/x/usr/src/$DEBIAN_SOURCE.tar.xz"
}

if [ -n "${KSRC:-}" ]; then
	# Assignments, so that a failure stops the script under set -e.
	src=$(ksrc)
	version=$(kernel_version "$src")
	log "base: $src ($version, from KSRC)"
	exit 0
fi
tarball=$(tarball) || exit 1
src=$(ksrc)
if [ ! -f "$src/Makefile" ] || [ "$tarball" -nt "$src/.unpacked" ]; then
	log "unpacking $tarball"
	rm -rf "$src"
	mkdir -p "$BUILD/src"
	tar -xf "$tarball" -C "$BUILD/src"
	touch "$src/.unpacked"
fi
log "base: $src ($(kernel_version "$src"), Debian $DEBIAN_SOURCE${DEBIAN_SUITE:+ from $DEBIAN_SUITE})"
