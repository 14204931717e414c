#!/usr/bin/env python3
"""Set two sets of make bench results side by side (make compare).

For every workload, metric and arm that both A and B ran: each side's mean
and CV, and the change of B's mean against A's with its 95% interval
(Welch, as in table.md), the way compare-mmtests sets two mmtests runs
side by side. A and B may be two machines, two kernels or two clocks: the
header gives each side's kernel, clock, topology and commit from its
meta.txt, and says so where they differ; whether a comparison across
clocks means anything is the reader's call. Several results on one side
are pooled (make bench-overhead's boots of one kernel); runs pair by round
only within one file, so A and B never pair. Writes OUT/compare.md and
OUT/compare.csv.

Usage: compare.py [--names A B] [--out DIR] [--title T] --a PATH... --b PATH...
  PATH: a results directory with raw.csv in it, or a raw.csv
"""

import argparse
import csv
import os
import sys

import analyze as an

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "results")
META_KEYS = ["guest.kernel", "guest.preempt", "guest.cmdline", "host.cpu", "accel", "clock",
             "topology", "repo", "tcg.thread", "pairs"]


def die(msg):
    sys.exit(f"compare: error: {msg}")


def csv_of(path):
    p = os.path.join(path, "raw.csv") if os.path.isdir(path) else path
    if not os.path.isfile(p):
        die(f"{path}: neither a raw.csv nor a results directory with one "
            "(make bench writes results/<date-time>/raw.csv)")
    return p


def name_of(path):
    """A side's name: its directory, under results/ if it is there."""
    d = os.path.dirname(os.path.abspath(path))
    rel = os.path.relpath(d, os.path.abspath(RESULTS))
    return d if rel.startswith("..") else rel


def meta(paths):
    """{key: value} of the first meta.txt beside PATHS, for META_KEYS."""
    out = {}
    for key, val in an.read_meta(paths):
        if key in META_KEYS:
            out.setdefault(key, val.split(" (")[0])
    # Runs from before PAIRS=1 were not traced; untraced runs need no row.
    if out.get("pairs", "0") == "0":
        out.pop("pairs", None)
    return out


def compare(a_rows, b_rows, names):
    """[(workload, metric, arm, group)]: for each arm both sides ran, the
    runs of A and of B as two arms named by NAMES, summarised against A."""
    out = []
    arms = [x for x in dict.fromkeys(r["arm"] for r in a_rows)
            if any(r["arm"] == x for r in b_rows)]
    for arm in an.ordered(arms, an.ARM_ORDER):
        rows = [dict(r, arm=names[0]) for r in a_rows if r["arm"] == arm] + \
               [dict(r, arm=names[1]) for r in b_rows if r["arm"] == arm]
        for (w, metric), g in an.summarise(rows, names[0]).items():
            if len(g["arms"]) == 2:
                out.append((w, metric, arm, g))
    order = {w: i for i, w in enumerate(an.WORKLOAD_ORDER)}
    out.sort(key=lambda x: order.get(x[0], len(order)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--a", nargs="+", required=True, metavar="PATH", help="side A")
    ap.add_argument("--b", nargs="+", required=True, metavar="PATH", help="side B")
    ap.add_argument("--names", nargs=2, help="the sides' names (default: their "
                    "directories, A and B if those are the same)")
    ap.add_argument("--out", required=True, help="directory for compare.md and compare.csv")
    ap.add_argument("--title", default="", help="first line of compare.md")
    args = ap.parse_args()
    a_paths, b_paths = [csv_of(p) for p in args.a], [csv_of(p) for p in args.b]
    names = args.names or [name_of(a_paths[0]), name_of(b_paths[0])]
    if names[0] == names[1]:
        if args.names:
            die(f"--names gives both sides the name {names[0]}")
        names = ["A", "B"]
    a, b = names
    rows = compare(an.read_rows(a_paths), an.read_rows(b_paths), names)
    if not rows:
        die(f"{a} and {b} have no workload and arm in common: nothing to compare")

    ma, mb = meta(a_paths), meta(b_paths)
    md = [f"# {args.title or f'{b} against {a}'}", "",
          f"{a}: {', '.join(a_paths)}", f"{b}: {', '.join(b_paths)}", ""]
    md += ["| | " + a + " | " + b + " |", "|---|---|---|"]
    for k in META_KEYS:
        if k in ma or k in mb:
            va, vb = ma.get(k, "-"), mb.get(k, "-")
            md.append(f"| {k}{' (differs)' if va != vb else ''} | {va} | {vb} |")
    traced = [n for n, m in ((a, ma), (b, mb)) if m.get("pairs") == "1"]
    if traced:
        md += ["", f"{' and '.join(traced)}: traced (make bench PAIRS=1), the times of the "
               "single-pair workloads include the trace event's cost: compare their "
               "placement, not their times."]
    md += ["", f"Δ: the change of {b}'s mean against {a}'s, in % of {a}'s, with the "
           f"{an.TEST}; where that interval spans zero, \"{an.NO_DIFF}\". The runs of "
           f"each side pooled; n: runs of {a} / of {b}.", "",
           f"| workload | metric | arm | n | {a} mean | {a} CV | {b} mean | {b} CV "
           f"| Δ {b} vs {a} [95% CI] | |",
           "|---|---|---|--:|--:|--:|--:|--:|--:|---|"]
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "compare.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["workload", "metric", "unit", "better", "arm", f"{a}_n", f"{a}_mean",
                    f"{a}_cv", f"{b}_n", f"{b}_mean", f"{b}_cv", "delta_pct",
                    "ci95_lo_pct", "ci95_hi_pct", "welch_p"])
        for wl, metric, arm, g in rows:
            sa, sb = g["arms"][a], g["arms"][b]
            md.append(f"| {wl} | {metric} ({g['unit']}) | {arm} | {sa['n']}/{sb['n']} | "
                      f"{an.num(sa['mean'])} | {an.cv_pct(sa['cv'])} | {an.num(sb['mean'])} | "
                      f"{an.cv_pct(sb['cv'])} | {an.change(sb)} | "
                      f"{an.verdict(sb, g['better'], b, a)} |")
            w.writerow([wl, metric, g["unit"], g["better"], arm, sa["n"], f"{sa['mean']:.6g}",
                        f"{sa['cv']:.4f}", sb["n"], f"{sb['mean']:.6g}", f"{sb['cv']:.4f}",
                        *an.ci_cells(sb)])
    text = "\n".join(md) + "\n"
    with open(os.path.join(args.out, "compare.md"), "w", encoding="utf-8") as f:
        f.write(text)
    try:
        sys.stdout.write(text)
    except BrokenPipeError:
        pass


if __name__ == "__main__":
    main()
