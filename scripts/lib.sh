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
