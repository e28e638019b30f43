# SPDX-License-Identifier: GPL-2.0
# Common helpers for the host-side scripts. Source it, do not run it.
# shellcheck shell=bash

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
# shellcheck source=scripts/base-kernel.env
. "$TOP/scripts/base-kernel.env"

PRISTINE=$BUILD/linux-pristine
TREE=$BUILD/linux
LOGS=$BUILD/logs
JOBS=${JOBS:-$(nproc)}

die()  { echo "error: $*" >&2; exit 1; }
warn() { echo "warning: $*" >&2; }
say()  { echo "==> $*" >&2; }

# One make target at a time per build directory: two would unpack, build,
# boot or delete files under each other. An entry point calls this before
# it does anything. Its shell holds $BUILD/build.lock (flock on file
# descriptor 200) until it and everything it started have ended, its EXIT
# trap included: the scripts it starts see BUILD_LOCKED and go on. A
# daemon that may outlive its run is started without_build_lock. A test
# that sourced the script and calls its functions takes no lock: $0 is
# not the script.
lock_build()
{
	local lock=$BUILD/build.lock holder=$BUILD/build.holder here
	[ "${BASH_SOURCE[-1]}" = "$0" ] || return 0
	here=$(realpath -m "$BUILD")
	[ "${BUILD_LOCKED:-}" = "$here" ] && return 0
	mkdir -p "$BUILD"
	[ -e "$lock" ] || : >>"$lock"
	# Read-only: a lock file another user (root) made still locks.
	exec 200<"$lock"
	if ! flock -n 200; then
		say "waiting for $(lock_holder "$holder") to finish with $BUILD"
		flock 200
	fi
	export BUILD_LOCKED=$here
	# Who holds it, for the next one's message; whole or not at all.
	{ echo "${0#"$TOP"/} (pid $$, since $(date '+%F %T'))" >"$holder.$$" &&
		mv -f "$holder.$$" "$holder"; } 2>/dev/null || rm -f "$holder.$$" 2>/dev/null || true
}

# Who holds the build lock, from holder file $1: "scripts/test.sh (pid N,
# since ...)", and whether that process has ended and left others.
lock_holder()
{
	local who pid
	who=$(cat "$1" 2>/dev/null) || { echo "another make target"; return; }
	pid=$(sed -n 's/.*(pid \([0-9]*\),.*/\1/p' <<<"$who")
	if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
		who+="; it has ended, but processes it started hold $BUILD/build.lock (fuser -v shows them)"
	fi
	echo "$who"
}

# Run "$@" without the build lock's descriptor: for a command that leaves
# a daemon (nbdkit's disk model) which a run killed before its EXIT trap
# would leave behind, and which must not keep every later run waiting.
# (A job put in the background with & runs in a subshell that holds it.)
without_build_lock()
{
	env -u BUILD_LOCKED "$@" 200<&-
}

# Run bench.sh with the knobs given as NAME=VALUE arguments and none of
# make bench's from the environment: a caller's CELLS, QUICK=1 or
# GUEST_MIB would change the run. It leaves build/bench/latest naming it.
bench_only()
{
	env -u CELLS -u SCHEDULERS -u PROFILE -u REPS -u THREADS -u SECS -u QUICK \
		-u GUEST_MIB -u REP_FROM -u KERNEL_IMAGE -u GUEST_CPUS "$@" "$TOP/scripts/bench.sh"
}

# Give tree $1, another copy of this repository, this checkout's download
# of the kernel source (hard links), if it pins the same tarball: the
# tarball's file name does not carry its version.
share_download()
{
	local pin
	[ -d "$BUILD/dl" ] && [ ! -e "$1/build/dl" ] || return 0
	pin=$(grep '^LINUX_SHA256=' "$TOP/scripts/base-kernel.env")
	[ "$pin" = "$(grep -s '^LINUX_SHA256=' "$1/scripts/base-kernel.env")" ] || return 0
	mkdir -p "$1/build"
	cp -al "$BUILD/dl" "$1/build/dl"
}

# The lines of build log $1 (a kernel, kselftest or package build) that
# say why it failed: the compiler's, modpost's, the linker's and the
# packaging tools' errors and make's "***" lines, the last 20.
build_errors()
{
	grep -E ': (fatal )?error:|\*\*\*|ERROR: modpost:|undefined reference|dpkg-buildpackage: error|dh_[a-z_]+: error' "$1" |
		tail -n 20 || true
}

