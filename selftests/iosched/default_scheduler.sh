#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The scheduler a device gets when it appears: a rotational device with one
# hardware queue, or tags its hardware queues share, the one the kernel's
# configuration or elevator.rotational= chose
# (/sys/module/elevator/parameters/rotational); another such device
# mq-deadline; a device with several hardware queues of its own none.
#
# The disk under test (IOSCHED_DISK) still has the scheduler it got at
# boot: every test puts back the one it found.  null_blk disks, made here
# so that each appears while the test watches, are not rotational in 6.12
# and check the other cases.  Where the chosen scheduler is mq-deadline a
# rotational disk cannot tell the rule from the stock one: booted so, that
# case is skipped (CI boots this test with elevator.rotational=mq-as).
# udev rules that set queue/scheduler (distributions have them) override
# the default: run it where none match the disks, as in the project's
# guests.

DIR=$(dirname "$0")
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/iosched_lib.sh"

PARAM=/sys/module/elevator/parameters/rotational
NULLB=iosched_default
DEBUGFS=/sys/kernel/debug/block

cleanup()
{
	nullb_remove $NULLB
}

# Whether disk $1 counts as single-queue: one hardware queue, or tags
# its hardware queues share.
single_queue()
{
	[ "$(ls -d "/sys/block/$1/mq/"* | wc -l)" -eq 1 ] ||
		grep -qw TAG_HCTX_SHARED "$DEBUGFS/$1/hctx0/flags" 2>/dev/null
}

# The scheduler disk $1 should have got when it appeared.
expected_default()
{
	if ! single_queue "$1"; then
		echo none
	elif [ "$(cat "/sys/block/$1/queue/rotational")" = 1 ]; then
		cat $PARAM
	else
		echo mq-deadline
	fi
}

# check_disk LABEL DISK: DISK's scheduler is its expected default.
check_disk()
{
	want=$(expected_default "$2")
	got=$(active_scheduler "$2")
	ktap_print_msg "$2: $(cat "/sys/block/$2/queue/scheduler"), rotational" \
		"$(cat "/sys/block/$2/queue/rotational"), $(ls -d \
		"/sys/block/$2/mq/"* | wc -l) hardware queue(s)"
	if [ "$got" = "$want" ]; then
		ktap_test_pass "$1: $want"
	else
		ktap_test_fail "$1: got $got, want $want"
	fi
}

# check_nullb LABEL ATTR=VALUE...: a new null_blk disk with those
# settings comes up with its expected default.
check_nullb()
{
	label=$1
	shift
	if nullb_create $NULLB "$@"; then
		check_disk "$label" $NULLB
	else
		ktap_test_fail "$label (cannot make the null_blk disk)"
	fi
	nullb_remove $NULLB
}

ktap_print_header
if [ ! -r $PARAM ]; then
	ktap_skip_all "no $PARAM: the kernel has no default for rotational devices"
	exit "$KSFT_SKIP"
fi
if [ ! -d "$NULLB_CONFIGFS" ]; then
	ktap_skip_all "no $NULLB_CONFIGFS (CONFIG_BLK_DEV_NULL_BLK, CONFIG_CONFIGFS_FS)"
	exit "$KSFT_SKIP"
fi
# TAG_HCTX_SHARED is shown in debugfs only.
[ -d "$DEBUGFS" ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
if [ ! -d "$DEBUGFS" ]; then
	ktap_skip_all "no $DEBUGFS (CONFIG_BLK_DEBUG_FS)"
	exit "$KSFT_SKIP"
fi
cleanup
trap cleanup EXIT
trap 'exit 1' INT TERM

chosen=$(cat $PARAM)
ktap_print_msg "chosen for rotational devices: $chosen; $(cat /proc/cmdline)"
ktap_set_plan 4

if [ -z "$IOSCHED_DISK" ] || [ ! -d "/sys/block/$IOSCHED_DISK" ]; then
	ktap_test_skip "the disk under test (IOSCHED_DISK names none)"
elif [ "$chosen" = mq-deadline ] &&
     [ "$(expected_default "$IOSCHED_DISK")" = mq-deadline ]; then
	ktap_test_skip "the disk under test (the default is the stock one)"
else
	check_disk "the disk under test" "$IOSCHED_DISK"
fi
# No poll queues: null_blk gives a disk one by default, a hardware queue.
check_nullb "null_blk, one hardware queue" submit_queues=1 poll_queues=0
check_nullb "null_blk, shared tags" submit_queues=2 poll_queues=0 \
	shared_tag_bitmap=1
if [ "$(nproc)" -lt 2 ]; then
	ktap_test_skip "null_blk, two hardware queues (one CPU)"
else
	check_nullb "null_blk, two hardware queues" submit_queues=2 \
		poll_queues=0
fi
ktap_finished
