#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# seeds/001 pgioperf setup: linear write of two 512 MiB files, one after
# the other, each made durable; throughput over the whole job.
. "$(dirname "$0")/lib.sh"
case "$1" in
prepare) ;;
run) rm -f "$DIR"/lin*
	fio --output-format=json --name=writer --directory="$DIR" \
	--filename_format='lin$jobnum' --size=512M --rw=write --bs="$BS" \
	--end_fsync=1 --numjobs=2 --stonewall ;;
esac
