#!/usr/bin/env python3
"""Runs inside the bench guest (see bench/run.sh): A/B every WF_SYNC
placement arm in this one boot.

Arms: `off` (SYNC_PAIR_AFFINE off) and the feature on with each policy. One
discarded warm-up run per workload, then ROUNDS rounds; in every round each
workload runs under every arm, the arm order rotated by one per round.
Before a run the arm is set and the counters reset, after it the counters
are read. One CSV row per run and metric goes to $RESULTS/raw.csv, progress
lines to $RESULTS/progress, the run's settings and exact command lines to
$RESULTS/meta.txt, every run's output to $RESULTS/runs.log.

Usage: guest-bench.py           run (as root, in the guest)
       guest-bench.py --check   check the variables and print the plan
Environment:
  RESULTS     writable result directory (the guest's /mnt)
  ROUNDS      rounds (default 5; QUICK=1: 1)
  ARMS        subset of: off, then the POLICIES of harness/definitions.sh
              (default all, in that order), and groups (GROUPS_ARM there:
              the sysctl at hint-only, pair-stream's groups set apart)
  WORKLOADS   subset of the workloads listed by --check (default all),
              and WORKLOADS_EXTRA's pair-stream
  QUICK       1 = smoke-test sizes
  PAIRS       1 = count each run's main pair's own decisions from the
              sched:sched_sync_wakeup trace event (its cost is in the
              run's time: a placement pass, not a timing one)
  PIPE_LOOPS MSG_LOOPS HB_LOOPS SOCK_SECS SOCK_PORT TB_SECS UDP_SECS
  UDP_PORT    workload sizes and ports (defaults: bench/workloads.py)
A kernel without the feature (the unpatched base) can run ARMS=off: the
scheduler files are then left alone and the counters recorded empty.
BENCH_FEATURES, BENCH_POLICY, BENCH_STATS override the kernel file paths
(for testing on a host against plain files). BENCH_SIDE (guest, or host
for make bench HOST=1) prefixes the machine's lines in meta.txt;
BENCH_KCONFIG names the running kernel's config where neither
/proc/config.gz nor /boot has it (the bench kernel's, for the guest).

Everything done once per run stays in this process: under TCG a fork and
exec costs 75-150 ms, more than some of the workloads.
"""
import collections
import gzip
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import workloads as wl
from defs import DEFS

ARMS_ALL = ["off"] + DEFS["POLICIES"]
# pair-stream's cpu cgroups under cgroup v2's root, by workload part.
BENCH_GROUPS = {"pair": "bench-pair", "stream": "bench-stream"}
STATS_COUNTERS = DEFS["STATS_COUNTERS"]
SYSTEM_COUNTERS = DEFS["SYSTEM_COUNTERS"]
PAIR_COUNTERS = DEFS["PAIR_COUNTERS"]

FEATURES = os.environ.get("BENCH_FEATURES", "/sys/kernel/debug/sched/features")
POLICY = os.environ.get("BENCH_POLICY", "/proc/sys/kernel/sched_sync_wakeup_policy")
STATS = os.environ.get("BENCH_STATS", "/sys/kernel/debug/sched/sync_wakeup_stats")
TRACING = os.environ.get("BENCH_TRACING", "/sys/kernel/tracing")


class Stop(Exception):
    """The bench cannot go on; the message says why."""


def die(msg):
    raise Stop(msg)


def check_list(name, value, valid):
    items = value.split()
    if not items:
        die(f"{name} is empty: pick from: {' '.join(valid)}")
    for i, w in enumerate(items):
        if w not in valid:
            die(f"unknown {name} entry '{w}': pick from: {' '.join(valid)}")
        if w in items[:i]:
            die(f"{name} names '{w}' twice")
    return items


def count(name, value):
    if not re.fullmatch(r"[1-9][0-9]*", value):
        die(f"{name}={value} is not a positive integer")
    return int(value)


