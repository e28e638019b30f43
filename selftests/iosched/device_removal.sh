#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Removing the disk under I/O, once under each scheduler: fio runs mixed
# direct I/O, then the disk goes away. SCSI and ATA disks go through
# device/delete. An NVMe or virtio disk is a PCI function: under QEMU
# (IOSCHED_HOTPLUG=qmp) the test asks the host, through a line in the
# kernel log, to unplug it with device_del, which the guest sees as an
# ACPI eject; elsewhere it removes the function through sysfs. fio must
# end with I/O errors within a bound instead of hanging, the disk's
# debugfs directory (scheduler state included) must be gone, and the disk
# must come back (rescan, or replug by the host). Runs last: the disk may
# come back under another name.
#
# Environment: IOSCHED_DISK (e.g. "sda"), IOSCHED_HOTPLUG ("qmp" when the
# host relays hotplug requests to QEMU's monitor).

DIR=$(dirname "$0")
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/iosched_lib.sh"

DISK=${IOSCHED_DISK:-}
LOG=/tmp/device_removal.$$.log
HOTPLUG=${IOSCHED_HOTPLUG:-}
FIO_GRACE=30
RESCAN_WAIT=60

# PCI function (0000:00:xx.y) that disk $1 sits behind.
pci_function()
{
	readlink -f "/sys/block/$1" | tr '/' '\n' |
		grep -E '^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-9]$' | tail -n 1
}

# SCSI address (host:channel:target:lun) of disk $1, if it is a SCSI
# (or libata) disk.
scsi_address()
{
	basename "$(readlink -f "/sys/block/$1/device")" |
		grep -E '^[0-9]+:[0-9]+:[0-9]+:[0-9]+$'
}

# The block device behind PCI function $1, once it is there with its
# /dev node: devtmpfs makes the node a moment after the sysfs entry, and
# fio would lay out a regular file in its place.
disk_behind()
{
	for d in /sys/block/*; do
		case "$(readlink -f "$d")" in
		*/"$1"/*)
			[ -b "/dev/${d##*/}" ] || return 1
			echo "${d##*/}"
			return 0
			;;
		esac
	done
	return 1
}

# Ask the host to unplug or replug ($1) the PCI function $2 (0000:00:s.f).
hotplug_request()
{
	echo "iosched-hotplug: $1 ${2#0000:00:}" >/dev/kmsg
}

# Remove disk $1 (behind PCI function $2).
remove_disk()
{
	if [ -e "/sys/block/$1/device/delete" ]; then
		echo 1 >"/sys/block/$1/device/delete"
	elif [ "$HOTPLUG" = qmp ]; then
		hotplug_request unplug "$2"
	else
		echo 1 >"/sys/bus/pci/devices/$2/remove"
	fi
}

# Bring the disk back (SCSI address $2 or PCI function $1); print its
# name. Only the address the disk had is scanned: a wildcard scan probes
# every target of the host, which takes seconds under emulation.
rescan_disk()
{
	scan=/sys/class/scsi_host/host${2%%:*}/scan
	if [ -n "$2" ] && [ -e "$scan" ]; then
		echo "${2#*:}" | tr ':' ' ' >"$scan"
	elif [ "$HOTPLUG" = qmp ]; then
		hotplug_request replug "$1"
	else
		echo 1 >/sys/bus/pci/rescan
	fi
	wait_until "$RESCAN_WAIT" disk_behind "$1"
}

# Run command $2... every 0.1 s until it succeeds, for up to $1 seconds.
wait_until()
{
	polls=$(($1 * 10))
	shift
	until "$@"; do
		[ "$polls" -gt 0 ] || return 1
		sleep 0.1
		polls=$((polls - 1))
	done
}

process_gone()
{
	! kill -0 "$1" 2>/dev/null
}

# The disk is gone once its sysfs directory is: a hot-unplug finishes
# some time after the request.
disk_gone()
{
	[ ! -e "/sys/block/$1" ]
}

# One result: remove $DISK under load with scheduler $1 and bring it back.
remove_under_load()
{
	name="$DISK removed under I/O with $1"
	fn=$(pci_function "$DISK")
	address=$(scsi_address "$DISK")
	# allow_file_create=0: never a regular file in place of a lost node.
	fio --name=removal --filename="/dev/$DISK" --allow_file_create=0 \
		--ioengine=libaio --direct=1 --iodepth=16 --rw=randrw --bs=16k --size=256M \
		--time_based --runtime=120 >"$LOG" 2>&1 &
	fio_pid=$!
	sleep 2
	remove_disk "$DISK" "$fn"
	ok=1
	if ! wait_until "$FIO_GRACE" process_gone $fio_pid; then
		ktap_print_msg "fio still running ${FIO_GRACE}s after the removal"
		kill -9 $fio_pid
		ok=0
	fi
	wait $fio_pid && { ktap_print_msg "fio saw no error"; ok=0; }
	if ! wait_until "$FIO_GRACE" disk_gone "$DISK"; then
		ktap_print_msg "$DISK is still there ${FIO_GRACE}s after its removal"
		ok=0
	elif [ -d "/sys/kernel/debug/block/$DISK" ]; then
		ktap_print_msg "debugfs block/$DISK outlived the disk"
		ok=0
	fi
	if new=$(rescan_disk "$fn" "$address"); then
		DISK=$new
	else
		ktap_print_msg "the disk did not come back within ${RESCAN_WAIT}s"
		ok=0
	fi
	[ $ok -eq 1 ] || sed 's/^/# /' "$LOG" | tail -n 10
	if [ $ok -eq 1 ]; then
		ktap_test_pass "$name"
	else
		ktap_test_fail "$name"
	fi
}

if [ -z "$DISK" ] || [ ! -w "/sys/block/$DISK/queue/scheduler" ]; then
	ktap_skip_all "IOSCHED_DISK does not name a disk with a scheduler"
	exit "$KSFT_SKIP"
fi

ktap_print_header
ktap_set_plan "$(schedulers "$DISK" | wc -w)"
for s in $(schedulers "$DISK"); do
	if [ ! -b "/dev/$DISK" ]; then
		ktap_test_fail "$s: no disk left to remove"
		continue
	fi
	if ! select_scheduler "$DISK" "$s"; then
		ktap_test_fail "$DISK removed under I/O with $s (could not select it)"
		continue
	fi
	remove_under_load "$s"
done
rm -f "$LOG"
ktap_finished
