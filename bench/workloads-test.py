#!/usr/bin/env python3
"""Do bench/workloads.py's parsers read the tools' real outputs as the bench
always has? TAP on stdout; exits 1 on a failure.

bench/testdata/runs.log holds one run of each workload as a bench guest
captured it (flat, icount clock, 2026-12-03), expected.csv the figures
raw.csv got for those runs. schedstat-*-smt are /proc/schedstat of a 6.12
(version 16) and a 7.3 (version 17) test guest on smt after a pipe and a
hackbench run (2026-12-06); the counters guest-bench.py must read from them
were summed with awk from the field numbers of sched-stats.rst.

pipe-cpu01.trace and sockperf.trace are the sched_sync_wakeup trace of a
pipe-cpu01 run and of a sockperf ping-pong under honest-waker (flat, icount
clock, bench kernel, 2026-12-07; the server a long-lived one; a waker on
probation whose wakee did not last wake it shows policy=no-sync, the
policy it got); the pair counts guest-bench.py must give were counted with
sort | uniq -c.

With arguments, RUNS_LOG RAW_CSV of a whole
bench are re-parsed too: every measured run must give its raw.csv rows.
"""
import csv
import importlib.util
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads as wl  # noqa: E402
from defs import DEFS  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
# The capture's sizes (a full bench's defaults) and the guest's CPUs.
SIZES = {**wl.SIZES["0"], **wl.PORTS}
NPROC = 2
n = failed = 0


def tap(ok, what, why=""):
    global n, failed
    n += 1
    failed += not ok
    print(f"{'ok' if ok else 'not ok'} {n} {what}")
    if not ok and why:
        print("\n".join(f"#   {line}" for line in str(why).splitlines()))


def records(path):
    """(workload, arm, command, output) of each run in a runs.log."""
    out = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("### "):
                head, _, cmd = line[4:].rstrip("\n").partition(": ")
                w, arm, _ = head.split(" ", 2)
                out.append([w, arm[len("arm="):], cmd, []])
            else:
                out[-1][3].append(line)
    return [(w, a, c, "".join(o).rstrip("\n")) for w, a, c, o in out]


def rows(w, out, sz):
    metrics, ops = wl.family(w).parse(w, out, sz)
    return [[w, *m, ops] for m in metrics]


