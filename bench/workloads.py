"""The bench's workloads: for each, its command line, the server it talks
to, and how its output gives its metrics and operations.

The names and their order are WORKLOADS_ALL in harness/definitions.sh;
here, a family per name prefix (pipe, msg-*, hackbench-*, ...). Parsers
take a run's whole output (stdout and stderr) and return strings exactly
as the tool printed them, "-" for what is missing; check() refuses those.
"""
import re
from dataclasses import dataclass
from typing import Callable, List, Optional, Tuple

# Messages per group and loop of perf's messaging and of hackbench: each of
# their 20 senders writes to each of 20 receivers (both tools' default).
MSGS_PER_GROUP_LOOP = 400

# (metric, value, unit, better): a row of raw.csv's middle.
Metric = Tuple[str, str, str, str]


def grab(regex: str, text: str, group: int = 1) -> str:
    """Group of regex's first match in text, or "-"."""
    m = re.search(regex, text, re.MULTILINE)
    return m.group(group) if m else "-"


def groups(name: str) -> int:
    """The group count at the end of a workload name: msg-thread-g4 -> 4."""
    return int(name.rsplit("-g", 1)[1])


def parse_pipe(name, out, sz):
    return [("time-per-op", grab(r"([0-9.]+) usecs/op", out), "usec/op", "lower")], \
        str(sz["PIPE_LOOPS"])


def parse_messaging(name, out, sz):
    return [("runtime", grab(r"Total time: ([0-9.]+) \[sec\]", out), "s", "lower")], \
        str(groups(name) * MSGS_PER_GROUP_LOOP * sz["MSG_LOOPS"])


def parse_hackbench(name, out, sz):
    return [("runtime", grab(r"^Time: ([0-9.]+)", out), "s", "lower")], \
        str(groups(name) * MSGS_PER_GROUP_LOOP * sz["HB_LOOPS"])


def parse_sockperf(name, out, sz):
    return [("avg-latency", grab(r"avg-latency=([0-9.]+)", out), "usec", "lower"),
            ("p99-latency", grab(r"percentile 99\.000 = *([0-9.]+)", out), "usec", "lower")], \
        grab(r"Total Run\][^\n]*ReceivedMessages=([0-9]+)", out)


def tbench_ops(out: str) -> str:
    """The sum of the Count column of tbench's closing table, or "-"."""
    counts = re.findall(r"^ [A-Za-z]+ +([0-9]+) +[0-9.]+ +[0-9.]+$", out, re.MULTILINE)
    return str(sum(map(int, counts))) if counts else "-"


def parse_tbench(name, out, sz):
    mbs = grab(r"^Throughput ([0-9.]+) MB/sec", out)
    # tbench samples once a second: a shorter run reports 0.
    if not re.search("[1-9]", mbs):
        mbs = "-"
    return [("throughput", mbs, "MB/s", "higher")], tbench_ops(out)


def parse_udp(name, out, sz):
    # The receiver's line: what got through, and of how many datagrams.
    got = grab(r"([0-9.]+) Mbits/sec +[0-9.]+ ms +[0-9]+/[0-9]+ \([^)]*\) +receiver", out)
    m = re.search(r" ([0-9]+)/([0-9]+) \(([0-9.e+-]+)%\) +receiver", out)
    # iperf3 prints the share with %.2g: "1e+02", "2.2e-05".
    lost = f"{float(m.group(3)):.6f}" if m else "-"
    ops = str(int(m.group(2)) - int(m.group(1))) if m else "-"
    return [("received", got, "Mbit/s", "higher"), ("lost", lost, "%", "lower")], ops


def section(out: str, name: str) -> str:
    """The lines after "=== name" up to the next "=== " line."""
    m = re.search(rf"^=== {name}\n(.*?)(?=^=== |\Z)", out, re.MULTILINE | re.DOTALL)
    return m.group(1) if m else ""


def share(part: str, whole: str) -> str:
    """part / whole in %, "-" where either is missing, "" where whole is 0."""
    if not (part.isdigit() and whole.isdigit()):
        return "-"
    return f"{100 * int(part) / int(whole):.1f}" if int(whole) else ""


def parse_pair_stream(name, out, sz):
    """The pipe pair's and the stream's figures, from their sections, and
    the share of each group's decisions its policy is judged by: the pair's
    wakees that landed on the waker CPU, the stream's dropped hints."""
    pipe, _ = parse_pipe(name, section(out, "pair"), sz)
    udp, _ = parse_udp(name, section(out, "stream"), sz)
    groups = section(out, "groups")
    pair = f"pair-{pipe[0][0]}", *pipe[0][1:]
    stream = [(f"stream-{m}", *rest) for m, *rest in udp]
    placed = [("pair-on-waker-cpu", share(grab(r"^pair .*landed_waker_cpu=(\d+)", groups),
                                          grab(r"^pair sync_wakeups=(\d+)", groups)), "%",
               "higher"),
              ("stream-hint-dropped", share(grab(r"^stream .*hint_dropped=(\d+)", groups),
                                            grab(r"^stream sync_wakeups=(\d+)", groups)), "%",
               "higher")]
    # No decision (arm off): no share to give.
    placed = [m for m in placed if m[1]]
    return [pair, *stream, *placed], str(sz["PIPE_LOOPS"])


@dataclass
class Family:
    prefix: str
    command: Callable[[str, dict, int], str]
    parse: Callable[[str, str, dict], Tuple[List[Metric], str]]
    server: Optional[str] = None


