#!/usr/bin/env bash
# make writeback: the commits since base of BASE's tree (build/linux, or
# build/linux-<BASE>), written back here in their order: each a patch in
# patches/<BASE>/ (its message the header, its changes to upstream files
# the hunks), its changes to files an earlier commit added in
# patches/shared/ (the bases share them), the files it adds under the
# overlay directories copied to their paths, patches/<BASE>/series and
# series/new-files rewritten. The other base's tree is remade from them
# when next used. Nothing is written unless the result makes the same tree
# again (checked with a scratch index), the tree holds nothing else (see
# tree_work), and nothing here changed since make tree: it would be lost.
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

not_own_tree "commit there: make writeback writes back the tree make tree makes"
g() { tree_git "$@"; }
if ! { [ -d "$TREE/.git" ] && g rev-parse -q --verify base >/dev/null; }; then
	die "$TREE is not a tree make tree made: nothing to write back"
fi
[ -z "$(g config syncwakeup.making || true)" ] ||
	die "$TREE was being made when make tree stopped: run make tree (DISCARD_TREE=1 if it refuses)"
work=$(tree_work)
if [ -n "$work" ]; then
	printf '%s\n' "$work" >&2
	die "$TREE holds the above besides its commits: commit changes (git add -f a new file), finish the operation, check out the branch; drop what is not wanted (git checkout, git clean -x, git stash drop, git branch -D); then make writeback"
fi
src=$(ksrc)
if [ "$(tree_stamp "$src")" != "$(cat "$TREE/.git/sync-wakeup-stamp" 2>/dev/null)" ]; then
	die "patches/, series/new-files or the overlay changed since make tree made $TREE: writing back would undo that. Carry your commits over by hand (git -C $TREE format-patch base; DISCARD_TREE=1 make tree; git am them) and write back then"
fi
if git -C "$REPO" rev-parse --git-dir >/dev/null 2>&1; then
	# shellcheck disable=SC2086 # a list of directories
	changed=$(git -C "$REPO" status --porcelain -- patches series $OVERLAY_DIRS)
	[ -z "$changed" ] || die "$(printf '%s\n' "$changed" | tr '\n' ' ')in $REPO: not committed, and writing back would overwrite them; commit or drop them first"
fi
g merge-base --is-ancestor base HEAD || die "HEAD does not descend from base: check out make tree's branch"
[ -z "$(g rev-list --merges base..HEAD)" ] || die "base..HEAD has merges: make it a line of commits (git rebase base)"
[ -n "$(g rev-list base..HEAD)" ] || die "no commits since base: an empty series is not written back"

in_overlay() {
	local d
	for d in $OVERLAY_DIRS; do
		case "$1" in "$d"/*) return 0 ;; esac
	done
	return 1
}

# new_files_line NAME MINE: NAME's series/new-files line: an old line whose
# paths stand for exactly the files NAME adds now (MINE) at HEAD, its own
# or, when the series was renumbered, another's; else the files one by one.
new_files_line() {
	local name=$1 mine=$2 line path
	[ -s "$mine" ] || { echo "$name" && return; }
	while read -r line; do
		if [ "$(for path in ${line#* }; do
			g ls-tree -r --name-only HEAD -- "$path"
		done | LC_ALL=C sort)" = "$(LC_ALL=C sort "$mine")" ]; then
			echo "$name ${line#* }"
			return
		fi
	done < <(sed 's/#.*//' "$REPO/series/new-files" | awk -v p="$name" 'NF > 1 { print ($1 == p ? 0 : 1), $0 }' |
		LC_ALL=C sort -s -n -k1,1 | cut -d' ' -f2-)
	echo "$name $(LC_ALL=C sort "$mine" | tr '\n' ' ' | sed 's/ $//')"
}

# hunks COMMIT PATHSPEC...: COMMIT's diff to its parent in PATHSPEC, as
# patches/ has it: without git's diff and index lines, and empty context
# lines empty.
hunks() {
	local c=$1
	shift
	g diff --no-renames --no-color -U3 "$c^" "$c" -- "$@" |
		sed -e '/^diff --git /d' -e '/^index [0-9a-f]*\.\.[0-9a-f]*/d' -e 's/^ $//'
}

