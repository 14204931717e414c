#!/usr/bin/env python3
"""Summarise bench runs (raw.csv from bench/guest-bench.py) per workload and arm.

For every workload and metric, and every arm: n, mean, median, coefficient
of variation, min, the change of the mean against the baseline arm with its
95% confidence interval (Welch: unequal variances, Welch-Satterthwaite
degrees of freedom, from scipy.stats), and the share of sync wakeups the
feature kept on the waker's CPU or whose hint it dropped (from the kernel's
counters). A change whose interval spans zero is "no difference shown" and
has no sign. The interval is for the difference of the means, scaled by the
baseline's mean; a t interval holds with few runs where a bootstrap would
under-cover, if the runs of an arm are roughly normal. Beside it, the change
paired by round: every arm of a workload runs back to back within a round,
so a slow spell of the host (which made whole rounds slow on llc2 and smt)
hits them all; the geometric mean of the per-round ratio arm / baseline,
with the t interval of its logarithm, leaves that out. Writes table.md
(also printed), summary.csv and plot.png (gnuplot: every workload
normalised to the baseline arm's mean).

Usage: analyze.py [--baseline ARM] [--out DIR] [--no-plot] raw.csv [more.csv ...]
"""

import argparse
import csv
import math
import os
import shutil
import statistics
import subprocess
import sys

try:
    from scipy import stats
except ImportError:
    sys.exit("analyze: error: scipy is missing: apt-get install python3-scipy "
             "(or make deps), and run it with Debian's /usr/bin/python3")

from defs import DEFS  # noqa: E402

COLUMNS = DEFS["CSV_COLUMNS"]
# The placement profile guest-bench.py appends: the run's operations, the
# landing, promise and (since 2026-12-03) context counters, whole-system
# deltas. Files of either version are read.
LANDINGS = [c for c in DEFS["STATS_COUNTERS"] if c.startswith("landed_")]
CONTEXTS = [c for c in DEFS["STATS_COUNTERS"] if c.startswith("context_")]
PROFILE = ["ops"] + DEFS["STATS_COUNTERS"] + DEFS["SYSTEM_COUNTERS"]
# Older runs: without the unjudged promises and probes (V2), also without
# the contexts (V1). Since 2026-12-07 the main pair's own decisions
# (make bench PAIRS=1; empty without it) follow.
PAIRS = DEFS["PAIR_COUNTERS"]
PROFILE_V2 = [c for c in PROFILE if c not in ("promise_unjudged", "probe")]
PROFILE_V1 = [c for c in PROFILE_V2 if c not in CONTEXTS]
ARM_ORDER = ["base", "patched-off", "off"] + DEFS["POLICIES"] + ["groups"]
WORKLOAD_ORDER = DEFS["WORKLOADS_ALL"] + DEFS["WORKLOADS_EXTRA"]

PROFILE_NOTE = (
    "Placement profile (before each workload's timings): where the feature "
    "placed the wakees of decided sync wakeups (landed_* of sync_wakeup_stats, "
    "as shares of their sum; \"-\" where the feature is off or absent), the "
    "share of the wakers' promises to sleep they kept, the shares decided in a "
    "softirq the waker ran itself and in any other interrupt (context_* of "
    "sync_wakeup_stats; \"-\" in runs from before they were counted), and "
    "whole-system figures "
    "over the run from the kernel's own counters: wakeups that ran on the waking "
    "CPU and wake_affine() moves (schedstats ttwu_local, ttwu_move_affine over "
    "ttwu_count), IPIs (rescheduling and function-call, /proc/interrupts), "
    "context switches, the wait of runnable tasks (schedstats run_delay) and "
    "load-balance migrations, per operation of the workload. Placement is what "
    "a policy changes directly and depends far less on emulation than time does; "
    "it is not independent of timing (an idle vCPU, a tick that catches a waker "
    "before it sleeps), so it carries to hardware better than the timings, not "
    "exactly.")
