#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The series as Debian would build it (TAP on stdout): Debian's amd64
# configuration with configs/debian-modules.config, which makes modules
# of the schedulers (their KUnit suites compiled in), of blk-ioq, the
# core they share, and of the blk-ioq and readahead KUnit suites. Every
# kernel C file the series adds or changes compiles without W=1 warnings
# (the compiler's and kernel-doc's); the modules they are part of link;
# modpost, with the options Debian's configuration gives it, accepts
# each module against the symbols Debian's kernel exports (the
# Module.symvers of its headers package), those the series' built-in
# code exports and those of the other modules; the built-in code uses
# nothing that lives in a module; and every symbol the series exports
# has a user that is not a test.
#
# It compiles those files, the other members of their modules and
# KUnit, not Debian's kernel. kbuild compiles a single target whatever
# the configuration says, so a file that Debian's configuration leaves
# out is compiled as built-in code here, not reported. Run after
# scripts/export.sh; leaves the exported tree with the whole series
# applied.
. "$(dirname "$0")/lib.sh"
lock_build
# shellcheck source=scripts/kbuild-lib.sh
. "$TOP/scripts/kbuild-lib.sh"
# shellcheck source=scripts/export-tree-lib.sh
. "$TOP/scripts/export-tree-lib.sh"

export DEBUG=0
# sort, comm and join agree on one order.
export LC_ALL=C
OBJ=$OUT/obj-debian
FRAGMENTS=("$TOP/configs/debian-modules.config")
BASE_CONFIG=$DEBIAN_CONFIG
DEBIAN_SYMVERS=$BUILD/dl/debian-$DEBIAN_SYMVERS_PKG_VERSION-${DEBIAN_SYMVERS_SHA256:0:12}-Module.symvers
# modpost's own directory: it reads the series' built-in code there as a
# partial vmlinux.o, and keeps its records and logs.
MODPOST_DIR=$OUT/modpost-debian
LOG=$LOGS/distro-modules
# What configs/debian-modules.config makes modules of.
SCHEDULER_MODULES=(block/mq-cfq-iosched block/mq-as-iosched)
# Debian's kernel has no KUnit, so its Module.symvers lacks what KUnit
# exports: its module and built-in part are compiled for their exports.
KUNIT_MODULES=(lib/kunit/kunit)
KUNIT_BUILTIN=(lib/kunit/hooks.o)

# Every kernel C file a patch of the series adds or changes, once.
series_sources()
{
	local p
	for p in $(tquilt series); do
		patch_kernel_sources "$p"
	done | sort -u
}

# The object that compiles C file $1: that of the last file
# compiling_sources names, its includer if another file includes it (a
# KUnit suite at the end of the code it tests), else its own.
object_compiling()
{
	local c
	c=$(compiling_sources "$1" | tail -n 1)
	echo "${c%.c}.o"
}

# The kbuild file of directory $1, which kbuild reads: Kbuild, else Makefile.
kbuild_file()
{
	if [ -f "$TREE/$1/Kbuild" ]; then
		echo "$TREE/$1/Kbuild"
	else
		echo "$TREE/$1/Makefile"
	fi
}

# The module (path without .ko) that object $1 was compiled for: nothing
# if it was compiled as built-in code; fails if its module is not found.
# kbuild names the module in KBUILD_MODNAME with "-" made "_": the
# object's own name, or a composite module's of its directory
# ("bfq-y := bfq-iosched.o ...", also -objs, -m and -$(CONFIG_...)).
module_of()
{
	local o=$1 cmd modname dir name
	cmd=$OBJ/$(dirname "$o")/.$(basename "$o").cmd
	grep -q -- ' -DMODULE ' "$cmd" || return 0
	modname=$(grep -o -- "-DKBUILD_MODNAME='\"[^\"]*\"'" "$cmd" | cut -d'"' -f2)
	dir=$(dirname "$o")
	for name in "$(basename "$o" .o)" \
		$(grep -oE '^[A-Za-z0-9_-]+-(y|m|objs|\$\(CONFIG_[A-Za-z0-9_]+\))' "$(kbuild_file "$dir")" |
			sed -E 's/-(y|m|objs|\$\(CONFIG_[A-Za-z0-9_]+\))$//'); do
		if [ "${name//-/_}" = "$modname" ]; then
			echo "$dir/$name"
			return 0
		fi
	done
	echo "$o: no module named $modname in $(kbuild_file "$dir")" >&2
	return 1
}

