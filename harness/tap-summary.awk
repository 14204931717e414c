# Count TAP results from the check boots into pass/fail/skip totals.
# Leaves are counted: a kselftest program's own test cases ("# ok 3 ...")
# rather than its summary line. The summary line only counts as a failure:
# when the program failed without a failed case (a crash or a timeout),
# when it printed fewer cases than its plan ("# 1..N"), or when it passed
# without printing a case at all. A program skipped whole is one skip.
# A skip is a failure unless the file named by -v optional=FILE has a line
# "REGEX<tab>REASON" whose REGEX it matches (lines without a tab are
# comments): the skips a run may take, and why; those are listed with
# their reason.
BEGIN {
	n_optional = 0
	if (optional != "") {
		while ((getline l < optional) > 0) {
			if (l !~ /\t/) continue # a comment
			n_optional++
			opt_re[n_optional] = substr(l, 1, index(l, "\t") - 1)
			opt_why[n_optional] = substr(l, index(l, "\t") + 1)
		}
		close(optional)
	}
}

# A skipped LINE: counted as a skip if optional, else as a failure.
function skipped(line,    i) {
	for (i = 1; i <= n_optional; i++) {
		if (line ~ opt_re[i]) {
			skip++
			print "SKIP " FILENAME ": " line " (allowed: " opt_why[i] ")"
			return
		}
	}
	fail++
	print "FAIL " FILENAME ": " line ": skipped, and no line of the optional skips allows it"
}

function flush_program() {
	if (prog_status == "fail" && !prog_fails) {
		fail++
		print "FAIL " FILENAME ": " prog_line
	} else if (prog_status != "skip" && prog_cases < prog_plan) {
		fail++
		print "FAIL " FILENAME ": " prog_line ": " prog_cases " of its " prog_plan " planned cases"
	} else if (!prog_cases) {
		if (prog_status == "skip") skipped(prog_line)
		else { fail++; print "FAIL " FILENAME ": " prog_line ": no test case" }
	}
}

function status(line) {
	if (line ~ /^(# )?not ok /) return "fail"
	if (line ~ /# (SKIP|skip)/) return "skip"
	return "pass"
}

FNR == 1 { prog_cases = prog_fails = prog_plan = 0 }

/^# 1\.\.[0-9]+/ { prog_plan = substr($2, 4) + 0; next }

/^# (not )?ok [0-9]+ / {
	s = status($0)
	prog_cases++
	if (s == "fail") { fail++; prog_fails++; print "FAIL " FILENAME ": " substr($0, 3) }
	else if (s == "skip") skipped(substr($0, 3))
	else pass++
	next
}

/^(not )?ok [0-9]+ selftests: / {
	prog_status = status($0)
	prog_line = $0
	flush_program()
	prog_cases = prog_fails = prog_plan = 0
	next
}

/^(not )?ok [0-9]+ / {
	s = status($0)
	if (s == "fail") { fail++; print "FAIL " FILENAME ": " $0 }
	else if (s == "skip") skipped($0)
	else pass++
}

END {
	printf "%d passed, %d failed, %d skipped\n", pass, fail, skip
}
