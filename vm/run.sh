#!/usr/bin/env bash
# Boot a built kernel in QEMU with the host's root read-only over virtio-9p and
# run one shell command in it; the command's output and exit code come back
# through a writable 9p share, the console log is scanned for kernel badness.
#
# Environment:
#   CMD       shell command to run in the guest (required)
#   FLAVOUR   bench | test | rt (default bench)
#   ARCH      x86_64 | arm64: the guest's (default ARCH_DEFAULT; harness/definitions.sh)
#   TOPO      one of the ARCH's TOPOLOGIES (default its TOPO_DEFAULT)
#   ACCEL     auto | kvm | tcg (default auto: kvm only with vmx/svm and /dev/kvm)
#   TCG_THREAD  single | multi: TCG with one host thread for all vCPUs, or a
#             thread per vCPU (default single: harness/definitions.sh)
#   APPEND    extra kernel command line
#   SCHED_FEATURES  sched/features the guest's init writes before CMD
#             (NEXT_BUDDY, say; default none: the kernel's own)
#   TIMEOUT   seconds before the boot is killed (default 900)
#   OUT       result directory (default build/vm/<time>-<flavour>[-<base>]-<topo>[.N])
#   KERNEL    image to boot (default the FLAVOUR's, kernel_image in harness/lib.sh)
#   GUEST_ROOT  the guest's root (default guest_root in harness/lib.sh)
#   PIN_VCPUS 1: pin vCPU thread n to host CPU n, when there are enough host
#             CPUs and a thread per vCPU (make bench); what was done in OUT/pinning
#   ICOUNT    N: QEMU's -icount shift=N,sleep=off (single-threaded TCG only):
#             guest time counts instructions; the clock used is in OUT/clock
#   CLOCK     auto | icount | host, as for make check; unset: the host's
#             clock, unless ICOUNT is set (make check and make bench set it)
# Exit status: the command's, or 1 on timeout, missing result or console badness.
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"

FLAVOUR=${FLAVOUR:-bench}
TOPO=${TOPO:-$TOPO_DEFAULT}
ACCEL=${ACCEL:-auto}
TIMEOUT=${TIMEOUT:-900}
[ -n "${CMD:-}" ] || die "CMD is empty: say what to run in the guest, e.g. CMD='uname -a'"
check_flavour "$FLAVOUR"

# The -smp of a topology (harness/definitions.sh).
topology_args() {
	local smp="SMP_$1"
	case " $ARCH_TOPOLOGIES " in
	*" $1 "*) ;;
	*) die "unknown TOPO=$1 for ARCH=$ARCH: use one of: $ARCH_TOPOLOGIES" ;;
	esac
	echo "-smp ${!smp}"
}

kernel=${KERNEL:-$(kernel_image "$FLAVOUR")}
root=${GUEST_ROOT:-$(guest_root)}
[ -d "$root/sbin" ] || die "no $ARCH guest root in $root: make it with vm/guest-root.sh (make check and make bench do)"
[ -f "$kernel" ] || die "no kernel at $kernel: run 'make kernel FLAVOUR=$FLAVOUR' first"

# new_out: a directory of its own for a guest started without OUT, even
# beside another started in the same second (mkdir is atomic).
new_out() {
	local name n=1
	name=$BUILD/vm/$(date +%Y%m%d-%H%M%S)-$FLAVOUR$BASE_SUFFIX-$TOPO
	mkdir -p "$BUILD/vm"
	out=$name
	until mkdir "$out" 2>/dev/null; do
		[ -e "$out" ] || die "cannot make $out"
		n=$((n + 1))
		out=$name.$n
	done
}

if [ -n "${OUT:-}" ]; then
	out=$OUT
	mkdir -p "$out"
else
	new_out
fi
out=$(cd "$out" && pwd)
rm -f "$out/exit-code" "$out/output.log" "$out/console.log" "$out/hang.txt"
printf '%s\n' "$CMD" >"$out/cmd.sh"

smp=$(topology_args "$TOPO") || exit 1
echo "$TOPO" >"$out/topology"

append="console=$ARCH_CONSOLE loglevel=7 panic=-1 root=rootfs rootfstype=9p ro"
append+=" rootflags=trans=virtio,version=9p2000.L,cache=loose,msize=262144"
# Quoted: the kernel takes a value in double quotes whole (a path may hold
# a space). A root of its own has an init that mounts the checkout at
# sw_repo (init's environment) first.
if [ "$root" = / ]; then
	append+=" init=\"$REPO/vm/guest-init.sh\""
else
	append+=" init=/sbin/sw-init sw_repo=\"$REPO\""
fi
machine=()
case "$ARCH" in
x86_64)
	# PCI interrupts from the MP table (CONFIG_X86_MPPARSE), not from
	# ACPI: under TCG with KASAN, ACPI's routing of the two virtio-pci
	# interrupts kept virtio_pci_driver_init 18.4 s of a 20 s boot to
	# init; 5 s to init without it (flat, alone, 2026-12-02).
	append+=" acpi=noirq"
	;;