PAIRS_NOTE = (
    "Traced (make bench PAIRS=1): \"pair's decisions\" counts the decisions "
    "between each run's main pair, the two tasks with the most decisions between "
    "them, both ways (the sched_sync_wakeup trace event; task and softirq_bh "
    "context, where the waker is current): a pipe's or sockperf's pair, the UDP "
    "sender and its receiver, without the workload's setup, its exit and other "
    "wakers; counted only for the workloads with one pair (PAIR_WORKLOADS). The "
    "shares are those of their verdicts kept_on_waker_cpu, hint_dropped and probe; "
    "the rest were declined (hint-only's verdict is hint_only: never kept, "
    "wherever its wakee lands).")
PAIRS_COST = (
    "**Traced runs (make bench PAIRS=1)**: the trace event's cost grows with the "
    "decisions an arm makes (hundreds a run for a pair kept together, about "
    "16,000 for a pipe pair apart), so these times compare neither between arms nor with "
    "untraced runs: read the placement, not the changes.")
CONFIDENCE = 0.95
TEST = "95% confidence interval of the change of the mean (Welch, unequal variances)"
PAIRED = ("the geometric mean of the per-round ratio to the baseline, with the 95% t "
          "interval of its logarithm, over the rounds where both ran in one boot")
NO_DIFF = "no difference shown"
# Fewer than 2 runs on a side: no interval, so no change is claimed.
NO_CI = "n < 2, no interval"

# The tables of the thread the kernel document summarises (its References,
# Documentation/scheduler/sched-sync-wakeup.rst): one row per arm, one
# column per case.
def _case(kind, g):
    return f"{kind}, {g} group{'s' if g > 1 else ''}"


SUMMARIES = [
    ("pipe", "`perf bench sched pipe`",
     [("pipe", "default"), ("pipe-cpu01", "taskset -c 0,1"), ("pipe-cpu0", "taskset -c 0")]),
    ("messaging", "`perf bench sched messaging -p` (pipes)",
     [(f"msg-{m}-g{g}", _case(k, g)) for m, k in (("thread", "threads"), ("process", "processes"))
      for g in (1, 2, 4)]),
    ("hackbench", "rt-tests `hackbench --pipe`",
     [(f"hackbench-{m}-g{g}", _case(k, g))
      for m, k in (("thread", "threads"), ("process", "processes")) for g in (1, 2, 4)]),
    ("sockperf", "`sockperf ping-pong --tcp` on loopback",
     [("sockperf", None)]),
    ("tbench", "dbench's `tbench` on loopback",
     [("tbench-1", "1 client"), ("tbench-nproc", "nproc clients"),
      ("tbench-2nproc", "2 x nproc clients")]),
    ("udp-stream", "`iperf3 -u -b 0` on loopback (receiver)",
     [("udp-stream", None)]),
]


def die(msg):
    sys.exit(f"analyze: error: {msg}")


# --- Welch's interval ---------------------------------------------------------

def welch(xs, ys):
    """Welch's comparison of the means of xs and ys: {"diff", "lo", "hi", "p"}
    (the difference of the means, its confidence interval at CONFIDENCE, the
    two-sided p), or None with fewer than 2 runs on either side."""
    n1, n2 = len(xs), len(ys)
    if n1 < 2 or n2 < 2:
        return None
    diff = statistics.fmean(xs) - statistics.fmean(ys)
    v1, v2 = statistics.variance(xs) / n1, statistics.variance(ys) / n2
    if v1 + v2 == 0.0:
        return {"diff": diff, "lo": diff, "hi": diff, "p": 1.0 if diff == 0 else 0.0}
    df = (v1 + v2) ** 2 / (v1 ** 2 / (n1 - 1) + v2 ** 2 / (n2 - 1))
    half = stats.t.ppf(0.5 + CONFIDENCE / 2, df) * math.sqrt(v1 + v2)
    p = stats.ttest_ind(xs, ys, equal_var=False).pvalue
    return {"diff": diff, "lo": diff - half, "hi": diff + half, "p": float(p)}


