#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Physics check of the disk model through the whole guest I/O path: direct
# reads of the raw device, random when BS is at most 64k, else sequential,
# at queue depth THREADS.
. "$(dirname "$0")/lib.sh"
case "$BS" in
4k | 8k | 16k | 32k | 64k) pattern=randread ;;
*) pattern=read ;;
esac
case "$1" in
prepare) ;;
run) fio_run --name=device --filename="$DEV" --ioengine=libaio --direct=1 \
	--iodepth="$THREADS" --rw="$pattern" --bs="$BS" ;;
esac
