#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make mutants [MUTANTS="name ..."]": show that the tests of the series'
# fixes fail without the fixes. Each mutants/<name>.patch undoes one fix
# (a diff against this checkout's kernel files, applied with patch -p1)
# and says, above its diff, what it undoes and which test must catch it:
#
#   Defect: issue 30, item 8: ...
#   Test: kunit <case>                     KUnit case <case> must fail
#   Test: selftest <disk> <test> <regex>   kselftest <test> on disk kind
#                                          <disk> must print a "not ok"
#                                          line that <regex> matches
#   Test: bisect <NNNN> <regex>            scripts/bisect.sh (BISECT=dirs),
#                                          after scripts/export.sh --check,
#                                          stopped after patch NNNN of the
#                                          series, must print a "not ok"
#                                          line that <regex> matches
#   Test: tap <script> <regex>             scripts/<script>, a check that
#                                          prints TAP and builds nothing
#                                          (distro-config.sh), must print
#                                          a "not ok" line that <regex>
#                                          matches
#   Test: bench <cell> <profile> <regex>   make bench of cell <cell> on
#                                          disk model profile <profile>
#                                          (mq-deadline, one repetition
#                                          of 5 s runs), its results read
#                                          by bench/check-results.py, must
#                                          give a "not ok" line that
#                                          <regex> matches
#   Test: ...                              (more lines) every test named
#                                          must fail
#   CPUs: 4                                (optional) the guest's CPUs
#                                          for its kselftests, 1 to 8
#                                          (default 2)
#
# A scratch copy of this checkout's HEAD, with its own build
# (build/mutants/tree, incremental, ccache), runs each test once as the
# code is, where it must pass, and then once per mutant applied; tests
# that one boot (or one bisect.sh run) reports together run together. A
# mutant is killed when each of its tests fails; the lines that show it
# are quoted in build/mutants/report.md. Exits non-zero unless every
# mutant is killed.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$TOP/scripts/qemu-lib.sh"

MUTANTS_DIR=$TOP/mutants
WORK=$BUILD/mutants
# The runs made since the tree last changed (cached_run()): each one's
# saved TAP file and log, by run_key().
declare -A RUN_TAPS=() RUN_LOGS=()
SCRATCH=$WORK/tree
REPORT=$WORK/report.md

# Every mutant's file.
all_mutants() { compgen -G "$MUTANTS_DIR/*.patch" || true; }

# The mutants to run: MUTANTS's names, else every one.
mutant_files()
{
	local name
	local -a names
	if [ -z "${MUTANTS:-}" ]; then
		all_mutants
		return
	fi
	read -ra names <<<"$MUTANTS"
	for name in "${names[@]}"; do
		[ -f "$MUTANTS_DIR/$name.patch" ] ||
			die "no mutant $name; there are: $(all_mutants | xargs -r -n1 basename | sed 's/\.patch$//' | xargs)"
		echo "$MUTANTS_DIR/$name.patch"
	done
}

# Field $2 ("Defect", "CPUs") of mutant $1's header: its first.
header_field()
{
	sed -n "s/\r\$//; /^diff \|^--- /q; /^$2: /{s///p;q}" "$1"
}

# The tests mutant $1 names, one per line.
mutant_tests()
{
	sed -n 's/\r$//; /^diff \|^--- /q; /^Test: /s///p' "$1"
}

# The regular expression that test spec $1 (a kselftest, bisect or tap
# one) matches its result lines' descriptions with.
spec_regex()
{
	local -a spec
	read -ra spec <<<"$1"
	if [ "${spec[0]}" = bisect ] || [ "${spec[0]}" = tap ]; then
		echo "${spec[*]:2}"
	else
		echo "${spec[*]:3}"
	fi
}

# Die, naming mutant file $1, unless test spec $2's regular expression is
# one grep -E takes.
check_spec_regex()
{
	local status=0 regex
	regex=$(spec_regex "$2")
	grep -E -- "$regex" </dev/null 2>/dev/null || status=$?
	[ "$status" = 1 ] || die "${1#"$TOP"/}: '$regex' is not a regular expression grep -E takes"
}

