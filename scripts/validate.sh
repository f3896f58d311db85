#!/usr/bin/env bash
# Validates every shipped scenario (or the files given) without connecting to anything.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
source "$repo/scripts/k6env.sh"
cd "$repo"
if [[ $# -eq 0 ]]; then set -- scenarios/*.yaml; fi
exec "${MQBENCH_K6:-bin/k6}" x mqbench validate "$@"