def settings(env):
    """The run's settings from the environment, checked: a dict."""
    quick = env.get("QUICK") or "0"
    if quick not in wl.SIZES:
        die(f"QUICK={quick}: use 0 or 1")
    s = {"QUICK": quick}
    s["PAIRS"] = env.get("PAIRS") or "0"
    if s["PAIRS"] not in ("0", "1"):
        die(f"PAIRS={s['PAIRS']}: use 0 or 1")
    for name, default in list(wl.SIZES[quick].items()) + list(wl.PORTS.items()):
        s[name] = count(name, env.get(name) or str(default))
    if s["TB_SECS"] < 2:
        die(f"TB_SECS={s['TB_SECS']}: tbench reports throughput once a second; use 2 or more")
    if len({s["SOCK_PORT"], s["UDP_PORT"], wl.TBENCH_PORT}) < 3:
        die(f"SOCK_PORT={s['SOCK_PORT']} and UDP_PORT={s['UDP_PORT']} must differ from "
            f"each other and from tbench's {wl.TBENCH_PORT}")
    s["arms"] = check_list("ARMS", env.get("ARMS") or " ".join(ARMS_ALL), ARMS_ALL + ["groups"])
    s["workloads"] = check_list("WORKLOADS", env.get("WORKLOADS") or
                                " ".join(DEFS["WORKLOADS_ALL"]),
                                DEFS["WORKLOADS_ALL"] + DEFS["WORKLOADS_EXTRA"])
    if s["PAIRS"] == "1" and not set(s["workloads"]) & set(DEFS["PAIR_WORKLOADS"]):
        die("PAIRS=1 counts the pairs of single-pair workloads only: add one of "
            f"{' '.join(DEFS['PAIR_WORKLOADS'])} to WORKLOADS")
    if "groups" in s["arms"] and "pair-stream" not in s["workloads"]:
        die("ARMS=groups sets pair-stream's groups apart: add pair-stream to WORKLOADS")
    nproc = len(os.sched_getaffinity(0))
    s["cmd"] = {w: wl.family(w).command(w, s, nproc) for w in s["workloads"]}
    s["runs"] = s["ROUNDS"] * len(s["arms"]) * len(s["workloads"])
    return s


def read_line(path):
    with open(path, encoding="utf-8") as f:
        return f.readline().rstrip("\n")


def write(path, text, what):
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    except OSError as e:
        die(f"cannot write {what} to {path}: {e.strerror}")


# --- the kernel's knobs ---------------------------------------------------

def feature_present():
    return os.path.exists(POLICY)


def feature_on():
    """What debugfs sched/features says now: True for on."""
    try:
        line = f" {read_line(FEATURES)} "
    except OSError:
        die(f"cannot read {FEATURES}")
    if " NO_SYNC_PAIR_AFFINE " in line:
        return False
    if " SYNC_PAIR_AFFINE " in line:
        return True
    die(f"{FEATURES} does not list SYNC_PAIR_AFFINE: is this the patched kernel?")


def set_arm(arm):
    """off, or the feature on with the policy ARM; verified by reading back."""
    if not feature_present():
        if arm != "off":
            die(f"arm {arm} needs the SYNC_PAIR_AFFINE kernel: {POLICY} is missing")
        return
    if arm == "off":
        write(FEATURES, "NO_SYNC_PAIR_AFFINE", "NO_SYNC_PAIR_AFFINE")
        if feature_on():
            die(f"SYNC_PAIR_AFFINE stayed on after writing NO_SYNC_PAIR_AFFINE to {FEATURES}")
        return
    # groups: the groups' own policies decide (Bench.set_groups()).
    policy = "hint-only" if arm == "groups" else arm
    write(POLICY, policy, f"policy {policy}")
    now = read_line(POLICY)
    if now != policy:
        die(f"{POLICY} reads '{now}' after writing {policy}")
    write(FEATURES, "SYNC_PAIR_AFFINE", "SYNC_PAIR_AFFINE")
    if not feature_on():
        die(f"SYNC_PAIR_AFFINE stayed off after writing it to {FEATURES}")


def reset_counters():
    if feature_present():
        write(STATS, "0", "a reset of the counters")


def read_counters():
    """sync_wakeups, kept, declined (the sum of declined_*), hint_dropped and
    STATS_COUNTERS, as strings; all empty without the feature."""
    c = dict.fromkeys(["sync", "kept", "declined", "dropped"] + STATS_COUNTERS, "")
    if not feature_present():
        return c
    declined, n = 0, 0
    with open(STATS, encoding="utf-8") as f:
        for line in f:
            name, _, value = line.strip().partition(" ")
            value = value.strip()
            # promise_pending is a signed in-flight count, not a total.
            if name == "promise_pending":
                continue
            if not value.isdigit():
                die(f"counter '{name}' in {STATS} reads '{value}', want a number")
            key = {"sync_wakeups": "sync", "kept_on_waker_cpu": "kept",
                   "hint_dropped": "dropped", "probe": "probe"}.get(name)
            if name.startswith(("landed_", "promise_", "context_")):
                key = name
            if key:
                c[key] = value
                n += 1
            elif name.startswith("declined_"):
                declined += int(value)
    if n != 3 + len(STATS_COUNTERS):
        die(f"{STATS} lacks some of sync_wakeups, kept_on_waker_cpu, hint_dropped, "
            f"{' '.join(STATS_COUNTERS)}")
    c["declined"] = str(declined)
    return c


# --- the main pair's own decisions (PAIRS=1) ---------------------------------

# A sched_sync_wakeup line of the trace (patch 0013): the task the line
# names is the waker (current; in a softirq_bh decision, the sender whose
# local_bh_enable() ran the receive path), comm and pid the wakee's. Only
# decisions with a waker (task and softirq_bh context) have a pair.
EVENT = " sched_sync_wakeup: "
DECISION = re.compile(r"^\s*.*-(\d+)\s+\[\d+\] .*\ssched_sync_wakeup: comm=.* pid=(\d+) "
                      r"policy=\S+ verdict=(\S+) ctx=(\S+) ")


