#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot the kernel of make deb's trimmed package in QEMU with its own
# modules, as installing it would (the guest's initramfs, plus the
# package's /lib/modules), and run qemu/guest/deb-check.sh there on a
# virtio disk: the series' schedulers load as modules by name and on
# demand, schedule the disk, stay while it uses them and unload after;
# the modules' signatures are trusted; the readahead knobs are there.
# Run it alone to boot the last package again.
# TAP in build/logs/deb.tap; fails on any failed check, a kernel report
# (scripts/splats.sh) or a guest that did not finish.
. "$(dirname "$0")/lib.sh"
lock_build
. "$TOP/scripts/qemu-lib.sh"
. "$TOP/scripts/test-lib.sh"

DEB_DIR=$BUILD/deb/trimmed
STAGE=$DEB_DIR/boot
DISK_KIND=virtio
# What the guest's init needs first: the tools disk (virtio_blk, ext4)
# and the configfs mount.
FIRST_MODULES=virtio_blk,ext4,configfs
GUEST_MODULES=$TOP/configs/deb-guest.lsmod
BOOT_SECONDS=600
# depmod and modinfo, for a user whose PATH lacks the sbin directories.
PATH=$PATH:/sbin:/usr/sbin

# The kernel image package of the last trimmed build (scripts/deb.sh
# removes the older ones).
image_package()
{
	local found
	found=$(find "$DEB_DIR" -maxdepth 1 -name 'linux-image-*-iosched-qemu_*_amd64.deb' ! -name '*-dbg_*')
	[ -n "$found" ] || die "no trimmed kernel package in ${DEB_DIR#"$TOP"/}: run make deb first"
	[ "$(wc -l <<<"$found")" = 1 ] ||
		die "more than one trimmed kernel package in ${DEB_DIR#"$TOP"/}: run make deb again"
	echo "$found"
}

# Unpack package $1 into $STAGE/root, and its modules, uncompressed (the
# guest's busybox modprobe reads plain .ko) with their modules.dep, into
# $STAGE/modules.cpio.gz; RELEASE is the kernel's.
unpack_package()
{
	rm -rf "$STAGE"
	mkdir -p "$STAGE/modules/lib/modules"
	dpkg-deb -x "$1" "$STAGE/root"
	RELEASE=$(ls "$STAGE/root/lib/modules")
	[ "$(wc -w <<<"$RELEASE")" = 1 ] ||
		die "${1#"$TOP"/} has modules of '$RELEASE', not of one kernel"
	cp -a "$STAGE/root/lib/modules/$RELEASE" "$STAGE/modules/lib/modules/"
	find "$STAGE/modules" -name '*.ko.xz' -exec xz -d {} +
	[ -z "$(find "$STAGE/modules" -name '*.ko.*' -print -quit)" ] ||
		die "${1#"$TOP"/} has modules compressed other than with xz"
	depmod -b "$STAGE/modules" "$RELEASE"
	(cd "$STAGE/modules" && find lib | cpio -o -H newc -R 0:0 --quiet | gzip -1) \
		>"$STAGE/modules.cpio.gz"
}

# The names of configs/deb-guest.lsmod that have no module in $STAGE.
missing_modules()
{
	local have
	have=$(find "$STAGE/modules" -name '*.ko' -printf '%f\n' | sed 's/\.ko$//' | tr - _ | sort -u)
	sed 1d "$GUEST_MODULES" | awk '{ print $1 }' | sort -u | comm -23 - <(echo "$have")
}

# Die unless the kernel checks module signatures and the series' modules
# are signed.
check_signed()
{
	local m
	grep -qx 'CONFIG_MODULE_SIG=y' "$STAGE/root/boot/config-$RELEASE" ||
		die "the package's kernel does not check module signatures"
	for m in mq-cfq-iosched mq-as-iosched blk-ioq; do
		[ "$(modinfo -F sig_id "$(find "$STAGE/modules" -name "$m.ko")")" = PKCS#7 ] ||
			die "$m.ko in the package is not signed"
	done
}

package=$(image_package)
# The guest's initramfs (its kselftests come from the development tree),
# not its kernel.
"$TOP/scripts/prepare.sh"
"$TOP/qemu/mkinitramfs.sh"
say "unpacking ${package#"$TOP"/}"
unpack_package "$package"
missing=$(missing_modules)
[ -z "$missing" ] || die "the package lacks modules the guest needs: $(echo "$missing" | xargs)"
check_signed
# The kernel reads concatenated archives as one.
cat "$INITRAMFS" "$STAGE/modules.cpio.gz" >"$STAGE/initrd.cpio.gz"
INITRAMFS=$STAGE/initrd.cpio.gz
export KERNEL_IMAGE=$STAGE/root/boot/vmlinuz-$RELEASE

say "booting $RELEASE with its modules on a $DISK_KIND disk ($(accel))"
passed=0 failed=0 skipped=0
guest_verdict deb deb "$BOOT_SECONDS" "iosched.modules=$FIRST_MODULES" "$DISK_KIND"
count_tap "the package's kernel" "$LOGS/deb.tap"
say "$passed passed, $failed failed, $skipped skipped (TAP: ${LOGS#"$TOP"/}/deb.tap, console: ${LOGS#"$TOP"/}/deb.console)"
[ "$failed" = 0 ]
