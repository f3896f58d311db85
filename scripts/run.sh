#!/usr/bin/env bash
# Runs one scenario: scripts/run.sh scenarios/x.yaml [extra k6 run flags...]
# OUT=influxdb adds k6's InfluxDB output (every sample), OUT=mqbench-influxdb the per-second
# aggregating one (docs/influxdb-grafana.md); INFLUXDB_URL overrides http://127.0.0.1:8086/k6.
# Exit code is k6's (0 pass, 99 thresholds failed, 105 aborted) or mqbench's (111 invalid scenario, 112 broker unreachable, 113 broker refused).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
source "$repo/scripts/k6env.sh"
scenario="${1:?usage: scripts/run.sh scenarios/<name>.yaml [k6 flags]}"
shift
[[ -f "$scenario" ]] || { echo "mqbench: scenario file not found: $scenario" >&2; exit 111; }
k6="${MQBENCH_K6:-$repo/bin/k6}"
# k6's InfluxDB output writes one point per message: a second's worth at high rates passes
# InfluxDB's 25 MB request limit ("Request Entity Too Large") and k6 drops that batch, so it
# pushes every 200 ms unless told otherwise (however the output is chosen: OUT or --out).
export K6_INFLUXDB_PUSH_INTERVAL="${K6_INFLUXDB_PUSH_INTERVAL:-200ms}"
out=()
case "${OUT:-}" in
  "") ;;
  influxdb) out=(--out "influxdb=${INFLUXDB_URL:-http://127.0.0.1:8086/k6}") ;;
  mqbench-influxdb) out=(--out "mqbench-influxdb=${INFLUXDB_URL:-http://127.0.0.1:8086/k6}") ;;  # per-second aggregates
  *) out=(--out "$OUT") ;;
esac
# Without a terminal (CI logs), k6's per-second progress block is noise: mqbench prints its own
# progress line every 10 s instead. MQ_K6_PROGRESS=1 keeps k6's.
quiet=()
[[ -t 1 || "${MQ_K6_PROGRESS:-}" == 1 ]] || quiet=(--quiet)
# A scenario with a search block is a capacity search: one k6 run per step (k6 x mqbench search).
if grep -qE '^search:' "$scenario"; then
  exec "$k6" x mqbench search "$scenario" --script "$repo/lib/mqbench.js" "${out[@]}" "$@"
fi
exec "$k6" run --address "" "${quiet[@]}" -e MQ_SCENARIO="$scenario" "${out[@]}" "$@" "$repo/lib/mqbench.js"
