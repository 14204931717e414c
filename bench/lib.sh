# shellcheck shell=bash
# Helpers shared by bench/run.sh and bench/overhead.sh (host side). Sourced.

# shellcheck source=harness/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../harness/lib.sh"
# shellcheck disable=SC2034 # used by the scripts that source this file
BENCH="$REPO/bench"
# Variables handed to bench/guest-bench.py in the guest.
GUEST_VARS="ROUNDS ARMS WORKLOADS QUICK PAIRS PIPE_LOOPS MSG_LOOPS HB_LOOPS SOCK_SECS SOCK_PORT TB_SECS UDP_SECS UDP_PORT"

# plan KEY: the KEY line of the guest's plan for the current variables
# (guest-bench.py --check), without "KEY: ".
plan() { "$PYTHON" "$BENCH/guest-bench.py" --check | sed -n "s/^$1: //p"; }

# guest_cmd KCONFIG: the guest's command line: guest-bench.py with the
# GUEST_VARS that are set, and the booted kernel's config (for HZ and the
# preemption model; the guest sees the host's files).
guest_cmd() {
	local v cmd
	cmd="env BENCH_KCONFIG=$(sq "$1")"
	for v in $GUEST_VARS; do
		[ -z "${!v:-}" ] || cmd+=" $v=$(sq "${!v}")"
	done
	echo "$cmd $PYTHON $(sq "$BENCH/guest-bench.py")"
}

# new_results_dir SUFFIX: a new results/<date-time>SUFFIX directory (under
# BENCH_RESULTS instead of results/, for make check); prints its path.
new_results_dir() {
	local dir top=${BENCH_RESULTS:-$REPO/results}
	dir="$top/$(date +%Y%m%d-%H%M%S)${1:-}"
	while [ -e "$dir" ]; do sleep 1 && dir="$top/$(date +%Y%m%d-%H%M%S)${1:-}"; done
	mkdir -p "$dir"
	echo "$dir"
}

# Default guest timeout: the boot, plus a generous 12 s for every run the
# plan has, warm-ups included ("N measured, M warm-up").
default_timeout() {
	plan runs | awk '{ print 900 + 12 * ($1 + $3) }'
}

# followed PROGRESS LOG COMMAND...: COMMAND, its output to LOG, while the
# lines it writes to PROGRESS (emptied first) show on the terminal.
followed() {
	local progress=$1 log=$2 pid rc=0
	shift 2
	: >"$progress"
	tail -n +1 -F "$progress" 2>/dev/null &
	pid=$!
	"$@" >"$log" 2>&1 || rc=$?
	sleep 1 # let tail print the last lines
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	return "$rc"
}

# boot_bench OUT [KERNEL]: boot the bench kernel (or KERNEL) once, run the
# guest script there, follow its progress file on the terminal meanwhile.
boot_bench() {
	local out=$1 kernel=${2:-} rc=0 kconfig clock icount=""
	clock=$(guest_clock) || exit 1
	[ "$clock" != icount ] || icount=$ICOUNT_SHIFT
	mkdir -p "$out"
	kconfig=${kernel:-$(kernel_image bench)}
	kconfig=${kconfig%/"$ARCH_IMAGE"}/.config
	# Each vCPU on its own host CPU where there are enough: less noise.
	followed "$out/progress" "$out/vm-run.log" env ICOUNT="$icount" PIN_VCPUS=1 FLAVOUR=bench OUT="$out" \
		CMD="$(guest_cmd "$kconfig")" TIMEOUT="${TIMEOUT:-$(default_timeout)}" KERNEL="$kernel" \
		"$REPO/vm/run.sh" || rc=$?
	if [ "$rc" != 0 ]; then
		sed 's/^/    /' "$out/vm-run.log" | tail -25 >&2
		die "the bench guest failed (exit $rc): see $out/vm-run.log, $out/output.log, $out/runs.log and $out/console.log"
	fi
	[ -s "$out/raw.csv" ] || die "the guest wrote no $out/raw.csv: see $out/output.log and $out/console.log"
}