def paired(xs, ys):
    """Paired comparison of {round: value} maps xs and ys on a log scale:
    {"n", "pct", "lo", "hi"} (the geometric mean of xs / ys over the rounds
    both have, as a change in %, and its interval at CONFIDENCE), or None
    with fewer than 2 such rounds or a value that is not positive."""
    keys = sorted(k for k in xs if k in ys)
    if len(keys) < 2 or any(xs[k] <= 0 or ys[k] <= 0 for k in keys):
        return None
    logs = [math.log(xs[k] / ys[k]) for k in keys]
    m = statistics.fmean(logs)
    half = stats.t.ppf(0.5 + CONFIDENCE / 2, len(logs) - 1) * \
        statistics.stdev(logs) / math.sqrt(len(logs))
    return {"n": len(keys), "pct": 100.0 * math.expm1(m),
            "lo": 100.0 * math.expm1(m - half), "hi": 100.0 * math.expm1(m + half)}


def by_round(runs):
    """{(file, round): value}; None if a round of a file has two runs."""
    out = {}
    for r in runs:
        key = (r["_file"], r["round"])
        if key in out:
            return None
        out[key] = r["value"]
    return out


# --- reading ----------------------------------------------------------------

def read_rows(paths):
    rows = []
    for path in paths:
        try:
            f = open(path, newline="")
        except OSError as e:
            die(f"cannot read {path}: {e.strerror}")
        with f:
            reader = csv.DictReader(f)
            if reader.fieldnames not in (COLUMNS, COLUMNS + PROFILE_V1, COLUMNS + PROFILE_V2,
                                         COLUMNS + PROFILE, COLUMNS + PROFILE + PAIRS):
                die(f"{path}: header is {reader.fieldnames}, want {','.join(COLUMNS)} "
                    "(and the placement columns after them): "
                    "is it a raw.csv from bench/guest-bench.py?")
            for i, r in enumerate(reader, start=2):
                try:
                    r["value"] = float(r["value"])
                except ValueError:
                    die(f"{path}:{i}: value '{r['value']}' is not a number")
                if r["better"] not in ("lower", "higher"):
                    die(f"{path}:{i}: better is '{r['better']}', want lower or higher")
                # Runs pair up only within one file: one boot's rounds.
                r["_file"] = path
                rows.append(r)
    if not rows:
        die(f"no runs in {', '.join(paths)}: did the benchmark run?")
    return rows


def read_meta(paths):
    """[(key, value)] of the meta.txt beside the first CSV, if any."""
    meta = os.path.join(os.path.dirname(os.path.abspath(paths[0])), "meta.txt")
    if not os.path.exists(meta):
        return []
    with open(meta, encoding="utf-8") as f:
        return [(k, v.strip()) for k, sep, v in (line.partition(": ") for line in f) if sep]


def ordered(items, order):
    known = [x for x in order if x in items]
    return known + [x for x in items if x not in order]


# --- statistics ---------------------------------------------------------------

def summarise(rows, baseline):
    """{(workload, metric): {"unit", "better", "arms": {arm: stats}}}"""
    groups = {}
    for r in rows:
        g = groups.setdefault((r["workload"], r["metric"]),
                              {"unit": r["unit"], "better": r["better"], "runs": {}})
        g["runs"].setdefault(r["arm"], []).append(r)
    for key, g in groups.items():
        g["arms"] = {}
        base = [r["value"] for r in g["runs"].get(baseline, [])]
        base_rounds = by_round(g["runs"].get(baseline, []))
        base_mean = statistics.fmean(base) if base else None
        for arm, runs in g["runs"].items():
            v = [r["value"] for r in runs]
            mean = statistics.fmean(v)
            sd = statistics.stdev(v) if len(v) > 1 else float("nan")
            s = {"n": len(v), "mean": mean, "median": statistics.median(v), "stddev": sd,
                 "cv": sd / abs(mean) if len(v) > 1 and mean else float("nan"),
                 "min": min(v)}
            s["delta"] = (100.0 * (s["mean"] - base_mean) / abs(base_mean)
                          if base_mean else None)
            s["test"] = welch(v, base) if base and arm != baseline else None
            rounds = by_round(runs)
            s["paired"] = (paired(rounds, base_rounds)
                           if rounds and base_rounds and arm != baseline else None)
            # The change and its interval in % of the baseline's mean.
            s["ci"] = None
            if s["test"] and base_mean:
                s["ci"] = tuple(100.0 * s["test"][k] / abs(base_mean) for k in ("lo", "hi"))
            for name in ("kept_on_waker_cpu", "hint_dropped"):
                shares = [x for x in (share(r, [name], ["sync_wakeups"]) for r in runs)
                          if x is not None]
                s[name] = statistics.fmean(shares) if shares else None
            g["arms"][arm] = s
        g["base_mean"] = base_mean
    return groups


