#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make rebase: move the pin (scripts/base-kernel.env) to the newest
# $LINUX_PKG the package mirror offers. The series is applied to that
# source patch by patch in build/rebase/ and each patch reported as clean,
# offset (its hunks moved), fuzzed (context lines differ) or rejected;
# offset and fuzzed ones are refreshed, so that the next version starts
# from exact context. If one is rejected nothing in the repository
# changes. Debian's pins (its configuration, its kernel's Module.symvers)
# follow the source's. The next build unpacks the new source
# (scripts/fetch.sh). Not part of make test: the archive changes under it.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

REBASE=$BUILD/rebase
NEW_PRISTINE=$REBASE/linux-pristine
NEW_TREE=$REBASE/linux
NEW_PATCHES=$REBASE/patches
REPORT=$REBASE/report.txt

PIN_FILE=$TOP/scripts/base-kernel.env

# Refresh the package lists (as root; otherwise they stay as they are).
refresh_package_lists()
{
	if [ "$(id -u)" = 0 ]; then
		apt-get update >"$REBASE/update.log" 2>&1 ||
			die "apt-get update failed (log: ${REBASE#"$TOP"/}/update.log)"
	fi
}

# The newest version of package $1 in the package lists.
newest_in_mirror()
{
	apt-cache madison "$1" | awk '{ print $3 }' | sort -V | tail -n 1
}

# sha256 of file $3 of Debian package $1 version $2.
package_file_sha256()
{
	local dest=$REBASE/dl/pinned-file
	extract_package_file "$1" "$2" "$3" "$dest" || exit 1
	file_sha256 "$dest.part"
	rm -f "$dest.part"
}

# Set each NAME=VALUE argument in the pin file: all of them, or none.
set_pins()
{
	local pin
	for pin; do
		grep -q "^${pin%%=*}=" "$PIN_FILE" || die "$PIN_FILE has no ${pin%%=*}"
	done
	for pin; do
		sed -i "s|^${pin%%=*}=.*|$pin|" "$PIN_FILE"
	done
}

