#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# blk-ioq's parallelism estimator (mq-cfq, mq-as) on a rotational
# null_blk disk of one spindle, which serves one request at a time in
# 4 ms.
#
# Reading it (debugfs sched/estimator) changes nothing: on the disk
# attached anew and idle, a probe is due, and a read that started it would
# show 64 units; it must show one, and no probe.
#
# A request the driver sends back (a SCSI BUSY or QUEUE_FULL) is not a
# completion: the scheduler must undo its dispatch, neither charging
# service for it nor giving the estimator a completion with no work.  One
# reader, one request at a time, while the disk sends half of them back
# (requeue_inject).  Then:
#  - the estimator never measured the disk faster than it can serve, 250
#    requests a second: a requeue taken for a completion is a completion
#    in no time, and the half of them that null_blk sends back through
#    the scheduler (the others go to the hardware queue's dispatch list),
#    a quarter of all dispatches, raise a window's rate well above that.
#    Windows with a requeue in them are dropped, so there may be none;
#  - nothing is left counted in flight;
#  - mq-cfq: the requests its slices dispatched (debugfs sched/slices)
#    are the requests the disk completed (its stat file): a request sent
#    back and dispatched again is counted once.

DIR=$(dirname "$0")
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/iosched_lib.sh"

DISK=iosched_requeue
SERVICE_NS=4000000
DEBUGFS=/sys/kernel/debug/block
LOG=/tmp/ioq_estimator.$$.log
SECONDS_PER_RUN=5
REQUEUE_BUDGET=1000000

estimator_field()
{
	sed -n "s/^$1 //p" "$DEBUGFS/$DISK/sched/estimator"
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

# Wait up to two seconds for mq-cfq's last slice to end (the queue ran
# empty and idling gave up), so that sched/slices counts all of it.
wait_no_active_slice()
{
	tries=0
	while [ -s "$DEBUGFS/$DISK/sched/active" ] && [ $tries -lt 20 ]; do
		sleep 0.1
		tries=$((tries + 1))
	done
}

# One reader with one request out at a time, random 4 KiB direct reads,
# while the disk sends back half of what it is given; prints how many it
# sent back.
read_with_requeues()
{
	cfg=$NULLB_CONFIGFS/$DISK/requeue_inject
	echo 0 >"$cfg/verbose"
	echo "$REQUEUE_BUDGET" >"$cfg/times"
	echo 50 >"$cfg/probability"
	fio --name=requeue --filename="/dev/$DISK" --direct=1 \
		--ioengine=psync --rw=randread --bs=4k --size=256M \
		--time_based --runtime=$SECONDS_PER_RUN >"$LOG" 2>&1
	status=$?
	echo 0 >"$cfg/probability"
	echo $((REQUEUE_BUDGET - $(cat "$cfg/times")))
	return $status
}

# The estimator of the disk, idle since scheduler $1 was attached: one
# unit, no probe, however often it is read.
check_idle_read()
{
	sleep 0.3
	estimator_field units >/dev/null
	units=$(estimator_field units)
	probing=$(estimator_field probing)
	ktap_print_msg "$1: idle: units ${units:-none}, probing ${probing:-none}"
	ktap_test_result "$1: reading the estimator starts no probe" \
		one_unit_not_probing
}

one_unit_not_probing()
{
	[ "$units" = 1 ] && [ "$probing" = 0 ]
}

# The checks of check_scheduler, on the figures it read.
requeued_and_rate_within_disk()
{
	[ "${injected:-0}" -gt 0 ] && [ -n "$rate" ] && [ "$rate" -le "$max_rate" ]
}

nothing_in_flight()
{
	[ "$in_flight" = 0 ]
}

each_dispatched_once()
{
	[ "$done_requests" -gt 0 ] && [ "$dispatched" = "$done_requests" ]
}

# Check scheduler $1 on the disk: four results for mq-cfq, three for
# mq-as.
check_scheduler()
{
	s=$1
	# A scheduler attached anew starts with its counts at zero.
	select_scheduler $DISK none && select_scheduler $DISK "$s" ||
		ktap_exit_fail_msg "$s is offered but could not be selected"
	check_idle_read "$s"
	before=$(completed_requests)
	if ! injected=$(read_with_requeues); then
		sed 's/^/# /' "$LOG" | tail -n 20
		ktap_print_msg "$s: fio failed"
	fi
	wait_no_active_slice
	sleep 0.2
	done_requests=$(($(completed_requests) - before))
	rate=$(estimator_field shallow_iops)
	windows=$(estimator_field shallow_windows)
	in_flight=$(estimator_field in_flight)
	max_rate=$((1000000000 / SERVICE_NS))
	ktap_print_msg "$s: $done_requests requests completed, $injected sent" \
		"back; estimator: shallow_iops ${rate:-none} over" \
		"${windows:-none} windows, in_flight ${in_flight:-none}"

	ktap_test_result "$s: the estimator measured at most $max_rate requests a second" \
		requeued_and_rate_within_disk
	ktap_test_result "$s: nothing left in flight" nothing_in_flight
	[ "$s" = mq-cfq ] || return
	dispatched=$(slices_dispatched)
	ktap_print_msg "$s: slices dispatched $dispatched requests"
	ktap_test_result "$s: slices dispatched each completed request once" \
		each_dispatched_once
}

cleanup()
{
	nullb_remove $DISK
	rm -f "$LOG"
}

if [ ! -d "$NULLB_CONFIGFS" ]; then
	ktap_skip_all "no $NULLB_CONFIGFS (CONFIG_BLK_DEV_NULL_BLK, CONFIG_CONFIGFS_FS)"
	exit "$KSFT_SKIP"
fi
if [ ! -d "$DEBUGFS" ]; then
	ktap_skip_all "no $DEBUGFS (CONFIG_BLK_DEBUG_FS, debugfs mounted)"
	exit "$KSFT_SKIP"
fi
if ! command -v fio >/dev/null; then
	ktap_skip_all "no fio"
	exit "$KSFT_SKIP"
fi
cleanup
trap cleanup EXIT
trap 'exit 1' INT TERM
# One request at a time, each served in 4 ms (the hrtimer's lateness on a
# slow guest is small beside it), on a disk that spins: one spindle.
# Every request goes to the disk by itself.
if ! nullb_create $DISK hw_queue_depth=1 irqmode=2 \
		completion_nsec=$SERVICE_NS ||
   ! echo 1 >/sys/block/$DISK/queue/rotational ||
   ! echo 2 >/sys/block/$DISK/queue/nomerges; then
	ktap_exit_fail_msg "cannot make the null_blk disk (see config)"
fi
[ -d "$NULLB_CONFIGFS/$DISK/requeue_inject" ] ||
	ktap_exit_fail_msg "no requeue_inject (CONFIG_BLK_DEV_NULL_BLK_FAULT_INJECTION)"

plan=0
checked=
for s in mq-cfq mq-as; do
	schedulers $DISK | grep -qw "$s" || continue
	checked="$checked $s"
	if [ "$s" = mq-cfq ]; then
		plan=$((plan + 4))
	else
		plan=$((plan + 3))
	fi
done
if [ -z "$checked" ]; then
	ktap_skip_all "null_blk offers neither mq-cfq nor mq-as"
	exit "$KSFT_SKIP"
fi
ktap_print_header
ktap_set_plan $plan
for s in $checked; do
	check_scheduler "$s"
done
ktap_finished
