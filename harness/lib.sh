# shellcheck shell=bash
# Shared helpers and paths for the harness scripts. Sourced, never run.

# shellcheck disable=SC2034 # used by the scripts that source this file
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD="$REPO/build"
# The patched tree every flavour is built from (with O=, so it stays clean).
# shellcheck disable=SC2034
TREE="$BUILD/linux"
# Directories of the repo that are copied over the tree at their kernel paths.
# shellcheck disable=SC2034
OVERLAY_DIRS="kernel include Documentation tools/testing/selftests/sched"
# Debian's interpreter, which has the python3-* packages deps.sh installs
# (a python3 earlier in PATH, e.g. pyenv's, may lack them).
# shellcheck disable=SC2034
PYTHON=/usr/bin/python3

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
		echo "$BUILD/src/linux-source-6.12"
	fi
}

# "6.12.117" from a tree's top Makefile.
kernel_version() {
	make -s -C "$1" kernelversion 2>/dev/null ||
		die "cannot read the kernel version of $1: is it a kernel tree?"
}

kernel_dir() { echo "$BUILD/kernel-$1"; }

check_flavour() {
	case "$1" in
	bench | test) ;;
	*) die "unknown FLAVOUR=$1: use bench or test" ;;
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

# tap STATUS DESCRIPTION [DETAILS]: one TAP line on stdout, numbered from 1;
# on a failure DETAILS follow as comments and tap_failed counts it.
tap_n=0
tap_failed=0
tap() {
	tap_n=$((tap_n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $tap_n $2"
	else
		tap_failed=$((tap_failed + 1))
		echo "not ok $tap_n $2"
		[ -z "${3:-}" ] || printf '%s\n' "$3" | head -20 | sed 's/^/#   /'
	fi
}

# base_repo DIR: a git repository of the pristine source, one commit tagged
# "base" (Debian's source carries a .gitignore that ignores the top level).
base_repo() {
	local dir=$1 src
	src=$(ksrc)
	rm -rf "$dir"
	mkdir -p "$dir"
	rsync -a --exclude=.git --exclude=.pc "$src/" "$dir/"
	git -C "$dir" init -q
	git -C "$dir" add -A -f
	git -C "$dir" commit -q --no-verify -m "Linux $(kernel_version "$src")"
	git -C "$dir" tag base
}

# What ACCEL=$1 (default auto) means here: kvm or tcg. /dev/kvm on our
# machines can be a PVM device that hangs a normal kernel, so auto takes KVM
# only where the CPU advertises hardware virtualisation.
resolve_accel() {
	case "${1:-auto}" in
	auto)
		if grep -qwE 'vmx|svm' /proc/cpuinfo && [ -w /dev/kvm ]; then
			echo kvm
		else
			echo tcg
		fi
		;;
	*) echo "$1" ;;
	esac
}

# check_mails TREE DIR: checkpatch --strict on every patch mail in DIR, run
# in the kernel tree TREE, and a maintainer for every file the mails add
# (instead of checkpatch's FILE_PATH_CHANGES question); TAP lines.
check_mails() {
	local tree=$1 dir=$2 mail out f rc
	for mail in "$dir"/0*.patch; do
		case "$mail" in */0000-cover-letter.patch) continue ;; esac
		out=$(cd "$tree" && perl scripts/checkpatch.pl --strict --quiet --no-summary \
			--show-types --ignore FILE_PATH_CHANGES "$mail" 2>&1) && rc=0 || rc=1
		tap "$rc" "checkpatch --strict ${mail##*/}" "$out"
	done
	out=""
	while read -r f; do
		(cd "$tree" && perl scripts/get_maintainer.pl --no-git -f "$f" 2>/dev/null |
			grep -q '(maintainer:') || out+="$f has no maintainer"$'\n'
	done < <(sed -n '/^--- \/dev\/null$/{n;s|^+++ b/||p}' "$dir"/0*.patch)
	[ -z "$out" ] && rc=0 || rc=1
	tap "$rc" "MAINTAINERS has a maintainer for every file the series adds" "$out"
}
