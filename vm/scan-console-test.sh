#!/usr/bin/env bash
# Does vm/scan-console.sh fail on each kind of kernel complaint and pass a
# clean boot? One sample console line per case; TAP on stdout.
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# expect WANT LINE: the scanner exits WANT (0: clean, 1: badness) on a log of
# a clean boot plus LINE.
expect() {
	local want=$1 line=$2 got=0
	printf '%s\n' "[    0.000000] Linux version 6.12.117" "$line" \
		"[    9.000000] reboot: Power down" >"$scratch/console.log"
	"$REPO/vm/scan-console.sh" "$scratch/console.log" >/dev/null 2>&1 || got=$?
	[ "$got" = "$want" ] && rc=0 || rc=1
	tap "$rc" "scan-console $([ "$want" = 0 ] && echo passes || echo fails): $line" \
		"exit status $got, wanted $want"
}

expect 0 "[    1.000000] smpboot: Total of 4 processors activated"
expect 0 "[   42.000000] traps: stress-ng[1234] general protection fault ip:55d0c0a5 sp:7ffd1c90 error:0 in stress-ng[55d0c0a00000+1a000]"
expect 1 "[   42.000000] general protection fault, probably for non-canonical address 0xdead000000000100: 0000 [#1] PREEMPT SMP KASAN"
expect 1 "[    3.000000] WARNING: CPU: 1 PID: 1 at kernel/sched/fair.c:8700 select_task_rq_fair+0x1/0x2"
expect 1 "[    3.000000] BUG: KASAN: slab-use-after-free in select_task_rq_fair+0x1/0x2"
expect 1 "[   60.000000] rcu: INFO: rcu_preempt detected expedited stalls on CPUs/tasks: { 1-... } 21004 jiffies s: 113 root: 0x2/."
expect 1 "[   60.000000] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:"
expect 1 "[   20.000000] CPU1: failed to report dead state"
expect 1 "[   20.000000] smpboot: do_boot_cpu failed(-1) to wakeup CPU#1"
expect 1 "[   20.000000] ** 12 printk messages dropped **"
expect 1 "[   30.000000] INFO: task kworker/0:1:12 blocked for more than 120 seconds."
expect 1 "[   30.000000] watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [stress-ng:123]"
expect 1 "[   30.000000] WARNING: possible circular locking dependency detected"
expect 1 "[    5.000000] Call trace:"
expect 1 "[    5.000000] Unable to handle kernel paging request at virtual address dead000000000108"

tap_end scan-console
