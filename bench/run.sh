#!/usr/bin/env bash
# make bench: build the bench kernel, boot it once, A/B every WF_SYNC placement
# arm inside that one boot (bench/guest-bench.py), then tabulate and plot
# (bench/analyze.py). Results: results/<date-time>/{raw.csv,meta.txt,table.md,
# summary.csv,plot.png} and the guest's logs in results/<date-time>/vm/.
# HOST=1: the same on the running kernel, no build, no VM (a real machine
# booted into the `make deb` kernel); its logs in results/<date-time>/host/.
# TOPOS: a boot each, in results/<date-time>/<topo>/. The variables: make
# help's for bench (harness/help.txt); TIMEOUT, seconds before the guest is
# killed, defaults from the plan.
set -eu
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

TOPO=${TOPO:-$TOPO_DEFAULT}
# A blank TOPOS counts as unset, as make exports it empty.
TOPOS=$(echo "${TOPOS:-}" | xargs)
TOPOS=${TOPOS:-$TOPO}
ACCEL=${ACCEL:-auto}
NOBUILD=${NOBUILD:-0}
HOST=${HOST:-0}
export TOPO ACCEL

# Each variable's own value (harness/check-vars.sh, as make vars does: the
# script may be run without make), then what depends on several, or on
# this machine.
check_settings() {
	TOPOS=$TOPOS "$REPO/harness/check-vars.sh"
	if [ "$HOST" = 1 ]; then
		[ "${CLOCK:-auto}" = auto ] || [ "$CLOCK" = host ] ||
			die "CLOCK=$CLOCK: HOST=1 runs on this machine, no VM, in host time; drop CLOCK"
	else
		guest_clock >/dev/null || exit 1
	fi
	# Last: it may mount debugfs, so only once everything else is valid.
	[ "$HOST" = 0 ] || check_host
}

# BASELINE_ARM (upstream's placement) unless it is not among the arms.
baseline() {
	local arms
	arms=$(plan arms)
	if [ -n "${BASELINE:-}" ]; then
		case " $arms " in *" $BASELINE "*) ;; *) die "BASELINE=$BASELINE is not among the arms: use one of: $arms" ;; esac
		echo "$BASELINE"
	else
		case " $arms " in *" $BASELINE_ARM "*) echo "$BASELINE_ARM" ;; *) echo "${arms%% *}" ;; esac
	fi
}

build() {
	if [ "$NOBUILD" = 1 ]; then
		[ -f "$(kernel_image bench)" ] ||
			die "NOBUILD=1 but there is no $(kernel_image bench): run without NOBUILD"
		log "NOBUILD=1: booting the existing $(kernel_image bench)"
		"$REPO/vm/guest-root.sh"
		return 0
	fi
	"$REPO/harness/source.sh"
	"$REPO/harness/prepare-tree.sh"
	"$REPO/harness/build-kernel.sh" bench
	"$REPO/vm/guest-root.sh"
}

# --- HOST=1 ---------------------------------------------------------------

POLICY_SYSCTL=${BENCH_POLICY:-/proc/sys/kernel/sched_sync_wakeup_policy}
FEATURES=${BENCH_FEATURES:-/sys/kernel/debug/sched/features}

# Before any work: root, the arms this kernel can run, a writable debugfs.
check_host() {
	local now
	[ "$(id -u)" = 0 ] ||
		die "make bench HOST=1 must run as root: it switches the arms in debugfs and /proc/sys (sudo make bench HOST=1)"
	if [ ! -e "$POLICY_SYSCTL" ]; then
		if [ -z "${ARMS:-}" ]; then
			log "this kernel ($(uname -r)) has no SYNC_PAIR_AFFINE ($POLICY_SYSCTL is missing): running ARMS=off only; boot the make deb kernel for the other arms"
			export ARMS=off
		elif [ "$(echo "$ARMS" | xargs)" != off ]; then
			die "this kernel ($(uname -r)) has no SYNC_PAIR_AFFINE ($POLICY_SYSCTL is missing): only ARMS=off can run; boot the make deb kernel for ARMS=$ARMS"
		fi
		return 0
	fi
	# The arms are switched in debugfs; mount it where it is not. Under
	# lockdown its files read as writable and refuse: write the state back.
	if [ ! -e "$FEATURES" ] && [ "$FEATURES" = /sys/kernel/debug/sched/features ]; then
		mount -t debugfs none /sys/kernel/debug 2>/dev/null || true
	fi
	now=$(tr ' ' '\n' 2>/dev/null <"$FEATURES" | grep -x 'NO_SYNC_PAIR_AFFINE\|SYNC_PAIR_AFFINE') || now=""
	if [ -z "$now" ] || ! echo "$now" 2>/dev/null >"$FEATURES"; then
		die "cannot read and write SYNC_PAIR_AFFINE in $FEATURES (debugfs not mounted, or locked down as under Secure Boot: cat /sys/kernel/security/lockdown): the arms cannot be switched at run time; use the boot parameter sched_sync_wakeup=<policy>, one boot per arm (docs/real-hardware.md)"
	fi
}

# The host's CPUs as the scheduler sees them, for meta.txt.
host_topology() {
	local l3
	l3=$(cat /sys/devices/system/cpu/cpu*/cache/index3/shared_cpu_list 2>/dev/null | sort -u | wc -l)
	printf '%s CPUs, %s socket(s), %s core(s) per socket, %s thread(s) per core, %s L3 domain(s)\n' \
		"$(nproc)" "$(lscpu | sed -n 's/^Socket(s): *//p')" \
		"$(lscpu | sed -n 's/^Core(s) per socket: *//p')" \
		"$(lscpu | sed -n 's/^Thread(s) per core: *//p')" "$l3"
}

