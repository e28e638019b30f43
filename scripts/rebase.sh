#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make rebase: move the pin (scripts/base-kernel.env) to the newest
# $LINUX_PKG the package mirror offers. The series is applied to that
# source patch by patch in build/rebase/ and each patch reported as clean,
# offset (its hunks moved), fuzzed (context lines differ) or rejected;
# offset and fuzzed ones are refreshed, so that the next version starts
# from exact context. If one is rejected nothing in the repository
# changes. The next build unpacks the new source (scripts/fetch.sh).
# Not part of make test: the archive changes under it.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

REBASE=$BUILD/rebase
NEW_PRISTINE=$REBASE/linux-pristine
NEW_TREE=$REBASE/linux
NEW_PATCHES=$REBASE/patches
REPORT=$REBASE/report.txt

# The newest version of $LINUX_PKG in the (refreshed) package lists.
newest_version()
{
	if [ "$(id -u)" = 0 ]; then
		apt-get update >"$REBASE/update.log" 2>&1 ||
			die "apt-get update failed (log: ${REBASE#"$TOP"/}/update.log)"
	fi
	apt-cache madison "$LINUX_PKG" | awk '{ print $3 }' | sort -V | tail -n 1
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
	printf '%s\n%s\n' "$version" "$(sha256sum <"$tarball" | cut -d' ' -f1)" >"$stamp"
	rm -f "$tarball"
	sed -n 2p "$stamp"
}

# NEW_TREE: the new source with the files the series adds as they are
# before any patch (a file a later patch changes, without that change).
create_new_tree()
{
	local src dst p changes
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
		p=$(patch_changing "$dst" "$changes")
		added_base "$src" "$dst" "$NEW_TREE/$dst" "$p"
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

# Point base-kernel.env at version $1 with tarball sha256 $2.
move_pin()
{
	sed -i -e "s/^LINUX_PKG_VERSION=.*/LINUX_PKG_VERSION=$1/" \
		-e "s/^LINUX_SHA256=.*/LINUX_SHA256=$2/" "$TOP/scripts/base-kernel.env"
}

rebase_main()
{
	local newest sum p
	lock_build
	mkdir -p "$REBASE"
	newest=$(newest_version)
	[ -n "$newest" ] || die "the package mirror offers no $LINUX_PKG"
	# Stale package lists (not root: not refreshed) must not move it back.
	if ! dpkg --compare-versions "$newest" gt "$LINUX_PKG_VERSION"; then
		say "the mirror offers nothing newer than $LINUX_PKG $LINUX_PKG_VERSION (newest: $newest); nothing to do"
		return 0
	fi
	say "rebasing the series from $LINUX_PKG $LINUX_PKG_VERSION onto $newest"
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
	move_pin "$newest" "$sum"
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
