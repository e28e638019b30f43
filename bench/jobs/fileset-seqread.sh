#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Issue 5 (readahead): THREADS sequential readers of BS, each reading its
# own 16 MiB file of the seeds/002 fileset (64 files, laid out one after
# another), buffered so readahead decides the I/O. In a 256 MiB guest, 16
# and 64 readers hold more readahead than memory does; fileset-squeeze
# squeezes harder. A timed run stops its readers with their last windows
# read but unused, more of them the larger the windows; with no runtime
# (seed002-seq16k-once) each reader reads its file once to the end, so
# that the bytes read per byte used count only readahead that was dropped
# unused or read twice.
. "$(dirname "$0")/lib.sh"
case "$1" in
prepare) "$(dirname "$0")/fileset-read.sh" prepare ;;
run)
	with_ra_counters fio_run --name=reader --directory="$DIR" \
		--filename_format='f$jobnum' \
		--nrfiles=1 --filesize=16M --ioengine=psync --rw=read \
		--bs="$BS" --numjobs="$THREADS" ;;
esac