def shown(s):
    """Did the arm's change of the mean exclude zero at CONFIDENCE?"""
    return s["ci"] is not None and (s["ci"][0] > 0 or s["ci"][1] < 0)


def verdict(s, better, arm, baseline):
    if arm == baseline:
        return "baseline"
    if s["ci"] is None:
        return NO_CI
    if not shown(s):
        return NO_DIFF
    good = (s["delta"] < 0) == (better == "lower")
    return f"**{'better' if good else 'worse'}**"


def change(s):
    """"+32.2% [+20.1, +44.3]"; only the interval where it spans zero."""
    if s["delta"] is None:
        return "-"
    if s["ci"] is None:
        return NO_CI
    if not shown(s):
        return f"[{s['ci'][0]:+.1f}, {s['ci'][1]:+.1f}]"
    return f"{s['delta']:+.1f}% [{s['ci'][0]:+.1f}, {s['ci'][1]:+.1f}]"


def paired_change(s):
    """"+12.7% [+4.4, +21.5]"; the interval alone where it spans zero."""
    p = s["paired"]
    if p is None:
        return "-"
    if p["lo"] <= 0 <= p["hi"]:
        return f"[{p['lo']:+.1f}, {p['hi']:+.1f}]"
    return f"{p['pct']:+.1f}% [{p['lo']:+.1f}, {p['hi']:+.1f}]"


def num(x):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{x:.4g}" if abs(x) < 1e5 else f"{x:.0f}"


def pct(x, signed=True):
    if x is None or math.isnan(x):
        return "-"
    return f"{x:+.1f}%" if signed else f"{100 * x:.0f}%"


def cv_pct(x):
    """A CV to one decimal: under QEMU's icount clock they are tenths of a percent."""
    if x is None or math.isnan(x):
        return "-"
    return f"{100 * x:.1f}%"


def opt(x, spec):
    """x formatted for a CSV cell, empty for None."""
    return "" if x is None else format(x, spec)


# --- placement profile ------------------------------------------------------

def share(r, parts, whole):
    """sum of the columns in parts / sum of those in whole, for one run; None
    if not counted."""
    try:
        d = sum(int(r[c]) for c in whole)
        return sum(int(r[c]) for c in parts) / d if d > 0 else None
    except (KeyError, TypeError, ValueError):
        return None


def total(r, col):
    """One run's count in col; None if not counted."""
    try:
        return int(r[col])
    except (KeyError, TypeError, ValueError):
        return None


def per_op(r, cols, scale=1.0):
    """sum of cols / ops of one run, times scale; None if not counted."""
    try:
        return scale * sum(int(r[c]) for c in cols) / int(r["ops"])
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return None


