#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# mq-cfq keeps a record of each request it sends to the device, one per
# scheduler tag (debugfs sched/records).  Where the hardware queues share
# their tags (null_blk shared_tag_bitmap, as SAS HBAs and RAID
# controllers do), a tag is unique across the device: one set of records
# serves every hardware queue.  Where each has its own, each gets a set,
# and writing a larger nr_requests gives the new tags records too.  Random
# reads at full depth then use tags beyond the old ones (debugfs
# hctx*/sched_tags "busy=") and leave nothing counted in flight.

DIR=$(dirname "$0")
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/iosched_lib.sh"

SHARED=iosched_rec_shared
OWN=iosched_rec_own
DEBUGFS=/sys/kernel/debug/block
BUSY=/tmp/mq_cfq_records.$$.busy

# Field $2 of sched/records of disk $1.
records_field()
{
	sed -n "s/^$2 //p" "$DEBUGFS/$1/sched/records"
}

# The scheduler tags of hardware queue 0 of disk $1.
sched_tags()
{
	sed -n 's/^nr_tags=//p' "$DEBUGFS/$1/hctx0/sched_tags"
}

hw_queues()
{
	ls -d "$DEBUGFS/$1"/hctx* | wc -l
}

# check_records DISK SPACES RECORDS LABEL
check_records()
{
	spaces=$(records_field "$1" tag_spaces)
	records=$(records_field "$1" records)
	bytes=$(records_field "$1" bytes)
	ktap_print_msg "$1: tag_spaces ${spaces:-none} records ${records:-none}" \
		"bytes ${bytes:-none}"
	if [ "$spaces" = "$2" ] && [ "$records" = "$3" ]; then
		ktap_test_pass "$4"
	else
		ktap_test_fail "$4"
	fi
}

# The most scheduler tags one hardware queue of disk $1 had in use while
# process $2 ran, sampled every 20 ms, written to $BUSY.  Sampling for as
# long as fio runs, not for a fixed time: on a slow guest (the debug
# kernel) fio takes seconds to start.
sample_busy()
{
	max=0
	while kill -0 "$2" 2>/dev/null; do
		for busy in $(sed -n 's/^busy=//p' "$DEBUGFS/$1"/hctx*/sched_tags); do
			[ "$busy" -gt "$max" ] && max=$busy
		done
		sleep 0.02
	done
	echo "$max" >"$BUSY"
}

# check_full_depth DISK MIN_BUSY LABEL: random reads at the depth of
# nr_requests on DISK; a hardware queue must have had more than MIN_BUSY
# scheduler tags in use, and nothing may be left in flight.
check_full_depth()
{
	rm -f "$BUSY"
	fio --name=records --filename="/dev/$1" --direct=1 \
		--ioengine=libaio --iodepth="$(cat "/sys/block/$1/queue/nr_requests")" \
		--rw=randread --bs=4k --numjobs=2 --time_based --runtime=3 \
		--output=/tmp/mq_cfq_records.$$.fio &
	fio_pid=$!
	sample_busy "$1" $fio_pid
	wait $fio_pid
	fio_rc=$?
	busy=$(cat "$BUSY")
	# A reader sees its last read done just before blk-mq frees it.
	sleep 0.2
	in_flight=$(sed -n 's/^in_flight //p' "$DEBUGFS/$1/sched/estimator")
	ktap_print_msg "$1: fio exit $fio_rc, at most ${busy:-no figure} tags" \
		"of a hardware queue in use, in_flight ${in_flight:-none} after"
	[ $fio_rc -eq 0 ] || cat /tmp/mq_cfq_records.$$.fio
	if [ $fio_rc -eq 0 ] && [ "${busy:-0}" -gt "$2" ] &&
	   [ "$in_flight" = 0 ]; then
		ktap_test_pass "$3"
	else
		ktap_test_fail "$3"
	fi
}

cleanup()
{
	nullb_remove $SHARED
	nullb_remove $OWN
	rm -f "$BUSY" /tmp/mq_cfq_records.$$.fio
}

skip_unless_nullb_debugfs_fio "$DEBUGFS"
cleanup
trap cleanup EXIT
trap 'exit 1' INT TERM
# Requests take 50 ms, so that reads at full depth wait in the scheduler
# even where submitting one takes a millisecond (the debug kernel).
if ! nullb_create $SHARED submit_queues=2 shared_tag_bitmap=1 \
		hw_queue_depth=32 irqmode=2 completion_nsec=50000000 ||
   ! nullb_create $OWN submit_queues=2 hw_queue_depth=32 irqmode=2 \
		completion_nsec=50000000; then
	ktap_exit_fail_msg "cannot make the null_blk devices (see config)"
fi
if ! grep -qw mq-cfq /sys/block/$SHARED/queue/scheduler; then
	ktap_skip_all "null_blk does not offer mq-cfq"
	exit "$KSFT_SKIP"
fi
if ! select_scheduler $SHARED mq-cfq || ! select_scheduler $OWN mq-cfq; then
	ktap_exit_fail_msg "mq-cfq is offered but could not be selected"
fi
if [ "$(hw_queues $SHARED)" -lt 2 ]; then
	ktap_skip_all "one hardware queue only (one CPU): nothing to share"
	exit "$KSFT_SKIP"
fi

ktap_print_header
ktap_set_plan 5
check_records $SHARED 1 "$(sched_tags $SHARED)" \
	"shared tags: one record per tag for the whole device"
check_full_depth $SHARED 32 \
	"shared tags: more than the driver's 32 in use, none left in flight"

nr_hctx=$(hw_queues $OWN)
check_records $OWN "$nr_hctx" $((nr_hctx * $(sched_tags $OWN))) \
	"own tags: one record per tag of each of $nr_hctx hardware queues"
old=$(cat /sys/block/$OWN/queue/nr_requests)
grown=$((old * 4))
echo $grown >/sys/block/$OWN/queue/nr_requests ||
	ktap_print_msg "$OWN: writing nr_requests $grown failed"
check_records $OWN "$nr_hctx" $((nr_hctx * grown)) \
	"nr_requests grown from $old to $grown: records for the new tags"
check_full_depth $OWN "$old" \
	"grown tags: more than $old in use, none left in flight"
ktap_finished
