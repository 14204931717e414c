#!/usr/bin/env bash
# What the series adds to the kernel image: scripts/bloat-o-meter between
# the unpatched base and the patched tree, both with the `bench` config.
# Compares vmlinux when both are built, else the kernel/sched objects (all
# the series changes), which takes minutes instead of a full base build.
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"
only_default_arch bloat
not_own_tree "make bloat builds it as the unpatched base"

base=$(kernel_dir base)
patched=$(kernel_dir bench)
sched_objs="kernel/sched/core.o kernel/sched/fair.o kernel/sched/build_policy.o kernel/sched/build_utility.o"

"$REPO/harness/prepare-tree.sh"
if [ -f "$base/vmlinux" ] && [ -f "$patched/vmlinux" ]; then
	KTARGETS=vmlinux "$REPO/harness/build-kernel.sh" bench
	"$TREE/scripts/bloat-o-meter" "$base/vmlinux" "$patched/vmlinux"
	exit 0
fi
KTARGETS="$sched_objs" "$REPO/harness/build-kernel.sh" bench "$(ksrc)" "$base"
KTARGETS="$sched_objs" "$REPO/harness/build-kernel.sh" bench
for o in $sched_objs; do
	echo "== $o"
	"$TREE/scripts/bloat-o-meter" "$base/$o" "$patched/$o"
done
