#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Requeues, timeouts and a depth-1 queue under every I/O scheduler, on
# memory-backed null_blk devices made through configfs:
#  - depth 1: fio verify while nr_requests and read_ahead_kb are
#    rewritten (verify_under_churn);
#  - requeues: null_blk sends 10% of the requests back (requeue_inject);
#    every request must still complete once, with the right data;
#  - timeouts: null_blk drops a few reads (timeout_inject) so that the
#    block layer's timeout handler ends them: fio must see exactly one
#    error per injected timeout, and the data must read back intact.
#
# Environment: IOSCHED_VERIFY_SECONDS (each fio run, default 20).

DIR=$(dirname "$0")
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/iosched_lib.sh"

SECONDS_PER_RUN=${IOSCHED_VERIFY_SECONDS:-20}
LOG=/tmp/nullb_faults.$$.log
TIMEOUTS=4
REQUEUE_BUDGET=1000000

# fio job whose blocks the timeout test writes and then reads back with
# verify_only; the same options both times so the checksums match. 16 MiB
# is 4096 I/Os, far more than the few it takes to inject the timeouts.
timeout_job()
{
	dev=$1
	shift
	fio --name=timeouts --filename="/dev/$dev" --ioengine=libaio \
		--direct=1 --iodepth=16 --rw=randwrite --bs=4k --size=16M \
		--randseed=4242 --verify=crc32c "$@" >"$LOG" 2>&1
}

# Errors fio reported for the timed-out reads: one line per failed I/O,
# with ETIMEDOUT, the status the block layer gives a timed-out request.
fio_timeout_errors()
{
	grep -c 'io_u error on file.*Connection timed out' "$LOG"
}

# Injections left of fault attribute $1 (configfs directory).
injections_left()
{
	cat "$1/times"
}

requeues_under()
{
	dev=$1
	cfg=$NULLB_CONFIGFS/$dev
	echo 0 >"$cfg/requeue_inject/verbose"
	echo "$REQUEUE_BUDGET" >"$cfg/requeue_inject/times"
	echo 10 >"$cfg/requeue_inject/probability"
	fio_verify "$dev" "$SECONDS_PER_RUN" "$LOG"
	status=$?
	echo 0 >"$cfg/requeue_inject/probability"
	injected=$((REQUEUE_BUDGET - $(injections_left "$cfg/requeue_inject")))
	ktap_print_msg "$injected requeues injected"
	[ "$injected" -gt 0 ] || status=1
	report_fio $status "$LOG" "$dev: fio verify with requeues under $2"
}

timeouts_under()
{
	dev=$1
	cfg=$NULLB_CONFIGFS/$dev
	name="$dev: $TIMEOUTS timeouts under $2, one error each, data intact"
	if ! timeout_job "$dev" --do_verify=0; then
		report_fio 1 "$LOG" "$name (writing)"
		return
	fi
	echo 0 >"$cfg/timeout_inject/verbose"
	echo "$TIMEOUTS" >"$cfg/timeout_inject/times"
	echo 5 >"$cfg/timeout_inject/probability"
	timeout_job "$dev" --verify_only
	errors=$(fio_timeout_errors)
	echo 0 >"$cfg/timeout_inject/probability"
	injected=$((TIMEOUTS - $(injections_left "$cfg/timeout_inject")))
	ktap_print_msg "$injected timeouts injected, fio saw $errors errors"
	ok=1
	[ "$injected" -gt 0 ] && [ "$errors" -eq "$injected" ] || ok=0
	grep -Eq "verify failed|bad magic|bad header" "$LOG" && ok=0
	timeout_job "$dev" --verify_only || ok=0
	[ $ok -eq 1 ] || sed 's/^/# /' "$LOG" | tail -n 20
	if [ $ok -eq 1 ]; then
		ktap_test_pass "$name"
	else
		ktap_test_fail "$name"
	fi
}

cleanup()
{
	for dev in $depth1 $requeue $timeout; do
		nullb_remove "$dev"
	done
	rm -f "$LOG"
}

if [ ! -d "$NULLB_CONFIGFS" ]; then
	ktap_skip_all "no $NULLB_CONFIGFS (CONFIG_BLK_DEV_NULL_BLK, CONFIG_CONFIGFS_FS)"
	exit "$KSFT_SKIP"
fi

depth1=iosched_depth1
requeue=iosched_requeue
timeout=iosched_timeout
ktap_print_header
cleanup
if ! nullb_create $depth1 hw_queue_depth=1 || ! nullb_create $requeue ||
	! nullb_create $timeout; then
	cleanup
	ktap_exit_fail_msg "cannot make null_blk devices (see config)"
fi
# One request per fio I/O, and timeouts that end in a second.
echo 2 >"/sys/block/$timeout/queue/nomerges"
echo 1000 >"/sys/block/$timeout/queue/io_timeout"

nr=$(schedulers "$depth1" | wc -w)
[ "$nr" -gt 0 ] || ktap_exit_fail_msg "$depth1 lists no scheduler"
ktap_set_plan $((4 * nr))
for s in $(schedulers "$depth1"); do
	for dev in "$depth1" "$requeue" "$timeout"; do
		select_scheduler "$dev" "$s" ||
			ktap_print_msg "$dev: could not select $s"
	done
	verify_under_churn "$depth1" "$SECONDS_PER_RUN" "$LOG" "$s (queue depth 1)"
	requeues_under "$requeue" "$s"
	timeouts_under "$timeout" "$s"
done

cleanup
ktap_finished
