#!/usr/bin/env bash
# make bench-overhead: does the patch cost anything with the feature off?
# The unpatched base kernel and the patched kernel (SYNC_PAIR_AFFINE off) are
# different kernels, so they cannot share a boot: boot them alternately
# (base, patched, base, patched, ...), each boot running bench/guest-bench.py
# with ARMS=off, then pool each kernel's boots and set them side by side
# with bench/compare.py (what make compare runs).
# Results: results/<date-time>-overhead/{compare.md,compare.csv,meta.txt}
# and every boot's raw.csv and logs in results/<date-time>-overhead/<kind>-<n>/.
# BOOTS: boot pairs (default 3); the other variables as for make bench, but
# WORKLOADS defaults to the pipe and msg-* ones and ARMS to off.
# SINCE=NNNN: what patch NNNN and those after it cost: the base is the
# series up to the patch before it (its commit in build/linux, checked out
# in build/linux-before-NNNN), run with ARMS as the patched kernel is, so
# that ARMS=hint-only measures them with the feature on.
set -eu
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
only_default_arch bench-overhead
not_own_tree "make bench-overhead builds it as the unpatched base"

TOPO=${TOPO:-$TOPO_DEFAULT}
ACCEL=${ACCEL:-auto}
NOBUILD=${NOBUILD:-0}
BOOTS=${BOOTS:-3}
WORKLOADS=${WORKLOADS:-pipe pipe-cpu01 pipe-cpu0 msg-thread-g1 msg-thread-g2 msg-thread-g4 msg-process-g1 msg-process-g2 msg-process-g4}
ARMS=${ARMS:-off}
SINCE=${SINCE:-}
export TOPO ACCEL WORKLOADS ARMS

# Each variable's own value (harness/check-vars.sh, as make vars does: the
# script may be run without make), then the clock.
check_settings() {
	"$REPO/harness/check-vars.sh"
	guest_clock >/dev/null || exit 1
	if [ -z "$SINCE" ] && [ "$ARMS" != off ]; then
		die "ARMS=$ARMS: the unpatched base has no policy to run; leave ARMS unset, or set SINCE=NNNN to measure patch NNNN and those after it"
	fi
	case "$ARMS" in
	*" "*) die "ARMS=$ARMS: one arm, which both kernels run" ;;
	esac
	case "$SINCE" in
	"" | [0-9][0-9][0-9][0-9]) ;;
	*) die "SINCE=$SINCE: a patch's four-digit number, such as 0010" ;;
	esac
	if [ -n "$SINCE" ] && ! patch_names | grep -q "^$SINCE-"; then
		die "SINCE=$SINCE names no patch of patches/$BASE/series: give a number such as $(patch_names | sed -n '2s/-.*//p')"
	fi
}

# base_name: the base kernel's name in the results ("base" or "before-NNNN").
base_name() {
	if [ -n "$SINCE" ]; then echo "before-$SINCE"; else echo base; fi
}

# since_tree: the tree up to the patch before $SINCE, checked out beside
# build/linux (make tree made it: its Nth commit is the Nth patch, whose
# subject the patch's name spells).
since_tree() {
	local n dir="$TREE-before-$SINCE" rev name
	n=$(patch_names | grep -n "^$SINCE-" | cut -d: -f1)
	name=$(patch_names | sed -n "${n}p")
	name=${name%.patch}
	rev=$(tree_git rev-list --reverse base..HEAD | sed -n "${n}p")
	if [ -z "$rev" ] || [ "$(tree_git log -1 --format=%f "$rev")" != "${name#"$SINCE"-}" ]; then
		die "$TREE's commit $n is not $name: make tree"
	fi
	rev=$(tree_git rev-parse "$rev^") || die "no parent of $rev in $TREE"
	if [ -d "$dir" ]; then
		git -C "$dir" checkout -q --detach "$rev" || die "cannot check out $rev in $dir"
	else
		tree_git worktree add -q --detach "$dir" "$rev" || die "cannot add a worktree $dir"
	fi
	echo "$dir"
}

build() {
	local k src
	if [ "$NOBUILD" = 1 ]; then
		for k in "$(kernel_dir "$(base_name)")" "$(kernel_dir bench)"; do
			[ -f "$k/$ARCH_IMAGE" ] ||
				die "NOBUILD=1 but there is no $k/$ARCH_IMAGE: run without NOBUILD"
		done
		return 0
	fi
	"$REPO/harness/source.sh"
	if [ -z "$SINCE" ]; then
		log "building the unpatched base kernel from $(ksrc)"
		"$REPO/harness/build-kernel.sh" bench "$(ksrc)" "$(kernel_dir base)"
	fi
	"$REPO/harness/prepare-tree.sh"
	if [ -n "$SINCE" ]; then
		log "building the series before patch $SINCE"
		src=$(since_tree) || exit 1
		"$REPO/harness/build-kernel.sh" bench "$src" "$(kernel_dir "$(base_name)")"
	fi
	"$REPO/harness/build-kernel.sh" bench
}

main() {
	local res start n kind kernel a b what i=0
	check_settings
	"$REPO/harness/deps.sh"
	build
	a=$(base_name)
	b=patched-$ARMS
	if [ -n "$SINCE" ]; then
		what="the series before patch $SINCE vs the whole series, both with ARMS=$ARMS"
	else
		what="unpatched base kernel vs patched kernel with SYNC_PAIR_AFFINE off"
	fi
	res=$(new_results_dir -overhead)
	start=$(date +%s)
	{
		echo "experiment: $what,"
		echo "  $BOOTS boot pairs alternating $a, $b; ARMS=$ARMS in every boot; runs pooled per kernel"
		echo "kernel.$a: $(kernel_dir "$a")/$ARCH_IMAGE"
		echo "kernel.$b: $(kernel_dir bench)/$ARCH_IMAGE"
		host_meta /dev/null bench-overhead | grep -v '^\(accel\|vcpu pinning\|clock\): '
	} >"$res/meta.txt"
	for n in $(seq "$BOOTS"); do
		for kind in "$a" "$b"; do
			i=$((i + 1))
			if [ "$kind" = "$a" ]; then kernel=$(kernel_dir "$a"); else kernel=$(kernel_dir bench); fi
			log "boot $i/$((2 * BOOTS)): $kind kernel"
			boot_bench "$res/$kind-$n" "$kernel/$ARCH_IMAGE"
			sed "s/^/$kind-$n./" "$res/$kind-$n/meta.txt" >>"$res/meta.txt"
			{
				echo "$kind-$n.accel: $(cat "$res/$kind-$n/accel")"
				echo "$kind-$n.vcpu pinning: $(cat "$res/$kind-$n/pinning" 2>/dev/null || echo none)"
				clock_meta "$res/$kind-$n/clock" | sed "s/^/$kind-$n./"
				echo "$kind-$n.tcg.thread: $TCG_THREAD"
			} >>"$res/meta.txt"
		done
	done
	echo "bench wall time: $(($(date +%s) - start)) s" >>"$res/meta.txt"
	grep '^cmd\.' "$res/$a-1/meta.txt" >>"$res/meta.txt"
	"$PYTHON" "$BENCH/compare.py" --names "$a" "$b" --out "$res" \
		--title "Overhead: $what ($BOOTS boot pairs pooled, $TOPO, $(cat "$res/$a-1/accel"), clock $(cat "$res/$a-1/clock"))" \
		--a "$res/$a"-*/raw.csv --b "$res/$b"-*/raw.csv
	echo
	log "bench-overhead took $(($(date +%s) - start)) s; results: $res (compare.md, compare.csv, meta.txt)"
}

main "$@"
