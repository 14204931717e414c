#!/usr/bin/env bash
# make series: the posting form of the series in build/series/out/, as
# git format-patch writes it: a cover letter and one mail per patch of
# series/order, committed onto the pristine base by whoever runs it (From:
# and Signed-off-by: are that git identity), with the reference benchmark
# table in the cover letter.
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

work="$BUILD/series"
repo="$work/git"
out="$work/out"
series="$REPO/series"

# commit_patch FILE: apply one series/ mail and commit it, signed off.
commit_patch() {
	local file=$1 subject
	subject=$(sed -n '1s/^Subject: \[PATCH\] //p' "$file")
	[ -n "$subject" ] || die "${file#"$REPO"/} does not start with 'Subject: [PATCH] ...'"
	git -C "$repo" apply --index --whitespace=error-all "$file" ||
		die "${file#"$REPO"/} does not apply on top of the patches before it in series/order"
	# The changelog: after the Subject line and its blank line, up to ---.
	{
		echo "$subject"
		echo
		sed -n '3,/^---$/p' "$file" | sed '$d'
	} | git -C "$repo" commit -q -s --no-verify -F -
}

# The cover letter: series/cover-letter with @BENCH_TABLE@ replaced by the
# reference run's tables, in place of format-patch's SUBJECT/BLURB markers.
cover_letter() {
	local letter=$1 table="$REPO/results/reference/table.md" blurb
	blurb=$(mktemp)
	{
		sed -n '3,/@BENCH_TABLE@/p' "$series/cover-letter" | sed '$d'
		head -1 "$table" | sed 's/^# //'
		echo
		sed -n '/^## Summary/,/^## [^S]/p' "$table" | sed '1d;$d'
		sed -n '/@BENCH_TABLE@/,$p' "$series/cover-letter" | sed '1d'
	} >"$blurb"
	awk -v subject="$(sed -n '1s/^Subject: \[PATCH[^]]*\] //p' "$series/cover-letter")" \
		-v blurb="$blurb" '
		/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, subject) }
		/^\*\*\* BLURB HERE \*\*\*$/ { while ((getline line < blurb) > 0) print line; next }
		{ print }' "$letter" >"$letter.new"
	mv "$letter.new" "$letter"
	rm -f "$blurb"
}

git_identity
[ -f "$series/order" ] || die "no series/order: nothing to make"
log "committing series/ onto the base in $repo"
base_repo "$repo"
while read -r p; do
	[ -n "$p" ] || continue
	[ -f "$series/$p" ] || die "series/order names $p, which is not in series/"
	commit_patch "$series/$p"
done <"$series/order"
rm -rf "$out"
git -C "$repo" format-patch -q --cover-letter --no-signature -o "$out" base..HEAD
cover_letter "$out"/0000-cover-letter.patch
log "$(find "$out" -name '*.patch' | wc -l) mails in $out (git send-email $out)"
