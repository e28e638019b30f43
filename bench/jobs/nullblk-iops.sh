#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# CPU cost of the scheduler: 4 KiB random reads on null_blk (memory
# backed, several hardware queues), two jobs at queue depth 32.
. "$(dirname "$0")/lib.sh"
case "$1" in
prepare) ;;
run) fio_run --name=nullb --filename="$DEV" --ioengine=libaio --direct=1 \
	--iodepth=32 --rw=randread --bs="$BS" --numjobs=2 ;;
esac
