#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make export: turn patches/ (changes to existing kernel files) and the
# files the series adds (block/, include/, Documentation/, selftests/) into
# one self-contained series, and prove that it applies:
#
#   build/export/quilt/   series + patches; quilt push -a on the pristine tree
#   build/export/git/     git format-patch --rfc --cover-letter, for mailing
#
# patches/added-files names the patch that introduces each added file.
# The check applies the exported series to a fresh copy of the pristine
# tree and compares every file it touches with the development tree.
. "$(dirname "$0")/lib.sh"

OUT=$BUILD/export
OWNERS=$TOP/patches/added-files
COVER=$TOP/patches/cover-letter
MANIFEST=$BUILD/added-files.list
# "linux" beside bisect.sh's "obj", as build/linux is beside build/obj: the
# same relative paths let ccache reuse the development build's objects.
CHECK_TREE=$OUT/linux

# "tree-path patch" for every added file, from patches/added-files.
owned_files()
{
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$OWNERS"
}

# Every added file has exactly one owner, and every owner is in the series.
check_owners()
{
	local dst owner
	[ -f "$OWNERS" ] || die "missing ${OWNERS#"$TOP"/}"
	while read -r _ dst; do
		[ "$(owned_files | awk -v f="$dst" '$1 == f' | wc -l)" = 1 ] ||
			die "${OWNERS#"$TOP"/} must name exactly one patch for $dst"
	done <"$MANIFEST"
	while read -r dst owner; do
		grep -q " $dst\$" "$MANIFEST" ||
			die "${OWNERS#"$TOP"/} lists $dst, which the series does not add"
		series_patches | grep -qx -- "$owner" ||
			die "${OWNERS#"$TOP"/}: $owner (for $dst) is not in patches/series"
	done < <(owned_files)
}

# A git-style diff that creates tree file $2 from repo file $1 (its base,
# if a later patch changes it).
new_file_diff()
{
	local src=$1 dst=$2 mode=100644 base=$BUILD/added-base.tmp p
	[ -x "$TOP/$src" ] && mode=100755
	p=$(patch_changing "$dst" "$CHANGES")
	added_base "$src" "$dst" "$base" "$p"
	printf 'diff --git a/%s b/%s\nnew file mode %s\n' "$dst" "$dst" "$mode"
	diff -u --label /dev/null --label "b/$dst" /dev/null "$base" || true
	rm -f "$base"
}

# Patch $1 with the files it owns folded in after its description.
export_patch()
{
	local patch=$1 src dst
	sed '/^---$/q' "$TOP/patches/$patch"
	grep -qx -- '---' "$TOP/patches/$patch" ||
		die "patches/$patch has no '---' line between description and diff"
	while read -r src dst; do
		[ "$(owned_files | awk -v f="$dst" '$1 == f { print $2 }')" = "$patch" ] &&
			new_file_diff "$src" "$dst"
	done <"$MANIFEST"
	sed '1,/^---$/d' "$TOP/patches/$patch"
}

write_quilt_series()
{
	local p
	rm -rf "$OUT/quilt.tmp"
	mkdir -p "$OUT/quilt.tmp"
	for p in $(series_patches); do
		export_patch "$p" >"$OUT/quilt.tmp/$p"
		echo "$p" >>"$OUT/quilt.tmp/series"
	done
	rm -rf "$OUT/quilt"
	mv "$OUT/quilt.tmp" "$OUT/quilt"
}

# Tree paths that the exported series touches.
touched_files()
{
	sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$OUT"/quilt/*.patch | sort -u
}

# Its directories may be read-only, as the pristine ones are; its files
# may be the pristine ones, so only the directories are made writable.
remove_check_tree()
{
	[ ! -d "$CHECK_TREE" ] || find "$CHECK_TREE" -type d -exec chmod u+w {} +
	rm -rf "$CHECK_TREE"
}

