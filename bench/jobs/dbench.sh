#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# seeds/001: dbench with its standard load file, THREADS clients. The
# load file's length comes first, for the time per pass of it.
. "$(dirname "$0")/lib.sh"
LOADFILE=/usr/share/dbench/client.txt
case "$1" in
prepare) ;;
run) echo "loadfile $(wc -l <"$LOADFILE") lines"
	dbench -c "$LOADFILE" -D "$DIR" -t "$SECS" "$THREADS" ;;
esac
