#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make ra-matrix": issue 31's readahead matrix (bench/ra-matrix.conf),
# one make bench run per profile, guest memory and cell, each measured
# once per source: a run counts for the commit it measured as long as
# nothing that may shape its figures (anything but the paths of
# NOT_MEASURED) changed since. The matrix takes many hours; sessions share it
# through the ledger build/bench/ra-matrix.tsv, and each invocation goes
# on where the last one stopped.
#
#   make ra-matrix                 run what is left, in the file's order
#   make ra-matrix LIMIT=2         at most two runs, then stop
#   make ra-matrix ACTION=status   what is done and what is left
#   make ra-matrix ACTION=report   the verdicts of the done runs, in
#                                  build/bench/ra-matrix.md
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MATRIX_CONF=$TOP/bench/ra-matrix.conf
LEDGER=$BUILD/bench/ra-matrix.tsv
MATRIX_REPORT=$BUILD/bench/ra-matrix.md
MATRIX_REPS=5
MATRIX_LABELS="mq-deadline mq-deadline-rastock \
mq-deadline-rastock@read_ahead_kb=512 \
mq-deadline-rastock@read_ahead_kb=1024 \
mq-deadline-rastock@read_ahead_kb=2048"
# What no measurement depends on; a change anywhere else measures anew.
NOT_MEASURED="README.md Documentation selftests bench/report scripts/tests .ci mutants"

# Pathspecs of everything a measurement may depend on (for git status).
measured_paths()
{
	local p
	echo .
	for p in $NOT_MEASURED; do
		echo ":(exclude)$p"
	done
}

# HEAD's files that a measurement may depend on, as git ls-tree lists them.
measured_files()
{
	git -C "$TOP" ls-tree -r HEAD | awk -F '\t' -v skip="$NOT_MEASURED" '
		BEGIN { n = split(skip, s, " ") }
		{ for (i = 1; i <= n; i++) if ($2 == s[i] || index($2, s[i] "/") == 1) next; print }'
}

# "profile mem cell" for every run of the matrix, in order.
matrix_entries()
{
	awk '!/^#/ && NF { for (i = 3; i <= NF; i++) print $1, $2, $i }' \
		"$MATRIX_CONF"
}

# The id of what measurements of this checkout depend on. With "strict",
# dies if any of it has uncommitted changes (a run could not say what it
# measured); otherwise only warns.
source_id()
{
	local paths
	mapfile -t paths < <(measured_paths)
	if [ -n "$(git -C "$TOP" status --porcelain --untracked-files=no -- "${paths[@]}")" ]; then
		[ "${1:-}" = strict ] &&
			die "uncommitted changes outside ${NOT_MEASURED// /, }: commit them first, so that each run says what it measured"
		warn "uncommitted changes: the source below is HEAD's"
	fi
	measured_files | sha1sum | cut -c1-12
}

# The run id recorded for entry "$2" (profile mem cell) of source $1, if
# its results are still there.
recorded_run()
{
	local run
	[ -f "$LEDGER" ] || return 0
	run=$(awk -v src="$1" -v entry="$2" \
		'$1 == src && $2 " " $3 " " $4 == entry { run = $5 } END { print run }' \
		"$LEDGER")
	[ -z "$run" ] || [ ! -f "$BUILD/bench/$run/summary.json" ] || echo "$run"
}

# The entries of source $1 with no run recorded, in order.
entries_left()
{
	local entry
	matrix_entries | while read -r entry; do
		[ -n "$(recorded_run "$1" "$entry")" ] || echo "$entry"
	done
}

# Die with one line at the first line of the matrix that cannot run: too
# few fields, a memory that is no size, an unknown cell. (Profiles are
# checked by make bench, which knows the disk model's.)
check_matrix_cells()
{
	local known line cell
	line=$(awk '!/^#/ && NF && (NF < 3 || $2 !~ /^(-|[1-9][0-9]*)$/) { print NR; exit }' "$MATRIX_CONF")
	[ -z "$line" ] || die "$MATRIX_CONF:$line: want 'profile guest-MiB-or-- cell...'"
	known=" $(awk '!/^#/ && NF { printf "%s ", $1 }' "$TOP/bench/cells.conf")"
	for cell in $(matrix_entries | awk '{ print $3 }' | sort -u); do
		[[ $known == *" $cell "* ]] ||
			die "$MATRIX_CONF: unknown cell '$cell'"
	done
}

