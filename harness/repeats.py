#!/usr/bin/env python3
"""What make repeat's runs say: failures per test, spread per bound.

    harness/repeats.py build/repeat/<run> [build/repeat/<run> ...]

Reads <topology>/repeat-<n>.log under each run directory (one run of the
placement and promise programs each). For every test case: how many runs
passed, failed and skipped (and each program, whose crash or timeout
shows only there). For every value a test holds to a bound (the lines
expect_bound() in sync_wakeup_placement.c writes, "LABEL: WHAT V, bounds
[LO, HI]"): its minimum and maximum over the runs, the bound, and the
margin left below and above (negative: outside). Exits 2 on a directory
without such logs; a failure shows in the table, not in the status (the
TAP summary counts it).
"""
import collections
import pathlib
import re
import sys

CASE = re.compile(r"^# (?P<not>not )?ok \d+ (?P<case>\w+\.\w+)(?P<skip> # SKIP)?")
# run_kselftest.sh's line for a whole program: a crash or a timeout shows
# only here.
PROGRAM = re.compile(r"^(?P<not>not )?ok \d+ selftests: \S+: (?P<prog>\w+)(?P<rest>.*)$")
BOUND = re.compile(r"^# # (?P<file>sync_wakeup_\w+)\.c:\d+:(?P<test>\w+):(?P<label>.+?): "
                   r"(?P<what>[^:]+?) (?P<v>-?[\d.]+), bounds \[(?P<lo>-?[\d.]+), (?P<hi>-?[\d.]+)\]")


def read(logs):
    """({(topo, case): [passed, failed, skipped]},
    {(topo, test, label, what, lo, hi): [values]}); a program counts as
    a case of its own name."""
    cases = collections.defaultdict(lambda: [0, 0, 0])
    bounds = collections.defaultdict(list)
    for log in logs:
        topo = log.parent.name
        for line in log.read_text(errors="replace").splitlines():
            m = CASE.match(line) or PROGRAM.match(line)
            if m:
                name = m.groupdict().get("case") or m["prog"]
                skip = m.groupdict().get("skip") or "# SKIP" in (m.groupdict().get("rest") or "")
                cases[(topo, name)][2 if skip else 1 if m["not"] else 0] += 1
                continue
            m = BOUND.match(line)
            if m:
                key = (topo, m["test"], m["label"], m["what"], float(m["lo"]), float(m["hi"]))
                bounds[key].append(float(m["v"]))
    return cases, bounds


def main(dirs):
    if not dirs:
        sys.exit(__doc__.strip())
    logs = []
    for d in map(pathlib.Path, dirs):
        found = sorted(d.glob("*/repeat-*.log"))
        if not found:
            print(f"{d}: no <topology>/repeat-<n>.log: name a make repeat results directory",
                  file=sys.stderr)
            sys.exit(2)
        logs += found
    cases, bounds = read(logs)
    runs = collections.Counter(log.parent.name for log in logs)
    print("Runs per topology: " + ", ".join(f"{t} {n}" for t, n in sorted(runs.items())))
    print()
    print(f"{'topology':8} {'program or test case':42} passed failed skipped")
    for (topo, case), (ok, bad, skipped) in sorted(cases.items()):
        print(f"{topo:8} {case:42} {ok:6} {bad:6} {skipped:7}{'  <-' if bad else ''}")
    print()
    # Margins on each side: min - low bound, high bound - max.
    print(f"{'topology':8} {'test':28} {'arm: value':62} runs  min    max    "
          f"bound         margins")
    for key, values in sorted(bounds.items()):
        topo, test, label, what, lo, hi = key
        low, high = min(values), max(values)
        below, above = low - lo, hi - high
        print(f"{topo:8} {test:28} {(label + ': ' + what)[:62]:62} {len(values):4}  "
              f"{low:.3f}  {high:.3f}  [{lo:.2f}, {hi:.2f}]  {below:+.3f} {above:+.3f}"
              f"{'  <-' if min(below, above) < 0 else ''}")


if __name__ == "__main__":
    main(sys.argv[1:])
