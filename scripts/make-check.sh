#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make check": checkpatch, the citations and the CI workflows
# (check.sh), the configuration against Debian's, the export, the
# per-patch builds and the series in Debian's configuration, under one
# hold of the build lock: no other target runs between them.
. "$(dirname "$0")/lib.sh"
lock_build

"$TOP/scripts/check.sh"
"$TOP/scripts/distro-config.sh"
"$TOP/scripts/export.sh" --check
env -u BISECT_LAST "$TOP/scripts/bisect.sh"
"$TOP/scripts/distro-modules.sh"
