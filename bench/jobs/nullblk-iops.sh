#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# CPU cost of the scheduler on null_blk (memory backed, several hardware
# queues): see randread_iops.
. "$(dirname "$0")/lib.sh"
case "$1" in
run) randread_iops nullb ;;
esac
