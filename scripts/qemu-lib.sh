# SPDX-License-Identifier: GPL-2.0
# Booting guests with disks of the QEMU matrix (qemu/disks.conf).
# Source after lib.sh.
# shellcheck shell=bash

DISKS_CONF=$TOP/qemu/disks.conf
MEM=${MEM:-1024}
# The guest's CPUs: 2, as many as this host and CI's have; the kselftest
# of readers on different CPUs boots 4 (make test's machine stage).
GUEST_CPUS=${GUEST_CPUS:-2}
case $GUEST_CPUS in
[1-8]) ;;
*) die "GUEST_CPUS takes 1 to 8 CPUs, not '$GUEST_CPUS'" ;;
esac
DISK_SIZE=${DISK_SIZE:-1G}
QEMU_EXTRA=()
INITRAMFS=$BUILD/initramfs.cpio.gz
# The tools the guest runs (qemu/mkinitramfs.sh), on a read-only disk at a
# PCI slot no disk kind of qemu/disks.conf takes.
TOOLS_IMG=$BUILD/tools.img
TOOLS_SLOT=1e.0

# Host packages, kernel and initramfs, once per top-level command: a
# script run by another (the bench smoke in make test) inherits GUEST_READY.
# With BUNDLE (make bundle's tar) the kernel and initramfs come from it.
prepare_guest()
{
	[ "${GUEST_READY:-}" = "$(obj_dir)" ] && return 0
	"$TOP/scripts/deps.sh"
	if [ -n "${BUNDLE:-}" ]; then
		unpack_bundle "$BUNDLE"
	else
		"$TOP/scripts/build.sh"
		"$TOP/qemu/mkinitramfs.sh"
	fi
	GUEST_READY=$(obj_dir)
	export GUEST_READY
}

# What the guests boot from, relative to $BUILD: the guest kernel and the
# debug kernel (image, the revision it was built from, configuration and
# release), the initramfs and the tools image. make bundle packs them.
guest_files()
{
	local obj
	for obj in obj obj-debug; do
		printf '%s\n' "$obj/arch/x86/boot/bzImage" "$obj/arch/x86/boot/bzImage.series" \
			"$obj/.config" "$obj/include/config/kernel.release"
	done
	printf '%s\n' initramfs.cpio.gz initramfs.cpio.gz.hash tools.img
}

# Unpack bundle $1 into $BUILD, if it holds the kernels of this checkout
# (checkout_id, recorded by make bundle in bundle.id): stage jobs of a CI
# engine then build no kernel.
unpack_bundle()
{
	local bundle=$1 built here files obj
	[ -f "$bundle" ] || die "BUNDLE=$bundle: no such file (make bundle writes build/bundle.tar)"
	built=$(tar -xOf "$bundle" --occurrence=1 bundle.id 2>/dev/null) ||
		die "BUNDLE=$bundle: not a bundle of make bundle"
	here=$(checkout_id)
	[ -n "$here" ] && [ "$built" = "$here" ] ||
		die "BUNDLE=$bundle holds the kernels of $built; this checkout is ${here:-not a git checkout of its own}"
	mkdir -p "$BUILD"
	mapfile -t files < <(guest_files)
	tar -C "$BUILD" --no-same-owner -xf "$bundle" "${files[@]}"
	# The configurations are new to make (kbuild keeps an older auto.conf
	# while .config is not newer) and to configure, which redoes its own.
	for obj in obj obj-debug; do
		touch "$BUILD/$obj/.config"
		rm -f "$BUILD/$obj/.config.digest"
	done
}

disk_kinds()
{
	awk '!/^#/ && NF { print $1 }' "$DISKS_CONF"
}

# Field $2 (2 = PCI slot, 3 = driver, 4 = rotational, 5 = QEMU devices)
# of disk kind $1.
disk_field()
{
	awk -v kind="$1" -v field="$2" '
		$1 == kind {
			if (field < 5) { print $field; exit }
			for (i = 5; i <= NF; i++) printf "%s%s", $i, (i < NF ? " " : "\n")
			exit
		}' "$DISKS_CONF"
}

