#!/usr/bin/env bash
# Lay our series and overlay files onto a pristine copy of the kernel source:
#   build/linux = KSRC + quilt push of patches/series + files from the overlay.
# The tree is rebuilt from scratch whenever the source, a patch or an overlay
# file changes; otherwise it is left alone so make sees nothing new. A file
# that a patch or the overlay touched before or touches now keeps its old
# timestamp if its content is the same, and gets a new one otherwise: an
# edit to one changelog does not rebuild the kernel, and a file a patch no
# longer touches is rebuilt although rsync gives it its old upstream time.
# Work done in build/linux and not written back to the repository would be
# lost by that rebuild, so it refuses then (unsaved_work below).
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

src=$(ksrc)
[ -f "$src/Makefile" ] || die "no kernel source at $src: run 'make source' (or set KSRC=/path/to/linux)"
if [ -e "$src/.config" ] || [ -d "$src/include/config" ]; then
	die "$src was built in place; builds here use O=, so run 'make mrproper' there or point KSRC at a clean tree"
fi

overlay_files() {
	# shellcheck disable=SC2086
	(cd "$REPO" && find $OVERLAY_DIRS -type f 2>/dev/null | LC_ALL=C sort)
}

stamp() {
	{
		echo "$src"
		kernel_version "$src"
		cat "$REPO/patches/series" 2>/dev/null || true
		(cd "$REPO" && find patches -type f | LC_ALL=C sort | xargs -r sha256sum)
		(cd "$REPO" && overlay_files | xargs -r sha256sum)
	} | sha256sum | cut -d' ' -f1
}

want=$(stamp)
if [ "$(cat "$TREE/.sync-wakeup-stamp" 2>/dev/null)" = "$want" ]; then
	log "tree $TREE is up to date"
	exit 0
fi

# touched_files: what the applied patches (quilt's backups in .pc) and the
# overlay files copied last time (the manifest) changed in $TREE.
manifest="$TREE/.sync-wakeup-files"
touched_files() {
	[ -d "$TREE/.pc" ] && (cd "$TREE/.pc" && find . -mindepth 2 -type f ! -name '.*' |
		cut -d/ -f3-)
	[ -f "$manifest" ] && cat "$manifest"
	return 0
}

# unsaved_work: each file in $TREE changed since the last preparation and
# not written back. One the series or the overlay touched: its content
# against the checksums taken then, and if it changed, not refreshed into
# its patch (quilt diff -z; if quilt cannot tell, as when a pulled patch
# no longer applies to the backups, it counts) or not the repository's copy
# of an overlay file. Any other file: new or newer than those checksums,
# or gone.
sums="$TREE/.sync-wakeup-sums"
quilt_tree() {
	(cd "$TREE" && QUILT_PATCHES="$REPO/patches" QUILT_PC=.pc quilt --quiltrc=- "$@")
}
unsaved_work() {
	local p f unrefreshed="$old/.unrefreshed"
	touched_files | LC_ALL=C sort -u >"$old/.touched"
	: >"$unrefreshed"
	while read -r p; do
		quilt_tree diff -z -p ab --no-timestamps -P "$p" >"$old/.z" 2>/dev/null ||
			echo '*' >>"$unrefreshed"
		sed -n 's|^+++ b/||p' "$old/.z" >>"$unrefreshed"
	done < <(quilt_tree applied 2>/dev/null || true)
	(cd "$TREE" && { sha256sum --quiet -c "$sums" 2>/dev/null || true; }) |
		sed -n 's/: FAILED.*$//p' | while read -r f; do
			if grep -qxF "$f" "$manifest"; then
				cmp -s "$TREE/$f" "$REPO/$f" || echo "$f"
			elif grep -qxF -e "$f" -e '*' "$unrefreshed"; then
				echo "$f"
			fi
		done
	(cd "$TREE" && find . -path ./.pc -prune -o -type f -newer "$sums" \
		! -name '.sync-wakeup-*' -print | cut -c3-) |
		LC_ALL=C sort | LC_ALL=C comm -23 - "$old/.touched"
	rsync -ani --dry-run --ignore-existing --exclude=/.pc "$src/" "$TREE/" |
		sed -n 's/^>f+* *//p' | LC_ALL=C sort | LC_ALL=C comm -23 - "$old/.touched"
}

