#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Helpers shared by the iosched shell selftests; source it after
# ../kselftest/ktap_helpers.sh.

# The schedulers block device $1 lists, and the active one.
schedulers()
{
	tr -d '[]' <"/sys/block/$1/queue/scheduler"
}

active_scheduler()
{
	sed -n 's/.*\[\(.*\)\].*/\1/p' "/sys/block/$1/queue/scheduler"
}

# Skip the whole test (exit) unless $1 names a disk that offers mq-cfq.
skip_unless_mq_cfq_disk()
{
	if [ -z "$1" ] || ! schedulers "$1" 2>/dev/null | grep -qw mq-cfq; then
		ktap_skip_all "IOSCHED_DISK does not name a disk that offers mq-cfq"
		exit "$KSFT_SKIP"
	fi
}

# Make $2 the scheduler of $1; fails if it did not become active.
select_scheduler()
{
	echo "$2" >"/sys/block/$1/queue/scheduler" 2>/dev/null &&
		[ "$(active_scheduler "$1")" = "$2" ]
}

# fio_verify DEV SECONDS LOG
# Two jobs on disjoint halves of the first 256 MiB of /dev/DEV, mixed
# random reads and writes of 4..64 KiB, every block checksummed
# (crc32c) and verified as it goes, stopping at the first mismatch.
fio_verify()
{
	dev=$1
	secs=$2
	log=$3
	fio --name=verify --filename="/dev/$dev" --ioengine=libaio \
		--direct=1 --iodepth=16 --rw=randrw --bsrange=4k-64k \
		--numjobs=2 --size=128M --offset_increment=128M \
		--verify=crc32c --verify_backlog=512 --verify_fatal=1 \
		--time_based --runtime="$secs" --group_reporting >"$log" 2>&1
}

# report_fio STATUS LOG NAME: one KTAP result from fio's exit status and
# log; a failure shows the log's tail.
report_fio()
{
	if [ "$1" -eq 0 ] && ! grep -Eq "verify failed|bad magic|bad header" "$2"; then
		ktap_test_pass "$3"
	else
		sed 's/^/# /' "$2" | tail -n 20
		ktap_test_fail "$3"
	fi
}

# nr_requests values to cycle through: 4, half and all of what the
# scheduler started with. Values above it are not valid under "none",
# nor below BLKDEV_MIN_RQ (4): the block layer raises such a write to 4,
# which a queue shallower than that then refuses.
nr_requests_values()
{
	for v in 4 $(($1 / 2)) "$1"; do
		[ "$v" -ge 4 ] && [ "$v" -le "$1" ] && echo "$v"
	done | uniq
}

# Rewrite the limits of $1 every 200 ms until process $2 ends; fails on
# any refused write. Leaves the original values.
churn_limits()
{
	q=/sys/block/$1/queue
	nr_orig=$(cat "$q/nr_requests")
	ra_orig=$(cat "$q/read_ahead_kb")
	nr_list=$(nr_requests_values "$nr_orig" | tr '\n' ' ')
	nr_count=$(echo "$nr_list" | wc -w)
	failed=0
	step=0
	while kill -0 "$2" 2>/dev/null; do
		for ra in 0 4 128 2048 "$ra_orig"; do
			if [ "$nr_count" -gt 0 ]; then
				nr=$(echo "$nr_list" | cut -d' ' -f$((step % nr_count + 1)))
				echo "$nr" >"$q/nr_requests" || failed=1
			fi
			echo "$ra" >"$q/read_ahead_kb" || failed=1
			step=$((step + 1))
			sleep 0.2
		done
	done
	[ "$nr_count" -eq 0 ] || echo "$nr_orig" >"$q/nr_requests" || failed=1
	echo "$ra_orig" >"$q/read_ahead_kb" || failed=1
	[ $failed -eq 0 ] || ktap_print_msg "$1: a limit write was refused"
	return $failed
}

# Buffered sequential reads of the last 128 MiB of the first 512 MiB
# (beyond fio's area) over and over, through readahead.
stream_reader()
{
	end=$(($(date +%s) + $2))
	while [ "$(date +%s)" -lt "$end" ]; do
		dd if="/dev/$1" of=/dev/null bs=16k skip=24576 count=8192 \
			2>/dev/null || return 1
	done
}

NULLB_CONFIGFS=/sys/kernel/config/nullb

# nullb_create NAME [ATTR=VALUE...]: a memory-backed null_blk device of
# 512 MiB configured through configfs; null_blk names the disk NAME.
nullb_create()
{
	dir=$NULLB_CONFIGFS/$1
	mkdir "$dir" || return 1
	echo 1 >"$dir/memory_backed"
	echo 512 >"$dir/size"
	for setting in "$@"; do
		[ "$setting" = "$1" ] && continue
		echo "${setting#*=}" >"$dir/${setting%%=*}" || return 1
	done
	echo 1 >"$dir/power" || return 1
	[ -e "/sys/block/$1" ]
}

# Skip the whole test (exit) unless null_blk's configfs, the block
# layer's debugfs at $1 and fio are there.
skip_unless_nullb_debugfs_fio()
{
	if [ ! -d "$NULLB_CONFIGFS" ]; then
		ktap_skip_all "no $NULLB_CONFIGFS (CONFIG_BLK_DEV_NULL_BLK, CONFIG_CONFIGFS_FS)"
		exit "$KSFT_SKIP"
	fi
	if [ ! -d "$1" ]; then
		ktap_skip_all "no $1 (CONFIG_BLK_DEBUG_FS, debugfs mounted)"
		exit "$KSFT_SKIP"
	fi
	if ! command -v fio >/dev/null; then
		ktap_skip_all "no fio"
		exit "$KSFT_SKIP"
	fi
}

nullb_remove()
{
	dir=$NULLB_CONFIGFS/$1
	[ -d "$dir" ] || return 0
	echo 0 >"$dir/power"
	rmdir "$dir"
}

# verify_under_churn DEV SECONDS LOG SCHEDULER: fio_verify on DEV while
# a buffered reader streams through it and its queue limits are
# rewritten (churn_limits). Two KTAP results: the data verified; the
# limit writes and the reader succeeded.
verify_under_churn()
{
	fio_verify "$1" "$2" "$3" &
	fio_pid=$!
	stream_reader "$1" "$2" &
	reader_pid=$!
	churn_limits "$1" $fio_pid
	churn=$?
	wait $fio_pid
	report_fio $? "$3" "$1: fio verify under $4"
	wait $reader_pid
	reader=$?
	[ $reader -eq 0 ] || ktap_print_msg "$1: buffered reader failed"
	if [ $churn -eq 0 ] && [ $reader -eq 0 ]; then
		ktap_test_pass "$1: nr_requests and read_ahead_kb rewritten under load with $4"
	else
		ktap_test_fail "$1: nr_requests and read_ahead_kb rewritten under load with $4"
	fi
}
