#!/usr/bin/env bash
# `make down`: stop the docker stack and remove its containers and volumes (broker data,
# InfluxDB's measurements). results/ on the host is kept.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v docker >/dev/null || { echo "down: docker is not installed" >&2; exit 1; }
docker compose -p mqbench -f docker/compose.yaml --profile run down -v --remove-orphans "$@"
