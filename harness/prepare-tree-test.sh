#!/usr/bin/env bash
# Does the edit loop keep work done in build/linux? On a toy kernel tree and
# a toy repository (one patch, one overlay file): make tree commits the
# series on the source; make writeback writes commits back, unchanged ones
# byte for byte; each kind of work not written back makes make tree refuse
# and leaves the tree as it was; written back or dropped with
# DISCARD_TREE=1, the tree is made anew. TAP on stdout.
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src=$work/src toy=$work/repo tree=$work/repo/build/linux
export GIT_AUTHOR_NAME=tester GIT_AUTHOR_EMAIL=tester@invalid
export GIT_COMMITTER_NAME=tester GIT_COMMITTER_EMAIL=tester@invalid

setup() {
	mkdir -p "$src/kernel" "$toy/harness" "$toy/patches/$BASE_DEFAULT" "$toy/series" "$toy/kernel/sched"
	printf 'kernelversion:\n\t@echo 6.12.0\n' >"$src/Makefile"
	printf 'one\ntwo\nthree\n' >"$src/kernel/fair.c"
	printf 'upstream\n' >"$src/kernel/core.c"
	# Debian's source ignores its whole top level, and ships files anyway.
	printf '/*\n' >"$src/.gitignore"
	printf 'shipped\n' >"$src/kernel/blob.o"
	cp "$REPO/harness/lib.sh" "$REPO/harness/tap.sh" "$REPO/harness/definitions.sh" \
		"$REPO/harness/prepare-tree.sh" "$REPO/harness/writeback.sh" "$toy/harness/"
	cat >"$toy/patches/$BASE_DEFAULT/0001-sched-Two-becomes-2.patch" <<-'EOF'
	sched: Two becomes 2

	Because it reads better.
	---
	--- a/kernel/fair.c
	+++ b/kernel/fair.c
	@@ -1,3 +1,3 @@
	 one
	-two
	+2
	 three
	EOF
	echo 0001-sched-Two-becomes-2.patch >"$toy/patches/$BASE_DEFAULT/series"
	printf '# which patch adds which new file\n0001-sched-Two-becomes-2.patch kernel/sched\n' \
		>"$toy/series/new-files"
	echo 'new file' >"$toy/kernel/sched/new.c"
	echo /build/ >"$toy/.gitignore"
	git -C "$toy" init -q && git -C "$toy" add -A && git -C "$toy" commit -q -m toy
}

# prepare / writeback: run the toy's script; its output in $out.
prepare() {
	out=$(cd "$toy" && env -u DISCARD_TREE "$@" KSRC="$src" harness/prepare-tree.sh 2>&1)
}
writeback() {
	out=$(cd "$toy" && KSRC="$src" harness/writeback.sh 2>&1)
}
t() { git -C "$tree" "$@"; }
# toy_clean: the toy repository is as committed (the round trip changed nothing).
toy_clean() { [ -z "$(git -C "$toy" status --porcelain -- patches series kernel)" ]; }

# expect_refusal WHAT NAMED CHECK...: a change to the overlay makes the tree
# due for remaking; prepare refuses, its message holds NAMED, and CHECK, a
# command that holds for the kept work, still holds.
expect_refusal() {
	local what=$1 named=$2 rc=0
	shift 2
	echo "changed $RANDOM" >>"$toy/kernel/sched/new.c"
	prepare || rc=$?
	[ "$rc" != 0 ] && grep -qF -- "$named" <<<"$out" && "$@" && rc=0 || rc=1
	git -C "$toy" checkout -q -- kernel/sched/new.c
	tap "$rc" "refuses to remake the tree over $what" "$out"
}

setup
prepare && [ "$(sed -n 2p "$tree/kernel/fair.c")" = 2 ] && [ -f "$tree/kernel/sched/new.c" ] &&
	[ "$(t log --format=%s base..HEAD)" = "sched: Two becomes 2" ] && [ -f "$tree/kernel/blob.o" ] &&
	[ -z "$(t status --porcelain)" ] && rc=0 || rc=1
tap "$rc" "makes the tree: the patch a commit on the source, with its new file" "$out"

writeback && toy_clean && rc=0 || rc=1
tap "$rc" "make writeback of the commits as made writes the same bytes back" \
	"$out$(git -C "$toy" diff)"

