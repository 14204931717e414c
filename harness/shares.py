#!/usr/bin/env python3
"""The shares the placement tests log, over one or more make check runs.

    harness/shares.py build/check/<run> [build/check/<run> ...]

For each topology and test: the same-CPU share of a ping-pong's handoffs,
the promise-kept share, and where the counted decisions landed (shares of
sync_wakeups), as min-max over the runs given. This is how the bounds in
sync_wakeup_placement.c were set: run make check a few times, read the
spread here.
"""
import collections
import pathlib
import re
import sys

LINE = re.compile(r"^# # sync_wakeup_placement\.c:\d+:(?P<test>\w+):(?P<label>[^:]+): (?P<text>.*)$")
SHARE = re.compile(r"same-CPU share (?P<v>[\d.]+) \(")
PROMISES = re.compile(r"promises slept \d+ late \d+ awake \d+, kept (?P<v>[\d.]+) "
                      r"\(this process (?P<own>[\d.]+)\)")
COUNTERS = re.compile(r"(\w+)=(\d+)")
LANDINGS = ("landed_waker_cpu", "landed_smt_sibling", "landed_same_llc", "landed_other_llc")


def shares(log):
    """{(test, label, what): value} from one guest's output.log."""
    out = {}
    for line in log.read_text(errors="replace").splitlines():
        m = LINE.match(line)
        if not m:
            continue
        key = (m["test"], m["label"])
        text = m["text"]
        s = SHARE.search(text)
        if s:
            out[key + ("same-CPU",)] = float(s["v"])
        s = PROMISES.search(text)
        if s:
            out[key + ("promises kept",)] = float(s["v"])
            out[key + ("own promises kept",)] = float(s["own"])
        if text.startswith("sync_wakeups="):
            c = {k: int(v) for k, v in COUNTERS.findall(text)}
            if c.get("sync_wakeups"):
                for name in LANDINGS:
                    out[key + (name,)] = c.get(name, 0) / c["sync_wakeups"]
    return out


def main(runs):
    if not runs:
        sys.exit(__doc__.strip())
    seen = collections.defaultdict(list)
    for run in map(pathlib.Path, runs):
        logs = sorted(run.glob("*/output.log"))
        if not logs:
            sys.exit(f"{run}: no <topology>/output.log: name a make check results directory")
        for log in logs:
            for key, value in shares(log).items():
                seen[(log.parent.name,) + key].append(value)
    print(f"{'topology':8} {'test':26} {'arm':30} {'share':18} runs  min    max")
    for key in sorted(seen):
        v = seen[key]
        print(f"{key[0]:8} {key[1]:26} {key[2][:30]:30} {key[3]:18} {len(v):4}  "
              f"{min(v):.3f}  {max(v):.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])
