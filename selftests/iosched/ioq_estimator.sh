#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# blk-ioq's parallelism estimator (mq-cfq, mq-as) on a rotational
# null_blk disk of one spindle, which serves one request at a time in
# 4 ms: at most 250 requests a second.
#
# Reading it (debugfs sched/estimator) changes nothing: on the disk
# attached anew and idle, a probe is due, and a read that started it would
# show 64 units; it must show one, and no probe.
#
# One reader, one request at a time, measures the disk: the estimator
# closes windows of it, at no more than 250 requests a second.
#
# A request the driver gives back for the scheduler to send again (SCSI's
# ACTION_REPREP, null_blk's requeue_inject; not BLK_STS_RESOURCE, which
# goes to the hardware queue's dispatch list, nor a request the driver
# keeps prepared) is not a completion: the scheduler must undo its
# dispatch, neither charging service for it nor giving the estimator a
# completion with no work.  The same reader, while the disk fails half of
# the requests it is given (null_blk alternates the two ways back, so a
# quarter of them come back through the scheduler).  Then:
#  - the estimator dropped the windows a requeue fell in: a window takes
#    32 completions, and 32 in a row without a requeue happen once in
#    400,000 (at most one window is allowed); taken for completions,
#    requeues would close dozens;
#  - nothing is left counted in flight;
#  - mq-cfq: its slices (debugfs sched/slices) dispatched the requests the
#    disk completed (its stat file): a request sent back and dispatched
#    again is counted once.  With one reader, every request is its
#    queue's, in its slice, and comes back while that slice runs.
#
# The guest must run no other I/O on the disk (udev's probe is waited
# for where udevadm exists).

DIR=$(dirname "$0")
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/iosched_lib.sh"

DISK=iosched_estimator
SERVICE_NS=4000000
MAX_RATE=$((1000000000 / SERVICE_NS))
DEBUGFS=/sys/kernel/debug/block
LOG=/tmp/ioq_estimator.$$.log
REQUEUE_BUDGET=1000000

# Field $1 of the estimator snapshot in $ESTIMATOR.
estimator_field()
{
	echo "$ESTIMATOR" | sed -n "s/^$1 //p"
}

read_estimator()
{
	ESTIMATOR=$(cat "$DEBUGFS/$DISK/sched/estimator")
}

# Requests the disk completed: reads and writes of its stat file.
completed_requests()
{
	awk '{ print $1 + $5 }' "/sys/block/$DISK/stat"
}

# The requests mq-cfq's ended slices dispatched, summed over sync and
# async and every reason a slice ends.
slices_dispatched()
{
	awk '{ n += $NF } END { print n + 0 }' "$DEBUGFS/$DISK/sched/slices"
}

# Wait up to two seconds for mq-cfq's last slice to end (it ends when
# the reader exits), so that sched/slices counts all of it.
wait_no_active_slice()
{
	tries=0
	# debugfs files have no size: read it.
	while [ -n "$(cat "$DEBUGFS/$DISK/sched/active")" ]; do
		if [ $tries -ge 20 ]; then
			ktap_print_msg "a slice is still active after 2 s:"
			sed 's/^/# /' "$DEBUGFS/$DISK/sched/active"
			return
		fi
		sleep 0.1
		tries=$((tries + 1))
	done
}

# Attach scheduler $1 anew, its counts at zero, with nothing else queued.
attach()
{
	command -v udevadm >/dev/null && udevadm settle
	select_scheduler $DISK none && select_scheduler $DISK "$1" ||
		ktap_exit_fail_msg "$1 is offered but could not be selected"
}

# One reader with one request out at a time, random 4 KiB direct reads,
# for $1 seconds.
read_disk()
{
	fio --name=estimator --filename="/dev/$DISK" --direct=1 \
		--ioengine=psync --rw=randread --bs=4k --size=256M \
		--time_based --runtime="$1" >"$LOG" 2>&1 && return 0
	sed 's/^/# /' "$LOG" | tail -n 20
	return 1
}

# The estimator of the disk, idle since scheduler $1 was attached: one
# unit, no probe, however often it is read.  The sleep outlasts a probe
# (250 ms) that the attach itself might have started.  A read that
# started a probe would show it at once, and the next read too unless
# the guest took longer than the probe between them.
check_idle_read()
{
	sleep 0.3
	read_estimator
	first="$(estimator_field units)/$(estimator_field probing)"
	read_estimator
	second="$(estimator_field units)/$(estimator_field probing)"
	ktap_print_msg "$1: idle: units/probing $first, then $second"
	ktap_test_result "$1: reading the estimator starts no probe" \
		one_unit_not_probing
}

one_unit_not_probing()
{
	[ "$first" = 1/0 ] && [ "$second" = 1/0 ]
}

