#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The series' tracepoints fire for the disk under test and say what
# happened: mq-cfq's slice start and expiry and idle start and end while
# two sequential readers share the disk (idle_nonrot set, so that every
# kind of disk idles); mq-as's anticipation start and end for a
# sequential reader beside a reader that pauses after each read, with
# more waits ended by the awaited read than by the window, then vetoes,
# "thinks" ones for each of two readers that pause longer than the
# window, with a think time near the pause (antic_nonrot set and one
# spindle, so that mq-as anticipates on every kind); and
# readahead_window's decisions for a buffered sequential reader: one
# "initial" window, then "grow" windows that move forward through the
# file.
#
# Environment: IOSCHED_DISK (e.g. "sda").

DIR=$(dirname "$0")
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/iosched_lib.sh"

DISK=${IOSCHED_DISK:-}
TRACEFS=/sys/kernel/tracing
TRACE=/tmp/tracepoints.$$.trace
# Per CPU, for mq-as's start and end of a wait at every sequential read.
TRACE_KB=8192
# The sequential reader's range of the disk, in 4 KiB pages: 64 MiB on.
RA_FIRST_PAGE=16384
RA_PAGES=8192
CFQ_EVENTS="mq_cfq_slice_start mq_cfq_slice_expire"
CFQ_EVENTS="$CFQ_EVENTS mq_cfq_idle_start mq_cfq_idle_end"
EXPIRY_PIDS_TEST="slices expire for both readers"
# A wait's events, from the reader beside a thinker; the veto's, from
# two thinkers (the first phase may give only "queued" vetoes).
AS_WAIT_EVENTS="mq_as_antic_start mq_as_antic_end"
AS_VETO_EVENT=mq_as_antic_veto
AS_ARRIVED_TEST="mq_as_antic_end: waits end with the read, more often than not"
AS_THINKS_TEST="mq_as_antic_veto: each thinker is vetoed for a think near its pause"
# Waits ended by the read, at least: one per reader would be the
# unmeasured processes' waits alone.
AS_MIN_ARRIVED=10
# Thinks vetoes each thinker gets, at least: about 100 reads each.
AS_MIN_THINKS=10
# A sequential reader's read gets a "queued" veto each time: too many
# to keep, and no figure of them is checked.
AS_VETO_FILTER='reason != "queued"'
# The thinkers' pause after each read, in us: over three windows.
THINK_US=20000
ANTIC_EXPIRE_MS=6

# Record the events of systems/events $1 (e.g. "mq_cfq") while "$2..."
# runs; the trace lands in $TRACE.
trace_while()
{
	events=$1
	shift
	echo 0 >"$TRACEFS/tracing_on"
	echo >"$TRACEFS/trace"
	# "7 (expanded: 1408)" until the buffer was first used
	old_kb=$(sed 's/.*expanded: \([0-9]*\).*/\1/' \
		"$TRACEFS/buffer_size_kb")
	echo $TRACE_KB >"$TRACEFS/buffer_size_kb"
	if ! echo 1 >"$TRACEFS/events/$events/enable"; then
		echo "$old_kb" >"$TRACEFS/buffer_size_kb"
		return 1
	fi
	echo 1 >"$TRACEFS/tracing_on"
	"$@"
	status=$?
	echo 0 >"$TRACEFS/tracing_on"
	echo 0 >"$TRACEFS/events/$events/enable"
	cat "$TRACEFS/trace" >"$TRACE"
	# Before the buffer shrinks: dropping pages counts as overruns.
	lost=$(trace_overruns)
	echo "$old_kb" >"$TRACEFS/buffer_size_kb"
	if [ "$lost" -gt 0 ]; then
		ktap_print_msg "the trace buffer lost $lost events"
		return 1
	fi
	return $status
}

# Events the trace buffer lost since it was last cleared: overwritten,
# or dropped when it does not overwrite.
trace_overruns()
{
	cat "$TRACEFS"/per_cpu/cpu*/stats |
		awk '$1 == "overrun:" || ($1 == "dropped" && $2 == "events:") {
			n += $NF
		}
		END { print n + 0 }'
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

