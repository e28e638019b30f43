#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# seeds/001 heavy writers: one random 4 KiB reader (psync, cold cache)
# against two buffered sequential writers of 64 KiB; every process logs
# its completions for the longest gap without one.
. "$(dirname "$0")/lib.sh"
case "$1" in
prepare) lay_out "$DIR/read" 512M ;;
run) fio_run_logged --name=reader --filename="$DIR/read" --size=512M \
	--ioengine=psync --rw=randread --bs="$BS" \
	--write_lat_log="$COMPLETIONS/reader" \
	--name=writer --directory="$DIR" --filename_format='w$jobnum' \
	--size=1G --rw=write --bs=64k --numjobs=2 \
	--write_lat_log="$COMPLETIONS/writer" ;;
cleanup) rm -f "$DIR"/w* ;;
esac
