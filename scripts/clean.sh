#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make clean": empty build/ once no other make target uses it. Its lock
# file stays, for a target that waits on it already.
. "$(dirname "$0")/lib.sh"
lock_build

# The pristine tree is read-only; build/ may be a symlink (hence the /).
chmod -R u+w "$BUILD"/ 2>/dev/null || true
find "$BUILD"/ -mindepth 1 -maxdepth 1 ! -name build.lock -exec rm -rf {} +
