#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make shell": an interactive guest shell with the disks of the matrix
# (all of them, or DISK=kind). Ctrl-A X quits QEMU.
. "$(dirname "$0")/lib.sh"
. "$TOP/scripts/qemu-lib.sh"

read -ra kinds <<<"${DISK:-$(disk_kinds | tr '\n' ' ')}"
check_disk_kinds "${kinds[@]}"

"$TOP/scripts/deps.sh"
"$TOP/scripts/build.sh"
"$TOP/qemu/mkinitramfs.sh"

QEMU_PREFIX=()
run_qemu shell "kunit.enable=0" mon:stdio "file:$LOGS/shell.tap" "${kinds[@]}"