# The NAME=VALUE pins that move Debian's pins to follow the source at
# version $1, one per line (none if they follow it already); what moves
# is said on stderr. Module.symvers comes from the headers package of
# that version's kernel ABI, named as the pinned one with the new
# upstream version in it; the configuration is the newest the mirror
# has, as the archive keeps only that one. Run in a command substitution,
# without errexit: a failure must exit explicitly.
debian_pins()
{
	local version=$1 old=${DEBIAN_SYMVERS_PKG_VERSION%%-*} new=${1%%-*}
	local pkg file sum config
	if [ "$DEBIAN_SYMVERS_PKG_VERSION" != "$version" ]; then
		pkg=${DEBIAN_SYMVERS_PKG//"$old"/"$new"}
		file=${DEBIAN_SYMVERS_FILE//"$old"/"$new"}
		sum=$(package_file_sha256 "$pkg" "$version" "$file") || exit 1
		printf '%s\n' "DEBIAN_SYMVERS_PKG=$pkg" "DEBIAN_SYMVERS_PKG_VERSION=$version" \
			"DEBIAN_SYMVERS_FILE=$file" "DEBIAN_SYMVERS_SHA256=$sum"
		say "Module.symvers: $pkg $version (was $DEBIAN_SYMVERS_PKG $DEBIAN_SYMVERS_PKG_VERSION)"
	fi
	config=$(newest_in_mirror "$DEBIAN_CONFIG_PKG") || exit 1
	[ -n "$config" ] || die "the package mirror offers no $DEBIAN_CONFIG_PKG"
	if dpkg --compare-versions "$config" gt "$DEBIAN_CONFIG_PKG_VERSION"; then
		sum=$(package_file_sha256 "$DEBIAN_CONFIG_PKG" "$config" "$DEBIAN_CONFIG_FILE") || exit 1
		printf '%s\n' "DEBIAN_CONFIG_PKG_VERSION=$config" "DEBIAN_CONFIG_SHA256=$sum"
		say "configuration: $DEBIAN_CONFIG_PKG $config (was $DEBIAN_CONFIG_PKG_VERSION)"
	fi
}

# Debian's pins, resolved before anything in the repository changes.
resolve_debian_pins()
{
	local version=$1 pins
	pins=$(debian_pins "$version")
	mapfile -t DEBIAN_PINS <<<"$pins"
	[ -n "$pins" ] || DEBIAN_PINS=()
}

# Unpack the source tarball of $LINUX_PKG version $1 into NEW_PRISTINE
# (once: a re-run after a reject reuses it); print the tarball's sha256.
unpack_version()
{
	local version=$1 deb tarball=$REBASE/linux-source.tar.xz stamp=$REBASE/pristine.version
	if [ "$(head -n 1 "$stamp" 2>/dev/null)" = "$version" ] && [ -d "$NEW_PRISTINE" ]; then
		sed -n 2p "$stamp"
		return 0
	fi
	rm -f "$stamp"
	deb=$(apt_download "$LINUX_PKG" "$version" "$REBASE/dl")
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "./$LINUX_TARBALL" >"$tarball" ||
		die "$deb does not contain $LINUX_TARBALL"
	chmod -R u+w "$NEW_PRISTINE" "$NEW_TREE" 2>/dev/null || true
	rm -rf "$NEW_PRISTINE" "$NEW_TREE" "$REBASE/dl/tmp"
	mkdir -p "$NEW_PRISTINE"
	tar -xf "$tarball" -C "$NEW_PRISTINE" --strip-components=1
	chmod -R a-w "$NEW_PRISTINE"
	printf '%s\n%s\n' "$version" "$(file_sha256 "$tarball")" >"$stamp"
	rm -f "$tarball"
	sed -n 2p "$stamp"
}

# NEW_TREE: the new source with the files the series adds as they are
# before any patch (a file later patches change, without their changes).
create_new_tree()
{
	local src dst changes changers
	[ ! -d "$NEW_TREE" ] || find "$NEW_TREE" -type d -exec chmod u+w {} +
	rm -rf "$NEW_TREE" "$NEW_PATCHES"
	# Hard links, as export.sh's check tree: quilt replaces the files it
	# patches rather than write into them, so the new source stays as it is.
	# Its files stay read-only; its directories take new files.
	cp -al "$NEW_PRISTINE" "$NEW_TREE"
	find "$NEW_TREE" -type d -exec chmod u+w {} +
	cp -a "$TOP/patches" "$NEW_PATCHES"
	changes=$(series_changes)
	while read -r src dst; do
		[ ! -e "$NEW_PRISTINE/$dst" ] ||
			die "$LINUX_PKG $1 has $dst, which the series adds ($src)"
		mkdir -p "$(dirname "$NEW_TREE/$dst")"
		mapfile -t changers < <(patches_changing "$dst" "$changes")
		added_base "$src" "$dst" "$NEW_TREE/$dst" "${changers[@]}"
	done < <(added_files)
}

# How quilt's output $1 of one push says the patch went on, from patch's
# lines about its hunks (not file names that may say "offset").
push_kind()
{
	if grep -qE '^Hunk #[0-9]+ succeeded at [0-9]+ with fuzz' <<<"$1"; then
		echo fuzzed
	elif grep -qE '^Hunk #[0-9]+ succeeded at [0-9]+ \(offset' <<<"$1"; then
		echo offset
	else
		echo clean
	fi
}

# Push the series onto NEW_TREE one patch at a time, refresh the ones that
# moved, report each; fails at the first patch that does not apply.
push_series()
{
	local p out kind
	for p in $(series_patches); do
		if ! out=$(cd "$NEW_TREE" && quilt push 2>&1); then
			echo "$p: rejected"
			grep -E 'FAILED|does not apply' <<<"$out" | sed 's/^/    /'
			return 1
		fi
		kind=$(push_kind "$out")
		if [ "$kind" != clean ] && ! (cd "$NEW_TREE" && quilt refresh >/dev/null 2>&1); then
			echo "$p: $kind, and quilt refresh failed"
			return 1
		fi
		echo "$p: $kind"
	done
}

rebase_main()
{
	local newest sum p
	lock_build
	mkdir -p "$REBASE"
	refresh_package_lists
	newest=$(newest_in_mirror "$LINUX_PKG")
	[ -n "$newest" ] || die "the package mirror offers no $LINUX_PKG"
	# Stale package lists (not root: not refreshed) must not move it back.
	if ! dpkg --compare-versions "$newest" gt "$LINUX_PKG_VERSION"; then
		say "the mirror offers nothing newer than $LINUX_PKG $LINUX_PKG_VERSION (newest: $newest)"
		resolve_debian_pins "$LINUX_PKG_VERSION"
		set_pins "${DEBIAN_PINS[@]}"
		[ ${#DEBIAN_PINS[@]} != 0 ] || say "Debian's pins follow it already; nothing to do"
		return 0
	fi
	say "rebasing the series from $LINUX_PKG $LINUX_PKG_VERSION onto $newest"
	resolve_debian_pins "$newest"
	sum=$(unpack_version "$newest")
	create_new_tree "$newest"
	export QUILTRC=$TOP/scripts/quiltrc QUILT_PATCHES=$NEW_PATCHES
	if ! push_series >"$REPORT"; then
		cat "$REPORT" >&2
		die "the series could not be moved onto $newest (report: ${REPORT#"$TOP"/}); the pin stays at $LINUX_PKG_VERSION"
	fi
	cat "$REPORT" >&2
	for p in $(series_patches); do
		cmp -s "$NEW_PATCHES/$p" "$TOP/patches/$p" || cp "$NEW_PATCHES/$p" "$TOP/patches/$p"
	done
	set_pins "LINUX_PKG_VERSION=$newest" "LINUX_SHA256=$sum" "${DEBIAN_PINS[@]}"
	# The next build unpacks the new source under build/ itself.
	chmod -R u+w "$NEW_PRISTINE"
	rm -rf "$NEW_TREE" "$NEW_PRISTINE" "$NEW_PATCHES" "$REBASE/pristine.version"
	say "pinned $LINUX_PKG $newest (was $LINUX_PKG_VERSION); report: ${REPORT#"$TOP"/}"
	if grep -q ': fuzzed$' "$REPORT"; then
		warn "fuzzed, refreshed where patch put their hunks: read them before committing: $(grep ': fuzzed$' "$REPORT" | cut -d: -f1 | tr '\n' ' ')"
	fi
}

# Sourced (by the host scripts' unit tests), it only defines functions.
[ "${BASH_SOURCE[0]}" != "$0" ] || rebase_main "$@"
