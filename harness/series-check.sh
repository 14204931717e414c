#!/usr/bin/env bash
# make series-check: is build/series/out/ (make series) ready to post?
#   - git am applies it to a fresh copy of the base, and the result is the
#     tree make check builds (build/linux: base + patches/ + overlay);
#   - checkpatch.pl --strict reports nothing on any patch, and every file
#     the series adds has a maintainer;
#   - the test kernel builds and boots after each patch in turn
#     (bisectability), the feature on under every policy it has then;
#   - after the last posted patch, the posted selftests pass on the bench
#     config with their own config (fprobe events, BTF): through the "t:"
#     events they make, as without the not-posted trace events;
#   - kernel/sched/ builds with W=1 and sparse (C=1) in the bench config
#     and with SMP (and so SCHED_SMT, which x86 ties to it), SCHED_DEBUG,
#     SYSCTL, SCHEDSTATS and DEBUG_FS each turned off, with no warning the
#     base does not also give.
# SERIES_BUILDS=no keeps to the first two (what CI runs); TAP, then the
# count line.
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"
only_default_arch series-check
not_own_tree "make series-check applies patches/ to the base it needs"

SERIES_BUILDS=${SERIES_BUILDS:-yes}
case "$SERIES_BUILDS" in
yes | no) ;;
*) die "SERIES_BUILDS=$SERIES_BUILDS: use yes or no" ;;
esac
work="$BUILD/series$BASE_SUFFIX"
out="$work/out"
# Named like build/linux and build/kernel-*, so that ccache, which sees
# paths relative to the repo, finds the objects make check compiled.
am="$work/check/linux"
results="$work/check/results"
finish() {
	echo "$((tap_n - tap_failed)) passed, $tap_failed failed"
	[ "$tap_failed" = 0 ]
	exit
}

timed() { # timed LABEL COMMAND...: run, then log how long it took
	local label=$1 t0 rc=0
	shift
	t0=$(date +%s)
	"$@" || rc=$?
	log "$label: $(($(date +%s) - t0)) s"
	return "$rc"
}

apply_series() {
	local p
	base_repo "$am"
	for p in "$out"/0*.patch; do
		case "$p" in */0000-cover-letter.patch) ;; *) git -C "$am" am -q "$p" || return 1 ;; esac
	done
}

# warnings LOG: the compiler's and sparse's complaints, without line numbers.
warnings() {
	grep -E ': (warning|error): ' "$1" | sed -E 's/:[0-9]+:[0-9]+:/:/; s|^[^:]*/kernel/sched/|kernel/sched/|' |
		LC_ALL=C sort || true
}

