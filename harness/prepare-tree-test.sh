#!/usr/bin/env bash
# Does harness/prepare-tree.sh keep work done in build/linux? On a toy
# kernel tree and a toy repository (one patch, one overlay file): each kind
# of work not written back makes it refuse, and leaves the tree as it was;
# written back or dropped with DISCARD_TREE=1, the tree is made anew. TAP on
# stdout.
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src=$work/src toy=$work/repo tree=$work/repo/build/linux

setup() {
	mkdir -p "$src/kernel" "$toy/harness" "$toy/patches" "$toy/kernel/sched"
	printf 'kernelversion:\n\t@echo 6.12.0\n' >"$src/Makefile"
	printf 'one\ntwo\nthree\n' >"$src/kernel/fair.c"
	printf 'upstream\n' >"$src/kernel/core.c"
	cp "$REPO/harness/lib.sh" "$REPO/harness/tap.sh" "$REPO/harness/definitions.sh" \
		"$REPO/harness/prepare-tree.sh" "$toy/harness/"
	cat >"$toy/patches/0001-two.patch" <<-'EOF'
	Subject: two becomes 2

	--- a/kernel/fair.c
	+++ b/kernel/fair.c
	@@ -1,3 +1,3 @@
	 one
	-two
	+2
	 three
	EOF
	echo 0001-two.patch >"$toy/patches/series"
	echo 'new file' >"$toy/kernel/sched/new.c"
}

# prepare: run the toy's prepare-tree.sh; its output in $out.
prepare() {
	out=$(cd "$toy" && env -u DISCARD_TREE "$@" KSRC="$src" harness/prepare-tree.sh 2>&1)
}

# expect_refusal WHAT FILE CHECK...: prepare refuses, names FILE (if any),
# and CHECK, a command that holds for the kept work, still holds.
expect_refusal() {
	local what=$1 file=$2 rc=0
	shift 2
	touch "$toy/kernel/sched/new.c" && echo "changed $RANDOM" >>"$toy/kernel/sched/new.c"
	prepare || rc=$?
	[ "$rc" != 0 ] && { [ -z "$file" ] || grep -q "^  $file\$" <<<"$out"; } && "$@" &&
		rc=0 || rc=1
	tap "$rc" "refuses to remake the tree over $what" "$out"
}

setup
prepare && [ "$(sed -n 2p "$tree/kernel/fair.c")" = 2 ] && [ -f "$tree/kernel/sched/new.c" ] &&
	rc=0 || rc=1
tap "$rc" "makes the tree: the patch applied, the overlay file copied" "$out"

echo 'edit' >>"$tree/kernel/fair.c"
expect_refusal "a patched file quilt has not refreshed" kernel/fair.c \
	grep -qx edit "$tree/kernel/fair.c"
(cd "$tree" && QUILT_PATCHES="$toy/patches" QUILT_PC=.pc quilt refresh -p ab --no-timestamps \
	--no-index >/dev/null 2>&1)
prepare && grep -q '^+edit' "$toy/patches/0001-two.patch" && grep -qx edit "$tree/kernel/fair.c" &&
	rc=0 || rc=1
tap "$rc" "remakes it once quilt refreshed the edit into the patch" "$out"

echo 'tree edit' >>"$tree/kernel/sched/new.c"
expect_refusal "an overlay file edited in the tree" kernel/sched/new.c \
	grep -qx 'tree edit' "$tree/kernel/sched/new.c"
cp "$tree/kernel/sched/new.c" "$toy/kernel/sched/new.c"
prepare && rc=0 || rc=1
tap "$rc" "remakes it once the overlay file is copied back" "$out"

echo 'not upstream' >"$tree/kernel/core.c"
expect_refusal "an edit quilt does not know of" kernel/core.c \
	grep -qx 'not upstream' "$tree/kernel/core.c"
rm "$tree/kernel/core.c"
echo 'mine' >"$tree/kernel/extra.c"
expect_refusal "a new file" kernel/extra.c test -f "$tree/kernel/extra.c"

prepare DISCARD_TREE=1 && [ ! -e "$tree/kernel/extra.c" ] &&
	[ "$(cat "$tree/kernel/core.c")" = upstream ] && rc=0 || rc=1
tap "$rc" "DISCARD_TREE=1 drops the work and remakes the tree" "$out"

# A pull that changes a patch, or drops it, is no work of the tree's.
sed -i 's/^+2$/+II/' "$toy/patches/0001-two.patch"
prepare && [ "$(sed -n 2p "$tree/kernel/fair.c")" = II ] && rc=0 || rc=1
tap "$rc" "remakes it, without a word, when a pulled patch changed" "$out"
: >"$toy/patches/series"
prepare && [ "$(sed -n 2p "$tree/kernel/fair.c")" = two ] && rc=0 || rc=1
tap "$rc" "remakes it, without a word, when a pulled series drops the patch" "$out"
echo 0001-two.patch >"$toy/patches/series"
prepare && rc=0 || rc=1
tap "$rc" "and when it takes the patch back" "$out"

# A preparation that stopped half-way leaves no record to compare with.
rm "$tree/.sync-wakeup-sums"
expect_refusal "a tree with no record of its preparation" "" true

tap_end prepare-tree
