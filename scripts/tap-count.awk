# SPDX-License-Identifier: GPL-2.0
# Count the leaf results of (K)TAP output: kselftest runner output (nesting
# shown by "# " prefixes) and KUnit output in a kernel log (nesting shown by
# four-space indents, lines may carry a printk timestamp). A result with
# sub-results is not counted itself, unless it failed while none of its
# sub-results did (a crash or timeout after its last sub-test).
# Prints "pass fail skip", and each failed leaf on stderr.

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

{
	sub(/\r$/, "")
	sub(/^\[ *[0-9]+\.[0-9]+\] /, "")
	d = depth_of($0)
	if (stripped !~ /^(not )?ok [0-9]+/)
		next
	failed = stripped ~ /^not ok/
	skipped = stripped ~ /# *(SKIP|skip)/
	if (kids[d + 1] > 0) {
		if (failed && !failed_kids[d + 1]) {
			fail++
			print "  FAIL " stripped > "/dev/stderr"
		}
	} else if (skipped && !failed) {
		skip++
	} else if (failed) {
		fail++
		print "  FAIL " stripped > "/dev/stderr"
	} else {
		pass++
	}
	kids[d + 1] = 0
	failed_kids[d + 1] = 0
	kids[d]++
	if (failed)
		failed_kids[d]++
}

END { printf "%d %d %d\n", pass, fail, skip }
