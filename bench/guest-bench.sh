#!/usr/bin/env bash
# Runs inside the bench guest (see bench/run.sh): A/B every WF_SYNC placement
# arm in this one boot. Arms: `off` (SYNC_PAIR_AFFINE off) and the feature on
# with each policy. One discarded warm-up run per workload, then ROUNDS rounds;
# in every round each workload runs under every arm, the arm order rotated by
# one per round. Before a run the arm is set and the counters reset, after it
# the counters are read. One CSV row per run and metric goes to
# $RESULTS/raw.csv, progress lines to $RESULTS/progress, the run's settings
# and exact command lines to $RESULTS/meta.txt, every run's output to
# $RESULTS/runs.log.
#
# Usage: guest-bench.sh           run (as root, in the guest)
#        guest-bench.sh --check   check the variables and print the plan
# Environment:
#   RESULTS     writable result directory (the guest's /mnt)
#   ROUNDS      rounds (default 5; QUICK=1: 1)
#   ARMS        subset of: off, then the POLICIES of harness/definitions.sh
#               (default all, in that order)
#   WORKLOADS   subset of the workloads listed by --check (default all)
#   QUICK       1 = smoke-test sizes
#   PIPE_LOOPS MSG_LOOPS HB_LOOPS SOCK_SECS SOCK_PORT TB_SECS UDP_SECS
#   UDP_PORT    workload sizes and ports (tbench_srv listens on 7003)
# A kernel without the feature (the unpatched base) can run ARMS=off: the
# scheduler files are then left alone and the counters recorded empty.
# BENCH_FEATURES, BENCH_POLICY, BENCH_STATS override the kernel file paths
# (for testing this script on a host against plain files). BENCH_SIDE
# (guest, or host for make bench HOST=1) prefixes the machine's lines in
# meta.txt; BENCH_KCONFIG names the running kernel's config where neither
# /proc/config.gz nor /boot has it (the bench kernel's, for the guest).
set -eu

# shellcheck source=harness/definitions.sh
. "$(dirname "${BASH_SOURCE[0]}")/../harness/definitions.sh"
ALL_ARMS="off $POLICIES"
# shellcheck disable=SC2086,SC2116 # the words, on one line
ALL_WORKLOADS=$(echo $WORKLOADS_ALL)

FEATURES=${BENCH_FEATURES:-/sys/kernel/debug/sched/features}
POLICY=${BENCH_POLICY:-/proc/sys/kernel/sched_sync_wakeup_policy}
STATS=${BENCH_STATS:-/sys/kernel/debug/sched/sync_wakeup_stats}

die() {
	printf 'guest-bench: error: %s\n' "$*" >&2
	exit 1
}

# "a  b\n c " -> "a b c"
norm() { printf '%s\n' "$1" | tr -s ' \t\n' '   ' | sed 's/^ //; s/ $//'; }

# is_in WORD LIST
is_in() {
	case " $2 " in *" $1 "*) return 0 ;; esac
	return 1
}

# check_list NAME VALUE VALID: every word of VALUE is valid, none twice.
check_list() {
	local seen=" " w
	[ -n "$(norm "$2")" ] || die "$1 is empty: pick from: $3"
	for w in $2; do
		is_in "$w" "$3" || die "unknown $1 entry '$w': pick from: $3"
		case "$seen" in *" $w "*) die "$1 names '$w' twice" ;; esac
		seen="$seen$w "
	done
}

check_count() { # check_count NAME VALUE
	case "$2" in
	'' | *[!0-9]* | 0*) die "$1=$2 is not a positive integer" ;;
	esac
}

