#!/usr/bin/env bash
# Which accelerator and which QEMU arguments every target gets (lib.sh's
# resolve_accel, accel_args, guest_jobs, icount_args), for sample /proc/cpuinfo flags and
# /dev/kvm states: this machine cannot run KVM, so the KVM path is tested
# here by its decisions. TAP on stdout.
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
: >"$scratch/kvm"
export ACCEL_CPUINFO="$scratch/cpuinfo"

# host FLAGS KVM: a cpuinfo with FLAGS; /dev/kvm usable (yes) or absent (no).
host() {
	printf 'processor\t: 0\nflags\t\t: fpu sse2 %s\n\nprocessor\t: 1\nflags\t\t: fpu sse2 %s\n' "$1" "$1" >"$ACCEL_CPUINFO"
	if [ "$2" = yes ]; then
		export ACCEL_KVM_DEV="$scratch/kvm"
	else
		export ACCEL_KVM_DEV="$scratch/no-kvm"
	fi
}

# expect WHAT WANT GOT: one TAP line.
expect() {
	[ "$2" = "$3" ] && rc=0 || rc=1
	tap "$rc" "$1" "wanted '$2', got '$3'"
}

args() { (accel_args "$@" 2>&1) || echo "exit $?"; }

host "vmx hypervisor" yes
expect "vmx and /dev/kvm: auto picks KVM, host CPU, no TCG workaround" \
	"kvm -accel kvm -cpu host" "$(TCG_THREAD=single args auto)"
expect "vmx and /dev/kvm: make check boots one guest at a time" 1 "$(TCG_THREAD=single guest_jobs auto 3)"
expect "vmx and /dev/kvm: ACCEL=tcg still gets TCG" \
	"tcg -accel tcg,thread=single -cpu max,la57=off,hypervisor=off" "$(TCG_THREAD=single args tcg)"

host "svm" yes
expect "svm and /dev/kvm: auto picks KVM" "kvm -accel kvm -cpu host" "$(args auto)"

# Our machines: no vmx/svm, but a /dev/kvm (kvm_pvm) that hangs a normal guest.
host "hypervisor" yes
expect "no vmx/svm, /dev/kvm present: auto keeps TCG, one thread, la57=off, no hypervisor bit" \
	"tcg -accel tcg,thread=single -cpu max,la57=off,hypervisor=off" "$(TCG_THREAD=single args auto)"
expect "no vmx/svm: make check boots its three guests at once" 3 "$(TCG_THREAD=single guest_jobs auto 3)"
expect "no vmx/svm: at most 4 guests at once" 4 "$(TCG_THREAD=single guest_jobs auto 6)"
expect "no vmx/svm, multi-threaded TCG: one guest at a time" 1 "$(TCG_THREAD=multi guest_jobs auto 3)"
# A word inside another flag is not the flag.
host "vmx_ept_ad svmlike" yes
expect "flags that only contain vmx or svm: TCG" tcg "$(resolve_accel auto)"

host "vmx" no
expect "vmx without /dev/kvm: auto picks TCG" tcg "$(resolve_accel auto)"
out=$(args kvm)
case "$out" in *"is not usable: use ACCEL=tcg"*"exit 1") rc=0 ;; *) rc=1 ;; esac
tap "$rc" "vmx without /dev/kvm: ACCEL=kvm stops, saying what to use" "got '$out'"
rc=1
if ! out=$(ACCEL=kvm "$REPO/harness/check-vars.sh" 2>&1); then
	case "$out" in *"ACCEL=kvm, but"*"is not usable"*) rc=0 ;; esac
fi
tap "$rc" "vmx without /dev/kvm: make's variable check refuses ACCEL=kvm first" "got '$out'"

# An arm64 guest on these x86_64 hosts: TCG whatever the host offers.
host "vmx hypervisor" yes
expect "ARCH=arm64, vmx and /dev/kvm: auto keeps TCG, arm64's CPU model" \
	"tcg -accel tcg,thread=single -cpu max,pauth-impdef=on" "$(ARCH=arm64 TCG_THREAD=single args auto)"
out=$(ARCH=arm64 args kvm)
case "$out" in *"only x86_64 guests run under KVM here"*"exit 1") rc=0 ;; *) rc=1 ;; esac
tap "$rc" "ARCH=arm64: ACCEL=kvm stops, saying what to use" "got '$out'"

# icount_args: QEMU's instruction-counting clock, only where QEMU has one.
icount() { (icount_args "$@" 2>&1) || echo "exit $?"; }
expect "icount under single-threaded TCG: shift N, idle time skipped" "-icount shift=3,sleep=off" \
	"$(icount "tcg -accel tcg,thread=single -cpu max,la57=off,hypervisor=off" 3)"
for bad in "tcg -accel tcg,thread=multi -cpu max,la57=off,hypervisor=off|3|needs single-threaded TCG" \
	"kvm -accel kvm -cpu host|3|only under TCG, not kvm" \
	"tcg -accel tcg,thread=single -cpu max,la57=off,hypervisor=off|10|use a shift of 0 to 9" \
	"tcg -accel tcg,thread=single -cpu max,la57=off,hypervisor=off|x|use a shift of 0 to 9"; do
	IFS='|' read -r line n want <<<"$bad"
	out=$(icount "$line" "$n")
	case "$out" in *"$want"*"exit 1") rc=0 ;; *) rc=1 ;; esac
	tap "$rc" "icount refuses ICOUNT=$n with '${line%% -cpu*}': $want" "got '$out'"
done

tap_end accel-test
