#!/usr/bin/env bash
# make bench: build the bench kernel, boot it once, A/B every WF_SYNC placement
# arm inside that one boot (bench/guest-bench.sh), then tabulate and plot
# (bench/analyze.py). Results: results/<date-time>/{raw.csv,meta.txt,table.md,
# summary.csv,plot.png} and the guest's logs in results/<date-time>/vm/.
#
# Environment:
#   ROUNDS     rounds of every workload under every arm (default 5)
#   ARMS       subset of: off hint-only waker-if-alone reciprocal-only no-sync
#              reciprocal-strict honest-waker (default all)
#   WORKLOADS  subset of the workloads (bench/guest-bench.sh --check lists them)
#   QUICK=1    smoke run: 1 round, small sizes, every arm and workload (~3 min)
#   TOPO       flat | smt | llc2 (default flat)
#   ACCEL      auto | kvm | tcg (default auto)
#   TIMEOUT    seconds before the guest is killed (default from the plan)
#   BASELINE   arm the others are compared with (default hint-only)
#   NOBUILD=1  boot the bzImage already in build/kernel-bench, build nothing
#   PIPE_LOOPS MSG_LOOPS HB_LOOPS SOCK_SECS  workload sizes
set -eu
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

TOPO=${TOPO:-flat}
ACCEL=${ACCEL:-auto}
NOBUILD=${NOBUILD:-0}
export TOPO ACCEL

check_settings() {
	check_choice TOPO "$TOPO" flat smt llc2
	check_choice ACCEL "$ACCEL" auto kvm tcg
	check_choice NOBUILD "$NOBUILD" 0 1
	[ -z "${TIMEOUT:-}" ] || check_count TIMEOUT "$TIMEOUT"
	check_guest_vars
}

# hint-only (upstream behaviour) unless it is not among the arms.
baseline() {
	local arms
	arms=$("$BENCH/guest-bench.sh" --check | sed -n 's/^arms: //p')
	if [ -n "${BASELINE:-}" ]; then
		case " $arms " in *" $BASELINE "*) ;; *) die "BASELINE=$BASELINE is not among the arms: use one of: $arms" ;; esac
		echo "$BASELINE"
	else
		case " $arms " in *" hint-only "*) echo hint-only ;; *) echo "${arms%% *}" ;; esac
	fi
}

build() {
	if [ "$NOBUILD" = 1 ]; then
		[ -f "$(kernel_dir bench)/arch/x86/boot/bzImage" ] ||
			die "NOBUILD=1 but there is no $(kernel_dir bench)/arch/x86/boot/bzImage: run without NOBUILD"
		log "NOBUILD=1: booting the existing $(kernel_dir bench)/arch/x86/boot/bzImage"
		return 0
	fi
	"$REPO/harness/source.sh"
	"$REPO/harness/prepare-tree.sh"
	"$REPO/harness/build-kernel.sh" bench
}

main() {
	local res base start busy
	check_settings
	base=$(baseline)
	build
	res=$(new_results_dir "")
	busy=$(busy_host /proc/loadavg)
	[ -z "$busy" ] ||
		log "warning: the host is busy ($busy): stop what runs beside the benchmark, or its noise goes into every timing"
	start=$(date +%s)
	log "bench: $("$BENCH/guest-bench.sh" --check | sed -n 's/^runs: //p') runs on $TOPO, in one boot; results in $res"
	boot_bench "$res/vm"
	cp "$res/vm/raw.csv" "$res/vm/meta.txt" "$res/"
	{
		host_meta "$res/vm/accel" bench
		echo "host.busy_before: ${busy:-no}"
		echo "bench wall time: $(($(date +%s) - start)) s"
	} >>"$res/meta.txt"
	log "analysis (baseline $base)"
	"$PYTHON" "$BENCH/analyze.py" --baseline "$base" --out "$res" \
		--title "WF_SYNC placement A/B, $(sed -n 's/^guest.kernel: //p' "$res/meta.txt"), $TOPO, $(cat "$res/vm/accel")" \
		"$res/raw.csv"
	echo
	log "benchmark took $(($(date +%s) - start)) s; results: $res (table.md, plot.png, raw.csv, meta.txt; guest logs in vm/)"
}

main "$@"
