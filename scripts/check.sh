#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# checkpatch --strict on every patch of the series and on every file the
# series adds. One TAP line per file; fails on any error, warning or check.
# A patch is checked as a patch and as a plain file, the way reviewers also
# run it: the second catches whitespace in the patch text itself, such as
# the " " that diff writes for blank context lines (quilt refresh with
# QUILTRC=scripts/quiltrc avoids it).
. "$(dirname "$0")/lib.sh"
lock_build "$@"

# The tree is a source release without git history, in which no commit id
# that a message cites (mainline's) can be looked up: UNKNOWN_COMMIT_ID
# would flag every one. The form of a citation is still checked.
CHECKPATCH=(perl "$TREE/scripts/checkpatch.pl" --strict --quiet --show-types --terse
	--ignore UNKNOWN_COMMIT_ID)

# One TAP line for checkpatch runs on one file: $1 = label, then one
# checkpatch argument list per run, each as a single word (split here).
check_one()
{
	local label=$1 args out=
	shift
	for args in "$@"; do
		# shellcheck disable=SC2086
		out+=$(cd "$TREE" && "${CHECKPATCH[@]}" $args 2>&1)$'\n' || true
	done
	n=$((n + 1))
	if ! echo "$out" | grep -v '^$' | grep -qv '^total: 0 errors, 0 warnings, 0 checks'; then
		echo "ok $n checkpatch $label"
	else
		echo "$out" | sed 's/^/# /'
		echo "not ok $n checkpatch $label"
		bad=$((bad + 1))
	fi
}

# What only this repository has (its seed files, its make targets and
# bench cells) means nothing to a reader of the series: patches and the
# files they add cite mailing-list threads by list, subject and date.
PROJECT_ONLY='seeds/[0-9]|\bmake (bench|ab|selftest|kunit|ra-matrix|test)\b|DESIGN\.md|cells\.conf|\b(CELLS|PROFILE)='

# One TAP line: no patch, cover letter or added file cites this repository.
check_citations()
{
	local hits files
	n=$((n + 1))
	mapfile -t files < <(series_patches | sed 's|^|patches/|'; (cd "$TOP" && ls patches/cover-letter*)
		cut -d' ' -f1 "$BUILD/added-files.list")
	hits=$(cd "$TOP" && grep -nE "$PROJECT_ONLY" "${files[@]}" || true)
	if [ -z "$hits" ]; then
		echo "ok $n the series cites no path or command of this repository"
	else
		echo "$hits" | sed 's/^/# /'
		echo "not ok $n the series cites no path or command of this repository"
		bad=$((bad + 1))
	fi
}

"$TOP/scripts/prepare.sh"
n=0
bad=0
echo "TAP version 13"
for p in $(series_patches); do
	check_one "patches/$p" "$TOP/patches/$p" "-f $TOP/patches/$p"
done
while read -r src dst; do
	case "$src" in
	*/Makefile | */config | */settings) continue ;;
	esac
	check_one "$src" "-f $dst"
done <"$BUILD/added-files.list"
check_citations
echo "1..$n"
[ $bad = 0 ]
