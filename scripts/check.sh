#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# checkpatch --strict on every patch of the series and on every file the
# series adds. One TAP line per file; fails on any error, warning or check.
. "$(dirname "$0")/lib.sh"

CHECKPATCH=(perl "$TREE/scripts/checkpatch.pl" --strict --quiet --show-types --terse)

# checkpatch on one file; $1 = label, rest = checkpatch arguments.
check_one()
{
	local label=$1 out
	shift
	out=$(cd "$TREE" && "${CHECKPATCH[@]}" "$@" 2>&1) || true
	n=$((n + 1))
	if echo "$out" | grep -q 'total: 0 errors, 0 warnings, 0 checks' &&
	   [ "$(echo "$out" | grep -vc '^total: ')" = 0 ]; then
		echo "ok $n checkpatch $label"
	else
		echo "$out" | sed 's/^/# /'
		echo "not ok $n checkpatch $label"
		bad=$((bad + 1))
	fi
}

"$TOP/scripts/prepare.sh"
n=0
bad=0
echo "TAP version 13"
while read -r p; do
	[ -n "$p" ] && check_one "patches/$p" "$TOP/patches/$p"
done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$TOP/patches/series")
while read -r src dst; do
	case "$src" in
	*/Makefile | */config | */settings) continue ;;
	esac
	check_one "$src" -f "$dst"
done <"$BUILD/added-files.list"
echo "1..$n"
[ $bad = 0 ]
