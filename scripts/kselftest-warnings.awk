# SPDX-License-Identifier: GPL-2.0
# The compiler's warnings in the log of a kselftest build (make with
# lib.mk, whose "  CC  <program>" line starts each program), one a line:
# "<program>: <warning>", and where the warning is reported at a line of
# a header (kselftest_harness.h's macros), the test's own line that the
# compiler's notes lead to, in brackets. kselftest_harness.h's two
# warnings of its own, whatever the test, are left out: an unused
# argument of its timeout handler and a variable its setjmp may clobber.

function harness_own(line)
{
	return line ~ /kselftest_harness\.h:[0-9:]+ warning: unused parameter .ucontext. / ||
		line ~ /kselftest_harness\.h:[0-9:]+ warning: variable .child. might be clobbered /
}

function flush()
{
	if (warning != "" && !harness_own(warning))
		print program ": " warning (at != "" ? " [" at "]" : "")
	warning = ""
	at = ""
}

/^  CC / { flush(); program = $2; next }
# make's own ("make[1]: warning: jobserver unavailable ...")
/^make(\[[0-9]+\])?: / { next }
/(^|: )warning: / { flush(); warning = $0; next }
warning ~ /^[^ :]+\.h:/ && at == "" && /^[^ :]+\.c:[0-9]+:[0-9]+: note: / {
	at = $0
	sub(/: note: .*/, "", at)
}
END { flush() }
