# shellcheck shell=bash
# Shared helpers and paths for the harness scripts. Sourced, never run.

# shellcheck disable=SC2034 # used by the scripts that source this file
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=harness/definitions.sh
. "$REPO/harness/definitions.sh"
export TCG_THREAD="${TCG_THREAD:-$TCG_THREAD_DEFAULT}"
# The guests' architecture, and definitions.sh's facts of it under their
# plain names (IMAGE_arm64 as ARCH_IMAGE, ...). Make takes ARCH from its
# command line only; kmake hands Kbuild ARCH and CROSS_COMPILE for another
# ARCH, and a CROSS_COMPILE of the caller's never reaches an x86_64 build.
ARCH=${ARCH:-$ARCH_DEFAULT}
unset CROSS_COMPILE
case " $ARCHES " in
*" $ARCH "*) ;;
*) printf 'error: ARCH=%s: use one of: %s\n' "$ARCH" "$ARCHES" >&2 && exit 1 ;;
esac
for _v in IMAGE QEMU CROSS_COMPILE CONSOLE HOST_PACKAGES ROOT_PACKAGES TOPOLOGIES \
	TOPO_DEFAULT TOPOS_CHECK TOPOS_STRESS; do
	_a="${_v}_$ARCH"
	# shellcheck disable=SC2034
	declare "ARCH_$_v=${!_a-}"
done
unset _v _a
# The base (BASE) and its facts: Debian's source package, its version and
# suite (harness/definitions.sh). Every build of another base than the
# default has its own directories (BASE_SUFFIX).
BASE=${BASE:-$BASE_DEFAULT}
case " $BASES " in
*" $BASE "*) ;;
*) printf 'error: BASE=%s: use one of: %s\n' "$BASE" "$BASES" >&2 && exit 1 ;;
esac
_b=${BASE//./_}
for _v in SOURCE VERSION SUITE; do
	_a="DEBIAN_${_v}_$_b"
	# shellcheck disable=SC2034
	declare "DEBIAN_$_v=${!_a-}"
done
unset _v _a _b
BASE_SUFFIX=""
[ "$BASE" = "$BASE_DEFAULT" ] || BASE_SUFFIX="-$BASE"
# The base's patches: each patch's changelog and its hunks to upstream
# files. The files the series adds are the bases' own (the overlay, below),
# and so are the hunks a later patch makes to one of them: patches/shared/
# has a file of the same name for each patch that has such hunks.
# shellcheck disable=SC2034
PATCHES="$REPO/patches/$BASE"
SHARED="$REPO/patches/shared"
# The base's reference runs (make bench's defaults), which the cover letter
# quotes.
# shellcheck disable=SC2034
REFERENCE="$REPO/results/reference/$BASE"
TOPO_DEFAULT=$ARCH_TOPO_DEFAULT
TOPOS_CHECK=$ARCH_TOPOS_CHECK
TOPOS_STRESS=$ARCH_TOPOS_STRESS
# Kbuild refuses an output directory whose path holds a space: a checkout
# whose path does keeps its build under /var/tmp (every guest covers /tmp
# with a tmpfs). The name is predictable: fine for a machine of one user.
case "$REPO" in
*[[:space:]]*) BUILD="/var/tmp/sync-wakeup-build-$(printf '%s' "$REPO" | cksum | cut -d' ' -f1)" ;;
*) BUILD="$REPO/build" ;;
esac
# The patched tree every flavour is built from (with O=, so it stays clean);
# KSRC itself where it carries the series (own_tree, at the end).
# shellcheck disable=SC2034
TREE="$BUILD/linux$BASE_SUFFIX"
# Directories of the repo that are copied over the tree at their kernel paths.
# shellcheck disable=SC2034
OVERLAY_DIRS="kernel include Documentation tools/testing/selftests/sched"
# Debian's interpreter, which has the python3-* packages deps.sh installs
# (a python3 earlier in PATH, e.g. pyenv's, may lack them).
# shellcheck disable=SC2034
PYTHON=/usr/bin/python3
# No __pycache__ in the checkout: it may be another user's, or read-only.
export PYTHONDONTWRITEBYTECODE=1