# (heading, unit: share or a number format, per-run function)
PROFILE_FIGURES = [
    ("on waker CPU", "share", lambda r: share(r, ["landed_waker_cpu"], LANDINGS)),
    ("SMT sibling", "share", lambda r: share(r, ["landed_smt_sibling"], LANDINGS)),
    ("same LLC", "share", lambda r: share(r, ["landed_same_llc"], LANDINGS)),
    ("other LLC", "share", lambda r: share(r, ["landed_other_llc"], LANDINGS)),
    ("promises kept", "share", lambda r: share(r, ["promise_kept"], ["promise_kept", "promise_broken"])),
    ("in waker's softirq", "share", lambda r: share(r, ["context_softirq_bh"], CONTEXTS)),
    ("in other irq", "share", lambda r: share(r, ["context_softirq", "context_hardirq"], CONTEXTS)),
    ("ttwu on waking CPU", "share", lambda r: share(r, ["ttwu_local"], ["ttwu_count"])),
    ("wake_affine() moves", "share", lambda r: share(r, ["ttwu_move_affine"], ["ttwu_count"])),
    ("IPIs / op", ".3g", lambda r: per_op(r, ["ipi_resched", "ipi_call"])),
    ("of which function call", "share", lambda r: share(r, ["ipi_call"], ["ipi_resched", "ipi_call"])),
    ("ctx switches / op", ".3g", lambda r: per_op(r, ["ctx_switches"])),
    ("run delay / op (usec)", ".3g", lambda r: per_op(r, ["run_delay_ns"], 1e-3)),
    ("lb migrations / 1k op", ".3g", lambda r: per_op(r, ["lb_migrations"], 1e3)),
    # Last, so that older tables keep their columns' places.
    ("promises unjudged", "share",
     lambda r: share(r, ["promise_unjudged"], ["promise_kept", "promise_broken", "promise_unjudged"])),
    ("probes", "share", lambda r: share(r, ["probe"], ["sync_wakeups"])),
    ("pair's decisions", ".0f", lambda r: total(r, "pair_sync")),
    ("pair's kept", "share", lambda r: share(r, ["pair_kept"], ["pair_sync"])),
    ("pair's hint dropped", "share", lambda r: share(r, ["pair_dropped"], ["pair_sync"])),
    ("pair's probes", "share", lambda r: share(r, ["pair_probe"], ["pair_sync"])),
]
# Left out of a table where no run counted them.
PROFILE_LATE = ("promises unjudged", "probes", "pair's decisions", "pair's kept",
                "pair's hint dropped", "pair's probes")


def profiles(rows):
    """{workload: {arm: [mean of each PROFILE_FIGURES entry or None]}}, from
    the first metric of each workload (its other metrics share the runs);
    {} for runs without the placement columns."""
    first, runs = {}, {}
    for r in rows:
        if "ops" not in r:
            return {}
        if first.setdefault(r["workload"], r["metric"]) != r["metric"]:
            continue
        runs.setdefault(r["workload"], {}).setdefault(r["arm"], []).append(r)
    out = {}
    for w, by_arm in runs.items():
        for arm, rs in by_arm.items():
            means = []
            for _, _, f in PROFILE_FIGURES:
                v = [x for x in (f(r) for r in rs) if x is not None]
                means.append(statistics.fmean(v) if v else None)
            out.setdefault(w, {})[arm] = means
    return out


def profile_mean(prof, w, arm, i):
    """PROFILE_FIGURES[i]'s mean for workload w under arm, or None."""
    return prof.get(w, {}).get(arm, [None] * len(PROFILE_FIGURES))[i]


def figure(m, fmt):
    """A placement figure as the tables give it: a share in %, else fmt."""
    if m is None:
        return "-"
    return f"{100 * m:.1f}%" if fmt == "share" else format(m, fmt)


def profile_table(w, by_arm, arms):
    op = ("a message" if w.startswith(("msg", "hackbench")) else
          "a datagram received" if w == "udp-stream" else
          "an operation of its closing table" if w.startswith("tbench") else "a round trip")
    shown = [a for a in arms if a in by_arm]
    # A figure older runs did not count (PROFILE_LATE) is left out.
    cols = [i for i in range(len(PROFILE_FIGURES))
            if any(by_arm[a][i] is not None for a in shown)
            or PROFILE_FIGURES[i][0] not in PROFILE_LATE]
    out = [f"#### {w}: placement profile (mean over runs; op: {op})\n",
           "| arm | " + " | ".join(PROFILE_FIGURES[i][0] for i in cols) + " |",
           "|---|" + "--:|" * len(cols)]
    for arm in shown:
        cells = [figure(by_arm[arm][i], PROFILE_FIGURES[i][1]) for i in cols]
        out.append(f"| {arm} | " + " | ".join(cells) + " |")
    out.append("")
    return out


