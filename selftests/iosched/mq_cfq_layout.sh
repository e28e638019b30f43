#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# mq-cfq idles per unit on a RAID that reports its layout: a chunk
# (queue/minimum_io_size) and a full stripe (queue/optimal_io_size) of 2
# to 64 whole chunks.  Its debugfs estimator must show that chunk and
# that many units, and no layout for any other topology; then reads that
# keep every unit busy must complete with the data intact.
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
# mq-cfq, 0 for none.
expected_chunk()
{
	if [ "$1" -ge 512 ] && [ $(($1 % 512)) -eq 0 ] &&
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

check_layout()
{
	io_min=$(cat "/sys/block/$DISK/queue/minimum_io_size")
	io_opt=$(cat "/sys/block/$DISK/queue/optimal_io_size")
	chunk=$(expected_chunk "$io_min" "$io_opt")
	shown=$(estimator_field layout_chunk_bytes)
	units=$(estimator_field units)
	ktap_print_msg "minimum_io_size $io_min optimal_io_size $io_opt:" \
		"layout_chunk_bytes $shown, units $units"
	if [ "$shown" != "$chunk" ]; then
		ktap_test_fail "layout read from the topology (expected chunk $chunk)"
	elif [ "$chunk" -ne 0 ] && [ "$units" != $((io_opt / io_min)) ]; then
		ktap_test_fail "layout read from the topology (expected $((io_opt / io_min)) units)"
	else
		ktap_test_pass "layout read from the topology (chunk $chunk)"
	fi
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
ktap_set_plan 2
old=$(active_scheduler "$DISK")
if select_scheduler "$DISK" mq-cfq; then
	check_layout
	check_reads_under_layout
else
	ktap_test_fail "layout read from the topology (could not select mq-cfq)"
	ktap_test_fail "reads and verify across units complete (could not select mq-cfq)"
fi
select_scheduler "$DISK" "$old" || ktap_print_msg "could not restore $old"
rm -f "$LOG"
ktap_finished
