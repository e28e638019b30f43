# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the guest init and the guest scripts.

# Value of kernel parameter iosched.$1.
param()
{
	tr ' ' '\n' </proc/cmdline | sed -n "s/^iosched\.$1=//p"
}

# Each disk of iosched.disks as "kind slot driver".
disk_specs()
{
	param disks | tr ',' '\n' | tr ':' ' '
}

# Block device behind PCI function 0000:00:<slot>, if any.
disk_at_slot()
{
	for d in /sys/block/*; do
		case "$(readlink -f "$d")" in
		*/0000:00:"$1"/*)
			echo "${d##*/}"
			return 0
			;;
		esac
	done
	return 1
}

# Mount the tools disk at PCI slot $1 read-only at /tools, once devtmpfs
# has its node (a moment after the disk appears).
mount_tools()
{
	tries=50
	while ! dev=$(disk_at_slot "$1") || [ ! -b "/dev/$dev" ]; do
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || return 1
		sleep 0.1
	done
	mount -t ext4 -o ro "/dev/$dev" /tools
}

# Drivers from block device $1 up to its PCI function, e.g.
# "sd<virtio_scsi<virtio-pci".
driver_chain()
{
	path=$(readlink -f "/sys/block/$1/device")
	chain=
	while [ "${#path}" -gt 4 ]; do
		if [ -L "$path/driver" ]; then
			chain=$chain${chain:+<}$(basename "$(readlink "$path/driver")")
		fi
		path=${path%/*}
	done
	echo "${chain:-none}"
}

print_disks()
{
	printf '%-10s %-8s %-26s %-6s %s\n' kind device drivers queues schedulers
	disk_specs | while read -r kind slot driver; do
		dev=$(disk_at_slot "$slot") || dev=missing
		queues=$(ls -d /sys/block/"$dev"/mq/* 2>/dev/null | wc -l)
		scheds=$(cat /sys/block/"$dev"/queue/scheduler 2>/dev/null)
		printf '%-10s %-8s %-26s %-6s %s\n' "$kind" "$dev" \
			"$(driver_chain "$dev")" "$queues" "$scheds"
	done
}

# The iosched kselftests to run, as "-t iosched:NAME" options: all of
# them, or only those in iosched.only_tests, less those in
# iosched.skip_tests (comma-separated names).
selected_tests()
{
	only=$(param only_tests | tr ',' ' ')
	skip=$(param skip_tests | tr ',' ' ')
	/kselftest/run_kselftest.sh -l | sed -n 's/^iosched://p' |
		while read -r t; do
			[ -z "$only" ] || echo " $only " | grep -q " $t " || continue
			echo " $skip " | grep -q " $t " && continue
			echo "-t iosched:$t"
		done
}

# Run the kselftests on each disk; TAP on stdout.
run_tests()
{
	export IOSCHED_EXPECT="$(param expect | tr ',' ' ')"
	export IOSCHED_VERIFY_SECONDS="$(param verify_seconds)"
	export IOSCHED_STORM_SECONDS="$(param storm_seconds)"
	export IOSCHED_SOAK_SECONDS="$(param soak_seconds)"
	export IOSCHED_HOTPLUG="$(param hotplug)"
	tests=$(selected_tests)
	limit=$(param test_timeout)
	if [ -z "$tests" ]; then
		printf 'TAP version 13\n1..1\nnot ok 1 no iosched kselftest selected\n'
		return
	fi
	disk_specs | while read -r kind slot driver; do
		if ! IOSCHED_DISK=$(disk_at_slot "$slot"); then
			printf 'TAP version 13\n1..1\nnot ok 1 %s disk at 0000:00:%s\n' "$kind" "$slot"
			continue
		fi
		echo "# disk $kind is $IOSCHED_DISK"
		IOSCHED_DRIVER=$driver IOSCHED_DISK=$IOSCHED_DISK \
			/kselftest/run_kselftest.sh ${limit:+-o "$limit"} $tests
	done
}

# On a kernel with kmemleak (make test DEBUG=1): scan twice, so that
# objects freed late are not reported, and print what is left on the
# console, where the host's check for kernel reports finds it.
report_leaks()
{
	leaks=/sys/kernel/debug/kmemleak
	[ -w "$leaks" ] || return 0
	echo scan >"$leaks"
	sleep 6
	echo scan >"$leaks"
	echo "iosched-guest: kmemleak scanned, $(grep -c '^unreferenced object' "$leaks") unreferenced objects"
	cat "$leaks"
}
