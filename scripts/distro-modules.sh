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
# nothing that lives in a module; nothing the series exports clashes
# with Debian's exports; every symbol it exports has a user that is not
# a test, and no module uses one exported for tests only; kernel-doc
# finds nothing new in its headers.
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

# Every kernel C file a patch of the series adds or changes, once (the
# whole series is applied).
series_sources() { patch_kernel_sources -a | sort -u; }

# The series' kernel headers, and its C files that another includes
# (kbuild runs kernel-doc only on the file it compiles).
series_included_sources()
{
	local c
	{ tquilt files -a | grep -E '^(block|mm|include)/.*[.]h$' || true; } | sort -u
	for c in $(series_sources); do
		[ "$(object_compiling "$c")" = "${c%.c}.o" ] || echo "$c"
	done | sort -u
}

# kernel-doc's warnings on the series' headers and included C files that
# their pristine copies do not have (upstream's own are not the series').
kernel_doc_warnings()
{
	local files
	mapfile -t files < <(series_included_sources)
	(cd "$PRISTINE" && for f in "${files[@]}"; do [ ! -f "$f" ] || echo "$f"; done |
		xargs -r scripts/kernel-doc -none 2>&1) | sed -E 's/:[0-9]+: /: /' | sort -u >"$LOG-kdoc-pristine.txt"
	(cd "$TREE" && scripts/kernel-doc -none "${files[@]}" 2>&1) | compiler_warnings /dev/stdin |
		awk 'FILENAME == ARGV[1] { old[$0] = 1; next }
			{ key = $0; sub(/:[0-9]+: /, ": ", key) } !(key in old)' "$LOG-kdoc-pristine.txt" -
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
	[ -f "$cmd" ] || { echo "$o was not compiled"; return 1; }
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
	echo "$o: no module named $modname in $(kbuild_file "$dir")"
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

# What built-in objects $2... export, in $1/exports.symvers: modpost
# reads them as vmlinux, linked from them alone, in directory $1 (and
# does not check what vmlinux uses). Prints its complaints.
builtin_exports()
{
	local dir=$1 o
	shift
	mkdir -p "$dir"
	for o in "$@"; do echo "$OBJ/$o"; done >"$dir/.vmlinux.objs"
	(cd "$dir" && ld -r -o vmlinux.o "${@/#/$OBJ/}" &&
		"$OBJ/scripts/mod/modpost" "${MODPOST_FLAGS[@]}" -o exports.symvers vmlinux.o) \
		>"$dir/modpost.log" 2>&1 || cat "$dir/modpost.log"
	grep -E 'WARNING|ERROR' "$dir/modpost.log" || true
}

# The symbols object $1 exports.
exported_by() { [ ! -f "$OBJ/$1" ] || nm "$OBJ/$1" | sed -n 's/.* __export_symbol_//p'; }

# The symbols the pristine copies of C files $@ export.
pristine_exports()
{
	local c
	for c in "$@"; do
		[ -f "$PRISTINE/$c" ] || continue
		{ grep -oE '^EXPORT_[A-Z_]*SYMBOL[A-Z_]*\([A-Za-z0-9_]+' "$PRISTINE/$c" || true; } | sed 's/.*(//'
	done
}

# The exports modpost checks the modules against, in $MODPOST_DIR/all.symvers:
# Debian's, without those of the modules rebuilt here, those of vmlinux
# that a file the series changes exported before it (its own version
# counts, or none), and those the series' code exports again (a clash,
# clashes() reports it); then the series' built-in ones and KUnit's.
merged_exports()
{
	local o
	for o in "${builtin[@]}"; do pristine_exports "${o%.o}.c"; done | sort -u >"$MODPOST_DIR/changed"
	printf '%s\n' "${modules[@]}" "${KUNIT_MODULES[@]}" >"$MODPOST_DIR/rebuilt"
	awk -F'\t' 'FILENAME == ARGV[1] { changed[$1] = 1; next }
		FILENAME == ARGV[2] { rebuilt[$1] = 1; next }
		!($3 == "vmlinux" && $2 in changed) && !($3 in rebuilt)' \
		"$MODPOST_DIR/changed" "$MODPOST_DIR/rebuilt" "$DEBIAN_SYMVERS" >"$MODPOST_DIR/debian"
	series_exports | join -t "$(printf '\t')" -1 1 -2 2 -o 2.2,2.3 - <(sort -t "$(printf '\t')" -k2,2 "$MODPOST_DIR/debian") \
		>"$MODPOST_DIR/clashes"
	awk -F'\t' 'FILENAME == ARGV[1] { clash[$1] = 1; next } !($2 in clash)' \
		"$MODPOST_DIR/clashes" "$MODPOST_DIR/debian" >"$MODPOST_DIR/all.symvers"
	cat "$MODPOST_DIR/series/exports.symvers" "$MODPOST_DIR/kunit/exports.symvers" \
		"$MODPOST_DIR/kunit.symvers" >>"$MODPOST_DIR/all.symvers"
}

# Every symbol the series' built-in code and modules export, sorted.
series_exports()
{
	local m
	{
		cut -f2 "$MODPOST_DIR/series/exports.symvers"
		for m in "${modules[@]}"; do exported_by "$m.o"; done
	} | sort -u
}

# The series' exports that Debian's kernel has elsewhere.
clashes()
{
	awk -F'\t' '{ print $1 " is exported by the series and by Debian'"'"'s " $2 }' \
		"$MODPOST_DIR/clashes"
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

# Built-in code of the series that uses a symbol a module defines (the
# series', KUnit's or one of Debian's): the kernel would not link.
builtin_uses_modules()
{
	local m
	{
		for m in "${modules[@]}" "${KUNIT_MODULES[@]}"; do
			[ ! -f "$OBJ/$m.o" ] ||
				nm --defined-only -g "$OBJ/$m.o" | awk -v m="$m" '{ print $3 "\t" m }'
		done
		awk -F'\t' '$3 != "vmlinux" { print $2 "\t" $3 }' "$MODPOST_DIR/debian"
	} | sort -u >"$MODPOST_DIR/module-symbols"
	nm -u "$MODPOST_DIR/series/vmlinux.o" | awk '{ print $2 }' | sort -u |
		join -t "$(printf '\t')" - "$MODPOST_DIR/module-symbols" |
		awk -F'\t' '{ print "built-in code uses " $1 ", which " $2 ".ko defines" }'
}

# The symbols the modules' own code uses that only tests may
# (EXPORT_SYMBOL_IF_KUNIT): with Debian's CONFIG_KUNIT unset they are
# not exported. Needs symbols_used_by's records in used.
test_exports_used()
{
	awk -F'\t' '$5 == "EXPORTED_FOR_KUNIT_TESTING" { print $2 }' \
		"$MODPOST_DIR/modules.symvers" "$MODPOST_DIR/series/exports.symvers" | sort -u |
		comm -12 - "$MODPOST_DIR/used" | sed 's/^/exported for tests only, used by a module: /'
}

# Whether module $1 is a KUnit suite (a *_kunit.c file of its own).
is_test_module() { [[ ${1##*/} == *_kunit ]]; }

# The objects of module $1, from its .mod file.
module_members() { cat "$OBJ/$1.mod"; }

# The symbols module $1 uses in its own code: what its object leaves
# undefined that the lines of its own C files name once preprocessed
# (macros expanded), not those of files they include: a KUnit suite
# compiled into a scheduler's module does not make it a user. Needs the
# members' .i files (preprocessed_members).
symbols_used_by()
{
	local o
	for o in $(module_members "$1"); do
		awk -v own="${o%.o}.c" '
			/^# [0-9]+ "/ { file = $3; gsub(/"/, "", file); next }
			substr(file, length(file) - length(own) + 1) == own' "$OBJ/${o%.o}.i"
	done | grep -oE '[A-Za-z_][A-Za-z0-9_]*' | sort -u >"$MODPOST_DIR/words"
	nm -u "$OBJ/$1.o" | awk '{ print $2 }' | sort -u | comm -12 - "$MODPOST_DIR/words"
}

# Preprocess the members of the modules that are not tests, for
# symbols_used_by.
preprocess_members()
{
	local m targets=()
	for m in "${modules[@]}"; do
		is_test_module "$m" && continue
		mapfile -t -O "${#targets[@]}" targets < <(module_members "$m" | sed 's/[.]o$/.i/')
	done
	run_logged "$LOG-i.log" "preprocessing the modules' C files" kmake -j"$JOBS" "${targets[@]}"
}

# The symbols the series exports that Debian's kernel does not (KUnit's
# aside) which no module's own code uses, only a test or nothing, unless
# exported for tests only (EXPORT_SYMBOL_IF_KUNIT): upstream takes no
# export without a user.
unused_exports()
{
	local m
	for m in "${modules[@]}"; do
		is_test_module "$m" || symbols_used_by "$m"
	done | sort -u >"$MODPOST_DIR/used"
	{
		cut -f2 "$DEBIAN_SYMVERS" "$MODPOST_DIR/kunit/exports.symvers"
	} | sort -u >"$MODPOST_DIR/not-the-series"
	awk -F'\t' '$5 != "EXPORTED_FOR_KUNIT_TESTING" { print $2 }' \
		"$MODPOST_DIR/modules.symvers" "$MODPOST_DIR/series/exports.symvers" | sort -u |
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
[ -d "$PRISTINE" ] || die "no pristine tree in ${PRISTINE#"$TOP"/}; run scripts/prepare.sh first"
tap_result "Debian's exports are those of the pinned kernel" \
	"$([ "$DEBIAN_SYMVERS_PKG_VERSION" = "$LINUX_PKG_VERSION" ] ||
		echo "DEBIAN_SYMVERS_* in scripts/base-kernel.env are of $DEBIAN_SYMVERS_PKG_VERSION, the kernel is $LINUX_PKG_VERSION: move them (make rebase)")"
debian_config
[ -f "$DEBIAN_SYMVERS" ] ||
	debian_package_file "$DEBIAN_SYMVERS_PKG" "$DEBIAN_SYMVERS_PKG_VERSION" \
		"$DEBIAN_SYMVERS_FILE" "$DEBIAN_SYMVERS_SHA256" "$DEBIAN_SYMVERS"

say "configuring ${OBJ#"$TOP"/}: Debian's configuration and ${FRAGMENTS[*]#"$TOP"/}"
configure
tap_result "Debian's configuration takes configs/debian-modules.config as it is" \
	"$( (check_config) 2>&1)"
# With W=1 as below, so that the W=1 step rebuilds none of this.
run_logged "$LOG-prepare.log" "make modules_prepare" kmake -j"$JOBS" W=1 modules_prepare
set_modpost_flags

say "compiling the series' C files with W=1 (log: ${LOG#"$TOP"/}-w1.log)"
mapfile -t objects < <(for c in $(series_sources); do object_compiling "$c"; done | sort -u)
[ ${#objects[@]} -gt 0 ] || die "found no kernel C file in the series"
# Compiled again on each run, so that a rerun shows the warnings again.
(cd "$OBJ" && for o in "${objects[@]}"; do rm -f "$o" "$(dirname "$o")/.$(basename "$o").cmd"; done)
kmake -k -j"$JOBS" W=1 "${objects[@]}" >"$LOG-w1.log" 2>&1 || true
tap_result "the kernel C files the series adds or changes compile without W=1 warnings" \
	"$(compiler_warnings "$LOG-w1.log"
	for o in "${objects[@]}"; do [ -f "$OBJ/$o" ] || echo "$o was not compiled"; done)"
# kbuild runs kernel-doc on the file it compiles only.
tap_result "kernel-doc finds nothing new wrong in the series' headers and included C files" \
	"$(kernel_doc_warnings)"

modules=()
builtin=()
unplaced=()
for o in "${objects[@]}"; do
	if ! m=$(module_of "$o"); then
		unplaced+=("$m")
	elif [ -n "$m" ]; then
		modules+=("$m")
	else
		builtin+=("$o")
	fi
done
mapfile -t modules < <(printf '%s\n' "${modules[@]}" | sed '/^$/d' | sort -u)
tap_result "each object compiled for a module is placed in its module" \
	"$(printf '%s\n' "${unplaced[@]}" | sed '/^$/d')"
tap_result "the schedulers are modules" "$(for m in "${SCHEDULER_MODULES[@]}"; do
	[[ " ${modules[*]} " == *" $m "* ]] || echo "$m is not a module"
done)"

kos=("${modules[@]/%/.ko}" "${KUNIT_MODULES[@]/%/.ko}")
say "building ${kos[*]} (log: ${LOG#"$TOP"/}-ko.log)"
# What a failed build would leave of an earlier run's must not be checked.
(cd "$OBJ" && for m in "${modules[@]}" "${KUNIT_MODULES[@]}"; do rm -f "$m.ko" "$m.o" "$m.mod"; done)
# modpost runs here without vmlinux: it cannot know the kernel's symbols,
# so only the runs below count.
kmake -k -j"$JOBS" W=1 KBUILD_MODPOST_WARN=1 "${kos[@]}" "${KUNIT_BUILTIN[@]}" >"$LOG-ko.log" 2>&1 || true
for ko in "${kos[@]}"; do
	tap_result "$ko links" "$(if [ ! -f "$OBJ/$ko" ]; then
		echo "$ko was not built"
		build_errors "$LOG-ko.log"
	fi
	grep -E "(^| )${ko%.ko}[.:].*objtool|objtool.* ${ko%.ko}[.:]" "$LOG-ko.log" || true)"
done
# The checks below read the modules' objects: only those that linked.
mapfile -t modules < <(for m in "${modules[@]}"; do [ ! -f "$OBJ/$m.ko" ] || echo "$m"; done)
for m in "${KUNIT_MODULES[@]}"; do
	[ -f "$OBJ/$m.ko" ] || die "$m.ko did not link (log: $LOG-ko.log)"
done

say "modpost: the modules against Debian's, the series' and KUnit's exports (logs: ${MODPOST_DIR#"$TOP"/})"
rm -rf "$MODPOST_DIR" && mkdir -p "$MODPOST_DIR"
tap_result "modpost accepts the series' built-in code" \
	"$(builtin_exports "$MODPOST_DIR/series" "${builtin[@]}")"
builtin_exports "$MODPOST_DIR/kunit" "${KUNIT_BUILTIN[@]}" >/dev/null
modpost -w -o "$MODPOST_DIR/kunit.symvers" "${KUNIT_MODULES[@]/%/.o}" >"$MODPOST_DIR/kunit.log" 2>&1 || true
for f in series/exports.symvers kunit/exports.symvers kunit.symvers; do
	[ -f "$MODPOST_DIR/$f" ] ||
		die "modpost did not record the exports of the built-in code and KUnit (logs: ${MODPOST_DIR#"$TOP"/})"
done
merged_exports
tap_result "no symbol the series exports is one Debian's kernel exports elsewhere" "$(clashes)"
# Every module's exports, for the runs that check one module each.
modpost -w -i "$MODPOST_DIR/all.symvers" -o "$MODPOST_DIR/modules.symvers" \
	"${modules[@]/%/.o}" >"$MODPOST_DIR/modules.log" 2>&1 || true
[ -s "$MODPOST_DIR/modules.symvers" ] ||
	die "modpost recorded no exports of the modules (log: ${MODPOST_DIR#"$TOP"/}/modules.log)"
for m in "${modules[@]}"; do
	tap_result "modpost: $m.ko uses only symbols exported to it" "$(modpost_one "$m")"
done
tap_result "the built-in code uses no symbol of a module" "$(builtin_uses_modules)"
preprocess_members
tap_result "every symbol the series exports has a user that is not a test" "$(unused_exports)"
tap_result "no module uses a symbol exported for tests only" "$(test_exports_used)"
echo "1..$n"
[ $bad = 0 ]