settings() {
	QUICK=${QUICK:-0}
	case "$QUICK" in 0 | 1) ;; *) die "QUICK=$QUICK: use 0 or 1" ;; esac
	if [ "$QUICK" = 1 ]; then
		ROUNDS=${ROUNDS:-1}
		PIPE_LOOPS=${PIPE_LOOPS:-3000}
		MSG_LOOPS=${MSG_LOOPS:-40}
		HB_LOOPS=${HB_LOOPS:-40}
		SOCK_SECS=${SOCK_SECS:-1}
		TB_SECS=${TB_SECS:-2}
		UDP_SECS=${UDP_SECS:-1}
	else
		# Under TCG on a 2-core host, 0.3-2 s a run (pipe ~150 usec/op);
		# 100 loops is perf's and hackbench's own default.
		ROUNDS=${ROUNDS:-5}
		PIPE_LOOPS=${PIPE_LOOPS:-8000}
		MSG_LOOPS=${MSG_LOOPS:-100}
		HB_LOOPS=${HB_LOOPS:-100}
		SOCK_SECS=${SOCK_SECS:-2}
		TB_SECS=${TB_SECS:-3}
		UDP_SECS=${UDP_SECS:-2}
	fi
	SOCK_PORT=${SOCK_PORT:-11111}
	UDP_PORT=${UDP_PORT:-5201}
	ARMS=$(norm "${ARMS:-$ALL_ARMS}")
	WORKLOADS=$(norm "${WORKLOADS:-$ALL_WORKLOADS}")
	check_count ROUNDS "$ROUNDS"
	check_count PIPE_LOOPS "$PIPE_LOOPS"
	check_count MSG_LOOPS "$MSG_LOOPS"
	check_count HB_LOOPS "$HB_LOOPS"
	check_count SOCK_SECS "$SOCK_SECS"
	check_count SOCK_PORT "$SOCK_PORT"
	check_count TB_SECS "$TB_SECS"
	[ "$TB_SECS" -ge 2 ] || die "TB_SECS=$TB_SECS: tbench reports throughput once a second; use 2 or more"
	check_count UDP_SECS "$UDP_SECS"
	check_count UDP_PORT "$UDP_PORT"
	if [ "$SOCK_PORT" = "$UDP_PORT" ] || [ "$SOCK_PORT" = 7003 ] || [ "$UDP_PORT" = 7003 ]; then
		die "SOCK_PORT=$SOCK_PORT and UDP_PORT=$UDP_PORT must differ from each other and from tbench's 7003"
	fi
	check_list ARMS "$ARMS" "$ALL_ARMS"
	check_list WORKLOADS "$WORKLOADS" "$ALL_WORKLOADS"
	read -ra arm_list <<<"$ARMS"
	read -ra workload_list <<<"$WORKLOADS"
	total_runs=$((ROUNDS * ${#arm_list[@]} * ${#workload_list[@]}))
	local w
	for w in "${workload_list[@]}"; do
		cmdline[$w]=$(command_of "$w")
	done
}

declare -A cmdline # workload -> its command line
# The exact command line of a workload: plain words, no quoting needed.
command_of() {
	local g
	case "$1" in
	pipe) echo "perf bench sched pipe -l $PIPE_LOOPS" ;;
	pipe-cpu01) echo "taskset -c 0,1 perf bench sched pipe -l $PIPE_LOOPS" ;;
	pipe-cpu0) echo "taskset -c 0 perf bench sched pipe -l $PIPE_LOOPS" ;;
	msg-thread-g*) g=${1#msg-thread-g} && echo "perf bench sched messaging -p -t -g $g -l $MSG_LOOPS" ;;
	msg-process-g*) g=${1#msg-process-g} && echo "perf bench sched messaging -p -g $g -l $MSG_LOOPS" ;;
	hackbench-thread-g*) g=${1#hackbench-thread-g} && echo "hackbench --pipe --threads --groups $g --loops $HB_LOOPS" ;;
	hackbench-process-g*) g=${1#hackbench-process-g} && echo "hackbench --pipe --process --groups $g --loops $HB_LOOPS" ;;
	sockperf) echo "sockperf ping-pong --tcp -i 127.0.0.1 -p $SOCK_PORT -t $SOCK_SECS" ;;
	tbench-1) echo "tbench -t $TB_SECS 1 127.0.0.1" ;;
	tbench-nproc) echo "tbench -t $TB_SECS $(nproc) 127.0.0.1" ;;
	tbench-2nproc) echo "tbench -t $TB_SECS $((2 * $(nproc))) 127.0.0.1" ;;
	# -b 0: iperf3 caps UDP at 1 Mbit/s otherwise; -f m: always Mbits/sec.
	udp-stream) echo "iperf3 -c 127.0.0.1 -p $UDP_PORT -u -b 0 -t $UDP_SECS -f m" ;;
	*) die "no command for workload $1" ;;
	esac
}

# server_of WORKLOAD: sets `server` to the server it talks to (sockperf,
# tbench, iperf3), or nothing.
server_of() {
	case "$1" in
	sockperf) server=sockperf ;;
	tbench-*) server=tbench ;;
	udp-stream) server=iperf3 ;;
	*) server="" ;;
	esac
}

