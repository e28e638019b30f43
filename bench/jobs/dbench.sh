#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# seeds/001: dbench with its standard load file, THREADS clients.
. "$(dirname "$0")/lib.sh"
case "$1" in
prepare) ;;
run) dbench -c /usr/share/dbench/client.txt -D "$DIR" -t "$SECS" "$THREADS" ;;
esac
