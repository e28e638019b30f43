#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# CPU cost of the scheduler on an emulated device, as nullblk-iops on
# null_blk: see randread_iops.
. "$(dirname "$0")/lib.sh"
case "$1" in
run) randread_iops reader ;;
esac