# build/linux is a git repository: unless LOCALVERSION is set (even
# empty), Kbuild's setlocalversion adds "+" to every kernel's release.
export LOCALVERSION="${LOCALVERSION-}"

export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/ccache}"
export CCACHE_BASEDIR="$REPO"
export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-10G}"

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# The source tree we build from: KSRC, or Debian's linux-source unpacked.
ksrc() {
	if [ -n "${KSRC:-}" ]; then
		(cd "$KSRC" 2>/dev/null && pwd) || die "KSRC=$KSRC is not a directory"
	else
		echo "$BUILD/src/$DEBIAN_SOURCE"
	fi
}

# "6.12.117" from a tree's top Makefile.
kernel_version() {
	make -s -C "$1" kernelversion 2>/dev/null ||
		die "cannot read the kernel version of $1: is it a kernel tree?"
}

# only_default_arch TARGET: make's TARGET, one of DEFAULT_ARCH_TARGETS,
# runs for ARCH_DEFAULT guests only.
only_default_arch() {
	case " $DEFAULT_ARCH_TARGETS " in
	*" $1 "*) ;;
	*) die "only_default_arch $1: not in DEFAULT_ARCH_TARGETS (harness/definitions.sh)" ;;
	esac
	[ "$ARCH" = "$ARCH_DEFAULT" ] ||
		die "make $1 is for $ARCH_DEFAULT only; ARCH=$ARCH has make kernel, vm, selftests, check and bench"
}

# kernel_dir FLAVOUR: its build directory (O=); kernel_image FLAVOUR: the
# image QEMU boots. Another ARCH than the default has its own.
kernel_dir() {
	if [ "$ARCH" = "$ARCH_DEFAULT" ]; then
		echo "$BUILD/kernel-$1$BASE_SUFFIX"
	else
		echo "$BUILD/kernel-$1-$ARCH$BASE_SUFFIX"
	fi
}
kernel_image() { echo "$(kernel_dir "$1")/$ARCH_IMAGE"; }
# The guest's root: the host's, or vm/guest-root.sh's for an ARCH with a
# root of its own.
guest_root() {
	if [ -n "$ARCH_ROOT_PACKAGES" ]; then
		echo "$BUILD/root-$ARCH"
	else
		echo /
	fi
}
# Where make selftests installs (the guest runs them from there).
kselftest_dir() {
	if [ "$ARCH" = "$ARCH_DEFAULT" ]; then
		echo "$BUILD/kselftest$BASE_SUFFIX"
	else
		echo "$BUILD/kselftest-$ARCH$BASE_SUFFIX"
	fi
}

# kmake ARG...: make for a kernel build, every CPU busy, through ccache.
# For another ARCH, its cross compiler (KBUILD_ARCH: Kbuild's variables for
# it, also for merge_config.sh's make).
KBUILD_ARCH=()
[ -z "$ARCH_CROSS_COMPILE" ] || KBUILD_ARCH=(ARCH="$ARCH" CROSS_COMPILE="$ARCH_CROSS_COMPILE")
kmake() { make -j"$(($(nproc) + 1))" "${KBUILD_ARCH[@]}" CC="ccache ${ARCH_CROSS_COMPILE}gcc" "$@"; }

