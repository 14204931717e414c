#!/usr/bin/env bash
# Static checks a reviewer runs first, as TAP lines on stdout, the count on
# stderr; exits 1 if any check failed:
# checkpatch --strict on every patch (patches/ and series/) and new kernel
# source file, series/ against the tree it must give, docutils on the new
# documentation, systemd-analyze on the distro unit, shellcheck on the harness.
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

checkpatch="$TREE/scripts/checkpatch.pl"
[ -f "$checkpatch" ] || die "no $checkpatch: run 'make tree' first"
cp_flags="--strict --quiet --no-summary --show-types"

while read -r p; do
	case "$p" in '' | \#*) continue ;; esac
	# Patches carry no Signed-off-by: 'make series' adds the sender's.
	# shellcheck disable=SC2086
	out=$(cd "$TREE" && perl "$checkpatch" $cp_flags --no-signoff "$REPO/patches/$p" 2>&1) && rc=0 || rc=1
	tap "$rc" "checkpatch --strict patches/$p" "$out"
done <"$REPO/patches/series"

# series/, the posting split, must end in the tree that is built and tested
# (make series-check does the rest: git am, a build after each patch, W=1).
# Only files that series/, patches/ or the overlay touch can differ.
series_tree="$BUILD/lint/series-tree"
rm -rf "$series_tree"
mkdir -p "$series_tree"
touched=$(
	cd "$REPO"
	sed -n 's|^+++ b/||p' series/*.patch patches/*.patch
	# shellcheck disable=SC2086 # a list of directories, some absent
	find $OVERLAY_DIRS -type f 2>/dev/null || true
)
touched=$(printf '%s\n' "$touched" | LC_ALL=C sort -u)
src=$(ksrc)
for f in $touched; do
	[ ! -f "$src/$f" ] || install -D -m 644 "$src/$f" "$series_tree/$f"
done
out=""
while read -r p; do
	[ -n "$p" ] || continue
	# shellcheck disable=SC2086
	cp_out=$(cd "$TREE" && perl "$checkpatch" $cp_flags --no-signoff "$REPO/series/$p" 2>&1) &&
		rc=0 || rc=1
	tap "$rc" "checkpatch --strict series/$p" "$cp_out"
	[ -z "$out" ] || continue
	patch -d "$series_tree" -p1 -s --fuzz=0 --no-backup-if-mismatch <"$REPO/series/$p" >/dev/null 2>&1 ||
		out="series/$p does not apply after the patches before it"
done <"$REPO/series/order"
if [ -z "$out" ]; then
	for f in $touched; do
		cmp -s "$series_tree/$f" "$TREE/$f" || out+="series/ and build/linux differ in $f"$'\n'
	done
fi
out=${out%$'\n'}
[ -z "$out" ] && rc=0 || rc=1
tap "$rc" "series/ applied in order to the base is the tree make check builds" "$out"
rm -rf "$series_tree"

# checkpatch -f cannot see kernel-parameters.txt (it only reads the docs a
# patch adds), so the boot parameters are checked against the tree instead.
# shellcheck disable=SC2086
for f in $(cd "$REPO" && find $OVERLAY_DIRS -type f \( -name '*.c' -o -name '*.h' \) 2>/dev/null | LC_ALL=C sort); do
	# shellcheck disable=SC2086
	out=$(cd "$TREE" && perl "$checkpatch" $cp_flags --ignore UNDOCUMENTED_SETUP -f "$f" 2>&1) && rc=0 || rc=1
	tap "$rc" "checkpatch --strict -f $f" "$out"
	while read -r param; do
		grep -q "^[[:space:]]*$param" "$TREE/Documentation/admin-guide/kernel-parameters.txt" &&
			rc=0 || rc=1
		tap "$rc" "boot parameter $param of $f is in kernel-parameters.txt"
	done < <(sed -n 's/^__setup("\([^"]*\)".*/\1/p' "$REPO/$f")
done

for f in $(cd "$REPO" && find Documentation -name '*.rst' | LC_ALL=C sort); do
	out=$(python3 - "$REPO/$f" 2>&1 <<'PY'
import sys
import docutils.core
docutils.core.publish_doctree(open(sys.argv[1]).read(), source_path=sys.argv[1],
    settings_overrides={"report_level": 2, "halt_level": 5})
PY
	) && [ -z "$out" ] && rc=0 || rc=1
	tap "$rc" "docutils reports nothing on $f" "$out"
done

# The distro opt-in unit; systemd-analyze is part of systemd, on every Debian.
unit=contrib/distro/sched-sync-pair-affine.service
if command -v systemd-analyze >/dev/null; then
	out=$(cd "$REPO" && systemd-analyze verify "./$unit" 2>&1) && rc=0 || rc=1
	tap "$rc" "systemd-analyze verify $unit" "$out"
else
	tap 0 "systemd-analyze verify $unit # SKIP systemd-analyze is not installed"
fi

out=$(cd "$REPO" && find .ci harness vm bench stress -type f \( -name "*.sh" -o -name run \) -print0 | xargs -0 shellcheck -x 2>&1) && rc=0 || rc=1
tap "$rc" "shellcheck on the harness" "$out"

echo "lint: $((tap_n - tap_failed)) passed, $tap_failed failed" >&2
[ "$tap_failed" = 0 ]
