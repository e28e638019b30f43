#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# "make run": show every disk of the matrix, with its controller, driver,
# hardware queues and schedulers. The demonstration that follows runs on
# the host's disk model (scripts/run.sh).
. /usr/lib/iosched/guest-lib.sh

print_disks