# verify_config CONFIG WHAT FRAGMENT...: every option the fragments set is
# set so in CONFIG (merge_config.sh only warns when one does not stick),
# the last fragment that names an option having the last word as in
# merge_config.sh; says which is not, on stderr, and returns 1. With
# KCONFIG_SRC, a kernel tree, an option its Kconfig files do not define is
# an error in the base's own fragment (configs/<BASE>.fragment) and passed
# over, with a note, in the fragments the bases share.
verify_config() {
	local config=$1 what=$2 frag line sym have bad=0 defined=""
	shift 2
	[ -z "${KCONFIG_SRC:-}" ] || defined=$(find "$KCONFIG_SRC" -name 'Kconfig*' -type f -exec \
		sed -n 's/^[[:space:]]*\(menu\)\{0,1\}config[[:space:]]\{1,\}\([A-Za-z0-9_]*\).*/CONFIG_\2/p' {} + | LC_ALL=C sort -u)
	for frag in "$@"; do
		shift
		while read -r line; do
			case "$line" in
			CONFIG_*=*) sym=${line%%=*} ;;
			"# CONFIG_"*" is not set") sym=${line#\# } && sym=${sym%% *} ;;
			*) continue ;;
			esac
			if [ $# -gt 0 ] && grep -qE "^($sym=|# $sym is not set)" "$@"; then
				continue
			fi
			if [ -n "$defined" ] && ! grep -qxF "$sym" <<<"$defined"; then
				# Not set where it does not exist. A fragment the
				# bases share may name an option one of them lacks
				# (SCHED_DEBUG, 6.12's); the base's own may not.
				case "$line" in "#"*) continue ;; esac
				case "${frag##*/}" in
				*"$BASE.fragment")
					echo "config: ${frag#"$REPO"/} asks for '$line', which $BASE does not define: a typo?" >&2
					bad=1
					;;
				*) echo "config: ${frag#"$REPO"/} asks for '$line', which $BASE does not define: passed over" >&2 ;;
				esac
				continue
			fi
			have=$(grep -E "^($sym=|# $sym is not set)" "$config" || true)
			if [ "$have" = "$line" ] || { [ -z "$have" ] && [ "${line#\#}" != "$line" ]; }; then
				continue
			fi
			echo "config: ${frag#"$REPO"/} asks for '$line', $what has '${have:-nothing}'" >&2
			bad=1
		done <"$frag"
	done
	return "$bad"
}

check_flavour() {
	case " $FLAVOURS " in
	*" $1 "*) ;;
	*) die "unknown FLAVOUR=$1: use one of $FLAVOURS" ;;
	esac
}

# git_identity: the name and address of whoever runs this, from the
# environment (GIT_AUTHOR_NAME, GIT_AUTHOR_EMAIL) or git's config, exported
# for the scratch repositories; none is invented.
git_identity() {
	local name=${GIT_AUTHOR_NAME:-} email=${GIT_AUTHOR_EMAIL:-}
	[ -n "$name" ] || name=$(git -C "$REPO" config user.name || true)
	[ -n "$email" ] || email=$(git -C "$REPO" config user.email || true)
	if [ -z "$name" ] || [ -z "$email" ]; then
		die "no git identity: the patches are signed off by whoever runs make series; set git config user.name and user.email"
	fi
	# The scratch repositories do not see this repository's own config.
	export GIT_AUTHOR_NAME="$name" GIT_AUTHOR_EMAIL="$email"
	export GIT_COMMITTER_NAME="$name" GIT_COMMITTER_EMAIL="$email"
}

# shellcheck source=harness/tap.sh
. "$REPO/harness/tap.sh"

# as_typed [NAME=VALUE...] CMD...: CMD as a user would type it, with none
# of our variables (harness/definitions.sh) and no make command line
# (MAKEFLAGS) inherited from whatever runs this script.
as_typed() {
	# shellcheck disable=SC2046,SC2086 # a -u per variable
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL $(printf -- '-u %s ' $VARIABLES) "$@"
}

# base_repo DIR: a git repository of the pristine source, one commit tagged
# "base" (Debian's source carries a .gitignore that ignores the top level).
# Not source.sh's .unpacked marker: a tree made before the marker existed
# would differ from one made after.
base_repo() {
	local dir=$1 src
	src=$(ksrc)
	rm -rf "$dir"
	mkdir -p "$dir"
	rsync -a --exclude=.git --exclude=.pc --exclude=/.unpacked "$src/" "$dir/"
	git -C "$dir" init -q
	git -C "$dir" add -A -f
	git -C "$dir" commit -q --no-verify -m "Linux $(kernel_version "$src")"
	git -C "$dir" tag base
}