def pair_counts(lines):
    """PAIR_COUNTERS of one run from its trace's lines: the decisions between
    the two tasks with the most decisions between them, both ways (a pipe's
    or sockperf's pair; the UDP sender and its receiver), so that the
    workload's setup, its exit and its servers' other wakeups do not count.
    Stops at a decision's line it cannot read (another trace format)."""
    pairs = collections.defaultdict(collections.Counter)
    for line in lines:
        if EVENT not in line:
            continue
        m = DECISION.match(line)
        if not m:
            die(f"cannot read the trace's line '{line.strip()}': another trace format "
                "(a trace option of the bench-pairs instance)?")
        waker, wakee, verdict, ctx = m.groups()
        if ctx in ("task", "softirq_bh"):
            pairs[frozenset((waker, wakee))][verdict] += 1
    # The first of equals in the trace's order: a tie is decided the same
    # way on every reading.
    top = max(pairs.values(), key=lambda c: sum(c.values()), default=collections.Counter())
    return {"pair_sync": str(sum(top.values())), "pair_kept": str(top["kept_on_waker_cpu"]),
            "pair_dropped": str(top["hint_dropped"]), "pair_probe": str(top["probe"])}


def trace_lost(trace):
    """Events the trace instance's buffers lost since it was last cleared,
    over every CPU: overwritten, dropped when full, or lost in a commit."""
    lost = 0
    cpus = os.path.join(trace, "per_cpu")
    for cpu in os.listdir(cpus):
        with open(os.path.join(cpus, cpu, "stats"), encoding="utf-8") as f:
            lost += sum(int(v) for k, _, v in (line.partition(":") for line in f)
                        if k in ("overrun", "commit overrun", "dropped events"))
    return lost


# --- the system's own counters, around every run -----------------------------

# /proc/schedstat's domain lines by version: the words before the counters
# (the span; version 17 names the domain first) and the load-balance
# counters per idle type (17 split lb_imbalance in four). After the three
# idle types: alb_count, alb_failed, alb_pushed, three sbe, three sbf,
# ttwu_wake_remote, ttwu_move_affine. Documentation/scheduler/sched-stats.rst.
SCHEDSTAT_LAYOUTS = {"version 16": (1, 8, 4), "version 17": (2, 11, 7)}


def sample_system(schedstat):
    """Whole-system counters now (SYSTEM_COUNTERS): IPIs (rescheduling;
    function calls, how a wakelisted wakeup arrives), context switches, and,
    given the layout of /proc/schedstat (SCHEDSTAT_LAYOUTS), wakeups, wakeups
    on the waking CPU, wakeups of a task last on another CPU, wake_affine()
    moves, load-balance migrations and the wait of runnable tasks (ns). None
    where not counted."""
    s = dict.fromkeys(SYSTEM_COUNTERS)
    # By the description, the same on every architecture (x86 names the
    # lines RES: and CAL:, arm64 IPI0: and IPI1:).
    ipis = {"Rescheduling interrupts": "ipi_resched", "Function call interrupts": "ipi_call"}
    with open("/proc/interrupts", encoding="utf-8") as f:
        for line in f:
            _, *rest = line.split() or [""]
            total, words = 0, iter(rest)
            for w in words:
                if not w.isdigit():
                    break
                total += int(w)
            key = ipis.get(" ".join([w] + list(words)) if rest else "")
            if key:
                s[key] = total
    with open("/proc/stat", encoding="utf-8") as f:
        for line in f:
            if line.startswith("ctxt "):
                s["ctx_switches"] = int(line.split()[1])
    if schedstat:
        with open("/proc/schedstat", encoding="utf-8") as f:
            s.update(schedstat_counts(f, schedstat))
    return s


def schedstat_counts(lines, layout):
    """The SYSTEM_COUNTERS /proc/schedstat gives, summed over CPUs and
    domains, from its lines in the layout of SCHEDSTAT_LAYOUTS."""
    lead, per_type, gained = layout
    after_lb = lead + 3 * per_type
    c = dict.fromkeys(("ttwu_count", "ttwu_local", "ttwu_wake_remote", "ttwu_move_affine",
                       "lb_migrations", "run_delay_ns"), 0)
    for line in lines:
        name, *f_ = line.split() or [""]
        if re.match(r"cpu[0-9]", name):
            c["ttwu_count"] += int(f_[4])
            c["ttwu_local"] += int(f_[5])
            c["run_delay_ns"] += int(f_[7])
        elif re.match(r"domain[0-9]", name):
            c["ttwu_wake_remote"] += int(f_[after_lb + 9])
            c["ttwu_move_affine"] += int(f_[after_lb + 10])
            # Tasks pulled by load balance in each idle type, and pushed
            # by active balance.
            c["lb_migrations"] += sum(int(f_[lead + t * per_type + gained]) for t in range(3))
            c["lb_migrations"] += int(f_[after_lb + 2])
    return c


