#!/usr/bin/env bash
# make series: the posting form of the series in build/series/out/, as git
# format-patch writes it, generated from the one copy of each line:
#   - patches/series: the order; each quilt patch's header is the commit's
#     subject and changelog, its hunks the changes to upstream files;
#   - series/new-files: which overlay files (kernel/, include/,
#     Documentation/, tools/testing/selftests/sched/) each patch adds whole;
#   - series/cover-letter: the cover letter, with @BENCH_TABLE@ and
#     @PLACEMENT_TABLE@ replaced by tables of results/reference/.
# The commits go onto a repository of just the upstream files the series
# touches, which gives the same mails as the whole tree would, in seconds.
# From: and Signed-off-by: are the git identity of whoever runs it.
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

# SERIES_WORK: where to work (make check's lint uses its own).
work=${SERIES_WORK:-$BUILD/series}
repo="$work/git"
out="$work/out"
manifest="$REPO/series/new-files"

patch_names() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$REPO/patches/series" | awk '{ print $1 }'; }

# claimed PATCH: the overlay files PATCH adds, one per line.
claimed() {
	local path
	while read -r path; do
		[ -e "$REPO/$path" ] || die "series/new-files: $1 claims $path, which does not exist"
		(cd "$REPO" && find "$path" -type f)
	done < <(awk -v p="$1" '$1 == p { for (i = 2; i <= NF; i++) print $i }' "$manifest")
}

# Every overlay file is added by exactly one patch, and every manifest line
# names a patch of patches/series.
check_manifest() {
	local have want p
	[ -f "$manifest" ] || die "no series/new-files"
	while read -r p; do
		patch_names | grep -qxF "$p" || die "series/new-files names $p, which is not in patches/series"
	done < <(sed -e 's/#.*//' "$manifest" | awk 'NF { print $1 }')
	have=$(for p in $(patch_names); do claimed "$p"; done | LC_ALL=C sort)
	# shellcheck disable=SC2086 # a list of directories, some absent
	want=$(cd "$REPO" && find $OVERLAY_DIRS -type f 2>/dev/null | LC_ALL=C sort)
	[ -z "$(printf '%s\n' "$have" | uniq -d)" ] ||
		die "series/new-files gives these files to more than one patch: $(printf '%s\n' "$have" | uniq -d | tr '\n' ' ')"
	[ "$have" = "$want" ] ||
		die "series/new-files and the overlay differ: $(diff <(echo "$want") <(echo "$have") | sed -n 's/^[<>] //p' | tr '\n' ' ')"
}

# The base: the upstream files that patches/ touches, as KSRC has them.
sparse_base() {
	local src f
	src=$(ksrc)
	rm -rf "$repo"
	mkdir -p "$repo"
	while read -r f; do
		[ -f "$src/$f" ] || die "patches/ changes $f, which $src does not have"
		install -D -m 644 "$src/$f" "$repo/$f"
	done < <(sed -n 's|^+++ b/||p' "$REPO"/patches/*.patch | LC_ALL=C sort -u)
	git -C "$repo" init -q
	git -C "$repo" add -A -f
	git -C "$repo" commit -q --no-verify -m "Linux $(kernel_version "$src") (the files the series touches)"
	git -C "$repo" tag base
}

# commit_patch NAME: the quilt patch's hunks and the new files it adds,
# committed with the patch header as the message.
commit_patch() {
	local name=$1 file="$REPO/patches/$1" f
	git -C "$repo" apply --index --whitespace=error-all "$file" ||
		die "patches/$name does not apply on top of the patches before it"
	for f in $(claimed "$name"); do
		install -D -m 644 "$REPO/$f" "$repo/$f"
		git -C "$repo" add -f "$f"
	done
	awk '/^(---$|--- |Index: |diff )/ { exit } { print }' "$file" |
		git -C "$repo" commit -q -s --no-verify --cleanup=strip -F - ||
		die "patches/$name: no changelog header"
}

# table_of FILE START: the lines of FILE's markdown table that follows the
# heading line START, the heading included.
table_of() {
	awk -v start="$2" '$0 == start { on = 1 } on && /^$/ && seen { exit }
		on { print; if (/^\|/) seen = 1 }' "$1"
}

# The cover letter: series/cover-letter with @BENCH_TABLE@ replaced by the
# flat reference run's summary and @PLACEMENT_TABLE@ by llc2's placement
# profile of pipe, in place of format-patch's SUBJECT/BLURB markers.
cover_letter() {
	local letter=$1 ref="$REPO/results/reference" blurb f
	for f in flat/table.md llc2/table.md; do
		[ -s "$ref/$f" ] || die "results/reference/$f is missing: the cover letter quotes it"
	done
	blurb=$(mktemp)
	{
		sed -n '3,/@BENCH_TABLE@/p' "$REPO/series/cover-letter" | sed '$d'
		head -1 "$ref/flat/table.md" | sed 's/^# //'
		echo
		sed -n '/^## Summary/,/^## [^S]/p' "$ref/flat/table.md" | sed '1d;$d'
		sed -n '/@BENCH_TABLE@/,/@PLACEMENT_TABLE@/p' "$REPO/series/cover-letter" | sed '1d;$d'
		table_of "$ref/llc2/table.md" "#### pipe: placement profile (mean over runs; op: a round trip)" |
			sed 's/^#### //'
		sed -n '/@PLACEMENT_TABLE@/,$p' "$REPO/series/cover-letter" | sed '1d'
	} >"$blurb"
	grep -q '^| hint-only' "$blurb" || die "no hint-only row in the cover letter's tables: see results/reference/*/table.md"
	awk -v subject="$(sed -n '1s/^Subject: //p' "$REPO/series/cover-letter")" \
		-v blurb="$blurb" '
		/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, subject) }
		/^\*\*\* BLURB HERE \*\*\*$/ { while ((getline line < blurb) > 0) print line; next }
		{ print }' "$letter" >"$letter.new"
	mv "$letter.new" "$letter"
	rm -f "$blurb"
}

git_identity
check_manifest
sparse_base
for p in $(patch_names); do
	commit_patch "$p"
done
rm -rf "$out"
git -C "$repo" format-patch -q --cover-letter --no-signature --subject-prefix="RFC PATCH" \
	-o "$out" base..HEAD
cover_letter "$out"/0000-cover-letter.patch
log "$(find "$out" -name '*.patch' | wc -l) mails in $out (git send-email $out)"
