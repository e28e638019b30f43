#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# "make bench" in the guest: run the plan the host passed through fw_cfg,
# one line per measurement: "cell job threads bs secs scheduler rep".
# Results go to stdout framed as
#   BENCH-BEGIN <plan line>
#   <the job's fio JSON or dbench output>
#   BENCH-END status=N
# and progress to the console.
. /usr/lib/iosched/guest-lib.sh

PLAN=/sys/firmware/qemu_fw_cfg/by_name/opt/iosched/plan/raw
JOBS=/usr/lib/iosched/jobs
MNT=/mnt/bench

# The device under test: the one disk of iosched.disks, or null_blk.
bench_device()
{
	spec=$(disk_specs | head -n 1)
	if [ -z "$spec" ]; then
		echo nullb0
		return
	fi
	set -- $spec
	disk_at_slot "$2"
}

# Print "rotational N" (what the guest's queue says of device $1) for
# the record; fail if the disk model's profile (iosched.rotational) says
# otherwise: the schedulers would measure the wrong device.
check_rotational()
{
	seen=$(cat "/sys/block/$1/queue/rotational")
	echo "rotational $seen"
	want=$(param rotational)
	[ -z "$want" ] || [ "$want" = "$seen" ] && return 0
	echo "failed: /dev/$1 reports rotational=$seen, but the disk model's profile is rotational=$want"
	return 1
}

# The filesystem of the boot's cells (iosched.fs: ext4 or xfs) on disk $1.
# Real mke2fs by full path: busybox's own has no ext4.
make_filesystem()
{
	fs=$(param fs)
	case "${fs:=ext4}" in
	ext4) /sbin/mke2fs -F -q -t ext4 -E lazy_itable_init=0,lazy_journal_init=0 "/dev/$1" ;;
	xfs) /sbin/mkfs.xfs -f -q -K "/dev/$1" ;;
	*) echo "bench: unknown filesystem '$fs'" >&2; false ;;
	esac >&2 && mkdir -p "$MNT" && mount -t "$fs" "/dev/$1" "$MNT"
}

# The series' readahead knob: adaptive (the kernel's algorithm) or stock.
# It is a debug knob in debugfs; kernels of the series before it moved
# there had it in /sys/kernel/mm (make ab of older revisions).
ra_knob()
{
	[ -d /sys/kernel/debug/block ] ||
		mount -t debugfs none /sys/kernel/debug 2>/dev/null
	for knob in /sys/kernel/debug/readahead/algorithm \
		/sys/kernel/mm/readahead/algorithm; do
		[ -e "$knob" ] && echo "$knob" && return 0
	done
	return 1
}

# The readahead algorithm (adaptive or stock) for every file in the guest.
select_readahead()
{
	if ! knob=$(ra_knob); then
		[ "$1" = adaptive ] && return 0
		echo "bench: the kernel has no readahead knob, cannot select $1 readahead" >&2
		return 1
	fi
	echo "$1" >"$knob"
}

# Scheduler labels: a scheduler's name, or a variant: bfq-lowlat0 (bfq
# with low_latency=0), mq-deadline-rastock (mq-deadline with the stock
# readahead algorithm). Every other label reads ahead with the kernel's
# default, adaptive, algorithm. Each label starts from its scheduler's
# default tunables: the disk goes through none first, since naming the
# active scheduler again keeps what a variant changed (bfq after
# bfq-lowlat0 would run without low_latency). Any label may end in
# @NAME=VALUE suffixes: tunables set after its scheduler is selected.
select_scheduler()
{
	queue=/sys/block/$1/queue
	label=${2%%@*}
	readahead=adaptive
	echo none >"$queue/scheduler" || return
	case "$label" in
	bfq-lowlat0)
		echo bfq >"$queue/scheduler" &&
			echo 0 >"$queue/iosched/low_latency"
		;;
	mq-deadline-rastock)
		readahead=stock
		echo mq-deadline >"$queue/scheduler"
		;;
	*)
		echo "$label" >"$queue/scheduler"
		;;
	esac && set_tunables "$queue" "${2#"$label"}" &&
		select_readahead "$readahead"
}

# Each @NAME=VALUE of $2 (a label's suffix) into $1/iosched/NAME, in order;
# a tunable the scheduler lacks or refuses fails the measurement. Prints
# "tunable NAME VALUE" as read back, for the record. read_ahead_kb is the
# queue's own: a label of a fixed readahead window (the host boots such
# labels apart, since the kernel keeps a written read_ahead_kb).
set_tunables()
{
	for setting in $(echo "$2" | tr @ ' '); do
		tunable=${setting%%=*}
		case "$tunable" in
		read_ahead_kb) file=$1/$tunable ;;
		*) file=$1/iosched/$tunable ;;
		esac
		echo "${setting#*=}" >"$file" || return
		echo "tunable $tunable $(cat "$file")"
	done
}

# The tools are page cache too (the tools disk): after drop_caches, read
# back what job $1 runs (fio, and dbench's load file), so that its
# measurement reads from disk only the files it measures.
warm_tools()
{
	fio --version >/dev/null 2>&1
	[ "$1" != dbench ] || cat /usr/share/dbench/client.txt >/dev/null
}

# Print "sched slices LINE" per line of the scheduler's sched/slices
# debugfs file on device $1 (mq-cfq's slices by how they ended, counted
# since the label selected it), if it has one: what an A/B of two kernels
# compares to find where a difference in the figures comes from.
sched_slices()
{
	file=/sys/kernel/debug/block/$1/sched/slices
	[ -r "$file" ] || return 0
	sed 's/^/sched slices /' "$file"
}

# What the page cache may take: the memory the cells really have.
echo "bench: $(grep MemAvailable /proc/meminfo)" >/dev/console
dev=$(bench_device) || { echo "bench: no device under test" >&2; exit 1; }
[ -b "/dev/$dev" ] || { echo "bench: /dev/$dev is missing" >&2; exit 1; }
if [ "$dev" != nullb0 ]; then
	make_filesystem "$dev" || { echo "bench: cannot make a filesystem on $dev" >&2; exit 1; }
fi

total=$(wc -l <"$PLAN")
i=0
while read -r cell job threads bs secs sched rep; do
	i=$((i + 1))
	echo "bench: [$i/$total] $cell threads=$threads $sched rep $rep" >/dev/console
	export DEV=/dev/$dev DIR=$MNT/$cell THREADS=$threads BS=$bs SECS=$secs
	if [ ! -f "$DIR/.prepared" ]; then
		mkdir -p "$DIR" && "$JOBS/$job.sh" prepare >&2 &&
			: >"$DIR/.prepared" ||
			echo "bench: preparing $cell failed" >/dev/console
	fi
	sync
	echo 3 >/proc/sys/vm/drop_caches
	warm_tools "$job"
	# A "failed: REASON" line tells bench/collect.py why.
	echo "BENCH-BEGIN $cell $job $threads $bs $secs $sched $rep"
	status=1
	if [ ! -f "$DIR/.prepared" ]; then
		echo "failed: preparing $cell failed"
	elif ! check_rotational "$dev"; then
		:
	elif ! select_scheduler "$dev" "$sched"; then
		echo "failed: cannot select $sched"
	else
		echo "read_ahead_kb $(cat "/sys/block/$dev/queue/read_ahead_kb")"
		"$JOBS/$job.sh" run 2>&1
		status=$?
		sched_slices "$dev"
	fi
	echo "BENCH-END status=$status"
	"$JOBS/$job.sh" cleanup
done <"$PLAN"