server_command() { # server_command SERVER
	case "$1" in
	sockperf) echo "sockperf server --tcp -i 127.0.0.1 -p $SOCK_PORT" ;;
	tbench) echo "tbench_srv" ;;
	iperf3) echo "iperf3 -s -B 127.0.0.1 -p $UDP_PORT" ;;
	esac
}

server_port() { # server_port SERVER: the TCP port it listens on
	case "$1" in
	sockperf) echo "$SOCK_PORT" ;;
	tbench) echo 7003 ;;
	iperf3) echo "$UDP_PORT" ;;
	esac
}

# --- the kernel's knobs -------------------------------------------------

feature_present() { [ -e "$POLICY" ]; }

# Everything run once per run avoids fork and exec: under TCG each costs
# 75-150 ms, more than some of the workloads.

# feature_is ON|OFF: what debugfs sched/features says now.
feature_is() {
	local line=""
	IFS= read -r line <"$FEATURES" || [ -n "$line" ] || die "cannot read $FEATURES"
	case " $line " in
	*" NO_SYNC_PAIR_AFFINE "*) [ "$1" = OFF ] ;;
	*" SYNC_PAIR_AFFINE "*) [ "$1" = ON ] ;;
	*) die "$FEATURES does not list SYNC_PAIR_AFFINE: is this the patched kernel?" ;;
	esac
}

# set_arm ARM: off, or the feature on with the policy ARM; verified by reading back.
set_arm() {
	local now=""
	if ! feature_present; then
		[ "$1" = off ] || die "arm $1 needs the SYNC_PAIR_AFFINE kernel: $POLICY is missing"
		return 0
	fi
	if [ "$1" = off ]; then
		echo NO_SYNC_PAIR_AFFINE >"$FEATURES" || die "cannot write NO_SYNC_PAIR_AFFINE to $FEATURES"
		feature_is OFF || die "SYNC_PAIR_AFFINE stayed on after writing NO_SYNC_PAIR_AFFINE to $FEATURES"
		return 0
	fi
	echo "$1" >"$POLICY" || die "cannot write policy $1 to $POLICY"
	IFS= read -r now <"$POLICY" || true
	[ "$now" = "$1" ] || die "$POLICY reads '$now' after writing $1"
	echo SYNC_PAIR_AFFINE >"$FEATURES" || die "cannot write SYNC_PAIR_AFFINE to $FEATURES"
	feature_is ON || die "SYNC_PAIR_AFFINE stayed off after writing it to $FEATURES"
}

reset_counters() {
	feature_present || return 0
	echo 0 >"$STATS" || die "cannot reset the counters in $STATS"
}

