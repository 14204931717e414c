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
# WORKLOADS defaults to the pipe and msg-* ones and ARMS is off.
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
ARMS=off
export TOPO ACCEL WORKLOADS ARMS

# Each variable's own value (harness/check-vars.sh, as make vars does: the
# script may be run without make), then the clock.
check_settings() {
	"$REPO/harness/check-vars.sh"
	guest_clock >/dev/null || exit 1
}

build() {
	local k
	if [ "$NOBUILD" = 1 ]; then
		for k in "$(kernel_dir base)" "$(kernel_dir bench)"; do
			[ -f "$k/$ARCH_IMAGE" ] ||
				die "NOBUILD=1 but there is no $k/$ARCH_IMAGE: run without NOBUILD"
		done
		return 0
	fi
	"$REPO/harness/source.sh"
	log "building the unpatched base kernel from $(ksrc)"
	"$REPO/harness/build-kernel.sh" bench "$(ksrc)" "$(kernel_dir base)"
	"$REPO/harness/prepare-tree.sh"
	"$REPO/harness/build-kernel.sh" bench
}

main() {
	local res start n kind kernel i=0
	check_settings
	"$REPO/harness/deps.sh"
	build
	res=$(new_results_dir -overhead)
	start=$(date +%s)
	{
		echo "experiment: unpatched base kernel vs patched kernel with SYNC_PAIR_AFFINE off,"
		echo "  $BOOTS boot pairs alternating base, patched; ARMS=off in every boot; runs pooled per kernel"
		echo "kernel.base: $(kernel_dir base)/$ARCH_IMAGE"
		echo "kernel.patched-off: $(kernel_dir bench)/$ARCH_IMAGE"
		host_meta /dev/null bench-overhead | grep -v '^\(accel\|vcpu pinning\|clock\): '
	} >"$res/meta.txt"
	for n in $(seq "$BOOTS"); do
		for kind in base patched-off; do
			i=$((i + 1))
			if [ "$kind" = base ]; then kernel=$(kernel_dir base); else kernel=$(kernel_dir bench); fi
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
	grep '^cmd\.' "$res/base-1/meta.txt" >>"$res/meta.txt"
	"$PYTHON" "$BENCH/compare.py" --names base patched-off --out "$res" \
		--title "Overhead: unpatched base vs patched with SYNC_PAIR_AFFINE off ($BOOTS boot pairs pooled, $TOPO, $(cat "$res/base-1/accel"), clock $(cat "$res/base-1/clock"))" \
		--a "$res"/base-*/raw.csv --b "$res"/patched-off-*/raw.csv
	echo
	log "bench-overhead took $(($(date +%s) - start)) s; results: $res (compare.md, compare.csv, meta.txt)"
}

main "$@"
