#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make bench": the seed workloads (bench/cells.conf) under every scheduler,
# side by side in one boot per profile, disk kind, guest memory size and
# filesystem (and one more for the labels that write read_ahead_kb), on
# disks served by the disk model (qemu/diskmodel). Results, report and
# plots go to build/bench/<run>/ (build/bench/latest links the newest).
#
#   QUICK=1          the quick cells on their first profile, one repetition
#   PROFILE=hdd      only these profiles (space or comma separated); the
#                    cells CELLS names run on them whether their line in
#                    cells.conf lists them or not
#   CELLS="a b"      only these cells
#   SCHEDULERS="x"   only these scheduler labels
#   REPS=5           repetitions (scheduler order rotates between them);
#                    default 5 for the cells of a target, 3 for the rest
#   THREADS="1,4"    override the cells' thread counts
#   SECS=5           override the cells' runtimes
#   GUEST_MIB=1024   override the cells' guest memory (one size per run:
#                    the report tells cells apart by profile and disk;
#                    seed002-cached needs its 2048 to stay cached)
#   REP_FROM=1       number of the first repetition (make ab runs one
#                    repetition per boot, each with its own number)
#   RA_TRACE=1       trace the readahead windows (readahead_window) and
#                    report their mean size (readahead_window_kib), the
#                    grown ones' median and largest, and the count of each
#                    decision (ra_decided_*): a diagnostic that costs the
#                    guest a trace buffer
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$TOP/scripts/qemu-lib.sh"

CELLS_CONF=$TOP/bench/cells.conf
QUICK=${QUICK:-0}
[ "$QUICK" = 1 ] && REPS=${REPS:-1}
DISK_SIZE=16G

words() { echo "$*" | tr ',' ' '; }

cells() { awk '!/^#/ && NF { print $1 }' "$CELLS_CONF"; }

# Field N of cell $1 (2 job, 3 seed, 4 profiles, 5 disk, 6 mem, 7 threads,
# 8 bs, 9 secs, 10 quick threads, 11 filesystem).
cell_field() { awk -v c="$1" -v f="$2" '$1 == c { print $f }' "$CELLS_CONF"; }

# Scheduler labels: every built scheduler, plus bfq without low_latency
# and mq-deadline with the stock readahead algorithm (mq-deadline-rastock;
# every other label runs the series' adaptive readahead).
scheduler_labels()
{
	local s
	for s in $(words "$(built_schedulers)"); do
		echo "$s"
		[ "$s" = bfq ] && echo bfq-lowlat0
		[ "$s" = mq-deadline ] && echo mq-deadline-rastock
	done
	return 0
}

# Die unless each word of $2 is one of $3; $1 names what they are.
check_names()
{
	local what=$1 valid=$3 w
	for w in $(words "$2"); do
		echo " $valid " | grep -q " $w " ||
			die "unknown $what '$w' (valid: $valid)"
	done
}

# The numeric knobs, checked before anything is built.
validate_numbers()
{
	local n
	for n in "${REPS:-1}" "${REP_FROM:-1}" "${SECS:-1}" "${GUEST_MIB:-1}" $(words "${THREADS:-1}"); do
		case "$n" in
		'' | *[!0-9]* | 0*) die "REPS, REP_FROM, SECS, GUEST_MIB and THREADS take positive whole numbers without leading zeros, not '$n'" ;;
		esac
	done
	case "${RA_TRACE:-0}" in
	0 | 1) ;;
	*) die "RA_TRACE takes 0 or 1, not '$RA_TRACE'" ;;
	esac
}

# The names, some of which (the schedulers) only the built kernel knows.
validate_names()
{
	check_names cell "${CELLS:-}" "$(cells | tr '\n' ' ')"
	check_names profile "${PROFILE:-}" "$(model_profiles | tr '\n' ' ')"
	check_names scheduler "$(label_bases "${SCHEDULERS:-}")" \
		"$(scheduler_labels | tr '\n' ' ')"
	check_tunable_settings "${SCHEDULERS:-}"
}

# A label may end in tunables that the guest sets after selecting its
# scheduler: LABEL@NAME=VALUE[@NAME=VALUE...], for example
# mq-cfq@slice_idle=0. The labels of $1 without them:
label_bases()
{
	local w
	for w in $(words "$1"); do
		echo "${w%%@*}"
	done
}

