# SPDX-License-Identifier: GPL-2.0
# Kernel configure and build steps, shared by build.sh (the development
# tree), bisect.sh (the exported series, one patch at a time) and
# distro-modules.sh (the series in Debian's configuration) and deb.sh
# (its packages). Source it after lib.sh, with TREE and OBJ set, and
# FRAGMENTS (guest_fragments); BASE_CONFIG, if set, is the configuration
# the fragments are merged over instead of tinyconfig. configure() runs
# CONFIG_AFTER, if set, once they are merged (deb.sh's localmodconfig),
# and counts the files of CONFIG_INPUTS among what it reads.
# shellcheck shell=bash

CONFIG_AFTER=${CONFIG_AFTER:-true}
CONFIG_INPUTS=()

# ccache sees paths under BUILD as relative to the object directory, so
# trees laid out alike (build/linux + build/obj, build/export/linux +
# build/export/obj) share their cached objects.
kmake()
{
	CCACHE_BASEDIR=$BUILD CCACHE_NOHASHDIR=1 \
	make -C "$TREE" O="$OBJ" CC="ccache gcc" HOSTCC="ccache gcc" \
		KBUILD_BUILD_TIMESTAMP="$LINUX_PKG_VERSION" \
		KBUILD_BUILD_USER=iosched KBUILD_BUILD_HOST=qemu "$@"
}

# The guest kernel's configuration fragments, merged over tinyconfig in
# this order: the minimal QEMU guest, what Debian's kernel has of I/O,
# memory and scheduling, and with DEBUG=1 the debug options.
guest_fragments()
{
	FRAGMENTS=("$TOP/configs/qemu.config" "$TOP/configs/distro.config")
	if [ "${DEBUG:-0}" = 1 ]; then
		FRAGMENTS+=("$TOP/configs/debug.config")
	fi
}

# The per-patch build check's fragments (scripts/bisect.sh): the series'
# code with distribution options, without the guest's drivers.
bisect_fragments()
{
	FRAGMENTS=("$TOP/configs/bisect.config" "$TOP/configs/distro.config")
}

# Every "CONFIG_X=v" and "# CONFIG_X is not set" of the fragments, normalised.
requested_symbols()
{
	sed -n -e 's/^\(CONFIG_[A-Za-z0-9_]*=.*\)/\1/p' \
		-e 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set/\1=n/p' "${FRAGMENTS[@]}" | sort -u
}

# Name every requested symbol that olddefconfig did not keep.
check_config()
{
	local want sym val got bad=0
	while IFS= read -r want; do
		sym=${want%%=*}
		val=${want#*=}
		got=$(grep -E "^$sym=|^# $sym is not set" "$OBJ/.config" || true)
		case "$got" in
		"# $sym is not set" | "") got=n ;;
		*) got=${got#*=} ;;
		esac
		if [ "$got" != "$val" ]; then
			echo "  $sym: requested $val, got $got" >&2
			bad=1
		fi
	done < <(requested_symbols)
	[ $bad = 0 ] || die "config symbols above did not end up as requested (missing dependency?)"
}

# A digest of what configure() makes the configuration from: the
# fragments and CONFIG_INPUTS, every Kconfig file and config fragment of
# the tree, the compiler (Kconfig asks it) and the configuration itself,
# so that a hand-edited .config is configured again.
config_digest()
{
	{
		gcc --version
		cat "${FRAGMENTS[@]}" ${BASE_CONFIG:+"$BASE_CONFIG"} "${CONFIG_INPUTS[@]}"
		(cd "$TREE" && find . -path ./.pc -prune -o -type f \
			\( -name 'Kconfig*' -o -path '*/configs/*.config' \) -print |
			LC_ALL=C sort | xargs cat)
		cat "$OBJ/.config" 2>/dev/null
	} | sha1sum | cut -d' ' -f1
}

