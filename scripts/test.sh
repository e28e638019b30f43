#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make test": build what is needed, run checkpatch, the KUnit suites in
# one boot and the kselftests in one boot per disk kind. Ends with the line
# "N passed, N failed" and fails on any failed test, any kernel report
# (oops, BUG, WARN, lockdep, ...) and any guest that did not finish.
#
# DISKS="sata nvme" limits the disk kinds; VERIFY_SECONDS sets the length
# of each scheduler's fio verify run (default 3), STORM_SECONDS that of
# the verify run under scheduler switching every 100 ms (default 20),
# SOAK_SECONDS that of the 64-thread soak per scheduler (default 10;
# "make soak" runs the 10-minute one). Then the kselftests of the disk
# kinds of DEBUG_DISKS (default scsi; empty: no debug pass) run on the
# debug kernel (configs/debug.config), with a DEBUG_SECONDS (default 10)
# switch storm; DEBUG=1 runs every stage on the debug kernel instead.
# STAGES="kunit nvme" runs only the stages named (see stage_names);
# SHARD=i/n runs the i-th of n parts of them (see shard_stages).
. "$(dirname "$0")/lib.sh"
lock_build
. "$TOP/scripts/qemu-lib.sh"
. "$TOP/scripts/test-lib.sh"
# A run that dies leaves no results (scripts/merge-results.sh).
rm -f "$LOGS/results"