echo 'edit' >>"$tree/kernel/fair.c"
expect_refusal "a change not committed" kernel/fair.c grep -qx edit "$tree/kernel/fair.c"
writeback && rc=1 || rc=0
grep -q 'besides its commits' <<<"$out" && toy_clean || rc=1
tap "$rc" "make writeback refuses a change not committed, and writes nothing" "$out"

t commit -q -a --amend --no-edit
expect_refusal "a commit not written back" "commit " grep -qx edit "$tree/kernel/fair.c"
fair_time=$(stat -c %Y "$tree/kernel/fair.c")
sleep 1
writeback && grep -q '^+edit' "$toy/patches/$BASE_DEFAULT/0001-sched-Two-becomes-2.patch" && rc=0 || rc=1
echo "more $RANDOM" >>"$toy/kernel/sched/new.c"
prepare && grep -qx edit "$tree/kernel/fair.c" && [ "$(stat -c %Y "$tree/kernel/fair.c")" = "$fair_time" ] &&
	[ "$(t log --format=%s base..HEAD)" = "sched: Two becomes 2" ] || rc=1
tap "$rc" "writes the commit back; the tree is remade from it, an unchanged file keeping its time" "$out"
git -C "$toy" add -A && git -C "$toy" commit -q -m 'written back'

echo 'tree edit' >>"$tree/kernel/sched/new.c"
t commit -q -a --amend --no-edit
writeback && grep -qx 'tree edit' "$toy/kernel/sched/new.c" &&
	grep -qx '0001-sched-Two-becomes-2.patch kernel/sched' "$toy/series/new-files" && rc=0 || rc=1
tap "$rc" "writes an overlay file edited and committed in the tree back to its path" "$out"
git -C "$toy" add -A && git -C "$toy" commit -q -m 'written back'

# A later commit's change to a new file: a hunk of patches/shared/, which
# every base applies; the overlay keeps the last version, and make tree
# gives each commit its own, on the other base too.
printf 'later\n' >>"$tree/kernel/sched/new.c"
t commit -q -a -m "sched: Touch the new file again"
shared="$toy/patches/shared/0002-sched-Touch-the-new-file-again.patch"
writeback && grep -q '^+later$' "$shared" &&
	! grep -q 'new.c' "$toy/patches/$BASE_DEFAULT/0002-sched-Touch-the-new-file-again.patch" &&
	grep -qx later "$toy/kernel/sched/new.c" && rc=0 || rc=1
prepare DISCARD_TREE=1 && [ "$(t log --format=%s base..HEAD | wc -l)" = 2 ] &&
	! t show HEAD^:kernel/sched/new.c | grep -qx later && t show HEAD:kernel/sched/new.c | grep -qx later || rc=1
# shellcheck disable=SC2086 # a word a base
other=$(printf '%s\n' $BASES | grep -vxF "$BASE_DEFAULT" | head -1)
cp -r "$toy/patches/$BASE_DEFAULT" "$toy/patches/$other"
out+=$'\n'$(cd "$toy" && BASE=$other KSRC="$src" harness/prepare-tree.sh 2>&1) &&
	git -C "$toy/build/linux-$other" show HEAD:kernel/sched/new.c | grep -qx later &&
	! git -C "$toy/build/linux-$other" show HEAD^:kernel/sched/new.c | grep -qx later || rc=1
rm -rf "$toy/patches/$other" "$toy/build/linux-$other"
tap "$rc" "writes back a commit that changes a file an earlier one added, as a shared hunk; make tree makes both again, on either base" "$out"
git -C "$toy" add -A && git -C "$toy" commit -q -m 'written back'
t rm -q kernel/sched/new.c
t commit -q -m "sched: Drop the new file"
writeback && rc=1 || rc=0
grep -q 'squash' <<<"$out" && [ -f "$toy/kernel/sched/new.c" ] || rc=1
tap "$rc" "make writeback refuses a commit that deletes a file an earlier one added" "$out"
git -C "$toy" reset -q --hard HEAD^
prepare DISCARD_TREE=1 && [ "$(t log --format=%s base..HEAD)" = "sched: Two becomes 2" ] || rc=1

# A commit split in two, the new file moving to the second: the manifest
# follows, not the first patch's old line.
t rm -q --cached kernel/sched/new.c
t commit -q --amend --no-edit
t add -f kernel/sched/new.c
t commit -q -m "sched: Add the new file"
writeback && ! grep -q '^0001' "$toy/series/new-files" &&
	grep -Eqx '0002-sched-Add-the-new-file.patch kernel/sched(/new.c)?' "$toy/series/new-files" && rc=0 || rc=1
