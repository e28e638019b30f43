#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Issue 5 (readahead): THREADS sequential readers of BS over the seeds/002
# fileset (64 files of 16 MiB, laid out one after another), buffered so
# that readahead decides the I/O. In a 256 MiB guest, 16 and 64 readers
# hold more readahead than memory does; fileset-squeeze squeezes harder.
# Timed, each reader reads its own file, over again until the time is up.
# A timed run stops its readers with their last windows read but unused,
# more of them the larger the windows; with no runtime
# (seed002-seq16k-once) the readers share out the whole fileset and read
# each file once to the end, reader j files j, j + THREADS, ... in turn,
# so that the bytes read per byte used count only readahead that was
# dropped unused or read twice, and 16 readers read for as long as 64.
. "$(dirname "$0")/lib.sh"
FILES=64

# fio's job options for THREADS readers: one job each, of its own file
# (timed) or of its share of the fileset, one file after another (once).
reader_jobs()
{
	if [ "$SECS" != - ]; then
		echo --name=reader --filename_format='f$jobnum' --nrfiles=1 \
			--filesize=16M --numjobs="$THREADS"
		return
	fi
	case "$THREADS" in
	'' | *[!0-9]* | 0) echo "fileset-seqread: THREADS must be a positive number, not '$THREADS'" >&2
		return 1 ;;
	esac
	[ $((FILES % THREADS)) = 0 ] || {
		echo "fileset-seqread: $THREADS readers cannot share $FILES files evenly" >&2
		return 1
	}
	j=0
	while [ "$j" -lt "$THREADS" ]; do
		files=f$j f=$((j + THREADS))
		while [ "$f" -lt "$FILES" ]; do
			files=$files:f$f f=$((f + THREADS))
		done
		echo --name=reader --filename="$files" \
			--file_service_type=sequential
		j=$((j + 1))
	done
}

case "$1" in
prepare) "$(dirname "$0")/fileset-read.sh" prepare ;;
run)
	jobs=$(reader_jobs) || exit 1
	# shellcheck disable=SC2086 # one option a word; no file name has a space
	with_ra_counters fio_run --directory="$DIR" --ioengine=psync \
		--rw=read --bs="$BS" $jobs ;;
esac
