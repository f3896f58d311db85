#!/usr/bin/env bash
# Usage: scripts/brokers/status.sh [BROKER...]
# One line per broker: running (ours, ports answer) / unready (ours, still starting or hung) /
# stopped, with pid and address. Exit 0 always: it only reports.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

printf '%-9s %-9s %-8s %s\n' BROKER STATE PID ADDRESS
expand_brokers "$@"
for b in "${BROKERS[@]}"; do
	if pid=$(broker_pid "$b"); then
		state=running
		ports_open "$b" || state=unready
	else
		pid=- state=stopped
	fi
	printf '%-9s %-9s %-8s %s\n' "$b" "$state" "$pid" "$("${b}_addr")"
done
echo "state dir: $STATE"
