#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make kunit": build the guest kernel (DEBUG=1: the debug one) and run
# its KUnit suites in one boot; the inner loop after a change to code that
# has a KUnit suite. Ends with "N passed, N failed", as make test does.
. "$(dirname "$0")/lib.sh"
lock_build
. "$TOP/scripts/qemu-lib.sh"
. "$TOP/scripts/test-lib.sh"

steps=1
prepare_guest
kunit_stage
# What failed, with KUnit's own account of it.
grep -E -A3 'not ok|(EXPECTATION|ASSERTION) FAILED' "$LOGS/kunit.console" >&2 || true
print_summary