# Configure unless nothing it reads changed since it last ran (about 30 s
# saved on every build and on each patch of scripts/bisect.sh).
configure()
{
	local stamp=$OBJ/.config.digest
	if [ -f "$OBJ/.config" ] && [ -f "$stamp" ] &&
		[ "$(config_digest)" = "$(cat "$stamp")" ]; then
		return 0
	fi
	rm -f "$stamp"
	configure_from_fragments
	"$CONFIG_AFTER"
	config_digest >"$stamp"
}

configure_from_fragments()
{
	mkdir -p "$OBJ" "$LOGS"
	[ -f "$OBJ/.config" ] && cp -p "$OBJ/.config" "$OBJ/.config.prev"
	if [ -n "${BASE_CONFIG:-}" ]; then
		cp "$BASE_CONFIG" "$OBJ/.config"
	else
		run_logged "$LOGS/config.log" "make tinyconfig" kmake tinyconfig
	fi
	run_logged "$LOGS/config.log" "merge_config.sh" \
		"$TREE/scripts/kconfig/merge_config.sh" -m -O "$OBJ" "$OBJ/.config" "${FRAGMENTS[@]}"
	run_logged "$LOGS/config.log" "make olddefconfig" kmake olddefconfig
	if [ -f "$OBJ/.config.prev" ] && cmp -s "$OBJ/.config" "$OBJ/.config.prev"; then
		mv "$OBJ/.config.prev" "$OBJ/.config"
	fi
	rm -f "$OBJ/.config.prev" "$OBJ/.config.old"
}

# kmake -j"$JOBS" of the targets $5..., its output into log $1, a
# progress line every $4 lines labelled $3; if it fails, show why and
# die saying that $2 failed.
kmake_logged()
{
	local log=$1 what=$2 label=$3 every=$4 status
	shift 4
	set +e
	kmake -j"$JOBS" "$@" 2>&1 | tee "$log" | progress "$label" "$every"
	status=${PIPESTATUS[0]}
	set -e
	if [ "$status" != 0 ]; then
		build_errors "$log" >&2
		die "$what failed (full log: $log)"
	fi
}

build_kernel()
{
	local start=$SECONDS
	local BUILD_LOG=$LOGS/build-$(basename "$OBJ").log
	say "building bzImage in ${OBJ#"$TOP"/} (log: ${BUILD_LOG#"$TOP"/})"
	kmake_logged "$BUILD_LOG" "kernel build" build 500 bzImage
	# What the image was built from, for the records of the runs that
	# boot it (the checkout may have moved on by then).
	echo "${SERIES_BUILT:-$(series_id)}" >"$OBJ/arch/x86/boot/bzImage.series.tmp"
	mv "$OBJ/arch/x86/boot/bzImage.series.tmp" "$OBJ/arch/x86/boot/bzImage.series"
	say "bzImage ready in $((SECONDS - start)) s"
}

# The revision of this checkout, as git describe names it; "unknown" for
# a tree that is not a checkout of its own (make ab's sides lie inside
# this one's work tree, and say what they are themselves).
series_id()
{
	if [ "$(git -C "$TOP" rev-parse --show-toplevel 2>/dev/null)" = "$TOP" ]; then
		git -C "$TOP" describe --always --dirty
	else
		echo unknown
	fi
}

# Debian's configuration of the base kernel (scripts/base-kernel.env), in
# DEBIAN_CONFIG: fetched from the package mirror once per pin.
DEBIAN_CONFIG=$BUILD/dl/debian-$DEBIAN_CONFIG_PKG_VERSION-${DEBIAN_CONFIG_SHA256:0:12}-$(basename "$DEBIAN_CONFIG_FILE" .xz)
debian_config()
{
	[ -f "$DEBIAN_CONFIG" ] && return 0
	debian_package_file "$DEBIAN_CONFIG_PKG" "$DEBIAN_CONFIG_PKG_VERSION" \
		"$DEBIAN_CONFIG_FILE" "$DEBIAN_CONFIG_SHA256" "$DEBIAN_CONFIG.xz"
	xz -dc "$DEBIAN_CONFIG.xz" >"$DEBIAN_CONFIG.part"
	mv "$DEBIAN_CONFIG.part" "$DEBIAN_CONFIG"
	rm -f "$DEBIAN_CONFIG.xz"
}
