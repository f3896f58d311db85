#!/usr/bin/env bash
# make test's installs, so that the network and disk bound ones overlap the first compile:
#   scripts/test/prefetch.sh tools          Debian packages the foreground steps use (small; run
#                                           first, so no foreground step calls apt-get later)
#   scripts/test/prefetch.sh BROKER...      chromium, then every broker's install (Debian packages,
#                                           pinned jars, pinned Go builds); run in the background
# Idempotent: what is installed costs no network call.
set -euo pipefail
source "$(dirname "$0")/../brokers/lib.sh"
if [[ ${1:-} == tools ]]; then
	apt_install shellcheck umoci runc jq iproute2 curl
	exit 0
fi
apt_install chromium
"$BROKERS_DIR/install.sh" "$@"
