#!/usr/bin/env bash
# The root file system of a guest of another architecture than the host's
# (ARCH with ROOT_PACKAGES_<ARCH> in harness/definitions.sh): Debian 12 for
# that architecture, made once with mmdebstrap and kept in build/root-<ARCH>
# until its package list changes. The guest mounts it over 9p as its root,
# and the checkout read-only at the same path as here: its init
# (/sbin/sw-init) does that, then runs vm/guest-init.sh as an x86_64 guest
# does. Nothing to do for an ARCH that boots the host's root.
# As root: mmdebstrap, and qemu-user registered with the host's binfmt_misc
# (which stays registered; the kernel then runs that ARCH's programs).
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"

[ -n "$ARCH_ROOT_PACKAGES" ] || exit 0
root=$(guest_root)

# sw_init: the root's /sbin/sw-init.
sw_init() {
	cat <<'INIT'
#!/bin/sh
# PID 1 of a guest with a root of its own (vm/guest-root.sh): the checkout,
# share "repo", at the path that sw_repo= on the kernel command line gives,
# then the harness' init.
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,ro repo "$sw_repo" ||
	echo "sw-init: cannot mount the checkout at $sw_repo" >/dev/console
exec "$sw_repo/vm/guest-init.sh"
INIT
}

# What the root was made of: remade when that changes.
want="debian bookworm $ARCH: $ARCH_ROOT_PACKAGES; sw-init $(sw_init | cksum)"

# mmdebstrap runs the root's package scripts through qemu-user, which the
# kernel finds through binfmt_misc; Debian's qemu-user-static ships the
# entry but registers it only where systemd-binfmt runs.
register_binfmt() {
	local conf=/usr/lib/binfmt.d/qemu-$1.conf
	[ -e "/proc/sys/fs/binfmt_misc/qemu-$1" ] && return 0
	[ -r "$conf" ] || die "no $conf: install qemu-user-static (make deps ARCH=$ARCH)"
	if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
		mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc ||
			die "cannot mount binfmt_misc: qemu-$1 cannot run the root's package scripts"
	fi
	grep -v '^#' "$conf" >/proc/sys/fs/binfmt_misc/register ||
		die "cannot register qemu-$1 with binfmt_misc (as root: grep -v '^#' $conf >/proc/sys/fs/binfmt_misc/register)"
}

make_root() {
	local tmp="$root.tmp" start
	rm -rf "$tmp"
	start=$(date +%s)
	log "making the $ARCH guest root in $root (mmdebstrap, minutes: every package is downloaded)"
	# shellcheck disable=SC2086 # one package a word
	mmdebstrap --arch="$ARCH" --variant=minbase --include="$(echo $ARCH_ROOT_PACKAGES | tr ' ' ,)" \
		bookworm "$tmp" http://deb.debian.org/debian >"$root.log" 2>&1 ||
		{ tail -20 "$root.log" >&2; die "mmdebstrap failed: see $root.log"; }
	sw_init >"$tmp/sbin/sw-init"
	chmod 755 "$tmp/sbin/sw-init"
	echo "$want" >"$tmp/.sw-root"
	rm -rf "$root"
	mv "$tmp" "$root"
	log "made the $ARCH guest root in $(($(date +%s) - start)) s ($(du -sh "$root" | cut -f1))"
}

# One maker at a time (make check and make bench may both want it); a
# maker stopped by its caller stops mmdebstrap too.
mkdir -p "$(dirname "$root")"
exec 9>"$root.lock"
flock 9
trap 'pkill -P $$ 2>/dev/null; exit 1' TERM
if [ "$(cat "$root/.sw-root" 2>/dev/null)" != "$want" ]; then
	[ "$(id -u)" = 0 ] || die "the $ARCH guest root is made as root (mmdebstrap, binfmt_misc)"
	register_binfmt "${ARCH_QEMU#qemu-system-}"
	make_root
fi
# The checkout's mount point, at its path here (this root serves the
# checkout it is built in).
mkdir -p "$root$REPO"