# Lines of event $1 in $TRACE for this disk ("MAJ,MIN" in the events).
disk_events()
{
	grep " $1: $(tr : , <"/sys/block/$DISK/dev") " "$TRACE"
}

# check_event SYSTEM EVENT: it fired for this disk.
check_event()
{
	count=$(disk_events "$2" | wc -l)
	ktap_print_msg "$2: $count events"
	ktap_test_result "$1:$2 fires" [ "$count" -gt 0 ]
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
		check_event mq_cfq "$event"
	done
	# An expiry names the slice's queue: both readers' pids appear.
	pids=$(disk_events mq_cfq_slice_expire |
		sed -n 's/.* pid=\([0-9]*\) sync .*/\1/p' |
		sort -u | wc -l)
	ktap_test_result "$EXPIRY_PIDS_TEST ($pids pids)" [ "$pids" -ge 2 ]
}

# A sequential reader, worth waiting for, beside a random reader that
# thinks THINK_US after each read: when the thinker's read comes, mq-as
# waits for the sequential reader's next one instead.
reader_and_thinker()
{
	fio --filename="/dev/$DISK" --direct=1 --size=64M --time_based \
		--runtime=2 \
		--name=seq --offset=0 --rw=read --bs=64k \
		--name=thinker --offset=128M --rw=randread --bs=4k \
		--thinktime=$THINK_US >/dev/null 2>&1
}

# Two readers, in two parts of the disk, that think THINK_US after each
# read: when one's read comes, mq-as weighs waiting for the other.
two_thinkers()
{
	fio --filename="/dev/$DISK" --direct=1 --rw=randread --bs=4k \
		--size=64M --time_based --runtime=2 --thinktime=$THINK_US \
		--name=thinker1 --offset=0 --name=thinker2 --offset=128M \
		>/dev/null 2>&1
}

# Set mq-as's tunable $1 to $2 (mq-as is left through none at the end,
# so that nothing stays behind).
set_as_tunable()
{
	echo "$2" >"/sys/block/$DISK/queue/iosched/$1"
}

# Fail the results of mq-as's waits, for reason $1.
fail_as_wait_tests()
{
	for event in $AS_WAIT_EVENTS; do
		ktap_test_fail "mq_as:$event fires ($1)"
	done
	ktap_test_fail "$AS_ARRIVED_TEST ($1)"
}

# Fail the results of mq-as's vetoes, for reason $1.
fail_as_veto_tests()
{
	ktap_test_fail "mq_as:$AS_VETO_EVENT fires ($1)"
	ktap_test_fail "$AS_THINKS_TEST ($1)"
}

# Fail each mq-as result, for reason $1.
fail_as_tests()
{
	fail_as_wait_tests "$1"
	fail_as_veto_tests "$1"
}

# How many events $1 in $TRACE gave each reason.
event_reasons()
{
	disk_events "$1" | sed -n 's/.* reason=\([a-z]*\).*/\1/p' | sort |
		uniq -c | tr -s ' \n' ' '
}

# The "thinks" vetoes in $TRACE: a "pid=P vetoes=N least_ms=T" line
# for each process (T: the least think time weighed), then
# "near=K unmeasured=U": K processes had at least AS_MIN_THINKS of them
# and a least think time near the thinkers' pause (at least 0.9 of it,
# as each think lasts the whole pause, and under twice it), U vetoes
# weighed no measured think time (which should not veto).
as_thinks_summary()
{
	disk_events mq_as_antic_veto |
	awk -v pause_ns=$((THINK_US * 1000)) -v min_vetoes=$AS_MIN_THINKS '
		/ reason=thinks( |$)/ {
			for (i = 1; i <= NF; i++) {
				split($i, kv, "=")
				v[kv[1]] = kv[2]
			}
			if (v["think_samples"] + 0 == 0) {
				unmeasured++
				next
			}
			pid = v["pid"]
			think = v["think_ns"] + 0
			if (!(pid in least) || think < least[pid])
				least[pid] = think
			vetoes[pid]++
		}
		END {
			for (pid in least) {
				printf "pid=%s vetoes=%d least_ms=%.2f\n", pid,
					vetoes[pid], least[pid] / 1e6
				if (vetoes[pid] >= min_vetoes &&
				    least[pid] >= pause_ns * 0.9 &&
				    least[pid] < pause_ns * 2)
					near++
			}
			printf "near=%d unmeasured=%d\n", near, unmeasured
		}'
}

