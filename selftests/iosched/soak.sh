#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Soak: a mixed load of 64 threads on an ext4 file system on the disk
# under test, under each scheduler in turn: 16 random 4 KiB readers, 16
# buffered sequential readers, 16 buffered writers calling fsync and 16
# direct random readers/writers whose blocks are checksummed (crc32c)
# and verified. Every job must finish without an error or a verify
# failure, within a bound; the host fails the run on any kernel report.
#
# Environment: IOSCHED_DISK (e.g. "sda"), IOSCHED_SOAK_SECONDS (per
# scheduler, default 600).

DIR=$(dirname "$0")
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/iosched_lib.sh"

DISK=${IOSCHED_DISK:-}
SOAK_SECONDS=${IOSCHED_SOAK_SECONDS:-600}
MNT=/tmp/soak.$$
LOG=/tmp/soak.$$.log
GRACE=120

# 4 groups of 16 jobs, 8 MiB files each: 512 MiB in all.
soak_jobs()
{
	cat <<JOBS
[global]
directory=$MNT
size=8M
time_based
runtime=$SOAK_SECONDS
group_reporting

[randread]
numjobs=16
rw=randread
bs=4k
ioengine=psync

[seqread]
numjobs=16
rw=read
bs=128k
ioengine=psync

[fsync-writer]
numjobs=16
rw=write
bs=64k
ioengine=psync
fsync=32

[verify-rw]
numjobs=16
rw=randrw
bsrange=4k-64k
ioengine=libaio
iodepth=4
direct=1
verify=crc32c
verify_backlog=64
verify_fatal=1
JOBS
}

# One result: the soak under scheduler $1.
soak_under()
{
	name="$DISK: 64-thread soak under $1 for ${SOAK_SECONDS}s"
	soak_jobs >"$LOG.fio"
	timeout $((SOAK_SECONDS + GRACE)) fio "$LOG.fio" >"$LOG" 2>&1
	report_fio $? "$LOG" "$name"
}

if [ -z "$DISK" ] || [ ! -w "/sys/block/$DISK/queue/scheduler" ]; then
	ktap_skip_all "IOSCHED_DISK does not name a disk with a scheduler"
	exit "$KSFT_SKIP"
fi

ktap_print_header
ktap_set_plan "$(schedulers "$DISK" | wc -w)"
initial=$(active_scheduler "$DISK")
mkdir -p "$MNT"
if ! mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "/dev/$DISK" ||
	! mount -t ext4 "/dev/$DISK" "$MNT"; then
	ktap_exit_fail_msg "cannot make and mount ext4 on /dev/$DISK"
fi
for s in $(schedulers "$DISK"); do
	if select_scheduler "$DISK" "$s"; then
		soak_under "$s"
	else
		ktap_test_fail "$DISK: 64-thread soak under $s (could not select it)"
	fi
	# fio's data files only: ext4's lost+found stays.
	rm -f "$MNT"/*.[0-9]*
done
umount "$MNT"
select_scheduler "$DISK" "$initial"
rm -f "$LOG" "$LOG.fio"
ktap_finished
