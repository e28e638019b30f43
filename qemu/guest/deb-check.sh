#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The kernel of make deb's trimmed package, booted with its own modules
# (scripts/deb-boot.sh): the series' schedulers load as modules, by name
# and on demand, schedule a disk, stay while a disk uses them and unload
# after; the modules' signatures are trusted; the readahead knobs are
# there. TAP on stdout.
. /usr/lib/iosched/guest-lib.sh

n=0
bad=0

# One TAP line: "ok" if command "$2..." succeeds, else "not ok" with its
# output; $1 names it.
check()
{
	what=$1
	shift
	n=$((n + 1))
	if out=$("$@" 2>&1); then
		echo "ok $n $what"
	else
		[ -z "$out" ] || echo "$out" | sed 's/^/# /'
		echo "not ok $n $what"
		bad=$((bad + 1))
	fi
}

# The disk under test: the first of iosched.disks.
test_disk()
{
	disk_specs | { read -r _ slot _ && disk_at_slot "$slot"; }
}

# The package's kernel, not the guest kernel of make build.
package_kernel()
{
	case "$(uname -r)" in
	*-iosched-qemu) ;;
	*) echo "running $(uname -r)"; return 1 ;;
	esac
}

# Whether module $1 is loaded and live (a built-in one is not "loaded").
loaded()
{
	[ "$(cat "/sys/module/$1/initstate" 2>/dev/null)" = live ] ||
		{ echo "$1 is not loaded"; return 1; }
}

unloaded() { [ ! -d "/sys/module/$1" ] || { echo "$1 is loaded"; return 1; }; }

active_is()
{
	grep -q "\[$2\]" "/sys/block/$1/queue/scheduler" ||
		{ echo "active: $(cat "/sys/block/$1/queue/scheduler")"; return 1; }
}

select_scheduler() { echo "$2" >"/sys/block/$1/queue/scheduler" && active_is "$1" "$2"; }

# Reads disk $1 has completed (field 1 of its stat).
disk_reads() { read -r reads _ <"/sys/block/$1/stat" && echo "$reads"; }

# Select scheduler $2 on disk $1 and read 8 MiB through it, from MiB $3
# on, bypassing the page cache: the disk must complete the reads.
select_and_read()
{
	select_scheduler "$1" "$2" || return 1
	before=$(disk_reads "$1")
	dd if="/dev/$1" of=/dev/null bs=64k count=128 skip=$(($3 * 16)) iflag=direct 2>/tmp/dd.err ||
		{ cat /tmp/dd.err; return 1; }
	after=$(disk_reads "$1")
	[ "$after" -gt "$before" ] || { echo "the disk completed no read ($before before, $after after)"; return 1; }
}

# modprobe by the name the elevator core asks for loads mq-cfq and the
# core it needs.
modprobe_cfq()
{
	unloaded mq_cfq_iosched && unloaded blk_ioq &&
		modprobe mq-cfq-iosched && loaded mq_cfq_iosched && loaded blk_ioq
}

# Selecting scheduler $2 on disk $1 loads module $3, which was not loaded.
loads_on_demand() { unloaded "$3" && select_scheduler "$1" "$2" && loaded "$3"; }

# Module $2 cannot be removed while disk $1 uses it.
stays_in_use() { ! rmmod "$2" 2>/dev/null && loaded "$2" && active_is "$1" "$3"; }

# With disk $1 back on mq-deadline, the series' modules unload.
unload_series()
{
	select_scheduler "$1" mq-deadline &&
		rmmod mq_cfq_iosched mq_as_iosched blk_ioq &&
		unloaded mq_cfq_iosched && unloaded mq_as_iosched && unloaded blk_ioq
}

# The series' modules that are loaded now (mq-cfq and blk-ioq) carry no
# taint of their own (E: unsigned, or signed with a key the kernel does
# not trust), nor does the kernel (flag E, 8192).
signatures_trusted()
{
	for m in mq_cfq_iosched blk_ioq; do
		loaded "$m" || return 1
		[ -z "$(cat "/sys/module/$m/taint")" ] ||
			{ echo "$m taints: $(cat "/sys/module/$m/taint")"; return 1; }
	done
	tainted=$(cat /proc/sys/kernel/tainted)
	[ $((tainted & 8192)) = 0 ] || { echo "tainted $tainted: an unsigned module"; return 1; }
}

ra_algorithm_is()
{
	[ "$(cat "$RA_KNOB")" = "$1" ] || { echo "algorithm: $(cat "$RA_KNOB")"; return 1; }
}

ra_algorithm_switches()
{
	echo stock >"$RA_KNOB" && ra_algorithm_is stock &&
		echo adaptive >"$RA_KNOB" && ra_algorithm_is adaptive
}

# Writing $1 to the knob fails, and it still reads $2.
ra_algorithm_refuses() { ! echo "$1" >"$RA_KNOB" 2>/dev/null && ra_algorithm_is "$2"; }

# The readahead counters the series adds are in /proc/vmstat.
ra_counters()
{
	for c in ra_cache_hit_pages ra_window_shrink ra_thrash ra_congestion_deferred; do
		grep -q "^$c " /proc/vmstat || { echo "no $c in /proc/vmstat"; return 1; }
	done
}

# Disk $1's queue/read_congested reads 0 or 1.
read_congested_readable()
{
	case "$(cat "/sys/block/$1/queue/read_congested")" in
	0 | 1) ;;
	*) echo "read_congested: $(cat "/sys/block/$1/queue/read_congested")"; return 1 ;;
	esac
}

RA_KNOB=/sys/kernel/debug/readahead/algorithm
disk=$(test_disk)
echo "TAP version 13"
check "the package's kernel runs" package_kernel
check "a disk to test: ${disk:-none}" test -b "/dev/$disk"
check "modprobe mq-cfq-iosched loads mq-cfq and blk-ioq" modprobe_cfq
check "mq-cfq schedules $disk" select_and_read "$disk" mq-cfq 0
check "selecting mq-as loads its module" loads_on_demand "$disk" mq-as mq_as_iosched
check "mq-as schedules $disk" select_and_read "$disk" mq-as 8
check "mq-as stays while $disk uses it" stays_in_use "$disk" mq_as_iosched mq-as
check "selecting bfq loads its module" loads_on_demand "$disk" bfq bfq
check "selecting kyber loads its module" loads_on_demand "$disk" kyber kyber_iosched
check "mq-cfq, mq-as and blk-ioq unload once no disk uses them" unload_series "$disk"
check "selecting mq-cfq loads it again" loads_on_demand "$disk" mq-cfq mq_cfq_iosched
check "mq-cfq schedules $disk again" select_and_read "$disk" mq-cfq 16
check "the series' modules load signed with a trusted key" signatures_trusted
check "the readahead algorithm is adaptive by default" ra_algorithm_is adaptive
check "the readahead algorithm switches to stock and back" ra_algorithm_switches
check "the readahead algorithm refuses a name it does not know" ra_algorithm_refuses bogus adaptive
check "the readahead counters are in /proc/vmstat" ra_counters
check "$disk's queue/read_congested reads 0 or 1" read_congested_readable "$disk"
echo "1..$n"
[ "$bad" = 0 ]
