# WF_SYNC wakeup placement (SYNC_PAIR_AFFINE) on Debian's 6.12 kernel:
# patch, build, boot in QEMU, test, benchmark. `make help` lists the targets.

FLAVOUR ?= bench
TOPO    ?= flat
ACCEL   ?= auto
export KSRC FLAVOUR TOPO ACCEL CMD APPEND TIMEOUT TOPOS TESTS

H := harness

.PHONY: help deps source tree kernel selftests vm check lint bench bench-overhead clean

help:
	@echo 'Targets (each installs missing Debian packages first; run as root):'
	@echo '  check           build the debug kernel, boot it on flat, smt and llc2, run the'
	@echo '                  selftests and static checks; ends with "N passed, N failed"'
	@echo '  bench           A/B every policy in one boot of the bench kernel (issue: make bench)'
	@echo '  bench-overhead  unpatched kernel against patched with the feature off'
	@echo '  vm CMD=...      boot FLAVOUR=bench|test on TOPO=flat|smt|llc2 and run CMD'
	@echo '  kernel          build FLAVOUR (bench: defconfig + .config.fragment;'
	@echo '                  test: bench + configs/debug.fragment)'
	@echo '  tree            build/linux = source + patches/series + overlay files'
	@echo '  selftests       build tools/testing/selftests/sched/* into build/kselftest'
	@echo '  lint            checkpatch --strict, docutils, shellcheck (TAP)'
	@echo '  source          unpack /usr/src/linux-source-6.12.tar.xz under build/src'
	@echo '  deps            apt-get install what is missing'
	@echo '  clean           remove build/'
	@echo 'Variables: KSRC=/path/to/linux  FLAVOUR=bench|test  TOPO=flat|smt|llc2'
	@echo '           ACCEL=auto|kvm|tcg  APPEND="kernel args"  TIMEOUT=seconds'

deps:
	@$(H)/deps.sh

source: deps
	@$(H)/source.sh

tree: source
	@$(H)/prepare-tree.sh

kernel: tree
	@$(H)/build-kernel.sh $(FLAVOUR)

selftests: tree
	@$(H)/build-selftests.sh

vm: kernel
	@vm/run.sh

lint: tree
	@$(H)/lint.sh

check: source
	@$(H)/check.sh

clean:
	rm -rf build
