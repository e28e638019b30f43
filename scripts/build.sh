#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Configure (tinyconfig + the fragments of guest_fragments) and build
# bzImage with ccache. Incremental: configuring is skipped when
# nothing it reads changed, an unchanged config keeps its mtime, and make
# rebuilds only what changed.
. "$(dirname "$0")/lib.sh"
lock_build

# shellcheck source=scripts/kbuild-lib.sh
. "$TOP/scripts/kbuild-lib.sh"

OBJ=$(obj_dir)
guest_fragments

# The download, the pristine and patched trees and the objects: about 4 GiB.
require_build_space 5 "make build"
# Taken before the sources are prepared: a commit during the build is
# not in the image.
SERIES_BUILT=$(series_id)
"$TOP/scripts/prepare.sh"
configure
check_config
build_kernel
