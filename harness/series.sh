#!/usr/bin/env bash
# make series: the posting form of the series in build/series/out/, as git
# format-patch writes it, generated from the one copy of each line:
#   - patches/<BASE>/series: the order; each patch's header is the commit's
#     subject and changelog, its hunks the changes to upstream files;
#   - series/not-posted: the patches at its end that are not posted;
#   - series/new-files: which overlay files (kernel/, include/,
#     Documentation/, tools/testing/selftests/sched/) each patch adds whole;
#   - series/cover-letter: the cover letter, with @BENCH_TABLE@ and
#     @PLACEMENT_TABLE@ replaced by tables of results/reference/<BASE>/,
#     @NUMBERS@ by its cover-numbers and @BASE@ by series/base-<BASE>.
# The commits go onto a repository of just the upstream files the series
# touches, which gives the same mails as the whole tree would, in seconds.
# From: and Signed-off-by: are the git identity of whoever runs it.
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"
not_own_tree "make series posts patches/ on the base it needs"

# SERIES_WORK: where to work (make check's lint uses its own).
work=${SERIES_WORK:-$BUILD/series$BASE_SUFFIX}
repo="$work/git"
out="$work/out"
# The base: the upstream files that patches/ touches, as KSRC has them.
sparse_base() {
	local src f p
	src=$(ksrc)
	rm -rf "$repo"
	mkdir -p "$repo"
	# Not the new files a later patch changes.
	while read -r f; do
		[ -f "$src/$f" ] || die "patches/ changes $f, which $src does not have"
		install -D -m 644 "$src/$f" "$repo/$f"
	done < <(for p in $posted; do sed -n 's|^+++ b/||p' "$PATCHES/$p"; done | LC_ALL=C sort -u |
		LC_ALL=C comm -23 - <(overlay_files))
	git -C "$repo" init -q
	git -C "$repo" add -A -f
	git -C "$repo" commit -q --no-verify -m "Linux $(kernel_version "$src") (the files the series touches)"
	git -C "$repo" tag base
}

# table_of FILE START: the lines of FILE's markdown table that follows the
# heading line START, the heading included.
table_of() {
	awk -v start="$2" '$0 == start { on = 1 } on && /^$/ && seen { exit }
		on { print; if (/^\|/) seen = 1 }' "$1"
}

# The cover letter: series/cover-letter with @NUMBERS@ replaced by the
# base's results/reference/<base>/cover-numbers, @BASE@ by what
# series/base-<base> says of the base, @BENCH_TABLE@ by the
# flat reference run's times with their placement (bench/reftables.py
# --cover) and @PLACEMENT_TABLE@ by llc2's placement profile of pipe, in
# place of format-patch's SUBJECT/BLURB markers.
cover_letter() {
	local letter=$1 ref=$REFERENCE base=$REPO/series/base-$BASE blurb f
	[ -s "$base" ] || die "${base#"$REPO"/} is missing: the cover letter's paragraph on the kernel the series is against"
	for f in cover-numbers flat/summary.csv flat/raw.csv llc2/table.md; do
		[ -s "$ref/$f" ] || die "${ref#"$REPO"/}/$f is missing: the cover letter quotes it (make bench TOPOS='flat llc2' BASE=$BASE, then copy the runs there)"
	done
	blurb=$(mktemp)
	{
		sed -n '3,/@BENCH_TABLE@/p' "$REPO/series/cover-letter" | sed '$d'
		"$PYTHON" "$REPO/bench/reftables.py" --cover flat "$ref" ||
			die "bench/reftables.py could not make the cover letter's tables"
		sed -n '/@BENCH_TABLE@/,/@PLACEMENT_TABLE@/p' "$REPO/series/cover-letter" | sed '1d;$d'
		table_of "$ref/llc2/table.md" "#### pipe: placement profile (mean over runs; op: a round trip)" |
			sed 's/^#### //'
		sed -n '/@PLACEMENT_TABLE@/,$p' "$REPO/series/cover-letter" | sed '1d'
	} >"$blurb"
	# The base's own paragraphs: the kernel, and how its runs were made.
	awk -v numbers="$ref/cover-numbers" -v base="$base" '
		$0 == "@NUMBERS@" { while ((getline line < numbers) > 0) print line; next }
		$0 == "@BASE@" { while ((getline line < base) > 0) print line; next }
		{ print }' "$blurb" >"$blurb.new" && mv "$blurb.new" "$blurb"
	grep -q '^| hint-only' "$blurb" || die "no hint-only row in the cover letter's tables: see ${ref#"$REPO"/}/*/table.md"
	awk -v subject="$(sed -n '1s/^Subject: //p' "$REPO/series/cover-letter")" \
		-v blurb="$blurb" '
		/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, subject) }
		/^\*\*\* BLURB HERE \*\*\*$/ { while ((getline line < blurb) > 0) print line; next }
		{ print }' "$letter" >"$letter.new"
	mv "$letter.new" "$letter"
	rm -f "$blurb"
	! grep -n '@[A-Z_]*@' "$letter" >&2 || die "the cover letter keeps a marker series/cover-letter has and cover_letter() does not fill"
}

git_identity
check_manifest
posted=$(posted_names)
sparse_base
for p in $posted; do
	commit_patch "$repo" "$p" -s --cleanup=strip
done
rm -rf "$out"
git -C "$repo" format-patch -q --cover-letter --no-signature --subject-prefix="RFC PATCH" \
	-o "$out" base..HEAD
cover_letter "$out"/0000-cover-letter.patch
log "$(find "$out" -name '*.patch' | wc -l) mails in $out (git send-email $out)"
