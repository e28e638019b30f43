#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make bundle": the guest kernel, the debug kernel, the initramfs and the
# tools image in build/bundle.tar, which is what make test's guest stages
# boot. A CI engine's build job makes it once; each stage job runs "make
# test STAGES=... BUNDLE=bundle.tar", which unpacks it and builds no kernel.
. "$(dirname "$0")/lib.sh"
lock_build
. "$TOP/scripts/qemu-lib.sh"

prepare_guest
(
	export DEBUG=1
	prepare_guest
)
mapfile -t files < <(guest_files)
tar -C "$BUILD" -cf "$BUILD/bundle.tar.tmp" "${files[@]}"
mv "$BUILD/bundle.tar.tmp" "$BUILD/bundle.tar"
say "build/bundle.tar: the kernels of $(series_id), $(du -h "$BUILD/bundle.tar" | cut -f1)"
