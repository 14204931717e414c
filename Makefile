# WF_SYNC wakeup placement (SYNC_PAIR_AFFINE) on Debian's 6.12 kernel:
# patch, build, boot in QEMU, test, benchmark. `make help` lists the targets.

FLAVOUR ?= bench
ACCEL   ?= auto
export KSRC FLAVOUR TOPO ACCEL CMD APPEND TIMEOUT TOPOS TESTS
export STRESS_SECS DURATION SERIES_BUILDS TCG_THREAD
export ROUNDS ARMS WORKLOADS QUICK BOOTS BASELINE NOBUILD CLOCK
export PIPE_LOOPS MSG_LOOPS HB_LOOPS SOCK_SECS SOCK_PORT TB_SECS UDP_SECS UDP_PORT
# HOST only from the command line: some shells export HOST=<hostname>.
override HOST := $(if $(filter command line,$(origin HOST)),$(HOST),)
export BASECONFIG LOCALMODCONFIG LSMOD DBG HOST CLONE_TARGET CLONE_USER DISCARD_TREE A B

H := harness

.PHONY: help vars deps source tree kernel selftests vm check check-clones stress series series-check lint bloat bench bench-overhead compare deb clean

help:
	@cat $(H)/help.txt

# Every target checks the variables first, before any work; those given on
# the command line must be ours.
vars:
	@$(H)/check-vars.sh $(foreach v,$(.VARIABLES),$(if $(filter command line,$(origin $(v))),$(v)))

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

# Two results directories side by side: results/<date-time>-compare/.
compare: deps
	$(if $(and $(A),$(B)),,$(error make compare needs A=DIR and B=DIR, two results directories (raw.csv in each), e.g. A=results/reference/flat B=results/<date-time>))
	@/usr/bin/python3 bench/compare.py --names "$(notdir $(abspath $(A)))" "$(notdir $(abspath $(B)))" \
		--a "$(A)" --b "$(B)" --out "results/$$(date +%Y%m%d-%H%M%S)-compare"

deb: tree
	@$(H)/deb.sh

clean:
	rm -rf build