# Sets sync kept declined dropped and landing[] (all empty without the
# feature); declined is the sum of the declined_* counters.
declare -A landing
read_counters() {
	local name value n=0 c
	sync="" kept="" declined="" dropped=""
	for c in $STATS_COUNTERS; do landing[$c]=""; done
	feature_present || return 0
	declined=0
	while read -r name value; do
		# promise_pending is a signed in-flight count, not a total.
		[ "$name" != promise_pending ] || continue
		case "$value" in '' | *[!0-9]*) die "counter '$name' in $STATS reads '$value', want a number" ;; esac
		case "$name" in
		sync_wakeups) sync=$value && n=$((n + 1)) ;;
		kept_on_waker_cpu) kept=$value && n=$((n + 1)) ;;
		hint_dropped) dropped=$value && n=$((n + 1)) ;;
		declined_*) declined=$((declined + value)) ;;
		landed_* | promise_* | context_*) landing[$name]=$value && n=$((n + 1)) ;;
		esac
	done <"$STATS"
	# shellcheck disable=SC2086 # a word per counter
	[ "$n" = $((3 + $(set -- $STATS_COUNTERS && echo $#))) ] || die "$STATS lacks some of sync_wakeups, kept_on_waker_cpu, hint_dropped, $STATS_COUNTERS"
}

# --- the system's own counters, around every run ---------------------------

# Whole-system deltas over a run (SYSTEM_COUNTERS): IPIs (rescheduling;
# function calls, how a wakelisted wakeup arrives), context switches, and
# from /proc/schedstat (version 16) wakeups, wakeups on the waking CPU,
# wakeups of a task last on another CPU, wake_affine() moves, load-balance
# migrations and the wait of runnable tasks (ns). Empty where not counted.
declare -A sys_before sys_delta smp

# sample_system: the counters now into smp[]. Builtins only: a fork costs
# 75-150 ms under TCG.
sample_system() {
	local name rest w sum c
	local -a f
	for c in $SYSTEM_COUNTERS; do smp[$c]=""; done
	while read -r name rest; do
		case "$name" in RES: | CAL:) ;; *) continue ;; esac
		sum=0
		for w in $rest; do
			case "$w" in *[!0-9]*) break ;; esac
			sum=$((sum + w))
		done
		if [ "$name" = RES: ]; then smp[ipi_resched]=$sum; else smp[ipi_call]=$sum; fi
	done </proc/interrupts
	while read -r name rest; do
		[ "$name" != ctxt ] || smp[ctx_switches]=$rest
	done </proc/stat
	[ "$schedstat" = yes ] || return 0
	for c in ttwu_count ttwu_local ttwu_wake_remote ttwu_move_affine lb_migrations run_delay_ns; do smp[$c]=0; done
	while read -r name rest; do
		read -ra f <<<"$rest"
		case "$name" in
		cpu[0-9]*)
			smp[ttwu_count]=$((smp[ttwu_count] + f[4]))
			smp[ttwu_local]=$((smp[ttwu_local] + f[5]))
			smp[run_delay_ns]=$((smp[run_delay_ns] + f[7]))
			;;
		domain[0-9]*)
			smp[ttwu_wake_remote]=$((smp[ttwu_wake_remote] + f[34]))
			smp[ttwu_move_affine]=$((smp[ttwu_move_affine] + f[35]))
			smp[lb_migrations]=$((smp[lb_migrations] + f[5] + f[13] + f[21] + f[27]))
			;;
		esac
	done </proc/schedstat
}

system_before() { # sys_before[] = the counters now
	local c
	sample_system
	for c in $SYSTEM_COUNTERS; do sys_before[$c]=${smp[$c]}; done
}

system_delta() { # sys_delta[] = the counters now - sys_before[]
	local c
	sample_system
	for c in $SYSTEM_COUNTERS; do
		if [ -n "${smp[$c]}" ] && [ -n "${sys_before[$c]}" ]; then
			sys_delta[$c]=$((smp[$c] - sys_before[$c]))
		else
			sys_delta[$c]=""
		fi
	done
}

# schedstats on for the whole session (every arm alike), if built in and
# /proc/schedstat is the layout parsed above; the old setting comes back.
schedstat=no
schedstat_was=""
schedstats_on() {
	local v=""
	[ -w /proc/sys/kernel/sched_schedstats ] && [ -r /proc/schedstat ] || return 0
	IFS= read -r v </proc/schedstat || true
	if [ "$v" != "version 16" ]; then
		progress "/proc/schedstat is '$v', not version 16: no schedstats figures"
		return 0
	fi
	IFS= read -r schedstat_was </proc/sys/kernel/sched_schedstats
	echo 1 >/proc/sys/kernel/sched_schedstats || die "cannot turn on kernel.sched_schedstats"
	schedstat=yes
}

# The feature and policy found at the start, put back at the end: on a
# real machine (make bench HOST=1) the bench must not leave an arm behind.
policy_was=""
feature_was=NO_SYNC_PAIR_AFFINE
save_state() {
	feature_present || return 0
	IFS= read -r policy_was <"$POLICY" || true
	if feature_is ON; then feature_was=SYNC_PAIR_AFFINE; fi
}

restore() {
	stop_servers
	if [ -n "$schedstat_was" ]; then
		echo "$schedstat_was" >/proc/sys/kernel/sched_schedstats 2>/dev/null || true
	fi
	if feature_present && [ -w "$FEATURES" ]; then
		[ -z "$policy_was" ] || echo "$policy_was" >"$POLICY" 2>/dev/null || true
		echo "$feature_was" >"$FEATURES" 2>/dev/null || true
	fi
}

# --- the servers of sockperf, tbench and iperf3 ---------------------------

