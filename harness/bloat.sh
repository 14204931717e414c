#!/usr/bin/env bash
# What the series adds to the kernel image: scripts/bloat-o-meter between
# the unpatched base and the patched tree, both with the `bench` config.
# Compares vmlinux when both are built, else the kernel/sched objects (all
# the series changes), which takes minutes instead of a full base build.
# Then task_struct's layout (pahole) before and after: kernel/sched/core.o
# of each tree built again with debug info, in <kernel dir>-dwarf.
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"
only_default_arch bloat
not_own_tree "make bloat builds it as the unpatched base"

base=$(kernel_dir base)
patched=$(kernel_dir bench)
sched_objs="kernel/sched/core.o kernel/sched/fair.o kernel/sched/build_policy.o kernel/sched/build_utility.o"

"$REPO/harness/prepare-tree.sh"

# dwarf_core SRC OUT: OUT-dwarf/kernel/sched/core.o, OUT's config with
# DWARF (which needs DEBUG_KERNEL); stops unless debug info is on and
# nothing else changed, as another option could move task_struct's fields.
dwarf_core() {
	local src=$1 dir=$2-dwarf changed
	mkdir -p "$dir"
	cp "$2/.config" "$dir/.config"
	"$src/scripts/config" --file "$dir/.config" -e DEBUG_KERNEL -e DEBUG_INFO_DWARF5
	kmake -s -C "$src" O="$dir" olddefconfig
	grep -qx 'CONFIG_DEBUG_INFO=y' "$dir/.config" ||
		die "${dir#"$BUILD"/}: CONFIG_DEBUG_INFO did not stick (does the toolchain do DWARF 5?)"
	changed=$(comm -3 <(grep '^CONFIG_' "$2/.config" | LC_ALL=C sort) \
		<(grep '^CONFIG_' "$dir/.config" | LC_ALL=C sort) | tr -d '\t' |
		grep -v -e '^CONFIG_DEBUG_KERNEL=' -e '^CONFIG_DEBUG_INFO' \
			-e '^CONFIG_PAHOLE_' -e '^CONFIG_AS_HAS_NON_CONST_ULEB128=' || true)
	[ -z "$changed" ] || die "debug info changes more of ${dir#"$BUILD"/}'s config than debug info: $changed"
	kmake -s -C "$src" O="$dir" kernel/sched/core.o
}

# layout DIR: pahole's task_struct in DIR's core.o, in DIR-dwarf/task_struct.
layout() {
	pahole -C task_struct "$1-dwarf/kernel/sched/core.o" >"$1-dwarf/task_struct"
	[ -s "$1-dwarf/task_struct" ] || die "pahole found no task_struct in $1-dwarf/kernel/sched/core.o"
}

if [ -f "$base/vmlinux" ] && [ -f "$patched/vmlinux" ]; then
	KTARGETS=vmlinux "$REPO/harness/build-kernel.sh" bench
	"$TREE/scripts/bloat-o-meter" "$base/vmlinux" "$patched/vmlinux"
else
	KTARGETS="$sched_objs" "$REPO/harness/build-kernel.sh" bench "$(ksrc)" "$base"
	KTARGETS="$sched_objs" "$REPO/harness/build-kernel.sh" bench
	for o in $sched_objs; do
		echo "== $o"
		"$TREE/scripts/bloat-o-meter" "$base/$o" "$patched/$o"
	done
fi

dwarf_core "$(ksrc)" "$base"
dwarf_core "$TREE" "$patched"
layout "$base"
layout "$patched"
echo "== task_struct (pahole): unpatched, then patched"
tail -n 7 "$base-dwarf/task_struct"
tail -n 7 "$patched-dwarf/task_struct"
echo "== task_struct: members the series adds or moves (diff of pahole's lines)"
diff "$base-dwarf/task_struct" "$patched-dwarf/task_struct" || true