# The labels of $1 that carry tunables, in the order given; one listed
# twice runs once, as a plain label does.
variant_labels()
{
	local w
	for w in $(words "$1"); do
		[[ $w == *@* ]] && echo "$w"
	done | awk '!seen[$0]++'
}

check_tunable_settings()
{
	local label
	for label in $(variant_labels "$1"); do
		[[ $label =~ ^[^@]+(@[a-z_]+=[A-Za-z0-9_]+)+$ ]] ||
			die "scheduler label '$label': its tunables must read @NAME=VALUE"
		if [[ $label =~ @read_ahead_kb=([^@]*) ]] &&
			[[ ! ${BASH_REMATCH[1]} =~ ^[0-9]+$ ]]; then
			die "scheduler label '$label': read_ahead_kb takes KiB as a whole number"
		fi
	done
}

selected() { [ -z "$2" ] || echo " $(words "$2") " | grep -q " $1 "; }

# The boot a label runs in: "written" if it writes read_ahead_kb, which the
# kernel keeps and which would bound the adaptive windows of every label
# measured after it in the same boot; "default" for the others.
boot_kind()
{
	case "$1" in
	*@read_ahead_kb=*) echo written ;;
	*) echo default ;;
	esac
}

# The schedulers of boot kind $2 in the order of repetition $1: rotated
# within the boot, so that none always goes first there.
rotated_schedulers()
{
	local all n k
	mapfile -t all < <( (scheduler_labels | while read -r s; do
		selected "$s" "${SCHEDULERS:-}" && echo "$s"; done
		variant_labels "${SCHEDULERS:-}") | while read -r s; do
		[ "$(boot_kind "$s")" = "$2" ] && echo "$s"; done)
	n=${#all[@]}
	for ((k = 0; k < n; k++)); do
		echo "${all[$(((k + $1 - 1) % n))]}"
	done
}

# Repetitions of cell $1 on profile $2: REPS, else 5 where a target
# judges the cell (a verdict needs a tight interval), else 3.
cell_reps()
{
	if [ -n "${REPS:-}" ]; then
		echo "$REPS"
	elif grep -qx "$1 $2" <<<"$TARGET_CELLS"; then
		echo 5
	else
		echo 3
	fi
}

# Die, leaving no run behind: a rerun starts afresh.
abandon_run()
{
	rm -rf "$RUN"
	die "$1"
}

# Append stdin to plan file $1, unless it is empty: a plan file is a boot.
append_plan()
{
	local lines
	lines=$(cat)
	[ -z "$lines" ] || echo "$lines" >>"$1"
}

# The group fields of plan file name $1, "PROFILE DISK MEM FS BOOT_KIND".
group_fields()
{
	basename "$1" | tr _ ' '
}

# Write one plan file per boot group:
# $RUN/plan/<profile>_<disk>_<mem>_<fs>_<default|written>.
write_plans()
{
	local cell job profile profiles disk mem threads bs secs fs t rep s first
	local kind
	TARGET_CELLS=$(python3 "$TOP/bench/report/report.py" --target-cells) ||
		die "bench/report/report.py --target-cells failed"
	mkdir -p "$RUN/plan"
	for cell in $(cells); do
		selected "$cell" "${CELLS:-}" || continue
		job=$(cell_field "$cell" 2)
		disk=$(cell_field "$cell" 5)
		mem=${GUEST_MIB:-$(cell_field "$cell" 6)}
		threads=$(cell_field "$cell" 7)
		bs=$(cell_field "$cell" 8)
		secs=$(cell_field "$cell" 9)
		fs=$(cell_field "$cell" 11)
		case "$disk/$fs" in
		nullb/-|*/ext4|*/xfs) ;;
		*) abandon_run "cell $cell: filesystem '$fs' on $disk (valid: ext4, xfs; - on nullb)" ;;
		esac
		if [ "$QUICK" = 1 ]; then
			threads=$(cell_field "$cell" 10)
			[ "$threads" = - ] && continue
			[ "$secs" = - ] || secs=$((secs < 10 ? secs : 10))
		fi
		[ "$threads" != - ] && [ -n "${THREADS:-}" ] && threads=$THREADS
		[ "$secs" != - ] && [ -n "${SECS:-}" ] && secs=$SECS
		profiles=$(words "$(cell_field "$cell" 4)")
		[ -n "${CELLS:-}" ] && [ -n "${PROFILE:-}" ] &&
			profiles=$(words "$PROFILE" | tr ' ' '\n' | awk '!seen[$0]++' | xargs)
		[ "$QUICK" = 1 ] && [ -z "${PROFILE:-}" ] && profiles=${profiles%% *}
		for profile in $profiles; do
			selected "$profile" "${PROFILE:-}" || continue
			first=${REP_FROM:-1}
			for kind in default written; do
				for rep in $(seq "$first" $((first + $(cell_reps "$cell" "$profile") - 1))); do
					for t in $(words "$threads"); do
						for s in $(rotated_schedulers "$rep" "$kind"); do
							echo "$cell $job $t $bs $secs $s $rep"
						done
					done
				done | append_plan "$RUN/plan/${profile}_${disk}_${mem}_${fs}_${kind}"
			done
		done
	done
	[ -n "$(ls "$RUN/plan")" ] || abandon_run "no cell matches CELLS/PROFILE/QUICK"
}

