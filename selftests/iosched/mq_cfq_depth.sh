#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# mq-cfq limits the scheduler tags that requests it serves last may hold:
# an IDLE-class process at most an eighth (it waits for the other classes
# to leave the disk alone, and must not sit on the tags they need), async
# writeback at most three quarters.  On a slow null_blk disk (2 ms per
# request, 32 at a time, 64 scheduler tags) an IDLE reader with 64 reads
# in flight, then a buffered writer, run while the test samples the
# scheduler tags in use (debugfs hctx0/sched_tags, "busy=").

DIR=$(dirname "$0")
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/iosched_lib.sh"

NULLB=iosched_depth
SAMPLE_SECONDS=3
BUSY=/tmp/mq_cfq_depth.$$.busy

# The scheduler tags in use, every 50 ms for SAMPLE_SECONDS; the largest
# count is written to $BUSY.
sample_busy()
{
	tags=/sys/kernel/debug/block/$NULLB/hctx0/sched_tags
	max=0
	n=0
	while [ $n -lt $((SAMPLE_SECONDS * 20)) ]; do
		busy=$(sed -n 's/^busy=//p' "$tags" | head -n 1)
		[ "${busy:-0}" -gt "$max" ] && max=$busy
		n=$((n + 1))
		sleep 0.05
	done
	echo "$max" >"$BUSY"
}

idle_reader()
{
	fio --name=idle --filename="/dev/$NULLB" --direct=1 --ioengine=libaio \
		--iodepth=64 --rw=randread --bs=4k --prioclass=3 --time_based \
		--runtime=$((SAMPLE_SECONDS + 1)) >/dev/null 2>&1
}

buffered_writer()
{
	fio --name=writeback --filename="/dev/$NULLB" --rw=write --bs=1M \
		--size=448M --time_based --runtime=$((SAMPLE_SECONDS + 1)) \
		--end_fsync=1 >/dev/null 2>&1
}

# The most tags in use while "$1" runs; empty if it failed.
max_busy_during()
{
	rm -f "$BUSY"
	"$1" &
	load=$!
	sleep 0.5
	sample_busy
	wait $load || return 1
	cat "$BUSY"
}

# check LABEL MAX_ALLOWED LOAD
check()
{
	busy=$(max_busy_during "$3")
	ktap_print_msg "$1: at most ${busy:-no figure} scheduler tags in use"
	# None in use at all: the load did not run, nothing was measured.
	if [ -n "$busy" ] && [ "$busy" -gt 0 ] && [ "$busy" -le "$2" ]; then
		ktap_test_pass "$1 holds at most $2 of $nr scheduler tags"
	else
		ktap_test_fail "$1 holds at most $2 of $nr scheduler tags"
	fi
}

if [ ! -d "$NULLB_CONFIGFS" ]; then
	ktap_skip_all "no $NULLB_CONFIGFS (CONFIG_BLK_DEV_NULL_BLK, CONFIG_CONFIGFS_FS)"
	exit "$KSFT_SKIP"
fi
nullb_remove $NULLB
if ! nullb_create $NULLB hw_queue_depth=32 irqmode=2 completion_nsec=2000000; then
	nullb_remove $NULLB
	ktap_exit_fail_msg "cannot make a null_blk device (see config)"
fi
if ! select_scheduler $NULLB mq-cfq; then
	nullb_remove $NULLB
	ktap_skip_all "$NULLB does not offer mq-cfq"
	exit "$KSFT_SKIP"
fi

ktap_print_header
ktap_set_plan 2
nr=$(cat "/sys/block/$NULLB/queue/nr_requests")
check "an IDLE reader" $((nr / 8)) idle_reader
check "buffered writeback" $((nr * 3 / 4)) buffered_writer
nullb_remove $NULLB
rm -f "$BUSY"
ktap_finished
