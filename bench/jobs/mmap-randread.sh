#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# seeds/000: random reads through mmap of one 1 GiB file, THREADS readers.
. "$(dirname "$0")/lib.sh"
case "$1" in
prepare) lay_out "$DIR/data" 1G ;;
run) with_ra_counters fio_run --name=reader --filename="$DIR/data" \
	--size=1G --ioengine=mmap --rw=randread --bs="$BS" \
	--numjobs="$THREADS" ;;
esac
