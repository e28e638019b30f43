#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make test": build what is needed, run checkpatch, the KUnit suites in
# one boot and the kselftests in one boot per disk kind. Ends with the line
# "N passed, N failed" and fails on any failed test, any kernel report
# (oops, BUG, WARN, lockdep, ...) and any guest that did not finish.
#
# DISKS="sata nvme" limits the disk kinds; VERIFY_SECONDS sets the length
# of each fio verify run (default 20).
. "$(dirname "$0")/lib.sh"
. "$TOP/scripts/qemu-lib.sh"

VERIFY_SECONDS=${VERIFY_SECONDS:-20}
read -ra kinds <<<"${DISKS:-$(disk_kinds | tr '\n' ' ')}"
check_disk_kinds "${kinds[@]}"
case "$VERIFY_SECONDS" in
'' | *[!0-9]*) die "VERIFY_SECONDS must be a whole number of seconds, not '$VERIFY_SECONDS'" ;;
esac

passed=0
failed=0
skipped=0
step=0
steps=$((5 + ${#kinds[@]}))
start=$SECONDS

# Add the leaf results of TAP file $2 under label $1; a file without any
# result counts as one failure.
count_tap()
{
	local label=$1 file=$2 p f s
	read -r p f s < <(awk -f "$TOP/scripts/tap-count.awk" "$file")
	if [ $((p + f + s)) = 0 ]; then
		echo "  FAIL $label: no test results in $file" >&2
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
	echo "    $label: $p passed, $f failed, $s skipped ($((SECONDS - start)) s so far)" >&2
}

# A guest that did not finish or printed a kernel report is one failure.
guest_verdict()
{
	local name=$1
	shift
	if ! boot_guest "$name" "$@" || ! "$TOP/scripts/splats.sh" "$LOGS/$name.console"; then
		failed=$((failed + 1))
	fi
}

# Python unittest's verbose log as TAP: one line per test.
unittest_to_tap()
{
	awk '/ \.\.\. ok$/ { print "ok " ++n " " $1; next }
	     / \.\.\. (FAIL|ERROR)$/ { print "not ok " ++n " " $1; next }
	     / \.\.\. skipped/ { print "ok " ++n " " $1 " # SKIP"; next }
	     END { print "1.." n }' "$1"
}

next_step()
{
	step=$((step + 1))
	say "[$step/$steps] $*"
}

prepare_guest

next_step "checkpatch --strict on the series and the files it adds"
"$TOP/scripts/check.sh" >"$LOGS/checkpatch.tap" || true
count_tap checkpatch "$LOGS/checkpatch.tap"

next_step "exported series: applies to a pristine tree, each patch builds, W=1 clean"
if "$TOP/scripts/export.sh" >"$LOGS/export.log" 2>&1; then
	printf 'ok 1 make export applies with quilt push -a\n1..1\n' >"$LOGS/export.tap"
	"$TOP/scripts/bisect.sh" >"$LOGS/bisect.tap" || true
else
	tail -n 5 "$LOGS/export.log" | sed 's/^/# /' >"$LOGS/export.tap"
	printf 'not ok 1 make export applies with quilt push -a\n1..1\n' >>"$LOGS/export.tap"
	printf '1..0\n' >"$LOGS/bisect.tap"
fi
count_tap "export" "$LOGS/export.tap"
count_tap "per-patch builds" "$LOGS/bisect.tap"

next_step "host unit tests: disk model (cmocka), bench report (unittest)"
build_disk_model
CMOCKA_MESSAGE_OUTPUT=TAP "$BUILD/diskmodel/test_model" >"$LOGS/diskmodel.tap" 2>&1 || true
count_tap "disk model" "$LOGS/diskmodel.tap"
python3 -m unittest discover -s "$TOP/bench/report" -v >"$LOGS/report-unittest.log" 2>&1 || true
unittest_to_tap "$LOGS/report-unittest.log" >"$LOGS/report-unittest.tap"
count_tap "bench report" "$LOGS/report-unittest.tap"

next_step "KUnit suites ($(accel))"
guest_verdict kunit kunit 300 ""
count_tap KUnit "$LOGS/kunit.console"

for kind in "${kinds[@]}"; do
	next_step "kselftests on $kind ($(disk_field "$kind" 3)), fio verify ${VERIFY_SECONDS}s per scheduler"
	guest_verdict "test-$kind" test 900 \
		"kunit.enable=0 iosched.verify_seconds=$VERIFY_SECONDS" "$kind"
	count_tap "$kind" "$LOGS/test-$kind.tap"
done

next_step "benchmark harness smoke (disk model hdd, seed000 mmap cell, 5 s runs)"
if CELLS=seed000-mmap-64k PROFILE=hdd THREADS=1,4 SECS=5 REPS=1 \
	SCHEDULERS="mq-deadline bfq" "$TOP/scripts/bench.sh" >"$LOGS/bench-smoke.log" 2>&1; then
	python3 "$TOP/bench/check-results.py" "$BUILD/bench/latest" >"$LOGS/bench-smoke.tap" 2>&1 || true
else
	tail -n 5 "$LOGS/bench-smoke.log" >&2
	: >"$LOGS/bench-smoke.tap"
fi
count_tap "bench smoke" "$LOGS/bench-smoke.tap"

echo "tests took $((SECONDS - start)) s; logs in ${LOGS#"$TOP"/}/" >&2
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" = 0 ]
