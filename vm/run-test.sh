#!/usr/bin/env bash
# Does vm/run.sh hand QEMU the icount clock when asked (ICOUNT=, or CLOCK=
# as make vm takes it), note the
# clock in OUT/clock, and refuse ICOUNT where QEMU has none before it starts
# QEMU? A stand-in qemu-system-x86_64 on PATH records its arguments and
# plays a guest that ran its command. TAP on stdout.
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/bin"
: >"$scratch/bzImage"
cat >"$scratch/bin/qemu-system-x86_64" <<'STUB'
#!/usr/bin/env bash
# The console and the results share from the arguments; a clean boot.
printf '%s\n' "$*" >"${STUB_ARGS:?}"
for a in "$@"; do
	case "$a" in
	file:*) console=${a#file:} ;;
	*id=results,path=*) out=${a#*path=} && out=${out%%,*} ;;
	esac
done
echo "reboot: Power down" >"$console"
echo 0 >"$out/exit-code"
: >"$out/output.log"
STUB
chmod +x "$scratch/bin/qemu-system-x86_64"
cp "$scratch/bin/qemu-system-x86_64" "$scratch/bin/qemu-system-aarch64"
mkdir -p "$scratch/root/sbin"

# boot NAME VAR=VALUE...: vm/run.sh under TCG with the stand-in QEMU; sets
# rc (its exit status), args (what QEMU got, or "not started") and clock.
boot() {
	local name=$1
	shift
	rm -f "$scratch/args"
	rc=0
	env -u ICOUNT -u TCG_THREAD -u CLOCK -u SCHED_FEATURES PATH="$scratch/bin:$PATH" STUB_ARGS="$scratch/args" \
		ACCEL=tcg KERNEL="$scratch/bzImage" OUT="$scratch/$name" CMD=true "$@" \
		"$REPO/vm/run.sh" >"$scratch/$name.log" 2>&1 || rc=$?
	args=$(cat "$scratch/args" 2>/dev/null) || args="not started"
	clock=$(cat "$scratch/$name/clock" 2>/dev/null) || clock=none
}

boot icount ICOUNT=3 TCG_THREAD=single
case "$rc $args" in "0 "*"-icount shift=3,sleep=off "*) r=0 ;; *) r=1 ;; esac
tap "$r" "ICOUNT=3 under single-threaded TCG: QEMU gets -icount shift=3,sleep=off" "exit $rc, QEMU args: $args"
tap "$([ "$clock" = "icount shift=3,sleep=off" ] && echo 0 || echo 1)" \
	"ICOUNT=3: OUT/clock says icount shift=3,sleep=off" "OUT/clock: $clock"

boot host TCG_THREAD=single
case "$rc $args" in "0 "*-icount*) r=1 ;; "0 "*) r=0 ;; *) r=1 ;; esac
tap "$r" "no ICOUNT: QEMU gets no -icount" "exit $rc, QEMU args: $args"
tap "$([ "$clock" = host ] && echo 0 || echo 1)" "no ICOUNT: OUT/clock says host" "OUT/clock: $clock"

# Scheduler features for the guest's init: none unless SCHED_FEATURES
# names them, in its order.
boot features TCG_THREAD=single
case "$rc $args" in "0 "*sw_sched_features*) r=1 ;; "0 "*) r=0 ;; *) r=1 ;; esac
[ -f "$scratch/features/sched-features" ] && [ ! -s "$scratch/features/sched-features" ] || r=1
tap "$r" "no SCHED_FEATURES: the guest is asked for none, OUT/sched-features empty" \
	"exit $rc, QEMU args: $args"
boot features-own TCG_THREAD=single SCHED_FEATURES="NEXT_BUDDY  NO_HRTICK"
case "$rc $args" in "0 "*"sw_sched_features=NEXT_BUDDY,NO_HRTICK "*) r=0 ;; *) r=1 ;; esac
[ "$(cat "$scratch/features-own/sched-features" 2>/dev/null)" = "NEXT_BUDDY NO_HRTICK" ] || r=1
tap "$r" "SCHED_FEATURES='NEXT_BUDDY  NO_HRTICK': the guest is asked for those, noted in OUT/sched-features" \
	"exit $rc, QEMU args: $args"

boot multi ICOUNT=3 TCG_THREAD=multi
r=1
[ "$rc" != 0 ] && [ "$args" = "not started" ] && grep -q "needs single-threaded TCG" "$scratch/multi.log" && r=0
tap "$r" "ICOUNT=3 with multi-threaded TCG: refused, QEMU not started" \
	"exit $rc, QEMU args: $args, log: $(tail -1 "$scratch/multi.log")"

boot clock CLOCK=icount TCG_THREAD=single
case "$rc $args" in "0 "*"-icount shift=$ICOUNT_SHIFT,sleep=off "*) r=0 ;; *) r=1 ;; esac
tap "$r" "CLOCK=icount (make vm): QEMU gets -icount shift=$ICOUNT_SHIFT,sleep=off" "exit $rc, QEMU args: $args"

boot clockmulti CLOCK=icount TCG_THREAD=multi
r=1
[ "$rc" != 0 ] && [ "$args" = "not started" ] && r=0
tap "$r" "CLOCK=icount with multi-threaded TCG: refused, QEMU not started" \
	"exit $rc, QEMU args: $args, log: $(tail -1 "$scratch/clockmulti.log")"

# ARCH=arm64: its machine, console and a root of its own, with the checkout
# shared at its path for that root's init.
boot arm64 ARCH=arm64 TOPO=cls2 GUEST_ROOT="$scratch/root" TCG_THREAD=single
r=1
case "$rc $args" in
"0 -M virt -accel tcg,thread=single -cpu max,pauth-impdef=on "*"console=ttyAMA0 "*"init=/sbin/sw-init sw_repo=\"$REPO\""*"path=$scratch/root,"*"id=repo,path=$REPO,"*) r=0 ;;
esac
case "$args" in *acpi=noirq*) r=1 ;; esac
tap "$r" "ARCH=arm64: -M virt, ttyAMA0, the root of its own and the checkout at its path" "exit $rc, QEMU args: $args"
boot arm64-flat ARCH=arm64 TOPO=flat GUEST_ROOT="$scratch/root"
r=1
[ "$rc" != 0 ] && [ "$args" = "not started" ] && grep -q "unknown TOPO=flat for ARCH=arm64" "$scratch/arm64-flat.log" && r=0
tap "$r" "ARCH=arm64 TOPO=flat: refused, QEMU not started" "exit $rc, log: $(tail -1 "$scratch/arm64-flat.log")"

tap_end run-test
