#!/usr/bin/env bash
# Usage: scripts/brokers/rabbitmqctl.sh COMMAND [ARGS...]   e.g. list_queues name messages
# rabbitmqctl against the node start.sh runs (same HOME/cookie, node name and paths).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
rabbitmqctl "$@"
