#!/usr/bin/env bash
# `make unit`: every test that needs no broker and no bin/k6, in well under a minute: the
# parser and its fixtures, thresholds against k6's own evaluation, the results writers, the
# runner on an in-process NATS server (race detector on the concurrent packages). Driver
# tests that need a broker skip themselves.
set -euo pipefail
cd "$(dirname "$0")/../extensions"
go test -count=1 -race ./internal/ledger/ ./internal/hist/ ./internal/runner/ ./internal/verdict/ ./internal/faultproxy/
go test -count=1 . ./internal/cmd/ ./internal/script/ ./internal/scenario/ ./internal/catalog/ ./internal/header/ ./internal/payload/ \
  ./internal/compare/ ./internal/threshold/ ./internal/results/ ./internal/redact/ ./internal/driver/ ./internal/reference/... ./internal/k8s/ ./internal/merge/... ./internal/selfcheck/
