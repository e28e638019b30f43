#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# seeds/003: a sequential 1 MiB reader and a sequential 1 MiB writer at
# once, both buffered, as two dd processes would be.
. "$(dirname "$0")/lib.sh"
case "$1" in
prepare) lay_out "$DIR/read" 2G ;;
run) fio_run --name=reader --filename="$DIR/read" --size=2G --rw=read \
	--bs="$BS" \
	--name=writer --filename="$DIR/write" --size=2G --rw=write --bs="$BS" ;;
cleanup) rm -f "$DIR"/write ;;
esac