# Die, leaving no run behind, if a group's disk kind cannot report its
# profile's nature (rotational or not) to the guest.
check_plan_disks()
{
	local plan profile disk why
	for plan in "$RUN"/plan/*; do
		read -r profile disk _ <<<"$(group_fields "$plan")"
		if [ "$disk" = nullb ]; then
			[ "$profile" = raw ] && continue
			why="profile $profile on null_blk: null_blk has no disk model, only profile raw"
		else
			why=$(rotational_conflict "$disk" "$profile") || continue
		fi
		abandon_run "$why"
	done
}

# Seconds a plan should take: its runtimes plus a margin per measurement.
plan_seconds()
{
	awk '{ t += ($5 == "-" ? 60 : $5) + 20 } END { print t + 0 }' "$1"
}

# Follow the guest's progress: measurements done, left, and an ETA from
# the pace so far (the plan's estimate until the first one is done).
show_progress()
{
	local out=$1 total=$2 group=$3 done_before=-1 n start=$SECONDS left
	while kill -0 $$ 2>/dev/null && sleep 10; do
		n=$(grep -c '^BENCH-END' "$out" 2>/dev/null || true)
		[ "$n" = "$done_before" ] && continue
		done_before=$n
		if [ "$n" -gt 0 ]; then
			left=$(( (SECONDS - start) * (total - n) / n ))
		else
			left=$GROUP_SECS
		fi
		echo "    [$group] $n/$total measurements done, about $left s left" >&2
	done
}

# The disk model's stats for kind $1 as a JSON object ({} without them).
model_stats_json()
{
	local file
	file=$(model_stats_file "$1")
	[ -s "$file" ] || { echo '{}'; return; }
	awk '$2 ~ /^[0-9]+$/ { printf "%s\"%s\": %s", sep, $1, $2; sep = ", " }
		BEGIN { printf "{" } END { print "}" }' "$file"
}

# The revision the kernel about to boot was built from, as its build
# recorded it; for an image without the record, the checkout's if it is
# this checkout's image, or unknown (KERNEL_IMAGE, make ab).
image_series()
{
	if [ -s "$(kernel_image).series" ]; then
		cat "$(kernel_image).series"
	elif [ -z "${KERNEL_IMAGE:-}" ]; then
		git -C "$TOP" describe --always --dirty 2>/dev/null || echo unknown
	else
		echo unknown
	fi
}

# meta_json GROUP SERIES: a group's record of what it ran on.
meta_json()
{
	local profile disk mem fs
	read -r profile disk mem fs _ <<<"$(group_fields "$1")"
	printf '{"run": "%s", "kernel": "%s", "series": "%s", "boot": "%s", "profile": "%s", "disk": "%s", "mem_mib": %s, "fs": "%s", "model_replies": %s}' \
		"$(basename "$RUN")" "$(cat "$(obj_dir)/include/config/kernel.release")" \
		"$2" "$1" "$profile" "$disk" "$mem" "$fs" "$(model_stats_json "$disk")"
}

seeds_json()
{
	awk '!/^#/ && NF { printf "%s\"%s\": \"%s\"", sep, $1, $3; sep = ", " }
		BEGIN { printf "{" } END { print "}" }' "$CELLS_CONF"
}

# Bytes the disk images of this run may still grow by: they are sparse,
# and a benchmark fills them as it writes.
images_growth()
{
	local kind img total=0
	for kind in $(find "$RUN/plan" -type f -printf '%f\n' |
		      cut -d_ -f2 | sort -u); do
		[ "$kind" = nullb ] && continue
		img=$(disk_image "$kind")
		total=$((total + $(stat -c %s "$img") - $(du -B1 "$img" | cut -f1)))
	done
	echo "$total"
}

# A guest whose image meets a full host disk gets I/O errors and dies
# without a word in its log: warn when the images could fill the disk.
check_free_space()
{
	local growth free
	growth=$(images_growth)
	free=$(free_bytes)
	[ "$free" -ge $((growth + (1 << 30))) ] ||
		warn "the disk images may grow by $((growth >> 20)) MiB, but only $((free >> 20)) MiB are free in $BUILD; a full disk stops the run"
}

# Boot one group's guest with its plan and collect its results.
run_group()
{
	local plan=$1 group profile disk mem fs kind out total status=0 kinds=()
	local append series note=
	group=$(basename "$plan")
	read -r profile disk mem fs kind <<<"$(group_fields "$plan")"
	[ "$kind" = written ] && note=", labels that write read_ahead_kb"
	out=$LOGS/bench-$group.tap
	total=$(wc -l <"$plan")
	GROUP_SECS=$(plan_seconds "$plan")
	say "[$((++GROUP_NO))/$NGROUPS] $profile on $disk ($fs), ${mem} MiB guest$note: $total measurements, about $GROUP_SECS s"
	append="quiet kunit.enable=0"
	if [ "$disk" = nullb ]; then
		append+=" null_blk.queue_mode=2 null_blk.submit_queues=2 null_blk.memory_backed=1 null_blk.gb=1"
	else
		kinds=("$disk")
		start_disk_model "$disk" "$profile"
		# What the guest checks queue/rotational against.
		append+=" iosched.rotational=$(model_rotational "$profile")"
		append+=" iosched.fs=$fs"
	fi
	[ "${RA_TRACE:-0}" = 1 ] && append+=" iosched.ratrace=1"
	show_progress "$out" "$total" "$group" 200<&- &
	local progress=$!
	# Taken at boot: the image may be rebuilt while the guest runs.
	series=$(image_series)
	QEMU_EXTRA=(-fw_cfg "name=opt/iosched/plan,file=$plan")
	MEM=$mem boot_guest "bench-$group" bench $((GROUP_SECS * 2 + 300)) \
		"$append" "${kinds[@]}" || status=1
	QEMU_EXTRA=()
	kill "$progress" 2>/dev/null || true
	if [ "$disk" != nullb ]; then
		check_disk_model "$disk" || status=1
		stop_disk_model "$disk"
	fi
	"$TOP/scripts/splats.sh" "$LOGS/bench-$group.console" || status=1
	local collect=(python3 "$TOP/bench/collect.py" "$out"
		--meta "$(meta_json "$group" "$series")" --seeds "$(seeds_json)")
	if [ $status != 0 ]; then
		touch "$RUN/INCOMPLETE"
		collect+=(--incomplete)
	fi
	"${collect[@]}" >>"$RUN/results.jsonl" || touch "$RUN/INCOMPLETE"
}

main()
{
	lock_build
	validate_numbers
	prepare_guest
	build_disk_model
	validate_names

	RUN=$BUILD/bench/$(date +%Y%m%d-%H%M%S)
	mkdir -p "$RUN"
	write_plans
	check_plan_disks
	check_free_space
	NGROUPS=$(find "$RUN/plan" -type f | wc -l)
	GROUP_NO=0
	trap 'for k in $(disk_kinds); do stop_disk_model "$k"; done' EXIT
	for plan in "$RUN"/plan/*; do
		run_group "$plan"
		[ "$(free_bytes)" -ge $((64 << 20)) ] ||
			die "the host disk is full: free space in $BUILD and run again; finished cells are in $RUN"
	done
	ln -sfn "$(basename "$RUN")" "$BUILD/bench/latest"
	python3 "$TOP/bench/report/report.py" "$RUN"
	if [ -f "$RUN/INCOMPLETE" ]; then
		die "run incomplete (a measurement, a guest or the disk model failed; see above); finished cells are in $RUN"
	fi
}

# Sourced (scripts/tests/test_bench_plans.py), only the functions are wanted.
[ "${BASH_SOURCE[0]}" != "$0" ] || main