declare -A server_pid
server_logs="" # the servers' logs while they run; copied to $RESULTS after
# start_server SERVER: started once, for the whole session, listening.
start_server() {
	local i cmd port pid=${server_pid[$1]:-}
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		return 0
	fi
	read -ra cmd <<<"$(server_command "$1")"
	port=$(server_port "$1")
	# Someone else's server there would be measured instead of ours.
	if ss -Htln "sport = :$port" 2>/dev/null | grep -q .; then
		die "TCP port $port is in use by another program: stop it, or pick another port (SOCK_PORT=, UDP_PORT=; tbench_srv needs 7003)"
	fi
	"${cmd[@]}" >>"$server_logs/$1-server.log" 2>&1 &
	server_pid[$1]=$!
	for i in $(seq 50); do
		kill -0 "${server_pid[$1]}" 2>/dev/null ||
			die "$1 server exited at once: see $RESULTS/$1-server.log (is lo up? ip link set lo up)"
		if ss -Htlnp "sport = :$port" 2>/dev/null | grep -q "pid=${server_pid[$1]},"; then
			return 0
		fi
		sleep 0.2
		: "$i"
	done
	die "$1 server does not listen on 127.0.0.1:$port after 10 s: see $RESULTS/$1-server.log"
}

stop_servers() {
	local name
	for name in "${!server_pid[@]}"; do
		kill "${server_pid[$name]}" 2>/dev/null || true
		wait "${server_pid[$name]}" 2>/dev/null || true
		unset "server_pid[$name]"
	done
	if [ -n "$server_logs" ]; then
		cp "$server_logs"/*-server.log "$RESULTS/" 2>/dev/null || true
		rm -rf "$server_logs"
	fi
}

# Under QEMU's icount clock (make bench's default under TCG), guest time
# jumps to the next timer whenever every vCPU waits, as for a page of the
# host's 9p root: a timed run (sockperf, tbench, iperf3) that pages in its
# tool there can end before it has sent anything (sockperf on flat,
# 2026-12-02). So read the tools, their libraries and tbench's load file
# into the page cache before any run; the servers log to memory (/tmp).
page_in() {
	local t f
	local -a files=(/usr/share/dbench/client.txt)
	for t in perf hackbench sockperf tbench tbench_srv iperf3 taskset ss; do
		f=$(command -v "$t") || continue
		files+=("$f")
		while read -r f; do files+=("$f"); done < <(ldd "$f" 2>/dev/null | grep -o '/[^ ]*')
	done
	cat "${files[@]}" >/dev/null 2>&1 || true
}

# --- running and parsing -------------------------------------------------

# grab GROUP REGEX TEXT: sets `got` to GROUP of REGEX's first match in TEXT, or "-".
grab() {
	got=-
	if [[ $3 =~ $2 ]]; then got=${BASH_REMATCH[$1]}; fi
}

# Messages per group and loop of perf's messaging and of hackbench: each of
# their 20 senders writes to each of 20 receivers (both tools' default).
MSGS_PER_GROUP_LOOP=400

# table_ops OUTPUT: sets `got` to the sum of the Count column of tbench's
# closing table ("-" without one).
table_ops() {
	local line sum=0 n=0 re='^ [A-Za-z]+ +([0-9]+) +[0-9.]+ +[0-9.]+$'
	while IFS= read -r line; do
		if [[ $line =~ $re ]]; then
			sum=$((sum + BASH_REMATCH[1]))
			n=$((n + 1))
		fi
	done <<<"$1"
	got=$sum
	[ "$n" != 0 ] || got=-
}

# parse WORKLOAD OUTPUT: sets `metrics`, lines "metric value unit better",
# and `ops`, the operations of the run (pipe, sockperf: round trips;
# messaging, hackbench: messages); a value the output lacks is "-" and
# stops the bench in check_metrics.
parse() {
	local nl=$'\n' lost
	case "$1" in
	pipe*)
		grab 1 '([0-9.]+) usecs/op' "$2"
		metrics="time-per-op $got usec/op lower"
		ops=$PIPE_LOOPS
		;;
	msg-*)
		grab 1 'Total time: ([0-9.]+) \[sec\]' "$2"
		metrics="runtime $got s lower"
		ops=$((${1##*-g} * MSGS_PER_GROUP_LOOP * MSG_LOOPS))
		;;
	hackbench-*)
		grab 2 "(^|$nl)Time: ([0-9.]+)" "$2"
		metrics="runtime $got s lower"
		ops=$((${1##*-g} * MSGS_PER_GROUP_LOOP * HB_LOOPS))
		;;
	sockperf)
		grab 1 'avg-latency=([0-9.]+)' "$2"
		metrics="avg-latency $got usec lower$nl"
		grab 1 'percentile 99\.000 = *([0-9.]+)' "$2"
		metrics+="p99-latency $got usec lower"
		grab 1 'Total Run\][^'"$nl"']*ReceivedMessages=([0-9]+)' "$2"
		ops=$got
		;;
	tbench-*)
		grab 2 "(^|$nl)Throughput ([0-9.]+) MB/sec" "$2"
		# tbench samples once a second: a shorter run reports 0.
		[[ $got =~ [1-9] ]] || got=-
		metrics="throughput $got MB/s higher"
		table_ops "$2"
		ops=$got
		;;
	udp-stream)
		# The receiver's line: what got through, and of how many datagrams.
		grab 1 '([0-9.]+) Mbits/sec +[0-9.]+ ms +[0-9]+/[0-9]+ \([^)]*\) +receiver' "$2"
		metrics="received $got Mbit/s higher$nl"
		grab 1 ' ([0-9]+)/[0-9]+ \(([0-9.e+-]+)%\) +receiver' "$2"
		lost=$got
		grab 2 ' ([0-9]+)/[0-9]+ \(([0-9.e+-]+)%\) +receiver' "$2"
		# iperf3 prints the share with %.2g: "1e+02", "2.2e-05".
		[ "$got" = - ] || printf -v got '%.6f' "$got"
		metrics+="lost $got % lower"
		grab 1 ' [0-9]+/([0-9]+) \([^)]*\) +receiver' "$2"
		ops=-
		[ "$got" = - ] || [ "$lost" = - ] || ops=$((got - lost))
		;;
	esac
}

# Every metric a positive decimal number, or the bench stops here.
check_metrics() { # check_metrics WORKLOAD ARM
	local metric value rest
	[ -n "$metrics" ] || die "$1 under arm $2: no metric parsed; output in $RESULTS/runs.log"
	# A UDP receiver starved of every datagram is a result, not a parse error.
	case "$ops" in '' | *[!0-9]*) die "$1 under arm $2: cannot tell its operations (got '$ops'); output in $RESULTS/runs.log" ;; esac
	[ "$ops" != 0 ] || [ "$1" = udp-stream ] || die "$1 under arm $2: 0 operations; output in $RESULTS/runs.log"
	while read -r metric value rest; do
		case "$value" in
		'' | *[!0-9.]* | *.*.* | .)
			die "$1 under arm $2: cannot parse $metric from the output (got '$value'): did the tool's output format change? output in $RESULTS/runs.log"
			;;
		esac
		: "$rest"
	done <<<"$metrics"
}

# run_one WORKLOAD ARM: sets the arm, runs the workload, sets `metrics`
# and the counters.
run_one() {
	local cmd out rc=0 server
	read -ra cmd <<<"${cmdline[$1]}"
	server_of "$1"
	[ -z "$server" ] || start_server "$server"
	set_arm "$2"
	reset_counters
	# After the arm is set: flipping a feature sends IPIs of its own.
	system_before
	out=$("${cmd[@]}" 2>&1) || rc=$?
	system_delta
	read_counters
	printf '### %s arm=%s rc=%s: %s\n%s\n' "$1" "$2" "$rc" "${cmd[*]}" "$out" >>"$RESULTS/runs.log"
	[ "$rc" = 0 ] || die "$1 under arm $2 failed (exit $rc): ${cmd[*]}; output in $RESULTS/runs.log"
	parse "$1" "$out"
	check_metrics "$1" "$2"
}

csv() { echo "${1// /,}"; } # csv "a b c": "a,b,c"

# Sets `profile` to the run's landings and system counters as CSV fields.
profile_csv() {
	local c
	profile=""
	for c in $STATS_COUNTERS; do profile+="${landing[$c]},"; done
	for c in $SYSTEM_COUNTERS; do profile+="${sys_delta[$c]},"; done
	profile=${profile%,}
}

# --- progress ------------------------------------------------------------

# fmt_secs VAR USEC: VAR = "12m05s"
fmt_secs() {
	local t=$(($2 / 1000000))
	printf -v "$1" '%dm%02ds' $((t / 60)) $((t % 60))
}

declare -A est_us done_n
# Sets eta_us: each remaining run costs its workload's mean run time so far.
eta() {
	local w
	eta_us=0
	for w in "${workload_list[@]}"; do
		eta_us=$((eta_us + (ROUNDS * ${#arm_list[@]} - done_n[$w]) * est_us[$w]))
	done
}

# progress TEXT: a time-stamped line to $RESULTS/progress (bench/run.sh
# follows it), and to a terminal.
progress() {
	local line
	printf -v line '%(%H:%M:%S)T %s' -1 "$*"
	printf '%s\n' "$line" >>"$RESULTS/progress"
	[ ! -t 1 ] || printf '%s\n' "$line"
}

# --- main ----------------------------------------------------------------

# The running kernel's config, if one is to be found.
kconfig_text() {
	local f
	for f in "${BENCH_KCONFIG:-}" /proc/config.gz "/boot/config-$(uname -r)"; do
		if [ -z "$f" ] || [ ! -r "$f" ]; then continue; fi
		case "$f" in *.gz) zcat "$f" ;; *) cat "$f" ;; esac
		return 0
	done
	return 1
}

# kernel_facts: HZ, the preemption model and schedstats, which shape every
# wakeup figure, as meta.txt lines "<side>.hz: ..." and so on.
kernel_facts() {
	local side=$1 config hz model dyn="" now
	config=$(kconfig_text 2>/dev/null) || config=""
	hz=$(printf '%s\n' "$config" | sed -n 's/^CONFIG_HZ=//p')
	echo "$side.hz: ${hz:-unknown (no kernel config in /proc/config.gz or /boot)}"
	model=$(printf '%s\n' "$config" | sed -n 's/^CONFIG_\(PREEMPT_RT\|PREEMPT\|PREEMPT_VOLUNTARY\|PREEMPT_NONE\|PREEMPT_LAZY\)=y$/\1/p' | head -1)
	printf '%s\n' "$config" | grep -q '^CONFIG_PREEMPT_DYNAMIC=y' && dyn=", PREEMPT_DYNAMIC"
	# With PREEMPT_DYNAMIC, the model in force is the one debugfs marks.
	now=$(sed -n 's/.*(\([a-z]*\)).*/\1/p' /sys/kernel/debug/sched/preempt 2>/dev/null || true)
	if [ -n "$now" ]; then
		echo "$side.preempt: $now (sched/preempt in debugfs)${model:+; config $model$dyn}"
	elif [ -n "$model" ]; then
		echo "$side.preempt: config $model$dyn$(grep -o 'preempt=[a-z]*' /proc/cmdline | sed 's/^/, boot parameter /')"
	else
		echo "$side.preempt: unknown; uname -v: $(uname -v)"
	fi
	if [ "$schedstat" = yes ]; then
		echo "$side.schedstats: on for the session (kernel.sched_schedstats was $schedstat_was)"
	elif [ -e /proc/sys/kernel/sched_schedstats ]; then
		echo "$side.schedstats: built in, not used (kernel.sched_schedstats=$(cat /proc/sys/kernel/sched_schedstats))"
	else
		echo "$side.schedstats: not built in (CONFIG_SCHEDSTATS off): no schedstats figures"
	fi
}

