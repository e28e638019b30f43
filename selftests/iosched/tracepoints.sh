#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The series' tracepoints fire for the disk under test and say what
# happened: mq-cfq's slice start and expiry and idle start and end while
# two sequential readers share the disk (idle_nonrot set, so that every
# kind of disk idles), and readahead_window's decisions for a buffered
# sequential reader: one "initial" window, then "grow" windows that
# move forward through the file.
#
# Environment: IOSCHED_DISK (e.g. "sda").

DIR=$(dirname "$0")
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/iosched_lib.sh"

DISK=${IOSCHED_DISK:-}
TRACEFS=/sys/kernel/tracing
TRACE=/tmp/tracepoints.$$.trace
# The sequential reader's range of the disk, in 4 KiB pages: 64 MiB on.
RA_FIRST_PAGE=16384
RA_PAGES=8192
CFQ_EVENTS="mq_cfq_slice_start mq_cfq_slice_expire mq_cfq_idle_start mq_cfq_idle_end"
EXPIRY_PIDS_TEST="slices expire for both readers"

# Record the events of systems/events $1 (e.g. "mq_cfq") while "$2..."
# runs; the trace lands in $TRACE.
trace_while()
{
	events=$1
	shift
	echo 0 >"$TRACEFS/tracing_on"
	echo >"$TRACEFS/trace"
	echo 1 >"$TRACEFS/events/$events/enable" || return 1
	echo 1 >"$TRACEFS/tracing_on"
	"$@"
	status=$?
	echo 0 >"$TRACEFS/tracing_on"
	echo 0 >"$TRACEFS/events/$events/enable"
	cat "$TRACEFS/trace" >"$TRACE"
	return $status
}

# Two processes reading the disk sequentially with direct 64 KiB reads,
# one at a time: each one's queue gets slices and idles between reads.
# On flash a request under seek_min_size (32 KiB) counts as a seek, and
# two seeky readers would take turns without idling.
two_sequential_readers()
{
	fio --name=seq --filename="/dev/$DISK" --direct=1 --rw=read --bs=64k \
		--size=64M --numjobs=2 --offset_increment=64M \
		--time_based --runtime=3 >/dev/null 2>&1
}

# Lines of event $1 in $TRACE for this disk ("MAJ,MIN" in mq_cfq events).
cfq_events()
{
	grep " $1: $(tr : , <"/sys/block/$DISK/dev") " "$TRACE"
}

check_cfq_event()
{
	count=$(cfq_events "$1" | wc -l)
	ktap_print_msg "$1: $count events"
	ktap_test_result "mq_cfq:$1 fires" [ "$count" -gt 0 ]
}

check_cfq_events()
{
	idle_nonrot=/sys/block/$DISK/queue/iosched/idle_nonrot
	old_idle=$(cat "$idle_nonrot")
	echo 1 >"$idle_nonrot"
	trace_while mq_cfq two_sequential_readers ||
		ktap_print_msg "fio or the trace failed"
	echo "$old_idle" >"$idle_nonrot"
	for event in $CFQ_EVENTS; do
		check_cfq_event "$event"
	done
	# An expiry names the slice's queue: both readers' pids appear.
	pids=$(cfq_events mq_cfq_slice_expire | sed -n 's/.* pid=\([0-9]*\) sync .*/\1/p' |
		sort -u | wc -l)
	ktap_test_result "$EXPIRY_PIDS_TEST ($pids pids)" [ "$pids" -ge 2 ]
}

sequential_buffered_read()
{
	sync
	echo 3 >/proc/sys/vm/drop_caches
	dd if="/dev/$DISK" of=/dev/null bs=16k skip=$((RA_FIRST_PAGE / 4)) \
		count=$((RA_PAGES / 4)) 2>/dev/null
}

# "DECISION START" of each window that starts in the reader's range, in
# the order of the trace.
ra_windows()
{
	awk -v first=$RA_FIRST_PAGE -v last=$((RA_FIRST_PAGE + RA_PAGES)) '
		/ readahead_window: / {
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^req=/)
					decision = $(i + 1)
				if ($i ~ /^start=/)
					start = substr($i, 7) + 0
			}
			if (start >= first && start < last)
				print decision, start
		}' "$TRACE"
}

# At least two "grow" windows on stdin (ra_windows), each starting past
# the one before.
ra_grows_forward()
{
	awk '$1 == "grow" {
			if (n++ && $2 <= last)
				bad = 1
			last = $2
		}
		END { exit bad || n < 2 }'
}

check_readahead_events()
{
	trace_while readahead/readahead_window sequential_buffered_read ||
		ktap_print_msg "dd or the trace failed"
	windows=$(ra_windows)
	ktap_print_msg "windows in the reader's range:" \
		"$(echo "$windows" | cut -d' ' -f1 | uniq -c | tr -s ' \n' ' ')"
	ktap_test_result "readahead_window: the stream starts with an initial window" \
		[ "$(echo "$windows" | head -n 1 | cut -d' ' -f1)" = initial ]
	if echo "$windows" | ra_grows_forward; then
		ktap_test_pass "readahead_window: the stream's windows grow forward"
	else
		ktap_test_fail "readahead_window: the stream's windows grow forward"
	fi
}

skip_unless_mq_cfq_disk "$DISK"
[ -d "$TRACEFS/events" ] || mount -t tracefs nodev "$TRACEFS" 2>/dev/null
if [ ! -d "$TRACEFS/events/mq_cfq" ] || [ ! -d "$TRACEFS/events/readahead" ]; then
	ktap_skip_all "no trace events (CONFIG_FTRACE, CONFIG_ENABLE_DEFAULT_TRACERS)"
	exit "$KSFT_SKIP"
fi

ktap_print_header
ktap_set_plan 7
old=$(active_scheduler "$DISK")
if select_scheduler "$DISK" mq-cfq; then
	check_cfq_events
else
	for event in $CFQ_EVENTS; do
		ktap_test_fail "mq_cfq:$event fires (could not select mq-cfq)"
	done
	ktap_test_fail "$EXPIRY_PIDS_TEST (could not select mq-cfq)"
fi
select_scheduler "$DISK" "$old" || ktap_print_msg "could not restore $old"
check_readahead_events
rm -f "$TRACE"
ktap_finished
