# SPDX-License-Identifier: GPL-2.0
# Shared by the benchmark jobs (run in the guest). Each job is called as
# "JOB prepare" (lay out its files once per boot), "JOB run" (measure,
# fio JSON or dbench text on stdout) and "JOB cleanup" (drop what the run
# wrote, so the disk does not fill up over many runs). Environment: DEV,
# DIR, THREADS, BS, SECS. Files are laid out by one writer at a time, so
# each is contiguous.

# fio's per-I/O completion logs live in RAM, not on the disk under test:
# "--write_lat_log=$COMPLETIONS/ROLE" on a job of fio_run_logged writes
# ROLE_clat.N.log for its Nth process, one line per completed request
# (log_avg_msec=0): "ms since the process started, latency, ...".
COMPLETIONS=${COMPLETIONS:-/tmp/completions}

# fio with the options every measured run shares: for SECS seconds or,
# where the cell gives no runtime (SECS "-"), until every job has done its
# size once. A timed run ends with readahead read but not yet used, which
# reading to the end of each file leaves out.
fio_run()
{
	set -- --output-format=json --group_reporting=0 "$@"
	[ "$SECS" = - ] || set -- --time_based --runtime="$SECS" "$@"
	fio "$@"
}

# The scheduler's CPU cost: two jobs named $1 of 4 KiB random direct
# reads at queue depth 32 on DEV.
randread_iops()
{
	fio_run --name="$1" --filename="$DEV" --ioengine=libaio --direct=1 \
		--iodepth=32 --rw=randread --bs="$BS" --numjobs=2
}

# "READS SECTORS": read requests the device under test completed so far
# and the sectors they read (fields 1 and 3 of its sysfs stat file).
DISKSTAT=${DISKSTAT:-/sys/block/${DEV##*/}/stat}
disk_reads()
{
	awk '{ print $1, $3 }' "$DISKSTAT" 2>/dev/null
}

# With iosched.ratrace=1 on the kernel's command line (make bench
# RA_TRACE=1), the readahead windows the run issued are traced
# (readahead:readahead_window, a tracepoint of the series).
CMDLINE=${CMDLINE:-/proc/cmdline}
TRACEFS=${TRACEFS:-/sys/kernel/tracing}
RA_EVENT=events/readahead/readahead_window/enable
PAGE_KIB=${PAGE_KIB:-4}
ra_trace_start()
{
	grep -qw 'iosched.ratrace=1' "$CMDLINE" || return 1
	[ -e "$TRACEFS/trace" ] || mount -t tracefs none "$TRACEFS" 2>/dev/null
	[ -e "$TRACEFS/$RA_EVENT" ] || return 1
	echo 0 >"$TRACEFS/tracing_on" && : >"$TRACEFS/trace" &&
		echo 1 >"$TRACEFS/$RA_EVENT" && echo 1 >"$TRACEFS/tracing_on"
}

# The size= field, in pages, of each traced window whose decision is
# matched by the extended regular expression $1.
ra_trace_sizes()
{
	awk -v decision="$1" '/ readahead_window: / && $0 ~ " " decision " start=" {
		for (i = 1; i <= NF; i++)
			if (sub(/^size=/, "", $i)) print $i
	}' "$TRACEFS/trace"
}

# "ra_windows N KIB": the windows traced and their KiB in all, leaving out
# the decisions that size none (a random read, a deferral); "ra_grown N
# MEDIAN_KIB MAX_KIB": of the windows a reader's mark grew, which settle
# at the largest a stream is given, how many, the (lower) median and the
# largest.
# Where more were issued than the trace buffer holds, these are the last
# ones; and the decisions (ra_trace_decisions).
ra_trace_windows()
{
	echo 0 >"$TRACEFS/$RA_EVENT"
	ra_trace_sizes '(initial|history|grow|interleaved|thrash)' |
		awk -v kib="$PAGE_KIB" '{ n++; pages += $1 }
			END { print "ra_windows", n + 0, pages * kib }'
	ra_trace_sizes grow | sort -n |
		awk -v kib="$PAGE_KIB" '{ size[++n] = $1 }
			END { if (n) print "ra_grown", n,
				size[int((n + 1) / 2)] * kib, size[n] * kib }'
	ra_trace_decisions
}

# "ra_decided DECISION N" for each decision of the tracepoint, 0 for one
# not traced (so that a mean over runs counts it): how often streams
# started (initial), grew, were cut by thrashing, were deferred...
RA_DECISIONS='initial history random grow interleaved thrash deferred'
ra_trace_decisions()
{
	awk -v decisions="$RA_DECISIONS" '
	BEGIN { split(decisions, known); for (i in known) n[known[i]] = 0 }
	/ readahead_window: / {
		for (i = 2; i <= NF; i++)
			if ($i ~ /^start=/) { n[$(i - 1)]++; break }
	}
	END { for (d in n) print "ra_decided", d, n[d] }' "$TRACEFS/trace" |
		sort
}

# Run "$@", then print "vmstat NAME DELTA" for each readahead counter of
# /proc/vmstat (ra_thrash, ...: none on a kernel without the series) and
# for workingset_refault_file, which counts evicted pages read again under
# either algorithm; "disk_reads REQUESTS SECTORS" for the device, whose
# mean request size shows how large the windows really were; and, when
# asked, the traced windows (ra_trace_windows).
VMSTAT=${VMSTAT:-/proc/vmstat}
RA_COUNTERS='^(ra_[a-z_]*|workingset_refault_file) '
with_ra_counters()
{
	before=$(grep -E "$RA_COUNTERS" "$VMSTAT")
	reads_before=$(disk_reads)
	tracing=0
	ra_trace_start && tracing=1
	"$@"
	status=$?
	[ "$tracing" = 1 ] && ra_trace_windows
	grep -E "$RA_COUNTERS" "$VMSTAT" | while read -r name after; do
		prev=$(echo "$before" | awk -v n="$name" '$1 == n { print $2 }')
		echo "vmstat $name $((after - ${prev:-0}))"
	done
	[ -n "$reads_before" ] && echo "$(disk_reads) $reads_before" |
		awk 'NF == 4 { print "disk_reads", $1 - $3, $2 - $4 }'
	return $status
}

# Lay out file $1 of size $2 sequentially and make it durable.
lay_out()
{
	[ -f "$1" ] && return 0
	fio --name=layout --filename="$1" --size="$2" --rw=write --bs=1M \
		--end_fsync=1 >/dev/null
}

# Print "gap ROLE MS" per completion log: the longest time the process
# went without a completed request, from its start to its first
# completion or between two completions (the whole run if none
# completed). Only these figures leave the guest, not the logs.
completion_gaps()
{
	for log in "$COMPLETIONS"/*_clat.*.log; do
		[ -f "$log" ] || continue
		role=${log##*/}
		awk -F, -v role="${role%%_clat.*}" -v whole=$((SECS * 1000)) '
			{ if ($1 - last > gap) gap = $1 - last; last = $1 }
			END { print "gap", role, (NR ? gap + 0 : whole) }' "$log"
	done
}

# fio_run with completion logs, then their gaps; the logs are dropped.
fio_run_logged()
{
	rm -rf "$COMPLETIONS" && mkdir -p "$COMPLETIONS" || return
	fio_run --log_avg_msec=0 "$@" && completion_gaps
	status=$?
	rm -rf "$COMPLETIONS"
	return $status
}