def main(argv):
    runs = records(os.path.join(HERE, "testdata", "runs.log"))
    with open(os.path.join(HERE, "testdata", "expected.csv"), encoding="utf-8") as f:
        want = [r[:-1] + [r[-1]] for r in list(csv.reader(f))[1:]]
    got = [r for w, _, _, out in runs for r in rows(w, out, SIZES)]
    tap(got == want, f"the {len(runs)} captured runs give the figures raw.csv got",
        "\n".join(f"got {g}, want {e}" for g, e in zip(got, want) if g != e))

    bad = [w for w in DEFS["WORKLOADS_ALL"] if not any(r[0] == w for r in runs)]
    tap(not bad, "every workload of harness/definitions.sh is in the capture", bad)
    diff = [(c, wl.family(w).command(w, SIZES, NPROC)) for w, _, c, _ in runs
            if wl.family(w).command(w, SIZES, NPROC) != c]
    tap(not diff, "each workload's command line is the one the capture ran", diff)

    # What a broken run looks like: check() refuses it, with the reason.
    tb = ("Throughput 0 MB/sec  1 clients  1 procs  max_latency=0.000 ms\n"
          " NTCreateX        12     0.125     1.000")
    cases = [
        ("tbench-1", tb, "cannot parse throughput"),
        ("sockperf", "sockperf: ERROR", "cannot tell its operations"),
        ("pipe", "no such output", "cannot parse time-per-op"),
        ("msg-thread-g1", "Total time: 1.2.3 [sec]", "cannot parse runtime"),
    ]
    for w, out, why in cases:
        metrics, ops = wl.family(w).parse(w, out, SIZES)
        got_why = wl.check(w, metrics, ops) or ""
        tap(why in got_why, f"{w}: '{out[:30]}' is refused: {why}", got_why)
    # pair-stream (WORKLOADS_EXTRA): a run under arm groups, llc2, QUICK=1,
    # 2026-12-06; its group lines give the two placement shares.
    (w, arm, cmd, out), = records(os.path.join(HERE, "testdata", "pair-stream.log"))
    quick = {**wl.SIZES["1"], **wl.PORTS}
    metrics, ops = wl.family(w).parse(w, out, quick)
    tap(metrics == [("pair-time-per-op", "274.708000", "usec/op", "lower"),
                    ("stream-received", "185", "Mbit/s", "higher"),
                    ("stream-lost", "45.000000", "%", "lower"),
                    ("pair-on-waker-cpu", "99.5", "%", "higher"),
                    ("stream-hint-dropped", "100.0", "%", "higher")]
        and ops == "3000" and cmd == wl.family(w).command(w, quick, NPROC)
        and wl.check(w, metrics, ops) is None,
        "pair-stream: each part's figures and each group's share from one run", (metrics, ops))
    off = re.sub(r"(sync_wakeups|landed_waker_cpu|hint_dropped)=\d+", r"\1=0", out)
    metrics, ops = wl.family(w).parse(w, off, quick)
    tap([m[0] for m in metrics] == ["pair-time-per-op", "stream-received", "stream-lost"]
        and wl.check(w, metrics, ops) is None,
        "pair-stream: no decision (arm off), no share", metrics)
    metrics, ops = wl.family(w).parse(w, out.replace("=== groups", "=== other"), quick)
    tap("cannot parse pair-on-waker-cpu" in (wl.check(w, metrics, ops) or ""),
        "pair-stream: a run without its groups' counts is refused", wl.check(w, metrics, ops))
    tap(wl.check("pipe", [("time-per-op", "1.0", "usec/op", "lower")], "0") ==
        "0 operations", "a run of 0 operations is refused")
    # iperf3 prints the lost share with %.2g; a starved receiver is a result.
    udp = ("[  5]   0.00-1.00   sec  0.00 MBytes  0.00 Mbits/sec  0.000 ms  "
           "100/100 (1e+02%)  receiver")
    metrics, ops = wl.family("udp-stream").parse("udp-stream", udp, SIZES)
    tap(metrics == [("received", "0.00", "Mbit/s", "higher"), ("lost", "100.000000", "%", "lower")]
        and ops == "0" and wl.check("udp-stream", metrics, ops) is None,
        "udp-stream: every datagram lost (1e+02%) is a result", (metrics, ops))

    # ttwu_wake_remote is ttwu_count - ttwu_local in both: the columns agree.
    spec = importlib.util.spec_from_file_location("guest_bench", os.path.join(HERE, "guest-bench.py"))
    gb = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gb)
    schedstats = {
        "6.12": ("version 16", dict(ttwu_count=12133, ttwu_local=5067, ttwu_wake_remote=7066,
                                    ttwu_move_affine=4477, lb_migrations=153,
                                    run_delay_ns=73326351492)),
        "7.3": ("version 17", dict(ttwu_count=10061, ttwu_local=3379, ttwu_wake_remote=6682,
                                   ttwu_move_affine=4863, lb_migrations=119,
                                   run_delay_ns=72611543196)),
    }
    for base, (version, want) in schedstats.items():
        with open(os.path.join(HERE, "testdata", f"schedstat-{base}-smt"), encoding="utf-8") as f:
            lines = f.read().splitlines()
        got = gb.schedstat_counts(lines, gb.SCHEDSTAT_LAYOUTS[lines[0]])
        tap(lines[0] == version and got == want,
            f"/proc/schedstat of {base} ({version}) gives the counters at sched-stats.rst's fields",
            f"{lines[0]}: got {got}, want {want}")

    # Every field its own number (sched-stats.rst's numbering), so that
    # a counter read from a wrong column, zero in the captures (alb_pushed),
    # gives a wrong sum.
    numbered = {
        "version 16": (["domain0 3"], 36, dict(ttwu_wake_remote=34, ttwu_move_affine=35,
                                                lb_migrations=5 + 13 + 21 + 27)),
        "version 17": (["domain0 SMT 3"], 45, dict(ttwu_wake_remote=43, ttwu_move_affine=44,
                                                    lb_migrations=8 + 19 + 30 + 36)),
    }
    for version, (lead, fields, want) in numbered.items():
        lines = ["cpu0 " + " ".join(str(i) for i in range(1, 10)),
                 " ".join(lead + [str(i) for i in range(1, fields + 1)])]
        want = dict(want, ttwu_count=5, ttwu_local=6, run_delay_ns=8)
        got = gb.schedstat_counts(lines, gb.SCHEDSTAT_LAYOUTS[version])
        tap(got == want, f"{version}: each counter from its numbered field", f"got {got}, want {want}")

    # make bench PAIRS=1: the decisions between the run's main pair.
    trace = {}
    for name in ("pipe-cpu01", "sockperf"):
        with open(os.path.join(HERE, "testdata", f"{name}.trace"), encoding="utf-8") as f:
            trace[name] = f.read().splitlines()
    pipe = dict(pair_sync="140", pair_kept="135", pair_dropped="1", pair_probe="3")
    sock = dict(pair_sync="149", pair_kept="142", pair_dropped="0", pair_probe="4")
    no_waker = [line.replace("ctx=softirq_bh ", "ctx=softirq ") for line in trace["sockperf"]]
    none_kept = [line.replace("verdict=kept_on_waker_cpu ", "verdict=declined_waker_busy ")
                 for line in trace["sockperf"]]
    spaced = [line.replace("sockperf-", "sock perf-").replace("comm=sockperf ", "comm=sock perf ")
              for line in trace["sockperf"]]
    cases = [
        ("a pipe pair's decisions, both ways", trace["pipe-cpu01"], pipe),
        ("sockperf's pair, its softirq_bh decisions by the sender", trace["sockperf"], sock),
        ("the pair with the most decisions, another pair's left out",
         trace["pipe-cpu01"] + trace["sockperf"], sock),
        ("decisions with no waker (softirq) are no pair's", trace["pipe-cpu01"] + no_waker, pipe),
        ("the pair with the most decisions, not the most kept", trace["pipe-cpu01"] + none_kept,
         dict(sock, pair_kept="0")),
        ("a comm with a space in it", spaced, sock),
        ("no decision, no pair", trace["pipe-cpu01"][:11],
         dict.fromkeys(DEFS["PAIR_COUNTERS"], "0")),
    ]
    for what, lines, want in cases:
        got = gb.pair_counts(lines)
        tap(got == want, f"pair counts: {what}", f"got {got}, want {want}")

    try:
        gb.pair_counts(trace["pipe-cpu01"][:12] + [" sched-pipe-53 sched_sync_wakeup: comm=x"])
        tap(False, "a decision's line in another format stops the count", "it was skipped")
    except gb.Stop as e:
        tap("cannot read the trace's line" in str(e),
            "a decision's line in another format stops the count", e)
    try:
        gb.settings({"PAIRS": "1", "WORKLOADS": "msg-thread-g1 hackbench-thread-g4"})
        tap(False, "PAIRS=1 without a single-pair workload is refused", "it was accepted")
    except gb.Stop as e:
        tap("single-pair workloads only" in str(e),
            "PAIRS=1 without a single-pair workload is refused", e)
    # Every CPU's losses of every kind, as per_cpu/cpuN/stats gives them.
    with tempfile.TemporaryDirectory() as d:
        for cpu, (over, commit, dropped) in enumerate([(2, 0, 0), (0, 3, 5)]):
            os.makedirs(os.path.join(d, "per_cpu", f"cpu{cpu}"))
            with open(os.path.join(d, "per_cpu", f"cpu{cpu}", "stats"), "w", encoding="utf-8") as f:
                f.write(f"entries: 7\noverrun: {over}\ncommit overrun: {commit}\n"
                        f"bytes: 560\noldest event ts: 8.372353\ndropped events: {dropped}\n"
                        "read events: 0\n")
        tap(gb.trace_lost(d) == 10, "trace_lost() sums overruns, commit overruns and drops",
            gb.trace_lost(d))

    for log, raw in zip(argv[1::2], argv[2::2]):
        with open(raw, encoding="utf-8") as f:
            table = list(csv.DictReader(f))
        want = [[r["workload"], r["metric"], r["value"], r["unit"], r["better"], r["ops"]]
                for r in table]
        measured = records(log)[len({r["workload"] for r in table}):]
        sz = dict(SIZES, **{k: int(v) for k, v in
                            (a.split("=") for a in os.environ.get("SIZES", "").split() if a)})
        got = [r for w, _, _, out in measured for r in rows(w, out, sz)]
        tap(got == want, f"{log}: {len(measured)} runs give raw.csv's {len(want)} rows",
            "\n".join(f"got {g}, want {e}" for g, e in zip(got, want) if g != e)[:2000])

    print(f"1..{n}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
