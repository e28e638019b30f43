#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make selftest TESTS=... [DISK=kind]": build the guest and run only the
# named iosched kselftests (names as in selftests/iosched/Makefile, e.g.
# "mq_cfq_ioprio mq_cfq_depth.sh"), in one boot with disk kind DISK
# (default scsi); KERNEL_IMAGE boots another bzImage instead of the one
# built; APPEND adds to the guest kernel's command line (e.g.
# "elevator.rotational=mq-as" for default_scheduler.sh); HOST_LOAD=N
# keeps N host CPUs busy while the guest runs (a slower, noisier host
# than CI's, whose background builds run at nice 19), to see whether a
# timing bound holds there. Ends with "N passed, N failed", as make test
# does.
. "$(dirname "$0")/lib.sh"
lock_build
. "$TOP/scripts/qemu-lib.sh"
. "$TOP/scripts/test-lib.sh"

read -ra tests <<<"${TESTS:-}"
[ ${#tests[@]} -gt 0 ] || die "name the kselftests to run: make selftest TESTS=\"mq_cfq_ioprio ...\""
kind=${DISK:-scsi}
check_disk_kinds "$kind"
for t in "${tests[@]}"; do
	grep -qw -- "$t" "$TOP/selftests/iosched/Makefile" ||
		die "no kselftest $t in selftests/iosched/Makefile"
done
if [ -n "${KERNEL_IMAGE:-}" ] && [ ! -f "$KERNEL_IMAGE" ]; then
	die "KERNEL_IMAGE=$KERNEL_IMAGE is not a file"
fi
load=${HOST_LOAD:-0}
case "$load" in
*[!0-9]* | 0?*) die "HOST_LOAD must be a whole number of busy CPUs, not '$load'" ;;
esac
[ "$load" -le "$(nproc)" ] || die "HOST_LOAD=$load is more than this host's $(nproc) CPUs"

# Keep $1 host CPUs busy while the guest runs. Each loop also ends once
# this script is gone: a signal that kills it skips the EXIT trap.
load_pids=()
start_load()
{
	local i
	trap 'stop_load' EXIT
	for ((i = 0; i < $1; i++)); do
		(while kill -0 $$ 2>/dev/null; do
			for ((j = 0; j < 100000; j++)); do :; done
		done) &
		load_pids+=($!)
	done
}

stop_load()
{
	[ ${#load_pids[@]} = 0 ] || kill "${load_pids[@]}" 2>/dev/null || true
	load_pids=()
}

load_note()
{
	[ "$load" = 0 ] || echo ", $load host CPUs busy"
}

steps=1
prepare_guest
next_step "kselftests ${tests[*]} on $kind ($(accel))${KERNEL_IMAGE:+, kernel $KERNEL_IMAGE}$(load_note)"
only=$(IFS=,; echo "${tests[*]}")
start_load "$load"
guest_verdict "selftest-$kind" test 2400 "kunit.enable=0 iosched.only_tests=$only ${APPEND:-}" "$kind"
stop_load
count_tap "$kind" "$LOGS/selftest-$kind.tap"
grep -E '^ *(not ok|ok) |^ *# ' "$LOGS/selftest-$kind.tap" >&2 || true
print_summary
