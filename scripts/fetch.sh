#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fetch the pinned Debian kernel source package, check the tarball's sha256
# and unpack it once as the pristine tree under build/. When the pin moves
# (make rebase, or a pull), the next run unpacks the new source.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DL=$BUILD/dl
TARBALL=$DL/$(basename "$LINUX_TARBALL")
# The package version the pristine tree was unpacked from.
PRISTINE_STAMP=$BUILD/pristine.version

fetch_tarball()
{
	local deb
	deb=$(apt_download "$LINUX_PKG" "$LINUX_PKG_VERSION" "$DL")
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "./$LINUX_TARBALL" >"$TARBALL.part" ||
		die "$deb does not contain $LINUX_TARBALL"
	rm -rf "$DL/tmp"
	mv "$TARBALL.part" "$TARBALL"
}

tarball_matches() { [ "$(file_sha256 "$TARBALL")" = "$LINUX_SHA256" ]; }

check_tarball()
{
	tarball_matches && return 0
	rm -f "$TARBALL"
	die "checksum mismatch for $LINUX_PKG $LINUX_PKG_VERSION: the mirror's tarball is not the pinned one ($LINUX_SHA256)"
}

# The version of the unpacked pristine tree: its stamp, or, for a tree
# unpacked before there were stamps, the kernel version its Makefile gives
# (the package's upstream part).
pristine_version()
{
	if [ -f "$PRISTINE_STAMP" ]; then
		cat "$PRISTINE_STAMP"
	else
		awk -F' = ' '$1 == "VERSION" { v = $2 } $1 == "PATCHLEVEL" { p = $2 }
			$1 == "SUBLEVEL" { s = $2; print v "." p "." s; exit }' "$PRISTINE/Makefile" 2>/dev/null ||
			echo "an unknown version"
	fi
}

pristine_is_pinned()
{
	local have
	have=$(pristine_version)
	[ "$have" = "$LINUX_PKG_VERSION" ] || [ "$have" = "${LINUX_PKG_VERSION%%-*}" ]
}

# The pin moved: drop the old source, the trees made from it and what was
# built from them (kernels, packages, kselftests, the initramfs holding
# them). The new sources keep their release dates, older than those
# builds, so make would take them for current. A pristine tree shared
# through a symlink is only unlinked.
drop_old_source()
{
	say "the pin moved to $LINUX_PKG_VERSION: dropping build/ trees and builds of $(pristine_version)"
	if [ -L "$PRISTINE" ]; then
		rm -f "$PRISTINE"
	else
		chmod -R u+w "$PRISTINE"
		rm -rf "$PRISTINE"
	fi
	chmod -R u+w "$TREE" 2>/dev/null || true
	rm -rf "$TREE" "$BUILD/obj" "$BUILD/obj-debug" "$BUILD/obj-distro" "$BUILD/export" \
		"$BUILD/kselftest" "$BUILD/kselftest-install" "$BUILD/kselftest-check" \
		"$BUILD/deb" "$BUILD/initramfs.d" \
		"$BUILD/initramfs.cpio.gz" "$BUILD/added-files.list" "$BUILD/series.applied" \
		"$BUILD/series-files.stamps" "$PRISTINE_STAMP"
}

unpack_pristine()
{
	say "unpacking pristine $LINUX_PKG $LINUX_PKG_VERSION"
	rm -rf "$PRISTINE.tmp" && mkdir -p "$PRISTINE.tmp"
	tar -xf "$TARBALL" -C "$PRISTINE.tmp" --strip-components=1
	chmod -R a-w "$PRISTINE.tmp"
	mv "$PRISTINE.tmp" "$PRISTINE"
	echo "$LINUX_PKG_VERSION" >"$PRISTINE_STAMP"
}

fetch_main()
{
	lock_build
	! { [ -d "$PRISTINE" ] && pristine_is_pinned; } || return 0
	# The new source first: where the mirror does not have it, the trees
	# and builds of the old one stay. A tarball of another version (the
	# pin moved) is fetched again.
	[ ! -f "$TARBALL" ] || tarball_matches || rm -f "$TARBALL"
	[ -f "$TARBALL" ] || fetch_tarball
	check_tarball
	# A dangling link (a shared tree that moved) counts as an old source.
	[ ! -e "$PRISTINE" ] && [ ! -L "$PRISTINE" ] || drop_old_source
	unpack_pristine
}

# Sourced (by the host scripts' unit tests), it only defines functions.
[ "${BASH_SOURCE[0]}" != "$0" ] || fetch_main "$@"
