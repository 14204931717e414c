#!/usr/bin/env bash
# The variables the targets read, checked before any work (a bad one found
# after a 30-minute build wastes the build): each set one must be valid, and
# the checkout must not be under /tmp. Exits 1 with what to use instead.
# Usage: check-vars.sh [NAME...]: NAMEs are the variables given on make's
# command line, each of which must be one of ours (harness/definitions.sh);
# GOALS in the environment, make's goals, refused for an ARCH they do not
# run for.
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

# number NAME MIN MAX: $NAME, if set, is a whole number in [MIN, MAX].
number() {
	local name=$1 min=$2 max=$3 val=${!1:-}
	[ -n "$val" ] || return 0
	case "$val" in
	*[!0-9]*) die "$name=$val is not a whole number: use one from $min to $max" ;;
	esac
	if [ "$val" -lt "$min" ] || [ "$val" -gt "$max" ]; then
		die "$name=$val is out of range: use one from $min to $max"
	fi
}

# one_of NAME WORDS: $NAME, if set, is one of WORDS (each word of it, for
# lists).
one_of() {
	local name=$1 val=${!1:-} w
	# shellcheck disable=SC2086 # one argument a word
	set -- $2
	for w in $val; do
		case " $* " in *" $w "*) ;; *) die "$name=$val: unknown '$w': use $*" ;; esac
	done
}

# closest NAME: the variable of ours within two edits of NAME, if any.
closest() {
	# shellcheck disable=SC2086 # one word per variable
	printf '%s\n' $VARIABLES | awk -v n="$1" '
	function dist(a, b,   i, j, la, lb, d, c) {
		la = length(a); lb = length(b)
		for (i = 0; i <= la; i++) d[i, 0] = i
		for (j = 0; j <= lb; j++) d[0, j] = j
		for (i = 1; i <= la; i++)
			for (j = 1; j <= lb; j++) {
				c = d[i - 1, j - 1] + (substr(a, i, 1) != substr(b, j, 1))
				if (d[i - 1, j] + 1 < c) c = d[i - 1, j] + 1
				if (d[i, j - 1] + 1 < c) c = d[i, j - 1] + 1
				d[i, j] = c
			}
		return d[la, lb]
	}
	# Two edits for a long name, one for a short one, none under three
	# letters (everything is two edits from A).
	{ k = dist(toupper(n), $0); lim = length(n) > 5 ? 2 : (length(n) > 2 ? 1 : 0)
	  if (k <= lim && (best == "" || k < bk)) { best = $0; bk = k } }
	END { if (best != "") print best }'
}

# known NAME: NAME, given on the command line, is one of ours or one of
# Kbuild's that reaches the kernel builds unchanged; the others Kbuild
# reads are refused with what to do instead.
known() {
	local hint
	case "$1" in
	[!A-Za-z_]* | *[!A-Za-z0-9_]*) die "'$1' is not a variable name: make help lists the variables" ;;
	esac
	case " $KBUILD_VARIABLES " in *" $1 "*) return 0 ;; esac
	case "$1" in
	O) die "O=$O: the builds go under build/ (or /var/tmp for a checkout whose path holds a space); drop O=" ;;
	CROSS_COMPILE) die "CROSS_COMPILE: ARCH= picks the guests' architecture and its cross compiler (harness/definitions.sh); drop CROSS_COMPILE=" ;;
	LLVM | CC) die "$1=${!1}: the kernels are built with gcc through ccache; drop $1=" ;;
	esac
	# shellcheck disable=SC2086,SC2116 # the words, on one line
	case " $(echo $VARIABLES) " in *" $1 "*) return 0 ;; esac
	hint=$(closest "$1")
	die "unknown variable $1=${!1-}: ${hint:+did you mean $hint? }make help lists the variables"
}

for name in "$@"; do known "$name"; done
for goal in ${GOALS:-}; do
	case " $DEFAULT_ARCH_TARGETS " in *" $goal "*) only_default_arch "$goal" ;; esac
done

