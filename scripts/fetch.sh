#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fetch the pinned Debian kernel source package, check the tarball's sha256
# and unpack it once as the pristine tree under build/.
. "$(dirname "$0")/lib.sh"

DL=$BUILD/dl
TARBALL=$DL/$(basename "$LINUX_TARBALL")

fetch_tarball()
{
	local deb
	deb=$(apt_download "$LINUX_PKG" "$LINUX_PKG_VERSION" "$DL")
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "./$LINUX_TARBALL" >"$TARBALL.part" ||
		die "$deb does not contain $LINUX_TARBALL"
	rm -rf "$DL/tmp"
	mv "$TARBALL.part" "$TARBALL"
}

check_tarball()
{
	local sum
	sum=$(sha256sum <"$TARBALL" | cut -d' ' -f1)
	if [ "$sum" != "$LINUX_SHA256" ]; then
		rm -f "$TARBALL"
		die "checksum mismatch for $LINUX_PKG $LINUX_PKG_VERSION: got $sum, pinned $LINUX_SHA256"
	fi
}

unpack_pristine()
{
	say "unpacking pristine $LINUX_PKG $LINUX_PKG_VERSION"
	rm -rf "$PRISTINE.tmp" && mkdir -p "$PRISTINE.tmp"
	tar -xf "$TARBALL" -C "$PRISTINE.tmp" --strip-components=1
	chmod -R a-w "$PRISTINE.tmp"
	mv "$PRISTINE.tmp" "$PRISTINE"
}

[ -d "$PRISTINE" ] && exit 0
[ -f "$TARBALL" ] || fetch_tarball
check_tarball
unpack_pristine
