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
case "${HOST_LOAD:-0}" in
*[!0-9]* | '') die "HOST_LOAD must be a whole number of busy CPUs, not '$HOST_LOAD'" ;;
esac

# Keep $1 host CPUs busy until this script exits.
load_host()
{
	local i pids=()
	for ((i = 0; i < $1; i++)); do
		(while :; do :; done) &
		pids+=($!)
	done
	[ ${#pids[@]} = 0 ] || trap "kill ${pids[*]} 2>/dev/null" EXIT
}

load_note()
{
	[ "${HOST_LOAD:-0}" = 0 ] || echo ", $HOST_LOAD host CPUs busy"
}

steps=1
prepare_guest
next_step "kselftests ${tests[*]} on $kind ($(accel))${KERNEL_IMAGE:+, kernel $KERNEL_IMAGE}$(load_note)"
only=$(IFS=,; echo "${tests[*]}")
load_host "${HOST_LOAD:-0}"
guest_verdict "selftest-$kind" test 2400 "kunit.enable=0 iosched.only_tests=$only ${APPEND:-}" "$kind"
count_tap "$kind" "$LOGS/selftest-$kind.tap"
grep -E '^ *(not ok|ok) |^ *# ' "$LOGS/selftest-$kind.tap" >&2 || true
print_summary
