#!/usr/bin/env bash
# Runs one scenario: scripts/run.sh scenarios/x.yaml [extra k6 run flags...]
# It is `bin/k6 x mqbench run FILE [flags]` (which also runs a scenario with a search block as
# a capacity search), plus OUT: OUT=influxdb adds k6's InfluxDB output (every sample),
# OUT=mqbench-influxdb the per-second aggregating one (docs/dashboards.md); INFLUXDB_URL
# overrides http://127.0.0.1:8086/k6. OUT=web-dashboard: k6's web dashboard on 127.0.0.1:5665 with
# lib/web-dashboard.json and the stat tag (docs/web-dashboard.md); K6_WEB_DASHBOARD_EXPORT=FILE.html
# also writes its report. Any other OUT is k6's --out as it is: OUT=mqbench-prometheus (remote
# write to K6_PROMETHEUS_RW_SERVER_URL, default http://127.0.0.1:9090/api/v1/write).
# The exit code is the run's (docs: exit codes).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
source "$repo/scripts/k6env.sh"
scenario="${1:?usage: scripts/run.sh scenarios/<name>.yaml [k6 flags]}"
shift
k6="${MQBENCH_K6:-$repo/bin/k6}"
out=()
case "${OUT:-}" in
  "") ;;
  influxdb) out=(--out "influxdb=${INFLUXDB_URL:-http://127.0.0.1:8086/k6}") ;;
  mqbench-influxdb) out=(--out "mqbench-influxdb=${INFLUXDB_URL:-http://127.0.0.1:8086/k6}") ;;  # per-second aggregates
  web-dashboard) export K6_WEB_DASHBOARD=true ;;  # mqbench run sets its host, tag and layout
  *) out=(--out "$OUT") ;;
esac
exec "$k6" x mqbench run "$scenario" "${out[@]}" "$@"