prepare DISCARD_TREE=1 && ! t show --format= --name-only HEAD^ | grep -q new.c &&
	t show --format= --name-only HEAD | grep -q new.c || rc=1
tap "$rc" "writes back a commit split in two, the new file's claim moved to the second" "$out"
git -C "$toy" checkout -q -- patches series kernel
git -C "$toy" clean -qf patches
prepare DISCARD_TREE=1 || true

echo 'not upstream' >"$tree/kernel/core.c"
printf 'mine\n' >"$tree/kernel/extra.c"
expect_refusal "a file git does not track" kernel/extra.c test -f "$tree/kernel/extra.c"
prepare DISCARD_TREE=1 && [ ! -e "$tree/kernel/extra.c" ] &&
	[ "$(cat "$tree/kernel/core.c")" = upstream ] && rc=0 || rc=1
tap "$rc" "DISCARD_TREE=1 drops the work and remakes the tree" "$out"

# A pull that changes a patch, or drops it, is no work of the tree's.
sed -i 's/^+2$/+II/' "$toy/patches/$BASE_DEFAULT/0001-sched-Two-becomes-2.patch"
prepare && [ "$(sed -n 2p "$tree/kernel/fair.c")" = II ] && rc=0 || rc=1
tap "$rc" "remakes it, without a word, when a pulled patch changed" "$out"
: >"$toy/patches/$BASE_DEFAULT/series"
printf '0001-sched-Two-becomes-2.patch kernel/sched\n' >"$toy/series/new-files"
prepare && rc=1 || rc=0
grep -q "not in patches/$BASE_DEFAULT/series" <<<"$out" || rc=1
tap "$rc" "refuses a series/new-files that names a patch the series lacks" "$out"
git -C "$toy" checkout -q -- series
echo 0001-sched-Two-becomes-2.patch >"$toy/patches/$BASE_DEFAULT/series"
prepare && [ "$(sed -n 2p "$tree/kernel/fair.c")" = II ] && rc=0 || rc=1
tap "$rc" "and remakes it once they agree" "$out"
git -C "$toy" add -A && git -C "$toy" commit -q -m 'pulled'

# Work on the repository's side is not overwritten.
sed -i 's/^Because it reads better.$/Because it reads better, says review./' \
	"$toy/patches/$BASE_DEFAULT/0001-sched-Two-becomes-2.patch"
writeback && rc=1 || rc=0
grep -q 'says review' "$toy/patches/$BASE_DEFAULT/0001-sched-Two-becomes-2.patch" || rc=1
tap "$rc" "make writeback refuses to overwrite a change to patches/ not yet in the tree" "$out"
git -C "$toy" checkout -q -- patches

t checkout -q --detach
writeback && rc=1 || rc=0
grep -q 'HEAD detached' <<<"$out" || rc=1
expect_refusal "a detached HEAD" "HEAD detached" true
tap "$rc" "make writeback refuses a detached HEAD" "$out"
t checkout -q -

# What patches cannot carry (an executable new file: the overlay is 644)
# stops writeback before it writes anything.
printf '#!/bin/sh\n' >"$tree/kernel/sched/tool.sh"
chmod 755 "$tree/kernel/sched/tool.sh"
t add -f kernel/sched/tool.sh
t commit -q -m "sched: Add a tool"
writeback && rc=1 || rc=0
grep -q 'come back the same' <<<"$out" && toy_clean && [ ! -e "$toy/kernel/sched/tool.sh" ] || rc=1
tap "$rc" "make writeback refuses commits its patches would not give back, and writes nothing" "$out"
t reset -q --hard HEAD^

# A commit that only adds a new file, under a directory an earlier patch
# claims whole: a patch of its own, the claim written out file by file.
printf 'other\n' >"$tree/kernel/sched/other.c"
t add -f kernel/sched/other.c
t commit -q -m "sched: Add other"
writeback && [ "$(wc -l <"$toy/patches/$BASE_DEFAULT/series")" = 2 ] &&
	grep -qx '0002-sched-Add-other.patch kernel/sched/other.c' "$toy/series/new-files" &&
	grep -qx '0001-sched-Two-becomes-2.patch kernel/sched/new.c' "$toy/series/new-files" &&
	rc=0 || rc=1
