#!/usr/bin/env bash
# Does vm/hang-snapshot.py read each vCPU's place from a real QEMU and name
# it from System.map, and does vm/run.sh take the snapshot of a guest that
# outruns its TIMEOUT, and only of such a guest? QEMU waits paused at the
# reset vector (ip 0xfff0) for the first; a stand-in QEMU plays the guest
# for the others. TAP on stdout.
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"

scratch=$(mktemp -d)
qemu_pid=
cleanup() {
	[ -z "$qemu_pid" ] || kill "$qemu_pid" 2>/dev/null || true
	rm -rf "$scratch"
}
trap cleanup EXIT

# A text symbol just below the reset vector, and the end of text above it.
printf '%s\n' "000000000000f000 T reset_here" "0000000000010000 T _etext" >"$scratch/System.map"
qemu-system-x86_64 -S -nodefaults -display none -machine pc -accel tcg \
	-qmp "unix:$scratch/qmp.sock,server=on,wait=off" </dev/null >"$scratch/qemu.log" 2>&1 &
qemu_pid=$!
for _ in $(seq 50); do
	[ -S "$scratch/qmp.sock" ] && break
	sleep 0.1
done
out=$("$REPO/vm/hang-snapshot.py" "$scratch/qmp.sock" "$scratch/System.map" 0 2>&1) && rc=0 || rc=1
r=1
[ "$rc" = 0 ] && [ "$(grep -c '^vCPU 0: ip 0xfff0 reset_here+0xff0$' <<<"$out")" = 2 ] && r=0
tap "$r" "hang-snapshot names a paused vCPU's ip from System.map, in both looks" "exit $rc: $out"

out=$("$REPO/vm/hang-snapshot.py" "$scratch/nobody.sock" "$scratch/System.map" 0 2>&1) && rc=0 || rc=1
r=1
[ "$rc" = 0 ] && grep -q "QEMU did not answer" <<<"$out" && r=0
tap "$r" "hang-snapshot with no QEMU behind the socket: says so, exits 0 (the kill still follows)" \
	"exit $rc: $out"

# vm/run.sh: a stand-in QEMU that runs until the snapshot is written, then
# ends with STUB_RC: 124, as timeout(1) reports a guest it killed, or 0, a
# guest that finished in its last seconds.
mkdir "$scratch/bin" "$scratch/root" "$scratch/root/sbin"
: >"$scratch/bzImage"
cat >"$scratch/bin/qemu-system-x86_64" <<'STUB'
#!/usr/bin/env bash
for a in "$@"; do
	case "$a" in *id=results,path=*) out=${a#*path=} && out=${out%%,*} ;; esac
done
for _ in $(seq 100); do
	[ -s "$out/hang.txt" ] && exit "$STUB_RC"
	sleep 0.1
done
STUB
chmod +x "$scratch/bin/qemu-system-x86_64"
# stub_boot NAME RC: vm/run.sh with the stand-in, 2 s before the snapshot.
stub_boot() {
	rc=0
	env -u ICOUNT -u CLOCK -u SCHED_FEATURES PATH="$scratch/bin:$PATH" STUB_RC="$2" ACCEL=tcg \
		TIMEOUT=32 KERNEL="$scratch/bzImage" GUEST_ROOT="$scratch/root" OUT="$scratch/$1" \
		CMD=true "$REPO/vm/run.sh" >"$scratch/$1.log" 2>&1 || rc=$?
}
stub_boot timeout 124
r=1
grep -qs "QEMU did not answer" "$scratch/timeout/hang.txt" && r=0
tap "$r" "vm/run.sh keeps OUT/hang.txt of a guest killed for its time, taken 30 s before" \
	"exit $rc; hang.txt: $(cat "$scratch/timeout/hang.txt" 2>/dev/null || echo none); log: $(tail -3 "$scratch/timeout.log")"
stub_boot finished 0
r=1
[ ! -e "$scratch/finished/hang.txt" ] && r=0
tap "$r" "vm/run.sh drops the snapshot of a guest that finished after it" \
	"exit $rc; log: $(tail -3 "$scratch/finished.log")"

tap_end hang-snapshot-test
