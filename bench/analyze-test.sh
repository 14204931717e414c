#!/usr/bin/env bash
# Does bench/analyze.py label changes by their interval, and pair runs by
# round within one file? Synthetic raw.csv files, each with what table.md
# and summary.csv must say; TAP on stdout.
set -eu
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# runs FILE ARM VALUE...: one pipe run of ARM per VALUE, lower is better.
runs() {
	local file=$1 arm=$2 round=0 v
	shift 2
	[ -s "$file" ] ||
		echo "round,workload,arm,metric,value,unit,better,sync_wakeups,kept_on_waker_cpu,declined_total,hint_dropped" >"$file"
	for v in "$@"; do
		round=$((round + 1))
		echo "$round,pipe,$arm,time-per-op,$v,usec/op,lower,100,50,0,0" >>"$file"
	done
}

# analyze NAME [CSV...]: run analyze.py on the CSVs (default
# $scratch/NAME.csv) into $scratch/NAME/.
analyze() {
	local name=$1
	shift
	[ $# -gt 0 ] || set -- "$scratch/$name.csv"
	"$PYTHON" "$BENCH/analyze.py" --baseline base --no-plot --out "$scratch/$name" "$@" >/dev/null
}

# expect NAME DESCRIPTION COMMAND...: one TAP line, ok if COMMAND succeeds.
expect() {
	local name=$1 what=$2 rc
	shift 2
	"$@" && rc=0 || rc=1
	tap "$rc" "$name: $what" "$(grep "^| arm " "$scratch/$name/table.md")"
}

# csv NAME ARM COLUMN: one field of summary.csv.
csv() {
	awk -F, -v arm="$2" -v col="$3" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
		NR > 1 && $5 == arm { print $c[col] }' "$scratch/$1/summary.csv"
}
near() { awk -v a="$1" -v b="$2" -v tol="$3" 'BEGIN { d = a - b; exit !(d < tol && -d < tol) }'; }

# Two arms from one distribution: no sign, in either table.
runs "$scratch/same.csv" base 10 11 9 10 10
runs "$scratch/same.csv" arm 10.2 9 11 10 10.3
analyze same
expect same "an interval across zero is 'no difference shown'" \
	grep -q "^| arm | 10.1 (no difference shown) |$" "$scratch/same/table.md"
expect same "and the per-workload row gives the interval, no change" \
	grep -Eq '^\| arm \| 5 \|.*\| \[-[0-9.]+, \+[0-9.]+\] \| no difference shown \|' \
	"$scratch/same/table.md"

# Twice as slow, lower is better: a sign and "worse".
runs "$scratch/slow.csv" base 10 10.1 9.9 10 10
runs "$scratch/slow.csv" arm 20 20.2 19.8 20 20
analyze slow
expect slow "a change whose interval excludes zero keeps its sign" \
	grep -q "^| arm | 20 (+100.0%) |$" "$scratch/slow/table.md"
expect slow "and is worse when lower is better" \
	grep -Eq '^\| arm \| 5 \|.*\| \+100\.0% \[\+9[0-9.]+, \+10[0-9.]+\] \| \*\*worse\*\* \|' \
	"$scratch/slow/table.md"

# One run each: no interval, so no change and no "no difference shown".
runs "$scratch/one.csv" base 10
runs "$scratch/one.csv" arm 20
analyze one
expect one "one run a side claims nothing" \
	grep -q "^| arm | 20 (n < 2, no interval) |$" "$scratch/one/table.md"

# Welch's interval, worked by hand: x = 1..5, y = 2 3 4 5 7 (baseline).
# diff -1.2, se sqrt(0.5 + 0.74), df 7.71, t(0.975, 7.71) 2.319: [-3.78,
# +1.38], in % of the baseline's mean 4.2: [-90.0, +32.9]; p 0.314.
runs "$scratch/hand.csv" base 2 3 4 5 7
runs "$scratch/hand.csv" arm 1 2 3 4 5
analyze hand
hand_ci() { near "$(csv hand arm ci95_lo_pct)" -90.0 0.3 && near "$(csv hand arm ci95_hi_pct)" 32.9 0.3; }
expect hand "the 95% interval is Welch's, in % of the baseline's mean" hand_ci
expect hand "the p value is Welch's two-sided one" near "$(csv hand arm welch_p)" 0.314 0.001
expect hand "the CV is stddev / mean" near "$(csv hand arm cv)" 0.5270 0.0001

# A slow spell shared by a round (round 2 twice as slow under both arms):
# Welch's interval spans zero, the change paired by round is +10%.
runs "$scratch/spell.csv" base 10 20 10.1 9.9 10
# The arm's rows last round first: pairs are made by round, not by order.
for r in 5:11 4:10.9 3:11.1 2:22 1:11; do
	echo "${r%:*},pipe,arm,time-per-op,${r#*:},usec/op,lower,100,50,0,0" >>"$scratch/spell.csv"
done
analyze spell
expect spell "a round's slow spell leaves the paired change at +10%" \
	grep -Eq '^\| arm \| 5 \|.*\| no difference shown \| \+10\.0% \[\+9\.[0-9], \+10\.[0-9]\] \|' \
	"$scratch/spell/table.md"

# The paired change worked by hand: ratios 1.1 1.1 1.21 1.1, logs a a 2a a
# with a = ln 1.1: mean 1.25a = 0.11914, sd 0.5a, t(0.975, 3) 3.1824:
# half-width 0.07583; exp(...) - 1: +12.65% [+4.43, +21.53].
runs "$scratch/phand.csv" base 2 4 2 2
runs "$scratch/phand.csv" arm 2.2 4.4 2.42 2.2
analyze phand
phand() {
	near "$(csv phand arm paired_pct)" 12.65 0.01 && near "$(csv phand arm paired_lo_pct)" 4.43 0.01 &&
		near "$(csv phand arm paired_hi_pct)" 21.53 0.01
}
expect phand "the paired change is the geometric mean of the ratios, t interval on logs" phand

# Rounds of different files (boots) do not pair.
runs "$scratch/boot1.csv" base 10 11 9
runs "$scratch/boot2.csv" arm 20 21 19
analyze boots "$scratch/boot1.csv" "$scratch/boot2.csv"
not_paired() { head -1 "$scratch/boots/summary.csv" | grep -q ',paired_n,' && [ -z "$(csv boots arm paired_n)" ]; }
expect boots "runs of two boots are not paired" not_paired

# The committed references of every base, analysed again: the same tables
# and summary, but for the line that names where raw.csv was (a path of
# the run's).
same_as_reference() {
	local ref=$1 out=$scratch/ref base=hint-only f
	[ "${ref##*/}" != overhead ] || base=base
	rm -rf "$out"
	"$PYTHON" "$BENCH/analyze.py" --baseline "$base" --no-plot --out "$out" \
		--title "$(sed -n '1s/^# //p' "$ref/table.md")" "$ref/raw.csv" >/dev/null || return 1
	for f in table.md summary.csv; do
		[ -f "$ref/$f" ] || continue
		diff <(grep -v ' measurements from ' "$ref/$f") <(grep -v ' measurements from ' "$out/$f") || return 1
	done
}
for b in $BASES; do
	[ -s "$REPO/results/reference/$b/flat/raw.csv" ] && rc=0 || rc=1
	tap "$rc" "results/reference/$b has a flat run, which its cover letter quotes"
	# Every run with its tables (next-buddy/flat too), not an overhead
	# boot's raw.csv.
	while read -r ref; do
		ref=${ref%/table.md}
		same_as_reference "$ref" >"$scratch/ref.diff" 2>&1 && rc=0 || rc=1
		tap "$rc" "${ref#"$REPO"/} analysed again gives its table.md and summary.csv" \
			"$(cat "$scratch/ref.diff")"
	done < <(find "$REPO/results/reference/$b" -name table.md | LC_ALL=C sort)
done

# bench/defs.py reads harness/definitions.sh as the shell does: every name,
# the same words.
# shellcheck disable=SC2016 # expanded by the inner bash
shell_view=$(bash -c '. "$1"; for n in $(sed -n "s/^\([A-Za-z0-9_]*\)=.*/\1/p" "$1"); do echo "$n=$(echo ${!n})"; done' \
	sh "$REPO/harness/definitions.sh")
python_view=$(cd "$BENCH" && "$PYTHON" -c 'from defs import DEFS
for k, v in DEFS.items(): print(k + "=" + " ".join(v))')
[ -n "$shell_view" ] && [ "$shell_view" = "$python_view" ] && rc=0 || rc=1
tap "$rc" "bench/defs.py reads harness/definitions.sh as the shell does" \
	"$(diff <(echo "$shell_view") <(echo "$python_view"))"

# The placement profile shows unjudged promises and probes where the runs
# counted them, and leaves the columns out for runs without them; so too
# the main pair's decisions (make bench PAIRS=1; empty columns without it).
"$PYTHON" - "$scratch" "$BENCH" <<'PY'
import os, sys
sys.path.insert(0, sys.argv[2])
from defs import DEFS
cols = DEFS["CSV_COLUMNS"] + ["ops"] + DEFS["STATS_COUNTERS"] + DEFS["SYSTEM_COUNTERS"]
old = [c for c in cols if c not in ("promise_unjudged", "probe")]
pairs = cols + DEFS["PAIR_COUNTERS"]
for name, header, pair in (("prof", cols, {}), ("profold", old, {}),
                           ("profnopair", pairs, dict.fromkeys(DEFS["PAIR_COUNTERS"], "")),
                           ("profpair", pairs, dict(pair_sync="50", pair_kept="48",
                                                    pair_dropped="1", pair_probe="1"))):
    with open(os.path.join(sys.argv[1], name + ".csv"), "w") as f:
        f.write(",".join(header) + "\n")
        for arm in ("base", "arm"):
            for rnd in (1, 2):
                v = dict.fromkeys(header, "10")
                v.update(round=str(rnd), workload="pipe", arm=arm, metric="time-per-op",
                         unit="usec/op", better="lower", sync_wakeups="100", probe="3",
                         promise_kept="30", promise_broken="10", promise_unjudged="60", **pair)
                f.write(",".join(v[c] for c in header) + "\n")
PY
analyze prof && analyze profold && analyze profnopair && analyze profpair
prof_row() { grep -A3 '^#### pipe: placement profile' "$scratch/$1/table.md" | grep "^| arm "; }
prof_row prof | grep -q '| promises unjudged | probes |$' &&
	grep -q '^| arm | .* | 60.0% | 3.0% |$' "$scratch/prof/table.md" && rc=0 || rc=1
tap "$rc" "the placement profile gives unjudged promises and probes where counted" \
	"$(grep -A4 '^#### pipe: placement profile' "$scratch/prof/table.md")"
! prof_row profold | grep -q 'unjudged\|probes' && prof_row profold | grep -q 'promises kept' && rc=0 || rc=1
tap "$rc" "the placement profile leaves them out for runs that did not count them" "$(prof_row profold)"
prof_row profpair | grep -q "| probes | pair's decisions | pair's kept | pair's hint dropped | pair's probes |$" &&
	grep -q '^| arm | .* | 3.0% | 50 | 96.0% | 2.0% | 2.0% |$' "$scratch/profpair/table.md" && rc=0 || rc=1
tap "$rc" "the placement profile gives the main pair's decisions and shares where traced" \
	"$(grep -A4 '^#### pipe: placement profile' "$scratch/profpair/table.md")"
! prof_row profnopair | grep -q "pair's" && prof_row profnopair | grep -q '| probes |$' && rc=0 || rc=1
tap "$rc" "and leaves them out where the runs were not traced (PAIRS=0)" "$(prof_row profnopair)"
grep -q '^\*\*Traced runs' "$scratch/profpair/table.md" && ! grep -q 'Traced runs' "$scratch/profnopair/table.md" &&
	rc=0 || rc=1
tap "$rc" "a traced table says at its top that its times are for placement only" \
	"$(sed -n 1,4p "$scratch/profpair/table.md")"

# The cross-topology tables of each base's README.md are the ones its
# committed summaries give.
for b in $BASES; do
	out=$("$PYTHON" "$BENCH/reftables.py" --check "$REPO/results/reference/$b" 2>&1) && rc=0 || rc=1
	tap "$rc" "results/reference/$b/README.md's tables are what bench/reftables.py makes of the summaries" "$out"
done

# The cover letter's pipe table is table.md's, arm by arm: the time from
# its summary, beside it the placement from its profile of the same runs.
# shellcheck disable=SC2016 # awk's own fields
want=$(awk -F'|' '
	function t(s) { gsub(/^ +| +$/, "", s); return s }
	/^#/ { on = /^### pipe: `perf bench/ ? "s" : /^#### pipe: placement profile/ ? "p" : ""; next }
	on == "s" && /^\| [a-z]/ && t($2) != "arm" { time[t($2)] = t($3); arm[++n] = t($2) }
	on == "p" && /^\| [a-z]/ && t($2) != "arm" { prof[t($2)] = t($3) " | " t($7) " | " t($12) " | " t($14) }
	END { for (i = 1; i <= n; i++) print "| " arm[i] " | " time[arm[i]] " | " prof[arm[i]] " |" }
' "$REFERENCE/flat/table.md")
got=$("$PYTHON" "$BENCH/reftables.py" --cover flat "$REFERENCE" 2>&1 |
	awk '/^pipe, / { on = 1; next } on && /^$/ && n { exit } on && /^\| [a-z]/ && !/^\| arm / { print; n++ }')
[ -n "$want" ] && [ "$want" = "$got" ] && rc=0 || rc=1
tap "$rc" "the cover letter's pipe table gives table.md's times and placement" \
	"$(diff <(echo "$want") <(echo "$got"))"
rc=1
if ! out=$("$PYTHON" "$BENCH/reftables.py" --cover nosuch "$REFERENCE" 2>&1); then
	grep -q "nosuch/summary.csv is missing" <<<"$out" && rc=0
fi
tap "$rc" "reftables.py --cover refuses a topology without results" "$out"

# compare.py, given the overhead reference's two kernels as two sides,
# finds the changes and intervals its table.md gives, workload by workload.
awk -F, -v OFS=, -v dir="$scratch" '
	NR == 1 { print >dir "/ov-base.csv"; print >dir "/ov-patched.csv"; next }
	$3 == "base" { $3 = "off"; print >dir "/ov-base.csv" }
	$3 == "patched-off" { $3 = "off"; print >dir "/ov-patched.csv" }
' "$REPO/results/reference/6.12/overhead/raw.csv"
"$PYTHON" "$BENCH/compare.py" --names base patched-off --out "$scratch/ov" \
	--a "$scratch/ov-base.csv" --b "$scratch/ov-patched.csv" >/dev/null
want=$(grep -E '^\| patched-off \| [0-9]+ \| ' "$REPO/results/reference/6.12/overhead/table.md" | cut -d'|' -f8 | xargs -d'\n' -n1 echo)
got=$(grep '^| [a-z0-9-]* | [a-z-]* (' "$scratch/ov/compare.md" | cut -d'|' -f10 | xargs -d'\n' -n1 echo)
[ -n "$want" ] && [ "$want" = "$got" ] && rc=0 || rc=1
tap "$rc" "compare.py gives the overhead reference's changes and intervals" "want: $want"$'\n'"got: $got"
# 7.3's overhead reference keeps each boot's raw.csv: compare.py on them
# gives its compare.md and compare.csv again, but for the lines that name
# where the boots were.
ov=$REPO/results/reference/7.3/overhead
out=$("$PYTHON" "$BENCH/compare.py" --names base patched-off --out "$scratch/ov73" \
	--title "$(sed -n '1s/^# //p' "$ov/compare.md")" \
	--a "$ov"/base-*/raw.csv --b "$ov"/patched-off-*/raw.csv 2>&1 >/dev/null &&
	diff <(grep -v '/raw.csv' "$ov/compare.md") <(grep -v '/raw.csv' "$scratch/ov73/compare.md") &&
	diff "$ov/compare.csv" "$scratch/ov73/compare.csv") && rc=0 || rc=1
tap "$rc" "results/reference/7.3/overhead's boots give its compare.md and compare.csv" "$out"
# Several files a side are pooled: the base side split in two files by
# round gives the same rows, but for the pairing it never shows.
awk -F, -v dir="$scratch" 'NR == 1 { print >dir "/ov-b1.csv"; print >dir "/ov-b2.csv"; next }
	{ print >(dir ($1 % 2 ? "/ov-b1.csv" : "/ov-b2.csv")) }' "$scratch/ov-base.csv"
"$PYTHON" "$BENCH/compare.py" --names base patched-off --out "$scratch/ov2" \
	--a "$scratch/ov-b1.csv" "$scratch/ov-b2.csv" --b "$scratch/ov-patched.csv" >/dev/null
out=$(diff "$scratch/ov/compare.csv" "$scratch/ov2/compare.csv") && rc=0 || rc=1
tap "$rc" "compare.py pools the files of a side" "$out"
# Bad sides: refuses WHAT WANT_TEXT ARG...: compare.py with these ARGs
# fails, says WANT_TEXT and writes nothing.
refuses() {
	local what=$1 want=$2 out rc=1
	shift 2
	if ! out=$("$PYTHON" "$BENCH/compare.py" --out "$scratch/bad" "$@" 2>&1); then
		if grep -q "$want" <<<"$out" && [ ! -e "$scratch/bad" ]; then rc=0; fi
	fi
	tap "$rc" "compare.py refuses $what" "$out"
}
refuses "a side that is not a result" "neither a raw.csv nor a results directory" \
	--a "$scratch/nope" --b "$scratch/ov-base.csv"
refuses "two sides with no workload and arm in common" "have no workload and arm in common" \
	--a "$scratch/spell.csv" --b "$scratch/ov-base.csv"

tap_end analyze-test
