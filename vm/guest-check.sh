#!/bin/sh
# Runs inside the test guest (see harness/check.sh): TAP lines for what the
# harness checks itself, then every selftest this project installs.
# Usage: guest-check.sh TOPO KSELFTEST_DIR [TEST...]
set -u
here=$(dirname "$0")
topo=$1
kselftest=$2
shift 2
# shellcheck source=harness/tap.sh
. "$here/../harness/tap.sh"
# shellcheck source=harness/definitions.sh
. "$here/../harness/definitions.sh"

feature_listed() {
	grep -qwE '(NO_)?SYNC_PAIR_AFFINE' /sys/kernel/debug/sched/features
}

# Domain names of cpu0, innermost first: "SMT MC", "MC PKG", ...
# debugfs lists the domains only once sched/verbose is set; it is cleared
# again because verbose also prints every domain rebuild, which floods the
# console during the torture's hotplug until printk drops lines.
domains() {
	echo Y >/sys/kernel/debug/sched/verbose
	cat /sys/kernel/debug/sched/domains/cpu0/domain*/name 2>/dev/null | tr '\n' ' ' | sed 's/ $//'
	echo N >/sys/kernel/debug/sched/verbose
}

packages() {
	sort -u /sys/devices/system/cpu/cpu*/topology/physical_package_id | wc -l
}

check_topology() {
	cpus=$(grep -c ^processor /proc/cpuinfo)
	smt=$(cat /sys/devices/system/cpu/smt/active 2>/dev/null || echo 0)
	got="cpus=$cpus smt=$smt packages=$(packages) domains=$(domains)"
	eval "want=\${SEEN_$topo:-a known topology} cap=\${CAPACITY_$topo:-}"
	if [ -n "$cap" ]; then
		got="$got capacities=$(cat /sys/devices/system/cpu/cpu[0-9]*/cpu_capacity | tr '\n' ' ' | sed 's/ $//')"
		want="$want capacities=$cap"
	fi
	[ "$got" = "$want" ]
	tap $? "topology $topo: want '$want', got '$got'"
}

# The kernel offers the policies the harness knows, in the same order.
check_policies() {
	got=$(cat /proc/sys/kernel/sched_sync_wakeup_available_policies)
	# shellcheck disable=SC2086,SC2116 # the words, on one line
	[ "$(echo $got)" = "$(echo $POLICIES)" ]
	tap $? "available_policies is POLICIES of harness/definitions.sh: got '$got'"
}

# The distro sysctl.d file, loaded as systemd-sysctl would, sets its policy.
check_sysctl_d() {
	conf=$here/../contrib/distro/90-sched-sync-wakeup.conf
	knob=/proc/sys/kernel/sched_sync_wakeup_policy
	want=$(sed -n 's/^kernel\.sched_sync_wakeup_policy *= *//p' "$conf")
	old=$(cat "$knob")
	other=hint-only
	[ "$want" != "$other" ] || other=no-sync
	echo "$other" >"$knob" &&
		sysctl -q -p "$conf" &&
		[ -n "$want" ] && [ "$(cat "$knob")" = "$want" ]
	tap $? "contrib/distro sysctl.d file loads with sysctl -p and sets '$want'"
	echo "$old" >"$knob"
}

# The distro drop-in's ExecStartPre, as systemd would run it (its "$$" a
# "$") in a service's group, sets that group's policy.
check_dropin() {
	conf=$here/../contrib/distro/sync-wakeup-policy.conf
	cg=/sys/fs/cgroup
	want=$(sed -n 's/^ExecStartPre=.*echo \([a-z-]*\) .*/\1/p' "$conf")
	cmd=$(sed -n 's/^ExecStartPre=[-+@:!]*//p' "$conf" | sed 's/\$\$/$/g')
	grep -q cgroup2 /proc/self/mounts || mount -t cgroup2 cgroup2 "$cg"
	echo +cpu >"$cg/cgroup.subtree_control" && mkdir "$cg/dropin.service" &&
		sh -c "echo \$\$ >$cg/dropin.service/cgroup.procs && $cmd" &&
		[ -n "$want" ] && [ "$(cat "$cg/dropin.service/cpu.sync_wakeup")" = "$want" ]
	tap $? "contrib/distro drop-in's ExecStartPre sets its service's group to '$want'"
	rmdir "$cg/dropin.service" 2>/dev/null
	echo -cpu >"$cg/cgroup.subtree_control"
}

echo "TAP version 13"
feature_listed
tap $? "kernel $(uname -r) is patched: debugfs sched/features lists SYNC_PAIR_AFFINE"
check_topology
check_policies
check_sysctl_d
check_dropin

cd "$kselftest" || { tap 1 "kselftests installed in $kselftest"; exit 1; }
if [ $# -gt 0 ]; then
	for t in "$@"; do set -- "$@" -t "$t"; shift; done
fi

# A program's output goes to a file in tmpfs while it runs (-p, with no
# directory: 6.12's runner takes none, 7.3's defaults to /tmp, both name
# the file after the program) and is printed when its result line
# passes, before it, where the TAP summary expects it (the runner goes on
# to the next program meanwhile). Streamed, the runner's prefix.pl (a byte
# at a time) woke guest-init.sh's line writer (sed, writing over 9p)
# during the programs' trace windows on arm64 and 6.12: other tasks'
# decisions where a test judges its own (docs/findings.md). The cost: a
# program still running when the guest is killed leaves no output but the
# console's.
run_selftests() {
	rc_file=$(mktemp) || { tap 1 "a file for the runner's exit status"; return 1; }
	{
		./run_kselftest.sh -p "$@"
		echo "$?" >"$rc_file"
	} | while IFS= read -r line; do
		case $line in
		"ok "* | "not ok "*)
			name=${line#*selftests: *: }
			name=/tmp/${name%% *}
			if [ -f "$name" ]; then
				cat "$name"
			else
				echo "# guest-check: no log $name"
			fi
			;;
		esac
		printf '%s\n' "$line"
	done
	rc=$(cat "$rc_file") || rc=1
	return "$rc"
}
run_selftests "$@"
