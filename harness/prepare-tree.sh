#!/usr/bin/env bash
# make tree: build/linux as a git repository, the series as commits on the
# source:
#   tag base: KSRC as it is, committed once (again when KSRC changes);
#   then a commit per patch of patches/<BASE>/series: its hunks (git apply),
#   its shared hunks (patches/shared/) and
#   the overlay files series/new-files gives it, its header the message.
# Edit there with git (commit, commit --fixup and rebase -i, a new commit)
# and write the commits back to patches/ and the overlay with make
# writeback. The tree is remade whenever the source, a patch or an overlay
# file changes, and only then: a file whose content comes out the same
# keeps its timestamp, so make rebuilds what changed. Work not written
# back (changes not committed, commits not written back) makes it refuse.
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

src=$(ksrc)
[ -f "$src/Makefile" ] || die "no kernel source at $src: run 'make source' (or set KSRC=/path/to/linux)"
if [ -e "$src/.config" ] || [ -d "$src/include/config" ]; then
	die "$src was built in place; builds here use O=, so run 'make mrproper' there or point KSRC at a clean tree"
fi
if own_tree; then
	log "KSRC=$src carries the series already: built as it is, no tree made from it"
	exit 0
fi

# commit_patch's commits are scratch too.
export "${TREE_IDENTITY[@]}"
g() { tree_git "$@"; }
base_id="$src $(kernel_version "$src")"

want=$(tree_stamp "$src")
# DISCARD_TREE=1 remakes it whatever it holds.
if [ "${DISCARD_TREE:-0}" != 1 ] && [ "$(cat "$TREE/.git/sync-wakeup-stamp" 2>/dev/null)" = "$want" ]; then
	log "tree $TREE is up to date"
	exit 0
fi
check_manifest

# unsaved_work: tree_work, and the commits made since the tree was
# prepared or last written back (make writeback); none if a remake stopped
# half-way: those commits are its own.
unsaved_work() {
	local head
	tree_work
	[ -z "$(g config syncwakeup.making || true)" ] || return 0
	head=$(g rev-parse HEAD)
	if [ "$head" != "$(g config syncwakeup.prepared || true)" ] &&
		[ "$head" != "$(g config syncwakeup.written || true)" ]; then
		g log --format='  commit %h %s' base..HEAD
	fi
}

keep_or_drop="Keep it: commit it in $TREE (git add -f a new file; git commit --fixup=<commit> and git rebase -i --autosquash base, or a new commit), then 'make writeback'. Drop it: add DISCARD_TREE=1."
old=$(mktemp -d)
trap 'rm -rf "$old"' EXIT
fresh=1
if [ -d "$TREE/.git" ] && g rev-parse -q --verify base >/dev/null &&
	[ -n "$(g config syncwakeup.base || true)" ]; then
	# make tree's own repository: its work can be told apart.
	if [ "${DISCARD_TREE:-0}" != 1 ]; then
		unsaved=$(unsaved_work)
		if [ -n "$unsaved" ]; then
			printf '%s\n' "$unsaved" >&2
			die "$TREE must be made anew (a patch, an overlay file or the source changed), but holds the work above, not written back. $keep_or_drop"
		fi
	fi
	[ "$(g config syncwakeup.base)" != "$base_id" ] || fresh=0
elif [ -e "$TREE" ] && [ "${DISCARD_TREE:-0}" != 1 ]; then
	die "$TREE must be made anew, but is not the git repository make tree makes (an older make tree made it): any work in it cannot be told apart. Move it away, or drop it: add DISCARD_TREE=1."
fi

log "preparing $TREE from $src ($(kernel_version "$src"))"
if [ "$fresh" = 1 ]; then
	base_repo "$TREE"
	g config syncwakeup.base "$base_id"
	# A reworded header keeps its lines that start with #.
	g config commit.cleanup scissors
else
	# What the series touched, to give back its timestamp if it comes out
	# the same.
	g diff --name-only base HEAD >"$old/.list"
	while read -r f; do
		[ -f "$TREE/$f" ] || continue
		mkdir -p "$old/$(dirname "$f")"
		cp -p "$TREE/$f" "$old/$f"
	done <"$old/.list"
	# Until the series is in, the tree is neither up to date nor work.
	rm -f "$TREE/.git/sync-wakeup-stamp"
	g config syncwakeup.making 1
	g reset -q --hard base
	g clean -q -f -d -x
fi
g config syncwakeup.making 1

n=0
for p in $(patch_names); do
	commit_patch "$TREE" "$p" --cleanup=verbatim --no-gpg-sign
	n=$((n + 1))
done
log "committed $n patches with their new files"
while read -r f; do
	[ -z "$f" ] || [ ! -e "$src/$f" ] ||
		die "overlay file $f exists upstream: change it with a patch in patches/, not a copy"
done <<<"$(overlay_files)"

if [ "$fresh" = 0 ]; then
	g diff --name-only base HEAD | LC_ALL=C sort -u - "$old/.list" | while read -r f; do
		if [ -f "$old/$f" ] && [ -f "$TREE/$f" ] && cmp -s "$old/$f" "$TREE/$f"; then
			touch -r "$old/$f" "$TREE/$f"
		fi
	done
fi
g config syncwakeup.prepared "$(g rev-parse HEAD)"
g config --unset syncwakeup.making
echo "$want" >"$TREE/.git/sync-wakeup-stamp"
