# WF_SYNC wakeup placement (SYNC_PAIR_AFFINE) on Debian's 7.3 kernel (6.12 LTS
# backport: BASE=6.12):
# patch, build, boot in QEMU, test, benchmark. `make help` lists the targets.

FLAVOUR ?= bench
ACCEL   ?= auto
# HOST only from the command line: some shells export HOST=<hostname>.
override HOST := $(if $(filter command line,$(origin HOST)),$(HOST),)
# ARCH too: an ARCH exported for other work must not turn make check into
# another architecture's.
override ARCH := $(if $(filter command line,$(origin ARCH)),$(ARCH),)
# BASE too: a BASE in the environment may mean anything.
override BASE := $(if $(filter command line,$(origin BASE)),$(BASE),)
# Variables given on the command line or in the environment reach the
# scripts anyway; these are the ones set here.
export FLAVOUR ACCEL HOST ARCH BASE

H := harness

.PHONY: help vars deps source tree kernel selftests vm check check-clones check-rt repeat stress writeback series series-check lint bloat bench bench-overhead compare deb clean

help:
	@$(H)/help.sh

# Every target checks the variables first, before any work; those given on
# the command line must be ours, unless another make runs this one: it
# passes its own command line on, which is not ours to judge.
vars:
	@GOALS='$(MAKECMDGOALS)' $(H)/check-vars.sh $(if $(filter 0,$(MAKELEVEL)),$(foreach v,$(.VARIABLES),$(if $(filter command line,$(origin $(v))),$(v))))

deps: vars
	@$(H)/deps.sh

source: deps
	@$(H)/source.sh

tree: source
	@$(H)/prepare-tree.sh

writeback: vars
	@$(H)/writeback.sh

kernel: tree
	@$(H)/build-kernel.sh $(FLAVOUR)

selftests: tree
	@$(H)/build-selftests.sh

vm: kernel
	@vm/guest-root.sh
	@vm/run.sh

lint: tree
	@$(H)/lint.sh

bloat: source
	@$(H)/bloat.sh

check: source
	@$(H)/check.sh

check-rt: source
	@$(H)/check-rt.sh

repeat: source
	@$(H)/repeat.sh

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

# Two results directories side by side: results/<date-time>-compare/. Needs
# only Python and scipy.
ifeq ($(filter compare,$(MAKECMDGOALS)),compare)
ifeq ($(and $(A),$(B)),)
$(error make compare needs A=DIR and B=DIR, two results directories (raw.csv in each), e.g. A=results/reference/7.3/flat B=results/<date-time>/flat)
endif
endif
compare: vars
	@$(H)/deps.sh --only python3 python3-scipy
	@/usr/bin/python3 bench/compare.py --a "$(A)" --b "$(B)" --out "results/$$(date +%Y%m%d-%H%M%S)-compare"

deb: tree
	@$(H)/deb.sh

clean:
	rm -rf build
