#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the guest initramfs: Debian's busybox-static, fio, dbench, dmsetup,
# mke2fs, mkfs.xfs (with the shared libraries they need), coreutils' timeout for the
# kselftest runner, the kselftests of the series, the guest scripts and
# the benchmark jobs. Rebuilt only when one of these inputs changes.
. "$(dirname "$0")/../scripts/lib.sh"

OUT=$BUILD/initramfs.cpio.gz
STAGE=$BUILD/initramfs.d
KSFT=$BUILD/kselftest-install
HOST_BINS=(/bin/busybox /usr/bin/fio /usr/bin/dbench /usr/sbin/dmsetup /usr/bin/timeout
	/sbin/mke2fs /sbin/mkfs.xfs)
HOST_FILES=(/usr/share/dbench/client.txt /etc/mke2fs.conf)

build_kselftests()
{
	run_logged "$LOGS/kselftest.log" "building the kselftests" \
		make -C "$TREE/tools/testing/selftests" TARGETS=iosched \
		O="$BUILD/kselftest" KSFT_INSTALL_PATH="$KSFT" install
}

inputs()
{
	printf "%s\n" "${HOST_BINS[@]}" "${HOST_FILES[@]}" "$TOP/qemu/init" "$TOP/qemu/mkinitramfs.sh"
	find "$TOP/qemu/guest" "$TOP/bench/jobs" "$KSFT" -type f | sort
}

# Shared libraries of a dynamic executable (none for a static one).
libs_of()
{
	ldd "$1" 2>/dev/null | grep -o '/[^ ]*' || true
}

copy_into_stage()
{
	local dst=$STAGE.tmp$1
	mkdir -p "$(dirname "$dst")"
	cp -L "$1" "$dst"
}

stage()
{
	local bin lib f
	rm -rf "$STAGE.tmp"
	mkdir -p "$STAGE.tmp"/{bin,sbin,usr/bin,usr/sbin,usr/lib/iosched,proc,sys,dev,tmp,root,etc}
	for bin in "${HOST_BINS[@]}"; do
		[ -x "$bin" ] || die "$bin is missing (run scripts/deps.sh)"
		copy_into_stage "$bin"
		for lib in $(libs_of "$bin"); do
			copy_into_stage "$lib"
		done
	done
	ln -s busybox "$STAGE.tmp/bin/sh"
	# The name e2fsprogs gives it: busybox has a mke2fs of its own, without ext4.
	ln -s mke2fs "$STAGE.tmp/sbin/mkfs.ext4"
	for f in "${HOST_FILES[@]}"; do
		copy_into_stage "$f"
	done
	cp -a "$KSFT" "$STAGE.tmp/kselftest"
	cp "$TOP/qemu/init" "$STAGE.tmp/init"
	cp "$TOP"/qemu/guest/* "$STAGE.tmp/usr/lib/iosched/"
	cp -r "$TOP/bench/jobs" "$STAGE.tmp/usr/lib/iosched/jobs"
	echo "root:x:0:0:root:/root:/bin/sh" >"$STAGE.tmp/etc/passwd"
	echo "nobody:x:65534:65534:nobody:/:/bin/sh" >>"$STAGE.tmp/etc/passwd"
	rm -rf "$STAGE"
	mv "$STAGE.tmp" "$STAGE"
}

pack()
{
	(cd "$STAGE" && find . | sort | cpio -o -H newc -R 0:0 --quiet) |
		gzip -1 >"$OUT.tmp"
	mv "$OUT.tmp" "$OUT"
}

mkdir -p "$LOGS"
build_kselftests
mapfile -t files < <(inputs)
hash=$(hash_files "${files[@]}")
if [ -f "$OUT" ] && [ "$(cat "$OUT.hash" 2>/dev/null)" = "$hash" ]; then
	exit 0
fi
say "building the initramfs"
stage
pack
echo "$hash" >"$OUT.hash"
