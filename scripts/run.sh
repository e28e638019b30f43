#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make run": build what is needed, boot the patched kernel with the whole
# disk matrix and list each disk with its controller and schedulers
# (qemu/guest/demo.sh); then show what the series is for, on the hdd disk
# model: a random reader beside buffered writers under mq-deadline, bfq
# and mq-cfq, and sequential readers with the stock and the series'
# readahead, one 10 s measurement each (bench.sh), as a table and a plot
# (bench/report/demo.py).
. "$(dirname "$0")/lib.sh"
lock_build
. "$TOP/scripts/qemu-lib.sh"

read -ra kinds <<<"${DISKS:-$(disk_kinds | tr '\n' ' ')}"
check_disk_kinds "${kinds[@]}"

prepare_guest

say "booting $(cat "$(obj_dir)/include/config/kernel.release") ($(accel)) with disks: ${kinds[*]}"
console=$LOGS/run.console
: >"$console"
tail -n +1 -f "$console" 2>/dev/null 200<&- | grep --line-buffered -v '^\[' 200<&- &
tailer=$!
trap 'kill $tailer 2>/dev/null' EXIT
status=0
boot_guest run run 300 "quiet kunit.enable=0" "${kinds[@]}" || status=$?
sleep 1
"$TOP/scripts/splats.sh" "$console" || status=1
say "logs: ${LOGS#"$TOP"/}/run.console"
[ $status = 0 ] || exit $status

# One bench.sh run of the demonstration (its settings as arguments);
# prints the run's directory and leaves build/bench/latest naming make
# bench's last run.
demo_run()
{
	local log=$LOGS/run-$1.log latest=$BUILD/bench/latest before run
	shift
	before=$(readlink "$latest" || true)
	bench_only PROFILE=hdd SECS=10 REPS=1 "$@" >"$log" 2>&1 || {
		tail -n 5 "$log" >&2
		die "the demonstration's bench run failed (log: ${log#"$TOP"/})"
	}
	run=$(readlink -f "$latest")
	if [ -n "$before" ]; then ln -sfn "$before" "$latest"; else rm -f "$latest"; fi
	echo "$run"
}

# The demonstration measures the guest kernel, not the debug one.
if [ "${DEBUG:-0}" = 1 ]; then
	say "no demonstration on the debug kernel"
	exit 0
fi
say "demonstration on the hdd disk model, about 4 minutes here (logs: ${LOGS#"$TOP"/}/run-*.log)"
writers=$(demo_run writers CELLS=seed001-heavy SCHEDULERS="mq-deadline bfq mq-cfq")
streams=$(demo_run streams CELLS=seed002-seq16k THREADS=16 SCHEDULERS="mq-deadline-rastock mq-deadline")
echo
python3 "$TOP/bench/report/demo.py" "$writers" "$streams" "$BUILD/bench/demo.png"
echo "One 10 s measurement each (in ${writers#"$TOP"/} and ${streams#"$TOP"/}). Measured with repetitions and intervals: make bench."
