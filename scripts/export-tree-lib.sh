# SPDX-License-Identifier: GPL-2.0
# The exported series' quilt tree (build/export, scripts/export.sh) as the
# checks that build it see it: bisect.sh, one patch at a time, and
# distro-modules.sh, the whole series in Debian's configuration. Source it
# after lib.sh; it sets OUT and TREE, the caller sets OBJ.
# shellcheck shell=bash

OUT=$BUILD/export
TREE=$OUT/linux

[ -d "$TREE/.pc" ] || die "no exported tree in ${TREE#"$TOP"/}; run scripts/export.sh first"

tquilt() { (cd "$TREE" && QUILT_PATCHES=$OUT/quilt quilt "$@"); }

# The kernel C files (not user space: tools/, scripts/) patch $1 touches,
# or with -a every applied patch.
patch_kernel_sources()
{
	tquilt files "$1" | grep '\.c$' | grep -Ev '^(tools|scripts|Documentation)/' || true
}

# The C files whose object may compile kernel C file $1: first the file
# itself, then those in its directory that #include it (a KUnit suite
# included at the end of the code it tests).
compiling_sources()
{
	local c=$1 includer
	echo "$c"
	for includer in $(grep -lF "#include \"${c##*/}\"" "$TREE/${c%/*}"/*.c 2>/dev/null); do
		echo "${includer#"$TREE"/}"
	done
}

# The object, built in OBJ, that compiles kernel C file $1 (see
# compiling_sources); nothing if none was built in this config.
object_of()
{
	local c
	for c in $(compiling_sources "$1"); do
		[ -f "$OBJ/${c%.c}.o" ] && echo "${c%.c}.o" && return
	done
	true
}
