#!/usr/bin/env bash
# Configure and build one flavour of the patched tree with O=build/kernel-<flavour>
# (build/kernel-<flavour>-<ARCH> for another ARCH than the default).
#   bench: allnoconfig + configs/guest.fragment + configs/<ARCH>.fragment
#          + configs/<BASE>.fragment + .config.fragment + the selftests'
#          config files
#   test:  bench + configs/debug.fragment (KASAN, lockdep, UBSAN, ...)
#   rt:    bench + configs/rt.fragment (PREEMPT_RT)
# Usage: build-kernel.sh FLAVOUR [SRCDIR OUTDIR]
# SRCDIR/OUTDIR build another tree with the same config (the unpatched base).
# KTARGETS overrides the make targets (default the image QEMU boots).
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

flavour=${1:?usage: build-kernel.sh FLAVOUR [SRCDIR OUTDIR]}
check_flavour "$flavour"
src=${2:-$TREE}
out=${3:-$(kernel_dir "$flavour")}

fragments() {
	echo "$REPO/configs/guest.fragment"
	echo "$REPO/configs/$ARCH.fragment"
	echo "$REPO/configs/$BASE.fragment"
	echo "$REPO/.config.fragment"
	# What the selftests declare they need, the kselftest way.
	find "$REPO/tools/testing/selftests/sched" -name config | LC_ALL=C sort
	[ "$flavour" = test ] && echo "$REPO/configs/debug.fragment"
	return 0
}

# copy_fragments DIR: the fragments copied into DIR, one path a line.
# merge_config.sh splits its file list on spaces, and a checkout's path may
# hold one; DIR (under BUILD) does not.
copy_fragments() {
	local f n=0
	rm -rf "$1"
	mkdir -p "$1"
	while read -r f; do
		n=$((n + 1))
		cp "$f" "$1/$n-$(basename "$f")"
		echo "$1/$n-$(basename "$f")"
	done <<<"$(fragments)"
}

configure() {
	local frags
	mkdir -p "$out"
	frags=$(copy_fragments "$out/fragments")
	# allnoconfig with the fragments: an option nobody asks for stays out.
	# shellcheck disable=SC2086 # one path a word, none with a space
	(cd "$src" && env "${KBUILD_ARCH[@]}" scripts/kconfig/merge_config.sh -n -O "$out" $frags) >"$out/merge_config.log" 2>&1 ||
		die "merge_config.sh failed: see $out/merge_config.log"
	if [ "$flavour" = rt ]; then
		# On the finished config, not on allnoconfig: PREEMPT_RT needs
		# EXPERT, which would give every "if EXPERT" option (FUTEX,
		# SHMEM, ...) a prompt and so an allnoconfig "n".
		cp "$REPO/configs/rt.fragment" "$out/fragments/rt.fragment"
		frags="$frags $out/fragments/rt.fragment"
		(cd "$src" && env "${KBUILD_ARCH[@]}" scripts/kconfig/merge_config.sh -O "$out" "$out/.config" "$out/fragments/rt.fragment") \
			>>"$out/merge_config.log" 2>&1 || die "merge_config.sh failed: see $out/merge_config.log"
	fi
	# shellcheck disable=SC2086
	KCONFIG_SRC=$src verify_config "$out/.config" "the $flavour config" $frags ||
		die "the $flavour config lacks options the fragments ask for: check their dependencies (make -C $src O=$out menuconfig)"
}

log "configuring $flavour kernel in $out"
configure
targets=${KTARGETS:-${ARCH_IMAGE##*/}}
log "building $flavour $targets ($(nproc) CPUs, ccache in $CCACHE_DIR)"
start=$(date +%s)
# shellcheck disable=SC2086 # several targets
if ! kmake -s -C "$src" O="$out" $targets >"$out/build.log" 2>&1; then
	grep -E 'error|Error' "$out/build.log" | head -20 >&2
	die "kernel build failed: see $out/build.log"
fi
log "built $targets in $out in $(($(date +%s) - start)) s"