main_host() {
	local res base start busy rc=0 ticks steal
	base=$(baseline)
	res=$(new_results_dir "")
	mkdir -p "$res/host"
	busy=$(warn_busy)
	start=$(date +%s)
	log "bench: $(plan runs) runs on this machine's kernel $(uname -r), no VM; results in $res"
	ticks=$(cpu_ticks /proc/stat)
	followed "$res/host/progress" "$res/host/output.log" \
		env RESULTS="$res/host" BENCH_SIDE=host "$PYTHON" "$BENCH/guest-bench.py" || rc=$?
	steal=$(steal_share "$ticks" "$(cpu_ticks /proc/stat)")
	[ "$rc" = 0 ] || {
		tail -5 "$res/host/output.log" >&2
		die "the benchmark failed (exit $rc): see $res/host/output.log and $res/host/runs.log"
	}
	cp "$res/host/raw.csv" "$res/host/meta.txt" "$res/"
	{
		echo "host.cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
		echo "host.topology: $(host_topology)"
		echo "accel: none (HOST=1: the running kernel, no VM)"
		echo "repo: $(git -C "$REPO" describe --always --dirty --tags 2>/dev/null || echo 'not a git checkout')"
		echo "command: $(invocation bench | head -1)"
		# The VM's settings do not apply here.
		invocation bench | tail -n +2 | grep -vE '^  (TOPO|ACCEL|TCG_THREAD|NOBUILD)=' | sed 's/^  /setting: /'
		echo "host.busy_before: $busy"
		echo "host.steal: $steal"
		echo "bench wall time: $(($(date +%s) - start)) s"
	} >>"$res/meta.txt"
	log "analysis (baseline $base)"
	"$PYTHON" "$BENCH/analyze.py" --baseline "$base" --out "$res" \
		--title "WF_SYNC placement A/B, $(uname -r), on the host ($(nproc) CPUs), no VM" \
		"$res/raw.csv"
	echo
	log "benchmark took $(($(date +%s) - start)) s; results: $res (table.md, plot.png, placement.png, raw.csv, meta.txt; logs in host/)"
}

# --- in a VM ---------------------------------------------------------------

main() {
	local res base start
	check_settings
	if [ "$HOST" = 1 ]; then
		# The workloads' tools and the analysis; no compiler, no QEMU.
		"$REPO/harness/deps.sh" --only linux-perf rt-tests sockperf dbench iperf3 iproute2 \
			procps util-linux python3 python3-scipy gnuplot-nox
		main_host
		return
	fi
	"$REPO/harness/deps.sh"
	base=$(baseline)
	build
	res=$(new_results_dir "")
	start=$(date +%s)
	if [ "$(echo "$TOPOS" | wc -w)" = 1 ]; then
		bench_topology "$TOPOS" "$res" "$base"
	else
		# One boot per topology, each with its own tables; an index here.
		echo "# WF_SYNC placement A/B on $TOPOS" >"$res/table.md"
		for topo in $TOPOS; do
			bench_topology "$topo" "$res/$topo" "$base"
			printf '\n- [%s](%s/table.md): %s\n' "$topo" "$topo" \
				"$(sed -n 's/^bench wall time: //p' "$res/$topo/meta.txt")" >>"$res/table.md"
		done
	fi
	echo
	log "benchmark took $(($(date +%s) - start)) s; results: $res$([ "$(echo "$TOPOS" | wc -w)" = 1 ] || echo "/<topology>") (table.md, plot.png, placement.png, raw.csv, meta.txt; guest logs in vm/)"
}

# bench_topology TOPO DIR BASELINE: one boot on TOPO, its results in DIR.
bench_topology() {
	local topo=$1 res=$2 base=$3 start busy ticks steal
	mkdir -p "$res"
	busy=$(warn_busy)
	start=$(date +%s)
	ticks=$(cpu_ticks /proc/stat)
	log "bench: $(plan runs) runs on $topo, in one boot; results in $res"
	TOPO=$topo boot_bench "$res/vm"
	steal=$(steal_share "$ticks" "$(cpu_ticks /proc/stat)")
	cp "$res/vm/raw.csv" "$res/vm/meta.txt" "$res/"
	{
		TOPO=$topo host_meta "$res/vm/accel" bench
		[ "$(cat "$res/vm/accel")" != tcg ] || echo "tcg.thread: $TCG_THREAD"
		echo "host.busy_before: $busy"
		echo "host.steal: $steal"
		echo "bench wall time: $(($(date +%s) - start)) s"
	} >>"$res/meta.txt"
	log "analysis of $topo (baseline $base)"
	"$PYTHON" "$BENCH/analyze.py" --baseline "$base" --out "$res" \
		--title "WF_SYNC placement A/B, $(sed -n 's/^guest.kernel: //p' "$res/meta.txt"), $topo, $(cat "$res/vm/accel"), clock $(cat "$res/vm/clock")" \
		"$res/raw.csv" >"$res/analyze.log" || {
		cat "$res/analyze.log" >&2
		die "analysis of $topo failed"
	}
	sed -n '/^## Summary/,/^## Per workload/p' "$res/table.md" | sed '$d'
}

main "$@"
