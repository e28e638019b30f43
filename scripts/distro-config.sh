#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Compare the guest kernel's configuration with Debian's amd64 one (TAP on
# stdout): every I/O, memory and scheduling option of configs/distro-check
# must be as in Debian, or have its reason for differing written there.
# Configures the guest tree if needed; builds nothing.
. "$(dirname "$0")/lib.sh"
lock_build

# shellcheck source=scripts/kbuild-lib.sh
. "$TOP/scripts/kbuild-lib.sh"

DL=$BUILD/dl
DEBIAN_CONFIG=$DL/debian-$(basename "$DEBIAN_CONFIG_FILE" .xz)

fetch_debian_config()
{
	local deb sum
	deb=$(apt_download "$DEBIAN_CONFIG_PKG" "$DEBIAN_CONFIG_PKG_VERSION" "$DL")
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "./$DEBIAN_CONFIG_FILE" >"$DEBIAN_CONFIG.xz" ||
		die "$deb does not contain $DEBIAN_CONFIG_FILE"
	rm -rf "$DL/tmp"
	sum=$(sha256sum <"$DEBIAN_CONFIG.xz" | cut -d' ' -f1)
	[ "$sum" = "$DEBIAN_CONFIG_SHA256" ] ||
		die "checksum mismatch for $DEBIAN_CONFIG_FILE of $DEBIAN_CONFIG_PKG $DEBIAN_CONFIG_PKG_VERSION: got $sum, pinned $DEBIAN_CONFIG_SHA256"
	xz -dc "$DEBIAN_CONFIG.xz" >"$DEBIAN_CONFIG.part"
	mv "$DEBIAN_CONFIG.part" "$DEBIAN_CONFIG"
	rm -f "$DEBIAN_CONFIG.xz"
}

# Its own object directory: the guests of make test read obj/.config
# meanwhile, which a configure from a bundle's .config would rewrite.
export DEBUG=0
OBJ=$BUILD/obj-distro
guest_fragments
"$TOP/scripts/prepare.sh"
configure
[ -f "$DEBIAN_CONFIG" ] || fetch_debian_config
python3 "$TOP/scripts/distro-config.py" "$TREE" "$OBJ/.config" "$DEBIAN_CONFIG" \
	"$TOP/configs/distro-check"