# Object directory: the debug kernel gets its own so switching never rebuilds.
obj_dir()
{
	if [ "${DEBUG:-0}" = 1 ]; then
		echo "$BUILD/obj-debug"
	else
		echo "$BUILD/obj"
	fi
}

# The patches of patches/series, in order.
series_patches()
{
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$TOP/patches/series" | awk '{ print $1 }'
}

# What the kernels of a bundle are built from: this checkout's commit,
# with a hash of the difference where the tracked files differ from it
# (files git does not track are not counted); empty outside a checkout of
# its own.
checkout_id()
{
	local top
	top=$(git -C "$TOP" rev-parse --show-toplevel 2>/dev/null) || return 0
	[ "$(cd "$top" && pwd -P)" = "$(cd "$TOP" && pwd -P)" ] || return 0
	if git -C "$TOP" diff --quiet HEAD; then
		git -C "$TOP" rev-parse HEAD
	else
		echo "$(git -C "$TOP" rev-parse HEAD)+$(git -C "$TOP" diff HEAD | sha256sum | cut -c1-16)"
	fi
}

# Files the series adds, as "repo-path tree-path" pairs.
added_files()
{
	local dir f
	for dir in block mm Documentation include; do
		[ -d "$TOP/$dir" ] || continue
		(cd "$TOP" && find "$dir" -type f ! -name .gitkeep | sort) |
			while read -r f; do echo "$f $f"; done
	done
	(cd "$TOP/selftests" && find . -type f | sort) | while read -r f; do
		echo "selftests/${f#./} tools/testing/selftests/${f#./}"
	done
}

# A file the series adds may be changed again by later patches (a policy
# first, its debugfs and tracepoints next).  The repo holds such a file as
# the whole series leaves it; the patch that adds it adds its "base", the
# repo's file with the later patches taken off.

# "tree-path patch" for every file that a patch of the series changes, in
# one pass over the series: prepare looks up every added file in it.
series_changes()
{
	series_patches | sed "s|^|$TOP/patches/|" | xargs awk \
		'/^\+\+\+ b\// { n = split(FILENAME, path, "/"); print substr($2, 3), path[n] }'
}

# The patches that change added file $1 (a tree path) again, one a line
# in series order, from the table $2 that series_changes printed.
patches_changing()
{
	awk -v f="$1" '$1 == f { print $2 }' <<<"$2"
}

