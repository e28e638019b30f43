# SPDX-License-Identifier: GPL-2.0
# Shared by the benchmark jobs (run in the guest). Each job is called as
# "JOB prepare" (lay out its files once per boot), "JOB run" (measure,
# fio JSON or dbench text on stdout) and "JOB cleanup" (drop what the run
# wrote, so the disk does not fill up over many runs). Environment: DEV,
# DIR, THREADS, BS, SECS. Files are laid out by one writer at a time, so
# each is contiguous.

# fio with the options every measured run shares.
fio_run()
{
	fio --output-format=json --time_based --runtime="$SECS" \
		--group_reporting=0 "$@"
}

# Lay out file $1 of size $2 sequentially and make it durable.
lay_out()
{
	[ -f "$1" ] && return 0
	fio --name=layout --filename="$1" --size="$2" --rw=write --bs=1M \
		--end_fsync=1 >/dev/null
}
