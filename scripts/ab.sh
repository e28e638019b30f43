#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make ab A=<rev> B=<rev> CELLS=...": benchmark cells on the kernels of
# two versions of this repository, booted in turn (A B A B ...: one
# repetition per boot, or two where labels write read_ahead_kb, so that
# drift of a shared host falls on both),
# then each figure's ratio B/A with its 95 % interval. Each revision's
# kernel is built from its own tree (git archive into build/ab/<sha>/,
# its own scripts and configuration, ccache); the guest and the harness
# are this checkout's. Report and plot in build/ab/runs/<time>/.
#
#   A, B       revisions (anything git rev-parse takes)
#   B_PATCH    a kernel patch (a file) that side B's series ends with: an
#              experiment on B's kernel without a commit (its tree is
#              build/ab/<sha>+<the patch's hash>/)
#   CELLS      cells of bench/cells.conf (required: a whole bench twice
#              over is days)
#   REPS=3     boots of each kernel
#   PROFILE, SCHEDULERS, THREADS, SECS, GUEST_MIB   as for make bench
. "$(dirname "$0")/lib.sh"
lock_build

REPS=${REPS:-3}
[ -n "${A:-}" ] && [ -n "${B:-}" ] || die "make ab needs A=<rev> and B=<rev>"
[ -n "${CELLS:-}" ] || die "make ab needs CELLS=\"...\" (cells of bench/cells.conf)"
B_PATCH=${B_PATCH:-}
if [ -n "$B_PATCH" ]; then
	[ -f "$B_PATCH" ] || die "B_PATCH=$B_PATCH is not a file"
	B_PATCH=$(readlink -f "$B_PATCH")
fi
case "$REPS" in
'' | *[!0-9]* | 0) die "REPS takes a positive whole number, not '$REPS'" ;;
esac

# The commit $2 names, or die naming side $1.
commit_of()
{
	git -C "$TOP" rev-parse --verify --quiet "$2^{commit}" ||
		die "$1=$2 is not a revision of this repository"
}

# The source tree of commit $1, extracted once; with a patch file $2, its
# series ends with that patch.
rev_tree()
{
	local dir=$BUILD/ab/$1 extra=${2:-}
	[ -z "$extra" ] || dir+=+$(sha256sum <"$extra" | cut -c1-12)
	if [ ! -f "$dir/.extracted" ]; then
		rm -rf "$dir"
		mkdir -p "$dir"
		git -C "$TOP" archive "$1" | tar -x -C "$dir" ||
			die "cannot extract $1 into ${dir#"$TOP"/}"
		if [ -n "$extra" ]; then
			{ cp "$extra" "$dir/patches/9999-ab-experiment.patch" &&
			  echo 9999-ab-experiment.patch >>"$dir/patches/series"; } ||
				die "cannot add $extra to ${dir#"$TOP"/}"
		fi
		touch "$dir/.extracted"
	fi
	echo "$dir"
}

# Build side $1's kernel from tree $2 and print its bzImage.
build_side()
{
	local side=$1 dir=$2 log=$LOGS/ab-build-$1.log
	share_download "$dir"
	say "building $side (${dir#"$TOP"/}), log ${log#"$TOP"/}"
	env -u MAKEFLAGS -u MAKELEVEL make -C "$dir" build >"$log" 2>&1 ||
		die "building $side failed: $(tail -n 1 "$log")"
	# The side's tree lies in this checkout and cannot name itself: its
	# commit, and +the hash of a B_PATCH.
	local name=${dir##*/} series
	series=$(git -C "$TOP" rev-parse --short "${name%%+*}")
	[ "$name" = "${name%%+*}" ] || series+=+${name#*+}
	echo "$series" >"$dir/build/obj/arch/x86/boot/bzImage.series"
	echo "$dir/build/obj/arch/x86/boot/bzImage"
}

# Records of the bench run just finished, tagged with side $1 and its
# commit $2, onto $RUN/results.jsonl; none if no run finished since the
# one $3 named.
take_results()
{
	local side=$1 sha=$2 before=$3 run
	run=$(readlink -f "$BUILD/bench/latest" || true)
	if [ -z "$run" ] || [ "$run" = "$before" ] || [ ! -f "$run/results.jsonl" ]; then
		warn "the $side boot left no results"
		return
	fi
	python3 -c '
import json, sys
side, sha = sys.argv[1], sys.argv[2]
for line in sys.stdin:
    if line.strip():
        record = json.loads(line)
        record.update(ab=side, ab_rev=sha)
        print(json.dumps(record, sort_keys=True))
' "$side" "$sha" <"$run/results.jsonl" >>"$RUN/results.jsonl"
	echo "$side $run" >>"$RUN/boots"
}

mkdir -p "$LOGS"
sha_a=$(commit_of A "$A")
sha_b=$(commit_of B "$B")
image_a=$(build_side A "$(rev_tree "$sha_a")")
image_b=$(build_side B "$(rev_tree "$sha_b" "$B_PATCH")")
RUN=$BUILD/ab/runs/$(date +%Y%m%d-%H%M%S)
mkdir -p "$RUN"
printf 'A %s %s\nB %s %s%s\n' "$A" "$sha_a" "$B" "$sha_b" \
	"${B_PATCH:+ + $B_PATCH (kept as B.patch)}" >"$RUN/revisions"
[ -z "$B_PATCH" ] || cp "$B_PATCH" "$RUN/B.patch"
boot=0
for ((rep = 1; rep <= REPS; rep++)); do
	for side in A B; do
		boot=$((boot + 1))
		say "[boot $boot/$((2 * REPS))] $side, repetition $rep"
		image=$image_a sha=$sha_a
		[ "$side" = B ] && image=$image_b sha=$sha_b
		before=$(readlink -f "$BUILD/bench/latest" || true)
		if ! KERNEL_IMAGE=$image REPS=1 REP_FROM=$rep "$TOP/scripts/bench.sh"; then
			warn "the $side run of repetition $rep was incomplete; its finished measurements count"
			touch "$RUN/INCOMPLETE"
		fi
		take_results "$side" "$sha" "$before"
	done
done
python3 "$TOP/bench/ab-report.py" "$RUN"
[ ! -f "$RUN/INCOMPLETE" ] || die "some runs were incomplete; see above and $RUN/boots"