# What ACCEL=$1 (default auto) means here: kvm or tcg. /dev/kvm on our
# machines can be a PVM device that hangs a normal kernel, so auto takes KVM
# only where the CPU advertises hardware virtualisation, and only for an
# x86_64 guest (the hosts are x86_64). ACCEL_CPUINFO and
# ACCEL_KVM_DEV stand in for /proc/cpuinfo and /dev/kvm in accel-test.sh.
resolve_accel() {
	case "${1:-auto}" in
	auto)
		if [ "$ARCH" = x86_64 ] && grep -qwE 'vmx|svm' "${ACCEL_CPUINFO:-/proc/cpuinfo}" &&
			[ -w "${ACCEL_KVM_DEV:-/dev/kvm}" ]; then
			echo kvm
		else
			echo tcg
		fi
		;;
	*) echo "$1" ;;
	esac
}

# accel_args ACCEL: "kvm|tcg QEMU-ARGS...". KVM gives every vCPU its own
# host thread and the host's CPU model; the TCG workarounds stay with TCG.
accel_args() {
	local mode
	mode=$(resolve_accel "$1")
	case "$mode" in
	kvm)
		[ -w "${ACCEL_KVM_DEV:-/dev/kvm}" ] ||
			die "ACCEL=kvm but ${ACCEL_KVM_DEV:-/dev/kvm} is not usable: use ACCEL=tcg"
		[ "$ARCH" = x86_64 ] || die "ACCEL=kvm: only x86_64 guests run under KVM here, an $ARCH guest under TCG: use ACCEL=tcg or auto"
		echo "kvm -accel kvm -cpu host"
		;;
	# la57=off: with 5-level paging, an interrupt that lands while
	# identify_cpu() has cleared the boot CPU's feature bits makes KASAN
	# check direct-map addresses against the 4-level layout and report a
	# false "wild-memory-access"; TCG is slow enough to hit that window.
	# hypervisor=off: an x86 guest that sees the hypervisor bit and no
	# paravirtual spinlocks takes its spinlocks by test-and-set
	# (virt_spin_lock()), which is unfair; single-threaded TCG hands the
	# turn from a vCPU at the same point of its code again and again, and
	# a vCPU spinning for a lock the other one holds there never got it
	# (docs/torture.md). Without the bit the queued spinlock is fair.
	# pauth-impdef: QEMU's own pointer-authentication hash, much cheaper
	# to emulate than the architected QARMA5.
	tcg)
		case "$ARCH" in
		arm64) echo "tcg -accel tcg,thread=$TCG_THREAD -cpu max,pauth-impdef=on" ;;
		*) echo "tcg -accel tcg,thread=$TCG_THREAD -cpu max,la57=off,hypervisor=off" ;;
		esac
		;;
	*) die "unknown ACCEL=$mode: use auto, kvm or tcg" ;;
	esac
}

# icount_args ACCEL_LINE SHIFT: QEMU's instruction-counting clock for a guest
# booted with ACCEL_LINE (accel_args' output): guest time advances 2^SHIFT ns
# per instruction executed and skips idle time (sleep=off), so the guest's
# timings no longer follow the host's speed. QEMU has it only under TCG with
# one thread for every vCPU.
icount_args() {
	case "$2" in
	[0-9]) ;;
	*) die "ICOUNT=$2: use a shift of 0 to 9 (2^N ns an instruction; QEMU's 10 is left out)" ;;
	esac
	case "$1" in
	"tcg "*thread=single*) echo "-icount shift=$2,sleep=off" ;;
	"tcg "*) die "the icount clock (CLOCK=icount, ICOUNT=$2) needs single-threaded TCG: set TCG_THREAD=single, or CLOCK=host" ;;
	*) die "the icount clock (CLOCK=icount, ICOUNT=$2): QEMU counts instructions only under TCG, not ${1%% *}: use CLOCK=host or ACCEL=tcg" ;;
	esac
}