# Two seconds of reads without requeues: the estimator must close windows
# of them, at no more than the disk serves.
check_measures_disk()
{
	read_disk 2
	fio_status=$?
	read_estimator
	rate=$(estimator_field shallow_iops)
	windows=$(estimator_field shallow_windows)
	ktap_print_msg "$1: no requeues: shallow_iops ${rate:-none} over" \
		"${windows:-none} windows"
	ktap_test_result "$1: the estimator measures at most $MAX_RATE requests a second" \
		measured_within_disk
}

measured_within_disk()
{
	[ "$fio_status" = 0 ] && [ "${windows:-0}" -ge 1 ] &&
		[ "${rate:-$((MAX_RATE + 1))}" -le $MAX_RATE ]
}

# Five seconds of reads while the disk fails half of the requests it is
# given; sets INJECTED to how many it failed, empty if unknown.
read_with_requeues()
{
	cfg=$NULLB_CONFIGFS/$DISK/requeue_inject
	echo 0 >"$cfg/verbose"
	echo 1 >"$cfg/interval"
	echo 0 >"$cfg/space"
	echo "$REQUEUE_BUDGET" >"$cfg/times"
	echo 50 >"$cfg/probability"
	read_disk 5
	fio_status=$?
	echo 0 >"$cfg/probability"
	left=$(cat "$cfg/times") || left=
	INJECTED=${left:+$((REQUEUE_BUDGET - left))}
}

# Check how scheduler $1, attached anew, undoes the dispatch of requests
# that come back: three results for mq-cfq, two for others.
check_requeues()
{
	s=$1
	attach "$s"
	before=$(completed_requests)
	[ "$s" != mq-cfq ] || slices_before=$(slices_dispatched)
	read_with_requeues
	wait_no_active_slice
	done_requests=$(($(completed_requests) - before))
	read_estimator
	windows=$(estimator_field shallow_windows)
	in_flight=$(estimator_field in_flight)
	ktap_print_msg "$s: $done_requests requests completed," \
		"${INJECTED:-an unknown number} failed; estimator:" \
		"${windows:-no} windows, in_flight ${in_flight:-none}"
	ktap_test_result "$s: the estimator dropped the windows requeues fell in" \
		requeues_dropped_windows
	ktap_test_result "$s: nothing left in flight" nothing_in_flight
	[ "$s" = mq-cfq ] || return
	dispatched=$(($(slices_dispatched) - slices_before))
	ktap_print_msg "$s: slices dispatched $dispatched requests"
	ktap_test_result "$s: slices dispatched each completed request once" \
		each_dispatched_once
}

requeues_dropped_windows()
{
	[ "$fio_status" = 0 ] && [ "${INJECTED:-0}" -gt 0 ] &&
		[ "${windows:-2}" -le 1 ]
}

nothing_in_flight()
{
	[ "$in_flight" = 0 ]
}

each_dispatched_once()
{
	[ "$fio_status" = 0 ] && [ "$done_requests" -gt 0 ] &&
		[ "$dispatched" = "$done_requests" ]
}

# The results check_requeues would give for scheduler $1, skipped.
skip_requeues()
{
	why="no requeue_inject (CONFIG_BLK_DEV_NULL_BLK_FAULT_INJECTION,"
	why="$why CONFIG_FAULT_INJECTION_CONFIGFS)"
	ktap_test_skip "$1: the estimator dropped the windows requeues fell in: $why"
	ktap_test_skip "$1: nothing left in flight: $why"
	[ "$1" = mq-cfq ] || return
	ktap_test_skip "$1: slices dispatched each completed request once: $why"
}

cleanup()
{
	nullb_remove $DISK
	rm -f "$LOG"
}

skip_unless_nullb_debugfs_fio "$DEBUGFS"
cleanup
trap cleanup EXIT
trap 'exit 1' INT TERM
# One request at a time, each served in 4 ms, on a disk that spins: one
# spindle.  Every request goes to the disk by itself, and is counted.
if ! nullb_create $DISK hw_queue_depth=1 irqmode=2 \
		completion_nsec=$SERVICE_NS ||
   ! echo 1 >/sys/block/$DISK/queue/rotational ||
   ! echo 2 >/sys/block/$DISK/queue/nomerges ||
   ! echo 1 >/sys/block/$DISK/queue/iostats; then
	ktap_exit_fail_msg "cannot make the null_blk disk (see config)"
fi

plan=0
checked=
for s in mq-cfq mq-as; do
	schedulers $DISK | grep -qw "$s" || continue
	checked="$checked $s"
	if [ "$s" = mq-cfq ]; then
		plan=$((plan + 5))
	else
		plan=$((plan + 4))
	fi
done
if [ -z "$checked" ]; then
	ktap_skip_all "null_blk offers neither mq-cfq nor mq-as"
	exit "$KSFT_SKIP"
fi
ktap_print_header
ktap_set_plan $plan
for s in $checked; do
	attach "$s"
	check_idle_read "$s"
	check_measures_disk "$s"
	if [ -d "$NULLB_CONFIGFS/$DISK/requeue_inject" ]; then
		check_requeues "$s"
	else
		skip_requeues "$s"
	fi
done
ktap_finished
