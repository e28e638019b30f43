#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Compare the guest kernel's configuration with Debian's amd64 one (TAP on
# stdout): every I/O, memory and scheduling option of configs/distro-check
# must be as in Debian, or have its reason for differing written there.
# Configures the guest tree if needed; builds nothing.
. "$(dirname "$0")/lib.sh"
lock_build

# shellcheck source=scripts/kbuild-lib.sh
. "$TOP/scripts/kbuild-lib.sh"

# Its own object directory: the guests of make test read obj/.config
# meanwhile, which a configure from a bundle's .config would rewrite.
export DEBUG=0
OBJ=$BUILD/obj-distro
guest_fragments
"$TOP/scripts/prepare.sh"
configure
debian_config
python3 "$TOP/scripts/distro-config.py" "$TREE" "$OBJ/.config" "$DEBIAN_CONFIG" \
	"$TOP/configs/distro-check"
