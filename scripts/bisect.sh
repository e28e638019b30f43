#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every patch of the exported series builds, the kernel C files it adds or
# changes are compiled at that patch and without W=1 warnings, and every
# path it names exists once it is applied: push the series one patch at a
# time onto the tree make export checked, and build incrementally (ccache)
# after each, except after a patch that touches only documentation,
# selftests and MAINTAINERS. The configuration is configs/bisect.config
# with configs/distro.config: the code the series touches, without the
# guest's drivers (the guest kernel is built whole by make build). Symbols
# of later patches are simply absent from earlier configs.
# TAP on stdout, three lines per patch. Run after scripts/export.sh.
#
# BISECT=dirs (make test, to stay within CI's time on a fresh machine)
# builds at each patch only the directories of the series' code, block/
# and mm/ (and those of any other C file the patch touches), instead of
# the whole kernel; make build builds the whole kernel with all patches.
# BISECT_LAST=NNNN stops after the patch of that number (make mutants, or
# the inner loop on an early patch).
. "$(dirname "$0")/lib.sh"
BISECT=${BISECT:-full}
case "$BISECT" in
full | dirs) ;;
*) die "BISECT must be full or dirs, not '$BISECT'" ;;
esac
PATCHES=$(series_patches)
if [ -n "${BISECT_LAST:-}" ]; then
	[[ $BISECT_LAST =~ ^[0-9]{4}$ ]] && grep -q "^$BISECT_LAST-" <<<"$PATCHES" ||
		die "BISECT_LAST=$BISECT_LAST is not the number of a patch of patches/series"
	PATCHES=$(sed "/^$BISECT_LAST-/q" <<<"$PATCHES")
fi
lock_build
# shellcheck source=scripts/kbuild-lib.sh
. "$TOP/scripts/kbuild-lib.sh"

export DEBUG=0
bisect_fragments
# shellcheck source=scripts/export-tree-lib.sh
. "$TOP/scripts/export-tree-lib.sh"
OBJ=$OUT/obj

# Remove the objects that patch $1's C files compile to, so that only the
# build at this patch can make them: one that an earlier run left in the
# reused build directory would pass for compiled.
forget_objects()
{
	local c s
	for c in $(patch_kernel_sources "$1"); do
		for s in $(compiling_sources "$c"); do
			rm -f "$OBJ/${s%.c}.o"
		done
	done
}

# Objects, built in this config, of the C files that patch $1 touches;
# fails, naming them, if some were not compiled at all.
patch_objects()
{
	local c obj missing=()
	for c in $(patch_kernel_sources "$1"); do
		obj=$(object_of "$c")
		if [ -n "$obj" ]; then
			echo "$obj"
		else
			missing+=("$c")
		fi
	done
	[ ${#missing[@]} = 0 ] && return 0
	echo "not compiled at this patch (nothing in the config builds it): ${missing[*]}" >&2
	return 1
}

# Tree paths that the lines patch $1 adds name (Kconfig help, MAINTAINERS
# F: patterns, comments, documentation), each once.
named_paths()
{
	grep '^+' "$OUT/quilt/$1" | grep -v '^+++ ' |
		grep -oE '(^|[^A-Za-z0-9_./-])(Documentation|block|mm|include|kernel|lib|drivers|fs|tools|arch|scripts)/[A-Za-z0-9_./*-]*[A-Za-z0-9_*]' |
		sed -E 's|^[^A-Za-z]||' | sort -u
}

# Print the paths patch $1 names that do not exist in the tree it leaves.
missing_paths()
{
	local path
	# Read, not split: a word split is also expanded as a glob, here
	# (MAINTAINERS F: patterns), where it matches this checkout's files.
	while read -r path; do
		compgen -G "$TREE/$path" >/dev/null || echo "$path"
	done < <(named_paths "$1")
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

# The directories BISECT=dirs builds at patch $1: block/, mm/ and those of
# the C files it touches.
patch_dirs()
{
	{
		printf 'block/\nmm/\n'
		patch_kernel_sources "$1" | sed 's|/[^/]*$|/|'
	} | sort -u
}

# Build the tree as patch $1 leaves it: the whole kernel, or with
# BISECT=dirs the directories of the series' code.
build_at()
{
	configure
	if [ "$BISECT" = full ]; then
		build_kernel
	else
		# shellcheck disable=SC2046
		kmake -j"$JOBS" $(patch_dirs "$1")
	fi
}

# What "builds" means in this mode, for the TAP lines.
what_builds()
{
	if [ "$BISECT" = full ]; then
		echo "the kernel builds"
	else
		echo "$(patch_dirs "$1" | paste -sd ' ') build"
	fi
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
total=$(wc -l <<<"$PATCHES")
n=0
i=0
bad=0
built=no	# whether the last build succeeded
echo "TAP version 13"
for p in $PATCHES; do
	i=$((i + 1))
	say "[$i/$total] building with $p"
	tquilt push -q >/dev/null || die "$p does not apply in ${TREE#"$TOP"/}"
	forget_objects "$p"
	n=$((n + 1))
	if [ "$built" = yes ] && outside_kernel_build "$p"; then
		echo "ok $n $(what_builds "$p") with $p (no kernel build input changed: docs, selftests)"
	elif build_at "$p" >"$LOGS/bisect.log" 2>&1; then
		echo "ok $n $(what_builds "$p") with $p"
		built=yes
	else
		tail -n 20 "$LOGS/bisect.log" | sed 's/^/# /'
		echo "not ok $n $(what_builds "$p") with $p"
		bad=$((bad + 1))
		built=no
	fi
	n=$((n + 1))
	# $objects is a list of words: w1_clean takes each as an argument.
	# shellcheck disable=SC2086
	if ! objects=$(patch_objects "$p" 2>"$LOGS/bisect-objects.log"); then
		sed 's/^/# /' "$LOGS/bisect-objects.log"
		echo "not ok $n W=1 adds no warnings in $p"
		bad=$((bad + 1))
	elif out=$(w1_clean $objects); then
		echo "ok $n W=1 adds no warnings in $p"
	else
		echo "$out" | sed 's/^/# /'
		echo "not ok $n W=1 adds no warnings in $p"
		bad=$((bad + 1))
	fi
	tap_result "the paths $p names exist" "$(missing_paths "$p" | sed 's/^/missing: /')"
done
[ -z "${BISECT_LAST:-}" ] || echo "# stopped after $BISECT_LAST (BISECT_LAST)"
echo "1..$n"
[ $bad = 0 ]