# How this run was asked for: make's command-line variables, or the script.
invocation() {
	local how="$1" v
	if [ -n "${MAKEFLAGS:-}" ] && [ "${MAKEFLAGS#*-- }" != "$MAKEFLAGS" ]; then
		echo "make $how ${MAKEFLAGS#*-- }"
	elif [ -n "${MAKELEVEL:-}" ]; then
		echo "make $how"
	else
		echo "${0#"$REPO"/}"
	fi
	for v in $GUEST_VARS TOPO ACCEL TCG_THREAD CLOCK TIMEOUT BOOTS NOBUILD KSRC; do
		[ -z "${!v:-}" ] || printf '  %s=%s\n' "$v" "${!v}"
	done
}

# busy_host [LOADAVG]: why the host looks busy, nothing if it does not. The
# runnable tasks in /proc/loadavg (field 4, less the reader), ten samples
# over two seconds: the load averages lag minutes behind a finished build.
busy_host() {
	local file=${1:-/proc/loadavg} i sum=0 n
	for i in 1 2 3 4 5 6 7 8 9 10; do
		n=$(cut -d' ' -f4 "$file")
		sum=$((sum + ${n%%/*} - 1))
		[ "$i" = 10 ] || sleep 0.2
	done
	[ "$sum" -lt 5 ] ||
		echo "$((sum / 10)).$((sum % 10)) tasks runnable besides this one on average over 2 s; an idle host has 0"
	return 0
}

# warn_busy: busy_host's verdict on this host for meta.txt ("no" if idle),
# with a warning on stderr when it is busy.
warn_busy() {
	local busy
	busy=$(busy_host /proc/loadavg)
	[ -z "$busy" ] ||
		log "warning: the host is busy ($busy): stop what runs beside the benchmark, or its noise goes into every timing"
	echo "${busy:-no}"
}

# cpu_ticks STAT: "TOTAL STEAL", the host's CPU time since boot and the
# part of it its own hypervisor ran others in (/proc/stat, USER_HZ ticks;
# guest time is already in user).
cpu_ticks() {
	awk '/^cpu / { for (i = 2; i <= 9; i++) t += $i; print t, $9; exit }' "$1"
}

# steal_share BEFORE AFTER: the stolen share of the host's CPU time between
# two cpu_ticks readings. A shared cloud host slows the guest down without
# anything on this machine showing it.
steal_share() {
	echo "$1 $2" | awk '{ d = $3 - $1; printf "%.1f%% (%d of %d ticks)\n", d ? 100 * ($4 - $2) / d : 0, $4 - $2, d }'
}

# clock_meta FILE: the guest clock vm/run.sh noted in FILE, for meta.txt.
clock_meta() {
	local c
	c=$(cat "$1" 2>/dev/null) || c=unknown
	case "$c" in
	icount*) echo "clock: $c (QEMU: guest time counts instructions, 2^shift ns each, and skips idle time; independent of the host's speed)" ;;
	host) echo "clock: host (guest time is the host's time)" ;;
	*) echo "clock: $c" ;;
	esac
}

# host_meta ACCEL_FILE: the host half of meta.txt.
host_meta() {
	local series features
	series=$(grep -v '^[[:space:]]*\(#\|$\)' "$PATCHES/series" 2>/dev/null | tr '\n' ' ' || true)
	echo "host.cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
	echo "host.nproc: $(nproc)"
	echo "host.kernel: $(uname -r)"
	echo "host.date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "accel: $(cat "$1" 2>/dev/null || echo unknown)"
	# The whole CPU model: it decides, say, the guest's spinlock (lib.sh).
	echo "qemu cpu and accelerator: $({ accel_args "${ACCEL:-auto}" 2>/dev/null || echo "- unknown"; } | cut -d' ' -f2-)"
	echo "vcpu pinning: $(cat "${1%/*}/pinning" 2>/dev/null || echo none)"
	clock_meta "${1%/*}/clock"
	features=$(cat "${1%/*}/sched-features" 2>/dev/null) || true
	echo "guest sched features set at boot: ${features:-none, the kernel defaults}"
	echo "topology: ${TOPO:-$TOPO_DEFAULT}"
	echo "base kernel: $(kernel_version "$(ksrc)" 2>/dev/null || echo unknown) ($(ksrc))"
	echo "repo: $(git -C "$REPO" describe --always --dirty --tags 2>/dev/null || echo 'not a git checkout')"
	echo "patches/series: ${series:-(empty)}"
	echo "command: $(invocation "$2" | head -1)"
	invocation "$2" | tail -n +2 | sed 's/^  /setting: /'
}
