# shellcheck shell=sh disable=SC2034
# The facts more than one script needs, each stated once. Sourced by the
# shell scripts (harness/lib.sh for the host, the guest scripts directly)
# and read by bench/defs.py (for the runner and analyze.py): NAME='value'
# lines only, no expansion and no code, so that both sides read the same.

# kernel.sched_sync_wakeup_policy's policies, in the kernel's order: every
# make check boot compares them with available_policies (guest-check.sh).
# The bench's arms are "off" (SYNC_PAIR_AFFINE off), then these.
POLICIES='hint-only waker-if-alone reciprocal-only no-sync reciprocal-strict honest-waker'
# Upstream's placement with the feature on: what every arm is compared with.
BASELINE_ARM='hint-only'

# The kernels the series is for (BASE), unless KSRC names a tree: the
# default, the thread's own kernel, and 6.12, the LTS backport for the
# distributions that ship it. Each is Debian's source package of that
# version: the host's own archive installs it (SUITE empty) or make source
# fetches it from SUITE of Debian's archive into build/, without touching
# the host's apt sources. A base has its own patches/<BASE>/ (the hunks to
# upstream files) and configs/<BASE>.fragment; the new files are shared.
BASES='7.3 6.12'
BASE_DEFAULT='7.3'
DEBIAN_SOURCE_7_3='linux-source-7.3'
DEBIAN_VERSION_7_3='7.3.4-1~bpo13+1'
DEBIAN_SUITE_7_3='trixie-backports'
DEBIAN_SOURCE_6_12='linux-source-6.12'
DEBIAN_VERSION_6_12=''
DEBIAN_SUITE_6_12=''

# The kernels make kernel builds (FLAVOUR): bench, allnoconfig and the
# fragments; test, bench with the debug checkers; rt, bench with PREEMPT_RT.
FLAVOURS='bench test rt'

# The guests' architectures (ARCH): each has its own kernels, selftests,
# QEMU and topologies. x86_64 boots the host's root; arm64 a Debian root
# of its own (vm/guest-root.sh), where the packages below are all it has.
ARCHES='x86_64 arm64'
ARCH_DEFAULT='x86_64'
IMAGE_x86_64='arch/x86/boot/bzImage'
IMAGE_arm64='arch/arm64/boot/Image'
QEMU_x86_64='qemu-system-x86_64'
QEMU_arm64='qemu-system-aarch64'
CROSS_COMPILE_arm64='aarch64-linux-gnu-'
CONSOLE_x86_64='ttyS0'
CONSOLE_arm64='ttyAMA0'
# What the build host needs for each (harness/deps.sh); fdtput is in
# device-tree-compiler, qemu-user-static runs the root's package scripts.
HOST_PACKAGES_x86_64='qemu-system-x86'
HOST_PACKAGES_arm64='qemu-system-arm gcc-aarch64-linux-gnu mmdebstrap qemu-user-static device-tree-compiler'
ROOT_PACKAGES_arm64='procps iproute2 kmod util-linux systemd-sysv python3 linux-perf stress-ng rt-tests sockperf dbench iperf3'

# The guest topologies: QEMU's -smp, and what the guest must then see (CPUs,
# SMT active, packages, cpu0's scheduling domains), checked in every make
# check boot (with the CPUs' capacities too where CAPACITY_<topo> sets
# them). Each belongs to one ARCH.
TOPOLOGIES_x86_64='flat smt llc2'
TOPOLOGIES_arm64='cls2 asym'
SMP_flat='2,sockets=1,cores=2,threads=1'
SMP_smt='4,sockets=1,cores=2,threads=2'
SMP_llc2='4,sockets=2,cores=2,threads=1'
SEEN_flat='cpus=2 smt=0 packages=1 domains=MC'
SEEN_smt='cpus=4 smt=1 packages=1 domains=SMT MC'
SEEN_llc2='cpus=4 smt=0 packages=2 domains=MC PKG'
# v4's platform (Ampere Altra): no SMT, clusters in one LLC. asym is cls2
# with CPUs 0-1 big and 2-3 little: capacity-dmips-mhz in QEMU's device
# tree (vm/run.sh), one value per CPU.
SMP_cls2='4,sockets=1,clusters=2,cores=2,threads=1'
SMP_asym='4,sockets=1,clusters=2,cores=2,threads=1'
SEEN_cls2='cpus=4 smt=0 packages=1 domains=CLS MC'
SEEN_asym='cpus=4 smt=0 packages=1 domains=CLS MC'
CAPACITY_asym='1024 1024 512 512'
# What each target boots unless TOPO or TOPOS says otherwise, per ARCH.
TOPO_DEFAULT_x86_64='flat'
TOPOS_CHECK_x86_64='flat smt llc2'
TOPOS_STRESS_x86_64='flat llc2'
TOPO_DEFAULT_arm64='cls2'
TOPOS_CHECK_arm64='cls2 asym'
# The targets for ARCH_DEFAULT guests only: make refuses them for another
# ARCH before any work (harness/check-vars.sh), their scripts when run.
DEFAULT_ARCH_TARGETS='deb check-rt series-check stress bench-overhead check-clones bloat'

