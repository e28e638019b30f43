#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# CPU cost of the scheduler on an emulated device: 4 KiB random direct
# reads, two jobs at queue depth 32, as nullblk-iops does on null_blk.
. "$(dirname "$0")/lib.sh"
case "$1" in
prepare) ;;
run) fio_run --name=reader --filename="$DEV" --ioengine=libaio --direct=1 \
	--iodepth=32 --rw=randread --bs="$BS" --numjobs=2 ;;
esac
