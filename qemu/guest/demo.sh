#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# "make run": show every disk of the matrix and how each scheduler does on
# a short 4 KiB random-read burst (direct I/O, queue depth 16).
. /usr/lib/iosched/guest-lib.sh

SECS=$(param demo_seconds)
SECS=${SECS:-3}

print_disks
echo
printf '4 KiB random reads, QD16, %s s each (IOPS; TCG: compare within a row)\n' "$SECS"
header=$(disk_specs | head -n 1 | while read -r kind slot driver; do
	dev=$(disk_at_slot "$slot") && tr -d '[]' </sys/block/"$dev"/queue/scheduler
done)
printf '%-10s' disk
for s in $header; do printf ' %12s' "$s"; done
echo
disk_specs | while read -r kind slot driver; do
	dev=$(disk_at_slot "$slot") || continue
	printf '%-10s' "$kind"
	for s in $header; do
		if ! echo "$s" >/sys/block/"$dev"/queue/scheduler 2>/dev/null; then
			printf ' %12s' n/a
			continue
		fi
		iops=$(fio --name=demo --filename=/dev/"$dev" --ioengine=libaio \
			--direct=1 --iodepth=16 --rw=randread --bs=4k --size=512M \
			--time_based --runtime="$SECS" --minimal 2>/dev/null |
			cut -d';' -f8)
		printf ' %12s' "${iops:-error}"
	done
	echo
done