# A guest's clock (make bench, make check), from CLOCK (auto, icount or
# host) and the accelerator: icount (QEMU's -icount, guest time counting
# instructions at ICOUNT_SHIFT) where QEMU has it, single-threaded TCG;
# host time otherwise. Dies on a combination QEMU cannot run.
guest_clock() {
	local accel
	accel=$(resolve_accel "${ACCEL:-auto}")
	case "${CLOCK:-auto}" in
	auto)
		if [ "$accel" = tcg ] && [ "$TCG_THREAD" = single ]; then
			echo icount
		else
			echo host
		fi
		;;
	icount)
		# icount_args is the one place that says where QEMU has icount.
		icount_args "$accel $(accel_args tcg | cut -d' ' -f2-)" \
			"$ICOUNT_SHIFT" >/dev/null
		echo icount
		;;
	host) echo host ;;
	*) die "CLOCK=$CLOCK is not valid: use one of: auto icount host" ;;
	esac
}

# 8 ns an instruction: a guest second is 125 million instructions, so the
# bench workloads of fixed length (sockperf, tbench, iperf3) take less than
# their length in host time.
ICOUNT_SHIFT=3

# sq WORD: WORD quoted for the guest's sh (a path may hold a space).
sq() { printf "'%s'" "${1//\'/\'\\\'\'}"; }

# guest_jobs ACCEL BOOTS: guests make check boots at once. Single-threaded
# TCG guests each keep one host thread busy: every boot at once (at most 4),
# even with more boots than CPUs, so that no lane idles while boots of
# unequal length finish. A guest with a thread per vCPU (KVM, multi-threaded
# TCG) wants the whole host: one.
guest_jobs() {
	if [ "$TCG_THREAD" = single ] && [ "$(resolve_accel "$1")" = tcg ]; then
		echo $(($2 < 4 ? $2 : 4))
	else
		echo 1
	fi
}

# check_mails TREE DIR: checkpatch --strict on every patch mail in DIR, run
# in the kernel tree TREE, and a maintainer for every file the mails add
# (instead of checkpatch's FILE_PATH_CHANGES question); TAP lines.
check_mails() {
	local tree=$1 dir=$2 mail out f rc
	for mail in "$dir"/0*.patch; do
		case "$mail" in */0000-cover-letter.patch) continue ;; esac
		# In a git tree checkpatch validates SPDX tags with python3's ply
		# and GitPython: Debian's python3 has them (deps.sh).
		out=$(cd "$tree" && PATH="/usr/bin:$PATH" perl scripts/checkpatch.pl --strict --quiet --no-summary \
			--show-types --ignore FILE_PATH_CHANGES "$mail" 2>&1) && rc=0 || rc=1
		tap "$rc" "checkpatch --strict ${mail##*/}" "$out"
	done
	out=""
	while read -r f; do
		# No git fallback: it adds commit signers, never a maintainer,
		# and its git log over the tree took 4-6 s a file.
		(cd "$tree" && perl scripts/get_maintainer.pl --no-git --no-git-fallback -f "$f" 2>/dev/null |
			grep -q '(maintainer:') || out+="$f has no maintainer"$'\n'
	done < <(sed -n '/^--- \/dev\/null$/{n;s|^+++ b/||p}' "$dir"/0*.patch)
	[ -z "$out" ] && rc=0 || rc=1
	tap "$rc" "MAINTAINERS has a maintainer for every file the series adds" "$out"
}

# patch_names [SERIES]: the patches of SERIES (default the base's series), in order.
patch_names() {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "${1:-$PATCHES/series}" 2>/dev/null | awk '{ print $1 }'
}

# posted_names: the patches make series posts: patches/series without those
# series/not-posted names, which must be in the series, after every posted
# one (each posted patch then applies without them).
posted_names() {
	local p held="" n=0 out=""
	while read -r p; do
		patch_names | grep -qxF "$p" || die "series/not-posted names $p, which is not in patches/$BASE/series"
		held+="$p"$'\n'
	done < <(patch_names "$REPO/series/not-posted")
	for p in $(patch_names); do
		if grep -qxF "$p" <<<"$held"; then
			n=1
		elif [ "$n" = 1 ]; then
			die "patches/series has $p after a patch series/not-posted holds back: move the held-back ones to the end"
		else
			out+="$p"$'\n'
		fi
	done
	printf '%s' "$out"
}