# Die unless every argument names a disk kind.
check_disk_kinds()
{
	local kind
	for kind in "$@"; do
		disk_kinds | grep -qx -- "$kind" ||
			die "unknown disk kind '$kind' (valid: $(disk_kinds | paste -sd ' '))"
	done
}

# The schedulers this kernel was built with, as the guest should list them.
built_schedulers()
{
	local config=$(obj_dir)/.config list=none
	grep -q '^CONFIG_MQ_IOSCHED_DEADLINE=y' "$config" && list+=,mq-deadline
	grep -q '^CONFIG_MQ_IOSCHED_KYBER=y' "$config" && list+=,kyber
	grep -q '^CONFIG_IOSCHED_BFQ=y' "$config" && list+=,bfq
	grep -q '^CONFIG_MQ_IOSCHED_CFQ=y' "$config" && list+=,mq-cfq
	grep -q '^CONFIG_MQ_IOSCHED_AS=y' "$config" && list+=,mq-as
	echo "$list"
}

disk_image()
{
	local img=$BUILD/disks/$1-$DISK_SIZE.img
	mkdir -p "$BUILD/disks"
	[ -f "$img" ] || truncate -s "$DISK_SIZE" "$img"
	echo "$img"
}

# QEMU arguments for one disk of kind $1: a sparse image file, or the
# disk model's NBD socket when one runs for this kind (start_disk_model).
disk_qemu_args()
{
	local kind=$1 id slot devices backing
	id=d${kind//-/}
	slot=$(disk_field "$kind" 2)
	devices=$(disk_field "$kind" 5)
	devices=${devices//\{id\}/$id}
	devices=${devices//\{slot\}/0x${slot%.0}}
	devices=${devices//\{topology\}/$(disk_topology_props "$kind")}
	devices=${devices//\{rotation\}/$(disk_rotation_props "$kind")}
	if [ -S "$(model_socket "$kind")" ]; then
		backing="file.driver=nbd,file.server.type=unix,file.server.path=$(model_socket "$kind")"
	else
		backing="file=$(disk_image "$kind"),aio=threads"
	fi
	echo "-drive $backing,format=raw,if=none,id=$id $devices"
}

model_socket()
{
	echo "$BUILD/run/$1.sock"
}

MODEL_PLUGIN=$BUILD/diskmodel/nbdkit-diskmodel-plugin.so

model_profiles()
{
	nbdkit "$MODEL_PLUGIN" --dump-plugin |
		sed -n 's/^diskmodel_profile_\([^=]*\)=.*/\1/p'
}

# "CHUNK STRIPE" in bytes for a striped profile $1, nothing otherwise.
model_topology()
{
	nbdkit "$MODEL_PLUGIN" --dump-plugin |
		sed -n "s/^diskmodel_topology_$1=//p"
}

model_topology_file()
{
	echo "$BUILD/run/$1.topology"
}

# The QEMU properties that report a RAID layout for disk kind $1, as a
# RAID controller would: that of the striped profile the model serves it
# with, else DISK_TOPOLOGY ("CHUNK STRIPE" in bytes) if set. Whether the
# guest sees them depends on the transport (SCSI and virtio do, ATA can't).
disk_topology_props()
{
	local chunk stripe file
	file=$(model_topology_file "$1")
	if [ -S "$(model_socket "$1")" ]; then
		[ -s "$file" ] || return 0
		read -r chunk stripe <"$file"
	else
		[ -n "${DISK_TOPOLOGY:-}" ] || return 0
		read -r chunk stripe <<<"$DISK_TOPOLOGY"
	fi
	echo ",min_io_size=$chunk,opt_io_size=$stripe"
}

# 1 if model profile $1 is rotational, 0 if it is flash or raw.
model_rotational()
{
	nbdkit "$MODEL_PLUGIN" --dump-plugin |
		sed -n "s/^diskmodel_rotational_$1=//p"
}

model_rotational_file()
{
	echo "$BUILD/run/$1.rotational"
}

# The rotation rate QEMU reports for disk kind $1 when the disk model
# serves it: 1 (solid state) for a flash profile, else 7200 rpm. Without
# the model, none: the device leaves it unreported (rotational).
disk_rotation_props()
{
	local file
	file=$(model_rotational_file "$1")
	[ -S "$(model_socket "$1")" ] && [ -s "$file" ] || return 0
	if [ "$(cat "$file")" = 1 ]; then
		echo ",rotation_rate=7200"
	else
		echo ",rotation_rate=1"
	fi
}

# Whether disk kind $1 cannot tell the guest what model profile $2 is (a
# device whose driver always reports one nature cannot carry the other):
# if so, print why and succeed.
rotational_conflict()
{
	local kind=$1 profile=$2 fixed want
	fixed=$(disk_field "$kind" 4)
	want=$(model_rotational "$profile")
	[ "$fixed" = rate ] || [ "$fixed" = "$want" ] && return 1
	echo "disk kind $kind always reports rotational=$fixed to the guest, but profile $profile is rotational=$want; use a kind whose rotational column in qemu/disks.conf is rate"
}

build_disk_model()
{
	run_logged "$LOGS/diskmodel-build.log" "building the disk model" \
		make -C "$TOP/qemu/diskmodel" O="$BUILD/diskmodel"
}

# nbdkit's parent returns before its daemon has written pidfile $1: wait
# (10 s at most) for a whole line in it.
wait_for_pidfile()
{
	local n
	for ((n = 0; n < 100; n++)); do
		# $(...) drops the newline that ends a whole line
		[ -s "$1" ] && [ -z "$(tail -c 1 "$1")" ] && return 0
		sleep 0.1
	done
	return 1
}

# Serve disk kind $1's image through the disk model with profile $2.
start_disk_model()
{
	local kind=$1 profile=$2 sock pid why
	sock=$(model_socket "$kind")
	pid=$BUILD/run/$kind.pid
	mkdir -p "$BUILD/run"
	stop_disk_model "$kind"
	if why=$(rotational_conflict "$kind" "$profile"); then
		die "$why"
	fi
	rm -f "$(model_stats_file "$kind")"
	without_build_lock nbdkit --unix "$sock" --pidfile "$pid" \
		"$MODEL_PLUGIN" \
		file="$(disk_image "$kind")" profile="$profile" \
		stats="$(model_stats_file "$kind")" \
		>"$LOGS/diskmodel-$kind.log" 2>&1 ||
		die "disk model for $kind ($profile) did not start: $(tail -n 1 "$LOGS/diskmodel-$kind.log")"
	wait_for_pidfile "$pid" ||
		die "disk model for $kind wrote no pidfile $pid in 10 s"
	[ -S "$sock" ] || die "disk model for $kind did not create $sock"
	model_topology "$profile" >"$(model_topology_file "$kind")"
	model_rotational "$profile" >"$(model_rotational_file "$kind")"
}

# Fail if the model serving kind $1 is gone (it crashed under the guest);
# the caller decides what that does to its run.
check_disk_model()
{
	local pid=$BUILD/run/$1.pid
	[ -f "$pid" ] && kill -0 "$(cat "$pid")" 2>/dev/null && return 0
	echo "disk model for $1 crashed (log: $LOGS/diskmodel-$1.log)" >&2
	return 1
}

# How late the model serving kind $1 sent its replies ("replies N", "late
# N", "mean_late_us N", "worst_late_us N"), written when it stops.
model_stats_file()
{
	echo "$BUILD/run/$1.stats"
}

# Stop the model serving kind $1, and wait (10 s at most) for it to exit
# and so write its stats.
stop_disk_model()
{
	local pid=$BUILD/run/$1.pid n
	if [ -f "$pid" ]; then
		kill "$(cat "$pid")" 2>/dev/null || true
		for ((n = 0; n < 100; n++)); do
			kill -0 "$(cat "$pid")" 2>/dev/null || break
			sleep 0.1
		done
		rm -f "$pid"
	fi
	rm -f "$(model_socket "$1")" "$(model_topology_file "$1")" \
		"$(model_rotational_file "$1")"
}

# "kind:slot:driver,..." for the guest's iosched.disks parameter.
disk_specs_param()
{
	local kind out=
	for kind in "$@"; do
		out+=${out:+,}$kind:$(disk_field "$kind" 2):$(disk_field "$kind" 3)
	done
	echo "$out"
}

# The kernel the guests boot: KERNEL_IMAGE if set (another build, to
# compare), else the one built in $(obj_dir).
kernel_image()
{
	echo "${KERNEL_IMAGE:-$(obj_dir)/arch/x86/boot/bzImage}"
}

# Boot once under KVM with a short timeout; succeed if the guest finishes.
kvm_works()
{
	local log=$LOGS/kvm-probe.console
	[ -r /dev/kvm ] && [ -w /dev/kvm ] || return 1
	mkdir -p "$LOGS"
	timeout 30 qemu-system-x86_64 -machine pc -accel kvm -cpu host -smp 1 \
		-m 256 -nodefaults -no-reboot -display none \
		-kernel "$(kernel_image)" -initrd "$INITRAMFS" \
		-append "console=ttyS0 panic=-1 kunit.enable=0 iosched.mode=kunit" \
		-serial "file:$log" >/dev/null 2>&1 || true
	grep -q 'iosched-guest: done' "$log"
}

# Pick the accelerator once per machine: ACCEL=kvm|tcg forces one.
accel()
{
	local cache=$BUILD/accel
	case "${ACCEL:-auto}" in
	kvm)
		[ -w /dev/kvm ] || die "ACCEL=kvm but /dev/kvm is missing or not writable"
		echo kvm
		return
		;;
	tcg)
		echo tcg
		return
		;;
	auto) ;;
	*) die "unknown ACCEL '$ACCEL' (valid: auto kvm tcg)" ;;
	esac
	if [ ! -f "$cache" ]; then
		if kvm_works; then
			echo kvm >"$cache"
		else
			echo tcg >"$cache"
		fi
	fi
	if [ "$(cat "$cache")" = tcg ] && [ ! -f "$cache.warned" ]; then
		warn "KVM is not usable here (see $LOGS/kvm-probe.console); guests run under TCG"
		touch "$cache.warned"
	fi
	cat "$cache"
}

accel_args()
{
	if [ "$(accel)" = kvm ]; then
		echo "-accel kvm -cpu host"
	else
		echo "-accel tcg,thread=multi -cpu max"
	fi
}

# Kernel parameters of the debug kernel: under TCG its KASAN and
# kmemleak hooks make the ACPI interpreter take over 20 s for a PCI
# rescan (nvme probe evaluating _PRT), which the soft-lockup watchdog
# reports at its default 10 s threshold; 60 s keeps real lockups caught.
# no5lvl: "-cpu max" offers 5-level paging, and while identify_cpu()
# refills boot_cpu_data's feature bits, pgtable_l5_enabled() reads false;
# an interrupt in that window makes KASAN report the 5-level address of
# its irq_desc as a wild access (seen once at boot, before any code of
# the series runs).
debug_append()
{
	[ "${DEBUG:-0}" = 1 ] && echo "watchdog_thresh=60 no5lvl"
	true
}

# QEMU options of the tools disk.
tools_qemu_args()
{
	echo "-drive file=$TOOLS_IMG,if=none,id=tools,format=raw,readonly=on" \
		"-device virtio-blk-pci,drive=tools,serial=iosched-tools,addr=0x${TOOLS_SLOT%.0}"
}

# run_qemu MODE "EXTRA-APPEND" SERIAL0 SERIAL1 KIND...
# Boot the guest with the disks named; QEMU_PREFIX (an array) wraps it,
# e.g. in a timeout.
run_qemu()
{
	local mode=$1 extra=$2 serial0=$3 serial1=$4 kind disks=()
	shift 4
	for kind in "$@"; do
		# shellcheck disable=SC2207
		disks+=($(disk_qemu_args "$kind"))
	done
	# An oops panics, and the panic ends QEMU (-no-reboot): a crashed
	# guest fails its stage at once instead of hanging to its timeout.
	# shellcheck disable=SC2046
	"${QEMU_PREFIX[@]}" qemu-system-x86_64 -machine pc $(accel_args) \
		-smp "$GUEST_CPUS" -m "$MEM" -nodefaults -no-reboot -display none \
		-kernel "$(kernel_image)" -initrd "$INITRAMFS" \
		-append "console=ttyS0 panic=-1 oops=panic iosched.mode=$mode iosched.tools=$TOOLS_SLOT iosched.disks=$(disk_specs_param "$@") iosched.expect=$(built_schedulers) $(debug_append) $extra" \
		-serial "$serial0" -serial "$serial1" $(tools_qemu_args) "${disks[@]}" "${QEMU_EXTRA[@]}"
}

# Arguments of qemu/hotplug-relay.py for disk kinds $@: slot, -drive and
# -device options of each disk that is a PCI function of its own.
hotplug_disks()
{
	local kind args
	for kind in "$@"; do
		read -ra args <<<"$(disk_qemu_args "$kind")"
		[ ${#args[@]} = 4 ] && echo "$(disk_field "$kind" 2) ${args[1]} ${args[3]}"
	done
	true
}

# boot_guest NAME MODE TIMEOUT "EXTRA-APPEND" KIND...
# Console to $LOGS/NAME.console, TAP to $LOGS/NAME.tap, the hotplug
# relay's log to $LOGS/NAME.hotplug. Fails if the guest did not print its
# closing line (hang, panic, timeout), showing the tail.
boot_guest()
{
	local name=$1 mode=$2 limit=$3 extra=$4 status=0 relay relay_args
	shift 4
	local console=$LOGS/$name.console tap=$LOGS/$name.tap
	local qmp=$BUILD/run/$name.qmp
	mkdir -p "$LOGS" "$BUILD/run"
	: >"$console"
	: >"$tap"
	rm -f "$qmp"
	read -ra relay_args <<<"$(hotplug_disks "$@" | tr '\n' ' ')"
	"$TOP/qemu/hotplug-relay.py" "$console" "$qmp" "${relay_args[@]}" \
		>"$LOGS/$name.hotplug" 2>&1 &
	relay=$!
	QEMU_PREFIX=(timeout -k 10 "$limit")
	local QEMU_EXTRA=("${QEMU_EXTRA[@]}" -qmp "unix:$qmp,server=on,wait=off")
	run_qemu "$mode" "$extra iosched.hotplug=qmp" "file:$console" "file:$tap" "$@" \
		>"$LOGS/$name.qemu" 2>&1 || status=$?
	# It ends with QEMU's QMP socket; this covers a QEMU that never started.
	kill "$relay" 2>/dev/null || true
	wait "$relay" 2>/dev/null || true
	grep -q 'iosched-guest: done' "$console" && return 0
	if [ "$status" = 124 ]; then
		echo "guest $name hung: no result after $limit s; last console lines:" >&2
	else
		echo "guest $name did not finish (qemu exit $status); last lines:" >&2
	fi
	tail -n 15 "$console" "$LOGS/$name.qemu" >&2
	return 1
}
