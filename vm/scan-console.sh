#!/usr/bin/env bash
# Fail when a guest console log shows the kernel complaining: oopses, warnings,
# sanitizer and lockdep reports, lockups, hung tasks, RCU stalls.
# Usage: scan-console.sh console.log
set -eu

log=${1:?usage: scan-console.sh console.log}
[ -s "$log" ] || { echo "console log $log is missing or empty: the guest did not boot" >&2; exit 1; }

badness='BUG:|WARNING:|Oops|Kernel panic|KASAN|UBSAN|kernel BUG|general protection fault'
badness+='|possible circular locking|inconsistent lock state|possible recursive locking'
badness+='|suspicious RCU usage|lock held when returning|bad unlock balance|DEBUG_LOCKS_WARN_ON'
badness+='|blocked for more than|soft lockup|hard LOCKUP|rcu_sched self-detected stall'
badness+='|rcu: INFO: .* detected stalls|detected stall|Call Trace:|list_add corruption|list_del corruption'

if grep -nE "$badness" "$log" >/dev/null; then
	echo "console $log shows kernel badness:" >&2
	grep -nE "$badness" "$log" | head -40 >&2
	exit 1
fi
