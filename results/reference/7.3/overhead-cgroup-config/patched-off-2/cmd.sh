env BENCH_KCONFIG='/work/main/build/kernel-bench/.config' ARMS='off' WORKLOADS='pipe pipe-cpu01 pipe-cpu0' /usr/bin/python3 '/work/main/bench/guest-bench.py'
