#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages the host side needs (scripts/host-packages),
# and nothing when they are all there already.
. "$(dirname "$0")/lib.sh"

missing_packages()
{
	local pkg
	grep -v '^#' "$TOP/scripts/host-packages" | while read -r pkg; do
		[ -n "$pkg" ] || continue
		dpkg-query -W -f='${Status}\n' "$pkg" 2>/dev/null |
			grep -q '^install ok installed$' || echo "$pkg"
	done
}

mapfile -t missing < <(missing_packages)
[ ${#missing[@]} -eq 0 ] && exit 0

[ "$(id -u)" = 0 ] || die "missing host packages (install them as root): ${missing[*]}"
say "installing host packages: ${missing[*]}"
mkdir -p "$LOGS"
run_logged "$LOGS/apt-update.log" "apt-get update" apt-get update
export DEBIAN_FRONTEND=noninteractive
run_logged "$LOGS/apt-install.log" "installing ${missing[*]}" \
	apt-get install -y --no-install-recommends "${missing[@]}"
