#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Issue 5 (readahead) on page cache hits: THREADS readers re-read a 1 GiB
# file that is cached entirely, BS at a time, in a guest large enough to
# hold it. Nothing is read from the disk, so system CPU time is what
# readahead's decisions and page cache lookups cost.
. "$(dirname "$0")/lib.sh"
FILE=$DIR/cached
case "$1" in
prepare) lay_out "$FILE" 1G ;;
run)
	# The measured passes must all hit: read it in first, with readahead.
	echo 3 >/proc/sys/vm/drop_caches && cat "$FILE" >/dev/null || exit 1
	with_ra_counters fio_run --name=reader --filename="$FILE" --size=1G \
		--ioengine=psync --rw=read --bs="$BS" --numjobs="$THREADS" ;;
esac
