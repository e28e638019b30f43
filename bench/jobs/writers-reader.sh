#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# seeds/004: four buffered sequential writers of BS and one small random
# 4 KiB reader; the writers' worst write() latency and every process's
# longest gap without a completed request show lock-outs.
. "$(dirname "$0")/lib.sh"
case "$1" in
prepare) lay_out "$DIR/read" 512M ;;
run) fio_run_logged --name=writer --directory="$DIR" \
	--filename_format='w$jobnum' --size=1G --rw=write --bs="$BS" \
	--numjobs=4 --write_lat_log="$COMPLETIONS/writer" \
	--name=reader --filename="$DIR/read" --size=512M --ioengine=psync \
	--rw=randread --bs=4k --write_lat_log="$COMPLETIONS/reader" ;;
cleanup) rm -f "$DIR"/w* ;;
esac
