#!/usr/bin/env bash
# Usage: scripts/brokers/resume.sh BROKER...
# Lets each broker stalled by pause.sh run again (SIGCONT).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[[ $# -gt 0 ]] || die "usage: $0 BROKER... (one of: ${ALL_BROKERS[*]})"
expand_brokers "$@"
for b in "${BROKERS[@]}"; do signal_one "$b" CONT; done
