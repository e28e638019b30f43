#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make soak": the 64-thread mixed load of selftests/iosched/soak.sh for
# SOAK_SECONDS (default 600) under each scheduler, on disk kind DISK
# (default virtio-mq), in one boot. Ends with "N passed, N failed"; a
# hung guest or any kernel report fails it. DEBUG=1 soaks the debug kernel.
. "$(dirname "$0")/lib.sh"
lock_build
. "$TOP/scripts/qemu-lib.sh"
. "$TOP/scripts/test-lib.sh"

SOAK_SECONDS=${SOAK_SECONDS:-600}
kind=${DISK:-virtio-mq}
check_disk_kinds "$kind"
check_seconds SOAK_SECONDS
steps=1

prepare_guest
limit=$(soak_time_limit "$SOAK_SECONDS")
next_step "64-thread soak on $kind, ${SOAK_SECONDS}s per scheduler (at most $limit s in all)"
guest_verdict soak test $((limit + 600)) \
	"kunit.enable=0 iosched.soak_seconds=$SOAK_SECONDS iosched.test_timeout=$limit iosched.only_tests=soak.sh" "$kind"
count_tap soak "$LOGS/soak.tap"
print_summary