write_meta() {
	local w srv server side=${BENCH_SIDE:-guest}
	{
		echo "$side.kernel: $(uname -r)"
		echo "$side.uname: $(uname -a)"
		echo "$side.nproc: $(nproc)"
		echo "$side.smt_active: $(cat /sys/devices/system/cpu/smt/active 2>/dev/null || echo unknown)"
		echo "$side.date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
		kernel_facts "$side"
		if feature_present; then
			echo "$side.feature: present; policies: $(cat /proc/sys/kernel/sched_sync_wakeup_available_policies 2>/dev/null || echo unknown)"
		else
			echo "$side.feature: absent ($(uname -r) has no SYNC_PAIR_AFFINE): arms other than off impossible, counters empty"
		fi
		echo "tool.perf: $(perf --version 2>&1 | head -1)"
		echo "tool.hackbench: $(hackbench --help 2>&1 | head -1)"
		echo "tool.sockperf: $(sockperf --version 2>&1 | head -1)"
		echo "tool.tbench: $(tbench --help 2>&1 | head -1)"
		echo "tool.iperf3: $(iperf3 --version 2>&1 | head -1)"
		echo "rounds: $ROUNDS"
		echo "arms: $ARMS"
		echo "workloads: $WORKLOADS"
		echo "quick: $QUICK"
		echo "method: one discarded warm-up run per workload (arm ${arm_list[0]}); then per round, per workload, every arm, arm order rotated by one each round; arm set and counters reset before each run"
		for w in "${workload_list[@]}"; do
			echo "cmd.$w: ${cmdline[$w]}"
		done
		for srv in sockperf tbench iperf3; do
			for w in "${workload_list[@]}"; do
				server_of "$w"
				[ "$server" = "$srv" ] || continue
				echo "cmd.$srv-server: $(server_command "$srv") (background, whole session)"
				break
			done
		done
	} >"$RESULTS/meta.txt"
}

