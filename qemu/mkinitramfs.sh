#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build what the guest runs from. The initramfs holds Debian's
# busybox-static, the kselftests of the series, the guest scripts and the
# benchmark jobs. The tools (fio, dbench, dmsetup, mke2fs, mkfs.xfs,
# coreutils' timeout for the kselftest runner, with the shared libraries
# they need: over 100 MB, most of it fio's) go on a read-only ext4 image
# that the guest mounts at /tools from a disk of its own; the initramfs
# links each of their paths there, and their pages are page cache like
# any other. Unpacked into the initramfs they took memory nothing could
# reclaim (109 MiB of a 256 MiB guest's, which could not even unpack them
# all). Rebuilt only when one of these inputs changes.
. "$(dirname "$0")/../scripts/lib.sh"
lock_build

OUT=$BUILD/initramfs.cpio.gz
STAGE=$BUILD/initramfs.d
TOOLS_IMG=$BUILD/tools.img
TOOLS_STAGE=$BUILD/tools.d
KSFT=$BUILD/kselftest-install
BUSYBOX=/bin/busybox
TOOL_BINS=(/usr/bin/fio /usr/bin/dbench /usr/sbin/dmsetup /usr/bin/timeout
	/sbin/mke2fs /sbin/mkfs.xfs)
TOOL_FILES=(/usr/share/dbench/client.txt /etc/mke2fs.conf)

build_kselftests()
{
	run_logged "$LOGS/kselftest.log" "building the kselftests" \
		make -C "$TREE/tools/testing/selftests" TARGETS=iosched \
		O="$BUILD/kselftest" KSFT_INSTALL_PATH="$KSFT" install
}

inputs()
{
	printf "%s\n" "$BUSYBOX" "${TOOL_BINS[@]}" "${TOOL_FILES[@]}" \
		"$TOP/qemu/init" "$TOP/qemu/mkinitramfs.sh"
	find "$TOP/qemu/guest" "$TOP/bench/jobs" "$KSFT" -type f | sort
}

# Shared libraries of a dynamic executable (none for a static one).
libs_of()
{
	ldd "$1" 2>/dev/null | grep -o '/[^ ]*' || true
}

# Host file $1 onto the tools image, and its path in the initramfs a link
# to where the guest mounts the image.
copy_tool()
{
	mkdir -p "$(dirname "$TOOLS_STAGE.tmp$1")" "$(dirname "$STAGE.tmp$1")"
	cp -L "$1" "$TOOLS_STAGE.tmp$1"
	ln -sfn "/tools$1" "$STAGE.tmp$1"
}

stage()
{
	local bin f
	rm -rf "$STAGE.tmp" "$TOOLS_STAGE.tmp"
	mkdir -p "$STAGE.tmp"/{bin,sbin,usr/bin,usr/sbin,usr/lib/iosched,proc,sys,dev,tmp,root,etc,tools}
	[ -x "$BUSYBOX" ] || die "$BUSYBOX is missing (run scripts/deps.sh)"
	cp "$BUSYBOX" "$STAGE.tmp/bin/busybox"
	for bin in "${TOOL_BINS[@]}"; do
		[ -x "$bin" ] || die "$bin is missing (run scripts/deps.sh)"
		for f in "$bin" $(libs_of "$bin"); do
			copy_tool "$f"
		done
	done
	ln -s busybox "$STAGE.tmp/bin/sh"
	# The name e2fsprogs gives it: busybox has a mke2fs of its own, without ext4.
	ln -s mke2fs "$STAGE.tmp/sbin/mkfs.ext4"
	for f in "${TOOL_FILES[@]}"; do
		copy_tool "$f"
	done
	cp -a "$KSFT" "$STAGE.tmp/kselftest"
	cp "$TOP/qemu/init" "$STAGE.tmp/init"
	cp "$TOP"/qemu/guest/* "$STAGE.tmp/usr/lib/iosched/"
	cp -r "$TOP/bench/jobs" "$STAGE.tmp/usr/lib/iosched/jobs"
	echo "root:x:0:0:root:/root:/bin/sh" >"$STAGE.tmp/etc/passwd"
	echo "nobody:x:65534:65534:nobody:/:/bin/sh" >>"$STAGE.tmp/etc/passwd"
	rm -rf "$STAGE" "$TOOLS_STAGE"
	mv "$STAGE.tmp" "$STAGE"
	mv "$TOOLS_STAGE.tmp" "$TOOLS_STAGE"
}

pack()
{
	(cd "$STAGE" && find . | sort | cpio -o -H newc -R 0:0 --quiet) |
		gzip -1 >"$OUT.tmp"
	mv "$OUT.tmp" "$OUT"
}

# The tools image: ext4 without a journal (the guest mounts it read-only),
# a quarter larger than its files.
pack_tools()
{
	local kib
	kib=$(du -sk --apparent-size "$TOOLS_STAGE" | cut -f1)
	rm -f "$TOOLS_IMG.tmp"
	truncate -s "$((kib + kib / 4 + 4096))K" "$TOOLS_IMG.tmp"
	mke2fs -q -F -t ext4 -O ^has_journal -L iosched-tools -E root_owner=0:0 \
		-d "$TOOLS_STAGE" "$TOOLS_IMG.tmp" ||
		die "mke2fs could not make $TOOLS_IMG from $TOOLS_STAGE"
	mv "$TOOLS_IMG.tmp" "$TOOLS_IMG"
}

mkdir -p "$LOGS"
build_kselftests
mapfile -t files < <(inputs)
hash=$(hash_files "${files[@]}")
if [ -f "$OUT" ] && [ -f "$TOOLS_IMG" ] &&
	[ "$(cat "$OUT.hash" 2>/dev/null)" = "$hash" ]; then
	exit 0
fi
say "building the initramfs"
stage
pack_tools
pack
echo "$hash" >"$OUT.hash"
