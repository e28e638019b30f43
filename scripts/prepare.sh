#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prepare the patched tree build/linux from the pristine one: copy in the
# files the series adds, then apply patches/series with quilt. The tree's
# "patches" is a link to the repo's patches/, so "quilt refresh" in the tree
# writes straight back into the repo. Re-running redoes only what changed.
. "$(dirname "$0")/lib.sh"
lock_build

MANIFEST=$BUILD/added-files.list
SERIES_STAMP=$BUILD/series.applied
# Content and mtime of the series' files before it is taken off.
STAMPS=$BUILD/series-files.stamps

create_tree()
{
	say "creating the patched tree"
	rm -rf "$TREE.tmp"
	mkdir -p "$TREE.tmp"
	# Contents, not the path: BUILD may hold a symlink to a shared pristine tree.
	cp -a "$PRISTINE/." "$TREE.tmp"
	chmod -R u+w "$TREE.tmp"
	ln -s "$TOP/patches" "$TREE.tmp/patches"
	mv "$TREE.tmp" "$TREE"
	rm -f "$MANIFEST" "$SERIES_STAMP"
}

# Install $1 as tree file $2 with the mode of repo file $3, unless equal.
install_if_changed()
{
	cmp -s "$1" "$2" || install -D -m "$(stat -c %a "$3")" "$1" "$2"
}

# An added file that later patches $3... change again: the tree holds it
# as the last applied one of them leaves it (its base before the first),
# and each applied one has the file as it was before it as quilt's backup,
# so that popping it restores that.
sync_changed_added_file()
{
	local src=$1 dst=$2 state=$BUILD/added-state.tmp applied=0
	shift 2
	local changers=("$@")
	while [ "$applied" -lt ${#changers[@]} ] &&
	      grep -qxF -- "${changers[applied]}" "$TREE/.pc/applied-patches" 2>/dev/null; do
		added_base "$src" "$dst" "$state" "${changers[@]:applied}"
		install_if_changed "$state" "$TREE/.pc/${changers[applied]}/$dst" "$TOP/$src"
		applied=$((applied + 1))
	done
	added_base "$src" "$dst" "$state" "${changers[@]:applied}"
	install_if_changed "$state" "$TREE/$dst" "$TOP/$src"
	rm -f "$state"
}

# Copy added files that differ; drop the ones the repo no longer has.
# Unchanged files keep their mtime so nothing is rebuilt for them.
sync_added_files()
{
	local src dst old changes changers
	added_files >"$MANIFEST.new"
	changes=$(series_changes)
	while read -r src dst; do
		[ -e "$PRISTINE/$dst" ] &&
			die "$src would replace $dst of the base kernel; change existing files with a patch instead"
		mapfile -t changers < <(patches_changing "$dst" "$changes")
		if [ ${#changers[@]} -gt 0 ]; then
			sync_changed_added_file "$src" "$dst" "${changers[@]}"
		else
			install_if_changed "$TOP/$src" "$TREE/$dst" "$TOP/$src"
		fi
	done <"$MANIFEST.new"
	if [ -f "$MANIFEST" ]; then
		while read -r src old; do
			if ! grep -q " $old\$" "$MANIFEST.new"; then
				rm -f "$TREE/$old"
			fi
		done <"$MANIFEST"
	fi
	mv "$MANIFEST.new" "$MANIFEST"
}

series_hash()
{
	local p files=("$TOP/patches/series")
	for p in $(series_patches); do
		files+=("$TOP/patches/$p")
	done
	hash_files "${files[@]}"
}

# Files touched by the applied patches (to refresh their mtimes later),
# read from quilt's backups so that it works even when patches/series no
# longer matches what is applied.
applied_files()
{
	local d
	for d in "$TREE"/.pc/*/; do
		[ -d "$d" ] && (cd "$d" && find . -type f | sed 's|^\./||')
	done
	true
}

# Take the applied patches off; when quilt cannot, start from a new tree.
unapply_series()
{
	(cd "$TREE" && quilt pop -a -f -q >/dev/null 2>&1) || true
	[ -s "$TREE/.pc/applied-patches" ] || return 0
	warn "could not take the old series off; recreating the patched tree"
	rm -rf "$TREE"
	create_tree
	sync_added_files
}

# Show why the next patch does not apply, restore the tree and fail.
report_reject()
{
	local patch rej
	patch=$(cd "$TREE" && quilt next)
	(cd "$TREE" && quilt push -f >/dev/null 2>&1) || true
	echo "---- rejected hunks of $patch ----" >&2
	while IFS= read -r rej; do
		echo "--- ${rej#"$TREE"/}" >&2
		cat "$rej" >&2
		rm -f "$rej"
	done < <(find "$TREE" -name '*.rej' -newer "$MANIFEST")
	(cd "$TREE" && quilt pop -f >/dev/null 2>&1) || true
	die "patch $patch does not apply to $LINUX_PKG $LINUX_PKG_VERSION"
}

apply_series()
{
	local hash touched
	hash=$(series_hash)
	[ -f "$SERIES_STAMP" ] && [ "$(cat "$SERIES_STAMP")" = "$hash" ] &&
		[ "$(cat "$TREE/.pc/applied-patches" 2>/dev/null)" = "$(series_patches)" ] &&
		return 0

	touched=$(applied_files)
	record_stamps "$TREE" "$STAMPS" <<<"$touched"
	rm -f "$SERIES_STAMP"
	unapply_series
	# Popping the old series restored the added files that its patches
	# changed to what they were before those patches; a new series may
	# change other parts of them, so each starts again from its base.
	sync_added_files
	if [ -n "$(series_patches)" ]; then
		say "applying $(series_patches | wc -l) patches"
		for _ in $(series_patches); do
			(cd "$TREE" && quilt push -q >/dev/null 2>&1) || report_reject
		done
	fi
	[ "$(cat "$TREE/.pc/applied-patches" 2>/dev/null)" = "$(series_patches)" ] ||
		die "quilt did not apply patches/series to $TREE"
	# quilt pop restores old mtimes; make must still see every change.
	touched+=$'\n'$(applied_files)
	sort -u <<<"$touched" | restore_stamps "$TREE" "$STAMPS"
	echo "$hash" >"$SERIES_STAMP"
}

# One at a time: two runs (make check beside make selftest) would remove
# each other's added files.
mkdir -p "$BUILD"
exec 9>"$BUILD/prepare.lock"
flock 9
"$TOP/scripts/deps.sh"
"$TOP/scripts/fetch.sh"
[ -d "$TREE" ] || create_tree
sync_added_files
apply_series