def plot_profile(outdir, prof, arms, workloads):
    """placement.png: per workload and arm, the share of wakeups run on the
    waking CPU (schedstats) and the IPIs per operation."""
    if not shutil.which("gnuplot"):
        return "no placement plot: gnuplot is missing (apt-get install gnuplot-nox)"
    heads = [h for h, _, _ in PROFILE_FIGURES]
    panels = [("local", heads.index("ttwu on waking CPU"), "wakeups run on the waking CPU", "[0:1]"),
              ("ipi", heads.index("IPIs / op"), "IPIs per operation (resched + call)", "[0:*]")]
    lines, shown = ["label " + " ".join(arms)], []
    for tag, i, ylabel, yrange in panels:
        have = False
        for wl in workloads:
            if wl not in prof:
                continue
            cells = []
            for arm in arms:
                m = profile_mean(prof, wl, arm, i)
                have = have or (m is not None)
                cells.append("?" if m is None else f"{m:.5f}")
            lines.append(f"{tag}:{wl} " + " ".join(cells))
        if have:
            shown.append((tag, ylabel, yrange))
    if not shown:
        return "no placement plot: the runs carry no placement figures"
    dat = os.path.join(outdir, "placement.dat")
    width = plot_width(sum(1 for wl in workloads if wl in prof), arms)
    script = f"""
set terminal pngcairo size {width},{450 * len(shown)} noenhanced font ",10"
set output '{os.path.join(outdir, "placement.png")}'
set datafile missing '?'
set style data histograms
set style histogram clustered gap 2
set style fill solid 0.7 border -1
set boxwidth 0.9
set grid ytics
set xtics rotate by -35 scale 0
set key outside top center horizontal
set multiplot layout {len(shown)},1
"""
    for tag, ylabel, yrange in shown:
        script += f"""set ylabel "{ylabel}"
set yrange {yrange}
plot for [i=2:{len(arms) + 1}] '< grep -E "^(label|{tag}:)" {dat} | sed "s/^{tag}://"' using i:xtic(1) title columnheader(i)
unset key
"""
    script += "unset multiplot\n"
    return gnuplot("placement plot", dat, lines, script)


def plot_width(n, arms):
    """Pixels for n clusters of a bar per arm."""
    return max(900, 60 + n * (len(arms) * 14 + 30))


def gnuplot(what, dat, lines, script):
    """lines to dat, then gnuplot on script: why there is no what, or None."""
    with open(dat, "w") as f:
        f.write("\n".join(lines) + "\n")
    res = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
    if res.returncode != 0:
        return f"no {what}: gnuplot failed: {res.stderr.strip()}"
    return None


# --- output -------------------------------------------------------------------

def workload_tables(groups, arms, workloads, baseline, cmds, prof=None):
    out = []
    for w in workloads:
        if prof and w in prof:
            out += profile_table(w, prof[w], arms)
        for (gw, metric), g in groups.items():
            if gw != w:
                continue
            cmd = f" — `{cmds[w]}`" if w in cmds else ""
            out.append(f"### {w}: {metric}, {g['unit']}, {g['better']} is better{cmd}\n")
            out.append(f"Δ: {TEST} against {baseline}, in % of its mean. "
                       f"Paired by round: {PAIRED}.\n")
            out.append(f"| arm | n | mean | median | CV | min | Δ mean vs {baseline} [95% CI] "
                       "| verdict | paired by round [95% CI] "
                       "| fired: kept on waker CPU / hint dropped |")
            out.append("|---|--:|--:|--:|--:|--:|--:|---|--:|--:|")
            for arm in arms:
                s = g["arms"].get(arm)
                if s is None:
                    continue
                fired = "-"
                if s["kept_on_waker_cpu"] is not None or s["hint_dropped"] is not None:
                    fired = (f"{pct(s['kept_on_waker_cpu'], False)} / "
                             f"{pct(s['hint_dropped'], False)}")
                out.append(f"| {arm} | {s['n']} | {num(s['mean'])} | {num(s['median'])} "
                           f"| {cv_pct(s['cv'])} | {num(s['min'])} | "
                           f"{'-' if arm == baseline else change(s)} | "
                           f"{verdict(s, g['better'], arm, baseline)} | "
                           f"{paired_change(s)} | {fired} |")
            out.append("")
    return out