# Die unless test spec $2 of mutant $1 is one this script can run: a
# KUnit case of a suite here, a kselftest of selftests/iosched on a disk
# kind of the matrix, the per-patch build check up to a patch of the
# series, a TAP check of scripts/, or a benchmark cell on a profile of the
# disk model, all but the first with a valid regular expression for their
# result lines.
check_test_spec()
{
	local -a spec
	local where=${1#"$TOP"/}
	read -ra spec <<<"$2"
	case "${spec[0]:-}" in
	kunit)
		if [ ${#spec[@]} != 2 ] || ! [[ ${spec[1]} =~ ^[A-Za-z0-9_]+$ ]]; then
			die "$where: 'Test: kunit <case>' takes one case name"
		fi
		grep -Eqs "KUNIT_CASE[A-Z_]*\(${spec[1]}[,)]" "$TOP"/block/*_kunit.c "$TOP"/mm/*_kunit.c ||
			die "$where: no KUnit case ${spec[1]} in block/ or mm/"
		;;
	selftest)
		[ ${#spec[@]} -ge 4 ] ||
			die "$where: 'Test: selftest <disk> <test> <regex>' lacks a part"
		check_disk_kinds "${spec[1]}"
		grep -qw -- "${spec[2]}" "$TOP/selftests/iosched/Makefile" ||
			die "$where: no kselftest ${spec[2]} in selftests/iosched/Makefile"
		check_spec_regex "$1" "$2"
		;;
	bisect)
		[ ${#spec[@]} -ge 3 ] ||
			die "$where: 'Test: bisect <NNNN> <regex>' lacks a part"
		[[ ${spec[1]} =~ ^[0-9]{4}$ ]] && series_patches | grep -q "^${spec[1]}-" ||
			die "$where: no patch ${spec[1]} in patches/series"
		check_spec_regex "$1" "$2"
		;;
	tap)
		[ ${#spec[@]} -ge 3 ] ||
			die "$where: 'Test: tap <script> <regex>' lacks a part"
		[[ ${spec[1]} =~ ^[A-Za-z0-9_.-]+$ ]] && [ -x "$TOP/scripts/${spec[1]}" ] ||
			die "$where: no script scripts/${spec[1]}"
		check_spec_regex "$1" "$2"
		;;
	bench)
		[ ${#spec[@]} -ge 4 ] ||
			die "$where: 'Test: bench <cell> <profile> <regex>' lacks a part"
		awk -v c="${spec[1]}" '!/^#/ && $1 == c { found = 1 } END { exit !found }' "$TOP/bench/cells.conf" ||
			die "$where: no cell ${spec[1]} in bench/cells.conf"
		grep -Fq ".name = \"${spec[2]}\"" "$TOP/qemu/diskmodel/profiles.c" ||
			die "$where: no profile ${spec[2]} in qemu/diskmodel/profiles.c"
		check_spec_regex "$1" "$2"
		;;
	*) die "$where: a 'Test:' line must be 'kunit <case>', 'selftest <disk> <test> <regex>', 'bisect <NNNN> <regex>', 'tap <script> <regex>' or 'bench <cell> <profile> <regex>'" ;;
	esac
}

# Make the scratch tree commit $REVISION of this checkout (its HEAD when
# make mutants started): neither edits nor commits made while the mutants
# run reach them, and a mutant an interrupted run left there, or a file
# since deleted, goes. Its build/ stays, for an incremental build.
sync_scratch()
{
	mkdir -p "$SCRATCH"
	find "$SCRATCH" -mindepth 1 -maxdepth 1 ! -name build -exec rm -rf {} +
	git -C "$TOP" archive "$REVISION" | tar -C "$SCRATCH" -x -f -
	share_download "$SCRATCH"
}

# Run test spec $1 ("kunit <case>", "selftest ...", "bisect ...", "tap
# ..." or "bench ...") in
# the scratch tree on a guest of $3 CPUs (empty: the default), its make
# output into log $2; print the TAP file it writes, which an earlier
# run's does not stand in for (a build that fails writes none).
run_test()
{
	local -a spec
	read -ra spec <<<"$1"
	local -a make_env=(env -u MAKEFLAGS -u MAKELEVEL -u BUILD -u BUILD_LOCKED -u GUEST_READY
		-u KERNEL_IMAGE -u TESTS -u DISK -u APPEND -u HOST_LOAD -u DEBUG -u BUNDLE -u GUEST_CPUS
		${3:+GUEST_CPUS=$3})
	local tap
	if [ "${spec[0]}" = kunit ]; then
		tap=$SCRATCH/build/logs/kunit.console
		rm -f "$tap"
		"${make_env[@]}" make -C "$SCRATCH" kunit >"$2" 2>&1 || true
	elif [ "${spec[0]}" = bisect ]; then
		tap=$WORK/bisect.tap
		rm -f "$tap" "$tap.part"
		"${make_env[@]}" "$SCRATCH/scripts/export.sh" --check >"$2" 2>&1 &&
			"${make_env[@]}" BISECT=dirs BISECT_LAST="${spec[1]}" \
				"$SCRATCH/scripts/bisect.sh" >"$tap.part" 2>>"$2" || true
		[ ! -f "$tap.part" ] || mv "$tap.part" "$tap"
	elif [ "${spec[0]}" = tap ]; then
		tap=$WORK/script.tap
		rm -f "$tap" "$tap.part"
		"${make_env[@]}" "$SCRATCH/scripts/${spec[1]}" >"$tap.part" 2>"$2" || true
		mv "$tap.part" "$tap"
	elif [ "${spec[0]}" = bench ]; then
		tap=$WORK/bench.tap
		run_bench_check "${spec[1]}" "${spec[2]}" "$tap" "$2" "${make_env[@]}"
	else
		tap=$SCRATCH/build/logs/selftest-${spec[1]}.tap
		rm -f "$tap"
		"${make_env[@]}" make -C "$SCRATCH" selftest DISK="${spec[1]}" TESTS="${spec[2]}" >"$2" 2>&1 || true
	fi
	echo "$tap"
}

# Benchmark cell $1 on profile $2 in the scratch tree, briefly, under
# the environment of command $5...; bench/check-results.py's TAP on its
# run into $3, the run's output into log $4. A measurement that failed
# fails the run but still has its record, so the results are read
# whenever the run got as far as linking them (never an earlier run's).
run_bench_check()
{
	local cell=$1 profile=$2 tap=$3 log=$4 latest=$SCRATCH/build/bench/latest
	shift 4
	rm -f "$tap" "$latest"
	"$@" CELLS="$cell" PROFILE="$profile" SCHEDULERS=mq-deadline REPS=1 SECS=5 \
		"$SCRATCH/scripts/bench.sh" >"$log" 2>&1 || true
	[ -e "$latest" ] || return 0
	python3 "$SCRATCH/bench/check-results.py" "$latest" >"$tap.part" 2>>"$log" || true
	mv "$tap.part" "$tap"
}

# TAP file $1's lines, without a serial console's carriage returns and
# printk times and without indentation; a kselftest's own results keep
# the runner's "# ".
tap_lines()
{
	sed -E 's/\r$//; s/^\[ *[0-9]+\.[0-9]+\] //; s/^[[:space:]]+//' "$1"
}

# The result lines of test spec $1 among TAP lines $2 whose result is $3
# ("not ok" or "ok"): KUnit's line for its case, or the kselftest's,
# bisect.sh's or the script's lines whose description the spec's regular
# expression matches.
result_lines()
{
	local -a spec
	read -ra spec <<<"$1"
	if [ "${spec[0]}" = kunit ]; then
		grep -Ex -- "$3 [0-9]+ ${spec[1]}" <<<"$2" || true
	else
		grep -E -- "^(# )*$3 [0-9]+ " <<<"$2" |
			RE=$(spec_regex "$1") awk '{ d = $0; sub(/^(# )*(not )?ok [0-9]+ /, "", d) } d ~ ENVIRON["RE"]' || true
	fi
}

# The result of test spec $1 in TAP file $2: "fail", "pass", "skipped", or
# "absent" (the test did not report: the kernel did not build or boot).
# The lines are read whole first: grep -q stops at a match, and under
# pipefail the command writing to it would fail.
test_result()
{
	local lines ok
	[ -f "$2" ] || { echo absent; return; }
	lines=$(tap_lines "$2")
	ok=$(result_lines "$1" "$lines" ok)
	if [ -n "$(result_lines "$1" "$lines" "not ok")" ]; then
		echo fail
	elif [ -n "$ok" ] && grep -Eivq '# SKIP' <<<"$ok"; then
		echo pass
	elif [ -n "$ok" ]; then
		echo skipped
	else
		echo absent
	fi
}

# The lines of TAP file $2 that show test spec $1 failing: KUnit's account
# of the failed expectations, or the diagnostics the kselftest printed
# before its failure.
failure_lines()
{
	local -a spec
	local lines
	read -ra spec <<<"$1"
	lines=$(tap_lines "$2")
	if [ "${spec[0]}" = kunit ]; then
		# Each failed expectation, up to the next message or result.
		awk -v start="^# ${spec[1]}: (EXPECTATION|ASSERTION) FAILED" '
			$0 ~ start { quoting = 1; print; next }
			/^#|^(not )?ok / { quoting = 0 }
			quoting && NF' <<<"$lines" | sed -n 1,24p
		result_lines "$1" "$lines" "not ok" | sed -n 1p
	else
		grep -Fx -m1 -B8 -- "$(result_lines "$1" "$lines" "not ok" | sed -n 1p)" <<<"$lines" || true
	fi
}

# What one run gives test spec $1 its result, on a guest of $2 CPUs for a
# kselftest: one KUnit boot runs every case, a kselftest's boot prints all
# its lines, bisect.sh up to a patch gives that patch's, and a benchmark
# of a cell on a profile gives that cell's.
run_key()
{
	local -a spec
	read -ra spec <<<"$1"
	case ${spec[0]} in
	kunit) echo kunit ;;
	selftest) echo "selftest ${spec[1]} ${spec[2]} ${2:-2} CPUs" ;;
	bench) echo "bench ${spec[1]} ${spec[2]}" ;;
	*) echo "${spec[0]} ${spec[1]}" ;;
	esac
}

# Run test spec $1, its log $2, on a guest of $3 CPUs (for kselftests),
# unless RUN_TAPS has the run that gives its result; set RUN_TAP and
# RUN_LOG to that run's TAP file (saved: the next run writes the same
# file) and log.
cached_run()
{
	local key tap saved
	[ "${1%% *}" = selftest ] || set -- "$1" "$2" ""
	key=$(run_key "$1" "$3")
	if [ -z "${RUN_TAPS[$key]:-}" ]; then
		saved=$WORK/run-${#RUN_TAPS[@]}.tap
		rm -f "$saved"
		tap=$(run_test "$1" "$2" "$3")
		[ ! -f "$tap" ] || cp "$tap" "$saved"
		RUN_TAPS[$key]=$saved
		RUN_LOGS[$key]=$2
	fi
	RUN_TAP=${RUN_TAPS[$key]}
	RUN_LOG=${RUN_LOGS[$key]}
}

# The tests of each mutant file of the arguments must pass on the code as
# it is: a test that fails already tells nothing about a mutant.
baseline()
{
	local file spec cpus result key
	local -a specs
	RUN_TAPS=() RUN_LOGS=()
	sync_scratch
	for file in "$@"; do
		cpus=$(header_field "$file" CPUs)
		mapfile -t specs < <(mutant_tests "$file")
		for spec in "${specs[@]}"; do
			key=$(run_key "$spec" "$cpus")
			[ -n "${RUN_TAPS[$key]:-}" ] || say "[baseline] $key, on the code as it is"
			cached_run "$spec" "$WORK/baseline-${key//[^A-Za-z0-9_.-]/_}.log" "$cpus"
			result=$(test_result "$spec" "$RUN_TAP")
			[ "$result" = pass ] ||
				die "'$spec' does not pass on the code as it is ($result; log ${RUN_LOG#"$TOP"/})"
		done
	done
}

# Apply mutant file $1 in directory $2, exactly (no fuzz, no backup or
# reject files); with --dry-run as $3, only see whether it would.
apply_mutant()
{
	patch -p1 -d "$2" ${3:+"$3"} --forward --batch --quiet --fuzz=0 \
		--no-backup-if-mismatch --reject-file=- <"$1"
}

# The verdict on a mutant of one test's result $1 ("fail", "pass",
# "skipped", "absent"), its log $2.
test_verdict()
{
	case $1 in
	fail) echo killed ;;
	pass) echo survived ;;
	skipped) echo "broken: the test skipped (log ${2#"$TOP"/})" ;;
	*) echo "broken: the test did not report (log ${2#"$TOP"/})" ;;
	esac
}

# Apply mutant $1 to the scratch tree, run each of its tests, and append
# its section to the report: each test's verdict, and the lines that show
# each failure.  It is killed when every test failed; its verdict, the
# first test's that was not "killed" otherwise, goes to VERDICT (not
# printed: a subshell would hide a failure of the steps before).
run_mutant()
{
	local file=$1 name spec cpus this verdict='' section=''
	local -a specs
	name=$(basename "$file" .patch)
	cpus=$(header_field "$file" CPUs)
	mapfile -t specs < <(mutant_tests "$file")
	RUN_TAPS=() RUN_LOGS=()
	sync_scratch
	if ! apply_mutant "$file" "$SCRATCH" >"$WORK/$name.log" 2>&1; then
		verdict="stale: does not apply to $REVISION"
	else
		for spec in "${specs[@]}"; do
			cached_run "$spec" "$WORK/$name-$((${#RUN_TAPS[@]} + 1)).log" "$cpus"
			this=$(test_verdict "$(test_result "$spec" "$RUN_TAP")" "$RUN_LOG")
			[ "$this" = killed ] || [ -n "$verdict" ] || verdict="$this (\`$spec\`)"
			section+=$'\n'"- test: \`$spec\`: $this"$'\n'
			[ "$this" != killed ] ||
				section+=$'\n'$(failure_lines "$spec" "$RUN_TAP" | sed 's/^/    /')$'\n'
		done
		verdict=${verdict:-killed}
	fi
	{
		echo "## $name: $verdict"
		echo
		echo "- undoes: $(header_field "$file" Defect)"
		echo "$section"
	} >>"$REPORT"
	VERDICT=$verdict
}

# Die unless mutant file $1 names what it undoes and a test this script
# can run, and applies to this checkout's files as they are.
check_mutant()
{
	local spec
	local -a specs
	mapfile -t specs < <(mutant_tests "$1")
	[ ${#specs[@]} -gt 0 ] || die "${1#"$TOP"/} has no 'Test:' line"
	for spec in "${specs[@]}"; do
		check_test_spec "$1" "$spec"
	done
	case $(header_field "$1" CPUs) in
	'') ;;
	[1-8])
		grep -q '^selftest ' <<<"$(printf '%s\n' "${specs[@]}")" ||
			die "${1#"$TOP"/}: 'CPUs:' is for kselftests (the other tests boot no guest of their own)"
		;;
	*) die "${1#"$TOP"/}: 'CPUs:' takes 1 to 8" ;;
	esac
	[ -n "$(header_field "$1" Defect)" ] || die "${1#"$TOP"/} has no 'Defect:' line"
	apply_mutant "$1" "$TOP" --dry-run >/dev/null 2>&1 ||
		die "${1#"$TOP"/} does not apply to this checkout: the code it undoes has changed"
}

main()
{
	local listing f n=0 killed=0
	local -a files
	listing=$(mutant_files) || exit 1
	[ -n "$listing" ] || die "no mutants in ${MUTANTS_DIR#"$TOP"/}"
	mapfile -t files <<<"$listing"
	for f in "${files[@]}"; do
		check_mutant "$f"
	done

	[ -z "$(git -C "$TOP" status --porcelain --untracked-files=no)" ] ||
		warn "make mutants runs the committed code (HEAD); uncommitted changes are left out"
	REVISION=$(git -C "$TOP" rev-parse HEAD)
	lock_build
	mkdir -p "$WORK"

	baseline "${files[@]}"

	printf '# make mutants, %s\n\nrevision %s\n\n' "$(date '+%F %T')" "$REVISION" >"$REPORT"
	for f in "${files[@]}"; do
		n=$((n + 1))
		say "[$n/${#files[@]}] $(basename "$f" .patch): $(mutant_tests "$f" | awk 'NR > 1 { printf "; " } { printf "%s", $0 }')"
		run_mutant "$f"
		say "[$n/${#files[@]}] $(basename "$f" .patch): $VERDICT"
		[ "$VERDICT" != killed ] || killed=$((killed + 1))
	done
	sync_scratch
	say "$killed of $n mutants killed; report: ${REPORT#"$TOP"/}"
	[ "$killed" = "$n" ]
}

[ "${BASH_SOURCE[0]}" != "$0" ] || main