# bench/guest-bench.py's workloads, in the tables' order: the pipe pair
# (free, on CPUs 0-1, pinned to CPU 0), perf's messaging and hackbench
# (threads, processes; 1, 2, 4 groups), loopback TCP (sockperf), tbench at
# 1, nproc and 2 x nproc clients and a UDP stream: the cases that decided
# the 2022 thread (docs/findings.md).
WORKLOADS_ALL='pipe pipe-cpu01 pipe-cpu0
msg-thread-g1 msg-thread-g2 msg-thread-g4 msg-process-g1 msg-process-g2 msg-process-g4
hackbench-thread-g1 hackbench-thread-g2 hackbench-thread-g4
hackbench-process-g1 hackbench-process-g2 hackbench-process-g4
sockperf tbench-1 tbench-nproc tbench-2nproc udp-stream'

# Workloads make bench runs only when WORKLOADS names them: pair-stream runs
# the pipe pair and the UDP stream at once, each in a cpu cgroup of its
# own (cgroup v2), for the per-group policy (docs/findings.md).
WORKLOADS_EXTRA='pair-stream'
# The arm make bench runs only when ARMS names it: "groups", the sysctl at
# hint-only and pair-stream's two groups set to these policies (the pair's,
# the stream's) in cpu.sync_wakeup; under every other arm they inherit.
GROUPS_ARM='reciprocal-only no-sync'

# raw.csv: a row per run and metric, these columns, then the run's placement
# profile: its operations ("ops"), STATS_COUNTERS (deltas of
# sync_wakeup_stats) and SYSTEM_COUNTERS (whole-system deltas; what each
# is: bench/guest-bench.py).
CSV_COLUMNS='round workload arm metric value unit better sync_wakeups kept_on_waker_cpu declined_total hint_dropped'
STATS_COUNTERS='landed_waker_cpu landed_smt_sibling landed_same_llc landed_other_llc promise_kept promise_broken context_task context_softirq_bh context_softirq context_hardirq promise_unjudged probe'
SYSTEM_COUNTERS='ipi_resched ipi_call ctx_switches ttwu_count ttwu_local ttwu_wake_remote ttwu_move_affine lb_migrations run_delay_ns'
# The decisions between each run's main pair, from the trace (make bench
# PAIRS=1; bench/guest-bench.py's pair_counts()); empty without it.
PAIR_COUNTERS='pair_sync pair_kept pair_dropped pair_probe'
# The workloads with one such pair (the others' pairs are many and alike).
PAIR_WORKLOADS='pipe pipe-cpu01 pipe-cpu0 sockperf tbench-1 udp-stream'

# TCG's threads unless TCG_THREAD says otherwise: one for every vCPU.
# Multi-threaded TCG oopses when a static key is patched, as every switch
# of SYNC_PAIR_AFFINE does (docs/torture.md), and has no icount clock.
TCG_THREAD_DEFAULT='single'

# The variables the targets read (make help describes each): make refuses
# any other given on its command line.
VARIABLES='ARCH BASE KSRC FLAVOUR TOPO TOPOS ACCEL TCG_THREAD CLOCK APPEND TIMEOUT CMD
TESTS STRESS_SECS BOOT_TIMEOUT GUEST_JOBS DURATION REPEATS SCHED_FEATURES DISCARD_TREE
CLONE_TARGET CLONE_USER SERIES_BUILDS
ROUNDS ARMS WORKLOADS QUICK PAIRS BASELINE NOBUILD HOST BOOTS SINCE A B
PIPE_LOOPS MSG_LOOPS HB_LOOPS SOCK_SECS SOCK_PORT TB_SECS UDP_SECS UDP_PORT
BASECONFIG LOCALMODCONFIG LSMOD DBG'
# Kbuild's own, passed on to every kernel build (verbosity, warnings,
# sparse, extra compiler flags).
KBUILD_VARIABLES='V W C KCFLAGS'