# The compiler's and kernel-doc's diagnostics in log $1, and make's
# errors; not those of the host tools' parser generators.
compiler_warnings()
{
	grep -E '^[^ :]+[.][ch]:[0-9]+(:[0-9]+)?: (warning|error|fatal error):|[*][*][*]' "$1" || true
}

# Whether symbol CONFIG_$1 is y in the configuration.
config_on()
{
	grep -qx "CONFIG_$1=y" "$OBJ/include/config/auto.conf"
}

# modpost's options as scripts/Makefile.modpost gives them for this
# configuration and W=1, in MODPOST_FLAGS.
set_modpost_flags()
{
	MODPOST_FLAGS=(-M -W)
	if config_on MODVERSIONS; then MODPOST_FLAGS+=(-m); fi
	if config_on MODULE_SRCVERSION_ALL; then MODPOST_FLAGS+=(-a); fi
	if ! config_on SECTION_MISMATCH_WARN_ONLY; then MODPOST_FLAGS+=(-E); fi
	if config_on MODULE_ALLOW_MISSING_NAMESPACE_IMPORTS; then MODPOST_FLAGS+=(-N); fi
}

# modpost in the object directory: it finds a module's .mod file there,
# and writes its .mod.c there (the .ko files are removed on each run).
modpost() { (cd "$OBJ" && scripts/mod/modpost "${MODPOST_FLAGS[@]}" "$@"); }

# What the series' built-in objects ($@) export, in
# $MODPOST_DIR/series.symvers: modpost reads them as vmlinux, linked from
# them alone (and does not check what vmlinux uses). Its complaints.
builtin_exports()
{
	local o
	for o in "$@"; do echo "$OBJ/$o"; done >"$MODPOST_DIR/.vmlinux.objs"
	(cd "$MODPOST_DIR" && ld -r -o vmlinux.o "${@/#/$OBJ/}" &&
		"$OBJ/scripts/mod/modpost" "${MODPOST_FLAGS[@]}" -o series.symvers vmlinux.o) \
		>"$MODPOST_DIR/builtin.log" 2>&1 || cat "$MODPOST_DIR/builtin.log"
	grep -E 'WARNING|ERROR' "$MODPOST_DIR/builtin.log" || true
}

# The symbols object $1 exports.
exported_by() { nm "$OBJ/$1" | sed -n 's/.* __export_symbol_//p'; }

# The symbols the pristine copies of C files $@ export.
pristine_exports()
{
	local c
	for c in "$@"; do
		[ -f "$PRISTINE/$c" ] || continue
		{ grep -oE '^EXPORT_SYMBOL[A-Z_]*\([A-Za-z0-9_]+' "$PRISTINE/$c" || true; } | sed 's/.*(//'
	done
}

# The exports modpost checks the modules against, in $MODPOST_DIR/all.symvers:
# Debian's, without those of the modules rebuilt here and without those
# the series' code now exports or no longer exports (the pristine copies
# of its built-in files export them, its objects do not), then the
# series' built-in ones and KUnit's.
merged_exports()
{
	local m o
	{
		cut -f2 "$MODPOST_DIR/series.symvers" "$MODPOST_DIR/kunit.symvers"
		for m in "${modules[@]}"; do exported_by "$m.o"; done
		for o in "${builtin[@]}"; do pristine_exports "${o%.o}.c"; done
	} | sort -u >"$MODPOST_DIR/replaced"
	printf '%s\n' "${modules[@]}" "${KUNIT_MODULES[@]}" >"$MODPOST_DIR/rebuilt"
	awk -F'\t' 'FILENAME == ARGV[1] { replaced[$1] = 1; next }
		FILENAME == ARGV[2] { rebuilt[$1] = 1; next }
		!($2 in replaced) && !($3 in rebuilt)' \
		"$MODPOST_DIR/replaced" "$MODPOST_DIR/rebuilt" "$DEBIAN_SYMVERS" \
		>"$MODPOST_DIR/all.symvers"
	cat "$MODPOST_DIR/series.symvers" "$MODPOST_DIR/kunit.symvers" >>"$MODPOST_DIR/all.symvers"
}