# Measure entry $2 (profile mem cell) of source $1 and record its run.
run_entry()
{
	local profile mem cell run knobs
	read -r profile mem cell <<<"$2"
	knobs=(CELLS="$cell" PROFILE="$profile" REPS="$MATRIX_REPS"
	       SCHEDULERS="$MATRIX_LABELS")
	[ "$mem" = - ] || knobs+=(GUEST_MIB="$mem")
	say "ra-matrix: $cell on $profile, guest memory ${mem/#-/of the cell}"
	bench_only "${knobs[@]}" </dev/null
	run=$(readlink "$BUILD/bench/latest")
	python3 "$TOP/bench/check-results.py" "$BUILD/bench/$run" >&2 ||
		die "run $run failed its checks; not recorded"
	[ "$(source_id strict)" = "$1" ] ||
		die "the source changed during run $run (a commit or an edit); not recorded"
	mkdir -p "$(dirname "$LEDGER")"
	printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$profile" "$mem" "$cell" "$run" >>"$LEDGER"
}

run_matrix()
{
	local src=$1 limit=${LIMIT:-0} done=0 total left entry
	[[ $limit =~ ^(0|[1-9][0-9]*)$ ]] || die "LIMIT=$limit: a whole number of runs (0: no limit)"
	total=$(matrix_entries | wc -l)
	left=$(entries_left "$src")
	[ -n "$left" ] || { say "ra-matrix: all $total runs are done for source $src"; return 0; }
	while read -r entry; do
		[ "$limit" = 0 ] || [ "$done" -lt "$limit" ] || break
		say "ra-matrix: run $((total - $(entries_left "$src" | wc -l) + 1)) of $total"
		run_entry "$src" "$entry"
		done=$((done + 1))
	done <<<"$left"
	show_status "$src"
}

show_status()
{
	local profile mem cell
	matrix_entries | while read -r profile mem cell; do
		printf '%-6s %-5s %-20s %s\n' "$profile" "$mem" "$cell" \
			"$(recorded_run "$1" "$profile $mem $cell" | grep . || echo left)"
	done
	echo "source $1: $(matrix_entries | wc -l) runs, $(entries_left "$1" | wc -l) left"
}

write_report()
{
	local entry run runs=()
	while read -r entry; do
		run=$(recorded_run "$1" "$entry")
		[ -z "$run" ] || runs+=("$BUILD/bench/$run")
	done < <(matrix_entries)
	[ ${#runs[@]} -gt 0 ] || die "no run of the matrix is done for source $1: make ra-matrix first"
	python3 "$TOP/bench/report/ra_matrix.py" "${runs[@]}" >"$MATRIX_REPORT.tmp"
	mv "$MATRIX_REPORT.tmp" "$MATRIX_REPORT"
	say "ra-matrix: ${#runs[@]} runs in $MATRIX_REPORT"
}

# Settings that would measure something else than the matrix's kernel.
check_environment()
{
	[ "${DEBUG:-0}" = 0 ] || die "DEBUG=$DEBUG: the matrix measures the kernel users run, not the debug one"
	[ -z "${KERNEL_IMAGE:-}" ] || die "KERNEL_IMAGE is set: the matrix measures this checkout's kernel"
}

main()
{
	local action=${ACTION:-run} src
	case $action in
	run | status | report) ;;
	*) die "ACTION=$action: one of run, status, report" ;;
	esac
	check_matrix_cells
	case $action in
	run)
		lock_build
		check_environment
		mkdir -p "$BUILD/bench"
		src=$(source_id strict)
		run_matrix "$src"
		;;
	status) show_status "$(source_id)" ;;
	report) write_report "$(source_id)" ;;
	esac
}

# Sourced (scripts/tests/test_ra_matrix.py), only the functions are wanted.
[ "${BASH_SOURCE[0]}" != "$0" ] || main
