#!/usr/bin/env bash
# make writeback: build/linux's commits since base, written back here in
# their order: each a patch in patches/ (its message the header, its
# changes to upstream files the hunks), the files it adds under the overlay
# directories copied to their paths, patches/series and series/new-files
# rewritten. Refuses changes not committed, and a commit that changes a
# file an earlier one added (the overlay holds each new file whole, as one
# patch adds it: squash them).
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

g() { git -C "$TREE" -c core.autocrlf=false "$@"; }
if ! { [ -d "$TREE/.git" ] && g rev-parse -q --verify base >/dev/null; }; then
	die "$TREE is not a tree make tree made: nothing to write back"
fi
dirty=$(g status --porcelain --untracked-files=all)
if [ -n "$dirty" ]; then
	printf '%s\n' "$dirty" | sed 's/^/  /' >&2
	die "$TREE has the changes above, not committed: commit them (git commit, or --fixup=<commit> and git rebase -i --autosquash base) or drop them (git checkout, git clean), then make writeback"
fi

in_overlay() {
	local d
	for d in $OVERLAY_DIRS; do
		case "$1" in "$d"/*) return 0 ;; esac
	done
	return 1
}

new=$(mktemp -d)
trap 'rm -rf "$new"' EXIT
mkdir "$new/patches" "$new/fp"
: >"$new/added"
n=0
for c in $(g rev-list --reverse base..HEAD); do
	n=$((n + 1))
	subject=$(g log -1 --format=%s "$c")
	# The name it had, if the patch in its place has its subject.
	name=$(patch_names | sed -n "${n}p")
	if [ -z "$name" ] || [ "$(head -1 "$REPO/patches/$name")" != "$subject" ]; then
		name=$(basename "$(g format-patch -1 --start-number "$n" --filename-max-length=200 \
			-o "$new/fp" "$c")")
	fi
	: >"$new/mine"
	while read -r status f; do
		if grep -qxF "$f" "$new/added"; then
			die "commit $n ($subject) changes $f, which an earlier commit adds: squash the two (git rebase -i base) so that one commit adds it whole"
		fi
		if [ "$status" = A ] && in_overlay "$f"; then
			echo "$f" >>"$new/mine"
		fi
	done < <(g diff --no-renames --name-status "$c^" "$c")
	cat "$new/mine" >>"$new/added"
	mapfile -t exclude < <(sed 's/^/:(exclude)/' "$new/mine")
	{
		# The message as committed (git log's %B adds a newline).
		g cat-file commit "$c" | sed '1,/^$/d'
		echo ---
		# Upstream files only, without git's diff and index lines, and
		# empty context lines empty, as patches/ has them.
		g diff --no-renames --no-color -U3 "$c^" "$c" -- . "${exclude[@]}" |
			sed -e '/^diff --git /d' -e '/^index [0-9a-f]*\.\.[0-9a-f]*/d' -e 's/^ $//'
	} >"$new/patches/$name"
	echo "$name" >>"$new/series"
	# series/new-files: the line it had if it still names the same files.
	if [ -s "$new/mine" ]; then
		if [ "$(claimed "$name" 2>/dev/null | LC_ALL=C sort)" = "$(LC_ALL=C sort "$new/mine")" ]; then
			awk -v p="$name" '$1 == p' "$REPO/series/new-files"
		else
			echo "$name $(LC_ALL=C sort "$new/mine" | tr '\n' ' ' | sed 's/ $//')"
		fi
	fi >>"$new/new-files"
done

# The overlay: what the commits add, and nothing else.
# shellcheck disable=SC2086 # a list of directories, some absent
(cd "$REPO" && find $OVERLAY_DIRS -type f 2>/dev/null) | while read -r f; do
	grep -qxF "$f" "$new/added" || rm -f "$REPO/$f"
done
while read -r f; do
	[ -n "$f" ] || continue
	install -D -m 644 "$TREE/$f" "$REPO/$f"
done <"$new/added"
find "$REPO/patches" -name '*.patch' -delete
cp "$new/patches/"* "$REPO/patches/" 2>/dev/null || true
cp "$new/series" "$REPO/patches/series" 2>/dev/null || : >"$REPO/patches/series"
{
	grep '^#' "$REPO/series/new-files" || true
	cat "$new/new-files"
} >"$new/manifest"
mv "$new/manifest" "$REPO/series/new-files"
g config syncwakeup.written "$(g rev-parse HEAD)"
log "wrote $n patches to patches/ and their new files to the overlay: git -C $REPO diff --stat shows what changed"
