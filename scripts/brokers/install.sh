#!/usr/bin/env bash
# Usage: scripts/brokers/install.sh BROKER... | all
# Installs what each broker needs (Debian packages, the pinned nats-server build, the pinned
# Kafka jars). Idempotent: a broker that is installed costs no network call.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_cmd curl curl # every readiness probe speaks HTTP or needs it
expand_brokers "$@"
for b in "${BROKERS[@]}"; do
	if "${b}_installed"; then
		echo "$b already installed"
	else
		t0=$(now_us)
		"${b}_install"
		echo "installed $b ($(since "$t0"))"
	fi
done
