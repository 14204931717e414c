#!/usr/bin/env bash
# What the series adds to vmlinux: scripts/bloat-o-meter on the unpatched
# base and the patched tree, both built as the `bench` flavour.
set -eu
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

"$REPO/harness/build-kernel.sh" bench "$(ksrc)" "$BUILD/kernel-base"
"$REPO/harness/prepare-tree.sh"
"$REPO/harness/build-kernel.sh" bench
"$TREE/scripts/bloat-o-meter" "$BUILD/kernel-base/vmlinux" "$(kernel_dir bench)/vmlinux"
