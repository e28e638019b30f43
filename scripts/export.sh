#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make export: turn patches/ (changes to existing kernel files) and the
# files the series adds (block/, include/, Documentation/, selftests/) into
# one self-contained series, and prove that it applies:
#
#   build/export/quilt/   series + patches; quilt push -a on the pristine tree
#   build/export/git/     git format-patch --rfc --cover-letter, for mailing:
#                         signed by the sender, To: and Cc: from
#                         get_maintainer.pl
#   build/export/fixes/   its first patches, the fixes to existing code, as a
#                         series of their own
#
# patches/ carry a placeholder identity (the repository's). The mail-ready
# series is signed by whoever sends it, AUTHOR="Name <mail>" or git's
# user.name and user.email, and is not written while that is the
# placeholder (the quilt series is). "--check" (make check, make test)
# writes it to build/export/check-git/ with the placeholder instead.
#
# patches/added-files names the patch that introduces each added file.
# The check applies the exported series to a fresh copy of the pristine
# tree and compares every file it touches with the development tree.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

OUT=$BUILD/export
OWNERS=$TOP/patches/added-files
COVER=$TOP/patches/cover-letter
# The first patches of the series fix existing code: they go out on their
# own too, as a series of fixes with its own cover letter.
FIX_PATCHES=3
FIXES_COVER=$TOP/patches/cover-letter-fixes
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
# if later patches change it).
new_file_diff()
{
	local src=$1 dst=$2 mode=100644 base=$BUILD/added-base.tmp changers
	[ -x "$TOP/$src" ] && mode=100755
	mapfile -t changers < <(patches_changing "$dst" "$CHANGES")
	added_base "$src" "$dst" "$base" "${changers[@]}"
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
	done < <(export_touched_files)
	[ $bad = 0 ] || die "the exported series does not reproduce build/linux"
}

# Cover letter file $1: its first line is the subject, the rest after a
# blank line the body.
cover_subject() { sed -n 1p "$1"; }
cover_body() { sed 1,2d "$1"; }

# The identity patches/ carry in place of a sender's.
placeholder_identity()
{
	local first id
	first=$(series_patches | head -n 1)
	id=$(sed -n '1s/^From: //p' "$TOP/patches/$first")
	[ -n "$id" ] || die "patches/$first does not start with a From: line"
	echo "$id"
}

# Who signs the mail-ready series: AUTHOR, else git's user.name and
# user.email (of this repository, or global).
sender_identity()
{
	local name mail
	if [ -n "${AUTHOR:-}" ]; then
		echo "$AUTHOR"
		return 0
	fi
	name=$(git -C "$TOP" config user.name) || true
	mail=$(git -C "$TOP" config user.email) || true
	[ -z "$name$mail" ] || echo "$name <$mail>"
}

# Why identity $1 cannot sign the series; nothing if it can.
sender_problem()
{
	local id=$1 addr='[^<>@[:space:]]+@[^<>@[:space:]]+\.[^<>@[:space:].]+'
	if [ -z "$id" ]; then
		echo "no sender identity"
	elif ! [[ $id =~ ^[^\<\>@]*[^\<\>@[:space:]]\ \<$addr\>$ ]]; then
		echo "\"$id\" is not of the form \"Name <user@domain>\""
	elif [ "$id" = "$(placeholder_identity)" ]; then
		echo "\"$id\" is the placeholder patches/ carry"
	elif [[ ${id,,} =~ (@|\.)(example|invalid|localhost|test|example\.(com|net|org))\>$ ]]; then
		echo "\"$id\" has a domain that takes no mail (RFC 2606)"
	fi
}

# Patch text on stdin with the placeholder identity replaced by $1: the
# From:, Signed-off-by: and MAINTAINERS lines the series adds.
signed_by()
{
	OLD=$(placeholder_identity) NEW=$1 perl -pe 's/\Q$ENV{OLD}\E/$ENV{NEW}/g'
}

# git in a scratch repository, without the sender's own configuration:
# format.cc, format.headers, am.*, core.autocrlf or core.hooksPath would
# change the mails or the files.
git_plain() { GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 git "$@"; }

# git_plain in scratch repository $1 as identity $2 (author and committer).
git_as()
{
	local repo=$1 who=$2
	shift 2
	git_plain -C "$repo" -c user.name="${who% <*}" \
		-c user.email="$(echo "$who" | sed 's/.*<\(.*\)>/\1/')" "$@"
}