# claimed PATCH: the overlay files PATCH adds whole (series/new-files: the
# patch, then paths, a directory standing for every file under it).
claimed() {
	local path
	while read -r path; do
		[ -e "$REPO/$path" ] || die "series/new-files: $1 claims $path, which does not exist"
		(cd "$REPO" && find "$path" -type f | LC_ALL=C sort)
	done < <(awk -v p="$1" '$1 == p { for (i = 2; i <= NF; i++) print $i }' "$REPO/series/new-files")
}

# unapply FILE LAST PATCH...: FILE as it was before the PATCHes, given
# LAST, its version after them: their hunks to FILE undone, the last patch
# first. On stdout.
unapply() {
	local f=$1 last=$2 tmp i
	shift 2
	tmp=$(mktemp -d)
	install -D -m 644 "$last" "$tmp/$f"
	for ((i = $#; i > 0; i--)); do
		# Not in a repository: git apply is then a plain patch tool.
		if ! (cd "$tmp" && GIT_CEILING_DIRECTORIES=$(dirname "$tmp") \
			git apply -R --allow-empty --include="$f" "${!i}") 2>"$tmp/.log"; then
			echo "$(basename "${!i}") does not undo on $f: $(head -2 "$tmp/.log" | tr '\n' ' ')" >&2
			rm -rf "$tmp"
			return 1
		fi
	done
	cat "$tmp/$f"
	rm -rf "$tmp"
}

# later_patches NAME [SERIES DIR]: the hunks to new files of the patches
# after NAME in SERIES (default the base's series): their files under DIR
# (default patches/shared/), where there is one.
later_patches() {
	local p dir=${3:-$SHARED}
	for p in $(patch_names "${2:-}" | awk -v p="$1" 'on { print } $0 == p { on = 1 }'); do
		[ ! -f "$dir/$p" ] || echo "$dir/$p"
	done
}

# commit_patch DIR NAME [GIT-COMMIT-ARG...]: patches/<BASE>/NAME's hunks,
# patches/shared/NAME's and the overlay files it claims, committed in the
# git repository DIR with the patch's header (up to its first diff line) as
# the message. The overlay holds a new file's last version: later patches
# that change it are undone on it (unapply), so that each commit has it as
# its patch added it.
commit_patch() {
	local dir=$1 name=$2 file="$PATCHES/$2" f
	shift 2
	git -C "$dir" apply --index --allow-empty --whitespace=error-all "$file" ||
		die "patches/$BASE/$name does not apply on top of the patches before it"
	if [ -f "$SHARED/$name" ]; then
		git -C "$dir" apply --index --whitespace=error-all "$SHARED/$name" ||
			die "patches/shared/$name does not apply on top of the patches before it"
	fi
	while read -r f; do
		[ -n "$f" ] || continue
		# shellcheck disable=SC2046 # one patch file a word, no spaces under patches/
		unapply "$f" "$REPO/$f" $(later_patches "$name") >"$dir/.git/unapplied" ||
			die "series/new-files: $f cannot be taken back to $name"
		install -D -m 644 "$dir/.git/unapplied" "$dir/$f"
		git -C "$dir" add -f "$f"
	done < <(claimed "$name")
	rm -f "$dir/.git/unapplied"
	awk '/^(---$|--- |Index: |diff )/ { exit } { print }' "$file" |
		git -C "$dir" commit -q --no-verify "$@" -F - ||
		die "patches/$BASE/$name: no changelog header"
}

# Every overlay file is added by exactly one patch, every manifest line
# names a patch of the base's series, and every base's series names the
# same patches: the new files and their hunks in patches/shared/ go by name.
check_manifest() {
	local have want p b manifest="$REPO/series/new-files"
	[ -f "$manifest" ] || die "no series/new-files"
	for b in $BASES; do
		[ -f "$REPO/patches/$b/series" ] || continue
		[ "$(patch_names "$REPO/patches/$b/series")" = "$(patch_names)" ] ||
			die "patches/$b/series and patches/$BASE/series name different patches: the bases share the new files and patches/shared/ by name, so rename or add the patch on both (git mv and the series file)"
	done
	while read -r p; do
		patch_names | grep -qxF "$p" || die "series/new-files names $p, which is not in patches/$BASE/series"
	done < <(patch_names "$manifest")
	have=$(for p in $(patch_names); do claimed "$p"; done | LC_ALL=C sort)
	want=$(overlay_files)
	[ -z "$(printf '%s\n' "$have" | uniq -d)" ] ||
		die "series/new-files gives these files to more than one patch: $(printf '%s\n' "$have" | uniq -d | tr '\n' ' ')"
	[ "$have" = "$want" ] ||
		die "series/new-files and the overlay differ: $(diff <(echo "$want") <(echo "$have") | sed -n 's/^[<>] //p' | tr '\n' ' ')"
}

# overlay_files: the new files kept here at their kernel paths.
overlay_files() {
	# shellcheck disable=SC2086 # a list of directories, some absent
	(cd "$REPO" && find $OVERLAY_DIRS -type f 2>/dev/null | LC_ALL=C sort)
}

# tree_stamp SRC: what build/linux is made from: the source, the series,
# the overlay.
tree_stamp() {
	local p
	{
		echo "$1"
		kernel_version "$1"
		cat "$PATCHES/series" "$REPO/series/new-files" 2>/dev/null || true
		# The patches of the series only: a stray backup file is no change.
		(cd "$PATCHES" && patch_names | xargs -r sha256sum)
		for p in $(patch_names); do
			[ ! -f "$SHARED/$p" ] || sha256sum "$SHARED/$p"
		done
		(cd "$REPO" && overlay_files | xargs -r sha256sum)
	} | sha256sum | cut -d' ' -f1
}

# Who makes build/linux's commits, which are scratch: make writeback keeps
# their messages and changes, not who made or signed them.
TREE_IDENTITY=(GIT_AUTHOR_NAME="make tree" GIT_AUTHOR_EMAIL=tree@invalid
	GIT_COMMITTER_NAME="make tree" GIT_COMMITTER_EMAIL=tree@invalid)
# tree_git ARG...: git in build/linux, as TREE_IDENTITY.
tree_git() {
	env "${TREE_IDENTITY[@]}" git -C "$TREE" -c core.autocrlf=false -c commit.gpgsign=false "$@"
}

# tree_work: what build/linux holds that make writeback would not carry
# back or a remake would drop, a line each: changes not committed and
# files git does not track (the source's .gitignore ignores its top level,
# so ignored files count too: builds use O=), an operation under way, a
# detached HEAD, stashes and other branches. Commits are the caller's.
tree_work() {
	local gd op
	tree_git status --porcelain --untracked-files=all --ignored=traditional | sed 's/^/  /'
	gd=$(tree_git rev-parse --git-dir)
	case "$gd" in /*) ;; *) gd="$TREE/$gd" ;; esac
	for op in rebase-merge rebase-apply MERGE_HEAD CHERRY_PICK_HEAD REVERT_HEAD BISECT_LOG; do
		[ ! -e "$gd/$op" ] || echo "  $op: an operation under way (finish or abort it)"
	done
	tree_git symbolic-ref -q HEAD >/dev/null || echo "  HEAD detached (check out the branch)"
	tree_git stash list | sed 's/^/  stash: /'
	tree_git for-each-ref --format='  branch %(refname:short)' refs/heads |
		grep -vxF "  branch $(tree_git symbolic-ref -q --short HEAD || true)" || true
}

# own_tree: KSRC is a tree of one's own that carries the series already (a
# branch it was applied to or is developed on), told by any overlay file
# being there: it is built as it is, and no tree is made from it.
own_tree() {
	local f
	[ -n "${KSRC:-}" ] && [ -d "$KSRC" ] || return 1
	while read -r f; do
		[ ! -e "$KSRC/$f" ] || return 0
	done < <(overlay_files)
	return 1
}
# not_own_tree WHAT: stop where WHAT needs the series applied to KSRC here.
not_own_tree() {
	! own_tree || die "KSRC=$KSRC carries the series already; $1. Unset KSRC, or point it at a tree without the series"
}
if own_tree; then
	TREE=$(ksrc)
fi
