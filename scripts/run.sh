#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make run": build what is needed, boot the patched kernel with the whole
# disk matrix, list each disk with its controller and schedulers, and run
# the short scheduler demonstration (qemu/guest/demo.sh).
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
exit $status
