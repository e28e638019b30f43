#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Issue 5 (readahead) under a memory squeeze: the fileset-seqread readers
# inside a memory cgroup (a 128 MiB guest cannot unpack the initramfs), so
# that their readahead competes for less memory than the guest has. The
# limit is sized as 48 MiB for the readers' page cache plus 16 MiB for
# fio, whose 64 processes share 12 MiB of System V shared memory for their
# state, charged to the group too (nothing enforces the split): at 48 MiB
# in all, the group's OOM killer took fio in 2 of 12 timed runs and in
# all 12 read to the end.
. "$(dirname "$0")/lib.sh"
CG=/tmp/cgroup
LIMIT=64M
case "$1" in
prepare) "$(dirname "$0")/fileset-read.sh" prepare ;;
run)
	mkdir -p "$CG" || exit 1
	grep -q " $CG cgroup2 " /proc/mounts || mount -t cgroup2 none "$CG" || exit 1
	echo +memory >"$CG/cgroup.subtree_control" && mkdir -p "$CG/squeeze" &&
		echo "$LIMIT" >"$CG/squeeze/memory.max" &&
		echo $$ >"$CG/squeeze/cgroup.procs" || exit 1
	"$(dirname "$0")/fileset-seqread.sh" run
	status=$?
	echo $$ >"$CG/cgroup.procs"
	exit $status ;;
esac
