#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# seeds/001 heavy writers: one random 4 KiB reader (psync, cold cache)
# against two buffered sequential writers of 64 KiB.
. "$(dirname "$0")/lib.sh"
case "$1" in
prepare) lay_out "$DIR/read" 512M ;;
run) fio_run --name=reader --filename="$DIR/read" --size=512M \
	--ioengine=psync --rw=randread --bs="$BS" \
	--name=writer --directory="$DIR" --filename_format='w$jobnum' \
	--size=1G --rw=write --bs=64k --numjobs=2 ;;
cleanup) rm -f "$DIR"/w* ;;
esac