keep_or_drop="Keep it: 'quilt refresh' a patched file (QUILT_PATCHES=$REPO/patches QUILT_PC=.pc, in $TREE), copy an overlay file to the repository, or 'quilt add' and refresh a new one. Drop it: add DISCARD_TREE=1."
old=$(mktemp -d)
trap 'rm -rf "$old"' EXIT
if [ "${DISCARD_TREE:-0}" != 1 ] && [ -f "$TREE/Makefile" ]; then
	if [ ! -f "$manifest" ] || [ ! -f "$sums" ]; then
		die "$TREE must be made anew, but holds no record of its last preparation (one stopped half-way, or it predates this check), so work in it cannot be told apart. $keep_or_drop"
	fi
	unsaved=$(unsaved_work | LC_ALL=C sort -u)
	if [ -n "$unsaved" ]; then
		printf '%s\n' "$unsaved" | sed 's/^/  /' >&2
		die "$TREE must be made anew (a patch, an overlay file or the source changed), but the files above hold work not written back. $keep_or_drop"
	fi
fi

log "preparing $TREE from $src ($(kernel_version "$src"))"
mkdir -p "$TREE"
rm -f "$TREE/.sync-wakeup-stamp" "$sums"
touched_files | LC_ALL=C sort -u >"$old/.list"
while read -r f; do
	[ -f "$TREE/$f" ] || continue
	mkdir -p "$old/$(dirname "$f")"
	cp -p "$TREE/$f" "$old/$f"
done <"$old/.list"
# Unchanged files keep their timestamps, so only what we touch is rebuilt.
rsync -a --delete --exclude=.sync-wakeup-files "$src/" "$TREE/"

if grep -qv '^[[:space:]]*\(#\|$\)' "$REPO/patches/series" 2>/dev/null; then
	if ! out=$(quilt_tree push -a --fuzz=0 2>&1); then
		printf '%s\n' "$out" >&2
		bad=$(printf '%s\n' "$out" | sed -n 's/^Patch \(.*\) does not apply.*/\1/p' | head -1)
		file=$(printf '%s\n' "$out" | sed -n 's/.*rejects in file \(.*\)$/\1/p' | head -1)
		die "patch ${bad:-?} does not apply cleanly to $(kernel_version "$src") (file ${file:-?}): rebase it with quilt (push -f, fix, refresh)"
	fi
	log "applied $(quilt_tree applied | wc -l) patches"
fi

n=0
while read -r f; do
	[ -n "$f" ] || continue
	if [ -e "$src/$f" ]; then
		die "overlay file $f exists upstream: change it with a patch in patches/, not a copy"
	fi
	mkdir -p "$TREE/$(dirname "$f")"
	cp "$REPO/$f" "$TREE/$f"
	n=$((n + 1))
done <<<"$(overlay_files)"
log "copied $n overlay files"

overlay_files >"$manifest"
touched_files | LC_ALL=C sort -u | LC_ALL=C comm - "$old/.list" | tr -d '\t' |
	while read -r f; do
		if [ -f "$old/$f" ] && [ -f "$TREE/$f" ] && cmp -s "$old/$f" "$TREE/$f"; then
			touch -r "$old/$f" "$TREE/$f"
		elif [ -f "$TREE/$f" ]; then
			touch "$TREE/$f"
		fi
	done

# The record unsaved_work() compares with: written last, so that every
# file this script wrote is older.
touched_files | LC_ALL=C sort -u | while read -r f; do
	[ ! -f "$TREE/$f" ] || printf '%s\n' "$f"
done | (cd "$TREE" && xargs -r -d '\n' sha256sum) >"$sums"
echo "$want" >"$TREE/.sync-wakeup-stamp"