VERIFY_SECONDS=${VERIFY_SECONDS:-3}
STORM_SECONDS=${STORM_SECONDS:-20}
SOAK_SECONDS=${SOAK_SECONDS:-10}
read -ra disks <<<"${DISKS:-$(disk_kinds | tr '\n' ' ')}"
check_disk_kinds "${disks[@]}"
# Disk kinds (empty: no debug pass) and run length of the debug pass.
read -ra debug_kinds <<<"${DEBUG_DISKS-scsi}"
[ "${DEBUG:-0}" = 1 ] && debug_kinds=()
[ ${#debug_kinds[@]} = 0 ] || check_disk_kinds "${debug_kinds[@]}"
DEBUG_SECONDS=${DEBUG_SECONDS:-10}
check_seconds VERIFY_SECONDS STORM_SECONDS SOAK_SECONDS DEBUG_SECONDS
# Tests that bring their own (null_blk) devices, and the soak, run once
# (on the first disk kind), not per disk kind.
MACHINE_TESTS=default_scheduler.sh,nullb_faults.sh,ioq_estimator.sh,soak.sh,mq_cfq_depth.sh,mq_cfq_records.sh,mq_cfq_starve
# Tests that need more CPUs than a guest has by default: in the machine
# stage, in a boot with SMP_CPUS of them.
SMP_TESTS=mq_cfq_smp
SMP_CPUS=4

# The stages of make test, in the order they run: the host checks (in
# the background), the host unit tests, KUnit, the kselftests of each
# disk kind, the tests that run once per machine, the bench smoke and the
# debug kernel's kselftests; the disk kinds are the arguments.
stage_names()
{
	echo checks unit kunit "$@" machine bench-smoke debug
}

# Whether stage $1 runs.
wanted()
{
	listed "$1" "${stages[@]}"
}

mapfile -t all_kinds < <(disk_kinds)
read -ra all_stages <<<"$(stage_names "${all_kinds[@]}")"
read -ra stages <<<"${STAGES:-$(stage_names "${disks[@]}")}"
for stage in "${stages[@]}"; do
	listed "$stage" "${all_stages[@]}" ||
		die "STAGES: unknown stage '$stage' (stages: ${all_stages[*]})"
	! listed "$stage" "${all_kinds[@]}" || listed "$stage" "${disks[@]}" ||
		die "STAGES names disk kind $stage, which DISKS (${disks[*]}) leaves out"
done

if [ -n "${SHARD:-}" ]; then
	[[ $SHARD =~ ^([1-9][0-9]*)/([1-9][0-9]*)$ ]] && [ "${BASH_REMATCH[1]}" -le "${BASH_REMATCH[2]}" ] ||
		die "SHARD=$SHARD: want i/n with 1 <= i <= n"
	mapfile -t stages < <(shard_stages "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" "${stages[@]}")
	say "shard $SHARD: ${stages[*]:-no stage}"
fi
wanted debug || debug_kinds=()

kinds=()
for kind in "${disks[@]}"; do
	if wanted "$kind"; then kinds+=("$kind"); fi
done
steps=${#kinds[@]}
for stage in unit kunit machine bench-smoke; do
	wanted $stage && steps=$((steps + 1))
done
wanted checks && steps=$((steps + 1))
[ ${#debug_kinds[@]} = 0 ] || steps=$((steps + 1 + ${#debug_kinds[@]}))

# Python unittest's verbose log as TAP: one line per test, and the plan
# from its closing "Ran N tests" (none if it died before: a failure).
unittest_to_tap()
{
	awk '/ \.\.\. ok$/ { print "ok " ++n " " $1; next }
	     / \.\.\. (FAIL|ERROR)$/ { print "not ok " ++n " " $1; next }
	     / \.\.\. skipped/ { print "ok " ++n " " $1 " # SKIP"; next }
	     /^Ran [0-9]+ tests? in / { print "1.." $2 }' "$1"
}

# The host-side checks and builds that need no guest: checkpatch, the
# configuration check, make export, the debug kernel and the per-patch
# builds. They run in the background, at the lowest priority, while the
# guests run: most of a guest stage is timed runs that leave the host's
# CPUs idle. The debug kernel comes before the per-patch builds, so that
# its guest stage can run while they do (DEBUG_BUILT says when it may);
# their results are counted when they are done. Without the stage
# "checks", only the debug kernel is built here.
host_checks()
{
	local exported=0
	# A bundle brings the debug kernel: its stage need not wait.
	[ -z "${BUNDLE:-}" ] || build_debug_kernel
	if wanted checks && checks_before_debug_kernel; then
		exported=1
	fi
	[ -n "${BUNDLE:-}" ] || build_debug_kernel
	if [ $exported = 1 ]; then
		echo "per-patch builds (log: ${LOGS#"$TOP"/}/bisect-progress.log)" >"$HOST_NOW"
		env -u BISECT_LAST BISECT=dirs "$TOP/scripts/bisect.sh" >"$LOGS/bisect.tap" 2>"$LOGS/bisect-progress.log" || true
		echo "the series in Debian's configuration (log: ${LOGS#"$TOP"/}/distro-modules-progress.log)" >"$HOST_NOW"
		"$TOP/scripts/distro-modules.sh" >"$LOGS/distro-modules.tap" 2>"$LOGS/distro-modules-progress.log" || true
	fi
	echo done >"$HOST_NOW"
}

# checkpatch, the configuration check and make export; fails if the
# export did, and then the per-patch builds are not tried.
checks_before_debug_kernel()
{
	echo checkpatch >"$HOST_NOW"
	"$TOP/scripts/check.sh" >"$LOGS/checkpatch.tap" 2>"$LOGS/checkpatch.log" || true
	echo "the configuration against Debian's" >"$HOST_NOW"
	"$TOP/scripts/distro-config.sh" >"$LOGS/distro-config.tap" 2>"$LOGS/distro-config.log" || true
	echo "make export" >"$HOST_NOW"
	if "$TOP/scripts/export.sh" --check >"$LOGS/export.log" 2>&1; then
		printf 'ok 1 make export applies with quilt push -a\n1..1\n' >"$LOGS/export.tap"
	else
		tail -n 5 "$LOGS/export.log" | sed 's/^/# /' >"$LOGS/export.tap"
		printf 'not ok 1 make export applies with quilt push -a\n1..1\n' >>"$LOGS/export.tap"
		printf '1..0\n' >"$LOGS/bisect.tap"
		printf '1..0\n' >"$LOGS/distro-modules.tap"
		return 1
	fi
}

# The debug kernel, if a debug stage will boot it and no BUNDLE brings it;
# DEBUG_BUILT gets 0 when it built (or is not needed), 1 when it did not.
build_debug_kernel()
{
	local debug_status=0
	if [ ${#debug_kinds[@]} -gt 0 ] && [ -z "${BUNDLE:-}" ]; then
		echo "the debug kernel (log: ${LOGS#"$TOP"/}/debug-build.log)" >"$HOST_NOW"
		DEBUG=1 "$TOP/scripts/build.sh" >"$LOGS/debug-build.log" 2>&1 || debug_status=1
	fi
	echo $debug_status >"$DEBUG_BUILT"
}

# Whether the host checks still run: our child, not a process that got
# its PID after it was reaped.
host_checks_running()
{
	[ "$(ps -o ppid= -p "$HOST_CHECKS" 2>/dev/null | tr -d ' ')" = "$$" ]
}

# Wait, with a line of progress a minute, while the host checks run (and
# until file $1 exists, if one is named).
wait_host_checks()
{
	local waited=0
	while host_checks_running && { [ -z "${1:-}" ] || [ ! -e "$1" ]; }; do
		[ $((waited % 60)) = 0 ] &&
			echo "    [host checks] still running: $(cat "$HOST_NOW") ($((SECONDS - start)) s so far)" >&2
		sleep 5
		waited=$((waited + 5))
	done
}

# Stop process $1 and all its descendants (the host checks, when make
# test stops early).
kill_tree()
{
	local child
	for child in $(pgrep -P "$1" 2>/dev/null); do
		kill_tree "$child"
	done
	kill "$1" 2>/dev/null || true
}

count_host_checks()
{
	next_step "host checks (ran beside the guests): checkpatch --strict, configuration against Debian's, make export, each patch builds and is W=1 clean, the series in Debian's configuration"
	wait_host_checks
	if ! wait "$HOST_CHECKS"; then
		echo "  FAIL the host checks did not finish (log: ${LOGS#"$TOP"/}/host-checks.log)" >&2
		failed=$((failed + 1))
	fi
	count_tap checkpatch "$LOGS/checkpatch.tap"
	count_tap "distro config" "$LOGS/distro-config.tap"
	count_tap "export" "$LOGS/export.tap"
	count_tap "per-patch builds" "$LOGS/bisect.tap"
	count_tap "Debian's configuration, as modules" "$LOGS/distro-modules.tap"
}

# Start the host checks and the debug kernel's build in the background.
start_host_checks()
{
	local what=()
	if wanted checks; then what+=(checkpatch "the configuration check" "make export"); fi
	if [ ${#debug_kinds[@]} -gt 0 ] && [ -z "${BUNDLE:-}" ]; then what+=("the debug kernel build"); fi
	if wanted checks; then what+=("the per-patch builds" "the series in Debian's configuration"); fi
	[ ${#what[@]} = 0 ] ||
		say "in the background: $(printf '%s, ' "${what[@]}" | sed 's/, $//') (log: ${LOGS#"$TOP"/}/host-checks.log)"
	: >"$LOGS/checkpatch.tap" >"$LOGS/distro-config.tap" >"$LOGS/export.tap" >"$LOGS/bisect.tap" \
		>"$LOGS/distro-modules.tap"
	HOST_NOW=$LOGS/host-checks.now
	DEBUG_BUILT=$LOGS/debug-build.done
	rm -f "$DEBUG_BUILT"
	(
		renice -n 19 -p "$BASHPID" >/dev/null
		host_checks
	) >"$LOGS/host-checks.log" 2>&1 &
	HOST_CHECKS=$!
	trap 'kill_tree "$HOST_CHECKS"' EXIT
}

# The disk model's, the bench report's and the host scripts' unit tests.
unit_stage()
{
	next_step "host unit tests: disk model (cmocka), bench report and host scripts (unittest)"
	build_disk_model
	CMOCKA_MESSAGE_OUTPUT=TAP "$BUILD/diskmodel/test_model" >"$LOGS/diskmodel.tap" 2>&1 || true
	count_tap "disk model" "$LOGS/diskmodel.tap"
	python3 -m unittest discover -s "$TOP/bench/report" -v >"$LOGS/report-unittest.log" 2>&1 || true
	unittest_to_tap "$LOGS/report-unittest.log" >"$LOGS/report-unittest.tap"
	count_tap "bench report" "$LOGS/report-unittest.tap"
	DISKMODEL_PLUGIN=$MODEL_PLUGIN python3 -m unittest discover -s "$TOP/scripts/tests" -v >"$LOGS/scripts-unittest.log" 2>&1 || true
	unittest_to_tap "$LOGS/scripts-unittest.log" >"$LOGS/scripts-unittest.tap"
	count_tap "host scripts" "$LOGS/scripts-unittest.tap"
}

# The guest stages run on the kernel of $(obj_dir).

# The tests format their disk, so its image is scratch once the stage
# ends; dropping it keeps build/ at about 6 GiB rather than 11.
drop_disk_image()
{
	rm -f "$BUILD/disks/$1-$DISK_SIZE.img"
}

# kind_stages TAG KIND...: the kselftests, one boot per disk kind; logs
# and labels start with TAG ("" or "debug-"). Every disk reports the
# layout of a four-disk RAID-0 where its transport can (SCSI, virtio), so
# that mq-cfq's per-unit idling runs under the tests there, and
# mq_cfq_layout.sh checks both cases across the matrix.
kind_stages()
{
	local tag=$1 kind
	shift
	for kind in "$@"; do
		next_step "${tag}kselftests on $kind ($(disk_field "$kind" 3)), fio verify ${VERIFY_SECONDS}s per scheduler, ${STORM_SECONDS}s switch storm"
		DISK_TOPOLOGY="65536 262144" guest_verdict "${tag}test-$kind" test 2400 \
			"kunit.enable=0 iosched.verify_seconds=$VERIFY_SECONDS iosched.storm_seconds=$STORM_SECONDS iosched.skip_tests=$MACHINE_TESTS,$SMP_TESTS" "$kind"
		count_tap "$tag$kind" "$LOGS/${tag}test-$kind.tap"
		drop_disk_image "$kind"
	done
}

# The tests that run once per machine, booted with disk kind $1.
machine_stage()
{
	local limit
	next_step "null_blk requeues, timeouts and queue depth 1, writeback beside 24 due readers; ${SOAK_SECONDS}s 64-thread soak on $1; per scheduler; then readers on $SMP_CPUS CPUs"
	limit=$(soak_time_limit "$SOAK_SECONDS")
	# Rotational single-queue disks come up with mq-as in this boot, for
	# default_scheduler.sh: the stock default would not tell.
	guest_verdict test-machine test $((limit + 600)) \
		"kunit.enable=0 elevator.rotational=mq-as iosched.verify_seconds=$VERIFY_SECONDS iosched.soak_seconds=$SOAK_SECONDS iosched.test_timeout=$limit iosched.only_tests=$MACHINE_TESTS" "$1"
	count_tap "null_blk and soak" "$LOGS/test-machine.tap"
	GUEST_CPUS=$SMP_CPUS guest_verdict test-smp test 300 \
		"kunit.enable=0 iosched.test_timeout=150 iosched.only_tests=$SMP_TESTS" "$1"
	count_tap "readers on $SMP_CPUS CPUs" "$LOGS/test-smp.tap"
	drop_disk_image "$1"
}

bench_smoke_stage()
{
	next_step "benchmark harness smoke (disk model hdd, seed000 mmap cell, 5 s runs)"
	if CELLS=seed000-mmap-64k PROFILE=hdd THREADS=1,4 SECS=5 REPS=1 \
		SCHEDULERS="mq-deadline bfq@low_latency=0 mq-deadline-rastock@read_ahead_kb=512" "$TOP/scripts/bench.sh" >"$LOGS/bench-smoke.log" 2>&1; then
		python3 "$TOP/bench/check-results.py" "$BUILD/bench/latest" >"$LOGS/bench-smoke.tap" 2>&1 || true
	else
		tail -n 5 "$LOGS/bench-smoke.log" >&2
		: >"$LOGS/bench-smoke.tap"
	fi
	count_tap "bench smoke" "$LOGS/bench-smoke.tap"
}

# The debug kernel (KASAN, lockdep, kmemleak, 30 s hung-task timeout) on
# a reduced matrix, the kselftests of a disk kind with a shorter storm, to
# stay within CI's time; "make test DEBUG=1" runs it all. It was built
# with the host checks, whose per-patch builds go on meanwhile.
debug_stage()
{
	wait_host_checks "$DEBUG_BUILT"
	if [ -n "${BUNDLE:-}" ]; then
		next_step "debug kernel (configs/debug.config): from $BUNDLE"
	else
		next_step "debug kernel (configs/debug.config): build (log: ${LOGS#"$TOP"/}/debug-build.log)"
	fi
	if [ "$(cat "$DEBUG_BUILT" 2>/dev/null)" = 0 ]; then
		export DEBUG=1
		STORM_SECONDS=$DEBUG_SECONDS
		prepare_guest
		kind_stages debug- "${debug_kinds[@]}"
		unset DEBUG
	else
		# Count the other host checks rather than die building it again.
		echo "  FAIL the debug kernel did not build (log: ${LOGS#"$TOP"/}/debug-build.log)" >&2
		failed=$((failed + 1))
	fi
}

# A clean clone's build/ peaks at about 6 GiB.
require_build_space 8 "make test"
mkdir -p "$LOGS"
"$TOP/scripts/deps.sh"
if wanted kunit || [ ${#kinds[@]} -gt 0 ] || wanted machine; then
	prepare_guest
fi
# The export's unit tests run the pristine tree's get_maintainer.pl:
# without a guest stage, nothing has unpacked it, and the host checks
# must not unpack it beside them.
if wanted unit; then
	"$TOP/scripts/fetch.sh" || warn "no pristine tree: the export's get_maintainer tests will be skipped"
fi
if wanted checks || [ ${#debug_kinds[@]} -gt 0 ]; then
	start_host_checks
fi
if wanted unit; then unit_stage; fi
if wanted kunit; then kunit_stage; fi
kind_stages "" "${kinds[@]}"
if wanted machine; then machine_stage "${disks[0]}"; fi
if wanted bench-smoke; then bench_smoke_stage; fi
if [ ${#debug_kinds[@]} -gt 0 ]; then debug_stage; fi
if wanted checks; then count_host_checks; fi

# The totals and the stages of this run, for scripts/merge-results.sh.
echo "$passed $failed $skipped${stages[*]:+ ${stages[*]}}" >"$LOGS/results"
print_summary
