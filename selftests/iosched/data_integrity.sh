#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Data integrity under every I/O scheduler: fio writes checksummed blocks
# (verify=crc32c) in a mixed random read/write load and reads them back,
# once under each scheduler the disk lists, with a buffered reader beside
# it and nr_requests and read_ahead_kb rewritten every 200 ms; then once
# more while the scheduler is switched round-robin every 100 ms and two
# processes read every file of the disk's scheduler debugfs directories
# (they take the scheduler's lock while switches tear it down: on the
# debug kernel, KASAN reports a reader that outlives what it reads).
#
# Environment: IOSCHED_DISK (e.g. "sda"), IOSCHED_VERIFY_SECONDS (each
# scheduler's run, default 20), IOSCHED_STORM_SECONDS (the switching run,
# default 60).

DIR=$(dirname "$0")
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/iosched_lib.sh"

DISK=${IOSCHED_DISK:-}
SECONDS_PER_RUN=${IOSCHED_VERIFY_SECONDS:-20}
STORM_SECONDS=${IOSCHED_STORM_SECONDS:-60}
SWITCH_INTERVAL=0.1
LOG=/tmp/data_integrity.$$.log

# Switch to the next scheduler every SWITCH_INTERVAL while process $1
# runs; fails if a switch was refused.
switch_storm()
{
	failed=0
	switches=0
	while kill -0 "$1" 2>/dev/null; do
		for s in $(schedulers "$DISK"); do
			if ! select_scheduler "$DISK" "$s"; then
				ktap_print_msg "switching to $s failed"
				failed=1
			fi
			switches=$((switches + 1))
			sleep "$SWITCH_INTERVAL"
		done
	done
	ktap_print_msg "$switches scheduler switches in ${STORM_SECONDS}s"
	return $failed
}

# Read every file of the disk's scheduler debugfs directories (sched/,
# and hctx*/sched/ for schedulers with per-hardware-queue files, such as
# kyber; not hctx*/sched_tags*, whose readers wait for the switch's
# sysfs_lock) in a loop while process $1 runs; files vanish and reappear
# with each switch.
debugfs_reader()
{
	dir=/sys/kernel/debug/block/$DISK
	while kill -0 "$1" 2>/dev/null; do
		cat "$dir"/sched/* "$dir"/hctx*/sched/* >/dev/null 2>&1
		sleep 0.01
	done
}

if [ -z "$DISK" ] || [ ! -w "/sys/block/$DISK/queue/scheduler" ]; then
	ktap_skip_all "IOSCHED_DISK does not name a disk with a scheduler"
	exit "$KSFT_SKIP"
fi

ktap_print_header
ktap_set_plan $((2 * $(schedulers "$DISK" | wc -w) + 1))
initial=$(active_scheduler "$DISK")

for s in $(schedulers "$DISK"); do
	if ! select_scheduler "$DISK" "$s"; then
		ktap_test_fail "$DISK: fio verify under $s (could not select it)"
		ktap_test_fail "$DISK: limits under load with $s (could not select it)"
		continue
	fi
	verify_under_churn "$DISK" "$SECONDS_PER_RUN" "$LOG" "$s"
done

[ -d /sys/kernel/debug/block ] ||
	mount -t debugfs none /sys/kernel/debug 2>/dev/null
fio_verify "$DISK" "$STORM_SECONDS" "$LOG" &
fio_pid=$!
debugfs_reader $fio_pid &
reader1=$!
debugfs_reader $fio_pid &
reader2=$!
switch_storm $fio_pid
storm=$?
wait $fio_pid
status=$?
wait $reader1 $reader2
[ $storm -eq 0 ] || status=1
report_fio $status "$LOG" "$DISK: fio verify while switching schedulers every ${SWITCH_INTERVAL}s"

select_scheduler "$DISK" "$initial"
rm -f "$LOG"
ktap_finished
