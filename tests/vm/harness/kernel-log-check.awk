# The guest's kernel log (dmesg) after the tests, checked for reports that
# a test run must not leave: BUG, Oops, WARNING, a call trace, a general
# protection fault, a double release of a buffer_head. Prints, for each
# report, tab-separated:
#   bad    TEST  LINE   every line of a report to fail on (the whole report,
#                       to the "end trace" line, so the stack is seen)
#   known  TEST  WHY    once for a report of a known defect of the kernel
#                       itself that the tests' load can meet (known()),
#   known-line TEST LINE  then every line of that report, to keep
# TEST is the test that was running ("before the tests" if none was).

function flush(   i, why) {
	if (n == 0)
		return
	why = known()
	if (why != "") {
		print "known\t" test "\t" why
		for (i = 1; i <= n; i++)
			print "known-line\t" test "\t" lines[i]
	} else
		for (i = 1; i <= n; i++)
			print "bad\t" test "\t" lines[i]
	n = 0
}

# The scheduler's WARN_ON_ONCE(!pending) in affine_move_task() reached
# from migrate_enable(): a task leaves a migrate-disabled section (every
# BPF program runs in one) on a CPU its affinity no longer allows, and no
# affinity change is pending to move it; the kernel lets it run on there
# until it next sleeps. CI's 6.1 cloud guest logged it once in 38, which
# changes tasks' affinities (bhvm-mover) and takes a CPU offline while a
# BPF program runs on every lookup. Whoever called migrate_enable() (a BPF
# trampoline inside a lookup, usually), the bookkeeping that failed is the
# scheduler's. Both conditions, and no other report's line inside it (a
# double release from another CPU, say), or the report fails the run.
function known(   i, all) {
	all = ""
	for (i = 2; i <= n; i++) {
		if (lines[i] ~ (oops "|" lone))
			return ""
		all = all "\n" lines[i]
	}
	if (lines[1] ~ /WARNING: CPU: [0-9]+ PID: [0-9]+ at kernel\/sched\/core\.c:[0-9]+ affine_move_task/ &&
	    all ~ /migrate_enable/)
		return "the scheduler's own warning in affine_move_task, from migrate_enable (" lines[1] ")"
	return ""
}

BEGIN {
	test = "before the tests"
	n = 0
	# what starts a report: these, or a "Call Trace:" (whose report lost
	# its first line), which is inside every report too; lone: a report of
	# one line
	oops = "BUG:|Oops|WARNING:|general protection"
	lone = "Trying to free free buffer"
}

/bhvm: test .* starts$/ {
	flush()
	test = $0
	sub(/.*bhvm: test /, "", test)
	sub(/ starts$/, "", test)
	next
}

n == 0 && $0 ~ (oops "|Call Trace:|" lone) {
	lines[++n] = $0
	if ($0 !~ (oops "|Call Trace:"))
		flush()		# a one-line report
	next
}

n > 0 {
	lines[++n] = $0
	if (/---\[ end trace/ || n >= 80)
		flush()
}

END {
	flush()
}
