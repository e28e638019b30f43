#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make shell": an interactive guest shell with the disks of the matrix
# (all of them, or DISK=kind), served by the disk model with PROFILE=name
# (hdd, raid4, ssd, ...) or straight from image files. Ctrl-A X quits QEMU.
. "$(dirname "$0")/lib.sh"
lock_build
. "$TOP/scripts/qemu-lib.sh"

read -ra kinds <<<"${DISK:-$(disk_kinds | tr '\n' ' ')}"
check_disk_kinds "${kinds[@]}"

prepare_guest

if [ -n "${PROFILE:-}" ]; then
	build_disk_model
	model_profiles | grep -qx -- "$PROFILE" ||
		die "unknown profile '$PROFILE' (valid: $(model_profiles | tr '\n' ' '))"
	for kind in "${kinds[@]}"; do
		if why=$(rotational_conflict "$kind" "$PROFILE"); then
			die "$why (DISK= picks the kinds)"
		fi
	done
	trap 'for k in "${kinds[@]}"; do stop_disk_model "$k"; done' EXIT
	for kind in "${kinds[@]}"; do
		start_disk_model "$kind" "$PROFILE"
	done
fi
QEMU_PREFIX=()
run_qemu shell "kunit.enable=0" mon:stdio "file:$LOGS/shell.tap" "${kinds[@]}"