arm64) machine=(-M virt) ;;
esac
append+=" ${APPEND:-}"
repo_share=()
[ "$root" = / ] || repo_share=(
	-fsdev "local,id=repo,path=$REPO,security_model=none,readonly=on,multidevs=remap"
	-device "virtio-9p-pci,fsdev=repo,mount_tag=repo")

# pin_vcpus: once QEMU has named its vCPU threads ("CPU <n>/TCG" or
# "CPU <n>/KVM"), pin thread n to the n-th host CPU this process may use;
# notes the outcome in $out/pinning. Run in the background beside qemu().
pin_vcpus() {
	local vcpus pid i t comm n pinned=0 found=0 r
	local -a cpus=()
	vcpus=$(echo "$smp" | sed -n 's/^-smp \([0-9]*\),.*/\1/p')
	# The CPUs we may run on (a cpuset or container may allow fewer).
	for r in $(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status | tr ',' ' '); do
		for n in $(seq "${r%-*}" "${r#*-}"); do cpus+=("$n"); done
	done
	if [ "$vcpus" -gt "${#cpus[@]}" ]; then
		echo "not pinned: $vcpus vCPUs on ${#cpus[@]} host CPUs" >"$out/pinning"
		return 0
	fi
	for i in $(seq 100); do
		pid=$(pgrep -f -- "^$ARCH_QEMU .*file:$out/console.log" | head -1) || true
		if [ -n "$pid" ]; then
			pinned=0 found=0
			for t in /proc/"$pid"/task/*; do
				comm=$(cat "$t/comm" 2>/dev/null) || continue
				case "$comm" in "CPU "*/*) ;; *) continue ;; esac
				n=${comm#CPU }
				n=${n%%/*}
				found=$((found + 1))
				taskset -p -c "${cpus[$n]}" "${t##*/}" >/dev/null 2>&1 && pinned=$((pinned + 1))
			done
			if [ "$found" = "$vcpus" ]; then
				if [ "$pinned" = "$vcpus" ]; then
					echo "pinned: vCPU thread n on host CPU ${cpus[*]:0:$vcpus} (in order), for $vcpus vCPUs" >"$out/pinning"
				else
					echo "not pinned: taskset failed for $((vcpus - pinned)) of $vcpus vCPU threads" >"$out/pinning"
				fi
				return 0
			fi
		fi
		sleep 0.1
		: "$i"
	done
	echo "not pinned: found $found of $vcpus vCPU threads in 10 s" >"$out/pinning"
}

mem="-m 2G"
# QMP's socket: not in $out, whose path may be longer than a socket's.
qmp_dir=$(mktemp -d)
trap 'rm -rf "$qmp_dir"' EXIT

# capacity_dtb ACCEL_ARGS...: for a topology with CAPACITY_<TOPO>, QEMU's
# own device tree of this machine with each CPU's capacity-dmips-mhz set,
# booted with -dtb: the kernel then sees asymmetric CPU capacities.
capacity_dtb() {
	local cap="CAPACITY_$TOPO" dtb="$out/$TOPO.dtb" n=0 c
	[ -n "${!cap-}" ] || return 0
	# shellcheck disable=SC2086 # word lists
	"$ARCH_QEMU" -M "virt,dumpdtb=$dtb" "$@" $smp $mem -nodefaults -display none \
		>"$out/dumpdtb.log" 2>&1 || die "$ARCH_QEMU could not dump its device tree: see $out/dumpdtb.log"
	for c in ${!cap}; do
		fdtput -t u "$dtb" "/cpus/cpu@$n" capacity-dmips-mhz "$c" ||
			die "fdtput could not set cpu@$n's capacity in $dtb"
		n=$((n + 1))
	done
	machine+=(-dtb "$dtb")
}

# watch_hang PID: if QEMU (PID) still runs SNAPSHOT_LEAD seconds before
# its TIMEOUT, write where each vCPU is to $out/hang.txt: a silent hang
# leaves nothing else to read. Polls, so it ends with QEMU; the deadline
# is bash's clock, which the polls' own delays cannot push back.
SNAPSHOT_LEAD=30
watch_hang() {
	local pid=$1 deadline=$((SECONDS + TIMEOUT - SNAPSHOT_LEAD)) taken=0 map
	map="$(dirname "$kernel")/System.map"
	[ -f "$map" ] || map="$(kernel_dir "$FLAVOUR")/System.map"
	while kill -0 "$pid" 2>/dev/null; do
		if [ "$taken" = 0 ] && [ "$SECONDS" -ge "$deadline" ]; then
			"$REPO/vm/hang-snapshot.py" "$qmp_dir/qmp.sock" "$map" >"$out/hang.txt" 2>&1 || true
			taken=1
		fi
		sleep 1
	done
}