def summary_tables(groups, arms, baseline):
    out = []
    for name, what, cases in SUMMARIES:
        cols = []  # (label, workload, metric)
        for w, label in cases:
            for (gw, metric), g in groups.items():
                if gw == w:
                    cols.append((label or metric, w, metric, g))
        if not cols:
            continue
        units = sorted({f"{g['unit']}, {g['better']} is better" for _, _, _, g in cols})
        out.append(f"### {name}: {what}; mean ({'; '.join(units)}), "
                   f"Δ vs {baseline} where its {TEST} excludes zero\n")
        out.append("| arm | " + " | ".join(c[0] for c in cols) + " |")
        out.append("|---|" + "--:|" * len(cols))
        for arm in arms:
            cells = []
            for _, _, _, g in cols:
                s = g["arms"].get(arm)
                if s is None:
                    cells.append("-")
                elif arm == baseline or s["delta"] is None:
                    cells.append(num(s["mean"]))
                else:
                    label = NO_CI if s["ci"] is None else (
                        pct(s["delta"]) if shown(s) else NO_DIFF)
                    cells.append(f"{num(s['mean'])} ({label})")
            out.append(f"| {arm} | " + " | ".join(cells) + " |")
        out.append("")
    return out


def write_summary_csv(path, groups, arms, workloads, baseline):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["workload", "metric", "unit", "better", "arm", "n", "mean", "median",
                    "stddev", "cv", "min", f"delta_pct_vs_{baseline}", "ci95_lo_pct",
                    "ci95_hi_pct", "welch_p", "paired_n", "paired_pct", "paired_lo_pct",
                    "paired_hi_pct", "kept_share", "hint_dropped_share"])
        for wl in workloads:
            for (gw, metric), g in groups.items():
                if gw != wl:
                    continue
                for arm in arms:
                    s = g["arms"].get(arm)
                    if s is None:
                        continue
                    w.writerow([wl, metric, g["unit"], g["better"], arm, s["n"],
                                f"{s['mean']:.6g}", f"{s['median']:.6g}",
                                f"{s['stddev']:.6g}", f"{s['cv']:.4f}", f"{s['min']:.6g}",
                                *ci_cells(s),
                                *(("", "", "", "") if s["paired"] is None else
                                  (s["paired"]["n"], f"{s['paired']['pct']:.3f}",
                                   f"{s['paired']['lo']:.3f}", f"{s['paired']['hi']:.3f}")),
                                opt(s["kept_on_waker_cpu"], ".4f"), opt(s["hint_dropped"], ".4f")])


def ci_cells(s):
    """The CSV cells of an arm's change: delta, its interval, Welch's p."""
    ci = s["ci"] or (None, None)
    return [opt(s["delta"], ".3f"), opt(ci[0], ".3f"), opt(ci[1], ".3f"),
            opt(s["test"]["p"] if s["test"] else None, ".4g")]