# Apply the exported series to a fresh pristine copy; compare with build/linux.
check_applies()
{
	local f bad=0
	say "applying the exported series to a fresh copy of the pristine tree"
	remove_check_tree
	mkdir -p "$CHECK_TREE"
	# Contents, not the path (BUILD may hold a symlink to a shared
	# pristine tree), as hard links: quilt and patch replace the files
	# they change rather than write into them, so the pristine files stay
	# as they are, and the copy costs directories, not another 1.7 GB.
	# A pristine tree that cannot be linked (another filesystem, another
	# owner) is copied. Files stay read-only; directories take new files.
	cp -al "$PRISTINE/." "$CHECK_TREE" 2>/dev/null || {
		remove_check_tree && mkdir -p "$CHECK_TREE" &&
			cp -a "$PRISTINE/." "$CHECK_TREE"
	}
	find "$CHECK_TREE" -type d -exec chmod u+w {} +
	(cd "$CHECK_TREE" && QUILT_PATCHES=$OUT/quilt quilt push -a -q >"$OUT/push.log" 2>&1) || {
		tail -n 20 "$OUT/push.log" >&2
		die "the exported series does not apply with quilt push -a (log: $OUT/push.log)"
	}
	while read -r f; do
		# Still one file with the pristine one: patch wrote into both.
		[ ! "$CHECK_TREE/$f" -ef "$PRISTINE/$f" ] ||
			die "quilt changed $f in place, and with it the pristine tree: make clean unpacks it again"
		if ! cmp -s "$CHECK_TREE/$f" "$TREE/$f"; then
			echo "  differs from the development tree: $f" >&2
			bad=1
		fi
	done < <(touched_files)
	[ $bad = 0 ] || die "the exported series does not reproduce build/linux"
}

cover_subject() { sed -n 1p "$COVER"; }
cover_body() { sed 1,2d "$COVER"; }

# git format-patch of the series on top of the pristine files it touches.
write_git_series()
{
	local repo=$OUT/repo f p author
	[ -f "$COVER" ] || die "missing ${COVER#"$TOP"/}"
	rm -rf "$repo" "$OUT/git"
	mkdir -p "$repo"
	while read -r f; do
		[ -e "$PRISTINE/$f" ] && install -D -m 644 "$PRISTINE/$f" "$repo/$f"
	done < <(touched_files)
	# The cover letter comes from the author of the series' first patch.
	author=$(sed -n '1s/^From: //p' "$TOP/patches/$(series_patches | head -n 1)")
	git_in() {
		git -C "$repo" -c user.name="${author% <*}" \
			-c user.email="$(echo "$author" | sed 's/.*<\(.*\)>/\1/')" "$@"
	}
	git_in init -q
	git_in add -A
	git_in commit -q -m "Linux $LINUX_PKG_VERSION: the files the series touches"
	git_in tag base
	for p in $(series_patches); do
		# Whitespace errors are what a maintainer's git am warns about.
		git_in am -q --whitespace=error "$OUT/quilt/$p" ||
			die "git am failed on $p (whitespace errors are errors)"
	done
	git_in format-patch -q --rfc --cover-letter -o "$OUT/git" base..HEAD
	fill_cover_letter "$OUT"/git/0000-cover-letter.patch
}

fill_cover_letter()
{
	local letter=$1 body
	body=$(cover_body)
	SUBJECT=$(cover_subject) BODY=$body perl -0pi -e \
		's/\*\*\* SUBJECT HERE \*\*\*/$ENV{SUBJECT}/; s/\*\*\* BLURB HERE \*\*\*/$ENV{BODY}/' "$letter"
}

"$TOP/scripts/prepare.sh"
CHANGES=$(series_changes)
check_owners
write_quilt_series
check_applies
write_git_series
say "exported $(series_patches | wc -l) patches: ${OUT#"$TOP"/}/quilt (quilt), ${OUT#"$TOP"/}/git (git format-patch)"
