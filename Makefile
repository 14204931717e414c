# WF_SYNC wakeup placement (SYNC_PAIR_AFFINE) on Debian's 6.12 kernel:
# patch, build, boot in QEMU, test, benchmark. `make help` lists the targets.

FLAVOUR ?= bench
TOPO    ?= flat
ACCEL   ?= auto
export KSRC FLAVOUR TOPO ACCEL CMD APPEND TIMEOUT TOPOS TESTS
export STRESS_SECS DURATION SERIES_BUILDS TCG_THREAD
export ROUNDS ARMS WORKLOADS QUICK BOOTS BASELINE NOBUILD CLOCK
export PIPE_LOOPS MSG_LOOPS HB_LOOPS SOCK_SECS SOCK_PORT TB_SECS UDP_SECS UDP_PORT
# HOST only from the command line: some shells export HOST=<hostname>.
override HOST := $(if $(filter command line,$(origin HOST)),$(HOST),)
export BASECONFIG LOCALMODCONFIG LSMOD DBG HOST CLONE_TARGET CLONE_USER DISCARD_TREE

H := harness

.PHONY: help vars deps source tree kernel selftests vm check check-clones stress series series-check lint bloat bench bench-overhead deb clean

help:
	@echo 'Targets (each installs missing Debian packages first; run as root):'
	@echo '  check           build the debug kernel, boot it on flat, smt and llc2, run the'
	@echo '                  selftests and static checks; ends with "N passed, N failed"'
	@echo '  check-clones    the committed HEAD cloned into root'"'"'s home, CLONE_USER'"'"'s home'
	@echo '                  (CLONE_USER=swclone, made with a mode-700 home if missing and'
	@echo '                  left), /var/tmp and a path with a space; CLONE_TARGET=check'
	@echo '                  (or lint) in each with a clean environment: 4 times a check'
	@echo '  stress          torture the debug kernel for DURATION=15 minutes on TOPOS="flat'
	@echo '                  llc2" (or TOPO=x): policy flips, hotplug, affinity, stress-ng'
	@echo '  bench           A/B every policy in one boot of the bench kernel; tables and'
	@echo '                  plot in results/<date-time>/ (QUICK=1: a smoke run of minutes;'
	@echo '                  HOST=1: on the running kernel, no VM)'
	@echo '  deb             Debian packages of the patched kernel for a real machine in'
	@echo '                  build/deb/: bindeb-pkg, BASECONFIG + .config.fragment'
	@echo '  bench-overhead  unpatched kernel against patched with the feature off,'
	@echo '                  alternating BOOTS pairs of boots (pipe and messaging)'
	@echo '  series          the RFC mails in build/series/out/, generated from patches/'
	@echo '                  (order, changelogs, upstream hunks), series/new-files (which'
	@echo '                  patch adds which new file) and series/cover-letter; signed off'
	@echo '                  by your git identity'
	@echo '  series-check    git am onto the base, checkpatch, a build after each patch,'
	@echo '                  W=1 and sparse in 6 configs against the base (SERIES_BUILDS=no:'
	@echo '                  the first two only)'
	@echo '  vm CMD=...      boot FLAVOUR=bench|test on TOPO=flat|smt|llc2 and run CMD'
	@echo '  kernel          build FLAVOUR (bench: allnoconfig + configs/guest.fragment'
	@echo '                  + .config.fragment;'
	@echo '                  test: bench + configs/debug.fragment)'
	@echo '  tree            build/linux = source + patches/series + overlay files'
	@echo '  selftests       build tools/testing/selftests/sched/* into build/kselftest'
	@echo '  lint            make series + checkpatch --strict on its mails, MAINTAINERS,'
	@echo '                  docutils, shellcheck (TAP)'
	@echo '  bloat           scripts/bloat-o-meter: unpatched base against patched vmlinux'
	@echo '  source          unpack /usr/src/linux-source-6.12.tar.xz under build/src'
	@echo '  deps            apt-get install what is missing'
	@echo '  clean           remove build/'
	@echo 'Variables: KSRC=/path/to/linux  FLAVOUR=bench|test  TOPO=flat|smt|llc2'
	@echo '           DISCARD_TREE=1 (remake build/linux even if it holds work not'
	@echo '           written back to patches/ or the overlay; without it, a refusal)'
	@echo '           ACCEL=auto|kvm|tcg  APPEND="kernel args"  TIMEOUT=seconds'
	@echo 'Check:     TOPOS="flat smt llc2"  STRESS_SECS=60 (torture in each boot; 0: none)'
	@echo 'Bench:     ROUNDS=5  ARMS="off hint-only ..."  WORKLOADS="pipe msg-thread-g2 ..."'
	@echo '           QUICK=1  BASELINE=hint-only  BOOTS=3  NOBUILD=1 (boot what is built)'
	@echo '           CLOCK=auto|icount|host (auto: icount, QEMU counting instructions,'
	@echo '           under single-threaded TCG; host time under KVM or TCG_THREAD=multi)'
	@echo '           bench/guest-bench.sh --check lists the workloads and their commands'
	@echo 'Deb:       BASECONFIG=/boot/config-$$(uname -r)  LOCALMODCONFIG=1 (loaded modules only)'
	@echo '           LSMOD=file (lsmod of the target machine)  DBG=1 (also the -dbg package)'

# Every target checks the variables first, before any work.
vars:
	@$(H)/check-vars.sh

deps: vars
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

bloat: source
	@$(H)/bloat.sh

check: source
	@$(H)/check.sh

check-clones: vars
	@$(H)/check-clones.sh

# TOPO=x on the command line narrows the stress run to one topology.
stress: source
	@TOPOS="$(if $(filter command line environment,$(origin TOPO)),$(TOPO),$(TOPOS))" stress/run.sh

series: source
	@$(H)/series.sh

series-check: source
	@$(H)/series-check.sh

# The bench scripts check their variables first, then install what they
# need, unpack and build (HOST=1: only the benchmark's tools). TOPOS on the
# command line, else a TOPO given, else TOPOS.
bench: vars
	@TOPOS="$(if $(filter command line,$(origin TOPOS)),$(TOPOS),$(if $(filter command line environment,$(origin TOPO)),$(TOPO),$(TOPOS)))" bench/run.sh

bench-overhead: vars
	@bench/overhead.sh

deb: tree
	@$(H)/deb.sh

clean:
	rm -rf build