FAMILIES = [
    Family("pipe-cpu01", lambda w, s, n: f"taskset -c 0,1 perf bench sched pipe -l {s['PIPE_LOOPS']}",
           parse_pipe),
    Family("pipe-cpu0", lambda w, s, n: f"taskset -c 0 perf bench sched pipe -l {s['PIPE_LOOPS']}",
           parse_pipe),
    Family("pipe", lambda w, s, n: f"perf bench sched pipe -l {s['PIPE_LOOPS']}", parse_pipe),
    Family("msg-thread-g", lambda w, s, n:
           f"perf bench sched messaging -p -t -g {groups(w)} -l {s['MSG_LOOPS']}",
           parse_messaging),
    Family("msg-process-g", lambda w, s, n:
           f"perf bench sched messaging -p -g {groups(w)} -l {s['MSG_LOOPS']}",
           parse_messaging),
    Family("hackbench-thread-g", lambda w, s, n:
           f"hackbench --pipe --threads --groups {groups(w)} --loops {s['HB_LOOPS']}",
           parse_hackbench),
    Family("hackbench-process-g", lambda w, s, n:
           f"hackbench --pipe --process --groups {groups(w)} --loops {s['HB_LOOPS']}",
           parse_hackbench),
    Family("sockperf", lambda w, s, n:
           f"sockperf ping-pong --tcp -i 127.0.0.1 -p {s['SOCK_PORT']} -t {s['SOCK_SECS']}",
           parse_sockperf, "sockperf"),
    Family("tbench-1", lambda w, s, n: f"tbench -t {s['TB_SECS']} 1 127.0.0.1",
           parse_tbench, "tbench"),
    Family("tbench-nproc", lambda w, s, n: f"tbench -t {s['TB_SECS']} {n} 127.0.0.1",
           parse_tbench, "tbench"),
    Family("tbench-2nproc", lambda w, s, n: f"tbench -t {s['TB_SECS']} {2 * n} 127.0.0.1",
           parse_tbench, "tbench"),
    # -b 0: iperf3 caps UDP at 1 Mbit/s otherwise; -f m: always Mbits/sec.
    # Two commands at once, each in its own cgroup (guest-bench.py).
    Family("pair-stream", lambda w, s, n:
           f"perf bench sched pipe -l {s['PIPE_LOOPS']} & "
           f"iperf3 -c 127.0.0.1 -p {s['UDP_PORT']} -u -b 0 -t {s['UDP_SECS']} -f m",
           parse_pair_stream, "iperf3"),
    Family("udp-stream", lambda w, s, n:
           f"iperf3 -c 127.0.0.1 -p {s['UDP_PORT']} -u -b 0 -t {s['UDP_SECS']} -f m",
           parse_udp, "iperf3"),
]


def family(name: str) -> Family:
    """The family of a workload name; KeyError for one this file lacks."""
    for f in FAMILIES:
        if name == f.prefix or (f.prefix.endswith("-g") and name.startswith(f.prefix)):
            return f
    raise KeyError(f"no command for workload {name}")


def programs(command: str) -> List[str]:
    """The programs a command line starts: its first word, and taskset's
    (and those of each of pair-stream's two commands)."""
    if " & " in command:
        return [p for c in command.split(" & ") for p in programs(c)]
    words = command.split()
    return words[:1] + (words[3:4] if words[:1] == ["taskset"] else [])


def server_command(server: str, sz: dict) -> str:
    return {"sockperf": f"sockperf server --tcp -i 127.0.0.1 -p {sz['SOCK_PORT']}",
            "tbench": "tbench_srv",
            "iperf3": f"iperf3 -s -B 127.0.0.1 -p {sz['UDP_PORT']}"}[server]


# tbench_srv's port, which it cannot be told.
TBENCH_PORT = 7003
# The other servers' ports, unless SOCK_PORT and UDP_PORT say otherwise.
PORTS = {"SOCK_PORT": 11111, "UDP_PORT": 5201}
# Sizes by QUICK, unless the variables say otherwise: under TCG on a
# 2-core host, 0.3-2 s a run (pipe ~150 usec/op); 100 loops is perf's and
# hackbench's own default.
SIZES = {
    "0": {"ROUNDS": 5, "PIPE_LOOPS": 8000, "MSG_LOOPS": 100, "HB_LOOPS": 100,
          "SOCK_SECS": 2, "TB_SECS": 3, "UDP_SECS": 2},
    "1": {"ROUNDS": 1, "PIPE_LOOPS": 3000, "MSG_LOOPS": 40, "HB_LOOPS": 40,
          "SOCK_SECS": 1, "TB_SECS": 4, "UDP_SECS": 1},
}
# QUICK's TB_SECS: tbench reports the throughput of whole seconds, and in
# an arm64 guest (cls2, icount clock, 2026-12-05) every 4-client run's
# slowest operation took 0.2-1.1 s (the 1-client runs' 1.4 ms): over 2 s
# one of six reported 0 MB/s, which stops the bench.
# The servers, in the order meta.txt lists them.
SERVERS = ["sockperf", "tbench", "iperf3"]


def server_port(server: str, sz: dict) -> int:
    """The TCP port the server listens on."""
    return {"sockperf": sz["SOCK_PORT"], "tbench": TBENCH_PORT, "iperf3": sz["UDP_PORT"]}[server]


def check(name: str, metrics: List[Metric], ops: str) -> Optional[str]:
    """Why a run's parsed figures cannot be used, or None."""
    if not metrics:
        return "no metric parsed"
    # A UDP receiver starved of every datagram is a result, not a parse error.
    if not ops.isdigit():
        return f"cannot tell its operations (got '{ops}')"
    if int(ops) == 0 and name != "udp-stream":
        return "0 operations"
    for metric, value, _, _ in metrics:
        if value in ("", ".") or not re.fullmatch(r"[0-9]*\.?[0-9]*", value):
            return (f"cannot parse {metric} from the output (got '{value}'): "
                    "did the tool's output format change?")
    return None
