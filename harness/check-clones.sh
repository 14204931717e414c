#!/usr/bin/env bash
# make check-clones: the committed HEAD cloned wherever root might clone it
# (root's home, another user's home, a world-readable folder, a path with a
# space; the homes mode 700), and CLONE_TARGET run in each clone, one after
# another. Ends "N passed, N failed", a clone per case; a clone that passed
# is removed with its build, one that failed is kept for a look.
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"
only_default_arch check-clones

target=${CLONE_TARGET:-check}
user=${CLONE_USER:-swclone}
stamp=$(date +%Y%m%d-%H%M%S)
out="$BUILD/check-clones/$stamp"

# CLONE_USER's home; the user is made, with a home of mode 700 (as
# adduser makes it on Debian 12), if there is none.
other_home() {
	getent passwd "$user" >/dev/null ||
		useradd --create-home --key HOME_MODE=0700 "$user" ||
		die "cannot create user $user: set CLONE_USER to an existing one"
	getent passwd "$user" | cut -d: -f6
}

# clone_one WHERE DIR: clone HEAD into DIR, run the target there as CI
# would (a clean environment: nothing of this make's reaches it), print a
# TAP line.
clone_one() {
	local where=$1 dir=$2 log="$out/$((tap_n + 1)).log" start rc=0 last bdir
	start=$(date +%s)
	{ git clone -q "$REPO" "$dir" && git -C "$dir" checkout -q "$head" &&
		(cd "$dir" && env -i HOME="$HOME" PATH="$PATH" LANG=C.UTF-8 make "$target"); } \
		</dev/null >"$log" 2>&1 || rc=$?
	last=$(tail -n 1 "$log")
	case "$last" in *" passed, 0 failed") ;; *) [ "$rc" != 0 ] || rc=1 ;; esac
	if [ "$rc" = 0 ]; then
		tap 0 "$where: $last ($(($(date +%s) - start)) s)"
		bdir=$(cd "$dir" && bash -c '. harness/lib.sh && echo "$BUILD"')
		rm -rf "$bdir" "$dir"
	else
		tap 1 "$where ($dir)" "$last; log $log"
	fi
}

[ "$(id -u)" = 0 ] || die "run as root: it clones into other users' homes"
head=$(git -C "$REPO" rev-parse HEAD)
[ -z "$(git -C "$REPO" status --porcelain)" ] ||
	log "uncommitted changes are not cloned: the clones get HEAD ${head:0:7}"
mkdir -p "$out"
home=$(other_home)
while IFS='|' read -r where dir; do
	clone_one "$where" "$dir"
done <<EOF
root's home|$HOME/sync-wakeup-$stamp
$user's home|$home/sync-wakeup-$stamp
a world-readable folder|/var/tmp/sync-wakeup-$stamp
a path with a space|/var/tmp/sync wakeup $stamp
EOF
[ "$tap_n" = 4 ] || die "ran $tap_n of the 4 clones"
echo "$((tap_n - tap_failed)) passed, $tap_failed failed"
[ "$tap_failed" = 0 ]