# The guest mounts a tmpfs on /tmp and would not see a checkout there.
case "$REPO/" in
/tmp/*) die "this checkout is under /tmp ($REPO), which every guest covers with its own tmpfs: clone the repository somewhere else, e.g. under \$HOME" ;;
esac

if [ -n "${KSRC:-}" ]; then
	if [ ! -f "$KSRC/Makefile" ] || [ ! -f "$KSRC/kernel/sched/fair.c" ]; then
		die "KSRC=$KSRC is not a kernel source tree (no Makefile and kernel/sched/fair.c): point it at one, or unset it for Debian's $DEBIAN_SOURCE"
	fi
fi
one_of FLAVOUR "$FLAVOURS"
# lib.sh has refused an unknown ARCH; the topologies are the ARCH's.
one_of TOPO "$ARCH_TOPOLOGIES"
one_of TOPOS "$ARCH_TOPOLOGIES"
one_of ACCEL "auto kvm tcg"
if [ "$ARCH" != x86_64 ] && [ "${ACCEL:-auto}" = kvm ]; then
	die "ACCEL=kvm: only x86_64 guests run under KVM here, an $ARCH guest under TCG: use ACCEL=tcg or auto"
fi
# A guest with a root of its own sees only that root and the checkout.
if [ -n "$ARCH_ROOT_PACKAGES" ]; then
	case "$BUILD/" in
	"$REPO/"*) ;;
	*) die "ARCH=$ARCH: the guest sees only the checkout, and this one's builds are in $BUILD (its path holds a space): clone it to a path without one" ;;
	esac
fi
if [ "${ACCEL:-auto}" = kvm ] && [ ! -w "${ACCEL_KVM_DEV:-/dev/kvm}" ]; then
	die "ACCEL=kvm, but /dev/kvm is not usable here: use ACCEL=tcg or auto"
fi
one_of TCG_THREAD "single multi"
one_of CLOCK "auto icount host"
one_of SERIES_BUILDS "yes no"
one_of CLONE_TARGET "check lint"
case "${CLONE_USER:-}" in
root) die "CLONE_USER=root: root's home is a case of its own; name another user (made if missing)" ;;
*[!a-z0-9_-]* | [!a-z_]*) die "CLONE_USER=$CLONE_USER is not a user name: use lower-case letters, digits, _ and -" ;;
esac
# The selftests run_kselftest.sh runs: their Makefile's TEST_GEN_PROGS.
[ -z "${TESTS:-}" ] || one_of TESTS "$(sed -n '/^TEST_GEN_PROGS :=/,/[^\\]$/p' \
	"$REPO/tools/testing/selftests/sched/sync_wakeup/Makefile" |
	sed 's/^TEST_GEN_PROGS :=//; s/\\$//' | xargs -n 1 printf 'sched/sync_wakeup:%s\n')"
for v in LOCALMODCONFIG NOBUILD DBG HOST DISCARD_TREE; do one_of "$v" "0 1"; done
for v in BASECONFIG LSMOD; do
	if [ -n "${!v:-}" ] && [ ! -r "${!v}" ]; then
		die "$v=${!v} is not a readable file: name an existing one, or unset $v"
	fi
done
number TIMEOUT 60 86400
number BOOT_TIMEOUT 300 86400
number GUEST_JOBS 1 4
number BOOTS 1 100
number DURATION 1 10080
number REPEATS 1 100
read -ra features <<<"${SCHED_FEATURES:-}"
for f in "${features[@]}"; do
	case "$f" in
	*[!A-Z0-9_]* | [!A-Z]*) die "SCHED_FEATURES: '$f' is no sched/features name: write e.g. NEXT_BUDDY or NO_HRTICK" ;;
	esac
done
# The torture needs more than its 10 s stall limit, and the boot has to
# finish within BOOT_TIMEOUT: about 300 s of it go to booting and setup.
boot_timeout=${BOOT_TIMEOUT:-2400}
if [ -n "${STRESS_SECS:-}" ] && [ "$STRESS_SECS" != 0 ]; then
	number STRESS_SECS 20 $((boot_timeout - 300))
fi
# The bench's own variables (ROUNDS, ARMS, WORKLOADS, the sizes): the
# guest script checks them, here on the host before any work.
"$PYTHON" "$REPO/bench/guest-bench.py" --check >/dev/null