# How many mq_as_antic_end events in $TRACE gave reason $1.
as_ends()
{
	disk_events mq_as_antic_end | grep -c " reason=$1\$"
}

# Whether mq-as waits for a sequential reader's next read beside a
# thinker, and its events fire.
check_as_waits()
{
	if ! trace_while mq_as reader_and_thinker; then
		fail_as_wait_tests "fio or the trace failed"
		return
	fi
	for event in $AS_WAIT_EVENTS; do
		check_event mq_as "$event"
	done
	ktap_print_msg "vetoes: $(event_reasons mq_as_antic_veto)"
	ktap_print_msg "ends: $(event_reasons mq_as_antic_end)"
	arrived=$(as_ends arrived)
	if [ "$arrived" -ge $AS_MIN_ARRIVED ] &&
		[ "$arrived" -gt "$(as_ends timeout)" ]; then
		ktap_test_pass "$AS_ARRIVED_TEST"
	else
		ktap_test_fail "$AS_ARRIVED_TEST"
	fi
}

# Whether each of two thinkers is vetoed for thinking, with its pause.
check_as_thinkers()
{
	if ! trace_while mq_as two_thinkers; then
		fail_as_veto_tests "fio or the trace failed"
		return
	fi
	check_event mq_as $AS_VETO_EVENT
	ktap_print_msg "thinkers' vetoes: $(event_reasons mq_as_antic_veto)"
	summary=$(as_thinks_summary)
	ktap_print_msg "thinks vetoes: $(echo "$summary" | tr '\n' ' ')"
	near=$(echo "$summary" | sed -n 's/^near=\([0-9]*\) .*/\1/p')
	unmeasured=$(echo "$summary" | sed -n 's/.* unmeasured=\([0-9]*\)$/\1/p')
	if [ "$near" -ge 2 ] && [ "$unmeasured" -eq 0 ]; then
		ktap_test_pass "$AS_THINKS_TEST"
	else
		ktap_test_fail "$AS_THINKS_TEST"
	fi
}

check_as_events()
{
	veto_filter=$TRACEFS/events/mq_as/mq_as_antic_veto/filter
	if [ ! -d "$TRACEFS/events/mq_as" ]; then
		fail_as_tests "no mq_as events"
		return
	fi
	if ! set_as_tunable antic_nonrot 1 || ! set_as_tunable spindles 1 ||
		! set_as_tunable antic_expire $ANTIC_EXPIRE_MS ||
		! echo "$AS_VETO_FILTER" >"$veto_filter"; then
		fail_as_tests "cannot set mq-as's tunables or the veto filter"
		return
	fi
	check_as_waits
	check_as_thinkers
	echo 0 >"$veto_filter"
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
if [ ! -d "$TRACEFS/events/mq_cfq" ] ||
	[ ! -d "$TRACEFS/events/readahead" ]; then
	ktap_skip_all "no trace events (CONFIG_FTRACE, CONFIG_ENABLE_DEFAULT_TRACERS)"
	exit "$KSFT_SKIP"
fi

ktap_print_header
ktap_set_plan 12
old=$(active_scheduler "$DISK")
if select_scheduler "$DISK" mq-cfq; then
	check_cfq_events
else
	for event in $CFQ_EVENTS; do
		ktap_test_fail "mq_cfq:$event fires (could not select mq-cfq)"
	done
	ktap_test_fail "$EXPIRY_PIDS_TEST (could not select mq-cfq)"
fi
# mq-as's events appear with it, if it is a module.
if select_scheduler "$DISK" mq-as; then
	check_as_events
else
	fail_as_tests "could not select mq-as"
fi
# Through none: the old scheduler starts again with its defaults.
select_scheduler "$DISK" none &&
	select_scheduler "$DISK" "$old" || ktap_print_msg "could not restore $old"
check_readahead_events
rm -f "$TRACE"
ktap_finished
