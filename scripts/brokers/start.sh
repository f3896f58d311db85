#!/usr/bin/env bash
# Usage: scripts/brokers/start.sh BROKER... | all
# Installs if needed, starts each broker on 127.0.0.1 with its data under the state dir, waits
# until it really serves (ports open + a protocol-level probe) and prints
#   started BROKER pid N at HOST:PORT (X.Xs)
# A broker already running (our pid file, process alive, answering) is left alone. On failure:
# the last 30 log lines, exit 1. Ports and START_TIMEOUT: see README.md.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_cmd curl curl
expand_brokers "$@"
for b in "${BROKERS[@]}"; do start_one "$b"; done