# The series, signed by $1, committed onto the pristine files it touches
# in repository $OUT/repo (tag "base": those files).
commit_series()
{
	local sender=$1 repo=$OUT/repo f p
	rm -rf "$repo"
	mkdir -p "$repo"
	while read -r f; do
		[ -e "$PRISTINE/$f" ] && install -D -m 644 "$PRISTINE/$f" "$repo/$f"
	done < <(export_touched_files)
	git_as "$repo" "$sender" init -q
	git_as "$repo" "$sender" add -A
	git_as "$repo" "$sender" commit -q -m "Linux $LINUX_PKG_VERSION: the files the series touches"
	git_as "$repo" "$sender" tag base
	for p in $(series_patches); do
		# Whitespace errors are what a maintainer's git am warns about.
		signed_by "$sender" <"$OUT/quilt/$p" | git_as "$repo" "$sender" am -q --whitespace=error ||
			die "git am failed on $p (whitespace errors are errors)"
	done
}

# git format-patch of commit range $2 of repository $1 into directory $3,
# threaded under a cover letter from file $4, with the recipients filled
# in; more format-patch options after them. The sender is the series'
# author (the cover letter's From:, the Message-Id's domain).
format_series()
{
	local repo=$1 range=$2 dest=$3 cover=$4 sender
	shift 4
	[ -f "$cover" ] || die "missing ${cover#"$TOP"/}"
	sender=$(git -C "$repo" log -1 --format='%an <%ae>')
	rm -rf "$dest"
	git_as "$repo" "$sender" format-patch -q --cover-letter --thread=shallow "$@" -o "$dest" "$range"
	fill_cover_letter "$dest"/0000-cover-letter.patch "$cover"
	add_recipients "$repo" "$dest" "$(git -C "$repo" log -1 --format=%ae)"
}

# The mail-ready series of the commits after $2 in repository $1: the whole
# series into directory $3, as an RFC, and the fixes to existing code on
# their own into $4; more format-patch options after them.
format_both()
{
	local repo=$1 base=$2 whole=$3 fixes=$4 last_fix
	shift 4
	last_fix=$(git -C "$repo" rev-list --reverse "$base..HEAD" | sed -n "${FIX_PATCHES}p")
	[ -n "$last_fix" ] || die "the series has fewer than $FIX_PATCHES patches"
	# Both made aside (export_main removes what a failure leaves there),
	# then moved into place: no half-made or mismatched pair to send.
	format_series "$repo" "$base..HEAD" "$whole.tmp" "$COVER" --rfc "$@"
	format_series "$repo" "$base..$last_fix" "$fixes.tmp" "$FIXES_COVER" "$@"
	rm -rf "$whole" "$fixes"
	mv "$whole.tmp" "$whole"
	mv "$fixes.tmp" "$fixes"
}

# BASE="/path/to/linux.git[:rev]": the repository, and the revision
# (HEAD if none is named).
base_repo() { echo "${1%%:*}"; }
base_rev()
{
	case "$1" in
	*:*) echo "${1#*:}" ;;
	*) echo HEAD ;;
	esac
}

# The commit BASE names, or a one-line error.
base_commit()
{
	local repo rev
	repo=$(base_repo "$1")
	rev=$(base_rev "$1")
	git -C "$repo" rev-parse --git-dir >/dev/null 2>&1 ||
		die "BASE=$1: $repo is not a git repository"
	git -C "$repo" rev-parse -q --verify "$rev^{commit}" ||
		die "BASE=$1: $repo has no commit $rev"
}

# A scratch clone $3 of repository $1, checked out at commit $2. It
# borrows the repository's objects (--shared) and writes nothing into it:
# no worktree entry. The clone itself reads the user's configuration (a
# safe.directory for a repository they do not own); no hooks are copied
# (--template=), and git in it runs without that configuration.
scratch_clone()
{
	local repo=$1 commit=$2 dir=$3
	rm -rf "$dir"
	git clone -q --shared --no-checkout --template= "$repo" "$dir" ||
		die "cannot clone $repo into $dir"
	git_plain -C "$dir" -c advice.detachedHead=false checkout -q --detach "$commit" ||
		die "cannot check out $commit of $repo in $dir"
	# A partial clone's missing blobs make a checkout with missing files
	# that still succeeds.
	[ -z "$(git_plain -C "$dir" status --porcelain)" ] ||
		die "the checkout of $commit of $repo is incomplete (a partial clone?)"
}

