#!/usr/bin/env bash
# Fail when a guest console log shows the kernel complaining: oopses, warnings,
# sanitizer and lockdep reports, lockups, hung tasks, RCU stalls (expedited
# ones too), CPU hotplug failures, lost printk messages. A user-space fault
# the kernel only reports (stress-ng's "traps: ... general protection fault")
# is not the kernel's. vm/scan-console-test.sh feeds it sample lines.
# Usage: scan-console.sh console.log
set -eu

log=${1:?usage: scan-console.sh console.log}
[ -s "$log" ] || { echo "console log $log is missing or empty: the guest did not boot" >&2; exit 1; }

badness='BUG:|WARNING:|Oops|Kernel panic|KASAN|UBSAN|kernel BUG|general protection fault'
badness+='|possible circular locking|inconsistent lock state|possible recursive locking'
badness+='|suspicious RCU usage|lock held when returning|bad unlock balance|DEBUG_LOCKS_WARN_ON'
badness+='|blocked for more than|soft lockup|hard LOCKUP|rcu_sched self-detected stall'
# arm64 spells it "Call trace:", and a bad access "Unable to handle kernel ...".
badness+='|rcu: INFO: .* detected stalls|detected stall|detected expedited stalls|Call Trace:|Call trace:'
badness+='|Unable to handle kernel'
badness+='|list_add corruption|list_del corruption'
badness+='|failed to report dead state|do_boot_cpu failed|failed to come online|CPU[0-9]+: failed'
badness+='|printk messages dropped'
# "traps: stress-ng[123] general protection fault ip:... in stress-ng[...]"
user_fault='traps: [^ ]+\[[0-9]+\] general protection fault ip:'

found=$(grep -nE "$badness" "$log" | grep -vE "$user_fault" || true)
if [ -n "$found" ]; then
	echo "console $log shows kernel badness:" >&2
	printf '%s\n' "$found" | head -40 >&2
	exit 1
fi
