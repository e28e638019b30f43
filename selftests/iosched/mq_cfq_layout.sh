#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# mq-cfq idles per unit on a RAID that reports its layout: a chunk
# (queue/minimum_io_size) and a full stripe (queue/optimal_io_size) of 2
# to 64 whole chunks, on a rotational device.  Its debugfs estimator must
# show that chunk and that many units, and no layout for any other
# topology or for flash; a change of the queue's limits (queue/rotational
# written) must be seen at the next dispatch; then reads that keep every
# unit busy must complete with the data intact.
#
# Environment: IOSCHED_DISK (e.g. "sda"), IOSCHED_VERIFY_SECONDS (the
# fio run, default 20).

DIR=$(dirname "$0")
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/iosched_lib.sh"

DISK=${IOSCHED_DISK:-}
SECONDS_PER_RUN=${IOSCHED_VERIFY_SECONDS:-20}
DEBUGFS=/sys/kernel/debug
LOG=/tmp/mq_cfq_layout.$$.log

# The chunk in bytes that a topology of io_min $1 and io_opt $2 gives
# mq-cfq on a device whose queue/rotational is $3, 0 for none.
expected_chunk()
{
	if [ "$3" = 1 ] && [ "$1" -ge 512 ] && [ $(($1 % 512)) -eq 0 ] &&
	   [ $(($2 % $1)) -eq 0 ] && [ $(($2 / $1)) -ge 2 ] &&
	   [ $(($2 / $1)) -le 64 ]; then
		echo "$1"
	else
		echo 0
	fi
}

estimator_field()
{
	sed -n "s/^$1 //p" "$DEBUGFS/block/$DISK/sched/estimator"
}

# Check the layout the estimator shows against the queue's limits; $1
# names the test.
check_layout()
{
	io_min=$(cat "/sys/block/$DISK/queue/minimum_io_size")
	io_opt=$(cat "/sys/block/$DISK/queue/optimal_io_size")
	rotational=$(cat "/sys/block/$DISK/queue/rotational")
	chunk=$(expected_chunk "$io_min" "$io_opt" "$rotational")
	shown=$(estimator_field layout_chunk_bytes)
	units=$(estimator_field units)
	ktap_print_msg "minimum_io_size $io_min optimal_io_size $io_opt" \
		"rotational $rotational: layout_chunk_bytes $shown, units $units"
	if [ "$shown" != "$chunk" ]; then
		ktap_test_fail "$1 (expected chunk $chunk)"
	elif [ "$chunk" -ne 0 ] && [ "$units" != $((io_opt / io_min)) ]; then
		ktap_test_fail "$1 (expected $((io_opt / io_min)) units)"
	else
		ktap_test_pass "$1 (chunk $chunk)"
	fi
}

# Some reads, so that mq-cfq dispatches and sees the current limits.
dispatch_some()
{
	dd if="/dev/$DISK" of=/dev/null bs=4k count=16 iflag=direct \
		2>/dev/null
}

# Flip queue/rotational (a change of the queue's limits), check that the
# layout follows at the next dispatch, and flip it back.
check_limits_change()
{
	knob=/sys/block/$DISK/queue/rotational
	was=$(cat "$knob")
	if ! echo $((1 - was)) >"$knob" 2>/dev/null; then
		ktap_test_skip "layout follows a change of queue/rotational (not writable)"
		return
	fi
	dispatch_some
	check_layout "layout follows a change of queue/rotational to $((1 - was))"
	echo "$was" >"$knob"
	dispatch_some
}

# Eight direct readers of the disk, 4 KiB sequential runs within chunks
# at random places, and fio verify beside them: requests of many queues
# on every unit at once.
check_reads_under_layout()
{
	fio --name=runs --filename="/dev/$DISK" --direct=1 --rw=randread:15 \
		--bs=4k --size=256M --numjobs=8 --time_based \
		--runtime="$SECONDS_PER_RUN" >/dev/null 2>&1 &
	readers=$!
	fio_verify "$DISK" "$SECONDS_PER_RUN" "$LOG"
	status=$?
	wait "$readers" || status=1
	report_fio "$status" "$LOG" "reads and verify across units complete"
}

skip_unless_mq_cfq_disk "$DISK"
[ -d "$DEBUGFS/block" ] || mount -t debugfs none "$DEBUGFS" 2>/dev/null
if [ ! -d "$DEBUGFS/block/$DISK" ]; then
	ktap_skip_all "no blk-mq debugfs (CONFIG_BLK_DEBUG_FS)"
	exit "$KSFT_SKIP"
fi

ktap_print_header
ktap_set_plan 3
old=$(active_scheduler "$DISK")
if select_scheduler "$DISK" mq-cfq; then
	check_layout "layout read from the topology"
	check_limits_change
	check_reads_under_layout
else
	ktap_test_fail "layout read from the topology (could not select mq-cfq)"
	ktap_test_fail "layout follows a change of queue/rotational (could not select mq-cfq)"
	ktap_test_fail "reads and verify across units complete (could not select mq-cfq)"
fi
select_scheduler "$DISK" "$old" || ktap_print_msg "could not restore $old"
rm -f "$LOG"
ktap_finished