def system_delta(before, after):
    return {c: "" if before[c] is None or after[c] is None else str(after[c] - before[c])
            for c in SYSTEM_COUNTERS}


def cgroup_root():
    """Where cgroup v2 is mounted; mounted at /sys/fs/cgroup if nowhere."""
    with open("/proc/self/mounts", encoding="utf-8") as f:
        for line in f:
            mnt, kind = line.split()[1:3]
            if kind == "cgroup2":
                return mnt
    if subprocess.run(["mount", "-t", "cgroup2", "cgroup2", "/sys/fs/cgroup"],
                      check=False).returncode:
        die("pair-stream needs cgroup v2, which cannot be mounted at /sys/fs/cgroup")
    return "/sys/fs/cgroup"


def group_counts(d):
    """cpu.sync_wakeup.stat of the group at d, a dict."""
    with open(os.path.join(d, "cpu.sync_wakeup.stat"), encoding="utf-8") as f:
        return {k: int(v) for k, v in (line.split() for line in f)}


class Bench:
    def __init__(self, s, results):
        self.s = s
        self.results = results
        self.schedstat = None
        self.schedstat_was = ""
        self.policy_was = ""
        self.feature_was = "NO_SYNC_PAIR_AFFINE"
        self.servers = {}
        self.server_logs = None
        self.cgroot = None
        self.cpu_was_on = True
        self.trace = None

    def progress(self, text):
        """A time-stamped line to $RESULTS/progress (bench/run.sh follows
        it), and to a terminal."""
        line = f"{time.strftime('%H:%M:%S')} {text}"
        with open(os.path.join(self.results, "progress"), "a", encoding="utf-8") as f:
            f.write(line + "\n")
        if sys.stdout.isatty():
            print(line, flush=True)

    # -- state saved and put back: on a real machine (make bench HOST=1)
    # the bench must not leave an arm behind.
    def save_state(self):
        if feature_present():
            self.policy_was = read_line(POLICY)
            if feature_on():
                self.feature_was = "SYNC_PAIR_AFFINE"

    def restore(self):
        """The knobs first, then the servers; each step whatever the
        others did, so that an error here neither hides the first one nor
        leaves an arm behind."""
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        put_back = [("/proc/sys/kernel/sched_schedstats", self.schedstat_was)]
        if feature_present() and os.access(FEATURES, os.W_OK):
            put_back += [(POLICY, self.policy_was), (FEATURES, self.feature_was)]
        for path, value in put_back:
            if not value:
                continue
            try:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(value + "\n")
            except OSError as e:
                print(f"guest-bench: cannot put back {value} in {path}: {e.strerror}",
                      file=sys.stderr)
        try:
            self.stop_servers()
        except OSError as e:
            print(f"guest-bench: stopping the servers: {e}", file=sys.stderr)
        try:
            self.groups_remove()
        except OSError as e:
            print(f"guest-bench: removing pair-stream's groups: {e}", file=sys.stderr)
        try:
            self.pairs_off()
        except OSError as e:
            print(f"guest-bench: removing the trace instance: {e}", file=sys.stderr)

    # -- pair-stream's two cpu cgroups, made once, removed at the end
    def groups_make(self):
        if self.cgroot:
            return
        root = cgroup_root()
        with open(os.path.join(root, "cgroup.subtree_control"), encoding="utf-8") as f:
            self.cpu_was_on = "cpu" in f.read().split()
        if not self.cpu_was_on:
            write(os.path.join(root, "cgroup.subtree_control"), "+cpu",
                  "+cpu (cgroup v2's cpu controller)")
        self.cgroot = root
        for g in BENCH_GROUPS.values():
            os.makedirs(os.path.join(root, g), exist_ok=True)
            if not os.path.exists(os.path.join(root, g, "cpu.sync_wakeup")):
                die(f"{root}/{g} has no cpu.sync_wakeup: pair-stream needs the per-group "
                    "policy (the series' kernel, CONFIG_CGROUP_SCHED)")

    def groups_remove(self):
        if not self.cgroot:
            return
        for g in BENCH_GROUPS.values():
            if os.path.isdir(os.path.join(self.cgroot, g)):
                os.rmdir(os.path.join(self.cgroot, g))
        if not self.cpu_was_on:
            write(os.path.join(self.cgroot, "cgroup.subtree_control"), "-cpu", "-cpu")
        self.cgroot = None

    def set_groups(self, arm):
        """GROUPS_ARM's policies under arm groups, else both inherit."""
        want = DEFS["GROUPS_ARM"] if arm == "groups" else ["inherit"] * 2
        for g, policy in zip(BENCH_GROUPS.values(), want):
            path = os.path.join(self.cgroot, g, "cpu.sync_wakeup")
            write(path, policy, f"{policy} ({g})")
            if read_line(path) != policy:
                die(f"{path} reads '{read_line(path)}' after writing {policy}")

    def run_pair_stream(self, cmd, arm):
        """pair-stream's two commands at once, each in its group: their
        exit status and output in sections, with each group's counts."""
        self.groups_make()
        self.set_groups(arm)
        dirs = {part: os.path.join(self.cgroot, g) for part, g in BENCH_GROUPS.items()}
        before = {part: group_counts(d) for part, d in dirs.items()}
        procs = {}
        for part, c in zip(BENCH_GROUPS, cmd.split(" & ")):
            procs[part] = subprocess.Popen(
                c.split(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                # Into the group before exec: every task it makes is there.
                preexec_fn=lambda d=dirs[part]: write(os.path.join(d, "cgroup.procs"), "0",
                                                      "itself (cgroup.procs)"))
        out, rc = "", 0
        for part, p in procs.items():
            text = p.communicate()[0].decode(errors="replace").rstrip("\n")
            out += f"=== {part}\n{text}\n"
            rc = rc or p.returncode
        out += "=== groups\n"
        for part, d in dirs.items():
            after = group_counts(d)
            out += part + " " + " ".join(f"{k}={after[k] - before[part][k]}" for k in after) + "\n"
        return rc, out

    def schedstats_on(self):
        """schedstats on for the whole session (every arm alike), if built
        in and /proc/schedstat is the layout sample_system() reads."""
        knob = "/proc/sys/kernel/sched_schedstats"
        if not (os.access(knob, os.W_OK) and os.access("/proc/schedstat", os.R_OK)):
            return
        v = read_line("/proc/schedstat")
        if v not in SCHEDSTAT_LAYOUTS:
            self.progress(f"/proc/schedstat is '{v}', not one of {', '.join(SCHEDSTAT_LAYOUTS)}: "
                          "no schedstats figures")
            return
        self.schedstat_was = read_line(knob)
        write(knob, "1", "1 (kernel.sched_schedstats)")
        self.schedstat = SCHEDSTAT_LAYOUTS[v]

    def pairs_on(self):
        """PAIRS=1: a trace instance of the bench's own (its buffers and
        state; removed at the end, the global buffer left alone), with
        buffers that hold one run's decisions (about 16,000 for a pipe pair
        apart) and the line format pair_counts() reads (an instance copies
        the global options when made). The event is on only around the runs
        of PAIR_WORKLOADS (pairs_trace())."""
        if TRACING == "/sys/kernel/tracing" and not os.path.isdir(TRACING + "/instances"):
            # A guest's init mounts no tracefs.
            subprocess.run(["mount", "-t", "tracefs", "nodev", TRACING], check=False,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        inst = os.path.join(TRACING, "instances", "bench-pairs")
        try:
            os.mkdir(inst)
        except OSError as e:
            die(f"PAIRS=1 cannot make the trace instance {inst}: {e.strerror} (left by an "
                "interrupted bench? rmdir it)")
        self.trace = inst
        if not os.path.exists(os.path.join(inst, "events/sched/sched_sync_wakeup/enable")):
            die("PAIRS=1 reads the sched:sched_sync_wakeup trace event, which this kernel "
                "lacks: boot the bench or test kernel (patch 0013), or drop PAIRS=1")
        for opt, v in (("latency-format", "0"), ("record-tgid", "0"), ("raw", "0"),
                       ("hex", "0"), ("bin", "0"), ("context-info", "1")):
            path = os.path.join(inst, "options", opt)
            if os.path.exists(path):
                write(path, v, f"{v} (trace option {opt})")
        write(os.path.join(inst, "buffer_size_kb"), "4096",
              "4096 (the trace buffers' size, in KB per CPU)")

    def pairs_trace(self, on):
        write(os.path.join(self.trace, "events/sched/sched_sync_wakeup/enable"),
              "1" if on else "0", "the sched_sync_wakeup event's switch")

    def pairs_off(self):
        if self.trace:
            os.rmdir(self.trace)
            self.trace = None

    def pairs_read(self, lost):
        """The run's PAIR_COUNTERS from the trace, after trace_lost() read
        lost before the run."""
        lost = trace_lost(self.trace) - lost
        if lost:
            die(f"the trace lost {lost} events in one run: its pair counts would be short; "
                "make the runs shorter (PIPE_LOOPS, SOCK_SECS, TB_SECS, UDP_SECS)")
        with open(os.path.join(self.trace, "trace"), encoding="utf-8", errors="replace") as f:
            return pair_counts(f)

    # -- the servers of sockperf, tbench and iperf3, started once each
    def start_server(self, name):
        p = self.servers.get(name)
        if p and p.poll() is None:
            return
        port = wl.server_port(name, self.s)
        log = os.path.join(self.server_logs, f"{name}-server.log")
        # Someone else's server there would be measured instead of ours.
        if listening(port):
            die(f"TCP port {port} is in use by another program: stop it, or pick another "
                f"port (SOCK_PORT=, UDP_PORT=; tbench_srv needs {wl.TBENCH_PORT})")
        cmd = wl.server_command(name, self.s)
        with open(log, "a", encoding="utf-8") as out:
            try:
                p = subprocess.Popen(cmd.split(), stdout=out, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)
            except OSError as e:
                die(f"cannot start the {name} server ({cmd}): {e.strerror}")
        self.servers[name] = p
        for _ in range(50):
            if p.poll() is not None:
                die(f"{name} server exited at once: see {self.results}/{name}-server.log "
                    "(is lo up? ip link set lo up)")
            if listening(port, p.pid):
                return
            time.sleep(0.2)
        die(f"{name} server does not listen on 127.0.0.1:{port} after 10 s: "
            f"see {self.results}/{name}-server.log")

    def stop_servers(self):
        for p in self.servers.values():
            p.terminate()
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.servers = {}
        if self.server_logs:
            for f in os.listdir(self.server_logs):
                shutil.copy(os.path.join(self.server_logs, f), self.results)
            shutil.rmtree(self.server_logs, ignore_errors=True)
            self.server_logs = None

    def run_one(self, w, arm):
        """Sets the arm, runs the workload; its metrics, operations, the
        sync_wakeup counters and the system's counters."""
        cmd = self.s["cmd"][w]
        server = wl.family(w).server
        if server:
            self.start_server(server)
        set_arm(arm)
        reset_counters()
        lost = 0
        pairs = self.s["PAIRS"] == "1" and w in DEFS["PAIR_WORKLOADS"]
        if pairs:
            # Opened for writing, the trace empties every CPU's buffer.
            open(os.path.join(self.trace, "trace"), "w", encoding="utf-8").close()
            lost = trace_lost(self.trace)
            self.pairs_trace(True)
        # After the arm is set: flipping a feature sends IPIs of its own.
        before = sample_system(self.schedstat)
        try:
            if w == "pair-stream":
                rc, out = self.run_pair_stream(cmd, arm)
            else:
                r = subprocess.run(cmd.split(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, check=False)
                rc, out = r.returncode, r.stdout.decode(errors="replace").rstrip("\n")
        except OSError as e:
            die(f"{w} under arm {arm} cannot start: {cmd}: {e.strerror}")
        delta = system_delta(before, sample_system(self.schedstat))
        counters = read_counters()
        if pairs:
            self.pairs_trace(False)
        counters.update(self.pairs_read(lost) if pairs else dict.fromkeys(PAIR_COUNTERS, ""))
        # As the shell reports it: 128 + the signal that ended it.
        rc = rc if rc >= 0 else 128 - rc
        with open(os.path.join(self.results, "runs.log"), "a", encoding="utf-8") as f:
            f.write(f"### {w} arm={arm} rc={rc}: {cmd}\n{out}\n")
        where = f"output in {self.results}/runs.log"
        if rc:
            die(f"{w} under arm {arm} failed (exit {rc}): {cmd}; {where}")
        metrics, ops = wl.family(w).parse(w, out, self.s)
        why = wl.check(w, metrics, ops)
        if why:
            die(f"{w} under arm {arm}: {why}; {where}")
        return metrics, ops, counters, delta

    def write_meta(self):
        side = os.environ.get("BENCH_SIDE") or "guest"
        s = self.s
        lines = [f"{side}.kernel: {os.uname().release}",
                 f"{side}.uname: {first_line(['uname', '-a'])}",
                 f"{side}.nproc: {len(os.sched_getaffinity(0))}",
                 f"{side}.smt_active: {read_or('/sys/devices/system/cpu/smt/active', 'unknown')}",
                 f"{side}.date: {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}"]
        lines += kernel_facts(side, self.schedstat, self.schedstat_was)
        if feature_present():
            pol = read_or("/proc/sys/kernel/sched_sync_wakeup_available_policies", "unknown")
            lines.append(f"{side}.feature: present; policies: {pol}")
        else:
            lines.append(f"{side}.feature: absent ({os.uname().release} has no "
                         "SYNC_PAIR_AFFINE): arms other than off impossible, counters empty")
        for tool, arg in (("perf", "--version"), ("hackbench", "--help"),
                          ("sockperf", "--version"), ("tbench", "--help"),
                          ("iperf3", "--version")):
            lines.append(f"tool.{tool}: {first_line([tool, arg])}")
        lines += [f"rounds: {s['ROUNDS']}", f"arms: {' '.join(s['arms'])}",
                  f"workloads: {' '.join(s['workloads'])}", f"quick: {s['QUICK']}",
                  f"pairs: {s['PAIRS']}" + (" (sched:sched_sync_wakeup traced in the runs of "
                                            f"{' '.join(DEFS['PAIR_WORKLOADS'])}: their "
                                            "times include its cost)"
                                            if s["PAIRS"] == "1" else ""),
                  f"method: one discarded warm-up run per workload (arm {s['arms'][0]}); then "
                  "per round, per workload, every arm, arm order rotated by one each round; "
                  "arm set and counters reset before each run"]
        lines += [f"cmd.{w}: {s['cmd'][w]}" for w in s["workloads"]]
        for srv in wl.SERVERS:
            if any(wl.family(w).server == srv for w in s["workloads"]):
                lines.append(f"cmd.{srv}-server: {wl.server_command(srv, s)} "
                             "(background, whole session)")
        with open(os.path.join(self.results, "meta.txt"), "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")

    def main(self):
        s = self.s
        arms, wls = s["arms"], s["workloads"]
        for name in ("runs.log", "progress"):
            open(os.path.join(self.results, name), "w", encoding="utf-8").close()
        self.server_logs = tempfile.mkdtemp()
        page_in(sorted({p for c in s["cmd"].values() for p in wl.programs(c)} |
                       {p for name in wl.SERVERS for p in wl.programs(wl.server_command(name, s))} |
                       {"ss"}))
        self.schedstats_on()
        if s["PAIRS"] == "1":
            self.pairs_on()
        self.write_meta()
        raw = open(os.path.join(self.results, "raw.csv"), "w", encoding="utf-8")
        raw.write(",".join(DEFS["CSV_COLUMNS"] + ["ops"] + STATS_COUNTERS + SYSTEM_COUNTERS
                           + PAIR_COUNTERS) + "\n")
        raw.flush()
        start = now_us()
        self.progress(f"start: {s['ROUNDS']} rounds x {len(wls)} workloads x {len(arms)} arms = "
                      f"{s['runs']} runs, after {len(wls)} warm-up runs")
        est, done = {}, {}
        for w in wls:
            t0 = now_us()
            self.run_one(w, arms[0])
            est[w], done[w] = now_us() - t0, 0
            self.progress(f"warm-up {w} ({s['cmd'][w]}): {est[w] // 1000} ms, discarded")

        def eta():
            """Each remaining run costs its workload's mean run time so far."""
            return sum((s["ROUNDS"] * len(arms) - done[w]) * est[w] for w in wls)

        self.progress(f"warm-up done in {mmss(now_us() - start)}; measuring, "
                      f"ETA {mmss(eta())}")
        i = 0
        for r in range(1, s["ROUNDS"] + 1):
            for w in wls:
                for k in range(len(arms)):
                    a = arms[(k + r - 1) % len(arms)]
                    t0 = now_us()
                    metrics, ops, c, delta = self.run_one(w, a)
                    dt = now_us() - t0
                    profile = ([c[x] for x in STATS_COUNTERS] + [delta[x] for x in SYSTEM_COUNTERS]
                               + [c[x] for x in PAIR_COUNTERS])
                    for m in metrics:
                        raw.write(",".join([str(r), w, a, *m, c["sync"], c["kept"],
                                            c["declined"], c["dropped"], ops, *profile]) + "\n")
                    raw.flush()
                    shown = "".join(f"{m}={v} {u}  " for m, v, u, _ in metrics)
                    i += 1
                    # running mean of the run time of this workload, warm-up included
                    est[w] = (est[w] * (done[w] + 1) + dt) // (done[w] + 2)
                    done[w] += 1
                    self.progress(f"round {r}/{s['ROUNDS']}  {w}  {a}  run {i}/{s['runs']}  "
                                  f"{shown}elapsed {mmss(now_us() - start)}  ETA {mmss(eta())}")
        raw.close()
        self.progress(f"done: {i} runs in {mmss(now_us() - start)}")


def now_us():
    return time.time_ns() // 1000


def mmss(us):
    t = us // 1000000
    return f"{t // 60}m{t % 60:02d}s"


def read_or(path, default):
    try:
        return read_line(path)
    except OSError:
        return default


def first_line(cmd):
    """The first line a command prints on stdout or stderr."""
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL, check=False)
    except OSError as e:
        return f"{cmd[0]}: {e.strerror}"
    return r.stdout.decode(errors="replace").partition("\n")[0]


def listening(port, pid=None):
    """Is a TCP socket listening on port (by process pid, if given)?"""
    if not shutil.which("ss"):
        die("ss is missing: apt-get install iproute2 (or make deps)")
    r = subprocess.run(["ss", "-Htlnp", f"sport = :{port}"], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, check=False)
    out = r.stdout.decode(errors="replace")
    return bool(out.strip()) if pid is None else f"pid={pid}," in out


def page_in(tools):
    """Under QEMU's icount clock (make bench's default under TCG), guest time
    jumps to the next timer whenever every vCPU waits, as for a page of the
    host's 9p root: a timed run (sockperf, tbench, iperf3) that pages in its
    tool there can end before it has sent anything (sockperf on flat,
    2026-12-02). So read the tools, their libraries and tbench's load file
    into the page cache before any run; the servers log to memory (/tmp)."""
    files = ["/usr/share/dbench/client.txt"]
    for t in tools:
        path = shutil.which(t)
        if not path:
            continue
        files.append(path)
        r = subprocess.run(["ldd", path], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, check=False)
        files += re.findall(r"/[^ ]*", r.stdout.decode(errors="replace"))
    for path in files:
        try:
            with open(path, "rb") as f:
                while f.read(1 << 20):
                    pass
        except OSError:
            pass


def kconfig_text():
    """The running kernel's config, if one is to be found."""
    for path in (os.environ.get("BENCH_KCONFIG"), "/proc/config.gz",
                 f"/boot/config-{os.uname().release}"):
        if not path or not os.access(path, os.R_OK):
            continue
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8", errors="replace") as f:
            return f.read()
    return ""


def kernel_facts(side, schedstat, schedstat_was):
    """HZ, the preemption model and schedstats, which shape every wakeup
    figure, as meta.txt lines "<side>.hz: ..." and so on."""
    config = kconfig_text()
    hz = re.search(r"^CONFIG_HZ=(.*)$", config, re.MULTILINE)
    lines = [f"{side}.hz: " +
             (hz.group(1) if hz else "unknown (no kernel config in /proc/config.gz or /boot)")]
    model = re.search(r"^CONFIG_(PREEMPT_RT|PREEMPT|PREEMPT_VOLUNTARY|PREEMPT_NONE|"
                      r"PREEMPT_LAZY)=y$", config, re.MULTILINE)
    model = model.group(1) if model else ""
    dyn = ", PREEMPT_DYNAMIC" if re.search(r"^CONFIG_PREEMPT_DYNAMIC=y$", config,
                                           re.MULTILINE) else ""
    # With PREEMPT_DYNAMIC, the model in force is the one debugfs marks.
    now = re.search(r"\(([a-z]*)\)", read_or("/sys/kernel/debug/sched/preempt", ""))
    if now:
        lines.append(f"{side}.preempt: {now.group(1)} (sched/preempt in debugfs)" +
                     (f"; config {model}{dyn}" if model else ""))
    elif model:
        boot = re.search(r"preempt=[a-z]*", read_or("/proc/cmdline", ""))
        lines.append(f"{side}.preempt: config {model}{dyn}" +
                     (f", boot parameter {boot.group(0)}" if boot else ""))
    else:
        lines.append(f"{side}.preempt: unknown; uname -v: {os.uname().version}")
    # What APPEND (make bench) or the boot loader added: preempt=,
    # mitigations= and the like change every figure.
    lines.append(f"{side}.cmdline: {read_or('/proc/cmdline', 'unknown').strip()}")
    knob = "/proc/sys/kernel/sched_schedstats"
    if schedstat:
        lines.append(f"{side}.schedstats: on for the session (kernel.sched_schedstats "
                     f"was {schedstat_was})")
    elif os.path.exists(knob):
        lines.append(f"{side}.schedstats: built in, not used (kernel.sched_schedstats="
                     f"{read_or(knob, '?')})")
    else:
        lines.append(f"{side}.schedstats: not built in (CONFIG_SCHEDSTATS off): "
                     "no schedstats figures")
    return lines


def plan(s):
    print(f"arms: {' '.join(s['arms'])}")
    print(f"workloads: {' '.join(s['workloads'])}")
    print(f"rounds: {s['ROUNDS']}")
    print(f"pairs: {s['PAIRS']}")
    print(f"runs: {s['runs']} measured, {len(s['workloads'])} warm-up")
    for w in s["workloads"]:
        print(f"  {w}: {s['cmd'][w]}")


def interrupted(signum, frame):
    sys.exit(130)


def main(argv):
    try:
        s = settings(os.environ)
        if argv[1:] == ["--check"]:
            plan(s)
            return 0
        if argv[1:]:
            die(f"unknown argument {argv[1]}: use --check or nothing")
        results = os.environ.get("RESULTS", "")
        if not (results and os.path.isdir(results) and os.access(results, os.W_OK)):
            die(f"RESULTS='{results}' is not a writable directory: run through bench/run.sh "
                "(make bench) or set RESULTS=dir")
        if not feature_present() and s["arms"] != ["off"]:
            die(f"this kernel ({os.uname().release}) lacks the feature ({POLICY} is "
                "missing): boot the patched bench kernel, or use ARMS=off")
        bench = Bench(s, results)
        # Saved before anything can fail: restore() puts back only this.
        bench.save_state()
        signal.signal(signal.SIGINT, interrupted)
        signal.signal(signal.SIGTERM, interrupted)
        try:
            bench.main()
        finally:
            bench.restore()
    except Stop as e:
        print(f"guest-bench: error: {e}", file=sys.stderr)
        return 1
    except (OSError, ValueError, KeyError) as e:
        print(f"guest-bench: error: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