# Why git am failed in repository $1, after a three-way attempt: the files
# left in conflict, or, where it could not merge at all (the patch's
# preimages are not in that history), git's first error.
am_failure()
{
	local files
	files=$(git_plain -C "$1" diff --name-only --diff-filter=U | tr '\n' ' ' | sed 's/ $//')
	if [ -n "$files" ]; then
		echo "conflicts in $files"
	else
		echo "does not apply ($(grep -m1 -E '^(error|fatal):' "$2" || echo "git am failed"))"
	fi
}

# Apply the mails of directory $1 in turn, as $2, onto commit $3 of
# repository $4 in scratch clone $5 (left there for format_both). One
# line per patch: "applies", "applies with a three-way merge", "conflicts
# in FILES" or "does not apply (why)", and after that "not tried". Fails
# if one does not apply.
apply_onto_base()
{
	local dir=$1 who=$2 commit=$3 repo=$4 wt=$5 patch name failed=0 log
	scratch_clone "$repo" "$commit" "$wt"
	log=$wt.am.log
	for patch in "$dir"/0[0-9][0-9][0-9]-*.patch; do
		name=${patch##*/}
		[ "$name" != 0000-cover-letter.patch ] || continue
		if [ $failed = 1 ]; then
			echo "$name: not tried"
		elif git_plain -C "$wt" apply --check "$patch" 2>/dev/null; then
			git_as "$wt" "$who" am -q "$patch" >"$log" 2>&1 ||
				die "$name: git am failed where git apply --check passed (log: $log)"
			echo "$name: applies"
		elif git_as "$wt" "$who" am -q -3 "$patch" >"$log" 2>&1; then
			echo "$name: applies with a three-way merge"
		else
			echo "$name: $(am_failure "$wt" "$log")"
			git_plain -C "$wt" am --abort
			failed=1
		fi
	done
	rm -f "$log"
	[ $failed = 0 ]
}

# get_maintainer.pl on patch $2, run in the series' tree $1 (its
# MAINTAINERS after the series, so the entries the series adds count),
# without address $3 (the sender's), then the rest of its arguments.
maintainers_of()
{
	local tree=$1 patch=$2 self=$3 out
	shift 3
	out=$(cd "$tree" && perl "$PRISTINE/scripts/get_maintainer.pl" --no-tree \
		--no-git --no-git-fallback --nofixes --norolestats "$@" "$patch") ||
		die "get_maintainer.pl failed on ${patch##*/}"
	awk -v self="<$self>" 'NF && index($0, self) == 0' <<<"$out"
}

# Addresses $2... as header $1, one to a line (folded: a long Cc: stays
# within the line length mail allows); nothing if there are none.
header_line()
{
	local name=$1
	shift
	[ $# -gt 0 ] || return 0
	printf '%s: %s' "$name" "$1"
	shift
	[ $# = 0 ] || printf ',\n %s' "$@"
	echo
}

# Lines of stdin that are not lines of file $1.
without_lines() { grep -vxF -f "$1" || true; }

# Header lines $2 put into mail $1 where its headers end.
put_headers()
{
	HEADERS=$2 perl -0pi -e 's/\n\n/\n$ENV{HEADERS}\n\n/' "$1"
}

# To: the maintainers, Cc: the reviewers and lists of what each patch in
# directory $2 touches, from tree $1, leaving out the sender (address
# $3); the cover letter goes to all of them.
add_recipients()
{
	local tree=$1 dest=$2 self=$3 patch headers all_to=() all_cc=() to cc out
	for patch in "$dest"/0[0-9][0-9][0-9]-*.patch; do
		case "$patch" in */0000-cover-letter.patch) continue ;; esac
		# Captured first: a failure in <(...) would not stop the export.
		out=$(maintainers_of "$tree" "$patch" "$self" --m --no-r --no-l)
		mapfile -t to < <(printf '%s' "$out")
		out=$(maintainers_of "$tree" "$patch" "$self" --no-m --r --l)
		# A maintainer of one entry may review another: To: only.
		mapfile -t cc < <(printf '%s' "$out" | without_lines <(printf '%s\n' "${to[@]}"))
		[ ${#to[@]} -gt 0 ] || die "get_maintainer.pl names no maintainer for ${patch##*/}"
		headers=$(header_line To "${to[@]}"; header_line Cc "${cc[@]}")
		put_headers "$patch" "$headers"
		all_to+=("${to[@]}")
		all_cc+=("${cc[@]}")
	done
	mapfile -t all_to < <(printf '%s\n' "${all_to[@]}" | awk '!seen[$0]++')
	mapfile -t all_cc < <(printf '%s\n' "${all_cc[@]}" | awk '!seen[$0]++' |
		without_lines <(printf '%s\n' "${all_to[@]}"))
	headers=$(header_line To "${all_to[@]}"; header_line Cc "${all_cc[@]}")
	put_headers "$dest/0000-cover-letter.patch" "$headers"
}

# Cover letter $1 of git format-patch, filled in from file $2.
fill_cover_letter()
{
	local letter=$1 cover=$2 body
	body=$(cover_body "$cover")
	SUBJECT=$(cover_subject "$cover") BODY=$body perl -0pi -e \
		's/\*\*\* SUBJECT HERE \*\*\*/$ENV{SUBJECT}/; s/\*\*\* BLURB HERE \*\*\*/$ENV{BODY}/' "$letter"
}

# build/export/git onto BASE (commit $2), signed by $1: each patch applied
# in a scratch clone and reported; if they all apply, build/export/git
# and build/export/fixes are made again from there, with "base-commit: $2".
export_onto_base()
{
	local sender=$1 base=$2 repo wt=$OUT/base-clone report=$OUT/base-report.txt
	repo=$(base_repo "$BASE")
	say "applying ${OUT#"$TOP"/}/git onto $BASE ($base)"
	if apply_onto_base "$OUT/git" "$sender" "$base" "$repo" "$wt" >"$report"; then
		sed 's/^/    /' "$report" >&2
		format_both "$wt" "$base" "$OUT/git" "$OUT/fixes" --base="$base"
	else
		sed 's/^/    /' "$report" >&2
		die "the series does not apply to $BASE (report: ${report#"$TOP"/}); ${OUT#"$TOP"/}/git applies to Linux $LINUX_PKG_VERSION"
	fi
	rm -rf "$wt"
}

export_main()
{
	local mode sender problem base=
	lock_build
	case "${1:-}" in
	--check) mode=check ;;
	"") mode=send ;;
	*) die "usage: scripts/export.sh [--check]" ;;
	esac
	[ -z "${BASE:-}" ] || [ "$mode" = send ] || die "BASE is for make export, not for the check"
	[ -z "${BASE:-}" ] || base=$(base_commit "$BASE")
	# Scratch left by a failure goes with it.
	trap 'rm -rf "$OUT"/*.tmp "$OUT/base-clone"' EXIT
	# What an earlier run wrote would not match this run's quilt series.
	if [ "$mode" = check ]; then
		rm -rf "$OUT/check-git" "$OUT/check-fixes"
	else
		rm -rf "$OUT/git" "$OUT/fixes" "$OUT/base-report.txt"
	fi

	"$TOP/scripts/prepare.sh"
	CHANGES=$(series_changes)
	check_owners
	write_quilt_series
	check_applies
	if [ "$mode" = check ]; then
		commit_series "$(placeholder_identity)"
		format_both "$OUT/repo" base "$OUT/check-git" "$OUT/check-fixes"
		say "exported $(series_patches | wc -l) patches: ${OUT#"$TOP"/}/quilt (quilt), ${OUT#"$TOP"/}/check-git and check-fixes (git format-patch with the placeholder identity, not for mailing)"
		return 0
	fi
	sender=$(sender_identity)
	problem=$(sender_problem "$sender")
	if [ -n "$problem" ]; then
		die "$problem: ${OUT#"$TOP"/}/quilt is written; for ${OUT#"$TOP"/}/git set AUTHOR=\"Name <mail>\" or git config user.name and user.email"
	fi
	commit_series "$sender"
	format_both "$OUT/repo" base "$OUT/git" "$OUT/fixes"
	if [ -n "${BASE:-}" ]; then
		export_onto_base "$sender" "$base"
	else
		warn "no BASE: the mails name Debian's files as their preimages and carry no base-commit:; make export BASE=/path/to/linux.git[:rev] makes them against your tree"
	fi
	say "exported $(series_patches | wc -l) patches: ${OUT#"$TOP"/}/quilt (quilt), ${OUT#"$TOP"/}/git and ${OUT#"$TOP"/}/fixes (the first $FIX_PATCHES, on their own) (git format-patch, signed by $sender)"
}

# Sourced (by the host scripts' unit tests), it only defines functions.
[ "${BASH_SOURCE[0]}" != "$0" ] || export_main "$@"