# modpost's complaints about module $1 alone, with the exports of the
# other modules (from modules.symvers): each module is checked by itself,
# as modpost reports ten unresolved symbols at most in a run.
modpost_one()
{
	awk -F'\t' -v m="$1" '$3 != m' "$MODPOST_DIR/modules.symvers" >"$MODPOST_DIR/others.symvers"
	modpost -i "$MODPOST_DIR/all.symvers" -i "$MODPOST_DIR/others.symvers" \
		-o "$MODPOST_DIR/one.symvers" "$1.o" 2>&1 || true
}

# Built-in code of the series that uses a symbol a module defines: the
# kernel would not link.
builtin_uses_modules()
{
	local m
	for m in "${modules[@]}"; do
		nm --defined-only -g "$OBJ/$m.o" | awk -v m="$m" '{ print $3 "\t" m }'
	done | sort -u >"$MODPOST_DIR/module-symbols"
	nm -u "$MODPOST_DIR/vmlinux.o" | awk '{ print $2 }' | sort -u |
		join -t "$(printf '\t')" - "$MODPOST_DIR/module-symbols" |
		awk -F'\t' '{ print "built-in code uses " $1 ", which " $2 ".ko defines" }'
}

# Whether module $1 is a KUnit suite (a *_kunit.c file of its own).
is_test_module() { [[ ${1##*/} == *_kunit ]]; }

# The symbols the series exports that Debian's kernel does not (KUnit's
# aside) which no module uses, or only a test, unless exported for tests
# only (EXPORT_SYMBOL_IF_KUNIT): upstream takes no export without a user.
unused_exports()
{
	local m o
	for m in "${modules[@]}"; do
		is_test_module "$m" || nm -u "$OBJ/$m.o"
	done | awk '{ print $2 }' | sort -u >"$MODPOST_DIR/used"
	{
		cut -f2 "$DEBIAN_SYMVERS"
		for o in "${KUNIT_BUILTIN[@]}"; do exported_by "$o"; done
	} | sort -u >"$MODPOST_DIR/not-the-series"
	awk -F'\t' '$5 != "EXPORTED_FOR_KUNIT_TESTING" { print $2 }' \
		"$MODPOST_DIR/modules.symvers" "$MODPOST_DIR/series.symvers" | sort -u |
		comm -23 - "$MODPOST_DIR/not-the-series" | comm -23 - "$MODPOST_DIR/used" |
		sed 's/^/exported, but no module uses it, or only a test: /'
}

n=0
bad=0
echo "TAP version 13"
if [ -n "$(tquilt next 2>/dev/null)" ]; then
	tquilt push -a -q >"$LOG-push.log" 2>&1 ||
		die "the series does not apply in ${TREE#"$TOP"/} (log: $LOG-push.log)"
fi
[ -d "$PRISTINE" ] || die "no pristine tree in ${PRISTINE#"$TOP"/}; run scripts/export.sh first"
debian_config
[ -f "$DEBIAN_SYMVERS" ] ||
	debian_package_file "$DEBIAN_SYMVERS_PKG" "$DEBIAN_SYMVERS_PKG_VERSION" \
		"$DEBIAN_SYMVERS_FILE" "$DEBIAN_SYMVERS_SHA256" "$DEBIAN_SYMVERS"

say "configuring ${OBJ#"$TOP"/}: Debian's configuration and ${FRAGMENTS[*]#"$TOP"/}"
configure
tap_result "Debian's configuration takes configs/debian-modules.config as it is" \
	"$( (check_config) 2>&1)"
run_logged "$LOG-prepare.log" "make modules_prepare" kmake -j"$JOBS" modules_prepare
set_modpost_flags

say "compiling the series' C files with W=1 (log: ${LOG#"$TOP"/}-w1.log)"
mapfile -t objects < <(for c in $(series_sources); do object_compiling "$c"; done | sort -u)
[ ${#objects[@]} -gt 0 ] || die "found no kernel C file in the series"
# Compiled again on each run, so that a rerun shows the warnings again.
(cd "$OBJ" && rm -f "${objects[@]}")
kmake -k -j"$JOBS" W=1 "${objects[@]}" >"$LOG-w1.log" 2>&1 || true
tap_result "the kernel C files the series adds or changes compile without W=1 warnings" \
	"$(compiler_warnings "$LOG-w1.log")"

modules=()
builtin=()
unplaced=()
for o in "${objects[@]}"; do
	if ! m=$(module_of "$o" 2>&1); then
		unplaced+=("$m")
	elif [ -n "$m" ]; then
		modules+=("$m")
	else
		builtin+=("$o")
	fi
done
mapfile -t modules < <(printf '%s\n' "${modules[@]}" | sed '/^$/d' | sort -u)
tap_result "each object compiled for a module is placed in its module" "$(printf '%s\n' "${unplaced[@]}" | sed '/^$/d')"
tap_result "the schedulers are modules" "$(for m in "${SCHEDULER_MODULES[@]}"; do
	printf '%s\n' "${modules[@]}" | grep -qx "$m" || echo "$m is not a module"
done)"

kos=("${modules[@]/%/.ko}" "${KUNIT_MODULES[@]/%/.ko}")
say "building ${kos[*]} (log: ${LOG#"$TOP"/}-ko.log)"
# What a failed build would leave of an earlier run's must not be checked.
(cd "$OBJ" && rm -f "${kos[@]}" "${modules[@]/%/.o}" "${modules[@]/%/.mod}")
# modpost runs here without vmlinux: it cannot know the kernel's symbols,
# so only the runs below count.
kmake -k -j"$JOBS" W=1 KBUILD_MODPOST_WARN=1 "${kos[@]}" "${KUNIT_BUILTIN[@]}" >"$LOG-ko.log" 2>&1 || true
for ko in "${kos[@]}"; do
	tap_result "$ko links" "$(if [ ! -f "$OBJ/$ko" ]; then
		echo "$ko was not built"
		grep -E 'error|Error' "$LOG-ko.log" | head -n 20
	fi
	grep -F "${ko%.ko}" "$LOG-ko.log" | grep 'objtool' || true)"
done

say "modpost: the modules against Debian's, the series' and KUnit's exports (logs: ${MODPOST_DIR#"$TOP"/})"
rm -rf "$MODPOST_DIR" && mkdir -p "$MODPOST_DIR"
tap_result "modpost accepts the series' built-in code" \
	"$(builtin_exports "${builtin[@]}" "${KUNIT_BUILTIN[@]}")"
modpost -w -o "$MODPOST_DIR/kunit.symvers" "${KUNIT_MODULES[@]/%/.o}" >"$MODPOST_DIR/kunit.log" 2>&1 || true
[ -f "$MODPOST_DIR/series.symvers" ] && [ -f "$MODPOST_DIR/kunit.symvers" ] ||
	die "modpost did not record the exports of the built-in code and KUnit (logs: ${MODPOST_DIR#"$TOP"/})"
merged_exports
# Every module's exports, for the runs that check one module each.
modpost -w -i "$MODPOST_DIR/all.symvers" -o "$MODPOST_DIR/modules.symvers" \
	"${modules[@]/%/.o}" >"$MODPOST_DIR/modules.log" 2>&1 || true
for m in "${modules[@]}"; do
	tap_result "modpost: $m.ko uses only symbols exported to it" "$(modpost_one "$m")"
done
tap_result "the built-in code uses no symbol of a module" "$(builtin_uses_modules)"
tap_result "every symbol the series exports has a user that is not a test" "$(unused_exports)"
echo "1..$n"
[ $bad = 0 ]
