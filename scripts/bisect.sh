#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every patch of the exported series builds, and the C files it adds or
# changes compile without W=1 warnings: push the series one patch at a time
# onto the tree make export checked, and build incrementally (ccache) after
# each, except after a patch that touches only documentation, selftests
# and MAINTAINERS. Symbols of later patches are simply absent from
# earlier configs.
# TAP on stdout, two lines per patch. Run after scripts/export.sh.
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/kbuild-lib.sh
. "$TOP/scripts/kbuild-lib.sh"

OUT=$BUILD/export
TREE=$OUT/linux
OBJ=$OUT/obj
export DEBUG=0
guest_fragments

[ -d "$TREE/.pc" ] || die "no exported tree in ${TREE#"$TOP"/}; run scripts/export.sh first"

tquilt() { (cd "$TREE" && QUILT_PATCHES=$OUT/quilt quilt "$@"); }

# Objects, built in this config, of the C files that patch $1 touches.
patch_objects()
{
	local f
	for f in $(tquilt files "$1"); do
		case "$f" in
		*.c) [ -f "$OBJ/${f%.c}.o" ] && echo "${f%.c}.o" ;;
		esac
	done
	true
}

# Whether patch $1 only touches files that the kernel build does not read:
# the tree it leaves builds exactly as the one before it did.
outside_kernel_build()
{
	local f
	for f in $(tquilt files "$1"); do
		case "$f" in
		Documentation/* | tools/testing/* | MAINTAINERS) ;;
		*) return 1 ;;
		esac
	done
}

# W=1 rebuild of the given objects; prints the warnings, fails on any.
w1_clean()
{
	local log=$LOGS/bisect-w1.log
	[ $# = 0 ] && return 0
	kmake W=1 "$@" >"$log" 2>&1 || { cat "$log"; return 1; }
	! grep -E 'warning:|error:' "$log"
}

tquilt pop -a -q >/dev/null 2>&1 || true
total=$(series_patches | wc -l)
n=0
i=0
bad=0
built=no	# whether the last build succeeded
echo "TAP version 13"
for p in $(series_patches); do
	i=$((i + 1))
	say "[$i/$total] building with $p"
	tquilt push -q >/dev/null || die "$p does not apply in ${TREE#"$TOP"/}"
	n=$((n + 1))
	if [ "$built" = yes ] && outside_kernel_build "$p"; then
		echo "ok $n builds with $p (no kernel build input changed: docs, selftests)"
	elif (configure && build_kernel) >"$LOGS/bisect.log" 2>&1; then
		echo "ok $n builds with $p"
		built=yes
	else
		tail -n 20 "$LOGS/bisect.log" | sed 's/^/# /'
		echo "not ok $n builds with $p"
		bad=$((bad + 1))
		built=no
	fi
	n=$((n + 1))
	# shellcheck disable=SC2046
	if out=$(w1_clean $(patch_objects "$p")); then
		echo "ok $n W=1 adds no warnings in $p"
	else
		echo "$out" | sed 's/^/# /'
		echo "not ok $n W=1 adds no warnings in $p"
		bad=$((bad + 1))
	fi
done
echo "1..$n"
[ $bad = 0 ]
