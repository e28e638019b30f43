# SPDX-License-Identifier: GPL-2.0
# Tallying test results for scripts/test.sh and scripts/soak.sh: TAP
# counts, guests that hang or print kernel reports, the closing line.
# Source after qemu-lib.sh.
# shellcheck shell=bash

passed=0
failed=0
skipped=0
step=0
steps=0 # the caller sets how many steps it has
start=$SECONDS

# Add the leaf results of TAP file $2 under label $1; a file without any
# result counts as one failure.
count_tap()
{
	local label=$1 file=$2 p f s
	read -r p f s < <(awk -f "$TOP/scripts/tap-count.awk" "$file")
	if [ $((p + f + s)) = 0 ]; then
		echo "  FAIL $label: no test results in $file" >&2
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
	echo "    $label: $p passed, $f failed, $s skipped ($((SECONDS - start)) s so far)" >&2
}

# A guest that did not finish or printed a kernel report is one failure.
guest_verdict()
{
	local name=$1
	shift
	if ! boot_guest "$name" "$@" || ! "$TOP/scripts/splats.sh" "$LOGS/$name.console"; then
		failed=$((failed + 1))
	fi
}

# Every KUnit suite of the kernel of $(obj_dir), in one boot.
kunit_stage()
{
	next_step "KUnit suites ($(accel))"
	guest_verdict kunit kunit 600 ""
	count_tap KUnit "$LOGS/kunit.console"
}

# Die unless each variable named is a positive whole number of seconds.
check_seconds()
{
	local knob
	for knob in "$@"; do
		case "${!knob}" in
		'' | *[!0-9]* | 0) die "$knob must be a positive whole number of seconds, not '${!knob}'" ;;
		esac
	done
}

# Seconds a kselftest may take that soaks for $1 s under each scheduler.
soak_time_limit()
{
	local nr
	nr=$(built_schedulers | tr ',' '\n' | wc -l)
	echo $(((${1} + 150) * nr + 300))
}

# Whether word $1 is one of the words that follow.
listed()
{
	local word=$1
	shift
	[[ " $* " == *" $word "* ]]
}

# Seconds stage $1 of make test took in a CI run (the guest stages under
# TCG; checks: the per-patch builds, in the background; debug: per disk
# kind of debug_kinds).
stage_seconds()
{
	# shellcheck disable=SC2154 # debug_kinds: test.sh's
	case $1 in
	checks) echo 1500 ;;
	debug) echo $((700 * ${#debug_kinds[@]})) ;;
	machine) echo 300 ;;
	bench-smoke) echo 100 ;;
	unit | kunit) echo 60 ;;
	*) echo 180 ;;
	esac
}

# Of stages $3..., those of part $1 of $2: each stage, the longest first,
# goes to the part with the least work so far (ties: the first). The n
# parts of one n are the stages of one run, each in exactly one part.
shard_stages()
{
	local part=$1 parts=$2 seconds stage k least
	local -a load
	local -A owner
	shift 2
	for ((k = 0; k < parts; k++)); do load[k]=0; done
	while read -r seconds stage; do
		least=0
		for ((k = 1; k < parts; k++)); do
			if [ "${load[k]}" -lt "${load[least]}" ]; then least=$k; fi
		done
		load[least]=$((load[least] + seconds))
		owner[$stage]=$least
	done < <(for stage in "$@"; do
		echo "$(stage_seconds "$stage") $stage"
	done | sort -s -k1,1nr)
	for stage in "$@"; do
		if [ "${owner[$stage]}" = $((part - 1)) ]; then echo "$stage"; fi
	done
}

next_step()
{
	step=$((step + 1))
	say "[$step/$steps] $*"
}

# "N passed, N failed" (and skipped, if any); fails if anything failed.
print_summary()
{
	echo "tests took $((SECONDS - start)) s; logs in ${LOGS#"$TOP"/}/" >&2
	if [ "$skipped" -gt 0 ]; then
		echo "$passed passed, $failed failed, $skipped skipped"
	else
		echo "$passed passed, $failed failed"
	fi
	[ "$failed" = 0 ]
}
