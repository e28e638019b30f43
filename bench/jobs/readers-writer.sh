#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Whether writeback is starved by readers (mq-cfq issue 30): THREADS
# random 4 KiB readers (psync, cold cache) against one buffered
# sequential writer of 64 KiB. The writer's throughput, its longest
# write() and its longest gap without one tell.
. "$(dirname "$0")/lib.sh"
case "$1" in
prepare) lay_out "$DIR/read" 512M ;;
run) fio_run_logged --name=reader --filename="$DIR/read" --size=512M \
	--ioengine=psync --rw=randread --bs="$BS" --numjobs="$THREADS" \
	--write_lat_log="$COMPLETIONS/reader" \
	--name=writer --directory="$DIR" --filename_format='w$jobnum' \
	--size=1G --rw=write --bs=64k \
	--write_lat_log="$COMPLETIONS/writer" ;;
cleanup) rm -f "$DIR"/w* ;;
esac
