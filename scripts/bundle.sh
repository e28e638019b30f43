#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make bundle": the guest kernel, the debug kernel, the initramfs and the
# tools image in build/bundle.tar, which is what make test's guest stages
# boot. A CI engine's build job makes it once; each stage job runs "make
# test STAGES=... BUNDLE=bundle.tar", which unpacks it and builds no
# kernel. The bundle is named by the checkout it is built from
# (checkout_id, in bundle.id).
. "$(dirname "$0")/lib.sh"
lock_build
. "$TOP/scripts/qemu-lib.sh"

unset BUNDLE
id=$(checkout_id)
[ -n "$id" ] || die "make bundle needs a git checkout of its own: a bundle is named by its commit"
for debug in 0 1; do
	(
		export DEBUG=$debug
		prepare_guest
	)
done
[ "$(checkout_id)" = "$id" ] ||
	die "the checkout changed while the kernels were built: run make bundle again"
echo "$id" >"$BUILD/bundle.id"
mapfile -t files < <(guest_files)
tar -C "$BUILD" -cf "$BUILD/bundle.tar.tmp" bundle.id "${files[@]}"
mv "$BUILD/bundle.tar.tmp" "$BUILD/bundle.tar"
say "build/bundle.tar: the kernels of $id, $(du -h "$BUILD/bundle.tar" | cut -f1)"
