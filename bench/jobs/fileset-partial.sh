#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Issue 31 (readahead over a partly cached file): THREADS percent of the
# 4 KiB pages of a 256 MiB file are read into the page cache at random
# first (fio's random map: each page once; POSIX_FADV_RANDOM, so nothing
# is read ahead), then one reader reads the file sequentially once, BS at
# a time. A cached page splits a window's I/O and can carry its mark; the
# reader's throughput and the disk's read requests show what readahead
# made of it. Not time-based: a second pass would read from the cache.
# The guest holds the whole file, so the cached pages stay until read;
# the reader does not invalidate them first (fio's default).
. "$(dirname "$0")/lib.sh"
FILE=$DIR/partial
SIZE_KIB=262144
case "$1" in
prepare) lay_out "$FILE" "${SIZE_KIB}k" ;;
run)
	case "$THREADS" in
	''|*[!0-9]*) echo "fileset-partial: THREADS is a percentage, not '$THREADS'" >&2
		exit 1 ;;
	esac
	cached_kib=$((SIZE_KIB * THREADS / 100 / 4 * 4))
	if [ "$cached_kib" -gt 0 ]; then
		fio --name=warm --filename="$FILE" --size="${SIZE_KIB}k" \
			--io_size="${cached_kib}k" --rw=randread --bs=4k \
			--ioengine=psync --fadvise_hint=1 >/dev/null || exit 1
	fi
	with_ra_counters fio --output-format=json --group_reporting=0 \
		--name=reader --filename="$FILE" --size="${SIZE_KIB}k" \
		--invalidate=0 --ioengine=psync --rw=read --bs="$BS" ;;
esac
