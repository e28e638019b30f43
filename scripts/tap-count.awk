# SPDX-License-Identifier: GPL-2.0
# Count the leaf results of (K)TAP output: kselftest runner output (nesting
# shown by "# " prefixes) and KUnit output in a kernel log (nesting shown by
# four-space indents, lines may carry a printk timestamp). A result with
# sub-results is not counted itself, unless it failed while none of its
# sub-results did (a crash or timeout after its last sub-test).
#
# Plans are checked, so that a stream that stops early cannot pass: each
# document (from a "TAP version" line at the top level, or the whole
# input) must have a plan "1..N" matching its results, before or after
# them. A nested block's plan must match when it has one; KUnit prints
# none for parameterised tests, whose parent result vouches for them.
# A violated plan, and a "Bail out!", count as one failure each.
# Prints "pass fail skip", and each failure on stderr after the last
# SAID_MAX lines its test printed (the harness's TH_LOG lines say why),
# so that a CI log that keeps only stderr still shows the cause.

function depth_of(line,    d)
{
	d = 0
	while (substr(line, 1, 2) == "# ") {
		line = substr(line, 3)
		d++
	}
	match(line, /^ */)
	d += int(RLENGTH / 4)
	stripped = substr(line, RLENGTH + 1)
	return d
}

function fail_with(what,    i)
{
	fail++
	for (i = said_first; i < said_next; i++)
		print "    | " said[i] > "/dev/stderr"
	forget_said()
	print "  FAIL " what > "/dev/stderr"
}

# Keep the last SAID_MAX lines printed since the previous result.
function remember_said(line)
{
	said[said_next++] = line
	if (said_next - said_first > SAID_MAX)
		delete said[said_first++]
}

function forget_said()
{
	split("", said)
	said_first = said_next = 0
}

BEGIN {
	SAID_MAX = 30
	forget_said()	# numeric indexes from the start (mawk)
}

# "" when the block at depth d kept its plan, else what went wrong;
# a missing plan is wrong only at the top level.
function plan_error(d)
{
	if (!(d in plan))
		return d == 0 ? "no plan" : ""
	if (plan[d] != kids[d])
		return "planned " plan[d] ", ran " kids[d]
	return ""
}

# Forget the block at depth d.
function reset_block(d)
{
	kids[d] = 0
	failed_kids[d] = 0
	delete plan[d]
}

function end_document(    why)
{
	why = plan_error(0)
	if (why != "")
		fail_with("top level: " why)
	reset_block(0)
	documents = 0
}

{
	sub(/\r$/, "")
	sub(/^\[ *[0-9]+\.[0-9]+\] /, "")
	d = depth_of($0)
}

stripped ~ /^(K?TAP version|1\.\.[0-9]+|Bail out!|(not )?ok [0-9]+)/ && d == 0 {
	documents = 1
}

stripped ~ /^K?TAP version/ {
	if (d == 0 && (kids[0] > 0 || 0 in plan))
		end_document()
	next
}

stripped ~ /^1\.\.[0-9]+/ {
	plan[d] = substr(stripped, 4) + 0
	next
}

stripped ~ /^Bail out!/ {
	fail_with(stripped)
	next
}

stripped !~ /^(not )?ok [0-9]+/ {
	if (stripped !~ /^(# )?(RUN|OK|FAIL|SKIP) |^#? *(Subtest:|Totals:)|^$/)
		remember_said(stripped)
	next
}

{
	failed = stripped ~ /^not ok/
	skipped = stripped ~ /# *(SKIP|skip)/
	if (kids[d + 1] > 0 || (d + 1) in plan) {
		why = plan_error(d + 1)
		if (failed && !failed_kids[d + 1])
			fail_with(stripped)
		else if (why != "" && !failed)
			fail_with(stripped ": " why)
	} else if (skipped && !failed) {
		skip++
	} else if (failed) {
		fail_with(stripped)
	} else {
		pass++
	}
	forget_said()
	reset_block(d + 1)
	kids[d]++
	if (failed)
		failed_kids[d]++
}

END {
	if (documents)
		end_document()
	printf "%d %d %d\n", pass, fail, skip
}
