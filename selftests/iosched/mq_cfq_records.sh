#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# mq-cfq keeps a record of each request it sends to the device, one per
# scheduler tag (debugfs sched/records).  Where the hardware queues share
# their tags (null_blk shared_tag_bitmap, as SAS HBAs and RAID
# controllers do), a tag is unique across the device: one set of records
# serves every hardware queue.  Where each has its own, each gets a set,
# and writing a larger nr_requests gives the new tags records too.  After
# random reads at full depth, no request went untracked and none is left
# counted in flight.

DIR=$(dirname "$0")
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/iosched_lib.sh"

SHARED=iosched_rec_shared
OWN=iosched_rec_own

# Field $2 of sched/records of disk $1.
records_field()
{
	sed -n "s/^$2 //p" "/sys/kernel/debug/block/$1/sched/records"
}

# The scheduler tags of hardware queue 0 of disk $1.
sched_tags()
{
	sed -n 's/^nr_tags=//p' "/sys/kernel/debug/block/$1/hctx0/sched_tags"
}

hw_queues()
{
	ls -d "/sys/kernel/debug/block/$1"/hctx* | wc -l
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

# check_drained DISK LABEL: random reads at full depth on DISK, then
# nothing untracked and nothing left in flight.
check_drained()
{
	fio --name=records --filename="/dev/$1" --direct=1 \
		--ioengine=libaio --iodepth="$(cat "/sys/block/$1/queue/nr_requests")" \
		--rw=randread --bs=4k --numjobs=2 --time_based --runtime=2 \
		>/dev/null 2>&1
	fio_rc=$?
	untracked=$(records_field "$1" untracked)
	in_flight=$(sed -n 's/^in_flight //p' \
		"/sys/kernel/debug/block/$1/sched/estimator")
	ktap_print_msg "$1: fio exit $fio_rc, untracked ${untracked:-none}," \
		"in_flight ${in_flight:-none}"
	if [ $fio_rc -eq 0 ] && [ "$untracked" = 0 ] && [ "$in_flight" = 0 ]; then
		ktap_test_pass "$2"
	else
		ktap_test_fail "$2"
	fi
}

cleanup()
{
	nullb_remove $SHARED
	nullb_remove $OWN
}

if [ ! -d "$NULLB_CONFIGFS" ]; then
	ktap_skip_all "no $NULLB_CONFIGFS (CONFIG_BLK_DEV_NULL_BLK, CONFIG_CONFIGFS_FS)"
	exit "$KSFT_SKIP"
fi
cleanup
if ! nullb_create $SHARED submit_queues=2 shared_tag_bitmap=1 \
		hw_queue_depth=32 ||
   ! nullb_create $OWN submit_queues=2 hw_queue_depth=32; then
	cleanup
	ktap_exit_fail_msg "cannot make the null_blk devices (see config)"
fi
if ! select_scheduler $SHARED mq-cfq || ! select_scheduler $OWN mq-cfq; then
	cleanup
	ktap_skip_all "null_blk does not offer mq-cfq"
	exit "$KSFT_SKIP"
fi
if [ "$(hw_queues $SHARED)" -lt 2 ]; then
	cleanup
	ktap_skip_all "one hardware queue only (one CPU): nothing to share"
	exit "$KSFT_SKIP"
fi

ktap_print_header
ktap_set_plan 5
check_records $SHARED 1 "$(sched_tags $SHARED)" \
	"shared tags: one record per tag for the whole device"
check_drained $SHARED "shared tags: every request tracked, none left in flight"

nr_hctx=$(hw_queues $OWN)
check_records $OWN "$nr_hctx" $((nr_hctx * $(sched_tags $OWN))) \
	"own tags: one record per tag of each of $nr_hctx hardware queues"
grown=$(($(cat /sys/block/$OWN/queue/nr_requests) * 4))
echo $grown >/sys/block/$OWN/queue/nr_requests
check_records $OWN "$nr_hctx" $((nr_hctx * grown)) \
	"nr_requests grown to $grown: records for the new tags"
check_drained $OWN "grown tags: every request tracked, none left in flight"
cleanup
ktap_finished