def plot(outdir, groups, arms, workloads, baseline):
    """plot.png: grouped bars per workload, normalised to the baseline's mean."""
    if not shutil.which("gnuplot"):
        return "no plot: gnuplot is missing (apt-get install gnuplot-nox)"
    labels, lo, hi, betters = [], 1.0, 1.0, set()
    lines = ["label " + " ".join(f"{a} {a}-err" for a in arms)]
    for wl in workloads:
        for (gw, metric), g in groups.items():
            if gw != wl or not g["base_mean"]:
                continue
            label = wl if metric in ("runtime", "time-per-op") else f"{wl}:{metric}"
            cells = []
            for arm in arms:
                s = g["arms"].get(arm)
                if s is None:
                    cells += ["?", "?"]
                    continue
                y = s["mean"] / g["base_mean"]
                e = 0.0 if math.isnan(s["stddev"]) else s["stddev"] / g["base_mean"]
                lo, hi = min(lo, y - e), max(hi, y + e)
                cells += [f"{y:.5f}", f"{e:.5f}"]
            labels.append(label)
            betters.add(g["better"])
            lines.append(f"{label} " + " ".join(cells))
    if not labels:
        return f"no plot: no workload has runs of the baseline {baseline}"
    dat = os.path.join(outdir, "plot.dat")
    pad = 0.05 * (hi - lo) + 0.02
    sense = (f"{betters.pop()} is better for every metric here" if len(betters) == 1
             else "see table.md for which way is better")
    script = f"""
set terminal pngcairo size {plot_width(len(labels), arms)},600 noenhanced font ",10"
set output '{os.path.join(outdir, "plot.png")}'
set datafile missing '?'
set xlabel "mean per arm / mean of {baseline}; error bars: stddev / mean of {baseline}; {sense}"
set style data histograms
set style histogram errorbars gap 2 lw 1
set style fill solid 0.7 border -1
set boxwidth 0.9
set key outside top center horizontal
set grid ytics
set xtics rotate by -35 scale 0
set yrange [{max(0.0, lo - pad):.3f}:{hi + pad:.3f}]
set ylabel "normalised to {baseline}"
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dashtype 2 lw 1.5
set bmargin 8
plot for [i=0:{len(arms) - 1}] '{dat}' using (column(2+2*i)):(column(3+2*i)):xtic(1) title columnheader(2+2*i)
"""
    return gnuplot("plot", dat, lines, script)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv", nargs="+", help="raw.csv file(s) from bench/guest-bench.py")
    ap.add_argument("--baseline", default=DEFS["BASELINE_ARM"][0],
                    help="arm the others are compared with (default "
                    f"{DEFS['BASELINE_ARM'][0]})")
    ap.add_argument("--out", help="directory for table.md, summary.csv, plot.png "
                    "(default: the first CSV's directory)")
    ap.add_argument("--title", default="", help="first line of table.md")
    ap.add_argument("--no-plot", action="store_true", help="skip plot.png")
    args = ap.parse_args()

    rows = read_rows(args.csv)
    arms = ordered(list(dict.fromkeys(r["arm"] for r in rows)), ARM_ORDER)
    if args.baseline not in arms:
        die(f"baseline arm '{args.baseline}' has no runs; arms present: {' '.join(arms)} "
            "(pick one with --baseline)")
    workloads = ordered(list(dict.fromkeys(r["workload"] for r in rows)), WORKLOAD_ORDER)
    outdir = args.out or os.path.dirname(os.path.abspath(args.csv[0]))
    os.makedirs(outdir, exist_ok=True)
    groups = summarise(rows, args.baseline)
    cmds = {k[len("cmd."):]: v for k, v in read_meta(args.csv) if k.startswith("cmd.")}
    rounds = sorted({r["round"] for r in rows})

    md = [f"# {args.title or 'WF_SYNC wakeup placement: A/B of every arm'}", ""]
    md.append(f"{len(rows)} measurements from {', '.join(args.csv)}; arms {', '.join(arms)}; "
              f"{len(rounds)} round(s). Baseline: **{args.baseline}**. "
              f"Δ is the change of the mean against the baseline's mean, given with its "
              f"{TEST}, in % of the baseline's mean; where that interval spans zero the "
              f"change is \"{NO_DIFF}\", with no sign. The per-workload tables also give "
              f"the change paired by round: {PAIRED} (every arm of a workload runs back to back in a round, "
              "so this leaves out what a round shares, such as a slow spell of the host; "
              "an interval that spans zero is given alone). CV: stddev / mean of the runs. "
              "Fired share: mean over runs of kept_on_waker_cpu / sync_wakeups and "
              "hint_dropped / sync_wakeups from debugfs sched/sync_wakeup_stats "
              "(\"-\": not counted, e.g. feature off or unpatched kernel).")
    traced = any(total(r, "pair_sync") is not None for r in rows)
    if traced:
        md += ["", PAIRS_COST]
    md += ["", "## Summary in the layout of the thread's tables", ""]
    md += summary_tables(groups, arms, args.baseline)
    md += ["## Per workload", ""]
    prof = profiles(rows)
    if prof:
        md += [PROFILE_NOTE, ""]
    if traced:
        md += [PAIRS_NOTE, ""]
    md += workload_tables(groups, arms, workloads, args.baseline, cmds, prof)
    text = "\n".join(md)
    with open(os.path.join(outdir, "table.md"), "w") as f:
        f.write(text)
    write_summary_csv(os.path.join(outdir, "summary.csv"), groups, arms, workloads,
                      args.baseline)
    try:
        print(text)
        sys.stdout.flush()
    except BrokenPipeError:
        sys.stdout = None
    if not args.no_plot:
        errs = [plot(outdir, groups, arms, workloads, args.baseline)]
        if prof:
            errs.append(plot_profile(outdir, prof, arms, workloads))
        for err in filter(None, errs):
            print(f"analyze: {err}", file=sys.stderr)


if __name__ == "__main__":
    main()