main() {
	local w a r i k start t0 dt metric value unit better shown el_s eta_s
	if [ -z "${RESULTS:-}" ] || [ ! -d "$RESULTS" ] || [ ! -w "$RESULTS" ]; then
		die "RESULTS='${RESULTS:-}' is not a writable directory: run through bench/run.sh (make bench) or set RESULTS=dir"
	fi
	if ! feature_present && [ "$ARMS" != off ]; then
		die "this kernel ($(uname -r)) lacks the feature ($POLICY is missing): boot the patched bench kernel, or use ARMS=off"
	fi
	save_state
	trap restore EXIT
	trap 'exit 130' INT TERM
	: >"$RESULTS/runs.log"
	: >"$RESULTS/progress"
	server_logs=$(mktemp -d)
	page_in
	schedstats_on
	write_meta
	# shellcheck disable=SC2086,SC2116 # one line of words
	csv "$(echo $CSV_COLUMNS ops $STATS_COUNTERS $SYSTEM_COUNTERS)" >"$RESULTS/raw.csv"

	start=${EPOCHREALTIME/[.,]/}
	progress "start: $ROUNDS rounds x ${#workload_list[@]} workloads x ${#arm_list[@]} arms = $total_runs runs, after ${#workload_list[@]} warm-up runs"
	for w in "${workload_list[@]}"; do
		t0=${EPOCHREALTIME/[.,]/}
		run_one "$w" "${arm_list[0]}"
		est_us[$w]=$((${EPOCHREALTIME/[.,]/} - t0))
		done_n[$w]=0
		progress "warm-up $w (${cmdline[$w]}): $((est_us[$w] / 1000)) ms, discarded"
	done
	eta
	fmt_secs el_s $((${EPOCHREALTIME/[.,]/} - start))
	fmt_secs eta_s "$eta_us"
	progress "warm-up done in $el_s; measuring, ETA $eta_s"

	i=0
	for ((r = 1; r <= ROUNDS; r++)); do
		for w in "${workload_list[@]}"; do
			for ((k = 0; k < ${#arm_list[@]}; k++)); do
				a=${arm_list[$(((k + r - 1) % ${#arm_list[@]}))]}
				t0=${EPOCHREALTIME/[.,]/}
				run_one "$w" "$a"
				dt=$((${EPOCHREALTIME/[.,]/} - t0))
				shown=""
				profile_csv
				while read -r metric value unit better; do
					printf '%s\n' "$r,$w,$a,$metric,$value,$unit,$better,$sync,$kept,$declined,$dropped,$ops,$profile" >>"$RESULTS/raw.csv"
					shown+="$metric=$value $unit  "
				done <<<"$metrics"
				i=$((i + 1))
				# running mean of the run time of this workload, warm-up included
				est_us[$w]=$(((est_us[$w] * (done_n[$w] + 1) + dt) / (done_n[$w] + 2)))
				done_n[$w]=$((done_n[$w] + 1))
				eta
				fmt_secs el_s $((${EPOCHREALTIME/[.,]/} - start))
				fmt_secs eta_s "$eta_us"
				progress "round $r/$ROUNDS  $w  $a  run $i/$total_runs  ${shown}elapsed $el_s  ETA $eta_s"
			done
		done
	done
	fmt_secs el_s $((${EPOCHREALTIME/[.,]/} - start))
	progress "done: $i runs in $el_s"
}

settings
if [ "${1:-}" = --check ]; then
	echo "arms: $ARMS"
	echo "workloads: $WORKLOADS"
	echo "rounds: $ROUNDS"
	echo "runs: $total_runs measured, ${#workload_list[@]} warm-up"
	for w in "${workload_list[@]}"; do
		echo "  $w: ${cmdline[$w]}"
	done
	exit 0
fi
[ $# = 0 ] || die "unknown argument $1: use --check or nothing"
main
