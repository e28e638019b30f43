#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Print the kernel reports in console logs that fail a run: oops, BUG,
# WARN, lockdep, KASAN, kmemleak, hung tasks, soft lockups, panics, and
# an initramfs the guest could not unpack. Exits 1 if any log has one.
PATTERN='(Initramfs unpacking failed|BUG:|WARNING:|Oops|kernel BUG|Kernel panic|general protection fault|INFO: possible|INFO: task .* blocked|INFO: rcu|soft lockup|hard LOCKUP|KASAN:|UBSAN:|kmemleak: [0-9]+ new suspected|possible circular locking|inconsistent lock state)'
found=0
for log in "$@"; do
	if grep -En "$PATTERN" "$log" >/dev/null; then
		echo "kernel report in $log:" >&2
		grep -En -A 12 "$PATTERN" "$log" | head -n 40 >&2
		found=1
	fi
done
exit $found
