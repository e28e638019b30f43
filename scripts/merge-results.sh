#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "scripts/merge-results.sh DIR/logs/results...": the totals of the make
# test runs that wrote these files (the shards of one run, SHARD=i/n), as
# make test prints them: "N passed, N failed" (and skipped, if any). Fails
# if a test failed, or if a stage ran in two of them: shards of different
# runs do not add up to one.
set -euo pipefail

die() { echo "error: $*" >&2; exit 1; }

[ $# -gt 0 ] || die "usage: scripts/merge-results.sh RESULTS..."
for file in "$@"; do
	[ -f "$file" ] || die "$file: no such results file (make test writes build/logs/results)"
	grep -Eq '^[0-9]+ [0-9]+ [0-9]+( [a-z-]+)*$' "$file" && [ "$(wc -l <"$file")" = 1 ] ||
		die "$file: not a results file of make test"
done
awk '
	{ passed += $1; failed += $2; skipped += $3
	  for (i = 4; i <= NF; i++) {
		if ($i in ran)
			twice = twice " " $i " (" ran[$i] ", " FILENAME ")"
		ran[$i] = FILENAME
		stages++
	  } }
	END {
		if (twice != "") {
			print "error: stages ran twice:" twice > "/dev/stderr"
			exit 1
		}
		printf "%d stages from %d runs\n", stages, NR > "/dev/stderr"
		printf "%d passed, %d failed", passed, failed
		if (skipped) printf ", %d skipped", skipped
		printf "\n"
		exit failed > 0
	}' "$@"