# qemu ACCEL_ARGS...: boot once; the exit status is qemu's (124: timeout).
qemu() {
	local pid rc=0 features
	local -a words
	read -ra words <<<"${SCHED_FEATURES:-}"
	features=${words[*]}
	# Empty where none: make check then expects no line of vm/guest-init.sh.
	printf '%s' "${features:+$features
}" >"$out/sched-features"
	# Read by vm/guest-init.sh from its environment, as sw_repo is.
	features=${features:+ sw_sched_features=$(printf %s "$features" | tr -s ' ' ,)}
	# shellcheck disable=SC2086 # word lists
	timeout -k 10 "$TIMEOUT" "$ARCH_QEMU" "${machine[@]}" "$@" $smp $mem \
		-name sync-wakeup,debug-threads=on \
		-nodefaults -display none -no-reboot -monitor none \
		-qmp "unix:$qmp_dir/qmp.sock,server=on,wait=off" \
		-serial "file:$out/console.log" \
		-kernel "$kernel" -append "$append$features" \
		-fsdev local,id=root,path="$root",security_model=none,readonly=on,multidevs=remap \
		-device virtio-9p-pci,fsdev=root,mount_tag=rootfs \
		"${repo_share[@]}" \
		-fsdev local,id=results,path="$out",security_model=none \
		-device virtio-9p-pci,fsdev=results,mount_tag=results \
		</dev/null &
	pid=$!
	watch_hang "$pid" &
	wait "$pid" || rc=$?
	wait
	# A snapshot is of a guest killed for its time only.
	[ "$rc" = 124 ] || [ "$rc" = 137 ] || rm -f "$out/hang.txt"
	return "$rc"
}

# Not read <<<"$(...)": a die() in the substitution would end only the subshell.
accel_line=$(accel_args "$ACCEL")
read -r accel qemu_accel <<<"$accel_line"
echo "$accel" >"$out/accel"
clock=host
if [ -z "${ICOUNT:-}" ] && [ -n "${CLOCK:-}" ]; then
	want_clock=$(guest_clock) || exit 1
	[ "$want_clock" != icount ] || ICOUNT=$ICOUNT_SHIFT
fi
if [ -n "${ICOUNT:-}" ]; then
	icount=$(icount_args "$accel_line" "$ICOUNT") || exit 1
	qemu_accel+=" $icount"
	clock="icount ${icount#-icount }"
fi
echo "$clock" >"$out/clock"
# shellcheck disable=SC2086
capacity_dtb $qemu_accel
log "booting $ARCH $FLAVOUR kernel, topology $TOPO, $accel, clock $clock; console: $out/console.log"
rc=0
rm -f "$out/pinning"
if [ "${PIN_VCPUS:-0}" = 1 ]; then
	case "$qemu_accel" in
	*thread=single*) echo "not pinned: single-threaded TCG runs every vCPU in one thread" >"$out/pinning" ;;
	*) pin_vcpus & ;;
	esac
fi
# shellcheck disable=SC2086
qemu $qemu_accel || rc=$?
wait
# A guest that printed nothing never started: KVM refused this machine's
# setup, not a kernel bug. With ACCEL=auto that is worth one try under TCG.
if [ "$rc" != 0 ] && [ "$rc" != 124 ] && [ "$ACCEL" = auto ] && [ "$accel" = kvm ] &&
	[ ! -s "$out/console.log" ]; then
	echo "vm: qemu exited $rc under KVM before the guest printed anything; retrying under TCG, clock $clock" >&2
	accel_line=$(accel_args tcg)
	read -r accel qemu_accel <<<"$accel_line"
	echo "$accel (kvm failed to start)" >"$out/accel"
	rc=0
	# shellcheck disable=SC2086
	qemu $qemu_accel || rc=$?
fi

if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	# A selftest still running has its output in the guest's tmpfs
	# (vm/guest-check.sh): the console is what is left of it.
	echo "vm: the guest did not finish within ${TIMEOUT} s (TIMEOUT=); console: $out/console.log" >&2
	tail -20 "$out/console.log" >&2 || true
	exit 1
elif [ "$rc" != 0 ]; then
	die "$ARCH_QEMU exited with $rc; console: $out/console.log"
fi

status=0
if ! "$REPO/vm/scan-console.sh" "$out/console.log"; then
	status=1
fi
if [ ! -f "$out/exit-code" ]; then
	echo "vm: the guest wrote no exit code: it crashed or init failed; console: $out/console.log" >&2
	tail -20 "$out/console.log" >&2
	exit 1
fi
cmd_rc=$(cat "$out/exit-code")
cat "$out/output.log"
log "guest command exited $cmd_rc; logs in $out"
[ "$status" = 0 ] || exit 1
exit "$cmd_rc"