new=$(mktemp -d)
trap 'rm -rf "$new"' EXIT
mkdir -p "$new/patches" "$new/shared" "$new/fp" "$new/mine"
: >"$new/added"
: >"$new/series"
n=0
# Pass 1: every commit's patch, and the new files each adds.
for c in $(g rev-list --reverse base..HEAD); do
	n=$((n + 1))
	subject=$(g log -1 --format=%s "$c")
	g diff --quiet "$c^" "$c" && die "commit $n ($subject) changes nothing: drop it (git rebase -i base)"
	# The name it had, if the patch in its place has its subject.
	name=$(patch_names | sed -n "${n}p")
	if [ -z "$name" ] || [ "$(head -1 "$PATCHES/$name")" != "$subject" ]; then
		name=$(basename "$(g format-patch -1 --start-number "$n" --filename-max-length=200 \
			-o "$new/fp" "$c")")
	fi
	grep -qxF "$name" "$new/series" && die "two commits give the patch name $name: reword one"
	echo "$name" >>"$new/series"
	mine="$new/mine/$name"
	: >"$mine"
	while IFS=$'\t' read -r status f; do
		# A later change to a new file is a shared hunk of its commit's.
		if [ "$status" != M ] && grep -qxF "$f" "$new/added"; then
			die "commit $n ($subject) deletes or re-adds $f, which an earlier commit adds: squash them (git rebase -i base)"
		fi
		if [ "$status" = A ] && in_overlay "$f"; then
			echo "$f" >>"$mine"
		fi
	done < <(g -c core.quotePath=false diff --no-renames --name-status "$c^" "$c")
	# The new files of earlier commits: their hunks are the bases' own.
	mapfile -t earlier < <(sed 's/^/:(literal)/' "$new/added")
	cat "$mine" >>"$new/added"
	mapfile -t exclude < <(sed 's/^/:(exclude,literal)/' "$new/added")
	{
		# The message as committed (git log's %B adds a newline).
		g cat-file commit "$c" | sed '1,/^$/d'
		echo ---
		# Upstream files only.
		hunks "$c" . "${exclude[@]}"
	} >"$new/patches/$name"
	if [ "${#earlier[@]}" -gt 0 ]; then
		hunks "$c" "${earlier[@]}" >"$new/shared/$name"
		[ -s "$new/shared/$name" ] || rm "$new/shared/$name"
	fi
done
while read -r name; do
	new_files_line "$name" "$new/mine/$name"
done < <(awk 'NF' "$new/series") | awk 'NF > 1' >"$new/new-files"

# Pass 2: the patches and new files make every commit's tree again, as
# make tree would apply them (whitespace errors, modes, new files taken
# back from their last version by unapply, all included).
export GIT_INDEX_FILE="$new/index"
g read-tree base
n=0
for c in $(g rev-list --reverse base..HEAD); do
	n=$((n + 1))
	name=$(sed -n "${n}p" "$new/series")
	for p in "$new/patches/$name" "$new/shared/$name"; do
		[ -f "$p" ] || continue
		g apply --cached --allow-empty --whitespace=error-all "$p" 2>"$new/apply.log" ||
			die "${p#"$new"/} as written would not apply: $(head -3 "$new/apply.log" | tr '\n' ' ')"
	done
	while read -r f; do
		[ -n "$f" ] || continue
		g show "HEAD:$f" >"$new/last"
		# shellcheck disable=SC2046 # patch files, no spaces under $new
		unapply "$f" "$new/last" $(later_patches "$name" "$new/series" "$new/shared") >"$new/added-version" ||
			die "patches/$name: $f would not come back from its last version: nothing written"
		g update-index --add --cacheinfo "100644,$(g hash-object -w "$new/added-version"),$f"
	done <"$new/mine/$name"
	[ "$(g write-tree)" = "$(g rev-parse "$c^{tree}")" ] ||
		die "commit $n ($(g log -1 --format=%s "$c")) does not come back the same from patches (a binary file, a mode, a new file outside $OVERLAY_DIRS?): nothing written"
done
unset GIT_INDEX_FILE

# Pass 3: write. The overlay: what the commits add, and nothing else.
overlay_files | while read -r f; do
	grep -qxF "$f" "$new/added" || rm -f "$REPO/$f"
done
while read -r f; do
	[ -n "$f" ] || continue
	install -D -m 644 "$TREE/$f" "$REPO/$f"
done <"$new/added"
find "$PATCHES" "$SHARED" -name '*.patch' -delete 2>/dev/null || true
cp "$new/patches/"* "$PATCHES/"
mkdir -p "$SHARED"
find "$new/shared" -type f -exec cp {} "$SHARED/" \;
cp "$new/series" "$PATCHES/series"
{
	grep '^#' "$REPO/series/new-files" || true
	cat "$new/new-files"
} >"$new/manifest"
mv "$new/manifest" "$REPO/series/new-files"
g config syncwakeup.written "$(g rev-parse HEAD)"
# The tree is what patches/ and the overlay now make: nothing to remake.
tree_stamp "$src" >"$TREE/.git/sync-wakeup-stamp"
log "wrote $n patch(es) to patches/ and their new files to the overlay: git -C $REPO diff --stat shows what changed"