# w1_build DIR LOG: kernel/sched/ of the checked-out commit, W=1 and, with
# sparse installed, C=1; every object is compiled, so every warning shows.
# shellcheck disable=SC2317 # called through timed
w1_build() {
	local dir=$1 logf=$2
	touch "$am"/kernel/sched/*.c
	# shellcheck disable=SC2086 # $sparse is empty or C=1
	kmake -C "$am" O="$dir" W=1 $sparse kernel/sched/ >"$logf" 2>&1
}

# w1_config NAME DIR: the bench config with one option off (NAME "bench": none).
w1_config() {
	local name=$1 dir=$2 opt=${1#no-}
	mkdir -p "$dir"
	cp "$(kernel_dir bench)/.config" "$dir/.config"
	case "$name" in
	bench) ;;
	# 6.12's PROC_SYSCTL selects SYSCTL; 7.3 names the option SYSCTL.
	no-SYSCTL) "$am/scripts/config" --file "$dir/.config" -e EXPERT -d PROC_SYSCTL -d SYSCTL ;;
	# BLK_DEV_IO_TRACE selects DEBUG_FS; SCHED_AUTOGROUP, the group ones.
	no-DEBUG_FS) "$am/scripts/config" --file "$dir/.config" -d BLK_DEV_IO_TRACE -d DEBUG_FS ;;
	no-CGROUP_SCHED | no-FAIR_GROUP_SCHED)
		"$am/scripts/config" --file "$dir/.config" -d SCHED_AUTOGROUP -d "$opt" ;;
	*) "$am/scripts/config" --file "$dir/.config" -d "$opt" ;;
	esac
	# W=1 warnings are for reading, not for stopping the build: upstream's
	# own kernel/sched/ has some (max_rt_runtime unused without SYSCTL).
	"$am/scripts/config" --file "$dir/.config" -d WERROR
	make -s -C "$am" O="$dir" olddefconfig >/dev/null
	[ "$name" = bench ] || ! grep -q "^CONFIG_$opt=y" "$dir/.config"
}

git_identity
mkdir -p "$work/check"
"$REPO/harness/series.sh" >"$work/check/series.log" 2>&1 && rc=0 || rc=1
tap "$rc" "make series writes $out" "$(tail -5 "$work/check/series.log")"
[ "$tap_failed" = 0 ] || finish
"$REPO/harness/prepare-tree.sh" >/dev/null 2>&1 || die "cannot prepare build/linux: run make tree"

apply_series >"$work/check/am.log" 2>&1 && rc=0 || rc=1
am_rc=$rc
tap "$rc" "git am of $(find "$out" -name '0*.patch' ! -name '0000-*' | wc -l) patches onto the base" \
	"$(tail -5 "$work/check/am.log")"
# Both repositories commit the same source the same way (base_repo), so
# equal content is an equal tree id: build/linux at its last posted patch
# (series/not-posted holds back the rest).
posted_n=$(posted_names | wc -l)
mine=$(git -C "$TREE" rev-list --reverse base..HEAD | sed -n "${posted_n}p")
[ -n "$mine" ] && [ "$(git -C "$am" rev-parse 'HEAD^{tree}')" = "$(git -C "$TREE" rev-parse "$mine^{tree}")" ] &&
	rc=0 || rc=1
tap "$rc" "the applied series is build/linux at its last posted patch, the tree make check builds but for the held-back ones" \
	"build/linux $(git -C "$TREE" log -1 --format='%h %s' "$mine" 2>&1): compare with diff -r against $am"

[ "$am_rc" = 0 ] || finish
check_mails "$am" "$out"

[ "$SERIES_BUILDS" = yes ] || finish

mkdir -p "$results"
# The configs every build below starts from, the ones make kernel makes;
# where a clean checkout has none yet, configured here (no build).
for flavour in test bench; do
	[ -f "$(kernel_dir "$flavour")/.config" ] ||
		KTARGETS=olddefconfig "$REPO/harness/build-kernel.sh" "$flavour"
done
# Bisectability: the test kernel (KASAN, lockdep: the strictest config)
# after each patch; ccache makes all but kernel/sched/ cheap. Each one
# boots on flat, turns the feature on where it exists, and sends pipe
# traffic (sync wakeups) under each policy it has; vm/run.sh fails on a
# console report (BUG, WARNING, KASAN, lockdep, ...).
# shellcheck disable=SC2016 # expanded in the guest
smoke='f=/sys/kernel/debug/sched/features p=/proc/sys/kernel/sched_sync_wakeup_policy
s=/sys/kernel/debug/sched/sync_wakeup_stats
if grep -q SYNC_PAIR_AFFINE "$f"; then
	echo SYNC_PAIR_AFFINE >"$f"
	for x in $(cat /proc/sys/kernel/sched_sync_wakeup_available_policies); do
		echo "$x" >"$p" && head -c 4000000 /dev/zero | cat >/dev/null || exit 1
	done
	# Where the counters exist, the policies decided something.
	[ ! -e "$s" ] || { head -2 "$s" && grep -q "^sync_wakeups [1-9]" "$s"; }
fi'
bisect="$work/check/kernel-bisect"
mkdir -p "$bisect"
cp "$(kernel_dir test)/.config" "$bisect/.config"
for c in $(git -C "$am" rev-list --reverse base..HEAD); do
	subj=$(git -C "$am" log -1 --format=%s "$c")
	git -C "$am" checkout -q "$c"
	timed "build after '$subj'" kmake -C "$am" O="$bisect" olddefconfig bzImage \
		>"$results/bisect-${c:0:12}.log" 2>&1 && rc=0 || rc=1
	tap "$rc" "the test kernel builds after '$subj'" "$(grep -E 'error' "$results/bisect-${c:0:12}.log" | head)"
	[ "$rc" = 0 ] || continue
	boot="$results/boot-${c:0:12}"
	timed "boot after '$subj'" as_typed KERNEL="$bisect/arch/x86/boot/bzImage" FLAVOUR=test TOPO=flat \
		OUT="$boot" TIMEOUT=900 CMD="$smoke" "$REPO/vm/run.sh" >"$boot.log" 2>&1 && rc=0 || rc=1
	tap "$rc" "the test kernel boots after '$subj', runs every policy it has, and its console is clean" \
		"$(tail -3 "$boot.log")"
done
head=$(git -C "$am" rev-parse HEAD)

# The posted selftests where the posting leaves them: no trace events of
# the kernel's own, so they make theirs over the tracepoints with the
# document's "t:" lines, which needs their config (BTF: pahole, debug
# info). The bench config keeps the build and the run short.
tprobe="$work/check/kernel-tprobe"
ks="$work/check/kselftest"
mkdir -p "$tprobe"
cp "$(kernel_dir bench)/.config" "$tprobe/.config"
# shellcheck disable=SC2317 # called through timed
tprobe_build() {
	"$am/scripts/kconfig/merge_config.sh" -m -O "$tprobe" "$tprobe/.config" \
		"$am/tools/testing/selftests/sched/sync_wakeup/config" &&
		make -C "$am" O="$tprobe" olddefconfig &&
		kmake -C "$am" O="$tprobe" bzImage &&
		rm -rf "$ks" &&
		make -C "$am/tools/testing/selftests" O="$work/check/selftests" \
			TARGETS=sched/sync_wakeup INSTALL_PATH="$ks" install
}
timed "build the bench kernel with the posted selftests' config" tprobe_build \
	>"$results/tprobe-build.log" 2>&1 && rc=0 || rc=1
grep -q '^CONFIG_PROBE_EVENTS_BTF_ARGS=y' "$tprobe/.config" || rc=1
tap "$rc" "the bench kernel builds with the posted selftests' config (fprobe events, BTF) after the last posted patch" \
	"$(grep -E 'error|BTF' "$results/tprobe-build.log" | tail -5)"
if [ "$rc" = 0 ]; then
	boot="$results/boot-tprobe"
	timed "posted selftests" as_typed KERNEL="$tprobe/arch/x86/boot/bzImage" FLAVOUR=bench TOPO=flat \
		OUT="$boot" TIMEOUT=1800 CMD="mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
		[ -d /sys/kernel/tracing/events/sched ] &&
		! ls /sys/kernel/tracing/events/sched | grep sched_sync_ && cd '$ks/sched/sync_wakeup' &&
		for t in sync_wakeup_iface sync_wakeup_placement sync_wakeup_promise; do
			./\$t || exit 1
		done" "$REPO/vm/run.sh" >"$boot.log" 2>&1 && rc=0 || rc=1
	# A skipped test exits 0: here none may skip, or the path went untested.
	! grep -q '^ok .* # SKIP' "$boot.log" || rc=1
	tap "$rc" "the posted selftests pass on it, none skipped, through their own \"t:\" events" \
		"$(grep -E '^(not ok|ok .* # SKIP|# Totals)' "$boot.log" | tail -6)"
fi

# sparse: Debian's package, if the archive has it.
sparse=C=1
command -v sparse >/dev/null || apt-get install -y -q sparse >/dev/null 2>&1 || sparse=""
[ -n "$sparse" ] || log "sparse is not installable: W=1 only"
# On x86 SCHED_SMT is "def_bool y if SMP": no-SMP is the build without it.
# SCHED_DEBUG only where the base has it (6.12; 7.3 has none).
# The group stubs of the per-cgroup policy: without cpu cgroups, and with
# them but without fair group scheduling.
for cfg in bench no-SMP no-SCHED_DEBUG no-SYSCTL no-SCHEDSTATS no-DEBUG_FS no-CGROUP_SCHED \
	no-FAIR_GROUP_SCHED; do
	if [ "$cfg" = no-SCHED_DEBUG ] && ! grep -q '^config SCHED_DEBUG$' "$am/lib/Kconfig.debug"; then
		continue
	fi
	dir="$work/check/kernel-$cfg"
	if ! w1_config "$cfg" "$dir"; then
		tap 1 "config $cfg: the option would not turn off"
		continue
	fi
	git -C "$am" checkout -q base
	timed "W=1 $sparse kernel/sched/ $cfg base" w1_build "$dir" "$results/w1-$cfg-base.log" &&
		base_rc=0 || base_rc=1
	git -C "$am" checkout -q "$head"
	timed "W=1 $sparse kernel/sched/ $cfg series" w1_build "$dir" "$results/w1-$cfg-series.log" &&
		series_rc=0 || series_rc=1
	warnings "$results/w1-$cfg-base.log" >"$results/w1-$cfg-base.warnings"
	warnings "$results/w1-$cfg-series.log" >"$results/w1-$cfg-series.warnings"
	new=$(LC_ALL=C comm -13 "$results/w1-$cfg-base.warnings" "$results/w1-$cfg-series.warnings")
	[ "$base_rc" = 0 ] && [ "$series_rc" = 0 ] && [ -z "$new" ] && rc=0 || rc=1
	tap "$rc" "W=1${sparse:+ $sparse} kernel/sched/ $cfg: $(wc -l <"$results/w1-$cfg-base.warnings") warnings on the base, $(wc -l <"$results/w1-$cfg-series.warnings") with the series, none new" \
		"${new:-build failed: see $results/w1-$cfg-*.log}"
done
finish
