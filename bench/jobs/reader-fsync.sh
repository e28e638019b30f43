#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# seeds/001: one random reader (iodepth 1, cold cache) against one random
# writer that calls fdatasync after every write.
. "$(dirname "$0")/lib.sh"
case "$1" in
prepare)
	lay_out "$DIR/read" 512M
	lay_out "$DIR/write" 512M
	;;
run) fio_run --name=reader --filename="$DIR/read" --size=512M \
	--ioengine=psync --rw=randread --bs="$BS" \
	--name=writer --filename="$DIR/write" --size=512M --ioengine=psync \
	--rw=randwrite --bs="$BS" --fdatasync=1 ;;
esac