prepare DISCARD_TREE=1 && [ "$(t log --format=%s base..HEAD | head -1)" = "sched: Add other" ] || rc=1
tap "$rc" "writes back a commit that only adds a file, and make tree takes it" "$out"
git -C "$toy" add -A && git -C "$toy" commit -q -m 'written back'

# A remake that stops half-way is not taken for up to date.
cp "$toy/patches/$BASE_DEFAULT/0001-sched-Two-becomes-2.patch" "$work/good.patch"
sed -i 's/^ three$/ four/' "$toy/patches/$BASE_DEFAULT/0001-sched-Two-becomes-2.patch"
prepare && rc=1 || rc=0
cp "$work/good.patch" "$toy/patches/$BASE_DEFAULT/0001-sched-Two-becomes-2.patch"
prepare && [ "$(t log --format=%s base..HEAD | wc -l)" = 2 ] || rc=1
tap "$rc" "a remake stopped by a patch that does not apply is redone once it does" "$out"

# KSRC of one's own that carries the series: built as it is, nothing made
# from it, nothing written back.
own=$work/own
cp -a "$src" "$own"
install -D -m 644 "$toy/kernel/sched/new.c" "$own/kernel/sched/new.c"
head=$(t rev-parse HEAD)
out=$(cd "$toy" && KSRC="$own" harness/prepare-tree.sh 2>&1) && grep -q 'built as it is' <<<"$out" &&
	[ "$(t rev-parse HEAD)" = "$head" ] && [ ! -e "$own/.git" ] && rc=0 || rc=1
wb=$(cd "$toy" && KSRC="$own" harness/writeback.sh 2>&1) && rc=1
out+=$'\n'$wb
grep -q 'commit there' <<<"$wb" && toy_clean || rc=1
tap "$rc" "KSRC carrying the series is built as it is: no tree made, nothing written back" "$out"

# An editor's backup beside the patches changes nothing make tree reads.
cp "$toy/patches/$BASE_DEFAULT/0001-sched-Two-becomes-2.patch" "$toy/patches/$BASE_DEFAULT/0001-sched-Two-becomes-2.patch~"
echo garbage >>"$toy/patches/$BASE_DEFAULT/0001-sched-Two-becomes-2.patch~"
prepare && grep -q 'is up to date' <<<"$out" && rc=0 || rc=1
rm -f "$toy/patches/$BASE_DEFAULT/"*~
tap "$rc" "an editor's backup in patches/ leaves the tree up to date" "$out"

# series/not-posted: make series leaves out patches at the series' end only.
posted() { out=$(cd "$toy" && bash -c '. harness/lib.sh && posted_names' 2>&1); }
echo 0002-sched-Add-other.patch >"$toy/series/not-posted"
posted && [ "$out" = 0001-sched-Two-becomes-2.patch ] && rc=0 || rc=1
echo 0001-sched-Two-becomes-2.patch >"$toy/series/not-posted"
posted && rc=1
grep -q 'move the held-back ones to the end' <<<"$out" || rc=1
echo 0003-sched-Gone.patch >"$toy/series/not-posted"
posted && rc=1
grep -q "not in patches/$BASE_DEFAULT/series" <<<"$out" || rc=1
rm "$toy/series/not-posted"
tap "$rc" "series/not-posted holds back the series' last patches, and nothing else" "$out"

# The bases share the new files and patches/shared/ by patch name: a base
# whose series names other patches is refused.
# shellcheck disable=SC2086 # a word a base
other=$(printf '%s\n' $BASES | grep -vxF "$BASE_DEFAULT" | head -1)
mkdir -p "$toy/patches/$other"
echo 0001-sched-Two-becomes-II.patch >"$toy/patches/$other/series"
prepare DISCARD_TREE=1 && rc=1 || rc=0
grep -q "patches/$other/series and patches/$BASE_DEFAULT/series name different patches" <<<"$out" || rc=1
rm -rf "$toy/patches/$other"
tap "$rc" "refuses bases whose series name different patches" "$out"

# A tree an older make tree made (quilt, no git) cannot be told apart.
rm -rf "$tree/.git"
expect_refusal "a tree that is not make tree's git repository" "DISCARD_TREE=1" \
	test -f "$tree/kernel/fair.c"

tap_end prepare-tree
