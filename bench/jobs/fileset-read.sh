#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# seeds/002: random reads of BS over 64 files of 16 MiB (several times the
# guest's RAM), THREADS readers, buffered so readahead decides the I/O.
. "$(dirname "$0")/lib.sh"
FILESET="--directory=$DIR --filename_format=f\$filenum --nrfiles=64 --filesize=16M --size=1G"
case "$1" in
prepare)
	# shellcheck disable=SC2086
	[ -f "$DIR/f63" ] || fio --name=layout $FILESET --rw=write --bs=1M \
		--file_service_type=sequential --end_fsync=1 >/dev/null ;;
run)
	# shellcheck disable=SC2086
	with_ra_counters fio_run --name=reader $FILESET --ioengine=psync \
		--rw=randread --bs="$BS" --numjobs="$THREADS" ;;
esac
