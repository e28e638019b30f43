#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Data integrity under every I/O scheduler: fio writes checksummed blocks
# (verify=crc32c) in a mixed random read/write load and reads them back,
# once under each scheduler the disk lists, then once more while the
# scheduler is switched round-robin under the running load.
#
# Environment: IOSCHED_DISK (e.g. "sda"), IOSCHED_VERIFY_SECONDS (default 20).

DIR=$(dirname "$0")
. "$DIR/../kselftest/ktap_helpers.sh"

DISK=${IOSCHED_DISK:-}
SECONDS_PER_RUN=${IOSCHED_VERIFY_SECONDS:-20}
ATTR=/sys/block/$DISK/queue/scheduler
LOG=/tmp/data_integrity.$$.log

schedulers()
{
	tr -d '[]' <"$ATTR"
}

active_scheduler()
{
	sed -n 's/.*\[\(.*\)\].*/\1/p' "$ATTR"
}

# Two jobs on disjoint halves of the first 512 MiB, 4..64 KiB blocks,
# verified continuously (verify_backlog) and stopping at the first error.
run_fio_verify()
{
	fio --name=integrity --filename="/dev/$DISK" --ioengine=libaio \
		--direct=1 --iodepth=16 --rw=randrw --bsrange=4k-64k \
		--numjobs=2 --size=256M --offset_increment=256M \
		--verify=crc32c --verify_backlog=512 --verify_fatal=1 \
		--time_based --runtime="$SECONDS_PER_RUN" \
		--group_reporting >"$LOG" 2>&1
}

# Report fio's verdict as one KTAP result; on failure show its output.
report_fio()
{
	status=$1
	name=$2
	if [ "$status" -eq 0 ] && ! grep -Eq "verify failed|bad magic|bad header" "$LOG"; then
		ktap_test_pass "$name"
	else
		sed 's/^/# /' "$LOG" | tail -n 20
		ktap_test_fail "$name"
	fi
}

# Switch through every scheduler every half second while fio runs.
switch_storm()
{
	fio_pid=$1
	failed=0
	while kill -0 "$fio_pid" 2>/dev/null; do
		for s in $(schedulers); do
			if ! echo "$s" >"$ATTR"; then
				ktap_print_msg "switching to $s failed"
				failed=1
			fi
			sleep 0.5
		done
	done
	return $failed
}

if [ -z "$DISK" ] || [ ! -w "$ATTR" ]; then
	ktap_skip_all "IOSCHED_DISK does not name a disk with a scheduler"
	exit "$KSFT_SKIP"
fi

ktap_print_header
ktap_set_plan $(($(schedulers | wc -w) + 1))
initial=$(active_scheduler)

for s in $(schedulers); do
	echo "$s" >"$ATTR"
	if [ "$(active_scheduler)" != "$s" ]; then
		ktap_test_fail "fio verify under $s (could not select it)"
		continue
	fi
	run_fio_verify
	report_fio $? "fio verify under $s"
done

run_fio_verify &
fio_pid=$!
switch_storm $fio_pid
storm=$?
wait $fio_pid
status=$?
[ $storm -eq 0 ] || status=1
report_fio $status "fio verify while switching schedulers"

echo "$initial" >"$ATTR"
rm -f "$LOG"
ktap_finished
