#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot the guest (KERNEL_IMAGE: another bzImage) with disk kind DISK
# (default hba) and fork FORKS (default 20000) short-lived processes from
# the busybox shell while fio writes to the disk, then print how many
# processes the kernel killed with a general protection fault or
# segfault ("traps:" lines). A tool for telling whether a kernel or a
# configuration change makes user processes crash under TCG.
. "$(dirname "$0")/lib.sh"
lock_build
. "$TOP/scripts/qemu-lib.sh"

kind=${DISK:-hba}
forks=${FORKS:-20000}
check_disk_kinds "$kind"
case "$forks" in '' | *[!0-9]* | 0) die "FORKS must be a positive whole number, not '$forks'" ;; esac
prepare_guest
log=$LOGS/fork-stress-$kind.console
QEMU_PREFIX=(timeout -k 5 1800)
{
	sleep 15
	cat <<GUEST
disk=\$(ls /sys/block | grep -E '^(sd|vd|nvme)' | head -n 1)
fio --name=w --filename=/dev/\$disk --direct=1 --ioengine=libaio --iodepth=8 --rw=randwrite --bs=16k --size=256M --time_based --runtime=3600 >/dev/null 2>&1 &
i=0; while [ \$i -lt $forks ]; do x=\$(true); i=\$((i + 1)); done
echo "fork-stress: \$(dmesg | grep -c 'traps:') crashes in $forks forks"
dmesg | grep 'traps:'
poweroff -f
GUEST
	while sleep 5; do echo; done
} | run_qemu shell "kunit.enable=0" stdio "file:/dev/null" "$kind" >"$log" 2>&1 || true
grep -a 'fork-stress:\|traps:' "$log" | grep -v 'echo' || die "no result; see ${log#"$TOP"/}"