# Write the base of added file $1 (repo path; tree path $2) to file $3:
# the file with the parts of patches $4... (in series order, as
# patches_changing prints them) taken off, the last one first. Given the
# patches after the k-th, it writes the file as the k-th leaves it.
added_base()
{
	local src=$1 dst=$2 out=$3 i p
	shift 3
	cp "$TOP/$src" "$out.part"
	for ((i = $#; i >= 1; i--)); do
		p=${!i}
		# Only the patch's part for $dst: the next "--- a/" ends it.
		awk -v f="a/$dst" '/^--- / { on = ($2 == f) } on' "$TOP/patches/$p" |
			patch -R -p1 -s -f -F0 --no-backup-if-mismatch -r - \
				-o "$out.next" "$out.part" >/dev/null || {
			rm -f "$out.part" "$out.next"
			die "patches/$p does not come off $src: change that part of $src in the patch too (README: Working on the series)"
		}
		mv "$out.next" "$out.part"
	done
	mv "$out.part" "$out"
}

# Download Debian package $1 at version $2 into $3/tmp (emptied first)
# and print the .deb's path. Package lists may be missing or stale on a
# fresh machine: they are refreshed once.
apt_download()
{
	local pkg=$1 version=$2 dir=$3
	mkdir -p "$dir"
	rm -rf "$dir/tmp" && mkdir "$dir/tmp"
	(cd "$dir/tmp" && apt-get download "$pkg=$version" >../download.log 2>&1) ||
		{ [ "$(id -u)" = 0 ] && apt-get update >"$dir/update.log" 2>&1 &&
		  (cd "$dir/tmp" && apt-get download "$pkg=$version" >../download.log 2>&1); } ||
		die "$pkg version $version is not available from the package mirror (see $dir/download.log)"
	ls "$dir"/tmp/*.deb
}

# Extract file $3 of Debian package $1 version $2 to $4.part.
extract_package_file()
{
	local pkg=$1 version=$2 file=$3 dest=$4 dir deb
	dir=$(dirname "$dest")
	# exit: a command substitution, as in package_file_sha256(), runs
	# without errexit.
	deb=$(apt_download "$pkg" "$version" "$dir") || exit 1
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "./$file" >"$dest.part" ||
		die "$deb does not contain $file"
	rm -rf "$dir/tmp"
}

# Extract file $3 of Debian package $1 version $2 to $5, if its sha256 is
# $4; $5 is left alone unless it is.
debian_package_file()
{
	local pkg=$1 version=$2 file=$3 sha256=$4 dest=$5 sum
	extract_package_file "$pkg" "$version" "$file" "$dest"
	sum=$(file_sha256 "$dest.part")
	[ "$sum" = "$sha256" ] || { rm -f "$dest.part";
		die "checksum mismatch for $file of $pkg $version: got $sum, pinned $sha256"; }
	mv "$dest.part" "$dest"
}

# sha256 of file $1's contents, in hex.
file_sha256()
{
	sha256sum <"$1" | cut -d' ' -f1
}

# sha256 of the named files' contents and names, in order.
hash_files()
{
	local f
	for f in "$@"; do
		printf '%s\n' "$f"
		[ -e "$f" ] && sha256sum <"$f"
	done | sha256sum | cut -d' ' -f1
}

# Bytes free for $BUILD on the host.
free_bytes()
{
	df -B1 --output=avail "$BUILD" | tail -n 1
}

# Die unless build/ can hold $1 GiB in all (what it holds now plus what its
# filesystem has free), naming $2, the step that needs it. A full disk
# otherwise shows up as thousands of errors halfway through unpacking.
require_build_space()
{
	local want_gib=$1 what=$2 held free
	mkdir -p "$BUILD"
	free=$(free_bytes)
	# Only a nearly full disk pays for walking build/ with du.
	[ $((free >> 30)) -ge "$want_gib" ] && return 0
	held=$(du -sB1 "$BUILD" | cut -f1)
	[ $(((held + free) >> 30)) -ge "$want_gib" ] ||
		die "$what needs $want_gib GiB under $BUILD: it holds $((held >> 30)) GiB and its filesystem has $((free >> 30)) GiB free"
}

# One TAP line, "ok" where $2, what a check complained of, is empty, else
# the complaints as TAP comments and "not ok"; $1 names the check. Counts
# in the caller's n (lines) and bad (not ok).
tap_result()
{
	local label=$1 complaints=$2
	n=$((n + 1))
	if [ -z "$complaints" ]; then
		echo "ok $n $label"
	else
		printf '%s\n' "$complaints" | sed 's/^/# /'
		echo "not ok $n $label"
		bad=$((bad + 1))
	fi
}

# Run "$@" with output to a log file; on failure show its tail and die.
run_logged()
{
	local log=$1 what=$2
	shift 2
	mkdir -p "$(dirname "$log")"
	if ! "$@" >"$log" 2>&1; then
		tail -n 30 "$log" >&2
		die "$what failed (full log: $log)"
	fi
}

# Print a progress line every $2 lines of stdin, naming the current step.
progress()
{
	local what=$1 every=$2
	awk -v what="$what" -v every="$every" '
		{ n++; last = $0 }
		n % every == 0 { printf "    [%s] %d steps, now: %s\n", what, n, last; fflush() }
		END { printf "    [%s] done, %d steps\n", what, n }' >&2
}

# The files the exported series (build/export/quilt, scripts/export.sh)
# changes or adds, one a line; none before the first export.
export_touched_files()
{
	local patches=("$BUILD"/export/quilt/*.patch)
	[ -e "${patches[0]}" ] || return 0
	sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "${patches[@]}" | sort -u
}

# Record the content and mtime of the files of tree $1 named on stdin, as
# "sha256 mtime path" lines in file $2.
record_stamps()
{
	local f
	while read -r f; do
		[ -n "$f" ] && [ -f "$1/$f" ] || continue
		printf '%s %s %s\n' "$(file_sha256 "$1/$f")" \
			"$(stat -c %.9Y "$1/$f")" "$f"
	done >"$2"
}

# Give the files of tree $1 named on stdin whose content is as file $2
# recorded their recorded mtime, and every other one the time now: after
# quilt took patches off and put them on again, make rebuilds what changed
# and nothing else.  Removes $2.
restore_stamps()
{
	local f sum mtime old
	local -A was
	while read -r sum mtime f; do
		was[$f]="$sum $mtime"
	done <"$2"
	while read -r f; do
		[ -n "$f" ] && [ -e "$1/$f" ] || continue
		sum=$(file_sha256 "$1/$f")
		old=${was[$f]:-}
		if [ "${old%% *}" = "$sum" ]; then
			touch -d "@${old#* }" "$1/$f"
		else
			touch "$1/$f"
		fi
	done
	rm -f "$2"
}
