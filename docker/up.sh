#!/usr/bin/env bash
# `make up`: start the docker stack (brokers, InfluxDB, Grafana) on 127.0.0.1 and wait until
# every container is healthy. Needs Docker with the compose plugin.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v docker >/dev/null || { echo "up: docker is not installed (without Docker: scripts/brokers/start.sh nats redis influxdb)" >&2; exit 1; }
docker compose version >/dev/null 2>&1 || { echo "up: the docker compose plugin is not installed" >&2; exit 1; }
docker compose -p mqbench -f docker/compose.yaml up -d --wait "$@"
cat <<MSG
up: Kafka 127.0.0.1:9092, RabbitMQ 127.0.0.1:5672 (management http://127.0.0.1:15672),
    NATS 127.0.0.1:4222 (monitoring :8222), Redis 127.0.0.1:6379, InfluxDB http://127.0.0.1:8086 (db k6),
    Grafana http://127.0.0.1:3000 (dashboards in folder mqbench)
    run with: make run SCENARIO=scenarios/<name>.yaml OUT=mqbench-influxdb
MSG
