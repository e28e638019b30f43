#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make deb": installable Debian packages (make bindeb-pkg) of the base
# kernel with the exported series applied, in Debian's amd64
# configuration plus configs/deb.config (the series' schedulers as
# modules, modules signed, no debugging information). The packages go to
# build/deb/<kind>/, beside the kind's object directory.
#
#   make deb          trimmed with localmodconfig to the modules the QEMU
#                     guest uses (configs/deb-guest.lsmod: its disks'
#                     drivers, filesystems, null_blk, device mapper and
#                     every scheduler), everything Debian builds in kept,
#                     and named -iosched-qemu (configs/deb-trimmed.config):
#                     for QEMU, not for a real machine; then its kernel
#                     boots with its modules (scripts/deb-boot.sh)
#   make deb FULL=1   every module Debian builds, named -iosched
#                     (configs/deb-full.config)
#
# Each kind builds in an object directory of its own, and the exported
# tree keeps the mtimes of the files whose content did not change, so a
# rerun rebuilds only what changed (with ccache, as every build here).
# The time the packages took is printed and kept in
# build/deb/<kind>/seconds.
. "$(dirname "$0")/lib.sh"
lock_build

FULL=${FULL:-0}
case "$FULL" in
0) KIND=trimmed ;;
1) KIND=full ;;
*) die "FULL takes 0 or 1, not '$FULL'" ;;
esac

# kbuild writes the packages to the object directory's parent.
DEB_DIR=$BUILD/deb/$KIND
OBJ=$DEB_DIR/obj
FRAGMENTS=("$TOP/configs/deb.config" "$TOP/configs/deb-$KIND.config")
GUEST_MODULES=$TOP/configs/deb-guest.lsmod
LOG=$LOGS/deb-$KIND
# The distribution of the changelog kbuild writes (else it asks
# lsb_release, and without one writes "unstable" with a warning).
export KDEB_CHANGELOG_DIST=bookworm

require_build_space 12 "make deb"
started=$SECONDS

# Export the series; the files of the exported tree that it makes anew
# with the same content as before keep their old mtimes, so that make
# does not rebuild the kernel for them. A file the series no longer
# touches is the pristine one again, a hard link with the pristine
# tree's old mtime: it becomes a copy of its own, dated now, so that
# make rebuilds what was built from the patched one.
export_keeping_mtimes()
{
	local stamps=$BUILD/deb/export.stamps tree=$BUILD/export/linux f
	local before=$BUILD/deb/export.touched
	mkdir -p "$BUILD/deb"
	export_touched_files >"$before"
	record_stamps "$tree" "$stamps" <"$before"
	"$TOP/scripts/export.sh" --check
	export_touched_files | restore_stamps "$tree" "$stamps"
	export_touched_files | comm -23 "$before" - | while read -r f; do
		[ ! -f "$tree/$f" ] || { cp "$tree/$f" "$tree/$f.new" && mv -f "$tree/$f.new" "$tree/$f"; }
	done
	rm -f "$before"
}

export_keeping_mtimes
# shellcheck source=scripts/kbuild-lib.sh
. "$TOP/scripts/kbuild-lib.sh"
# shellcheck source=scripts/export-tree-lib.sh
. "$TOP/scripts/export-tree-lib.sh"
export DEBUG=0
BASE_CONFIG=$DEBIAN_CONFIG

# Keep only the modules of $GUEST_MODULES (and what they need); what the
# configuration builds in stays. localmodconfig asks about the options
# the trimming uncovers; without a terminal it takes their defaults. A
# name on the list that no configuration builds is an error: its module
# would be missing from the guest.
trim_to_guest()
{
	local log=$LOG-localmodconfig.log
	run_logged "$log" "make localmodconfig" \
		kmake LSMOD="$GUEST_MODULES" localmodconfig </dev/null
	! grep 'did not have configs' "$log" ||
		die "${GUEST_MODULES#"$TOP"/} names modules no configuration builds (log: $log)"
}

debian_config
mkdir -p "$DEB_DIR" "$LOGS"
if [ "$KIND" = trimmed ]; then
	CONFIG_AFTER=trim_to_guest
	CONFIG_INPUTS=("$GUEST_MODULES")
fi
say "configuration of ${OBJ#"$TOP"/}: Debian's, ${FRAGMENTS[*]#"$TOP"/}$([ "$KIND" = full ] || echo ", trimmed to ${GUEST_MODULES#"$TOP"/}")"
configure
check_config

# One version for every build of this release: a rerun replaces the
# packages rather than adding a newer one, and kbuild does not relink the
# kernel for a new build number.
KDEB_PKGVERSION=$(kmake -s kernelrelease)-1
export KDEB_PKGVERSION
rm -f "$DEB_DIR"/*.deb "$DEB_DIR"/*.changes "$DEB_DIR"/*.buildinfo
say "building the $KIND packages $KDEB_PKGVERSION (log: ${LOG#"$TOP"/}-build.log)"
start=$SECONDS
kmake_logged "$LOG-build.log" "make bindeb-pkg" "deb $KIND" 2000 bindeb-pkg
echo $((SECONDS - start)) >"$DEB_DIR/seconds"
say "$KIND packages built in $((SECONDS - start)) s ($((SECONDS - started)) s with the export and configuration):"
printf '    %s\n' "$DEB_DIR"/*.deb
[ "$KIND" = full ] || "$TOP/scripts/deb-boot.sh"
